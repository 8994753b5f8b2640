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
    {RT_PRIVATE, 26, "EventID(26)", "GC/BGC1stSweepStop",
     "TraceEvent 4.0.0's private parser has no template for BGC1stSweepEnd (id 26)"},
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
    R_METHOD_FLAGS_MASKED,
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
                         "MSec differs by 0.001 in the third decimal: both round the same "
                         "time, computed in a different order, at a half-microsecond"},
    [R_FIELD_RENAMED] = {"field-renamed",
                         "TraceEvent names the field differently (field_renames); the values "
                         "are compared and equal"},
    [R_SIGNED_COUNT] = {"uint32-shown-signed",
                        "GC/SuspendEEStart Count and GC/Join ID are UInt32 in the manifest; "
                        "TraceEvent reads them as Int32, so 0xFFFFFFFF shows as -1 (checked: "
                        "same 32 bits)"},
    [R_METHOD_FLAGS_MASKED] = {"method-flags-masked",
                               "TraceEvent's MethodFlags keeps the low 4 flag bits only (the "
                               "tier bits 7..9 go to OptimizationTier; checked: ours & 0xF)"},
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
                           "is 0 (checked)"},
    [R_NULL_FOR_ABSENT_FIELD] = {"null-for-absent-field",
                                 "TraceEvent lists a field of a newer event version as null; "
                                 "this version has no such field"},
    [R_ARRAY_NOT_LISTED] = {"array-not-listed",
                            "an array TraceEvent does not expose as payload values "
                            "(GlobalHeapHistory Times, ILToNativeMap offsets, BulkType "
                            "TypeParameters): only we list it"},
    [R_FIELD_NOT_LISTED] = {"field-not-listed",
                            "a payload field TraceEvent's template leaves out of PayloadNames "
                            "(Reserved1 of Loader module events, ClrInstanceID of "
                            "ModuleDCStop v2)"},
    [R_CHAR_ARRAY_AS_STRING] = {"char-array-as-string",
                                "an EventSource char[] argument: TraceEvent shows the UTF-16 "
                                "units as one string, we as an array (checked: same characters)"},
    [R_DYNAMIC_EVENT_NOT_LISTED] = {"gc-dynamic-event-not-listed",
                                    "GC/DynamicTraceEvent (runtime id 39): TraceEvent's CLR "
                                    "parser hands these to its GCDynamic sub-parser, whose "
                                    "events the oracle's callbacks never receive, so "
                                    "oracle-all has no line for them"},
};

/* Fields TraceEvent names differently: (event, their name, our name). A
 * name with "[]" matches any element index at that place. */
