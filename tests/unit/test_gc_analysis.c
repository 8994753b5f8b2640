/*
 * test_gc_analysis.c - the GC state machine fed with synthetic typed
 * sequences (no trace file). Every expected number is worked out by hand in
 * the comments, following TraceEvent's rules (docs/gc-stats.md).
 */
#include <math.h>
#include <stdlib.h>

#include "analysis/gc/gc_analyzer.h"
#include "unit/check.h"
#include "unit/gc_synth.h"

#define PID 100
#define EPS 1e-9

static gcs_gc_analyzer *an;

static void feed(double ms, uint64_t tid, const gcs_gc_record *r)
{
    gcs_gc_event_ctx ctx = {PID, tid, ms};
    CHECK_EQ_INT(gcs_gc_analyzer_feed_record(an, &ctx, r), GCS_OK);
}

static gcs_gc_record rec(gcs_gc_kind k)
{
    gcs_gc_record r = gc_synth_record(k, 1);
    r.clr_instance_id = 7;
    return r;
}

static void suspend(double ms, uint64_t tid, uint32_t reason)
{
    gcs_gc_record r = rec(GCS_GCK_SUSPEND_EE_BEGIN);
    r.u.suspend_ee_begin.reason = reason;
    feed(ms, tid, &r);
}
static void suspend_end(double ms, uint64_t tid)
{
    gcs_gc_record r = rec(GCS_GCK_SUSPEND_EE_END);
    feed(ms, tid, &r);
}
static void restart_end(double ms, uint64_t tid)
{
    gcs_gc_record r = rec(GCS_GCK_RESTART_EE_END);
    feed(ms, tid, &r);
}
static void gc_start(double ms, uint64_t tid, uint32_t number, uint32_t depth, uint32_t reason,
                     uint32_t type)
{
    gcs_gc_record r = rec(GCS_GCK_START);
    r.version = 2;
    r.u.start.count = number;
    r.u.start.depth = depth;
    r.u.start.reason = reason;
    r.u.start.type = type;
    feed(ms, tid, &r);
}
static void gc_end(double ms, uint64_t tid, uint32_t number)
{
    gcs_gc_record r = rec(GCS_GCK_END);
    r.u.end.count = number;
    feed(ms, tid, &r);
}
/* Sizes and promoted bytes of generations 0,1,2,LOH,POH. */
static void heap_stats(double ms, uint64_t tid, const uint64_t size[5], const uint64_t promoted[5],
                       uint64_t fin_promoted, uint32_t pinned)
{
    gcs_gc_record r = rec(GCS_GCK_HEAP_STATS);
    r.version = 2;
    for (int g = 0; g < 5; g++) {
        r.u.heap_stats.generation_size[g] = size[g];
        r.u.heap_stats.total_promoted_size[g] = promoted[g];
    }
    r.u.heap_stats.finalization_promoted_size = fin_promoted;
    r.u.heap_stats.pinned_object_count = pinned;
    feed(ms, tid, &r);
}
static void tick(double ms, uint32_t kind, uint64_t amount)
{
    gcs_gc_record r = rec(GCS_GCK_ALLOCATION_TICK);
    r.version = 4;
    r.u.allocation_tick.allocation_kind = kind;
    r.u.allocation_tick.allocation_amount64 = amount;
    r.u.allocation_tick.allocation_amount = (uint32_t)amount;
    feed(ms, 1, &r);
}

static const gcs_gc_process *finish_one(void)
{
    gcs_gc_analyzer_finish(an);
    CHECK_EQ_U64(gcs_gc_process_count(an), 1);
    const gcs_gc_process *p = gcs_gc_process_at(an, 0);
    CHECK(p != NULL);
    return p;
}

static void fresh(void)
{
    gcs_gc_analyzer_free(an);
    an = gcs_gc_analyzer_new(NULL, NULL);
}

/* A complete blocking GC: SS SE GS GE HS RS RE on thread tid. */
static void blocking(double t0, uint64_t tid, uint32_t number, uint32_t gen, uint32_t reason,
                     const uint64_t size[5], const uint64_t promoted[5])
{
    suspend(t0, tid, 1);
    suspend_end(t0 + 0.2, tid);
    gc_start(t0 + 0.3, tid, number, gen, reason, 0);
    gc_end(t0 + 1.3, tid, number);
    heap_stats(t0 + 1.4, tid, size, promoted, 0, 0);
    restart_end(t0 + 1.6, tid);
}

