/*
 * format/nettrace/nettrace_v6_metadata.c - one nettrace V6 metadata row
 * (MetadataBlock content) into a gcs_meta_def.
 *
 *   varuint32 MetadataId, string Provider, varuint32 EventId, string Name,
 *   FieldDescriptions, OptionalMetadata, ignored trailing bytes
 *
 * Every field description and the optional metadata carry their own size,
 * so a field of an unknown type code cannot desynchronize what follows: the
 * row keeps its identity (name, opcode, level ...) and only loses its schema.
 */
#include "format/nettrace/nettrace_v6.h"

#include "base/error.h"

/* V6 TypeCode values. */
enum {
    TC_OBJECT = 1,
    TC_BOOLEAN32 = 3,
    TC_UTF16_CODE_UNIT = 4,
    TC_SBYTE = 5,
    TC_BYTE = 6,
    TC_INT16 = 7,
    TC_UINT16 = 8,
    TC_INT32 = 9,
    TC_UINT32 = 10,
    TC_INT64 = 11,
    TC_UINT64 = 12,
    TC_SINGLE = 13,
    TC_DOUBLE = 14,
    TC_DECIMAL = 15,
    TC_DATETIME = 16,
    TC_GUID = 17,
    TC_UTF16_STRING = 18,
    TC_ARRAY = 19,
    TC_VARINT = 20,
    TC_VARUINT = 21,
    TC_FIXED_ARRAY = 22,
    TC_UTF8_CODE_UNIT = 23,
    TC_RELLOC = 24,
    TC_DATALOC = 25,
    TC_BOOLEAN8 = 26
};

/* V6 OptionalMetadataKind values. */
enum {
    OM_OPCODE = 1,
    OM_KEYWORD = 3,
    OM_MESSAGE_TEMPLATE = 4,
    OM_DESCRIPTION = 5,
    OM_KEY_VALUE = 6,
    OM_PROVIDER_GUID = 7,
    OM_LEVEL = 8,
    OM_VERSION = 9
};

typedef struct meta_parse {
    gcs_arena *arena;
    gcs_error *err;
    uint32_t total_fields; /* all fields of the row, nested ones included */
    bool unknown_type;     /* a field had a type code this reader does not know */
} meta_parse;

bool gcs_v6_read_string(gcs_cursor *c, const uint8_t **s, uint32_t *len)
{
    gcs_cursor save = *c;
    uint32_t n;
    if (!gcs_cur_varu32(c, &n))
        return false;
    if (n > GCS_MAX_STRING_UNITS || !gcs_cur_bytes(c, n, s)) {
        *c = save;
        return false;
    }
    *len = n;
    return true;
}

/* Reads a string into the arena; *out is never NULL on success. */
static gcs_status read_arena_string(meta_parse *mp, gcs_cursor *c, const char *what,
                                    const char **out)
{
    const uint8_t *s;
    uint32_t n;
    uint64_t at = gcs_cur_offset(c);
    if (!gcs_v6_read_string(c, &s, &n))
        return GCS_CORRUPT(mp->err, at,
                           "metadata %s: string length is unreadable, beyond %d bytes, "
                           "or beyond the %zu bytes left",
                           what, GCS_MAX_STRING_UNITS, gcs_cur_left(c));
    char *d = gcs_arena_strndup(mp->arena, (const char *)s, n);
    if (!d)
        return GCS_FAIL(mp->err, GCS_ERR_NOMEM, at, "out of memory for metadata %s", what);
    *out = d;
    return GCS_OK;
}

/* True if every instance of f occupies the same number of bytes. */
static bool field_is_fixed_size(const gcs_field *f)
{
    switch (f->repeat) {
    case GCS_REPEAT_ONE:
    case GCS_REPEAT_FIXED:
    case GCS_REPEAT_RELLOC: /* the field itself is a 4-byte locator */
    case GCS_REPEAT_DATALOC:
        break;
    default:
        return false;
    }
    if (f->repeat == GCS_REPEAT_RELLOC || f->repeat == GCS_REPEAT_DATALOC)
        return true;
    switch (f->type) {
    case GCS_T_UTF16Z:
    case GCS_T_ANSIZ:
    case GCS_T_UTF8:
    case GCS_T_VARINT:
    case GCS_T_VARUINT:
        return false;
    case GCS_T_STRUCT:
        for (uint32_t i = 0; i < f->child_count; i++)
            if (!field_is_fixed_size(&f->children[i]))
                return false;
        return true;
    default:
        return true;
    }
}

