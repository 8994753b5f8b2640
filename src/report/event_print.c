/*
 * report/event_print.c - one event as a line of text or a JSON object
 * (what `gcscope events` prints). Output is deterministic: no pointers of
 * our own, fixed number formats, fields in schema order.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "base/error.h"
#include "gcscope/decode.h"

enum { LEVEL_FIELDS, LEVEL_ARRAY };

#define PRINT_MAX_LEVELS (2 * GCS_PAYLOAD_MAX_DEPTH + 2)

typedef struct printer {
    FILE *out;
    bool json;
    int depth;                      /* levels open; level 0 = top fields */
    int kind[PRINT_MAX_LEVELS];
    bool has_item[PRINT_MAX_LEVELS];
} printer;

/* Length of the valid UTF-8 sequence at s[0..n), or 0. */
static size_t utf8_sequence(const unsigned char *s, size_t n)
{
    size_t len;
    uint32_t cp;
    if (s[0] < 0x80)
        return 1;
    if ((s[0] & 0xe0) == 0xc0) {
        len = 2;
        cp = s[0] & 0x1f;
    } else if ((s[0] & 0xf0) == 0xe0) {
        len = 3;
        cp = s[0] & 0x0f;
    } else if ((s[0] & 0xf8) == 0xf0) {
        len = 4;
        cp = s[0] & 0x07;
    } else {
        return 0;
    }
    if (len > n)
        return 0;
    for (size_t i = 1; i < len; i++) {
        if ((s[i] & 0xc0) != 0x80)
            return 0;
        cp = (cp << 6) | (s[i] & 0x3f);
    }
    static const uint32_t min_cp[5] = {0, 0, 0x80, 0x800, 0x10000};
    if (cp < min_cp[len] || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
        return 0;
    return len;
}

/* Escapes for a quoted string; bytes that are not valid UTF-8 (ANSI strings)
 * become \u00XX (JSON) or \xXX (text), so every line stays valid UTF-8. */
static void put_escaped(FILE *out, const char *s, size_t n, bool json)
{
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c >= 0x80) {
            size_t k = utf8_sequence((const unsigned char *)s + i, n - i);
            if (k == 0) {
                fprintf(out, json ? "\\u%04x" : "\\x%02x", c);
            } else {
                fwrite(s + i, 1, k, out);
                i += k - 1;
            }
            continue;
        }
        switch (c) {
        case '"': fputs("\\\"", out); break;
        case '\\': fputs("\\\\", out); break;
        case '\n': fputs("\\n", out); break;
        case '\r': fputs("\\r", out); break;
        case '\t': fputs("\\t", out); break;
        default:
            if (c < 0x20 || c == 0x7f) {
                if (json)
                    fprintf(out, "\\u%04x", c);
                else
                    fprintf(out, "\\x%02x", c);
            } else {
                fputc(c, out);
            }
        }
    }
}

static void put_quoted(FILE *out, const char *s, size_t n, bool json)
{
    fputc('"', out);
    put_escaped(out, s, n, json);
    fputc('"', out);
}

static void put_guid(FILE *out, const uint8_t *g)
{
    /* Data1..3 little-endian, Data4 as bytes: TraceEvent's Guid.ToString(). */
    fprintf(out, "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", g[3],
            g[2], g[1], g[0], g[5], g[4], g[7], g[6], g[8], g[9], g[10], g[11], g[12], g[13],
            g[14], g[15]);
}

static bool is_signed(gcs_type t)
{
    return t == GCS_T_I8 || t == GCS_T_I16 || t == GCS_T_I32 || t == GCS_T_I64;
}

