/* tools/cli/cli_gc_load.h - read a trace into a finished GC analyzer (what
 * stats, report, compare and check share). */
#ifndef GCS_CLI_GC_LOAD_H
#define GCS_CLI_GC_LOAD_H

#include "cli_util.h"

/* Extra events a command wants besides the GC ones, and a callback that
 * sees them before the analyzer: the delivered events of the types `want`
 * accepts (asked once per type), or every delivered event when want is
 * NULL. finalized (NULL: none): a tracker fed the events it wants
 * (gcs_finalized_wants), finished with the analyzer. */
typedef struct cli_gc_load_hooks {
    bool (*want)(void *ctx, const gcs_event_type *type);
    void (*on_event)(void *ctx, const gcs_event *ev);
    void *ctx;
    gcs_finalized *finalized;
    const char *archive_member; /* --member: a zip's or tar's member (NULL: the first trace) */
    /* The GC records go to a temporary file (gcs_gc_options.spill_gcs):
     * for a caller that reads them with gcs_gc_process_gcs only. */
    bool spill_gcs;
} cli_gc_load_hooks;

/*
 * Reads path ("-": standard input) through a GC analyzer and finishes it
 * (lost events and the trace's span set). `who` prefixes messages
 * ("gcscope stats"). Returns the analyzer (free it with
 * gcs_gc_analyzer_free), or NULL after printing why. *rc is CLI_OK, or
 * CLI_FAILED when reading failed part way (the analyzer then holds what
 * was read before the error, and the message was printed).
 */
gcs_gc_analyzer *cli_gc_load(const char *who, const char *path, const cli_gc_load_hooks *hooks,
                             int *rc);

/* The runtimes of a finished analyzer that ran a GC (only process pid's
 * when filter_pid), in the analyzer's order (pid, then ClrInstanceID):
 * writes at most cap and returns how many there are. */
size_t cli_gc_runtimes(const gcs_gc_analyzer *an, bool filter_pid, uint32_t pid,
                       const gcs_gc_process **out, size_t cap);

enum { CLI_GC_MAX_RUNTIMES = 64 };

/* A loaded trace's runtimes that ran a GC, with the names the trace gives
 * their processes (compare's and check's pairing). */
typedef struct cli_gc_named_runtimes {
    gcs_gc_analyzer *an;
    gcs_process_table *processes;
    const gcs_gc_process *rt[CLI_GC_MAX_RUNTIMES];
    const char *name[CLI_GC_MAX_RUNTIMES]; /* NULL: the trace names no process */
    size_t n;                              /* at most CLI_GC_MAX_RUNTIMES */
} cli_gc_named_runtimes;

/* cli_gc_load of path that also learns the processes' names (kernel
 * Process events, EventPipe ProcessInfo), then its runtimes that ran a GC
 * (only process pid's when filter_pid). Returns CLI_OK, or CLI_FAILED after
 * printing why (reading failed, or no such runtime). Free with
 * cli_gc_named_free (also after a failure). */
int cli_gc_load_named(const char *who, const char *path, bool filter_pid, uint32_t pid,
                      cli_gc_named_runtimes *out);
void cli_gc_named_free(cli_gc_named_runtimes *t);

/*
 * cli_gc_load_named of `first` (filter_pid, pid) then, when it succeeded
 * and `second` is not NULL, of `second` (every runtime): what two calls
 * in a row do, messages included, but with the second trace read in a
 * thread of its own while the first is read when both are nettrace,
 * netperf or ETL files (compare, check --baseline). Its messages wait for the first's outcome
 * and are dropped, with its runtimes, when the first failed. *second_out
 * is zeroed when it was not read. Free both with cli_gc_named_free.
 */
int cli_gc_load_named_pair(const char *who, const char *first, bool filter_pid, uint32_t pid,
                           const char *second, cli_gc_named_runtimes *first_out,
                           cli_gc_named_runtimes *second_out);

/* The process of runtime i as "pid N" or "pid N, name" in buf. */
const char *cli_gc_named_label(const cli_gc_named_runtimes *t, size_t i, char *buf, size_t cap);

/* "by process name", "by pid" or "in order". */
const char *cli_gc_pairing_phrase(gcs_gc_pairing how);

/* The file name of path (after its last '/'). */
const char *cli_base_name(const char *path);

#endif
