/*
 * analysis/gc/gc_analyzer.c - the GC state machine.
 *
 * Reproduces TraceEvent's TraceLoadedDotNetRuntime GC handlers (microsoft/
 * perfview src/TraceEvent/Computers/TraceManagedProcess.cs): which events
 * create, feed and complete a GC, and the per-process state they share.
 * The derived values (sizes before, allocation, peak, rates, rollups) are
 * computed once at the end, in list order, as TraceEvent's final
 * Calculate() pass does (gc_derive.c). docs/gc-stats.md explains where we
 * deliberately differ.
 */
#include "analysis/gc/gc_analyzer.h"

#include <assert.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analysis/gc/gc_internal.h"
#include "analysis/gc/gc_walk.h"
#include "analysis/gc/gc_survival.h"
#include "base/buf.h"
#include "base/error.h"
#include "base/sat_math.h"

#define DEFAULT_MAX_GCS ((size_t)10 * 1000 * 1000)
#define MAX_RUNTIMES 4096

double gcs_gc_cs_max(double a, double b)
{
    if (isnan(a) || isnan(b))
        return NAN;
    return a > b ? a : b;
}

static gcs_status settle_spilled(gcs_gc_analyzer *an, gcs_gc_runtime *rt);
static int spill_open(void);

/* ------------------------------------------------------------ runtimes */

static gcs_gc_runtime *runtime_new(uint32_t pid, uint16_t clr)
{
    gcs_gc_runtime *rt = calloc(1, sizeof *rt);
    if (!rt)
        return NULL;
    rt->pid = pid;
    rt->clr_instance_id = clr;
    rt->suspend_tid_gc = rt->suspend_tid_bgc = rt->suspend_tid_other = -1;
    rt->suspend_start_ms = -1;
    rt->suspend_end_ms = -1;
    rt->current_bgc = -1;
    rt->last_completed_gc = -1;
    rt->dropped_hs_index = -1;
    rt->heap_count = rt->max_heap_count = rt->min_heap_count = -1;
    rt->concurrent = -1;
    rt->server_gc_setting = -1;
    return rt;
}

/* runtime_for when the event is not the last runtime's: a search, or a
 * new runtime. */
static __attribute__((noinline)) gcs_gc_runtime *runtime_search(gcs_gc_analyzer *an, uint32_t pid,
                                                                bool has_clr, uint16_t clr)
{
    gcs_gc_runtime *found = NULL;
    for (size_t i = 0; i < an->runtime_count; i++) {
        gcs_gc_runtime *rt = an->runtimes[i];
        if (rt->pid != pid)
            continue;
        if (!has_clr || rt->clr_instance_id == clr) {
            found = rt;
            if (has_clr)
                break;
        }
    }
    if (!found) {
        if (an->runtime_count >= MAX_RUNTIMES)
            return NULL;
        if (an->runtime_count == an->runtime_cap) {
            size_t cap = an->runtime_cap ? an->runtime_cap * 2 : 4;
            gcs_gc_runtime **p = realloc(an->runtimes, cap * sizeof *p);
            if (!p)
                return NULL;
            an->runtimes = p;
            an->runtime_cap = cap;
        }
        found = runtime_new(pid, has_clr ? clr : 0);
        if (!found)
            return NULL;
        an->runtimes[an->runtime_count++] = found;
    }
    an->last_runtime = found;
    return found;
}

/* The runtime for (pid, ClrInstanceID). Events without a ClrInstanceID
 * (version 0 layouts) go to the runtime of that pid seen last. Almost
 * always the last runtime: that test in line, before any call. */
static inline gcs_gc_runtime *runtime_for(gcs_gc_analyzer *an, uint32_t pid, bool has_clr,
                                          uint16_t clr)
{
    gcs_gc_runtime *last = an->last_runtime;
    if (last && last->pid == pid && (!has_clr || last->clr_instance_id == clr))
        return last;
    return runtime_search(an, pid, has_clr, clr);
}

static gcs_status gc_append(gcs_gc_analyzer *an, gcs_gc_runtime *rt, int64_t *index)
{
    if (rt->n >= an->max_gcs)
        return GCS_ERR_LIMIT;
    if (rt->n - rt->base == rt->cap) {
        size_t cap = rt->cap ? rt->cap * 2 : 64;
        if (cap > an->max_gcs)
            cap = an->max_gcs;
        /* priv first: its own cap says what it holds when info fails. */
        if (rt->priv_cap < cap) {
            gcs_gc_priv *priv = gcs_big_resize(rt->priv, rt->priv_cap * sizeof *priv,
                                               cap * sizeof *priv);
            if (!priv)
                return GCS_ERR_NOMEM;
            rt->priv = priv;
            rt->priv_cap = cap;
        }
        gcs_gc_info *info = gcs_big_resize(rt->info, rt->cap * sizeof *info, cap * sizeof *info);
        if (!info)
            return GCS_ERR_NOMEM;
        rt->info = info;
        rt->cap = cap;
    }
    size_t i = rt->n++;
    memset(&RT_INFO(rt, i), 0, sizeof RT_INFO(rt, i));
    memset(&RT_PRIV(rt, i), 0, sizeof RT_PRIV(rt, i));
    RT_PRIV(rt, i).ph_first = RT_PRIV(rt, i).ph_last = -1;
    *index = (int64_t)i;
    return GCS_OK;
}

/* A new per-heap allocation record chained at the end of GC g's list. */
static gcs_gc_heap_alloc *heap_alloc_append(gcs_gc_runtime *rt, int64_t g)
{
    if (!gcs_big_reserve((void **)&rt->heap_allocs, &rt->heap_alloc_cap, rt->heap_alloc_n + 1,
                         sizeof *rt->heap_allocs, 64))
        return NULL;
    int64_t k = (int64_t)rt->heap_alloc_n++;
    gcs_gc_heap_alloc *ha = &rt->heap_allocs[k];
    memset(ha, 0, sizeof *ha);
    ha->next = -1;
    gcs_gc_priv *pv = &RT_PRIV(rt, g);
    if (pv->ph_last >= 0)
        rt->heap_allocs[pv->ph_last].next = k;
    else
        pv->ph_first = k;
    pv->ph_last = k;
    return ha;
}

/* TraceEvent's GetCurrentGC: the last GC if it is not complete, else the
 * background GC in progress. */
static int64_t current_gc(const gcs_gc_runtime *rt)
{
    if (rt->n == 0)
        return -1;
    if (!RT_INFO(rt, rt->n - 1).is_complete)
        return (int64_t)rt->n - 1;
    return rt->current_bgc;
}

/* GCStats.GetLastGC: with server GC known, histories fired after a server
 * BGC completed still reach it. */
static int64_t last_gc(const gcs_gc_analyzer *an, const gcs_gc_runtime *rt)
{
    int64_t g = current_gc(rt);
    if (an->opts.server_gc_known && g < 0 && rt->last_completed_gc >= 0)
        g = rt->last_completed_gc;
    return g;
}

static void complete(gcs_gc_runtime *rt, int64_t g)
{
    RT_INFO(rt, g).is_complete = true;
}

/* GCStats.AddConcurrentPauseTime. */
static void add_concurrent_pause(gcs_gc_runtime *rt, int64_t g, double restart_ms)
{
    gcs_gc_info *gc = &RT_INFO(rt, g);
    if (rt->suspend_tid_bgc > 0) {
        double pause = restart_ms - rt->suspend_start_ms;
        gc->pause_ms += pause;
        if (rt->last_suspend_reason == 6 /* SuspendForGCPrep */)
            gc->bgc_final_pause_ms = pause;
    } else {
        gc->pause_ms = restart_ms - gc->pause_start_ms;
    }
}

/* ------------------------------------------------------------ handlers */

