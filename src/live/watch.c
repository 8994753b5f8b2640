/*
 * live/watch.c - a watch session (gcs_watch_*): attach to a process (or
 * replay a saved stream), read its stream with the ordinary reader, feed
 * the GC analyzer, hand out each GC once its numbers are final
 * (gcs_gc_analyzer_next_settled), stop cleanly (StopTracing, drain to the
 * end marker) on request, after a duration, on a long pause, or when the
 * process exits, and save the stream on the way (tee). Prints nothing:
 * `gcscope live` and `gcscope record` print what it hands out.
 */
#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "base/error.h"
#include "gcscope/finalized.h"
#include "gcscope/gc.h"
#include "gcscope/live.h"
#include "gcscope/reader.h"

/* How long to wait for the runtime to end the stream after StopTracing. */
#define DRAIN_TIMEOUT_S 15.0
#define POLL_MS 100
/* Idle this long (several of the runtime's 100 ms flush periods): release
 * what the reader still holds back for ordering, so the last GCs show. */
#define IDLE_RELEASE_S 0.5
/* Events read in one gcs_watch_next call before it returns GCS_AGAIN, so
 * the caller gets control back while a busy stream settles no GC. */
#define EVENTS_PER_CALL 4096
/* Bytes saved per pump once the analysis stopped. */
#define PUMP_BYTES 65536

struct gcs_watch {
    gcs_watch_options opts;
    gcs_session *session;
    gcs_source *file_src; /* replay */
    gcs_tee *tee;
    gcs_reader *reader;
    gcs_gc_analyzer *an;
    gcs_finalized *fz;    /* finalized objects by type (NULL: out of memory) */
    double started;
    bool analyzing;       /* reading events (else only saving, or over) */
    bool stop_sent, stop_answered, stop_again;
    bool quit;            /* stop reading now (nothing left to drain) */
    double stop_deadline;
    double idle_since;    /* when the source last started saying AGAIN, -1 */
    bool ended;           /* no more stream */
    bool finished;        /* analyzer finished, outcome complete */
    gcs_watch_outcome out;
};

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

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

static void watch_free_parts(gcs_watch *w)
{
    gcs_reader_free(w->reader);
    w->reader = NULL;
    if (w->tee) {
        gcs_error terr;
        gcs_error_clear(&terr);
        (void)gcs_tee_close(w->tee, NULL, &terr);
        w->tee = NULL;
    }
    if (w->session && !w->stop_sent)
        gcs_session_stop(w->session, NULL);
    gcs_session_free(w->session);
    w->session = NULL;
    gcs_source_free(w->file_src);
    w->file_src = NULL;
}

/* Saving without analysis is still a recording (a stream version the
 * reader does not know); a stream the reader cannot follow is a failure for
 * everything else, and for a pause stop, which needs the analysis. */
static bool analysis_fails(const gcs_watch *w, const gcs_error *why)
{
    return !(w->tee && why->status == GCS_ERR_UNSUPPORTED && w->opts.stop_on_pause_ms == 0);
}

gcs_watch *gcs_watch_start(const gcs_watch_options *opts, gcs_error *err)
{
    gcs_watch *w = calloc(1, sizeof *w);
    if (!w) {
        GCS_FAIL(err, GCS_ERR_NOMEM, 0, "out of memory for the watch");
        return NULL;
    }
    w->opts = *opts;
    w->idle_since = -1;
    w->started = now_s();
    gcs_source *src;
    if (opts->replay_path) {
        /* A saved stream, analyzed exactly as a live one. */
        w->file_src = gcs_source_open_file(opts->replay_path, err);
        if (!w->file_src)
            goto fail;
        src = w->file_src;
    } else {
        w->session = opts->socket_path ? gcs_session_start_at(opts->socket_path, &opts->config, err)
                                       : gcs_session_start(opts->pid, &opts->config, err);
        if (!w->session)
            goto fail;
        w->started = now_s();
        src = gcs_session_source(w->session);
    }
    if (opts->out_path) {
        w->tee = gcs_tee_open(src, opts->out_path, err);
        if (!w->tee)
            goto fail;
        src = gcs_tee_source(w->tee);
    }
    gcs_gc_options go = {.spill_gcs = opts->spill_gcs};
    w->an = gcs_gc_analyzer_new(&go, err);
    if (!w->an)
        goto fail;
    w->fz = gcs_finalized_new(); /* the report's table; the watch goes on without it */
    gcs_error rerr;
    gcs_error_clear(&rerr);
    w->reader = gcs_reader_new(src, NULL, &rerr);
    w->analyzing = w->reader != NULL;
    if (!w->reader) {
        if (!w->tee) {
            if (err)
                *err = rerr;
            goto fail;
        }
        /* Saving goes on: say so in the outcome. */
        snprintf(w->out.analysis_error, sizeof w->out.analysis_error,
                 "cannot analyze the stream: %s", rerr.reason);
        w->out.analysis_failed = analysis_fails(w, &rerr);
    }
    return w;
fail:
    watch_free_parts(w);
    gcs_gc_analyzer_free(w->an);
    gcs_finalized_free(w->fz);
    free(w);
    return NULL;
}

