/*
 * NativeAOT type names: the ELF symbol reader (gcs_symbols_*) on
 * hand-made files (tests/unit/elf_builder.h: every field can be wrong on
 * purpose) and on the committed fixture's symbols (tests/data/net10-aot.dbg),
 * and the object analysis naming the types a NativeAOT trace leaves
 * unnamed (gcs_objects_set_symbols) on synthetic events: from the module
 * events' load address, inferred from the type ids, refused for another
 * build. docs/symbols.md.
 */
#include <stdlib.h>

#include "check.h"
#include "elf_builder.h"
#include "gcscope.h"

static const uint8_t BUILD_ID[20] = {0x7b, 0x06, 0x9b, 0x82, 0xaf, 0xce, 0x89, 0xf5, 0xdd, 0x24,
                                     0xce, 0xcc, 0x9d, 0x43, 0x63, 0x6b, 0xf6, 0x4c, 0xa2, 0xa4};
static const char BUILD_ID_HEX[] = "7B069B82AFCE89F5DD24CECC9D43636BF64CA2A4";

/* A NativeAOT-like symbol table: type symbols of both forms, and the
 * symbols a reader must skip. */
static const elf_sym SYMS[] = {
    {"_ZTV6String", 0x3a01e8, 5},
    {"_ZTV14__Array<UInt8>", 0x3eff40, 5},
    {"_ZTV18gcload_GcLoad_Node", 0x3b8120, 5},
    {"__GCStaticEEType_0111", 0x3fe710, 5},
    {"_ZTV6String", 0x3a01e8, 5},            /* the same again: an alias */
    {"_ZTVN4Rhp6ThreadE", 0x300000, 5},      /* a C++ vtable of a nested name */
    {"_ZTV7Short", 0x300100, 5},             /* length 7, 5 bytes follow */
    {"_ZTV5Undef", 0x300200, 0},             /* undefined */
    {"RhpNewFast", 0x1000, 1},               /* code */
    {"_ZTV0", 0x300300, 5},                  /* no name */
    {"DotNetRuntimeDebugHeader", 0x35cb38, 32}, /* NativeAOT's runtime exports it */
};
#define NSYMS (sizeof SYMS / sizeof SYMS[0])

static gcs_symbols *build_and_parse(const elf_spec *spec, bb *b, gcs_error *err)
{
    elf_build(b, spec);
    gcs_error_clear(err);
    return gcs_symbols_parse(b->data, b->len, err);
}

static void check_table(gcs_symbols *s, int elf_class)
{
    CHECK(s != NULL);
    if (!s)
        return;
    const gcs_symbols_stats *st = gcs_symbols_get_stats(s);
    CHECK_EQ_INT(st->elf_class, elf_class);
    CHECK_EQ_U64(st->symbols, NSYMS + 1); /* and the null symbol */
    CHECK_EQ_U64(st->type_symbols, 4);
    CHECK_EQ_U64(st->type_aliases, 1);
    CHECK_EQ_STR(gcs_symbols_build_id(s), BUILD_ID_HEX);
    CHECK(st->native_aot);
    CHECK_EQ_STR(gcs_symbols_type_name(s, 0x3a01e8), "String");
    CHECK_EQ_STR(gcs_symbols_type_name(s, 0x3eff40), "__Array<UInt8>");
    CHECK_EQ_STR(gcs_symbols_type_name(s, 0x3b8120), "gcload_GcLoad_Node");
    CHECK_EQ_STR(gcs_symbols_type_name(s, 0x3fe710), "__GCStaticEEType_0111");
    CHECK(gcs_symbols_type_name(s, 0x300000) == NULL);
    CHECK(gcs_symbols_type_name(s, 0x300100) == NULL);
    CHECK(gcs_symbols_type_name(s, 0x300200) == NULL);
    CHECK(gcs_symbols_type_name(s, 0x1000) == NULL);
    CHECK(gcs_symbols_type_name(s, 0x3a01e9) == NULL);
    CHECK_EQ_U64(gcs_symbols_type_count(s), 4);
    for (size_t i = 1; i < gcs_symbols_type_count(s); i++)
        CHECK(gcs_symbols_type_address(s, i - 1) < gcs_symbols_type_address(s, i));
}

