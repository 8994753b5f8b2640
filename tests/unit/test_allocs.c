/*
 * test_allocs.c - allocation samples by call stack (gcscope/allocs.h) and
 * the reader's stacks (options.stacks, pipeline/stack_table.h).
 *
 * - the stack table on its own: interning, spans, limits;
 * - a hand-made nettrace V6 trace through the reader: stack ids that a
 *   sequence point renews, a stack never given, and TraceEvent's rules
 *   for naming a frame (an unload or the rundown's DCStop names only the
 *   addresses of the events before it; a JIT-compiled load names what is
 *   left, after the whole trace; a precompiled method's load names none);
 * - every fixture with stacked samples against TraceEvent's TraceLog
 *   (tests/data/NAME.oracle-allocs.txt, tools/oracle `allocstacks`): the
 *   same bytes and samples under the same method names, exclusive and
 *   inclusive;
 * - a hand-made ETL trace: each ClrStackWalk event given to its thread's
 *   previous CLR event when that is a tick (TraceLog's rule), across
 *   processor buffers, 4-byte frames from a 32-bit process.
 */
#include <dirent.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "byte_builder.h"
#include "check.h"
#include "gcscope.h"
#include "pipeline/stack_table.h"
#include "tools/etl_writer.h"
#include "tools/nettrace_v6_writer.h"

/* ---- the stack table ------------------------------------------------- */

