/*
 * gcscope check TRACE [--baseline BASE] [--max-pause-ms X] [--max-p99-pause-ms X]
 *               [--max-gc-pct X] [--max-gen2 N] [--max-regression-pct X]
 *               [--process PID] [--junit FILE]
 *
 * A CI gate: exit 0 when every runtime is within the limits, 1 when a limit
 * is exceeded (one line per violation on stdout), 2 on bad input. A wrong
 * command line exits 1 as with every command, but prints nothing on stdout
 * (docs/report.md).
 */
#include <errno.h>
#include <string.h>

#include "cli_gc_load.h"
#include "commands.h"

enum {
    OPT_BASELINE = 1, OPT_MAX_PAUSE, OPT_MAX_P99, OPT_MAX_GC_PCT, OPT_MAX_GEN2, OPT_MAX_REGRESSION,
    OPT_PROCESS, OPT_JUNIT, OPT_ALPHA
};

static const cli_option check_options[] = {
    {OPT_BASELINE, "baseline", 0, "TRACE", "a trace to compare against (for --max-regression-pct)"},
    {OPT_MAX_PAUSE, "max-pause-ms", 0, "X", "fail when a GC paused longer"},
    {OPT_MAX_P99, "max-p99-pause-ms", 0, "X", "fail when the 99th percentile pause is longer"},
    {OPT_MAX_GC_PCT, "max-gc-pct", 0, "X", "fail when more than X % of the time was paused in GC"},
    {OPT_MAX_GEN2, "max-gen2", 0, "N", "fail on more than N gen2 GCs"},
    {OPT_MAX_REGRESSION, "max-regression-pct", 0, "X",
     "fail when p99/max pause, GC %, gen2 count or peak heap regressed by more than X % (needs --baseline)"},
    {OPT_PROCESS, "process", 0, "PID", "only the runtime(s) of process PID in TRACE"},
    {OPT_JUNIT, "junit", 0, "PATH", "also write the results as JUnit XML"},
    {OPT_ALPHA, "alpha", 0, "A", "significance a pause regression needs (default 0.05)"},
    {0},
};

static int run_check(int argc, char **argv);

const cli_command cmd_check = {
    .name = "check",
    .operands = "TRACE",
    .min_operands = 1,
    .max_operands = 1,
    .summary = "fail (exit 1) when GC limits are exceeded: a CI gate",
    .options = check_options,
    .notes = "Exit 0: within every limit; 1: a limit exceeded (one line each on stdout;\n"
             "a wrong command line also exits 1, with stdout empty); 2: bad input.\n"
             "Regressions count only when significant (compare's test, at --alpha:\n"
             "0.05 by default, where compare's own verdicts use 0.001);\n"
             "runtimes are paired with the baseline's as by `gcscope compare` (process\n"
             "name, else pid, else order); the regression lines and the pass line say how.\n"
             CLI_TRACE_NOTE,
    .run = run_check,
};

enum { MAX_RUNTIMES = CLI_GC_MAX_RUNTIMES, MAX_VIOLATIONS = 16 };

/* One JUnit test case per limit and runtime. */
typedef struct check_case {
    uint32_t pid;
    const char *limit;
    const gcs_gc_violation *failure; /* NULL: passed */
} check_case;

static bool write_junit(const char *path, const char *trace, const check_case *cases, size_t n,
                        size_t failures)
{
    FILE *f = fopen(path, "w");
    if (!f) {
        fprintf(stderr, "gcscope check: %s: cannot write: %s\n", path, strerror(errno));
        return false;
    }
    fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites>\n"
               "<testsuite name=\"gcscope check ");
    gcs_html_escape(f, trace);
    fprintf(f, "\" tests=\"%zu\" failures=\"%zu\" errors=\"0\">\n", n, failures);
    for (size_t i = 0; i < n; i++) {
        fprintf(f, "  <testcase classname=\"gcscope.check.pid%u\" name=\"%s\"", cases[i].pid,
                cases[i].limit);
        if (!cases[i].failure) {
            fputs("/>\n", f);
            continue;
        }
        fputs(">\n    <failure message=\"", f);
        gcs_html_escape(f, cases[i].failure->text);
        fputs("\"/>\n  </testcase>\n", f);
    }
    fputs("</testsuite>\n</testsuites>\n", f);
    bool ok = fflush(f) == 0 && !ferror(f);
    return fclose(f) == 0 && ok;
}

static int usage(const char *msg)
{
    return cli_usage_error(&cmd_check, "%s", msg);
}

