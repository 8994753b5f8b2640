/*
 * gcscope objects TRACE [--format table|json|csv] [--wide] [--process PID|NAME]
 *
 * Follows the sampled objects of a trace across GCs (moved and surviving
 * ranges) and tells, per type, how many died young, in which GC, how long
 * they lived, which survived to the end and which died in gen2.
 */
#include <string.h>

#include "cli_util.h"
#include "commands.h"

enum { OPT_FORMAT = 1, OPT_WIDE, OPT_FROM, OPT_TO, OPT_LIMIT, OPT_PROCESS, OPT_MEMBER };

static const cli_option objects_options[] = {
    {OPT_FORMAT, "format", 0, "table|json|csv", "output format (default table)"},
    {OPT_WIDE, "wide", 0, NULL, "table: every column, type names in full (JSON/CSV have all)"},
    {OPT_FROM, "from-ms", 0, "T", "only objects allocated at or after T ms"},
    {OPT_TO, "to-ms", 0, "T", "only objects allocated before T ms"},
    {OPT_LIMIT, "limit", 0, "N", "at most N type rows per list"},
    {OPT_PROCESS, "process", 0, "PID|NAME", "only the events of process PID, or of every process named NAME"},
    CLI_MEMBER_OPTION(OPT_MEMBER),
    {0},
};

static int run_objects(int argc, char **argv);

const cli_command cmd_objects = {
    .name = "objects",
    .operands = "TRACE",
    .min_operands = 1,
    .max_operands = 1,
    .summary = "object lifetimes by type across GCs",
    .options = objects_options,
    .notes = "--from-ms/--to-ms count only the objects allocated in that time (every GC is\n"
             "still followed); --limit cuts each list; the report says it is filtered. The\n"
             "GC filters of stats (--gen, --kind, --induced, --min-pause-ms, --top) select\n"
             "GCs, not objects: objects does not take them.\n" CLI_TRACE_NOTE,
    .run = run_objects,
};

/* --process: whether ev's process is selected, the answer kept per pid
 * run (events of one process come in runs). */
typedef struct process_filter {
    const char *spec; /* NULL: every process */
    gcs_process_table *processes;
    bool have_last, last_selected;
    uint32_t last_pid;
    uint64_t selected_events;
} process_filter;

static bool process_selected(process_filter *pf, const gcs_event *ev)
{
    gcs_process_table_feed(pf->processes, ev);
    if (!pf->spec)
        return true;
    if (!pf->have_last || pf->last_pid != ev->pid || gcs_process_table_wants(ev->type)) {
        pf->have_last = true;
        pf->last_pid = ev->pid;
        pf->last_selected = gcs_process_matches(pf->processes, ev->pid, pf->spec);
    }
    pf->selected_events += pf->last_selected;
    return pf->last_selected;
}

static int run_objects(int argc, char **argv)
{
    cli_format fmt = CLI_FMT_TEXT;
    bool wide = false;
    bool has_from = false, has_to = false;
    double from_ms = 0, to_ms = 0;
    size_t limit = 0;
    process_filter pf = {0};
    gcs_reader_options ropts = {0};
    cli_args a;
    cli_args_init(&a, &cmd_objects, argc, argv);
    int id;
    while ((id = cli_args_next(&a)) > 0) {
        switch (id) {
        case OPT_FORMAT:
            if (!cli_parse_format(a.value, true, &fmt))
                return cli_usage_error(&cmd_objects, "--format takes table, json or csv");
            break;
        case OPT_WIDE:
            wide = true;
            break;
        case OPT_FROM:
            if (!cli_parse_ms(a.value, &from_ms))
                return cli_usage_error(&cmd_objects, "--from-ms takes a number of ms");
            has_from = true;
            break;
        case OPT_TO:
            if (!cli_parse_ms(a.value, &to_ms))
                return cli_usage_error(&cmd_objects, "--to-ms takes a number of ms");
            has_to = true;
            break;
        case OPT_LIMIT:
            if (!cli_parse_count(a.value, &limit))
                return cli_usage_error(&cmd_objects, "--limit takes a count of at least 1");
            break;
        case OPT_PROCESS:
            if (!a.value[0])
                return cli_usage_error(&cmd_objects, "--process takes a process id or name");
            pf.spec = a.value;
            break;
        case OPT_MEMBER:
            ropts.archive_member = a.value;
            break;
        }
    }
    if (id == CLI_ARG_STOP)
        return a.exit_code;
    if (has_from && has_to && !(from_ms < to_ms))
        return cli_usage_error(&cmd_objects, "--from-ms must be below --to-ms");
    cli_objects_view v = {
        .format = fmt, .wide = wide, .limit = limit,
        .has_from = has_from, .from_ms = from_ms, .has_to = has_to, .to_ms = to_ms,
        .process_spec = pf.spec, .archive_member = ropts.archive_member,
    };
    return cli_objects_report(a.operand[0], &v);
}