static void test_blocking_gen0(void)
{
    fresh();
    static const uint64_t s1[5] = {1000000, 2000000, 3000000, 4000000, 500000};
    static const uint64_t p1[5] = {100000, 200000, 0, 0, 0};
    static const uint64_t s2[5] = {500000, 1000000, 3000000, 4000000, 600000};
    static const uint64_t s3[5] = {700000, 1000000, 3000000, 4500000, 500000};
    static const uint64_t p0[5] = {0};
    tick(1, 0, 100000);
    tick(2, 0, 100000);
    tick(3, 0, 100000);
    tick(4, 1, 200000);
    tick(5, 2, 400000); /* pinned: kept in its own bucket, used by nothing */
    /* GC 1 at 10: SS 10.0, SE 10.2, GS 10.3, GE 11.3, HS 11.4, RE 11.6 */
    blocking(10, 5, 1, 0, 0, s1, p1);
    tick(15, 0, 200000);
    /* GC 2 at 20, gen1 induced */
    blocking(20, 5, 2, 1, 1, s2, p0);
    /* GC 3 at 30, gen0 */
    blocking(30, 5, 3, 0, 0, s3, p0);
    const gcs_gc_process *p = finish_one();
    CHECK_EQ_U64(p->gc_count, 3);
    CHECK_EQ_INT(p->clr_instance_id, 7);
    const gcs_gc_info *g = &p->gcs[0];
    CHECK_EQ_INT(g->number, 1);
    CHECK(g->is_complete);
    CHECK_NEAR(g->pause_start_ms, 10.0, EPS);
    CHECK_NEAR(g->start_ms, 10.3, EPS);
    CHECK_NEAR(g->suspend_ms, 0.2, EPS);
    CHECK_NEAR(g->duration_ms, 1.0, EPS);
    CHECK_NEAR(g->pause_ms, 1.6, EPS);
    /* First GC: since the "last restart" at time 0. */
    CHECK_NEAR(g->duration_since_last_restart_ms, 10.0, EPS);
    CHECK_NEAR(g->heap_size_after_mb, 10.5, EPS);
    CHECK_NEAR(g->promoted_mb, 0.3, EPS);
    /* Index 0, no per-heap histories: gen0 before = tick small = 0.3 MB. */
    CHECK_NEAR(g->gen_size_before_mb[0], 0.3, EPS);
    CHECK_NEAR(g->heap_size_before_mb, 0.3, EPS);
    CHECK_NEAR(g->heap_size_peak_mb, 0.3, EPS);
    CHECK_NEAR(g->ratio_peak_after, 0.3 / 10.5, EPS);
    /* Tick-only allocation: gen0 0.3, LOH 0.2 and POH the LOH bucket again. */
    CHECK_NEAR(g->user_allocated_mb[0], 0.3, EPS);
    CHECK_NEAR(g->user_allocated_mb[3], 0.2, EPS);
    CHECK_NEAR(g->user_allocated_mb[4], 0.2, EPS);
    CHECK_NEAR(g->allocated_since_last_gc_mb, 0.7, EPS);
    CHECK_NEAR(g->alloc_tick_mb[2], 0.4, EPS);
    CHECK_NEAR(g->alloc_rate_mb_s, 70.0, 1e-6);
    CHECK_NEAR(g->pause_time_pct, 1.6 * 100 / 11.6, EPS);
    CHECK(isnan(g->survival_pct[0]));
    CHECK(isnan(g->fragmentation_pct[0]));
    CHECK_NEAR(g->gen_size_after_mb[4], 0.5, EPS);

    g = &p->gcs[1];
    CHECK_EQ_INT(g->generation, 1);
    CHECK_NEAR(g->pause_ms, 1.6, EPS);
    /* Since the previous GCHeapStats at 11.4. */
    CHECK_NEAR(g->duration_since_last_restart_ms, 20.0 - 11.4, EPS);
    /* Index 1: the backward search stops at list[0] -> 0 for every gen. */
    CHECK_NEAR(g->heap_size_before_mb, 0.0, EPS);
    CHECK_NEAR(g->ratio_peak_after, 0.0, EPS);
    CHECK_NEAR(g->allocated_since_last_gc_mb, 0.2, EPS);
    CHECK_NEAR(g->alloc_rate_mb_s, 0.2 * 1000 / 8.6, 1e-9);

    g = &p->gcs[2];
    /* list[1] has heap stats: gen0 max(0.5, tick 0) ... LOH max(4.0, 4.5), POH max(0.6, 0.5) */
    CHECK_NEAR(g->gen_size_before_mb[0], 0.5, EPS);
    CHECK_NEAR(g->gen_size_before_mb[1], 1.0, EPS);
    CHECK_NEAR(g->gen_size_before_mb[2], 3.0, EPS);
    CHECK_NEAR(g->gen_size_before_mb[3], 4.5, EPS);
    CHECK_NEAR(g->gen_size_before_mb[4], 0.6, EPS);
    CHECK_NEAR(g->heap_size_before_mb, 9.6, EPS);
    CHECK_NEAR(g->heap_size_after_mb, 9.7, EPS);

    /* Rollups. */
    CHECK_EQ_INT(p->all.count, 3);
    CHECK_EQ_INT(p->all.num_induced, 1);
    CHECK_NEAR(p->all.total_pause_ms, 4.8, EPS);
    CHECK_NEAR(p->all.max_pause_ms, 1.6, EPS);
    CHECK_NEAR(p->all.mean_pause_ms, 1.6, EPS);
    CHECK_NEAR(p->all.max_size_peak_mb, 9.6, EPS);
    CHECK_NEAR(p->all.max_alloc_rate_mb_s, 70.0, 1e-6);
    CHECK_NEAR(p->all.total_allocated_mb, 0.7 + 0.2 + 0.0, EPS);
    CHECK_EQ_INT(p->gen[0].count, 2);
    CHECK_EQ_INT(p->gen[1].count, 1);
    CHECK_EQ_INT(p->gen[1].num_induced, 1);
    CHECK_EQ_INT(p->gen[2].count, 0);
    CHECK(isnan(p->gen[2].mean_pause_ms));
    /* ProcessDuration: last GCHeapStats (31.4) - first pause start (10.0). */
    CHECK_NEAR(p->process_duration_ms, 21.4, EPS);
    CHECK_NEAR(p->pause_time_pct, 4.8 * 100 / 21.4, EPS);
    CHECK_EQ_INT(p->pct_all.count, 3);
    CHECK_NEAR(p->pct_all.p50, 1.6, EPS);
    CHECK_EQ_INT(p->pct_kind[GCS_GC_NONCONCURRENT].count, 3);
    CHECK_EQ_INT(p->pct_kind[GCS_GC_BACKGROUND].count, 0);
    CHECK_EQ_U64(p->histogram[3], 3); /* 1.6 ms: bucket 3 = [1, 5) */
    CHECK_EQ_U64(p->problems.incomplete_gcs, 0);
    CHECK_EQ_U64(p->problems.number_jumps, 0);
    CHECK_EQ_STR(p->gc_mode, "unknown");
}

/* Previous blocking gen1 GC (#1) then a BGC (#2) with `fgcs` foreground GCs
 * at 3100, 3150 (each SS SE GS GE HS RE, 1.5 ms pauses). */
static const gcs_gc_process *bgc_sequence(int fgcs)
{
    fresh();
    static const uint64_t s[5] = {1000000, 1000000, 2000000, 0, 0};
    static const uint64_t sb[5] = {1500000, 1000000, 2500000, 0, 0};
    static const uint64_t p0[5] = {0};
    /* #1: SS 1.0, SE 1.2, GS 1.3, GE 2.3, HS 2.4, RE 2.6 */
    blocking(1, 50, 1, 1, 0, s, p0);
    suspend(3000.0, 50, 1);
    suspend_end(3000.2, 50);
    gc_start(3000.3, 50, 2, 2, 0, 1);
    restart_end(3001.0, 50);
    for (int k = 0; k < fgcs; k++) {
        double t = 3100.0 + 50.0 * k;
        suspend(t, 51, 1);
        suspend_end(t + 0.1, 51);
        gc_start(t + 0.2, 51, (uint32_t)(3 + k), 0, 0, 2);
        gc_end(t + 1.2, 51, (uint32_t)(3 + k));
        heap_stats(t + 1.3, 51, s, p0, 0, 0);
        restart_end(t + 1.5, 51);
    }
    suspend(3200.0, 60, 6);
    suspend_end(3200.3, 60);
    restart_end(3200.8, 60);
    gc_end(3300.3, 60, 2);
    heap_stats(3300.4, 60, sb, p0, 0, 0);
    return finish_one();
}

