/*
 * Our CTF reader's shortcuts (ctf_native.c, gcs_ctf_native_shortcuts)
 * read as the long way does: every trace is read twice, shortcuts on and
 * off, and everything a sink hears must be the same, in order:
 *
 * - through the container (every event's row, time, pid, tid, processor
 *   and payload bytes; rows, steps, lost events, process names, anomalies;
 *   the end's status, offset and reason): the merge's top kept without a
 *   sift, the byte-array events read without the walk;
 * - through the public reader's scan (the counting path: counts per type,
 *   lost, undecodable, first and last time): the payload skips in whole
 *   bytes.
 *
 * - the metadata check (its runs of plain code), on every metadata file of
 *   tests/data/ctf cut and overwritten at many bytes.
 *
 * On every trace of tests/data/ctf, and on traces written here whose
 * classes are byte arrays after integers (signed, of 1 to 8 bytes, a
 * fixed array, a big-endian length the shortcut leaves to the walk) in two
 * stream files whose events interleave and tie, whole, with a negative
 * length, with a length past the packet's content, and cut; some of their
 * events have a negative vtid (the flat context's signed 4-byte integers,
 * sign-extended into the tid).
 */
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

#define TRACE_TEXT                                                                          \
    CTF_TEXT_PREAMBLE                                                                       \
    "typealias integer { size = 16; align = 8; signed = true; } := int16_t;\n"             \
    "typealias integer { size = 16; align = 8; signed = false; byte_order = be; } := be16_t;\n" \
    "stream { id = 0; packet.context := struct packet_context;\n"                           \
    "  event.header := struct { uint32_t id; uint64_clock_monotonic_t timestamp; };\n"      \
    "  event.context := struct { uint32_t _vpid;\n"                                         \
    "    integer { size = 32; align = 8; signed = 1; } _vtid;\n"                            \
    "    integer { size = 8; align = 8; signed = 1; encoding = UTF8; } _procname[17]; }; };\n" \
    "event { name = \"t:blob\"; id = 0; fields := struct { uint32_t _length;\n"             \
    "  uint32_t ____data___length; uint8_t ___data__[____data___length]; }; };\n"          \
    "event { name = \"t:mixed\"; id = 1; fields := struct { uint8_t _a; uint64_t _b;\n"     \
    "  int16_t ____data___length; uint8_t ___data__[____data___length]; }; };\n"           \
    "event { name = \"t:array\"; id = 2; fields := struct { uint32_t _a;\n"                 \
    "  uint8_t ___data__[4]; }; };\n"                                                      \
    "event { name = \"t:be\"; id = 3; fields := struct { be16_t ____data___length;\n"       \
    "  uint8_t ___data__[____data___length]; }; };\n"                                      \
    "event { name = \"t:text\"; id = 4; fields := struct { uint32_t _a; string _s;\n"       \
    "  string _t; }; };\n"

#define PACKET_BYTES 1024u

/* ---- what a sink hears, as one digest ---- */

typedef struct heard {
    uint64_t hash, events, rows, steps, lost, names, anomalies;
    uint64_t negative_tids; /* tid -16, sign-extended */
} heard;

static void mix(heard *h, const void *p, size_t n)
{
    const uint8_t *b = p;
    for (size_t i = 0; i < n; i++)
        h->hash = (h->hash ^ b[i]) * 1099511628211u;
}

static void mix_u64(heard *h, uint64_t v) { mix(h, &v, sizeof v); }

static gcs_status on_trace(void *ctx, const gcs_trace_info *info, gcs_error *err)
{
    (void)info, (void)err;
    mix_u64(ctx, 1);
    return GCS_OK;
}

static gcs_status on_meta(void *ctx, const gcs_meta_def *def, gcs_error *err)
{
    heard *h = ctx;
    (void)err;
    h->rows++;
    mix_u64(h, def->metadata_id);
    mix(h, def->event_name, strlen(def->event_name));
    return GCS_OK;
}

static gcs_status on_event(void *ctx, const gcs_raw_event *ev, gcs_error *err)
{
    heard *h = ctx;
    (void)err;
    h->events++;
    h->negative_tids += ev->tid == (uint64_t)-16;
    mix_u64(h, ev->metadata_id);
    mix_u64(h, (uint64_t)ev->timestamp);
    mix_u64(h, ev->pid);
    mix_u64(h, ev->tid);
    mix_u64(h, ev->processor);
    mix_u64(h, ev->offset);
    mix_u64(h, ev->payload_size);
    if (ev->payload_size)
        mix(h, ev->payload, ev->payload_size);
    return GCS_OK;
}

static gcs_status on_seq(void *ctx, int64_t t, const gcs_seq_entry *e, size_t n, gcs_error *err)
{
    heard *h = ctx;
    (void)e, (void)n, (void)err;
    h->steps++;
    mix_u64(h, (uint64_t)t);
    return GCS_OK;
}

static void on_lost(void *ctx, uint64_t n) { ((heard *)ctx)->lost += n; }

