/*
 * report/gc_insight.c - findings (docs/findings.md), the comparison of two
 * runs and the CI limits (gcscope/gc_insight.h). Over the GC records only,
 * a pass at a time (gc_walk.h), in memory or spilled: the unit tests drive
 * them with synthetic GC lists.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "analysis/gc/gc_walk.h"
#include "gcscope/gc_insight.h"

/* ------------------------------------------------------------- findings */

static int clamp_score(double s)
{
    return s < 1 ? 1 : s > 100 ? 100 : (int)lround(s);
}

static bool complete(const gcs_gc_info *gc)
{
    return gc->is_complete && isfinite(gc->pause_ms);
}

/* Least-squares slope of y over x (per unit of x); NaN under 2 points. */
static double slope_of(const double *x, const double *y, size_t n)
{
    if (n < 2)
        return NAN;
    double mx = 0, my = 0;
    for (size_t i = 0; i < n; i++) {
        mx += x[i];
        my += y[i];
    }
    mx /= (double)n;
    my /= (double)n;
    double sxy = 0, sxx = 0;
    for (size_t i = 0; i < n; i++) {
        sxy += (x[i] - mx) * (y[i] - my);
        sxx += (x[i] - mx) * (x[i] - mx);
    }
    return sxx > 0 ? sxy / sxx : NAN;
}

typedef struct finding_list {
    gcs_gc_finding *out;
    size_t cap, n;
} finding_list;

static gcs_gc_finding *add(finding_list *l, const char *rule, const char *title, double score,
                           const char *advice)
{
    static gcs_gc_finding sink; /* past cap: evaluated, counted, not kept */
    gcs_gc_finding *f = l->n < l->cap ? &l->out[l->n] : &sink;
    l->n++;
    f->rule = rule;
    f->title = title;
    f->score = clamp_score(score);
    f->advice = advice;
    f->evidence[0] = 0;
    return f;
}

static int by_score(const void *a, const void *b)
{
    const gcs_gc_finding *x = a, *y = b;
    return y->score - x->score;
}

