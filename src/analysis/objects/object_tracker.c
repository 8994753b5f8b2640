/*
 * analysis/objects/object_tracker.c - the object tracker (gcs_objtrack_*).
 *
 * Objects live in two arrays sorted by address, with no address in both:
 * the main one and a smaller "recent" one. New objects first go to an
 * unsorted "pending" array, merged (sort + merge) into the recent array
 * when a GC begins or the caller looks. The recent array joins the main
 * one when a GC brings ranges, when the caller looks at every object, and
 * when it reaches an eighth of the main one: a GC without ranges (a trace
 * without the movement keyword) then costs the recent objects, not every
 * tracked object, and the main array is merged into amortized O(1) times
 * per object. Applying a GC = sort the ranges by old start, resolve
 * overlaps, then walk objects and ranges together once: an O((n + r) log
 * (n + r)) merge. Moves usually keep address order (sliding compaction);
 * when they do not, the moved blocks are reordered by their first address
 * (O(n + k log k)) or, if blocks interleave, merge-sorted (O(n log runs)).
 * A GC whose ranges do not overlap is applied without sorting them
 * ("Stretches", below).
 *
 * Settled objects (generation 2, LOH or POH, no private flag) gather in a
 * third sorted array, "old", once enough of them wait in the main one: a
 * gen-0 or gen-1 GC cannot condemn, move or age them, so it does not walk
 * them; it counts those inside its ranges by binary search and checks each
 * object it moved against them. A gen-2 GC, a collision with one of them,
 * a generation layout that makes one younger and the caller's look at
 * every object put them back (merge). On a service trace with movement
 * events, 99 % of the objects a GC walked were such gen-2 objects.
 *
 * Until the first GC with ranges (or generation layout, or look at every
 * object), the objects are not sorted at all: the main array holds them
 * in arrival order, found by address through a hash table of indexes
 * ("hashed" mode). Without ranges nothing moves and nothing dies but by
 * address reuse, so a sorted order buys nothing: a trace without the
 * movement keyword costs a probe per new object, not a merge of the
 * recent ones and a binary search of the main array. The pending objects
 * are still sorted before they go in, so that deaths and duplicates come
 * in the order of the sorted arrays. The first need of the sorted order
 * sorts the main array once and drops the table for good.
 */
#include <assert.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/objects/object_tracker_internal.h"
#include "base/buf.h"
#include "base/error.h"
#include "gcscope/objects.h"

bool gcs_objtrack_split = true;
size_t gcs_objtrack_settle_min = 1024;
bool gcs_objtrack_hashed = true;
bool gcs_objtrack_stretches = true;
uint64_t gcs_objtrack_stretch_gap = (uint64_t)64 << 10;
bool gcs_objtrack_heapsort_only = false;

/* Tracker-private flag bits (callers keep them clear). */
#define OBJ_NEW 0x80u          /* added since the last GC ended */
#define OBJ_BORN_IN_GC 0x40u   /* added while a GC was open: that GC spares it */
#define OBJ_MOVED_NOW 0x20u    /* moved by the GC being applied (transient) */
#define OBJ_PRIVATE (OBJ_NEW | OBJ_BORN_IN_GC | OBJ_MOVED_NOW)

/* Capacity of the pending array kept between merges (objects). */
#define PENDING_KEEP 65536

/* A block of consecutive objects of the array: [start, start + len). */
typedef struct run {
    size_t start, len;
    uint64_t first; /* address of a[start] */
} run;

/* An entry of the hashed mode's table: index EMPTY_ENTRY when free. */
typedef struct hash_entry {
    uint32_t index;
    uint32_t fingerprint;
} hash_entry;
#define EMPTY_ENTRY UINT32_MAX

typedef struct range {
    uint64_t old_start;
    uint64_t new_start;
    uint64_t length;
    uint32_t seq;  /* arrival order: last tie-breaker, for determinism */
    uint32_t used; /* covered at least one tracked condemned object */
} range;

/* A stretch ("Stretches", below): ascending ranges in arrival order,
 * ranges[first..first+n), no gap of over t->stretch_gap between them;
 * [start, end) holds them. */
typedef struct range_run {
    uint64_t start, end;
    size_t first, n;
} range_run;

struct gcs_objtrack {
    gcs_objtrack_options opts;
    gcs_tracked_object *objs; /* sorted by address, unique addresses */
    size_t n, cap;
    gcs_tracked_object *spare; /* objs' last array, reused by the next block re-sort */
    size_t spare_cap;
    /* Sorted by address; no address in objs too. */
    gcs_tracked_object *recent;
    size_t recent_n, recent_cap;
    /* Which objects of objs may carry private flags (OBJ_PRIVATE), for a
     * GC without ranges to update: all of them (objs_flagged), or those
     * at the indexes in flagged[] (each once; objs keeps its order until
     * it is rebuilt, which sets objs_flagged). */
    bool objs_flagged;
    size_t *flagged;
    size_t flagged_n, flagged_cap;
    gcs_tracked_object *pending; /* added, not merged yet; any order */
    size_t pn, pcap;
    size_t adds_avg; /* objects a merge of pending brings, averaged (join_threshold) */
    bool in_gc;
    uint32_t gc_number;
    int condemned;
    int64_t gc_time;
    /* The open GC is a background GC's sweep (begin_background_gc): it
     * condemns gen 2, LOH and POH only, promotes nothing and ends no
     * object's newness; gc_time_before is gc_time to restore after it. */
    bool background;
    int64_t gc_time_before;
    range *ranges;
    size_t rn, rcap;
    bool ranges_cut; /* some ranges of the open GC were dropped (limit) */
    uint32_t last_gc_number;
    run *blocks; /* end_gc: output blocks, for re-sorting */
    size_t nblocks, cblocks;
    /* Settled objects (see the top): sorted, unique, no address in the
     * other arrays. Used only when split (gcs_objtrack_split at creation). */
    bool split;
    size_t settle_min; /* gcs_objtrack_settle_min at creation */
    gcs_tracked_object *old;
    size_t old_n, old_cap;
    uint64_t *pre; /* end_gc with old objects: each output object's address before the GC */
    size_t pre_cap;
    /* Stretches: gcs_objtrack_stretches and gcs_objtrack_stretch_gap at
     * creation. The open GC's, cut as its ranges come (push_ranges):
     * runs[0..nruns) closed, cut_open open (n 0: none), moved_bits nonzero
     * once a range moves, cut_failed when there were too many or memory
     * was short. inside[i] says objs[i] lies in a range (sweep_in_place);
     * ranges_spare: order_by_stretches' copy. */
    bool stretches;
    uint64_t stretch_gap;
    range_run *runs;
    size_t runs_cap, nruns;
    range_run cut_open;
    uint64_t moved_bits;
    bool cut_failed;
    uint8_t *inside;
    size_t inside_cap;
    range *ranges_spare;
    size_t ranges_spare_cap;
    uint64_t stretch_gcs, in_place_sweeps; /* GCs applied so (for tests) */
    /* The last layout applied to old (ascending, disjoint), while every old
     * object has had it applied (none came since; leaving changes nothing):
     * a range of it the next layout repeats finds its old objects at their
     * generation already. */
    gcs_generation_range *old_layout;
    size_t old_layout_n, old_layout_cap;
    bool old_layout_valid;
    /* Hashed mode (see the top): objs unsorted, and for each object an
     * entry of the open-addressing table (linear probing, at most three
     * quarters full): its index in objs and a fingerprint of its address. */
    bool hashed;
    hash_entry *table;
    size_t table_cap; /* a power of two, or 0 */
    unsigned table_shift; /* 64 - log2(table_cap): a hash's top bits are its slot */
    size_t *at; /* merge_pending: a chunk of pending objects' places in objs, then in old */
    gcs_objtrack_stats stats;
};

/* ---- stable natural merge sort by address ------------------------------ */

static int cmp_run(const void *pa, const void *pb)
{
    uint64_t a = ((const run *)pa)->first, b = ((const run *)pb)->first;
    return (a > b) - (a < b);
}

/* The spare array with room for n objects (its contents are not kept):
 * false, nothing changed, when memory is short. */
static bool spare_at_least(gcs_tracked_object **spare, size_t *spare_cap, size_t n)
{
    if (*spare_cap >= n)
        return true;
    /* Doubled, and a huge page at once past a quarter MiB: each fresh
     * spare is faulted in anew. */
    n = gcs_big_early_count(n > *spare_cap * 2 ? n : *spare_cap * 2, sizeof **spare);
    gcs_tracked_object *grown = gcs_big_resize(NULL, 0, n * sizeof *grown);
    if (!grown)
        return false;
    gcs_big_free(*spare, *spare_cap * sizeof **spare);
    *spare = grown;
    *spare_cap = n;
    return true;
}

/* The spare array, just written, becomes the array, and the array the
 * spare: one copy fewer than writing the result back. */
static void adopt_spare(gcs_tracked_object **array, size_t *cap, gcs_tracked_object **spare,
                        size_t *spare_cap)
{
    gcs_tracked_object *out = *spare;
    size_t out_cap = *spare_cap;
    *spare = *array;
    *spare_cap = *cap;
    *array = out;
    *cap = out_cap;
}

/*
 * Fast path for what compaction produces: blocks (one per range, ascending
 * inside) whose address intervals do not interleave, only in the wrong
 * order. Sorting the blocks by their first address and copying them out is
 * O(n + k log k) for k blocks. The copy goes to *spare (grown to n when
 * smaller), which then becomes the array, and the old array the spare: a
 * GC reuses the pages the last one wrote instead of a fresh allocation of
 * every object (above glibc's mmap threshold, each one was mapped and
 * faulted in anew: 1.4 s of system time of `objects` on the service shape).
 * False (nothing changed) when blocks interleave or memory is short; the
 * caller then merge-sorts.
 */
