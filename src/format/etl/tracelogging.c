/*
 * format/etl/tracelogging.c - TraceLogging (self-describing) event
 * metadata, carried in an EVENT_HEADER's extended data items.
 *
 * Provider traits (item 12): uint16 total size, the provider name (UTF-8,
 * NUL-terminated), then trait records (ignored here).
 * Event schema (item 11): uint16 total size, event tags (bytes while the
 * 0x80 bit is set), the event name (UTF-8, NUL), then per field: its name
 * (NUL), the in-type byte (low 5 bits the type, 0x20 a uint16 count
 * before the values, 0x40 a constant count in the metadata, 0x80 an
 * out-type byte follows), the out-type byte (0x80: field tags follow, 4
 * bytes at most, 0x80 chaining), then the constant count (uint16) if any.
 * A struct (in-type 24) takes the next (out-type & 0x7f) fields as members.
 * Confirmed on primitive-types.etl and SelfDescribingSingleEvent.etl
 * (docs/format-etl.md).
 */
#include "format/etl/tracelogging.h"

#include <string.h>

#include "base/cursor.h"

#define TL_MAX_FIELDS 128

enum {
    TL_UNICODESTRING = 1, TL_ANSISTRING, TL_INT8, TL_UINT8, TL_INT16, TL_UINT16, TL_INT32,
    TL_UINT32, TL_INT64, TL_UINT64, TL_FLOAT, TL_DOUBLE, TL_BOOL32, TL_BINARY, TL_GUID,
    TL_POINTER_UNSUPPORTED, TL_FILETIME, TL_SYSTEMTIME, TL_SID, TL_HEXINT32, TL_HEXINT64,
    TL_COUNTEDSTRING, TL_COUNTEDANSISTRING, TL_STRUCT
};
#define TL_OUT_BOOLEAN 3
#define TL_OUT_HEX 0x0c /* shown in hexadecimal */

/* A NUL-terminated string at c, stepped over; NULL if none. */
static const char *read_cstr(gcs_cursor *c, size_t *len)
{
    const uint8_t *start = c->p;
    const uint8_t *nul = memchr(start, 0, gcs_cur_left(c));
    if (!nul)
        return NULL;
    *len = (size_t)(nul - start);
    (void)gcs_cur_skip(c, *len + 1);
    return (const char *)start;
}

static bool skip_chained(gcs_cursor *c, size_t max)
{
    for (size_t i = 0; i < max; i++) {
        uint8_t b;
        if (!gcs_cur_u8(c, &b))
            return false;
        if (!(b & 0x80))
            return true;
    }
    return false;
}

typedef struct parse_state {
    gcs_arena *arena;
    size_t fields_made;
    const char *why;
} parse_state;

static bool parse_fields(parse_state *ps, gcs_cursor *c, size_t count, bool until_end,
                         gcs_field **out, uint32_t *out_n, unsigned depth);

