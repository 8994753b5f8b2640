/*
 * ETL files of our own writer (tests/tools/etl_writer.h) for what the real
 * files in ../shared lack: a 32-bit log, lost events and buffers in the
 * header, records cut at a buffer's end, many processors' buffers
 * interleaved in time (the streaming order, with memory bounded), every
 * cut point of a small file and bit flips; and a real trace converted to
 * ETL that gives the same GCs as the original.
 *
 * The synthetic trace (etlw_synthetic): GC i at start + i * 20,000 ticks
 * (10 MHz: i * 2 ms): SuspendEEStart at +0, SuspendEEStop +100, GCStart
 * +110, GCHeapStats +500 + i%7*10, GCEnd +610 + i%7*10, RestartEEStart
 * +620 + i%7*10, RestartEEStop +670 + i%7*10; so GC i's pause (SuspendEE
 * start to RestartEE stop) is (670 + i%7*10) ticks = 0.067 + i%7 * 0.001
 * ms, generation i%3, reason Induced every fifth GC, else AllocSmall.
 */
#include "check.h"

#include <stdlib.h>
#include <string.h>

#include "gcscope.h"
#include "tools/etl_writer.h"

typedef struct mem_file {
    uint8_t *data;
    size_t len, cap;
} mem_file;

static bool to_mem(void *ctx, const void *data, size_t n)
{
    mem_file *m = ctx;
    if (n > m->cap - m->len) {
        size_t cap = m->cap ? m->cap * 2 : 65536;
        while (cap - m->len < n)
            cap *= 2;
        uint8_t *d = realloc(m->data, cap);
        if (!d)
            return false;
        m->data = d;
        m->cap = cap;
    }
    memcpy(m->data + m->len, data, n);
    m->len += n;
    return true;
}

/* A synthetic file: w's settings from `setup`, then etlw_synthetic. */
static mem_file write_synthetic(const etlw *setup, const etlw_synthetic_opts *o,
                                etlw_synthetic_counts *n)
{
    mem_file m = {0};
    etlw w = *setup;
    w.write = to_mem;
    w.ctx = &m;
    CHECK(etlw_synthetic(&w, o, n));
    etlw_free(&w);
    return m;
}

static etlw defaults(void)
{
    etlw w;
    etlw_init(&w, to_mem, NULL);
    return w;
}

/* What a read of a file gave. */
typedef struct read_result {
    gcs_status status;
    uint64_t offset;
    uint64_t events, gc_events, handle_events, out_of_order;
    gcs_reader_stats stats;
    gcs_trace_info info;
    uint32_t handle_payload_size; /* of the first SetGCHandle */
    uint64_t first_handle_id;     /* its HandleID as decoded */
    double first_suspend_ms;      /* MSec of the first SuspendEEStart */
} read_result;

static read_result read_mem(const uint8_t *data, size_t size, size_t window,
                            gcs_gc_analyzer *an)
{
    read_result res;
    memset(&res, 0, sizeof res);
    res.first_suspend_ms = -1;
    gcs_error err;
    gcs_error_clear(&err);
    gcs_source *src = gcs_source_from_memory(data, size, &err);
    gcs_reader_options opts = {.sort_window_bytes = window};
    gcs_reader *r = gcs_reader_new(src, &opts, &err);
    const gcs_event *ev;
    int64_t last = INT64_MIN;
    while ((res.status = gcs_reader_next(r, &ev, &err)) == GCS_OK) {
        res.events++;
        res.out_of_order += ev->timestamp < last;
        last = ev->timestamp;
        const char *name = ev->type->name;
        if (strstr(name, "GCHandle"))
            res.handle_events++;
        else if (strncmp(name, "GC/", 3) == 0)
            res.gc_events++;
        if (!strcmp(name, "GC/SetGCHandle") && res.handle_payload_size == 0) {
            res.handle_payload_size = ev->payload_size;
            CHECK(gcs_payload_find_u64(ev, "HandleID", &res.first_handle_id));
        }
        if (!strcmp(name, "GC/SuspendEEStart") && res.first_suspend_ms < 0)
            res.first_suspend_ms = ev->msec;
        if (an)
            CHECK_EQ_INT(gcs_gc_analyzer_feed(an, ev), GCS_OK);
    }
    res.offset = err.offset;
    if (res.status < 0)
        CHECK(err.reason[0] != 0);
    res.stats = *gcs_reader_get_stats(r);
    if (gcs_reader_info(r))
        res.info = *gcs_reader_info(r);
    gcs_reader_free(r);
    gcs_source_free(src);
    return res;
}

