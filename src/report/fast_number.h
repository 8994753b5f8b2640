/*
 * report/fast_number.h - integers as text into memory the caller made
 * room for, without printf or a division a digit (the event printer
 * writes four or more numbers a line; tests/unit/test_fast_number.c
 * compares every writer with printf).
 */
#ifndef GCS_REPORT_FAST_NUMBER_H
#define GCS_REPORT_FAST_NUMBER_H

#include <stdint.h>
#include <string.h>

/* The longest text a writer below gives (UINT64_MAX: 20 digits). */
#define GCS_U64_TEXT_MAX 20

static const char gcs_digit_pairs[201] =
    "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
    "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
    "8081828384858687888990919293949596979899";

static const uint64_t gcs_pow10_u64[20] = {
    1ull,
    10ull,
    100ull,
    1000ull,
    10000ull,
    100000ull,
    1000000ull,
    10000000ull,
    100000000ull,
    1000000000ull,
    10000000000ull,
    100000000000ull,
    1000000000000ull,
    10000000000000ull,
    100000000000000ull,
    1000000000000000ull,
    10000000000000000ull,
    100000000000000000ull,
    1000000000000000000ull,
    10000000000000000000ull,
};

/* Decimal digits of v (1 for 0): log10 from the bit length (x 1233 / 4096
 * is log10(2) from below), corrected by one compare. */
static inline unsigned gcs_u64_digits(uint64_t v)
{
    unsigned bits = 64u - (unsigned)__builtin_clzll(v | 1);
    unsigned t = (bits * 1233u) >> 12;
    unsigned n = t + (v >= gcs_pow10_u64[t]);
    return n + (n == 0);
}

/* v's `digits` low decimal digits, zero-padded, ending at end. */
static inline void gcs_put_digits_back(char *end, uint64_t v, unsigned digits)
{
    char *p = end;
    while (digits >= 2) {
        unsigned r = (unsigned)(v % 100);
        v /= 100;
        p -= 2;
        memcpy(p, gcs_digit_pairs + 2 * r, 2);
        digits -= 2;
    }
    if (digits)
        *--p = (char)('0' + v % 10);
}

/* printf's "%" PRIu64 at w; returns the end. */
static inline char *gcs_put_u64(char *w, uint64_t v)
{
    unsigned n = gcs_u64_digits(v);
    gcs_put_digits_back(w + n, v, n);
    return w + n;
}

/* printf's "%" PRId64 at w; returns the end. */
static inline char *gcs_put_i64(char *w, int64_t v)
{
    if (v < 0) {
        *w++ = '-';
        return gcs_put_u64(w, 0 - (uint64_t)v);
    }
    return gcs_put_u64(w, (uint64_t)v);
}

/* printf's "%" PRIx64 at w; returns the end. */
static inline char *gcs_put_hex(char *w, uint64_t v)
{
    static const char hex[] = "0123456789abcdef";
    unsigned n = (64u - (unsigned)__builtin_clzll(v | 1) + 3) / 4;
    char *p = w + n;
    do {
        *--p = hex[v & 15];
        v >>= 4;
    } while (p > w);
    return w + n;
}

#endif
