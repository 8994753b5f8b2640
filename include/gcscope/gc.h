/*
 * gcscope/gc.h - per-GC statistics, computed as TraceEvent/PerfView's
 * GCStats computes them (TraceLoadedDotNetRuntime / TraceGC / GCStats).
 *
 *   gcs_gc_analyzer *an = gcs_gc_analyzer_new(NULL, &err);
 *   while (gcs_reader_next(r, &ev, &err) == GCS_OK)
 *       gcs_gc_analyzer_feed(an, ev);          // any event; non-GC ones are skipped
 *   gcs_gc_analyzer_finish(an);
 *   for (size_t i = 0; i < gcs_gc_process_count(an); i++) {
 *       const gcs_gc_process *p = gcs_gc_process_at(an, i);
 *       for (size_t k = 0; k < p->gc_count; k++) use(&p->gcs[k]);
 *   }
 *   gcs_gc_analyzer_free(an);
 *
 * Times are milliseconds since the trace start (gcs_event.msec); sizes are
 * MB of 1,000,000 bytes. Values TraceEvent leaves undefined are NaN (the
 * JSON report prints them as null). Memory: one small record per GC (no
 * per-event storage; server-GC per-heap histories are folded into sums as
 * they arrive).
 */
#ifndef GCSCOPE_GC_H
#define GCSCOPE_GC_H

#include <stdio.h>

#include "gcscope/core.h"
#include "gcscope/reader.h"

