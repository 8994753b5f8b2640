/*
 * io/archive.c - the member of an archive as a medium (see archive.h).
 *
 * Flow: outer gcs_stream -> outer_read (libarchive's read callback, which
 * lends the stream's current view: the read buffer or the memory, no
 * copy) -> libarchive (zip/tar reading, gzip/xz/zstd/bzip2 filters)
 * -> archive_read_data into the inner stream's buffer (member_read).
 *
 * Only filters libarchive has built in are enabled: one it would run as an
 * external program (libarchive's fallback when a library is missing) is
 * left out, so hostile input never starts a process.
 */
#include "io/archive.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "io/archive_lib.h"

struct gcs_archive {
    struct archive *la;
    gcs_stream *outer;
    size_t lent;             /* bytes of outer's view lent to libarchive */
    bool outer_ended;        /* outer said GCS_END: a failure now is truncation */
    gcs_error outer_err;     /* outer's own error, if it failed */
    gcs_archive_kind kind;
    char *member;            /* chosen member's path ("" for a single file) */
    /* First bytes of the member, read to classify it, delivered first. */
    uint8_t prefix[GCS_ARCHIVE_PREFIX_BYTES];
    size_t prefix_len, prefix_pos;
    uint64_t delivered;      /* member bytes handed out */
    /* libarchive's current data block (zero-copy read), and how much of it
     * is left; block_at is the member offset of block[0]. */
    const uint8_t *block;
    size_t block_left;
    uint64_t block_at;
    bool ended;
    gcs_error err;           /* status < 0 once the member's data failed */
    gcs_source *source;
    char la_msg[192];        /* la_reason's copy */
};

gcs_archive_kind gcs_archive_sniff(const uint8_t *p, size_t n)
{
    if (n >= 4 && p[0] == 'P' && p[1] == 'K' &&
        ((p[2] == 3 && p[3] == 4) || (p[2] == 5 && p[3] == 6)))
        return GCS_ARCHIVE_ZIP;
    if (n >= 2 && p[0] == 0x1f && p[1] == 0x8b)
        return GCS_ARCHIVE_GZIP;
    if (n >= 6 && !memcmp(p, "\xfd" "7zXZ\0", 6))
        return GCS_ARCHIVE_XZ;
    if (n >= 4 && !memcmp(p, "\x28\xb5\x2f\xfd", 4))
        return GCS_ARCHIVE_ZSTD;
    if (n >= 4 && p[0] == 'B' && p[1] == 'Z' && p[2] == 'h' && p[3] >= '1' && p[3] <= '9')
        return GCS_ARCHIVE_BZIP2;
    return GCS_ARCHIVE_NONE;
}

const char *gcs_archive_kind_name(gcs_archive_kind kind)
{
    static const char *const names[] = {"", "zip", "gzip", "xz", "zstd", "bzip2"};
    return (unsigned)kind < sizeof names / sizeof names[0] ? names[kind] : "";
}

/*
 * libarchive's read callback: the outer stream's bytes up to the next
 * multiple of GCS_ARCHIVE_LEND_BYTES of the input, in place (the read
 * buffer or memory: no copy). The piece lent last time is
 * consumed first (libarchive is done with it). Pieces at fixed offsets,
 * whatever the medium gives a read: libarchive inflates what it is lent
 * in one go and drops that output when the data fails, so the bytes of a
 * member delivered before a fault (and the events) would otherwise depend
 * on the medium.
 */
static la_ssize_t outer_read(struct archive *la, void *ctx, const void **buf)
{
    gcs_archive *a = ctx;
    gcs_stream_consume(a->outer, a->lent);
    a->lent = 0;
    gcs_error e;
    gcs_error_clear(&e);
    size_t piece = GCS_ARCHIVE_LEND_BYTES -
                   (size_t)(gcs_stream_offset(a->outer) % GCS_ARCHIVE_LEND_BYTES);
    gcs_status st = gcs_stream_need(a->outer, piece, &e);
    if (st == GCS_OK || (st == GCS_END && gcs_stream_avail(a->outer) > 0)) {
        *buf = gcs_stream_peek(a->outer);
        a->lent = st == GCS_OK ? piece : gcs_stream_avail(a->outer);
        return (la_ssize_t)a->lent;
    }
    if (st == GCS_END) {
        a->outer_ended = true;
        return 0;
    }
    if (st == GCS_AGAIN) {
        a->outer_err = e;
        GCS_FAIL(&a->outer_err, GCS_ERR_UNSUPPORTED, gcs_stream_offset(a->outer),
                 "the input has no data yet: an archive is read from a complete input");
        gcs_libarchive.archive_set_error(la, EAGAIN, "%s", a->outer_err.reason);
        return -1;
    }
    a->outer_err = e;
    if (a->outer_err.status >= 0)
        a->outer_err.status = st;
    gcs_libarchive.archive_set_error(la, EIO, "%s", a->outer_err.reason);
    return -1;
}

