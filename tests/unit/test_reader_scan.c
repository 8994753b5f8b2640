/*
 * gcs_reader_scan counts what a gcs_reader_next loop delivers: per event
 * type and in total, on every committed fixture and, when present, the
 * shared traces; also when reading starts event by event and goes on by
 * scanning, and when the scan has to wait for data (GCS_AGAIN). After a
 * scan the reader delivers no event. A reader told to deliver only what
 * GC analysis uses (options.want = gcs_gc_wants) counts the same too. Every
 * type's index is its place in gcs_reader_event_type's list. (Cut and corrupted inputs: the same
 * comparison runs in test_reader_robust.)
 */
#include <math.h>

#include "check.h"
#include "copy_source.h"
#include "format/eventpipe_metadata.h"
#include "trace_builder.h"
#include "trace_list.h"

#include "gcscope.h"


#define MAX_TYPES 4096

/* What a reader counted: totals and per type (in arrival order). */
typedef struct tally {
    gcs_status status;
    gcs_reader_stats stats;
    size_t n_types;
    uint64_t type_count[MAX_TYPES];
    /* Of the delivered events GC analysis wants: how many, and a sum of
     * hashes of their headers and payloads (any order). A header field
     * the container left stale after rows it counted (a thread id, a
     * stack id, a time) changes it. */
    uint64_t gc_events, gc_hash;
} tally;

/* Events delivered per type, counted by the test itself. */
typedef struct delivered_counts {
    const gcs_event_type *type[MAX_TYPES];
    uint64_t count[MAX_TYPES];
    size_t n;
} delivered_counts;

static void count_delivered(delivered_counts *d, const gcs_event_type *t)
{
    for (size_t i = 0; i < d->n; i++)
        if (d->type[i] == t) {
            d->count[i]++;
            return;
        }
    if (d->n < MAX_TYPES) {
        d->type[d->n] = t;
        d->count[d->n++] = 1;
    }
}

static uint64_t mix(uint64_t h, uint64_t v)
{
    h ^= v + 0x9E3779B97F4A7C15ull + (h << 6) + (h >> 2);
    return h * 0xff51afd7ed558ccdull;
}

static uint64_t event_hash(const gcs_event *ev)
{
    uint64_t h = mix(0, (uint64_t)ev->timestamp);
    h = mix(h, ev->pid);
    h = mix(h, ev->tid);
    h = mix(h, ev->capture_tid);
    h = mix(h, ev->sequence);
    h = mix(h, ev->stack_id);
    h = mix(h, ev->payload_size);
    for (uint32_t i = 0; i < ev->payload_size; i++)
        h = mix(h, ev->payload[i]);
    return h;
}

/* Reads `first` events with gcs_reader_next (all when first is SIZE_MAX),
 * then scans the rest. When every event was read, each delivered type's
 * gcs_event_type.count is checked against what the test saw delivered
 * (with gc_only, the delivered types are wanted ones: none was skipped). */
static void read_trace(const unsigned char *data, size_t size, size_t first, bool slow, tally *t,
                       bool gc_only)
{
    memset(t, 0, sizeof *t);
    gcs_error err;
    gcs_error_clear(&err);
    copy_src ss = {.data = data, .size = size, .max_chunk = 4096, .at_end = GCS_END,
                   .again_every_other = true};
    gcs_source *src = slow ? gcs_source_custom(copy_src_read, NULL, &ss, &err)
                           : gcs_source_from_memory(data, size, &err);
    gcs_reader_options opts = {.want = gc_only ? gcs_gc_wants : NULL};
    gcs_reader *r = gcs_reader_new(src, &opts, &err);
    CHECK(r != NULL);
    const gcs_event *ev;
    gcs_status st = GCS_OK;
    size_t delivered = 0;
    static delivered_counts seen;
    seen.n = 0;
    while (delivered < first) {
        st = gcs_reader_next(r, &ev, &err);
        if (st == GCS_AGAIN)
            continue;
        if (st != GCS_OK)
            break;
        delivered++;
        count_delivered(&seen, ev->type);
        if (gcs_gc_wants(NULL, ev->type)) {
            t->gc_events++;
            t->gc_hash += event_hash(ev);
        }
        /* A type's index is its place in gcs_reader_event_type's list. */
        CHECK(gcs_reader_event_type(r, ev->type->index) == ev->type);
        if (gc_only)
            CHECK(gcs_gc_wants(NULL, ev->type));
    }
    if (delivered == first) {
        while ((st = gcs_reader_scan(r, &err)) == GCS_AGAIN)
            ;
        /* Scanning delivers nothing. */
        CHECK_EQ_INT(gcs_reader_next(r, &ev, &err), GCS_ERR_ARG);
    }
    t->status = st;
    t->stats = *gcs_reader_get_stats(r);
    if (first == SIZE_MAX) {
        CHECK(gc_only || seen.n > 0); /* a full read delivers something */
        for (size_t i = 0; i < seen.n; i++)
            CHECK_EQ_U64(seen.type[i]->count, seen.count[i]);
    }
    const gcs_event_type *type;
    while (t->n_types < MAX_TYPES && (type = gcs_reader_event_type(r, (uint32_t)t->n_types))) {
        CHECK_EQ_U64(type->index, t->n_types);
        t->type_count[t->n_types++] = type->count;
    }
    gcs_reader_free(r);
    gcs_source_free(src);
}

