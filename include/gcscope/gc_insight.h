/*
 * gcscope/gc_insight.h - what people act on, over a finished GC analysis
 * (gcscope/gc.h): headline metrics, the minimum mutator utilization curve,
 * scored findings, a comparison of two runs with a significance test, CI
 * limits, and the self-contained HTML report (docs/report.md,
 * docs/findings.md).
 *
 * Every function reads a gcs_gc_process (from gcs_gc_process_at, or built
 * by hand: only pid, the GC list and problems.lost_events are read besides
 * the counts the analyzer derives, so synthetic GC lists work). The GC
 * list is read with gcs_gc_process_read, a pass at a time: an analyzer
 * that spills its GCs (gcs_gc_options.spill_gcs) serves them all with
 * memory that grows by at most 24 bytes a GC (pauses for percentiles and
 * tests: 8; the MMU's intervals and their running sums: 24), and a spill file that cannot be read fails
 * the call (false, -1) as out-of-memory does.
 */
#ifndef GCSCOPE_GC_INSIGHT_H
#define GCSCOPE_GC_INSIGHT_H

#include <stdio.h>

#include "gcscope/gc.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Nearest-rank percentile (p in 0..100) of n values sorted ascending: the
 * smallest value with at least p % of the values at or below it; NaN when
 * n is 0. */
double gcs_percentile_sorted(const double *sorted, size_t n, double p);

/* True for the Induced* reasons (Induced, InducedNotForced, InducedLowMemory,
 * InducedCompacting, InducedAggressive): a GC the program or host asked for. */
bool gcs_gc_reason_is_induced(uint32_t reason);

/* Headline numbers of one runtime, over its complete GCs. */
typedef struct gcs_gc_kpis {
    double span_ms;            /* first to last event of the runtime (or of its GCs) */
    double total_pause_ms;
    double gc_pct;             /* total pause / span, % */
    double throughput_pct;     /* 100 - gc_pct */
    double p50_pause_ms, p90_pause_ms, p99_pause_ms, max_pause_ms, mean_pause_ms;
    double peak_heap_mb;       /* largest heap size before / peak */
    double total_allocated_mb;
    double alloc_rate_mb_s;    /* total allocated / span */
    uint32_t gc_count, complete_count, incomplete_count;
    uint32_t gen_count[3];     /* complete GCs per condemned generation */
    uint32_t kind_count[3];    /* complete GCs per gcs_gc_type */
    uint32_t induced_count;    /* every Induced* reason */
} gcs_gc_kpis;

/* Computes the headline numbers of p's GCs. Returns false on out-of-memory
 * or when p's spill file cannot be read (gcs_gc_process_read). */
bool gcs_gc_kpis_compute(const gcs_gc_process *p, gcs_gc_kpis *out);

/*
 * Minimum mutator utilization (Go's MMU): for a window of w ms, the worst
 * fraction of any window [t, t+w) inside [from_ms, to_ms] that was not
 * paused by a complete GC. out[i] gets the MMU of windows_ms[i] (0..1; NaN
 * when the window is longer than the span). O(n log n) per window.
 * Returns false on out-of-memory.
 */
bool gcs_gc_mmu(const gcs_gc_info *gcs, size_t n, double from_ms, double to_ms,
                const double *windows_ms, size_t n_windows, double *out);

/* The same over the complete GCs of p, in memory or spilled (false also
 * when its spill file cannot be read). */
bool gcs_gc_process_mmu(const gcs_gc_process *p, double from_ms, double to_ms,
                        const double *windows_ms, size_t n_windows, double *out);

/* The window sizes the report draws the MMU at: 1, 2, 5, 10, 20, 50 ... ms
 * up to span_ms; returns how many were written (at most cap). */
size_t gcs_gc_mmu_windows(double span_ms, double *out, size_t cap);

/*
 * Per-heap sizes of one GC (server GC: one per-heap history per heap, in
 * arrival order as TraceEvent numbers heaps): for each heap the object
 * space before the GC of gen0 + LOH + POH (size before minus free space),
 * MB. p must be one of an's runtimes (gcs_gc_process_at). Writes at most
 * cap values and returns how many histories the GC has (0: none).
 */
size_t gcs_gc_heap_object_space(const gcs_gc_analyzer *an, const gcs_gc_process *p,
                                size_t gc_index, double *out_mb, size_t cap);

/* The same heaps after the GC: object size of gen0 + LOH + POH (size after
 * minus free-list and free-object space), MB. Same return value. */
size_t gcs_gc_heap_object_size_after(const gcs_gc_analyzer *an, const gcs_gc_process *p,
                                     size_t gc_index, double *out_mb, size_t cap);

