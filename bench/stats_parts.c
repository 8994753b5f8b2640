/*
 * bench/stats_parts.c - where `gcscope stats` spends what `info` does not:
 * the same trace read by the library in steps that each add one part of
 * the GC analysis, timed in interleaved rounds (each run a fresh process,
 * as the CLI's), best of each. The differences between the rows are the
 * parts' costs (docs/performance.md, twenty-fourth landing). A program
 * that prints figures, not a test.
 *
 *   make build/libgcscope.a
 *   cc -O2 -std=c11 -D_DEFAULT_SOURCE -Iinclude -o /tmp/stats_parts \
 *       bench/stats_parts.c build/libgcscope.a -lm -ldl -pthread
 *   taskset -c 0 /tmp/stats_parts TRACE [ROUNDS] [GCSCOPE]
 *
 * The steps (each includes the ones before it):
 *   scan     gcs_reader_scan: every event counted (what `info` reads)
 *   noticks  GC analysis' events but the allocation ticks sorted and
 *            delivered, the suspensions laid into the sorter's lane and
 *            handed out, to callbacks that do nothing; the ticks counted
 *            as `info` counts them
 *   sorted   the ticks laid into the lane and handed out too: the
 *            reader's whole share
 *   gcs      the delivered GC events and the suspension and restart taps
 *            fed to a spilling analyzer: decoding, the per-event state
 *            machine, and each GC settled (final values, rollups, spill)
 *            as the CLI's are
 *   ticks    the allocation ticks fed too: the whole analysis
 *   stats    with GCSCOPE (the CLI, default build/gcscope) `stats TRACE`
 *            to /dev/null: the analysis plus finalizer counts, process
 *            names and the report
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "gcscope.h"

enum step { STEP_SCAN, STEP_NOTICKS, STEP_SORTED, STEP_GCS, STEP_TICKS, STEP_STATS, STEPS };
static const char *const step_names[STEPS] = {"scan", "noticks", "sorted", "gcs", "ticks", "stats"};

/* The allocation tick's event id in the runtime's manifest. */
#define ALLOCATION_TICK_ID 10

static void tap_nothing(void *ctx, const gcs_tap_event *ev)
{
    (void)ctx;
    (void)ev;
}

/* The analyzer's tap for every tapped event but the ticks. */
static void tap_all_but_ticks(void *ctx, const gcs_tap_event *ev)
{
    if (ev->type->event_id != ALLOCATION_TICK_ID)
        gcs_gc_analyzer_tap(ctx, ev);
}

/* GC analysis' events and taps but the allocation ticks (STEP_NOTICKS). */
static bool wants_but_ticks(void *ctx, const gcs_event_type *t)
{
    return gcs_gc_wants(ctx, t) && t->event_id != ALLOCATION_TICK_ID;
}

static bool taps_but_ticks(void *ctx, const gcs_event_type *t)
{
    return gcs_gc_taps(ctx, t) && t->event_id != ALLOCATION_TICK_ID;
}

/* One step over the trace in this process; 0 on success. */
static int run_step(enum step step, const char *path)
{
    gcs_error err;
    gcs_error_clear(&err);
    gcs_source *src = gcs_source_open_file(path, &err);
    if (!src)
        return 1;
    gcs_gc_options go = {.spill_gcs = true};
    gcs_gc_analyzer *an = gcs_gc_analyzer_new(&go, &err);
    const bool ticks = step != STEP_NOTICKS;
    gcs_reader_options opts = {.want = ticks ? gcs_gc_wants : wants_but_ticks,
                               .tap = ticks ? gcs_gc_taps : taps_but_ticks,
                               .tap_ctx = an};
    opts.on_tap = step == STEP_TICKS ? gcs_gc_analyzer_tap
                  : step == STEP_GCS ? tap_all_but_ticks
                                     : tap_nothing;
    gcs_reader *r = gcs_reader_new(src, step == STEP_SCAN ? NULL : &opts, &err);
    if (!r || !an)
        return 1;
    gcs_status st;
    if (step == STEP_SCAN) {
        st = gcs_reader_scan(r, &err);
    } else {
        const gcs_event *ev;
        while ((st = gcs_reader_next(r, &ev, &err)) == GCS_OK)
            if (step >= STEP_GCS)
                (void)gcs_gc_analyzer_feed(an, ev);
    }
    gcs_gc_analyzer_finish(an);
    gcs_reader_free(r);
    gcs_source_free(src);
    gcs_gc_analyzer_free(an);
    return st == GCS_END ? 0 : 1;
}

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* One step in a fresh process; its wall time in seconds, or -1. */
static double time_step(enum step step, const char *path, const char *gcscope)
{
    double t0 = now_s();
    pid_t pid = fork();
    if (pid < 0)
        return -1;
    if (pid == 0) {
        if (step == STEP_STATS) {
            if (!freopen("/dev/null", "w", stdout))
                _exit(1);
            execl(gcscope, gcscope, "stats", path, (char *)NULL);
            _exit(1);
        }
        _exit(run_step(step, path));
    }
    int status;
    if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
        return -1;
    return now_s() - t0;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: stats_parts TRACE [ROUNDS] [GCSCOPE]\n");
        return 2;
    }
    const char *path = argv[1];
    int rounds = argc > 2 ? atoi(argv[2]) : 7;
    const char *gcscope = argc > 3 ? argv[3] : "build/gcscope";
    double best[STEPS];
    for (int s = 0; s < STEPS; s++)
        best[s] = -1;
    for (int round = 0; round < rounds; round++)
        for (int s = 0; s < STEPS; s++) {
            double t = time_step((enum step)s, path, gcscope);
            if (t < 0) {
                fprintf(stderr, "stats_parts: step %s failed on %s\n", step_names[s], path);
                return 1;
            }
            if (best[s] < 0 || t < best[s])
                best[s] = t;
        }
    printf("%s, best of %d interleaved rounds:\n", path, rounds);
    for (int s = 0; s < STEPS; s++)
        printf("  %-7s %8.1f ms  %+7.1f ms\n", step_names[s], best[s] * 1e3,
               s ? (best[s] - best[s - 1]) * 1e3 : 0.0);
    return 0;
}