static void check_same(const char *path, const char *how, const tally *a, const tally *b)
{
    size_t failed_before = (size_t)check_failed_in_test;
    check_failed_in_test = 0;
    CHECK_EQ_INT(a->status, b->status);
    CHECK_EQ_U64(a->stats.events, b->stats.events);
    CHECK_EQ_U64(a->stats.lost_events, b->stats.lost_events);
    CHECK_EQ_U64(a->stats.unknown_events, b->stats.unknown_events);
    CHECK_EQ_U64(a->stats.undecodable_events, b->stats.undecodable_events);
    CHECK_EQ_U64(a->stats.sequence_points, b->stats.sequence_points);
    CHECK_EQ_U64(a->stats.blocks, b->stats.blocks);
    CHECK_EQ_U64(a->stats.metadata, b->stats.metadata);
    CHECK_EQ_U64(a->stats.stacks, b->stats.stacks);
    CHECK_EQ_U64(a->stats.anomalies, b->stats.anomalies);
    CHECK_EQ_U64(a->stats.bytes_read, b->stats.bytes_read);
    CHECK_EQ_U64(a->stats.first_timestamp, b->stats.first_timestamp);
    CHECK_EQ_U64(a->stats.last_timestamp, b->stats.last_timestamp);
    CHECK_EQ_U64(a->n_types, b->n_types);
    for (size_t i = 0; i < a->n_types && i < b->n_types; i++)
        CHECK_EQ_U64(a->type_count[i], b->type_count[i]);
    if (check_failed_in_test)
        fprintf(stderr, "  ^ %s: %s\n", path, how);
    check_failed_in_test |= (int)failed_before;
}

static void test_scan_counts_what_next_delivers(void)
{
    size_t seen = 0;
    for (size_t i = 0; i < sizeof reader_traces / sizeof reader_traces[0]; i++) {
        size_t size;
        unsigned char *data = reader_trace(i, &size);
        if (!data)
            continue;
        seen++;
        tally read, scan, mixed, slow, gc_only;
        read_trace(data, size, SIZE_MAX, false, &read, false);
        CHECK_EQ_INT(read.status, GCS_END);
        CHECK(read.stats.events > 0);
        /* Per-type counts of delivered events add up to the total. */
        uint64_t sum = 0;
        for (size_t k = 0; k < read.n_types; k++)
            sum += read.type_count[k];
        CHECK_EQ_U64(sum, read.stats.events);

        read_trace(data, size, 0, false, &scan, false);
        check_same(reader_traces[i], "scan from the start", &read, &scan);
        read_trace(data, size, (size_t)(read.stats.events / 3), false, &mixed, false);
        check_same(reader_traces[i], "a third read, the rest scanned", &read, &mixed);
        read_trace(data, size, 0, true, &slow, false);
        check_same(reader_traces[i], "scan of a source that says AGAIN", &read, &slow);
        read_trace(data, size, SIZE_MAX, false, &gc_only, true);
        check_same(reader_traces[i], "only GC analysis events delivered", &read, &gc_only);
        /* The same GC events, header and payload, whatever the container
         * counted around them. */
        CHECK_EQ_U64(gc_only.gc_events, read.gc_events);
        CHECK_EQ_U64(gc_only.gc_hash, read.gc_hash);
        free(data);
    }
    CHECK(seen >= READER_TRACES_COMMITTED);
}

/* A metadata row defining `id` as Synth/EVENT_ID with one UInt32 field. */
static void synth_metadata_row(bb *body, uint32_t id, uint32_t event_id)
{
    bb meta = {0};
    bb_u32(&meta, id);
    bb_utf16z(&meta, "Synth");
    bb_u32(&meta, event_id);
    bb_utf16z(&meta, event_id == 1 ? "Tick" : event_id == 3 ? "Tock" : "Wanted");
    bb_u64(&meta, 0);
    bb_u32(&meta, 0);
    bb_u32(&meta, 5);
    bb_u32(&meta, 1);
    bb_u32(&meta, GCS_EP_TC_UINT32);
    bb_utf16z(&meta, "v");
    const tb_row row = {0, 0, 0, 0, 0, 0, 0, NULL};
    tb_row_v4(body, &row, meta.data, (uint32_t)meta.len, 0);
}

/* A metadata row defining `id` as Synth/Named (event 5): UInt32, a
 * UTF-16 string, UInt16 (the counting loop counts a row when the unit
 * before the last 2 bytes is zero: GCS_TALLY_ZERO_TAIL, as AllocationTick). */
static void named_metadata_row(bb *body, uint32_t id)
{
    bb meta = {0};
    bb_u32(&meta, id);
    bb_utf16z(&meta, "Synth");
    bb_u32(&meta, 5);
    bb_utf16z(&meta, "Named");
    bb_u64(&meta, 0);
    bb_u32(&meta, 0);
    bb_u32(&meta, 5);
    bb_u32(&meta, 3);
    bb_u32(&meta, GCS_EP_TC_UINT32);
    bb_utf16z(&meta, "a");
    bb_u32(&meta, GCS_EP_TC_STRING);
    bb_utf16z(&meta, "Name");
    bb_u32(&meta, GCS_EP_TC_UINT16);
    bb_utf16z(&meta, "b");
    const tb_row row = {0, 0, 0, 0, 0, 0, 0, NULL};
    tb_row_v4(body, &row, meta.data, (uint32_t)meta.len, 0);
}

/* Starts a trace of Tick (metadata id 1), Wanted (2), Tock (3) and Named
 * (5) rows:
 * the trace header, the metadata block, and the header of an event block
 * whose body it returns (compressed rows). */
