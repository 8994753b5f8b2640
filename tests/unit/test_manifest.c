/*
 * test_manifest.c - the built-in runtime event table, value/bit maps and
 * TraceEvent's event naming, checked against real TraceEvent output: the
 * PerfView baselines in ../shared and the oracle dumps in tests/data.
 */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "decode/manifest.h"
#include "gcscope.h"

#define RUNTIME "Microsoft-Windows-DotNETRuntime"
#define RUNDOWN "Microsoft-Windows-DotNETRuntimeRundown"
#define PRIVATE "Microsoft-Windows-DotNETRuntimePrivate"

static void check_field(const gcs_field *f, const char *name, gcs_type type, const char *map)
{
    CHECK_EQ_STR(f->name, name);
    CHECK_EQ_INT(f->type, type);
    if (map)
        CHECK_EQ_STR(f->map_name, map);
    else
        CHECK(f->map_name == NULL);
}

static void test_gc_start_layouts(void)
{
    const gcs_builtin_event *e = gcs_builtin_lookup(RUNTIME, 1, 2);
    CHECK(e != NULL);
    if (!e)
        return;
    CHECK_EQ_STR(e->name, "GC/Start");
    CHECK_EQ_STR(e->task_name, "GC");
    CHECK_EQ_STR(e->opcode_name, "Start");
    CHECK_EQ_INT(e->opcode, 1);
    CHECK_EQ_INT(e->level, 4);
    CHECK_EQ_U64(e->keywords, 0x1);
    CHECK_EQ_INT(e->version, 2);
    CHECK_EQ_INT(e->field_count, 6);
    check_field(&e->fields[0], "Count", GCS_T_U32, NULL);
    check_field(&e->fields[1], "Depth", GCS_T_U32, NULL);
    check_field(&e->fields[2], "Reason", GCS_T_U32, "GCReasonMap");
    check_field(&e->fields[3], "Type", GCS_T_U32, "GCTypeMap");
    check_field(&e->fields[4], "ClrInstanceID", GCS_T_U16, NULL);
    check_field(&e->fields[5], "ClientSequenceNumber", GCS_T_U64, NULL);

    /* Version 0 had only Count and Reason. */
    const gcs_builtin_event *v0 = gcs_builtin_lookup(RUNTIME, 1, 0);
    CHECK(v0 != NULL && v0->version == 0 && v0->field_count == 2);
    /* A newer runtime's v7 decodes with the highest known layout. */
    const gcs_builtin_event *v7 = gcs_builtin_lookup(RUNTIME, 1, 7);
    CHECK(v7 == e);
    /* Unknown ids and providers. */
    CHECK(gcs_builtin_lookup(RUNTIME, 65000, 0) == NULL);
    CHECK(gcs_builtin_lookup("MyEventSource", 1, 0) == NULL);
    CHECK(gcs_builtin_lookup(NULL, 1, 0) == NULL);
}