static void put64(uint8_t *p, uint64_t v)
{
    for (int i = 0; i < 8; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

static void stack_table_interns_across_spans(void)
{
    gcs_stack_table t;
    gcs_stack_table_init(&t);
    uint8_t a[24], b[16];
    put64(a, 0x10);
    put64(a + 8, 0x20);
    put64(a + 16, 0x30);
    put64(b, 0x10);
    put64(b + 8, 0x20);
    gcs_stack_table_define(&t, 1, a, sizeof a, 8);
    gcs_stack_table_define(&t, 2, b, sizeof b, 8);
    uint32_t ia = gcs_stack_table_lookup(&t, 1), ib = gcs_stack_table_lookup(&t, 2);
    CHECK(ia != 0 && ib != 0 && ia != ib);
    const uint64_t *ips;
    size_t n;
    CHECK(gcs_stack_table_get(&t, ia, &ips, &n));
    CHECK_EQ_U64(n, 3);
    CHECK_EQ_U64(ips[0], 0x10);
    CHECK_EQ_U64(ips[2], 0x30);
    /* A sequence point: the span's ids are gone, the stacks stay; the
     * same stack under another id is the same interned one. */
    gcs_stack_table_reset_span(&t);
    CHECK_EQ_U64(gcs_stack_table_lookup(&t, 1), 0);
    CHECK_EQ_U64(t.dropped, 1);
    gcs_stack_table_define(&t, 7, a, sizeof a, 8);
    CHECK_EQ_U64(gcs_stack_table_lookup(&t, 7), ia);
    CHECK_EQ_U64(t.n, 2);
    /* 4-byte frames, trailing bytes short of a frame ignored. */
    uint8_t c[9] = {0x78, 0x56, 0x34, 0x12, 0xEF, 0xBE, 0xAD, 0xDE, 0xFF};
    uint32_t ic = gcs_stack_table_intern(&t, c, sizeof c, 4);
    CHECK(gcs_stack_table_get(&t, ic, &ips, &n));
    CHECK_EQ_U64(n, 2);
    CHECK_EQ_U64(ips[0], 0x12345678u);
    CHECK_EQ_U64(ips[1], 0xDEADBEEFu);
    /* No frame: no stack. Ids out of range are refused, not stored. */
    CHECK_EQ_U64(gcs_stack_table_intern(&t, c, 3, 4), 0);
    gcs_stack_table_define(&t, GCS_MAX_SPAN_STACK_ID + 1, a, sizeof a, 8);
    CHECK_EQ_U64(gcs_stack_table_lookup(&t, GCS_MAX_SPAN_STACK_ID + 1), 0);
    CHECK(!gcs_stack_table_get(&t, 0, &ips, &n));
    CHECK(!gcs_stack_table_get(&t, 99, &ips, &n));
    gcs_stack_table_free(&t);
}

static void stack_table_many_stacks_and_deep_ones(void)
{
    gcs_stack_table t;
    gcs_stack_table_init(&t);
    uint8_t f[16];
    for (uint32_t i = 1; i <= 5000; i++) {
        put64(f, i);
        put64(f + 8, 0xAAAA);
        gcs_stack_table_define(&t, i, f, sizeof f, 8);
    }
    CHECK_EQ_U64(t.n, 5000);
    for (uint32_t i = 1; i <= 5000; i += 499) {
        const uint64_t *ips;
        size_t n;
        CHECK(gcs_stack_table_get(&t, gcs_stack_table_lookup(&t, i), &ips, &n));
        CHECK_EQ_U64(ips[0], i);
    }
    /* A stack deeper than the limit keeps its leaf frames, counted. */
    size_t deep = (GCS_MAX_STACK_FRAMES + 10) * 8;
    uint8_t *d = calloc(1, deep);
    put64(d, 0x1234);
    uint32_t id = gcs_stack_table_intern(&t, d, deep, 8);
    const uint64_t *ips;
    size_t n;
    CHECK(gcs_stack_table_get(&t, id, &ips, &n));
    CHECK_EQ_U64(n, GCS_MAX_STACK_FRAMES);
    CHECK_EQ_U64(ips[0], 0x1234);
    CHECK_EQ_U64(t.truncated, 1);
    free(d);
    gcs_stack_table_free(&t);
}

/* ---- a hand-made trace ----------------------------------------------- */

#define RUNTIME "Microsoft-Windows-DotNETRuntime"
#define RUNDOWN "Microsoft-Windows-DotNETRuntimeRundown"

typedef struct membuf {
    uint8_t *data;
    size_t len, cap;
} membuf;

static bool mem_write(void *ctx, const void *p, size_t n)
{
    membuf *m = ctx;
    if (m->len + n > m->cap) {
        size_t cap = (m->len + n) * 2;
        uint8_t *d = realloc(m->data, cap);
        if (!d)
            return false;
        m->data = d;
        m->cap = cap;
    }
    memcpy(m->data + m->len, p, n);
    m->len += n;
    return true;
}

enum { M_TICK = 1, M_LOAD, M_UNLOAD, M_DCSTOP, M_TRIGGER };

static void tick(v6w *w, uint64_t ts, uint32_t stack_id, uint64_t amount, const char *type)
{
    bb p = {.len = 0};
    bb_u32(&p, (uint32_t)amount);
    bb_u32(&p, 0);
    bb_u16(&p, 0);
    bb_u64(&p, amount);
    bb_u64(&p, 0x7000 + strlen(type));
    bb_utf16z(&p, type);
    bb_u32(&p, 0);
    bb_u64(&p, 0x9000);
    static uint32_t seq;
    v6w_event e = {.metadata_id = M_TICK, .sorted = true, .sequence = ++seq, .thread_index = 1,
                   .capture_index = 1, .stack_id = stack_id, .timestamp = ts,
                   .payload = p.data, .payload_size = (uint32_t)p.len};
    v6w_event_add(w, &e);
}

/* A MethodLoadVerbose-shaped event (V1). */
static void method(v6w *w, uint32_t meta, uint64_t ts, uint64_t start, uint32_t size,
                   uint32_t flags, const char *ns, const char *name, const char *sig)
{
    bb p = {.len = 0};
    bb_u64(&p, 0x5000 + start);
    bb_u64(&p, 0x6000);
    bb_u64(&p, start);
    bb_u32(&p, size);
    bb_u32(&p, 0x06000001);
    bb_u32(&p, flags);
    bb_utf16z(&p, ns);
    bb_utf16z(&p, name);
    bb_utf16z(&p, sig);
    bb_u16(&p, 0);
    static uint32_t seq;
    v6w_event e = {.metadata_id = meta, .sorted = true, .sequence = ++seq, .thread_index = 2,
                   .capture_index = 2, .timestamp = ts, .payload = p.data,
                   .payload_size = (uint32_t)p.len};
    v6w_event_add(w, &e);
}

static void stacks(v6w *w, uint32_t first, const uint64_t *const *frames, const size_t *n,
                   uint32_t count)
{
    uint32_t sizes[8];
    uint8_t bytes[8 * 64];
    size_t at = 0;
    for (uint32_t i = 0; i < count; i++) {
        sizes[i] = (uint32_t)(n[i] * 8);
        for (size_t f = 0; f < n[i]; f++, at += 8)
            put64(bytes + at, frames[i][f]);
    }
    v6w_stack_block(w, first, count, sizes, bytes);
}

static void meta(v6w *w, uint32_t id, const char *provider, uint32_t event_id, uint32_t version,
                 const char *name)
{
    gcs_event_type t = {0};
    t.metadata_id = id;
    t.provider = provider;
    t.event_id = event_id;
    t.version = version;
    t.keywords = 0x1;
    t.level = 5;
    t.name = name;
    t.known = true;
    v6w_metadata(w, &t, false, NULL, false);
}

#define JITTED 0x8u
#define MS 10000u /* ticks: 10 MHz clock */

/*
 * Stacks, leaf first: 0x10 is native (no method); Old() [0x3000, 0x3100)
 * is unloaded at 15 ms, after tick A, before tick C, and the same range
 * loaded again as New() (JIT-compiled) at 16 ms; M1 [0x1000, 0x1100)
 * JIT-compiled at 1 ms; R2R() [0x2000, 0x2100) loaded precompiled (no name)
 * and named by the rundown's DCStop at the end; Pre() [0x4000, 0x4100) only
 * loaded precompiled: never named.
 */
static membuf synthetic_trace(void)
{
    membuf m = {0};
    v6w w;
    v6w_init(&w, mem_write, &m, true);
    gcs_trace_info ti = {0};
    ti.pointer_size = 8;
    ti.pid = 77;
    ti.cpu_count = 2;
    ti.clock_frequency = 10000000;
    ti.start_ticks = 0;
    ti.start_year = 2026;
    ti.start_month = 11;
    ti.start_day = 28;
    v6w_begin(&w, &ti);
    meta(&w, M_TICK, RUNTIME, 10, 3, "GC/AllocationTick");
    meta(&w, M_LOAD, RUNTIME, 143, 1, "Method/LoadVerbose");
    meta(&w, M_UNLOAD, RUNTIME, 144, 1, "Method/UnloadVerbose");
    meta(&w, M_DCSTOP, RUNDOWN, 144, 1, "Method/DCStopVerbose");
    meta(&w, M_TRIGGER, RUNTIME, 35, 0, "GC/Triggered");
    v6w_thread(&w, 1, 77, 100, NULL);
    v6w_thread(&w, 2, 77, 200, NULL);
    v6w_thread(&w, 3, 77, 300, NULL);

    method(&w, M_LOAD, 1 * MS, 0x1000, 0x100, JITTED, "NS.T", "M1", "void  (int32)");
    method(&w, M_LOAD, 2 * MS, 0x2000, 0x100, 0, "NS.T", "R2RLoad", "void  ()");
    method(&w, M_LOAD, 3 * MS, 0x4000, 0x100, 0, "NS.T", "Pre", "void  ()");
    v6w_flush(&w);
    static const uint64_t s1[] = {0x10, 0x3010, 0x1010}, s2[] = {0x2010, 0x1020};
    const uint64_t *const span1[] = {s1, s2};
    const size_t n1[] = {3, 2};
    stacks(&w, 1, span1, n1, 2);
    tick(&w, 10 * MS, 1, 100, "A");
    tick(&w, 11 * MS, 2, 200, "B");
    /* A GC that B's code induced (Reason 1, Induced), on B's stack. */
    static const uint8_t induced[6] = {1, 0, 0, 0, 0, 0};
    v6w_event g = {.metadata_id = M_TRIGGER, .sorted = true, .sequence = 1, .thread_index = 3,
                   .capture_index = 3, .stack_id = 2, .timestamp = 11 * MS + 5,
                   .payload = induced, .payload_size = sizeof induced};
    v6w_event_add(&w, &g);
    v6w_flush(&w);
    uint64_t idx[2] = {1, 2};
    uint32_t seq[2] = {2, 3};
    v6w_sequence_point(&w, 12 * MS, 0, idx, seq, 2);

    method(&w, M_UNLOAD, 15 * MS, 0x3000, 0x100, JITTED, "NS.T", "Old", "void  ()");
    method(&w, M_LOAD, 16 * MS, 0x3000, 0x100, JITTED, "NS.T", "New", "instance void  ()");
    v6w_flush(&w);
    /* Id 1 again, another stack; 3 is an id no block gives. */
    static const uint64_t s3[] = {0x3010, 0x4010}, s4[] = {0x4010};
    const uint64_t *const span2[] = {s3, s4};
    const size_t n2[] = {2, 1};
    stacks(&w, 1, span2, n2, 2);
    tick(&w, 20 * MS, 1, 300, "C");
    tick(&w, 21 * MS, 3, 400, "D");
    tick(&w, 22 * MS, 2, 500, "E");
    tick(&w, 23 * MS, 0, 600, "F");
    v6w_flush(&w);
    method(&w, M_DCSTOP, 30 * MS, 0x2000, 0x100, 0, "NS.T", "R2R", "void  ()");
    CHECK(v6w_end(&w));
    v6w_free(&w);
    return m;
}

static gcs_allocs *read_allocs(const char *path, const void *data, size_t size,
                               gcs_reader_stats *rs)
{
    gcs_error err;
    gcs_source *src = data ? gcs_source_from_memory(data, size, &err)
                           : gcs_source_open_file(path, &err);
    if (!src)
        return NULL;
    gcs_reader_options o = {0};
    o.want = gcs_allocs_wants;
    o.stacks = true;
    gcs_reader *r = gcs_reader_new(src, &o, &err);
    gcs_allocs *a = gcs_allocs_new();
    const gcs_event *ev;
    gcs_status st;
    while ((st = gcs_reader_next(r, &ev, &err)) == GCS_OK)
        gcs_allocs_feed(a, r, ev);
    CHECK_EQ_INT(st, GCS_END);
    gcs_allocs_finish(a, r);
    if (rs)
        *rs = *gcs_reader_get_stats(r);
    gcs_reader_free(r);
    gcs_source_free(src);
    return a;
}

static const gcs_allocs_row *find_row(const gcs_allocs *a, gcs_allocs_view v, const char *method,
                                      const char *type)
{
    for (size_t i = 0; i < gcs_allocs_count(a, v); i++) {
        const gcs_allocs_row *r = gcs_allocs_at(a, v, i);
        if (strcmp(r->method, method) == 0 && (!type || (r->type && strcmp(r->type, type) == 0)))
            return r;
    }
    return NULL;
}

static uint64_t bytes_of(const gcs_allocs *a, gcs_allocs_view v, const char *method)
{
    const gcs_allocs_row *r = find_row(a, v, method, NULL);
    return r ? r->bytes : 0;
}

static void synthetic_trace_names_frames_as_tracelog(void)
{
    membuf m = synthetic_trace();
    gcs_reader_stats rs;
    gcs_allocs *a = read_allocs(NULL, m.data, m.len, &rs);
    CHECK(a != NULL);
    if (!a) {
        free(m.data);
        return;
    }
    gcs_allocs_stats s;
    gcs_allocs_get_stats(a, &s);
    CHECK_EQ_U64(s.ticks, 6);
    CHECK_EQ_U64(s.bytes, 2100);
    CHECK_EQ_U64(s.ticks_with_stack, 4); /* D names a stack never given; F none */
    CHECK_EQ_U64(rs.stacks_dropped, 1);
    CHECK_EQ_U64(rs.stacks, 4);
    CHECK_EQ_U64(rs.stacks_distinct, 4);
    CHECK_EQ_U64(s.distinct_stacks, 4);
    /* Methods kept: M1, New (JIT-compiled loads), Old (unload), R2R (DCStop). */
    CHECK_EQ_U64(s.methods, 4);
    /* A: 0x10 none, 0x3010 Old() (the unload comes after A), 0x1010 M1.
     * B: 0x2010 R2R() (DCStop; its precompiled load names nothing).
     * C: 0x3010 New() (the unload came before C), 0x4010 none.
     * E: only 0x4010: "?". D, F: no stack. */
    CHECK_EQ_U64(bytes_of(a, GCS_ALLOCS_EXCLUSIVE, "NS.T.Old()"), 100);
    CHECK_EQ_U64(bytes_of(a, GCS_ALLOCS_EXCLUSIVE, "NS.T.R2R()"), 200);
    CHECK_EQ_U64(bytes_of(a, GCS_ALLOCS_EXCLUSIVE, "NS.T.New()"), 300);
    CHECK_EQ_U64(bytes_of(a, GCS_ALLOCS_EXCLUSIVE, GCS_ALLOCS_NO_METHOD), 500);
    CHECK_EQ_U64(bytes_of(a, GCS_ALLOCS_EXCLUSIVE, GCS_ALLOCS_NO_STACK), 1000);
    CHECK_EQ_U64(gcs_allocs_count(a, GCS_ALLOCS_EXCLUSIVE), 5);
    CHECK(find_row(a, GCS_ALLOCS_EXCLUSIVE, "NS.T.Pre()", NULL) == NULL);
    CHECK(find_row(a, GCS_ALLOCS_EXCLUSIVE, "NS.T.R2RLoad()", NULL) == NULL);
    /* Inclusive: M1 under A and B; the signature from its '(' on. */
    CHECK_EQ_U64(bytes_of(a, GCS_ALLOCS_INCLUSIVE, "NS.T.M1(int32)"), 300);
    CHECK_EQ_U64(find_row(a, GCS_ALLOCS_INCLUSIVE, "NS.T.M1(int32)", NULL)->ticks, 2);
    CHECK_EQ_U64(bytes_of(a, GCS_ALLOCS_INCLUSIVE, "NS.T.Old()"), 100);
    CHECK_EQ_U64(bytes_of(a, GCS_ALLOCS_INCLUSIVE, GCS_ALLOCS_NO_METHOD), 500);
    /* Call stacks: the frames that are methods, leaf first. */
    CHECK_EQ_U64(gcs_allocs_stack_count(a), 4);
    const gcs_allocs_stack *st = gcs_allocs_stack_at(a, 0);
    CHECK(st && st->bytes == 500 && st->n_frames == 1 &&
          strcmp(st->frames[0], GCS_ALLOCS_NO_METHOD) == 0);
    st = gcs_allocs_stack_at(a, 2);
    CHECK(st && st->bytes == 200 && st->n_frames == 2 && strcmp(st->frames[0], "NS.T.R2R()") == 0 &&
          strcmp(st->frames[1], "NS.T.M1(int32)") == 0);
    CHECK(gcs_allocs_stack_at(a, 4) == NULL);
    /* The GC trigger: its reason and B's frames. */
    CHECK_EQ_U64(s.triggers, 1);
    CHECK_EQ_U64(s.triggers_with_stack, 1);
    CHECK_EQ_U64(gcs_allocs_trigger_count(a), 1);
    const gcs_allocs_trigger *tr = gcs_allocs_trigger_at(a, 0);
    CHECK(tr && tr->gcs == 1 && strcmp(tr->reason, "Induced") == 0 && tr->n_frames == 2 &&
          strcmp(tr->frames[0], "NS.T.R2R()") == 0);
    /* Rows: most bytes first. */
    CHECK(strcmp(gcs_allocs_at(a, GCS_ALLOCS_EXCLUSIVE, 0)->method, GCS_ALLOCS_NO_STACK) == 0);
    CHECK(gcs_allocs_at(a, GCS_ALLOCS_EXCLUSIVE, 5) == NULL);
    /* By type. */
    const gcs_allocs_row *r = find_row(a, GCS_ALLOCS_BY_TYPE, "NS.T.New()", "C");
    CHECK(r && r->bytes == 300 && r->ticks == 1);
    CHECK(find_row(a, GCS_ALLOCS_BY_TYPE, GCS_ALLOCS_NO_STACK, "F") != NULL);
    CHECK(find_row(a, GCS_ALLOCS_EXCLUSIVE, "NS.T.Old()", NULL)->type == NULL);

    /* The reports. */
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    gcs_error err;
    gcs_allocs_report_options ro = {.format = GCS_ALLOCS_FORMAT_JSON};
    CHECK_EQ_INT(gcs_allocs_report_write(a, f, &ro, &err), GCS_OK);
    fclose(f);
    CHECK(strstr(text, "\"samples\":6,\"bytes\":2100,\"samples_with_stack\":4") != NULL);
    CHECK(strstr(text, "\"over_limit\":0,\"stack_walks_of_other_events\":0,") != NULL);
    CHECK(strstr(text, "{\"type\":\"C\",\"method\":\"NS.T.New()\",\"bytes\":300,\"samples\":1}") !=
          NULL);
    free(text);
    f = open_memstream(&text, &len);
    ro.format = GCS_ALLOCS_FORMAT_CSV;
    ro.trace_name = "t,1";
    ro.limit = 1;
    CHECK_EQ_INT(gcs_allocs_report_write(a, f, &ro, &err), GCS_OK);
    fclose(f);
    CHECK(strcmp(text, "trace,view,type,method,bytes,samples\n"
                       "\"t,1\",exclusive,,(no stack),1000,2\n"
                       "\"t,1\",inclusive,,(no stack),1000,2\n"
                       "\"t,1\",by_type,F,(no stack),600,1\n"
                       "\"t,1\",stack,,?,500,1\n"
                       "\"t,1\",gc_trigger,Induced,NS.T.R2R() <- NS.T.M1(int32),0,1\n") == 0);
    free(text);
    f = open_memstream(&text, &len);
    ro = (gcs_allocs_report_options){.format = GCS_ALLOCS_FORMAT_TABLE, .limit = 2};
    CHECK_EQ_INT(gcs_allocs_report_write(a, f, &ro, &err), GCS_OK);
    fclose(f);
    CHECK(strstr(text, "Stacks: 4 of 6 samples have one (4 distinct); 5 of 8 frames (62.5 %) are in one of the 4 methods") !=
          NULL);
    CHECK(strstr(text, "       0.001  47.6%        2  (no stack)\n") != NULL);
    CHECK(strstr(text, "(3 more rows: --limit N or --format json)") != NULL);
    free(text);
    gcs_allocs_free(a);
    free(m.data);
}

/* Without options.stacks, events keep the container's ids and the reader
 * no stack. */
static void reader_without_stacks_keeps_span_ids(void)
{
    membuf m = synthetic_trace();
    gcs_error err;
    gcs_source *src = gcs_source_from_memory(m.data, m.len, &err);
    gcs_reader *r = gcs_reader_new(src, NULL, &err);
    const gcs_event *ev;
    uint32_t ids[8];
    size_t n = 0;
    while (gcs_reader_next(r, &ev, &err) == GCS_OK)
        if (ev->type->event_id == 10 && n < 8)
            ids[n++] = ev->stack_id;
    CHECK_EQ_U64(n, 6);
    CHECK(n == 6 && ids[0] == 1 && ids[1] == 2 && ids[2] == 1 && ids[3] == 3 && ids[5] == 0);
    const uint64_t *ips;
    size_t k;
    CHECK(!gcs_reader_stack(r, 1, &ips, &k));
    CHECK_EQ_U64(gcs_reader_get_stats(r)->stacks_distinct, 0);
    gcs_reader_free(r);
    gcs_source_free(src);
    free(m.data);
}


/* ---- a hand-made ETL trace ------------------------------------------- */

static void etl_tick(etlw *w, uint32_t cpu, int64_t ts, uint32_t tid, uint64_t amount,
                     bool x86)
{
    static uint8_t guid[16];
    etlw_provider_guid(RUNTIME, guid);
    bb p = {.len = 0};
    bb_u32(&p, (uint32_t)amount);
    bb_u32(&p, 0);
    bb_u16(&p, 0);
    bb_u64(&p, amount);
    if (x86)
        bb_u32(&p, 0x7000);
    else
        bb_u64(&p, 0x7000);
    bb_utf16z(&p, "T");
    bb_u32(&p, 0);
    etlw_event e = {.cpu = cpu, .timestamp = ts, .pid = 900, .tid = tid, .provider = guid,
                    .id = 10, .version = 2, .level = 5, .keywords = 0x1, .writer_32bit = x86,
                    .payload = p.data, .payload_size = (uint32_t)p.len};
    CHECK(etlw_add(w, &e));
}

static void etl_walk(etlw *w, uint32_t cpu, int64_t ts, uint32_t tid, const uint64_t *frames,
                     uint32_t n, bool x86)
{
    static uint8_t guid[16];
    etlw_provider_guid(RUNTIME, guid);
    bb p = {.len = 0};
    bb_u16(&p, 0);
    bb_u8(&p, 0);
    bb_u8(&p, 0);
    bb_u32(&p, n);
    for (uint32_t i = 0; i < n; i++) {
        if (x86)
            bb_u32(&p, (uint32_t)frames[i]);
        else
            bb_u64(&p, frames[i]);
    }
    etlw_event e = {.cpu = cpu, .timestamp = ts, .pid = 900, .tid = tid, .provider = guid,
                    .id = 82, .version = 0, .level = 4, .keywords = 0x40000000,
                    .writer_32bit = x86, .payload = p.data, .payload_size = (uint32_t)p.len};
    CHECK(etlw_add(w, &e));
}

static void etl_method(etlw *w, int64_t ts, uint32_t tid, uint64_t start, const char *name,
                       uint16_t id)
{
    static uint8_t guid[16];
    etlw_provider_guid(RUNTIME, guid);
    bb p = {.len = 0};
    bb_u64(&p, 0x5000 + start);
    bb_u64(&p, 0x6000);
    bb_u64(&p, start);
    bb_u32(&p, 0x100);
    bb_u32(&p, 0x06000001);
    bb_u32(&p, JITTED);
    bb_utf16z(&p, "NS.T");
    bb_utf16z(&p, name);
    bb_utf16z(&p, "void  ()");
    bb_u16(&p, 0);
    etlw_event e = {.cpu = 0, .timestamp = ts, .pid = 900, .tid = tid, .provider = guid,
                    .id = id, .version = 1, .level = 5, .keywords = 0x10,
                    .payload = p.data, .payload_size = (uint32_t)p.len};
    CHECK(etlw_add(w, &e));
}

static void synthetic_etl_walks(void)
{
    membuf m = {0};
    etlw w;
    etlw_init(&w, mem_write, &m);
    w.cpus = 2;
    CHECK(etlw_begin(&w));
    const int64_t t0 = w.start_ticks;
    static const uint64_t f1[] = {0x7FF00050, 0x1010}, f4[] = {0x1020};
    etl_method(&w, t0 + 10, 10, 0x1000, "M1", 143);
    /* Thread 20: a tick, its walk in the other processor's buffer. */
    etl_tick(&w, 0, t0 + 100, 20, 1000, false);
    etl_walk(&w, 1, t0 + 101, 20, f1, 2, false);
    /* Thread 21: a tick, another CLR event, then a walk: the walk is the
     * other event's. */
    etl_tick(&w, 0, t0 + 200, 21, 2000, false);
    etl_method(&w, t0 + 201, 21, 0x2000, "M2", 143);
    etl_walk(&w, 0, t0 + 202, 21, f1, 2, false);
    /* Thread 22: a tick that no walk follows. */
    etl_tick(&w, 1, t0 + 300, 22, 4000, false);
    /* Thread 23, a 32-bit process: 4-byte frames. */
    etl_tick(&w, 1, t0 + 400, 23, 8000, true);
    etl_walk(&w, 1, t0 + 401, 23, f4, 1, true);
    /* A second walk after thread 20's tick: it had its stack. */
    etl_walk(&w, 0, t0 + 500, 20, f1, 2, false);
    /* Thread 24: an unload on another thread between its tick and its walk
     * comes before TraceLog sees the frame: the later JIT-compiled load
     * names it. */
    static const uint64_t f5[] = {0x3010};
    etl_tick(&w, 0, t0 + 600, 24, 16000, false);
    etl_method(&w, t0 + 601, 10, 0x3000, "Old", 144);
    etl_walk(&w, 1, t0 + 602, 24, f5, 1, false);
    etl_method(&w, t0 + 700, 10, 0x3000, "New", 143);
    CHECK(etlw_end(&w));
    etlw_free(&w);

    gcs_allocs *a = read_allocs(NULL, m.data, m.len, NULL);
    CHECK(a != NULL);
    if (a) {
        gcs_allocs_stats s;
        gcs_allocs_get_stats(a, &s);
        CHECK_EQ_U64(s.ticks, 5);
        CHECK_EQ_U64(s.ticks_with_stack, 3);
        CHECK_EQ_U64(s.walks_unpaired, 2);
        CHECK_EQ_U64(s.frames, 4);
        CHECK_EQ_U64(s.frames_resolved, 3);
        CHECK_EQ_U64(bytes_of(a, GCS_ALLOCS_EXCLUSIVE, "NS.T.New()"), 16000);
        CHECK_EQ_U64(bytes_of(a, GCS_ALLOCS_EXCLUSIVE, "NS.T.M1()"), 9000);
        CHECK_EQ_U64(bytes_of(a, GCS_ALLOCS_EXCLUSIVE, GCS_ALLOCS_NO_STACK), 6000);
        CHECK_EQ_U64(gcs_allocs_count(a, GCS_ALLOCS_EXCLUSIVE), 3);
        gcs_allocs_free(a);
    }
    free(m.data);
}

/* ---- against TraceEvent ----------------------------------------------- */

static int cmp_rows_by_name(const void *x, const void *y)
{
    const gcs_allocs_row *p = *(const gcs_allocs_row *const *)x;
    const gcs_allocs_row *q = *(const gcs_allocs_row *const *)y;
    return strcmp(p->method, q->method);
}

/* Lines by their text up to the first tab (strcmp: the oracle's ordinal
 * order for names without characters beyond U+FFFF). */
static int cmp_text(const void *x, const void *y)
{
    const char *p = *(char *const *)x, *q = *(char *const *)y;
    size_t a = strcspn(p, "\t"), b = strcspn(q, "\t");
    int c = strncmp(p, q, a < b ? a : b);
    return c ? c : (a > b) - (a < b);
}

/* "[FIRST|]FRAME|FRAME...\tCOUNTS": a path as the oracle joins it, then
 * the counts (fmt). */
static char *path_line(const char *first, const char *const *frames, size_t n, const char *fmt,
                       ...)
{
    char *line = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&line, &len);
    if (first)
        fputs(first, m);
    for (size_t j = 0; j < n; j++)
        fprintf(m, "%s%s", first || j ? "|" : "", frames[j]);
    fputc('\t', m);
    va_list ap;
    va_start(ap, fmt);
    vfprintf(m, fmt, ap);
    va_end(ap);
    fclose(m);
    return line;
}

/* The lines sorted by their path, written "LABEL\tCOUNTS\tPATH"; frees them. */
static void put_sorted(FILE *f, const char *label, char **lines, size_t n)
{
    qsort(lines, n, sizeof *lines, cmp_text);
    for (size_t i = 0; i < n; i++) {
        char *tab = strchr(lines[i], '\t');
        *tab = '\0';
        fprintf(f, "%s\t%s\t%s\n", label, tab + 1, lines[i]);
        free(lines[i]);
    }
    free(lines);
}

/* The oracle's lines (but its samples) as gcscope's views give them. */
static char *our_lines(const gcs_allocs *a)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    gcs_allocs_stats s;
    gcs_allocs_get_stats(a, &s);
    fprintf(f, "ticks\t%llu\twith_stack\t%llu\tframes\t%llu\tresolved\t%llu\n",
            (unsigned long long)s.ticks, (unsigned long long)s.ticks_with_stack,
            (unsigned long long)s.frames, (unsigned long long)s.frames_resolved);
    static const char *const names[2] = {"exclusive", "inclusive"};
    for (int v = 0; v < 2; v++) {
        size_t n = gcs_allocs_count(a, (gcs_allocs_view)v);
        const gcs_allocs_row **rows = calloc(n + 1, sizeof *rows);
        for (size_t i = 0; i < n; i++)
            rows[i] = gcs_allocs_at(a, (gcs_allocs_view)v, i);
        qsort(rows, n, sizeof *rows, cmp_rows_by_name);
        for (size_t i = 0; i < n; i++) {
            /* TraceEvent's inclusive lines are methods only. */
            if (v == 1 && (strcmp(rows[i]->method, GCS_ALLOCS_NO_METHOD) == 0 ||
                           strcmp(rows[i]->method, GCS_ALLOCS_NO_STACK) == 0))
                continue;
            fprintf(f, "%s\t%llu\t%llu\t%s\n", names[v], (unsigned long long)rows[i]->bytes,
                    (unsigned long long)rows[i]->ticks, rows[i]->method);
        }
        free(rows);
    }
    /* The call stacks, and the GC triggers with their reason first. */
    size_t n = gcs_allocs_stack_count(a);
    char **lines = calloc(n + 1, sizeof *lines);
    for (size_t i = 0; i < n; i++) {
        const gcs_allocs_stack *st = gcs_allocs_stack_at(a, i);
        lines[i] = path_line(NULL, st->frames, st->n_frames, "%llu\t%llu",
                             (unsigned long long)st->bytes, (unsigned long long)st->ticks);
    }
    put_sorted(f, "stack", lines, n);
    n = gcs_allocs_trigger_count(a);
    lines = calloc(n + 1, sizeof *lines);
    for (size_t i = 0; i < n; i++) {
        const gcs_allocs_trigger *t = gcs_allocs_trigger_at(a, i);
        lines[i] = path_line(t->reason, t->frames, t->n_frames, "%llu", (unsigned long long)t->gcs);
    }
    put_sorted(f, "trigger", lines, n);
    fclose(f);
    return text;
}

