/* Unit tests of src/sort: ordering, release rules, lost-event counting. */
#include <string.h>

#include "check.h"

#include "sort/sorter.h"

static gcs_raw_event mk(int64_t ts, uint64_t tid, uint32_t seq, uint8_t payload_byte)
{
    static uint8_t payloads[256];
    payloads[payload_byte] = payload_byte;
    gcs_raw_event e = {0};
    e.timestamp = ts;
    e.tid = e.capture_tid = tid;
    e.has_sequence = true;
    e.sequence = seq;
    e.payload = &payloads[payload_byte];
    e.payload_size = 1;
    return e;
}

/* Pops everything ready into ts[]; returns how many. */
static size_t drain(gcs_sorter *s, int64_t *ts, uint8_t *bytes, size_t cap)
{
    size_t n = 0;
    const gcs_sorted_event *e;
    const uint8_t *d;
    while (n < cap && gcs_sorter_pop(s, &e, &d)) {
        ts[n] = e->timestamp;
        bytes[n] = d[0];
        n++;
    }
    return n;
}

static void test_sorts_between_sequence_points(void)
{
    gcs_sorter *s = gcs_sorter_new(0);
    gcs_error err;
    /* thread 1: 10, 15, 20; thread 2: 12, 13, 14 (file order per thread). */
    int64_t in_ts[] = {10, 15, 20, 12, 13, 14};
    uint64_t in_tid[] = {1, 1, 1, 2, 2, 2};
    uint32_t in_seq[] = {1, 2, 3, 1, 2, 3};
    for (int i = 0; i < 6; i++) {
        gcs_raw_event e = mk(in_ts[i], in_tid[i], in_seq[i], (uint8_t)(i + 1));
        CHECK_EQ_INT(gcs_sorter_add(s, &e, &err), GCS_OK);
    }
    gcs_sorter_settle(s, false);
    CHECK(!gcs_sorter_ready(s)); /* nothing may go before the sequence point */
    gcs_seq_entry sp[] = {{1, 3}, {2, 3}};
    gcs_sorter_sequence_point(s, sp, 2);
    gcs_sorter_settle(s, false);
    int64_t ts[8];
    uint8_t b[8];
    size_t n = drain(s, ts, b, 8);
    CHECK_EQ_U64(n, 6);
    int64_t want[] = {10, 12, 13, 14, 15, 20};
    uint8_t want_b[] = {1, 4, 5, 6, 2, 3};
    for (size_t i = 0; i < 6 && i < n; i++) {
        CHECK_EQ_INT(ts[i], want[i]);
        CHECK_EQ_INT(b[i], want_b[i]);
    }
    CHECK_EQ_U64(gcs_sorter_lost_events(s), 0);
    /* Next region after compaction. */
    gcs_raw_event e = mk(30, 1, 4, 9);
    CHECK_EQ_INT(gcs_sorter_add(s, &e, &err), GCS_OK);
    gcs_sorter_flush(s);
    n = drain(s, ts, b, 8);
    CHECK_EQ_U64(n, 1);
    CHECK_EQ_INT(ts[0], 30);
    CHECK_EQ_INT(b[0], 9);
    gcs_sorter_free(s);
}

/* A container that releases every event as it adds it (CTF: the stream
 * files merged by time, one event and a sequence point a step) never
 * leaves the sorter empty at a release: its records must not grow with
 * the trace (the bench's 2.9 M-event CTF shape held 183 MB of them). */
static void test_one_event_a_step_stays_bounded(void)
{
    gcs_sorter *s = gcs_sorter_new(0);
    gcs_error err;
    int64_t ts[2];
    uint8_t b[2];
    size_t max_cap = 0, popped = 0;
    for (uint32_t i = 0; i < 200000; i++) {
        gcs_raw_event e = mk(1000 + i, 7, i + 1, (uint8_t)i);
        CHECK_EQ_INT(gcs_sorter_add(s, &e, &err), GCS_OK);
        gcs_sorter_sequence_point(s, NULL, 0);
        gcs_sorter_settle(s, false);
        size_t n = drain(s, ts, b, 2);
        CHECK_EQ_U64(n, 1);
        if (n == 1) {
            CHECK_EQ_INT(ts[0], 1000 + (int64_t)i);
            CHECK_EQ_INT(b[0], (uint8_t)i);
            popped++;
        }
        gcs_sorter_end_step(s);
        if (s->cap > max_cap)
            max_cap = s->cap;
    }
    CHECK_EQ_U64(popped, 200000);
    /* Never past the first allocation (one 2 MiB huge page of records). */
    CHECK(max_cap > 0 && max_cap <= GCS_BIG_BYTES / sizeof(gcs_sorted_event));
    gcs_sorter_free(s);
}