/* GCs of the synthetic trace, as the analysis rebuilds them. */
static void check_synthetic_gcs(gcs_gc_analyzer *an, uint32_t gcs)
{
    gcs_gc_analyzer_finish(an);
    CHECK_EQ_U64(gcs_gc_process_count(an), 1u);
    if (gcs_gc_process_count(an) != 1)
        return;
    const gcs_gc_process *p = gcs_gc_process_at(an, 0);
    CHECK_EQ_U64(p->pid, ETLW_SYNTH_PID);
    CHECK_EQ_U64(p->gc_count, gcs);
    CHECK_EQ_U64(p->all.num_induced, gcs / 5);
    for (uint32_t i = 1; i <= gcs && i <= p->gc_count; i++) {
        const gcs_gc_info *gc = &p->gcs[i - 1];
        CHECK(gc->is_complete);
        CHECK_EQ_INT(gc->number, (int)i);
        CHECK_EQ_INT(gc->generation, i % 3);
        CHECK_EQ_INT(gc->reason, i % 5 == 0 ? 1 : 0);
        CHECK_NEAR(gc->pause_ms, 0.067 + (i % 7) * 0.001, 1e-9);
        CHECK_NEAR(gc->start_ms, i * 2.0 + 0.011, 1e-9);
    }
}

/* 4 processors, 64-bit log: every event, in order, MSec from the header
 * event, every GC rebuilt. */
static void test_synthetic_64(void)
{
    etlw w = defaults();
    etlw_synthetic_opts o = {30, 200, 3, 0, 0, 0, false};
    etlw_synthetic_counts n;
    mem_file m = write_synthetic(&w, &o, &n);
    CHECK_EQ_U64(n.events, 30u * 207u);
    gcs_gc_analyzer *an = gcs_gc_analyzer_new(NULL, NULL);
    read_result res = read_mem(m.data, m.len, 0, an);
    CHECK_EQ_INT(res.status, GCS_END);
    CHECK_EQ_U64(res.events, n.events + 1); /* and the header event */
    CHECK_EQ_U64(res.gc_events, 30u * 7u);
    CHECK_EQ_U64(res.handle_events, 30u * 200u);
    CHECK_EQ_U64(res.out_of_order, 0u);
    CHECK_EQ_U64(res.stats.anomalies, 0u);
    CHECK_EQ_U64(res.stats.sort_overflows, 0u);
    CHECK_EQ_U64(res.info.pointer_size, 8u);
    CHECK_EQ_U64(res.info.cpu_count, 4u);
    CHECK_EQ_INT(res.info.start_year, 2025);
    CHECK_EQ_INT(res.info.start_month, 3);
    CHECK_EQ_INT(res.info.start_day, 24);
    CHECK_EQ_INT(res.info.start_hour, 12);
    CHECK_EQ_INT(res.info.start_minute, 30);
    CHECK_NEAR(res.first_suspend_ms, 2.0, 1e-9);
    CHECK_EQ_U64(res.handle_payload_size, 2 * 8 + 18u);
    CHECK_EQ_U64(res.first_handle_id, 0x10000000u);
    check_synthetic_gcs(an, 30);
    gcs_gc_analyzer_free(an);
    free(m.data);
}

/* A 32-bit log (SYSTEM32 header event, PointerSize 4, EVENT_HEADER 0x12):
 * 4-byte pointers in the handle events' payloads; the same GCs. */
