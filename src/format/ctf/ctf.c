/*
 * format/ctf/ctf.c - the CTF container: a babeltrace2 graph
 *
 *   source.ctf.fs (every trace folder found) -> filter.utils.muxer -> simple sink
 *
 * stepped one batch of messages at a time (bt_graph_run_once). The muxer
 * merges the per-CPU stream files (and the kernel and user-space traces)
 * in timestamp order holding one message per stream, so memory stays
 * bounded by the streams' current packets, not by the trace.
 *
 * Each event class becomes one metadata row the first time it is seen.
 * The runtime's events ("DotNETRuntime:GCStart_V2") are named by their
 * LTTng tracepoint: the row carries the symbol and the version and the
 * decoder finds the manifest's id (gcs_meta_def.id_from_name). Their
 * payload is rebuilt in the manifest's binary layout, as TraceEvent's
 * CtfTraceEventSource does: integers little-endian at their CTF size,
 * reals as IEEE bytes, strings as UTF-16LE with a terminator, and events
 * the runtime writes as one byte array ("__data__") passed through whole.
 * pid and tid come from the stream's event context (vpid, vtid), the CPU
 * from the packet context (cpu_id). Timestamps are the clock's cycles;
 * the trace starts at the first event, as in TraceEvent.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/error.h"
#include "format/ctf/ctf.h"
#include "format/ctf/ctf_bt_lib.h"
#include "format/ctf/ctf_internal.h"

/* Event classes tracked (kernel traces have a few thousand). */
#define CTF_MAX_CLASSES ((size_t)1 << 16)
/* Largest payload rebuilt from one event. */
#define CTF_MAX_PAYLOAD GCS_MAX_PAYLOAD_SIZE

typedef struct class_slot {
    const bt_event_class *cls; /* NULL: empty */
    uint32_t metadata_id;
    int32_t blob_member;       /* index of "__data__" in the payload, or -1 */
} class_slot;

typedef struct ctf_container {
    gcs_container base;
    bt_graph *graph;
    char *tmp_dir;             /* extracted zip, removed on destroy (NULL: none) */
    gcs_buf payload;
    class_slot *slots;
    size_t slots_cap, classes;
    /* The batch the last bt_graph_run_once pulled (the iterator's array,
     * valid until its next call): one event is reported per step, since
     * the sorter may keep pointing at the payload until the step ends. */
    bt_message_array_const batch;
    uint64_t batch_n, batch_pos;
    bool info_sent;
    /* An error found while opening that still let the trace be read (a
     * stream file cut inside a packet, read up to its last whole packet):
     * returned at the end instead of GCS_END. */
    bool has_deferred;
    gcs_error deferred;
    int64_t last_timestamp;
    uint64_t events;
    gcs_ctf_names names;
} ctf_container;

static class_slot *class_find(ctf_container *c, const bt_event_class *cls)
{
    size_t mask = c->slots_cap - 1;
    for (size_t h = ((uintptr_t)cls >> 4) * 2654435761u & mask;; h = (h + 1) & mask)
        if (c->slots[h].cls == cls || !c->slots[h].cls)
            return &c->slots[h];
}

static bool class_grow(ctf_container *c)
{
    size_t ncap = c->slots_cap ? c->slots_cap * 2 : 256;
    class_slot *old = c->slots;
    size_t ocap = c->slots_cap;
    c->slots = calloc(ncap, sizeof *c->slots);
    if (!c->slots) {
        c->slots = old;
        return false;
    }
    c->slots_cap = ncap;
    for (size_t i = 0; i < ocap; i++)
        if (old[i].cls)
            *class_find(c, old[i].cls) = old[i];
    free(old);
    return true;
}

