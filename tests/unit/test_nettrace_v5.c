/*
 * Tests of the nettrace V4/V5 container (src/format/nettrace/nettrace_v5.c
 * over src/format/fastser.c) on real traces with TraceEvent baselines
 * (../shared/traces/perfview/ *.baseline.txt), a .NET 10 probe trace, and
 * hand-made traces for the layouts real traces do not use.
 */
#include "check.h"

#include "trace_builder.h"
#include "format/eventpipe_metadata.h"
#include "recording_sink.h"

#define EXEC_TRACE SHARED_TRACES "eventpipe-dotnetcore6.0-win-x64-executioncheckpoints.nettrace"
#define ARRAY_TRACE SHARED_TRACES "eventpipe-dotnetcore5.0-win-x64-arraytypes.nettrace"
#define PROBE_TRACE TEST_DATA("probe-net10.nettrace")

#define RUNDOWN "Microsoft-Windows-DotNETRuntimeRundown"
#define RUNTIME "Microsoft-Windows-DotNETRuntime"

static uint32_t le32(const uint8_t *p)
{
    return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) | ((uint32_t)p[3] << 24);
}
static uint16_t le16(const uint8_t *p) { return (uint16_t)(p[0] | (p[1] << 8)); }
static uint64_t le64(const uint8_t *p) { return le32(p) | ((uint64_t)le32(p + 4) << 32); }

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

static void test_executioncheckpoints(void)
{
    if (!check_file_exists(EXEC_TRACE))
        SKIP("../shared/traces/perfview not present");
    rec_sink *r = new_sink();
    gcs_error err;
    CHECK_EQ_INT(rec_run_file(EXEC_TRACE, r, &err), GCS_END);
    CHECK_EQ_INT(r->trace_calls, 1);
    CHECK(!r->out_of_order);
    const gcs_trace_info *t = &r->info;
    CHECK_EQ_INT(t->format, GCS_FORMAT_NETTRACE);
    CHECK_EQ_U64(t->format_version, 4);
    CHECK_EQ_U64(t->pointer_size, 8);
    CHECK_EQ_U64(t->pid, 9832);
    CHECK_EQ_U64(t->cpu_count, 8);
    CHECK_EQ_U64(t->clock_frequency, 10000000);
    CHECK_EQ_U64(t->start_ticks, 11111925758331ll);
    CHECK_EQ_INT(t->start_year, 2021);
    CHECK_EQ_INT(t->start_month, 6);
    CHECK_EQ_INT(t->start_day, 9);
    CHECK_EQ_INT(t->start_hour, 9);
    CHECK_EQ_INT(t->start_minute, 48);
    CHECK_EQ_INT(t->start_second, 25);
    CHECK_EQ_INT(t->start_millisecond, 902);
    CHECK_EQ_U64(t->expected_cpu_sampling_rate, 1000000);
    /* Baseline: "Microsoft-Windows-DotNETRuntimeRundown/ExecutionCheckpointRundown/
     * ExecutionCheckpointDCEnd, 3, <Event MSec="1753.7906" PID="9832" TID="25112"
     * ClrInstanceID="9" Name="RuntimeInit" Timestamp="11,111,925,598,665"/>" */
    CHECK_EQ_U64(r->nevents, 3);
    CHECK_EQ_U64(rec_count(r, RUNDOWN, 300), 3);
    const gcs_meta_def *d = rec_def(r, 1);
    CHECK(d != NULL);
    if (d) {
        CHECK_EQ_STR(d->event_name, ""); /* native runtime events carry no name */
        CHECK_EQ_U64(d->field_count, 0);
        CHECK_EQ_U64(d->level, 4);
    }
    const rec_event *e = rec_first(r, RUNDOWN, 300);
    if (e) {
        CHECK_NEAR(rec_msec(r, e->timestamp), 1753.7906, 0.0001);
        CHECK_EQ_U64(e->tid, 25112);
        CHECK_EQ_U64(e->capture_tid, 25112);
        CHECK_EQ_U64(e->pid, 9832);
        CHECK_EQ_U64(le16(e->head), 9);   /* ClrInstanceID */
        CHECK_EQ_U64(e->head[2], 'R');    /* Name = "RuntimeInit" */
        CHECK_EQ_U64(le64(e->head + 26), 11111925598665ull); /* Timestamp */
        CHECK_EQ_U64(e->payload_size, 34);
        CHECK_EQ_U64(e->stack_id, 1);
        CHECK_EQ_U64(e->processor, 0xffffffffu); /* as written for rundown events */
    }
    for (size_t i = 0; i < r->nevents; i++) {
        CHECK(r->events[i].has_sequence);
        CHECK_EQ_U64(r->events[i].sequence, i + 1);
    }
    CHECK_EQ_U64(r->seq_points, 1);
    CHECK_EQ_U64(r->seq_entries, 1);
    CHECK_EQ_U64(r->stacks, 1);
    CHECK_EQ_U64(r->blocks, 4); /* MetadataBlock, StackBlock, EventBlock, SPBlock */
    CHECK_EQ_U64(r->anomalies, 0);
    free_sink(r);
}

