/*
 * gcscope objects TRACE [--format table|json|csv] [--wide] [--process PID|NAME]
 *                       [--symbols FILE]
 *
 * Follows the sampled objects of a trace across GCs (moved and surviving
 * ranges) and tells, per type, how many died young, in which GC, how long
 * they lived, which survived to the end and which died in gen2.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_util.h"
#include "commands.h"

enum { OPT_FORMAT = 1, OPT_WIDE, OPT_FROM, OPT_TO, OPT_LIMIT, OPT_PROCESS, OPT_SYMBOLS, OPT_MEMBER };

static const cli_option objects_options[] = {
    {OPT_FORMAT, "format", 0, "table|json|csv", "output format (default table)"},
    {OPT_WIDE, "wide", 0, NULL, "table: every column, type names in full (JSON/CSV have all)"},
    {OPT_FROM, "from-ms", 0, "T", "only objects allocated at or after T ms"},
    {OPT_TO, "to-ms", 0, "T", "only objects allocated before T ms"},
    {OPT_LIMIT, "limit", 0, "N", "at most N type rows per list"},
    {OPT_PROCESS, "process", 0, "PID|NAME", "only the events of process PID, or of every process named NAME"},
    {OPT_SYMBOLS, "symbols", 0, "FILE", "name a NativeAOT app's types from its symbols (APP.dbg, or APP unstripped)"},
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
             "GCs, not objects: objects does not take them. A NativeAOT application writes no\n"
             "type names; --symbols names them from the MethodTable symbols of its executable\n"
             "(the APP.dbg that dotnet publish writes beside it), if of the same build.\n" CLI_TRACE_NOTE,
    .run = run_objects,
};

static int run_objects(int argc, char **argv)
{
    cli_format fmt = CLI_FMT_TEXT;
    bool wide = false;
    cli_window win = {0};
    size_t limit = 0;
    cli_process_filter pf = {0};
    gcs_reader_options ropts = {0};
    const char *symbols_path = NULL;
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
        case OPT_TO:
            if (cli_window_option(&cmd_objects, id == OPT_TO, a.value, &win) != CLI_OK)
                return CLI_USAGE;
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
        case OPT_SYMBOLS:
            if (!a.value[0])
                return cli_usage_error(&cmd_objects, "--symbols takes a file");
            symbols_path = a.value;
            break;
        case OPT_MEMBER:
            ropts.archive_member = a.value;
            break;
        }
    }
    if (id == CLI_ARG_STOP)
        return a.exit_code;
    if (cli_window_check(&cmd_objects, &win) != CLI_OK)
        return CLI_USAGE;
    cli_objects_view v = {
        .format = fmt, .wide = wide, .limit = limit,
        .has_from = win.has_from, .from_ms = win.from_ms, .has_to = win.has_to, .to_ms = win.to_ms,
        .process_spec = pf.spec, .archive_member = ropts.archive_member,
        .symbols_path = symbols_path,
    };
    return cli_objects_report(a.operand[0], &v);
}

/* Objects are followed per process: addresses of different processes
 * mean different objects. An analysis starts at a process's first runtime
 * event (provider Microsoft-Windows-DotNETRuntime*) and gets that
 * process's events from then on; a trace of one process reads as before. */
enum { MAX_OBJECT_PROCESSES = 64 };

typedef struct process_objects {
    uint32_t pid;
    gcs_objects *an;
} process_objects;

typedef struct objects_by_process {
    process_objects p[MAX_OBJECT_PROCESSES];
    size_t n;
    size_t last; /* index of the last one used (events come in runs) */
    uint64_t events_left_out; /* runtime events of processes past the cap */
    bool has_from, has_to;
    double from_ms, to_ms;
    const gcs_symbols *symbols;
} objects_by_process;

static int by_pid(const void *a, const void *b)
{
    uint32_t x = ((const process_objects *)a)->pid, y = ((const process_objects *)b)->pid;
    return (x > y) - (x < y);
}

