/*
 * analysis/gc/gc_finalized.c - finalized objects by type
 * (include/gcscope/finalized.h; docs/gc-stats.md, "Finalized objects").
 *
 * TraceEvent (TraceLoadedDotNetRuntime, 4.0.0) counts each public
 * FinalizeObject event under FinalizeObjectTraceData.TypeName: the name
 * its type-id map holds for (process, TypeID) when the event is
 * dispatched, or "". The map is filled by every BulkType entry, the later
 * entry for an id replacing the earlier (HistoryDictionary.Add at time 0),
 * so the name is the last one a BulkType before the event gave. Its table
 * is a Dictionary (rows in the order their key first came) that PerfView
 * orders by count, descending, with a stable sort.
 */
#include "gcscope/finalized.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/hash.h"
#include "decode/gc_events.h"

#define NO_ROW UINT32_MAX

/* A (process, type id) the events named. */
typedef struct type_entry {
    uint64_t type_id;
    uint32_t pid;
    bool used;
    uint32_t row;              /* the row of bulk_name (NO_ROW: not looked up yet) */
    const char *bulk_name;     /* the last BulkType's name so far; NULL none */
    const char *private_name;  /* the last private FinalizeObject's TypeName; NULL none */
    uint32_t private_row;      /* the private row of private_name (NO_ROW: not looked up) */
    const uint8_t *private_utf16; /* private_name as it came (UTF-16LE), for private_row */
    uint32_t private_units;
    uint64_t unnamed_count;    /* objects counted under "" */
    uint64_t unnamed_order;    /* the first of them (objects' sequence number) */
    uint32_t proc;             /* its process (procs), set with unnamed_count */
} type_entry;

/* A row of TraceEvent's table (process, name), or (is_private) of the
 * private events' names. */
typedef struct row {
    uint32_t pid;
    const char *name;
    uint64_t count;
    uint32_t proc;  /* its process (procs) */
    bool is_private;
} row;

typedef struct process_acc {
    uint32_t pid;
    uint64_t objects, private_objects;
    uint32_t unnamed_row; /* its row of objects of no BulkType name (NO_ROW: none yet) */
} process_acc;

struct gcs_finalized {
    gcs_gc_kind_cache kinds;
    type_entry *types; /* open addressing, types_cap a power of two */
    size_t types_n, types_cap;
    gcs_index row_index; /* (pid, private, name) -> row */
    row *rows;
    size_t rows_n, rows_cap;
    process_acc *procs;
    size_t procs_n, procs_cap;
    size_t last_proc;
    uint64_t sequence; /* runtime-provider objects so far (unnamed_order) */
    gcs_arena names;
    gcs_arena utf16_names; /* type_entry.private_utf16 (apart: names' limit unchanged) */
    char *scratch; /* UTF-8 of a name being compared */
    size_t scratch_cap;
    gcs_finalized_stats stats;
    bool finished;
    /* Results (gcs_finalized_finish). */
    gcs_finalized_process *results;
    gcs_finalized_type *result_types;
    gcs_finalized_unnamed *result_unnamed;
};

static const char EMPTY_NAME[] = "";

gcs_finalized *gcs_finalized_new(void)
{
    gcs_finalized *fz = calloc(1, sizeof *fz);
    if (!fz)
        return NULL;
    gcs_gc_kind_cache_init(&fz->kinds);
    gcs_arena_init(&fz->names, GCS_FINALIZED_MAX_NAME_BYTES);
    gcs_arena_init(&fz->utf16_names, GCS_FINALIZED_MAX_NAME_BYTES);
    return fz;
}

void gcs_finalized_free(gcs_finalized *fz)
{
    if (!fz)
        return;
    free(fz->types);
    gcs_index_free(&fz->row_index);
    free(fz->rows);
    free(fz->procs);
    free(fz->scratch);
    free(fz->results);
    free(fz->result_types);
    free(fz->result_unnamed);
    gcs_arena_reset(&fz->names);
    gcs_arena_reset(&fz->utf16_names);
    free(fz);
}

bool gcs_finalized_wants(void *ctx, const gcs_event_type *type)
{
    (void)ctx;
    gcs_gc_kind k = gcs_gc_classify(type);
    return k == GCS_GCK_FINALIZE_OBJECT || k == GCS_GCK_BULK_TYPE;
}

static uint64_t type_hash(uint32_t pid, uint64_t type_id)
{
    return gcs_hash_mix(type_id ^ ((uint64_t)pid << 32 | pid) * 0x9e3779b97f4a7c15ull);
}

