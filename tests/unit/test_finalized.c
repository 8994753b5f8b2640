/*
 * test_finalized.c - finalized objects by type (gcscope/finalized.h) on
 * hand-made events: TraceEvent's naming (the last BulkType before the
 * object, per process, "" else), its row order, and the names gcscope
 * finds for the "" row. The same counts against TraceEvent on real traces:
 * test_gc_oracle.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "byte_builder.h"
#include "check.h"
#include "gcscope.h"
#include "unit/gc_synth.h"
#include "unit/json_mini.h"

#define RUNTIME "Microsoft-Windows-DotNETRuntime"
#define PRIVATE "Microsoft-Windows-DotNETRuntimePrivate"

static gcs_event_type t_bulk = {.provider = RUNTIME, .event_id = 15, .name = "Type/BulkType"};
static gcs_event_type t_fin = {.provider = RUNTIME, .event_id = 29, .name = "GC/FinalizeObject"};
static gcs_event_type t_prv = {.provider = PRIVATE, .event_id = 192, .name = "GC/FinalizeObject"};
static gcs_event_type t_other = {.provider = RUNTIME, .event_id = 1, .name = "GC/Start"};

static gcs_status feed(gcs_finalized *fz, gcs_event_type *t, uint32_t pid, const bb *p)
{
    gcs_event ev;
    memset(&ev, 0, sizeof ev);
    ev.type = t;
    ev.pid = pid;
    ev.payload = p->data;
    ev.payload_size = (uint32_t)p->len;
    ev.pointer_size = 8;
    return gcs_finalized_feed(fz, &ev);
}

/* One BulkType entry (V0 layout: TypeID, ModuleID, TypeNameID, Flags,
 * CorElementType, Name, TypeParameterCount, parameters). */
static void bulk_entry(bb *p, uint64_t type_id, const char *name)
{
    bb_u64(p, type_id);
    bb_u64(p, 0x7000);
    bb_u32(p, 0);
    bb_u32(p, 0);
    bb_u8(p, 18);
    bb_utf16z(p, name);
    bb_u32(p, 1);
    bb_u64(p, 0x1234); /* a type parameter, skipped */
}

static void bulk(gcs_finalized *fz, uint32_t pid, uint64_t type_id, const char *name)
{
    bb p = {.len = 0};
    bb_u32(&p, 1);
    bb_u16(&p, 0);
    bulk_entry(&p, type_id, name);
    CHECK_EQ_INT(feed(fz, &t_bulk, pid, &p), GCS_OK);
}

static void finalize(gcs_finalized *fz, uint32_t pid, uint64_t type_id)
{
    bb p = {.len = 0};
    bb_u64(&p, type_id);
    bb_u64(&p, 0x9000);
    bb_u16(&p, 0);
    CHECK_EQ_INT(feed(fz, &t_fin, pid, &p), GCS_OK);
}

static void private_finalize(gcs_finalized *fz, uint32_t pid, uint64_t type_id, const char *name)
{
    bb p = {.len = 0};
    bb_u64(&p, type_id);
    bb_u64(&p, 0x9000);
    bb_u16(&p, 0);
    bb_utf16z(&p, name);
    CHECK_EQ_INT(feed(fz, &t_prv, pid, &p), GCS_OK);
}

static gcs_gc_analyzer *one_gc(uint32_t pid);
static char *written(const gcs_gc_analyzer *an, const gcs_finalized *fz, gcs_gc_format format,
                     bool html);

static const gcs_finalized_type *row_named(const gcs_finalized_process *p, const char *name)
{
    for (size_t i = 0; p && i < p->type_count; i++)
        if (strcmp(p->types[i].name, name) == 0)
            return &p->types[i];
    return NULL;
}

static const gcs_finalized_unnamed *unnamed_id(const gcs_finalized_process *p, uint64_t id)
{
    for (size_t i = 0; p && i < p->unnamed_count; i++)
        if (p->unnamed[i].type_id == id)
            return &p->unnamed[i];
    return NULL;
}

