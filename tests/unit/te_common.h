/*
 * te_common.h - shared pieces of the TraceEvent agreement tests: reading
 * our events through the public API into flat (name, value) lists written
 * the way the oracle writes raw values, and parsing the oracle's lines
 * ("dump --all" lines and "Provider/Name, count, <Event .../>" lines).
 *
 * Flattening rules (they mirror docs/fixtures.md "dump --all line format"):
 *  - top-level scalar:             Name=value
 *  - top-level array of scalars:   Name=[a,b]
 *  - top-level array of structs:   Name[i].Prop=value for every element
 *  - arrays inside structs:        Name[i].Prop=[a,b]
 * Values: integers in decimal (signed for I*), booleans true/false,
 * floats "%.17g" (compared numerically), strings quoted with the oracle's
 * escapes, GUIDs in lowercase D format, binary as 0x + uppercase hex.
 */
#ifndef GCS_TESTS_TE_COMMON_H
#define GCS_TESTS_TE_COMMON_H

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "gcscope.h"
#include "gcscope/decode.h"

typedef struct te_field {
    char *name;
    char *value;
    bool is_float;
} te_field;

typedef struct te_fields {
    te_field *v;
    size_t n, cap;
} te_fields;

static void te_fields_clear(te_fields *fs)
{
    for (size_t i = 0; i < fs->n; i++) {
        free(fs->v[i].name);
        free(fs->v[i].value);
    }
    fs->n = 0;
}

static void te_fields_free(te_fields *fs)
{
    te_fields_clear(fs);
    free(fs->v);
    fs->v = NULL;
    fs->cap = 0;
}

static void te_fields_add(te_fields *fs, const char *name, size_t name_len, const char *value,
                          size_t value_len, bool is_float)
{
    if (fs->n == fs->cap) {
        fs->cap = fs->cap ? fs->cap * 2 : 32;
        fs->v = realloc(fs->v, fs->cap * sizeof *fs->v);
    }
    te_field *f = &fs->v[fs->n++];
    f->name = strndup(name, name_len);
    f->value = strndup(value, value_len);
    f->is_float = is_float;
}

static const te_field *te_fields_get(const te_fields *fs, const char *name)
{
    for (size_t i = 0; i < fs->n; i++)
        if (strcmp(fs->v[i].name, name) == 0) return &fs->v[i];
    return NULL;
}

/* A growable string. */
typedef struct te_str {
    char *p;
    size_t n, cap;
} te_str;

static void te_str_put(te_str *s, const char *text, size_t len)
{
    if (s->n + len + 1 > s->cap) {
        while (s->n + len + 1 > s->cap) s->cap = s->cap ? s->cap * 2 : 256;
        s->p = realloc(s->p, s->cap);
    }
    memcpy(s->p + s->n, text, len);
    s->n += len;
    s->p[s->n] = 0;
}

static void te_str_puts(te_str *s, const char *text) { te_str_put(s, text, strlen(text)); }

