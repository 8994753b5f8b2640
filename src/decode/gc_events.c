/*
 * decode/gc_events.c - typed decoding of GC events (see gc_events.h).
 *
 * Classification is table-driven by (provider, event id); decoding is one
 * function per layout family, choosing fields by version. All byte access
 * goes through base/cursor.h.
 */
#include "decode/gc_events.h"

#include <assert.h>
#include <string.h>

#include "base/buf.h"
#include "base/cursor.h"
#include "base/error.h"
#include "base/sat_math.h"

#define PROVIDER_RUNTIME "Microsoft-Windows-DotNETRuntime"
#define PROVIDER_PRIVATE "Microsoft-Windows-DotNETRuntimePrivate"
#define PROVIDER_RUNDOWN "Microsoft-Windows-DotNETRuntimeRundown"

/* ---------------------------------------------------------------- names */

static const char *const kind_names[GCS_GCK_COUNT] = {
    [GCS_GCK_NONE] = "None",
    [GCS_GCK_START] = "GCStart",
    [GCS_GCK_END] = "GCEnd",
    [GCS_GCK_RESTART_EE_END] = "GCRestartEEEnd",
    [GCS_GCK_HEAP_STATS] = "GCHeapStats",
    [GCS_GCK_CREATE_SEGMENT] = "GCCreateSegment",
    [GCS_GCK_FREE_SEGMENT] = "GCFreeSegment",
    [GCS_GCK_RESTART_EE_BEGIN] = "GCRestartEEBegin",
    [GCS_GCK_SUSPEND_EE_END] = "GCSuspendEEEnd",
    [GCS_GCK_SUSPEND_EE_BEGIN] = "GCSuspendEEBegin",
    [GCS_GCK_ALLOCATION_TICK] = "GCAllocationTick",
    [GCS_GCK_CREATE_CONCURRENT_THREAD] = "GCCreateConcurrentThread",
    [GCS_GCK_TERMINATE_CONCURRENT_THREAD] = "GCTerminateConcurrentThread",
    [GCS_GCK_FINALIZERS_END] = "GCFinalizersEnd",
    [GCS_GCK_FINALIZERS_BEGIN] = "GCFinalizersBegin",
    [GCS_GCK_BULK_ROOT_EDGE] = "GCBulkRootEdge",
    [GCS_GCK_BULK_ROOT_CWT_EDGE] = "GCBulkRootConditionalWeakTableElementEdge",
    [GCS_GCK_BULK_NODE] = "GCBulkNode",
    [GCS_GCK_BULK_EDGE] = "GCBulkEdge",
    [GCS_GCK_SAMPLED_OBJECT_ALLOCATION] = "GCSampledObjectAllocation",
    [GCS_GCK_BULK_SURVIVING_OBJECT_RANGES] = "GCBulkSurvivingObjectRanges",
    [GCS_GCK_BULK_MOVED_OBJECT_RANGES] = "GCBulkMovedObjectRanges",
    [GCS_GCK_GENERATION_RANGE] = "GCGenerationRange",
    [GCS_GCK_MARK] = "GCMark",
    [GCS_GCK_FINALIZE_OBJECT] = "FinalizeObject",
    [GCS_GCK_SET_GC_HANDLE] = "SetGCHandle",
    [GCS_GCK_DESTROY_GC_HANDLE] = "DestroyGCHandle",
    [GCS_GCK_PIN_OBJECT_AT_GC_TIME] = "PinObjectAtGCTime",
    [GCS_GCK_TRIGGERED] = "GCTriggered",
    [GCS_GCK_BULK_ROOT_CCW] = "GCBulkRootCCW",
    [GCS_GCK_BULK_RCW] = "GCBulkRCW",
    [GCS_GCK_BULK_ROOT_STATIC_VAR] = "GCBulkRootStaticVar",
    [GCS_GCK_RUNTIME_INFORMATION] = "RuntimeInformation",
    [GCS_GCK_INCREASE_MEMORY_PRESSURE] = "IncreaseMemoryPressure",
    [GCS_GCK_DECREASE_MEMORY_PRESSURE] = "DecreaseMemoryPressure",
    [GCS_GCK_MARK_WITH_TYPE] = "GCMarkWithType",
    [GCS_GCK_JOIN] = "GCJoin",
    [GCS_GCK_PER_HEAP_HISTORY] = "GCPerHeapHistory",
    [GCS_GCK_GLOBAL_HEAP_HISTORY] = "GCGlobalHeapHistory",
    [GCS_GCK_GEN_AWARE_BEGIN] = "GenAwareBegin",
    [GCS_GCK_GEN_AWARE_END] = "GenAwareEnd",
    [GCS_GCK_LOH_COMPACT] = "GCLOHCompact",
    [GCS_GCK_FIT_BUCKET_INFO] = "GCFitBucketInfo",
    [GCS_GCK_DECISION] = "GCDecision",
    [GCS_GCK_SETTINGS] = "GCSettings",
    [GCS_GCK_OPTIMIZED] = "GCOptimized",
    [GCS_GCK_BGC_BEGIN] = "BGCBegin",
    [GCS_GCK_BGC_1ST_NONCON_END] = "BGC1stNonConEnd",
    [GCS_GCK_BGC_1ST_CON_END] = "BGC1stConEnd",
    [GCS_GCK_BGC_2ND_NONCON_BEGIN] = "BGC2ndNonConBegin",
    [GCS_GCK_BGC_2ND_NONCON_END] = "BGC2ndNonConEnd",
    [GCS_GCK_BGC_2ND_CON_BEGIN] = "BGC2ndConBegin",
    [GCS_GCK_BGC_2ND_CON_END] = "BGC2ndConEnd",
    [GCS_GCK_BGC_PLAN_END] = "BGCPlanEnd",
    [GCS_GCK_BGC_SWEEP_END] = "BGCSweepEnd",
    [GCS_GCK_BGC_DRAIN_MARK] = "BGCDrainMark",
    [GCS_GCK_BGC_REVISIT] = "BGCRevisit",
    [GCS_GCK_BGC_OVERFLOW] = "BGCOverflow",
    [GCS_GCK_BGC_ALLOC_WAIT_BEGIN] = "BGCAllocWaitBegin",
    [GCS_GCK_BGC_ALLOC_WAIT_END] = "BGCAllocWaitEnd",
    [GCS_GCK_FULL_NOTIFY] = "GCFullNotify",
    [GCS_GCK_BGC_1ST_SWEEP_END] = "BGC1stSweepEnd",
    [GCS_GCK_PIN_PLUG_AT_GC_TIME] = "PinPlugAtGCTime",
    [GCS_GCK_SETTINGS_RUNDOWN] = "GCSettingsRundown",
    [GCS_GCK_BULK_TYPE] = "BulkType",
    [GCS_GCK_ALLOCATION_SAMPLED] = "AllocationSampled",
    [GCS_GCK_MODULE] = "Module",
};

const char *gcs_gc_kind_name(gcs_gc_kind kind)
{
    if ((unsigned)kind >= GCS_GCK_COUNT || !kind_names[kind])
        return "?";
    return kind_names[kind];
}

/* ------------------------------------------------------- classification */