#ifdef __cplusplus
extern "C" {
#endif

/* GCStart.Type. */
typedef enum gcs_gc_type {
    GCS_GC_NONCONCURRENT = 0, /* blocking, outside a background GC */
    GCS_GC_BACKGROUND = 1,
    GCS_GC_FOREGROUND = 2     /* blocking ephemeral GC during a background GC */
} gcs_gc_type;

/* Generation indexes of the per-generation arrays: GCS_GEN0.. in core.h. */

/* Names (the shared seeds' names; NULL when the value has no name). */
const char *gcs_gc_reason_name(uint32_t reason);          /* "AllocSmall", ... */
const char *gcs_gc_type_name(uint32_t type);              /* "NonConcurrentGC", ... */
const char *gcs_gc_suspend_reason_name(uint32_t reason);  /* "SuspendForGC", ... */
const char *gcs_gc_alloc_kind_name(uint32_t kind);        /* "Small", "Large", "Pinned" */
const char *gcs_gc_segment_type_name(uint32_t type);      /* "SmallObjectHeap", ... */
/* Why a GC compacted: the runtime's gc_heap_compact_reason without its
 * "compact_" prefix ("low_ephemeral", "induced_compacting", ...,
 * "aggressive_compacting" = 11, .NET 7 on). */
const char *gcs_gc_compact_reason_name(uint32_t reason);
/* TraceEvent's CondemnedReasonGroup names ("Alloc_Exceeded", ...), 0..29. */
const char *gcs_gc_condemned_group_name(uint32_t group);
#define GCS_GC_CONDEMNED_GROUPS 30

/* Why a GC is not complete (is_complete false). */
typedef enum gcs_gc_incomplete {
    GCS_GC_INC_NONE = 0,
    GCS_GC_INC_NO_END,          /* no GCEnd before the pause ended / trace ended */
    GCS_GC_INC_NO_HEAP_STATS,   /* no GCHeapStats */
    GCS_GC_INC_NO_RESTART,      /* the execution engine never restarted (trace ended) */
    GCS_GC_INC_TRACE_ENDED,     /* background GC still running at the end */
    GCS_GC_INC_SUPERSEDED,      /* a later background GC started before this one ended */
    GCS_GC_INC_BAD_TIMES        /* negative or absurd pause/suspend/duration */
} gcs_gc_incomplete;
const char *gcs_gc_incomplete_name(gcs_gc_incomplete why);

/* One GC (TraceEvent's TraceGC). */
typedef struct gcs_gc_info {
    int32_t number;            /* GCStart.Count */
    uint32_t generation;       /* GCStart.Depth (condemned generation) */
    uint32_t type;             /* gcs_gc_type */
    uint32_t reason;           /* GCStart.Reason */
    bool is_complete;
    gcs_gc_incomplete incomplete_reason;
    double start_ms;           /* GCStart */
    double pause_start_ms;     /* SuspendEEBegin (see docs/gc-stats.md for BGC cases) */
    double pause_ms;
    double suspend_ms;
    double duration_ms;        /* GCEnd - GCStart */
    double duration_since_last_restart_ms;
    double bgc_final_pause_ms;
    double pause_time_pct;     /* % pause time since the previous GC */
    double heap_size_before_mb, heap_size_after_mb, heap_size_peak_mb, ratio_peak_after;
    double promoted_mb;
    double gen_size_before_mb[GCS_GEN_COUNT];
    double gen_size_after_mb[GCS_GEN_COUNT];
    double gen_promoted_mb[GCS_GEN_COUNT];
    double survival_pct[GCS_GEN_COUNT];
    double fragmentation_pct[GCS_GEN_COUNT];
    double fragmentation_mb[GCS_GEN_COUNT];
    double user_allocated_mb[GCS_GEN_COUNT]; /* [0] gen0, [3] LOH, [4] POH */
    double allocated_since_last_gc_mb;
    double alloc_rate_mb_s;
    double alloc_tick_mb[3];   /* AllocationTick MB since the last GC: small, large, pinned */
    double finalization_promoted_mb; /* FinalizationPromotedSize read as signed, as TraceEvent */
    bool finalization_promoted_implausible; /* negative or more than the heap after the GC:
                                               garbage the runtime wrote (counted in problems) */
    uint32_t pinned_objects;   /* GCHeapStats.PinnedObjectCount */
    uint32_t per_heap_histories; /* GCPerHeapHistory events received */
    int32_t heap_count;        /* TraceEvent's TraceGC.HeapCount */
    uint32_t condemned_reasons; /* bit g set: group g (GetCondemnedReasons) */
    bool has_heap_stats;
    bool has_global_history;
    int32_t num_heaps;         /* NumHeaps of the GlobalHeapHistory TraceEvent attaches to
                                  this GC, -1 without one. Unlike heap_count it follows the
                                  heap count from GC to GC (server GC's dynamic adaptation,
                                  DATAS, changes it) */
    int8_t compacting;         /* that history's GlobalMechanisms: 1 the GC compacted, 0 it
                                  swept, -1 no history attached */
    int8_t compact_reason;     /* why it compacted (gcs_gc_compact_reason_name): the first
                                  per-heap history naming a reason, -1 none */
} gcs_gc_info;

/* A rollup (TraceEvent GCStats): all GCs or one generation. Complete GCs
 * only. */
typedef struct gcs_gc_rollup {
    uint32_t count, num_induced;
    double total_pause_ms, max_pause_ms, mean_pause_ms, max_suspend_ms;
    double max_size_peak_mb, mean_size_peak_mb, total_size_peak_mb;
    double mean_size_after_mb, total_size_after_mb;
    double total_allocated_mb, total_promoted_mb, max_alloc_rate_mb_s;
} gcs_gc_rollup;

/* Pause percentiles (nearest-rank) of complete GCs. */
typedef struct gcs_gc_percentiles {
    uint32_t count;
    double p50, p90, p99, max;
} gcs_gc_percentiles;

/* Pause histogram bucket upper bounds in ms (last bucket: above). */
#define GCS_GC_HIST_BUCKETS 10
extern const double gcs_gc_hist_bounds_ms[GCS_GC_HIST_BUCKETS - 1];

/* Survivable anomalies, counted per runtime. */
typedef struct gcs_gc_problems {
    uint64_t incomplete_gcs;
    uint64_t bad_times;            /* GCs whose times were negative or absurd */
    uint64_t starts_without_suspension; /* GCStart ignored: no GC suspension open */
    uint64_t duplicate_starts;     /* GCStart with the last GC's number */
    uint64_t number_jumps;         /* GC numbers not consecutive */
    uint64_t orphan_events;        /* GCEnd/HeapStats/history with no current GC */
    uint64_t truncated_events;     /* payload shorter than its layout */
    uint64_t unrecognised_histories; /* PerHeapHistory of an unknown layout */
    uint64_t lost_events;          /* reported by the reader (whole trace) */
    uint64_t implausible_values;   /* sizes no GC can have, kept as read and flagged */
} gcs_gc_problems;

/* One runtime in one process. */
typedef struct gcs_gc_process {
    uint32_t pid;
    uint16_t clr_instance_id;
    char runtime_version[48];  /* "major.minor.build.qfe", "" if unknown */
    uint16_t runtime_sku;      /* RuntimeInformation Sku of that version: 1 DesktopClr
                                  (.NET Framework), 2 CoreClr, 0 unknown. CoreCLR before
                                  .NET 5 reports version 4.0.30319.0 */
    uint32_t startup_flags;    /* RuntimeInformation StartupFlags (0 unknown) */
    bool native_aot;           /* a NativeAOT application: its module events name a native
                                  image with no assembly (its runtime sends no
                                  RuntimeInformation, so runtime_version stays "") */
    const char *gc_mode;       /* "workstation", "server", "unknown" */
    int concurrent;            /* 1 yes, 0 no, -1 unknown */
    /* When the runtime's StartupFlags name neither server nor concurrent GC
     * (a trace attached after startup may carry only a rundown
     * RuntimeInformation with StartupFlags None) and no GC settings event
     * tells: gc_mode inferred from the largest heap count seen (several
     * heaps: server), concurrent from background GCs seen. */
    bool gc_mode_inferred, concurrent_inferred;
    int32_t heap_count;        /* first GlobalHeapHistory NumHeaps, -1 if none */
    int32_t max_heap_count;    /* largest GlobalHeapHistory NumHeaps, -1 if none */
    int32_t min_heap_count;    /* smallest GlobalHeapHistory NumHeaps, -1 if none */
    double first_event_ms, last_event_ms;
    gcs_gc_rollup all;
    gcs_gc_rollup gen[3];
    double process_duration_ms; /* TraceEvent's GCStats.ProcessDuration: first
                                   complete GC's pause start to the last GCHeapStats */
    double pause_time_pct;      /* TraceEvent's GetGCPauseTimePercentage: total
                                   pause / process_duration_ms (can pass 100 %) */
    double pause_time_pct_of_trace; /* total pause / trace duration (first to last
                                       event), what the table shows */
    /* Ours: pause percentiles per generation, per kind, and overall. */
    gcs_gc_percentiles pct_gen[3];
    gcs_gc_percentiles pct_kind[3]; /* by gcs_gc_type */
    gcs_gc_percentiles pct_all;
    uint64_t histogram[GCS_GC_HIST_BUCKETS];
    gcs_gc_problems problems;
    size_t gc_count;
    const gcs_gc_info *gcs;     /* in GCStart order, incomplete ones included;
                                   NULL when spilled (gcs_gc_options.spill_gcs):
                                   gcs_gc_process_read reads them either way */
    /* The analyzer whose spill file holds the records when gcs is NULL; NULL
     * in a list built by hand (gcs set). */
    const struct gcs_gc_analyzer *source;
} gcs_gc_process;

typedef struct gcs_gc_analyzer gcs_gc_analyzer;

typedef struct gcs_gc_options {
    /* Emulate PerfView with a TraceLog attached (server-GC BGC histories
     * reach a completed BGC). Default false: raw TraceEvent semantics, as
     * TraceEvent on an EventPipe file gives. */
    bool server_gc_known;
    /* Upper bound on GC records per runtime (0: 10,000,000). */
    size_t max_gcs;
    /* Keep the GC records in a temporary file, not in memory: each GC is
     * written there once final (as gcs_gc_analyzer_next_settled would hand
     * it out), with its per-heap values (gc_insight.h), and memory holds
     * only the GCs still in flight, whatever the trace's length.
     * gcs_gc_process.gcs is then NULL: read the records with
     * gcs_gc_process_read (every function of gc_insight.h does). The
     * summary (rollups, percentiles at 10 bytes a GC, histogram, problems)
     * is the same, and next_settled hands out the same GCs (read back from
     * the file when asked for late). The
     * file is made in $TMPDIR (else /tmp) and removed at once; when it
     * cannot be made, the records stay in memory (gcs is then set). */
    bool spill_gcs;
    /* With spill_gcs: how many of the spill's first bytes stay in memory
     * (in 2 MiB pages) before it goes on in the file (0: 16 MiB, some
     * 34,000 GCs). Writing to the file costs more than the memory it
     * saves for short traces; a long one still holds at most this much. */
    size_t spill_memory_bytes;
} gcs_gc_options;

/* A new analyzer (opts may be NULL). NULL on out-of-memory. */
gcs_gc_analyzer *gcs_gc_analyzer_new(const gcs_gc_options *opts, gcs_error *err);

/* Feeds one event in timestamp order. Non-GC events are ignored cheaply.
 * Returns GCS_OK, or GCS_ERR_NOMEM/GCS_ERR_LIMIT (the analyzer is then
 * stuck); bad payloads are counted in problems, not returned. */
gcs_status gcs_gc_analyzer_feed(gcs_gc_analyzer *an, const gcs_event *ev);

/* Tells the analyzer how many events the reader lost (for the report). */
void gcs_gc_analyzer_set_lost_events(gcs_gc_analyzer *an, uint64_t lost);

/*
 * The events gcs_gc_analyzer_feed uses (the others change no GCStats
 * number). Pass it as gcs_reader_options.want (ctx unused): the reader then
 * only counts the rest, which is most of a trace full of handle or
 * allocation events. Then also call gcs_gc_analyzer_set_span.
 */
bool gcs_gc_wants(void *ctx, const gcs_event_type *type);

/*
 * The events the analyzer reads from their first bytes only, in time
 * order: AllocationTick (most of the GC events of a trace that samples
 * allocations), SuspendEEStart, SuspendEEStop and RestartEEStop (the
 * runtime suspends for other reasons than GCs too). Pass it as
 * gcs_reader_options.tap with gcs_gc_analyzer_tap as on_tap (tap_ctx the
 * analyzer): the reader then hands them over apart, for a fraction of a
 * delivered event's cost, in the order gcs_reader_next would have had.
 */
bool gcs_gc_taps(void *ctx, const gcs_event_type *type);

/* Feeds a tapped event (options.on_tap; ctx is the gcs_gc_analyzer). A
 * failure (out of memory) is returned by the next gcs_gc_analyzer_feed
 * and by gcs_gc_analyzer_status. */
void gcs_gc_analyzer_tap(void *ctx, const gcs_tap_event *ev);

/* GCS_OK, or why the analysis stopped (out of memory). */
gcs_status gcs_gc_analyzer_status(const gcs_gc_analyzer *an);

/* The time of the trace's first and last event (ms, as gcs_event.msec;
 * gcs_reader_msec of gcs_reader_stats' first and last timestamp), for a
 * reader that did not deliver every event: the report's trace duration. */
void gcs_gc_analyzer_set_span(gcs_gc_analyzer *an, double first_ms, double last_ms);

/* Ends the stream: computes derived values, rollups, percentiles. */
void gcs_gc_analyzer_finish(gcs_gc_analyzer *an);

/* A GC whose numbers are final, with the runtime it belongs to. */
typedef struct gcs_gc_settled {
    uint32_t pid;
    uint16_t clr_instance_id;
    gcs_gc_info info; /* exactly what gcs_gc_process.gcs will hold after finish */
} gcs_gc_settled;

/*
 * The next GC whose numbers no later event can change, as the report will
 * print them (derived values included): for watching a stream as it goes
 * (`gcscope live`). Call it after gcs_gc_analyzer_feed until it returns
 * false; after gcs_gc_analyzer_finish it hands out the rest (incomplete
 * GCs included). Each GC is handed out once, per runtime in GCStart order.
 * A GC settles when it is complete and no event can reach it any more,
 * and every GC before it has settled; so a foreground GC waits for the
 * background GC it ran in (whose histories feed its allocation), and a
 * background GC waits for the first GC that paused after it ended (its
 * peak size counts the GCs that started during it).
 */
bool gcs_gc_analyzer_next_settled(gcs_gc_analyzer *an, gcs_gc_settled *out);

/* Runtimes seen, ordered by pid then ClrInstanceID (valid after finish). */
size_t gcs_gc_process_count(const gcs_gc_analyzer *an);
const gcs_gc_process *gcs_gc_process_at(const gcs_gc_analyzer *an, size_t index);

/*
 * Copies the records of p's GCs first .. first + n - 1 to out, whether
 * they are in memory or spilled; returns how many it copied (fewer past
 * the last GC; 0 also when the spill file cannot be read).
 */
size_t gcs_gc_process_gcs(const gcs_gc_analyzer *an, const gcs_gc_process *p, size_t first,
                          gcs_gc_info *out, size_t n);

/*
 * The same for any runtime: p->gcs when set (a list built by hand, or an
 * analyzer that keeps its GCs in memory), else the spill file of
 * p->source. Returns how many it copied; fewer than asked before the last
 * GC means the spill file could not be read.
 */
size_t gcs_gc_process_read(const gcs_gc_process *p, size_t first, gcs_gc_info *out, size_t n);

void gcs_gc_analyzer_free(gcs_gc_analyzer *an);

/* ---- reports (src/report/gc_report.c) ---- */

typedef enum gcs_gc_format {
    GCS_GC_FORMAT_TABLE = 0, /* header, rollups, percentiles, per-GC table */
    GCS_GC_FORMAT_JSON = 1,  /* schema: docs/gc-stats.md */
    GCS_GC_FORMAT_CSV = 2    /* one row per GC, header row first */
} gcs_gc_format;

/*
 * Which GCs the per-GC list shows (table rows, JSON "gcs", CSV rows). All
 * zero: every GC. The other sections (summary, rollup, percentiles,
 * histogram, long pauses, condemned reasons) always count all the GCs of
 * the runtime, and the table and JSON say when the list is filtered.
 */
typedef struct gcs_gc_filter {
    unsigned gen_mask;    /* 0 any; else bit g: condemned generation g (0..2) */
    unsigned kind_mask;   /* 0 any; else bit t: gcs_gc_type t (N, B, F) */
    bool induced;         /* only GCs whose reason is one of the Induced* reasons */
    bool has_min_pause;   /* only complete GCs pausing at least min_pause_ms */
    double min_pause_ms;
    bool has_from, has_to; /* pause start (GCStart when unknown) in [from_ms, to_ms) */
    double from_ms, to_ms;
    size_t top;           /* > 0: only the top longest pauses, longest first */
    size_t limit;         /* > 0: at most limit rows per runtime (after top) */
} gcs_gc_filter;

/* True when gc meets every condition of f but top and limit (which rank
 * and count a whole list): generation, kind, induced, minimum pause, time
 * range. The report selects its rows with it; `gcscope live` its rows as
 * they come. */
bool gcs_gc_filter_match(const gcs_gc_filter *f, const gcs_gc_info *gc);

typedef struct gcs_gc_report_options {
    gcs_gc_format format;
    bool filter_pid;    /* only the process pid */
    uint32_t pid;
    const char *trace_name; /* shown in the header / JSON / CSV; may be NULL */
    /* Table columns: NULL the default set, else a comma-separated list of
     * gcs_gc_report_column_names() (check it with gcs_gc_report_columns_check).
     * wide: every column (wins over columns). JSON and CSV have them all. */
    const char *columns;
    bool wide;
    bool color;          /* ANSI colors in the table (the caller decides: a terminal) */
    double long_pause_ms; /* the "long pauses" section threshold; 0: 200 ms */
    gcs_gc_filter filter;
    /* Per-runtime facts the GC analysis does not keep, found by the caller
     * (NULL: none): the command line (NULL if unknown) and the finalizers
     * run (GCFinalizersEnd Count summed; negative if the trace has none). */
    const char *(*command_line)(void *ctx, uint32_t pid);
    int64_t (*finalizers_run)(void *ctx, uint32_t pid);
    /* Optional (NULL: none): the process's name, shown beside its id when
     * not NULL (ETL kernel events: gcs_process_table); and a selection of
     * processes (with filter_pid, both must hold). */
    const char *(*process_name)(void *ctx, uint32_t pid);
    bool (*select_process)(void *ctx, uint32_t pid);
    void *facts_ctx;
    bool summary_only;   /* table: leave out the per-GC list (the rest stays) */
    /* Optional (NULL: no section): finalized objects by type, after
     * gcs_finalized_finish (gcscope/finalized.h); a section per runtime in
     * the table, "finalized_objects" in JSON. */
    const struct gcs_finalized *finalized;
} gcs_gc_report_options;

/* The names --columns takes, comma-separated, in table order. */
const char *gcs_gc_report_column_names(void);

/* Checks a --columns list: -1 when every name is known, else the offset in
 * list of the first unknown (or empty) name. */
long gcs_gc_report_columns_check(const char *list);

/* How many GCs the filter of opts selects in the runtimes the report
 * writes (every GC without a filter); -1 on out-of-memory. */
long gcs_gc_report_selected(const gcs_gc_analyzer *an, const gcs_gc_report_options *opts);

/* Writes the report of a finished analyzer. Numbers use '.' and fixed
 * formats whatever the locale. Runtimes that ran no GC are left out; with
 * none left the table is the one line gcs_gc_report_no_gcs_line() (or, with
 * filter_pid, "No GC of process PID in this trace."), the JSON
 * has an empty "processes" and the CSV only its header. Returns the number
 * of runtimes written (0: no GC), or -1 if writing failed. */
int gcs_gc_report_write(FILE *out, const gcs_gc_analyzer *an, const gcs_gc_report_options *opts);

/* The line that says a trace holds no GC (no newline). */
const char *gcs_gc_report_no_gcs_line(void);

#ifdef __cplusplus
}
#endif
#endif
