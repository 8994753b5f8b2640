/* tools/cli/cli_util.h - helpers shared by the subcommands. */
#ifndef GCS_CLI_UTIL_H
#define GCS_CLI_UTIL_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "gcscope.h"

/* Exit codes of every subcommand (docs/cli.md): 0 ok, 1 the command line
 * is wrong, 2 the input is bad or the work failed. */
enum { CLI_OK = 0, CLI_USAGE = 1, CLI_FAILED = 2 };
/* The line every usage ends with. */
extern const char cli_exit_codes_line[];

/*
 * Options: each command declares its options once, in a table; the same
 * table drives parsing (cli_args_next) and the usage text (cli_print_usage),
 * so the two cannot disagree. "-h"/"--help" is every command's and is not
 * in the tables.
 */
typedef struct cli_option {
    int id;           /* what cli_args_next returns for it: > 0; 0 ends a table */
    const char *name; /* long name without "--" */
    char letter;      /* short form ("-o"), 0 if none */
    const char *arg;  /* its value as the usage names it ("N", "FILE"); NULL: a flag */
    const char *help; /* one line */
} cli_option;

typedef struct cli_command {
    const char *name;                /* "stats" */
    const char *operands;            /* what follows the name in the synopsis: "TRACE" */
    int min_operands, max_operands;  /* how many words that are not options it takes */
    const char *summary;             /* one line, also listed by `gcscope help` */
    const cli_option *options;       /* the command's own, ended by id 0; may be NULL */
    const cli_option *more_options;  /* a table shared with other commands; may be NULL */
    const cli_option *filter_options; /* cli_gc_filter_options or NULL */
    const char *notes;               /* lines printed after the options; may be NULL */
    int (*run)(int argc, char **argv); /* argv[0] is the command name; returns the exit code */
} cli_command;

/* Prints the command's usage: synopsis, summary, options, notes. */
void cli_print_usage(FILE *f, const cli_command *cmd);

