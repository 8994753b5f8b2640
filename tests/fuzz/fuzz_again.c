/*
 * Harness: a live-like source gives the same events as memory. The input's
 * first 9 bytes are the schedule: a 64-bit mask (bit i set: the i-th read,
 * mod 64, answers GCS_AGAIN with no data) and a chunk size code (reads
 * give at most 1 + code * 37 bytes); the rest is the trace. Read through
 * that source and through a memory source, the trace must give the same
 * events (timestamp, type, payload bytes), the same final status and error
 * offset and the same counters. The same order too when both reads came
 * out in timestamp order: a file that breaks its IsSorted promise (an
 * event flagged sorted, then older ones) is released by the watermark at
 * other moments when the source waits (the reader releases what it may on
 * AGAIN), which shows as events out of timestamp order. Archives and
 * compressed traces are read from complete inputs only (src/io/archive.h:
 * a source that waits is refused as unsupported), so a trace starting
 * with their magic is left to the `archive` harness.
 */
#include "fuzz_common.h"

#include <string.h>

#include "gcscope.h"
#include "io/archive.h"

#define SCHEDULE_BYTES 9

typedef struct sched_src {
    const uint8_t *data;
    size_t size, pos;
    uint64_t again_mask;
    size_t max_chunk;
    unsigned calls;
} sched_src;

static gcs_status sched_read(void *ctx, void *buf, size_t cap, size_t *got)
{
    sched_src *s = ctx;
    *got = 0;
    if (s->again_mask >> (s->calls++ % 64) & 1)
        return GCS_AGAIN;
    if (s->pos == s->size)
        return GCS_END;
    size_t n = s->size - s->pos;
    if (n > cap)
        n = cap;
    if (n > s->max_chunk)
        n = s->max_chunk;
    memcpy(buf, s->data + s->pos, n);
    s->pos += n;
    *got = n;
    return GCS_OK;
}

typedef struct outcome {
    gcs_status status;
    uint64_t offset, events;
    uint64_t digest; /* of the sequence of events */
    uint64_t sum;    /* of the events' own hashes: blind to their order */
    bool in_order;
    gcs_reader_stats stats;
} outcome;

static uint64_t mix(uint64_t h, uint64_t v)
{
    h ^= v + 0x9E3779B97F4A7C15ull + (h << 6) + (h >> 2);
    return h;
}

static outcome read_through(gcs_source *src, size_t size, uint64_t *agains)
{
    outcome o;
    memset(&o, 0, sizeof o);
    gcs_error err;
    gcs_error_clear(&err);
    gcs_reader *r = gcs_reader_new(src, NULL, &err);
    FUZZ_REQUIRE(r != NULL);
    const gcs_event *ev;
    gcs_status st;
    int64_t last = INT64_MIN;
    o.in_order = true;
    for (;;) {
        st = gcs_reader_next(r, &ev, &err);
        if (st == GCS_AGAIN) {
            FUZZ_REQUIRE(agains != NULL); /* only the scheduled source waits */
            /* No endless AGAIN: at most 64 reads per byte given, and a few
             * after the end. */
            FUZZ_REQUIRE(++*agains < ((uint64_t)size + 64) * 130);
            continue;
        }
        if (st != GCS_OK)
            break;
        o.events++;
        if (ev->timestamp < last)
            o.in_order = false;
        last = ev->timestamp;
        uint64_t h = mix(mix(mix(0, (uint64_t)ev->timestamp), ev->type->metadata_id),
                         ev->payload_size);
        for (uint32_t i = 0; i < ev->payload_size; i++)
            h = mix(h, ev->payload[i]);
        o.digest = mix(o.digest, h);
        o.sum += h;
    }
    o.status = st;
    o.offset = st < 0 ? err.offset : 0;
    FUZZ_REQUIRE(st == GCS_END || err.offset <= size);
    o.stats = *gcs_reader_get_stats(r);
    gcs_reader_free(r);
    return o;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < SCHEDULE_BYTES)
        return 0;
    uint64_t mask = 0;
    for (int i = 0; i < 8; i++)
        mask |= (uint64_t)data[i] << (8 * i);
    if (mask == UINT64_MAX)
        mask &= ~1ull; /* a source that never answers is not a trace */
    if (gcs_archive_sniff(data + SCHEDULE_BYTES, size - SCHEDULE_BYTES) != GCS_ARCHIVE_NONE)
        return 0; /* read from complete inputs only: the archive harness's */
    sched_src s = {.data = data + SCHEDULE_BYTES, .size = size - SCHEDULE_BYTES,
                   .again_mask = mask, .max_chunk = 1 + (size_t)data[8] * 37};
    gcs_error err;
    gcs_error_clear(&err);
    gcs_source *live = gcs_source_custom(sched_read, NULL, &s, &err);
    gcs_source *mem = gcs_source_from_memory(s.data, s.size, &err);
    FUZZ_REQUIRE(live && mem);
    uint64_t agains = 0;
    outcome a = read_through(live, s.size, &agains);
    outcome b = read_through(mem, s.size, NULL);
    FUZZ_REQUIRE(a.status == b.status);
    FUZZ_REQUIRE(a.offset == b.offset);
    FUZZ_REQUIRE(a.events == b.events);
    FUZZ_REQUIRE(a.sum == b.sum);
    if (a.in_order && b.in_order)
        FUZZ_REQUIRE(a.digest == b.digest);
    FUZZ_REQUIRE(a.stats.events == b.stats.events);
    FUZZ_REQUIRE(a.stats.lost_events == b.stats.lost_events);
    FUZZ_REQUIRE(a.stats.unknown_events == b.stats.unknown_events);
    FUZZ_REQUIRE(a.stats.undecodable_events == b.stats.undecodable_events);
    FUZZ_REQUIRE(a.stats.bytes_read == b.stats.bytes_read);
    FUZZ_REQUIRE(a.stats.anomalies == b.stats.anomalies);
    gcs_source_free(live);
    gcs_source_free(mem);
    return 0;
}