static char *oracle_lines(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return NULL;
    char *text = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&text, &len);
    char *line = NULL;
    size_t cap = 0;
    while (getline(&line, &cap, f) > 0)
        if (strncmp(line, "sample\t", 7) != 0)
            fputs(line, out);
    free(line);
    fclose(f);
    fclose(out);
    return text;
}

/* First line where a and b differ, for the failure message. */
static void say_first_difference(const char *name, const char *a, const char *b)
{
    size_t line = 1;
    while (*a && *a == *b) {
        if (*a == '\n')
            line++;
        a++;
        b++;
    }
    fprintf(stderr, "%s: differs from TraceEvent at line %zu: ours \"%.80s\" oracle \"%.80s\"\n",
            name, line, a, b);
}

/* Compares trace's views with TraceEvent's lines in oracle: 1 same, 0
 * different (the first difference on stderr), -1 no oracle file. */
static int compare_with_tracelog(const char *trace, const char *oracle, uint64_t *samples,
                                 uint64_t *triggers)
{
    char *theirs = oracle_lines(oracle);
    if (!theirs)
        return -1;
    gcs_allocs *a = read_allocs(trace, NULL, 0, NULL);
    int same = 0;
    if (a) {
        char *ours = our_lines(a);
        same = strcmp(ours, theirs) == 0;
        if (!same)
            say_first_difference(trace, ours, theirs);
        gcs_allocs_stats s;
        gcs_allocs_get_stats(a, &s);
        *samples = s.ticks;
        *triggers = s.triggers;
        free(ours);
        gcs_allocs_free(a);
    }
    free(theirs);
    return same;
}