static bb *synth_start(bb *b)
{
    const tb_trace tr = {{2024, 2, 4, 29, 13, 14, 15, 16}, 5000, 1000000, 8, 4242, 16, 1000};
    tb_nettrace_start(b, &tr);
    bb *body = calloc(1, sizeof *body);
    tb_block_header(body, 0);
    synth_metadata_row(body, 1, 1);
    synth_metadata_row(body, 2, 2);
    synth_metadata_row(body, 3, 3);
    named_metadata_row(body, 5);
    tb_block_object(b, "MetadataBlock", 2, body);
    memset(body, 0, sizeof *body);
    tb_block_header(body, 1);
    return body;
}

/* A Tick row with every field set, its time delta `delta` (the first row
 * of a block: its time). */
static void full_tick_row(bb *body, uint64_t delta)
{
    bb_u8(body, 1 | 2 | 4 | 8 | 128);
    bb_varu(body, 1);     /* metadata id */
    bb_varu(body, 0);     /* sequence delta */
    bb_varu(body, 7);     /* capture thread */
    bb_varu(body, 0);     /* processor */
    bb_varu(body, 99999); /* thread */
    bb_varu(body, 5);     /* stack */
    bb_varu(body, delta);
    bb_varu(body, 4); /* payload size */
    bb_u32(body, 0);
}

/* synth_start, then the first Tick: at time 10, or for variant 1
 * `below_max` before INT64_MAX (the random runs after it make the time
 * wrap). Returns the event block's body. */
static bb *start_variant(bb *b, int variant, uint64_t below_max)
{
    bb *body = synth_start(b);
    full_tick_row(body, variant == 1 ? (uint64_t)INT64_MAX - below_max : 10);
    return body;
}

/* Rows of Tick (id 1) whose header changes only the thread id, as the
 * sample profiler writes them. */
static void thread_only_rows(bb *body, uint64_t first_tid, int n)
{
    for (int i = 0; i < n; i++) {
        bb_u8(body, 4);                            /* thread id only */
        bb_varu(body, first_tid + (uint64_t)i);    /* 3-byte varints */
        bb_varu(body, 1 + (uint64_t)(i % 3) * 200); /* 1- and 2-byte deltas */
        bb_u32(body, (uint32_t)i);
    }
}

static bool want_wanted(void *ctx, const gcs_event_type *t)
{
    (void)ctx;
    return t->event_id == 2;
}

/*
 * The header fields a row leaves out keep the previous row's values, also
 * when the container counted that previous row itself: a Wanted row that
 * omits its thread id, right after a run of thread-only Tick rows that the
 * container counts (refused by want), is delivered with the thread of the
 * run's last row, and with the time the run's deltas add up to; the same
 * as when every row is delivered.
 */
static void test_fields_after_counted_runs(void)
{
    bb *b = calloc(1, sizeof *b);
    bb *body = synth_start(b);
    /* The first Tick: every field set. */
    bb_u8(body, 1 | 2 | 4 | 128);
    bb_varu(body, 1);      /* metadata id */
    bb_varu(body, 0);      /* sequence delta */
    bb_varu(body, 7);      /* capture thread */
    bb_varu(body, 0);      /* processor */
    bb_varu(body, 99999);  /* thread */
    bb_varu(body, 10);     /* timestamp delta */
    bb_varu(body, 4);      /* payload size */
    bb_u32(body, 0);
    thread_only_rows(body, 100000, 30);
    /* Wanted, the thread and size left out. */
    bb_u8(body, 1);
    bb_varu(body, 2);
    bb_varu(body, 5);
    bb_u32(body, 0xC0FFEE);
    /* Then more Ticks: the counting loops need room after a row. */
    bb_u8(body, 1 | 4);
    bb_varu(body, 1);
    bb_varu(body, 200000);
    bb_varu(body, 1);
    bb_u32(body, 0);
    thread_only_rows(body, 200001, 30);
    tb_block_object(b, "EventBlock", 2, body);
    bb_u8(b, 1); /* NullReference: end of stream */

    uint64_t tid[2] = {0, 0};
    int64_t ts[2] = {0, 0};
    int found[2] = {0, 0};
    for (int mode = 0; mode < 2; mode++) {
        gcs_error err;
        gcs_source *src = gcs_source_from_memory(b->data, b->len, &err);
        gcs_reader_options opts = {.want = mode ? want_wanted : NULL};
        gcs_reader *r = gcs_reader_new(src, &opts, &err);
        const gcs_event *ev;
        gcs_status st;
        while ((st = gcs_reader_next(r, &ev, &err)) == GCS_OK)
            if (ev->type->event_id == 2) {
                found[mode]++;
                tid[mode] = ev->tid;
                ts[mode] = ev->timestamp;
            }
        CHECK_EQ_INT(st, GCS_END);
        CHECK_EQ_U64(gcs_reader_get_stats(r)->events, 1 + 30 + 1 + 1 + 30);
        gcs_reader_free(r);
        gcs_source_free(src);
    }
    CHECK_EQ_INT(found[0], 1);
    CHECK_EQ_INT(found[1], 1);
    CHECK_EQ_U64(tid[0], 100029);
    CHECK_EQ_U64(tid[1], 100029);
    /* 10, then 30 deltas of 1, 201 and 401 in turn, then 5. */
    CHECK_EQ_U64((uint64_t)ts[0], 10 + 10 * (1 + 201 + 401) + 5);
    CHECK_EQ_U64((uint64_t)ts[1], (uint64_t)ts[0]);
    free(body);
    free(b);
}