static void test_wants(void)
{
    CHECK(gcs_finalized_wants(NULL, &t_bulk));
    CHECK(gcs_finalized_wants(NULL, &t_fin));
    CHECK(gcs_finalized_wants(NULL, &t_prv));
    CHECK(!gcs_finalized_wants(NULL, &t_other));
}

/* TraceEvent's name is the last BulkType's before the object. */
static void test_named_before(void)
{
    gcs_finalized *fz = gcs_finalized_new();
    finalize(fz, 7, 0xA0);           /* before any BulkType: "" */
    private_finalize(fz, 7, 0xA0, "Ns.Alpha");
    bulk(fz, 7, 0xA0, "Alpha");
    finalize(fz, 7, 0xA0);
    finalize(fz, 7, 0xA0);
    bulk(fz, 7, 0xA0, "Alpha2");     /* the id renamed: a later add wins */
    finalize(fz, 7, 0xA0);
    bulk(fz, 7, 0xB0, "");           /* a BulkType without a name */
    finalize(fz, 7, 0xB0);
    finalize(fz, 7, 0xB0);
    finalize(fz, 7, 0xC0);           /* never named */
    bulk(fz, 7, 0xB0, "Beta");       /* after its objects */
    finalize(fz, 9, 0xA0);           /* another process: pid 7's names are not its */
    feed(fz, &t_other, 7, &(bb){.len = 0});
    CHECK_EQ_INT(gcs_finalized_finish(fz), GCS_OK);

    CHECK_EQ_U64(gcs_finalized_process_count(fz), 2);
    const gcs_finalized_process *p = gcs_finalized_find(fz, 7);
    CHECK(p != NULL);
    if (!p)
        goto out;
    CHECK_EQ_U64(p->objects, 7);
    CHECK_EQ_U64(p->type_count, 3);
    /* Most first; "" (4) before Alpha (2), Alpha2 (1). */
    CHECK_EQ_STR(p->types[0].name, "");
    CHECK_EQ_U64(p->types[0].count, 4);
    CHECK_EQ_STR(p->types[1].name, "Alpha");
    CHECK_EQ_U64(p->types[1].count, 2);
    CHECK_EQ_STR(p->types[2].name, "Alpha2");
    CHECK_EQ_U64(p->types[2].count, 1);
    /* The "" row's ids: B (2, named later by BulkType), A (1, by the
     * private event), C (1, nothing); A came before C. */
    CHECK_EQ_U64(p->unnamed_count, 3);
    CHECK_EQ_U64(p->unnamed[0].type_id, 0xB0);
    CHECK_EQ_U64(p->unnamed[0].count, 2);
    CHECK_EQ_STR(p->unnamed[0].name, "Beta");
    CHECK_EQ_INT(p->unnamed[0].source, GCS_FINALIZED_NAME_LATER_BULK_TYPE);
    CHECK_EQ_U64(p->unnamed[1].type_id, 0xA0);
    CHECK_EQ_STR(p->unnamed[1].name, "Ns.Alpha");
    CHECK_EQ_INT(p->unnamed[1].source, GCS_FINALIZED_NAME_PRIVATE);
    CHECK_EQ_U64(p->unnamed[2].type_id, 0xC0);
    CHECK(p->unnamed[2].name == NULL);
    CHECK_EQ_INT(p->unnamed[2].source, GCS_FINALIZED_NAME_NONE);

    /* The private event's own count, by its name. */
    CHECK_EQ_U64(p->private_objects, 1);
    CHECK(p->private_type_count == 1 && strcmp(p->private_types[0].name, "Ns.Alpha") == 0);

    const gcs_finalized_process *q = gcs_finalized_find(fz, 9);
    CHECK(q != NULL && q->type_count == 1 && q->types[0].name[0] == 0 && q->objects == 1);
    CHECK(unnamed_id(q, 0xA0) != NULL && unnamed_id(q, 0xA0)->source == GCS_FINALIZED_NAME_NONE);
    CHECK(gcs_finalized_find(fz, 8) == NULL);

    gcs_finalized_stats st;
    gcs_finalized_get_stats(fz, &st);
    CHECK_EQ_U64(st.finalize_events, 8);
    CHECK_EQ_U64(st.private_events, 1);
    CHECK_EQ_U64(st.bulk_type_entries, 4);
    CHECK_EQ_U64(st.undecodable_events, 0);
out:
    gcs_finalized_free(fz);
}