static void test_synthetic_32(void)
{
    etlw w = defaults();
    w.pointer_size = 4;
    etlw_synthetic_opts o = {12, 50, 2, 0, 0, 0, false};
    etlw_synthetic_counts n;
    mem_file m = write_synthetic(&w, &o, &n);
    gcs_gc_analyzer *an = gcs_gc_analyzer_new(NULL, NULL);
    read_result res = read_mem(m.data, m.len, 0, an);
    CHECK_EQ_INT(res.status, GCS_END);
    CHECK_EQ_U64(res.info.pointer_size, 4u);
    CHECK_EQ_U64(res.events, n.events + 1);
    CHECK_EQ_U64(res.stats.anomalies, 0u);
    CHECK_EQ_U64(res.stats.undecodable_events, 0u);
    CHECK_EQ_U64(res.handle_payload_size, 2 * 4 + 18u);
    CHECK_EQ_U64(res.first_handle_id, 0x10000000u);
    CHECK_NEAR(res.first_suspend_ms, 2.0, 1e-9);
    check_synthetic_gcs(an, 12);
    gcs_gc_analyzer_free(an);
    free(m.data);
}

/* Lost events and buffers in the logfile header: reported as anomalies
 * (the events themselves all read). */
static void test_lost_counters(void)
{
    etlw w = defaults();
    w.events_lost = 17;
    w.buffers_lost = 3;
    etlw_synthetic_opts o = {3, 10, 1, 0, 0, 0, false};
    etlw_synthetic_counts n;
    mem_file m = write_synthetic(&w, &o, &n);
    read_result res = read_mem(m.data, m.len, 0, NULL);
    CHECK_EQ_INT(res.status, GCS_END);
    CHECK_EQ_U64(res.events, n.events + 1);
    CHECK_EQ_U64(res.stats.anomalies, 2u);
    CHECK(strstr(res.stats.first_anomaly, "17 events lost") != NULL);
    free(m.data);
}

/* Records cut at their buffer's end: each skipped and counted as an
 * anomaly, every other event kept, the GCs whole. */
static void test_cut_records(void)
{
    etlw w = defaults();
    w.buffer_size = 4096;
    etlw_synthetic_opts o = {20, 100, 3, 37, 0, 0, false};
    etlw_synthetic_counts n;
    mem_file m = write_synthetic(&w, &o, &n);
    CHECK_EQ_U64(n.cut, 20u * 100u / 37u);
    gcs_gc_analyzer *an = gcs_gc_analyzer_new(NULL, NULL);
    read_result res = read_mem(m.data, m.len, 0, an);
    CHECK_EQ_INT(res.status, GCS_END);
    CHECK_EQ_U64(res.events, n.events + 1);
    CHECK_EQ_U64(res.handle_events, n.handles);
    CHECK_EQ_U64(res.stats.anomalies, n.cut);
    CHECK(strstr(res.stats.first_anomaly, "does not fit") != NULL);
    CHECK_EQ_U64(res.out_of_order, 0u);
    check_synthetic_gcs(an, 20);
    gcs_gc_analyzer_free(an);
    free(m.data);
}

/*
 * 16 processors, 2 KiB buffers, 12 threads: hundreds of buffers whose
 * times interleave. Read with a sort window of 64 KiB (the payloads of a
 * few buffers, a tenth of the file's): the events still come out in exact
 * timestamp order with no window overflow, because the reader releases
 * what no processor can precede any more (failed before: 8 overflows, 8
 * events out of order, GCs 58.. misnumbered).
 */
static void test_many_cpus_streaming(void)
{
    etlw w = defaults();
    w.cpus = 16;
    w.buffer_size = 2048;
    etlw_synthetic_opts o = {60, 400, 12, 0, 0, 0, false};
    etlw_synthetic_counts n;
    mem_file m = write_synthetic(&w, &o, &n);
    CHECK(m.len > 1000 * 2048);
    gcs_gc_analyzer *an = gcs_gc_analyzer_new(NULL, NULL);
    read_result res = read_mem(m.data, m.len, 64 << 10, an);
    CHECK_EQ_INT(res.status, GCS_END);
    CHECK_EQ_U64(res.events, n.events + 1);
    CHECK_EQ_U64(res.out_of_order, 0u);
    CHECK_EQ_U64(res.stats.sort_overflows, 0u);
    check_synthetic_gcs(an, 60);
    gcs_gc_analyzer_free(an);
    free(m.data);
}

