/*
 * test_gc_decode.c - typed decoding of GC events: every layout family, the
 * version rules (prefix of newer versions, short payloads counted), the
 * classification by provider and id, and the array accessors.
 */
#include <stdlib.h>
#include <string.h>

#include "decode/gc_events.h"
#include "unit/check.h"

typedef struct pb {
    uint8_t b[1024];
    uint32_t n;
} pb;
static void put(pb *p, uint64_t v, int bytes)
{
    for (int i = 0; i < bytes; i++)
        p->b[p->n++] = (uint8_t)(v >> (8 * i));
}
static void put_utf16(pb *p, const char *s)
{
    for (; *s; s++)
        put(p, (uint8_t)*s, 2);
    put(p, 0, 2);
}

static gcs_status dec(gcs_gc_kind k, uint32_t version, const pb *p, uint32_t ps, gcs_gc_record *r)
{
    gcs_error err;
    gcs_error_clear(&err);
    return gcs_gc_decode_payload(k, version, p->b, p->n, ps, r, &err);
}

static void test_classify(void)
{
    gcs_event_type t = {0};
    t.provider = "Microsoft-Windows-DotNETRuntime";
    t.event_id = 1;
    CHECK_EQ_INT(gcs_gc_classify(&t), GCS_GCK_START);
    t.event_id = 204;
    CHECK_EQ_INT(gcs_gc_classify(&t), GCS_GCK_PER_HEAP_HISTORY);
    t.event_id = 80; /* exception thrown: not GC */
    CHECK_EQ_INT(gcs_gc_classify(&t), GCS_GCK_NONE);
    t.event_id = 1000;
    CHECK_EQ_INT(gcs_gc_classify(&t), GCS_GCK_NONE);
    t.provider = "Microsoft-Windows-DotNETRuntimePrivate";
    t.event_id = 11;
    CHECK_EQ_INT(gcs_gc_classify(&t), GCS_GCK_BGC_BEGIN);
    t.event_id = 1;
    CHECK_EQ_INT(gcs_gc_classify(&t), GCS_GCK_DECISION);
    t.provider = "Microsoft-Windows-DotNETRuntimeRundown";
    t.event_id = 10;
    CHECK_EQ_INT(gcs_gc_classify(&t), GCS_GCK_SETTINGS_RUNDOWN);
    t.provider = "Microsoft-Windows-DotNETRuntimeX";
    CHECK_EQ_INT(gcs_gc_classify(&t), GCS_GCK_NONE);
    t.provider = "Microsoft-DotNETCore-EventPipe";
    CHECK_EQ_INT(gcs_gc_classify(&t), GCS_GCK_NONE);

    static gcs_gc_kind_cache cache;
    gcs_gc_kind_cache_init(&cache);
    gcs_event_type a = {0}, b = {0};
    a.provider = b.provider = "Microsoft-Windows-DotNETRuntime";
    a.event_id = 2;
    b.event_id = 9;
    for (int i = 0; i < 3; i++) {
        CHECK_EQ_INT(gcs_gc_kind_cached(&cache, &a), GCS_GCK_END);
        CHECK_EQ_INT(gcs_gc_kind_cached(&cache, &b), GCS_GCK_SUSPEND_EE_BEGIN);
    }
    CHECK_EQ_STR(gcs_gc_kind_name(GCS_GCK_BGC_2ND_NONCON_BEGIN), "BGC2ndNonConBegin");

    /* Type/BulkType (15) and AllocationSampled (303): runtime provider only. */
    t.provider = "Microsoft-Windows-DotNETRuntime";
    t.event_id = 15;
    CHECK_EQ_INT(gcs_gc_classify(&t), GCS_GCK_BULK_TYPE);
    t.event_id = 303;
    CHECK_EQ_INT(gcs_gc_classify(&t), GCS_GCK_ALLOCATION_SAMPLED);
    t.event_id = 304;
    CHECK_EQ_INT(gcs_gc_classify(&t), GCS_GCK_NONE);
    t.provider = "Microsoft-Windows-DotNETRuntimePrivate";
    t.event_id = 303;
    CHECK_EQ_INT(gcs_gc_classify(&t), GCS_GCK_NONE);
    t.event_id = 15; /* private 15 is BGC2ndNonConEnd */
    CHECK_EQ_INT(gcs_gc_classify(&t), GCS_GCK_BGC_2ND_NONCON_END);
    CHECK_EQ_STR(gcs_gc_kind_name(GCS_GCK_BULK_TYPE), "BulkType");
    CHECK_EQ_STR(gcs_gc_kind_name(GCS_GCK_ALLOCATION_SAMPLED), "AllocationSampled");
}

static void test_gc_start_versions(void)
{
    gcs_gc_record r;
    pb p = {{0}, 0};
    /* V0: Count, Reason (8 bytes) */
    put(&p, 12, 4);
    put(&p, 4, 4);
    CHECK_EQ_INT(dec(GCS_GCK_START, 0, &p, 8, &r), GCS_OK);
    CHECK_EQ_U64(r.u.start.count, 12);
    CHECK_EQ_U64(r.u.start.reason, 4);
    CHECK_EQ_U64(r.u.start.depth, 0);
    CHECK(!r.has_clr_instance_id);
    /* V2: Count, Depth, Reason, Type, ClrInstanceID, ClientSequenceNumber */
    p.n = 0;
    put(&p, 13, 4);
    put(&p, 2, 4);
    put(&p, 1, 4);
    put(&p, 1, 4);
    put(&p, 9, 2);
    put(&p, 0x1122334455667788ull, 8);
    CHECK_EQ_U64(p.n, 26);
    CHECK_EQ_INT(dec(GCS_GCK_START, 2, &p, 8, &r), GCS_OK);
    CHECK_EQ_U64(r.u.start.depth, 2);
    CHECK_EQ_U64(r.u.start.reason, 1);
    CHECK_EQ_U64(r.u.start.type, 1);
    CHECK_EQ_U64(r.clr_instance_id, 9);
    CHECK_EQ_U64(r.u.start.client_sequence_number, 0x1122334455667788ull);
    /* A newer version with more bytes: decoded as a V2 prefix. */
    put(&p, 0xffffffff, 4);
    CHECK_EQ_INT(dec(GCS_GCK_START, 3, &p, 8, &r), GCS_OK);
    CHECK_EQ_U64(r.u.start.count, 13);
    /* Short V2 payload: a counted problem with the field named. */
    p.n = 20;
    gcs_error err;
    gcs_error_clear(&err);
    CHECK_EQ_INT(gcs_gc_decode_payload(GCS_GCK_START, 2, p.b, p.n, 8, &r, &err), GCS_ERR_TRUNCATED);
    CHECK(strstr(err.reason, "ClientSequenceNumber") != NULL);
    CHECK_EQ_U64(err.offset, 18);
}

