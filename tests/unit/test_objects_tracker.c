/* Unit tests of the object tracker (gcs_objtrack_*) on synthetic GCs. */
#include <stdlib.h>

#include "check.h"
#include "gcscope.h"
#include "analysis/objects/object_tracker_internal.h"

#define MAX_DEATHS 64

typedef struct death {
    uint64_t address;
    uint32_t tag;
    gcs_death_kind kind;
    uint32_t gc;
    int condemned;
    int64_t time;
    uint8_t generation;
} death;

typedef struct deaths {
    death d[MAX_DEATHS];
    int n;
} deaths;

static void on_death(void *ctx, const gcs_tracked_object *o, gcs_death_kind kind, uint32_t gc,
                     int condemned, int64_t time)
{
    deaths *ds = ctx;
    if (ds->n < MAX_DEATHS) {
        death *d = &ds->d[ds->n++];
        d->address = o->address;
        d->tag = o->tag;
        d->kind = kind;
        d->gc = gc;
        d->condemned = condemned;
        d->time = time;
        d->generation = o->generation;
    }
}

static gcs_objtrack *new_tracker(deaths *ds)
{
    gcs_objtrack_options o = {0};
    o.on_death = on_death;
    o.ctx = ds;
    memset(ds, 0, sizeof *ds);
    gcs_error err;
    return gcs_objtrack_new(&o, &err);
}

/* Adds an object whose tag is its original address (to follow it). */
static void add(gcs_objtrack *t, uint64_t address, uint8_t generation)
{
    gcs_tracked_object o = {0};
    o.address = address;
    o.tag = (uint32_t)address;
    o.size = 1;
    o.generation = generation;
    gcs_error err;
    CHECK_EQ_INT(gcs_objtrack_add(t, &o, &err), GCS_OK);
}

/* Current address of the object first added at `original`, 0 if gone. */
static uint64_t where(gcs_objtrack *t, uint64_t original)
{
    size_t n;
    const gcs_tracked_object *objs = gcs_objtrack_objects(t, &n);
    for (size_t i = 0; i < n; i++)
        if (objs[i].tag == (uint32_t)original)
            return objs[i].address;
    return 0;
}

static int generation_of(gcs_objtrack *t, uint64_t original)
{
    size_t n;
    const gcs_tracked_object *objs = gcs_objtrack_objects(t, &n);
    for (size_t i = 0; i < n; i++)
        if (objs[i].tag == (uint32_t)original)
            return objs[i].generation;
    return -1;
}

static bool died(const deaths *ds, uint64_t original)
{
    for (int i = 0; i < ds->n; i++)
        if (ds->d[i].tag == (uint32_t)original)
            return true;
    return false;
}

static const uint64_t article_objects[] = {8, 9, 10, 12, 13, 15, 16, 17, 18, 19};

/*
 * The profiling API article's worked example (addresses 08..19), with
 * range lengths in address units as the runtime reports them (bytes). The
 * object at 10 spans 10-11 (after the GC 10 -> 08 and 12 -> 10 are two apart), so the
 * block that carries 10 and 12 is 3 long: (10 -> 08, 3).
 */
static void test_article_example(void)
{
    deaths ds;
    gcs_objtrack *t = new_tracker(&ds);
    /* Added in reverse order: the tracker must not care. */
    for (int i = 9; i >= 0; i--)
        add(t, article_objects[i], GCS_GEN0);
    gcs_error err;
    CHECK_EQ_INT(gcs_objtrack_begin_gc(t, 1, 0, 1000, &err), GCS_OK);
    gcs_moved_range r[] = {{8, 7, 1}, {10, 8, 3}, {15, 11, 4}};
    CHECK_EQ_INT(gcs_objtrack_add_moved(t, r, 3, &err), GCS_OK);
    CHECK_EQ_INT(gcs_objtrack_end_gc(t, &err), GCS_OK);
    CHECK_EQ_U64(where(t, 8), 7);
    CHECK_EQ_U64(where(t, 10), 8);
    CHECK_EQ_U64(where(t, 12), 10);
    CHECK_EQ_U64(where(t, 15), 11);
    CHECK_EQ_U64(where(t, 16), 12);
    CHECK_EQ_U64(where(t, 17), 13);
    CHECK_EQ_U64(where(t, 18), 14);
    CHECK_EQ_INT(ds.n, 3);
    CHECK(died(&ds, 9));
    CHECK(died(&ds, 13));
    CHECK(died(&ds, 19));
    /* Deaths come in ascending address order with the GC's facts. */
    CHECK_EQ_U64(ds.d[0].address, 9);
    CHECK_EQ_U64(ds.d[1].address, 13);
    CHECK_EQ_U64(ds.d[2].address, 19);
    CHECK_EQ_INT(ds.d[0].kind, GCS_DEATH_GC);
    CHECK_EQ_INT(ds.d[0].gc, 1);
    CHECK_EQ_INT(ds.d[0].condemned, 0);
    CHECK_EQ_INT(ds.d[0].time, 1000);
    /* Survivors of a gen0 GC are in gen1 now. */
    CHECK_EQ_INT(generation_of(t, 15), 1);
    const gcs_objtrack_stats *s = gcs_objtrack_get_stats(t);
    CHECK_EQ_U64(s->objects_tracked, 7);
    CHECK_EQ_U64(s->objects_survived, 7);
    CHECK_EQ_U64(s->objects_moved, 7);
    CHECK_EQ_U64(s->deaths[GCS_DEATH_GC], 3);
    CHECK_EQ_U64(s->overlapping_ranges, 0);
    CHECK_EQ_U64(s->resorts, 0);
    gcs_objtrack_free(t);
}

/*
 * The article's block table as printed says (10 -> 08, length 2). Under
 * the article's own rule (start <= id < start + length) that block does
 * not reach 12: the tracker then reports 12 dead. Pinned down so nobody
 * "fixes" the rule to make the printed table work.
 */
