/*
 * Harness: the object tracker (gcs_objtrack_*) driven by an operation
 * stream decoded from the input: adds, GCs whose moved and surviving ranges
 * come in any order and any number of calls (overlapping, wrapping, empty),
 * background GCs' sweeps, aborts, generation layouts, finds. Addresses
 * come from a small space so that objects, ranges and collisions meet.
 * After each step the cheap invariants hold: objects in strictly ascending
 * address order, as many as objects_tracked says, every add accounted
 * for (tracked, duplicate, or dead through the callback), generations in
 * range. Two trackers take
 * every operation: one with the settled objects apart (gcs_objtrack_split,
 * one settled object enough to move them) and unsorted until its first
 * GC with ranges (gcs_objtrack_hashed), applying GCs whose ranges do not
 * overlap without sorting them (gcs_objtrack_stretches, stretches cut at
 * gaps of over 64 bytes), and one with none of these; after each GC their
 * counters and their deaths so far (every field, in order) must be the
 * same, and their objects at each look.
 */
#include "fuzz_common.h"

#include <string.h>

#include "analysis/objects/object_tracker_internal.h"
#include "gcscope.h"

typedef struct op_reader {
    const uint8_t *p, *end;
} op_reader;

static uint64_t take(op_reader *r, int bytes)
{
    uint64_t v = 0;
    for (int i = 0; i < bytes; i++)
        v |= (uint64_t)(r->p < r->end ? *r->p++ : 0) << (8 * i);
    return v;
}

/* An address: mostly small multiples of 8 near a base, sometimes near the
 * top of the address space (wrapping ranges), sometimes raw. */
static uint64_t take_address(op_reader *r)
{
    uint8_t kind = (uint8_t)take(r, 1);
    switch (kind & 3) {
    case 0:
    case 1:
        return 0x10000 + take(r, 1) * 8;
    case 2:
        return UINT64_MAX - take(r, 1) * 8;
    default:
        return take(r, 8);
    }
}

static uint64_t take_length(op_reader *r)
{
    uint8_t kind = (uint8_t)take(r, 1);
    return kind & 0x80 ? take(r, 8) : (uint64_t)(kind & 0x7f) * 8;
}

typedef struct death_count {
    uint64_t deaths;
    uint64_t digest; /* of every death's fields, in order */
} death_count;

static uint64_t mix(uint64_t h, uint64_t v)
{
    h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
    return h * 0xff51afd7ed558ccdull;
}

static void on_death(void *ctx, const gcs_tracked_object *obj, gcs_death_kind kind,
                     uint32_t gc_number, int gc_condemned, int64_t gc_time)
{
    death_count *d = ctx;
    FUZZ_REQUIRE(obj->generation < GCS_GENERATION_COUNT);
    FUZZ_REQUIRE(kind <= GCS_DEATH_INCOMPLETE);
    d->deaths++;
    uint64_t h = mix(d->digest, obj->address);
    h = mix(h, (uint64_t)obj->alloc_time);
    h = mix(h, (uint64_t)obj->size << 32 | obj->tag);
    h = mix(h, (uint64_t)obj->alloc_gc << 32 | (uint64_t)obj->generation << 24 |
                   (uint64_t)obj->flags << 16 | obj->user);
    h = mix(h, (uint64_t)kind << 32 | gc_number);
    h = mix(h, (uint64_t)(int64_t)gc_condemned);
    d->digest = mix(h, (uint64_t)gc_time);
}

/* The split tracker and the plain one agree on counters and deaths. */
static void check_same_course(gcs_objtrack *const t[2], const death_count d[2])
{
    FUZZ_REQUIRE(memcmp(gcs_objtrack_get_stats(t[0]), gcs_objtrack_get_stats(t[1]),
                        sizeof(gcs_objtrack_stats)) == 0);
    FUZZ_REQUIRE(d[0].deaths == d[1].deaths && d[0].digest == d[1].digest);
}

/* ... and on the objects (a look, which puts the old ones back). */
static void check_same_objects(gcs_objtrack *const t[2])
{
    size_t n0 = 0, n1 = 0;
    const gcs_tracked_object *a = gcs_objtrack_objects(t[0], &n0);
    const gcs_tracked_object *b = gcs_objtrack_objects(t[1], &n1);
    FUZZ_REQUIRE(n0 == n1 && (n0 == 0 || memcmp(a, b, n0 * sizeof *a) == 0));
}

