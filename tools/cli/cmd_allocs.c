/*
 * gcscope allocs TRACE [--format table|json|csv] [--limit N] [--wide]
 *                      [--process PID|NAME] [--from-ms T] [--to-ms T] [--baseline BASE]
 *                      [--member NAME]
 *
 * Who allocates: the runtime's allocation samples (AllocationTick) by the
 * methods on their call stacks (docs/allocs.md).
 */
#include <string.h>

#include "cli_gc_load.h"
#include "cli_util.h"
#include "commands.h"

enum { OPT_FORMAT = 1, OPT_LIMIT, OPT_WIDE, OPT_PROCESS, OPT_FROM, OPT_TO, OPT_BASELINE,
       OPT_MEMBER };

static const cli_option allocs_options[] = {
    {OPT_FORMAT, "format", 0, "table|json|csv", "output format (default table)"},
    {OPT_LIMIT, "limit", 0, "N", "rows of each list (table default 20; json, csv: all)"},
    {OPT_WIDE, "wide", 0, NULL, "table: method and type names in full"},
    {OPT_PROCESS, "process", 0, "PID|NAME", "only the samples of process PID, or of processes named NAME"},
    {OPT_FROM, "from-ms", 0, "T", "only the samples at or after T ms (since the trace start)"},
    {OPT_TO, "to-ms", 0, "T", "only the samples before T ms"},
    {OPT_BASELINE, "baseline", 0, "BASE", "the allocating methods against those of trace BASE"},
    CLI_MEMBER_OPTION(OPT_MEMBER),
    {0},
};

static int run_allocs(int argc, char **argv);

const cli_command cmd_allocs = {
    .name = "allocs",
    .operands = "TRACE",
    .min_operands = 1,
    .max_operands = 1,
    .summary = "who allocates: allocation samples by method and call stack",
    .options = allocs_options,
    .notes = "Each AllocationTick sample (about one per 100 kB a thread allocates) counts the\n"
             "bytes since the thread's previous one, under the first frame of its stack that\n"
             "is a method (exclusive), under every method of its stack (inclusive), and by\n"
             "type; then the GCs by what triggered them (GCTriggered: reason and stack).\n"
             "Frames are named from the trace's method events (the rundown, or the JIT\n"
             "keyword), as TraceEvent names them. Stacks come from nettrace, netperf and ETL\n"
             "traces (NativeAOT and LTTng traces have none).\n" CLI_TRACE_NOTE,
    .run = run_allocs,
};

/* The events allocs reads, and those naming processes (--process NAME). */
static bool allocs_wants(void *ctx, const gcs_event_type *type)
{
    return gcs_allocs_wants(ctx, type) || gcs_process_table_wants(type);
}

gcs_allocs *cli_allocs_read(const char *who, const char *path, const gcs_reader_options *base,
                            const char *process_spec, const cli_window *win, int *rc)
{
    gcs_reader_options ropts = base ? *base : (gcs_reader_options){0};
    ropts.want = allocs_wants;
    ropts.want_ctx = NULL;
    ropts.stacks = true;
    cli_process_filter pf = {.spec = process_spec};
    gcs_allocs *al = gcs_allocs_new();
    pf.processes = gcs_process_table_new();
    if (!al || !pf.processes) {
        fprintf(stderr, "%s: out of memory\n", who);
        gcs_allocs_free(al);
        gcs_process_table_free(pf.processes);
        *rc = CLI_FAILED;
        return NULL;
    }
    /* The methods of the whole trace still name the frames: the reader
     * delivers every event, the analysis leaves the ticks out. */
    if (win)
        gcs_allocs_set_time_range(al, win->has_from, win->from_ms, win->has_to, win->to_ms);
    cli_trace tr;
    if (!cli_open_trace_with(&tr, path, &ropts)) {
        gcs_allocs_free(al);
        gcs_process_table_free(pf.processes);
        *rc = CLI_FAILED;
        return NULL;
    }
    const gcs_event *ev;
    gcs_error err;
    gcs_error_clear(&err);
    gcs_status st;
    while ((st = gcs_reader_next(tr.reader, &ev, &err)) == GCS_OK)
        if (cli_process_selected(&pf, ev))
            gcs_allocs_feed(al, tr.reader, ev);
    *rc = CLI_OK;
    if (st < 0) {
        cli_report_error(path, &err);
        *rc = CLI_FAILED; /* the lists still hold what came before */
    }
    gcs_allocs_finish(al, tr.reader);
    if (pf.spec && pf.selected_events == 0)
        fprintf(stderr, "%s: %s: no event of a process %s in this trace.\n", who,
                cli_base_name(path), pf.spec);
    gcs_process_table_free(pf.processes);
    cli_close_trace(&tr);
    return al;
}