static void test_equal_timestamps_keep_file_order(void)
{
    gcs_sorter *s = gcs_sorter_new(0);
    gcs_error err;
    for (int i = 0; i < 40; i++) {
        gcs_raw_event e = mk(i % 2 ? 5 : 7, 1, (uint32_t)i + 1, (uint8_t)i);
        CHECK_EQ_INT(gcs_sorter_add(s, &e, &err), GCS_OK);
    }
    gcs_sorter_flush(s);
    int64_t ts[64];
    uint8_t b[64];
    size_t n = drain(s, ts, b, 64);
    CHECK_EQ_U64(n, 40);
    /* 20 events at 5 (odd i ascending), then 20 at 7 (even i ascending). */
    for (size_t i = 0; i < 20; i++) {
        CHECK_EQ_INT(b[i], 2 * i + 1);
        CHECK_EQ_INT(b[20 + i], 2 * i);
    }
    gcs_sorter_free(s);
}

static void test_lost_events(void)
{
    gcs_sorter *s = gcs_sorter_new(0);
    gcs_error err;
    gcs_raw_event e = mk(1, 7, 1, 0);
    gcs_sorter_add(s, &e, &err);
    e = mk(2, 7, 2, 0);
    gcs_sorter_add(s, &e, &err);
    e = mk(3, 7, 6, 0); /* 3, 4, 5 dropped */
    gcs_sorter_add(s, &e, &err);
    CHECK_EQ_U64(gcs_sorter_lost_events(s), 3);
    /* A sequence point says thread 7 reached 9 (7, 8, 9 dropped) and an
     * unseen thread 8 reached 2 (both its events dropped). */
    gcs_seq_entry sp[] = {{7, 9}, {8, 2}};
    gcs_sorter_sequence_point(s, sp, 2);
    CHECK_EQ_U64(gcs_sorter_lost_events(s), 3 + 3 + 2);
    /* Numbers continue after the sequence point without a new loss. */
    e = mk(4, 7, 10, 0);
    gcs_sorter_add(s, &e, &err);
    CHECK_EQ_U64(gcs_sorter_lost_events(s), 8);
    /* Wrap-around of the 32-bit counter is not a loss. */
    gcs_sorter *w = gcs_sorter_new(0);
    e = mk(1, 3, 1, 0);
    gcs_sorter_add(w, &e, &err);
    gcs_seq_entry sp2[] = {{3, UINT32_MAX}};
    gcs_sorter_sequence_point(w, sp2, 1);
    uint64_t before = gcs_sorter_lost_events(w);
    e = mk(2, 3, 0, 0);
    gcs_sorter_add(w, &e, &err);
    CHECK_EQ_U64(gcs_sorter_lost_events(w), before);
    gcs_sorter_free(w);
    gcs_sorter_free(s);
}

static void test_watermark_release(void)
{
    gcs_sorter *s = gcs_sorter_new(0);
    gcs_error err;
    gcs_raw_event e = mk(50, 1, 1, 1);
    gcs_sorter_add(s, &e, &err);
    e = mk(40, 2, 1, 2);
    gcs_sorter_add(s, &e, &err);
    e = mk(60, 1, 2, 3);
    e.is_sorted = true; /* everything after is >= 60 */
    gcs_sorter_add(s, &e, &err);
    e = mk(70, 2, 2, 4);
    gcs_sorter_add(s, &e, &err);
    gcs_sorter_settle(s, true);
    int64_t ts[8];
    uint8_t b[8];
    size_t n = drain(s, ts, b, 8);
    CHECK_EQ_U64(n, 2); /* 40 and 50 are older than the watermark */
    CHECK_EQ_INT(ts[0], 40);
    CHECK_EQ_INT(ts[1], 50);
    CHECK_EQ_U64(gcs_sorter_pending(s), 2);
    e = mk(65, 3, 1, 5);
    gcs_sorter_add(s, &e, &err);
    gcs_sorter_flush(s);
    n = drain(s, ts, b, 8);
    CHECK_EQ_U64(n, 3);
    CHECK_EQ_INT(ts[0], 60);
    CHECK_EQ_INT(ts[1], 65);
    CHECK_EQ_INT(ts[2], 70);
    CHECK_EQ_INT(b[1], 5);
    gcs_sorter_free(s);
}