static void test_article_table_as_printed(void)
{
    deaths ds;
    gcs_objtrack *t = new_tracker(&ds);
    for (int i = 0; i < 10; i++)
        add(t, article_objects[i], GCS_GEN0);
    gcs_error err;
    gcs_objtrack_begin_gc(t, 1, 0, 0, &err);
    gcs_moved_range r[] = {{8, 7, 1}, {10, 8, 2}, {15, 11, 4}};
    gcs_objtrack_add_moved(t, r, 3, &err);
    gcs_objtrack_end_gc(t, &err);
    CHECK_EQ_U64(where(t, 10), 8);
    CHECK_EQ_U64(where(t, 12), 0);
    CHECK(died(&ds, 12));
    CHECK_EQ_INT(ds.n, 4);
    gcs_objtrack_free(t);
}

/* A non-compacting gen1 GC: surviving ranges keep addresses; gen1
 * survivors go to gen2, gen0 survivors to gen1; uncovered ones die. */
static void test_surviving_ranges(void)
{
    deaths ds;
    gcs_objtrack *t = new_tracker(&ds);
    add(t, 100, GCS_GEN0);
    add(t, 200, GCS_GEN0);
    add(t, 300, GCS_GEN1);
    add(t, 400, GCS_GEN1);
    add(t, 500, GCS_GEN2);
    gcs_error err;
    gcs_objtrack_begin_gc(t, 5, 1, 50, &err);
    gcs_surviving_range r[] = {{100, 16}, {400, 8}};
    CHECK_EQ_INT(gcs_objtrack_add_surviving(t, r, 2, &err), GCS_OK);
    CHECK_EQ_INT(gcs_objtrack_end_gc(t, &err), GCS_OK);
    CHECK_EQ_U64(where(t, 100), 100);
    CHECK_EQ_U64(where(t, 400), 400);
    CHECK_EQ_U64(where(t, 500), 500);
    CHECK_EQ_INT(generation_of(t, 100), 1);
    CHECK_EQ_INT(generation_of(t, 400), 2);
    CHECK_EQ_INT(generation_of(t, 500), 2);
    CHECK_EQ_INT(ds.n, 2);
    CHECK(died(&ds, 200));
    CHECK(died(&ds, 300));
    CHECK_EQ_INT(ds.d[1].generation, 1); /* 300 died while in gen1 */
    CHECK_EQ_INT(ds.d[1].condemned, 1);
    CHECK_EQ_U64(gcs_objtrack_get_stats(t)->objects_moved, 0);
    gcs_objtrack_free(t);
}

/* A gen0 GC leaves gen1 and gen2 objects alone, even uncovered, and even
 * when a (bogus) range covers them. */
static void test_gen0_gc_spares_older(void)
{
    deaths ds;
    gcs_objtrack *t = new_tracker(&ds);
    add(t, 1000, GCS_GEN2);
    add(t, 2000, GCS_GEN1);
    add(t, 3000, GCS_GEN2);
    add(t, 4000, GCS_GEN_LOH);
    add(t, 5000, GCS_GEN0);
    add(t, 6000, GCS_GEN0);
    gcs_error err;
    gcs_objtrack_begin_gc(t, 2, 0, 0, &err);
    gcs_moved_range r[] = {{5000, 900, 8}, {3000, 10, 8}};
    gcs_objtrack_add_moved(t, r, 2, &err);
    gcs_objtrack_end_gc(t, &err);
    CHECK_EQ_U64(where(t, 1000), 1000);
    CHECK_EQ_U64(where(t, 2000), 2000);
    CHECK_EQ_U64(where(t, 3000), 3000);
    CHECK_EQ_U64(where(t, 4000), 4000);
    CHECK_EQ_U64(where(t, 5000), 900);
    CHECK_EQ_INT(generation_of(t, 1000), 2);
    CHECK_EQ_INT(generation_of(t, 2000), 1);
    CHECK_EQ_INT(generation_of(t, 5000), 1);
    CHECK_EQ_INT(ds.n, 1);
    CHECK(died(&ds, 6000));
    const gcs_objtrack_stats *s = gcs_objtrack_get_stats(t);
    CHECK_EQ_U64(s->uncondemned_in_range, 1);
    /* 900 < 1000: the move broke address order and was re-sorted. */
    CHECK_EQ_U64(s->resorts, 1);
    size_t n;
    const gcs_tracked_object *objs = gcs_objtrack_objects(t, &n);
    CHECK_EQ_U64(n, 5);
    for (size_t i = 1; i < n; i++)
        CHECK(objs[i - 1].address < objs[i].address);
    /* A gen2 GC then condemns everything, LOH included. */
    gcs_objtrack_begin_gc(t, 3, 2, 0, &err);
    gcs_surviving_range s2[] = {{1000, 1}};
    gcs_objtrack_add_surviving(t, s2, 1, &err);
    gcs_objtrack_end_gc(t, &err);
    CHECK_EQ_U64(gcs_objtrack_get_stats(t)->objects_tracked, 1);
    CHECK(died(&ds, 4000));
    CHECK(died(&ds, 2000));
    gcs_objtrack_free(t);
}

/* Ranges split over several calls, out of order, with moves that cross:
 * same result as one sorted call. */
static void test_split_out_of_order(void)
{
    deaths ds;
    gcs_objtrack *t = new_tracker(&ds);
    for (uint64_t a = 1; a <= 40; a++)
        add(t, a * 100, GCS_GEN0);
    gcs_error err;
    gcs_objtrack_begin_gc(t, 9, 1, 0, &err);
    /* Even objects survive; object k*100 in block [k*100, k*100+50). Blocks
     * are swapped pairwise in the new layout so the order changes. */
    for (uint64_t k = 40; k >= 2; k -= 2) {
        gcs_moved_range r = {k * 100, 100000 + (k % 4 == 0 ? k - 2 : k + 2) * 100, 50};
        CHECK_EQ_INT(gcs_objtrack_add_moved(t, &r, 1, &err), GCS_OK);
    }
    size_t nr;
    CHECK(gcs_objtrack_in_gc(t, &nr));
    CHECK_EQ_U64(nr, 20);
    CHECK_EQ_INT(gcs_objtrack_end_gc(t, &err), GCS_OK);
    CHECK(!gcs_objtrack_in_gc(t, NULL));
    for (uint64_t k = 2; k <= 40; k += 2)
        CHECK_EQ_U64(where(t, k * 100), 100000 + (k % 4 == 0 ? k - 2 : k + 2) * 100);
    CHECK_EQ_INT(ds.n, 20);
    for (uint64_t k = 1; k <= 40; k += 2)
        CHECK(died(&ds, k * 100));
    CHECK_EQ_U64(gcs_objtrack_get_stats(t)->resorts, 1);
    size_t n;
    const gcs_tracked_object *objs = gcs_objtrack_objects(t, &n);
    for (size_t i = 1; i < n; i++)
        CHECK(objs[i - 1].address < objs[i].address);
    gcs_objtrack_free(t);
}