static int run_check(int argc, char **argv)
{
    gcs_gc_limits lim;
    memset(&lim, 0, sizeof lim);
    const char *baseline = NULL, *junit = NULL;
    bool filter_pid = false;
    uint32_t pid = 0;
    cli_args a;
    cli_args_init(&a, &cmd_check, argc, argv);
    int id;
    uint64_t u;
    while ((id = cli_args_next(&a)) > 0) {
        const char *v = a.value;
        switch (id) {
        case OPT_BASELINE:
            baseline = v;
            break;
        case OPT_MAX_PAUSE:
            if (!cli_parse_ms(v, &lim.max_pause_ms))
                return usage("--max-pause-ms takes a number of ms");
            lim.has_max_pause = true;
            break;
        case OPT_MAX_P99:
            if (!cli_parse_ms(v, &lim.max_p99_pause_ms))
                return usage("--max-p99-pause-ms takes a number of ms");
            lim.has_max_p99 = true;
            break;
        case OPT_MAX_GC_PCT:
            if (!cli_parse_ms(v, &lim.max_gc_pct))
                return usage("--max-gc-pct takes a percentage");
            lim.has_max_gc_pct = true;
            break;
        case OPT_MAX_GEN2:
            if (!cli_parse_uint(v, 0, UINT32_MAX, &u))
                return usage("--max-gen2 takes a count");
            lim.max_gen2 = (uint32_t)u;
            lim.has_max_gen2 = true;
            break;
        case OPT_MAX_REGRESSION:
            if (!cli_parse_ms(v, &lim.max_regression_pct))
                return usage("--max-regression-pct takes a percentage");
            lim.has_max_regression = true;
            break;
        case OPT_ALPHA:
            if (!cli_parse_ms(v, &lim.regression_alpha) ||
                !(lim.regression_alpha > 0 && lim.regression_alpha < 1))
                return usage("--alpha takes a number between 0 and 1");
            break;
        case OPT_PROCESS:
            if (!cli_parse_uint(v, 0, UINT32_MAX, &u))
                return usage("--process takes a process id");
            filter_pid = true;
            pid = (uint32_t)u;
            break;
        case OPT_JUNIT:
            junit = v;
            break;
        }
    }
    if (id == CLI_ARG_STOP)
        return a.exit_code;
    const char *path = a.operand[0];
    if (lim.has_max_regression && !baseline)
        return usage("--max-regression-pct needs --baseline BASE");
    if (!lim.has_max_pause && !lim.has_max_p99 && !lim.has_max_gc_pct && !lim.has_max_gen2 &&
        !lim.has_max_regression)
        return usage("no limit given (--max-pause-ms, --max-p99-pause-ms, --max-gc-pct, --max-gen2, "
                     "--max-regression-pct)");
    cli_gc_named_runtimes tr, base_tr;
    int rc = cli_gc_load_named_pair("gcscope check", path, filter_pid, pid, baseline, &tr, &base_tr);
    size_t n = tr.n;
    const gcs_gc_process *const *rt = tr.rt;
    long base_of[CLI_GC_MAX_RUNTIMES];
    const char *by = NULL;
    if (rc == CLI_OK && baseline) {
        by = cli_gc_pairing_phrase(gcs_gc_pair_runtimes(base_tr.rt, base_tr.name, base_tr.n, tr.rt,
                                                        tr.name, tr.n, base_of));
        char label[160];
        for (size_t i = 0; i < n; i++)
            if (base_of[i] < 0)
                fprintf(stderr, "gcscope check: %s: %s has no counterpart in %s (paired %s): no "
                                "regression check\n",
                        cli_base_name(path), cli_gc_named_label(&tr, i, label, sizeof label),
                        cli_base_name(baseline), by);
    }
    static const char *const limit_names[] = {"max-pause-ms", "max-p99-pause-ms", "max-gc-pct",
                                              "max-gen2", "max-regression-pct"};
    gcs_gc_violation vio[MAX_RUNTIMES][MAX_VIOLATIONS];
    check_case cases[MAX_RUNTIMES * (MAX_VIOLATIONS + 5)];
    size_t n_cases = 0, failures = 0;
    for (size_t i = 0; rc == CLI_OK && i < n; i++) {
        const gcs_gc_process *base = by && base_of[i] >= 0 ? base_tr.rt[base_of[i]] : NULL;
        int nv = gcs_gc_check(rt[i], base, &lim, vio[i], MAX_VIOLATIONS);
        if (nv < 0) {
            rc = CLI_FAILED;
            break;
        }
        nv = nv > MAX_VIOLATIONS ? MAX_VIOLATIONS : nv;
        bool on[5] = {lim.has_max_pause, lim.has_max_p99, lim.has_max_gc_pct, lim.has_max_gen2,
                      lim.has_max_regression && base};
        for (int l = 0; l < 5; l++) {
            if (!on[l])
                continue;
            bool failed = false;
            for (int v = 0; v < nv; v++) {
                if (strcmp(vio[i][v].limit, limit_names[l]) != 0)
                    continue;
                failed = true;
                cases[n_cases++] = (check_case){rt[i]->pid, limit_names[l], &vio[i][v]};
                failures++;
                printf("%s: pid %u: %s", cli_base_name(path), rt[i]->pid, vio[i][v].text);
                if (l == 4) /* which baseline runtime it was compared with */
                    printf(" (baseline pid %u, paired %s)", base->pid, by);
                putchar('\n');
            }
            if (!failed)
                cases[n_cases++] = (check_case){rt[i]->pid, limit_names[l], NULL};
        }
    }
    if (rc == CLI_OK) {
        if (failures == 0)
            printf("%s: pass (%zu runtime%s, %zu check%s%s%s)\n", cli_base_name(path), n,
                   n == 1 ? "" : "s", n_cases, n_cases == 1 ? "" : "s",
                   by ? "; baseline runtimes paired " : "", by ? by : "");
        if (junit && !write_junit(junit, cli_base_name(path), cases, n_cases, failures))
            rc = CLI_FAILED;
        else if (failures)
            rc = 1; /* a limit exceeded */
    }
    cli_gc_named_free(&tr);
    cli_gc_named_free(&base_tr);
    return rc;
}
