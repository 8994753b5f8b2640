/*
 * tests/tools/nettrace_v6_writer.h - a nettrace V6 writer for tests.
 *
 * Writes the block format of microsoft/perfview NetTraceFormat.md (V6):
 * stream header, Trace block, Metadata/Thread/LabelList/Event blocks (event
 * rows with or without header compression), Stack, SequencePoint,
 * RemoveThread and EndOfStream blocks. Pending rows are buffered and written
 * in the order metadata, threads, label lists, events, so every reference
 * points backwards in the file as the format requires.
 *
 * Header-only (static functions) so the writer tool and the unit tests share
 * it; it uses only the public headers. Not part of libgcscope.
 */
#ifndef GCS_TESTS_NETTRACE_V6_WRITER_H
#define GCS_TESTS_NETTRACE_V6_WRITER_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gcscope.h"

/* ---- byte buffer --------------------------------------------------- */

typedef struct v6w_bytes {
    uint8_t *data;
    size_t len, cap;
    bool failed; /* out of memory: everything after is dropped */
} v6w_bytes;

static inline void v6w_put(v6w_bytes *b, const void *p, size_t n)
{
    if (b->failed || n == 0)
        return;
    if (n > b->cap - b->len) {
        size_t nc = b->cap ? b->cap : 256;
        while (nc - b->len < n)
            nc *= 2;
        uint8_t *d = realloc(b->data, nc);
        if (!d) {
            b->failed = true;
            return;
        }
        b->data = d;
        b->cap = nc;
    }
    memcpy(b->data + b->len, p, n);
    b->len += n;
}
static inline void v6w_free_bytes(v6w_bytes *b)
{
    free(b->data);
    memset(b, 0, sizeof *b);
}
static inline void v6w_u8(v6w_bytes *b, uint8_t v) { v6w_put(b, &v, 1); }
static inline void v6w_u16(v6w_bytes *b, uint16_t v)
{
    uint8_t x[2] = {(uint8_t)v, (uint8_t)(v >> 8)};
    v6w_put(b, x, 2);
}
static inline void v6w_u32(v6w_bytes *b, uint32_t v)
{
    uint8_t x[4];
    for (int i = 0; i < 4; i++)
        x[i] = (uint8_t)(v >> (8 * i));
    v6w_put(b, x, 4);
}
static inline void v6w_u64(v6w_bytes *b, uint64_t v)
{
    uint8_t x[8];
    for (int i = 0; i < 8; i++)
        x[i] = (uint8_t)(v >> (8 * i));
    v6w_put(b, x, 8);
}
static inline void v6w_varu(v6w_bytes *b, uint64_t v)
{
    do {
        uint8_t x = (uint8_t)(v & 0x7f);
        v >>= 7;
        if (v)
            x |= 0x80;
        v6w_u8(b, x);
    } while (v);
}
static inline void v6w_str(v6w_bytes *b, const char *s)
{
    size_t n = s ? strlen(s) : 0;
    v6w_varu(b, n);
    v6w_put(b, s, n);
}
/* Appends a uint16 size then the bytes of inner; false if too large. */
static inline bool v6w_sized16(v6w_bytes *b, const v6w_bytes *inner)
{
    if (inner->len > 0xFFFF || inner->failed)
        return false;
    v6w_u16(b, (uint16_t)inner->len);
    v6w_put(b, inner->data, inner->len);
    return true;
}

/* ---- writer state -------------------------------------------------- */

/* Destination: returns false on a write error. */
typedef bool (*v6w_write_fn)(void *ctx, const void *data, size_t n);

typedef struct v6w_event {
    uint32_t metadata_id;
    bool sorted;
    uint32_t sequence;
    uint64_t thread_index;
    uint64_t capture_index;
    uint32_t processor;
    uint32_t stack_id;
    uint64_t timestamp;
    uint32_t label_id; /* 0: none */
    const uint8_t *payload;
    uint32_t payload_size;
} v6w_event;

typedef struct v6w {
    v6w_write_fn write;
    void *ctx;
    bool compressed;
    bool failed;
    uint32_t pointer_size;
    v6w_bytes meta, threads, labels, events;
    uint32_t label_first, label_count, next_label;
    v6w_event prev; /* compression state, reset per event block */
    uint64_t min_ts, max_ts;
    size_t event_block_target;
    uint64_t unencodable_schemas; /* written without fields */
    uint64_t unmatched_names;     /* no metadata name displays as the original */
    /* Optional, for tools that derive a test trace (v6w_convert): sees each
     * event before it is written and may lower the version its type's
     * metadata declares (*type is a copy; the same change for every event
     * of a type) and shorten its payload. */
    void (*rewrite)(void *ctx, const gcs_event *ev, gcs_event_type *type,
                    uint32_t *payload_size);
    void *rewrite_ctx;
} v6w;

