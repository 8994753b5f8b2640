/*
 * gcscope compare BASE NEW [--format table|json|html] [--min-change-pct X] [--alpha A]
 *
 * Per runtime, the headline metrics of two traces side by side with the
 * delta, a Mann-Whitney test of the pause distributions (and bootstrap
 * intervals of the pause metrics' deltas), and a verdict per
 * metric (docs/report.md).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli_gc_load.h"
#include "commands.h"

enum { OPT_FORMAT = 1, OPT_MIN_CHANGE, OPT_ALPHA };

static const cli_option compare_options[] = {
    {OPT_FORMAT, "format", 0, "table|json|html", "output format (default table)"},
    {OPT_MIN_CHANGE, "min-change-pct", 0, "X", "smaller changes are no significant change (default 5)"},
    {OPT_ALPHA, "alpha", 0, "A", "significance level of the pause distribution test (default 0.001)"},
    {0},
};

static int run_compare(int argc, char **argv);

const cli_command cmd_compare = {
    .name = "compare",
    .operands = "BASE NEW",
    .min_operands = 2,
    .max_operands = 2,
    .summary = "compare the GC metrics of two traces (delta, significance, verdict)",
    .options = compare_options,
    .notes = "Runtimes that ran a GC are paired by process name where both traces name\n"
             "processes (ETL kernel events, EventPipe ProcessInfo), else by pid where a pid\n"
             "is in both, else in order (pid, then runtime id); the output says which.\n"
             "Pause metrics (mean, p50, p90, p99, max) change significantly only when a\n"
             "Mann-Whitney U test of the two pause distributions gives p < alpha in the\n"
             "direction the metric moved, and it moved more than --min-change-pct and\n"
             "0.1 ms; the other metrics by --min-change-pct alone. The interval column is\n"
             "a 99 % bootstrap interval of the delta (information).\n"
             "BASE and NEW are .nettrace or .netperf files.\n",
    .run = run_compare,
};

enum { FMT_TABLE, FMT_JSON, FMT_HTML };

static void put(FILE *f, double v, const char *undef)
{
    if (isfinite(v))
        fprintf(f, "%.3f", v);
    else
        fputs(undef, f);
}

static void table_rows(FILE *f, const gcs_gc_compare_row *rows, int n)
{
    fprintf(f, "%-20s %14s %14s %14s %9s %9s %23s  %s\n", "metric", "base", "new", "delta",
            "delta %", "p", "interval of delta", "verdict");
    for (int i = 0; i < n; i++) {
        const gcs_gc_compare_row *r = &rows[i];
        char pct[32], pv[64], pp[32];
        if (isfinite(r->delta_pct))
            snprintf(pct, sizeof pct, "%+.1f", r->delta_pct);
        else
            snprintf(pct, sizeof pct, "-");
        if (isfinite(r->ci_lo))
            snprintf(pv, sizeof pv, "[%.3f, %.3f]", r->ci_lo, r->ci_hi);
        else
            snprintf(pv, sizeof pv, "-");
        if (isfinite(r->p_value))
            snprintf(pp, sizeof pp, "%.4f", r->p_value);
        else
            snprintf(pp, sizeof pp, "-");
        fprintf(f, "%-20s %14.3f %14.3f %+14.3f %9s %9s %23s  %s\n", r->metric, r->base, r->next,
                r->delta, pct, pp, pv, gcs_verdict_name(r->verdict));
    }
}

static void json_rows(FILE *f, const gcs_gc_compare_row *rows, int n)
{
    fputs("[", f);
    for (int i = 0; i < n; i++) {
        const gcs_gc_compare_row *r = &rows[i];
        fprintf(f, "%s\n        {\"metric\": \"%s\", \"base\": ", i ? "," : "", r->metric);
        put(f, r->base, "null");
        fputs(", \"new\": ", f);
        put(f, r->next, "null");
        fputs(", \"delta\": ", f);
        put(f, r->delta, "null");
        fputs(", \"delta_pct\": ", f);
        put(f, r->delta_pct, "null");
        fputs(", \"ci_low\": ", f);
        put(f, r->ci_lo, "null");
        fputs(", \"ci_high\": ", f);
        put(f, r->ci_hi, "null");
        fputs(", \"mann_whitney_p\": ", f);
        if (isfinite(r->p_value))
            fprintf(f, "%.6f", r->p_value);
        else
            fputs("null", f);
        fprintf(f, ", \"verdict\": \"%s\"}", gcs_verdict_name(r->verdict));
    }
    fputs("\n      ]", f);
}

static void html_rows(FILE *f, const gcs_gc_compare_row *rows, int n)
{
    fputs("<table><tr><th>metric</th><th>base</th><th>new</th><th>delta</th><th>delta %</th>"
          "<th>interval of delta</th><th>verdict</th></tr>\n", f);
    for (int i = 0; i < n; i++) {
        const gcs_gc_compare_row *r = &rows[i];
        fprintf(f, "<tr class=\"%s\"><td>%s</td><td>", r->verdict == GCS_VERDICT_REGRESSED ? "bad"
                                                      : r->verdict == GCS_VERDICT_IMPROVED ? "good"
                                                                                          : "same",
                r->metric);
        put(f, r->base, "-");
        fputs("</td><td>", f);
        put(f, r->next, "-");
        fputs("</td><td>", f);
        put(f, r->delta, "-");
        fputs("</td><td>", f);
        put(f, r->delta_pct, "-");
        fputs("</td><td>", f);
        if (isfinite(r->ci_lo))
            fprintf(f, "[%.3f, %.3f]", r->ci_lo, r->ci_hi);
        else
            fputs("-", f);
        fprintf(f, "</td><td>%s</td></tr>\n", gcs_verdict_name(r->verdict));
    }
    fputs("</table>\n", f);
}

/* The paired runtimes of t[0] (base) and t[1] (new), in fmt. The runtimes
 * left without a counterpart are named on stderr. */
