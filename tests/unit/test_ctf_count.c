/*
 * Counting in our CTF container (ctf_native.c, sink->tally): an event whose
 * class would be rebuilt in exactly its slot's layout (or at a fixed size
 * in a plainly counted slot) is counted in the container, its payload
 * skipped; every other event is handed over as before. Checked two ways:
 *
 * - at the container, with a sink that plays the reader's part (it fills
 *   the slots at a row's first event, as gcs_reader's tally_take does) on
 *   a trace written here: the events counted plus those handed over are
 *   the events a sink without tally gets, per row; the class whose layout
 *   differs from its slot's, the one with a sequence, and the event with a
 *   non-ASCII string are handed over, and so are the byte arrays (the
 *   runtime's "__data__") whose strings do not end as their slot says
 *   (the others counted: gcs_tally_takes_strings); short rows are the fixed class's
 *   rows below the slot's min_size; the earliest and latest time, lost
 *   events, steps (sequence points) and the error (status, offset,
 *   reason) of a cut and of a corrupt stream are the same, and so are
 *   the process names told; each trace also with lttng-ust's event
 *   header and flat context (the usual events then read by
 *   read_event_quick), and counted with the shortcuts off alike;
 * - through the public reader, on every trace of tests/data/ctf: a scan
 *   (the counting path) counts per type, undecodable, lost, first and last
 *   time as the delivering loop does.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "format/container.h"
#include "format/ctf/ctf_internal.h"
#include "gcscope.h"
#include "io/source.h"
#include "unit/byte_builder.h"
#include "unit/ctf_text.h"
#include "unit/check.h"

/* The event classes of both traces. */
#define TRACE_CLASSES                                                                       \
    "event { name = \"t:fits\"; id = 0; fields := struct { uint32_t _a; string _s; uint16_t _b; }; };\n" \
    "event { name = \"t:other\"; id = 1; fields := struct { uint32_t _a; string _s; }; };\n" \
    "event { name = \"t:fixed\"; id = 2; fields := struct { uint32_t _a; uint32_t _b; }; };\n" \
    "event { name = \"t:seq\"; id = 3; fields := struct { uint32_t _n; uint8_t _x[_n]; }; };\n" \
    "event { name = \"t:three\"; id = 4; fields := struct { uint32_t _a; string _s; string _t;\n" \
    "  string _u; }; };\n"                                                                  \
    "event { name = \"t:blob\"; id = 5; fields := struct { uint16_t ____data___length;\n"    \
    "  uint8_t ___data__[____data___length]; }; };\n"

/* A plain event header (id, 64-bit time), no context. */
#define TRACE_TEXT                                                                          \
    CTF_TEXT_PREAMBLE                                                                       \
    "typealias integer { size = 16; align = 8; signed = false; } := uint16_t;\n"           \
    "stream { id = 0; packet.context := struct packet_context;\n"                           \
    "  event.header := struct { uint32_t id; uint64_clock_monotonic_t timestamp; }; };\n"   \
    TRACE_CLASSES

/* lttng-ust's: the large event header (its extended form for some
 * events) and the flat context of vpid, vtid and procname. */
#define TRACE_TEXT_LTTNG                                                                    \
    CTF_TEXT_PREAMBLE                                                                       \
    "typealias integer { size = 16; align = 8; signed = false; } := uint16_t;\n"           \
    "typealias integer { size = 32; align = 8; signed = false;\n"                          \
    "  map = clock.monotonic.value; } := uint32_clock_monotonic_t;\n"                      \
    "struct event_header_large {\n"                                                         \
    "  enum : uint16_t { compact = 0 ... 65534, extended = 65535 } id;\n"                   \
    "  variant <id> { struct { uint32_clock_monotonic_t timestamp; } compact;\n"            \
    "    struct { uint32_t id; uint64_clock_monotonic_t timestamp; } extended; } v;\n"      \
    "} align(8);\n"                                                                         \
    "stream { id = 0; event.header := struct event_header_large;\n"                         \
    "  packet.context := struct packet_context;\n"                                          \
    "  event.context := struct {\n"                                                         \
    "    integer { size = 32; align = 8; signed = 1; encoding = none; base = 10; } _vpid;\n" \
    "    integer { size = 32; align = 8; signed = 1; encoding = none; base = 10; } _vtid;\n" \
    "    integer { size = 8; align = 8; signed = 1; encoding = UTF8; base = 10; } _procname[17];\n" \
    "  }; };\n"                                                                             \
    TRACE_CLASSES

