/*
 * format/etl/tdh.c - TRACE_EVENT_INFO records (KernelTraceControl
 * MetaData/EventInfo, {bbccf6c1-6cd1-48c4-80ff-839482e37671} opcode 32).
 *
 * Layout (tdh.h of the Windows SDK; confirmed on net.4.5.2.x86.etl: the
 * record at 415.294 ms describes Microsoft-Windows-Kernel-EventTracing
 * event 14, ETW_TASK_PROVIDER/ETW_OPCODE_ENABLE, whose properties
 * ProviderName (GUID) and SessionName (UTF-16) are TraceEvent's fields):
 * provider GUID, event GUID (16 each), EVENT_DESCRIPTOR (id u16, version,
 * channel, level, opcode u8, task u16, keywords u64), decoding source,
 * then 32-bit byte offsets from the record's start to UTF-16 names:
 * provider, level, channel, keywords, task, opcode, event message,
 * provider message, binary XML (offset and size), event name, event
 * attributes (12 in all); property count, top-level property count, flags; then per
 * property 24 bytes: flags, name offset, in-type u16, out-type u16, map
 * name offset, count u16, length u16, reserved u32.
 */
#include "format/etl/tdh.h"

#include <stdio.h>
#include <string.h>

#include "base/cursor.h"

#define PROPERTY_SIZE 24u
#define MAX_PROPERTIES 128u

/* The UTF-16 name at offset off of the record (NUL-terminated), or NULL. */
static const char *name_at(const uint8_t *p, size_t n, uint32_t off, gcs_arena *arena)
{
    if (off == 0 || off >= n)
        return NULL;
    gcs_cursor c = gcs_cur_make(p + off, n - off, off);
    const uint8_t *s;
    size_t units;
    if (!gcs_cur_utf16z(&c, &s, &units))
        return NULL;
    return gcs_utf16_to_utf8(arena, s, units);
}

/* A TDH in-type as one of our scalar types; false for what is not a
 * plain scalar (structs, counted or sized strings, SIDs, ...). */
static bool scalar_type(uint16_t in, gcs_type *t, bool *hex)
{
    *hex = false;
    switch (in) {
    case 1: *t = GCS_T_UTF16Z; return true;
    case 2: *t = GCS_T_ANSIZ; return true;
    case 3: *t = GCS_T_I8; return true;
    case 4: *t = GCS_T_U8; return true;
    case 5: *t = GCS_T_I16; return true;
    case 6: *t = GCS_T_U16; return true;
    case 7: *t = GCS_T_I32; return true;
    case 8: *t = GCS_T_U32; return true;
    case 9: *t = GCS_T_I64; return true;
    case 10: *t = GCS_T_U64; return true;
    case 11: *t = GCS_T_F32; return true;
    case 12: *t = GCS_T_F64; return true;
    case 13: *t = GCS_T_BOOL32; return true;
    case 15: *t = GCS_T_GUID; return true;
    case 16: *t = GCS_T_POINTER; *hex = true; return true;
    case 17: *t = GCS_T_DATETIME; return true;
    case 20: *t = GCS_T_U32; *hex = true; return true;
    case 21: *t = GCS_T_U64; *hex = true; return true;
    default: return false;
    }
}

bool gcs_tdh_parse(const uint8_t *p, size_t n, gcs_arena *arena, gcs_tdh_event *out,
                   const char **why)
{
    memset(out, 0, sizeof *out);
    gcs_cursor c = gcs_cur_make(p, n, 0);
    const uint8_t *guid;
    uint16_t id, task;
    uint8_t version, channel, level, opcode;
    uint64_t keywords;
    uint32_t source, off[12], props, top, flags;
    if (!gcs_cur_bytes(&c, 16, &guid) || !gcs_cur_skip(&c, 16) || !gcs_cur_u16(&c, &id) ||
        !gcs_cur_u8(&c, &version) || !gcs_cur_u8(&c, &channel) || !gcs_cur_u8(&c, &level) ||
        !gcs_cur_u8(&c, &opcode) || !gcs_cur_u16(&c, &task) || !gcs_cur_u64(&c, &keywords) ||
        !gcs_cur_u32(&c, &source)) {
        *why = "TRACE_EVENT_INFO cut short";
        return false;
    }
    for (int i = 0; i < 12; i++)
        if (!gcs_cur_u32(&c, &off[i])) {
            *why = "TRACE_EVENT_INFO cut short";
            return false;
        }
    if (!gcs_cur_u32(&c, &props) || !gcs_cur_u32(&c, &top) || !gcs_cur_u32(&c, &flags) ||
        props > MAX_PROPERTIES || top > props || (size_t)props * PROPERTY_SIZE > gcs_cur_left(&c)) {
        *why = "TRACE_EVENT_INFO properties invalid";
        return false;
    }
    (void)channel;
    (void)level;
    (void)keywords;
    (void)source;
    (void)flags;
    memcpy(out->provider_guid, guid, 16);
    out->event_id = id;
    out->version = version;
    /* offsets: 0 provider, 4 task, 5 opcode (level, channel, keywords,
     * messages, XML, event name and attributes unused) */
    out->provider = name_at(p, n, off[0], arena);
    const char *task_name = name_at(p, n, off[4], arena);
    const char *opcode_name = name_at(p, n, off[5], arena);
    if (!out->provider || !task_name) {
        *why = "TRACE_EVENT_INFO without provider or task name";
        return false;
    }
    /* TraceEvent's name: the task, then the opcode's name unless it is
     * the default opcode 0 (win:Info). Names end with a space at times
     * ("Microsoft-Windows-Kernel-EventTracing " as the provider message):
     * only the names themselves are used. */
    char name[256];
    if (opcode_name && strncmp(opcode_name, "win:", 4) == 0)
        opcode_name += 4; /* the standard opcodes: win:Start shows as Start */
    if (opcode != 0 && opcode_name && opcode_name[0])
        snprintf(name, sizeof name, "%s/%s", task_name, opcode_name);
    else
        snprintf(name, sizeof name, "%s", task_name);
    out->event_name = gcs_arena_strndup(arena, name, strlen(name));
    if (!out->event_name) {
        *why = "metadata memory limit";
        return false;
    }
    /* Properties: plain top-level scalars only (a struct, an array or a
     * length from another property leaves the event without fields). */
    if (top == 0 || top != props)
        return true;
    gcs_field *fields = gcs_arena_alloc(arena, (size_t)props * sizeof *fields);
    if (!fields)
        return true;
    for (uint32_t i = 0; i < props; i++) {
        uint32_t pflags, name_off, map_off, reserved;
        uint16_t in, outtype, count, length;
        (void)gcs_cur_u32(&c, &pflags);
        (void)gcs_cur_u32(&c, &name_off);
        (void)gcs_cur_u16(&c, &in);
        (void)gcs_cur_u16(&c, &outtype);
        (void)gcs_cur_u32(&c, &map_off);
        (void)gcs_cur_u16(&c, &count);
        (void)gcs_cur_u16(&c, &length);
        (void)gcs_cur_u32(&c, &reserved);
        gcs_type t;
        bool hex;
        const char *pname = name_at(p, n, name_off, arena);
        if (pflags != 0 || count != 1 || map_off != 0 || !pname || !scalar_type(in, &t, &hex))
            return true; /* named, not decoded */
        memset(&fields[i], 0, sizeof fields[i]);
        fields[i].name = pname;
        fields[i].type = t;
        fields[i].repeat = GCS_REPEAT_ONE;
        fields[i].hex = hex;
    }
    out->fields = fields;
    out->field_count = props;
    return true;
}