static void fixtures_against_tracelog(void)
{
    DIR *d = opendir("tests/data");
    CHECK(d != NULL);
    if (!d)
        return;
    struct dirent *e;
    int compared = 0;
    uint64_t ticks = 0, triggers = 0;
    while ((e = readdir(d)) != NULL) {
        size_t n = strlen(e->d_name);
        const char *ext = ".nettrace";
        if (n <= strlen(ext) || strcmp(e->d_name + n - strlen(ext), ext) != 0)
            continue;
        char trace[512], oracle[512];
        snprintf(trace, sizeof trace, "tests/data/%s", e->d_name);
        snprintf(oracle, sizeof oracle, "tests/data/%.*s.oracle-allocs.txt",
                 (int)(n - strlen(ext)), e->d_name);
        uint64_t samples = 0, fixture_triggers = 0;
        int same = compare_with_tracelog(trace, oracle, &samples, &fixture_triggers);
        if (same < 0) {
            /* Every fixture whose samples have stacks has TraceEvent's answer. */
            gcs_allocs *a = read_allocs(trace, NULL, 0, NULL);
            gcs_allocs_stats s = {0};
            if (a)
                gcs_allocs_get_stats(a, &s);
            gcs_allocs_free(a);
            if (s.ticks > 0 || s.triggers > 0)
                fprintf(stderr, "%s: samples or GC triggers but no %s\n", trace, oracle);
            CHECK(s.ticks == 0 && s.triggers == 0);
            continue;
        }
        CHECK(same == 1);
        compared++;
        ticks += samples;
        triggers += fixture_triggers;
    }
    closedir(d);
    printf("allocation samples and GC triggers by stack compared with TraceLog on %d fixtures "
           "(%llu samples, %llu GCTriggered events)\n",
           compared, (unsigned long long)ticks, (unsigned long long)triggers);
    CHECK(compared >= 10);
}

