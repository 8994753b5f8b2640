/*
 * gcscope stats TRACE... [--format table|json|csv] [--process PID|NAME] [--columns LIST | --wide]
 *               [--jobs N] [filters: --gen --kind --induced --min-pause-ms --from-ms --to-ms --top --limit]
 *
 * Per-GC statistics as TraceEvent/PerfView's GCStats computes them, plus
 * pause percentiles and a histogram (docs/gc-stats.md). Several traces are
 * read in parallel (--jobs) into one report with a trace column (see
 * "Several traces" below).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli_gc_load.h"
#include "cli_util.h"
#include "commands.h"

enum {
    OPT_FORMAT = 1, OPT_PROCESS, OPT_COLUMNS, OPT_WIDE, OPT_COLOR, OPT_TOP, OPT_LONG_PAUSE,
    OPT_MEMBER, OPT_JOBS
};

static const cli_option stats_options[] = {
    {OPT_FORMAT, "format", 0, "table|json|csv", "output format (default table)"},
    {OPT_PROCESS, "process", 0, "PID|NAME", "only the GCs of process PID, or of every process named NAME"},
    {OPT_COLUMNS, "columns", 0, "LIST", "per-GC table columns, comma-separated (--columns help lists them)"},
    {OPT_WIDE, "wide", 0, NULL, "every per-GC column (JSON and CSV always have them all)"},
    {OPT_COLOR, "color", 0, "auto|always|never", "color the table (auto: on a terminal, unless NO_COLOR)"},
    {OPT_TOP, "top", 0, "N", "only the N longest pauses, longest first"},
    {OPT_LONG_PAUSE, "long-pause-ms", 0, "X", "threshold of the long pauses section (default 200)"},
    CLI_MEMBER_OPTION(OPT_MEMBER),
    {OPT_JOBS, "jobs", 'j', "N", "several traces: read N at a time (default: the online cores)"},
    {0},
};

#define STATS_NOTES                                                                      \
    "Filters (--gen .. --limit) select the rows of the per-GC list (table, JSON \"gcs\",\n" \
    "CSV); the summary, rollup, percentiles and the other sections count every GC.\n"     \
    "A filter that matches nothing says so on stderr (exit 0).\n"                         \
    "Several traces: read in parallel (--jobs), reported in the order given: the\n"     \
    "table is one summary row per process and trace, CSV the per-GC rows of all\n"      \
    "(its trace column tells them apart), JSON {\"traces\":[one report each]}.\n"      \
    CLI_TRACE_NOTE

static int run_stats(int argc, char **argv);

const cli_command cmd_stats = {
    .name = "stats",
    .operands = "TRACE...",
    .min_operands = 1,
    .max_operands = CLI_MAX_OPERANDS,
    .summary = "per-GC statistics (TraceEvent GCStats)",
    .options = stats_options,
    .filter_options = cli_gc_filter_options,
    .notes = STATS_NOTES,
    .run = run_stats,
};

/* Facts the GC analysis does not keep: the processes' names and command
 * lines (gcs_process_table: kernel Process events, EventPipe ProcessInfo,
 * Runtime/Start) and, per process, the finalizers run (GCFinalizersEnd
 * Count summed). */
enum { MAX_FACT_PIDS = 64 };
typedef struct process_facts {
    uint32_t pid;
    bool has_finalizers;
    int64_t finalizers;
} process_facts;

typedef struct stats_facts {
    process_facts p[MAX_FACT_PIDS];
    size_t n;
    gcs_process_table *processes;
    const char *process_spec; /* --process NAME, or NULL */
    gcs_finalized *finalized; /* finalized objects by type (fed by cli_gc_load) */
} stats_facts;

static process_facts *facts_of(stats_facts *sf, uint32_t pid, bool add)
{
    for (size_t i = 0; i < sf->n; i++)
        if (sf->p[i].pid == pid)
            return &sf->p[i];
    if (!add || sf->n == MAX_FACT_PIDS)
        return NULL;
    process_facts *f = &sf->p[sf->n++];
    memset(f, 0, sizeof *f);
    f->pid = pid;
    return f;
}

static const char *facts_command_line(void *ctx, uint32_t pid)
{
    stats_facts *sf = ctx;
    const gcs_process_entry *e = gcs_process_table_find(sf->processes, pid);
    return e && e->command_line[0] ? e->command_line : NULL;
}

static const char *facts_process_name(void *ctx, uint32_t pid)
{
    stats_facts *sf = ctx;
    const gcs_process_entry *e = gcs_process_table_find(sf->processes, pid);
    return e && e->name[0] ? e->name : NULL;
}