/*
 * The header says 9 processors, 8 write (about 22 MB of 64 KiB buffers):
 * after ORDER_WAIT_BYTES (16 MiB) of data buffers the ninth is taken as
 * idle and the merge streams; events in order, no overflow, no anomaly.
 * With a straggler (the ninth writes one early event, its only buffer at
 * the file's end, as CPU 4 in gcevents.etl): counted as an anomaly, the
 * event comes out late (out of order), every GC still rebuilt.
 */
static void test_idle_processor(void)
{
    for (int straggler = 0; straggler < 2; straggler++) {
        etlw w = defaults();
        w.cpus = 9;
        etlw_synthetic_opts o = {110, 2000, 6, 0, 0, 1, straggler == 1};
        etlw_synthetic_counts n;
        mem_file m = write_synthetic(&w, &o, &n);
        CHECK(m.len > (size_t)20 << 20);
        gcs_gc_analyzer *an = gcs_gc_analyzer_new(NULL, NULL);
        read_result res = read_mem(m.data, m.len, 0, an);
        CHECK_EQ_INT(res.status, GCS_END);
        CHECK_EQ_U64(res.events, n.events + 1);
        CHECK_EQ_U64(res.stats.sort_overflows, 0u);
        CHECK_EQ_U64(res.out_of_order, (uint64_t)straggler);
        CHECK_EQ_U64(res.stats.anomalies, (uint64_t)straggler);
        if (straggler)
            CHECK(strstr(res.stats.first_anomaly, "processor 8's first buffer") != NULL);
        check_synthetic_gcs(an, 110);
        gcs_gc_analyzer_free(an);
        free(m.data);
    }
}

/*
 * Every cut point of a small file (1 KiB buffers): a cut at a buffer
 * boundary is a clean end with the events of the buffers before it; a cut
 * inside a buffer is "truncated" at that buffer's offset, with exactly the
 * events of the buffers before it (they are kept and delivered).
 */
static void test_every_cut(void)
{
    etlw w = defaults();
    w.buffer_size = 1024;
    etlw_synthetic_opts o = {3, 12, 2, 0, 0, 0, false};
    etlw_synthetic_counts n;
    mem_file m = write_synthetic(&w, &o, &n);
    size_t buffers = m.len / 1024;
    CHECK(buffers >= 4);
    uint64_t *events_before = calloc(buffers + 1, sizeof *events_before);
    for (size_t k = 0; k <= buffers; k++) {
        read_result res = read_mem(m.data, k * 1024, 0, NULL);
        CHECK_EQ_INT(res.status, k == 0 ? GCS_ERR_NOT_TRACE : GCS_END);
        events_before[k] = res.events;
    }
    CHECK_EQ_U64(events_before[buffers], n.events + 1);
    unsigned bad = 0;
    for (size_t cut = 1; cut < m.len; cut++) {
        if (cut % 1024 == 0)
            continue;
        read_result res = read_mem(m.data, cut, 0, NULL);
        size_t k = cut / 1024;
        if (k == 0) {
            bad += res.status >= 0; /* too short to be anything but an error */
            continue;
        }
        bad += res.status != GCS_ERR_TRUNCATED || res.offset != k * 1024 ||
               res.events != events_before[k];
    }
    CHECK_EQ_INT(bad, 0);
    printf("every cut: %zu cut points of %zu buffers\n", m.len - 1, buffers);
    free(events_before);
    free(m.data);
}