/* The metadata row of an event class seen for the first time. */
static gcs_status define_class(ctf_container *c, class_slot *slot, const bt_event_class *cls,
                               const bt_field *payload, gcs_error *err)
{
    const char *full = gcs_babeltrace.bt_event_class_get_name(cls);
    slot->cls = cls;
    slot->metadata_id = (uint32_t)c->classes + 1;
    slot->blob_member = -1;
    if (payload) {
        const bt_field_class *fc = gcs_babeltrace.bt_field_borrow_class_const(payload);
        uint64_t n = gcs_babeltrace.bt_field_class_structure_get_member_count(fc);
        for (uint64_t i = 0; i < n; i++) {
            const bt_field_class_structure_member *m =
                gcs_babeltrace.bt_field_class_structure_borrow_member_by_index_const(fc, i);
            if (strcmp(gcs_babeltrace.bt_field_class_structure_member_get_name(m), "__data__") == 0)
                slot->blob_member = (int32_t)i;
        }
    }
    c->classes++;
    return gcs_ctf_define_class(c->base.sink, full ? full : "", slot->metadata_id, c->events, err);
}

static gcs_status put_le(gcs_buf *b, uint64_t v, unsigned bytes)
{
    uint8_t tmp[8];
    for (unsigned i = 0; i < bytes; i++)
        tmp[i] = (uint8_t)(v >> (8 * i));
    return gcs_buf_append(b, tmp, bytes);
}

/* Appends field f in the manifest's layout (see the file comment). */
static gcs_status append_field(gcs_buf *b, const bt_field *f, unsigned depth)
{
    if (depth > GCS_MAX_FIELD_DEPTH)
        return GCS_ERR_LIMIT;
    bt_field_class_type t = gcs_babeltrace.bt_field_get_class_type(f);
    if (bt_field_class_type_is(t, BT_FIELD_CLASS_TYPE_INTEGER)) {
        uint64_t bits = gcs_babeltrace.bt_field_class_integer_get_field_value_range(gcs_babeltrace.bt_field_borrow_class_const(f));
        unsigned bytes = (unsigned)((bits + 7) / 8);
        uint64_t v = bt_field_class_type_is(t, BT_FIELD_CLASS_TYPE_SIGNED_INTEGER)
                         ? (uint64_t)gcs_babeltrace.bt_field_integer_signed_get_value(f)
                         : gcs_babeltrace.bt_field_integer_unsigned_get_value(f);
        return put_le(b, v, bytes);
    }
    if (t == BT_FIELD_CLASS_TYPE_DOUBLE_PRECISION_REAL) {
        double d = gcs_babeltrace.bt_field_real_double_precision_get_value(f);
        uint64_t u;
        memcpy(&u, &d, 8);
        return put_le(b, u, 8);
    }
    if (t == BT_FIELD_CLASS_TYPE_SINGLE_PRECISION_REAL) {
        float x = gcs_babeltrace.bt_field_real_single_precision_get_value(f);
        uint32_t u;
        memcpy(&u, &x, 4);
        return put_le(b, u, 4);
    }
    if (t == BT_FIELD_CLASS_TYPE_BOOL)
        return put_le(b, gcs_babeltrace.bt_field_bool_get_value(f) ? 1 : 0, 1);
    if (t == BT_FIELD_CLASS_TYPE_STRING)
        return gcs_ctf_append_utf16z(b, (const uint8_t *)gcs_babeltrace.bt_field_string_get_value(f),
                                     gcs_babeltrace.bt_field_string_get_length(f));
    if (t == BT_FIELD_CLASS_TYPE_STRUCTURE) {
        uint64_t n = gcs_babeltrace.bt_field_class_structure_get_member_count(gcs_babeltrace.bt_field_borrow_class_const(f));
        for (uint64_t i = 0; i < n; i++) {
            gcs_status st =
                append_field(b, gcs_babeltrace.bt_field_structure_borrow_member_field_by_index_const(f, i), depth + 1);
            if (st != GCS_OK)
                return st;
        }
        return GCS_OK;
    }
    if (bt_field_class_type_is(t, BT_FIELD_CLASS_TYPE_ARRAY)) {
        uint64_t n = gcs_babeltrace.bt_field_array_get_length(f);
        for (uint64_t i = 0; i < n; i++) {
            gcs_status st =
                append_field(b, gcs_babeltrace.bt_field_array_borrow_element_field_by_index_const(f, i), depth + 1);
            if (st != GCS_OK)
                return st;
        }
        return GCS_OK;
    }
    return GCS_ERR_UNSUPPORTED; /* variants, options, bit arrays: not in the runtime's events */
}