/* (provider, event id, count, first MSec) from the arraytypes baseline. */
static const struct {
    const char *provider;
    uint32_t id;
    size_t count;
    double first_msec;
} array_baseline[] = {
    /* Microsoft-DotNETCore-EventPipe/ProcessInfo, 2, MSec="2513.7878" */
    {"Microsoft-DotNETCore-EventPipe", 1, 2, 2513.7878},
    /* .../Loader/AppDomainDCStop, 1, MSec="2738.6772" */
    {RUNDOWN, 158, 1, 2738.6772},
    /* .../Loader/AssemblyDCStop, 33, MSec="2733.9493" */
    {RUNDOWN, 156, 33, 2733.9493},
    /* .../Loader/DomainModuleDCStop, 33, MSec="2733.9394" */
    {RUNDOWN, 152, 33, 2733.9394},
    /* .../Loader/ModuleDCStop, 33, MSec="2733.9356" */
    {RUNDOWN, 154, 33, 2733.9356},
    /* .../Method/DCStopComplete, 1, MSec="2738.6787" */
    {RUNDOWN, 146, 1, 2738.6787},
    /* .../Method/DCStopInit, 1, MSec="2722.7320" */
    {RUNDOWN, 148, 1, 2722.7320},
    /* .../Runtime/Start, 1, MSec="2722.7254" */
    {RUNDOWN, 187, 1, 2722.7254},
    /* TestEventSource0/TestEvent1, 1, MSec="2420.9926" */
    {"TestEventSource0", 5, 1, 2420.9926},
    /* TestEventSource0/TestEvent2, 1, MSec="2421.1640" */
    {"TestEventSource0", 6, 1, 2421.1640},
    /* TestEventSource0/TestEvent3/24, 1, MSec="2421.2350" */
    {"TestEventSource0", 7, 1, 2421.2350},
};

