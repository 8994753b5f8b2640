/*
 * analysis/gc/gc_derive.c - the values TraceEvent derives for each GC
 * (TraceGC.OnEnd and its helpers) and the rollups of GCStats (Calculate),
 * computed once after the last event, in list order, as TraceEvent's final
 * pass does; plus our own percentiles and histogram.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/gc/gc_internal.h"
#include "analysis/gc/gc_survival.h"
#include "analysis/gc/nearest_rank.h"
#include "base/buf.h"
#include "base/sat_math.h"

#define MB 1000000.0
/* A pause longer than this is not a pause but a broken sequence. */
#define ABSURD_MS (24.0 * 3600.0 * 1000.0)

const double gcs_gc_hist_bounds_ms[GCS_GC_HIST_BUCKETS - 1] = {0.1, 0.5, 1, 5, 10, 50, 100, 500, 1000};

/* ValidGenData: histories exist and the first has generation g. */
static bool valid_gen(const gcs_gc_priv *pv, uint32_t g)
{
    return pv->ph_count > 0 && pv->ph_gen_count > g;
}

/* TraceGC.GetGenSizeBeforeMB. */
static double gen_size_before_mb(const gcs_gc_runtime *rt, size_t i, uint32_t g)
{
    const gcs_gc_info *gc = &RT_INFO(rt, i);
    const gcs_gc_priv *pv = &RT_PRIV(rt, i);
    if (valid_gen(pv, g))
        return pv->ph_size_before_mb[g];
    double gen0_before = g == 0 ? gc->alloc_tick_mb[0] : 0;
    if (i == 0)
        return g == 0 ? gen0_before : 0;
    /* The previous GC with heap stats; TraceEvent never looks at list[0].
     * Below base (dropped GCs of a spilling analyzer): the last of them. */
    const uint64_t *hs = NULL;
    for (size_t j = i - 1;; j--) {
        if (j == 0)
            return 0;
        if (j < rt->base) {
            if (rt->dropped_hs_index <= 0)
                return 0;
            hs = rt->dropped_hs_gen_size;
            break;
        }
        if (RT_INFO(rt, j).has_heap_stats) {
            hs = RT_PRIV(rt, j).gen_size;
            break;
        }
    }
    switch (g) {
    case 0: return gcs_gc_cs_max((double)hs[0] / MB, gen0_before);
    case 1: return (double)hs[1] / MB;
    case 2: return (double)hs[2] / MB;
    default: {
        uint64_t v = hs[g];
        if (gc->has_heap_stats && pv->gen_size[g] > v)
            v = pv->gen_size[g];
        return (double)v / MB;
    }
    }
}

static double heap_size_before_mb(const gcs_gc_runtime *rt, size_t i)
{
    double sum = 0;
    for (uint32_t g = 0; g < GCS_GEN_COUNT; g++)
        sum += gen_size_before_mb(rt, i, g);
    return sum;
}

/* TraceGC.GetUserAllocated for g in {0, LOH, POH}: per heap h,
 * ObjSpaceBefore - the previous GC's ObjSizeAfter of its h-th history (0
 * when it has fewer), each difference in MB summed in arrival order, as
 * TraceEvent does. A difference that does not fit 64 bits is unknown (NaN). */
static double user_allocated_mb(const gcs_gc_runtime *rt, size_t i, uint32_t g)
{
    const gcs_gc_info *gc = &RT_INFO(rt, i);
    const gcs_gc_priv *pv = &RT_PRIV(rt, i);
    if (gc->type == GCS_GC_BACKGROUND && g == 0)
        return gc->alloc_tick_mb[0];
    if (pv->ph_count > 0 && i > 0 && RT_PRIV(rt, i - 1).ph_count > 0) {
        if (!valid_gen(pv, g))
            return 0;
        if (pv->ph_layout == 0)
            return 0; /* .NET 4.0 layout: see docs/gc-stats.md */
        const gcs_gc_priv *pp = &RT_PRIV(rt, i - 1);
        bool prev_has_gen = pp->ph_gen_count > g;
        int a = g == 0 ? 0 : g == GCS_GEN_LOH ? 1 : 2;
        double total = 0;
        int64_t h = pv->ph_first, ph = pp->ph_first;
        for (; h >= 0; h = rt->heap_allocs[h].next) {
            int64_t prev = 0;
            if (ph >= 0) {
                prev = prev_has_gen ? rt->heap_allocs[ph].next_prev_obj[a] : 0;
                ph = rt->heap_allocs[ph].next;
            }
            int64_t allocated;
            if (__builtin_sub_overflow(rt->heap_allocs[h].obj_space_before[a], prev, &allocated))
                return NAN;
            total += (double)allocated / MB;
        }
        return total;
    }
    return gc->alloc_tick_mb[g == 0 ? 0 : 1];
}

