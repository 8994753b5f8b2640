/*
 * analysis/objects/object_analysis.c - object lifetimes by type from a
 * trace (gcs_objects_*): drives an object tracker from the runtime's GC
 * events and counts, per type, what became of the sampled objects.
 *
 * Event handling (details and rationale in docs/objects.md):
 *  - GC/Start opens a tracker GC (condemned = Depth) unless it is a
 *    background GC (the runtime reports no ranges for those); GC/End with
 *    the same Count applies it.
 *  - Bulk{Moved,Surviving}ObjectRanges feed the open GC.
 *  - GenerationRange events come in batches; a batch describes the heap at
 *    its time. A batch that arrives inside a GC after that GC's ranges
 *    describes the heap after the GC and is applied right after the GC;
 *    any other batch is applied when it ends (next other event).
 *  - AllocationTick V3+, SampledObjectAllocation and AllocationSampled
 *    (id 303) add tracked objects;
 *    PinObjectAtGCTime marks them pinned; BulkType names type ids.
 *  - A NativeAOT application names no type (its AllocationTick says
 *    "NULL"): with gcs_objects_set_symbols, the types left without a name
 *    are named from the executable's MethodTable symbols at the end
 *    (name_from_symbols: type id - the image's load address, which the
 *    module events give, or the type ids themselves when they are absent).
 *  - Every AllocationTick also counts for its type's estimated bytes
 *    (its AllocationAmount), tracked or not. A tracked object's tag is
 *    the index of its sample slot, which remembers its type and its
 *    tick's amount until it dies (the tracker's 32-byte record has no room).
 */
#include <assert.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/error.h"
#include "base/sat_math.h"
#include "decode/gc_events.h"
#include "gcscope/objects.h"
#include "gcscope/symbols.h"

#define MAX_TYPES ((size_t)1 << 20)          /* beyond: one "(other types)" row */
#define MAX_LIFETIMES ((size_t)1 << 24)      /* deaths kept for percentiles */
#define MAX_NAME_BYTES ((size_t)256 << 20)   /* arena for type names */
#define MAX_GENERATION_BATCH ((size_t)1 << 22) /* generation ranges in one batch */
#define LOH_THRESHOLD 85000u
#define TYPE_NAME_MAX 512 /* bytes of a type name kept (UTF-8, truncated) */
#define MAX_NATIVE_IMAGES 16 /* module events of native images remembered */
#define IMAGE_PAGE 4096u     /* images load at page boundaries */

/* A tracked sample: its type and the bytes its event stands for. Slots of
 * dead samples are reused (free list through `type`). */
typedef struct sample_slot {
    uint64_t amount; /* its tick's AllocationAmount; NO_AMOUNT: not a tick */
    uint32_t type;
    uint32_t unused;
} sample_slot;
#define NO_AMOUNT UINT64_MAX
#define NO_SLOT UINT32_MAX

/* The lifetimes of a type's dead samples, for the percentiles: two
 * parallel arrays (12 bytes a death, where a struct of both pads to 16). */
typedef struct type_entry {
    gcs_object_type_stats s;
    uint32_t *life_gcs; /* GCs from allocation to death */
    double *life_ms;    /* ms from allocation to death, >= +0 */
    size_t nl, cl_gcs, cl_ms;
    bool null_name;     /* its ticks name it NULL (a NativeAOT runtime's): no tick
                         * will name it, its name is not converted again */
} type_entry;

/* Open-addressing map: 64-bit key -> 32-bit value. Key 0 is "empty", so
 * callers map 0 to something else. */
typedef struct u64map {
    uint64_t *keys;
    uint32_t *vals;
    size_t cap, n;
} u64map;

struct gcs_objects {
    gcs_objtrack *tracker;
    /* Each event type is classified once (shared decoders' cache). */
    gcs_gc_kind_cache kinds;
    const gcs_event_type *last_type;
    gcs_gc_kind last_kind;
    const gcs_event_type *tap_type; /* the type gcs_objects_tap last found a GenerationRange */
    gcs_objects_summary sum;
    gcs_arena names;
    type_entry *types;
    size_t ntypes, ctypes;
    u64map by_type_id;   /* type id -> type index */
    u64map by_name_hash; /* FNV hash of name (for types without id) -> type index */
    u64map bulk_names;   /* type id -> index into bulk_name_list */
    const char **bulk_name_list;
    size_t nbulk, cbulk;
    size_t lifetimes_kept;
    sample_slot *slots; /* by tracked object's tag, when its user field is IN_SLOT */
    size_t nslots, cslots;
    uint32_t free_slot; /* first free slot, NO_SLOT if none */
    bool bad_amount_seen; /* TraceEvent's clamp is on from then on */
    /* GC state */
    bool gc_open;
    uint32_t gc_count;
    bool gc_got_ranges;
    bool gc_got_generation_ranges;
    uint32_t last_gc_begun;
    bool bgc_open;
    uint32_t bgc_count;
    /* The background GC's surviving ranges are coming (its sweep is open
     * in the tracker), to be applied at its end. */
    bool bgc_sweep_open;
    bool have_range_index;
    uint32_t next_range_index;
    /* generation range batch */
    gcs_generation_range *batch;
    size_t nbatch, cbatch;
    bool batch_open;
    bool batch_after_ranges; /* started inside a GC after its ranges */
    bool batch_deferred;     /* closed, waits for the GC's end */
    /* Native images (module events without an assembly): their load
     * addresses, for the symbols. */
    struct native_image {
        uint64_t base;
        char path[256];
        char build_id[132];
    } images[MAX_NATIVE_IMAGES];
    size_t nimages;
    const gcs_symbols *symbols;
    gcs_objects_symbols_info syms_info;
    /* results */
    bool finished;
    const gcs_object_type_stats **order; /* report order */
    size_t ntypes_reported;
    gcs_status callback_status;
    gcs_status tap_status; /* why a tapped event failed (gcs_objects_tap) */
};

/* ---- small helpers ------------------------------------------------------- */

static uint64_t mix64(uint64_t x)
{
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdull;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53ull;
    x ^= x >> 33;
    return x;
}

static bool map_grow(u64map *m)
{
    size_t ncap = m->cap ? m->cap * 2 : 256;
    uint64_t *k = calloc(ncap, sizeof *k);
    uint32_t *v = calloc(ncap, sizeof *v);
    if (!k || !v) {
        free(k);
        free(v);
        return false;
    }
    for (size_t i = 0; i < m->cap; i++) {
        if (!m->keys[i])
            continue;
        size_t h = (size_t)mix64(m->keys[i]) & (ncap - 1);
        while (k[h])
            h = (h + 1) & (ncap - 1);
        k[h] = m->keys[i];
        v[h] = m->vals[i];
    }
    free(m->keys);
    free(m->vals);
    m->keys = k;
    m->vals = v;
    m->cap = ncap;
    return true;
}

static bool map_get(const u64map *m, uint64_t key, uint32_t *val)
{
    if (!m->cap)
        return false;
    size_t h = (size_t)mix64(key) & (m->cap - 1);
    while (m->keys[h]) {
        if (m->keys[h] == key) {
            *val = m->vals[h];
            return true;
        }
        h = (h + 1) & (m->cap - 1);
    }
    return false;
}