static bool sort_disjoint_blocks(gcs_tracked_object **array, size_t *cap,
                                 gcs_tracked_object **spare, size_t *spare_cap, size_t n,
                                 run *blocks, size_t k)
{
    gcs_tracked_object *a = *array;
    for (size_t r = 0; r < k; r++)
        blocks[r].first = a[blocks[r].start].address;
    qsort(blocks, k, sizeof *blocks, cmp_run);
    for (size_t r = 1; r < k; r++) {
        const run *p = &blocks[r - 1];
        if (a[p->start + p->len - 1].address >= a[blocks[r].start].address)
            return false;
    }
    if (!spare_at_least(spare, spare_cap, n))
        return false;
    gcs_tracked_object *out = *spare;
    size_t at = 0;
    for (size_t r = 0; r < k; r++) {
        memcpy(out + at, a + blocks[r].start, blocks[r].len * sizeof *a);
        at += blocks[r].len;
    }
    assert(at == n);
    adopt_spare(array, cap, spare, spare_cap);
    return true;
}

/*
 * Defines `static bool NAME(TYPE *a, size_t n)`: a stable bottom-up
 * natural merge sort by LESS(x, y) (x before y), O(n log runs), one pass
 * over input already in order; false when out of memory (a untouched).
 * And `static size_t NAME##_run_end(const TYPE *a, size_t i, size_t n)`:
 * the end of the ascending run that starts at i. One definition for the
 * objects (by address), a GC's ranges (cmp_range) and a generation
 * layout (cmp_generation_range), which all arrive nearly in order.
 */