static void test_reads_64_and_32_bit(void)
{
    static bb b;
    gcs_error err;
    for (int is32 = 0; is32 <= 1; is32++) {
        elf_spec spec = {.is32 = is32, .syms = SYMS, .nsyms = NSYMS, .build_id = BUILD_ID,
                         .build_id_len = sizeof BUILD_ID};
        gcs_symbols *s = build_and_parse(&spec, &b, &err);
        check_table(s, is32 ? 32 : 64);
        CHECK_EQ_INT(gcs_symbols_get_stats(s)->symbol_table, 1);
        gcs_symbols_free(s);
        /* Section count in section 0 (extended numbering). */
        spec.extended_shnum = true;
        s = build_and_parse(&spec, &b, &err);
        check_table(s, is32 ? 32 : 64);
        gcs_symbols_free(s);
    }
}

static void test_dynsym_and_no_note(void)
{
    static bb b;
    gcs_error err;
    elf_spec spec = {.syms = SYMS, .nsyms = NSYMS, .dynsym = true};
    gcs_symbols *s = build_and_parse(&spec, &b, &err);
    CHECK(s != NULL);
    if (!s)
        return;
    CHECK_EQ_INT(gcs_symbols_get_stats(s)->symbol_table, 2);
    CHECK_EQ_STR(gcs_symbols_build_id(s), "");
    CHECK(gcs_symbols_get_stats(s)->native_aot);
    gcs_symbols_free(s);
    /* Without the debug header: not NativeAOT's. */
    spec.nsyms = NSYMS - 1;
    s = build_and_parse(&spec, &b, &err);
    CHECK(s && !gcs_symbols_get_stats(s)->native_aot);
    CHECK_EQ_STR(gcs_symbols_type_name(s, 0x3a01e8), "String");
    gcs_symbols_free(s);
}

/* Every prefix of a valid file, and each byte of its headers set to 0xff:
 * an answer (a table, or NULL with a reason), never a crash; prefixes
 * that cut a table say where. */
static void test_hostile_bytes(void)
{
    static bb b, cut;
    gcs_error err;
    elf_spec spec = {.syms = SYMS, .nsyms = NSYMS, .build_id = BUILD_ID,
                     .build_id_len = sizeof BUILD_ID};
    elf_build(&b, &spec);
    size_t failures = 0;
    for (size_t n = 0; n < b.len; n++) {
        gcs_error_clear(&err);
        gcs_symbols *s = gcs_symbols_parse(b.data, n, &err);
        if (!s) {
            failures++;
            CHECK(err.status < 0 && err.reason[0]);
        }
        gcs_symbols_free(s);
    }
    CHECK(failures > b.len / 2);
    for (size_t i = 0; i < b.len; i++) {
        cut = b;
        cut.data[i] = 0xff;
        gcs_error_clear(&err);
        gcs_symbols *s = gcs_symbols_parse(cut.data, cut.len, &err);
        if (!s)
            CHECK(err.status < 0 && err.reason[0]);
        gcs_symbols_free(s);
    }
    /* Not ELF; big-endian. */
    gcs_error_clear(&err);
    CHECK(gcs_symbols_parse("GCSPROF\0", 8, &err) == NULL);
    CHECK_EQ_INT(err.status, GCS_ERR_NOT_TRACE);
    cut = b;
    cut.data[5] = 2;
    gcs_error_clear(&err);
    CHECK(gcs_symbols_parse(cut.data, cut.len, &err) == NULL);
    CHECK_EQ_INT(err.status, GCS_ERR_UNSUPPORTED);
}

/* ---- the object analysis ---- */

