/*
 * Unit tests of the object analysis (gcs_objects_*) and its decoders on
 * synthetic runtime events built byte by byte with the layouts of
 * docs/gc-events.md §5 (pointer size 8 unless a test says otherwise).
 */
#include <stdlib.h>

#include "check.h"
#include "gcscope.h"

/* ---- payload builder ---- */

typedef struct pb {
    uint8_t b[4096];
    size_t n;
    uint32_t ptr;
} pb;

static void put(pb *p, uint64_t v, int bytes)
{
    for (int i = 0; i < bytes; i++)
        p->b[p->n++] = (uint8_t)(v >> (8 * i));
}
static void u8(pb *p, uint64_t v) { put(p, v, 1); }
static void u16(pb *p, uint64_t v) { put(p, v, 2); }
static void u32(pb *p, uint64_t v) { put(p, v, 4); }
static void u64(pb *p, uint64_t v) { put(p, v, 8); }
static void ptr(pb *p, uint64_t v) { put(p, v, (int)p->ptr); }
static void utf16z(pb *p, const char *s)
{
    for (; *s; s++)
        u16(p, (uint8_t)*s);
    u16(p, 0);
}

static gcs_event_type types[1024];

static const gcs_event_type *etype(uint32_t id, uint32_t version)
{
    gcs_event_type *t = &types[id];
    t->provider = "Microsoft-Windows-DotNETRuntime";
    t->event_id = id;
    t->version = version;
    return t;
}

static gcs_objects *an;
static double now_ms;

static void feed(uint32_t id, uint32_t version, pb *p)
{
    gcs_event ev;
    memset(&ev, 0, sizeof ev);
    ev.type = etype(id, version);
    ev.msec = now_ms;
    ev.payload = p->b;
    ev.payload_size = (uint32_t)p->n;
    ev.pointer_size = p->ptr;
    gcs_error err;
    CHECK_EQ_INT(gcs_objects_feed(an, &ev, &err), GCS_OK);
}

static pb fresh(void)
{
    pb p;
    p.n = 0;
    p.ptr = 8;
    return p;
}

static void gc_start(uint32_t count, uint32_t depth, uint32_t type)
{
    pb p = fresh();
    u32(&p, count);
    u32(&p, depth);
    u32(&p, 0);    /* reason */
    u32(&p, type); /* 0 non-concurrent, 1 background */
    u16(&p, 0);
    u64(&p, 0);
    feed(1, 2, &p);
}

static void gc_end(uint32_t count, uint32_t depth)
{
    pb p = fresh();
    u32(&p, count);
    u32(&p, depth);
    u16(&p, 0);
    feed(2, 1, &p);
}

static void tick(uint64_t address, uint64_t type_id, const char *name, uint64_t size,
                 uint32_t kind)
{
    pb p = fresh();
    u32(&p, 100000);
    u32(&p, kind);
    u16(&p, 0);
    u64(&p, 100000);
    ptr(&p, type_id);
    utf16z(&p, name);
    u32(&p, 0); /* heap */
    ptr(&p, address);
    u64(&p, size);
    feed(10, 4, &p);
}

static void moved(uint32_t index, const uint64_t (*r)[3], int n)
{
    pb p = fresh();
    u32(&p, index);
    u32(&p, (uint32_t)n);
    u16(&p, 0);
    for (int i = 0; i < n; i++) {
        ptr(&p, r[i][0]);
        ptr(&p, r[i][1]);
        u64(&p, r[i][2]);
    }
    feed(22, 0, &p);
}

static void surviving(uint32_t index, const uint64_t (*r)[2], int n)
{
    pb p = fresh();
    u32(&p, index);
    u32(&p, (uint32_t)n);
    u16(&p, 0);
    for (int i = 0; i < n; i++) {
        ptr(&p, r[i][0]);
        u64(&p, r[i][1]);
    }
    feed(21, 0, &p);
}

static void generation_range(uint8_t gen, uint64_t start, uint64_t used)
{
    pb p = fresh();
    u8(&p, gen);
    ptr(&p, start);
    u64(&p, used);
    u64(&p, used * 2);
    u16(&p, 0);
    feed(23, 0, &p);
}

