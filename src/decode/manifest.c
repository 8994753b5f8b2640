/*
 * decode/manifest.c - lookups in the generated runtime-provider table and
 * TraceEvent's naming rules for events.
 */
#include "decode/manifest.h"

#include <assert.h>
#include <stdio.h>
#include <string.h>

const char *const gcs_builtin_provider_names[GCS_PROV_COUNT] = {
    "Microsoft-Windows-DotNETRuntime",
    "Microsoft-Windows-DotNETRuntimeRundown",
    "Microsoft-Windows-DotNETRuntimePrivate",
};

static int provider_index(const char *provider)
{
    if (!provider)
        return -1;
    for (int i = 0; i < GCS_PROV_COUNT; i++)
        if (strcmp(provider, gcs_builtin_provider_names[i]) == 0)
            return i;
    return -1;
}

bool gcs_builtin_provider(const char *provider)
{
    return provider_index(provider) >= 0;
}

/* Orders (provider, id, version) keys as the generator sorts the table. */
static int compare_key(const gcs_builtin_event *e, int provider, uint32_t id, uint32_t version)
{
    if (e->provider != provider)
        return e->provider < provider ? -1 : 1;
    if (e->event_id != id)
        return e->event_id < id ? -1 : 1;
    if (e->version != version)
        return e->version < version ? -1 : 1;
    return 0;
}

const gcs_builtin_event *gcs_builtin_lookup(const char *provider, uint32_t event_id,
                                            uint32_t version)
{
    int prov = provider_index(provider);
    if (prov < 0)
        return NULL;
    /* Last entry <= (prov, id, version), by binary search. */
    size_t lo = 0, hi = gcs_builtin_event_count; /* answer in [lo, hi) */
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (compare_key(&gcs_builtin_events[mid], prov, event_id, version) <= 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == 0)
        return NULL;
    const gcs_builtin_event *e = &gcs_builtin_events[lo - 1];
    if (e->provider != prov || e->event_id != event_id)
        return NULL; /* no version of this event at or below the one asked */
    assert(e->version <= version);
    return e;
}

const gcs_builtin_map *gcs_builtin_map_find(const char *map_name)
{
    if (!map_name)
        return NULL;
    size_t lo = 0, hi = gcs_builtin_map_count;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int c = strcmp(gcs_builtin_maps[mid].name, map_name);
        if (c == 0)
            return &gcs_builtin_maps[mid];
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return NULL;
}

/*
 * Events TraceEvent names with a parser of its own rather than from the
 * trace's metadata. TraceLog (what PerfView and the PerfView baselines use)
 * registers these parsers for every trace; they claim events by provider
 * and id. Their task and opcode names come from the providers' ETW
 * manifests, which EventPipe metadata never carries (it has the event's
 * method name and at most a numeric opcode), so they cannot be derived
 * from the trace. Checked against TraceEvent (microsoft/perfview
 * SampleProfilerTraceEventParser.cs, TplTraceEventParser.cs) and, through
 * the oracle's TraceLog dump, against real .NET 10 traces
 * (tests/data/names/). Providers whose events TraceLog leaves to the
 * metadata (FrameworkEventSource, any other EventSource) are not here.
 */
#define SAMPLE_PROFILER "Microsoft-DotNETCore-SampleProfiler"
#define TPL "System.Threading.Tasks.TplEventSource"

static const gcs_map_entry thread_sample_type_entries[] = {
    {0, "Error"}, {1, "External"}, {2, "Managed"},
};
static const gcs_map_entry causality_status_entries[] = {
    {0, "Started"}, {1, "Completed"}, {2, "Canceled"}, {3, "Error"},
};
static const gcs_map_entry causality_relation_entries[] = {
    {0, "AssignDelegate"}, {1, "Join"}, {2, "Choice"}, {3, "Cancel"}, {4, "Error"},
};
static const gcs_map_entry synchronous_work_entries[] = {
    {0, "CompletionNotification"}, {1, "ProgressNotification"}, {2, "Execution"},
};
static const gcs_map_entry fork_join_entries[] = {
    {1, "ParallelInvoke"}, {2, "ParallelFor"}, {3, "ParallelForEach"},
};
static const gcs_map_entry task_wait_behavior_entries[] = {
    {1, "Synchronous"}, {2, "Asynchronous"},
};