/* libarchive's last message, without the newline some of them end with. */
static const char *la_reason(gcs_archive *a)
{
    const char *s = gcs_libarchive.archive_error_string(a->la);
    if (!s || !*s)
        return "unknown libarchive error";
    size_t n = strlen(s);
    while (n > 0 && (s[n - 1] == '\n' || s[n - 1] == ' '))
        n--;
    if (n >= sizeof a->la_msg)
        n = sizeof a->la_msg - 1;
    memcpy(a->la_msg, s, n);
    a->la_msg[n] = 0;
    return a->la_msg;
}

/* Bytes of the archive libarchive has consumed: where an error in the
 * archive's own structure was met (not the stream's position, which is
 * ahead by what was lent). */
static uint64_t archive_offset(gcs_archive *a)
{
    la_int64_t n = gcs_libarchive.archive_filter_bytes(a->la, -1);
    return n > 0 ? (uint64_t)n : 0;
}

/*
 * libarchive failed: err gets the outer medium's own error if that was the
 * cause, else libarchive's message for the archive (member NULL), a member
 * ("" for a single compressed stream) at offset. Truncation when the outer
 * input had ended, except for a CRC or size mismatch: damaged data.
 */
static gcs_status la_fail(gcs_archive *a, gcs_error *err, uint64_t offset, const char *member)
{
    if (a->outer_err.status < 0) {
        if (err)
            *err = a->outer_err;
        return a->outer_err.status;
    }
    const char *why = la_reason(a);
    const char *kind = gcs_archive_kind_name(a->kind);
    gcs_status st = GCS_ERR_CORRUPT;
    if (gcs_libarchive.archive_errno(a->la) == ENOMEM)
        st = GCS_ERR_NOMEM;
    else if (a->outer_ended && !strstr(why, "CRC") && !strstr(why, "wrong size"))
        st = GCS_ERR_TRUNCATED;
    if (!member)
        return GCS_FAIL(err, st, offset, "%s: %s", kind, why);
    if (!member[0])
        return GCS_FAIL(err, st, offset, "%s data: %s", kind, why);
    return GCS_FAIL(err, st, offset, "%s member %s: %s", kind, member, why);
}

/* Enables what gcscope opens for kind: zip alone for "PK" (so damaged zip
 * headers are reported, not read as raw bytes); for a compressed stream,
 * the built-in filters and tar or a single raw file. */
static void enable_formats(struct archive *la, gcs_archive_kind kind)
{
    if (kind == GCS_ARCHIVE_ZIP) {
        gcs_libarchive.archive_read_support_format_zip(la);
        return;
    }
    if (gcs_libarchive.archive_zlib_version())
        gcs_libarchive.archive_read_support_filter_gzip(la);
    if (gcs_libarchive.archive_liblzma_version())
        gcs_libarchive.archive_read_support_filter_xz(la);
    if (gcs_libarchive.archive_libzstd_version())
        gcs_libarchive.archive_read_support_filter_zstd(la);
    if (gcs_libarchive.archive_bzlib_version())
        gcs_libarchive.archive_read_support_filter_bzip2(la);
    gcs_libarchive.archive_read_support_format_tar(la);
    gcs_libarchive.archive_read_support_format_raw(la);
}

/*
 * Copies up to cap bytes of the member from libarchive's blocks (zero-copy
 * reads, so one copy in all): GCS_OK with *got > 0, GCS_END at the
 * member's end, GCS_ERR_IO when libarchive failed (fail_member says why).
 * Not archive_read_data: that one drops the bytes it had copied when a
 * later block fails, and the events before a fault must be kept.
 */
static gcs_status take(gcs_archive *a, uint8_t *buf, size_t cap, size_t *got)
{
    *got = 0;
    while (a->block_left == 0) {
        const void *block;
        size_t size;
        la_int64_t at;
        int rc = gcs_libarchive.archive_read_data_block(a->la, &block, &size, &at);
        if (rc == ARCHIVE_EOF)
            return GCS_END;
        /* ARCHIVE_WARN too: a zip member's bad CRC is only a warning. */
        if (rc != ARCHIVE_OK)
            return GCS_ERR_IO;
        a->block = block;
        a->block_left = size;
        a->block_at = at >= 0 ? (uint64_t)at : a->delivered;
    }
    size_t n = a->block_left < cap ? a->block_left : cap;
    if (a->block_at > a->delivered) {
        /* A hole of a sparse member (tar) reads as zeros. */
        uint64_t hole = a->block_at - a->delivered;
        n = hole < cap ? (size_t)hole : cap;
        memset(buf, 0, n);
    } else {
        memcpy(buf, a->block, n);
        a->block += n;
        a->block_left -= n;
        a->block_at += n;
    }
    a->delivered += n;
    *got = n;
    return GCS_OK;
}