int gcs_gc_findings(const gcs_gc_process *p, const gcs_gc_finding_options *opts,
                    gcs_gc_finding *out, size_t cap)
{
    finding_list l = {out, cap, 0};
    double threshold = opts && opts->long_pause_ms > 0 ? opts->long_pause_ms : 200.0;
    gcs_gc_kpis k;
    if (!gcs_gc_kpis_compute(p, &k))
        return -1;

    /* long-pauses */
    uint32_t long_n = 0, long_gen[3] = {0}, long_bgc = 0;
    double long_max = 0;
    int32_t long_max_number = -1;
    /* loh-triggered-gen2, fragmentation, pinning, heap growth */
    uint32_t gen2 = 0, gen2_loh = 0, fg = 0, bgc = 0, with_stats = 0, pinned_high = 0;
    uint32_t pinned_max = 0;
    double frag_sum = 0;
    uint32_t frag_n = 0;
    double *gx = malloc((p->gc_count ? p->gc_count : 1) * sizeof *gx);
    double *gy = malloc((p->gc_count ? p->gc_count : 1) * sizeof *gy);
    if (!gx || !gy) {
        free(gx);
        free(gy);
        return -1;
    }
    size_t g2n = 0;
    gcs_gc_walk walk;
    gcs_gc_walk_start(&walk, p);
    for (const gcs_gc_info *gc; (gc = gcs_gc_walk_next(&walk));) {
        if (!complete(gc))
            continue;
        if (gc->pause_ms > threshold) {
            long_n++;
            if (gc->generation < 3)
                long_gen[gc->generation]++;
            if (gc->type == GCS_GC_BACKGROUND)
                long_bgc++;
            if (gc->pause_ms > long_max) {
                long_max = gc->pause_ms;
                long_max_number = gc->number;
            }
        }
        if (gc->type == GCS_GC_FOREGROUND)
            fg++;
        if (gc->type == GCS_GC_BACKGROUND)
            bgc++;
        if (gc->generation == 2) {
            gen2++;
            if (gc->reason == 4 || gc->reason == 6) /* AllocLarge, OutOfSpaceLOH */
                gen2_loh++;
            if (isfinite(gc->fragmentation_pct[GCS_GEN2])) {
                frag_sum += gc->fragmentation_pct[GCS_GEN2];
                frag_n++;
            }
            if (isfinite(gc->heap_size_after_mb) && isfinite(gc->pause_start_ms)) {
                gx[g2n] = gc->pause_start_ms;
                gy[g2n] = gc->heap_size_after_mb;
                g2n++;
            }
        }
        if (gc->has_heap_stats) {
            with_stats++;
            if (gc->pinned_objects >= 100)
                pinned_high++;
            if (gc->pinned_objects > pinned_max)
                pinned_max = gc->pinned_objects;
        }
    }
    if (!gcs_gc_walk_end(&walk)) {
        free(gx);
        free(gy);
        return -1;
    }

    if (long_n > 0) {
        gcs_gc_finding *f = add(&l, "long-pauses", "Long GC pauses",
                                40 + 10 * log10((double)long_n) * 2 + long_max / threshold * 5,
                                "Gen2 blocking pauses: keep concurrent GC on and lower what "
                                "survives into gen2 (caches, large object graphs). Gen0/gen1 "
                                "pauses grow with what survives them: fewer mid-life objects, "
                                "or a smaller gen0 budget (GCgen0size). Server GC spreads the "
                                "work over heaps.");
        snprintf(f->evidence, sizeof f->evidence,
                 "%u of %u GCs paused over %.0f ms (gen0 %u, gen1 %u, gen2 %u; background %u); "
                 "the longest, GC #%d, paused %.3f ms.",
                 long_n, k.complete_count, threshold, long_gen[0], long_gen[1], long_gen[2],
                 long_bgc, (int)long_max_number, long_max);
    }
    if (k.induced_count > 0) {
        gcs_gc_finding *f = add(&l, "induced-gcs", "Induced GCs (GC.Collect)",
                                30 + 50.0 * k.induced_count / (k.complete_count ? k.complete_count : 1),
                                "Find and remove GC.Collect / GC.AddMemoryPressure calls (or "
                                "the library making them); the GC's own budget is nearly always "
                                "better timed.");
        snprintf(f->evidence, sizeof f->evidence, "%u of %u GCs were induced.", k.induced_count,
                 k.complete_count);
    }
    if (gen2_loh > 0) {
        gcs_gc_finding *f = add(&l, "loh-gen2", "Gen2 GCs triggered by large object allocation",
                                30 + 50.0 * gen2_loh / gen2,
                                "Allocate fewer objects of 85,000 bytes or more: pool large "
                                "buffers (ArrayPool<T>.Shared), stream instead of buffering, "
                                "or raise GCLOHThreshold.");
        snprintf(f->evidence, sizeof f->evidence,
                 "%u of %u gen2 GCs had reason AllocLarge or OutOfSpaceLOH.", gen2_loh, gen2);
    }
    if (fg > 0) {
        gcs_gc_finding *f = add(&l, "foreground-during-bgc", "Foreground GCs during background GCs",
                                20 + 40.0 * fg / (bgc ? bgc : 1),
                                "Ephemeral GCs had to run while a background GC was in "
                                "progress: allocation outpaced the background GC. Lower the "
                                "allocation rate during gen2 work, or a larger gen0 budget.");
        snprintf(f->evidence, sizeof f->evidence, "%u foreground GCs during %u background GCs.",
                 fg, bgc);
    }
    if (with_stats > 0 && pinned_high * 10 >= with_stats) {
        gcs_gc_finding *f = add(&l, "pinning", "Many pinned objects",
                                20 + 40.0 * pinned_high / with_stats,
                                "Pinned objects stop compaction and leave fragmentation: pin "
                                "for shorter, use the pinned object heap "
                                "(GC.AllocateArray(pinned: true)) for long-lived buffers, or "
                                "pool the pinned buffers.");
        snprintf(f->evidence, sizeof f->evidence,
                 "%u of %u GCs saw 100 or more pinned objects (most: %u).", pinned_high,
                 with_stats, pinned_max);
    }
    if (frag_n > 0 && frag_sum / frag_n > 30) {
        gcs_gc_finding *f = add(&l, "fragmentation", "High gen2 fragmentation",
                                20 + (frag_sum / frag_n - 30),
                                "Free space stays inside gen2 after its GCs: look for pinning "
                                "(above), objects that die in gen2 in bulk, or let the GC "
                                "compact (GCSettings.LargeObjectHeapCompactionMode for the "
                                "LOH).");
        snprintf(f->evidence, sizeof f->evidence,
                 "gen2 fragmentation after gen2 GCs averaged %.1f %% over %u GCs.",
                 frag_sum / frag_n, frag_n);
    }
    if (g2n >= 3) {
        double slope = slope_of(gx, gy, g2n); /* MB per ms */
        double growth = slope * (gx[g2n - 1] - gx[0]);
        if (slope > 0 && gy[g2n - 1] > gy[0] && growth > 0.2 * gy[0]) {
            gcs_gc_finding *f = add(&l, "heap-growth", "Heap grows after each gen2 GC",
                                    30 + fmin(50, 50.0 * growth / (gy[0] > 0 ? gy[0] : 1)),
                                    "What survives a full GC keeps growing: a leak or an "
                                    "unbounded cache. Compare two heap snapshots "
                                    "(dotnet-gcdump) taken some gen2 GCs apart.");
            snprintf(f->evidence, sizeof f->evidence,
                     "the heap after gen2 GCs went from %.1f MB to %.1f MB over %zu gen2 GCs "
                     "(slope %.2f MB/min).",
                     gy[0], gy[g2n - 1], g2n, slope * 60000.0);
        }
    }
    free(gx);
    free(gy);
    if (isfinite(k.gc_pct) && k.gc_pct > 10) {
        gcs_gc_finding *f = add(&l, "gc-time", "Much time paused in GC", 30 + 2 * k.gc_pct,
                                "Allocate less (the allocation rate sets how often gen0 "
                                "runs), keep fewer objects alive across GCs, and check the "
                                "GC mode: server GC for throughput on many cores.");
        snprintf(f->evidence, sizeof f->evidence,
                 "%.2f %% of %.0f ms was spent paused in %u GCs.", k.gc_pct, k.span_ms,
                 k.complete_count);
    }
    if (p->problems.lost_events > 0 || k.incomplete_count > 0) {
        gcs_gc_finding *f = add(&l, "incomplete-data", "Numbers may be incomplete", 50,
                                "Record again with a larger buffer (dotnet-trace "
                                "--buffersize) or fewer providers; incomplete GCs at the "
                                "trace's edges are normal.");
        snprintf(f->evidence, sizeof f->evidence,
                 "%llu events lost by the trace; %u GCs incomplete.",
                 (unsigned long long)p->problems.lost_events, k.incomplete_count);
    }
    size_t kept = l.n < cap ? l.n : cap;
    /* Stable: insertion order on ties (qsort is not stable; sort by score
     * then the rule order we added them in). */
    for (size_t i = 1; i < kept; i++) {
        gcs_gc_finding t = out[i];
        size_t j = i;
        while (j > 0 && by_score(&out[j - 1], &t) > 0) {
            out[j] = out[j - 1];
            j--;
        }
        out[j] = t;
    }
    return (int)l.n;
}

