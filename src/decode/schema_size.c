#include "decode/schema_size.h"

/* Nesting beyond this is left to the walker (which has its own limit). */
#define FIXED_SIZE_MAX_DEPTH 8

static bool scalar_size(gcs_type t, uint32_t pointer_size, uint32_t *size)
{
    switch (t) {
    case GCS_T_BOOL8: case GCS_T_I8: case GCS_T_U8: case GCS_T_CHAR8: *size = 1; return true;
    case GCS_T_CHAR16: case GCS_T_I16: case GCS_T_U16: *size = 2; return true;
    case GCS_T_BOOL32: case GCS_T_I32: case GCS_T_U32: case GCS_T_F32: *size = 4; return true;
    case GCS_T_I64: case GCS_T_U64: case GCS_T_F64: *size = 8; return true;
    case GCS_T_POINTER: *size = pointer_size; return pointer_size == 4 || pointer_size == 8;
    case GCS_T_GUID: case GCS_T_IPV6: *size = 16; return true;
    case GCS_T_IPV4: *size = 4; return true;
    case GCS_T_PORT: *size = 2; return true;
    case GCS_T_UTF16_FIXED: *size = 2; return true; /* per code unit (FIXED repeat) */
    default: return false; /* strings, binary, datetime encodings, padding */
    }
}

static bool fixed_size(const gcs_field *fields, uint32_t count, uint32_t pointer_size,
                       unsigned depth, uint64_t *total)
{
    if (depth > FIXED_SIZE_MAX_DEPTH)
        return false;
    for (uint32_t i = 0; i < count; i++) {
        const gcs_field *f = &fields[i];
        uint64_t one = 0;
        if (f->type == GCS_T_STRUCT) {
            if (!fixed_size(f->children, f->child_count, pointer_size, depth + 1, &one))
                return false;
        } else {
            uint32_t s;
            if (!scalar_size(f->type, pointer_size, &s))
                return false;
            one = s;
        }
        if (f->repeat == GCS_REPEAT_FIXED)
            one *= f->repeat_arg;
        else if (f->repeat != GCS_REPEAT_ONE)
            return false;
        *total += one;
        if (*total > UINT32_MAX)
            return false;
    }
    return true;
}

bool gcs_schema_fixed_size(const gcs_field *fields, uint32_t count, uint32_t pointer_size,
                           uint32_t *size)
{
    uint64_t total = 0;
    if (!fixed_size(fields, count, pointer_size, 0, &total))
        return false;
    *size = (uint32_t)total;
    return true;
}