/* Reads the member's first bytes into a->prefix (counted as delivered:
 * member_read hands them out first). false: libarchive failed. */
static bool read_prefix(gcs_archive *a)
{
    a->prefix_len = 0;
    a->prefix_pos = 0;
    a->block_left = 0;
    a->delivered = 0;
    a->ended = false;
    while (a->prefix_len < sizeof a->prefix) {
        size_t n;
        gcs_status st = take(a, a->prefix + a->prefix_len, sizeof a->prefix - a->prefix_len, &n);
        if (st == GCS_END) {
            a->ended = true;
            break;
        }
        if (st < 0)
            return false;
        a->prefix_len += n;
    }
    return true;
}

/* Appends name to a "members: a, b" list, cut with "..." when full. */
static void list_add(char *list, size_t cap, const char *name)
{
    size_t len = strlen(list);
    if (len + 4 >= cap)
        return;
    int w = snprintf(list + len, cap - len, "%s%s", len ? ", " : "", name);
    if (w < 0 || (size_t)w >= cap - len)
        memcpy(list + cap - 4, "...", 4);
}

/* A member's path as messages and `info` show it: control bytes (a
 * hostile name could hold a newline) become '?', cut at cap - 1 bytes. */
static void shown_name(char *dst, size_t cap, const char *path)
{
    size_t n = 0;
    for (; path[n] && n + 1 < cap; n++)
        dst[n] = (unsigned char)path[n] < 0x20 || path[n] == 0x7f ? '?' : path[n];
    dst[n] = 0;
}

static bool name_matches(const char *path, const char *want)
{
    if (!strcmp(path, want))
        return true;
    const char *slash = strrchr(path, '/');
    return slash && !strcmp(slash + 1, want);
}

static gcs_status member_read(void *ctx, void *buf, size_t cap, size_t *got);
static gcs_status fail_member(gcs_archive *a);

/* Walks the members up to the one to read. GCS_OK with a->member set. */
static gcs_status choose_member(gcs_archive *a, const char *want, gcs_member_classify_fn classify,
                                gcs_error *err)
{
    const char *kind = gcs_archive_kind_name(a->kind);
    char others[160] = "";
    char ctf[256] = "";
    struct archive_entry *entry;
    for (;;) {
        int rc = gcs_libarchive.archive_read_next_header(a->la, &entry);
        if (rc == ARCHIVE_EOF)
            break;
        if (rc < ARCHIVE_WARN)
            return la_fail(a, err, archive_offset(a), NULL);
        bool single = (gcs_libarchive.archive_format(a->la) & ARCHIVE_FORMAT_BASE_MASK) == ARCHIVE_FORMAT_RAW;
        const char *raw_path = gcs_libarchive.archive_entry_pathname(entry);
        if (!raw_path)
            raw_path = "";
        char path[256];
        shown_name(path, sizeof path, raw_path);
        if (!single && gcs_libarchive.archive_entry_filetype(entry) != AE_IFREG)
            continue;
        if (!single && want && !name_matches(raw_path, want)) {
            list_add(others, sizeof others, path);
            continue;
        }
        if (gcs_libarchive.archive_entry_is_encrypted(entry))
            return GCS_FAIL(err, GCS_ERR_UNSUPPORTED, archive_offset(a),
                            "%s member %s is encrypted", kind, path);
        if (!read_prefix(a))
            return la_fail(a, err, a->delivered, single ? "" : path);
        gcs_member_class c = single || want ? GCS_MEMBER_TRACE
                                            : classify(path, a->prefix, a->prefix_len);
        if (c == GCS_MEMBER_TRACE) {
            a->member = strdup(single ? "" : path);
            if (!a->member)
                return GCS_FAIL(err, GCS_ERR_NOMEM, 0, "out of memory");
            return GCS_OK;
        }
        if (c == GCS_MEMBER_CTF && !ctf[0])
            snprintf(ctf, sizeof ctf, "%s", path);
        list_add(others, sizeof others, path);
    }
    if (want)
        return GCS_FAIL(err, GCS_ERR_ARG, 0, "no member %s in the %s (members: %s)", want, kind,
                        others[0] ? others : "none");
    if (ctf[0])
        return GCS_FAIL(err, GCS_ERR_NOT_TRACE, 0,
                        "LTTng CTF trace: the %s holds a CTF trace (%s), as perfcollect's "
                        ".trace.zip does; it is read from a zip file or a folder, not from "
                        "a pipe or memory",
                        kind, ctf);
    return GCS_FAIL(err, GCS_ERR_NOT_TRACE, 0,
                    "not a trace: no member of the %s is a nettrace, netperf or ETL trace "
                    "(members: %s)",
                    kind, others[0] ? others : "none");
}