static void test_arraytypes(void)
{
    if (!check_file_exists(ARRAY_TRACE))
        SKIP("../shared/traces/perfview not present");
    rec_sink *r = new_sink();
    gcs_error err;
    CHECK_EQ_INT(rec_run_file(ARRAY_TRACE, r, &err), GCS_END);
    CHECK_EQ_U64(r->info.pid, 26240);
    CHECK_EQ_U64(r->info.pointer_size, 8);
    CHECK_EQ_U64(r->info.cpu_count, 12);
    for (size_t i = 0; i < sizeof array_baseline / sizeof array_baseline[0]; i++) {
        CHECK_EQ_U64(rec_count(r, array_baseline[i].provider, array_baseline[i].id),
                     array_baseline[i].count);
        const rec_event *e = rec_first(r, array_baseline[i].provider, array_baseline[i].id);
        CHECK(e != NULL);
        if (e) {
            CHECK_NEAR(rec_msec(r, e->timestamp), array_baseline[i].first_msec, 0.0001);
            CHECK_EQ_U64(e->pid, 26240);
        }
    }
    /* The baseline lists a subset; the rest are MethodDCStopVerbose (144)
     * and DCStopILToNativeMap-style rows (150). */
    CHECK_EQ_U64(r->nevents, 1970);
    CHECK_EQ_U64(rec_count(r, RUNDOWN, 144), 1499);
    CHECK_EQ_U64(rec_count(r, RUNDOWN, 150), 363);
    CHECK_EQ_U64(r->ndefs, 13);
    CHECK_EQ_U64(r->anomalies, 0);
    /* ProcessInfo TID="33504" (baseline) */
    const rec_event *pi = rec_first(r, "Microsoft-DotNETCore-EventPipe", 1);
    if (pi)
        CHECK_EQ_U64(pi->tid, 33504);

    /* Schemas from the V5 V2Params tags. Baseline: TestEvent1 arg0="[2032854139,...]"
     * arg1="[26494,17115,-7229,18850,27931]" arg2="2,033,417,279". */
    const gcs_meta_def *d = rec_def_by_name(r, "TestEventSource0", "TestEvent1");
    CHECK(d != NULL);
    if (d && d->field_count == 3) {
        CHECK_EQ_STR(d->fields[0].name, "arg0");
        CHECK_EQ_INT(d->fields[0].type, GCS_T_U32);
        CHECK_EQ_INT(d->fields[0].repeat, GCS_REPEAT_U16_PREFIX);
        CHECK_EQ_STR(d->fields[1].name, "arg1");
        CHECK_EQ_INT(d->fields[1].type, GCS_T_I16);
        CHECK_EQ_INT(d->fields[1].repeat, GCS_REPEAT_U16_PREFIX);
        CHECK_EQ_STR(d->fields[2].name, "arg2");
        CHECK_EQ_INT(d->fields[2].type, GCS_T_I64);
        CHECK_EQ_INT(d->fields[2].repeat, GCS_REPEAT_ONE);
    } else {
        CHECK(0 && "TestEvent1 has 3 fields");
    }
    const rec_event *e = rec_first(r, "TestEventSource0", 5);
    if (e) {
        /* The schema walks the payload exactly: u16 6, 6 x u32, u16 5, 5 x i16, i64. */
        CHECK_EQ_U64(e->payload_size, 2 + 24 + 2 + 10 + 8);
        CHECK_EQ_U64(le16(e->head), 6);
        CHECK_EQ_U64(le32(e->head + 2), 2032854139u);
        CHECK_EQ_U64(le16(e->head + 26), 5);
        CHECK_EQ_INT((int16_t)le16(e->head + 28 + 2 * 2), -7229);
        CHECK_EQ_U64(le64(e->head + 38), 2033417279u);
    }
    /* TestEvent2 arg0="-1,001,479,330" arg1="-1,397,908,228"
     * arg2="[1470938110,172564262,1133558854,-1572049829]" arg3="[2055126903,...]" */
    d = rec_def_by_name(r, "TestEventSource0", "TestEvent2");
    if (d && d->field_count == 4) {
        CHECK_EQ_INT(d->fields[0].type, GCS_T_I64);
        CHECK_EQ_INT(d->fields[1].type, GCS_T_I32);
        CHECK_EQ_INT(d->fields[2].type, GCS_T_I32);
        CHECK_EQ_INT(d->fields[2].repeat, GCS_REPEAT_U16_PREFIX);
        CHECK_EQ_INT(d->fields[3].type, GCS_T_U64);
        CHECK_EQ_INT(d->fields[3].repeat, GCS_REPEAT_U16_PREFIX);
    } else {
        CHECK(0 && "TestEvent2 has 4 fields");
    }
    e = rec_first(r, "TestEventSource0", 6);
    if (e) {
        CHECK_EQ_U64(e->payload_size, 8 + 4 + 2 + 16 + 2 + 32);
        CHECK_EQ_INT((int64_t)le64(e->head), -1001479330);
        CHECK_EQ_INT((int32_t)le32(e->head + 8), -1397908228);
        CHECK_EQ_U64(le16(e->head + 12), 4);
        CHECK_EQ_INT((int32_t)le32(e->head + 14 + 12), -1572049829);
        CHECK_EQ_U64(le64(e->head + 32), 2055126903u);
    }
    /* TestEvent3/24 arg0="㎯隍ᳯ诤": opcode 24 from the OpCode tag, char array */
    d = rec_def_by_name(r, "TestEventSource0", "TestEvent3");
    if (d) {
        CHECK(d->has_opcode);
        CHECK_EQ_U64(d->opcode, 24);
        CHECK_EQ_U64(d->field_count, 1);
        if (d->field_count == 1) {
            CHECK_EQ_INT(d->fields[0].type, GCS_T_CHAR16);
            CHECK_EQ_INT(d->fields[0].repeat, GCS_REPEAT_U16_PREFIX);
        }
    }
    e = rec_first(r, "TestEventSource0", 7);
    if (e) {
        /* five units: U+E7A3 (private use, invisible in the baseline) then ㎯隍ᳯ诤 */
        CHECK_EQ_U64(e->payload_size, 2 + 5 * 2);
        CHECK_EQ_U64(le16(e->head), 5);
        CHECK_EQ_U64(le16(e->head + 2), 0xE7A3);
        CHECK_EQ_U64(le16(e->head + 4), 0x33AF);
        CHECK_EQ_U64(le16(e->head + 10), 0x8BE4);
    }
    d = rec_def_by_name(r, "Microsoft-DotNETCore-EventPipe", "ProcessInfo");
    if (d && d->field_count == 1) {
        CHECK_EQ_STR(d->fields[0].name, "CommandLine");
        CHECK_EQ_INT(d->fields[0].type, GCS_T_UTF16Z);
    }
    free_sink(r);
}