static void on_suspend_begin(gcs_gc_runtime *rt, const gcs_gc_event_ctx *ctx, uint32_t reason)
{
    int64_t tid = (int64_t)ctx->tid;
    if (reason == 1)
        rt->suspend_tid_gc = tid;
    else if (reason == 6)
        rt->suspend_tid_bgc = tid;
    else {
        rt->suspend_tid_other = tid;
        return;
    }
    rt->last_suspend_reason = reason;
    rt->suspend_start_ms = ctx->msec;
}

static void on_suspend_end(gcs_gc_runtime *rt, const gcs_gc_event_ctx *ctx)
{
    int64_t tid = (int64_t)ctx->tid;
    if (tid != rt->suspend_tid_bgc && tid != rt->suspend_tid_gc)
        return;
    if (rt->suspend_tid_bgc > 0 && rt->current_bgc >= 0)
        RT_INFO(rt, rt->current_bgc).suspend_ms += ctx->msec - rt->suspend_start_ms;
    rt->suspend_end_ms = ctx->msec;
}

static gcs_status on_start(gcs_gc_analyzer *an, gcs_gc_runtime *rt, const gcs_gc_event_ctx *ctx,
                           const gcs_gc_record *rec)
{
    int32_t number = (int32_t)rec->u.start.count;
    if (!(rt->suspend_tid_gc > 0 || rt->suspend_tid_other > 0)) {
        rt->problems.starts_without_suspension++;
        return GCS_OK;
    }
    if (rt->n > 0 && RT_INFO(rt, rt->n - 1).number == number) {
        rt->problems.duplicate_starts++;
        return GCS_OK;
    }
    if (rt->n > 0 && (int64_t)number != (int64_t)RT_INFO(rt, rt->n - 1).number + 1)
        rt->problems.number_jumps++;

    uint32_t type = rec->u.start.type;
    uint32_t reason = rec->u.start.reason;
    bool ephemeral_at_bgc_start = false;
    if (rt->n > 0) {
        const gcs_gc_info *last = &RT_INFO(rt, rt->n - 1);
        ephemeral_at_bgc_start = last->type == GCS_GC_BACKGROUND && !last->is_complete &&
                                 type == GCS_GC_NONCONCURRENT;
    }
    /* Evaluated before appending, as TraceEvent does. */
    int64_t previous_current = current_gc(rt);

    int64_t g;
    gcs_status st = gc_append(an, rt, &g);
    if (st != GCS_OK)
        return st;
    gcs_gc_info *gc = &RT_INFO(rt, g);
    gc->number = number;
    gc->generation = rec->u.start.depth;
    gc->type = type;
    gc->reason = reason;
    gc->heap_count = rt->heap_count;
    gc->num_heaps = -1;
    gc->compacting = gc->compact_reason = -1;
    for (int k = 0; k < GCS_GEN_COUNT; k++)
        gc->survival_pct[k] = gc->fragmentation_pct[k] = NAN;

    if (ephemeral_at_bgc_start || reason == 0xC /* PMFullGC */) {
        gc->pause_start_ms = ctx->msec;
        if (reason == 0xC && previous_current >= 0)
            complete(rt, previous_current);
    } else {
        gc->pause_start_ms = rt->suspend_start_ms;
        if (rt->suspend_end_ms == -1)
            rt->suspend_end_ms = ctx->msec;
        gc->suspend_ms = rt->suspend_end_ms - rt->suspend_start_ms;
    }
    gc->start_ms = ctx->msec;
    if (type == GCS_GC_BACKGROUND) {
        if (rt->current_bgc >= 0 && !RT_INFO(rt, rt->current_bgc).is_complete)
            RT_PRIV(rt, rt->current_bgc).superseded = true;
        rt->current_bgc = g;
        gc->pause_ms = gc->suspend_ms;
        rt->any_bgc = true;
    }
    return GCS_OK;
}

static void on_end(gcs_gc_runtime *rt, const gcs_gc_event_ctx *ctx)
{
    int64_t g = current_gc(rt);
    if (g < 0) {
        rt->problems.orphan_events++;
        return;
    }
    RT_INFO(rt, g).duration_ms = ctx->msec - RT_INFO(rt, g).start_ms;
}

static void on_heap_stats(gcs_gc_runtime *rt, const gcs_gc_event_ctx *ctx,
                          const gcs_gc_record *rec)
{
    int64_t g = current_gc(rt);
    if (g >= 0) {
        gcs_gc_info *gc = &RT_INFO(rt, g);
        gcs_gc_priv *pv = &RT_PRIV(rt, g);
        for (int k = 0; k < GCS_GEN_COUNT; k++) {
            pv->gen_size[k] = rec->u.heap_stats.generation_size[k];
            pv->promoted[k] = rec->u.heap_stats.total_promoted_size[k];
        }
        pv->finalization_promoted_size = rec->u.heap_stats.finalization_promoted_size;
        gc->pinned_objects = rec->u.heap_stats.pinned_object_count;
        gc->has_heap_stats = true;
        if (gc->type == GCS_GC_BACKGROUND)
            gc->duration_since_last_restart_ms = ctx->msec - rt->last_restart_end_ms;
        else
            gc->duration_since_last_restart_ms = gc->pause_start_ms - rt->last_restart_end_ms;
        if (rt->has_alloc_tick) {
            pv->has_alloc_tick = true;
            for (int k = 0; k < 3; k++)
                gc->alloc_tick_mb[k] = rt->alloc_tick_current_mb[k] - rt->alloc_tick_at_last_gc[k];
        }
        if (gc->type == GCS_GC_BACKGROUND && rt->current_bgc >= 0) {
            complete(rt, rt->current_bgc);
            rt->last_completed_gc = rt->current_bgc;
            rt->current_bgc = -1;
        }
        if (pv->is_concurrent_gc) {
            complete(rt, g);
            rt->last_completed_gc = g;
        }
    } else {
        rt->problems.orphan_events++;
    }
    /* Always, even with no GC to attach to. */
    for (int k = 0; k < 3; k++)
        rt->alloc_tick_at_last_gc[k] = rt->alloc_tick_current_mb[k];
    rt->last_restart_end_ms = ctx->msec;
}

static void on_restart_end(gcs_gc_runtime *rt, const gcs_gc_event_ctx *ctx)
{
    int64_t tid = (int64_t)ctx->tid;
    if (tid == rt->suspend_tid_other)
        rt->suspend_tid_other = -1;
    if (tid != rt->suspend_tid_bgc && tid != rt->suspend_tid_gc)
        return;
    int64_t g = current_gc(rt);
    if (g >= 0) {
        gcs_gc_info *gc = &RT_INFO(rt, g);
        if (gc->type == GCS_GC_BACKGROUND) {
            add_concurrent_pause(rt, g, ctx->msec);
        } else if (gc->duration_ms == 0) {
            /* No GCEnd yet: TraceEvent treats it as a .NET 2.0 concurrent GC. */
            RT_PRIV(rt, g).is_concurrent_gc = true;
            add_concurrent_pause(rt, g, ctx->msec);
        } else {
            gc->pause_ms = ctx->msec - gc->pause_start_ms;
            if (gc->has_heap_stats) {
                complete(rt, g);
                rt->last_completed_gc = g;
            }
        }
    }
    rt->suspend_start_ms = -1;
    rt->suspend_tid_bgc = -1;
    rt->suspend_tid_gc = -1;
}

/* GCAllocationTickTraceData.GetAllocAmount and the tick accumulators:
 * Small [0], Large [1], anything else (Pinned) [2] - as TraceEvent 4.0.0
 * does (its GitHub head folds Pinned into [1]; the oracle shows [2]). The
 * pinned bucket feeds no derived value: POH allocation falls back on [1]. */
