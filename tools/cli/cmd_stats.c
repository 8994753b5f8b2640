/*
 * gcscope stats TRACE [--format table|json|csv] [--process PID]
 *
 * Per-GC statistics as TraceEvent/PerfView's GCStats computes them, plus
 * pause percentiles and a histogram (docs/gc-stats.md).
 */
#include <stdlib.h>
#include <string.h>

#include "cli_util.h"
#include "commands.h"

enum { OPT_FORMAT = 1, OPT_PROCESS };

static const cli_option stats_options[] = {
    {OPT_FORMAT, "format", 0, "table|json|csv", "output format (default table)"},
    {OPT_PROCESS, "process", 0, "PID", "only the GCs of process PID"},
    {0},
};

static int run_stats(int argc, char **argv);

const cli_command cmd_stats = {
    .name = "stats",
    .operands = "TRACE",
    .min_operands = 1,
    .max_operands = 1,
    .summary = "per-GC statistics (TraceEvent GCStats)",
    .options = stats_options,
    .notes = CLI_TRACE_NOTE,
    .run = run_stats,
};

static int run_stats(int argc, char **argv)
{
    gcs_gc_report_options ro;
    memset(&ro, 0, sizeof ro);
    ro.format = GCS_GC_FORMAT_TABLE;
    cli_args a;
    cli_args_init(&a, &cmd_stats, argc, argv);
    int id;
    cli_format fmt;
    uint64_t pid;
    while ((id = cli_args_next(&a)) > 0) {
        switch (id) {
        case OPT_FORMAT:
            if (!cli_parse_format(a.value, true, &fmt))
                return cli_usage_error(&cmd_stats, "--format takes table, json or csv");
            ro.format = fmt == CLI_FMT_JSON  ? GCS_GC_FORMAT_JSON
                        : fmt == CLI_FMT_CSV ? GCS_GC_FORMAT_CSV
                                             : GCS_GC_FORMAT_TABLE;
            break;
        case OPT_PROCESS:
            if (!cli_parse_uint(a.value, 0, UINT32_MAX, &pid))
                return cli_usage_error(&cmd_stats, "--process takes a process id");
            ro.filter_pid = true;
            ro.pid = (uint32_t)pid;
            break;
        }
    }
    if (id == CLI_ARG_STOP)
        return a.exit_code;
    const char *path = a.operand[0];
    /* Only the events GCStats uses are sorted and delivered; the rest are
     * counted (most of a trace with handle or allocation events). */
    gcs_reader_options opts = {.want = gcs_gc_wants};
    cli_trace tr;
    if (!cli_open_trace_with(&tr, path, &opts))
        return CLI_FAILED;
    gcs_error err;
    gcs_error_clear(&err);
    gcs_gc_analyzer *an = gcs_gc_analyzer_new(NULL, &err);
    if (!an) {
        cli_report_error(path, &err);
        cli_close_trace(&tr);
        return CLI_FAILED;
    }
    const gcs_event *ev;
    gcs_status st;
    while ((st = gcs_reader_next(tr.reader, &ev, &err)) == GCS_OK) {
        gcs_status fs = gcs_gc_analyzer_feed(an, ev);
        if (fs < 0) {
            fprintf(stderr, "gcscope stats: %s: the GC analysis stopped (%s)\n", path,
                    gcs_status_name(fs));
            st = fs;
            break;
        }
    }
    int rc = CLI_OK;
    if (st < 0 && st != GCS_END) {
        /* Report what was read before the error, then fail. */
        if (err.status < 0)
            cli_report_error(path, &err);
        rc = CLI_FAILED;
    }
    const gcs_reader_stats *rs = gcs_reader_get_stats(tr.reader);
    if (rs)
        gcs_gc_analyzer_set_lost_events(an, rs->lost_events);
    if (rs && rs->events > 0)
        gcs_gc_analyzer_set_span(an, gcs_reader_msec(tr.reader, rs->first_timestamp),
                                 gcs_reader_msec(tr.reader, rs->last_timestamp));
    gcs_gc_analyzer_finish(an);
    if (rc != CLI_OK && (!rs || rs->events == 0)) {
        gcs_gc_analyzer_free(an);
        cli_close_trace(&tr);
        return rc;
    }
    const char *base = strrchr(path, '/');
    ro.trace_name = base ? base + 1 : path;
    int written = gcs_gc_report_write(stdout, an, &ro);
    if (written < 0)
        rc = CLI_FAILED;
    /* The table already says it in one line; JSON and CSV stay
     * machine-readable, so the line goes to stderr. */
    if (written == 0 && ro.format != GCS_GC_FORMAT_TABLE) {
        if (ro.filter_pid)
            fprintf(stderr, "gcscope stats: %s: no GC of process %u in this trace.\n",
                    ro.trace_name, ro.pid);
        else
            fprintf(stderr, "gcscope stats: %s: %s\n", ro.trace_name, gcs_gc_report_no_gcs_line());
    }
    gcs_gc_analyzer_free(an);
    cli_close_trace(&tr);
    return rc;
}
