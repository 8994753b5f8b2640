/*
 * decode/gc_events.h - typed records for every GC event of the .NET runtime
 * (public, private and rundown providers), in every version.
 *
 *   gcs_gc_kind k = gcs_gc_classify(ev->type);      // once per event type
 *   gcs_gc_record rec;
 *   gcs_status st = gcs_gc_decode(ev, k, &rec, &err);
 *
 * Layouts: docs/gc-events.md of the shared study, checked against the
 * runtime manifest (ClrEtwAll.man) and TraceEvent's parsers. Rules:
 *  - the version comes from the event type; a newer version than known is
 *    decoded with the newest known layout (the rest is ignored);
 *  - a payload shorter than its version's layout is GCS_ERR_TRUNCATED
 *    (the caller counts it), never a crash; a longer one is decoded as a
 *    prefix;
 *  - only base/cursor.h touches payload bytes. Strings and arrays stay in
 *    the payload: records hold a pointer and a count, read through the
 *    accessors below (no allocation). A record is valid as long as the
 *    event's payload is (until the next gcs_reader_next).
 */
#ifndef GCS_DECODE_GC_EVENTS_H
#define GCS_DECODE_GC_EVENTS_H

#include <stdbool.h>
#include <stdint.h>

#include "base/cursor.h"
#include "gcscope/core.h"
#include "gcscope/reader.h"