/* Adjacent ranges: an object at the first byte of the second range takes
 * the second's delta; an object at the end of the first (exclusive) too.
 * Empty ranges cover nothing and are counted. */
static void test_adjacent_and_empty(void)
{
    deaths ds;
    gcs_objtrack *t = new_tracker(&ds);
    add(t, 100, GCS_GEN0);
    add(t, 109, GCS_GEN0);
    add(t, 110, GCS_GEN0);
    add(t, 150, GCS_GEN0);
    gcs_error err;
    gcs_objtrack_begin_gc(t, 1, 0, 0, &err);
    gcs_moved_range r[] = {{110, 20, 10}, {150, 150, 0}, {100, 10, 10}};
    gcs_objtrack_add_moved(t, r, 3, &err);
    gcs_objtrack_end_gc(t, &err);
    CHECK_EQ_U64(where(t, 100), 10);
    CHECK_EQ_U64(where(t, 109), 19);
    CHECK_EQ_U64(where(t, 110), 20);
    CHECK(died(&ds, 150));
    const gcs_objtrack_stats *s = gcs_objtrack_get_stats(t);
    CHECK_EQ_U64(s->empty_ranges, 1);
    CHECK_EQ_U64(s->overlapping_ranges, 0);
    CHECK_EQ_U64(s->ranges_covering_nothing, 0);
    gcs_objtrack_free(t);
}

/*
 * Overlapping ranges, the rule: an address belongs to the range starting
 * lowest (ties: the longer); the later range keeps only its part beyond
 * the earlier one, with its own delta. Objects outside the overlap are
 * remapped exactly as without it; arrival order does not matter.
 */
static void test_overlapping_ranges(void)
{
    for (int order = 0; order < 2; order++) {
        deaths ds;
        gcs_objtrack *t = new_tracker(&ds);
        add(t, 100, GCS_GEN0); /* only in A */
        add(t, 115, GCS_GEN0); /* in A and B: A wins */
        add(t, 125, GCS_GEN0); /* only in B */
        add(t, 300, GCS_GEN0); /* in C, and in D (same start, shorter) */
        add(t, 500, GCS_GEN0); /* in E; F lies entirely inside E */
        add(t, 700, GCS_GEN0); /* untouched by any overlap */
        gcs_error err;
        gcs_objtrack_begin_gc(t, 1, 0, 0, &err);
        gcs_moved_range r[] = {
            {100, 1000, 20},  /* A */
            {110, 2000, 20},  /* B */
            {300, 3000, 10},  /* C */
            {300, 4000, 5},   /* D */
            {500, 5000, 100}, /* E */
            {520, 6000, 10},  /* F */
            {700, 7000, 8},
        };
        if (order == 0) {
            gcs_objtrack_add_moved(t, r, 7, &err);
        } else {
            for (int i = 6; i >= 0; i--)
                gcs_objtrack_add_moved(t, &r[i], 1, &err);
        }
        gcs_objtrack_end_gc(t, &err);
        CHECK_EQ_U64(where(t, 100), 1000);
        CHECK_EQ_U64(where(t, 115), 1015);
        CHECK_EQ_U64(where(t, 125), 2015);
        CHECK_EQ_U64(where(t, 300), 3000);
        CHECK_EQ_U64(where(t, 500), 5000);
        CHECK_EQ_U64(where(t, 700), 7000);
        CHECK_EQ_INT(ds.n, 0);
        const gcs_objtrack_stats *s = gcs_objtrack_get_stats(t);
        CHECK_EQ_U64(s->overlapping_ranges, 3);
        CHECK_EQ_U64(s->address_collisions, 0);
        gcs_objtrack_free(t);
    }
}

/* Ranges that cover no tracked object, and ranges with no GC open. */
static void test_bad_range_lists(void)
{
    deaths ds;
    gcs_objtrack *t = new_tracker(&ds);
    add(t, 100, GCS_GEN0);
    gcs_error err;
    gcs_moved_range orphan = {100, 50, 10};
    CHECK_EQ_INT(gcs_objtrack_add_moved(t, &orphan, 1, &err), GCS_OK);
    CHECK_EQ_U64(where(t, 100), 100);
    CHECK_EQ_U64(gcs_objtrack_get_stats(t)->ranges_outside_gc, 1);
    /* Counted without their values, as the calls above count them. */
    gcs_objtrack_count_ranges_outside_gc(t, false, 5);
    gcs_objtrack_count_ranges_outside_gc(t, true, 2);
    CHECK_EQ_U64(gcs_objtrack_get_stats(t)->ranges_outside_gc, 8);
    CHECK_EQ_U64(gcs_objtrack_get_stats(t)->moved_ranges, 3);
    CHECK_EQ_U64(gcs_objtrack_get_stats(t)->surviving_ranges, 5);
    CHECK(gcs_objtrack_end_gc(t, &err) == GCS_ERR_ARG);
    gcs_objtrack_begin_gc(t, 1, 0, 0, &err);
    gcs_surviving_range r[] = {{100, 4}, {5000, 100}, {UINT64_MAX - 2, 100}};
    gcs_objtrack_add_surviving(t, r, 3, &err);
    gcs_objtrack_end_gc(t, &err);
    CHECK_EQ_U64(where(t, 100), 100);
    const gcs_objtrack_stats *s = gcs_objtrack_get_stats(t);
    CHECK_EQ_U64(s->ranges_covering_nothing, 2);
    CHECK_EQ_U64(s->wrapping_ranges, 1);
    CHECK_EQ_INT(ds.n, 0);
    /* A GC that reports no range decides nothing. */
    gcs_objtrack_begin_gc(t, 2, 2, 0, &err);
    gcs_objtrack_end_gc(t, &err);
    CHECK_EQ_U64(where(t, 100), 100);
    CHECK_EQ_INT(generation_of(t, 100), 1);
    /* Collision: a range moves an object onto a gen2 object's address. */
    add(t, 7000, GCS_GEN2);
    add(t, 8000, GCS_GEN0);
    gcs_objtrack_begin_gc(t, 3, 0, 0, &err);
    gcs_moved_range m = {8000, 7000, 8};
    gcs_objtrack_add_moved(t, &m, 1, &err);
    gcs_objtrack_end_gc(t, &err);
    CHECK_EQ_U64(gcs_objtrack_get_stats(t)->address_collisions, 1);
    CHECK_EQ_U64(where(t, 8000), 7000);
    CHECK(died(&ds, 7000));
    CHECK_EQ_INT(ds.d[ds.n - 1].kind, GCS_DEATH_COLLISION);
    gcs_objtrack_free(t);
}

