/*
 * trace_builder.h - writers of the pieces of hand-made nettrace V4/V5 and
 * netperf traces (FastSerialization objects, blocks, uncompressed rows,
 * netperf events), over byte_builder.h. Shared by the unit tests and the
 * fixture writers in tests/tools so that every synthetic trace frames its
 * objects the same way. Layouts: docs/format-nettrace.md.
 */
#ifndef GCS_TESTS_TRACE_BUILDER_H
#define GCS_TESTS_TRACE_BUILDER_H

#include "byte_builder.h"

/* FastSerialization tags. */
#define TB_BEGIN_OBJECT 4         /* netperf objects */
#define TB_BEGIN_PRIVATE_OBJECT 5 /* nettrace objects */
#define TB_END_OBJECT 6

/* An object header: Begin tag, its type object (Begin tag, NullReference,
 * Version, MinimumReaderVersion, name, EndObject). */
static inline void tb_object_head_tagged(bb *b, uint8_t begin_tag, const char *name,
                                         uint32_t version, uint32_t min_version)
{
    bb_u8(b, begin_tag);
    bb_u8(b, begin_tag);
    bb_u8(b, 1);
    bb_u32(b, version);
    bb_u32(b, min_version);
    bb_u32(b, (uint32_t)strlen(name));
    bb_bytes(b, name, strlen(name));
    bb_u8(b, TB_END_OBJECT);
}

/* A nettrace object header (BeginPrivateObject). */
static inline void tb_object_head(bb *b, const char *name, uint32_t version, uint32_t min_version)
{
    tb_object_head_tagged(b, TB_BEGIN_PRIVATE_OBJECT, name, version, min_version);
}

/* The stream header of netperf V1/V2 ("!FastSerialization.1") and the head
 * of its single object, Microsoft.DotNet.Runtime.EventPipeFile, up to its
 * payload. */
static inline void tb_netperf_inline_head(bb *b, uint32_t version)
{
    bb_u32(b, 20);
    bb_bytes(b, "!FastSerialization.1", 20);
    tb_object_head_tagged(b, TB_BEGIN_OBJECT, "Microsoft.DotNet.Runtime.EventPipeFile", version, 0);
}

/* A block object: BlockSize, zero padding to a 4-byte offset in b, the
 * body, EndObject. */
static inline void tb_block_object_tagged(bb *b, uint8_t begin_tag, const char *name,
                                          uint32_t version, uint32_t min_version, const bb *body)
{
    tb_object_head_tagged(b, begin_tag, name, version, min_version);
    bb_u32(b, (uint32_t)body->len);
    while (b->len % 4)
        bb_u8(b, 0);
    bb_bytes(b, body->data, body->len);
    bb_u8(b, TB_END_OBJECT);
}

/* A nettrace block object (block version 2). */
static inline void tb_block_object(bb *b, const char *name, uint32_t min_version, const bb *body)
{
    tb_block_object_tagged(b, TB_BEGIN_PRIVATE_OBJECT, name, 2, min_version, body);
}

/* The Trace object's fields after SyncTimeUTC (nettrace V4/V5). */
typedef struct tb_trace {
    uint16_t sync_time_utc[8]; /* SYSTEMTIME: year, month, weekday, day, h, m, s, ms */
    uint64_t sync_time_qpc, qpc_frequency;
    uint32_t pointer_size, pid, cpu_count, sampling_rate;
} tb_trace;

/* The stream header and a Trace object (netperf V3: BeginObject, version
 * 3; nettrace: BeginPrivateObject, version 4). */
static inline void tb_trace_object(bb *b, uint8_t begin_tag, uint32_t version,
                                   uint32_t min_version, const tb_trace *t)
{
    bb_u32(b, 20);
    bb_bytes(b, "!FastSerialization.1", 20);
    tb_object_head_tagged(b, begin_tag, "Trace", version, min_version);
    for (int i = 0; i < 8; i++)
        bb_u16(b, t->sync_time_utc[i]);
    bb_u64(b, t->sync_time_qpc);
    bb_u64(b, t->qpc_frequency);
    bb_u32(b, t->pointer_size);
    bb_u32(b, t->pid);
    bb_u32(b, t->cpu_count);
    bb_u32(b, t->sampling_rate);
    bb_u8(b, TB_END_OBJECT);
}

/* Magic, stream header and the Trace object (version 4) of a nettrace. */
static inline void tb_nettrace_start(bb *b, const tb_trace *t)
{
    bb_bytes(b, "Nettrace", 8);
    tb_trace_object(b, TB_BEGIN_PRIVATE_OBJECT, 4, 4, t);
}

/* The 20-byte header of an EventBlock or MetadataBlock body (flags bit 0:
 * header compression), timestamps zero. */
static inline void tb_block_header(bb *body, uint16_t flags)
{
    bb_u16(body, 20);
    bb_u16(body, flags);
    bb_u64(body, 0);
    bb_u64(body, 0);
}

/* The tail shared by uncompressed rows and netperf events: ActivityId (16
 * bytes, or zeros for NULL), RelatedActivityId (zeros), PayloadSize and
 * the n payload bytes. */
static inline void tb_activity_and_payload(bb *b, const uint8_t *activity, const uint8_t *payload,
                                           uint32_t n)
{
    if (activity)
        bb_bytes(b, activity, 16);
    else
        bb_zeros(b, 16);
    bb_zeros(b, 16);
    bb_u32(b, n);
    if (n)
        bb_bytes(b, payload, n);
}

/* The header fields of an uncompressed V4/V5 row. */
typedef struct tb_row {
    uint32_t raw_metadata_id; /* high bit set: not sorted */
    uint32_t sequence;
    uint64_t tid, capture_tid;
    uint32_t processor, stack_id;
    uint64_t timestamp;
    const uint8_t *activity; /* 16 bytes, or NULL for zeros; related: zeros */
} tb_row;

/* One uncompressed row: the 80-byte header, n payload bytes, then
 * padding zero bytes that EventSize counts (the runtime pads the row to a
 * multiple of 4 this way; TraceEvent's own writer adds none). */
static inline void tb_row_v4(bb *body, const tb_row *row, const uint8_t *payload, uint32_t n,
                             uint32_t padding)
{
    bb_u32(body, 76 + n + padding); /* EventSize: the row after this field */
    bb_u32(body, row->raw_metadata_id);
    bb_u32(body, row->sequence);
    bb_u64(body, row->tid);
    bb_u64(body, row->capture_tid);
    bb_u32(body, row->processor);
    bb_u32(body, row->stack_id);
    bb_u64(body, row->timestamp);
    tb_activity_and_payload(body, row->activity, payload, n);
    bb_zeros(body, padding);
}

/* One netperf V1..V3 event: header, payload, StackSize and stack_bytes
 * bytes of 0xEE, no padding. activity: 16 bytes or NULL for zeros. */
static inline void tb_netperf_event(bb *b, uint32_t metadata_id, uint32_t tid, uint64_t ts,
                                    const uint8_t *activity, const uint8_t *payload, uint32_t n,
                                    uint32_t stack_bytes)
{
    bb_u32(b, 52 + n + 4 + stack_bytes);
    bb_u32(b, metadata_id);
    bb_u32(b, tid);
    bb_u64(b, ts);
    tb_activity_and_payload(b, activity, payload, n);
    bb_u32(b, stack_bytes);
    for (uint32_t i = 0; i < stack_bytes; i++)
        bb_u8(b, 0xEE);
}

#endif
