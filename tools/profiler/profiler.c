/*
 * tools/profiler/profiler.c - libgcscope_profiler.so, a CoreCLR profiler
 * in C that follows every object through every GC.
 *
 * The runtime loads it when CORECLR_ENABLE_PROFILING=1,
 * CORECLR_PROFILER={the CLSID below} and CORECLR_PROFILER_PATH name it
 * (`gcscope profile` sets them), calls DllGetClassObject, creates the
 * callback object and asks it for the highest ICorProfilerCallbackN it
 * knows. We answer for 1..11 with one object: the callbacks we use are
 * implemented, every other slot returns S_OK.
 *
 * What leaves the process is the record stream of docs/format-profile.md
 * (format/profile/profile_format.h), through record_queue.c's bounded
 * buffers and writer thread: a callback never waits for I/O.
 *
 * Environment: GCSCOPE_PROFILE_OUT (output file; default
 * gcscope-PID.gcprof), GCSCOPE_PROFILE_TYPES (POSIX extended regex: only
 * the types whose name matches are recorded), GCSCOPE_PROFILE_BUFFER
 * (bytes per buffer, default 8 MiB, at least 4096), GCSCOPE_PROFILE_STATS=1
 * (at exit, one line on stderr: GCs, time inside the range callbacks,
 * records dropped; scripts/bench-profiler.sh reads it).
 */
#include <fcntl.h>
#include <regex.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "corprof_c.h"
#include "format/profile/profile_format.h"
#include "record_queue.h"

#define EXPORT __attribute__((visibility("default")))

/* {8C2E5F0A-3B7D-4E61-9A24-6D1F0C5B9E73}: gcscope's profiler CLSID (also
 * in tools/cli/cmd_profile.c). */
static const prof_guid clsid_gcscope = {
    0x8C2E5F0Au, 0x3B7D, 0x4E61, {0x9A, 0x24, 0x6D, 0x1F, 0x0C, 0x5B, 0x9E, 0x73}};

static const prof_guid iid_unknown = {
    0x00000000u, 0x0000, 0x0000, {0xC0, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x46}};
static const prof_guid iid_class_factory = {
    0x00000001u, 0x0000, 0x0000, {0xC0, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x46}};
static const prof_guid iid_info4 = {
    0x0d8fdcaau, 0x6257, 0x47bf, {0xb1, 0xbf, 0x94, 0xda, 0xc8, 0x84, 0x66, 0xee}};
static const prof_guid iid_metadata_import = {
    0x7DAC8207u, 0xD3AE, 0x4c75, {0x9B, 0x67, 0x92, 0x80, 0x1A, 0x49, 0x7D, 0x44}};
/* ICorProfilerCallback, 2, 3 ... 11. */
static const prof_guid iid_callbacks[] = {
    {0x176FBED1u, 0xA55C, 0x4796, {0x98, 0xCA, 0xA9, 0xDA, 0x0E, 0xF8, 0x83, 0xE7}},
    {0x8A8CC829u, 0xCCF2, 0x49fe, {0xBB, 0xAE, 0x0F, 0x02, 0x22, 0x28, 0x07, 0x1A}},
    {0x4FD2ED52u, 0x7731, 0x4b8d, {0x94, 0x69, 0x03, 0xD2, 0xCC, 0x30, 0x86, 0xC5}},
    {0x7B63B2E3u, 0x107D, 0x4d48, {0xB2, 0xF6, 0xF6, 0x1E, 0x22, 0x94, 0x70, 0xD2}},
    {0x8DFBA405u, 0x8C9F, 0x45F8, {0xBF, 0xFA, 0x83, 0xB1, 0x4C, 0xEF, 0x78, 0xB5}},
    {0xFC13DF4Bu, 0x4448, 0x4F4F, {0x95, 0x0C, 0xBA, 0x8D, 0x19, 0xD0, 0x0C, 0x36}},
    {0xF76A2DBAu, 0x1D52, 0x4539, {0x86, 0x6C, 0x2A, 0xA5, 0x18, 0xF9, 0xEF, 0xC3}},
    {0x5BED9B15u, 0xC079, 0x4D47, {0xBF, 0xE2, 0x21, 0x5A, 0x14, 0x0C, 0x07, 0xE0}},
    {0x27583EC3u, 0xC8F5, 0x482F, {0x80, 0x52, 0x19, 0x4B, 0x8C, 0xE4, 0x70, 0x5A}},
    {0xCEC5B60Eu, 0xC69C, 0x495F, {0x87, 0xF6, 0x84, 0xD2, 0x8E, 0xE1, 0x6F, 0xFB}},
    {0x42350846u, 0xAAED, 0x47F7, {0xB1, 0x28, 0xFD, 0x0C, 0x98, 0x88, 0x1C, 0xDE}},
};

static bool same_guid(const prof_guid *a, const prof_guid *b)
{
    return memcmp(a, b, sizeof *a) == 0;
}

