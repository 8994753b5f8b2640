/*
 * test_te_agreement.c - our reader and decoder agree with TraceEvent.
 *
 * Three comparisons, each over real traces:
 *  1. the PerfView baselines beside the shared traces
 *     (../shared/traces/perfview/ *.baseline.txt, made by TraceLog): the
 *     list of Provider/EventName with counts, both ways, and the first
 *     event of each name (MSec, PID, TID, ActivityID and every payload
 *     attribute, TraceEvent's display normalized to raw values);
 *  2. the same over our fixtures' tests/data/ *.oracle-dump.txt (made by
 *     EventPipeEventSource);
 *  3. every event of every fixture against tests/data/ *.oracle-all.txt[.gz]
 *     (and tests/data/shared/ for the shared traces): same order, MSec,
 *     pid, tid, id, version and every field value.
 *
 * Where TraceEvent shows something other than the raw payload, the
 * difference is a named exception rule below (with why); each rule counts
 * its uses. A difference no rule explains fails the test, so a new kind of
 * disagreement cannot slip through. The totals are printed.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "decode/manifest.h"
#include "te_common.h"

#define RT "Microsoft-Windows-DotNETRuntime"
#define RT_PRIVATE "Microsoft-Windows-DotNETRuntimePrivate"
#define RT_RUNDOWN "Microsoft-Windows-DotNETRuntimeRundown"

/* ------------------------------------------------------------------ */
/* Names TraceEvent gives differently (compared by provider and id).   */

static const struct name_mapping {
    const char *provider;
    uint32_t id;
    const char *traceevent_name; /* what TraceEvent prints */
    const char *our_name;        /* what we print */
    const char *why;
} name_mappings[] = {
    {RT, 200, "EventID(200)", "GC/IncreaseMemoryPressure",
     "TraceEvent 4.0.0 has no template for IncreaseMemoryPressure (runtime manifest id 200)"},
    {RT, 201, "EventID(201)", "GC/DecreaseMemoryPressure",
     "TraceEvent 4.0.0 has no template for DecreaseMemoryPressure (runtime manifest id 201)"},
    {RT, 191, "EventID(191)", "Method/TailCallFailed",
     "TraceEvent 4.0.0 has no template for MethodJitTailCallFailed (runtime manifest id 191; "
     ".NET Core 3.1 with the JIT tracing keyword)"},
    {RT_PRIVATE, 26, "EventID(26)", "GC/BGC1stSweepStop",
     "TraceEvent 4.0.0's private parser has no template for BGC1stSweepEnd (id 26)"},
    {RT, 270, "EventSourceEvent", "EventSource",
     "TraceEvent names the LTTng-only EventSource event (manifest id 270) after its class"},
};

static const struct name_mapping *find_name_mapping(const char *provider, uint32_t id)
{
    for (size_t i = 0; i < sizeof name_mappings / sizeof name_mappings[0]; i++)
        if (name_mappings[i].id == id && strcmp(name_mappings[i].provider, provider) == 0)
            return &name_mappings[i];
    return NULL;
}

/* ------------------------------------------------------------------ */
/* Exception rules.                                                    */

typedef enum diff_kind { DIFF_VALUE, DIFF_ORACLE_ONLY, DIFF_OURS_ONLY } diff_kind;

typedef struct rule {
    const char *name;
    const char *why;
    unsigned long long uses;
} rule;

enum {
    R_UNNAMED_EVENT_FIELDS,
    R_EVENT_NAME_MAPPED,
    R_MSEC_ROUNDING,
    R_FIELD_RENAMED,
    R_SIGNED_COUNT,
    R_SIGNED_ID,
    R_METHOD_FLAGS_MASKED,
    R_PAYLOAD_INDEX_SHIFTED,
    R_METHOD_TIER_DERIVED,
    R_REJITID_ABSENT_ZERO,
    R_DERIVED_VERIFIED,
    R_DERIVED_UNVERIFIED,
    R_MECHANISM_INDEX,
    R_NULL_FOR_ABSENT_FIELD,
    R_ARRAY_NOT_LISTED,
    R_FIELD_NOT_LISTED,
    R_CHAR_ARRAY_AS_STRING,
    R_DYNAMIC_EVENT_NOT_LISTED,
    R_PARSER_NAME,
    R_PARSER_FIELD,
    R_NEWER_FIELD_ZERO,
    R_STRING_CAP,
    R_CTF_POINTER_MISREAD,
    R_CTF_STRING_CUT,
    R_COUNT
};

static rule rules[R_COUNT] = {
    [R_UNNAMED_EVENT_FIELDS] = {"unnamed-event-fields",
                                "TraceEvent prints EventID(N) without fields for events it has "
                                "no template for; our decoded fields have nothing to compare with"},
    [R_EVENT_NAME_MAPPED] = {"event-name-mapped",
                             "an event TraceEvent names EventID(N) that we name from the "
                             "runtime manifest (name_mappings)"},
    [R_MSEC_ROUNDING] = {"msec-rounding",
                         "the time is exactly half-way between two thousandths of a ms (e.g. "
                         "144.6245 ms from nanosecond ticks): printf's %.3f rounds the binary "
                         "double (just below the half) down, .NET's F3 rounds it up; checked: "
                         "|ours - TraceEvent| <= 0.0005 ms"},
    [R_FIELD_RENAMED] = {"field-renamed",
                         "TraceEvent names the field differently (field_renames); the values "
                         "are compared and equal"},
    [R_SIGNED_COUNT] = {"uint32-shown-signed",
                        "GC/SuspendEEStart Count and GC/Join ID are UInt32 in the manifest; "
                        "TraceEvent reads them as Int32, so 0xFFFFFFFF shows as -1 (checked: "
                        "same 32 bits)"},
    [R_SIGNED_ID] = {"uint64-shown-signed",
                     "GC/SetGCHandle AppDomainID, the GC/HeapStats sizes and counts and the "
                     "GC/PerHeapHistory sizes are unsigned in the manifest; TraceEvent reads "
                     "them as Int64 (HeapStats' 32-bit counts as Int32), so a NativeAOT "
                     "runtime's 0xFFFFFFFFFFFFFFFF AppDomainID (it has no application "
                     "domains) shows as -1, a runtime's garbage FinalizationPromotedSize "
                     "(0xbaadbaad...) as a negative number, and .NET Core 3.1's server GC a "
                     "PinnedAllocatedAdvance that went below 0 as one (checked: same 64 or "
                     "32 bits)"},
    [R_METHOD_FLAGS_MASKED] = {"method-flags-masked",
                               "TraceEvent's MethodFlags drops the tier bits 7..9 (its "
                               "OptimizationTier) and the extent bits 28..31 (checked: ours & "
                               "0x0FFFFC7F; .NET 9 sets 0x40, ReadyToRunRejectedPrecompiledCode)"},
    [R_PAYLOAD_INDEX_SHIFTED] = {"payload-index-shifted",
                                 "TraceEvent's MethodDetails PayloadValue has no case 3: "
                                 "TypeParameterCount shows null, LoaderModuleID our "
                                 "TypeParameterCount, TypeParameters our LoaderModuleID "
                                 "(checked; its typed properties read the right offsets)"},
    [R_METHOD_TIER_DERIVED] = {"method-tier-derived",
                               "OptimizationTier is not a payload field: TraceEvent takes it "
                               "from MethodFlags bits 7..9 when the Jitted bit (0x8) is set, "
                               "else shows 0 (checked on every event)"},
    [R_REJITID_ABSENT_ZERO] = {"rejitid-absent-zero",
                               "ReJITID exists from MethodLoadVerbose v2; TraceEvent shows 0 "
                               "for older versions (checked: TraceEvent says 0)"},
    [R_DERIVED_VERIFIED] = {"derived-verified",
                            "a property TraceEvent computes from payload fields; recomputed "
                            "from our values and equal (HeapStats totals, PerHeapHistory gen "
                            "data, ModuleILFileName, BulkType TypeID_0/TypeName_0)"},
    [R_DERIVED_UNVERIFIED] = {"derived-unverified",
                              "a property TraceEvent computes from state outside the event "
                              "(HeapStats Depth, FinalizeObject TypeName from BulkType "
                              "events): nothing in our payload to check it against"},
    [R_MECHANISM_INDEX] = {"perheap-mechanism-index",
                           "PerHeapHistory Compact/ExpandMechanisms: the payload has bit 31 "
                           "(valid) | 1 << k; TraceEvent shows k, and 1024 when the payload "
                           "is 0 or k is past its enum (checked)"},
    [R_NULL_FOR_ABSENT_FIELD] = {"null-for-absent-field",
                                 "TraceEvent lists a field of a newer event version as null; "
                                 "this version has no such field"},
    [R_ARRAY_NOT_LISTED] = {"array-not-listed",
                            "an array TraceEvent does not expose as payload values "
                            "(GlobalHeapHistory Times, ILToNativeMap offsets, BulkType "
                            "TypeParameters): only we list it"},
    [R_FIELD_NOT_LISTED] = {"field-not-listed",
                            "a payload field TraceEvent's template leaves out of PayloadNames "
                            "(Reserved1 of Loader module events, LoaderHeap/AllocRequest's "
                            "Unused1 and Unused2, ClrInstanceID of "
                            "their v2 and v3: ModuleLoad, ModuleUnload, ModuleDCStart, ModuleDCStop "
                            "share one template), fields the current manifest adds that TraceEvent's "
                            "templates predate: ILVersionID of ILToNativeMap v1, GenNumber of "
                            "private BGCOverflow v1, NativeBuildID of the module events' v3)"},
    [R_CHAR_ARRAY_AS_STRING] = {"char-array-as-string",
                                "an EventSource char[] argument: TraceEvent shows the UTF-16 "
                                "units as one string, we as an array (checked: same characters)"},
    [R_DYNAMIC_EVENT_NOT_LISTED] = {"gc-dynamic-event-not-listed",
                                    "GC/DynamicTraceEvent (runtime id 39): TraceEvent's CLR "
                                    "parser hands these to its GCDynamic sub-parser, whose "
                                    "events the oracle's callbacks never receive, so "
                                    "oracle-all has no line for them"},
    [R_PARSER_NAME] = {"traceevent-parser-name",
                       "a TPL or sample-profiler event: we name it as TraceLog does with "
                       "TraceEvent's parser for that provider (Thread/Sample, TaskWait/Send; "
                       "compared in the TraceLog dumps), EventPipeEventSource without that "
                       "parser names it from the metadata (EventWriteString, TaskWaitBegin); "
                       "checked: our name is the parser's"},
    [R_PARSER_FIELD] = {"traceevent-parser-field",
                        "the sampler's Type: its metadata has no fields, TraceEvent's parser "
                        "(and we) read one int32; EventPipeEventSource without that parser "
                        "shows none (the TraceLog dumps compare it)"},
    [R_NEWER_FIELD_ZERO] = {"newer-field-zero",
                            "LTTng traces of .NET Core 3.1 carry older versions (Contention/Start "
                            "v1, GC/HeapStats v1); TraceEvent lists the newest version's extra "
                            "fields for them as 0 (checked: TraceEvent says 0)"},
    [R_STRING_CAP] = {"string-cap",
                      "a string longer than GCS_VALUE_STR_CAP (EventSource payloads of "
                      "several KB): our value is cut there; checked: it is TraceEvent's prefix"},
    [R_CTF_POINTER_MISREAD] = {"ctf-pointer-misread",
                               "netcoreapp31.trace.zip GC/AllocationTick v3: TraceEvent's CTF "
                               "source reads TypeID as 4 bytes (checked: our low 32 bits); the "
                               "fields after it are misread (ours match babeltrace2's own print)"},
    [R_CTF_STRING_CUT] = {"ctf-string-cut",
                          "clr-only.trace.zip EventSource Payload: TraceEvent's CTF string "
                          "reader stops early in 2 long payloads (checked: its value is a "
                          "prefix of ours, which is babeltrace2's)"},
};