static void test_window_overflow_is_counted(void)
{
    gcs_sorter *s = gcs_sorter_new(4096);
    gcs_error err;
    static uint8_t big[1024];
    size_t released = 0;
    for (int i = 0; i < 20; i++) {
        gcs_raw_event e = mk(100 - i, 1, (uint32_t)i + 1, 0);
        e.payload = big;
        e.payload_size = sizeof big;
        CHECK_EQ_INT(gcs_sorter_add(s, &e, &err), GCS_OK);
        gcs_sorter_settle(s, false);
        gcs_sorter_end_step(s);
        const gcs_sorted_event *r;
        const uint8_t *d;
        while (gcs_sorter_pop(s, &r, &d))
            released++;
    }
    CHECK(gcs_sorter_overflows(s) >= 3); /* 20 KiB through a 4 KiB window */
    gcs_sorter_flush(s);
    const gcs_sorted_event *r;
    const uint8_t *d;
    while (gcs_sorter_pop(s, &r, &d))
        released++;
    CHECK_EQ_U64(released, 20);
    gcs_sorter_free(s);
}

/* Pending payloads leave the unit at the end of a step: copied in one span
 * when they lie in it, one by one when one of them does not. Either way the
 * bytes delivered are the event's. */
static void test_end_step_copies_payloads(void)
{
    for (int outside = 0; outside < 2; outside++) {
        gcs_sorter *s = gcs_sorter_new(0);
        gcs_error err;
        uint8_t unit[64], other[4] = {0xEE, 0xEE, 0xEE, 0xEE};
        for (int i = 0; i < 64; i++)
            unit[i] = (uint8_t)(100 + i);
        /* Three events of one step, payloads at unit[2..5), [8..11), [14..17)
         * (row headers between); with `outside`, the second is elsewhere. */
        const uint8_t *at[3] = {unit + 2, outside ? other : unit + 8, unit + 14};
        for (int i = 0; i < 3; i++) {
            gcs_raw_event e = mk(10 + i, 1, (uint32_t)i + 1, 0);
            e.payload = at[i];
            e.payload_size = 3;
            CHECK_EQ_INT(gcs_sorter_add(s, &e, &err), GCS_OK);
        }
        gcs_sorter_settle(s, false);
        gcs_sorter_end_step_within(s, unit, unit + sizeof unit);
        memset(unit, 0, sizeof unit); /* the unit is reused */
        memset(other, 0, sizeof other);
        gcs_sorter_flush(s);
        const gcs_sorted_event *r;
        const uint8_t *d;
        int k = 0;
        while (gcs_sorter_pop(s, &r, &d)) {
            CHECK_EQ_INT(r->payload_size, 3);
            CHECK_EQ_INT(d[0], outside && k == 1 ? 0xEE : 100 + 2 + 6 * k);
            CHECK_EQ_INT(d[2], outside && k == 1 ? 0xEE : 100 + 4 + 6 * k);
            k++;
        }
        CHECK_EQ_INT(k, 3);
        gcs_sorter_free(s);
    }
}

/* Deferred payloads (gcs_sorter_end_step_deferred) stay in the view
 * across steps, released or not, and are copied when the view is about to
 * move: bytes overwritten after gcs_sorter_store_deferred never reach the
 * consumer. A payload outside the view is copied when its step ends. */
static void test_deferred_payloads_follow_the_view(void)
{
    for (int outside = 0; outside < 2; outside++) {
        gcs_sorter *s = gcs_sorter_new(0);
        gcs_error err;
        uint8_t view[64], other[3] = {0xEE, 0xEE, 0xEE};
        for (int i = 0; i < 64; i++)
            view[i] = (uint8_t)(100 + i);
        /* Two steps of two events each, on two threads (no release before
         * the sequence point); with `outside`, the third is elsewhere. */
        for (int i = 0; i < 4; i++) {
            gcs_raw_event e = mk(10 + i, 1 + (uint64_t)(i & 1), (uint32_t)(i / 2) + 1, 0);
            e.payload = outside && i == 2 ? other : view + 4 * i;
            e.payload_size = 3;
            CHECK_EQ_INT(gcs_sorter_add(s, &e, &err), GCS_OK);
            if (i & 1) {
                gcs_sorter_settle(s, false);
                gcs_sorter_end_step_deferred(s, view, view + sizeof view);
            }
        }
        CHECK(!gcs_sorter_ready(s));
        memset(other, 0, sizeof other); /* its step ended: it was copied */
        /* Written inside the first payload after its step ended: a
         * deferred payload was not copied then, so the copy made when the
         * view moves carries it. */
        view[1] = 0x55;
        gcs_sorter_store_deferred(s);
        memset(view, 0, sizeof view); /* the view moved */
        gcs_seq_entry sp[] = {{1, 2}, {2, 2}};
        gcs_sorter_sequence_point(s, sp, 2);
        gcs_sorter_settle(s, false);
        const gcs_sorted_event *r;
        const uint8_t *d;
        int k = 0;
        while (gcs_sorter_pop(s, &r, &d)) {
            CHECK_EQ_INT(r->payload_size, 3);
            CHECK_EQ_INT(d[0], outside && k == 2 ? 0xEE : 100 + 4 * k);
            CHECK_EQ_INT(d[1], outside && k == 2 ? 0xEE : k == 0 ? 0x55 : 101 + 4 * k);
            CHECK_EQ_INT(d[2], outside && k == 2 ? 0xEE : 102 + 4 * k);
            k++;
        }
        CHECK_EQ_INT(k, 4);
        gcs_sorter_free(s);
    }
}

