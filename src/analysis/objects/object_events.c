/*
 * analysis/objects/object_events.c - decoders for the object analysis'
 * events (see object_events.h). Every read goes through the cursor; a
 * payload too short for its layout makes the decoder return false.
 */
#include "analysis/objects/object_events.h"

#include <string.h>

#include "base/buf.h"

static gcs_cursor payload_cursor(const gcs_event *ev)
{
    return gcs_cur_make(ev->payload, ev->payload_size, 0);
}

static uint32_t pointer_size(const gcs_event *ev)
{
    return ev->pointer_size == 4 ? 4 : 8;
}

objev_kind objev_classify(const gcs_event *ev)
{
    if (!ev->type || !ev->type->provider ||
        strcmp(ev->type->provider, OBJEV_RUNTIME_PROVIDER) != 0)
        return OBJEV_OTHER;
    switch (ev->type->event_id) {
    case 1: return OBJEV_GC_START;
    case 2: return OBJEV_GC_END;
    case 10: return OBJEV_ALLOCATION_TICK;
    case 15: return OBJEV_BULK_TYPE;
    case 20:
    case 32: return OBJEV_SAMPLED_ALLOC;
    case 21: return OBJEV_SURVIVING;
    case 22: return OBJEV_MOVED;
    case 23: return OBJEV_GENERATION_RANGE;
    case 33: return OBJEV_PIN;
    case 303: return OBJEV_ALLOCATION_SAMPLED;
    default: return OBJEV_OTHER;
    }
}

bool objev_decode_gc_start(const gcs_event *ev, objev_gc_start *out)
{
    memset(out, 0, sizeof *out);
    gcs_cursor c = payload_cursor(ev);
    if (!gcs_cur_u32(&c, &out->count))
        return false;
    /* As TraceEvent does: 16+ bytes means the V1 layout whatever the
     * version says (V0 had Reason where V1 has Depth). */
    if (ev->payload_size < 16)
        return gcs_cur_skip(&c, 4);
    uint32_t reason;
    if (!gcs_cur_u32(&c, &out->depth) || !gcs_cur_u32(&c, &reason) ||
        !gcs_cur_u32(&c, &out->type))
        return false;
    out->has_depth = out->has_type = true;
    return true;
}

bool objev_decode_gc_end(const gcs_event *ev, objev_gc_end *out)
{
    memset(out, 0, sizeof *out);
    gcs_cursor c = payload_cursor(ev);
    if (!gcs_cur_u32(&c, &out->count))
        return false;
    if (ev->type->version == 0) {
        uint16_t d;
        if (!gcs_cur_u16(&c, &d))
            return false;
        out->depth = d;
        return true;
    }
    return gcs_cur_u32(&c, &out->depth);
}

bool objev_decode_allocation_tick(const gcs_event *ev, objev_allocation_tick *out)
{
    memset(out, 0, sizeof *out);
    gcs_cursor c = payload_cursor(ev);
    uint32_t amount32;
    if (!gcs_cur_u32(&c, &amount32) || !gcs_cur_u32(&c, &out->kind))
        return false;
    out->amount = amount32;
    uint32_t version = ev->type->version;
    if (version < 1)
        return true;
    uint16_t clr;
    if (!gcs_cur_u16(&c, &clr))
        return false;
    if (version < 2)
        return true;
    const uint8_t *name;
    size_t units;
    uint32_t heap;
    if (!gcs_cur_u64(&c, &out->amount) || !gcs_cur_ptr(&c, pointer_size(ev), &out->type_id) ||
        !gcs_cur_utf16z(&c, &name, &units) || !gcs_cur_u32(&c, &heap))
        return false;
    gcs_utf16_to_utf8_buf(name, units, out->type_name, sizeof out->type_name);
    out->has_type = true;
    if (version < 3)
        return true;
    if (!gcs_cur_ptr(&c, pointer_size(ev), &out->address))
        return false;
    out->has_address = true;
    if (version < 4)
        return true;
    if (!gcs_cur_u64(&c, &out->object_size))
        return false;
    out->has_size = true;
    return true;
}

bool objev_decode_allocation_sampled(const gcs_event *ev, objev_allocation_tick *out)
{
    memset(out, 0, sizeof *out);
    gcs_cursor c = payload_cursor(ev);
    uint16_t clr;
    const uint8_t *name;
    size_t units;
    uint32_t p = pointer_size(ev);
    if (!gcs_cur_u32(&c, &out->kind) || !gcs_cur_u16(&c, &clr) ||
        !gcs_cur_ptr(&c, p, &out->type_id) || !gcs_cur_utf16z(&c, &name, &units) ||
        !gcs_cur_ptr(&c, p, &out->address) || !gcs_cur_u64(&c, &out->object_size))
        return false;
    gcs_utf16_to_utf8_buf(name, units, out->type_name, sizeof out->type_name);
    out->has_type = out->has_address = out->has_size = true;
    return true;
}

