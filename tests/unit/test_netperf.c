/*
 * Tests of the netperf container (src/format/netperf/netperf.c over
 * src/format/fastser.c): the .NET Core 2.1 V3 trace with its TraceEvent
 * baseline, and hand-made V1/V2 streams (events inline in the Trace
 * object, metadata ids that are input offsets).
 */
#include "check.h"

#include "trace_builder.h"
#include "format/eventpipe_metadata.h"
#include "recording_sink.h"

#define V3_TRACE SHARED_TRACES "eventpipe-dotnetcore2.1-linux-x64-objver3.netperf"
#define RUNDOWN "Microsoft-Windows-DotNETRuntimeRundown"

static rec_sink *new_sink(void)
{
    rec_sink *r = malloc(sizeof *r);
    rec_init(r);
    return r;
}
static void free_sink(rec_sink *r)
{
    rec_free(r);
    free(r);
}

/* (event id, count, first MSec) of the Rundown provider, from the baseline. */
static const struct {
    uint32_t id;
    size_t count;
    double first_msec;
} v3_baseline[] = {
    {158, 2, 122.4658},  /* Loader/AppDomainDCStop, 2, MSec="122.4658" */
    {156, 13, 120.8248}, /* Loader/AssemblyDCStop, 13, MSec="120.8248" */
    {152, 12, 120.7500}, /* Loader/DomainModuleDCStop, 12, MSec="120.7500" */
    {154, 13, 120.6754}, /* Loader/ModuleDCStop, 13, MSec="120.6754" */
    {146, 1, 1857.3397}, /* Method/DCStopComplete, 1, MSec="1857.3397" */
    {148, 1, 112.8040},  /* Method/DCStopInit, 1, MSec="112.8040" */
};

static void test_v3_trace(void)
{
    if (!check_file_exists(V3_TRACE))
        SKIP("../shared/traces/perfview not present");
    rec_sink *r = new_sink();
    gcs_error err;
    CHECK_EQ_INT(rec_run_file(V3_TRACE, r, &err), GCS_END);
    CHECK_EQ_INT(r->trace_calls, 1);
    CHECK(!r->out_of_order);
    const gcs_trace_info *t = &r->info;
    CHECK_EQ_INT(t->format, GCS_FORMAT_NETPERF);
    CHECK_EQ_U64(t->format_version, 3);
    CHECK_EQ_U64(t->pointer_size, 8);
    CHECK_EQ_U64(t->pid, 80749); /* PID="80749" in the baseline */
    CHECK_EQ_U64(t->cpu_count, 4);
    CHECK_EQ_U64(t->clock_frequency, 1000000000);
    CHECK_EQ_INT(t->start_year, 2018);
    CHECK_EQ_INT(t->start_month, 2);
    CHECK_EQ_INT(t->start_day, 9);
    for (size_t i = 0; i < sizeof v3_baseline / sizeof v3_baseline[0]; i++) {
        CHECK_EQ_U64(rec_count(r, RUNDOWN, v3_baseline[i].id), v3_baseline[i].count);
        const rec_event *e = rec_first(r, RUNDOWN, v3_baseline[i].id);
        CHECK(e != NULL);
        if (e) {
            CHECK_NEAR(rec_msec(r, e->timestamp), v3_baseline[i].first_msec, 0.0001);
            CHECK_EQ_U64(e->tid, 80749);
            CHECK_EQ_U64(e->pid, 80749);
            /* ActivityID="10000000000000000000000000000001" */
            CHECK_EQ_U64(e->activity[3], 0x10);
            CHECK_EQ_U64(e->activity[15], 0x01);
        }
    }
    /* System.Threading.Tasks.TplEventSource/SetActivityId, 1, MSec="111.4517"
     * NewId="10000000-0000-0000-0000-000000000001" */
    const gcs_meta_def *d = rec_def_by_name(r, "System.Threading.Tasks.TplEventSource",
                                            "SetActivityId");
    CHECK(d != NULL);
    if (d) {
        CHECK_EQ_U64(d->field_count, 1);
        if (d->field_count == 1) {
            CHECK_EQ_STR(d->fields[0].name, "NewId");
            CHECK_EQ_INT(d->fields[0].type, GCS_T_GUID);
        }
        const rec_event *e = rec_first(r, d->provider, d->event_id);
        if (e) {
            CHECK_NEAR(rec_msec(r, e->timestamp), 111.4517, 0.0001);
            CHECK_EQ_U64(e->payload_size, 16);
            CHECK_EQ_U64(e->head[3], 0x10);
            CHECK_EQ_U64(e->head[15], 0x01);
        }
    }
    CHECK_EQ_U64(r->nevents, 26146);
    CHECK_EQ_U64(r->ndefs, 9);
    /* netperf: events are in time order, no sequence numbers or points */
    CHECK_EQ_U64(r->seq_points, 0);
    for (size_t i = 0; i < r->nevents; i++) {
        CHECK(r->events[i].is_sorted);
        CHECK(!r->events[i].has_sequence);
        if (i > 0)
            CHECK(r->events[i].timestamp >= r->events[i - 1].timestamp);
    }
    CHECK_EQ_U64(r->anomalies, 0);
    free_sink(r);
}