static bool map_put(u64map *m, uint64_t key, uint32_t val)
{
    if ((m->n + 1) * 2 > m->cap && !map_grow(m))
        return false;
    size_t h = (size_t)mix64(key) & (m->cap - 1);
    while (m->keys[h] && m->keys[h] != key)
        h = (h + 1) & (m->cap - 1);
    if (!m->keys[h])
        m->n++;
    m->keys[h] = key;
    m->vals[h] = val;
    return true;
}

static void map_free(u64map *m)
{
    free(m->keys);
    free(m->vals);
}

static uint64_t name_hash(const char *s)
{
    uint64_t h = 1469598103934665603ull;
    for (; *s; s++)
        h = (h ^ (uint8_t)*s) * 1099511628211ull;
    return h ? h : 1;
}

/* sum + amount, stopping at UINT64_MAX: amounts come from the trace.
 * Each sum is counted once, when it stops, so that the count does not
 * depend on the order of the amounts (the survivors' pass reads them in
 * no set order). */
static uint64_t add_bytes(gcs_objects *a, uint64_t sum, uint64_t amount)
{
    if (amount > UINT64_MAX - sum) {
        a->sum.byte_sums_saturated += sum != UINT64_MAX;
        return UINT64_MAX;
    }
    return sum + amount;
}

/* The event's time in microseconds. A corrupt clock (a tiny or negative
 * frequency, a wild timestamp) puts msec far beyond int64 microseconds:
 * saturated, since llround's result is then unspecified. */
static int64_t event_us(const gcs_event *ev)
{
    return gcs_f64_to_i64_sat(round(ev->msec * 1000.0));
}

/* ---- types --------------------------------------------------------------- */

static gcs_status new_type(gcs_objects *a, uint64_t type_id, const char *name, uint32_t *index,
                           gcs_error *err)
{
    if (a->ntypes >= MAX_TYPES) {
        /* The last slot collects every further type. */
        *index = (uint32_t)(MAX_TYPES - 1);
        return GCS_OK;
    }
    if (!gcs_array_reserve((void **)&a->types, &a->ctypes, a->ntypes + 1, sizeof *a->types, 64))
        return GCS_FAIL(err, GCS_ERR_NOMEM, 0, "out of memory adding a type");
    type_entry *t = &a->types[a->ntypes];
    memset(t, 0, sizeof *t);
    const char *stored = "";
    if (a->ntypes == MAX_TYPES - 1)
        name = "(other types)", type_id = 0;
    if (name && *name) {
        stored = gcs_arena_strndup(&a->names, name, strlen(name));
        if (!stored)
            stored = "";
    }
    t->s.name = stored;
    t->s.type_id = type_id;
    *index = (uint32_t)a->ntypes++;
    return GCS_OK;
}

/* The type row for (type id, name): by id when there is one, else by name. */
static gcs_status type_index(gcs_objects *a, uint64_t type_id, const char *name,
                             uint32_t *index, gcs_error *err)
{
    u64map *m = type_id ? &a->by_type_id : &a->by_name_hash;
    uint64_t key = type_id ? type_id : name_hash(name ? name : "");
    uint32_t found = 0;
    if (map_get(m, key, &found)) {
        type_entry *t = &a->types[found];
        if (type_id && name && *name && !*t->s.name) {
            const char *stored = gcs_arena_strndup(&a->names, name, strlen(name));
            if (stored)
                t->s.name = stored;
        }
        *index = found;
        return GCS_OK;
    }
    gcs_status st = new_type(a, type_id, name, index, err);
    if (st != GCS_OK)
        return st;
    if (!map_put(m, key, *index))
        return GCS_FAIL(err, GCS_ERR_NOMEM, 0, "out of memory indexing types");
    return GCS_OK;
}

/* ---- deaths -------------------------------------------------------------- */

/*
 * What the analysis keeps of a sample: its type and its tick's amount.
 * In the tracked object itself where they fit (the type index in its
 * user field, the amount in its tag); else in a slot, whose index is the
 * tag (user IN_SLOT). A trace samples millions of objects: a table of
 * slots indexed at random took a cache miss at every death.
 */
#define IN_SLOT 0xFFFFu
#define TAG_NO_AMOUNT UINT32_MAX /* the tag of an object that is not a tick's */

typedef struct sample_of {
    uint32_t type;
    uint64_t amount; /* NO_AMOUNT: not a tick */
} sample_of;

static bool sample_get(const gcs_objects *a, const gcs_tracked_object *o, sample_of *out)
{
    if (o->user != IN_SLOT) {
        out->type = o->user;
        out->amount = o->tag == TAG_NO_AMOUNT ? NO_AMOUNT : o->tag;
        return o->user < a->ntypes;
    }
    if (o->tag >= a->nslots)
        return false;
    out->type = a->slots[o->tag].type;
    out->amount = a->slots[o->tag].amount;
    return true;
}

static void on_death(void *ctx, const gcs_tracked_object *o, gcs_death_kind kind,
                     uint32_t gc_number, int condemned, int64_t gc_time)
{
    gcs_objects *a = ctx;
    sample_of s_;
    if (!sample_get(a, o, &s_))
        return;
    type_entry *t = &a->types[s_.type];
    if (o->user == IN_SLOT) {
        /* The slot is free again (its contents stay readable until reused). */
        a->slots[o->tag].type = a->free_slot;
        a->free_slot = o->tag;
    }
    t->s.samples++;
    t->s.sample_bytes += o->size;
    if (!o->size)
        t->s.samples_without_size++;
    if (o->flags & GCS_OBJ_PINNED)
        t->s.pinned++;
    if (kind != GCS_DEATH_GC || condemned < 0 || condemned > 2) {
        t->s.died_unseen++;
        return;
    }
    t->s.died_in_gc[condemned]++;
    if (!t->s.first_death_gc || gc_number < t->s.first_death_gc)
        t->s.first_death_gc = gc_number;
    if (gc_number > t->s.last_death_gc)
        t->s.last_death_gc = gc_number;
    if (o->generation >= GCS_GEN2) {
        t->s.died_gen2++;
        t->s.died_gen2_bytes += o->size;
        if (!o->size)
            t->s.died_gen2_without_size++;
    }
    if (a->lifetimes_kept >= MAX_LIFETIMES) {
        a->sum.lifetimes_over_limit++;
        return;
    }
    if (!gcs_big_reserve_early((void **)&t->life_gcs, &t->cl_gcs, t->nl + 1,
                               sizeof *t->life_gcs, 64) ||
        !gcs_big_reserve_early((void **)&t->life_ms, &t->cl_ms, t->nl + 1, sizeof *t->life_ms,
                               64)) {
        a->callback_status = GCS_ERR_NOMEM;
        return;
    }
    t->life_gcs[t->nl] = gc_number >= o->alloc_gc ? gc_number - o->alloc_gc : 0;
    /* In double: times of a corrupt clock lie +-2^63 us apart. */
    double ms = ((double)gc_time - (double)o->alloc_time) / 1000.0;
    t->life_ms[t->nl] = ms < 0 ? 0 : ms;
    t->nl++;
    a->lifetimes_kept++;
}

/* ---- lifetime -------------------------------------------------------------- */