/* The byte array of an event written whole: its elements as bytes. */
static gcs_status append_blob(gcs_buf *b, const bt_field *arr)
{
    uint64_t n = gcs_babeltrace.bt_field_array_get_length(arr);
    if (n > CTF_MAX_PAYLOAD)
        return GCS_ERR_LIMIT;
    gcs_status st = gcs_buf_reserve(b, (size_t)n);
    if (st != GCS_OK)
        return st;
    for (uint64_t i = 0; i < n; i++) {
        const bt_field *e = gcs_babeltrace.bt_field_array_borrow_element_field_by_index_const(arr, i);
        bt_field_class_type t = gcs_babeltrace.bt_field_get_class_type(e);
        uint64_t v = bt_field_class_type_is(t, BT_FIELD_CLASS_TYPE_SIGNED_INTEGER)
                         ? (uint64_t)gcs_babeltrace.bt_field_integer_signed_get_value(e)
                         : gcs_babeltrace.bt_field_integer_unsigned_get_value(e);
        b->data[b->len++] = (uint8_t)v;
    }
    return GCS_OK;
}

/* An unsigned or signed integer member of a context structure, or 0. */
static uint64_t context_int(const bt_field *ctx, const char *name)
{
    if (!ctx)
        return 0;
    const bt_field *f = gcs_babeltrace.bt_field_structure_borrow_member_field_by_name_const(ctx, name);
    if (!f)
        return 0;
    bt_field_class_type t = gcs_babeltrace.bt_field_get_class_type(f);
    if (bt_field_class_type_is(t, BT_FIELD_CLASS_TYPE_SIGNED_INTEGER))
        return (uint64_t)gcs_babeltrace.bt_field_integer_signed_get_value(f);
    if (bt_field_class_type_is(t, BT_FIELD_CLASS_TYPE_UNSIGNED_INTEGER))
        return gcs_babeltrace.bt_field_integer_unsigned_get_value(f);
    return 0;
}

/* Tells the sink the procname of pid from the event context. */
static void report_procname(ctf_container *c, const gcs_sink *sink, const bt_field *ectx,
                            uint32_t pid)
{
    const bt_field *f = ectx ? gcs_babeltrace.bt_field_structure_borrow_member_field_by_name_const(ectx, "procname")
                             : NULL;
    if (!f || gcs_babeltrace.bt_field_get_class_type(f) != BT_FIELD_CLASS_TYPE_STRING)
        return;
    const char *name = gcs_babeltrace.bt_field_string_get_value(f);
    /* Its length, not strlen: babeltrace2 2.0.4 empties a recycled string
     * field by its length and leaves the old bytes (docs/format-ctf.md). */
    gcs_ctf_names_report(&c->names, sink, pid, name, (size_t)gcs_babeltrace.bt_field_string_get_length(f));
}

/* The header facts, from the first event's clock. */
static gcs_status send_info(ctf_container *c, const bt_clock_snapshot *cs, gcs_error *err)
{
    c->info_sent = true;
    if (!cs)
        return gcs_ctf_send_info(c->base.sink, false, 0, 0, 0, 0, err);
    const bt_clock_class *cc = gcs_babeltrace.bt_clock_snapshot_borrow_clock_class_const(cs);
    int64_t off_s;
    uint64_t off_cycles;
    gcs_babeltrace.bt_clock_class_get_offset(cc, &off_s, &off_cycles);
    return gcs_ctf_send_info(c->base.sink, true, gcs_babeltrace.bt_clock_class_get_frequency(cc), off_s,
                             off_cycles, gcs_babeltrace.bt_clock_snapshot_get_value(cs), err);
}