/* The private events of one type id whose name changes, comes back, is
 * a prefix of the one before, as long as the one before, has characters
 * past ASCII or none: each
 * object counted under the name its own event gives (the row of the name
 * before is reused only for the same name). */
static void test_private_names_change(void)
{
    gcs_finalized *fz = gcs_finalized_new();
    const char *names[] = {"Ns.Beta", "Ns.Beta", "Ns.Beta2", "Ns.Beta", "Ns.Bet",
                           "Ns.B\xe9ta", "Ns.B\xe9ta", "Ns.B\xc3\xa9ta", "Ns.Beta2", "", "",
                           "Ns.Beta"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        private_finalize(fz, 4, 0xA0, names[i]);
    private_finalize(fz, 4, 0xB0, "Ns.Beta"); /* another id, the same name: the same row */
    CHECK_EQ_INT(gcs_finalized_finish(fz), GCS_OK);
    const gcs_finalized_process *p = gcs_finalized_find(fz, 4);
    CHECK(p != NULL);
    if (p) {
        /* (U+00C3 U+00A9 after U+00E9: units whose low bytes are the
         * UTF-8 of the name before) */
        const char *want[] = {"Ns.Beta", "Ns.Beta2", "Ns.B\xc3\xa9ta", "", "Ns.Bet",
                              "Ns.B\xc3\x83\xc2\xa9ta"};
        const uint64_t count[] = {5, 2, 2, 2, 1, 1};
        CHECK_EQ_U64(p->private_objects, 13);
        CHECK_EQ_U64(p->private_type_count, 6);
        for (size_t i = 0; i < 6 && i < p->private_type_count; i++) {
            CHECK_EQ_STR(p->private_types[i].name, want[i]);
            CHECK_EQ_U64(p->private_types[i].count, count[i]);
        }
    }
    gcs_finalized_free(fz);
}

/* A trace with only the private events (gcscope record's default):
 * TraceEvent's table is empty, the private one counts them by name. */
static void test_private_only(void)
{
    gcs_finalized *fz = gcs_finalized_new();
    private_finalize(fz, 3, 0xA0, "Ns.Alpha");
    private_finalize(fz, 3, 0xB0, "Ns.Beta");
    private_finalize(fz, 3, 0xB0, "Ns.Beta");
    CHECK_EQ_INT(gcs_finalized_finish(fz), GCS_OK);
    const gcs_finalized_process *p = gcs_finalized_find(fz, 3);
    CHECK(p != NULL);
    if (p) {
        CHECK_EQ_U64(p->objects, 0);
        CHECK_EQ_U64(p->type_count, 0);
        CHECK_EQ_U64(p->unnamed_count, 0);
        CHECK_EQ_U64(p->private_objects, 3);
        CHECK_EQ_U64(p->private_type_count, 2);
        CHECK_EQ_STR(p->private_types[0].name, "Ns.Beta");
        CHECK_EQ_U64(p->private_types[0].count, 2);
    }
    gcs_gc_analyzer *an = one_gc(3);
    char *table = written(an, fz, GCS_GC_FORMAT_TABLE, false);
    CHECK(strstr(table, "Finalized objects by type (3 private FinalizeObject events)") != NULL);
    CHECK(strstr(table, "           2  Ns.Beta\n") != NULL);
    CHECK(strstr(table, "TraceEvent counts none") != NULL);
    free(table);
    gcs_gc_analyzer_free(an);
    gcs_finalized_free(fz);
}

/* Rows of equal count keep the order their names first came. */
static void test_ties(void)
{
    gcs_finalized *fz = gcs_finalized_new();
    static const char *const names[] = {"Zeta", "Alpha", "Mid"};
    for (int i = 0; i < 3; i++)
        bulk(fz, 1, 0x100 + (uint64_t)i, names[i]);
    for (int round = 0; round < 2; round++)
        for (int i = 0; i < 3; i++)
            finalize(fz, 1, 0x100 + (uint64_t)i);
    finalize(fz, 1, 0x101);
    CHECK_EQ_INT(gcs_finalized_finish(fz), GCS_OK);
    const gcs_finalized_process *p = gcs_finalized_find(fz, 1);
    CHECK(p != NULL && p->type_count == 3);
    if (p && p->type_count == 3) {
        CHECK_EQ_STR(p->types[0].name, "Alpha");
        CHECK_EQ_STR(p->types[1].name, "Zeta");
        CHECK_EQ_STR(p->types[2].name, "Mid");
        CHECK_EQ_U64(p->unnamed_count, 0);
    }
    CHECK(row_named(p, "Mid") && row_named(p, "Mid")->count == 2);
    gcs_finalized_free(fz);
}

/* Every cut of the payloads, and each byte set to 0xff: an answer, never
 * a crash; a short FinalizeObject is not counted. */
static void test_cut_payloads(void)
{
    bb b = {.len = 0};
    bb_u32(&b, 2);
    bb_u16(&b, 0);
    bulk_entry(&b, 0xD0, "Delta");
    bulk_entry(&b, 0xE0, "Epsilon");
    bb f = {.len = 0};
    bb_u64(&f, 0xD0);
    bb_u64(&f, 0x9000);
    bb_u16(&f, 0);
    bb_utf16z(&f, "Ns.Delta");
    for (int pass = 0; pass < 2; pass++) {
        for (size_t cut = 0; cut <= b.len; cut++) {
            gcs_finalized *fz = gcs_finalized_new();
            bb c = b;
            if (pass == 1 && cut < b.len)
                c.data[cut] = 0xff;
            else
                c.len = cut;
            feed(fz, &t_bulk, 1, &c);
            bb fc = f;
            fc.len = pass == 0 && cut < f.len ? cut : f.len;
            feed(fz, &t_prv, 1, &fc);
            fc.len = pass == 0 && cut < 18 ? cut : 18;
            feed(fz, &t_fin, 1, &fc);
            CHECK_EQ_INT(gcs_finalized_finish(fz), GCS_OK);
            gcs_finalized_stats st;
            gcs_finalized_get_stats(fz, &st);
            const gcs_finalized_process *p = gcs_finalized_find(fz, 1);
            if (pass == 0 && cut < 18) {
                /* TypeID, ObjectID and ClrInstanceID needed */
                CHECK(p == NULL);
                CHECK(st.undecodable_events >= 1);
            } else if (pass == 0) {
                CHECK(p != NULL && p->objects == 1);
            }
            /* The first entry is whole once its parameters are: named. */
            if (pass == 0 && cut >= 6 + 8 + 8 + 4 + 4 + 1 + 12 + 4 + 8)
                CHECK(p && row_named(p, "Delta") && row_named(p, "Delta")->count == 1);
            gcs_finalized_free(fz);
        }
    }
}

/* One complete blocking GC of process pid, so that the reports list it. */
static gcs_gc_analyzer *one_gc(uint32_t pid)
{
    gcs_gc_analyzer *an = gcs_gc_analyzer_new(NULL, NULL);
    static const gcs_gc_kind seq[] = {GCS_GCK_SUSPEND_EE_BEGIN, GCS_GCK_SUSPEND_EE_END,
                                      GCS_GCK_START, GCS_GCK_END, GCS_GCK_HEAP_STATS,
                                      GCS_GCK_RESTART_EE_END};
    for (size_t i = 0; i < sizeof seq / sizeof seq[0]; i++) {
        gcs_gc_record r = gc_synth_record(seq[i], seq[i] == GCS_GCK_START ? 2 : 1);
        r.u.start.count = 1;
        gcs_gc_event_ctx ctx = {pid, 1, 10.0 + (double)i};
        CHECK_EQ_INT(gcs_gc_analyzer_feed_record(an, &ctx, &r), GCS_OK);
    }
    gcs_gc_analyzer_finish(an);
    return an;
}

static char *written(const gcs_gc_analyzer *an, const gcs_finalized *fz, gcs_gc_format format,
                     bool html)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&buf, &len);
    if (html) {
        gcs_gc_html_options ho = {.trace_name = "t", .finalized = fz};
        CHECK(gcs_gc_html_write(mem, an, &ho) >= 0);
    } else {
        gcs_gc_report_options ro = {.format = format, .trace_name = "t", .finalized = fz};
        CHECK(gcs_gc_report_write(mem, an, &ro) >= 0);
    }
    fclose(mem);
    return buf;
}