gcs_objects *gcs_objects_new(gcs_error *err)
{
    gcs_objects *a = calloc(1, sizeof *a);
    if (!a) {
        GCS_FAIL(err, GCS_ERR_NOMEM, 0, "out of memory creating the object analysis");
        return NULL;
    }
    gcs_objtrack_options o = {0};
    o.on_death = on_death;
    o.ctx = a;
    gcs_gc_kind_cache_init(&a->kinds);
    a->free_slot = NO_SLOT;
    a->tracker = gcs_objtrack_new(&o, err);
    if (!a->tracker) {
        free(a);
        return NULL;
    }
    gcs_arena_init(&a->names, MAX_NAME_BYTES);
    return a;
}

void gcs_objects_free(gcs_objects *a)
{
    if (!a)
        return;
    gcs_objtrack_free(a->tracker);
    for (size_t i = 0; i < a->ntypes; i++) {
        type_entry *t = &a->types[i];
        gcs_big_free(t->life_gcs, t->cl_gcs * sizeof *t->life_gcs);
        gcs_big_free(t->life_ms, t->cl_ms * sizeof *t->life_ms);
    }
    free(a->types);
    free(a->slots);
    map_free(&a->by_type_id);
    map_free(&a->by_name_hash);
    map_free(&a->bulk_names);
    free(a->bulk_name_list);
    free(a->batch);
    free(a->order);
    gcs_arena_reset(&a->names);
    free(a);
}

/* ---- generation range batches --------------------------------------------- */

static gcs_status apply_batch(gcs_objects *a, gcs_error *err)
{
    gcs_status st = GCS_OK;
    if (a->nbatch)
        st = gcs_objtrack_set_generation_ranges(a->tracker, a->batch, a->nbatch, err);
    a->nbatch = 0;
    a->batch_open = false;
    a->batch_deferred = false;
    return st;
}

/* Any event but GenerationRange ends a batch. */
static gcs_status close_batch(gcs_objects *a, gcs_error *err)
{
    if (!a->batch_open)
        return GCS_OK;
    a->batch_open = false;
    if (a->batch_after_ranges && (a->gc_open || a->bgc_sweep_open)) {
        a->batch_deferred = true;
        return GCS_OK;
    }
    return apply_batch(a, err);
}

/* ---- GCs ------------------------------------------------------------------ */

static gcs_status end_open_gc(gcs_objects *a, gcs_error *err)
{
    gcs_status st = gcs_objtrack_end_gc(a->tracker, err);
    if (st != GCS_OK)
        return st;
    a->gc_open = false;
    if (a->gc_got_ranges) {
        a->sum.gcs_with_ranges++;
        if (!a->gc_got_generation_ranges)
            a->sum.gcs_without_generation_ranges++;
    } else {
        a->sum.gcs_without_ranges++;
    }
    if (a->batch_deferred)
        return apply_batch(a, err);
    return GCS_OK;
}

/* Applies the background GC's sweep (its surviving ranges came), then
 * the generation layout that waited for it. */
static gcs_status end_bgc_sweep(gcs_objects *a, gcs_error *err)
{
    gcs_status st = gcs_objtrack_end_gc(a->tracker, err);
    if (st != GCS_OK)
        return st;
    a->bgc_sweep_open = false;
    a->sum.background_gcs_with_ranges++;
    if (a->batch_deferred)
        return apply_batch(a, err);
    return GCS_OK;
}

static gcs_status on_gc_start(gcs_objects *a, const gcs_event *ev, const gcs_gc_record *rec,
                              gcs_error *err)
{
    if (!rec) {
        a->sum.short_payloads++;
        return GCS_OK;
    }
    /* has_depth_type false: the V0 layout (no condemned generation, no type). */
    uint32_t count = rec->u.start.count, depth = rec->u.start.depth;
    bool has_depth_type = rec->u.start.has_depth_type;
    a->sum.gcs++;
    if (a->bgc_sweep_open) {
        /* The runtime reports a background GC's survivors with the
         * execution engine suspended, at its very end: complete before any
         * later GC. */
        gcs_status st = end_bgc_sweep(a, err);
        if (st != GCS_OK)
            return st;
    }
    a->last_gc_begun = count; /* GC numbers count every GC, background ones too */
    if (has_depth_type && rec->u.start.type == 1) {
        a->sum.background_gcs++;
        a->bgc_open = true;
        a->bgc_count = count;
        return GCS_OK;
    }
    if (a->gc_open) {
        a->sum.nested_gc_starts++;
        gcs_objtrack_abort_gc(a->tracker);
        a->gc_open = false;
        if (a->batch_deferred) {
            a->nbatch = 0;
            a->batch_deferred = false;
        }
    }
    if (!has_depth_type || depth > 2) {
        a->sum.gcs_without_depth++;
        return GCS_OK;
    }
    gcs_status st = gcs_objtrack_begin_gc(a->tracker, count, (int)depth, event_us(ev), err);
    if (st != GCS_OK)
        return st;
    a->gc_open = true;
    a->gc_count = count;
    a->gc_got_ranges = false;
    a->gc_got_generation_ranges = false;
    a->have_range_index = false;
    return GCS_OK;
}

static gcs_status on_gc_end(gcs_objects *a, const gcs_gc_record *rec, gcs_error *err)
{
    if (!rec) {
        a->sum.short_payloads++;
        return GCS_OK;
    }
    uint32_t count = rec->u.end.count;
    if (a->gc_open && count == a->gc_count)
        return end_open_gc(a, err);
    if (a->bgc_open && count == a->bgc_count) {
        a->bgc_open = false;
        return a->bgc_sweep_open ? end_bgc_sweep(a, err) : GCS_OK;
    }
    a->sum.gc_end_without_start++;
    return GCS_OK;
}

#define RANGE_CHUNK 256

/* rec: the decoded event, or NULL when its header was short. A Count
 * larger than the payload is counted as a short payload and the whole
 * ranges present are used. */