/*
 * A refused type first seen in the middle of a block, whose metadata id
 * lies past the tally's slots: the reader grows (moves) the slots while
 * the container's counting loop is between two rows; the loop must count
 * on with the new ones (it kept the old pointer before: ASan saw the
 * freed slots read).
 */
static void test_slots_grown_inside_a_block(void)
{
    bb *b = calloc(1, sizeof *b);
    const tb_trace tr = {{2024, 2, 4, 29, 13, 14, 15, 16}, 5000, 1000000, 8, 4242, 16, 1000};
    tb_nettrace_start(b, &tr);
    bb *body = calloc(1, sizeof *body);
    tb_block_header(body, 0);
    synth_metadata_row(body, 1, 1);
    synth_metadata_row(body, 300, 3);
    tb_block_object(b, "MetadataBlock", 2, body);
    memset(body, 0, sizeof *body);
    tb_block_header(body, 1);
    bb_u8(body, 1 | 2 | 4 | 128);
    bb_varu(body, 1);
    bb_varu(body, 0);
    bb_varu(body, 7);
    bb_varu(body, 0);
    bb_varu(body, 99999);
    bb_varu(body, 10);
    bb_varu(body, 4);
    bb_u32(body, 0);
    for (int k = 0; k < 3; k++) {
        thread_only_rows(body, 100000, 20);
        /* The other refused type, id 300, then Tick again. */
        bb_u8(body, 1);
        bb_varu(body, k == 1 ? 300 : 1);
        bb_varu(body, 5);
        bb_u32(body, 7);
        bb_u8(body, 1);
        bb_varu(body, 1);
        bb_varu(body, 5);
        bb_u32(body, 8);
    }
    thread_only_rows(body, 100000, 20);
    tb_block_object(b, "EventBlock", 2, body);
    bb_u8(b, 1); /* NullReference: end of stream */
    for (int mode = 0; mode < 2; mode++) {
        gcs_error err;
        gcs_source *src = gcs_source_from_memory(b->data, b->len, &err);
        gcs_reader_options opts = {.want = mode ? want_wanted : NULL};
        gcs_reader *r = gcs_reader_new(src, &opts, &err);
        const gcs_event *ev;
        gcs_status st;
        while ((st = gcs_reader_next(r, &ev, &err)) == GCS_OK)
            ;
        CHECK_EQ_INT(st, GCS_END);
        CHECK_EQ_U64(gcs_reader_get_stats(r)->events, 1 + 4 * 20 + 3 * 2);
        const gcs_event_type *t;
        for (uint32_t i = 0; (t = gcs_reader_event_type(r, i)) != NULL; i++)
            CHECK_EQ_U64(t->count, t->metadata_id == 300 ? 1 : 1 + 4 * 20 + 3 * 2 - 1);
        gcs_reader_free(r);
        gcs_source_free(src);
    }
    free(body);
    free(b);
}

/* A small deterministic generator for the random runs below. */
static uint64_t next_random(uint64_t *state)
{
    *state ^= *state << 13;
    *state ^= *state >> 7;
    *state ^= *state << 17;
    return *state;
}

/* A varuint of exactly `len` bytes (1 to 10) holding v, padded with
 * continuation bytes when v needs fewer (a valid, longer encoding). */
static void varu_of_len(bb *b, uint64_t v, unsigned len)
{
    for (unsigned i = 0; i + 1 < len; i++) {
        bb_u8(b, (uint8_t)(0x80 | (v & 0x7f)));
        v >>= 7;
    }
    bb_u8(b, (uint8_t)(v & 0x7f));
}

/* A random value whose shortest varuint has `len` bytes (1 to 9). */
static uint64_t value_of_len(uint64_t *rnd, unsigned len)
{
    uint64_t lo = len == 1 ? 0 : 1ull << (7 * (len - 1));
    uint64_t span = (len == 9 ? 1ull << 62 : 1ull << (7 * len)) - lo;
    return lo + next_random(rnd) % span;
}

/* What one way of reading a synthetic trace saw. */
typedef struct run_reading {
    gcs_status status;
    uint64_t error_offset;
    gcs_reader_stats stats;
    uint64_t tick_count, tock_count, named_count;
    int n_wanted;
    uint64_t wanted_tid[64], wanted_ts[64];
    uint32_t wanted_stack[64];
} run_reading;

/* How a read of a synthetic trace ended (st, err): into out, with its
 * counters and the counts of its Tick (id 1), Tock (3) and Named (5)
 * types. Frees the reader and its source. */
static void end_reading(gcs_reader *r, gcs_source *src, gcs_status st, const gcs_error *err,
                        run_reading *out)
{
    out->status = st;
    out->error_offset = st < 0 ? err->offset : 0;
    out->stats = *gcs_reader_get_stats(r);
    const gcs_event_type *type;
    for (uint32_t i = 0; (type = gcs_reader_event_type(r, i)) != NULL; i++)
        if (type->event_id == 1)
            out->tick_count = type->count;
        else if (type->event_id == 3)
            out->tock_count = type->count;
        else if (type->event_id == 5)
            out->named_count = type->count;
    gcs_reader_free(r);
    gcs_source_free(src);
}

/* Reads the trace delivering every event (mode 0), only Wanted rows
 * (mode 1: the container counts the Ticks) or scanning (mode 2). */