/* Prints "gcscope CMD: <message>" and the usage on stderr; returns CLI_USAGE. */
int cli_usage_error(const cli_command *cmd, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* What cli_args_next returns besides an option's id. */
enum { CLI_ARG_END = 0, CLI_ARG_STOP = -1 };

enum { CLI_MAX_OPERANDS = 256 }; /* stats takes several traces */

/* Walks a command's argv. Options and operands may come in any order; "--"
 * makes every later word an operand; "-" is an operand (standard input);
 * a value is the next word or follows "=" ("--format=json") or the letter
 * ("-oFILE"). Operands are collected in a->operand. */
typedef struct cli_args {
    const cli_command *cmd;
    int argc;
    char **argv;
    int next;           /* index of the next word */
    bool operands_only; /* after "--" */
    const char *value;  /* the value of the option just returned */
    const char *operand[CLI_MAX_OPERANDS]; /* NULL past n_operands */
    int n_operands;
    int exit_code;      /* when CLI_ARG_STOP was returned */
} cli_args;

void cli_args_init(cli_args *a, const cli_command *cmd, int argc, char **argv);
/* Returns the next option's id (> 0, its value in a->value), CLI_ARG_END
 * once every word was read (the operands are then in a->operand), or
 * CLI_ARG_STOP when the command must return a->exit_code now: after --help
 * (usage on stdout, 0), or for a word that is not one of its options, an
 * option without its value, too few or too many operands (one line and the
 * usage on stderr, 1). */
int cli_args_next(cli_args *a);

/* Parses a decimal integer in [min, max] (digits only: no sign, no space). */
bool cli_parse_uint(const char *s, uint64_t min, uint64_t max, uint64_t *out);
/* Parses a non-negative decimal number of milliseconds ("12", "0.5"): digits
 * and at most one '.', nothing else. */
bool cli_parse_ms(const char *s, double *out);

/* True (after printing "WHO: PATH: is a directory, not a trace") when
 * path names a directory: reading one fails with a vaguer I/O error. */
bool cli_reject_directory(const char *who, const char *path);

/* Where the messages about reading a trace go (cli_reject_directory,
 * cli_open_trace*, cli_report_error, the GC loads): stderr, or the stream
 * the calling thread gave cli_set_messages (NULL: stderr again), so that a
 * trace read in a thread of its own can keep them until it is known
 * whether they are to be said (cli_gc_load_named_pair). */
FILE *cli_messages(void);
void cli_set_messages(FILE *f);

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

/* --process PID|NAME (objects, allocs): whether an event's process is
 * selected, from the process table the filter feeds (names from ETL's
 * kernel Process events, ProcessInfo, LTTng's procname), the answer kept
 * per run of one pid (events of one process come in runs). The caller
 * creates `processes` and also asks the reader for
 * gcs_process_table_wants types. */
typedef struct cli_process_filter {
    const char *spec; /* NULL: every process */
    gcs_process_table *processes;
    bool have_last, last_selected;
    uint32_t last_pid;
    uint64_t selected_events;
} cli_process_filter;
bool cli_process_selected(cli_process_filter *pf, const gcs_event *ev);

/* --from-ms T / --to-ms T (events, objects, allocs): a window of the
 * trace in ms since its start, [from, to), each bound optional. */
typedef struct cli_window {
    bool has_from, has_to;
    double from_ms, to_ms;
} cli_window;
/* Sets the bound (is_to: --to-ms) from value: CLI_OK, or CLI_USAGE after
 * the message and cmd's usage. */
int cli_window_option(const cli_command *cmd, bool is_to, const char *value, cli_window *w);
/* Both bounds set: from below to. CLI_OK or CLI_USAGE (said). */
int cli_window_check(const cli_command *cmd, const cli_window *w);

/* Output formats. */
typedef enum cli_format { CLI_FMT_TEXT, CLI_FMT_JSON, CLI_FMT_CSV } cli_format;
/* Parses a --format value; accepts "text"/"table", "json", and "csv" when allow_csv. */
bool cli_parse_format(const char *s, bool allow_csv, cli_format *out);

/*
 * The GC filters stats, live and record share (cli_command.filter_options):
 * --gen, --kind, --induced, --min-pause-ms, --from-ms, --to-ms, --limit.
 * Their ids start at CLI_FILTER_OPT_FIRST, above the commands' own and the
 * live ones. --top is stats' own (a stream cannot rank what is to come).
 */
enum {
    CLI_FILTER_OPT_FIRST = 200,
    CLI_FILTER_OPT_GEN = CLI_FILTER_OPT_FIRST,
    CLI_FILTER_OPT_KIND,
    CLI_FILTER_OPT_INDUCED,
    CLI_FILTER_OPT_MIN_PAUSE,
    CLI_FILTER_OPT_FROM,
    CLI_FILTER_OPT_TO,
    CLI_FILTER_OPT_LIMIT,
    CLI_FILTER_OPT_END
};
extern const cli_option cli_gc_filter_options[];

/* True for the id of one of cli_gc_filter_options. */
bool cli_is_gc_filter_option(int id);
/* Applies one of cli_gc_filter_options (id, its value) to f: CLI_OK, or
 * CLI_USAGE after the message and cmd's usage. */
int cli_gc_filter_apply(const cli_command *cmd, int id, const char *value, gcs_gc_filter *f);
/* Checks the filter as a whole once every option is read (--from-ms below
 * --to-ms): CLI_OK, or CLI_USAGE after the message and cmd's usage. */
int cli_gc_filter_check(const cli_command *cmd, const gcs_gc_filter *f);
/* Parses a count of rows (1..10^9). */
bool cli_parse_count(const char *s, size_t *out);

/* Writes s as a JSON string literal (with quotes). */
void cli_json_string(FILE *f, const char *s);

#endif