static inline void v6w_init(v6w *w, v6w_write_fn write, void *ctx, bool compressed)
{
    memset(w, 0, sizeof *w);
    w->write = write;
    w->ctx = ctx;
    w->compressed = compressed;
    w->next_label = 1;
    w->pointer_size = 8;
    w->event_block_target = 60000;
}

static inline void v6w_free(v6w *w)
{
    v6w_free_bytes(&w->meta);
    v6w_free_bytes(&w->threads);
    v6w_free_bytes(&w->labels);
    v6w_free_bytes(&w->events);
}

static inline void v6w_raw(v6w *w, const void *p, size_t n)
{
    if (!w->failed && n && !w->write(w->ctx, p, n))
        w->failed = true;
}

/* One block: header word (kind << 24 | size) then the content. */
static inline void v6w_block(v6w *w, uint8_t kind, const v6w_bytes *content)
{
    size_t n = content ? content->len : 0;
    if (n > 0xFFFFFF || (content && content->failed)) {
        w->failed = true;
        return;
    }
    v6w_bytes h = {0};
    v6w_u32(&h, (uint32_t)n | ((uint32_t)kind << 24));
    v6w_raw(w, h.data, h.len);
    v6w_free_bytes(&h);
    if (n)
        v6w_raw(w, content->data, n);
}

/* Stream header and Trace block. */
static inline void v6w_begin(v6w *w, const gcs_trace_info *ti)
{
    v6w_bytes b = {0};
    v6w_put(&b, "Nettrace", 8);
    v6w_u32(&b, 0); /* Reserved */
    v6w_u32(&b, 6); /* Major */
    v6w_u32(&b, 0); /* Minor */
    v6w_raw(w, b.data, b.len);
    b.len = 0;
    int16_t t[8] = {(int16_t)ti->start_year,   (int16_t)ti->start_month,
                    0,                         (int16_t)ti->start_day,
                    (int16_t)ti->start_hour,   (int16_t)ti->start_minute,
                    (int16_t)ti->start_second, (int16_t)ti->start_millisecond};
    for (int i = 0; i < 8; i++)
        v6w_u16(&b, (uint16_t)t[i]);
    v6w_u64(&b, (uint64_t)ti->start_ticks);
    v6w_u64(&b, (uint64_t)ti->clock_frequency);
    w->pointer_size = ti->pointer_size ? ti->pointer_size : 8;
    v6w_u32(&b, w->pointer_size);
    char num[32];
    int kv = 0;
    kv += ti->cpu_count != 0;
    kv += ti->pid != 0;
    kv += ti->expected_cpu_sampling_rate != 0;
    v6w_u32(&b, (uint32_t)kv);
    if (ti->cpu_count) {
        snprintf(num, sizeof num, "%u", ti->cpu_count);
        v6w_str(&b, "HardwareThreadCount");
        v6w_str(&b, num);
    }
    if (ti->pid) {
        snprintf(num, sizeof num, "%u", ti->pid);
        v6w_str(&b, "ProcessId");
        v6w_str(&b, num);
    }
    if (ti->expected_cpu_sampling_rate) {
        snprintf(num, sizeof num, "%lld", (long long)ti->expected_cpu_sampling_rate);
        v6w_str(&b, "ExpectedCPUSamplingRate");
        v6w_str(&b, num);
    }
    v6w_block(w, 1, &b);
    v6w_free_bytes(&b);
}

/* ---- metadata ------------------------------------------------------ */

static inline bool v6w_field_list(v6w_bytes *b, const gcs_field *fields, uint32_t n, uint32_t psize);

static inline bool v6w_scalar_type(v6w_bytes *b, const gcs_field *f, uint32_t psize)
{
    static const uint8_t codes[] = {
        [GCS_T_BOOL8] = 26, [GCS_T_BOOL32] = 3,  [GCS_T_CHAR16] = 4, [GCS_T_I8] = 5,
        [GCS_T_U8] = 6,     [GCS_T_I16] = 7,     [GCS_T_U16] = 8,    [GCS_T_I32] = 9,
        [GCS_T_U32] = 10,   [GCS_T_I64] = 11,    [GCS_T_U64] = 12,   [GCS_T_F32] = 13,
        [GCS_T_F64] = 14,   [GCS_T_GUID] = 17,   [GCS_T_UTF16Z] = 18, [GCS_T_DATETIME] = 16,
        [GCS_T_VARINT] = 20, [GCS_T_VARUINT] = 21, [GCS_T_CHAR8] = 23,
    };
    switch (f->type) {
    case GCS_T_STRUCT:
        v6w_u8(b, 1);
        return v6w_field_list(b, f->children, f->child_count, psize);
    case GCS_T_POINTER: /* V6 has no pointer type: the machine's integer */
        v6w_u8(b, psize == 4 ? 10 : 12);
        return true;
    case GCS_T_BINARY: /* only meaningful as an element of a repeat */
        if (f->repeat == GCS_REPEAT_ONE)
            return false;
        v6w_u8(b, 6);
        return true;
    default:
        if ((size_t)f->type >= sizeof codes || codes[f->type] == 0)
            return false; /* ANSIZ, UTF8: no V6 encoding */
        v6w_u8(b, codes[f->type]);
        return true;
    }
}