static gcs_status parse_field_list(meta_parse *mp, gcs_cursor *c, unsigned depth,
                                   const gcs_field **out, uint32_t *out_count);

static gcs_status parse_type(meta_parse *mp, gcs_cursor *c, unsigned depth, gcs_field *f);

/*
 * Element type of an Array/FixedLengthArray/RelLoc/DataLoc, then the repeat
 * rule on f. An element that itself repeats (array of arrays) becomes a
 * one-field struct so that each gcs_field carries one repeat rule.
 */
static gcs_status parse_repeated(meta_parse *mp, gcs_cursor *c, unsigned depth, gcs_field *f,
                                 gcs_repeat repeat, uint8_t code)
{
    if (depth + 1 > GCS_MAX_FIELD_DEPTH)
        return GCS_FAIL(mp->err, GCS_ERR_LIMIT, gcs_cur_offset(c),
                        "metadata field \"%s\": element types nest deeper than %d", f->name,
                        GCS_MAX_FIELD_DEPTH);
    gcs_field elem = {0};
    elem.name = f->name;
    gcs_status st = parse_type(mp, c, depth + 1, &elem);
    if (st != GCS_OK || mp->unknown_type)
        return st;
    uint32_t count = 0;
    if (code == TC_FIXED_ARRAY) {
        uint16_t n;
        if (!gcs_cur_u16(c, &n))
            return GCS_CORRUPT(mp->err, gcs_cur_offset(c),
                               "metadata field \"%s\": FixedLengthArray element count "
                               "missing (%zu bytes left)",
                               f->name, gcs_cur_left(c));
        count = n;
    }
    if ((code == TC_RELLOC || code == TC_DATALOC) && !field_is_fixed_size(&elem))
        return GCS_CORRUPT(mp->err, gcs_cur_offset(c),
                           "metadata field \"%s\": %s needs a fixed-size element type", f->name,
                           code == TC_RELLOC ? "RelLoc" : "DataLoc");
    if (elem.repeat == GCS_REPEAT_ONE) {
        *f = elem;
    } else {
        if (mp->total_fields >= GCS_MAX_FIELDS)
            return GCS_FAIL(mp->err, GCS_ERR_LIMIT, gcs_cur_offset(c),
                            "metadata row has more than %d fields", GCS_MAX_FIELDS);
        mp->total_fields++;
        gcs_field *child = gcs_arena_alloc(mp->arena, sizeof *child);
        if (!child)
            return GCS_FAIL(mp->err, GCS_ERR_NOMEM, gcs_cur_offset(c),
                            "out of memory for metadata fields");
        *child = elem;
        gcs_field wrap = {0};
        wrap.name = f->name;
        wrap.type = GCS_T_STRUCT;
        wrap.children = child;
        wrap.child_count = 1;
        *f = wrap;
    }
    f->repeat = repeat;
    f->repeat_arg = count;
    return GCS_OK;
}

