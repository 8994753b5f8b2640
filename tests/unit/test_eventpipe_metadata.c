/* Unit tests of src/format/eventpipe_metadata.c on hand-made payloads. */
#include "check.h"

#include "byte_builder.h"
#include "format/eventpipe_metadata.h"

static gcs_arena arena;

/* Header of a V3..V5 payload: id 7, provider "P", event 42 "Ev", keywords, version 2, level 4. */
static void header_v5(bb *b)
{
    bb_u32(b, 7);
    bb_utf16z(b, "P");
    bb_u32(b, 42);
    bb_utf16z(b, "Ev");
    bb_u64(b, 0x8000000000000001ull);
    bb_u32(b, 2);
    bb_u32(b, 4);
}

static gcs_status parse(const bb *b, uint32_t version, uint32_t obsolete_id, gcs_meta_def *def,
                        gcs_error *problem, gcs_error *err)
{
    gcs_cursor c = gcs_cur_make(b->data, b->len, 1000);
    return gcs_ep_metadata_parse(&c, version, obsolete_id, &arena, def, problem, err);
}

static void test_header_without_fields(void)
{
    bb b = {0};
    header_v5(&b);
    gcs_meta_def d;
    gcs_error problem, err;
    CHECK_EQ_INT(parse(&b, 5, 0, &d, &problem, &err), GCS_OK);
    CHECK_EQ_INT(problem.status, GCS_OK);
    CHECK_EQ_U64(d.metadata_id, 7);
    CHECK_EQ_STR(d.provider, "P");
    CHECK_EQ_U64(d.event_id, 42);
    CHECK_EQ_STR(d.event_name, "Ev");
    CHECK_EQ_U64(d.keywords, 0x8000000000000001ull);
    CHECK_EQ_U64(d.version, 2);
    CHECK_EQ_U64(d.level, 4);
    CHECK(!d.has_opcode);
    CHECK_EQ_U64(d.field_count, 0);
    CHECK(d.fields == NULL);
}

static void test_v1_fields_with_struct(void)
{
    bb b = {0};
    header_v5(&b);
    bb_u32(&b, 3);                   /* three fields */
    bb_u32(&b, GCS_EP_TC_INT32);
    bb_utf16z(&b, "Count");
    bb_u32(&b, GCS_EP_TC_OBJECT);    /* struct of two fields */
    bb_u32(&b, 2);
    bb_u32(&b, GCS_EP_TC_GUID);
    bb_utf16z(&b, "Id");
    bb_u32(&b, GCS_EP_TC_STRING);
    bb_utf16z(&b, "Name");
    bb_utf16z(&b, "Inner");
    bb_u32(&b, GCS_EP_TC_DECIMAL);
    bb_utf16z(&b, "Money");
    gcs_meta_def d;
    gcs_error problem, err;
    CHECK_EQ_INT(parse(&b, 4, 0, &d, &problem, &err), GCS_OK);
    CHECK_EQ_INT(problem.status, GCS_OK);
    CHECK_EQ_U64(d.field_count, 3);
    if (d.field_count != 3)
        return;
    CHECK_EQ_STR(d.fields[0].name, "Count");
    CHECK_EQ_INT(d.fields[0].type, GCS_T_I32);
    CHECK_EQ_INT(d.fields[0].repeat, GCS_REPEAT_ONE);
    CHECK_EQ_STR(d.fields[1].name, "Inner");
    CHECK_EQ_INT(d.fields[1].type, GCS_T_STRUCT);
    CHECK_EQ_U64(d.fields[1].child_count, 2);
    CHECK_EQ_STR(d.fields[1].children[0].name, "Id");
    CHECK_EQ_INT(d.fields[1].children[0].type, GCS_T_GUID);
    CHECK_EQ_STR(d.fields[1].children[1].name, "Name");
    CHECK_EQ_INT(d.fields[1].children[1].type, GCS_T_UTF16Z);
    CHECK_EQ_STR(d.fields[2].name, "Money");
    CHECK_EQ_INT(d.fields[2].type, GCS_T_BINARY);
    CHECK_EQ_INT(d.fields[2].repeat, GCS_REPEAT_FIXED);
    CHECK_EQ_U64(d.fields[2].repeat_arg, 16);
}

