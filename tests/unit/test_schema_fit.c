/*
 * The compiled fit check (decode/schema_fit.c) against the walker
 * (gcs_payload_walk_fields): on every event of the committed fixtures and
 * the shared traces, for the whole payload, for every cut of it (every
 * length for payloads up to 4 KiB, 512 spread lengths and the last 64
 * for larger ones), and for small payloads with each byte set to 0x00 and
 * 0xFF in turn (counts that exceed what is left, strings that lose their
 * terminator), the two must give the same answer (cuts and byte changes
 * on the first CUT_EVENTS_PER_TYPE events of each type). The bulk GC events
 * (arrays of fixed-size structs, the reason the program exists) must
 * compile.
 */
#include "check.h"

#include "base/buf.h"
#include "decode/schema_fit.h"
#include "format/container.h"
#include "gcscope.h"
#include "trace_list.h"


#define MAX_TYPES 4096

typedef struct compiled {
    const gcs_event_type *type[MAX_TYPES];
    uint32_t pointer_size[MAX_TYPES];
    const gcs_fit_prog *prog[MAX_TYPES];
    uint32_t cut_events[MAX_TYPES]; /* events of the type checked cut by cut */
    size_t n;
} compiled;

/* Events of each type checked cut by cut and byte by byte (the others:
 * the whole payload), so that the test stays a few seconds long. */
#define CUT_EVENTS_PER_TYPE 40

static const gcs_fit_prog *prog_of(compiled *c, gcs_arena *arena, const gcs_event *ev,
                                   bool *cut_too)
{
    *cut_too = false;
    for (size_t i = 0; i < c->n; i++)
        if (c->type[i] == ev->type && c->pointer_size[i] == ev->pointer_size) {
            *cut_too = c->cut_events[i]++ < CUT_EVENTS_PER_TYPE;
            return c->prog[i];
        }
    *cut_too = true;
    const gcs_fit_prog *p =
        gcs_fit_compile(ev->type->fields, ev->type->field_count, ev->pointer_size, arena);
    if (c->n < MAX_TYPES) {
        c->type[c->n] = ev->type;
        c->pointer_size[c->n] = ev->pointer_size;
        c->cut_events[c->n] = 1;
        c->prog[c->n++] = p;
    }
    return p;
}

static bool walker_fits(const gcs_event *ev, const uint8_t *payload, uint32_t size)
{
    gcs_payload_info info;
    gcs_error err;
    return gcs_payload_walk_fields(ev->type->fields, ev->type->field_count, payload, size,
                                   ev->pointer_size, NULL, NULL, &info, &err) == GCS_OK;
}

static uint64_t mismatches;

static void same_answer(const gcs_event *ev, const gcs_fit_prog *p, const uint8_t *payload,
                        uint32_t size)
{
    bool walker = walker_fits(ev, payload, size), fit = gcs_fit_check(p, payload, size);
    if (walker != fit && mismatches++ < 10)
        fprintf(stderr, "%s/%s: %u bytes: walker %d, compiled %d\n", ev->type->provider,
                ev->type->name, size, walker, fit);
    CHECK(walker == fit);
}

