/*
 * test_etl.c - the ETW .etl reader on the real files beside the shared
 * traces (../shared/traces/perfview/): every event of TraceEvent's
 * baseline (*.etl.baseline.txt: "EVENT MSec: Provider/Name PID=..; TID=..;
 * ProceNum=..; DataLen=..; Field=value; ...") is found by our reader with
 * the same name, MSec (3 decimals), pid, tid, processor, payload size and
 * field values; GC event counts agree; the two induced GCs of gcevents.etl
 * are complete with the pauses read by hand from the raw events; the
 * compressed buffers of SelfDescribingSingleEvent.etl decompress; cut and
 * bit-flipped files never crash (run under ASan/UBSan) and report errors
 * with a status.
 *
 * Where TraceEvent shows something other than the raw value the exception
 * is named and counted (enum and bitmap names, strings cut at 20
 * characters with "...", the EventTrace header whose fields we do not
 * decode, TraceLogging events we do not name yet).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "byte_builder.h"
#include "check.h"
#include "format/etl/tdh.h"
#include "format/etl/xpress.h"
#include "gcscope.h"
/* Only the flattening of te_common.h is used here (the oracle-line
 * parsers serve test_te_agreement). */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-function"
#include "te_common.h"
#pragma GCC diagnostic pop

#define GCEVENTS SHARED_TRACES "gcevents.etl"
#define PRIMITIVE SHARED_TRACES "primitive-types.etl"
#define SELF_DESCRIBING SHARED_TRACES "SelfDescribingSingleEvent.etl"

typedef struct our_event {
    char key[200];
    char msec[32];
    uint32_t pid, processor, payload_size;
    uint64_t tid;
    bool named; /* provider and event known by name (not "Provider(<guid>)", "EventID(n)") */
    bool has_schema; /* its type has payload fields */
    te_fields fields;
} our_event;

typedef struct our_events {
    our_event *v;
    size_t n;
    gcs_status end;
    bool in_order; /* delivered in timestamp order */
    uint64_t anomalies;
} our_events;

static unsigned long long rule_signed, rule_method_count, rule_service_name, rule_dos_path,
    rule_imageid_pid, rule_udp_old_layout;
static unsigned long long rule_enum_name, rule_cut_string, rule_header_fields,
    rule_tracelogging, rule_empty_derived, rule_derived, rule_newer_version, rule_date, values_equal,
    rule_thread_table, rule_not_decoded, rule_unnamed_count, rule_sample_count, rule_kernel_derived,
    ids_equal;

/* TraceLog's other names of runtime events (test_te_agreement's
 * event-name-mapped: the runtime's id 200 and 201). */
static unsigned long long rule_renamed;
static bool same_event_renamed(const char *ours, const char *theirs)
{
    static const char *const pairs[][2] = {
        {"Microsoft-Windows-DotNETRuntime/GC/IncreaseMemoryPressure",
         "Microsoft-Windows-DotNETRuntime/GarbageCollection/IncreaseMemoryPressure"},
        {"Microsoft-Windows-DotNETRuntime/GC/DecreaseMemoryPressure",
         "Microsoft-Windows-DotNETRuntime/GarbageCollection/DecreaseMemoryPressure"},
    };
    for (size_t i = 0; i < sizeof pairs / sizeof pairs[0]; i++)
        if (!strcmp(ours, pairs[i][0]) && !strcmp(theirs, pairs[i][1])) {
            rule_renamed++;
            return true;
        }
    return false;
}

/*
 * Kernel events that name a thread in their payload (DiskIO, HardFault,
 * PerfInfo/Sample): we show that thread and its process as known from the
 * Thread events read so far; TraceLog knows every thread of the trace
 * (its rundown included) before it shows an event, so a sample taken
 * before its thread's DCStart has its process there and -1 here (same
 * thread, checked). DiskIO/FlushBuffers: TraceEvent takes the response
 * time's low half for the thread (-1 process); ours is the issuing
 * thread after the IRP. docs/format-etl.md.
 */
static unsigned long long rule_thread_unknown_yet, rule_flush_thread;
static bool ids_explained(const char *key, const our_event *e, long long pid, long long tid)
{
    static const char *const prefixes[] = {"Windows Kernel/DiskIO/", "Windows Kernel/Memory/",
                                           "Windows Kernel/PerfInfo/Sample"};
    bool thread_event = false;
    for (size_t i = 0; i < sizeof prefixes / sizeof prefixes[0]; i++)
        thread_event |= strncmp(key, prefixes[i], strlen(prefixes[i])) == 0;
    if (!strcmp(key, "Windows Kernel/DiskIO/FlushBuffers") && pid == -1) {
        rule_flush_thread++;
        return true;
    }
    if (thread_event && e->pid == UINT32_MAX && (uint32_t)e->tid == (uint32_t)tid) {
        rule_thread_unknown_yet++;
        return true;
    }
    return false;
}

static our_events read_ours(const char *path)
{
    our_events o = {0};
    o.in_order = true;
    int64_t last_ts = INT64_MIN;
    gcs_error err;
    gcs_error_clear(&err);
    gcs_source *src = gcs_source_open_file(path, &err);
    CHECK(src != NULL);
    if (!src)
        return o;
    gcs_reader *r = gcs_reader_new(src, NULL, &err);
    size_t cap = 0;
    const gcs_event *ev;
    gcs_status st;
    while ((st = gcs_reader_next(r, &ev, &err)) == GCS_OK) {
        if (ev->timestamp < last_ts)
            o.in_order = false;
        last_ts = ev->timestamp;
        if (o.n == cap)
            o.v = realloc(o.v, (cap = cap ? cap * 2 : 256) * sizeof *o.v);
        our_event *e = &o.v[o.n++];
        memset(e, 0, sizeof *e);
        snprintf(e->key, sizeof e->key, "%s/%s", ev->type->provider, ev->type->name);
        /* MSec as `gcscope events` prints it (gcs_event_print_text's first
         * column), which must be TraceEvent's: rounded half up from the
         * exact tick count (11,607.5885 ms shows as 11,607.589). Checked
         * against the exact rounding too. */
        char *line = NULL;
        size_t line_size = 0;
        FILE *mem = open_memstream(&line, &line_size);
        gcs_error perr;
        (void)gcs_event_print_text(mem, ev, &perr);
        fclose(mem);
        snprintf(e->msec, sizeof e->msec, "%.*s", (int)strcspn(line, " "), line);
        free(line);
        const gcs_trace_info *ti = gcs_reader_info(r);
        int64_t d = ev->timestamp - ti->start_ticks, f = ti->clock_frequency;
        if (d >= 0 && d < INT64_MAX / 2000000) {
            int64_t thousandths = (2 * d * 1000000 + f) / (2 * f);
            char exact[32];
            snprintf(exact, sizeof exact, "%lld.%03lld", (long long)(thousandths / 1000),
                     (long long)(thousandths % 1000));
            if (strcmp(exact, e->msec) != 0) {
                fprintf(stderr, "%s: printed MSec %s, exact %s\n", path, e->msec, exact);
                CHECK(!"printed MSec rounded from the ticks");
            }
        }
        e->pid = ev->pid;
        e->tid = ev->tid;
        e->processor = ev->processor;
        e->payload_size = ev->payload_size;
        e->named = strncmp(ev->type->provider, "Provider(", 9) != 0 &&
                   strncmp(ev->type->name, "EventID(", 8) != 0;
        e->has_schema = ev->type->field_count > 0;
        te_flatten_event(ev, &e->fields);
    }
    o.end = st;
    o.anomalies = gcs_reader_get_stats(r)->anomalies;
    gcs_reader_free(r);
    gcs_source_free(src);
    return o;
}

