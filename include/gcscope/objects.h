/*
 * gcscope/objects.h - following objects across garbage collections.
 *
 * Two layers:
 *
 * 1. The tracker (gcs_objtrack_*): a set of object IDs (addresses) with
 *    type, size, allocation time and generation. It applies one GC at a
 *    time: the GC's condemned generation plus its moved ranges (old start,
 *    new start, length) and surviving ranges (start, length), handed over
 *    in any order and in any number of calls. Every tracked object of a
 *    condemned generation that lies in a range is remapped by that range's
 *    delta and promoted; one that lies in no range died and is reported to
 *    the death callback. Objects of older generations are untouched.
 *    Cost per GC: O((n + r) log(n + r)) for n objects and r ranges.
 *
 *      gcs_objtrack *t = gcs_objtrack_new(&opts, &err);
 *      gcs_objtrack_add(t, &obj, &err);           // allocations
 *      gcs_objtrack_begin_gc(t, 7, 0, now, &err); // GC #7 condemns gen 0
 *      gcs_objtrack_add_moved(t, ranges, n, &err); // as many calls as needed
 *      gcs_objtrack_end_gc(t, &err);              // remap, retire, promote
 *
 * 2. The trace analysis (gcs_objects_*): feeds on gcs_event from a reader,
 *    drives a tracker from GC/Start, GC/End, GC/BulkMovedObjectRanges,
 *    GC/BulkSurvivingObjectRanges, GC/GenerationRange, GC/AllocationTick,
 *    GC/SampledObjectAllocation{High,Low}, AllocationSampled, Type/BulkType and
 *    GC/PinObjectAtGCTime, and summarises object lifetimes per type; the
 *    report writes it as a table, JSON or CSV.
 *
 * See docs/objects.md for the contract (overlap rule, generations).
 */
#ifndef GCSCOPE_OBJECTS_H
#define GCSCOPE_OBJECTS_H

#include <stdio.h>

#include "gcscope/core.h"
#include "gcscope/reader.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------ */
/* The tracker                                                         */
/* ------------------------------------------------------------------ */

/* Generations: GCS_GEN0 .. GCS_GEN_POH, GCS_GENERATION_COUNT (core.h). */

/* Object flags. */
#define GCS_OBJ_PINNED 0x01u /* seen pinned (PinObjectAtGCTime) at least once */
/* Bits 0x20..0x80 are the tracker's own: callers leave them clear and
 * ignore them when reading (gcs_objtrack_objects/find show them). */

/* One tracked object: 32 bytes. */
typedef struct gcs_tracked_object {
    uint64_t address;   /* object ID: its current start address */
    int64_t alloc_time; /* caller's clock (gcscope: microseconds since trace start) */
    uint32_t size;      /* bytes; saturates at UINT32_MAX; 0 if unknown */
    uint32_t tag;       /* caller's data, e.g. a type index */
    uint32_t alloc_gc;  /* number of the last GC begun before the allocation */
    uint8_t generation; /* GCS_GEN0..GCS_GEN_POH */
    uint8_t flags;      /* GCS_OBJ_* */
    uint16_t user;      /* more caller's data; the tracker never reads it */
} gcs_tracked_object;

/* A compacting GC's block: [old_start, old_start + length) now begins at
 * new_start. */
typedef struct gcs_moved_range {
    uint64_t old_start;
    uint64_t new_start;
    uint64_t length;
} gcs_moved_range;

/* A non-compacting GC's block of survivors that stayed in place. */
typedef struct gcs_surviving_range {
    uint64_t start;
    uint64_t length;
} gcs_surviving_range;

/* Where a generation lies (GC/GenerationRange): objects live in
 * [start, start + used_length). With regions a generation has many. */
typedef struct gcs_generation_range {
    uint8_t generation;
    uint64_t start;
    uint64_t used_length;
    uint64_t reserved_length;
} gcs_generation_range;

/* How an object left the tracker. */
typedef enum gcs_death_kind {
    GCS_DEATH_GC = 0,        /* condemned and covered by no range of that GC */
    GCS_DEATH_UNSEEN = 1,    /* a later allocation took its address: it died in
                              * a GC whose ranges were not seen */
    GCS_DEATH_COLLISION = 2, /* a moved object landed on its address (bad data) */
    GCS_DEATH_INCOMPLETE = 3 /* not covered in a GC whose ranges were cut by a limit */
} gcs_death_kind;