gcs_archive *gcs_archive_open(gcs_stream *outer, const char *want_member,
                              gcs_member_classify_fn classify, gcs_error *err)
{
    gcs_status st = gcs_stream_need(outer, GCS_ARCHIVE_MAGIC_BYTES, err);
    if (st < 0)
        return NULL;
    gcs_archive_kind kind = gcs_archive_sniff(gcs_stream_peek(outer), gcs_stream_avail(outer));
    if (kind == GCS_ARCHIVE_NONE) {
        GCS_FAIL(err, GCS_ERR_ARG, gcs_stream_offset(outer), "not an archive");
        return NULL;
    }
    if (!gcs_libarchive_load(err))
        return NULL;
    gcs_archive *a = calloc(1, sizeof *a);
    if (!a || !(a->la = gcs_libarchive.archive_read_new())) {
        free(a);
        GCS_FAIL(err, GCS_ERR_NOMEM, 0, "out of memory");
        return NULL;
    }
    a->outer = outer;
    a->kind = kind;
    enable_formats(a->la, kind);
    if (gcs_libarchive.archive_read_open(a->la, a, NULL, outer_read, NULL) != ARCHIVE_OK) {
        la_fail(a, err, archive_offset(a), NULL);
        gcs_archive_free(a);
        return NULL;
    }
    if (choose_member(a, want_member, classify, err) != GCS_OK) {
        gcs_archive_free(a);
        return NULL;
    }
    a->source = gcs_source_custom(member_read, NULL, a, err);
    if (!a->source) {
        gcs_archive_free(a);
        return NULL;
    }
    return a;
}

/* The source's read: the classified prefix, then libarchive's data. */
static gcs_status member_read(void *ctx, void *buf, size_t cap, size_t *got)
{
    gcs_archive *a = ctx;
    *got = 0;
    if (a->err.status < 0)
        return a->err.status;
    if (a->prefix_pos < a->prefix_len) {
        size_t n = a->prefix_len - a->prefix_pos;
        if (n > cap)
            n = cap;
        memcpy(buf, a->prefix + a->prefix_pos, n);
        a->prefix_pos += n;
        *got = n;
        return GCS_OK;
    }
    if (a->ended)
        return GCS_END;
    gcs_status st = take(a, buf, cap, got);
    if (st == GCS_END)
        a->ended = true;
    else if (st < 0)
        return fail_member(a);
    return st;
}

/* The member's data failed: keeps why (see gcs_archive_error). */
static gcs_status fail_member(gcs_archive *a)
{
    return la_fail(a, &a->err, a->delivered, a->member);
}

gcs_status gcs_archive_finish(gcs_archive *a)
{
    if (a->err.status < 0)
        return a->err.status;
    /* Skipped bytes count as delivered: a failure's offset is in the member. */
    a->delivered += a->block_left;
    a->block_left = 0;
    while (!a->ended) {
        const void *block;
        size_t size;
        la_int64_t at;
        int rc = gcs_libarchive.archive_read_data_block(a->la, &block, &size, &at);
        if (rc == ARCHIVE_EOF)
            a->ended = true;
        else if (rc != ARCHIVE_OK)
            return fail_member(a);
        else
            a->delivered += size;
    }
    return GCS_OK;
}

gcs_source *gcs_archive_source(gcs_archive *a) { return a->source; }

gcs_archive_kind gcs_archive_kind_of(const gcs_archive *a) { return a->kind; }

const char *gcs_archive_member(const gcs_archive *a) { return a->member ? a->member : ""; }

const gcs_error *gcs_archive_error(const gcs_archive *a)
{
    return a->err.status < 0 ? &a->err : NULL;
}

void gcs_archive_free(gcs_archive *a)
{
    if (!a)
        return;
    gcs_source_free(a->source);
    gcs_libarchive.archive_read_free(a->la);
    free(a->member);
    free(a);
}
