/*
 * ctf_text.h - the metadata text the hand-made CTF traces of the unit
 * tests start with: LTTng's packet header (magic, stream_id) and packet
 * context, a 1 GHz clock, and 8/32/64-bit unsigned integers. A test adds
 * its stream block (event header or not) and its event classes. And the
 * folder such a trace is written to.
 */
#ifndef GCS_TESTS_CTF_TEXT_H
#define GCS_TESTS_CTF_TEXT_H

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

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
    char path[4200];
    snprintf(path, sizeof path, "%s/metadata", dir);
    unlink(path);
    snprintf(path, sizeof path, "%s/channel0_0", dir);
    unlink(path);
    rmdir(dir);
}

#endif