/* ------------------------------------------------------------------ */
/* State                                                               */

/* A class seen by ObjectAllocated: named once (TYPE record), then only
 * its ClassID goes with each allocation. */
typedef struct class_slot {
    ClassID id;    /* 0: empty */
    bool tracked;  /* its name matched GCSCOPE_PROFILE_TYPES (or no filter) */
    size_t fixed_size; /* every object's size; 0: it varies (arrays, strings) */
} class_slot;


static struct {
    prof_info *info;
    gcs_record_queue queue;
    bool running;              /* the queue is started */
    bool finished;
    regex_t types;
    bool has_types;
    class_slot *classes;       /* open addressing, under queue.lock */
    size_t class_cap, class_count;
    uint32_t gc_number;
    uint64_t allocations;
    /* Bases of the relative ALLOC fields: what the file holds last (under
     * queue.lock; a dropped record changes nothing). */
    uint64_t base_time, base_address, base_class;
    class_slot last_class;     /* the class allocated last (loops repeat one): no hash */
    uint64_t range_ns, range_calls, ranges_seen; /* clock ticks inside Moved/SurvivingReferences2 */
    bool stats;                /* GCSCOPE_PROFILE_STATS=1: say them at exit */
    atomic_int refs;
} prof;

static uint64_t clock_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Record times. Every allocation is stamped, so the clock must be cheap:
 * on x86-64 with an invariant TSC (constant_tsc and nonstop_tsc in
 * /proc/cpuinfo) the TSC, its frequency measured against CLOCK_MONOTONIC
 * over 20 ms at start (the header says it); elsewhere CLOCK_MONOTONIC in
 * ns (a vDSO call: several times dearer per allocation). */
static bool use_tsc;
static uint64_t clock_frequency = 1000000000u;

static uint64_t now_ns(void)
{
#if defined(__x86_64__)
    if (use_tsc)
        return __builtin_ia32_rdtsc();
#endif
    return clock_ns();
}

static void choose_clock(void)
{
#if defined(__x86_64__)
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (!f)
        return;
    char line[4096];
    bool constant = false, nonstop = false;
    while (fgets(line, sizeof line, f) && !(constant && nonstop)) {
        if (strncmp(line, "flags", 5) != 0)
            continue;
        constant = strstr(line, " constant_tsc") != NULL;
        nonstop = strstr(line, " nonstop_tsc") != NULL;
        break;
    }
    fclose(f);
    if (!constant || !nonstop)
        return;
    uint64_t n0 = clock_ns(), c0 = __builtin_ia32_rdtsc(), n1;
    while ((n1 = clock_ns()) - n0 < 20000000u)
        ;
    uint64_t c1 = __builtin_ia32_rdtsc();
    if (c1 <= c0)
        return;
    clock_frequency = (uint64_t)((double)(c1 - c0) * 1e9 / (double)(n1 - n0) + 0.5);
    use_tsc = clock_frequency > 0;
#endif
}

static uint8_t *put_u64(uint8_t *p, uint64_t v)
{
    for (int i = 0; i < 8; i++)
        p[i] = (uint8_t)(v >> (8 * i));
    return p + 8;
}

static uint8_t *put_u32(uint8_t *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (uint8_t)(v >> (8 * i));
    return p + 4;
}

static uint8_t *put_varuint(uint8_t *p, uint64_t v)
{
    while (v >= 0x80) {
        *p++ = (uint8_t)(v | 0x80);
        v >>= 7;
    }
    *p++ = (uint8_t)v;
    return p;
}

static uint8_t *put_zigzag(uint8_t *p, uint64_t delta)
{
    int64_t d = (int64_t)delta;
    return put_varuint(p, ((uint64_t)d << 1) ^ (uint64_t)(d >> 63));
}

/* The clock for a record, never before the file's last time (the TSCs
 * of two cores may differ by a few ticks). Under queue.lock. */
static uint64_t stamp(void)
{
    uint64_t t = now_ns();
    return t < prof.base_time ? prof.base_time : t;
}

/* Appends a record whose time is t (0: it has none); the time base
 * moves only when it is in the file. Under queue.lock. */
static bool emit(const uint8_t *rec, size_t n, uint64_t t)
{
    if (!gcs_rq_append_locked(&prof.queue, rec, n, prof.base_time))
        return false;
    if (t)
        prof.base_time = t;
    return true;
}

/* ------------------------------------------------------------------ */
/* Class names                                                         */

static void append(char *out, size_t cap, size_t *len, const char *s)
{
    size_t n = strlen(s);
    if (n > cap - 1 - *len)
        n = cap - 1 - *len;
    memcpy(out + *len, s, n);
    *len += n;
    out[*len] = 0;
}

