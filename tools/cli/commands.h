/* tools/cli/commands.h - the CLI's subcommands (each in cmd_<name>.c,
 * `help` in main.c). Each declares its options once (cli_util.h). */
#ifndef GCS_CLI_COMMANDS_H
#define GCS_CLI_COMMANDS_H

#include "cli_util.h"

extern const cli_command cmd_info;
extern const cli_command cmd_events;
extern const cli_command cmd_stats;
extern const cli_command cmd_objects;
extern const cli_command cmd_ps;
extern const cli_command cmd_live;
extern const cli_command cmd_record;
extern const cli_command cmd_profile;

/* What `objects` prints of a trace or profile (its options). */
typedef struct cli_objects_view {
    cli_format format;
    bool wide;
    size_t limit;
    bool has_from, has_to;
    double from_ms, to_ms;
} cli_objects_view;

/* Reads path (trace or profile), follows its objects and prints the
 * objects report as v says; the exit code (errors on stderr). Shared by
 * `objects` and `profile`. */
int cli_objects_report(const char *path, const cli_objects_view *v);

/* The note on TRACE shared by the commands that read one. */
#define CLI_TRACE_NOTE "TRACE is a .nettrace or .netperf file, or - for standard input.\n"

#endif