static void test_v3_truncation_flips_again(void)
{
    if (!check_file_exists(V3_TRACE))
        SKIP("../shared/traces/perfview not present");
    size_t size;
    uint8_t *data = (uint8_t *)check_read_file(V3_TRACE, &size);
    rec_sink *full = new_sink();
    gcs_error err;
    CHECK_EQ_INT(rec_run_memory(data, size, full, &err), GCS_END);

    /* Cuts in the first 300 KB (each run reads only up to its cut) and at
     * every block start there. */
    const size_t window = 300000;
    for (size_t cut = 0; cut < window; cut += 1499) {
        rec_sink *r = new_sink();
        gcs_status st = rec_run_memory(data, cut, r, &err);
        CHECK_EQ_INT(st, cut < 24 ? GCS_ERR_NOT_TRACE : GCS_ERR_TRUNCATED);
        if (cut >= 24)
            CHECK(err.offset <= cut);
        if (r->nevents > 0)
            CHECK(memcmp(r->events, full->events, r->nevents * sizeof *r->events) == 0);
        free_sink(r);
    }
    for (size_t i = 0; i < full->nblock_starts && full->block_starts[i] < window; i++) {
        for (int d = -1; d <= 1; d++) {
            size_t cut = (size_t)full->block_starts[i] + (size_t)(int64_t)d;
            rec_sink *r = new_sink();
            CHECK_EQ_INT(rec_run_memory(data, cut, r, &err), GCS_ERR_TRUNCATED);
            CHECK(err.offset <= cut);
            free_sink(r);
        }
    }
    /* The whole file but its last byte (the end tag). */
    rec_sink *r = new_sink();
    CHECK_EQ_INT(rec_run_memory(data, size - 1, r, &err), GCS_ERR_TRUNCATED);
    CHECK_EQ_U64(r->nevents, full->nevents);
    free_sink(r);

    /* Byte flips in a 256 KB prefix never crash. */
    uint64_t x = 88172645463325252ull;
    uint8_t *copy = malloc(window);
    for (int round = 0; round < 300; round++) {
        memcpy(copy, data, window);
        for (int f = 0; f < 3; f++) {
            x ^= x << 13, x ^= x >> 7, x ^= x << 17;
            copy[x % window] ^= (uint8_t)(1 + (x >> 40) % 255);
        }
        r = new_sink();
        gcs_status st = rec_run_memory(copy, window, r, &err);
        CHECK(st < 0); /* a prefix never ends cleanly */
        CHECK(err.offset <= window);
        free_sink(r);
    }
    free(copy);

    /* A source answering AGAIN every other call gives the same events. */
    stutter_src t = {data, size, 0, 65521, 0};
    gcs_source *src = gcs_source_custom(stutter_read, NULL, &t, &err);
    r = new_sink();
    CHECK_EQ_INT(rec_run(src, r, &err), GCS_END);
    CHECK(rec_same_events(full, r));
    free_sink(r);
    gcs_source_free(src);
    free_sink(full);
    free(data);
}

/* A counting sink (sink->tally) on the V3 trace: the container counts
 * the rows of the slots marked counted itself (Method/DCStopVerbose, of
 * fixed fields, three UTF-16 strings and ClrInstanceID, when its strings
 * end in the payload; the other Rundown types plainly, with a min_size
 * that makes some rows short) and hands every other row to sink->event,
 * unchanged and in order: counts, short rows and the time span are the
 * full read's. */
