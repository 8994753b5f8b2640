/*
 * report/json.h - JSON strings shared by the reports.
 */
#ifndef GCS_REPORT_JSON_H
#define GCS_REPORT_JSON_H

#include <stdio.h>

/* s (UTF-8) as a JSON string: quotes and backslashes escaped, control
 * bytes as \u00XX, everything else as it is. */
static inline void gcs_json_string(FILE *f, const char *s)
{
    fputc('"', f);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p == '"' || *p == '\\')
            fprintf(f, "\\%c", *p);
        else if (*p < 0x20)
            fprintf(f, "\\u%04x", *p);
        else
            fputc(*p, f);
    }
    fputc('"', f);
}

#endif