static void put_scalar(printer *p, const gcs_value *v)
{
    FILE *out = p->out;
    const gcs_field *f = v->field;
    switch (v->type) {
    case GCS_T_BOOL8:
    case GCS_T_BOOL32:
        if (p->json)
            fputs(v->u ? "true" : "false", out);
        else
            fputs(v->u ? "True" : "False", out);
        return;
    case GCS_T_F32:
    case GCS_T_F64:
        if (isfinite(v->f))
            fprintf(out, v->type == GCS_T_F32 ? "%.9g" : "%.17g", v->f);
        else if (p->json)
            fprintf(out, "\"%s\"", isnan(v->f) ? "NaN" : (v->f > 0 ? "Infinity" : "-Infinity"));
        else
            fputs(isnan(v->f) ? "NaN" : (v->f > 0 ? "Infinity" : "-Infinity"), out);
        return;
    case GCS_T_GUID:
        if (p->json)
            fputc('"', out);
        put_guid(out, v->bytes);
        if (p->json)
            fputc('"', out);
        return;
    case GCS_T_UTF16Z:
    case GCS_T_ANSIZ:
    case GCS_T_UTF8:
    case GCS_T_CHAR16:
    case GCS_T_SID:
        put_quoted(out, v->str, v->str_len, p->json);
        return;
    case GCS_T_BINARY:
        fputs(p->json ? "\"0x" : "0x", out);
        for (uint32_t i = 0; i < v->size; i++)
            fprintf(out, "%02x", v->bytes[i]);
        if (p->json)
            fputc('"', out);
        return;
    default:
        break;
    }
    /* Integers. */
    if (f->map_name) {
        char buf[512];
        const char *name = gcs_map_lookup(f->map_name, v->u, buf, sizeof buf);
        if (name) {
            if (p->json)
                put_quoted(out, name, strlen(name), true);
            else
                fputs(name, out);
            return;
        }
    }
    if (f->hex || v->type == GCS_T_POINTER) {
        fprintf(out, p->json ? "\"0x%" PRIx64 "\"" : "0x%" PRIx64, v->u);
        return;
    }
    if (is_signed(v->type))
        fprintf(out, "%" PRId64, v->i);
    else
        fprintf(out, "%" PRIu64, v->u);
}

/* Separator and name before a value opening at the current level. */
static void begin_item(printer *p, const gcs_value *v)
{
    int lv = p->depth;
    if (p->has_item[lv])
        fputs(p->json || p->kind[lv] == LEVEL_ARRAY ? "," : " ", p->out);
    p->has_item[lv] = true;
    if (p->kind[lv] == LEVEL_FIELDS) {
        const char *name = v->field->name ? v->field->name : "";
        if (p->json) {
            put_quoted(p->out, name, strlen(name), true);
            fputc(':', p->out);
        } else {
            fprintf(p->out, "%s=", name);
        }
    }
}

static void push(printer *p, int kind)
{
    if (p->depth + 1 < PRINT_MAX_LEVELS) {
        p->depth++;
        p->kind[p->depth] = kind;
        p->has_item[p->depth] = false;
    }
}

static int print_visitor(const gcs_value *v, void *ctx)
{
    printer *p = ctx;
    switch (v->kind) {
    case GCS_VALUE_SCALAR:
        begin_item(p, v);
        put_scalar(p, v);
        break;
    case GCS_VALUE_ARRAY_BEGIN:
        begin_item(p, v);
        fputc('[', p->out);
        push(p, LEVEL_ARRAY);
        break;
    case GCS_VALUE_STRUCT_BEGIN:
        begin_item(p, v);
        fputc('{', p->out);
        push(p, LEVEL_FIELDS);
        break;
    case GCS_VALUE_ARRAY_END:
        fputc(']', p->out);
        if (p->depth > 0)
            p->depth--;
        break;
    case GCS_VALUE_STRUCT_END:
        fputc('}', p->out);
        if (p->depth > 0)
            p->depth--;
        break;
    }
    return 0;
}

/* Closes what a failed walk left open, so the line stays well formed. */
static void close_open(printer *p)
{
    while (p->depth > 0) {
        fputc(p->kind[p->depth] == LEVEL_ARRAY ? ']' : '}', p->out);
        p->depth--;
    }
}

static const char *event_name(const gcs_event *ev, char *buf, size_t cap)
{
    if (ev->type->name && ev->type->name[0])
        return ev->type->name;
    snprintf(buf, cap, "EventID(%u)", (unsigned)ev->type->event_id);
    return buf;
}

static gcs_status finish(FILE *out, gcs_error *err)
{
    if (ferror(out))
        return GCS_FAIL(err, GCS_ERR_IO, 0, "writing the event failed");
    return GCS_OK;
}

/*
 * %.3f alone rounds the double: 17.6515 ms (176,515 ticks of a 10 MHz
 * clock) is 17.65149999... and shows as 17.651 where TraceEvent's baseline
 * has 17.652 (5 % of net.4.5.2.x86.etl's events). The double's 15
 * significant digits are the decimal value TraceEvent rounds.
 */