static inline bool v6w_type(v6w_bytes *b, const gcs_field *f, uint32_t psize)
{
    switch (f->repeat) {
    case GCS_REPEAT_ONE: return v6w_scalar_type(b, f, psize);
    case GCS_REPEAT_U16_PREFIX: v6w_u8(b, 19); return v6w_scalar_type(b, f, psize);
    case GCS_REPEAT_RELLOC: v6w_u8(b, 24); return v6w_scalar_type(b, f, psize);
    case GCS_REPEAT_DATALOC: v6w_u8(b, 25); return v6w_scalar_type(b, f, psize);
    case GCS_REPEAT_FIXED:
        if (f->repeat_arg > 0xFFFF)
            return false;
        v6w_u8(b, 22);
        if (!v6w_scalar_type(b, f, psize))
            return false;
        v6w_u16(b, (uint16_t)f->repeat_arg);
        return true;
    default:
        return false; /* count-field and varuint-prefixed arrays: not in V6 */
    }
}

static inline bool v6w_field_list(v6w_bytes *b, const gcs_field *fields, uint32_t n, uint32_t psize)
{
    if (n > 0xFFFF)
        return false;
    v6w_u16(b, (uint16_t)n);
    for (uint32_t i = 0; i < n; i++) {
        v6w_bytes fd = {0};
        v6w_str(&fd, fields[i].name);
        bool ok = v6w_type(&fd, &fields[i], psize) && v6w_sized16(b, &fd);
        v6w_free_bytes(&fd);
        if (!ok)
            return false;
    }
    return true;
}

/*
 * The metadata name to store so that readers show t->name again: t->name is
 * a display name (gcs_event_display_name: "EventID(7)" for no name, the
 * built-in "GC/Start" for runtime events, "Name/Opcode" otherwise), read
 * with or without the opcode (has_opcode). Tries "", the name, and the name without its
 * "/Opcode" suffix (plus "Start"/"Stop" for opcodes 1/2), keeping the first
 * that displays as t->name; else t->name itself (counted).
 */
static inline const char *v6w_meta_name(v6w *w, const gcs_event_type *t, bool has_opcode,
                                        char *cand, size_t cap)
{
    char shown[256];
    const char *slash = strrchr(t->name, '/');
    size_t base = slash ? (size_t)(slash - t->name) : strlen(t->name);
    for (int k = 0; k < 5; k++) {
        switch (k) {
        case 0: snprintf(cand, cap, "%s", ""); break;
        case 1: snprintf(cand, cap, "%s", t->name); break;
        case 2: snprintf(cand, cap, "%.*s", (int)base, t->name); break;
        case 3: snprintf(cand, cap, "%.*sStart", (int)base, t->name); break;
        default: snprintf(cand, cap, "%.*sStop", (int)base, t->name); break;
        }
        gcs_event_display_name(t->provider, t->event_id, t->version, cand, t->opcode,
                               has_opcode, shown, sizeof shown);
        if (strcmp(shown, t->name) == 0)
            return cand;
    }
    w->unmatched_names++;
    return t->name;
}

/* True if the library names t from its built-in runtime manifest (the
 * display name of a nameless row is not the "EventID(n)" placeholder). */
static inline bool v6w_is_builtin(const gcs_event_type *t)
{
    char shown[256], placeholder[64];
    gcs_event_display_name(t->provider, t->event_id, t->version, "", 0, false, shown,
                           sizeof shown);
    if (t->event_id == 0)
        snprintf(placeholder, sizeof placeholder, "EventWriteString");
    else
        snprintf(placeholder, sizeof placeholder, "EventID(%u)", (unsigned)t->event_id);
    return strcmp(shown, placeholder) != 0;
}

/*
 * Queues the metadata row of t under id t->metadata_id: provider, event id,
 * meta_name (NULL: the name that reads back as t->name, see v6w_meta_name),
 * the fields when with_schema (a schema V6 cannot express is left out and
 * counted), opcode (when write_opcode), keywords, level, version as optional
 * metadata.
 */