#define DEFINE_NATURAL_SORT(NAME, TYPE, LESS)                                           \
    static size_t NAME##_run_end(const TYPE *a, size_t i, size_t n)                     \
    {                                                                                   \
        size_t j = i + 1;                                                               \
        while (j < n && !(LESS(&a[j], &a[j - 1])))                                      \
            j++;                                                                        \
        return j;                                                                       \
    }                                                                                   \
    static bool NAME(TYPE *a, size_t n)                                                 \
    {                                                                                   \
        if (n < 2 || NAME##_run_end(a, 0, n) == n)                                      \
            return true;                                                                \
        TYPE *tmp = malloc(n * sizeof *tmp);                                            \
        if (!tmp)                                                                       \
            return false;                                                               \
        TYPE *src = a, *dst = tmp;                                                      \
        for (;;) {                                                                      \
            size_t i = 0, runs = 0;                                                     \
            while (i < n) {                                                             \
                size_t m = NAME##_run_end(src, i, n);                                   \
                size_t e = m < n ? NAME##_run_end(src, m, n) : n;                       \
                size_t x = i, y = m, k = i;                                             \
                while (x < m && y < e)                                                  \
                    dst[k++] = LESS(&src[y], &src[x]) ? src[y++] : src[x++];            \
                while (x < m)                                                           \
                    dst[k++] = src[x++];                                                \
                while (y < e)                                                           \
                    dst[k++] = src[y++];                                                \
                i = e;                                                                  \
                runs++;                                                                 \
            }                                                                           \
            TYPE *swap = src;                                                           \
            src = dst;                                                                  \
            dst = swap;                                                                 \
            if (runs == 1)                                                              \
                break;                                                                  \
        }                                                                               \
        if (src != a)                                                                   \
            memcpy(a, src, n * sizeof *a);                                              \
        free(tmp);                                                                      \
        return true;                                                                    \
    }

#define ADDRESS_LESS(x, y) ((x)->address < (y)->address)
/* sort_objects(a, n): a[0..n) by address, stable. */
DEFINE_NATURAL_SORT(sort_objects, gcs_tracked_object, ADDRESS_LESS)

/* ---- lifetime ------------------------------------------------------------ */

gcs_objtrack *gcs_objtrack_new(const gcs_objtrack_options *opts, gcs_error *err)
{
    gcs_objtrack *t = calloc(1, sizeof *t);
    if (!t) {
        GCS_FAIL(err, GCS_ERR_NOMEM, 0, "out of memory creating the object tracker");
        return NULL;
    }
    if (opts)
        t->opts = *opts;
    if (!t->opts.max_objects)
        t->opts.max_objects = GCS_OBJTRACK_DEFAULT_MAX_OBJECTS;
    if (!t->opts.max_ranges_per_gc)
        t->opts.max_ranges_per_gc = GCS_OBJTRACK_DEFAULT_MAX_RANGES;
    t->split = gcs_objtrack_split;
    t->stretches = gcs_objtrack_stretches;
    t->stretch_gap = gcs_objtrack_stretch_gap;
    t->settle_min = gcs_objtrack_settle_min;
    /* The table's indexes are 32-bit, EMPTY_ENTRY excluded. */
    t->hashed = gcs_objtrack_hashed && t->opts.max_objects < EMPTY_ENTRY;
    return t;
}

void gcs_objtrack_free(gcs_objtrack *t)
{
    if (!t)
        return;
    gcs_big_free(t->objs, t->cap * sizeof *t->objs);
    gcs_big_free(t->spare, t->spare_cap * sizeof *t->spare);
    gcs_big_free(t->recent, t->recent_cap * sizeof *t->recent);
    free(t->flagged);
    free(t->pending);
    gcs_big_free(t->ranges, t->rcap * sizeof *t->ranges);
    free(t->blocks);
    gcs_big_free(t->old, t->old_cap * sizeof *t->old);
    free(t->pre);
    free(t->inside);
    free(t->runs);
    gcs_big_free(t->ranges_spare, t->ranges_spare_cap * sizeof *t->ranges_spare);
    free(t->old_layout);
    free(t->at);
    gcs_big_free(t->table, t->table_cap * sizeof *t->table);
    free(t);
}

uint64_t gcs_objtrack_in_place_sweeps(const gcs_objtrack *t)
{
    return t->in_place_sweeps;
}

uint64_t gcs_objtrack_stretch_gcs(const gcs_objtrack *t)
{
    return t->stretch_gcs;
}

size_t gcs_objtrack_old_count(const gcs_objtrack *t)
{
    return t->old_n;
}

const gcs_objtrack_stats *gcs_objtrack_get_stats(const gcs_objtrack *t)
{
    return &t->stats;
}

bool gcs_objtrack_in_gc(const gcs_objtrack *t, size_t *ranges)
{
    if (ranges)
        *ranges = t->in_gc ? t->rn : 0;
    return t->in_gc;
}

static void retire(gcs_objtrack *t, const gcs_tracked_object *o, gcs_death_kind kind,
                   uint32_t gc_number, int condemned, int64_t time)
{
    t->stats.deaths[kind]++;
    if (t->opts.on_death) {
        gcs_tracked_object copy = *o;
        copy.flags &= (uint8_t)~OBJ_PRIVATE;
        t->opts.on_death(t->opts.ctx, &copy, kind, gc_number, condemned, time);
    }
}

gcs_status gcs_objtrack_add(gcs_objtrack *t, const gcs_tracked_object *obj, gcs_error *err)
{
    if (t->n + t->recent_n + t->pn + t->old_n >= t->opts.max_objects) {
        t->stats.objects_over_limit++;
        return GCS_FAIL(err, GCS_ERR_LIMIT, 0, "object tracker full (%zu objects)",
                        t->opts.max_objects);
    }
    if (!gcs_array_reserve((void **)&t->pending, &t->pcap, t->pn + 1, sizeof *t->pending, 1024))
        return GCS_FAIL(err, GCS_ERR_NOMEM, 0, "out of memory adding a tracked object");
    gcs_tracked_object o = *obj;
    o.flags = (uint8_t)((o.flags & ~OBJ_PRIVATE) | OBJ_NEW | (t->in_gc ? OBJ_BORN_IN_GC : 0));
    t->pending[t->pn++] = o;
    t->stats.objects_added++;
    t->stats.objects_tracked++;
    return GCS_OK;
}

/* Index of the first object at or above address. */
static size_t lower_bound(const gcs_tracked_object *a, size_t n, uint64_t address)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (a[mid].address < address)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* lower_bound for an answer expected near the start: steps of 1, 2, 4 ...
 * until an object at or above address, then halving in the last step. A
 * walk of sorted keys over a sorted array (a GC's ranges over the old
 * objects) pays the log of each distance, not of the whole array. */
static size_t gallop_lower_bound(const gcs_tracked_object *a, size_t n, uint64_t address)
{
    size_t below = 0, step = 1; /* a[0..below) are all below address */
    while (below + step <= n && a[below + step - 1].address < address) {
        below += step;
        step *= 2;
    }
    size_t end = below + step <= n ? below + step - 1 : n; /* a[end] >= address, if any */
    return below + lower_bound(a + below, end - below, address);
}

/*
 * The objects of the sorted a[at..n) inside [start, end), for ranges
 * walked in ascending order (a[0..at) all below start): *lo is the
 * first, the returned index past the last. Most ranges of a GC hold no
 * tracked object: when a[at] lies past the range, one compare.
 */
static inline size_t objects_within(const gcs_tracked_object *a, size_t n, size_t at,
                                    uint64_t start, uint64_t end, size_t *lo)
{
    if (at == n || a[at].address >= end) {
        *lo = at;
        return at;
    }
    *lo = at + gallop_lower_bound(a + at, n - at, start);
    return *lo + gallop_lower_bound(a + *lo, n - *lo, end);
}

/*
 * lower_bound for each of the m ascending keys at once, in lock step: at
 * each level the m searches' loads do not wait for one another, so their
 * cache misses overlap. One search after the other waits for each miss in
 * turn: on a trace without movement events, where the array grows to
 * millions of objects, that was 40 % of `objects`. Branch-free halving
 * (the same answer as lower_bound).
 */
static void lower_bounds(const gcs_tracked_object *a, size_t n, const gcs_tracked_object *keys,
                         size_t m, size_t *out)
{
    for (size_t j = 0; j < m; j++)
        out[j] = 0;
    if (n == 0)
        return;
    for (size_t len = n; len > 1;) {
        const size_t half = len / 2;
        for (size_t j = 0; j < m; j++) {
            const size_t b = out[j];
            out[j] = a[b + half].address < keys[j].address ? b + half : b;
        }
        len -= half;
    }
    for (size_t j = 0; j < m; j++)
        out[j] += a[out[j]].address < keys[j].address;
}

/* The object at address, a[at] being the first at or above it, or NULL. */
static gcs_tracked_object *found_at(gcs_tracked_object *a, size_t n, size_t at, uint64_t address)
{
    return at < n && a[at].address == address ? &a[at] : NULL;
}

/* Lists objs[index] as one that may carry private flags. */
static bool note_flagged(gcs_objtrack *t, size_t index)
{
    if (!gcs_array_reserve((void **)&t->flagged, &t->flagged_cap, t->flagged_n + 1,
                           sizeof *t->flagged, 256))
        return false;
    t->flagged[t->flagged_n++] = index;
    return true;
}

/* The tracked object at address in a sorted array, or NULL. */
static gcs_tracked_object *find_in(gcs_tracked_object *a, size_t n, uint64_t address)
{
    size_t at = lower_bound(a, n, address);
    return at < n && a[at].address == address ? &a[at] : NULL;
}

/*
 * Merges the sorted b[0..bn) into the sorted *a (n objects, capacity
 * *cap), from the back, in place; no address is in both. False when out
 * of memory (nothing changed).
 */
static bool merge_into(gcs_tracked_object **a, size_t *n, size_t *cap, const gcs_tracked_object *b,
                       size_t bn)
{
    if (!gcs_big_reserve_early((void **)a, cap, *n + bn, sizeof **a, 1024))
        return false;
    gcs_tracked_object *x = *a;
    size_t i = *n, j = bn, out = *n + bn;
    while (j > 0) {
        if (i > 0 && x[i - 1].address > b[j - 1].address)
            x[--out] = x[--i];
        else
            x[--out] = b[--j];
    }
    *n += bn;
    return true;
}

/* Moves the recent objects into objs: one sorted array of every object
 * merged so far. The merge moves objs' objects, so which of them may carry
 * private flags is known again only by looking: list_flagged lists them in
 * one pass that reads only the flags (a GC without ranges then ages just
 * them); otherwise all of them count as flagged (a caller that walks every
 * object next anyway, as end_gc with ranges). */
static gcs_status join_recent(gcs_objtrack *t, bool list_flagged, gcs_error *err)
{
    if (t->recent_n == 0)
        return GCS_OK;
    if (!merge_into(&t->objs, &t->n, &t->cap, t->recent, t->recent_n))
        return GCS_FAIL(err, GCS_ERR_NOMEM, 0, "out of memory merging new objects");
    t->recent_n = 0;
    t->objs_flagged = !list_flagged; /* recent objects may be new */
    t->flagged_n = 0;
    for (size_t i = 0; list_flagged && i < t->n; i++)
        if ((t->objs[i].flags & OBJ_PRIVATE) && !note_flagged(t, i)) {
            t->objs_flagged = true;
            t->flagged_n = 0;
            break;
        }
    if (t->recent_cap > PENDING_KEEP) {
        gcs_big_free(t->recent, t->recent_cap * sizeof *t->recent);
        t->recent = NULL;
        t->recent_cap = 0;
    }
    return GCS_OK;
}

/* ---- settled objects (the old array) ---- */

/* No GC but a gen-2 one can condemn, move or age it (is_condemned: LOH and
 * POH go with gen 2; flags_after_gc leaves an object without private
 * flags as it is). */
static inline bool is_settled(const gcs_tracked_object *o)
{
    return o->generation >= GCS_GEN2 && !(o->flags & OBJ_PRIVATE);
}

/* Moves the objects of a[0..*n) that are settled (or, settled false, that
 * are not) to out, keeping the others in a; both in their order. Returns
 * how many moved (out has room for them). */
static size_t move_settled(gcs_tracked_object *a, size_t *n, gcs_tracked_object *out,
                           bool settled)
{
    size_t kept = 0, moved = 0;
    for (size_t i = 0; i < *n; i++) {
        if (is_settled(&a[i]) == settled)
            out[moved++] = a[i];
        else
            a[kept++] = a[i];
    }
    *n = kept;
    return moved;
}

/* Puts the old objects back into objs. objs' objects move: all of them
 * count as flagged again. */
static gcs_status old_into_objs(gcs_objtrack *t, gcs_error *err)
{
    if (t->old_n == 0)
        return GCS_OK;
    if (!merge_into(&t->objs, &t->n, &t->cap, t->old, t->old_n))
        return GCS_FAIL(err, GCS_ERR_NOMEM, 0, "out of memory merging settled objects");
    t->old_n = 0;
    t->objs_flagged = true;
    t->flagged_n = 0;
    /* Its objects are all in objs now: the memory goes back (a gen-2 GC
     * of millions of objects would keep a copy's worth otherwise). */
    gcs_big_free(t->old, t->old_cap * sizeof *t->old);
    t->old = NULL;
    t->old_cap = 0;
    return GCS_OK;
}

/*
 * Moves objs' settled objects into old once they are worth a merge: at
 * least settle_min of them (gcs_objtrack_settle_min: 1024) and an eighth
 * of old (a merge costs O(old), so each object is merged amortized O(1)
 * times; until then a GC walks them). objs must be sorted. Out of memory,
 * they stay where they are (correct either way). objs' objects move: all
 * of them count as flagged.
 */
static void settle_old(gcs_objtrack *t)
{
    size_t waiting = 0;
    for (size_t i = 0; i < t->n; i++)
        waiting += is_settled(&t->objs[i]);
    if (waiting == 0 || waiting < t->settle_min || waiting < t->old_n / 8)
        return;
    if (!spare_at_least(&t->spare, &t->spare_cap, waiting) ||
        !gcs_big_reserve_early((void **)&t->old, &t->old_cap, t->old_n + waiting, sizeof *t->old,
                               1024))
        return;
    size_t m = move_settled(t->objs, &t->n, t->spare, true);
    bool merged = merge_into(&t->old, &t->old_n, &t->old_cap, t->spare, m); /* reserved above */
    assert(merged);
    t->old_layout_valid = false; /* the newcomers have not had it */
    (void)merged;
    t->objs_flagged = true;
    t->flagged_n = 0;
}

/*
 * The walk end_gc would have made over every object, for a GC whose moves
 * collide with old objects: objs[0..k) (the walk's output; pre[i] is
 * objs[i]'s address before the GC, ascending) and the old objects merged
 * by their address before the GC, as one array in objs; old empties.
 */
static gcs_status walk_output_with_old(gcs_objtrack *t, const uint64_t *pre, gcs_error *err)
{
    size_t k = t->n, total = k + t->old_n;
    if (!spare_at_least(&t->spare, &t->spare_cap, total))
        return GCS_FAIL(err, GCS_ERR_NOMEM, 0, "out of memory merging settled objects");
    gcs_tracked_object *out = t->spare;
    size_t i = 0, j = 0, w = 0;
    while (i < k || j < t->old_n) {
        if (j == t->old_n || (i < k && pre[i] < t->old[j].address))
            out[w++] = t->objs[i++];
        else
            out[w++] = t->old[j++];
    }
    adopt_spare(&t->objs, &t->cap, &t->spare, &t->spare_cap);
    t->n = total;
    t->old_n = 0;
    return GCS_OK;
}

/*
 * How many recent objects wait before they join objs. Each GC costs
 * O(recent) (the merge of pending into recent, and a GC without ranges
 * ages every recent object's flags) and each join O(n): with p objects
 * added per GC, joining at sqrt(2 p n) makes the two equal and their sum
 * least (cpu head, no movement events, objects 1,317.6 -> 1,029.0 M
 * instructions with the flags listed at the join). Never past n / 8, the
 * rule before, which small traces keep: below JOIN_MIN the square root is
 * not used.
 */
#define JOIN_MIN 4096u
static size_t join_threshold(const gcs_objtrack *t)
{
    double best = sqrt(2.0 * (double)t->adds_avg * (double)t->n);
    size_t at = best > (double)JOIN_MIN ? (size_t)best : JOIN_MIN;
    return at < t->n / 8 ? at : t->n / 8;
}

/* ---- hashed mode ---- */

/* Multiplicative hashing: the top bits pick the slot; the low 32 bits,
 * a bijection of the address's low 32 bits, are the fingerprint. */
static inline uint64_t hash_of(uint64_t address)
{
    return address * 0x9E3779B97F4A7C15ull;
}

/* The index in objs of the object at address, or EMPTY_ENTRY; *slot is
 * its entry, or the free one where it would go. The table has room. */
static inline uint32_t hashed_find(const gcs_objtrack *t, uint64_t address, size_t *slot)
{
    const uint64_t h = hash_of(address);
    const uint32_t fingerprint = (uint32_t)h;
    const size_t mask = t->table_cap - 1;
    for (size_t i = (size_t)(h >> t->table_shift);; i = (i + 1) & mask) {
        const hash_entry e = t->table[i];
        if (e.index == EMPTY_ENTRY ||
            (e.fingerprint == fingerprint && t->objs[e.index].address == address)) {
            *slot = i;
            return e.index;
        }
    }
}

/* A table at most three quarters full with n objects: grown (every
 * object of objs entered again) when n passes that. Linear probing reads
 * the entries after the first in the same cache line or the next (8 a
 * line), so a fuller table costs few misses more, and 11-21 bytes an
 * object instead of 16-32 at most half full. False when memory is short
 * (nothing changed). */
static bool hashed_reserve(gcs_objtrack *t, size_t n)
{
    if (t->table_cap > 0 && n <= t->table_cap / 4 * 3)
        return true;
    size_t cap = t->table_cap > 0 ? t->table_cap : 1024;
    while (cap / 4 * 3 < n)
        cap *= 2;
    if (cap > SIZE_MAX / sizeof(hash_entry))
        return false;
    /* Each table is fresh memory: past a quarter MiB, a huge page at once
     * (a power of two: hash_entry is 8 bytes). */
    cap = gcs_big_early_count(cap, sizeof(hash_entry));
    hash_entry *table = gcs_big_resize(NULL, 0, cap * sizeof *table);
    if (!table)
        return false;
    memset(table, 0xff, cap * sizeof *table); /* every index EMPTY_ENTRY */
    gcs_big_free(t->table, t->table_cap * sizeof *t->table);
    t->table = table;
    t->table_cap = cap;
    t->table_shift = 64u - (unsigned)__builtin_ctzll((unsigned long long)cap);
    for (size_t k = 0; k < t->n; k++) {
        size_t slot;
        uint32_t found = hashed_find(t, t->objs[k].address, &slot);
        assert(found == EMPTY_ENTRY); /* unique addresses */
        (void)found;
        t->table[slot] = (hash_entry){(uint32_t)k, (uint32_t)hash_of(t->objs[k].address)};
    }
    return true;
}

/* merge_pending in hashed mode: the same deaths, duplicates and counters
 * in the same order (pending sorted by address, each compared with the
 * object at its address), without the recent array: a new address is
 * appended to objs, a reused one replaced in place. Every object that may
 * carry private flags is listed (or objs_flagged), as the sorted mode
 * lists those of objs. */
static gcs_status merge_pending_hashed(gcs_objtrack *t, gcs_error *err)
{
    assert(t->recent_n == 0 && t->old_n == 0);
    if (!sort_objects(t->pending, t->pn))
        return GCS_FAIL(err, GCS_ERR_NOMEM, 0, "out of memory sorting new objects");
    if (!hashed_reserve(t, t->n + t->pn) ||
        !gcs_big_reserve_early((void **)&t->objs, &t->cap, t->n + t->pn, sizeof *t->objs, 1024))
        return GCS_FAIL(err, GCS_ERR_NOMEM, 0, "out of memory merging new objects");
    /* A probe costs two cache misses in large arrays: the table's entry,
     * then the object it names. Both are asked for ahead, in two stages
     * (the entry AHEAD objects ahead, its object half as far, once the
     * entry is in), so that the misses of several objects overlap. */
    enum { AHEAD = 16, OBJECT_AHEAD = AHEAD / 2 };
    const size_t pn = t->pn;
    for (size_t i = 0; i < pn && i < AHEAD; i++)
        __builtin_prefetch(&t->table[hash_of(t->pending[i].address) >> t->table_shift]);
    for (size_t i = 0; i < pn; i++) {
        if (i + AHEAD < pn)
            __builtin_prefetch(
                &t->table[hash_of(t->pending[i + AHEAD].address) >> t->table_shift]);
        if (i + OBJECT_AHEAD < pn) {
            const hash_entry e =
                t->table[hash_of(t->pending[i + OBJECT_AHEAD].address) >> t->table_shift];
            if (e.index != EMPTY_ENTRY)
                __builtin_prefetch(&t->objs[e.index]);
        }
        const gcs_tracked_object *x = &t->pending[i];
        size_t slot;
        uint32_t index = hashed_find(t, x->address, &slot);
        if (index == EMPTY_ENTRY) {
            index = (uint32_t)t->n++;
            t->objs[index] = *x;
            t->table[slot] = (hash_entry){index, (uint32_t)hash_of(x->address)};
            if (!t->objs_flagged && !note_flagged(t, index))
                t->objs_flagged = true;
            continue;
        }
        /* One object a GC at an address (an earlier pending one, or one
         * added since the last GC: both new): a duplicate. Else the one
         * there died unseen. */
        gcs_tracked_object *old = &t->objs[index];
        t->stats.objects_tracked--;
        if (old->flags & OBJ_NEW) {
            t->stats.duplicate_adds++;
            continue;
        }
        retire(t, old, GCS_DEATH_UNSEEN, t->last_gc_number, -1, t->gc_time);
        if (!t->objs_flagged && !(old->flags & OBJ_PRIVATE) && !note_flagged(t, index))
            t->objs_flagged = true;
        *old = *x;
    }
    t->pn = 0;
    if (t->pcap > PENDING_KEEP) { /* a burst of adds: give the memory back */
        free(t->pending);
        t->pending = NULL;
        t->pcap = 0;
    }
    return GCS_OK;
}

/* Heapsort by address: the sort of last resort, in place, when there is
 * no memory for the merge sort's buffer (the addresses are unique, so it
 * needs no stability). */
static void sift_down(gcs_tracked_object *a, size_t at, size_t n)
{
    for (;;) {
        size_t child = 2 * at + 1;
        if (child >= n)
            return;
        if (child + 1 < n && a[child].address < a[child + 1].address)
            child++;
        if (a[at].address >= a[child].address)
            return;
        gcs_tracked_object swap = a[at];
        a[at] = a[child];
        a[child] = swap;
        at = child;
    }
}

static void heap_sort_objects(gcs_tracked_object *a, size_t n)
{
    for (size_t i = n / 2; i-- > 0;)
        sift_down(a, i, n);
    for (size_t end = n; end > 1; end--) {
        gcs_tracked_object top = a[0];
        a[0] = a[end - 1];
        a[end - 1] = top;
        sift_down(a, 0, end - 1);
    }
}

/* Sorts objs and leaves hashed mode for good (nothing pending). Cannot
 * fail: without memory for the merge sort, a heapsort in place. */
static void leave_hashed(gcs_objtrack *t)
{
    if (!t->hashed)
        return;
    assert(t->pn == 0 && t->recent_n == 0 && t->old_n == 0);
    /* The table first: the sort's buffer may take its memory. */
    gcs_big_free(t->table, t->table_cap * sizeof *t->table);
    t->table = NULL;
    t->table_cap = 0;
    t->hashed = false;
    if (gcs_objtrack_heapsort_only || !sort_objects(t->objs, t->n))
        heap_sort_objects(t->objs, t->n);
    t->objs_flagged = true; /* objs' objects moved */
    t->flagged_n = 0;
}

/*
 * Merges pending objects into the recent array: O(p log n + r) for p new
 * objects, r recent ones, n in all. At one address: a second object added
 * since the last GC is a duplicate (the first is kept); an object that was
 * there before the last GC died unseen (its address was reused). The
 * recent array joins objs once it holds an eighth of them.
 */
static gcs_status merge_pending(gcs_objtrack *t, gcs_error *err)
{
    if (t->pn == 0)
        return GCS_OK;
    t->adds_avg = (7 * t->adds_avg + t->pn) / 8;
    if (t->hashed)
        return merge_pending_hashed(t, err);
    if (!sort_objects(t->pending, t->pn))
        return GCS_FAIL(err, GCS_ERR_NOMEM, 0, "out of memory sorting new objects");
    uint64_t first = t->pending[0].address;
    bool all_above = (t->n == 0 || first > t->objs[t->n - 1].address) &&
                     (t->recent_n == 0 || first > t->recent[t->recent_n - 1].address) &&
                     (t->old_n == 0 || first > t->old[t->old_n - 1].address);
    /* Where the pending objects would go in objs and in old, searched
     * AT_CHUNK at a time, all of a chunk at once (lower_bounds), when the
     * loop reaches it (pending[i..] is not overwritten yet: k <= i). The
     * places stay right through the loop: objs changes only in place, at
     * the same address, and old closes its holes below the places still
     * to come (see below). Without memory for them, one search each. */
    enum { AT_CHUNK = 4096 };
    const size_t *at_objs = NULL, *at_old = NULL; /* the chunk's, from chunk_start */
    size_t chunk_start = 0, chunk_end = 0;
    if (!all_above && !t->at)
        t->at = malloc(2 * AT_CHUNK * sizeof *t->at);
    size_t k = 0, old_gone = 0, old_kept = 0, old_from = 0;
    for (size_t i = 0; i < t->pn; i++) {
        gcs_tracked_object *x = &t->pending[i];
        if (!all_above && t->at && i == chunk_end) {
            size_t m = t->pn - i < AT_CHUNK ? t->pn - i : AT_CHUNK;
            at_objs = t->at;
            at_old = t->at + AT_CHUNK;
            lower_bounds(t->objs, t->n, x, m, t->at);
            lower_bounds(t->old, t->old_n, x, m, t->at + AT_CHUNK);
            chunk_start = i;
            chunk_end = i + m;
        }
        if (k > 0 && t->pending[k - 1].address == x->address) {
            t->stats.duplicate_adds++; /* stable sort: the first added is kept */
            t->stats.objects_tracked--;
            continue;
        }
        if (!all_above) {
            gcs_tracked_object *old =
                at_objs ? found_at(t->objs, t->n, at_objs[i - chunk_start], x->address)
                        : find_in(t->objs, t->n, x->address);
            bool in_objs = old != NULL;
            if (!old)
                old = find_in(t->recent, t->recent_n, x->address);
            gcs_tracked_object *settled =
                old ? NULL
                    : at_old ? found_at(t->old, t->old_n, at_old[i - chunk_start], x->address)
                             : find_in(t->old, t->old_n, x->address);
            if (settled) {
                /* Settled, so not new: it died unseen. The new object
                 * joins the recent ones; the old array loses the dead one.
                 * Pending ascends, so the holes do too; each is closed up
                 * to here: every entry before old_from is at most this
                 * address, below all the addresses still sought, so the
                 * binary search stays right. */
                t->stats.objects_tracked--;
                retire(t, settled, GCS_DEATH_UNSEEN, t->last_gc_number, -1, t->gc_time);
                size_t at = (size_t)(settled - t->old);
                memmove(t->old + old_kept, t->old + old_from, (at - old_from) * sizeof *t->old);
                old_kept += at - old_from;
                old_from = at + 1;
                old_gone++;
                t->pending[k++] = *x;
                continue;
            }
            if (old) {
                t->stats.objects_tracked--;
                if (old->flags & OBJ_NEW) {
                    t->stats.duplicate_adds++;
                    continue;
                }
                retire(t, old, GCS_DEATH_UNSEEN, t->last_gc_number, -1, t->gc_time);
                /* An object of objs with private flags is listed already
                 * (or objs_flagged); a clear one is listed now. */
                if (in_objs && !t->objs_flagged && !(old->flags & OBJ_PRIVATE) &&
                    !note_flagged(t, (size_t)(old - t->objs)))
                    t->objs_flagged = true;
                *old = *x; /* same address: the order stays */
                continue;
            }
        }
        t->pending[k++] = *x;
    }
    if (old_gone) {
        memmove(t->old + old_kept, t->old + old_from, (t->old_n - old_from) * sizeof *t->old);
        t->old_n -= old_gone;
    }
    t->pn = k;
    if (!merge_into(&t->recent, &t->recent_n, &t->recent_cap, t->pending, t->pn))
        return GCS_FAIL(err, GCS_ERR_NOMEM, 0, "out of memory merging new objects");
    t->pn = 0;
    if (t->pcap > PENDING_KEEP) { /* a burst of adds: give the memory back */
        free(t->pending);
        t->pending = NULL;
        t->pcap = 0;
    }
    if (t->recent_n > join_threshold(t))
        return join_recent(t, true, err);
    return GCS_OK;
}

/* Every object in objs (sorted, unique): what a GC's ranges, a generation
 * layout and the caller's look need. */
static gcs_status merge_all(gcs_objtrack *t, gcs_error *err)
{
    gcs_status st = merge_pending(t, err);
    if (st != GCS_OK)
        return st;
    leave_hashed(t);
    return join_recent(t, false, err);
}

/* No range for the open GC (yet), nor stretch. */
static void clear_ranges(gcs_objtrack *t)
{
    t->rn = 0;
    t->nruns = 0;
    t->cut_open = (range_run){0, 0, 0, 0};
    t->moved_bits = 0;
    t->cut_failed = false;
}

/* Opens a GC (a GC still open is aborted first). A background GC's sweep
 * keeps the last GC begun and, for after it, that GC's time. */
static gcs_status open_gc(gcs_objtrack *t, uint32_t gc_number, int condemned, bool background,
                          int64_t time, gcs_error *err)
{
    if (t->in_gc)
        gcs_objtrack_abort_gc(t);
    gcs_status st = merge_pending(t, err);
    if (st != GCS_OK)
        return st;
    t->in_gc = true;
    t->gc_number = gc_number;
    t->condemned = condemned;
    t->background = background;
    t->gc_time_before = t->gc_time;
    t->gc_time = time;
    clear_ranges(t);
    t->ranges_cut = false;
    if (!background)
        t->last_gc_number = gc_number;
    return GCS_OK;
}

gcs_status gcs_objtrack_begin_gc(gcs_objtrack *t, uint32_t gc_number, int condemned,
                                 int64_t time, gcs_error *err)
{
    if (condemned < 0 || condemned > 2)
        return GCS_FAIL(err, GCS_ERR_ARG, 0, "condemned generation %d is not 0, 1 or 2",
                        condemned);
    return open_gc(t, gc_number, condemned, false, time, err);
}

gcs_status gcs_objtrack_begin_background_gc(gcs_objtrack *t, uint32_t gc_number, int64_t time,
                                            gcs_error *err)
{
    return open_gc(t, gc_number, GCS_GEN2, true, time, err);
}

/* Objects born during a GC that decided nothing are ordinary new
 * objects now. */
static void clear_born_in_gc(gcs_objtrack *t)
{
    for (size_t i = 0; i < t->n; i++)
        t->objs[i].flags &= (uint8_t)~OBJ_BORN_IN_GC;
    for (size_t i = 0; i < t->recent_n; i++)
        t->recent[i].flags &= (uint8_t)~OBJ_BORN_IN_GC;
    for (size_t i = 0; i < t->pn; i++)
        t->pending[i].flags &= (uint8_t)~OBJ_BORN_IN_GC;
}

/* The GC closes: a background GC gives the time back. */
static void close_gc(gcs_objtrack *t)
{
    t->in_gc = false;
    if (t->background) {
        t->background = false;
        t->gc_time = t->gc_time_before;
    }
}

void gcs_objtrack_abort_gc(gcs_objtrack *t)
{
    if (!t->in_gc)
        return;
    close_gc(t);
    clear_ranges(t);
    t->stats.gcs_aborted++;
    clear_born_in_gc(t);
}

/*
 * Stretches: a GC's ranges taken as they come when no two overlap. The
 * runtime reports them region after region: a background GC every plug
 * of the heap that survived (~200 k ranges against a few thousand tracked
 * old objects on a service trace), a compacting GC its plugs' moves (~2 k).
 * Each comes after the one before but for a few descents, and the
 * ascending runs between them interleave (a run's regions are not
 * adjacent: another run's lie between them), so the natural merge sort
 * needed several passes over the 40-byte ranges, and normalize_ranges
 * one more. Instead they are cut into stretches as they come
 * (push_ranges): ascending, disjoint ranges with no gap of over 64 KiB
 * (gcs_objtrack_stretch_gap; less than a region) between two of them, cut
 * at every descent and every wider gap. The stretches (a few hundred) are
 * sorted by start and must not overlap; then every range is disjoint from
 * every other, so the stretches in that order are the ranges sorted (by
 * old start, unique: cmp_range's order) and what normalize_ranges leaves
 * unchanged (no overlap counted, none dropped). Ranges in one stretch
 * already (the usual foreground GC) need nothing more; others are copied
 * once, stretch after stretch (order_by_stretches). A GC whose ranges
 * all stay in place (a background GC's survivors, a sweeping GC's) and
 * whose objects are all in objs is not even copied: each stretch is
 * walked over the objects from one binary search, most ranges in one
 * compare (sweep_in_place); an object lies in at most one range and
 * nothing moves, so the order of the ranges does not matter. Two ranges
 * that overlap, stretches that overlap or more than one stretch per eight
 * ranges send the GC down the general path.
 */
/* At most a stretch per eight ranges (and 64): ranges cut finer are far
 * from sorted, and the general path's merge sort is the tool for them. */
#define MAX_STRETCHES(rn) ((rn) / 8 + 64)

static int cmp_range_run(const void *pa, const void *pb)
{
    const range_run *a = pa, *b = pb;
    return (a->start > b->start) - (a->start < b->start);
}

/* Closes a stretch of the open GC, rn ranges pushed so far: past
 * MAX_STRETCHES or when memory is short, the GC gives up its stretches. */
static void keep_stretch(gcs_objtrack *t, const range_run *stretch, size_t rn)
{
    if (t->cut_failed)
        return;
    if (t->nruns >= MAX_STRETCHES(rn) ||
        !gcs_array_reserve((void **)&t->runs, &t->runs_cap, t->nruns + 1, sizeof *t->runs, 64)) {
        t->cut_failed = true;
        return;
    }
    t->runs[t->nruns++] = *stretch;
}

/* The open GC's stretches (t->runs[0..nruns), by start once sorted),
 * cut as its ranges came: false when two ranges overlap (or there were
 * too many stretches, or memory was short: the general path then). */
static bool finish_stretches(gcs_objtrack *t)
{
    if (t->cut_open.n > 0) {
        keep_stretch(t, &t->cut_open, t->rn);
        t->cut_open.n = 0;
    }
    if (t->cut_failed)
        return false;
    qsort(t->runs, t->nruns, sizeof *t->runs, cmp_range_run);
    for (size_t i = 1; i < t->nruns; i++)
        if (t->runs[i].start < t->runs[i - 1].end) /* stretches overlap */
            return false;
    return true;
}

/* Appends a chunk of ranges to the open GC's: `moved` or, when NULL,
 * `surviving` (new start = old start). Empty ranges are counted and
 * dropped, ranges past 2^64 clipped, ranges past max_ranges_per_gc
 * counted and dropped (the GC marked cut). The room for the chunk is
 * reserved once and the loop keeps the count in a register: a service
 * trace pushes tens of millions (a background GC's survivors, in plugs).
 * In line in its two calls, `moved` a constant NULL or not in each. */
static inline __attribute__((always_inline)) gcs_status
push_ranges(gcs_objtrack *t, const gcs_moved_range *moved, const gcs_surviving_range *surviving,
            size_t n, gcs_error *err)
{
    const size_t max = t->opts.max_ranges_per_gc;
    size_t rn = t->rn;
    const size_t room = rn < max ? max - rn : 0, want = n < room ? n : room;
    if (want > 0 && !gcs_big_reserve_early((void **)&t->ranges, &t->rcap, rn + want,
                                           sizeof *t->ranges, 1024))
        return GCS_FAIL(err, GCS_ERR_NOMEM, 0, "out of memory storing GC ranges");
    range *const r = t->ranges;
    /* The stretch state in registers ("Stretches", above). */
    const bool cutting = t->stretches;
    const uint64_t gap = t->stretch_gap;
    range_run open = t->cut_open;
    uint64_t moved_bits = t->moved_bits;
    for (size_t i = 0; i < n; i++) {
        const uint64_t old_start = moved ? moved[i].old_start : surviving[i].start;
        const uint64_t new_start = moved ? moved[i].new_start : old_start;
        uint64_t length = moved ? moved[i].length : surviving[i].length;
        if (length == 0) {
            t->stats.empty_ranges++;
            continue;
        }
        /* Clip ranges that would run past the end of the address space. */
        const uint64_t left = UINT64_MAX - (old_start > new_start ? old_start : new_start);
        if (length > left) {
            t->stats.wrapping_ranges++;
            length = left;
            if (length == 0)
                continue;
        }
        if (rn >= max) {
            t->stats.ranges_over_limit++;
            t->ranges_cut = true;
            continue;
        }
        r[rn] = (range){old_start, new_start, length, (uint32_t)rn, 0};
        if (cutting) {
            moved_bits |= old_start ^ new_start;
            const uint64_t end = old_start + length;
            /* The open stretch ends with the range before; a range that
             * overlaps it starts a stretch that finish_stretches' check
             * finds. */
            if (open.n > 0 && old_start >= open.end && old_start - open.end <= gap) {
                open.end = end;
                open.n++;
            } else {
                if (open.n > 0)
                    keep_stretch(t, &open, rn);
                open = (range_run){old_start, end, rn, 1};
            }
        }
        rn++;
    }
    t->rn = rn;
    t->cut_open = open;
    t->moved_bits = moved_bits;
    return GCS_OK;
}

gcs_status gcs_objtrack_add_moved(gcs_objtrack *t, const gcs_moved_range *ranges, size_t n,
                                  gcs_error *err)
{
    if (!t->in_gc) {
        gcs_objtrack_count_ranges_outside_gc(t, true, n);
        return GCS_OK;
    }
    t->stats.moved_ranges += n;
    return push_ranges(t, ranges, NULL, n, err);
}

void gcs_objtrack_count_ranges_outside_gc(gcs_objtrack *t, bool moved, size_t n)
{
    assert(!t->in_gc);
    if (moved)
        t->stats.moved_ranges += n;
    else
        t->stats.surviving_ranges += n;
    t->stats.ranges_outside_gc += n;
}

gcs_status gcs_objtrack_add_surviving(gcs_objtrack *t, const gcs_surviving_range *ranges,
                                      size_t n, gcs_error *err)
{
    if (!t->in_gc) {
        gcs_objtrack_count_ranges_outside_gc(t, false, n);
        return GCS_OK;
    }
    t->stats.surviving_ranges += n;
    return push_ranges(t, NULL, ranges, n, err);
}

/* Order: old start ascending, then longer first, then new start, then
 * arrival: a total order, so the result never depends on arrival order
 * except between identical ranges (which map identically anyway). */
static int cmp_range(const void *pa, const void *pb)
{
    const range *a = pa, *b = pb;
    if (a->old_start != b->old_start)
        return a->old_start < b->old_start ? -1 : 1;
    if (a->length != b->length)
        return a->length > b->length ? -1 : 1;
    if (a->new_start != b->new_start)
        return a->new_start < b->new_start ? -1 : 1;
    return a->seq < b->seq ? -1 : (a->seq > b->seq);
}

/*
 * Sorts the ranges and makes them disjoint. Overlap rule: an address
 * belongs to the range that starts lowest (ties: the longest, then the
 * lowest new start); a later range loses the part it shares with earlier
 * ones (its start and new start advance together, keeping its delta).
 */
/* cmp_range(a, b) < 0, in line: starts differ in almost every compare
 * (the merge sort's run scan compares each range with the one before). */
static inline bool range_less(const range *a, const range *b)
{
    if (a->old_start != b->old_start)
        return a->old_start < b->old_start;
    return cmp_range(a, b) < 0;
}
#define RANGE_LESS(x, y) range_less((x), (y))
DEFINE_NATURAL_SORT(merge_sort_ranges, range, RANGE_LESS)

/*
 * Sorts a GC's ranges by cmp_range. The runtime reports them nearly in
 * order (on a service trace, 802 k ranges in 405 GCs had 591 descents):
 * the natural merge sort takes one pass for most GCs. cmp_range is a
 * total order, so the result is the one qsort gives; qsort also when
 * memory is short.
 */
static void sort_ranges(range *a, size_t n)
{
    if (!merge_sort_ranges(a, n))
        qsort(a, n, sizeof *a, cmp_range);
}

static void normalize_ranges(gcs_objtrack *t)
{
    sort_ranges(t->ranges, t->rn);
    size_t k = 0;
    bool have_end = false;
    uint64_t covered_end = 0;
    for (size_t i = 0; i < t->rn; i++) {
        range r = t->ranges[i];
        uint64_t end = r.old_start + r.length; /* no wrap: clipped on entry */
        if (have_end && r.old_start < covered_end) {
            t->stats.overlapping_ranges++;
            if (end <= covered_end)
                continue;
            uint64_t cut = covered_end - r.old_start;
            r.old_start += cut;
            r.new_start += cut;
            r.length -= cut;
        }
        covered_end = end;
        have_end = true;
        t->ranges[k++] = r;
    }
    t->rn = k;
}

static inline bool is_condemned(uint8_t generation, int condemned)
{
    if (generation <= GCS_GEN2)
        return generation <= condemned;
    return condemned >= GCS_GEN2; /* LOH and POH go with gen 2 */
}

static inline uint8_t promoted(uint8_t generation)
{
    return generation < GCS_GEN2 ? (uint8_t)(generation + 1) : generation;
}

/* Is o outside what the GC condemns? A background GC sweeps gen 2, LOH
 * and POH only. */
static inline bool uncondemned(const gcs_tracked_object *o, bool background, int condemned)
{
    return background ? o->generation < GCS_GEN2 : !is_condemned(o->generation, condemned);
}

/* Flags of an object once the GC being applied is over: objects added
 * before it are no longer new; those born during it still are. */
static inline uint8_t flags_after_gc(uint8_t f)
{
    f &= (uint8_t)~OBJ_MOVED_NOW;
    if (f & OBJ_BORN_IN_GC)
        return (uint8_t)(f & ~OBJ_BORN_IN_GC);
    return (uint8_t)(f & ~OBJ_NEW);
}

/* A condemned object in no range of the GC died in it. */
static void gc_death(gcs_objtrack *t, const gcs_tracked_object *o)
{
    retire(t, o, t->ranges_cut ? GCS_DEATH_INCOMPLETE : GCS_DEATH_GC, t->gc_number, t->condemned,
           t->gc_time);
    t->stats.objects_tracked--;
}

/* What the open GC makes of an object not born during it, `in` one of
 * its ranges: spared (not condemned; counted when in a range), dead
 * (retired here) or survived (the caller moves and promotes it). */
typedef enum gc_fate { FATE_SPARED, FATE_DIED, FATE_SURVIVED } gc_fate;
static inline gc_fate object_fate(gcs_objtrack *t, const gcs_tracked_object *o, bool in,
                                  bool background, int condemned, uint64_t *uncondemned_in_range)
{
    if (uncondemned(o, background, condemned)) {
        *uncondemned_in_range += in;
        return FATE_SPARED;
    }
    if (!in) {
        gc_death(t, o);
        return FATE_DIED;
    }
    return FATE_SURVIVED;
}

/* After a sort: two objects on one address means bad ranges. The one this
 * GC moved there wins (the ranges are this GC's word); otherwise the first
 * (lower old order) is kept. */
static void resolve_collisions(gcs_objtrack *t)
{
    size_t k = 0;
    for (size_t i = 0; i < t->n; i++) {
        gcs_tracked_object o = t->objs[i];
        if (k > 0 && t->objs[k - 1].address == o.address) {
            gcs_tracked_object *prev = &t->objs[k - 1];
            t->stats.address_collisions++;
            t->stats.objects_tracked--;
            if ((o.flags & OBJ_MOVED_NOW) && !(prev->flags & OBJ_MOVED_NOW)) {
                retire(t, prev, GCS_DEATH_COLLISION, t->gc_number, t->condemned, t->gc_time);
                *prev = o;
            } else {
                retire(t, &o, GCS_DEATH_COLLISION, t->gc_number, t->condemned, t->gc_time);
            }
            continue;
        }
        t->objs[k++] = o;
    }
    t->n = k;
}

/* A GC without ranges: only the flags change. Of objs, only the objects
 * that may carry private flags are visited (flags_after_gc leaves an
 * object without them as it is); those that keep some are listed for the
 * next GC. */
static void age_flags(gcs_objtrack *t)
{
    for (size_t i = 0; i < t->recent_n; i++)
        t->recent[i].flags = flags_after_gc(t->recent[i].flags);
    size_t kept = 0;
    if (t->objs_flagged) {
        t->objs_flagged = false;
        t->flagged_n = 0;
        for (size_t i = 0; i < t->n; i++) {
            uint8_t f = flags_after_gc(t->objs[i].flags);
            t->objs[i].flags = f;
            if ((f & OBJ_PRIVATE) && !t->objs_flagged && !note_flagged(t, i))
                t->objs_flagged = true;
        }
        return;
    }
    for (size_t k = 0; k < t->flagged_n; k++) {
        size_t i = t->flagged[k];
        uint8_t f = flags_after_gc(t->objs[i].flags);
        t->objs[i].flags = f;
        if (f & OBJ_PRIVATE)
            t->flagged[kept++] = i;
    }
    t->flagged_n = kept;
}

/* Puts the ranges in the order of their stretches (sorted, disjoint):
 * what sort_ranges and normalize_ranges would make of them. False when
 * memory is short (nothing changed). */
static bool order_by_stretches(gcs_objtrack *t)
{
    const range_run *runs = t->runs;
    const size_t nruns = t->nruns;
    size_t next = 0;
    bool ordered = true;
    for (size_t q = 0; q < nruns && ordered; q++) {
        ordered = runs[q].first == next;
        next += runs[q].n;
    }
    if (ordered)
        return true;
    if (!gcs_big_reserve_early((void **)&t->ranges_spare, &t->ranges_spare_cap, t->rn,
                               sizeof *t->ranges, 1024))
        return false;
    range *to = t->ranges_spare;
    for (size_t q = 0; q < nruns; q++) {
        memcpy(to, t->ranges + runs[q].first, runs[q].n * sizeof *to);
        to += runs[q].n;
    }
    range *old = t->ranges;
    size_t old_cap = t->rcap;
    t->ranges = t->ranges_spare;
    t->rcap = t->ranges_spare_cap;
    t->ranges_spare = old;
    t->ranges_spare_cap = old_cap;
    return true;
}

/* Would the general walk condemn o (and so mark its range used)? */
static inline bool sweep_condemns(const gcs_tracked_object *o, bool background, int condemned)
{
    return !(o->flags & OBJ_BORN_IN_GC) && !uncondemned(o, background, condemned);
}

/* Applies the open GC, whose ranges stay in place and were cut into
 * stretches, every object in objs (no pre-GC addresses to keep): true,
 * done; false when memory is short (nothing changed). */
static bool sweep_in_place(gcs_objtrack *t)
{
    const size_t rn = t->rn, n = t->n, nruns = t->nruns;
    if (!gcs_array_reserve((void **)&t->inside, &t->inside_cap, n + 1, 1, 1024))
        return false;
    const bool background = t->background;
    const int condemned = t->condemned;
    gcs_tracked_object *objs = t->objs;
    const range *ranges = t->ranges;
    const range_run *runs = t->runs;
    uint8_t *inside = t->inside;
    memset(inside, 0, n);
    size_t used = 0;
    for (size_t q = 0; q < nruns; q++) {
        size_t at = lower_bound(objs, n, runs[q].start);
        if (at == n || objs[at].address >= runs[q].end)
            continue; /* nothing tracked in the stretch */
        for (size_t i = runs[q].first; i < runs[q].first + runs[q].n && at < n; i++) {
            const uint64_t start = ranges[i].old_start;
            size_t lo;
            at = objects_within(objs, n, at, start, start + ranges[i].length, &lo);
            bool covers = false;
            for (size_t p = lo; p < at; p++) {
                inside[p] = 1;
                covers = covers || sweep_condemns(&objs[p], background, condemned);
            }
            used += covers;
        }
    }
    /* The general walk's object loop, nothing moving. */
    const uint8_t keep_flags = (uint8_t)~(OBJ_BORN_IN_GC | OBJ_MOVED_NOW);
    uint64_t survived = 0, uncondemned_in_range = 0;
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        gcs_tracked_object o = objs[i];
        const bool born_in_gc = o.flags & OBJ_BORN_IN_GC;
        o.flags = background ? (uint8_t)(o.flags & keep_flags) : flags_after_gc(o.flags);
        if (!born_in_gc) {
            const gc_fate fate =
                object_fate(t, &o, inside[i], background, condemned, &uncondemned_in_range);
            if (fate == FATE_DIED)
                continue;
            if (fate == FATE_SURVIVED) {
                survived++;
                o.generation = promoted(o.generation);
            }
        }
        objs[k++] = o;
    }
    t->n = k;
    t->nblocks = 0;
    t->stats.objects_survived += survived;
    t->stats.uncondemned_in_range += uncondemned_in_range;
    t->stats.ranges_covering_nothing += rn - used;
    t->in_place_sweeps++;
    clear_ranges(t);
    if (t->split)
        settle_old(t);
    return true;
}

