#include "cli_util.h"

#include <string.h>
#include <unistd.h>

bool cli_open_trace(cli_trace *t, const char *path)
{
    return cli_open_trace_with(t, path, NULL);
}

bool cli_open_trace_with(cli_trace *t, const char *path, const gcs_reader_options *opts)
{
    gcs_error err;
    gcs_error_clear(&err);
    memset(t, 0, sizeof *t);
    t->path = path;
    if (!strcmp(path, "-"))
        t->src = gcs_source_from_fd(STDIN_FILENO, false, &err);
    else
        t->src = gcs_source_open_file(path, &err);
    if (!t->src) {
        fprintf(stderr, "gcscope: %s\n", err.reason);
        return false;
    }
    t->reader = gcs_reader_new(t->src, opts, &err);
    if (!t->reader) {
        fprintf(stderr, "gcscope: %s: %s\n", path, err.reason);
        gcs_source_free(t->src);
        t->src = NULL;
        return false;
    }
    return true;
}

void cli_close_trace(cli_trace *t)
{
    gcs_reader_free(t->reader);
    gcs_source_free(t->src);
    t->reader = NULL;
    t->src = NULL;
}

void cli_report_error(const char *path, const gcs_error *err)
{
    switch (err->status) {
    case GCS_ERR_NOT_TRACE:
    case GCS_ERR_UNSUPPORTED:
    case GCS_ERR_IO:
    case GCS_ERR_NOMEM:
    case GCS_ERR_ARG:
        fprintf(stderr, "gcscope: %s: %s\n", path, err->reason);
        break;
    default:
        fprintf(stderr, "gcscope: %s: %s at byte offset %llu: %s\n", path,
                gcs_status_name(err->status), (unsigned long long)err->offset, err->reason);
        break;
    }
}

bool cli_parse_format(const char *s, bool allow_csv, cli_format *out)
{
    if (!strcmp(s, "text") || !strcmp(s, "table"))
        *out = CLI_FMT_TEXT;
    else if (!strcmp(s, "json"))
        *out = CLI_FMT_JSON;
    else if (allow_csv && !strcmp(s, "csv"))
        *out = CLI_FMT_CSV;
    else
        return false;
    return true;
}

void cli_json_string(FILE *f, const char *s)
{
    fputc('"', f);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        switch (*p) {
        case '"': fputs("\\\"", f); break;
        case '\\': fputs("\\\\", f); break;
        case '\n': fputs("\\n", f); break;
        case '\r': fputs("\\r", f); break;
        case '\t': fputs("\\t", f); break;
        default:
            if (*p < 0x20)
                fprintf(f, "\\u%04x", *p);
            else
                fputc(*p, f);
        }
    }
    fputc('"', f);
}
