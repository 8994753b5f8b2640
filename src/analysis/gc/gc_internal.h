/*
 * analysis/gc/gc_internal.h - state shared by the GC state machine
 * (gc_analyzer.c) and the final pass (gc_derive.c). Not public.
 */
#ifndef GCS_ANALYSIS_GC_INTERNAL_H
#define GCS_ANALYSIS_GC_INTERNAL_H

#include <assert.h>

#include "analysis/gc/gc_analyzer.h"

/* Slots of the analyzer's direct-mapped kind cache (a power of two). */
#define GCS_GC_FAST_KIND_SLOTS 64

/* What a GC keeps besides its public record: heap stats in bytes and the
 * per-heap histories folded into sums (so memory stays one record per
 * GC, whatever the heap count). */
typedef struct gcs_gc_priv {
    uint64_t gen_size[GCS_GEN_COUNT];
    uint64_t promoted[GCS_GEN_COUNT];
    uint64_t finalization_promoted_size;
    bool has_alloc_tick;
    bool is_concurrent_gc;   /* TraceEvent's IsConcurrentGC (.NET 2.0 style) */
    bool superseded;         /* a later BGC started while this one was current */
    /* Per-heap histories, summed in arrival order. */
    uint32_t ph_count;
    uint32_t ph_gen_count;   /* generations in the first history */
    uint32_t ph_layout;      /* 3, or legacy 2 / 0 */
    double ph_size_before_mb[GCS_GEN_COUNT];
    double ph_frag_mb[GCS_GEN_COUNT];
    int64_t ph_surv_rate_sum[GCS_GEN_COUNT];
    int64_t ph_first, ph_last; /* this GC's chain in the runtime's heap_allocs, -1: none */
    bool highest_found;
    uint8_t groups_heap0[GCS_GC_CONDEMNED_GROUPS];
    uint8_t groups_highest[GCS_GC_CONDEMNED_GROUPS];
} gcs_gc_priv;

/* The generations whose allocation TraceEvent derives from per-heap
 * histories: gen0, LOH, POH (GCS_GEN_0, GCS_GEN_LOH, GCS_GEN_POH). */
#define GCS_GC_ALLOC_GENS 3

/* What one per-heap history contributes to allocation since the last GC.
 * TraceEvent pairs the i-th history of a GC with the i-th history of the GC
 * before it in the list, whatever their counts (a workstation GC can get two
 * histories when a BGC's history lands on a foreground GC), so these are kept
 * per history, chained per GC in arrival order. */
typedef struct gcs_gc_heap_alloc {
    int64_t obj_space_before[GCS_GC_ALLOC_GENS]; /* what this GC had before */
    int64_t next_prev_obj[GCS_GC_ALLOC_GENS];    /* what the next GC subtracts */
    int64_t obj_size_after; /* gen0 + LOH + POH object size after this GC (size after
                               minus free space, saturated): the report's per-heap
                               chart (gcs_gc_heap_object_size_after) */
    int64_t next;                                /* next history of the same GC, -1: none */
} gcs_gc_heap_alloc;

/* A per-heap history's value the report draws, MB: the object space of
 * gen0 + LOH + POH before the GC, or (after) their object size after it.
 * Summed as doubles: exact below 2^53 bytes, and no overflow on the values
 * a hostile trace gives. */
static inline double gcs_gc_heap_value_mb(const gcs_gc_heap_alloc *ha, bool after)
{
    const int64_t *o = ha->obj_space_before;
    double bytes = after ? (double)ha->obj_size_after : (double)o[0] + (double)o[1] + (double)o[2];
    return bytes / 1000000.0;
}

/* What the report's summary needs of the GCs, summed as each GC is final
 * (in list order: the rollups' sums are those of TraceEvent's final pass,
 * added in the same order), so that a spilled runtime needs no GC kept. */
typedef struct gcs_gc_fold {
    gcs_gc_rollup all, gen[3];
    uint64_t histogram[GCS_GC_HIST_BUCKETS];
    bool first_found;
    double first_pause_start;
    /* The pauses of complete GCs, for the percentiles: 10 bytes a GC. */
    double *pause_ms;
    uint16_t *pause_key; /* generation | gcs_gc_type << 8 (255: another value) */
    size_t pause_n, pause_ms_cap, pause_key_cap;
    bool pause_failed;   /* out of memory: percentiles unknown */
} gcs_gc_fold;

