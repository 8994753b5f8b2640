/*
 * format/netperf/netperf.c - netperf V1..V3 (.NET Core 2.x).
 *
 * Every version stores events in one fixed layout (56-byte header):
 *   int32 EventSize (bytes after this field: header rest, payload, stack,
 *         padding), int32 MetadataId, int32 ThreadId, int64 TimeStamp,
 *   GUID ActivityId, GUID RelatedActivityId, int32 PayloadSize,
 *   payload, int32 StackSize, StackSize bytes of stack, padding.
 * Metadata travels inline as events with MetadataId 0.
 * V3 puts events in EventBlock objects (fastser.c framing). V1/V2 write
 * them straight inside the Trace object, after its fields, up to the
 * object's EndObject(6) and a forward-reference table; there an
 * event's MetadataId is the input offset of its metadata event.
 * Events are written in timestamp order and there are no sequence points.
 */
#include <string.h>

#include "base/error.h"
#include "format/eventpipe_metadata.h"
#include "format/fastser.h"

#define V3_HEADER_SIZE 56u
/* The header plus the StackSize field. */
#define V3_MIN_EVENT_BYTES (V3_HEADER_SIZE + 4u)

/* A counting sink (sink->tally): counts the row when its slot says so
 * (see gcs_tally); false when it goes to sink->event. Netperf rows carry
 * no sequence numbers, so there are no runs to report. */
static inline bool tally_row(gcs_tally *t, uint32_t metadata_id, const gcs_cursor *payload,
                             uint32_t size, int64_t timestamp)
{
    if (metadata_id == 0 || metadata_id >= t->n_slots)
        return false;
    gcs_tally_slot *slot = &t->slots[metadata_id];
    if (!gcs_tally_takes(slot, payload, size))
        return false;
    slot->count++;
    t->short_rows += size < slot->min_size;
    if (t->rows++ == 0) {
        t->first_timestamp = t->last_timestamp = timestamp;
    } else {
        t->first_timestamp = timestamp < t->first_timestamp ? timestamp : t->first_timestamp;
        t->last_timestamp = timestamp > t->last_timestamp ? timestamp : t->last_timestamp;
    }
    return true;
}

/* Parses one event whose EventSize field starts at c; steps over it. The
 * header's fields are read from one sub-cursor of its 56 bytes (one check
 * for them all). */
static gcs_status parse_event(gcs_fs_reader *r, gcs_cursor *c, gcs_error *err)
{
    const gcs_sink *sink = r->base.sink;
    uint64_t at = gcs_cur_offset(c);
    uint32_t event_size, metadata_id, tid, payload_size;
    uint64_t timestamp;
    const uint8_t *activity, *related;
    gcs_cursor h;
    if (!gcs_cur_sub(c, V3_HEADER_SIZE, &h))
        return GCS_CORRUPT(err, at, "netperf event header cut short");
    (void)(gcs_cur_u32(&h, &event_size) && gcs_cur_u32(&h, &metadata_id) &&
           gcs_cur_u32(&h, &tid) && gcs_cur_u64(&h, &timestamp) &&
           gcs_cur_bytes(&h, 16, &activity) && gcs_cur_bytes(&h, 16, &related) &&
           gcs_cur_u32(&h, &payload_size)); /* the 56 bytes are there */
    uint64_t total = (uint64_t)event_size + 4;
    if (total < V3_MIN_EVENT_BYTES || total - V3_HEADER_SIZE > gcs_cur_left(c))
        return GCS_CORRUPT(err, at, "netperf EventSize %u is invalid here", event_size);
    size_t rest = (size_t)(total - V3_HEADER_SIZE); /* payload + stack + padding */
    if (payload_size > rest - 4)
        return GCS_CORRUPT(err, at + 52, "netperf PayloadSize %u exceeds EventSize %u",
                           payload_size, event_size);
    const gcs_cursor at_payload = *c;
    uint64_t payload_at = gcs_cur_offset(c);
    const uint8_t *payload = NULL;
    uint32_t stack_size = 0;
    (void)gcs_cur_bytes(c, payload_size, &payload);
    (void)gcs_cur_u32(c, &stack_size);
    if (stack_size > rest - 4 - payload_size)
        return GCS_CORRUPT(err, gcs_cur_offset(c) - 4, "netperf stack of %u bytes exceeds the event",
                           stack_size);
    (void)gcs_cur_skip(c, rest - 4 - payload_size);
    if (sink->tally && tally_row(sink->tally, metadata_id, &at_payload, payload_size,
                                 (int64_t)timestamp))
        return GCS_OK;

    gcs_status st;
    if (metadata_id == 0) {
        gcs_cursor mc = gcs_cur_make(payload, payload_size, payload_at);
        gcs_meta_def def;
        gcs_error problem;
        st = gcs_ep_metadata_parse(&mc, r->version, (uint32_t)at, r->base.sink->meta_arena, &def,
                                   &problem, err);
        if (st != GCS_OK)
            return st;
        return gcs_fs_report_metadata(r, &def, &problem, err);
    }
    gcs_raw_event ev;
    memset(&ev, 0, sizeof ev);
    ev.metadata_id = metadata_id;
    ev.is_sorted = true; /* netperf writers merged their buffers by time */
    ev.pid = r->info.pid;
    ev.tid = tid;
    ev.capture_tid = tid;
    ev.timestamp = (int64_t)timestamp;
    ev.activity_id = activity;
    ev.related_activity_id = related;
    ev.payload = payload;
    ev.payload_size = payload_size;
    ev.offset = at;
    if (sink->event && (st = sink->event(sink->ctx, &ev, err)) < 0)
        return st;
    return GCS_OK;
}

