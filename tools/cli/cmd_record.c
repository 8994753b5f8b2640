/*
 * gcscope record PID -o FILE.nettrace [--duration SECONDS]
 *                    [--stop-on-pause-ms N] [options]
 *
 * Saves the session's stream as a nettrace file while analyzing it; stops
 * on Ctrl-C/SIGTERM, after --duration, as soon as a GC pause exceeds
 * --stop-on-pause-ms, or when the process exits (the file is then cut to
 * its last whole block and closed with the end marker).
 */
#include <string.h>

#include "commands.h"
#include "live_watch.h"

enum { OPT_OUTPUT = 1, OPT_ROWS };

static const cli_option record_options[] = {
    {OPT_OUTPUT, "output", 'o', "FILE", "the nettrace file to write (required)"},
    {OPT_ROWS, "rows", 0, NULL, "also print each GC as it completes"},
    {0},
};

static int run_record(int argc, char **argv);

const cli_command cmd_record = {
    .name = "record",
    .operands = "PID -o FILE.nettrace",
    .max_operands = 1,
    .summary = "save a running process's GC events as a .nettrace file",
    .options = record_options,
    .more_options = live_common_options,
    .notes = "Stops on Ctrl-C/SIGTERM, after --duration, on a pause over --stop-on-pause-ms,\n"
             "or when the process exits; the file is then closed as a valid trace.\n"
             "Without PID: --socket PATH.\n",
    .run = run_record,
};

static int run_record(int argc, char **argv)
{
    live_opts o;
    memset(&o, 0, sizeof o);
    o.cmd = cmd_record.name;
    gcs_session_config_gc(&o.watch.config, false);
    cli_args a;
    cli_args_init(&a, &cmd_record, argc, argv);
    int id;
    while ((id = cli_args_next(&a)) > 0) {
        if (id == OPT_OUTPUT)
            o.watch.out_path = a.value;
        else if (id == OPT_ROWS)
            o.print_rows = true;
        else if (live_apply_option(&o, &cmd_record, id, a.value) != CLI_OK)
            return CLI_USAGE;
    }
    if (id == CLI_ARG_STOP)
        return a.exit_code;
    if (a.operand[0] && !live_parse_pid(a.operand[0], &o.watch.pid))
        return cli_usage_error(&cmd_record, "'%s' is not a process id", a.operand[0]);
    if (!a.operand[0] && !o.watch.socket_path)
        return cli_usage_error(&cmd_record, "PID or --socket needed");
    if (!o.watch.out_path)
        return cli_usage_error(&cmd_record, "-o FILE needed");
    return live_run(&o);
}
