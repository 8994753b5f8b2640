/*
 * tools/cli/live_watch.c - the options and the printing of `gcscope live`
 * and `gcscope record`: the session itself (attach, stream, analyze, stop,
 * drain, save) is the library's watch (gcs_watch_*, src/live/watch.c).
 * Prints each GC the watch hands out (the GCs `gcscope stats` reports, as
 * their numbers become final), turns Ctrl-C/SIGTERM into a stop, and at
 * the end prints how it ended and the summary.
 */
#include "commands.h"
#include "live_watch.h"

#include <assert.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

const cli_option live_common_options[] = {
    {LIVE_OPT_DURATION, "duration", 0, "SECONDS", "stop after SECONDS"},
    {LIVE_OPT_STOP_ON_PAUSE, "stop-on-pause-ms", 0, "N",
     "stop as soon as a GC pause exceeds N ms (live: with --replay)"},
    {LIVE_OPT_ALLOC_TICKS, "alloc-ticks", 0, NULL, "also collect GC/AllocationTick (runtime level 5)"},
    {LIVE_OPT_RUNDOWN, "rundown", 0, NULL, "ask for rundown events at the end (method names)"},
    {LIVE_OPT_BUFFER_MB, "buffer-mb", 0, "N", "runtime-side session buffer (default 256)"},
    {LIVE_OPT_PROVIDERS, "providers", 0, "SPEC", "replace the providers: Name:Keywords:Level[,...]"},
    {LIVE_OPT_SOCKET, "socket", 0, "PATH", "use this diagnostic socket instead of finding PID's"},
    {0},
};

static volatile sig_atomic_t stop_signal, signal_count;

/* The first Ctrl-C/SIGTERM stops the session cleanly; a second one stops
 * waiting for the runtime to end the stream. */
static void on_signal(int sig)
{
    stop_signal = sig;
    if (signal_count < 2)
        signal_count++;
}

/* Names given in --providers live here until the process exits. */
static char provider_names[GCS_DIAG_MAX_PROVIDERS][128];

static bool parse_providers(gcs_session_config *cfg, const char *spec)
{
    cfg->provider_count = 0;
    const char *p = spec;
    while (*p) {
        if (cfg->provider_count == GCS_DIAG_MAX_PROVIDERS)
            return false;
        size_t len = strcspn(p, ",");
        char item[256];
        if (len == 0 || len >= sizeof item)
            return false;
        memcpy(item, p, len);
        item[len] = 0;
        p += len + (p[len] == ',');
        char *kw = strchr(item, ':');
        char *lv = kw ? strchr(kw + 1, ':') : NULL;
        if (!kw || !lv)
            return false;
        *kw++ = 0;
        *lv++ = 0;
        char *end;
        errno = 0;
        unsigned long long keywords = strtoull(kw, &end, 0);
        if (errno || *end || !*kw)
            return false;
        unsigned long level = strtoul(lv, &end, 10);
        if (*end || !*lv || level > 255 || strlen(item) >= sizeof provider_names[0])
            return false;
        size_t k = cfg->provider_count++;
        strcpy(provider_names[k], item);
        cfg->providers[k] =
            (gcs_diag_provider){provider_names[k], (uint64_t)keywords, (uint32_t)level, NULL};
    }
    return cfg->provider_count > 0;
}

bool live_parse_pid(const char *s, uint32_t *pid)
{
    uint64_t v;
    if (!cli_parse_uint(s, 1, 0x7fffffff, &v))
        return false;
    *pid = (uint32_t)v;
    return true;
}

/* A positive number of seconds or milliseconds. */
static bool parse_positive(const char *v, double *out)
{
    char *end;
    double x = strtod(v, &end);
    if (*end || !*v || !(x > 0) || x > 1e9)
        return false;
    *out = x;
    return true;
}

void live_opts_init(live_opts *o, const char *cmd)
{
    memset(o, 0, sizeof *o);
    o->cmd = cmd;
    gcs_session_config_gc(&o->watch.config, false);
}

