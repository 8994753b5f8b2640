/*
 * base/sat_math.h - arithmetic on untrusted numbers that cannot overflow.
 *
 * Sizes, counts and times read from a trace are any 64-bit value a corrupt
 * or hostile file holds. Signed overflow and out-of-range float-to-integer
 * conversion are undefined behaviour in C; these helpers saturate instead
 * (INT64_MIN / INT64_MAX), so a sane trace gives exactly the plain result
 * and an absurd one an absurd but defined number.
 */
#ifndef GCS_BASE_SAT_MATH_H
#define GCS_BASE_SAT_MATH_H

#include <stdint.h>

/* a + b, saturated. */
static inline int64_t gcs_sat_add_i64(int64_t a, int64_t b)
{
    int64_t r;
    if (__builtin_add_overflow(a, b, &r))
        return b > 0 ? INT64_MAX : INT64_MIN;
    return r;
}

/* a - b, saturated. */
static inline int64_t gcs_sat_sub_i64(int64_t a, int64_t b)
{
    int64_t r;
    if (__builtin_sub_overflow(a, b, &r))
        return b < 0 ? INT64_MAX : INT64_MIN;
    return r;
}

/* *acc += v, saturated (sums over heaps or GCs). */
static inline void gcs_sat_acc_i64(int64_t *acc, int64_t v) { *acc = gcs_sat_add_i64(*acc, v); }

/* A double truncated toward zero as C's cast does, saturated; NaN gives 0.
 * (2^63 is the first double above INT64_MAX.) */
static inline int64_t gcs_f64_to_i64_sat(double v)
{
    if (v != v)
        return 0;
    if (v >= 9223372036854775808.0)
        return INT64_MAX;
    if (v < -9223372036854775808.0)
        return INT64_MIN;
    return (int64_t)v;
}

/* The same for an unsigned result: negative and NaN give 0. */
static inline uint64_t gcs_f64_to_u64_sat(double v)
{
    if (!(v > 0))
        return 0;
    if (v >= 18446744073709551616.0)
        return UINT64_MAX;
    return (uint64_t)v;
}

#endif