static bool types_grow(gcs_finalized *fz)
{
    size_t cap = fz->types_cap ? fz->types_cap * 2 : 256;
    type_entry *t = calloc(cap, sizeof *t);
    if (!t)
        return false;
    for (size_t i = 0; i < fz->types_cap; i++) {
        const type_entry *e = &fz->types[i];
        if (!e->used)
            continue;
        size_t k = type_hash(e->pid, e->type_id) & (cap - 1);
        while (t[k].used)
            k = (k + 1) & (cap - 1);
        t[k] = *e;
    }
    free(fz->types);
    fz->types = t;
    fz->types_cap = cap;
    return true;
}

/* The entry of (pid, type_id), added when absent; NULL when the table is
 * at its limit (counted) or memory is short (*nomem). */
static type_entry *type_of(gcs_finalized *fz, uint32_t pid, uint64_t type_id, bool *nomem)
{
    if (fz->types_cap) {
        size_t k = type_hash(pid, type_id) & (fz->types_cap - 1);
        for (; fz->types[k].used; k = (k + 1) & (fz->types_cap - 1))
            if (fz->types[k].type_id == type_id && fz->types[k].pid == pid)
                return &fz->types[k];
    }
    if (fz->types_n >= GCS_FINALIZED_MAX_TYPES) {
        fz->stats.over_limit++;
        return NULL;
    }
    if ((fz->types_n + 1) * 2 > fz->types_cap && !types_grow(fz)) {
        *nomem = true;
        return NULL;
    }
    size_t k = type_hash(pid, type_id) & (fz->types_cap - 1);
    while (fz->types[k].used)
        k = (k + 1) & (fz->types_cap - 1);
    type_entry *e = &fz->types[k];
    memset(e, 0, sizeof *e);
    e->used = true;
    e->pid = pid;
    e->type_id = type_id;
    e->row = NO_ROW;
    e->private_row = NO_ROW;
    fz->types_n++;
    return e;
}

static uint64_t row_hash(uint32_t pid, bool is_private, const char *name)
{
    return gcs_hash_mix(gcs_hash_bytes((GCS_HASH_SEED ^ pid) + is_private, name, strlen(name)));
}

static uint64_t row_hash_of(const void *ctx, uint32_t id)
{
    const row *r = &((const row *)ctx)[id];
    return row_hash(r->pid, r->is_private, r->name);
}

/* The row of (pid, name), added (count 0) when absent; NO_ROW when memory
 * is short. name must live as long as the tracker. Rows are at most one a
 * type entry plus "" a process, below GCS_FINALIZED_MAX_TYPES * 2. */
static uint32_t row_of(gcs_finalized *fz, uint32_t pid, uint32_t proc, bool is_private,
                       const char *name)
{
    const uint64_t h = row_hash(pid, is_private, name);
    uint32_t id;
    for (size_t k = gcs_index_first(&fz->row_index, h); gcs_index_id(&fz->row_index, k, &id);
         k = gcs_index_next(&fz->row_index, k)) {
        const row *r = &fz->rows[id];
        if (r->pid == pid && r->is_private == is_private && strcmp(r->name, name) == 0)
            return id;
    }
    if (!gcs_index_room(&fz->row_index, fz->rows_n, row_hash_of, fz->rows) ||
        !gcs_array_reserve((void **)&fz->rows, &fz->rows_cap, fz->rows_n + 1, sizeof *fz->rows, 16))
        return NO_ROW;
    gcs_index_put(&fz->row_index, h, (uint32_t)fz->rows_n);
    fz->rows[fz->rows_n] = (row){pid, name, 0, proc, is_private};
    return (uint32_t)fz->rows_n++;
}

static process_acc *process_of(gcs_finalized *fz, uint32_t pid)
{
    if (fz->last_proc < fz->procs_n && fz->procs[fz->last_proc].pid == pid)
        return &fz->procs[fz->last_proc];
    for (size_t i = 0; i < fz->procs_n; i++)
        if (fz->procs[i].pid == pid) {
            fz->last_proc = i;
            return &fz->procs[i];
        }
    if (!gcs_array_reserve((void **)&fz->procs, &fz->procs_cap, fz->procs_n + 1,
                           sizeof *fz->procs, 4))
        return NULL;
    fz->last_proc = fz->procs_n;
    fz->procs[fz->procs_n] = (process_acc){pid, 0, 0, NO_ROW};
    return &fz->procs[fz->procs_n++];
}

