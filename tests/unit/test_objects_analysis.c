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

/* AllocationTick of a version 2..4: the fields that version has (V3 has
 * no ObjectSize, V2 no Address either). */
static void tick_v(uint32_t version, uint32_t amount32, uint64_t amount64, uint64_t address,
                   uint64_t type_id, const char *name, uint64_t size, uint32_t kind)
{
    pb p = fresh();
    u32(&p, amount32);
    u32(&p, kind);
    u16(&p, 0);
    u64(&p, amount64);
    ptr(&p, type_id);
    utf16z(&p, name);
    u32(&p, 0); /* heap */
    if (version >= 3)
        ptr(&p, address);
    if (version >= 4)
        u64(&p, size);
    feed(10, version, &p);
}

static void tick(uint64_t address, uint64_t type_id, const char *name, uint64_t size,
                 uint32_t kind)
{
    tick_v(4, 100000, 100000, address, type_id, name, size, kind);
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
    /* The tick counted twice for the same object stands for its bytes twice
     * in the estimate (PerfView counts every tick), the survivor once. */
    CHECK(strstr(buf, ",\"GcLoad.KeptToEnd\",192,1,48,0,0,0,0,0,0,,,1,48,0,0,1,0,0,1,0,,,,,,,,"
                      ",0,2,200000,0,0,100000\n") != NULL);
    CHECK(strstr(buf, "\"GcLoad.DiesYoung\",160,1,24,1,0,0,0,0,0,1,1,0,0,0,0,0,0,0,0,1,"
                      "1,1,1,1,9.000,9.000,9.000,9.000,0,1,100000,0,0,0\n") != NULL);
    free(buf);
    f = open_memstream(&buf, &len);
    CHECK_EQ_INT(gcs_objects_report(an, f, GCS_OBJECTS_JSON, &err), GCS_OK);
    fclose(f);
    CHECK(strstr(buf, "\"survivors_at_end\":[\n {\"name\":\"GcLoad.KeptToEnd\",\"type_id\":192,"
                      "\"objects\":1,\"bytes\":48,\"estimated_bytes\":100000}]") != NULL);
    CHECK(strstr(buf, "\"gen2_deaths\":[]") != NULL);
    free(buf);
    f = open_memstream(&buf, &len);
    CHECK_EQ_INT(gcs_objects_report(an, f, GCS_OBJECTS_TABLE, &err), GCS_OK);
    fclose(f);
    CHECK(strstr(buf, "Survivors at end of trace by type (1 types)") != NULL);
    free(buf);
    gcs_objects_free(an);
}

static int cmp_double(const void *l, const void *r)
{
    double x = *(const double *)l, y = *(const double *)r;
    return (x > y) - (x < y);
}

/* The lifetime percentiles are nearest ranks over every death, whatever
 * order the deaths come in and however many are equal (the analysis
 * selects them instead of sorting): 300 objects of one type, allocated at
 * 0..299 ms, die in a shuffled order over 100 full GCs (three per GC,
 * so every value occurs three times), beside one that lives on (a GC
 * without any range says nothing). The expected values come from a
 * sort here. Also: a type id keeps the first name it is given, and an
 * id first seen without a name takes the first name given later. */
