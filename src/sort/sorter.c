/*
 * sort/sorter.c - buffering, ordering and releasing events; lost-event
 * accounting. See sorter.h for the guarantees this relies on.
 *
 * Events are appended to `recs` (headers) and `data` (payload bytes).
 * A release sorts the pending events by (timestamp, arrival) and hands out
 * a prefix: everything (sequence point, end, window full) or the events
 * strictly older than the IsSorted watermark (every event after a flagged
 * one in file order is at least as late, so older ones can go now). Once
 * the released events are consumed, the still-pending ones are compacted to
 * the front of fresh buffers.
 */
#include "sort/sorter.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"

#define DEFAULT_WINDOW_BYTES ((size_t)64 << 20)
/* Below this many buffered bytes a watermark release is not worth a sort. */
#define WATERMARK_RELEASE_BYTES ((size_t)1 << 20)
/* Threads tracked for sequence numbers; more are not checked (counted). */
#define MAX_TRACKED_THREADS ((size_t)1 << 20)

typedef struct sort_key {
    int64_t ts;
    uint32_t idx;
} sort_key;

typedef struct thread_slot {
    uint64_t tid;
    uint32_t last_seq;
    bool used;
} thread_slot;

struct gcs_sorter {
    gcs_sorted_event *recs;
    bool *released;
    size_t n, cap;
    gcs_buf data;
    sort_key *keys, *tmp;
    size_t keys_cap;
    uint32_t *ready;
    size_t ready_n, ready_pos, ready_cap;
    size_t window;
    int64_t watermark;
    bool have_watermark;
    bool release_all_requested;
    uint64_t lost, overflows, untracked_threads;
    thread_slot *threads;
    size_t threads_cap, threads_used;
};

gcs_sorter *gcs_sorter_new(size_t window_bytes)
{
    gcs_sorter *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    s->window = window_bytes ? window_bytes : DEFAULT_WINDOW_BYTES;
    /* One block past the window may arrive before the release. */
    gcs_buf_init(&s->data, s->window + GCS_MAX_BLOCK_SIZE * 2);
    return s;
}

void gcs_sorter_free(gcs_sorter *s)
{
    if (!s)
        return;
    free(s->recs);
    free(s->released);
    gcs_buf_free(&s->data);
    free(s->keys);
    free(s->tmp);
    free(s->ready);
    free(s->threads);
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
        return thread_find(s, tid, true);
    }
    s->threads[h].used = true;
    s->threads[h].tid = tid;
    s->threads_used++;
    return &s->threads[h];
}

/* Numbering starts at 1 per thread and session, and a thread's events are
 * in file order, so any skipped number is an event that was dropped. */
static void note_sequence(gcs_sorter *s, uint64_t capture_tid, uint32_t seq)
{
    thread_slot *t = thread_find(s, capture_tid, true);
    if (!t)
        return;
    int32_t gap = (int32_t)(seq - (t->last_seq + 1u));
    if (gap > 0)
        s->lost += (uint32_t)gap;
    t->last_seq = seq;
}