static void test_gc_heap_layouts(void)
{
    const gcs_builtin_event *hs = gcs_builtin_lookup(RUNTIME, 4, 2);
    CHECK(hs && hs->version == 2 && hs->field_count == 16);
    if (hs) {
        CHECK_EQ_STR(hs->name, "GC/HeapStats");
        CHECK_EQ_INT(hs->opcode, 133);
        check_field(&hs->fields[0], "GenerationSize0", GCS_T_U64, NULL);
        CHECK(hs->fields[0].hex);
        check_field(&hs->fields[9], "FinalizationPromotedCount", GCS_T_U64, NULL);
        CHECK(!hs->fields[9].hex);
        check_field(&hs->fields[12], "GCHandleCount", GCS_T_U32, NULL);
        check_field(&hs->fields[13], "ClrInstanceID", GCS_T_U16, NULL);
        check_field(&hs->fields[14], "GenerationSize4", GCS_T_U64, NULL);
        check_field(&hs->fields[15], "TotalPromotedSize4", GCS_T_U64, NULL);
    }
    const gcs_builtin_event *hs1 = gcs_builtin_lookup(RUNTIME, 4, 1);
    CHECK(hs1 && hs1->version == 1 && hs1->field_count == 14);

    const gcs_builtin_event *at = gcs_builtin_lookup(RUNTIME, 10, 4);
    CHECK(at && at->version == 4 && at->field_count == 9);
    if (at) {
        CHECK_EQ_STR(at->name, "GC/AllocationTick");
        CHECK_EQ_INT(at->level, 5);
        check_field(&at->fields[1], "AllocationKind", GCS_T_U32, "GCAllocationKindMap");
        check_field(&at->fields[4], "TypeID", GCS_T_POINTER, NULL);
        check_field(&at->fields[5], "TypeName", GCS_T_UTF16Z, NULL);
        check_field(&at->fields[7], "Address", GCS_T_POINTER, NULL);
        check_field(&at->fields[8], "ObjectSize", GCS_T_U64, NULL);
    }

    const gcs_builtin_event *ph = gcs_builtin_lookup(RUNTIME, 204, 3);
    CHECK(ph && ph->version == 3 && ph->field_count == 16);
    if (ph) {
        CHECK_EQ_STR(ph->name, "GC/PerHeapHistory");
        check_field(&ph->fields[1], "FreeListAllocated", GCS_T_POINTER, NULL);
        check_field(&ph->fields[14], "Count", GCS_T_U32, NULL);
        const gcs_field *values = &ph->fields[15];
        check_field(values, "Values", GCS_T_STRUCT, NULL);
        CHECK_EQ_INT(values->repeat, GCS_REPEAT_COUNT_FIELD);
        CHECK_EQ_INT(values->repeat_arg, 14);
        CHECK_EQ_INT(values->child_count, 10);
        check_field(&values->children[0], "SizeBefore", GCS_T_POINTER, NULL);
        check_field(&values->children[9], "NewAllocation", GCS_T_POINTER, NULL);
    }

    const gcs_builtin_event *gh = gcs_builtin_lookup(RUNTIME, 205, 4);
    CHECK(gh && gh->version == 4 && gh->field_count == 13);
    if (gh) {
        CHECK_EQ_STR(gh->name, "GC/GlobalHeapHistory");
        check_field(&gh->fields[1], "NumHeaps", GCS_T_I32, NULL);
        check_field(&gh->fields[11], "Count", GCS_T_U32, NULL);
        CHECK_EQ_INT(gh->fields[12].repeat, GCS_REPEAT_COUNT_FIELD);
        CHECK_EQ_INT(gh->fields[12].repeat_arg, 11);
    }
}

static void test_bulk_layouts(void)
{
    const gcs_builtin_event *bt = gcs_builtin_lookup(RUNTIME, 15, 0);
    CHECK(bt && bt->field_count == 3);
    if (bt) {
        CHECK_EQ_STR(bt->name, "Type/BulkType");
        const gcs_field *v = &bt->fields[2];
        CHECK_EQ_INT(v->type, GCS_T_STRUCT);
        CHECK_EQ_INT(v->repeat, GCS_REPEAT_COUNT_FIELD);
        CHECK_EQ_INT(v->repeat_arg, 0);
        CHECK_EQ_INT(v->child_count, 8);
        check_field(&v->children[3], "Flags", GCS_T_U32, "TypeFlagsMap");
        check_field(&v->children[4], "CorElementType", GCS_T_U8, NULL);
        check_field(&v->children[5], "Name", GCS_T_UTF16Z, NULL);
        /* TypeParameters counts by its sibling TypeParameterCount. */
        check_field(&v->children[7], "TypeParameters", GCS_T_U64, NULL);
        CHECK_EQ_INT(v->children[7].repeat, GCS_REPEAT_COUNT_FIELD);
        CHECK_EQ_INT(v->children[7].repeat_arg, 6);
    }
    const gcs_builtin_event *mr = gcs_builtin_lookup(RUNTIME, 22, 0);
    CHECK(mr && mr->field_count == 4);
    if (mr) {
        CHECK_EQ_STR(mr->name, "GC/BulkMovedObjectRanges");
        CHECK_EQ_U64(mr->keywords, 0x400000);
        check_field(&mr->fields[1], "Count", GCS_T_U32, NULL);
        CHECK_EQ_INT(mr->fields[3].repeat_arg, 1);
        check_field(&mr->fields[3].children[0], "OldRangeBase", GCS_T_POINTER, NULL);
        check_field(&mr->fields[3].children[1], "NewRangeBase", GCS_T_POINTER, NULL);
        check_field(&mr->fields[3].children[2], "RangeLength", GCS_T_U64, NULL);
    }
    /* GCDynamicEvent: win:Binary sized by the DataSize field. */
    const gcs_builtin_event *dyn = gcs_builtin_lookup(RUNTIME, 39, 0);
    CHECK(dyn && dyn->field_count == 4);
    if (dyn) {
        CHECK_EQ_STR(dyn->name, "GC/DynamicTraceEvent");
        CHECK_EQ_INT(dyn->fields[2].type, GCS_T_BINARY);
        CHECK_EQ_INT(dyn->fields[2].repeat, GCS_REPEAT_COUNT_FIELD);
        CHECK_EQ_INT(dyn->fields[2].repeat_arg, 1);
    }
    /* Padding the runtime's C struct layout adds (TraceEvent reads the
     * FitBucket at +0/+4/+8). */
    const gcs_builtin_event *fb = gcs_builtin_lookup(RUNTIME, 209, 0);
    CHECK(fb && fb->field_count == 5 && fb->fields[4].child_count == 4);
    if (fb && fb->fields[4].child_count == 4) {
        CHECK_EQ_INT(fb->fields[4].children[1].type, GCS_T_NONE);
        CHECK_EQ_INT(fb->fields[4].children[1].repeat_arg, 4);
    }
}