/* A .NET 10 trace of /tmp/probe/app (two induced GCs), written as V5. */
static void test_probe_net10(void)
{
    if (!check_file_exists(PROBE_TRACE))
        SKIP("tests/data/probe-net10.nettrace not present");
    rec_sink *r = new_sink();
    gcs_error err;
    CHECK_EQ_INT(rec_run_file(PROBE_TRACE, r, &err), GCS_END);
    CHECK_EQ_U64(r->info.pid, 1892);
    CHECK_EQ_U64(r->info.pointer_size, 8);
    CHECK_EQ_U64(r->info.clock_frequency, 1000000000);
    CHECK_EQ_U64(r->ndefs, 34);
    CHECK_EQ_U64(r->nevents, 1182);
    CHECK_EQ_U64(r->anomalies, 0);
    /* GC/Start (id 1): Count, Depth, Reason, Type... Both GCs are induced gen2. */
    CHECK_EQ_U64(rec_count(r, RUNTIME, 1), 2);
    CHECK_EQ_U64(rec_count(r, RUNTIME, 2), 2); /* GC/Stop */
    uint32_t counts_seen = 0;
    for (size_t i = 0; i < r->nevents; i++) {
        const gcs_meta_def *d = rec_def(r, r->events[i].metadata_id);
        if (d && d->event_id == 1 && !strcmp(d->provider, RUNTIME)) {
            uint32_t count = le32(r->events[i].head);
            CHECK(count == 1 || count == 2);
            counts_seen |= 1u << count;
            CHECK_EQ_U64(le32(r->events[i].head + 4), 2); /* Depth */
            /* Reason: GC.Collect() is Induced (1); GC.Collect(2, Forced,
             * blocking: false) reports InducedNotForced (7). */
            CHECK_EQ_U64(le32(r->events[i].head + 8), count == 1 ? 1 : 7);
        }
    }
    CHECK_EQ_U64(counts_seen, 6);
    /* Sequence numbers advance by exactly one per capture thread (no drops
     * in this trace), which exercises the compressed header's deltas. */
    size_t sorted = 0;
    for (size_t i = 0; i < r->nevents; i++) {
        const rec_event *e = &r->events[i];
        sorted += e->is_sorted;
        for (size_t j = i; j-- > 0;) {
            if (r->events[j].capture_tid == e->capture_tid) {
                CHECK_EQ_U64(e->sequence, r->events[j].sequence + 1);
                CHECK(e->timestamp >= r->events[j].timestamp);
                break;
            }
        }
    }
    CHECK(sorted > 0);
    CHECK_EQ_U64(r->seq_points, 1);
    CHECK_EQ_U64(r->seq_entries, 2);
    const gcs_meta_def *pi = rec_def_by_name(r, "Microsoft-DotNETCore-EventPipe", "ProcessInfo");
    CHECK(pi && pi->field_count == 3);
    free_sink(r);
}

/* Cuts the file at every object boundary (and next to it) and at many
 * points inside: always an error at or before the cut, never a crash, and
 * the events delivered are a prefix of the whole file's events. */
static void check_truncations(const char *path, size_t stride)
{
    size_t size;
    uint8_t *data = (uint8_t *)check_read_file(path, &size);
    if (!data)
        return;
    rec_sink *full = new_sink();
    gcs_error err;
    CHECK_EQ_INT(rec_run_memory(data, size, full, &err), GCS_END);
    size_t ncuts = 0;
    size_t *cuts = malloc(sizeof *cuts * (size / stride + 8 + 3 * full->nblock_starts));
    for (size_t c = 0; c < size; c += stride)
        cuts[ncuts++] = c;
    for (size_t i = 0; i < full->nblock_starts; i++)
        for (int d = -1; d <= 1; d++) {
            uint64_t c = full->block_starts[i] + (uint64_t)(int64_t)d;
            if (c < size)
                cuts[ncuts++] = (size_t)c;
        }
    cuts[ncuts++] = size - 1;
    for (size_t i = 0; i < ncuts; i++) {
        size_t cut = cuts[i];
        rec_sink *r = new_sink();
        gcs_status st = rec_run_memory(data, cut, r, &err);
        if (cut < 8) {
            CHECK_EQ_INT(st, GCS_ERR_NOT_TRACE);
        } else {
            CHECK_EQ_INT(st, GCS_ERR_TRUNCATED);
            CHECK(err.offset <= cut);
        }
        CHECK(r->nevents <= full->nevents);
        if (r->nevents > 0 && r->nevents <= full->nevents)
            CHECK(memcmp(r->events, full->events, r->nevents * sizeof *r->events) == 0);
        free_sink(r);
    }
    free(cuts);
    free_sink(full);
    free(data);
}

static void test_truncation(void)
{
    if (!check_file_exists(EXEC_TRACE) || !check_file_exists(ARRAY_TRACE))
        SKIP("../shared/traces/perfview not present");
    check_truncations(EXEC_TRACE, 1);
    check_truncations(ARRAY_TRACE, 1499);
}

static uint64_t rng_state = 0x9E3779B97F4A7C15ull;
static uint64_t rng(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}