static void feed(gcs_objects *an, const char *provider, uint32_t id, uint32_t version,
                 const bb *p, double ms)
{
    static gcs_event_type types[4];
    gcs_event_type *t = &types[(strstr(provider, "Rundown") ? 2 : 0) + (id == 10)];
    t->provider = provider;
    t->event_id = id;
    t->version = version;
    gcs_event ev;
    memset(&ev, 0, sizeof ev);
    ev.type = t;
    ev.msec = ms;
    ev.payload = p->data;
    ev.payload_size = (uint32_t)p->len;
    ev.pointer_size = 8;
    gcs_error err;
    CHECK_EQ_INT(gcs_objects_feed(an, &ev, &err), GCS_OK);
}

#define RUNTIME "Microsoft-Windows-DotNETRuntime"
#define RUNDOWN "Microsoft-Windows-DotNETRuntimeRundown"

/* ModuleLoad V3 (runtime 152) or ModuleDCStop V3 (rundown 154) of a
 * NativeAOT executable. */
static void module(gcs_objects *an, bool rundown, uint64_t base, const char *build_id)
{
    static bb p;
    p.len = 0;
    bb_u64(&p, base);
    bb_u64(&p, 0);          /* AssemblyID */
    bb_u32(&p, 2);          /* Native */
    bb_u32(&p, 0);
    bb_utf16z(&p, "");
    bb_utf16z(&p, "./out/app");
    bb_u16(&p, 0);          /* ClrInstanceID */
    bb_zeros(&p, 16 + 4);   /* ManagedPdbSignature, ManagedPdbAge */
    bb_utf16z(&p, "NULL");
    bb_zeros(&p, 16 + 4);   /* NativePdbSignature, NativePdbAge */
    bb_utf16z(&p, "");
    bb_utf16z(&p, build_id);
    feed(an, rundown ? RUNDOWN : RUNTIME, rundown ? 154 : 152, 3, &p, 1);
}

static void tick(gcs_objects *an, uint64_t type_id, const char *name, uint64_t address)
{
    static bb p;
    p.len = 0;
    bb_u32(&p, 100000);
    bb_u32(&p, 0);
    bb_u16(&p, 0);
    bb_u64(&p, 100000);
    bb_u64(&p, type_id);
    bb_utf16z(&p, name);
    bb_u32(&p, 0);
    bb_u64(&p, address);
    bb_u64(&p, 48);
    feed(an, RUNTIME, 10, 4, &p, 2);
}

static gcs_symbols *fixture_symbols(void)
{
    static bb b;
    gcs_error err;
    elf_spec spec = {.syms = SYMS, .nsyms = NSYMS, .build_id = BUILD_ID,
                     .build_id_len = sizeof BUILD_ID};
    return build_and_parse(&spec, &b, &err);
}

/* The name of the type with this id after the analysis, or NULL. */
static const char *name_of(const gcs_objects *an, uint64_t type_id)
{
    for (size_t i = 0; i < gcs_objects_type_count(an); i++) {
        const gcs_object_type_stats *t = gcs_objects_type(an, i);
        if (t->type_id == type_id)
            return t->name;
    }
    return NULL;
}

enum { MODULE_NONE, MODULE_LOAD, MODULE_RUNDOWN };

/* A NativeAOT process allocating String, byte[] and Node (NULL names)
 * from the image at base; the analysis given syms. */
static gcs_objects *aot_run(uint64_t base, int module_event, const char *trace_build_id,
                            const gcs_symbols *syms, bool three_types)
{
    gcs_error err;
    gcs_objects *an = gcs_objects_new(&err);
    CHECK(an != NULL);
    if (syms)
        gcs_objects_set_symbols(an, syms);
    if (module_event == MODULE_LOAD)
        module(an, false, base, trace_build_id);
    tick(an, base + 0x3a01e8, "NULL", 0x7f0000001000);
    if (three_types) {
        tick(an, base + 0x3eff40, "NULL", 0x7f0000002000);
        tick(an, base + 0x3b8120, "NULL", 0x7f0000003000);
        tick(an, base + 0x3a01e8, "NULL", 0x7f0000004000); /* String again */
    }
    if (module_event == MODULE_RUNDOWN)
        module(an, true, base, trace_build_id);
    CHECK_EQ_INT(gcs_objects_finish(an, &err), GCS_OK);
    return an;
}