/* What a GC-related event is. GCS_GCK_NONE: not a GC event. */
typedef enum gcs_gc_kind {
    GCS_GCK_NONE = 0,
    /* Microsoft-Windows-DotNETRuntime */
    GCS_GCK_START,                       /* 1 */
    GCS_GCK_END,                         /* 2 */
    GCS_GCK_RESTART_EE_END,              /* 3 */
    GCS_GCK_HEAP_STATS,                  /* 4 */
    GCS_GCK_CREATE_SEGMENT,              /* 5 */
    GCS_GCK_FREE_SEGMENT,                /* 6 */
    GCS_GCK_RESTART_EE_BEGIN,            /* 7 */
    GCS_GCK_SUSPEND_EE_END,              /* 8 */
    GCS_GCK_SUSPEND_EE_BEGIN,            /* 9 */
    GCS_GCK_ALLOCATION_TICK,             /* 10 */
    GCS_GCK_CREATE_CONCURRENT_THREAD,    /* 11 */
    GCS_GCK_TERMINATE_CONCURRENT_THREAD, /* 12 */
    GCS_GCK_FINALIZERS_END,              /* 13 */
    GCS_GCK_FINALIZERS_BEGIN,            /* 14 */
    GCS_GCK_BULK_ROOT_EDGE,              /* 16 */
    GCS_GCK_BULK_ROOT_CWT_EDGE,          /* 17 */
    GCS_GCK_BULK_NODE,                   /* 18 */
    GCS_GCK_BULK_EDGE,                   /* 19 */
    GCS_GCK_SAMPLED_OBJECT_ALLOCATION,   /* 20 (high), 32 (low) */
    GCS_GCK_BULK_SURVIVING_OBJECT_RANGES,/* 21 */
    GCS_GCK_BULK_MOVED_OBJECT_RANGES,    /* 22 */
    GCS_GCK_GENERATION_RANGE,            /* 23 */
    GCS_GCK_MARK,                        /* 25-28; private 7-10 (PrvGCMark*) */
    GCS_GCK_FINALIZE_OBJECT,             /* 29 */
    GCS_GCK_SET_GC_HANDLE,               /* 30; private 194 */
    GCS_GCK_DESTROY_GC_HANDLE,           /* 31; private 195 */
    GCS_GCK_PIN_OBJECT_AT_GC_TIME,       /* 33 */
    GCS_GCK_TRIGGERED,                   /* 35 */
    GCS_GCK_BULK_ROOT_CCW,               /* 36 */
    GCS_GCK_BULK_RCW,                    /* 37 */
    GCS_GCK_BULK_ROOT_STATIC_VAR,        /* 38 */
    GCS_GCK_RUNTIME_INFORMATION,         /* 187 (runtime and rundown) */
    GCS_GCK_INCREASE_MEMORY_PRESSURE,    /* 200 */
    GCS_GCK_DECREASE_MEMORY_PRESSURE,    /* 201 */
    GCS_GCK_MARK_WITH_TYPE,              /* 202 */
    GCS_GCK_JOIN,                        /* 203; private 6 */
    GCS_GCK_PER_HEAP_HISTORY,            /* 204 V3; private 4 (legacy raw) */
    GCS_GCK_GLOBAL_HEAP_HISTORY,         /* 205 V2-V4; private 5 V0-V1 */
    GCS_GCK_GEN_AWARE_BEGIN,             /* 206 */
    GCS_GCK_GEN_AWARE_END,               /* 207 */
    GCS_GCK_LOH_COMPACT,                 /* 208 */
    GCS_GCK_FIT_BUCKET_INFO,             /* 209 */
    /* Microsoft-Windows-DotNETRuntimePrivate */
    GCS_GCK_DECISION,                    /* 1 */
    GCS_GCK_SETTINGS,                    /* 2 */
    GCS_GCK_OPTIMIZED,                   /* 3 */
    GCS_GCK_BGC_BEGIN,                   /* 11 */
    GCS_GCK_BGC_1ST_NONCON_END,          /* 12 */
    GCS_GCK_BGC_1ST_CON_END,             /* 13 */
    GCS_GCK_BGC_2ND_NONCON_BEGIN,        /* 14 */
    GCS_GCK_BGC_2ND_NONCON_END,          /* 15 */
    GCS_GCK_BGC_2ND_CON_BEGIN,           /* 16 */
    GCS_GCK_BGC_2ND_CON_END,             /* 17 */
    GCS_GCK_BGC_PLAN_END,                /* 18 */
    GCS_GCK_BGC_SWEEP_END,               /* 19 */
    GCS_GCK_BGC_DRAIN_MARK,              /* 20 */
    GCS_GCK_BGC_REVISIT,                 /* 21 */
    GCS_GCK_BGC_OVERFLOW,                /* 22 */
    GCS_GCK_BGC_ALLOC_WAIT_BEGIN,        /* 23 */
    GCS_GCK_BGC_ALLOC_WAIT_END,          /* 24 */
    GCS_GCK_FULL_NOTIFY,                 /* 25 */
    GCS_GCK_BGC_1ST_SWEEP_END,           /* 26 */
    GCS_GCK_PIN_PLUG_AT_GC_TIME,         /* 199 */
    /* Microsoft-Windows-DotNETRuntimeRundown */
    GCS_GCK_SETTINGS_RUNDOWN,            /* 10 */
    /* Microsoft-Windows-DotNETRuntime, added after the rest (values above
     * stay stable): type names and .NET 9+ randomized allocation sampling. */
    GCS_GCK_BULK_TYPE,                   /* 15 (Type/BulkType) */
    GCS_GCK_ALLOCATION_SAMPLED,          /* 303 */
    /* A module's load address and files (runtime ModuleLoad 152 and
     * ModuleUnload 153, rundown ModuleDCStart 153 and ModuleDCStop 154):
     * not GC events, but what names a NativeAOT application's types
     * (include/gcscope/symbols.h). */
    GCS_GCK_MODULE,
    GCS_GCK_COUNT
} gcs_gc_kind;

/* Stable name of a kind ("GCStart", "BGC1stNonConEnd", ...). */
const char *gcs_gc_kind_name(gcs_gc_kind kind);

/*
 * Classifies an event type by (provider name, event id). Costs a few string
 * compares: callers cache the answer per gcs_event_type pointer
 * (see gcs_gc_kind_cache).
 */
gcs_gc_kind gcs_gc_classify(const gcs_event_type *type);

/* A small pointer-keyed cache of classifications (no allocation). */
#define GCS_GC_KIND_CACHE_SLOTS 1024
typedef struct gcs_gc_kind_cache {
    const gcs_event_type *keys[GCS_GC_KIND_CACHE_SLOTS];
    uint8_t kinds[GCS_GC_KIND_CACHE_SLOTS];
} gcs_gc_kind_cache;

void gcs_gc_kind_cache_init(gcs_gc_kind_cache *c);
/* Classification of type, computed once and remembered (a full cache just
 * recomputes). */
gcs_gc_kind gcs_gc_kind_cached(gcs_gc_kind_cache *c, const gcs_event_type *type);