static void check_invariants(gcs_objtrack *t, const death_count *d)
{
    size_t n = 0;
    const gcs_tracked_object *objs = gcs_objtrack_objects(t, &n);
    const gcs_objtrack_stats *s = gcs_objtrack_get_stats(t);
    FUZZ_REQUIRE(n == s->objects_tracked);
    for (size_t i = 0; i < n; i++) {
        FUZZ_REQUIRE(objs[i].generation < GCS_GENERATION_COUNT);
        if (i > 0)
            FUZZ_REQUIRE(objs[i - 1].address < objs[i].address);
    }
    uint64_t dead = s->deaths[0] + s->deaths[1] + s->deaths[2] + s->deaths[3];
    FUZZ_REQUIRE(dead == d->deaths);
    FUZZ_REQUIRE(s->objects_added == s->objects_tracked + s->duplicate_adds + dead);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    death_count d[2] = {{0, 0}, {0, 0}};
    gcs_objtrack *t[2];
    gcs_error err;
    gcs_error_clear(&err);
    for (int k = 0; k < 2; k++) {
        gcs_objtrack_options o = {.on_death = on_death, .ctx = &d[k], .max_objects = 2048,
                                  .max_ranges_per_gc = 64};
        gcs_objtrack_split = k == 1;
        gcs_objtrack_hashed = k == 1;
        gcs_objtrack_stretches = k == 1;
        gcs_objtrack_stretch_gap = 64;
        gcs_objtrack_settle_min = 1;
        t[k] = gcs_objtrack_new(&o, &err);
        FUZZ_REQUIRE(t[k] != NULL);
    }
    gcs_objtrack_split = true;
    gcs_objtrack_hashed = true;
    gcs_objtrack_stretches = true;
    gcs_objtrack_stretch_gap = (uint64_t)64 << 10;
    gcs_objtrack_settle_min = 1024;
    op_reader r = {data, data + size};
    uint32_t gc_number = 0;
    int64_t now = 0;
    while (r.p < r.end) {
        uint8_t op = (uint8_t)take(&r, 1);
        now += op;
        switch (op % 10) {
        case 0:
        case 1:
        case 2: { /* allocations */
            unsigned count = 1 + (op >> 4);
            for (unsigned i = 0; i < count && r.p < r.end; i++) {
                gcs_tracked_object obj = {.address = take_address(&r), .alloc_time = now,
                                          .size = (uint32_t)take(&r, 2), .tag = i,
                                          .alloc_gc = gc_number,
                                          .generation = (uint8_t)(take(&r, 1) % GCS_GENERATION_COUNT),
                                          .flags = (uint8_t)(op & GCS_OBJ_PINNED)};
                gcs_status st0 = gcs_objtrack_add(t[0], &obj, &err);
                FUZZ_REQUIRE(gcs_objtrack_add(t[1], &obj, &err) == st0);
            }
            break;
        }
        case 3: { /* a GC opens: condemned -1..2 (-1 refused), or 3: a background
                   * GC's sweep; sometimes a number reused */
            int condemned = (int)(op >> 4) % 5 - 1;
            gc_number += (op & 0x80) ? 0 : 1;
            for (int k = 0; k < 2; k++)
                (void)(condemned == 3
                           ? gcs_objtrack_begin_background_gc(t[k], gc_number, now, &err)
                           : gcs_objtrack_begin_gc(t[k], gc_number, condemned, now, &err));
            break;
        }
        case 4: { /* moved ranges */
            gcs_moved_range m[8];
            size_t n = 1 + (op >> 5);
            for (size_t i = 0; i < n; i++) {
                m[i].old_start = take_address(&r);
                m[i].new_start = take_address(&r);
                m[i].length = take_length(&r);
            }
            for (int k = 0; k < 2; k++)
                (void)gcs_objtrack_add_moved(t[k], m, n, &err);
            break;
        }
        case 5: { /* surviving ranges */
            gcs_surviving_range sr[8];
            size_t n = 1 + (op >> 5);
            for (size_t i = 0; i < n; i++) {
                sr[i].start = take_address(&r);
                sr[i].length = take_length(&r);
            }
            for (int k = 0; k < 2; k++)
                (void)gcs_objtrack_add_surviving(t[k], sr, n, &err);
            break;
        }
        case 6:
            for (int k = 0; k < 2; k++)
                (void)gcs_objtrack_end_gc(t[k], &err);
            check_same_course(t, d);
            break;
        case 7:
            if (op & 0x10) {
                for (int k = 0; k < 2; k++)
                    gcs_objtrack_abort_gc(t[k]);
            } else {
                for (int k = 0; k < 2; k++)
                    check_invariants(t[k], &d[k]);
                check_same_objects(t);
            }
            break;
        case 8: { /* a generation layout */
            gcs_generation_range g[6];
            size_t n = 1 + (op >> 5);
            for (size_t i = 0; i < n && i < 6; i++) {
                g[i].generation = (uint8_t)(take(&r, 1) % (GCS_GENERATION_COUNT + 1));
                g[i].start = take_address(&r);
                g[i].used_length = take_length(&r);
                g[i].reserved_length = g[i].used_length;
            }
            for (int k = 0; k < 2; k++)
                (void)gcs_objtrack_set_generation_ranges(t[k], g, n < 6 ? n : 6, &err);
            break;
        }
        default: { /* find: what it answers is tracked at that address */
            uint64_t a = take_address(&r);
            gcs_tracked_object *found = gcs_objtrack_find(t[0], a);
            if (found)
                FUZZ_REQUIRE(found->address == a);
            gcs_tracked_object *found1 = gcs_objtrack_find(t[1], a);
            FUZZ_REQUIRE((found == NULL) == (found1 == NULL));
            if (found1)
                FUZZ_REQUIRE(found1->address == a);
            break;
        }
        }
    }
    for (int k = 0; k < 2; k++)
        if (gcs_objtrack_in_gc(t[k], NULL))
            (void)gcs_objtrack_end_gc(t[k], &err);
    check_same_course(t, d);
    for (int k = 0; k < 2; k++)
        check_invariants(t[k], &d[k]);
    check_same_objects(t);
    for (int k = 0; k < 2; k++)
        gcs_objtrack_free(t[k]);
    return 0;
}
