/*
 * decode/payload.c - walking a payload by its schema (gcs_field list).
 *
 * Only the cursor reads payload bytes. Every count read from the payload is
 * checked against the bytes left before any element is visited (an element
 * takes at least one byte, so count > bytes left is impossible data), and
 * nothing is allocated: strings are converted into a buffer inside the walk
 * state, which lives on the caller's stack.
 */
#include "gcscope/decode.h"

#include <assert.h>
#include <stdio.h>
#include <string.h>

#include "base/buf.h"
#include "base/cursor.h"
#include "base/error.h"
#include "decode/schema_size.h"

typedef struct walker {
    gcs_cursor cur;
    uint32_t pointer_size;
    gcs_value_visitor_fn fn;
    void *ctx;
    gcs_error *err;
    uint32_t scalars;
    bool stopped;
    char str[GCS_VALUE_STR_CAP];
} walker;

static uint32_t cur_pos(const walker *w)
{
    return (uint32_t)gcs_cur_offset(&w->cur);
}

/* Calls the visitor; false when it asked to stop. */
static bool emit(walker *w, const gcs_value *v)
{
    if (v->kind == GCS_VALUE_SCALAR)
        w->scalars++;
    if (w->fn && w->fn(v, w->ctx) != 0) {
        w->stopped = true;
        return false;
    }
    return true;
}

/* UTF-8 bytes a UTF-16 string needs (to tell whether it was cut). */
static size_t utf8_length(const uint8_t *s, size_t units)
{
    size_t n = 0;
    for (size_t i = 0; i < units; i++) {
        uint32_t u = (uint32_t)(s[2 * i] | (s[2 * i + 1] << 8));
        if (u < 0x80)
            n += 1;
        else if (u < 0x800)
            n += 2;
        else if (u >= 0xD800 && u <= 0xDBFF && i + 1 < units) {
            uint32_t u2 = (uint32_t)(s[2 * i + 2] | (s[2 * i + 3] << 8));
            if (u2 >= 0xDC00 && u2 <= 0xDFFF) {
                n += 4;
                i++;
            } else {
                n += 3;
            }
        } else {
            n += 3;
        }
    }
    return n;
}

static void set_utf16(walker *w, gcs_value *v, const uint8_t *s, size_t units)
{
    v->bytes = s;
    if (!w->fn)
        return; /* validating only: nobody reads the text */
    v->str_len = gcs_utf16_to_utf8_buf(s, units, w->str, sizeof w->str);
    v->str = w->str;
    v->str_truncated = v->str_len + 4 >= sizeof w->str && utf8_length(s, units) != v->str_len;
}

static void set_bytes_str(walker *w, gcs_value *v, const uint8_t *s, size_t n)
{
    v->bytes = s;
    if (!w->fn)
        return; /* validating only: nobody reads the text */
    size_t k = n < sizeof w->str - 1 ? n : sizeof w->str - 1;
    memcpy(w->str, s, k);
    w->str[k] = '\0';
    v->bytes = s;
    v->str = w->str;
    v->str_len = k;
    v->str_truncated = k < n;
}

static gcs_status short_payload(walker *w, const gcs_field *f, const char *what)
{
    return GCS_CORRUPT(w->err, gcs_cur_offset(&w->cur),
                       "payload ends inside field %s (%s, %zu bytes left)",
                       f->name ? f->name : "?", what, gcs_cur_left(&w->cur));
}

/*
 * A security id as ETW's kernel Process events hold it (TraceEvent's
 * SkipSID, confirmed on net.4.5.2.x86.etl: docs/format-etl.md): a 32-bit
 * 0 when there is none, else a TOKEN_USER (two pointers) then the SID:
 * revision, sub-authority count n, 6-byte authority (big-endian), n
 * 32-bit sub-authorities. v->bytes is the SID (NULL for none), v->str its
 * text "S-1-5-18" ("" for none). False when cut short.
 */