static bool is_induced(uint32_t reason) { return reason == 1 || reason == 7; }

/* Marks GCs whose times cannot be a pause: TraceEvent would print them;
 * we refuse (docs/gc-stats.md). gc: a GC of rt, or its copy being made
 * final (gcs_gc_derive_settle), as in the functions below. */
static void check_times(gcs_gc_runtime *rt, gcs_gc_info *gc)
{
    if (!gc->is_complete)
        return;
    double t[3] = {gc->pause_ms, gc->suspend_ms, gc->duration_ms};
    bool bad = gc->generation > 2 || gc->pause_start_ms < 0;
    for (int k = 0; k < 3; k++)
        if (!(t[k] >= 0) || t[k] > ABSURD_MS)
            bad = true;
    if (bad) {
        gc->is_complete = false;
        gc->incomplete_reason = GCS_GC_INC_BAD_TIMES;
        rt->problems.bad_times++;
    }
}

static void incomplete_reason(gcs_gc_runtime *rt, size_t i, gcs_gc_info *gc)
{
    const gcs_gc_priv *pv = &RT_PRIV(rt, i);
    if (gc->is_complete || gc->incomplete_reason != GCS_GC_INC_NONE)
        return;
    if (gc->type == GCS_GC_BACKGROUND)
        gc->incomplete_reason = pv->superseded ? GCS_GC_INC_SUPERSEDED
                                : gc->duration_ms == 0 ? GCS_GC_INC_NO_END
                                : !gc->has_heap_stats ? GCS_GC_INC_NO_HEAP_STATS
                                                      : GCS_GC_INC_TRACE_ENDED;
    else if (gc->duration_ms == 0)
        gc->incomplete_reason = GCS_GC_INC_NO_END;
    else if (!gc->has_heap_stats)
        gc->incomplete_reason = GCS_GC_INC_NO_HEAP_STATS;
    else
        gc->incomplete_reason = GCS_GC_INC_NO_RESTART;
}

/* Values of an incomplete GC that TraceEvent never computes: NaN. Times
 * that are negative (missing pieces) become NaN too. */
static void blank_incomplete(gcs_gc_runtime *rt, size_t i, gcs_gc_info *gc)
{
    const gcs_gc_priv *pv = &RT_PRIV(rt, i);
    double *times[] = {&gc->pause_ms, &gc->suspend_ms, &gc->duration_ms, &gc->pause_start_ms,
                       &gc->duration_since_last_restart_ms};
    for (size_t k = 0; k < sizeof times / sizeof times[0]; k++)
        if (!(*times[k] >= 0) || *times[k] > ABSURD_MS)
            *times[k] = NAN;
    gc->pause_time_pct = gc->heap_size_before_mb = gc->heap_size_peak_mb = NAN;
    gc->ratio_peak_after = gc->allocated_since_last_gc_mb = gc->alloc_rate_mb_s = NAN;
    for (int g = 0; g < GCS_GEN_COUNT; g++) {
        gc->gen_size_before_mb[g] = gc->user_allocated_mb[g] = NAN;
        gc->gen_size_after_mb[g] = gc->has_heap_stats ? (double)pv->gen_size[g] / MB : NAN;
        gc->gen_promoted_mb[g] = gc->has_heap_stats ? (double)pv->promoted[g] / MB : NAN;
        gc->survival_pct[g] = gc->fragmentation_pct[g] = gc->fragmentation_mb[g] = NAN;
    }
    gc->heap_size_after_mb = gc->promoted_mb = gc->finalization_promoted_mb = NAN;
}

/* TraceGC.OnEnd for complete GC i, into gc (RT_INFO(rt, i), or a copy of
 * it: what it reads of GC i through rt, as of the others, are recorded
 * values, which it does not change). */
