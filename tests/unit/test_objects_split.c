/*
 * The object tracker as it runs (settled objects kept apart in the "old"
 * array, gcs_objtrack_split; objects unsorted behind a hash table until
 * the first GC with ranges, gcs_objtrack_hashed; GCs whose ranges do not
 * overlap applied without sorting them, gcs_objtrack_stretches) against
 * the plain tracker without any of them: random GCs of every
 * kind (moves that keep address order, moves that break it, ranges that
 * collide, surviving ranges, a heap's plugs in interleaved runs as the
 * runtime reports them (surviving, or slid down their region), GCs cut by
 * the range limit, aborted GCs,
 * objects born during a GC, background GCs' sweeps), generation layouts,
 * address reuse and pins,
 * applied to both; the deaths (every field, in order), the counters and
 * the objects must be the same. Objects move to the old array after a few
 * settle (gcs_objtrack_settle_min made small), so most steps cross it.
 * Most scenarios begin with GCs without ranges, layouts or looks (a trace
 * without movement events), long enough for the hashed mode to see
 * address reuse, duplicates, pins and aborted GCs before it ends.
 */
#include <stdlib.h>

#include "analysis/objects/object_tracker_internal.h"
#include "check.h"
#include "gcscope.h"

#define SLOTS 3000u
#define SLOT_BYTES 32u
#define BASE 0x100000u

typedef struct death_log {
    uint64_t *v; /* 7 words a death */
    size_t n, cap;
} death_log;

static void on_death(void *ctx, const gcs_tracked_object *o, gcs_death_kind kind, uint32_t gc,
                     int condemned, int64_t time)
{
    death_log *l = ctx;
    if (l->n + 7 > l->cap) {
        l->cap = l->cap ? 2 * l->cap : 4096;
        l->v = realloc(l->v, l->cap * sizeof *l->v);
        if (!l->v)
            abort();
    }
    uint64_t *w = l->v + l->n;
    w[0] = o->address;
    w[1] = o->tag;
    w[2] = (uint64_t)kind;
    w[3] = gc;
    w[4] = (uint64_t)(int64_t)condemned;
    w[5] = (uint64_t)time;
    w[6] = (uint64_t)o->generation << 8 | o->flags;
    l->n += 7;
}

static uint64_t rng_state;
static uint32_t rnd(void)
{
    rng_state = rng_state * 6364136223846793005ull + 1442695040888963407ull;
    return (uint32_t)(rng_state >> 33);
}

typedef struct pair {
    gcs_objtrack *t[2]; /* [0] plain, [1] split and hashed */
    death_log log[2];
} pair;

static void pair_new(pair *p, size_t max_ranges)
{
    memset(p, 0, sizeof *p);
    for (int k = 0; k < 2; k++) {
        gcs_objtrack_split = k == 1;
        gcs_objtrack_hashed = k == 1;
        gcs_objtrack_stretches = k == 1;
        gcs_objtrack_stretch_gap = 16 * SLOT_BYTES; /* cuts a run at each "region" */
        gcs_objtrack_options o = {0};
        o.on_death = on_death;
        o.ctx = &p->log[k];
        o.max_ranges_per_gc = max_ranges;
        gcs_error err;
        p->t[k] = gcs_objtrack_new(&o, &err);
        CHECK(p->t[k] != NULL);
    }
    gcs_objtrack_split = true;
    gcs_objtrack_hashed = true;
    gcs_objtrack_stretches = true;
    gcs_objtrack_stretch_gap = (uint64_t)64 << 10;
}

/* GCs the trackers under test applied as in-place sweeps and put in
 * order by stretches, all scenarios. */
static uint64_t in_place_sweeps, stretch_gcs;

static void pair_free(pair *p)
{
    /* the plain one: never */
    CHECK_EQ_U64(gcs_objtrack_in_place_sweeps(p->t[0]) + gcs_objtrack_stretch_gcs(p->t[0]), 0);
    in_place_sweeps += gcs_objtrack_in_place_sweeps(p->t[1]);
    stretch_gcs += gcs_objtrack_stretch_gcs(p->t[1]);
    for (int k = 0; k < 2; k++) {
        gcs_objtrack_free(p->t[k]);
        free(p->log[k].v);
    }
}

static int cmp_address(const void *l, const void *r)
{
    uint64_t a = ((const gcs_tracked_object *)l)->address;
    uint64_t b = ((const gcs_tracked_object *)r)->address;
    return (a > b) - (a < b);
}

/* The tracker's objects in any order (unsorted in hashed mode) are, once
 * sorted, those of the plain tracker in address order. */
