/*
 * format/fastser.h - the FastSerialization object framing shared by the
 * netperf (V1..V3) and nettrace V4/V5 readers. Internal to src/format.
 *
 * The stream is "!FastSerialization.1" then objects:
 *   BeginObject(4, netperf) or BeginPrivateObject(5, nettrace)
 *   type object: Begin tag, NullReference(1), int32 Version,
 *                int32 MinimumReaderVersion, int32 name length, name, EndObject(6)
 *   payload, EndObject(6)
 * and a NullReference(1) tag after the last object. Block objects carry
 * int32 BlockSize, zero padding to a 4-byte file offset, BlockSize bytes.
 * This layer reads one whole object per step from the gcs_stream (AGAIN
 * safe: nothing is consumed until the object is complete), parses the
 * Trace object itself and hands each block's bytes to the version's
 * parser through `parse_block`.
 */
#ifndef GCS_FORMAT_FASTSER_H
#define GCS_FORMAT_FASTSER_H

#include "base/cursor.h"
#include "format/container.h"

typedef enum gcs_fs_kind {
    GCS_FS_TRACE,
    GCS_FS_EVENT_BLOCK,
    GCS_FS_METADATA_BLOCK,
    GCS_FS_STACK_BLOCK,
    GCS_FS_SP_BLOCK,
    GCS_FS_UNKNOWN
} gcs_fs_kind;

typedef enum gcs_fs_stage {
    GCS_FS_STAGE_HEADER,        /* expecting "!FastSerialization.1" */
    GCS_FS_STAGE_TRACE,         /* expecting the Trace object */
    GCS_FS_STAGE_OBJECTS,       /* expecting a block object or NullReference */
    GCS_FS_STAGE_INLINE_EVENTS, /* netperf V1/V2: events inside the trace object */
    GCS_FS_STAGE_DONE,
    GCS_FS_STAGE_FAILED
} gcs_fs_stage;

typedef struct gcs_fs_reader gcs_fs_reader;

struct gcs_fs_reader {
    gcs_container base;
    bool nettrace;          /* BeginPrivateObject framing, Trace version 4 */
    gcs_fs_stage stage;
    gcs_status failure;     /* the error that stopped the reader */
    uint32_t version;       /* Trace object version: netperf 1..3, nettrace 4 */
    gcs_trace_info info;
    /* Parses the contents of one block object (cursor covers exactly
     * BlockSize bytes, origin = their input offset). */
    gcs_status (*parse_block)(gcs_fs_reader *r, gcs_fs_kind kind, gcs_cursor *body,
                              gcs_error *err);
    /* netperf V1/V2 only: reads one inline event (or the end marker). */
    gcs_status (*inline_step)(gcs_fs_reader *r, gcs_error *err);
    gcs_buf scratch;        /* sequence point entries, reused */
};

/* Creates the reader (stage HEADER) with the given callbacks. */
gcs_status gcs_fs_create(gcs_stream *s, const gcs_sink *sink, bool nettrace,
                         gcs_status (*parse_block)(gcs_fs_reader *, gcs_fs_kind, gcs_cursor *,
                                                   gcs_error *),
                         gcs_status (*inline_step)(gcs_fs_reader *, gcs_error *),
                         gcs_container **out, gcs_error *err);

/*
 * Makes n bytes of the current unit available. GCS_OK, GCS_AGAIN, an
 * error, or, when the input ends first, GCS_ERR_TRUNCATED naming `what`,
 * where the unit started and where the input ended.
 */
gcs_status gcs_fs_need(gcs_fs_reader *r, size_t n, uint64_t unit_start, const char *what,
                       gcs_error *err);

/* Reports a survivable anomaly through the sink (if it listens). */
void gcs_fs_anomaly(gcs_fs_reader *r, uint64_t offset, const char *reason);

/* Calls sink->metadata for a parsed row, first reporting any survivable
 * problem the metadata parser recorded. */
gcs_status gcs_fs_report_metadata(gcs_fs_reader *r, const gcs_meta_def *def,
                                  const gcs_error *problem, gcs_error *err);

#endif
