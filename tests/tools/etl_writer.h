/*
 * tests/tools/etl_writer.h - a Windows ETW log file (.etl) writer for tests.
 *
 * Writes the layout docs/format-etl.md establishes: 72-byte WMI buffer
 * headers, one buffer per processor being filled at a time (written to the
 * file when full, the partial ones at the end in processor order, as the
 * kernel logger flushes them), 8-byte aligned records, the EventTrace
 * logfile header event first (system header, TRACE_LOGFILE_HEADER with
 * pointer size, clock, start time, lost events and buffers), EVENT_HEADER
 * records (0x13, or 0x12 for a 32-bit writer) with an optional related
 * activity id item. What the real files in ../shared lack can be made on
 * purpose: a 32-bit log, lost counters, a record cut at its buffer's end.
 * Compressed buffers are not written: the real files have them
 * (SelfDescribingSingleEvent.etl, net.4.5.2.x86.etl).
 *
 * Header-only (static functions) so the writer tool and the unit tests share
 * it; it uses only the public headers. Not part of libgcscope.
 */
#ifndef GCS_TESTS_ETL_WRITER_H
#define GCS_TESTS_ETL_WRITER_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gcscope.h"

#define ETLW_BUFFER_HEADER 72u
#define ETLW_EVENT_HEADER 80u
#define ETLW_MAX_CPUS 256u

typedef bool (*etlw_write_fn)(void *ctx, const void *data, size_t n);

/* One event to write (an EVENT_HEADER record). */
typedef struct etlw_event {
    uint32_t cpu;                   /* the buffer it goes to (< cpus) */
    int64_t timestamp;              /* QPC ticks */
    uint32_t pid, tid;
    const uint8_t *provider;        /* 16 bytes, Windows byte order */
    uint16_t id;
    uint8_t version, level, opcode;
    uint16_t task;
    uint64_t keywords;
    const uint8_t *activity;        /* 16 bytes or NULL (zeros) */
    const uint8_t *related;         /* 16 bytes or NULL: an extended data item */
    bool writer_32bit;              /* header type 0x12 (a 32-bit process) */
    const uint8_t *payload;
    uint32_t payload_size;
} etlw_event;

typedef struct etlw {
    etlw_write_fn write;
    void *ctx;
    /* Set before etlw_begin (etlw_init gives the defaults). */
    uint32_t buffer_size;           /* 64 KiB */
    uint32_t pointer_size;          /* of the log: 8, or 4 (32-bit log) */
    uint32_t cpus;                  /* buffers filled at a time */
    uint32_t header_cpus;           /* processors the header says (0: cpus) */
    int64_t frequency;              /* QPC ticks per second */
    int64_t start_ticks;            /* the header event's time stamp: MSec 0 */
    uint64_t start_filetime;        /* 100 ns since 1601 */
    uint32_t events_lost, buffers_lost;
    uint32_t pid;                   /* of the header event */
    double pause_factor;            /* etlw_convert: every GC pause this many times
                                       as long (0 or 1: times as read) */
    /* State. */
    uint8_t *bufs;                  /* cpus * buffer_size */
    uint32_t *used;                 /* per cpu: bytes filled, header included */
    int64_t *last_ts;               /* per cpu: the buffer's latest time stamp */
    uint64_t sequence;              /* buffers written */
    uint64_t bytes;                 /* written to the file */
    uint64_t events, records_cut;
    bool failed;
} etlw;

static inline void etlw_init(etlw *w, etlw_write_fn write, void *ctx)
{
    memset(w, 0, sizeof *w);
    w->write = write;
    w->ctx = ctx;
    w->buffer_size = 65536;
    w->pointer_size = 8;
    w->cpus = 4;
    w->frequency = 10000000;
    w->start_ticks = 1000000;
    w->start_filetime = 133872930000000000ull; /* 2025-03-24T12:30:00Z */
    w->pid = 4;
}

