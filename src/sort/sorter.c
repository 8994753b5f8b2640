/*
 * sort/sorter.c - buffering, ordering and releasing events; lost-event
 * accounting. See sorter.h for the guarantees this relies on.
 *
 * Events are appended to `recs` (headers) and `data` (payload bytes) in
 * arrival order. Arrival order is cut into runs of ascending timestamps
 * (a capture thread's events are in order in the file, so runs are long).
 * A release takes, from every run, the prefix older than the limit (all of
 * it after a sequence point, at the end or when the window is full; the
 * part strictly older than the IsSorted watermark otherwise: every event
 * after a flagged one in file order is at least as late) and merges those
 * prefixes with a heap, ties broken by arrival. Nothing is ever re-sorted.
 * Once the released events are consumed, the rest of each run moves to the
 * front of the buffers.
 */
#include "sort/sorter.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"

#define DEFAULT_WINDOW_BYTES ((size_t)64 << 20)
/* Released bytes are reclaimed (the rest moved to the front) only past this
 * and past twice the live bytes, so that each byte moves O(1) times. Small
 * enough that a sparse stream's store stays in cache (4 MiB before: the
 * same instructions, 6 MB more resident for `gcscope stats`); 1 MiB, not
 * 256 KiB: where a third of the events are delivered (the cpu shape's
 * AllocationTicks, ~1,400 pending at a release) 256 KiB moved 9 in 10
 * records and their payloads once; 1 MiB costs ~1.3 MB of peak RSS. */
/* Dead records (released before the first pending one) moved out at the
 * least (compact). */
#define COMPACT_MIN_RECORDS 4096u
#define COMPACT_MIN_GARBAGE ((size_t)1 << 20)
/* The record and tap row arrays start at GCS_BIG_BYTES: a mapping of
 * their own offered for a transparent huge page (gcs_big_resize), filled
 * at one page fault instead of one per 4 KiB (each ~15 us in a
 * paravirtualized guest: docs/performance.md, twenty-third landing). */
#define BIG_RECORDS (GCS_BIG_BYTES / sizeof(gcs_sorted_event))
#define LANE_ROWS (GCS_BIG_BYTES / sizeof(gcs_tap_row))
/* A watermark release happens once this many payload bytes arrived since
 * the last one. Small: events released in the step that brought them are
 * never copied. */
#define WATERMARK_RELEASE_BYTES ((size_t)16 << 10)
/* Threads tracked for sequence numbers; more are not checked (counted). */
#define MAX_TRACKED_THREADS ((size_t)1 << 20)

typedef gcs_sorter_run run;
typedef gcs_sorter_heap_item heap_item;
typedef gcs_sorter_thread thread_slot;

gcs_sorter *gcs_sorter_new(size_t window_bytes)
{
    gcs_sorter *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    s->window = window_bytes ? window_bytes : DEFAULT_WINDOW_BYTES;
    /* One block past the window may arrive before the release. */
    /* Live bytes stay under the window plus one unit (settle releases past
     * it); released bytes under max(COMPACT_MIN_GARBAGE, twice the live). */
    gcs_buf_init_big(&s->data, 3 * s->window + 4 * GCS_MAX_BLOCK_SIZE + COMPACT_MIN_GARBAGE);
    gcs_buf_init_big(&s->spare, s->data.max_cap);
    return s;
}

void gcs_sorter_free(gcs_sorter *s)
{
    if (!s)
        return;
    gcs_big_free(s->recs, s->cap * sizeof *s->recs);
    gcs_buf_free(&s->data);
    gcs_buf_free(&s->spare);
    free(s->runs);
    free(s->heap);
    free(s->heap_limit);
    free(s->ready);
    free(s->threads);
    gcs_big_free(s->lane.io.rows, s->lane.rows_alloc * sizeof *s->lane.io.rows);
    free(s->lane.runs);
    free(s->lane.heap);
    free(s->lane.heap_limit);
    free(s->lane.ready);
    free(s);
}

static thread_slot *thread_find(gcs_sorter *s, uint64_t tid, bool insert)
{
    if (s->threads_cap == 0) {
        if (!insert)
            return NULL;
        s->threads = calloc(64, sizeof *s->threads);
        if (!s->threads)
            return NULL;
        s->threads_cap = 64;
    }
    size_t mask = s->threads_cap - 1;
    size_t h = (size_t)((tid * 0x9E3779B97F4A7C15ull) >> 20) & mask;
    while (s->threads[h].used) {
        if (s->threads[h].tid == tid)
            return &s->threads[h];
        h = (h + 1) & mask;
    }
    if (!insert)
        return NULL;
    if ((s->threads_used + 1) * 2 > s->threads_cap) {
        if (s->threads_cap >= MAX_TRACKED_THREADS) {
            s->untracked_threads++;
            return NULL;
        }
        size_t ncap = s->threads_cap * 2;
        thread_slot *nt = calloc(ncap, sizeof *nt);
        if (!nt)
            return NULL;
        for (size_t i = 0; i < s->threads_cap; i++) {
            if (!s->threads[i].used)
                continue;
            size_t j = (size_t)((s->threads[i].tid * 0x9E3779B97F4A7C15ull) >> 20) & (ncap - 1);
            while (nt[j].used)
                j = (j + 1) & (ncap - 1);
            nt[j] = s->threads[i];
        }
        free(s->threads);
        s->threads = nt;
        s->threads_cap = ncap;
        s->last_thread = NULL;
        return thread_find(s, tid, true);
    }
    s->threads[h].used = true;
    s->threads[h].tid = tid;
    s->threads_used++;
    return &s->threads[h];
}