/* GCs a spilling runtime writes to the spill file at a time: 64 at
 * first, then 512 (250 KB), so that a runtime of a few GCs holds a small
 * buffer and a long one makes few writes. The 512 live in one 2 MiB page
 * (gcs_big_resize): one page fault, not 60. */
#define GCS_GC_SPILL_FIRST 64
#define GCS_GC_SPILL_MAX 512

/* The spill's first bytes kept in memory by default
 * (gcs_gc_options.spill_memory_bytes): 16 MiB, some 34,000 GCs. Written
 * to the file, the records cost the system calls, a copy into the page
 * cache and one back, and fresh page-cache pages; in memory eight 2 MiB
 * pages (docs/performance.md, twenty-fourth landing). */
#define GCS_GC_SPILL_MEMORY ((size_t)16 << 20)

/* One per-heap history's values the report draws (gcs_gc_heap_value_mb). */
typedef struct gcs_gc_heap_pair {
    double before_mb, after_mb;
} gcs_gc_heap_pair;

/* A chunk of a runtime's GCs in the spill file: n records, then n + 1
 * uint64 (where each GC's per-heap pairs start, counted from the chunk's
 * first pair; the last one: the chunk's pair count), then the pairs. */
typedef struct gcs_gc_spill_chunk {
    uint64_t offset; /* in the file */
    size_t first, n; /* list position of its first GC, and its GCs */
} gcs_gc_spill_chunk;

/* One runtime (process, ClrInstanceID): TraceEvent's GCStats state. */
typedef struct gcs_gc_runtime {
    uint32_t pid;
    uint16_t clr_instance_id;
    /* The GCs of list positions [base, n): parallel arrays, GC i at i - base
     * (RT_INFO, RT_PRIV). base stays 0 unless the analyzer spills: then the
     * GCs before the last one handed out are dropped, a block at a time. */
    gcs_gc_info *info;  /* (gcs_big_resize: one mapping each once large) */
    gcs_gc_priv *priv;
    size_t base, n, cap; /* cap: of both; priv_cap differs after a failed growth */
    size_t priv_cap;
    /* Of the dropped GCs, the last with heap stats (gen_size_before_mb
     * looks back to it): its list position (-1: none) and sizes. */
    int64_t dropped_hs_index;
    uint64_t dropped_hs_gen_size[GCS_GEN_COUNT];
    gcs_gc_fold fold;
    /* Spilling: final GCs waiting to be written (spill_buf_cap of them
     * make a chunk), and where each written chunk is. */
    gcs_gc_info *spill_buf;
    size_t spill_buf_n, spill_buf_cap;
    gcs_gc_spill_chunk *spill_chunks;
    size_t spill_chunk_n, spill_chunk_cap;
    /* Their per-heap values: GC j of spill_buf has pairs spill_heap_at[j] ..
     * spill_heap_at[j + 1] - 1 of spill_heap. */
    gcs_gc_heap_pair *spill_heap;
    size_t spill_heap_n, spill_heap_cap;
    uint64_t *spill_heap_at;
    size_t spill_heap_at_cap;
    size_t handed; /* spilling: GCs handed out by gcs_gc_analyzer_next_settled */
    gcs_gc_heap_alloc *heap_allocs; /* every per-heap history's allocation data */
    size_t heap_alloc_n, heap_alloc_cap;
    /* Spilling: what compact_heap_allocs copies the live ones into (then
     * swapped with heap_allocs), kept so that each compaction writes
     * memory already touched, not fresh pages. */
    gcs_gc_heap_alloc *heap_spare;
    size_t heap_spare_cap;
    int64_t suspend_tid_gc, suspend_tid_bgc, suspend_tid_other; /* -1: none */
    double suspend_start_ms, suspend_end_ms;
    uint32_t last_suspend_reason;
    int64_t current_bgc, last_completed_gc; /* indexes, -1: none */
    double last_restart_end_ms;             /* time of the last GCHeapStats */
    double alloc_tick_current_mb[3], alloc_tick_at_last_gc[3]; /* small, large, pinned */
    bool has_alloc_tick, seen_bad_alloc_tick;
    int32_t heap_count, max_heap_count, min_heap_count;
    bool any_bgc;
    char runtime_version[48];
    uint16_t runtime_sku;
    bool native_aot;
    uint32_t startup_flags;
    bool has_startup_flags;
    int server_gc_setting; /* private GCSettings: 1 server, 0 not, -1/0 unknown */
    int concurrent;        /* GCSettingsRundown: 1/0, -1 unknown */
    gcs_gc_problems problems;
    size_t settled;        /* GCs handed out by gcs_gc_analyzer_next_settled */
    /* For GC `settled`: the GCs after it below settle_scan paused before
     * it ended, those below settle_frozen are frozen (both only grow, so a
     * GC waiting for long costs nothing per event); 0: not scanned yet. */
    size_t settle_scan, settle_frozen;
    size_t heap_compact_at; /* spilling: heap_alloc_n at which to drop the dropped GCs' */
    gcs_gc_process pub;    /* filled by the final pass */
} gcs_gc_runtime;

