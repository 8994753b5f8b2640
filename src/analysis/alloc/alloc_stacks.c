/*
 * analysis/alloc/alloc_stacks.c - allocation samples by call stack
 * (gcscope/allocs.h; contract in docs/allocs.md).
 *
 * Feeding, in the reader's order, keeps two things: the methods' code
 * ranges (per process) and the ticks summed per distinct (process, stack,
 * type, class A events before them). finish sorts the ranges, resolves
 * each distinct stack once, and folds the sums into the three views. An
 * ETL tick waits, per thread, for the ClrStackWalk event that follows it.
 */
#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/cursor.h"
#include "base/hash.h"
#include "decode/gc_events.h"
#include "gcscope/allocs.h"
#include "gcscope/decode.h"
#include "pipeline/stack_table.h"

#define NO_ID UINT32_MAX

/* Interned strings: id -> text, and an open-addressing index. */
typedef struct strtab {
    gcs_arena arena;
    const char **text;
    size_t n, cap;
    gcs_index index;
    size_t bytes;
} strtab;

/*
 * A method's code range. TraceEvent (TraceLog) names a frame's address
 * with the first of these that covers it:
 *   class A, MethodUnloadVerbose and the rundown's MethodDCStopVerbose:
 *     in stream order, those after the event (they name the addresses
 *     seen so far, and an address they named is looked up afresh when it
 *     comes again);
 *   class B, the JIT-compiled ones among MethodLoadVerbose and the
 *     rundown's MethodDCStartVerbose: in stream order, after the whole
 *     trace.
 * seq is the range's place among its class's events.
 */
typedef struct method_range {
    uint32_t pid;
    uint32_t name; /* strtab id */
    uint64_t start, size;
    uint8_t cls;   /* CLASS_A, CLASS_B */
    uint64_t seq;
} method_range;

enum { CLASS_A = 0, CLASS_B = 1 };

/* Ticks of one (pid, stack, type, epoch); epoch: the class A events fed
 * before them. */
typedef struct tick_sum {
    uint32_t pid;
    uint32_t stack; /* the reader's stack id, WALK_STACK | a walk's, 0 none */
    uint32_t type;  /* strtab id of the type name; a trigger's reason: TRIGGER_TYPE | id */
    uint64_t epoch;
    uint64_t bytes, ticks;
} tick_sum;

/* A view's accumulator: key -> bytes, ticks. */
typedef struct view_sum {
    uint32_t method, type; /* strtab ids (type NO_ID outside BY_TYPE) */
    uint64_t bytes, ticks;
} view_sum;

/* The allocating call stacks: distinct sequences of method names. A path
 * is names[start .. start + n). */
typedef struct path_entry {
    size_t start, n;
    uint64_t bytes, ticks;
} path_entry;

typedef struct path_table {
    path_entry *paths;
    size_t n, cap;
    gcs_index index;
    uint32_t *names; /* strtab ids */
    size_t names_n, names_cap;
    gcs_allocs_stack *rows; /* by bytes, then samples, built by finish */
    const char **frames;
} path_table;

typedef struct view_table {
    view_sum *sums;
    size_t n, cap;
    gcs_index index;
    gcs_allocs_row *rows;
    size_t rows_n;
} view_table;

/* What an event type is to this analysis (by type index). */
enum { K_UNASKED = 0, K_NONE, K_TICK, K_TRIGGER, K_WALK, K_METHOD_A, K_METHOD_LOAD };

/* Type names cached by TypeID: entries, and UTF-16 bytes of a name. */
#define TYPE_CACHE_SLOTS 1024u
#define TYPE_CACHE_BYTES 240u

/* Stack ids of stack walk events (ETL) in tick_sum.stack: this bit and the
 * id in gcs_allocs.walks; the reader's ids are below it. */
#define WALK_STACK 0x80000000u

/* A thread's last CLR event, when it is a tick still without a stack: an
 * ETL trace writes the stack as a ClrStackWalk event just after it. */
typedef struct thread_last {
    bool pending;
    uint64_t tid;
    uint32_t pid, type;
    uint64_t bytes;
} thread_last;

struct gcs_allocs {
    strtab strings;
    method_range *methods;
    size_t methods_n, methods_cap;
    tick_sum *sums;
    size_t sums_n, sums_cap;
    gcs_index sums_index;
    uint8_t *kinds;
    size_t kinds_cap;
    uint64_t seq[2]; /* class A, class B ranges read */
    thread_last *threads;
    size_t threads_n, threads_cap;
    gcs_index threads_index;
    /* The type names of recent ticks by TypeID, as the payload spells
     * them (UTF-16): most ticks skip the conversion and the lookup. */
    struct type_cache {
        uint64_t type_id;
        uint32_t units; /* 0: empty */
        uint32_t name;  /* strtab id */
        uint8_t utf16[TYPE_CACHE_BYTES];
    } *type_cache;
    gcs_stack_table walks; /* the frames of ClrStackWalk events */
    path_table stacks;   /* the ticks' call stacks */
    path_table triggers; /* the GC triggers': the reason, then the frames */
    gcs_allocs_trigger *trigger_rows;
    /* By (pid, start); ends_max[i]: the largest end of ranges [0, i] of
     * the same pid, which bounds the search back for ranges covering an
     * address. */
    uint64_t *ends_max;
    view_table views[GCS_ALLOCS_VIEWS];
    gcs_allocs_stats stats;
    uint32_t no_method, no_stack;
    bool finished;
    bool has_from, has_to; /* gcs_allocs_set_time_range */
    double from_ms, to_ms;
};