static void free_ours(our_events *o)
{
    for (size_t i = 0; i < o->n; i++)
        te_fields_free(&o->v[i].fields);
    free(o->v);
}

/* TraceEvent's number display without its thousands separators. */
static void strip_commas(const char *s, char *out, size_t cap)
{
    size_t n = 0;
    for (; *s && n + 1 < cap; s++)
        if (*s != ',')
            out[n++] = *s;
    out[n] = 0;
}

static bool parse_number(const char *t, long long *v)
{
    char buf[64], *end;
    strip_commas(t, buf, sizeof buf);
    if (!buf[0])
        return false;
    if (buf[0] == '0' && (buf[1] == 'x' || buf[1] == 'X'))
        *v = (long long)strtoull(buf + 2, &end, 16);
    else if (buf[0] == '-')
        *v = strtoll(buf, &end, 10);
    else
        *v = (long long)strtoull(buf, &end, 10);
    return *end == 0;
}

/* Our rendered value with the oracle's string quoting removed. */
static void unquote(const char *s, char *out, size_t cap)
{
    size_t n = 0, len = strlen(s);
    if (len >= 2 && s[0] == '"' && s[len - 1] == '"') {
        s++;
        len -= 2;
    }
    for (size_t i = 0; i < len && n + 1 < cap; i++) {
        if (s[i] == '\\' && i + 1 < len)
            i++;
        out[n++] = s[i];
    }
    out[n] = 0;
}

/* One baseline field against ours; false when they disagree. */
static bool value_agrees(const char *theirs, const char *ours_raw)
{
    char ours[512];
    unquote(ours_raw, ours, sizeof ours);
    size_t tl = strlen(theirs);
    /* TraceEvent shows FILETIME and SYSTEMTIME fields as local dates
     * ("21/09/09 14:59:35.79..."); ours are the raw values. */
    int y, mo, d, h, mi, sec;
    if (sscanf(theirs, "%2d/%2d/%2d %2d:%2d:%2d", &y, &mo, &d, &h, &mi, &sec) == 6) {
        rule_date++;
        return true;
    }
    if (tl > 3 && strcmp(theirs + tl - 3, "...") == 0) {
        rule_cut_string++;
        return strncmp(ours, theirs, tl - 3) == 0 || strchr(theirs, ',') != NULL;
    }
    long long a, b;
    bool their_num = parse_number(theirs, &a), our_num = parse_number(ours, &b);
    if (their_num && our_num) {
        if (a != b && a < 0 && a >= INT32_MIN && (uint32_t)a == (uint64_t)b) {
            rule_signed++; /* a UInt32 shown as Int32 (ExceptionHRESULT) */
            return true;
        }
        return a == b;
    }
    if (!their_num && our_num) {
        rule_enum_name++; /* TraceEvent names the value from its own maps */
        return true;
    }
    return strcasecmp(theirs, ours) == 0;
}

typedef struct bfield {
    char name[64];
    char value[160];
} bfield;

/* How many of the baseline's values equal ours as text (a cut "..."
 * value by its prefix): tells apart records that differ only by their
 * strings. */
static size_t strings_agreeing(const our_event *e, const bfield *f, size_t nf)
{
    size_t n = 0;
    for (size_t i = 0; i < nf; i++) {
        const te_field *ours = te_fields_get(&e->fields, f[i].name);
        if (!ours)
            continue;
        char mine[512];
        unquote(ours->value, mine, sizeof mine);
        size_t tl = strlen(f[i].value);
        size_t len = tl > 3 && !strcmp(f[i].value + tl - 3, "...") ? tl - 3 : tl + 1;
        long long a, b;
        if (parse_number(f[i].value, &a) && parse_number(mine, &b))
            n += a == b; /* "4,147" is 4147 (TcpIp sends of one time and size) */
        else
            n += strncmp(mine, f[i].value, len) == 0;
    }
    return n;
}