static void check_bgc(const gcs_gc_process *p, int fgcs)
{
    CHECK_EQ_U64(p->gc_count, (uint64_t)(2 + fgcs));
    const gcs_gc_info *b = &p->gcs[1];
    CHECK_EQ_INT(b->number, 2);
    CHECK_EQ_INT(b->type, GCS_GC_BACKGROUND);
    CHECK(b->is_complete);
    CHECK_NEAR(b->pause_start_ms, 3000.0, EPS);
    /* initial 0.2 + GC-prep 0.3 */
    CHECK_NEAR(b->suspend_ms, 0.5, EPS);
    /* first RE: 3001.0 - 3000.0 = 1.0, then + (3200.8 - 3200.0) */
    CHECK_NEAR(b->pause_ms, 1.8, EPS);
    CHECK_NEAR(b->bgc_final_pause_ms, 0.8, EPS);
    CHECK_NEAR(b->duration_ms, 300.0, EPS);
    /* BGC: since the last GCHeapStats before its own (3300.4). */
    double last_hs = fgcs ? 3100.0 + 50.0 * (fgcs - 1) + 1.3 : 2.4;
    CHECK_NEAR(b->duration_since_last_restart_ms, 3300.4 - last_hs, 1e-9);
    /* % pause: previous list entry #1 stopped at 1.3 + 1.0 = 2.3. */
    CHECK_NEAR(b->pause_time_pct, 1.8 * 100 / (3300.3 - 2.3), 1e-12);
    /* Index 1: size before is 0 (search stops at list[0]); the peak takes
     * the foreground GCs that paused during the BGC: their size before is
     * list[1]'s (the BGC's own) heap stats = 1.5+1+2.5 = 5.0 MB. */
    CHECK_NEAR(b->heap_size_before_mb, 0.0, EPS);
    CHECK_NEAR(b->heap_size_peak_mb, fgcs ? 5.0 : 0.0, EPS);
    CHECK_NEAR(b->heap_size_after_mb, 5.0, EPS);
    for (int k = 0; k < fgcs; k++) {
        const gcs_gc_info *f = &p->gcs[2 + k];
        CHECK_EQ_INT(f->type, GCS_GC_FOREGROUND);
        CHECK(f->is_complete);
        CHECK_NEAR(f->pause_start_ms, 3100.0 + 50.0 * k, EPS);
        CHECK_NEAR(f->suspend_ms, 0.1, EPS);
        CHECK_NEAR(f->pause_ms, 1.5, EPS);
        CHECK_NEAR(f->duration_ms, 1.0, EPS);
        /* first FGC: list[1] (the BGC) stats = 5.0; second: the first FGC's = 4.0 */
        CHECK_NEAR(f->heap_size_before_mb, k == 0 ? 5.0 : 4.0, EPS);
    }
    CHECK_EQ_INT(p->all.count, 2 + fgcs);
    CHECK_NEAR(p->all.total_pause_ms, 1.6 + 1.8 + 1.5 * fgcs, 1e-9);
    CHECK_EQ_INT(p->pct_kind[GCS_GC_BACKGROUND].count, 1);
    CHECK_NEAR(p->pct_kind[GCS_GC_BACKGROUND].max, 1.8, EPS);
    CHECK_EQ_INT(p->pct_kind[GCS_GC_FOREGROUND].count, fgcs);
    CHECK_EQ_INT(p->gen[2].count, 1);
    CHECK_EQ_INT(p->concurrent, 1);
    /* ProcessDuration = 3300.4 - 1.0 */
    CHECK_NEAR(p->process_duration_ms, 3299.4, 1e-9);
}

static void test_bgc_no_fgc(void) { check_bgc(bgc_sequence(0), 0); }
static void test_bgc_one_fgc(void) { check_bgc(bgc_sequence(1), 1); }
static void test_bgc_two_fgcs(void) { check_bgc(bgc_sequence(2), 2); }

/* The trace starts inside GC #5: its GCStart finds no suspension and is
 * dropped; its GCEnd/HeapStats are orphans, but HeapStats still moves the
 * "last restart" time. */
static void test_trace_starts_mid_gc(void)
{
    fresh();
    static const uint64_t s[5] = {1000000, 0, 0, 0, 0};
    static const uint64_t p0[5] = {0};
    gc_start(0.5, 9, 5, 0, 0, 0);
    gc_end(0.9, 9, 5);
    heap_stats(1.0, 9, s, p0, 0, 0);
    restart_end(1.2, 9);
    blocking(10, 9, 6, 0, 0, s, p0);
    const gcs_gc_process *p = finish_one();
    CHECK_EQ_U64(p->gc_count, 1);
    CHECK_EQ_INT(p->gcs[0].number, 6);
    CHECK(p->gcs[0].is_complete);
    CHECK_NEAR(p->gcs[0].duration_since_last_restart_ms, 9.0, EPS);
    CHECK_NEAR(p->gcs[0].pause_ms, 1.6, EPS);
    CHECK_EQ_U64(p->problems.starts_without_suspension, 1);
    CHECK_EQ_U64(p->problems.orphan_events, 2);
    CHECK_EQ_U64(p->problems.incomplete_gcs, 0);
}

/* GC #1 loses its GCEnd: at RestartEEEnd its duration is 0, TraceEvent
 * treats it as a concurrent GC and never completes it. */
static void test_missing_gc_end(void)
{
    fresh();
    static const uint64_t s[5] = {1000000, 0, 0, 0, 0};
    static const uint64_t p0[5] = {0};
    suspend(10, 5, 1);
    suspend_end(10.2, 5);
    gc_start(10.3, 5, 1, 0, 0, 0);
    heap_stats(11.4, 5, s, p0, 0, 0);
    restart_end(11.6, 5);
    blocking(20, 5, 2, 0, 0, s, p0);
    const gcs_gc_process *p = finish_one();
    CHECK_EQ_U64(p->gc_count, 2);
    CHECK(!p->gcs[0].is_complete);
    CHECK_EQ_INT(p->gcs[0].incomplete_reason, GCS_GC_INC_NO_END);
    CHECK(p->gcs[1].is_complete);
    CHECK_EQ_U64(p->problems.incomplete_gcs, 1);
    CHECK_EQ_INT(p->all.count, 1);
    CHECK_EQ_INT(p->pct_all.count, 1);
    /* #2's size before: list[0] has heap stats but is never examined. */
    CHECK_NEAR(p->gcs[1].heap_size_before_mb, 0.0, EPS);
    /* ProcessDuration starts at the first *complete* GC. */
    CHECK_NEAR(p->process_duration_ms, 21.4 - 20.0, EPS);
}

/* Lost events: #1 loses RestartEEEnd (stays incomplete: no restart), #2
 * loses SuspendEEEnd: TraceEvent would reuse #1's SuspendEEEnd time and
 * print a negative suspension; we mark #2 incomplete (bad times). */
static void test_lost_events(void)
{
    fresh();
    static const uint64_t s[5] = {1000000, 0, 0, 0, 0};
    static const uint64_t p0[5] = {0};
    suspend(10, 5, 1);
    suspend_end(10.2, 5);
    gc_start(10.3, 5, 1, 0, 0, 0);
    gc_end(11.3, 5, 1);
    heap_stats(11.4, 5, s, p0, 0, 0);
    /* RestartEEEnd lost */
    suspend(20, 5, 1);
    /* SuspendEEEnd lost */
    gc_start(20.3, 5, 2, 0, 0, 0);
    gc_end(21.3, 5, 2);
    heap_stats(21.4, 5, s, p0, 0, 0);
    restart_end(21.6, 5);
    blocking(30, 5, 3, 0, 0, s, p0);
    gcs_gc_analyzer_set_lost_events(an, 2);
    const gcs_gc_process *p = finish_one();
    CHECK_EQ_U64(p->gc_count, 3);
    CHECK(!p->gcs[0].is_complete);
    CHECK_EQ_INT(p->gcs[0].incomplete_reason, GCS_GC_INC_NO_RESTART);
    CHECK(!p->gcs[1].is_complete);
    CHECK_EQ_INT(p->gcs[1].incomplete_reason, GCS_GC_INC_BAD_TIMES);
    CHECK(isnan(p->gcs[1].suspend_ms)); /* 10.2 - 20.0 < 0: not printed */
    CHECK(p->gcs[2].is_complete);
    CHECK_EQ_U64(p->problems.bad_times, 1);
    CHECK_EQ_U64(p->problems.incomplete_gcs, 2);
    CHECK_EQ_U64(p->problems.lost_events, 2);
    CHECK_EQ_INT(p->all.count, 1);
    CHECK(p->all.max_pause_ms >= 0);
}