static __attribute__((noinline)) thread_slot *thread_find_noinline(gcs_sorter *s, uint64_t tid)
{
    return thread_find(s, tid, true);
}

/* Numbering starts at 1 per thread and session, and a thread's events are
 * in file order, so any skipped number is an event that was dropped. */
static inline void note_sequence(gcs_sorter *s, uint64_t capture_tid, uint32_t seq)
{
    thread_slot *t = s->last_thread;
    if (!t || t->tid != capture_tid) {
        t = thread_find_noinline(s, capture_tid);
        s->last_thread = t;
    }
    if (!t)
        return;
    int32_t gap = (int32_t)(seq - (t->last_seq + 1u));
    if (gap > 0)
        s->lost += (uint32_t)gap;
    t->last_seq = seq;
}

/* Most events carry no activity: then 32 bytes a event need not be kept. */
static inline bool guid_is_zero(const uint8_t *g)
{
    if (!g)
        return true;
    uint64_t a, b;
    memcpy(&a, g, 8);
    memcpy(&b, g + 8, 8);
    return (a | b) == 0;
}

/* What every added event tells: its thread's sequence number (lost events)
 * and, when flagged IsSorted, a new release watermark. */
static inline void note_added(gcs_sorter *s, const gcs_raw_event *ev)
{
    if (ev->has_sequence)
        note_sequence(s, ev->capture_tid, ev->sequence);
    if (ev->is_sorted && (!s->have_watermark || ev->timestamp > s->watermark)) {
        s->watermark = ev->timestamp;
        s->have_watermark = true;
    }
}

/* The general case of gcs_sorter_add: growth, a new run, activity ids. */
static __attribute__((noinline)) gcs_status add_slow(gcs_sorter *s, const gcs_raw_event *ev,
                                                     uint32_t key, gcs_error *err)
{
    if (!gcs_big_reserve((void **)&s->recs, &s->cap, s->n + 1, sizeof *s->recs, BIG_RECORDS))
        return GCS_FAIL(err, GCS_ERR_NOMEM, ev->offset, "out of memory buffering events");
    /* Containers pass NULL for absent ids; zero ids are not kept either. */
    bool has_activity = (ev->activity_id || ev->related_activity_id) &&
                        (!guid_is_zero(ev->activity_id) || !guid_is_zero(ev->related_activity_id));
    /* Extend the last run, or start one when time goes back. */
    if (s->n_runs == 0 || s->runs[s->n_runs - 1].end != s->n ||
        s->recs[s->n - 1].timestamp > ev->timestamp) {
        if (!gcs_array_reserve((void **)&s->runs, &s->runs_cap, s->n_runs + 1, sizeof *s->runs,
                               256))
            return GCS_FAIL(err, GCS_ERR_NOMEM, ev->offset, "out of memory buffering events");
        s->runs[s->n_runs++] = (run){s->n, s->n};
    }
    gcs_sorted_event *r = &s->recs[s->n];
    gcs_sorter_copy_header(r, ev, key);
    r->arrival = s->lane.io.arrivals++;
    r->has_activity = has_activity;
    s->added_since_release += ev->payload_size;
    if (!has_activity) {
        /* Kept by reference until the step ends (gcs_sorter_end_step). */
        r->at.ref = ev->payload_size ? ev->payload : (const uint8_t *)"";
        r->by_ref = true;
        gcs_sorter_note_ref(s, ev->payload, ev->payload_size);
    } else {
        /* Rare events with activity ids go to the store at once. */
        size_t need = (size_t)ev->payload_size + 32;
        gcs_status st =
            need <= s->data.cap - s->data.len ? GCS_OK : gcs_buf_reserve(&s->data, need);
        if (st != GCS_OK)
            return GCS_FAIL(err, st, ev->offset,
                            "more than %zu bytes of events between two sequence points",
                            s->data.max_cap);
        r->by_ref = false;
        r->at.data_offset = s->data.len;
        if (ev->payload_size)
            memcpy(s->data.data + s->data.len, ev->payload, ev->payload_size);
        uint8_t *a = s->data.data + s->data.len + ev->payload_size;
        memset(a, 0, 32);
        if (ev->activity_id)
            memcpy(a, ev->activity_id, 16);
        if (ev->related_activity_id)
            memcpy(a + 16, ev->related_activity_id, 16);
        s->data.len += need;
        s->live_bytes += need;
    }
    s->runs[s->n_runs - 1].end = ++s->n;
    s->tail_open = true;
    s->tail_ts = ev->timestamp;
    note_added(s, ev);
    return GCS_OK;
}

gcs_status gcs_sorter_add_keyed(gcs_sorter *s, const gcs_raw_event *ev, uint32_t key,
                                gcs_error *err)
{
    if (gcs_sorter_add_fast(s, ev, key))
        return GCS_OK;
    /* Another capture thread than the last one, seen before: take its
     * slot, and the common add may take the event after all (a new thread
     * is added, or counted as untracked, by add_slow). */
    thread_slot *t;
    if (ev->has_sequence && (t = thread_find(s, ev->capture_tid, false)) != NULL) {
        s->last_thread = t;
        if (gcs_sorter_add_fast(s, ev, key))
            return GCS_OK;
    }
    return add_slow(s, ev, key, err);
}