static inline void on_alloc_tick(gcs_gc_runtime *rt, uint32_t version, uint32_t amount32,
                                 uint32_t kind, uint64_t amount64)
{
    rt->has_alloc_tick = true;
    int64_t amount = version >= 2 ? (int64_t)amount64 : 0;
    if (amount == 0)
        amount = (int32_t)amount32;
    if (amount < 0)
        rt->seen_bad_alloc_tick = true;
    if (rt->seen_bad_alloc_tick) {
        if (amount < 90 * 1024)
            amount = 90 * 1024;
        int64_t cap = kind == 0 ? 110 * 1024 : 2 * 1024 * 1024;
        if (amount > cap)
            amount = cap;
    }
    double mb = (double)amount / 1000000.0;
    rt->alloc_tick_current_mb[kind == 0 ? 0 : kind == 1 ? 1 : 2] += mb;
}

static void on_global_history(gcs_gc_analyzer *an, gcs_gc_runtime *rt, const gcs_gc_record *rec)
{
    int32_t nh = rec->u.global_heap_history.num_heaps;
    if (rt->heap_count == -1)
        rt->heap_count = nh;
    if (nh > rt->max_heap_count)
        rt->max_heap_count = nh;
    if (rt->min_heap_count == -1 || nh < rt->min_heap_count)
        rt->min_heap_count = nh;
    int64_t g = last_gc(an, rt);
    if (g < 0) {
        rt->problems.orphan_events++;
        return;
    }
    gcs_gc_info *gc = &RT_INFO(rt, g);
    gc->has_global_history = true;
    if (gc->heap_count == -1)
        gc->heap_count = nh;
    if (gc->num_heaps == -1) {
        gc->num_heaps = nh;
        /* gc_global_mechanism_p: bit 1 is global_compaction. */
        gc->compacting = (rec->u.global_heap_history.global_mechanisms & 0x2u) ? 1 : 0;
    }
}

/* Decodes a (Reasons, ReasonsEx) pair into TraceEvent's 30 groups. */
static void decode_condemned(uint32_t reasons, uint32_t reasons_ex, uint32_t version,
                             uint8_t groups[GCS_GC_CONDEMNED_GROUPS])
{
    /* condition bit -> (group, value); group 255: ignored condition */
    static const uint8_t cond_group[31] = {4, 6, 255, 255, 5, 14, 7, 9, 8, 10, 10, 2, 11, 12, 4, 13,
                                           15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29};
    memset(groups, 0, GCS_GC_CONDEMNED_GROUPS);
    for (int k = 0; k < 4; k++)
        groups[k] = (uint8_t)((reasons >> (2 * k)) & 3);
    /* Condition c is bit (c + 16) mod 32 of Reasons in version 0, bit c of
     * ReasonsEx from version 2. Only the set ones are visited, in
     * ascending order (conditions sharing a group: the last one wins). */
    uint32_t set = version == 0 ? (reasons >> 16) | (reasons << 16) : version >= 2 ? reasons_ex : 0;
    set &= 0x7fffffffu;
    for (; set; set &= set - 1) {
        uint32_t c = (uint32_t)__builtin_ctz(set);
        if (cond_group[c] == 255)
            continue;
        uint8_t value = 1;
        if (c == 14)
            value = 2; /* induced, not forced */
        else if (c == 11)
            value = 2; /* max_gen1: Alloc_Exceeded = 2 */
        groups[cond_group[c]] = value;
    }
}

static gcs_status on_per_heap_history(gcs_gc_analyzer *an, gcs_gc_runtime *rt,
                                      const gcs_gc_record *rec)
{
    uint32_t ps = rec->pointer_size;
    uint32_t layout = rec->u.per_heap_history.layout;
    /* TraceEvent's VersionRecognized for V3+: room for at least 4 generations. */
    if (layout == 3 && (uint64_t)rec->payload_size < 30ull + 7ull * ps + 40ull * ps) {
        rt->problems.unrecognised_histories++;
        return GCS_OK;
    }
    int64_t g = last_gc(an, rt);
    if (g < 0) {
        rt->problems.orphan_events++;
        return GCS_OK;
    }
    gcs_gc_heap_alloc *ha = heap_alloc_append(rt, g);
    if (!ha)
        return GCS_ERR_NOMEM;
    gcs_gc_info *gc = &RT_INFO(rt, g);
    gcs_gc_priv *pv = &RT_PRIV(rt, g);
    uint32_t heap = pv->ph_count;
    if (heap == 0) {
        pv->ph_gen_count = rec->u.per_heap_history.gen_count;
        pv->ph_layout = layout;
    }
    pv->ph_count++;
    gc->per_heap_histories = pv->ph_count;
    uint32_t ngen = rec->u.per_heap_history.gen_count;
    for (uint32_t k = 0; k < ngen && k < GCS_GEN_COUNT; k++) {
        gcs_gc_gen_data gd;
        if (!gcs_gc_per_heap_gen(rec, k, &gd))
            break;
        pv->ph_size_before_mb[k] += (double)(int64_t)gd.size_before / 1000000.0;
        pv->ph_frag_mb[k] += (double)gcs_gc_gen_fragmentation(&gd, layout) / 1000000.0;
        /* Sums of trace values over heaps: saturated, never overflowing.
         * Only where the GC reports a survival (a division a rate). */
        if (gcs_gc_survival_reported(k, gc->generation))
            gcs_sat_acc_i64(&pv->ph_surv_rate_sum[k], gcs_gc_gen_surv_rate(&gd, layout));
        int a = k == 0 ? 0 : k == GCS_GEN_LOH ? 1 : k == GCS_GEN_POH ? 2 : -1;
        if (a < 0)
            continue;
        ha->obj_space_before[a] = gcs_gc_gen_obj_space_before(&gd, layout);
        /* What the next GC will subtract as "previous object size". */
        int64_t prev_obj = gcs_gc_gen_obj_size_after(&gd, layout);
        gcs_sat_acc_i64(&ha->obj_size_after, prev_obj);
        if ((k == GCS_GEN_LOH || k == GCS_GEN_POH) && prev_obj == 0 && gc->generation < 1)
            prev_obj = gcs_gc_gen_obj_space_before(&gd, layout);
        ha->next_prev_obj[a] = prev_obj;
    }
    /* The runtime stores a per-heap mechanism as bit 31 (it applied) | 1 << reason. */
    uint32_t cm = rec->u.per_heap_history.compact_mechanisms, why = cm & 0x7FFFFFFFu;
    if (gc->compact_reason < 0 && (cm & 0x80000000u) && why && !(why & (why - 1)))
        gc->compact_reason = (int8_t)__builtin_ctz(why);
    /* Condemned reasons: heap 0, and the first heap whose final generation
     * is the GC's (TraceEvent's FindFirstHighestCondemnedHeap). */
    uint32_t version = layout;
    uint32_t r1 = rec->u.per_heap_history.has_condemn_reasons1 ? rec->u.per_heap_history.condemn_reasons1 : 0;
    uint8_t groups[GCS_GC_CONDEMNED_GROUPS];
    decode_condemned(rec->u.per_heap_history.condemn_reasons0, r1, version, groups);
    if (heap == 0)
        memcpy(pv->groups_heap0, groups, sizeof groups);
    if (!pv->highest_found && groups[1] == gc->generation) {
        pv->highest_found = true;
        memcpy(pv->groups_highest, groups, sizeof groups);
    }
    return GCS_OK;
}

static void on_runtime_information(gcs_gc_runtime *rt, const gcs_gc_record *rec)
{
    /* As TraceEvent: keep the first version unless a later one has a QFE. */
    if (!rt->runtime_version[0] || rec->u.runtime_information.vm_qfe > 0) {
        snprintf(rt->runtime_version, sizeof rt->runtime_version, "%u.%u.%u.%u",
                 (unsigned)rec->u.runtime_information.vm_major,
                 (unsigned)rec->u.runtime_information.vm_minor,
                 (unsigned)rec->u.runtime_information.vm_build,
                 (unsigned)rec->u.runtime_information.vm_qfe);
        rt->runtime_sku = rec->u.runtime_information.sku;
    }
    rt->startup_flags = rec->u.runtime_information.startup_flags;
    rt->has_startup_flags = true;
}