static gcs_status end_gc_apply(gcs_objtrack *t, gcs_error *err);

gcs_status gcs_objtrack_end_gc(gcs_objtrack *t, gcs_error *err)
{
    if (!t->in_gc)
        return GCS_FAIL(err, GCS_ERR_ARG, 0, "end_gc without begin_gc");
    gcs_status st = end_gc_apply(t, err);
    close_gc(t); /* after the deaths, which carry the GC's time */
    return st;
}

static gcs_status end_gc_apply(gcs_objtrack *t, gcs_error *err)
{
    gcs_status st = merge_pending(t, err);
    if (st != GCS_OK)
        return st;
    t->stats.gcs_applied++;
    const bool background = t->background;
    t->in_gc = false;
    if (t->rn == 0 && !t->ranges_cut) {
        /* Not reported: nothing can be decided. A background GC's end
         * ends no object's newness either. */
        if (!background)
            age_flags(t);
        else
            clear_born_in_gc(t);
        return GCS_OK;
    }
    leave_hashed(t);
    if ((st = join_recent(t, false, err)) != GCS_OK)
        return st;
    t->objs_flagged = true; /* moved objects are marked until the next GC */
    t->flagged_n = 0;
    /* A gen-2 GC may condemn old objects: it walks them all. A gen-0 or
     * gen-1 GC walks objs; pre then keeps each output object's address
     * before the GC, to check the moves against the old objects. */
    if (t->old_n > 0 &&
        (t->condemned >= GCS_GEN2 ||
         !gcs_array_reserve((void **)&t->pre, &t->pre_cap, t->n + 1, sizeof *t->pre, 1024))) {
        if ((st = old_into_objs(t, err)) != GCS_OK)
            return st;
    }
    uint64_t *const pre = t->old_n > 0 ? t->pre : NULL; /* not NULL then: reserved above */
    const bool disjoint = t->stretches && finish_stretches(t);
    if (disjoint && t->moved_bits == 0 && !pre && sweep_in_place(t))
        return GCS_OK;
    if (disjoint && order_by_stretches(t))
        t->stretch_gcs++;
    else
        normalize_ranges(t);
    /* One pass: objects and ranges both ascending by (old) address. The
     * pass also updates flags, checks that the result stays sorted and
     * notes where each block (objects of one range, or objects that stay
     * put) starts, for a re-sort. Hot loop: state in locals. */
    gcs_tracked_object *objs = t->objs;
    range *ranges = t->ranges;
    const size_t rn = t->rn, n = t->n;
    const int condemned = t->condemned;
    /* A background GC sweeps: it condemns gen 2, LOH and POH only (the
     * younger generations' objects lie in its walk too, dead or not), and
     * an object that survives keeps its generation and its flags. */
    const uint8_t keep_flags = (uint8_t)~(OBJ_BORN_IN_GC | OBJ_MOVED_NOW);
    size_t j = 0, k = 0;
    uint64_t r_start = rn ? ranges[0].old_start : UINT64_MAX;
    uint64_t r_end = rn ? r_start + ranges[0].length : UINT64_MAX;
    uint64_t survived = 0, moved = 0, uncondemned_in_range = 0;
    bool strictly_sorted = true;
    bool blocks_ok = true; /* false: out of memory recording blocks */
    size_t block_key = SIZE_MAX - 1;
    t->nblocks = 0;
    for (size_t i = 0; i < n; i++) {
        gcs_tracked_object o = objs[i];
        const uint64_t address_before = o.address;
        bool born_in_gc = o.flags & OBJ_BORN_IN_GC;
        o.flags = background ? (uint8_t)(o.flags & keep_flags) : flags_after_gc(o.flags);
        size_t key = SIZE_MAX; /* objects that stay put form blocks of their own */
        if (!born_in_gc) {
            while (j < rn && r_end <= o.address) {
                if (++j < rn) {
                    r_start = ranges[j].old_start;
                    r_end = r_start + ranges[j].length;
                }
            }
            const bool in = j < rn && r_start <= o.address;
            const gc_fate fate =
                object_fate(t, &o, in, background, condemned, &uncondemned_in_range);
            if (fate == FATE_DIED)
                continue;
            if (fate == FATE_SURVIVED) {
                ranges[j].used = 1;
                survived++;
                uint64_t moved_to = ranges[j].new_start + (o.address - r_start);
                if (moved_to != o.address) {
                    moved++;
                    o.flags |= OBJ_MOVED_NOW;
                    o.address = moved_to;
                }
                o.generation = promoted(o.generation);
                key = j;
            }
        }
        if (k > 0 && objs[k - 1].address >= o.address)
            strictly_sorted = false;
        if (key != block_key && blocks_ok) {
            if (gcs_array_reserve((void **)&t->blocks, &t->cblocks, t->nblocks + 1,
                                  sizeof *t->blocks, 1024)) {
                t->blocks[t->nblocks++].start = k;
                block_key = key;
            } else {
                blocks_ok = false;
            }
        }
        if (pre)
            pre[k] = address_before;
        objs[k++] = o;
    }
    t->n = k;
    for (size_t b = 0; b < t->nblocks; b++)
        t->blocks[b].len = (b + 1 < t->nblocks ? t->blocks[b + 1].start : k) - t->blocks[b].start;
    bool old_descent = false, old_collision = false;
    if (pre) {
        /* The old objects, as the walk over every object would have seen
         * them: those inside a range uncondemned, untouched. */
        const gcs_tracked_object *old = t->old;
        const size_t old_n = t->old_n;
        for (size_t r = 0, at = 0; r < rn && at < old_n; r++) {
            size_t lo;
            at = objects_within(old, old_n, at, ranges[r].old_start,
                                ranges[r].old_start + ranges[r].length, &lo);
            uncondemned_in_range += at - lo;
        }
        /* A moved object that passed an old one broke the address order of
         * that walk (a re-sort); one that landed on an old one's address
         * collides with it. */
        for (size_t i = 0; i < k && !old_collision; i++) {
            if (!(objs[i].flags & OBJ_MOVED_NOW))
                continue;
            uint64_t to = objs[i].address;
            uint64_t lo = pre[i] < to ? pre[i] : to, hi = pre[i] < to ? to : pre[i];
            size_t above_lo = lower_bound(old, old_n, lo);
            if (above_lo < old_n && old[above_lo].address == lo)
                above_lo++;
            if (lower_bound(old + above_lo, old_n - above_lo, hi) > 0)
                old_descent = true;
            old_collision = find_in(t->old, old_n, to) != NULL;
        }
    }
    t->stats.objects_survived += survived;
    t->stats.objects_moved += moved;
    t->stats.uncondemned_in_range += uncondemned_in_range;
    for (size_t r = 0; r < rn; r++)
        if (!ranges[r].used)
            t->stats.ranges_covering_nothing++;
    clear_ranges(t);
    if (old_collision) {
        /* Rare (bad ranges): the exact order of the collisions' deaths is
         * that of the walk over every object, which is rebuilt. */
        if ((st = walk_output_with_old(t, pre, err)) != GCS_OK)
            return st;
        blocks_ok = false; /* the blocks were objs' */
        strictly_sorted = false;
        old_descent = false;
    }
    if (old_descent && (strictly_sorted || sort_objects_run_end(t->objs, 0, t->n) == t->n))
        t->stats.resorts++; /* the walk over every object would have re-sorted */
    if (!strictly_sorted) {
        /* Blocks are strictly ascending inside; sort_disjoint_blocks
         * succeeds only when they do not touch either, so its result has
         * no two objects on one address and needs no collision pass (on
         * a service trace, 375 of 405 GCs re-sort this way). */
        bool unique = false;
        if (sort_objects_run_end(t->objs, 0, t->n) != t->n) {
            t->stats.resorts++;
            unique = blocks_ok &&
                     sort_disjoint_blocks(&t->objs, &t->cap, &t->spare, &t->spare_cap, t->n,
                                          t->blocks, t->nblocks);
            if (!unique && !sort_objects(t->objs, t->n))
                return GCS_FAIL(err, GCS_ERR_NOMEM, 0, "out of memory re-sorting objects");
        }
        if (!unique)
            resolve_collisions(t);
    }
    if (t->split)
        settle_old(t);
    /* OBJ_MOVED_NOW stays set on moved objects until the next GC's pass
     * (callers ignore the private bits); that saves a pass here. */
    return GCS_OK;
}