static gcs_status on_ranges(gcs_objects *a, const gcs_event *ev, const gcs_gc_record *rec,
                            bool moved, gcs_error *err)
{
    a->sum.range_events++;
    a->sum.movement_seen = true;
    if (!rec) {
        a->sum.short_payloads++;
        return GCS_OK;
    }
    if (rec->u.bulk.values_truncated)
        a->sum.short_payloads++;
    uint32_t index = rec->u.bulk.index;
    if (!a->gc_open && a->bgc_open && !a->bgc_sweep_open) {
        /* No foreground GC open during a background GC: its survivors,
         * which the runtime reports at its end (after its sweep, the
         * execution engine suspended). */
        gcs_status st = gcs_objtrack_begin_background_gc(a->tracker, a->bgc_count, event_us(ev),
                                                         err);
        if (st != GCS_OK)
            return st;
        a->bgc_sweep_open = true;
        a->have_range_index = false;
    }
    const gcs_gc_array *values = &rec->u.bulk.values;
    if (!a->gc_open && !a->bgc_sweep_open) {
        /* No GC open at all: the tracker would only count them, so they
         * are not read. The decoder sized the array to whole elements, so
         * count is what reading them would find. */
        a->sum.range_events_outside_gc++;
        gcs_objtrack_count_ranges_outside_gc(a->tracker, moved, values->data ? values->count : 0);
        return GCS_OK;
    }
    if (a->have_range_index && index != a->next_range_index && index != 0)
        a->sum.range_index_gaps++;
    a->have_range_index = true;
    a->next_range_index = index + 1;
    if (a->gc_open)
        a->gc_got_ranges = true;
    /* A chunk at a time: read in one call, then handed to the tracker. */
    for (uint32_t i = 0;;) {
        size_t n;
        gcs_status st;
        if (moved) {
            gcs_gc_moved_range m[RANGE_CHUNK];
            gcs_moved_range mr[RANGE_CHUNK];
            n = gcs_gc_moved_ranges_read(values, i, m, RANGE_CHUNK);
            for (size_t k = 0; k < n; k++)
                mr[k] = (gcs_moved_range){m[k].old_base, m[k].new_base, m[k].length};
            st = n ? gcs_objtrack_add_moved(a->tracker, mr, n, err) : GCS_OK;
        } else {
            gcs_gc_surviving_range r[RANGE_CHUNK];
            gcs_surviving_range sr[RANGE_CHUNK];
            n = gcs_gc_surviving_ranges_read(values, i, r, RANGE_CHUNK);
            for (size_t k = 0; k < n; k++)
                sr[k] = (gcs_surviving_range){r[k].base, r[k].length};
            st = n ? gcs_objtrack_add_surviving(a->tracker, sr, n, err) : GCS_OK;
        }
        if (st != GCS_OK)
            return st;
        if (n < RANGE_CHUNK)
            return GCS_OK;
        i += RANGE_CHUNK;
    }
}

static gcs_status on_generation_range(gcs_objects *a, const gcs_gc_record *rec, gcs_error *err)
{
    a->sum.generation_range_events++;
    if (!rec) {
        a->sum.short_payloads++;
        return GCS_OK;
    }
    if (!a->batch_open) {
        if (a->batch_deferred) {
            /* A new batch while one waits for the GC's end: the newer wins. */
            a->nbatch = 0;
            a->batch_deferred = false;
        }
        a->batch_open = true;
        a->batch_after_ranges = (a->gc_open && a->gc_got_ranges) || a->bgc_sweep_open;
    }
    if (a->gc_open)
        a->gc_got_generation_ranges = true;
    if (a->nbatch >= MAX_GENERATION_BATCH)
        return GCS_OK;
    if (a->nbatch == a->cbatch && /* (the call only to grow: hundreds of ranges a GC) */
        !gcs_array_reserve((void **)&a->batch, &a->cbatch, a->nbatch + 1, sizeof *a->batch, 64))
        return GCS_FAIL(err, GCS_ERR_NOMEM, 0, "out of memory storing generation ranges");
    gcs_generation_range *r = &a->batch[a->nbatch++];
    r->generation = rec->u.generation_range.generation;
    r->start = rec->u.generation_range.range_start;
    r->used_length = rec->u.generation_range.range_used_length;
    r->reserved_length = rec->u.generation_range.range_reserved_length;
    return GCS_OK;
}

/* ---- allocations ------------------------------------------------------------- */

/* A slot for a new sample, NO_SLOT when out of memory or past 2^32-1. */
static uint32_t new_slot(gcs_objects *a, uint32_t ti, uint64_t amount)
{
    uint32_t i = a->free_slot;
    if (i != NO_SLOT) {
        a->free_slot = a->slots[i].type;
    } else {
        if (a->nslots >= NO_SLOT ||
            !gcs_array_reserve((void **)&a->slots, &a->cslots, a->nslots + 1, sizeof *a->slots,
                               1024))
            return NO_SLOT;
        i = (uint32_t)a->nslots++;
    }
    a->slots[i].type = ti;
    a->slots[i].amount = amount;
    return i;
}

/* size 0: the event gave none. amount: the tick's AllocationAmount
 * (NO_AMOUNT: not a tick). */
static gcs_status track(gcs_objects *a, const gcs_event *ev, uint64_t address, uint64_t size,
                        uint8_t generation, uint32_t ti, uint64_t amount, gcs_error *err)
{
    gcs_tracked_object o = {0};
    if (ti < IN_SLOT && (amount == NO_AMOUNT || amount < TAG_NO_AMOUNT)) {
        o.user = (uint16_t)ti;
        o.tag = amount == NO_AMOUNT ? TAG_NO_AMOUNT : (uint32_t)amount;
    } else {
        uint32_t slot = new_slot(a, ti, amount);
        if (slot == NO_SLOT)
            return GCS_FAIL(err, GCS_ERR_NOMEM, 0, "out of memory adding a sample");
        o.user = IN_SLOT;
        o.tag = slot;
    }
    o.address = address;
    o.alloc_time = event_us(ev);
    o.size = size > UINT32_MAX ? UINT32_MAX : (uint32_t)size;
    o.alloc_gc = a->last_gc_begun;
    o.generation = generation;
    gcs_status st = gcs_objtrack_add(a->tracker, &o, err);
    if (st != GCS_OK && o.user == IN_SLOT) {
        a->slots[o.tag].type = a->free_slot; /* not tracked: give the slot back */
        a->free_slot = o.tag;
    }
    if (st == GCS_ERR_LIMIT)
        return GCS_OK; /* counted by the tracker */
    return st;
}

/* The bytes an AllocationTick stands for, read as TraceEvent's
 * GCAllocationTickTraceData.GetAllocAmount does for PerfView's views:
 * AllocationAmount64 (V2+), or AllocationAmount when that is 0, both
 * signed; once one is negative, every amount from then on is clamped to
 * 90 KB..110 KB (small) or 90 KB..2 MB (large, pinned). */
static uint64_t tick_amount(gcs_objects *a, const gcs_gc_record *rec)
{
    /* Two's complement by hand: converting an unsigned value past the
     * signed range is implementation-defined in C. */
    uint64_t a64 = rec->version >= 2 ? rec->u.allocation_tick.allocation_amount64 : 0;
    uint32_t a32 = rec->u.allocation_tick.allocation_amount;
    int64_t amount = a64 <= INT64_MAX ? (int64_t)a64 : -(int64_t)(UINT64_MAX - a64) - 1;
    if (amount == 0)
        amount = a32 <= INT32_MAX ? (int64_t)a32 : (int64_t)a32 - ((int64_t)1 << 32);
    if (amount < 0) {
        a->sum.bad_allocation_amounts++;
        a->bad_amount_seen = true;
    }
    if (a->bad_amount_seen) {
        int64_t lo = 90 * 1024;
        int64_t hi = rec->u.allocation_tick.allocation_kind == 0 ? 110 * 1024 : 2 * 1024 * 1024;
        int64_t clamped = amount < lo ? lo : amount > hi ? hi : amount;
        if (clamped != amount)
            a->sum.allocation_amounts_clamped++;
        amount = clamped;
    }
    return (uint64_t)amount;
}

/* AllocationTick (V3+ has the address, V4+ the size) and AllocationSampled
 * (always both). rec is NULL when the payload was short. */