/* The reports' section: 20 rows in the table and the HTML, all in JSON;
 * names from the trace cannot break a table line or the HTML. */
static void test_report_sections(void)
{
    gcs_finalized *fz = gcs_finalized_new();
    char name[32];
    for (int i = 0; i < 25; i++) {
        snprintf(name, sizeof name, "Type%02d", i);
        bulk(fz, 7, 0x1000 + (uint64_t)i, i == 23 ? "Evil\x1b[31m\nName<b>" : name);
        for (int k = 0; k <= i; k++)
            finalize(fz, 7, 0x1000 + (uint64_t)i);
    }
    finalize(fz, 7, 0x9999); /* unnamed, no name anywhere */
    CHECK_EQ_INT(gcs_finalized_finish(fz), GCS_OK);
    gcs_gc_analyzer *an = one_gc(7);

    char *table = written(an, fz, GCS_GC_FORMAT_TABLE, false);
    CHECK(strstr(table, "Finalized objects by type (326 FinalizeObject events)") != NULL);
    CHECK(strstr(table, "          25  Type24\n") != NULL);
    CHECK(strstr(table, "Evil?[31m?Name<b>") != NULL);
    CHECK(strstr(table, "\x1b") == NULL);
    CHECK(strstr(table, "... 6 more types (JSON lists them all)") != NULL);
    CHECK(strstr(table, "           6  Type05\n") != NULL); /* the 20th of 26 rows */
    CHECK(strstr(table, "Type04") == NULL);
    free(table);

    char *json = written(an, fz, GCS_GC_FORMAT_JSON, false);
    jm_node *doc = jm_parse(json, strlen(json));
    CHECK(doc != NULL);
    const jm_node *fo = jm_get(jm_at(jm_get(doc, "processes"), 0), "finalized_objects");
    CHECK(jm_num(jm_get(fo, "objects")) == 326);
    const jm_node *types = jm_get(fo, "types");
    CHECK(types && types->count == 26);
    if (types && types->count == 26) {
        const jm_node *last = types->items[25];
        const char *nm = jm_str(jm_get(last, "name"));
        CHECK(nm && nm[0] == 0);
        const jm_node *ids = jm_get(last, "type_ids");
        CHECK(ids && ids->count == 1 && jm_num(jm_get(ids->items[0], "type_id")) == 0x9999);
        CHECK(jm_get(ids->items[0], "name")->type == JM_NULL);
    }
    jm_free(doc);
    free(json);

    char *html = written(an, fz, GCS_GC_FORMAT_TABLE, true);
    CHECK(strstr(html, "<h3>Finalized objects by type</h3>") != NULL);
    CHECK(strstr(html, "Name&lt;b&gt;") != NULL);
    CHECK(strstr(html, "Name<b>") == NULL);
    CHECK(strstr(html, "type 0x9999") == NULL); /* the "" row is the 26th: not shown */
    free(html);

    /* No tracker: no section; a process without FinalizeObject: "none". */
    char *none = written(an, NULL, GCS_GC_FORMAT_TABLE, false);
    CHECK(strstr(none, "Finalized objects") == NULL);
    free(none);
    gcs_gc_analyzer_free(an);
    an = one_gc(8);
    char *other = written(an, fz, GCS_GC_FORMAT_TABLE, false);
    CHECK(strstr(other, "  none (no FinalizeObject event of the runtime provider") != NULL);
    free(other);
    gcs_gc_analyzer_free(an);
    gcs_finalized_free(fz);
}

int main(void)
{
    RUN(test_wants);
    RUN(test_named_before);
    RUN(test_ties);
    RUN(test_private_only);
    RUN(test_private_names_change);
    RUN(test_cut_payloads);
    RUN(test_report_sections);
    return check_report("test_finalized");
}
