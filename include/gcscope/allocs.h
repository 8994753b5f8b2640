/*
 * gcscope/allocs.h - who allocates: the runtime's allocation samples
 * (AllocationTick, about one per 100 kB a thread allocates) by the methods
 * on their call stacks, as PerfView's "GC Heap Alloc Ignore Free (Coarse
 * Sampling)" view attributes them.
 *
 * A tick's bytes are its AllocationAmount64 (AllocationAmount before
 * version 2): what the thread allocated since its previous tick, an
 * estimate of the allocations near that stack. The frames are resolved
 * against the methods the trace describes (runtime MethodLoadVerbose, the
 * rundown's MethodDCStartVerbose / MethodDCStopVerbose: JIT-compiled and
 * ReadyToRun code), per process, once the whole trace is read, as
 * TraceEvent's TraceLog names them (docs/allocs.md). The views:
 *   - exclusive: each tick under the first frame from the leaf that is a
 *     method (the runtime's own native frames come first and name none);
 *   - inclusive: each tick under every distinct method of its stack;
 *   - by type: each tick under (type name, exclusive method);
 *   - call stacks: each tick with a stack under the sequence of its
 *     frames that are methods (gcs_allocs_stack_at);
 *   - GC triggers: each GCTriggered event (a GC, on the thread whose
 *     allocation or GC.Collect call triggered it) under its reason and the
 *     frames of its stack that are methods (gcs_allocs_trigger_at).
 *
 *     gcs_allocs *a = gcs_allocs_new();
 *     // reader options: want = gcs_allocs_wants, stacks = true
 *     while (gcs_reader_next(r, &ev, &err) == GCS_OK)
 *         gcs_allocs_feed(a, r, ev);
 *     gcs_allocs_finish(a);
 *     for (size_t i = 0; i < gcs_allocs_count(a, GCS_ALLOCS_EXCLUSIVE); i++)
 *         ... gcs_allocs_at(a, GCS_ALLOCS_EXCLUSIVE, i)->method ...
 *     gcs_allocs_free(a);
 *
 * Stacks: nettrace and netperf give them with the events (the reader's
 * stack ids); an ETL trace as ClrStackWalk events after them.
 *
 * Memory: an entry per distinct (process, stack, type) (at most
 * GCS_ALLOCS_MAX_ENTRIES), per method (GCS_ALLOCS_MAX_METHODS) and their
 * names (GCS_ALLOCS_MAX_NAME_BYTES), per thread (GCS_ALLOCS_MAX_THREADS),
 * the call stacks' frames (GCS_ALLOCS_MAX_STACK_NAMES);
 * past a limit ticks or methods are left out (a thread past it: its ticks
 * wait for no stack walk) and `over_limit` says how many.
 */
#ifndef GCSCOPE_ALLOCS_H
#define GCSCOPE_ALLOCS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "gcscope/reader.h"

