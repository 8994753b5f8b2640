/*
 * gcscope/decode.h - walking an event's payload by its schema, naming
 * events as TraceEvent does, and printing events as text or JSON.
 *
 * Every event delivered by gcs_reader_next carries a schema
 * (ev->type->fields): either the fields the trace's metadata describes, or,
 * for the .NET runtime's own providers whose metadata is empty, the built-in
 * table generated from the runtime's ETW manifest. gcs_payload_walk visits
 * each value of the payload in order:
 *
 *   static int show(const gcs_value *v, void *ctx) {
 *       if (v->kind == GCS_VALUE_SCALAR && v->depth == 0)
 *           printf("%s\n", v->field->name);
 *       return 0;                        // non-zero stops the walk
 *   }
 *   gcs_payload_walk(ev, show, NULL, &err);
 *
 * The walk never allocates and never reads outside the payload.
 */
#ifndef GCSCOPE_DECODE_H
#define GCSCOPE_DECODE_H

#include <stdio.h>

#include "gcscope/core.h"
#include "gcscope/reader.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Nesting allowed in a schema (structs in arrays in structs ...). */
#define GCS_PAYLOAD_MAX_DEPTH 8
/* Fields of one struct (or of the top level) whose values can serve as the
 * count of a later sibling; a count field beyond this index is refused. */
#define GCS_PAYLOAD_MAX_COUNT_FIELDS 64
/* Bytes of UTF-8 a string value is converted into (longer ones are cut at
 * a character boundary and flagged). */
#define GCS_VALUE_STR_CAP 1024

typedef enum gcs_value_kind {
    GCS_VALUE_SCALAR = 0,   /* one value: number, string, guid, bytes */
    GCS_VALUE_ARRAY_BEGIN,  /* a repeated field starts; count = elements */
    GCS_VALUE_ARRAY_END,
    GCS_VALUE_STRUCT_BEGIN, /* one struct value starts (alone or an element) */
    GCS_VALUE_STRUCT_END
} gcs_value_kind;

/* One step of a payload walk. Valid only during the visitor call. */
typedef struct gcs_value {
    gcs_value_kind kind;
    const gcs_field *field;  /* the schema field this value belongs to */
    gcs_type type;           /* field->type */
    uint32_t depth;          /* 0 for top-level fields, +1 inside each struct */
    bool in_array;           /* this value is an element of an array */
    uint32_t index;          /* element index when in_array */
    uint32_t count;          /* ARRAY_BEGIN: number of elements */
    uint32_t offset;         /* payload offset where the value starts */
    uint32_t size;           /* bytes the value occupies in the payload */
    /* Scalars: integers (BOOL*, CHAR16, I*, U*, POINTER, DATETIME) */
    uint64_t u;              /* unsigned view (zero-extended) */
    int64_t i;               /* signed view (sign-extended for I* types) */
    double f;                /* F32, F64 */
    /* Raw bytes of the value (GUID: 16 bytes, BINARY: its bytes, strings:
     * their encoded bytes without terminator). Points into the payload. */
    const uint8_t *bytes;
    /* Strings (UTF16Z, ANSIZ, UTF8, CHAR16) as NUL-terminated UTF-8. */
    const char *str;
    size_t str_len;
    bool str_truncated;      /* longer than GCS_VALUE_STR_CAP - 1 bytes */
} gcs_value;

/* Called for each value in payload order. Return 0 to go on, non-zero to
 * stop the walk (the walk then returns GCS_OK with info->stopped set). */
typedef int (*gcs_value_visitor_fn)(const gcs_value *v, void *ctx);

/* What a walk found besides the values. */
typedef struct gcs_payload_info {
    uint32_t bytes_used;     /* payload bytes the schema consumed */
    uint32_t trailing_bytes; /* bytes left after the schema: ignored, as a
                                newer runtime appends fields (count these) */
    uint32_t scalars;        /* scalar values visited */
    bool stopped;            /* the visitor stopped the walk */
} gcs_payload_info;

/*
 * Walks ev's payload by ev->type's schema. fn may be NULL (validate only).
 * GCS_OK: the schema fit (trailing bytes are allowed and ignored).
 * GCS_ERR_CORRUPT: the payload is shorter than the schema, a string has no
 * terminator, or a count exceeds the bytes left; err->offset is the payload
 * offset where it happened, and every value before it was visited.
 * GCS_ERR_LIMIT: the schema nests deeper than GCS_PAYLOAD_MAX_DEPTH or
 * counts by a field past GCS_PAYLOAD_MAX_COUNT_FIELDS.
 */
gcs_status gcs_payload_walk(const gcs_event *ev, gcs_value_visitor_fn fn, void *ctx,
                            gcs_error *err);

/* Same over an explicit schema and byte range; info (may be NULL) gets the
 * byte counts. pointer_size is 4 or 8. */
gcs_status gcs_payload_walk_fields(const gcs_field *fields, uint32_t field_count,
                                   const uint8_t *payload, uint32_t payload_size,
                                   uint32_t pointer_size, gcs_value_visitor_fn fn, void *ctx,
                                   gcs_payload_info *info, gcs_error *err);

/*
 * Simple by-name access to top-level fields (first match, case-sensitive).
 * False when the field is absent, of another kind, an array or a struct, or
 * when the payload ends before it. Integers, booleans, pointers: _u64/_i64.
 * Floats: _f64 (integers convert too). Strings: _str copies UTF-8 into buf
 * (cut at cap - 1 bytes, always NUL-terminated).
 */