gcs_status gcs_gc_analyzer_feed_record(gcs_gc_analyzer *an, const gcs_gc_event_ctx *ctx,
                                       const gcs_gc_record *rec)
{
    if (an->failed)
        return an->failed;
    gcs_gc_runtime *rt = runtime_for(an, ctx->pid, rec->has_clr_instance_id, rec->clr_instance_id);
    if (!rt) {
        an->failed = GCS_ERR_NOMEM;
        return an->failed;
    }
    gcs_status st = GCS_OK;
    switch (rec->kind) {
    case GCS_GCK_SUSPEND_EE_BEGIN: on_suspend_begin(rt, ctx, rec->u.suspend_ee_begin.reason); break;
    case GCS_GCK_SUSPEND_EE_END: on_suspend_end(rt, ctx); break;
    case GCS_GCK_START: st = on_start(an, rt, ctx, rec); break;
    case GCS_GCK_END: on_end(rt, ctx); break;
    case GCS_GCK_HEAP_STATS: on_heap_stats(rt, ctx, rec); break;
    case GCS_GCK_RESTART_EE_END: on_restart_end(rt, ctx); break;
    case GCS_GCK_ALLOCATION_TICK:
        on_alloc_tick(rt, rec->version, rec->u.allocation_tick.allocation_amount,
                      rec->u.allocation_tick.allocation_kind,
                      rec->u.allocation_tick.allocation_amount64);
        break;
    case GCS_GCK_GLOBAL_HEAP_HISTORY: on_global_history(an, rt, rec); break;
    case GCS_GCK_PER_HEAP_HISTORY: st = on_per_heap_history(an, rt, rec); break;
    case GCS_GCK_RUNTIME_INFORMATION: on_runtime_information(rt, rec); break;
    case GCS_GCK_MODULE:
        /* NativeAOT's executable: a native image (ModuleFlags 0x2) with no
         * assembly and no IL file. CoreCLR's modules all have assemblies. */
        if (rec->u.module.assembly_id == 0 && (rec->u.module.flags & 0x2) &&
            rec->u.module.il_path.units == 0)
            rt->native_aot = true;
        break;
    case GCS_GCK_SETTINGS: rt->server_gc_setting = rec->u.settings.server_gc ? 1 : 0; break;
    case GCS_GCK_SETTINGS_RUNDOWN:
        rt->concurrent = (rec->u.settings_rundown.bit_settings & 1) ? 1 : 0;
        break;
    default:
        /* Other GC events do not change any GCStats number (marks, joins,
         * BGC phases, segments, handles, ...). */
        break;
    }
    if (st < 0)
        an->failed = st;
    else if (rec->kind == GCS_GCK_START || rec->kind == GCS_GCK_HEAP_STATS ||
             rec->kind == GCS_GCK_RESTART_EE_END)
        st = settle_spilled(an, rt);
    return st;
}

void gcs_gc_analyzer_count_truncated(gcs_gc_analyzer *an, uint32_t pid)
{
    an->truncated_events++;
    (void)pid;
}

/* ------------------------------------------------------------ public API */

gcs_gc_analyzer *gcs_gc_analyzer_new(const gcs_gc_options *opts, gcs_error *err)
{
    gcs_gc_analyzer *an = calloc(1, sizeof *an);
    if (!an) {
        GCS_FAIL(err, GCS_ERR_NOMEM, 0, "out of memory for the GC analyzer");
        return NULL;
    }
    if (opts)
        an->opts = *opts;
    an->max_gcs = an->opts.max_gcs ? an->opts.max_gcs : DEFAULT_MAX_GCS;
    /* Without a temporary file the records stay in memory: the same
     * results, only more memory (gcs_gc_process.gcs then says so). */
    an->spill_fd = an->opts.spill_gcs ? spill_open() : -1;
    an->spill_mem_max = an->opts.spill_memory_bytes ? an->opts.spill_memory_bytes
                                                    : GCS_GC_SPILL_MEMORY;
    gcs_gc_kind_cache_init(&an->kinds);
    an->first_event_ms = NAN;
    an->last_event_ms = NAN;
    return an;
}

/* The kinds that change a GCStats number (gcs_gc_analyzer_feed_record's
 * switch); the others (handles, marks, joins, BGC phases, segments...) are
 * skipped before decoding. */
static bool feeds_gcstats(gcs_gc_kind kind)
{
    switch (kind) {
    case GCS_GCK_SUSPEND_EE_BEGIN: case GCS_GCK_SUSPEND_EE_END: case GCS_GCK_START:
    case GCS_GCK_END: case GCS_GCK_HEAP_STATS: case GCS_GCK_RESTART_EE_END:
    case GCS_GCK_ALLOCATION_TICK: case GCS_GCK_GLOBAL_HEAP_HISTORY:
    case GCS_GCK_PER_HEAP_HISTORY: case GCS_GCK_RUNTIME_INFORMATION: case GCS_GCK_SETTINGS:
    case GCS_GCK_SETTINGS_RUNDOWN: case GCS_GCK_MODULE:
        return true;
    default:
        return false;
    }
}

/* An AllocationTick, the general case: a short payload (counted), or
 * another runtime than the last one. */
static __attribute__((noinline)) gcs_status feed_tick_slow(gcs_gc_analyzer *an,
                                                           const gcs_event *ev)
{
    gcs_gc_alloc_amount a;
    if (gcs_gc_decode_alloc_amount(ev->payload, ev->payload_size, ev->type->version, &a) !=
        GCS_OK) {
        gcs_gc_analyzer_count_truncated(an, ev->pid);
        return GCS_OK;
    }
    gcs_gc_runtime *rt = runtime_for(an, ev->pid, a.has_clr_instance_id, a.clr_instance_id);
    if (!rt) {
        an->failed = GCS_ERR_NOMEM;
        return an->failed;
    }
    on_alloc_tick(rt, ev->type->version, a.amount, a.kind, a.amount64);
    return GCS_OK;
}

/* An AllocationTick, the most frequent GC event: its amount read without
 * the type name or a record; the usual case (the last runtime's) makes no
 * call, so gcs_gc_analyzer_feed saves no registers for it. */
static inline gcs_status feed_tick(gcs_gc_analyzer *an, const gcs_event *ev)
{
    gcs_gc_alloc_amount a;
    gcs_gc_runtime *rt = an->last_runtime;
    if (gcs_gc_decode_alloc_amount(ev->payload, ev->payload_size, ev->type->version, &a) !=
            GCS_OK ||
        !rt || rt->pid != ev->pid ||
        (a.has_clr_instance_id && rt->clr_instance_id != a.clr_instance_id))
        return feed_tick_slow(an, ev);
    on_alloc_tick(rt, ev->type->version, a.amount, a.kind, a.amount64);
    return GCS_OK;
}

/* The part of feeding that decodes a record: the other kinds that matter. */
static __attribute__((noinline)) gcs_status feed_decoded(gcs_gc_analyzer *an, const gcs_event *ev,
                                                          gcs_gc_kind kind)
{
    gcs_gc_record rec;
    if (gcs_gc_decode(ev, kind, &rec, NULL) != GCS_OK) {
        gcs_gc_analyzer_count_truncated(an, ev->pid);
        return GCS_OK;
    }
    gcs_gc_event_ctx ctx = {ev->pid, ev->tid, ev->msec};
    return gcs_gc_analyzer_feed_record(an, &ctx, &rec);
}