static bool read_sid(walker *w, const gcs_field *f, gcs_value *v)
{
    (void)f;
    gcs_cursor *c = &w->cur;
    gcs_cursor peek = *c;
    uint32_t first;
    if (!gcs_cur_u32(&peek, &first))
        return false;
    v->bytes = NULL;
    v->str = "";
    v->str_len = 0;
    if (first == 0) {
        (void)gcs_cur_skip(c, 4);
        return true;
    }
    const uint8_t *sid;
    if (!gcs_cur_skip(c, 2 * (size_t)w->pointer_size) || gcs_cur_left(c) < 8)
        return false;
    size_t n = c->p[1];
    if (!gcs_cur_bytes(c, 8 + 4 * n, &sid))
        return false;
    v->bytes = sid;
    if (!w->fn)
        return true;
    uint64_t authority = 0;
    for (int i = 2; i < 8; i++)
        authority = authority << 8 | sid[i];
    size_t len = (size_t)snprintf(w->str, sizeof w->str, "S-%u-%llu", sid[0],
                                  (unsigned long long)authority);
    for (size_t i = 0; i < n && len < sizeof w->str; i++) {
        const uint8_t *s = sid + 8 + 4 * i;
        uint32_t sub = (uint32_t)s[0] | (uint32_t)s[1] << 8 | (uint32_t)s[2] << 16 |
                       (uint32_t)s[3] << 24;
        len += (size_t)snprintf(w->str + len, sizeof w->str - len, "-%u", sub);
    }
    v->str = w->str;
    v->str_len = len < sizeof w->str ? len : sizeof w->str - 1;
    v->str_truncated = len >= sizeof w->str;
    return true;
}

/* IPv6 text as .NET's IPAddress.ToString() gives it (TraceEvent shows
 * that): RFC 5952 groups in lowercase hex, the first longest run of two
 * or more zero groups as "::", and the last 32 bits dotted when the
 * address embeds an IPv4 one (compatible ::a.b.c.d, mapped ::ffff:,
 * SIIT ::ffff:0:, ISATAP ...:0:5efe:) - checked against .NET 10. */
static size_t ipv6_text(const uint8_t *b, char *out, size_t cap)
{
    unsigned g[8];
    for (int i = 0; i < 8; i++)
        g[i] = (unsigned)b[2 * i] << 8 | b[2 * i + 1];
    bool low_zero = g[0] == 0 && g[1] == 0 && g[2] == 0 && g[3] == 0 && g[6] != 0;
    bool embeds_v4 = (low_zero && ((g[4] == 0 && (g[5] == 0 || g[5] == 0xffff)) ||
                                   (g[4] == 0xffff && g[5] == 0))) ||
                     (g[4] == 0 && g[5] == 0x5efe);
    int groups = embeds_v4 ? 6 : 8;
    int gap = -1, gap_len = 1;
    for (int i = 0; i < groups;) {
        int j = i;
        while (j < groups && g[j] == 0)
            j++;
        if (j - i > gap_len) {
            gap = i;
            gap_len = j - i;
        }
        i = j > i ? j : i + 1;
    }
    size_t n = 0;
    out[0] = '\0';
    for (int i = 0; i < groups && n < cap; i++) {
        if (i == gap) {
            n += (size_t)snprintf(out + n, cap - n, "::");
            i += gap_len - 1;
            continue;
        }
        bool after_colon = n > 0 && out[n - 1] == ':';
        n += (size_t)snprintf(out + n, cap - n, "%s%x", i == 0 || after_colon ? "" : ":", g[i]);
    }
    if (embeds_v4 && n < cap)
        n += (size_t)snprintf(out + n, cap - n, "%s%u.%u.%u.%u",
                              n > 0 && out[n - 1] == ':' ? "" : ":", b[12], b[13], b[14], b[15]);
    return n < cap ? n : cap - 1;
}