static int compare_pairs(const char *const paths[2], const cli_gc_named_runtimes t[2],
                         const gcs_gc_compare_options *co, int fmt)
{
    long base_of[CLI_GC_MAX_RUNTIMES];
    gcs_gc_pairing how = gcs_gc_pair_runtimes(t[0].rt, t[0].name, t[0].n, t[1].rt, t[1].name,
                                              t[1].n, base_of);
    const char *by = cli_gc_pairing_phrase(how);
    bool base_paired[CLI_GC_MAX_RUNTIMES] = {false};
    char l0[160], l1[160];
    for (size_t j = 0; j < t[1].n; j++) {
        if (base_of[j] >= 0)
            base_paired[base_of[j]] = true;
        else
            fprintf(stderr, "gcscope compare: %s: %s has no counterpart in %s (paired %s)\n",
                    cli_base_name(paths[1]), cli_gc_named_label(&t[1], j, l1, sizeof l1),
                    cli_base_name(paths[0]), by);
    }
    for (size_t i = 0; i < t[0].n; i++)
        if (!base_paired[i])
            fprintf(stderr, "gcscope compare: %s: %s has no counterpart in %s (paired %s)\n",
                    cli_base_name(paths[0]), cli_gc_named_label(&t[0], i, l0, sizeof l0),
                    cli_base_name(paths[1]), by);
    FILE *f = stdout;
    if (fmt == FMT_TABLE)
        fprintf(f, "Runtimes paired %s.\n", by);
    if (fmt == FMT_JSON) {
        fputs("{\"base\": ", f);
        cli_json_string(f, cli_base_name(paths[0]));
        fputs(", \"new\": ", f);
        cli_json_string(f, cli_base_name(paths[1]));
        fprintf(f, ", \"paired_by\": \"%s\", \"pairs\": [", gcs_gc_pairing_name(how));
    }
    if (fmt == FMT_HTML)
        fprintf(f, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>gcscope "
                   "compare</title><style>body{font:14px system-ui,sans-serif;margin:16px}"
                   "table{border-collapse:collapse}td,th{border:1px solid #ddd;padding:2px 8px;"
                   "text-align:right}.bad{background:#fde0e0}.good{background:#e0f5e0}</style>"
                   "</head><body>\n<h1>GC comparison</h1>\n<p>Runtimes paired %s.</p>\n", by);
    int rc = CLI_OK;
    size_t shown = 0;
    for (size_t j = 0; j < t[1].n; j++) {
        if (base_of[j] < 0)
            continue;
        size_t i = (size_t)base_of[j];
        const gcs_gc_process *b = t[0].rt[i], *nw = t[1].rt[j];
        gcs_gc_compare_row rows[GCS_GC_COMPARE_ROWS];
        int nr = gcs_gc_compare(b, nw, co, rows);
        if (nr < 0) {
            rc = CLI_FAILED;
            break;
        }
        cli_gc_named_label(&t[0], i, l0, sizeof l0);
        cli_gc_named_label(&t[1], j, l1, sizeof l1);
        if (fmt == FMT_TABLE) {
            fprintf(f, "%sBase %s (%s) vs new %s (%s)\n", shown ? "\n" : "", cli_base_name(paths[0]),
                    l0, cli_base_name(paths[1]), l1);
            table_rows(f, rows, nr);
        } else if (fmt == FMT_JSON) {
            fprintf(f, "%s\n    {\"base_pid\": %u, \"new_pid\": %u, \"base_process_name\": ",
                    shown ? "," : "", b->pid, nw->pid);
            if (t[0].name[i])
                cli_json_string(f, t[0].name[i]);
            else
                fputs("null", f);
            fputs(", \"new_process_name\": ", f);
            if (t[1].name[j])
                cli_json_string(f, t[1].name[j]);
            else
                fputs("null", f);
            fputs(", \"metrics\": ", f);
            json_rows(f, rows, nr);
            fputs("}", f);
        } else {
            fputs("<h2>Base ", f);
            gcs_html_escape(f, cli_base_name(paths[0]));
            fputs(" (", f);
            gcs_html_escape(f, l0);
            fputs(") vs new ", f);
            gcs_html_escape(f, cli_base_name(paths[1]));
            fputs(" (", f);
            gcs_html_escape(f, l1);
            fputs(")</h2>\n", f);
            html_rows(f, rows, nr);
        }
        shown++;
    }
    if (fmt == FMT_JSON)
        fputs("\n  ]}\n", f);
    if (fmt == FMT_HTML)
        fputs("</body></html>\n", f);
    if (fflush(f) != 0)
        rc = CLI_FAILED;
    if (rc == CLI_OK && shown == 0) {
        fprintf(stderr, "gcscope compare: no runtime of %s pairs with one of %s\n",
                cli_base_name(paths[1]), cli_base_name(paths[0]));
        rc = CLI_FAILED;
    }
    return rc;
}

