/*
 * The event printer's integer writers (src/report/fast_number.h) give
 * what printf gives: "%" PRIu64, PRId64 and PRIx64 at every power of two
 * and of ten and their neighbours, 0, the extremes, and a random sweep
 * over every bit length.
 */
#include "check.h"

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

int main(void)
{
    RUN(test_edges);
    RUN(test_random_sweep);
    return check_report("test_fast_number");
}
