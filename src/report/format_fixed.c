/*
 * report/format_fixed.c - see format_fixed.h.
 *
 * v = m * 2^e exactly (m < 2^53). The digits wanted are N = v * 10^d
 * rounded half to even; for e < 0 that is (m * 10^d) / 2^-e with the
 * remainder deciding the rounding, which needs at most 83 bits: done in
 * 128-bit integers where the compiler has them, else by snprintf.
 */
#include "report/format_fixed.h"

#include <assert.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define MAX_DECIMALS 9

static const uint64_t pow10_table[MAX_DECIMALS + 1] = {
    1u, 10u, 100u, 1000u, 10000u, 100000u, 1000000u, 10000000u, 100000000u, 1000000000u};

static char *slow(char *buf, size_t cap, double v, int decimals)
{
    snprintf(buf, cap, "%.*f", decimals, v);
    /* A locale with ',' as separator (the reports promise '.'). */
    for (char *p = buf; *p; p++)
        if (*p == ',')
            *p = '.';
    return buf;
}

char *gcs_format_fixed(char *buf, size_t cap, double v, int decimals)
{
    assert(cap >= 32 && isfinite(v));
#if defined(__SIZEOF_INT128__)
    if (decimals < 0 || decimals > MAX_DECIMALS)
        return slow(buf, cap, v, decimals);
    const uint64_t scale = pow10_table[decimals];
    const double a = fabs(v);
    /* N must fit in 63 bits: a * 10^d < 2^63 with room to spare. */
    if (!(a < 9.0e18 / (double)scale))
        return slow(buf, cap, v, decimals);
    int exp2;
    const double f = frexp(a, &exp2); /* a = f * 2^exp2, f in [0.5, 1) or 0 */
    const uint64_t m = (uint64_t)ldexp(f, 53); /* exact: f has at most 53 bits */
    const int e = exp2 - 53;                   /* a = m * 2^e */
    uint64_t n;
    if (m == 0) {
        n = 0;
    } else if (e >= 0) {
        n = (m << e) * scale; /* a < 9e18 / scale: no overflow */
    } else {
        const unsigned __int128 p = (unsigned __int128)m * scale;
        const int s = -e;
        if (s >= 127) {
            n = 0; /* p < 2^83: far below one half */
        } else {
            const unsigned __int128 q = p >> s;
            const unsigned __int128 r = p & (((unsigned __int128)1 << s) - 1);
            const unsigned __int128 half = (unsigned __int128)1 << (s - 1);
            n = (uint64_t)q;
            if (r > half || (r == half && (n & 1)))
                n++;
        }
    }
    /* Digits, right to left. */
    char tmp[40];
    char *w = tmp + sizeof tmp;
    uint64_t int_part = n / scale, frac = n % scale;
    for (int i = 0; i < decimals; i++) {
        *--w = (char)('0' + frac % 10);
        frac /= 10;
    }
    if (decimals > 0)
        *--w = '.';
    do {
        *--w = (char)('0' + int_part % 10);
        int_part /= 10;
    } while (int_part);
    if (signbit(v))
        *--w = '-';
    size_t len = (size_t)(tmp + sizeof tmp - w);
    assert(len < cap);
    memcpy(buf, w, len);
    buf[len] = '\0';
    return buf;
#else
    return slow(buf, cap, v, decimals);
#endif
}