/* One field into *f (its struct members parsed too). */
static bool parse_field(parse_state *ps, gcs_cursor *c, gcs_field *f, unsigned depth)
{
    size_t len;
    const char *name = read_cstr(c, &len);
    uint8_t in, out = 0;
    if (!name || !gcs_cur_u8(c, &in)) {
        ps->why = "field cut short";
        return false;
    }
    if ((in & 0x80) && !gcs_cur_u8(c, &out)) {
        ps->why = "out-type cut short";
        return false;
    }
    if ((out & 0x80) && !skip_chained(c, 4)) {
        ps->why = "field tags invalid";
        return false;
    }
    memset(f, 0, sizeof *f);
    f->name = gcs_arena_strndup(ps->arena, name, len);
    if (!f->name) {
        ps->why = "metadata memory limit";
        return false;
    }
    unsigned count_kind = in & 0x60;
    if (count_kind == 0x60) {
        ps->why = "custom-schema field not supported";
        return false;
    }
    if (count_kind == 0x40) {
        uint16_t n;
        if (!gcs_cur_u16(c, &n)) {
            ps->why = "constant count cut short";
            return false;
        }
        f->repeat = GCS_REPEAT_FIXED;
        f->repeat_arg = n;
    } else if (count_kind == 0x20) {
        f->repeat = GCS_REPEAT_U16_PREFIX;
    }
    switch (in & 0x1f) {
    case TL_UNICODESTRING: f->type = GCS_T_UTF16Z; break;
    case TL_ANSISTRING: f->type = GCS_T_ANSIZ; break;
    case TL_INT8: f->type = GCS_T_I8; break;
    case TL_UINT8: f->type = (out & 0x7f) == TL_OUT_BOOLEAN ? GCS_T_BOOL8 : GCS_T_U8; break;
    case TL_INT16: f->type = GCS_T_I16; break;
    case TL_UINT16: f->type = GCS_T_U16; break;
    case TL_INT32: f->type = GCS_T_I32; break;
    case TL_UINT32: f->type = (out & 0x7f) == TL_OUT_BOOLEAN ? GCS_T_BOOL32 : GCS_T_U32; break;
    case TL_INT64: f->type = GCS_T_I64; break;
    case TL_UINT64: f->type = GCS_T_U64; break;
    case TL_FLOAT: f->type = GCS_T_F32; break;
    case TL_DOUBLE: f->type = GCS_T_F64; break;
    case TL_BOOL32: f->type = GCS_T_BOOL32; break;
    case TL_GUID: f->type = GCS_T_GUID; break;
    case TL_FILETIME: f->type = GCS_T_DATETIME; break;
    case TL_HEXINT32: f->type = GCS_T_U32; f->hex = true; break;
    case TL_HEXINT64: f->type = GCS_T_U64; f->hex = true; break;
    case TL_BINARY:
        if (count_kind) {
            ps->why = "array of binary not supported";
            return false;
        }
        f->type = GCS_T_BINARY; /* uint16 byte count, then the bytes */
        f->repeat = GCS_REPEAT_U16_PREFIX;
        break;
    case TL_SYSTEMTIME: {
        if (count_kind) {
            ps->why = "array of SYSTEMTIME not supported";
            return false;
        }
        /* Eight uint16: year, month, day of week, day, hour, minute,
         * second, milliseconds. */
        f->type = GCS_T_U16;
        f->repeat = GCS_REPEAT_FIXED;
        f->repeat_arg = 8;
        break;
    }
    case TL_STRUCT: {
        if (depth >= GCS_MAX_FIELD_DEPTH) {
            ps->why = "structs nested too deep";
            return false;
        }
        gcs_field *children;
        uint32_t n;
        if (!parse_fields(ps, c, out & 0x7f, false, &children, &n, depth + 1))
            return false;
        f->type = GCS_T_STRUCT;
        f->children = children;
        f->child_count = n;
        break;
    }
    default:
        ps->why = "field type not supported";
        return false;
    }
    if ((out & 0x7f) == TL_OUT_HEX)
        f->hex = true;
    return true;
}

static bool parse_fields(parse_state *ps, gcs_cursor *c, size_t count, bool until_end,
                         gcs_field **out, uint32_t *out_n, unsigned depth)
{
    gcs_field tmp[TL_MAX_FIELDS];
    size_t n = 0;
    while (until_end ? gcs_cur_left(c) > 0 : n < count) {
        if (n == TL_MAX_FIELDS || ++ps->fields_made > GCS_MAX_FIELDS) {
            ps->why = "too many fields";
            return false;
        }
        if (!parse_field(ps, c, &tmp[n], depth))
            return false;
        n++;
    }
    gcs_field *kept = NULL;
    if (n) {
        kept = gcs_arena_alloc(ps->arena, n * sizeof *kept);
        if (!kept) {
            ps->why = "metadata memory limit";
            return false;
        }
        memcpy(kept, tmp, n * sizeof *kept);
    }
    *out = kept;
    *out_n = (uint32_t)n;
    return true;
}

bool gcs_tl_parse(const uint8_t *schema, size_t schema_size, const uint8_t *traits,
                  size_t traits_size, gcs_arena *arena, gcs_tl_event *out, const char **why)
{
    memset(out, 0, sizeof *out);
    parse_state ps = {arena, 0, NULL};
    gcs_cursor c = gcs_cur_make(schema, schema_size, 0);
    uint16_t size;
    size_t len;
    if (!gcs_cur_u16(&c, &size) || size < 2 || size > schema_size) {
        *why = "TraceLogging schema size invalid";
        return false;
    }
    c = gcs_cur_make(schema + 2, (size_t)size - 2, 2);
    const char *name;
    if (!skip_chained(&c, 4) || !(name = read_cstr(&c, &len))) {
        *why = "TraceLogging event tags or name cut short";
        return false;
    }
    out->event_name = gcs_arena_strndup(arena, name, len);
    gcs_field *fields;
    uint32_t n;
    if (!out->event_name || !parse_fields(&ps, &c, 0, true, &fields, &n, 0)) {
        *why = ps.why ? ps.why : "metadata memory limit";
        return false;
    }
    out->fields = fields;
    out->field_count = n;
    if (traits) {
        gcs_cursor t = gcs_cur_make(traits, traits_size, 0);
        uint16_t tsize;
        const char *pname;
        if (gcs_cur_u16(&t, &tsize) && (pname = read_cstr(&t, &len)) && len > 0) {
            out->provider = gcs_arena_strndup(arena, pname, len);
            if (!out->provider) {
                *why = "metadata memory limit";
                return false;
            }
        }
    }
    return true;
}