/* Deferring copies changes no release: the same events through a small
 * window, one event a step with a sequence point now and then, come out
 * in the same order at the same steps, with the same overflows, whether
 * each step's payloads are copied when it ends or deferred to a view
 * that moves every few steps. */
static void test_deferred_releases_as_copied(void)
{
    enum { EVENTS = 400 };
    static uint8_t view[EVENTS * 64];
    for (size_t i = 0; i < sizeof view; i++)
        view[i] = (uint8_t)(i * 7);
    uint64_t trail[2][EVENTS + 64];
    size_t trail_n[2] = {0, 0};
    uint64_t overflows[2];
    for (int deferred = 0; deferred < 2; deferred++) {
        gcs_sorter *s = gcs_sorter_new(2048);
        gcs_error err;
        uint32_t seq[3] = {0, 0, 0};
        uint64_t x = 12345;
        for (uint32_t i = 0; i < EVENTS; i++) {
            x = x * 6364136223846793005ull + 1442695040888963407ull;
            uint64_t tid = 1 + (x >> 40) % 3;
            gcs_raw_event e = mk((int64_t)(i * 10 + (x >> 50) % 25), tid, ++seq[tid - 1], 0);
            e.payload = view + 64 * i;
            e.payload_size = 8 + (uint32_t)((x >> 33) % 56);
            CHECK_EQ_INT(gcs_sorter_add(s, &e, &err), GCS_OK);
            if (i % 160 == 159) {
                gcs_seq_entry sp[] = {{1, seq[0]}, {2, seq[1]}, {3, seq[2]}};
                gcs_sorter_sequence_point(s, sp, 3);
            }
            gcs_sorter_settle(s, false);
            if (deferred) {
                gcs_sorter_end_step_deferred(s, view, view + sizeof view);
                if (i % 5 == 4)
                    gcs_sorter_store_deferred(s);
            } else {
                gcs_sorter_end_step(s);
            }
            const gcs_sorted_event *r;
            const uint8_t *d;
            while (gcs_sorter_pop(s, &r, &d)) {
                trail[deferred][trail_n[deferred]++] =
                    ((uint64_t)i << 40) ^ ((uint64_t)r->timestamp << 8) ^ d[r->payload_size - 1];
            }
        }
        gcs_sorter_flush(s);
        const gcs_sorted_event *r;
        const uint8_t *d;
        while (gcs_sorter_pop(s, &r, &d))
            trail[deferred][trail_n[deferred]++] =
                ((uint64_t)EVENTS << 40) ^ ((uint64_t)r->timestamp << 8) ^ d[r->payload_size - 1];
        overflows[deferred] = gcs_sorter_overflows(s);
        gcs_sorter_free(s);
    }
    CHECK(overflows[0] >= 3); /* the window did decide releases */
    CHECK_EQ_U64(overflows[1], overflows[0]);
    CHECK_EQ_U64(trail_n[1], trail_n[0]);
    CHECK_EQ_U64(trail_n[0], EVENTS);
    for (size_t i = 0; i < trail_n[0] && i < trail_n[1]; i++)
        CHECK_EQ_U64(trail[1][i], trail[0][i]);
}

/* A zero-byte payload copied when the step ends, before anything was ever
 * stored, comes back as a valid pointer (found by fuzzing: the store was
 * still unallocated and pop computed NULL + 0, undefined behaviour). */
static void test_empty_payload_before_any_store(void)
{
    gcs_sorter *s = gcs_sorter_new(0);
    gcs_error err;
    uint8_t unit[8] = {0};
    gcs_raw_event e = mk(10, 1, 1, 0);
    e.payload = unit;
    e.payload_size = 0;
    CHECK_EQ_INT(gcs_sorter_add(s, &e, &err), GCS_OK);
    gcs_sorter_settle(s, false);
    gcs_sorter_end_step_within(s, unit, unit + sizeof unit);
    gcs_sorter_flush(s);
    const gcs_sorted_event *r;
    const uint8_t *d = NULL;
    CHECK(gcs_sorter_pop(s, &r, &d));
    CHECK(d != NULL);
    CHECK_EQ_INT(r->payload_size, 0);
    CHECK_EQ_INT(r->timestamp, 10);
    gcs_sorter_free(s);
}

