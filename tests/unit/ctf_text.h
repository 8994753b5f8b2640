/*
 * ctf_text.h - the metadata text the hand-made CTF traces of the unit
 * tests start with: LTTng's packet header (magic, stream_id) and packet
 * context, a 1 GHz clock, and 8/32/64-bit unsigned integers. A test adds
 * its stream block (event header or not) and its event classes.
 */
#ifndef GCS_TESTS_CTF_TEXT_H
#define GCS_TESTS_CTF_TEXT_H

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

#endif
