/*
 * analysis/gc/gc_metrics.c - headline metrics, the minimum mutator
 * utilization curve and the Mann-Whitney test over a GC list
 * (gcscope/gc_insight.h). Pure functions of the GC records: the unit tests
 * feed them synthetic lists.
 */
#include <assert.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/gc/gc_internal.h"
#include "analysis/gc/gc_walk.h"
#include "analysis/gc/nearest_rank.h"
#include "gcscope/gc_insight.h"

bool gcs_gc_reason_is_induced(uint32_t reason)
{
    return reason == 1 || reason == 7 || reason == 9 || reason == 10 || reason == 17;
}

double gcs_percentile_sorted(const double *sorted, size_t n, double p)
{
    if (n == 0)
        return NAN;
    return sorted[gcs_nearest_rank(p, n) - 1];
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y ? 1 : 0;
}

static bool counted_pause(const gcs_gc_info *gc)
{
    return gc->is_complete && isfinite(gc->pause_ms);
}

bool gcs_gc_kpis_compute(const gcs_gc_process *p, gcs_gc_kpis *k)
{
    memset(k, 0, sizeof *k);
    k->gc_count = (uint32_t)p->gc_count;
    double *pauses = malloc((p->gc_count ? p->gc_count : 1) * sizeof *pauses);
    if (!pauses)
        return false;
    size_t n = 0;
    double first = INFINITY, last = -INFINITY, allocated = 0;
    gcs_gc_walk walk;
    gcs_gc_walk_start(&walk, p);
    for (const gcs_gc_info *gc; (gc = gcs_gc_walk_next(&walk));) {
        double t = isfinite(gc->pause_start_ms) ? gc->pause_start_ms : gc->start_ms;
        if (isfinite(t) && t < first)
            first = t;
        double end = t + (isfinite(gc->pause_ms) ? gc->pause_ms : 0);
        if (isfinite(end) && end > last)
            last = end;
        if (!counted_pause(gc)) {
            k->incomplete_count++;
            continue;
        }
        pauses[n++] = gc->pause_ms;
        k->total_pause_ms += gc->pause_ms;
        if (gc->generation < 3)
            k->gen_count[gc->generation]++;
        if (gc->type < 3)
            k->kind_count[gc->type]++;
        if (gcs_gc_reason_is_induced(gc->reason))
            k->induced_count++;
        double peak = fmax(gc->heap_size_peak_mb, gc->heap_size_before_mb);
        if (isfinite(peak) && peak > k->peak_heap_mb)
            k->peak_heap_mb = peak;
        if (isfinite(gc->allocated_since_last_gc_mb))
            allocated += gc->allocated_since_last_gc_mb;
    }
    if (!gcs_gc_walk_end(&walk)) {
        free(pauses);
        return false;
    }
    k->complete_count = (uint32_t)n;
    /* The runtime's own span when the analyzer knows it, else the GCs'. */
    if (isfinite(p->first_event_ms) && isfinite(p->last_event_ms) &&
        p->last_event_ms > p->first_event_ms) {
        first = p->first_event_ms;
        last = p->last_event_ms;
    }
    k->span_ms = last > first ? last - first : 0;
    k->total_allocated_mb = p->all.count > 0 ? p->all.total_allocated_mb : allocated;
    k->p50_pause_ms = k->p90_pause_ms = k->p99_pause_ms = k->max_pause_ms = NAN;
    if (n) /* by selection: the values a sort gives (nearest_rank.h) */
        gcs_nearest_p50_p90_p99(pauses, n, &k->p50_pause_ms, &k->p90_pause_ms, &k->p99_pause_ms,
                                &k->max_pause_ms);
    k->mean_pause_ms = n ? k->total_pause_ms / (double)n : NAN;
    k->gc_pct = k->span_ms > 0 ? 100.0 * k->total_pause_ms / k->span_ms : NAN;
    k->throughput_pct = isfinite(k->gc_pct) ? 100.0 - k->gc_pct : NAN;
    k->alloc_rate_mb_s = k->span_ms > 0 ? k->total_allocated_mb / (k->span_ms / 1000.0) : NAN;
    free(pauses);
    return true;
}

/* ------------------------------------------------------------------ MMU */

typedef struct interval {
    double start, end;
} interval;

static int cmp_interval(const void *a, const void *b)
{
    const interval *x = a, *y = b;
    return x->start < y->start ? -1 : x->start > y->start ? 1 : 0;
}