/*
 * SuspendEEStart, SuspendEEStop and RestartEEStop, read without a record:
 * two thirds of the GC events fed to the analyzer (the runtime suspends
 * for other reasons than a GC, three or four times a GC in a busy
 * program), each ~230 instructions through gcs_gc_decode and
 * gcs_gc_analyzer_feed_record. The layouts are gc_events.c's
 * (dec_suspend_begin, dec_clr_only): SuspendEEStart V0 a UInt16 Reason,
 * V1+ UInt32 Reason, UInt32 Count, UInt16 ClrInstanceID; the two others
 * V1+ a ClrInstanceID. A payload shorter than its layout goes the general
 * way, which counts it as truncated.
 */
static gcs_status feed_suspension(gcs_gc_analyzer *an, const gcs_event *ev, gcs_gc_kind kind)
{
    const uint32_t version = ev->type->version;
    const bool begin = kind == GCS_GCK_SUSPEND_EE_BEGIN;
    const uint32_t need = version >= 1 ? (begin ? 10 : 2) : begin ? 2 : 0;
    if (ev->payload_size < need)
        return feed_decoded(an, ev, kind);
    /* The reads below stay within the `need` bytes just checked. */
    gcs_cursor c = gcs_cur_make(ev->payload ? ev->payload : (const uint8_t *)"", need, 0);
    uint32_t reason = 0;
    uint16_t clr = 0;
    if (begin && version == 0) {
        uint16_t reason16 = 0;
        (void)gcs_cur_u16(&c, &reason16);
        reason = reason16;
    } else if (begin) {
        (void)gcs_cur_u32(&c, &reason);
        (void)gcs_cur_skip(&c, 4); /* Count */
    }
    if (version >= 1)
        (void)gcs_cur_u16(&c, &clr);
    gcs_gc_runtime *rt = runtime_for(an, ev->pid, version >= 1, clr);
    if (!rt) {
        an->failed = GCS_ERR_NOMEM;
        return an->failed;
    }
    const gcs_gc_event_ctx ctx = {ev->pid, ev->tid, ev->msec};
    if (begin)
        on_suspend_begin(rt, &ctx, reason);
    else if (kind == GCS_GCK_SUSPEND_EE_END)
        on_suspend_end(rt, &ctx);
    else {
        on_restart_end(rt, &ctx);
        return settle_spilled(an, rt);
    }
    return GCS_OK;
}

/* Feeds an event of a known kind (NONE: one that changes no number). */
static inline gcs_status feed_kind(gcs_gc_analyzer *an, const gcs_event *ev, gcs_gc_kind kind)
{
    if (kind == GCS_GCK_ALLOCATION_TICK)
        return feed_tick(an, ev);
    if (kind == GCS_GCK_NONE)
        return GCS_OK;
    if (kind == GCS_GCK_SUSPEND_EE_BEGIN || kind == GCS_GCK_SUSPEND_EE_END ||
        kind == GCS_GCK_RESTART_EE_END)
        return feed_suspension(an, ev, kind);
    return feed_decoded(an, ev, kind);
}

/* An event whose type missed the kinds' cache: its kind found and kept. */
static __attribute__((noinline)) gcs_status feed_uncached(gcs_gc_analyzer *an,
                                                          const gcs_event *ev, size_t slot)
{
    gcs_gc_kind kind = gcs_gc_kind_cached(&an->kinds, ev->type);
    if (!feeds_gcstats(kind))
        kind = GCS_GCK_NONE;
    an->kind_cache_type[slot] = ev->type;
    an->kind_cache_kind[slot] = kind;
    return feed_kind(an, ev, kind);
}

gcs_status gcs_gc_analyzer_feed(gcs_gc_analyzer *an, const gcs_event *ev)
{
    if (an->failed)
        return an->failed;
    if (isnan(an->first_event_ms))
        an->first_event_ms = ev->msec;
    an->last_event_ms = ev->msec;
    /* A direct-mapped cache of kinds by type (by the reader's type index:
     * a trace's first 64 types never share a slot); kinds that change no
     * GCStats number are cached as NONE, so most events stop here
     * undecoded. Only tail calls below: the tick's path saves nothing. */
    size_t slot = ev->type->index & (GCS_GC_FAST_KIND_SLOTS - 1);
    if (an->kind_cache_type[slot] != ev->type)
        return feed_uncached(an, ev, slot);
    return feed_kind(an, ev, an->kind_cache_kind[slot]);
}

bool gcs_gc_wants(void *ctx, const gcs_event_type *type)
{
    (void)ctx;
    return feeds_gcstats(gcs_gc_classify(type));
}

bool gcs_gc_taps(void *ctx, const gcs_event_type *type)
{
    (void)ctx;
    /* Events read from their first bytes only: a tick's amounts, a
     * suspension's reason and ClrInstanceID (feed_tick, feed_suspension;
     * at most 18 bytes, GCS_TAP_HEAD_BYTES hold them). */
    switch (gcs_gc_classify(type)) {
    case GCS_GCK_ALLOCATION_TICK: case GCS_GCK_SUSPEND_EE_BEGIN: case GCS_GCK_SUSPEND_EE_END:
    case GCS_GCK_RESTART_EE_END:
        return true;
    default:
        return false;
    }
}

gcs_status gcs_gc_analyzer_status(const gcs_gc_analyzer *an)
{
    return an->failed;
}

/* A tapped event as delivery would have given it, its head for payload. */
static gcs_event event_of_tap(const gcs_tap_event *ev)
{
    return (gcs_event){.type = ev->type, .timestamp = ev->timestamp, .msec = ev->msec,
                       .pid = ev->pid, .tid = ev->tid, .payload = ev->head,
                       .payload_size = ev->head_size, .pointer_size = ev->pointer_size};
}

/* A tick gcs_gc_analyzer_tap does not take from the head itself (another
 * runtime's, a truncated head): what delivery would have fed. Apart, so
 * that the usual tick builds no event and saves no registers. */
static __attribute__((noinline)) void tap_slow(gcs_gc_analyzer *an, const gcs_tap_event *ev)
{
    const gcs_event e = event_of_tap(ev);
    (void)feed_tick_slow(an, &e);
}

/* A tapped event other than a tick of the kinds' cache (a suspension, or
 * the first tick): fed as delivered, from its head, which holds every
 * field feed_suspension and feed_tick read. */
static __attribute__((noinline)) void tap_fed(gcs_gc_analyzer *an, const gcs_tap_event *ev)
{
    const gcs_event e = event_of_tap(ev);
    (void)gcs_gc_analyzer_feed(an, &e);
}

void gcs_gc_analyzer_tap(void *ctx, const gcs_tap_event *ev)
{
    gcs_gc_analyzer *an = ctx;
    if (an->failed)
        return;
    const size_t slot = ev->type->index & (GCS_GC_FAST_KIND_SLOTS - 1);
    if (an->kind_cache_type[slot] != ev->type ||
        an->kind_cache_kind[slot] != GCS_GCK_ALLOCATION_TICK) {
        tap_fed(an, ev);
        return;
    }
    /* The fields feed_tick reads (the amounts, at most 18 bytes) are in
     * the head; what delivery would have set besides them. */
    if (isnan(an->first_event_ms))
        an->first_event_ms = ev->msec;
    an->last_event_ms = ev->msec;
    /* feed_tick's usual case, from the head: the last runtime's. */
    gcs_gc_alloc_amount a;
    gcs_gc_runtime *rt = an->last_runtime;
    const uint32_t version = ev->type->version;
    if (gcs_gc_decode_alloc_amount(ev->head, ev->head_size, version, &a) == GCS_OK && rt &&
        rt->pid == ev->pid && (!a.has_clr_instance_id || rt->clr_instance_id == a.clr_instance_id)) {
        on_alloc_tick(rt, version, a.amount, a.kind, a.amount64);
        return;
    }
    tap_slow(an, ev);
}

void gcs_gc_analyzer_set_span(gcs_gc_analyzer *an, double first_ms, double last_ms)
{
    an->first_event_ms = first_ms;
    an->last_event_ms = last_ms;
}

