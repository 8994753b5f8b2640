/*
 * ctf_text.h - the metadata text the hand-made CTF traces of the unit
 * tests start with: LTTng's packet header (magic, stream_id) and packet
 * context, a 1 GHz clock, and 8/32/64-bit unsigned integers. A test adds
 * its stream block (event header or not) and its event classes. And the
 * folder such a trace is written to, and what the public reader counts of
 * a trace (to compare two ways of reading it).
 */
#ifndef GCS_TESTS_CTF_TEXT_H
#define GCS_TESTS_CTF_TEXT_H

#include <dirent.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gcscope.h"
#include "io/source.h"
#include "unit/byte_builder.h"
#include "unit/check.h"

#define CTF_TEXT_PREAMBLE                                                                   \
    "/* CTF 1.8 */\n"                                                                       \
    "typealias integer { size = 8; align = 8; signed = false; } := uint8_t;\n"             \
    "typealias integer { size = 32; align = 8; signed = false; } := uint32_t;\n"           \
    "typealias integer { size = 64; align = 8; signed = false; } := uint64_t;\n"           \
    "trace { major = 1; minor = 8; byte_order = le;\n"                                      \
    "  packet.header := struct { uint32_t magic; uint32_t stream_id; }; };\n"               \
    "clock { name = \"monotonic\"; freq = 1000000000; };\n"                                 \
    "typealias integer { size = 64; align = 8; signed = false;\n"                           \
    "  map = clock.monotonic.value; } := uint64_clock_monotonic_t;\n"                       \
    "struct packet_context { uint64_clock_monotonic_t timestamp_begin;\n"                   \
    "  uint64_clock_monotonic_t timestamp_end; uint64_t content_size; uint64_t packet_size;\n" \
    "  uint64_t events_discarded; uint32_t cpu_id; };\n"

/* Bytes of that packet header and context. */
#define CTF_TEXT_HEAD_BYTES 52u

/* Appends that header and context to b for a packet of packet_bytes
 * whose events take n bytes (timestamps 1000 to 2000, `discarded` lost
 * events, cpu_id). */
static inline void ctf_text_packet_head(bb *b, size_t n, size_t packet_bytes, uint64_t discarded,
                                        uint32_t cpu_id)
{
    bb_u32(b, 0xC1FC1FC1u);
    bb_u32(b, 0);
    bb_u64(b, 1000);
    bb_u64(b, 2000);
    bb_u64(b, 8 * (CTF_TEXT_HEAD_BYTES + n));
    bb_u64(b, 8 * packet_bytes);
    bb_u64(b, discarded);
    bb_u32(b, cpu_id);
}

/* Appends a whole packet to b: the head, the n bytes of events, zeros up
 * to packet_bytes. */
static inline void ctf_text_packet(bb *b, const void *events, size_t n, size_t packet_bytes,
                                   uint64_t discarded, uint32_t cpu_id)
{
    ctf_text_packet_head(b, n, packet_bytes, discarded, cpu_id);
    bb_bytes(b, events, n);
    while (b->len % packet_bytes)
        bb_u8(b, 0);
}

/* Writes that packet of events to f. */
static inline void ctf_text_put_packet(FILE *f, const bb *events, size_t packet_bytes,
                                       uint64_t discarded, uint32_t cpu_id)
{
    bb *b = calloc(1, sizeof *b);
    CHECK(b != NULL);
    if (!b)
        return;
    CHECK(CTF_TEXT_HEAD_BYTES + events->len <= packet_bytes);
    ctf_text_packet(b, events->data, events->len, packet_bytes, discarded, cpu_id);
    CHECK(fwrite(b->data, 1, b->len, f) == b->len);
    free(b);
}

/* A fresh trace folder under $TMPDIR (or /tmp) named after tag, in dir
 * (4096 bytes). */
static inline bool ctf_folder_make(char *dir, size_t cap, const char *tag)
{
    const char *tmp = getenv("TMPDIR");
    snprintf(dir, cap, "%s/gcscope-test-%s-XXXXXX", tmp && tmp[0] ? tmp : "/tmp", tag);
    return mkdtemp(dir) != NULL;
}