static int cmp_generation_range(const void *pa, const void *pb)
{
    const gcs_generation_range *a = pa, *b = pb;
    if (a->start != b->start)
        return a->start < b->start ? -1 : 1;
    if (a->used_length != b->used_length)
        return a->used_length > b->used_length ? -1 : 1;
    return (a->generation > b->generation) - (a->generation < b->generation);
}

/* cmp_generation_range(a, b) < 0, in line (starts differ in almost every
 * compare). */
static inline bool generation_range_less(const gcs_generation_range *a,
                                         const gcs_generation_range *b)
{
    if (a->start != b->start)
        return a->start < b->start;
    return cmp_generation_range(a, b) < 0;
}
#define GENERATION_RANGE_LESS(x, y) generation_range_less((x), (y))
/*
 * A layout in cmp_generation_range's order. The runtime writes one
 * generation after the other (POH, LOH, gen 2, gen 1, gen 0), each in
 * the order of its region list: a few ascending runs of a few regions
 * each, which qsort took ~30 k instructions a layout to sort (22 % of
 * `objects` on a service trace of 7,504 GCs and 757 k ranges); the
 * natural merge sort takes a pass per halving of the runs, none when the
 * layout is in order. No field the layout reads tells apart two ranges
 * that compare equal, so any sort gives the same layout; qsort when
 * memory is short.
 */
