/*
 * tools/cli/live_watch.h - the attach/stream/stop loop shared by
 * `gcscope live` and `gcscope record`.
 */
#ifndef GCS_CLI_LIVE_WATCH_H
#define GCS_CLI_LIVE_WATCH_H

#include <stdio.h>

#include "gcscope.h"

typedef struct live_opts {
    const char *cmd;            /* "live" or "record" (messages) */
    bool print_rows;            /* one line per GC on stdout */
    gcs_watch_options watch;    /* what to watch, where to save, when to stop */
} live_opts;

/*
 * Parses the options common to live and record into o (argv[i] onward;
 * *i is advanced). Returns 1 if argv[*i] was one of them, 0 if not, -1 on
 * a bad value (message printed).
 */
int live_parse_common(live_opts *o, int argc, char **argv, int *i);

/* The help text of the common options. */
extern const char live_common_usage[];

/* Attaches, streams until stopped (signal, duration, pause, process
 * exit), prints the summary; returns the exit code. */
int live_run(const live_opts *o);

#endif
