/*
 * analysis/gc/nearest_rank.h - nearest-rank percentiles by selection.
 *
 * `stats` wants p50, p90, p99 and the maximum of seven pause lists (all,
 * per generation, per kind); sorting each whole list cost n log n
 * comparisons through qsort's callback (~4-5 % of `stats` on a trace of
 * 40,000 GCs). Selecting the few ranks wanted costs a few linear passes
 * and gives the same values: without NaN or negative zero, the k-th
 * smallest double is one value whatever puts it there.
 */
#ifndef GCS_ANALYSIS_GC_NEAREST_RANK_H
#define GCS_ANALYSIS_GC_NEAREST_RANK_H

#include <stddef.h>

/* The nearest rank of percent p among n values: ceil(p / 100 * n),
 * clamped to 1..n (n > 0; p below 0 or NaN: 1). The one rule of every
 * percentile gcscope reports. */
size_t gcs_nearest_rank(double p, size_t n);

/*
 * For each of the k percents (ascending), the value of v[0..n-1] at its
 * nearest rank in ascending order, into out[0..k-1], and the largest value
 * into *max: what sorting v with qsort and a `<` comparison and reading
 * v[rank - 1] and v[n - 1] gives, bit for bit. v is reordered (sorted when
 * it holds a NaN or a negative zero: then qsort's order decides, as
 * before). n must be at least 1.
 */
void gcs_nearest_ranks(double *v, size_t n, const double *percents, size_t k, double *out,
                       double *max);

/* gcs_nearest_ranks at 50, 90 and 99 %, and the maximum: what the
 * reports show of a pause list (n >= 1; v reordered). */
void gcs_nearest_p50_p90_p99(double *v, size_t n, double *p50, double *p90, double *p99,
                             double *max);

#endif