static const struct field_rename {
    const char *event, *theirs, *ours;
} field_renames[] = {
    {"GC/Join", "ID", "JoinID"},
    {"GC/MarkWithType", "Promoted", "Bytes"},
    {"Type/BulkType", "Values[].TypeName", "Values[].Name"},
    {"GC/PerHeapHistory", "GenData[].FreeListSpaceBefore", "Values[].FreeListBefore"},
    {"GC/PerHeapHistory", "GenData[].FreeObjSpaceBefore", "Values[].FreeObjBefore"},
    {"GC/PerHeapHistory", "GenData[].FreeListSpaceAfter", "Values[].FreeListAfter"},
    {"GC/PerHeapHistory", "GenData[].FreeObjSpaceAfter", "Values[].FreeObjAfter"},
    {"GC/PerHeapHistory", "GenData[].Budget", "Values[].NewAllocation"},
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
            unsigned long long vals[] = {obj_before, frag, obj_after, out_bytes,
                                         obj_before ? (unsigned long long)(out_bytes * 100.0 /
                                                                           obj_before)
                                                    : 0};
            snprintf(out, cap, "%llu", vals[p]);
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
    if (strcmp(event, "Method/DCStopVerbose") == 0 || strcmp(event, "Method/LoadVerbose") == 0 ||
        strcmp(event, "Method/UnloadVerbose") == 0 || strcmp(event, "Method/DCStartVerbose") == 0) {
        unsigned long long flags;
        if (kind == DIFF_VALUE && strcmp(field, "MethodFlags") == 0 &&
            text_is_u64(ours, 0) == false && get_u64(all_ours, "MethodFlags", &flags))
            return text_is_u64(theirs, flags & 0xF) ? R_METHOD_FLAGS_MASKED : -1;
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
        int k = -1;
        if (u == 0) k = 1024;
        else if ((u & 0x80000000ull) && bits && !(bits & (bits - 1)))
            for (k = 0; !(bits & (1ull << k)); k++) {}
        return k >= 0 && text_is_u64(theirs, (unsigned long long)k) ? R_MECHANISM_INDEX : -1;
    }
    if (kind == DIFF_ORACLE_ONLY && strcmp(theirs, "null") == 0) return R_NULL_FOR_ABSENT_FIELD;
    if (kind == DIFF_OURS_ONLY) {
        char idx[16];
        if ((strcmp(event, "GC/GlobalHeapHistory") == 0 &&
             match_indexed("Values[].Time", field, idx, sizeof idx)) ||
            (strcmp(event, "Method/ILToNativeMapDCStop") == 0 &&
             (strcmp(field, "ILOffsets") == 0 || strcmp(field, "NativeOffsets") == 0)) ||
            (strcmp(event, "Type/BulkType") == 0 &&
             match_indexed("Values[].TypeParameters", field, idx, sizeof idx)))
            return R_ARRAY_NOT_LISTED;
        if ((strncmp(event, "Loader/", 7) == 0 && strcmp(field, "Reserved1") == 0) ||
            (strcmp(event, "Loader/ModuleDCStop") == 0 && version == 2 &&
             strcmp(field, "ClrInstanceID") == 0))
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
    if (sscanf(line, "%lf pid=%u tid=%llu %299s id=%u v=%u%n", &o->msec, &o->pid, &o->tid, pn,
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
    for (size_t i = 0; i < theirs->n; i++) {
        char name[512];
        bool renamed = rename_field(event, theirs->v[i].name, name, sizeof name);
        if (!renamed) rename_oracle_field(event, theirs->v[i].name, name, sizeof name);
        const te_field *f = NULL;
        for (size_t k = 0; k < ours->n; k++)
            if (!consumed[k] && strcmp(ours->v[k].name, name) == 0) {
                consumed[k] = true;
                f = &ours->v[k];
                break;
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
        if (m->ms != ms) rules[R_MSEC_ROUNDING].uses++;
        CHECK_EQ_U64(ev->type->version, m->version);
        if (strcmp(m->name, ev->type->name) != 0) {
            const struct name_mapping *nm = find_name_mapping(m->provider, m->id);
            if (nm && strcmp(nm->traceevent_name, m->name) == 0 &&
                strcmp(nm->our_name, ev->type->name) == 0) {
                rules[R_EVENT_NAME_MAPPED].uses++;
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
    "gen0size-small", "objects-allocsampled", "objects-movement", "probe-net10",
    "server",         "wks-concurrent",       "wks-nonconcurrent",
};

static const char *shared_traces[] = {
    "eventpipe-dotnetcore2.1-linux-x64-objver3.netperf",
    "eventpipe-dotnetcore5.0-win-x64-arraytypes.nettrace",
    "eventpipe-dotnetcore6.0-win-x64-executioncheckpoints.nettrace",
};

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

static void test_shared_every_event(void)
{
    if (!file_exists(SHARED_TRACES)) SKIP("../shared/traces/perfview not present");
    for (size_t i = 0; i < sizeof shared_traces / sizeof shared_traces[0]; i++) {
        char trace[256], base[256], oracle[300];
        snprintf(trace, sizeof trace, SHARED_TRACES "%s", shared_traces[i]);
        snprintf(base, sizeof base, "tests/data/shared/%s", shared_traces[i]);
        oracle_all_path(base, oracle, sizeof oracle);
        compare_all(trace, oracle, shared_traces[i]);
    }
}

static void print_totals(void)
{
    printf("totals: %llu events compared, %llu values compared, %llu equal, %llu unexplained\n",
           grand.events, grand.values, grand.equal, grand.unexplained);
    for (int r = 0; r < R_COUNT; r++)
        printf("exception %-28s %llu\n", rules[r].name, rules[r].uses);
}

int main(void)
{
    RUN(test_fixtures_every_event);
    RUN(test_shared_every_event);
    print_totals();
    return check_report("test_te_agreement");
}