int live_apply_option(live_opts *o, const cli_command *cmd, int id, const char *value)
{
    uint64_t mb;
    switch (id) {
    case LIVE_OPT_ALLOC_TICKS:
        /* GC/AllocationTick is the runtime provider's GC keyword at level 5. */
        for (size_t k = 0; k < o->watch.config.provider_count; k++)
            if (!strcmp(o->watch.config.providers[k].name, "Microsoft-Windows-DotNETRuntime"))
                o->watch.config.providers[k].level = 5;
        break;
    case LIVE_OPT_RUNDOWN:
        o->watch.config.request_rundown = true;
        break;
    case LIVE_OPT_SOCKET:
        o->watch.socket_path = value;
        break;
    case LIVE_OPT_PROVIDERS:
        if (!parse_providers(&o->watch.config, value))
            return cli_usage_error(cmd, "--providers takes Name:Keywords:Level[,...] "
                                        "(e.g. Microsoft-Windows-DotNETRuntime:0x1:4)");
        break;
    case LIVE_OPT_BUFFER_MB:
        if (!cli_parse_uint(value, 1, 1u << 20, &mb))
            return cli_usage_error(cmd, "--buffer-mb takes 1..1048576");
        o->watch.config.circular_buffer_mb = (uint32_t)mb;
        break;
    case LIVE_OPT_DURATION:
        if (!parse_positive(value, &o->watch.duration_s))
            return cli_usage_error(cmd, "--duration takes a positive number");
        break;
    case LIVE_OPT_STOP_ON_PAUSE:
        if (!parse_positive(value, &o->watch.stop_on_pause_ms))
            return cli_usage_error(cmd, "--stop-on-pause-ms takes a positive number");
        break;
    default:
        assert(!"not a common option");
    }
    return CLI_OK;
}

int live_apply_filter(live_opts *o, const cli_command *cmd, int id, const char *value)
{
    if (cli_gc_filter_apply(cmd, id, value, &o->filter) != CLI_OK)
        return CLI_USAGE;
    o->filtered = true;
    const cli_option *opt = cli_gc_filter_options;
    while (opt->id != id)
        opt++;
    size_t len = strlen(o->filter_words);
    if (len < sizeof o->filter_words)
        snprintf(o->filter_words + len, sizeof o->filter_words - len, "%s--%s%s%s",
                 len ? " " : "", opt->name, value ? " " : "", value ? value : "");
    return CLI_OK;
}

/* ---- GC rows: the watch's settled GCs ---- */

/* Rows printed per runtime (--limit counts per runtime, as in stats). */
enum { MAX_ROW_RUNTIMES = 64 };
typedef struct runtime_rows {
    uint32_t pid;
    uint16_t clr_instance_id;
    size_t printed;
} runtime_rows;

typedef struct gc_rows {
    FILE *out; /* stdout, or stderr when the stream goes to stdout */
    bool print_rows, header_printed;
    const gcs_gc_filter *filter; /* NULL: every GC gets a row */
    uint64_t rows;     /* GCs seen */
    uint64_t printed;  /* rows printed (the filter's) */
    uint64_t count[3]; /* GCs by generation (the summary without an analysis) */
    runtime_rows runtime[MAX_ROW_RUNTIMES];
    size_t n_runtimes;
} gc_rows;

/* The row count of gc's runtime (the last slot when there are too many). */
static size_t *printed_of(gc_rows *w, const gcs_gc_settled *gc)
{
    for (size_t i = 0; i < w->n_runtimes; i++)
        if (w->runtime[i].pid == gc->pid && w->runtime[i].clr_instance_id == gc->clr_instance_id)
            return &w->runtime[i].printed;
    if (w->n_runtimes == MAX_ROW_RUNTIMES)
        return &w->runtime[MAX_ROW_RUNTIMES - 1].printed;
    runtime_rows *r = &w->runtime[w->n_runtimes++];
    r->pid = gc->pid;
    r->clr_instance_id = gc->clr_instance_id;
    r->printed = 0;
    return &r->printed;
}

/* Whether the filter gives gc a row (counted against --limit if so). */
static bool row_selected(gc_rows *w, const gcs_gc_settled *gc)
{
    if (!w->filter)
        return true;
    if (!gcs_gc_filter_match(w->filter, &gc->info))
        return false;
    size_t *printed = printed_of(w, gc);
    if (w->filter->limit && *printed >= w->filter->limit)
        return false;
    (*printed)++;
    return true;
}

