/*
 * options.has_from_msec: a reader told to start at T delivers exactly the
 * events of a full read whose msec is at least T, in the same order, and
 * ends with the same counters, type counts and time span; with a `want`
 * filter and with taps as well (the tapped events pass the same test). On
 * every committed fixture and the shared traces (trace_list.h), at three
 * cuts: the first event, a third of the way, and past the last event; and
 * without a filter (where a nettrace V4/V5 container counts the rows
 * before the cut itself, each row's time compared with the cut's ticks) at
 * two more: an event's msec halfway, and between the msec of the event
 * two thirds of the way and the next later one.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "reader_digest.h"
#include "trace_list.h"

#include "gcscope.h"

typedef struct reading {
    digest d;     /* how it ended, the counters; events and hash: delivered and
                   * tapped ones at or after the cut, in order */
    double *msec; /* each delivered or tapped event's */
    size_t n_msec, cap_msec;
    uint64_t type_counts[64];
} reading;

static uint64_t mix(uint64_t h, uint64_t v)
{
    h ^= v + 0x9E3779B97F4A7C15ull + (h << 6) + (h >> 2);
    return h * 0xff51afd7ed558ccdull;
}

/* Counts an event of msec m and folds it into the hash when it is at or
 * after from (every event: from = -inf). */
static void note(reading *rd, const gcs_event_type *t, int64_t ts, uint32_t size, double m,
                 double from)
{
    if (rd->n_msec == rd->cap_msec) {
        rd->cap_msec = rd->cap_msec ? 2 * rd->cap_msec : 4096;
        rd->msec = realloc(rd->msec, rd->cap_msec * sizeof *rd->msec);
        CHECK(rd->msec != NULL);
    }
    rd->msec[rd->n_msec++] = m;
    if (!(m >= from))
        return;
    rd->d.events++;
    rd->d.hash = mix(mix(mix(rd->d.hash, t->index), (uint64_t)ts), size);
}

typedef struct tap_ctx {
    reading *rd;
    double from;
} tap_ctx;

static void on_tap(void *ctx, const gcs_tap_event *ev)
{
    tap_ctx *c = ctx;
    note(c->rd, ev->type, ev->timestamp, ev->payload_size, ev->msec, c->from);
}

/* Taps the GC analysis' types (allocation ticks, suspensions). */
static bool taps(void *ctx, const gcs_event_type *t)
{
    return gcs_gc_taps(ctx, t);
}

/* A read of the trace: from NAN, every event delivered and hashed; else
 * hashing only those at or after `from` (a full read's view of a cut), or,
 * with `cut`, the reader itself told to start there. */
static void read_trace(const uint8_t *data, size_t size, bool (*want)(void *, const gcs_event_type *),
                       bool tap, double from, bool cut, reading *rd)
{
    memset(rd, 0, sizeof *rd);
    gcs_error err;
    gcs_error_clear(&err);
    gcs_source *src = gcs_source_from_memory(data, size, &err);
    CHECK(src != NULL);
    tap_ctx tc = {rd, isnan(from) ? -INFINITY : from};
    gcs_reader_options opts = {.want = want};
    if (tap) {
        opts.tap = taps;
        opts.on_tap = on_tap;
        opts.tap_ctx = &tc;
    }
    if (cut) {
        opts.has_from_msec = true;
        opts.from_msec = from;
    }
    gcs_reader *r = gcs_reader_new(src, &opts, &err);
    CHECK(r != NULL);
    const gcs_event *ev;
    gcs_status st;
    while ((st = gcs_reader_next(r, &ev, &err)) == GCS_OK)
        note(rd, ev->type, ev->timestamp, ev->payload_size, ev->msec, tc.from);
    rd->d.status = st;
    if (st != GCS_END) {
        rd->d.err_offset = err.offset;
        snprintf(rd->d.reason, sizeof rd->d.reason, "%s", err.reason);
    }
    rd->d.stats = *gcs_reader_get_stats(r);
    const gcs_event_type *t;
    for (uint32_t i = 0; i < 64 && (t = gcs_reader_event_type(r, i)) != NULL; i++)
        rd->type_counts[i] = t->count;
    gcs_reader_free(r);
    gcs_source_free(src);
}

/* The same ending, counters (reader_digest.h's check_same) and type
 * counts; the same events from the cut on. */
static void check_cut(const char *what, const reading *full, const reading *cut)
{
    check_same(&full->d, &cut->d, what, "full read, cut read");
    for (int i = 0; i < 64; i++)
        CHECK_EQ_U64(full->type_counts[i], cut->type_counts[i]);
}

static bool want_gc(void *ctx, const gcs_event_type *t)
{
    return gcs_gc_wants(ctx, t);
}

/* Halfway between the msec of the event `at` of a full read and the next
 * later msec (the delivery's msec values come in order); half a ms after
 * it when none is later. */