void gcs_gc_analyzer_set_lost_events(gcs_gc_analyzer *an, uint64_t lost)
{
    an->lost_events = lost;
}

/* No event can change GC j any more: it is neither the incomplete last
 * GC, nor the background GC in progress, nor (server GC known) the GC
 * late histories still reach (current_gc, last_gc, on_suspend_end). */
static bool gc_frozen(const gcs_gc_analyzer *an, const gcs_gc_runtime *rt, size_t j)
{
    if (j + 1 == rt->n && !RT_INFO(rt, j).is_complete)
        return false;
    if ((int64_t)j == rt->current_bgc)
        return false;
    return !(an->opts.server_gc_known && (int64_t)j == rt->last_completed_gc);
}

/* GC i (all before it handed out) is final: it and every later GC the
 * final pass reads for it are frozen. */
static bool gc_settled(const gcs_gc_analyzer *an, gcs_gc_runtime *rt, size_t i)
{
    if (!gc_frozen(an, rt, i))
        return false;
    size_t end = gcs_gc_derive_first_unread(rt, i, &rt->settle_scan);
    if (end == 0)
        return false;
    size_t k = rt->settle_frozen > i ? rt->settle_frozen : i + 1;
    for (; k < end; k++) {
        if (!gc_frozen(an, rt, k)) {
            rt->settle_frozen = k; /* frozen for good once frozen */
            return false;
        }
    }
    return true;
}

/* ------------------------------------------------------------ spilling
 *
 * With opts.spill_gcs each GC, once settled (gc_settled), is made final
 * (gcs_gc_derive_settle), folded into the runtime's summary and written
 * to the spill file, GCS_GC_SPILL_CHUNK records at a time; the GCs before
 * the last one handed out are then dropped (the derivation of GC i reads
 * GC i - 1 and the last GC with heap stats before it, kept apart), so
 * memory holds the GCs in flight, not the trace's. */

/* A temporary file in $TMPDIR (else /tmp), already removed; -1 if none. */
static int spill_open(void)
{
    const char *dir = getenv("TMPDIR");
    if (!dir || !dir[0])
        dir = "/tmp";
    char path[4096];
    if (snprintf(path, sizeof path, "%s/gcscope-gcs-XXXXXX", dir) >= (int)sizeof path)
        return -1;
    int fd = mkstemp(path);
    if (fd >= 0)
        unlink(path);
    return fd;
}

/* len bytes at offset off of the spill file, written from or read into
 * buf whole (a short transfer goes on, EINTR retried); false if not. */
static bool spill_file_io(int fd, bool write, void *buf, size_t len, uint64_t off)
{
    char *p = buf;
    for (size_t done = 0; done < len;) {
        ssize_t r = write ? pwrite(fd, p + done, len - done, (off_t)(off + done))
                          : pread(fd, p + done, len - done, (off_t)(off + done));
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            return false;
        done += (size_t)r;
    }
    return true;
}

/* Of len bytes at offset off of the spill, how many lie in memory (the
 * first spill_mem_max bytes of the spill); the rest are in the file. */
static size_t spill_mem_part(const gcs_gc_analyzer *an, size_t len, uint64_t off)
{
    if (off >= an->spill_mem_max)
        return 0;
    return an->spill_mem_max - off < len ? (size_t)(an->spill_mem_max - off) : len;
}

/* len bytes at offset off of the spill, written from or read into buf
 * whole, those in memory then those in the file. Writing: GCS_OK,
 * GCS_ERR_NOMEM or GCS_ERR_IO; reading: false when the file failed or the
 * bytes were not written. */
static gcs_status spill_write(gcs_gc_analyzer *an, const void *buf, size_t len, uint64_t off)
{
    const uint8_t *p = buf;
    const size_t take = spill_mem_part(an, len, off);
    if (take > 0) {
        if (!gcs_big_reserve((void **)&an->spill_mem, &an->spill_mem_cap, (size_t)off + take, 1,
                             GCS_BIG_BYTES))
            return GCS_ERR_NOMEM;
        memcpy(an->spill_mem + off, p, take);
        p += take;
        len -= take;
        off += take;
    }
    return len == 0 || spill_file_io(an->spill_fd, true, (void *)p, len, off) ? GCS_OK
                                                                             : GCS_ERR_IO;
}

static bool spill_read_at(const gcs_gc_analyzer *an, void *buf, size_t len, uint64_t off)
{
    uint8_t *p = buf;
    if (off > an->spill_end || len > an->spill_end - off)
        return false;
    const size_t take = spill_mem_part(an, len, off);
    if (take > 0) {
        assert(off + take <= an->spill_mem_cap);
        memcpy(p, an->spill_mem + off, take);
        p += take;
        len -= take;
        off += take;
    }
    return len == 0 || spill_file_io(an->spill_fd, false, p, len, off);
}

/* The bytes of a spill buffer of cap records: GCS_GC_SPILL_MAX of them
 * take a whole 2 MiB page (gcs_big_resize gives one from GCS_BIG_BYTES). */
static size_t spill_buf_bytes(size_t cap)
{
    return cap < GCS_GC_SPILL_MAX ? cap * sizeof(gcs_gc_info) : GCS_BIG_BYTES;
}

_Static_assert(GCS_GC_SPILL_MAX * sizeof(gcs_gc_info) <= GCS_BIG_BYTES,
               "the largest spill buffer fits its page");

/* The empty spill buffer of rt (GCS_GC_SPILL_FIRST records) made
 * GCS_GC_SPILL_MAX long; left as it is when memory is short. */
static void spill_buf_grow(gcs_gc_runtime *rt)
{
    assert(rt->spill_buf_n == 0);
    void *p = gcs_big_resize(NULL, 0, spill_buf_bytes(GCS_GC_SPILL_MAX));
    if (!p)
        return;
    gcs_big_free(rt->spill_buf, spill_buf_bytes(rt->spill_buf_cap));
    rt->spill_buf = p;
    rt->spill_buf_cap = GCS_GC_SPILL_MAX;
}

/* Writes the runtime's waiting final GCs to the spill file as one chunk. */
static gcs_status spill_flush(gcs_gc_analyzer *an, gcs_gc_runtime *rt)
{
    if (rt->spill_buf_n == 0)
        return GCS_OK;
    if (!gcs_array_reserve((void **)&rt->spill_chunks, &rt->spill_chunk_cap, rt->spill_chunk_n + 1,
                           sizeof *rt->spill_chunks, 16))
        return GCS_ERR_NOMEM;
    /* The records, where each one's per-heap pairs start, the pairs. */
    size_t len = rt->spill_buf_n * sizeof *rt->spill_buf;
    size_t at_len = (rt->spill_buf_n + 1) * sizeof *rt->spill_heap_at;
    size_t pairs_len = rt->spill_heap_n * sizeof *rt->spill_heap;
    gcs_status st = spill_write(an, rt->spill_buf, len, an->spill_end);
    if (st == GCS_OK)
        st = spill_write(an, rt->spill_heap_at, at_len, an->spill_end + len);
    if (st == GCS_OK)
        st = spill_write(an, rt->spill_heap, pairs_len, an->spill_end + len + at_len);
    if (st != GCS_OK)
        return st;
    rt->spill_chunks[rt->spill_chunk_n++] =
        (gcs_gc_spill_chunk){an->spill_end, rt->settled - rt->spill_buf_n, rt->spill_buf_n};
    an->spill_end += len + at_len + pairs_len;
    rt->spill_buf_n = 0;
    rt->spill_heap_n = 0;
    /* The next chunks GCS_GC_SPILL_MAX large (else as it was: only more
     * writes). */
    if (rt->spill_buf_cap < GCS_GC_SPILL_MAX)
        spill_buf_grow(rt);
    return GCS_OK;
}

/* Moves the per-heap records of the GCs in memory to the spare array (in
 * list order), dropping those of dropped GCs; when they are half of it. */