static void test_gc_numbers_jump(void)
{
    fresh();
    static const uint64_t s[5] = {1000000, 0, 0, 0, 0};
    static const uint64_t p0[5] = {0};
    blocking(10, 5, 1, 0, 0, s, p0);
    blocking(20, 5, 5, 0, 0, s, p0);
    blocking(30, 5, 6, 0, 0, s, p0);
    /* a duplicate GCStart of #6 is dropped */
    gc_start(40.0, 5, 6, 0, 0, 0);
    const gcs_gc_process *p = finish_one();
    CHECK_EQ_U64(p->gc_count, 3);
    CHECK_EQ_INT(p->gcs[1].number, 5);
    CHECK_EQ_U64(p->problems.number_jumps, 1);
    CHECK_EQ_U64(p->problems.duplicate_starts, 0); /* no suspension open any more */
    CHECK_EQ_U64(p->problems.starts_without_suspension, 1);
    CHECK_EQ_INT(p->all.count, 3);
}

/* ---- server GC: per-heap histories built as real payloads ---- */

typedef struct pbuf {
    uint8_t b[2048];
    size_t n;
} pbuf;
static void put(pbuf *p, uint64_t v, int bytes)
{
    for (int i = 0; i < bytes; i++)
        p->b[p->n++] = (uint8_t)(v >> (8 * i));
}

/* One GCPerHeapHistory V3 (P=8) with 5 generations; generation g of heap h
 * has size_before = base*(g+1) + h*100000, free list/obj before 10000/5000,
 * size_after 500000*(g+1), free list/obj after 20000/10000, survivors
 * 1000 pinned + 99000 not, budget 7000000. */
static void per_heap_values(double ms, uint64_t tid, uint32_t h, uint32_t r0, uint32_t r1,
                            const uint64_t v[5][10]);
static void per_heap(double ms, uint64_t tid, uint64_t base, uint32_t h, uint32_t r0, uint32_t r1)
{
    uint64_t v[5][10];
    for (uint64_t g = 0; g < 5; g++) {
        uint64_t gv[10] = {base * (g + 1) + h * 100000, 10000, 5000, 500000 * (g + 1), 20000,
                           10000, 0, 1000, 99000, 7000000};
        memcpy(v[g], gv, sizeof gv);
    }
    per_heap_values(ms, tid, h, r0, r1, v);
}

/* The same with every value given: v[g] = size before, free list before,
 * free obj before, size after, free list after, free obj after, in, pinned
 * survivors, non-pinned survivors, budget. */
static void per_heap_values(double ms, uint64_t tid, uint32_t h, uint32_t r0, uint32_t r1,
                            const uint64_t v[5][10])
{
    pbuf p = {{0}, 0};
    put(&p, 7, 2);
    for (int i = 0; i < 6; i++)
        put(&p, 0, 8);
    put(&p, 0, 4);
    put(&p, r0, 4);
    put(&p, r1, 4);
    put(&p, 0, 4);
    put(&p, 0, 4);
    put(&p, h, 4);
    put(&p, 0, 8);
    put(&p, 5, 4);
    for (int g = 0; g < 5; g++)
        for (int i = 0; i < 10; i++)
            put(&p, v[g][i], 8);
    gcs_gc_record r;
    CHECK_EQ_INT(gcs_gc_decode_payload(GCS_GCK_PER_HEAP_HISTORY, 3, p.b, (uint32_t)p.n, 8, &r, NULL),
                 GCS_OK);
    feed(ms, tid, &r);
}

static void global_history(double ms, uint64_t tid, int32_t heaps)
{
    gcs_gc_record r = rec(GCS_GCK_GLOBAL_HEAP_HISTORY);
    r.version = 4;
    r.u.global_heap_history.num_heaps = heaps;
    feed(ms, tid, &r);
}

static void server_gc(double t0, uint32_t number, uint32_t gen, uint64_t base, const uint32_t r0[2],
                      const uint32_t r1[2])
{
    static const uint64_t s[5] = {1000000, 1000000, 1000000, 2000000, 2500000};
    static const uint64_t p0[5] = {0};
    suspend(t0, 70, 1);
    suspend_end(t0 + 0.1, 70);
    gc_start(t0 + 0.2, 70, number, gen, 0, 0);
    global_history(t0 + 0.9, 70, 2);
    per_heap(t0 + 0.95, 71, base, 0, r0[0], r1[0]);
    per_heap(t0 + 0.96, 72, base, 1, r0[1], r1[1]);
    gc_end(t0 + 1.2, 70, number);
    heap_stats(t0 + 1.3, 70, s, p0, 0, 0);
    restart_end(t0 + 1.5, 70);
}