/* A background GC's sweep: its surviving ranges (the whole heap still
 * there at its end) condemn gen 2, LOH and POH only; younger objects stay
 * as they were (not promoted, not aged: a second add at a new object's
 * address is still a duplicate); objects added during it are spared; the
 * deaths carry its number and time, and the unseen deaths after it the
 * last foreground GC's. */
static void test_background_gc(void)
{
    deaths ds;
    gcs_objtrack *t = new_tracker(&ds);
    gcs_error err;
    add(t, 100, GCS_GEN2);
    add(t, 200, GCS_GEN2);
    add(t, 300, GCS_GEN_LOH);
    add(t, 400, GCS_GEN0);
    add(t, 500, GCS_GEN1);
    add(t, 600, GCS_GEN_POH);
    CHECK_EQ_INT(gcs_objtrack_begin_gc(t, 7, 0, 70, &err), GCS_OK); /* no ranges: ages */
    CHECK_EQ_INT(gcs_objtrack_end_gc(t, &err), GCS_OK);
    add(t, 700, GCS_GEN0); /* new since GC 7 */
    CHECK_EQ_INT(gcs_objtrack_begin_background_gc(t, 6, 90, &err), GCS_OK);
    gcs_surviving_range live[] = {{100, 8}, {500, 8}, {600, 8}};
    CHECK_EQ_INT(gcs_objtrack_add_surviving(t, live, 3, &err), GCS_OK);
    add(t, 800, GCS_GEN_LOH); /* during the sweep: spared */
    CHECK_EQ_INT(gcs_objtrack_end_gc(t, &err), GCS_OK);
    CHECK_EQ_INT(ds.n, 2);
    CHECK(died(&ds, 200) && died(&ds, 300));
    for (int i = 0; i < ds.n; i++) {
        CHECK_EQ_INT(ds.d[i].kind, GCS_DEATH_GC);
        CHECK_EQ_INT((int)ds.d[i].gc, 6);
        CHECK_EQ_INT(ds.d[i].condemned, 2);
        CHECK_EQ_INT((int)ds.d[i].time, 90);
    }
    CHECK_EQ_INT(generation_of(t, 100), GCS_GEN2);
    CHECK_EQ_INT(generation_of(t, 400), GCS_GEN0); /* outside every range: not condemned */
    CHECK_EQ_INT(generation_of(t, 500), GCS_GEN1); /* not promoted */
    CHECK_EQ_INT(generation_of(t, 600), GCS_GEN_POH);
    CHECK_EQ_U64(where(t, 800), 800);
    CHECK_EQ_U64(where(t, 700), 700);
    /* 700 is still new: the same address again is a duplicate ... */
    uint64_t dups = gcs_objtrack_get_stats(t)->duplicate_adds;
    gcs_tracked_object again = {0};
    again.address = 700;
    again.tag = 7001;
    CHECK_EQ_INT(gcs_objtrack_add(t, &again, &err), GCS_OK);
    CHECK_EQ_U64(where(t, 7001), 0);
    CHECK_EQ_U64(gcs_objtrack_get_stats(t)->duplicate_adds, dups + 1);
    /* ... and 400, aged by GC 7, died unseen: GC 7's number and time. */
    again.address = 400;
    again.tag = 4001;
    CHECK_EQ_INT(gcs_objtrack_add(t, &again, &err), GCS_OK);
    CHECK_EQ_U64(where(t, 4001), 400);
    CHECK_EQ_INT(ds.n, 3);
    CHECK_EQ_INT(ds.d[2].kind, GCS_DEATH_UNSEEN);
    CHECK_EQ_INT((int)ds.d[2].gc, 7);
    CHECK_EQ_INT((int)ds.d[2].time, 70);
    /* A background GC that reported nothing decides nothing, ages nothing. */
    CHECK_EQ_INT(gcs_objtrack_begin_background_gc(t, 8, 95, &err), GCS_OK);
    CHECK_EQ_INT(gcs_objtrack_end_gc(t, &err), GCS_OK);
    CHECK_EQ_INT(ds.n, 3);
    again.address = 700;
    again.tag = 7002;
    CHECK_EQ_INT(gcs_objtrack_add(t, &again, &err), GCS_OK);
    CHECK_EQ_U64(where(t, 7002), 0);
    CHECK_EQ_U64(gcs_objtrack_get_stats(t)->duplicate_adds, dups + 2);
    gcs_objtrack_free(t);
}

/* Address reuse and duplicates. */
static void test_adds(void)
{
    deaths ds;
    gcs_objtrack *t = new_tracker(&ds);
    add(t, 100, GCS_GEN0);
    gcs_tracked_object dup = {0};
    dup.address = 100;
    dup.tag = 999;
    gcs_error err;
    gcs_objtrack_add(t, &dup, &err);
    CHECK_EQ_U64(where(t, 100), 100);
    CHECK_EQ_U64(where(t, 999), 0);
    CHECK_EQ_U64(gcs_objtrack_get_stats(t)->duplicate_adds, 1);
    /* A GC without ranges (e.g. background): then an allocation at 100
     * means the first object died unseen. */
    gcs_objtrack_begin_gc(t, 4, 2, 0, &err);
    gcs_objtrack_end_gc(t, &err);
    gcs_objtrack_add(t, &dup, &err);
    CHECK_EQ_U64(where(t, 999), 100);
    CHECK_EQ_INT(ds.n, 1);
    CHECK_EQ_INT(ds.d[0].kind, GCS_DEATH_UNSEEN);
    CHECK_EQ_INT(ds.d[0].tag, 100);
    /* find and user flags */
    gcs_tracked_object *o = gcs_objtrack_find(t, 100);
    CHECK(o != NULL);
    if (o)
        o->flags |= GCS_OBJ_PINNED;
    CHECK(gcs_objtrack_find(t, 101) == NULL);
    size_t n;
    const gcs_tracked_object *objs = gcs_objtrack_objects(t, &n);
    CHECK_EQ_U64(n, 1);
    CHECK(objs[0].flags & GCS_OBJ_PINNED);
    /* Limit. */
    gcs_objtrack_options opt = {0};
    opt.max_objects = 2;
    gcs_objtrack *small = gcs_objtrack_new(&opt, &err);
    add(small, 1, 0);
    add(small, 2, 0);
    gcs_tracked_object third = {0};
    third.address = 3;
    CHECK_EQ_INT(gcs_objtrack_add(small, &third, &err), GCS_ERR_LIMIT);
    CHECK_EQ_U64(gcs_objtrack_get_stats(small)->objects_over_limit, 1);
    gcs_objtrack_free(small);
    gcs_objtrack_free(t);
}