static bool facts_select(void *ctx, uint32_t pid)
{
    stats_facts *sf = ctx;
    return gcs_process_matches(sf->processes, pid, sf->process_spec);
}

static int64_t facts_finalizers(void *ctx, uint32_t pid)
{
    process_facts *f = facts_of(ctx, pid, false);
    return f && f->has_finalizers ? f->finalizers : -1;
}

static bool is_event(const gcs_event_type *t, const char *provider, const char *name)
{
    return t->provider && t->name && strcmp(t->provider, provider) == 0 && strcmp(t->name, name) == 0;
}

static const char RUNTIME[] = "Microsoft-Windows-DotNETRuntime";

static bool is_fact_event(const gcs_event_type *t)
{
    return is_event(t, RUNTIME, "GC/FinalizersStop") || gcs_process_table_wants(t);
}

/* The events facts_hook is given (cli_gc_load asks once per type). */
static bool facts_want(void *ctx, const gcs_event_type *t)
{
    (void)ctx;
    return is_fact_event(t);
}

/* One event of a type facts_want accepted. */
static void facts_feed(stats_facts *sf, const gcs_event *ev)
{
    const gcs_event_type *t = ev->type;
    if (!is_event(t, RUNTIME, "GC/FinalizersStop")) {
        gcs_process_table_feed(sf->processes, ev);
        return;
    }
    process_facts *f = facts_of(sf, ev->pid, true);
    uint64_t count;
    if (f && gcs_payload_find_u64(ev, "Count", &count)) {
        f->has_finalizers = true;
        f->finalizers += (int64_t)(uint32_t)count;
    }
}

static void facts_hook(void *ctx, const gcs_event *ev)
{
    facts_feed(ctx, ev);
}

static void facts_free(stats_facts *sf)
{
    gcs_process_table_free(sf->processes);
    gcs_finalized_free(sf->finalized);
}

/* True when a runtime with GCs runs in a process --process NAME selects. */
static bool any_process_matches(const gcs_gc_analyzer *an, stats_facts *sf)
{
    for (size_t i = 0; i < gcs_gc_process_count(an); i++) {
        const gcs_gc_process *p = gcs_gc_process_at(an, i);
        if (p->gc_count > 0 && facts_select(sf, p->pid))
            return true;
    }
    return false;
}

/* ---- several traces: gcscope stats A B C ... [--jobs N] ----------------
 *
 * Each trace is read by a child process of its own (at most --jobs at a
 * time; default the online cores), whose report goes to a temporary file
 * and whose messages go to another; when all are done their messages and
 * reports are written in the order of the arguments, so the output does
 * not depend on which finished first. Processes, not threads: a trace's
 * memory is its process's, and the library needs no locking.
 *   table  one summary row per runtime and trace (write_summary_rows:
 *          tab-separated fields, aligned by the parent)
 *   CSV    the per-GC rows of every trace under one header (the CSV has a
 *          trace column already)
 *   JSON   {"traces":[the report of each trace]}
 */
static const char *const summary_head[] = {
    "Trace", "PID", "Process", "GCs", "Gen0", "Gen1", "Gen2", "Induced", "TotalPauseMs", "MaxPauseMs",
    "p50Ms", "p90Ms", "p99Ms", "%Paused", "MaxPeakMB", "AllocMB",
};
#define SUMMARY_COLUMNS (sizeof summary_head / sizeof summary_head[0])
/* Columns of text, aligned left (the others are numbers). */
#define SUMMARY_TEXT_COLUMN(k) ((k) == 0 || (k) == 2)

/* One line per runtime with GCs (as the report lists them): the fields of
 * summary_head, tab-separated. Returns the runtimes written. */
static int write_summary_rows(FILE *out, const gcs_gc_analyzer *an,
                              const gcs_gc_report_options *ro)
{
    int n = 0;
    for (size_t i = 0; i < gcs_gc_process_count(an); i++) {
        const gcs_gc_process *p = gcs_gc_process_at(an, i);
        if (p->gc_count == 0 || (ro->filter_pid && p->pid != ro->pid) ||
            (ro->select_process && !ro->select_process(ro->facts_ctx, p->pid)))
            continue;
        /* The process's name as the header names it ("-": none known); a
         * tab or newline in it would split the row. */
        const char *name = ro->process_name ? ro->process_name(ro->facts_ctx, p->pid) : NULL;
        char shown[128];
        snprintf(shown, sizeof shown, "%s", name && name[0] ? name : "-");
        for (char *c = shown; *c; c++)
            if (*c == '\t' || *c == '\n' || *c == '\r')
                *c = ' ';
        if (fprintf(out, "%s\t%u\t%s\t%u\t%u\t%u\t%u\t%u\t%.3f\t%.3f\t%.3f\t%.3f\t%.3f\t%.2f\t%.3f\t%.3f\n",
                    ro->trace_name, p->pid, shown, p->all.count, p->gen[0].count, p->gen[1].count,
                    p->gen[2].count, p->all.num_induced, p->all.total_pause_ms,
                    p->all.max_pause_ms, p->pct_all.p50, p->pct_all.p90, p->pct_all.p99,
                    p->pause_time_pct_of_trace, p->all.max_size_peak_mb,
                    p->all.total_allocated_mb) < 0)
            return -1;
        n++;
    }
    return n;
}