static void test_server_two_heaps(void)
{
    fresh();
    /* GC #1 gen0: initial 1, final 1, alloc budget 1 on heap 0 (no low ephemeral). */
    static const uint32_t r0a[2] = {1 | 4 | 16, 1 | 4 | 16}, r1a[2] = {0, 0};
    /* GC #2 gen1: heap 0 final gen 0, heap 1 final gen 1 (the "first
     * highest"): its reasons count: alloc budget gen 1, eph_high_frag. */
    static const uint32_t r0b[2] = {1 | 0 | 16, 1 | 4 | 16}, r1b[2] = {1u << 4, 1u << 6};
    server_gc(10, 1, 0, 1000000, r0a, r1a);
    server_gc(20, 2, 1, 2000000, r0b, r1b);
    const gcs_gc_process *p = finish_one();
    CHECK_EQ_INT(p->heap_count, 2);
    CHECK_EQ_STR(p->gc_mode, "server");
    const gcs_gc_info *a = &p->gcs[0], *b = &p->gcs[1];
    CHECK_EQ_INT(a->per_heap_histories, 2);
    /* size before = sum over heaps: gen0 1.0+1.1, gen1 2.0+2.1, ... */
    CHECK_NEAR(a->gen_size_before_mb[0], 2.1, EPS);
    CHECK_NEAR(a->gen_size_before_mb[4], 10.1, EPS);
    CHECK_NEAR(a->heap_size_before_mb, 2.1 + 4.1 + 6.1 + 8.1 + 10.1, 1e-9);
    /* survival gen0: heap0 100000*100/985000 = 10.15 -> 10; heap1
     * 100000*100/1085000 = 9.2 -> 9; (10+9)/2 = 9 (integer division) */
    CHECK_NEAR(a->survival_pct[0], 9.0, EPS);
    CHECK(isnan(a->survival_pct[1])); /* gen1 > condemned gen 0 */
    CHECK(isnan(a->survival_pct[3])); /* LOH only for gen2 GCs */
    /* fragmentation: 2 heaps * 30000 = 0.06 MB over gen0 size after 1.0 MB */
    CHECK_NEAR(a->fragmentation_mb[0], 0.06, EPS);
    CHECK_NEAR(a->fragmentation_pct[0], 6.0, 1e-9);
    CHECK_NEAR(a->fragmentation_pct[4], 0.06 * 100 / 2.5, 1e-9);
    /* index 0, no ticks: nothing allocated */
    CHECK_NEAR(a->allocated_since_last_gc_mb, 0.0, EPS);
    /* No heap has final gen 0: heap 0 is used. Alloc_Exceeded is 1 (not the
     * GC's generation 0), Time_Tuning is 0 == generation: it counts. */
    CHECK_EQ_U64(a->condemned_reasons, 1u << 3);
    /* GC #2: allocated per heap = ObjSpaceBefore - previous ObjSizeAfter
     * gen0: (1985000 + 2085000) - 2*(500000-30000) = 3130000
     * LOH:  (7985000 + 8085000) - 2*(2000000-30000) = 12130000
     * POH:  (9985000 + 10085000) - 2*(2500000-30000) = 15130000 */
    CHECK_NEAR(b->user_allocated_mb[0], 3.13, EPS);
    CHECK_NEAR(b->user_allocated_mb[3], 12.13, EPS);
    CHECK_NEAR(b->user_allocated_mb[4], 15.13, EPS);
    CHECK_NEAR(b->allocated_since_last_gc_mb, 30.39, 1e-9);
    /* since the HeapStats at 11.3, to the pause start 20.0 */
    CHECK_NEAR(b->alloc_rate_mb_s, 30.39 * 1000 / 8.7, 1e-6);
    /* survival gen0: 100000*100/1985000 = 5.04 -> 5, /2085000 = 4.8 -> 4:
     * 9/2 = 4; gen1: 2.5 -> 2, 2.4 -> 2: 2 */
    CHECK_NEAR(b->survival_pct[0], 4.0, EPS);
    CHECK_NEAR(b->survival_pct[1], 2.0, EPS);
    CHECK(isnan(b->survival_pct[2]));
    CHECK_EQ_U64(b->condemned_reasons, (1u << 2) | (1u << 7));
}

/* A blocking gen0 GC on one heap that gets `histories` one-heap histories
 * (a workstation BGC's history can land on a foreground GC still
 * restarting: wks-service GCs 24 and 482). */
static void wks_gc_with_histories(double t0, uint32_t number, uint64_t base, int histories)
{
    static const uint64_t s[5] = {1000000, 1000000, 1000000, 2000000, 2500000};
    static const uint64_t p0[5] = {0};
    suspend(t0, 70, 1);
    suspend_end(t0 + 0.1, 70);
    gc_start(t0 + 0.2, 70, number, 0, 0, 0);
    global_history(t0 + 0.9, 70, 1);
    for (int h = 0; h < histories; h++)
        per_heap(t0 + 0.95, 70, base, 0, 1, 0);
    gc_end(t0 + 1.2, 70, number);
    heap_stats(t0 + 1.3, 70, s, p0, 0, 0);
    restart_end(t0 + 1.5, 70);
}

/* TraceEvent pairs the i-th history of a GC with the i-th of the GC before
 * it: after a GC with two histories, a one-history GC subtracts only the
 * first one's size after (the sum of both gave too little, even < 0). */
static void test_allocation_pairs_histories(void)
{
    fresh();
    wks_gc_with_histories(10, 1, 1000000, 2);
    wks_gc_with_histories(20, 2, 2000000, 1);
    const gcs_gc_process *p = finish_one();
    const gcs_gc_info *b = &p->gcs[1];
    /* ObjSpaceBefore = size before - 15000; previous ObjSizeAfter = size
     * after - 30000 of history 0 only.
     * gen0: 1985000 - 470000 = 1515000; LOH: 7985000 - 1970000 = 6015000;
     * POH: 9985000 - 2470000 = 7515000 */
    CHECK_NEAR(b->user_allocated_mb[0], 1.515, EPS);
    CHECK_NEAR(b->user_allocated_mb[3], 6.015, EPS);
    CHECK_NEAR(b->user_allocated_mb[4], 7.515, EPS);
    CHECK_NEAR(b->allocated_since_last_gc_mb, 15.045, 1e-9);
}

/* One 1.6 ms GC in a 5.7 s trace: TraceEvent divides by first pause start
 * to last GCHeapStats (1.4 ms) and gets 114 %; the figure a person reads
 * divides by the trace. */
static void test_pause_pct_of_trace(void)
{
    fresh();
    static const uint64_t s[5] = {1000000, 0, 0, 0, 0}, p0[5] = {0};
    blocking(1000, 5, 1, 0, 0, s, p0);
    gcs_gc_analyzer_set_span(an, 0, 5700);
    const gcs_gc_process *p = finish_one();
    CHECK_NEAR(p->process_duration_ms, 1.4, 1e-9);
    CHECK_NEAR(p->pause_time_pct, 1.6 * 100 / 1.4, 1e-9);
    CHECK_NEAR(p->pause_time_pct_of_trace, 1.6 * 100 / 5700, 1e-12);
}

/* FinalizationPromotedSize 0xbaadbaadbaadbaad (runtime garbage): TraceEvent
 * reads it signed; we keep that value and flag it. */
static void test_finalization_garbage(void)
{
    fresh();
    static const uint64_t s[5] = {1000000, 0, 0, 0, 0}, p0[5] = {0};
    suspend(10, 5, 1);
    suspend_end(10.2, 5);
    gc_start(10.3, 5, 1, 0, 0, 0);
    gc_end(11.3, 5, 1);
    heap_stats(11.4, 5, s, p0, 0xbaadbaadbaadbaadull, 0);
    restart_end(11.6, 5);
    blocking(20, 5, 2, 0, 0, s, p0);
    const gcs_gc_process *p = finish_one();
    /* (int64_t)0xbaadbaadbaadbaad = -4995131156359955795 bytes */
    CHECK_NEAR(p->gcs[0].finalization_promoted_mb, -4995131156359.955795, 1e-3);
    CHECK(p->gcs[0].finalization_promoted_implausible);
    CHECK(!p->gcs[1].finalization_promoted_implausible);
    CHECK_NEAR(p->gcs[1].finalization_promoted_mb, 0.0, EPS);
    CHECK_EQ_U64(p->problems.implausible_values, 1);
}

static void runtime_information(double ms, uint32_t startup_flags)
{
    gcs_gc_record r = rec(GCS_GCK_RUNTIME_INFORMATION);
    r.version = 0;
    r.u.runtime_information.vm_major = 3;
    r.u.runtime_information.vm_minor = 1;
    r.u.runtime_information.startup_flags = startup_flags;
    feed(ms, 1, &r);
}

/* Attached after startup, an older runtime's rundown says StartupFlags
 * None: the flavour comes from the events, marked inferred. */