static void derive_one(gcs_gc_runtime *rt, size_t i, gcs_gc_info *gc)
{
    const gcs_gc_priv *pv = &RT_PRIV(rt, i);
    size_t n = rt->n;

    if (gc->has_heap_stats) {
        uint64_t after = 0, promoted = 0;
        for (int g = 0; g < GCS_GEN_COUNT; g++) {
            after += pv->gen_size[g];
            promoted += pv->promoted[g];
        }
        gc->heap_size_after_mb = (double)(int64_t)after / MB;
        gc->promoted_mb = (double)(int64_t)promoted / MB;
        /* A signed field for TraceEvent; runtimes have written garbage
         * there (0xbaadbaad...): keep TraceEvent's value, flag it. */
        int64_t fin = (int64_t)pv->finalization_promoted_size;
        gc->finalization_promoted_mb = (double)fin / MB;
        if (fin < 0 || (uint64_t)fin > after) {
            gc->finalization_promoted_implausible = true;
            rt->problems.implausible_values++;
        }
    } else {
        gc->heap_size_after_mb = -1.0;
        gc->promoted_mb = -1.0;
        gc->finalization_promoted_mb = NAN;
    }
    for (uint32_t g = 0; g < GCS_GEN_COUNT; g++) {
        gc->gen_size_after_mb[g] = gc->has_heap_stats ? (double)pv->gen_size[g] / MB : NAN;
        gc->gen_promoted_mb[g] = gc->has_heap_stats ? (double)pv->promoted[g] / MB : NAN;
        gc->gen_size_before_mb[g] = gen_size_before_mb(rt, i, g);
        gc->fragmentation_mb[g] = valid_gen(pv, g) ? pv->ph_frag_mb[g] : NAN;
        gc->fragmentation_pct[g] = gc->fragmentation_mb[g] * 100.0 / gc->gen_size_after_mb[g];
        /* SurvivalPercent: integer average of per-heap integer rates. */
        double surv = NAN;
        if (valid_gen(pv, g) && gcs_gc_survival_reported(g, gc->generation))
            surv = (double)(pv->ph_count == 1 ? pv->ph_surv_rate_sum[g] /* one heap: no divide */
                                              : pv->ph_surv_rate_sum[g] / (int64_t)pv->ph_count);
        gc->survival_pct[g] = surv;
        gc->user_allocated_mb[g] = 0;
    }
    gc->user_allocated_mb[0] = user_allocated_mb(rt, i, 0);
    gc->user_allocated_mb[3] = user_allocated_mb(rt, i, 3);
    gc->user_allocated_mb[4] = user_allocated_mb(rt, i, 4);
    gc->allocated_since_last_gc_mb =
        gc->user_allocated_mb[0] + gc->user_allocated_mb[3] + gc->user_allocated_mb[4];
    gc->alloc_rate_mb_s = gc->allocated_since_last_gc_mb * 1000.0 / gc->duration_since_last_restart_ms;

    /* heap_size_before_mb(rt, i): the same sum, in the same order, of the
     * values just computed. */
    double before = 0;
    for (uint32_t g = 0; g < GCS_GEN_COUNT; g++)
        before += gc->gen_size_before_mb[g];
    gc->heap_size_before_mb = before;
    double peak = gc->heap_size_before_mb;
    if (gc->type == GCS_GC_BACKGROUND) {
        double ended = gc->pause_start_ms + gc->duration_ms;
        for (size_t k = i + 1; k < n; k++) {
            if (ended < RT_INFO(rt, k).pause_start_ms)
                break;
            peak = gcs_gc_cs_max(peak, heap_size_before_mb(rt, k));
        }
    }
    gc->heap_size_peak_mb = peak;
    gc->ratio_peak_after = gc->heap_size_after_mb == 0 ? 0 : peak / gc->heap_size_after_mb;

    if (gc->type == GCS_GC_BACKGROUND) {
        double prev_stop = i >= 1 ? RT_INFO(rt, i - 1).start_ms + RT_INFO(rt, i - 1).duration_ms
                                  : RT_INFO(rt, 0).start_ms;
        double total = (gc->start_ms + gc->duration_ms) - prev_stop;
        gc->pause_time_pct = gc->pause_ms * 100 / total;
    } else {
        double total = gc->pause_ms + gc->duration_since_last_restart_ms;
        gc->pause_time_pct = gc->pause_ms * 100 / total;
    }

    /* GetCondemnedReasons: heap 0, or with several heaps the first heap
     * condemning the GC's generation. */
    gc->condemned_reasons = 0;
    if (pv->ph_count > 0) {
        const uint8_t *groups =
            pv->ph_count > 1 && pv->highest_found ? pv->groups_highest : pv->groups_heap0;
        for (uint32_t k = 2; k <= 3; k++)
            if (groups[k] == gc->generation)
                gc->condemned_reasons |= 1u << k;
        if (groups[4] != 0 && groups[0] == gc->generation)
            gc->condemned_reasons |= 1u << 4;
        /* Groups 5 and up, eight at a time: most GCs name none of them. */
        uint32_t k = 5;
        for (; k + 8 <= GCS_GC_CONDEMNED_GROUPS; k += 8) {
            uint64_t eight;
            memcpy(&eight, groups + k, sizeof eight);
            if (eight == 0)
                continue;
            for (uint32_t j = k; j < k + 8; j++)
                if (groups[j] != 0)
                    gc->condemned_reasons |= 1u << j;
        }
        for (; k < GCS_GC_CONDEMNED_GROUPS; k++)
            if (groups[k] != 0)
                gc->condemned_reasons |= 1u << k;
    }
}