/* A time column: 3 decimals, "-" when unknown (as the stats table). */
static const char *ms_text(char *buf, size_t cap, double v)
{
    if (!isfinite(v))
        snprintf(buf, cap, "-");
    else
        snprintf(buf, cap, "%.3f", v);
    return buf;
}

/* The leading columns of `gcscope stats`' per-GC table (same widths and
 * names), plus Duration, from the analyzer's final values of the GC. */
static void print_row(gc_rows *w, const gcs_gc_settled *gc)
{
    const gcs_gc_info *g = &gc->info;
    w->rows++;
    w->count[g->generation < 2 ? g->generation : 2]++;
    if (!w->print_rows || !row_selected(w, gc))
        return;
    w->printed++;
    if (!w->header_printed) {
        fprintf(w->out, "  %6s %12s %-16s %-5s %9s %9s %9s\n", "GC#", "PauseStart", "Reason", "Gen",
               "Suspend", "Pause", "Duration");
        w->header_printed = true;
    }
    char gen[24], rb[16], c[4][32];
    snprintf(gen, sizeof gen, "%u%s%s", g->generation,
             g->type == GCS_GC_BACKGROUND ? "B" : g->type == GCS_GC_FOREGROUND ? "F" : "N",
             g->reason == 1 ? "I" : g->reason == 7 ? "i" : "");
    const char *reason = gcs_gc_reason_name(g->reason);
    if (!reason) {
        snprintf(rb, sizeof rb, "%u", g->reason);
        reason = rb;
    }
    fprintf(w->out, "  %6d %12s %-16s %-5s %9s %9s %9s", g->number, ms_text(c[0], 32, g->pause_start_ms),
           reason, gen, ms_text(c[1], 32, g->suspend_ms), ms_text(c[2], 32, g->pause_ms),
           ms_text(c[3], 32, g->duration_ms));
    if (!g->is_complete)
        fprintf(w->out, "  INCOMPLETE: %s", gcs_gc_incomplete_name(g->incomplete_reason));
    fputc('\n', w->out);
    fflush(w->out);
}

/* GCs seen by generation (0, 1, 2), and in all: the analysis' when there
 * is one, else the rows'. */
static uint64_t count_gcs(const gc_rows *w, const gcs_gc_analyzer *an, uint64_t count[3])
{
    uint64_t total = 0;
    count[0] = count[1] = count[2] = 0;
    if (an) {
        for (size_t i = 0; i < gcs_gc_process_count(an); i++) {
            const gcs_gc_process *p = gcs_gc_process_at(an, i);
            gcs_gc_info gcs[64]; /* in memory or spilled: read alike */
            size_t n;
            for (size_t k = 0; (n = gcs_gc_process_gcs(an, p, k, gcs, 64)) > 0; k += n) {
                for (size_t j = 0; j < n; j++)
                    count[gcs[j].generation < 2 ? gcs[j].generation : 2]++;
                total += n;
            }
        }
    } else {
        for (int g = 0; g < 3; g++)
            count[g] = w->count[g];
        total = w->rows;
    }
    return total;
}

/* The GC analysis of everything seen: the `gcscope stats` table without
 * its per-GC list (the rows were printed as they came): header, rollups,
 * percentiles, histogram, problems; then one line of counts. */
static void print_summary(const gc_rows *w, const gcs_gc_analyzer *an, const char *name)
{
    uint64_t count[3];
    uint64_t total = count_gcs(w, an, count);
    if (an) {
        fputc('\n', w->out);
        gcs_gc_report_options ro;
        memset(&ro, 0, sizeof ro);
        ro.format = GCS_GC_FORMAT_TABLE;
        ro.trace_name = name;
        ro.summary_only = true;
        gcs_gc_report_write(w->out, an, &ro);
    }
    fprintf(w->out, "gcs total=%" PRIu64 " gen0=%" PRIu64 " gen1=%" PRIu64 " gen2=%" PRIu64 "\n", total,
           count[0], count[1], count[2]);
    fflush(w->out);
}