static void test_v3_tally(void)
{
    if (!check_file_exists(V3_TRACE))
        SKIP("../shared/traces/perfview not present");
    rec_sink *full = new_sink();
    gcs_error err;
    CHECK_EQ_INT(rec_run_file(V3_TRACE, full, &err), GCS_END);
    enum { N_SLOTS = 256, MIN_SIZE = 60 };
    static gcs_tally_slot slots[N_SLOTS];
    memset(slots, 0, sizeof slots);
    for (size_t i = 0; i < full->ndefs; i++) {
        const gcs_meta_def *d = &full->defs[i];
        if (strcmp(d->provider, RUNDOWN) != 0 || d->metadata_id >= N_SLOTS)
            continue;
        gcs_tally_slot *slot = &slots[d->metadata_id];
        if (d->event_id == 144) { /* Method/DCStopVerbose V1 */
            *slot = (gcs_tally_slot){.counted = GCS_TALLY_STRINGS, .zero_unit = 2,
                                     .zero_strings = 3, .zero_before = 36, .zero_after = 2};
        } else {
            *slot = (gcs_tally_slot){.counted = GCS_TALLY_PLAIN, .min_size = MIN_SIZE};
        }
    }
    /* What the container must count, from the full read. */
    uint64_t expect[N_SLOTS] = {0}, rows = 0, short_rows = 0;
    int64_t lo = INT64_MAX, hi = INT64_MIN;
    size_t verbose = 0, delivered = 0;
    for (size_t i = 0; i < full->nevents; i++) {
        const rec_event *e = &full->events[i];
        const gcs_tally_slot *slot = e->metadata_id < N_SLOTS ? &slots[e->metadata_id] : NULL;
        if (!slot || slot->counted == GCS_TALLY_NO) {
            delivered++;
            continue;
        }
        verbose += slot->counted == GCS_TALLY_STRINGS;
        expect[e->metadata_id]++;
        rows++;
        short_rows += e->payload_size < slot->min_size;
        lo = e->timestamp < lo ? e->timestamp : lo;
        hi = e->timestamp > hi ? e->timestamp : hi;
    }
    CHECK(verbose > 20000); /* every real row's strings end in its payload */
    CHECK(short_rows > 0 && short_rows < rows);

    rec_sink *r = new_sink();
    gcs_tally tally = {slots, N_SLOTS, 0, 0, 0, 0};
    r->sink.tally = &tally;
    CHECK_EQ_INT(rec_run_file(V3_TRACE, r, &err), GCS_END);
    for (size_t id = 0; id < N_SLOTS; id++)
        CHECK_EQ_U64(slots[id].count, expect[id]);
    CHECK_EQ_U64(tally.rows, rows);
    CHECK_EQ_U64(tally.short_rows, short_rows);
    CHECK_EQ_U64((uint64_t)tally.first_timestamp, (uint64_t)lo);
    CHECK_EQ_U64((uint64_t)tally.last_timestamp, (uint64_t)hi);
    CHECK_EQ_U64(r->nevents, delivered);
    for (size_t i = 0, j = 0; i < full->nevents && j < r->nevents; i++) {
        if (full->events[i].metadata_id < N_SLOTS &&
            slots[full->events[i].metadata_id].counted != GCS_TALLY_NO)
            continue;
        CHECK(memcmp(&full->events[i], &r->events[j++], sizeof *r->events) == 0);
    }
    free_sink(r);
    free_sink(full);
}

/* ---- hand-made V1/V2 streams ---- */

/* One V1..V3 event with activity 00..0F: header, payload, StackSize and
 * stack, no padding. */
static void netperf_event(bb *b, uint32_t metadata_id, uint32_t tid, uint64_t ts,
                          const uint8_t *payload, uint32_t n, uint32_t stack_bytes)
{
    uint8_t activity[16];
    for (int i = 0; i < 16; i++)
        activity[i] = (uint8_t)i;
    tb_netperf_event(b, metadata_id, tid, ts, activity, payload, n, stack_bytes);
}

/* Builds a V1 or V2 stream; *meta_at gets the metadata event's offset.
 * Returns the offset where the events end (the EndObject tag). */
static size_t build_inline(bb *b, uint32_t version, size_t *meta_at)
{
    tb_netperf_inline_head(b, version);
    bb_u32(b, 0); /* forward reference index */
    const uint16_t st[8] = {2017, 9, 1, 18, 23, 4, 52, 582};
    for (int i = 0; i < 8; i++)
        bb_u16(b, st[i]);
    bb_u64(b, 1000);       /* QPC */
    bb_u64(b, 1000000000); /* frequency */

    bb meta = {0};
    if (version == 1) {
        for (int i = 0; i < 16; i++)
            bb_u8(&meta, (uint8_t)(0x10 + i));
    } else {
        bb_utf16z(&meta, "Microsoft-Windows-DotNETRuntime");
    }
    bb_u32(&meta, 10); /* EventId */
    bb_u32(&meta, 3);  /* Version */
    bb_u32(&meta, 0);  /* no more metadata */
    *meta_at = b->len;
    netperf_event(b, 0, 0x344b, 1000, meta.data, (uint32_t)meta.len, 0);

    const uint8_t small[4] = {1, 2, 3, 4};
    netperf_event(b, (uint32_t)*meta_at, 77, 1500, small, 4, 16);
    /* EventSize 262 = 0x106: the event starts with byte 6 like the end mark. */
    uint8_t big[206];
    memset(big, 0x5A, sizeof big);
    netperf_event(b, (uint32_t)*meta_at, 78, 2500, big, sizeof big, 0);

    size_t end = b->len;
    bb_u8(b, 6);          /* EndObject of the Trace object */
    bb_u32(b, 1);         /* forward-reference table: one label */
    bb_u32(b, (uint32_t)end);
    bb_u32(b, (uint32_t)end + 1);
    bb_u32(b, (uint32_t)end + 9);
    return end;
}