static uint64_t str_hash(const char *s, size_t n)
{
    return gcs_hash_mix(gcs_hash_bytes(GCS_HASH_SEED, s, n));
}

static uint64_t strtab_hash_of(const void *ctx, uint32_t id)
{
    const char *text = ((const strtab *)ctx)->text[id];
    return str_hash(text, strlen(text));
}

/* The id of s[0..n), added when new; NO_ID past the limits. */
static uint32_t strtab_id(strtab *t, const char *s, size_t n)
{
    const uint64_t h = str_hash(s, n);
    uint32_t id;
    for (size_t k = gcs_index_first(&t->index, h); gcs_index_id(&t->index, k, &id);
         k = gcs_index_next(&t->index, k))
        if (strncmp(t->text[id], s, n) == 0 && t->text[id][n] == '\0')
            return id;
    if (n + 1 > GCS_ALLOCS_MAX_NAME_BYTES - t->bytes || t->n >= UINT32_MAX - 1 ||
        !gcs_index_room(&t->index, t->n, strtab_hash_of, t) ||
        !gcs_array_reserve((void **)&t->text, &t->cap, t->n + 1, sizeof *t->text, 256))
        return NO_ID;
    char *copy = gcs_arena_strndup(&t->arena, s, n);
    if (!copy)
        return NO_ID;
    t->text[t->n] = copy;
    gcs_index_put(&t->index, h, (uint32_t)t->n);
    t->bytes += n + 1;
    return (uint32_t)t->n++;
}

static uint32_t strtab_cstr(strtab *t, const char *s)
{
    return strtab_id(t, s, strlen(s));
}

static void path_table_free(path_table *pt)
{
    free(pt->paths);
    gcs_index_free(&pt->index);
    free(pt->names);
    free(pt->rows);
    free(pt->frames);
}

gcs_allocs *gcs_allocs_new(void)
{
    gcs_allocs *a = calloc(1, sizeof *a);
    if (!a)
        return NULL;
    gcs_arena_init(&a->strings.arena, GCS_ALLOCS_MAX_NAME_BYTES + ((size_t)1 << 20));
    gcs_stack_table_init(&a->walks);
    a->type_cache = calloc(TYPE_CACHE_SLOTS, sizeof *a->type_cache); /* NULL: no cache */
    a->no_method = strtab_cstr(&a->strings, GCS_ALLOCS_NO_METHOD);
    a->no_stack = strtab_cstr(&a->strings, GCS_ALLOCS_NO_STACK);
    if (a->no_method == NO_ID || a->no_stack == NO_ID) {
        gcs_allocs_free(a);
        return NULL;
    }
    return a;
}

void gcs_allocs_free(gcs_allocs *a)
{
    if (!a)
        return;
    gcs_arena_reset(&a->strings.arena);
    free(a->strings.text);
    gcs_index_free(&a->strings.index);
    free(a->methods);
    free(a->ends_max);
    free(a->threads);
    gcs_index_free(&a->threads_index);
    free(a->type_cache);
    path_table_free(&a->stacks);
    path_table_free(&a->triggers);
    free(a->trigger_rows);
    gcs_stack_table_free(&a->walks);
    free(a->sums);
    gcs_index_free(&a->sums_index);
    free(a->kinds);
    for (int v = 0; v < GCS_ALLOCS_VIEWS; v++) {
        free(a->views[v].sums);
        gcs_index_free(&a->views[v].index);
        free(a->views[v].rows);
    }
    free(a);
}

static const char RUNTIME[] = "Microsoft-Windows-DotNETRuntime";
static const char RUNDOWN[] = "Microsoft-Windows-DotNETRuntimeRundown";

/* The events with a method's range and names: MethodLoadVerbose and
 * MethodUnloadVerbose (runtime 143, 144), MethodDCStartVerbose and
 * MethodDCStopVerbose (rundown 143, 144). K_METHOD_A, K_METHOD_LOAD or
 * K_NONE. */
static int method_kind(const gcs_event_type *type)
{
    bool runtime = strcmp(type->provider, RUNTIME) == 0;
    if (!runtime && strcmp(type->provider, RUNDOWN) != 0)
        return K_NONE;
    return type->event_id == 143 ? K_METHOD_LOAD : type->event_id == 144 ? K_METHOD_A : K_NONE;
}

static const char PRIVATE[] = "Microsoft-Windows-DotNETRuntimePrivate";

/* ClrStackWalk: runtime 82, private 151 (the ones TraceLog reads). */
static bool is_walk(const gcs_event_type *type)
{
    return (type->event_id == 82 && strcmp(type->provider, RUNTIME) == 0) ||
           (type->event_id == 151 && strcmp(type->provider, PRIVATE) == 0);
}