static void test_names_from_module_event(void)
{
    gcs_symbols *syms = fixture_symbols();
    const uint64_t base = 0x560d50715000;
    for (int m = MODULE_LOAD; m <= MODULE_RUNDOWN; m++) {
        gcs_objects *an = aot_run(base, m, BUILD_ID_HEX, syms, true);
        CHECK_EQ_STR(name_of(an, base + 0x3a01e8), "String");
        CHECK_EQ_STR(name_of(an, base + 0x3eff40), "__Array<UInt8>");
        CHECK_EQ_STR(name_of(an, base + 0x3b8120), "gcload_GcLoad_Node");
        const gcs_objects_summary *s = gcs_objects_get_summary(an);
        CHECK_EQ_U64(s->types_without_name, 3);
        CHECK_EQ_U64(s->types_named_from_symbols, 3);
        CHECK_EQ_U64(s->null_type_names, 4); /* every tick, the repeated type's too */
        const gcs_objects_symbols_info *si = gcs_objects_get_symbols_info(an);
        CHECK(si->used && !si->build_id_mismatch);
        CHECK_EQ_U64(si->image_base, base);
        CHECK_EQ_INT(si->base_from, GCS_IMAGE_BASE_FROM_MODULE_EVENT);
        CHECK_EQ_STR(si->trace_build_id, BUILD_ID_HEX);
        CHECK_EQ_STR(si->file_build_id, BUILD_ID_HEX);
        /* The path from ModuleLoad only (a NativeAOT rundown's is not clean). */
        CHECK_EQ_STR(si->image_path, m == MODULE_LOAD ? "./out/app" : "");
        gcs_objects_free(an);
    }
    gcs_symbols_free(syms);
}

static void test_names_from_inferred_base(void)
{
    gcs_symbols *syms = fixture_symbols();
    const uint64_t base = 0x5556fcc7b000;
    gcs_objects *an = aot_run(base, MODULE_NONE, NULL, syms, true);
    CHECK_EQ_STR(name_of(an, base + 0x3eff40), "__Array<UInt8>");
    const gcs_objects_symbols_info *si = gcs_objects_get_symbols_info(an);
    CHECK_EQ_INT(si->base_from, GCS_IMAGE_BASE_FROM_TYPE_IDS);
    CHECK_EQ_U64(si->image_base, base);
    CHECK_EQ_U64(gcs_objects_get_summary(an)->types_named_from_symbols, 3);
    gcs_objects_free(an);
    /* One type id alone could sit on any symbol: no base is guessed. */
    an = aot_run(base, MODULE_NONE, NULL, syms, false);
    CHECK_EQ_STR(name_of(an, base + 0x3a01e8), "");
    CHECK_EQ_INT(gcs_objects_get_symbols_info(an)->base_from, GCS_IMAGE_BASE_UNKNOWN);
    CHECK_EQ_U64(gcs_objects_get_summary(an)->types_without_name, 1);
    CHECK_EQ_U64(gcs_objects_get_summary(an)->types_named_from_symbols, 0);
    gcs_objects_free(an);
    gcs_symbols_free(syms);
}