/* Room for the tap rows of a step or more (a container appends while
 * there is room), and a run for each row the lane can hold (lane_absorb
 * cannot fail). False when memory is short. */
#define LANE_SPARE_ROWS 4096u
static bool lane_reserve(gcs_sorter_lane *l, size_t rows)
{
    if (!gcs_big_reserve((void **)&l->io.rows, &l->rows_alloc, l->io.n + rows, sizeof *l->io.rows,
                         LANE_ROWS))
        return false;
    l->io.cap = l->rows_alloc;
    if (!gcs_array_reserve((void **)&l->runs, &l->runs_cap, l->io.cap, sizeof *l->runs,
                           LANE_SPARE_ROWS)) {
        /* Rows only as far as runs go (a capacity the next growth exceeds). */
        l->io.cap = l->runs_cap > l->io.n ? l->runs_cap : l->io.n;
        return l->io.n + rows <= l->io.cap;
    }
    return true;
}

gcs_status gcs_sorter_add_tap(gcs_sorter *s, const gcs_raw_event *ev, const void *type,
                              uint8_t mark, gcs_error *err)
{
    gcs_sorter_lane *l = &s->lane;
    if (l->io.n == l->io.cap && !lane_reserve(l, 1))
        return GCS_FAIL(err, GCS_ERR_NOMEM, ev->offset, "out of memory buffering events");
    gcs_tap_append(&l->io, type, ev);
    l->io.rows[l->io.n - 1].mark = mark;
    if (ev->has_sequence)
        note_sequence(s, ev->capture_tid, ev->sequence);
    return GCS_OK;
}

/* Cuts the rows appended since the last call into runs of ascending
 * timestamps and counts them as gcs_sorter_add counts an event: payload
 * bytes, IsSorted watermark (sequence numbers were counted as they came). */
static void lane_absorb(gcs_sorter *s)
{
    gcs_sorter_lane *l = &s->lane;
    const size_t n = l->io.n;
    size_t i = l->absorbed;
    if (i == n)
        return;
    /* Sums and the open run in locals: the stores through s and l would
     * otherwise be made again for every row (they may alias the rows). */
    const gcs_tap_row *const rows = l->io.rows;
    size_t bytes = 0;
    int64_t watermark = s->watermark;
    bool have_watermark = s->have_watermark;
    run open;
    int64_t last_ts;
    if (i > 0 && l->n_runs > 0 && l->runs[l->n_runs - 1].end == i) {
        open = l->runs[--l->n_runs];
        last_ts = rows[i - 1].timestamp;
    } else {
        open = (run){i, i};
        last_ts = rows[i].timestamp;
    }
    for (; i < n; i++) {
        const gcs_tap_row *t = &rows[i];
        if (last_ts > t->timestamp) {
            assert(l->n_runs < l->runs_cap); /* lane_reserve */
            l->runs[l->n_runs++] = open;
            open = (run){i, i};
        }
        open.end = i + 1;
        last_ts = t->timestamp;
        bytes += t->payload_size;
        if (t->is_sorted && (!have_watermark || t->timestamp > watermark)) {
            watermark = t->timestamp;
            have_watermark = true;
        }
    }
    assert(l->n_runs < l->runs_cap); /* lane_reserve */
    l->runs[l->n_runs++] = open;
    l->step_bytes += bytes;
    s->added_since_release += bytes;
    s->watermark = watermark;
    s->have_watermark = have_watermark;
    l->absorbed = n;
}

void gcs_sorter_note_sequence_run_keyed(gcs_sorter *s, uint64_t capture_tid, uint32_t first,
                                        uint32_t last)
{
    note_sequence(s, capture_tid, first);
    if (s->last_thread && s->last_thread->tid == capture_tid)
        s->last_thread->last_seq = last;
}

void gcs_sorter_sequence_point(gcs_sorter *s, const gcs_seq_entry *entries, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        /* The entry is a lower bound on the last number the thread used;
         * numbering starts at 1 per session, so an unseen thread starts
         * from 0. */
        thread_slot *t = thread_find(s, entries[i].capture_tid, true);
        if (!t)
            continue;
        int32_t gap = (int32_t)(entries[i].sequence - t->last_seq);
        if (gap > 0) {
            s->lost += (uint32_t)gap;
            t->last_seq = entries[i].sequence;
        }
    }
    s->release_all_requested = true;
}

void gcs_sorter_thread_end(gcs_sorter *s, uint64_t capture_tid, uint32_t last_sequence)
{
    thread_slot *t = thread_find(s, capture_tid, true);
    if (!t)
        return;
    int32_t gap = (int32_t)(last_sequence - t->last_seq);
    if (gap > 0)
        s->lost += (uint32_t)gap;
    /* A later thread on the same OS id numbers from 1 again. */
    t->last_seq = 0;
}

static inline bool item_less(const heap_item *a, const heap_item *b)
{
    return a->ts < b->ts || (a->ts == b->ts && a->idx < b->idx);
}

static void heap_push(heap_item *h, size_t *n, heap_item it)
{
    size_t i = (*n)++;
    while (i > 0) {
        size_t p = (i - 1) / 2;
        if (!item_less(&it, &h[p]))
            break;
        h[i] = h[p];
        i = p;
    }
    h[i] = it;
}

