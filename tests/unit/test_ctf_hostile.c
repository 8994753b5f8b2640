/*
 * Our own CTF reader (format/ctf: ctf_tsdl.c, ctf_decode.c, ctf_native.c)
 * against the hostile metadata and stream files fuzz_ctfread found: each
 * test is one finding (docs/fuzzing.md), made by hand small enough to read.
 * A trace is written into a private folder as "metadata" (plain TSDL text)
 * and "channel0_0", then read through the public reader.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "format/ctf/ctf_tsdl.h"
#include "gcscope.h"
#include "unit/byte_builder.h"
#include "unit/check.h"

/* The little-endian trace every test starts from: packet header magic and
 * stream_id, LTTng's packet context, a 1 GHz clock. */
#define TRACE_HEAD                                                                          \
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
    "  uint64_t events_discarded; uint32_t cpu_id; };\n"                                    \
    "stream { id = 0; packet.context := struct packet_context; };\n"

/* Bytes of the packet header and context above. */
#define HEAD_BYTES 52u

static gcs_status parse(const char *text, gcs_error *err)
{
    ctf_meta m;
    gcs_error_clear(err);
    gcs_status st = ctf_meta_parse(&m, text, strlen(text), "test/metadata", err);
    ctf_meta_free(&m);
    return st;
}

/* The header and context of a packet of packet_bytes holding n bytes of
 * events. */
static void packet_head(bb *b, size_t n, size_t packet_bytes)
{
    bb_u32(b, 0xC1FC1FC1u);
    bb_u32(b, 0);
    bb_u64(b, 1000);
    bb_u64(b, 2000);
    bb_u64(b, 8 * (HEAD_BYTES + n));
    bb_u64(b, 8 * packet_bytes);
    bb_u64(b, 0);
    bb_u32(b, 3);
}

/* One packet: the header and context, then `events` (n bytes), padded to
 * packet_bytes. */
static void packet(bb *b, const void *events, size_t n, size_t packet_bytes)
{
    packet_head(b, n, packet_bytes);
    bb_bytes(b, events, n);
    while (b->len % packet_bytes)
        bb_u8(b, 0);
}

static void write_file(const char *dir, const char *name, const void *data, size_t size)
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

/* What reading a trace gave. */
typedef struct result {
    gcs_status status;
    gcs_error err;
    uint64_t events, anomalies;
    uint32_t payload_size[8]; /* of the first 8 events */
    uint8_t payload[8][16];   /* their first bytes */
} result;

/* Reads the trace (metadata text, stream file bytes) to its end. */
static void read_trace(const char *text, const uint8_t *stream, size_t stream_len, result *out)
{
    memset(out, 0, sizeof *out);
    out->status = GCS_ERR_ARG;
    const char *tmp = getenv("TMPDIR");
    char d[4096];
    snprintf(d, sizeof d, "%s/gcscope-test-ctf-hostile-XXXXXX", tmp && tmp[0] ? tmp : "/tmp");
    CHECK(mkdtemp(d) != NULL);
    write_file(d, "metadata", text, strlen(text));
    write_file(d, "channel0_0", stream, stream_len);
    gcs_error_clear(&out->err);
    gcs_source *src = gcs_source_open_file(d, &out->err);
    gcs_reader *r = src ? gcs_reader_new(src, NULL, &out->err) : NULL;
    CHECK(r != NULL);
    const gcs_event *ev;
    while (r && (out->status = gcs_reader_next(r, &ev, &out->err)) == GCS_OK &&
           out->events < 1000000) {
        if (out->events < 8) {
            out->payload_size[out->events] = ev->payload_size;
            memcpy(out->payload[out->events], ev->payload,
                   ev->payload_size < 16 ? ev->payload_size : 16);
        }
        out->events++;
    }
    if (r)
        out->anomalies = gcs_reader_get_stats(r)->anomalies;
    gcs_reader_free(r);
    gcs_source_free(src);
    char path[4200];
    snprintf(path, sizeof path, "%s/metadata", d);
    unlink(path);
    snprintf(path, sizeof path, "%s/channel0_0", d);
    unlink(path);
    rmdir(d);
}

/* An event class of no fields in a stream of no event header takes no
 * bits: the reader read it again at the same place forever (fuzz_ctfread's
 * events <= 8 * stream bytes). Now an error at the event. */
static void test_event_of_no_bits(void)
{
    const char *text = TRACE_HEAD "event { name = \"z:nothing\"; id = 0; fields := struct { }; };\n";
    static const uint8_t payload[8];
    bb *b = calloc(1, sizeof *b);
    packet(b, payload, sizeof payload, 64);
    result res;
    read_trace(text, b->data, b->len, &res);
    CHECK_EQ_INT(res.status, GCS_ERR_CORRUPT);
    CHECK_EQ_U64(res.events, 0);
    CHECK(strstr(res.err.reason, "an event of no bits") != NULL);
    CHECK_EQ_U64(res.err.offset, HEAD_BYTES);
    /* The same class with one byte of field: 8 events, then the end. */
    const char *one = TRACE_HEAD "event { name = \"z:byte\"; id = 0; fields := struct { uint8_t _b; }; };\n";
    read_trace(one, b->data, b->len, &res);
    CHECK_EQ_INT(res.status, GCS_END);
    CHECK_EQ_U64(res.events, 8);
    free(b);
}