bool gcs_allocs_wants(void *ctx, const gcs_event_type *type)
{
    (void)ctx;
    const gcs_gc_kind k = gcs_gc_classify(type);
    return k == GCS_GCK_ALLOCATION_TICK || k == GCS_GCK_TRIGGERED || is_walk(type) ||
           method_kind(type) != K_NONE;
}

static int kind_of(gcs_allocs *a, const gcs_event_type *type)
{
    const uint32_t i = type->index;
    if (i == UINT32_MAX)
        return K_NONE;
    if (i >= a->kinds_cap) {
        size_t cap = a->kinds_cap;
        if (!gcs_array_reserve((void **)&a->kinds, &cap, (size_t)i + 1, 1, 64))
            return K_NONE;
        memset(a->kinds + a->kinds_cap, K_UNASKED, cap - a->kinds_cap);
        a->kinds_cap = cap;
    }
    if (a->kinds[i] == K_UNASKED)
        a->kinds[i] = gcs_gc_classify(type) == GCS_GCK_ALLOCATION_TICK ? K_TICK
                      : gcs_gc_classify(type) == GCS_GCK_TRIGGERED     ? K_TRIGGER
                      : is_walk(type)                                  ? K_WALK
                                                                       : method_kind(type);
    return a->kinds[i];
}

/* The name TraceEvent gives a method: see method_name in docs/allocs.md. */
static uint32_t method_name_id(gcs_allocs *a, const gcs_event *ev)
{
    char ns[1024], name[1024], sig[1024], full[3200];
    if (!gcs_payload_find_str(ev, "MethodNamespace", ns, sizeof ns))
        ns[0] = '\0';
    if (!gcs_payload_find_str(ev, "MethodName", name, sizeof name))
        name[0] = '\0';
    if (!gcs_payload_find_str(ev, "MethodSignature", sig, sizeof sig))
        sig[0] = '\0';
    /* The signature from its first '(' (the return type and calling
     * convention left out); none without one. */
    const char *args = strchr(sig, '(');
    int n = snprintf(full, sizeof full, "%s.%s%s", ns, name, args ? args : "");
    if (n < 0)
        return NO_ID;
    return strtab_id(&a->strings, full, (size_t)n < sizeof full ? (size_t)n : sizeof full - 1);
}

/* MethodFlags' Jitted bit. */
#define METHOD_FLAG_JITTED 0x8u

static void feed_method(gcs_allocs *a, const gcs_event *ev, int kind)
{
    uint64_t start, size, flags;
    if (!gcs_payload_find_u64(ev, "MethodStartAddress", &start) ||
        !gcs_payload_find_u64(ev, "MethodSize", &size) || size == 0)
        return;
    const uint8_t cls = kind == K_METHOD_A ? CLASS_A : CLASS_B;
    if (cls == CLASS_B &&
        (!gcs_payload_find_u64(ev, "MethodFlags", &flags) || !(flags & METHOD_FLAG_JITTED)))
        return; /* TraceEvent names no frame from a precompiled method's load */
    if (a->methods_n >= GCS_ALLOCS_MAX_METHODS) {
        a->stats.over_limit++;
        return;
    }
    uint32_t name = method_name_id(a, ev);
    if (name == NO_ID ||
        !gcs_array_reserve((void **)&a->methods, &a->methods_cap, a->methods_n + 1,
                           sizeof *a->methods, 256)) {
        a->stats.over_limit++;
        return;
    }
    a->methods[a->methods_n] = (method_range){ev->pid, name, start, size, cls, a->seq[cls]++};
    a->methods_n++;
}

static uint64_t sum_hash(uint32_t pid, uint32_t stack, uint32_t type, uint64_t epoch)
{
    return gcs_hash_mix(((uint64_t)pid << 32 | stack) ^ ((uint64_t)type * 0x9e3779b97f4a7c15ull) ^
               gcs_hash_mix(epoch));
}

/* A sum's type field: a type's id for ticks, a reason's with the top bit
 * for triggers (so the two never share a sum). */
#define TRIGGER_TYPE 0x80000000u

static uint64_t sum_hash_of(const void *ctx, uint32_t id)
{
    const tick_sum *e = &((const tick_sum *)ctx)[id];
    return sum_hash(e->pid, e->stack, e->type, e->epoch);
}

/* Adds ticks to the sum of (pid, stack, type, epoch); the epoch only
 * matters to name frames: ticks without a stack share epoch 0. */
static void add_sum(gcs_allocs *a, uint32_t pid, uint32_t stack, uint32_t type, uint64_t epoch,
                    uint64_t bytes)
{
    if (stack == 0)
        epoch = 0;
    else if (type & TRIGGER_TYPE)
        a->stats.triggers_with_stack++;
    else
        a->stats.ticks_with_stack++;
    const uint64_t h = sum_hash(pid, stack, type, epoch);
    uint32_t id;
    for (size_t k = gcs_index_first(&a->sums_index, h); gcs_index_id(&a->sums_index, k, &id);
         k = gcs_index_next(&a->sums_index, k)) {
        tick_sum *e = &a->sums[id];
        if (e->pid == pid && e->stack == stack && e->type == type && e->epoch == epoch) {
            e->bytes += bytes;
            e->ticks++;
            return;
        }
    }
    if (a->sums_n >= GCS_ALLOCS_MAX_ENTRIES ||
        !gcs_index_room(&a->sums_index, a->sums_n, sum_hash_of, a->sums) ||
        !gcs_array_reserve((void **)&a->sums, &a->sums_cap, a->sums_n + 1, sizeof *a->sums,
                           1024)) {
        a->stats.over_limit++;
        return;
    }
    a->sums[a->sums_n] = (tick_sum){pid, stack, type, epoch, bytes, 1};
    gcs_index_put(&a->sums_index, h, (uint32_t)a->sums_n++);
}

