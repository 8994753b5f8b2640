/*
 * io/archive.h - a trace inside an archive (zip, tar) or a compressed file
 * (gzip, xz, zstd, bzip2), read through libarchive as a medium.
 *
 * The archive's bytes come from an outer gcs_stream (a mapped file, a
 * pipe, memory: whatever the trace would have been read from); libarchive
 * decompresses them and the chosen member's bytes come out of a gcs_source
 * like a pipe's, in pieces, nothing unpacked to disk. Members are read in
 * archive order, once: the member is chosen from its name and first bytes
 * as libarchive reaches it (a zip is read as a stream, by its local
 * headers, not its central directory).
 *
 * libarchive cannot be resumed: an outer medium that says GCS_AGAIN (a live
 * socket) is an error here. Archives are read from complete inputs.
 */
#ifndef GCS_IO_ARCHIVE_H
#define GCS_IO_ARCHIVE_H

#include "io/source.h"

typedef enum gcs_archive_kind {
    GCS_ARCHIVE_NONE = 0,
    GCS_ARCHIVE_ZIP,   /* "PK\3\4" (or "PK\5\6": an empty zip) */
    GCS_ARCHIVE_GZIP,  /* 1f 8b */
    GCS_ARCHIVE_XZ,    /* fd "7zXZ" 00 */
    GCS_ARCHIVE_ZSTD,  /* 28 b5 2f fd */
    GCS_ARCHIVE_BZIP2  /* "BZh" then the block size digit '1'..'9' */
} gcs_archive_kind;

/* Bytes gcs_archive_sniff looks at (fewer are fine: no match). */
#define GCS_ARCHIVE_MAGIC_BYTES 6
/* First bytes of a member handed to the classifier (fewer if it is shorter). */
#define GCS_ARCHIVE_PREFIX_BYTES 256

/* Which archive or compression the first bytes of an input announce. */
gcs_archive_kind gcs_archive_sniff(const uint8_t *p, size_t n);

/* "zip", "gzip", "xz", "zstd", "bzip2" ("" for GCS_ARCHIVE_NONE). */
const char *gcs_archive_kind_name(gcs_archive_kind kind);

/* What a member is, as the layer above tells from its name and first bytes. */
typedef enum gcs_member_class {
    GCS_MEMBER_OTHER = 0, /* not a trace: skipped (a log file, a readme) */
    GCS_MEMBER_TRACE,     /* a trace the reader reads: chosen */
    GCS_MEMBER_CTF        /* part of an LTTng CTF trace (perfcollect): named if nothing else fits */
} gcs_member_class;

typedef gcs_member_class (*gcs_member_classify_fn)(const char *name, const uint8_t *p, size_t n);

typedef struct gcs_archive gcs_archive;

/*
 * Opens the archive whose bytes start at outer's position and chooses the
 * member to read: the one named want_member when not NULL (its path in the
 * archive, or its last path component), else the first regular member that
 * classify calls GCS_MEMBER_TRACE. A compressed single file (gzip, xz,
 * ...) is its own member and is taken whatever its content. outer must
 * outlive the archive. NULL on failure: GCS_ERR_NOT_TRACE when no member
 * is a trace (the reason names them, or says the trace is CTF), GCS_ERR_ARG
 * when want_member is absent, GCS_ERR_CORRUPT / GCS_ERR_TRUNCATED when the
 * archive is damaged before the member (offset: in the archive).
 */
gcs_archive *gcs_archive_open(gcs_stream *outer, const char *want_member,
                              gcs_member_classify_fn classify, gcs_error *err);

/* The chosen member's bytes as a source (owned by the archive: do not free it). */
gcs_source *gcs_archive_source(gcs_archive *a);

gcs_archive_kind gcs_archive_kind_of(const gcs_archive *a);

/* Path of the chosen member in the archive; "" for a compressed single file. */
const char *gcs_archive_member(const gcs_archive *a);

/*
 * Why the member's bytes stopped early, or NULL if they did not: a CRC
 * mismatch or damaged compressed data (GCS_ERR_CORRUPT), the archive cut
 * short (GCS_ERR_TRUNCATED), the outer medium's error. The offset is the
 * member's byte offset where its data stopped; the reason names the
 * member. The source's read then returns the status, so the stream fails
 * there; the reader reports this error instead of the stream's.
 */
const gcs_error *gcs_archive_error(const gcs_archive *a);

/*
 * The reader of the member stopped at the trace's end: reads the rest of
 * the member (discarded) so that libarchive checks it whole (a zip
 * member's CRC is checked at its end). GCS_OK, or the error that
 * gcs_archive_error then gives.
 */
gcs_status gcs_archive_finish(gcs_archive *a);

/* Frees the archive and its source; NULL is allowed. */
void gcs_archive_free(gcs_archive *a);

#endif