/* Paused time in [0, t) over n merged sorted intervals, with prefix[i]
 * the paused time of intervals before i. *at is where the last call
 * with the same cursor stopped: the first interval starting at or after
 * its t, which may not be later than this t (a cursor follows ascending
 * times), so the walk from there is O(1) amortized. */
static double paused_before(const interval *iv, const double *prefix, size_t n, double t,
                            size_t *at)
{
    size_t lo = *at;
    assert(lo == 0 || iv[lo - 1].start < t); /* t did not go back */
    while (lo < n && iv[lo].start < t)
        lo++;
    *at = lo;
    double s = prefix[lo];
    if (lo > 0 && iv[lo - 1].end > t) /* t falls inside interval lo-1 */
        s -= iv[lo - 1].end - t;
    return s;
}

bool gcs_gc_mmu(const gcs_gc_info *gcs, size_t n, double from_ms, double to_ms,
                const double *windows_ms, size_t n_windows, double *out)
{
    gcs_gc_process p;
    memset(&p, 0, sizeof p);
    p.gcs = gcs;
    p.gc_count = n;
    return gcs_gc_process_mmu(&p, from_ms, to_ms, windows_ms, n_windows, out);
}

bool gcs_gc_process_mmu(const gcs_gc_process *p, double from_ms, double to_ms,
                        const double *windows_ms, size_t n_windows, double *out)
{
    /* The pauses as intervals with running sums: 24 bytes a GC, not the records. */
    size_t n = p->gc_count;
    interval *iv = malloc((n ? n : 1) * sizeof *iv);
    double *prefix = malloc((n + 1) * sizeof *prefix);
    if (!iv || !prefix) {
        free(iv);
        free(prefix);
        return false;
    }
    size_t m = 0;
    gcs_gc_walk walk;
    gcs_gc_walk_start(&walk, p);
    for (const gcs_gc_info *gc; (gc = gcs_gc_walk_next(&walk));) {
        if (!counted_pause(gc) || !isfinite(gc->pause_start_ms) || gc->pause_ms <= 0)
            continue;
        double s = fmax(gc->pause_start_ms, from_ms), e = fmin(gc->pause_start_ms + gc->pause_ms, to_ms);
        if (e > s)
            iv[m++] = (interval){s, e};
    }
    if (!gcs_gc_walk_end(&walk)) {
        free(iv);
        free(prefix);
        return false;
    }
    qsort(iv, m, sizeof *iv, cmp_interval);
    /* Merge overlaps (a background GC's pause can overlap nothing, but a
     * hand-made list may). */
    size_t k = 0;
    for (size_t i = 0; i < m; i++) {
        if (k > 0 && iv[i].start <= iv[k - 1].end)
            iv[k - 1].end = fmax(iv[k - 1].end, iv[i].end);
        else
            iv[k++] = iv[i];
    }
    prefix[0] = 0;
    for (size_t i = 0; i < k; i++)
        prefix[i + 1] = prefix[i] + (iv[i].end - iv[i].start);
    double span = to_ms - from_ms;
    for (size_t w = 0; w < n_windows; w++) {
        double win = windows_ms[w];
        if (!(win > 0) || !(win <= span)) {
            out[w] = NAN;
            continue;
        }
        /* The paused time of [t, t+win) is piecewise linear in t: its
         * maximum is at a window starting where a pause starts or ending
         * where one ends (clamped to the span). */
        double worst = 0;
        double last_start = to_ms - win;
        /* Windows starting where a pause starts, then windows ending where
         * one ends: in each pass t and t + win ascend with i (fmin, fmax
         * and + round monotonically), and a cursor follows each (the
         * largest paused time is the same in any order). */
        for (int c = 0; c < 2; c++) {
            size_t at_start = 0, at_end = 0;
            for (size_t i = 0; i < k; i++) {
                double cand = c == 0 ? iv[i].start : iv[i].end - win;
                double t = fmin(fmax(cand, from_ms), last_start);
                double paused = paused_before(iv, prefix, k, t + win, &at_end) -
                                paused_before(iv, prefix, k, t, &at_start);
                if (paused > worst)
                    worst = paused;
            }
        }
        double u = 1.0 - worst / win;
        out[w] = u < 0 ? 0 : u;
    }
    free(iv);
    free(prefix);
    return true;
}

size_t gcs_gc_mmu_windows(double span_ms, double *out, size_t cap)
{
    static const double steps[3] = {1, 2, 5};
    size_t n = 0;
    for (double decade = 1; n < cap; decade *= 10) {
        for (int s = 0; s < 3 && n < cap; s++) {
            double w = decade * steps[s];
            if (w > span_ms)
                return n;
            out[n++] = w;
        }
    }
    return n;
}