/* Oracle rendering of one scalar value. */
static void te_render_scalar(te_str *s, const gcs_value *v, bool *is_float)
{
    char tmp[64];
    *is_float = false;
    switch (v->type) {
    case GCS_T_BOOL8:
    case GCS_T_BOOL32:
        te_str_puts(s, v->u ? "true" : "false");
        return;
    case GCS_T_I8:
    case GCS_T_I16:
    case GCS_T_I32:
    case GCS_T_I64:
        snprintf(tmp, sizeof tmp, "%lld", (long long)v->i);
        te_str_puts(s, tmp);
        return;
    case GCS_T_F32:
    case GCS_T_F64:
        *is_float = true;
        snprintf(tmp, sizeof tmp, "%.17g", v->f);
        te_str_puts(s, tmp);
        return;
    case GCS_T_GUID: {
        const uint8_t *b = v->bytes;
        snprintf(tmp, sizeof tmp,
                 "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", b[3],
                 b[2], b[1], b[0], b[5], b[4], b[7], b[6], b[8], b[9], b[10], b[11], b[12], b[13],
                 b[14], b[15]);
        te_str_puts(s, tmp);
        return;
    }
    case GCS_T_BINARY:
        te_str_puts(s, "0x");
        for (uint32_t i = 0; i < v->size; i++) {
            snprintf(tmp, sizeof tmp, "%02X", v->bytes[i]);
            te_str_puts(s, tmp);
        }
        return;
    case GCS_T_UTF16Z:
    case GCS_T_ANSIZ:
    case GCS_T_UTF8:
    case GCS_T_SID:
    case GCS_T_IPV4:
    case GCS_T_IPV6:
    case GCS_T_UTF16_FIXED:
        te_str_puts(s, "\"");
        for (size_t i = 0; i < v->str_len; i++) {
            unsigned char c = (unsigned char)v->str[i];
            switch (c) {
            case '"': te_str_puts(s, "\\\""); break;
            case '\\': te_str_puts(s, "\\\\"); break;
            case '\n': te_str_puts(s, "\\n"); break;
            case '\r': te_str_puts(s, "\\r"); break;
            case '\t': te_str_puts(s, "\\t"); break;
            default:
                if (c < 0x20) {
                    snprintf(tmp, sizeof tmp, "\\u%04x", c);
                    te_str_puts(s, tmp);
                } else {
                    te_str_put(s, (const char *)&c, 1);
                }
            }
        }
        te_str_puts(s, "\"");
        return;
    default: /* unsigned integers, CHAR16, POINTER, DATETIME */
        snprintf(tmp, sizeof tmp, "%llu", (unsigned long long)v->u);
        te_str_puts(s, tmp);
        return;
    }
}

/* Walk state: builds the flat list. */
typedef struct te_flatten {
    te_fields *out;
    /* array of scalars being collected (top level or inside a struct) */
    bool in_scalar_array;
    uint32_t array_depth;
    te_str array_text;
    char array_name[256];
    /* struct element of a top-level array */
    char elem_prefix[256];
    bool any_float;
} te_flatten;

static int te_flatten_visit(const gcs_value *v, void *ctx)
{
    te_flatten *fl = ctx;
    char name[512];
    switch (v->kind) {
    case GCS_VALUE_ARRAY_BEGIN:
        if (v->type != GCS_T_STRUCT) {
            fl->in_scalar_array = true;
            fl->array_depth = v->depth;
            fl->array_text.n = 0;
            te_str_puts(&fl->array_text, "[");
            if (v->depth == 0)
                snprintf(fl->array_name, sizeof fl->array_name, "%s", v->field->name);
            else if (snprintf(fl->array_name, sizeof fl->array_name, "%s.%s", fl->elem_prefix,
                              v->field->name) >= (int)sizeof fl->array_name)
                fl->array_name[0] = 0; /* never with real schemas; shows as a mismatch */
        }
        return 0;
    case GCS_VALUE_ARRAY_END:
        if (fl->in_scalar_array && v->depth == fl->array_depth && v->type != GCS_T_STRUCT) {
            te_str_puts(&fl->array_text, "]");
            te_fields_add(fl->out, fl->array_name, strlen(fl->array_name), fl->array_text.p,
                          fl->array_text.n, false);
            fl->in_scalar_array = false;
        }
        return 0;
    case GCS_VALUE_STRUCT_BEGIN:
        if (v->depth == 0) {
            if (v->in_array)
                snprintf(fl->elem_prefix, sizeof fl->elem_prefix, "%s[%u]", v->field->name,
                         v->index);
            else
                snprintf(fl->elem_prefix, sizeof fl->elem_prefix, "%s", v->field->name);
        }
        return 0;
    case GCS_VALUE_STRUCT_END:
        return 0;
    case GCS_VALUE_SCALAR:
        break;
    }
    bool is_float = false;
    if (fl->in_scalar_array) {
        if (v->index > 0) te_str_puts(&fl->array_text, ",");
        te_render_scalar(&fl->array_text, v, &is_float);
        return 0;
    }
    te_str val = {0};
    te_render_scalar(&val, v, &is_float);
    if (v->depth == 0)
        snprintf(name, sizeof name, "%s", v->field->name);
    else
        snprintf(name, sizeof name, "%s.%s", fl->elem_prefix, v->field->name);
    te_fields_add(fl->out, name, strlen(name), val.p, val.n, is_float);
    free(val.p);
    return 0;
}