/* The slot of thread tid (added when absent); NULL past
 * GCS_ALLOCS_MAX_THREADS threads (counted) or when memory is short. */
static uint64_t thread_hash_of(const void *ctx, uint32_t id)
{
    return gcs_hash_mix(((const thread_last *)ctx)[id].tid);
}

static thread_last *thread_of(gcs_allocs *a, uint64_t tid)
{
    const uint64_t h = gcs_hash_mix(tid);
    uint32_t id;
    for (size_t k = gcs_index_first(&a->threads_index, h); gcs_index_id(&a->threads_index, k, &id);
         k = gcs_index_next(&a->threads_index, k))
        if (a->threads[id].tid == tid)
            return &a->threads[id];
    if (a->threads_n >= GCS_ALLOCS_MAX_THREADS) {
        a->stats.over_limit++;
        return NULL;
    }
    if (!gcs_index_room(&a->threads_index, a->threads_n, thread_hash_of, a->threads) ||
        !gcs_array_reserve((void **)&a->threads, &a->threads_cap, a->threads_n + 1,
                           sizeof *a->threads, 64))
        return NULL;
    a->threads[a->threads_n] = (thread_last){.tid = tid};
    gcs_index_put(&a->threads_index, h, (uint32_t)a->threads_n);
    return &a->threads[a->threads_n++];
}

/* The thread's pending tick, if any, counted without a stack. */
static void settle_pending(gcs_allocs *a, thread_last *t)
{
    if (t->pending) {
        add_sum(a, t->pid, 0, t->type, 0, t->bytes);
        t->pending = false;
    }
}

/* The strtab id of a tick's TypeName (UTF-16 as in the payload); NO_ID
 * past the limits. */
static uint32_t type_name_id(gcs_allocs *a, uint64_t type_id, gcs_gc_utf16 name)
{
    const size_t bytes = (size_t)name.units * 2;
    struct type_cache *c = NULL;
    if (a->type_cache && name.units > 0 && bytes <= TYPE_CACHE_BYTES) {
        c = &a->type_cache[gcs_hash_mix(type_id) & (TYPE_CACHE_SLOTS - 1)];
        if (c->units == name.units && c->type_id == type_id &&
            memcmp(c->utf16, name.data, bytes) == 0)
            return c->name;
    }
    char text[1024];
    gcs_gc_utf16_to_utf8(name, text, sizeof text);
    uint32_t id = strtab_cstr(&a->strings, text);
    if (c && id != NO_ID) {
        c->type_id = type_id;
        c->units = name.units;
        c->name = id;
        memcpy(c->utf16, name.data, bytes);
    }
    return id;
}

void gcs_allocs_set_time_range(gcs_allocs *a, bool has_from, double from_ms, bool has_to,
                               double to_ms)
{
    assert(!a->finished && a->stats.ticks == 0);
    a->has_from = has_from;
    a->from_ms = from_ms;
    a->has_to = has_to;
    a->to_ms = to_ms;
}

static void feed_tick(gcs_allocs *a, const gcs_reader *r, const gcs_event *ev)
{
    if ((a->has_from && !(ev->msec >= a->from_ms)) || (a->has_to && !(ev->msec < a->to_ms))) {
        /* Still the thread's previous CLR event: a walk after it is its. */
        thread_last *t = a->threads_n ? thread_of(a, ev->tid) : NULL;
        if (t)
            settle_pending(a, t);
        a->stats.outside_range++;
        return;
    }
    gcs_gc_record rec;
    gcs_error err;
    if (gcs_gc_decode(ev, GCS_GCK_ALLOCATION_TICK, &rec, &err) != GCS_OK)
        return; /* counted by the reader as undecodable */
    const uint64_t bytes = ev->type->version >= 2 ? rec.u.allocation_tick.allocation_amount64
                                                  : rec.u.allocation_tick.allocation_amount;
    a->stats.ticks++;
    a->stats.bytes += bytes;
    const uint64_t *ips;
    size_t n;
    uint32_t stack = ev->stack_id;
    if (stack && !gcs_reader_stack(r, stack, &ips, &n))
        stack = 0;
    uint32_t type = type_name_id(a, rec.u.allocation_tick.type_id,
                                 rec.u.allocation_tick.type_name);
    if (type == NO_ID) {
        a->stats.over_limit++;
        return;
    }
    /* The previous CLR event of the thread is this one now: a tick left
     * waiting for its stack walk gets none. (Threads are followed once a
     * tick came without a stack: never on a trace whose ticks have them.) */
    thread_last *t = stack == 0 || a->threads_n ? thread_of(a, ev->tid) : NULL;
    if (t)
        settle_pending(a, t);
    if (stack || !t) {
        add_sum(a, ev->pid, stack, type, a->seq[CLASS_A], bytes);
        return;
    }
    /* No stack from the container: an ETL ClrStackWalk may follow. */
    t->pending = true;
    t->pid = ev->pid;
    t->type = type;
    t->bytes = bytes;
}