/* UTF-16 to UTF-8 (lone surrogates become U+FFFD). */
static void append_utf16(char *out, size_t cap, size_t *len, const WCHAR *w, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        uint32_t c = w[i];
        if (c >= 0xD800 && c < 0xDC00 && i + 1 < n && w[i + 1] >= 0xDC00 && w[i + 1] < 0xE000) {
            c = 0x10000 + ((c - 0xD800) << 10) + (w[i + 1] - 0xDC00u);
            i++;
        } else if (c >= 0xD800 && c < 0xE000) {
            c = 0xFFFD;
        }
        char b[5] = {0};
        if (c < 0x80) {
            b[0] = (char)c;
        } else if (c < 0x800) {
            b[0] = (char)(0xC0 | (c >> 6));
            b[1] = (char)(0x80 | (c & 0x3F));
        } else if (c < 0x10000) {
            b[0] = (char)(0xE0 | (c >> 12));
            b[1] = (char)(0x80 | ((c >> 6) & 0x3F));
            b[2] = (char)(0x80 | (c & 0x3F));
        } else {
            b[0] = (char)(0xF0 | (c >> 18));
            b[1] = (char)(0x80 | ((c >> 12) & 0x3F));
            b[2] = (char)(0x80 | ((c >> 6) & 0x3F));
            b[3] = (char)(0x80 | (c & 0x3F));
        }
        append(out, cap, len, b);
    }
}

/* Names of the element types an array of a primitive reports (CorElementType). */
static const char *primitive_name(uint32_t element_type)
{
    switch (element_type) {
    case 0x02: return "System.Boolean";
    case 0x03: return "System.Char";
    case 0x04: return "System.SByte";
    case 0x05: return "System.Byte";
    case 0x06: return "System.Int16";
    case 0x07: return "System.UInt16";
    case 0x08: return "System.Int32";
    case 0x09: return "System.UInt32";
    case 0x0a: return "System.Int64";
    case 0x0b: return "System.UInt64";
    case 0x0c: return "System.Single";
    case 0x0d: return "System.Double";
    case 0x0e: return "System.String";
    case 0x18: return "System.IntPtr";
    case 0x19: return "System.UIntPtr";
    case 0x1c: return "System.Object";
    default: return NULL;
    }
}

/* The name as TraceEvent writes type names: Namespace.Name, nested types
 * as Namespace.Outer+Inner, generic arguments in brackets
 * (List`1[System.Int32]), arrays with []. */
static void class_name(ClassID id, char *out, size_t cap, size_t *len, int depth);

/* Arrays and strings are the only objects whose size varies (and the
 * only ones the LOH or POH can hold: a class's fixed size is far below
 * the LOH threshold, and pinned allocation takes arrays only). */
static bool variable_size(ClassID id, const char *name)
{
    prof_info *info = prof.info;
    uint32_t element_type = 0;
    ClassID element = 0;
    ULONG rank = 0;
    return info->vtbl->IsArrayClass(info, id, &element_type, &element, &rank) == S_OK ||
           strcmp(name, "System.String") == 0;
}

static void class_name(ClassID id, char *out, size_t cap, size_t *len, int depth)
{
    prof_info *info = prof.info;
    if (depth > 4) {
        append(out, cap, len, "?");
        return;
    }
    uint32_t element_type = 0;
    ClassID element = 0;
    ULONG rank = 0;
    if (info->vtbl->IsArrayClass(info, id, &element_type, &element, &rank) == S_OK) {
        const char *prim = primitive_name(element_type);
        if (element != 0)
            class_name(element, out, cap, len, depth + 1);
        else
            append(out, cap, len, prim ? prim : "?");
        append(out, cap, len, "[");
        for (ULONG r = 1; r < rank; r++)
            append(out, cap, len, ",");
        append(out, cap, len, "]");
        return;
    }
    ModuleID module = 0;
    mdToken td = 0;
    ClassID parent = 0, args[16];
    uint32_t n_args = 0;
    if (!PROF_SUCCEEDED(info->vtbl->GetClassIDInfo2(info, id, &module, &td, &parent, 16, &n_args,
                                                    args))) {
        append(out, cap, len, "?");
        return;
    }
    prof_unknown *unk = NULL;
    bool named = false;
    if (info->vtbl->GetModuleMetaData(info, module, 0 /* ofRead */, &iid_metadata_import, &unk) ==
            S_OK &&
        unk) {
        prof_metadata *md = (prof_metadata *)unk;
        /* A nested type is named after the types that enclose it, outermost
         * first, joined by '+' as the runtime's own type names (and
         * TraceEvent's) do: Namespace.Outer+Inner. */
        enum { MAX_NESTING = 8 };
        mdToken chain[MAX_NESTING];
        int depth_n = 0;
        chain[depth_n++] = td;
        mdToken enclosing = 0;
        while (depth_n < MAX_NESTING &&
               md->vtbl->GetNestedClassProps(md, chain[depth_n - 1], &enclosing) == S_OK &&
               enclosing != 0)
            chain[depth_n++] = enclosing;
        for (int i = depth_n; i-- > 0;) {
            WCHAR w[512];
            ULONG n = 0;
            DWORD flags = 0;
            mdToken extends = 0;
            if (!PROF_SUCCEEDED(
                    md->vtbl->GetTypeDefProps(md, chain[i], w, 512, &n, &flags, &extends))) {
                named = false;
                break;
            }
            if (n > 0 && w[n - 1] == 0)
                n--;
            if (i != depth_n - 1)
                append(out, cap, len, "+");
            append_utf16(out, cap, len, w, n < 512 ? n : 511);
            named = true;
        }
        md->vtbl->Release(md);
    }
    if (!named)
        append(out, cap, len, "?");
    if (n_args > 16)
        n_args = 16;
    if (n_args > 0) {
        append(out, cap, len, "[");
        for (uint32_t i = 0; i < n_args; i++) {
            if (i)
                append(out, cap, len, ",");
            class_name(args[i], out, cap, len, depth + 1);
        }
        append(out, cap, len, "]");
    }
}