static void test_flavour_inferred(void)
{
    static const uint32_t r0[2] = {1 | 4 | 16, 1 | 4 | 16}, r1[2] = {0, 0};
    fresh();
    server_gc(10, 1, 0, 1000000, r0, r1);
    runtime_information(15, 0);
    const gcs_gc_process *p = finish_one();
    CHECK_EQ_STR(p->gc_mode, "server");
    CHECK(p->gc_mode_inferred);
    CHECK_EQ_INT(p->concurrent, -1);
    CHECK(!p->concurrent_inferred);
    /* Flags that name server GC are believed. */
    fresh();
    server_gc(10, 1, 0, 1000000, r0, r1);
    runtime_information(15, 0x1001);
    p = finish_one();
    CHECK_EQ_STR(p->gc_mode, "server");
    CHECK(!p->gc_mode_inferred);
    CHECK_EQ_INT(p->concurrent, 1);
    CHECK(!p->concurrent_inferred);
    /* A background GC says concurrent. */
    fresh();
    runtime_information(0.5, 0);
    wks_gc_with_histories(1, 1, 1000000, 1);
    suspend(3000.0, 50, 1);
    suspend_end(3000.2, 50);
    gc_start(3000.3, 50, 2, 2, 0, 1);
    restart_end(3001.0, 50);
    gc_end(3300.3, 60, 2);
    heap_stats(3300.4, 60, (const uint64_t[5]){1, 1, 1, 1, 1}, (const uint64_t[5]){0}, 0, 0);
    p = finish_one();
    CHECK_EQ_STR(p->gc_mode, "workstation");
    CHECK(p->gc_mode_inferred);
    CHECK_EQ_INT(p->concurrent, 1);
    CHECK(p->concurrent_inferred);
}

/* Two server GCs of 2 heaps whose per-heap histories hold absurd sizes:
 * sums over heaps saturate at +-2^63 bytes and an allocation beyond int64
 * is unknown, instead of overflowing (found by fuzzing: signed overflow
 * summing ObjSpaceBefore and ObjSizeAfter over heaps, and subtracting
 * them for the next GC's allocation). */
static void test_absurd_history_sizes_saturate(void)
{
    fresh();
    static const uint64_t s[5] = {1000000, 1000000, 1000000, 2000000, 2500000};
    static const uint64_t p0[5] = {0};
    const uint64_t big = INT64_MAX, neg = (uint64_t)1 << 63; /* -2^63 as a long */
    /* gen0: ObjSpaceBefore 2^63-1 and ObjSizeAfter -2^63 on each heap: both
     * sums pass the int64 range, and the next GC's allocation is their
     * difference; LOH: ObjSizeAfter 2^63-1 per heap (the next GC subtracts
     * the saturated sum); POH: survivors 2^62 over ObjSpaceBefore 1 (a
     * survival rate beyond int64). Gen1 and gen2 stay sane. */
    uint64_t v[5][10] = {
        {big, 0, 0, neg, 0, 0, 0, 1000, 99000, 7000000},
        {2000000, 10000, 5000, 1000000, 20000, 10000, 0, 1000, 99000, 7000000},
        {3000000, 10000, 5000, 1500000, 20000, 10000, 0, 1000, 99000, 7000000},
        {4000000, 10000, 5000, big, 0, 0, 0, 1000, 99000, 7000000},
        {1, 0, 0, 500000, 20000, 10000, 0, (uint64_t)1 << 62, 0, 7000000}};
    for (uint32_t n = 1; n <= 2; n++) {
        double t0 = 10.0 * n;
        suspend(t0, 70, 1);
        suspend_end(t0 + 0.1, 70);
        gc_start(t0 + 0.2, 70, n, 2, 0, 0);
        global_history(t0 + 0.9, 70, 2);
        per_heap_values(t0 + 0.95, 71, 0, 0, 0, v);
        per_heap_values(t0 + 0.96, 72, 1, 0, 0, v);
        gc_end(t0 + 1.2, 70, n);
        heap_stats(t0 + 1.3, 70, s, p0, 0, 0);
        restart_end(t0 + 1.5, 70);
    }
    const gcs_gc_process *p = finish_one();
    CHECK_EQ_U64(p->gc_count, 2);
    const gcs_gc_info *b = &p->gcs[1];
    const double max_mb = 9223372036854775807.0 / 1000000.0;
    /* gen0: each heap's ObjSpaceBefore 2^63-1 minus the previous GC's
     * ObjSizeAfter -2^63 is beyond int64: the allocation is unknown (NaN),
     * not a wrapped number */
    CHECK(isnan(b->user_allocated_mb[0]));
    /* LOH: each heap's 3985000 minus the previous ObjSizeAfter 2^63-1 fits
     * int64; the two heaps add up in double, beyond int64, without UB */
    CHECK_NEAR(b->user_allocated_mb[3], 2.0 * ((3985000.0 - 9223372036854775807.0) / 1000000.0),
               1e-9 * max_mb);
    /* POH survival: each heap's rate saturates at INT64_MAX, so does the sum */
    CHECK_NEAR(b->survival_pct[4], (double)(INT64_MAX / 2), 1e-3 * max_mb);
    /* gen2 is untouched: survival 100000 * 100 / 2985000 = 3.35 -> 3 */
    CHECK_NEAR(b->survival_pct[2], 3.0, EPS);
}

/* The typed decoder feeds the same machine through gcs_gc_analyzer_feed. */
static void test_feed_events(void)
{
    fresh();
    gcs_event_type t_susp = {0}, t_start = {0}, t_heap = {0}, t_other = {0};
    t_susp.provider = t_start.provider = t_heap.provider = "Microsoft-Windows-DotNETRuntime";
    t_other.provider = "Microsoft-Windows-DotNETRuntime";
    t_susp.event_id = 9;
    t_susp.version = 1;
    t_start.event_id = 1;
    t_start.version = 2;
    t_heap.event_id = 4;
    t_heap.version = 2;
    t_other.event_id = 80; /* not a GC event */
    uint8_t susp[10] = {1, 0, 0, 0, 1, 0, 0, 0, 7, 0};
    uint8_t start_short[10] = {1, 0, 0, 0};
    gcs_event e;
    memset(&e, 0, sizeof e);
    e.pid = PID;
    e.tid = 5;
    e.pointer_size = 8;
    e.type = &t_susp;
    e.payload = susp;
    e.payload_size = sizeof susp;
    e.msec = 1.0;
    CHECK_EQ_INT(gcs_gc_analyzer_feed(an, &e), GCS_OK);
    e.type = &t_start;
    e.payload = start_short; /* V2 needs 26 bytes: counted, not fatal */
    e.payload_size = 4;
    CHECK_EQ_INT(gcs_gc_analyzer_feed(an, &e), GCS_OK);
    e.type = &t_other;
    CHECK_EQ_INT(gcs_gc_analyzer_feed(an, &e), GCS_OK);
    const gcs_gc_process *p = finish_one();
    CHECK_EQ_U64(p->gc_count, 0);
    CHECK_EQ_U64(p->problems.truncated_events, 1);
}