gcs_status gcs_sorter_add(gcs_sorter *s, const gcs_raw_event *ev, gcs_error *err)
{
    if (s->n == s->cap) {
        size_t ncap = s->cap ? s->cap * 2 : 4096;
        gcs_sorted_event *nr = realloc(s->recs, ncap * sizeof *nr);
        if (!nr)
            return GCS_FAIL(err, GCS_ERR_NOMEM, ev->offset, "out of memory buffering events");
        s->recs = nr;
        bool *nrel = realloc(s->released, ncap * sizeof *nrel);
        if (!nrel)
            return GCS_FAIL(err, GCS_ERR_NOMEM, ev->offset, "out of memory buffering events");
        s->released = nrel;
        s->cap = ncap;
    }
    bool has_activity = ev->activity_id || ev->related_activity_id;
    size_t need = ev->payload_size + (has_activity ? 32 : 0);
    gcs_status st = gcs_buf_reserve(&s->data, need);
    if (st != GCS_OK)
        return GCS_FAIL(err, st, ev->offset,
                        "more than %zu bytes of events between two sequence points",
                        s->data.max_cap);
    gcs_sorted_event *r = &s->recs[s->n];
    r->timestamp = ev->timestamp;
    r->tid = ev->tid;
    r->capture_tid = ev->capture_tid;
    r->data_offset = s->data.len;
    r->metadata_id = ev->metadata_id;
    r->payload_size = ev->payload_size;
    r->sequence = ev->has_sequence ? ev->sequence : 0;
    r->pid = ev->pid;
    r->processor = ev->processor;
    r->stack_id = ev->stack_id;
    r->has_activity = has_activity;
    s->released[s->n] = false;
    if (ev->payload_size)
        memcpy(s->data.data + s->data.len, ev->payload, ev->payload_size);
    s->data.len += ev->payload_size;
    if (has_activity) {
        uint8_t *a = s->data.data + s->data.len;
        memset(a, 0, 32);
        if (ev->activity_id)
            memcpy(a, ev->activity_id, 16);
        if (ev->related_activity_id)
            memcpy(a + 16, ev->related_activity_id, 16);
        s->data.len += 32;
    }
    s->n++;
    if (ev->has_sequence)
        note_sequence(s, ev->capture_tid, ev->sequence);
    if (ev->is_sorted && (!s->have_watermark || ev->timestamp > s->watermark)) {
        s->watermark = ev->timestamp;
        s->have_watermark = true;
    }
    return GCS_OK;
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

/* Stable merge sort of keys by timestamp; runs already in order are cheap. */
static void merge_sort(sort_key *a, sort_key *tmp, size_t n)
{
    if (n < 2)
        return;
    if (n <= 16) {
        for (size_t i = 1; i < n; i++) {
            sort_key k = a[i];
            size_t j = i;
            while (j > 0 && (a[j - 1].ts > k.ts || (a[j - 1].ts == k.ts && a[j - 1].idx > k.idx))) {
                a[j] = a[j - 1];
                j--;
            }
            a[j] = k;
        }
        return;
    }
    size_t mid = n / 2;
    merge_sort(a, tmp, mid);
    merge_sort(a + mid, tmp, n - mid);
    if (a[mid - 1].ts < a[mid].ts || (a[mid - 1].ts == a[mid].ts && a[mid - 1].idx < a[mid].idx))
        return;
    memcpy(tmp, a, mid * sizeof *a);
    size_t i = 0, j = mid, k = 0;
    while (i < mid && j < n) {
        if (a[j].ts < tmp[i].ts || (a[j].ts == tmp[i].ts && a[j].idx < tmp[i].idx))
            a[k++] = a[j++];
        else
            a[k++] = tmp[i++];
    }
    while (i < mid)
        a[k++] = tmp[i++];
}

/* Drops consumed events, moving the pending ones to the front. */
static void compact(gcs_sorter *s)
{
    assert(s->ready_pos == s->ready_n);
    if (s->ready_n == 0)
        return;
    size_t w = 0;
    size_t out = 0;
    for (size_t i = 0; i < s->n; i++) {
        if (s->released[i])
            continue;
        gcs_sorted_event r = s->recs[i];
        size_t len = r.payload_size + (r.has_activity ? 32 : 0);
        /* Pending data only moves towards the front, so memmove is safe. */
        assert(r.data_offset >= out);
        memmove(s->data.data + out, s->data.data + r.data_offset, len);
        r.data_offset = out;
        out += len;
        s->recs[w] = r;
        s->released[w] = false;
        w++;
    }
    s->n = w;
    s->data.len = out;
    s->ready_n = s->ready_pos = 0;
}

/* Sorts what is pending and releases those older than limit (or all). */
static bool release(gcs_sorter *s, bool all, int64_t limit)
{
    compact(s);
    if (s->n == 0)
        return true;
    if (s->keys_cap < s->n) {
        size_t ncap = s->cap;
        sort_key *k = realloc(s->keys, ncap * sizeof *k);
        if (!k)
            return false;
        s->keys = k;
        sort_key *t = realloc(s->tmp, ncap * sizeof *t);
        if (!t)
            return false;
        s->tmp = t;
        uint32_t *rd = realloc(s->ready, ncap * sizeof *rd);
        if (!rd)
            return false;
        s->ready = rd;
        s->keys_cap = s->ready_cap = ncap;
    }
    for (size_t i = 0; i < s->n; i++) {
        s->keys[i].ts = s->recs[i].timestamp;
        s->keys[i].idx = (uint32_t)i;
    }
    merge_sort(s->keys, s->tmp, s->n);
    size_t k = 0;
    while (k < s->n && (all || s->keys[k].ts < limit)) {
        s->ready[k] = s->keys[k].idx;
        s->released[s->keys[k].idx] = true;
        k++;
    }
    s->ready_n = k;
    s->ready_pos = 0;
    return true;
}

void gcs_sorter_flush(gcs_sorter *s)
{
    if (s->ready_pos < s->ready_n)
        return; /* the caller drains first; flush is repeated after */
    s->release_all_requested = false;
    release(s, true, 0);
}

void gcs_sorter_settle(gcs_sorter *s, bool eager)
{
    if (s->ready_pos < s->ready_n)
        return;
    if (s->release_all_requested) {
        s->release_all_requested = false;
        release(s, true, 0);
        return;
    }
    if (s->data.len > s->window) {
        s->overflows++;
        release(s, true, 0);
        return;
    }
    if (s->have_watermark && (eager || s->data.len >= WATERMARK_RELEASE_BYTES))
        release(s, false, s->watermark);
}

bool gcs_sorter_ready(const gcs_sorter *s) { return s->ready_pos < s->ready_n; }

size_t gcs_sorter_pending(const gcs_sorter *s) { return s->n - s->ready_n; }

bool gcs_sorter_pop(gcs_sorter *s, const gcs_sorted_event **ev, const uint8_t **data)
{
    if (s->ready_pos >= s->ready_n)
        return false;
    const gcs_sorted_event *r = &s->recs[s->ready[s->ready_pos++]];
    *ev = r;
    *data = s->data.data + r->data_offset;
    return true;
}

uint64_t gcs_sorter_lost_events(const gcs_sorter *s) { return s->lost; }
uint64_t gcs_sorter_overflows(const gcs_sorter *s) { return s->overflows; }
