/*
 * base/buf.h - growable byte buffers with a hard cap, and a bump arena.
 *
 * Growth is always checked against the buffer's cap so that no length read
 * from input can drive an unbounded allocation.
 */
#ifndef GCS_BASE_BUF_H
#define GCS_BASE_BUF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gcscope/core.h"

typedef struct gcs_buf {
    uint8_t *data;
    size_t len;
    size_t cap;      /* allocated */
    size_t max_cap;  /* never grow beyond this */
    bool big;        /* gcs_buf_init_big: gcs_big_resize's memory, GCS_BIG_BYTES at least */
} gcs_buf;

void gcs_buf_init(gcs_buf *b, size_t max_cap);
/* A buffer that lives long and is touched whole (the sorter's store): its
 * first reserve takes GCS_BIG_BYTES (or max_cap, if less) of gcs_big_resize's
 * memory, a mapping of its own offered for a transparent huge page, so
 * filling it costs one page fault instead of one per 4 KiB. */
void gcs_buf_init_big(gcs_buf *b, size_t max_cap);
void gcs_buf_free(gcs_buf *b);
/* Ensures room for `extra` more bytes. GCS_ERR_LIMIT past max_cap,
 * GCS_ERR_NOMEM if malloc fails. */
gcs_status gcs_buf_reserve(gcs_buf *b, size_t extra);
gcs_status gcs_buf_append(gcs_buf *b, const void *data, size_t n);

/*
 * Grows the array *arr (elements of elem_size bytes, *cap of them) to hold
 * at least need elements, doubling from min_cap. False, with *arr and *cap
 * unchanged, when the size would overflow or malloc fails.
 */
bool gcs_array_reserve(void **arr, size_t *cap, size_t need, size_t elem_size, size_t min_cap);

/*
 * Arrays that may grow large (one record per GC): gcs_big_resize gives
 * `bytes` bytes keeping the first min(old_bytes, bytes) of p; gcs_big_free
 * frees what it gave. Callers pass the size they asked for last (old_bytes,
 * bytes): below GCS_BIG_BYTES the memory is malloc's; from it on (Linux)
 * it is a mapping of its own aligned to 2 MiB, offered to the kernel for
 * transparent huge pages, grown with mremap, which moves pages instead of
 * copying them. A page fault per 4 KiB of a fresh array cost more than the
 * analysis that fills it on the machines measured (docs/performance.md,
 * "Twentieth landing"); a huge page faults once per 2 MiB. NULL when out
 * of memory (p then unchanged). Elsewhere: realloc and free.
 */
#define GCS_BIG_BYTES ((size_t)2 << 20)
void *gcs_big_resize(void *p, size_t old_bytes, size_t bytes);
void gcs_big_free(void *p, size_t bytes);
/* gcs_array_reserve for such an array (free it with gcs_big_free(*arr,
 * *cap * elem_size)). */
bool gcs_big_reserve(void **arr, size_t *cap, size_t need, size_t elem_size, size_t min_cap);

/*
 * gcs_big_reserve for an array that is small in most traces and large in
 * some (a value per GC, per death, per range): malloc's below
 * GCS_BIG_EARLY_BYTES, then in one step GCS_BIG_BYTES of huge pages, then
 * doubling. Past its first quarter MiB an array faulted 4 KiB at a time
 * costs more than one huge page (docs/performance.md, "Twenty-sixth
 * landing"); below it a huge page would zero more than it saves. Free it
 * with gcs_big_free(*arr, *cap * elem_size).
 */
#define GCS_BIG_EARLY_BYTES ((size_t)256 << 10)
bool gcs_big_reserve_early(void **arr, size_t *cap, size_t need, size_t elem_size,
                           size_t min_cap);

/* Its rule for a fresh array of n elements (a spare, a table made anew at
 * each growth): GCS_BIG_BYTES' worth when n's bytes lie from
 * GCS_BIG_EARLY_BYTES up to GCS_BIG_BYTES, else n. */
static inline size_t gcs_big_early_count(size_t n, size_t elem_size)
{
    return n >= GCS_BIG_EARLY_BYTES / elem_size && n < GCS_BIG_BYTES / elem_size
               ? GCS_BIG_BYTES / elem_size
               : n;
}

/* Bump allocator: many small objects freed together. */
typedef struct gcs_arena_chunk gcs_arena_chunk;
typedef struct gcs_arena {
    gcs_arena_chunk *head;
    size_t total;     /* bytes allocated in chunks */
    size_t max_total; /* cap (0 = none) */
} gcs_arena;

void gcs_arena_init(gcs_arena *a, size_t max_total);
/* 8-byte aligned, zeroed memory; NULL when over the cap or out of memory. */
void *gcs_arena_alloc(gcs_arena *a, size_t n);
char *gcs_arena_strndup(gcs_arena *a, const char *s, size_t n);
void gcs_arena_reset(gcs_arena *a); /* frees everything */

/* UTF-16LE (n code units) to a NUL-terminated UTF-8 string in the arena.
 * Unpaired surrogates become U+FFFD. */
char *gcs_utf16_to_utf8(gcs_arena *a, const uint8_t *s, size_t units);
/* Same, into a caller buffer (truncated at a character boundary); returns
 * the length written, excluding the NUL. */
size_t gcs_utf16_to_utf8_buf(const uint8_t *s, size_t units, char *out, size_t out_cap);

#endif