/* A UTF-16LE string inside a payload (units before the terminator). */
typedef struct gcs_gc_utf16 {
    const uint8_t *data;
    uint32_t units;
} gcs_gc_utf16;

/* Converts to UTF-8 in out (truncated, NUL-terminated); returns out. */
const char *gcs_gc_utf16_to_utf8(gcs_gc_utf16 s, char *out, size_t out_cap);

/*
 * An array of fixed-size elements inside a payload. Read elements with the
 * accessor of the record kind (gcs_gc_moved_range_at, ...): they go through
 * the cursor; no copy is made.
 */
typedef struct gcs_gc_array {
    const uint8_t *data;
    uint32_t count;
    uint32_t stride;       /* bytes per element */
    uint32_t pointer_size; /* 4 or 8 */
} gcs_gc_array;

/* Generation data of one heap (GCPerHeapHistory), the 10 values as logged
 * by version >= 3; legacy V0/V2 are mapped to the same names where they
 * exist (absent ones are 0 and flagged). */
typedef struct gcs_gc_gen_data {
    uint64_t size_before, free_list_space_before, free_obj_space_before;
    uint64_t size_after, free_list_space_after, free_obj_space_after;
    uint64_t in, pinned_surv, npinned_surv, new_allocation;
    /* Legacy only (V0: out/surv_rate logged directly). */
    uint64_t out_legacy, surv_rate_legacy;
} gcs_gc_gen_data;