#define MAP(name, entries) {name, false, entries, sizeof entries / sizeof entries[0]}

/* Maps of the parsers' enums (TraceEvent's enum type names), looked up
 * after the generated ones. */
static const gcs_builtin_map te_parser_maps[] = {
    MAP("AsyncCausalityStatus", causality_status_entries),
    MAP("CausalityRelation", causality_relation_entries),
    MAP("CausalitySynchronousWork", synchronous_work_entries),
    MAP("ClrThreadSampleType", thread_sample_type_entries),
    MAP("ForkJoinOperationType", fork_join_entries),
    MAP("TaskWaitBehavior", task_wait_behavior_entries),
};

static const gcs_field thread_sample_fields[] = {
    {.name = "Type", .type = GCS_T_I32, .repeat = GCS_REPEAT_ONE, .map_name = "ClrThreadSampleType"},
};

/* Grouped by provider, in id order. */
static const gcs_te_parser_event te_parser_events[] = {
    /* The runtime's sampler writes id 0 with no name and no fields: the
     * payload is one int32, the kind of code the thread was in. */
    {SAMPLE_PROFILER, 0, "Thread", 1, "Sample", thread_sample_fields, 1, NULL, NULL},
    /* .NET Core 2.0 only (later runtimes put stacks in the event headers). */
    {SAMPLE_PROFILER, 1, "Thread", 2, "StackWalk", NULL, 0, NULL, NULL},
    {TPL, 1, "Loop", 1, "Start", NULL, 0, "OperationType", "ForkJoinOperationType"},
    {TPL, 2, "Loop", 2, "Stop", NULL, 0, NULL, NULL},
    {TPL, 3, "Invoke", 1, "Start", NULL, 0, "OperationType", "ForkJoinOperationType"},
    {TPL, 4, "Invoke", 2, "Stop", NULL, 0, NULL, NULL},
    {TPL, 5, "ForkJoin", 1, "Start", NULL, 0, NULL, NULL},
    {TPL, 6, "ForkJoin", 2, "Stop", NULL, 0, NULL, NULL},
    {TPL, 7, "TaskScheduled", 9, "Send", NULL, 0, NULL, NULL},
    {TPL, 8, "TaskExecute", 1, "Start", NULL, 0, NULL, NULL},
    {TPL, 9, "TaskExecute", 2, "Stop", NULL, 0, NULL, NULL},
    {TPL, 10, "TaskWait", 9, "Send", NULL, 0, "Behavior", "TaskWaitBehavior"},
    {TPL, 11, "TaskWait", 2, "Stop", NULL, 0, NULL, NULL},
    {TPL, 12, "AwaitTaskContinuationScheduled", 9, "Send", NULL, 0, NULL, NULL},
    {TPL, 13, "TaskWaitContinuationComplete", 0, "", NULL, 0, NULL, NULL},
    {TPL, 14, "TraceOperation", 1, "Start", NULL, 0, NULL, NULL},
    {TPL, 15, "TraceOperation", 2, "Stop", NULL, 0, "Status", "AsyncCausalityStatus"},
    {TPL, 16, "TraceOperationRelation", 0, "", NULL, 0, "Relation", "CausalityRelation"},
    {TPL, 17, "TraceSynchronousWork", 1, "Start", NULL, 0, "Work", "CausalitySynchronousWork"},
    {TPL, 18, "TraceSynchronousWork", 2, "Stop", NULL, 0, "Work", "CausalitySynchronousWork"},
    {TPL, 27, "IncompleteAsyncMethod", 0, "", NULL, 0, NULL, NULL},
};

const gcs_te_parser_event *gcs_te_parser_lookup(const char *provider, uint32_t event_id)
{
    if (!provider)
        return NULL;
    size_t n = sizeof te_parser_events / sizeof te_parser_events[0];
    for (size_t i = 0; i < n; i++)
        if (te_parser_events[i].event_id == event_id &&
            strcmp(te_parser_events[i].provider, provider) == 0)
            return &te_parser_events[i];
    return NULL;
}

static const gcs_builtin_map *te_parser_map_find(const char *map_name)
{
    if (!map_name)
        return NULL;
    for (size_t i = 0; i < sizeof te_parser_maps / sizeof te_parser_maps[0]; i++)
        if (strcmp(te_parser_maps[i].name, map_name) == 0)
            return &te_parser_maps[i];
    return NULL;
}