static void test_other_build_names_nothing(void)
{
    gcs_symbols *syms = fixture_symbols();
    const uint64_t base = 0x560d50715000;
    gcs_objects *an = aot_run(base, MODULE_LOAD, "A29F9FD9F4FC10BBC1F535DBFEE0966587AB6EF0", syms,
                              true);
    CHECK_EQ_STR(name_of(an, base + 0x3a01e8), "");
    const gcs_objects_symbols_info *si = gcs_objects_get_symbols_info(an);
    CHECK(si->build_id_mismatch);
    CHECK_EQ_U64(gcs_objects_get_summary(an)->types_named_from_symbols, 0);
    gcs_objects_free(an);
    /* Without symbols: the image is known, the names are not. */
    an = aot_run(base, MODULE_LOAD, BUILD_ID_HEX, NULL, true);
    CHECK_EQ_STR(name_of(an, base + 0x3a01e8), "");
    CHECK(!gcs_objects_get_symbols_info(an)->used);
    CHECK_EQ_U64(gcs_objects_get_symbols_info(an)->image_base, base);
    CHECK_EQ_U64(gcs_objects_get_summary(an)->types_without_name, 3);
    gcs_objects_free(an);
    gcs_symbols_free(syms);
}

/* A CoreCLR trace names its types: symbols change nothing. */
static void test_named_types_untouched(void)
{
    gcs_symbols *syms = fixture_symbols();
    gcs_error err;
    gcs_objects *an = gcs_objects_new(&err);
    gcs_objects_set_symbols(an, syms);
    tick(an, 0x3a01e8, "System.String", 0x7f0000001000);
    tick(an, 0x3eff40, "System.Byte[]", 0x7f0000002000);
    CHECK_EQ_INT(gcs_objects_finish(an, &err), GCS_OK);
    CHECK_EQ_STR(name_of(an, 0x3a01e8), "System.String");
    CHECK_EQ_U64(gcs_objects_get_summary(an)->types_without_name, 0);
    CHECK_EQ_U64(gcs_objects_get_summary(an)->types_named_from_symbols, 0);
    CHECK_EQ_U64(gcs_objects_get_summary(an)->null_type_names, 0);
    gcs_objects_free(an);
    gcs_symbols_free(syms);
}

/* The committed NativeAOT fixture's symbols (scripts/record-fixtures.sh
 * net10-aot) carry the build ID its trace's ModuleLoad names. */
static void test_fixture_symbols(void)
{
    const char *path = "tests/data/net10-aot.dbg";
    if (!check_file_exists(path))
        SKIP("tests/data/net10-aot.dbg not present");
    gcs_error err;
    gcs_error_clear(&err);
    gcs_symbols *s = gcs_symbols_load(path, &err);
    CHECK(s != NULL);
    if (!s)
        return;
    CHECK_EQ_INT(gcs_symbols_get_stats(s)->elf_class, 64);
    CHECK(gcs_symbols_type_count(s) > 1000);
    CHECK_EQ_INT((int)strlen(gcs_symbols_build_id(s)), 40);
    /* The build ID as the trace's ModuleLoad writes it. */
    gcs_source *src = gcs_source_open_file("tests/data/net10-aot.nettrace", &err);
    gcs_reader *r = src ? gcs_reader_new(src, NULL, &err) : NULL;
    CHECK(r != NULL);
    bool found = false;
    const gcs_event *ev;
    while (r && gcs_reader_next(r, &ev, &err) == GCS_OK) {
        if (!ev->type || ev->type->event_id != 152 || strcmp(ev->type->provider, RUNTIME) != 0)
            continue;
        char *text = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&text, &len);
        gcs_error perr;
        CHECK(f && gcs_event_print_text(f, ev, &perr) == GCS_OK);
        if (f)
            fclose(f);
        found = text && strstr(text, gcs_symbols_build_id(s)) != NULL;
        free(text);
    }
    CHECK(found);
    gcs_reader_free(r);
    gcs_source_free(src);
    gcs_symbols_free(s);
}

int main(void)
{
    RUN(test_reads_64_and_32_bit);
    RUN(test_dynsym_and_no_note);
    RUN(test_hostile_bytes);
    RUN(test_names_from_module_event);
    RUN(test_names_from_inferred_base);
    RUN(test_other_build_names_nothing);
    RUN(test_named_types_untouched);
    RUN(test_fixture_symbols);
    return check_report("test_symbols");
}