DEFINE_NATURAL_SORT(merge_sort_generation_ranges, gcs_generation_range, GENERATION_RANGE_LESS)

/*
 * A layout's few dozen ranges are fewer inversions than elements (a
 * region out of its list's order here and there): sorted by insertion in
 * about a pass, where the merge sort takes one per halving of the runs.
 * false when more than `budget` moves would be needed (a layout far out
 * of order, hostile or not): g is then a permutation of what it was, for
 * the merge sort to finish in O(n log runs).
 */
static bool insertion_sort_generation_ranges(gcs_generation_range *g, size_t n, size_t budget)
{
    for (size_t i = 1; i < n; i++) {
        if (!generation_range_less(&g[i], &g[i - 1]))
            continue;
        const gcs_generation_range x = g[i];
        size_t j = i;
        do {
            if (budget == 0) {
                g[j] = x;
                return false;
            }
            budget--;
            g[j] = g[j - 1];
            j--;
        } while (j > 0 && generation_range_less(&x, &g[j - 1]));
        g[j] = x;
    }
    return true;
}

/*
 * Gives the objects of the sorted objs[0..n) inside the ascending,
 * disjoint layout ranges g[0..gn) their range's generation, each range's
 * objects found by binary search (objects between ranges are counted, not
 * visited); adds to *outside and *changes. Returns how many objects it
 * made younger than gen 2.
 */
