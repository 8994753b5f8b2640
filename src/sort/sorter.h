/*
 * sort/sorter.h - puts events in timestamp order while streaming.
 *
 * Containers hand over events in file order. The formats guarantee that
 * every event written before a sequence point has a timestamp no later than
 * any event after it, so events are buffered until a sequence point (or the
 * end of the stream), sorted by (timestamp, arrival), and released. Memory
 * is bounded by the events between two sequence points; a trace without
 * sequence points (netperf) is released in windows of `window_bytes`, each
 * window full counted as a sort overflow (order across windows is then
 * only as good as the file's).
 *
 * Tapped events (gcs_sorter_lane) wait apart from the records, 64 bytes
 * each, and are released by the same cuts, weighing in the window as
 * records would: a consumer that takes both (gcs_sorter_pop_tap before
 * each gcs_sorter_pop) sees the order a sorter holding them as records
 * gives.
 *
 * The sorter also counts lost events from per-thread sequence numbers:
 * a gap on one capture thread, or a sequence point announcing a higher
 * number than the last event seen on that thread.
 */
#ifndef GCS_SORT_SORTER_H
#define GCS_SORT_SORTER_H

#include <stddef.h>
#include <string.h>

#include "base/buf.h"
#include "format/container.h"
#include "gcscope/reader.h"

/* One buffered event (64 bytes). Payload and activity ids live in the
 * byte store, or the payload still in the container's unit. */
typedef struct gcs_sorted_event {
    uint32_t key; /* the metadata id, or the key given to gcs_sorter_add_keyed */
    bool by_ref;
    bool has_activity;
    uint8_t pointer_size; /* as in gcs_raw_event (0: the trace's); fills padding */
    /* sequence .. timestamp: laid out as in gcs_raw_event (copied at once) */
    uint32_t sequence;
    uint32_t pid;
    uint64_t tid;
    uint64_t capture_tid;
    uint32_t processor;
    uint32_t stack_id;
    int64_t timestamp;
    union {
        const uint8_t *ref;   /* by_ref: payload still in the container's unit (this step) */
        uint64_t data_offset; /* else: payload in the store, then 32 bytes of activity ids
                                 if has_activity */
    } at;
    uint32_t payload_size;
    uint32_t arrival; /* number of the event's arrival, shared with tap rows (modulo 2^32) */
} gcs_sorted_event;

/*
 * Tapped events (gcs_tap_row; the sink's options.tap): kept apart from
 * the records with only their payload's head, released exactly when they
 * would be as records, and handed out (gcs_sorter_pop_tap) in the place
 * they would have had among them: by (timestamp, arrival). io is what a
 * container appends to (gcs_tap_lane); rows[absorbed, n) are not yet
 * cut into runs of ascending timestamps (lane_absorb, before a release).
 */
typedef struct gcs_sorter_lane {
    gcs_tap_lane io;
    size_t rows_alloc; /* rows io.rows has room for (io.cap may be less) */
    size_t absorbed;
    struct gcs_sorter_run *runs;
    size_t n_runs, runs_cap;
    struct gcs_sorter_heap_item *heap;
    size_t *heap_limit;
    size_t heap_cap;
    size_t *ready; /* released rows, in order (indices: appends may move the rows) */
    size_t ready_n, ready_pos, ready_cap;
    /* rows[step_first, n) came in this step; their payload bytes, and the
     * part released; payload bytes of pending rows of earlier steps (what
     * they would weigh in the window as records). */
    size_t step_first, step_bytes, step_released_bytes, live_bytes;
} gcs_sorter_lane;

typedef struct gcs_sorter gcs_sorter;

/* window_bytes: cap on buffered bytes before a forced release (0: default). */
gcs_sorter *gcs_sorter_new(size_t window_bytes);
void gcs_sorter_free(gcs_sorter *s);

/* Buffers one event, kept with `key` (the reader's index of the event's
 * type, bound in file order). GCS_ERR_LIMIT/NOMEM on failure. */
gcs_status gcs_sorter_add_keyed(gcs_sorter *s, const gcs_raw_event *ev, uint32_t key,
                                gcs_error *err);

/* The same, kept with its metadata id. */
static inline gcs_status gcs_sorter_add(gcs_sorter *s, const gcs_raw_event *ev, gcs_error *err)
{
    return gcs_sorter_add_keyed(s, ev, ev->metadata_id, err);
}

/* The container's unit is about to be reused: events still pending that
 * point into it are copied into the sorter's own store. Events released in
 * the same step are delivered straight from the unit, uncopied. */
void gcs_sorter_end_step(gcs_sorter *s);