static gcs_status on_event_message(ctf_container *c, const bt_message *msg, gcs_error *err)
{
    const gcs_sink *sink = c->base.sink;
    const bt_event *ev = gcs_babeltrace.bt_message_event_borrow_event_const(msg);
    const bt_event_class *cls = gcs_babeltrace.bt_event_borrow_class_const(ev);
    const bt_clock_snapshot *cs = NULL;
    const bt_stream_class *sc = gcs_babeltrace.bt_event_class_borrow_stream_class_const(cls);
    if (gcs_babeltrace.bt_stream_class_borrow_default_clock_class_const(sc))
        cs = gcs_babeltrace.bt_message_event_borrow_default_clock_snapshot_const(msg);
    gcs_status st;
    if (!c->info_sent && (st = send_info(c, cs, err)) != GCS_OK)
        return st;
    const bt_field *payload = gcs_babeltrace.bt_event_borrow_payload_field_const(ev);
    if ((c->classes + 1) * 2 > c->slots_cap) {
        if (c->classes >= CTF_MAX_CLASSES)
            return GCS_FAIL(err, GCS_ERR_LIMIT, c->events, "more than %zu CTF event classes",
                            CTF_MAX_CLASSES);
        if (!class_grow(c))
            return GCS_FAIL(err, GCS_ERR_NOMEM, c->events, "out of memory");
    }
    class_slot *slot = class_find(c, cls);
    if (!slot->cls && (st = define_class(c, slot, cls, payload, err)) != GCS_OK)
        return st;
    c->payload.len = 0;
    if (payload) {
        st = slot->blob_member >= 0
                 ? append_blob(&c->payload, gcs_babeltrace.bt_field_structure_borrow_member_field_by_index_const(
                                                payload, (uint64_t)slot->blob_member))
                 : append_field(&c->payload, payload, 0);
        if (st != GCS_OK) {
            /* Kept without payload: counted as undecodable if it has a schema. */
            if (sink->anomaly)
                sink->anomaly(sink->ctx, c->events,
                              st == GCS_ERR_UNSUPPORTED ? "CTF payload field of an unsupported kind"
                                                        : "CTF payload beyond the payload cap");
            c->payload.len = 0;
        }
    }
    const bt_field *ectx = gcs_babeltrace.bt_event_borrow_common_context_field_const(ev);
    const bt_packet *pkt = gcs_babeltrace.bt_event_borrow_packet_const(ev);
    const bt_field *pctx = pkt ? gcs_babeltrace.bt_packet_borrow_context_field_const(pkt) : NULL;
    gcs_raw_event raw;
    memset(&raw, 0, sizeof raw);
    raw.metadata_id = slot->metadata_id;
    raw.is_sorted = true;
    raw.pid = (uint32_t)context_int(ectx, "vpid");
    raw.tid = context_int(ectx, "vtid");
    report_procname(c, sink, ectx, raw.pid);
    raw.capture_tid = raw.tid;
    raw.processor = (uint32_t)context_int(pctx, "cpu_id");
    raw.timestamp = cs ? (int64_t)gcs_babeltrace.bt_clock_snapshot_get_value(cs) : c->last_timestamp;
    raw.payload = c->payload.len ? c->payload.data : NULL;
    raw.payload_size = (uint32_t)c->payload.len;
    raw.offset = c->events;
    c->last_timestamp = raw.timestamp;
    c->events++;
    return sink->event(sink->ctx, &raw, err);
}

/* The simple sink's consume function: one batch of messages. */
static bt_graph_simple_sink_component_consume_func_status consume(bt_message_iterator *it,
                                                                  void *user)
{
    ctf_container *c = user;
    bt_message_array_const msgs;
    uint64_t count;
    switch (gcs_babeltrace.bt_message_iterator_next(it, &msgs, &count)) {
    case BT_MESSAGE_ITERATOR_NEXT_STATUS_OK:
        break;
    case BT_MESSAGE_ITERATOR_NEXT_STATUS_END:
        return BT_GRAPH_SIMPLE_SINK_COMPONENT_CONSUME_FUNC_STATUS_END;
    case BT_MESSAGE_ITERATOR_NEXT_STATUS_AGAIN:
        return BT_GRAPH_SIMPLE_SINK_COMPONENT_CONSUME_FUNC_STATUS_AGAIN;
    case BT_MESSAGE_ITERATOR_NEXT_STATUS_MEMORY_ERROR:
        return BT_GRAPH_SIMPLE_SINK_COMPONENT_CONSUME_FUNC_STATUS_MEMORY_ERROR;
    default:
        return BT_GRAPH_SIMPLE_SINK_COMPONENT_CONSUME_FUNC_STATUS_ERROR;
    }
    c->batch = msgs;
    c->batch_n = count;
    c->batch_pos = 0;
    return BT_GRAPH_SIMPLE_SINK_COMPONENT_CONSUME_FUNC_STATUS_OK;
}