/* ------------------------------------------------------------ compare */

const char *gcs_verdict_name(gcs_verdict v)
{
    return v == GCS_VERDICT_REGRESSED ? "regressed"
           : v == GCS_VERDICT_IMPROVED ? "improved"
                                       : "no significant change";
}

const char *gcs_gc_pairing_name(gcs_gc_pairing how)
{
    return how == GCS_PAIRED_BY_NAME ? "process name" : how == GCS_PAIRED_BY_PID ? "pid" : "order";
}

static const char *name_at(const char *const *names, size_t i)
{
    return names && names[i] && names[i][0] ? names[i] : NULL;
}

/* Whether base[i] and next[j] are the same process for the pairing. */
static bool same_process(gcs_gc_pairing how, const gcs_gc_process *const *base,
                         const char *const *base_names, size_t i,
                         const gcs_gc_process *const *next, const char *const *next_names,
                         size_t j)
{
    if (how == GCS_PAIRED_BY_PID)
        return base[i]->pid == next[j]->pid;
    const char *a = name_at(base_names, i), *b = name_at(next_names, j);
    return a && b && strcasecmp(a, b) == 0;
}

gcs_gc_pairing gcs_gc_pair_runtimes(const gcs_gc_process *const *base,
                                    const char *const *base_names, size_t nb,
                                    const gcs_gc_process *const *next,
                                    const char *const *next_names, size_t nn, long *base_of)
{
    for (size_t j = 0; j < nn; j++)
        base_of[j] = j < nb ? (long)j : -1;
    /* The first way that pairs any runtime is the one used. */
    for (gcs_gc_pairing how = GCS_PAIRED_BY_NAME; how < GCS_PAIRED_IN_ORDER; how++) {
        bool any = false;
        for (size_t i = 0; i < nb && !any; i++)
            for (size_t j = 0; j < nn && !any; j++)
                any = same_process(how, base, base_names, i, next, next_names, j);
        if (!any)
            continue;
        /* next[j] takes the first base runtime of its process not taken by
         * an earlier one: O(nb * nn), a trace has a few runtimes. */
        for (size_t j = 0; j < nn; j++) {
            base_of[j] = -1;
            for (size_t i = 0; i < nb && base_of[j] < 0; i++) {
                bool taken = false;
                for (size_t k = 0; k < j && !taken; k++)
                    taken = base_of[k] == (long)i;
                if (!taken && same_process(how, base, base_names, i, next, next_names, j))
                    base_of[j] = (long)i;
            }
        }
        return how;
    }
    return GCS_PAIRED_IN_ORDER;
}

