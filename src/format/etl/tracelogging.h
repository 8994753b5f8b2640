/*
 * format/etl/tracelogging.h - TraceLogging event metadata (ETW extended
 * data items 11 "event schema" and 12 "provider traits").
 */
#ifndef GCS_FORMAT_ETL_TRACELOGGING_H
#define GCS_FORMAT_ETL_TRACELOGGING_H

#include "format/container.h"

typedef struct gcs_tl_event {
    const char *provider;   /* from the traits; NULL when none */
    const char *event_name;
    const gcs_field *fields;
    uint32_t field_count;
} gcs_tl_event;

/*
 * Parses a TraceLogging event schema (and the provider traits, NULL when
 * absent) into *out, allocating in arena. False with *why when the schema
 * is invalid or uses what is not supported yet (custom schemas, arrays of
 * binary or SYSTEMTIME, SIDs, counted strings).
 */
bool gcs_tl_parse(const uint8_t *schema, size_t schema_size, const uint8_t *traits,
                  size_t traits_size, gcs_arena *arena, gcs_tl_event *out, const char **why);

#endif