/* A sequence (or array) of elements that take no bits (empty structs):
 * the reader looped once per element whatever the packet held, and nested
 * as often as the product of the lengths (fuzz_ctfread timed out). Such
 * layouts are now beyond our subset (LTTng writes none). */
static void test_elements_of_no_bits(void)
{
    static const char *const refused[] = {
        "struct { } _e[_n];",
        "struct { } _e[_n][_n];",
        "struct { } _e[4];",
        "uint8_t _s[_n][0];", /* _n arrays of no bytes */
        "struct { uint8_t _m[_n]; } _e[_n];",
        "enum : uint8_t { a, b } _t; variant <_t> { uint8_t a; struct { } b; } _v[2];",
    };
    char text[4096];
    gcs_error err;
    for (size_t i = 0; i < sizeof refused / sizeof *refused; i++) {
        snprintf(text, sizeof text, TRACE_HEAD "event { name = \"z\"; id = 0; fields := struct {"
                 " uint32_t _n; %s }; };", refused[i]);
        CHECK_EQ_INT(parse(text, &err), GCS_ERR_UNSUPPORTED);
        CHECK(strstr(err.reason, "elements that may take no bits") != NULL);
    }
    /* Elements of one bit at least are read as before. */
    snprintf(text, sizeof text, TRACE_HEAD "event { name = \"z\"; id = 0; fields := struct {"
             " uint32_t _n; uint8_t _s[_n]; string _t[2]; integer { size = 1; align = 1; } _b[_n][3];"
             " struct { uint8_t _m; uint8_t _s[_m]; } _ok[_n]; uint8_t _none[0][3]; }; };");
    CHECK_EQ_INT(parse(text, &err), GCS_OK);
}

/* A variant that is a scope itself, tagged by a path into that scope: the
 * path was looked up among the members of the last struct parsed at that
 * depth, already freed (ASan: heap-use-after-free in member_named). The
 * scope has no members before it is parsed: no such field. */
static void test_variant_tag_names_its_own_root(void)
{
    static const char *const scopes[] = {
        TRACE_HEAD "event { name = \"x\"; id = 0; fields := variant <event.fields.a> { uint8_t a; uint8_t b; }; };",
        TRACE_HEAD "event { name = \"x\"; id = 0; fields := struct { uint8_t a; };"
                   " context := variant <event.context.a> { uint8_t a; }; };",
        "/* CTF 1.8 */ typealias integer { size = 8; align = 8; } := uint8_t;"
        " stream { event.header := variant <stream.event.header.id> { uint8_t id; }; };",
    };
    for (size_t i = 0; i < sizeof scopes / sizeof *scopes; i++) {
        gcs_error err;
        CHECK_EQ_INT(parse(scopes[i], &err), GCS_ERR_UNSUPPORTED);
        CHECK(strstr(err.reason, "names no earlier integer field") != NULL);
    }
}

/* An event whose payload is over the payload cap (16 MiB: here a text
 * array of 8.5 MiB, 17 MiB as UTF-16) is kept without payload; the reader
 * stopped reading its fields where the cap was hit, so the next event was
 * read from inside this one's text ("AAAA" as a length: an event past the
 * packet). The fields are now read again to their end. */
static void test_payload_beyond_cap(void)
{
    const char *text = TRACE_HEAD
        "event { name = \"t:big\"; id = 0; fields := struct { uint32_t _n;"
        " integer { size = 8; align = 8; signed = false; encoding = UTF8; } _s[_n]; uint8_t _after; }; };";
    const size_t big = (size_t)17 << 19; /* 8.5 MiB */
    const size_t events_len = 4 + big + 1 + 4 + 2 + 1, packet_bytes = HEAD_BYTES + events_len;
    uint8_t *stream = malloc(packet_bytes);
    bb *b = calloc(1, sizeof *b);
    CHECK(stream && b);
    if (!stream || !b)
        return;
    packet_head(b, events_len, packet_bytes);
    bb_u32(b, (uint32_t)big);
    memcpy(stream, b->data, b->len);
    uint8_t *p = stream + b->len;
    memset(p, 'A', big);
    p += big;
    static const uint8_t tail[] = {7, 2, 0, 0, 0, 'h', 'i', 9};
    memcpy(p, tail, sizeof tail);
    CHECK_EQ_U64(p + sizeof tail - stream, packet_bytes);
    result res;
    read_trace(text, stream, packet_bytes, &res);
    CHECK_EQ_INT(res.status, GCS_END);
    CHECK_EQ_U64(res.events, 2);
    CHECK_EQ_U64(res.payload_size[0], 0);
    CHECK(res.anomalies >= 1);
    static const uint8_t second[] = {2, 0, 0, 0, 'h', 0, 'i', 0, 0, 0, 9};
    CHECK_EQ_U64(res.payload_size[1], sizeof second);
    CHECK(memcmp(res.payload[1], second, sizeof second) == 0);
    free(stream);
    free(b);
}

int main(void)
{
    RUN(test_event_of_no_bits);
    RUN(test_elements_of_no_bits);
    RUN(test_variant_tag_names_its_own_root);
    RUN(test_payload_beyond_cap);
    return check_report("test_ctf_hostile");
}