static void read_runs(const bb *b, int mode, run_reading *out)
{
    memset(out, 0, sizeof *out);
    gcs_error err;
    gcs_error_clear(&err);
    gcs_source *src = gcs_source_from_memory(b->data, b->len, &err);
    gcs_reader_options opts = {.want = mode == 1 ? want_wanted : NULL};
    gcs_reader *r = gcs_reader_new(src, &opts, &err);
    const gcs_event *ev;
    gcs_status st;
    if (mode == 2) {
        st = gcs_reader_scan(r, &err);
    } else {
        while ((st = gcs_reader_next(r, &ev, &err)) == GCS_OK)
            if (ev->type->event_id == 2 && out->n_wanted < 64) {
                out->wanted_tid[out->n_wanted] = ev->tid;
                out->wanted_stack[out->n_wanted] = ev->stack_id;
                out->wanted_ts[out->n_wanted++] = (uint64_t)ev->timestamp;
            }
    }
    end_reading(r, src, st, &err, out);
}

/* Ends the trace with the event block `body` and reads it the three
 * ways of read_runs. */
static void end_and_read(bb *b, const bb *body, run_reading *all, run_reading *counted,
                         run_reading *scanned)
{
    tb_block_object(b, "EventBlock", 2, body);
    bb_u8(b, 1); /* NullReference: end of stream */
    read_runs(b, 0, all);
    read_runs(b, 1, counted);
    read_runs(b, 2, scanned);
}

/* Read o ended as read `all` did: status and offset of a fault, counts
 * per type and in total, the time span. */
static void check_same_ending(const run_reading *o, const run_reading *all)
{
    CHECK_EQ_INT(o->status, all->status);
    CHECK_EQ_U64(o->error_offset, all->error_offset);
    CHECK_EQ_U64(o->stats.events, all->stats.events);
    CHECK_EQ_U64(o->stats.lost_events, all->stats.lost_events);
    CHECK_EQ_U64(o->stats.undecodable_events, all->stats.undecodable_events);
    CHECK_EQ_U64(o->stats.unknown_events, all->stats.unknown_events);
    CHECK_EQ_U64(o->tick_count, all->tick_count);
    CHECK_EQ_U64(o->tock_count, all->tock_count);
    CHECK_EQ_U64(o->named_count, all->named_count);
    CHECK_EQ_U64((uint64_t)o->stats.first_timestamp, (uint64_t)all->stats.first_timestamp);
    CHECK_EQ_U64((uint64_t)o->stats.last_timestamp, (uint64_t)all->stats.last_timestamp);
}

/* Counting in the container (mode 1) and scanning (mode 2) see what
 * delivering every row (mode 0) sees: the same ending, and the Wanted
 * rows' fields. */
static void check_runs_agree(const run_reading *all, const run_reading *counted,
                             const run_reading *scanned)
{
    check_same_ending(counted, all);
    check_same_ending(scanned, all);
    CHECK_EQ_INT(counted->n_wanted, all->n_wanted);
    for (int i = 0; i < all->n_wanted && i < counted->n_wanted; i++) {
        CHECK_EQ_U64(counted->wanted_tid[i], all->wanted_tid[i]);
        CHECK_EQ_U64(counted->wanted_stack[i], all->wanted_stack[i]);
        CHECK_EQ_U64(counted->wanted_ts[i], all->wanted_ts[i]);
    }
}

/* A read delivering every event at or after `from` (options.from_msec
 * when `cut`; else every event, those before `from` left out here): how
 * it ended, its counters, and a hash over the events kept, in order. */
typedef struct cut_reading {
    run_reading end; /* how it ended, counters and type counts */
    uint64_t kept, hash;
    double msec[8]; /* of the events 1/8, 2/8 ... 7/8 of the way (full read) */
} cut_reading;

static void read_cut(const bb *b, bool (*want)(void *, const gcs_event_type *), double from,
                     bool cut, cut_reading *out)
{
    memset(out, 0, sizeof *out);
    gcs_error err;
    gcs_error_clear(&err);
    gcs_source *src = gcs_source_from_memory(b->data, b->len, &err);
    gcs_reader_options opts = {.want = want, .has_from_msec = cut, .from_msec = from};
    gcs_reader *r = gcs_reader_new(src, &opts, &err);
    const gcs_event *ev;
    gcs_status st;
    double *all_msec = NULL;
    size_t n = 0, cap = 0;
    while ((st = gcs_reader_next(r, &ev, &err)) == GCS_OK) {
        if (!cut) {
            if (n == cap) {
                cap = cap ? 2 * cap : 1024;
                all_msec = realloc(all_msec, cap * sizeof *all_msec);
                CHECK(all_msec != NULL);
            }
            all_msec[n++] = ev->msec;
        }
        if (!(ev->msec >= from))
            continue;
        out->kept++;
        out->hash = mix(mix(mix(mix(out->hash, ev->type->index), (uint64_t)ev->timestamp), ev->tid),
                        (uint64_t)ev->stack_id * 131 + ev->payload_size);
    }
    for (int k = 1; k < 8 && n > 0; k++)
        out->msec[k] = all_msec[(size_t)k * (n - 1) / 8];
    free(all_msec);
    end_reading(r, src, st, &err, &out->end);
}

/* Ticks and Wanted rows delivered, Tocks and Named rows counted: a cycle
 * of Tick and Tock rows counts one slot only before a cut, the other at
 * any time. */
static bool want_ticks(void *ctx, const gcs_event_type *t)
{
    (void)ctx;
    return t->event_id == 1 || t->event_id == 2;
}