static void pin(uint64_t object)
{
    pb p = fresh();
    ptr(&p, 0x777);
    ptr(&p, object);
    u64(&p, 24);
    utf16z(&p, "X");
    u16(&p, 0);
    feed(33, 0, &p);
}

static const gcs_object_type_stats *type_named(const char *name)
{
    for (size_t i = 0; i < gcs_objects_type_count(an); i++) {
        const gcs_object_type_stats *t = gcs_objects_type(an, i);
        if (!strcmp(t->name, name))
            return t;
    }
    return NULL;
}

/*
 * A small life: three types; A dies young in GC 1 (gen0, compacting), B
 * survives GC 1 (moved) and dies in the gen1 GC 2 (surviving ranges), C
 * lives to the end, pinned; a background GC in between decides nothing.
 */
static void test_lifetimes(void)
{
    gcs_error err;
    an = gcs_objects_new(&err);
    now_ms = 1.0;
    tick(0x1000, 0xA0, "GcLoad.DiesYoung", 24, 0);
    tick(0x2000, 0xB0, "GcLoad.Middle", 32, 0);
    now_ms = 2.0;
    tick(0x3000, 0xC0, "GcLoad.KeptToEnd", 48, 0);
    tick(0x3000, 0xC0, "GcLoad.KeptToEnd", 48, 0); /* same object twice: not two */
    now_ms = 10.0;
    gc_start(1, 0, 0);
    pin(0x3000);
    static const uint64_t m1[][3] = {{0x3000, 0x3000, 0x40}};
    static const uint64_t m2[][3] = {{0x2000, 0x1800, 0x20}};
    moved(1, m2, 1); /* out of order: index 1 before 0 */
    moved(0, m1, 1);
    gc_end(1, 0);
    now_ms = 20.0;
    gc_start(2, 2, 1); /* background: no ranges, no verdicts */
    now_ms = 30.0;
    gc_start(3, 1, 2); /* foreground inside the background GC */
    static const uint64_t s3[][2] = {{0x3000, 0x40}};
    surviving(0, s3, 1);
    gc_end(3, 1);
    gc_end(2, 2);
    now_ms = 40.0;
    CHECK_EQ_INT(gcs_objects_finish(an, &err), GCS_OK);

    CHECK_EQ_U64(gcs_objects_type_count(an), 3);
    /* Order: bytes desc. */
    CHECK_EQ_STR(gcs_objects_type(an, 0)->name, "GcLoad.KeptToEnd");
    CHECK_EQ_STR(gcs_objects_type(an, 1)->name, "GcLoad.Middle");
    CHECK_EQ_STR(gcs_objects_type(an, 2)->name, "GcLoad.DiesYoung");
    const gcs_object_type_stats *a = type_named("GcLoad.DiesYoung");
    const gcs_object_type_stats *b = type_named("GcLoad.Middle");
    const gcs_object_type_stats *c = type_named("GcLoad.KeptToEnd");
    CHECK(a && b && c);
    if (!a || !b || !c)
        return;
    CHECK_EQ_U64(a->samples, 1);
    CHECK_EQ_U64(a->sample_bytes, 24);
    CHECK_EQ_U64(a->died_in_gc[0], 1);
    CHECK_EQ_U64(a->alive_at_end, 0);
    CHECK_EQ_U64(a->lifetime.count, 1);
    CHECK_EQ_INT(a->lifetime.gcs_max, 1);
    CHECK_NEAR(a->lifetime.ms_p50, 9.0, 1e-9);
    CHECK_EQ_U64(b->died_in_gc[1], 1);
    CHECK_EQ_INT(b->first_death_gc, 3);
    CHECK_EQ_INT(b->last_death_gc, 3);
    CHECK_EQ_U64(b->died_gen2, 0); /* it was in gen1 when it died */
    CHECK_EQ_INT(b->lifetime.gcs_p50, 3);
    CHECK_NEAR(b->lifetime.ms_p50, 29.0, 1e-9);
    CHECK_EQ_U64(c->samples, 1);
    CHECK_EQ_U64(c->alive_at_end, 1);
    CHECK_EQ_U64(c->alive_at_end_bytes, 48);
    CHECK_EQ_U64(c->alive_at_end_gen[2], 1); /* gen0 -> gen1 -> gen2 */
    CHECK_EQ_U64(c->pinned, 1);
    CHECK_EQ_U64(c->lifetime.count, 0);
    const gcs_objects_summary *s = gcs_objects_get_summary(an);
    CHECK_EQ_U64(s->gcs, 3);
    CHECK_EQ_U64(s->background_gcs, 1);
    CHECK_EQ_U64(s->gcs_with_ranges, 2);
    CHECK_EQ_U64(s->gcs_without_generation_ranges, 2);
    CHECK_EQ_U64(s->range_events, 3);
    CHECK_EQ_U64(s->gc_end_without_start, 0);
    CHECK_EQ_U64(s->pins_of_tracked, 1);
    CHECK_EQ_U64(s->tracker.duplicate_adds, 1);
    CHECK(s->movement_seen);

    /* The report, in all three formats, says the same thing. */
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    CHECK_EQ_INT(gcs_objects_report(an, f, GCS_OBJECTS_CSV, &err), GCS_OK);
    fclose(f);
    CHECK(strstr(buf, "\"GcLoad.KeptToEnd\",192,1,48,0,0,0,0,0,0,0,0,1,48,0,0,1,0,0,1,0,,,,,,,,\n") !=
          NULL);
    CHECK(strstr(buf, "\"GcLoad.DiesYoung\",160,1,24,1,0,0,0,0,0,1,1,0,0,0,0,0,0,0,0,1,"
                      "1,1,1,1,9.000,9.000,9.000,9.000\n") != NULL);
    free(buf);
    f = open_memstream(&buf, &len);
    CHECK_EQ_INT(gcs_objects_report(an, f, GCS_OBJECTS_JSON, &err), GCS_OK);
    fclose(f);
    CHECK(strstr(buf, "\"survivors_at_end\":[\n {\"name\":\"GcLoad.KeptToEnd\",\"type_id\":192,"
                      "\"objects\":1,\"bytes\":48}]") != NULL);
    CHECK(strstr(buf, "\"gen2_deaths\":[]") != NULL);
    free(buf);
    f = open_memstream(&buf, &len);
    CHECK_EQ_INT(gcs_objects_report(an, f, GCS_OBJECTS_TABLE, &err), GCS_OK);
    fclose(f);
    CHECK(strstr(buf, "Survivors at end of trace by type (1 types)") != NULL);
    free(buf);
    gcs_objects_free(an);
}