/* How the watch ended, one line each (stderr). */
static void print_ending(const live_opts *o, const gcs_watch_outcome *out)
{
    if (out->stop_reason[0])
        fprintf(stderr, "gcscope %s: stopped: %s\n", o->cmd, out->stop_reason);
    else if (out->process_exited)
        fprintf(stderr, "gcscope %s: the process exited\n", o->cmd);
    else if (out->runtime_ended)
        fprintf(stderr, "gcscope %s: the runtime ended the stream\n", o->cmd);
    if (out->stop_error[0])
        fprintf(stderr, "gcscope %s: stopping: %s\n", o->cmd, out->stop_error);
    if (out->drain_abandoned)
        fprintf(stderr, "gcscope %s: interrupted again: not waiting for the end of the stream\n",
                o->cmd);
    else if (out->drain_timeout)
        fprintf(stderr, "gcscope %s: the runtime did not end the stream within 15 s\n", o->cmd);
    if (out->cut)
        fprintf(stderr, "gcscope %s: the stream ended without its end marker (the runtime "
                        "stopped abruptly)\n",
                o->cmd);
}

/* What happened to the saved file, on one line ended by `tail` (the
 * record summary, or ""); false if it could not be finished. */
static bool print_saved(const live_opts *o, const gcs_watch_outcome *out, FILE *f,
                        const char *tail)
{
    const gcs_tee_result *tr = &out->save;
    if (!out->saved) {
        fprintf(stderr, "gcscope %s: %s\n", o->cmd, out->save_error);
        return false;
    }
    const char *path = strcmp(o->watch.out_path, "-") ? o->watch.out_path : "to stdout";
    if (tr->repaired && tr->bytes_kept - 1 == tr->bytes_received)
        fprintf(f, "saved %s: %" PRIu64 " bytes, %" PRIu64
                   " whole blocks; the stream stopped between blocks: end marker added%s\n",
                path, tr->bytes_kept, tr->objects, tail);
    else if (tr->repaired)
        fprintf(f, "saved %s: %" PRIu64 " bytes, %" PRIu64 " whole blocks; cut to the last whole block (%" PRIu64
                   " of %" PRIu64 " bytes received) and end marker added%s\n",
                path, tr->bytes_kept, tr->objects, tr->bytes_kept - 1, tr->bytes_received, tail);
    else
        fprintf(f, "saved %s: %" PRIu64 " bytes%s%s\n", path, tr->bytes_kept,
                tr->framing_known ? ", complete" : " (framing not checked)", tail);
    return true;
}