static bool is_runtime_event(const gcs_event *ev)
{
    static const char prefix[] = "Microsoft-Windows-DotNETRuntime";
    const char *provider = ev->type ? ev->type->provider : NULL;
    return provider && strncmp(provider, prefix, sizeof prefix - 1) == 0;
}

/* The analysis of ev's process, started at its first runtime event; NULL
 * when there is none yet (or no room: counted), or out of memory (*err). */
static gcs_objects *objects_for(objects_by_process *op, const gcs_event *ev, gcs_error *err)
{
    if (op->n > 0 && op->p[op->last].pid == ev->pid)
        return op->p[op->last].an;
    for (size_t i = 0; i < op->n; i++)
        if (op->p[i].pid == ev->pid) {
            op->last = i;
            return op->p[i].an;
        }
    if (!is_runtime_event(ev))
        return NULL;
    if (op->n == MAX_OBJECT_PROCESSES) {
        op->events_left_out++;
        return NULL;
    }
    gcs_objects *an = gcs_objects_new(err);
    if (!an)
        return NULL;
    gcs_objects_set_time_range(an, op->has_from, op->from_ms, op->has_to, op->to_ms);
    if (op->symbols)
        gcs_objects_set_symbols(an, op->symbols);
    op->p[op->n] = (process_objects){ev->pid, an};
    op->last = op->n++;
    return an;
}

static gcs_status out_of_memory(gcs_error *err)
{
    gcs_error_clear(err);
    err->status = GCS_ERR_IO;
    snprintf(err->reason, sizeof err->reason, "out of memory for the report");
    return err->status;
}

/* Writes a's report to a memory buffer (*text, *len; free *text). */
static gcs_status report_to_memory(const gcs_objects *a, const gcs_objects_report_options *ro,
                                   char **text, size_t *len, gcs_error *err)
{
    *text = NULL;
    *len = 0;
    FILE *mem = open_memstream(text, len);
    if (!mem)
        return out_of_memory(err);
    gcs_status st = gcs_objects_report_write(a, mem, ro, err);
    if (fclose(mem) != 0 && st == GCS_OK)
        st = out_of_memory(err);
    return st;
}

/* Several processes: each report under its process (table), in a
 * "processes" array (JSON), or under one CSV header with the pid in the
 * trace column ("FILE (pid N)"). */
static gcs_status write_per_process(objects_by_process *op, const gcs_process_table *pt,
                                    const gcs_objects_report_options *base, gcs_error *err)
{
    bool json = base->format == GCS_OBJECTS_JSON, csv = base->format == GCS_OBJECTS_CSV;
    qsort(op->p, op->n, sizeof op->p[0], by_pid); /* in pid order, as stats lists them */
    if (json)
        fputs("{\"processes\":[", stdout);
    for (size_t i = 0; i < op->n; i++) {
        const gcs_process_entry *pe = gcs_process_table_find(pt, op->p[i].pid);
        const char *name = pe && pe->name[0] ? pe->name : NULL;
        gcs_objects_report_options ro = *base;
        char label[512];
        if (csv) {
            snprintf(label, sizeof label, "%s (pid %" PRIu32 ")", base->trace_name ? base->trace_name : "",
                     op->p[i].pid);
            ro.trace_name = label;
        }
        char *text;
        size_t len;
        gcs_status st = report_to_memory(op->p[i].an, &ro, &text, &len, err);
        if (st != GCS_OK) {
            free(text);
            return st;
        }
        const char *body = text;
        if (csv && i > 0) { /* one header for all */
            const char *nl = memchr(text, '\n', len);
            body = nl ? nl + 1 : text + len;
        }
        size_t body_len = len - (size_t)(body - text);
        if (json) {
            while (body_len > 0 && body[body_len - 1] == '\n')
                body_len--;
            printf("%s{\"pid\":%" PRIu32 ",\"process_name\":", i ? "," : "", op->p[i].pid);
            if (name)
                cli_json_string(stdout, name);
            else
                fputs("null", stdout);
            fputs(",\"objects\":", stdout);
        } else if (!csv) {
            printf("%sProcess %" PRIu32 "%s%s\n", i ? "\n" : "", op->p[i].pid, name ? " " : "",
                   name ? name : "");
        }
        fwrite(body, 1, body_len, stdout);
        if (json)
            fputc('}', stdout);
        free(text);
    }
    if (json)
        fputs("]}\n", stdout);
    return GCS_OK;
}

