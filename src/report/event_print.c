/*
 * report/event_print.c - one event as a line of text or a JSON object
 * (what `gcscope events` prints). Output is deterministic: no pointers of
 * our own, fixed number formats, fields in schema order.
 *
 * Two ways write the same bytes: gcs_event_print_text/_json walk the
 * payload with the general walker for each event (the reference), and
 * gcs_event_printer prepares per type what every line of the type shares
 * and prints most payloads by a program made for the type (below "a
 * printer of many events"), falling back to the walk for the rest.
 */
#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "base/buf.h"
#include "base/cursor.h"
#include "base/error.h"
#include "gcscope/decode.h"
#include "report/fast_number.h"
#include "report/format_fixed.h"

/*
 * Output goes through a buffer (the event's own for one event; the
 * printer's 256 KiB for many), written to the FILE when it fills or the
 * line ends: a JSON event is ~20 pieces, and each stdio call, and printf's
 * number conversion, cost more than the piece (docs/performance.md).
 */
typedef struct outbuf {
    FILE *f;
    size_t n, cap;
    char *b;
    bool failed; /* a write to f fell short */
} outbuf;

static void ob_flush(outbuf *o)
{
    if (o->n && fwrite(o->b, 1, o->n, o->f) != o->n)
        o->failed = true;
    o->n = 0;
}

static void ob_write(outbuf *o, const char *s, size_t n)
{
    if (n > o->cap - o->n) {
        ob_flush(o);
        if (n > o->cap) {
            if (fwrite(s, 1, n, o->f) != n)
                o->failed = true;
            return;
        }
    }
    memcpy(o->b + o->n, s, n);
    o->n += n;
}

static inline void ob_char(outbuf *o, char c)
{
    if (o->n == o->cap)
        ob_flush(o);
    o->b[o->n++] = c;
}

/* Room for n more bytes at o->b + o->n (flushing if needed); false when
 * n exceeds the whole buffer. */
static inline bool ob_room(outbuf *o, size_t n)
{
    if (n <= o->cap - o->n)
        return true;
    ob_flush(o);
    return n <= o->cap;
}

/* Pieces a printer prepared are stored with PIECE_PAD bytes after them
 * and copied 16 at a time (inline moves, no call), so the copy may write
 * up to 15 bytes past the piece: the room made covers them. */
#define PIECE_PAD 16

static inline char *copy_piece(char *w, const char *s, size_t n)
{
    for (size_t i = 0; i < n; i += 16)
        memcpy(w + i, s + i, 16);
    return w + n;
}

/* A copy of s[0..n) with PIECE_PAD bytes after it; NULL without memory. */
static char *padded_copy(const char *s, size_t n)
{
    char *d = malloc(n + PIECE_PAD);
    if (d) {
        memcpy(d, s, n);
        memset(d + n, 0, PIECE_PAD);
    }
    return d;
}

static void ob_str(outbuf *o, const char *s)
{
    ob_write(o, s, strlen(s));
}