/* ---- findings (docs/findings.md) ---- */

typedef struct gcs_gc_finding {
    const char *rule;      /* stable id: "long-pauses", "induced-gcs", ... */
    const char *title;     /* one line */
    int score;             /* 1..100: how much it likely costs; the list is sorted by it */
    char evidence[320];    /* the numbers that triggered it */
    const char *advice;    /* what to try */
} gcs_gc_finding;

/* Thresholds of the rules (zero: the documented defaults). */
typedef struct gcs_gc_finding_options {
    double long_pause_ms;  /* default 200 */
} gcs_gc_finding_options;

/* Evaluates every rule on p; writes those that fire into out (at most cap),
 * highest score first, ties by rule order. Returns how many fired (may be
 * more than cap), or -1 on out-of-memory. */
int gcs_gc_findings(const gcs_gc_process *p, const gcs_gc_finding_options *opts,
                    gcs_gc_finding *out, size_t cap);

/* ---- comparison of two runs ---- */

/*
 * Mann-Whitney U test of two samples (normal approximation with tie
 * correction and continuity correction): *z > 0 when b tends to be larger
 * than a; *p_two_sided the probability of a shift at least as large by
 * chance. Needs at least 1 value in each; false otherwise or on out-of-memory.
 */
bool gcs_mann_whitney(const double *a, size_t na, const double *b, size_t nb, double *z,
                      double *p_two_sided);

/*
 * Bootstrap confidence interval of stat(b) - stat(a), stat being the
 * nearest-rank percentile p (0..100) or, with p < 0, the mean: both
 * samples resampled with replacement `resamples` times by a fixed-seed
 * generator (the same inputs give the same interval), the interval the
 * central `confidence` (e.g. 0.99) of the differences. Each resample costs
 * O(n) (percentiles through counts of drawn ranks in the sorted sample).
 * False when a sample is empty or on out-of-memory.
 */
bool gcs_bootstrap_diff_ci(const double *a, size_t na, const double *b, size_t nb, double p,
                           unsigned resamples, double confidence, double *lo, double *hi);

/*
 * gcs_bootstrap_diff_ci for several statistics (stats[0..nstats), each a
 * percentile or < 0 for the mean; nstats at most GCS_BOOTSTRAP_MAX_STATS)
 * from one set of resamples: lo[s], hi[s] are what gcs_bootstrap_diff_ci
 * gives for stats[s] (the generator draws the same positions for every
 * statistic), for a fraction of the cost of one call each.
 */
#define GCS_BOOTSTRAP_MAX_STATS 16
bool gcs_bootstrap_diff_cis(const double *a, size_t na, const double *b, size_t nb,
                            const double *stats, size_t nstats, unsigned resamples,
                            double confidence, double *lo, double *hi);

typedef enum gcs_verdict {
    GCS_VERDICT_SAME = 0,   /* "no significant change" */
    GCS_VERDICT_REGRESSED,
    GCS_VERDICT_IMPROVED
} gcs_verdict;
const char *gcs_verdict_name(gcs_verdict v);

/* One headline metric of two runs. */
typedef struct gcs_gc_compare_row {
    const char *metric;    /* "p99_pause_ms", ... */
    double base, next, delta, delta_pct; /* delta_pct NaN when base is 0 */
    double ci_lo, ci_hi;   /* pause metrics: bootstrap interval of delta (else NaN) */
    double p_value;        /* pause metrics: Mann-Whitney p of the two pause
                              distributions (else NaN) */
    gcs_verdict verdict;
} gcs_gc_compare_row;

enum { GCS_GC_COMPARE_ROWS = 12 };

typedef struct gcs_gc_compare_options {
    double alpha;          /* significance of the pause distribution test; 0: 0.001 */
    double confidence;     /* of the bootstrap interval shown; 0: 0.99 */
    double min_change_pct; /* smaller relative changes are "no significant change"; 0: 5 */
    double min_change_ms;  /* pause metrics: smaller changes too (sub-0.1 ms moves are
                              not worth acting on); 0: 0.1 */
} gcs_gc_compare_options;

/* Compares the headline metrics of two runtimes (rows in a fixed order).
 * Pause metrics (mean, p50, p90, p99, max) change significantly only when
 * the Mann-Whitney test says the pause distribution shifted (p < alpha)
 * in the direction the metric moved, and it moved by more than
 * min_change_pct and min_change_ms; the others (counts, totals, peak heap)
 * by min_change_pct alone. The bootstrap interval of each pause metric's
 * delta is given too (a percentile of ~100 heavy-tailed pauses is too
 * unstable for its interval to decide). Returns the row count, or -1 on
 * out-of-memory. */