/* An AllocationTick V2 payload: amount, kind, ClrInstanceID 7, amount64. */
static void tick_payload(uint8_t out[18], uint32_t kind, uint64_t amount)
{
    for (int i = 0; i < 4; i++) {
        out[i] = (uint8_t)(amount >> (8 * i));
        out[4 + i] = (uint8_t)(kind >> (8 * i));
    }
    out[8] = 7;
    out[9] = 0;
    for (int i = 0; i < 8; i++)
        out[10 + i] = (uint8_t)(amount >> (8 * i));
}

/* AllocationTicks through gcs_gc_analyzer_feed: each runtime sums its own
 * (two processes alternating, so the last runtime changes at every tick),
 * a short payload is counted and adds nothing, and the sums reach the
 * next GC of their runtime. */
static void test_feed_ticks(void)
{
    fresh();
    gcs_event_type t_tick = {0};
    t_tick.provider = "Microsoft-Windows-DotNETRuntime";
    t_tick.event_id = 10;
    t_tick.version = 2;
    uint8_t small[18], large[18], other[18];
    tick_payload(small, 0, 100000);
    tick_payload(large, 1, 250000);
    tick_payload(other, 0, 7000000);
    gcs_event e;
    memset(&e, 0, sizeof e);
    e.type = &t_tick;
    e.tid = 1;
    e.pointer_size = 8;
    e.payload_size = sizeof small;
    for (int i = 0; i < 3; i++) {
        e.pid = PID;
        e.payload = i == 1 ? large : small;
        e.msec = 1.0 + i;
        CHECK_EQ_INT(gcs_gc_analyzer_feed(an, &e), GCS_OK);
        e.pid = PID + 1;
        e.payload = other;
        CHECK_EQ_INT(gcs_gc_analyzer_feed(an, &e), GCS_OK);
    }
    e.pid = PID;
    e.payload = large;
    e.payload_size = 17; /* AllocationAmount64 cut */
    CHECK_EQ_INT(gcs_gc_analyzer_feed(an, &e), GCS_OK);
    static const uint64_t s1[5] = {1000000, 2000000, 3000000, 4000000, 500000};
    static const uint64_t p0[5] = {0};
    blocking(10, 5, 1, 0, 0, s1, p0);
    gcs_gc_analyzer_finish(an);
    CHECK_EQ_U64(gcs_gc_process_count(an), 2);
    const gcs_gc_process *p = gcs_gc_process_at(an, 0);
    CHECK(p && p->pid == PID && p->gc_count == 1);
    if (!p || p->gc_count != 1)
        return;
    CHECK_NEAR(p->gcs[0].alloc_tick_mb[0], 0.2, EPS);
    CHECK_NEAR(p->gcs[0].alloc_tick_mb[1], 0.25, EPS);
    CHECK_EQ_U64(p->problems.truncated_events, 1);
}

static uint32_t rnd(uint32_t *seed)
{
    *seed = *seed * 1103515245u + 12345u;
    return (*seed >> 16) & 0x7fff;
}

/* The events gcs_gc_analyzer_feed reads without a record (SuspendEEStart,
 * SuspendEEStop, RestartEEStop) give what decoding them and
 * gcs_gc_analyzer_feed_record give: random sequences of suspensions and
 * GCs, layouts V0 to V2, payloads cut anywhere or absent, several
 * ClrInstanceIDs. */
static void test_feed_suspensions_as_records(void)
{
    static const uint32_t ids[7] = {9, 8, 3, 7, 1, 2, 4}; /* suspend, GC, restart, heap stats */
    gcs_event_type types[7][3];
    memset(types, 0, sizeof types);
    for (int k = 0; k < 7; k++)
        for (uint32_t v = 0; v < 3; v++) {
            types[k][v].provider = "Microsoft-Windows-DotNETRuntime";
            types[k][v].event_id = ids[k];
            types[k][v].version = v;
            types[k][v].index = (uint32_t)(k * 3) + v;
        }
    gcs_gc_analyzer *fed = gcs_gc_analyzer_new(NULL, NULL);
    gcs_gc_analyzer *typed = gcs_gc_analyzer_new(NULL, NULL);
    uint32_t seed = 4242;
    uint32_t gc_number = 0;
    for (int i = 0; i < 30000; i++) {
        int k = (int)(rnd(&seed) % 7);
        uint32_t v = rnd(&seed) % 3;
        uint8_t payload[112];
        for (size_t b = 0; b < sizeof payload; b++)
            payload[b] = (uint8_t)(rnd(&seed) % 4 == 0 ? rnd(&seed) : 0);
        if (ids[k] == 9) /* SuspendEEStart: mostly a GC's (1) or a BGC's (6) reason */
            payload[0] = (uint8_t)(rnd(&seed) % 3 == 0 ? 1 : rnd(&seed) % 2 ? 6 : 3);
        if (ids[k] == 1) { /* GCStart: consecutive numbers, generation 0..2, type 0..2 */
            uint32_t n = ++gc_number;
            memcpy(payload, &n, 4);
            payload[4] = (uint8_t)(rnd(&seed) % 3);
            payload[12] = (uint8_t)(rnd(&seed) % 3);
        }
        /* ClrInstanceID 0 or 1 wherever a layout puts it. */
        payload[8] = payload[10] = payload[0 + 2 * (ids[k] != 9)] & 1;
        if (ids[k] == 8 || ids[k] == 3)
            payload[0] = (uint8_t)(rnd(&seed) % 2), payload[1] = 0;
        gcs_event e;
        memset(&e, 0, sizeof e);
        e.pid = PID;
        e.tid = 1 + rnd(&seed) % 2;
        e.pointer_size = 8;
        e.msec = (double)i;
        e.type = &types[k][v];
        e.payload = rnd(&seed) % 50 == 0 ? NULL : payload;
        e.payload_size = !e.payload ? 0 : rnd(&seed) % 8 == 0 ? rnd(&seed) % 12 : sizeof payload;
        CHECK_EQ_INT(gcs_gc_analyzer_feed(fed, &e), GCS_OK);
        if (ids[k] == 7)
            continue; /* RestartEEStart changes no number: the feed skips it undecoded */
        gcs_gc_kind kind = gcs_gc_classify(e.type);
        gcs_gc_record rec;
        if (gcs_gc_decode(&e, kind, &rec, NULL) != GCS_OK) {
            gcs_gc_analyzer_count_truncated(typed, e.pid);
            continue;
        }
        gcs_gc_event_ctx ctx = {e.pid, e.tid, e.msec};
        CHECK_EQ_INT(gcs_gc_analyzer_feed_record(typed, &ctx, &rec), GCS_OK);
    }
    gcs_gc_analyzer_finish(fed);
    gcs_gc_analyzer_finish(typed);
    CHECK_EQ_U64(gcs_gc_process_count(fed), gcs_gc_process_count(typed));
    CHECK(gcs_gc_process_count(fed) >= 2);
    for (size_t r = 0; r < gcs_gc_process_count(fed) && r < gcs_gc_process_count(typed); r++) {
        const gcs_gc_process *a = gcs_gc_process_at(fed, r), *b = gcs_gc_process_at(typed, r);
        if (r == 0)
            CHECK(a->gc_count > 100);
        CHECK_EQ_U64(a->gc_count, b->gc_count);
        CHECK(memcmp(&a->problems, &b->problems, sizeof a->problems) == 0);
        CHECK(a->gc_count == b->gc_count &&
              (a->gc_count == 0 || memcmp(a->gcs, b->gcs, a->gc_count * sizeof *a->gcs) == 0));
    }
    gcs_gc_analyzer_free(fed);
    gcs_gc_analyzer_free(typed);
}