/* Called once per retired object, in ascending address order within one
 * GC. gc_number/gc_time are those of the GC being applied (for
 * GCS_DEATH_UNSEEN: of the last GC begun). obj->generation is the
 * generation the object had when it died. */
typedef void (*gcs_death_fn)(void *ctx, const gcs_tracked_object *obj, gcs_death_kind kind,
                             uint32_t gc_number, int gc_condemned, int64_t gc_time);

typedef struct gcs_objtrack_options {
    gcs_death_fn on_death; /* may be NULL */
    void *ctx;
    size_t max_objects;       /* 0: default GCS_OBJTRACK_DEFAULT_MAX_OBJECTS */
    size_t max_ranges_per_gc; /* 0: default GCS_OBJTRACK_DEFAULT_MAX_RANGES */
} gcs_objtrack_options;

#define GCS_OBJTRACK_DEFAULT_MAX_OBJECTS ((size_t)1 << 25) /* 1 GiB of records */
#define GCS_OBJTRACK_DEFAULT_MAX_RANGES ((size_t)1 << 24)  /* 512 MiB of ranges */

/* Survivable problems and volumes, counted. */
typedef struct gcs_objtrack_stats {
    uint64_t objects_added;       /* gcs_objtrack_add calls accepted */
    uint64_t objects_tracked;     /* currently tracked */
    uint64_t duplicate_adds;      /* same address added twice between two GCs: kept first */
    uint64_t objects_over_limit;  /* refused: max_objects reached */
    uint64_t deaths[4];           /* by gcs_death_kind */
    uint64_t objects_moved;       /* remapped to a different address */
    uint64_t objects_survived;    /* covered by a range (moved or not) */
    uint64_t gcs_applied;         /* end_gc calls */
    uint64_t gcs_aborted;         /* abort_gc calls, or begin_gc while one was open */
    uint64_t moved_ranges;        /* ranges received */
    uint64_t surviving_ranges;
    uint64_t empty_ranges;        /* length 0: ignored */
    uint64_t wrapping_ranges;     /* start + length past 2^64: clipped */
    uint64_t overlapping_ranges;  /* overlapped an earlier range: clipped (see docs) */
    uint64_t ranges_covering_nothing; /* covered no tracked condemned object */
    uint64_t ranges_outside_gc;   /* ranges given with no GC open: ignored */
    uint64_t ranges_over_limit;   /* dropped: max_ranges_per_gc reached */
    uint64_t uncondemned_in_range; /* an older-generation object inside a range: untouched */
    uint64_t address_collisions;  /* two objects on one address after a GC */
    uint64_t resorts;             /* GCs after which moves broke address order */
    uint64_t generation_layouts;  /* gcs_objtrack_set_generation_ranges calls */
    uint64_t generation_overlaps; /* generation ranges overlapping an earlier one */
    uint64_t objects_outside_generation_ranges; /* kept their rule-based generation */
    uint64_t generation_changes_by_layout; /* objects whose generation a layout changed */
} gcs_objtrack_stats;

typedef struct gcs_objtrack gcs_objtrack;

/* Creates an empty tracker. opts may be NULL. NULL on failure. */
gcs_objtrack *gcs_objtrack_new(const gcs_objtrack_options *opts, gcs_error *err);

/* Frees the tracker (no death callbacks). NULL is allowed. */
void gcs_objtrack_free(gcs_objtrack *t);

/* Starts tracking an object. Between two GCs an address holds one object:
 * a second add at the same address is a duplicate (the first is kept); an
 * add at the address of an object that survived an earlier GC retires that
 * object as GCS_DEATH_UNSEEN. GCS_ERR_LIMIT past max_objects (counted). */
gcs_status gcs_objtrack_add(gcs_objtrack *t, const gcs_tracked_object *obj, gcs_error *err);

/* Opens GC number gc_number that condemns generations 0..condemned (a gen-2
 * GC also condemns LOH and POH). A GC still open is aborted first. */
gcs_status gcs_objtrack_begin_gc(gcs_objtrack *t, uint32_t gc_number, int condemned,
                                 int64_t time, gcs_error *err);