/* ------------------------------------------------------------------ */
/* The class table (under queue.lock)                                   */

static class_slot *class_find(ClassID id)
{
    if (!prof.classes)
        return NULL;
    size_t mask = prof.class_cap - 1;
    size_t h = (size_t)((id >> 3) * 0x9E3779B97F4A7C15ull) & mask;
    while (prof.classes[h].id) {
        if (prof.classes[h].id == id)
            return &prof.classes[h];
        h = (h + 1) & mask;
    }
    return NULL;
}

static class_slot *class_insert(ClassID id, bool tracked, size_t fixed_size)
{
    if ((prof.class_count + 1) * 2 > prof.class_cap) {
        size_t cap = prof.class_cap ? prof.class_cap * 2 : 1024;
        class_slot *n = calloc(cap, sizeof *n);
        if (!n)
            return NULL;
        for (size_t i = 0; i < prof.class_cap; i++) {
            if (!prof.classes[i].id)
                continue;
            size_t h = (size_t)((prof.classes[i].id >> 3) * 0x9E3779B97F4A7C15ull) & (cap - 1);
            while (n[h].id)
                h = (h + 1) & (cap - 1);
            n[h] = prof.classes[i];
        }
        free(prof.classes);
        prof.classes = n;
        prof.class_cap = cap;
    }
    size_t mask = prof.class_cap - 1;
    size_t h = (size_t)((id >> 3) * 0x9E3779B97F4A7C15ull) & mask;
    while (prof.classes[h].id)
        h = (h + 1) & mask;
    prof.classes[h].id = id;
    prof.classes[h].tracked = tracked;
    prof.classes[h].fixed_size = fixed_size;
    prof.class_count++;
    return &prof.classes[h];
}

/* ------------------------------------------------------------------ */
/* Callbacks                                                           */

static HRESULT cb_query_interface(prof_callback *self, const prof_guid *riid, void **out);
static ULONG cb_add_ref(prof_callback *self) { return (ULONG)atomic_fetch_add(&prof.refs, 1) + 1; }
static ULONG cb_release(prof_callback *self) { return (ULONG)atomic_fetch_sub(&prof.refs, 1) - 1; }

static HRESULT cb_stub(void *self) { return S_OK; }

static void write_header(int fd)
{
    uint8_t h[GCS_PROFILE_HEADER_SIZE] = {0};
    memcpy(h, GCS_PROFILE_MAGIC, 8);
    uint8_t *p = h + 8;
    p = put_u32(p, GCS_PROFILE_VERSION);
    p = put_u32(p, GCS_PROFILE_HEADER_SIZE);
    p = put_u32(p, (uint32_t)getpid());
    p = put_u32(p, (uint32_t)sizeof(void *));
    p = put_u64(p, clock_frequency);
    prof.base_time = now_ns();
    p = put_u64(p, prof.base_time);
    struct timeval tv;
    gettimeofday(&tv, NULL);
    put_u64(p, (uint64_t)tv.tv_sec * 1000u + (uint64_t)tv.tv_usec / 1000u);
    ssize_t w = write(fd, h, sizeof h);
    (void)w;
}