int cli_objects_report(const char *path, const cli_objects_view *v)
{
    cli_format fmt = v->format;
    bool wide = v->wide, has_from = v->has_from, has_to = v->has_to;
    double from_ms = v->from_ms, to_ms = v->to_ms;
    size_t limit = v->limit;
    process_filter pf = {.spec = v->process_spec};
    gcs_reader_options ropts = {.archive_member = v->archive_member};

    gcs_error err;
    gcs_error_clear(&err);
    gcs_objects *an = gcs_objects_new(&err);
    if (!an) {
        cli_report_error(path, &err);
        return CLI_FAILED;
    }
    gcs_objects_set_time_range(an, has_from, from_ms, has_to, to_ms);
    pf.processes = gcs_process_table_new();
    cli_trace tr;
    if (!pf.processes || !cli_open_trace_with(&tr, path, &ropts)) {
        gcs_process_table_free(pf.processes);
        gcs_objects_free(an);
        return CLI_FAILED;
    }
    const gcs_event *ev;
    gcs_status st;
    while ((st = gcs_reader_next(tr.reader, &ev, &err)) == GCS_OK) {
        if (!process_selected(&pf, ev))
            continue;
        st = gcs_objects_feed(an, ev, &err);
        if (st != GCS_OK)
            break;
    }
    int rc = CLI_OK;
    if (st < 0) {
        /* Events before the error were used: report them, and say why it stopped. */
        cli_report_error(path, &err);
        rc = CLI_FAILED;
        if (!gcs_reader_info(tr.reader)) {
            cli_close_trace(&tr);
            gcs_objects_free(an);
            gcs_process_table_free(pf.processes);
            return rc;
        }
    }
    gcs_error_clear(&err);
    if (gcs_objects_finish(an, &err) != GCS_OK) {
        cli_report_error(path, &err);
        rc = CLI_FAILED;
    } else {
        const char *base = strrchr(path, '/');
        gcs_objects_report_options ro = {
            .format = fmt == CLI_FMT_JSON  ? GCS_OBJECTS_JSON
                      : fmt == CLI_FMT_CSV ? GCS_OBJECTS_CSV
                                           : GCS_OBJECTS_TABLE,
            .wide = wide,
            .trace_name = base ? base + 1 : path, /* as stats names it */
            .limit = limit,
        };
        if (gcs_objects_report_write(an, stdout, &ro, &err) != GCS_OK) {
            fprintf(stderr, "gcscope objects: %s\n", err.reason);
            rc = CLI_FAILED;
        }
        if (pf.spec && pf.selected_events == 0)
            fprintf(stderr, "gcscope objects: %s: no event of a process %s in this trace.\n",
                    ro.trace_name, pf.spec);
        /* Records the profiler dropped (its buffers were full), or other
         * container problems: the report is then not exact. */
        const gcs_reader_stats *rs = gcs_reader_get_stats(tr.reader);
        const gcs_trace_info *ti = gcs_reader_info(tr.reader);
        if (rs && rs->anomalies && ti && ti->format == GCS_FORMAT_PROFILE)
            fprintf(stderr, "gcscope objects: %s: %llu problem(s) in the input, the first: %s\n",
                    ro.trace_name, (unsigned long long)rs->anomalies, rs->first_anomaly);
        if ((has_from || has_to) && gcs_objects_type_count(an) == 0)
            fprintf(stderr, "gcscope objects: %s: no allocation in the time range.\n",
                    ro.trace_name);
    }
    cli_close_trace(&tr);
    gcs_objects_free(an);
    gcs_process_table_free(pf.processes);
    return rc;
}
