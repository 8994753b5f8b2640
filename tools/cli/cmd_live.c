/*
 * gcscope live PID [options] - attach to a running .NET process and print
 * each GC as it completes; Ctrl-C or SIGTERM stops the session and prints
 * the rollup of what was seen.
 */
#include <string.h>

#include "commands.h"
#include "live_watch.h"

enum { OPT_REPLAY = 1, OPT_REPORT };

static const cli_option live_options[] = {
    {OPT_REPLAY, "replay", 0, "FILE", "analyze a saved stream the same way (no attach)"},
    {OPT_REPORT, "report", 0, "PATH", "at the end, write the HTML report of `gcscope report` there"},
    {0},
};

static int run_live(int argc, char **argv);

const cli_command cmd_live = {
    .name = "live",
    .operands = "PID",
    .max_operands = 1,
    .summary = "attach to a running process and print each GC as it completes",
    .options = live_options,
    .filter_options = cli_gc_filter_options,
    .more_options = live_common_options,
    .notes = "Ctrl-C or SIGTERM stops the session and prints the summary.\n"
             "Without PID: --socket PATH or --replay FILE.\n"
             "Filters (--gen .. --limit) select the GC rows printed as they come; the summary\n"
             "counts every GC and says the rows were filtered; --stop-on-pause-ms sees every\n"
             "GC. There is no --top: a stream cannot rank pauses still to come (use\n"
             "`gcscope stats --top N` on a saved trace).\n",
    .run = run_live,
};

static int run_live(int argc, char **argv)
{
    live_opts o;
    live_opts_init(&o, cmd_live.name);
    o.print_rows = true;
    cli_args a;
    cli_args_init(&a, &cmd_live, argc, argv);
    int id;
    while ((id = cli_args_next(&a)) > 0) {
        if (id == OPT_REPLAY)
            o.watch.replay_path = a.value;
        else if (id == OPT_REPORT)
            o.report_path = a.value;
        else if (cli_is_gc_filter_option(id)) {
            if (live_apply_filter(&o, &cmd_live, id, a.value) != CLI_OK)
                return CLI_USAGE;
        } else if (live_apply_option(&o, &cmd_live, id, a.value) != CLI_OK)
            return CLI_USAGE;
    }
    if (id == CLI_ARG_STOP)
        return a.exit_code;
    if (cli_gc_filter_check(&cmd_live, &o.filter) != CLI_OK)
        return CLI_USAGE;
    if (a.operand[0] && !live_parse_pid(a.operand[0], &o.watch.pid))
        return cli_usage_error(&cmd_live, "'%s' is not a process id", a.operand[0]);
    if (!a.operand[0] && !o.watch.socket_path && !o.watch.replay_path)
        return cli_usage_error(&cmd_live, "PID, --socket or --replay needed");
    if (o.watch.stop_on_pause_ms > 0 && !o.watch.replay_path)
        /* With --replay it shows which GC would have stopped a record. */
        return cli_usage_error(&cmd_live, "--stop-on-pause-ms belongs to record (or --replay)");
    if (o.watch.replay_path && cli_reject_directory("gcscope live", o.watch.replay_path))
        return CLI_FAILED;
    return live_run(&o);
}