/* Checks one "EVENT ..." line; returns false when no event of ours matches. */
static void check_line(const char *label, char *line, our_events *o)
{
    char *p = line + 6;
    char *colon = strstr(p, ": ");
    CHECK(colon != NULL);
    if (!colon)
        return;
    *colon = 0;
    char msec[32];
    strip_commas(p, msec, sizeof msec);
    p = colon + 2;
    char *sp = strstr(p, " PID=");
    CHECK(sp != NULL);
    if (!sp)
        return;
    *sp = 0;
    const char *key = p;
    p = sp + 1;
    bfield f[64];
    size_t nf = 0;
    while (*p && nf < 64) {
        char *eq = strchr(p, '=');
        char *semi = strstr(p, "; ");
        if (!eq || !semi || eq > semi)
            break;
        snprintf(f[nf].name, sizeof f[nf].name, "%.*s", (int)(eq - p), p);
        snprintf(f[nf].value, sizeof f[nf].value, "%.*s", (int)(semi - eq - 1), eq + 1);
        nf++;
        p = semi + 2;
    }
    long long pid = -1, tid = -1, proc = -1, len = -1;
    for (size_t i = 0; i < nf; i++) {
        if (!strcmp(f[i].name, "PID")) parse_number(f[i].value, &pid);
        if (!strcmp(f[i].name, "TID")) parse_number(f[i].value, &tid);
        if (!strcmp(f[i].name, "ProceNum")) parse_number(f[i].value, &proc);
        if (!strcmp(f[i].name, "DataLen")) parse_number(f[i].value, &len);
    }
    /* The record: same time, processor and size; the same name, or one
     * of a provider we do not name (its events' names come from
     * manifests inside the trace: KernelTraceControl/MetaData, EventSource
     * ManifestData). Among several, the one with the same process and
     * thread. */
    our_event *hit = NULL;
    bool by_name = false;
    for (size_t i = 0; i < o->n; i++) {
        our_event *e = &o->v[i];
        if (strcmp(e->msec, msec) != 0 || e->processor != (uint32_t)proc ||
            e->payload_size != (uint32_t)len)
            continue;
        bool same_name = strcmp(e->key, key) == 0 || same_event_renamed(e->key, key);
        if (!same_name && e->named)
            continue;
        bool same_ids = e->pid == (uint32_t)pid && (uint32_t)e->tid == (uint32_t)tid;
        bool hit_ids = hit && hit->pid == (uint32_t)pid && (uint32_t)hit->tid == (uint32_t)tid;
        /* Records of one name, time, size and thread (SysConfig's volume
         * mappings at 0.000): the one whose strings agree. */
        if (!hit || (same_name && !by_name) || (same_name == by_name && same_ids && !hit_ids) ||
            (same_name == by_name && same_ids && hit_ids &&
             strings_agreeing(e, f, nf) > strings_agreeing(hit, f, nf))) {
            hit = e;
            by_name = same_name;
        }
    }
    if (!hit) {
        fprintf(stderr, "%s: no event of ours for %s at %s pid %lld tid %lld cpu %lld size %lld\n",
                label, key, msec, pid, tid, proc, len);
        CHECK(!"baseline event found");
        return;
    }
    if (!by_name)
        rule_tracelogging++;
    /* TraceEvent's -1 is our 0xffffffff: compared as 32 bits. */
    if (hit->pid == (uint32_t)pid && (uint32_t)hit->tid == (uint32_t)tid) {
        ids_equal++;
    } else if (ids_explained(key, hit, pid, tid)) {
        rule_thread_table++;
    } else {
        fprintf(stderr, "%s: %s at %s: TraceEvent pid %lld tid %lld, ours %u %llu\n", label, key,
                msec, pid, tid, hit->pid, (unsigned long long)hit->tid);
        CHECK(!"baseline process and thread");
    }
    if (!by_name)
        return;
    if (!hit->has_schema && !strstr(key, "/EventTrace")) {
        rule_not_decoded++; /* kernel and classic payloads we do not decode yet */
        if (getenv("TEST_ETL_LIST_NOT_DECODED")) /* which ones: for the next decoder */
            fprintf(stderr, "not decoded: %s at %s\n", key, msec);
        return;
    }
    if (strstr(key, "/EventTrace")) {
        rule_header_fields++; /* the logfile header's fields: checked in test_header */
        return;
    }
    for (size_t i = 0; i < nf; i++) {
        const char *n = f[i].name;
        if (!strcmp(n, "PID") || !strcmp(n, "TID") || !strcmp(n, "PName") ||
            !strcmp(n, "ProceNum") || !strcmp(n, "DataLen"))
            continue;
        const te_field *ours = te_fields_get(&hit->fields, n);
        if (!ours) {
            if (f[i].value[0] == 0) {
                rule_empty_derived++; /* an attribute TraceEvent adds, empty here */
                continue;
            }
            /* Attributes TraceEvent computes from the payload (HeapStats
             * totals and depth, MarkWithType's Promoted = its Bytes) or
             * looks up (FinalizeObject's TypeName, from its TypeID in the
             * BulkType events). */
            static const char *const derived[] = {"TotalHeapSize", "TotalPromoted", "Depth",
                                                  "Promoted", "TypeName", "ModuleILFileName",
                                                  "TypeID_0", "TypeName_0"};
            bool is_derived = false;
            for (size_t k = 0; k < sizeof derived / sizeof derived[0]; k++)
                is_derived |= strcmp(n, derived[k]) == 0;
            if (is_derived) {
                rule_derived++;
                continue;
            }
            /* UdpIp Send/Recv: TraceEvent reads an older layout on
             * the version 2 payload: context = the first 8 bytes (PID,
             * then size), dsize = bytes 22-23 (the high half of seqnum).
             * Checked against ours. */
            const te_field *upid = te_fields_get(&hit->fields, "PID");
            const te_field *usize = te_fields_get(&hit->fields, "size");
            const te_field *useq = te_fields_get(&hit->fields, "seqnum");
            if (!strncmp(key, "Windows Kernel/UdpIp/", 21) && upid && usize && useq &&
                (!strcmp(n, "context") || !strcmp(n, "dsize"))) {
                long long theirs_v = 0;
                CHECK(parse_number(f[i].value, &theirs_v));
                unsigned long long want =
                    !strcmp(n, "context")
                        ? strtoull(upid->value, NULL, 10) | strtoull(usize->value, NULL, 10) << 32
                        : strtoull(useq->value, NULL, 10) >> 16;
                if ((unsigned long long)theirs_v != want) {
                    fprintf(stderr, "%s: %s at %s: %s TraceEvent %s ours %llu\n", label, key,
                            msec, n, f[i].value, want);
                    CHECK(!"UdpIp context/dsize agree");
                }
                rule_udp_old_layout++;
                continue;
            }
            /* Thread events: TraceLog's parent thread and process (state
             * of its own, not the payload). */
            if (!strcmp(n, "ParentThreadID") || !strcmp(n, "ParentProcessID")) {
                rule_kernel_derived++;
                continue;
            }
            /* Kernel attributes TraceEvent computes: DiskIO's elapsed
             * time (checked: the response time in 100 ns ticks of the
             * 10 MHz clock) and service time, priority from the IRP
             * flags; HardFault's elapsed time (event time - InitialTime);
             * the sample's processor (the header's) and priority, rank,
             * DPC and ISR bits (its last 16 bits); the file name of a
             * file object (looked up in FileIO rundown). */
            static const char *const kernel_derived[] = {
                "ElapsedTimeMSec", "DiskServiceTimeMSec", "Priority", "FileName",
                "ProcessorNumber", "ExecutingDPC", "ExecutingISR", "Rank", "BuildTime"};
            bool is_kernel_derived = false;
            for (size_t k = 0; k < sizeof kernel_derived / sizeof kernel_derived[0]; k++)
                is_kernel_derived |= strcmp(n, kernel_derived[k]) == 0;
            if (is_kernel_derived && (!strncmp(key, "Windows Kernel/", 15) ||
                                      !strncmp(key, "KernelTraceControl/", 19))) {
                const te_field *rt = te_fields_get(&hit->fields, "HighResResponseTime");
                if (!strcmp(n, "ElapsedTimeMSec") && rt) {
                    double theirs_ms = strtod(f[i].value, NULL);
                    double ours_ms = (double)strtoull(rt->value, NULL, 10) / 10000.0;
                    CHECK(theirs_ms - ours_ms < 0.0015 && ours_ms - theirs_ms < 0.0015);
                }
                rule_kernel_derived++;
                continue;
            }
            /* A field of a newer version than the payload's: TraceEvent
             * shows 0 (HeapStats V1 GenerationSize4, GCStart V1
             * ClientSequenceNumber in .NET Framework 4.5), or the name of
             * 0 (Method/LoadVerbose V1 OptimizationTier=Unknown). */
            long long zero;
            if ((parse_number(f[i].value, &zero) && zero == 0) || !strcmp(f[i].value, "0.000") ||
                (!strcmp(n, "OptimizationTier") && !strcmp(f[i].value, "Unknown"))) {
                rule_newer_version++;
                continue;
            }
            fprintf(stderr, "%s: %s at %s: no field %s\n", label, key, msec, n);
            CHECK(!"baseline field present");
            continue;
        }
        if (!strncmp(key, "Windows Kernel/Image/", 21) && !strcmp(n, "FileName")) {
            /* TraceEvent shows the kernel's path as a DOS path, mapped
             * with the trace's SysConfig/VolumeMapping events (x86 file:
             * \SystemRoot\ = C:\Windows\, \Device\HarddiskVolume2\ = C:\)
             * and \Device\Mup\ as \\. Checked on the shown prefix. */
            static const char *const maps[][2] = {{"\\SystemRoot\\", "C:\\Windows\\"},
                                                  {"\\Windows\\", "C:\\Windows\\"},
                                                  {"\\Device\\HarddiskVolume2\\", "C:\\"},
                                                  {"\\Device\\Mup\\", "\\\\"}};
            char mine[512], dos[600];
            unquote(ours->value, mine, sizeof mine);
            snprintf(dos, sizeof dos, "%s", mine);
            for (size_t k = 0; k < sizeof maps / sizeof maps[0]; k++)
                if (!strncmp(mine, maps[k][0], strlen(maps[k][0])))
                    snprintf(dos, sizeof dos, "%s%s", maps[k][1], mine + strlen(maps[k][0]));
            size_t tl = strlen(f[i].value);
            size_t cmp_len = tl > 3 && !strcmp(f[i].value + tl - 3, "...") ? tl - 3 : tl + 1;
            if (strncmp(dos, f[i].value, cmp_len) != 0) {
                fprintf(stderr, "%s: %s at %s: FileName TraceEvent %s ours %s (as DOS %s)\n",
                        label, key, msec, f[i].value, mine, dos);
                CHECK(!"image file name as a DOS path");
            }
            rule_dos_path++;
            continue;
        }
        if (!strcmp(key, "KernelTraceControl/ImageID") && !strcmp(n, "ProcessID") &&
            !strcmp(f[i].value, "0")) {
            /* TraceEvent shows 0; the payload has the event's process. */
            CHECK_EQ_U64(strtoull(ours->value, NULL, 10), hit->pid);
            rule_imageid_pid++;
            continue;
        }
        if (!strcmp(key, "Windows Kernel/SystemConfig/Services") && !strcmp(n, "ProcessName")) {
            /* TraceEvent shows the service process's name (Idle for
             * process 0, whose payload name is empty): ours without
             * ".exe", or empty. */
            char mine[256];
            unquote(ours->value, mine, sizeof mine);
            size_t ml = strlen(mine);
            if (ml > 4 && !strcasecmp(mine + ml - 4, ".exe"))
                mine[ml - 4] = 0;
            CHECK(mine[0] == 0 || !strcasecmp(mine, f[i].value));
            rule_service_name++;
            continue;
        }
        if (!value_agrees(f[i].value, ours->value)) {
            fprintf(stderr, "%s: %s at %s: %s TraceEvent %s ours %s\n", label, key, msec, n,
                    f[i].value, ours->value);
            CHECK(!"field value agrees");
        } else {
            values_equal++;
        }
    }
}