/* Event id -> kind, per provider (ids above 255 are not GC events). */
static const uint8_t runtime_ids[256] = {
    [1] = GCS_GCK_START, [2] = GCS_GCK_END, [3] = GCS_GCK_RESTART_EE_END,
    [4] = GCS_GCK_HEAP_STATS, [5] = GCS_GCK_CREATE_SEGMENT, [6] = GCS_GCK_FREE_SEGMENT,
    [7] = GCS_GCK_RESTART_EE_BEGIN, [8] = GCS_GCK_SUSPEND_EE_END,
    [9] = GCS_GCK_SUSPEND_EE_BEGIN, [10] = GCS_GCK_ALLOCATION_TICK,
    [11] = GCS_GCK_CREATE_CONCURRENT_THREAD, [12] = GCS_GCK_TERMINATE_CONCURRENT_THREAD,
    [13] = GCS_GCK_FINALIZERS_END, [14] = GCS_GCK_FINALIZERS_BEGIN,
    [15] = GCS_GCK_BULK_TYPE, [16] = GCS_GCK_BULK_ROOT_EDGE, [17] = GCS_GCK_BULK_ROOT_CWT_EDGE,
    [18] = GCS_GCK_BULK_NODE, [19] = GCS_GCK_BULK_EDGE,
    [20] = GCS_GCK_SAMPLED_OBJECT_ALLOCATION, [21] = GCS_GCK_BULK_SURVIVING_OBJECT_RANGES,
    [22] = GCS_GCK_BULK_MOVED_OBJECT_RANGES, [23] = GCS_GCK_GENERATION_RANGE,
    [25] = GCS_GCK_MARK, [26] = GCS_GCK_MARK, [27] = GCS_GCK_MARK, [28] = GCS_GCK_MARK,
    [29] = GCS_GCK_FINALIZE_OBJECT, [30] = GCS_GCK_SET_GC_HANDLE,
    [31] = GCS_GCK_DESTROY_GC_HANDLE, [32] = GCS_GCK_SAMPLED_OBJECT_ALLOCATION,
    [33] = GCS_GCK_PIN_OBJECT_AT_GC_TIME, [35] = GCS_GCK_TRIGGERED,
    [36] = GCS_GCK_BULK_ROOT_CCW, [37] = GCS_GCK_BULK_RCW, [38] = GCS_GCK_BULK_ROOT_STATIC_VAR,
    [152] = GCS_GCK_MODULE, [153] = GCS_GCK_MODULE,
    [187] = GCS_GCK_RUNTIME_INFORMATION,
    [200] = GCS_GCK_INCREASE_MEMORY_PRESSURE, [201] = GCS_GCK_DECREASE_MEMORY_PRESSURE,
    [202] = GCS_GCK_MARK_WITH_TYPE, [203] = GCS_GCK_JOIN, [204] = GCS_GCK_PER_HEAP_HISTORY,
    [205] = GCS_GCK_GLOBAL_HEAP_HISTORY, [206] = GCS_GCK_GEN_AWARE_BEGIN,
    [207] = GCS_GCK_GEN_AWARE_END, [208] = GCS_GCK_LOH_COMPACT, [209] = GCS_GCK_FIT_BUCKET_INFO,
};

static const uint8_t private_ids[256] = {
    [1] = GCS_GCK_DECISION, [2] = GCS_GCK_SETTINGS, [3] = GCS_GCK_OPTIMIZED,
    [4] = GCS_GCK_PER_HEAP_HISTORY, [5] = GCS_GCK_GLOBAL_HEAP_HISTORY, [6] = GCS_GCK_JOIN,
    [7] = GCS_GCK_MARK, [8] = GCS_GCK_MARK, [9] = GCS_GCK_MARK, [10] = GCS_GCK_MARK,
    [11] = GCS_GCK_BGC_BEGIN, [12] = GCS_GCK_BGC_1ST_NONCON_END,
    [13] = GCS_GCK_BGC_1ST_CON_END, [14] = GCS_GCK_BGC_2ND_NONCON_BEGIN,
    [15] = GCS_GCK_BGC_2ND_NONCON_END, [16] = GCS_GCK_BGC_2ND_CON_BEGIN,
    [17] = GCS_GCK_BGC_2ND_CON_END, [18] = GCS_GCK_BGC_PLAN_END, [19] = GCS_GCK_BGC_SWEEP_END,
    [20] = GCS_GCK_BGC_DRAIN_MARK, [21] = GCS_GCK_BGC_REVISIT, [22] = GCS_GCK_BGC_OVERFLOW,
    [23] = GCS_GCK_BGC_ALLOC_WAIT_BEGIN, [24] = GCS_GCK_BGC_ALLOC_WAIT_END,
    [25] = GCS_GCK_FULL_NOTIFY, [26] = GCS_GCK_BGC_1ST_SWEEP_END,
    [192] = GCS_GCK_FINALIZE_OBJECT,
    [194] = GCS_GCK_SET_GC_HANDLE, [195] = GCS_GCK_DESTROY_GC_HANDLE,
    [199] = GCS_GCK_PIN_PLUG_AT_GC_TIME,
};

static const uint8_t rundown_ids[256] = {
    [10] = GCS_GCK_SETTINGS_RUNDOWN,
    [153] = GCS_GCK_MODULE, [154] = GCS_GCK_MODULE,
    [187] = GCS_GCK_RUNTIME_INFORMATION,
};

/* The one runtime id above 255 (AllocationSampled, .NET 9+). */
#define EVENT_ID_ALLOCATION_SAMPLED 303

gcs_gc_kind gcs_gc_classify(const gcs_event_type *type)
{
    if (!type || !type->provider)
        return GCS_GCK_NONE;
    if (type->event_id > 255 && type->event_id != EVENT_ID_ALLOCATION_SAMPLED)
        return GCS_GCK_NONE;
    const char *p = type->provider;
    /* All three providers share this prefix; compare the tail only once. */
    size_t n = sizeof(PROVIDER_RUNTIME) - 1;
    if (strncmp(p, PROVIDER_RUNTIME, n) != 0)
        return GCS_GCK_NONE;
    const char *tail = p + n;
    if (type->event_id == EVENT_ID_ALLOCATION_SAMPLED)
        return *tail == 0 ? GCS_GCK_ALLOCATION_SAMPLED : GCS_GCK_NONE;
    if (*tail == 0)
        return (gcs_gc_kind)runtime_ids[type->event_id];
    if (!strcmp(tail, "Private"))
        return (gcs_gc_kind)private_ids[type->event_id];
    if (!strcmp(tail, "Rundown"))
        return (gcs_gc_kind)rundown_ids[type->event_id];
    return GCS_GCK_NONE;
}

void gcs_gc_kind_cache_init(gcs_gc_kind_cache *c) { memset(c, 0, sizeof *c); }

gcs_gc_kind gcs_gc_kind_cached(gcs_gc_kind_cache *c, const gcs_event_type *type)
{
    uintptr_t h = (uintptr_t)type;
    h ^= h >> 9;
    h ^= h >> 17;
    size_t slot = (size_t)(h % GCS_GC_KIND_CACHE_SLOTS);
    for (size_t probe = 0; probe < 8; probe++) {
        size_t s = (slot + probe) % GCS_GC_KIND_CACHE_SLOTS;
        if (c->keys[s] == type)
            return (gcs_gc_kind)c->kinds[s];
        if (!c->keys[s]) {
            gcs_gc_kind k = gcs_gc_classify(type);
            c->keys[s] = type;
            c->kinds[s] = (uint8_t)k;
            return k;
        }
    }
    return gcs_gc_classify(type); /* neighbourhood full: just recompute */
}

const char *gcs_gc_utf16_to_utf8(gcs_gc_utf16 s, char *out, size_t out_cap)
{
    if (out_cap == 0)
        return out;
    if (!s.data) {
        out[0] = 0;
        return out;
    }
    gcs_utf16_to_utf8_buf(s.data, s.units, out, out_cap);
    return out;
}

/* -------------------------------------------------------------- decoding */

typedef struct dec {
    gcs_cursor c;
    uint32_t ps;
    uint32_t version;
    gcs_error *err;
    gcs_gc_record *r;
} dec;

static gcs_status short_payload(dec *d, const char *field)
{
    return GCS_FAIL(d->err, GCS_ERR_TRUNCATED, gcs_cur_offset(&d->c),
                    "%s V%u: payload of %u bytes ends before %s",
                    gcs_gc_kind_name(d->r->kind), d->version, d->r->payload_size, field);
}

#define U8(dst, name)                                  \
    do {                                               \
        if (!gcs_cur_u8(&d->c, &(dst)))                \
            return short_payload(d, name);             \
    } while (0)
#define U16(dst, name)                                 \
    do {                                               \
        if (!gcs_cur_u16(&d->c, &(dst)))               \
            return short_payload(d, name);             \
    } while (0)
#define U32(dst, name)                                 \
    do {                                               \
        if (!gcs_cur_u32(&d->c, &(dst)))               \
            return short_payload(d, name);             \
    } while (0)
#define U64(dst, name)                                 \
    do {                                               \
        if (!gcs_cur_u64(&d->c, &(dst)))               \
            return short_payload(d, name);             \
    } while (0)
