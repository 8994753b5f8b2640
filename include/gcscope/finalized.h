/*
 * gcscope/finalized.h - the objects the GC handed to the finalizer, by
 * type: PerfView's "Finalized Object Counts" (TraceEvent's
 * GCStats.FinalizedObjects), and the type names TraceEvent leaves out.
 *
 * The runtime writes a FinalizeObject event (GC keyword, verbose) for each
 * object it queues for finalization: a type id and the object. TraceEvent
 * counts them per process by type *name*, the name the last BulkType event
 * before the object gave its type id ("" when none had: the Type keyword,
 * 0x80000, was off, or the runtime wrote the BulkType after the object, as
 * .NET Core 3.1 does for a type's first object). gcscope counts exactly
 * that, and also says which type ids are behind the "" row, named from the
 * runtime's private FinalizeObject event (which carries the name) or from
 * a BulkType that came later.
 *
 *     gcs_finalized *fz = gcs_finalized_new();
 *     // reader options: want = gcs_finalized_wants (or with other wants)
 *     while (gcs_reader_next(r, &ev, &err) == GCS_OK)
 *         gcs_finalized_feed(fz, ev);   // every event, in timestamp order
 *     gcs_finalized_finish(fz);
 *     const gcs_finalized_process *p = gcs_finalized_find(fz, pid);
 *     // p->types[0].name "Finalizable", p->types[0].count 4999, ...
 *     gcs_finalized_free(fz);
 *
 * Memory: a table entry per type id the BulkType and FinalizeObject events
 * name (at most GCS_FINALIZED_MAX_TYPES) and their names (at most
 * GCS_FINALIZED_MAX_NAME_BYTES); past a limit, types are counted without a
 * name and `over_limit` says how often. The private events' names are
 * also kept as they came, to know the next one again (at most as many
 * bytes more; past that each event's name is looked up).
 */
#ifndef GCSCOPE_FINALIZED_H
#define GCSCOPE_FINALIZED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gcscope/reader.h"

/* Named limits on what a trace can make the tracker keep. */
#define GCS_FINALIZED_MAX_TYPES (1u << 20)
#define GCS_FINALIZED_MAX_NAME_BYTES (64u << 20)

typedef struct gcs_finalized gcs_finalized;

/* Where the name of a type id behind TraceEvent's "" row comes from. */
typedef enum gcs_finalized_name_source {
    GCS_FINALIZED_NAME_NONE = 0,     /* nothing in the trace names it */
    GCS_FINALIZED_NAME_PRIVATE = 1,  /* the runtime's private FinalizeObject (TypeName) */
    GCS_FINALIZED_NAME_LATER_BULK_TYPE = 2 /* a BulkType after the object */
} gcs_finalized_name_source;

/* A row of TraceEvent's table: objects of one type name. */
typedef struct gcs_finalized_type {
    const char *name; /* "" for the objects no earlier BulkType named */
    uint64_t count;
} gcs_finalized_type;

/* A type id behind the "" row. */
typedef struct gcs_finalized_unnamed {
    uint64_t type_id;
    uint64_t count;
    const char *name; /* NULL when source is GCS_FINALIZED_NAME_NONE */
    gcs_finalized_name_source source;
} gcs_finalized_unnamed;

/*
 * One process's finalized objects. types: TraceEvent's rows, most objects
 * first, rows of equal count in the order their name first came (PerfView's
 * order). unnamed: the type ids of the "" row, in the same order.
 * private_types: the private provider's FinalizeObject events by their
 * TypeName, in the same order: the same objects when both providers were
 * on, and all a trace says when only the private one was (`gcscope record`
 * turns the runtime provider's GC keyword on at informational level, the
 * private one's at verbose).
 */
typedef struct gcs_finalized_process {
    uint32_t pid;
    uint64_t objects;         /* the runtime provider's FinalizeObject events */
    uint64_t private_objects; /* the private provider's */
    const gcs_finalized_type *types;
    size_t type_count;
    const gcs_finalized_unnamed *unnamed;
    size_t unnamed_count;
    const gcs_finalized_type *private_types;
    size_t private_type_count;
} gcs_finalized_process;

/* What the tracker met (counted, never an error). */
typedef struct gcs_finalized_stats {
    uint64_t finalize_events;    /* public FinalizeObject events counted */
    uint64_t private_events;     /* private FinalizeObject events */
    uint64_t bulk_type_entries;  /* BulkType entries read */
    uint64_t undecodable_events; /* payloads too short for their fields */
    uint64_t over_limit;         /* types or names not kept (the limits above) */
} gcs_finalized_stats;

/* An empty tracker; NULL when out of memory. */
gcs_finalized *gcs_finalized_new(void);

void gcs_finalized_free(gcs_finalized *fz);

/* True for the event types the tracker reads: the runtime's BulkType and
 * FinalizeObject, the private FinalizeObject (a reader's `want`; ctx
 * unused). */
bool gcs_finalized_wants(void *ctx, const gcs_event_type *type);

/* Learns from ev (other events are ignored); events must come in
 * timestamp order (gcs_reader_next). GCS_OK, or GCS_ERR_NOMEM (the tracker
 * stays usable, the event uncounted). */
gcs_status gcs_finalized_feed(gcs_finalized *fz, const gcs_event *ev);

/* Builds the per-process results; feed no more after it. GCS_OK or
 * GCS_ERR_NOMEM. */
gcs_status gcs_finalized_finish(gcs_finalized *fz);

/* After gcs_finalized_finish: the processes with FinalizeObject events
 * (of either provider), in the order they first came, and one of them by
 * id (NULL: none). */
size_t gcs_finalized_process_count(const gcs_finalized *fz);
const gcs_finalized_process *gcs_finalized_process_at(const gcs_finalized *fz, size_t i);
const gcs_finalized_process *gcs_finalized_find(const gcs_finalized *fz, uint32_t pid);

void gcs_finalized_get_stats(const gcs_finalized *fz, gcs_finalized_stats *out);

/* "private FinalizeObject", "later BulkType", "none". */
const char *gcs_finalized_name_source_name(gcs_finalized_name_source s);

#endif
