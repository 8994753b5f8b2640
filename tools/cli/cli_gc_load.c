/* tools/cli/cli_gc_load.c - a trace through the GC analyzer (cli_gc_load.h). */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli_gc_load.h"

/* What the reader is asked per event type, and which of the hooks'
 * consumers (the callback, the finalized-objects tracker) take it, kept by
 * the type's index: the loop then hands each event to those only (a byte
 * read per event, where asking their filters per event compared names). */
typedef struct load_want {
    const cli_gc_load_hooks *hooks;
    uint8_t *hook_wants; /* by type index: HOOK_UNASKED, or HOOK_ASKED | HOOK_* bits */
    size_t n;
} load_want;

enum { HOOK_UNASKED = 0, HOOK_ASKED = 1, HOOK_CALLBACK = 2, HOOK_FINALIZED = 4 };

/* Asks the consumers about type t and keeps the answer by its index. The
 * callback takes every event when it has no filter. */
static __attribute__((noinline)) uint8_t hook_ask(load_want *w, const gcs_event_type *t)
{
    const cli_gc_load_hooks *h = w->hooks;
    uint8_t answer = HOOK_ASKED;
    if (h->on_event && (!h->want || h->want(h->ctx, t)))
        answer |= HOOK_CALLBACK;
    if (h->finalized && gcs_finalized_wants(NULL, t))
        answer |= HOOK_FINALIZED;
    uint32_t i = t->index;
    if (i >= w->n && i != UINT32_MAX) {
        size_t n = w->n ? w->n : 64;
        while (n <= i)
            n *= 2;
        uint8_t *grown = realloc(w->hook_wants, n);
        if (!grown)
            return answer; /* asked again next time */
        memset(grown + w->n, HOOK_UNASKED, n - w->n);
        w->hook_wants = grown;
        w->n = n;
    }
    if (i < w->n)
        w->hook_wants[i] = answer;
    return answer;
}

/* Which consumers take events of type t (HOOK_* bits; 0 without hooks).
 * Asked once per type. */
static inline uint8_t hook_wants(load_want *w, const gcs_event_type *t)
{
    if (!w->hooks || (!w->hooks->on_event && !w->hooks->finalized))
        return 0;
    uint32_t i = t->index;
    uint8_t answer = i < w->n ? w->hook_wants[i] : HOOK_UNASKED;
    if (__builtin_expect(answer == HOOK_UNASKED, 0))
        answer = hook_ask(w, t);
    return answer & (HOOK_CALLBACK | HOOK_FINALIZED);
}

/* Events GC analysis only sums (AllocationTick) are tapped, unless a
 * hook sees them. */
static bool taps(void *ctx, const gcs_event_type *t)
{
    return !hook_wants(ctx, t) && gcs_gc_taps(NULL, t);
}