/* Appends s to buf (capacity cap, current length *len); false if it does not fit. */
static bool append(char *buf, size_t cap, size_t *len, const char *s)
{
    size_t n = strlen(s);
    if (n >= cap - *len)
        return false;
    memcpy(buf + *len, s, n + 1);
    *len += n;
    return true;
}

const char *gcs_map_lookup(const char *map_name, uint64_t value, char *buf, size_t cap)
{
    const gcs_builtin_map *m = gcs_builtin_map_find(map_name);
    if (!m)
        m = te_parser_map_find(map_name);
    if (!m)
        return NULL;
    if (!m->is_bitmap || value == 0) {
        for (uint32_t i = 0; i < m->entry_count; i++)
            if (m->entries[i].value == value)
                return m->entries[i].name;
        /* TraceEvent's flag enums all name 0 "None". */
        return (m->is_bitmap && value == 0) ? "None" : NULL;
    }
    /* Bit map: like .NET's [Flags] Enum.ToString(), every set bit must be
     * named, else the number is shown. Names join in increasing value. */
    if (!buf || cap == 0)
        return NULL;
    uint64_t covered = 0;
    size_t len = 0;
    buf[0] = '\0';
    for (uint32_t i = 0; i < m->entry_count; i++) {
        uint64_t bits = m->entries[i].value;
        if (bits == 0 || (value & bits) != bits)
            continue;
        if ((len > 0 && !append(buf, cap, &len, ", ")) ||
            !append(buf, cap, &len, m->entries[i].name))
            return NULL;
        covered |= bits;
    }
    if (covered != value)
        return NULL;
    return buf;
}

/* ETW's standard opcode names, as TraceEvent's TraceEventOpcode prints them. */
static const char *const opcode_names[] = {
    "Info", "Start", "Stop", "DataCollectionStart", "DataCollectionStop",
    "Extension", "Reply", "Resume", "Suspend", "Transfer",
};

static bool ends_with_ci(const char *s, size_t n, const char *suffix)
{
    size_t k = strlen(suffix);
    if (n < k)
        return false;
    for (size_t i = 0; i < k; i++) {
        char a = s[n - k + i], b = suffix[i];
        if (a >= 'A' && a <= 'Z')
            a = (char)(a - 'A' + 'a');
        if (b >= 'A' && b <= 'Z')
            b = (char)(b - 'A' + 'a');
        if (a != b)
            return false;
    }
    return true;
}

const char *gcs_event_display_name(const char *provider, uint32_t event_id, uint32_t version,
                                   const char *meta_name, uint32_t opcode, bool has_opcode,
                                   char *buf, size_t cap)
{
    assert(buf && cap > 0);
    /* TraceEvent dispatches runtime events to its own parsers by provider and
     * id, whatever name the metadata carries (V6 traces may carry one). */
    if (gcs_builtin_provider(provider)) {
        const gcs_builtin_event *e = gcs_builtin_lookup(provider, event_id, version);
        if (e) {
            snprintf(buf, cap, "%s", e->name);
            return buf;
        }
    }
    /* TraceLog's own parsers claim their providers' events by id, whatever
     * the metadata says (its name is the method's, "TaskWaitBegin"). */
    const gcs_te_parser_event *p = gcs_te_parser_lookup(provider, event_id);
    if (p) {
        if (p->opcode == 0 || !p->opcode_name[0])
            snprintf(buf, cap, "%s", p->task_name);
        else
            snprintf(buf, cap, "%s/%s", p->task_name, p->opcode_name);
        return buf;
    }
    if (!meta_name || !meta_name[0]) {
        /* TraceEvent: no task name -> the event id stands for the name. */
        if (event_id == 0)
            snprintf(buf, cap, "EventWriteString");
        else
            snprintf(buf, cap, "EventID(%u)", (unsigned)event_id);
        return buf;
    }
    size_t n = strlen(meta_name);
    if (!has_opcode) {
        if (ends_with_ci(meta_name, n, "Start"))
            opcode = 1;
        else if (ends_with_ci(meta_name, n, "Stop"))
            opcode = 2;
        else
            opcode = 0;
    }
    if (opcode == 1 && ends_with_ci(meta_name, n, "Start"))
        n -= 5;
    else if (opcode == 2 && ends_with_ci(meta_name, n, "Stop"))
        n -= 4;
    int len = n > (size_t)INT32_MAX ? INT32_MAX : (int)n;
    if (opcode == 0)
        snprintf(buf, cap, "%.*s", len, meta_name);
    else if (opcode < sizeof opcode_names / sizeof opcode_names[0])
        snprintf(buf, cap, "%.*s/%s", len, meta_name, opcode_names[opcode]);
    else
        snprintf(buf, cap, "%.*s/%u", len, meta_name, (unsigned)opcode);
    return buf;
}