/* Fields TraceEvent names differently: (event, their name, our name). A
 * name with "[]" matches any element index at that place. */
static const struct field_rename {
    const char *event, *theirs, *ours;
} field_renames[] = {
    {"GC/Join", "ID", "JoinID"},
    {"EventSource", "Name", "EventName"},
    /* TraceEvent's TPL parser; the metadata (TplEventSource's parameter). */
    {"AwaitTaskContinuationScheduled/Send", "ContinuationId", "ContinueWithTaskId"},
    {"GC/MarkWithType", "Promoted", "Bytes"},
    {"Type/BulkType", "Values[].TypeName", "Values[].Name"},
    {"GC/PerHeapHistory", "GenData[].FreeListSpaceBefore", "Values[].FreeListBefore"},
    {"GC/PerHeapHistory", "GenData[].FreeObjSpaceBefore", "Values[].FreeObjBefore"},
    {"GC/PerHeapHistory", "GenData[].FreeListSpaceAfter", "Values[].FreeListAfter"},
    {"GC/PerHeapHistory", "GenData[].FreeObjSpaceAfter", "Values[].FreeObjAfter"},
    {"GC/PerHeapHistory", "GenData[].Budget", "Values[].NewAllocation"},
    /* The heap dump's edges (GCHeapDump keyword): TraceEvent's names. */
    {"GC/BulkEdge", "Values[].Target", "Values[].Value"},
    {"GC/BulkEdge", "Values[].ReferencingField", "Values[].ReferencingFieldID"},
};

/* Matches name against pattern where "[]" stands for "[digits]"; the
 * digits are copied to idx. */
static bool match_indexed(const char *pattern, const char *name, char *idx, size_t cap)
{
    const char *br = strstr(pattern, "[]");
    if (!br) return strcmp(pattern, name) == 0;
    size_t head = (size_t)(br - pattern);
    if (strncmp(pattern, name, head) != 0 || name[head] != '[') return false;
    const char *d = name + head + 1, *e = d;
    while (*e >= '0' && *e <= '9') e++;
    if (e == d || *e != ']' || strcmp(e + 1, br + 2) != 0) return false;
    snprintf(idx, cap, "%.*s", (int)(e - d), d);
    return true;
}

/* Our name for TraceEvent's field name; true when a rename applied. */
static bool rename_field(const char *event, const char *theirs, char *out, size_t cap)
{
    for (size_t i = 0; i < sizeof field_renames / sizeof field_renames[0]; i++) {
        char idx[16];
        if (strcmp(event, field_renames[i].event) != 0 ||
            !match_indexed(field_renames[i].theirs, theirs, idx, sizeof idx))
            continue;
        const char *br = strstr(field_renames[i].ours, "[]");
        if (br)
            snprintf(out, cap, "%.*s[%s]%s", (int)(br - field_renames[i].ours),
                     field_renames[i].ours, idx, br + 2);
        else
            snprintf(out, cap, "%s", field_renames[i].ours);
        return true;
    }
    return false;
}

static bool get_u64(const te_fields *fs, const char *name, unsigned long long *out)
{
    const te_field *f = te_fields_get(fs, name);
    if (!f) return false;
    char *end;
    *out = strtoull(f->value, &end, 10);
    return end != f->value && *end == 0;
}

static bool text_is_u64(const char *text, unsigned long long want)
{
    char *end;
    if (!text || *text == '-') return false;
    unsigned long long v = strtoull(text, &end, 10);
    return end != text && *end == 0 && v == want;
}

/* The expected value of a property TraceEvent derives from the payload;
 * false when name is not such a property (or our fields lack an input). */
static bool derived_value(const char *event, const char *name, const te_fields *ours, char *out,
                          size_t cap)
{
    unsigned long long a, b, c, d, e;
    char idx[16], f1[64], f2[64], f3[64];
    if (strcmp(event, "GC/HeapStats") == 0 &&
        (strcmp(name, "TotalHeapSize") == 0 || strcmp(name, "TotalPromoted") == 0)) {
        const char *stem = name[5] == 'H' ? "GenerationSize" : "TotalPromotedSize";
        unsigned long long sum = 0, v;
        for (int g = 0; g <= 4; g++) {
            snprintf(f1, sizeof f1, "%s%d", stem, g);
            if (get_u64(ours, f1, &v)) sum += v;
            else if (g < 4) return false;
        }
        snprintf(out, cap, "%llu", sum);
        return true;
    }
    if (strcmp(event, "GC/PerHeapHistory") == 0) {
        static const char *props[] = {"ObjSpaceBefore", "Fragmentation", "ObjSizeAfter", "Out",
                                      "SurvRate"};
        for (size_t p = 0; p < sizeof props / sizeof props[0]; p++) {
            char pat[64];
            snprintf(pat, sizeof pat, "GenData[].%s", props[p]);
            if (!match_indexed(pat, name, idx, sizeof idx)) continue;
            snprintf(f1, sizeof f1, "Values[%s].SizeBefore", idx);
            snprintf(f2, sizeof f2, "Values[%s].FreeListBefore", idx);
            snprintf(f3, sizeof f3, "Values[%s].FreeObjBefore", idx);
            if (!get_u64(ours, f1, &a) || !get_u64(ours, f2, &b) || !get_u64(ours, f3, &c))
                return false;
            unsigned long long obj_before = a - b - c;
            snprintf(f1, sizeof f1, "Values[%s].SizeAfter", idx);
            snprintf(f2, sizeof f2, "Values[%s].FreeListAfter", idx);
            snprintf(f3, sizeof f3, "Values[%s].FreeObjAfter", idx);
            if (!get_u64(ours, f1, &a) || !get_u64(ours, f2, &b) || !get_u64(ours, f3, &c))
                return false;
            unsigned long long frag = b + c, obj_after = a - frag;
            snprintf(f1, sizeof f1, "Values[%s].PinnedSurv", idx);
            snprintf(f2, sizeof f2, "Values[%s].NonePinnedSurv", idx);
            if (!get_u64(ours, f1, &d) || !get_u64(ours, f2, &e)) return false;
            unsigned long long out_bytes = d + e;
            /* TraceEvent's properties are longs: a generation whose free
             * space exceeds its size after the GC (the segments GC's gen0
             * can report 24 bytes and 960 of free objects) gives a
             * negative ObjSizeAfter. Two's complement, as in C#. */
            long long vals[] = {(long long)obj_before, (long long)frag, (long long)obj_after,
                                (long long)out_bytes,
                                obj_before ? (long long)((double)(long long)out_bytes * 100.0 /
                                                         (double)(long long)obj_before)
                                           : 0};
            snprintf(out, cap, "%lld", vals[p]);
            return true;
        }
        return false;
    }
    if (strcmp(name, "ModuleILFileName") == 0) {
        const te_field *p = te_fields_get(ours, "ModuleILPath");
        if (!p) return false;
        /* Path.GetFileName on Linux splits at '/' only: a Windows path
         * stays whole (as in the arraytypes trace). */
        const char *slash = strrchr(p->value, '/');
        snprintf(out, cap, "\"%s", slash ? slash + 1 : p->value + 1);
        return true;
    }
    if (strcmp(event, "Type/BulkType") == 0 &&
        (strcmp(name, "TypeID_0") == 0 || strcmp(name, "TypeName_0") == 0)) {
        const te_field *f =
            te_fields_get(ours, name[4] == 'I' ? "Values[0].TypeID" : "Values[0].Name");
        if (!f) return false;
        snprintf(out, cap, "%s", f->value);
        return true;
    }
    return false;
}

/* Decodes the oracle's quoted string into UTF-8 (escapes undone). */
static void unquote(const char *q, char *out, size_t cap)
{
    size_t n = 0;
    if (*q == '"') q++;
    for (; *q && *q != '"' && n + 4 < cap; q++) {
        if (*q == '\\' && q[1]) {
            q++;
            char c = *q == 'n' ? '\n' : *q == 'r' ? '\r' : *q == 't' ? '\t' : *q;
            out[n++] = c;
        } else {
            out[n++] = *q;
        }
    }
    out[n] = 0;
}

