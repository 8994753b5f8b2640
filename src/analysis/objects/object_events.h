/*
 * analysis/objects/object_events.h - the few runtime GC event payloads the
 * object analysis needs, decoded through the cursor with bounds checks.
 *
 * Kept apart on purpose: when the shared typed decoders (src/decode) land,
 * this file is what gets replaced. Layouts: docs/gc-events.md §5 (checked
 * against TraceEvent's ClrTraceEventParser): pointers are the event's
 * pointer_size, everything little-endian and packed.
 */
#ifndef GCS_ANALYSIS_OBJECT_EVENTS_H
#define GCS_ANALYSIS_OBJECT_EVENTS_H

#include <stdbool.h>
#include <stdint.h>

#include "base/cursor.h"
#include "gcscope/reader.h"

#define OBJEV_RUNTIME_PROVIDER "Microsoft-Windows-DotNETRuntime"
#define OBJEV_NAME_MAX 512 /* bytes of a type name kept (UTF-8, truncated) */

typedef enum objev_kind {
    OBJEV_OTHER = 0,
    OBJEV_GC_START,        /* id 1 */
    OBJEV_GC_END,          /* id 2 */
    OBJEV_ALLOCATION_TICK, /* id 10 */
    OBJEV_BULK_TYPE,       /* id 15 */
    OBJEV_SAMPLED_ALLOC,   /* id 20 (High) and 32 (Low) */
    OBJEV_SURVIVING,       /* id 21 */
    OBJEV_MOVED,           /* id 22 */
    OBJEV_GENERATION_RANGE,/* id 23 */
    OBJEV_PIN,             /* id 33 */
    OBJEV_ALLOCATION_SAMPLED /* id 303 (.NET 9+ randomized sampling) */
} objev_kind;

/* Which of the above an event is (by provider name and event id). */
objev_kind objev_classify(const gcs_event *ev);

/* GC/Start. has_depth false for the V0 layout (no condemned generation). */
typedef struct objev_gc_start {
    uint32_t count;
    uint32_t depth;
    uint32_t type; /* 0 non-concurrent, 1 background, 2 foreground */
    bool has_depth;
    bool has_type;
} objev_gc_start;
bool objev_decode_gc_start(const gcs_event *ev, objev_gc_start *out);

/* GC/End. */
typedef struct objev_gc_end {
    uint32_t count;
    uint32_t depth;
} objev_gc_end;
bool objev_decode_gc_end(const gcs_event *ev, objev_gc_end *out);

/* GC/AllocationTick V2+ (type), V3+ (address), V4 (object size). */
typedef struct objev_allocation_tick {
    uint32_t kind; /* 0 small, 1 large, 2 pinned */
    uint64_t amount;
    uint64_t type_id;
    char type_name[OBJEV_NAME_MAX];
    bool has_type;
    uint64_t address;
    bool has_address;
    uint64_t object_size;
    bool has_size;
} objev_allocation_tick;
bool objev_decode_allocation_tick(const gcs_event *ev, objev_allocation_tick *out);

/* AllocationSampled (id 303): same facts as a V4 tick, laid out as
 * Kind, ClrInstanceID, TypeID, TypeName, Address, ObjectSize,
 * SampledByteOffset. Fills the allocation tick record (amount = 0). */
bool objev_decode_allocation_sampled(const gcs_event *ev, objev_allocation_tick *out);

/* GCSampledObjectAllocationHigh/Low. */
typedef struct objev_sampled_alloc {
    uint64_t address;
    uint64_t type_id;
    uint32_t object_count;
    uint64_t total_size;
} objev_sampled_alloc;
bool objev_decode_sampled_alloc(const gcs_event *ev, objev_sampled_alloc *out);

/* GC/GenerationRange. */
typedef struct objev_generation_range {
    uint8_t generation;
    uint64_t start;
    uint64_t used_length;
    uint64_t reserved_length;
} objev_generation_range;
bool objev_decode_generation_range(const gcs_event *ev, objev_generation_range *out);

/* GC/PinObjectAtGCTime. */
typedef struct objev_pin {
    uint64_t object;
    uint64_t size;
} objev_pin;
bool objev_decode_pin(const gcs_event *ev, objev_pin *out);

/*
 * GC/Bulk{Moved,Surviving}ObjectRanges: header then elements. count is the
 * number of whole elements present: if the payload holds fewer than its
 * Count says, *short_payload is set and only those present are given.
 */
typedef struct objev_ranges {
    uint32_t index;
    uint32_t declared_count;
    uint32_t count;
    bool short_payload;
    bool moved; /* element layout: (old, new, length) vs (start, length) */
    uint32_t pointer_size;
    gcs_cursor cur; /* positioned at the first element */
} objev_ranges;
bool objev_ranges_begin(const gcs_event *ev, bool moved, objev_ranges *out);
/* Next element; moved ranges fill all three, surviving ones set
 * new_start = old_start. False when none is left. */
bool objev_ranges_next(objev_ranges *it, uint64_t *old_start, uint64_t *new_start,
                       uint64_t *length);

/* Type/BulkType: iterates (type id, name) pairs. */
typedef struct objev_bulk_type {
    uint32_t declared_count;
    uint32_t done;
    bool short_payload; /* ran out of bytes before Count entries */
    gcs_cursor cur;
} objev_bulk_type;
bool objev_bulk_type_begin(const gcs_event *ev, objev_bulk_type *out);
bool objev_bulk_type_next(objev_bulk_type *it, uint64_t *type_id, char *name, size_t name_cap);

#endif