/* Our event's payload as a flat list; false when the payload does not fit. */
static bool te_flatten_event(const gcs_event *ev, te_fields *out)
{
    te_fields_clear(out);
    te_flatten fl = {.out = out};
    gcs_error err;
    gcs_error_clear(&err);
    gcs_status st = gcs_payload_walk(ev, te_flatten_visit, &fl, &err);
    free(fl.array_text.p);
    return st == GCS_OK;
}

/* Length of one value token of the oracle's line starting at p: a quoted
 * string, a bracketed [..] or {..} group (quotes respected), or up to the
 * next separator (space, or ',' / '}' inside a group when in_group). */
static size_t te_value_len(const char *p, bool in_group)
{
    const char *q = p;
    if (*q == '"') {
        q++;
        while (*q && *q != '"') {
            if (*q == '\\' && q[1]) q++;
            q++;
        }
        if (*q == '"') q++;
        return (size_t)(q - p);
    }
    if (*q == '[' || *q == '{') {
        int depth = 0;
        bool in_str = false;
        for (; *q; q++) {
            if (in_str) {
                if (*q == '\\' && q[1]) q++;
                else if (*q == '"') in_str = false;
                continue;
            }
            if (*q == '"') in_str = true;
            else if (*q == '[' || *q == '{') depth++;
            else if (*q == ']' || *q == '}') {
                if (--depth == 0) {
                    q++;
                    break;
                }
            }
        }
        return (size_t)(q - p);
    }
    while (*q && *q != ' ' && *q != '\n' && !(in_group && (*q == ',' || *q == '}'))) q++;
    return (size_t)(q - p);
}

/* Splits the oracle's "Name=Value Name=Value" (separator ' ') or a group's
 * inside "Prop=V,Prop=V" (separator ','), prefixing names with prefix.
 * Groups "{...}" expand to Name.Prop entries. */
static void te_parse_fields(const char *p, const char *end, const char *prefix, bool in_group,
                            te_fields *out)
{
    while (p < end && *p && *p != '\n') {
        while (p < end && (*p == ' ' || *p == ',')) p++;
        if (p >= end || !*p || *p == '\n') break;
        const char *eq = p;
        while (eq < end && *eq && *eq != '=') eq++;
        if (eq >= end || *eq != '=') break;
        char name[512];
        snprintf(name, sizeof name, "%s%s%.*s", prefix, *prefix ? "." : "", (int)(eq - p), p);
        const char *val = eq + 1;
        size_t len = te_value_len(val, in_group);
        if (*val == '{') {
            te_parse_fields(val + 1, val + len - 1, name, true, out);
        } else {
            te_fields_add(out, name, strlen(name), val, len, false);
        }
        p = val + len;
    }
}

/* Numeric equality of two float texts ("R" round trip vs %.17g). F32 fields
 * compare as float. */
static bool te_float_equal(const char *a, const char *b)
{
    char *ea, *eb;
    double x = strtod(a, &ea), y = strtod(b, &eb);
    if (ea == a || eb == b) return strcmp(a, b) == 0;
    return x == y || (float)x == (float)y;
}

/* Reads a whole file, through gzip -dc when the name ends in .gz. */
static char *te_read_text(const char *path, size_t *size)
{
    FILE *f;
    size_t n = strlen(path);
    bool gz = n > 3 && strcmp(path + n - 3, ".gz") == 0;
    if (gz) {
        FILE *probe = fopen(path, "rb");
        if (!probe) return NULL;
        fclose(probe);
        char cmd[1024];
        snprintf(cmd, sizeof cmd, "gzip -dc '%s'", path);
        f = popen(cmd, "r");
    } else {
        f = fopen(path, "rb");
    }
    if (!f) return NULL;
    size_t cap = 1 << 20, len = 0;
    char *buf = malloc(cap);
    size_t got;
    while ((got = fread(buf + len, 1, cap - len - 1, f)) > 0) {
        len += got;
        if (cap - len - 1 == 0) {
            cap *= 2;
            buf = realloc(buf, cap);
        }
    }
    buf[len] = 0;
    if (gz) pclose(f);
    else fclose(f);
    if (size) *size = len;
    return buf;
}

#endif
