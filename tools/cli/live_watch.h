/*
 * tools/cli/live_watch.h - the attach/stream/stop loop shared by
 * `gcscope live` and `gcscope record`.
 */
#ifndef GCS_CLI_LIVE_WATCH_H
#define GCS_CLI_LIVE_WATCH_H

#include <stdio.h>

#include "cli_util.h"
#include "gcscope.h"

typedef struct live_opts {
    const char *cmd;            /* "live" or "record" (messages) */
    bool print_rows;            /* one line per GC on stdout */
    bool one_line;              /* record: only the one-line summary (no rollup) */
    gcs_watch_options watch;    /* what to watch, where to save, when to stop */
    /* Which GCs get a row (cli_gc_filter_options; top unused): the summary
     * and --stop-on-pause-ms see every GC. filter_words: the filter options
     * as given, for the summary's "rows filtered" line. */
    gcs_gc_filter filter;
    bool filtered;
    char filter_words[256];
    /* live --report FILE: the HTML report of `gcscope report` written when
     * the session ends (NULL: none). */
    const char *report_path;
} live_opts;

/* Options with the defaults both commands start from: the GC session
 * configuration, no filter, messages named after cmd. */
void live_opts_init(live_opts *o, const char *cmd);

/* The options live and record share (cli_command.more_options); their ids
 * start at LIVE_OPT_FIRST, above the commands' own. */
enum {
    LIVE_OPT_FIRST = 100,
    LIVE_OPT_DURATION = LIVE_OPT_FIRST,
    LIVE_OPT_STOP_ON_PAUSE,
    LIVE_OPT_ALLOC_TICKS,
    LIVE_OPT_RUNDOWN,
    LIVE_OPT_BUFFER_MB,
    LIVE_OPT_PROVIDERS,
    LIVE_OPT_SOCKET,
};
extern const cli_option live_common_options[];

/*
 * Applies one of live_common_options (id, its value) to o. Returns CLI_OK,
 * or CLI_USAGE for a bad value (message and cmd's usage printed).
 */
int live_apply_option(live_opts *o, const cli_command *cmd, int id, const char *value);

/*
 * Applies one of cli_gc_filter_options to o->filter and keeps its words for
 * the summary. Returns CLI_OK, or CLI_USAGE (message and usage printed).
 */
int live_apply_filter(live_opts *o, const cli_command *cmd, int id, const char *value);

/* Parses a process id operand (1..2^31-1); false if it is not one. */
bool live_parse_pid(const char *s, uint32_t *pid);

/* Attaches, streams until stopped (signal, duration, pause, process
 * exit), prints the summary; returns the exit code. With watch.out_path
 * "-" (the stream goes to stdout) everything else is printed on stderr. */
int live_run(const live_opts *o);

#endif