static void test_end_suspend_small(void)
{
    gcs_gc_record r;
    pb p = {{0}, 0};
    put(&p, 5, 4);
    put(&p, 1, 2); /* V0: Depth is 16 bits */
    CHECK_EQ_INT(dec(GCS_GCK_END, 0, &p, 8, &r), GCS_OK);
    CHECK_EQ_U64(r.u.end.depth, 1);
    p.n = 0;
    put(&p, 5, 4);
    put(&p, 2, 4);
    put(&p, 3, 2);
    CHECK_EQ_INT(dec(GCS_GCK_END, 1, &p, 8, &r), GCS_OK);
    CHECK_EQ_U64(r.u.end.depth, 2);
    CHECK_EQ_U64(r.clr_instance_id, 3);
    /* SuspendEEBegin V0: u16 reason; V1: u32 reason, count, id */
    p.n = 0;
    put(&p, 6, 2);
    CHECK_EQ_INT(dec(GCS_GCK_SUSPEND_EE_BEGIN, 0, &p, 8, &r), GCS_OK);
    CHECK_EQ_U64(r.u.suspend_ee_begin.reason, 6);
    p.n = 0;
    put(&p, 1, 4);
    put(&p, 77, 4);
    put(&p, 0, 2);
    CHECK_EQ_INT(dec(GCS_GCK_SUSPEND_EE_BEGIN, 1, &p, 8, &r), GCS_OK);
    CHECK_EQ_U64(r.u.suspend_ee_begin.reason, 1);
    CHECK_EQ_U64(r.u.suspend_ee_begin.count, 77);
    /* Events with no payload in V0 and only a ClrInstanceID in V1. */
    p.n = 0;
    CHECK_EQ_INT(dec(GCS_GCK_RESTART_EE_END, 0, &p, 8, &r), GCS_OK);
    CHECK_EQ_INT(dec(GCS_GCK_SUSPEND_EE_END, 1, &p, 8, &r), GCS_ERR_TRUNCATED);
    put(&p, 4, 2);
    CHECK_EQ_INT(dec(GCS_GCK_SUSPEND_EE_END, 1, &p, 8, &r), GCS_OK);
    CHECK_EQ_U64(r.clr_instance_id, 4);
    /* Triggered, FinalizersEnd, Mark, MarkWithType */
    p.n = 0;
    put(&p, 7, 4);
    put(&p, 1, 2);
    CHECK_EQ_INT(dec(GCS_GCK_TRIGGERED, 0, &p, 8, &r), GCS_OK);
    CHECK_EQ_U64(r.u.triggered.reason, 7);
    CHECK_EQ_INT(dec(GCS_GCK_FINALIZERS_END, 1, &p, 8, &r), GCS_OK);
    CHECK_EQ_U64(r.u.finalizers_end.count, 7);
    p.n = 0;
    put(&p, 3, 4);
    put(&p, 1, 2);
    put(&p, 2, 4);
    put(&p, 123456789, 8);
    CHECK_EQ_INT(dec(GCS_GCK_MARK_WITH_TYPE, 0, &p, 8, &r), GCS_OK);
    CHECK_EQ_U64(r.u.mark_with_type.heap_num, 3);
    CHECK_EQ_U64(r.u.mark_with_type.type, 2);
    CHECK_EQ_U64(r.u.mark_with_type.bytes, 123456789);
}

static void test_heap_stats(void)
{
    gcs_gc_record r;
    pb p = {{0}, 0};
    for (int i = 0; i < 10; i++)
        put(&p, 1000 + i, 8);
    put(&p, 5, 4);
    put(&p, 6, 4);
    put(&p, 7, 4);
    CHECK_EQ_U64(p.n, 92);
    CHECK_EQ_INT(dec(GCS_GCK_HEAP_STATS, 0, &p, 8, &r), GCS_OK);
    CHECK_EQ_U64(r.u.heap_stats.generation_size[3], 1006);
    CHECK_EQ_U64(r.u.heap_stats.total_promoted_size[3], 1007);
    CHECK_EQ_U64(r.u.heap_stats.finalization_promoted_count, 1009);
    CHECK_EQ_U64(r.u.heap_stats.pinned_object_count, 5);
    CHECK_EQ_U64(r.u.heap_stats.gc_handle_count, 7);
    CHECK(!r.u.heap_stats.has_poh);
    CHECK_EQ_INT(dec(GCS_GCK_HEAP_STATS, 1, &p, 8, &r), GCS_ERR_TRUNCATED);
    put(&p, 2, 2);
    put(&p, 4444, 8);
    put(&p, 5555, 8);
    CHECK_EQ_U64(p.n, 110);
    CHECK_EQ_INT(dec(GCS_GCK_HEAP_STATS, 2, &p, 8, &r), GCS_OK);
    CHECK(r.u.heap_stats.has_poh);
    CHECK_EQ_U64(r.u.heap_stats.generation_size[4], 4444);
    CHECK_EQ_U64(r.u.heap_stats.total_promoted_size[4], 5555);
}