/* A read told to start at a cut (the container counting the delivered
 * types' rows before it, each row's time compared with the cut's ticks,
 * in every loop these runs go through) ends as a full read does and
 * delivers the full read's events from the cut on: at seven events' msec
 * spread over the trace, and between each and the next; every event
 * read, Wanted rows only, and Ticks and Wanted rows. */
static void check_cuts(const bb *b)
{
    static bool (*const wants[])(void *, const gcs_event_type *) = {NULL, want_wanted,
                                                                     want_ticks};
    cut_reading all;
    read_cut(b, NULL, -INFINITY, false, &all);
    for (int k = 1; k < 8; k++)
        for (int h = 0; h < 2; h++)
            for (size_t w = 0; w < sizeof wants / sizeof *wants; w++) {
                const double from = all.msec[k] + (h ? 1e-4 : 0.0);
                cut_reading full, part;
                read_cut(b, wants[w], from, false, &full);
                read_cut(b, wants[w], from, true, &part);
                check_same_ending(&part.end, &full.end);
                CHECK_EQ_U64(part.kept, full.kept);
                CHECK_EQ_U64(part.hash, full.hash);
            }
}

/* Ends a variant's trace (its event block `body`), reads it the three
 * ways of read_runs and checks that they agree and end as expected (a
 * fault when `faulty`), and that reads cut at a window's start agree with
 * the full read (check_cuts), naming the variant when not; *all for the
 * caller's own checks. Frees both. */
static void read_variant(bb *b, bb *body, int variant, bool faulty, run_reading *all)
{
    const int failed_before = check_failed_in_test;
    run_reading counted, scanned;
    end_and_read(b, body, all, &counted, &scanned);
    CHECK_EQ_INT(all->status, faulty ? GCS_ERR_CORRUPT : GCS_END);
    check_runs_agree(all, &counted, &scanned);
    check_cuts(b);
    if (check_failed_in_test != failed_before)
        fprintf(stderr, "  ^ variant %d\n", variant);
    free(body);
    free(b);
}

/* A row naming its type (id) and size (4: the u32 value), the time delta
 * given, the thread and stack the previous row's. */
static void id_size_row(bb *body, uint32_t id, uint64_t delta, uint32_t value)
{
    bb_u8(body, 1 | 128);
    bb_varu(body, id);
    bb_varu(body, delta);
    bb_varu(body, 4);
    bb_u32(body, value);
}

/*
 * Runs of rows that keep their type and size and change only the thread,
 * the stack or the time (the sample profiler's), in random encodings:
 * varuints of every length, padded ones, runs whose encoding stays the
 * same for a while (taken by the counting loop 8 bytes at a time) or
 * changes at every row, Wanted rows between them that leave the thread
 * and stack out, a start near the largest timestamp, a stack id over 32
 * bits, a row of every flag after a same-type row too long for a shape,
 * and a payload past the block's end. Counting the Ticks in the
 * container (Wanted rows delivered) and scanning must see what delivering
 * every row sees: counts, time span, the Wanted rows' fields, and the
 * status and offset of a fault.
 */
static void test_same_type_runs_in_every_encoding(void)
{
    for (int variant = 0; variant < 24; variant++) {
        uint64_t rnd = 0x9E3779B97F4A7C15ull * (uint64_t)(variant + 1);
        bb *b = calloc(1, sizeof *b);
        bb *body = start_variant(b, variant, 3000);
        int wanted = 0;
        for (int sub = 0; sub < 40; sub++) {
            /* One encoding for a while: flags and each varuint's length. */
            const uint8_t flags = (uint8_t)((next_random(&rnd) % 4) << 2);
            const unsigned tid_len = 1 + (unsigned)(next_random(&rnd) % 9);
            const unsigned stack_len = 1 + (unsigned)(next_random(&rnd) % 5);
            const unsigned delta_len = 1 + (unsigned)(next_random(&rnd) % 5);
            const bool mixed = next_random(&rnd) % 4 == 0; /* lengths change every row */
            const int rows = 1 + (int)(next_random(&rnd) % 60);
            for (int i = 0; i < rows; i++) {
                unsigned tl = mixed ? 1 + (unsigned)(next_random(&rnd) % 9) : tid_len;
                unsigned sl = mixed ? 1 + (unsigned)(next_random(&rnd) % 4) : stack_len;
                unsigned dl = mixed ? 1 + (unsigned)(next_random(&rnd) % 4) : delta_len;
                bool padded = next_random(&rnd) % 8 == 0;
                bb_u8(body, flags);
                if (flags & 4)
                    varu_of_len(body, padded ? 3 : value_of_len(&rnd, tl), tl);
                if (flags & 8) {
                    uint64_t sv = sl == 5 ? value_of_len(&rnd, 4) : value_of_len(&rnd, sl);
                    varu_of_len(body, padded ? 2 : sv, sl);
                }
                uint64_t dv = value_of_len(&rnd, dl > 4 ? 4 : dl) % (1u << 20);
                varu_of_len(body, padded ? 1 : dv, dl);
                bb_u32(body, (uint32_t)i);
            }
            if (variant == 2 && sub == 20) {
                /* Two stack-only rows of one encoding (5-byte stack ids):
                 * the second one's stack id does not fit 32 bits. */
                bb_u8(body, 8);
                bb_varu(body, (uint64_t)UINT32_MAX - 1);
                bb_varu(body, 1);
                bb_u32(body, 0);
                bb_u8(body, 8);
                bb_varu(body, (uint64_t)UINT32_MAX + 1);
                bb_varu(body, 1);
                bb_u32(body, 0);
            }
            if (variant == 4 && sub == 10) {
                /* A row of every flag (first byte 0xff) right after a
                 * same-type row whose header is too long for a shape: the
                 * counting loop took the 0xff row for a header-less
                 * same-type row (finding 26). */
                bb_u8(body, 4);
                varu_of_len(body, 99999, 9);
                bb_varu(body, 1);
                bb_u32(body, 0);
                bb_u8(body, 0xff);
                bb_varu(body, 1);     /* metadata id: Tick */
                bb_varu(body, 0);     /* sequence delta */
                bb_varu(body, 7);     /* capture thread */
                bb_varu(body, 0);     /* processor */
                bb_varu(body, 99999); /* thread */
                bb_varu(body, 5);     /* stack */
                bb_varu(body, 1);     /* time delta */
                for (int k = 0; k < 32; k++)
                    bb_u8(body, 0); /* activity and related activity ids */
                bb_varu(body, 4);   /* payload size */
                bb_u32(body, 0);
            }
            if (next_random(&rnd) % 3 == 0) {
                /* Wanted: the thread and stack left out. */
                bb_u8(body, 1);
                bb_varu(body, 2);
                bb_varu(body, 1 + next_random(&rnd) % 300);
                bb_u32(body, 0xC0FFEE);
                wanted++;
                id_size_row(body, 1, 1, 0); /* back to Ticks */
            }
        }
        if (variant == 3) {
            /* A row whose payload runs past the block's end. */
            bb_u8(body, 4);
            bb_varu(body, 5);
            bb_varu(body, 1);
            bb_u16(body, 0);
        }
        const bool faulty = variant == 2 || variant == 3;
        run_reading all;
        read_variant(b, body, variant, faulty, &all);
        CHECK(all.tick_count > 40);
        if (!faulty)
            CHECK_EQ_INT(all.n_wanted, wanted);
    }
}