bool gcs_payload_find_u64(const gcs_event *ev, const char *field_name, uint64_t *out);
bool gcs_payload_find_i64(const gcs_event *ev, const char *field_name, int64_t *out);
bool gcs_payload_find_f64(const gcs_event *ev, const char *field_name, double *out);
bool gcs_payload_find_str(const gcs_event *ev, const char *field_name, char *buf, size_t cap);

/*
 * Name of a value of a manifest map (gcs_field.map_name), as TraceEvent
 * prints it. Value maps: the entry's name. Bit maps: the names of the set
 * bits joined by ", " in increasing bit order ("Default, Executable"); 0 is
 * the map's 0 entry or "None". NULL when the map is unknown or the value
 * (or any set bit) has no name: print the number then, as TraceEvent does
 * (StartupFlags=8388611 has the unnamed bit 0x800000). buf holds joined
 * bit names; the result points into buf or into constant data.
 */
const char *gcs_map_lookup(const char *map_name, uint64_t value, char *buf, size_t cap);

/*
 * The name TraceEvent shows for an event, written into buf:
 *  - runtime providers: the built-in table's "Task/Opcode" ("GC/Start"),
 *    for the exact or nearest lower version, whatever the metadata's name;
 *  - events TraceLog names with parsers of its own (sample profiler, TPL):
 *    their "Task/Opcode" by provider and id ("Thread/Sample",
 *    "TaskWait/Send"), whatever the metadata's name and opcode;
 *  - events with a metadata name: that name, with TraceEvent's rules: when
 *    the trace gives no opcode (has_opcode false), a name ending in
 *    "Start"/"Stop" implies opcode 1/2; with opcode 1/2 a trailing
 *    "Start"/"Stop" is removed; a non-zero opcode is appended as "/Start",
 *    "/Stop", ... (ETW's names for 1..9) or "/<number>" ("TestEvent3/24");
 *  - no name at all: "EventID(<id>)" ("EventWriteString" for id 0).
 * Returns buf. Meant to be called once per metadata row.
 */
const char *gcs_event_display_name(const char *provider, uint32_t event_id, uint32_t version,
                                   const char *meta_name, uint32_t opcode, bool has_opcode,
                                   char *buf, size_t cap);

/* ------------------------------------------------------------------ */
/* Printing one event (src/report/event_print.c).                      */

/*
 * msec with 3 decimals as TraceEvent shows MSec (and gcs_event_print_text
 * prints it): the double rounded to 15 significant digits, then half away
 * from zero, so 17.6515 shows as 17.652 where printf's %.3f gives 17.651
 * (the double is just below). Writes at most cap bytes, NUL included;
 * returns buf.
 */
char *gcs_msec_format(double msec, char *buf, size_t cap);

/*
 * One line of text:
 *   MSEC  PID  TID  Provider/EventName  id=N v=N  Field=Value Field=Value ...
 * MSEC with 3 decimals as gcs_msec_format writes them; integers in decimal without separators; hex fields
 * and pointers as 0x<lowercase hex>; mapped values by name; strings quoted
 * with C escapes; arrays as [a,b]; structs as {A=1 B=2}; booleans
 * True/False; GUIDs 8-4-4-4-12 lowercase. A payload that does not fit its
 * schema ends the line with " !corrupt@<offset>: <reason>"; trailing bytes
 * with " +<n>bytes"; an event without schema shows "payload=<n>bytes".
 */
gcs_status gcs_event_print_text(FILE *out, const gcs_event *ev, gcs_error *err);

/*
 * One JSON object on one line:
 *   {"msec":1.234567,"pid":1,"tid":2,"provider":"...","event":"GC/Start",
 *    "id":1,"version":2,"fields":{"Count":1,...}}
 * Integers are exact JSON numbers (64-bit, never through double); hex fields
 * and pointers are "0x..." strings; mapped values are their names as strings
 * (the number when unnamed); arrays are JSON arrays, structs objects, GUIDs
 * strings, BINARY "0x<hex>" strings. Problems add "error":"...",
 * "error_offset":N, "trailing_bytes":N or "payload_size":N.
 */
gcs_status gcs_event_print_json(FILE *out, const gcs_event *ev, gcs_error *err);

/*
 * A printer of many events: the lines gcs_event_print_text/_json write,
 * byte for byte, at a fraction of the cost (what `gcscope events` uses).
 * It prepares each event type's constant text once and collects lines in
 * a large buffer written to out in big pieces, so out sees them only at a
 * flush, at gcs_event_printer_free, or when the buffer fills. It keys what
 * it prepared by the type's address: every event given must come from
 * readers still open (a type's address is not reused while its reader
 * lives). NULL without memory or with a bad argument.
 */
typedef struct gcs_event_printer gcs_event_printer;
typedef enum gcs_print_format { GCS_PRINT_TEXT = 0, GCS_PRINT_JSON } gcs_print_format;
gcs_event_printer *gcs_event_printer_new(FILE *out, gcs_print_format format);
/* One event's line; GCS_ERR_IO when a write to out has failed. */
gcs_status gcs_event_printer_put(gcs_event_printer *p, const gcs_event *ev, gcs_error *err);
/* Writes what is buffered and flushes out; GCS_ERR_IO if any write failed. */
gcs_status gcs_event_printer_flush(gcs_event_printer *p, gcs_error *err);
/* Writes what is buffered (without reporting) and frees p (NULL: nothing). */
void gcs_event_printer_free(gcs_event_printer *p);

#ifdef __cplusplus
}
#endif
#endif