/* Opens the sweep of background GC gc_number, for the surviving ranges
 * the runtime reports at its end (every object of the heap still there
 * then, in plugs). Applied by gcs_objtrack_end_gc, it condemns gen 2, LOH
 * and POH objects only: one outside every range died in that GC (death
 * callback: gc_number, condemned 2). It promotes nothing and leaves
 * younger objects, and every object's newness (duplicates), as they were;
 * objects added while it is open are spared. A GC still open is aborted
 * first. */
gcs_status gcs_objtrack_begin_background_gc(gcs_objtrack *t, uint32_t gc_number, int64_t time,
                                            gcs_error *err);

/* Adds ranges of the open GC; any order, any number of calls. Without an
 * open GC the ranges are counted (ranges_outside_gc) and ignored. */
gcs_status gcs_objtrack_add_moved(gcs_objtrack *t, const gcs_moved_range *ranges, size_t n,
                                  gcs_error *err);
gcs_status gcs_objtrack_add_surviving(gcs_objtrack *t, const gcs_surviving_range *ranges,
                                      size_t n, gcs_error *err);

/* With no GC open (gcs_objtrack_in_gc false; a bug otherwise): counts n
 * moved (moved true) or surviving ranges as the two calls above count
 * them, for a caller that knows how many there are without reading them
 * (ranges that come when no GC, foreground or background, is open). */
void gcs_objtrack_count_ranges_outside_gc(gcs_objtrack *t, bool moved, size_t n);

/* Applies the open GC: remaps, retires the dead (callback), promotes
 * survivors (gen0 -> gen1, gen1 -> gen2 when condemned). A GC that got
 * no range at all changes nothing (the runtime did not report it: the
 * movement keyword off). GCS_ERR_ARG if no GC is open. */
gcs_status gcs_objtrack_end_gc(gcs_objtrack *t, gcs_error *err);

/* Drops the open GC's ranges without applying them. */
void gcs_objtrack_abort_gc(gcs_objtrack *t);

/* True while a GC is open; *ranges gets the ranges received so far. */
bool gcs_objtrack_in_gc(const gcs_objtrack *t, size_t *ranges);

/* The heap layout now: reassigns the generation of every tracked object
 * whose address lies in one of these ranges (authoritative over the
 * promotion rule). Objects in none keep theirs (counted). Call it with
 * addresses valid for the objects as currently tracked, i.e. not between
 * begin_gc and end_gc with post-GC ranges. */
gcs_status gcs_objtrack_set_generation_ranges(gcs_objtrack *t, const gcs_generation_range *ranges,
                                              size_t n, gcs_error *err);

/* The object tracked at exactly this address, or NULL. The pointer is
 * valid until the next call that changes the tracker; the caller may
 * change flags, tag and user through it. */
gcs_tracked_object *gcs_objtrack_find(gcs_objtrack *t, uint64_t address);

/* All tracked objects in ascending address order; valid until the next
 * call that changes the tracker. */
const gcs_tracked_object *gcs_objtrack_objects(gcs_objtrack *t, size_t *count);

/* All tracked objects in no set order, for a pass whose result does not
 * depend on it: before the first GC with ranges (a trace without movement
 * events) they are not sorted, and this saves their sort. Valid until the
 * next call that changes the tracker. */
const gcs_tracked_object *gcs_objtrack_objects_any_order(gcs_objtrack *t, size_t *count);

/* Counters so far. */
const gcs_objtrack_stats *gcs_objtrack_get_stats(const gcs_objtrack *t);

/* ------------------------------------------------------------------ */
/* The trace analysis                                                  */
/* ------------------------------------------------------------------ */

/* Lifetime percentiles (nearest rank) over the objects of a type that died
 * in a GC. */
typedef struct gcs_lifetime_summary {
    uint64_t count;
    uint32_t gcs_p50, gcs_p90, gcs_p99, gcs_max; /* GCs from allocation to death */
    double ms_p50, ms_p90, ms_p99, ms_max;       /* ms from allocation to death */
} gcs_lifetime_summary;