int live_run(const live_opts *o)
{
    stop_signal = 0;
    signal_count = 0;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal; /* no SA_RESTART: a signal ends the watch's wait */
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);

    gcs_error err;
    gcs_error_clear(&err);
    /* -o -: the tee writes to the standard output (a pipe or a file). */
    gcs_watch_options wo = o->watch;
    if (wo.out_path && !strcmp(wo.out_path, "-"))
        wo.out_path = "/dev/stdout";
    /* A session of any length in bounded memory, the HTML report too (it
     * reads the GCs back from the spill file, a pass at a time). */
    wo.spill_gcs = true;
    gcs_watch *w = gcs_watch_start(&wo, &err);
    if (!w) {
        fprintf(stderr, "gcscope %s: %s\n", o->cmd, err.reason);
        signal(SIGINT, SIG_DFL);
        signal(SIGTERM, SIG_DFL);
        return 2;
    }
    if (o->watch.socket_path)
        fprintf(stderr, "gcscope %s: attached to %s, session %" PRIu64 "\n", o->cmd,
                o->watch.socket_path, gcs_watch_session_id(w));
    else if (!o->watch.replay_path)
        fprintf(stderr, "gcscope %s: attached to pid %u, session %" PRIu64 "\n", o->cmd,
                (unsigned)o->watch.pid, gcs_watch_session_id(w));
    const gcs_watch_outcome *outcome = gcs_watch_get_outcome(w);
    if (outcome->analysis_error[0]) /* the reader refused the stream; saving goes on */
        fprintf(stderr, "gcscope %s: %s\n", o->cmd, outcome->analysis_error);

    gc_rows rows;
    memset(&rows, 0, sizeof rows);
    rows.out = o->watch.out_path && !strcmp(o->watch.out_path, "-") ? stderr : stdout;
    rows.print_rows = o->print_rows;
    rows.filter = o->filtered ? &o->filter : NULL;
    int signals_seen = 0;
    for (;;) {
        if (signal_count > signals_seen) {
            signals_seen = signal_count;
            gcs_watch_stop(w, stop_signal == SIGINT ? "interrupted" : "terminated");
        }
        gcs_gc_settled gc;
        gcs_status st = gcs_watch_next(w, &gc, &err);
        if (st == GCS_OK)
            print_row(&rows, &gc);
        else if (st == GCS_END)
            break;
        else if (st < 0)
            fprintf(stderr, "gcscope %s: %s%s\n", o->cmd, err.reason,
                    o->watch.out_path ? " (still saving the stream)" : "");
    }
    fflush(stdout);
    print_ending(o, outcome);

    char name[300];
    if (o->watch.replay_path) {
        const char *base = strrchr(o->watch.replay_path, '/');
        snprintf(name, sizeof name, "%s", base ? base + 1 : o->watch.replay_path);
    } else if (o->watch.socket_path) {
        snprintf(name, sizeof name, "live session on %s", o->watch.socket_path);
    } else {
        snprintf(name, sizeof name, "live session on pid %u", (unsigned)o->watch.pid);
    }
    if (!o->one_line)
        print_summary(&rows, gcs_watch_analyzer(w), name);
    bool report_failed = false;
    if (o->report_path && gcs_watch_analyzer(w)) {
        gcs_gc_html_options ho;
        memset(&ho, 0, sizeof ho);
        ho.trace_name = name;
        ho.finalized = gcs_watch_finalized(w);
        char who[32];
        snprintf(who, sizeof who, "gcscope %s", o->cmd);
        /* Who allocates, as `report` has it: the replayed or saved stream
         * read again with stacks, when it ended whole. */
        const char *file = o->watch.replay_path ? o->watch.replay_path
                           : o->watch.out_path && outcome->saved &&
                                   strcmp(o->watch.out_path, "-") != 0
                               ? o->watch.out_path
                               : NULL;
        gcs_allocs *al = NULL;
        if (file && outcome->ended_clean && !outcome->analysis_error[0]) {
            int arc;
            al = cli_allocs_read(who, file, NULL, NULL, NULL, &arc);
            ho.allocs = al;
        }
        report_failed = cli_write_html_report(who, gcs_watch_analyzer(w), o->report_path, &ho) != CLI_OK;
        gcs_allocs_free(al);
    }
    if (o->filtered && rows.print_rows) {
        /* The summary counts every GC; the rows were the filter's. */
        fprintf(rows.out, "rows filtered (%s): %" PRIu64 " of %" PRIu64 " GCs printed\n",
                o->filter_words, rows.printed, rows.rows);
        if (rows.printed == 0 && rows.rows > 0)
            fprintf(stderr, "gcscope %s: no GC matches the filter.\n", o->cmd);
        fflush(rows.out);
    }
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    double cpu = (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 +
                 (double)ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6;
    double elapsed = outcome->elapsed_s;
    const gcs_reader_stats *rs = &outcome->stream;
    if (!o->one_line)
        fprintf(stderr,
            "stream: %" PRIu64 " events, %" PRIu64 " lost, %" PRIu64 " bytes in %.1f s; "
            "gcscope cpu %.3f s (%.1f%%)\n",
            rs->events, rs->lost_events, rs->bytes_read, elapsed, cpu,
            elapsed > 0 ? 100.0 * cpu / elapsed : 0.0);
    /* record's one line: what a file holds, after what the save did. */
    char tail[200] = "", lost[40] = "";
    if (o->one_line) {
        uint64_t count[3];
        uint64_t total = count_gcs(&rows, gcs_watch_analyzer(w), count);
        if (rs->lost_events)
            snprintf(lost, sizeof lost, " (%" PRIu64 " lost)", rs->lost_events);
        snprintf(tail, sizeof tail,
                 "; %" PRIu64 " events%s, %" PRIu64 " GCs (gen0 %" PRIu64 ", gen1 %" PRIu64
                 ", gen2 %" PRIu64 "), %.1f s",
                 rs->events, lost, total, count[0], count[1], count[2], elapsed);
    }
    int rc = 0;
    if (o->watch.out_path && !print_saved(o, outcome, rows.out, tail))
        rc = 2;
    if (outcome->analysis_failed || report_failed)
        rc = 2;
    gcs_watch_free(w);
    signal(SIGINT, SIG_DFL);
    signal(SIGTERM, SIG_DFL);
    return rc;
}