static size_t apply_layout(gcs_tracked_object *objs, size_t n_objs, const gcs_generation_range *g,
                           size_t gn, const gcs_generation_range *known, size_t known_n,
                           size_t *outside, size_t *changes)
{
    size_t at = 0, younger = 0, kn = 0;
    for (size_t i = 0; i < gn && at < n_objs; i++) {
        const uint64_t end = g[i].start + g[i].used_length;
        if (objs[at].address >= end)
            continue; /* the next object lies past it: none inside (kn catches up below) */
        /* The range's first object: galloping, as the objects between
         * two ranges are few. */
        size_t lo = at + gallop_lower_bound(objs + at, n_objs - at, g[i].start);
        *outside += lo - at;
        /* A range of the known layout (both ascend): its objects have its
         * generation already, and are stepped over by galloping. */
        while (kn < known_n && known[kn].start < g[i].start)
            kn++;
        if (kn < known_n && known[kn].start == g[i].start &&
            known[kn].used_length == g[i].used_length && known[kn].generation == g[i].generation) {
            at = lo + gallop_lower_bound(objs + lo, n_objs - lo, end);
            continue;
        }
        /* Any other is walked to its end: its objects are each visited
         * anyway, so its end is found by the walk, not a search. */
        const uint8_t generation = g[i].generation;
        size_t p = lo;
        for (; p < n_objs && objs[p].address < end; p++) {
            if (objs[p].generation != generation) {
                ++*changes;
                younger += objs[p].generation >= GCS_GEN2 && generation < GCS_GEN2;
                objs[p].generation = generation;
            }
        }
        at = p;
    }
    *outside += n_objs - at;
    return younger;
}