static void test_table_is_sorted_and_complete(void)
{
    CHECK(gcs_builtin_event_count > 400);
    for (size_t i = 1; i < gcs_builtin_event_count; i++) {
        const gcs_builtin_event *a = &gcs_builtin_events[i - 1], *b = &gcs_builtin_events[i];
        bool ordered = a->provider < b->provider ||
                       (a->provider == b->provider &&
                        (a->event_id < b->event_id ||
                         (a->event_id == b->event_id && a->version < b->version)));
        CHECK(ordered);
        CHECK(b->name && b->name[0]);
        /* Count fields always precede what they count. */
        for (uint32_t k = 0; k < b->field_count; k++)
            if (b->fields[k].repeat == GCS_REPEAT_COUNT_FIELD)
                CHECK(b->fields[k].repeat_arg < k);
    }
    for (size_t i = 1; i < gcs_builtin_map_count; i++)
        CHECK(strcmp(gcs_builtin_maps[i - 1].name, gcs_builtin_maps[i].name) < 0);
    CHECK(gcs_builtin_provider(RUNTIME));
    CHECK(gcs_builtin_provider(RUNDOWN));
    CHECK(gcs_builtin_provider(PRIVATE));
    CHECK(!gcs_builtin_provider("Microsoft-DotNETCore-EventPipe"));
    CHECK(!gcs_builtin_provider(NULL));
}