static HRESULT cb_initialize(prof_callback *self, prof_unknown *unk)
{
    prof_info *info = NULL;
    if (unk->vtbl->QueryInterface(unk, &iid_info4, (void **)&info) != S_OK || !info) {
        fprintf(stderr, "gcscope profiler: the runtime has no ICorProfilerInfo4: not profiling\n");
        return E_FAIL;
    }
    prof.info = info;
    const char *stats = getenv("GCSCOPE_PROFILE_STATS");
    prof.stats = stats && strcmp(stats, "1") == 0;
    const char *types = getenv("GCSCOPE_PROFILE_TYPES");
    if (types && *types) {
        if (regcomp(&prof.types, types, REG_EXTENDED | REG_NOSUB) != 0) {
            fprintf(stderr, "gcscope profiler: GCSCOPE_PROFILE_TYPES is not a regular "
                            "expression: not profiling\n");
            return E_FAIL;
        }
        prof.has_types = true;
    }
    const char *out = getenv("GCSCOPE_PROFILE_OUT");
    char def[64];
    if (!out || !*out) {
        snprintf(def, sizeof def, "gcscope-%d.gcprof", (int)getpid());
        out = def;
    }
    int fd = open(out, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) {
        fprintf(stderr, "gcscope profiler: cannot open %s: not profiling\n", out);
        return E_FAIL;
    }
    size_t cap = (size_t)8 << 20;
    const char *b = getenv("GCSCOPE_PROFILE_BUFFER");
    if (b && *b) {
        char *end;
        unsigned long long v = strtoull(b, &end, 10);
        if (*end == 0 && v >= 4096 && v <= ((size_t)1 << 30))
            cap = (size_t)v;
    }
    choose_clock();
    write_header(fd);
    if (!gcs_rq_start(&prof.queue, fd, cap)) {
        fprintf(stderr, "gcscope profiler: no memory for the buffers: not profiling\n");
        close(fd);
        return E_FAIL;
    }
    prof.running = true;
    DWORD mask = PROF_MONITOR_GC | PROF_MONITOR_OBJECT_ALLOCATED | PROF_ENABLE_OBJECT_ALLOCATED;
    if (info->vtbl->SetEventMask(info, mask) != S_OK) {
        fprintf(stderr, "gcscope profiler: SetEventMask refused: not profiling\n");
        return E_FAIL;
    }
    return S_OK;
}

static void finish(void)
{
    if (!prof.running || prof.finished)
        return;
    prof.finished = true;
    uint8_t rec[25];
    rec[0] = GCS_PROFILE_EXIT;
    gcs_rq_lock(&prof.queue);
    gcs_rq_wait_room_locked(&prof.queue, sizeof rec);
    uint64_t now = stamp();
    put_u64(put_u64(put_u64(rec + 1, now), prof.allocations), prof.queue.lost_records_total);
    emit(rec, sizeof rec, now);
    gcs_rq_unlock(&prof.queue);
    gcs_rq_finish(&prof.queue);
    if (prof.stats)
        fprintf(stderr,
                "gcscope profiler: %u GCs, %llu allocations, %llu range callbacks with %llu "
                "ranges: %.3f ms inside them (%.3f ms per GC), %llu records dropped\n",
                prof.gc_number, (unsigned long long)prof.allocations,
                (unsigned long long)prof.range_calls, (unsigned long long)prof.ranges_seen,
                prof.range_ns * 1e3 / clock_frequency,
                prof.gc_number ? prof.range_ns * 1e3 / clock_frequency / prof.gc_number : 0.0,
                (unsigned long long)prof.queue.lost_records_total);
}

static HRESULT cb_shutdown(prof_callback *self)
{
    finish();
    return S_OK;
}

/* A process that ends without Shutdown (exit from native code) still
 * gets its buffers written. */
__attribute__((destructor)) static void at_unload(void) { finish(); }

/* The class's table entry, named and written (TYPE) the first time: its
 * facts in *tracked and *fixed_size. */
static void class_facts(ObjectID object, ClassID class_id, bool *tracked, size_t *fixed_size)
{
    gcs_rq_lock(&prof.queue);
    class_slot *c = class_find(class_id);
    if (c) {
        *tracked = c->tracked;
        *fixed_size = c->fixed_size;
    }
    gcs_rq_unlock(&prof.queue);
    if (c)
        return;
    /* First object of this class: name it outside the lock (the metadata
     * calls may take the runtime's own locks). */
    prof_info *info = prof.info;
    char name[GCS_PROFILE_MAX_NAME];
    size_t len = 0;
    name[0] = 0;
    class_name(class_id, name, sizeof name, &len, 0);
    *tracked = !prof.has_types || regexec(&prof.types, name, 0, NULL, 0) == 0;
    *fixed_size = 0;
    if (!variable_size(class_id, name) &&
        !PROF_SUCCEEDED(info->vtbl->GetObjectSize2(info, object, fixed_size)))
        *fixed_size = 0;
    uint8_t rec[1 + 8 + 2 + GCS_PROFILE_MAX_NAME];
    rec[0] = GCS_PROFILE_TYPE;
    put_u64(rec + 1, class_id);
    rec[9] = (uint8_t)len;
    rec[10] = (uint8_t)(len >> 8);
    memcpy(rec + 11, name, len);
    gcs_rq_lock(&prof.queue);
    if (!class_find(class_id)) {
        if (class_insert(class_id, *tracked, *fixed_size) && *tracked)
            emit(rec, 11 + len, 0);
    }
    gcs_rq_unlock(&prof.queue);
}

