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

/* One packet: the header and context, then `events` (n bytes), padded to
 * packet_bytes. */
static void packet(bb *b, const void *events, size_t n, size_t packet_bytes)
{
    bb_u32(b, 0xC1FC1FC1u);
    bb_u32(b, 0);
    bb_u64(b, 1000);
    bb_u64(b, 2000);
    bb_u64(b, 8 * (HEAD_BYTES + n));
    bb_u64(b, 8 * packet_bytes);
    bb_u64(b, 0);
    bb_u32(b, 3);
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

/* Reads the trace (metadata text, stream bytes) to its end: the status,
 * the events delivered and the error. */
static gcs_status read_trace(const char *text, const bb *stream, uint64_t *events, gcs_error *err)
{
    char dir[] = "/tmp/gcscope-test-ctf-hostile-XXXXXX";
    const char *tmp = getenv("TMPDIR");
    char pattern[4096];
    snprintf(pattern, sizeof pattern, "%s/gcscope-test-ctf-hostile-XXXXXX",
             tmp && tmp[0] ? tmp : "/tmp");
    char *d = mkdtemp(pattern) ? pattern : mkdtemp(dir);
    CHECK(d != NULL);
    if (!d)
        return GCS_ERR_IO;
    write_file(d, "metadata", text, strlen(text));
    write_file(d, "channel0_0", stream->data, stream->len);
    gcs_error_clear(err);
    gcs_source *src = gcs_source_open_file(d, err);
    gcs_reader *r = src ? gcs_reader_new(src, NULL, err) : NULL;
    CHECK(r != NULL);
    gcs_status st = GCS_ERR_ARG;
    *events = 0;
    const gcs_event *ev;
    while (r && (st = gcs_reader_next(r, &ev, err)) == GCS_OK && *events < 1000000)
        ++*events;
    gcs_reader_free(r);
    gcs_source_free(src);
    char path[4200];
    snprintf(path, sizeof path, "%s/metadata", d);
    unlink(path);
    snprintf(path, sizeof path, "%s/channel0_0", d);
    unlink(path);
    rmdir(d);
    return st;
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
    uint64_t events;
    gcs_error err;
    gcs_status st = read_trace(text, b, &events, &err);
    CHECK_EQ_INT(st, GCS_ERR_CORRUPT);
    CHECK_EQ_U64(events, 0);
    CHECK(strstr(err.reason, "an event of no bits") != NULL);
    CHECK_EQ_U64(err.offset, HEAD_BYTES);
    /* The same class with one byte of field: 8 events, then the end. */
    const char *one = TRACE_HEAD "event { name = \"z:byte\"; id = 0; fields := struct { uint8_t _b; }; };\n";
    st = read_trace(one, b, &events, &err);
    CHECK_EQ_INT(st, GCS_END);
    CHECK_EQ_U64(events, 8);
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

int main(void)
{
    RUN(test_event_of_no_bits);
    RUN(test_elements_of_no_bits);
    RUN(test_variant_tag_names_its_own_root);
    return check_report("test_ctf_hostile");
}