/* ------------------------------------------------------- Mann-Whitney */

typedef struct ranked {
    double v;
    int group; /* 0: a, 1: b */
} ranked;

static int cmp_ranked(const void *x, const void *y)
{
    const ranked *a = x, *b = y;
    return a->v < b->v ? -1 : a->v > b->v ? 1 : a->group - b->group;
}

bool gcs_mann_whitney(const double *a, size_t na, const double *b, size_t nb, double *z,
                      double *p_two_sided)
{
    if (na == 0 || nb == 0)
        return false;
    size_t n = na + nb;
    ranked *r = malloc(n * sizeof *r);
    if (!r)
        return false;
    for (size_t i = 0; i < na; i++)
        r[i] = (ranked){a[i], 0};
    for (size_t i = 0; i < nb; i++)
        r[na + i] = (ranked){b[i], 1};
    qsort(r, n, sizeof *r, cmp_ranked);
    double rank_sum_b = 0, ties = 0;
    for (size_t i = 0; i < n;) {
        size_t j = i;
        while (j < n && r[j].v == r[i].v)
            j++;
        double t = (double)(j - i);
        double mid_rank = ((double)i + 1 + (double)j) / 2.0; /* ranks i+1..j */
        for (size_t q = i; q < j; q++)
            if (r[q].group == 1)
                rank_sum_b += mid_rank;
        ties += t * t * t - t;
        i = j;
    }
    free(r);
    double dna = (double)na, dnb = (double)nb, dn = (double)n;
    double u_b = rank_sum_b - dnb * (dnb + 1) / 2.0;
    double mean = dna * dnb / 2.0;
    double var = dna * dnb / 12.0 * ((dn + 1) - ties / (dn * (dn - 1 > 0 ? dn - 1 : 1)));
    if (!(var > 0)) {
        *z = 0;
        *p_two_sided = 1;
        return true;
    }
    double d = u_b - mean;
    double cc = d > 0 ? -0.5 : d < 0 ? 0.5 : 0; /* continuity correction */
    *z = (d + cc) / sqrt(var);
    *p_two_sided = erfc(fabs(*z) / sqrt(2.0));
    return true;
}

/* ------------------------------------------------------------ bootstrap */

/* xorshift64*: small, fast, and the same sequence everywhere. */
static uint64_t next_random(uint64_t *state)
{
    uint64_t x = *state;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    *state = x;
    return x * 2685821657736338717ull;
}

/* Percentile statistics (p >= 0) of one resample, from the counts of drawn
 * positions of the sorted sample v (n values): out[k] for stats[order[k]],
 * the rank-th smallest drawn value, in one scan (order: the percentiles by
 * ascending rank). */
static void percentiles_of(const double *v, size_t n, const uint32_t *counts, const double *stats,
                           const size_t *order, size_t n_pct, double *out)
{
    size_t rank[GCS_BOOTSTRAP_MAX_STATS];
    for (size_t k = 0; k < n_pct; k++)
        rank[k] = gcs_nearest_rank(stats[order[k]], n);
    size_t k = 0, seen = 0;
    for (size_t i = 0; i < n && k < n_pct; i++) {
        seen += counts[i];
        while (k < n_pct && seen >= rank[k])
            out[order[k++]] = v[i];
    }
    for (; k < n_pct; k++)
        out[order[k]] = v[n - 1];
}

/* One resample of the sorted sample v (n values), n draws of the
 * generator: every statistic of stats into out (the mean summed in draw
 * order). */
static void resample_stats(const double *v, size_t n, const double *stats, size_t nstats,
                           const size_t *order, size_t n_pct, uint32_t *counts, uint64_t *rng,
                           double *out)
{
    double sum = 0;
    const bool mean = n_pct < nstats; /* a mean asked too: sum the draws */
    if (n_pct > 0) {
        memset(counts, 0, n * sizeof *counts);
        for (size_t i = 0; i < n; i++) {
            const size_t at = next_random(rng) % n;
            counts[at]++;
            if (mean)
                sum += v[at];
        }
        percentiles_of(v, n, counts, stats, order, n_pct, out);
    } else {
        for (size_t i = 0; i < n; i++)
            sum += v[next_random(rng) % n];
    }
    for (size_t s = 0; s < nstats; s++)
        if (stats[s] < 0)
            out[s] = sum / (double)n;
}