static HRESULT cb_object_allocated(prof_callback *self, ObjectID object, ClassID class_id)
{
    if (!prof.running || prof.finished)
        return S_OK;
    gcs_rq_lock(&prof.queue);
    if (class_id != prof.last_class.id) {
        class_slot *c = class_find(class_id);
        if (!c) {
            bool tracked;
            size_t fixed_size;
            gcs_rq_unlock(&prof.queue);
            class_facts(object, class_id, &tracked, &fixed_size);
            gcs_rq_lock(&prof.queue);
            c = class_find(class_id);
            if (!c) {
                /* The table is full (no memory): this class goes unnamed. */
                gcs_rq_unlock(&prof.queue);
                return S_OK;
            }
        }
        prof.last_class = *c;
    }
    if (!prof.last_class.tracked) {
        gcs_rq_unlock(&prof.queue);
        return S_OK;
    }
    size_t size = prof.last_class.fixed_size;
    uint8_t kind = GCS_PROFILE_ALLOC;
    if (size == 0) {
        /* An array or a string: its own size, and where it went (outside
         * the lock: these ask the runtime). */
        gcs_rq_unlock(&prof.queue);
        prof_info *info = prof.info;
        if (!PROF_SUCCEEDED(info->vtbl->GetObjectSize2(info, object, &size)))
            size = 0;
        prof_generation_range range;
        if (PROF_SUCCEEDED(info->vtbl->GetObjectGeneration(info, object, &range))) {
            if (range.generation == PROF_GEN_LOH)
                kind = GCS_PROFILE_ALLOC_LARGE;
            else if (range.generation == PROF_GEN_POH)
                kind = GCS_PROFILE_ALLOC_PINNED;
        }
        gcs_rq_lock(&prof.queue);
    }
    uint8_t rec[GCS_PROFILE_ALLOC_MAX];
    rec[0] = kind;
    uint64_t now = stamp();
    uint8_t *p = put_varuint(rec + 1, now - prof.base_time);
    p = put_zigzag(p, (uint64_t)object - prof.base_address);
    p = put_zigzag(p, (uint64_t)class_id - prof.base_class);
    p = put_varuint(p, size);
    prof.allocations++;
    if (emit(rec, (size_t)(p - rec), now)) {
        prof.base_address = object;
        prof.base_class = class_id;
    }
    gcs_rq_unlock(&prof.queue);
    return S_OK;
}

static HRESULT cb_gc_started(prof_callback *self, int generations, const BOOL *collected,
                             int reason)
{
    if (!prof.running || prof.finished)
        return S_OK;
    int condemned = -1;
    for (int g = 0; g < generations && g <= 2; g++)
        if (collected[g])
            condemned = g;
    if (condemned < 0)
        condemned = 2; /* only LOH/POH: they belong to gen-2 collections */
    uint8_t rec[15];
    rec[0] = GCS_PROFILE_GC_START;
    gcs_rq_lock(&prof.queue);
    uint64_t now = stamp();
    prof.gc_number++;
    put_u32(put_u64(rec + 1, now), prof.gc_number);
    rec[13] = (uint8_t)condemned;
    rec[14] = reason == 1; /* COR_PRF_GC_INDUCED */
    emit(rec, sizeof rec, now);
    gcs_rq_unlock(&prof.queue);
    return S_OK;
}

/* MOVED / SURVIVING records of at most what one buffer holds. */
static void ranges(uint8_t kind, ULONG count, const ObjectID *a, const ObjectID *b,
                   const size_t *length)
{
    if (!prof.running || prof.finished)
        return;
    size_t per = kind == GCS_PROFILE_MOVED ? 24 : 16;
    size_t fit = (prof.queue.cap - 5 - 25) / per; /* room for a LOST record too */
    if (fit > GCS_PROFILE_MAX_RANGES)
        fit = GCS_PROFILE_MAX_RANGES;
    uint8_t chunk[5 + 256 * 24];
    if (fit > 256)
        fit = 256;
    gcs_rq_lock(&prof.queue);
    uint64_t now = now_ns();
    prof.range_calls++;
    prof.ranges_seen += count;
    for (ULONG i = 0; i < count;) {
        ULONG n = count - i < fit ? count - i : (ULONG)fit;
        chunk[0] = kind;
        uint8_t *p = put_u32(chunk + 1, n);
        for (ULONG k = 0; k < n; k++, i++) {
            p = put_u64(p, a[i]);
            if (kind == GCS_PROFILE_MOVED)
                p = put_u64(p, b[i]);
            p = put_u64(p, length[i]);
        }
        emit(chunk, (size_t)(p - chunk), 0);
    }
    prof.range_ns += now_ns() - now;
    gcs_rq_unlock(&prof.queue);
}