static inline void v6w_metadata(v6w *w, const gcs_event_type *t, bool with_schema,
                                const char *meta_name, bool write_opcode)
{
    v6w_bytes row = {0};
    char name[256];
    v6w_varu(&row, t->metadata_id);
    v6w_str(&row, t->provider);
    v6w_varu(&row, t->event_id);
    v6w_str(&row, meta_name ? meta_name
                            : v6w_meta_name(w, t, write_opcode, name, sizeof name));
    size_t fields_at = row.len;
    if (!with_schema || !v6w_field_list(&row, t->fields, t->field_count, w->pointer_size)) {
        if (with_schema)
            w->unencodable_schemas++;
        row.len = fields_at;
        v6w_u16(&row, 0);
    }
    v6w_bytes opt = {0};
    if (write_opcode) {
        v6w_u8(&opt, 1);
        v6w_u8(&opt, (uint8_t)t->opcode);
    }
    v6w_u8(&opt, 3);
    v6w_u64(&opt, t->keywords);
    v6w_u8(&opt, 8);
    v6w_u8(&opt, (uint8_t)t->level);
    v6w_u8(&opt, 9);
    v6w_u8(&opt, (uint8_t)t->version);
    v6w_sized16(&row, &opt);
    v6w_free_bytes(&opt);
    if (w->meta.len == 0)
        v6w_u16(&w->meta, 0); /* block HeaderSize: no header */
    if (!v6w_sized16(&w->meta, &row))
        w->failed = true;
    v6w_free_bytes(&row);
}

/* ---- threads and labels -------------------------------------------- */

static inline void v6w_thread(v6w *w, uint64_t index, uint64_t pid, uint64_t tid, const char *name)
{
    v6w_bytes row = {0};
    v6w_varu(&row, index);
    if (name && *name) {
        v6w_u8(&row, 1);
        v6w_str(&row, name);
    }
    v6w_u8(&row, 2);
    v6w_varu(&row, pid);
    v6w_u8(&row, 3);
    v6w_varu(&row, tid);
    if (!v6w_sized16(&w->threads, &row))
        w->failed = true;
    v6w_free_bytes(&row);
}

/* Queues a label list (activity and/or related activity id, NULL = absent)
 * and returns its id, valid until the next sequence point. */
static inline uint32_t v6w_label(v6w *w, const uint8_t *activity, const uint8_t *related)
{
    if (w->label_count == 0)
        w->label_first = w->next_label;
    uint32_t id = w->next_label++;
    w->label_count++;
    if (activity) {
        v6w_u8(&w->labels, related ? 1 : 1 | 0x80);
        v6w_put(&w->labels, activity, 16);
    }
    if (related) {
        v6w_u8(&w->labels, 2 | 0x80);
        v6w_put(&w->labels, related, 16);
    }
    if (!activity && !related) { /* an explicit empty list: one SpanId 0 */
        v6w_u8(&w->labels, 4 | 0x80);
        v6w_u64(&w->labels, 0);
    }
    return id;
}

/* ---- flushing ------------------------------------------------------ */

static inline void v6w_flush(v6w *w)
{
    if (w->meta.len) {
        v6w_block(w, 3, &w->meta);
        w->meta.len = 0;
    }
    if (w->threads.len) {
        v6w_block(w, 6, &w->threads);
        w->threads.len = 0;
    }
    if (w->label_count) {
        v6w_bytes b = {0};
        v6w_u32(&b, w->label_first);
        v6w_u32(&b, w->label_count);
        v6w_put(&b, w->labels.data, w->labels.len);
        v6w_block(w, 8, &b);
        v6w_free_bytes(&b);
        w->labels.len = 0;
        w->label_count = 0;
    }
    if (w->events.len) {
        v6w_bytes b = {0};
        v6w_u16(&b, 20);
        v6w_u16(&b, w->compressed ? 1 : 0);
        v6w_u64(&b, w->min_ts);
        v6w_u64(&b, w->max_ts);
        v6w_put(&b, w->events.data, w->events.len);
        v6w_block(w, 2, &b);
        v6w_free_bytes(&b);
        w->events.len = 0;
        memset(&w->prev, 0, sizeof w->prev);
    }
}

static inline void v6w_event_row(v6w *w, const v6w_event *e)
{
    if (w->events.len == 0) {
        w->min_ts = e->timestamp;
        w->max_ts = e->timestamp;
    }
    if (e->timestamp < w->min_ts)
        w->min_ts = e->timestamp;
    if (e->timestamp > w->max_ts)
        w->max_ts = e->timestamp;
    v6w_bytes *b = &w->events;
    if (!w->compressed) {
        v6w_u32(b, 48 + e->payload_size);
        v6w_u32(b, e->metadata_id | (e->sorted ? 0 : 0x80000000u)); /* high bit: NOT sorted */
        v6w_u32(b, e->sequence);
        v6w_u64(b, e->thread_index);
        v6w_u64(b, e->capture_index);
        v6w_u32(b, e->processor);
        v6w_u32(b, e->stack_id);
        v6w_u64(b, e->timestamp);
        v6w_u32(b, e->label_id);
        v6w_u32(b, e->payload_size);
    } else {
        const v6w_event *p = &w->prev;
        v6w_bytes h = {0};
        uint8_t flags = 0;
        if (e->metadata_id != p->metadata_id) {
            flags |= 1;
            v6w_varu(&h, e->metadata_id);
        }
        uint32_t expected = p->sequence + (e->metadata_id != 0 ? 1u : 0u);
        if (e->sequence != expected || e->capture_index != p->capture_index ||
            e->processor != p->processor) {
            flags |= 2;
            v6w_varu(&h, (uint32_t)(e->sequence - p->sequence - 1u));
            v6w_varu(&h, e->capture_index);
            v6w_varu(&h, e->processor);
        }
        if (e->thread_index != p->thread_index) {
            flags |= 4;
            v6w_varu(&h, e->thread_index);
        }
        if (e->stack_id != p->stack_id) {
            flags |= 8;
            v6w_varu(&h, e->stack_id);
        }
        v6w_varu(&h, e->timestamp - p->timestamp); /* modulo 2^64 */
        if (e->label_id != p->label_id) {
            flags |= 16;
            v6w_varu(&h, e->label_id);
        }
        if (e->sorted)
            flags |= 64;
        if (e->payload_size != p->payload_size) {
            flags |= 128;
            v6w_varu(&h, e->payload_size);
        }
        v6w_u8(b, flags);
        v6w_put(b, h.data, h.len);
        v6w_free_bytes(&h);
        w->prev = *e;
    }
    v6w_put(b, e->payload, e->payload_size);
}