static void test_maps(void)
{
    char buf[256];
    CHECK_EQ_STR(gcs_map_lookup("GCReasonMap", 1, buf, sizeof buf), "Induced");
    CHECK_EQ_STR(gcs_map_lookup("GCReasonMap", 7, buf, sizeof buf), "InducedNotForced");
    CHECK_EQ_STR(gcs_map_lookup("GCReasonMap", 0xa, buf, sizeof buf), "InducedCompacting");
    CHECK(gcs_map_lookup("GCReasonMap", 99, buf, sizeof buf) == NULL);
    CHECK_EQ_STR(gcs_map_lookup("GCTypeMap", 0, buf, sizeof buf), "NonConcurrentGC");
    CHECK_EQ_STR(gcs_map_lookup("GCTypeMap", 1, buf, sizeof buf), "BackgroundGC");
    CHECK_EQ_STR(gcs_map_lookup("GCSuspendEEReasonMap", 1, buf, sizeof buf), "SuspendForGC");
    CHECK_EQ_STR(gcs_map_lookup("GCSegmentTypeMap", 3, buf, sizeof buf), "PinnedObjectHeap");
    CHECK_EQ_STR(gcs_map_lookup("GCAllocationKindMap", 0, buf, sizeof buf), "Small");
    /* Bit maps as the baselines show them. */
    CHECK_EQ_STR(gcs_map_lookup("AppDomainFlagsMap", 3, buf, sizeof buf), "Default, Executable");
    CHECK_EQ_STR(gcs_map_lookup("ModuleFlagsMap", 0x28, buf, sizeof buf),
                 "Manifest, ReadyToRunModule");
    CHECK_EQ_STR(gcs_map_lookup("ModuleFlagsMap", 0x8, buf, sizeof buf), "Manifest");
    CHECK_EQ_STR(gcs_map_lookup("AssemblyFlagsMap", 0x10, buf, sizeof buf), "ReadyToRun");
    CHECK_EQ_STR(gcs_map_lookup("AssemblyFlagsMap", 0, buf, sizeof buf), "None");
    CHECK_EQ_STR(gcs_map_lookup("StartupModeMap", 0, buf, sizeof buf), "None");
    CHECK_EQ_STR(gcs_map_lookup("StartupFlagsMap", 0, buf, sizeof buf), "None");
    /* 0x800003 has the unnamed bit 0x800000: TraceEvent prints 8388611. */
    CHECK(gcs_map_lookup("StartupFlagsMap", 8388611, buf, sizeof buf) == NULL);
    CHECK(gcs_map_lookup("AppDomainFlagsMap", 268435459, buf, sizeof buf) == NULL);
    CHECK_EQ_STR(gcs_map_lookup("StartupFlagsMap", 3, buf, sizeof buf),
                 "CONCURRENT_GC, LOADER_OPTIMIZATION_SINGLE_DOMAIN");
    /* Too small a buffer: no name rather than a cut one. */
    CHECK(gcs_map_lookup("AppDomainFlagsMap", 3, buf, 8) == NULL);
    CHECK(gcs_map_lookup("NoSuchMap", 1, buf, sizeof buf) == NULL);
    CHECK(gcs_map_lookup(NULL, 1, buf, sizeof buf) == NULL);
}

static void test_display_name_rules(void)
{
    char buf[128];
    /* Runtime events: the table, whatever version. */
    CHECK_EQ_STR(gcs_event_display_name(RUNTIME, 9, 1, "", 0, false, buf, sizeof buf),
                 "GC/SuspendEEStart");
    CHECK_EQ_STR(gcs_event_display_name(RUNTIME, 3, 1, NULL, 0, false, buf, sizeof buf),
                 "GC/RestartEEStop");
    CHECK_EQ_STR(gcs_event_display_name(RUNDOWN, 146, 1, NULL, 0, false, buf, sizeof buf),
                 "Method/DCStopComplete");
    CHECK_EQ_STR(gcs_event_display_name(RUNTIME, 65000, 0, NULL, 0, false, buf, sizeof buf),
                 "EventID(65000)");
    /* A name in the metadata (nettrace V6) does not change TraceEvent's. */
    CHECK_EQ_STR(gcs_event_display_name(RUNTIME, 1, 2, "GCStart_V2", 1, true, buf, sizeof buf),
                 "GC/Start");
    /* EventSource events (baseline: TestEventSource0/TestEvent3/24). */
    CHECK_EQ_STR(gcs_event_display_name("TestEventSource0", 3, 0, "TestEvent3", 24, true, buf,
                                        sizeof buf),
                 "TestEvent3/24");
    CHECK_EQ_STR(gcs_event_display_name("TestEventSource0", 1, 0, "TestEvent1", 0, true, buf,
                                        sizeof buf),
                 "TestEvent1");
    CHECK_EQ_STR(gcs_event_display_name("Microsoft-DotNETCore-EventPipe", 1, 1, "ProcessInfo", 0,
                                        false, buf, sizeof buf),
                 "ProcessInfo");
    /* Start/Stop implied by the name when no opcode is given, and stripped. */
    CHECK_EQ_STR(gcs_event_display_name("Src", 5, 0, "RequestStart", 0, false, buf, sizeof buf),
                 "Request/Start");
    CHECK_EQ_STR(gcs_event_display_name("Src", 6, 0, "RequestStop", 2, true, buf, sizeof buf),
                 "Request/Stop");
    CHECK_EQ_STR(gcs_event_display_name("Src", 6, 0, "Requeststop", 0, false, buf, sizeof buf),
                 "Request/Stop");
    /* An explicit Info opcode keeps the name whole. */
    CHECK_EQ_STR(gcs_event_display_name("Src", 5, 0, "RequestStart", 0, true, buf, sizeof buf),
                 "RequestStart");
    CHECK_EQ_STR(gcs_event_display_name("Src", 7, 0, "Work", 1, true, buf, sizeof buf),
                 "Work/Start");
    CHECK_EQ_STR(gcs_event_display_name("Src", 7, 0, "Work", 9, true, buf, sizeof buf),
                 "Work/Transfer");
    CHECK_EQ_STR(gcs_event_display_name("Src", 7, 0, "Work", 240, true, buf, sizeof buf),
                 "Work/240");
    /* No name at all. */
    CHECK_EQ_STR(gcs_event_display_name("Src", 12, 0, "", 0, false, buf, sizeof buf),
                 "EventID(12)");
    CHECK_EQ_STR(gcs_event_display_name("Src", 0, 0, NULL, 0, false, buf, sizeof buf),
                 "EventWriteString");
    /* Cut, never overflowed. */
    CHECK_EQ_STR(gcs_event_display_name("Src", 7, 0, "Work", 1, true, buf, 5), "Work");
}

