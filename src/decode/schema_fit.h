/*
 * decode/schema_fit.h - whether a payload fits its schema, answered by a
 * small program compiled once per event type instead of a field walk.
 *
 * Counting an event checks that its payload fits its schema (the reader's
 * "undecodable" count). gcs_payload_walk_fields answers that by visiting
 * every value, thousands of them for a bulk event's array; the program
 * answers the same question with one step per run of fixed-size fields,
 * one per string and one per array of fixed-size elements (whatever their
 * count). It accepts exactly the payloads the walker accepts without a
 * visitor (tests/unit/test_schema_fit.c checks every event of the real
 * traces and every cut of them); schemas it does not cover compile to
 * NULL and stay with the walker.
 */
#ifndef GCS_DECODE_SCHEMA_FIT_H
#define GCS_DECODE_SCHEMA_FIT_H

#include "base/buf.h"
#include "gcscope/reader.h"

typedef struct gcs_fit_prog gcs_fit_prog;

/* The program for fields read with pointers of pointer_size (4 or 8),
 * allocated in arena; NULL when the schema has something it does not
 * cover (located arrays, variable-length integers, UTF-8 strings, deep
 * nesting, count fields the walker would refuse) or the arena is full. */
const gcs_fit_prog *gcs_fit_compile(const gcs_field *fields, uint32_t count,
                                    uint32_t pointer_size, gcs_arena *arena);

/* Does the payload fit? The answer of gcs_payload_walk_fields == GCS_OK
 * for the schema and pointer size the program was compiled from. */
bool gcs_fit_check(const gcs_fit_prog *prog, const uint8_t *payload, uint32_t size);

#endif
