/*
 * format/etl/etl_kernel.h - the kernel logger's events in an ETL file:
 * TraceEvent's names by (group, opcode), the payload schemas of the
 * Process and Thread events, and the process and thread TraceEvent shows
 * for them (from the payload, not the record header). Also the names of
 * the classic (MOF) events xperf and PerfView merge into their files
 * (KernelTraceControl image ids and metadata, system configuration).
 * docs/format-etl.md has the layouts and how each was confirmed.
 */
#ifndef GCS_FORMAT_ETL_ETL_KERNEL_H
#define GCS_FORMAT_ETL_ETL_KERNEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gcscope/reader.h"

/* Kernel event groups (high byte of the system header's hook id). */
enum {
    GCS_ETL_GROUP_EVENTTRACE = 0,
    GCS_ETL_GROUP_PROCESS = 3,
    GCS_ETL_GROUP_THREAD = 5,
    GCS_ETL_GROUP_TCPIP = 6,
    GCS_ETL_GROUP_UDPIP = 8,
    GCS_ETL_GROUP_IMAGE = 20
};

/* What a kernel event is called and how its payload reads. */
typedef struct gcs_etl_kernel_desc {
    const char *provider;     /* "Windows Kernel" or TraceEvent's other name */
    const char *name;         /* "Process/DCStart", or NULL: not known */
    const gcs_field *fields;  /* payload schema, or NULL (not decoded) */
    uint32_t field_count;
} gcs_etl_kernel_desc;

/* The name and schema of kernel event (group, opcode) of this version
 * (the system header's first 16 bits). */
gcs_etl_kernel_desc gcs_etl_kernel_describe(uint8_t group, uint8_t opcode, uint16_t version);

/*
 * The process and thread TraceEvent shows for a kernel event whose header
 * said *pid, *tid (0xffffffff each for a perfinfo header, which has
 * none): Process events the payload's process and no thread (-1), Thread
 * events the payload's process and thread, Image events the payload's
 * process (and no thread but for Image/Load), TcpIp/UdpIp the payload's
 * process and no thread. payload_pointer_size is the event's (4 or 8).
 * A payload too short for its field leaves the header's values.
 */
void gcs_etl_kernel_ids(uint8_t group, uint8_t opcode, uint16_t version, const uint8_t *payload,
                        size_t size, uint32_t payload_pointer_size, uint32_t *pid, uint64_t *tid);

/* TraceEvent's provider and event name of a classic (full trace header)
 * event of provider guid (16 bytes as in the file) and opcode; false when
 * the provider or opcode is not one we name. */
bool gcs_etl_classic_name(const uint8_t *guid, uint8_t opcode, const char **provider,
                          const char **name);

#endif