/* A row of type `id` in the runtime's usual 5-byte encoding (flags,
 * 1-byte metadata id, 2-byte time delta, 1-byte size), payload zeros. A
 * delta under 128 is padded to 2 bytes (a valid, longer encoding). */
static void five_byte_row(bb *body, uint32_t id, uint32_t delta, uint32_t size)
{
    bb_u8(body, 1 | 128);
    bb_u8(body, (uint8_t)id);
    varu_of_len(body, delta, 2);
    bb_u8(body, (uint8_t)size);
    for (uint32_t k = 0; k < size; k++)
        bb_u8(body, 0);
}

/*
 * Two types written in turn, each row naming its type and size (Tick and
 * Tock in the 5-byte encoding: the counting loop takes such a cycle a
 * pair at a time), in random runs broken every way: a row whose delta
 * takes 1 byte or 3, a size that changes, the same type twice, a third
 * type, Wanted rows, runs up to the block's end, a start near the largest
 * timestamp (the time wraps), short payloads, and a payload past the
 * block's end. Counting the Ticks and Tocks in the container (Wanted rows
 * delivered) and scanning must see what delivering every row sees.
 */
static void test_pair_runs_in_every_encoding(void)
{
    for (int variant = 0; variant < 24; variant++) {
        uint64_t rnd = 0xD1B54A32D192ED03ull * (uint64_t)(variant + 1);
        bb *b = calloc(1, sizeof *b);
        bb *body = start_variant(b, variant, 200000);
        int wanted = 0;
        uint64_t cycle_rows = 0;
        for (int sub = 0; sub < 20; sub++) {
            /* A run of the cycle: sizes of each type for the run. */
            const uint32_t tick_size = variant % 5 == 2 ? 2 : 4;
            const uint32_t tock_size = 4 + (uint32_t)(next_random(&rnd) % 40);
            const int pairs = 1 + (int)(next_random(&rnd) % 40);
            const bool tock_first = next_random(&rnd) % 2;
            for (int i = 0; i < pairs; i++) {
                const unsigned odd = (unsigned)(next_random(&rnd) % 64);
                for (int half = 0; half < 2; half++) {
                    const bool tick = (half == 0) != tock_first;
                    uint32_t id = tick ? 1 : 3, size = tick ? tick_size : tock_size;
                    uint32_t delta = (uint32_t)(next_random(&rnd) % 16384);
                    if (odd == 0 && half == 1) {
                        /* A 1-byte or 3-byte delta: not the 5-byte shape. */
                        bb_u8(body, 1 | 128);
                        bb_varu(body, id);
                        varu_of_len(body, delta, next_random(&rnd) % 2 ? 1 : 3);
                        bb_varu(body, size);
                        for (uint32_t k = 0; k < size; k++)
                            bb_u8(body, 0);
                    } else {
                        if (odd == 1 && half == 1)
                            size += 1; /* the size changes once */
                        if (odd == 2)
                            id = 1; /* the same type twice */
                        if (odd == 3 && half == 0)
                            id = 2 + (uint32_t)(next_random(&rnd) % 2) * 2; /* Wanted, or 4: no type */
                        five_byte_row(body, id, delta, size);
                        if (id == 2)
                            wanted++;
                    }
                    cycle_rows++;
                }
            }
            if (next_random(&rnd) % 3 == 0 && !(variant % 4 == 0 && sub == 19)) {
                /* Wanted, the thread left out. */
                id_size_row(body, 2, 1 + next_random(&rnd) % 300, 0xC0FFEE);
                wanted++;
            }
        }
        if (variant == 3) {
            /* A row whose payload runs past the block's end. */
            bb_u8(body, 1 | 128);
            bb_u8(body, 3);
            varu_of_len(body, 200, 2);
            bb_u8(body, 40);
            bb_u16(body, 0);
        }
        const bool faulty = variant == 3;
        run_reading all;
        read_variant(b, body, variant, faulty, &all);
        CHECK(all.tick_count > 40 && all.tock_count > 40);
        CHECK(cycle_rows > 100);
        if (!faulty && wanted <= 64)
            CHECK_EQ_INT(all.n_wanted, wanted);
    }
}