/* Generation ranges are authoritative over the promotion rule. */
static void test_generation_ranges(void)
{
    deaths ds;
    gcs_objtrack *t = new_tracker(&ds);
    add(t, 0x1000, GCS_GEN0);
    add(t, 0x2000, GCS_GEN0);
    add(t, 0x9000, GCS_GEN0);
    gcs_error err;
    gcs_objtrack_begin_gc(t, 1, 0, 0, &err);
    gcs_surviving_range r[] = {{0x1000, 0x10}, {0x2000, 0x10}, {0x9000, 0x10}};
    gcs_objtrack_add_surviving(t, r, 3, &err);
    gcs_objtrack_end_gc(t, &err);
    CHECK_EQ_INT(generation_of(t, 0x1000), 1);
    /* The runtime says: 0x1000 stayed in gen0 (no promotion), 0x2000 is
     * gen1, 0x9000 lies in no range (keeps its rule-based gen1). */
    gcs_generation_range g[] = {
        {1, 0x2000, 0x100, 0x1000},
        {0, 0x1000, 0x100, 0x1000},
        {2, 0x1080, 0x10, 0x10}, /* overlaps gen0's range: loses */
        {2, 0x5000, 0, 0x1000},  /* empty */
    };
    CHECK_EQ_INT(gcs_objtrack_set_generation_ranges(t, g, 4, &err), GCS_OK);
    CHECK_EQ_INT(generation_of(t, 0x1000), 0);
    CHECK_EQ_INT(generation_of(t, 0x2000), 1);
    CHECK_EQ_INT(generation_of(t, 0x9000), 1);
    const gcs_objtrack_stats *s = gcs_objtrack_get_stats(t);
    CHECK_EQ_U64(s->objects_outside_generation_ranges, 1);
    CHECK_EQ_U64(s->generation_changes_by_layout, 1);
    CHECK_EQ_U64(s->generation_overlaps, 1);
    gcs_objtrack_free(t);
}

/* A moved block lands between objects that stay put (older generation):
 * the blocks interleave, the general merge sort restores the order. */
static void test_resort_interleaved(void)
{
    deaths ds;
    gcs_objtrack *t = new_tracker(&ds);
    add(t, 1000, GCS_GEN2);
    add(t, 2000, GCS_GEN2);
    add(t, 3000, GCS_GEN2);
    add(t, 5000, GCS_GEN0);
    add(t, 5008, GCS_GEN0);
    add(t, 6000, GCS_GEN0);
    gcs_error err;
    gcs_objtrack_begin_gc(t, 1, 1, 0, &err);
    gcs_moved_range r[] = {{5000, 2500, 16}, {6000, 1500, 8}};
    gcs_objtrack_add_moved(t, r, 2, &err);
    gcs_objtrack_end_gc(t, &err);
    size_t n;
    const gcs_tracked_object *objs = gcs_objtrack_objects(t, &n);
    static const uint64_t want[] = {1000, 1500, 2000, 2500, 2508, 3000};
    CHECK_EQ_U64(n, 6);
    for (size_t i = 0; i < n && i < 6; i++)
        CHECK_EQ_U64(objs[i].address, want[i]);
    CHECK_EQ_U64(gcs_objtrack_get_stats(t)->resorts, 1);
    CHECK_EQ_U64(where(t, 6000), 1500);
    gcs_objtrack_free(t);
}

/* Objects added while a GC is open are not subject to it. */
static void test_born_in_gc(void)
{
    deaths ds;
    gcs_objtrack *t = new_tracker(&ds);
    add(t, 100, GCS_GEN0);
    gcs_error err;
    gcs_objtrack_begin_gc(t, 1, 0, 0, &err);
    add(t, 200, GCS_GEN0);
    gcs_surviving_range r = {100, 1};
    gcs_objtrack_add_surviving(t, &r, 1, &err);
    gcs_objtrack_end_gc(t, &err);
    CHECK_EQ_U64(where(t, 200), 200);
    CHECK_EQ_INT(generation_of(t, 200), 0);
    CHECK_EQ_INT(ds.n, 0);
    gcs_objtrack_free(t);
}

/* A deterministic pseudo-random workload checked against a brute-force
 * model: every object looked up in every range by linear search. */
static uint64_t rng_state = 88172645463325252ull;
static uint64_t rnd(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}