/* Complete GCs' pauses (caller frees); *n their count. NULL on
 * out-of-memory or a spill file that cannot be read. */
static double *pauses_of(const gcs_gc_process *p, size_t *n)
{
    double *v = malloc((p->gc_count ? p->gc_count : 1) * sizeof *v);
    *n = 0;
    if (!v)
        return NULL;
    gcs_gc_walk walk;
    gcs_gc_walk_start(&walk, p);
    for (const gcs_gc_info *gc; (gc = gcs_gc_walk_next(&walk));)
        if (complete(gc))
            v[(*n)++] = gc->pause_ms;
    if (!gcs_gc_walk_end(&walk)) {
        free(v);
        return NULL;
    }
    return v;
}

int gcs_gc_compare(const gcs_gc_process *base, const gcs_gc_process *next,
                   const gcs_gc_compare_options *opts, gcs_gc_compare_row rows[GCS_GC_COMPARE_ROWS])
{
    double confidence = opts && opts->confidence > 0 ? opts->confidence : 0.99;
    double alpha = opts && opts->alpha > 0 ? opts->alpha : 0.001;
    double min_change = opts && opts->min_change_pct > 0 ? opts->min_change_pct : 5.0;
    double min_change_ms = opts && opts->min_change_ms > 0 ? opts->min_change_ms : 0.1;
    gcs_gc_kpis a, b;
    if (!gcs_gc_kpis_compute(base, &a) || !gcs_gc_kpis_compute(next, &b))
        return -1;
    size_t na, nb;
    double *pa = pauses_of(base, &na), *pb = pauses_of(next, &nb);
    if (!pa || !pb) {
        free(pa);
        free(pb);
        return -1;
    }
    double z = 0, pval = NAN;
    if (!gcs_mann_whitney(pa, na, pb, nb, &z, &pval))
        pval = NAN;
    struct {
        const char *name;
        double a, b;
        double pause_stat; /* the pause percentile (-1: mean) gated by a
                              bootstrap interval; NAN: not a pause metric */
    } m[GCS_GC_COMPARE_ROWS] = {
        {"gc_count", a.complete_count, b.complete_count, NAN},
        {"gen2_count", a.gen_count[2], b.gen_count[2], NAN},
        {"induced_count", a.induced_count, b.induced_count, NAN},
        {"total_pause_ms", a.total_pause_ms, b.total_pause_ms, NAN},
        {"gc_pct", a.gc_pct, b.gc_pct, NAN},
        {"mean_pause_ms", a.mean_pause_ms, b.mean_pause_ms, -1},
        {"p50_pause_ms", a.p50_pause_ms, b.p50_pause_ms, 50},
        {"p90_pause_ms", a.p90_pause_ms, b.p90_pause_ms, 90},
        {"p99_pause_ms", a.p99_pause_ms, b.p99_pause_ms, 99},
        {"max_pause_ms", a.max_pause_ms, b.max_pause_ms, 100},
        {"peak_heap_mb", a.peak_heap_mb, b.peak_heap_mb, NAN},
        {"total_allocated_mb", a.total_allocated_mb, b.total_allocated_mb, NAN},
    };
    /* The pause metrics' intervals, from one set of resamples. */
    double stats[GCS_GC_COMPARE_ROWS], ci_lo[GCS_GC_COMPARE_ROWS], ci_hi[GCS_GC_COMPARE_ROWS];
    size_t n_stats = 0;
    for (int i = 0; i < GCS_GC_COMPARE_ROWS; i++)
        if (!isnan(m[i].pause_stat))
            stats[n_stats++] = m[i].pause_stat;
    bool have_ci = gcs_bootstrap_diff_cis(pa, na, pb, nb, stats, n_stats, 1000, confidence, ci_lo,
                                          ci_hi);
    size_t stat_at = 0;
    for (int i = 0; i < GCS_GC_COMPARE_ROWS; i++) {
        gcs_gc_compare_row *r = &rows[i];
        r->metric = m[i].name;
        r->base = m[i].a;
        r->next = m[i].b;
        r->delta = m[i].b - m[i].a;
        r->delta_pct = m[i].a != 0 && isfinite(m[i].a) ? 100.0 * r->delta / fabs(m[i].a) : NAN;
        bool pause_metric = !isnan(m[i].pause_stat);
        r->p_value = pause_metric ? pval : NAN;
        r->ci_lo = r->ci_hi = NAN;
        if (pause_metric && have_ci) {
            r->ci_lo = ci_lo[stat_at];
            r->ci_hi = ci_hi[stat_at];
        }
        stat_at += pause_metric;
        /* Moved enough: by min_change % of the base, or from zero to something. */
        bool moved = isfinite(r->delta_pct) ? fabs(r->delta_pct) > min_change
                                            : (isfinite(r->delta) && r->delta != 0);
        /* A pause metric: the distribution shifted its way, and enough. */
        bool shifted = isfinite(pval) && pval < alpha && (r->delta > 0) == (z > 0) &&
                       fabs(r->delta) >= min_change_ms;
        bool significant = moved && (!pause_metric || shifted);
        /* Every metric here is better lower. */
        r->verdict = !significant   ? GCS_VERDICT_SAME
                     : r->delta > 0 ? GCS_VERDICT_REGRESSED
                                    : GCS_VERDICT_IMPROVED;
    }
    free(pa);
    free(pb);
    return GCS_GC_COMPARE_ROWS;
}