uint64_t gcs_watch_session_id(const gcs_watch *w) { return w->session ? gcs_session_id(w->session) : 0; }

/* Sends StopTracing once (a replay just stops reading at the end). */
static void send_stop(gcs_watch *w, const char *reason)
{
    if (w->stop_sent)
        return;
    if (reason && !w->out.stop_reason[0])
        snprintf(w->out.stop_reason, sizeof w->out.stop_reason, "%s", reason);
    gcs_error serr;
    gcs_error_clear(&serr);
    if (w->session && gcs_session_stop(w->session, &serr) != GCS_OK)
        snprintf(w->out.stop_error, sizeof w->out.stop_error, "%s", serr.reason);
    w->stop_sent = true;
    w->stop_deadline = now_s() + DRAIN_TIMEOUT_S;
}

void gcs_watch_stop(gcs_watch *w, const char *reason)
{
    if (w->stop_sent)
        w->stop_again = true; /* stop waiting for the end of the stream */
    else
        send_stop(w, reason);
}

/* The stop conditions the watch checks itself. */
static void check_conditions(gcs_watch *w)
{
    if (w->stop_sent)
        return;
    if (w->opts.duration_s > 0 && now_s() - w->started >= w->opts.duration_s)
        send_stop(w, "duration reached");
}

/* The next GC the analyzer settled; the first pausing longer than
 * stop_on_pause_ms stops the session. */
static bool take_settled(gcs_watch *w, gcs_gc_settled *gc)
{
    if (!w->an || !gcs_gc_analyzer_next_settled(w->an, gc))
        return false;
    double limit = w->opts.stop_on_pause_ms;
    if (limit > 0 && !w->out.pause_stop && gc->info.pause_ms > limit) {
        w->out.pause_stop = true;
        w->out.pause_gc = gc->info.number;
        w->out.pause_ms = gc->info.pause_ms;
        char reason[160];
        snprintf(reason, sizeof reason, "GC #%d paused %.3f ms > %.3f ms", (int)gc->info.number,
                 gc->info.pause_ms, limit);
        send_stop(w, reason);
    }
    return true;
}

/* The stream is over: finish the analysis, close the file, say how. */
static void finish(gcs_watch *w)
{
    w->finished = true;
    w->out.process_exited = w->session && !w->stop_sent && !w->opts.socket_path &&
                            process_exited(w->opts.pid);
    w->out.runtime_ended = w->ended && !w->stop_sent && w->session && !w->out.process_exited;
    const gcs_reader_stats *rs = w->reader ? gcs_reader_get_stats(w->reader) : NULL;
    if (rs)
        w->out.stream = *rs;
    if (w->an) {
        gcs_gc_analyzer_set_lost_events(w->an, rs ? rs->lost_events : 0);
        gcs_gc_analyzer_finish(w->an);
    }
    if (w->fz && gcs_finalized_finish(w->fz) != GCS_OK) {
        gcs_finalized_free(w->fz);
        w->fz = NULL;
    }
    if (w->tee) {
        gcs_error terr;
        gcs_error_clear(&terr);
        w->out.saved = gcs_tee_close(w->tee, &w->out.save, &terr) == GCS_OK;
        if (!w->out.saved)
            snprintf(w->out.save_error, sizeof w->out.save_error, "%s", terr.reason);
        w->tee = NULL;
    }
    w->out.elapsed_s = now_s() - w->started;
}

/* One step of reading: GCS_OK (an event went to the analyzer, or bytes
 * were saved), GCS_AGAIN (no data), GCS_END (the stream is over), or an
 * error of the analysis (reported once; saving may go on). */
