/*
 * The reports' number formatter gives exactly what printf("%.*f") gives:
 * random values over every magnitude the reports print, exact ties
 * (x.5 at every decimal count, both rounding directions), negative values
 * and negative zero, tiny and subnormal values, powers of two and ten, and
 * the largest values of the fast path, for 0 to 9 decimals.
 */
#include "check.h"

#include <float.h>
#include <math.h>

#include "report/format_fixed.h"

static uint64_t rng = 0x243F6A8885A308D3ull;
static uint64_t next_random(void)
{
    rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
    return rng;
}

static unsigned long long compared, mismatches;

static void compare(double v, int decimals)
{
    char want[512], got[512];
    snprintf(want, sizeof want, "%.*f", decimals, v);
    gcs_format_fixed(got, sizeof got, v, decimals);
    char again[512];
    size_t len = gcs_format_fixed_len(again, sizeof again, v, decimals);
    if (len != strlen(again) || strcmp(again, got) != 0) {
        fprintf(stderr, "%.17g with %d decimals: length %zu for \"%s\"\n", v, decimals, len, again);
        check_failed_in_test = 1;
    }
    compared++;
    if (strcmp(want, got) != 0) {
        if (mismatches++ < 10)
            fprintf(stderr, "%.17g with %d decimals: printf \"%s\", formatter \"%s\"\n", v,
                    decimals, want, got);
        check_failed_in_test = 1;
    }
}

static void test_random_values(void)
{
    for (int i = 0; i < 2000000; i++) {
        /* Magnitudes 1e-12 .. 1e15, random mantissa bits. */
        double mag = pow(10.0, (double)(next_random() % 28) - 12.0);
        double v = mag * ((double)(next_random() >> 11) / 9007199254740992.0);
        if (next_random() & 1)
            v = -v;
        compare(v, (int)(next_random() % 10));
    }
    /* Random bit patterns of finite doubles. */
    for (int i = 0; i < 1000000; i++) {
        uint64_t bits = next_random();
        double v;
        memcpy(&v, &bits, sizeof v);
        if (!isfinite(v))
            continue;
        compare(v, (int)(next_random() % 10));
    }
    printf("  %llu values compared\n", compared);
}

static void test_ties_and_edges(void)
{
    static const double edges[] = {0.0, -0.0, 0.5, 1.5, 2.5, -0.5, -2.5, 0.125, 0.375, 0.0005,
                                   0.0015, 1e-300, -1e-300, 4.9e-324, DBL_MIN, 1.0, 10.0, 0.1,
                                   0.2, 0.3, 123456.789, 999999.9995, 9.9999999995, 1e15,
                                   8.99e17, 9.1e18, 1e19, 1.7976931348623157e308, -1e300};
    for (size_t i = 0; i < sizeof edges / sizeof edges[0]; i++)
        for (int d = 0; d <= 9; d++)
            compare(edges[i], d);
    /* Exact binary ties at each decimal count: k/2^j near x.5 units. */
    for (int j = 1; j <= 20; j++)
        for (int k = 0; k < 4000; k++)
            for (int d = 0; d <= 6; d++)
                compare(ldexp((double)k, -j), d), compare(-ldexp((double)k, -j), d);
    /* Powers of two and ten. */
    for (int e = -80; e <= 62; e++)
        for (int d = 0; d <= 9; d++)
            compare(ldexp(1.0, e), d), compare(pow(10.0, e / 4), d);
}

/* Around the fast path's bounds (N near 2^63, the largest exponents it
 * takes, the shift of 84 bits past which everything rounds to 0), and
 * halves of the last decimal at large magnitudes. */
static void test_fast_path_bounds(void)
{
    for (int d = 0; d <= 9; d++) {
        double limit = ldexp(1.0, 63) / pow(10.0, d);
        for (int k = -40; k <= 40; k++) {
            compare(nextafter(limit, 0) * (1.0 + k * 1e-16), d);
            compare(-limit * (1.0 + k * 1e-16), d);
        }
        for (int e = 50; e <= 66; e++)
            for (int k = 0; k < 64; k++)
                compare(ldexp((double)((UINT64_C(1) << 53) - 1 - (uint64_t)k), e - 53), d);
        for (int e = -84; e <= -78; e++)
            for (int k = 0; k < 64; k++)
                compare(ldexp((double)((UINT64_C(1) << 52) + (uint64_t)k * 977), e - 52), d);
        /* x.5 units of the last decimal where the value holds it exactly,
         * and its neighbours. */
        for (int k = 0; k < 20000; k++) {
            double unit = pow(10.0, -d);
            double x = ((double)(next_random() % 100000000) + 0.5) * unit;
            compare(x, d), compare(nextafter(x, 0), d), compare(nextafter(x, INFINITY), d);
            compare(-x, d);
        }
    }
}

int main(void)
{
    RUN(test_random_values);
    RUN(test_ties_and_edges);
    RUN(test_fast_path_bounds);
    return check_report("test_format_fixed");
}
