/*
 * gcscope record PID -o FILE.nettrace|- [--force] [--rows] [--duration SECONDS]
 *                    [--stop-on-pause-ms N] [options]
 *
 * Saves the session's stream as a nettrace file while analyzing it; stops
 * on Ctrl-C/SIGTERM, after --duration, as soon as a GC pause exceeds
 * --stop-on-pause-ms, or when the process exits (the file is then cut to
 * its last whole block and closed with the end marker).
 */
#include <errno.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "commands.h"
#include "live_watch.h"

enum { OPT_OUTPUT = 1, OPT_ROWS, OPT_FORCE };

static const cli_option record_options[] = {
    {OPT_OUTPUT, "output", 'o', "FILE", "the nettrace file to write (required; - for stdout)"},
    {OPT_FORCE, "force", 0, NULL, "overwrite FILE if it exists"},
    {OPT_ROWS, "rows", 0, NULL, "print each GC as it completes and the GC summary"},
    {0},
};

static int run_record(int argc, char **argv);

const cli_command cmd_record = {
    .name = "record",
    .operands = "PID -o FILE.nettrace",
    .max_operands = 1,
    .summary = "save a running process's GC events as a .nettrace file",
    .options = record_options,
    .filter_options = cli_gc_filter_options,
    .more_options = live_common_options,
    .notes = "Stops on Ctrl-C/SIGTERM, after --duration, on a pause over --stop-on-pause-ms,\n"
             "or when the process exits; the file is then closed as a valid trace.\n"
             "Prints one line: file, bytes, events, GCs, duration (--rows: more).\n"
             "-o - writes the stream to stdout (a pipe or a file) and every message to stderr.\n"
             "Without PID: --socket PATH.\n"
             "Filters (--gen .. --limit) select the --rows printed, not what is saved nor\n"
             "what --stop-on-pause-ms sees; the summary counts every GC.\n",
    .run = run_record,
};

/* Checks -o before attaching, so a session is not started for a file that
 * cannot be written: a directory, an existing file without --force (exit
 * 1), a folder that is missing or not writable (exit 2); for "-", stdout
 * must not be a terminal, nor a file that is not empty. */
static int check_output(const char *path, bool force)
{
    struct stat st;
    if (!strcmp(path, "-")) {
        if (isatty(STDOUT_FILENO)) {
            fprintf(stderr, "gcscope record: -o -: stdout is a terminal; redirect it to a file or a pipe\n");
            return CLI_USAGE;
        }
        if (fstat(STDOUT_FILENO, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0) {
            /* The tee reopens stdout truncated (">>" too): it would erase it. */
            fprintf(stderr, "gcscope record: -o -: stdout is a file already written to\n");
            return CLI_USAGE;
        }
        return CLI_OK;
    }
    if (stat(path, &st) == 0) {
        if (S_ISDIR(st.st_mode)) {
            fprintf(stderr, "gcscope record: %s: is a directory; -o takes a file\n", path);
            return CLI_USAGE;
        }
        if (!force) {
            fprintf(stderr, "gcscope record: %s: exists; --force overwrites it\n", path);
            return CLI_USAGE;
        }
        if (access(path, W_OK) != 0) {
            fprintf(stderr, "gcscope record: %s: cannot be written: %s\n", path, strerror(errno));
            return CLI_FAILED;
        }
        return CLI_OK;
    }
    /* A new file: its folder must exist and take it. */
    char dir[4096];
    const char *slash = strrchr(path, '/');
    size_t len = slash ? (size_t)(slash - path) : 0;
    if (len >= sizeof dir) {
        fprintf(stderr, "gcscope record: %s: path too long\n", path);
        return CLI_USAGE;
    }
    if (!slash)
        strcpy(dir, ".");
    else if (len == 0)
        strcpy(dir, "/");
    else {
        memcpy(dir, path, len);
        dir[len] = 0;
    }
    if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
        fprintf(stderr, "gcscope record: %s: no such directory: %s\n", path, dir);
        return CLI_FAILED;
    }
    if (access(dir, W_OK | X_OK) != 0) {
        fprintf(stderr, "gcscope record: %s: directory %s is not writable: %s\n", path, dir,
                strerror(errno));
        return CLI_FAILED;
    }
    return CLI_OK;
}

static int run_record(int argc, char **argv)
{
    live_opts o;
    live_opts_init(&o, cmd_record.name);
    o.one_line = true;
    bool force = false;
    cli_args a;
    cli_args_init(&a, &cmd_record, argc, argv);
    int id;
    while ((id = cli_args_next(&a)) > 0) {
        if (id == OPT_OUTPUT)
            o.watch.out_path = a.value;
        else if (id == OPT_FORCE)
            force = true;
        else if (id == OPT_ROWS)
            o.print_rows = true, o.one_line = false;
        else if (cli_is_gc_filter_option(id)) {
            if (live_apply_filter(&o, &cmd_record, id, a.value) != CLI_OK)
                return CLI_USAGE;
        } else if (live_apply_option(&o, &cmd_record, id, a.value) != CLI_OK)
            return CLI_USAGE;
    }
    if (id == CLI_ARG_STOP)
        return a.exit_code;
    if (cli_gc_filter_check(&cmd_record, &o.filter) != CLI_OK)
        return CLI_USAGE;
    if (o.filtered && !o.print_rows)
        return cli_usage_error(&cmd_record, "the filters select the rows: add --rows");
    if (a.operand[0] && !live_parse_pid(a.operand[0], &o.watch.pid))
        return cli_usage_error(&cmd_record, "'%s' is not a process id", a.operand[0]);
    if (!a.operand[0] && !o.watch.socket_path)
        return cli_usage_error(&cmd_record, "PID or --socket needed");
    if (!o.watch.out_path)
        return cli_usage_error(&cmd_record, "-o FILE needed");
    int rc = check_output(o.watch.out_path, force);
    if (rc != CLI_OK)
        return rc;
    return live_run(&o);
}
