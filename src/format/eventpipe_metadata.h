/*
 * format/eventpipe_metadata.h - the payload of an EventPipe metadata event
 * (netperf V1..V3, nettrace V4/V5) turned into a gcs_meta_def.
 *
 * A metadata payload names one kind of event (provider, id, name, keywords,
 * version, level) and describes its payload fields. The field description
 * comes in two layouts: "V1" (TypeCode-based, no arrays) and, in nettrace
 * V5, an optional "V2Params" tag whose size-prefixed field list adds
 * uint16-length-prefixed arrays. A schema this parser cannot describe
 * (unknown type code, too deep, too many fields) is a survivable problem:
 * the row keeps its names and gets field_count 0, and `problem` says why.
 * Only a header that cannot be read is an error.
 */
#ifndef GCS_FORMAT_EVENTPIPE_METADATA_H
#define GCS_FORMAT_EVENTPIPE_METADATA_H

#include "base/cursor.h"
#include "format/container.h"

/* TypeCodes of EventPipe field descriptions (System.TypeCode plus
 * EventPipe's additions). */
enum {
    GCS_EP_TC_OBJECT = 1,     /* nested struct: a field list follows */
    GCS_EP_TC_BOOLEAN = 3,    /* 4 bytes */
    GCS_EP_TC_CHAR = 4,       /* one UTF-16 code unit */
    GCS_EP_TC_SBYTE = 5,
    GCS_EP_TC_BYTE = 6,
    GCS_EP_TC_INT16 = 7,
    GCS_EP_TC_UINT16 = 8,
    GCS_EP_TC_INT32 = 9,
    GCS_EP_TC_UINT32 = 10,
    GCS_EP_TC_INT64 = 11,
    GCS_EP_TC_UINT64 = 12,
    GCS_EP_TC_SINGLE = 13,
    GCS_EP_TC_DOUBLE = 14,
    GCS_EP_TC_DECIMAL = 15,   /* 16 bytes */
    GCS_EP_TC_DATETIME = 16,  /* 8-byte FILETIME */
    GCS_EP_TC_GUID = 17,
    GCS_EP_TC_STRING = 18,    /* UTF-16LE, 0x0000-terminated */
    GCS_EP_TC_ARRAY = 19,     /* V2Params only: element type follows */
    GCS_EP_TC_BOOLEAN8 = 26   /* nettrace V6 only */
};

/*
 * Maps a scalar TypeCode (3..18 except Object/Array, and Boolean8 when
 * allow_v6) to a field type. Decimal maps to GCS_T_BINARY with
 * *fixed_count 16; every other scalar sets *fixed_count 0. False for
 * Object, Array and unknown codes. Shared with the nettrace V6 reader.
 */
bool gcs_ep_scalar_type(uint32_t type_code, bool allow_v6, gcs_type *type, uint32_t *fixed_count);

/*
 * Parses one metadata payload (the cursor covers exactly the payload) into
 * *out, allocating names and fields in `arena`.
 *   format_version: 1..3 (netperf object version) or 4/5 (nettrace).
 *   obsolete_id: for versions 1 and 2 the metadata id is not in the payload
 *     but is the input offset of the metadata event; pass it here (ignored
 *     for 3..5).
 * Returns GCS_OK, or an error (err set) when the header itself is
 * unreadable (GCS_ERR_CORRUPT, GCS_ERR_LIMIT) or memory ran out. A
 * survivable problem with the field description sets problem->status to a
 * non-OK status with offset and reason (and *out has no fields); problem
 * is cleared (status GCS_OK) otherwise.
 */
gcs_status gcs_ep_metadata_parse(gcs_cursor *payload, uint32_t format_version,
                                 uint32_t obsolete_id, gcs_arena *arena, gcs_meta_def *out,
                                 gcs_error *problem, gcs_error *err);

/*
 * The provider name TraceEvent shows for a provider known only by its GUID
 * (16 bytes in Windows byte order): the name of a runtime provider it has a
 * parser for, else "Provider(<guid>)" (allocated in arena; NULL when the
 * arena is full). Used by netperf V1 and ETL.
 */
const char *gcs_provider_name_for_guid(const uint8_t *g, gcs_arena *arena);

#endif