/*
 * What happened to the sampled objects of one type.
 *
 * Byte figures come in two kinds (docs/objects.md, "Bytes: sampled and
 * estimated"):
 *  - sampled bytes: the sizes of the sampled objects themselves. An event
 *    may not give the size (AllocationTick before V4): such a sample counts
 *    in the *_without_size field beside the sum, and the sum covers only
 *    the samples with a size. All samples without one: the sum is unknown
 *    (gcs_objects_bytes_known), never 0.
 *  - estimated bytes: what the AllocationTick events stand for, as
 *    PerfView's "GC Heap Alloc Ignore Free (Coarse Sampling)" view counts
 *    them: each tick stands for its AllocationAmount (the bytes allocated
 *    since the previous tick of its kind). Other allocation events are not
 *    part of this estimate (PerfView's coarse views ignore them too). Known
 *    when the trace has AllocationTick events (summary allocation_ticks;
 *    for survivors: ticks_with_address), else unknown.
 */
typedef struct gcs_object_type_stats {
    const char *name;      /* type name ("" if unknown: then type_id says which) */
    uint64_t type_id;      /* MethodTable pointer, 0 if unknown (report: null, empty) */
    uint64_t samples;      /* objects tracked */
    uint64_t sample_bytes; /* sizes of the samples that had one, summed */
    uint64_t samples_without_size; /* samples whose event gave no size */
    uint64_t allocation_ticks;     /* AllocationTick events of the type, tracked or not */
    uint64_t estimated_bytes;      /* their AllocationAmounts summed */
    uint64_t died_in_gc[3];      /* died in a GC condemning gen 0, 1, 2 */
    uint64_t died_unseen;        /* died in a GC not reported (e.g. background) */
    uint64_t died_gen2;          /* died while in gen2/LOH/POH ("gen2 object deaths") */
    uint64_t died_gen2_bytes;    /* sampled bytes of those */
    uint64_t died_gen2_without_size;
    uint32_t first_death_gc;     /* numbers of the first and last GC in which one */
    uint32_t last_death_gc;      /* died (0: none died in a GC) */
    uint64_t alive_at_end;       /* still tracked when the trace ended */
    uint64_t alive_at_end_bytes; /* sampled bytes of those */
    uint64_t alive_at_end_without_size;
    uint64_t alive_at_end_estimated_bytes; /* AllocationAmounts of the survivors
                                            * sampled by AllocationTick */
    uint64_t alive_at_end_gen[GCS_GENERATION_COUNT];
    uint64_t pinned;             /* seen pinned at least once */
    gcs_lifetime_summary lifetime;
} gcs_object_type_stats;

/* How much of a byte sum is known, from the number of items it is over
 * and how many of them gave no bytes. */
typedef enum gcs_bytes_known {
    GCS_BYTES_KNOWN = 0,   /* every item gave its bytes (or there is none) */
    GCS_BYTES_PARTIAL = 1, /* some did: the sum is a lower bound */
    GCS_BYTES_UNKNOWN = 2  /* none did: the sum means nothing */
} gcs_bytes_known;

/* E.g. gcs_objects_bytes_known(s->samples, s->samples_without_size) for
 * s->sample_bytes. */
gcs_bytes_known gcs_objects_bytes_known(uint64_t items, uint64_t items_without_bytes);