static HRESULT cb_moved2(prof_callback *self, ULONG count, const ObjectID *old_start,
                         const ObjectID *new_start, const size_t *length)
{
    ranges(GCS_PROFILE_MOVED, count, old_start, new_start, length);
    return E_FAIL; /* the runtime then skips the 32-bit MovedReferences */
}

static HRESULT cb_surviving2(prof_callback *self, ULONG count, const ObjectID *start,
                             const size_t *length)
{
    ranges(GCS_PROFILE_SURVIVING, count, start, NULL, length);
    return E_FAIL; /* the runtime then skips the 32-bit SurvivingReferences */
}

/* The heap's layout after a GC (GetGenerationBounds): GENERATIONS
 * records, so that the reader knows each object's generation instead of
 * guessing it from promotion (pinned survivors stay in gen0, for one).
 * Under queue.lock; the runtime is suspended. */
static void generations(void)
{
    static prof_generation_range *bounds;
    static ULONG cap;
    prof_info *info = prof.info;
    ULONG n = 0;
    for (int tries = 0; tries < 3; tries++) {
        if (!PROF_SUCCEEDED(info->vtbl->GetGenerationBounds(info, cap, &n, bounds)))
            return;
        if (n <= cap)
            break;
        prof_generation_range *b = realloc(bounds, (size_t)n * 2 * sizeof *b);
        if (!b)
            return;
        bounds = b;
        cap = n * 2;
    }
    if (n > cap)
        return;
    size_t per = 25;
    size_t fit = (prof.queue.cap - 5 - 25) / per;
    if (fit > 256)
        fit = 256;
    uint8_t chunk[5 + 256 * 25];
    for (ULONG i = 0; i < n;) {
        ULONG k = n - i < fit ? n - i : (ULONG)fit;
        chunk[0] = GCS_PROFILE_GENERATIONS;
        uint8_t *p = put_u32(chunk + 1, k);
        for (ULONG j = 0; j < k; j++, i++) {
            *p++ = (uint8_t)bounds[i].generation;
            p = put_u64(p, bounds[i].start);
            p = put_u64(p, bounds[i].length);
            p = put_u64(p, bounds[i].reserved);
        }
        emit(chunk, (size_t)(p - chunk), 0);
    }
}

static HRESULT cb_gc_finished(prof_callback *self)
{
    if (!prof.running || prof.finished)
        return S_OK;
    uint8_t rec[13];
    rec[0] = GCS_PROFILE_GC_END;
    gcs_rq_lock(&prof.queue);
    generations();
    uint64_t now = stamp();
    put_u32(put_u64(rec + 1, now), prof.gc_number);
    emit(rec, sizeof rec, now);
    gcs_rq_unlock(&prof.queue);
    return S_OK;
}

static HRESULT cb_load_as_notification_only(prof_callback *self, BOOL *only)
{
    if (only)
        *only = 0;
    return S_OK;
}

#define STUB ((prof_slot)cb_stub)