static heap_item heap_pop(heap_item *h, size_t *n)
{
    heap_item top = h[0], last = h[--*n];
    size_t i = 0;
    for (;;) {
        size_t c = 2 * i + 1;
        if (c >= *n)
            break;
        if (c + 1 < *n && item_less(&h[c + 1], &h[c]))
            c++;
        if (!item_less(&h[c], &last))
            break;
        h[i] = h[c];
        i = c;
    }
    if (*n)
        h[i] = last;
    return top;
}

/*
 * Drops released events, moving the unreleased rest of every run to the
 * front. Only done when the released bytes outweigh the live ones, so each
 * byte moves O(1) times on average.
 */
static void compact(gcs_sorter *s)
{
    assert(s->ready_pos == s->ready_n);
    s->ready_n = s->ready_pos = 0;
    size_t garbage = s->data.len - s->live_bytes;
    if (garbage < COMPACT_MIN_GARBAGE || garbage < 2 * s->live_bytes) {
        /* Keep the payload store; forget emptied runs. */
        size_t wr = 0, first = s->n;
        for (size_t k = 0; k < s->n_runs; k++)
            if (s->runs[k].start < s->runs[k].end || k == s->n_runs - 1) {
                if (s->runs[k].start < s->runs[k].end && s->runs[k].start < first)
                    first = s->runs[k].start;
                s->runs[wr++] = s->runs[k];
            }
        s->n_runs = wr;
        /* Records released before the first pending one are dead: move the
         * pending ones down once the dead prefix dominates. A container
         * that releases each event as it adds it (CTF: the stream files
         * merged by time) never empties the sorter at a release, so
         * without this the records would grow with the trace. */
        if (first >= COMPACT_MIN_RECORDS && first >= s->n - first) {
            size_t live = s->n - first;
            memmove(s->recs, s->recs + first, live * sizeof *s->recs);
            for (size_t k = 0; k < s->n_runs; k++) {
                run *rn = &s->runs[k];
                rn->start = rn->start >= first ? rn->start - first : live;
                rn->end = rn->end >= first ? rn->end - first : live;
            }
            s->step_first = s->step_first >= first ? s->step_first - first : 0;
            s->n = live;
        }
        return;
    }
    /* In place, payloads move down in arrival order; that is safe only
     * when the store holds them in arrival order too. An event with
     * activity ids is stored when added, before the by-reference events
     * ahead of it in its step: then the live bytes go to a new store. */
    uint64_t last = 0;
    bool in_order = true;
    for (size_t k = 0; k < s->n_runs && in_order; k++)
        for (size_t i = s->runs[k].start; i < s->runs[k].end; i++) {
            const gcs_sorted_event *r = &s->recs[i];
            if (r->by_ref)
                continue;
            if (r->at.data_offset < last) {
                in_order = false;
                break;
            }
            last = r->at.data_offset;
        }
    uint8_t *dst = s->data.data;
    if (!in_order) {
        s->spare.len = 0;
        if (gcs_buf_reserve(&s->spare, s->live_bytes ? s->live_bytes : 1) != GCS_OK) {
            /* No memory for it: keep the garbage (still bounded by the cap). */
            size_t wr = 0;
            for (size_t k = 0; k < s->n_runs; k++)
                if (s->runs[k].start < s->runs[k].end || k == s->n_runs - 1)
                    s->runs[wr++] = s->runs[k];
            s->n_runs = wr;
            return;
        }
        dst = s->spare.data;
    }
    size_t w = 0, out = 0, wr = 0;
    size_t step_first = SIZE_MAX;
    for (size_t k = 0; k < s->n_runs; k++) {
        run rn = s->runs[k];
        if (rn.start == rn.end)
            continue;
        for (size_t i = rn.start; i < rn.end; i++) {
            gcs_sorted_event r = s->recs[i];
            if (i >= s->step_first && step_first == SIZE_MAX)
                step_first = w + (i - rn.start);
            if (!r.by_ref) {
                size_t len = r.payload_size + (r.has_activity ? 32 : 0);
                assert(!in_order || r.at.data_offset >= out);
                memmove(dst + out, s->data.data + r.at.data_offset, len);
                r.at.data_offset = out;
                out += len;
            }
            s->recs[w + (i - rn.start)] = r;
        }
        size_t cnt = rn.end - rn.start;
        s->runs[wr++] = (run){w, w + cnt};
        w += cnt;
    }
    s->n = w;
    s->n_runs = wr;
    s->step_first = step_first == SIZE_MAX ? w : step_first;
    if (!in_order) {
        gcs_buf old = s->data;
        s->data = s->spare;
        s->spare = old;
        s->spare.len = 0;
    }
    s->data.len = out;
    assert(out == s->live_bytes);
}