#define PTR(dst, name)                                 \
    do {                                               \
        if (!gcs_cur_ptr(&d->c, d->ps, &(dst)))        \
            return short_payload(d, name);             \
    } while (0)
#define STR16(dst, name)                                              \
    do {                                                              \
        const uint8_t *s_;                                            \
        size_t units_;                                                \
        if (!gcs_cur_utf16z(&d->c, &s_, &units_))                     \
            return short_payload(d, name);                            \
        (dst).data = s_;                                              \
        (dst).units = (uint32_t)units_;                               \
    } while (0)
/* ClrInstanceID when the version has one. */
#define CLR_ID(min_version)                                                      \
    do {                                                                         \
        if ((int64_t)d->version >= (int64_t)(min_version)) {                     \
            U16(d->r->clr_instance_id, "ClrInstanceID");                         \
            d->r->has_clr_instance_id = true;                                    \
        }                                                                        \
    } while (0)

/* An array of count elements of stride bytes at the cursor; steps over it.
 * When fewer fit, a holds the whole elements present and the answer is
 * GCS_ERR_TRUNCATED (callers that can use a partial array say so). */
static gcs_status take_array(dec *d, uint32_t count, uint32_t stride, gcs_gc_array *a,
                             const char *name)
{
    const uint8_t *p;
    /* count * stride < 2^64: a product, not a divide (a GC's histories
     * take two or three arrays). */
    if ((uint64_t)count * stride > gcs_cur_left(&d->c)) {
        uint32_t fit = (uint32_t)(gcs_cur_left(&d->c) / stride);
        gcs_cursor rest = d->c;
        bool at = gcs_cur_bytes(&rest, (size_t)fit * stride, &p);
        assert(at); /* fit elements are within the bytes left */
        (void)at;
        a->data = p;
        a->count = fit;
        a->stride = stride;
        a->pointer_size = d->ps;
        return short_payload(d, name);
    }
    if (!gcs_cur_bytes(&d->c, (size_t)count * stride, &p))
        return short_payload(d, name);
    a->data = p;
    a->count = count;
    a->stride = stride;
    a->pointer_size = d->ps;
    return GCS_OK;
}

static gcs_status dec_start(dec *d)
{
    gcs_gc_record *r = d->r;
    U32(r->u.start.count, "Count");
    /* TraceEvent picks the V1 layout whenever the payload has >= 16 bytes. */
    if (r->payload_size >= 16 || d->version >= 1) {
        U32(r->u.start.depth, "Depth");
        U32(r->u.start.reason, "Reason");
        U32(r->u.start.type, "Type");
        r->u.start.has_depth_type = true;
        if (d->version >= 1 || gcs_cur_left(&d->c) >= 2)
            CLR_ID(0);
        if (d->version >= 2)
            U64(r->u.start.client_sequence_number, "ClientSequenceNumber");
    } else {
        U32(r->u.start.reason, "Reason");
    }
    return GCS_OK;
}

static gcs_status dec_end(dec *d)
{
    gcs_gc_record *r = d->r;
    U32(r->u.end.count, "Count");
    if (d->version == 0) {
        uint16_t depth;
        U16(depth, "Depth");
        r->u.end.depth = depth;
    } else {
        U32(r->u.end.depth, "Depth");
        CLR_ID(1);
    }
    return GCS_OK;
}

static gcs_status dec_clr_only(dec *d)
{
    CLR_ID(1);
    return GCS_OK;
}

static gcs_status dec_heap_stats(dec *d)
{
    gcs_gc_record *r = d->r;
    for (int g = 0; g < 4; g++) {
        U64(r->u.heap_stats.generation_size[g], "GenerationSize");
        U64(r->u.heap_stats.total_promoted_size[g], "TotalPromotedSize");
    }
    U64(r->u.heap_stats.finalization_promoted_size, "FinalizationPromotedSize");
    U64(r->u.heap_stats.finalization_promoted_count, "FinalizationPromotedCount");
    U32(r->u.heap_stats.pinned_object_count, "PinnedObjectCount");
    U32(r->u.heap_stats.sink_block_count, "SinkBlockCount");
    U32(r->u.heap_stats.gc_handle_count, "GCHandleCount");
    CLR_ID(1);
    if (d->version >= 2) {
        U64(r->u.heap_stats.generation_size[4], "GenerationSize4");
        U64(r->u.heap_stats.total_promoted_size[4], "TotalPromotedSize4");
        r->u.heap_stats.has_poh = true;
    }
    return GCS_OK;
}

static gcs_status dec_create_segment(dec *d)
{
    U64(d->r->u.create_segment.address, "Address");
    U64(d->r->u.create_segment.size, "Size");
    U32(d->r->u.create_segment.type, "Type");
    CLR_ID(1);
    return GCS_OK;
}

static gcs_status dec_free_segment(dec *d)
{
    U64(d->r->u.free_segment.address, "Address");
    CLR_ID(1);
    return GCS_OK;
}

static gcs_status dec_suspend_begin(dec *d)
{
    if (d->version == 0) {
        uint16_t reason;
        U16(reason, "Reason");
        d->r->u.suspend_ee_begin.reason = reason;
        return GCS_OK;
    }
    U32(d->r->u.suspend_ee_begin.reason, "Reason");
    U32(d->r->u.suspend_ee_begin.count, "Count");
    CLR_ID(1);
    return GCS_OK;
}

static gcs_status dec_alloc_tick(dec *d)
{
    gcs_gc_record *r = d->r;
    U32(r->u.allocation_tick.allocation_amount, "AllocationAmount");
    U32(r->u.allocation_tick.allocation_kind, "AllocationKind");
    CLR_ID(1);
    if (d->version >= 2) {
        U64(r->u.allocation_tick.allocation_amount64, "AllocationAmount64");
        PTR(r->u.allocation_tick.type_id, "TypeID");
        STR16(r->u.allocation_tick.type_name, "TypeName");
        U32(r->u.allocation_tick.heap_index, "HeapIndex");
    }
    if (d->version >= 3)
        PTR(r->u.allocation_tick.address, "Address");
    if (d->version >= 4)
        U64(r->u.allocation_tick.object_size, "ObjectSize");
    return GCS_OK;
}

static gcs_status dec_finalizers_end(dec *d)
{
    U32(d->r->u.finalizers_end.count, "Count");
    CLR_ID(1);
    return GCS_OK;
}

/* Bulk events with a (Index, Count, ClrInstanceID) header. */
static gcs_status dec_bulk(dec *d, uint32_t stride)
{
    uint32_t count;
    U32(d->r->u.bulk.index, "Index");
    U32(count, "Count");
    CLR_ID(0);
    d->r->u.bulk.declared_count = count;
    gcs_status st = take_array(d, count, stride, &d->r->u.bulk.values, "Values");
    d->r->u.bulk.values_truncated = st == GCS_ERR_TRUNCATED;
    return st;
}

/* One Type/BulkType entry at c (TypeID, ModuleID, TypeNameID, Flags,
 * CorElementType, Name, TypeParameterCount, TypeParameters u64[]). */
static bool bulk_type_entry(gcs_cursor *c, gcs_gc_bulk_type_entry *e)
{
    const uint8_t *s;
    size_t units;
    if (!gcs_cur_u64(c, &e->type_id) || !gcs_cur_u64(c, &e->module_id) ||
        !gcs_cur_u32(c, &e->type_name_id) || !gcs_cur_u32(c, &e->flags) ||
        !gcs_cur_u8(c, &e->cor_element_type) || !gcs_cur_utf16z(c, &s, &units) ||
        !gcs_cur_u32(c, &e->type_parameter_count))
        return false;
    e->name.data = s;
    e->name.units = (uint32_t)units;
    if (e->type_parameter_count > gcs_cur_left(c) / 8)
        return false;
    return gcs_cur_skip(c, (size_t)e->type_parameter_count * 8);
}

/* Entries vary in size: walk them all here so that the record's count is
 * of whole entries and the iterator cannot fail. */
