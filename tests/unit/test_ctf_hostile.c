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
#include <time.h>
#include <unistd.h>

#include "format/ctf/ctf_tsdl.h"
#include "gcscope.h"
#include "unit/byte_builder.h"
#include "unit/ctf_text.h"
#include "unit/check.h"

/* The little-endian trace every test starts from: packet header magic and
 * stream_id, LTTng's packet context, a 1 GHz clock. */
#define TRACE_HEAD                                                                          \
    CTF_TEXT_PREAMBLE                                                                       \
    "stream { id = 0; packet.context := struct packet_context; };\n"

#define HEAD_BYTES CTF_TEXT_HEAD_BYTES

static gcs_status parse(const char *text, gcs_error *err)
{
    ctf_meta m;
    gcs_error_clear(err);
    gcs_status st = ctf_meta_parse(&m, text, strlen(text), "test/metadata", err);
    ctf_meta_free(&m);
    return st;
}

/* What reading a trace gave. */
typedef struct result {
    gcs_status status;
    gcs_error err;
    uint64_t events, anomalies;
    gcs_status scan_status; /* gcs_reader_scan of a second reader (the counting path) */
    uint64_t scan_events;
    uint32_t payload_size[8]; /* of the first 8 events */
    uint8_t payload[8][16];   /* their first bytes */
} result;

/* Reads the trace (metadata text, stream file bytes) to its end. */
static void read_trace(const char *text, const uint8_t *stream, size_t stream_len, result *out)
{
    memset(out, 0, sizeof *out);
    out->status = GCS_ERR_ARG;
    char d[4096];
    CHECK(ctf_folder_make(d, sizeof d, "ctf-hostile"));
    ctf_folder_write(d, "metadata", text, strlen(text));
    ctf_folder_write(d, "channel0_0", stream, stream_len);
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
    gcs_error scan_err;
    gcs_error_clear(&scan_err);
    src = gcs_source_open_file(d, &scan_err);
    r = src ? gcs_reader_new(src, NULL, &scan_err) : NULL;
    out->scan_status = r ? gcs_reader_scan(r, &scan_err) : GCS_ERR_ARG;
    out->scan_events = r ? gcs_reader_get_stats(r)->events : 0;
    gcs_reader_free(r);
    gcs_source_free(src);
    ctf_folder_remove(d);
}

/* Reads one packet of packet_bytes holding `events` (n bytes) under text. */
static void read_packet(const char *text, const void *events, size_t n, size_t packet_bytes,
                        result *out)
{
    bb *b = calloc(1, sizeof *b);
    CHECK(b != NULL);
    if (!b)
        return;
    ctf_text_packet(b, events, n, packet_bytes, 0, 3);
    read_trace(text, b->data, b->len, out);
    free(b);
}

/* An event class of no fields in a stream of no event header takes no
 * bits: the reader read it again at the same place forever (fuzz_ctfread's
 * events <= 8 * stream bytes). Now an error at the event. */