/* --------------------------------------------------------------- check */

static void violation(gcs_gc_violation *out, size_t cap, int *n, const char *limit, double value,
                      double limit_value, const char *fmt_value)
{
    if ((size_t)*n < cap) {
        gcs_gc_violation *v = &out[*n];
        v->limit = limit;
        v->value = value;
        v->limit_value = limit_value;
        snprintf(v->text, sizeof v->text, fmt_value, value, limit_value);
    }
    (*n)++;
}

int gcs_gc_check(const gcs_gc_process *p, const gcs_gc_process *base, const gcs_gc_limits *lim,
                 gcs_gc_violation *out, size_t cap)
{
    gcs_gc_kpis k;
    if (!gcs_gc_kpis_compute(p, &k))
        return -1;
    int n = 0;
    if (lim->has_max_pause && k.max_pause_ms > lim->max_pause_ms)
        violation(out, cap, &n, "max-pause-ms", k.max_pause_ms, lim->max_pause_ms,
                  "max pause %.3f ms is over --max-pause-ms %g");
    if (lim->has_max_p99 && k.p99_pause_ms > lim->max_p99_pause_ms)
        violation(out, cap, &n, "max-p99-pause-ms", k.p99_pause_ms, lim->max_p99_pause_ms,
                  "p99 pause %.3f ms is over --max-p99-pause-ms %g");
    if (lim->has_max_gc_pct && k.gc_pct > lim->max_gc_pct)
        violation(out, cap, &n, "max-gc-pct", k.gc_pct, lim->max_gc_pct,
                  "time paused in GC %.3f %% is over --max-gc-pct %g");
    if (lim->has_max_gen2 && k.gen_count[2] > lim->max_gen2)
        violation(out, cap, &n, "max-gen2", k.gen_count[2], lim->max_gen2,
                  "%.0f gen2 GCs is over --max-gen2 %g");
    if (lim->has_max_regression && base) {
        gcs_gc_compare_row rows[GCS_GC_COMPARE_ROWS];
        gcs_gc_compare_options co = {
            .alpha = lim->regression_alpha > 0 ? lim->regression_alpha : 0.05};
        if (gcs_gc_compare(base, p, &co, rows) < 0)
            return -1;
        static const char *const watched[] = {"p99_pause_ms", "max_pause_ms", "gc_pct",
                                              "gen2_count", "peak_heap_mb"};
        for (int i = 0; i < GCS_GC_COMPARE_ROWS; i++) {
            const gcs_gc_compare_row *r = &rows[i];
            bool is_watched = false;
            for (size_t w = 0; w < sizeof watched / sizeof watched[0]; w++)
                is_watched |= strcmp(r->metric, watched[w]) == 0;
            if (!is_watched || r->verdict != GCS_VERDICT_REGRESSED ||
                !(r->delta_pct > lim->max_regression_pct || !isfinite(r->delta_pct)))
                continue;
            if ((size_t)n < cap) {
                gcs_gc_violation *v = &out[n];
                v->limit = "max-regression-pct";
                v->value = r->delta_pct;
                v->limit_value = lim->max_regression_pct;
                snprintf(v->text, sizeof v->text,
                         "%s regressed %.3f -> %.3f (%+.1f %%), over --max-regression-pct %g",
                         r->metric, r->base, r->next, r->delta_pct, lim->max_regression_pct);
            }
            n++;
        }
    }
    return n;
}