typedef struct gcs_gc_record {
    gcs_gc_kind kind;
    uint32_t version;          /* as the event type says */
    uint16_t clr_instance_id;
    bool has_clr_instance_id;  /* the layout carried one */
    uint32_t payload_size;
    uint32_t pointer_size;     /* of the emitting process: 4 or 8 */
    union {
        struct { uint32_t count, depth, reason, type; uint64_t client_sequence_number;
                 bool has_depth_type; } start;
        struct { uint32_t count, depth; } end;
        struct {
            uint64_t generation_size[5];      /* 0,1,2,LOH,POH (POH: V2+) */
            uint64_t total_promoted_size[5];
            uint64_t finalization_promoted_size, finalization_promoted_count;
            uint32_t pinned_object_count, sink_block_count, gc_handle_count;
            bool has_poh;
        } heap_stats;
        struct { uint64_t address, size; uint32_t type; } create_segment;
        struct { uint64_t address; } free_segment;
        struct { uint32_t reason, count; } suspend_ee_begin;
        struct {
            uint32_t allocation_amount;  /* 32-bit, may be truncated */
            uint32_t allocation_kind;    /* 0 small, 1 large, 2 pinned */
            uint64_t allocation_amount64;/* V2+ */
            uint64_t type_id;            /* V2+ */
            gcs_gc_utf16 type_name;      /* V2+ */
            uint32_t heap_index;         /* V2+ */
            uint64_t address;            /* V3+ */
            uint64_t object_size;        /* V4+ */
        } allocation_tick;
        struct { uint32_t count; } finalizers_end;
        /* Bulk events 16-19, 21, 22: index, count, elements. When Count
         * promises more elements than the payload holds, decoding answers
         * GCS_ERR_TRUNCATED with values_truncated set and values holding
         * the whole elements present (declared_count keeps Count), so a
         * caller may still use them. */
        struct { uint32_t index, declared_count; gcs_gc_array values;
                 bool values_truncated; } bulk;
        struct { uint64_t address, type_id; uint32_t object_count_for_type_sample;
                 uint64_t total_size_for_type_sample; } sampled_allocation;
        struct { uint8_t generation; uint64_t range_start, range_used_length,
                 range_reserved_length; } generation_range;
        /* Public GCMark* (25-28) and private PrvGCMark* (7-10). root_kind:
         * 0 stack, 1 finalize queue, 2 handles, 3 older/cards. */
        struct { uint32_t heap_num; uint32_t root_kind; } mark;
        /* Public FinalizeObject (29) and private PrvFinalizeObject (192);
         * type_name only in the private event (units 0 in the public). */
        struct { uint64_t type_id, object_id; gcs_gc_utf16 type_name; } finalize_object;
        struct { uint64_t handle_id, object_id; uint32_t kind, generation;
                 uint64_t app_domain_id; } set_gc_handle;
        struct { uint64_t handle_id; } destroy_gc_handle;
        struct { uint64_t handle_id, object_id, object_size; gcs_gc_utf16 type_name; } pin_object;
        struct { uint32_t reason; } triggered;
        struct { gcs_gc_array values; } bulk_ccw_rcw;  /* 36: 44-byte, 37: 40-byte elements */
        struct { uint32_t count; uint64_t app_domain_id; const uint8_t *values;
                 uint32_t values_size; } bulk_static_var;
        struct {
            uint16_t sku, bcl_major, bcl_minor, bcl_build, bcl_qfe;
            uint16_t vm_major, vm_minor, vm_build, vm_qfe;
            uint32_t startup_flags; uint8_t startup_mode;
            gcs_gc_utf16 command_line;
        } runtime_information;
        struct { uint64_t bytes; } memory_pressure;
        struct {
            uint64_t module_id;        /* the image's load address */
            uint64_t assembly_id;      /* 0: no managed assembly (NativeAOT's image) */
            uint32_t flags;            /* ModuleFlagsMap: 0x2 Native */
            gcs_gc_utf16 il_path, native_path;
            gcs_gc_utf16 native_build_id; /* V3+: the GNU build ID as hex */
        } module;
        struct { uint32_t heap_num, type; uint64_t bytes; } mark_with_type;
        struct { uint32_t heap, join_time, join_type; int32_t join_id; bool has_join_id; } join;
        struct {
            uint64_t free_list_allocated, free_list_rejected, end_of_seg_allocated,
                condemned_allocated, pinned_allocated, pinned_allocated_advance;
            uint32_t running_free_list_efficiency;
            uint32_t condemn_reasons0, condemn_reasons1;
            uint32_t compact_mechanisms, expand_mechanisms, heap_index;
            uint64_t extra_gen0_commit;
            uint32_t memory_pressure;
            uint32_t gen_count;           /* generations that follow */
            const uint8_t *gen_data;      /* gen_count * 10 pointers (V3), or legacy block */
            uint32_t layout;              /* 3: V3; 2: legacy 2.x; 0: legacy 0.x */
            bool has_allocated_info, has_condemn_reasons1, has_memory_pressure;
        } per_heap_history;
        struct {
            uint64_t final_youngest_desired;
            int32_t num_heaps;
            uint32_t condemned_generation, gen0_reduction_count, reason, global_mechanisms;
            int32_t pause_mode; uint32_t memory_pressure;      /* V2+ */
            uint32_t condemn_reasons0, condemn_reasons1;       /* V3+ */
            uint32_t time_count; const uint8_t *times;         /* V4+ (u32 each) */
            bool has_pause_mode, has_condemn_reasons;
        } global_heap_history;
        struct { uint32_t count; } gen_aware;
        struct { gcs_gc_array values; } loh_compact;   /* elements: see accessor */
        struct { uint16_t bucket_kind; uint64_t total_size; gcs_gc_array values; } fit_bucket_info;
        struct { bool do_compact; } decision;
        struct { uint64_t segment_size, large_object_segment_size; bool server_gc; } settings;
        struct { uint64_t desired_allocation, new_allocation; uint32_t generation_number; } optimized;
        struct { uint64_t objects; } bgc_drain_mark;
        struct { uint64_t pages, objects; uint32_t is_large; } bgc_revisit;
        struct { uint64_t min, max, objects; uint32_t is_large, gen_number; } bgc_overflow;
        struct { uint32_t reason; } bgc_alloc_wait;
        struct { uint32_t gen_number, is_alloc; } full_notify;
        struct { uint32_t gen_number; } bgc_1st_sweep_end;
        struct { uint64_t plug_start, plug_end, gap_before_size; } pin_plug;
        /* Type/BulkType (15): entries of variable size, read with
         * gcs_gc_bulk_type_begin/next. count: entries checked whole; a payload ending before Count
         * entries is GCS_ERR_TRUNCATED with values_truncated set and the
         * entries present usable, as for the bulk arrays above. */
        struct { uint32_t declared_count, count; const uint8_t *values;
                 uint32_t values_size; bool values_truncated; } bulk_type;
        /* AllocationSampled (303): the facts of a V4 AllocationTick. */
        struct {
            uint32_t allocation_kind;    /* 0 small, 1 large, 2 pinned */
            uint64_t type_id;
            gcs_gc_utf16 type_name;
            uint64_t address, object_size, sampled_byte_offset;
        } allocation_sampled;
        struct {
            uint64_t hard_limit, loh_threshold, physical_memory_config,
                gen0_min_budget_config, gen0_max_budget_config;
            uint32_t high_mem_percent_config, bit_settings;
        } settings_rundown;
    } u;
} gcs_gc_record;