static bool wants(void *ctx, const gcs_event_type *t)
{
    /* Asked even when GC analysis wants t: the answer is kept for the loop. */
    bool hooked = hook_wants(ctx, t) != 0;
    return hooked || gcs_gc_wants(NULL, t);
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
    load_want w = {hooks, NULL, 0};
    gcs_error err;
    gcs_error_clear(&err);
    gcs_gc_options gc_opts = {.spill_gcs = hooks && hooks->spill_gcs};
    gcs_gc_analyzer *an = gcs_gc_analyzer_new(&gc_opts, &err);
    if (!an) {
        cli_report_error(path, &err);
        *rc = CLI_FAILED;
        return NULL;
    }
    /* The allocation ticks go to the analyzer apart (options.tap). */
    gcs_reader_options opts = {.want = wants, .want_ctx = &w,
                               .tap = taps, .on_tap = gcs_gc_analyzer_tap, .tap_ctx = an,
                               .archive_member = hooks ? hooks->archive_member : NULL};
    cli_trace tr;
    if (!cli_open_trace_with(&tr, path, &opts)) {
        gcs_gc_analyzer_free(an);
        free(w.hook_wants);
        *rc = CLI_FAILED;
        return NULL;
    }
    const gcs_event *ev;
    gcs_status st;
    while ((st = gcs_reader_next(tr.reader, &ev, &err)) == GCS_OK) {
        uint8_t hooked = hook_wants(&w, ev->type);
        if (hooked & HOOK_CALLBACK)
            hooks->on_event(hooks->ctx, ev);
        if ((hooked & HOOK_FINALIZED) && gcs_finalized_feed(hooks->finalized, ev) != GCS_OK) {
            fprintf(cli_messages(), "%s: %s: out of memory counting finalized objects\n", who, path);
            st = GCS_ERR_NOMEM;
            break;
        }
        gcs_status fs = gcs_gc_analyzer_feed(an, ev);
        if (fs < 0) {
            fprintf(cli_messages(), "%s: %s: the GC analysis stopped (%s)\n", who, path, gcs_status_name(fs));
            st = fs;
            break;
        }
    }
    if (st == GCS_END && gcs_gc_analyzer_status(an) < 0) {
        /* It stopped on a tapped event, after the last delivered one. */
        st = gcs_gc_analyzer_status(an);
        fprintf(cli_messages(), "%s: %s: the GC analysis stopped (%s)\n", who, path, gcs_status_name(st));
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
    if (hooks && hooks->finalized && gcs_finalized_finish(hooks->finalized) != GCS_OK) {
        fprintf(cli_messages(), "%s: %s: out of memory counting finalized objects\n", who, path);
        *rc = CLI_FAILED;
    }
    bool nothing_read = !rs || rs->events == 0;
    cli_close_trace(&tr);
    free(w.hook_wants);
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

static bool names_want(void *ctx, const gcs_event_type *t)
{
    (void)ctx;
    return gcs_process_table_wants(t);
}

static void names_feed(void *ctx, const gcs_event *ev)
{
    gcs_process_table_feed(ctx, ev);
}

int cli_gc_load_named(const char *who, const char *path, bool filter_pid, uint32_t pid,
                      cli_gc_named_runtimes *out)
{
    memset(out, 0, sizeof *out);
    out->processes = gcs_process_table_new();
    if (!out->processes) {
        fprintf(cli_messages(), "%s: out of memory\n", who);
        return CLI_FAILED;
    }
    /* Compare and check read the GCs a pass at a time (gc_insight.h): they
     * stay in a temporary file, whatever the trace's length. */
    cli_gc_load_hooks hooks = {.want = names_want, .on_event = names_feed, .ctx = out->processes,
                               .spill_gcs = true};
    int rc;
    out->an = cli_gc_load(who, path, &hooks, &rc);
    if (!out->an || rc != CLI_OK)
        return CLI_FAILED;
    size_t n = cli_gc_runtimes(out->an, filter_pid, pid, out->rt, CLI_GC_MAX_RUNTIMES);
    out->n = n > CLI_GC_MAX_RUNTIMES ? CLI_GC_MAX_RUNTIMES : n;
    if (out->n == 0) {
        if (filter_pid)
            fprintf(cli_messages(), "%s: %s: no GC of process %u in this trace.\n", who, path, pid);
        else
            fprintf(cli_messages(), "%s: %s: %s\n", who, path, gcs_gc_report_no_gcs_line());
        return CLI_FAILED;
    }
    for (size_t i = 0; i < out->n; i++) {
        const gcs_process_entry *e = gcs_process_table_find(out->processes, out->rt[i]->pid);
        out->name[i] = e && e->name[0] ? e->name : NULL;
    }
    return CLI_OK;
}

/* The second trace of a pair, read in its thread, its messages kept. */
typedef struct pair_job {
    const char *who, *path;
    cli_gc_named_runtimes *out;
    int rc;
    FILE *messages;
} pair_job;

static void *load_second(void *arg)
{
    pair_job *j = arg;
    cli_set_messages(j->messages);
    j->rc = cli_gc_load_named(j->who, j->path, false, 0, j->out);
    cli_set_messages(NULL);
    return NULL;
}

/* A regular file of a format our own reader reads alone (nettrace,
 * netperf, ETL). Other inputs stay one after the other: standard input
 * and pipes are read once, in order; an LTTng trace may need
 * libbabeltrace2, which is not thread-safe; an archive's member is only
 * known once it is open. */
static bool reads_alone(const char *path)
{
    struct stat st;
    if (strcmp(path, "-") == 0 || stat(path, &st) != 0 || !S_ISREG(st.st_mode))
        return false;
    unsigned char head[GCS_FORMAT_SNIFF_BYTES];
    FILE *f = fopen(path, "rb");
    if (!f)
        return false;
    size_t got = fread(head, 1, sizeof head, f);
    fclose(f);
    gcs_format format = gcs_format_sniff(head, got);
    return format == GCS_FORMAT_NETTRACE || format == GCS_FORMAT_NETPERF ||
           format == GCS_FORMAT_ETL;
}

int cli_gc_load_named_pair(const char *who, const char *first, bool filter_pid, uint32_t pid,
                           const char *second, cli_gc_named_runtimes *first_out,
                           cli_gc_named_runtimes *second_out)
{
    memset(second_out, 0, sizeof *second_out);
    char *kept = NULL;
    size_t kept_len = 0;
    pair_job job = {who, second, second_out, CLI_FAILED, NULL};
    pthread_t thread;
    bool parallel = second && reads_alone(first) && reads_alone(second) &&
                    (job.messages = open_memstream(&kept, &kept_len)) != NULL;
    if (parallel && pthread_create(&thread, NULL, load_second, &job) != 0) {
        fclose(job.messages);
        free(kept);
        kept = NULL;
        parallel = false;
    }
    int rc = cli_gc_load_named(who, first, filter_pid, pid, first_out);
    if (parallel) {
        pthread_join(thread, NULL);
        fclose(job.messages); /* kept, kept_len: what it said */
        if (rc == CLI_OK) {
            fwrite(kept, 1, kept_len, cli_messages());
            rc = job.rc;
        } else {
            cli_gc_named_free(second_out); /* read one after the other, it would not be */
        }
        free(kept);
        return rc;
    }
    if (rc == CLI_OK && second)
        rc = cli_gc_load_named(who, second, false, 0, second_out);
    return rc;
}

void cli_gc_named_free(cli_gc_named_runtimes *t)
{
    if (t->an)
        gcs_gc_analyzer_free(t->an);
    gcs_process_table_free(t->processes);
    memset(t, 0, sizeof *t);
}

const char *cli_gc_named_label(const cli_gc_named_runtimes *t, size_t i, char *buf, size_t cap)
{
    if (t->name[i])
        snprintf(buf, cap, "pid %u, %s", t->rt[i]->pid, t->name[i]);
    else
        snprintf(buf, cap, "pid %u", t->rt[i]->pid);
    return buf;
}

const char *cli_gc_pairing_phrase(gcs_gc_pairing how)
{
    return how == GCS_PAIRED_BY_NAME ? "by process name" : how == GCS_PAIRED_BY_PID ? "by pid" : "in order";
}