/* One V2Params field: Size (inclusive), name, type code, [element code]. */
static size_t v2_field_begin(bb *b, const char *name)
{
    size_t at = b->len;
    bb_u32(b, 0);
    bb_utf16z(b, name);
    return at;
}
static void v2_field_end(bb *b, size_t at) { bb_patch_u32(b, at, (uint32_t)(b->len - at)); }

static void test_v5_tags_arrays_and_opcode(void)
{
    bb b = {0};
    header_v5(&b);
    bb_u32(&b, 0); /* empty V1 list, as writers do when V2Params follows */
    /* OpCode tag */
    bb_u32(&b, 1);
    bb_u8(&b, 1);
    bb_u8(&b, 24);
    /* V2Params tag */
    size_t tag_at = b.len;
    bb_u32(&b, 0);
    bb_u8(&b, 2);
    size_t tag_body = b.len;
    bb_u32(&b, 4);
    size_t f = v2_field_begin(&b, "ints");
    bb_u32(&b, GCS_EP_TC_ARRAY);
    bb_u32(&b, GCS_EP_TC_INT32);
    v2_field_end(&b, f);
    f = v2_field_begin(&b, "plain");
    bb_u32(&b, GCS_EP_TC_UINT64);
    bb_zeros(&b, 3); /* padding inside the field's Size is allowed */
    v2_field_end(&b, f);
    f = v2_field_begin(&b, "pairs");
    bb_u32(&b, GCS_EP_TC_ARRAY);
    bb_u32(&b, GCS_EP_TC_OBJECT);
    bb_u32(&b, 2);
    size_t g = v2_field_begin(&b, "k");
    bb_u32(&b, GCS_EP_TC_INT16);
    v2_field_end(&b, g);
    g = v2_field_begin(&b, "v");
    bb_u32(&b, GCS_EP_TC_CHAR);
    v2_field_end(&b, g);
    v2_field_end(&b, f);
    f = v2_field_begin(&b, "grid");
    bb_u32(&b, GCS_EP_TC_ARRAY);
    bb_u32(&b, GCS_EP_TC_ARRAY);
    bb_u32(&b, GCS_EP_TC_BYTE);
    v2_field_end(&b, f);
    bb_patch_u32(&b, tag_at, (uint32_t)(b.len - tag_body));
    /* An unknown tag kind is skipped by its size. */
    bb_u32(&b, 3);
    bb_u8(&b, 99);
    bb_zeros(&b, 3);

    gcs_meta_def d;
    gcs_error problem, err;
    CHECK_EQ_INT(parse(&b, 5, 0, &d, &problem, &err), GCS_OK);
    CHECK_EQ_INT(problem.status, GCS_OK);
    CHECK(d.has_opcode);
    CHECK_EQ_U64(d.opcode, 24);
    CHECK_EQ_U64(d.field_count, 4);
    if (d.field_count != 4)
        return;
    CHECK_EQ_STR(d.fields[0].name, "ints");
    CHECK_EQ_INT(d.fields[0].type, GCS_T_I32);
    CHECK_EQ_INT(d.fields[0].repeat, GCS_REPEAT_U16_PREFIX);
    CHECK_EQ_STR(d.fields[1].name, "plain");
    CHECK_EQ_INT(d.fields[1].type, GCS_T_U64);
    CHECK_EQ_INT(d.fields[1].repeat, GCS_REPEAT_ONE);
    CHECK_EQ_STR(d.fields[2].name, "pairs");
    CHECK_EQ_INT(d.fields[2].type, GCS_T_STRUCT);
    CHECK_EQ_INT(d.fields[2].repeat, GCS_REPEAT_U16_PREFIX);
    CHECK_EQ_U64(d.fields[2].child_count, 2);
    CHECK_EQ_STR(d.fields[2].children[1].name, "v");
    CHECK_EQ_INT(d.fields[2].children[1].type, GCS_T_CHAR16);
    /* array of arrays: a repeated one-field struct wrapping the inner array */
    CHECK_EQ_STR(d.fields[3].name, "grid");
    CHECK_EQ_INT(d.fields[3].type, GCS_T_STRUCT);
    CHECK_EQ_INT(d.fields[3].repeat, GCS_REPEAT_U16_PREFIX);
    CHECK_EQ_U64(d.fields[3].child_count, 1);
    CHECK_EQ_INT(d.fields[3].children[0].type, GCS_T_U8);
    CHECK_EQ_INT(d.fields[3].children[0].repeat, GCS_REPEAT_U16_PREFIX);
}