/* test_allocs TRACE ORACLE.txt ...: the same comparison on any traces
 * (scripts/check-oracle.sh --allocs); one line each, exit 1 if any differs. */
static int compare_pairs(int argc, char **argv)
{
    if (argc % 2 != 1) {
        fprintf(stderr, "usage: test_allocs [TRACE ORACLE.txt]...\n");
        return 2;
    }
    int status = 0;
    for (int i = 1; i < argc; i += 2) {
        uint64_t samples = 0, triggers = 0;
        int same = compare_with_tracelog(argv[i], argv[i + 1], &samples, &triggers);
        if (same == 1)
            printf("same %s: allocation samples by stack (%llu samples, %llu GC triggers)\n",
                   argv[i], (unsigned long long)samples, (unsigned long long)triggers);
        else {
            printf("FAIL %s: allocation samples by stack%s\n", argv[i],
                   same < 0 ? ": no oracle file" : "");
            status = 1;
        }
    }
    return status;
}

int main(int argc, char **argv)
{
    if (argc > 1)
        return compare_pairs(argc, argv);
    RUN(stack_table_interns_across_spans);
    RUN(stack_table_many_stacks_and_deep_ones);
    RUN(synthetic_trace_names_frames_as_tracelog);
    RUN(reader_without_stacks_keeps_span_ids);
    RUN(synthetic_etl_walks);
    RUN(fixtures_against_tracelog);
    return check_report("test_allocs");
}