static gcs_status parse_type(meta_parse *mp, gcs_cursor *c, unsigned depth, gcs_field *f)
{
    uint8_t code;
    if (!gcs_cur_u8(c, &code))
        return GCS_CORRUPT(mp->err, gcs_cur_offset(c),
                           "metadata field \"%s\": type code missing", f->name);
    f->repeat = GCS_REPEAT_ONE;
    switch (code) {
    case TC_BOOLEAN32: f->type = GCS_T_BOOL32; return GCS_OK;
    case TC_BOOLEAN8: f->type = GCS_T_BOOL8; return GCS_OK;
    case TC_UTF16_CODE_UNIT: f->type = GCS_T_CHAR16; return GCS_OK;
    case TC_UTF8_CODE_UNIT: f->type = GCS_T_CHAR8; return GCS_OK;
    case TC_SBYTE: f->type = GCS_T_I8; return GCS_OK;
    case TC_BYTE: f->type = GCS_T_U8; return GCS_OK;
    case TC_INT16: f->type = GCS_T_I16; return GCS_OK;
    case TC_UINT16: f->type = GCS_T_U16; return GCS_OK;
    case TC_INT32: f->type = GCS_T_I32; return GCS_OK;
    case TC_UINT32: f->type = GCS_T_U32; return GCS_OK;
    case TC_INT64: f->type = GCS_T_I64; return GCS_OK;
    case TC_UINT64: f->type = GCS_T_U64; return GCS_OK;
    case TC_SINGLE: f->type = GCS_T_F32; return GCS_OK;
    case TC_DOUBLE: f->type = GCS_T_F64; return GCS_OK;
    case TC_DECIMAL: /* 16 opaque bytes (TraceEvent decodes none either) */
        f->type = GCS_T_BINARY;
        f->repeat = GCS_REPEAT_FIXED;
        f->repeat_arg = 16;
        return GCS_OK;
    case TC_DATETIME: f->type = GCS_T_DATETIME; return GCS_OK;
    case TC_GUID: f->type = GCS_T_GUID; return GCS_OK;
    case TC_UTF16_STRING: f->type = GCS_T_UTF16Z; return GCS_OK;
    case TC_VARINT: f->type = GCS_T_VARINT; return GCS_OK;
    case TC_VARUINT: f->type = GCS_T_VARUINT; return GCS_OK;
    case TC_OBJECT:
        if (depth + 1 > GCS_MAX_FIELD_DEPTH)
            return GCS_FAIL(mp->err, GCS_ERR_LIMIT, gcs_cur_offset(c),
                            "metadata field \"%s\": structs nest deeper than %d", f->name,
                            GCS_MAX_FIELD_DEPTH);
        f->type = GCS_T_STRUCT;
        return parse_field_list(mp, c, depth + 1, &f->children, &f->child_count);
    case TC_ARRAY:
        return parse_repeated(mp, c, depth, f, GCS_REPEAT_U16_PREFIX, code);
    case TC_FIXED_ARRAY:
        return parse_repeated(mp, c, depth, f, GCS_REPEAT_FIXED, code);
    case TC_RELLOC:
        return parse_repeated(mp, c, depth, f, GCS_REPEAT_RELLOC, code);
    case TC_DATALOC:
        return parse_repeated(mp, c, depth, f, GCS_REPEAT_DATALOC, code);
    default:
        mp->unknown_type = true;
        return GCS_OK;
    }
}

static gcs_status parse_field_list(meta_parse *mp, gcs_cursor *c, unsigned depth,
                                   const gcs_field **out, uint32_t *out_count)
{
    uint16_t count;
    *out = NULL;
    *out_count = 0;
    if (!gcs_cur_u16(c, &count))
        return GCS_CORRUPT(mp->err, gcs_cur_offset(c),
                           "metadata field count missing (%zu bytes left)", gcs_cur_left(c));
    if (count == 0)
        return GCS_OK;
    if (count > GCS_MAX_FIELDS - mp->total_fields)
        return GCS_FAIL(mp->err, GCS_ERR_LIMIT, gcs_cur_offset(c),
                        "metadata row has more than %d fields (%u more declared here)",
                        GCS_MAX_FIELDS, count);
    /* Each field description takes at least its uint16 size. */
    if ((size_t)count * 2 > gcs_cur_left(c))
        return GCS_CORRUPT(mp->err, gcs_cur_offset(c),
                           "metadata declares %u fields but only %zu bytes are left", count,
                           gcs_cur_left(c));
    mp->total_fields += count;
    gcs_field *fields = gcs_arena_alloc(mp->arena, sizeof *fields * count);
    if (!fields)
        return GCS_FAIL(mp->err, GCS_ERR_NOMEM, gcs_cur_offset(c),
                        "out of memory for %u metadata fields", count);
    for (uint32_t i = 0; i < count; i++) {
        uint16_t size;
        gcs_cursor fc;
        uint64_t at = gcs_cur_offset(c);
        if (!gcs_cur_u16(c, &size) || !gcs_cur_sub(c, size, &fc))
            return GCS_CORRUPT(mp->err, at,
                               "metadata field %u of %u: size missing or beyond the %zu "
                               "bytes left",
                               i, count, gcs_cur_left(c));
        if (mp->unknown_type)
            continue; /* schema is dropped anyway: only step over the field */
        gcs_status st = read_arena_string(mp, &fc, "field name", &fields[i].name);
        if (st != GCS_OK)
            return st;
        st = parse_type(mp, &fc, depth, &fields[i]);
        if (st != GCS_OK)
            return st;
        /* bytes left in fc are future extensions: ignored by design */
    }
    *out = fields;
    *out_count = count;
    return GCS_OK;
}