static void test_event_of_no_bits(void)
{
    const char *text = TRACE_HEAD "event { name = \"z:nothing\"; id = 0; fields := struct { }; };\n";
    static const uint8_t payload[8];
    result res;
    read_packet(text, payload, sizeof payload, 64, &res);
    CHECK_EQ_INT(res.status, GCS_ERR_CORRUPT);
    CHECK_EQ_U64(res.events, 0);
    CHECK(strstr(res.err.reason, "an event of no bits") != NULL);
    CHECK_EQ_U64(res.err.offset, HEAD_BYTES);
    /* The same class with one byte of field: 8 events, then the end. */
    const char *one = TRACE_HEAD "event { name = \"z:byte\"; id = 0; fields := struct { uint8_t _b; }; };\n";
    read_packet(one, payload, sizeof payload, 64, &res);
    CHECK_EQ_INT(res.status, GCS_END);
    CHECK_EQ_U64(res.events, 8);
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
    ctf_text_packet_head(b, events_len, packet_bytes, 0, 3);
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

/* Events of a class whose fields hold LTTng's "__data__" blob, in a stream
 * of no event header and no context: the loop over the fields tested a
 * status nothing had set yet in that call (valgrind: "conditional jump
 * depends on uninitialised value"; ASan does not see it), so each event
 * after the first of a packet could lose its payload or end the read. */
static void test_blob_without_header(void)
{
    const char *text = TRACE_HEAD
        "event { name = \"DotNETRuntime:EventSource\"; id = 0; fields := struct { uint32_t _length;"
        " uint32_t ____data___length; integer { size = 8; align = 8; } ___data__[____data___length]; }; };";
    static const uint8_t events[] = {3, 0, 0, 0, 3, 0, 0, 0, 'a', 'b', 'c',
                                     2, 0, 0, 0, 2, 0, 0, 0, 'd', 'e',
                                     1, 0, 0, 0, 1, 0, 0, 0, 'f'};
    result res;
    read_packet(text, events, sizeof events, 128, &res);
    CHECK_EQ_INT(res.status, GCS_END);
    CHECK_EQ_U64(res.events, 3);
    CHECK_EQ_U64(res.payload_size[0], 3);
    CHECK_EQ_U64(res.payload_size[1], 2);
    CHECK_EQ_U64(res.payload_size[2], 1);
    CHECK(memcmp(res.payload[1], "de", 2) == 0 && res.payload[2][0] == 'f');
}

/* A clock whose offset_s is the largest int64 and whose frequency is 1 Hz:
 * the trace's start in seconds (offset_s + cycles / freq) overflowed
 * (UBSan: signed integer overflow in gcs_ctf_send_info). Now saturated. */
static void test_clock_offset_at_the_limit(void)
{
    static const char from[] = "freq = 1000000000;";
    const char *head = TRACE_HEAD, *at = strstr(head, from);
    CHECK(at != NULL);
    if (!at)
        return;
    char text[4096];
    snprintf(text, sizeof text, "%.*sfreq = 1; offset_s = 9223372036854775807;%s"
             "event { name = \"z:byte\"; id = 0; fields := struct { uint8_t _b; }; };",
             (int)(at - head), head, at + strlen(from));
    static const uint8_t events[] = {1, 2};
    result res;
    read_packet(text, events, sizeof events, 64, &res);
    CHECK_EQ_INT(res.status, GCS_END);
    CHECK_EQ_U64(res.events, 2);
}

/* An event header made of typealiases that each hold two of the one
 * before: 31 levels are 2^31 paths to search for "id" fields in 1.4 KB of
 * text (fuzz_ctfread timed out in the parser). The search now stops past
 * 65536 member visits and leaves such a header to babeltrace2. */
static void test_header_of_shared_types(void)
{
    char text[4096];
    int n = snprintf(text, sizeof text, "/* CTF 1.8 */ typealias integer { size = 8; align = 8; } := u8;"
                                        " typealias struct { u8 a; u8 b; } := t1;");
    for (int i = 2; i <= 30; i++)
        n += snprintf(text + n, sizeof text - (size_t)n, " typealias struct { t%d a; t%d b; } := t%d;",
                      i - 1, i - 1, i);
    snprintf(text + n, sizeof text - (size_t)n, " stream { event.header := struct { t30 a; t30 id; }; };");
    gcs_error err;
    CHECK_EQ_INT(parse(text, &err), GCS_ERR_UNSUPPORTED);
    CHECK(strstr(err.reason, "an event header too large to search for its id") != NULL);
    /* Eight levels (512 members) are searched as before. */
    char *cut = strstr(text, " typealias struct { t8 a;");
    CHECK(cut != NULL);
    if (cut) {
        snprintf(cut, sizeof text - (size_t)(cut - text),
                 " stream { event.header := struct { t7 a; u8 id; }; };");
        CHECK_EQ_INT(parse(text, &err), GCS_OK);
    }
}

/* Empty structs nested through typealiases, sixteen of the level below in
 * each of eight levels: 2^32 structs to walk for one event that reads
 * nothing of them (fuzz_ctfread timed out in the decoder; 2.4 KB of
 * text). The decoder now takes at most 8 steps per bit of the packet (plus
 * 65536): an error at the event. (Fields of fixed little-endian bytes are
 * not walked at all but pointed at, whatever their tree: the string
 * member makes these walked.) A few empty structs read as before; the
 * tree in fixed fields is read in one step. */
static void test_tree_of_empty_structs(void)
{
    char text[8192];
    int n = snprintf(text, sizeof text, "%s typealias struct { } := z0;", TRACE_HEAD);
    for (int level = 1; level <= 8; level++) {
        n += snprintf(text + n, sizeof text - (size_t)n, " typealias struct {");
        for (int k = 0; k < 16; k++)
            n += snprintf(text + n, sizeof text - (size_t)n, " z%d m%d;", level - 1, k);
        n += snprintf(text + n, sizeof text - (size_t)n, " } := z%d;", level);
    }
    int head = n;
    snprintf(text + n, sizeof text - (size_t)n,
             " event { name = \"z:tree\"; id = 0; fields := struct { z8 _t; string _s; }; };");
    static const uint8_t events[] = {'a', 0};
    result res;
    read_packet(text, events, sizeof events, 64, &res);
    CHECK_EQ_INT(res.status, GCS_ERR_LIMIT);
    CHECK_EQ_U64(res.events, 0);
    CHECK(strstr(res.err.reason, "more steps to read than its packet's bits allow") != NULL);
    CHECK_EQ_U64(res.err.offset, HEAD_BYTES);
    snprintf(text + head, sizeof text - (size_t)head,
             " event { name = \"z:few\"; id = 0; fields := struct { z1 _t; uint8_t _b; z0 _u; }; };");
    read_packet(text, events, sizeof events, 64, &res);
    CHECK_EQ_INT(res.status, GCS_END);
    CHECK_EQ_U64(res.events, 2);
    snprintf(text + head, sizeof text - (size_t)head,
             " event { name = \"z:fixed\"; id = 0; fields := struct { z8 _t; uint8_t _b; }; };");
    read_packet(text, events, sizeof events, 64, &res);
    CHECK_EQ_INT(res.status, GCS_END);
    CHECK_EQ_U64(res.events, 2);
}

/* "enum : enum : ... integer" recursed once per 7 bytes of text without
 * the nesting bound (an enum's base takes no frame): 15000 levels
 * overflowed the stack under ASan, a 64 MiB metadata file would without
 * it. Now the nesting limit. */
static void test_enum_of_enum_chain(void)
{
    const size_t levels = 100000;
    static const char head[] = "/* CTF 1.8 */ enum x : ", link[] = "enum : ",
                      tail[] = "integer { size = 8; } { a };";
    size_t len = sizeof head - 1 + levels * (sizeof link - 1) + sizeof tail;
    char *text = malloc(len);
    CHECK(text != NULL);
    if (!text)
        return;
    char *p = text;
    memcpy(p, head, sizeof head - 1);
    p += sizeof head - 1;
    for (size_t i = 0; i < levels; i++, p += sizeof link - 1)
        memcpy(p, link, sizeof link - 1);
    memcpy(p, tail, sizeof tail);
    gcs_error err;
    CHECK_EQ_INT(parse(text, &err), GCS_ERR_LIMIT);
    CHECK(strstr(err.reason, "types nest deeper than") != NULL);
    free(text);
}

/* Type names were looked up by a scan of every name declared: 6000 names
 * and 12000 fields took 3 s under ASan for 240 KB of text, quadratic in the
 * text (a 64 MiB metadata file: hours). 20000 names and 60000 fields of
 * the first name now take a fraction of a second (before: tens of
 * seconds); a name declared again still names its latest type. */
static void test_many_type_names(void)
{
    const size_t names = 20000, fields = 60000;
    size_t cap = 128 + names * 40 + fields * 16;
    char *text = malloc(cap);
    CHECK(text != NULL);
    if (!text)
        return;
    size_t n = (size_t)snprintf(text, cap, "/* CTF 1.8 */ typealias integer { size = 8; align = 8; } := t;"
                                           " typealias integer { size = 16; align = 8; } := t;");
    for (size_t i = 0; i < names; i++)
        n += (size_t)snprintf(text + n, cap - n, " typealias t := n%zu;", i);
    n += (size_t)snprintf(text + n, cap - n, " event { name = \"x\"; fields := struct {");
    for (size_t i = 0; i < fields; i++)
        n += (size_t)snprintf(text + n, cap - n, " t f%zu;", i);
    snprintf(text + n, cap - n, " }; };");
    ctf_meta m;
    gcs_error err;
    gcs_error_clear(&err);
    clock_t start = clock();
    CHECK_EQ_INT(ctf_meta_parse(&m, text, strlen(text), "test/metadata", &err), GCS_OK);
    double seconds = (double)(clock() - start) / CLOCKS_PER_SEC;
    CHECK(seconds < 2.0);
    CHECK_EQ_U64(m.n_events, 1);
    if (m.n_events == 1 && m.events[0].fields) {
        CHECK_EQ_U64(m.events[0].fields->n_members, fields);
        CHECK_EQ_U64(m.events[0].fields->members[fields - 1].type->size, 16);
    }
    ctf_meta_free(&m);
    free(text);
}

/* Parses text (malloc'd, freed here): the status, and the CPU seconds. */
static gcs_status parse_timed(char *text, gcs_error *err, double *seconds)
{
    clock_t start = clock();
    gcs_status st = parse(text, err);
    *seconds = (double)(clock() - start) / CLOCKS_PER_SEC;
    free(text);
    return st;
}

/* Many event classes: each one was a realloc of them all (12000 events in
 * 200 KB of text took 6.6 s under ASan, quadratic), now grown
 * geometrically. Many sequences naming a struct's first field: a scan of
 * the struct each (20000 in 270 KB: 4 s), now at most 2^24 names compared
 * in all (GCS_ERR_LIMIT); 2000 of them parse as before. */
static void test_many_events_and_paths(void)
{
    const size_t events = 12000;
    char *text = malloc(events * 32 + 64);
    size_t n = (size_t)sprintf(text, "/* CTF 1.8 */");
    for (size_t i = 0; i < events; i++)
        n += (size_t)sprintf(text + n, " event { id = %zu; };", i);
    gcs_error err;
    double seconds;
    CHECK_EQ_INT(parse_timed(text, &err, &seconds), GCS_OK);
    CHECK(seconds < 2.0);
    static const size_t seqs[] = {2000, 20000};
    for (size_t k = 0; k < 2; k++) {
        text = malloc(seqs[k] * 24 + 256);
        n = (size_t)sprintf(text, "/* CTF 1.8 */ typealias integer { size = 8; align = 8; } := u8;"
                                  " event { name = \"x\"; fields := struct { u8 n;");
        for (size_t i = 0; i < seqs[k]; i++)
            n += (size_t)sprintf(text + n, " u8 s%zu[n];", i);
        sprintf(text + n, " }; };");
        gcs_status st = parse_timed(text, &err, &seconds);
        CHECK_EQ_INT(st, k == 0 ? GCS_OK : GCS_ERR_LIMIT);
        if (k == 1)
            CHECK(strstr(err.reason, "field names compared resolving lengths and tags") != NULL);
        CHECK(seconds < 2.0);
    }
}

/* A struct of fixed-size fields whose sizes add up past 2^64 bits: eight
 * arrays of (2^24 - 1) x 2^24 x 1024 bytes, one of 2^24 x 8192 and a
 * 32-bit integer are 2^64 + 32 bits, which wrapped to 32: each 4 bytes of
 * the packet were read as one such event (found reading the fixed-layout
 * path, merged from main, for fuzz_ctfread). Now the event runs past its
 * packet, as its layout says. */
static void test_fixed_sizes_past_2_64(void)
{
    char text[4096];
    int n = snprintf(text, sizeof text, "%s event { name = \"w:wrap\"; id = 0; fields := struct {",
                     TRACE_HEAD);
    for (int i = 0; i < 8; i++)
        n += snprintf(text + n, sizeof text - (size_t)n, " uint8_t _a%d[16777215][16777216][1024];", i);
    snprintf(text + n, sizeof text - (size_t)n, " uint8_t _b[16777216][8192]; uint32_t _x; }; };");
    static const uint8_t events[] = {1, 2, 3, 4, 5, 6, 7, 8};
    result res;
    read_packet(text, events, sizeof events, 64, &res);
    CHECK_EQ_INT(res.status, GCS_ERR_CORRUPT);
    CHECK_EQ_U64(res.events, 0);
    CHECK(strstr(res.err.reason, "an event that runs past its packet's content") != NULL);
}

/* Fields of whole bytes aligned to 1 bit, after an event header of 3 bits:
 * the fields start at bit 3 (CTF: no padding for alignment 1), but the
 * fixed-layout shortcut (fields pointed at in the packet, merged from
 * main) took them from the next byte: "adc2",
 * then an error, where babeltrace2 reads "aa55", "0ff0" (tests/tools/
 * ctf_dump on both readers). Now walked where they do not start at a
 * byte. */
static void test_fixed_fields_not_at_a_byte(void)
{
    char text[4096];
    snprintf(text, sizeof text, "%s", TRACE_HEAD);
    char *stream = strstr(text, "stream { id = 0;");
    CHECK(stream != NULL);
    if (!stream)
        return;
    snprintf(stream, sizeof text - (size_t)(stream - text),
             "stream { id = 0; packet.context := struct packet_context;"
             " event.header := struct { integer { size = 3; align = 1; } id; }; };"
             " event { name = \"b:bits\"; id = 0; fields := struct {"
             " integer { size = 8; align = 1; } _x; integer { size = 8; align = 1; } _y; }; };");
    /* Eight events of 19 bits, little-endian bit order: id 0 in bits 0-2,
     * x = 0xA0 + k in bits 3-10, y = 0x50 + k in bits 11-18; 19 bytes. */
    uint8_t events[19] = {0};
    for (unsigned k = 0; k < 8; k++) {
        uint32_t event = (uint32_t)(0xA0 + k) << 3 | (uint32_t)(0x50 + k) << 11;
        for (unsigned bit = 0; bit < 19; bit++)
            if (event >> bit & 1)
                events[(19 * k + bit) / 8] |= (uint8_t)(1u << ((19 * k + bit) % 8));
    }
    result res;
    read_packet(text, events, sizeof events, 128, &res);
    CHECK_EQ_INT(res.status, GCS_END);
    CHECK_EQ_U64(res.events, 8);
    CHECK_EQ_U64(res.payload_size[0], 2);
    CHECK_EQ_U64(res.payload[0][0], 0xA0);
    CHECK_EQ_U64(res.payload[0][1], 0x50);
    CHECK_EQ_U64(res.payload[7][0], 0xA7);
    CHECK_EQ_U64(res.payload[7][1], 0x57);
    CHECK_EQ_INT(res.scan_status, GCS_END); /* the counting path skips them alike */
    CHECK_EQ_U64(res.scan_events, 8);
}

/* A scope given a value instead of a type ("packet.header = 5;"): the
 * parser took the missing type for one (NULL dereference, found by
 * fuzz_ctfread at 20:07, docs/fuzzing.md finding 22). Beyond our subset now, in each block. */
static void test_scope_given_a_value(void)
{
    static const char *const texts[] = {
        "/* CTF 1.8 */ trace { major = 1; minor = 8; packet.header = 5; };",
        "/* CTF 1.8 */ stream { id = 0; event.header = 5; };",
        "/* CTF 1.8 */ stream { id = 0; packet.context = x; };",
        "/* CTF 1.8 */ event { name = \"e\"; id = 0; fields = 3; };",
        "/* CTF 1.8 */ event { name = \"e\"; id = 0; context = 3; };",
    };
    for (size_t i = 0; i < sizeof texts / sizeof *texts; i++) {
        gcs_error err;
        CHECK_EQ_INT(parse(texts[i], &err), GCS_ERR_UNSUPPORTED);
        CHECK(strstr(err.reason, "scope that is no struct") ||
              strstr(err.reason, "packet header that is no struct"));
    }
}

int main(void)
{
    RUN(test_event_of_no_bits);
    RUN(test_elements_of_no_bits);
    RUN(test_variant_tag_names_its_own_root);
    RUN(test_payload_beyond_cap);
    RUN(test_blob_without_header);
    RUN(test_clock_offset_at_the_limit);
    RUN(test_header_of_shared_types);
    RUN(test_tree_of_empty_structs);
    RUN(test_enum_of_enum_chain);
    RUN(test_many_type_names);
    RUN(test_many_events_and_paths);
    RUN(test_fixed_sizes_past_2_64);
    RUN(test_fixed_fields_not_at_a_byte);
    RUN(test_scope_given_a_value);
    return check_report("test_ctf_hostile");
}