static gcs_status netperf_parse_block(gcs_fs_reader *r, gcs_fs_kind kind, gcs_cursor *body,
                                      gcs_error *err)
{
    if (kind != GCS_FS_EVENT_BLOCK) {
        gcs_fs_anomaly(r, gcs_cur_offset(body), "netperf: unexpected block type skipped");
        return GCS_OK;
    }
    while (gcs_cur_left(body) > 0) {
        gcs_status st = parse_event(r, body, err);
        if (st < 0)
            return st;
    }
    return GCS_OK;
}

/* V1/V2 end: the Trace object's EndObject(6), then the forward-reference
 * table: int32 count, then count stream labels (int32 offsets), the first
 * of which is the offset of that EndObject (where the events ended). */
#define END_MARK_BYTES 9u
#define MAX_FORWARD_REFERENCES (1u << 20)

static gcs_status netperf_inline_step(gcs_fs_reader *r, gcs_error *err)
{
    gcs_stream *s = r->base.stream;
    uint64_t at = gcs_stream_offset(s);
    gcs_status st = gcs_stream_need(s, 1, err);
    if (st == GCS_END)
        return GCS_FAIL(err, GCS_ERR_TRUNCATED, at,
                        "truncated: netperf V%u events end at offset %llu without the end mark",
                        r->version, (unsigned long long)at);
    if (st != GCS_OK)
        return st;
    const uint8_t *p = gcs_stream_peek(s);
    if (p[0] == 6) {
        /* An event starting with byte 6 has EventSize 6 + 256k, never
         * followed by this exact signature. */
        if ((st = gcs_fs_need(r, END_MARK_BYTES, at, "the netperf end mark", err)) != GCS_OK)
            return st;
        p = gcs_stream_peek(s);
        uint32_t count = (uint32_t)p[1] | ((uint32_t)p[2] << 8) | ((uint32_t)p[3] << 16) |
                         ((uint32_t)p[4] << 24);
        uint32_t label = (uint32_t)p[5] | ((uint32_t)p[6] << 8) | ((uint32_t)p[7] << 16) |
                         ((uint32_t)p[8] << 24);
        if (count >= 1 && count <= MAX_FORWARD_REFERENCES && label == (uint32_t)at) {
            gcs_stream_consume(s, 1);
            r->stage = GCS_FS_STAGE_DONE;
            return GCS_END;
        }
    }
    if ((st = gcs_fs_need(r, 4, at, "a netperf event", err)) != GCS_OK)
        return st;
    p = gcs_stream_peek(s);
    uint64_t total = ((uint64_t)p[0] | ((uint64_t)p[1] << 8) | ((uint64_t)p[2] << 16) |
                      ((uint64_t)p[3] << 24)) + 4;
    if (total < V3_MIN_EVENT_BYTES)
        return GCS_CORRUPT(err, at, "netperf EventSize %llu too small",
                           (unsigned long long)(total - 4));
    if (total > GCS_MAX_BLOCK_SIZE)
        return GCS_FAIL(err, GCS_ERR_LIMIT, at, "netperf event of %llu bytes exceeds the limit",
                        (unsigned long long)total);
    if ((st = gcs_fs_need(r, (size_t)total, at, "a netperf event", err)) != GCS_OK)
        return st;
    gcs_cursor c = gcs_cur_make(gcs_stream_peek(s), (size_t)total, at);
    if ((st = parse_event(r, &c, err)) < 0)
        return st;
    gcs_stream_consume(s, (size_t)total);
    return GCS_OK;
}

gcs_status gcs_netperf_open(gcs_stream *s, const gcs_sink *sink, gcs_container **out,
                            gcs_error *err)
{
    return gcs_fs_create(s, sink, false, netperf_parse_block, netperf_inline_step, out, err);
}