/* Generation ranges: a batch after the GC's ranges is applied after the
 * GC (post-GC addresses); the object the runtime kept in gen0 (no
 * promotion) is then gen0, and dies in the next gen0 GC as a gen0 object.
 * A gen2 object that dies counts as a gen2 death. */
/* Times of a corrupt clock (msec far beyond int64 microseconds): the
 * lifetime is computed without overflow (found in the audit for fuzzing:
 * llround's unspecified result minus a GC's time overflowed int64). */
static void test_absurd_times(void)
{
    gcs_error err;
    an = gcs_objects_new(&err);
    now_ms = -9e21; /* a frequency of 1 tick/s and a timestamp of -2^63 */
    tick(0x1000, 0xA0, "GcLoad.Ancient", 24, 0);
    now_ms = 9e15; /* 9e18 us: still an int64 */
    gc_start(1, 0, 0);
    static const uint64_t m1[][3] = {{0x8000, 0x8000, 0x40}};
    moved(0, m1, 1);
    gc_end(1, 0);
    CHECK_EQ_INT(gcs_objects_finish(an, &err), GCS_OK);
    const gcs_object_type_stats *t = type_named("GcLoad.Ancient");
    CHECK(t != NULL);
    if (t) {
        CHECK_EQ_U64(t->died_in_gc[0], 1);
        /* 9e18 us - (-2^63 us, saturated) = 1.822e19 us = 1.822e16 ms */
        CHECK_NEAR(t->lifetime.ms_max, (9e18 + 9223372036854775808.0) / 1000.0, 1e6);
    }
    gcs_objects_free(an);
    an = NULL;
}