static gcs_status dec_bulk_type(dec *d)
{
    gcs_gc_record *r = d->r;
    U32(r->u.bulk_type.declared_count, "Count");
    CLR_ID(0);
    gcs_cursor start = d->c; /* entries begin here */
    gcs_gc_bulk_type_entry e;
    while (r->u.bulk_type.count < r->u.bulk_type.declared_count) {
        gcs_cursor entry = d->c;
        if (!bulk_type_entry(&entry, &e)) {
            r->u.bulk_type.values_truncated = true;
            break;
        }
        d->c = entry;
        r->u.bulk_type.count++;
    }
    /* The whole entries: from start to where the walk stopped. */
    size_t size = (size_t)(gcs_cur_offset(&d->c) - gcs_cur_offset(&start));
    bool whole = gcs_cur_bytes(&start, size, &r->u.bulk_type.values);
    assert(whole);
    (void)whole;
    r->u.bulk_type.values_size = (uint32_t)size;
    if (r->u.bulk_type.values_truncated)
        return short_payload(d, "Values");
    return GCS_OK;
}

static gcs_status dec_allocation_sampled(dec *d)
{
    gcs_gc_record *r = d->r;
    U32(r->u.allocation_sampled.allocation_kind, "AllocationKind");
    CLR_ID(0);
    PTR(r->u.allocation_sampled.type_id, "TypeID");
    STR16(r->u.allocation_sampled.type_name, "TypeName");
    PTR(r->u.allocation_sampled.address, "Address");
    U64(r->u.allocation_sampled.object_size, "ObjectSize");
    U64(r->u.allocation_sampled.sampled_byte_offset, "SampledByteOffset");
    return GCS_OK;
}

static gcs_status dec_sampled_alloc(dec *d)
{
    PTR(d->r->u.sampled_allocation.address, "Address");
    PTR(d->r->u.sampled_allocation.type_id, "TypeID");
    U32(d->r->u.sampled_allocation.object_count_for_type_sample, "ObjectCountForTypeSample");
    U64(d->r->u.sampled_allocation.total_size_for_type_sample, "TotalSizeForTypeSample");
    CLR_ID(0);
    return GCS_OK;
}

static gcs_status dec_generation_range(dec *d)
{
    U8(d->r->u.generation_range.generation, "Generation");
    PTR(d->r->u.generation_range.range_start, "RangeStart");
    U64(d->r->u.generation_range.range_used_length, "RangeUsedLength");
    U64(d->r->u.generation_range.range_reserved_length, "RangeReservedLength");
    CLR_ID(0);
    return GCS_OK;
}

static gcs_status dec_mark(dec *d, uint32_t root_kind, bool is_private)
{
    U32(d->r->u.mark.heap_num, "HeapNum");
    d->r->u.mark.root_kind = root_kind;
    CLR_ID(is_private ? 1 : 0);
    return GCS_OK;
}

static gcs_status dec_finalize_object(dec *d, bool is_private)
{
    PTR(d->r->u.finalize_object.type_id, "TypeID");
    PTR(d->r->u.finalize_object.object_id, "ObjectID");
    CLR_ID(0);
    if (is_private)
        STR16(d->r->u.finalize_object.type_name, "TypeName");
    return GCS_OK;
}

static gcs_status dec_set_handle(dec *d)
{
    PTR(d->r->u.set_gc_handle.handle_id, "HandleID");
    PTR(d->r->u.set_gc_handle.object_id, "ObjectID");
    U32(d->r->u.set_gc_handle.kind, "Kind");
    U32(d->r->u.set_gc_handle.generation, "Generation");
    U64(d->r->u.set_gc_handle.app_domain_id, "AppDomainID");
    CLR_ID(0);
    return GCS_OK;
}

static gcs_status dec_destroy_handle(dec *d)
{
    PTR(d->r->u.destroy_gc_handle.handle_id, "HandleID");
    CLR_ID(0);
    return GCS_OK;
}

static gcs_status dec_pin_object(dec *d)
{
    PTR(d->r->u.pin_object.handle_id, "HandleID");
    PTR(d->r->u.pin_object.object_id, "ObjectID");
    U64(d->r->u.pin_object.object_size, "ObjectSize");
    STR16(d->r->u.pin_object.type_name, "TypeName");
    CLR_ID(0);
    return GCS_OK;
}

static gcs_status dec_triggered(dec *d)
{
    U32(d->r->u.triggered.reason, "Reason");
    CLR_ID(0);
    return GCS_OK;
}

static gcs_status dec_ccw_rcw(dec *d, uint32_t stride)
{
    uint32_t count;
    U32(count, "Count");
    CLR_ID(0);
    /* A .NET Framework 4.5.1 build reused id 36 for another payload:
     * like TraceEvent, an impossible count means "no elements". */
    if (stride != 0 && count > gcs_cur_left(&d->c) / stride)
        count = 0;
    return take_array(d, count, stride, &d->r->u.bulk_ccw_rcw.values, "Values");
}

static gcs_status dec_static_var(dec *d)
{
    U32(d->r->u.bulk_static_var.count, "Count");
    U64(d->r->u.bulk_static_var.app_domain_id, "AppDomainID");
    CLR_ID(0);
    size_t left = gcs_cur_left(&d->c);
    const uint8_t *p;
    if (!gcs_cur_bytes(&d->c, left, &p))
        return short_payload(d, "Values");
    d->r->u.bulk_static_var.values = p;
    d->r->u.bulk_static_var.values_size = (uint32_t)left;
    return GCS_OK;
}

static gcs_status dec_runtime_info(dec *d)
{
    gcs_gc_record *r = d->r;
    CLR_ID(0);
    U16(r->u.runtime_information.sku, "Sku");
    U16(r->u.runtime_information.bcl_major, "BclMajorVersion");
    U16(r->u.runtime_information.bcl_minor, "BclMinorVersion");
    U16(r->u.runtime_information.bcl_build, "BclBuildNumber");
    U16(r->u.runtime_information.bcl_qfe, "BclQfeNumber");
    U16(r->u.runtime_information.vm_major, "VMMajorVersion");
    U16(r->u.runtime_information.vm_minor, "VMMinorVersion");
    U16(r->u.runtime_information.vm_build, "VMBuildNumber");
    U16(r->u.runtime_information.vm_qfe, "VMQfeNumber");
    U32(r->u.runtime_information.startup_flags, "StartupFlags");
    U8(r->u.runtime_information.startup_mode, "StartupMode");
    STR16(r->u.runtime_information.command_line, "CommandLine");
    /* ComObjectGuid and RuntimeDllPath are not needed by the analysis. */
    return GCS_OK;
}

/* ModuleLoadUnload(Rundown) V0-V3. The PDB fields between the
 * ClrInstanceID and the build ID are stepped over. */
static gcs_status dec_module(dec *d)
{
    gcs_gc_record *r = d->r;
    uint32_t reserved;
    U64(r->u.module.module_id, "ModuleID");
    U64(r->u.module.assembly_id, "AssemblyID");
    U32(r->u.module.flags, "ModuleFlags");
    U32(reserved, "Reserved1");
    STR16(r->u.module.il_path, "ModuleILPath");
    STR16(r->u.module.native_path, "ModuleNativePath");
    CLR_ID(1);
    if (d->version < 3)
        return GCS_OK;
    const uint8_t *str;
    size_t units;
    uint32_t age;
    if (!gcs_cur_skip(&d->c, 16))
        return short_payload(d, "ManagedPdbSignature");
    U32(age, "ManagedPdbAge");
    if (!gcs_cur_utf16z(&d->c, &str, &units))
        return short_payload(d, "ManagedPdbBuildPath");
    if (!gcs_cur_skip(&d->c, 16))
        return short_payload(d, "NativePdbSignature");
    U32(age, "NativePdbAge");
    if (!gcs_cur_utf16z(&d->c, &str, &units))
        return short_payload(d, "NativePdbBuildPath");
    STR16(r->u.module.native_build_id, "NativeBuildID");
    (void)reserved;
    (void)age;
    return GCS_OK;
}

static gcs_status dec_memory_pressure(dec *d)
{
    U64(d->r->u.memory_pressure.bytes, "Bytes");
    CLR_ID(0);
    return GCS_OK;
}