/* "[a,b,c]" of UTF-16 code units (BMP only) as UTF-8. */
static bool units_to_utf8(const char *arr, char *out, size_t cap)
{
    size_t n = 0;
    if (*arr++ != '[') return false;
    while (*arr && *arr != ']') {
        char *end;
        unsigned long u = strtoul(arr, &end, 10);
        if (end == arr || n + 4 >= cap) return false;
        if (u < 0x80) out[n++] = (char)u;
        else if (u < 0x800) {
            out[n++] = (char)(0xC0 | (u >> 6));
            out[n++] = (char)(0x80 | (u & 0x3F));
        } else {
            out[n++] = (char)(0xE0 | (u >> 12));
            out[n++] = (char)(0x80 | ((u >> 6) & 0x3F));
            out[n++] = (char)(0x80 | (u & 0x3F));
        }
        arr = *end == ',' ? end + 1 : end;
    }
    out[n] = 0;
    return true;
}

/* Which rule explains a field difference; -1 when none does. Rules that
 * say "checked" recompute TraceEvent's value from ours. */
/* Fields of the current runtime manifest that TraceEvent's hand-written
 * templates predate: it never lists them (checked on every fixture). */
static bool is_newer_manifest_field(const char *event, const char *field)
{
    return (strncmp(event, "Method/ILToNativeMap", 20) == 0 && strcmp(field, "ILVersionID") == 0) ||
           (strcmp(event, "GC/BGCOverflow") == 0 && strcmp(field, "GenNumber") == 0) ||
           (strncmp(event, "Loader/Module", 13) == 0 && strcmp(field, "NativeBuildID") == 0);
}

static int classify(const char *event, uint32_t version, const char *field, diff_kind kind,
                    const char *ours, const char *theirs, const te_fields *all_ours)
{
    char want[1024];
    unsigned long long u;
    if (kind == DIFF_VALUE && ((strcmp(event, "GC/SuspendEEStart") == 0 &&
                               strcmp(field, "Count") == 0) ||
                              (strcmp(event, "GC/Join") == 0 && strcmp(field, "ID") == 0))) {
        char *end;
        u = strtoull(ours, &end, 10);
        return strtoll(theirs, NULL, 10) == (long long)(int32_t)(uint32_t)u ? R_SIGNED_COUNT : -1;
    }
    if (kind == DIFF_VALUE && strcmp(event, "GC/SetGCHandle") == 0 &&
        strcmp(field, "AppDomainID") == 0) {
        char *end;
        u = strtoull(ours, &end, 10);
        return *end == 0 && strtoll(theirs, NULL, 10) == (long long)u ? R_SIGNED_ID : -1;
    }
    if (kind == DIFF_VALUE && strcmp(event, "GC/HeapStats") == 0) {
        char *end, *tend;
        u = strtoull(ours, &end, 10);
        long long t = strtoll(theirs, &tend, 10);
        bool same_bits = t == (long long)u || (u <= UINT32_MAX && t == (long long)(int32_t)(uint32_t)u);
        return *end == 0 && *tend == 0 && same_bits ? R_SIGNED_ID : -1;
    }
    if (kind == DIFF_VALUE && strcmp(event, "GC/PerHeapHistory") == 0) {
        /* Its 64-bit sizes (other differences: the rules below). */
        char *end, *tend;
        u = strtoull(ours, &end, 10);
        long long t = strtoll(theirs, &tend, 10);
        if (*end == 0 && *tend == 0 && t < 0 && t == (long long)u)
            return R_SIGNED_ID;
    }
    if (kind == DIFF_VALUE && strcmp(event, "Method/MethodDetails") == 0) {
        unsigned long long count, module;
        if (strcmp(field, "TypeParameterCount") == 0)
            return strcmp(theirs, "null") == 0 ? R_PAYLOAD_INDEX_SHIFTED : -1;
        if (strcmp(field, "LoaderModuleID") == 0 &&
            get_u64(all_ours, "TypeParameterCount", &count))
            return text_is_u64(theirs, count) ? R_PAYLOAD_INDEX_SHIFTED : -1;
        if (strcmp(field, "TypeParameters") == 0 && get_u64(all_ours, "LoaderModuleID", &module))
            return text_is_u64(theirs, module) ? R_PAYLOAD_INDEX_SHIFTED : -1;
    }
    if (strcmp(event, "Method/DCStopVerbose") == 0 || strcmp(event, "Method/LoadVerbose") == 0 ||
        strcmp(event, "Method/UnloadVerbose") == 0 || strcmp(event, "Method/DCStartVerbose") == 0) {
        unsigned long long flags;
        if (kind == DIFF_VALUE && strcmp(field, "MethodFlags") == 0 &&
            text_is_u64(ours, 0) == false && get_u64(all_ours, "MethodFlags", &flags))
            return text_is_u64(theirs, flags & 0x0FFFFC7Full) ? R_METHOD_FLAGS_MASKED : -1;
        if (kind == DIFF_ORACLE_ONLY && strcmp(field, "OptimizationTier") == 0 &&
            get_u64(all_ours, "MethodFlags", &flags))
            return text_is_u64(theirs, (flags & 8) ? (flags >> 7) & 7 : 0)
                       ? R_METHOD_TIER_DERIVED
                       : -1;
        if (kind == DIFF_ORACLE_ONLY && strcmp(field, "ReJITID") == 0 && version < 2)
            return text_is_u64(theirs, 0) ? R_REJITID_ABSENT_ZERO : -1;
    }
    if (kind == DIFF_ORACLE_ONLY && derived_value(event, field, all_ours, want, sizeof want))
        return strcmp(want, theirs) == 0 ? R_DERIVED_VERIFIED : -1;
    if (kind == DIFF_ORACLE_ONLY &&
        ((strcmp(event, "GC/HeapStats") == 0 && strcmp(field, "Depth") == 0) ||
         (strcmp(event, "GC/FinalizeObject") == 0 && strcmp(field, "TypeName") == 0)))
        return R_DERIVED_UNVERIFIED;
    if (kind == DIFF_VALUE && strcmp(event, "GC/PerHeapHistory") == 0 &&
        (strcmp(field, "CompactMechanisms") == 0 || strcmp(field, "ExpandMechanisms") == 0)) {
        char *end;
        u = strtoull(ours, &end, 10);
        unsigned long long bits = u & 0x7FFFFFFFull;
        /* TraceEvent's enums end at compact_no_gc_mode (10) and
         * expand_next_full_gc (5); a later reason is not_specified. .NET 8's
         * aggressive induced GC sets compact reason 11. */
        const int known = strcmp(field, "CompactMechanisms") == 0 ? 11 : 6;
        int k = -1;
        if (u == 0) k = 1024;
        else if ((u & 0x80000000ull) && bits && !(bits & (bits - 1)))
            for (k = 0; !(bits & (1ull << k)); k++) {}
        if (k >= known && k != 1024) k = 1024;
        return k >= 0 && text_is_u64(theirs, (unsigned long long)k) ? R_MECHANISM_INDEX : -1;
    }
    if (kind == DIFF_ORACLE_ONLY && strcmp(theirs, "null") == 0) return R_NULL_FOR_ABSENT_FIELD;
    if (kind == DIFF_ORACLE_ONLY &&
        ((strcmp(event, "Contention/Start") == 0 && version < 2 &&
          (strcmp(field, "LockID") == 0 || strcmp(field, "AssociatedObjectID") == 0 ||
           strcmp(field, "LockOwnerThreadID") == 0)) ||
         (strcmp(event, "GC/HeapStats") == 0 && version < 2 &&
          (strcmp(field, "GenerationSize4") == 0 || strcmp(field, "TotalPromotedSize4") == 0))))
        return text_is_u64(theirs, 0) ? R_NEWER_FIELD_ZERO : -1;
    if (kind == DIFF_VALUE && ours[0] == '"' && strlen(ours) >= GCS_VALUE_STR_CAP - 1 &&
        strncmp(ours, theirs, strlen(ours) - 3) == 0) /* the cut may split an escape */
        return R_STRING_CAP;
    if (kind == DIFF_VALUE && strcmp(event, "EventSource") == 0 && theirs[0] == '"' &&
        strlen(theirs) < strlen(ours) && strncmp(ours, theirs, strlen(theirs) - 1) == 0)
        return R_CTF_STRING_CUT;
    if (strcmp(event, "GC/AllocationTick") == 0 && version == 3 && all_ours) {
        /* TraceEvent's CTF source reads TypeID as 4 bytes (babeltrace2 and
         * the CTF metadata say 8), so every later field is misread. */
        unsigned long long type_id;
        if (get_u64(all_ours, "TypeID", &type_id) &&
            (strcmp(field, "TypeID") == 0 ? text_is_u64(theirs, type_id & 0xFFFFFFFFull)
                                          : strcmp(field, "TypeName") == 0 ||
                                                strcmp(field, "HeapIndex") == 0 ||
                                                strcmp(field, "Address") == 0 ||
                                                strcmp(field, "ObjectSize") == 0))
            return R_CTF_POINTER_MISREAD;
    }
    if (kind == DIFF_OURS_ONLY && strcmp(event, "Thread/Sample") == 0 &&
        strcmp(field, "Type") == 0)
        return R_PARSER_FIELD;
    if (kind == DIFF_OURS_ONLY) {
        char idx[16];
        if ((strcmp(event, "GC/GlobalHeapHistory") == 0 &&
             match_indexed("Values[].Time", field, idx, sizeof idx)) ||
            ((strcmp(event, "Method/ILToNativeMapDCStop") == 0 ||
              strcmp(event, "Method/ILToNativeMap") == 0) &&
             (strcmp(field, "ILOffsets") == 0 || strcmp(field, "NativeOffsets") == 0)) ||
            (strcmp(event, "Type/BulkType") == 0 &&
             match_indexed("Values[].TypeParameters", field, idx, sizeof idx)))
            return R_ARRAY_NOT_LISTED;
        if ((strncmp(event, "Loader/", 7) == 0 && strcmp(field, "Reserved1") == 0) ||
            (strcmp(event, "LoaderHeap/AllocRequest") == 0 &&
             (strcmp(field, "Unused1") == 0 || strcmp(field, "Unused2") == 0)) ||
            (strncmp(event, "Loader/Module", 13) == 0 && version >= 2 &&
             strcmp(field, "ClrInstanceID") == 0) ||
            is_newer_manifest_field(event, field))
            return R_FIELD_NOT_LISTED;
    }
    if (kind == DIFF_VALUE && ours[0] == '[' && theirs[0] == '"') {
        char a[1024], b[1024];
        unquote(theirs, b, sizeof b);
        if (units_to_utf8(ours, a, sizeof a) && strcmp(a, b) == 0) return R_CHAR_ARRAY_AS_STRING;
    }
    return -1;
}