gcs_status gcs_objtrack_set_generation_ranges(gcs_objtrack *t, const gcs_generation_range *ranges,
                                              size_t n, gcs_error *err)
{
    gcs_status st = merge_all(t, err);
    if (st != GCS_OK)
        return st;
    t->stats.generation_layouts++;
    gcs_generation_range *g = n ? malloc(n * sizeof *g) : NULL;
    if (n && !g)
        return GCS_FAIL(err, GCS_ERR_NOMEM, 0, "out of memory sorting generation ranges");
    size_t gn = 0;
    for (size_t i = 0; i < n; i++) {
        gcs_generation_range r = ranges[i];
        if (r.used_length == 0 || r.generation >= GCS_GENERATION_COUNT)
            continue;
        if (r.used_length > UINT64_MAX - r.start)
            r.used_length = UINT64_MAX - r.start;
        g[gn++] = r;
    }
    if (gn > 1 && !insertion_sort_generation_ranges(g, gn, 4 * gn) && /* g is NULL when n is 0 */
        !merge_sort_generation_ranges(g, gn))
        qsort(g, gn, sizeof *g, cmp_generation_range);
    /* Same overlap rule as GC ranges: the lowest start owns an address. */
    size_t k = 0;
    uint64_t covered_end = 0;
    for (size_t i = 0; i < gn; i++) {
        gcs_generation_range r = g[i];
        uint64_t end = r.start + r.used_length;
        if (k > 0 && r.start < covered_end) {
            t->stats.generation_overlaps++;
            if (end <= covered_end)
                continue;
            r.used_length -= covered_end - r.start;
            r.start = covered_end;
        }
        covered_end = end;
        g[k++] = r;
    }
    gn = k;
    size_t outside = 0, changes = 0;
    apply_layout(t->objs, t->n, g, gn, NULL, 0, &outside, &changes);
    /* Layouts come at every GC and mostly repeat the older regions: the
     * old objects of a repeated range are not visited. */
    size_t younger = apply_layout(t->old, t->old_n, g, gn, t->old_layout,
                                  t->old_layout_valid ? t->old_layout_n : 0, &outside, &changes);
    t->stats.generation_changes_by_layout += changes;
    t->stats.objects_outside_generation_ranges += outside;
    /* Every old object has had this layout now (those it makes younger
     * leave below). Out of memory, the next layout visits them all. */
    t->old_layout_valid = gcs_array_reserve((void **)&t->old_layout, &t->old_layout_cap, gn,
                                            sizeof *t->old_layout, 16);
    if (t->old_layout_valid) {
        if (gn)
            memcpy(t->old_layout, g, gn * sizeof *g);
        t->old_layout_n = gn;
    }
    free(g);
    if (younger > 0) {
        /* Old objects made gen 0 or 1 are not settled any more: back to
         * objs, which a gen-0 or gen-1 GC walks. */
        if (!spare_at_least(&t->spare, &t->spare_cap, younger))
            return old_into_objs(t, err);
        size_t m = move_settled(t->old, &t->old_n, t->spare, false);
        if (!merge_into(&t->objs, &t->n, &t->cap, t->spare, m))
            return GCS_FAIL(err, GCS_ERR_NOMEM, 0, "out of memory merging settled objects");
        t->objs_flagged = true; /* objs' objects moved */
        t->flagged_n = 0;
    }
    return GCS_OK;
}

gcs_tracked_object *gcs_objtrack_find(gcs_objtrack *t, uint64_t address)
{
    if (merge_pending(t, NULL) != GCS_OK) {
        for (size_t i = 0; i < t->pn; i++) /* fall back to a scan */
            if (t->pending[i].address == address)
                return &t->pending[i];
    }
    if (t->hashed) {
        size_t slot;
        /* The table holds every object of objs even when the merge of
         * the pending ones failed (it changes nothing then). */
        uint32_t index = t->table_cap > 0 ? hashed_find(t, address, &slot) : EMPTY_ENTRY;
        return index == EMPTY_ENTRY ? NULL : &t->objs[index];
    }
    gcs_tracked_object *o = find_in(t->objs, t->n, address);
    if (!o)
        o = find_in(t->recent, t->recent_n, address);
    /* The caller may set public flags (GCS_OBJ_PINNED): an old object stays settled. */
    return o ? o : find_in(t->old, t->old_n, address);
}

const gcs_tracked_object *gcs_objtrack_objects_any_order(gcs_objtrack *t, size_t *count)
{
    if (!t->hashed)
        return gcs_objtrack_objects(t, count);
    if (merge_pending(t, NULL) != GCS_OK) {
        *count = 0;
        return NULL;
    }
    *count = t->n; /* every object: no recent or old ones in hashed mode */
    return t->objs;
}

const gcs_tracked_object *gcs_objtrack_objects(gcs_objtrack *t, size_t *count)
{
    if (merge_all(t, NULL) != GCS_OK || old_into_objs(t, NULL) != GCS_OK) {
        *count = 0;
        return NULL;
    }
    *count = t->n;
    return t->objs;
}