static size_t count_ours(const our_events *o, const char *key)
{
    size_t n = 0;
    for (size_t i = 0; i < o->n; i++)
        n += strcmp(o->v[i].key, key) == 0;
    return n;
}

/* Our Method/LoadVerbose events of a JIT helper (MethodFlags bit 0x10). */
static uint64_t count_jit_helpers(const our_events *o)
{
    uint64_t n = 0;
    for (size_t i = 0; i < o->n; i++) {
        if (strcmp(o->v[i].key, "Microsoft-Windows-DotNETRuntime/Method/LoadVerbose") != 0)
            continue;
        const te_field *flags = te_fields_get(&o->v[i].fields, "MethodFlags");
        n += flags && (strtoull(flags->value, NULL, 10) & 0x10u) != 0;
    }
    return n;
}

/* Every EVENT line of a baseline against our events of trace (check_line),
 * and every COUNT of a name we give against our count. */
static void compare_baseline(const char *trace, const char *baseline)
{
    char path[300];
    snprintf(path, sizeof path, "%s", baseline);
    size_t size;
    char *text = (char *)check_read_file(path, &size);
    CHECK(text != NULL);
    if (!text)
        return;
    text[size] = 0;
    our_events o = read_ours(trace);
    CHECK_EQ_INT(o.end, GCS_END);
    /* per-CPU buffers merged: in timestamp order */
    CHECK(o.in_order);
    size_t lines = 0, counts = 0;
    for (char *p = text; *p;) {
        char *nl = strchr(p, '\n');
        if (nl)
            *nl = 0;
        size_t l = strlen(p);
        if (l && p[l - 1] == '\r')
            p[l - 1] = 0;
        if (!strncmp(p, "EVENT ", 6)) {
            check_line(trace, p, &o);
            lines++;
        } else if (!strncmp(p, "COUNT ", 6)) {
            char *colon = strrchr(p, ':');
            *colon = 0;
            const char *key = p + 6;
            uint64_t theirs = strtoull(colon + 1, NULL, 10), ours = count_ours(&o, key);
            if (ours == 0) {
                /* A name of a provider we do not name (its events were
                 * found under the provider GUID by check_line). */
                rule_unnamed_count++;
            } else if (!strcmp(key, "Microsoft-Windows-DotNETRuntime/Method/LoadVerbose") &&
                       ours != theirs) {
                /* TraceLog leaves out the JIT helpers' loads (MethodFlags
                 * 0x10): 405 - 10 = 395 in the x86 file. Checked. */
                rule_method_count++;
                CHECK_EQ_U64(ours - count_jit_helpers(&o), theirs);
            } else if (!strcmp(key, "Windows Kernel/PerfInfo/Sample")) {
                /* TraceLog keeps 6,810 of the x86 file's 88,809 samples
                 * (82,128 are of the idle thread 0): not ours to drop. */
                rule_sample_count++;
                CHECK(ours > theirs);
            } else {
                if (ours != theirs)
                    fprintf(stderr, "%s: count of %s: TraceEvent %llu ours %llu\n", trace, key,
                            (unsigned long long)theirs, (unsigned long long)ours);
                CHECK_EQ_U64(ours, theirs);
                counts++;
            }
        }
        p = nl ? nl + 1 : p + strlen(p);
    }
    printf("%s: %zu baseline events and %zu counts checked against %zu of ours\n", trace, lines,
           counts, o.n);
    CHECK(lines > 0);
    free_ours(&o);
    free(text);
}

static void print_rules(void)
{
    printf("values equal %llu, process/thread equal %llu; rules: enum-name %llu, cut-string %llu, "
           "header-fields %llu, unnamed-provider %llu, empty-derived %llu, derived %llu, "
           "newer-version-zero %llu, date-display %llu, ids-explained %llu (thread-not-known-yet %llu, "
           "flushbuffers-thread %llu), "
           "kernel-derived %llu, fields-not-decoded %llu, unnamed-count %llu, sample-count %llu, "
           "renamed %llu, uint32-shown-signed %llu, method-load-count %llu, service-process-name %llu, "
           "dos-path %llu, imageid-process %llu, udp-old-layout %llu\n",
           values_equal, ids_equal, rule_enum_name, rule_cut_string, rule_header_fields,
           rule_tracelogging, rule_empty_derived, rule_derived, rule_newer_version, rule_date,
           rule_thread_table, rule_thread_unknown_yet, rule_flush_thread, rule_kernel_derived, rule_not_decoded, rule_unnamed_count,
           rule_sample_count, rule_renamed, rule_signed, rule_method_count, rule_service_name,
           rule_dos_path, rule_imageid_pid, rule_udp_old_layout);
}

static void test_baselines(void)
{
    if (!check_file_exists(GCEVENTS))
        SKIP("../shared absent");
    compare_baseline(GCEVENTS, GCEVENTS ".baseline.txt");
    compare_baseline(PRIMITIVE, PRIMITIVE ".baseline.txt");
    print_rules();
    CHECK(values_equal >= 315);
}

/* The trace start (UTC) the reader took from the logfile header. */
static void check_start(const gcs_trace_info *ti, int y, int mo, int d, int h, int mi, int sec,
                        int ms)
{
    CHECK_EQ_INT(ti->start_year, y);
    CHECK_EQ_INT(ti->start_month, mo);
    CHECK_EQ_INT(ti->start_day, d);
    CHECK_EQ_INT(ti->start_hour, h);
    CHECK_EQ_INT(ti->start_minute, mi);
    CHECK_EQ_INT(ti->start_second, sec);
    CHECK_EQ_INT(ti->start_millisecond, ms);
}

/* The logfile header event as TraceEvent shows it (gcevents baseline line
 * 1): clock, pointer size, processors, start time; MSec 0 is its time. */