/* Unexplained differences are reported (the first few of each kind). */
static unsigned unexplained_reported;

static void report_unexplained(const char *trace, double msec, const char *event,
                               const char *field, diff_kind kind, const char *ours,
                               const char *theirs)
{
    if (unexplained_reported++ >= 60 && !getenv("TE_VERBOSE")) return;
    static const char *kinds[] = {"value differs", "only TraceEvent has it", "only we have it"};
    fprintf(stderr, "%s: %.3f %s %s: %s (ours=%s traceevent=%s)\n", trace, msec, event, field,
            kinds[kind], ours ? ours : "-", theirs ? theirs : "-");
}

/* ------------------------------------------------------------------ */
/* Reading our events.                                                 */

typedef struct our_reader {
    gcs_source *src;
    gcs_reader *r;
} our_reader;

static bool our_open(our_reader *o, const char *path)
{
    gcs_error err;
    gcs_error_clear(&err);
    o->src = gcs_source_open_file(path, &err);
    if (!o->src) return false;
    o->r = gcs_reader_new(o->src, NULL, &err);
    return o->r != NULL;
}

static void our_close(our_reader *o)
{
    if (o->r) gcs_reader_free(o->r);
    if (o->src) gcs_source_free(o->src);
    o->r = NULL;
    o->src = NULL;
}

/* MSec as the oracle prints it (3 decimals), in thousandths. */
static long long msec_thousandths(double msec)
{
    char buf[64];
    snprintf(buf, sizeof buf, "%.3f", msec);
    char *dot = strchr(buf, '.');
    long long whole = strtoll(buf, NULL, 10);
    long long frac = dot ? strtoll(dot + 1, NULL, 10) : 0;
    return buf[0] == '-' ? whole * 1000 - frac : whole * 1000 + frac;
}

/* ------------------------------------------------------------------ */
/* 3. Every event, field by field, against oracle-all.                 */

typedef struct oline {
    long long ms;          /* thousandths */
    double msec;
    uint32_t pid, id, version;
    unsigned long long tid;
    char provider[128];
    char name[160];
    const char *fields;    /* rest of the line */
    const char *end;       /* end of the line */
    bool used;
} oline;

typedef struct totals {
    unsigned long long events, values, equal, unexplained, ours_only_events,
        oracle_only_events;
} totals;

static totals grand;

/* Parses "MSEC pid=N tid=N Provider/Name id=N v=N rest". */
static bool parse_oline(const char *line, const char *end, oline *o)
{
    char pn[300];
    int used = 0;
    memset(o, 0, sizeof *o);
    /* sscanf measures its whole input string: give it the line's head
     * only, not the rest of the file. */
    char head[512];
    size_t hn = (size_t)(end - line) < sizeof head - 1 ? (size_t)(end - line) : sizeof head - 1;
    memcpy(head, line, hn);
    head[hn] = 0;
    if (sscanf(head, "%lf pid=%u tid=%llu %299s id=%u v=%u%n", &o->msec, &o->pid, &o->tid, pn,
               &o->id, &o->version, &used) != 6)
        return false;
    const char *dot = strchr(line, '.');
    o->ms = strtoll(line, NULL, 10) * 1000 + (dot ? strtoll(dot + 1, NULL, 10) : 0);
    char *slash = strchr(pn, '/');
    if (!slash) return false;
    snprintf(o->provider, sizeof o->provider, "%.*s", (int)(slash - pn), pn);
    snprintf(o->name, sizeof o->name, "%s", slash + 1);
    o->fields = line + used;
    o->end = end;
    return true;
}

/* Oracle array names that are our schema's "Values" under another name
 * (TraceEvent exposes them through methods named after their meaning). */
static const struct array_rename {
    const char *event, *theirs, *ours;
} array_renames[] = {
    {"GC/PerHeapHistory", "GenData", "Values"},
    {"GC/LOHCompact", "Info", "Values"},
    {"GC/FitBucketInfo", "Buckets", "Values"},
};

static void rename_oracle_field(const char *event, const char *name, char *out, size_t cap)
{
    for (size_t i = 0; i < sizeof array_renames / sizeof array_renames[0]; i++) {
        size_t n = strlen(array_renames[i].theirs);
        if (strcmp(event, array_renames[i].event) == 0 &&
            strncmp(name, array_renames[i].theirs, n) == 0 && name[n] == '[') {
            snprintf(out, cap, "%s%s", array_renames[i].ours, name + n);
            return;
        }
    }
    snprintf(out, cap, "%s", name);
}

static bool values_equal(const te_field *ours, const char *theirs)
{
    if (ours->is_float) return te_float_equal(ours->value, theirs);
    if (strcmp(ours->value, theirs) == 0) return true;
    /* GUIDs and hex bytes: the oracle's case may differ. */
    return strcasecmp(ours->value, theirs) == 0 && strchr(theirs, '"') == NULL;
}

static void compare_fields(const char *trace, const gcs_event *ev, const oline *o,
                           te_fields *ours, te_fields *theirs, totals *t)
{
    const char *event = ev->type->name;
    te_fields_clear(theirs);
    te_parse_fields(o->fields, o->end, "", false, theirs);
    if (!te_flatten_event(ev, ours)) {
        report_unexplained(trace, ev->msec, event, "(payload)", DIFF_VALUE, "undecodable", "-");
        t->unexplained++;
        return;
    }
    if (find_name_mapping(o->provider, o->id) && strncmp(o->name, "EventID(", 8) == 0) {
        rules[R_UNNAMED_EVENT_FIELDS].uses += ours->n;
        return;
    }
    bool *consumed = calloc(ours->n ? ours->n : 1, sizeof *consumed);
    size_t hint = 0;
    for (size_t i = 0; i < theirs->n; i++) {
        char name[512];
        bool renamed = rename_field(event, theirs->v[i].name, name, sizeof name);
        if (!renamed) rename_oracle_field(event, theirs->v[i].name, name, sizeof name);
        /* Both sides list fields in payload order almost always: search
         * from just after the previous match, then wrap around. */
        const te_field *f = NULL;
        for (size_t step = 0; step < ours->n; step++) {
            size_t k = (hint + step) % ours->n;
            if (!consumed[k] && strcmp(ours->v[k].name, name) == 0) {
                consumed[k] = true;
                f = &ours->v[k];
                hint = k + 1;
                break;
            }
        }
        t->values++;
        int r;
        if (f && values_equal(f, theirs->v[i].value)) {
            t->equal++;
            if (renamed) rules[R_FIELD_RENAMED].uses++;
            continue;
        }
        r = classify(event, ev->type->version, theirs->v[i].name,
                     f ? DIFF_VALUE : DIFF_ORACLE_ONLY, f ? f->value : NULL,
                     theirs->v[i].value, ours);
        if (r >= 0) {
            rules[r].uses++;
        } else {
            t->unexplained++;
            report_unexplained(trace, ev->msec, event, theirs->v[i].name,
                               f ? DIFF_VALUE : DIFF_ORACLE_ONLY, f ? f->value : NULL,
                               theirs->v[i].value);
        }
    }
    for (size_t k = 0; k < ours->n; k++) {
        if (consumed[k]) continue;
        t->values++;
        int r = classify(event, ev->type->version, ours->v[k].name, DIFF_OURS_ONLY,
                         ours->v[k].value, NULL, ours);
        if (r >= 0) {
            rules[r].uses++;
        } else {
            t->unexplained++;
            report_unexplained(trace, ev->msec, event, ours->v[k].name, DIFF_OURS_ONLY,
                               ours->v[k].value, NULL);
        }
    }
    free(consumed);
}

/* Our name is the one TraceEvent's parser for the event's provider gives. */
static bool is_parser_name(const gcs_event *ev)
{
    char buf[256];
    return gcs_te_parser_lookup(ev->type->provider, ev->type->event_id) != NULL &&
           strcmp(gcs_event_display_name(ev->type->provider, ev->type->event_id,
                                         ev->type->version, NULL, 0, false, buf, sizeof buf),
                  ev->type->name) == 0;
}

/* Our events that TraceEvent's dump does not list; -1 when none explains. */
static int classify_ours_only_event(const gcs_event *ev)
{
    if (ev->type->event_id == 39 && strcmp(ev->type->provider, RT) == 0 &&
        strcmp(ev->type->name, "GC/DynamicTraceEvent") == 0)
        return R_DYNAMIC_EVENT_NOT_LISTED;
    return -1;
}

