/*
 * Harness: the ways of reading one input agree. gcs_reader_scan (counts
 * without delivering) and filtered reads (options.want = gcs_gc_wants, as
 * `stats`; gcs_objects_wants, as `objects`) end with the status, error
 * offset and counters of the full gcs_reader_next read; a filtered read
 * delivers exactly the full read's events of its filter (the same
 * multiset, and the same sequence when both came out in timestamp order).
 * The rules of tests/unit/test_reader_robust.c, on any input.
 */
#include "fuzz_common.h"

#include <string.h>

#include "gcscope.h"

typedef enum read_mode { READ_ALL, READ_SCAN, READ_WANT } read_mode;

typedef struct outcome {
    gcs_status status;
    uint64_t offset;
    gcs_reader_stats stats;
    uint64_t events; /* full read: delivered; the others: stats.events */
    uint64_t want_events, want_sequence, want_sum; /* over the filter's events */
    bool in_order;
} outcome;

static uint64_t event_hash(const gcs_event *ev)
{
    uint64_t h = ((uint64_t)ev->timestamp + ev->payload_size) * 0x9E3779B97F4A7C15ull;
    return h ^ (h >> 29);
}

typedef bool (*filter_fn)(void *, const gcs_event_type *);

static outcome read_mode_of(const uint8_t *data, size_t size, read_mode mode, filter_fn wants)
{
    outcome o;
    memset(&o, 0, sizeof o);
    o.in_order = true;
    gcs_error err;
    gcs_error_clear(&err);
    gcs_source *src = gcs_source_from_memory(data, size, &err);
    gcs_reader_options opts = {.want = mode == READ_WANT ? wants : NULL};
    gcs_reader *r = src ? gcs_reader_new(src, &opts, &err) : NULL;
    FUZZ_REQUIRE(r != NULL);
    gcs_status st;
    if (mode == READ_SCAN) {
        st = gcs_reader_scan(r, &err);
    } else {
        const gcs_event *ev;
        int64_t last = INT64_MIN;
        while ((st = gcs_reader_next(r, &ev, &err)) == GCS_OK) {
            if (ev->timestamp < last)
                o.in_order = false;
            last = ev->timestamp;
            o.events++;
            if (mode == READ_WANT || wants(NULL, ev->type)) {
                FUZZ_REQUIRE(wants(NULL, ev->type));
                o.want_events++;
                o.want_sequence = o.want_sequence * 31 + (uint64_t)ev->timestamp + ev->payload_size;
                o.want_sum += event_hash(ev);
            }
        }
    }
    FUZZ_REQUIRE(st != GCS_AGAIN && st != GCS_OK);
    o.status = st;
    o.offset = st < 0 ? err.offset : 0;
    FUZZ_REQUIRE(st == GCS_END || err.offset <= size);
    o.stats = *gcs_reader_get_stats(r);
    if (mode != READ_ALL)
        o.events = o.stats.events;
    gcs_reader_free(r);
    gcs_source_free(src);
    return o;
}

static void require_same(const outcome *full, const outcome *other, read_mode mode)
{
    FUZZ_REQUIRE(other->status == full->status);
    FUZZ_REQUIRE(other->offset == full->offset);
    FUZZ_REQUIRE(other->events == full->events);
    FUZZ_REQUIRE(other->stats.lost_events == full->stats.lost_events);
    FUZZ_REQUIRE(other->stats.unknown_events == full->stats.unknown_events);
    FUZZ_REQUIRE(other->stats.undecodable_events == full->stats.undecodable_events);
    FUZZ_REQUIRE(other->stats.bytes_read == full->stats.bytes_read);
    if (full->in_order) {
        FUZZ_REQUIRE(other->stats.first_timestamp == full->stats.first_timestamp);
        FUZZ_REQUIRE(other->stats.last_timestamp == full->stats.last_timestamp);
    }
    if (mode == READ_WANT) {
        FUZZ_REQUIRE(other->want_events == full->want_events);
        FUZZ_REQUIRE(other->want_sum == full->want_sum);
        if (full->in_order && other->in_order)
            FUZZ_REQUIRE(other->want_sequence == full->want_sequence);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const filter_fn filters[] = {gcs_gc_wants, gcs_objects_wants};
    for (size_t f = 0; f < sizeof filters / sizeof *filters; f++) {
        /* The full read sums over this filter's events. */
        outcome full = read_mode_of(data, size, READ_ALL, filters[f]);
        if (f == 0) {
            outcome scan = read_mode_of(data, size, READ_SCAN, filters[f]);
            require_same(&full, &scan, READ_SCAN);
        }
        outcome want = read_mode_of(data, size, READ_WANT, filters[f]);
        require_same(&full, &want, READ_WANT);
    }
    return 0;
}
