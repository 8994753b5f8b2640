/*
 * The printer of many events (gcs_event_printer, what `gcscope events`
 * uses) writes exactly what gcs_event_print_text/_json write for each
 * event, in both formats: every event of the committed fixtures and the
 * shared traces, and copies of events cut short (one byte, half: the
 * payload no longer fits its schema) or longer (trailing bytes), which
 * take the printer's general path where its prepared one stops.
 */
#include "check.h"

#include "gcscope.h"

static const char *const traces[] = {
    "tests/data/wks-nonconcurrent.nettrace",
    "tests/data/wks-concurrent.nettrace",
    "tests/data/wks-service.nettrace",
    "tests/data/server.nettrace",
    "tests/data/objects-movement.nettrace",
    "tests/data/objects-allocsampled.nettrace",
    "tests/data/gen0size-small.nettrace",
    "tests/data/probe-net10.nettrace",
    "tests/data/names/net10-names.nettrace",
    "tests/data/names/synthetic-v1.netperf",
    "tests/data/rows/uncompressed-v3.netperf",
    "tests/data/v6/synthetic.nettrace",
    "../shared/traces/perfview/eventpipe-dotnetcore2.1-linux-x64-objver3.netperf",
    "../shared/traces/perfview/eventpipe-dotnetcore5.0-win-x64-arraytypes.nettrace",
    "../shared/traces/perfview/primitive-types.etl",
    "../shared/traces/perfview/gcevents.etl",
    "../shared/traces/perfview/net.4.5.2.x86.etl.zip",
};

/* Events of a trace printed (the rest is read and skipped: the run time
 * of the one-event printer under the sanitizers). */
#define MAX_EVENTS 40000
/* Every event up to this one also gets its cut and longer copies; after
 * it, every 16th. */
#define ALL_VARIANTS 4000

typedef struct sink {
    FILE *f;
    char *text;
    size_t len;
} sink;

static bool sink_open(sink *s)
{
    s->text = NULL;
    s->len = 0;
    s->f = open_memstream(&s->text, &s->len);
    return s->f != NULL;
}

static void sink_close(sink *s)
{
    fclose(s->f);
}

/* Prints ev both ways in both formats. */
static void print_both(gcs_event_printer *const printer[2], sink *const one[2],
                       const gcs_event *ev)
{
    gcs_error err;
    for (int json = 0; json < 2; json++) {
        gcs_status want = json ? gcs_event_print_json(one[json]->f, ev, &err)
                               : gcs_event_print_text(one[json]->f, ev, &err);
        CHECK_EQ_INT(want, GCS_OK);
        CHECK_EQ_INT(gcs_event_printer_put(printer[json], ev, &err), GCS_OK);
    }
}

/* The first place where two outputs differ, as the two lines there. */
static void show_difference(const char *path, const char *what, const sink *a, const sink *b)
{
    size_t i = 0;
    while (i < a->len && i < b->len && a->text[i] == b->text[i])
        i++;
    size_t line = i;
    while (line > 0 && a->text[line - 1] != '\n')
        line--;
    fprintf(stderr, "%s (%s): outputs differ at byte %zu\n  one event: %.300s\n  printer:   %.300s\n",
            path, what, i, a->text + line, b->text + line);
}

/* One-event printing and a printer of many, each in both formats, into
 * memory; `one` and `printer` are what print_both takes. */
typedef struct comparison {
    sink one_text, one_json, many_text, many_json;
    sink *one[2];
    gcs_event_printer *printer[2];
} comparison;

static void comparison_open(comparison *c)
{
    CHECK(sink_open(&c->one_text) && sink_open(&c->one_json) && sink_open(&c->many_text) &&
          sink_open(&c->many_json));
    c->one[0] = &c->one_text;
    c->one[1] = &c->one_json;
    c->printer[0] = gcs_event_printer_new(c->many_text.f, GCS_PRINT_TEXT);
    c->printer[1] = gcs_event_printer_new(c->many_json.f, GCS_PRINT_JSON);
    CHECK(c->printer[0] && c->printer[1]);
}

/* Flushes and closes everything, checks that the printers wrote what
 * one-event printing wrote (the first difference shown), frees it all;
 * returns the JSON text's length. */
