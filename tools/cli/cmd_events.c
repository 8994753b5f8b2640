/*
 * gcscope events TRACE [--format text|json] [--provider P] [--event NAME]
 *                      [--limit N] [--from-ms T] [--to-ms T]
 *
 * Every event in timestamp order: ms since trace start (TraceEvent's MSec),
 * process, thread, provider, event name, id, version and every payload
 * field. JSON: one object per line.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cli_util.h"
#include "commands.h"

/* --provider and --event, set: only the events of the types they name. */
typedef struct type_filter {
    const char *provider, *name;
} type_filter;

static bool type_matches(const gcs_event_type *t, const char *provider, const char *name)
{
    if (provider && strcasecmp(provider, t->provider) != 0)
        return false;
    if (name) {
        size_t pl = strlen(t->provider);
        /* Either the bare name ("GC/Start") or "Provider/GC/Start". */
        if (strcasecmp(name, t->name) != 0 &&
            !(strncasecmp(name, t->provider, pl) == 0 && name[pl] == '/' &&
              strcasecmp(name + pl + 1, t->name) == 0))
            return false;
    }
    return true;
}

/* The reader's want: it then counts the other types' events instead of
 * sorting and delivering them (`--event GC/Start` on a trace of millions
 * of events prints its few GCs at the speed of `info`). */
static bool filter_wants(void *ctx, const gcs_event_type *t)
{
    const type_filter *f = ctx;
    return type_matches(t, f->provider, f->name);
}

enum { OPT_FORMAT = 1, OPT_PROVIDER, OPT_EVENT, OPT_LIMIT, OPT_FROM, OPT_TO, OPT_MEMBER };

static const cli_option events_options[] = {
    {OPT_FORMAT, "format", 0, "text|json", "output format (default text; json: one object a line)"},
    {OPT_PROVIDER, "provider", 0, "P", "only the events of provider P"},
    {OPT_EVENT, "event", 0, "NAME", "only events NAME (GC/Start or Provider/GC/Start)"},
    {OPT_LIMIT, "limit", 0, "N", "stop after N events"},
    {OPT_FROM, "from-ms", 0, "T", "only events at or after T ms (since the trace start)"},
    {OPT_TO, "to-ms", 0, "T", "only events before T ms"},
    CLI_MEMBER_OPTION(OPT_MEMBER),
    {0},
};

static int run_events(int argc, char **argv);

const cli_command cmd_events = {
    .name = "events",
    .operands = "TRACE",
    .min_operands = 1,
    .max_operands = 1,
    .summary = "every event in timestamp order with decoded fields",
    .options = events_options,
    .notes = "A filter that matches nothing says so on stderr (exit 0).\n" CLI_TRACE_NOTE,
    .run = run_events,
};

static int run_events(int argc, char **argv)
{
    const char *provider = NULL, *name = NULL;
    gcs_reader_options ropts = {0};
    cli_format fmt = CLI_FMT_TEXT;
    uint64_t limit = UINT64_MAX;
    cli_window win = {0};
    cli_args a;
    cli_args_init(&a, &cmd_events, argc, argv);
    int id;
    while ((id = cli_args_next(&a)) > 0) {
        switch (id) {
        case OPT_FORMAT:
            if (!cli_parse_format(a.value, false, &fmt))
                return cli_usage_error(&cmd_events, "--format takes text or json");
            break;
        case OPT_PROVIDER:
            provider = a.value;
            break;
        case OPT_EVENT:
            name = a.value;
            break;
        case OPT_LIMIT:
            if (!cli_parse_uint(a.value, 0, UINT64_MAX, &limit))
                return cli_usage_error(&cmd_events, "--limit takes a count");
            break;
        case OPT_FROM:
        case OPT_TO:
            if (cli_window_option(&cmd_events, id == OPT_TO, a.value, &win) != CLI_OK)
                return CLI_USAGE;
            break;
        case OPT_MEMBER:
            ropts.archive_member = a.value;
            break;
        }
    }
    if (id == CLI_ARG_STOP)
        return a.exit_code;
    if (cli_window_check(&cmd_events, &win) != CLI_OK)
        return CLI_USAGE;
    const char *path = a.operand[0];
    /* Not with --to-ms: reading stops at the first event past it, of any
     * type; filtered, the reader would go on to the next matching one, and
     * report what lies between (a trace cut short at its end). */
    type_filter filter = {provider, name};
    if ((provider || name) && !win.has_to) {
        ropts.want = filter_wants;
        ropts.want_ctx = &filter;
    }
    /* The events before --from-ms: counted by the reader, not sorted. */
    ropts.has_from_msec = win.has_from;
    ropts.from_msec = win.from_ms;
    cli_trace tr;
    if (!cli_open_trace_with(&tr, path, &ropts))
        return CLI_FAILED;
    gcs_event_printer *printer =
        gcs_event_printer_new(stdout, fmt == CLI_FMT_JSON ? GCS_PRINT_JSON : GCS_PRINT_TEXT);
    if (!printer) {
        fprintf(stderr, "gcscope events: out of memory\n");
        cli_close_trace(&tr);
        return CLI_FAILED;
    }
    const gcs_event *ev;
    gcs_error err;
    gcs_error_clear(&err);
    gcs_status st;
    uint64_t printed = 0;
    while (printed < limit && (st = gcs_reader_next(tr.reader, &ev, &err)) == GCS_OK) {
        /* Events come in timestamp order: past --to-ms nothing more can match. */
        if (win.has_to && !(ev->msec < win.to_ms)) {
            st = GCS_END;
            break;
        }
        if (win.has_from && !(ev->msec >= win.from_ms))
            continue;
        /* The reader filtered already, unless --to-ms kept it from it. */
        if (!ropts.want && !type_matches(ev->type, provider, name))
            continue;
        gcs_event_printer_put(printer, ev, NULL);
        printed++;
    }
    if (printed >= limit)
        st = GCS_END;
    gcs_event_printer_flush(printer, NULL);
    gcs_event_printer_free(printer);
    int rc = CLI_OK;
    if (st < 0) {
        fflush(stdout);
        cli_report_error(path, &err);
        rc = CLI_FAILED;
    } else if (printed == 0 && (provider || name || win.has_from || win.has_to))
        fprintf(stderr, "gcscope events: %s: no event matches the filter.\n", path);
    cli_close_trace(&tr);
    return rc;
}