/* Providers TraceLog names with parsers of its own (by id, whatever the
 * metadata says). Expected names: the PerfView baselines of the .NET Core
 * 2.0 and 3.0 traces (eventpipe-dotnetcore2.0-linux-objver2.netperf:
 * 163,801 Thread/Sample, TaskExecute/Start, TaskWait/Send, ...) and the
 * oracle's TraceLog dumps of tests/data/names/. */
#define TPL "System.Threading.Tasks.TplEventSource"
#define SAMPLER "Microsoft-DotNETCore-SampleProfiler"

static void test_traceevent_parser_names(void)
{
    char buf[128];
    /* The sampler writes no name: TraceEvent's parser calls it Thread/Sample. */
    CHECK_EQ_STR(gcs_event_display_name(SAMPLER, 0, 0, "", 0, false, buf, sizeof buf),
                 "Thread/Sample");
    CHECK_EQ_STR(gcs_event_display_name(SAMPLER, 1, 0, NULL, 0, false, buf, sizeof buf),
                 "Thread/StackWalk");
    /* TPL: task and opcode names of the provider's manifest, not the
     * method names in the metadata, nor ETW's name for opcode 9. */
    CHECK_EQ_STR(gcs_event_display_name(TPL, 7, 0, "TaskScheduled", 9, true, buf, sizeof buf),
                 "TaskScheduled/Send");
    CHECK_EQ_STR(gcs_event_display_name(TPL, 8, 0, "TaskStarted", 0, false, buf, sizeof buf),
                 "TaskExecute/Start");
    CHECK_EQ_STR(gcs_event_display_name(TPL, 9, 0, "TaskCompleted", 0, false, buf, sizeof buf),
                 "TaskExecute/Stop");
    CHECK_EQ_STR(gcs_event_display_name(TPL, 10, 0, "TaskWaitBegin", 9, true, buf, sizeof buf),
                 "TaskWait/Send");
    CHECK_EQ_STR(gcs_event_display_name(TPL, 11, 0, "TaskWaitEnd", 0, false, buf, sizeof buf),
                 "TaskWait/Stop");
    CHECK_EQ_STR(gcs_event_display_name(TPL, 12, 0, "AwaitTaskContinuationScheduled", 9, true,
                                        buf, sizeof buf),
                 "AwaitTaskContinuationScheduled/Send");
    CHECK_EQ_STR(gcs_event_display_name(TPL, 13, 0, "TaskWaitContinuationComplete", 0, false,
                                        buf, sizeof buf),
                 "TaskWaitContinuationComplete");
    CHECK_EQ_STR(gcs_event_display_name(TPL, 14, 0, "TraceOperationBegin", 0, false, buf,
                                        sizeof buf),
                 "TraceOperation/Start");
    CHECK_EQ_STR(gcs_event_display_name(TPL, 18, 0, "TraceSynchronousWorkEnd", 0, false, buf,
                                        sizeof buf),
                 "TraceSynchronousWork/Stop");
    /* TraceLog keeps the parser's name when the metadata's opcode disagrees
     * (synthetic-v4: explicit Stop on id 8, "Start" suffix on id 7). */
    CHECK_EQ_STR(gcs_event_display_name(TPL, 8, 0, "TaskStarted", 2, true, buf, sizeof buf),
                 "TaskExecute/Start");
    CHECK_EQ_STR(gcs_event_display_name(TPL, 7, 0, "TaskScheduledStart", 0, false, buf,
                                        sizeof buf),
                 "TaskScheduled/Send");
    /* Ids the parser does not know fall back to the metadata rules. */
    CHECK_EQ_STR(gcs_event_display_name(TPL, 25, 0, "SetActivityId", 0, false, buf, sizeof buf),
                 "SetActivityId");
    CHECK_EQ_STR(gcs_event_display_name(TPL, 99, 0, "FutureThingStop", 0, false, buf,
                                        sizeof buf),
                 "FutureThing/Stop");
    /* Other providers never use these parsers. */
    CHECK_EQ_STR(gcs_event_display_name("Other", 8, 0, "TaskStarted", 0, false, buf, sizeof buf),
                 "TaskStarted");
    CHECK(gcs_te_parser_lookup("Other", 0) == NULL);
    CHECK(gcs_te_parser_lookup(NULL, 0) == NULL);

    /* The sampler's payload: one int32 TraceEvent shows by its enum name. */
    const gcs_te_parser_event *p = gcs_te_parser_lookup(SAMPLER, 0);
    CHECK(p != NULL);
    if (p) {
        CHECK_EQ_INT(p->field_count, 1);
        check_field(&p->fields[0], "Type", GCS_T_I32, "ClrThreadSampleType");
    }
    CHECK_EQ_STR(gcs_map_lookup("ClrThreadSampleType", 1, buf, sizeof buf), "External");
    CHECK_EQ_STR(gcs_map_lookup("ClrThreadSampleType", 2, buf, sizeof buf), "Managed");
    CHECK(gcs_map_lookup("ClrThreadSampleType", 3, buf, sizeof buf) == NULL);
    /* TPL fields the parser shows by enum names (net10-names' TraceLog dump:
     * Behavior="Asynchronous", Work="Execution"); the trace's schema keeps
     * its fields and gets the map. */
    const gcs_te_parser_event *w = gcs_te_parser_lookup(TPL, 10);
    CHECK(w && w->enum_field && strcmp(w->enum_field, "Behavior") == 0);
    CHECK_EQ_STR(gcs_map_lookup("TaskWaitBehavior", 2, buf, sizeof buf), "Asynchronous");
    CHECK_EQ_STR(gcs_map_lookup("CausalitySynchronousWork", 2, buf, sizeof buf), "Execution");
    CHECK_EQ_STR(gcs_map_lookup("CausalityRelation", 1, buf, sizeof buf), "Join");
    CHECK_EQ_STR(gcs_map_lookup("AsyncCausalityStatus", 1, buf, sizeof buf), "Completed");
    CHECK_EQ_STR(gcs_map_lookup("ForkJoinOperationType", 2, buf, sizeof buf), "ParallelFor");
}

