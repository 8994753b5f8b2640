/* tools/cli/cli_util.h - helpers shared by the subcommands. */
#ifndef GCS_CLI_UTIL_H
#define GCS_CLI_UTIL_H

#include <stdio.h>

#include "gcscope.h"

/* Exit codes of every subcommand. */
enum { CLI_OK = 0, CLI_USAGE = 1, CLI_FAILED = 2 };

/* An open trace: the source and the reader over it. */
typedef struct cli_trace {
    const char *path;
    gcs_source *src;
    gcs_reader *reader;
} cli_trace;

/* Opens path ("-" = standard input). Prints one line and returns false on failure. */
bool cli_open_trace(cli_trace *t, const char *path);
/* The same with reader options (NULL: defaults). */
bool cli_open_trace_with(cli_trace *t, const char *path, const gcs_reader_options *opts);
void cli_close_trace(cli_trace *t);

/* Prints "gcscope: PATH: <what>" for a reader error (offset included when
 * the input is at fault). */
void cli_report_error(const char *path, const gcs_error *err);

/* Output formats. */
typedef enum cli_format { CLI_FMT_TEXT, CLI_FMT_JSON, CLI_FMT_CSV } cli_format;
/* Parses a --format value; accepts "text"/"table", "json", and "csv" when allow_csv. */
bool cli_parse_format(const char *s, bool allow_csv, cli_format *out);

/* Writes s as a JSON string literal (with quotes). */
void cli_json_string(FILE *f, const char *s);

#endif