/* GC i of rt (list position; base <= i < n). */
static inline gcs_gc_info *gcs_rt_info(const gcs_gc_runtime *rt, size_t i)
{
    assert(i >= rt->base && i < rt->n);
    return &rt->info[i - rt->base];
}

static inline gcs_gc_priv *gcs_rt_priv(const gcs_gc_runtime *rt, size_t i)
{
    assert(i >= rt->base && i < rt->n);
    return &rt->priv[i - rt->base];
}

#define RT_INFO(rt, i) (*gcs_rt_info((rt), (size_t)(i)))
#define RT_PRIV(rt, i) (*gcs_rt_priv((rt), (size_t)(i)))

struct gcs_gc_analyzer {
    gcs_gc_options opts;
    size_t max_gcs;
    gcs_gc_kind_cache kinds;
    /* Direct-mapped cache in front of kinds: a trace interleaves a few hot
     * types (e.g. SetGCHandle/DestroyGCHandle), which a one-entry cache
     * would miss on every event. */
    const gcs_event_type *kind_cache_type[GCS_GC_FAST_KIND_SLOTS];
    gcs_gc_kind kind_cache_kind[GCS_GC_FAST_KIND_SLOTS];
    gcs_gc_runtime **runtimes;
    size_t runtime_count, runtime_cap;
    gcs_gc_runtime *last_runtime;
    uint64_t truncated_events, lost_events;
    double first_event_ms, last_event_ms;
    gcs_status failed;
    bool finished;
    int spill_fd;         /* opts.spill_gcs: the unlinked temporary file, else -1 */
    uint64_t spill_end;   /* bytes of the spill written */
    /* The spill's first spill_mem_max bytes live here, not in the file
     * (which holds the rest at the same offsets): gcs_big_resize's
     * memory, spill_mem_cap bytes so far. */
    uint8_t *spill_mem;
    size_t spill_mem_cap, spill_mem_max;
};

/* The final pass: derived values, rollups, percentiles (gc_derive.c). */
void gcs_gc_derive(gcs_gc_analyzer *an, gcs_gc_runtime *rt);

/* The index of the first GC after i whose recorded values the final pass
 * does not read for GC i (i + 1, or for a background GC the first GC that
 * paused after it ended), or 0 when that GC has not started yet. *scan
 * (0 at first) remembers how far the GCs were seen to pause before the end
 * (their pause start never changes), so each GC is looked at once. */
size_t gcs_gc_derive_first_unread(const gcs_gc_runtime *rt, size_t i, size_t *scan);

/* GC i made final, as gcs_gc_derive_copy gives it, for a spilling
 * analyzer: the problems it shows are counted (bad times, implausible
 * values, incomplete). */
void gcs_gc_derive_settle(gcs_gc_runtime *rt, size_t i, gcs_gc_info *out);

/* Adds a final GC to the runtime's fold (in list order). */
void gcs_gc_fold_add(gcs_gc_fold *f, const gcs_gc_info *gc);
void gcs_gc_fold_free(gcs_gc_fold *f);

/* GC i as the final pass will leave it (derived values, or the blanks of
 * an incomplete GC), written to *out; the analyzer's state is unchanged. */
void gcs_gc_derive_copy(gcs_gc_runtime *rt, size_t i, gcs_gc_info *out);

/* Per-heap values of spilled GC i of rt (after finish), as
 * gcs_gc_heap_values (gc_walk.h) gives them; index may be NULL. */
struct gcs_gc_heap_index;
size_t gcs_gc_spilled_heap_values(const gcs_gc_analyzer *an, const gcs_gc_runtime *rt, size_t i,
                                  struct gcs_gc_heap_index *index, double *before, double *after,
                                  size_t cap);

#endif