static void check_flips(const char *path, int rounds)
{
    size_t size;
    uint8_t *data = (uint8_t *)check_read_file(path, &size);
    if (!data)
        return;
    uint8_t *copy = malloc(size);
    int ended = 0, failed = 0;
    for (int i = 0; i < rounds; i++) {
        memcpy(copy, data, size);
        int flips = 1 + (int)(rng() % 4);
        for (int f = 0; f < flips; f++)
            copy[rng() % size] ^= (uint8_t)(1 + rng() % 255);
        rec_sink *r = new_sink();
        gcs_error err;
        gcs_status st = rec_run_memory(copy, size, r, &err);
        CHECK(st == GCS_END || st < 0);
        if (st < 0) {
            failed++;
            CHECK(err.offset <= size);
            CHECK(err.reason[0] != '\0');
        } else {
            ended++;
        }
        free_sink(r);
    }
    CHECK(ended + failed == rounds);
    free(copy);
    free(data);
}

static void test_random_flips(void)
{
    if (!check_file_exists(EXEC_TRACE) || !check_file_exists(ARRAY_TRACE))
        SKIP("../shared/traces/perfview not present");
    check_flips(EXEC_TRACE, 3000);
    check_flips(ARRAY_TRACE, 200);
    if (check_file_exists(PROBE_TRACE))
        check_flips(PROBE_TRACE, 200);
}

/* A source answering GCS_AGAIN every other call yields the same events. */
static void check_stutter(const char *path, size_t chunk)
{
    size_t size;
    uint8_t *data = (uint8_t *)check_read_file(path, &size);
    if (!data)
        return;
    rec_sink *plain = new_sink(), *live = new_sink();
    gcs_error err;
    CHECK_EQ_INT(rec_run_file(path, plain, &err), GCS_END);
    stutter_src t = {data, size, 0, chunk, 0};
    gcs_source *src = gcs_source_custom(stutter_read, NULL, &t, &err);
    CHECK_EQ_INT(rec_run(src, live, &err), GCS_END);
    gcs_source_free(src);
    CHECK(t.calls >= 2 * (size / chunk)); /* half of them answered AGAIN */
    CHECK(rec_same_events(plain, live));
    CHECK_EQ_U64(live->nevents, plain->nevents);
    CHECK_EQ_U64(live->ndefs, plain->ndefs);
    free_sink(plain);
    free_sink(live);
    free(data);
}

static void test_again_source(void)
{
    if (!check_file_exists(EXEC_TRACE) || !check_file_exists(ARRAY_TRACE))
        SKIP("../shared/traces/perfview not present");
    check_stutter(EXEC_TRACE, 1);
    check_stutter(EXEC_TRACE, 7);
    check_stutter(ARRAY_TRACE, 4093);
    if (check_file_exists(PROBE_TRACE))
        check_stutter(PROBE_TRACE, 1021);
}

/* ---- the recorded GC fixtures against TraceEvent's own event list ---- */

typedef struct oracle_key {
    int64_t msec_thousandths;
    uint32_t pid;
    uint64_t tid;
    uint32_t event_id;
    char provider[64];
} oracle_key;

static int key_cmp(const void *a, const void *b)
{
    const oracle_key *x = a, *y = b;
    if (x->msec_thousandths != y->msec_thousandths)
        return x->msec_thousandths < y->msec_thousandths ? -1 : 1;
    if (x->tid != y->tid)
        return x->tid < y->tid ? -1 : 1;
    if (x->event_id != y->event_id)
        return x->event_id < y->event_id ? -1 : 1;
    if (x->pid != y->pid)
        return x->pid < y->pid ? -1 : 1;
    return strcmp(x->provider, y->provider);
}

/* "%.3f" of the event's MSec, as thousandths (the oracle prints F3). */
static int64_t thousandths(double ms)
{
    char text[64];
    snprintf(text, sizeof text, "%.3f", ms);
    double whole = 0;
    unsigned frac = 0;
    char *dot = strchr(text, '.');
    *dot = 0;
    whole = atof(text);
    frac = (unsigned)atoi(dot + 1);
    return (int64_t)whole * 1000 + (text[0] == '-' ? -(int64_t)frac : (int64_t)frac);
}

/*
 * Every event TraceEvent dispatches (tests/data/NAME.oracle-all.txt: "MSec
 * pid=P tid=T Provider/Name id=N ...") is delivered by the container with
 * the same MSec (to 0.001 ms), pid, tid, provider and event id, and
 * nothing else but GCDynamicEvent (id 39), which TraceEvent's CLR parser
 * does not dispatch.
 */