/* A network address of k bytes (4 or 16): v->bytes, its text. */
static bool read_address(walker *w, gcs_value *v, size_t k)
{
    if (!gcs_cur_bytes(&w->cur, k, &v->bytes))
        return false;
    const uint8_t *b = v->bytes;
    if (k == 4)
        v->u = (uint64_t)b[0] << 24 | (uint64_t)b[1] << 16 | (uint64_t)b[2] << 8 | b[3];
    if (!w->fn)
        return true; /* validating only: nobody reads the text */
    if (k == 4)
        v->str_len = (size_t)snprintf(w->str, sizeof w->str, "%u.%u.%u.%u", b[0], b[1], b[2],
                                      b[3]);
    else
        v->str_len = ipv6_text(b, w->str, sizeof w->str);
    v->str = w->str;
    return true;
}

/* Reads one scalar of f's type into v (kind, field, depth, index preset). */
static gcs_status read_scalar(walker *w, const gcs_field *f, gcs_value *v)
{
    gcs_cursor *c = &w->cur;
    v->offset = cur_pos(w);
    switch (f->type) {
    case GCS_T_BOOL8:
    case GCS_T_U8:
    case GCS_T_I8: {
        uint8_t x;
        if (!gcs_cur_u8(c, &x))
            return short_payload(w, f, "1-byte value");
        v->u = x;
        v->i = f->type == GCS_T_I8 ? (int8_t)x : (int64_t)x;
        break;
    }
    case GCS_T_U16:
    case GCS_T_I16:
    case GCS_T_CHAR16: {
        uint16_t x;
        const uint8_t *raw = c->p;
        if (!gcs_cur_u16(c, &x))
            return short_payload(w, f, "2-byte value");
        v->u = x;
        v->i = f->type == GCS_T_I16 ? (int16_t)x : (int64_t)x;
        if (f->type == GCS_T_CHAR16)
            set_utf16(w, v, raw, 1);
        break;
    }
    case GCS_T_BOOL32:
    case GCS_T_U32:
    case GCS_T_I32: {
        uint32_t x;
        if (!gcs_cur_u32(c, &x))
            return short_payload(w, f, "4-byte value");
        v->u = x;
        v->i = f->type == GCS_T_I32 ? (int32_t)x : (int64_t)x;
        break;
    }
    case GCS_T_U64:
    case GCS_T_I64:
    case GCS_T_DATETIME: {
        uint64_t x;
        if (!gcs_cur_u64(c, &x))
            return short_payload(w, f, "8-byte value");
        v->u = x;
        v->i = (int64_t)x;
        break;
    }
    case GCS_T_POINTER: {
        uint64_t x;
        if (!gcs_cur_ptr(c, w->pointer_size, &x))
            return short_payload(w, f, "pointer");
        v->u = x;
        v->i = (int64_t)x;
        break;
    }
    case GCS_T_F32: {
        uint32_t x;
        if (!gcs_cur_u32(c, &x))
            return short_payload(w, f, "float");
        float fl;
        memcpy(&fl, &x, sizeof fl);
        v->f = fl;
        break;
    }
    case GCS_T_F64: {
        uint64_t x;
        if (!gcs_cur_u64(c, &x))
            return short_payload(w, f, "double");
        memcpy(&v->f, &x, sizeof v->f);
        break;
    }
    case GCS_T_GUID:
        if (!gcs_cur_bytes(c, 16, &v->bytes))
            return short_payload(w, f, "GUID");
        break;
    case GCS_T_UTF16Z: {
        const uint8_t *s;
        size_t units;
        if (!gcs_cur_utf16z(c, &s, &units))
            return GCS_CORRUPT(w->err, gcs_cur_offset(c),
                               "UTF-16 string %s has no terminator in the %zu bytes left",
                               f->name ? f->name : "?", gcs_cur_left(c));
        set_utf16(w, v, s, units);
        break;
    }
    case GCS_T_ANSIZ: {
        const uint8_t *s;
        size_t len;
        if (!gcs_cur_ansiz(c, &s, &len))
            return GCS_CORRUPT(w->err, gcs_cur_offset(c),
                               "string %s has no terminator in the %zu bytes left",
                               f->name ? f->name : "?", gcs_cur_left(c));
        set_bytes_str(w, v, s, len);
        break;
    }
    case GCS_T_UTF8: {
        uint32_t len;
        const uint8_t *s;
        if (!gcs_cur_varu32(c, &len))
            return short_payload(w, f, "UTF-8 length");
        if (len > gcs_cur_left(c))
            return GCS_CORRUPT(w->err, gcs_cur_offset(c),
                               "UTF-8 string %s of %u bytes exceeds the %zu bytes left",
                               f->name ? f->name : "?", len, gcs_cur_left(c));
        if (!gcs_cur_bytes(c, len, &s))
            return short_payload(w, f, "UTF-8 bytes");
        set_bytes_str(w, v, s, len);
        break;
    }
    case GCS_T_VARUINT:
    case GCS_T_VARINT: {
        uint64_t x;
        if (!gcs_cur_varu64(c, &x))
            return short_payload(w, f, "variable-length integer");
        v->u = x;
        /* Zig-zag: the low bit is the sign. */
        v->i = f->type == GCS_T_VARINT ? (int64_t)(x >> 1) ^ -(int64_t)(x & 1) : (int64_t)x;
        if (f->type == GCS_T_VARINT)
            v->u = (uint64_t)v->i;
        break;
    }
    case GCS_T_CHAR8: {
        const uint8_t *s;
        if (!gcs_cur_bytes(c, 1, &s))
            return short_payload(w, f, "1-byte character");
        v->u = s[0];
        v->i = s[0];
        set_bytes_str(w, v, s, 1);
        break;
    }
    case GCS_T_SID:
        if (!read_sid(w, f, v))
            return short_payload(w, f, "security id");
        break;
    case GCS_T_IPV4:
        if (!read_address(w, v, 4))
            return short_payload(w, f, "IPv4 address");
        break;
    case GCS_T_IPV6:
        if (!read_address(w, v, 16))
            return short_payload(w, f, "IPv6 address");
        break;
    case GCS_T_PORT: {
        const uint8_t *b;
        if (!gcs_cur_bytes(c, 2, &b))
            return short_payload(w, f, "port");
        v->u = (uint64_t)b[0] << 8 | b[1]; /* network order */
        v->i = (int64_t)v->u;
        break;
    }
    case GCS_T_NONE:
    case GCS_T_BINARY:
    case GCS_T_STRUCT:
    case GCS_T_UTF16_FIXED:
        /* BINARY, UTF16_FIXED and STRUCT are handled by the caller; NONE
         * has no bytes. */
        assert(!"read_scalar on a non-scalar type");
        return GCS_FAIL(w->err, GCS_ERR_ARG, 0, "field %s: not a scalar type",
                        f->name ? f->name : "?");
    }
    v->size = cur_pos(w) - v->offset;
    return GCS_OK;
}

