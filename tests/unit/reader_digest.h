/*
 * reader_digest.h - what a reader delivered (event count, a hash of every
 * event's timestamp, type, thread and payload, the final status, offset
 * and reason, and the counters), to check that two ways of reading the
 * same trace (media, archives) read it exactly alike.
 */
#ifndef GCS_TESTS_READER_DIGEST_H
#define GCS_TESTS_READER_DIGEST_H

#include <stdio.h>
#include <string.h>

#include "check.h"
#include "gcscope.h"

/* What a reader delivered, and how it ended. */
typedef struct digest {
    gcs_status status;
    uint64_t err_offset;
    char reason[256];
    uint64_t events;
    uint64_t hash;
    gcs_reader_stats stats;
} digest;

static inline uint64_t fnv(uint64_t h, const void *p, size_t n)
{
    const uint8_t *b = p;
    for (size_t i = 0; i < n; i++)
        h = (h ^ b[i]) * 1099511628211ull;
    return h;
}

/* Reads src to its end (or error) with opts (NULL: defaults). */
static inline digest read_digest_opts(gcs_source *src, const gcs_reader_options *opts)
{
    digest d;
    memset(&d, 0, sizeof d);
    d.hash = 14695981039346656037ull;
    gcs_error err;
    gcs_error_clear(&err);
    gcs_reader *r = src ? gcs_reader_new(src, opts, &err) : NULL;
    if (!r) {
        d.status = GCS_ERR_ARG;
        return d;
    }
    const gcs_event *ev;
    gcs_status st;
    while ((st = gcs_reader_next(r, &ev, &err)) == GCS_OK) {
        d.events++;
        d.hash = fnv(d.hash, &ev->timestamp, sizeof ev->timestamp);
        d.hash = fnv(d.hash, &ev->type->metadata_id, sizeof ev->type->metadata_id);
        d.hash = fnv(d.hash, ev->type->name, strlen(ev->type->name));
        d.hash = fnv(d.hash, &ev->tid, sizeof ev->tid);
        d.hash = fnv(d.hash, &ev->payload_size, sizeof ev->payload_size);
        d.hash = fnv(d.hash, ev->payload, ev->payload_size);
    }
    d.status = st;
    if (st != GCS_END) {
        d.err_offset = err.offset;
        snprintf(d.reason, sizeof d.reason, "%s", err.reason);
    }
    d.stats = *gcs_reader_get_stats(r);
    gcs_reader_free(r);
    return d;
}

/* Fails the current test (naming what) unless a and b are the same. */
static inline void check_same(const digest *a, const digest *b, const char *what, const char *path)
{
    const gcs_reader_stats *x = &a->stats, *y = &b->stats;
    bool same = a->status == b->status && a->err_offset == b->err_offset &&
                !strcmp(a->reason, b->reason) && a->events == b->events && a->hash == b->hash &&
                x->bytes_read == y->bytes_read && x->blocks == y->blocks &&
                x->events == y->events && x->lost_events == y->lost_events &&
                x->unknown_events == y->unknown_events &&
                x->undecodable_events == y->undecodable_events &&
                x->sequence_points == y->sequence_points && x->stacks == y->stacks &&
                x->metadata == y->metadata && x->sort_overflows == y->sort_overflows &&
                x->idle_releases == y->idle_releases && x->anomalies == y->anomalies &&
                x->first_anomaly_offset == y->first_anomaly_offset &&
                !strcmp(x->first_anomaly, y->first_anomaly) &&
                x->first_timestamp == y->first_timestamp && x->last_timestamp == y->last_timestamp;
    if (!same) {
        check_failed_in_test = 1;
        fprintf(stderr,
                "%s (%s): differs: status %d/%d offset %llu/%llu events %llu/%llu "
                "hash %llx/%llx blocks %llu/%llu bytes %llu/%llu reason \"%s\" / \"%s\"\n",
                path, what, a->status, b->status, (unsigned long long)a->err_offset,
                (unsigned long long)b->err_offset, (unsigned long long)a->events,
                (unsigned long long)b->events, (unsigned long long)a->hash,
                (unsigned long long)b->hash, (unsigned long long)x->blocks,
                (unsigned long long)y->blocks, (unsigned long long)x->bytes_read,
                (unsigned long long)y->bytes_read, a->reason, b->reason);
    }
}

/* Reads src to its end (or error) with the default options. */
static inline digest read_digest(gcs_source *src) { return read_digest_opts(src, NULL); }

/* Reads src through the reader and frees it. */
static inline digest digest_source(gcs_source *src)
{
    digest d = read_digest(src);
    gcs_source_free(src);
    return d;
}

static inline digest digest_memory(const uint8_t *data, size_t size)
{
    gcs_error err;
    return digest_source(gcs_source_from_memory(data, size, &err));
}

#endif