static void test_allocation_tick(void)
{
    gcs_gc_record r;
    for (uint32_t ps = 4; ps <= 8; ps += 4) {
        pb p = {{0}, 0};
        put(&p, 100000, 4);
        put(&p, 2, 4);
        put(&p, 1, 2);
        put(&p, 5000000000ull, 8);
        put(&p, 0xABCD, ps);
        put_utf16(&p, "A");
        put(&p, 3, 4);
        put(&p, 0x7000, ps);
        put(&p, 24, 8);
        /* example of the study: P=8, name "A": total 50 */
        if (ps == 8)
            CHECK_EQ_U64(p.n, 50);
        CHECK_EQ_INT(dec(GCS_GCK_ALLOCATION_TICK, 4, &p, ps, &r), GCS_OK);
        CHECK_EQ_U64(r.u.allocation_tick.allocation_kind, 2);
        CHECK_EQ_U64(r.u.allocation_tick.allocation_amount64, 5000000000ull);
        CHECK_EQ_U64(r.u.allocation_tick.type_id, 0xABCD);
        CHECK_EQ_U64(r.u.allocation_tick.type_name.units, 1);
        char name[16];
        CHECK_EQ_STR(gcs_gc_utf16_to_utf8(r.u.allocation_tick.type_name, name, sizeof name), "A");
        CHECK_EQ_U64(r.u.allocation_tick.heap_index, 3);
        CHECK_EQ_U64(r.u.allocation_tick.address, 0x7000);
        CHECK_EQ_U64(r.u.allocation_tick.object_size, 24);
        /* V3 reads no ObjectSize; V1 stops after the ClrInstanceID. */
        CHECK_EQ_INT(dec(GCS_GCK_ALLOCATION_TICK, 3, &p, ps, &r), GCS_OK);
        CHECK_EQ_U64(r.u.allocation_tick.object_size, 0);
        CHECK_EQ_INT(dec(GCS_GCK_ALLOCATION_TICK, 1, &p, ps, &r), GCS_OK);
        CHECK_EQ_U64(r.u.allocation_tick.allocation_amount64, 0);
        /* An unterminated type name is a short payload. */
        p.n = 10 + 8 + ps + 2;
        CHECK_EQ_INT(dec(GCS_GCK_ALLOCATION_TICK, 2, &p, ps, &r), GCS_ERR_TRUNCATED);
    }
}

/* The analysis' fast read of a tick (amounts, kind, ClrInstanceID) on
 * every prefix of a payload: the fields a version has, or TRUNCATED when
 * the prefix lacks one of them (8, 10, 18 bytes for V0, V1, V2+). */
static void test_alloc_amount_prefixes(void)
{
    pb p = {{0}, 0};
    put(&p, 100000, 4);
    put(&p, 1, 4);
    put(&p, 7, 2);
    put(&p, 5000000000ull, 8);
    put_utf16(&p, "A");
    for (uint32_t version = 0; version <= 4; version++)
        for (uint32_t n = 0; n <= p.n; n++) {
            uint32_t need = version == 0 ? 8 : version == 1 ? 10 : 18;
            gcs_gc_alloc_amount a;
            gcs_status st = gcs_gc_decode_alloc_amount(n ? p.b : NULL, n, version, &a);
            if (n < need) {
                CHECK_EQ_INT(st, GCS_ERR_TRUNCATED);
                continue;
            }
            CHECK_EQ_INT(st, GCS_OK);
            CHECK_EQ_U64(a.amount, 100000);
            CHECK_EQ_U64(a.kind, 1);
            CHECK_EQ_INT(a.has_clr_instance_id, version >= 1);
            CHECK_EQ_U64(a.clr_instance_id, version >= 1 ? 7 : 0);
            CHECK_EQ_U64(a.amount64, version >= 2 ? 5000000000ull : 0);
        }
}