static gcs_status walk_fields(walker *w, const gcs_field *fields, uint32_t count,
                              uint32_t depth, uint32_t base);

/* One element (or the single value) of field f. */
static gcs_status walk_one(walker *w, const gcs_field *f, uint32_t depth, bool in_array,
                           uint32_t index, uint64_t *int_value, bool *is_int)
{
    gcs_value v;
    memset(&v, 0, sizeof v);
    v.field = f;
    v.type = f->type;
    v.depth = depth;
    v.in_array = in_array;
    v.index = index;
    if (f->type == GCS_T_STRUCT) {
        if (depth + 1 >= GCS_PAYLOAD_MAX_DEPTH)
            return GCS_FAIL(w->err, GCS_ERR_LIMIT, gcs_cur_offset(&w->cur),
                            "schema nests deeper than %d levels at %s", GCS_PAYLOAD_MAX_DEPTH,
                            f->name ? f->name : "?");
        v.kind = GCS_VALUE_STRUCT_BEGIN;
        v.offset = cur_pos(w);
        if (!emit(w, &v))
            return GCS_OK;
        gcs_status st = walk_fields(w, f->children, f->child_count, depth + 1, cur_pos(w));
        if (st != GCS_OK || w->stopped)
            return st;
        v.kind = GCS_VALUE_STRUCT_END;
        v.size = cur_pos(w) - v.offset;
        emit(w, &v);
        return GCS_OK;
    }
    v.kind = GCS_VALUE_SCALAR;
    gcs_status st = read_scalar(w, f, &v);
    if (st != GCS_OK)
        return st;
    switch (f->type) {
    case GCS_T_BOOL8: case GCS_T_BOOL32: case GCS_T_U8: case GCS_T_I8: case GCS_T_U16:
    case GCS_T_I16: case GCS_T_U32: case GCS_T_I32: case GCS_T_U64: case GCS_T_I64:
    case GCS_T_POINTER: case GCS_T_VARINT: case GCS_T_VARUINT: case GCS_T_PORT:
        *is_int = true;
        *int_value = v.u;
        break;
    default:
        break;
    }
    emit(w, &v);
    return GCS_OK;
}