static void test_lifetime_percentiles(void)
{
    enum { N = 300, GCS = 100 };
    gcs_error err;
    an = gcs_objects_new(&err);
    uint32_t death[N];
    now_ms = 0;
    tick(0x8000, 0xD0, "", 16, 0); /* lives to the end */
    for (int i = 0; i < N; i++) {
        death[i] = (uint32_t)(i * 37 % GCS) + 1; /* a permutation of 1..100, three times */
        now_ms = i;
        tick(0x10000 + (uint64_t)i * 0x10, 0xD0, i == 0 ? "" : i == 1 ? "Load.Shuffled" : "Other",
             16, 0);
    }
    double ms[N], gcs[N];
    for (uint32_t g = 1; g <= GCS; g++) {
        now_ms = 1000.0 + 10.0 * g;
        gc_start(g, 2, 0);
        uint64_t keep[N + 1][2] = {{0x8000, 0x10}};
        int n = 1;
        for (int i = 0; i < N; i++)
            if (death[i] > g) {
                keep[n][0] = 0x10000 + (uint64_t)i * 0x10;
                keep[n][1] = 0x10;
                n++;
            }
        for (int at = 0; at < n; at += 200) /* a payload holds 200 ranges */
            surviving((uint32_t)(at / 200), (const uint64_t(*)[2])keep[at],
                      n - at < 200 ? n - at : 200);
        gc_end(g, 2);
    }
    for (int i = 0; i < N; i++) {
        gcs[i] = death[i];
        ms[i] = 1000.0 + 10.0 * death[i] - i;
    }
    CHECK_EQ_INT(gcs_objects_finish(an, &err), GCS_OK);
    CHECK_EQ_U64(gcs_objects_type_count(an), 1);
    const gcs_object_type_stats *t = type_named("Load.Shuffled");
    CHECK(t != NULL);
    if (t) {
        qsort(gcs, N, sizeof *gcs, cmp_double);
        qsort(ms, N, sizeof *ms, cmp_double);
        /* nearest rank of p% over 300: index ceil(3p) - 1 */
        CHECK_EQ_U64(t->lifetime.count, N);
        CHECK_EQ_INT(t->lifetime.gcs_p50, (int)gcs[149]);
        CHECK_EQ_INT(t->lifetime.gcs_p90, (int)gcs[269]);
        CHECK_EQ_INT(t->lifetime.gcs_p99, (int)gcs[296]);
        CHECK_EQ_INT(t->lifetime.gcs_max, 100);
        CHECK_EQ_INT(t->lifetime.gcs_p50, 50);
        CHECK_NEAR(t->lifetime.ms_p50, ms[149], 1e-9);
        CHECK_NEAR(t->lifetime.ms_p90, ms[269], 1e-9);
        CHECK_NEAR(t->lifetime.ms_p99, ms[296], 1e-9);
        CHECK_NEAR(t->lifetime.ms_max, ms[N - 1], 1e-9);
        CHECK_EQ_U64(t->died_in_gc[2], N);
        CHECK_EQ_U64(t->alive_at_end, 1);
    }
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

/* The line of the table that starts with `name `, split at blanks into
 * at most `max` fields; returns how many. */
static int table_fields(const char *table, const char *section, const char *name,
                        char fields[][32], int max)
{
    const char *p = strstr(table, section);
    size_t nl = strlen(name);
    while (p && (p = strchr(p, '\n')) != NULL) {
        p++;
        if (strncmp(p, name, nl) != 0 || p[nl] != ' ')
            continue;
        int n = 0;
        const char *q = p + nl;
        while (n < max && *q && *q != '\n') {
            while (*q == ' ')
                q++;
            int k = 0;
            while (*q && *q != ' ' && *q != '\n' && k < 31)
                fields[n][k++] = *q++;
            fields[n][k] = 0;
            if (k)
                n++;
        }
        return n;
    }
    return 0;
}

static char *report_text(gcs_objects_format format)
{
    gcs_error err;
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    CHECK_EQ_INT(gcs_objects_report(an, f, format, &err), GCS_OK);
    fclose(f);
    return buf;
}

/*
 * AllocationTick before V4 gives no object size: the sampled bytes are
 * unknown (-, null, empty), never 0; a type with sizes for only some
 * samples shows a lower bound. Estimated bytes are the ticks'
 * AllocationAmount (AllocationAmount64, or the 32-bit one when that is 0)
 * for every tick of the type, tracked or not; the survivors' estimate sums
 * the survivors' own ticks.
 */
static void test_unknown_sizes_and_estimates(void)
{
    gcs_error err;
    an = gcs_objects_new(&err);
    tick_v(3, 100200, 100200, 0x1000, 0xA0, "V3Only", 0, 0);
    tick_v(3, 101000, 101000, 0x2000, 0xA0, "V3Only", 0, 0);
    tick_v(3, 99000, 0, 0x3000, 0xA0, "V3Only", 0, 0); /* AllocationAmount64 0: 32-bit one */
    tick_v(4, 100000, 100000, 0x4000, 0xB0, "Mixed", 40, 0);
    tick_v(3, 100100, 100100, 0x5000, 0xB0, "Mixed", 0, 0);
    tick_v(2, 100500, 100500, 0, 0xC0, "NoAddress", 0, 0);
    pb v1 = fresh();
    u32(&v1, 100300);
    u32(&v1, 0);
    u16(&v1, 0);
    feed(10, 1, &v1);
    static const uint64_t keep3[][2] = {{0x1000, 0x10}, {0x4000, 0x40}, {0x5000, 0x40}};
    static const uint64_t keep2[][2] = {{0x1000, 0x10}, {0x4000, 0x40}};
    gc_start(1, 0, 0); /* gen0 GC: 0x2000 and 0x3000 die */
    surviving(0, keep3, 3);
    gc_end(1, 0);
    gc_start(2, 1, 0); /* gen1 GC: the three survivors reach gen2 */
    surviving(0, keep3, 3);
    gc_end(2, 1);
    gc_start(3, 2, 0); /* gen2 GC: 0x5000 (no size) dies in gen2 */
    surviving(0, keep2, 2);
    gc_end(3, 2);
    CHECK_EQ_INT(gcs_objects_finish(an, &err), GCS_OK);

    const gcs_object_type_stats *v3 = type_named("V3Only");
    const gcs_object_type_stats *mixed = type_named("Mixed");
    const gcs_object_type_stats *noaddr = type_named("NoAddress");
    CHECK(v3 && mixed && noaddr);
    if (!v3 || !mixed || !noaddr)
        return;
    CHECK_EQ_U64(v3->samples, 3);
    CHECK_EQ_U64(v3->samples_without_size, 3);
    CHECK_EQ_INT(gcs_objects_bytes_known(v3->samples, v3->samples_without_size),
                 GCS_BYTES_UNKNOWN);
    CHECK_EQ_U64(v3->allocation_ticks, 3);
    CHECK_EQ_U64(v3->estimated_bytes, 100200 + 101000 + 99000);
    CHECK_EQ_U64(v3->died_in_gc[0], 2);
    CHECK_EQ_U64(v3->alive_at_end, 1);
    CHECK_EQ_U64(v3->alive_at_end_without_size, 1);
    CHECK_EQ_U64(v3->alive_at_end_estimated_bytes, 100200);
    CHECK_EQ_U64(mixed->samples, 2);
    CHECK_EQ_U64(mixed->sample_bytes, 40);
    CHECK_EQ_U64(mixed->samples_without_size, 1);
    CHECK_EQ_INT(gcs_objects_bytes_known(mixed->samples, mixed->samples_without_size),
                 GCS_BYTES_PARTIAL);
    CHECK_EQ_U64(mixed->estimated_bytes, 200100);
    CHECK_EQ_U64(mixed->died_gen2, 1);
    CHECK_EQ_U64(mixed->died_gen2_without_size, 1);
    CHECK_EQ_U64(mixed->alive_at_end_bytes, 40);
    CHECK_EQ_U64(mixed->alive_at_end_estimated_bytes, 100000);
    CHECK_EQ_U64(noaddr->samples, 0); /* not followed, but its bytes are estimated */
    CHECK_EQ_U64(noaddr->allocation_ticks, 1);
    CHECK_EQ_U64(noaddr->estimated_bytes, 100500);
    /* A V1 tick names no type: its bytes count under "(type unknown)",
     * type id unknown (null, empty), not 0. */
    const gcs_objects_summary *s = gcs_objects_get_summary(an);
    CHECK_EQ_U64(s->samples_without_size, 4);
    CHECK_EQ_U64(s->ticks_with_address, 5);
    CHECK_EQ_U64(s->ticks_without_address, 2); /* V2 and V1 */
    /* Order: known sample bytes, then estimated bytes. */
    CHECK_EQ_STR(gcs_objects_type(an, 0)->name, "Mixed");
    CHECK_EQ_STR(gcs_objects_type(an, 1)->name, "V3Only");
    CHECK_EQ_STR(gcs_objects_type(an, 2)->name, "NoAddress");
    CHECK_EQ_STR(gcs_objects_type(an, 3)->name, ""); /* the V1 tick's */
    CHECK_EQ_U64(gcs_objects_type(an, 3)->estimated_bytes, 100300);

    char *json = report_text(GCS_OBJECTS_JSON);
    CHECK(strstr(json, "{\"name\":\"V3Only\",\"type_id\":160,\"samples\":3,\"bytes\":null,"
                       "\"samples_without_size\":3,\"allocation_ticks\":3,"
                       "\"estimated_bytes\":300200,") != NULL);
    CHECK(strstr(json, "\"alive_at_end\":1,\"alive_at_end_bytes\":null,"
                       "\"alive_at_end_estimated_bytes\":100200,") != NULL);
    CHECK(strstr(json, "{\"name\":\"Mixed\",\"type_id\":176,\"samples\":2,\"bytes\":40,"
                       "\"samples_without_size\":1,") != NULL);
    CHECK(strstr(json, "\"died_in_gen2\":1,\"died_in_gen2_bytes\":null,") != NULL);
    CHECK(strstr(json, "{\"name\":\"V3Only\",\"type_id\":160,\"objects\":1,\"bytes\":null,"
                       "\"estimated_bytes\":100200}") != NULL);
    CHECK(strstr(json, "\"gen2_deaths\":[\n {\"name\":\"Mixed\",\"type_id\":176,\"objects\":1,"
                       "\"bytes\":null}]") != NULL);
    CHECK(strstr(json, "\"samples_without_size\":4,") != NULL); /* the counter */
    CHECK(strstr(json, "{\"name\":\"\",\"type_id\":null,\"samples\":0,\"bytes\":0,"
                       "\"samples_without_size\":0,\"allocation_ticks\":1,"
                       "\"estimated_bytes\":100300,") != NULL);
    free(json);

    char *csv = report_text(GCS_OBJECTS_CSV);
    CHECK(strstr(csv, "\n,\"V3Only\",160,3,,2,0,0,0,0,0,1,1,1,,") != NULL);
    CHECK(strstr(csv, ",3,3,300200,0,1,100200\n") != NULL);
    CHECK(strstr(csv, "\n,\"Mixed\",176,2,40,0,0,1,0,1,,3,3,1,40,") != NULL);
    CHECK(strstr(csv, "\n,\"NoAddress\",192,0,0,") != NULL);
    CHECK(strstr(csv, "\n,\"\",,0,0,") != NULL);
    free(csv);

    char *table = report_text(GCS_OBJECTS_TABLE);
    char f[8][32];
    CHECK_EQ_INT(table_fields(table, "Objects by type", "V3Only", f, 8), 8);
    CHECK_EQ_STR(f[0], "3");      /* samples */
    CHECK_EQ_STR(f[1], "-");      /* bytes: unknown */
    CHECK_EQ_STR(f[2], "300200"); /* estimated */
    CHECK_EQ_INT(table_fields(table, "Objects by type", "Mixed", f, 8), 8);
    CHECK_EQ_STR(f[1], "40+");
    CHECK_EQ_STR(f[2], "200100");
    CHECK_EQ_INT(table_fields(table, "Survivors at end", "V3Only", f, 8), 8);
    CHECK_EQ_STR(f[1], "-");
    CHECK_EQ_STR(f[2], "100200");
    CHECK_EQ_INT(table_fields(table, "Gen2 object deaths", "Mixed", f, 8), 2);
    CHECK_EQ_STR(f[1], "-");
    CHECK(strstr(table, "note: 4 samples without an object size") != NULL);
    CHECK_EQ_INT(table_fields(table, "Objects by type", "(type unknown)", f, 8), 8);
    CHECK_EQ_STR(f[2], "100300");
    free(table);
    gcs_objects_free(an);
}

/* TraceEvent's GetAllocAmount: a negative amount (the 32-bit field read as
 * signed, when AllocationAmount64 is 0) switches on a clamp for it and
 * every later tick: 90 KB..110 KB small, 90 KB..2 MB large. A trace without
 * AllocationTick has no estimate: null, not 0. */
static void test_bad_amounts_and_no_ticks(void)
{
    gcs_error err;
    an = gcs_objects_new(&err);
    tick_v(4, 50000, 50000, 0x1000, 0xA0, "T", 24, 0);          /* before: as is */
    tick_v(4, 0x80000000u, 0, 0x2000, 0xA0, "T", 24, 0);        /* negative: 90 KB */
    tick_v(4, 50000, 50000, 0x3000, 0xA0, "T", 24, 0);          /* raised to 90 KB */
    tick_v(4, 3000000, 3000000, 0x4000, 0xA0, "T", 24, 1);      /* large: 2 MB */
    tick_v(4, 100000, 100000, 0x5000, 0xA0, "T", 24, 0);        /* in range: as is */
    tick_v(4, 100000, UINT64_MAX, 0x6000, 0xA0, "T", 24, 0);    /* 64-bit -1: 90 KB */
    CHECK_EQ_INT(gcs_objects_finish(an, &err), GCS_OK);
    const gcs_object_type_stats *t = type_named("T");
    CHECK(t != NULL);
    if (t)
        CHECK_EQ_U64(t->estimated_bytes, 50000 + 92160 + 92160 + 2097152 + 100000 + 92160);
    const gcs_objects_summary *s = gcs_objects_get_summary(an);
    CHECK_EQ_U64(s->bad_allocation_amounts, 2);
    CHECK_EQ_U64(s->allocation_amounts_clamped, 4);
    gcs_objects_free(an);

    an = gcs_objects_new(&err);
    pb p = fresh(); /* AllocationSampled (id 303) only */
    u32(&p, 0);
    u16(&p, 0);
    ptr(&p, 0x5678);
    utf16z(&p, "Only.Sampled");
    ptr(&p, 0x8000);
    u64(&p, 48);
    u64(&p, 7);
    feed(303, 0, &p);
    CHECK_EQ_INT(gcs_objects_finish(an, &err), GCS_OK);
    char *json = report_text(GCS_OBJECTS_JSON);
    CHECK(strstr(json, "\"samples\":1,\"bytes\":48,\"samples_without_size\":0,"
                       "\"allocation_ticks\":0,\"estimated_bytes\":null,") != NULL);
    CHECK(strstr(json, "\"alive_at_end_bytes\":48,\"alive_at_end_estimated_bytes\":null,") !=
          NULL);
    free(json);
    gcs_objects_free(an);
}

/* A background GC: the surviving ranges that come with no foreground GC
 * open during it are its survivors; its GC/Stop applies them (a LOH
 * object outside them died in it, in gen 2), and the generation layout
 * between waits for that. Another GC's start applies them first; ranges
 * with no GC at all open are counted outside. */
static void test_background_gc_survivors(void)
{
    gcs_error err;
    an = gcs_objects_new(&err);
    now_ms = 1;
    tick(0xA000, 0xB1, "Big.Lives", 90000, 1); /* kind 1: LOH */
    tick(0xB000, 0xB2, "Big.Dies", 90000, 1);
    tick(0xC000, 0xB3, "Small.Young", 24, 0);  /* gen 0: not the sweep's */
    now_ms = 2;
    gc_start(5, 2, 1); /* background */
    now_ms = 3;
    gc_start(6, 0, 2); /* a foreground GC during it, reporting nothing */
    gc_end(6, 0);
    now_ms = 4;
    const uint64_t live[][2] = {{0xA000, 0x100}};
    surviving(0, live, 1);
    generation_range(3, 0xA000, 0x2000); /* waits for the sweep */
    now_ms = 5;
    gc_end(5, 2);
    now_ms = 6;
    surviving(0, live, 1); /* no GC open */
    CHECK_EQ_INT(gcs_objects_finish(an, &err), GCS_OK);
    const gcs_object_type_stats *lives = type_named("Big.Lives");
    const gcs_object_type_stats *dies = type_named("Big.Dies");
    const gcs_object_type_stats *young = type_named("Small.Young");
    CHECK(lives && dies && young);
    if (lives && dies && young) {
        CHECK_EQ_U64(lives->alive_at_end, 1);
        CHECK_EQ_U64(lives->alive_at_end_gen[GCS_GEN_LOH], 1);
        CHECK_EQ_U64(dies->alive_at_end, 0);
        CHECK_EQ_U64(dies->died_in_gc[2], 1);
        CHECK_EQ_U64(dies->died_gen2, 1);
        CHECK_EQ_U64(dies->first_death_gc, 5);
        CHECK_EQ_U64(young->alive_at_end, 1);
    }
    const gcs_objects_summary *s = gcs_objects_get_summary(an);
    CHECK_EQ_U64(s->background_gcs_with_ranges, 1);
    CHECK_EQ_U64(s->range_events_outside_gc, 1);
    CHECK_EQ_U64(s->tracker.generation_layouts, 1);
    gcs_objects_free(an);

    /* The next GC's start applies a sweep whose GC/Stop has not come. */
    an = gcs_objects_new(&err);
    now_ms = 1;
    tick(0xB000, 0xB2, "Big.Dies", 90000, 1);
    gc_start(5, 2, 1);
    surviving(0, live, 1);
    now_ms = 2;
    gc_start(6, 0, 0);
    gc_end(6, 0);
    CHECK_EQ_INT(gcs_objects_finish(an, &err), GCS_OK);
    dies = type_named("Big.Dies");
    CHECK(dies != NULL);
    if (dies)
        CHECK_EQ_U64(dies->died_in_gc[2], 1);
    CHECK_EQ_U64(gcs_objects_get_summary(an)->background_gcs_with_ranges, 1);
    gcs_objects_free(an);

    /* A trace that ends before the background GC's GC/Stop: dropped. */
    an = gcs_objects_new(&err);
    tick(0xB000, 0xB2, "Big.Dies", 90000, 1);
    gc_start(5, 2, 1);
    surviving(0, live, 1);
    CHECK_EQ_INT(gcs_objects_finish(an, &err), GCS_OK);
    dies = type_named("Big.Dies");
    CHECK(dies != NULL);
    if (dies)
        CHECK_EQ_U64(dies->alive_at_end, 1);
    CHECK_EQ_U64(gcs_objects_get_summary(an)->background_gcs_with_ranges, 0);
    gcs_objects_free(an);
}

/* Amounts near 2^63 (a hostile or broken runtime): the estimates stop at
 * 2^64-1, and each sum that stops is counted once, however many amounts
 * come after (the survivors' pass reads them in no set order). */
static void test_saturated_sums_counted_once(void)
{
    gcs_error err;
    an = gcs_objects_new(&err);
    const uint64_t huge = 0x7000000000000000ull; /* three of them pass 2^64 - 1 */
    for (uint64_t i = 0; i < 4; i++)
        tick_v(4, 100000, huge, 0x1000 + 0x100 * i, 0xA0, "Huge", 24, 0);
    CHECK_EQ_INT(gcs_objects_finish(an, &err), GCS_OK);
    const gcs_object_type_stats *t = type_named("Huge");
    CHECK(t != NULL);
    if (t) {
        CHECK_EQ_U64(t->estimated_bytes, UINT64_MAX);
        CHECK_EQ_U64(t->alive_at_end, 4);
        CHECK_EQ_U64(t->alive_at_end_estimated_bytes, UINT64_MAX);
    }
    /* The estimate and the survivors' estimate: two sums, not four adds. */
    CHECK_EQ_U64(gcs_objects_get_summary(an)->byte_sums_saturated, 2);
    gcs_objects_free(an);
}

/* Hostile payloads: random bytes and lengths for every event this
 * analysis decodes, both pointer sizes, versions 0..5. The sanitizers
 * catch any read outside the payload; nothing may fail. */
/*
 * A sample's type and amount ride in the tracked object where they fit;
 * an amount of 4 GiB or more, or a type past the 65,534th, takes a slot.
 * Both kinds die, new samples come after the deaths (into freed slots,
 * which nothing here can see), and some end alive: the counts and
 * estimates must be those of the types they were sampled as.
 */
static void test_samples_in_slots(void)
{
    gcs_error err;
    an = gcs_objects_new(&err);
    enum { MANY = 65540 };
    char name[32];
    /* Type 0: in a slot for its amount alone, or in the object. */
    tick_v(4, 0, 5000000000ull, 0x10, 0xF0, "Huge", 24, 0);  /* a slot: 5 GB */
    tick_v(4, 0, 6000000000ull, 0x20, 0xF0, "Huge", 24, 0);  /* a slot: dies */
    tick_v(4, 100000, 100000, 0x30, 0xF0, "Huge", 24, 0);    /* in the object */
    for (uint32_t i = 0; i < MANY; i++) { /* types 1..MANY: from 65,535 on in slots */
        snprintf(name, sizeof name, "T%u", i);
        tick_v(4, 100, 100, 0x100000 + (uint64_t)i * 0x100, 0x1000 + i, name, 24, 0);
    }
    static const uint64_t keep[][2] = {{0x10, 0x10}, {0x30, 0x10}, {0x100000, 0x100}};
    gc_start(1, 0, 0); /* 0x20 and every T but T0 die */
    surviving(0, keep, 3);
    gc_end(1, 0);
    /* New samples after the deaths take the freed slots again. */
    tick_v(4, 0, 7000000000ull, 0x40, 0xF0, "Huge", 24, 0);
    snprintf(name, sizeof name, "T%u", MANY - 1);
    tick_v(4, 100, 100, 0x50, 0x1000 + MANY - 1, name, 24, 0);
    CHECK_EQ_INT(gcs_objects_finish(an, &err), GCS_OK);

    const gcs_object_type_stats *huge = type_named("Huge");
    CHECK(huge != NULL);
    if (huge) {
        CHECK_EQ_U64(huge->samples, 4);
        CHECK_EQ_U64(huge->died_in_gc[0], 1);
        CHECK_EQ_U64(huge->alive_at_end, 3);
        CHECK_EQ_U64(huge->alive_at_end_estimated_bytes, 5000000000ull + 100000 + 7000000000ull);
    }
    snprintf(name, sizeof name, "T%u", MANY - 1);
    const gcs_object_type_stats *last = type_named(name);
    snprintf(name, sizeof name, "T%u", MANY - 2);
    const gcs_object_type_stats *before_last = type_named(name);
    const gcs_object_type_stats *first = type_named("T0");
    CHECK(last && before_last && first);
    if (last && before_last && first) {
        CHECK_EQ_U64(last->samples, 2);
        CHECK_EQ_U64(last->died_in_gc[0], 1);
        CHECK_EQ_U64(last->alive_at_end, 1);
        CHECK_EQ_U64(last->alive_at_end_estimated_bytes, 100);
        CHECK_EQ_U64(before_last->died_in_gc[0], 1);
        CHECK_EQ_U64(before_last->alive_at_end, 0);
        CHECK_EQ_U64(first->alive_at_end, 1);
        CHECK_EQ_U64(first->died_in_gc[0], 0);
    }
    for (uint32_t i = 65532; i < 65537; i++) { /* type indexes 65,533 to 65,537 */
        snprintf(name, sizeof name, "T%u", i);
        const gcs_object_type_stats *t = type_named(name);
        CHECK(t != NULL);
        if (t) {
            CHECK_EQ_U64(t->samples, 1);
            CHECK_EQ_U64(t->died_in_gc[0], 1);
        }
    }
    gcs_objects_free(an);
}

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

/* ---- GenerationRange through the reader's tap ---- */

/* gcs_objects_tap, counting its calls (the reader must hand some over). */
typedef struct tap_count {
    gcs_objects *an;
    uint64_t taps;
} tap_count;

static void counted_tap(void *ctx, const gcs_tap_event *ev)
{
    tap_count *t = ctx;
    t->taps++;
    gcs_objects_tap(t->an, ev);
}

/* The objects report (wide table and CSV) of a trace read with the
 * GenerationRange events delivered (tapped false) or tapped; malloc'ed,
 * NULL when the trace is absent. *taps: how many were tapped. */
static char *objects_report_of(const char *path, bool tapped, uint64_t *taps,
                               gcs_objects_summary *summary)
{
    gcs_error err;
    gcs_source *src = gcs_source_open_file(path, &err);
    if (!src)
        return NULL;
    gcs_objects *a = gcs_objects_new(&err);
    tap_count tc = {a, 0};
    gcs_reader_options o = {.want = gcs_objects_wants};
    if (tapped) {
        o.tap = gcs_objects_taps;
        o.on_tap = counted_tap;
        o.tap_ctx = &tc;
    }
    gcs_reader *r = gcs_reader_new(src, &o, &err);
    CHECK(r != NULL);
    if (!r) {
        gcs_objects_free(a);
        gcs_source_free(src);
        return NULL;
    }
    const gcs_event *ev;
    gcs_status st;
    while ((st = gcs_reader_next(r, &ev, &err)) == GCS_OK)
        CHECK_EQ_INT(gcs_objects_feed(a, ev, &err), GCS_OK);
    CHECK_EQ_INT(st, GCS_END);
    CHECK_EQ_INT(gcs_objects_status(a), GCS_OK);
    CHECK_EQ_INT(gcs_objects_finish(a, &err), GCS_OK);
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    gcs_objects_report_options ro = {.format = GCS_OBJECTS_TABLE, .wide = true};
    CHECK_EQ_INT(gcs_objects_report_write(a, f, &ro, &err), GCS_OK);
    CHECK_EQ_INT(gcs_objects_report(a, f, GCS_OBJECTS_CSV, &err), GCS_OK);
    CHECK_EQ_INT(gcs_objects_report(a, f, GCS_OBJECTS_JSON, &err), GCS_OK);
    fclose(f);
    *taps = tc.taps;
    /* byte for byte: an assignment need not copy the padding memcmp reads */
    memcpy(summary, gcs_objects_get_summary(a), sizeof *summary);
    gcs_objects_free(a);
    gcs_reader_free(r);
    gcs_source_free(src);
    return buf;
}

/* Recorded traces with GenerationRange events (tests/data): the analysis
 * with them tapped reports the same bytes as with them delivered. */
static void test_tapped_generation_ranges(void)
{
    static const char *const traces[] = {
        "tests/data/objects-movement.nettrace", "tests/data/objects-bgc.nettrace",
        "tests/data/objects-bgc-server.nettrace", "tests/data/net31-concurrent.nettrace"};
    for (size_t i = 0; i < sizeof traces / sizeof traces[0]; i++) {
        uint64_t taps_d, taps_t;
        gcs_objects_summary sd, st;
        char *delivered = objects_report_of(traces[i], false, &taps_d, &sd);
        char *tapped = objects_report_of(traces[i], true, &taps_t, &st);
        CHECK(delivered && tapped);
        if (delivered && tapped) {
            CHECK_EQ_U64(taps_d, 0);
            CHECK(sd.generation_range_events > 0);
            CHECK_EQ_U64(taps_t, sd.generation_range_events); /* every one tapped */
            /* every counter, events seen and used included */
            CHECK_EQ_U64(st.events_seen, sd.events_seen);
            CHECK_EQ_U64(st.events_used, sd.events_used);
            CHECK(memcmp(&sd, &st, sizeof sd) == 0);
            CHECK(strcmp(delivered, tapped) == 0);
        }
        free(delivered);
        free(tapped);
    }
}

/* A tapped GenerationRange from its head: 8-byte pointers (RangeReserved
 * past the head), 4-byte pointers (all of it in the head), and a payload
 * shorter than the event's fields (counted as delivery counts it). */
static void tap_range(gcs_objects *a, const pb *p, uint32_t payload_size)
{
    gcs_tap_event ev;
    memset(&ev, 0, sizeof ev);
    ev.type = etype(23, 0);
    ev.msec = now_ms;
    ev.head = p->b;
    ev.head_size = payload_size < GCS_TAP_HEAD_BYTES ? payload_size : GCS_TAP_HEAD_BYTES;
    ev.payload_size = payload_size;
    ev.pointer_size = p->ptr;
    gcs_objects_tap(a, &ev);
}

static void test_tapped_range_heads(void)
{
    gcs_error err;
    for (uint32_t ps = 4; ps <= 8; ps += 4) {
        an = gcs_objects_new(&err);
        pb p = fresh();
        p.ptr = ps;
        u8(&p, 2);
        ptr(&p, 0x50000);
        u64(&p, 0x1000);
        u64(&p, 0x2000);
        u16(&p, 0);
        tick(0x50000, 0xE0, "Old", 1000, 0);
        gc_start(1, 0, 0);
        static const uint64_t s1[][2] = {{0x50000, 0x1000}};
        surviving(0, s1, 1);
        tap_range(an, &p, (uint32_t)p.n);     /* the object's generation: 2 */
        tap_range(an, &p, (uint32_t)p.n - 1); /* ClrInstanceID cut: short */
        gc_end(1, 0);
        CHECK_EQ_INT(gcs_objects_status(an), GCS_OK);
        CHECK_EQ_INT(gcs_objects_finish(an, &err), GCS_OK);
        const gcs_objects_summary *s = gcs_objects_get_summary(an);
        CHECK_EQ_U64(s->generation_range_events, 2);
        CHECK_EQ_U64(s->short_payloads, 1);
        CHECK_EQ_U64(s->tracker.generation_layouts, 1);
        CHECK_EQ_U64(s->tracker.generation_changes_by_layout, 1);
        const gcs_object_type_stats *old = type_named("Old");
        CHECK(old && old->alive_at_end == 1);
        gcs_objects_free(an);
    }
}

int main(void)
{
    RUN(test_lifetimes);
    RUN(test_lifetime_percentiles);
    RUN(test_generation_ranges_and_gen2_deaths);
    RUN(test_bad_input);
    RUN(test_unknown_sizes_and_estimates);
    RUN(test_bad_amounts_and_no_ticks);
    RUN(test_saturated_sums_counted_once);
    RUN(test_background_gc_survivors);
    RUN(test_samples_in_slots);
    RUN(test_absurd_times);
    RUN(test_random_payloads);
    RUN(test_tapped_generation_ranges);
    RUN(test_tapped_range_heads);
    return check_report("test_objects_analysis");
}