/* Whole-trace facts and problems. */
typedef struct gcs_objects_summary {
    uint64_t events_seen;          /* events fed (all, or those of gcs_objects_wants) */
    uint64_t events_used;          /* events this analysis understood and used */
    uint64_t allocation_ticks;     /* GC/AllocationTick events */
    uint64_t ticks_without_address; /* V0-V2: no address, cannot be tracked */
    uint64_t ticks_with_address;   /* became samples (survivors' estimates known) */
    uint64_t sampled_allocations;  /* GCSampledObjectAllocation High/Low */
    uint64_t allocations_sampled;  /* AllocationSampled (id 303, .NET 9+) */
    uint64_t bulk_type_entries;
    uint64_t gcs;                  /* GC/Start events */
    uint64_t gcs_with_ranges;      /* GCs that reported moved/surviving ranges */
    uint64_t gcs_without_ranges;   /* foreground GCs with no range (nothing decided) */
    uint64_t background_gcs;       /* GC/Start with Type 1 */
    uint64_t background_gcs_with_ranges; /* background GCs whose surviving ranges (reported
                                      * at their end) were applied: gen-2, LOH and POH
                                      * deaths */
    uint64_t gcs_without_generation_ranges; /* GCs with ranges but no GenerationRange */
    uint64_t gcs_without_depth;    /* GC/Start V0 or Depth > 2: not tracked */
    uint64_t gc_end_without_start;
    uint64_t nested_gc_starts;     /* GC/Start while a foreground GC was open */
    uint64_t range_events;         /* Bulk{Moved,Surviving}ObjectRanges */
    uint64_t range_events_outside_gc;
    uint64_t range_index_gaps;     /* Index not following the previous one */
    uint64_t generation_range_events;
    uint64_t pin_events;
    uint64_t pins_of_tracked;
    uint64_t short_payloads;       /* payload shorter than its layout: skipped */
    uint64_t lifetimes_over_limit; /* deaths not kept for percentiles */
    uint64_t samples_without_size; /* the types' samples_without_size summed */
    uint64_t bad_allocation_amounts; /* AllocationTick amounts negative as TraceEvent reads
                                      * them; from the first on, every amount is clamped
                                      * (90 KB..110 KB small, ..2 MB large/pinned), as
                                      * PerfView does */
    uint64_t allocation_amounts_clamped; /* amounts changed by that clamp */
    uint64_t byte_sums_saturated;  /* estimated byte sums stopped at 2^64-1 (each once) */
    uint64_t types_without_name;   /* types with an id the trace never named (no
                                    * BulkType; NativeAOT writes "NULL" as the
                                    * name): before the symbols named them */
    uint64_t types_named_from_symbols; /* of those, named by gcs_objects_set_symbols */
    uint64_t null_type_names;      /* allocation events whose TypeName is the text NULL
                                    * (a NativeAOT runtime's): no name */
    /* gcs_objects_set_time_range: allocation events (AllocationTick,
     * AllocationSampled, SampledObjectAllocation) outside [from_ms, to_ms)
     * are counted here and nothing else; GCs are all followed. */
    bool has_from, has_to;
    double from_ms, to_ms;
    uint64_t allocations_outside_range;
    bool movement_seen;            /* any range event: deaths are known */
    double trace_end_ms;           /* the latest msec of the events fed */
    gcs_objtrack_stats tracker;
} gcs_objects_summary;

typedef struct gcs_objects gcs_objects;

/* Where the load address of the image that the symbols describe came from. */
typedef enum gcs_image_base_from {
    GCS_IMAGE_BASE_UNKNOWN = 0,
    GCS_IMAGE_BASE_FROM_MODULE_EVENT = 1, /* ModuleLoad / rundown ModuleDCStart/DCStop */
    GCS_IMAGE_BASE_FROM_TYPE_IDS = 2      /* inferred: the base that puts the type
                                           * ids on type symbols */
} gcs_image_base_from;

/* The native image of the trace (a module event without an assembly: a
 * NativeAOT executable) and what the symbols made of it. */
typedef struct gcs_objects_symbols_info {
    bool used;                 /* gcs_objects_set_symbols was given symbols */
    uint64_t image_base;       /* 0: unknown */
    gcs_image_base_from base_from;
    char image_path[256];      /* the module event's ModuleNativePath, or "" */
    char trace_build_id[132];  /* its NativeBuildID (ModuleLoad V3+), or "" */
    char file_build_id[132];   /* the symbols file's GNU build ID, or "" */
    bool build_id_mismatch;    /* both known and different: no name was taken */
} gcs_objects_symbols_info;

/* Creates an analysis. NULL on failure. */
gcs_objects *gcs_objects_new(gcs_error *err);

void gcs_objects_free(gcs_objects *a);

/* Counts only the objects allocated in [from_ms, to_ms) of the trace (ms
 * as gcs_event.msec; a bound applies when its has_ flag is set): the
 * allocation events outside are left out (summary
 * allocations_outside_range); every GC is still followed, so the objects
 * kept are tracked to their death or the end. Call before the first feed. */
void gcs_objects_set_time_range(gcs_objects *a, bool has_from, double from_ms, bool has_to,
                                double to_ms);

/*
 * Names the types the trace leaves without a name (a NativeAOT
 * application's) from its executable's symbols (gcscope/symbols.h), at
 * gcs_objects_finish: name = the type symbol at type id - the image's load
 * address (from the module events; inferred from the type ids when there
 * are none). Symbols of another build (their GNU build ID is not the
 * trace's NativeBuildID) name nothing. symbols must outlive the analysis'
 * finish. Call before gcs_objects_finish.
 */
