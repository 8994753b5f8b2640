/*
 * rows_synthetic - writes a small nettrace V4 trace whose metadata and
 * event rows are uncompressed (block Flags 0) and whose sizes are not
 * multiples of 4, to check how rows follow each other in such blocks.
 * scripts/record-rows-fixtures.sh runs it and asks the oracle what
 * TraceEvent reads.
 *
 *   rows_synthetic OUT            rows back to back, EventSize = 76 +
 *                                 PayloadSize (as TraceEvent's test writer
 *                                 lays them out)
 *   rows_synthetic --padded OUT   the same rows padded to a multiple of 4,
 *                                 the padding counted in EventSize (as the
 *                                 runtime lays out the uncompressed rows it
 *                                 writes, which are netperf V3's)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "unit/trace_builder.h"

/* EventPipe type codes (TypeCode). */
enum { TC_BYTE = 6, TC_UINT16 = 8, TC_INT32 = 9, TC_STRING = 18 };

typedef struct field {
    uint32_t type;
    const char *name;
} field;

typedef struct event_def {
    uint32_t event_id;
    const char *name;
    field fields[3];
    unsigned nfields;
} event_def;

/* Payloads of 1, 3, 5, 6, 7, 0 and 6 or 8 bytes. */
static const event_def defs[] = {
    {1, "OneByte", {{TC_BYTE, "b"}}, 1},
    {2, "Short", {{TC_UINT16, "s"}, {TC_BYTE, "b"}}, 2},
    {3, "Mixed", {{TC_INT32, "i"}, {TC_BYTE, "b"}}, 2},
    {4, "Wide", {{TC_INT32, "i"}, {TC_UINT16, "s"}}, 2},
    {5, "Seven", {{TC_INT32, "i"}, {TC_UINT16, "s"}, {TC_BYTE, "b"}}, 3},
    {6, "Empty", {{0, NULL}}, 0},
    {7, "Text", {{TC_STRING, "t"}}, 1},
};
#define NDEFS (sizeof defs / sizeof defs[0])

static uint32_t padding_for(uint32_t n, int padded)
{
    return padded ? (4 - (76 + n) % 4) % 4 : 0;
}

/* The payload of event k of type d: each field a value derived from k. */
static void event_payload(bb *p, const event_def *d, uint32_t k)
{
    for (unsigned f = 0; f < d->nfields; f++) {
        switch (d->fields[f].type) {
        case TC_BYTE:
            bb_u8(p, (uint8_t)(0x40 + k));
            break;
        case TC_UINT16:
            bb_u16(p, (uint16_t)(1000 + k));
            break;
        case TC_INT32:
            bb_u32(p, 100000 + k);
            break;
        case TC_STRING:
            bb_utf16z(p, k % 2 ? "ab" : "abc");
            break;
        }
    }
}

int main(int argc, char **argv)
{
    int padded = argc == 3 && strcmp(argv[1], "--padded") == 0;
    if (argc != 2 && !padded) {
        fprintf(stderr, "usage: rows_synthetic [--padded] OUT\n");
        return 2;
    }
    const char *out = argv[argc - 1];
    bb *b = calloc(1, sizeof *b);
    bb *body = calloc(1, sizeof *body);
    static bb m, p;
    const tb_trace t = {{2026, 11, 1, 23, 12, 0, 0, 0}, 1000, 1000000, 8, 4343, 2, 1000};
    tb_nettrace_start(b, &t);

    /* One MetadataBlock, its rows back to back; row i defines id i + 1. */
    tb_block_header(body, 0);
    for (size_t i = 0; i < NDEFS; i++) {
        memset(&m, 0, sizeof m);
        bb_u32(&m, (uint32_t)i + 1);
        bb_utf16z(&m, "Synth-Rows");
        bb_u32(&m, defs[i].event_id);
        bb_utf16z(&m, defs[i].name);
        bb_u64(&m, 0); /* keywords */
        bb_u32(&m, 0); /* version */
        bb_u32(&m, 4); /* level */
        bb_u32(&m, defs[i].nfields);
        for (unsigned f = 0; f < defs[i].nfields; f++) {
            bb_u32(&m, defs[i].fields[f].type);
            bb_utf16z(&m, defs[i].fields[f].name);
        }
        const tb_row row = {0, 0, 0, 0, 0, 0, 1000, NULL};
        tb_row_v4(body, &row, m.data, (uint32_t)m.len, padding_for((uint32_t)m.len, padded));
    }
    tb_block_object(b, "MetadataBlock", 2, body);

    /* Two EventBlocks of three rounds each, two threads, 1 ms apart. */
    uint32_t k = 0, seq[2] = {0, 0};
    for (int block = 0; block < 2; block++) {
        memset(body, 0, sizeof *body);
        tb_block_header(body, 0);
        for (int round = 0; round < 3; round++)
            for (size_t i = 0; i < NDEFS; i++, k++) {
                memset(&p, 0, sizeof p);
                event_payload(&p, &defs[i], k);
                const uint32_t thread = k % 2;
                const tb_row row = {(uint32_t)i + 1, ++seq[thread], 70 + thread, 70 + thread,
                                    thread, 0, 2000 + 1000 * (uint64_t)k, NULL};
                tb_row_v4(body, &row, p.data, (uint32_t)p.len, padding_for((uint32_t)p.len, padded));
            }
        tb_block_object(b, "EventBlock", 2, body);
    }
    bb_u8(b, 1); /* NullReference: end of stream */

    int rc = bb_write_file(b, out);
    free(body);
    free(b);
    return rc;
}
