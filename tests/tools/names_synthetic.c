/*
 * names_synthetic - writes tests/data/names/synthetic-v4.nettrace: a small
 * nettrace V4 trace (the format of .NET Core 3.0 to 5) whose metadata rows
 * probe how TraceEvent names events: TPL and sample-profiler events (which
 * TraceLog names with parsers of its own) with metadata that agrees or
 * disagrees with those parsers' opcodes, TPL ids no parser knows, an
 * EventSource with a custom opcode, and runtime events TraceEvent has no
 * template for. scripts/record-names-fixtures.sh runs it and asks the oracle
 * what TraceEvent makes of it.
 *
 *   names_synthetic OUT
 *   names_synthetic --netperf-v1 OUT
 *
 * The second form writes synthetic-v1.netperf, a netperf V1 stream (.NET
 * Core 2.0's first format, providers named by GUID only) with runtime,
 * sampler, TPL and unknown-provider events. TraceEvent 4.0.0 no longer
 * reads V1; the names it gave such events are in the PerfView baseline of
 * eventpipe-dotnetcore2.0-linux-objver1.netperf (see test_te_agreement).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "unit/trace_builder.h"

/* A block holding one uncompressed V4 row (no padding). */
static void block_with_row(bb *b, const char *name, uint32_t metadata_id, uint32_t seq,
                           uint64_t tid, uint64_t ts, const bb *payload)
{
    static bb body;
    memset(&body, 0, sizeof body);
    tb_block_header(&body, 0); /* flags: uncompressed rows */
    const tb_row row = {metadata_id, seq, tid, tid, 0, 0, ts, NULL};
    tb_row_v4(&body, &row, payload->data, (uint32_t)payload->len, 0);
    tb_block_object(b, name, 2, &body);
}

typedef struct meta_row {
    const char *provider;
    uint32_t event_id;
    const char *name;
    uint32_t version;
    int opcode;              /* -1: no OpCode tag */
    const char *int_field;   /* one Int32 field, or NULL for none */
    uint32_t payload_bytes;  /* payload of its events */
} meta_row;

static const meta_row rows[] = {
    /* As .NET 5+ writes them: TraceEvent's TPL parser names them by id. */
    {"System.Threading.Tasks.TplEventSource", 10, "TaskWaitBegin", 0, 9, "TaskID", 4},
    {"System.Threading.Tasks.TplEventSource", 11, "TaskWaitEnd", 0, -1, "TaskID", 4},
    /* Metadata opcodes that disagree with the parser's (explicit; implied by "Start"). */
    {"System.Threading.Tasks.TplEventSource", 8, "TaskStarted", 0, 2, "TaskID", 4},
    {"System.Threading.Tasks.TplEventSource", 7, "TaskScheduledStart", 0, -1, "TaskID", 4},
    /* TPL ids the parser does not know: named from the metadata. */
    {"System.Threading.Tasks.TplEventSource", 25, "SetActivityId", 0, -1, "NewId", 4},
    {"System.Threading.Tasks.TplEventSource", 99, "FutureThingStop", 0, -1, NULL, 0},
    /* The sampler: no name, no fields, one int32 (2 = Managed). */
    {"Microsoft-DotNETCore-SampleProfiler", 0, "", 0, -1, NULL, 4},
    /* An EventSource with a custom opcode and one without any. */
    {"Synth-Names", 1, "Ping", 0, 240, "Id", 4},
    {"Synth-Names", 2, "Pong", 0, -1, "Id", 4},
    /* Runtime events without metadata: IncreaseMemoryPressure (u64 + u16). */
    {"Microsoft-Windows-DotNETRuntime", 200, "", 0, -1, NULL, 10},
};
#define NROWS (sizeof rows / sizeof rows[0])

/* One V1..V3 event, inline in the stream: header, payload, empty stack. */
static void netperf_event(bb *b, uint32_t metadata_id, uint32_t tid, uint64_t ts, const bb *p)
{
    tb_netperf_event(b, metadata_id, tid, ts, NULL, p->data, (uint32_t)p->len, 0);
}