/* The report of one trace on out (summary_rows: the rows of the
 * several-traces table instead, see stats_many); the exit code.
 * process_spec: --process NAME (NULL: none); member: --member. */
static int stats_one(const char *path, gcs_gc_report_options *ro, FILE *out, bool summary_rows,
                     const char *process_spec, const char *member)
{
    stats_facts facts;
    facts.n = 0;
    facts.process_spec = process_spec;
    facts.processes = gcs_process_table_new();
    facts.finalized = gcs_finalized_new();
    if (!facts.processes || !facts.finalized) {
        fprintf(stderr, "gcscope stats: out of memory\n");
        facts_free(&facts);
        return CLI_FAILED;
    }
    /* The report reads the GCs back from a temporary file: memory holds
     * the GCs in flight, not the trace's (docs/performance.md). */
    cli_gc_load_hooks hooks = {.want = facts_want, .on_event = facts_hook, .ctx = &facts,
                               .finalized = facts.finalized, .archive_member = member,
                               .spill_gcs = true};
    int rc;
    gcs_gc_analyzer *an = cli_gc_load("gcscope stats", path, &hooks, &rc);
    if (!an) {
        facts_free(&facts);
        return rc;
    }
    ro->finalized = facts.finalized;
    ro->trace_name = cli_base_name(path);
    ro->command_line = facts_command_line;
    ro->finalizers_run = facts_finalizers;
    ro->process_name = facts_process_name;
    if (process_spec)
        ro->select_process = facts_select;
    ro->facts_ctx = &facts;
    int written = -2;
    if (process_spec && !any_process_matches(an, &facts)) {
        /* Said as for a process id without GCs (exit 0): on stdout in the
         * table, on stderr for JSON, CSV and the several-traces table. */
        if (ro->format == GCS_GC_FORMAT_TABLE && !summary_rows)
            fprintf(out, "No GC of a process named %s in this trace.\n", process_spec);
        else
            fprintf(stderr, "gcscope stats: %s: no GC of a process named %s in this trace.\n",
                    ro->trace_name, process_spec);
    } else {
        written = summary_rows ? write_summary_rows(out, an, ro) : gcs_gc_report_write(out, an, ro);
    }
    if (written == -1)
        rc = CLI_FAILED;
    /* The table already says it in one line; JSON and CSV stay
     * machine-readable, so the line goes to stderr. */
    if (written == 0 && (summary_rows || ro->format != GCS_GC_FORMAT_TABLE)) {
        if (ro->filter_pid)
            fprintf(stderr, "gcscope stats: %s: no GC of process %u in this trace.\n",
                    ro->trace_name, ro->pid);
        else
            fprintf(stderr, "gcscope stats: %s: %s\n", ro->trace_name, gcs_gc_report_no_gcs_line());
    }
    if (written > 0 && gcs_gc_report_selected(an, ro) == 0)
        fprintf(stderr, "gcscope stats: %s: no GC matches the filter.\n", ro->trace_name);
    facts_free(&facts);
    gcs_gc_analyzer_free(an);
    return rc;
}

/* One child's trace: its files and how it ended. */
typedef struct stats_job {
    const char *path;
    FILE *out, *err;
    pid_t pid;
    int rc;
} stats_job;

/* Starts the child for job j; false when it cannot. */
static bool start_job(stats_job *j, gcs_gc_report_options *ro, const char *process_spec)
{
    j->out = tmpfile();
    j->err = tmpfile();
    if (!j->out || !j->err)
        return false;
    fflush(NULL); /* nothing buffered may be written twice */
    j->pid = fork();
    if (j->pid < 0)
        return false;
    if (j->pid == 0) {
        if (dup2(fileno(j->err), STDERR_FILENO) < 0)
            _exit(CLI_FAILED);
        int rc = stats_one(j->path, ro, j->out, ro->format == GCS_GC_FORMAT_TABLE, process_spec,
                           NULL);
        fflush(NULL);
        _exit(rc);
    }
    return true;
}