static void rollup_add(gcs_gc_rollup *r, const gcs_gc_info *gc)
{
    r->count++;
    if (is_induced(gc->reason))
        r->num_induced++;
    r->total_size_after_mb += gc->heap_size_after_mb;
    r->total_size_peak_mb += gc->heap_size_peak_mb;
    r->total_promoted_mb += gc->promoted_mb;
    r->total_pause_ms += gc->pause_ms;
    r->total_allocated_mb += gc->allocated_since_last_gc_mb;
    r->max_pause_ms = gcs_gc_cs_max(r->max_pause_ms, gc->pause_ms);
    r->max_size_peak_mb = gcs_gc_cs_max(r->max_size_peak_mb, gc->heap_size_peak_mb);
    r->max_alloc_rate_mb_s = gcs_gc_cs_max(r->max_alloc_rate_mb_s, gc->alloc_rate_mb_s);
    r->max_suspend_ms = gcs_gc_cs_max(r->max_suspend_ms, gc->suspend_ms);
}

static void rollup_means(gcs_gc_rollup *r)
{
    double n = (double)r->count;
    r->mean_pause_ms = r->total_pause_ms / n;
    r->mean_size_peak_mb = r->total_size_peak_mb / n;
    r->mean_size_after_mb = r->total_size_after_mb / n;
}

/* Percentiles of the folded pauses selected by (by: 0 all, 1 generation,
 * 2 type; key), scratch holding f->pause_n doubles. */
static void percentiles(const gcs_gc_fold *f, int by, uint32_t key, double *scratch,
                        gcs_gc_percentiles *out)
{
    size_t m = 0;
    for (size_t i = 0; i < f->pause_n; i++) {
        if (by == 1 && (uint32_t)(f->pause_key[i] & 0xff) != key)
            continue;
        if (by == 2 && (uint32_t)(f->pause_key[i] >> 8) != key)
            continue;
        scratch[m++] = f->pause_ms[i];
    }
    memset(out, 0, sizeof *out);
    out->count = (uint32_t)m;
    if (m == 0) {
        out->p50 = out->p90 = out->p99 = out->max = NAN;
        return;
    }
    gcs_nearest_p50_p90_p99(scratch, m, &out->p50, &out->p90, &out->p99, &out->max);
}

/* All seven percentile groups; false when out of memory. */
static bool all_percentiles(const gcs_gc_fold *f, gcs_gc_process *p)
{
    if (f->pause_failed)
        return false;
    /* One more than needed: malloc(0) may say NULL. */
    double *scratch = NULL;
    size_t cap = 0;
    if (!gcs_big_reserve_early((void **)&scratch, &cap, f->pause_n + 1, sizeof *scratch, 1))
        return false;
    percentiles(f, 0, 0, scratch, &p->pct_all);
    for (uint32_t g = 0; g < 3; g++)
        percentiles(f, 1, g, scratch, &p->pct_gen[g]);
    for (uint32_t k = 0; k < 3; k++)
        percentiles(f, 2, k, scratch, &p->pct_kind[k]);
    gcs_big_free(scratch, cap * sizeof *scratch);
    return true;
}