/* Runtime provider names the baselines show must be names of table entries
 * (the baselines do not give event ids). */
static bool table_has_name(const char *provider, const char *name)
{
    int prov = -1;
    for (int i = 0; i < GCS_PROV_COUNT; i++)
        if (strcmp(provider, gcs_builtin_provider_names[i]) == 0)
            prov = i;
    for (size_t i = 0; i < gcs_builtin_event_count; i++)
        if (gcs_builtin_events[i].provider == prov && strcmp(gcs_builtin_events[i].name, name) == 0)
            return true;
    return false;
}

static void test_baseline_names(void)
{
    static const char *const files[] = {
        "gcevents.etl.baseline.txt",
        "eventpipe-dotnetcore2.1-linux-x64-objver3.netperf.baseline.txt",
        "eventpipe-dotnetcore5.0-win-x64-arraytypes.nettrace.baseline.txt",
        "eventpipe-dotnetcore6.0-win-x64-executioncheckpoints.nettrace.baseline.txt",
    };
    int checked = 0;
    for (size_t f = 0; f < sizeof files / sizeof files[0]; f++) {
        char path[512];
        snprintf(path, sizeof path, "%s%s", SHARED_TRACES, files[f]);
        FILE *in = fopen(path, "r");
        if (!in)
            SKIP("../shared/traces/perfview baselines not present");
        char line[16384];
        while (fgets(line, sizeof line, in)) {
            /* "EVENT 1.0: Provider/Task/Opcode PID=..." or "Provider/Task/Opcode, N, <Event" */
            const char *p = strstr(line, "Microsoft-Windows-DotNETRuntime");
            if (!p || (p != line && strncmp(line, "EVENT ", 6) != 0 &&
                       strncmp(line, "\xEF\xBB\xBF", 3) != 0))
                continue;
            const char *slash = strchr(p, '/');
            const char *end = slash ? strpbrk(slash, " ,") : NULL;
            if (!slash || !end)
                continue;
            char provider[128], name[256];
            snprintf(provider, sizeof provider, "%.*s", (int)(slash - p), p);
            snprintf(name, sizeof name, "%.*s", (int)(end - slash - 1), slash + 1);
            if (!table_has_name(provider, name))
                fprintf(stderr, "baseline name not in table: %s/%s (%s)\n", provider, name,
                        files[f]);
            CHECK(table_has_name(provider, name));
            checked++;
        }
        fclose(in);
    }
    CHECK(checked >= 50);
}