/* A Named payload of `size` bytes (at least 8): kind 0 ends its string
 * just before the last 2 bytes (counted in the loop), 1 ends it earlier
 * with a nonzero unit there (it fits: trailing bytes), 2 has no zero unit
 * (it does not fit), 3 has a zero byte before the last 2 bytes but not a
 * zero unit there (odd offsets). */
static void named_payload(bb *body, uint32_t size, unsigned kind)
{
    bb_u32(body, 0x11223344);
    const uint32_t units = (size - 6) / 2, odd = (size - 6) % 2;
    for (uint32_t u = 0; u < units; u++) {
        bool last = u + 1 == units;
        if ((kind == 0 && last) || (kind == 1 && u == 0))
            bb_u16(body, 0);
        else if (kind == 3 && last)
            bb_u16(body, 0x4100); /* a zero byte, not a zero unit */
        else
            bb_u16(body, (uint16_t)(0x41 + u % 26));
    }
    if (odd)
        bb_u8(body, 0);
    bb_u16(body, 0x0707);
}

/*
 * Runs of Named rows that keep their type and size and change only the
 * thread, the stack or the time (allocation ticks between CPU samples),
 * each run's rows of every kind of named_payload, in random encodings and
 * sizes (odd ones too: no whole unit before the last 2 bytes), between
 * Ticks and Wanted rows. Counting them in the container (the loop takes
 * those whose string surely ends; the rest are counted as delivery would,
 * fitting or undecodable) and scanning must see what delivering every row
 * sees.
 */
static void test_named_runs_in_every_encoding(void)
{
    for (int variant = 0; variant < 24; variant++) {
        uint64_t rnd = 0xA0761D6478BD642Full * (uint64_t)(variant + 1);
        bb *b = calloc(1, sizeof *b);
        bb *body = start_variant(b, variant, 3000);
        uint64_t named = 0, in_loop = 0;
        for (int sub = 0; sub < 40; sub++) {
            const uint32_t size = 8 + (uint32_t)(next_random(&rnd) % 24);
            /* The run's first row: type and size. */
            bb_u8(body, 1 | 128);
            bb_varu(body, 5);
            bb_varu(body, 1 + next_random(&rnd) % 300);
            bb_varu(body, size);
            named_payload(body, size, 0);
            named++;
            const uint8_t flags = (uint8_t)((next_random(&rnd) % 4) << 2);
            const bool mixed = next_random(&rnd) % 4 == 0; /* encodings change every row */
            const unsigned tid_len = 1 + (unsigned)(next_random(&rnd) % 9);
            const unsigned delta_len = 1 + (unsigned)(next_random(&rnd) % 4);
            const int rows = 1 + (int)(next_random(&rnd) % 60);
            for (int i = 0; i < rows; i++) {
                const unsigned tl = mixed ? 1 + (unsigned)(next_random(&rnd) % 9) : tid_len;
                const unsigned dl = mixed ? 1 + (unsigned)(next_random(&rnd) % 4) : delta_len;
                const unsigned r = (unsigned)(next_random(&rnd) % 16);
                const unsigned kind = variant % 3 == 0 ? 0 : r < 13 ? 0 : r - 12;
                bb_u8(body, flags);
                if (flags & 4)
                    varu_of_len(body, value_of_len(&rnd, tl), tl);
                if (flags & 8)
                    varu_of_len(body, value_of_len(&rnd, 2), 2);
                varu_of_len(body, value_of_len(&rnd, dl) % (1u << 20), dl);
                named_payload(body, size, kind);
                named++;
                in_loop += kind == 0 && size % 2 == 0;
            }
            if (next_random(&rnd) % 3 == 0) {
                /* Wanted, then a Tick. */
                id_size_row(body, 2, 1 + next_random(&rnd) % 300, 0xC0FFEE);
                id_size_row(body, 1, 1, 0);
            }
        }
        if (variant == 3) {
            /* A Named row whose payload runs past the block's end. */
            bb_u8(body, 4);
            bb_varu(body, 5);
            bb_varu(body, 1);
            bb_u16(body, 0);
        }
        const bool faulty = variant == 3;
        run_reading all;
        read_variant(b, body, variant, faulty, &all);
        if (!faulty)
            CHECK_EQ_U64(all.named_count, named);
        CHECK(in_loop > 200);
        /* Rows that do not fit were seen (every variant but the clean ones). */
        if (variant % 3 != 0 && !faulty)
            CHECK(all.stats.undecodable_events > 0);
    }
}

int main(void)
{
    RUN(test_scan_counts_what_next_delivers);
    RUN(test_fields_after_counted_runs);
    RUN(test_same_type_runs_in_every_encoding);
    RUN(test_pair_runs_in_every_encoding);
    RUN(test_named_runs_in_every_encoding);
    RUN(test_slots_grown_inside_a_block);
    return check_report("test_reader_scan");
}