static void on_name(void *ctx, uint32_t pid, const char *name)
{
    heard *h = ctx;
    h->names++;
    mix_u64(h, pid);
    mix(h, name, strlen(name));
}

static void on_anomaly(void *ctx, uint64_t offset, const char *reason)
{
    heard *h = ctx;
    h->anomalies++;
    mix_u64(h, offset);
    mix(h, reason, strlen(reason));
}

typedef struct outcome {
    heard h;
    gcs_status status;
    gcs_error err;
} outcome;

/* Reads the trace at path through our container, every event delivered. */
static void read_container(const char *path, outcome *o)
{
    memset(o, 0, sizeof *o);
    o->h.hash = 14695981039346656037u;
    gcs_arena arena;
    memset(&arena, 0, sizeof arena);
    gcs_sink sink = {.ctx = &o->h, .meta_arena = &arena, .trace = on_trace, .metadata = on_meta,
                     .event = on_event, .sequence_point = on_seq, .events_lost = on_lost,
                     .process_name = on_name, .anomaly = on_anomaly};
    gcs_error_clear(&o->err);
    gcs_source *src = gcs_source_open_file(path, &o->err);
    CHECK(src != NULL);
    if (!src)
        return;
    gcs_stream s;
    gcs_stream_init(&s, src);
    gcs_container *c = NULL;
    o->status = gcs_container_open(&s, &sink, &c, &o->err);
    while (o->status == GCS_OK)
        o->status = c->ops->step(c, &o->err);
    if (c)
        c->ops->destroy(c);
    gcs_stream_free(&s);
    gcs_source_free(src);
    gcs_arena_reset(&arena);
}

/* Both ways, compared. Returns the events read (shortcuts on). */
static uint64_t compare_ways(const char *path)
{
    outcome *on = calloc(1, sizeof *on), *off = calloc(1, sizeof *off);
    ctf_counts *a = calloc(1, sizeof *a), *b = calloc(1, sizeof *b);
    CHECK(on && off && a && b);
    uint64_t events = 0;
    if (on && off && a && b) {
        gcs_ctf_native_shortcuts(false);
        read_container(path, off);
        ctf_read_counts(path, true, b);
        gcs_ctf_native_shortcuts(true);
        read_container(path, on);
        ctf_read_counts(path, true, a);
        printf("  %s: %llu events, %llu steps, status %d (%s)\n", path,
               (unsigned long long)on->h.events, (unsigned long long)on->h.steps, on->status,
               on->err.reason);
        CHECK_EQ_U64(on->h.hash, off->h.hash);
        CHECK_EQ_U64(on->h.events, off->h.events);
        CHECK_EQ_U64(on->h.rows, off->h.rows);
        CHECK_EQ_U64(on->h.steps, off->h.steps);
        CHECK_EQ_U64(on->h.lost, off->h.lost);
        CHECK_EQ_U64(on->h.names, off->h.names);
        CHECK_EQ_U64(on->h.anomalies, off->h.anomalies);
        CHECK_EQ_U64(on->h.negative_tids, off->h.negative_tids);
        if (strstr(path, "ctf-fast")) /* t:array and t:be, pid 30, in each packet read */
            CHECK(on->h.negative_tids >= 2);
        CHECK_EQ_INT(on->status, off->status);
        CHECK_EQ_U64(on->err.offset, off->err.offset);
        CHECK_EQ_STR(on->err.reason, off->err.reason);
        ctf_check_counts(a, b);
        events = on->h.events;
    }
    free(on);
    free(off);
    free(a);
    free(b);
    return events;
}

/* ---- traces written here ---- */

static void header(bb *b, uint32_t id, uint64_t t, uint32_t pid)
{
    static const char procname[17] = "app";
    bb_u32(b, id);
    bb_u64(b, t);
    bb_u32(b, pid);
    bb_u32(b, pid == 30 ? (uint32_t)-16 : pid + 1); /* a negative vtid */
    bb_bytes(b, procname, sizeof procname);
}

/* The events of one packet of file `file`: their times interleave with
 * the other file's and tie with some. shape 1 ends the packet with a
 * negative length, shape 2 with a length past the content. */
static void packet_events(bb *b, unsigned file, unsigned k, int shape)
{
    uint64_t t = 1000 + 100 * k + file;
    static const uint8_t data[40] = "bytes the runtime wrote as one array..";
    for (uint32_t n = 0; n <= 33; n += 11) {
        header(b, 0, t += 3, 10 + file), bb_u32(b, 2 * n), bb_u32(b, n), bb_bytes(b, data, n);
        header(b, 1, t += 2 * file, 20), bb_u8(b, (uint8_t)n), bb_u64(b, ~(uint64_t)n),
            bb_u16(b, (uint16_t)n), bb_bytes(b, data, n);
    }
    header(b, 2, t, 30), bb_u32(b, 7), bb_bytes(b, "abcd", 4);
    header(b, 3, t += 5, 30), bb_u8(b, 0), bb_u8(b, 5), bb_bytes(b, data, 5);
    header(b, 4, t += 1, 40), bb_u32(b, k), bb_bytes(b, "a string of more than 32 ASCII bytes", 37),
        bb_bytes(b, "caf\xc3\xa9", 6);
    header(b, 0, t += 1, 10 + file), bb_u32(b, 0), bb_u32(b, 0); /* an empty array */
    if (shape == 1 && k == 1)
        header(b, 1, t + 1, 20), bb_u8(b, 1), bb_u64(b, 2), bb_u16(b, 0xFFFF);
    if (shape == 2 && k == 1)
        header(b, 0, t + 1, 20), bb_u32(b, 1), bb_u32(b, 200), bb_bytes(b, data, 8);
}

