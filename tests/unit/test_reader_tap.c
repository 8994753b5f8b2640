/*
 * Tapped events (gcs_reader_options.tap) reach on_tap in exactly the
 * place gcs_reader_next would have delivered them: a reader that taps
 * GC analysis' allocation ticks and one that delivers them must see the
 * same sequence of events (type, time, process, thread, payload head and
 * size) and count the same (events, types, undecodable ones, time span),
 * on every committed fixture and the shared traces (trace_list.h), from
 * memory and from a source that waits now and then; also when reading
 * switches to scanning with tap rows pending; and on synthetic traces
 * whose tapped rows carry activity ids (sorted as records, handed to
 * on_tap all the same).
 */
#include "check.h"
#include "copy_source.h"
#include "format/eventpipe_metadata.h"
#include "trace_builder.h"
#include "trace_list.h"

#include "gcscope.h"


/* A running hash of what was handed out, in order, and how much. */
typedef struct seen {
    uint64_t hash, events, tapped;
} seen;

static uint64_t mix(uint64_t h, uint64_t v)
{
    h ^= v + 0x9E3779B97F4A7C15ull + (h << 6) + (h >> 2);
    return h * 0xff51afd7ed558ccdull;
}

static void note(seen *s, const gcs_event_type *type, int64_t ts, uint32_t pid, uint64_t tid,
                 const uint8_t *payload, uint32_t head, uint32_t size, const char *process_name)
{
    uint64_t h = mix(s->hash, type->index);
    h = mix(h, (uint64_t)ts);
    h = mix(h, pid);
    h = mix(h, tid);
    h = mix(h, size);
    for (uint32_t i = 0; i < head; i++)
        h = mix(h, payload[i]);
    /* the process name delivery gives (an LTTng procname), or none */
    h = mix(h, process_name != NULL);
    for (const char *c = process_name; c && *c; c++)
        h = mix(h, (uint8_t)*c);
    s->hash = h;
    s->events++;
}

static void on_tap(void *ctx, const gcs_tap_event *ev)
{
    seen *s = ctx;
    note(s, ev->type, ev->timestamp, ev->pid, ev->tid, ev->head, ev->head_size,
         ev->payload_size, ev->process_name);
    s->tapped++;
}

/* Taps the events of this synthetic type (event id 1: "Tick"). */
static bool tap_ticks(void *ctx, const gcs_event_type *t)
{
    (void)ctx;
    return t->event_id == 1;
}

static bool want_all(void *ctx, const gcs_event_type *t)
{
    (void)ctx;
    (void)t;
    return true;
}

typedef struct reading {
    gcs_status status;
    seen seen;
    gcs_reader_stats stats;
    uint64_t type_counts[64];
} reading;

/* Reads src with `want`, tapping `tap`'s types or delivering them; the
 * first `first` events (all: SIZE_MAX) handed out, the rest scanned.
 * Frees src. */
static void read_source(gcs_source *src, bool (*want)(void *, const gcs_event_type *),
                        bool (*tap)(void *, const gcs_event_type *), size_t first,
                        reading *out)
{
    memset(out, 0, sizeof *out);
    gcs_error err;
    gcs_reader_options opts = {.want = want, .tap = tap, .on_tap = on_tap,
                               .tap_ctx = &out->seen};
    gcs_reader *r = src ? gcs_reader_new(src, &opts, &err) : NULL;
    CHECK(r != NULL);
    if (!r) {
        gcs_source_free(src);
        return;
    }
    const gcs_event *ev;
    gcs_status st = GCS_OK;
    while (out->seen.events < first &&
           ((st = gcs_reader_next(r, &ev, &err)) == GCS_OK || st == GCS_AGAIN)) {
        if (st == GCS_AGAIN)
            continue;
        uint32_t head = ev->payload_size < GCS_TAP_HEAD_BYTES ? ev->payload_size
                                                             : GCS_TAP_HEAD_BYTES;
        note(&out->seen, ev->type, ev->timestamp, ev->pid, ev->tid, ev->payload, head,
             ev->payload_size, ev->process_name);
    }
    if (out->seen.events >= first)
        while ((st = gcs_reader_scan(r, &err)) == GCS_AGAIN)
            ;
    out->status = st;
    out->stats = *gcs_reader_get_stats(r);
    const gcs_event_type *t;
    for (uint32_t i = 0; i < 64 && (t = gcs_reader_event_type(r, i)) != NULL; i++)
        out->type_counts[i] = t->count;
    gcs_reader_free(r);
    gcs_source_free(src);
}

/* read_source of a trace's bytes; slow: 4 KiB a read, GCS_AGAIN before
 * every other read. */
static void read_with(const uint8_t *data, size_t size,
                      bool (*want)(void *, const gcs_event_type *),
                      bool (*tap)(void *, const gcs_event_type *), size_t first, bool slow,
                      reading *out)
{
    gcs_error err;
    copy_src cs = {.data = data, .size = size, .max_chunk = 4096, .at_end = GCS_END,
                   .again_every_other = true};
    gcs_source *src = slow ? gcs_source_custom(copy_src_read, NULL, &cs, &err)
                           : gcs_source_from_memory(data, size, &err);
    read_source(src, want, tap, first, out);
}