/* How many times field #i repeats. */
static gcs_status repeat_count(walker *w, const gcs_field *fields, uint32_t i,
                               const uint64_t *int_values, const bool *is_int, uint64_t *count)
{
    const gcs_field *f = &fields[i];
    switch (f->repeat) {
    case GCS_REPEAT_ONE:
        *count = 1;
        return GCS_OK;
    case GCS_REPEAT_FIXED:
        *count = f->repeat_arg;
        return GCS_OK;
    case GCS_REPEAT_COUNT_FIELD:
        if (f->repeat_arg >= i)
            return GCS_CORRUPT(w->err, gcs_cur_offset(&w->cur),
                               "field %s counts by field #%u, which does not precede it",
                               f->name ? f->name : "?", f->repeat_arg);
        if (f->repeat_arg >= GCS_PAYLOAD_MAX_COUNT_FIELDS)
            return GCS_FAIL(w->err, GCS_ERR_LIMIT, gcs_cur_offset(&w->cur),
                            "field %s counts by field #%u, past the %d supported",
                            f->name ? f->name : "?", f->repeat_arg,
                            GCS_PAYLOAD_MAX_COUNT_FIELDS);
        if (!is_int[f->repeat_arg])
            return GCS_CORRUPT(w->err, gcs_cur_offset(&w->cur),
                               "field %s counts by field %s, which is not a single integer",
                               f->name ? f->name : "?",
                               fields[f->repeat_arg].name ? fields[f->repeat_arg].name : "?");
        *count = int_values[f->repeat_arg];
        return GCS_OK;
    case GCS_REPEAT_U16_PREFIX: {
        uint16_t n;
        if (!gcs_cur_u16(&w->cur, &n))
            return short_payload(w, f, "element count");
        *count = n;
        return GCS_OK;
    }
    case GCS_REPEAT_VARUINT_PREFIX: {
        uint32_t n;
        if (!gcs_cur_varu32(&w->cur, &n))
            return short_payload(w, f, "element count");
        *count = n;
        return GCS_OK;
    }
    case GCS_REPEAT_RELLOC:
    case GCS_REPEAT_DATALOC:
        /* Elements live elsewhere in the payload: see walk_located. */
        *count = 0;
        return GCS_OK;
    }
    return GCS_FAIL(w->err, GCS_ERR_ARG, 0, "field %s: unknown repeat rule %d",
                    f->name ? f->name : "?", (int)f->repeat);
}

/*
 * V6 RelLoc/DataLoc arrays: a 4-byte descriptor (high 16 bits: size in
 * bytes, low 16 bits: position) points at the elements elsewhere in the
 * payload: relative to the end of the descriptor (RelLoc) or to the start
 * of the payload (DataLoc). Elements must be of fixed size.
 */