/* babeltrace2's error of this thread as one line: its causes, the root
 * one (the reading component's, which names the file and offset) first. */
static gcs_status take_bt_error(gcs_error *err, gcs_status status, uint64_t events,
                                const char *what)
{
    const bt_error *e = gcs_babeltrace.bt_current_thread_take_error();
    char reason[sizeof err->reason];
    size_t len = (size_t)snprintf(reason, sizeof reason, "%s", what);
    if (e) {
        uint64_t n = gcs_babeltrace.bt_error_get_cause_count(e);
        for (uint64_t i = 0; i < n && len + 4 < sizeof reason; i++) {
            const bt_error_cause *cause = gcs_babeltrace.bt_error_borrow_cause_by_index(e, i);
            /* The library's own causes repeat the component's in its terms. */
            if (gcs_babeltrace.bt_error_cause_get_actor_type(cause) == BT_ERROR_CAUSE_ACTOR_TYPE_UNKNOWN)
                continue;
            const char *m = gcs_babeltrace.bt_error_cause_get_message(cause);
            len += (size_t)snprintf(reason + len, sizeof reason - len, ": %s", m ? m : "");
        }
        gcs_babeltrace.bt_error_release(e);
    }
    return GCS_FAIL(err, status, events, "%s", reason);
}

/* Reports the next event of the batch (other messages are dropped).
 * GCS_OK with *reported set when one was, or the sink's error. */
static gcs_status next_of_batch(ctf_container *c, bool *reported, gcs_error *err)
{
    *reported = false;
    while (c->batch_pos < c->batch_n && !*reported) {
        const bt_message *m = c->batch[c->batch_pos++];
        gcs_status st = GCS_OK;
        if (gcs_babeltrace.bt_message_get_type(m) == BT_MESSAGE_TYPE_EVENT) {
            st = on_event_message(c, m, err);
            *reported = true;
        } else if (gcs_babeltrace.bt_message_get_type(m) == BT_MESSAGE_TYPE_DISCARDED_EVENTS) {
            /* LTTng's events_discarded grew between two packets. */
            uint64_t n;
            if (gcs_babeltrace.bt_message_discarded_events_get_count(m, &n) == BT_PROPERTY_AVAILABILITY_AVAILABLE &&
                c->base.sink->events_lost)
                c->base.sink->events_lost(c->base.sink->ctx, n);
        }
        gcs_babeltrace.bt_message_put_ref(m);
        if (st != GCS_OK)
            return st;
    }
    return GCS_OK;
}

static gcs_status ctf_step(gcs_container *base, gcs_error *err)
{
    ctf_container *c = (ctf_container *)base;
    const gcs_sink *sink = base->sink;
    for (;;) {
        bool reported;
        gcs_status st = next_of_batch(c, &reported, err);
        if (st != GCS_OK)
            return st;
        if (reported) /* the muxer's output is in timestamp order: it may go */
            return sink->sequence_point(sink->ctx, c->last_timestamp, NULL, 0, err);
        bt_graph_run_once_status rs = gcs_babeltrace.bt_graph_run_once(c->graph);
        switch (rs) {
        case BT_GRAPH_RUN_ONCE_STATUS_OK:
            if (sink->block)
                sink->block(sink->ctx);
            continue;
        case BT_GRAPH_RUN_ONCE_STATUS_END:
            if (c->has_deferred) {
                *err = c->deferred;
                return c->deferred.status;
            }
            return GCS_END;
        case BT_GRAPH_RUN_ONCE_STATUS_AGAIN:
            continue; /* files never wait; a component asked to be called again */
        case BT_GRAPH_RUN_ONCE_STATUS_MEMORY_ERROR:
            return take_bt_error(err, GCS_ERR_NOMEM, c->events, "babeltrace2: out of memory");
        default:
            return take_bt_error(err, GCS_ERR_CORRUPT, c->events,
                                 "CTF trace unreadable after this many events");
        }
    }
}