/* A zero-byte payload with an activity id: the id is stored right after
 * the (empty) payload and must come back from there (a first fix of the
 * test above handed back an empty literal and read the id past it). */
static void test_empty_payload_with_activity_id(void)
{
    gcs_sorter *s = gcs_sorter_new(0);
    gcs_error err;
    uint8_t unit[8] = {0}, act[16];
    memset(act, 0x5A, sizeof act);
    gcs_raw_event e = mk(10, 1, 1, 0);
    e.payload = unit;
    e.payload_size = 0;
    e.activity_id = act;
    CHECK_EQ_INT(gcs_sorter_add(s, &e, &err), GCS_OK);
    gcs_sorter_settle(s, false);
    gcs_sorter_end_step_within(s, unit, unit + sizeof unit);
    gcs_sorter_flush(s);
    const gcs_sorted_event *r;
    const uint8_t *d = NULL;
    CHECK(gcs_sorter_pop(s, &r, &d));
    CHECK(r->has_activity);
    CHECK_EQ_INT(r->payload_size, 0);
    CHECK_EQ_INT(d[0], 0x5A);
    CHECK_EQ_INT(d[15], 0x5A);
    gcs_sorter_free(s);
}

/* Events released in the step that brought them are delivered from the
 * unit itself; only the pending rest is copied when the step ends. */
static void test_released_in_step_stay_by_reference(void)
{
    gcs_sorter *s = gcs_sorter_new(0);
    gcs_error err;
    uint8_t unit[32];
    for (int i = 0; i < 32; i++)
        unit[i] = (uint8_t)(50 + i);
    for (int i = 0; i < 3; i++) {
        gcs_raw_event e = mk(10 + i, 1, (uint32_t)i + 1, 0);
        e.payload = unit + 4 * i;
        e.payload_size = 2;
        e.is_sorted = i == 2; /* nothing after it is older: 10 and 11 may go */
        CHECK_EQ_INT(gcs_sorter_add(s, &e, &err), GCS_OK);
    }
    gcs_sorter_settle(s, true);
    gcs_sorter_end_step_within(s, unit, unit + sizeof unit);
    const gcs_sorted_event *r;
    const uint8_t *d;
    for (int i = 0; i < 2; i++) {
        CHECK(gcs_sorter_pop(s, &r, &d));
        CHECK_EQ_INT(r->timestamp, 10 + i);
        CHECK(d == unit + 4 * i); /* by reference, uncopied */
    }
    CHECK(!gcs_sorter_pop(s, &r, &d));
    memset(unit, 0, sizeof unit); /* the unit is reused */
    gcs_sorter_flush(s);
    CHECK(gcs_sorter_pop(s, &r, &d));
    CHECK_EQ_INT(r->timestamp, 12);
    CHECK(d < unit || d >= unit + sizeof unit);
    CHECK_EQ_INT(d[0], 58);
    CHECK_EQ_INT(d[1], 59);
    gcs_sorter_free(s);
}

/* An event with activity ids goes to the store when added, the by-reference
 * events before it in the same step only when the step ends: store order
 * then differs from arrival order, and compaction must still keep every
 * payload intact. */
static void test_compaction_with_activity_ids(void)
{
    gcs_sorter *s = gcs_sorter_new(0);
    gcs_error err;
    uint8_t unit[16], act[16];
    memset(unit, 0xA1, sizeof unit);
    memset(act, 0x5A, sizeof act);
    gcs_raw_event a = mk(100, 1, 1, 0);
    a.payload = unit;
    a.payload_size = 10;
    CHECK_EQ_INT(gcs_sorter_add(s, &a, &err), GCS_OK);
    gcs_raw_event b = mk(101, 1, 2, 0);
    b.payload = unit + 10;
    b.payload_size = 6;
    b.activity_id = act;
    unit[10] = 0xB2;
    CHECK_EQ_INT(gcs_sorter_add(s, &b, &err), GCS_OK);
    gcs_sorter_settle(s, false);
    gcs_sorter_end_step_within(s, unit, unit + sizeof unit);
    memset(unit, 0, sizeof unit);
    /* Another thread's older events, released past them: > 4 MiB garbage. */
    static uint8_t big[110 << 10];
    for (int i = 0; i < 49; i++) {
        gcs_raw_event e = mk(1 + i, 2, (uint32_t)i + 1, 0);
        e.payload = big;
        e.payload_size = sizeof big;
        e.is_sorted = i == 48;
        CHECK_EQ_INT(gcs_sorter_add(s, &e, &err), GCS_OK);
        gcs_sorter_end_step(s);
    }
    gcs_sorter_settle(s, true);
    const gcs_sorted_event *r;
    const uint8_t *d;
    size_t released = 0;
    while (gcs_sorter_pop(s, &r, &d))
        released++;
    CHECK_EQ_U64(released, 48);
    gcs_sorter_flush(s); /* compacts, then releases the rest */
    int seen = 0;
    while (gcs_sorter_pop(s, &r, &d)) {
        if (r->timestamp == 100) {
            CHECK_EQ_INT(d[0], 0xA1);
            CHECK_EQ_INT(d[9], 0xA1);
            seen++;
        } else if (r->timestamp == 101) {
            CHECK(r->has_activity);
            CHECK_EQ_INT(d[0], 0xB2);
            CHECK_EQ_INT(d[6], 0x5A); /* activity id after the payload */
            seen++;
        }
    }
    CHECK_EQ_INT(seen, 2);
    gcs_sorter_free(s);
}

