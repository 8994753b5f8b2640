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

static void usage(FILE *f)
{
    fprintf(f, "usage: gcscope stats TRACE [--format table|json|csv] [--process PID]\n");
}

int cmd_stats(int argc, char **argv)
{
    const char *path = NULL;
    gcs_gc_report_options ro;
    memset(&ro, 0, sizeof ro);
    ro.format = GCS_GC_FORMAT_TABLE;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--format") && i + 1 < argc) {
            const char *v = argv[++i];
            if (!strcmp(v, "table") || !strcmp(v, "text"))
                ro.format = GCS_GC_FORMAT_TABLE;
            else if (!strcmp(v, "json"))
                ro.format = GCS_GC_FORMAT_JSON;
            else if (!strcmp(v, "csv"))
                ro.format = GCS_GC_FORMAT_CSV;
            else {
                fprintf(stderr, "gcscope stats: --format takes table, json or csv\n");
                return CLI_USAGE;
            }
        } else if (!strcmp(argv[i], "--process") && i + 1 < argc) {
            char *end;
            unsigned long pid = strtoul(argv[++i], &end, 10);
            if (*end || end == argv[i] || pid > UINT32_MAX) {
                fprintf(stderr, "gcscope stats: --process takes a process id\n");
                return CLI_USAGE;
            }
            ro.filter_pid = true;
            ro.pid = (uint32_t)pid;
        } else if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
            usage(stdout);
            return CLI_OK;
        } else if (argv[i][0] == '-' && argv[i][1]) {
            fprintf(stderr, "gcscope stats: unknown option %s\n", argv[i]);
            usage(stderr);
            return CLI_USAGE;
        } else if (!path) {
            path = argv[i];
        } else {
            fprintf(stderr, "gcscope stats: one trace at a time\n");
            return CLI_USAGE;
        }
    }
    if (!path) {
        usage(stderr);
        return CLI_USAGE;
    }
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