/* A GCTriggered event: a GC, on the thread that triggered it, by reason;
 * its stack (or ETL walk) says what code triggered it. */
static void feed_trigger(gcs_allocs *a, const gcs_reader *r, const gcs_event *ev)
{
    gcs_gc_record rec;
    gcs_error err;
    if (gcs_gc_decode(ev, GCS_GCK_TRIGGERED, &rec, &err) != GCS_OK)
        return; /* counted by the reader as undecodable */
    char buf[64];
    const char *reason = gcs_map_lookup("GCReasonMap", rec.u.triggered.reason, buf, sizeof buf);
    if (!reason) { /* a reason newer than the manifest: its number, as TraceEvent shows it */
        snprintf(buf, sizeof buf, "%u", rec.u.triggered.reason);
        reason = buf;
    }
    uint32_t id = strtab_cstr(&a->strings, reason);
    a->stats.triggers++;
    if (id == NO_ID || id >= TRIGGER_TYPE) {
        a->stats.over_limit++;
        return;
    }
    const uint64_t *ips;
    size_t n;
    uint32_t stack = ev->stack_id;
    if (stack && !gcs_reader_stack(r, stack, &ips, &n))
        stack = 0;
    thread_last *t = stack == 0 || a->threads_n ? thread_of(a, ev->tid) : NULL;
    if (t)
        settle_pending(a, t);
    if (stack || !t) {
        add_sum(a, ev->pid, stack, TRIGGER_TYPE | id, a->seq[CLASS_A], 0);
        return;
    }
    t->pending = true;
    t->pid = ev->pid;
    t->type = TRIGGER_TYPE | id;
    t->bytes = 0;
}

/* ClrStackWalk: ClrInstanceID u16, two reserved bytes, FrameCount u32,
 * then the frames (the event's pointer size each, leaf first). */
#define WALK_FRAMES_AT 8u

/* A CLR stack walk (ETL): the stack of the thread's previous CLR event, if
 * that is a tick without one (TraceLog's rule). */
static void feed_walk(gcs_allocs *a, const gcs_event *ev)
{
    thread_last *t = thread_of(a, ev->tid);
    if (!t || !t->pending) {
        a->stats.walks_unpaired++;
        return;
    }
    const unsigned ps = ev->pointer_size == 4 ? 4 : 8;
    gcs_cursor c = gcs_cur_make(ev->payload, ev->payload_size, 0);
    uint32_t count = 0;
    const uint8_t *frames = NULL;
    size_t n = 0;
    if (gcs_cur_skip(&c, 4) && gcs_cur_u32(&c, &count)) {
        n = gcs_cur_left(&c) / ps;
        if (count < n)
            n = count;
        (void)gcs_cur_bytes(&c, n * ps, &frames);
    }
    uint32_t id = n ? gcs_stack_table_intern(&a->walks, frames, n * ps, ps) : 0;
    if (id == 0 || id >= WALK_STACK) {
        if (n)
            a->stats.over_limit++;
        settle_pending(a, t);
        return;
    }
    /* TraceLog makes the frames' addresses when it reads the walk: the
     * class A events before the walk are the ones that cannot name them. */
    add_sum(a, t->pid, WALK_STACK | id, t->type, a->seq[CLASS_A], t->bytes);
    t->pending = false;
}

void gcs_allocs_feed(gcs_allocs *a, const gcs_reader *r, const gcs_event *ev)
{
    assert(!a->finished);
    const int kind = kind_of(a, ev->type);
    switch (kind) {
    case K_TICK:
        feed_tick(a, r, ev);
        break;
    case K_TRIGGER:
        feed_trigger(a, r, ev);
        break;
    case K_WALK:
        feed_walk(a, ev);
        break;
    case K_METHOD_A:
    case K_METHOD_LOAD:
        /* A runtime method event is the thread's previous CLR event now
         * (the rundown's are not CLR events to TraceLog). */
        if (strcmp(ev->type->provider, RUNTIME) == 0 && a->threads_n) {
            thread_last *t = thread_of(a, ev->tid);
            if (t)
                settle_pending(a, t);
        }
        feed_method(a, ev, kind);
        break;
    default:
        break;
    }
}

static int cmp_method(const void *x, const void *y)
{
    const method_range *p = x, *q = y;
    if (p->pid != q->pid)
        return p->pid < q->pid ? -1 : 1;
    if (p->start != q->start)
        return p->start < q->start ? -1 : 1;
    if (p->cls != q->cls)
        return p->cls < q->cls ? -1 : 1;
    return p->seq < q->seq ? -1 : p->seq > q->seq;
}

/* Ranges covering one address looked at, at most (overlapping ranges are
 * rare: a crafted trace could make them many). */
#define MAX_COVERING_RANGES 256u

