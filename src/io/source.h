/*
 * io/source.h - media behind gcs_source, and a buffered stream over one.
 *
 * A container reader asks the stream for "n bytes at the current position"
 * (gcs_stream_need). When the medium has no more data yet the answer is
 * GCS_AGAIN and nothing is consumed, so the reader can return AGAIN to its
 * caller and retry the same step later: one decoder serves files and live
 * sockets. Container readers parse only whole units (a block) once they
 * are fully buffered.
 */
#ifndef GCS_IO_SOURCE_H
#define GCS_IO_SOURCE_H

#include "base/buf.h"
#include "gcscope/core.h"

/* Largest unit a container may ask to have buffered at once. */
#define GCS_STREAM_MAX_UNIT ((size_t)64 << 20)
/* Bytes read from the medium per call. */
#define GCS_STREAM_READ_CHUNK ((size_t)1 << 20)

/* Reads up to cap bytes from the source (see gcs_read_fn). */
gcs_status gcs_source_read(gcs_source *src, void *buf, size_t cap, size_t *got);

typedef struct gcs_stream {
    gcs_source *src;
    gcs_buf buf;        /* data[pos, len) is unconsumed */
    size_t pos;
    uint64_t base;      /* input offset of buf.data[0] */
    bool eof;           /* the medium said GCS_END */
} gcs_stream;

void gcs_stream_init(gcs_stream *s, gcs_source *src);
void gcs_stream_free(gcs_stream *s);

/*
 * Makes at least n unconsumed bytes available. Returns GCS_OK, GCS_AGAIN
 * (medium has no data yet), GCS_END (input ended with fewer than n bytes
 * left: gcs_stream_avail tells how many), GCS_ERR_LIMIT (n beyond
 * GCS_STREAM_MAX_UNIT), or the medium's error.
 */
gcs_status gcs_stream_need(gcs_stream *s, size_t n, gcs_error *err);

static inline const uint8_t *gcs_stream_peek(const gcs_stream *s) { return s->buf.data + s->pos; }
static inline size_t gcs_stream_avail(const gcs_stream *s) { return s->buf.len - s->pos; }
static inline uint64_t gcs_stream_offset(const gcs_stream *s) { return s->base + s->pos; }
void gcs_stream_consume(gcs_stream *s, size_t n);

#endif