static const prof_callback_vtbl callback_vtbl = {
    .QueryInterface = cb_query_interface,
    .AddRef = cb_add_ref,
    .Release = cb_release,
    .Initialize = cb_initialize,
    .Shutdown = cb_shutdown,
    .AppDomainCreationStarted = STUB, .AppDomainCreationFinished = STUB,
    .AppDomainShutdownStarted = STUB, .AppDomainShutdownFinished = STUB,
    .AssemblyLoadStarted = STUB, .AssemblyLoadFinished = STUB,
    .AssemblyUnloadStarted = STUB, .AssemblyUnloadFinished = STUB,
    .ModuleLoadStarted = STUB, .ModuleLoadFinished = STUB,
    .ModuleUnloadStarted = STUB, .ModuleUnloadFinished = STUB, .ModuleAttachedToAssembly = STUB,
    .ClassLoadStarted = STUB, .ClassLoadFinished = STUB,
    .ClassUnloadStarted = STUB, .ClassUnloadFinished = STUB,
    .FunctionUnloadStarted = STUB,
    .JITCompilationStarted = STUB, .JITCompilationFinished = STUB,
    .JITCachedFunctionSearchStarted = STUB, .JITCachedFunctionSearchFinished = STUB,
    .JITFunctionPitched = STUB, .JITInlining = STUB,
    .ThreadCreated = STUB, .ThreadDestroyed = STUB, .ThreadAssignedToOSThread = STUB,
    .RemotingClientInvocationStarted = STUB, .RemotingClientSendingMessage = STUB,
    .RemotingClientReceivingReply = STUB, .RemotingClientInvocationFinished = STUB,
    .RemotingServerReceivingMessage = STUB, .RemotingServerInvocationStarted = STUB,
    .RemotingServerInvocationReturned = STUB, .RemotingServerSendingReply = STUB,
    .UnmanagedToManagedTransition = STUB, .ManagedToUnmanagedTransition = STUB,
    .RuntimeSuspendStarted = STUB, .RuntimeSuspendFinished = STUB,
    .RuntimeSuspendAborted = STUB, .RuntimeResumeStarted = STUB,
    .RuntimeResumeFinished = STUB, .RuntimeThreadSuspended = STUB,
    .RuntimeThreadResumed = STUB,
    .MovedReferences = STUB,
    .ObjectAllocated = cb_object_allocated,
    .ObjectsAllocatedByClass = STUB, .ObjectReferences = STUB, .RootReferences = STUB,
    .ExceptionThrown = STUB,
    .ExceptionSearchFunctionEnter = STUB, .ExceptionSearchFunctionLeave = STUB,
    .ExceptionSearchFilterEnter = STUB, .ExceptionSearchFilterLeave = STUB,
    .ExceptionSearchCatcherFound = STUB,
    .ExceptionOSHandlerEnter = STUB, .ExceptionOSHandlerLeave = STUB,
    .ExceptionUnwindFunctionEnter = STUB, .ExceptionUnwindFunctionLeave = STUB,
    .ExceptionUnwindFinallyEnter = STUB, .ExceptionUnwindFinallyLeave = STUB,
    .ExceptionCatcherEnter = STUB, .ExceptionCatcherLeave = STUB,
    .COMClassicVTableCreated = STUB, .COMClassicVTableDestroyed = STUB,
    .ExceptionCLRCatcherFound = STUB, .ExceptionCLRCatcherExecute = STUB,
    .ThreadNameChanged = STUB,
    .GarbageCollectionStarted = cb_gc_started,
    .SurvivingReferences = STUB,
    .GarbageCollectionFinished = cb_gc_finished,
    .FinalizeableObjectQueued = STUB, .RootReferences2 = STUB,
    .HandleCreated = STUB, .HandleDestroyed = STUB,
    .InitializeForAttach = STUB, .ProfilerAttachComplete = STUB,
    .ProfilerDetachSucceeded = STUB,
    .ReJITCompilationStarted = STUB, .GetReJITParameters = STUB,
    .ReJITCompilationFinished = STUB, .ReJITError = STUB,
    .MovedReferences2 = cb_moved2,
    .SurvivingReferences2 = cb_surviving2,
    .ConditionalWeakTableElementReferences = STUB,
    .GetAssemblyReferences = STUB,
    .ModuleInMemorySymbolsUpdated = STUB,
    .DynamicMethodJITCompilationStarted = STUB, .DynamicMethodJITCompilationFinished = STUB,
    .DynamicMethodUnloaded = STUB,
    .EventPipeEventDelivered = STUB, .EventPipeProviderCreated = STUB,
    .LoadAsNotificationOnly = cb_load_as_notification_only,
};

static prof_callback the_callback = {&callback_vtbl};

static HRESULT cb_query_interface(prof_callback *self, const prof_guid *riid, void **out)
{
    if (!out)
        return E_FAIL;
    bool ok = same_guid(riid, &iid_unknown);
    for (size_t i = 0; !ok && i < sizeof iid_callbacks / sizeof iid_callbacks[0]; i++)
        ok = same_guid(riid, &iid_callbacks[i]);
    if (!ok) {
        *out = NULL;
        return E_NOINTERFACE;
    }
    *out = self;
    cb_add_ref(self);
    return S_OK;
}

/* ------------------------------------------------------------------ */
/* The class factory and the export                                    */

static HRESULT cf_query_interface(prof_class_factory *self, const prof_guid *riid, void **out)
{
    if (same_guid(riid, &iid_unknown) || same_guid(riid, &iid_class_factory)) {
        *out = self;
        return S_OK;
    }
    *out = NULL;
    return E_NOINTERFACE;
}
static ULONG cf_add_ref(prof_class_factory *self) { return 1; }
static ULONG cf_release(prof_class_factory *self) { return 1; }

static HRESULT cf_create_instance(prof_class_factory *self, prof_unknown *outer,
                                  const prof_guid *riid, void **out)
{
    if (outer)
        return CLASS_E_NOAGGREGATION;
    return cb_query_interface(&the_callback, riid, out);
}

static HRESULT cf_lock_server(prof_class_factory *self, BOOL lock) { return S_OK; }

static const prof_class_factory_vtbl factory_vtbl = {
    cf_query_interface, cf_add_ref, cf_release, cf_create_instance, cf_lock_server};
static prof_class_factory the_factory = {&factory_vtbl};

EXPORT HRESULT DllGetClassObject(const prof_guid *clsid, const prof_guid *riid, void **out)
{
    if (!out)
        return E_FAIL;
    *out = NULL;
    if (!same_guid(clsid, &clsid_gcscope))
        return CLASS_E_CLASSNOTAVAILABLE;
    return cf_query_interface(&the_factory, riid, out);
}

EXPORT HRESULT DllCanUnloadNow(void) { return S_FALSE; }