/* First index in the run whose timestamp is >= limit. */
static size_t run_cut(const gcs_sorter *s, const run *rn, int64_t limit)
{
    size_t lo = rn->start, hi = rn->end;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (s->recs[mid].timestamp < limit)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* Bytes of the released events: in the store, and still by reference in
 * the unit (counted apart: they are not in the store yet). */
typedef struct leaving_bytes {
    size_t stored, by_ref, deferred;
} leaving_bytes;

/* Appends recs[j] to the released events, adding up its bytes on the way
 * (one pass over the released events, not two). */
static inline void take_ready(gcs_sorter *s, size_t *k, size_t j, leaving_bytes *b)
{
    gcs_sorted_event *r = &s->recs[j];
    s->ready[(*k)++] = r;
    size_t size = r->payload_size;
    if (r->by_ref) {
        if (j >= s->step_first)
            b->by_ref += size;
        else
            b->deferred += size; /* of an earlier step (gcs_sorter_end_step_deferred) */
    } else
        b->stored += size + ((size_t)r->has_activity << 5);
}

/* Releases of at most this many runs merge by scanning the runs' heads
 * (a release of a trace with a few writing threads has 2 to 8), more with
 * the heap. */
#define FEW_RUNS 8

/* Is the event (ts, idx) before (ts2, idx2): time, then arrival? */
static inline bool key_before(int64_t ts, size_t idx, int64_t ts2, size_t idx2)
{
    return ts < ts2 || (ts == ts2 && idx < idx2);
}

/*
 * Merges the released parts recs[pos[j], lim[j]) of m <= FEW_RUNS runs
 * into the released events: the run whose head comes first gives events
 * until its next one would come after the runner-up's head; a run given
 * out is dropped from the arrays. A scan of a few heads (their timestamps
 * kept in head_ts) per switch costs less than a heap's pop and push (~50
 * instructions a switch).
 */
static void merge_few(gcs_sorter *s, size_t *pos, size_t *lim, size_t m, size_t *k,
                      leaving_bytes *b)
{
    const gcs_sorted_event *recs = s->recs;
    int64_t head_ts[FEW_RUNS];
    for (size_t j = 0; j < m; j++)
        head_ts[j] = recs[pos[j]].timestamp;
    while (m > 1) {
        size_t lead = 0, second = 1;
        if (key_before(head_ts[1], pos[1], head_ts[0], pos[0])) {
            lead = 1;
            second = 0;
        }
        for (size_t j = 2; j < m; j++) {
            if (key_before(head_ts[j], pos[j], head_ts[lead], pos[lead])) {
                second = lead;
                lead = j;
            } else if (key_before(head_ts[j], pos[j], head_ts[second], pos[second])) {
                second = j;
            }
        }
        int64_t stop_ts = head_ts[second];
        size_t stop = pos[second], i = pos[lead], end = lim[lead];
        take_ready(s, k, i++, b);
        while (i < end && key_before(recs[i].timestamp, i, stop_ts, stop))
            take_ready(s, k, i++, b);
        if (i < end) {
            pos[lead] = i;
            head_ts[lead] = recs[i].timestamp;
            continue;
        }
        m--;
        pos[lead] = pos[m];
        lim[lead] = lim[m];
        head_ts[lead] = head_ts[m];
    }
    if (m == 1)
        for (size_t i = pos[0]; i < lim[0]; i++)
            take_ready(s, k, i, b);
}

/* Records buffered and not yet released. */
static size_t recs_pending(const gcs_sorter *s)
{
    size_t n = 0;
    for (size_t k = 0; k < s->n_runs; k++)
        n += s->runs[k].end - s->runs[k].start;
    return n;
}

/* Lane rows released before the first pending one dropped, once they
 * are the most and past COMPACT_MIN_RECORDS (each row moves O(1) times);
 * emptied runs forgotten. Nothing released may be waiting. */
static void lane_compact(gcs_sorter_lane *l)
{
    assert(l->ready_pos == l->ready_n);
    l->ready_n = l->ready_pos = 0;
    size_t pending = 0, wr = 0;
    for (size_t k = 0; k < l->n_runs; k++) {
        pending += l->runs[k].end - l->runs[k].start;
        if (l->runs[k].start < l->runs[k].end || k == l->n_runs - 1)
            l->runs[wr++] = l->runs[k];
    }
    l->n_runs = wr;
    size_t dead = l->io.n - pending;
    if (dead < COMPACT_MIN_RECORDS || dead < pending)
        return;
    size_t w = 0, step_first = SIZE_MAX;
    for (size_t k = 0; k < l->n_runs; k++) {
        run rn = l->runs[k];
        /* The first pending row of this step (a run may begin before it). */
        if (step_first == SIZE_MAX && rn.end > l->step_first)
            step_first = w + (rn.start >= l->step_first ? 0 : l->step_first - rn.start);
        memmove(l->io.rows + w, l->io.rows + rn.start, (rn.end - rn.start) * sizeof *l->io.rows);
        l->runs[k] = (run){w, w + (rn.end - rn.start)};
        w += rn.end - rn.start;
    }
    l->step_first = step_first == SIZE_MAX ? w : step_first;
    l->io.n = w;
    l->absorbed = w;
}

/* First row of the lane run whose timestamp is >= limit. */
static size_t lane_cut(const gcs_sorter_lane *l, const run *rn, int64_t limit)
{
    size_t lo = rn->start, hi = rn->end;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (l->io.rows[mid].timestamp < limit)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* Appends rows[j] to the released rows, taking its bytes off the window. */
static inline void lane_take(gcs_sorter_lane *l, size_t *k, size_t j)
{
    l->ready[(*k)++] = j;
    if (j >= l->step_first)
        l->step_released_bytes += l->io.rows[j].payload_size;
    else
        l->live_bytes -= l->io.rows[j].payload_size;
}

/* merge_few for lane rows (their index is their arrival order). */
static void lane_merge_few(gcs_sorter_lane *l, size_t *pos, size_t *lim, size_t m, size_t *k)
{
    const gcs_tap_row *rows = l->io.rows;
    while (m > 1) {
        size_t lead = 0, second = 1;
        if (key_before(rows[pos[1]].timestamp, pos[1], rows[pos[0]].timestamp, pos[0])) {
            lead = 1;
            second = 0;
        }
        for (size_t j = 2; j < m; j++) {
            if (key_before(rows[pos[j]].timestamp, pos[j], rows[pos[lead]].timestamp, pos[lead])) {
                second = lead;
                lead = j;
            } else if (key_before(rows[pos[j]].timestamp, pos[j], rows[pos[second]].timestamp,
                                  pos[second])) {
                second = j;
            }
        }
        const int64_t stop_ts = rows[pos[second]].timestamp;
        size_t stop = pos[second], i = pos[lead], end = lim[lead];
        lane_take(l, k, i++);
        while (i < end && key_before(rows[i].timestamp, i, stop_ts, stop))
            lane_take(l, k, i++);
        if (i < end) {
            pos[lead] = i;
            continue;
        }
        m--;
        pos[lead] = pos[m];
        lim[lead] = lim[m];
    }
    if (m == 1)
        for (size_t i = pos[0]; i < lim[0]; i++)
            lane_take(l, k, i);
}

/* The lane's part of a release: the same rows as if they were records
 * (every run's prefix older than limit, or all), merged by (timestamp,
 * arrival) with a heap; a run keeps the lead while its next row stays
 * before every other run's head. */
static bool lane_release(gcs_sorter_lane *l, bool all, int64_t limit)
{
    lane_compact(l);
    if (l->io.n == 0)
        return true;
    if (!gcs_array_reserve((void **)&l->ready, &l->ready_cap, l->io.n, sizeof *l->ready, 1024))
        return false;
    if (l->heap_cap < l->n_runs) {
        heap_item *h = realloc(l->heap, l->runs_cap * sizeof *h);
        if (!h)
            return false;
        l->heap = h;
        size_t *hl = realloc(l->heap_limit, l->runs_cap * sizeof *hl);
        if (!hl)
            return false;
        l->heap_limit = hl;
        l->heap_cap = l->runs_cap;
    }
    size_t hn = 0, k = 0, m = 0;
    size_t pos[FEW_RUNS], lim[FEW_RUNS];
    for (size_t i = 0; i < l->n_runs; i++) {
        run *rn = &l->runs[i];
        l->heap_limit[i] = all ? rn->end : lane_cut(l, rn, limit);
        if (l->heap_limit[i] == rn->start)
            continue;
        if (m < FEW_RUNS) {
            pos[m] = rn->start;
            lim[m] = l->heap_limit[i];
        }
        m++;
    }
    if (m <= FEW_RUNS)
        lane_merge_few(l, pos, lim, m, &k);
    else
        for (size_t i = 0; i < l->n_runs; i++)
            if (l->heap_limit[i] > l->runs[i].start)
                heap_push(l->heap, &hn,
                          (heap_item){l->io.rows[l->runs[i].start].timestamp, l->runs[i].start, i});
    while (hn > 0) {
        heap_item it = heap_pop(l->heap, &hn);
        size_t end = l->heap_limit[it.run], next = it.idx + 1;
        lane_take(l, &k, it.idx);
        while (next < end &&
               (hn == 0 || item_less(&(heap_item){l->io.rows[next].timestamp, next, it.run},
                                     &l->heap[0])))
            lane_take(l, &k, next++);
        if (next < end)
            heap_push(l->heap, &hn, (heap_item){l->io.rows[next].timestamp, next, it.run});
    }
    for (size_t i = 0; i < l->n_runs; i++)
        if (l->heap_limit[i] > l->runs[i].start)
            l->runs[i].start = l->heap_limit[i];
    l->ready_n = k;
    l->ready_pos = 0;
    return true;
}

/* Releases, merged in order, every run's prefix older than limit (or all). */
static bool release(gcs_sorter *s, bool all, int64_t limit)
{
    compact(s);
    s->added_since_release = 0;
    s->tail_open = false;
    if (!lane_release(&s->lane, all, limit))
        return false;
    if (recs_pending(s) == 0) {
        /* Nothing pending: the buffers can restart from zero. */
        assert(s->deferred_bytes == 0);
        s->n = s->n_runs = 0;
        s->step_first = 0;
        s->data.len = 0;
        return true;
    }
    if (s->ready_cap < s->cap) {
        gcs_sorted_event **rd = realloc(s->ready, s->cap * sizeof *rd);
        if (!rd)
            return false;
        s->ready = rd;
        s->ready_cap = s->cap;
    }
    if (s->heap_cap < s->runs_cap) {
        heap_item *h = realloc(s->heap, s->runs_cap * sizeof *h);
        if (!h)
            return false;
        s->heap = h;
        size_t *hl = realloc(s->heap_limit, s->runs_cap * sizeof *hl);
        if (!hl)
            return false;
        s->heap_limit = hl;
        s->heap_cap = s->runs_cap;
    }
    memset(s->heap_limit, 0, s->n_runs * sizeof *s->heap_limit);
    size_t hn = 0, k = 0, m = 0;
    size_t pos[FEW_RUNS], lim[FEW_RUNS];
    leaving_bytes leaving = {0, 0, 0};
    for (size_t i = 0; i < s->n_runs; i++) {
        run *rn = &s->runs[i];
        size_t cut = all ? rn->end : run_cut(s, rn, limit);
        if (cut == rn->start)
            continue;
        /* The run's limit for the merge is `cut`; remember it in end's
         * place until the merge is done. */
        s->heap_limit[i] = cut;
        if (m < FEW_RUNS) {
            pos[m] = rn->start;
            lim[m] = cut;
        }
        m++;
    }
    if (m <= FEW_RUNS)
        merge_few(s, pos, lim, m, &k, &leaving);
    else
        for (size_t i = 0; i < s->n_runs; i++)
            if (s->heap_limit[i] > s->runs[i].start)
                heap_push(s->heap, &hn,
                          (heap_item){s->recs[s->runs[i].start].timestamp, s->runs[i].start, i});
    while (hn > 0) {
        heap_item it = heap_pop(s->heap, &hn);
        size_t limit_idx = s->heap_limit[it.run];
        take_ready(s, &k, it.idx, &leaving);
        size_t next = it.idx + 1;
        /* Gallop: the run keeps the lead while it stays before every other
         * run's head, without heap operations. */
        if (hn == 0) {
            while (next < limit_idx)
                take_ready(s, &k, next++, &leaving);
            break;
        }
        while (next < limit_idx) {
            heap_item cand = {s->recs[next].timestamp, next, it.run};
            if (!item_less(&cand, &s->heap[0]))
                break;
            take_ready(s, &k, next++, &leaving);
        }
        if (next < limit_idx)
            heap_push(s->heap, &hn, (heap_item){s->recs[next].timestamp, next, it.run});
    }
    s->live_bytes -= leaving.stored;
    s->step_released_ref_bytes += leaving.by_ref;
    assert(leaving.deferred <= s->deferred_bytes);
    s->deferred_bytes -= leaving.deferred;
    for (size_t i = 0; i < s->n_runs; i++)
        if (s->heap_limit[i] > s->runs[i].start)
            s->runs[i].start = s->heap_limit[i];
    s->ready_n = k;
    s->ready_pos = 0;
    return true;
}

void gcs_sorter_flush(gcs_sorter *s)
{
    if (gcs_sorter_ready(s))
        return; /* the caller drains first; flush is repeated after */
    lane_absorb(s);
    s->release_all_requested = false;
    release(s, true, 0);
}

void gcs_sorter_settle(gcs_sorter *s, bool eager)
{
    if (gcs_sorter_ready(s))
        return;
    lane_absorb(s);
    if (s->release_all_requested) {
        s->release_all_requested = false;
        release(s, true, 0);
        return;
    }
    /* Deferred payloads count as stored: what they would be if copied. */
    if (s->live_bytes + s->deferred_bytes + s->lane.live_bytes > s->window) {
        s->overflows++;
        release(s, true, 0);
        return;
    }
    if (s->have_watermark && (eager || s->added_since_release >= WATERMARK_RELEASE_BYTES))
        release(s, false, s->watermark);
}

/* Moves one by-reference payload into the store. */
static void store_one(gcs_sorter *s, gcs_sorted_event *r)
{
    /* The store was reserved for the window; a failure here would leave a
     * dangling reference, so it is fatal by design. */
    if (r->payload_size > s->data.cap - s->data.len &&
        gcs_buf_reserve(&s->data, r->payload_size) != GCS_OK) {
        assert(!"sorter store exhausted");
        abort();
    }
    if (r->payload_size)
        memcpy(s->data.data + s->data.len, r->at.ref, r->payload_size);
    r->at.data_offset = s->data.len;
    r->by_ref = false;
    s->data.len += r->payload_size;
}

void gcs_sorter_end_step(gcs_sorter *s) { gcs_sorter_end_step_within(s, NULL, NULL); }

/* Whether recs[i] still has payload bytes in the unit. */
static inline bool ref_bytes(const gcs_sorted_event *r) { return r->by_ref && r->payload_size; }

/* First run holding pending events of this step (index >= first): runs are
 * consecutive index ranges in order. */
static size_t step_first_run(const gcs_sorter *s, size_t first)
{
    size_t k = s->n_runs;
    while (k > 0 && s->runs[k - 1].end > first)
        k--;
    return k;
}

#define FOR_PENDING_OF_STEP(s, k0, first, j)                                         \
    for (size_t k_ = (k0); k_ < (s)->n_runs; k_++)                                  \
        for (size_t j = (s)->runs[k_].start > (first) ? (s)->runs[k_].start : (first); \
             j < (s)->runs[k_].end; j++)

/*
 * Copies the span [lo, hi) of the unit holding every pending by-reference
 * payload of this step with one memcpy and points the records into the
 * copy. lo and hi come from the first and last such payloads (the unit is
 * read in arrival order); each record is checked to lie in the span as it
 * is pointed into the copy. False (nothing changed) when the span is not in
 * the unit, is mostly row headers, or a payload lies outside it.
 */
static bool store_span(gcs_sorter *s, size_t k0, size_t first, size_t pending_bytes,
                       const uint8_t *unit, const uint8_t *unit_end)
{
    const gcs_sorted_event *lo_rec = NULL, *hi_rec = NULL;
    for (size_t k = k0; k < s->n_runs && !lo_rec; k++)
        for (size_t j = s->runs[k].start > first ? s->runs[k].start : first;
             j < s->runs[k].end; j++)
            if (ref_bytes(&s->recs[j])) {
                lo_rec = &s->recs[j];
                break;
            }
    for (size_t k = s->n_runs; k-- > k0 && !hi_rec;) {
        size_t from = s->runs[k].start > first ? s->runs[k].start : first;
        for (size_t j = s->runs[k].end; j-- > from;)
            if (ref_bytes(&s->recs[j])) {
                hi_rec = &s->recs[j];
                break;
            }
    }
    uintptr_t lo = lo_rec ? (uintptr_t)lo_rec->at.ref : 0;
    uintptr_t hi = hi_rec ? (uintptr_t)hi_rec->at.ref + hi_rec->payload_size : 0;
    if (lo_rec && (lo < (uintptr_t)unit || hi > (uintptr_t)unit_end || hi <= lo))
        return false;
    size_t span = (size_t)(hi - lo);
    if (span > 2 * pending_bytes)
        return false;
    if (span > s->data.cap - s->data.len && gcs_buf_reserve(&s->data, span) != GCS_OK)
        return false;
    uint64_t base = s->data.len;
    if (span)
        memcpy(s->data.data + base, (const uint8_t *)lo, span);
    FOR_PENDING_OF_STEP(s, k0, first, j) {
        gcs_sorted_event *r = &s->recs[j];
        if (!r->by_ref)
            continue;
        /* Unsigned: a payload before lo wraps to a huge offset. */
        uintptr_t off = (uintptr_t)r->at.ref - lo;
        if (r->payload_size > span || off > span - r->payload_size) {
            if (r->payload_size)
                goto undo; /* not in the span: another buffer */
            off = 0;       /* no bytes: points anywhere */
        }
        r->at.data_offset = base + off;
        r->by_ref = false;
    }
    s->data.len += span;
    return true;
undo:
    /* Records pointed into the copy have offsets from base on; records
     * stored earlier (activity ids) lie before it. */
    FOR_PENDING_OF_STEP(s, k0, first, j) {
        gcs_sorted_event *r = &s->recs[j];
        if (r->by_ref)
            break; /* the first one not converted: the rest are untouched */
        if (r->at.data_offset < base)
            continue;
        r->at.ref = r->payload_size ? (const uint8_t *)(lo + (r->at.data_offset - base))
                                    : (const uint8_t *)"";
        r->by_ref = true;
    }
    return false;
}

/* The step's tap rows still pending weigh in the window from now on;
 * room for the next step's (without it, a container hands its rows to
 * the sink one by one). */
static void lane_end_step(gcs_sorter *s)
{
    gcs_sorter_lane *l = &s->lane;
    lane_absorb(s);
    l->live_bytes += l->step_bytes - l->step_released_bytes;
    l->step_bytes = l->step_released_bytes = 0;
    l->step_first = l->io.n;
    if (l->io.cap && l->io.cap - l->io.n < LANE_SPARE_ROWS / 2)
        (void)lane_reserve(l, LANE_SPARE_ROWS);
}

void gcs_sorter_end_step_within(gcs_sorter *s, const uint8_t *unit, const uint8_t *unit_end)
{
    lane_end_step(s);
    /* Every by-reference event is in recs[step_first, n). The pending ones
     * move to the store; those released in this step stay in the unit:
     * they are delivered before the next step. */
    size_t first = s->step_first;
    size_t pending_bytes = s->step_ref_bytes - s->step_released_ref_bytes;
    s->live_bytes += pending_bytes;
    s->step_first = s->n;
    s->step_ref_bytes = s->step_released_ref_bytes = 0;
    if (first >= s->n)
        return;
    size_t k0 = step_first_run(s, first);
    /* The payloads lie in the unit with row headers between them (garbage
     * for compaction afterwards). */
    if (unit && store_span(s, k0, first, pending_bytes, unit, unit_end))
        return;
    FOR_PENDING_OF_STEP(s, k0, first, j)
        if (s->recs[j].by_ref)
            store_one(s, &s->recs[j]);
}

bool gcs_sorter_ready(const gcs_sorter *s)
{
    return s->ready_pos < s->ready_n || s->lane.ready_pos < s->lane.ready_n;
}

size_t gcs_sorter_pending(const gcs_sorter *s)
{
    size_t n = recs_pending(s) + (s->lane.io.n - s->lane.absorbed);
    for (size_t k = 0; k < s->lane.n_runs; k++)
        n += s->lane.runs[k].end - s->lane.runs[k].start;
    return n;
}

uint64_t gcs_sorter_lost_events(const gcs_sorter *s) { return s->lost; }
uint64_t gcs_sorter_overflows(const gcs_sorter *s) { return s->overflows; }

void gcs_sorter_end_step_deferred(gcs_sorter *s, const uint8_t *view, const uint8_t *view_end)
{
    size_t pending_bytes = s->step_ref_bytes - s->step_released_ref_bytes;
    /* The span of the step's payloads (released ones too) must lie in the
     * view; else some are a container's own buffer: copied now. */
    if (pending_bytes &&
        (s->step_ref_lo < (uintptr_t)view || s->step_ref_hi > (uintptr_t)view_end)) {
        gcs_sorter_end_step_within(s, view, view_end);
        return;
    }
    s->deferred_bytes += pending_bytes;
    s->step_first = s->n;
    s->step_ref_bytes = s->step_released_ref_bytes = 0;
    lane_end_step(s);
}

void gcs_sorter_store_deferred(gcs_sorter *s)
{
    /* Zero-byte records point at a constant: they may stay as they are. */
    if (s->deferred_bytes == 0)
        return;
    for (size_t k = 0; k < s->n_runs; k++) {
        size_t end = s->runs[k].end < s->step_first ? s->runs[k].end : s->step_first;
        for (size_t j = s->runs[k].start; j < end; j++) {
            gcs_sorted_event *r = &s->recs[j];
            if (!r->by_ref)
                continue;
            s->live_bytes += r->payload_size;
            store_one(s, r);
        }
    }
    s->deferred_bytes = 0;
}