static gcs_status walk_located(walker *w, const gcs_field *f, uint32_t depth)
{
    uint32_t desc;
    if (!gcs_cur_u32(&w->cur, &desc))
        return short_payload(w, f, "location descriptor");
    uint32_t size = desc >> 16, pos = desc & 0xFFFF;
    gcs_field one = *f;
    one.repeat = GCS_REPEAT_ONE;
    uint32_t elem = 0;
    if (!gcs_schema_fixed_size(&one, 1, w->pointer_size, &elem) || elem == 0)
        return GCS_CORRUPT(w->err, gcs_cur_offset(&w->cur),
                           "field %s: located array of elements without a fixed size",
                           f->name ? f->name : "?");
    size_t payload_size = (size_t)(w->cur.end - w->cur.start);
    size_t target = f->repeat == GCS_REPEAT_RELLOC ? (size_t)(w->cur.p - w->cur.start) + pos : pos;
    if (target > payload_size || size > payload_size - target || size % elem != 0)
        return GCS_CORRUPT(w->err, gcs_cur_offset(&w->cur),
                           "field %s: %u bytes at payload offset %zu do not fit the %zu-byte "
                           "payload in %u-byte elements",
                           f->name ? f->name : "?", size, target, payload_size, elem);
    gcs_cursor saved = w->cur;
    w->cur = gcs_cur_make(saved.start + target, size, saved.origin + target);
    gcs_value a;
    memset(&a, 0, sizeof a);
    a.kind = GCS_VALUE_ARRAY_BEGIN;
    a.field = f;
    a.type = f->type;
    a.depth = depth;
    a.count = size / elem;
    a.offset = cur_pos(w);
    gcs_status st = GCS_OK;
    if (emit(w, &a)) {
        for (uint32_t k = 0; k < a.count && !w->stopped && st == GCS_OK; k++) {
            uint64_t elem_value;
            bool elem_int = false;
            st = walk_one(w, f, depth, true, k, &elem_value, &elem_int);
        }
        if (st == GCS_OK && !w->stopped) {
            a.kind = GCS_VALUE_ARRAY_END;
            a.size = size;
            emit(w, &a);
        }
    }
    w->cur = saved;
    return st;
}

/*
 * base: payload offset where this struct element (or the payload) starts.
 * A GCS_T_NONE field with GCS_REPEAT_FIXED is padding: skip to the next
 * multiple of repeat_arg bytes from base (0: the pointer size), as the
 * runtime writes some arrays as raw C structs. Other NONE fields are empty.
 */