bool objev_decode_sampled_alloc(const gcs_event *ev, objev_sampled_alloc *out)
{
    memset(out, 0, sizeof *out);
    gcs_cursor c = payload_cursor(ev);
    uint32_t p = pointer_size(ev);
    return gcs_cur_ptr(&c, p, &out->address) && gcs_cur_ptr(&c, p, &out->type_id) &&
           gcs_cur_u32(&c, &out->object_count) && gcs_cur_u64(&c, &out->total_size);
}

bool objev_decode_generation_range(const gcs_event *ev, objev_generation_range *out)
{
    memset(out, 0, sizeof *out);
    gcs_cursor c = payload_cursor(ev);
    return gcs_cur_u8(&c, &out->generation) && gcs_cur_ptr(&c, pointer_size(ev), &out->start) &&
           gcs_cur_u64(&c, &out->used_length) && gcs_cur_u64(&c, &out->reserved_length);
}

bool objev_decode_pin(const gcs_event *ev, objev_pin *out)
{
    memset(out, 0, sizeof *out);
    gcs_cursor c = payload_cursor(ev);
    uint64_t handle;
    uint32_t p = pointer_size(ev);
    return gcs_cur_ptr(&c, p, &handle) && gcs_cur_ptr(&c, p, &out->object) &&
           gcs_cur_u64(&c, &out->size);
}

bool objev_ranges_begin(const gcs_event *ev, bool moved, objev_ranges *out)
{
    memset(out, 0, sizeof *out);
    out->cur = payload_cursor(ev);
    out->moved = moved;
    out->pointer_size = pointer_size(ev);
    uint16_t clr;
    if (!gcs_cur_u32(&out->cur, &out->index) || !gcs_cur_u32(&out->cur, &out->declared_count) ||
        !gcs_cur_u16(&out->cur, &clr))
        return false;
    size_t element = moved ? 2 * (size_t)out->pointer_size + 8 : (size_t)out->pointer_size + 8;
    size_t fit = gcs_cur_left(&out->cur) / element;
    if (out->declared_count > fit) {
        out->short_payload = true;
        out->count = (uint32_t)fit;
    } else {
        out->count = out->declared_count;
    }
    return true;
}

bool objev_ranges_next(objev_ranges *it, uint64_t *old_start, uint64_t *new_start,
                       uint64_t *length)
{
    if (it->count == 0)
        return false;
    if (!gcs_cur_ptr(&it->cur, it->pointer_size, old_start))
        return false;
    if (it->moved) {
        if (!gcs_cur_ptr(&it->cur, it->pointer_size, new_start))
            return false;
    } else {
        *new_start = *old_start;
    }
    if (!gcs_cur_u64(&it->cur, length))
        return false;
    it->count--;
    return true;
}

bool objev_bulk_type_begin(const gcs_event *ev, objev_bulk_type *out)
{
    memset(out, 0, sizeof *out);
    out->cur = payload_cursor(ev);
    uint16_t clr;
    return gcs_cur_u32(&out->cur, &out->declared_count) && gcs_cur_u16(&out->cur, &clr);
}

bool objev_bulk_type_next(objev_bulk_type *it, uint64_t *type_id, char *name, size_t name_cap)
{
    if (it->done >= it->declared_count)
        return false;
    gcs_cursor c = it->cur;
    uint64_t module;
    uint32_t name_id, flags, params;
    uint8_t element_type;
    const uint8_t *s;
    size_t units;
    if (!gcs_cur_u64(&c, type_id) || !gcs_cur_u64(&c, &module) || !gcs_cur_u32(&c, &name_id) ||
        !gcs_cur_u32(&c, &flags) || !gcs_cur_u8(&c, &element_type) ||
        !gcs_cur_utf16z(&c, &s, &units) || !gcs_cur_u32(&c, &params) ||
        params > gcs_cur_left(&c) / 8 || !gcs_cur_skip(&c, (size_t)params * 8)) {
        it->short_payload = true;
        it->done = it->declared_count;
        return false;
    }
    gcs_utf16_to_utf8_buf(s, units, name, name_cap);
    it->cur = c;
    it->done++;
    return true;
}
