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
/* Bytes read from the medium per call (read path). */
#define GCS_STREAM_READ_CHUNK ((size_t)1 << 20)
/* Bytes of a regular file mapped at once (mapped path); a unit larger than
 * this gets a window of its own size. */
#define GCS_STREAM_MAP_WINDOW ((size_t)16 << 20)

/* The path a source was opened from (gcs_source_open_file), or NULL: the
 * CTF container reads a trace's files by path (format/ctf). */
const char *gcs_source_path(const gcs_source *src);

/* True when that path is a folder (which has no bytes to stream). */
bool gcs_source_is_dir(const gcs_source *src);

/* Reads up to cap bytes from the source (see gcs_read_fn). */
gcs_status gcs_source_read(gcs_source *src, void *buf, size_t cap, size_t *got);

/*
 * Test seam: gcs_source_open_file with windows of window_bytes (rounded up
 * to whole pages, at most GCS_STREAM_MAX_UNIT) instead of
 * GCS_STREAM_MAP_WINDOW, so tests can end windows inside units.
 */
gcs_source *gcs_source_open_file_window(const char *path, size_t window_bytes, gcs_error *err);

/*
 * Zero copy: media that can be viewed in place are not copied. A regular
 * file opened by gcs_source_open_file is mapped (read-only, private) in
 * windows of GCS_STREAM_MAP_WINDOW bytes, each unmapped when the next is
 * mapped, so resident memory stays about one window whatever the file
 * size; when the position reaches the size last seen, the file is checked
 * again and, if it grew (a trace still being written), more is mapped.
 * If mapping fails the stream falls back to read() for that source. A
 * memory source is viewed whole, with no copy at all. Other media (fd,
 * custom read functions, live sockets) are read into a growable buffer.
 *
 * Caveat of mapping: if another process truncates the file while it is
 * mapped, touching the lost pages raises SIGBUS. That is a concurrent
 * writer destroying the file under the reader, not hostile bytes: any
 * content of the file, however malformed, is still handled by the length
 * checks of the containers.
 */
typedef enum gcs_stream_mode {
    GCS_STREAM_READ, /* read() into buf (memory sources: a view with eof set) */
    GCS_STREAM_MAP   /* windows of a mapped regular file */
} gcs_stream_mode;

/* Told before the view moves (see gcs_stream_set_on_move). */
typedef void (*gcs_stream_move_fn)(void *ctx);

typedef struct gcs_stream {
    const uint8_t *data; /* the current view: data[pos, len) is unconsumed */
    size_t len;
    size_t pos;
    uint64_t base;       /* input offset of data[0] */
    gcs_source *src;
    gcs_stream_mode mode;
    bool eof;            /* the medium said GCS_END */
    gcs_buf buf;         /* read path: the bytes read (data == buf.data) */
    /* mapped path */
    int fd;
    void *map;           /* the window mapped, map_len bytes */
    size_t map_len;
    size_t window;       /* default window length (whole pages) */
    size_t page;
    uint64_t file_start; /* file offset of input offset 0 */
    uint64_t file_size;  /* as last seen by fstat */
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
 * stream before a call may be invalid after it (the buffer moves, the
 * window is unmapped): keep copies of what must outlive a step.
 */
gcs_status gcs_stream_need(gcs_stream *s, size_t n, gcs_error *err);

/*
 * Asks to be told (fn(ctx)) right before bytes peeked earlier become
 * invalid: a window about to be unmapped, the read buffer about to be
 * compacted or grown. Until then every byte peeked stays where it is, so
 * a reader may keep pointing into the view across units (a mapped file
 * moves once a window, a memory source never). Set after gcs_stream_init.
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
