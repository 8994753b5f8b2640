/*
 * report/format_fixed.h - printf("%.*f") for the reports, without printf.
 *
 * The reports print tens of thousands of numbers (a row of ~40 per GC);
 * glibc's "%.*f" converts through multi-precision arithmetic and costs
 * about 1,300 instructions a number, more than reading the GC events.
 * This formatter gives the same text for every finite value: the exact
 * binary value rounded half to even, '.' whatever the locale.
 */
#ifndef GCS_REPORT_FORMAT_FIXED_H
#define GCS_REPORT_FORMAT_FIXED_H

#include <stddef.h>

/*
 * Writes v with `decimals` digits after the point (0..9) into buf (cap
 * bytes, at least 32) and returns buf: the text snprintf(buf, cap,
 * "%.*f", decimals, v) gives in the C locale, "-0.000" included. v must be
 * finite. Values too large for the fast path go through snprintf.
 */
char *gcs_format_fixed(char *buf, size_t cap, double v, int decimals);

/* gcs_format_fixed, returning the length of the text (strlen(buf)): for
 * callers that place the text without measuring it again. */
size_t gcs_format_fixed_len(char *buf, size_t cap, double v, int decimals);

#endif