/* Symbols whose manifest spelling follows neither task+opcode nor the
 * opcode alone: the display name of the event they stand for. */
static const struct {
    uint8_t provider;
    const char *symbol;
    const char *display_name;
} symbol_aliases[] = {
    {GCS_PROV_RUNTIME, "RuntimeInformationStart", "Runtime/Start"},
    {GCS_PROV_RUNTIME, "ExceptionThrown", "Exception/Start"},
    {GCS_PROV_RUNTIME, "ExceptionThrownStop", "Exception/Stop"},
    {GCS_PROV_RUNTIME, "EventSource", "EventSource"},
    {GCS_PROV_RUNDOWN, "RuntimeInformationDCStart", "Runtime/Start"},
    {GCS_PROV_PRIVATE, "MulticoreJit", "ClrMulticoreJit/Common"},
    {GCS_PROV_PRIVATE, "MulticoreJitMethodCodeReturned", "ClrMulticoreJit/MethodCodeReturned"},
    {GCS_PROV_PRIVATE, "PrvFinalizeObject", "GC/FinalizeObject"},
};

/* Does symbol equal a followed by b (either may be NULL: empty)? */
static bool is_concat(const char *symbol, const char *a, const char *b)
{
    size_t la = a ? strlen(a) : 0;
    if (la && strncmp(symbol, a, la) != 0)
        return false;
    return strcmp(symbol + la, b ? b : "") == 0;
}

/* How well symbol matches e's names: 3 task+opcode, 2 with the manifest's
 * Begin/End for Start/Stop, 1 opcode alone, 0 not at all. */
static int symbol_match(const gcs_builtin_event *e, const char *symbol)
{
    const char *op = e->opcode_name;
    if (is_concat(symbol, e->task_name, op))
        return 3;
    static const char *const respelled[][2] = {{"Start", "Begin"}, {"Stop", "End"}};
    size_t lop = strlen(op);
    for (size_t i = 0; i < 2; i++) {
        size_t lw = strlen(respelled[i][0]);
        if (lop < lw || strcmp(op + lop - lw, respelled[i][0]) != 0)
            continue;
        char buf[128];
        int n = snprintf(buf, sizeof buf, "%s%.*s%s", e->task_name, (int)(lop - lw), op,
                         respelled[i][1]);
        if (n > 0 && (size_t)n < sizeof buf && strcmp(symbol, buf) == 0)
            return 2;
    }
    if (op[0] && strcmp(symbol, op) == 0)
        return 1;
    return 0;
}

const gcs_builtin_event *gcs_builtin_lookup_symbol(const char *provider, const char *symbol,
                                                   uint32_t version)
{
    int prov = provider_index(provider);
    if (prov < 0 || !symbol || !symbol[0])
        return NULL;
    const char *alias = NULL;
    for (size_t i = 0; i < sizeof symbol_aliases / sizeof symbol_aliases[0]; i++)
        if (symbol_aliases[i].provider == prov && strcmp(symbol_aliases[i].symbol, symbol) == 0)
            alias = symbol_aliases[i].display_name;
    /* The best match's id; versions of one id share their names. */
    const gcs_builtin_event *best = NULL;
    int best_score = 0;
    for (size_t i = 0; i < gcs_builtin_event_count; i++) {
        const gcs_builtin_event *e = &gcs_builtin_events[i];
        if (e->provider != prov)
            continue;
        int score = alias ? 4 * (strcmp(e->name, alias) == 0) : symbol_match(e, symbol);
        if (score > best_score) {
            best = e;
            best_score = score;
        }
    }
    return best ? gcs_builtin_lookup(provider, best->event_id, version) : NULL;
}
