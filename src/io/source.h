/*
 * io/source.h - media behind gcs_source, and a stream over one.
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
/* Bytes asked of the medium per read() at least. Small enough that the
 * buffer stays in the core's L2 cache between the copy and the parse:
 * measured on the bench traces (docs/performance.md, "Twentieth
 * landing"), 64-256 KiB read fastest, 1 MiB 5-10 % slower, 16 MiB 1.5-3x
 * slower. A unit larger than this grows the buffer to its size. */
#define GCS_STREAM_READ_CHUNK ((size_t)256 << 10)

/* The path a source was opened from (gcs_source_open_file), or NULL: the
 * CTF container reads a trace's files by path (format/ctf). */
const char *gcs_source_path(const gcs_source *src);

/* True when that path is a folder (which has no bytes to stream). */
bool gcs_source_is_dir(const gcs_source *src);

/* Reads up to cap bytes from the source (see gcs_read_fn). */
gcs_status gcs_source_read(gcs_source *src, void *buf, size_t cap, size_t *got);

/*
 * Test seam: gcs_source_open_file whose every read() asks for at most
 * max_read bytes (0: no cap), so tests can end reads inside units.
 */
gcs_source *gcs_source_open_file_reads(const char *path, size_t max_read, gcs_error *err);

/*
 * Copies: a memory source is viewed whole, in place, with no copy at all.
 * Every other medium (a file by path, a descriptor, a live socket, custom
 * read functions) is read into one growable buffer, GCS_STREAM_READ_CHUNK
 * bytes a read at least, up to 2 x GCS_STREAM_READ_CHUNK held, its
 * consumed bytes dropped before each read. The buffer is GCS_BIG_BYTES
 * from the start (gcs_buf_init_big): one huge page, one page fault.
 *
 * Regular files are read, not mapped: on the machine measured a mapped
 * file cost a page fault per 16-64 KiB of trace, which took `info` 1.7-4.6x
 * longer than reading the same file into a buffer the cache keeps
 * (docs/performance.md, "Twentieth landing"; bench/fault_cost.c measures
 * a machine's own ratio). Reading also leaves no
 * SIGBUS to fear when another process truncates the file, and a file
 * still being written is read to the end it has when the reader gets
 * there.
 */
/* Told before the view moves (see gcs_stream_set_on_move). */
typedef void (*gcs_stream_move_fn)(void *ctx);

typedef struct gcs_stream {
    const uint8_t *data; /* the current view: data[pos, len) is unconsumed */
    size_t len;
    size_t pos;
    uint64_t base;       /* input offset of data[0] */
    gcs_source *src;
    bool eof;            /* the medium said GCS_END */
    gcs_buf buf;         /* the bytes read (data == buf.data; unused for memory) */
    gcs_stream_move_fn on_move; /* before the view moves; NULL: nobody asked */
    void *on_move_ctx;
} gcs_stream;

void gcs_stream_init(gcs_stream *s, gcs_source *src);
void gcs_stream_free(gcs_stream *s);
/* A stream over src that has ended with nothing read (offset 0, reads
 * nothing): what is left when the input turned out to be something else
 * (an archive without the member asked for). */
void gcs_stream_init_ended(gcs_stream *s, gcs_source *src);

/*
 * Makes at least n unconsumed bytes available. Returns GCS_OK, GCS_AGAIN
 * (medium has no data yet), GCS_END (input ended with fewer than n bytes
 * left: gcs_stream_avail tells how many), GCS_ERR_LIMIT (n beyond
 * GCS_STREAM_MAX_UNIT), or the medium's error. Pointers obtained from the
 * stream before a call may be invalid after it (the buffer is compacted
 * or grown): keep copies of what must outlive a step.
 */
gcs_status gcs_stream_need(gcs_stream *s, size_t n, gcs_error *err);

/*
 * Asks to be told (fn(ctx)) right before bytes peeked earlier become
 * invalid: the read buffer about to be compacted or grown. Until then
 * every byte peeked stays where it is, so a reader may keep pointing into
 * the view across units (the buffer moves about once a
 * GCS_STREAM_READ_CHUNK, a memory source never). Set after
 * gcs_stream_init.
 */
void gcs_stream_set_on_move(gcs_stream *s, gcs_stream_move_fn fn, void *ctx);

static inline const uint8_t *gcs_stream_peek(const gcs_stream *s) { return s->data + s->pos; }
static inline size_t gcs_stream_avail(const gcs_stream *s) { return s->len - s->pos; }
static inline uint64_t gcs_stream_offset(const gcs_stream *s) { return s->base + s->pos; }
void gcs_stream_consume(gcs_stream *s, size_t n);

/* Bounds of the current view [*lo, *hi): every byte peeked since the last
 * gcs_stream_need lies in it. */
static inline void gcs_stream_window(const gcs_stream *s, const uint8_t **lo, const uint8_t **hi)
{
    *lo = s->data;
    *hi = s->data + s->len;
}

#endif