/* The same, knowing that every payload of the step lies in [unit, unit_end)
 * (the stream's buffer): the pending payloads are then copied with one
 * memcpy of the span that holds them, when that span is mostly payload. */
void gcs_sorter_end_step_within(gcs_sorter *s, const uint8_t *unit, const uint8_t *unit_end);

/*
 * The same when the unit is a view that stays in place until the reader
 * is told otherwise (gcs_stream_set_on_move): the step's pending payloads
 * that lie in [view, view_end) keep pointing there, deferred, and cost no
 * copy; gcs_sorter_store_deferred copies them once the view is about to
 * move. A step with a pending payload elsewhere is stored as by
 * gcs_sorter_end_step_within. Releases stay what they would be with the
 * copies made at once (the window counts deferred bytes as stored ones).
 */
void gcs_sorter_end_step_deferred(gcs_sorter *s, const uint8_t *view, const uint8_t *view_end);

/* The view that deferred payloads point into is about to move: copies
 * them into the sorter's own store. Call between steps, or inside a step
 * before its first event (a container asking for its next unit). */
void gcs_sorter_store_deferred(gcs_sorter *s);

/* Sequence point: counts lost events from the per-thread numbers, then
 * sorts and releases everything buffered. */
void gcs_sorter_sequence_point(gcs_sorter *s, const gcs_seq_entry *entries, size_t n);

/* A thread's last sequence number (it writes no more): numbers beyond the
 * last one seen are lost events. Releases nothing. */
void gcs_sorter_thread_end(gcs_sorter *s, uint64_t capture_tid, uint32_t last_sequence);

/* Sorts and releases everything buffered (end of stream, error). Does
 * nothing while released events are still waiting: drain, then repeat. */
void gcs_sorter_flush(gcs_sorter *s);

/*
 * Called between container steps, when no released event is waiting:
 * releases everything after a sequence point or when the window is full,
 * else the events older than the IsSorted watermark once enough are
 * buffered (or at once when `eager`, e.g. before a live source waits).
 */
void gcs_sorter_settle(gcs_sorter *s, bool eager);

/* Events buffered and not yet released. */
size_t gcs_sorter_pending(const gcs_sorter *s);

/* True when released events are waiting. */
bool gcs_sorter_ready(const gcs_sorter *s);

/* Internal state, visible so that pop inlines into the reader's loop. */
typedef struct gcs_sorter_run {
    size_t start, end; /* recs[start, end): unreleased, ascending timestamps */
} gcs_sorter_run;

typedef struct gcs_sorter_heap_item {
    int64_t ts;
    size_t idx; /* in recs: arrival order, the tie-breaker */
    size_t run;
} gcs_sorter_heap_item;

typedef struct gcs_sorter_thread {
    uint64_t tid;
    uint32_t last_seq;
    bool used;
} gcs_sorter_thread;

struct gcs_sorter {
    gcs_sorted_event *recs;
    size_t n, cap;
    gcs_buf data;
    gcs_buf spare; /* where a compaction out of arrival order writes, then swapped with
                      data: kept, so that its pages are not mapped and faulted again */
    gcs_sorter_run *runs;
    size_t n_runs, runs_cap;
    gcs_sorter_heap_item *heap;
    size_t *heap_limit; /* per run: end of its released prefix */
    size_t heap_cap;
    gcs_sorted_event **ready; /* released, in order; valid until the next add */
    size_t ready_n, ready_pos, ready_cap;
    size_t window;
    int64_t watermark;
    bool have_watermark;
    bool release_all_requested;
    size_t live_bytes; /* bytes of unreleased events in data */
    size_t added_since_release;
    /* The last run may take the next event without checks while
     * tail_open and tail_ts <= its timestamp (cleared by every release). */
    bool tail_open;
    int64_t tail_ts;
    /* This step's events are recs[step_first, n); every by-reference
     * event is among them. Payload bytes they added by reference, and the
     * part of those already released. */
    size_t step_first;
    size_t step_ref_bytes, step_released_ref_bytes;
    /* While step_ref_bytes > 0: the span of the step's by-reference payloads. */
    uintptr_t step_ref_lo, step_ref_hi;
    /* Payload bytes of pending by-reference events of earlier steps
     * (gcs_sorter_end_step_deferred): all lie before step_first. */
    size_t deferred_bytes;
    uint64_t lost, overflows, untracked_threads;
    /* Tapped events (gcs_sorter_add_tap, or a container's; the arrival
     * numbers every event takes are lane.io.arrivals). */
    gcs_sorter_lane lane;
    gcs_sorter_thread *threads;
    size_t threads_cap, threads_used;
    gcs_sorter_thread *last_thread; /* most events come in runs of one thread */
};

