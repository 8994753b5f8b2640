/*
 * analysis/gc/nearest_rank.c - see nearest_rank.h.
 *
 * Quickselect (Hoare's partition around a median of three), each rank
 * selected in the part above the previous one. Inputs that defeat the
 * median of three would make it quadratic: past a number of rounds
 * proportional to log2(n) the rest of the range is sorted instead, which
 * bounds the work by n log n.
 */
#include "analysis/gc/nearest_rank.h"

#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

size_t gcs_nearest_rank(double p, size_t n)
{
    /* Clamped before the conversion: a negative or NaN rank has no size_t. */
    double r = ceil(p / 100.0 * (double)n);
    if (!(r >= 1))
        return 1;
    if (r >= (double)n)
        return n;
    return (size_t)r;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y ? 1 : 0;
}

/* NaN has no place in `<`'s order and -0 == +0 prints differently: with
 * either, only the sort's own order gives the old bytes. */
static bool needs_sort(const double *v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (v[i] != v[i] || (v[i] == 0 && signbit(v[i])))
            return true;
    return false;
}

static void swap(double *a, double *b)
{
    double t = *a;
    *a = *b;
    *b = t;
}

/* The value of rank index k (0-based) of v[lo..hi], the values outside
 * that range already on their side of it; afterwards v[lo..k-1] <= v[k]
 * <= v[k+1..hi]. *rounds counts partitions, shared by the ranks of one
 * list. */
static double select_rank(double *v, ptrdiff_t lo, ptrdiff_t hi, ptrdiff_t k, unsigned *rounds,
                          unsigned round_limit)
{
    while (lo < hi) {
        if (++*rounds > round_limit) {
            qsort(v + lo, (size_t)(hi - lo + 1), sizeof *v, cmp_double);
            return v[k];
        }
        ptrdiff_t mid = lo + (hi - lo) / 2;
        if (v[mid] < v[lo])
            swap(&v[mid], &v[lo]);
        if (v[hi] < v[lo])
            swap(&v[hi], &v[lo]);
        if (v[hi] < v[mid])
            swap(&v[hi], &v[mid]);
        const double pivot = v[mid];
        ptrdiff_t i = lo, j = hi;
        /* The pivot is in the range: neither scan runs off it. */
        do {
            while (v[i] < pivot)
                i++;
            while (pivot < v[j])
                j--;
            if (i <= j) {
                swap(&v[i], &v[j]);
                i++;
                j--;
            }
        } while (i <= j);
        /* v[lo..j] <= pivot, v[i..hi] >= pivot, v[j+1..i-1] == pivot. */
        if (j < k)
            lo = i;
        if (k < i)
            hi = j;
    }
    return v[k];
}

void gcs_nearest_ranks(double *v, size_t n, const double *percents, size_t k, double *out,
                       double *max)
{
    if (needs_sort(v, n)) {
        qsort(v, n, sizeof *v, cmp_double);
        for (size_t q = 0; q < k; q++)
            out[q] = v[gcs_nearest_rank(percents[q], n) - 1];
        *max = v[n - 1];
        return;
    }
    unsigned log2n = 0;
    while (log2n < 63 && ((size_t)1 << log2n) < n)
        log2n++;
    const unsigned round_limit = 4 * log2n + 16;
    unsigned rounds = 0;
    ptrdiff_t lo = 0;
    for (size_t q = 0; q < k; q++) {
        ptrdiff_t r = (ptrdiff_t)gcs_nearest_rank(percents[q], n) - 1;
        /* Below the last rank (percents not ascending) only the whole
         * list is known to be on its side of itself. */
        out[q] = select_rank(v, r >= lo ? lo : 0, (ptrdiff_t)n - 1, r, &rounds, round_limit);
        if (r > lo)
            lo = r;
    }
    /* Everything from the last rank up is at least its value. */
    double m = v[lo];
    for (size_t i = (size_t)lo + 1; i < n; i++)
        if (m < v[i])
            m = v[i];
    *max = m;
}

void gcs_nearest_p50_p90_p99(double *v, size_t n, double *p50, double *p90, double *p99,
                             double *max)
{
    static const double percents[3] = {50, 90, 99};
    double ranks[3];
    gcs_nearest_ranks(v, n, percents, 3, ranks, max);
    *p50 = ranks[0];
    *p90 = ranks[1];
    *p99 = ranks[2];
}