static void test_against_model(void)
{
    enum { N = 2000, GCS = 30 };
    deaths ds;
    gcs_objtrack *t = new_tracker(&ds);
    static uint64_t addr[N];
    static int gen[N];
    static bool alive[N];
    for (int i = 0; i < N; i++) {
        addr[i] = 0x10000 + (uint64_t)i * 64;
        gen[i] = 0;
        alive[i] = true;
        gcs_tracked_object o = {0};
        o.address = addr[i];
        o.tag = (uint32_t)i;
        gcs_error err;
        gcs_objtrack_add(t, &o, &err);
    }
    bool ok = true;
    for (int g = 1; g <= GCS && ok; g++) {
        int condemned = (int)(rnd() % 3);
        gcs_error err;
        gcs_objtrack_begin_gc(t, (uint32_t)g, condemned, g, &err);
        /* Survivors: random blocks of consecutive live condemned objects,
         * each moved to a fresh area (disjoint, in shuffled order). */
        static gcs_moved_range ranges[N];
        int nr = 0;
        uint64_t base = 0x100000000ull * (uint64_t)g;
        for (int i = 0; i < N;) {
            if (!alive[i] || gen[i] > condemned || rnd() % 3 == 0) {
                i++;
                continue;
            }
            int j = i;
            while (j + 1 < N && alive[j + 1] && gen[j + 1] <= condemned &&
                   addr[j + 1] == addr[j] + 64 && rnd() % 4)
                j++;
            ranges[nr].old_start = addr[i];
            ranges[nr].new_start = base + (rnd() % 1000) * 0x100000;
            ranges[nr].length = (uint64_t)(j - i + 1) * 64;
            nr++;
            i = j + 1;
        }
        for (int i = nr - 1; i > 0; i--) {
            int k = (int)(rnd() % (uint64_t)(i + 1));
            gcs_moved_range x = ranges[i];
            ranges[i] = ranges[k];
            ranges[k] = x;
        }
        /* Avoid two blocks landing on the same area. */
        for (int i = 0; i < nr; i++)
            ranges[i].new_start += (uint64_t)i * 0x1000000000ull;
        for (int i = 0; i < nr;) {
            int chunk = 1 + (int)(rnd() % 7);
            if (chunk > nr - i)
                chunk = nr - i;
            gcs_objtrack_add_moved(t, &ranges[i], (size_t)chunk, &err);
            i += chunk;
        }
        gcs_objtrack_end_gc(t, &err);
        /* Model. */
        for (int i = 0; i < N; i++) {
            if (!alive[i] || gen[i] > condemned)
                continue;
            int hit = -1;
            for (int r = 0; r < nr; r++)
                if (ranges[r].old_start <= addr[i] &&
                    addr[i] < ranges[r].old_start + ranges[r].length)
                    hit = r;
            if (hit < 0) {
                alive[i] = false;
            } else {
                addr[i] = ranges[hit].new_start + (addr[i] - ranges[hit].old_start);
                if (gen[i] < 2)
                    gen[i]++;
            }
        }
        size_t n;
        const gcs_tracked_object *objs = gcs_objtrack_objects(t, &n);
        size_t live = 0;
        for (int i = 0; i < N; i++)
            live += alive[i];
        if (n != live)
            ok = false;
        for (size_t k = 0; k < n && ok; k++) {
            uint32_t i = objs[k].tag;
            if (i >= N || !alive[i] || objs[k].address != addr[i] ||
                objs[k].generation != gen[i])
                ok = false;
            if (k > 0 && objs[k - 1].address >= objs[k].address)
                ok = false;
        }
    }
    CHECK(ok);
    CHECK(gcs_objtrack_get_stats(t)->deaths[GCS_DEATH_GC] > 0);
    CHECK(gcs_objtrack_get_stats(t)->resorts > 0);
    gcs_objtrack_free(t);
}

/* Deaths by kind, for the model below. */
enum { DEATH_KINDS = GCS_DEATH_INCOMPLETE + 1 };
static void count_death(void *ctx, const gcs_tracked_object *o, gcs_death_kind kind, uint32_t gc,
                        int condemned, int64_t time)
{
    (void)o, (void)gc, (void)condemned, (void)time;
    ((uint64_t *)ctx)[kind]++;
}

/*
 * Many GCs without ranges (a trace without the movement keyword) between
 * a few GCs with surviving ranges, addresses reused all the time, lookups
 * between GCs (which merge new objects early): the tracker keeps recent
 * objects apart from the others and visits only those that may carry
 * flags; a model of the rules says what must happen. An address added
 * again in the same interval between GCs is a duplicate; added again
 * after a GC, the old object died unseen; a GC with ranges (condemning
 * gen 2) keeps and promotes the objects in its ranges, the others die.
 */
static void run_gcs_without_ranges_against_model(int SLOTS, int GCS, int max_adds, int first_adds,
                                                 int ranges_every)
{
    int *epoch_of = malloc((size_t)SLOTS * sizeof *epoch_of); /* -1: nothing tracked at the slot */
    int *gen_of = malloc((size_t)SLOTS * sizeof *gen_of);
    gcs_surviving_range *kept = malloc((size_t)SLOTS * sizeof *kept);
    CHECK(epoch_of && gen_of && kept);
    uint64_t want[DEATH_KINDS] = {0}, got[DEATH_KINDS] = {0};
    uint64_t want_duplicates = 0;
    gcs_objtrack_options opts = {0};
    opts.on_death = count_death;
    opts.ctx = got;
    gcs_error err;
    gcs_objtrack *t = gcs_objtrack_new(&opts, &err);
    for (int i = 0; i < SLOTS; i++)
        epoch_of[i] = -1;
    bool ok = true;
    for (int g = 1; g <= GCS && ok; g++) {
        int adds = g == 1 && first_adds ? first_adds : (int)(rnd() % (unsigned)max_adds);
        for (int a = 0; a < adds; a++) {
            int slot = (int)(rnd() % SLOTS);
            if (rnd() % 8 == 0) /* a lookup merges what was added so far */
                (void)gcs_objtrack_find(t, 0x100000 + (uint64_t)slot * 64);
            gcs_tracked_object o = {0};
            o.address = 0x100000 + (uint64_t)slot * 64;
            o.tag = (uint32_t)slot;
            CHECK_EQ_INT(gcs_objtrack_add(t, &o, &err), GCS_OK);
            if (epoch_of[slot] == g) {
                want_duplicates++;
            } else {
                if (epoch_of[slot] >= 0)
                    want[GCS_DEATH_UNSEEN]++;
                epoch_of[slot] = g;
                gen_of[slot] = 0;
            }
        }
        bool with_ranges = g % ranges_every == 0;
        CHECK_EQ_INT(gcs_objtrack_begin_gc(t, (uint32_t)g, with_ranges ? 2 : 0, g, &err), GCS_OK);
        if (with_ranges) {
            size_t nk = 0;
            for (int i = 0; i < SLOTS; i++) {
                if (epoch_of[i] < 0)
                    continue;
                if (rnd() % 2) {
                    kept[nk++] = (gcs_surviving_range){0x100000 + (uint64_t)i * 64, 64};
                    gen_of[i] = gen_of[i] < 2 ? gen_of[i] + 1 : 2;
                } else {
                    want[GCS_DEATH_GC]++;
                    epoch_of[i] = -1;
                }
            }
            CHECK_EQ_INT(gcs_objtrack_add_surviving(t, kept, nk, &err), GCS_OK);
        }
        CHECK_EQ_INT(gcs_objtrack_end_gc(t, &err), GCS_OK);
        for (int k = 0; k < DEATH_KINDS; k++)
            if (got[k] != want[k]) {
                CHECK_EQ_U64(got[k], want[k]);
                ok = false;
            }
        if (gcs_objtrack_get_stats(t)->duplicate_adds != want_duplicates) {
            CHECK_EQ_U64(gcs_objtrack_get_stats(t)->duplicate_adds, want_duplicates);
            ok = false;
        }
    }
    /* Every tracked object, in address order, with its generation. */
    size_t n;
    const gcs_tracked_object *objs = gcs_objtrack_objects(t, &n);
    size_t k = 0;
    for (int i = 0; i < SLOTS && ok; i++) {
        if (epoch_of[i] < 0)
            continue;
        CHECK(k < n);
        if (k >= n)
            break;
        CHECK_EQ_U64(objs[k].address, 0x100000 + (uint64_t)i * 64);
        CHECK_EQ_INT(objs[k].generation, gen_of[i]);
        k++;
    }
    CHECK_EQ_U64(k, n);
    gcs_objtrack_free(t);
    free(epoch_of);
    free(gen_of);
    free(kept);
}

