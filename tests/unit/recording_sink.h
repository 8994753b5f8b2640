/*
 * recording_sink.h - a gcs_sink for container tests: records the trace
 * header, every metadata row, a compact copy of every event and counters,
 * and checks that the trace header comes first. Plus helpers to read a
 * whole file through a container, with an optional source that answers
 * GCS_AGAIN every other call.
 */
#ifndef GCS_TESTS_RECORDING_SINK_H
#define GCS_TESTS_RECORDING_SINK_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "format/container.h"
#include "io/source.h"

typedef struct rec_event {
    uint32_t metadata_id;
    bool is_sorted;
    bool has_sequence;
    uint32_t sequence;
    uint32_t pid;
    uint64_t tid, capture_tid;
    uint32_t processor, stack_id;
    int64_t timestamp;
    uint32_t payload_size;
    uint64_t payload_hash; /* FNV-1a of the payload */
    uint64_t offset;
    uint8_t activity[16];
    uint8_t head[64]; /* first payload bytes, zero-filled */
} rec_event;

typedef struct rec_sink {
    gcs_sink sink;
    gcs_arena arena;
    int trace_calls;
    bool out_of_order; /* something arrived before the trace header */
    gcs_trace_info info;
    gcs_meta_def *defs;
    size_t ndefs, capdefs;
    rec_event *events;
    size_t nevents, capevents;
    size_t seq_points, seq_entries;
    uint64_t seq_entry_hash;
    size_t stacks, blocks, anomalies;
    const gcs_stream *stream; /* set by rec_run: block starts are recorded */
    uint64_t block_starts[4096];
    size_t nblock_starts;
} rec_sink;

static inline uint64_t rec_fnv(const uint8_t *p, size_t n)
{
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < n; i++)
        h = (h ^ p[i]) * 1099511628211ull;
    return h;
}

static inline gcs_status rec_trace(void *ctx, const gcs_trace_info *info, gcs_error *err)
{
    rec_sink *r = ctx;
    r->trace_calls++;
    r->info = *info;
    return GCS_OK;
}

static inline gcs_status rec_metadata(void *ctx, const gcs_meta_def *def, gcs_error *err)
{
    rec_sink *r = ctx;
    if (!r->trace_calls)
        r->out_of_order = true;
    if (r->ndefs == r->capdefs) {
        r->capdefs = r->capdefs ? 2 * r->capdefs : 64;
        r->defs = realloc(r->defs, r->capdefs * sizeof *r->defs);
    }
    r->defs[r->ndefs++] = *def;
    return GCS_OK;
}

static inline gcs_status rec_event_fn(void *ctx, const gcs_raw_event *ev, gcs_error *err)
{
    rec_sink *r = ctx;
    if (!r->trace_calls)
        r->out_of_order = true;
    if (r->nevents == r->capevents) {
        r->capevents = r->capevents ? 2 * r->capevents : 1024;
        r->events = realloc(r->events, r->capevents * sizeof *r->events);
    }
    rec_event *e = &r->events[r->nevents++];
    memset(e, 0, sizeof *e);
    e->metadata_id = ev->metadata_id;
    e->is_sorted = ev->is_sorted;
    e->has_sequence = ev->has_sequence;
    e->sequence = ev->sequence;
    e->pid = ev->pid;
    e->tid = ev->tid;
    e->capture_tid = ev->capture_tid;
    e->processor = ev->processor;
    e->stack_id = ev->stack_id;
    e->timestamp = ev->timestamp;
    e->payload_size = ev->payload_size;
    e->payload_hash = rec_fnv(ev->payload, ev->payload_size);
    e->offset = ev->offset;
    if (ev->activity_id)
        memcpy(e->activity, ev->activity_id, 16);
    memcpy(e->head, ev->payload, ev->payload_size < 64 ? ev->payload_size : 64);
    return GCS_OK;
}

static inline gcs_status rec_seq(void *ctx, int64_t ts, const gcs_seq_entry *entries, size_t n,
                          gcs_error *err)
{
    rec_sink *r = ctx;
    if (!r->trace_calls)
        r->out_of_order = true;
    r->seq_points++;
    r->seq_entries += n;
    for (size_t i = 0; i < n; i++)
        r->seq_entry_hash = r->seq_entry_hash * 31 + entries[i].capture_tid * 7 + entries[i].sequence;
    return GCS_OK;
}

static inline void rec_block(void *ctx)
{
    rec_sink *r = ctx;
    r->blocks++;
    if (r->stream && r->nblock_starts < sizeof r->block_starts / sizeof r->block_starts[0])
        r->block_starts[r->nblock_starts++] = gcs_stream_offset(r->stream);
}
static inline void rec_stack(void *ctx, uint32_t id, const uint8_t *ips, uint32_t size)
{
    (void)id;
    (void)ips;
    (void)size;
    ((rec_sink *)ctx)->stacks++;
}
static inline void rec_anomaly(void *ctx, uint64_t off, const char *why) { ((rec_sink *)ctx)->anomalies++; }