/* Queues one event row; referenced metadata/threads/labels must have been
 * queued before. Flushes all pending blocks when the event block is full. */
static inline void v6w_event_add(v6w *w, const v6w_event *e)
{
    v6w_event_row(w, e);
    if (w->events.len >= w->event_block_target || w->meta.len > 1000000 ||
        w->threads.len > 1000000 || w->labels.len > 1000000)
        v6w_flush(w);
}

static inline void v6w_stack_block(v6w *w, uint32_t first_id, uint32_t count,
                            const uint32_t *sizes, const uint8_t *bytes)
{
    v6w_flush(w);
    v6w_bytes b = {0};
    v6w_u32(&b, first_id);
    v6w_u32(&b, count);
    for (uint32_t i = 0; i < count; i++) {
        v6w_u32(&b, sizes[i]);
        v6w_put(&b, bytes, sizes[i]);
        bytes += sizes[i];
    }
    v6w_block(w, 5, &b);
    v6w_free_bytes(&b);
}

/* Writes pending blocks, then a sequence point; label ids restart at 1. */
static inline void v6w_sequence_point(v6w *w, uint64_t timestamp, uint32_t flags, const uint64_t *index,
                               const uint32_t *seq, uint32_t n)
{
    v6w_flush(w);
    v6w_bytes b = {0};
    v6w_u64(&b, timestamp);
    v6w_u32(&b, flags);
    v6w_u32(&b, n);
    for (uint32_t i = 0; i < n; i++) {
        v6w_varu(&b, index[i]);
        v6w_varu(&b, seq[i]);
    }
    v6w_block(w, 4, &b);
    v6w_free_bytes(&b);
    w->next_label = 1;
}

static inline void v6w_remove_thread(v6w *w, uint64_t index, uint32_t seq)
{
    v6w_flush(w);
    v6w_bytes b = {0};
    v6w_varu(&b, index);
    v6w_varu(&b, seq);
    v6w_block(w, 7, &b);
    v6w_free_bytes(&b);
}

/* Pending blocks, then EndOfStream. false if anything failed. */
static inline bool v6w_end(v6w *w)
{
    v6w_flush(w);
    v6w_block(w, 0, NULL);
    return !w->failed && !w->meta.failed && !w->threads.failed && !w->labels.failed &&
           !w->events.failed;
}

/* ---- a small synthetic trace ----------------------------------------
 * Exercises every block kind and encoding corner: two schemas (none, and
 * nested struct / arrays / varuint / fixed array / array of arrays), three
 * threads in two processes, label lists redefined after a sequence point,
 * a stack block, a thread removal, a thread-flushing sequence point and a
 * timestamp that goes backwards between two capture threads (the compressed
 * delta wraps modulo 2^64).
 * tests/unit/test_nettrace_v6.c knows the expected result by heart. */

static const uint8_t v6w_synth_guid_a[16] = {0xA1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xA2};
static const uint8_t v6w_synth_guid_b[16] = {0xB1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xB2};
static const uint8_t v6w_synth_guid_c[16] = {0xC1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xC2};
static const uint8_t v6w_synth_guid_d[16] = {0xD1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xD2};