/* Is m, covering an address of a tick of this epoch, a better name for
 * it than best (NULL: none yet)? Class A ranges read before the tick
 * are not (see method_range). */
static bool better_range(const method_range *m, const method_range *best, uint64_t epoch)
{
    if (m->cls == CLASS_A && m->seq < epoch)
        return false;
    if (!best)
        return true;
    if (m->cls != best->cls)
        return m->cls < best->cls;
    return m->seq < best->seq;
}

/* The name of the method TraceEvent gives address ip of process pid for
 * a tick of this epoch, NO_ID for none. */
static uint32_t method_at(gcs_allocs *a, uint32_t pid, uint64_t ip, uint64_t epoch)
{
    size_t lo = 0, hi = a->methods_n; /* first range after (pid, ip) */
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        const method_range *m = &a->methods[mid];
        if (m->pid < pid || (m->pid == pid && m->start <= ip))
            lo = mid + 1;
        else
            hi = mid;
    }
    const method_range *best = NULL;
    unsigned looked = 0;
    for (size_t i = lo; i-- > 0;) {
        const method_range *m = &a->methods[i];
        if (m->pid != pid || a->ends_max[i] <= ip)
            break;
        if (++looked > MAX_COVERING_RANGES) {
            a->stats.over_limit++;
            break;
        }
        if (ip - m->start < m->size && better_range(m, best, epoch))
            best = m;
    }
    return best ? best->name : NO_ID;
}

static uint64_t view_hash(uint32_t method, uint32_t type)
{
    return gcs_hash_mix((uint64_t)method << 32 | type);
}

static uint64_t view_hash_of(const void *ctx, uint32_t id)
{
    const view_sum *e = &((const view_sum *)ctx)[id];
    return view_hash(e->method, e->type);
}

static bool view_add(view_table *v, uint32_t method, uint32_t type, uint64_t bytes, uint64_t ticks)
{
    const uint64_t h = view_hash(method, type);
    uint32_t id;
    for (size_t k = gcs_index_first(&v->index, h); gcs_index_id(&v->index, k, &id);
         k = gcs_index_next(&v->index, k))
        if (v->sums[id].method == method && v->sums[id].type == type) {
            v->sums[id].bytes += bytes;
            v->sums[id].ticks += ticks;
            return true;
        }
    if (!gcs_index_room(&v->index, v->n, view_hash_of, v->sums) ||
        !gcs_array_reserve((void **)&v->sums, &v->cap, v->n + 1, sizeof *v->sums, 256))
        return false;
    v->sums[v->n] = (view_sum){method, type, bytes, ticks};
    gcs_index_put(&v->index, h, (uint32_t)v->n++);
    return true;
}

static int cmp_row(const void *x, const void *y)
{
    const gcs_allocs_row *p = x, *q = y;
    if (p->bytes != q->bytes)
        return p->bytes > q->bytes ? -1 : 1;
    if (p->ticks != q->ticks)
        return p->ticks > q->ticks ? -1 : 1;
    int c = strcmp(p->method, q->method);
    if (c != 0 || !p->type)
        return c;
    return strcmp(p->type, q->type);
}

static bool build_rows(gcs_allocs *a, view_table *v, bool with_type)
{
    v->rows = calloc(v->n ? v->n : 1, sizeof *v->rows);
    if (!v->rows)
        return false;
    for (size_t i = 0; i < v->n; i++) {
        const view_sum *s = &v->sums[i];
        v->rows[v->rows_n++] = (gcs_allocs_row){a->strings.text[s->method],
                                                with_type ? a->strings.text[s->type] : NULL,
                                                s->bytes, s->ticks};
    }
    if (v->rows_n > 1)
        qsort(v->rows, v->rows_n, sizeof *v->rows, cmp_row);
    return true;
}

static uint64_t path_hash(const uint32_t *names, size_t n)
{
    return gcs_hash_mix(gcs_hash_bytes(GCS_HASH_SEED ^ n, names, n * sizeof *names));
}

static uint64_t path_hash_of(const void *ctx, uint32_t id)
{
    const path_table *pt = ctx;
    return path_hash(pt->names + pt->paths[id].start, pt->paths[id].n);
}

/* Adds ticks to the path of names[0 .. n); false past the limit or when
 * memory is short. */
static bool path_add(path_table *pt, const uint32_t *names, size_t n, uint64_t bytes,
                     uint64_t ticks)
{
    const uint64_t h = path_hash(names, n);
    uint32_t id;
    for (size_t k = gcs_index_first(&pt->index, h); gcs_index_id(&pt->index, k, &id);
         k = gcs_index_next(&pt->index, k)) {
        path_entry *p = &pt->paths[id];
        if (p->n == n && memcmp(pt->names + p->start, names, n * sizeof *names) == 0) {
            p->bytes += bytes;
            p->ticks += ticks;
            return true;
        }
    }
    if (n > GCS_ALLOCS_MAX_STACK_NAMES - pt->names_n ||
        !gcs_index_room(&pt->index, pt->n, path_hash_of, pt) ||
        !gcs_array_reserve((void **)&pt->paths, &pt->cap, pt->n + 1, sizeof *pt->paths, 64) ||
        !gcs_array_reserve((void **)&pt->names, &pt->names_cap, pt->names_n + n,
                           sizeof *pt->names, 256))
        return false;
    memcpy(pt->names + pt->names_n, names, n * sizeof *names);
    pt->paths[pt->n] = (path_entry){pt->names_n, n, bytes, ticks};
    pt->names_n += n;
    gcs_index_put(&pt->index, h, (uint32_t)pt->n++);
    return true;
}