static gcs_status dec_mark_with_type(dec *d)
{
    U32(d->r->u.mark_with_type.heap_num, "HeapNum");
    CLR_ID(0);
    U32(d->r->u.mark_with_type.type, "Type");
    U64(d->r->u.mark_with_type.bytes, "Bytes");
    return GCS_OK;
}

static gcs_status dec_join(dec *d, bool is_private)
{
    gcs_gc_record *r = d->r;
    U32(r->u.join.heap, "Heap");
    U32(r->u.join.join_time, "JoinTime");
    U32(r->u.join.join_type, "JoinType");
    /* Public id 203 exists only as V2; private id 6 as V0/V1. */
    uint32_t v = is_private ? d->version : (d->version < 2 ? 2 : d->version);
    d->version = v;
    CLR_ID(1);
    r->u.join.join_id = -256; /* TraceEvent's "invalid" when absent */
    if (v >= 2) {
        uint32_t id;
        U32(id, "GCID");
        r->u.join.join_id = (int32_t)id;
        r->u.join.has_join_id = true;
    }
    return GCS_OK;
}

/*
 * GCPerHeapHistory. Public id 204 is V3 (and later versions append). The
 * private id 4 of .NET Framework logged a raw native struct, recognised
 * (like TraceEvent does) by its exact length: 5 generation records of 10
 * pointers (B = 50P) then a tail.
 */
static gcs_status dec_per_heap_history(dec *d, bool is_private)
{
    gcs_gc_record *r = d->r;
    uint32_t ps = d->ps;
    uint32_t len = r->payload_size;
    uint32_t b = 50 * ps;
    if (is_private && d->version < 3) {
        /* Legacy layouts, by exact length. */
        const uint8_t *gen;
        uint32_t tail_u32[8] = {0};
        if (len == b + 21 || len == b + 25 || len == b + 33) {
            if (!gcs_cur_bytes(&d->c, b, &gen))
                return short_payload(d, "GenData");
            uint32_t n = (len - b) / 4;
            if (n > 8)
                n = 8;
            for (uint32_t i = 0; i < n; i++)
                U32(tail_u32[i], "tail");
        } else {
            return GCS_FAIL(d->err, GCS_ERR_TRUNCATED, gcs_cur_offset(&d->c),
                            "GCPerHeapHistory V%u: unrecognised legacy length %u", d->version,
                            len);
        }
        r->u.per_heap_history.gen_data = gen;
        r->u.per_heap_history.gen_count = 5;
        if (d->version == 0) {
            r->u.per_heap_history.layout = 0;
            r->u.per_heap_history.memory_pressure = tail_u32[0];
            r->u.per_heap_history.has_memory_pressure = true;
            r->u.per_heap_history.expand_mechanisms = tail_u32[1];
            r->u.per_heap_history.compact_mechanisms = tail_u32[2];
            if (len == b + 21) {
                r->u.per_heap_history.condemn_reasons0 = tail_u32[3];
                r->u.per_heap_history.heap_index = tail_u32[4];
            } else {
                r->u.per_heap_history.condemn_reasons0 = tail_u32[4];
                r->u.per_heap_history.heap_index = tail_u32[5];
            }
        } else {
            r->u.per_heap_history.layout = 2;
            r->u.per_heap_history.condemn_reasons0 = tail_u32[0];
            r->u.per_heap_history.condemn_reasons1 = tail_u32[1];
            r->u.per_heap_history.has_condemn_reasons1 = true;
            r->u.per_heap_history.memory_pressure = tail_u32[2];
            r->u.per_heap_history.has_memory_pressure = true;
            r->u.per_heap_history.expand_mechanisms = tail_u32[3];
            r->u.per_heap_history.compact_mechanisms = tail_u32[4];
            r->u.per_heap_history.heap_index = tail_u32[5];
        }
        return GCS_OK;
    }
    CLR_ID(0);
    PTR(r->u.per_heap_history.free_list_allocated, "FreeListAllocated");
    PTR(r->u.per_heap_history.free_list_rejected, "FreeListRejected");
    PTR(r->u.per_heap_history.end_of_seg_allocated, "EndOfSegAllocated");
    PTR(r->u.per_heap_history.condemned_allocated, "CondemnedAllocated");
    PTR(r->u.per_heap_history.pinned_allocated, "PinnedAllocated");
    PTR(r->u.per_heap_history.pinned_allocated_advance, "PinnedAllocatedAdvance");
    U32(r->u.per_heap_history.running_free_list_efficiency, "RunningFreeListEfficiency");
    U32(r->u.per_heap_history.condemn_reasons0, "CondemnReasons0");
    U32(r->u.per_heap_history.condemn_reasons1, "CondemnReasons1");
    U32(r->u.per_heap_history.compact_mechanisms, "CompactMechanisms");
    U32(r->u.per_heap_history.expand_mechanisms, "ExpandMechanisms");
    U32(r->u.per_heap_history.heap_index, "HeapIndex");
    PTR(r->u.per_heap_history.extra_gen0_commit, "ExtraGen0Commit");
    uint32_t count;
    U32(count, "Count");
    gcs_gc_array a;
    gcs_status st = take_array(d, count, 10 * ps, &a, "GenData");
    if (st != GCS_OK)
        return st;
    r->u.per_heap_history.gen_data = a.data;
    r->u.per_heap_history.gen_count = count;
    r->u.per_heap_history.layout = 3;
    r->u.per_heap_history.has_allocated_info = true;
    r->u.per_heap_history.has_condemn_reasons1 = true;
    return GCS_OK;
}

static gcs_status dec_global_heap_history(dec *d, bool is_private)
{
    gcs_gc_record *r = d->r;
    uint32_t v = is_private ? d->version : (d->version < 2 ? 2 : d->version);
    uint32_t nh;
    d->version = v;
    U64(r->u.global_heap_history.final_youngest_desired, "FinalYoungestDesired");
    U32(nh, "NumHeaps");
    r->u.global_heap_history.num_heaps = (int32_t)nh;
    U32(r->u.global_heap_history.condemned_generation, "CondemnedGeneration");
    U32(r->u.global_heap_history.gen0_reduction_count, "Gen0ReductionCount");
    U32(r->u.global_heap_history.reason, "Reason");
    U32(r->u.global_heap_history.global_mechanisms, "GlobalMechanisms");
    CLR_ID(1);
    if (v >= 2) {
        uint32_t pm;
        U32(pm, "PauseMode");
        r->u.global_heap_history.pause_mode = (int32_t)pm;
        U32(r->u.global_heap_history.memory_pressure, "MemoryPressure");
        r->u.global_heap_history.has_pause_mode = true;
    }
    if (v >= 3) {
        U32(r->u.global_heap_history.condemn_reasons0, "CondemnReasons0");
        U32(r->u.global_heap_history.condemn_reasons1, "CondemnReasons1");
        r->u.global_heap_history.has_condemn_reasons = true;
    }
    if (v >= 4) {
        uint32_t count;
        gcs_gc_array a;
        U32(count, "Count");
        gcs_status st = take_array(d, count, 4, &a, "Times");
        if (st != GCS_OK)
            return st;
        r->u.global_heap_history.time_count = count;
        r->u.global_heap_history.times = a.data;
    }
    return GCS_OK;
}

static gcs_status dec_gen_aware(dec *d)
{
    U32(d->r->u.gen_aware.count, "Count");
    CLR_ID(0);
    return GCS_OK;
}

static gcs_status dec_loh_compact(dec *d)
{
    uint16_t count;
    CLR_ID(0);
    U16(count, "Count");
    /* Native struct copies: padded to 32 bytes on 64-bit. */
    return take_array(d, count, d->ps == 8 ? 32 : 20, &d->r->u.loh_compact.values, "Values");
}

static gcs_status dec_fit_bucket(dec *d)
{
    uint16_t count;
    CLR_ID(0);
    U16(d->r->u.fit_bucket_info.bucket_kind, "BucketKind");
    U64(d->r->u.fit_bucket_info.total_size, "TotalSize");
    U16(count, "Count");
    return take_array(d, count, d->ps == 8 ? 16 : 12, &d->r->u.fit_bucket_info.values, "Values");
}