#define HEAD_BYTES CTF_TEXT_HEAD_BYTES
#define PACKET_BYTES 2048u
#define ROWS 8

/* The slots the test's "reader" fills, by class: layout [4, string, 4
 * bytes... ] as each test wants. */
static const gcs_tally_layout fits_layout = {1, {2}, {4, 2}};   /* t:fits rebuilt exactly so */
static const gcs_tally_layout other_layout = {1, {2}, {4, 2}};  /* t:other lacks the last 2 */
static const gcs_tally_layout seq_layout = {0, {0}, {4}};       /* t:seq: a sequence, never proven */
static const gcs_tally_layout three_layout = {3, {2, 2, 2}, {4, 0, 0, 0}}; /* t:three so */

typedef struct run {
    gcs_sink sink;
    gcs_arena arena;
    bool counting;
    gcs_tally tally;
    gcs_tally_slot slots[128];
    char name[ROWS][16];
    uint64_t delivered[ROWS];
    int64_t lo, hi;
    uint64_t events, lost;
    size_t steps;
    uint64_t names, names_hash; /* process names heard, and their pids and bytes hashed */
    gcs_status status;
    gcs_error err;
} run;

static gcs_status on_trace(void *ctx, const gcs_trace_info *info, gcs_error *err)
{
    (void)ctx, (void)info, (void)err;
    return GCS_OK;
}

static gcs_status on_meta(void *ctx, const gcs_meta_def *def, gcs_error *err)
{
    run *r = ctx;
    (void)err;
    if (def->metadata_id < ROWS)
        snprintf(r->name[def->metadata_id], sizeof r->name[0], "%s", def->event_name);
    return GCS_OK;
}

static void seen(run *r, int64_t t)
{
    if (r->events++ == 0 || t < r->lo)
        r->lo = t;
    if (r->events == 1 || t > r->hi)
        r->hi = t;
}

/* Fills the slot of a row at its first event, as the reader would. */
static void take(run *r, uint32_t id)
{
    gcs_tally_slot *s = &r->slots[id];
    const char *n = r->name[id];
    if (strstr(n, "fits"))
        s->layout = &fits_layout;
    else if (strstr(n, "other"))
        s->layout = &other_layout;
    else if (strstr(n, "seq"))
        s->layout = &seq_layout;
    else if (strstr(n, "three"))
        s->layout = &three_layout;
    else if (strstr(n, "fixed")) {
        s->counted = GCS_TALLY_PLAIN;
        s->min_size = 12; /* the class's 8 bytes are short of it */
    } else if (strstr(n, "blob")) { /* 2 bytes, two UTF-16 strings, 2 bytes */
        s->counted = GCS_TALLY_STRINGS;
        s->min_size = 12; /* (no blob row is short of it) */
        s->zero_unit = 2;
        s->zero_before = 2;
        s->zero_after = 2;
        s->zero_strings = 2;
    }
}

static gcs_status on_event(void *ctx, const gcs_raw_event *ev, gcs_error *err)
{
    run *r = ctx;
    (void)err;
    CHECK(ev->metadata_id < ROWS);
    if (ev->metadata_id >= ROWS)
        return GCS_OK;
    r->delivered[ev->metadata_id]++;
    seen(r, ev->timestamp);
    if (r->counting && r->delivered[ev->metadata_id] == 1)
        take(r, ev->metadata_id);
    return GCS_OK;
}

static gcs_status on_seq(void *ctx, int64_t t, const gcs_seq_entry *e, size_t n, gcs_error *err)
{
    (void)t, (void)e, (void)n, (void)err;
    ((run *)ctx)->steps++;
    return GCS_OK;
}

static void on_lost(void *ctx, uint64_t n) { ((run *)ctx)->lost += n; }