static void ctf_destroy(gcs_container *base)
{
    ctf_container *c = (ctf_container *)base;
    while (c->batch_pos < c->batch_n)
        gcs_babeltrace.bt_message_put_ref(c->batch[c->batch_pos++]);
    gcs_babeltrace.bt_graph_put_ref(c->graph);
    gcs_buf_free(&c->payload);
    free(c->slots);
    gcs_ctf_names_free(&c->names);
    if (c->tmp_dir) {
        gcs_ctf_remove_tree(c->tmp_dir);
        free(c->tmp_dir);
    }
    free(c);
}

static const gcs_container_ops ctf_ops = {"ctf", ctf_step, ctf_destroy, false};

/* A component class of a babeltrace2 plugin; the plugin reference is
 * dropped (the class keeps its plugin loaded). */
static const bt_plugin *find_plugin(const char *name)
{
    const bt_plugin *p = NULL;
    if (gcs_babeltrace.bt_plugin_find(name, BT_TRUE, BT_TRUE, BT_TRUE, BT_TRUE, BT_TRUE, &p) !=
        BT_PLUGIN_FIND_STATUS_OK)
        return NULL;
    return p;
}

/* Adds a source.ctf.fs for one trace folder and connects its streams to
 * the muxer. (babeltrace2 2.0 merges the inputs of one component into one
 * trace, which the kernel and user-space traces are not: one each.) */
static gcs_status add_trace(ctf_container *c, const bt_component_class_source *fs,
                            const bt_component_filter *muxer, const char *input, size_t index,
                            gcs_error *err)
{
    bt_value *params = gcs_babeltrace.bt_value_map_create();
    bt_value *arr = NULL;
    gcs_status st = GCS_OK;
    if (!params ||
        gcs_babeltrace.bt_value_map_insert_empty_array_entry(params, "inputs", &arr) !=
            BT_VALUE_MAP_INSERT_ENTRY_STATUS_OK ||
        gcs_babeltrace.bt_value_array_append_string_element(arr, input) != BT_VALUE_ARRAY_APPEND_ELEMENT_STATUS_OK) {
        gcs_babeltrace.bt_value_put_ref(params);
        return GCS_FAIL(err, GCS_ERR_NOMEM, 0, "out of memory");
    }
    char name[32];
    snprintf(name, sizeof name, "source%zu", index);
    const bt_component_source *src;
    if (gcs_babeltrace.bt_graph_add_source_component(c->graph, fs, name, params, BT_LOGGING_LEVEL_NONE, &src) !=
        BT_GRAPH_ADD_COMPONENT_STATUS_OK) {
        gcs_babeltrace.bt_value_put_ref(params);
        return take_bt_error(err, GCS_ERR_CORRUPT, 0, "CTF trace unreadable");
    }
    gcs_babeltrace.bt_value_put_ref(params);
    uint64_t outs = gcs_babeltrace.bt_component_source_get_output_port_count(src);
    for (uint64_t i = 0; i < outs && st == GCS_OK; i++) {
        const bt_port_output *out = gcs_babeltrace.bt_component_source_borrow_output_port_by_index_const(src, i);
        /* The muxer adds a free input port each time one is connected. */
        uint64_t ins = gcs_babeltrace.bt_component_filter_get_input_port_count(muxer);
        const bt_port_input *in =
            gcs_babeltrace.bt_component_filter_borrow_input_port_by_index_const(muxer, ins - 1);
        if (gcs_babeltrace.bt_graph_connect_ports(c->graph, out, in, NULL) != BT_GRAPH_CONNECT_PORTS_STATUS_OK)
            st = take_bt_error(err, GCS_ERR_NOMEM, 0, "babeltrace2: cannot connect a stream");
    }
    return st;
}

