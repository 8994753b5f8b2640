/*
 * format/eventpipe_metadata.c - metadata payloads of netperf V1..V3 and
 * nettrace V4/V5 (see eventpipe_metadata.h and docs/format-nettrace.md).
 */
#include "format/eventpipe_metadata.h"

#include <stdio.h>
#include <string.h>

#include "base/error.h"

/* The two field-list layouts of a V5-or-older metadata payload. */
typedef enum field_layout {
    LAYOUT_V1,       /* TypeCode, [nested list], Name */
    LAYOUT_V2PARAMS  /* Size (inclusive), Name, TypeCode, [ElementTypeCode], [nested list] */
} field_layout;

/* Smallest encoding of one field, to bound a count read from input
 * before allocating: V1 = TypeCode + empty name; V2 = Size. */
#define MIN_V1_FIELD_BYTES 6u
#define MIN_V2_FIELD_BYTES 4u

typedef struct meta_ctx {
    gcs_arena *arena;
    uint32_t total_fields; /* over all nesting levels, bounded by GCS_MAX_FIELDS */
    gcs_error *problem;    /* the first survivable problem */
    bool out_of_memory;
} meta_ctx;

static const char element_name[] = "element";

bool gcs_ep_scalar_type(uint32_t type_code, bool allow_v6, gcs_type *type, uint32_t *fixed_count)
{
    *fixed_count = 0;
    switch (type_code) {
    case GCS_EP_TC_BOOLEAN: *type = GCS_T_BOOL32; return true;
    case GCS_EP_TC_CHAR: *type = GCS_T_CHAR16; return true;
    case GCS_EP_TC_SBYTE: *type = GCS_T_I8; return true;
    case GCS_EP_TC_BYTE: *type = GCS_T_U8; return true;
    case GCS_EP_TC_INT16: *type = GCS_T_I16; return true;
    case GCS_EP_TC_UINT16: *type = GCS_T_U16; return true;
    case GCS_EP_TC_INT32: *type = GCS_T_I32; return true;
    case GCS_EP_TC_UINT32: *type = GCS_T_U32; return true;
    case GCS_EP_TC_INT64: *type = GCS_T_I64; return true;
    case GCS_EP_TC_UINT64: *type = GCS_T_U64; return true;
    case GCS_EP_TC_SINGLE: *type = GCS_T_F32; return true;
    case GCS_EP_TC_DOUBLE: *type = GCS_T_F64; return true;
    case GCS_EP_TC_DECIMAL: *type = GCS_T_BINARY; *fixed_count = 16; return true;
    case GCS_EP_TC_DATETIME: *type = GCS_T_DATETIME; return true;
    case GCS_EP_TC_GUID: *type = GCS_T_GUID; return true;
    case GCS_EP_TC_STRING: *type = GCS_T_UTF16Z; return true;
    case GCS_EP_TC_BOOLEAN8:
        if (!allow_v6)
            return false;
        *type = GCS_T_BOOL8;
        return true;
    default:
        return false;
    }
}

/* Records the first survivable problem; always returns false. */
#define PROBLEM(m, off, ...) \
    ((m)->problem->status == GCS_OK ? (void)GCS_FAIL((m)->problem, GCS_ERR_CORRUPT, (off), __VA_ARGS__) : (void)0, false)

/* Reads a UTF-16 0-terminated string into the arena. NULL: unreadable,
 * too long, or out of memory (*oom tells which). */
static const char *read_utf16_string(gcs_cursor *c, gcs_arena *arena, bool *oom)
{
    const uint8_t *s;
    size_t units;
    *oom = false;
    gcs_cursor save = *c;
    if (!gcs_cur_utf16z(c, &s, &units))
        return NULL;
    if (units > GCS_MAX_STRING_UNITS) {
        *c = save;
        return NULL;
    }
    char *out = gcs_utf16_to_utf8(arena, s, units);
    if (!out)
        *oom = true;
    return out;
}