static void on_name(void *ctx, uint32_t pid, const char *name)
{
    run *r = ctx;
    r->names++;
    uint64_t h = r->names_hash ^ pid;
    for (const char *c = name;; c++) {
        h = (h ^ (uint8_t)*c) * 1099511628211u;
        if (!*c)
            break;
    }
    r->names_hash = h;
}

/* Reads the trace folder dir through our container, counting or not. */
static void read_dir(const char *dir, bool counting, run *r)
{
    memset(r, 0, sizeof *r);
    r->counting = counting;
    r->sink = (gcs_sink){.ctx = r, .meta_arena = &r->arena, .trace = on_trace,
                         .metadata = on_meta, .event = on_event, .sequence_point = on_seq,
                         .events_lost = on_lost, .process_name = on_name};
    if (counting) {
        r->tally.slots = r->slots;
        r->tally.n_slots = 128;
        r->sink.tally = &r->tally;
    }
    gcs_error_clear(&r->err);
    gcs_source *src = gcs_source_open_file(dir, &r->err);
    CHECK(src != NULL);
    if (!src)
        return;
    gcs_stream s;
    gcs_stream_init(&s, src);
    gcs_container *c = NULL;
    r->status = gcs_container_open(&s, &r->sink, &c, &r->err);
    while (r->status == GCS_OK)
        r->status = c->ops->step(c, &r->err);
    if (c)
        c->ops->destroy(c);
    gcs_stream_free(&s);
    gcs_source_free(src);
    gcs_arena_reset(&r->arena);
    if (r->tally.rows) { /* what the container counted, folded */
        if (r->events == 0 || r->tally.first_timestamp < r->lo)
            r->lo = r->tally.first_timestamp;
        if (r->events == 0 || r->tally.last_timestamp > r->hi)
            r->hi = r->tally.last_timestamp;
        r->events += r->tally.rows;
    }
}

/* The trace written has lttng-ust's header and context (TRACE_TEXT_LTTNG). */
static bool lttng_shape;

static void event(bb *b, uint32_t id, uint64_t t)
{
    if (!lttng_shape) {
        bb_u32(b, id);
        bb_u64(b, t);
        return;
    }
    if (t % 5 == 0) { /* the extended header */
        bb_u16(b, 65535);
        bb_u32(b, id);
        bb_u64(b, t);
    } else {
        bb_u16(b, (uint16_t)id);
        bb_u32(b, (uint32_t)t);
    }
    /* two processes; a negative vtid now and then */
    char procname[17] = {0};
    snprintf(procname, sizeof procname, "%s", t % 3 == 0 ? "worker" : "app");
    bb_u32(b, 100 + (uint32_t)(t % 3 == 0));
    bb_u32(b, t % 4 == 0 ? (uint32_t)-7 : 300 + id);
    bb_bytes(b, procname, sizeof procname);
}