static gcs_status walk_fields(walker *w, const gcs_field *fields, uint32_t count,
                              uint32_t depth, uint32_t base)
{
    uint64_t int_values[GCS_PAYLOAD_MAX_COUNT_FIELDS];
    bool is_int[GCS_PAYLOAD_MAX_COUNT_FIELDS];
    memset(is_int, 0, sizeof is_int);
    for (uint32_t i = 0; i < count && !w->stopped; i++) {
        const gcs_field *f = &fields[i];
        uint64_t ignored_value;
        bool ignored_flag = false;
        uint64_t *slot = i < GCS_PAYLOAD_MAX_COUNT_FIELDS ? &int_values[i] : &ignored_value;
        bool *slot_flag = i < GCS_PAYLOAD_MAX_COUNT_FIELDS ? &is_int[i] : &ignored_flag;
        if (f->type == GCS_T_NONE) {
            if (f->repeat != GCS_REPEAT_FIXED)
                continue;
            uint32_t align = f->repeat_arg ? f->repeat_arg : w->pointer_size;
            uint32_t rel = cur_pos(w) - base;
            uint32_t pad = (align - rel % align) % align;
            if (!gcs_cur_skip(&w->cur, pad))
                return short_payload(w, f, "padding");
            continue;
        }
        if (f->repeat == GCS_REPEAT_RELLOC || f->repeat == GCS_REPEAT_DATALOC) {
            gcs_status st = walk_located(w, f, depth);
            if (st != GCS_OK)
                return st;
            continue;
        }
        uint64_t n = 0;
        gcs_status st = repeat_count(w, fields, i, int_values, is_int, &n);
        if (st != GCS_OK)
            return st;
        size_t left = gcs_cur_left(&w->cur);
        if (f->type == GCS_T_BINARY || f->type == GCS_T_UTF16_FIXED) {
            /* Raw bytes, or UTF-16 code units whose text ends at the first
             * 0x0000 (or fills them all): the repeat rule gives how many. */
            size_t unit = f->type == GCS_T_BINARY ? 1 : 2;
            gcs_value v;
            memset(&v, 0, sizeof v);
            v.kind = GCS_VALUE_SCALAR;
            v.field = f;
            v.type = f->type;
            v.depth = depth;
            v.offset = cur_pos(w);
            if (n > left / unit)
                return GCS_CORRUPT(w->err, gcs_cur_offset(&w->cur),
                                   "field %s: %llu %s exceed the %zu bytes left",
                                   f->name ? f->name : "?", (unsigned long long)n,
                                   unit == 1 ? "bytes" : "UTF-16 units", left);
            if (!gcs_cur_bytes(&w->cur, (size_t)n * unit, &v.bytes))
                return short_payload(w, f, "bytes");
            if (f->type == GCS_T_UTF16_FIXED) {
                size_t units = 0;
                while (units < n && (v.bytes[2 * units] | v.bytes[2 * units + 1]) != 0)
                    units++;
                set_utf16(w, &v, v.bytes, units);
            }
            v.size = (uint32_t)(n * unit);
            emit(w, &v);
            continue;
        }
        if (f->repeat == GCS_REPEAT_ONE) {
            st = walk_one(w, f, depth, false, 0, slot, slot_flag);
            if (st != GCS_OK)
                return st;
            continue;
        }
        /* An element takes at least one byte: a larger count is corrupt,
         * and nothing is ever sized from it. */
        if (n > left)
            return GCS_CORRUPT(w->err, gcs_cur_offset(&w->cur),
                               "field %s: %llu elements exceed the %zu bytes left",
                               f->name ? f->name : "?", (unsigned long long)n, left);
        gcs_value a;
        memset(&a, 0, sizeof a);
        a.kind = GCS_VALUE_ARRAY_BEGIN;
        a.field = f;
        a.type = f->type;
        a.depth = depth;
        a.count = (uint32_t)n;
        a.offset = cur_pos(w);
        if (!emit(w, &a))
            return GCS_OK;
        for (uint32_t k = 0; k < (uint32_t)n && !w->stopped; k++) {
            uint64_t elem_value;
            bool elem_int = false;
            st = walk_one(w, f, depth, true, k, &elem_value, &elem_int);
            if (st != GCS_OK)
                return st;
        }
        if (w->stopped)
            return GCS_OK;
        a.kind = GCS_VALUE_ARRAY_END;
        a.size = cur_pos(w) - a.offset;
        emit(w, &a);
    }
    return GCS_OK;
}

gcs_status gcs_payload_walk_fields(const gcs_field *fields, uint32_t field_count,
                                   const uint8_t *payload, uint32_t payload_size,
                                   uint32_t pointer_size, gcs_value_visitor_fn fn, void *ctx,
                                   gcs_payload_info *info, gcs_error *err)
{
    if (info)
        memset(info, 0, sizeof *info);
    if ((field_count > 0 && !fields) || (payload_size > 0 && !payload))
        return GCS_FAIL(err, GCS_ERR_ARG, 0, "payload walk without schema or bytes");
    if (pointer_size != 4 && pointer_size != 8)
        return GCS_FAIL(err, GCS_ERR_ARG, 0, "pointer size %u is neither 4 nor 8",
                        (unsigned)pointer_size);
    walker w;
    w.cur = gcs_cur_make(payload ? (const void *)payload : (const void *)"", payload_size, 0);
    w.pointer_size = pointer_size;
    w.fn = fn;
    w.ctx = ctx;
    w.err = err;
    w.scalars = 0;
    w.stopped = false;
    w.str[0] = '\0';
    gcs_status st = walk_fields(&w, fields, field_count, 0, 0);
    if (info) {
        info->bytes_used = cur_pos(&w);
        info->trailing_bytes = st == GCS_OK && !w.stopped ? (uint32_t)gcs_cur_left(&w.cur) : 0;
        info->scalars = w.scalars;
        info->stopped = w.stopped;
    }
    return st;
}

