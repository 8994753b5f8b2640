/* tools/cli/cli_gc_load.c - a trace through the GC analyzer (cli_gc_load.h). */
#include <string.h>

#include "cli_gc_load.h"

typedef struct load_want {
    const cli_gc_load_hooks *hooks;
} load_want;

static bool wants(void *ctx, const gcs_event_type *t)
{
    const load_want *w = ctx;
    return gcs_gc_wants(NULL, t) || (w->hooks && w->hooks->want && w->hooks->want(w->hooks->ctx, t));
}

const char *cli_base_name(const char *path)
{
    const char *base = strrchr(path, '/');
    return base ? base + 1 : path;
}

gcs_gc_analyzer *cli_gc_load(const char *who, const char *path, const cli_gc_load_hooks *hooks,
                             int *rc)
{
    *rc = CLI_OK;
    /* Only the events GCStats uses (and the hooks') are sorted and
     * delivered; the rest are counted (most of a trace with handle or
     * allocation events). */
    load_want w = {hooks};
    gcs_reader_options opts = {.want = wants, .want_ctx = &w,
                               .archive_member = hooks ? hooks->archive_member : NULL};
    cli_trace tr;
    if (!cli_open_trace_with(&tr, path, &opts)) {
        *rc = CLI_FAILED;
        return NULL;
    }
    gcs_error err;
    gcs_error_clear(&err);
    gcs_gc_analyzer *an = gcs_gc_analyzer_new(NULL, &err);
    if (!an) {
        cli_report_error(path, &err);
        cli_close_trace(&tr);
        *rc = CLI_FAILED;
        return NULL;
    }
    const gcs_event *ev;
    gcs_status st;
    while ((st = gcs_reader_next(tr.reader, &ev, &err)) == GCS_OK) {
        if (hooks && hooks->on_event)
            hooks->on_event(hooks->ctx, ev);
        gcs_status fs = gcs_gc_analyzer_feed(an, ev);
        if (fs < 0) {
            fprintf(stderr, "%s: %s: the GC analysis stopped (%s)\n", who, path, gcs_status_name(fs));
            st = fs;
            break;
        }
    }
    if (st < 0 && st != GCS_END) {
        /* Report what was read before the error, then fail. */
        if (err.status < 0)
            cli_report_error(path, &err);
        *rc = CLI_FAILED;
    }
    const gcs_reader_stats *rs = gcs_reader_get_stats(tr.reader);
    if (rs)
        gcs_gc_analyzer_set_lost_events(an, rs->lost_events);
    if (rs && rs->events > 0)
        gcs_gc_analyzer_set_span(an, gcs_reader_msec(tr.reader, rs->first_timestamp),
                                 gcs_reader_msec(tr.reader, rs->last_timestamp));
    gcs_gc_analyzer_finish(an);
    bool nothing_read = !rs || rs->events == 0;
    cli_close_trace(&tr);
    if (*rc != CLI_OK && nothing_read) {
        gcs_gc_analyzer_free(an);
        return NULL;
    }
    return an;
}

size_t cli_gc_runtimes(const gcs_gc_analyzer *an, bool filter_pid, uint32_t pid,
                       const gcs_gc_process **out, size_t cap)
{
    size_t n = 0;
    for (size_t i = 0; i < gcs_gc_process_count(an); i++) {
        const gcs_gc_process *p = gcs_gc_process_at(an, i);
        if (p->gc_count == 0 || (filter_pid && p->pid != pid))
            continue;
        if (n < cap)
            out[n] = p;
        n++;
    }
    return n;
}