static inline void etlw_put16(uint8_t *p, uint16_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
}
static inline void etlw_put32(uint8_t *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}
static inline void etlw_put64(uint8_t *p, uint64_t v)
{
    for (int i = 0; i < 8; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

static inline void etlw_emit(etlw *w, const void *p, size_t n)
{
    if (w->failed)
        return;
    if (!w->write(w->ctx, p, n))
        w->failed = true;
    w->bytes += n;
}

/* The 72-byte buffer header of buf (size, time stamp, sequence, cpu,
 * filled, flags, type), unused bytes after `filled` set to 0xff. */
static inline void etlw_buffer_header(etlw *w, uint8_t *buf, uint32_t cpu, uint32_t filled,
                                      int64_t timestamp, uint16_t flags, uint16_t type)
{
    memset(buf, 0, ETLW_BUFFER_HEADER);
    etlw_put32(buf + 0x00, w->buffer_size);
    etlw_put32(buf + 0x04, filled);
    etlw_put64(buf + 0x10, (uint64_t)timestamp);
    etlw_put64(buf + 0x18, w->sequence);
    buf[0x28] = (uint8_t)cpu;
    etlw_put16(buf + 0x2a, 0x2c);
    etlw_put32(buf + 0x2c, 3);
    etlw_put32(buf + 0x30, filled);
    etlw_put16(buf + 0x34, flags);
    etlw_put16(buf + 0x36, type);
    memset(buf + filled, 0xff, w->buffer_size - filled);
}

/* Writes the header buffer: the logfile header event. False: bad settings
 * or out of memory. */
static inline bool etlw_begin(etlw *w)
{
    if (w->cpus == 0 || w->cpus > ETLW_MAX_CPUS || w->buffer_size < 1024 ||
        (w->buffer_size & 7) || (w->pointer_size != 4 && w->pointer_size != 8))
        return false;
    w->bufs = malloc((size_t)w->cpus * w->buffer_size);
    w->used = calloc(w->cpus, sizeof *w->used);
    w->last_ts = calloc(w->cpus, sizeof *w->last_ts);
    uint8_t *hb = malloc(w->buffer_size);
    if (!w->bufs || !w->used || !w->last_ts || !hb) {
        free(hb);
        return false;
    }
    for (uint32_t c = 0; c < w->cpus; c++)
        w->used[c] = ETLW_BUFFER_HEADER;
    /* TRACE_LOGFILE_HEADER: the names' pointers and the time zone move the
     * fields after them with the pointer size (docs/format-etl.md). */
    uint8_t lh[0x160];
    memset(lh, 0, sizeof lh);
    uint32_t ps = w->pointer_size;
    etlw_put32(lh + 0x00, w->buffer_size);
    etlw_put32(lh + 0x04, 0x0501000a);
    etlw_put32(lh + 0x08, 19045);
    etlw_put32(lh + 0x0c, w->header_cpus ? w->header_cpus : w->cpus);
    etlw_put32(lh + 0x18, 156250);
    etlw_put32(lh + 0x20, 0x08000002);
    etlw_put32(lh + 0x28, 1);
    etlw_put32(lh + 0x2c, ps);
    etlw_put32(lh + 0x30, w->events_lost);
    etlw_put32(lh + 0x34, 3000);
    size_t at = 0x38 + 2 * ps + 172;
    at += (8 - (at & 7)) & 7;
    etlw_put64(lh + at, w->start_filetime - 864000000000ull); /* boot: a day earlier */
    etlw_put64(lh + at + 8, (uint64_t)w->frequency);
    etlw_put64(lh + at + 16, w->start_filetime);
    etlw_put32(lh + at + 24, 1);
    etlw_put32(lh + at + 28, w->buffers_lost);
    size_t payload = at + 32;
    static const char names[] = "gcscope-etlw\0synthetic.etl\0";
    for (size_t i = 0; i < sizeof names - 1; i++, payload += 2)
        etlw_put16(lh + payload, (uint16_t)names[i]);
    uint32_t size = (uint32_t)(32 + payload);
    uint8_t *rec = hb + ETLW_BUFFER_HEADER;
    etlw_put16(rec + 0, 2);
    rec[2] = ps == 8 ? 0x02 : 0x01; /* system header 64 / 32 */
    rec[3] = 0xc0;
    etlw_put16(rec + 4, (uint16_t)size);
    rec[6] = 0; /* opcode */
    rec[7] = 0; /* group: EventTrace */
    etlw_put32(rec + 8, 8);
    etlw_put32(rec + 12, w->pid);
    etlw_put64(rec + 16, (uint64_t)w->start_ticks);
    etlw_put64(rec + 24, 0);
    memcpy(rec + 32, lh, payload);
    uint32_t filled = ETLW_BUFFER_HEADER + ((size + 7) & ~7u);
    memset(hb + ETLW_BUFFER_HEADER + size, 0, filled - ETLW_BUFFER_HEADER - size);
    etlw_buffer_header(w, hb, 0, filled, 0, 0x01, 4);
    etlw_emit(w, hb, w->buffer_size);
    w->sequence++;
    free(hb);
    return !w->failed;
}

/* Writes cpu's buffer to the file and starts an empty one. */
static inline void etlw_flush_cpu(etlw *w, uint32_t cpu)
{
    if (w->used[cpu] == ETLW_BUFFER_HEADER)
        return;
    uint8_t *buf = w->bufs + (size_t)cpu * w->buffer_size;
    etlw_buffer_header(w, buf, cpu, w->used[cpu], w->last_ts[cpu], 0x20, 0);
    etlw_emit(w, buf, w->buffer_size);
    w->sequence++;
    w->used[cpu] = ETLW_BUFFER_HEADER;
}

/* Size of e's record (unpadded). */
static inline uint32_t etlw_record_size(const etlw_event *e)
{
    return ETLW_EVENT_HEADER + (e->related ? 8 + 16 : 0) + e->payload_size;
}

/* The record of e at dst (etlw_record_size bytes). */
static inline void etlw_record(uint8_t *dst, const etlw_event *e)
{
    static const uint8_t zero[16];
    uint32_t size = etlw_record_size(e);
    etlw_put16(dst + 0, (uint16_t)size);
    dst[2] = e->writer_32bit ? 0x12 : 0x13;
    dst[3] = 0xc0;
    etlw_put16(dst + 4, e->related ? 0x0001 : 0);
    etlw_put16(dst + 6, 0);
    etlw_put32(dst + 8, e->tid);
    etlw_put32(dst + 12, e->pid);
    etlw_put64(dst + 16, (uint64_t)e->timestamp);
    memcpy(dst + 24, e->provider, 16);
    etlw_put16(dst + 40, e->id);
    dst[42] = e->version;
    dst[43] = 0; /* channel */
    dst[44] = e->level;
    dst[45] = e->opcode;
    etlw_put16(dst + 46, e->task);
    etlw_put64(dst + 48, e->keywords);
    etlw_put64(dst + 56, 0);
    memcpy(dst + 64, e->activity ? e->activity : zero, 16);
    uint8_t *p = dst + ETLW_EVENT_HEADER;
    if (e->related) {
        etlw_put16(p + 0, 8 + 16); /* item size */
        etlw_put16(p + 2, 1);      /* related activity id */
        etlw_put16(p + 4, 0);      /* no item follows */
        etlw_put16(p + 6, 16);
        memcpy(p + 8, e->related, 16);
        p += 24;
    }
    if (e->payload_size)
        memcpy(p, e->payload, e->payload_size);
}

/* Appends e to its processor's buffer (written out first when full).
 * False when the record cannot fit any buffer. */
static inline bool etlw_add(etlw *w, const etlw_event *e)
{
    uint32_t size = etlw_record_size(e);
    if (e->cpu >= w->cpus || size > 0xffff || size > w->buffer_size - ETLW_BUFFER_HEADER)
        return false;
    if (size > w->buffer_size - w->used[e->cpu])
        etlw_flush_cpu(w, e->cpu);
    uint8_t *buf = w->bufs + (size_t)e->cpu * w->buffer_size;
    etlw_record(buf + w->used[e->cpu], e);
    uint32_t padded = (size + 7) & ~7u;
    memset(buf + w->used[e->cpu] + size, 0, padded - size);
    w->used[e->cpu] += padded; /* the buffer size is a multiple of 8: padding fits */
    w->last_ts[e->cpu] = e->timestamp;
    w->events++;
    return true;
}

/* Ends e's processor buffer inside e's record: the buffer's filled offset
 * stops halfway through it, while its size field says the whole (what a
 * reader must skip, keeping the records before it). The buffer is written
 * at once. */
static inline bool etlw_add_cut(etlw *w, const etlw_event *e)
{
    uint32_t size = etlw_record_size(e);
    if (e->cpu >= w->cpus || size > 0xffff || size > w->buffer_size - ETLW_BUFFER_HEADER)
        return false;
    uint32_t room = w->buffer_size - w->used[e->cpu];
    if (room < 16)
        etlw_flush_cpu(w, e->cpu);
    room = w->buffer_size - w->used[e->cpu];
    uint32_t cut = (size < room ? size : room) / 2;
    uint8_t *rec = malloc(size);
    if (!rec)
        return false;
    etlw_record(rec, e);
    uint8_t *buf = w->bufs + (size_t)e->cpu * w->buffer_size;
    memcpy(buf + w->used[e->cpu], rec, cut);
    free(rec);
    w->used[e->cpu] += cut;
    w->last_ts[e->cpu] = e->timestamp;
    w->records_cut++;
    etlw_flush_cpu(w, e->cpu);
    return true;
}

/* Writes every partial buffer (in processor order, as at a session's
 * end). True when everything was written. */
static inline bool etlw_end(etlw *w)
{
    for (uint32_t c = 0; w->used && c < w->cpus; c++)
        etlw_flush_cpu(w, c);
    return !w->failed;
}

static inline void etlw_free(etlw *w)
{
    free(w->bufs);
    free(w->used);
    free(w->last_ts);
    w->bufs = NULL;
    w->used = NULL;
    w->last_ts = NULL;
}

static inline bool etlw_to_file(void *ctx, const void *data, size_t n)
{
    return fwrite(data, 1, n, (FILE *)ctx) == n;
}

/* ---- provider GUIDs -------------------------------------------------- */

/* The GUID ETW logs a provider by: the runtime's and the few TraceEvent
 * knows by name; "Provider(<guid>)" back to its GUID; else one made from
 * the name (FNV-1a; read back as Provider(<guid>)). Windows byte order. */
static inline void etlw_provider_guid(const char *name, uint8_t out[16])
{
    static const struct {
        const char *name, *guid;
    } known[] = {
        {"Microsoft-Windows-DotNETRuntime", "e13c0d23-ccbc-4e12-931b-d9cc2eee27e4"},
        {"Microsoft-Windows-DotNETRuntimeRundown", "a669021c-c450-4609-a035-5af59af4df18"},
        {"Microsoft-Windows-DotNETRuntimePrivate", "763fd754-7086-4dfe-95eb-c01a46faf4ca"},
        {"Microsoft-DotNETCore-SampleProfiler", "3c530d44-97ae-513a-1e6d-783e8f8e03a9"},
        {"System.Threading.Tasks.TplEventSource", "2e5dba47-a3d2-4d16-8ee0-6671ffdcd7b5"},
    };
    const char *text = NULL;
    for (size_t i = 0; i < sizeof known / sizeof known[0]; i++)
        if (strcmp(name, known[i].name) == 0)
            text = known[i].guid;
    if (!text && strncmp(name, "Provider(", 9) == 0 && strlen(name) == 9 + 36 + 1)
        text = name + 9;
    unsigned v[16];
    if (text && sscanf(text, "%2x%2x%2x%2x-%2x%2x-%2x%2x-%2x%2x-%2x%2x%2x%2x%2x%2x", &v[3],
                       &v[2], &v[1], &v[0], &v[5], &v[4], &v[7], &v[6], &v[8], &v[9], &v[10],
                       &v[11], &v[12], &v[13], &v[14], &v[15]) == 16) {
        for (int i = 0; i < 16; i++)
            out[i] = (uint8_t)v[i];
        return;
    }
    uint64_t h1 = 1469598103934665603ull, h2 = 0x9E3779B97F4A7C15ull;
    for (const char *p = name; *p; p++) {
        h1 = (h1 ^ (uint8_t)*p) * 1099511628211ull;
        h2 = (h2 ^ (uint8_t)*p) * 0xff51afd7ed558ccdull;
    }
    etlw_put64(out, h1);
    etlw_put64(out + 8, h2);
}

/* ---- converting what the public reader delivers -------------------- */

/* FILETIME of the trace start's calendar fields (UTC). */
static inline uint64_t etlw_filetime_of(const gcs_trace_info *ti)
{
    int64_t y = ti->start_year, m = ti->start_month, d = ti->start_day;
    y -= m <= 2;
    int64_t era = (y >= 0 ? y : y - 399) / 400;
    int64_t yoe = y - era * 400;
    int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    int64_t days = era * 146097 + doe - 584694; /* since 1601-01-01 */
    int64_t ms = ((days * 24 + ti->start_hour) * 60 + ti->start_minute) * 60000 +
                 ti->start_second * 1000 + ti->start_millisecond;
    return (uint64_t)ms * 10000u;
}

/* err set to st with reason (the writer's own failures). */
static inline gcs_status etlw_fail(gcs_error *err, gcs_status st, const char *reason)
{
    err->status = st;
    err->offset = 0;
    snprintf(err->reason, sizeof err->reason, "%s", reason);
    return st;
}

/* The processor buffer an event goes to: its own processor when the trace
 * says (and it is in range), else its thread's (so that threads' events
 * interleave across buffers as on a real machine). */
static inline uint32_t etlw_cpu_of(const etlw *w, const gcs_event *ev)
{
    if (ev->processor != 0 && ev->processor < w->cpus)
        return ev->processor;
    return (uint32_t)((ev->tid * 0x9E3779B97F4A7C15ull) >> 40) % w->cpus;
}

/* Stretches a trace's GC pauses (etlw->pause_factor): a pause is a
 * runtime's SuspendEEBegin for GC (reason SuspendForGC or SuspendForGCPrep)
 * to the RestartEEEnd of the same thread, as docs/gc-stats.md measures it.
 * Times inside a pause move away from its start factor times as far;
 * every later time moves by the time the pauses before it gained, so the
 * order of events and the time between pauses stay as they were. One pause
 * at a time: another process's suspension inside it keeps its own times
 * relative to that pause (enough for the one-process fixtures it is for). */
typedef struct etlw_pause_stretch {
    double factor;
    bool in_pause;
    uint32_t pid;
    uint64_t tid;
    int64_t start;   /* the open pause's SuspendEEBegin, as read */
    int64_t gained;  /* ticks the closed pauses gained */
} etlw_pause_stretch;

static inline bool etlw_is_runtime_event(const gcs_event *ev, uint32_t id)
{
    return ev->type->event_id == id &&
           strcmp(ev->type->provider, "Microsoft-Windows-DotNETRuntime") == 0;
}

/* The new time of ev (read in timestamp order). */
static inline int64_t etlw_pause_stretch_time(etlw_pause_stretch *ps, const gcs_event *ev)
{
    int64_t t = ev->timestamp;
    if (!(ps->factor > 0) || ps->factor == 1)
        return t;
    if (!ps->in_pause) {
        /* GCSuspendEEBegin (9): Reason is its first field (V1 and later). */
        if (etlw_is_runtime_event(ev, 9) && ev->payload_size >= 4) {
            uint32_t reason = (uint32_t)ev->payload[0] | (uint32_t)ev->payload[1] << 8 |
                              (uint32_t)ev->payload[2] << 16 | (uint32_t)ev->payload[3] << 24;
            if (reason == 1 || reason == 6) {
                ps->in_pause = true;
                ps->pid = ev->pid;
                ps->tid = ev->tid;
                ps->start = t;
            }
        }
        return t + ps->gained;
    }
    if (t < ps->start)
        return t + ps->gained;
    int64_t stretch = (int64_t)((double)(t - ps->start) * (ps->factor - 1) + 0.5);
    int64_t out = t + ps->gained + stretch;
    /* GCRestartEEEnd (3) of the suspending thread ends the pause. */
    if (etlw_is_runtime_event(ev, 3) && ev->pid == ps->pid && ev->tid == ps->tid) {
        ps->in_pause = false;
        ps->gained += stretch;
    }
    return out;
}

/*
 * Writes every event r delivers (in timestamp order) as EVENT_HEADER
 * records: the trace's clock and start (its pointer size when 4); the
 * writer's cpus,
 * buffer size and lost counters. Stops before the file would pass
 * max_bytes (0: no limit). With w->pause_factor, the GC pauses are
 * stretched (etlw_pause_stretch). The writer must not have begun.
 */
static inline gcs_status etlw_convert(gcs_reader *r, etlw *w, uint64_t max_bytes,
                                      gcs_error *err)
{
    const gcs_event *ev;
    gcs_status st;
    bool begun = false;
    uint8_t guid[16];
    const char *last_provider = NULL;
    etlw_pause_stretch stretch = {.factor = w->pause_factor};
    while ((st = gcs_reader_next(r, &ev, err)) == GCS_OK) {
        if (!begun) {
            const gcs_trace_info *ti = gcs_reader_info(r);
            w->frequency = ti->clock_frequency;
            w->start_ticks = ti->start_ticks;
            w->start_filetime = etlw_filetime_of(ti);
            if (ti->pointer_size == 4)
                w->pointer_size = 4; /* else the writer's (8, or 4 asked for) */
            if (ti->pid)
                w->pid = ti->pid;
            if (!etlw_begin(w))
                return etlw_fail(err, GCS_ERR_NOMEM, "ETL writer: cannot begin");
            begun = true;
        }
        if (max_bytes && w->bytes + (uint64_t)w->cpus * w->buffer_size >= max_bytes)
            break;
        if (ev->type->provider != last_provider) {
            etlw_provider_guid(ev->type->provider, guid);
            last_provider = ev->type->provider;
        }
        static const uint8_t zero[16];
        etlw_event e;
        memset(&e, 0, sizeof e);
        e.cpu = etlw_cpu_of(w, ev);
        e.timestamp = etlw_pause_stretch_time(&stretch, ev);
        e.pid = ev->pid;
        e.tid = (uint32_t)ev->tid;
        e.provider = guid;
        e.id = (uint16_t)ev->type->event_id;
        e.version = (uint8_t)ev->type->version;
        e.level = (uint8_t)ev->type->level;
        e.opcode = (uint8_t)ev->type->opcode;
        e.keywords = ev->type->keywords;
        e.activity = ev->activity_id;
        e.related = memcmp(ev->related_activity_id, zero, 16) ? ev->related_activity_id : NULL;
        e.writer_32bit = ev->pointer_size == 4; /* header 0x12: the reader takes 4 */
        e.payload = ev->payload;
        e.payload_size = ev->payload_size;
        if (!etlw_add(w, &e))
            continue; /* larger than a buffer: ETW drops it too */
    }
    if (st < 0)
        return st;
    if (!begun && !etlw_begin(w))
        return etlw_fail(err, GCS_ERR_NOMEM, "ETL writer: cannot begin");
    if (!etlw_end(w))
        return etlw_fail(err, GCS_ERR_IO, "ETL writer: write failed");
    return GCS_OK;
}

/* ---- a synthetic trace of GCs ---------------------------------------- */

/* What etlw_synthetic writes: one process, `gcs` GCs of the workstation
 * kind, each SuspendEEStart, SuspendEEStop, GCStart, GCHeapStats, GCEnd,
 * RestartEEStart, RestartEEStop on the GC thread (its processor changes
 * with each GC), and between two GCs `handles_per_gc` SetGCHandle and
 * DestroyGCHandle events on `threads` worker threads, each thread on its
 * own processor, so that buffers of different processors interleave in
 * time. Every `cut_every`-th handle event (0: none) is written cut at its
 * buffer's end instead (etlw_add_cut): the reader must skip it. */
typedef struct etlw_synthetic_opts {
    uint32_t gcs;
    uint32_t handles_per_gc;
    uint32_t threads;
    uint32_t cut_every;
    uint64_t max_bytes; /* stop before the file passes it (0: no limit) */
    uint32_t idle_cpus; /* the last ones get no event from the GCs and threads */
    bool straggler;     /* the last processor gets one DestroyGCHandle before the first
                           GC: its only buffer, written at the end, holds the earliest
                           event (as processor 4 in gcevents.etl) */
} etlw_synthetic_opts;

typedef struct etlw_synthetic_counts {
    uint64_t events;      /* written whole (the reader's count, header event excluded) */
    uint64_t gcs;         /* GCs written whole */
    uint64_t handles;     /* SetGCHandle + DestroyGCHandle written whole */
    uint64_t cut;         /* records cut at a buffer end */
    int64_t last_ts;
} etlw_synthetic_counts;

#define ETLW_SYNTH_PID 4242u
#define ETLW_SYNTH_GC_TID 1000u
#define ETLW_SYNTH_GC_PERIOD 20000 /* ticks between GCs (2 ms at 10 MHz) */

static const uint8_t etlw_runtime_guid[16] = {0x23, 0x0d, 0x3c, 0xe1, 0xbc, 0xcc, 0x12, 0x4e,
                                              0x93, 0x1b, 0xd9, 0xcc, 0x2e, 0xee, 0x27, 0xe4};

/* One runtime event of the synthetic trace. */
static inline bool etlw_synth_event(etlw *w, uint32_t cpu, int64_t ts, uint32_t tid, uint16_t id,
                                    uint8_t version, uint64_t keywords, const uint8_t *payload,
                                    uint32_t size, bool cut)
{
    etlw_event e;
    memset(&e, 0, sizeof e);
    e.cpu = cpu;
    e.timestamp = ts;
    e.pid = ETLW_SYNTH_PID;
    e.tid = tid;
    e.provider = etlw_runtime_guid;
    e.id = id;
    e.version = version;
    e.level = 4;
    e.keywords = keywords;
    e.writer_32bit = w->pointer_size == 4; /* a 32-bit log's process is 32-bit */
    e.payload = payload;
    e.payload_size = size;
    return cut ? etlw_add_cut(w, &e) : etlw_add(w, &e);
}

/* Payload pointers are the log's pointer size (its events are written by a
 * process of that width). GC i (1-based): generation i % 3, reason 0
 * (AllocSmall) or 1 (Induced) every fifth, suspension 10 us, GC 50 us + i %
 * 7 us, restart 5 us; heap stats gen0 = i KB. */
static inline bool etlw_synthetic(etlw *w, const etlw_synthetic_opts *o, etlw_synthetic_counts *n)
{
    memset(n, 0, sizeof *n);
    if (!etlw_begin(w))
        return false;
    uint32_t ps = w->pointer_size;
    uint32_t threads = o->threads ? o->threads : 1;
    if (o->idle_cpus >= w->cpus)
        return false;
    uint32_t busy = w->cpus - o->idle_cpus;
    uint8_t p[128];
    if (o->straggler) {
        memset(p, 0, sizeof p);
        if (!etlw_synth_event(w, w->cpus - 1, w->start_ticks + 10, 3000, 31, 0, 2, p, ps + 2,
                              false))
            return false;
        n->events++;
        n->handles++;
    }
    uint64_t handle_seq = 0;
    for (uint32_t i = 1; i <= o->gcs; i++) {
        if (o->max_bytes && w->bytes + (uint64_t)(w->cpus + 1) * w->buffer_size >= o->max_bytes)
            break;
        int64_t t0 = w->start_ticks + (int64_t)i * ETLW_SYNTH_GC_PERIOD;
        uint32_t cpu = i % busy;
        uint32_t gen = i % 3, reason = i % 5 == 0 ? 1 : 0;
        bool ok = true;
        memset(p, 0, sizeof p);
        etlw_put32(p, 1);     /* SuspendEEStart V1: Reason SuspendForGC */
        etlw_put32(p + 4, i); /* Count */
        ok &= etlw_synth_event(w, cpu, t0, ETLW_SYNTH_GC_TID, 9, 1, 1, p, 10, false);
        memset(p, 0, sizeof p);
        ok &= etlw_synth_event(w, cpu, t0 + 100, ETLW_SYNTH_GC_TID, 8, 1, 1, p, 2, false);
        etlw_put32(p, i);     /* GCStart V2: Count, Depth, Reason, Type, ClrInstanceID, Seq */
        etlw_put32(p + 4, gen);
        etlw_put32(p + 8, reason);
        ok &= etlw_synth_event(w, cpu, t0 + 110, ETLW_SYNTH_GC_TID, 1, 2, 1, p, 26, false);
        memset(p, 0, sizeof p);
        for (uint32_t g = 0; g < 4; g++) { /* GCHeapStats V1: size, promoted of gens 0..3 */
            etlw_put64(p + 16 * g, (uint64_t)(i + g) * 1024u);
            etlw_put64(p + 16 * g + 8, (uint64_t)(g + 1) * 512u);
        }
        ok &= etlw_synth_event(w, cpu, t0 + 500 + i % 7 * 10, ETLW_SYNTH_GC_TID, 4, 1, 1, p, 94,
                               false);
        memset(p, 0, sizeof p);
        etlw_put32(p, i);     /* GCEnd V1: Count, Depth, ClrInstanceID */
        etlw_put32(p + 4, gen);
        ok &= etlw_synth_event(w, cpu, t0 + 610 + i % 7 * 10, ETLW_SYNTH_GC_TID, 2, 1, 1, p, 10,
                               false);
        memset(p, 0, sizeof p);
        ok &= etlw_synth_event(w, cpu, t0 + 620 + i % 7 * 10, ETLW_SYNTH_GC_TID, 7, 1, 1, p, 2,
                               false);
        ok &= etlw_synth_event(w, cpu, t0 + 670 + i % 7 * 10, ETLW_SYNTH_GC_TID, 3, 1, 1, p, 2,
                               false);
        if (!ok)
            return false;
        n->events += 7;
        n->gcs++;
        n->last_ts = t0 + 670 + i % 7 * 10;
        /* Handle events after the GC, spread over the rest of the period. */
        for (uint32_t k = 0; k < o->handles_per_gc; k++) {
            uint32_t th = k % threads;
            int64_t ts = t0 + 1000 + (int64_t)k * (ETLW_SYNTH_GC_PERIOD - 1000) / o->handles_per_gc;
            handle_seq++;
            bool set = (k & 1) == 0;
            uint32_t size;
            memset(p, 0, sizeof p);
            uint64_t handle = 0x10000000u + (handle_seq >> 1) * 8u;
            if (set) { /* SetGCHandle: HandleID, ObjectID, Kind, Generation, AppDomainID, Clr */
                for (uint32_t b = 0; b < ps; b++) {
                    p[b] = (uint8_t)(handle >> (8 * b));
                    p[ps + b] = (uint8_t)((handle * 16u) >> (8 * b));
                }
                etlw_put32(p + 2 * ps, 2);
                etlw_put32(p + 2 * ps + 4, gen);
                etlw_put64(p + 2 * ps + 8, 1);
                size = 2 * ps + 18;
            } else { /* DestroyGCHandle: HandleID, ClrInstanceID */
                for (uint32_t b = 0; b < ps; b++)
                    p[b] = (uint8_t)(handle >> (8 * b));
                size = ps + 2;
            }
            bool cut = o->cut_every && handle_seq % o->cut_every == 0;
            if (!etlw_synth_event(w, (cpu + 1 + th) % busy, ts, 2000 + th, set ? 30 : 31, 0,
                                  2, p, size, cut))
                return false;
            if (cut) {
                n->cut++;
            } else {
                n->events++;
                n->handles++;
            }
            if (ts > n->last_ts)
                n->last_ts = ts;
        }
    }
    return etlw_end(w);
}

#endif