/* Builds the graph over the trace folders inputs[0..n). */
static gcs_status build_graph(ctf_container *c, char *const *inputs, size_t n, gcs_error *err)
{
    const bt_plugin *ctf = find_plugin("ctf"), *utils = find_plugin("utils");
    gcs_status st = GCS_OK;
    const bt_component_class_source *fs =
        ctf ? gcs_babeltrace.bt_plugin_borrow_source_component_class_by_name_const(ctf, "fs") : NULL;
    const bt_component_class_filter *mux =
        utils ? gcs_babeltrace.bt_plugin_borrow_filter_component_class_by_name_const(utils, "muxer") : NULL;
    const bt_component_filter *muxer;
    const bt_component_sink *sink;
    if (!fs || !mux) {
        st = GCS_FAIL(err, GCS_ERR_UNSUPPORTED, 0,
                      "babeltrace2's ctf and utils plugins are not installed (CTF traces "
                      "are read through them)");
        goto done;
    }
    c->graph = gcs_babeltrace.bt_graph_create(0);
    if (!c->graph ||
        gcs_babeltrace.bt_graph_add_filter_component(c->graph, mux, "muxer", NULL, BT_LOGGING_LEVEL_NONE,
                                      &muxer) != BT_GRAPH_ADD_COMPONENT_STATUS_OK ||
        gcs_babeltrace.bt_graph_add_simple_sink_component(c->graph, "gcscope", NULL, consume, NULL, c, &sink) !=
            BT_GRAPH_ADD_COMPONENT_STATUS_OK) {
        st = take_bt_error(err, GCS_ERR_NOMEM, 0, "babeltrace2: cannot set up the graph");
        goto done;
    }
    for (size_t i = 0; i < n && st == GCS_OK; i++)
        st = add_trace(c, fs, muxer, inputs[i], i, err);
    if (st == GCS_OK &&
        gcs_babeltrace.bt_graph_connect_ports(c->graph,
                               gcs_babeltrace.bt_component_filter_borrow_output_port_by_index_const(muxer, 0),
                               gcs_babeltrace.bt_component_sink_borrow_input_port_by_index_const(sink, 0),
                               NULL) != BT_GRAPH_CONNECT_PORTS_STATUS_OK)
        st = take_bt_error(err, GCS_ERR_NOMEM, 0, "babeltrace2: cannot connect the muxer");
done:
    gcs_babeltrace.bt_plugin_put_ref(ctf);
    gcs_babeltrace.bt_plugin_put_ref(utils);
    return st;
}

gcs_status gcs_ctf_open_traces(gcs_stream *s, const gcs_sink *sink, char *const *inputs,
                               size_t n, char *tmp_dir, const gcs_error *deferred,
                               gcs_container **out, gcs_error *err)
{
    if (!gcs_babeltrace_load(err))
        return GCS_ERR_UNSUPPORTED;
    ctf_container *c = calloc(1, sizeof *c);
    if (!c)
        return GCS_FAIL(err, GCS_ERR_NOMEM, 0, "out of memory");
    c->base.ops = &ctf_ops;
    c->base.stream = s;
    c->base.sink = sink;
    if (deferred) {
        c->has_deferred = true;
        c->deferred = *deferred;
    }
    gcs_buf_init(&c->payload, CTF_MAX_PAYLOAD);
    gcs_status st = class_grow(c) ? build_graph(c, inputs, n, err)
                                  : GCS_FAIL(err, GCS_ERR_NOMEM, 0, "out of memory");
    if (st != GCS_OK) {
        ctf_destroy(&c->base); /* tmp_dir stays the caller's */
        return st;
    }
    c->tmp_dir = tmp_dir;
    *out = &c->base;
    return GCS_OK;
}