static const gcs_field v6w_synth_point[] = {
    {"X", GCS_T_I32, GCS_REPEAT_ONE, 0, NULL, 0, NULL, false},
    {"Y", GCS_T_I32, GCS_REPEAT_ONE, 0, NULL, 0, NULL, false},
};
static const gcs_field v6w_synth_row[] = {
    {"Row", GCS_T_U16, GCS_REPEAT_U16_PREFIX, 0, NULL, 0, NULL, false},
};
static const gcs_field v6w_synth_fields[] = {
    {"Count", GCS_T_U32, GCS_REPEAT_ONE, 0, NULL, 0, NULL, false},
    {"Name", GCS_T_UTF16Z, GCS_REPEAT_ONE, 0, NULL, 0, NULL, false},
    {"Values", GCS_T_I64, GCS_REPEAT_U16_PREFIX, 0, NULL, 0, NULL, false},
    {"Point", GCS_T_STRUCT, GCS_REPEAT_ONE, 0, v6w_synth_point, 2, NULL, false},
    {"Tag", GCS_T_U8, GCS_REPEAT_FIXED, 4, NULL, 0, NULL, false},
    {"Big", GCS_T_VARUINT, GCS_REPEAT_ONE, 0, NULL, 0, NULL, false},
    {"Matrix", GCS_T_STRUCT, GCS_REPEAT_U16_PREFIX, 0, v6w_synth_row, 1, NULL, false},
    {"Flag", GCS_T_BOOL8, GCS_REPEAT_ONE, 0, NULL, 0, NULL, false},
};

static inline void v6w_synthetic(v6w *w)
{
    gcs_trace_info ti = {0};
    ti.pointer_size = 8;
    ti.pid = 4242;
    ti.cpu_count = 8;
    ti.clock_frequency = 10000000;
    ti.start_ticks = 1000000;
    ti.start_year = 2026;
    ti.start_month = 11;
    ti.start_day = 21;
    ti.start_hour = 18;
    ti.start_minute = 30;
    ti.start_second = 5;
    ti.start_millisecond = 123;
    ti.expected_cpu_sampling_rate = 1000000;
    v6w_begin(w, &ti);

    gcs_event_type gc = {0};
    gc.metadata_id = 1;
    gc.provider = "Microsoft-Windows-DotNETRuntime";
    gc.event_id = 1;
    gc.version = 2;
    gc.keywords = 0x1;
    gc.level = 4;
    gc.opcode = 1;
    gc.name = "GC/Start";
    gc.known = true;
    v6w_metadata(w, &gc, false, gc.name, true);
    gcs_event_type sm = {0};
    sm.metadata_id = 2;
    sm.provider = "Synthetic-Provider";
    sm.event_id = 7;
    sm.version = 1;
    sm.keywords = 0xF00;
    sm.level = 5;
    sm.opcode = 10;
    sm.name = "Sample";
    sm.known = true;
    sm.fields = v6w_synth_fields;
    sm.field_count = 8;
    v6w_metadata(w, &sm, true, sm.name, true);

    v6w_thread(w, 1, 4242, 100, "Main");
    v6w_thread(w, 2, 4242, 200, NULL);
    v6w_thread(w, 3, 77, 300, "Other");
    uint32_t la = v6w_label(w, v6w_synth_guid_a, NULL);
    uint32_t lbc = v6w_label(w, v6w_synth_guid_b, v6w_synth_guid_c);

    /* GCStart V2: Count 3, Depth 1, Reason 4, Type 0, ClrInstanceID 0,
     * ClientSequenceNumber 0 */
    static const uint8_t gc_payload[26] = {3, 0, 0, 0, 1, 0, 0, 0, 4};
    static const uint8_t sm_payload[] = {
        5, 0, 0, 0,                      /* Count = 5 */
        'h', 0, 'i', 0, 0, 0,            /* Name = "hi" */
        1, 0, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, /* Values = {-1} */
        7, 0, 0, 0, 9, 0, 0, 0,          /* Point = {7, 9} */
        't', 'a', 'g', '!',              /* Tag */
        0xAC, 0x02,                      /* Big = 300 */
        1, 0, 2, 0, 3, 0, 4, 0,          /* Matrix = {{3, 4}} */
        1,                               /* Flag */
    };
    v6w_event e = {0};
    e.metadata_id = 1; e.sorted = true; e.sequence = 1; e.thread_index = 1;
    e.capture_index = 1; e.processor = 0; e.timestamp = 1000100;
    e.payload = gc_payload; e.payload_size = sizeof gc_payload;
    v6w_event_add(w, &e);
    e.metadata_id = 2; e.sorted = false; e.sequence = 1; e.thread_index = 2;
    e.capture_index = 2; e.processor = 1; e.timestamp = 1000200; e.label_id = la;
    e.payload = sm_payload; e.payload_size = sizeof sm_payload; e.stack_id = 1;
    v6w_event_add(w, &e);
    e.sequence = 2; e.thread_index = 1; e.capture_index = 1; e.processor = 1;
    e.timestamp = 1000300; e.label_id = lbc; e.stack_id = 2;
    v6w_event_add(w, &e);
    e.metadata_id = 1; e.sequence = 5; e.thread_index = 3; e.capture_index = 3;
    e.processor = 3; e.timestamp = 1000250; e.label_id = 0; e.stack_id = 0;
    e.payload = gc_payload; e.payload_size = sizeof gc_payload;
    v6w_event_add(w, &e);
    v6w_flush(w);

    static const uint32_t stack_sizes[2] = {8, 16};
    static const uint8_t stack_bytes[24] = {0};
    v6w_stack_block(w, 1, 2, stack_sizes, stack_bytes);

    uint64_t idx[3] = {1, 2, 3};
    uint32_t seq[3] = {2, 1, 5};
    v6w_sequence_point(w, 1000400, 0, idx, seq, 3);

    uint32_t ld = v6w_label(w, v6w_synth_guid_d, NULL); /* id 1 again */
    e.metadata_id = 1; e.sorted = true; e.sequence = 2; e.thread_index = 2;
    e.capture_index = 2; e.processor = 0; e.timestamp = 1000500; e.label_id = ld;
    v6w_event_add(w, &e);
    v6w_remove_thread(w, 3, 5);
    seq[1] = 2;
    v6w_sequence_point(w, 1000600, 1, idx, seq, 2);

    v6w_thread(w, 4, 4242, 400, "Late");
    v6w_thread(w, 5, 4242, 500, NULL);
    e.sequence = 1; e.thread_index = 4; e.capture_index = 4;
    e.timestamp = 1000700; e.label_id = 0; e.sorted = false;
    v6w_event_add(w, &e);
    e.sequence = 1; e.capture_index = 5; /* 4's state, captured by 5 */
    e.timestamp = 1000650; /* earlier than the row before: the delta wraps */
    v6w_event_add(w, &e);
    e.sequence = 2; e.capture_index = 4;
    e.timestamp = 1000800;
    v6w_event_add(w, &e);
}