static int cmp_stack(const void *x, const void *y)
{
    const gcs_allocs_stack *p = x, *q = y;
    if (p->bytes != q->bytes)
        return p->bytes > q->bytes ? -1 : 1;
    if (p->ticks != q->ticks)
        return p->ticks > q->ticks ? -1 : 1;
    for (size_t i = 0; i < p->n_frames && i < q->n_frames; i++) {
        int c = strcmp(p->frames[i], q->frames[i]);
        if (c)
            return c;
    }
    return p->n_frames < q->n_frames ? -1 : p->n_frames > q->n_frames;
}

/* The rows of a path table: every path with its names, most bytes (then
 * samples) first. */
static bool build_path_rows(gcs_allocs *a, path_table *pt)
{
    pt->rows = calloc(pt->n ? pt->n : 1, sizeof *pt->rows);
    pt->frames = calloc(pt->names_n ? pt->names_n : 1, sizeof *pt->frames);
    if (!pt->rows || !pt->frames) {
        pt->n = 0;
        return false;
    }
    for (size_t i = 0; i < pt->names_n; i++)
        pt->frames[i] = a->strings.text[pt->names[i]];
    for (size_t i = 0; i < pt->n; i++) {
        const path_entry *p = &pt->paths[i];
        pt->rows[i] = (gcs_allocs_stack){pt->frames + p->start, p->n, p->bytes, p->ticks};
    }
    if (pt->n > 1)
        qsort(pt->rows, pt->n, sizeof *pt->rows, cmp_stack);
    return true;
}