static void test_gcs_without_ranges_against_model(void)
{
    run_gcs_without_ranges_against_model(600, 120, 40, 0, 10);
    /* Enough objects (100 k first, then ~300 a GC) that recent objects
     * join the others at sqrt(2 p n) rather than n / 8 (object_tracker.c,
     * join_threshold), their flags listed at the join. */
    run_gcs_without_ranges_against_model(400000, 300, 600, 100000, 100);
}

/*
 * Generation layouts against a brute-force model: an object takes the
 * generation of the first range (by start, longer first, lower
 * generation) whose [start, start + used) holds it; objects in none keep
 * theirs and are counted outside. Random layouts over random objects:
 * ranges overlapping, empty, invalid, ending exactly at an object,
 * objects before the first and after the last range, no range at all.
 */
static void test_generation_ranges_against_model(void)
{
    enum { OBJS = 300, ROUNDS = 200, MAXR = 12 };
    static uint64_t addr[OBJS];
    static uint8_t gen[OBJS];
    gcs_error err;
    gcs_objtrack *t = gcs_objtrack_new(NULL, &err);
    for (int i = 0; i < OBJS; i++) { /* ascending, unique, uneven gaps */
        addr[i] = 0x10000 + (uint64_t)i * 64 + (rnd() % 4) * 16;
        gen[i] = (uint8_t)(rnd() % GCS_GENERATION_COUNT);
        add(t, addr[i], gen[i]);
    }
    uint64_t want_outside = 0, want_changes = 0;
    bool ok = true;
    for (int round = 0; round < ROUNDS && ok; round++) {
        gcs_generation_range g[MAXR];
        size_t gn = rnd() % (MAXR + 1);
        for (size_t r = 0; r < gn; r++) {
            /* Starts and ends often exactly on an object's address. */
            uint64_t start = addr[rnd() % OBJS] - (rnd() % 2) * 8;
            uint64_t len = rnd() % 5 == 0 ? 0 : (rnd() % 40) * 64 + (rnd() % 2) * 16;
            uint8_t generation = (uint8_t)(rnd() % (GCS_GENERATION_COUNT + 1));
            g[r] = (gcs_generation_range){generation, start, len, len};
        }
        for (int i = 0; i < OBJS; i++) {
            int owner = -1;
            for (size_t r = 0; r < gn; r++) {
                if (g[r].used_length == 0 || g[r].generation >= GCS_GENERATION_COUNT ||
                    addr[i] < g[r].start || addr[i] >= g[r].start + g[r].used_length)
                    continue;
                if (owner < 0 || g[r].start < g[owner].start ||
                    (g[r].start == g[owner].start &&
                     (g[r].used_length > g[owner].used_length ||
                      (g[r].used_length == g[owner].used_length &&
                       g[r].generation < g[owner].generation))))
                    owner = (int)r;
            }
            if (owner < 0) {
                want_outside++;
            } else if (gen[i] != g[owner].generation) {
                want_changes++;
                gen[i] = g[owner].generation;
            }
        }
        CHECK_EQ_INT(gcs_objtrack_set_generation_ranges(t, g, gn, &err), GCS_OK);
        const gcs_objtrack_stats *s = gcs_objtrack_get_stats(t);
        if (s->objects_outside_generation_ranges != want_outside ||
            s->generation_changes_by_layout != want_changes) {
            CHECK_EQ_U64(s->objects_outside_generation_ranges, want_outside);
            CHECK_EQ_U64(s->generation_changes_by_layout, want_changes);
            ok = false;
        }
        size_t n;
        const gcs_tracked_object *objs = gcs_objtrack_objects(t, &n);
        CHECK_EQ_U64(n, OBJS);
        for (size_t i = 0; i < n && i < OBJS && ok; i++)
            if (objs[i].address != addr[i] || objs[i].generation != gen[i]) {
                CHECK_EQ_U64(objs[i].address, addr[i]);
                CHECK_EQ_INT(objs[i].generation, gen[i]);
                ok = false;
            }
    }
    gcs_objtrack_free(t);
}

/* Thousands of addresses reused at once (more than one chunk of the
 * lock-step look-ups): every earlier object dies unseen, each new one
 * takes its place, whichever array the earlier one was in. */