static void test_unknown_type_code_is_survivable(void)
{
    bb b = {0};
    header_v5(&b);
    bb_u32(&b, 2);
    bb_u32(&b, GCS_EP_TC_INT32);
    bb_utf16z(&b, "ok");
    bb_u32(&b, 2); /* DBNull: not a field type */
    bb_utf16z(&b, "bad");
    gcs_meta_def d;
    gcs_error problem, err;
    CHECK_EQ_INT(parse(&b, 5, 0, &d, &problem, &err), GCS_OK);
    CHECK_EQ_INT(problem.status, GCS_ERR_CORRUPT);
    CHECK(strstr(problem.reason, "unknown type code 2") != NULL);
    CHECK_EQ_STR(d.event_name, "Ev"); /* the row keeps its names */
    CHECK_EQ_U64(d.field_count, 0);

    /* Array type code in the V1 list is not allowed (TraceEvent agrees). */
    bb a = {0};
    header_v5(&a);
    bb_u32(&a, 1);
    bb_u32(&a, GCS_EP_TC_ARRAY);
    bb_u32(&a, GCS_EP_TC_INT32);
    bb_utf16z(&a, "arr");
    CHECK_EQ_INT(parse(&a, 5, 0, &d, &problem, &err), GCS_OK);
    CHECK_EQ_INT(problem.status, GCS_ERR_CORRUPT);
    CHECK_EQ_U64(d.field_count, 0);
}

static void test_limits(void)
{
    gcs_meta_def d;
    gcs_error problem, err;
    /* A huge field count is refused before any allocation. */
    bb b = {0};
    header_v5(&b);
    bb_u32(&b, 0xfffffff0u);
    size_t before = arena.total;
    CHECK_EQ_INT(parse(&b, 5, 0, &d, &problem, &err), GCS_OK);
    CHECK_EQ_INT(problem.status, GCS_ERR_CORRUPT);
    CHECK_EQ_U64(d.field_count, 0);
    CHECK(arena.total - before < 4096);

    /* A count that fits the limit but not the bytes left. */
    bb c = {0};
    header_v5(&c);
    bb_u32(&c, 1000);
    bb_u32(&c, GCS_EP_TC_INT32);
    CHECK_EQ_INT(parse(&c, 5, 0, &d, &problem, &err), GCS_OK);
    CHECK_EQ_INT(problem.status, GCS_ERR_CORRUPT);

    /* Structs nested deeper than GCS_MAX_FIELD_DEPTH. */
    bb n = {0};
    header_v5(&n);
    for (int i = 0; i < GCS_MAX_FIELD_DEPTH + 2; i++) {
        bb_u32(&n, 1);
        bb_u32(&n, GCS_EP_TC_OBJECT);
    }
    bb_u32(&n, 0);
    for (int i = 0; i < GCS_MAX_FIELD_DEPTH + 2; i++)
        bb_utf16z(&n, "s");
    CHECK_EQ_INT(parse(&n, 5, 0, &d, &problem, &err), GCS_OK);
    CHECK_EQ_INT(problem.status, GCS_ERR_CORRUPT);
    CHECK(strstr(problem.reason, "deeper") != NULL);
    CHECK_EQ_U64(d.field_count, 0);

    /* Exactly GCS_MAX_FIELD_DEPTH levels are fine. */
    bb ok = {0};
    header_v5(&ok);
    for (int i = 0; i < GCS_MAX_FIELD_DEPTH; i++) {
        bb_u32(&ok, 1);
        bb_u32(&ok, GCS_EP_TC_OBJECT);
    }
    bb_u32(&ok, 0);
    for (int i = 0; i < GCS_MAX_FIELD_DEPTH; i++)
        bb_utf16z(&ok, "s");
    CHECK_EQ_INT(parse(&ok, 5, 0, &d, &problem, &err), GCS_OK);
    CHECK_EQ_INT(problem.status, GCS_OK);
    CHECK_EQ_U64(d.field_count, 1);
}