static void check_against_oracle(const char *name)
{
    char trace[256], oracle[256];
    snprintf(trace, sizeof trace, "tests/data/%s.nettrace", name);
    snprintf(oracle, sizeof oracle, "tests/data/%s.oracle-all.txt", name);
    FILE *f = fopen(oracle, "r");
    if (!f || !check_file_exists(trace)) {
        if (f)
            fclose(f);
        printf("skipped: %s oracle (fixture not present)\n", name);
        return;
    }
    rec_sink *r = new_sink();
    gcs_error err;
    CHECK_EQ_INT(rec_run_file(trace, r, &err), GCS_END);
    size_t cap = 1024, n = 0;
    oracle_key *want = malloc(cap * sizeof *want);
    char line[8192];
    while (fgets(line, sizeof line, f)) {
        oracle_key k;
        memset(&k, 0, sizeof k);
        char ms[64], prov[512];
        unsigned long long tid;
        unsigned pid, id;
        if (sscanf(line, "%63s pid=%u tid=%llu %511s id=%u", ms, &pid, &tid, prov, &id) != 5)
            continue;
        char *slash = strchr(prov, '/');
        if (slash)
            *slash = 0;
        k.msec_thousandths = thousandths(atof(ms));
        k.pid = pid;
        k.tid = tid;
        k.event_id = id;
        snprintf(k.provider, sizeof k.provider, "%.63s", prov);
        if (n == cap)
            want = realloc(want, (cap *= 2) * sizeof *want);
        want[n++] = k;
    }
    fclose(f);
    oracle_key *got = calloc(r->nevents ? r->nevents : 1, sizeof *got);
    size_t m = 0, dynamic = 0;
    for (size_t i = 0; i < r->nevents; i++) {
        const rec_event *e = &r->events[i];
        const gcs_meta_def *d = rec_def(r, e->metadata_id);
        if (!d)
            continue;
        if (d->event_id == 39 && !strcmp(d->provider, RUNTIME)) {
            dynamic++;
            continue;
        }
        got[m].msec_thousandths = thousandths(rec_msec(r, e->timestamp));
        got[m].pid = e->pid;
        got[m].tid = e->tid;
        got[m].event_id = d->event_id;
        snprintf(got[m].provider, sizeof got[m].provider, "%.63s", d->provider);
        m++;
    }
    qsort(want, n, sizeof *want, key_cmp);
    qsort(got, m, sizeof *got, key_cmp);
    CHECK(n > 1000);
    CHECK_EQ_U64(m, n);
    size_t same = 0;
    for (size_t i = 0; i < n && i < m; i++)
        same += key_cmp(&want[i], &got[i]) == 0;
    CHECK_EQ_U64(same, n);
    CHECK(dynamic > 0);
    CHECK_EQ_U64(r->anomalies, 0);
    free(got);
    free(want);
    free_sink(r);
}

static void test_fixtures_match_traceevent(void)
{
    check_against_oracle("gen0size-small");
    check_against_oracle("objects-allocsampled");
}

/* ---- hand-made traces ---- */

static void trace_start(bb *b)
{
    const tb_trace t = {{2024, 2, 4, 29, 13, 14, 15, 16}, 5000, 1000000, 4, 4242, 16, 1000};
    tb_nettrace_start(b, &t);
}

/* One uncompressed row on processor 3 with activity A0..AF; EventSize
 * counts `padding` zero bytes after the payload. */
static void uncompressed_row(bb *body, uint32_t raw_id, uint32_t seq, uint64_t tid, uint64_t ctid,
                             uint64_t ts, const uint8_t *payload, uint32_t n, uint32_t padding)
{
    uint8_t activity[16];
    for (int i = 0; i < 16; i++)
        activity[i] = (uint8_t)(0xA0 + i);
    const tb_row row = {raw_id, seq, tid, ctid, 3, 0, ts, activity};
    tb_row_v4(body, &row, payload, n, padding);
}