/* Waits for one child to end and records its exit code. */
static void reap_one(stats_job *jobs, size_t n)
{
    int status;
    pid_t pid;
    while ((pid = wait(&status)) < 0 && errno == EINTR)
        ;
    for (size_t i = 0; i < n; i++)
        if (jobs[i].pid == pid && pid > 0) {
            jobs[i].rc = WIFEXITED(status) ? WEXITSTATUS(status) : CLI_FAILED;
            jobs[i].pid = 0;
        }
}

/* Copies f from its start to out; skip_first: without its first line. */
static void copy_from_start(FILE *f, FILE *out, bool skip_first, bool trim_newline)
{
    rewind(f);
    int c, last = EOF;
    bool skipping = skip_first;
    while ((c = getc(f)) != EOF) {
        if (skipping) {
            skipping = c != '\n';
            continue;
        }
        if (last != EOF)
            putc(last, out);
        last = c;
    }
    if (last != EOF && !(trim_newline && last == '\n'))
        putc(last, out);
}

/* The table: summary_head and every child's rows, columns aligned. */
static void write_summary_table(stats_job *jobs, size_t n, FILE *out)
{
    size_t width[SUMMARY_COLUMNS];
    for (size_t k = 0; k < SUMMARY_COLUMNS; k++)
        width[k] = strlen(summary_head[k]);
    char line[4096];
    for (int pass = 0; pass < 2; pass++) {
        if (pass == 1)
            for (size_t k = 0; k < SUMMARY_COLUMNS; k++)
                fprintf(out, k == 0 ? "%-*s" : SUMMARY_TEXT_COLUMN(k) ? "  %-*s" : "  %*s", (int)width[k],
                        summary_head[k]);
        if (pass == 1)
            putc('\n', out);
        for (size_t i = 0; i < n; i++) {
            rewind(jobs[i].out);
            while (fgets(line, sizeof line, jobs[i].out)) {
                line[strcspn(line, "\n")] = '\0';
                size_t k = 0;
                for (char *f = line, *tab; k < SUMMARY_COLUMNS; f = tab + 1, k++) {
                    tab = strchr(f, '\t');
                    size_t len = tab ? (size_t)(tab - f) : strlen(f);
                    if (pass == 0 && len > width[k])
                        width[k] = len;
                    if (pass == 1)
                        fprintf(out, k == 0 ? "%-*.*s" : SUMMARY_TEXT_COLUMN(k) ? "  %-*.*s" : "  %*.*s",
                            (int)width[k], (int)len, f);
                    if (!tab)
                        break;
                }
                if (pass == 1)
                    putc('\n', out);
            }
        }
    }
}

static int stats_many(const char *const *paths, size_t n, size_t jobs_max,
                      gcs_gc_report_options *ro, const char *process_spec)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(paths[i], "-") == 0)
            return cli_usage_error(&cmd_stats, "several traces: standard input (-) is not one of them");
    if (jobs_max == 0) {
        long cores = sysconf(_SC_NPROCESSORS_ONLN);
        jobs_max = cores > 0 ? (size_t)cores : 1;
    }
    stats_job *jobs = calloc(n, sizeof *jobs);
    if (!jobs) {
        fprintf(stderr, "gcscope stats: out of memory\n");
        return CLI_FAILED;
    }
    int rc = CLI_OK;
    size_t running = 0;
    for (size_t i = 0; i < n; i++) {
        jobs[i].path = paths[i];
        if (running == jobs_max) {
            reap_one(jobs, i);
            running--;
        }
        if (!start_job(&jobs[i], ro, process_spec)) {
            fprintf(stderr, "gcscope stats: %s: cannot start a process for it (%s)\n", paths[i],
                    strerror(errno));
            jobs[i].pid = 0;
            jobs[i].rc = CLI_FAILED;
            continue;
        }
        running++;
    }
    while (running > 0) {
        reap_one(jobs, n);
        running--;
    }
    for (size_t i = 0; i < n; i++) {
        if (jobs[i].err)
            copy_from_start(jobs[i].err, stderr, false, false);
        if (jobs[i].rc > rc)
            rc = jobs[i].rc;
    }
    if (ro->format == GCS_GC_FORMAT_TABLE) {
        write_summary_table(jobs, n, stdout);
    } else {
        bool json = ro->format == GCS_GC_FORMAT_JSON, first = true;
        if (json)
            fputs("{\"traces\":[\n", stdout);
        for (size_t i = 0; i < n; i++) {
            if (!jobs[i].out || (fseek(jobs[i].out, 0, SEEK_END), ftell(jobs[i].out) <= 0))
                continue;
            if (json && !first)
                fputs(",\n", stdout);
            copy_from_start(jobs[i].out, stdout, !json && !first, json);
            first = false;
        }
        if (json)
            fputs("\n]}\n", stdout);
    }
    for (size_t i = 0; i < n; i++) {
        if (jobs[i].out)
            fclose(jobs[i].out);
        if (jobs[i].err)
            fclose(jobs[i].err);
    }
    free(jobs);
    if (fflush(stdout) != 0)
        rc = CLI_FAILED;
    return rc;
}