static size_t comparison_finish(comparison *c, const char *path)
{
    gcs_error err;
    CHECK_EQ_INT(gcs_event_printer_flush(c->printer[0], &err), GCS_OK);
    CHECK_EQ_INT(gcs_event_printer_flush(c->printer[1], &err), GCS_OK);
    gcs_event_printer_free(c->printer[0]);
    gcs_event_printer_free(c->printer[1]);
    sink_close(&c->one_text);
    sink_close(&c->one_json);
    sink_close(&c->many_text);
    sink_close(&c->many_json);
    const sink *one[2] = {&c->one_text, &c->one_json}, *many[2] = {&c->many_text, &c->many_json};
    for (int json = 0; json < 2; json++) {
        CHECK_EQ_U64(many[json]->len, one[json]->len);
        bool same = many[json]->len == one[json]->len &&
                    !memcmp(many[json]->text, one[json]->text, one[json]->len);
        if (!same)
            show_difference(path, json ? "json" : "text", one[json], many[json]);
        CHECK(same);
    }
    size_t json_len = c->one_json.len;
    free(c->one_text.text);
    free(c->one_json.text);
    free(c->many_text.text);
    free(c->many_json.text);
    return json_len;
}

static size_t compare_trace(const char *path)
{
    gcs_error err;
    gcs_error_clear(&err);
    gcs_source *src = gcs_source_open_file(path, &err);
    if (!src)
        return 0;
    gcs_reader *r = gcs_reader_new(src, NULL, &err);
    CHECK(r != NULL);
    if (!r) {
        gcs_source_free(src);
        return 0;
    }
    comparison cmp;
    comparison_open(&cmp);
    gcs_event_printer *const *printer = cmp.printer;
    sink *const *one = cmp.one;
    static uint8_t longer[1 << 17];
    const gcs_event *ev;
    size_t n = 0;
    while (n < MAX_EVENTS && gcs_reader_next(r, &ev, &err) == GCS_OK) {
        print_both(printer, one, ev);
        if (n < ALL_VARIANTS || n % 16 == 0) {
            gcs_event copy = *ev;
            if (ev->payload_size > 0) {
                copy.payload_size = ev->payload_size - 1;
                print_both(printer, one, &copy);
                copy.payload_size = ev->payload_size / 2;
                print_both(printer, one, &copy);
            }
            if (ev->payload_size + 3 <= sizeof longer) {
                if (ev->payload_size > 0)
                    memcpy(longer, ev->payload, ev->payload_size);
                memcpy(longer + ev->payload_size, "\x01\x02\x03", 3);
                copy.payload = longer;
                copy.payload_size = ev->payload_size + 3;
                print_both(printer, one, &copy);
            }
        }
        n++;
    }
    CHECK(n > 0);
    CHECK(comparison_finish(&cmp, path) > 0);
    gcs_reader_free(r);
    gcs_source_free(src);
    return n;
}

static void test_printer_writes_what_one_event_printing_writes(void)
{
    size_t traces_read = 0, events = 0;
    for (size_t i = 0; i < sizeof traces / sizeof traces[0]; i++) {
        size_t n = compare_trace(traces[i]);
        if (n > 0)
            traces_read++;
        events += n;
    }
    printf("  %zu traces, %zu events compared\n", traces_read, events);
    CHECK(traces_read >= 12); /* the committed fixtures at least */
}

/* A write that fails is reported (here: a stream opened for reading). */
static void test_printer_reports_a_failed_write(void)
{
    FILE *f = fopen("tests/data/probe-net10.nettrace", "r");
    CHECK(f != NULL);
    if (!f)
        return;
    gcs_error err;
    gcs_source *src = gcs_source_open_file("tests/data/probe-net10.nettrace", &err);
    gcs_reader *r = gcs_reader_new(src, NULL, &err);
    CHECK(r != NULL);
    gcs_event_printer *p = gcs_event_printer_new(f, GCS_PRINT_JSON);
    const gcs_event *ev;
    while (gcs_reader_next(r, &ev, &err) == GCS_OK)
        (void)gcs_event_printer_put(p, ev, &err);
    CHECK_EQ_INT(gcs_event_printer_flush(p, &err), GCS_ERR_IO);
    gcs_event_printer_free(p);
    gcs_reader_free(r);
    gcs_source_free(src);
    fclose(f);
}

