/*
 * rows_synthetic - writes a small nettrace V4 trace whose metadata and
 * event rows are uncompressed (block Flags 0) and whose sizes are not
 * multiples of 4, or a netperf V3 stream of the same events, to check how
 * rows follow each other in such blocks.
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
 *   rows_synthetic --netperf-v3 [--padded] OUT
 *                                 the same events as a netperf V3 stream
 *                                 (.NET Core 2.1's format; metadata events
 *                                 inline), unpadded or padded the same way
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

/* The metadata payload defining metadata id i + 1 (V3-V5 layout). */
static void metadata_payload(bb *m, size_t i)
{
    memset(m, 0, sizeof *m);
    bb_u32(m, (uint32_t)i + 1);
    bb_utf16z(m, "Synth-Rows");
    bb_u32(m, defs[i].event_id);
    bb_utf16z(m, defs[i].name);
    bb_u64(m, 0); /* keywords */
    bb_u32(m, 0); /* version */
    bb_u32(m, 4); /* level */
    bb_u32(m, defs[i].nfields);
    for (unsigned f = 0; f < defs[i].nfields; f++) {
        bb_u32(m, defs[i].fields[f].type);
        bb_utf16z(m, defs[i].fields[f].name);
    }
}

/* QPC in microseconds; 8-byte pointers, pid 4343, 2 processors. */
static const tb_trace trace = {{2026, 11, 1, 23, 12, 0, 0, 0}, 1000, 1000000, 8, 4343, 2, 1000};

#define BLOCKS 2
#define ROUNDS 3 /* per block */

/* Event k (0 .. BLOCKS * ROUNDS * NDEFS - 1): its type, thread (70 or
 * 71) and time (1 ms apart). */
static size_t event_type(uint32_t k) { return k % NDEFS; }
static uint32_t event_thread(uint32_t k) { return k % 2; }
static uint64_t event_ts(uint32_t k) { return 2000 + 1000 * (uint64_t)k; }

static void write_nettrace(bb *b, int padded)
{
    static bb body, m, p;
    tb_nettrace_start(b, &trace);

    /* One MetadataBlock, its rows back to back. */
    tb_block_header(&body, 0);
    for (size_t i = 0; i < NDEFS; i++) {
        metadata_payload(&m, i);
        const tb_row row = {0, 0, 0, 0, 0, 0, 1000, NULL};
        tb_row_v4(&body, &row, m.data, (uint32_t)m.len, padding_for((uint32_t)m.len, padded));
    }
    tb_block_object(b, "MetadataBlock", 2, &body);

    uint32_t k = 0, seq[2] = {0, 0};
    for (int block = 0; block < BLOCKS; block++) {
        memset(&body, 0, sizeof body);
        tb_block_header(&body, 0);
        for (int n = 0; n < ROUNDS * (int)NDEFS; n++, k++) {
            const size_t i = event_type(k);
            const uint32_t thread = event_thread(k);
            memset(&p, 0, sizeof p);
            event_payload(&p, &defs[i], k);
            const tb_row row = {(uint32_t)i + 1, ++seq[thread], 70 + thread, 70 + thread,
                                thread, 0, event_ts(k), NULL};
            tb_row_v4(&body, &row, p.data, (uint32_t)p.len, padding_for((uint32_t)p.len, padded));
        }
        tb_block_object(b, "EventBlock", 2, &body);
    }
    bb_u8(b, 1); /* NullReference: end of stream */
}

/* One netperf event, padded as the runtime pads (the row after EventSize
 * to a multiple of 4, counted in EventSize) if asked. */
static void netperf_row(bb *b, uint32_t metadata_id, uint32_t tid, uint64_t ts, const bb *p,
                        int padded)
{
    size_t at = b->len;
    tb_netperf_event(b, metadata_id, tid, ts, NULL, p->data, (uint32_t)p->len, 0);
    while (padded && (b->len - at) % 4)
        bb_u8(b, 0);
    bb_patch_u32(b, at, (uint32_t)(b->len - at - 4));
}

static void write_netperf_v3(bb *b, int padded)
{
    static bb body, m, p;
    tb_trace_object(b, TB_BEGIN_OBJECT, 3, 0, &trace);

    /* Each EventBlock: the metadata events first (in the first block),
     * then the events. */
    uint32_t k = 0;
    for (int block = 0; block < BLOCKS; block++) {
        memset(&body, 0, sizeof body);
        for (size_t i = 0; block == 0 && i < NDEFS; i++) {
            metadata_payload(&m, i);
            netperf_row(&body, 0, 0, 1000, &m, padded);
        }
        for (int n = 0; n < ROUNDS * (int)NDEFS; n++, k++) {
            const size_t i = event_type(k);
            memset(&p, 0, sizeof p);
            event_payload(&p, &defs[i], k);
            netperf_row(&body, (uint32_t)i + 1, 70 + event_thread(k), event_ts(k), &p, padded);
        }
        tb_block_object_tagged(b, TB_BEGIN_OBJECT, "EventBlock", 1, 0, &body);
    }
    bb_u8(b, 1); /* NullReference: end of stream */
}

int main(int argc, char **argv)
{
    int netperf = 0, padded = 0, a = 1;
    for (; a < argc - 1; a++) {
        if (strcmp(argv[a], "--netperf-v3") == 0)
            netperf = 1;
        else if (strcmp(argv[a], "--padded") == 0)
            padded = 1;
        else
            break;
    }
    if (a != argc - 1) {
        fprintf(stderr, "usage: rows_synthetic [--netperf-v3] [--padded] OUT\n");
        return 2;
    }
    bb *b = calloc(1, sizeof *b);
    if (netperf)
        write_netperf_v3(b, padded);
    else
        write_nettrace(b, padded);
    int rc = bb_write_file(b, argv[a]);
    free(b);
    return rc;
}