static void test_bulk_ranges(void)
{
    gcs_gc_record r;
    pb p = {{0}, 0};
    put(&p, 0, 4); /* index */
    put(&p, 2, 4); /* count */
    put(&p, 1, 2);
    put(&p, 0x1000, 8);
    put(&p, 0x2000, 8);
    put(&p, 64, 8);
    put(&p, 0x3000, 8);
    put(&p, 0x4000, 8);
    put(&p, 128, 8);
    CHECK_EQ_INT(dec(GCS_GCK_BULK_MOVED_OBJECT_RANGES, 0, &p, 8, &r), GCS_OK);
    CHECK_EQ_U64(r.u.bulk.values.count, 2);
    gcs_gc_moved_range m;
    CHECK(gcs_gc_moved_range_at(&r.u.bulk.values, 1, &m));
    CHECK_EQ_U64(m.old_base, 0x3000);
    CHECK_EQ_U64(m.new_base, 0x4000);
    CHECK_EQ_U64(m.length, 128);
    CHECK(!gcs_gc_moved_range_at(&r.u.bulk.values, 2, &m));
    /* Count larger than the payload holds: short, no allocation. */
    p.b[4] = 0xff;
    p.b[5] = 0xff;
    p.b[6] = 0xff;
    p.b[7] = 0x7f;
    CHECK_EQ_INT(dec(GCS_GCK_BULK_MOVED_OBJECT_RANGES, 0, &p, 8, &r), GCS_ERR_TRUNCATED);
    /* ... but the header and the two whole ranges present stay usable. */
    CHECK(r.u.bulk.values_truncated);
    CHECK_EQ_U64(r.u.bulk.declared_count, 0x7fffffffu);
    CHECK_EQ_U64(r.u.bulk.values.count, 2);
    CHECK(gcs_gc_moved_range_at(&r.u.bulk.values, 1, &m));
    CHECK_EQ_U64(m.new_base, 0x4000);
    CHECK(!gcs_gc_moved_range_at(&r.u.bulk.values, 2, &m));
    /* Half of the second range cut off: one whole range. */
    p.b[4] = 2;
    p.b[5] = p.b[6] = p.b[7] = 0;
    uint32_t full = p.n;
    p.n = full - 12;
    CHECK_EQ_INT(dec(GCS_GCK_BULK_MOVED_OBJECT_RANGES, 0, &p, 8, &r), GCS_ERR_TRUNCATED);
    CHECK(r.u.bulk.values_truncated);
    CHECK_EQ_U64(r.u.bulk.values.count, 1);
    /* A short header is not a truncated array. */
    p.n = 6;
    CHECK_EQ_INT(dec(GCS_GCK_BULK_MOVED_OBJECT_RANGES, 0, &p, 8, &r), GCS_ERR_TRUNCATED);
    CHECK(!r.u.bulk.values_truncated);
    p.n = full;
    CHECK_EQ_INT(dec(GCS_GCK_BULK_MOVED_OBJECT_RANGES, 0, &p, 8, &r), GCS_OK);
    CHECK(!r.u.bulk.values_truncated);

    /* Surviving ranges, 32-bit pointers. */
    p.n = 0;
    put(&p, 0, 4);
    put(&p, 1, 4);
    put(&p, 1, 2);
    put(&p, 0x9000, 4);
    put(&p, 40, 8);
    CHECK_EQ_INT(dec(GCS_GCK_BULK_SURVIVING_OBJECT_RANGES, 0, &p, 4, &r), GCS_OK);
    gcs_gc_surviving_range s;
    CHECK(gcs_gc_surviving_range_at(&r.u.bulk.values, 0, &s));
    CHECK_EQ_U64(s.base, 0x9000);
    CHECK_EQ_U64(s.length, 40);

    /* The chunk readers read what the accessors read, up to the end. */
    for (uint32_t ps = 4; ps <= 8; ps += 4) {
        p.n = 0;
        put(&p, 0, 4);
        put(&p, 5, 4);
        put(&p, 1, 2);
        for (uint64_t i = 0; i < 5; i++) {
            put(&p, 0x1000 * (i + 1), (int)ps);
            put(&p, 0x100000 + i, (int)ps);
            put(&p, 8 * (i + 1), 8);
        }
        CHECK_EQ_INT(dec(GCS_GCK_BULK_MOVED_OBJECT_RANGES, 0, &p, ps, &r), GCS_OK);
        gcs_gc_moved_range chunk[3];
        size_t got = gcs_gc_moved_ranges_read(&r.u.bulk.values, 3, chunk, 3);
        CHECK_EQ_U64(got, 2); /* elements 3 and 4: the array ends */
        for (size_t k = 0; k < got; k++) {
            CHECK(gcs_gc_moved_range_at(&r.u.bulk.values, 3 + (uint32_t)k, &m));
            CHECK_EQ_U64(chunk[k].old_base, m.old_base);
            CHECK_EQ_U64(chunk[k].new_base, m.new_base);
            CHECK_EQ_U64(chunk[k].length, m.length);
        }
        CHECK_EQ_U64(chunk[1].old_base, 0x5000);
        CHECK_EQ_U64(gcs_gc_moved_ranges_read(&r.u.bulk.values, 5, chunk, 3), 0);
        CHECK_EQ_U64(gcs_gc_moved_ranges_read(&r.u.bulk.values, 0, chunk, 3), 3);
        CHECK_EQ_U64(chunk[2].length, 24);
    }
    /* The last payload read as surviving ranges, both pointer sizes: one
     * at the array's end, none past it. */
    for (uint32_t ps = 4; ps <= 8; ps += 4) {
        gcs_gc_surviving_range two[2];
        CHECK_EQ_INT(dec(GCS_GCK_BULK_SURVIVING_OBJECT_RANGES, 0, &p, ps, &r), GCS_OK);
        const uint32_t count = r.u.bulk.values.count;
        CHECK(count >= 2);
        CHECK_EQ_U64(gcs_gc_surviving_ranges_read(&r.u.bulk.values, 0, two, 2), 2);
        CHECK(gcs_gc_surviving_range_at(&r.u.bulk.values, 1, &s));
        CHECK_EQ_U64(two[1].base, s.base);
        CHECK_EQ_U64(two[1].length, s.length);
        CHECK_EQ_U64(gcs_gc_surviving_ranges_read(&r.u.bulk.values, count - 1, two, 2), 1);
        CHECK(gcs_gc_surviving_range_at(&r.u.bulk.values, count - 1, &s));
        CHECK_EQ_U64(two[0].base, s.base);
        CHECK_EQ_U64(two[0].length, s.length);
        CHECK_EQ_U64(gcs_gc_surviving_ranges_read(&r.u.bulk.values, count, two, 2), 0);
    }

    /* GenerationRange */
    p.n = 0;
    put(&p, 3, 1);
    put(&p, 0xA000, 8);
    put(&p, 100, 8);
    put(&p, 200, 8);
    put(&p, 1, 2);
    CHECK_EQ_U64(p.n, 27);
    CHECK_EQ_INT(dec(GCS_GCK_GENERATION_RANGE, 0, &p, 8, &r), GCS_OK);
    CHECK_EQ_U64(r.u.generation_range.generation, 3);
    CHECK_EQ_U64(r.u.generation_range.range_start, 0xA000);
    CHECK_EQ_U64(r.u.generation_range.range_reserved_length, 200);

    /* BulkNode / BulkEdge */
    p.n = 0;
    put(&p, 0, 4);
    put(&p, 1, 4);
    put(&p, 1, 2);
    put(&p, 0xB000, 8);
    put(&p, 48, 8);
    put(&p, 0x77, 8);
    put(&p, 2, 8);
    CHECK_EQ_INT(dec(GCS_GCK_BULK_NODE, 0, &p, 8, &r), GCS_OK);
    gcs_gc_bulk_node node;
    CHECK(gcs_gc_bulk_node_at(&r.u.bulk.values, 0, &node));
    CHECK_EQ_U64(node.type_id, 0x77);
    CHECK_EQ_U64(node.edge_count, 2);
}