static void compact_heap_allocs(gcs_gc_runtime *rt)
{
    if (rt->heap_alloc_n < rt->heap_compact_at)
        return;
    /* Into the spare, as large as the array (the live records are fewer):
     * the appends until the next compaction then need no more room. */
    if (!gcs_big_reserve((void **)&rt->heap_spare, &rt->heap_spare_cap, rt->heap_alloc_cap,
                         sizeof *rt->heap_spare, 64))
        return; /* kept as it is: only memory is lost */
    gcs_gc_heap_alloc *fresh = rt->heap_spare;
    size_t k = 0;
    for (size_t i = rt->base; i < rt->n; i++) {
        gcs_gc_priv *pv = &RT_PRIV(rt, i);
        int64_t h = pv->ph_first;
        pv->ph_first = pv->ph_last = -1;
        for (; h >= 0; h = rt->heap_allocs[h].next) {
            fresh[k] = rt->heap_allocs[h];
            fresh[k].next = -1;
            if (pv->ph_last >= 0)
                fresh[pv->ph_last].next = (int64_t)k;
            else
                pv->ph_first = (int64_t)k;
            pv->ph_last = (int64_t)k;
            k++;
        }
    }
    rt->heap_spare = rt->heap_allocs;
    rt->heap_allocs = fresh;
    size_t cap = rt->heap_spare_cap;
    rt->heap_spare_cap = rt->heap_alloc_cap;
    rt->heap_alloc_cap = cap;
    rt->heap_alloc_n = k;
    rt->heap_compact_at = 2 * k > 1024 ? 2 * k : 1024;
}

/* Drops the GCs before keep (all handed out; no later GC's derivation
 * reads them but through dropped_hs_*), a block at a time: once they are
 * 64 and as many as the GCs kept, so each GC is moved O(1) times. */
static void drop_before(gcs_gc_runtime *rt, size_t keep)
{
    size_t gap = keep - rt->base, live = rt->n - keep;
    if (gap < 64 || gap < live)
        return;
    for (size_t j = keep; j-- > rt->base;) {
        if (RT_INFO(rt, j).has_heap_stats) {
            rt->dropped_hs_index = (int64_t)j;
            memcpy(rt->dropped_hs_gen_size, RT_PRIV(rt, j).gen_size,
                   sizeof rt->dropped_hs_gen_size);
            break;
        }
    }
    memmove(rt->info, rt->info + gap, live * sizeof *rt->info);
    memmove(rt->priv, rt->priv + gap, live * sizeof *rt->priv);
    rt->base = keep;
    compact_heap_allocs(rt);
}

/* Appends the per-heap pairs of GC i (settling, next in spill_buf) to
 * spill_heap, and where its successor's start to spill_heap_at. */
static gcs_status spill_heap_pairs(gcs_gc_runtime *rt, size_t i)
{
    size_t j = rt->spill_buf_n;
    if (!gcs_array_reserve((void **)&rt->spill_heap_at, &rt->spill_heap_at_cap, j + 2,
                           sizeof *rt->spill_heap_at, GCS_GC_SPILL_FIRST + 1))
        return GCS_ERR_NOMEM;
    rt->spill_heap_at[j] = rt->spill_heap_n;
    for (int64_t h = RT_PRIV(rt, i).ph_first; h >= 0; h = rt->heap_allocs[h].next) {
        if (!gcs_array_reserve((void **)&rt->spill_heap, &rt->spill_heap_cap,
                               rt->spill_heap_n + 1, sizeof *rt->spill_heap, 64))
            return GCS_ERR_NOMEM;
        const gcs_gc_heap_alloc *ha = &rt->heap_allocs[h];
        rt->spill_heap[rt->spill_heap_n++] =
            (gcs_gc_heap_pair){gcs_gc_heap_value_mb(ha, false), gcs_gc_heap_value_mb(ha, true)};
    }
    rt->spill_heap_at[j + 1] = rt->spill_heap_n;
    return GCS_OK;
}

/* Spilling: hands out the GCs of rt that have settled (all: every one
 * left, at the end), each made final, folded and written. */
static gcs_status spill_settled(gcs_gc_analyzer *an, gcs_gc_runtime *rt, bool all)
{
    while (rt->settled < rt->n && (all || gc_settled(an, rt, rt->settled))) {
        size_t i = rt->settled;
        if (!rt->spill_buf) {
            rt->spill_buf = gcs_big_resize(NULL, 0, spill_buf_bytes(GCS_GC_SPILL_FIRST));
            if (!rt->spill_buf)
                return GCS_ERR_NOMEM;
            rt->spill_buf_cap = GCS_GC_SPILL_FIRST;
        }
        gcs_status hs = spill_heap_pairs(rt, i);
        if (hs != GCS_OK)
            return hs;
        gcs_gc_info *out = &rt->spill_buf[rt->spill_buf_n++];
        gcs_gc_derive_settle(rt, i, out);
        gcs_gc_fold_add(&rt->fold, out);
        rt->settled = i + 1;
        rt->settle_scan = rt->settle_frozen = 0;
        if (rt->spill_buf_n == rt->spill_buf_cap) {
            gcs_status st = spill_flush(an, rt);
            if (st != GCS_OK)
                return st;
        }
        drop_before(rt, i);
    }
    return GCS_OK;
}

/* After an event that can settle a GC (a GC started, completed, or
 * stopped being the current one): spills what settled. */
static gcs_status settle_spilled(gcs_gc_analyzer *an, gcs_gc_runtime *rt)
{
    if (an->spill_fd < 0)
        return GCS_OK;
    gcs_status st = spill_settled(an, rt, false);
    if (st != GCS_OK)
        an->failed = st;
    return st;
}

/* The index of the chunk of rt that would hold list position i: the last
 * whose first GC is not after it (0 when there is none). */