static void test_bad_header_is_an_error(void)
{
    bb b = {0};
    header_v5(&b);
    gcs_meta_def d;
    gcs_error problem, err;
    for (size_t cut = 0; cut < b.len; cut++) {
        bb t = b;
        t.len = cut;
        gcs_status st = parse(&t, 5, 0, &d, &problem, &err);
        CHECK_EQ_INT(st, GCS_ERR_CORRUPT);
        CHECK(err.offset >= 1000 && err.offset <= 1000 + cut);
    }
}

static void test_obsolete_headers(void)
{
    gcs_meta_def d;
    gcs_error problem, err;
    /* V2: provider name, EventId, Version, then a 0 length: no more. */
    bb b = {0};
    bb_utf16z(&b, "Microsoft-Windows-DotNETRuntime");
    bb_u32(&b, 10);
    bb_u32(&b, 3);
    bb_u32(&b, 0);
    CHECK_EQ_INT(parse(&b, 2, 114, &d, &problem, &err), GCS_OK);
    CHECK_EQ_U64(d.metadata_id, 114);
    CHECK_EQ_STR(d.provider, "Microsoft-Windows-DotNETRuntime");
    CHECK_EQ_U64(d.event_id, 10);
    CHECK_EQ_U64(d.version, 3);
    CHECK_EQ_STR(d.event_name, "");
    /* V1: provider GUID, then the common header and one field. */
    bb g = {0};
    const uint8_t guid[16] = {0x33, 0x22, 0x11, 0x00, 0x55, 0x44, 0x77, 0x66,
                              0x88, 0x99, 0xaa, 0xbb, 0xcc, 0xdd, 0xee, 0xff};
    bb_bytes(&g, guid, 16);
    bb_u32(&g, 1);
    bb_u32(&g, 0);
    bb_u32(&g, 1);
    bb_u32(&g, 5);
    bb_utf16z(&g, "Named");
    bb_u64(&g, 3);
    bb_u32(&g, 1);
    bb_u32(&g, 5);
    bb_u32(&g, 1);
    bb_u32(&g, GCS_EP_TC_BOOLEAN);
    bb_utf16z(&g, "Flag");
    CHECK_EQ_INT(parse(&g, 1, 77, &d, &problem, &err), GCS_OK);
    CHECK_EQ_U64(d.metadata_id, 77);
    /* TraceEvent's name for a provider it has no parser for. */
    CHECK_EQ_STR(d.provider, "Provider(00112233-4455-6677-8899-aabbccddeeff)");
    CHECK_EQ_U64(d.event_id, 5);
    CHECK_EQ_STR(d.event_name, "Named");
    CHECK_EQ_U64(d.level, 5);
    CHECK_EQ_U64(d.field_count, 1);
    if (d.field_count == 1)
        CHECK_EQ_INT(d.fields[0].type, GCS_T_BOOL32);
}

/* V1 GUIDs of the providers TraceEvent has parsers for get their names, as
 * in the PerfView baseline of eventpipe-dotnetcore2.0-linux-objver1.netperf
 * (Microsoft-Windows-DotNETRuntime/GC/Start, .../TaskWait/Send). */
