/*
 * format/etl/tdh.h - event descriptions merged into an ETL file by xperf
 * and PerfView (KernelTraceControl/MetaData/EventInfo records: Windows'
 * TRACE_EVENT_INFO, as TdhGetEventInformation returns it), which name
 * the events of manifest providers the file does not otherwise describe.
 */
#ifndef GCS_FORMAT_ETL_TDH_H
#define GCS_FORMAT_ETL_TDH_H

#include "format/container.h"

typedef struct gcs_tdh_event {
    uint8_t provider_guid[16];
    uint16_t event_id;
    uint8_t version;
    const char *provider;   /* in the arena */
    const char *event_name; /* TraceEvent's: Task, or Task/Opcode */
    const gcs_field *fields; /* NULL when a property is not a plain scalar */
    uint32_t field_count;
} gcs_tdh_event;

/* Parses one TRACE_EVENT_INFO (the payload of MetaData/EventInfo) into
 * *out, strings and fields in arena. False with *why when it is invalid. */
bool gcs_tdh_parse(const uint8_t *p, size_t n, gcs_arena *arena, gcs_tdh_event *out,
                   const char **why);

#endif