static void test_compiled_check_agrees_with_walker(void)
{
    size_t seen = 0;
    uint64_t checked = 0, bulk_checked = 0;
    static uint8_t copy[1 << 16];
    for (size_t i = 0; i < sizeof reader_traces / sizeof reader_traces[0]; i++) {
        size_t size;
        unsigned char *data = reader_trace(i, &size);
        if (!data)
            continue;
        seen++;
        gcs_error err;
        gcs_source *src = gcs_source_from_memory(data, size, &err);
        gcs_reader *r = gcs_reader_new(src, NULL, &err);
        CHECK(r != NULL);
        gcs_arena arena;
        gcs_arena_init(&arena, 0);
        static compiled c;
        c.n = 0;
        const gcs_event *ev;
        while (gcs_reader_next(r, &ev, &err) == GCS_OK) {
            if (!ev->type->field_count || !ev->type->fields)
                continue;
            bool cut_too;
            const gcs_fit_prog *p = prog_of(&c, &arena, ev, &cut_too);
            if (strstr(ev->type->name, "GC/BulkMovedObjectRanges") ||
                strstr(ev->type->name, "GC/BulkSurvivingObjectRanges"))
                CHECK(p != NULL);
            if (!p)
                continue;
            checked++;
            bulk_checked += strncmp(ev->type->name, "GC/Bulk", 7) == 0;
            const uint32_t n = ev->payload_size;
            same_answer(ev, p, ev->payload, n);
            if (!cut_too)
                continue;
            if (n <= 4096) {
                for (uint32_t cut = 0; cut < n; cut++)
                    same_answer(ev, p, ev->payload, cut);
            } else {
                for (uint32_t k = 0; k < 512; k++)
                    same_answer(ev, p, ev->payload, (uint32_t)((uint64_t)n * k / 512));
                for (uint32_t cut = n - 64; cut < n; cut++)
                    same_answer(ev, p, ev->payload, cut);
            }
            if (n <= 256) {
                for (uint32_t b = 0; b < n; b++) {
                    memcpy(copy, ev->payload, n);
                    copy[b] = 0xFF;
                    same_answer(ev, p, copy, n);
                    copy[b] = 0x00;
                    same_answer(ev, p, copy, n);
                }
            }
        }
        gcs_reader_free(r);
        gcs_source_free(src);
        gcs_arena_reset(&arena);
        free(data);
    }
    CHECK(seen >= READER_TRACES_COMMITTED);
    CHECK(checked > 10000);
    CHECK(bulk_checked > 0); /* objects-movement has the bulk range events */
    printf("schema_fit: %llu events compared (%llu bulk GC events)\n",
           (unsigned long long)checked, (unsigned long long)bulk_checked);
}

/* Fixed fields, one string, fixed fields (the shape checked without
 * scanning the string, from its last unit): every placement of zero units
 * in every length of payload, odd lengths and trailing bytes included,
 * must get the walker's answer, for UTF-16 and ANSI strings. */
static void test_one_string_shape_agrees_with_walker(void)
{
    for (int ansi = 0; ansi < 2; ansi++) {
        const gcs_field fields[] = {
            {.name = "Amount", .type = GCS_T_U32, .repeat = GCS_REPEAT_ONE},
            {.name = "Name", .type = ansi ? GCS_T_ANSIZ : GCS_T_UTF16Z, .repeat = GCS_REPEAT_ONE},
            {.name = "Heap", .type = GCS_T_U16, .repeat = GCS_REPEAT_ONE},
        };
        gcs_arena arena;
        gcs_arena_init(&arena, 0);
        const gcs_fit_prog *p = gcs_fit_compile(fields, 3, 8, &arena);
        CHECK(p != NULL);
        uint64_t fits = 0;
        uint8_t payload[16];
        for (uint32_t size = 0; size <= sizeof payload; size++)
            for (uint32_t zeros = 0; zeros < (1u << 8); zeros++) {
                /* Bytes 4..11 (the string's region) zero where zeros says. */
                memset(payload, 0x41, sizeof payload);
                for (uint32_t b = 0; b < 8; b++)
                    if (zeros >> b & 1)
                        payload[4 + b] = 0;
                gcs_payload_info info;
                gcs_error err;
                bool walker = gcs_payload_walk_fields(fields, 3, payload, size, 8, NULL, NULL,
                                                      &info, &err) == GCS_OK;
                CHECK(walker == gcs_fit_check(p, payload, size));
                fits += walker;
            }
        CHECK(fits > 0);
        gcs_arena_reset(&arena);
    }
}

/* The walker's answer for fields on payload[0, size). */
static bool walk_fits(const gcs_field *fields, uint32_t count, const uint8_t *payload,
                      uint32_t size)
{
    gcs_payload_info info;
    gcs_error err;
    return gcs_payload_walk_fields(fields, count, payload, size, 8, NULL, NULL, &info, &err) ==
           GCS_OK;
}

/* Fixed fields, three strings, fixed fields (MethodDCStopVerbose's shape,
 * checked by counting zero units in one pass, gcs_cur_strings_end): the
 * walker's answer, for UTF-16 and ANSI, on payloads long enough for the
 * 64- and 32-byte steps and the overlapped last step: each payload length
 * up to 200 bytes, holding three strings of random lengths (cut anywhere:
 * a last string ending exactly before the trailing field, one byte or one
 * unit short of it, without its terminator, odd lengths), or zero units
 * (or single zero bytes, at odd offsets too) placed at random, 0 to 5 of
 * them, one of them often at or one unit before the end. The tally slot the
 * netperf container uses for such a type counts a row exactly
 * when it fits (gcs_tally_takes_strings; gcs_tally_takes leaves it to
 * sink->event). */