/* The events of one packet (n bytes into b), numbered from k. */
static void packet_events(bb *b, unsigned k)
{
    uint64_t t = 1000 + 10 * k;
    event(b, 0, t++), bb_u32(b, k), bb_bytes(b, "hello", 6), bb_u16(b, 7);
    event(b, 1, t++), bb_u32(b, k), bb_bytes(b, "x", 2);
    event(b, 2, t++), bb_u32(b, 1), bb_u32(b, 2);
    event(b, 3, t++), bb_u32(b, 3), bb_bytes(b, "abc", 3);
    event(b, 0, t++), bb_u32(b, k), bb_bytes(b, "caf\xc3\xa9", 6), bb_u16(b, 7); /* non-ASCII */
    event(b, 0, t++), bb_u32(b, k), bb_bytes(b, "a longer string of ASCII text", 30), bb_u16(b, 9);
    event(b, 2, t++), bb_u32(b, 4), bb_u32(b, 5);
    /* Strings the skip reads 32 bytes at a time: the NUL in the second
     * block, right after the first block, and a non-ASCII byte in the
     * second block (handed over, as the other non-ASCII one). */
    static const char long_ascii[] = "forty-seven bytes of ASCII, past one 32 block.";
    static const char block[] = "exactly thirty-two bytes long...";
    static const char late_high[] = "ASCII for the first block of 32, then one \xc3\xa9 past it.";
    event(b, 0, t++), bb_u32(b, k), bb_bytes(b, long_ascii, sizeof long_ascii), bb_u16(b, 1);
    event(b, 0, t++), bb_u32(b, k), bb_bytes(b, block, sizeof block), bb_u16(b, 2);
    event(b, 0, t++), bb_u32(b, k), bb_bytes(b, late_high, sizeof late_high), bb_u16(b, 3);
    /* Three strings skipped as one run: their NULs in one 32-byte block,
     * across blocks, empty ones, and a non-ASCII byte in the first, the
     * middle (after a NUL of its block: the block with no NUL sought) or
     * the last (handed over: 3 of 9). */
    static const struct { const char *s, *t, *u; } three[] = {
        {"Info", "Microsoft-System-Net-Http", "{\"a\":1}"},
        {"", "", ""},
        {"x", long_ascii, block},
        {late_high, "y", "z"},
        {"Info", "Source", "a payload past one block, then \xc3\xa9"},
        {block, block, long_ascii},
        {"Info", "caf\xc3\xa9, then ASCII past the block of the NUL before", "z"},
        {"a", "b", "c"},
        {"", "the last string's NUL two blocks on, past this block", ""},
    };
    /* Byte arrays in the manifest's layout: the strings end (counted
     * once the slot is filled) or the second does not (handed over). */
    static const uint8_t blob_fits[12] = {1, 0, 'a', 0, 0, 0, 'b', 0, 0, 0, 7, 0};
    static const uint8_t blob_open[12] = {1, 0, 'a', 0, 0, 0, 'b', 0, 'c', 0, 7, 0};
    event(b, 5, t++), bb_u16(b, 12), bb_bytes(b, blob_fits, sizeof blob_fits);
    event(b, 5, t++), bb_u16(b, 12), bb_bytes(b, blob_open, sizeof blob_open);
    for (size_t i = 0; i < sizeof three / sizeof three[0]; i++) {
        event(b, 4, t++), bb_u32(b, k);
        bb_bytes(b, three[i].s, strlen(three[i].s) + 1);
        bb_bytes(b, three[i].t, strlen(three[i].t) + 1);
        bb_bytes(b, three[i].u, strlen(three[i].u) + 1);
    }
}

/* A trace of three packets in dir; shape: 0 whole, 1 cut inside the
 * third packet, 2 the second packet's last string without its NUL (its
 * content ends inside the string). */
static void write_trace(const char *dir, int shape)
{
    const char *text = lttng_shape ? TRACE_TEXT_LTTNG : TRACE_TEXT;
    ctf_folder_write(dir, "metadata", text, strlen(text));
    char path[4200];
    snprintf(path, sizeof path, "%s/channel0_0", dir);
    FILE *f = fopen(path, "wb");
    CHECK(f != NULL);
    if (!f)
        return;
    for (unsigned p = 0; p < 3; p++) {
        bb *b = calloc(1, sizeof *b);
        CHECK(b != NULL);
        if (!b)
            break;
        packet_events(b, p);
        if (shape == 2 && p == 1) {
            event(b, 0, 5000);
            bb_u32(b, 1);
            bb_bytes(b, "no end", 6);
        }
        ctf_text_put_packet(f, b, PACKET_BYTES, p == 2 ? 5 : 0, 1);
        free(b);
    }
    fclose(f);
    if (shape == 1)
        CHECK(truncate(path, 2 * PACKET_BYTES + 100) == 0);
}

/* Two reads of a trace ended alike and found the same events and times. */
static void check_same_end(const run *a, const run *b)
{
    CHECK_EQ_INT(a->status, b->status);
    CHECK_EQ_U64(a->err.offset, b->err.offset);
    CHECK(strcmp(a->err.reason, b->err.reason) == 0);
    CHECK_EQ_U64(a->events, b->events);
    CHECK_EQ_U64((uint64_t)a->lo, (uint64_t)b->lo);
    CHECK_EQ_U64((uint64_t)a->hi, (uint64_t)b->hi);
}