static bool any_order_same(pair *p)
{
    size_t n0, n1;
    const gcs_tracked_object *b = gcs_objtrack_objects_any_order(p->t[1], &n1);
    gcs_tracked_object *copy = malloc((n1 ? n1 : 1) * sizeof *copy);
    CHECK(copy != NULL);
    if (n1)
        memcpy(copy, b, n1 * sizeof *copy);
    qsort(copy, n1, sizeof *copy, cmp_address);
    const gcs_tracked_object *a = gcs_objtrack_objects(p->t[0], &n0);
    bool same = n0 == n1 && (n0 == 0 || memcmp(a, copy, n0 * sizeof *a) == 0);
    free(copy);
    return same;
}

/* The two trackers' objects, counters and deaths so far are the same. */
static bool pair_same(pair *p)
{
    size_t n0, n1;
    const gcs_tracked_object *a = gcs_objtrack_objects(p->t[0], &n0);
    const gcs_tracked_object *b = gcs_objtrack_objects(p->t[1], &n1);
    bool same = n0 == n1 && (n0 == 0 || memcmp(a, b, n0 * sizeof *a) == 0);
    same = same && memcmp(gcs_objtrack_get_stats(p->t[0]), gcs_objtrack_get_stats(p->t[1]),
                          sizeof(gcs_objtrack_stats)) == 0;
    same = same && p->log[0].n == p->log[1].n &&
           (p->log[0].n == 0 || memcmp(p->log[0].v, p->log[1].v, p->log[0].n * 8) == 0);
    return same;
}

static uint8_t random_generation(void)
{
    uint32_t r = rnd() % 20;
    return r < 12 ? GCS_GEN0 : r < 14 ? GCS_GEN1 : r < 18 ? GCS_GEN2 : r < 19 ? GCS_GEN_LOH
                                                                             : GCS_GEN_POH;
}

static void both_add(pair *p, uint32_t *tag)
{
    gcs_tracked_object o = {0};
    o.address = BASE + (uint64_t)(rnd() % SLOTS) * SLOT_BYTES;
    o.tag = (*tag)++;
    o.size = SLOT_BYTES;
    o.generation = random_generation();
    for (int k = 0; k < 2; k++) {
        gcs_error err;
        CHECK_EQ_INT(gcs_objtrack_add(p->t[k], &o, &err), GCS_OK);
    }
}

static void both_surviving(pair *p, uint64_t start, uint64_t len)
{
    gcs_surviving_range s = {start, len};
    for (int k = 0; k < 2; k++) {
        gcs_error err;
        CHECK_EQ_INT(gcs_objtrack_add_surviving(p->t[k], &s, 1, &err), GCS_OK);
    }
}

static void both_moved(pair *p, uint64_t start, uint64_t to, uint64_t len)
{
    gcs_moved_range m = {start, to, len};
    for (int k = 0; k < 2; k++) {
        gcs_error err;
        CHECK_EQ_INT(gcs_objtrack_add_moved(p->t[k], &m, 1, &err), GCS_OK);
    }
}

/* Ranges as the runtime reports them: the heap's plugs (disjoint),
 * "region" after region, the regions of each of up to four runs in
 * address order and the runs one after the other, so that they
 * interleave; surviving in place (a background GC's survivors) or slid
 * down their region (a compacting GC's). Now and then one range overlaps
 * another, or (surviving) one moves. */
#define REGION_SLOTS 150u
static void both_plugs(pair *p)
{
    uint32_t runs = 1 + rnd() % 4, glitch = rnd() % 6;
    const bool slide = rnd() % 2;
    for (uint32_t run = 0; run < runs; run++) {
        for (uint32_t region = run; region * REGION_SLOTS < SLOTS; region += runs) {
            uint32_t slot = region * REGION_SLOTS + rnd() % 4, dest = region * REGION_SLOTS;
            const uint32_t end = (region + 1) * REGION_SLOTS;
            while (slot < end && rnd() % 16 != 0) {
                uint32_t len = 1 + rnd() % 6;
                if (slot + len > end)
                    len = end - slot;
                const uint64_t at = BASE + (uint64_t)slot * SLOT_BYTES;
                if (slide)
                    both_moved(p, at, BASE + (uint64_t)dest * SLOT_BYTES, (uint64_t)len * SLOT_BYTES);
                else
                    both_surviving(p, at, (uint64_t)len * SLOT_BYTES);
                dest += len;
                slot += len + rnd() % (rnd() % 4 == 0 ? 40 : 3);
            }
        }
    }
    uint64_t at = BASE + (uint64_t)(rnd() % SLOTS) * SLOT_BYTES;
    if (glitch == 0) {
        both_surviving(p, at, 3 * SLOT_BYTES);
    } else if (glitch == 1) {
        both_moved(p, at, at + SLOT_BYTES, SLOT_BYTES);
    }
}

/* A GC's ranges: mostly sliding compaction of random blocks (address
 * order kept), some moved far or backwards (order broken), some landing
 * on other blocks (collisions), some surviving in place, some a heap's
 * plugs. */
