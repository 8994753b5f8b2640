/*
 * analysis/process/process_table.c - processes by id with their names,
 * from the events that describe them (include/gcscope/process.h).
 * TraceEvent names a process by its image file name without extension
 * (PName=Test.x86 for Test.x86.exe in net.4.5.2.x86.etl's baseline).
 */
#include "gcscope/process.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "gcscope/decode.h"

static const char KERNEL[] = "Windows Kernel";
static const char RUNTIME[] = "Microsoft-Windows-DotNETRuntime";
static const char EVENTPIPE[] = "Microsoft-DotNETCore-EventPipe";

/* Where an entry's command line came from: a later source replaces an
 * earlier one only when it ranks at least as high. */
enum { FROM_NONE, FROM_RUNTIME_START, FROM_PROCESS_EVENT };

typedef struct entry {
    gcs_process_entry pub;
    char *name, *image, *cmdline; /* owned; pub points at them or at "" */
    int cmdline_from;
} entry;

struct gcs_process_table {
    entry *v;
    size_t n, cap;
};

gcs_process_table *gcs_process_table_new(void)
{
    return calloc(1, sizeof(gcs_process_table));
}

void gcs_process_table_free(gcs_process_table *pt)
{
    if (!pt)
        return;
    for (size_t i = 0; i < pt->n; i++) {
        free(pt->v[i].name);
        free(pt->v[i].image);
        free(pt->v[i].cmdline);
    }
    free(pt->v);
    free(pt);
}

static bool is(const gcs_event_type *t, const char *provider, const char *name)
{
    return t && t->provider && t->name && strcmp(t->provider, provider) == 0 &&
           strcmp(t->name, name) == 0;
}

static bool is_kernel_process(const gcs_event_type *t)
{
    return is(t, KERNEL, "Process/Start") || is(t, KERNEL, "Process/DCStart") ||
           is(t, KERNEL, "Process/Stop") || is(t, KERNEL, "Process/DCStop");
}

/* Could the type be one of ours? Every name we take begins with P or R:
 * one compare turns away the GC events, asked for every event. */
static inline bool may_be_ours(const gcs_event_type *t)
{
    return t && t->name && (t->name[0] == 'P' || t->name[0] == 'R');
}

/* One of ours, by provider and name (may_be_ours said it could be). */
static bool named_ours(const gcs_event_type *t)
{
    return is_kernel_process(t) || is(t, EVENTPIPE, "ProcessInfo") ||
           is(t, RUNTIME, "Runtime/Start");
}

bool gcs_process_table_wants(const gcs_event_type *t)
{
    return may_be_ours(t) && named_ours(t);
}

static entry *find(const gcs_process_table *pt, uint32_t pid)
{
    for (size_t i = pt->n; i-- > 0;)
        if (pt->v[i].pub.pid == pid)
            return &pt->v[i];
    return NULL;
}

static entry *find_or_add(gcs_process_table *pt, uint32_t pid)
{
    entry *e = find(pt, pid);
    if (e)
        return e;
    if (pt->n == pt->cap) {
        size_t cap = pt->cap ? pt->cap * 2 : 16;
        entry *v = realloc(pt->v, cap * sizeof *v);
        if (!v)
            return NULL;
        pt->v = v;
        pt->cap = cap;
    }
    e = &pt->v[pt->n++];
    memset(e, 0, sizeof *e);
    e->pub.pid = pid;
    e->pub.name = e->pub.image_file_name = e->pub.command_line = "";
    return e;
}

/* Replaces *slot by a copy of s; *shown points at the copy (kept as was
 * when out of memory). */
static void set_string(char **slot, const char **shown, const char *s)
{
    char *copy = strdup(s);
    if (!copy)
        return;
    free(*slot);
    *slot = copy;
    *shown = copy;
}