/* A by-reference payload added in this step (internal). */
static inline void gcs_sorter_note_ref(gcs_sorter *s, const uint8_t *payload, uint32_t size)
{
    if (size) {
        uintptr_t p = (uintptr_t)payload, e = p + size;
        if (s->step_ref_bytes == 0 || p < s->step_ref_lo)
            s->step_ref_lo = p;
        if (s->step_ref_bytes == 0 || e > s->step_ref_hi)
            s->step_ref_hi = e;
        s->step_ref_bytes += size;
    }
}

/* The header fields from sequence to timestamp are copied in one piece. */
#define GCS_SORTER_SAME_OFFSET(f) \
    (offsetof(gcs_sorted_event, f) == offsetof(gcs_raw_event, f))
_Static_assert(GCS_SORTER_SAME_OFFSET(sequence) && GCS_SORTER_SAME_OFFSET(pid) &&
                   GCS_SORTER_SAME_OFFSET(tid) && GCS_SORTER_SAME_OFFSET(capture_tid) &&
                   GCS_SORTER_SAME_OFFSET(processor) && GCS_SORTER_SAME_OFFSET(stack_id) &&
                   GCS_SORTER_SAME_OFFSET(timestamp),
               "gcs_sorted_event mirrors gcs_raw_event from sequence to timestamp");
_Static_assert(sizeof(gcs_sorted_event) == 64, "a buffered event stays 64 bytes");
#define GCS_SORTER_HEADER_COPY_BYTES                                                    \
    (offsetof(gcs_sorted_event, timestamp) + sizeof(int64_t) -                          \
     offsetof(gcs_sorted_event, sequence))

/* Copies the header fields shared with the raw event (internal). */
static inline void gcs_sorter_copy_header(gcs_sorted_event *r, const gcs_raw_event *ev,
                                          uint32_t key)
{
    memcpy(&r->sequence, &ev->sequence, GCS_SORTER_HEADER_COPY_BYTES);
    if (!ev->has_sequence)
        r->sequence = 0;
    r->key = key;
    r->pointer_size = ev->pointer_size;
    r->payload_size = ev->payload_size;
}

/*
 * gcs_sorter_add_keyed's common case, inlined into the container's event
 * callback: room, no activity ids, time keeps going up, the same capture
 * thread as the last event (its sequence number checked in place). False,
 * with nothing done, when the event needs gcs_sorter_add_keyed.
 */
static inline bool gcs_sorter_add_fast(gcs_sorter *s, const gcs_raw_event *ev, uint32_t key)
{
    gcs_sorter_thread *t = s->last_thread;
    if (s->n == s->cap || !s->tail_open || ev->timestamp < s->tail_ts ||
        ((uintptr_t)ev->activity_id | (uintptr_t)ev->related_activity_id) ||
        (ev->has_sequence && (!t || t->tid != ev->capture_tid)))
        return false;
    gcs_sorted_event *r = &s->recs[s->n];
    gcs_sorter_copy_header(r, ev, key);
    r->at.ref = ev->payload_size ? ev->payload : (const uint8_t *)"";
    r->by_ref = true;
    r->has_activity = false;
    gcs_sorter_note_ref(s, ev->payload, ev->payload_size);
    r->arrival = s->lane.io.arrivals++;
    s->added_since_release += ev->payload_size;
    s->runs[s->n_runs - 1].end = ++s->n;
    s->tail_ts = ev->timestamp;
    if (ev->has_sequence) {
        /* Numbering has no gap within a thread unless events were lost. */
        int32_t gap = (int32_t)(ev->sequence - (t->last_seq + 1u));
        if (gap > 0)
            s->lost += (uint32_t)gap;
        t->last_seq = ev->sequence;
    }
    if (ev->is_sorted && (!s->have_watermark || ev->timestamp > s->watermark)) {
        s->watermark = ev->timestamp;
        s->have_watermark = true;
    }
    return true;
}

/* Next released event; false when none is ready. The returned pointers
 * stay valid until the next gcs_sorter_* call that adds or flushes. */
static inline bool gcs_sorter_pop(gcs_sorter *s, const gcs_sorted_event **ev,
                                  const uint8_t **data)
{
    if (s->ready_pos >= s->ready_n)
        return false;
    const gcs_sorted_event *r = s->ready[s->ready_pos++];
    *ev = r;
    /* Zero-byte payloads may be "stored" while the store is still
     * unallocated (NULL): NULL + 0 is undefined, and callers want a valid
     * pointer anyway. (An allocated store may hold activity ids after a
     * zero-byte payload: there the offset is used.) */
    *data = r->by_ref       ? r->at.ref
            : s->data.data ? s->data.data + r->at.data_offset
                           : (const uint8_t *)"";
    return true;
}