static int by_value(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* p50, p90, p99 and the maximum of the n values, sorted here, by the
 * nearest-rank rule (ceil(p / 100 * n), 1-based). */
static void sorted_ranks(double *v, size_t n, double out[4])
{
    static const double pct[3] = {50, 90, 99};
    qsort(v, n, sizeof *v, by_value);
    for (int k = 0; k < 3; k++) {
        size_t rank = (size_t)ceil(pct[k] / 100 * (double)n);
        out[k] = v[(rank < 1 ? 1 : rank > n ? n : rank) - 1];
    }
    out[3] = v[n - 1];
}

static void check_group(const gcs_gc_percentiles *got, double *v, size_t n)
{
    CHECK_EQ_U64(got->count, n);
    if (n == 0)
        return;
    double want[4];
    sorted_ranks(v, n, want);
    CHECK_NEAR(got->p50, want[0], 0.0);
    CHECK_NEAR(got->p90, want[1], 0.0);
    CHECK_NEAR(got->p99, want[2], 0.0);
    CHECK_NEAR(got->max, want[3], 0.0);
}

/*
 * Past 131,072 GCs the fold's pause list (8 bytes a GC), its keys (2
 * bytes) and the percentiles' scratch have all left malloc for huge
 * pages, each at its own point (the values moved along): the seven
 * groups' percentiles must be those of the GC list's complete GCs,
 * sorted here.
 */
static void test_percentiles_of_many_gcs(void)
{
    fresh();
    enum { N = 132000 };
    static const uint64_t size[5] = {1000000, 2000000, 3000000, 4000000, 500000};
    static const uint64_t promoted[5] = {100000, 200000, 300000, 0, 0};
    uint32_t seed = 99;
    double t = 10;
    for (uint32_t i = 1; i <= N; i++) {
        const uint32_t gen = rnd(&seed) % 3;
        const double work = (double)(rnd(&seed) % 5000) / 1000.0; /* 0 to 5 ms */
        suspend(t, 1, 1);
        suspend_end(t + 0.2, 1);
        gc_start(t + 0.3, 1, i, gen, 0, 0);
        gc_end(t + 0.3 + work, 1, i);
        heap_stats(t + 0.4 + work, 1, size, promoted, 0, 0);
        restart_end(t + 0.5 + work, 1);
        t += 10;
    }
    const gcs_gc_process *p = finish_one();
    CHECK_EQ_U64(p->gc_count, N);
    double *v = malloc(N * sizeof *v);
    CHECK(v != NULL);
    for (int by = 0; by < 2 && v; by++)
        for (uint32_t key = 0; key < (by ? 3u : 1u); key++) {
            size_t n = 0;
            for (size_t i = 0; i < p->gc_count; i++)
                if (p->gcs[i].is_complete && (by == 0 || p->gcs[i].generation == key))
                    v[n++] = p->gcs[i].pause_ms;
            check_group(by ? &p->pct_gen[key] : &p->pct_all, v, n);
        }
    /* Every GC blocking: the kind groups are all and none. */
    CHECK(p->pct_all.count > N - 100);
    CHECK_EQ_U64(p->pct_kind[GCS_GC_NONCONCURRENT].count, p->pct_all.count);
    CHECK_EQ_U64(p->pct_kind[GCS_GC_BACKGROUND].count, 0);
    CHECK_NEAR(p->pct_kind[GCS_GC_NONCONCURRENT].p99, p->pct_all.p99, 0.0);
    free(v);
}

/* Random sequences of GC events (lost, duplicated, out of order, odd
 * values): never a crash, never a negative or absurd time on a complete GC. */
static void test_random_sequences(void)
{
    fresh();
    uint32_t seed = 777;
#define RND() rnd(&seed)
    double t = 0;
    static const uint64_t s[5] = {1000000, 2000000, 0, 4000000, 1};
    static const uint64_t p0[5] = {0};
    for (int i = 0; i < 20000; i++) {
        t += (RND() % 100) / 10.0;
        if (RND() % 50 == 0)
            t -= 5; /* out of order */
        uint64_t tid = 1 + RND() % 3;
        switch (RND() % 9) {
        case 0: suspend(t, tid, RND() % 8); break;
        case 1: suspend_end(t, tid); break;
        case 2: gc_start(t, tid, (uint32_t)(i / 6 + RND() % 3), RND() % 4, RND() % 20, RND() % 4); break;
        case 3: gc_end(t, tid, 0); break;
        case 4: heap_stats(t, tid, s, p0, 0, 0); break;
        case 5: restart_end(t, tid); break;
        case 6: tick(t, RND() % 3, RND() % 2 ? 100000 : 0xFFFFFFF0u); break;
        case 7: global_history(t, tid, (int32_t)(RND() % 4)); break;
        default: per_heap(t, tid, 1000000, RND() % 3, RND(), RND()); break;
        }
    }
#undef RND
    const gcs_gc_process *p = finish_one();
    CHECK(p->gc_count > 100);
    for (size_t i = 0; i < p->gc_count; i++) {
        const gcs_gc_info *g = &p->gcs[i];
        if (!g->is_complete)
            continue;
        CHECK(g->pause_ms >= 0 && g->pause_ms < 86400000.0);
        CHECK(g->suspend_ms >= 0);
        CHECK(g->duration_ms >= 0);
        CHECK(g->generation <= 2);
    }
    CHECK(p->all.max_pause_ms >= 0);
    CHECK(p->problems.bad_times > 0);
    CHECK_EQ_U64(p->all.count + p->problems.incomplete_gcs, p->gc_count);
}

int main(void)
{
    RUN(test_random_sequences);
    RUN(test_blocking_gen0);
    RUN(test_bgc_no_fgc);
    RUN(test_bgc_one_fgc);
    RUN(test_bgc_two_fgcs);
    RUN(test_trace_starts_mid_gc);
    RUN(test_missing_gc_end);
    RUN(test_lost_events);
    RUN(test_gc_numbers_jump);
    RUN(test_server_two_heaps);
    RUN(test_allocation_pairs_histories);
    RUN(test_pause_pct_of_trace);
    RUN(test_finalization_garbage);
    RUN(test_flavour_inferred);
    RUN(test_absurd_history_sizes_saturate);
    RUN(test_feed_events);
    RUN(test_feed_ticks);
    RUN(test_feed_suspensions_as_records);
    RUN(test_percentiles_of_many_gcs);
    gcs_gc_analyzer_free(an);
    return check_report("test_gc_analysis");
}