/* TraceEvent's process name: the file name without directory or extension. */
static void set_name_from_image(entry *e, const char *image)
{
    const char *base = image;
    for (const char *p = image; *p; p++)
        if (*p == '\\' || *p == '/')
            base = p + 1;
    const char *dot = strrchr(base, '.');
    size_t len = dot && dot != base ? (size_t)(dot - base) : strlen(base);
    char *name = malloc(len + 1);
    if (!name)
        return;
    memcpy(name, base, len);
    name[len] = 0;
    free(e->name);
    e->name = name;
    e->pub.name = name;
}

/* The name the trace gives the process with its events (LTTng's
 * procname): the latest wins, as in TraceEvent's CtfTraceEventSource. */
static void feed_process_name(gcs_process_table *pt, const gcs_event *ev)
{
    entry *e = find(pt, ev->pid);
    if (e && e->name && strcmp(e->name, ev->process_name) == 0)
        return;
    if (!e && !(e = find_or_add(pt, ev->pid)))
        return;
    set_string(&e->name, &e->pub.name, ev->process_name);
}

/* An event of one of our types: what it says of its process. */
static __attribute__((noinline)) void feed_ours(gcs_process_table *pt, const gcs_event *ev)
{
    const gcs_event_type *t = ev->type;
    bool kernel = is_kernel_process(t);
    bool process_info = !kernel && is(t, EVENTPIPE, "ProcessInfo");
    uint64_t pid = ev->pid;
    if (kernel)
        (void)gcs_payload_find_u64(ev, "ProcessID", &pid);
    entry *e = find_or_add(pt, (uint32_t)pid);
    if (!e)
        return;
    char buf[4096];
    if (kernel) {
        uint64_t parent;
        if (gcs_payload_find_u64(ev, "ParentID", &parent))
            e->pub.parent_pid = (uint32_t)parent;
        if (gcs_payload_find_str(ev, "ImageFileName", buf, sizeof buf) && buf[0]) {
            set_string(&e->image, &e->pub.image_file_name, buf);
            set_name_from_image(e, buf);
        }
        int64_t status;
        if (is(t, KERNEL, "Process/Stop") && gcs_payload_find_i64(ev, "ExitStatus", &status)) {
            e->pub.has_exit = true;
            e->pub.exit_status = (int32_t)status;
        }
    }
    int from = kernel || process_info ? FROM_PROCESS_EVENT : FROM_RUNTIME_START;
    if (from < e->cmdline_from)
        return; /* a more precise source already spoke */
    if (!gcs_payload_find_str(ev, "CommandLine", buf, sizeof buf) || !buf[0])
        return;
    set_string(&e->cmdline, &e->pub.command_line, buf);
    e->cmdline_from = from;
}

void gcs_process_table_feed(gcs_process_table *pt, const gcs_event *ev)
{
    if (ev->process_name && ev->process_name[0])
        feed_process_name(pt, ev);
    /* Most events are none of ours, turned away by their name's first
     * letter before any name compare (~140 instructions an event) and
     * before the frame of feed_ours and its buffer. */
    if (may_be_ours(ev->type) && named_ours(ev->type))
        feed_ours(pt, ev);
}

const gcs_process_entry *gcs_process_table_find(const gcs_process_table *pt, uint32_t pid)
{
    const entry *e = find(pt, pid);
    return e ? &e->pub : NULL;
}

size_t gcs_process_table_count(const gcs_process_table *pt)
{
    return pt->n;
}

const gcs_process_entry *gcs_process_table_at(const gcs_process_table *pt, size_t i)
{
    return i < pt->n ? &pt->v[i].pub : NULL;
}

bool gcs_process_matches(const gcs_process_table *pt, uint32_t pid, const char *spec)
{
    bool digits = spec[0] != 0;
    for (const char *p = spec; *p; p++)
        digits &= isdigit((unsigned char)*p) != 0;
    if (digits)
        return strtoull(spec, NULL, 10) == pid;
    const entry *e = find(pt, pid);
    return e && ((e->pub.name[0] && strcasecmp(e->pub.name, spec) == 0) ||
                 (e->pub.image_file_name[0] && strcasecmp(e->pub.image_file_name, spec) == 0));
}