static bool parse_field_list(meta_ctx *m, gcs_cursor *c, field_layout layout, uint32_t depth,
                             const gcs_field **fields, uint32_t *count);

/* Reads a TypeCode (and what it implies) into f; the name is set by the caller. */
static bool parse_type(meta_ctx *m, gcs_cursor *c, field_layout layout, uint32_t depth,
                       gcs_field *f)
{
    uint64_t at = gcs_cur_offset(c);
    uint32_t code;
    if (!gcs_cur_u32(c, &code))
        return PROBLEM(m, at, "metadata field: type code cut short");
    uint32_t fixed;
    if (gcs_ep_scalar_type(code, false, &f->type, &fixed)) {
        f->repeat = fixed ? GCS_REPEAT_FIXED : GCS_REPEAT_ONE;
        f->repeat_arg = fixed;
        return true;
    }
    if (code == GCS_EP_TC_OBJECT) {
        if (depth + 1 > GCS_MAX_FIELD_DEPTH)
            return PROBLEM(m, at, "metadata field: structs nested deeper than %d",
                           GCS_MAX_FIELD_DEPTH);
        f->type = GCS_T_STRUCT;
        f->repeat = GCS_REPEAT_ONE;
        return parse_field_list(m, c, layout, depth + 1, &f->children, &f->child_count);
    }
    if (code == GCS_EP_TC_ARRAY) {
        if (layout != LAYOUT_V2PARAMS)
            return PROBLEM(m, at, "metadata field: array type code in a V1 field list");
        if (depth + 1 > GCS_MAX_FIELD_DEPTH)
            return PROBLEM(m, at, "metadata field: arrays nested deeper than %d",
                           GCS_MAX_FIELD_DEPTH);
        gcs_field elem;
        memset(&elem, 0, sizeof elem);
        if (!parse_type(m, c, layout, depth + 1, &elem))
            return false;
        if (elem.repeat == GCS_REPEAT_ONE) {
            *f = elem;
        } else {
            /* An element that itself repeats (array of arrays, of decimals)
             * becomes a one-field struct so each level has one repeat rule. */
            gcs_field *child = gcs_arena_alloc(m->arena, sizeof *child);
            if (!child) {
                m->out_of_memory = true;
                return false;
            }
            *child = elem;
            child->name = element_name;
            memset(f, 0, sizeof *f);
            f->type = GCS_T_STRUCT;
            f->children = child;
            f->child_count = 1;
        }
        f->repeat = GCS_REPEAT_U16_PREFIX;
        f->repeat_arg = 0;
        return true;
    }
    return PROBLEM(m, at, "metadata field: unknown type code %u", code);
}

static bool parse_field_list(meta_ctx *m, gcs_cursor *c, field_layout layout, uint32_t depth,
                             const gcs_field **fields, uint32_t *count)
{
    uint64_t at = gcs_cur_offset(c);
    uint32_t n;
    *fields = NULL;
    *count = 0;
    if (!gcs_cur_u32(c, &n))
        return PROBLEM(m, at, "metadata: field count cut short");
    uint32_t min_bytes = layout == LAYOUT_V1 ? MIN_V1_FIELD_BYTES : MIN_V2_FIELD_BYTES;
    if (n > GCS_MAX_FIELDS || n > GCS_MAX_FIELDS - m->total_fields)
        return PROBLEM(m, at, "metadata: %u fields exceed the limit of %d", n, GCS_MAX_FIELDS);
    if (n > gcs_cur_left(c) / min_bytes)
        return PROBLEM(m, at, "metadata: %u fields cannot fit in %zu bytes", n, gcs_cur_left(c));
    if (n == 0)
        return true;
    m->total_fields += n;
    gcs_field *f = gcs_arena_alloc(m->arena, (size_t)n * sizeof *f);
    if (!f) {
        m->out_of_memory = true;
        return false;
    }
    for (uint32_t i = 0; i < n; i++) {
        bool oom;
        uint64_t field_at = gcs_cur_offset(c);
        if (layout == LAYOUT_V1) {
            if (!parse_type(m, c, layout, depth, &f[i]))
                return false;
            field_at = gcs_cur_offset(c);
            f[i].name = read_utf16_string(c, m->arena, &oom);
        } else {
            uint32_t size;
            gcs_cursor body;
            if (!gcs_cur_u32(c, &size) || size < 4 || !gcs_cur_sub(c, size - 4, &body))
                return PROBLEM(m, field_at, "metadata V2 field: bad size");
            f[i].name = read_utf16_string(&body, m->arena, &oom);
            if (f[i].name) {
                const char *name = f[i].name;
                if (!parse_type(m, &body, layout, depth, &f[i]))
                    return false;
                f[i].name = name;
            }
            /* Bytes left in body are padding the writer may add. */
        }
        if (!f[i].name) {
            if (oom) {
                m->out_of_memory = true;
                return false;
            }
            return PROBLEM(m, field_at, "metadata field: name unreadable or over %d units",
                           GCS_MAX_STRING_UNITS);
        }
    }
    *fields = f;
    *count = n;
    return true;
}