/*
 * An array of flat structs whose field names (from a trace's metadata:
 * hostile input) take more than the printer's whole buffer: the elements
 * are written apart, as one-event printing writes them, never past the
 * buffer (ASan). Also names that fit, in 4- and 8-byte pointers.
 */
static void test_struct_arrays_with_long_names(void)
{
    const size_t name_lens[] = {5, 300u * 1024u};
    for (size_t li = 0; li < 2; li++) {
        char *name = malloc(name_lens[li] + 1);
        CHECK(name != NULL);
        if (!name)
            return;
        memset(name, 'N', name_lens[li]);
        name[name_lens[li]] = 0;
        const gcs_field element[] = {
            {.name = name, .type = GCS_T_POINTER},
            {.name = "Length", .type = GCS_T_U64},
            {.name = "Flags", .type = GCS_T_U32, .hex = true},
        };
        const gcs_field fields[] = {
            {.name = "Count", .type = GCS_T_U32},
            {.name = "Values", .type = GCS_T_STRUCT, .repeat = GCS_REPEAT_COUNT_FIELD,
             .repeat_arg = 0, .children = element, .child_count = 3},
        };
        const gcs_event_type type = {.provider = "Synth", .event_id = 1, .name = "Synth/Ranges",
                                     .fields = fields, .field_count = 2, .known = true};
        for (uint32_t ptr = 4; ptr <= 8; ptr += 4) {
            uint8_t payload[4 + 3 * 20];
            const uint32_t count = 3;
            memcpy(payload, &count, 4);
            for (size_t i = 4; i < sizeof payload; i++)
                payload[i] = (uint8_t)(i * 37 + ptr);
            const gcs_event ev = {.type = &type, .msec = 1.5, .pid = 7, .tid = 8,
                                  .payload = payload,
                                  .payload_size = 4 + count * (ptr + 8 + 4), .pointer_size = ptr};
            comparison cmp;
            comparison_open(&cmp);
            print_both(cmp.printer, cmp.one, &ev);
            print_both(cmp.printer, cmp.one, &ev);
            CHECK(comparison_finish(&cmp, "long names") > 2 * 3 * name_lens[li]);
        }
        free(name);
    }
}

/*
 * A flat event whose one field name makes a key just shorter than the
 * printer's buffer (256 KiB, event_print.c's PRINTER_BUFFER) but too long
 * for the room a value needs after it: the value still lands inside the
 * buffer (ASan), and the text is one-event printing's.
 */
static void test_key_near_the_buffer_size(void)
{
    const size_t buffer = 256u * 1024u;
    for (size_t short_by = 1; short_by <= 96; short_by += 5) {
        size_t len = buffer - short_by;
        char *name = malloc(len + 1);
        CHECK(name != NULL);
        if (!name)
            return;
        memset(name, 'K', len);
        name[len] = 0;
        const gcs_field fields[] = {
            {.name = name, .type = GCS_T_POINTER},
        };
        const gcs_event_type type = {.provider = "Synth", .event_id = 2, .name = "Synth/Key",
                                     .fields = fields, .field_count = 1, .known = true};
        const uint8_t payload[8] = {0xf0, 0xde, 0xbc, 0x9a, 0x78, 0x56, 0x34, 0x12};
        const gcs_event ev = {.type = &type, .msec = 2.0, .pid = 1, .tid = 2, .payload = payload,
                              .payload_size = 8, .pointer_size = 8};
        comparison cmp;
        comparison_open(&cmp);
        print_both(cmp.printer, cmp.one, &ev);
        print_both(cmp.printer, cmp.one, &ev);
        CHECK(comparison_finish(&cmp, "key near the buffer size") > 2 * len);
        free(name);
    }
}

int main(void)
{
    RUN(test_printer_writes_what_one_event_printing_writes);
    RUN(test_key_near_the_buffer_size);
    RUN(test_struct_arrays_with_long_names);
    RUN(test_printer_reports_a_failed_write);
    return check_report("test_event_printer");
}