static size_t spill_chunk_index(const gcs_gc_runtime *rt, size_t i)
{
    size_t lo = 0, hi = rt->spill_chunk_n;
    while (hi - lo > 1) {
        size_t mid = lo + (hi - lo) / 2;
        if (rt->spill_chunks[mid].first <= i)
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

/* Copies up to n spilled GCs of rt from list position first (all
 * written, or waiting in spill_buf); returns how many it copied (fewer
 * when the file cannot be read). */
static size_t spill_read(const gcs_gc_analyzer *an, const gcs_gc_runtime *rt, size_t first,
                         gcs_gc_info *out, size_t n)
{
    size_t written = rt->settled - rt->spill_buf_n;
    if (first >= written) {
        /* Not written yet: in the buffer. */
        if (first >= rt->settled)
            return 0;
        if (n > rt->settled - first)
            n = rt->settled - first;
        memcpy(out, &rt->spill_buf[first - written], n * sizeof *out);
        return n;
    }
    if (n > written - first)
        n = written - first;
    size_t done = 0;
    for (size_t chunk = spill_chunk_index(rt, first); done < n && chunk < rt->spill_chunk_n; chunk++) {
        const gcs_gc_spill_chunk *ck = &rt->spill_chunks[chunk];
        size_t end = ck->first + ck->n, i = first + done, at = i - ck->first;
        if (i < ck->first || i >= end)
            return done; /* a chunk that could not be written */
        size_t take = end - i;
        if (take > n - done)
            take = n - done;
        if (!spill_read_at(an, out + done, take * sizeof *out, ck->offset + at * sizeof *out))
            return done;
        done += take;
    }
    return done;
}

_Static_assert(GCS_GC_SPILL_MAX <= GCS_GC_HEAP_INDEX_MAX, "a chunk's index fits the kept one");

size_t gcs_gc_spilled_heap_values(const gcs_gc_analyzer *an, const gcs_gc_runtime *rt, size_t i,
                                  gcs_gc_heap_index *index, double *before, double *after,
                                  size_t cap)
{
    /* After finish every GC is in the file (spill_flush); a chunk that
     * could not be written holds none. */
    if (rt->spill_chunk_n == 0 || an->spill_fd < 0)
        return 0;
    const size_t chunk = spill_chunk_index(rt, i);
    const gcs_gc_spill_chunk *ck = &rt->spill_chunks[chunk];
    if (i < ck->first || i - ck->first >= ck->n)
        return 0;
    uint64_t records_len = (uint64_t)ck->n * sizeof(gcs_gc_info);
    uint64_t at_off = ck->offset + records_len;
    uint64_t one[2], *at = one;
    if (index) {
        /* The chunk's whole index, once. */
        if (index->runtime != rt || index->chunk != chunk) {
            index->runtime = NULL;
            if (!spill_read_at(an, index->at, (ck->n + 1) * sizeof index->at[0], at_off))
                return 0;
            index->runtime = rt;
            index->chunk = chunk;
        }
        at = &index->at[i - ck->first];
    } else if (!spill_read_at(an, one, sizeof one, at_off + (i - ck->first) * sizeof one[0])) {
        return 0;
    }
    if (at[1] < at[0])
        return 0;
    uint64_t pairs_off = at_off + ((uint64_t)ck->n + 1) * sizeof at[0];
    size_t n = (size_t)(at[1] - at[0]);
    gcs_gc_heap_pair pairs[64];
    for (size_t done = 0; done < n && done < cap;) {
        size_t take = n - done;
        if (take > cap - done)
            take = cap - done;
        if (take > sizeof pairs / sizeof pairs[0])
            take = sizeof pairs / sizeof pairs[0];
        if (!spill_read_at(an, pairs, take * sizeof pairs[0],
                           pairs_off + (at[0] + done) * sizeof pairs[0]))
            return 0;
        for (size_t k = 0; k < take; k++) {
            if (before)
                before[done + k] = pairs[k].before_mb;
            if (after)
                after[done + k] = pairs[k].after_mb;
        }
        done += take;
    }
    return n;
}

size_t gcs_gc_process_read(const gcs_gc_process *p, size_t first, gcs_gc_info *out, size_t n)
{
    if (first >= p->gc_count)
        return 0;
    if (n > p->gc_count - first)
        n = p->gc_count - first;
    if (p->gcs) {
        memcpy(out, p->gcs + first, n * sizeof *out);
        return n;
    }
    return p->source ? gcs_gc_process_gcs(p->source, p, first, out, n) : 0;
}

size_t gcs_gc_process_gcs(const gcs_gc_analyzer *an, const gcs_gc_process *p, size_t first,
                          gcs_gc_info *out, size_t n)
{
    const gcs_gc_runtime *rt = NULL;
    for (size_t r = 0; r < an->runtime_count && !rt; r++)
        if (&an->runtimes[r]->pub == p)
            rt = an->runtimes[r];
    if (!rt || !an->finished || first >= rt->n)
        return 0;
    if (n > rt->n - first)
        n = rt->n - first;
    if (an->spill_fd < 0) {
        memcpy(out, &RT_INFO(rt, first), n * sizeof *out);
        return n;
    }
    return spill_read(an, rt, first, out, n);
}

/* Spilling: the next GC spilled and not handed out yet, read back (from
 * the buffer when it was asked for in time, as a watch does after each
 * event). */
static bool next_spilled(gcs_gc_analyzer *an, gcs_gc_settled *out)
{
    for (size_t r = 0; r < an->runtime_count; r++) {
        gcs_gc_runtime *rt = an->runtimes[r];
        if (rt->handed >= rt->settled)
            continue;
        if (spill_read(an, rt, rt->handed, &out->info, 1) != 1) {
            if (!an->failed)
                an->failed = GCS_ERR_IO;
            return false;
        }
        out->pid = rt->pid;
        out->clr_instance_id = rt->clr_instance_id;
        rt->handed++;
        return true;
    }
    return false;
}

bool gcs_gc_analyzer_next_settled(gcs_gc_analyzer *an, gcs_gc_settled *out)
{
    if (an->spill_fd >= 0)
        return next_spilled(an, out);
    for (size_t r = 0; r < an->runtime_count; r++) {
        gcs_gc_runtime *rt = an->runtimes[r];
        size_t i = rt->settled;
        if (i >= rt->n)
            continue;
        if (an->finished)
            out->info = RT_INFO(rt, i);
        else if (gc_settled(an, rt, i))
            gcs_gc_derive_copy(rt, i, &out->info);
        else
            continue;
        out->pid = rt->pid;
        out->clr_instance_id = rt->clr_instance_id;
        rt->settled = i + 1;
        rt->settle_scan = rt->settle_frozen = 0;
        return true;
    }
    return false;
}

static int runtime_order(const void *a, const void *b)
{
    const gcs_gc_runtime *x = *(const gcs_gc_runtime *const *)a;
    const gcs_gc_runtime *y = *(const gcs_gc_runtime *const *)b;
    if (x->pid != y->pid)
        return x->pid < y->pid ? -1 : 1;
    if (x->clr_instance_id != y->clr_instance_id)
        return x->clr_instance_id < y->clr_instance_id ? -1 : 1;
    return 0;
}

void gcs_gc_analyzer_finish(gcs_gc_analyzer *an)
{
    if (an->finished)
        return;
    an->finished = true;
    if (an->runtime_count > 1)
        qsort(an->runtimes, an->runtime_count, sizeof *an->runtimes, runtime_order);
    for (size_t i = 0; i < an->runtime_count; i++) {
        gcs_gc_runtime *rt = an->runtimes[i];
        if (an->spill_fd >= 0 && !an->failed) {
            gcs_status st = spill_settled(an, rt, true);
            if (st == GCS_OK)
                st = spill_flush(an, rt);
            if (st != GCS_OK)
                an->failed = st; /* the records read back stop there */
        }
        gcs_gc_derive(an, rt);
        rt->pub.source = an;
    }
    /* Problems that are not per runtime go to the first one. */
    if (an->runtime_count > 0) {
        an->runtimes[0]->pub.problems.truncated_events += an->truncated_events;
        an->runtimes[0]->pub.problems.lost_events = an->lost_events;
    }
}

size_t gcs_gc_process_count(const gcs_gc_analyzer *an) { return an->runtime_count; }

const gcs_gc_process *gcs_gc_process_at(const gcs_gc_analyzer *an, size_t index)
{
    if (index >= an->runtime_count || !an->finished)
        return NULL;
    return &an->runtimes[index]->pub;
}

void gcs_gc_analyzer_free(gcs_gc_analyzer *an)
{
    if (!an)
        return;
    for (size_t i = 0; i < an->runtime_count; i++) {
        gcs_big_free(an->runtimes[i]->info, an->runtimes[i]->cap * sizeof(gcs_gc_info));
        gcs_big_free(an->runtimes[i]->priv, an->runtimes[i]->priv_cap * sizeof(gcs_gc_priv));
        gcs_big_free(an->runtimes[i]->heap_allocs,
                     an->runtimes[i]->heap_alloc_cap * sizeof(gcs_gc_heap_alloc));
        gcs_gc_fold_free(&an->runtimes[i]->fold);
        gcs_big_free(an->runtimes[i]->spill_buf, spill_buf_bytes(an->runtimes[i]->spill_buf_cap));
        gcs_big_free(an->runtimes[i]->heap_spare,
                     an->runtimes[i]->heap_spare_cap * sizeof(gcs_gc_heap_alloc));
        free(an->runtimes[i]->spill_chunks);
        free(an->runtimes[i]->spill_heap);
        free(an->runtimes[i]->spill_heap_at);
        free(an->runtimes[i]);
    }
    free(an->runtimes);
    if (an->spill_fd >= 0)
        close(an->spill_fd);
    gcs_big_free(an->spill_mem, an->spill_mem_cap);
    free(an);
}