/* "xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx" of a GUID in Windows byte order. */
static void format_guid(const uint8_t *g, char out[37])
{
    snprintf(out, 37, "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x",
             g[3], g[2], g[1], g[0], g[5], g[4], g[7], g[6], g[8], g[9], g[10], g[11], g[12],
             g[13], g[14], g[15]);
}

/*
 * Netperf V1 (.NET Core 2.0) names providers by GUID only. TraceEvent gives
 * the providers it has parsers for their names (the GUIDs below are those
 * parsers' provider GUIDs) and any other provider "Provider(<guid>)".
 */
static const struct {
    const char *guid;
    const char *name;
} known_provider_guids[] = {
    {"e13c0d23-ccbc-4e12-931b-d9cc2eee27e4", "Microsoft-Windows-DotNETRuntime"},
    {"a669021c-c450-4609-a035-5af59af4df18", "Microsoft-Windows-DotNETRuntimeRundown"},
    {"763fd754-7086-4dfe-95eb-c01a46faf4ca", "Microsoft-Windows-DotNETRuntimePrivate"},
    {"3c530d44-97ae-513a-1e6d-783e8f8e03a9", "Microsoft-DotNETCore-SampleProfiler"},
    {"2e5dba47-a3d2-4d16-8ee0-6671ffdcd7b5", "System.Threading.Tasks.TplEventSource"},
};

const char *gcs_provider_name_for_guid(const uint8_t *g, gcs_arena *arena)
{
    char text[37], name[48];
    format_guid(g, text);
    for (size_t i = 0; i < sizeof known_provider_guids / sizeof known_provider_guids[0]; i++)
        if (strcmp(known_provider_guids[i].guid, text) == 0)
            return known_provider_guids[i].name;
    snprintf(name, sizeof name, "Provider(%s)", text);
    return gcs_arena_strndup(arena, name, strlen(name));
}

#define HEADER_FAIL(err, c, what) \
    GCS_CORRUPT(err, gcs_cur_offset(c), "metadata header: %s cut short or invalid", what)

static gcs_status memory_fail(gcs_error *err, const gcs_cursor *c)
{
    return GCS_FAIL(err, GCS_ERR_LIMIT, gcs_cur_offset(c),
                    "metadata memory exhausted (arena cap or out of memory)");
}

/* EventId, EventName, Keywords, Version, Level (common to all versions). */
static gcs_status parse_common(gcs_cursor *c, gcs_arena *arena, gcs_meta_def *out,
                               gcs_error *err)
{
    bool oom;
    if (!gcs_cur_u32(c, &out->event_id))
        return HEADER_FAIL(err, c, "event id");
    const char *name = read_utf16_string(c, arena, &oom);
    if (!name)
        return oom ? memory_fail(err, c) : HEADER_FAIL(err, c, "event name");
    out->event_name = name;
    if (!gcs_cur_u64(c, &out->keywords))
        return HEADER_FAIL(err, c, "keywords");
    if (!gcs_cur_u32(c, &out->version))
        return HEADER_FAIL(err, c, "version");
    if (!gcs_cur_u32(c, &out->level))
        return HEADER_FAIL(err, c, "level");
    return GCS_OK;
}

