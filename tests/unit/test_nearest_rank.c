/*
 * Nearest-rank percentiles by selection give, bit for bit, what a full
 * qsort and v[rank - 1] give: random lists of every small size, lists full
 * of duplicates, sorted, reversed, constant, organ-pipe and
 * median-of-three-killer lists, large lists, percents out of order, and
 * lists holding NaN or negative zero (sorted then, as before).
 */
#include "check.h"

#include <math.h>
#include <stdbool.h>

#include "analysis/gc/nearest_rank.h"

static uint64_t rng = 0x9E3779B97F4A7C15ull;
static uint64_t next_random(void)
{
    rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
    return rng;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y ? 1 : 0;
}

static bool same_bits(double a, double b) { return memcmp(&a, &b, sizeof a) == 0; }

static unsigned long long lists, mismatches;

/* Checks v[0..n-1] at the given percents against a sorted copy. */
static void compare_percents(const double *v, size_t n, const double *percents, size_t k)
{
    double *sorted = malloc(n * sizeof *sorted), *work = malloc(n * sizeof *work);
    memcpy(sorted, v, n * sizeof *v);
    memcpy(work, v, n * sizeof *v);
    qsort(sorted, n, sizeof *sorted, cmp_double);
    double got[8], max;
    gcs_nearest_ranks(work, n, percents, k, got, &max);
    lists++;
    bool ok = same_bits(max, sorted[n - 1]);
    for (size_t q = 0; q < k; q++)
        ok = ok && same_bits(got[q], sorted[gcs_nearest_rank(percents[q], n) - 1]);
    if (!ok) {
        if (mismatches++ < 10)
            fprintf(stderr, "list of %zu values: selection differs from the sort\n", n);
        check_failed_in_test = 1;
    }
    /* The list is reordered, not changed (with NaN, `<` orders nothing). */
    bool has_nan = false;
    for (size_t i = 0; i < n; i++)
        has_nan = has_nan || isnan(v[i]);
    qsort(work, n, sizeof *work, cmp_double);
    for (size_t i = 0; i < n && !has_nan; i++)
        if (!(work[i] == sorted[i])) {
            fprintf(stderr, "list of %zu values: values changed\n", n);
            check_failed_in_test = 1;
            break;
        }
    free(sorted);
    free(work);
}

static void compare_list(const double *v, size_t n)
{
    static const double percents[3] = {50, 90, 99};
    compare_percents(v, n, percents, 3);
}

static void test_ranks(void)
{
    CHECK_EQ_U64(gcs_nearest_rank(50, 1), 1);
    CHECK_EQ_U64(gcs_nearest_rank(50, 2), 1);
    CHECK_EQ_U64(gcs_nearest_rank(50, 3), 2);
    CHECK_EQ_U64(gcs_nearest_rank(99, 100), 99);
    CHECK_EQ_U64(gcs_nearest_rank(99, 101), 100);
    CHECK_EQ_U64(gcs_nearest_rank(0, 10), 1);
    CHECK_EQ_U64(gcs_nearest_rank(100, 10), 10);
    /* Outside 0..100: clamped before any conversion (UBSan would flag a
     * negative or NaN double converted to size_t). */
    CHECK_EQ_U64(gcs_nearest_rank(-5, 10), 1);
    CHECK_EQ_U64(gcs_nearest_rank(NAN, 10), 1);
    CHECK_EQ_U64(gcs_nearest_rank(250, 10), 10);
}

static void test_random_lists(void)
{
    double v[600];
    for (size_t n = 1; n <= 600; n++)
        for (int round = 0; round < 20; round++) {
            /* Few distinct values (many ties), or any pause-like value. */
            uint64_t distinct = round % 3 == 0 ? 1 + next_random() % 4 : 0;
            for (size_t i = 0; i < n; i++)
                v[i] = distinct ? (double)(next_random() % distinct)
                                : (double)(next_random() % 1000000) / 1000.0;
            compare_list(v, n);
        }
    printf("  %llu lists compared\n", lists);
}

/* Patterns that defeat naive pivots; the round limit keeps them n log n. */
static void test_patterns(void)
{
    enum { N = 20000 };
    double *v = malloc(N * sizeof *v);
    for (size_t n = 1; n <= N; n = n * 3 + 1) {
        for (size_t i = 0; i < n; i++)
            v[i] = (double)i;
        compare_list(v, n);
        for (size_t i = 0; i < n; i++)
            v[i] = (double)(n - i);
        compare_list(v, n);
        for (size_t i = 0; i < n; i++)
            v[i] = 7.25;
        compare_list(v, n);
        for (size_t i = 0; i < n; i++)
            v[i] = (double)(i < n / 2 ? i : n - i);
        compare_list(v, n);
        /* Median-of-three killer: odd positions rise, even ones pair up. */
        for (size_t i = 0; i < n; i++)
            v[i] = (double)(i % 2 ? i : n / 2 + i / 2);
        compare_list(v, n);
        for (size_t i = 0; i < n; i++)
            v[i] = (double)(next_random() % 3) - 1.0; /* negative values too */
        compare_list(v, n);
    }
    free(v);
}

static void test_large_and_out_of_order(void)
{
    enum { N = 200000 };
    double *v = malloc(N * sizeof *v);
    for (size_t i = 0; i < N; i++)
        v[i] = ldexp((double)(next_random() >> 11), -40);
    compare_list(v, N);
    static const double odd[5] = {99, 50, 90, 0, 100};
    compare_percents(v, N, odd, 5);
    compare_percents(v, 17, odd, 5);
    compare_percents(v, N, odd, 0);
    free(v);
}

/* NaN and negative zero: the list is sorted as before, so the values
 * (which zero, which NaN) are those the sort gives. */
static void test_nan_and_negative_zero(void)
{
    double v[64];
    for (int round = 0; round < 200; round++) {
        size_t n = 1 + next_random() % 64;
        for (size_t i = 0; i < n; i++) {
            uint64_t r = next_random() % 8;
            v[i] = r == 0 ? -0.0 : r == 1 ? 0.0 : r == 2 && round % 2 ? NAN : (double)r;
        }
        compare_list(v, n);
    }
}

int main(void)
{
    RUN(test_ranks);
    RUN(test_random_lists);
    RUN(test_patterns);
    RUN(test_large_and_out_of_order);
    RUN(test_nan_and_negative_zero);
    return check_report("test_nearest_rank");
}
