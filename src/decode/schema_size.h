/*
 * decode/schema_size.h - payload size of schemas made only of fixed-size
 * fields, so a payload can be checked against its schema with one compare
 * instead of a walk.
 */
#ifndef GCS_DECODE_SCHEMA_SIZE_H
#define GCS_DECODE_SCHEMA_SIZE_H

#include "gcscope/reader.h"

/* True with *size set when every field has a size known from the schema
 * and pointer size alone; a payload then fits iff it has >= *size bytes
 * (trailing bytes are allowed, as gcs_payload_walk allows them). */
bool gcs_schema_fixed_size(const gcs_field *fields, uint32_t count, uint32_t pointer_size,
                           uint32_t *size);

#endif