/* ---- converting what the public reader delivers -------------------- */

#define V6W_EVENTS_PER_SEQUENCE_POINT 5000

/* (pid, tid) -> V6 thread index, and the last sequence it captured. */
typedef struct v6w_conv_thread {
    uint32_t pid;
    uint64_t tid;
    uint64_t index;
    uint32_t last_sequence;
    bool used;
} v6w_conv_thread;

typedef struct v6w_converter {
    v6w *w;
    v6w_conv_thread *threads;
    size_t cap, count;
    uint8_t *meta_written; /* by metadata id */
    size_t meta_cap;
    bool have_label;
    uint8_t last_activity[16], last_related[16];
    uint32_t last_label;
} v6w_converter;

static inline size_t v6w_conv_slot(const v6w_converter *cv, uint32_t pid, uint64_t tid)
{
    uint64_t h = (tid * UINT64_C(0x9E3779B97F4A7C15)) ^ ((uint64_t)pid * 0xC2B2AE35u);
    size_t i = (size_t)(h >> 20) & (cv->cap - 1);
    while (cv->threads[i].used && (cv->threads[i].pid != pid || cv->threads[i].tid != tid))
        i = (i + 1) & (cv->cap - 1);
    return i;
}

static inline v6w_conv_thread *v6w_conv_thread_of(v6w_converter *cv, uint32_t pid, uint64_t tid)
{
    if ((cv->count + 1) * 2 > cv->cap) {
        size_t ncap = cv->cap ? cv->cap * 2 : 256;
        v6w_conv_thread *old = cv->threads;
        size_t ocap = cv->cap;
        cv->threads = calloc(ncap, sizeof *cv->threads);
        if (!cv->threads) {
            cv->threads = old;
            return NULL;
        }
        cv->cap = ncap;
        for (size_t i = 0; i < ocap; i++)
            if (old[i].used)
                cv->threads[v6w_conv_slot(cv, old[i].pid, old[i].tid)] = old[i];
        free(old);
    }
    v6w_conv_thread *t = &cv->threads[v6w_conv_slot(cv, pid, tid)];
    if (!t->used) {
        t->used = true;
        t->pid = pid;
        t->tid = tid;
        t->index = ++cv->count;
        v6w_thread(cv->w, t->index, pid, tid, NULL);
    }
    return t;
}

static inline void v6w_conv_sequence_point(v6w_converter *cv, int64_t ts)
{
    size_t n = 0;
    uint64_t *idx = malloc((cv->count + 1) * sizeof *idx);
    uint32_t *seq = malloc((cv->count + 1) * sizeof *seq);
    if (!idx || !seq) {
        cv->w->failed = true;
    } else {
        for (size_t i = 0; i < cv->cap; i++) {
            if (!cv->threads[i].used)
                continue;
            idx[n] = cv->threads[i].index;
            seq[n] = cv->threads[i].last_sequence;
            n++;
        }
        v6w_sequence_point(cv->w, (uint64_t)ts, 0, idx, seq, (uint32_t)n);
    }
    free(idx);
    free(seq);
    cv->have_label = false; /* label ids restart after a sequence point */
}

static inline bool v6w_is_zero16(const uint8_t *g)
{
    for (int i = 0; i < 16; i++)
        if (g[i])
            return false;
    return true;
}