static void test_generation_ranges_and_gen2_deaths(void)
{
    gcs_error err;
    an = gcs_objects_new(&err);
    tick(0x10000, 0xD0, "T", 100, 0);
    tick(0x50000, 0xE0, "Old", 1000, 0);
    gc_start(1, 0, 0);
    generation_range(0, 0x10000, 0x1000); /* pre-GC layout: before ranges */
    static const uint64_t s1[][2] = {{0x10000, 0x100}, {0x50000, 0x1000}};
    surviving(0, s1, 2);
    generation_range(0, 0x10000, 0x1000); /* post-GC: 0x10000 still gen0 */
    generation_range(2, 0x50000, 0x1000); /* and 0x50000 went to gen2 */
    gc_end(1, 0);
    gc_start(2, 0, 0);
    static const uint64_t s2[][2] = {{0x90000, 0x10}};
    surviving(0, s2, 1);
    gc_end(2, 0);
    gc_start(3, 2, 0);
    surviving(0, s2, 1);
    gc_end(3, 2);
    CHECK_EQ_INT(gcs_objects_finish(an, &err), GCS_OK);
    const gcs_object_type_stats *t = type_named("T");
    const gcs_object_type_stats *old = type_named("Old");
    CHECK(t && old);
    if (!t || !old)
        return;
    CHECK_EQ_U64(t->died_in_gc[0], 1); /* died in GC 2: it was still gen0 */
    CHECK_EQ_INT(t->lifetime.gcs_max, 2);
    CHECK_EQ_U64(old->died_in_gc[2], 1);
    CHECK_EQ_U64(old->died_gen2, 1);
    CHECK_EQ_U64(old->died_gen2_bytes, 1000);
    const gcs_objects_summary *s = gcs_objects_get_summary(an);
    CHECK_EQ_U64(s->generation_range_events, 3);
    CHECK_EQ_U64(s->gcs_without_generation_ranges, 2);
    CHECK_EQ_U64(s->tracker.generation_layouts, 2);
    CHECK_EQ_U64(s->tracker.generation_changes_by_layout, 2);
    gcs_objects_free(an);
}

/* Bad input is counted, never fatal: ranges outside a GC, short payloads,
 * a Count larger than the payload, GC/End without start, V2 ticks (no
 * address), unknown events, 32-bit pointers. */