/* GenerationRange events come apart (options.tap, gcs_objects_taps):
 * each goes where the loop of cli_objects_report sends a delivered event,
 * in the same order. */
typedef struct objects_taps {
    objects_by_process *op;
    cli_process_filter *pf;
    gcs_error err;
    gcs_status status; /* the first failure (out of memory) */
} objects_taps;

static void objects_on_tap(void *ctx, const gcs_tap_event *tev)
{
    objects_taps *t = ctx;
    if (t->status != GCS_OK)
        return;
    objects_by_process *op = t->op;
    /* The usual one: no name to note, no filter, the last process's
     * (cli_process_selected and objects_for would change nothing). */
    if (!tev->process_name && !t->pf->spec && !gcs_process_table_wants(tev->type) && op->n > 0 &&
        op->p[op->last].pid == tev->pid) {
        gcs_objects_tap(op->p[op->last].an, tev);
        return;
    }
    /* What the process filter and objects_for read of an event. */
    const gcs_event ev = {.type = tev->type, .timestamp = tev->timestamp, .msec = tev->msec,
                          .pid = tev->pid, .tid = tev->tid, .pointer_size = tev->pointer_size,
                          .process_name = tev->process_name};
    if (!cli_process_selected(t->pf, &ev))
        return;
    gcs_objects *an = objects_for(op, &ev, &t->err);
    if (!an) {
        if (t->err.status < 0)
            t->status = t->err.status;
        return;
    }
    gcs_objects_tap(an, tev);
}

/* The events the report reads: the analysis' and the process table's
 * (names, command lines, --process); the reader only counts the others. */
static bool objects_want(void *ctx, const gcs_event_type *type)
{
    return gcs_objects_wants(ctx, type) || gcs_process_table_wants(type);
}