static gcs_status dec_decision(dec *d)
{
    uint32_t b;
    U32(b, "DoCompact");
    d->r->u.decision.do_compact = b != 0;
    CLR_ID(1);
    return GCS_OK;
}

static gcs_status dec_settings(dec *d)
{
    uint32_t b;
    U64(d->r->u.settings.segment_size, "SegmentSize");
    U64(d->r->u.settings.large_object_segment_size, "LargeObjectSegmentSize");
    U32(b, "ServerGC");
    d->r->u.settings.server_gc = b != 0;
    CLR_ID(1);
    return GCS_OK;
}

static gcs_status dec_optimized(dec *d)
{
    U64(d->r->u.optimized.desired_allocation, "DesiredAllocation");
    U64(d->r->u.optimized.new_allocation, "NewAllocation");
    U32(d->r->u.optimized.generation_number, "GenerationNumber");
    CLR_ID(1);
    return GCS_OK;
}

static gcs_status dec_bgc_marker(dec *d)
{
    CLR_ID(0);
    return GCS_OK;
}

static gcs_status dec_bgc_drain_mark(dec *d)
{
    U64(d->r->u.bgc_drain_mark.objects, "Objects");
    CLR_ID(0);
    return GCS_OK;
}

static gcs_status dec_bgc_revisit(dec *d)
{
    U64(d->r->u.bgc_revisit.pages, "Pages");
    U64(d->r->u.bgc_revisit.objects, "Objects");
    U32(d->r->u.bgc_revisit.is_large, "IsLarge");
    CLR_ID(0);
    return GCS_OK;
}

static gcs_status dec_bgc_overflow(dec *d)
{
    U64(d->r->u.bgc_overflow.min, "Min");
    U64(d->r->u.bgc_overflow.max, "Max");
    U64(d->r->u.bgc_overflow.objects, "Objects");
    U32(d->r->u.bgc_overflow.is_large, "IsLarge");
    CLR_ID(0);
    if (d->version >= 1)
        U32(d->r->u.bgc_overflow.gen_number, "GenNumber");
    return GCS_OK;
}

static gcs_status dec_bgc_alloc_wait(dec *d)
{
    U32(d->r->u.bgc_alloc_wait.reason, "Reason");
    CLR_ID(0);
    return GCS_OK;
}

static gcs_status dec_full_notify(dec *d)
{
    U32(d->r->u.full_notify.gen_number, "GenNumber");
    U32(d->r->u.full_notify.is_alloc, "IsAlloc");
    CLR_ID(1);
    return GCS_OK;
}

static gcs_status dec_bgc_1st_sweep_end(dec *d)
{
    U32(d->r->u.bgc_1st_sweep_end.gen_number, "GenNumber");
    CLR_ID(0);
    return GCS_OK;
}

static gcs_status dec_pin_plug(dec *d)
{
    PTR(d->r->u.pin_plug.plug_start, "PlugStart");
    PTR(d->r->u.pin_plug.plug_end, "PlugEnd");
    PTR(d->r->u.pin_plug.gap_before_size, "GapBeforeSize");
    CLR_ID(0);
    return GCS_OK;
}

static gcs_status dec_settings_rundown(dec *d)
{
    gcs_gc_record *r = d->r;
    U64(r->u.settings_rundown.hard_limit, "HardLimit");
    U64(r->u.settings_rundown.loh_threshold, "LOHThreshold");
    U64(r->u.settings_rundown.physical_memory_config, "PhysicalMemoryConfig");
    U64(r->u.settings_rundown.gen0_min_budget_config, "Gen0MinBudgetConfig");
    U64(r->u.settings_rundown.gen0_max_budget_config, "Gen0MaxBudgetConfig");
    U32(r->u.settings_rundown.high_mem_percent_config, "HighMemPercentConfig");
    U32(r->u.settings_rundown.bit_settings, "BitSettings");
    CLR_ID(0);
    return GCS_OK;
}

/* Which provider an id came from matters for a few shared kinds; the
 * caller passes it through the private flag. */
static gcs_status decode_kind(dec *d, gcs_gc_kind kind, bool is_private, uint32_t event_id)
{
    uint32_t ps = d->ps;
    switch (kind) {
    case GCS_GCK_START: return dec_start(d);
    case GCS_GCK_END: return dec_end(d);
    case GCS_GCK_RESTART_EE_END:
    case GCS_GCK_RESTART_EE_BEGIN:
    case GCS_GCK_SUSPEND_EE_END:
    case GCS_GCK_CREATE_CONCURRENT_THREAD:
    case GCS_GCK_TERMINATE_CONCURRENT_THREAD:
    case GCS_GCK_FINALIZERS_BEGIN: return dec_clr_only(d);
    case GCS_GCK_HEAP_STATS: return dec_heap_stats(d);
    case GCS_GCK_CREATE_SEGMENT: return dec_create_segment(d);
    case GCS_GCK_FREE_SEGMENT: return dec_free_segment(d);
    case GCS_GCK_SUSPEND_EE_BEGIN: return dec_suspend_begin(d);
    case GCS_GCK_ALLOCATION_TICK: return dec_alloc_tick(d);
    case GCS_GCK_FINALIZERS_END: return dec_finalizers_end(d);
    case GCS_GCK_BULK_ROOT_EDGE: return dec_bulk(d, 9 + 2 * ps);
    case GCS_GCK_BULK_ROOT_CWT_EDGE: return dec_bulk(d, 3 * ps);
    case GCS_GCK_BULK_NODE: return dec_bulk(d, ps + 24);
    case GCS_GCK_BULK_EDGE: return dec_bulk(d, ps + 4);
    case GCS_GCK_BULK_SURVIVING_OBJECT_RANGES: return dec_bulk(d, ps + 8);
    case GCS_GCK_BULK_MOVED_OBJECT_RANGES: return dec_bulk(d, 2 * ps + 8);
    case GCS_GCK_SAMPLED_OBJECT_ALLOCATION: return dec_sampled_alloc(d);
    case GCS_GCK_GENERATION_RANGE: return dec_generation_range(d);
    case GCS_GCK_MARK:
        /* public 25..28, private 7..10: stack, finalize queue, handles, older */
        return dec_mark(d, is_private ? event_id - 7 : event_id - 25, is_private);
    case GCS_GCK_FINALIZE_OBJECT: return dec_finalize_object(d, is_private);
    case GCS_GCK_SET_GC_HANDLE: return dec_set_handle(d);
    case GCS_GCK_DESTROY_GC_HANDLE: return dec_destroy_handle(d);
    case GCS_GCK_PIN_OBJECT_AT_GC_TIME: return dec_pin_object(d);
    case GCS_GCK_TRIGGERED: return dec_triggered(d);
    case GCS_GCK_BULK_ROOT_CCW: return dec_ccw_rcw(d, 44);
    case GCS_GCK_BULK_RCW: return dec_ccw_rcw(d, 40);
    case GCS_GCK_BULK_ROOT_STATIC_VAR: return dec_static_var(d);
    case GCS_GCK_RUNTIME_INFORMATION: return dec_runtime_info(d);
    case GCS_GCK_MODULE: return dec_module(d);
    case GCS_GCK_INCREASE_MEMORY_PRESSURE:
    case GCS_GCK_DECREASE_MEMORY_PRESSURE: return dec_memory_pressure(d);
    case GCS_GCK_MARK_WITH_TYPE: return dec_mark_with_type(d);
    case GCS_GCK_JOIN: return dec_join(d, is_private);
    case GCS_GCK_PER_HEAP_HISTORY: return dec_per_heap_history(d, is_private);
    case GCS_GCK_GLOBAL_HEAP_HISTORY: return dec_global_heap_history(d, is_private);
    case GCS_GCK_GEN_AWARE_BEGIN:
    case GCS_GCK_GEN_AWARE_END: return dec_gen_aware(d);
    case GCS_GCK_LOH_COMPACT: return dec_loh_compact(d);
    case GCS_GCK_FIT_BUCKET_INFO: return dec_fit_bucket(d);
    case GCS_GCK_DECISION: return dec_decision(d);
    case GCS_GCK_SETTINGS: return dec_settings(d);
    case GCS_GCK_OPTIMIZED: return dec_optimized(d);
    case GCS_GCK_BGC_BEGIN:
    case GCS_GCK_BGC_1ST_NONCON_END:
    case GCS_GCK_BGC_1ST_CON_END:
    case GCS_GCK_BGC_2ND_NONCON_BEGIN:
    case GCS_GCK_BGC_2ND_NONCON_END:
    case GCS_GCK_BGC_2ND_CON_BEGIN:
    case GCS_GCK_BGC_2ND_CON_END:
    case GCS_GCK_BGC_PLAN_END:
    case GCS_GCK_BGC_SWEEP_END: return dec_bgc_marker(d);
    case GCS_GCK_BGC_DRAIN_MARK: return dec_bgc_drain_mark(d);
    case GCS_GCK_BGC_REVISIT: return dec_bgc_revisit(d);
    case GCS_GCK_BGC_OVERFLOW: return dec_bgc_overflow(d);
    case GCS_GCK_BGC_ALLOC_WAIT_BEGIN:
    case GCS_GCK_BGC_ALLOC_WAIT_END: return dec_bgc_alloc_wait(d);
    case GCS_GCK_FULL_NOTIFY: return dec_full_notify(d);
    case GCS_GCK_BGC_1ST_SWEEP_END: return dec_bgc_1st_sweep_end(d);
    case GCS_GCK_PIN_PLUG_AT_GC_TIME: return dec_pin_plug(d);
    case GCS_GCK_SETTINGS_RUNDOWN: return dec_settings_rundown(d);
    case GCS_GCK_BULK_TYPE: return dec_bulk_type(d);
    case GCS_GCK_ALLOCATION_SAMPLED: return dec_allocation_sampled(d);
    case GCS_GCK_NONE:
    case GCS_GCK_COUNT: break;
    }
    return GCS_FAIL(d->err, GCS_ERR_ARG, 0, "not a GC event kind (%d)", (int)kind);
}