/* Two stream files of three packets in dir; shape 3 cuts the second
 * inside its last packet. */
static void write_trace(const char *dir, int shape)
{
    ctf_folder_write(dir, "metadata", TRACE_TEXT, strlen(TRACE_TEXT));
    for (unsigned file = 0; file < 2; file++) {
        char path[4200];
        snprintf(path, sizeof path, "%s/channel0_%u", dir, file);
        FILE *f = fopen(path, "wb");
        CHECK(f != NULL);
        if (!f)
            return;
        for (unsigned k = 0; k < 3; k++) {
            bb *b = calloc(1, sizeof *b);
            CHECK(b != NULL);
            if (!b)
                break;
            packet_events(b, file, k, shape);
            ctf_text_put_packet(f, b, PACKET_BYTES, 0, file);
            free(b);
        }
        fclose(f);
        if (shape == 3 && file == 1)
            CHECK(truncate(path, 2 * PACKET_BYTES + 300) == 0);
    }
}

static void test_written_traces_read_alike(void)
{
    for (int shape = 0; shape < 4; shape++) {
        char dir[4096];
        CHECK(ctf_folder_make(dir, sizeof dir, "ctf-fast"));
        write_trace(dir, shape);
        CHECK(compare_ways(dir) > 0);
        ctf_folder_remove(dir);
    }
}

static void read_alike(const char *path, void *ctx)
{
    (void)ctx;
    compare_ways(path);
}

static void test_fixtures_read_alike(void)
{
    CHECK(ctf_each_fixture(read_alike, NULL) >= 8);
}

/* The metadata check (gcs_ctf_check_metadata) of the bytes at data says
 * the same with its runs of plain code taken whole and byte by byte. */
static void check_metadata_alike(const uint8_t *data, size_t size, size_t *differ)
{
    gcs_error on, off;
    gcs_error_clear(&on);
    gcs_error_clear(&off);
    gcs_ctf_native_shortcuts(false);
    gcs_status b = gcs_ctf_check_metadata(data, size, "m", &off);
    gcs_ctf_native_shortcuts(true);
    gcs_status a = gcs_ctf_check_metadata(data, size, "m", &on);
    if (a != b || on.offset != off.offset || strcmp(on.reason, off.reason) != 0) {
        if ((*differ)++ == 0)
            printf("  differ at %zu bytes: %d %llu %s / %d %llu %s\n", size, a,
                   (unsigned long long)on.offset, on.reason, b, (unsigned long long)off.offset,
                   off.reason);
    }
}

/* Every metadata file of tests/data/ctf, cut at every 5th byte and with
 * bytes that open, close or end something (or do nothing) written over
 * it at every 23rd. */
static void metadata_alike(const char *path, void *ctx)
{
    static const char *const files[] = {"metadata", "k/metadata", "u/metadata", "kernel/metadata",
                                        "ust/uid/1000/64-bit/metadata"};
    size_t *differ = ctx;
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        char name[4300];
        snprintf(name, sizeof name, "%s/%s", path, files[i]);
        FILE *f = fopen(name, "rb");
        if (!f)
            continue;
        static uint8_t data[65536];
        size_t size = fread(data, 1, sizeof data, f);
        fclose(f);
        for (size_t cut = 0; cut <= size; cut += 5)
            check_metadata_alike(data, cut, differ);
        static const char over[] = {'\0', '"', '\'', '\\', '{', '}', '[', ']', '(', ')', '/', '*',
                                    '\n', ';', ' ', 'x'};
        for (size_t at = 0; at < size; at += 23)
            for (size_t k = 0; k < sizeof over; k++) {
                uint8_t was = data[at];
                data[at] = (uint8_t)over[k];
                check_metadata_alike(data, size, differ);
                data[at] = was;
            }
        check_metadata_alike(data, size, differ);
    }
}

static void test_metadata_checked_alike(void)
{
    size_t differ = 0;
    CHECK(ctf_each_fixture(metadata_alike, &differ) >= 8);
    CHECK_EQ_U64(differ, 0);
}

int main(void)
{
    setenv("GCSCOPE_CTF_READER", "native", 1);
    RUN(test_written_traces_read_alike);
    RUN(test_fixtures_read_alike);
    RUN(test_metadata_checked_alike);
    return check_report("test_ctf_fast");
}
