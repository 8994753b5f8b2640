/*
 * The event printer's number writers (src/report/fast_number.h) give
 * what the slow ones give. Integers: printf's "%" PRIu64, PRId64 and
 * PRIx64 at every power of two and of ten and their neighbours, 0, the
 * extremes, and a random sweep over every bit length. Fixed decimals:
 * printf's "%.*f" (0..9 decimals) on random values of every magnitude,
 * exact ties, negative zero, subnormals. MSec: gcs_msec_format's text on
 * times as readers compute them (ticks * 1000 / frequency), exact
 * thousandths and halves of them, values near powers of ten and random
 * doubles; and the fast paths must take nearly all of them.
 */
#include "check.h"

#include <math.h>

#include "gcscope/decode.h"
#include "report/fast_number.h"

static uint64_t rng = 0x9E3779B97F4A7C15ull;
static uint64_t next_random(void)
{
    rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
    return rng;
}

static unsigned long long compared, mismatches;

static void same(const char *want, const char *got, size_t got_len, const char *what)
{
    compared++;
    if (strlen(want) != got_len || memcmp(want, got, got_len) != 0) {
        if (mismatches++ < 10)
            fprintf(stderr, "%s: printf \"%s\", writer \"%.*s\"\n", what, want, (int)got_len, got);
        check_failed_in_test = 1;
    }
}

static void compare(uint64_t v)
{
    char want[32], got[32 + 16];
    snprintf(want, sizeof want, "%" PRIu64, v);
    same(want, got, (size_t)(gcs_put_u64(got, v) - got), "u64");
    CHECK(strlen(want) <= GCS_U64_TEXT_MAX);
    snprintf(want, sizeof want, "%" PRId64, (int64_t)v);
    same(want, got, (size_t)(gcs_put_i64(got, (int64_t)v) - got), "i64");
    snprintf(want, sizeof want, "%" PRIx64, v);
    same(want, got, (size_t)(gcs_put_hex(got, v) - got), "hex");
}

static void test_edges(void)
{
    compare(0);
    compare(UINT64_MAX);
    compare((uint64_t)INT64_MAX);
    compare((uint64_t)INT64_MIN);
    for (int b = 0; b < 64; b++) {
        uint64_t p = (uint64_t)1 << b;
        compare(p - 1);
        compare(p);
        compare(p + 1);
        compare(0 - p); /* negative powers of two as i64 */
    }
    uint64_t p = 1;
    for (int d = 0; d < 20; d++, p *= 10) {
        compare(p - 1);
        compare(p);
        compare(p + 1);
        compare(0 - p);
        compare(0 - p - 1);
    }
    for (uint64_t v = 0; v < 100000; v++)
        compare(v);
}

static void test_random_sweep(void)
{
    for (int i = 0; i < 2000000; i++) {
        unsigned bits = (unsigned)(next_random() % 64) + 1;
        uint64_t v = next_random();
        if (bits < 64)
            v &= ((uint64_t)1 << bits) - 1;
        compare(v);
    }
    printf("  %llu values compared\n", compared);
}

static unsigned long long fixed_fast, fixed_asked;

static void compare_fixed(double v, unsigned decimals)
{
    char want[512], got[64];
    snprintf(want, sizeof want, "%.*f", (int)decimals, v);
    fixed_asked++;
    char *end = gcs_put_fixed(got, v, decimals);
    if (!end)
        return; /* the caller's slow path */
    fixed_fast++;
    same(want, got, (size_t)(end - got), "fixed");
}