struct gcs_symbols;
void gcs_objects_set_symbols(gcs_objects *a, const struct gcs_symbols *symbols);

/* After gcs_objects_finish: the native image seen and the symbols' use. */
const gcs_objects_symbols_info *gcs_objects_get_symbols_info(const gcs_objects *a);

/*
 * The event types gcs_objects_feed uses: GC start and end, allocation
 * events, BulkType, moved and surviving ranges, GenerationRange,
 * PinObjectAtGCTime and the module events (load addresses). Pass it as gcs_reader_options.want (ctx unused): the
 * reader then only counts the rest (in a trace of handle events, most of
 * it) instead of sorting and delivering them.
 */
bool gcs_objects_wants(void *ctx, const gcs_event_type *type);

/* Feeds one event (in timestamp order). Unknown or malformed events are
 * counted, never fatal; < 0 only for out-of-memory. */
gcs_status gcs_objects_feed(gcs_objects *a, const gcs_event *ev, gcs_error *err);

/*
 * The events the analysis reads from their first bytes only, in time
 * order: GenerationRange (with regions, .NET 7+, hundreds a GC: most of
 * the events an objects analysis reads). Pass it as
 * gcs_reader_options.tap, with gcs_objects_tap as on_tap (tap_ctx the
 * analysis): the reader hands them over apart, for a fraction of a
 * delivered event's cost, in the order gcs_reader_next would have had,
 * and the analysis comes out the same. Only RangeReservedLength, which
 * the tracker does not read, ends past the head with 8-byte pointers: 0
 * in the ranges then.
 */
bool gcs_objects_taps(void *ctx, const gcs_event_type *type);

/* Feeds a tapped event (options.on_tap; ctx is the gcs_objects). A
 * failure (out of memory) is returned by the next gcs_objects_feed, by
 * gcs_objects_finish and by gcs_objects_status. */
void gcs_objects_tap(void *ctx, const gcs_tap_event *ev);

/* GCS_OK, or why a tapped event failed (out of memory). */
gcs_status gcs_objects_status(const gcs_objects *a);

/* Ends the trace: closes an open GC (without applying it), counts what is
 * still alive and builds the per-type table. Call once, before the
 * queries below. */
gcs_status gcs_objects_finish(gcs_objects *a, gcs_error *err);

/* Types with at least one sample or allocation event, ordered by sample
 * bytes (desc), then estimated bytes (desc), then samples (desc), then
 * name, then type id. NULL past the end. */
size_t gcs_objects_type_count(const gcs_objects *a);
const gcs_object_type_stats *gcs_objects_type(const gcs_objects *a, size_t index);

/* Whole-trace counters. */
const gcs_objects_summary *gcs_objects_get_summary(const gcs_objects *a);

/* Output formats of the report. */
typedef enum gcs_objects_format {
    GCS_OBJECTS_TABLE = 0,
    GCS_OBJECTS_JSON = 1,
    GCS_OBJECTS_CSV = 2
} gcs_objects_format;

/* How the report is written. Zeroed: the default table. */
typedef struct gcs_objects_report_options {
    gcs_objects_format format;
    /* Table: every column and type names in full (as wide as the longest
     * name). Without it the table fits 160 columns: the columns read first,
     * long type names cut in the middle ("Start…End"). JSON/CSV always hold
     * everything. */
    bool wide;
    /* CSV: the first column, `trace`, of every row, so the CSV of several
     * traces can be concatenated. NULL: the cells are empty. */
    const char *trace_name;
    /* > 0: at most limit rows in each per-type list (table, JSON; CSV
     * rows), the first in the list's order; the table and JSON say so. */
    size_t limit;
} gcs_objects_report_options;

/* Writes the finished analysis: per-type table, survivors at end of trace
 * by type, gen2 deaths by type, and the problem counters. Deterministic.
 * opts NULL: defaults. GCS_ERR_IO if writing fails. */
gcs_status gcs_objects_report_write(const gcs_objects *a, FILE *out,
                                    const gcs_objects_report_options *opts, gcs_error *err);

/* gcs_objects_report_write with only the format set. */
gcs_status gcs_objects_report(const gcs_objects *a, FILE *out, gcs_objects_format format,
                              gcs_error *err);

#ifdef __cplusplus
}
#endif
#endif