static inline void rec_init(rec_sink *r)
{
    memset(r, 0, sizeof *r);
    gcs_arena_init(&r->arena, (size_t)64 << 20);
    r->sink.ctx = r;
    r->sink.meta_arena = &r->arena;
    r->sink.trace = rec_trace;
    r->sink.metadata = rec_metadata;
    r->sink.event = rec_event_fn;
    r->sink.sequence_point = rec_seq;
    r->sink.block = rec_block;
    r->sink.stack = rec_stack;
    r->sink.anomaly = rec_anomaly;
}

static inline void rec_free(rec_sink *r)
{
    free(r->defs);
    free(r->events);
    gcs_arena_reset(&r->arena);
}

static inline const gcs_meta_def *rec_def(const rec_sink *r, uint32_t id)
{
    for (size_t i = 0; i < r->ndefs; i++)
        if (r->defs[i].metadata_id == id)
            return &r->defs[i];
    return NULL;
}

static inline const gcs_meta_def *rec_def_by_name(const rec_sink *r, const char *provider,
                                           const char *name)
{
    for (size_t i = 0; i < r->ndefs; i++)
        if (!strcmp(r->defs[i].provider, provider) && !strcmp(r->defs[i].event_name, name))
            return &r->defs[i];
    return NULL;
}

/* Events of (provider, event id). */
static inline size_t rec_count(const rec_sink *r, const char *provider, uint32_t event_id)
{
    size_t n = 0;
    for (size_t i = 0; i < r->nevents; i++) {
        const gcs_meta_def *d = rec_def(r, r->events[i].metadata_id);
        if (d && d->event_id == event_id && !strcmp(d->provider, provider))
            n++;
    }
    return n;
}

/* First event (file order) of (provider, event id), or NULL. */
static inline const rec_event *rec_first(const rec_sink *r, const char *provider, uint32_t event_id)
{
    const rec_event *best = NULL;
    for (size_t i = 0; i < r->nevents; i++) {
        const gcs_meta_def *d = rec_def(r, r->events[i].metadata_id);
        if (d && d->event_id == event_id && !strcmp(d->provider, provider))
            if (!best || r->events[i].timestamp < best->timestamp)
                best = &r->events[i];
    }
    return best;
}

/* Reads everything from src through the sniffer and the container.
 * Returns the final status (GCS_END on success); AGAIN is retried. */
static inline gcs_status rec_run(gcs_source *src, rec_sink *r, gcs_error *err)
{
    gcs_stream s;
    gcs_stream_init(&s, src);
    r->stream = &s;
    gcs_container *c = NULL;
    gcs_status st;
    long spins = 0;
    do {
        st = gcs_container_open(&s, &r->sink, &c, err);
    } while (st == GCS_AGAIN && ++spins < 1000000);
    if (st == GCS_OK) {
        do {
            st = c->ops->step(c, err);
        } while ((st == GCS_OK || st == GCS_AGAIN) && ++spins < 100000000);
        c->ops->destroy(c);
    }
    gcs_stream_free(&s);
    r->stream = NULL;
    return st;
}

static inline gcs_status rec_run_file(const char *path, rec_sink *r, gcs_error *err)
{
    gcs_source *src = gcs_source_open_file(path, err);
    if (!src)
        return err->status;
    gcs_status st = rec_run(src, r, err);
    gcs_source_free(src);
    return st;
}

static inline gcs_status rec_run_memory(const void *data, size_t size, rec_sink *r, gcs_error *err)
{
    gcs_source *src = gcs_source_from_memory(data, size, err);
    gcs_status st = rec_run(src, r, err);
    gcs_source_free(src);
    return st;
}

/* A source that answers GCS_AGAIN every other call and gives at most
 * `chunk` bytes at a time. */
typedef struct stutter_src {
    const uint8_t *data;
    size_t size, pos, chunk;
    unsigned calls;
} stutter_src;

static inline gcs_status stutter_read(void *ctx, void *buf, size_t cap, size_t *got)
{
    stutter_src *t = ctx;
    *got = 0;
    if (t->calls++ % 2 == 0)
        return GCS_AGAIN;
    if (t->pos == t->size)
        return GCS_END;
    size_t n = t->size - t->pos;
    if (n > cap)
        n = cap;
    if (n > t->chunk)
        n = t->chunk;
    memcpy(buf, t->data + t->pos, n);
    t->pos += n;
    *got = n;
    return GCS_OK;
}

/* ms since the trace start of a timestamp (TraceEvent's MSec). */
static inline double rec_msec(const rec_sink *r, int64_t ts)
{
    return (double)(ts - r->info.start_ticks) * 1000.0 / (double)r->info.clock_frequency;
}

/* Same events, same order, same fields. */
static inline bool rec_same_events(const rec_sink *a, const rec_sink *b)
{
    if (a->nevents != b->nevents || a->ndefs != b->ndefs || a->seq_points != b->seq_points ||
        a->seq_entry_hash != b->seq_entry_hash || a->stacks != b->stacks)
        return false;
    for (size_t i = 0; i < a->nevents; i++)
        if (memcmp(&a->events[i], &b->events[i], sizeof a->events[i]) != 0)
            return false;
    return true;
}

#endif