static int run_allocs(int argc, char **argv)
{
    gcs_reader_options ropts = {0};
    gcs_allocs_report_options ro = {0};
    cli_format fmt = CLI_FMT_TEXT;
    const char *process_spec = NULL, *baseline = NULL;
    cli_window win = {0};
    cli_args a;
    cli_args_init(&a, &cmd_allocs, argc, argv);
    int id;
    while ((id = cli_args_next(&a)) > 0) {
        switch (id) {
        case OPT_FORMAT:
            if (!cli_parse_format(a.value, true, &fmt))
                return cli_usage_error(&cmd_allocs, "--format takes table, json or csv");
            break;
        case OPT_LIMIT:
            if (!cli_parse_count(a.value, &ro.limit) || ro.limit == 0)
                return cli_usage_error(&cmd_allocs, "--limit takes a count above 0");
            break;
        case OPT_WIDE:
            ro.wide = true;
            break;
        case OPT_PROCESS:
            process_spec = a.value;
            break;
        case OPT_FROM:
        case OPT_TO:
            if (cli_window_option(&cmd_allocs, id == OPT_TO, a.value, &win) != CLI_OK)
                return CLI_USAGE;
            break;
        case OPT_BASELINE:
            baseline = a.value;
            break;
        case OPT_MEMBER:
            ropts.archive_member = a.value;
            break;
        }
    }
    if (id == CLI_ARG_STOP)
        return a.exit_code;
    if (cli_window_check(&cmd_allocs, &win) != CLI_OK)
        return CLI_USAGE;
    ro.format = fmt == CLI_FMT_JSON  ? GCS_ALLOCS_FORMAT_JSON
                : fmt == CLI_FMT_CSV ? GCS_ALLOCS_FORMAT_CSV
                                     : GCS_ALLOCS_FORMAT_TABLE;
    const char *path = a.operand[0];
    ro.trace_name = cli_base_name(path);
    int rc;
    gcs_allocs *al = cli_allocs_read("gcscope allocs", path, &ropts, process_spec, &win, &rc);
    if (!al)
        return rc;
    gcs_error err;
    if (baseline) {
        /* The same selection of the baseline; --member applies to both. */
        int brc;
        gcs_allocs *base =
            cli_allocs_read("gcscope allocs", baseline, &ropts, process_spec, &win, &brc);
        if (!base) {
            gcs_allocs_free(al);
            return brc;
        }
        if (brc != CLI_OK)
            rc = brc;
        if (gcs_allocs_diff_write(base, al, stdout, &ro, cli_base_name(baseline), &err) !=
                GCS_OK ||
            fflush(stdout) != 0) {
            fprintf(stderr, "gcscope allocs: writing failed\n");
            rc = CLI_FAILED;
        }
        gcs_allocs_free(base);
        gcs_allocs_free(al);
        return rc;
    }
    if (gcs_allocs_report_write(al, stdout, &ro, &err) != GCS_OK || fflush(stdout) != 0) {
        fprintf(stderr, "gcscope allocs: writing failed\n");
        rc = CLI_FAILED;
    }
    gcs_allocs_free(al);
    return rc;
}