static int run_stats(int argc, char **argv)
{
    gcs_gc_report_options ro;
    memset(&ro, 0, sizeof ro);
    ro.format = GCS_GC_FORMAT_TABLE;
    gcs_gc_filter *flt = &ro.filter;
    int color = -1; /* auto */
    const char *member = NULL;
    cli_args a;
    cli_args_init(&a, &cmd_stats, argc, argv);
    int id;
    cli_format fmt;
    uint64_t pid, jobs = 0;
    const char *process_spec = NULL;
    while ((id = cli_args_next(&a)) > 0) {
        const char *v = a.value;
        if (cli_is_gc_filter_option(id)) {
            if (cli_gc_filter_apply(&cmd_stats, id, v, flt) != CLI_OK)
                return CLI_USAGE;
            continue;
        }
        switch (id) {
        case OPT_FORMAT:
            if (!cli_parse_format(v, true, &fmt))
                return cli_usage_error(&cmd_stats, "--format takes table, json or csv");
            ro.format = fmt == CLI_FMT_JSON  ? GCS_GC_FORMAT_JSON
                        : fmt == CLI_FMT_CSV ? GCS_GC_FORMAT_CSV
                                             : GCS_GC_FORMAT_TABLE;
            break;
        case OPT_PROCESS:
            if (!v[0])
                return cli_usage_error(&cmd_stats, "--process takes a process id or name");
            if (cli_parse_uint(v, 0, UINT32_MAX, &pid)) {
                ro.filter_pid = true;
                ro.pid = (uint32_t)pid;
            } else {
                process_spec = v;
            }
            break;
        case OPT_COLUMNS: {
            if (strcmp(v, "help") == 0) {
                printf("%s\n", gcs_gc_report_column_names());
                return CLI_OK;
            }
            long bad = gcs_gc_report_columns_check(v);
            if (bad >= 0)
                return cli_usage_error(&cmd_stats, "--columns: unknown column '%.*s'; valid: %s",
                                       (int)strcspn(v + bad, ","), v + bad,
                                       gcs_gc_report_column_names());
            ro.columns = v;
            break;
        }
        case OPT_WIDE:
            ro.wide = true;
            break;
        case OPT_COLOR:
            if (strcmp(v, "auto") == 0)
                color = -1;
            else if (strcmp(v, "always") == 0)
                color = 1;
            else if (strcmp(v, "never") == 0)
                color = 0;
            else
                return cli_usage_error(&cmd_stats, "--color takes auto, always or never");
            break;
        case OPT_TOP:
            if (!cli_parse_count(v, &flt->top))
                return cli_usage_error(&cmd_stats, "--top takes a count of at least 1");
            break;
        case OPT_LONG_PAUSE:
            if (!cli_parse_ms(v, &ro.long_pause_ms) || !(ro.long_pause_ms > 0))
                return cli_usage_error(&cmd_stats, "--long-pause-ms takes a number of ms above 0");
            break;
        case OPT_MEMBER:
            member = v;
            break;
        case OPT_JOBS:
            if (!cli_parse_uint(v, 1, 4096, &jobs))
                return cli_usage_error(&cmd_stats, "--jobs takes a count from 1 to 4096");
            break;
        }
    }
    if (id == CLI_ARG_STOP)
        return a.exit_code;
    if (cli_gc_filter_check(&cmd_stats, flt) != CLI_OK)
        return CLI_USAGE;
    if (color < 0) {
        const char *no_color = getenv("NO_COLOR");
        color = isatty(STDOUT_FILENO) && !(no_color && no_color[0]);
    }
    ro.color = color == 1;
    if (a.n_operands > 1) {
        if (member)
            return cli_usage_error(&cmd_stats, "--member takes one trace, not several");
        return stats_many(a.operand, (size_t)a.n_operands, (size_t)jobs, &ro, process_spec);
    }
    return stats_one(a.operand[0], &ro, stdout, false, process_spec, member);
}