static void test_many_reused_addresses(void)
{
    enum { N = 10000 };
    gcs_objtrack_options o = {0};
    gcs_error err;
    gcs_objtrack *t = gcs_objtrack_new(&o, &err);
    for (int round = 0; round < 3; round++) {
        for (uint32_t i = 0; i < N; i++) {
            gcs_tracked_object x = {0};
            x.address = 0x100000 + (uint64_t)i * 64;
            x.tag = (uint32_t)round;
            x.generation = round == 0 ? GCS_GEN2 : GCS_GEN0; /* the first ones settle */
            CHECK_EQ_INT(gcs_objtrack_add(t, &x, &err), GCS_OK);
        }
        CHECK_EQ_INT(gcs_objtrack_begin_gc(t, (uint32_t)round + 1, 0, round, &err), GCS_OK);
        gcs_surviving_range all = {0x100000, (uint64_t)N * 64};
        CHECK_EQ_INT(gcs_objtrack_add_surviving(t, &all, 1, &err), GCS_OK);
        CHECK_EQ_INT(gcs_objtrack_end_gc(t, &err), GCS_OK);
    }
    const gcs_objtrack_stats *s = gcs_objtrack_get_stats(t);
    CHECK_EQ_U64(s->deaths[GCS_DEATH_UNSEEN], 2 * N);
    CHECK_EQ_U64(s->objects_tracked, N);
    size_t n;
    const gcs_tracked_object *objs = gcs_objtrack_objects(t, &n);
    CHECK_EQ_U64(n, N);
    for (size_t i = 0; i < n; i++)
        CHECK_EQ_INT(objs[i].tag, 2);
    gcs_objtrack_free(t);
}

/* Arrays past GCS_BIG_BYTES (src/base/buf.h) in every role: 150,000
 * objects (4.8 MB) settled in gen 2, then as many new ones each GC for
 * three GCs, with and without the hashed mode's table. The objects, the
 * recent, old and spare arrays and the table then live in mappings of
 * their own, grown and freed as such (a recent array grown by the merge
 * and freed with free() crashed `gcscope objects` under ASan). */
static void test_large_arrays(void)
{
    enum { N = 150000 };
    const bool hashed_was = gcs_objtrack_hashed;
    for (int hashed = 0; hashed < 2; hashed++) {
        gcs_objtrack_hashed = hashed == 1;
        gcs_objtrack_options o = {0};
        gcs_error err;
        gcs_objtrack *t = gcs_objtrack_new(&o, &err);
        for (int round = 0; round < 4; round++) {
            uint64_t base = 0x10000000 + (uint64_t)round * N * 64;
            for (uint32_t i = 0; i < N; i++) {
                gcs_tracked_object x = {0};
                x.address = base + (uint64_t)i * 64;
                x.tag = (uint32_t)round;
                x.size = 64;
                x.generation = round == 0 ? GCS_GEN2 : GCS_GEN0;
                CHECK_EQ_INT(gcs_objtrack_add(t, &x, &err), GCS_OK);
            }
            CHECK_EQ_INT(gcs_objtrack_begin_gc(t, (uint32_t)round + 1, round == 3 ? 2 : 0,
                                               round, &err), GCS_OK);
            gcs_surviving_range all = {0x10000000, (uint64_t)(round + 1) * N * 64};
            CHECK_EQ_INT(gcs_objtrack_add_surviving(t, &all, 1, &err), GCS_OK);
            CHECK_EQ_INT(gcs_objtrack_end_gc(t, &err), GCS_OK);
        }
        const gcs_objtrack_stats *st = gcs_objtrack_get_stats(t);
        CHECK_EQ_U64(st->objects_tracked, 4 * (uint64_t)N);
        size_t n;
        const gcs_tracked_object *objs = gcs_objtrack_objects(t, &n);
        CHECK_EQ_U64(n, 4 * (uint64_t)N);
        bool sorted = true;
        for (size_t i = 1; i < n; i++)
            if (objs[i].address <= objs[i - 1].address)
                sorted = false;
        CHECK(sorted);
        CHECK_EQ_INT(objs[n - 1].tag, 3);
        gcs_objtrack_free(t);
    }
    gcs_objtrack_hashed = hashed_was;
}

/* Layouts far out of order (a long descending run, then ranges whose
 * starts tie), past the insertion sort's budget: the merge sort finishes
 * them and every object gets its range's generation, the lowest start
 * (then the longest range) owning an address. */
static void test_layout_out_of_order(void)
{
    enum { N = 64 };
    deaths ds;
    gcs_objtrack *t = new_tracker(&ds);
    for (uint64_t i = 0; i < N; i++)
        add(t, 0x100000 + i * 0x1000 + 0x10, GCS_GEN0);
    gcs_generation_range g[N + 2];
    for (size_t i = 0; i < N; i++) { /* descending: N(N-1)/2 inversions */
        uint64_t k = N - 1 - i;
        g[i] = (gcs_generation_range){(uint8_t)(k % 3), 0x100000 + k * 0x1000, 0x800, 0x1000};
    }
    /* The first object's start twice more: the longer range wins, then
     * the lower generation. */
    g[N] = (gcs_generation_range){2, 0x100000, 0x400, 0x1000};
    g[N + 1] = (gcs_generation_range){1, 0x100000, 0x900, 0x1000};
    gcs_error err;
    CHECK_EQ_INT(gcs_objtrack_set_generation_ranges(t, g, N + 2, &err), GCS_OK);
    CHECK_EQ_INT(generation_of(t, 0x100010), 1);
    for (uint64_t k = 1; k < N; k++)
        CHECK_EQ_INT(generation_of(t, 0x100000 + k * 0x1000 + 0x10), (int)(k % 3));
    const gcs_objtrack_stats *s = gcs_objtrack_get_stats(t);
    CHECK_EQ_U64(s->objects_outside_generation_ranges, 0);
    CHECK_EQ_U64(s->generation_overlaps, 2);
    gcs_objtrack_free(t);
}

int main(void)
{
    RUN(test_article_example);
    RUN(test_article_table_as_printed);
    RUN(test_surviving_ranges);
    RUN(test_gen0_gc_spares_older);
    RUN(test_split_out_of_order);
    RUN(test_adjacent_and_empty);
    RUN(test_overlapping_ranges);
    RUN(test_bad_range_lists);
    RUN(test_adds);
    RUN(test_background_gc);
    RUN(test_generation_ranges);
    RUN(test_resort_interleaved);
    RUN(test_born_in_gc);
    RUN(test_against_model);
    RUN(test_gcs_without_ranges_against_model);
    RUN(test_generation_ranges_against_model);
    RUN(test_layout_out_of_order);
    RUN(test_many_reused_addresses);
    RUN(test_large_arrays);
    return check_report("test_objects_tracker");
}