char *gcs_msec_format(double ms, char *buf, size_t cap)
{
    if (!buf || cap == 0)
        return buf;
    char digits[64];
    int n = snprintf(digits, sizeof digits, "%.15g", ms);
    const char *dot = strchr(digits, '.');
    if (n <= 0 || (size_t)n >= sizeof digits || strpbrk(digits, "eEna") || !dot ||
        strlen(dot + 1) <= 3) {
        snprintf(buf, cap, "%.3f", ms); /* exact at 3 decimals already, or not a plain number */
        return buf;
    }
    /* The digits up to the third decimal, as an integer of thousandths. */
    bool negative = digits[0] == '-';
    unsigned long long thousandths = 0;
    for (const char *p = digits + negative; p < dot; p++)
        thousandths = thousandths * 10 + (unsigned)(*p - '0');
    for (int i = 1; i <= 3; i++)
        thousandths = thousandths * 10 + (unsigned)(dot[i] - '0');
    if (dot[4] >= '5')
        thousandths++;
    snprintf(buf, cap, "%s%llu.%03llu", negative && thousandths ? "-" : "", thousandths / 1000,
             thousandths % 1000);
    return buf;
}

gcs_status gcs_event_print_text(FILE *out, const gcs_event *ev, gcs_error *err)
{
    if (!out || !ev || !ev->type)
        return GCS_FAIL(err, GCS_ERR_ARG, 0, "print without output or event");
    const gcs_event_type *t = ev->type;
    char namebuf[64];
    char ms[48];
    fputs(gcs_msec_format(ev->msec, ms, sizeof ms), out);
    fprintf(out, "  %" PRIu32 "  %" PRIu64 "  %s/%s  id=%" PRIu32 " v=%" PRIu32,
            ev->pid, ev->tid, t->provider ? t->provider : "?", event_name(ev, namebuf, sizeof namebuf),
            t->event_id, t->version);
    if (t->field_count == 0 && ev->payload_size > 0) {
        fprintf(out, "  payload=%" PRIu32 "bytes\n", ev->payload_size);
        return finish(out, err);
    }
    printer p;
    memset(&p, 0, sizeof p);
    p.out = out;
    p.kind[0] = LEVEL_FIELDS;
    if (t->field_count > 0)
        fputs("  ", out);
    gcs_payload_info info;
    gcs_error werr;
    gcs_error_clear(&werr);
    gcs_status st = gcs_payload_walk_fields(t->fields, t->field_count, ev->payload,
                                            ev->payload_size, ev->pointer_size, print_visitor, &p,
                                            &info, &werr);
    close_open(&p);
    if (st != GCS_OK)
        fprintf(out, " !%s@%" PRIu64 ": %s", gcs_status_name(st), werr.offset, werr.reason);
    else if (info.trailing_bytes > 0)
        fprintf(out, " +%" PRIu32 "bytes", info.trailing_bytes);
    fputc('\n', out);
    return finish(out, err);
}

gcs_status gcs_event_print_json(FILE *out, const gcs_event *ev, gcs_error *err)
{
    if (!out || !ev || !ev->type)
        return GCS_FAIL(err, GCS_ERR_ARG, 0, "print without output or event");
    const gcs_event_type *t = ev->type;
    char namebuf[64];
    const char *provider = t->provider ? t->provider : "";
    const char *name = event_name(ev, namebuf, sizeof namebuf);
    fprintf(out, "{\"msec\":%.6f,\"pid\":%" PRIu32 ",\"tid\":%" PRIu64 ",\"provider\":", ev->msec,
            ev->pid, ev->tid);
    put_quoted(out, provider, strlen(provider), true);
    fputs(",\"event\":", out);
    put_quoted(out, name, strlen(name), true);
    fprintf(out, ",\"id\":%" PRIu32 ",\"version\":%" PRIu32 ",\"fields\":{", t->event_id,
            t->version);
    if (t->field_count == 0 && ev->payload_size > 0) {
        fprintf(out, "},\"payload_size\":%" PRIu32 "}\n", ev->payload_size);
        return finish(out, err);
    }
    printer p;
    memset(&p, 0, sizeof p);
    p.out = out;
    p.json = true;
    p.kind[0] = LEVEL_FIELDS;
    gcs_payload_info info;
    gcs_error werr;
    gcs_error_clear(&werr);
    gcs_status st = gcs_payload_walk_fields(t->fields, t->field_count, ev->payload,
                                            ev->payload_size, ev->pointer_size, print_visitor, &p,
                                            &info, &werr);
    close_open(&p);
    fputc('}', out);
    if (st != GCS_OK) {
        fputs(",\"error\":", out);
        put_quoted(out, werr.reason, strlen(werr.reason), true);
        fprintf(out, ",\"error_offset\":%" PRIu64, werr.offset);
    } else if (info.trailing_bytes > 0) {
        fprintf(out, ",\"trailing_bytes\":%" PRIu32, info.trailing_bytes);
    }
    fputs("}\n", out);
    return finish(out, err);
}