static void both_ranges(pair *p)
{
    uint32_t nr = rnd() % 40;
    uint64_t dest = BASE;
    uint32_t style = rnd() % 5;
    if (style == 4) {
        both_plugs(p);
        return;
    }
    for (uint32_t i = 0; i < nr; i++) {
        uint64_t start = BASE + (uint64_t)(rnd() % SLOTS) * SLOT_BYTES;
        uint64_t len = (uint64_t)(1 + rnd() % 40) * SLOT_BYTES;
        uint64_t to;
        if (style == 0 || rnd() % 8 == 0) {
            both_surviving(p, start, len);
            continue;
        }
        if (style == 1) /* slide down, in order */
            to = start > dest ? dest + (start - dest) / 2 / SLOT_BYTES * SLOT_BYTES : start;
        else if (style == 2) /* anywhere in the slots: collisions and reorders */
            to = BASE + (uint64_t)(rnd() % SLOTS) * SLOT_BYTES;
        else /* far away, then back in */
            to = (rnd() % 2 ? 0x40000000u : BASE) + (uint64_t)(rnd() % SLOTS) * SLOT_BYTES;
        dest = to + len;
        gcs_moved_range m = {start, to, len};
        for (int k = 0; k < 2; k++) {
            gcs_error err;
            CHECK_EQ_INT(gcs_objtrack_add_moved(p->t[k], &m, 1, &err), GCS_OK);
        }
    }
}

/* A layout: new, or (as the runtime's, which mostly repeat the older
 * regions) the last one again, with one range changed or not. */
static gcs_generation_range layout[8];
static uint32_t layout_n; /* 0: none yet in this scenario */

static void both_layout(pair *p)
{
    gcs_generation_range *g = layout;
    uint32_t r = rnd() % 4, n = layout_n;
    if (n == 0 || r == 0) {
        n = 1 + rnd() % 8;
        for (uint32_t i = 0; i < n; i++) {
            g[i].start = BASE + (uint64_t)(rnd() % SLOTS) * SLOT_BYTES;
            g[i].used_length = (uint64_t)(rnd() % 600) * SLOT_BYTES;
            g[i].generation = random_generation();
        }
    } else if (r == 1) {
        uint32_t i = rnd() % n;
        if (rnd() % 2)
            g[i].generation = random_generation();
        else
            g[i].used_length = (uint64_t)(rnd() % 600) * SLOT_BYTES;
    }
    layout_n = n;
    for (int k = 0; k < 2; k++) {
        gcs_error err;
        CHECK_EQ_INT(gcs_objtrack_set_generation_ranges(p->t[k], g, n, &err), GCS_OK);
    }
}

static void both_pin(pair *p)
{
    uint64_t address = BASE + (uint64_t)(rnd() % SLOTS) * SLOT_BYTES;
    gcs_tracked_object *a = gcs_objtrack_find(p->t[0], address);
    gcs_tracked_object *b = gcs_objtrack_find(p->t[1], address);
    CHECK((a == NULL) == (b == NULL));
    if (a && b) {
        a->flags |= GCS_OBJ_PINNED;
        b->flags |= GCS_OBJ_PINNED;
    }
}

/* One scenario: `steps` random operations on both trackers; before step
 * `unsorted_steps`, no GC has ranges and no layout or look comes. */
static bool run_scenario(uint64_t seed, int steps, int unsorted_steps, size_t settle_min,
                         size_t max_ranges)
{
    rng_state = seed;
    layout_n = 0;
    gcs_objtrack_settle_min = settle_min;
    pair p;
    pair_new(&p, max_ranges);
    gcs_objtrack_settle_min = 1024;
    uint32_t tag = 1, gc = 0;
    bool ok = true;
    for (int s = 0; s < steps && ok; s++) {
        const bool sorted = s >= unsorted_steps;
        uint32_t r = rnd() % 100;
        if (r < 55) {
            for (uint32_t i = 1 + rnd() % 30; i > 0; i--)
                both_add(&p, &tag);
        } else if (r < 90) {
            /* gen 2 rarely: it walks everything and empties old; now and
             * then a background GC's sweep */
            uint32_t c = rnd() % 20;
            int condemned = c < 13 ? 0 : c < 19 ? 1 : 2;
            bool background = rnd() % 8 == 0;
            gc++;
            for (int k = 0; k < 2; k++) {
                gcs_error err;
                CHECK_EQ_INT(background ? gcs_objtrack_begin_background_gc(p.t[k], gc,
                                                                           (int64_t)gc * 10, &err)
                                        : gcs_objtrack_begin_gc(p.t[k], gc, condemned,
                                                                (int64_t)gc * 10, &err),
                             GCS_OK);
            }
            if (rnd() % 6 != 0 && sorted)
                both_ranges(&p);
            if (rnd() % 5 == 0)
                both_add(&p, &tag); /* born during the GC */
            bool abort_it = rnd() % 25 == 0;
            for (int k = 0; k < 2; k++) {
                gcs_error err;
                if (abort_it)
                    gcs_objtrack_abort_gc(p.t[k]);
                else
                    CHECK_EQ_INT(gcs_objtrack_end_gc(p.t[k], &err), GCS_OK);
            }
        } else if (r < 95) {
            if (sorted)
                both_layout(&p);
        } else if (r < 99) {
            both_pin(&p);
        } else if (sorted) {
            ok = pair_same(&p); /* the look merges old back */
        }
    }
    ok = ok && any_order_same(&p) && pair_same(&p);
    if (!ok)
        fprintf(stderr,
                "split and hashed differ from plain: seed %llu, unsorted steps %d, settle_min "
                "%zu, max_ranges %zu\n",
                (unsigned long long)seed, unsorted_steps, settle_min, max_ranges);
    pair_free(&p);
    return ok;
}