static void test_three_string_shape_agrees_with_walker(void)
{
    uint64_t rng = 0x2545F4914F6CDD1Dull;
    for (int ansi = 0; ansi < 2; ansi++) {
        const gcs_type str = ansi ? GCS_T_ANSIZ : GCS_T_UTF16Z;
        const gcs_field fields[] = {
            {.name = "MethodID", .type = GCS_T_U64, .repeat = GCS_REPEAT_ONE},
            {.name = "MethodSize", .type = GCS_T_U32, .repeat = GCS_REPEAT_ONE},
            {.name = "MethodNamespace", .type = str, .repeat = GCS_REPEAT_ONE},
            {.name = "MethodName", .type = str, .repeat = GCS_REPEAT_ONE},
            {.name = "MethodSignature", .type = str, .repeat = GCS_REPEAT_ONE},
            {.name = "ClrInstanceID", .type = GCS_T_U16, .repeat = GCS_REPEAT_ONE},
        };
        const uint32_t unit = ansi ? 1 : 2;
        gcs_arena arena;
        gcs_arena_init(&arena, 0);
        const gcs_fit_prog *p = gcs_fit_compile(fields, 6, 8, &arena);
        CHECK(p != NULL);
        gcs_fit_string_shape shape = gcs_fit_string_shape_of(p);
        CHECK_EQ_U64(shape.unit, unit);
        CHECK_EQ_U64(shape.strings, 3);
        CHECK_EQ_U64(shape.before, 12);
        CHECK_EQ_U64(shape.after, 2);
        gcs_tally_slot slot = {.counted = GCS_TALLY_STRINGS, .zero_unit = (uint8_t)unit,
                               .zero_strings = 3, .zero_before = 12, .zero_after = 2};
        uint64_t fits = 0, tried = 0;
        static uint8_t payload[200];
        for (uint32_t size = 0; size <= sizeof payload; size++)
            for (uint32_t trial = 0; trial < 300; trial++) {
                memset(payload, 0x41, sizeof payload);
                /* Where the third string ends when the payload has three
                 * (odd trials), else 0. */
                uint32_t end = 0;
                if (trial % 2) {
                    /* Three strings of random lengths from the fixed
                     * fields on. */
                    end = 12;
                    for (int k = 0; k < 3; k++) {
                        rng = rng * 6364136223846793005ull + 1442695040888963407ull;
                        end += (uint32_t)(rng >> 59) * unit;
                        if (end + unit <= sizeof payload)
                            memset(payload + end, 0, unit);
                        end += unit;
                    }
                }
                uint32_t zeros = trial % 2 ? 0 : trial % 6;
                for (uint32_t z = 0; z < zeros; z++) {
                    rng = rng * 6364136223846793005ull + 1442695040888963407ull;
                    uint32_t at = size ? (uint32_t)(rng >> 33) % size : 0;
                    if (trial % 3 == 0 && z == zeros - 1 && size >= 2 + 2 * unit)
                        at = size - 2 - unit - (uint32_t)(rng >> 60) % 2 * unit; /* the end */
                    payload[at] = 0;
                    if (!ansi && ((rng >> 20) & 3) != 0 && at + 1 < sizeof payload)
                        payload[at + 1] = 0; /* a zero unit, or a lone zero byte */
                }
                bool walker = walk_fits(fields, 6, payload, size);
                if (end)
                    CHECK(walker == (end + 2 <= size));
                CHECK(walker == gcs_fit_check(p, payload, size));
                /* Exact for several strings: the reader's inline check
                 * and the container's slot say the same. */
                CHECK(walker == gcs_fit_string_surely_fits(&shape, payload, size));
                gcs_cursor c = gcs_cur_make(payload, size, 0);
                CHECK(walker == gcs_tally_takes_strings(&slot, &c, size));
                CHECK(!gcs_tally_takes(&slot, &c, size)); /* left to sink->event */
                fits += walker;
                tried++;
            }
        printf("three strings (%s): %llu of %llu payloads fit\n", ansi ? "ANSI" : "UTF-16",
               (unsigned long long)fits, (unsigned long long)tried);
        CHECK(fits > tried / 10 && fits < tried - tried / 10);
        gcs_arena_reset(&arena);
    }
}

int main(void)
{
    RUN(test_one_string_shape_agrees_with_walker);
    RUN(test_three_string_shape_agrees_with_walker);
    RUN(test_compiled_check_agrees_with_walker);
    return check_report("test_schema_fit");
}
