/*
 * report/format_fixed.c - see format_fixed.h.
 *
 * The usual values take gcs_put_fixed (fast_number.h): v = m * 2^e read
 * from v's bits, N = v * 10^d rounded half to even in 128-bit integers,
 * digits two at a time. It declines what it cannot do exactly (|v| >=
 * 2^53, N of 63 bits or more, no 128-bit integers): snprintf then.
 */
#include "report/format_fixed.h"

#include <assert.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "report/fast_number.h"

size_t gcs_format_fixed_len(char *buf, size_t cap, double v, int decimals)
{
    assert(cap >= 32 && isfinite(v));
    /* gcs_put_fixed asks room for 40 bytes; it writes at most 21 here: a
     * sign, N's 19 digits (N < 2^63) or "0" and 9 decimals, the point. */
    if (decimals >= 0) {
        char *end = gcs_put_fixed(buf, v, (unsigned)decimals);
        if (end) {
            *end = '\0';
            return (size_t)(end - buf);
        }
    }
    snprintf(buf, cap, "%.*f", decimals, v);
    /* A locale with ',' as separator (the reports promise '.'). */
    for (char *p = buf; *p; p++)
        if (*p == ',')
            *p = '.';
    return strlen(buf);
}

char *gcs_format_fixed(char *buf, size_t cap, double v, int decimals)
{
    gcs_format_fixed_len(buf, cap, v, decimals);
    return buf;
}
