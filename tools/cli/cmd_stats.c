/*
 * gcscope stats TRACE [--format table|json|csv] [--process PID|NAME] [--columns LIST | --wide]
 *               [filters: --gen --kind --induced --min-pause-ms --from-ms --to-ms --top --limit]
 *
 * Per-GC statistics as TraceEvent/PerfView's GCStats computes them, plus
 * pause percentiles and a histogram (docs/gc-stats.md).
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli_gc_load.h"
#include "cli_util.h"
#include "commands.h"

enum {
    OPT_FORMAT = 1, OPT_PROCESS, OPT_COLUMNS, OPT_WIDE, OPT_COLOR, OPT_TOP, OPT_LONG_PAUSE,
    OPT_MEMBER
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
    {0},
};

#define STATS_NOTES                                                                      \
    "Filters (--gen .. --limit) select the rows of the per-GC list (table, JSON \"gcs\",\n" \
    "CSV); the summary, rollup, percentiles and the other sections count every GC.\n"     \
    "A filter that matches nothing says so on stderr (exit 0).\n" CLI_TRACE_NOTE

static int run_stats(int argc, char **argv);

const cli_command cmd_stats = {
    .name = "stats",
    .operands = "TRACE",
    .min_operands = 1,
    .max_operands = 1,
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
    /* The last event type asked about and the answer: consecutive events
     * often share a type, and comparing names cost ~25 instructions an
     * event (callgrind of `gcscope stats` on the bench trace). */
    const gcs_event_type *last_type;
    bool last_is_fact;
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

static bool stats_wants(void *ctx, const gcs_event_type *t)
{
    return gcs_gc_wants(ctx, t) || is_fact_event(t);
}

static void facts_feed(stats_facts *sf, const gcs_event *ev)
{
    const gcs_event_type *t = ev->type;
    if (t != sf->last_type) {
        sf->last_type = t;
        sf->last_is_fact = is_fact_event(t);
    }
    if (!sf->last_is_fact)
        return;
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
    uint64_t pid;
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
    const char *path = a.operand[0];
    stats_facts facts;
    facts.n = 0;
    facts.last_type = NULL;
    facts.last_is_fact = false;
    facts.process_spec = process_spec;
    facts.processes = gcs_process_table_new();
    if (!facts.processes) {
        fprintf(stderr, "gcscope stats: out of memory\n");
        return CLI_FAILED;
    }
    cli_gc_load_hooks hooks = {.want = stats_wants, .on_event = facts_hook, .ctx = &facts,
                               .archive_member = member};
    int rc;
    gcs_gc_analyzer *an = cli_gc_load("gcscope stats", path, &hooks, &rc);
    if (!an) {
        facts_free(&facts);
        return rc;
    }
    ro.trace_name = cli_base_name(path);
    ro.command_line = facts_command_line;
    ro.finalizers_run = facts_finalizers;
    ro.process_name = facts_process_name;
    if (process_spec)
        ro.select_process = facts_select;
    ro.facts_ctx = &facts;
    int written = -2;
    if (process_spec && !any_process_matches(an, &facts)) {
        /* Said as for a process id without GCs (exit 0): on stdout in the
         * table, on stderr for JSON and CSV. */
        if (ro.format == GCS_GC_FORMAT_TABLE)
            printf("No GC of a process named %s in this trace.\n", process_spec);
        else
            fprintf(stderr, "gcscope stats: %s: no GC of a process named %s in this trace.\n",
                    ro.trace_name, process_spec);
    } else {
        written = gcs_gc_report_write(stdout, an, &ro);
    }
    if (written == -1)
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
    if (written > 0 && gcs_gc_report_selected(an, &ro) == 0)
        fprintf(stderr, "gcscope stats: %s: no GC matches the filter.\n", ro.trace_name);
    facts_free(&facts);
    gcs_gc_analyzer_free(an);
    return rc;
}