/* s as UTF-8 in the scratch buffer; NULL when memory is short. */
static const char *scratch_utf8(gcs_finalized *fz, gcs_gc_utf16 s)
{
    size_t need = (size_t)s.units * 3 + 1;
    if (need > fz->scratch_cap) {
        char *p = realloc(fz->scratch, need);
        if (!p)
            return NULL;
        fz->scratch = p;
        fz->scratch_cap = need;
    }
    gcs_utf16_to_utf8_buf(s.data, s.units, fz->scratch, fz->scratch_cap);
    return fz->scratch;
}

/* *slot = s (kept in the arena) unless it already says so. False when the
 * name cannot be kept (the arena's limit: counted; or memory). */
static bool set_name(gcs_finalized *fz, const char **slot, gcs_gc_utf16 s)
{
    const char *utf8 = scratch_utf8(fz, s);
    if (!utf8)
        return false;
    if (*slot && strcmp(*slot, utf8) == 0)
        return true;
    char *kept = gcs_arena_strndup(&fz->names, utf8, strlen(utf8));
    if (!kept) {
        fz->stats.over_limit++;
        return false;
    }
    *slot = kept;
    return true;
}

/* Remembers row r as t's private row for the name s just set, with s's
 * bytes (the next event's name is compared with them); not when the name
 * (s.data NULL) or its bytes could not be kept: each event then looks its
 * row up. */
static void keep_private_row(gcs_finalized *fz, type_entry *t, gcs_gc_utf16 s, uint32_t r)
{
    t->private_row = NO_ROW;
    if (!s.data || !t->private_name || r == NO_ROW)
        return;
    if (t->private_utf16 == NULL || t->private_units != s.units ||
        memcmp(t->private_utf16, s.data, (size_t)s.units * 2) != 0) {
        uint8_t *copy = gcs_arena_alloc(&fz->utf16_names, (size_t)s.units * 2 + 1);
        if (!copy)
            return;
        memcpy(copy, s.data, (size_t)s.units * 2);
        t->private_utf16 = copy;
        t->private_units = s.units;
    }
    t->private_row = r;
}

static gcs_status on_bulk_type(gcs_finalized *fz, uint32_t pid, const gcs_gc_record *rec)
{
    gcs_gc_bulk_type_iter it;
    gcs_gc_bulk_type_begin(rec, &it);
    gcs_gc_bulk_type_entry e;
    while (gcs_gc_bulk_type_next(&it, &e)) {
        fz->stats.bulk_type_entries++;
        bool nomem = false;
        type_entry *t = type_of(fz, pid, e.type_id, &nomem);
        if (nomem)
            return GCS_ERR_NOMEM;
        if (!t)
            continue;
        const char *before = t->bulk_name;
        set_name(fz, &t->bulk_name, e.name);
        if (t->bulk_name != before)
            t->row = NO_ROW; /* another name: another row */
    }
    return GCS_OK;
}

/* The type entry (*t: NULL past the limit) and the process of a
 * FinalizeObject event of either provider. */
static gcs_status object_of(gcs_finalized *fz, uint32_t pid, const gcs_gc_record *rec,
                           type_entry **t, process_acc **p)
{
    bool nomem = false;
    *t = type_of(fz, pid, rec->u.finalize_object.type_id, &nomem);
    if (nomem)
        return GCS_ERR_NOMEM;
    *p = process_of(fz, pid);
    return *p ? GCS_OK : GCS_ERR_NOMEM;
}

static gcs_status on_finalize(gcs_finalized *fz, uint32_t pid, const gcs_gc_record *rec)
{
    type_entry *t;
    process_acc *p;
    if (object_of(fz, pid, rec, &t, &p) != GCS_OK)
        return GCS_ERR_NOMEM;
    uint32_t proc = (uint32_t)(p - fz->procs);
    const char *name = t && t->bulk_name ? t->bulk_name : EMPTY_NAME;
    /* The row is kept where it is found again: in the type entry, or (no
     * name: a trace without BulkType events, the usual one) the process. */
    uint32_t r = t && t->bulk_name ? t->row : p->unnamed_row;
    if (r == NO_ROW)
        r = row_of(fz, pid, proc, false, name);
    if (r == NO_ROW)
        return GCS_ERR_NOMEM;
    if (t && t->bulk_name)
        t->row = r;
    else
        p->unnamed_row = r;
    fz->sequence++;
    fz->rows[r].count++;
    p->objects++;
    fz->stats.finalize_events++;
    /* TraceEvent's "" row: no BulkType yet, or one without a name (the
     * runtime writes "" unless GCHeapAndTypeNames is on). */
    if (t && !(t->bulk_name && t->bulk_name[0]) && t->unnamed_count++ == 0) {
        t->unnamed_order = fz->sequence;
        t->proc = proc;
    }
    return GCS_OK;
}