void gcs_gc_fold_add(gcs_gc_fold *f, const gcs_gc_info *gc)
{
    if (!gc->is_complete)
        return;
    if (!f->first_found) {
        f->first_found = true;
        f->first_pause_start = gc->pause_start_ms;
    }
    rollup_add(&f->all, gc);
    if (gc->generation <= 2)
        rollup_add(&f->gen[gc->generation], gc);
    size_t b = 0;
    while (b < GCS_GC_HIST_BUCKETS - 1 && gc->pause_ms >= gcs_gc_hist_bounds_ms[b])
        b++;
    f->histogram[b]++;
    if (f->pause_failed)
        return;
    if (!gcs_big_reserve_early((void **)&f->pause_ms, &f->pause_ms_cap, f->pause_n + 1,
                               sizeof *f->pause_ms, 256) ||
        !gcs_big_reserve_early((void **)&f->pause_key, &f->pause_key_cap, f->pause_n + 1,
                               sizeof *f->pause_key, 256)) {
        f->pause_failed = true;
        return;
    }
    uint32_t gen = gc->generation < 255 ? gc->generation : 255;
    uint32_t type = gc->type < 255 ? gc->type : 255;
    f->pause_ms[f->pause_n] = gc->pause_ms;
    f->pause_key[f->pause_n] = (uint16_t)(gen | type << 8);
    f->pause_n++;
}

void gcs_gc_fold_free(gcs_gc_fold *f)
{
    gcs_big_free(f->pause_ms, f->pause_ms_cap * sizeof *f->pause_ms);
    gcs_big_free(f->pause_key, f->pause_key_cap * sizeof *f->pause_key);
    memset(f, 0, sizeof *f);
}

/* RuntimeInformation StartupFlags bits. */
#define STARTUP_CONCURRENT_GC 0x1
#define STARTUP_SERVER_GC 0x1000

/* gc_mode and concurrent: from StartupFlags when they name server or
 * concurrent GC; else from the GC settings events; else inferred from what
 * the GCs show (several heaps: server; a background GC: concurrent). Flags
 * naming neither say nothing: a trace attached after startup can carry a
 * rundown RuntimeInformation with StartupFlags None whatever the GC. */
static void gc_flavour(const gcs_gc_runtime *rt, gcs_gc_process *p)
{
    bool flags_tell = rt->has_startup_flags &&
                      (rt->startup_flags & (STARTUP_CONCURRENT_GC | STARTUP_SERVER_GC)) != 0;
    p->gc_mode_inferred = p->concurrent_inferred = false;
    if (flags_tell)
        p->gc_mode = (rt->startup_flags & STARTUP_SERVER_GC) ? "server" : "workstation";
    else if (rt->server_gc_setting >= 0)
        p->gc_mode = rt->server_gc_setting ? "server" : "workstation";
    else if (rt->max_heap_count >= 1) {
        p->gc_mode = rt->max_heap_count > 1 ? "server" : "workstation";
        p->gc_mode_inferred = true;
    } else
        p->gc_mode = "unknown";

    if (flags_tell)
        p->concurrent = (rt->startup_flags & STARTUP_CONCURRENT_GC) ? 1 : 0;
    else if (rt->concurrent >= 0)
        p->concurrent = rt->concurrent;
    else if (rt->any_bgc) {
        p->concurrent = 1;
        p->concurrent_inferred = true;
    } else
        p->concurrent = -1;
}