static void check_same_reading(const char *what, const reading *a, const reading *b,
                               bool same_sequence)
{
    int failed_before = check_failed_in_test;
    CHECK_EQ_INT(a->status, b->status);
    if (same_sequence) {
        CHECK_EQ_U64(a->seen.events, b->seen.events);
        CHECK_EQ_U64(a->seen.hash, b->seen.hash);
        /* Else how many were handed out before scanning differs: taps
         * come several in one gcs_reader_next call. */
        CHECK_EQ_U64(a->stats.skipped_events, b->stats.skipped_events);
    }
    CHECK_EQ_U64(a->stats.events, b->stats.events);
    CHECK_EQ_U64(a->stats.undecodable_events, b->stats.undecodable_events);
    CHECK_EQ_U64(a->stats.unknown_events, b->stats.unknown_events);
    CHECK_EQ_U64(a->stats.lost_events, b->stats.lost_events);
    CHECK_EQ_U64(a->stats.sort_overflows, b->stats.sort_overflows);
    CHECK_EQ_U64((uint64_t)a->stats.first_timestamp, (uint64_t)b->stats.first_timestamp);
    CHECK_EQ_U64((uint64_t)a->stats.last_timestamp, (uint64_t)b->stats.last_timestamp);
    for (int i = 0; i < 64; i++)
        CHECK_EQ_U64(a->type_counts[i], b->type_counts[i]);
    if (check_failed_in_test != failed_before)
        fprintf(stderr, "  ^ %s\n", what);
}

static void test_taps_come_where_delivery_puts_them(void)
{
    size_t seen_traces = 0;
    for (size_t i = 0; i < sizeof reader_traces / sizeof reader_traces[0]; i++) {
        size_t size;
        unsigned char *data = reader_trace(i, &size);
        if (!data)
            continue;
        seen_traces++;
        reading delivered, tapped, mixed_d, mixed_t, slow_d, slow_t;
        read_with(data, size, gcs_gc_wants, NULL, SIZE_MAX, false, &delivered);
        read_with(data, size, gcs_gc_wants, gcs_gc_taps, SIZE_MAX, false, &tapped);
        check_same_reading(reader_traces[i], &delivered, &tapped, true);
        /* From a source that waits now and then: the reader releases what
         * it may when it waits, taps or not. */
        read_with(data, size, gcs_gc_wants, NULL, SIZE_MAX, true, &slow_d);
        read_with(data, size, gcs_gc_wants, gcs_gc_taps, SIZE_MAX, true, &slow_t);
        check_same_reading(reader_traces[i], &slow_d, &slow_t, true);
        /* A third handed out, then scanning with tap rows pending. */
        size_t third = (size_t)(delivered.seen.events / 3);
        read_with(data, size, gcs_gc_wants, NULL, third, false, &mixed_d);
        read_with(data, size, gcs_gc_wants, gcs_gc_taps, third, false, &mixed_t);
        check_same_reading(reader_traces[i], &mixed_d, &mixed_t, false);
        check_same_reading(reader_traces[i], &delivered, &mixed_t, false);
        free(data);
    }
    CHECK(seen_traces >= READER_TRACES_COMMITTED);
}

/* read_source of a file or folder (an LTTng trace), every event handed
 * out; false when it is absent. */
static bool read_path(const char *path, bool (*tap)(void *, const gcs_event_type *),
                      reading *out)
{
    gcs_error err;
    gcs_source *src = gcs_source_open_file(path, &err);
    if (!src)
        return false;
    read_source(src, gcs_gc_wants, tap, SIZE_MAX, out);
    return true;
}

/* LTTng traces, whose events carry their process's name: a tapped event
 * carries the one its delivery would have (three processes in ust-gc). */
static void test_taps_carry_process_names(void)
{
    static const char *const traces[] = {"tests/data/ctf/ust-gc", "tests/data/ctf/ust-be",
                                         "../shared/traces/ctf/clr-only.trace.zip",
                                         "../shared/traces/ctf/netcoreapp31.trace.zip"};
    size_t read = 0;
    for (size_t i = 0; i < sizeof traces / sizeof traces[0]; i++) {
        reading delivered, tapped;
        if (!read_path(traces[i], NULL, &delivered))
            continue;
        CHECK(read_path(traces[i], gcs_gc_taps, &tapped));
        read++;
        CHECK(tapped.seen.tapped > 0);
        check_same_reading(traces[i], &delivered, &tapped, true);
    }
    CHECK(read >= 2);
}

/* A metadata row: Synth/`name` (event id `event_id`) with one UInt32 and
 * one UTF-16 string, as AllocationTick's amount and type name. */