/* A deterministic pseudo-random number below n. */
static uint32_t next_below(uint32_t *state, uint32_t n)
{
    *state = *state * 1103515245u + 12345u;
    return (*state >> 8) % n;
}

/*
 * Threads (1 to 20) writing blocks of 1 to 8 events in turn, timestamps
 * with many ties between threads, in phases whose first event carries the
 * IsSorted watermark: every release (eager settles after each block, a
 * flush at the end) merges a few interleaved runs or, past 8, many. The
 * events come out in (time, arrival) order, each once, payloads intact.
 */
static void test_merge_of_many_runs_is_a_stable_sort(void)
{
    enum { MAX_EVENTS = 2400 };
    static uint32_t payload[MAX_EVENTS];
    static int64_t ts_of[MAX_EVENTS];
    static uint32_t out[MAX_EVENTS];
    for (uint32_t threads = 1; threads <= 20; threads++) {
        uint32_t rng = threads * 7919u;
        gcs_sorter *s = gcs_sorter_new(0);
        gcs_error err;
        int64_t thread_ts[20] = {0};
        uint32_t thread_seq[20] = {0};
        size_t n = 0, n_out = 0;
        for (int phase = 1; phase <= 6; phase++) {
            bool first_of_phase = true;
            for (uint32_t t = 0; t < threads; t++)
                thread_ts[t] = (int64_t)phase * 100000;
            for (int block = 0; block < 40 && n < MAX_EVENTS - 8; block++) {
                uint32_t t = next_below(&rng, threads);
                uint32_t len = 1 + next_below(&rng, 8);
                for (uint32_t i = 0; i < len; i++) {
                    payload[n] = (uint32_t)n;
                    ts_of[n] = thread_ts[t];
                    gcs_raw_event e = {0};
                    e.timestamp = thread_ts[t];
                    /* Ties within and across threads; a phase's first event
                     * is its earliest (its watermark holds). */
                    thread_ts[t] += next_below(&rng, 3);
                    e.tid = e.capture_tid = 100 + t;
                    e.has_sequence = true;
                    e.sequence = ++thread_seq[t];
                    e.payload = (const uint8_t *)&payload[n];
                    e.payload_size = sizeof payload[n];
                    e.is_sorted = first_of_phase;
                    first_of_phase = false;
                    CHECK_EQ_INT(gcs_sorter_add(s, &e, &err), GCS_OK);
                    n++;
                }
                gcs_sorter_settle(s, true);
                const gcs_sorted_event *r;
                const uint8_t *d;
                while (gcs_sorter_pop(s, &r, &d) && n_out < MAX_EVENTS)
                    memcpy(&out[n_out++], d, sizeof out[0]);
                gcs_sorter_end_step(s);
            }
        }
        const gcs_sorted_event *r;
        const uint8_t *d;
        for (;;) {
            gcs_sorter_flush(s);
            if (!gcs_sorter_ready(s))
                break;
            while (gcs_sorter_pop(s, &r, &d) && n_out < MAX_EVENTS)
                memcpy(&out[n_out++], d, sizeof out[0]);
        }
        CHECK_EQ_U64(n_out, n);
        /* (time, arrival) ascending, so each arrival index once. */
        for (size_t i = 1; i < n_out; i++) {
            uint32_t a = out[i - 1], b = out[i];
            bool in_order = a < n && b < n &&
                            (ts_of[a] < ts_of[b] || (ts_of[a] == ts_of[b] && a < b));
            CHECK(in_order);
            if (!in_order)
                break; /* one message per thread count */
        }
        CHECK_EQ_U64(gcs_sorter_lost_events(s), 0);
        gcs_sorter_free(s);
    }
}