static void test_header(void)
{
    if (!check_file_exists(GCEVENTS))
        SKIP("../shared absent");
    gcs_error err;
    gcs_source *src = gcs_source_open_file(GCEVENTS, &err);
    gcs_reader *r = gcs_reader_new(src, NULL, &err);
    const gcs_event *ev;
    CHECK_EQ_INT(gcs_reader_next(r, &ev, &err), GCS_OK);
    const gcs_trace_info *ti = gcs_reader_info(r);
    CHECK_EQ_INT(ti->format, GCS_FORMAT_ETL);
    CHECK_EQ_STR(gcs_format_name(ti->format), "etl");
    CHECK_EQ_U64(ti->format_version, 83951626u); /* Version=83,951,626 */
    CHECK_EQ_INT(ti->format_minor, 0);
    CHECK_EQ_INT(ti->pointer_size, 8);
    CHECK_EQ_INT(ti->cpu_count, 8);
    CHECK_EQ_U64((uint64_t)ti->clock_frequency, 10000000u);
    /* StartTime=23/03/14 00:46:36.69... */
    check_start(ti, 2023, 3, 14, 0, 46, 36, 694);
    CHECK_EQ_STR(ev->type->provider, "Windows Kernel");
    CHECK_EQ_STR(ev->type->name, "EventTrace");
    CHECK_NEAR(ev->msec, 0.0, 1e-9);
    CHECK_EQ_U64(ev->payload_size, 392u);
    gcs_reader_free(r);
    gcs_source_free(src);
}

/* Reads path through the GC analysis (finished); the reader's counters
 * into *stats. The caller frees the analyzer. */
static gcs_gc_analyzer *analyze_file(const char *path, gcs_reader_stats *stats)
{
    gcs_error err;
    gcs_source *src = gcs_source_open_file(path, &err);
    gcs_reader *r = gcs_reader_new(src, NULL, &err);
    gcs_gc_analyzer *an = gcs_gc_analyzer_new(NULL, &err);
    const gcs_event *ev;
    gcs_status st;
    while ((st = gcs_reader_next(r, &ev, &err)) == GCS_OK)
        CHECK_EQ_INT(gcs_gc_analyzer_feed(an, ev), GCS_OK);
    CHECK_EQ_INT(st, GCS_END);
    *stats = *gcs_reader_get_stats(r);
    gcs_gc_analyzer_finish(an);
    gcs_reader_free(r);
    gcs_source_free(src);
    return an;
}

/*
 * gcevents.etl: two induced GCs. By hand from the raw events (baseline):
 * GC 1 SuspendEEStart 11,607.358 .. RestartEEStop 11,608.145: pause
 * 0.787 ms, gen 1; GC 2 SuspendEEStart 11,608.167 .. RestartEEStop
 * 11,608.709: pause 0.542 ms, gen 2; both Reason=Induced.
 */
static void test_gc_stats(void)
{
    if (!check_file_exists(GCEVENTS))
        SKIP("../shared absent");
    gcs_reader_stats stats;
    gcs_gc_analyzer *an = analyze_file(GCEVENTS, &stats);
    CHECK_EQ_U64(stats.anomalies, 0u);
    CHECK_EQ_U64(gcs_gc_process_count(an), 1u);
    const gcs_gc_process *p = gcs_gc_process_at(an, 0);
    CHECK_EQ_U64(p->pid, 179596u);
    CHECK_EQ_U64(p->gc_count, 2u);
    if (p->gc_count == 2) {
        CHECK(p->gcs[0].is_complete && p->gcs[1].is_complete);
        CHECK_EQ_INT(p->gcs[0].number, 1);
        CHECK_EQ_INT(p->gcs[0].generation, 1);
        CHECK_EQ_INT(p->gcs[1].number, 2);
        CHECK_EQ_INT(p->gcs[1].generation, 2);
        CHECK_NEAR(p->gcs[0].pause_ms, 0.787, 0.0015);
        CHECK_NEAR(p->gcs[1].pause_ms, 0.542, 0.0015);
    }
    CHECK_EQ_U64(p->all.num_induced, 2u);
    gcs_gc_analyzer_free(an);
}

/* SelfDescribingSingleEvent.etl: its two data buffers carry the compressed
 * flag; decompressed they hold the records the header's sizes say: the
 * TraceLogging event MySource/TestEvent (provider traits and schema in its
 * extended data) with a struct a {b, c} of two UTF-16 strings, 26 bytes
 * "Hello\0World!\0". No anomaly. */
static void test_compressed(void)
{
    if (!check_file_exists(SELF_DESCRIBING))
        SKIP("../shared absent");
    our_events o = read_ours(SELF_DESCRIBING);
    CHECK_EQ_INT(o.end, GCS_END);
    CHECK_EQ_U64(o.anomalies, 0u);
    CHECK_EQ_U64(o.n, 23u);
    bool found = false;
    for (size_t i = 0; i < o.n; i++) {
        if (strcmp(o.v[i].key, "MySource/TestEvent") != 0)
            continue;
        found = true;
        CHECK_EQ_U64(o.v[i].payload_size, 26u);
        CHECK_EQ_U64(o.v[i].pid, 0x1b3e8u);
        CHECK_EQ_U64(o.v[i].tid, 0xcc3cu);
        const te_field *b = te_fields_get(&o.v[i].fields, "a.b");
        const te_field *c = te_fields_get(&o.v[i].fields, "a.c");
        CHECK(b && c);
        if (b && c) {
            CHECK_EQ_STR(b->value, "\"Hello\"");
            CHECK_EQ_STR(c->value, "\"World!\"");
        }
    }
    CHECK(found);
    free_ours(&o);
}

/*
 * The process table over the x86 file's kernel Process events, as the
 * baseline shows them: PName (TraceEvent's process name) = image name
 * without extension, the kernel's command line, parent, exit status of
 * Process/Stop (Test.x86: ExitStatus=0 at 7,903.327), and --process
 * matching by id, name, image name, any case.
 */
static void test_process_table(const char *path)
{
    gcs_error err;
    gcs_source *src = gcs_source_open_file(path, &err);
    gcs_reader *r = gcs_reader_new(src, NULL, &err);
    gcs_process_table *pt = gcs_process_table_new();
    CHECK(r != NULL && pt != NULL);
    if (!r || !pt)
        return;
    const gcs_event *ev;
    gcs_status st;
    while ((st = gcs_reader_next(r, &ev, &err)) == GCS_OK)
        gcs_process_table_feed(pt, ev);
    CHECK_EQ_INT(st, GCS_END);
    /* 35 processes at the rundown, Test.x86 started during the trace;
     * Runtime/Start adds none (its processes are run down too). */
    CHECK_EQ_U64(gcs_process_table_count(pt), 36u);
    const gcs_process_entry *e = gcs_process_table_find(pt, 3644);
    CHECK(e != NULL);
    if (e) {
        CHECK_EQ_STR(e->name, "Test.x86");
        CHECK_EQ_STR(e->image_file_name, "Test.x86.exe");
        CHECK_EQ_STR(e->command_line, "Test.x86.exe");
        CHECK_EQ_U64(e->parent_pid, 3508u);
        CHECK(e->has_exit);
        CHECK_EQ_INT(e->exit_status, 0);
    }
    e = gcs_process_table_find(pt, 456); /* Process/DCStart at 17.836: PName=smss */
    CHECK(e != NULL);
    if (e) {
        CHECK_EQ_STR(e->name, "smss");
        CHECK_EQ_STR(e->command_line, "\\SystemRoot\\System32\\smss.exe");
        CHECK_EQ_U64(e->parent_pid, 4u);
    }
    e = gcs_process_table_find(pt, 0); /* PName=Idle, no command line */
    CHECK(e != NULL && !strcmp(e->name, "Idle") && e->command_line[0] == 0);
    CHECK(gcs_process_matches(pt, 3644, "3644"));
    CHECK(gcs_process_matches(pt, 3644, "test.X86"));
    CHECK(gcs_process_matches(pt, 3644, "TEST.X86.EXE"));
    CHECK(!gcs_process_matches(pt, 3644, "Test"));
    CHECK(!gcs_process_matches(pt, 3644, "364"));
    CHECK(!gcs_process_matches(pt, 1234567, "Test.x86"));
    /* several processes of one name: both csrss (576 and 624) */
    CHECK(gcs_process_matches(pt, 576, "csrss") && gcs_process_matches(pt, 624, "csrss"));
    gcs_process_table_free(pt);
    gcs_reader_free(r);
    gcs_source_free(src);
}

