#include "io/source.h"

#include <assert.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/error.h"

struct gcs_source {
    gcs_read_fn read;
    void (*close)(void *ctx);
    void *ctx;
    char *path;  /* opened by path (gcs_source_open_file), else NULL */
    bool is_dir; /* the path is a folder (a CTF trace: read by its container) */
};

typedef struct fd_ctx {
    int fd;
    bool owned;
    size_t max_read;   /* > 0: at most this many bytes a read() (test seam) */
} fd_ctx;

static gcs_status fd_read(void *ctx, void *buf, size_t cap, size_t *got)
{
    fd_ctx *f = ctx;
    *got = 0;
    if (f->max_read && cap > f->max_read)
        cap = f->max_read;
    for (;;) {
        ssize_t n = read(f->fd, buf, cap);
        if (n > 0) {
            *got = (size_t)n;
            return GCS_OK;
        }
        if (n == 0)
            return GCS_END;
        if (errno == EINTR)
            continue;
        if (errno == EAGAIN || errno == EWOULDBLOCK)
            return GCS_AGAIN;
        return GCS_ERR_IO;
    }
}

static void fd_close(void *ctx)
{
    fd_ctx *f = ctx;
    if (f->owned)
        close(f->fd);
    free(f);
}

typedef struct mem_ctx {
    const uint8_t *data;
    size_t size, pos;
} mem_ctx;

static gcs_status mem_read(void *ctx, void *buf, size_t cap, size_t *got)
{
    mem_ctx *m = ctx;
    size_t left = m->size - m->pos;
    *got = 0;
    if (left == 0)
        return GCS_END;
    size_t n = left < cap ? left : cap;
    memcpy(buf, m->data + m->pos, n);
    m->pos += n;
    *got = n;
    return GCS_OK;
}

static void mem_close(void *ctx) { free(ctx); }

gcs_source *gcs_source_custom(gcs_read_fn read, void (*close_fn)(void *ctx), void *ctx,
                              gcs_error *err)
{
    if (!read) {
        GCS_FAIL(err, GCS_ERR_ARG, 0, "no read function");
        return NULL;
    }
    gcs_source *s = calloc(1, sizeof *s);
    if (!s) {
        GCS_FAIL(err, GCS_ERR_NOMEM, 0, "out of memory");
        return NULL;
    }
    s->read = read;
    s->close = close_fn;
    s->ctx = ctx;
    return s;
}

gcs_source *gcs_source_from_fd(int fd, bool close_when_freed, gcs_error *err)
{
    fd_ctx *f = calloc(1, sizeof *f);
    if (!f) {
        GCS_FAIL(err, GCS_ERR_NOMEM, 0, "out of memory");
        return NULL;
    }
    f->fd = fd;
    f->owned = close_when_freed;
    gcs_source *s = gcs_source_custom(fd_read, fd_close, f, err);
    if (!s)
        free(f);
    return s;
}

gcs_source *gcs_source_open_file_reads(const char *path, size_t max_read, gcs_error *err)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        GCS_FAIL(err, GCS_ERR_IO, 0, "cannot open %s: %s", path, strerror(errno));
        return NULL;
    }
#ifdef POSIX_FADV_SEQUENTIAL
    (void)posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);
#endif
    gcs_source *s = gcs_source_from_fd(fd, true, err);
    if (!s) {
        close(fd);
        return NULL;
    }
    ((fd_ctx *)s->ctx)->max_read = max_read;
    struct stat st;
    s->is_dir = fstat(fd, &st) == 0 && S_ISDIR(st.st_mode);
    s->path = strdup(path);
    if (!s->path) {
        gcs_source_free(s);
        GCS_FAIL(err, GCS_ERR_NOMEM, 0, "out of memory");
        return NULL;
    }
    return s;
}

gcs_source *gcs_source_open_file(const char *path, gcs_error *err)
{
    return gcs_source_open_file_reads(path, 0, err);
}

gcs_source *gcs_source_from_memory(const void *data, size_t size, gcs_error *err)
{
    mem_ctx *m = calloc(1, sizeof *m);
    if (!m) {
        GCS_FAIL(err, GCS_ERR_NOMEM, 0, "out of memory");
        return NULL;
    }
    m->data = data;
    m->size = size;
    gcs_source *s = gcs_source_custom(mem_read, mem_close, m, err);
    if (!s)
        free(m);
    return s;
}

void gcs_source_free(gcs_source *src)
{
    if (!src)
        return;
    if (src->close)
        src->close(src->ctx);
    free(src->path);
    free(src);
}

gcs_status gcs_source_read(gcs_source *src, void *buf, size_t cap, size_t *got)
{
    return src->read(src->ctx, buf, cap, got);
}