/* Private-provider ids among the kinds that both providers carry. */
static bool kind_is_private_for(const gcs_gc_kind kind, uint32_t event_id)
{
    switch (kind) {
    case GCS_GCK_MARK: return event_id >= 7 && event_id <= 10;
    case GCS_GCK_JOIN: return event_id == 6;
    case GCS_GCK_PER_HEAP_HISTORY: return event_id == 4;
    case GCS_GCK_GLOBAL_HEAP_HISTORY: return event_id == 5;
    case GCS_GCK_FINALIZE_OBJECT: return event_id == 192;
    default: return false;
    }
}

static gcs_status decode_common(gcs_gc_kind kind, uint32_t version, uint32_t event_id,
                                const uint8_t *payload, uint32_t payload_size,
                                uint32_t pointer_size, gcs_gc_record *out, gcs_error *err)
{
    memset(out, 0, sizeof *out);
    out->kind = kind;
    out->version = version;
    out->payload_size = payload_size;
    out->pointer_size = pointer_size == 4 ? 4 : 8;
    dec d;
    d.c = gcs_cur_make(payload ? payload : (const uint8_t *)"", payload ? payload_size : 0, 0);
    d.ps = out->pointer_size;
    d.version = version;
    d.err = err;
    d.r = out;
    return decode_kind(&d, kind, kind_is_private_for(kind, event_id), event_id);
}

gcs_status gcs_gc_decode(const gcs_event *ev, gcs_gc_kind kind, gcs_gc_record *out,
                         gcs_error *err)
{
    return decode_common(kind, ev->type->version, ev->type->event_id, ev->payload,
                         ev->payload_size, ev->pointer_size, out, err);
}

/* The event id is implied by the kind, except for the kinds with a public
 * and a private id: there the version tells (private GCJoin V0/V1,
 * private GlobalHeapHistory V0/V1, private PerHeapHistory V0-V2). */
gcs_status gcs_gc_decode_payload(gcs_gc_kind kind, uint32_t version, const uint8_t *payload,
                                 uint32_t payload_size, uint32_t pointer_size,
                                 gcs_gc_record *out, gcs_error *err)
{
    uint32_t id = 0;
    switch (kind) {
    case GCS_GCK_JOIN: id = version < 2 ? 6 : 203; break;
    case GCS_GCK_GLOBAL_HEAP_HISTORY: id = version < 2 ? 5 : 205; break;
    case GCS_GCK_PER_HEAP_HISTORY: id = version < 3 ? 4 : 204; break;
    case GCS_GCK_MARK: id = 25; break;
    case GCS_GCK_ALLOCATION_SAMPLED: id = EVENT_ID_ALLOCATION_SAMPLED; break;
    default: break;
    }
    return decode_common(kind, version, id, payload, payload_size, pointer_size, out, err);
}

/* ------------------------------------------------------------- accessors */

static bool elem(const gcs_gc_array *a, uint32_t i, gcs_cursor *c)
{
    if (!a->data || i >= a->count)
        return false;
    *c = gcs_cur_make(a->data + (size_t)i * a->stride, a->stride, 0);
    return true;
}

bool gcs_gc_moved_range_at(const gcs_gc_array *a, uint32_t i, gcs_gc_moved_range *out)
{
    gcs_cursor c;
    return elem(a, i, &c) && gcs_cur_ptr(&c, a->pointer_size, &out->old_base) &&
           gcs_cur_ptr(&c, a->pointer_size, &out->new_base) && gcs_cur_u64(&c, &out->length);
}

/* Elements from..from+max-1 of a (fewer at its end) whose first `need`
 * bytes hold the fields read: *p at the first; 0 when the elements are
 * shorter (the accessors read none either). The decoder checked that the
 * array's count elements of stride bytes lie in the payload, as elem()
 * relies on too. */
static size_t array_chunk(const gcs_gc_array *a, uint32_t from, size_t max, uint32_t need,
                          const uint8_t **p)
{
    if (!a->data || from >= a->count || a->stride < need)
        return 0;
    const size_t left = a->count - from;
    *p = a->data + (size_t)from * a->stride;
    return left < max ? left : max;
}

size_t gcs_gc_moved_ranges_read(const gcs_gc_array *a, uint32_t from, gcs_gc_moved_range *out,
                                size_t max)
{
    const uint8_t *p;
    const size_t stride = a->stride;
    if (a->pointer_size == 4) {
        const size_t n = array_chunk(a, from, max, 16, &p);
        for (size_t k = 0; k < n; k++, p += stride)
            out[k] = (gcs_gc_moved_range){gcs_load_le32(p), gcs_load_le32(p + 4),
                                          gcs_load_le64(p + 8)};
        return n;
    }
    const size_t n = array_chunk(a, from, max, 24, &p);
    for (size_t k = 0; k < n; k++, p += stride)
        out[k] = (gcs_gc_moved_range){gcs_load_le64(p), gcs_load_le64(p + 8), gcs_load_le64(p + 16)};
    return n;
}

size_t gcs_gc_surviving_ranges_read(const gcs_gc_array *a, uint32_t from,
                                    gcs_gc_surviving_range *out, size_t max)
{
    const uint8_t *p;
    const size_t stride = a->stride;
    if (a->pointer_size == 4) {
        const size_t n = array_chunk(a, from, max, 12, &p);
        for (size_t k = 0; k < n; k++, p += stride)
            out[k] = (gcs_gc_surviving_range){gcs_load_le32(p), gcs_load_le64(p + 4)};
        return n;
    }
    const size_t n = array_chunk(a, from, max, 16, &p);
    for (size_t k = 0; k < n; k++, p += stride)
        out[k] = (gcs_gc_surviving_range){gcs_load_le64(p), gcs_load_le64(p + 8)};
    return n;
}

void gcs_gc_bulk_type_begin(const gcs_gc_record *rec, gcs_gc_bulk_type_iter *it)
{
    assert(rec->kind == GCS_GCK_BULK_TYPE);
    const uint8_t *p = rec->u.bulk_type.values ? rec->u.bulk_type.values : (const uint8_t *)"";
    it->cur = gcs_cur_make(p, rec->u.bulk_type.values ? rec->u.bulk_type.values_size : 0, 0);
    it->left = rec->u.bulk_type.count;
}