static void test_split_against_plain(void)
{
    int failed = 0;
    /* GCSCOPE_SPLIT_SEEDS=N for a longer campaign by hand. */
    const char *env = getenv("GCSCOPE_SPLIT_SEEDS");
    uint64_t seeds = env ? strtoull(env, NULL, 10) : 300;
    for (uint64_t seed = 1; seed <= seeds && failed < 3; seed++) {
        size_t settle_min = seed % 3 == 0 ? 1 : seed % 3 == 1 ? 8 : 64;
        size_t max_ranges = seed % 7 == 0 ? 12 : 0;
        int unsorted_steps = seed % 4 == 0 ? 0 : seed % 4 == 1 ? 200 : 400;
        /* Some leave hashed mode through the heapsort kept for a
         * shortage of memory. */
        gcs_objtrack_heapsort_only = seed % 8 == 5;
        if (!run_scenario(seed, 400, unsorted_steps, settle_min, max_ranges))
            failed++;
        gcs_objtrack_heapsort_only = false;
    }
    CHECK_EQ_INT(failed, 0);
    /* The plugs' GCs take the stretches (many do not: an overlap; and
     * not the in-place sweep: a move, a gen-0 GC with old objects kept
     * apart). */
    CHECK(in_place_sweeps > seeds);
    CHECK(stretch_gcs > seeds);
}

/* The split is taken: gen-2 objects settle in the old array and stay
 * there through gen-0 GCs whose ranges cover them (counted uncondemned in
 * a range, as the plain walk counts them). */
static void test_split_keeps_objects_apart(void)
{
    rng_state = 42;
    gcs_objtrack_settle_min = 1;
    pair p;
    pair_new(&p, 0);
    gcs_objtrack_settle_min = 1024;
    uint32_t tag = 1;
    /* Gen-2 objects, then gen-0 GCs sliding the gen-0 ones down. */
    for (uint32_t i = 0; i < 2000; i++) {
        gcs_tracked_object o = {0};
        o.address = BASE + (uint64_t)i * 2 * SLOT_BYTES;
        o.tag = tag++;
        o.generation = GCS_GEN2;
        for (int k = 0; k < 2; k++) {
            gcs_error err;
            gcs_objtrack_add(p.t[k], &o, &err);
        }
    }
    for (uint32_t g = 1; g <= 50; g++) {
        for (uint32_t i = 0; i < 20; i++) {
            gcs_tracked_object o = {0};
            o.address = BASE + (uint64_t)(rnd() % 2000) * 2 * SLOT_BYTES + SLOT_BYTES;
            o.tag = tag++;
            o.generation = GCS_GEN0;
            for (int k = 0; k < 2; k++) {
                gcs_error err;
                gcs_objtrack_add(p.t[k], &o, &err);
            }
        }
        for (int k = 0; k < 2; k++) {
            gcs_error err;
            gcs_objtrack_begin_gc(p.t[k], g, 0, g, &err);
            /* every gen-0 slot survives in place; one block moves onto a gen-2 object */
            gcs_surviving_range s = {BASE, 4000u * SLOT_BYTES};
            gcs_objtrack_add_surviving(p.t[k], &s, 1, &err);
            CHECK_EQ_INT(gcs_objtrack_end_gc(p.t[k], &err), GCS_OK);
        }
    }
    CHECK_EQ_U64(gcs_objtrack_old_count(p.t[1]), 2000);
    CHECK_EQ_U64(gcs_objtrack_old_count(p.t[0]), 0);
    CHECK(gcs_objtrack_get_stats(p.t[1])->uncondemned_in_range >= 50 * 2000);
    CHECK(pair_same(&p));
    pair_free(&p);
}

int main(void)
{
    RUN(test_split_against_plain);
    RUN(test_split_keeps_objects_apart);
    return check_report("test_objects_split");
}
