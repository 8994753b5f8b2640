/*
 * test_profile_reader.c - the profile container (src/format/profile,
 * docs/format-profile.md) on hand-made streams: a well-formed profile
 * becomes the runtime's GC events, field by field (the heap layout after a
 * GC as GenerationRange events, authoritative for generations), and the object
 * analysis follows its objects exactly; every malformed input (truncated
 * header, record or stream, unknown version or kind, a range count past
 * the limit, 32-bit pointers, a varint too long) is refused with its
 * status; dropped
 * records, times going back and ill-formed UTF-8 names are survivable
 * and counted.
 */
#include <stdlib.h>
#include <string.h>

#include "byte_builder.h"
#include "check.h"
#include "format/profile/profile_format.h"
#include "gcscope.h"

/* The bases of the relative ALLOC fields, as the writer keeps them. */
static uint64_t base_time, base_address, base_class;

static void header(bb *b, uint32_t version, uint32_t pointer_size)
{
    bb_bytes(b, GCS_PROFILE_MAGIC, 8);
    bb_u32(b, version);
    bb_u32(b, GCS_PROFILE_HEADER_SIZE);
    bb_u32(b, 4242);           /* pid */
    bb_u32(b, pointer_size);
    bb_u64(b, 1000000u);       /* 1 MHz: ticks are microseconds */
    bb_u64(b, 5000000u);       /* start */
    bb_u64(b, 1700000000000u); /* 2023-11-14T22:13:20Z */
    base_time = 5000000u;
    base_address = base_class = 0;
}

static void type_rec(bb *b, uint64_t class_id, const char *name, size_t n)
{
    bb_u8(b, GCS_PROFILE_TYPE);
    bb_u64(b, class_id);
    bb_u16(b, (uint16_t)n);
    bb_bytes(b, name, n);
}

static void varuint(bb *b, uint64_t v)
{
    while (v >= 0x80) {
        bb_u8(b, (uint8_t)(v | 0x80));
        v >>= 7;
    }
    bb_u8(b, (uint8_t)v);
}

static void zigzag(bb *b, uint64_t delta)
{
    int64_t d = (int64_t)delta;
    varuint(b, ((uint64_t)d << 1) ^ (uint64_t)(d >> 63));
}

static void alloc_rec(bb *b, uint64_t t, uint64_t addr, uint64_t class_id, uint64_t size,
                      uint8_t kind)
{
    bb_u8(b, kind);
    varuint(b, t - base_time);
    zigzag(b, addr - base_address);
    zigzag(b, class_id - base_class);
    varuint(b, size);
    base_time = t;
    base_address = addr;
    base_class = class_id;
}

static void gc_start(bb *b, uint64_t t, uint32_t n, uint8_t condemned)
{
    base_time = t;
    bb_u8(b, GCS_PROFILE_GC_START);
    bb_u64(b, t);
    bb_u32(b, n);
    bb_u8(b, condemned);
    bb_u8(b, 1);
}

static void gc_end(bb *b, uint64_t t, uint32_t n)
{
    base_time = t;
    bb_u8(b, GCS_PROFILE_GC_END);
    bb_u64(b, t);
    bb_u32(b, n);
}

static void exit_rec(bb *b, uint64_t t)
{
    bb_u8(b, GCS_PROFILE_EXIT);
    bb_u64(b, t);
    bb_u64(b, 3);
    bb_u64(b, 0);
}

/* Reads all of it; the final status, the events in *n, the reader's
 * anomalies in *anomalies. */
static gcs_status read_all(const bb *b, size_t len, size_t *n, uint64_t *anomalies,
                           gcs_objects *an)
{
    gcs_error err;
    gcs_error_clear(&err);
    gcs_source *src = gcs_source_from_memory(b->data, len, &err);
    gcs_reader *r = src ? gcs_reader_new(src, NULL, &err) : NULL;
    if (!r)
        return err.status ? err.status : GCS_ERR_NOMEM;
    const gcs_event *ev;
    gcs_status st;
    *n = 0;
    while ((st = gcs_reader_next(r, &ev, &err)) == GCS_OK) {
        (*n)++;
        if (an)
            CHECK_EQ_INT(gcs_objects_feed(an, ev, &err), GCS_OK);
    }
    *anomalies = gcs_reader_get_stats(r)->anomalies;
    gcs_reader_free(r);
    gcs_source_free(src);
    return st;
}

