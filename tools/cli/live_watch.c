/*
 * tools/cli/live_watch.c - attach to a process, stream its GC events
 * through the same reader as files, print each GC as it completes, stop
 * cleanly (StopTracing, drain, summary) on Ctrl-C, SIGTERM, --duration,
 * --stop-on-pause-ms or when the process exits.
 *
 * GC rows are the GC analyzer's GCs, handed out as they settle
 * (gcs_gc_analyzer_next_settled): the values `gcscope stats` prints.
 */
#include "live_watch.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

/* How long to wait for the runtime to end the stream after StopTracing. */
#define DRAIN_TIMEOUT_MS 15000
#define POLL_MS 100
/* Idle this long (several of the runtime's 100 ms flush periods): release
 * what the reader still holds back for ordering, so the last GCs show. */
#define IDLE_RELEASE_S 0.5

const char live_common_usage[] =
    "  --duration SECONDS     stop after SECONDS\n"
    "  --alloc-ticks          also collect GC/AllocationTick (runtime level 5)\n"
    "  --rundown              ask for rundown events at the end (method names)\n"
    "  --buffer-mb N          runtime-side session buffer (default 256)\n"
    "  --providers SPEC       replace the providers: Name:Keywords:Level[,...]\n"
    "  --socket PATH          use this diagnostic socket instead of finding PID's\n";

static volatile sig_atomic_t stop_signal, signal_count;

/* The first Ctrl-C/SIGTERM stops the session cleanly; a second one stops
 * waiting for the runtime to end the stream. */
