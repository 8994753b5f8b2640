/* tools/cli/commands.h - the CLI's subcommands (each in cmd_<name>.c,
 * `help` in main.c). Each declares its options once (cli_util.h). */
#ifndef GCS_CLI_COMMANDS_H
#define GCS_CLI_COMMANDS_H

#include "cli_util.h"

extern const cli_command cmd_info;
extern const cli_command cmd_events;
extern const cli_command cmd_stats;
extern const cli_command cmd_objects;
extern const cli_command cmd_allocs;
extern const cli_command cmd_ps;
extern const cli_command cmd_live;
extern const cli_command cmd_record;
extern const cli_command cmd_report;
extern const cli_command cmd_compare;
extern const cli_command cmd_check;

/* Writes the HTML report of an analyzer to out_path ("-": stdout); says on
 * stderr when no runtime ran a GC. CLI_OK or CLI_FAILED (after a message
 * prefixed by who). In cmd_report.c; `live --report` uses it too. */
int cli_write_html_report(const char *who, const gcs_gc_analyzer *an, const char *out_path,
                          const gcs_gc_html_options *ho);
extern const cli_command cmd_profile;

/* What `objects` prints of a trace or profile (its options). */
typedef struct cli_objects_view {
    cli_format format;
    bool wide;
    size_t limit;
    bool has_from, has_to;
    double from_ms, to_ms;
    const char *process_spec;   /* --process PID|NAME (NULL: every process) */
    const char *archive_member; /* --member (NULL: the first trace) */
    const char *symbols_path;   /* --symbols FILE: a NativeAOT executable's symbols */
} cli_objects_view;

/* Reads path (trace or profile), follows its objects and prints the
 * objects report as v says; the exit code (errors on stderr). Shared by
 * `objects` and `profile`. */
int cli_objects_report(const char *path, const cli_objects_view *v);

/* Reads path for `allocs` (base: the reader options, e.g. its archive
 * member; want and stacks are set here), the samples of the processes
 * process_spec names (NULL: all) in win (NULL: all), and finishes the
 * lists. NULL with *rc set when nothing could be read; else *rc is
 * CLI_FAILED when the trace broke off (said on stderr), CLI_OK otherwise.
 * In cmd_allocs.c; `report` uses it for its "Who allocates" section. */
gcs_allocs *cli_allocs_read(const char *who, const char *path, const gcs_reader_options *base,
                            const char *process_spec, const cli_window *win, int *rc);

/* The note on TRACE shared by the commands that read one. */
#define CLI_TRACE_NOTE                                                                    \
    "TRACE is a .nettrace, .netperf or .etl file, or - for standard input; zipped or\n"   \
    "compressed (.zip, .gz, .xz, .zst, .bz2, .tar.gz) it is read from the archive.\n"
/* --member of the commands that read a TRACE (a zipped one: docs/archive.md). */
#define CLI_MEMBER_OPTION(id) \
    {(id), "member", 0, "NAME", "from a zip or tar: read member NAME (default: the first trace)"}

#endif