gcs_status gcs_ep_metadata_parse(gcs_cursor *c, uint32_t format_version, uint32_t obsolete_id,
                                 gcs_arena *arena, gcs_meta_def *out, gcs_error *problem,
                                 gcs_error *err)
{
    memset(out, 0, sizeof *out);
    out->provider = "";
    out->event_name = "";
    gcs_error_clear(problem);
    bool oom;
    gcs_status st;

    if (format_version >= 3) {
        if (!gcs_cur_u32(c, &out->metadata_id))
            return HEADER_FAIL(err, c, "metadata id");
        const char *provider = read_utf16_string(c, arena, &oom);
        if (!provider)
            return oom ? memory_fail(err, c) : HEADER_FAIL(err, c, "provider name");
        out->provider = provider;
        if ((st = parse_common(c, arena, out, err)) != GCS_OK)
            return st;
    } else {
        out->metadata_id = obsolete_id;
        if (format_version == 1) {
            const uint8_t *guid;
            if (!gcs_cur_bytes(c, 16, &guid))
                return HEADER_FAIL(err, c, "provider guid");
            const char *p = gcs_provider_name_for_guid(guid, arena);
            if (!p)
                return memory_fail(err, c);
            out->provider = p;
        } else {
            const char *provider = read_utf16_string(c, arena, &oom);
            if (!provider)
                return oom ? memory_fail(err, c) : HEADER_FAIL(err, c, "provider name");
            out->provider = provider;
        }
        uint32_t rest_size;
        if (!gcs_cur_u32(c, &out->event_id) || !gcs_cur_u32(c, &out->version) ||
            !gcs_cur_u32(c, &rest_size))
            return HEADER_FAIL(err, c, "event id/version/length");
        if (rest_size > 0 && (st = parse_common(c, arena, out, err)) != GCS_OK)
            return st;
    }

    meta_ctx m = {arena, 0, problem, false};
    if (gcs_cur_left(c) == 0)
        return GCS_OK; /* no schema: native runtime events */

    if (!parse_field_list(&m, c, LAYOUT_V1, 0, &out->fields, &out->field_count)) {
        out->fields = NULL;
        out->field_count = 0;
        if (m.out_of_memory)
            return memory_fail(err, c);
        /* The V1 list has no length, so nothing after it can be found. */
        return GCS_OK;
    }

    /* V5 tags: int32 payload size, byte kind, payload. */
    while (gcs_cur_left(c) > 0) {
        uint64_t at = gcs_cur_offset(c);
        uint32_t tag_size;
        uint8_t kind;
        gcs_cursor tag;
        if (!gcs_cur_u32(c, &tag_size) || !gcs_cur_u8(c, &kind) ||
            !gcs_cur_sub(c, tag_size, &tag)) {
            (void)PROBLEM(&m, at, "metadata tag: size beyond the payload");
            break;
        }
        if (kind == 1) { /* OpCode */
            uint8_t opcode;
            if (!gcs_cur_u8(&tag, &opcode)) {
                (void)PROBLEM(&m, at, "metadata opcode tag: empty");
                continue;
            }
            out->opcode = opcode;
            out->has_opcode = true;
        } else if (kind == 2) { /* V2Params: replaces the (empty) V1 list */
            const gcs_field *fields;
            uint32_t count;
            m.total_fields = 0;
            if (parse_field_list(&m, &tag, LAYOUT_V2PARAMS, 0, &fields, &count)) {
                out->fields = fields;
                out->field_count = count;
            } else {
                out->fields = NULL;
                out->field_count = 0;
                if (m.out_of_memory)
                    return memory_fail(err, c);
            }
        }
        /* Other kinds: skipped by their size (forward compatibility). */
    }
    return GCS_OK;
}