static void test_v1_known_provider_guids(void)
{
    static const struct {
        uint8_t guid[16]; /* Windows byte order */
        const char *name;
    } known[] = {
        {{0x23, 0x0d, 0x3c, 0xe1, 0xbc, 0xcc, 0x12, 0x4e, 0x93, 0x1b, 0xd9, 0xcc, 0x2e, 0xee, 0x27,
          0xe4},
         "Microsoft-Windows-DotNETRuntime"},
        {{0x1c, 0x02, 0x69, 0xa6, 0x50, 0xc4, 0x09, 0x46, 0xa0, 0x35, 0x5a, 0xf5, 0x9a, 0xf4, 0xdf,
          0x18},
         "Microsoft-Windows-DotNETRuntimeRundown"},
        {{0x54, 0xd7, 0x3f, 0x76, 0x86, 0x70, 0xfe, 0x4d, 0x95, 0xeb, 0xc0, 0x1a, 0x46, 0xfa, 0xf4,
          0xca},
         "Microsoft-Windows-DotNETRuntimePrivate"},
        {{0x44, 0x0d, 0x53, 0x3c, 0xae, 0x97, 0x3a, 0x51, 0x1e, 0x6d, 0x78, 0x3e, 0x8f, 0x8e, 0x03,
          0xa9},
         "Microsoft-DotNETCore-SampleProfiler"},
        {{0x47, 0xba, 0x5d, 0x2e, 0xd2, 0xa3, 0x16, 0x4d, 0x8e, 0xe0, 0x66, 0x71, 0xff, 0xdc, 0xd7,
          0xb5},
         "System.Threading.Tasks.TplEventSource"},
    };
    for (size_t i = 0; i < sizeof known / sizeof known[0]; i++) {
        bb b = {0};
        bb_bytes(&b, known[i].guid, 16);
        bb_u32(&b, 10);
        bb_u32(&b, 0);
        bb_u32(&b, 0);
        gcs_meta_def d;
        gcs_error problem, err;
        CHECK_EQ_INT(parse(&b, 1, 40, &d, &problem, &err), GCS_OK);
        CHECK_EQ_STR(d.provider, known[i].name);
        CHECK_EQ_U64(d.event_id, 10);
    }
}

static void test_scalar_table(void)
{
    static const struct {
        uint32_t code;
        gcs_type type;
    } table[] = {
        {3, GCS_T_BOOL32}, {4, GCS_T_CHAR16}, {5, GCS_T_I8},   {6, GCS_T_U8},
        {7, GCS_T_I16},    {8, GCS_T_U16},    {9, GCS_T_I32},  {10, GCS_T_U32},
        {11, GCS_T_I64},   {12, GCS_T_U64},   {13, GCS_T_F32}, {14, GCS_T_F64},
        {16, GCS_T_DATETIME}, {17, GCS_T_GUID}, {18, GCS_T_UTF16Z},
    };
    gcs_type t;
    uint32_t fixed;
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++) {
        CHECK(gcs_ep_scalar_type(table[i].code, false, &t, &fixed));
        CHECK_EQ_INT(t, table[i].type);
        CHECK_EQ_U64(fixed, 0);
    }
    CHECK(!gcs_ep_scalar_type(GCS_EP_TC_OBJECT, true, &t, &fixed));
    CHECK(!gcs_ep_scalar_type(GCS_EP_TC_ARRAY, true, &t, &fixed));
    CHECK(!gcs_ep_scalar_type(0, true, &t, &fixed));
    CHECK(!gcs_ep_scalar_type(GCS_EP_TC_BOOLEAN8, false, &t, &fixed));
    CHECK(gcs_ep_scalar_type(GCS_EP_TC_BOOLEAN8, true, &t, &fixed));
    CHECK_EQ_INT(t, GCS_T_BOOL8);
}

int main(void)
{
    gcs_arena_init(&arena, (size_t)16 << 20);
    RUN(test_header_without_fields);
    RUN(test_v1_fields_with_struct);
    RUN(test_v5_tags_arrays_and_opcode);
    RUN(test_unknown_type_code_is_survivable);
    RUN(test_limits);
    RUN(test_bad_header_is_an_error);
    RUN(test_obsolete_headers);
    RUN(test_v1_known_provider_guids);
    RUN(test_scalar_table);
    gcs_arena_reset(&arena);
    return check_report("test_eventpipe_metadata");
}