/*
 * MetaData/EventInfo (TRACE_EVENT_INFO) on the x86 file: the first record
 * (415.294 ms) describes Microsoft-Windows-Kernel-EventTracing event 14
 * v0, ETW_TASK_PROVIDER/ETW_OPCODE_ENABLE with ProviderName (GUID) and
 * SessionName (UTF-16), as the baseline shows that event; the record cut
 * at every length and byte-flipped 3,000 times never reads out of bounds
 * (ASan) and, cut, is refused.
 */
static void test_event_info(const char *path)
{
    gcs_error err;
    gcs_source *src = gcs_source_open_file(path, &err);
    gcs_reader *r = gcs_reader_new(src, NULL, &err);
    const gcs_event *ev;
    uint8_t *rec = NULL;
    uint32_t n = 0;
    while (gcs_reader_next(r, &ev, &err) == GCS_OK)
        if (!strcmp(ev->type->name, "MetaData/EventInfo")) {
            rec = malloc(ev->payload_size);
            memcpy(rec, ev->payload, ev->payload_size);
            n = ev->payload_size;
            break;
        }
    gcs_reader_free(r);
    gcs_source_free(src);
    CHECK(rec != NULL && n == 976);
    if (!rec)
        return;
    gcs_arena arena;
    gcs_arena_init(&arena, 0);
    gcs_tdh_event info;
    const char *why = NULL;
    CHECK(gcs_tdh_parse(rec, n, &arena, &info, &why));
    CHECK_EQ_STR(info.provider, "Microsoft-Windows-Kernel-EventTracing");
    CHECK_EQ_STR(info.event_name, "ETW_TASK_PROVIDER/ETW_OPCODE_ENABLE");
    CHECK_EQ_U64(info.event_id, 14u);
    CHECK_EQ_U64(info.field_count, 2u);
    if (info.field_count == 2) {
        CHECK_EQ_STR(info.fields[0].name, "ProviderName");
        CHECK_EQ_INT(info.fields[0].type, GCS_T_GUID);
        CHECK_EQ_STR(info.fields[1].name, "SessionName");
        CHECK_EQ_INT(info.fields[1].type, GCS_T_UTF16Z);
    }
    unsigned refused = 0;
    for (uint32_t cut = 0; cut < 112; cut++)
        refused += !gcs_tdh_parse(rec, cut, &arena, &info, &why);
    CHECK_EQ_U64(refused, 112u); /* shorter than the fixed part */
    for (uint32_t cut = 112; cut < n; cut++)
        (void)gcs_tdh_parse(rec, cut, &arena, &info, &why);
    uint64_t seed = 12345;
    uint8_t *copy = malloc(n);
    for (int i = 0; i < 3000; i++) {
        memcpy(copy, rec, n);
        for (int k = 0; k < 3; k++) {
            seed = seed * 6364136223846793005ull + 1442695040888963407ull;
            copy[(seed >> 33) % n] ^= (uint8_t)(1u << ((seed >> 20) & 7));
        }
        (void)gcs_tdh_parse(copy, n, &arena, &info, &why);
        if (i % 500 == 499)
            gcs_arena_reset(&arena);
    }
    free(copy);
    gcs_arena_reset(&arena);
    free(rec);
}

/* net.4.5.2.x86.etl (in its .zip: unzipped to a temporary file for the
 * test; .etl.zip reading itself is not done yet). .NET Framework 4.5.2, a
 * 32-bit process in a 64-bit log, compressed buffers. Its GC events and
 * the runtime events with pointers (read 4 bytes wide: the event's own
 * pointer size) agree with the baseline field by field, the GC event
 * counts agree (GC/Start 160: the runtime writes V1 and V2 of each), and
 * the 80 GCs are complete. By hand, GC 1: SuspendEEStart 2,963.399,
 * RestartEEStop 2,964.301: pause 0.902 ms, gen 0, AllocSmall. */
static void test_x86_framework(void)
{
    const char *zip = SHARED_TRACES "net.4.5.2.x86.etl.zip";
    if (!check_file_exists(zip))
        SKIP("../shared absent");
    if (system("unzip -v > /dev/null 2>&1") != 0)
        SKIP("unzip absent");
    char tmp[] = "/tmp/gcscope-test-etl-XXXXXX";
    int fd = mkstemp(tmp);
    CHECK(fd >= 0);
    if (fd < 0)
        return;
    close(fd);
    char cmd[512];
    snprintf(cmd, sizeof cmd, "unzip -p '%s' net.4.5.2.x86.etl > '%s'", zip, tmp);
    CHECK_EQ_INT(system(cmd), 0);
    unsigned long long not_decoded_before = rule_not_decoded;
    compare_baseline(tmp, SHARED_TRACES "net.4.5.2.x86.etl.baseline.txt");
    print_rules();
    /* Baseline events of this file whose payload we do not decode (their
     * names, times and ids are checked): SystemConfig CPU,
     * PhyDisk, LogDisk, PnP and Platform, ImageID/None and FileVersion,
     * SysConfig BuildInfo, UnknownVolume and Opcode(37). Decoding one
     * more lowers it; a decoded event whose fields differ fails above. */
    printf("net.4.5.2.x86.etl: fields-not-decoded %llu\n", rule_not_decoded - not_decoded_before);
    CHECK(rule_not_decoded - not_decoded_before <= 39);

    gcs_reader_stats stats;
    gcs_gc_analyzer *an = analyze_file(tmp, &stats);
    CHECK_EQ_U64(stats.events, 168298u);
    /* The 32-bit process's events (header type 0x12) are read with 4-byte
     * pointers: no anomaly, and every known event fits its schema (3,843
     * did not when they were read with the log's 8-byte pointers). */
    CHECK_EQ_U64(stats.anomalies, 0u);
    CHECK_EQ_U64(stats.undecodable_events, 0u);
    const gcs_gc_process *p = NULL;
    for (size_t i = 0; i < gcs_gc_process_count(an); i++)
        if (gcs_gc_process_at(an, i)->gc_count)
            p = gcs_gc_process_at(an, i);
    CHECK(p != NULL);
    if (p) {
        CHECK_EQ_U64(p->pid, 3644u);
        CHECK_EQ_U64(p->gc_count, 80u);
        CHECK_EQ_U64(p->all.count, 80u);
        size_t complete = 0;
        for (size_t i = 0; i < p->gc_count; i++)
            complete += p->gcs[i].is_complete;
        CHECK_EQ_U64(complete, 80u); /* every GC's events are in the file */
        CHECK_EQ_INT(p->gcs[0].number, 1);
        CHECK_EQ_INT(p->gcs[0].generation, 0);
        CHECK_NEAR(p->gcs[0].pause_ms, 0.902, 0.0015);
    }
    gcs_gc_analyzer_free(an);
    test_process_table(tmp);
    test_event_info(tmp);
    remove(tmp);
}