typedef struct v1_row {
    uint8_t guid[16]; /* Windows byte order */
    uint32_t event_id;
    const char *name; /* NULL: no common part (runtime events) */
    const char *int_field;
    uint32_t payload_bytes;
} v1_row;

#define RUNTIME_GUID {0x23, 0x0d, 0x3c, 0xe1, 0xbc, 0xcc, 0x12, 0x4e, 0x93, 0x1b, 0xd9, 0xcc, 0x2e, 0xee, 0x27, 0xe4}
#define SAMPLER_GUID {0x44, 0x0d, 0x53, 0x3c, 0xae, 0x97, 0x3a, 0x51, 0x1e, 0x6d, 0x78, 0x3e, 0x8f, 0x8e, 0x03, 0xa9}
#define TPL_GUID {0x47, 0xba, 0x5d, 0x2e, 0xd2, 0xa3, 0x16, 0x4d, 0x8e, 0xe0, 0x66, 0x71, 0xff, 0xdc, 0xd7, 0xb5}
/* f150d8fb-960c-5e38-a69d-49bae6f97289: an EventSource of the objver1 trace. */
#define OTHER_GUID {0xfb, 0xd8, 0x50, 0xf1, 0x0c, 0x96, 0x38, 0x5e, 0xa6, 0x9d, 0x49, 0xba, 0xe6, 0xf9, 0x72, 0x89}

static const v1_row v1_rows[] = {
    {RUNTIME_GUID, 1, NULL, NULL, 8},   /* GC/Start v0: Count, Reason */
    {RUNTIME_GUID, 200, NULL, NULL, 10}, /* IncreaseMemoryPressure */
    {SAMPLER_GUID, 0, NULL, NULL, 4},
    {TPL_GUID, 7, "TaskScheduled", "TaskID", 4},
    {TPL_GUID, 8, "TaskStarted", "TaskID", 4},
    {TPL_GUID, 10, "TaskWaitBegin", "TaskID", 4},
    {OTHER_GUID, 1, "RequestStart", "url", 4},
};

static int write_netperf_v1(const char *path)
{
    bb *b = calloc(1, sizeof *b);
    tb_netperf_inline_head(b, 1);
    bb_u32(b, 0); /* forward reference index */
    const uint16_t st[8] = {2017, 9, 1, 18, 23, 4, 52, 582};
    for (int i = 0; i < 8; i++)
        bb_u16(b, st[i]);
    bb_u64(b, 1000);    /* QPC at start */
    bb_u64(b, 1000000); /* frequency: microseconds */

    /* Metadata events: their offset is their metadata id. */
    uint32_t ids[sizeof v1_rows / sizeof v1_rows[0]];
    for (size_t i = 0; i < sizeof v1_rows / sizeof v1_rows[0]; i++) {
        static bb m;
        memset(&m, 0, sizeof m);
        bb_bytes(&m, v1_rows[i].guid, 16);
        bb_u32(&m, v1_rows[i].event_id);
        bb_u32(&m, 0); /* version */
        if (!v1_rows[i].name) {
            bb_u32(&m, 0); /* no common part, no fields */
        } else {
            static bb rest;
            memset(&rest, 0, sizeof rest);
            bb_u32(&rest, v1_rows[i].event_id);
            bb_utf16z(&rest, v1_rows[i].name);
            bb_u64(&rest, 0);
            bb_u32(&rest, 0);
            bb_u32(&rest, 4);
            bb_u32(&rest, 1);
            bb_u32(&rest, v1_rows[i].int_field[0] == 'u' ? 18 : 9); /* String / Int32 */
            bb_utf16z(&rest, v1_rows[i].int_field);
            bb_u32(&m, (uint32_t)rest.len);
            bb_bytes(&m, rest.data, rest.len);
        }
        ids[i] = (uint32_t)b->len;
        netperf_event(b, 0, 0, 1000, &m);
    }
    uint64_t ts = 2000;
    for (int round = 0; round < 2; round++)
        for (size_t i = 0; i < sizeof v1_rows / sizeof v1_rows[0]; i++) {
            static bb p;
            memset(&p, 0, sizeof p);
            if (v1_rows[i].payload_bytes == 10) {
                bb_u64(&p, 1600);
                bb_u16(&p, 0);
            } else if (v1_rows[i].payload_bytes == 8) {
                bb_u32(&p, (uint32_t)round + 1);
                bb_u32(&p, 1); /* Induced */
            } else if (v1_rows[i].int_field && v1_rows[i].int_field[0] == 'u') {
                bb_utf16z(&p, "/");
            } else {
                bb_u32(&p, v1_rows[i].event_id == 0 ? 1 : (uint32_t)(100 + i));
            }
            netperf_event(b, ids[i], 77, ts, &p);
            ts += 1000;
        }
    size_t end = b->len;
    bb_u8(b, 6);  /* EndObject of the trace object */
    bb_u32(b, 1); /* forward-reference table: one label */
    bb_u32(b, (uint32_t)end);
    bb_u32(b, (uint32_t)end + 1);
    bb_u32(b, (uint32_t)end + 9);
    int rc = bb_write_file(b, path);
    free(b);
    return rc;
}