/* Counting without the shortcuts (gcs_ctf_native_shortcuts: no plan in
 * parts, no quick read of LTTng's events, no byte array counted) ends as
 * counting with them: the same events, times, names, steps and end. */
static void check_counted_alike(const char *dir, const run *counted)
{
    run *off = calloc(1, sizeof *off);
    CHECK(off != NULL);
    if (!off)
        return;
    gcs_ctf_native_shortcuts(false);
    read_dir(dir, true, off);
    gcs_ctf_native_shortcuts(true);
    check_same_end(off, counted);
    CHECK_EQ_U64(off->steps, counted->steps);
    CHECK_EQ_U64(off->names, counted->names);
    CHECK_EQ_U64(off->names_hash, counted->names_hash);
    free(off);
}

static void test_container_counts_as_it_delivers(void)
{
    for (int shape = 0; shape < 6; shape++) {
        char dir[4096];
        CHECK(ctf_folder_make(dir, sizeof dir, "ctf-count"));
        lttng_shape = shape >= 3; /* each shape with LTTng's header and context too */
        write_trace(dir, shape % 3);
        run *all = calloc(1, sizeof *all), *counted = calloc(1, sizeof *counted);
        CHECK(all && counted);
        if (!all || !counted)
            return;
        read_dir(dir, false, all);
        read_dir(dir, true, counted);
        check_counted_alike(dir, counted);
        printf("  shape %d%s: %llu events, %llu names, status %d (%s)\n", shape % 3,
               lttng_shape ? " (LTTng)" : "", (unsigned long long)all->events,
               (unsigned long long)all->names, all->status, all->err.reason);
        CHECK_EQ_U64(counted->names, all->names);
        CHECK_EQ_U64(counted->names_hash, all->names_hash);
        if (lttng_shape)
            CHECK_EQ_U64(all->names, 2); /* the two processes, told once each */
        check_same_end(counted, all);
        CHECK_EQ_U64(counted->lost, all->lost);
        CHECK_EQ_U64(counted->steps, all->steps);
        uint64_t fixed_rows = 0;
        for (uint32_t id = 1; id < ROWS; id++) {
            uint64_t in_tally = counted->slots[id].count;
            CHECK_EQ_U64(counted->delivered[id] + in_tally, all->delivered[id]);
            const char *n = all->name[id];
            if (strstr(n, "fits") || strstr(n, "three")) /* the first, the non-ASCII (a third) */
                CHECK_EQ_U64(counted->delivered[id], 1 + all->delivered[id] / 3);
            else if (strstr(n, "blob")) /* the first, the open ones (a half) */
                CHECK_EQ_U64(counted->delivered[id], 1 + all->delivered[id] / 2);
            else if (strstr(n, "fixed")) {
                CHECK_EQ_U64(counted->delivered[id], 1);
                fixed_rows = in_tally;
            }
            else if (n[0]) /* other, seq: never proven to fit */
                CHECK_EQ_U64(in_tally, 0);
        }
        CHECK(fixed_rows > 0);
        CHECK_EQ_U64(counted->tally.short_rows, fixed_rows);
        CHECK_EQ_U64(all->tally.rows, 0);
        free(all);
        free(counted);
        ctf_folder_remove(dir);
    }
}

/* A scan of the trace at path counts as delivering every event does. */
static void scan_as_delivered(const char *path, void *ctx)
{
    (void)ctx;
    ctf_counts *a = calloc(1, sizeof *a), *b = calloc(1, sizeof *b);
    CHECK(a && b);
    if (a && b) {
        ctf_read_counts(path, false, a);
        ctf_read_counts(path, true, b);
        ctf_check_counts(b, a);
    }
    free(a);
    free(b);
}

static void test_reader_scan_counts_as_it_delivers(void)
{
    CHECK(ctf_each_fixture(scan_as_delivered, NULL) >= 8);
}

int main(void)
{
    setenv("GCSCOPE_CTF_READER", "native", 1);
    RUN(test_container_counts_as_it_delivers);
    RUN(test_reader_scan_counts_as_it_delivers);
    return check_report("test_ctf_count");
}