int gcs_gc_compare(const gcs_gc_process *base, const gcs_gc_process *next,
                   const gcs_gc_compare_options *opts, gcs_gc_compare_row rows[GCS_GC_COMPARE_ROWS]);

/* How gcs_gc_pair_runtimes paired two traces' runtimes. */
typedef enum gcs_gc_pairing {
    GCS_PAIRED_BY_NAME = 0, /* "process name" */
    GCS_PAIRED_BY_PID,      /* "pid" */
    GCS_PAIRED_IN_ORDER     /* "order" */
} gcs_gc_pairing;
const char *gcs_gc_pairing_name(gcs_gc_pairing how);

/*
 * Pairs the runtimes of two traces (base[0..nb), next[0..nn), each in the
 * analyzer's order) for compare and check: by process name when a name
 * (base_names[i], next_names[j]: the trace's name of the runtime's process,
 * NULL or "" when it names none; the arrays may be NULL) is in both
 * traces, compared case-insensitively; else by pid when a pid is in both;
 * else in order. Runtimes sharing a name or pid (several runtimes in one
 * process) pair in order among themselves. base_of[j] gets the index in
 * base of next[j]'s counterpart, or -1 when it has none.
 */
gcs_gc_pairing gcs_gc_pair_runtimes(const gcs_gc_process *const *base,
                                    const char *const *base_names, size_t nb,
                                    const gcs_gc_process *const *next,
                                    const char *const *next_names, size_t nn, long *base_of);

/* ---- CI limits ---- */

/* Limits of `gcscope check`; a limit is off when its has_ flag is false. */
typedef struct gcs_gc_limits {
    bool has_max_pause, has_max_p99, has_max_gc_pct, has_max_gen2, has_max_regression;
    double max_pause_ms, max_p99_pause_ms, max_gc_pct;
    uint32_t max_gen2;
    double max_regression_pct; /* against a baseline: p99 pause, gc %, gen2 count, peak heap */
    /* Significance a pause regression needs to count against
     * max_regression_pct; 0: 0.05. Looser than compare's default (0.001):
     * the gate's own tolerance already rules out small moves, and a gate
     * must not pass pauses that doubled because 50 of them spread widely. */
    double regression_alpha;
} gcs_gc_limits;

typedef struct gcs_gc_violation {
    const char *limit;     /* "max-pause-ms", ... */
    double value, limit_value;
    char text[200];        /* one line: what, value, limit */
} gcs_gc_violation;

/* Checks one runtime against the limits (base may be NULL: no regression
 * limit then). Writes the violations (at most cap) and returns their count,
 * or -1 on out-of-memory. */
int gcs_gc_check(const gcs_gc_process *p, const gcs_gc_process *base, const gcs_gc_limits *lim,
                 gcs_gc_violation *out, size_t cap);

/* ---- the HTML report ---- */

/* Writes s to f as HTML/XML text or a quoted attribute value: < > & and "
 * become entities, every other byte is written as is (UTF-8 passes
 * through). The report, compare's HTML and check's JUnit XML all escape
 * with it, so names from a trace cannot break their markup. */
void gcs_html_escape(FILE *f, const char *s);

typedef struct gcs_gc_html_options {
    const char *trace_name;  /* shown in the title; may be NULL */
    bool filter_pid;         /* only the runtime(s) of process pid */
    uint32_t pid;
    double long_pause_ms;    /* threshold of the long pauses table and finding; 0: 200 */
    /* Optional (NULL: no section): finalized objects by type, after
     * gcs_finalized_finish (gcscope/finalized.h). */
    const struct gcs_finalized *finalized;
    /* Optional (NULL: no section): who allocates, after gcs_allocs_finish
     * (gcscope/allocs.h); every process of the trace together. */
    const struct gcs_allocs *allocs;
} gcs_gc_html_options;

/* Writes the self-contained HTML report (inline SVG, CSS and a small
 * script; no network) of the runtimes of a finished analyzer that ran a
 * GC, spilled or not (the same bytes). Deterministic for the same input.
 * Returns the number of runtimes written (0: no GC), or -1 when writing
 * failed, memory ran out or the spill file could not be read. */
int gcs_gc_html_write(FILE *out, const gcs_gc_analyzer *an, const gcs_gc_html_options *opts);

/* The same over runtimes given by the caller (processes[i], n of them),
 * e.g. a synthetic GC list. */
int gcs_gc_html_write_processes(FILE *out, const gcs_gc_process *const *processes, size_t n,
                                const gcs_gc_html_options *opts);

#ifdef __cplusplus
}
#endif
#endif