static void test_synthetic_layouts(void)
{
    bb *b = calloc(1, sizeof *b);
    trace_start(b);

    /* Uncompressed metadata block: one row (MetadataId 0) defining id 1. */
    bb *body = calloc(1, sizeof *body);
    tb_block_header(body, 0);
    bb meta = {0};
    bb_u32(&meta, 1);
    bb_utf16z(&meta, "Synth");
    bb_u32(&meta, 77);
    bb_utf16z(&meta, "Ping");
    bb_u64(&meta, 0);
    bb_u32(&meta, 0);
    bb_u32(&meta, 5);
    bb_u32(&meta, 1);
    bb_u32(&meta, GCS_EP_TC_BYTE);
    bb_utf16z(&meta, "b");
    uncompressed_row(body, 0, 0, 0, 0, 0, meta.data, (uint32_t)meta.len, 0);
    tb_block_object(b, "MetadataBlock", 2, body);

    /* Uncompressed events, each right after the one before: a 3-byte
     * payload without padding (TraceEvent's writer; the next row starts
     * at an odd offset), a 4-byte one, a 3-byte one whose EventSize counts
     * one byte of padding (the runtime's way); high bit set = not sorted. */
    memset(body, 0, sizeof *body);
    tb_block_header(body, 0);
    const uint8_t p1[3] = {1, 2, 3}, p2[4] = {4, 5, 6, 7};
    uncompressed_row(body, 1, 5, 100, 101, 6000, p1, 3, 0);
    uncompressed_row(body, 0x80000001u, 6, 100, 101, 6001, p2, 4, 0);
    uncompressed_row(body, 1, 7, 102, 101, 6002, p1, 3, 1);
    tb_block_object(b, "EventBlock", 2, body);

    /* An object type from the future: skipped by its size. */
    memset(body, 0, sizeof *body);
    bb_zeros(body, 13);
    tb_block_object(b, "FutureBlock", 9, body);

    /* Compressed events: delta timestamps that wrap modulo 2^64. */
    memset(body, 0, sizeof *body);
    tb_block_header(body, 1);
    bb_u8(body, 1 | 2 | 4 | 64 | 128);
    bb_varu(body, 1);                      /* metadata id */
    bb_varu(body, 9);                      /* sequence delta: 0 + 9 + 1 = 10 */
    bb_varu(body, 7);                      /* capture thread */
    bb_varu(body, 2);                      /* processor */
    bb_varu(body, 8);                      /* thread */
    bb_varu(body, 0xFFFFFFFFFFFFFFF0ull);  /* timestamp delta from 0 */
    bb_varu(body, 2);                      /* payload size */
    bb_u8(body, 9);
    bb_u8(body, 9);
    bb_u8(body, 0);                        /* all fields as before */
    bb_varu(body, 0x20);                   /* wraps to 0x10 */
    bb_u8(body, 8);
    bb_u8(body, 8);
    bb_u8(body, 16 | 8);                   /* activity id and stack id */
    bb_varu(body, 2);                      /* stack id */
    bb_varu(body, 1);
    for (int i = 0; i < 16; i++)
        bb_u8(body, 0xAA);
    bb_u8(body, 7);
    bb_u8(body, 7);
    tb_block_object(b, "EventBlock", 2, body);

    /* Stacks 1 and 2, then a sequence point naming two threads. */
    memset(body, 0, sizeof *body);
    bb_u32(body, 1);
    bb_u32(body, 2);
    bb_u32(body, 8);
    bb_u64(body, 0x1234);
    bb_u32(body, 0);
    tb_block_object(b, "StackBlock", 2, body);
    memset(body, 0, sizeof *body);
    bb_u64(body, 9000);
    bb_u32(body, 2);
    bb_u64(body, 101);
    bb_u32(body, 7);
    bb_u64(body, 7);
    bb_u32(body, 12);
    tb_block_object(b, "SPBlock", 2, body);
    bb_u8(b, 1); /* NullReference: end of stream */

    rec_sink *r = new_sink();
    gcs_error err;
    CHECK_EQ_INT(rec_run_memory(b->data, b->len, r, &err), GCS_END);
    CHECK_EQ_U64(r->info.pointer_size, 4);
    CHECK_EQ_U64(r->info.pid, 4242);
    CHECK_EQ_U64(r->info.start_ticks, 5000);
    CHECK_EQ_INT(r->info.start_day, 29);
    CHECK_EQ_INT(r->info.start_millisecond, 16);
    CHECK_EQ_U64(r->ndefs, 1);
    if (r->ndefs == 1) {
        CHECK_EQ_STR(r->defs[0].provider, "Synth");
        CHECK_EQ_U64(r->defs[0].event_id, 77);
        CHECK_EQ_U64(r->defs[0].field_count, 1);
    }
    CHECK_EQ_U64(r->nevents, 6);
    if (r->nevents == 6) {
        const rec_event *e = r->events;
        CHECK(e[0].is_sorted);
        CHECK_EQ_U64(e[0].sequence, 5);
        CHECK_EQ_U64(e[0].tid, 100);
        CHECK_EQ_U64(e[0].capture_tid, 101);
        CHECK_EQ_U64(e[0].processor, 3);
        CHECK_EQ_U64(e[0].timestamp, 6000);
        CHECK_EQ_U64(e[0].payload_size, 3);
        CHECK_EQ_U64(e[0].head[2], 3);
        CHECK_EQ_U64(e[0].activity[1], 0xA1);
        CHECK_EQ_U64(e[0].pid, 4242);
        CHECK(!e[1].is_sorted);
        CHECK_EQ_U64(e[1].metadata_id, 1);
        CHECK_EQ_U64(e[1].payload_size, 4);
        CHECK_EQ_U64(e[1].head[3], 7);
        CHECK_EQ_U64(e[2].tid, 102);
        CHECK_EQ_U64(e[2].timestamp, 6002);
        CHECK(e[3].is_sorted);
        CHECK_EQ_U64(e[3].sequence, 10);
        CHECK_EQ_U64(e[3].capture_tid, 7);
        CHECK_EQ_U64(e[3].processor, 2);
        CHECK_EQ_U64(e[3].tid, 8);
        CHECK_EQ_U64((uint64_t)e[3].timestamp, 0xFFFFFFFFFFFFFFF0ull);
        CHECK(!e[4].is_sorted);
        CHECK_EQ_U64(e[4].sequence, 11);
        CHECK_EQ_U64(e[4].timestamp, 0x10);
        CHECK_EQ_U64(e[4].head[0], 8);
        CHECK_EQ_U64(e[4].activity[0], 0);
        CHECK_EQ_U64(e[5].sequence, 12);
        CHECK_EQ_U64(e[5].stack_id, 2);
        CHECK_EQ_U64(e[5].timestamp, 0x11);
        CHECK_EQ_U64(e[5].activity[15], 0xAA);
        CHECK_EQ_U64(e[5].payload_size, 2);
    }
    CHECK_EQ_U64(r->anomalies, 1);
    CHECK_EQ_U64(r->blocks, 6);
    CHECK_EQ_U64(r->stacks, 2);
    CHECK_EQ_U64(r->seq_points, 1);
    CHECK_EQ_U64(r->seq_entries, 2);
    free_sink(r);

    /* A known block that needs a newer reader is refused cleanly. */
    bb *nb = calloc(1, sizeof *nb);
    trace_start(nb);
    memset(body, 0, sizeof *body);
    tb_block_header(body, 1);
    tb_block_object(nb, "EventBlock", 3, body);
    bb_u8(nb, 1);
    r = new_sink();
    CHECK_EQ_INT(rec_run_memory(nb->data, nb->len, r, &err), GCS_ERR_UNSUPPORTED);
    free_sink(r);

    /* A BlockSize beyond the limit is refused before buffering. */
    memset(nb, 0, sizeof *nb);
    trace_start(nb);
    tb_object_head(nb, "EventBlock", 2, 2);
    bb_u32(nb, 0x7fffffff);
    r = new_sink();
    CHECK_EQ_INT(rec_run_memory(nb->data, nb->len, r, &err), GCS_ERR_LIMIT);
    free_sink(r);
    free(nb);
    free(body);
    free(b);
}

