/*
 * Harness: the ways of reading one input agree. gcs_reader_scan (counts
 * without delivering), filtered reads (options.want = gcs_gc_wants, as
 * `stats`; gcs_objects_wants, as `objects`) and a read told to start at
 * an event's msec (options.from_msec, as `events --from-ms`: the third
 * event's, or one up to 40 events later picked by the input's last byte,
 * so that cuts fall inside the runs the container counts at once; there
 * also with gcs_gc_wants, as `events --event` with `--from-ms`) end
 * with the status, error offset and counters of the full gcs_reader_next
 * read; a filtered or cut read delivers exactly the full read's events of
 * its filter or after its cut (the same multiset, and the same sequence
 * when both came out in timestamp order).
 * The rules of tests/unit/test_reader_robust.c, on any input.
 */
#include "fuzz_common.h"

#include <string.h>

#include "gcscope.h"

typedef enum read_mode { READ_ALL, READ_SCAN, READ_WANT, READ_FROM } read_mode;

typedef struct outcome {
    gcs_status status;
    uint64_t offset;
    gcs_reader_stats stats;
    uint64_t events; /* full read: delivered; the others: stats.events */
    uint64_t want_events, want_sequence, want_sum; /* over the filter's events */
    bool in_order;
    bool has_third; /* full read: the third event's msec, a place to cut */
    double third_msec;
    bool has_later; /* full read: the msec of the event the input picks (cut_index) */
    double later_msec;
} outcome;

static uint64_t event_hash(const gcs_event *ev)
{
    uint64_t h = ((uint64_t)ev->timestamp + ev->payload_size) * 0x9E3779B97F4A7C15ull;
    return h ^ (h >> 29);
}

typedef bool (*filter_fn)(void *, const gcs_event_type *);

static bool want_all(void *ctx, const gcs_event_type *t)
{
    (void)ctx;
    (void)t;
    return true;
}

/* The event (1-based, in delivery order) whose msec the second cut takes:
 * 4 to 43, by the input's last byte. */
static uint64_t cut_index(const uint8_t *data, size_t size)
{
    return 4 + (size ? data[size - 1] % 40 : 0);
}

/* has_from: sums over the events at or after `from` only (READ_ALL), or
 * the reader told to start there (READ_FROM). */
static outcome read_mode_of(const uint8_t *data, size_t size, read_mode mode, filter_fn wants,
                            bool has_from, double from)
{
    outcome o;
    memset(&o, 0, sizeof o);
    o.in_order = true;
    gcs_error err;
    gcs_error_clear(&err);
    gcs_source *src = gcs_source_from_memory(data, size, &err);
    /* A cut read filters too unless it wants every event. */
    const bool filtered = mode == READ_WANT || (mode == READ_FROM && wants != want_all);
    gcs_reader_options opts = {.want = filtered ? wants : NULL,
                               .has_from_msec = mode == READ_FROM, .from_msec = from};
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
            if (o.events == 3) {
                o.has_third = true;
                o.third_msec = ev->msec;
            }
            if (o.events == cut_index(data, size)) {
                o.has_later = true;
                o.later_msec = ev->msec;
            }
            if (mode == READ_FROM)
                FUZZ_REQUIRE(ev->msec >= from);
            if ((mode != READ_ALL || wants(NULL, ev->type)) && (!has_from || ev->msec >= from)) {
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
    if (mode == READ_WANT || mode == READ_FROM) {
        FUZZ_REQUIRE(other->want_events == full->want_events);
        FUZZ_REQUIRE(other->want_sum == full->want_sum);
        if (full->in_order && other->in_order)
            FUZZ_REQUIRE(other->want_sequence == full->want_sequence);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const filter_fn filters[] = {gcs_gc_wants, gcs_objects_wants};
    outcome first = {0};
    for (size_t f = 0; f < sizeof filters / sizeof *filters; f++) {
        /* The full read sums over this filter's events. */
        outcome full = read_mode_of(data, size, READ_ALL, filters[f], false, 0);
        if (f == 0) {
            first = full;
            outcome scan = read_mode_of(data, size, READ_SCAN, filters[f], false, 0);
            require_same(&full, &scan, READ_SCAN);
        }
        outcome want = read_mode_of(data, size, READ_WANT, filters[f], false, 0);
        require_same(&full, &want, READ_WANT);
    }
    /* Told to start at an event's msec, the reader delivers the full
     * read's events from there, and counts the rest; at the later cut also
     * with the GC analysis' filter (the refused types counted at any time,
     * the wanted ones only before the cut). */
    for (int k = 0; k < 3; k++) {
        if (!(k == 0 ? first.has_third : first.has_later))
            continue;
        const double from = k == 0 ? first.third_msec : first.later_msec;
        const filter_fn filter = k == 2 ? gcs_gc_wants : want_all;
        outcome full = read_mode_of(data, size, READ_ALL, filter, true, from);
        outcome cut = read_mode_of(data, size, READ_FROM, filter, true, from);
        require_same(&full, &cut, READ_FROM);
    }
    return 0;
}