/* Writes a file of the folder (metadata, a stream file). */
static inline void ctf_folder_write(const char *dir, const char *name, const void *data,
                                    size_t size)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "wb");
    CHECK(f != NULL);
    if (f) {
        CHECK(fwrite(data, 1, size, f) == size);
        fclose(f);
    }
}

/* Removes the folder with its metadata and channel0_0. */
static inline void ctf_folder_remove(const char *dir)
{
    /* Every file the test wrote (metadata, channel files), then the folder. */
    DIR *d = opendir(dir);
    struct dirent *e;
    while (d && (e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.')
            continue;
        char path[4096 + 2 + sizeof e->d_name];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        unlink(path);
    }
    if (d)
        closedir(d);
    rmdir(dir);
}

/* Calls fn with the path of every trace folder of tests/data/ctf; returns
 * how many. */
static inline size_t ctf_each_fixture(void (*fn)(const char *path, void *ctx), void *ctx)
{
    DIR *d = opendir("tests/data/ctf");
    CHECK(d != NULL);
    if (!d)
        return 0;
    struct dirent *e;
    size_t traces = 0;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.')
            continue;
        char path[4200];
        snprintf(path, sizeof path, "tests/data/ctf/%s", e->d_name);
        fn(path, ctx);
        traces++;
    }
    closedir(d);
    return traces;
}

/* What the public reader made of a trace: its end and its counts. */
typedef struct ctf_counts {
    gcs_status status;
    uint64_t err_offset;
    char err_message[256];
    gcs_reader_stats stats;
    uint64_t per_type[256];
    size_t n_types;
} ctf_counts;

/* Reads path with the public reader: its scan (the counting path) or
 * every event delivered. */
static inline void ctf_read_counts(const char *path, bool scan, ctf_counts *c)
{
    memset(c, 0, sizeof *c);
    gcs_error err;
    gcs_error_clear(&err);
    gcs_source *src = gcs_source_open_file(path, &err);
    gcs_reader *r = src ? gcs_reader_new(src, NULL, &err) : NULL;
    CHECK(r != NULL);
    if (!r) {
        gcs_source_free(src);
        return;
    }
    if (scan) {
        c->status = gcs_reader_scan(r, &err);
    } else {
        const gcs_event *ev;
        while ((c->status = gcs_reader_next(r, &ev, &err)) == GCS_OK)
            ;
    }
    c->err_offset = err.offset;
    snprintf(c->err_message, sizeof c->err_message, "%s", err.reason);
    c->stats = *gcs_reader_get_stats(r);
    const gcs_event_type *t;
    for (; c->n_types < 256 && (t = gcs_reader_event_type(r, (uint32_t)c->n_types)); c->n_types++)
        c->per_type[c->n_types] = t->count;
    gcs_reader_free(r);
    gcs_source_free(src);
}

/* Checks that b counted what a counted. */
static inline void ctf_check_counts(const ctf_counts *b, const ctf_counts *a)
{
    CHECK_EQ_INT(b->status, a->status);
    CHECK_EQ_U64(b->err_offset, a->err_offset);
    CHECK(strcmp(b->err_message, a->err_message) == 0);
    CHECK_EQ_U64(b->stats.events, a->stats.events);
    CHECK_EQ_U64(b->stats.undecodable_events, a->stats.undecodable_events);
    CHECK_EQ_U64(b->stats.unknown_events, a->stats.unknown_events);
    CHECK_EQ_U64(b->stats.lost_events, a->stats.lost_events);
    CHECK_EQ_U64((uint64_t)b->stats.first_timestamp, (uint64_t)a->stats.first_timestamp);
    CHECK_EQ_U64((uint64_t)b->stats.last_timestamp, (uint64_t)a->stats.last_timestamp);
    CHECK_EQ_U64(b->n_types, a->n_types);
    for (size_t i = 0; i < a->n_types && i < b->n_types; i++)
        CHECK_EQ_U64(b->per_type[i], a->per_type[i]);
}

#endif