/* The XPRESS decoder on hand-made streams for the paths the real files
 * may not take: a match of 1,000 (nibble 15, byte 255, then a 16-bit
 * length), two matches sharing one nibble byte, matches overlapping their
 * own output, and invalid streams. */
static void test_xpress(void)
{
    uint8_t out[2048];
    size_t n;
    /* flags 0001...: "abc" then distance 3, length 9 */
    static const uint8_t s1[] = {0x00, 0x00, 0x00, 0x10, 'a', 'b', 'c', 0x16, 0x00};
    CHECK(gcs_xpress_decompress(s1, sizeof s1, out, sizeof out, &n));
    CHECK_EQ_U64(n, 12u);
    CHECK(memcmp(out, "abcabcabcabc", 12) == 0);
    /* 'x' then distance 1, length 1000: 7 in the word, nibble 15, byte
     * 255, uint16 997 (the length - 3) */
    static const uint8_t s2[] = {0x00, 0x00, 0x00, 0x40, 'x', 0x07, 0x00, 0x0f, 0xff, 0xe5, 0x03};
    CHECK(gcs_xpress_decompress(s2, sizeof s2, out, sizeof out, &n));
    CHECK_EQ_U64(n, 1001u);
    CHECK(out[0] == 'x' && out[1000] == 'x' && out[500] == 'x');
    /* 'y', then length 12 (nibble 2, low half) and length 25 (nibble 15,
     * high half of the same byte, then byte 0) */
    static const uint8_t s3[] = {0x00, 0x00, 0x00, 0x60, 'y', 0x07, 0x00, 0xf2, 0x07, 0x00, 0x00};
    CHECK(gcs_xpress_decompress(s3, sizeof s3, out, sizeof out, &n));
    CHECK_EQ_U64(n, 38u);
    CHECK(out[37] == 'y');
    /* a match reaching before the output start */
    static const uint8_t bad1[] = {0x00, 0x00, 0x00, 0x40, 'z', 0x16, 0x00};
    CHECK(!gcs_xpress_decompress(bad1, sizeof bad1, out, sizeof out, &n));
    /* more output than room */
    CHECK(!gcs_xpress_decompress(s2, sizeof s2, out, 100, &n));
    /* a 16-bit length below 22 */
    static const uint8_t bad2[] = {0x00, 0x00, 0x00, 0x40, 'x', 0x07, 0x00, 0x0f, 0xff, 0x05, 0x00};
    CHECK(!gcs_xpress_decompress(bad2, sizeof bad2, out, sizeof out, &n));
    /* cut inside a length */
    CHECK(!gcs_xpress_decompress(s2, sizeof s2 - 1, out, sizeof out, &n));
}

/* A buffer header of ours: size, filled bytes, processor, flags. */
static void synth_buffer_header(bb *b, uint32_t size, uint32_t filled, uint8_t cpu, uint16_t flags,
                                uint16_t type)
{
    bb_u32(b, size);
    bb_u32(b, filled);
    bb_u32(b, filled);
    bb_zeros(b, 0x28 - 12);
    bb_u8(b, cpu);
    bb_zeros(b, 3);
    bb_u32(b, 3); /* state */
    bb_u32(b, filled);
    bb_u16(b, flags);
    bb_u16(b, type);
    bb_zeros(b, 72 - 0x38);
}

/* A runtime event (EVENT_HEADER32: written by a 32-bit process). */
static void synth_clr_event(bb *b, uint16_t id, uint8_t version, uint64_t ts, const uint8_t *payload,
                            uint16_t size)
{
    static const uint8_t runtime[16] = {0x23, 0x0d, 0x3c, 0xe1, 0xbc, 0xcc, 0x12, 0x4e,
                                        0x93, 0x1b, 0xd9, 0xcc, 0x2e, 0xee, 0x27, 0xe4};
    size_t start = b->len;
    bb_u16(b, (uint16_t)(80 + size));
    bb_u8(b, 0x12);
    bb_u8(b, 0xc0);
    bb_u32(b, 0); /* flags, property */
    bb_u32(b, 7); /* tid */
    bb_u32(b, 42); /* pid */
    bb_u64(b, ts);
    bb_bytes(b, runtime, 16);
    bb_u16(b, id);
    bb_u8(b, version);
    bb_u8(b, 0);
    bb_u8(b, 4);
    bb_u8(b, version == 1 && id == 1 ? 1 : 2); /* opcode Start / Stop */
    bb_u16(b, 1);
    bb_u64(b, 1);
    bb_zeros(b, 8 + 16);
    bb_bytes(b, payload, size);
    while ((b->len - start) % 8)
        bb_u8(b, 0);
}

/*
 * A 32-bit log written by hand (no real one at hand): the logfile header
 * with PointerSize 4 in a SYSTEM32 record (its fields after the two name
 * pointers 8 bytes earlier than in a 64-bit log), 3 events and 2 buffers
 * lost, a 1 MHz clock; a CPU 1 buffer with GC/Start V1 then a CPU 0
 * buffer with an earlier GC/Stop V1 (delivered first), a real-time
 * lost-event record (named, counted), a record of an unknown header type
 * and a record whose size passes the buffer's end.
 */
