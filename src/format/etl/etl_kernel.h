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
    GCS_ETL_GROUP_DISKIO = 1,
    GCS_ETL_GROUP_MEMORY = 2,
    GCS_ETL_GROUP_PROCESS = 3,
    GCS_ETL_GROUP_THREAD = 5,
    GCS_ETL_GROUP_TCPIP = 6,
    GCS_ETL_GROUP_UDPIP = 8,
    GCS_ETL_GROUP_CONFIG = 11,
    GCS_ETL_GROUP_PERFINFO = 15,
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
 * The process of each thread, learnt from the Thread events as they are
 * read (TraceLog's thread table, in file order): the process of the
 * events that name only a thread in their payload (DiskIO, HardFault,
 * PerfInfo/Sample). At most GCS_ETL_MAX_THREADS threads are kept (the
 * table then stops learning: bounded memory).
 */
#define GCS_ETL_MAX_THREADS ((size_t)1 << 18) /* 6 MB of table at most */
typedef struct gcs_etl_thread_slot {
    uint32_t tid, pid;
    bool used;
} gcs_etl_thread_slot;
typedef struct gcs_etl_threads {
    gcs_etl_thread_slot *slots;
    size_t cap, n;
} gcs_etl_threads;

/* Frees the table's memory (the struct itself is the caller's). */
void gcs_etl_threads_free(gcs_etl_threads *t);

/*
 * The process and thread TraceEvent shows for a kernel event whose header
 * said *pid, *tid (0xffffffff each for a perfinfo header, which has
 * none): Process events the payload's process and no thread (-1), Thread
 * events the payload's process and thread, Image events the payload's
 * process (and no thread but for Image/Load), TcpIp/UdpIp the payload's
 * process and no thread; DiskIO Read/Write, Memory/HardFault and
 * PerfInfo/Sample the payload's thread and its process from threads (-1
 * when not known), SystemConfig/Services the payload's process.
 * payload_pointer_size is the event's (4 or 8). A payload too short for
 * its field leaves the header's values. Thread events are noted in
 * threads (a thread's latest process wins).
 */
void gcs_etl_kernel_ids(uint8_t group, uint8_t opcode, uint16_t version, const uint8_t *payload,
                        size_t size, uint32_t payload_pointer_size, gcs_etl_threads *threads,
                        uint32_t *pid, uint64_t *tid);

/* TraceEvent's provider and event name of a classic (full trace header)
 * event of provider guid (16 bytes as in the file) and opcode, and its
 * payload schema where we decode it (fields NULL otherwise); false when
 * the provider or opcode is not one we name. */
bool gcs_etl_classic_describe(const uint8_t *guid, uint8_t opcode, gcs_etl_kernel_desc *out);

/* True for KernelTraceControl's MetaData/EventInfo records (a
 * TRACE_EVENT_INFO describing a manifest provider's event: tdh.h). */
bool gcs_etl_is_event_info(const uint8_t *guid, uint8_t opcode);

/* "events", "buffers" or "a log file" when a classic record of (guid,
 * opcode) is a real-time session's RT_LostEvent record, else NULL. */
const char *gcs_etl_lost_event_kind(const uint8_t *guid, uint8_t opcode);

#endif