/*
 * Reads every event of r and writes it to w as V6, then ends w. Events are
 * written in the order delivered (timestamp order), all marked IsSorted,
 * with their metadata (provider, id, version, keywords, level, opcode,
 * name; the schema when it came from the trace), one thread row per
 * (pid, tid), label lists for non-zero activity ids, the original sequence
 * numbers and processors, and a sequence point every
 * V6W_EVENTS_PER_SEQUENCE_POINT events listing each capture thread's last
 * sequence. Stack ids become 0 (the public API gives no stack contents).
 * Returns the reader's final status (GCS_END when all went well); *events
 * gets the number written. w->failed tells about write errors.
 */
static inline gcs_status v6w_convert(gcs_reader *r, v6w *w, uint64_t *events, gcs_error *err)
{
    v6w_converter cv;
    memset(&cv, 0, sizeof cv);
    cv.w = w;
    const gcs_event *ev;
    gcs_status st;
    bool begun = false;
    uint64_t n = 0;
    int64_t last_ts = 0;
    while ((st = gcs_reader_next(r, &ev, err)) == GCS_OK) {
        if (!begun) {
            v6w_begin(w, gcs_reader_info(r));
            begun = true;
        }
        gcs_event_type rewritten = *ev->type;
        uint32_t payload_size = ev->payload_size;
        if (w->rewrite)
            w->rewrite(w->rewrite_ctx, ev, &rewritten, &payload_size);
        const gcs_event_type *t = &rewritten;
        if (t->metadata_id >= cv.meta_cap) {
            size_t nc = cv.meta_cap ? cv.meta_cap : 256;
            while (nc <= t->metadata_id && nc < ((size_t)1 << 26))
                nc *= 2;
            uint8_t *m = nc > t->metadata_id ? realloc(cv.meta_written, nc) : NULL;
            if (!m) {
                w->failed = true;
                break;
            }
            memset(m + cv.meta_cap, 0, nc - cv.meta_cap);
            cv.meta_written = m;
            cv.meta_cap = nc;
        }
        if (!cv.meta_written[t->metadata_id]) {
            /* Runtime events carry no opcode in their metadata: readers take
             * it from their manifests, and an explicit one would override. */
            v6w_metadata(w, t, t->schema_from_trace, NULL, !v6w_is_builtin(t));
            cv.meta_written[t->metadata_id] = 1;
        }
        v6w_conv_thread *th = v6w_conv_thread_of(&cv, ev->pid, ev->tid);
        uint64_t thread_index = th ? th->index : 0;
        v6w_conv_thread *cap = v6w_conv_thread_of(&cv, ev->pid, ev->capture_tid);
        if (!th || !cap) {
            w->failed = true;
            break;
        }
        cap->last_sequence = ev->sequence;
        uint32_t label = 0;
        bool has_act = !v6w_is_zero16(ev->activity_id);
        bool has_rel = !v6w_is_zero16(ev->related_activity_id);
        if (has_act || has_rel) {
            if (cv.have_label && memcmp(cv.last_activity, ev->activity_id, 16) == 0 &&
                memcmp(cv.last_related, ev->related_activity_id, 16) == 0) {
                label = cv.last_label;
            } else {
                label = v6w_label(w, has_act ? ev->activity_id : NULL,
                                  has_rel ? ev->related_activity_id : NULL);
                cv.have_label = true;
                cv.last_label = label;
                memcpy(cv.last_activity, ev->activity_id, 16);
                memcpy(cv.last_related, ev->related_activity_id, 16);
            }
        }
        v6w_event e;
        memset(&e, 0, sizeof e);
        e.metadata_id = t->metadata_id;
        e.sorted = true; /* written in timestamp order */
        e.sequence = ev->sequence;
        e.thread_index = thread_index;
        e.capture_index = cap->index;
        e.processor = ev->processor;
        e.timestamp = (uint64_t)ev->timestamp;
        e.label_id = label;
        e.payload = ev->payload;
        e.payload_size = payload_size;
        v6w_event_add(w, &e);
        last_ts = ev->timestamp;
        if (++n % V6W_EVENTS_PER_SEQUENCE_POINT == 0)
            v6w_conv_sequence_point(&cv, last_ts);
    }
    if (!begun) {
        const gcs_trace_info *ti = gcs_reader_info(r);
        gcs_trace_info empty;
        memset(&empty, 0, sizeof empty);
        empty.pointer_size = 8;
        empty.clock_frequency = 1;
        v6w_begin(w, ti ? ti : &empty);
    }
    if (n)
        v6w_conv_sequence_point(&cv, last_ts);
    if (!v6w_end(w))
        w->failed = true;
    free(cv.threads);
    free(cv.meta_written);
    *events = n;
    return st;
}

/* ---- destinations -------------------------------------------------- */

static inline bool v6w_to_file(void *ctx, const void *data, size_t n)
{
    return fwrite(data, 1, n, (FILE *)ctx) == n;
}

static inline bool v6w_to_bytes(void *ctx, const void *data, size_t n)
{
    v6w_bytes *b = ctx;
    v6w_put(b, data, n);
    return !b->failed;
}

#endif
