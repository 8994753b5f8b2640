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

/* The fixed 56-byte header of an event. */
typedef struct event_head {
    uint32_t event_size, metadata_id, tid, payload_size;
    uint64_t timestamp;
    const uint8_t *activity, *related;
} event_head;

/* Reads the header from h, a cursor over its 56 bytes (one check made by
 * the caller for them all). */
static inline void read_head(gcs_cursor *h, event_head *e)
{
    (void)(gcs_cur_u32(h, &e->event_size) && gcs_cur_u32(h, &e->metadata_id) &&
           gcs_cur_u32(h, &e->tid) && gcs_cur_u64(h, &e->timestamp) &&
           gcs_cur_bytes(h, 16, &e->activity) && gcs_cur_bytes(h, 16, &e->related) &&
           gcs_cur_u32(h, &e->payload_size));
}

/*
 * A counting sink (sink->tally): events of slots marked counted, one after
 * another, counted here (see gcs_tally) with the tally's fields in locals.
 * Stops before the first event it does not count (metadata, a type the
 * sink wants to see, a row its slot does not take, a size parse_event
 * refuses), left unread to parse_event. Netperf rows carry no sequence
 * numbers: there are no runs to report.
 */
static void tally_events(gcs_cursor *block, gcs_tally *t)
{
    gcs_cursor c = *block;
    gcs_tally_slot *const slots = t->slots;
    const size_t n_slots = t->n_slots;
    uint64_t taken = 0, short_rows = 0;
    int64_t lo = t->rows ? t->first_timestamp : INT64_MAX;
    int64_t hi = t->rows ? t->last_timestamp : INT64_MIN;
    while (gcs_cur_left(&c) >= V3_MIN_EVENT_BYTES) {
        gcs_cursor row = c, h, payload;
        event_head e;
        uint32_t stack_size;
        (void)gcs_cur_sub(&row, V3_HEADER_SIZE, &h);
        read_head(&h, &e);
        /* parse_event's checks, in the same terms. */
        const uint64_t total = (uint64_t)e.event_size + 4;
        if (total < V3_MIN_EVENT_BYTES || total > gcs_cur_left(&c) ||
            e.payload_size > total - V3_MIN_EVENT_BYTES || e.metadata_id == 0 ||
            e.metadata_id >= n_slots)
            break;
        gcs_tally_slot *slot = &slots[e.metadata_id];
        if (!gcs_cur_sub(&row, e.payload_size, &payload) || !gcs_cur_u32(&row, &stack_size) ||
            stack_size > total - V3_MIN_EVENT_BYTES - e.payload_size ||
            !gcs_tally_takes_strings(slot, &payload, e.payload_size))
            break;
        slot->count++;
        short_rows += e.payload_size < slot->min_size;
        lo = (int64_t)e.timestamp < lo ? (int64_t)e.timestamp : lo;
        hi = (int64_t)e.timestamp > hi ? (int64_t)e.timestamp : hi;
        taken++;
        (void)gcs_cur_skip(&c, (size_t)total);
    }
    if (taken) {
        t->rows += taken;
        t->short_rows += short_rows;
        t->first_timestamp = lo;
        t->last_timestamp = hi;
    }
    *block = c;
}

/* Parses one event whose EventSize field starts at c; steps over it. */
static gcs_status parse_event(gcs_fs_reader *r, gcs_cursor *c, gcs_error *err)
{
    const gcs_sink *sink = r->base.sink;
    uint64_t at = gcs_cur_offset(c);
    gcs_cursor h;
    event_head e;
    if (!gcs_cur_sub(c, V3_HEADER_SIZE, &h))
        return GCS_CORRUPT(err, at, "netperf event header cut short");
    read_head(&h, &e);
    const uint32_t event_size = e.event_size, metadata_id = e.metadata_id,
                   payload_size = e.payload_size;
    uint64_t total = (uint64_t)event_size + 4;
    if (total < V3_MIN_EVENT_BYTES || total - V3_HEADER_SIZE > gcs_cur_left(c))
        return GCS_CORRUPT(err, at, "netperf EventSize %u is invalid here", event_size);
    size_t rest = (size_t)(total - V3_HEADER_SIZE); /* payload + stack + padding */
    if (payload_size > rest - 4)
        return GCS_CORRUPT(err, at + 52, "netperf PayloadSize %u exceeds EventSize %u",
                           payload_size, event_size);
    uint64_t payload_at = gcs_cur_offset(c);
    const uint8_t *payload = NULL;
    uint32_t stack_size = 0;
    (void)gcs_cur_bytes(c, payload_size, &payload);
    (void)gcs_cur_u32(c, &stack_size);
    if (stack_size > rest - 4 - payload_size)
        return GCS_CORRUPT(err, gcs_cur_offset(c) - 4, "netperf stack of %u bytes exceeds the event",
                           stack_size);
    const uint8_t *stack = NULL;
    (void)gcs_cur_bytes(c, stack_size, &stack);
    (void)gcs_cur_skip(c, rest - 4 - payload_size - stack_size); /* padding */

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
    ev.tid = e.tid;
    ev.capture_tid = e.tid;
    ev.timestamp = (int64_t)e.timestamp;
    ev.activity_id = e.activity;
    ev.related_activity_id = e.related;
    ev.payload = payload;
    ev.payload_size = payload_size;
    if (stack_size) {
        ev.inline_stack = stack;
        ev.inline_stack_size = stack_size;
    }
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
    gcs_tally *const tally = r->base.sink->tally;
    while (gcs_cur_left(body) > 0) {
        if (tally) {
            tally_events(body, tally);
            if (gcs_cur_left(body) == 0)
                break;
        }
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
    if (r->base.sink->tally)
        tally_events(&c, r->base.sink->tally); /* counted: nothing left */
    if (gcs_cur_left(&c) > 0 && (st = parse_event(r, &c, err)) < 0)
        return st;
    gcs_stream_consume(s, (size_t)total);
    return GCS_OK;
}

gcs_status gcs_netperf_open(gcs_stream *s, const gcs_sink *sink, gcs_container **out,
                            gcs_error *err)
{
    return gcs_fs_create(s, sink, false, netperf_parse_block, netperf_inline_step, out, err);
}