static void test_thread_end_counts_lost_tail(void)
{
    gcs_sorter *s = gcs_sorter_new(0);
    gcs_error err;
    gcs_raw_event e = mk(1, 5, 1, 0);
    gcs_sorter_add(s, &e, &err);
    e = mk(2, 5, 2, 0);
    gcs_sorter_add(s, &e, &err);
    gcs_sorter_end_step(s);
    /* The thread says it used numbers up to 4: 3 and 4 never arrived. */
    gcs_sorter_thread_end(s, 5, 4);
    CHECK_EQ_U64(gcs_sorter_lost_events(s), 2);
    CHECK(!gcs_sorter_ready(s)); /* not a barrier */
    /* A new thread on the same OS id starts from 1 again: no loss. */
    e = mk(3, 5, 1, 0);
    gcs_sorter_add(s, &e, &err);
    gcs_sorter_end_step(s);
    CHECK_EQ_U64(gcs_sorter_lost_events(s), 2);
    /* A thread that ends where its events did loses nothing. */
    gcs_sorter_thread_end(s, 5, 1);
    CHECK_EQ_U64(gcs_sorter_lost_events(s), 2);
    gcs_sorter_flush(s);
    gcs_sorter_free(s);
}

/* One step of the tap test's stream: `n` events of one capture thread. */
typedef struct tap_stream {
    uint64_t x;      /* generator state */
    uint32_t seq[4]; /* per thread */
    int64_t ts[4];
    uint32_t id;     /* next event's id, its payload's first 4 bytes */
} tap_stream;

static uint64_t tap_next(tap_stream *t)
{
    t->x = t->x * 6364136223846793005ull + 1442695040888963407ull;
    return t->x >> 17;
}

/*
 * Tapped events (gcs_sorter_add_tap) come out where they would have come
 * as records: one sorter takes every event as a record, the other takes
 * the events of key 7 as tap rows, both fed the same random stream (four
 * threads in blocks, time going back now and then, equal timestamps,
 * IsSorted flags, sequence points, lost events, a 3 KiB window that
 * overflows, payloads of 0 to 200 bytes, some with activity ids, steps
 * ended copying or deferring, arrival numbers wrapping past 2^32); the
 * ids of the events, handed out by gcs_sorter_pop_tap (or in batches by
 * gcs_sorter_take_taps) and gcs_sorter_pop in turn, must be the same
 * sequence, after every step.
 */