bool gcs_gc_bulk_type_next(gcs_gc_bulk_type_iter *it, gcs_gc_bulk_type_entry *out)
{
    if (it->left == 0 || !bulk_type_entry(&it->cur, out))
        return false;
    it->left--;
    return true;
}

bool gcs_gc_surviving_range_at(const gcs_gc_array *a, uint32_t i, gcs_gc_surviving_range *out)
{
    gcs_cursor c;
    return elem(a, i, &c) && gcs_cur_ptr(&c, a->pointer_size, &out->base) &&
           gcs_cur_u64(&c, &out->length);
}

bool gcs_gc_bulk_node_at(const gcs_gc_array *a, uint32_t i, gcs_gc_bulk_node *out)
{
    gcs_cursor c;
    return elem(a, i, &c) && gcs_cur_ptr(&c, a->pointer_size, &out->address) &&
           gcs_cur_u64(&c, &out->size) && gcs_cur_u64(&c, &out->type_id) &&
           gcs_cur_u64(&c, &out->edge_count);
}

bool gcs_gc_bulk_edge_at(const gcs_gc_array *a, uint32_t i, gcs_gc_bulk_edge *out)
{
    gcs_cursor c;
    return elem(a, i, &c) && gcs_cur_ptr(&c, a->pointer_size, &out->value) &&
           gcs_cur_u32(&c, &out->referencing_field_id);
}

bool gcs_gc_root_edge_at(const gcs_gc_array *a, uint32_t i, gcs_gc_root_edge *out)
{
    gcs_cursor c;
    return elem(a, i, &c) && gcs_cur_ptr(&c, a->pointer_size, &out->rooted_node_address) &&
           gcs_cur_u8(&c, &out->root_kind) && gcs_cur_u32(&c, &out->root_flags) &&
           gcs_cur_ptr(&c, a->pointer_size, &out->root_id);
}

bool gcs_gc_cwt_edge_at(const gcs_gc_array *a, uint32_t i, gcs_gc_cwt_edge *out)
{
    gcs_cursor c;
    return elem(a, i, &c) && gcs_cur_ptr(&c, a->pointer_size, &out->key_node) &&
           gcs_cur_ptr(&c, a->pointer_size, &out->value_node) &&
           gcs_cur_ptr(&c, a->pointer_size, &out->root_id);
}

bool gcs_gc_loh_compact_at(const gcs_gc_array *a, uint32_t i, gcs_gc_loh_compact *out)
{
    gcs_cursor c;
    if (!elem(a, i, &c) || !gcs_cur_u32(&c, &out->time_plan) ||
        !gcs_cur_u32(&c, &out->time_compact) || !gcs_cur_u32(&c, &out->time_relocate))
        return false;
    if (a->pointer_size == 8 && !gcs_cur_skip(&c, 4)) /* alignment padding */
        return false;
    return gcs_cur_ptr(&c, a->pointer_size, &out->total_refs) &&
           gcs_cur_ptr(&c, a->pointer_size, &out->zero_refs);
}

bool gcs_gc_fit_bucket_at(const gcs_gc_array *a, uint32_t i, gcs_gc_fit_bucket *out)
{
    gcs_cursor c;
    uint32_t index_slot;
    if (!elem(a, i, &c) || !gcs_cur_u32(&c, &index_slot) || !gcs_cur_u32(&c, &out->count))
        return false;
    out->index = (uint16_t)(index_slot & 0xffff); /* UInt16 + padding */
    return gcs_cur_ptr(&c, a->pointer_size, &out->size);
}

bool gcs_gc_per_heap_gen(const gcs_gc_record *rec, uint32_t g, gcs_gc_gen_data *out)
{
    if (rec->kind != GCS_GCK_PER_HEAP_HISTORY || !rec->u.per_heap_history.gen_data ||
        g >= rec->u.per_heap_history.gen_count)
        return false;
    uint32_t ps = rec->pointer_size;
    const uint8_t *p = rec->u.per_heap_history.gen_data + (size_t)g * 10 * ps;
    uint64_t v[10];
    /* The decoder took gen_count records of 10 pointers: these bytes are
     * there. On a little-endian host they are the words already (a
     * cursor read a pointer cost ~19 instructions; a history has five
     * records, every GC one history a heap). */
    bool loaded = false;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    if (ps == 8) {
        memcpy(v, p, sizeof v);
        loaded = true;
    } else if (ps == 4) {
        uint32_t w[10];
        memcpy(w, p, sizeof w);
        for (int i = 0; i < 10; i++)
            v[i] = w[i];
        loaded = true;
    }
#endif
    if (!loaded) {
        gcs_cursor c = gcs_cur_make(p, 10 * (size_t)ps, 0);
        for (int i = 0; i < 10; i++)
            if (!gcs_cur_ptr(&c, ps, &v[i]))
                return false;
    }
    memset(out, 0, sizeof *out);
    out->size_before = v[0];
    switch (rec->u.per_heap_history.layout) {
    case 0: /* size_before, size_after, current, previous, frag, in, out, new_alloc, surv, growth */
        out->size_after = v[1];
        out->free_list_space_after = v[4]; /* fragmentation */
        out->in = v[5];
        out->out_legacy = v[6];
        out->new_allocation = v[7];
        out->surv_rate_legacy = v[8];
        break;
    case 2: /* ... in, out, new_alloc, surv */
        out->free_list_space_before = v[1];
        out->free_obj_space_before = v[2];
        out->size_after = v[3];
        out->free_list_space_after = v[4];
        out->free_obj_space_after = v[5];
        out->in = v[6];
        out->out_legacy = v[7];
        out->new_allocation = v[8];
        out->surv_rate_legacy = v[9];
        break;
    default:
        out->free_list_space_before = v[1];
        out->free_obj_space_before = v[2];
        out->size_after = v[3];
        out->free_list_space_after = v[4];
        out->free_obj_space_after = v[5];
        out->in = v[6];
        out->pinned_surv = v[7];
        out->npinned_surv = v[8];
        out->new_allocation = v[9];
        break;
    }
    return true;
}

int64_t gcs_gc_gen_obj_space_before(const gcs_gc_gen_data *g, uint32_t layout)
{
    if (layout == 0)
        return 0;
    return (int64_t)(g->size_before - g->free_list_space_before - g->free_obj_space_before);
}

int64_t gcs_gc_gen_fragmentation(const gcs_gc_gen_data *g, uint32_t layout)
{
    if (layout == 0)
        return (int64_t)g->free_list_space_after;
    return (int64_t)(g->free_list_space_after + g->free_obj_space_after);
}

int64_t gcs_gc_gen_obj_size_after(const gcs_gc_gen_data *g, uint32_t layout)
{
    /* Saturated: both are trace values, the difference may not fit. */
    return gcs_sat_sub_i64((int64_t)g->size_after, gcs_gc_gen_fragmentation(g, layout));
}

int64_t gcs_gc_gen_out(const gcs_gc_gen_data *g, uint32_t layout)
{
    if (layout < 3)
        return (int64_t)g->out_legacy;
    return (int64_t)(g->pinned_surv + g->npinned_surv);
}

int64_t gcs_gc_gen_budget(const gcs_gc_gen_data *g, uint32_t layout)
{
    (void)layout;
    return (int64_t)g->new_allocation;
}

int64_t gcs_gc_gen_surv_rate(const gcs_gc_gen_data *g, uint32_t layout)
{
    if (layout < 3)
        return (int64_t)g->surv_rate_legacy;
    int64_t before = gcs_gc_gen_obj_space_before(g, layout);
    if (before == 0)
        return 0;
    /* Saturated: a corrupt Out or ObjSpaceBefore gives a rate beyond int64. */
    return gcs_f64_to_i64_sat((double)gcs_gc_gen_out(g, layout) * 100.0 / (double)before);
}

bool gcs_gc_global_time_at(const gcs_gc_record *rec, uint32_t i, uint32_t *out)
{
    if (rec->kind != GCS_GCK_GLOBAL_HEAP_HISTORY || !rec->u.global_heap_history.times ||
        i >= rec->u.global_heap_history.time_count)
        return false;
    gcs_cursor c = gcs_cur_make(rec->u.global_heap_history.times + (size_t)i * 4, 4, 0);
    return gcs_cur_u32(&c, out);
}