/*
 * Decodes ev (classified as kind) into *out. GCS_OK, or GCS_ERR_TRUNCATED
 * (payload shorter than the version's layout: err says which field, at
 * which payload offset), or GCS_ERR_ARG when kind is GCS_GCK_NONE.
 */
gcs_status gcs_gc_decode(const gcs_event *ev, gcs_gc_kind kind, gcs_gc_record *out,
                         gcs_error *err);

/* Same from the raw pieces (for callers without a gcs_event). */
gcs_status gcs_gc_decode_payload(gcs_gc_kind kind, uint32_t version, const uint8_t *payload,
                                 uint32_t payload_size, uint32_t pointer_size,
                                 gcs_gc_record *out, gcs_error *err);

/*
 * The fields of GCAllocationTick the GC statistics need (AllocationAmount,
 * AllocationKind, ClrInstanceID from V1, AllocationAmount64 from V2),
 * without scanning the type name: the fast path for the most frequent GC
 * event. GCS_ERR_TRUNCATED when the payload lacks them.
 */
typedef struct gcs_gc_alloc_amount {
    uint32_t amount;
    uint32_t kind;
    uint64_t amount64;
    uint16_t clr_instance_id;
    bool has_clr_instance_id;
} gcs_gc_alloc_amount;
static inline gcs_status gcs_gc_decode_alloc_amount(const uint8_t *payload,
                                                    uint32_t payload_size, uint32_t version,
                                                    gcs_gc_alloc_amount *out);

/* ---- element accessors (false when i is out of range) ---- */

/* GCBulkMovedObjectRanges (22). */
typedef struct gcs_gc_moved_range { uint64_t old_base, new_base, length; } gcs_gc_moved_range;
bool gcs_gc_moved_range_at(const gcs_gc_array *a, uint32_t i, gcs_gc_moved_range *out);

/* GCBulkSurvivingObjectRanges (21). */
typedef struct gcs_gc_surviving_range { uint64_t base, length; } gcs_gc_surviving_range;
bool gcs_gc_surviving_range_at(const gcs_gc_array *a, uint32_t i, gcs_gc_surviving_range *out);

/* Elements from..from+max-1 of a range array (fewer at its end) into out,
 * as the accessors above read them one by one; returns how many. For the
 * object analysis, which reads millions of them: one call a chunk. */
size_t gcs_gc_moved_ranges_read(const gcs_gc_array *a, uint32_t from, gcs_gc_moved_range *out,
                                size_t max);
size_t gcs_gc_surviving_ranges_read(const gcs_gc_array *a, uint32_t from,
                                    gcs_gc_surviving_range *out, size_t max);

/* GCBulkNode (18). */
typedef struct gcs_gc_bulk_node { uint64_t address, size, type_id, edge_count; } gcs_gc_bulk_node;
bool gcs_gc_bulk_node_at(const gcs_gc_array *a, uint32_t i, gcs_gc_bulk_node *out);

/* GCBulkEdge (19). */
typedef struct gcs_gc_bulk_edge { uint64_t value; uint32_t referencing_field_id; } gcs_gc_bulk_edge;
bool gcs_gc_bulk_edge_at(const gcs_gc_array *a, uint32_t i, gcs_gc_bulk_edge *out);

/* GCBulkRootEdge (16). */
typedef struct gcs_gc_root_edge { uint64_t rooted_node_address; uint8_t root_kind;
                                  uint32_t root_flags; uint64_t root_id; } gcs_gc_root_edge;
bool gcs_gc_root_edge_at(const gcs_gc_array *a, uint32_t i, gcs_gc_root_edge *out);