/* The private event (the same object as a public one, when both
 * providers are on): its name names the type id, and it is counted apart
 * by that name (what a trace without the public event still says). */
static gcs_status on_private_finalize(gcs_finalized *fz, uint32_t pid, const gcs_gc_record *rec)
{
    type_entry *t;
    process_acc *p;
    if (object_of(fz, pid, rec, &t, &p) != GCS_OK)
        return GCS_ERR_NOMEM;
    /* The type's name the same bytes as the one before: its row is the
     * one before (no conversion, hash and lookup an object); else the name
     * is kept and looked up. */
    const gcs_gc_utf16 s = rec->u.finalize_object.type_name;
    uint32_t r = NO_ROW;
    if (t && t->private_row != NO_ROW && s.units == t->private_units &&
        memcmp(s.data, t->private_utf16, (size_t)s.units * 2) == 0) {
        r = t->private_row;
    } else {
        /* (A name that could not be kept is tried again by each event, and
         * counted each time, as before the row was remembered.) */
        const bool named = t && set_name(fz, &t->private_name, s);
        const char *name = t && t->private_name ? t->private_name : EMPTY_NAME;
        r = row_of(fz, pid, (uint32_t)(p - fz->procs), true, name);
        if (t)
            keep_private_row(fz, t, named ? s : (gcs_gc_utf16){NULL, 0}, r);
    }
    if (r == NO_ROW)
        return GCS_ERR_NOMEM;
    fz->rows[r].count++;
    p->private_objects++;
    fz->stats.private_events++;
    return GCS_OK;
}

gcs_status gcs_finalized_feed(gcs_finalized *fz, const gcs_event *ev)
{
    assert(!fz->finished);
    gcs_gc_kind k = gcs_gc_kind_cached(&fz->kinds, ev->type);
    if (k != GCS_GCK_FINALIZE_OBJECT && k != GCS_GCK_BULK_TYPE)
        return GCS_OK;
    gcs_gc_record rec;
    gcs_error err;
    gcs_status st = gcs_gc_decode(ev, k, &rec, &err);
    if (st != GCS_OK) {
        fz->stats.undecodable_events++;
        /* A BulkType cut short: the entries before its end are whole. */
        if (!(k == GCS_GCK_BULK_TYPE && st == GCS_ERR_TRUNCATED && rec.u.bulk_type.values_truncated))
            return GCS_OK;
    }
    if (k == GCS_GCK_BULK_TYPE)
        return on_bulk_type(fz, ev->pid, &rec);
    if (ev->type->event_id != 192)
        return on_finalize(fz, ev->pid, &rec);
    return on_private_finalize(fz, ev->pid, &rec);
}

/* ---------------------------------------------------------------- results */

/* Process first (in the order processes came), then most objects first,
 * then the first to come. */
static int by_proc_count_order(uint32_t pa, uint64_t ca, uint64_t oa, uint32_t pb, uint64_t cb,
                               uint64_t ob)
{
    if (pa != pb)
        return pa < pb ? -1 : 1;
    if (ca != cb)
        return ca > cb ? -1 : 1;
    return oa < ob ? -1 : oa > ob;
}

static int row_cmp(const void *a, const void *b)
{
    const row *x = *(const row *const *)a, *y = *(const row *const *)b;
    if (x->is_private != y->is_private) /* TraceEvent's rows first */
        return x->is_private ? 1 : -1;
    /* rows[] holds the rows in the order they were made: their place in
     * it is the order their names first came. */
    int c = by_proc_count_order(x->proc, x->count, 0, y->proc, y->count, 0);
    return c ? c : (x > y) - (x < y);
}

static int unnamed_cmp(const void *a, const void *b)
{
    const type_entry *x = *(const type_entry *const *)a, *y = *(const type_entry *const *)b;
    return by_proc_count_order(x->proc, x->unnamed_count, x->unnamed_order, y->proc,
                               y->unnamed_count, y->unnamed_order);
}