/* What printf's "%" PRIu64 gives. */
static void ob_u64(outbuf *o, uint64_t v)
{
    char d[20];
    size_t k = sizeof d;
    do {
        d[--k] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    ob_write(o, d + k, sizeof d - k);
}

/* What printf's "%" PRId64 gives. */
static void ob_i64(outbuf *o, int64_t v)
{
    if (v < 0) {
        ob_char(o, '-');
        ob_u64(o, 0 - (uint64_t)v);
    } else {
        ob_u64(o, (uint64_t)v);
    }
}

/* What printf's "%" PRIx64 gives. */
static void ob_hex(outbuf *o, uint64_t v)
{
    static const char digits[] = "0123456789abcdef";
    char d[16];
    size_t k = sizeof d;
    do {
        d[--k] = digits[v & 15];
        v >>= 4;
    } while (v);
    ob_write(o, d + k, sizeof d - k);
}

/* What printf's "%02x" gives for a byte. */
static void ob_hex2(outbuf *o, unsigned v)
{
    static const char digits[] = "0123456789abcdef";
    ob_char(o, digits[(v >> 4) & 15]);
    ob_char(o, digits[v & 15]);
}

enum { LEVEL_FIELDS, LEVEL_ARRAY };

#define PRINT_MAX_LEVELS (2 * GCS_PAYLOAD_MAX_DEPTH + 2)

typedef struct printer {
    outbuf *out;
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

/* Bytes a quoted string keeps as they are: printable ASCII but '"' and
 * '\\' (one load per byte in the escaping loop instead of four tests). */
static const uint8_t plain_byte[256] = {
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    1, 1, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 1, 1, 1,
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
};

/* Escapes for a quoted string; bytes that are not valid UTF-8 (ANSI strings)
 * become \u00XX (JSON) or \xXX (text), so every line stays valid UTF-8.
 * Runs of printable ASCII go out in one piece. */
static void put_escaped(outbuf *out, const char *s, size_t n, bool json)
{
    size_t i = 0;
    while (i < n) {
        size_t run = i;
        while (run < n && plain_byte[(unsigned char)s[run]])
            run++;
        if (run > i) {
            ob_write(out, s + i, run - i);
            i = run;
            continue;
        }
        unsigned char c = (unsigned char)s[i];
        if (c >= 0x80) {
            size_t k = utf8_sequence((const unsigned char *)s + i, n - i);
            if (k == 0) {
                ob_str(out, json ? "\\u00" : "\\x");
                ob_hex2(out, c);
                i++;
            } else {
                ob_write(out, s + i, k);
                i += k;
            }
            continue;
        }
        switch (c) {
        case '"': ob_write(out, "\\\"", 2); break;
        case '\\': ob_write(out, "\\\\", 2); break;
        case '\n': ob_write(out, "\\n", 2); break;
        case '\r': ob_write(out, "\\r", 2); break;
        case '\t': ob_write(out, "\\t", 2); break;
        default: /* c < 0x20 or 0x7f */
            ob_str(out, json ? "\\u00" : "\\x");
            ob_hex2(out, c);
        }
        i++;
    }
}

static void put_quoted(outbuf *out, const char *s, size_t n, bool json)
{
    ob_char(out, '"');
    put_escaped(out, s, n, json);
    ob_char(out, '"');
}

static void put_guid(outbuf *out, const uint8_t *g)
{
    /* Data1..3 little-endian, Data4 as bytes: TraceEvent's Guid.ToString(). */
    static const uint8_t order[16] = {3, 2, 1, 0, 5, 4, 7, 6, 8, 9, 10, 11, 12, 13, 14, 15};
    for (int i = 0; i < 16; i++) {
        if (i == 4 || i == 6 || i == 8 || i == 10)
            ob_char(out, '-');
        ob_hex2(out, g[order[i]]);
    }
}

static bool is_signed(gcs_type t)
{
    return t == GCS_T_I8 || t == GCS_T_I16 || t == GCS_T_I32 || t == GCS_T_I64;
}

/* An integer of field f (its unsigned and sign-extended views): its map's
 * name, else hexadecimal for hex fields and pointers, else decimal. */
static void put_integer(outbuf *out, const gcs_field *f, gcs_type type, uint64_t u, int64_t i,
                        bool json)
{
    if (f->map_name) {
        char buf[512];
        const char *name = gcs_map_lookup(f->map_name, u, buf, sizeof buf);
        if (name) {
            if (json)
                put_quoted(out, name, strlen(name), true);
            else
                ob_str(out, name);
            return;
        }
    }
    if (f->hex || type == GCS_T_POINTER) {
        ob_str(out, json ? "\"0x" : "0x");
        ob_hex(out, u);
        if (json)
            ob_char(out, '"');
        return;
    }
    if (is_signed(type))
        ob_i64(out, i);
    else
        ob_u64(out, u);
}

static void put_scalar(printer *p, const gcs_value *v)
{
    outbuf *out = p->out;
    const gcs_field *f = v->field;
    switch (v->type) {
    case GCS_T_BOOL8:
    case GCS_T_BOOL32:
        if (p->json)
            ob_str(out, v->u ? "true" : "false");
        else
            ob_str(out, v->u ? "True" : "False");
        return;
    case GCS_T_F32:
    case GCS_T_F64:
        if (isfinite(v->f)) {
            char num[40];
            snprintf(num, sizeof num, v->type == GCS_T_F32 ? "%.9g" : "%.17g", v->f);
            ob_str(out, num);
        } else {
            const char *word = isnan(v->f) ? "NaN" : (v->f > 0 ? "Infinity" : "-Infinity");
            if (p->json)
                ob_char(out, '"');
            ob_str(out, word);
            if (p->json)
                ob_char(out, '"');
        }
        return;
    case GCS_T_GUID:
        if (p->json)
            ob_char(out, '"');
        put_guid(out, v->bytes);
        if (p->json)
            ob_char(out, '"');
        return;
    case GCS_T_IPV4:
    case GCS_T_IPV6:
        /* An address as TraceEvent shows it: bare in text, a string in JSON. */
        if (p->json)
            ob_char(out, '"');
        ob_write(out, v->str, v->str_len);
        if (p->json)
            ob_char(out, '"');
        return;
    case GCS_T_UTF16Z:
    case GCS_T_ANSIZ:
    case GCS_T_UTF8:
    case GCS_T_CHAR16:
    case GCS_T_SID:
    case GCS_T_UTF16_FIXED:
        put_quoted(out, v->str, v->str_len, p->json);
        return;
    case GCS_T_BINARY:
        ob_str(out, p->json ? "\"0x" : "0x");
        for (uint32_t i = 0; i < v->size; i++)
            ob_hex2(out, v->bytes[i]);
        if (p->json)
            ob_char(out, '"');
        return;
    default:
        break;
    }
    put_integer(out, f, v->type, v->u, v->i, p->json);
}

/* Separator and name before a value opening at the current level. */
static void begin_item(printer *p, const gcs_value *v)
{
    int lv = p->depth;
    if (p->has_item[lv])
        ob_char(p->out, p->json || p->kind[lv] == LEVEL_ARRAY ? ',' : ' ');
    p->has_item[lv] = true;
    if (p->kind[lv] == LEVEL_FIELDS) {
        const char *name = v->field->name ? v->field->name : "";
        if (p->json) {
            put_quoted(p->out, name, strlen(name), true);
            ob_char(p->out, ':');
        } else {
            ob_str(p->out, name);
            ob_char(p->out, '=');
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
        ob_char(p->out, '[');
        push(p, LEVEL_ARRAY);
        break;
    case GCS_VALUE_STRUCT_BEGIN:
        begin_item(p, v);
        ob_char(p->out, '{');
        push(p, LEVEL_FIELDS);
        break;
    case GCS_VALUE_ARRAY_END:
        ob_char(p->out, ']');
        if (p->depth > 0)
            p->depth--;
        break;
    case GCS_VALUE_STRUCT_END:
        ob_char(p->out, '}');
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
        ob_char(p->out, p->kind[p->depth] == LEVEL_ARRAY ? ']' : '}');
        p->depth--;
    }
}

/* The type's display name ("EventID(n)" when it has none). */
static const char *type_name(const gcs_event_type *t, char *buf, size_t cap)
{
    if (t->name && t->name[0])
        return t->name;
    snprintf(buf, cap, "EventID(%u)", (unsigned)t->event_id);
    return buf;
}

static gcs_status finish(outbuf *o, gcs_error *err)
{
    ob_flush(o);
    if (ferror(o->f))
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

/*
 * What follows the thread id on an event's line: provider, name, id and
 * version (the same for every event of a type; a printer makes it once).
 * Text: "  Provider/Name  id=N v=N"; JSON: ,"provider":...,"fields":{
 */
static void put_head(outbuf *out, const gcs_event_type *t, bool json)
{
    char namebuf[64];
    const char *name = type_name(t, namebuf, sizeof namebuf);
    if (json) {
        const char *provider = t->provider ? t->provider : "";
        ob_str(out, ",\"provider\":");
        put_quoted(out, provider, strlen(provider), true);
        ob_str(out, ",\"event\":");
        put_quoted(out, name, strlen(name), true);
        ob_str(out, ",\"id\":");
        ob_u64(out, t->event_id);
        ob_str(out, ",\"version\":");
        ob_u64(out, t->version);
        ob_str(out, ",\"fields\":{");
    } else {
        ob_write(out, "  ", 2);
        ob_str(out, t->provider ? t->provider : "?");
        ob_char(out, '/');
        ob_str(out, name);
        ob_str(out, "  id=");
        ob_u64(out, t->event_id);
        ob_str(out, " v=");
        ob_u64(out, t->version);
    }
}

/* Time, process and thread: what begins an event's line. */
static void put_start(outbuf *out, const gcs_event *ev, bool json)
{
    char num[40];
    if (json) {
        ob_str(out, "{\"msec\":");
        ob_str(out, gcs_format_fixed(num, sizeof num, ev->msec, 6));
        ob_str(out, ",\"pid\":");
        ob_u64(out, ev->pid);
        ob_str(out, ",\"tid\":");
        ob_u64(out, ev->tid);
    } else {
        ob_str(out, gcs_msec_format(ev->msec, num, sizeof num));
        ob_write(out, "  ", 2);
        ob_u64(out, ev->pid);
        ob_write(out, "  ", 2);
        ob_u64(out, ev->tid);
    }
}

/* The payload's fields by the general walk, and what ends the line. */
static void put_body(outbuf *out, const gcs_event *ev, bool json)
{
    const gcs_event_type *t = ev->type;
    if (t->field_count == 0 && ev->payload_size > 0) {
        if (json) {
            ob_str(out, "},\"payload_size\":");
            ob_u64(out, ev->payload_size);
            ob_str(out, "}\n");
        } else {
            ob_str(out, "  payload=");
            ob_u64(out, ev->payload_size);
            ob_str(out, "bytes\n");
        }
        return;
    }
    printer p;
    memset(&p, 0, sizeof p);
    p.out = out;
    p.json = json;
    p.kind[0] = LEVEL_FIELDS;
    if (!json && t->field_count > 0)
        ob_write(out, "  ", 2);
    gcs_payload_info info;
    gcs_error werr;
    gcs_error_clear(&werr);
    gcs_status st = gcs_payload_walk_fields(t->fields, t->field_count, ev->payload,
                                            ev->payload_size, ev->pointer_size, print_visitor, &p,
                                            &info, &werr);
    close_open(&p);
    if (json) {
        ob_char(out, '}');
        if (st != GCS_OK) {
            ob_str(out, ",\"error\":");
            put_quoted(out, werr.reason, strlen(werr.reason), true);
            ob_str(out, ",\"error_offset\":");
            ob_u64(out, werr.offset);
        } else if (info.trailing_bytes > 0) {
            ob_str(out, ",\"trailing_bytes\":");
            ob_u64(out, info.trailing_bytes);
        }
        ob_str(out, "}\n");
    } else {
        if (st != GCS_OK) {
            ob_write(out, " !", 2);
            ob_str(out, gcs_status_name(st));
            ob_char(out, '@');
            ob_u64(out, werr.offset);
            ob_write(out, ": ", 2);
            ob_str(out, werr.reason);
        } else if (info.trailing_bytes > 0) {
            ob_write(out, " +", 2);
            ob_u64(out, info.trailing_bytes);
            ob_str(out, "bytes");
        }
        ob_char(out, '\n');
    }
}

static gcs_status print_one(FILE *file, const gcs_event *ev, bool json, gcs_error *err)
{
    if (!file || !ev || !ev->type)
        return GCS_FAIL(err, GCS_ERR_ARG, 0, "print without output or event");
    char buf[8192];
    outbuf out = {.f = file, .n = 0, .cap = sizeof buf, .b = buf};
    put_start(&out, ev, json);
    put_head(&out, ev->type, json);
    put_body(&out, ev, json);
    return finish(&out, err);
}

gcs_status gcs_event_print_text(FILE *file, const gcs_event *ev, gcs_error *err)
{
    return print_one(file, ev, false, err);
}

gcs_status gcs_event_print_json(FILE *file, const gcs_event *ev, gcs_error *err)
{
    return print_one(file, ev, true, err);
}

/* ---- a printer of many events ---------------------------------------- */

/*
 * A type's fields print by a program made once per type when every field
 * is an integer, boolean, pointer or UTF-16 string, an array of those
 * (a fixed count, a count field before it, a 16-bit or varuint prefix),
 * or a struct or array of structs of those (most runtime events:
 * handles, allocations, samples, GC starts and ends, the bulk type,
 * edge, node and moved-range events). Each step has its field's name
 * already quoted and separated (`,"Name":` or ` Name=`), reads its
 * value with the cursor and writes it. Other schemas (floats, GUIDs,
 * binary, located arrays, padding ...) and payloads that do not fit (cut
 * short, a string without terminator, a count beyond the bytes left)
 * take the general walk (put_body): a program writes only once it has
 * read every value, so it never writes a partial line.
 */
enum field_read { READ_U8, READ_I8, READ_U16, READ_I16, READ_U32, READ_I32, READ_U64, READ_I64,
                  READ_POINTER, READ_UTF16Z };
enum field_show { SHOW_DECIMAL, SHOW_SIGNED, SHOW_HEX, SHOW_BOOL, SHOW_MAPPED, SHOW_STRING };
/* How many values a step has: one, or an array counted by its rule. */
enum field_count { COUNT_ONE, COUNT_FIXED, COUNT_FIELD, COUNT_U16, COUNT_VARUINT };

/* Fields of one list a program handles (more take the general walk). */
#define PROGRAM_MAX_FIELDS 32
/* Structs nested deeper take the general walk. */
#define PROGRAM_MAX_DEPTH 3
/* A mapped value's text remembered per step (by value & (MEMO_SLOTS - 1)). */
#define MEMO_SLOTS 8
#define MEMO_TEXT 48
/* Room a value and its key take at most beyond the key's length (a
 * number: 22 bytes with quotes; a remembered mapped value: MEMO_TEXT),
 * with the pieces' pad. */
#define STEP_ROOM (MEMO_TEXT + 2 * PIECE_PAD)

typedef struct value_memo {
    uint64_t value;
    uint8_t len; /* 0: empty */
    char text[MEMO_TEXT + PIECE_PAD];
} value_memo;

typedef struct field_list field_list;

typedef struct field_step {
    const gcs_field *field;
    const char *key; /* separator and name: into its list's keys */
    uint32_t key_len;
    uint8_t read;    /* field_read (scalars) */
    uint8_t show;    /* field_show (scalars) */
    uint8_t count;   /* field_count */
    uint32_t count_arg; /* COUNT_FIXED: the count; COUNT_FIELD: the field's index */
    field_list *children; /* a struct's fields; NULL: a scalar */
    value_memo *memo; /* SHOW_MAPPED: MEMO_SLOTS entries */
} field_step;

/* The steps of a field list (the payload's, or a struct's). */
struct field_list {
    field_step *steps;
    uint32_t n;
    char *keys; /* the steps' key texts, PIECE_PAD after them */
    bool flat;  /* every step a single scalar: read all, then write */
    /* Every step a single scalar of fixed size (or such a struct): the
     * list takes fixed_bytes + fixed_pointers * pointer size bytes. */
    bool fixed;
    uint32_t fixed_bytes, fixed_pointers;
    /* A flat list: the most its text takes in braces after a comma (keys
     * and STEP_ROOM a value), the room run_fixed_structs makes at once. */
    size_t text_room;
};

/* A value read by a step. */
typedef struct read_value {
    uint64_t u;
    int64_t i;
    const uint8_t *s; /* READ_UTF16Z: the units, then their count in u */
} read_value;

/* What a printer keeps per event type. */
typedef struct type_plan {
    const gcs_event_type *type;
    char *head; /* put_head's text */
    size_t head_len;
    field_list *fields; /* NULL: the general walk */
} type_plan;

/* 256 KiB of output per write: the pieces of an event cost a copy each,
 * the stdio call is paid once per buffer. */
#define PRINTER_BUFFER (256u * 1024u)
/* Threads whose process and thread text a printer remembers. */
#define IDS_SLOTS 256

struct gcs_event_printer {
    outbuf out;
    bool json;
    /* type -> plan, open addressing on the type's address; last: the plan
     * of the previous event (runs of one type are common). */
    type_plan **slots;
    size_t slots_cap, plans;
    type_plan *last;
    /* The process and thread part of recent lines (`,"pid":1,"tid":2` or
     * `  1  2`), by thread: a trace has few of them. */
    struct ids_memo {
        uint64_t tid;
        uint32_t pid;
        uint8_t len; /* 0: empty */
        char text[64];
    } ids[IDS_SLOTS];
};

gcs_event_printer *gcs_event_printer_new(FILE *out, gcs_print_format format)
{
    if (!out || (format != GCS_PRINT_TEXT && format != GCS_PRINT_JSON))
        return NULL;
    gcs_event_printer *p = calloc(1, sizeof *p);
    char *b = malloc(PRINTER_BUFFER);
    type_plan **slots = calloc(64, sizeof *slots);
    if (!p || !b || !slots) {
        free(p);
        free(b);
        free(slots);
        return NULL;
    }
    p->out.f = out;
    p->out.b = b;
    p->out.cap = PRINTER_BUFFER;
    p->json = format == GCS_PRINT_JSON;
    p->slots = slots;
    p->slots_cap = 64;
    return p;
}

static size_t plan_slot(const gcs_event_type *t, size_t cap)
{
    uint64_t h = (uint64_t)(uintptr_t)t * 0x9E3779B97F4A7C15ull;
    return (size_t)(h >> 32) & (cap - 1);
}

static bool plans_grow(gcs_event_printer *p)
{
    size_t ncap = p->slots_cap * 2;
    type_plan **ns = calloc(ncap, sizeof *ns);
    if (!ns)
        return false;
    for (size_t i = 0; i < p->slots_cap; i++) {
        type_plan *pl = p->slots[i];
        if (!pl)
            continue;
        size_t h = plan_slot(pl->type, ncap);
        while (ns[h])
            h = (h + 1) & (ncap - 1);
        ns[h] = pl;
    }
    free(p->slots);
    p->slots = ns;
    p->slots_cap = ncap;
    return true;
}

static void plan_compile(type_plan *pl, bool json);
static void list_free(field_list *l);

/* The type's head, written by put_head into memory once. */
static type_plan *plan_make(const gcs_event_type *t, bool json)
{
    type_plan *pl = calloc(1, sizeof *pl);
    if (!pl)
        return NULL;
    pl->type = t;
    char *text = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&text, &len);
    if (!m) {
        free(pl);
        return NULL;
    }
    char buf[1024];
    outbuf out = {.f = m, .n = 0, .cap = sizeof buf, .b = buf};
    put_head(&out, t, json);
    ob_flush(&out);
    if (fclose(m) != 0 || !text) {
        free(text);
        free(pl);
        return NULL;
    }
    pl->head = padded_copy(text, len);
    free(text);
    if (!pl->head) {
        free(pl);
        return NULL;
    }
    pl->head_len = len;
    plan_compile(pl, json);
    return pl;
}

static void plan_free(type_plan *pl)
{
    if (!pl)
        return;
    free(pl->head);
    list_free(pl->fields);
    free(pl);
}

/* How a scalar field is read and shown by a program; false: the general
 * walk's business. */
static bool step_kind(const gcs_field *f, field_step *st)
{
    switch (f->type) {
    case GCS_T_BOOL8: st->read = READ_U8; st->show = SHOW_BOOL; return true;
    case GCS_T_BOOL32: st->read = READ_U32; st->show = SHOW_BOOL; return true;
    case GCS_T_UTF16Z: st->read = READ_UTF16Z; st->show = SHOW_STRING; return true;
    case GCS_T_U8: st->read = READ_U8; break;
    case GCS_T_I8: st->read = READ_I8; break;
    case GCS_T_U16: st->read = READ_U16; break;
    case GCS_T_I16: st->read = READ_I16; break;
    case GCS_T_U32: st->read = READ_U32; break;
    case GCS_T_I32: st->read = READ_I32; break;
    case GCS_T_U64: case GCS_T_DATETIME: st->read = READ_U64; break;
    case GCS_T_I64: st->read = READ_I64; break;
    case GCS_T_POINTER: st->read = READ_POINTER; break;
    default:
        return false;
    }
    /* put_integer's order: the map's name, hex, then decimal. */
    if (f->map_name)
        st->show = SHOW_MAPPED;
    else if (f->hex || f->type == GCS_T_POINTER)
        st->show = SHOW_HEX;
    else
        st->show = is_signed(f->type) ? SHOW_SIGNED : SHOW_DECIMAL;
    return true;
}

/* How many values field #i of steps has (its repeat rule); false where
 * the walk would refuse the rule or a program does not follow it. A
 * count field must be a single integer before it (the walk's rule;
 * DATETIME is not one there). */
static bool step_count(const gcs_field *f, uint32_t i, const field_step *steps, field_step *st)
{
    st->count_arg = 0;
    switch (f->repeat) {
    case GCS_REPEAT_ONE: st->count = COUNT_ONE; return true;
    case GCS_REPEAT_FIXED: st->count = COUNT_FIXED; st->count_arg = f->repeat_arg; return true;
    case GCS_REPEAT_U16_PREFIX: st->count = COUNT_U16; return true;
    case GCS_REPEAT_VARUINT_PREFIX: st->count = COUNT_VARUINT; return true;
    case GCS_REPEAT_COUNT_FIELD: {
        if (f->repeat_arg >= i)
            return false;
        const field_step *c = &steps[f->repeat_arg];
        if (c->count != COUNT_ONE || c->children || c->read == READ_UTF16Z ||
            c->field->type == GCS_T_DATETIME)
            return false;
        st->count = COUNT_FIELD;
        st->count_arg = f->repeat_arg;
        return true;
    }
    default:
        return false; /* located arrays */
    }
}

static void list_free(field_list *l)
{
    if (!l)
        return;
    for (uint32_t i = 0; i < l->n; i++) {
        free(l->steps[i].memo);
        list_free(l->steps[i].children);
    }
    free(l->steps);
    free(l->keys);
    free(l);
}

/* The keys of a list: what begin_item writes before each value at a
 * fields level (and, for the payload's own fields, put_body's two spaces
 * before the first text field). at[i]: where key i starts; at[n]: the
 * end. A padded copy; NULL without memory. */
static char *list_keys(const gcs_field *fields, uint32_t n, bool json, bool top, size_t *at)
{
    char *text = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&text, &len);
    if (!m)
        return NULL;
    char buf[1024];
    outbuf out = {.f = m, .n = 0, .cap = sizeof buf, .b = buf};
    for (uint32_t i = 0; i < n; i++) {
        const char *name = fields[i].name ? fields[i].name : "";
        at[i] = len; /* memstream's len: what was flushed so far */
        if (json) {
            if (i > 0)
                ob_char(&out, ',');
            put_quoted(&out, name, strlen(name), true);
            ob_char(&out, ':');
        } else {
            if (i > 0)
                ob_char(&out, ' ');
            else if (top)
                ob_write(&out, "  ", 2);
            ob_str(&out, name);
            ob_char(&out, '=');
        }
        ob_flush(&out);
        fflush(m);
    }
    at[n] = len;
    if (fclose(m) != 0 || !text) {
        free(text);
        return NULL;
    }
    char *padded = padded_copy(text, len);
    free(text);
    return padded;
}

/* Bytes a scalar step reads when fixed (pointers counted apart); false
 * for a string. */
static bool read_size(const field_step *st, uint32_t *bytes, uint32_t *pointers)
{
    static const uint8_t size[] = {[READ_U8] = 1, [READ_I8] = 1, [READ_U16] = 2, [READ_I16] = 2,
                                   [READ_U32] = 4, [READ_I32] = 4, [READ_U64] = 8, [READ_I64] = 8};
    if (st->read == READ_UTF16Z)
        return false;
    if (st->read == READ_POINTER)
        (*pointers)++;
    else
        *bytes += size[st->read];
    return true;
}

/* Whether l is of fixed size, and which (a struct array's elements are
 * then checked at once against the bytes left, as the walk's reads would
 * find them). */
static void list_size(field_list *l)
{
    uint32_t bytes = 0, pointers = 0;
    l->fixed = false;
    for (uint32_t i = 0; i < l->n; i++) {
        const field_step *st = &l->steps[i];
        if (st->count != COUNT_ONE)
            return;
        if (st->children) {
            if (!st->children->fixed)
                return;
            bytes += st->children->fixed_bytes;
            pointers += st->children->fixed_pointers;
        } else if (!read_size(st, &bytes, &pointers)) {
            return;
        }
    }
    l->fixed = true;
    l->fixed_bytes = bytes;
    l->fixed_pointers = pointers;
}

/* The program of a field list; NULL where a field has no step (or
 * without memory). */
static field_list *list_compile(const gcs_field *fields, uint32_t n, bool json, bool top,
                                int depth)
{
    if (n > PROGRAM_MAX_FIELDS || (n > 0 && !fields) || depth > PROGRAM_MAX_DEPTH)
        return NULL;
    field_list *l = calloc(1, sizeof *l);
    field_step *steps = calloc(n ? n : 1, sizeof *steps);
    size_t at[PROGRAM_MAX_FIELDS + 1];
    char *keys = list_keys(fields, n, json, top, at);
    if (!l || !steps || !keys) {
        free(l);
        free(steps);
        free(keys);
        return NULL;
    }
    l->steps = steps;
    l->n = n;
    l->keys = keys;
    l->flat = true;
    for (uint32_t i = 0; i < n; i++) {
        const gcs_field *f = &fields[i];
        field_step *st = &steps[i];
        st->field = f;
        st->key = keys + at[i];
        st->key_len = (uint32_t)(at[i + 1] - at[i]);
        bool ok;
        if (f->type == GCS_T_STRUCT)
            ok = (st->children = list_compile(f->children, f->child_count, json, false,
                                              depth + 1)) != NULL;
        else
            ok = step_kind(f, st);
        ok = ok && step_count(f, i, steps, st);
        if (ok && st->show == SHOW_MAPPED && !st->children)
            ok = (st->memo = calloc(MEMO_SLOTS, sizeof(value_memo))) != NULL;
        if (!ok) {
            list_free(l);
            return NULL;
        }
        if (st->children || st->count != COUNT_ONE)
            l->flat = false;
        l->text_room += st->key_len + STEP_ROOM;
    }
    l->text_room += 3; /* ",{" and "}" */
    list_size(l);
    return l;
}

/* The program of pl's type, when every field has a step (else none). */
static void plan_compile(type_plan *pl, bool json)
{
    const gcs_event_type *t = pl->type;
    if (t->field_count > 0)
        pl->fields = list_compile(t->fields, t->field_count, json, true, 0);
}

/* Reads one scalar of step st; false when the payload ends first. */
static GCS_ALWAYS_INLINE bool read_one(const field_step *st, gcs_cursor *c, uint32_t ptr, read_value *v)
{
    switch (st->read) {
    case READ_U8: {
        uint8_t x;
        if (!gcs_cur_u8(c, &x))
            return false;
        v->u = x;
        return true;
    }
    case READ_I8: {
        uint8_t x;
        if (!gcs_cur_u8(c, &x))
            return false;
        v->u = x;
        v->i = (int8_t)x;
        return true;
    }
    case READ_U16: {
        uint16_t x;
        if (!gcs_cur_u16(c, &x))
            return false;
        v->u = x;
        return true;
    }
    case READ_I16: {
        uint16_t x;
        if (!gcs_cur_u16(c, &x))
            return false;
        v->u = x;
        v->i = (int16_t)x;
        return true;
    }
    case READ_U32: {
        uint32_t x;
        if (!gcs_cur_u32(c, &x))
            return false;
        v->u = x;
        return true;
    }
    case READ_I32: {
        uint32_t x;
        if (!gcs_cur_u32(c, &x))
            return false;
        v->u = x;
        v->i = (int32_t)x;
        return true;
    }
    case READ_U64:
    case READ_I64:
        /* The peek is one load where the host is little-endian (the
         * stepping read goes byte by byte). */
        if (!gcs_cur_peek_u64(c, &v->u))
            return false;
        v->i = (int64_t)v->u;
        return gcs_cur_skip(c, 8);
    case READ_POINTER:
        if (ptr == 8)
            return gcs_cur_peek_u64(c, &v->u) && gcs_cur_skip(c, 8);
        return gcs_cur_ptr(c, ptr, &v->u);
    case READ_UTF16Z: {
        size_t units;
        if (!gcs_cur_utf16z(c, &v->s, &units))
            return false;
        v->u = units;
        return true;
    }
    }
    return false;
}

/* A UTF-16 string as the walk converts it (GCS_VALUE_STR_CAP) and
 * put_quoted writes it. */
static void put_utf16(outbuf *out, const uint8_t *s, size_t units, bool json)
{
    char str[GCS_VALUE_STR_CAP];
    size_t n = gcs_utf16_to_utf8_buf(s, units, str, sizeof str);
    put_quoted(out, str, n, json);
}

/* A mapped integer: remembered per value, written by put_integer once. */
static void put_mapped(outbuf *out, const field_step *st, const read_value *v, bool json)
{
    value_memo *m = &st->memo[v->u & (MEMO_SLOTS - 1)];
    if (m->len && m->value == v->u) {
        /* put_value's caller made room for MEMO_TEXT + PIECE_PAD */
        copy_piece(out->b + out->n, m->text, m->len);
        out->n += m->len;
        return;
    }
    int64_t i = is_signed(st->field->type) ? v->i : (int64_t)v->u;
    char buf[4096]; /* a name of 511 bytes, each escaped in 6: never flushed */
    outbuf tmp = {.f = NULL, .n = 0, .cap = sizeof buf, .b = buf};
    put_integer(&tmp, st->field, st->field->type, v->u, i, json);
    if (tmp.n > 0 && tmp.n <= MEMO_TEXT) {
        m->value = v->u;
        m->len = (uint8_t)tmp.n;
        memcpy(m->text, buf, tmp.n);
    }
    ob_write(out, buf, tmp.n);
}

/* A UTF-16 string of printable ASCII but '"' and '\\' is its own text
 * between quotes (the walk's conversion keeps it whole below
 * GCS_VALUE_STR_CAP): written unit by unit; any other goes through the
 * conversion and put_quoted. */
/* How many of the units at s (up to n) are plain printable ASCII, 8 at a
 * time where SSE2 is. */
static size_t plain_utf16_prefix(const uint8_t *s, size_t n)
{
    size_t i = 0;
#if defined(__SSE2__)
    const __m128i lo = _mm_set1_epi16(0x1f), hi = _mm_set1_epi16(0x7f);
    const __m128i quote = _mm_set1_epi16('"'), backslash = _mm_set1_epi16('\\');
    while (n - i >= 8) {
        __m128i v = _mm_loadu_si128((const __m128i *)(const void *)(s + 2 * i));
        /* plain: 0x20..0x7e (signed compares: units >= 0x8000 are below),
         * not a quote or a backslash */
        __m128i bad = _mm_or_si128(_mm_cmplt_epi16(v, _mm_add_epi16(lo, _mm_set1_epi16(1))),
                                   _mm_cmpgt_epi16(v, _mm_sub_epi16(hi, _mm_set1_epi16(1))));
        bad = _mm_or_si128(bad, _mm_or_si128(_mm_cmpeq_epi16(v, quote), _mm_cmpeq_epi16(v, backslash)));
        if (_mm_movemask_epi8(bad) != 0)
            break;
        i += 8;
    }
#endif
    while (i < n && s[2 * i + 1] == 0 && plain_byte[s[2 * i]])
        i++;
    return i;
}

/* A UTF-16 string quoted: written in place while it is ASCII (plain runs
 * narrowed at once, quotes, backslashes and control characters escaped as
 * put_escaped does); put_utf16 from the first unit beyond ASCII on. */
static void put_utf16_string(outbuf *out, const uint8_t *s, size_t units, bool json)
{
    /* Up to 6 bytes a unit (\u00XX), the quotes. */
    if (units < GCS_VALUE_STR_CAP - 1 && ob_room(out, 6 * units + 2)) {
        static const char digits[] = "0123456789abcdef";
        char *w = out->b + out->n;
        size_t o = 1, i = 0;
        w[0] = '"';
        while (i < units) {
            size_t run = plain_utf16_prefix(s + 2 * i, units - i), k = 0;
#if defined(__SSE2__)
            for (; run - k >= 8; k += 8) {
                __m128i v = _mm_loadu_si128((const __m128i *)(const void *)(s + 2 * (i + k)));
                _mm_storel_epi64((__m128i *)(void *)(w + o + k), _mm_packus_epi16(v, v));
            }
#endif
            for (; k < run; k++)
                w[o + k] = (char)s[2 * (i + k)];
            o += run;
            i += run;
            if (i == units)
                break;
            unsigned c = s[2 * i];
            if (s[2 * i + 1] != 0 || c >= 0x80)
                break; /* beyond ASCII */
            w[o++] = '\\';
            switch (c) {
            case '"': w[o++] = '"'; break;
            case '\\': w[o++] = '\\'; break;
            case '\n': w[o++] = 'n'; break;
            case '\r': w[o++] = 'r'; break;
            case '\t': w[o++] = 't'; break;
            default: /* c < 0x20 or 0x7f */
                if (json) {
                    memcpy(w + o, "u00", 3);
                    o += 3;
                } else {
                    w[o++] = 'x';
                }
                w[o++] = digits[(c >> 4) & 15];
                w[o++] = digits[c & 15];
            }
            i++;
        }
        if (i == units) {
            w[o++] = '"';
            out->n += o;
            return;
        }
    }
    put_utf16(out, s, units, json);
}

/* A step's key, in place. */
static GCS_ALWAYS_INLINE void put_key(outbuf *out, const field_step *st)
{
    if (!ob_room(out, st->key_len + STEP_ROOM)) {
        /* A name about as long as the buffer (hostile metadata): written
         * on its own, then the value's room made after it. */
        ob_write(out, st->key, st->key_len);
        (void)ob_room(out, STEP_ROOM); /* the buffer is far larger */
        return;
    }
    copy_piece(out->b + out->n, st->key, st->key_len);
    out->n += st->key_len;
}

/* A scalar value as put_scalar writes it; STEP_ROOM bytes of room made. */
static GCS_ALWAYS_INLINE void put_value(outbuf *out, const field_step *st, const read_value *v, bool json)
{
    char *w = out->b + out->n;
    switch (st->show) {
    case SHOW_DECIMAL:
        out->n = (size_t)(gcs_put_u64(w, v->u) - out->b);
        break;
    case SHOW_SIGNED:
        out->n = (size_t)(gcs_put_i64(w, v->i) - out->b);
        break;
    case SHOW_HEX:
        if (json) {
            memcpy(w, "\"0x", 3);
            w = gcs_put_hex(w + 3, v->u);
            *w++ = '"';
        } else {
            memcpy(w, "0x", 2);
            w = gcs_put_hex(w + 2, v->u);
        }
        out->n = (size_t)(w - out->b);
        break;
    case SHOW_BOOL:
        if (json)
            ob_str(out, v->u ? "true" : "false");
        else
            ob_str(out, v->u ? "True" : "False");
        break;
    case SHOW_MAPPED:
        put_mapped(out, st, v, json);
        break;
    case SHOW_STRING:
        put_utf16_string(out, v->s, (size_t)v->u, json);
        break;
    }
}

/* What ends a line whose fields fit: the JSON object's braces, trailing
 * bytes as put_body reports them. */
static GCS_ALWAYS_INLINE void put_end(outbuf *out, size_t rest, bool json)
{
    if (rest == 0 && ob_room(out, 3)) {
        if (json) {
            memcpy(out->b + out->n, "}}\n", 3);
            out->n += 3;
        } else {
            out->b[out->n++] = '\n';
        }
        return;
    }
    if (json) {
        ob_char(out, '}');
        if (rest > 0) {
            ob_str(out, ",\"trailing_bytes\":");
            ob_u64(out, rest);
        }
        ob_str(out, "}\n");
    } else {
        if (rest > 0) {
            ob_write(out, " +", 2);
            ob_u64(out, rest);
            ob_str(out, "bytes");
        }
        ob_char(out, '\n');
    }
}

/* The payload's cursor; false for a pointer size the walk refuses. */
static bool payload_cursor(const gcs_event *ev, gcs_cursor *c)
{
    if (ev->pointer_size != 4 && ev->pointer_size != 8)
        return false;
    *c = gcs_cur_make(ev->payload ? (const void *)ev->payload : (const void *)"",
                      ev->payload_size, 0);
    return true;
}

/* A flat list: reads every value, then writes them all; false (nothing
 * written) when the payload does not fit. */
static bool run_flat(outbuf *out, const field_list *l, const gcs_event *ev, bool json)
{
    gcs_cursor c;
    read_value vals[PROGRAM_MAX_FIELDS];
    if (!payload_cursor(ev, &c))
        return false;
    if (l->fixed && gcs_cur_left(&c) >= l->fixed_bytes + (size_t)l->fixed_pointers * ev->pointer_size) {
        /* Every read finds its bytes: read and write in one pass. */
        for (uint32_t i = 0; i < l->n; i++) {
            read_value v;
            (void)read_one(&l->steps[i], &c, ev->pointer_size, &v);
            put_key(out, &l->steps[i]);
            put_value(out, &l->steps[i], &v, json);
        }
        put_end(out, gcs_cur_left(&c), json);
        return true;
    }
    for (uint32_t i = 0; i < l->n; i++)
        if (!read_one(&l->steps[i], &c, ev->pointer_size, &vals[i]))
            return false;
    for (uint32_t i = 0; i < l->n; i++) {
        put_key(out, &l->steps[i]);
        put_value(out, &l->steps[i], &vals[i], json);
    }
    put_end(out, gcs_cur_left(&c), json);
    return true;
}

static bool run_list(const field_list *l, gcs_cursor *c, uint32_t ptr, outbuf *out, bool json);

/* One value of step st (a scalar, or a struct's fields in braces);
 * *count: the scalar as a later array's count. out NULL: only read. */
static bool run_value(const field_step *st, gcs_cursor *c, uint32_t ptr, outbuf *out, bool json,
                      uint64_t *count)
{
    if (st->children) {
        if (out)
            ob_char(out, '{');
        if (!run_list(st->children, c, ptr, out, json))
            return false;
        if (out)
            ob_char(out, '}');
        return true;
    }
    read_value v;
    if (!read_one(st, c, ptr, &v))
        return false;
    *count = v.u; /* the walk's count: the unsigned view */
    if (out) {
        (void)ob_room(out, STEP_ROOM); /* always there: the buffer is far larger */
        put_value(out, st, &v, json);
    }
    return true;
}

/*
 * The n elements of array step st, structs that are flat and of fixed
 * size (the bulk events' Values: moved and surviving ranges, nodes,
 * edges), written after run_list's check found them all in the payload:
 * one room check an element and no recursion, the text run_value writes.
 * An element whose keys alone outgrow the buffer (names from hostile
 * metadata) goes run_value's way, which writes long keys apart.
 */
static void run_fixed_structs(const field_step *st, gcs_cursor *c, uint32_t ptr, uint64_t n,
                              outbuf *out, bool json)
{
    const field_list *el = st->children;
    ob_char(out, '[');
    for (uint64_t k = 0; k < n; k++) {
        if (!ob_room(out, el->text_room)) {
            if (k > 0)
                ob_char(out, ',');
            uint64_t ignored;
            (void)run_value(st, c, ptr, out, json, &ignored); /* checked: it fits */
            continue;
        }
        if (k > 0)
            out->b[out->n++] = ',';
        out->b[out->n++] = '{';
        for (uint32_t i = 0; i < el->n; i++) {
            const field_step *f = &el->steps[i];
            read_value v;
            (void)read_one(f, c, ptr, &v); /* checked: the elements fit */
            copy_piece(out->b + out->n, f->key, f->key_len);
            out->n += f->key_len;
            put_value(out, f, &v, json);
        }
        out->b[out->n++] = '}';
    }
    ob_char(out, ']');
}

/*
 * A list with arrays or structs, as the walk visits it: run once without
 * out to check that the payload fits (the walk's checks: the payload's
 * end, a string's terminator, a count beyond the bytes left after it),
 * then again writing. False: it does not fit.
 */
static bool run_list(const field_list *l, gcs_cursor *c, uint32_t ptr, outbuf *out, bool json)
{
    uint64_t ints[PROGRAM_MAX_FIELDS];
    for (uint32_t i = 0; i < l->n; i++) {
        const field_step *st = &l->steps[i];
        if (out)
            put_key(out, st);
        if (st->count == COUNT_ONE) {
            if (!run_value(st, c, ptr, out, json, &ints[i]))
                return false;
            continue;
        }
        uint64_t n = 0;
        switch (st->count) {
        case COUNT_FIXED:
            n = st->count_arg;
            break;
        case COUNT_FIELD:
            n = ints[st->count_arg];
            break;
        case COUNT_U16: {
            uint16_t x;
            if (!gcs_cur_u16(c, &x))
                return false;
            n = x;
            break;
        }
        case COUNT_VARUINT: {
            uint32_t x;
            if (!gcs_cur_varu32(c, &x))
                return false;
            n = x;
            break;
        }
        }
        if (n > gcs_cur_left(c))
            return false;
        if (!out) {
            /* Checking: elements of fixed size fit or not as a whole. */
            uint32_t bytes = 0, pointers = 0;
            if (st->children ? st->children->fixed : read_size(st, &bytes, &pointers)) {
                if (st->children) {
                    bytes = st->children->fixed_bytes;
                    pointers = st->children->fixed_pointers;
                }
                uint64_t need = n * ((uint64_t)bytes + (uint64_t)pointers * ptr);
                if (need > gcs_cur_left(c) || !gcs_cur_skip(c, (size_t)need))
                    return false;
                continue;
            }
        }
        if (out && st->children && st->children->flat && st->children->fixed) {
            run_fixed_structs(st, c, ptr, n, out, json);
            continue;
        }
        if (out)
            ob_char(out, '[');
        for (uint64_t k = 0; k < n; k++) {
            if (out && k > 0)
                ob_char(out, ',');
            uint64_t ignored;
            if (!run_value(st, c, ptr, out, json, &ignored))
                return false;
        }
        if (out)
            ob_char(out, ']');
    }
    return true;
}

/* The fields of ev by pl's program, and the line's end; false (nothing
 * written) when the payload does not fit. */
static bool run_program(outbuf *out, const field_list *l, const gcs_event *ev, bool json)
{
    if (l->flat)
        return run_flat(out, l, ev, json);
    gcs_cursor c;
    if (!payload_cursor(ev, &c) || !run_list(l, &c, ev->pointer_size, NULL, json))
        return false;
    size_t rest = gcs_cur_left(&c);
    payload_cursor(ev, &c);
    run_list(l, &c, ev->pointer_size, out, json); /* read before: fits */
    put_end(out, rest, json);
    return true;
}

/* put_start and the type's head, for a printer: in place, with the fast
 * number writers. */
/* The process and thread of ev as put_start writes them, at w (48 bytes
 * of room and PIECE_PAD); returns the end. Remembered per thread. */
static char *put_ids(gcs_event_printer *p, char *w, const gcs_event *ev)
{
    struct ids_memo *m = &p->ids[((ev->tid * 0x9E3779B97F4A7C15ull) >> 56) & (IDS_SLOTS - 1)];
    if (m->len && m->tid == ev->tid && m->pid == ev->pid)
        return copy_piece(w, m->text, m->len);
    char *start = w;
    if (p->json) {
        memcpy(w, ",\"pid\":", 7);
        w = gcs_put_u64(w + 7, ev->pid);
        memcpy(w, ",\"tid\":", 7);
        w = gcs_put_u64(w + 7, ev->tid);
    } else {
        memcpy(w, "  ", 2);
        w = gcs_put_u64(w + 2, ev->pid);
        memcpy(w, "  ", 2);
        w = gcs_put_u64(w + 2, ev->tid);
    }
    m->tid = ev->tid;
    m->pid = ev->pid;
    m->len = (uint8_t)(w - start); /* at most 7 + 10 + 7 + 20 */
    memcpy(m->text, start, m->len);
    return w;
}

static void put_start_head(gcs_event_printer *p, const gcs_event *ev, const type_plan *pl)
{
    outbuf *out = &p->out;
    bool json = p->json;
    if (!ob_room(out, 128 + pl->head_len + PIECE_PAD)) {
        put_start(out, ev, json);
        ob_write(out, pl->head, pl->head_len);
        return;
    }
    char *w = out->b + out->n;
    if (json) {
        memcpy(w, "{\"msec\":", 8);
        w += 8;
        char *end = gcs_put_fixed(w, ev->msec, 6);
        if (!end) {
            char num[40];
            const char *ms = gcs_format_fixed(num, sizeof num, ev->msec, 6);
            size_t len = strlen(ms); /* < sizeof num: the 128 bytes of room cover it */
            memcpy(w, ms, len);
            end = w + len;
        }
        w = end;
    } else {
        char *end = gcs_put_msec3(w, ev->msec);
        if (!end) {
            char num[40];
            const char *ms = gcs_msec_format(ev->msec, num, sizeof num);
            size_t len = strlen(ms); /* < sizeof num: the 128 bytes of room cover it */
            memcpy(w, ms, len);
            end = w + len;
        }
        w = end;
    }
    w = put_ids(p, w, ev);
    w = copy_piece(w, pl->head, pl->head_len);
    out->n = (size_t)(w - out->b);
}

/* The plan of ev's type (made on its first event); NULL without memory. */
static type_plan *plan_of(gcs_event_printer *p, const gcs_event_type *t)
{
    if (p->last && p->last->type == t)
        return p->last;
    size_t h = plan_slot(t, p->slots_cap);
    while (p->slots[h]) {
        if (p->slots[h]->type == t)
            return p->last = p->slots[h];
        h = (h + 1) & (p->slots_cap - 1);
    }
    if ((p->plans + 1) * 2 > p->slots_cap) {
        if (!plans_grow(p))
            return NULL;
        h = plan_slot(t, p->slots_cap);
        while (p->slots[h])
            h = (h + 1) & (p->slots_cap - 1);
    }
    type_plan *pl = plan_make(t, p->json);
    if (!pl)
        return NULL;
    p->slots[h] = pl;
    p->plans++;
    return p->last = pl;
}

gcs_status gcs_event_printer_put(gcs_event_printer *p, const gcs_event *ev, gcs_error *err)
{
    if (!p || !ev || !ev->type)
        return GCS_FAIL(err, GCS_ERR_ARG, 0, "print without printer or event");
    outbuf *out = &p->out;
    type_plan *pl = plan_of(p, ev->type);
    if (pl) {
        put_start_head(p, ev, pl);
    } else {
        put_start(out, ev, p->json);
        put_head(out, ev->type, p->json); /* no memory for the plan: made each time */
    }
    if (!pl || !pl->fields || !run_program(out, pl->fields, ev, p->json))
        put_body(out, ev, p->json);
    if (out->failed)
        return GCS_FAIL(err, GCS_ERR_IO, 0, "writing the event failed");
    return GCS_OK;
}

gcs_status gcs_event_printer_flush(gcs_event_printer *p, gcs_error *err)
{
    if (!p)
        return GCS_FAIL(err, GCS_ERR_ARG, 0, "flush without printer");
    ob_flush(&p->out);
    if (fflush(p->out.f) != 0 || p->out.failed)
        return GCS_FAIL(err, GCS_ERR_IO, 0, "writing the events failed");
    return GCS_OK;
}

void gcs_event_printer_free(gcs_event_printer *p)
{
    if (!p)
        return;
    ob_flush(&p->out);
    for (size_t i = 0; i < p->slots_cap; i++)
        plan_free(p->slots[i]);
    free(p->slots);
    free(p->out.b);
    free(p);
}
