/*
 * report/csv.h - CSV cells shared by the reports (RFC 4180 quoting).
 */
#ifndef GCS_REPORT_CSV_H
#define GCS_REPORT_CSV_H

#include <stdio.h>
#include <string.h>

/* s as a quoted cell: "..." with every quote doubled. */
static inline void gcs_csv_quoted(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++) {
        if (*s == '"')
            fputc('"', f);
        fputc(*s, f);
    }
    fputc('"', f);
}

/* s as a cell, quoted only when it holds a comma, a quote or a line end. */
static inline void gcs_csv_text(FILE *f, const char *s)
{
    if (strpbrk(s, ",\"\r\n"))
        gcs_csv_quoted(f, s);
    else
        fputs(s, f);
}

#endif