static gcs_status on_allocation_tick(gcs_objects *a, const gcs_event *ev,
                                     const gcs_gc_record *rec, bool sampled, gcs_error *err)
{
    if (sampled)
        a->sum.allocations_sampled++;
    else
        a->sum.allocation_ticks++;
    if (!rec) {
        a->sum.short_payloads++;
        return GCS_OK;
    }
    uint32_t kind;
    uint64_t address, size, type_id, amount = NO_AMOUNT;
    gcs_gc_utf16 type_name;
    if (sampled) {
        kind = rec->u.allocation_sampled.allocation_kind;
        address = rec->u.allocation_sampled.address;
        size = rec->u.allocation_sampled.object_size;
        type_id = rec->u.allocation_sampled.type_id;
        type_name = rec->u.allocation_sampled.type_name;
    } else {
        kind = rec->u.allocation_tick.allocation_kind;
        address = rec->version >= 3 ? rec->u.allocation_tick.address : 0;
        size = rec->version >= 4 ? rec->u.allocation_tick.object_size : 0;
        type_id = rec->u.allocation_tick.type_id;
        type_name = rec->u.allocation_tick.type_name;
        amount = tick_amount(a, rec);
    }
    /* A type id already named keeps its first name (type_index): its
     * name is converted once, not at every allocation. */
    uint32_t ti = 0;
    if (!type_id || !map_get(&a->by_type_id, type_id, &ti) ||
        (!*a->types[ti].s.name && !a->types[ti].null_name)) {
        char name[TYPE_NAME_MAX];
        gcs_gc_utf16_to_utf8(type_name, name, sizeof name);
        /* NativeAOT's runtime writes the text NULL where CoreCLR writes
         * the type's name: no name. */
        bool null_name = strcmp(name, "NULL") == 0;
        if (null_name)
            name[0] = 0;
        gcs_status st = type_index(a, type_id, name, &ti, err);
        if (st != GCS_OK)
            return st;
        if (null_name && !*a->types[ti].s.name)
            a->types[ti].null_name = true;
    }
    a->sum.null_type_names += a->types[ti].null_name;
    if (!sampled) {
        gcs_object_type_stats *s = &a->types[ti].s;
        s->allocation_ticks++;
        s->estimated_bytes = add_bytes(a, s->estimated_bytes, amount);
    }
    if (address == 0) {
        a->sum.ticks_without_address++;
        return GCS_OK;
    }
    if (!sampled)
        a->sum.ticks_with_address++;
    uint8_t gen = kind == 1 ? GCS_GEN_LOH : kind == 2 ? GCS_GEN_POH : GCS_GEN0;
    return track(a, ev, address, size, gen, ti, amount, err);
}

static gcs_status on_sampled_alloc(gcs_objects *a, const gcs_event *ev,
                                   const gcs_gc_record *rec, gcs_error *err)
{
    a->sum.sampled_allocations++;
    if (!rec) {
        a->sum.short_payloads++;
        return GCS_OK;
    }
    uint64_t address = rec->u.sampled_allocation.address;
    uint32_t count = rec->u.sampled_allocation.object_count_for_type_sample;
    uint64_t total = rec->u.sampled_allocation.total_size_for_type_sample;
    if (address == 0)
        return GCS_OK;
    uint32_t ti = 0;
    gcs_status st = type_index(a, rec->u.sampled_allocation.type_id, NULL, &ti, err);
    if (st != GCS_OK)
        return st;
    uint64_t size = count ? total / count : 0;
    uint8_t gen = size >= LOH_THRESHOLD ? GCS_GEN_LOH : GCS_GEN0;
    return track(a, ev, address, size, gen, ti, NO_AMOUNT, err);
}

/* rec is NULL when the header was short; entries present before a short
 * end are used, and the short end counted. */
static gcs_status on_bulk_type(gcs_objects *a, const gcs_gc_record *rec, gcs_error *err)
{
    if (!rec) {
        a->sum.short_payloads++;
        return GCS_OK;
    }
    gcs_gc_bulk_type_iter it;
    gcs_gc_bulk_type_begin(rec, &it);
    gcs_gc_bulk_type_entry e;
    char name[TYPE_NAME_MAX];
    while (gcs_gc_bulk_type_next(&it, &e)) {
        uint64_t id = e.type_id;
        gcs_gc_utf16_to_utf8(e.name, name, sizeof name);
        a->sum.bulk_type_entries++;
        uint32_t have;
        if (!id || map_get(&a->bulk_names, id, &have))
            continue;
        const char *stored = gcs_arena_strndup(&a->names, name, strlen(name));
        if (!stored)
            continue;
        if (!gcs_array_reserve((void **)&a->bulk_name_list, &a->cbulk, a->nbulk + 1,
                               sizeof *a->bulk_name_list, 64) ||
            !map_put(&a->bulk_names, id, (uint32_t)a->nbulk))
            return GCS_FAIL(err, GCS_ERR_NOMEM, 0, "out of memory storing type names");
        a->bulk_name_list[a->nbulk++] = stored;
    }
    if (rec->u.bulk_type.values_truncated)
        a->sum.short_payloads++;
    return GCS_OK;
}

static void on_pin(gcs_objects *a, const gcs_gc_record *rec)
{
    a->sum.pin_events++;
    if (!rec) {
        a->sum.short_payloads++;
        return;
    }
    gcs_tracked_object *o = gcs_objtrack_find(a->tracker, rec->u.pin_object.object_id);
    if (o) {
        o->flags |= GCS_OBJ_PINNED;
        a->sum.pins_of_tracked++;
    }
}

/* A module event: native images (no assembly: NativeAOT's executable)
 * are remembered by load address, with their path and build ID. */
static bool on_module(gcs_objects *a, const gcs_event *ev, const gcs_gc_record *rec)
{
    if (rec->u.module.assembly_id != 0 || rec->u.module.module_id == 0)
        return false; /* a managed module (CoreCLR's): nothing to name */
    struct native_image *im = NULL;
    for (size_t i = 0; i < a->nimages && !im; i++)
        if (a->images[i].base == rec->u.module.module_id)
            im = &a->images[i];
    if (!im) {
        if (a->nimages == MAX_NATIVE_IMAGES)
            return false;
        im = &a->images[a->nimages++];
        im->base = rec->u.module.module_id;
    }
    if (!im->build_id[0])
        gcs_gc_utf16_to_utf8(rec->u.module.native_build_id, im->build_id, sizeof im->build_id);
    /* The path from ModuleLoad/Unload only: a NativeAOT rundown writes a
     * few more characters after it (seen: .NET 10's ModuleDCStop). */
    bool rundown = ev->type && ev->type->provider && strstr(ev->type->provider, "Rundown");
    if (!im->path[0] && !rundown)
        gcs_gc_utf16_to_utf8(rec->u.module.native_path, im->path, sizeof im->path);
    return true;
}

/* The GC event kinds this analysis handles. */
static bool uses_kind(gcs_gc_kind kind)
{
    switch (kind) {
    case GCS_GCK_MODULE:
    case GCS_GCK_START: case GCS_GCK_END: case GCS_GCK_ALLOCATION_TICK:
    case GCS_GCK_ALLOCATION_SAMPLED: case GCS_GCK_BULK_TYPE:
    case GCS_GCK_SAMPLED_OBJECT_ALLOCATION: case GCS_GCK_BULK_SURVIVING_OBJECT_RANGES:
    case GCS_GCK_BULK_MOVED_OBJECT_RANGES: case GCS_GCK_GENERATION_RANGE:
    case GCS_GCK_PIN_OBJECT_AT_GC_TIME:
        return true;
    default:
        return false;
    }
}

