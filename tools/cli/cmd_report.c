/*
 * gcscope report TRACE [-o FILE] [--process PID] [--long-pause-ms X] [--no-allocs]
 *
 * One self-contained HTML file: headline numbers, findings, charts and
 * tables per runtime (docs/report.md).
 */
#include <errno.h>
#include <string.h>

#include "cli_gc_load.h"
#include "commands.h"

enum { OPT_OUTPUT = 1, OPT_PROCESS, OPT_LONG_PAUSE, OPT_NO_ALLOCS };

static const cli_option report_options[] = {
    {OPT_OUTPUT, "output", 'o', "PATH", "write the HTML there (default report.html; - for stdout)"},
    {OPT_PROCESS, "process", 0, "PID", "only the runtime(s) of process PID"},
    {OPT_LONG_PAUSE, "long-pause-ms", 0, "X", "threshold of the long pauses table and finding (default 200)"},
    {OPT_NO_ALLOCS, "no-allocs", 0, NULL, "no Who allocates section (it reads the trace a second time)"},
    {0},
};

static int run_report(int argc, char **argv);

const cli_command cmd_report = {
    .name = "report",
    .operands = "TRACE",
    .min_operands = 1,
    .max_operands = 1,
    .summary = "write a self-contained HTML report (charts, tables, findings)",
    .options = report_options,
    .notes = "The file needs no network: CSS, SVG charts and a small script are inline.\n"
             "Findings and their thresholds: docs/findings.md.\n" CLI_TRACE_NOTE,
    .run = run_report,
};

int cli_write_html_report(const char *who, const gcs_gc_analyzer *an, const char *out_path,
                          const gcs_gc_html_options *ho)
{
    bool to_stdout = strcmp(out_path, "-") == 0;
    FILE *f = to_stdout ? stdout : fopen(out_path, "w");
    if (!f) {
        fprintf(stderr, "%s: %s: cannot write: %s\n", who, out_path, strerror(errno));
        return CLI_FAILED;
    }
    int written = gcs_gc_html_write(f, an, ho);
    bool failed = written < 0 || fflush(f) != 0 || ferror(f);
    if (!to_stdout && fclose(f) != 0)
        failed = true;
    if (failed) {
        fprintf(stderr, "%s: %s: writing failed\n", who, out_path);
        return CLI_FAILED;
    }
    if (written == 0) {
        if (ho->filter_pid)
            fprintf(stderr, "%s: no GC of process %u in this trace.\n", who, ho->pid);
        else
            fprintf(stderr, "%s: %s\n", who, gcs_gc_report_no_gcs_line());
    }
    return CLI_OK;
}

static int run_report(int argc, char **argv)
{
    gcs_gc_html_options ho;
    memset(&ho, 0, sizeof ho);
    const char *out_path = "report.html";
    bool allocs = true;
    cli_args a;
    cli_args_init(&a, &cmd_report, argc, argv);
    int id;
    uint64_t pid;
    while ((id = cli_args_next(&a)) > 0) {
        const char *v = a.value;
        switch (id) {
        case OPT_OUTPUT:
            out_path = v;
            break;
        case OPT_PROCESS:
            if (!cli_parse_uint(v, 0, UINT32_MAX, &pid))
                return cli_usage_error(&cmd_report, "--process takes a process id");
            ho.filter_pid = true;
            ho.pid = (uint32_t)pid;
            break;
        case OPT_NO_ALLOCS:
            allocs = false;
            break;
        case OPT_LONG_PAUSE:
            if (!cli_parse_ms(v, &ho.long_pause_ms) || !(ho.long_pause_ms > 0))
                return cli_usage_error(&cmd_report, "--long-pause-ms takes a number of ms above 0");
            break;
        }
    }
    if (id == CLI_ARG_STOP)
        return a.exit_code;
    const char *path = a.operand[0];
    int rc;
    /* Finalized objects by type, counted beside the GC analysis. */
    gcs_finalized *fz = gcs_finalized_new();
    if (!fz) {
        fprintf(stderr, "gcscope report: out of memory\n");
        return CLI_FAILED;
    }
    /* The GCs stay in a temporary file: the report reads them a pass at a
     * time (gc_insight.h), in memory that does not grow with the trace. */
    cli_gc_load_hooks hooks = {.finalized = fz, .spill_gcs = true};
    gcs_gc_analyzer *an = cli_gc_load("gcscope report", path, &hooks, &rc);
    if (!an) {
        gcs_finalized_free(fz);
        return rc;
    }
    ho.finalized = fz;
    ho.trace_name = cli_base_name(path);
    /* Who allocates: a second read, with stacks (a file can be read again;
     * standard input cannot; a trace that broke off was said once). */
    gcs_allocs *al = NULL;
    if (allocs && strcmp(path, "-") != 0 && rc == CLI_OK) {
        char pid_text[16];
        snprintf(pid_text, sizeof pid_text, "%u", ho.pid);
        int arc;
        al = cli_allocs_read("gcscope report", path, NULL, ho.filter_pid ? pid_text : NULL, NULL,
                             &arc);
        ho.allocs = al;
    }
    int wrc = cli_write_html_report("gcscope report", an, out_path, &ho);
    gcs_allocs_free(al);
    gcs_finalized_free(fz);
    gcs_gc_analyzer_free(an);
    return rc != CLI_OK ? rc : wrc;
}