void gcs_gc_derive(gcs_gc_analyzer *an, gcs_gc_runtime *rt)
{
    size_t n = rt->n;
    if (an->spill_fd < 0) {
        for (size_t i = 0; i < n; i++)
            check_times(rt, &RT_INFO(rt, i));
        for (size_t i = 0; i < n; i++) {
            if (RT_INFO(rt, i).is_complete)
                derive_one(rt, i, &RT_INFO(rt, i));
        }
        for (size_t i = 0; i < n; i++) {
            if (!RT_INFO(rt, i).is_complete) {
                incomplete_reason(rt, i, &RT_INFO(rt, i));
                blank_incomplete(rt, i, &RT_INFO(rt, i));
                rt->problems.incomplete_gcs++;
            }
        }
        for (size_t i = 0; i < n; i++)
            gcs_gc_fold_add(&rt->fold, &RT_INFO(rt, i));
    } /* else: each GC was folded as it was spilled (gc_analyzer.c) */

    gcs_gc_process *p = &rt->pub;
    memset(p, 0, sizeof *p);
    p->pid = rt->pid;
    p->clr_instance_id = rt->clr_instance_id;
    memcpy(p->runtime_version, rt->runtime_version, sizeof p->runtime_version);
    p->runtime_sku = rt->runtime_sku;
    p->native_aot = rt->native_aot;
    p->startup_flags = rt->startup_flags;
    gc_flavour(rt, p);
    p->heap_count = rt->heap_count;
    p->max_heap_count = rt->max_heap_count;
    p->min_heap_count = rt->min_heap_count;
    p->first_event_ms = an->first_event_ms;
    p->last_event_ms = an->last_event_ms;

    const gcs_gc_fold *f = &rt->fold;
    p->all = f->all;
    for (int g = 0; g < 3; g++)
        p->gen[g] = f->gen[g];
    memcpy(p->histogram, f->histogram, sizeof p->histogram);
    double first_pause_start = f->first_found ? f->first_pause_start : 0.0;
    rollup_means(&p->all);
    for (int g = 0; g < 3; g++)
        rollup_means(&p->gen[g]);
    /* GCStats.ProcessDuration / GetGCPauseTimePercentage. */
    p->process_duration_ms = first_pause_start == 0.0 ? 0 : rt->last_restart_end_ms - first_pause_start;
    p->pause_time_pct =
        p->process_duration_ms == 0 ? 0.0 : p->all.total_pause_ms * 100 / p->process_duration_ms;
    /* What a person means by "time paused": of the whole trace. */
    double trace_ms = p->last_event_ms - p->first_event_ms;
    p->pause_time_pct_of_trace = trace_ms > 0 ? p->all.total_pause_ms * 100 / trace_ms : NAN;

    if (!all_percentiles(f, p)) {
        /* No memory for percentiles: report them as unknown. */
        p->pct_all.p50 = p->pct_all.p90 = p->pct_all.p99 = p->pct_all.max = NAN;
    }
    p->problems = rt->problems;
    p->gc_count = n;
    p->gcs = an->spill_fd < 0 ? rt->info : NULL;
}

size_t gcs_gc_derive_first_unread(const gcs_gc_runtime *rt, size_t i, size_t *scan)
{
    const gcs_gc_info *gc = &RT_INFO(rt, i);
    if (gc->type != GCS_GC_BACKGROUND)
        return i + 1;
    /* derive_one's peak loop: it stops at the first GC paused after the end. */
    double ended = gc->pause_start_ms + gc->duration_ms;
    for (size_t k = *scan > i ? *scan : i + 1; k < rt->n; k++)
        if (ended < RT_INFO(rt, k).pause_start_ms)
            return k;
    *scan = rt->n;
    return 0;
}

void gcs_gc_derive_settle(gcs_gc_runtime *rt, size_t i, gcs_gc_info *out)
{
    /* Made final in out, the GC in the list left as recorded: one copy
     * of the record, not three (a copy, the GC made final in place, the
     * copy put back). */
    *out = RT_INFO(rt, i);
    check_times(rt, out);
    if (out->is_complete) {
        derive_one(rt, i, out);
    } else {
        incomplete_reason(rt, i, out);
        blank_incomplete(rt, i, out);
        rt->problems.incomplete_gcs++;
    }
}

/* derive_one(i) reads only recorded (not derived) values of the other
 * GCs, so GC i can be derived alone, early, with the final pass's result. */
void gcs_gc_derive_copy(gcs_gc_runtime *rt, size_t i, gcs_gc_info *out)
{
    gcs_gc_problems problems = rt->problems;
    gcs_gc_derive_settle(rt, i, out);
    rt->problems = problems;
}