static void on_signal(int sig)
{
    stop_signal = sig;
    if (signal_count < 2)
        signal_count++;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
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

int live_parse_common(live_opts *o, int argc, char **argv, int *i)
{
    const char *a = argv[*i];
    bool has_value = *i + 1 < argc;
    char *end;
    if (!strcmp(a, "--alloc-ticks")) {
        /* GC/AllocationTick is the runtime provider's GC keyword at level 5. */
        for (size_t k = 0; k < o->config.provider_count; k++)
            if (!strcmp(o->config.providers[k].name, "Microsoft-Windows-DotNETRuntime"))
                o->config.providers[k].level = 5;
        return 1;
    }
    if (!strcmp(a, "--rundown")) {
        o->config.request_rundown = true;
        return 1;
    }
    if (!strcmp(a, "--duration") || !strcmp(a, "--buffer-mb") || !strcmp(a, "--providers") ||
        !strcmp(a, "--socket") || !strcmp(a, "--stop-on-pause-ms")) {
        if (!has_value) {
            fprintf(stderr, "gcscope %s: %s needs a value\n", o->cmd, a);
            return -1;
        }
        const char *v = argv[++*i];
        if (!strcmp(a, "--socket")) {
            o->socket_path = v;
        } else if (!strcmp(a, "--providers")) {
            if (!parse_providers(&o->config, v)) {
                fprintf(stderr,
                        "gcscope %s: --providers takes Name:Keywords:Level[,...] "
                        "(e.g. Microsoft-Windows-DotNETRuntime:0x1:4)\n",
                        o->cmd);
                return -1;
            }
        } else if (!strcmp(a, "--buffer-mb")) {
            unsigned long mb = strtoul(v, &end, 10);
            if (*end || !*v || v[0] == '-' || mb == 0 || mb > 1u << 20) {
                fprintf(stderr, "gcscope %s: --buffer-mb takes 1..1048576\n", o->cmd);
                return -1;
            }
            o->config.circular_buffer_mb = (uint32_t)mb;
        } else {
            double x = strtod(v, &end);
            if (*end || !*v || !(x > 0) || x > 1e9) {
                fprintf(stderr, "gcscope %s: %s takes a positive number\n", o->cmd, a);
                return -1;
            }
            if (!strcmp(a, "--duration"))
                o->duration_s = x;
            else
                o->stop_on_pause_ms = x;
        }
        return 1;
    }
    return 0;
}

/* ---- GC rows: the GC analyzer's settled GCs ---- */

typedef struct gc_watch {
    bool print_rows, header_printed;
    uint64_t rows;
    /* --stop-on-pause-ms */
    double threshold_ms;
    bool triggered;
    int32_t trigger_gc;
    double trigger_pause;
    uint64_t count[3]; /* rows by generation (the summary without an analysis) */
} gc_watch;

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
static void print_row(gc_watch *w, const gcs_gc_info *g)
{
    if (!w->print_rows)
        return;
    if (!w->header_printed) {
        printf("  %6s %12s %-16s %-5s %9s %9s %9s\n", "GC#", "PauseStart", "Reason", "Gen",
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
    printf("  %6d %12s %-16s %-5s %9s %9s %9s", g->number, ms_text(c[0], 32, g->pause_start_ms),
           reason, gen, ms_text(c[1], 32, g->suspend_ms), ms_text(c[2], 32, g->pause_ms),
           ms_text(c[3], 32, g->duration_ms));
    if (!g->is_complete)
        printf("  INCOMPLETE: %s", gcs_gc_incomplete_name(g->incomplete_reason));
    printf("\n");
    fflush(stdout);
}

/* Prints the GCs the analyzer has settled; the first whose pause exceeds
 * --stop-on-pause-ms triggers the stop. */
static void take_settled(gc_watch *w, gcs_gc_analyzer *an)
{
    gcs_gc_settled s;
    while (an && gcs_gc_analyzer_next_settled(an, &s)) {
        w->rows++;
        w->count[s.info.generation < 2 ? s.info.generation : 2]++;
        print_row(w, &s.info);
        if (w->threshold_ms > 0 && !w->triggered && s.info.pause_ms > w->threshold_ms) {
            w->triggered = true;
            w->trigger_gc = s.info.number;
            w->trigger_pause = s.info.pause_ms;
        }
    }
}

/* The GC analysis of everything seen (the `gcscope stats` table: header,
 * rollups, percentiles, histogram, every GC), then one line of counts. */
static void print_summary(const gc_watch *w, gcs_gc_analyzer *an, const char *name)
{
    uint64_t count[3] = {0, 0, 0}, total = 0;
    if (an) {
        printf("\n");
        gcs_gc_report_options ro;
        memset(&ro, 0, sizeof ro);
        ro.format = GCS_GC_FORMAT_TABLE;
        ro.trace_name = name;
        gcs_gc_report_write(stdout, an, &ro);
        for (size_t i = 0; i < gcs_gc_process_count(an); i++) {
            const gcs_gc_process *p = gcs_gc_process_at(an, i);
            for (size_t k = 0; k < p->gc_count; k++) {
                count[p->gcs[k].generation < 2 ? p->gcs[k].generation : 2]++;
                total++;
            }
        }
    } else {
        for (int g = 0; g < 3; g++)
            count[g] = w->count[g];
        total = w->rows;
    }
    printf("gcs total=%" PRIu64 " gen0=%" PRIu64 " gen1=%" PRIu64 " gen2=%" PRIu64 "\n", total,
           count[0], count[1], count[2]);
    fflush(stdout);
}

/* ---- the loop ---- */

/* Alive and not a zombie waiting to be reaped. */
static bool process_alive(uint32_t pid)
{
    if (pid == 0 || (kill((pid_t)pid, 0) != 0 && errno != EPERM))
        return false;
    char path[64], buf[512];
    snprintf(path, sizeof path, "/proc/%u/stat", (unsigned)pid);
    FILE *f = fopen(path, "r");
    if (!f)
        return true;
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = 0;
    const char *p = strrchr(buf, ')');
    return !(p && p[1] == ' ' && (p[2] == 'Z' || p[2] == 'X'));
}

/* After the stream ended on its own: did the process exit? It may take a
 * moment after its runtime closed the stream. */
static bool process_exited(uint32_t pid)
{
    for (int i = 0; i < 20; i++) {
        if (!process_alive(pid))
            return true;
        struct timespec ts = {0, 50 * 1000000L};
        nanosleep(&ts, NULL);
    }
    return false;
}

static void stop_and_free(gcs_session *session, gcs_source *file_src)
{
    if (session)
        gcs_session_stop(session, NULL);
    gcs_session_free(session);
    gcs_source_free(file_src);
}

int live_run(const live_opts *o)
{
    gcs_error err;
    gcs_error_clear(&err);
    stop_signal = 0;
    signal_count = 0;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);

    gcs_session *session = NULL;
    gcs_source *file_src = NULL, *src;
    double started = now_s();
    if (o->replay_path) {
        /* A saved stream, analyzed exactly as a live one. */
        file_src = gcs_source_open_file(o->replay_path, &err);
        if (!file_src) {
            fprintf(stderr, "gcscope %s: %s\n", o->cmd, err.reason);
            return 2;
        }
        src = file_src;
    } else {
        session = o->socket_path ? gcs_session_start_at(o->socket_path, &o->config, &err)
                                 : gcs_session_start(o->pid, &o->config, &err);
        if (!session) {
            fprintf(stderr, "gcscope %s: %s\n", o->cmd, err.reason);
            return 2;
        }
        started = now_s();
        if (o->socket_path)
            fprintf(stderr, "gcscope %s: attached to %s, session %" PRIu64 "\n", o->cmd,
                    o->socket_path, gcs_session_id(session));
        else
            fprintf(stderr, "gcscope %s: attached to pid %u, session %" PRIu64 "\n", o->cmd,
                    (unsigned)o->pid, gcs_session_id(session));
        src = gcs_session_source(session);
    }
    gcs_tee *tee = NULL;
    if (o->out_path) {
        tee = gcs_tee_open(src, o->out_path, &err);
        if (!tee) {
            fprintf(stderr, "gcscope %s: %s\n", o->cmd, err.reason);
            stop_and_free(session, file_src);
            return 2;
        }
        src = gcs_tee_source(tee);
    }
    gcs_reader *reader = gcs_reader_new(src, NULL, &err);
    bool analyzing = reader != NULL;
    if (!reader) {
        fprintf(stderr, "gcscope %s: cannot analyze the stream: %s\n", o->cmd, err.reason);
        if (!tee) {
            stop_and_free(session, file_src);
            return 2;
        }
    }

    gcs_gc_analyzer *an = gcs_gc_analyzer_new(NULL, &err);
    if (!an)
        fprintf(stderr, "gcscope %s: no GC analysis: %s\n", o->cmd, err.reason);
    gc_watch w;
    memset(&w, 0, sizeof w);
    w.print_rows = o->print_rows;
    w.threshold_ms = o->stop_on_pause_ms;

    bool stop_sent = false, stop_answered = false, ended = false, ended_clean = false, drain_timeout = false;
    bool analysis_failed = false, analysis_stopped = false;
    const char *stop_reason = NULL;
    char stop_text[160] = "";
    double stop_deadline = 0;
    const size_t raw = 65536;
    uint64_t steps = 0;
    int rc = 0;
    double idle_since = -1; /* when the source last started saying AGAIN */

    while (!ended) {
        /* Stop conditions: checked every 256 events and on every wait. */
        if (!stop_sent && (steps++ & 255) == 0) {
            if (stop_signal)
                stop_reason = stop_signal == SIGINT ? "interrupted" : "terminated";
            else if (o->duration_s > 0 && now_s() - started >= o->duration_s)
                stop_reason = "duration reached";
            else if (w.triggered) {
                snprintf(stop_text, sizeof stop_text, "GC #%d paused %.3f ms > %.3f ms",
                         w.trigger_gc, w.trigger_pause, w.threshold_ms);
                stop_reason = stop_text;
            }
            if (stop_reason) {
                gcs_error serr;
                gcs_error_clear(&serr);
                if (session && gcs_session_stop(session, &serr) != GCS_OK)
                    fprintf(stderr, "gcscope %s: stopping: %s\n", o->cmd, serr.reason);
                stop_sent = true;
                stop_deadline = now_s() + DRAIN_TIMEOUT_MS / 1000.0;
            }
        }
        gcs_status st;
        if (analyzing) {
            const gcs_event *ev;
            st = gcs_reader_next(reader, &ev, &err);
            if (st == GCS_AGAIN) {
                double t = now_s();
                if (idle_since < 0)
                    idle_since = t;
                else if (t - idle_since >= IDLE_RELEASE_S) {
                    gcs_reader_release_pending(reader);
                    idle_since = t;
                    continue; /* deliver what was released */
                }
            } else {
                idle_since = -1;
            }
            if (st == GCS_OK) {
                if (an && gcs_gc_analyzer_feed(an, ev) < 0) {
                    fprintf(stderr, "gcscope %s: the GC analysis stopped (out of memory or "
                                    "beyond its limit)\n",
                            o->cmd);
                    gcs_gc_analyzer_free(an);
                    an = NULL;
                }
                take_settled(&w, an);
                continue;
            }
            if (st < 0) {
                if (st == GCS_ERR_TRUNCATED) {
                    ended = true; /* the stream stopped inside a unit */
                    break;
                }
                fprintf(stderr, "gcscope %s: analysis stopped at byte %" PRIu64 ": %s%s\n",
                        o->cmd, err.offset, err.reason, tee ? " (still saving the stream)" : "");
                analyzing = false;
                analysis_stopped = true;
                /* Saving without analysis is still a recording; a stream the
                 * reader cannot follow is a failure for everything else. */
                analysis_failed = !(tee && err.status == GCS_ERR_UNSUPPORTED &&
                                    o->stop_on_pause_ms == 0);
                if (!tee) {
                    if (!stop_sent && session)
                        gcs_session_stop(session, NULL);
                    stop_sent = true;
                    break;
                }
                continue;
            }
        } else {
            size_t got = 0;
            st = gcs_tee_pump(tee, raw, &got);
            if (st == GCS_OK)
                continue;
            if (st < 0) {
                ended = true;
                break;
            }
        }
        if (st == GCS_END) {
            ended = true;
            ended_clean = analyzing;
            break;
        }
        /* GCS_AGAIN: wait for data, a signal or a deadline. */
        steps = 0;
        if (stop_sent && session && !stop_answered) {
            gcs_error serr;
            gcs_error_clear(&serr);
            gcs_status sst = gcs_session_stop_result(session, &serr);
            if (sst != GCS_AGAIN) {
                stop_answered = true;
                if (sst < 0)
                    fprintf(stderr, "gcscope %s: stopping: %s\n", o->cmd, serr.reason);
            }
        }
        if (stop_sent && (now_s() > stop_deadline || signal_count >= 2)) {
            drain_timeout = true;
            break;
        }
        if (session) {
            struct pollfd pfd = {gcs_session_fd(session), POLLIN, 0};
            (void)poll(&pfd, 1, POLL_MS);
        }
    }
    fflush(stdout);

    bool exited = session && !stop_sent && !o->socket_path && process_exited(o->pid);
    if (stop_reason)
        fprintf(stderr, "gcscope %s: stopped: %s\n", o->cmd, stop_reason);
    else if (exited)
        fprintf(stderr, "gcscope %s: the process exited\n", o->cmd);
    else if (ended && !stop_sent && session)
        fprintf(stderr, "gcscope %s: the runtime ended the stream\n", o->cmd);
    if (drain_timeout && signal_count >= 2)
        fprintf(stderr, "gcscope %s: interrupted again: not waiting for the end of the stream\n",
                o->cmd);
    else if (drain_timeout)
        fprintf(stderr, "gcscope %s: the runtime did not end the stream within %d s\n", o->cmd,
                DRAIN_TIMEOUT_MS / 1000);
    if (ended && !ended_clean && !analysis_stopped && reader)
        fprintf(stderr, "gcscope %s: the stream ended without its end marker (the runtime "
                        "stopped abruptly)\n",
                o->cmd);

    const gcs_reader_stats *rs = reader ? gcs_reader_get_stats(reader) : NULL;
    if (an) {
        gcs_gc_analyzer_set_lost_events(an, rs ? rs->lost_events : 0);
        gcs_gc_analyzer_finish(an);
        take_settled(&w, an); /* the GCs still open at the end */
    }
    char name[300];
    if (o->replay_path) {
        const char *base = strrchr(o->replay_path, '/');
        snprintf(name, sizeof name, "%s", base ? base + 1 : o->replay_path);
    } else if (o->socket_path) {
        snprintf(name, sizeof name, "live session on %s", o->socket_path);
    } else {
        snprintf(name, sizeof name, "live session on pid %u", (unsigned)o->pid);
    }
    print_summary(&w, an, name);
    gcs_gc_analyzer_free(an);
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    double cpu = (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 +
                 (double)ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6;
    double elapsed = now_s() - started;
    fprintf(stderr,
            "stream: %" PRIu64 " events, %" PRIu64 " lost, %" PRIu64 " bytes in %.1f s; "
            "gcscope cpu %.3f s (%.1f%%)\n",
            rs ? rs->events : 0, rs ? rs->lost_events : 0, rs ? rs->bytes_read : 0, elapsed, cpu,
            elapsed > 0 ? 100.0 * cpu / elapsed : 0.0);

    gcs_reader_free(reader);
    if (tee) {
        gcs_tee_result tr;
        gcs_error terr;
        gcs_error_clear(&terr);
        if (gcs_tee_close(tee, &tr, &terr) != GCS_OK) {
            fprintf(stderr, "gcscope %s: %s\n", o->cmd, terr.reason);
            rc = 2;
        } else if (tr.repaired && tr.bytes_kept - 1 == tr.bytes_received) {
            printf("saved %s: %" PRIu64 " bytes, %" PRIu64
                   " whole blocks; the stream stopped between blocks: end marker added\n",
                   o->out_path, tr.bytes_kept, tr.objects);
        } else if (tr.repaired) {
            printf("saved %s: %" PRIu64 " bytes, %" PRIu64
                   " whole blocks; cut to the last whole block (%" PRIu64
                   " of %" PRIu64 " bytes received) and end marker added\n",
                   o->out_path, tr.bytes_kept, tr.objects, tr.bytes_kept - 1, tr.bytes_received);
        } else {
            printf("saved %s: %" PRIu64 " bytes%s\n", o->out_path, tr.bytes_kept,
                   tr.framing_known ? ", complete" : " (framing not checked)");
        }
    }
    stop_and_free(session, file_src);
    if (analysis_failed && rc == 0)
        rc = 2;
    signal(SIGINT, SIG_DFL);
    signal(SIGTERM, SIG_DFL);
    return rc;
}