/* GCBulkRootConditionalWeakTableElementEdge (17). */
typedef struct gcs_gc_cwt_edge { uint64_t key_node, value_node, root_id; } gcs_gc_cwt_edge;
bool gcs_gc_cwt_edge_at(const gcs_gc_array *a, uint32_t i, gcs_gc_cwt_edge *out);

/* GCLOHCompact (208): one element per heap. */
typedef struct gcs_gc_loh_compact { uint32_t time_plan, time_compact, time_relocate;
                                    uint64_t total_refs, zero_refs; } gcs_gc_loh_compact;
bool gcs_gc_loh_compact_at(const gcs_gc_array *a, uint32_t i, gcs_gc_loh_compact *out);

/* GCFitBucketInfo (209). */
typedef struct gcs_gc_fit_bucket { uint16_t index; uint32_t count; uint64_t size; } gcs_gc_fit_bucket;
bool gcs_gc_fit_bucket_at(const gcs_gc_array *a, uint32_t i, gcs_gc_fit_bucket *out);

/* Type/BulkType (15): walks the count entries of a record. */
typedef struct gcs_gc_bulk_type_entry {
    uint64_t type_id, module_id;
    uint32_t type_name_id, flags;
    uint8_t cor_element_type;
    gcs_gc_utf16 name;
    uint32_t type_parameter_count; /* the parameters themselves are skipped */
} gcs_gc_bulk_type_entry;
typedef struct gcs_gc_bulk_type_iter {
    gcs_cursor cur;
    uint32_t left;
} gcs_gc_bulk_type_iter;
void gcs_gc_bulk_type_begin(const gcs_gc_record *rec, gcs_gc_bulk_type_iter *it);
/* Next entry; false when none is left. */
bool gcs_gc_bulk_type_next(gcs_gc_bulk_type_iter *it, gcs_gc_bulk_type_entry *out);

/* GCPerHeapHistory generation g (0..gen_count-1). */
bool gcs_gc_per_heap_gen(const gcs_gc_record *rec, uint32_t g, gcs_gc_gen_data *out);

/* Values TraceEvent derives from one generation record, by layout
 * (3: V3+, 2: legacy 2.x, 0: legacy 0.x). Signed, as TraceEvent's longs. */
int64_t gcs_gc_gen_obj_space_before(const gcs_gc_gen_data *g, uint32_t layout); /* V>=2 */
int64_t gcs_gc_gen_fragmentation(const gcs_gc_gen_data *g, uint32_t layout);
int64_t gcs_gc_gen_obj_size_after(const gcs_gc_gen_data *g, uint32_t layout);
int64_t gcs_gc_gen_out(const gcs_gc_gen_data *g, uint32_t layout);
int64_t gcs_gc_gen_budget(const gcs_gc_gen_data *g, uint32_t layout);
int64_t gcs_gc_gen_surv_rate(const gcs_gc_gen_data *g, uint32_t layout);

/* GCGlobalHeapHistory V4 Times[i]. */
bool gcs_gc_global_time_at(const gcs_gc_record *rec, uint32_t i, uint32_t *out);

/* Inline: it runs on most GC events. */
static inline gcs_status gcs_gc_decode_alloc_amount(const uint8_t *payload,
                                                    uint32_t payload_size, uint32_t version,
                                                    gcs_gc_alloc_amount *out)
{
    gcs_cursor c = gcs_cur_make(payload ? payload : (const uint8_t *)"", payload ? payload_size : 0, 0);
    out->amount64 = 0;
    out->clr_instance_id = 0;
    out->has_clr_instance_id = false;
    /* AllocationAmount and AllocationKind in one load, then ClrInstanceID
     * and AllocationAmount64 (at 10) in two: the analysis' hot path. */
    uint64_t head;
    if (!gcs_cur_peek_u64(&c, &head))
        return GCS_ERR_TRUNCATED;
    out->amount = (uint32_t)head;
    out->kind = (uint32_t)(head >> 32);
    if (version >= 1) {
        gcs_cur_skip(&c, 8);
        if (!gcs_cur_u16(&c, &out->clr_instance_id))
            return GCS_ERR_TRUNCATED;
        out->has_clr_instance_id = true;
    }
    if (version >= 2 && !gcs_cur_peek_u64(&c, &out->amount64))
        return GCS_ERR_TRUNCATED;
    return GCS_OK;
}

#endif