/* The seed's example in a profile: objects at 0x08..0x19 (16 bytes
 * apart here), a gen-0 GC moving three blocks. */
static size_t build_good(bb *b)
{
    header(b, GCS_PROFILE_VERSION, 8);
    type_rec(b, 0x1000, "App.Node", 8);
    type_rec(b, 0x2000, "App.Big[]", 9);
    alloc_rec(b, 5000100, 0x10000, 0x1000, 24, GCS_PROFILE_ALLOC);
    alloc_rec(b, 5000200, 0x10018, 0x1000, 24, GCS_PROFILE_ALLOC); /* dies */
    alloc_rec(b, 5000300, 0x10030, 0x1000, 24, GCS_PROFILE_ALLOC);
    alloc_rec(b, 5000400, 0x900000, 0x2000, 100000, GCS_PROFILE_ALLOC_LARGE);
    gc_start(b, 5001000, 1, 0);
    bb_u8(b, GCS_PROFILE_MOVED);
    bb_u32(b, 2);
    bb_u64(b, 0x10000); bb_u64(b, 0x20000); bb_u64(b, 24);
    bb_u64(b, 0x10030); bb_u64(b, 0x20018); bb_u64(b, 24);
    bb_u8(b, GCS_PROFILE_SURVIVING);
    bb_u32(b, 1);
    bb_u64(b, 0x900000); bb_u64(b, 100000);
    /* The heap after the GC: the survivors' region is still gen0 (the
     * runtime demoted it; the promotion rule alone would say gen1). */
    bb_u8(b, GCS_PROFILE_GENERATIONS);
    bb_u32(b, 2);
    bb_u8(b, 0); bb_u64(b, 0x20000); bb_u64(b, 0x30); bb_u64(b, 0x10000);
    bb_u8(b, 3); bb_u64(b, 0x900000); bb_u64(b, 100000); bb_u64(b, 0x100000);
    gc_end(b, 5001500, 1);
    exit_rec(b, 5002000);
    return b->len;
}

static void test_events(void)
{
    static bb b;
    b.len = 0;
    size_t len = build_good(&b);
    gcs_error err;
    gcs_error_clear(&err);
    gcs_source *src = gcs_source_from_memory(b.data, len, &err);
    gcs_reader *r = gcs_reader_new(src, NULL, &err);
    CHECK(r != NULL);
    const gcs_event *ev;
    const char *want[] = {"GC/AllocationTick", "GC/AllocationTick", "GC/AllocationTick",
                          "GC/AllocationTick", "GC/Start", "GC/BulkMovedObjectRanges",
                          "GC/BulkSurvivingObjectRanges", "GC/GenerationRange",
                          "GC/GenerationRange", "GC/Stop"};
    size_t n = 0;
    gcs_status st;
    while ((st = gcs_reader_next(r, &ev, &err)) == GCS_OK) {
        if (n < 10)
            CHECK_EQ_STR(ev->type->name, want[n]);
        if (n == 8) {
            /* Generation 3 (LOH), RangeStart, used, reserved, ClrInstanceID */
            CHECK_EQ_U64(ev->payload_size, 27);
            CHECK_EQ_U64(ev->payload[0], 3);
            CHECK_EQ_U64(ev->payload[3], 0x90);
        }
        if (n == 0) {
            CHECK_NEAR(ev->msec, 0.1, 1e-9); /* 100 us after the start */
            CHECK_EQ_U64(ev->pid, 4242);
            /* AllocationTick V4: amount 24, kind 0, clr 0, amount64 24,
             * TypeID, "App.Node" UTF-16, heap 0, address, size 24. */
            CHECK_EQ_U64(ev->type->version, 4);
            CHECK_EQ_U64(ev->payload_size, 4 + 4 + 2 + 8 + 8 + 18 + 4 + 8 + 8);
            CHECK_EQ_U64(ev->payload[0], 24);
            CHECK_EQ_U64(ev->payload[18], 0x00); /* TypeID low byte */
            CHECK_EQ_U64(ev->payload[19], 0x10);
            CHECK_EQ_U64(ev->payload[26], 'A');
            CHECK_EQ_U64(ev->payload[27], 0);
        }
        if (n == 3)
            CHECK_EQ_U64(ev->payload[4], 1); /* AllocationKind: large */
        if (n == 4) {
            CHECK_EQ_U64(ev->payload[0], 1); /* Count */
            CHECK_EQ_U64(ev->payload[4], 0); /* Depth */
            CHECK_EQ_U64(ev->payload[8], 1); /* Reason: induced */
        }
        n++;
    }
    CHECK_EQ_INT(st, GCS_END);
    CHECK_EQ_U64(n, 10);
    const gcs_trace_info *ti = gcs_reader_info(r);
    CHECK(ti != NULL);
    if (ti) {
        CHECK_EQ_INT(ti->format, GCS_FORMAT_PROFILE);
        CHECK_EQ_U64(ti->clock_frequency, 1000000);
        CHECK_EQ_INT(ti->start_year, 2023);
        CHECK_EQ_INT(ti->start_hour, 22);
        CHECK_EQ_STR(gcs_format_name(ti->format), "profile");
    }
    gcs_reader_free(r);
    gcs_source_free(src);
}