static void test_histories(void)
{
    gcs_gc_record r;
    pb p = {{0}, 0};
    /* GlobalHeapHistory V4 with 3 times */
    put(&p, 1000, 8);
    put(&p, 4, 4);
    put(&p, 2, 4);
    put(&p, 0, 4);
    put(&p, 5, 4);
    put(&p, 0x2, 4);
    put(&p, 1, 2);
    put(&p, 1, 4);
    put(&p, 33, 4);
    put(&p, 0x15, 4);
    put(&p, 0x10, 4);
    put(&p, 3, 4);
    put(&p, 10, 4);
    put(&p, 20, 4);
    put(&p, 30, 4);
    CHECK_EQ_U64(p.n, 62);
    CHECK_EQ_INT(dec(GCS_GCK_GLOBAL_HEAP_HISTORY, 4, &p, 8, &r), GCS_OK);
    CHECK_EQ_INT(r.u.global_heap_history.num_heaps, 4);
    CHECK_EQ_U64(r.u.global_heap_history.reason, 5);
    CHECK_EQ_INT(r.u.global_heap_history.pause_mode, 1);
    CHECK_EQ_U64(r.u.global_heap_history.memory_pressure, 33);
    CHECK_EQ_U64(r.u.global_heap_history.condemn_reasons0, 0x15);
    uint32_t t;
    CHECK(gcs_gc_global_time_at(&r, 2, &t));
    CHECK_EQ_U64(t, 30);
    CHECK(!gcs_gc_global_time_at(&r, 3, &t));
    /* V2 reads no condemned reasons; private V0 (28 bytes) no ClrInstanceID. */
    CHECK_EQ_INT(dec(GCS_GCK_GLOBAL_HEAP_HISTORY, 2, &p, 8, &r), GCS_OK);
    CHECK(!r.u.global_heap_history.has_condemn_reasons);
    p.n = 28;
    CHECK_EQ_INT(dec(GCS_GCK_GLOBAL_HEAP_HISTORY, 0, &p, 8, &r), GCS_OK);
    CHECK(!r.has_clr_instance_id);

    /* PerHeapHistory V3, P=4, 4 generations */
    p.n = 0;
    put(&p, 1, 2);
    for (int i = 0; i < 6; i++)
        put(&p, 100 + i, 4);
    put(&p, 50, 4);
    put(&p, 0x15, 4);
    put(&p, 1u << 6, 4);
    put(&p, 0x80000004, 4);
    put(&p, 0, 4);
    put(&p, 1, 4);
    put(&p, 9, 4);
    put(&p, 4, 4);
    for (uint32_t g = 0; g < 4; g++)
        for (uint32_t i = 0; i < 10; i++)
            put(&p, g * 100 + i, 4);
    CHECK_EQ_U64(p.n, 30 + 7 * 4 + 4 * 40);
    CHECK_EQ_INT(dec(GCS_GCK_PER_HEAP_HISTORY, 3, &p, 4, &r), GCS_OK);
    CHECK_EQ_U64(r.u.per_heap_history.free_list_rejected, 101);
    CHECK_EQ_U64(r.u.per_heap_history.condemn_reasons1, 1u << 6);
    CHECK_EQ_U64(r.u.per_heap_history.heap_index, 1);
    CHECK_EQ_U64(r.u.per_heap_history.extra_gen0_commit, 9);
    CHECK_EQ_U64(r.u.per_heap_history.gen_count, 4);
    gcs_gc_gen_data gd;
    CHECK(gcs_gc_per_heap_gen(&r, 3, &gd));
    CHECK_EQ_U64(gd.size_before, 300);
    CHECK_EQ_U64(gd.size_after, 303);
    CHECK_EQ_U64(gd.new_allocation, 309);
    CHECK_EQ_INT(gcs_gc_gen_obj_space_before(&gd, 3), 300 - 301 - 302);
    CHECK_EQ_INT(gcs_gc_gen_out(&gd, 3), 307 + 308);
    CHECK(!gcs_gc_per_heap_gen(&r, 4, &gd));
    /* One generation short of the count: short payload. */
    p.n -= 4;
    CHECK_EQ_INT(dec(GCS_GCK_PER_HEAP_HISTORY, 3, &p, 4, &r), GCS_ERR_TRUNCATED);

    /* Legacy private PerHeapHistory V2 ("2.1", 50P + 25 bytes, P=4) */
    p.n = 0;
    for (uint32_t g = 0; g < 5; g++)
        for (uint32_t i = 0; i < 10; i++)
            put(&p, g * 10 + i, 4);
    put(&p, 0x11, 4); /* condemn reasons gen */
    put(&p, 0x22, 4); /* condition */
    put(&p, 3, 4);    /* mem pressure */
    put(&p, 0, 4);
    put(&p, 0, 4);
    put(&p, 2, 4);    /* heap index */
    put(&p, 1, 1);
    CHECK_EQ_INT(dec(GCS_GCK_PER_HEAP_HISTORY, 2, &p, 4, &r), GCS_OK);
    CHECK_EQ_U64(r.u.per_heap_history.layout, 2);
    CHECK_EQ_U64(r.u.per_heap_history.condemn_reasons1, 0x22);
    CHECK_EQ_U64(r.u.per_heap_history.heap_index, 2);
    CHECK(gcs_gc_per_heap_gen(&r, 1, &gd));
    CHECK_EQ_INT(gcs_gc_gen_out(&gd, 2), 17);
    CHECK_EQ_INT(gcs_gc_gen_surv_rate(&gd, 2), 19);
    p.n -= 1;
    CHECK_EQ_INT(dec(GCS_GCK_PER_HEAP_HISTORY, 2, &p, 4, &r), GCS_ERR_TRUNCATED);

    /* The same with P=8: generation values past 32 bits read whole. */
    p.n = 0;
    for (uint32_t g = 0; g < 5; g++)
        for (uint32_t i = 0; i < 10; i++)
            put(&p, ((uint64_t)(g * 10 + i) << 33) | (g * 10 + i), 8);
    put(&p, 0x11, 4);
    put(&p, 0x22, 4);
    put(&p, 3, 4);
    put(&p, 0, 4);
    put(&p, 0, 4);
    put(&p, 2, 4);
    put(&p, 1, 1);
    CHECK_EQ_INT(dec(GCS_GCK_PER_HEAP_HISTORY, 2, &p, 8, &r), GCS_OK);
    CHECK(gcs_gc_per_heap_gen(&r, 4, &gd));
    CHECK_EQ_U64(gd.size_before, (40ull << 33) | 40);
    CHECK_EQ_U64(gd.size_after, (43ull << 33) | 43);
    CHECK_EQ_U64(gd.new_allocation, (48ull << 33) | 48);
    CHECK_EQ_U64(gd.surv_rate_legacy, (49ull << 33) | 49);
    CHECK(!gcs_gc_per_heap_gen(&r, 5, &gd));
}