/* Bit flips: a status (with a reason when an error), never a crash. */
static void test_bit_flips(void)
{
    etlw w = defaults();
    w.buffer_size = 2048;
    etlw_synthetic_opts o = {6, 40, 3, 9, 0, 0, false};
    etlw_synthetic_counts n;
    mem_file m = write_synthetic(&w, &o, &n);
    uint8_t *copy = malloc(m.len);
    uint64_t seed = 0x2545F4914F6CDD1Dull;
    unsigned errors = 0;
    for (unsigned i = 0; i < 400; i++) {
        memcpy(copy, m.data, m.len);
        for (int k = 0; k < 3; k++) {
            seed = seed * 6364136223846793005ull + 1442695040888963407ull;
            size_t at = (size_t)(seed >> 33) % m.len;
            copy[at] ^= (uint8_t)(1u << ((seed >> 20) & 7));
        }
        read_result res = read_mem(copy, m.len, 0, NULL);
        errors += res.status < 0;
        CHECK(res.status == GCS_END || res.status < 0);
    }
    printf("bit flips: 400 copies, %u ended in an error\n", errors);
    free(copy);
    free(m.data);
}

/* A real trace written as ETL by etlw_convert (per-thread processors,
 * 8 KiB buffers): the same events, and the same GCs to the microsecond. */
static void test_converted_same_gcs(void)
{
    const char *path = TEST_DATA("gen0size-small.nettrace");
    size_t size;
    uint8_t *data = check_read_file(path, &size);
    CHECK(data != NULL);
    if (!data)
        return;
    gcs_gc_analyzer *orig = gcs_gc_analyzer_new(NULL, NULL);
    read_result a = read_mem(data, size, 0, orig);
    CHECK_EQ_INT(a.status, GCS_END);

    gcs_error err;
    gcs_error_clear(&err);
    gcs_source *src = gcs_source_from_memory(data, size, &err);
    gcs_reader *r = gcs_reader_new(src, NULL, &err);
    mem_file m = {0};
    etlw w = defaults();
    w.ctx = &m;
    w.cpus = 6;
    w.buffer_size = 8192;
    CHECK_EQ_INT(etlw_convert(r, &w, 0, &err), GCS_OK);
    etlw_free(&w);
    gcs_reader_free(r);
    gcs_source_free(src);

    gcs_gc_analyzer *conv = gcs_gc_analyzer_new(NULL, NULL);
    read_result b = read_mem(m.data, m.len, 0, conv);
    CHECK_EQ_INT(b.status, GCS_END);
    CHECK_EQ_U64(b.events, a.events + 1); /* the header event */
    CHECK_EQ_U64(b.gc_events, a.gc_events);
    CHECK_EQ_U64(b.out_of_order, 0u);
    gcs_gc_analyzer_finish(orig);
    gcs_gc_analyzer_finish(conv);
    CHECK_EQ_U64(gcs_gc_process_count(conv), gcs_gc_process_count(orig));
    if (gcs_gc_process_count(conv) == 1 && gcs_gc_process_count(orig) == 1) {
        const gcs_gc_process *p = gcs_gc_process_at(orig, 0), *q = gcs_gc_process_at(conv, 0);
        CHECK(p->gc_count > 10);
        CHECK_EQ_U64(q->gc_count, p->gc_count);
        for (size_t i = 0; i < p->gc_count && i < q->gc_count; i++) {
            CHECK_EQ_INT(q->gcs[i].number, p->gcs[i].number);
            CHECK_EQ_INT(q->gcs[i].generation, p->gcs[i].generation);
            CHECK_NEAR(q->gcs[i].pause_ms, p->gcs[i].pause_ms, 1e-9);
            CHECK_NEAR(q->gcs[i].start_ms, p->gcs[i].start_ms, 1e-9);
            CHECK_NEAR(q->gcs[i].heap_size_after_mb, p->gcs[i].heap_size_after_mb, 1e-9);
        }
    }
    gcs_gc_analyzer_free(orig);
    gcs_gc_analyzer_free(conv);
    free(m.data);
    free(data);
}

int main(void)
{
    RUN(test_synthetic_64);
    RUN(test_synthetic_32);
    RUN(test_lost_counters);
    RUN(test_cut_records);
    RUN(test_many_cpus_streaming);
    RUN(test_idle_processor);
    RUN(test_every_cut);
    RUN(test_bit_flips);
    RUN(test_converted_same_gcs);
    return check_report("test_etl_writer");
}