static void test_fixed(void)
{
    for (int i = 0; i < 1000000; i++) {
        double mag = pow(10.0, (double)(next_random() % 24) - 9.0);
        double v = mag * ((double)(next_random() >> 11) / 9007199254740992.0);
        if (next_random() & 1)
            v = -v;
        compare_fixed(v, (unsigned)(next_random() % 10));
    }
    for (int i = 0; i < 300000; i++) { /* random bit patterns */
        uint64_t bits = next_random();
        double v;
        memcpy(&v, &bits, sizeof v);
        if (isfinite(v))
            compare_fixed(v, (unsigned)(next_random() % 10));
    }
    for (unsigned d = 0; d <= 9; d++) {
        const double edges[] = {0.0, -0.0, 5e-324, -5e-324, 2.2250738585072014e-308, 0.5, 1.5,
                                2.5, -2.5, 0.125, 0.0625, 1e-7, 9.5e-7, 0.0000005,
                                4503599627370495.5, 9007199254740991.0, 9007199254740992.0,
                                1e15, 123456789.123456789, 9.223372036854775e18};
        for (size_t i = 0; i < sizeof edges / sizeof edges[0]; i++)
            compare_fixed(edges[i], d);
        /* Ties at the last decimal: k + 0.5 units of it, both parities. */
        for (int k = 0; k < 2000; k++)
            compare_fixed(((double)k + 0.5) / (double)gcs_pow10_u64[d], d);
        for (int b = -60; b < 60; b++)
            compare_fixed(ldexp(1.0, b), d);
        /* A few ulps either side of ties and of whole units of the last
         * decimal, at random magnitudes up to 2^52 units and past it
         * (where a product in doubles would round otherwise than the
         * exact value, docs/performance.md "Measured, not kept"). */
        for (int k = 0; k < 20000; k++) {
            double units = (double)(next_random() >> (10 + next_random() % 54));
            double offsets[] = {0.5, 0.0, 1.0};
            double tie = (units + offsets[k % 3]) / (double)gcs_pow10_u64[d];
            double v = tie;
            for (int step = 0; step < 3; step++)
                v = nextafter(v, 0.0);
            for (int step = 0; step < 7; step++, v = nextafter(v, INFINITY)) {
                compare_fixed(v, d);
                compare_fixed(-v, d);
            }
        }
        /* The double product's path (gcs_put_fixed: units below 2^52,
         * the exact path when the product's fraction is one half):
         * fractions within 2^-6 of one half at magnitudes up to 2^53
         * units (where the product strays most from the exact value, and
         * the fraction is cut to fewer bits), and units either side of
         * 2^52 in halves. */
        for (int k = 0; k < 40000; k++) {
            double units = (double)(next_random() >> (11 + next_random() % 33));
            double frac = 0.5 + ((double)(next_random() % 2049) - 1024.0) * 0x1p-16;
            double v = (units + frac) / (double)gcs_pow10_u64[d];
            compare_fixed(v, d);
            compare_fixed(-v, d);
        }
        for (int k = -8; k <= 8; k++)
            compare_fixed((0x1p52 + (double)k * 0.5) / (double)gcs_pow10_u64[d], d);
        for (int k = -3; k <= 3; k++)
            compare_fixed(nextafter(0x1p52 / (double)gcs_pow10_u64[d], k < 0 ? 0.0 : INFINITY) +
                              (double)k / (double)gcs_pow10_u64[d], d);
    }
    printf("  fixed: %llu of %llu values by the fast path\n", fixed_fast, fixed_asked);
    CHECK(fixed_fast * 10 > fixed_asked * 8); /* the rest: |v| >= 2^53 or too many digits */
}

static unsigned long long msec_fast, msec_asked;

static void compare_msec(double ms)
{
    char want[64], got[64];
    gcs_msec_format(ms, want, sizeof want);
    msec_asked++;
    char *end = gcs_put_msec3(got, ms);
    if (!end)
        return;
    msec_fast++;
    same(want, got, (size_t)(end - got), "msec");
}

static void test_msec(void)
{
    /* Times as readers compute them: ticks since the start * 1000 / Hz. */
    const double hz[] = {1e7, 1e9, 2.4e9, 3579545.0, 2095078000.0, 1e6};
    for (int i = 0; i < 1000000; i++) {
        double f = hz[next_random() % (sizeof hz / sizeof hz[0])];
        uint64_t ticks = next_random() >> (next_random() % 40 + 4);
        compare_msec((double)ticks * 1000.0 / f);
    }
    /* Exact thousandths, and halves and near-halves of them. */
    for (int i = 0; i < 300000; i++) {
        uint64_t k = next_random() % 1000000000000ull;
        compare_msec((double)k / 1000.0);
        compare_msec(((double)k + 0.5) / 1000.0);
        compare_msec(((double)k * 10.0 + 5.0) / 10000.0);
        compare_msec(nextafter(((double)k + 0.5) / 1000.0, 0.0));
        compare_msec(nextafter(((double)k + 0.5) / 1000.0, 1e300));
    }
    /* Around powers of ten (where "%.15g" may gain a digit) and the ends. */
    for (int e = 0; e <= 9; e++) {
        double p = pow(10.0, e);
        double v = p;
        for (int i = 0; i < 200; i++) {
            compare_msec(v);
            v = nextafter(v, 0.0);
        }
        v = p;
        for (int i = 0; i < 200; i++) {
            compare_msec(v);
            v = nextafter(v, 1e300);
        }
        compare_msec(p - 1e-12 * p);
        compare_msec(p - 0.0005);
        compare_msec(p - 0.00049999999);
    }
    compare_msec(17.6515); /* the case gcs_msec_format exists for */
    compare_msec(0.5);
    compare_msec(-1.0);
    /* Random doubles of every magnitude in and around the fast range. */
    for (int i = 0; i < 500000; i++) {
        double mag = pow(10.0, (double)(next_random() % 12) - 1.0);
        compare_msec(mag * ((double)(next_random() >> 11) / 9007199254740992.0));
    }
    printf("  msec: %llu of %llu values by the fast path\n", msec_fast, msec_asked);
    CHECK(msec_fast * 10 > msec_asked * 8);
}

int main(void)
{
    RUN(test_edges);
    RUN(test_random_sweep);
    RUN(test_fixed);
    RUN(test_msec);
    return check_report("test_fast_number");
}