static void compare_all(const char *trace_path, const char *oracle_path, const char *label)
{
    size_t size;
    char *text = te_read_text(oracle_path, &size);
    if (!text) {
        printf("skipped: %s (%s not present)\n", label, oracle_path);
        return;
    }
    size_t n = 0, cap = 1024;
    oline *ol = malloc(cap * sizeof *ol);
    for (char *p = text; *p;) {
        char *nl = strchr(p, '\n');
        char *end = nl ? nl : p + strlen(p);
        if (n == cap) ol = realloc(ol, (cap *= 2) * sizeof *ol);
        if (parse_oline(p, end, &ol[n])) n++;
        else if (end > p) {
            fprintf(stderr, "%s: unparsable oracle line: %.80s\n", label, p);
            CHECK(!"oracle line parses");
        }
        p = nl ? nl + 1 : end;
    }
    our_reader o = {0};
    if (!our_open(&o, trace_path)) {
        printf("skipped: %s (%s not present)\n", label, trace_path);
        free(ol);
        free(text);
        return;
    }
    totals t = {0};
    te_fields ours = {0}, theirs = {0};
    size_t next = 0, order_swaps = 0;
    const gcs_event *ev;
    gcs_error err;
    gcs_error_clear(&err);
    gcs_status st;
    while ((st = gcs_reader_next(o.r, &ev, &err)) == GCS_OK) {
        long long ms = msec_thousandths(ev->msec);
        /* TraceEvent lines before this time that nothing matched. */
        while (next < n && (ol[next].used || ol[next].ms < ms - 1)) {
            if (!ol[next].used) {
                t.oracle_only_events++;
                report_unexplained(label, ol[next].msec, ol[next].name, "(event)",
                                   DIFF_ORACLE_ONLY, NULL, "listed");
            }
            next++;
        }
        size_t found = n;
        for (size_t j = next; j < n && ol[j].ms <= ms + 1; j++) {
            if (ol[j].used || ol[j].pid != ev->pid || ol[j].tid != ev->tid ||
                ol[j].id != ev->type->event_id || strcmp(ol[j].provider, ev->type->provider) != 0)
                continue;
            if (found == n || (ol[found].ms != ms && ol[j].ms == ms)) found = j;
            if (ol[j].ms == ms) break;
        }
        if (found == n) {
            int r = classify_ours_only_event(ev);
            if (r >= 0) {
                rules[r].uses++;
            } else {
                t.ours_only_events++;
                report_unexplained(label, ev->msec, ev->type->name, "(event)", DIFF_OURS_ONLY,
                                   "delivered", NULL);
            }
            continue;
        }
        if (found != next) order_swaps++;
        oline *m = &ol[found];
        m->used = true;
        t.events++;
        if (m->ms != ms) {
            if (fabs(ev->msec - m->msec) <= 0.0005 + 1e-9) {
                rules[R_MSEC_ROUNDING].uses++;
            } else {
                t.unexplained++;
                report_unexplained(label, ev->msec, ev->type->name, "(msec)", DIFF_VALUE, "-",
                                   "-");
            }
            if (getenv("TE_VERBOSE"))
                fprintf(stderr, "%s: msec-rounding: ours %.9f (%.3f), TraceEvent %.3f %s\n", label,
                        ev->msec, ev->msec, m->msec, m->name);
        }
        CHECK_EQ_U64(ev->type->version, m->version);
        if (strcmp(m->name, ev->type->name) != 0) {
            const struct name_mapping *nm = find_name_mapping(m->provider, m->id);
            if (nm && strcmp(nm->traceevent_name, m->name) == 0 &&
                strcmp(nm->our_name, ev->type->name) == 0) {
                rules[R_EVENT_NAME_MAPPED].uses++;
            } else if (is_parser_name(ev)) {
                rules[R_PARSER_NAME].uses++;
            } else {
                t.unexplained++;
                report_unexplained(label, ev->msec, ev->type->name, "(name)", DIFF_VALUE,
                                   ev->type->name, m->name);
            }
        }
        compare_fields(label, ev, m, &ours, &theirs, &t);
    }
    CHECK_EQ_INT(st, GCS_END);
    for (; next < n; next++)
        if (!ol[next].used) {
            t.oracle_only_events++;
            report_unexplained(label, ol[next].msec, ol[next].name, "(event)", DIFF_ORACLE_ONLY,
                               NULL, "listed");
        }
    printf("%s: %llu events compared (of %zu listed; %zu matched within equal-time groups), "
           "%llu values compared, %llu equal, %llu unexplained, %llu events only ours, "
           "%llu only TraceEvent's\n",
           label, t.events, n, order_swaps, t.values, t.equal, t.unexplained, t.ours_only_events,
           t.oracle_only_events);
    CHECK_EQ_U64(t.events, n);
    CHECK_EQ_U64(t.unexplained, 0);
    CHECK_EQ_U64(t.ours_only_events, 0);
    CHECK_EQ_U64(t.oracle_only_events, 0);
    grand.events += t.events;
    grand.values += t.values;
    grand.equal += t.equal;
    grand.unexplained += t.unexplained;
    te_fields_free(&ours);
    te_fields_free(&theirs);
    our_close(&o);
    free(ol);
    free(text);
}

static const char *fixtures[] = {
    "gen0size-small", "objects-allocsampled", "objects-movement",  "probe-net10",
    "server",         "wks-concurrent",       "wks-nonconcurrent", "wks-segments",
    "dotnet-trace-default", "dotnet-trace-gc-verbose",
    "net8-server",    "net9-server-datas",    "net31-concurrent",  "net31-server",
    "net10-aot",      "net9-aot",
};

static const char *shared_traces[] = {
    "eventpipe-dotnetcore2.1-linux-x64-objver3.netperf",
    "eventpipe-dotnetcore5.0-win-x64-arraytypes.nettrace",
    "eventpipe-dotnetcore6.0-win-x64-executioncheckpoints.nettrace",
};

/* LTTng traces (perfcollect .trace.zip) from PerfView's tests, read by
 * TraceEvent's CtfTraceEventSource (tools/oracle on a *.zip). */
#define SHARED_CTF "../shared/traces/ctf/"
static const char *ctf_traces[] = {"clr-only.trace.zip", "netcoreapp31.trace.zip"};

static bool file_exists(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (f) fclose(f);
    return f != NULL;
}

static void oracle_all_path(const char *base, char *out, size_t cap)
{
    snprintf(out, cap, "%s.oracle-all.txt", base);
    if (!file_exists(out)) snprintf(out, cap, "%s.oracle-all.txt.gz", base);
}

static void test_fixtures_every_event(void)
{
    for (size_t i = 0; i < sizeof fixtures / sizeof fixtures[0]; i++) {
        char trace[256], base[256], oracle[300];
        snprintf(trace, sizeof trace, "tests/data/%s.nettrace", fixtures[i]);
        snprintf(base, sizeof base, "tests/data/%s", fixtures[i]);
        oracle_all_path(base, oracle, sizeof oracle);
        compare_all(trace, oracle, fixtures[i]);
    }
}

/* Every event of the traces names[0..n) in dir (their oracle outputs in
 * tests/data/shared/). */
static void compare_shared(const char *dir, const char *const *names, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        char trace[256], base[256], oracle[300];
        snprintf(trace, sizeof trace, "%s%s", dir, names[i]);
        snprintf(base, sizeof base, "tests/data/shared/%s", names[i]);
        oracle_all_path(base, oracle, sizeof oracle);
        compare_all(trace, oracle, names[i]);
    }
}

static void test_shared_every_event(void)
{
    if (!file_exists(SHARED_TRACES)) SKIP("../shared/traces/perfview not present");
    compare_shared(SHARED_TRACES, shared_traces, sizeof shared_traces / sizeof shared_traces[0]);
}

static void test_ctf_every_event(void)
{
    if (!file_exists(SHARED_CTF)) SKIP("../shared/traces/ctf not present");
    compare_shared(SHARED_CTF, ctf_traces, sizeof ctf_traces / sizeof ctf_traces[0]);
}

/* ------------------------------------------------------------------ */
/* 1 and 2. Counts and first events against "Provider/Name, count,      */
/* <Event .../>" dumps (PerfView baselines, oracle-dump).               */

typedef struct battr {
    char name[96];
    char *value; /* XML-unescaped */
} battr;

typedef struct bentry {
    char key[300];     /* Provider/EventName as TraceEvent prints it */
    char provider[160];
    unsigned long long count, ours_count;
    battr *attrs;
    size_t nattrs;
    bool seen;         /* our first event of this name was compared */
} bentry;

static void xml_unescape(const char *p, size_t n, char *out)
{
    size_t o = 0;
    for (size_t i = 0; i < n; i++) {
        if (p[i] != '&') {
            out[o++] = p[i];
            continue;
        }
        static const struct { const char *ent; char c; } ents[] = {
            {"&quot;", '"'}, {"&amp;", '&'}, {"&lt;", '<'}, {"&gt;", '>'}, {"&apos;", '\''}};
        bool done = false;
        for (size_t e = 0; e < 5 && !done; e++) {
            size_t l = strlen(ents[e].ent);
            if (i + l <= n && strncmp(p + i, ents[e].ent, l) == 0) {
                out[o++] = ents[e].c;
                i += l - 1;
                done = true;
            }
        }
        if (!done) out[o++] = '&';
    }
    out[o] = 0;
}

/* Parses one dump line; false when it is not one. */
static bool parse_bentry(const char *line, const char *end, bentry *b)
{
    memset(b, 0, sizeof *b);
    const char *comma = strstr(line, ", ");
    if (!comma || comma > end) return false;
    snprintf(b->key, sizeof b->key, "%.*s", (int)(comma - line), line);
    const char *slash = strchr(b->key, '/');
    if (!slash) return false;
    snprintf(b->provider, sizeof b->provider, "%.*s", (int)(slash - b->key), b->key);
    char *after;
    b->count = strtoull(comma + 2, &after, 10);
    const char *ev = strstr(after, "<Event ");
    if (!ev || ev > end) return false;
    const char *p = ev + 7;
    size_t cap = 16;
    b->attrs = calloc(cap, sizeof *b->attrs);
    while (p < end) {
        while (p < end && *p == ' ') p++;
        if (p >= end || *p == '/' || *p == '>') break;
        const char *eq = memchr(p, '=', (size_t)(end - p));
        if (!eq) break;
        const char *q = eq + 1;
        while (q < end && *q == ' ') q++;
        if (q >= end || *q != '"') break;
        const char *close = memchr(q + 1, '"', (size_t)(end - q - 1));
        if (!close) break;
        if (b->nattrs == cap) b->attrs = realloc(b->attrs, (cap *= 2) * sizeof *b->attrs);
        battr *a = &b->attrs[b->nattrs++];
        snprintf(a->name, sizeof a->name, "%.*s", (int)(eq - p), p);
        a->value = malloc((size_t)(close - q));
        xml_unescape(q + 1, (size_t)(close - q - 1), a->value);
        p = close + 1;
    }
    return true;
}

static void bentries_free(bentry *b, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        for (size_t k = 0; k < b[i].nattrs; k++) free(b[i].attrs[k].value);
        free(b[i].attrs);
    }
    free(b);
}