static gcs_status parse_optional(meta_parse *mp, gcs_cursor *c, gcs_meta_def *def,
                                 gcs_v6_anomalies *an)
{
    uint16_t size;
    gcs_cursor oc;
    uint64_t at = gcs_cur_offset(c);
    if (!gcs_cur_u16(c, &size) || !gcs_cur_sub(c, size, &oc))
        return GCS_CORRUPT(mp->err, at,
                           "metadata optional section: size missing or beyond the %zu bytes "
                           "left",
                           gcs_cur_left(c));
    while (gcs_cur_left(&oc) > 0) {
        uint8_t kind = 0;
        uint64_t kat = gcs_cur_offset(&oc);
        const uint8_t *s;
        uint32_t n;
        bool ok = gcs_cur_u8(&oc, &kind);
        switch (kind) {
        case OM_OPCODE: {
            uint8_t v = 0;
            ok = gcs_cur_u8(&oc, &v);
            def->opcode = v;
            def->has_opcode = ok;
            break;
        }
        case OM_KEYWORD:
            ok = gcs_cur_u64(&oc, &def->keywords);
            break;
        case OM_MESSAGE_TEMPLATE:
        case OM_DESCRIPTION:
            ok = gcs_v6_read_string(&oc, &s, &n);
            break;
        case OM_KEY_VALUE:
            ok = gcs_v6_read_string(&oc, &s, &n) && gcs_v6_read_string(&oc, &s, &n);
            break;
        case OM_PROVIDER_GUID:
            ok = gcs_cur_skip(&oc, 16);
            break;
        case OM_LEVEL: {
            uint8_t v = 0;
            ok = gcs_cur_u8(&oc, &v);
            def->level = v;
            break;
        }
        case OM_VERSION: {
            uint8_t v = 0;
            ok = gcs_cur_u8(&oc, &v);
            def->version = v;
            break;
        }
        default:
            /* The size of an unknown kind is unknowable: keep what was read. */
            an->optional_metadata_cut++;
            return GCS_OK;
        }
        if (!ok)
            return GCS_CORRUPT(mp->err, kat, "metadata optional item of kind %u is truncated",
                               kind);
    }
    return GCS_OK;
}

gcs_status gcs_v6_parse_metadata_row(gcs_cursor *row, gcs_arena *arena, gcs_meta_def *def,
                                     gcs_v6_anomalies *an, gcs_error *err)
{
    meta_parse mp = {arena, err, 0, false};
    gcs_meta_def d = {0};
    uint64_t at = gcs_cur_offset(row);
    if (!gcs_cur_varu32(row, &d.metadata_id))
        return GCS_CORRUPT(err, at, "metadata row: MetadataId is unreadable");
    gcs_status st = read_arena_string(&mp, row, "provider name", &d.provider);
    if (st != GCS_OK)
        return st;
    at = gcs_cur_offset(row);
    if (!gcs_cur_varu32(row, &d.event_id))
        return GCS_CORRUPT(err, at, "metadata row %u: EventId is unreadable", d.metadata_id);
    st = read_arena_string(&mp, row, "event name", &d.event_name);
    if (st != GCS_OK)
        return st;
    st = parse_field_list(&mp, row, 0, &d.fields, &d.field_count);
    if (st != GCS_OK)
        return st;
    if (mp.unknown_type) {
        /* A payload with a field of unknown encoding cannot be decoded past
         * it: the schema goes, the identity of the event stays. */
        d.fields = NULL;
        d.field_count = 0;
        an->schemas_dropped++;
    }
    st = parse_optional(&mp, row, &d, an);
    if (st != GCS_OK)
        return st;
    /* remaining bytes of the row are future extensions: ignored by design */
    *def = d;
    return GCS_OK;
}