/*
 * Every runtime event in the TraceEvent oracle dumps of real .NET 10 traces
 * ("MSEC pid=P tid=T Provider/Name id=N v=V ...") gets the same name from
 * gcs_event_display_name. TraceEvent itself has no name for a few events the
 * manifest describes; those show as EventID(N) there and are listed here.
 */
static void test_oracle_names(void)
{
    static const char *const files[] = {
        "gen0size-small.oracle-all.txt",
        "objects-allocsampled.oracle-all.txt",
    };
    int checked = 0, files_read = 0;
    for (size_t f = 0; f < sizeof files / sizeof files[0]; f++) {
        char path[256];
        snprintf(path, sizeof path, "tests/data/%s", files[f]);
        FILE *in = fopen(path, "r");
        if (!in)
            continue;
        files_read++;
        static char line[1 << 16];
        while (fgets(line, sizeof line, in)) {
            char provider[128], name[256];
            unsigned id, version;
            const char *p = strstr(line, " Microsoft-Windows-DotNETRuntime");
            if (!p || sscanf(p, " %127[^/]/%255s id=%u v=%u", provider, name, &id, &version) != 4)
                continue;
            char buf[256];
            gcs_event_display_name(provider, id, version, NULL, 0, false, buf, sizeof buf);
            bool traceevent_unnamed = strncmp(name, "EventID(", 8) == 0;
            if (traceevent_unnamed) {
                /* IncreaseMemoryPressure (200): in the manifest, not in TraceEvent. */
                CHECK(id == 200 || id == 201);
                continue;
            }
            if (strcmp(buf, name) != 0)
                fprintf(stderr, "oracle name %s/%s id=%u v=%u, ours %s\n", provider, name, id,
                        version, buf);
            CHECK_EQ_STR(buf, name);
            checked++;
        }
        fclose(in);
    }
    if (files_read == 0)
        SKIP("tests/data oracle dumps not present");
    CHECK(checked > 5000);
}

int main(void)
{
    RUN(test_gc_start_layouts);
    RUN(test_gc_heap_layouts);
    RUN(test_bulk_layouts);
    RUN(test_table_is_sorted_and_complete);
    RUN(test_maps);
    RUN(test_display_name_rules);
    RUN(test_traceevent_parser_names);
    RUN(test_baseline_names);
    RUN(test_oracle_names);
    return check_report("test_manifest");
}