static double halfway_to_next(const reading *all, size_t at)
{
    size_t next = at;
    while (next < all->n_msec && !(all->msec[next] > all->msec[at]))
        next++;
    return next < all->n_msec ? all->msec[at] + (all->msec[next] - all->msec[at]) / 2
                              : all->msec[at] + 0.5;
}

/* A full read of a trace and a read told to start at `from` (the filter
 * and taps given), compared by check_cut under the name `what`. Returns
 * whether the cut leaves events out. */
static bool compare_at_cut(const unsigned char *data, size_t size,
                           bool (*want)(void *, const gcs_event_type *), bool tap, double from,
                           const char *what)
{
    reading full, cut;
    read_trace(data, size, want, tap, from, false, &full);
    read_trace(data, size, want, tap, from, true, &cut);
    check_cut(what, &full, &cut);
    const bool left_out = full.d.events < full.n_msec;
    free(full.msec);
    free(cut.msec);
    return left_out;
}

/* The three cuts of one trace, in every mode; counts in *cut_some the
 * traces a third of the way leaves events out of. */
static void cut_one(size_t i, const unsigned char *data, size_t size, void *ctx)
{
    size_t *cut_some = ctx;
    /* Where to cut: from the full read's own msec values. */
    reading all;
    read_trace(data, size, NULL, false, NAN, false, &all);
    double cuts[5] = {-1.0, 0.0, 1e300, 0.5, 0.5};
    if (all.n_msec > 0) {
        cuts[0] = all.msec[0];
        cuts[1] = all.msec[all.n_msec / 3];
        cuts[2] = all.msec[all.n_msec - 1] + 1.0;
        cuts[3] = all.msec[all.n_msec / 2];
        cuts[4] = halfway_to_next(&all, 2 * all.n_msec / 3);
    }
    for (int k = 0; k < 5; k++) {
        /* Every event, the GC analysis' filter, and its taps too; at the
         * last two cuts every event only. */
        for (int mode = 0; mode < (k < 3 ? 3 : 1); mode++) {
            bool (*want)(void *, const gcs_event_type *) = mode == 0 ? NULL : want_gc;
            char what[512];
            snprintf(what, sizeof what, "%s, cut %d, mode %d", reader_traces[i], k, mode);
            const bool left_out = compare_at_cut(data, size, want, mode == 2, cuts[k], what);
            *cut_some += mode == 0 && k == 1 && left_out;
        }
    }
    free(all.msec);
}

static void test_from_delivers_the_full_reads_tail(void)
{
    size_t cut_some = 0;
    size_t read = reader_traces_each(cut_one, &cut_some);
    /* A third of the way in leaves events out of most traces. */
    CHECK(cut_some * 2 > read);
}

/* The runtime's own events (most of a trace's): with a cut, the
 * container counts them before it and the other types at any time. */
static bool want_runtime(void *ctx, const gcs_event_type *t)
{
    (void)ctx;
    return strcmp(t->provider, "Microsoft-Windows-DotNETRuntime") == 0;
}

/* Cuts spread over one committed trace (the reads whose rows before the
 * cut a nettrace V4/V5 container counts itself): at CUTS_PER_TRACE
 * events' msec and between each and the next later msec, so that cuts
 * fall inside the runs its counting loops take at once; every event read,
 * and the runtime's events only (the other types counted at any time) at
 * every other cut. */
#define CUTS_PER_TRACE 12

static void cut_many(size_t i, const unsigned char *data, size_t size, void *ctx)
{
    size_t *cuts_made = ctx;
    if (i >= READER_TRACES_COMMITTED)
        return;
    reading all;
    read_trace(data, size, NULL, false, NAN, false, &all);
    for (size_t k = 1; k <= CUTS_PER_TRACE && all.n_msec > 1; k++) {
        const size_t at = k * (all.n_msec - 1) / (CUTS_PER_TRACE + 1);
        const double cut[2] = {all.msec[at], halfway_to_next(&all, at)};
        for (int h = 0; h < 2; h++)
            for (int filtered = 0; filtered < (k % 2 ? 2 : 1); filtered++) {
                char what[512];
                snprintf(what, sizeof what, "%s, cut at %.6f ms%s", reader_traces[i], cut[h],
                         filtered ? ", the runtime's events" : "");
                compare_at_cut(data, size, filtered ? want_runtime : NULL, false, cut[h], what);
                *cuts_made += !filtered;
            }
    }
    free(all.msec);
}

static void test_cuts_inside_counted_runs(void)
{
    size_t cuts_made = 0;
    reader_traces_each(cut_many, &cuts_made);
    CHECK(cuts_made >= 2 * CUTS_PER_TRACE * (READER_TRACES_COMMITTED - 2));
}

int main(void)
{
    RUN(test_from_delivers_the_full_reads_tail);
    RUN(test_cuts_inside_counted_runs);
    return check_report("test_reader_from");
}