static int run_compare(int argc, char **argv)
{
    int fmt = FMT_TABLE;
    gcs_gc_compare_options co = {0};
    cli_args a;
    cli_args_init(&a, &cmd_compare, argc, argv);
    int id;
    while ((id = cli_args_next(&a)) > 0) {
        const char *v = a.value;
        switch (id) {
        case OPT_FORMAT:
            if (strcmp(v, "table") == 0 || strcmp(v, "text") == 0)
                fmt = FMT_TABLE;
            else if (strcmp(v, "json") == 0)
                fmt = FMT_JSON;
            else if (strcmp(v, "html") == 0)
                fmt = FMT_HTML;
            else
                return cli_usage_error(&cmd_compare, "--format takes table, json or html");
            break;
        case OPT_MIN_CHANGE:
            if (!cli_parse_ms(v, &co.min_change_pct) || !(co.min_change_pct > 0))
                return cli_usage_error(&cmd_compare, "--min-change-pct takes a number above 0");
            break;
        case OPT_ALPHA:
            if (!cli_parse_ms(v, &co.alpha) || !(co.alpha > 0 && co.alpha < 1))
                return cli_usage_error(&cmd_compare, "--alpha takes a number between 0 and 1");
            break;
        }
    }
    if (id == CLI_ARG_STOP)
        return a.exit_code;
    const char *paths[2] = {a.operand[0], a.operand[1]};
    cli_gc_named_runtimes t[2];
    int rc = cli_gc_load_named_pair("gcscope compare", paths[0], false, 0, paths[1], &t[0], &t[1]);
    if (rc == CLI_OK)
        rc = compare_pairs(paths, t, &co, fmt);
    cli_gc_named_free(&t[0]);
    cli_gc_named_free(&t[1]);
    return rc;
}