static void test_native_struct_arrays(void)
{
    gcs_gc_record r;
    pb p = {{0}, 0};
    /* LOHCompact, P=8: 32-byte elements with 4 bytes of padding */
    put(&p, 1, 2);
    put(&p, 1, 2);
    put(&p, 11, 4);
    put(&p, 12, 4);
    put(&p, 13, 4);
    put(&p, 0xdeadbeef, 4);
    put(&p, 500, 8);
    put(&p, 7, 8);
    CHECK_EQ_INT(dec(GCS_GCK_LOH_COMPACT, 0, &p, 8, &r), GCS_OK);
    gcs_gc_loh_compact lc;
    CHECK(gcs_gc_loh_compact_at(&r.u.loh_compact.values, 0, &lc));
    CHECK_EQ_U64(lc.time_relocate, 13);
    CHECK_EQ_U64(lc.total_refs, 500);
    CHECK_EQ_U64(lc.zero_refs, 7);
    /* FitBucketInfo, P=8: Index u16 in a 4-byte slot */
    p.n = 0;
    put(&p, 1, 2);
    put(&p, 1, 2);
    put(&p, 4096, 8);
    put(&p, 1, 2);
    put(&p, 0xffff0005, 4);
    put(&p, 9, 4);
    put(&p, 4096, 8);
    CHECK_EQ_INT(dec(GCS_GCK_FIT_BUCKET_INFO, 0, &p, 8, &r), GCS_OK);
    gcs_gc_fit_bucket fb;
    CHECK(gcs_gc_fit_bucket_at(&r.u.fit_bucket_info.values, 0, &fb));
    CHECK_EQ_U64(fb.index, 5);
    CHECK_EQ_U64(fb.count, 9);
    CHECK_EQ_U64(fb.size, 4096);
}

static void test_private_events(void)
{
    gcs_gc_record r;
    pb p = {{0}, 0};
    put(&p, 5, 2);
    CHECK_EQ_INT(dec(GCS_GCK_BGC_1ST_NONCON_END, 0, &p, 8, &r), GCS_OK);
    CHECK_EQ_U64(r.clr_instance_id, 5);
    p.n = 0;
    put(&p, 10, 8);
    put(&p, 20, 8);
    put(&p, 1, 4);
    put(&p, 0, 2);
    CHECK_EQ_INT(dec(GCS_GCK_BGC_REVISIT, 0, &p, 8, &r), GCS_OK);
    CHECK_EQ_U64(r.u.bgc_revisit.objects, 20);
    CHECK_EQ_U64(r.u.bgc_revisit.is_large, 1);
    p.n = 0;
    put(&p, 1, 8);
    put(&p, 2, 8);
    put(&p, 3, 8);
    put(&p, 0, 4);
    put(&p, 0, 2);
    CHECK_EQ_INT(dec(GCS_GCK_BGC_OVERFLOW, 0, &p, 8, &r), GCS_OK);
    CHECK_EQ_INT(dec(GCS_GCK_BGC_OVERFLOW, 1, &p, 8, &r), GCS_ERR_TRUNCATED);
    put(&p, 2, 4);
    CHECK_EQ_INT(dec(GCS_GCK_BGC_OVERFLOW, 1, &p, 8, &r), GCS_OK);
    CHECK_EQ_U64(r.u.bgc_overflow.gen_number, 2);
    p.n = 0;
    put(&p, 11, 4);
    put(&p, 0, 2);
    CHECK_EQ_INT(dec(GCS_GCK_BGC_ALLOC_WAIT_END, 0, &p, 8, &r), GCS_OK);
    CHECK_EQ_U64(r.u.bgc_alloc_wait.reason, 11);
    /* GCJoin: private V0 12 bytes; public V2 18 bytes with the GC id */
    p.n = 0;
    put(&p, 1, 4);
    put(&p, 1, 4);
    put(&p, 3, 4);
    CHECK_EQ_INT(dec(GCS_GCK_JOIN, 0, &p, 8, &r), GCS_OK);
    CHECK_EQ_INT(r.u.join.join_id, -256);
    put(&p, 0, 2);
    put(&p, 42, 4);
    CHECK_EQ_INT(dec(GCS_GCK_JOIN, 2, &p, 8, &r), GCS_OK);
    CHECK_EQ_INT(r.u.join.join_id, 42);
    CHECK_EQ_U64(r.u.join.join_type, 3);
    /* Private GCSettings */
    p.n = 0;
    put(&p, 256 << 20, 8);
    put(&p, 128 << 20, 8);
    put(&p, 1, 4);
    CHECK_EQ_INT(dec(GCS_GCK_SETTINGS, 0, &p, 8, &r), GCS_OK);
    CHECK(r.u.settings.server_gc);
    /* RuntimeInformation */
    p.n = 0;
    put(&p, 0, 2);
    put(&p, 2, 2);
    for (int i = 0; i < 4; i++)
        put(&p, 0, 2);
    put(&p, 10, 2);
    put(&p, 0, 2);
    put(&p, 1226, 2);
    put(&p, 42308, 2);
    put(&p, 0x1001, 4);
    put(&p, 1, 1);
    put_utf16(&p, "app");
    CHECK_EQ_INT(dec(GCS_GCK_RUNTIME_INFORMATION, 0, &p, 8, &r), GCS_OK);
    CHECK_EQ_U64(r.u.runtime_information.vm_build, 1226);
    CHECK_EQ_U64(r.u.runtime_information.startup_flags, 0x1001);
    CHECK_EQ_U64(r.u.runtime_information.command_line.units, 3);
}