#ifdef __cplusplus
extern "C" {
#endif

#define GCS_ALLOCS_MAX_ENTRIES (1u << 24)
#define GCS_ALLOCS_MAX_METHODS (1u << 22)
#define GCS_ALLOCS_MAX_NAME_BYTES (256u << 20)
#define GCS_ALLOCS_MAX_THREADS (1u << 20) /* threads followed for ETL stack walks */
#define GCS_ALLOCS_MAX_STACK_NAMES (1u << 25) /* frames of the call stacks list, all together */

typedef struct gcs_allocs gcs_allocs;

typedef enum gcs_allocs_view {
    GCS_ALLOCS_EXCLUSIVE = 0,
    GCS_ALLOCS_INCLUSIVE = 1,
    GCS_ALLOCS_BY_TYPE = 2
} gcs_allocs_view;
#define GCS_ALLOCS_VIEWS 3

/* The name of the row of ticks whose stack names no method, and of the
 * ticks that came without a stack. */
#define GCS_ALLOCS_NO_METHOD "?"
#define GCS_ALLOCS_NO_STACK "(no stack)"

/* One row: bytes and ticks of a method (and of a type, in BY_TYPE). */
typedef struct gcs_allocs_row {
    const char *method; /* "Namespace.Type.Method(signature)": see docs/allocs.md */
    const char *type;   /* BY_TYPE only (else NULL): the ticks' TypeName */
    uint64_t bytes;
    uint64_t ticks;
} gcs_allocs_row;

typedef struct gcs_allocs_stats {
    uint64_t ticks;            /* AllocationTick events fed */
    uint64_t bytes;            /* their bytes */
    uint64_t ticks_with_stack; /* of them, with a stack the reader kept */
    uint64_t frames;           /* frames of those ticks' stacks */
    uint64_t frames_resolved;  /* of them, inside a method */
    uint64_t methods;          /* method ranges read (distinct) */
    uint64_t distinct_stacks;  /* distinct stacks among the ticks */
    uint64_t over_limit;       /* ticks or methods left out (limits above) */
    uint64_t outside_range;    /* ticks left out by gcs_allocs_set_time_range */
    uint64_t triggers;         /* GCTriggered events fed */
    uint64_t triggers_with_stack;
    uint64_t walks_unpaired;   /* ETL stack walks whose thread's previous CLR event
                                  read here was not a tick waiting for one (the
                                  walks of other events: GCs, exceptions, ...) */
} gcs_allocs_stats;

gcs_allocs *gcs_allocs_new(void);
void gcs_allocs_free(gcs_allocs *a);

/* Counts only the ticks in [from_ms, to_ms) of the trace (ms as
 * gcs_event.msec; a bound applies when its has_ flag is set); the others
 * are counted in outside_range. The methods of the whole trace still name
 * the frames. Call before the first feed. */
void gcs_allocs_set_time_range(gcs_allocs *a, bool has_from, double from_ms, bool has_to,
                               double to_ms);

/* The events gcs_allocs_feed uses (a gcs_reader_options.want). */
bool gcs_allocs_wants(void *ctx, const gcs_event_type *type);

/* Feeds one event (others are ignored), in the reader's order; r is the
 * reader it came from, created with options.stacks. An ETL trace's stack
 * comes as a ClrStackWalk event just after its event on the same thread:
 * it is given to the thread's tick before it (TraceLog's rule). */
void gcs_allocs_feed(gcs_allocs *a, const gcs_reader *r, const gcs_event *ev);

/* Resolves every stack and builds the views; r the same reader (its
 * stacks are read here). Call once, after the last feed. */
void gcs_allocs_finish(gcs_allocs *a, const gcs_reader *r);

/* Rows of a view, most bytes first (then by ticks, then by name). */
size_t gcs_allocs_count(const gcs_allocs *a, gcs_allocs_view view);
const gcs_allocs_row *gcs_allocs_at(const gcs_allocs *a, gcs_allocs_view view, size_t i);

void gcs_allocs_get_stats(const gcs_allocs *a, gcs_allocs_stats *out);

/* An allocating call stack: the frames of a stack that are methods (the
 * others left out, recursion kept), leaf first; a stack whose frames name
 * no method has the single frame "?". The samples without a stack are in
 * no row. Valid until gcs_allocs_free. */
typedef struct gcs_allocs_stack {
    const char *const *frames;
    size_t n_frames;
    uint64_t bytes;
    uint64_t ticks;
} gcs_allocs_stack;

/* The allocating call stacks, most bytes first (then samples, then the
 * frames' names). After gcs_allocs_finish. */
size_t gcs_allocs_stack_count(const gcs_allocs *a);
const gcs_allocs_stack *gcs_allocs_stack_at(const gcs_allocs *a, size_t i);

/* GCs by what triggered them: GCTriggered events with the same reason
 * (TraceEvent's GCReason name: "AllocSmall", "Induced", ... or the number)
 * and the same frames that are methods (as gcs_allocs_stack's; "?" when
 * none is, "(no stack)" without a stack). Valid until gcs_allocs_free. */
typedef struct gcs_allocs_trigger {
    const char *reason;
    const char *const *frames;
    size_t n_frames;
    uint64_t gcs;
} gcs_allocs_trigger;

/* Most GCs first (then reason and frames). After gcs_allocs_finish. */
size_t gcs_allocs_trigger_count(const gcs_allocs *a);
const gcs_allocs_trigger *gcs_allocs_trigger_at(const gcs_allocs *a, size_t i);

typedef enum gcs_allocs_format {
    GCS_ALLOCS_FORMAT_TABLE = 0,
    GCS_ALLOCS_FORMAT_JSON = 1,
    GCS_ALLOCS_FORMAT_CSV = 2
} gcs_allocs_format;

typedef struct gcs_allocs_report_options {
    gcs_allocs_format format;
    /* Rows of each view: the table shows limit (0: 20), JSON and CSV
     * limit (0: all); the table and JSON say how many were left out. */
    size_t limit;
    /* Table: method and type names in full (else cut at 100 bytes). */
    bool wide;
    /* CSV: the first column of every row (NULL: empty). */
    const char *trace_name;
} gcs_allocs_report_options;

/* Writes the finished views as a table (with what the trace lacked and
 * how to record it), JSON or CSV (docs/allocs.md). Deterministic. opts
 * NULL: defaults. GCS_ERR_IO if writing fails. */
gcs_status gcs_allocs_report_write(const gcs_allocs *a, FILE *out,
                                   const gcs_allocs_report_options *opts, gcs_error *err);

/* The allocating methods of two runs side by side (`allocs --baseline`):
 * every method of either's exclusive list with its bytes and samples in
 * base and in a, and the difference, the largest differences (either
 * way) first. opts as for gcs_allocs_report_write (trace_name: a's;
 * limit: rows). docs/allocs.md, "Against a baseline". */
gcs_status gcs_allocs_diff_write(const gcs_allocs *base, const gcs_allocs *a, FILE *out,
                                 const gcs_allocs_report_options *opts, const char *base_name,
                                 gcs_error *err);

#ifdef __cplusplus
}
#endif

#endif
