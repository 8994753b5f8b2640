/*
 * decode/payload.h - payload walking for the library's own layers.
 *
 * The walker itself is public (gcscope/decode.h: gcs_payload_walk,
 * gcs_payload_walk_fields, gcs_payload_find_*). The reader uses
 * gcs_payload_walk_fields with a NULL visitor to check that an event fits
 * its schema and to count trailing bytes (newer runtime versions) and
 * undecodable events; analysis layers use the find helpers or their own
 * visitors. Nothing here allocates.
 */
#ifndef GCS_DECODE_PAYLOAD_H
#define GCS_DECODE_PAYLOAD_H

#include "gcscope/decode.h"

#endif
