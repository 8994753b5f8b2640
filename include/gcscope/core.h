/*
 * gcscope/core.h - status codes, errors and byte sources.
 *
 * Every fallible call returns a gcs_status and, on failure, fills a
 * gcs_error that says where in the input (byte offset) and why.
 */
#ifndef GCSCOPE_CORE_H
#define GCSCOPE_CORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define GCS_VERSION_STRING "0.1.0"

/* Result of a call. Values >= 0 are not errors. */
typedef enum gcs_status {
    GCS_OK = 0,
    GCS_END = 1,              /* the input ended cleanly: no more data */
    GCS_AGAIN = 2,            /* no data yet (live stream): call again later */
    GCS_ERR_NOT_TRACE = -1,   /* not a format this library knows */
    GCS_ERR_UNSUPPORTED = -2, /* a known format, in a version not supported */
    GCS_ERR_CORRUPT = -3,     /* bytes contradict the format */
    GCS_ERR_TRUNCATED = -4,   /* the input ended inside a unit */
    GCS_ERR_LIMIT = -5,       /* a length is beyond a named limit */
    GCS_ERR_IO = -6,          /* the operating system refused a read */
    GCS_ERR_NOMEM = -7,       /* out of memory */
    GCS_ERR_ARG = -8          /* the caller passed something invalid */
} gcs_status;

/* Generations as the runtime numbers them (per-generation arrays,
 * GC/GenerationRange): LOH and POH are collected only by gen-2 GCs. */
enum {
    GCS_GEN0 = 0,
    GCS_GEN1 = 1,
    GCS_GEN2 = 2,
    GCS_GEN_LOH = 3, /* large object heap */
    GCS_GEN_POH = 4, /* pinned object heap (.NET 5+) */
    GCS_GEN_COUNT = 5
};
#define GCS_GENERATION_COUNT GCS_GEN_COUNT

/* What went wrong, and where. */
typedef struct gcs_error {
    gcs_status status;
    uint64_t offset;      /* byte offset in the input where it was detected */
    char reason[256];     /* one line, no trailing newline */
    const char *src_file; /* gcscope source file that detected it */
    int src_line;
} gcs_error;

/* Short stable name of a status ("ok", "corrupt", ...). */
const char *gcs_status_name(gcs_status status);

/* Clears an error record. */
void gcs_error_clear(gcs_error *err);

/*
 * A byte source ("medium"): a file, a file descriptor, memory, or anything
 * with a read function. A read may answer GCS_AGAIN (no data yet) so the
 * same decoder serves files and live sockets.
 */
typedef struct gcs_source gcs_source;

/*
 * Custom read: copy up to cap bytes into buf, store the count in *got.
 * Return GCS_OK with *got > 0, GCS_END at end of input, GCS_AGAIN when no
 * data is available yet, or an error status.
 */
typedef gcs_status (*gcs_read_fn)(void *ctx, void *buf, size_t cap, size_t *got);

/* Opens a file for reading; or a folder holding an LTTng (CTF) trace, which
 * the reader then reads file by file. NULL on failure (err says why). */
gcs_source *gcs_source_open_file(const char *path, gcs_error *err);

/* Reads from an open descriptor (pipe, socket, file). A non-blocking
 * descriptor that has no data yields GCS_AGAIN. */
gcs_source *gcs_source_from_fd(int fd, bool close_when_freed, gcs_error *err);

/* Reads from memory the caller keeps alive until the source is freed. */
gcs_source *gcs_source_from_memory(const void *data, size_t size, gcs_error *err);

/* Reads through a caller-supplied function. close may be NULL. */
gcs_source *gcs_source_custom(gcs_read_fn read, void (*close)(void *ctx), void *ctx,
                              gcs_error *err);

/* Frees the source (and closes what it owns). NULL is allowed. */
void gcs_source_free(gcs_source *src);

#ifdef __cplusplus
}
#endif
#endif