void gcs_allocs_finish(gcs_allocs *a, const gcs_reader *r)
{
    assert(!a->finished);
    /* Ticks still waiting for a stack walk get none. */
    for (size_t i = 0; i < a->threads_n; i++)
        settle_pending(a, &a->threads[i]);
    a->finished = true;
    if (a->methods_n > 1)
        qsort(a->methods, a->methods_n, sizeof *a->methods, cmp_method);
    a->stats.methods = a->methods_n;
    a->ends_max = malloc((a->methods_n ? a->methods_n : 1) * sizeof *a->ends_max);
    if (!a->ends_max) {
        a->methods_n = 0; /* no frame named; said by over_limit */
        a->stats.over_limit++;
    }
    for (size_t i = 0; i < a->methods_n; i++) {
        const method_range *m = &a->methods[i];
        uint64_t end = m->start + m->size < m->start ? UINT64_MAX : m->start + m->size;
        if (i > 0 && a->methods[i - 1].pid == m->pid && a->ends_max[i - 1] > end)
            end = a->ends_max[i - 1];
        a->ends_max[i] = end;
    }
    /* Per distinct stack: its methods, deduplicated for the inclusive view,
     * and in order (recursion kept) for the stacks view. */
    uint32_t *names = NULL, *path = NULL;
    size_t names_cap = 0, path_cap = 0;
    uint64_t *seen = calloc(a->strings.n ? a->strings.n : 1, sizeof *seen);
    uint64_t stamp = 0;
    bool ok = seen != NULL;
    for (size_t i = 0; ok && i < a->sums_n; i++) {
        const tick_sum *s = &a->sums[i];
        const uint64_t *ips = NULL;
        size_t n = 0;
        const bool have = s->stack & WALK_STACK
                              ? gcs_stack_table_get(&a->walks, s->stack & ~WALK_STACK, &ips, &n)
                              : s->stack != 0 && gcs_reader_stack(r, s->stack, &ips, &n);
        if (s->type & TRIGGER_TYPE) {
            /* A GC trigger: its reason, then its frames that are methods. */
            if (!gcs_array_reserve((void **)&path, &path_cap, n + 1, sizeof *path, 64)) {
                ok = false;
                break;
            }
            size_t depth = 0;
            path[depth++] = s->type & ~TRIGGER_TYPE;
            for (size_t f = 0; have && f < n; f++) {
                uint32_t m = method_at(a, s->pid, ips[f], s->epoch);
                if (m != NO_ID)
                    path[depth++] = m;
            }
            if (depth == 1)
                path[depth++] = have ? a->no_method : a->no_stack;
            if (!path_add(&a->triggers, path, depth, 0, s->ticks))
                a->stats.over_limit++;
            continue;
        }
        if (!have) {
            ok = view_add(&a->views[GCS_ALLOCS_EXCLUSIVE], a->no_stack, NO_ID, s->bytes,
                          s->ticks) &&
                 view_add(&a->views[GCS_ALLOCS_INCLUSIVE], a->no_stack, NO_ID, s->bytes,
                          s->ticks) &&
                 view_add(&a->views[GCS_ALLOCS_BY_TYPE], a->no_stack, s->type, s->bytes,
                          s->ticks);
            continue;
        }
        if (!gcs_array_reserve((void **)&names, &names_cap, n ? n : 1, sizeof *names, 64) ||
            !gcs_array_reserve((void **)&path, &path_cap, n ? n : 1, sizeof *path, 64)) {
            ok = false;
            break;
        }
        stamp++;
        size_t k = 0, depth = 0;
        uint32_t first = NO_ID;
        for (size_t f = 0; f < n; f++) {
            uint32_t m = method_at(a, s->pid, ips[f], s->epoch);
            a->stats.frames += s->ticks;
            if (m == NO_ID)
                continue;
            a->stats.frames_resolved += s->ticks;
            path[depth++] = m;
            if (first == NO_ID)
                first = m;
            if (seen[m] != stamp) {
                seen[m] = stamp;
                names[k++] = m;
            }
        }
        if (first == NO_ID)
            first = a->no_method;
        ok = view_add(&a->views[GCS_ALLOCS_EXCLUSIVE], first, NO_ID, s->bytes, s->ticks) &&
             view_add(&a->views[GCS_ALLOCS_BY_TYPE], first, s->type, s->bytes, s->ticks);
        if (k == 0)
            ok = ok && view_add(&a->views[GCS_ALLOCS_INCLUSIVE], a->no_method, NO_ID, s->bytes,
                                s->ticks);
        for (size_t j = 0; ok && j < k; j++)
            ok = view_add(&a->views[GCS_ALLOCS_INCLUSIVE], names[j], NO_ID, s->bytes, s->ticks);
        if (depth == 0)
            path[depth++] = a->no_method;
        if (ok && !path_add(&a->stacks, path, depth, s->bytes, s->ticks))
            a->stats.over_limit++; /* the stacks list leaves it out; the others go on */
    }
    free(names);
    free(path);
    free(seen);
    /* Distinct stacks among the ticks: the reader's, and the walks'. */
    for (int walks = 0; walks < 2; walks++) {
        uint32_t max = 0;
        for (size_t i = 0; i < a->sums_n; i++)
            if (!(a->sums[i].type & TRIGGER_TYPE) && a->sums[i].stack &&
                !(a->sums[i].stack & WALK_STACK) == !walks &&
                (a->sums[i].stack & ~WALK_STACK) > max)
                max = a->sums[i].stack & ~WALK_STACK;
        uint8_t *mark = max ? calloc((size_t)max + 1, 1) : NULL;
        if (!mark)
            continue;
        for (size_t i = 0; i < a->sums_n; i++) {
            const uint32_t st = a->sums[i].stack;
            if (!(a->sums[i].type & TRIGGER_TYPE) && st &&
                !(st & WALK_STACK) == !walks && !mark[st & ~WALK_STACK]) {
                mark[st & ~WALK_STACK] = 1;
                a->stats.distinct_stacks++;
            }
        }
        free(mark);
    }
    if (!ok)
        a->stats.over_limit++;
    for (int v = 0; v < GCS_ALLOCS_VIEWS; v++)
        if (!build_rows(a, &a->views[v], v == GCS_ALLOCS_BY_TYPE))
            a->stats.over_limit++;
    if (!build_path_rows(a, &a->stacks) || !build_path_rows(a, &a->triggers))
        a->stats.over_limit++;
    /* The trigger rows: the reason apart from the frames. */
    a->trigger_rows = calloc(a->triggers.n ? a->triggers.n : 1, sizeof *a->trigger_rows);
    if (!a->trigger_rows)
        a->triggers.n = 0;
    for (size_t i = 0; i < a->triggers.n; i++) {
        const gcs_allocs_stack *row = &a->triggers.rows[i];
        a->trigger_rows[i] = (gcs_allocs_trigger){row->frames[0], row->frames + 1,
                                                  row->n_frames - 1, row->ticks};
    }
}

size_t gcs_allocs_count(const gcs_allocs *a, gcs_allocs_view view)
{
    assert(a->finished && (unsigned)view < GCS_ALLOCS_VIEWS);
    return a->views[view].rows_n;
}

const gcs_allocs_row *gcs_allocs_at(const gcs_allocs *a, gcs_allocs_view view, size_t i)
{
    assert(a->finished && (unsigned)view < GCS_ALLOCS_VIEWS);
    return i < a->views[view].rows_n ? &a->views[view].rows[i] : NULL;
}

void gcs_allocs_get_stats(const gcs_allocs *a, gcs_allocs_stats *out)
{
    *out = a->stats;
}

size_t gcs_allocs_stack_count(const gcs_allocs *a)
{
    assert(a->finished);
    return a->stacks.n;
}

const gcs_allocs_stack *gcs_allocs_stack_at(const gcs_allocs *a, size_t i)
{
    assert(a->finished);
    return i < a->stacks.n ? &a->stacks.rows[i] : NULL;
}

size_t gcs_allocs_trigger_count(const gcs_allocs *a)
{
    assert(a->finished);
    return a->triggers.n;
}

const gcs_allocs_trigger *gcs_allocs_trigger_at(const gcs_allocs *a, size_t i)
{
    assert(a->finished);
    return i < a->triggers.n ? &a->trigger_rows[i] : NULL;
}
