/*
 * io/archive_lib.h - libarchive, opened the first time a trace needs it
 * (base/lazy_lib.h says why it is not linked). Only zipped or compressed
 * traces need it; a machine without it still reads every plain trace.
 * The entry points gcscope calls are gcs_libarchive's members, named and
 * typed as in <archive.h> (gcs_libarchive.archive_read_new(), ...), valid
 * once gcs_libarchive_load returned true.
 *
 * GCSCOPE_LIBARCHIVE names the library file to open instead of
 * libarchive.so.13 (a system that names it otherwise; tests).
 */
#ifndef GCS_IO_ARCHIVE_LIB_H
#define GCS_IO_ARCHIVE_LIB_H

#include <archive.h>
#include <archive_entry.h>
#include <stdbool.h>

#include "gcscope/core.h"

/* X(name) for each libarchive function gcscope calls. */
#define GCS_LIBARCHIVE_FUNCTIONS(X)                                                              \
    X(archive_read_new)                                                                          \
    X(archive_read_free)                                                                         \
    X(archive_read_open)                                                                         \
    X(archive_read_open_filename)                                                                \
    X(archive_read_next_header)                                                                  \
    X(archive_read_data_block)                                                                   \
    X(archive_read_support_format_zip)                                                           \
    X(archive_read_support_format_tar)                                                           \
    X(archive_read_support_format_raw)                                                           \
    X(archive_read_support_filter_none)                                                          \
    X(archive_read_support_filter_gzip)                                                          \
    X(archive_read_support_filter_xz)                                                            \
    X(archive_read_support_filter_zstd)                                                          \
    X(archive_read_support_filter_bzip2)                                                         \
    X(archive_zlib_version)                                                                      \
    X(archive_liblzma_version)                                                                   \
    X(archive_libzstd_version)                                                                   \
    X(archive_bzlib_version)                                                                     \
    X(archive_set_error)                                                                         \
    X(archive_error_string)                                                                      \
    X(archive_errno)                                                                             \
    X(archive_format)                                                                            \
    X(archive_filter_bytes)                                                                      \
    X(archive_entry_pathname)                                                                    \
    X(archive_entry_filetype)                                                                    \
    X(archive_entry_is_encrypted)

#define GCS_LIBARCHIVE_MEMBER(name) __typeof__(name) *name;
typedef struct gcs_libarchive_api {
    GCS_LIBARCHIVE_FUNCTIONS(GCS_LIBARCHIVE_MEMBER)
} gcs_libarchive_api;
#undef GCS_LIBARCHIVE_MEMBER

/* Filled by gcs_libarchive_load, read-only after it (any thread). */
extern gcs_libarchive_api gcs_libarchive;

/*
 * Opens libarchive once per process (thread-safe); true when every entry
 * point is there. False with err set (GCS_ERR_UNSUPPORTED, offset 0, the
 * loader's reason) when it cannot be opened; asked again, it says the same.
 */
bool gcs_libarchive_load(gcs_error *err);

#endif