bool gcs_objects_wants(void *ctx, const gcs_event_type *type)
{
    (void)ctx;
    return uses_kind(gcs_gc_classify(type));
}

/* An event fed or tapped, at msec: counted, the trace's end moved. */
static inline void count_seen(gcs_objects *a, double msec)
{
    a->sum.events_seen++;
    if (msec > a->sum.trace_end_ms)
        a->sum.trace_end_ms = msec;
}

bool gcs_objects_taps(void *ctx, const gcs_event_type *type)
{
    (void)ctx;
    return gcs_gc_classify(type) == GCS_GCK_GENERATION_RANGE;
}

/*
 * A tapped GenerationRange's record as gcs_gc_decode gives it, from the
 * head; false when the whole payload is shorter than the event's fields
 * (the decoder's short payload). RangeReservedLength ends at byte 25 with
 * 8-byte pointers, past the head: 0 then (nothing reads it).
 */
static bool generation_range_of_tap(const gcs_tap_event *ev, gcs_gc_record *rec)
{
    const uint32_t ps = ev->pointer_size == 4 ? 4 : 8; /* as the decoder takes it */
    /* Generation, RangeStart, RangeUsedLength, RangeReservedLength, ClrInstanceID */
    if (ev->payload_size < 1 + ps + 8 + 8 + 2)
        return false;
    /* (only the fields on_generation_range reads: the record is large) */
    rec->u.generation_range.range_reserved_length = 0;
    gcs_cursor c = gcs_cur_make(ev->head, ev->head_size, 0);
    uint8_t generation;
    if (!gcs_cur_u8(&c, &generation) || !gcs_cur_ptr(&c, ps, &rec->u.generation_range.range_start) ||
        !gcs_cur_u64(&c, &rec->u.generation_range.range_used_length))
        return false; /* (a head holds them: GCS_TAP_HEAD_BYTES) */
    rec->u.generation_range.generation = generation;
    (void)gcs_cur_u64(&c, &rec->u.generation_range.range_reserved_length);
    return true;
}

void gcs_objects_tap(void *ctx, const gcs_tap_event *ev)
{
    gcs_objects *a = ctx;
    assert(!a->finished);
    if (a->tap_status != GCS_OK)
        return;
    /* What gcs_objects_feed does for a GenerationRange (which closes no
     * batch). */
    count_seen(a, ev->msec);
    if (ev->type != a->tap_type) {
        if (gcs_gc_kind_cached(&a->kinds, ev->type) != GCS_GCK_GENERATION_RANGE)
            return; /* not one of gcs_objects_taps' */
        a->tap_type = ev->type;
    }
    a->sum.events_used++;
    gcs_gc_record rec;
    gcs_error err;
    a->tap_status = on_generation_range(a, generation_range_of_tap(ev, &rec) ? &rec : NULL, &err);
}

gcs_status gcs_objects_status(const gcs_objects *a)
{
    return a->tap_status;
}

/* The events that bring an object to follow (and count for its type). */
static bool is_allocation(gcs_gc_kind kind)
{
    return kind == GCS_GCK_ALLOCATION_TICK || kind == GCS_GCK_ALLOCATION_SAMPLED ||
           kind == GCS_GCK_SAMPLED_OBJECT_ALLOCATION;
}

static bool in_time_range(const gcs_objects *a, double ms)
{
    return (!a->sum.has_from || ms >= a->sum.from_ms) && (!a->sum.has_to || ms < a->sum.to_ms);
}

void gcs_objects_set_time_range(gcs_objects *a, bool has_from, double from_ms, bool has_to,
                                double to_ms)
{
    assert(a->sum.events_seen == 0);
    a->sum.has_from = has_from;
    a->sum.from_ms = has_from ? from_ms : 0;
    a->sum.has_to = has_to;
    a->sum.to_ms = has_to ? to_ms : 0;
}

/* A tapped event's failure, for the next feed or the finish. */
static gcs_status tap_failure(const gcs_objects *a, gcs_error *err)
{
    return GCS_FAIL(err, a->tap_status, 0, "out of memory storing generation ranges");
}

gcs_status gcs_objects_feed(gcs_objects *a, const gcs_event *ev, gcs_error *err)
{
    assert(!a->finished);
    if (a->tap_status != GCS_OK)
        return tap_failure(a, err);
    count_seen(a, ev->msec);
    gcs_gc_kind kind;
    if (ev->type == a->last_type) {
        kind = a->last_kind; /* consecutive events often share a type */
    } else {
        kind = gcs_gc_kind_cached(&a->kinds, ev->type);
        a->last_type = ev->type;
        a->last_kind = kind;
    }
    if (!uses_kind(kind))
        return GCS_OK;
    if (kind == GCS_GCK_MODULE) {
        /* Not a GC event: no batch closes; used when it names a native image. */
        gcs_gc_record mrec;
        if (gcs_gc_decode(ev, kind, &mrec, NULL) != GCS_OK)
            a->sum.short_payloads++;
        else if (on_module(a, ev, &mrec))
            a->sum.events_used++;
        return GCS_OK;
    }
    a->sum.events_used++;
    gcs_status st = GCS_OK;
    if (kind != GCS_GCK_GENERATION_RANGE) {
        st = close_batch(a, err);
        if (st != GCS_OK)
            return st;
    }
    if (is_allocation(kind) && !in_time_range(a, ev->msec)) {
        a->sum.allocations_outside_range++;
        return GCS_OK;
    }
    /* Decode through the shared typed decoders; a short payload gives a
     * NULL record to the handler (which counts it), except for the bulk
     * events whose whole elements present stay usable. */
    gcs_gc_record rec;
    const gcs_gc_record *r = &rec;
    gcs_status dst = gcs_gc_decode(ev, kind, &rec, NULL);
    if (dst != GCS_OK) {
        bool partial = (kind == GCS_GCK_BULK_MOVED_OBJECT_RANGES ||
                        kind == GCS_GCK_BULK_SURVIVING_OBJECT_RANGES)
                           ? rec.u.bulk.values_truncated
                       : kind == GCS_GCK_BULK_TYPE ? rec.u.bulk_type.values_truncated
                                                   : false;
        if (!partial)
            r = NULL;
    }
    switch (kind) {
    case GCS_GCK_START: st = on_gc_start(a, ev, r, err); break;
    case GCS_GCK_END: st = on_gc_end(a, r, err); break;
    case GCS_GCK_ALLOCATION_TICK: st = on_allocation_tick(a, ev, r, false, err); break;
    case GCS_GCK_ALLOCATION_SAMPLED: st = on_allocation_tick(a, ev, r, true, err); break;
    case GCS_GCK_BULK_TYPE: st = on_bulk_type(a, r, err); break;
    case GCS_GCK_SAMPLED_OBJECT_ALLOCATION: st = on_sampled_alloc(a, ev, r, err); break;
    case GCS_GCK_BULK_SURVIVING_OBJECT_RANGES: st = on_ranges(a, ev, r, false, err); break;
    case GCS_GCK_BULK_MOVED_OBJECT_RANGES: st = on_ranges(a, ev, r, true, err); break;
    case GCS_GCK_GENERATION_RANGE: st = on_generation_range(a, r, err); break;
    case GCS_GCK_PIN_OBJECT_AT_GC_TIME: on_pin(a, r); break;
    default: assert(!"kind not used by the object analysis"); break;
    }
    if (st == GCS_OK && a->callback_status != GCS_OK)
        st = GCS_FAIL(err, a->callback_status, 0, "out of memory recording lifetimes");
    return st;
}

