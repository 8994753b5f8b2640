/*
 * gcscope/process.h - the processes of a trace by id, with their names:
 * from the Windows kernel's Process events in ETL files (image name,
 * command line, parent), EventPipe's ProcessInfo, the runtime's
 * Runtime/Start command line, and the name LTTng events carry
 * (gcs_event.process_name: procname). `gcscope stats` and `objects` name the
 * processes they report with it and select them with --process PID|NAME.
 *
 *     gcs_process_table *pt = gcs_process_table_new();
 *     while (gcs_reader_next(r, &ev, &err) == GCS_OK)
 *         gcs_process_table_feed(pt, ev);
 *     const gcs_process_entry *p = gcs_process_table_find(pt, 3644);
 *     // p->name "Test.x86", p->command_line "Test.x86.exe"
 */
#ifndef GCSCOPE_PROCESS_H
#define GCSCOPE_PROCESS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gcscope/reader.h"

/* One process as the trace describes it. Strings are never NULL ("" when
 * unknown) and live as long as the table. */
typedef struct gcs_process_entry {
    uint32_t pid;
    uint32_t parent_pid;      /* 0 when unknown */
    const char *name;         /* TraceEvent's ProcessName: the image file name
                                 without its extension ("Test.x86"); "" unknown */
    const char *image_file_name; /* as the kernel wrote it ("Test.x86.exe") */
    const char *command_line;
    bool has_exit;            /* a Process/Stop was seen */
    int32_t exit_status;
} gcs_process_entry;

typedef struct gcs_process_table gcs_process_table;

/* An empty table; NULL when out of memory. */
gcs_process_table *gcs_process_table_new(void);

void gcs_process_table_free(gcs_process_table *pt);

/* True for the event types the table learns from (for a reader's `want`
 * filter: gcs_reader_options). */
bool gcs_process_table_wants(const gcs_event_type *t);

/* Learns from ev when it describes a process (kernel Process events,
 * EventPipe ProcessInfo, Runtime/Start) or names it (process_name, the
 * latest winning, as TraceEvent's CtfTraceEventSource); other events are
 * ignored. The
 * kernel's and ProcessInfo's command line win over Runtime/Start's; a
 * later Process event of the same pid (a reused id) replaces the name. */
void gcs_process_table_feed(gcs_process_table *pt, const gcs_event *ev);

/* The process pid, or NULL when the trace did not describe it. */
const gcs_process_entry *gcs_process_table_find(const gcs_process_table *pt, uint32_t pid);

/* Processes known, and the i-th (in order of first appearance). */
size_t gcs_process_table_count(const gcs_process_table *pt);
const gcs_process_entry *gcs_process_table_at(const gcs_process_table *pt, size_t i);

/*
 * Whether process pid is selected by spec, a --process argument: a
 * decimal process id, or a name compared case-insensitively with the
 * process's name (image name without extension) and with its image file
 * name ("test.x86" and "Test.x86.exe" both select Test.x86.exe).
 */
bool gcs_process_matches(const gcs_process_table *pt, uint32_t pid, const char *spec);

#endif