int main(int argc, char **argv)
{
    if (argc == 3 && strcmp(argv[1], "--netperf-v1") == 0)
        return write_netperf_v1(argv[2]);
    if (argc != 2) {
        fprintf(stderr, "usage: names_synthetic [--netperf-v1] OUT\n");
        return 2;
    }
    bb *b = calloc(1, sizeof *b);
    /* QPC in microseconds; 8-byte pointers, pid 4242, 2 processors. */
    const tb_trace t = {{2026, 11, 1, 23, 12, 0, 0, 0}, 1000, 1000000, 8, 4242, 2, 1000};
    tb_nettrace_start(b, &t);

    /* One row per block, so the naming checks do not depend on how rows
     * follow each other (that is rows_synthetic's subject). Metadata row
     * i defines metadata id i + 1. */
    for (size_t i = 0; i < NROWS; i++) {
        static bb m;
        memset(&m, 0, sizeof m);
        bb_u32(&m, (uint32_t)i + 1);
        bb_utf16z(&m, rows[i].provider);
        bb_u32(&m, rows[i].event_id);
        bb_utf16z(&m, rows[i].name);
        bb_u64(&m, 0);
        bb_u32(&m, rows[i].version);
        bb_u32(&m, 4);
        if (rows[i].int_field || rows[i].name[0]) {
            bb_u32(&m, rows[i].int_field ? 1 : 0);
            if (rows[i].int_field) {
                bb_u32(&m, 9); /* Int32 */
                bb_utf16z(&m, rows[i].int_field);
            }
        }
        if (rows[i].opcode >= 0) {
            bb_u32(&m, 1);
            bb_u8(&m, 1); /* OpCode tag */
            bb_u8(&m, (uint8_t)rows[i].opcode);
        }
        block_with_row(b, "MetadataBlock", 0, 0, 0, 1000, &m);
    }

    /* Two events of each kind, 1 ms apart. */
    uint32_t seq = 1;
    uint64_t ts = 2000;
    for (int round = 0; round < 2; round++)
        for (size_t i = 0; i < NROWS; i++) {
            static bb p;
            memset(&p, 0, sizeof p);
            if (rows[i].payload_bytes == 10) {
                bb_u64(&p, 1600 + (uint64_t)round);
                bb_u16(&p, 0);
            } else if (rows[i].payload_bytes == 4) {
                bb_u32(&p, rows[i].event_id == 0 ? 2 : (uint32_t)(100 + i));
            }
            block_with_row(b, "EventBlock", (uint32_t)i + 1, seq++, 77, ts, &p);
            ts += 1000;
        }
    bb_u8(b, 1); /* NullReference: end of stream */

    int rc = bb_write_file(b, argv[1]);
    free(b);
    return rc;
}