/* The view of a stream that has nothing yet (never NULL: peek adds pos). */
static const uint8_t stream_empty[1];

void gcs_stream_init(gcs_stream *s, gcs_source *src)
{
    memset(s, 0, sizeof *s);
    s->src = src;
    s->data = stream_empty;
    /* One mapping of its own, a huge page where the kernel has one: filling
     * it costs a page fault, not one per 4 KiB (buf.h). */
    gcs_buf_init_big(&s->buf, GCS_STREAM_MAX_UNIT + GCS_STREAM_READ_CHUNK);
    if (src->read == mem_read) {
        /* The caller's bytes are the view; the stream takes them all. */
        mem_ctx *m = src->ctx;
        if (m->size > m->pos) {
            s->data = m->data + m->pos;
            s->len = m->size - m->pos;
        }
        m->pos = m->size;
        s->eof = true;
    }
}

void gcs_stream_init_ended(gcs_stream *s, gcs_source *src)
{
    memset(s, 0, sizeof *s);
    s->src = src;
    s->data = stream_empty;
    s->eof = true;
    gcs_buf_init(&s->buf, GCS_STREAM_MAX_UNIT + GCS_STREAM_READ_CHUNK);
}

void gcs_stream_free(gcs_stream *s)
{
    gcs_buf_free(&s->buf);
}

void gcs_stream_consume(gcs_stream *s, size_t n)
{
    assert(n <= gcs_stream_avail(s));
    s->pos += n;
}

/* Read path: read() into the buffer until n bytes are unconsumed. */
void gcs_stream_set_on_move(gcs_stream *s, gcs_stream_move_fn fn, void *ctx)
{
    s->on_move = fn;
    s->on_move_ctx = ctx;
}

/* The bytes peeked so far are about to move or vanish. */
static void view_moves(gcs_stream *s)
{
    if (s->on_move)
        s->on_move(s->on_move_ctx);
}

static gcs_status read_need(gcs_stream *s, size_t n, gcs_error *err)
{
    while (gcs_stream_avail(s) < n) {
        if (s->eof)
            return GCS_END;
        view_moves(s); /* compacted, grown or both below */
        /* Drop consumed bytes before growing. */
        if (s->pos > 0) {
            size_t left = gcs_stream_avail(s);
            memmove(s->buf.data, s->buf.data + s->pos, left);
            s->base += s->pos;
            s->buf.len = s->len = left;
            s->pos = 0;
        }
        size_t want = n - gcs_stream_avail(s);
        if (want < GCS_STREAM_READ_CHUNK)
            want = GCS_STREAM_READ_CHUNK;
        gcs_status st = gcs_buf_reserve(&s->buf, want);
        if (st != GCS_OK)
            return GCS_FAIL(err, st, gcs_stream_offset(s), "cannot buffer %zu bytes", n);
        s->data = s->buf.data;
        size_t got = 0;
        /* Bytes to hold after the read: 2 x GCS_STREAM_READ_CHUNK (or what
         * is wanted, when more), not the whole buffer, which is one huge
         * page (GCS_BIG_BYTES): read bytes stay in L2 until parsed. */
        size_t fill_to = s->buf.len + want > 2 * GCS_STREAM_READ_CHUNK ? s->buf.len + want
                                                                      : 2 * GCS_STREAM_READ_CHUNK;
        if (fill_to > s->buf.cap)
            fill_to = s->buf.cap;
        st = gcs_source_read(s->src, s->buf.data + s->buf.len, fill_to - s->buf.len, &got);
        if (st == GCS_OK) {
            s->buf.len += got;
            s->len = s->buf.len;
            continue;
        }
        if (st == GCS_END) {
            s->eof = true;
            continue;
        }
        if (st == GCS_AGAIN)
            return GCS_AGAIN;
        return GCS_FAIL(err, st, gcs_stream_offset(s) + gcs_stream_avail(s), "read failed (%s)",
                        gcs_status_name(st));
    }
    return GCS_OK;
}

gcs_status gcs_stream_need(gcs_stream *s, size_t n, gcs_error *err)
{
    if (n > GCS_STREAM_MAX_UNIT)
        return GCS_FAIL(err, GCS_ERR_LIMIT, gcs_stream_offset(s),
                        "unit of %zu bytes exceeds the %zu-byte limit", n, GCS_STREAM_MAX_UNIT);
    if (n <= gcs_stream_avail(s))
        return GCS_OK;
    return read_need(s, n, err);
}

const char *gcs_source_path(const gcs_source *src)
{
    return src->path;
}

bool gcs_source_is_dir(const gcs_source *src)
{
    return src->is_dir;
}