bool gcs_bootstrap_diff_cis(const double *a, size_t na, const double *b, size_t nb,
                            const double *stats, size_t nstats, unsigned resamples,
                            double confidence, double *lo, double *hi)
{
    if (na == 0 || nb == 0 || resamples == 0 || nstats == 0 || nstats > GCS_BOOTSTRAP_MAX_STATS)
        return false;
    /* The percentiles by ascending rank (the same order for both samples:
     * the rank grows with p whatever n). */
    size_t order[GCS_BOOTSTRAP_MAX_STATS], n_pct = 0;
    for (size_t s = 0; s < nstats; s++) {
        if (stats[s] < 0)
            continue;
        size_t k = n_pct++;
        for (; k > 0 && stats[order[k - 1]] > stats[s]; k--)
            order[k] = order[k - 1];
        order[k] = s;
    }
    double *sa = malloc(na * sizeof *sa), *sb = malloc(nb * sizeof *sb);
    double *diff = malloc((size_t)resamples * nstats * sizeof *diff);
    uint32_t *counts = malloc((na > nb ? na : nb) * sizeof *counts);
    bool ok = sa && sb && diff && counts;
    if (ok) {
        memcpy(sa, a, na * sizeof *sa);
        memcpy(sb, b, nb * sizeof *sb);
        qsort(sa, na, sizeof *sa, cmp_double);
        qsort(sb, nb, sizeof *sb, cmp_double);
        uint64_t rng = 0x9E3779B97F4A7C15ull;
        double stat_b[GCS_BOOTSTRAP_MAX_STATS], stat_a[GCS_BOOTSTRAP_MAX_STATS];
        for (unsigned i = 0; i < resamples; i++) {
            /* b's draws, then a's: the generator's order. */
            resample_stats(sb, nb, stats, nstats, order, n_pct, counts, &rng, stat_b);
            resample_stats(sa, na, stats, nstats, order, n_pct, counts, &rng, stat_a);
            for (size_t s = 0; s < nstats; s++)
                diff[s * resamples + i] = stat_b[s] - stat_a[s];
        }
        double tail = (1.0 - confidence) / 2.0;
        size_t ilo = (size_t)floor(tail * (resamples - 1));
        size_t ihi = (size_t)ceil((1.0 - tail) * (resamples - 1));
        if (ihi >= resamples)
            ihi = resamples - 1;
        for (size_t s = 0; s < nstats; s++) {
            double *d = diff + s * resamples;
            qsort(d, resamples, sizeof *d, cmp_double);
            lo[s] = d[ilo];
            hi[s] = d[ihi];
        }
    }
    free(sa);
    free(sb);
    free(diff);
    free(counts);
    return ok;
}

bool gcs_bootstrap_diff_ci(const double *a, size_t na, const double *b, size_t nb, double p,
                           unsigned resamples, double confidence, double *lo, double *hi)
{
    return gcs_bootstrap_diff_cis(a, na, b, nb, &p, 1, resamples, confidence, lo, hi);
}

/* ------------------------------------------------------------ per heap */

size_t gcs_gc_heap_values(const gcs_gc_analyzer *an, const gcs_gc_process *p, size_t gc_index,
                          gcs_gc_heap_index *index, double *before, double *after, size_t cap)
{
    for (size_t r = 0; r < an->runtime_count; r++) {
        const gcs_gc_runtime *rt = an->runtimes[r];
        if (&rt->pub != p)
            continue;
        if (gc_index >= rt->n)
            return 0;
        if (an->spill_fd >= 0) /* written to the file by finish */
            return an->finished ? gcs_gc_spilled_heap_values(an, rt, gc_index, index, before,
                                                             after, cap)
                                : 0;
        size_t n = 0;
        for (int64_t h = RT_PRIV(rt, gc_index).ph_first; h >= 0; h = rt->heap_allocs[h].next) {
            if (n < cap && before)
                before[n] = gcs_gc_heap_value_mb(&rt->heap_allocs[h], false);
            if (n < cap && after)
                after[n] = gcs_gc_heap_value_mb(&rt->heap_allocs[h], true);
            n++;
        }
        return n;
    }
    return 0;
}

size_t gcs_gc_heap_object_space(const gcs_gc_analyzer *an, const gcs_gc_process *p,
                                size_t gc_index, double *out_mb, size_t cap)
{
    return gcs_gc_heap_values(an, p, gc_index, NULL, out_mb, NULL, cap);
}

size_t gcs_gc_heap_object_size_after(const gcs_gc_analyzer *an, const gcs_gc_process *p,
                                     size_t gc_index, double *out_mb, size_t cap)
{
    return gcs_gc_heap_values(an, p, gc_index, NULL, NULL, out_mb, cap);
}