/* tests/data/rows (scripts/record-rows-fixtures.sh): the same rows of
 * sizes not multiple of 4, back to back without padding and padded to a
 * multiple of 4 inside EventSize, read as the same events. (Every event
 * of the unpadded one against TraceEvent: test_te_agreement.) */
static void test_uncompressed_rows(void)
{
    rec_sink *plain = new_sink(), *padded = new_sink();
    gcs_error err;
    CHECK_EQ_INT(rec_run_file(TEST_DATA("rows/uncompressed-v4.nettrace"), plain, &err), GCS_END);
    CHECK_EQ_INT(rec_run_file(TEST_DATA("rows/uncompressed-padded-v4.nettrace"), padded, &err),
                 GCS_END);
    CHECK_EQ_U64(plain->ndefs, 7);
    CHECK_EQ_U64(plain->nevents, 42);
    CHECK_EQ_U64(plain->anomalies, 0);
    size_t odd = 0;
    for (size_t i = 0; i < plain->nevents; i++)
        odd += plain->events[i].payload_size % 4 != 0;
    CHECK_EQ_U64(odd, 33); /* 6 each of 1, 3, 5, 6, 7 bytes; 3 strings of 6 */
    /* Same events but for their input offsets, which the padding moves. */
    CHECK_EQ_U64(padded->nevents, plain->nevents);
    CHECK_EQ_U64(padded->ndefs, plain->ndefs);
    size_t same = 0, moved = 0;
    for (size_t i = 0; i < plain->nevents && i < padded->nevents; i++) {
        rec_event a = plain->events[i], b = padded->events[i];
        moved += a.offset != b.offset;
        a.offset = b.offset = 0;
        same += memcmp(&a, &b, sizeof a) == 0;
    }
    CHECK_EQ_U64(same, plain->nevents);
    CHECK(moved > 0);
    free_sink(plain);
    free_sink(padded);
}

int main(void)
{
    RUN(test_executioncheckpoints);
    RUN(test_arraytypes);
    RUN(test_probe_net10);
    RUN(test_truncation);
    RUN(test_random_flips);
    RUN(test_again_source);
    RUN(test_synthetic_layouts);
    RUN(test_uncompressed_rows);
    RUN(test_fixtures_match_traceevent);
    return check_report("test_nettrace_v5");
}
