#include "io/source.h"

#include <assert.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
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
    size_t map_window; /* > 0: a regular file the stream may map */
} fd_ctx;

static gcs_status fd_read(void *ctx, void *buf, size_t cap, size_t *got)
{
    fd_ctx *f = ctx;
    *got = 0;
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

gcs_source *gcs_source_open_file_window(const char *path, size_t window_bytes, gcs_error *err)
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
    struct stat st;
    if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode)) {
        fd_ctx *f = s->ctx;
        f->map_window = window_bytes ? window_bytes : 1;
    }
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
    return gcs_source_open_file_window(path, GCS_STREAM_MAP_WINDOW, err);
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

/* Sets up the mapped path for a regular file; false leaves the read path,
 * also for a file with nothing past the position yet (and for files of
 * pseudo file systems that say size 0 and have bytes to read). */
static bool map_init(gcs_stream *s, const fd_ctx *f)
{
    long page = sysconf(_SC_PAGESIZE);
    struct stat st;
    off_t at = lseek(f->fd, 0, SEEK_CUR);
    if (page <= 0 || at < 0 || fstat(f->fd, &st) != 0 || !S_ISREG(st.st_mode) ||
        st.st_size <= at)
        return false;
    s->page = (size_t)page;
    size_t w = f->map_window < GCS_STREAM_MAX_UNIT ? f->map_window : GCS_STREAM_MAX_UNIT;
    s->window = (w + s->page - 1) / s->page * s->page;
    s->fd = f->fd;
    s->file_start = (uint64_t)at;
    s->file_size = (uint64_t)st.st_size;
    s->mode = GCS_STREAM_MAP;
    return true;
}

void gcs_stream_init(gcs_stream *s, gcs_source *src)
{
    memset(s, 0, sizeof *s);
    s->src = src;
    s->data = stream_empty;
    s->fd = -1;
    gcs_buf_init(&s->buf, GCS_STREAM_MAX_UNIT + GCS_STREAM_READ_CHUNK);
    if (src->read == mem_read) {
        /* The caller's bytes are the view; the stream takes them all. */
        mem_ctx *m = src->ctx;
        if (m->size > m->pos) {
            s->data = m->data + m->pos;
            s->len = m->size - m->pos;
        }
        m->pos = m->size;
        s->eof = true;
    } else if (src->read == fd_read && ((fd_ctx *)src->ctx)->map_window) {
        (void)map_init(s, src->ctx);
    }
}

void gcs_stream_init_ended(gcs_stream *s, gcs_source *src)
{
    memset(s, 0, sizeof *s);
    s->src = src;
    s->data = stream_empty;
    s->fd = -1;
    s->eof = true;
    gcs_buf_init(&s->buf, GCS_STREAM_MAX_UNIT + GCS_STREAM_READ_CHUNK);
}

static void map_drop(gcs_stream *s)
{
    if (s->map)
        munmap(s->map, s->map_len);
    s->map = NULL;
    s->map_len = 0;
}

void gcs_stream_free(gcs_stream *s)
{
    map_drop(s);
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
        st = gcs_source_read(s->src, s->buf.data + s->buf.len, s->buf.cap - s->buf.len, &got);
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

/* Mapping failed: the unconsumed bytes go to the buffer and the file is
 * read from the end of the view on. */
static gcs_status map_fall_back(gcs_stream *s, size_t n, gcs_error *err)
{
    gcs_status st = gcs_buf_append(&s->buf, gcs_stream_peek(s), gcs_stream_avail(s));
    if (st != GCS_OK)
        return GCS_FAIL(err, st, gcs_stream_offset(s), "cannot buffer %zu bytes", n);
    s->base += s->pos;
    s->pos = 0;
    s->len = s->buf.len;
    s->data = s->buf.data ? s->buf.data : stream_empty;
    map_drop(s);
    s->mode = GCS_STREAM_READ;
    if (lseek(s->fd, (off_t)(s->file_start + s->base + s->len), SEEK_SET) < 0)
        return GCS_FAIL(err, GCS_ERR_IO, gcs_stream_offset(s) + gcs_stream_avail(s),
                        "read failed (%s)", gcs_status_name(GCS_ERR_IO));
    return read_need(s, n, err);
}

/* Mapped path: a window from the page holding the position, of at least
 * n bytes when the file has them, clipped to the file. */
static gcs_status map_need(gcs_stream *s, size_t n, gcs_error *err)
{
    uint64_t at = s->file_start + gcs_stream_offset(s); /* <= file_size */
    if (n > s->file_size - at && !s->eof) {
        struct stat st;
        if (fstat(s->fd, &st) == 0 && st.st_size > 0 && (uint64_t)st.st_size > s->file_size)
            s->file_size = (uint64_t)st.st_size; /* still being written */
        if (n > s->file_size - at)
            s->eof = true;
    }
    size_t want = n;
    if (want > s->file_size - at)
        want = (size_t)(s->file_size - at);
    if (want > gcs_stream_avail(s)) {
        uint64_t off = at / s->page * s->page;
        size_t in_page = (size_t)(at - off);
        size_t len = s->window > in_page + want ? s->window : in_page + want;
        if (len > s->file_size - off)
            len = (size_t)(s->file_size - off);
        view_moves(s); /* this window is unmapped below, or left for the buffer */
        void *m = mmap(NULL, len, PROT_READ, MAP_PRIVATE, s->fd, (off_t)off);
        if (m == MAP_FAILED)
            return map_fall_back(s, n, err);
#ifdef MADV_SEQUENTIAL
        (void)madvise(m, len, MADV_SEQUENTIAL);
#endif
        map_drop(s);
        s->map = m;
        s->map_len = len;
        s->base = at - s->file_start;
        s->data = (const uint8_t *)m + in_page;
        s->len = len - in_page;
        s->pos = 0;
        /* The descriptor's position follows what the stream took, as read() would. */
        (void)lseek(s->fd, (off_t)(off + len), SEEK_SET);
    }
    return want < n ? GCS_END : GCS_OK;
}

gcs_status gcs_stream_need(gcs_stream *s, size_t n, gcs_error *err)
{
    if (n > GCS_STREAM_MAX_UNIT)
        return GCS_FAIL(err, GCS_ERR_LIMIT, gcs_stream_offset(s),
                        "unit of %zu bytes exceeds the %zu-byte limit", n, GCS_STREAM_MAX_UNIT);
    if (n <= gcs_stream_avail(s))
        return GCS_OK;
    if (s->mode == GCS_STREAM_MAP)
        return map_need(s, n, err);
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