/* Exceptions of the first-event comparison (named, counted). */
enum {
    B_TRACELOG_CONSUMED,
    B_NAME_MAPPED,
    B_DERIVED_ATTRIBUTE,
    B_DISPLAY_REWRITE,
    B_NOT_LISTED,
    B_DYNAMIC_EVENT,
    B_TE_ENUM,
    B_NEWER_FIELD_ZERO,
    B_COUNT
};

static rule brules[B_COUNT] = {
    [B_TRACELOG_CONSUMED] = {"tracelog-consumes-method-rundown",
                             "TraceLog keeps Method/DCStopVerbose and Method/ILToNativeMapDCStop "
                             "for its symbol tables and never lists them (PerfView baselines "
                             "only)"},
    [B_NAME_MAPPED] = {"event-name-mapped", "EventID(N) in TraceEvent, named by us (name_mappings)"},
    [B_DERIVED_ATTRIBUTE] = {"derived-attribute",
                             "an attribute TraceEvent computes (no payload field of that name); "
                             "its value is checked against ours in the field-by-field test"},
    [B_DISPLAY_REWRITE] = {"display-rewrite",
                           "TraceEvent rewrites the raw value (MethodFlags masked, UInt32 shown "
                           "signed, PerHeapHistory mechanism index); checked raw in the "
                           "field-by-field test"},
    [B_NOT_LISTED] = {"field-not-listed",
                      "a payload field (or array) TraceEvent leaves out of its XML"},
    [B_TE_ENUM] = {"traceevent-enum-name",
                   "TraceEvent shows an enum name where the runtime manifest (our schema) has "
                   "no map: checked with the manifest map of the same meaning when there is "
                   "one (te_enums), else the raw number is checked in the field-by-field test"},
    [B_NEWER_FIELD_ZERO] = {"newer-field-zero",
                            "TraceEvent shows 0 for a field a newer version added (HeapStats "
                            "V1, .NET Core 3.1: GenerationSize4, TotalPromotedSize4)"},
    [B_DYNAMIC_EVENT] = {"gc-dynamic-event-not-listed",
                         "GC/DynamicTraceEvent (id 39): TraceEvent does not list it"},
};

static unsigned long long battrs_compared, battrs_equal;

/* Parses TraceEvent's integer display: "2,033,417,279", "-1", "0x0001AF40". */
static bool display_int(const char *t, unsigned long long *u, long long *i)
{
    char buf[64];
    size_t n = 0;
    for (const char *p = t; *p && n + 1 < sizeof buf; p++)
        if (*p != ',') buf[n++] = *p;
    buf[n] = 0;
    if (!n) return false;
    char *end;
    if (buf[0] == '0' && (buf[1] == 'x' || buf[1] == 'X')) {
        *u = strtoull(buf + 2, &end, 16);
        *i = (long long)*u;
    } else if (buf[0] == '-') {
        *i = strtoll(buf, &end, 10);
        *u = (unsigned long long)*i;
    } else {
        *u = strtoull(buf, &end, 10);
        *i = (long long)*u;
    }
    return *end == 0;
}

typedef struct top_value {
    const gcs_field *field;
    te_str text;      /* arrays: elements joined by ','; scalars: canonical text */
    gcs_value v;      /* scalars: a copy (bytes/str invalid after the walk) */
    char str[GCS_VALUE_STR_CAP];
    bool is_array, is_struct_array;
} top_value;

typedef struct top_walk {
    top_value *v;
    size_t n, cap;
} top_walk;

static int top_visit(const gcs_value *v, void *ctx)
{
    top_walk *w = ctx;
    if (v->depth == 0 && (v->kind == GCS_VALUE_ARRAY_BEGIN ||
                          (v->kind == GCS_VALUE_SCALAR && !v->in_array))) {
        if (w->n == w->cap) w->v = realloc(w->v, (w->cap = w->cap ? w->cap * 2 : 32) * sizeof *w->v);
        top_value *t = &w->v[w->n++];
        memset(t, 0, sizeof *t);
        t->field = v->field;
        t->is_array = v->kind == GCS_VALUE_ARRAY_BEGIN;
        t->is_struct_array = t->is_array && v->type == GCS_T_STRUCT;
        if (!t->is_array) {
            t->v = *v;
            if (v->str) snprintf(t->str, sizeof t->str, "%s", v->str);
            bool f;
            te_render_scalar(&t->text, v, &f);
        }
        return 0;
    }
    if (v->kind == GCS_VALUE_SCALAR && w->n && w->v[w->n - 1].is_array) {
        top_value *t = &w->v[w->n - 1];
        bool f;
        if (t->text.n) te_str_puts(&t->text, ",");
        te_render_scalar(&t->text, v, &f);
    }
    return 0;
}

/* Does TraceEvent's display text show our value? */
static bool display_matches(const top_value *t, const char *shown)
{
    const gcs_field *f = t->field;
    if (t->is_array) {
        const char *txt = t->text.p ? t->text.p : "";
        if (shown[0] == '[') {
            size_t n = strlen(shown);
            return n >= 2 && strlen(txt) == n - 2 && strncmp(shown + 1, txt, n - 2) == 0;
        }
        if (strcmp(shown, txt) == 0) return true;
        /* a char[] argument shown as a string */
        char a[1024], br[1100];
        snprintf(br, sizeof br, "[%s]", txt);
        return units_to_utf8(br, a, sizeof a) && strcmp(a, shown) == 0;
    }
    const gcs_value *v = &t->v;
    if (f->map_name) {
        char buf[512];
        const char *name = gcs_map_lookup(f->map_name, v->u, buf, sizeof buf);
        if (name && strcmp(name, shown) == 0) return true;
    }
    unsigned long long u;
    long long i;
    switch (v->type) {
    case GCS_T_BOOL8:
    case GCS_T_BOOL32:
        return strcasecmp(shown, v->u ? "true" : "false") == 0;
    case GCS_T_F32:
    case GCS_T_F64: {
        char buf[64];
        size_t n = 0;
        for (const char *p = shown; *p && n + 1 < sizeof buf; p++)
            if (*p != ',') buf[n++] = *p;
        buf[n] = 0;
        double d = strtod(buf, NULL);
        return d == v->f || (float)d == (float)v->f ||
               fabs(d - v->f) <= 1e-6 * fabs(v->f);
    }
    case GCS_T_GUID:
        return strcasecmp(shown, t->text.p) == 0;
    case GCS_T_UTF16Z:
    case GCS_T_ANSIZ:
    case GCS_T_UTF8:
        return strcmp(shown, t->str) == 0;
    case GCS_T_BINARY:
        return strcasecmp(shown, t->text.p) == 0;
    case GCS_T_I8:
    case GCS_T_I16:
    case GCS_T_I32:
    case GCS_T_I64:
        return display_int(shown, &u, &i) && i == v->i;
    default:
        return display_int(shown, &u, &i) && u == v->u;
    }
}