int cli_objects_report(const char *path, const cli_objects_view *v)
{
    cli_format fmt = v->format;
    cli_process_filter pf = {.spec = v->process_spec};
    objects_by_process *op = calloc(1, sizeof *op);
    if (!op) {
        fprintf(stderr, "gcscope objects: out of memory\n");
        return CLI_FAILED;
    }
    objects_taps taps = {.op = op, .pf = &pf, .status = GCS_OK};
    gcs_error_clear(&taps.err);
    gcs_reader_options ropts = {.archive_member = v->archive_member, .want = objects_want,
                                .tap = gcs_objects_taps, .on_tap = objects_on_tap,
                                .tap_ctx = &taps};
    op->has_from = v->has_from;
    op->from_ms = v->from_ms;
    op->has_to = v->has_to;
    op->to_ms = v->to_ms;

    gcs_error err;
    gcs_error_clear(&err);
    gcs_symbols *symbols = NULL;
    if (v->symbols_path) {
        symbols = gcs_symbols_load(v->symbols_path, &err);
        if (!symbols) {
            cli_report_error(v->symbols_path, &err);
            free(op);
            return CLI_FAILED;
        }
        if (gcs_symbols_type_count(symbols) == 0) {
            const gcs_symbols_stats *ss = gcs_symbols_get_stats(symbols);
            fprintf(stderr, "gcscope objects: %s: no type symbols in it (%s)\n", v->symbols_path,
                    ss->native_aot ? "a stripped NativeAOT executable: its symbols are in the "
                                     ".dbg file dotnet publish wrote beside it"
                    : ss->symbol_table == 0 ? "no symbol table"
                                            : "not a NativeAOT executable, or stripped");
            gcs_symbols_free(symbols);
            free(op);
            return CLI_FAILED;
        }
        op->symbols = symbols;
    }
    pf.processes = gcs_process_table_new();
    cli_trace tr;
    if (!pf.processes || !cli_open_trace_with(&tr, path, &ropts)) {
        gcs_process_table_free(pf.processes);
        gcs_symbols_free(symbols);
        free(op);
        return CLI_FAILED;
    }
    const gcs_event *ev;
    gcs_status st;
    while ((st = gcs_reader_next(tr.reader, &ev, &err)) == GCS_OK && taps.status == GCS_OK) {
        if (!cli_process_selected(&pf, ev))
            continue;
        gcs_objects *an = objects_for(op, ev, &err);
        if (!an) {
            if (err.status < 0) {
                st = err.status;
                break;
            }
            continue;
        }
        st = gcs_objects_feed(an, ev, &err);
        if (st != GCS_OK)
            break;
    }
    if (taps.status != GCS_OK) { /* (a tap failed, before or after the last event) */
        st = taps.status;
        err = taps.err;
    }
    int rc = CLI_OK;
    if (st < 0) {
        /* Events before the error were used: report them, and say why it stopped. */
        cli_report_error(path, &err);
        rc = CLI_FAILED;
        if (!gcs_reader_info(tr.reader))
            goto done;
    }
    /* No runtime event at all: the empty report says so. */
    if (op->n == 0) {
        gcs_error_clear(&err);
        gcs_objects *an = gcs_objects_new(&err);
        if (!an) {
            cli_report_error(path, &err);
            rc = CLI_FAILED;
            goto done;
        }
        gcs_objects_set_time_range(an, op->has_from, op->from_ms, op->has_to, op->to_ms);
        if (symbols)
            gcs_objects_set_symbols(an, symbols);
        op->p[op->n++] = (process_objects){0, an};
    }
    gcs_error_clear(&err);
    for (size_t i = 0; i < op->n; i++)
        if (gcs_objects_finish(op->p[i].an, &err) != GCS_OK) {
            cli_report_error(path, &err);
            rc = CLI_FAILED;
            goto done;
        }
    const char *base = strrchr(path, '/');
    gcs_objects_report_options ro = {
        .format = fmt == CLI_FMT_JSON  ? GCS_OBJECTS_JSON
                  : fmt == CLI_FMT_CSV ? GCS_OBJECTS_CSV
                                       : GCS_OBJECTS_TABLE,
        .wide = v->wide,
        .trace_name = base ? base + 1 : path, /* as stats names it */
        .limit = v->limit,
    };
    gcs_status ws = op->n == 1 ? gcs_objects_report_write(op->p[0].an, stdout, &ro, &err)
                               : write_per_process(op, pf.processes, &ro, &err);
    if (ws != GCS_OK) {
        fprintf(stderr, "gcscope objects: %s\n", err.reason);
        rc = CLI_FAILED;
    }
    if (pf.spec && pf.selected_events == 0)
        fprintf(stderr, "gcscope objects: %s: no event of a process %s in this trace.\n",
                ro.trace_name, pf.spec);
    if (op->events_left_out)
        fprintf(stderr, "gcscope objects: %s: more than %d .NET processes: %llu events of the "
                "others left out (--process selects one)\n", ro.trace_name, MAX_OBJECT_PROCESSES,
                (unsigned long long)op->events_left_out);
    /* Records the profiler dropped (its buffers were full), or other
     * container problems: the report is then not exact. */
    const gcs_reader_stats *rs = gcs_reader_get_stats(tr.reader);
    const gcs_trace_info *ti = gcs_reader_info(tr.reader);
    if (rs && rs->anomalies && ti && ti->format == GCS_FORMAT_PROFILE)
        fprintf(stderr, "gcscope objects: %s: %llu problem(s) in the input, the first: %s\n",
                ro.trace_name, (unsigned long long)rs->anomalies, rs->first_anomaly);
    size_t types = 0;
    for (size_t i = 0; i < op->n; i++)
        types += gcs_objects_type_count(op->p[i].an);
    if ((v->has_from || v->has_to) && types == 0)
        fprintf(stderr, "gcscope objects: %s: no allocation in the time range.\n", ro.trace_name);
done:
    cli_close_trace(&tr);
    for (size_t i = 0; i < op->n; i++)
        gcs_objects_free(op->p[i].an);
    free(op);
    gcs_process_table_free(pf.processes);
    gcs_symbols_free(symbols);
    return rc;
}