/* Hostile payloads: every kind, versions 0..6, lengths 0..96 of pseudo-
 * random bytes. Decoding must answer OK or TRUNCATED, never read outside
 * the payload (ASan watches: each payload is its own allocation). */
static void test_random_payloads(void)
{
    uint32_t seed = 12345;
    uint64_t ok = 0, truncated = 0;
    for (int k = GCS_GCK_NONE + 1; k < GCS_GCK_COUNT; k++)
        for (uint32_t v = 0; v <= 6; v++)
            for (uint32_t len = 0; len <= 96; len += 3)
                for (uint32_t ps = 4; ps <= 8; ps += 4) {
                    uint8_t *buf = malloc(len ? len : 1);
                    for (uint32_t i = 0; i < len; i++) {
                        seed = seed * 1103515245u + 12345u;
                        buf[i] = (uint8_t)(seed >> 16);
                    }
                    gcs_gc_record r;
                    gcs_status st = gcs_gc_decode_payload((gcs_gc_kind)k, v, buf, len, ps, &r, NULL);
                    CHECK(st == GCS_OK || st == GCS_ERR_TRUNCATED);
                    if (st == GCS_OK) {
                        ok++;
                        gcs_gc_gen_data gd;
                        gcs_gc_moved_range m;
                        for (uint32_t i = 0; i < 3; i++) {
                            (void)gcs_gc_per_heap_gen(&r, i, &gd);
                            if (k == GCS_GCK_BULK_MOVED_OBJECT_RANGES)
                                (void)gcs_gc_moved_range_at(&r.u.bulk.values, i, &m);
                        }
                    } else {
                        truncated++;
                    }
                    free(buf);
                }
    CHECK(ok > 1000);
    CHECK(truncated > 1000);
}

/* One Type/BulkType entry: TypeID, ModuleID, TypeNameID, Flags,
 * CorElementType, Name, TypeParameterCount, TypeParameters. */
static void put_bulk_type_entry(pb *p, uint64_t id, const char *name, uint32_t params)
{
    put(p, id, 8);
    put(p, 0x5000, 8);
    put(p, 7, 4);
    put(p, 0x10, 4);
    put(p, 0x12, 1);
    put_utf16(p, name);
    put(p, params, 4);
    for (uint32_t i = 0; i < params; i++)
        put(p, 0x100 + i, 8);
}

static void test_bulk_type(void)
{
    gcs_gc_record r;
    pb p = {{0}, 0};
    put(&p, 2, 4); /* count */
    put(&p, 9, 2); /* ClrInstanceID */
    put_bulk_type_entry(&p, 0xAA, "System.String", 0);
    put_bulk_type_entry(&p, 0xBB, "List`1", 2);
    /* 6 + (25 + 28 + 4) + (25 + 14 + 4 + 16): fixed part 25 bytes */
    CHECK_EQ_U64(p.n, 122);
    CHECK_EQ_INT(dec(GCS_GCK_BULK_TYPE, 0, &p, 8, &r), GCS_OK);
    CHECK_EQ_U64(r.clr_instance_id, 9);
    CHECK_EQ_U64(r.u.bulk_type.declared_count, 2);
    CHECK_EQ_U64(r.u.bulk_type.count, 2);
    CHECK_EQ_U64(r.u.bulk_type.values_size, 116);
    CHECK(!r.u.bulk_type.values_truncated);
    gcs_gc_bulk_type_iter it;
    gcs_gc_bulk_type_entry e;
    char name[32];
    gcs_gc_bulk_type_begin(&r, &it);
    CHECK(gcs_gc_bulk_type_next(&it, &e));
    CHECK_EQ_U64(e.type_id, 0xAA);
    CHECK_EQ_U64(e.module_id, 0x5000);
    CHECK_EQ_U64(e.cor_element_type, 0x12);
    CHECK_EQ_STR(gcs_gc_utf16_to_utf8(e.name, name, sizeof name), "System.String");
    CHECK(gcs_gc_bulk_type_next(&it, &e));
    CHECK_EQ_U64(e.type_id, 0xBB);
    CHECK_EQ_U64(e.type_parameter_count, 2);
    CHECK_EQ_STR(gcs_gc_utf16_to_utf8(e.name, name, sizeof name), "List`1");
    CHECK(!gcs_gc_bulk_type_next(&it, &e));
    /* A later version decodes as a prefix (same layout). */
    CHECK_EQ_INT(dec(GCS_GCK_BULK_TYPE, 2, &p, 8, &r), GCS_OK);
    CHECK_EQ_U64(r.u.bulk_type.count, 2);
    /* The second entry's parameters cut off: the first stays usable. */
    p.n -= 4;
    CHECK_EQ_INT(dec(GCS_GCK_BULK_TYPE, 0, &p, 8, &r), GCS_ERR_TRUNCATED);
    CHECK(r.u.bulk_type.values_truncated);
    CHECK_EQ_U64(r.u.bulk_type.count, 1);
    gcs_gc_bulk_type_begin(&r, &it);
    CHECK(gcs_gc_bulk_type_next(&it, &e));
    CHECK_EQ_U64(e.type_id, 0xAA);
    CHECK(!gcs_gc_bulk_type_next(&it, &e));
    /* A parameter count beyond the payload: short, no huge skip. */
    p.n = 0;
    put(&p, 1, 4);
    put(&p, 0, 2);
    put_bulk_type_entry(&p, 0xCC, "T", 0);
    p.b[p.n - 1] = 0xff;
    CHECK_EQ_INT(dec(GCS_GCK_BULK_TYPE, 0, &p, 8, &r), GCS_ERR_TRUNCATED);
    CHECK_EQ_U64(r.u.bulk_type.count, 0);
    /* Short header. */
    p.n = 5;
    CHECK_EQ_INT(dec(GCS_GCK_BULK_TYPE, 0, &p, 8, &r), GCS_ERR_TRUNCATED);
    CHECK(!r.u.bulk_type.values_truncated);
}