/* Attribute names that are not payload fields. */
static bool is_header_attr(const char *name)
{
    static const char *names[] = {"MSec", "PID", "PName", "TID", "EventName", "ProviderName",
                                  "ActivityID", "RelatedActivityID"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (strcmp(names[i], name) == 0) return true;
    return false;
}

/* Attributes TraceEvent derives (see the field-by-field rules). */
static bool is_derived_attr(const char *event, const char *name)
{
    static const struct { const char *event, *name; } d[] = {
        {"GC/HeapStats", "TotalHeapSize"}, {"GC/HeapStats", "TotalPromoted"},
        {"GC/HeapStats", "Depth"},         {"Loader/ModuleDCStop", "ModuleILFileName"},
        {"Loader/ModuleLoad", "ModuleILFileName"}, {"GC/FinalizeObject", "TypeName"},
        {"Method/DCStopVerbose", "OptimizationTier"}, {"Method/DCStopVerbose", "ReJITID"},
        {"Type/BulkType", "TypeID_0"},     {"Type/BulkType", "TypeName_0"},
        {"GC/PerHeapHistory", "ConcurrentCompactMechanisms"},
        {"GC/PerHeapHistory", "MemoryPressure"},
    };
    for (size_t i = 0; i < sizeof d / sizeof d[0]; i++)
        if (strcmp(d[i].event, event) == 0 && strcmp(d[i].name, name) == 0) return true;
    /* Every module event's template derives the file name; every
     * verbose method event's (LoadVerbose, UnloadVerbose, DCStartVerbose,
     * DCStopVerbose) the tier and, before version 2, a ReJITID of 0. */
    size_t n = strlen(event);
    return (strncmp(event, "Loader/Module", 13) == 0 && strcmp(name, "ModuleILFileName") == 0) ||
           (strncmp(event, "Method/", 7) == 0 && n > 7 && strcmp(event + n - 7, "Verbose") == 0 &&
            (strcmp(name, "OptimizationTier") == 0 || strcmp(name, "ReJITID") == 0));
}

/* Fields TraceEvent shows by an enum of its own where the manifest field
 * has no map: (event, field, our map of the same meaning or NULL). */
static const struct te_enum {
    const char *event, *field, *map;
} te_enums[] = {
    {"GC/GlobalHeapHistory", "Reason", "GCReasonMap"},
    {"GC/GlobalHeapHistory", "GlobalMechanisms", NULL},
    {"GC/GlobalHeapHistory", "PauseMode", NULL},
    {"GC/FitBucketInfo", "BucketKind", NULL},
    {"GC/SettingsRundown", "BitSettings", NULL},
    {"GC/Join", "JoinType", NULL},
    {"GC/Join", "JoinTime", NULL},
};

static int te_enum_check(const char *event, const top_value *t, const char *shown)
{
    for (size_t i = 0; i < sizeof te_enums / sizeof te_enums[0]; i++) {
        if (strcmp(te_enums[i].event, event) != 0 ||
            strcmp(te_enums[i].field, t->field->name) != 0)
            continue;
        if (!te_enums[i].map) return 1;
        char buf[256];
        const char *name = gcs_map_lookup(te_enums[i].map, t->v.u, buf, sizeof buf);
        return name && strcmp(name, shown) == 0 ? 1 : 0;
    }
    return -1;
}

/* Payload fields TraceEvent's XML leaves out (oracle-all lists them). */
static bool is_unlisted_xml_field(const char *event, const char *name)
{
    if (is_newer_manifest_field(event, name))
        return true;
    static const struct { const char *event, *name; } u[] = {
        {"GC/GlobalHeapHistory", "PauseMode"},
        {"GC/GlobalHeapHistory", "MemoryPressure"},
        {"GC/GlobalHeapHistory", "CondemnReasons0"},
        {"GC/GlobalHeapHistory", "CondemnReasons1"},
        /* TplEventSource's TaskScheduled has it since .NET Framework 4.5;
         * TraceEvent's TPL parser predates it. */
        {"TaskScheduled/Send", "appDomain"},
    };
    for (size_t i = 0; i < sizeof u / sizeof u[0]; i++)
        if (strcmp(u[i].event, event) == 0 && strcmp(u[i].name, name) == 0) return true;
    /* The module events' one template (ModuleLoad, ModuleUnload,
     * ModuleDCStart, ModuleDCStop) shows no native PDB fields. */
    return strncmp(event, "Loader/Module", 13) == 0 && strncmp(name, "NativePdb", 9) == 0;
}

static bool is_rewritten_attr(const char *event, const char *name)
{
    return (strcmp(name, "MethodFlags") == 0 && strncmp(event, "Method/", 7) == 0) ||
           (strcmp(event, "GC/SuspendEEStart") == 0 && strcmp(name, "Count") == 0) ||
           (strcmp(event, "GC/Join") == 0 && strcmp(name, "ID") == 0) ||
           (strcmp(event, "GC/PerHeapHistory") == 0 &&
            (strcmp(name, "CompactMechanisms") == 0 || strcmp(name, "ExpandMechanisms") == 0));
}

static void guid_text(const uint8_t *b, char *out, size_t cap, bool dashes)
{
    snprintf(out, cap,
             dashes ? "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x"
                    : "%02x%02x%02x%02x%02x%02x%02x%02x%02x%02x%02x%02x%02x%02x%02x%02x",
             b[3], b[2], b[1], b[0], b[5], b[4], b[7], b[6], b[8], b[9], b[10], b[11], b[12],
             b[13], b[14], b[15]);
}

/* The module events' XML leaves out a managed PDB signature of zeros, an
 * age of 0 and an empty build path (ModuleLoadUnloadTraceData.ToXml). */
static bool module_pdb_field_left_out(const char *event, const char *name, const char *text)
{
    if (strncmp(event, "Loader/Module", 13) != 0 || !text)
        return false;
    return (strcmp(name, "ManagedPdbSignature") == 0 &&
            strcmp(text, "00000000-0000-0000-0000-000000000000") == 0) ||
           (strcmp(name, "ManagedPdbAge") == 0 && strcmp(text, "0") == 0) ||
           (strcmp(name, "ManagedPdbBuildPath") == 0 && strcmp(text, "\"\"") == 0);
}

static void compare_first_event(const char *label, const gcs_event *ev, const bentry *b)
{
    const char *event = ev->type->name;
    top_walk w = {0};
    gcs_error err;
    gcs_error_clear(&err);
    CHECK_EQ_INT(gcs_payload_walk(ev, top_visit, &w, &err), GCS_OK);
    bool unnamed = strncmp(b->key + strlen(b->provider) + 1, "EventID(", 8) == 0;
    bool *used = calloc(w.n + 1, sizeof *used);
    for (size_t k = 0; k < b->nattrs; k++) {
        const battr *a = &b->attrs[k];
        char buf[64];
        if (strcmp(a->name, "MSec") == 0) {
            snprintf(buf, sizeof buf, "%.4f", ev->msec);
            const char *s = a->value;
            while (*s == ' ') s++;
            if (strcmp(buf, s) != 0) {
                /* Half-way between two ten-thousandths: see msec-rounding. */
                if (fabs(ev->msec - strtod(s, NULL)) <= 0.00005 + 1e-9) {
                    rules[R_MSEC_ROUNDING].uses++;
                } else {
                    fprintf(stderr, "%s: %s first MSec ours %s TraceEvent %s\n", label, b->key,
                            buf, s);
                    CHECK(!"first event MSec");
                }
            }
            continue;
        }
        if (strcmp(a->name, "PID") == 0) {
            CHECK_EQ_U64(ev->pid, strtoull(a->value, NULL, 10));
            continue;
        }
        if (strcmp(a->name, "TID") == 0) {
            CHECK_EQ_U64(ev->tid, strtoull(a->value, NULL, 10));
            continue;
        }
        if (strcmp(a->name, "ActivityID") == 0 || strcmp(a->name, "RelatedActivityID") == 0) {
            const uint8_t *id = a->name[0] == 'A' ? ev->activity_id : ev->related_activity_id;
            char g1[64], g2[64];
            guid_text(id, g1, sizeof g1, false);
            guid_text(id, g2, sizeof g2, true);
            if (strcasecmp(a->value, g1) != 0 && strcasecmp(a->value, g2) != 0) {
                fprintf(stderr, "%s: %s %s ours %s TraceEvent %s\n", label, b->key, a->name, g2,
                        a->value);
                CHECK(!"activity id");
            }
            continue;
        }
        if (is_header_attr(a->name)) continue;
        battrs_compared++;
        char ours_name[128];
        if (!rename_field(event, a->name, ours_name, sizeof ours_name))
            snprintf(ours_name, sizeof ours_name, "%s", a->name);
        if (strcmp(event, "GC/GlobalHeapHistory") == 0 && strcmp(a->name, "Times") == 0)
            snprintf(ours_name, sizeof ours_name, "Values"); /* Times = Values[].Time */
        size_t f = w.n;
        for (size_t i = 0; i < w.n; i++)
            if (!used[i] && strcmp(w.v[i].field->name, ours_name) == 0) {
                f = i;
                break;
            }
        if (f < w.n) {
            used[f] = true;
            if (display_matches(&w.v[f], a->value)) {
                battrs_equal++;
                continue;
            }
            if (is_rewritten_attr(event, a->name)) {
                brules[B_DISPLAY_REWRITE].uses++;
                continue;
            }
            if (te_enum_check(event, &w.v[f], a->value) == 1) {
                brules[B_TE_ENUM].uses++;
                continue;
            }
        } else if (is_derived_attr(event, a->name)) {
            brules[B_DERIVED_ATTRIBUTE].uses++;
            continue;
        } else if (strcmp(event, "GC/HeapStats") == 0 && ev->type->version < 2 &&
                   (strcmp(a->name, "GenerationSize4") == 0 ||
                    strcmp(a->name, "TotalPromotedSize4") == 0)) {
            unsigned long long u;
            long long i;
            CHECK(display_int(a->value, &u, &i) && u == 0);
            brules[B_NEWER_FIELD_ZERO].uses++;
            continue;
        }
        fprintf(stderr, "%s: %s first event: %s=\"%s\" %s\n", label, b->key, a->name, a->value,
                f < w.n ? (w.v[f].text.p ? w.v[f].text.p : "?") : "(no such field of ours)");
        CHECK(!"first event attribute agrees");
    }
    /* our fields TraceEvent does not show */
    for (size_t i = 0; i < w.n; i++) {
        if (used[i]) continue;
        battrs_compared++;
        if (unnamed) {
            rules[R_UNNAMED_EVENT_FIELDS].uses++;
            continue;
        }
        const char *name = w.v[i].field->name;
        if (strcmp(name, "Reserved1") == 0 || is_unlisted_xml_field(event, name) ||
            (strncmp(event, "Loader/Module", 13) == 0 && strcmp(name, "ClrInstanceID") == 0) ||
            (strcmp(event, "Thread/Sample") == 0 && strcmp(name, "Type") == 0) ||
            (strcmp(event, "Method/ILToNativeMapDCStop") == 0 && w.v[i].is_array) ||
            (strcmp(event, "Type/BulkType") == 0 && w.v[i].is_struct_array) ||
            (strcmp(event, "GC/PerHeapHistory") == 0 && w.v[i].is_struct_array) ||
            (strcmp(event, "GC/LOHCompact") == 0 && w.v[i].is_struct_array) ||
            (strcmp(event, "GC/FitBucketInfo") == 0 && w.v[i].is_struct_array) ||
            (strncmp(event, "GC/Bulk", 7) == 0 && w.v[i].is_struct_array) ||
            module_pdb_field_left_out(event, name, w.v[i].text.p)) {
            brules[B_NOT_LISTED].uses++;
            continue;
        }
        fprintf(stderr, "%s: %s first event: our field %s=%s not shown by TraceEvent\n", label,
                b->key, name, w.v[i].text.p ? w.v[i].text.p : "");
        CHECK(!"every field of ours is shown");
    }
    for (size_t i = 0; i < w.n; i++) free(w.v[i].text.p);
    free(w.v);
    free(used);
}

/* The baseline name of our event (TraceEvent's naming). */
static void baseline_key(const gcs_event *ev, bool tracelog, char *out, size_t cap)
{
    const struct name_mapping *nm = find_name_mapping(ev->type->provider, ev->type->event_id);
    /* EventPipeEventSource without the sample profiler's parser names the
     * sample from its metadata (traceevent-parser-name); TraceLog as we
     * do. */
    if (!tracelog && strcmp(ev->type->name, "Thread/Sample") == 0 && is_parser_name(ev))
        snprintf(out, cap, "%s/EventWriteString", ev->type->provider);
    else if (nm && strcmp(nm->our_name, ev->type->name) == 0)
        snprintf(out, cap, "%s/%s", ev->type->provider, nm->traceevent_name);
    else
        snprintf(out, cap, "%s/%s", ev->type->provider, ev->type->name);
}

static void compare_dump(const char *trace_path, const char *dump_path, const char *label,
                         bool tracelog, bool first_events)
{
    char *text = te_read_text(dump_path, NULL);
    if (!text) {
        printf("skipped: %s (%s not present)\n", label, dump_path);
        return;
    }
    char *p = text;
    if ((unsigned char)p[0] == 0xEF && (unsigned char)p[1] == 0xBB && (unsigned char)p[2] == 0xBF)
        p += 3; /* UTF-8 BOM */
    size_t n = 0, cap = 64;
    bentry *b = malloc(cap * sizeof *b);
    while (*p) {
        char *nl = strchr(p, '\n');
        char *end = nl ? nl : p + strlen(p);
        if (end > p && end[-1] == '\r') end[-1] = ' ';
        if (n == cap) b = realloc(b, (cap *= 2) * sizeof *b);
        if (parse_bentry(p, end, &b[n])) n++;
        p = nl ? nl + 1 : end;
    }
    our_reader o = {0};
    if (!our_open(&o, trace_path)) {
        printf("skipped: %s (%s not present)\n", label, trace_path);
        bentries_free(b, n);
        free(text);
        return;
    }
    /* our names not in the dump */
    char extra[64][300];
    unsigned long long extra_count[64];
    size_t nextra = 0;
    const gcs_event *ev;
    gcs_error err;
    gcs_error_clear(&err);
    gcs_status st;
    unsigned long long events = 0;
    while ((st = gcs_reader_next(o.r, &ev, &err)) == GCS_OK) {
        char key[300];
        baseline_key(ev, tracelog, key, sizeof key);
        events++;
        size_t i;
        for (i = 0; i < n; i++)
            if (strcmp(b[i].key, key) == 0) break;
        if (i < n) {
            b[i].ours_count++;
            if (!b[i].seen && first_events) {
                b[i].seen = true;
                if (strcmp(key + strlen(ev->type->provider) + 1, ev->type->name) != 0)
                    brules[B_NAME_MAPPED].uses++;
                compare_first_event(label, ev, &b[i]);
            }
            continue;
        }
        size_t x;
        for (x = 0; x < nextra; x++)
            if (strcmp(extra[x], key) == 0) break;
        if (x == nextra && nextra < 64) {
            snprintf(extra[nextra], sizeof extra[nextra], "%s", key);
            extra_count[nextra++] = 0;
        }
        if (x < 64) extra_count[x]++;
    }
    CHECK_EQ_INT(st, GCS_END);
    size_t names_equal = 0;
    for (size_t i = 0; i < n; i++) {
        if (b[i].ours_count != b[i].count) {
            fprintf(stderr, "%s: %s count ours %llu TraceEvent %llu\n", label, b[i].key,
                    b[i].ours_count, b[i].count);
            CHECK(!"count per event name");
        } else {
            names_equal++;
        }
    }
    for (size_t x = 0; x < nextra; x++) {
        bool consumed = tracelog && strncmp(extra[x], RT_RUNDOWN "/", strlen(RT_RUNDOWN) + 1) == 0 &&
                        (strcmp(extra[x] + strlen(RT_RUNDOWN) + 1, "Method/DCStopVerbose") == 0 ||
                         strcmp(extra[x] + strlen(RT_RUNDOWN) + 1, "Method/ILToNativeMapDCStop") == 0);
        bool dynamic = strcmp(extra[x], RT "/GC/DynamicTraceEvent") == 0;
        if (consumed) brules[B_TRACELOG_CONSUMED].uses += extra_count[x];
        else if (dynamic) brules[B_DYNAMIC_EVENT].uses += extra_count[x];
        else {
            fprintf(stderr, "%s: we deliver %llu %s, TraceEvent lists none\n", label,
                    extra_count[x], extra[x]);
            CHECK(!"every name of ours is listed");
        }
    }
    printf("%s: %zu names, %zu with equal counts, %llu events of ours, %zu names only ours "
           "(explained by rules)\n",
           label, n, names_equal, events, nextra);
    our_close(&o);
    bentries_free(b, n);
    free(text);
}

static void test_shared_baselines(void)
{
    if (!file_exists(SHARED_TRACES)) SKIP("../shared/traces/perfview not present");
    for (size_t i = 0; i < sizeof shared_traces / sizeof shared_traces[0]; i++) {
        char trace[256], dump[300];
        snprintf(trace, sizeof trace, SHARED_TRACES "%s", shared_traces[i]);
        snprintf(dump, sizeof dump, "%s.baseline.txt", trace);
        compare_dump(trace, dump, shared_traces[i], true, true);
    }
}

static void test_fixture_dumps(void)
{
    for (size_t i = 0; i < sizeof fixtures / sizeof fixtures[0]; i++) {
        char trace[256], dump[300];
        snprintf(trace, sizeof trace, "tests/data/%s.nettrace", fixtures[i]);
        snprintf(dump, sizeof dump, "tests/data/%s.oracle-dump.txt", fixtures[i]);
        compare_dump(trace, dump, fixtures[i], false, true);
    }
}

/* The naming fixtures (scripts/record-names-fixtures.sh): names and counts
 * against TraceLog's dump, every event against EventPipeEventSource's. */
static const struct {
    const char *name;
    bool first_events; /* false: the synthetic TPL payloads are not TPL's
                        * layout, which TraceLog's parser reads regardless */
} names_fixtures[] = {{"net10-names", true}, {"synthetic-v4", false}};

static void test_names_fixtures(void)
{
    for (size_t i = 0; i < sizeof names_fixtures / sizeof names_fixtures[0]; i++) {
        char trace[256], dump[300];
        const char *name = names_fixtures[i].name;
        snprintf(trace, sizeof trace, "tests/data/names/%s.nettrace", name);
        snprintf(dump, sizeof dump, "%s.oracle-tracelog.txt", trace);
        compare_dump(trace, dump, name, true, names_fixtures[i].first_events);
        snprintf(dump, sizeof dump, "%s.oracle-all.txt", trace);
        compare_all(trace, dump, name);
    }
}

/* Uncompressed rows of sizes not multiple of 4 (scripts/record-rows-fixtures.sh):
 * nettrace V4 back to back, netperf V3 back to back and padded inside
 * EventSize; every event and value as TraceEvent reads them. (The padded
 * nettrace, which TraceEvent cannot read: test_nettrace_v5.) */
static void test_rows_fixtures(void)
{
    static const char *names[] = {"uncompressed-v4.nettrace", "uncompressed-v3.netperf",
                                  "uncompressed-padded-v3.netperf"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        char trace[256], oracle[300];
        snprintf(trace, sizeof trace, "tests/data/rows/%s", names[i]);
        snprintf(oracle, sizeof oracle, "%s.oracle-all.txt", trace);
        compare_all(trace, oracle, names[i]);
    }
}

/* Netperf V1 (providers by GUID): TraceEvent 4.0.0 refuses the format, so
 * the expected names are those of the PerfView baseline of
 * eventpipe-dotnetcore2.0-linux-objver1.netperf (TraceLog of 2017, a real
 * .NET Core 2.0 trace with the same providers), except IncreaseMemoryPressure,
 * which that baseline calls "GC" and TraceEvent 4.0.0 EventID(200)
 * (name_mappings). tests/data/names/synthetic-v1.netperf comes from
 * tests/tools/names_synthetic --netperf-v1. */
static void test_netperf_v1_names(void)
{
    static const char *expected[] = {
        "Microsoft-Windows-DotNETRuntime/GC/Start",
        "Microsoft-Windows-DotNETRuntime/GC/IncreaseMemoryPressure",
        "Microsoft-DotNETCore-SampleProfiler/Thread/Sample",
        "System.Threading.Tasks.TplEventSource/TaskScheduled/Send",
        "System.Threading.Tasks.TplEventSource/TaskExecute/Start",
        "System.Threading.Tasks.TplEventSource/TaskWait/Send",
        "Provider(f150d8fb-960c-5e38-a69d-49bae6f97289)/Request/Start",
    };
    enum { N = sizeof expected / sizeof expected[0] };
    our_reader o = {0};
    CHECK(our_open(&o, "tests/data/names/synthetic-v1.netperf"));
    if (!o.r) return;
    const gcs_event *ev;
    gcs_error err;
    gcs_error_clear(&err);
    gcs_status st;
    size_t i = 0;
    while ((st = gcs_reader_next(o.r, &ev, &err)) == GCS_OK) {
        char key[300];
        snprintf(key, sizeof key, "%s/%s", ev->type->provider, ev->type->name);
        CHECK_EQ_STR(key, expected[i % N]);
        CHECK(ev->type->known);
        i++;
    }
    CHECK_EQ_INT(st, GCS_END);
    CHECK_EQ_U64(i, 2 * N);
    printf("synthetic-v1: %zu events, names as TraceEvent's V1 baseline\n", i);
    our_close(&o);
}

static void print_totals(void)
{
    printf("totals: %llu events compared, %llu values compared, %llu equal, %llu unexplained\n",
           grand.events, grand.values, grand.equal, grand.unexplained);
    for (int r = 0; r < R_COUNT; r++)
        printf("exception %-28s %llu\n", rules[r].name, rules[r].uses);
    printf("first events: %llu attributes compared, %llu equal\n", battrs_compared,
           battrs_equal);
    for (int r = 0; r < B_COUNT; r++)
        printf("first-event exception %-32s %llu\n", brules[r].name, brules[r].uses);
}

/* test_te_agreement TRACE ORACLE-ALL ...: comparison 3 on any trace,
 * against `oracle dump --all TRACE` saved in ORACLE-ALL
 * (scripts/check-oracle.sh --events). A missing dump is a failure here,
 * not a skip. */
static int compare_given(const char *trace, const char *oracle_all)
{
    if (!file_exists(oracle_all)) {
        fprintf(stderr, "cannot read %s\n", oracle_all);
        check_failed_in_test = 1;
    } else {
        compare_all(trace, oracle_all, trace);
    }
    printf("%s %s: every event against TraceEvent's\n", check_failed_in_test ? "FAIL" : "same",
           trace);
    return !check_failed_in_test;
}

int main(int argc, char **argv)
{
    if (argc > 1)
        return check_run_pairs(argc, argv, "test_te_agreement [TRACE ORACLE-ALL]...",
                               compare_given);
    RUN(test_shared_baselines);
    RUN(test_fixture_dumps);
    RUN(test_fixtures_every_event);
    RUN(test_shared_every_event);
    RUN(test_ctf_every_event);
    RUN(test_names_fixtures);
    RUN(test_rows_fixtures);
    RUN(test_netperf_v1_names);
    print_totals();
    return check_report("test_te_agreement");
}
