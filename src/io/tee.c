/*
 * io/tee.c - saving a live stream to a file while it is read, and leaving
 * a valid nettrace file behind whatever way the stream ends.
 *
 * Nettrace V4/V5 outer framing, as the tracker follows it (offsets are
 * from the start of the stream):
 *   "Nettrace", int32 20, "!FastSerialization.1"
 *   objects: 0x05 BeginObject, type (0x05, 0x01 NullReference,
 *            int32 version, int32 min reader version, int32 name length,
 *            name, 0x06 EndObject), body, 0x06 EndObject
 *     "Trace" body: 48 fixed bytes
 *     block bodies: int32 size, zero padding to a 4-byte stream offset,
 *                   size bytes
 *   end of stream: 0x01 NullReference
 * A stream cut inside an object is repaired by cutting the file after the
 * last whole object and appending the 0x01 end tag.
 */
#include "io/tee.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/cursor.h"
#include "base/error.h"
#include "io/source.h"

#define TAG_NULL_REFERENCE 0x01
#define TAG_BEGIN_OBJECT 0x05
#define TAG_END_OBJECT 0x06
#define TRACE_BODY_SIZE 48
#define HEADER_SIZE 32 /* "Nettrace" + int32 20 + "!FastSerialization.1" */

static void expect(gcs_frame_tracker *t, gcs_frame_state s, size_t n)
{
    t->state = s;
    t->acc_len = 0;
    t->acc_need = n;
}

static void give_up(gcs_frame_tracker *t, const char *why)
{
    t->state = GCS_FRAME_UNKNOWN;
    strncpy(t->why_unknown, why, sizeof t->why_unknown - 1);
    t->why_unknown[sizeof t->why_unknown - 1] = 0;
}

void gcs_frame_init(gcs_frame_tracker *t)
{
    memset(t, 0, sizeof *t);
    expect(t, GCS_FRAME_HEADER, HEADER_SIZE);
}

/* Acts on a completely accumulated unit (acc[0..acc_need)). t->pos is the
 * offset just after it. */
static void on_unit(gcs_frame_tracker *t)
{
    gcs_cursor c = gcs_cur_make(t->acc, t->acc_len, t->pos - t->acc_len);
    switch (t->state) {
    case GCS_FRAME_HEADER: {
        static const char magic[8] = {'N', 'e', 't', 't', 'r', 'a', 'c', 'e'};
        const uint8_t *m, *s;
        uint32_t len;
        if (!gcs_cur_bytes(&c, 8, &m) || memcmp(m, magic, 8) != 0) {
            give_up(t, "the stream does not start with \"Nettrace\"");
            return;
        }
        if (!gcs_cur_u32(&c, &len) || len != 20 || !gcs_cur_bytes(&c, 20, &s) ||
            memcmp(s, "!FastSerialization.1", 20) != 0) {
            give_up(t, "not nettrace V4/V5 framing (V6 or later)");
            return;
        }
        expect(t, GCS_FRAME_TAG, 1);
        return;
    }
    case GCS_FRAME_TAG: {
        uint8_t tag = 0;
        (void)gcs_cur_u8(&c, &tag);
        if (tag == TAG_NULL_REFERENCE) {
            t->state = GCS_FRAME_DONE;
            t->last_good = t->pos;
        } else if (tag == TAG_BEGIN_OBJECT) {
            expect(t, GCS_FRAME_TYPE_HEAD, 14);
        } else {
            give_up(t, "unexpected object tag");
        }
        return;
    }
    case GCS_FRAME_TYPE_HEAD: {
        uint8_t a = 0, b = 0;
        uint32_t version, min_version, name_len = 0;
        (void)(gcs_cur_u8(&c, &a) && gcs_cur_u8(&c, &b) && gcs_cur_u32(&c, &version) &&
               gcs_cur_u32(&c, &min_version) && gcs_cur_u32(&c, &name_len));
        if (a != TAG_BEGIN_OBJECT || b != TAG_NULL_REFERENCE || name_len == 0 ||
            name_len > GCS_TEE_MAX_TYPE_NAME) {
            give_up(t, "bad object type descriptor");
            return;
        }
        expect(t, GCS_FRAME_TYPE_NAME, name_len + 1);
        return;
    }
    case GCS_FRAME_TYPE_NAME: {
        const uint8_t *name;
        uint8_t end = 0;
        size_t name_len = t->acc_len - 1;
        (void)(gcs_cur_bytes(&c, name_len, &name) && gcs_cur_u8(&c, &end));
        if (end != TAG_END_OBJECT) {
            give_up(t, "object type without its end tag");
            return;
        }
        if (name_len == 5 && memcmp(name, "Trace", 5) == 0) {
            t->state = GCS_FRAME_SKIP;
            t->skip_left = TRACE_BODY_SIZE;
        } else if (name_len >= 5 && memcmp(name + name_len - 5, "Block", 5) == 0) {
            expect(t, GCS_FRAME_BLOCK_SIZE, 4);
        } else {
            give_up(t, "object type the tracker does not know");
        }
        return;
    }
    case GCS_FRAME_BLOCK_SIZE: {
        uint32_t size = 0;
        (void)gcs_cur_u32(&c, &size);
        if (size > GCS_TEE_MAX_BLOCK) {
            give_up(t, "block size beyond the limit");
            return;
        }
        t->state = GCS_FRAME_SKIP;
        t->skip_left = ((4 - (t->pos & 3)) & 3) + (uint64_t)size;
        return;
    }
    case GCS_FRAME_END_TAG: {
        uint8_t end = 0;
        (void)gcs_cur_u8(&c, &end);
        if (end != TAG_END_OBJECT) {
            give_up(t, "object without its end tag");
            return;
        }
        t->objects++;
        t->last_good = t->pos;
        expect(t, GCS_FRAME_TAG, 1);
        return;
    }
    default:
        return;
    }
}