/* The analysis follows the profile's objects: one Node died in the
 * gen-0 GC, two moved and live on, the LOH array survived untouched. */
static void test_objects(void)
{
    static bb b;
    b.len = 0;
    size_t len = build_good(&b);
    gcs_error err;
    gcs_error_clear(&err);
    gcs_objects *an = gcs_objects_new(&err);
    size_t n;
    uint64_t anomalies;
    CHECK_EQ_INT(read_all(&b, len, &n, &anomalies, an), GCS_END);
    CHECK_EQ_INT(gcs_objects_finish(an, &err), GCS_OK);
    size_t types = gcs_objects_type_count(an);
    CHECK_EQ_U64(types, 2);
    for (size_t i = 0; i < types; i++) {
        const gcs_object_type_stats *t = gcs_objects_type(an, i);
        if (!strcmp(t->name, "App.Node")) {
            CHECK_EQ_U64(t->samples, 3);
            CHECK_EQ_U64(t->sample_bytes, 72);
            CHECK_EQ_U64(t->estimated_bytes, 72);
            CHECK_EQ_U64(t->died_in_gc[0], 1);
            CHECK_EQ_U64(t->alive_at_end, 2);
            CHECK_EQ_U64(t->alive_at_end_gen[GCS_GEN0], 2); /* the layout's, not gen1 */
        } else {
            CHECK_EQ_STR(t->name, "App.Big[]");
            CHECK_EQ_U64(t->alive_at_end, 1);
            CHECK_EQ_U64(t->alive_at_end_gen[GCS_GEN_LOH], 1);
        }
    }
    CHECK_EQ_U64(gcs_objects_get_summary(an)->tracker.deaths[GCS_DEATH_UNSEEN], 0);
    gcs_objects_free(an);
}

static void test_truncated(void)
{
    static bb b;
    b.len = 0;
    size_t len = build_good(&b);
    size_t n;
    uint64_t an;
    /* Every cut: the header (not a profile when under 8 bytes), inside a
     * record, or before EXIT: never OK, never a crash. */
    for (size_t cut = 0; cut < len; cut++) {
        gcs_status st = read_all(&b, cut, &n, &an, NULL);
        if (cut < 8)
            CHECK(st == GCS_ERR_NOT_TRACE || st == GCS_ERR_TRUNCATED);
        else
            CHECK_EQ_INT(st, GCS_ERR_TRUNCATED);
    }
    CHECK_EQ_INT(read_all(&b, len, &n, &an, NULL), GCS_END);
}

