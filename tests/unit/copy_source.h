/*
 * copy_source.h - a custom source over memory for tests that copies, as a
 * pipe or a socket would (the stream's read() path): at most max_chunk
 * bytes a read (0: as many as fit), GCS_AGAIN before every other read when
 * again_every_other is set, and at_end once everything is given (GCS_END,
 * or GCS_AGAIN for a live medium gone quiet). size may grow between reads.
 */
#ifndef GCS_TESTS_COPY_SOURCE_H
#define GCS_TESTS_COPY_SOURCE_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "gcscope/core.h"

typedef struct copy_src {
    const uint8_t *data;
    size_t size, pos;
    size_t max_chunk;
    gcs_status at_end;
    bool again_every_other;
    unsigned calls;
} copy_src;

static inline gcs_status copy_src_read(void *ctx, void *buf, size_t cap, size_t *got)
{
    copy_src *c = ctx;
    *got = 0;
    if (c->again_every_other && c->calls++ % 2 == 0)
        return GCS_AGAIN;
    if (c->pos == c->size)
        return c->at_end;
    size_t n = c->size - c->pos;
    if (n > cap)
        n = cap;
    if (c->max_chunk && n > c->max_chunk)
        n = c->max_chunk;
    memcpy(buf, c->data + c->pos, n);
    c->pos += n;
    *got = n;
    return GCS_OK;
}

#endif