static void synth_type(bb *body, uint32_t id, uint32_t event_id, const char *name)
{
    bb meta = {0};
    bb_u32(&meta, id);
    bb_utf16z(&meta, "Synth");
    bb_u32(&meta, event_id);
    bb_utf16z(&meta, name);
    bb_u64(&meta, 0);
    bb_u32(&meta, 0);
    bb_u32(&meta, 5);
    bb_u32(&meta, 2);
    bb_u32(&meta, GCS_EP_TC_UINT32);
    bb_utf16z(&meta, "amount");
    bb_u32(&meta, GCS_EP_TC_STRING);
    bb_utf16z(&meta, "name");
    const tb_row row = {0, 0, 0, 0, 0, 0, 0, NULL};
    tb_row_v4(body, &row, meta.data, (uint32_t)meta.len, 0);
}

/* A Tick or Other row: metadata id, thread, time delta, size; an
 * activity id when asked (it then repeats in the rows after it until a
 * row gives another). */
static void synth_row(bb *body, uint32_t id, uint64_t tid, uint64_t delta, uint32_t amount,
                      const char *name, int activity)
{
    static bb payload;
    payload.len = 0;
    bb_u32(&payload, amount);
    bb_utf16z(&payload, name);
    bb_u8(body, (uint8_t)(1 | 4 | 128 | (activity >= 0 ? 16 : 0)));
    bb_varu(body, id);
    bb_varu(body, tid);
    bb_varu(body, delta);
    if (activity >= 0) {
        uint8_t a[16] = {0};
        a[0] = (uint8_t)activity;
        bb_bytes(body, a, 16);
    }
    bb_varu(body, payload.len);
    bb_bytes(body, payload.data, payload.len);
}

/*
 * Synthetic traces: blocks of Tick (tapped) and Other rows of several
 * threads, times going back between blocks, equal times, ticks whose
 * string does not end where the schema's tail begins (undecodable: the
 * whole check), rows with activity ids; sequence points between some
 * blocks.
 */
static void test_synthetic_taps(void)
{
    for (int variant = 0; variant < 2; variant++) {
        bb *b = calloc(1, sizeof *b);
        const tb_trace tr = {{2024, 2, 4, 29, 13, 14, 15, 16}, 5000, 1000000, 8, 4242, 16, 1000};
        tb_nettrace_start(b, &tr);
        bb *body = calloc(1, sizeof *body);
        tb_block_header(body, 0);
        synth_type(body, 1, 1, "Tick");
        synth_type(body, 2, 2, "Other");
        tb_block_object(b, "MetadataBlock", 2, body);
        uint64_t x = 77 + (uint64_t)variant;
        const int blocks = 12;
        for (int k = 0; k < blocks; k++) {
            memset(body, 0, sizeof *body);
            tb_block_header(body, 1);
            int rows = 1 + (int)(x % 100);
            uint64_t tid = 1 + (uint64_t)(k % 3);
            bb_u8(body, 1 | 2 | 4 | 128); /* the first row: capture thread too */
            bb_varu(body, 2);
            bb_varu(body, 0);
            bb_varu(body, 100 + tid);
            bb_varu(body, 0);
            bb_varu(body, tid);
            bb_varu(body, 1000 + (uint64_t)k * 50);
            bb_varu(body, 6);
            bb_u32(body, 0);
            bb_u16(body, 0);
            for (int i = 0; i < rows; i++) {
                x = x * 6364136223846793005ull + 1442695040888963407ull;
                uint32_t id = (x >> 60) < 11 ? 1 : 2;
                int activity = variant == 1 && (x >> 50) % 13 == 0 ? (int)((x >> 40) % 3) : -1;
                const char *name = (x >> 44) % 17 == 0 ? "A" : "System.String";
                synth_row(body, id, tid, (x >> 33) % 4, (uint32_t)(x >> 8), name, activity);
                if ((x >> 30) % 97 == 0) {
                    /* A tick whose string runs into its tail: undecodable. */
                    bb_u8(body, 1 | 128);
                    bb_varu(body, 1);
                    bb_varu(body, 1);
                    bb_varu(body, 6);
                    bb_u32(body, 5);
                    bb_u16(body, 'x');
                }
            }
            tb_block_object(b, "EventBlock", 2, body);
            if (k % 7 == 6) {
                memset(body, 0, sizeof *body);
                bb_u64(body, 1000 + (uint64_t)k * 50 + 100000);
                bb_u32(body, 0);
                tb_block_object(b, "SPBlock", 2, body);
            }
        }
        bb_u8(b, 1); /* NullReference: end of stream */
        reading delivered, tapped;
        read_with(b->data, b->len, want_all, NULL, SIZE_MAX, false, &delivered);
        read_with(b->data, b->len, want_all, tap_ticks, SIZE_MAX, false, &tapped);
        CHECK_EQ_INT(delivered.status, GCS_END);
        CHECK(tapped.seen.tapped > 100);
        CHECK(tapped.stats.undecodable_events > 0);
        char what[32];
        snprintf(what, sizeof what, "variant %d", variant);
        check_same_reading(what, &delivered, &tapped, true);
        free(body);
        free(b);
    }
}

int main(void)
{
    RUN(test_taps_come_where_delivery_puts_them);
    RUN(test_taps_carry_process_names);
    RUN(test_synthetic_taps);
    return check_report("test_reader_tap");
}
