/*
 * format/nettrace/nettrace_v6.h - internals of the nettrace V6 reader shared
 * between its block reader (nettrace_v6.c) and its metadata-row parser
 * (nettrace_v6_metadata.c). Not part of the public API.
 */
#ifndef GCS_FORMAT_NETTRACE_V6_H
#define GCS_FORMAT_NETTRACE_V6_H

#include "base/cursor.h"
#include "format/container.h"

/* Block kinds of the V6 block stream (BlockHeader >> 24). */
enum {
    GCS_V6_BLOCK_END_OF_STREAM = 0,
    GCS_V6_BLOCK_TRACE = 1,
    GCS_V6_BLOCK_EVENT = 2,
    GCS_V6_BLOCK_METADATA = 3,
    GCS_V6_BLOCK_SEQUENCE_POINT = 4,
    GCS_V6_BLOCK_STACK = 5,
    GCS_V6_BLOCK_THREAD = 6,
    GCS_V6_BLOCK_REMOVE_THREAD = 7,
    GCS_V6_BLOCK_LABEL_LIST = 8
};

/* Live rows of the per-trace caches (beyond: GCS_ERR_LIMIT). */
#define GCS_V6_MAX_THREADS ((size_t)1 << 16)
#define GCS_V6_MAX_LABEL_LISTS ((size_t)1 << 18)

/* Survivable oddities of one trace, counted (never silently dropped). */
typedef struct gcs_v6_anomalies {
    uint64_t unknown_blocks;          /* block kinds this reader skips */
    uint64_t schemas_dropped;         /* metadata rows whose field types are unknown */
    uint64_t optional_metadata_cut;   /* unknown optional-metadata kind: rest ignored */
} gcs_v6_anomalies;

/*
 * Parses one V6 metadata row (the bytes after its uint16 Size) into *def,
 * allocating fields and strings in arena. Unknown field type codes drop the
 * schema (def->field_count = 0) and count in an; truncated or contradictory
 * bytes are GCS_ERR_CORRUPT, too many fields or too deep nesting
 * GCS_ERR_LIMIT, arena exhaustion GCS_ERR_NOMEM.
 */
gcs_status gcs_v6_parse_metadata_row(gcs_cursor *row, gcs_arena *arena, gcs_meta_def *def,
                                     gcs_v6_anomalies *an, gcs_error *err);

/*
 * Reads a V6 string (varuint32 byte length, then UTF-8) bounded by
 * GCS_MAX_STRING_UNITS. false leaves the cursor unchanged.
 */
bool gcs_v6_read_string(gcs_cursor *c, const uint8_t **s, uint32_t *len);

/* Counters of the V6 container c (which must be a V6 container). */
const gcs_v6_anomalies *gcs_nettrace_v6_anomalies(const gcs_container *c);

#endif