static void test_inline_versions(void)
{
    for (uint32_t version = 1; version <= 2; version++) {
        bb *b = calloc(1, sizeof *b);
        size_t meta_at;
        size_t end = build_inline(b, version, &meta_at);
        rec_sink *r = new_sink();
        gcs_error err;
        CHECK_EQ_INT(rec_run_memory(b->data, b->len, r, &err), GCS_END);
        CHECK_EQ_U64(r->info.format_version, version);
        CHECK_EQ_U64(r->info.pointer_size, 8);
        CHECK_EQ_U64(r->info.pid, 0);
        CHECK_EQ_U64(r->info.start_ticks, 1000);
        CHECK_EQ_INT(r->info.start_millisecond, 582);
        CHECK_EQ_U64(r->ndefs, 1);
        if (r->ndefs == 1) {
            CHECK_EQ_U64(r->defs[0].metadata_id, meta_at);
            CHECK_EQ_U64(r->defs[0].event_id, 10);
            CHECK_EQ_U64(r->defs[0].version, 3);
            CHECK_EQ_STR(r->defs[0].provider, version == 1 ? "Provider(13121110-1514-1716-1819-1a1b1c1d1e1f)"
                                                            : "Microsoft-Windows-DotNETRuntime");
        }
        CHECK_EQ_U64(r->nevents, 2);
        if (r->nevents == 2) {
            CHECK_EQ_U64(r->events[0].metadata_id, meta_at);
            CHECK_EQ_U64(r->events[0].tid, 77);
            CHECK_EQ_U64(r->events[0].timestamp, 1500);
            CHECK_EQ_U64(r->events[0].payload_size, 4);
            CHECK_EQ_U64(r->events[0].head[3], 4);
            CHECK_EQ_U64(r->events[0].activity[5], 5);
            CHECK_EQ_U64(r->events[1].tid, 78);
            CHECK_EQ_U64(r->events[1].payload_size, 206);
        }
        free_sink(r);

        /* Every cut before the end mark is complete ends in a clean error
         * at or before the cut; the table after the mark is not needed. */
        for (size_t cut = 0; cut < b->len; cut++) {
            r = new_sink();
            gcs_status st = rec_run_memory(b->data, cut, r, &err);
            CHECK_EQ_INT(st, cut < 24 ? GCS_ERR_NOT_TRACE
                             : cut < end + 9 ? GCS_ERR_TRUNCATED : GCS_END);
            if (st < 0 && cut >= 24)
                CHECK(err.offset <= cut);
            free_sink(r);
        }
        free(b);
    }
}

/* The V1/V2 inline path counts for a counting sink too: both events of
 * build_inline's type counted (the 4-byte one short of min_size 5), none
 * handed over; the metadata event (id 0) is never counted. */
static void test_inline_tally(void)
{
    for (uint32_t version = 1; version <= 2; version++) {
        bb *b = calloc(1, sizeof *b);
        size_t meta_at;
        build_inline(b, version, &meta_at);
        static gcs_tally_slot slots[1024];
        memset(slots, 0, sizeof slots);
        CHECK(meta_at < 1024);
        slots[meta_at] = (gcs_tally_slot){.counted = GCS_TALLY_PLAIN, .min_size = 5};
        gcs_tally tally = {slots, 1024, 0, 0, 0, 0};
        rec_sink *r = new_sink();
        r->sink.tally = &tally;
        gcs_error err;
        CHECK_EQ_INT(rec_run_memory(b->data, b->len, r, &err), GCS_END);
        CHECK_EQ_U64(r->ndefs, 1);
        CHECK_EQ_U64(r->nevents, 0);
        CHECK_EQ_U64(slots[meta_at].count, 2);
        CHECK_EQ_U64(tally.rows, 2);
        CHECK_EQ_U64(tally.short_rows, 1);
        CHECK_EQ_U64(tally.first_timestamp, 1500);
        CHECK_EQ_U64(tally.last_timestamp, 2500);
        free_sink(r);
        free(b);
    }
}

int main(void)
{
    RUN(test_v3_trace);
    RUN(test_v3_truncation_flips_again);
    RUN(test_v3_tally);
    RUN(test_inline_versions);
    RUN(test_inline_tally);
    return check_report("test_netperf");
}
