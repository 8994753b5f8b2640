/*
 * format/ctf/ctf_internal.h - between the CTF container (ctf.c, the
 * babeltrace2 graph) and its opening (ctf_open.c: folders, zips).
 */
#ifndef GCS_FORMAT_CTF_INTERNAL_H
#define GCS_FORMAT_CTF_INTERNAL_H

#include "format/ctf/ctf.h"

/* Folders holding a CTF trace (a "metadata" file) scanned below a root. */
#define GCS_CTF_MAX_TRACES 64

/* Creates the container over the trace folders inputs[0..n). On success
 * it takes tmp_dir (may be NULL), removed with the container; on failure
 * tmp_dir stays the caller's. deferred (may be NULL): an error the
 * container returns at the end of the events instead of GCS_END. */
gcs_status gcs_ctf_open_traces(gcs_stream *s, const gcs_sink *sink, char *const *inputs,
                               size_t n, char *tmp_dir, const gcs_error *deferred,
                               gcs_container **out, gcs_error *err);

/* The same without babeltrace2 (ctf_native.c): our own reader of the
 * traces LTTng writes. GCS_ERR_UNSUPPORTED when a trace's metadata is
 * beyond the TSDL subset it reads (then babeltrace2 may). A stream file
 * cut inside a packet is read up to its last whole packet and reported at
 * the end. On success it takes tmp_dir (may be NULL). */
gcs_status gcs_ctf_native_open(gcs_stream *s, const gcs_sink *sink, char *const *inputs,
                               size_t n, char *tmp_dir, gcs_container **out, gcs_error *err);

/* Turns our reader's shortcuts on (the default) or off, for the tests
 * that require both ways to read alike (tests/unit/test_ctf_fast.c): the
 * merge's top kept without a sift, the payload skips in whole bytes, the
 * byte-array events read without the walk, the metadata check's runs of
 * plain code (ctf_metadata.c). Process-wide, taken when a
 * reader opens (and its classes are first met); not for concurrent
 * readers. */
void gcs_ctf_native_shortcuts(bool on);
extern bool gcs_ctf_shortcuts; /* what it set (also the metadata check's runs) */

/* The largest metadata file read. */
#define CTF_METADATA_MAX_BYTES ((size_t)64 << 20)

/* The bytes of the metadata file at path (named `shown` in errors): read
 * whole into *out (the caller frees it), at most CTF_METADATA_MAX_BYTES,
 * an error if it grows while read. */
gcs_status gcs_ctf_read_metadata_file(const char *path, const char *shown, uint8_t **out,
                                      size_t *out_size, gcs_error *err);

/* Removes the folder tree at path (an extracted zip). */
void gcs_ctf_remove_tree(const char *path);

#endif