void gcs_frame_feed(gcs_frame_tracker *t, const uint8_t *p, size_t n)
{
    while (n > 0) {
        if (t->state == GCS_FRAME_DONE || t->state == GCS_FRAME_UNKNOWN) {
            t->pos += n;
            return;
        }
        if (t->state == GCS_FRAME_SKIP) {
            size_t k = t->skip_left < n ? (size_t)t->skip_left : n;
            t->skip_left -= k;
            t->pos += k;
            p += k;
            n -= k;
            if (t->skip_left == 0)
                expect(t, GCS_FRAME_END_TAG, 1);
            continue;
        }
        size_t k = t->acc_need - t->acc_len;
        if (k > n)
            k = n;
        memcpy(t->acc + t->acc_len, p, k);
        t->acc_len += k;
        t->pos += k;
        p += k;
        n -= k;
        if (t->acc_len == t->acc_need)
            on_unit(t);
    }
}

/* ---- the tee ---- */

struct gcs_tee {
    gcs_source *inner;
    gcs_source *self;
    int fd;
    char *path;
    uint64_t bytes;
    gcs_status write_status;
    int write_errno;
    gcs_frame_tracker frames;
};

static gcs_status tee_read(void *ctx, void *buf, size_t cap, size_t *got)
{
    gcs_tee *t = ctx;
    gcs_status st = gcs_source_read(t->inner, buf, cap, got);
    if (st != GCS_OK || *got == 0)
        return st;
    gcs_frame_feed(&t->frames, buf, *got);
    t->bytes += *got;
    size_t done = 0;
    while (t->write_status == GCS_OK && done < *got) {
        ssize_t w = write(t->fd, (const uint8_t *)buf + done, *got - done);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            /* The analysis can go on; gcs_tee_close reports the failure. */
            t->write_status = GCS_ERR_IO;
            t->write_errno = w < 0 ? errno : ENOSPC;
            break;
        }
        done += (size_t)w;
    }
    return GCS_OK;
}

gcs_tee *gcs_tee_open(gcs_source *inner, const char *path, gcs_error *err)
{
    gcs_tee *t = calloc(1, sizeof *t);
    if (!t || !(t->path = strdup(path))) {
        free(t);
        GCS_FAIL(err, GCS_ERR_NOMEM, 0, "out of memory");
        return NULL;
    }
    t->inner = inner;
    gcs_frame_init(&t->frames);
    t->fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (t->fd < 0) {
        GCS_FAIL(err, GCS_ERR_IO, 0, "cannot create %s: %s", path, strerror(errno));
        free(t->path);
        free(t);
        return NULL;
    }
    t->self = gcs_source_custom(tee_read, NULL, t, err);
    if (!t->self) {
        close(t->fd);
        free(t->path);
        free(t);
        return NULL;
    }
    return t;
}

gcs_source *gcs_tee_source(gcs_tee *t) { return t->self; }

gcs_status gcs_tee_pump(gcs_tee *t, size_t max, size_t *got)
{
    uint8_t buf[65536];
    return tee_read(t, buf, max < sizeof buf ? max : sizeof buf, got);
}
uint64_t gcs_tee_bytes(const gcs_tee *t) { return t->bytes; }

gcs_status gcs_tee_close(gcs_tee *t, gcs_tee_result *res, gcs_error *err)
{
    gcs_tee_result r = {0};
    gcs_status st = GCS_OK;
    r.bytes_received = t->bytes;
    r.bytes_kept = t->bytes;
    r.objects = t->frames.objects;
    r.framing_known = t->frames.state != GCS_FRAME_UNKNOWN;
    r.stream_complete = t->frames.state == GCS_FRAME_DONE;
    if (t->write_status != GCS_OK) {
        st = GCS_FAIL(err, GCS_ERR_IO, t->bytes, "cannot write %s: %s", t->path,
                      strerror(t->write_errno));
    } else if (r.framing_known && !r.stream_complete) {
        if (t->frames.last_good == 0) {
            st = GCS_FAIL(err, GCS_ERR_TRUNCATED, t->bytes,
                          "the stream ended after %llu bytes, before its first whole block: "
                          "%s is not a usable trace",
                          (unsigned long long)t->bytes, t->path);
        } else {
            static const uint8_t end_tag = TAG_NULL_REFERENCE;
            if (ftruncate(t->fd, (off_t)t->frames.last_good) != 0 ||
                pwrite(t->fd, &end_tag, 1, (off_t)t->frames.last_good) != 1) {
                st = GCS_FAIL(err, GCS_ERR_IO, t->frames.last_good, "cannot repair %s: %s",
                              t->path, strerror(errno));
            } else {
                r.repaired = true;
                r.bytes_kept = t->frames.last_good + 1;
            }
        }
    }
    if (close(t->fd) != 0 && st == GCS_OK)
        st = GCS_FAIL(err, GCS_ERR_IO, t->bytes, "cannot write %s: %s", t->path,
                      strerror(errno));
    gcs_source_free(t->self);
    free(t->path);
    free(t);
    if (res)
        *res = r;
    return st;
}