static gcs_status step(gcs_watch *w, gcs_error *err)
{
    if (!w->analyzing) {
        if (!w->tee)
            return GCS_END;
        size_t got = 0;
        gcs_status st = gcs_tee_pump(w->tee, PUMP_BYTES, &got);
        if (st < 0)
            return GCS_END;
        return st;
    }
    const gcs_event *ev;
    gcs_error rerr;
    gcs_error_clear(&rerr);
    gcs_status st = gcs_reader_next(w->reader, &ev, &rerr);
    if (st == GCS_AGAIN) {
        double t = now_s();
        if (w->idle_since < 0) {
            w->idle_since = t;
        } else if (t - w->idle_since >= IDLE_RELEASE_S) {
            gcs_reader_release_pending(w->reader);
            w->idle_since = t;
            return GCS_OK; /* deliver what was released */
        }
        return GCS_AGAIN;
    }
    w->idle_since = -1;
    if (st == GCS_OK) {
        if (w->an && gcs_gc_analyzer_feed(w->an, ev) < 0) {
            gcs_gc_analyzer_free(w->an);
            w->an = NULL;
            snprintf(w->out.analysis_error, sizeof w->out.analysis_error,
                     "the GC analysis stopped (out of memory or beyond its limit)");
            GCS_FAIL(err, GCS_ERR_LIMIT, 0, "%s", w->out.analysis_error);
            return GCS_ERR_LIMIT;
        }
        if (w->fz && gcs_finalized_feed(w->fz, ev) != GCS_OK) {
            gcs_finalized_free(w->fz); /* no table rather than a wrong one */
            w->fz = NULL;
        }
        return GCS_OK;
    }
    if (st == GCS_END) {
        w->out.ended_clean = true;
        return GCS_END;
    }
    if (st == GCS_ERR_TRUNCATED) {
        w->out.cut = true; /* the stream stopped inside a unit */
        return GCS_END;
    }
    /* The reader cannot go on: bad data or a version it does not know. */
    w->analyzing = false;
    snprintf(w->out.analysis_error, sizeof w->out.analysis_error,
             "analysis stopped at byte %" PRIu64 ": %s", rerr.offset, rerr.reason);
    w->out.analysis_failed = analysis_fails(w, &rerr);
    if (!w->tee) {
        send_stop(w, NULL);
        w->quit = true; /* nothing left to read */
    }
    if (err)
        *err = rerr;
    return st;
}

gcs_status gcs_watch_next(gcs_watch *w, gcs_gc_settled *gc, gcs_error *err)
{
    if (take_settled(w, gc))
        return GCS_OK;
    if (w->finished)
        return GCS_END;
    for (int n = 0; !w->ended && n < EVENTS_PER_CALL; n++) {
        if ((n & 255) == 0)
            check_conditions(w);
        if (w->quit)
            break;
        if (w->stop_again) {
            w->out.drain_abandoned = true;
            break;
        }
        gcs_status st = step(w, err);
        if (st == GCS_OK) {
            if (take_settled(w, gc))
                return GCS_OK;
            continue;
        }
        if (st == GCS_END) {
            w->ended = true;
            break;
        }
        if (st < 0)
            return st;
        /* GCS_AGAIN: wait for data, a stop answer or a deadline. */
        if (w->stop_sent && w->session && !w->stop_answered) {
            gcs_error serr;
            gcs_error_clear(&serr);
            gcs_status sst = gcs_session_stop_result(w->session, &serr);
            if (sst != GCS_AGAIN) {
                w->stop_answered = true;
                if (sst < 0 && !w->out.stop_error[0])
                    snprintf(w->out.stop_error, sizeof w->out.stop_error, "%s", serr.reason);
            }
        }
        if (w->stop_sent && now_s() > w->stop_deadline) {
            w->out.drain_timeout = true;
            break;
        }
        if (w->session) {
            struct pollfd pfd = {gcs_session_fd(w->session), POLLIN, 0};
            (void)poll(&pfd, 1, POLL_MS); /* a signal ends it early: fine */
        }
        check_conditions(w);
        return GCS_AGAIN;
    }
    if (!w->ended && !w->quit && !w->out.drain_timeout && !w->out.drain_abandoned)
        return GCS_AGAIN; /* busy: give the caller a turn */
    finish(w);
    return take_settled(w, gc) ? GCS_OK : GCS_END;
}

const gcs_watch_outcome *gcs_watch_get_outcome(const gcs_watch *w) { return &w->out; }

const gcs_gc_analyzer *gcs_watch_analyzer(const gcs_watch *w)
{
    return w->finished ? w->an : NULL;
}

const gcs_finalized *gcs_watch_finalized(const gcs_watch *w)
{
    return w->finished && w->an ? w->fz : NULL;
}

void gcs_watch_free(gcs_watch *w)
{
    if (!w)
        return;
    watch_free_parts(w);
    gcs_gc_analyzer_free(w->an);
    gcs_finalized_free(w->fz);
    free(w);
}