static void test_refused(void)
{
    static bb b;
    size_t n;
    uint64_t an;
    b.len = 0;
    header(&b, 2, 8);
    exit_rec(&b, 5000001);
    CHECK_EQ_INT(read_all(&b, b.len, &n, &an, NULL), GCS_ERR_UNSUPPORTED);
    b.len = 0;
    header(&b, GCS_PROFILE_VERSION, 4);
    exit_rec(&b, 5000001);
    CHECK_EQ_INT(read_all(&b, b.len, &n, &an, NULL), GCS_ERR_UNSUPPORTED);
    b.len = 0;
    header(&b, GCS_PROFILE_VERSION, 8);
    bb_u8(&b, 99); /* unknown kind */
    exit_rec(&b, 5000001);
    CHECK_EQ_INT(read_all(&b, b.len, &n, &an, NULL), GCS_ERR_CORRUPT);
    b.len = 0;
    header(&b, GCS_PROFILE_VERSION, 8);
    bb_u8(&b, GCS_PROFILE_MOVED);
    bb_u32(&b, GCS_PROFILE_MAX_RANGES + 1);
    exit_rec(&b, 5000001);
    CHECK_EQ_INT(read_all(&b, b.len, &n, &an, NULL), GCS_ERR_CORRUPT);
    b.len = 0;
    header(&b, GCS_PROFILE_VERSION, 8);
    bb_u8(&b, GCS_PROFILE_ALLOC);
    for (int i = 0; i < 11; i++)
        bb_u8(&b, 0xff); /* a varint of 11 bytes */
    for (int i = 0; i < 40; i++)
        bb_u8(&b, 0);
    exit_rec(&b, 5000001);
    CHECK_EQ_INT(read_all(&b, b.len, &n, &an, NULL), GCS_ERR_CORRUPT);
    b.len = 0;
    header(&b, GCS_PROFILE_VERSION, 8);
    b.data[24] = b.data[25] = b.data[26] = 0; /* clock frequency 0 */
    exit_rec(&b, 5000001);
    CHECK_EQ_INT(read_all(&b, b.len, &n, &an, NULL), GCS_ERR_CORRUPT);
}

/* Survivable: a LOST record, a time that goes back, a name that is not
 * UTF-8, an ALLOC of a class never named, an unknown heap. */
static void test_survivable(void)
{
    static bb b;
    b.len = 0;
    header(&b, GCS_PROFILE_VERSION, 8);
    type_rec(&b, 0x1000, "A\xff\xc3", 3);
    alloc_rec(&b, 5000100, 0x10000, 0x1000, 24, GCS_PROFILE_ALLOC);
    bb_u8(&b, GCS_PROFILE_LOST); /* the writer gives it the base time */
    bb_u64(&b, 5000100);
    bb_u64(&b, 12);
    bb_u64(&b, 408);
    /* Lower address, an unnamed class: deltas going down. */
    alloc_rec(&b, 5000150, 0x8000, 0x3000, 24, GCS_PROFILE_ALLOC);
    gc_start(&b, 5000120, 1, 0); /* back in time */
    gc_end(&b, 5000130, 1);
    exit_rec(&b, 5000200);
    gcs_error err;
    gcs_error_clear(&err);
    gcs_objects *an = gcs_objects_new(&err);
    size_t n;
    uint64_t anomalies;
    CHECK_EQ_INT(read_all(&b, b.len, &n, &anomalies, an), GCS_END);
    CHECK_EQ_U64(n, 4);
    CHECK_EQ_U64(anomalies, 3); /* LOST, GC/Start and GC/Stop before the ALLOC's time */
    CHECK_EQ_INT(gcs_objects_finish(an, &err), GCS_OK);
    int named = 0;
    for (size_t i = 0; i < gcs_objects_type_count(an); i++)
        if (!strcmp(gcs_objects_type(an, i)->name, "A\xef\xbf\xbd\xef\xbf\xbd"))
            named++;
    CHECK_EQ_INT(named, 1);
    gcs_objects_free(an);
}

/* A GENERATIONS record of no range, the first of the stream (no array to
 * copy into yet): no event, no fault (fuzz_scan found memcpy called with
 * NULL, undefined even for 0 bytes). */
static void test_empty_generations(void)
{
    static bb b;
    b.len = 0;
    header(&b, GCS_PROFILE_VERSION, 8);
    gc_start(&b, 5000100, 1, 0);
    bb_u8(&b, GCS_PROFILE_GENERATIONS);
    bb_u32(&b, 0);
    gc_end(&b, 5000200, 1);
    exit_rec(&b, 5000300);
    size_t n;
    uint64_t anomalies;
    CHECK_EQ_INT(read_all(&b, b.len, &n, &anomalies, NULL), GCS_END);
    CHECK_EQ_U64(n, 2); /* GC/Start, GC/Stop */
    CHECK_EQ_U64(anomalies, 0);
}

int main(void)
{
    RUN(test_events);
    RUN(test_objects);
    RUN(test_truncated);
    RUN(test_refused);
    RUN(test_survivable);
    RUN(test_empty_generations);
    return check_report("test_profile_reader");
}