/* ---- results ------------------------------------------------------------------ */

/* Nearest rank: the smallest value with at least p% of values <= it. */
static size_t rank(size_t n, unsigned p)
{
    size_t r = (n * p + 99) / 100;
    return r ? r - 1 : 0;
}

/* select_TYPE(v, n, k): the value a sort of v[0..n) would put at index k
 * (k < n), found by three-way quickselect in O(n) on average. v is
 * reordered so that v[0..k] <= v[k] <= v[k+1..n), which lets a smaller
 * rank be selected next within v[0..k]. Duplicates (most lifetimes are 0
 * or 1 GC) end up in the middle part at once. Against a hostile order
 * that keeps hitting bad pivots, the range left after 64 rounds is
 * sorted. The values are never NaN, so < and > order them totally. */
#define DEFINE_SELECT(T)                                                                \
    static int cmp_##T(const void *pa, const void *pb)                                  \
    {                                                                                   \
        T x = *(const T *)pa, y = *(const T *)pb;                                       \
        return (x > y) - (x < y);                                                       \
    }                                                                                   \
    static T select_##T(T *v, size_t n, size_t k)                                       \
    {                                                                                   \
        size_t lo = 0, hi = n;                                                          \
        for (int round = 0; hi - lo > 1; round++) {                                     \
            if (round == 64) {                                                          \
                qsort(v + lo, hi - lo, sizeof *v, cmp_##T);                             \
                break;                                                                  \
            }                                                                           \
            T x = v[lo], y = v[lo + (hi - lo) / 2], z = v[hi - 1];                      \
            T pivot = x < y ? (y < z ? y : x < z ? z : x) : (x < z ? x : y < z ? z : y); \
            size_t lt = lo, i = lo, gt = hi;                                            \
            while (i < gt) {                                                            \
                T e = v[i];                                                             \
                if (e < pivot) {                                                        \
                    v[i++] = v[lt];                                                     \
                    v[lt++] = e;                                                        \
                } else if (e > pivot) {                                                 \
                    v[i] = v[--gt];                                                     \
                    v[gt] = e;                                                          \
                } else {                                                                \
                    i++;                                                                \
                }                                                                       \
            }                                                                           \
            if (k < lt)                                                                 \
                hi = lt;                                                                \
            else if (k >= gt)                                                           \
                lo = gt;                                                                \
            else                                                                        \
                return pivot;                                                           \
        }                                                                               \
        return v[k];                                                                    \
    }                                                                                   \
    /* out: p50, p90, p99, max of v[0..n), n > 0; the largest rank first so */         \
    /* each next one searches only the part below it. */                                \
    static void percentiles_##T(T *v, size_t n, T out[4])                               \
    {                                                                                   \
        size_t r99 = rank(n, 99), r90 = rank(n, 90), r50 = rank(n, 50);                 \
        out[2] = select_##T(v, n, r99);                                                 \
        out[1] = select_##T(v, r99 + 1, r90);                                           \
        out[0] = select_##T(v, r90 + 1, r50);                                           \
        out[3] = out[2];                                                                \
        for (size_t i = r99 + 1; i < n; i++)                                            \
            if (v[i] > out[3])                                                          \
                out[3] = v[i];                                                          \
    }

typedef double f64;
DEFINE_SELECT(uint32_t)
DEFINE_SELECT(f64)

/* Percentiles by selection, not a sort: the same nearest-rank values
 * (a value at rank k is the same whichever of equal values lands there). */
static void summarize_lifetimes(type_entry *t)
{
    gcs_lifetime_summary *s = &t->s.lifetime;
    s->count = t->nl;
    if (!t->nl)
        return;
    uint32_t g[4];
    f64 ms[4];
    percentiles_uint32_t(t->life_gcs, t->nl, g);
    percentiles_f64(t->life_ms, t->nl, ms);
    s->gcs_p50 = g[0], s->gcs_p90 = g[1], s->gcs_p99 = g[2], s->gcs_max = g[3];
    s->ms_p50 = ms[0], s->ms_p90 = ms[1], s->ms_p99 = ms[2], s->ms_max = ms[3];
}

static int cmp_type_order(const void *pa, const void *pb)
{
    const gcs_object_type_stats *a = *(const gcs_object_type_stats *const *)pa;
    const gcs_object_type_stats *b = *(const gcs_object_type_stats *const *)pb;
    if (a->sample_bytes != b->sample_bytes)
        return a->sample_bytes > b->sample_bytes ? -1 : 1;
    if (a->estimated_bytes != b->estimated_bytes)
        return a->estimated_bytes > b->estimated_bytes ? -1 : 1;
    if (a->samples != b->samples)
        return a->samples > b->samples ? -1 : 1;
    int c = strcmp(a->name, b->name);
    if (c)
        return c;
    return (a->type_id > b->type_id) - (a->type_id < b->type_id);
}

void gcs_objects_set_symbols(gcs_objects *a, const gcs_symbols *symbols)
{
    assert(!a->finished);
    a->symbols = symbols;
}

/* How many of the unnamed type ids name a type symbol with this base. */
static size_t symbol_hits(const gcs_objects *a, uint64_t base)
{
    size_t hits = 0;
    for (size_t i = 0; i < a->ntypes; i++) {
        const type_entry *t = &a->types[i];
        if (!*t->s.name && t->s.type_id && t->s.type_id >= base &&
            gcs_symbols_type_name(a->symbols, t->s.type_id - base))
            hits++;
    }
    return hits;
}

/* The load address the type ids imply when no module event gave it: for
 * the first few unnamed ids, every page-aligned base that puts the id on a
 * type symbol gets a vote; the base with most votes wins when more than
 * one id voted for it and no other base got as many. The votes are sorted
 * and counted in runs (an id votes for a base at most once: its symbols
 * lie at different addresses), so a symbol table of any shape costs
 * O(v log v) for v votes, at most MAX_VOTES kept. */
static int cmp_u64(const void *x, const void *y)
{
    uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;
    return (a > b) - (a < b);
}

static bool infer_base(const gcs_objects *a, uint64_t *base)
{
    enum { IDS = 8 };
    const size_t MAX_VOTES = (size_t)1 << 20;
    size_t nsym = gcs_symbols_type_count(a->symbols), nv = 0, ids = 0;
    size_t cap = nsym < MAX_VOTES / IDS ? nsym * IDS : MAX_VOTES;
    uint64_t *votes = malloc((cap ? cap : 1) * sizeof *votes);
    if (!votes)
        return false;
    for (size_t i = 0; i < a->ntypes && ids < IDS; i++) {
        uint64_t id = a->types[i].s.type_id;
        if (*a->types[i].s.name || !id)
            continue;
        ids++;
        for (size_t k = 0; k < nsym && nv < cap; k++) {
            uint64_t sym = gcs_symbols_type_address(a->symbols, k);
            if (sym <= id && (id - sym) % IMAGE_PAGE == 0)
                votes[nv++] = id - sym;
        }
    }
    qsort(votes, nv, sizeof *votes, cmp_u64);
    size_t best_run = 0, best_at = 0;
    bool tie = false;
    for (size_t i = 0; i < nv;) {
        size_t j = i;
        while (j < nv && votes[j] == votes[i])
            j++;
        if (j - i > best_run) {
            best_run = j - i;
            best_at = i;
            tie = false;
        } else if (j - i == best_run) {
            tie = true;
        }
        i = j;
    }
    bool found = best_run >= 2 && !tie;
    if (found)
        *base = votes[best_at];
    free(votes);
    return found;
}

/* Names the types the trace left without a name from the symbols. */
static gcs_status name_from_symbols(gcs_objects *a, gcs_error *err)
{
    gcs_objects_symbols_info *si = &a->syms_info;
    for (size_t i = 0; i < a->ntypes; i++)
        if (!*a->types[i].s.name && a->types[i].s.type_id)
            a->sum.types_without_name++;
    /* The image whose build ID is the symbols' (when given), else the first. */
    const char *file_id = a->symbols ? gcs_symbols_build_id(a->symbols) : "";
    const struct native_image *im = a->nimages ? &a->images[0] : NULL;
    for (size_t i = 0; i < a->nimages && file_id[0]; i++)
        if (strcmp(a->images[i].build_id, file_id) == 0)
            im = &a->images[i];
    if (im) {
        si->image_base = im->base;
        snprintf(si->image_path, sizeof si->image_path, "%s", im->path);
        snprintf(si->trace_build_id, sizeof si->trace_build_id, "%s", im->build_id);
    }
    if (!a->symbols)
        return GCS_OK;
    si->used = true;
    snprintf(si->file_build_id, sizeof si->file_build_id, "%s", file_id);
    if (si->trace_build_id[0] && si->file_build_id[0] &&
        strcmp(si->trace_build_id, si->file_build_id) != 0) {
        si->build_id_mismatch = true; /* another build: its offsets would lie */
        return GCS_OK;
    }
    if (!a->sum.types_without_name)
        return GCS_OK;
    /* The module event's load address, unless it names nothing (an image
     * not linked position-independent: its symbols are absolute) and the
     * type ids agree on another. */
    uint64_t base = 0, inferred;
    if (im) {
        base = im->base;
        si->base_from = GCS_IMAGE_BASE_FROM_MODULE_EVENT;
    }
    if ((!im || symbol_hits(a, base) == 0) && infer_base(a, &inferred)) {
        base = inferred;
        si->image_base = inferred;
        si->base_from = GCS_IMAGE_BASE_FROM_TYPE_IDS;
    }
    if (si->base_from == GCS_IMAGE_BASE_UNKNOWN)
        return GCS_OK;
    for (size_t i = 0; i < a->ntypes; i++) {
        type_entry *t = &a->types[i];
        if (*t->s.name || !t->s.type_id || t->s.type_id < base)
            continue;
        const char *name = gcs_symbols_type_name(a->symbols, t->s.type_id - base);
        if (!name)
            continue;
        const char *stored = gcs_arena_strndup(&a->names, name, strlen(name));
        if (!stored)
            return GCS_FAIL(err, GCS_ERR_NOMEM, 0, "out of memory naming types");
        t->s.name = stored;
        a->sum.types_named_from_symbols++;
    }
    return GCS_OK;
}

const gcs_objects_symbols_info *gcs_objects_get_symbols_info(const gcs_objects *a)
{
    return &a->syms_info;
}

gcs_status gcs_objects_finish(gcs_objects *a, gcs_error *err)
{
    assert(!a->finished);
    if (a->tap_status != GCS_OK)
        return tap_failure(a, err);
    gcs_status st = close_batch(a, err);
    if (st != GCS_OK)
        return st;
    if (a->gc_open || a->bgc_sweep_open) {
        /* The trace ended inside a GC (or a background GC's report of its
         * survivors): its ranges may be incomplete. */
        gcs_objtrack_abort_gc(a->tracker);
        a->gc_open = false;
        a->bgc_sweep_open = false;
    }
    if (a->batch_deferred || a->nbatch)
        a->nbatch = 0;
    size_t n;
    /* Sums and counts only: any order gives the same (add_bytes). */
    const gcs_tracked_object *objs = gcs_objtrack_objects_any_order(a->tracker, &n);
    for (size_t i = 0; i < n; i++) {
        const gcs_tracked_object *o = &objs[i];
        sample_of so;
        if (!sample_get(a, o, &so))
            continue;
        gcs_object_type_stats *s = &a->types[so.type].s;
        s->samples++;
        s->sample_bytes += o->size;
        s->alive_at_end++;
        s->alive_at_end_bytes += o->size;
        if (!o->size) {
            s->samples_without_size++;
            s->alive_at_end_without_size++;
        }
        if (so.amount != NO_AMOUNT)
            s->alive_at_end_estimated_bytes =
                add_bytes(a, s->alive_at_end_estimated_bytes, so.amount);
        if (o->generation < GCS_GENERATION_COUNT)
            s->alive_at_end_gen[o->generation]++;
        if (o->flags & GCS_OBJ_PINNED)
            s->pinned++;
    }
    for (size_t i = 0; i < a->ntypes; i++) {
        type_entry *t = &a->types[i];
        uint32_t bi;
        if (!*t->s.name && t->s.type_id && map_get(&a->bulk_names, t->s.type_id, &bi))
            t->s.name = a->bulk_name_list[bi];
        summarize_lifetimes(t);
        a->sum.samples_without_size += t->s.samples_without_size;
    }
    st = name_from_symbols(a, err);
    if (st != GCS_OK)
        return st;
    a->order = malloc((a->ntypes ? a->ntypes : 1) * sizeof *a->order);
    if (!a->order)
        return GCS_FAIL(err, GCS_ERR_NOMEM, 0, "out of memory ordering types");
    size_t k = 0;
    for (size_t i = 0; i < a->ntypes; i++)
        if (a->types[i].s.samples || a->types[i].s.allocation_ticks)
            a->order[k++] = &a->types[i].s;
    qsort(a->order, k, sizeof *a->order, cmp_type_order);
    a->ntypes_reported = k;
    a->sum.tracker = *gcs_objtrack_get_stats(a->tracker);
    a->finished = true;
    return GCS_OK;
}

size_t gcs_objects_type_count(const gcs_objects *a)
{
    return a->finished ? a->ntypes_reported : 0;
}

const gcs_object_type_stats *gcs_objects_type(const gcs_objects *a, size_t index)
{
    if (!a->finished || index >= a->ntypes_reported)
        return NULL;
    return a->order[index];
}

gcs_bytes_known gcs_objects_bytes_known(uint64_t items, uint64_t items_without_bytes)
{
    if (items_without_bytes == 0)
        return GCS_BYTES_KNOWN;
    return items_without_bytes >= items ? GCS_BYTES_UNKNOWN : GCS_BYTES_PARTIAL;
}

const gcs_objects_summary *gcs_objects_get_summary(const gcs_objects *a)
{
    return &a->sum;
}