static void test_bad_input(void)
{
    gcs_error err;
    an = gcs_objects_new(&err);
    static const uint64_t m[][3] = {{0x1000, 0x900, 0x10}};
    tick(0x1000, 0xA0, "A", 8, 0);
    moved(0, m, 1); /* no GC open */
    gc_end(7, 0);
    pb p = fresh();
    u32(&p, 1); /* GC/Start of 2 bytes */
    p.n = 2;
    feed(1, 2, &p);
    p = fresh();
    u32(&p, 0);
    u32(&p, 1000000); /* claims a million ranges, holds one */
    u16(&p, 0);
    ptr(&p, 0x1000);
    ptr(&p, 0x900);
    u64(&p, 0x10);
    gc_start(1, 0, 0);
    feed(22, 0, &p);
    gc_end(1, 0);
    p = fresh();
    u32(&p, 1);
    u32(&p, 0);
    u16(&p, 0);
    u64(&p, 1);
    ptr(&p, 0xF0);
    utf16z(&p, "NoAddress");
    u32(&p, 0);
    feed(10, 2, &p); /* V2: no address */
    p = fresh();
    u32(&p, 5);
    feed(999, 0, &p); /* not one of ours */
    /* 32-bit sampled allocation of a type named by BulkType. */
    p = fresh();
    p.ptr = 4;
    ptr(&p, 0x4000);
    ptr(&p, 0x1234);
    u32(&p, 2);
    u64(&p, 64);
    u16(&p, 0);
    feed(20, 0, &p);
    p = fresh();
    u32(&p, 1);
    u16(&p, 0);
    u64(&p, 0x1234);
    u64(&p, 0);
    u32(&p, 0);
    u32(&p, 0);
    u8(&p, 0);
    utf16z(&p, "Named.ByBulkType");
    u32(&p, 1);
    u64(&p, 5);
    feed(15, 0, &p);
    /* AllocationSampled (id 303), .NET 9+. */
    p = fresh();
    u32(&p, 1); /* large */
    u16(&p, 0);
    ptr(&p, 0x5678);
    utf16z(&p, "Big.Sampled");
    ptr(&p, 0x8000);
    u64(&p, 90000);
    u64(&p, 123);
    feed(303, 0, &p);
    CHECK_EQ_INT(gcs_objects_finish(an, &err), GCS_OK);
    const gcs_objects_summary *s = gcs_objects_get_summary(an);
    CHECK_EQ_U64(s->allocations_sampled, 1);
    const gcs_object_type_stats *big = type_named("Big.Sampled");
    CHECK(big != NULL);
    if (big) {
        CHECK_EQ_U64(big->sample_bytes, 90000);
        CHECK_EQ_U64(big->alive_at_end_gen[GCS_GEN_LOH], 1);
    }
    CHECK_EQ_U64(s->range_events_outside_gc, 1);
    CHECK_EQ_U64(s->tracker.ranges_outside_gc, 1);
    CHECK_EQ_U64(s->gc_end_without_start, 1);
    CHECK_EQ_U64(s->short_payloads, 2);
    CHECK_EQ_U64(s->ticks_without_address, 1);
    CHECK_EQ_U64(s->bulk_type_entries, 1);
    CHECK_EQ_U64(s->events_seen, 12);
    const gcs_object_type_stats *a = type_named("A");
    CHECK(a && a->alive_at_end == 1); /* the one range present moved it */
    const gcs_object_type_stats *n = type_named("Named.ByBulkType");
    CHECK(n != NULL);
    if (n) {
        CHECK_EQ_U64(n->type_id, 0x1234);
        CHECK_EQ_U64(n->sample_bytes, 32);
    }
    gcs_objects_free(an);
}

/* Hostile payloads: random bytes and lengths for every event this
 * analysis decodes, both pointer sizes, versions 0..5. The sanitizers
 * catch any read outside the payload; nothing may fail. */
static void test_random_payloads(void)
{
    static const uint32_t ids[] = {1, 2, 10, 15, 20, 21, 22, 23, 32, 33, 303};
    gcs_error err;
    an = gcs_objects_new(&err);
    uint64_t x = 0x2545F4914F6CDD1Dull;
    for (int round = 0; round < 20000; round++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        pb p = fresh();
        p.ptr = (x & 1) ? 8 : 4;
        size_t len = (size_t)((x >> 8) % 64);
        uint64_t y = x;
        for (size_t i = 0; i < len; i++) {
            y = y * 6364136223846793005ull + 1442695040888963407ull;
            /* Small values often, so counts and generations look plausible. */
            p.b[i] = (uint8_t)((y >> 60) < 10 ? (y >> 33) % 4 : (y >> 40));
        }
        p.n = len;
        uint32_t id = ids[(x >> 20) % (sizeof ids / sizeof ids[0])];
        now_ms += 0.001;
        feed(id, (uint32_t)((x >> 30) % 6), &p);
    }
    CHECK_EQ_INT(gcs_objects_finish(an, &err), GCS_OK);
    const gcs_objects_summary *s = gcs_objects_get_summary(an);
    CHECK_EQ_U64(s->events_seen, 20000);
    CHECK(s->short_payloads > 0);
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    CHECK_EQ_INT(gcs_objects_report(an, f, GCS_OBJECTS_JSON, &err), GCS_OK);
    fclose(f);
    CHECK(len > 0);
    free(buf);
    gcs_objects_free(an);
}

int main(void)
{
    RUN(test_lifetimes);
    RUN(test_generation_ranges_and_gen2_deaths);
    RUN(test_bad_input);
    RUN(test_absurd_times);
    RUN(test_random_payloads);
    return check_report("test_objects_analysis");
}