gcs_status gcs_finalized_finish(gcs_finalized *fz)
{
    assert(!fz->finished);
    fz->finished = true;
    size_t nr = 0, nu = 0;
    for (size_t i = 0; i < fz->types_cap; i++)
        nu += fz->types[i].used && fz->types[i].unnamed_count > 0;
    const row **rs = malloc((fz->rows_n ? fz->rows_n : 1) * sizeof *rs);
    const type_entry **us = malloc((nu ? nu : 1) * sizeof *us);
    fz->results = calloc(fz->procs_n ? fz->procs_n : 1, sizeof *fz->results);
    fz->result_types = calloc(fz->rows_n ? fz->rows_n : 1, sizeof *fz->result_types);
    fz->result_unnamed = calloc(nu ? nu : 1, sizeof *fz->result_unnamed);
    if (!rs || !us || !fz->results || !fz->result_types || !fz->result_unnamed) {
        free(rs);
        free(us);
        free(fz->results);
        fz->results = NULL; /* no results */
        return GCS_ERR_NOMEM;
    }
    for (size_t i = 0; i < fz->rows_n; i++)
        if (fz->rows[i].count > 0) /* a row a failed feed left empty is none */
            rs[nr++] = &fz->rows[i];
    nu = 0;
    for (size_t i = 0; i < fz->types_cap; i++)
        if (fz->types[i].used && fz->types[i].unnamed_count > 0)
            us[nu++] = &fz->types[i];
    qsort(rs, nr, sizeof *rs, row_cmp);
    qsort(us, nu, sizeof *us, unnamed_cmp);
    for (size_t p = 0; p < fz->procs_n; p++)
        fz->results[p] = (gcs_finalized_process){.pid = fz->procs[p].pid,
                                                 .objects = fz->procs[p].objects,
                                                 .private_objects = fz->procs[p].private_objects,
                                                 .types = fz->result_types,
                                                 .private_types = fz->result_types,
                                                 .unnamed = fz->result_unnamed};
    /* Each process's rows are one stretch of the sorted array (its
     * TraceEvent rows, its private rows in another stretch after all). */
    for (size_t i = 0; i < nr; i++) {
        gcs_finalized_process *out = &fz->results[rs[i]->proc];
        if (rs[i]->is_private) {
            if (out->private_type_count++ == 0)
                out->private_types = &fz->result_types[i];
        } else if (out->type_count++ == 0) {
            out->types = &fz->result_types[i];
        }
        fz->result_types[i] = (gcs_finalized_type){rs[i]->name, rs[i]->count};
    }
    for (size_t i = 0; i < nu; i++) {
        const type_entry *t = us[i];
        gcs_finalized_process *out = &fz->results[t->proc];
        if (out->unnamed_count++ == 0)
            out->unnamed = &fz->result_unnamed[i];
        gcs_finalized_unnamed *u = &fz->result_unnamed[i];
        u->type_id = t->type_id;
        u->count = t->unnamed_count;
        /* The private event names the id as the runtime saw it then; a
         * BulkType that came after the objects names it too. */
        bool later = t->bulk_name && t->bulk_name[0];
        u->name = t->private_name ? t->private_name : later ? t->bulk_name : NULL;
        u->source = t->private_name ? GCS_FINALIZED_NAME_PRIVATE
                    : later         ? GCS_FINALIZED_NAME_LATER_BULK_TYPE
                                    : GCS_FINALIZED_NAME_NONE;
    }
    free(rs);
    free(us);
    return GCS_OK;
}

size_t gcs_finalized_process_count(const gcs_finalized *fz)
{
    return fz->finished && fz->results ? fz->procs_n : 0;
}

const gcs_finalized_process *gcs_finalized_process_at(const gcs_finalized *fz, size_t i)
{
    return i < gcs_finalized_process_count(fz) ? &fz->results[i] : NULL;
}

const gcs_finalized_process *gcs_finalized_find(const gcs_finalized *fz, uint32_t pid)
{
    for (size_t i = 0; i < gcs_finalized_process_count(fz); i++)
        if (fz->results[i].pid == pid)
            return &fz->results[i];
    return NULL;
}

void gcs_finalized_get_stats(const gcs_finalized *fz, gcs_finalized_stats *out)
{
    *out = fz->stats;
}

const char *gcs_finalized_name_source_name(gcs_finalized_name_source s)
{
    switch (s) {
    case GCS_FINALIZED_NAME_PRIVATE: return "private FinalizeObject";
    case GCS_FINALIZED_NAME_LATER_BULK_TYPE: return "later BulkType";
    default: return "none";
    }
}