gcs_status gcs_payload_walk(const gcs_event *ev, gcs_value_visitor_fn fn, void *ctx,
                            gcs_error *err)
{
    if (!ev || !ev->type)
        return GCS_FAIL(err, GCS_ERR_ARG, 0, "payload walk without an event type");
    return gcs_payload_walk_fields(ev->type->fields, ev->type->field_count, ev->payload,
                                   ev->payload_size, ev->pointer_size, fn, ctx, NULL, err);
}

/* ---- by-name helpers ---------------------------------------------- */

typedef struct find_ctx {
    const char *name;
    bool found;
    gcs_value value; /* copy; str points to find_ctx.str */
    char str[GCS_VALUE_STR_CAP];
} find_ctx;

static int find_visitor(const gcs_value *v, void *ctx)
{
    find_ctx *fc = ctx;
    if (v->depth != 0 || !v->field->name || strcmp(v->field->name, fc->name) != 0)
        return 0;
    /* First top-level value of that name: a scalar answers, anything else
     * (array, struct) means no simple value. */
    if (v->kind == GCS_VALUE_SCALAR && !v->in_array) {
        fc->found = true;
        fc->value = *v;
        if (v->str) {
            memcpy(fc->str, v->str, v->str_len + 1);
            fc->value.str = fc->str;
        }
    }
    return 1;
}

static bool find_value(const gcs_event *ev, const char *name, find_ctx *fc)
{
    if (!ev || !ev->type || !name)
        return false;
    fc->name = name;
    fc->found = false;
    gcs_error err;
    gcs_payload_walk(ev, find_visitor, fc, &err);
    return fc->found;
}

static bool is_integer_type(gcs_type t)
{
    switch (t) {
    case GCS_T_BOOL8: case GCS_T_BOOL32: case GCS_T_CHAR16: case GCS_T_I8: case GCS_T_U8:
    case GCS_T_I16: case GCS_T_U16: case GCS_T_I32: case GCS_T_U32: case GCS_T_I64:
    case GCS_T_U64: case GCS_T_POINTER: case GCS_T_DATETIME: case GCS_T_PORT:
        return true;
    default:
        return false;
    }
}

bool gcs_payload_find_u64(const gcs_event *ev, const char *field_name, uint64_t *out)
{
    find_ctx fc;
    if (!find_value(ev, field_name, &fc) || !is_integer_type(fc.value.type))
        return false;
    *out = fc.value.u;
    return true;
}

bool gcs_payload_find_i64(const gcs_event *ev, const char *field_name, int64_t *out)
{
    find_ctx fc;
    if (!find_value(ev, field_name, &fc) || !is_integer_type(fc.value.type))
        return false;
    *out = fc.value.i;
    return true;
}

bool gcs_payload_find_f64(const gcs_event *ev, const char *field_name, double *out)
{
    find_ctx fc;
    if (!find_value(ev, field_name, &fc))
        return false;
    if (fc.value.type == GCS_T_F32 || fc.value.type == GCS_T_F64)
        *out = fc.value.f;
    else if (is_integer_type(fc.value.type))
        *out = (fc.value.type == GCS_T_I8 || fc.value.type == GCS_T_I16 ||
                fc.value.type == GCS_T_I32 || fc.value.type == GCS_T_I64)
                   ? (double)fc.value.i
                   : (double)fc.value.u;
    else
        return false;
    return true;
}

bool gcs_payload_find_str(const gcs_event *ev, const char *field_name, char *buf, size_t cap)
{
    find_ctx fc;
    if (!buf || cap == 0 || !find_value(ev, field_name, &fc) || !fc.value.str)
        return false;
    size_t n = fc.value.str_len < cap - 1 ? fc.value.str_len : cap - 1;
    memcpy(buf, fc.value.str, n);
    buf[n] = '\0';
    return true;
}