static void test_allocation_sampled(void)
{
    gcs_gc_record r;
    for (uint32_t ps = 4; ps <= 8; ps += 4) {
        pb p = {{0}, 0};
        put(&p, 1, 4); /* large */
        put(&p, 3, 2);
        put(&p, 0x5678, ps);
        put_utf16(&p, "Big");
        put(&p, 0x8000, ps);
        put(&p, 90000, 8);
        put(&p, 123, 8);
        CHECK_EQ_U64(p.n, 4 + 2 + ps + 8 + ps + 16);
        CHECK_EQ_INT(dec(GCS_GCK_ALLOCATION_SAMPLED, 0, &p, ps, &r), GCS_OK);
        CHECK_EQ_U64(r.clr_instance_id, 3);
        CHECK_EQ_U64(r.u.allocation_sampled.allocation_kind, 1);
        CHECK_EQ_U64(r.u.allocation_sampled.type_id, 0x5678);
        char name[16];
        CHECK_EQ_STR(gcs_gc_utf16_to_utf8(r.u.allocation_sampled.type_name, name, sizeof name),
                     "Big");
        CHECK_EQ_U64(r.u.allocation_sampled.address, 0x8000);
        CHECK_EQ_U64(r.u.allocation_sampled.object_size, 90000);
        CHECK_EQ_U64(r.u.allocation_sampled.sampled_byte_offset, 123);
        /* Longer payload: prefix; without SampledByteOffset: short. */
        put(&p, 0xEE, 4);
        CHECK_EQ_INT(dec(GCS_GCK_ALLOCATION_SAMPLED, 1, &p, ps, &r), GCS_OK);
        CHECK_EQ_U64(r.u.allocation_sampled.sampled_byte_offset, 123);
        p.n -= 4 + 8;
        CHECK_EQ_INT(dec(GCS_GCK_ALLOCATION_SAMPLED, 0, &p, ps, &r), GCS_ERR_TRUNCATED);
    }
}

/* Per-heap generation values are untrusted 64-bit numbers: what TraceEvent
 * derives from them saturates instead of overflowing (found by fuzzing:
 * signed overflow in ObjSizeAfter, an out-of-range double -> int64 in the
 * survival rate). Sane values are unchanged. */
static void test_gen_values_saturate(void)
{
    gcs_gc_gen_data g;
    memset(&g, 0, sizeof g);
    g.size_before = 1000000;
    g.free_list_space_before = 10000;
    g.free_obj_space_before = 5000;
    g.size_after = 500000;
    g.free_list_space_after = 20000;
    g.free_obj_space_after = 10000;
    g.pinned_surv = 1000;
    g.npinned_surv = 99000;
    CHECK_EQ_INT(gcs_gc_gen_obj_size_after(&g, 3), 470000);
    CHECK_EQ_INT(gcs_gc_gen_surv_rate(&g, 3), 10); /* 100000 * 100 / 985000 */
    /* SizeAfter 2^63-1, fragmentation -1 (free list 2^64-1): past INT64_MAX */
    g.size_after = INT64_MAX;
    g.free_list_space_after = UINT64_MAX;
    g.free_obj_space_after = 0;
    CHECK(gcs_gc_gen_obj_size_after(&g, 3) == INT64_MAX);
    /* SizeAfter -2^63 (as TraceEvent's long), fragmentation 1: below INT64_MIN */
    g.size_after = (uint64_t)1 << 63;
    g.free_list_space_after = 1;
    CHECK(gcs_gc_gen_obj_size_after(&g, 3) == INT64_MIN);
    /* Out 2^62 over ObjSpaceBefore 1: a rate of 4.6e20 %, beyond int64 */
    g.size_before = 1;
    g.free_list_space_before = g.free_obj_space_before = 0;
    g.pinned_surv = (uint64_t)1 << 62;
    g.npinned_surv = 0;
    CHECK(gcs_gc_gen_surv_rate(&g, 3) == INT64_MAX);
    g.size_before = UINT64_MAX; /* ObjSpaceBefore -1: a rate below INT64_MIN */
    CHECK(gcs_gc_gen_surv_rate(&g, 3) == INT64_MIN);
}

int main(void)
{
    RUN(test_random_payloads);
    RUN(test_classify);
    RUN(test_gc_start_versions);
    RUN(test_end_suspend_small);
    RUN(test_heap_stats);
    RUN(test_allocation_tick);
    RUN(test_alloc_amount_prefixes);
    RUN(test_bulk_ranges);
    RUN(test_bulk_type);
    RUN(test_allocation_sampled);
    RUN(test_histories);
    RUN(test_gen_values_saturate);
    RUN(test_native_struct_arrays);
    RUN(test_private_events);
    return check_report("test_gc_decode");
}