static void test_tap_rows_come_out_as_records_would(void)
{
    enum { STEPS = 6000 };
    static uint8_t view[1 << 16];
    for (int round = 0; round < 6; round++) {
        static uint32_t trail[2][STEPS * 16];
        size_t trail_n[2] = {0, 0};
        uint64_t lost[2], overflows[2];
        for (int tapped = 0; tapped < 2; tapped++) {
            gcs_sorter *s = gcs_sorter_new(round % 2 ? 3072 : 0);
            s->lane.io.arrivals = UINT32_MAX - 3000; /* numbers wrap during the test */
            gcs_error err;
            tap_stream t = {(uint64_t)round * 7919 + 1, {0, 0, 0, 0}, {100, 100, 100, 100}, 0};
            for (int step = 0; step < STEPS; step++) {
                size_t used = 0;
                uint64_t tid = 1 + tap_next(&t) % 4;
                int n = 1 + (int)(tap_next(&t) % 12);
                for (int i = 0; i < n; i++) {
                    uint64_t r = tap_next(&t);
                    /* Mostly forward, sometimes the same tick, sometimes back. */
                    int64_t step_ts = r % 16 == 0 ? -(int64_t)(r >> 8) % 50 : (int64_t)(r % 5);
                    t.ts[tid - 1] += step_ts;
                    uint32_t size = (uint32_t)(tap_next(&t) % 201);
                    if (size < 4)
                        size = 4 * (size & 1); /* 0 or at least the id */
                    if (used + size > sizeof view)
                        break;
                    uint8_t *payload = view + used;
                    memcpy(payload, &t.id, size ? 4 : 0);
                    used += size;
                    gcs_raw_event e = {0};
                    e.timestamp = t.ts[tid - 1];
                    e.tid = e.capture_tid = tid;
                    e.has_sequence = true;
                    /* A number skipped now and then: lost events. */
                    t.seq[tid - 1] += 1 + (tap_next(&t) % 97 == 0);
                    e.sequence = t.seq[tid - 1];
                    e.is_sorted = tap_next(&t) % 40 == 0;
                    static const uint8_t activity[16] = {1};
                    e.activity_id = tap_next(&t) % 30 == 0 ? activity : NULL;
                    e.payload = payload;
                    e.payload_size = size;
                    e.metadata_id = 5 + (uint32_t)(tap_next(&t) % 3); /* 5, 6, 7 */
                    if (size == 0)
                        e.metadata_id = 7; /* tapped: its id rides in the tid */
                    /* Now and then two steps without tap rows, each ended by
                     * a sequence point: a release finds the lane empty. */
                    if (step % 200 >= 198 && size)
                        e.metadata_id = 5;
                    e.tid = size ? e.tid : 1000 + t.id;
                    bool tap = tapped && e.metadata_id == 7 && !e.activity_id;
                    CHECK_EQ_INT(tap ? gcs_sorter_add_tap(s, &e, &t, 0, &err)
                                     : gcs_sorter_add(s, &e, &err),
                                 GCS_OK);
                    t.id++;
                }
                if (tap_next(&t) % 25 == 0 || step % 200 >= 198) {
                    gcs_seq_entry sp[4];
                    for (int k = 0; k < 4; k++)
                        sp[k] = (gcs_seq_entry){(uint64_t)k + 1, t.seq[k]};
                    gcs_sorter_sequence_point(s, sp, 4);
                }
                gcs_sorter_settle(s, false);
                if (step % 3 == 0)
                    gcs_sorter_end_step(s);
                else
                    gcs_sorter_end_step_deferred(s, view, view + sizeof view);
                gcs_sorter_store_deferred(s); /* the view is rewritten next step */
                for (int last = 0; last < 2; last++) {
                    if (last && step < STEPS - 1)
                        break;
                    if (last)
                        gcs_sorter_flush(s);
                    for (;;) {
                        const gcs_tap_row *row;
                        const gcs_sorted_event *r;
                        const uint8_t *d;
                        uint32_t id;
                        /* Odd rounds take the taps in batches
                         * (gcs_sorter_take_taps), even ones one by one. */
                        const size_t *idx;
                        size_t batch = round % 2 ? gcs_sorter_take_taps(s, &idx) : 0;
                        for (size_t b = 0; b < batch; b++) {
                            row = &gcs_sorter_tap_lane(s)->rows[idx[b]];
                            if (row->payload_size)
                                memcpy(&id, row->head, 4);
                            else
                                id = (uint32_t)(row->tid - 1000);
                            trail[tapped][trail_n[tapped]++] = id;
                        }
                        if (batch)
                            continue;
                        if (round % 2 == 0 && gcs_sorter_pop_tap(s, &row)) {
                            if (row->payload_size)
                                memcpy(&id, row->head, 4);
                            else
                                id = (uint32_t)(row->tid - 1000);
                        } else if (gcs_sorter_pop(s, &r, &d)) {
                            if (r->payload_size)
                                memcpy(&id, d, 4);
                            else
                                id = (uint32_t)(r->tid - 1000);
                        } else {
                            break;
                        }
                        trail[tapped][trail_n[tapped]++] = id;
                    }
                }
            }
            lost[tapped] = gcs_sorter_lost_events(s);
            overflows[tapped] = gcs_sorter_overflows(s);
            CHECK_EQ_U64(gcs_sorter_pending(s), 0);
            gcs_sorter_free(s);
        }
        if (round % 2)
            CHECK(overflows[0] >= 3); /* the window decided releases */
        CHECK(lost[0] > 0);
        CHECK_EQ_U64(lost[1], lost[0]);
        CHECK_EQ_U64(overflows[1], overflows[0]);
        CHECK_EQ_U64(trail_n[1], trail_n[0]);
        size_t differ = 0;
        for (size_t i = 0; i < trail_n[0] && i < trail_n[1]; i++)
            differ += trail[1][i] != trail[0][i];
        CHECK_EQ_U64(differ, 0);
    }
}

int main(void)
{
    RUN(test_thread_end_counts_lost_tail);
    RUN(test_tap_rows_come_out_as_records_would);
    RUN(test_merge_of_many_runs_is_a_stable_sort);
    RUN(test_compaction_with_activity_ids);
    RUN(test_end_step_copies_payloads);
    RUN(test_deferred_payloads_follow_the_view);
    RUN(test_deferred_releases_as_copied);
    RUN(test_empty_payload_before_any_store);
    RUN(test_empty_payload_with_activity_id);
    RUN(test_released_in_step_stay_by_reference);
    RUN(test_sorts_between_sequence_points);
    RUN(test_equal_timestamps_keep_file_order);
    RUN(test_one_event_a_step_stays_bounded);
    RUN(test_lost_events);
    RUN(test_watermark_release);
    RUN(test_window_overflow_is_counted);
    return check_report("test_sorter");
}