/*
 * Buffers a tapped event (see gcs_sorter_lane) of type `type` (the
 * sink's), its payload's head copied, `mark` kept for the caller: counted
 * as gcs_sorter_add counts an event (sequence numbers, IsSorted
 * watermark), weighing its payload bytes in the window as a record would,
 * so that every release happens as if it were one. GCS_ERR_NOMEM on
 * failure.
 */
gcs_status gcs_sorter_add_tap(gcs_sorter *s, const gcs_raw_event *ev, const void *type,
                              uint8_t mark, gcs_error *err);

/* The lane a container appends tap rows to (sink->lane). */
static inline gcs_tap_lane *gcs_sorter_tap_lane(gcs_sorter *s) { return &s->lane.io; }

/* Is the lane row before the record: time, then arrival (numbers a few
 * million apart at most, compared modulo 2^32)? */
static inline bool gcs_sorter_tap_first(const gcs_tap_row *t, const gcs_sorted_event *r)
{
    return t->timestamp < r->timestamp ||
           (t->timestamp == r->timestamp && (int32_t)(t->arrival - r->arrival) < 0);
}

/* Are released tap rows waiting (gcs_sorter_pop_tap may give one)? */
static inline bool gcs_sorter_tap_ready(const gcs_sorter *s)
{
    return s->lane.ready_pos < s->lane.ready_n;
}

/* The next released tap row when it comes before the next released
 * record (or no record is released): false otherwise. Call it before
 * each gcs_sorter_pop, until false, to have both in order. */
static inline bool gcs_sorter_pop_tap(gcs_sorter *s, const gcs_tap_row **row)
{
    gcs_sorter_lane *l = &s->lane;
    if (__builtin_expect(l->ready_pos >= l->ready_n, 1))
        return false;
    const gcs_tap_row *t = &l->io.rows[l->ready[l->ready_pos]];
    if (s->ready_pos < s->ready_n && !gcs_sorter_tap_first(t, s->ready[s->ready_pos]))
        return false;
    l->ready_pos++;
    *row = t;
    return true;
}

/*
 * The released tap rows that come before the next released record (all
 * of them when no record is released), taken at once: *first points to
 * their indices into rows (s->lane.io.rows), the count is returned. The
 * same rows, in the same order, as gcs_sorter_pop_tap until false; the
 * indices and rows stay valid until the sorter is next stepped or added
 * to, so a consumer may call out for each row without reloading.
 */
static inline size_t gcs_sorter_take_taps(gcs_sorter *s, const size_t **first)
{
    gcs_sorter_lane *l = &s->lane;
    size_t pos = l->ready_pos, end = l->ready_n;
    if (s->ready_pos < s->ready_n) {
        const gcs_sorted_event *r = s->ready[s->ready_pos];
        size_t k = pos;
        while (k < end && gcs_sorter_tap_first(&l->io.rows[l->ready[k]], r))
            k++;
        end = k;
    }
    *first = l->ready + pos;
    l->ready_pos = end;
    return end - pos;
}

/* Notes the sequence numbers of events that are not buffered (a reader
 * that counts events and needs no order): `first` to `last` are numbers
 * of consecutive events of one thread, first..last with no gap (first ==
 * last for one event). Lost events are counted exactly as gcs_sorter_add
 * would count them, event by event. */
void gcs_sorter_note_sequence_run_keyed(gcs_sorter *s, uint64_t capture_tid, uint32_t first,
                                        uint32_t last);

/* gcs_sorter_note_sequence_run when the thread is the last one seen (the
 * usual case: a block is one thread's): true, done; false, nothing done. */
static inline bool gcs_sorter_note_sequence_quick(gcs_sorter *s, uint64_t capture_tid,
                                                  uint32_t first, uint32_t last)
{
    gcs_sorter_thread *t = s->last_thread;
    if (!t || t->tid != capture_tid)
        return false;
    int32_t gap = (int32_t)(first - (t->last_seq + 1u));
    if (gap > 0)
        s->lost += (uint32_t)gap;
    t->last_seq = last;
    return true;
}

/* The same, inline when the thread is the last one seen; else
 * gcs_sorter_note_sequence_run_keyed. */
static inline void gcs_sorter_note_sequence_run(gcs_sorter *s, uint64_t capture_tid,
                                                uint32_t first, uint32_t last)
{
    if (!gcs_sorter_note_sequence_quick(s, capture_tid, first, last))
        gcs_sorter_note_sequence_run_keyed(s, capture_tid, first, last);
}

uint64_t gcs_sorter_lost_events(const gcs_sorter *s);
uint64_t gcs_sorter_overflows(const gcs_sorter *s);

#endif