static void test_synthetic_32bit(void)
{
    static bb b;
    memset(&b, 0, sizeof b);
    const uint64_t origin = 5000000;
    /* buffer 0: the logfile header event */
    synth_buffer_header(&b, 0x200, 72 + 32 + 0x118, 0, 0x1, 4);
    bb_u16(&b, 2);
    bb_u8(&b, 0x01);
    bb_u8(&b, 0xc0);
    bb_u16(&b, (uint16_t)(32 + 0x118));
    bb_u8(&b, 0);
    bb_u8(&b, 0);
    bb_u32(&b, 11);
    bb_u32(&b, 10);
    bb_u64(&b, origin);
    bb_zeros(&b, 8);
    size_t payload = b.len;
    bb_u32(&b, 0x200);      /* buffer size */
    bb_u32(&b, 0x0501000a); /* version */
    bb_u32(&b, 7601);
    bb_u32(&b, 2);          /* processors */
    bb_u64(&b, 0);          /* end time */
    bb_u32(&b, 156250);
    bb_u32(&b, 0);
    bb_u32(&b, 0);
    bb_u32(&b, 3);          /* buffers written */
    bb_u32(&b, 1);
    bb_u32(&b, 4);          /* pointer size */
    bb_u32(&b, 3);          /* events lost */
    bb_u32(&b, 2000);
    bb_zeros(&b, 4 + 4 + 172 + 4); /* name pointers, time zone, padding */
    CHECK_EQ_U64(b.len - payload, 0xf0u);
    bb_u64(&b, 0);                  /* boot time */
    bb_u64(&b, 1000000);            /* clock frequency */
    bb_u64(&b, 132224078456780000ull); /* 2020-01-02 03:04:05.678 UTC */
    bb_u32(&b, 1);
    bb_u32(&b, 2); /* buffers lost */
    bb_utf16z(&b, "S");
    bb_zeros(&b, 0x200 - b.len);
    /* buffer 1, CPU 1: GC/Start V1 at 2.5 ms */
    size_t at = b.len;
    static const uint8_t start_v1[18] = {1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 9, 0};
    synth_buffer_header(&b, 0x200, 0, 1, 0, 0);
    synth_clr_event(&b, 1, 1, origin + 2500, start_v1, sizeof start_v1);
    /* a real-time session's lost-event record (classic 32-bit header,
     * RT_LostEvent {6a399ae0-4bc6-4de9-870b-3657f8947e7e} opcode 32) */
    static const uint8_t rt_lost[16] = {0xe0, 0x9a, 0x39, 0x6a, 0xc6, 0x4b, 0xe9, 0x4d,
                                        0x87, 0x0b, 0x36, 0x57, 0xf8, 0x94, 0x7e, 0x7e};
    bb_u16(&b, 48);
    bb_u8(&b, 0x0a);
    bb_u8(&b, 0xc0);
    bb_u8(&b, 32); /* opcode */
    bb_u8(&b, 0);  /* level */
    bb_u16(&b, 0); /* version */
    bb_u32(&b, 7);
    bb_u32(&b, 42);
    bb_u64(&b, origin + 3000);
    bb_bytes(&b, rt_lost, 16);
    bb_zeros(&b, 8);
    /* an unknown header type (0x0e), 16 bytes */
    bb_u16(&b, 16);
    bb_u8(&b, 0x0e);
    bb_u8(&b, 0xc0);
    bb_zeros(&b, 12);
    bb_patch_u32(&b, at + 0x30, (uint32_t)(b.len - at));
    bb_zeros(&b, at + 0x200 - b.len);
    /* buffer 2, CPU 0: GC/Stop V1 at 1.25 ms, then a record cut short */
    at = b.len;
    static const uint8_t stop_v1[10] = {1, 0, 0, 0, 0, 0, 0, 0, 9, 0};
    synth_buffer_header(&b, 0x200, 0, 0, 0, 0);
    synth_clr_event(&b, 2, 1, origin + 1250, stop_v1, sizeof stop_v1);
    bb_u16(&b, 0x100); /* passes the filled end */
    bb_u8(&b, 0x13);
    bb_u8(&b, 0xc0);
    bb_zeros(&b, 12);
    bb_patch_u32(&b, at + 0x30, (uint32_t)(b.len - at));
    bb_zeros(&b, at + 0x200 - b.len);

    gcs_error err;
    gcs_source *src = gcs_source_from_memory(b.data, b.len, &err);
    gcs_reader *r = gcs_reader_new(src, NULL, &err);
    const gcs_event *ev;
    const char *want[] = {"EventTrace", "GC/Stop", "GC/Start", "RT_LostEvent/LostEvent"};
    const double msec[] = {0.0, 1.25, 2.5, 3.0};
    size_t n = 0;
    gcs_status st;
    while ((st = gcs_reader_next(r, &ev, &err)) == GCS_OK) {
        if (n < 4) {
            CHECK_EQ_STR(ev->type->name, want[n]);
            CHECK_NEAR(ev->msec, msec[n], 1e-9);
        }
        if (n == 2) {
            CHECK_EQ_U64(ev->pid, 42u);
            CHECK_EQ_U64(ev->tid, 7u);
            CHECK_EQ_U64(ev->processor, 1u);
            te_fields f = {0};
            CHECK(te_flatten_event(ev, &f));
            const te_field *count = te_fields_get(&f, "Count");
            const te_field *clr = te_fields_get(&f, "ClrInstanceID");
            CHECK(count && clr);
            if (count && clr) {
                CHECK_EQ_STR(count->value, "1");
                CHECK_EQ_STR(clr->value, "9");
            }
            te_fields_free(&f);
        }
        n++;
    }
    CHECK_EQ_INT(st, GCS_END);
    CHECK_EQ_U64(n, 4u);
    const gcs_trace_info *ti = gcs_reader_info(r);
    CHECK_EQ_INT(ti->pointer_size, 4);
    CHECK_EQ_INT(ti->cpu_count, 2);
    CHECK_EQ_U64((uint64_t)ti->clock_frequency, 1000000u);
    check_start(ti, 2020, 1, 2, 3, 4, 5, 678);
    /* events lost, buffers lost, the RT_LostEvent record, unknown header
     * type, record past the end */
    CHECK_EQ_U64(gcs_reader_get_stats(r)->anomalies, 5u);
    gcs_reader_free(r);
    gcs_source_free(src);
}

/* Reads data[0..size) to the end; returns the status. */
static gcs_status read_bytes(const uint8_t *data, size_t size, uint64_t *events)
{
    gcs_error err;
    gcs_error_clear(&err);
    gcs_source *src = gcs_source_from_memory(data, size, &err);
    gcs_reader *r = gcs_reader_new(src, NULL, &err);
    const gcs_event *ev;
    gcs_status st;
    *events = 0;
    while ((st = gcs_reader_next(r, &ev, &err)) == GCS_OK)
        (*events)++;
    if (st < 0)
        CHECK(err.reason[0] != 0);
    gcs_reader_free(r);
    gcs_source_free(src);
    return st;
}

/* Cuts at many lengths and bit flips: a status, never a crash. */
static void test_robust(void)
{
    if (!check_file_exists(GCEVENTS))
        SKIP("../shared absent");
    const char *paths[] = {GCEVENTS, PRIMITIVE, SELF_DESCRIBING};
    uint64_t seed = 0x9E3779B97F4A7C15ull;
    unsigned cuts = 0, flips = 0, truncated = 0;
    for (size_t f = 0; f < 3; f++) {
        size_t size;
        uint8_t *data = check_read_file(paths[f], &size);
        CHECK(data != NULL);
        if (!data)
            continue;
        uint64_t all, n;
        CHECK_EQ_INT(read_bytes(data, size, &all), GCS_END);
        for (size_t cut = 1; cut < size; cut += size / 97 + 1, cuts++) {
            gcs_status st = read_bytes(data, cut, &n);
            truncated += st == GCS_ERR_TRUNCATED;
            CHECK(n <= all);
        }
        uint8_t *copy = malloc(size);
        for (unsigned i = 0; i < 200; i++, flips++) {
            memcpy(copy, data, size);
            for (int k = 0; k < 4; k++) {
                seed = seed * 6364136223846793005ull + 1442695040888963407ull;
                size_t at = (size_t)(seed >> 33) % size;
                copy[at] ^= (uint8_t)(1u << ((seed >> 20) & 7));
            }
            (void)read_bytes(copy, size, &n);
        }
        free(copy);
        free(data);
    }
    printf("robust: %u cuts (%u truncated), %u bit-flipped copies read\n", cuts, truncated, flips);
    CHECK(truncated > 0);
}

int main(void)
{
    RUN(test_xpress);
    RUN(test_synthetic_32bit);
    RUN(test_header);
    RUN(test_baselines);
    RUN(test_gc_stats);
    RUN(test_compressed);
    RUN(test_x86_framework);
    RUN(test_robust);
    return check_report("test_etl");
}
