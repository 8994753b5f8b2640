/*
 * format/nettrace/nettrace_v6.c - the nettrace V6 block stream.
 *
 * After the "Nettrace" magic (consumed by container.c): uint32 Reserved = 0,
 * uint32 Major, uint32 Minor, then blocks of { uint32 (Kind << 24 | Size),
 * Size bytes }. Each step() buffers one whole block, parses it from memory
 * with a cursor, reports through the sink and consumes it; a block that has
 * not fully arrived yet is left untouched (GCS_AGAIN).
 *
 * The reader resolves the V6 indirections itself: thread indexes become OS
 * thread and process ids through the thread table (Thread / RemoveThread
 * blocks, flushed by a sequence point with flag 1), label list ids become
 * activity ids through the label table (LabelList blocks, flushed at every
 * sequence point). Event rows are reported in file order, unsorted.
 * Memory: both tables are capped (GCS_V6_MAX_THREADS, GCS_V6_MAX_LABEL_LISTS)
 * and grow only while a block is parsed; the per-event path allocates
 * nothing.
 */
#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "format/nettrace/nettrace_v6.h"

#define V6_MAJOR_SUPPORTED 6
#define V6_EVENT_HEADER_MIN 20    /* HeaderSize, Flags, MinTimestamp, MaxTimestamp */
#define V6_UNCOMPRESSED_AFTER_SIZE 48 /* uncompressed header bytes after EventSize */
#define V6_THREAD_NAME_MAX 64

/* ---- open-addressing tables keyed by uint64 ----------------------------
 * Each slot starts with a v6_slot head. Linear probing; deletion shifts
 * later members of the probe run back, so there are no tombstones. */

typedef struct v6_slot {
    uint64_t key;
    bool used;
} v6_slot;

typedef struct v6_table {
    uint8_t *slots;
    size_t elem;      /* bytes per slot */
    size_t cap;       /* slots, a power of two (0 before first insert) */
    size_t count;
    size_t max_count; /* live entries allowed */
} v6_table;

static void table_init(v6_table *t, size_t elem, size_t max_count)
{
    memset(t, 0, sizeof *t);
    t->elem = elem;
    t->max_count = max_count;
}

static void table_free(v6_table *t)
{
    free(t->slots);
    t->slots = NULL;
    t->cap = t->count = 0;
}

static inline v6_slot *table_slot(const v6_table *t, size_t i)
{
    return (v6_slot *)(t->slots + i * t->elem);
}

static inline size_t table_home(const v6_table *t, uint64_t key)
{
    return (size_t)((key * UINT64_C(0x9E3779B97F4A7C15)) >> 17) & (t->cap - 1);
}

static void *table_find(const v6_table *t, uint64_t key)
{
    if (t->count == 0)
        return NULL;
    for (size_t i = table_home(t, key);; i = (i + 1) & (t->cap - 1)) {
        v6_slot *s = table_slot(t, i);
        if (!s->used)
            return NULL;
        if (s->key == key)
            return s;
    }
}

static void table_clear(v6_table *t)
{
    for (size_t i = 0; i < t->cap; i++)
        table_slot(t, i)->used = false;
    t->count = 0;
}

static gcs_status table_grow(v6_table *t, gcs_error *err, uint64_t offset)
{
    size_t ncap = t->cap ? t->cap * 2 : 64;
    uint8_t *ns = calloc(ncap, t->elem);
    if (!ns)
        return GCS_FAIL(err, GCS_ERR_NOMEM, offset, "out of memory for a table of %zu rows",
                        ncap);
    v6_table old = *t;
    t->slots = ns;
    t->cap = ncap;
    for (size_t i = 0; i < old.cap; i++) {
        v6_slot *s = table_slot(&old, i);
        if (!s->used)
            continue;
        size_t j = table_home(t, s->key);
        while (table_slot(t, j)->used)
            j = (j + 1) & (t->cap - 1);
        memcpy(table_slot(t, j), s, t->elem);
    }
    free(old.slots);
    return GCS_OK;
}

/* Adds key (which must be absent): *out is its zeroed slot. */
static gcs_status table_insert(v6_table *t, uint64_t key, void **out, const char *what,
                               gcs_error *err, uint64_t offset)
{
    if (t->count >= t->max_count)
        return GCS_FAIL(err, GCS_ERR_LIMIT, offset, "more than %zu live %s", t->max_count,
                        what);
    if ((t->count + 1) * 4 > t->cap * 3) {
        gcs_status st = table_grow(t, err, offset);
        if (st != GCS_OK)
            return st;
    }
    size_t i = table_home(t, key);
    while (table_slot(t, i)->used)
        i = (i + 1) & (t->cap - 1);
    v6_slot *s = table_slot(t, i);
    memset(s, 0, t->elem);
    s->key = key;
    s->used = true;
    t->count++;
    *out = s;
    return GCS_OK;
}

static void table_remove(v6_table *t, void *slot)
{
    size_t i = (size_t)((uint8_t *)slot - t->slots) / t->elem;
    table_slot(t, i)->used = false;
    t->count--;
    /* Shift back later members of the run whose home is not after the hole. */
    size_t hole = i;
    for (size_t j = (i + 1) & (t->cap - 1);; j = (j + 1) & (t->cap - 1)) {
        v6_slot *s = table_slot(t, j);
        if (!s->used)
            return;
        size_t home = table_home(t, s->key);
        bool movable = (hole <= j) ? (home <= hole || home > j) : (home <= hole && home > j);
        if (movable) {
            memcpy(table_slot(t, hole), s, t->elem);
            s->used = false;
            hole = j;
        }
    }
}

/* ---- the container -------------------------------------------------- */

typedef struct v6_thread {
    v6_slot head;      /* key: thread index */
    uint64_t os_tid;   /* UINT64_MAX when the row gives none */
    uint32_t pid;
    char name[V6_THREAD_NAME_MAX];
} v6_thread;

typedef struct v6_labels {
    v6_slot head;      /* key: label list id */
    bool has_activity, has_related;
    uint8_t activity[16];
    uint8_t related[16];
} v6_labels;

/* Event header fields carried from row to row (header compression). */
typedef struct v6_row_state {
    uint32_t metadata_id;
    uint32_t sequence;
    uint64_t capture_index;
    uint32_t processor;
    uint64_t thread_index;
    uint32_t stack_id;
    uint64_t timestamp; /* modulo 2^64 */
    uint32_t label_id;
    uint32_t payload_size;
    bool sorted;
} v6_row_state;

typedef struct v6_reader {
    gcs_container base;
    bool header_read;
    bool trace_seen;
    bool ended;
    uint32_t major, minor;
    gcs_trace_info info;
    v6_table threads;
    v6_table labels;
    gcs_buf seq_entries; /* scratch for sequence point entries */
    gcs_v6_anomalies anomalies;
} v6_reader;

static const char *block_kind_name(unsigned kind)
{
    switch (kind) {
    case GCS_V6_BLOCK_END_OF_STREAM: return "EndOfStream";
    case GCS_V6_BLOCK_TRACE: return "Trace";
    case GCS_V6_BLOCK_EVENT: return "Event";
    case GCS_V6_BLOCK_METADATA: return "Metadata";
    case GCS_V6_BLOCK_SEQUENCE_POINT: return "SequencePoint";
    case GCS_V6_BLOCK_STACK: return "Stack";
    case GCS_V6_BLOCK_THREAD: return "Thread";
    case GCS_V6_BLOCK_REMOVE_THREAD: return "RemoveThread";
    case GCS_V6_BLOCK_LABEL_LIST: return "LabelList";
    default: return "unknown";
    }
}

/* A survivable oddity: counted by the caller, and told to the sink. */
static void report_anomaly(v6_reader *r, uint64_t offset, const char *reason)
{
    if (r->base.sink->anomaly)
        r->base.sink->anomaly(r->base.sink->ctx, offset, reason);
}

/* Stream header after the magic: Reserved, Major, Minor. */
static gcs_status read_stream_header(v6_reader *r, gcs_error *err)
{
    gcs_stream *s = r->base.stream;
    gcs_status st = gcs_stream_need(s, 12, err);
    if (st == GCS_AGAIN || st < 0)
        return st;
    if (st == GCS_END)
        return GCS_FAIL(err, GCS_ERR_TRUNCATED, gcs_stream_offset(s) + gcs_stream_avail(s),
                        "the nettrace V6 header needs 12 bytes (Reserved, Major, "
                        "Minor) after the magic, the input ends after %zu",
                        gcs_stream_avail(s));
    gcs_cursor c = gcs_cur_make(gcs_stream_peek(s), 12, gcs_stream_offset(s));
    uint32_t reserved = 0, major = 0, minor = 0;
    (void)(gcs_cur_u32(&c, &reserved) && gcs_cur_u32(&c, &major) && gcs_cur_u32(&c, &minor));
    if (reserved != 0)
        return GCS_CORRUPT(err, gcs_stream_offset(s),
                           "nettrace V6 header: Reserved is %u, expected 0", reserved);
    if (major < V6_MAJOR_SUPPORTED)
        return GCS_CORRUPT(err, gcs_stream_offset(s) + 4,
                           "nettrace header: major version %u in a block-format header "
                           "(block format starts at 6)",
                           major);
    if (major > V6_MAJOR_SUPPORTED)
        return GCS_FAIL(err, GCS_ERR_UNSUPPORTED, gcs_stream_offset(s) + 4,
                        "nettrace format version %u.%u is newer than this reader (it reads "
                        "major versions up to %d)",
                        major, minor, V6_MAJOR_SUPPORTED);
    r->major = major;
    r->minor = minor; /* minor versions are compatible by definition */
    gcs_stream_consume(s, 12);
    r->header_read = true;
    return GCS_OK;
}

/* Parses a decimal string of at most 20 digits; false if not a number. */
static bool parse_decimal(const uint8_t *s, uint32_t n, uint64_t *out)
{
    if (n == 0 || n > 20)
        return false;
    uint64_t v = 0;
    for (uint32_t i = 0; i < n; i++) {
        if (s[i] < '0' || s[i] > '9')
            return false;
        uint64_t d = (uint64_t)(s[i] - '0');
        if (v > (UINT64_MAX - d) / 10)
            return false;
        v = v * 10 + d;
    }
    *out = v;
    return true;
}

static bool key_is(const uint8_t *k, uint32_t n, const char *name)
{
    return n == strlen(name) && memcmp(k, name, n) == 0;
}

static gcs_status parse_trace_block(v6_reader *r, gcs_cursor *c, gcs_error *err)
{
    if (r->trace_seen)
        return GCS_CORRUPT(err, gcs_cur_offset(c) - 4, "a second Trace block");
    gcs_trace_info *ti = &r->info;
    int16_t t[8];
    int64_t ticks, freq;
    int32_t psize, kv_count;
    uint64_t at = gcs_cur_offset(c);
    bool ok = true;
    for (int i = 0; i < 8 && ok; i++)
        ok = gcs_cur_i16(c, &t[i]);
    ok = ok && gcs_cur_i64(c, &ticks) && gcs_cur_i64(c, &freq) && gcs_cur_i32(c, &psize) &&
         gcs_cur_i32(c, &kv_count);
    if (!ok)
        return GCS_CORRUPT(err, at,
                           "Trace block of %zu bytes is shorter than its 40 fixed bytes",
                           (size_t)(c->end - c->start));
    if (psize != 4 && psize != 8)
        return GCS_CORRUPT(err, at + 32, "Trace block: PointerSize %d (expected 4 or 8)", psize);
    if (freq <= 0)
        return GCS_CORRUPT(err, at + 24, "Trace block: TickFrequency %lld is not positive",
                           (long long)freq);
    /* each pair takes at least two length bytes */
    if (kv_count < 0 || (size_t)kv_count * 2 > gcs_cur_left(c))
        return GCS_CORRUPT(err, at + 36,
                           "Trace block: %d key/value pairs cannot fit in the %zu bytes left",
                           kv_count, gcs_cur_left(c));
    memset(ti, 0, sizeof *ti);
    ti->format = GCS_FORMAT_NETTRACE;
    ti->format_version = r->major;
    ti->format_minor = r->minor;
    ti->pointer_size = (uint32_t)psize;
    ti->clock_frequency = freq;
    ti->start_ticks = ticks;
    ti->start_year = t[0];
    ti->start_month = t[1];
    /* t[2] is DayOfWeek */
    ti->start_day = t[3];
    ti->start_hour = t[4];
    ti->start_minute = t[5];
    ti->start_second = t[6];
    ti->start_millisecond = t[7];
    for (int32_t i = 0; i < kv_count; i++) {
        const uint8_t *k, *v;
        uint32_t kn, vn;
        uint64_t kat = gcs_cur_offset(c);
        if (!gcs_v6_read_string(c, &k, &kn) || !gcs_v6_read_string(c, &v, &vn))
            return GCS_CORRUPT(err, kat, "Trace block: key/value pair %d of %d is truncated",
                               i, kv_count);
        uint64_t num = 0;
        bool is_num = parse_decimal(v, vn, &num);
        if (key_is(k, kn, "HardwareThreadCount") && is_num && num <= UINT32_MAX)
            ti->cpu_count = (uint32_t)num;
        else if (key_is(k, kn, "ProcessId") && is_num && num <= UINT32_MAX)
            ti->pid = (uint32_t)num;
        else if (key_is(k, kn, "ExpectedCPUSamplingRate") && is_num && num <= INT64_MAX)
            ti->expected_cpu_sampling_rate = (int64_t)num;
        /* other keys are descriptive only */
    }
    r->trace_seen = true;
    if (r->base.sink->trace)
        return r->base.sink->trace(r->base.sink->ctx, ti, err);
    return GCS_OK;
}

static gcs_status parse_metadata_block(v6_reader *r, gcs_cursor *c, gcs_error *err)
{
    uint16_t header_size;
    uint64_t at = gcs_cur_offset(c);
    if (!gcs_cur_u16(c, &header_size) || !gcs_cur_skip(c, header_size))
        return GCS_CORRUPT(err, at, "Metadata block: header size missing or beyond the block");
    while (gcs_cur_left(c) > 0) {
        uint16_t size;
        gcs_cursor row;
        at = gcs_cur_offset(c);
        if (!gcs_cur_u16(c, &size) || !gcs_cur_sub(c, size, &row))
            return GCS_CORRUPT(err, at,
                               "metadata row: size missing or beyond the %zu bytes left",
                               gcs_cur_left(c));
        gcs_meta_def def;
        gcs_v6_anomalies before = r->anomalies;
        gcs_status st =
            gcs_v6_parse_metadata_row(&row, r->base.sink->meta_arena, &def, &r->anomalies, err);
        if (st != GCS_OK)
            return st;
        if (r->anomalies.schemas_dropped != before.schemas_dropped)
            report_anomaly(r, at, "metadata row with a field of unknown type: schema dropped");
        if (r->anomalies.optional_metadata_cut != before.optional_metadata_cut)
            report_anomaly(r, at, "metadata row: unknown optional metadata kind, rest ignored");
        if (r->base.sink->metadata) {
            st = r->base.sink->metadata(r->base.sink->ctx, &def, err);
            if (st != GCS_OK)
                return st;
        }
    }
    return GCS_OK;
}

static gcs_status parse_thread_block(v6_reader *r, gcs_cursor *c, gcs_error *err)
{
    while (gcs_cur_left(c) > 0) {
        uint16_t size;
        gcs_cursor row;
        uint64_t at = gcs_cur_offset(c);
        if (!gcs_cur_u16(c, &size) || !gcs_cur_sub(c, size, &row))
            return GCS_CORRUPT(err, at,
                               "thread row: size missing or beyond the %zu bytes left",
                               gcs_cur_left(c));
        uint64_t index;
        if (!gcs_cur_varu64(&row, &index))
            return GCS_CORRUPT(err, at + 2, "thread row: Index is unreadable");
        v6_thread th;
        memset(&th, 0, sizeof th);
        th.os_tid = UINT64_MAX;
        th.pid = r->info.pid;
        while (gcs_cur_left(&row) > 0) {
            uint8_t kind = 0;
            uint64_t kat = gcs_cur_offset(&row);
            const uint8_t *s, *v;
            uint32_t n, vn;
            uint64_t id;
            bool ok = gcs_cur_u8(&row, &kind);
            switch (kind) {
            case 1: /* Name */
                ok = gcs_v6_read_string(&row, &s, &n);
                if (ok) {
                    size_t m = n < V6_THREAD_NAME_MAX - 1 ? n : V6_THREAD_NAME_MAX - 1;
                    memcpy(th.name, s, m);
                    th.name[m] = 0;
                }
                break;
            case 2: /* OSProcessId */
                ok = gcs_cur_varu64(&row, &id);
                if (ok && id > UINT32_MAX)
                    return GCS_CORRUPT(err, kat, "thread %llu: process id %llu exceeds 32 bits",
                                       (unsigned long long)index, (unsigned long long)id);
                th.pid = (uint32_t)id;
                break;
            case 3: /* OSThreadId */
                ok = gcs_cur_varu64(&row, &th.os_tid);
                break;
            case 4: /* KeyValue */
                ok = gcs_v6_read_string(&row, &s, &n) && gcs_v6_read_string(&row, &v, &vn);
                break;
            default:
                return GCS_CORRUPT(err, kat, "thread %llu: unknown thread info kind %u",
                                   (unsigned long long)index, kind);
            }
            if (!ok)
                return GCS_CORRUPT(err, kat, "thread %llu: info of kind %u is truncated",
                                   (unsigned long long)index, kind);
        }
        if (table_find(&r->threads, index))
            return GCS_CORRUPT(err, at, "thread index %llu is declared twice",
                               (unsigned long long)index);
        void *slot;
        gcs_status st = table_insert(&r->threads, index, &slot, "threads", err, at);
        if (st != GCS_OK)
            return st;
        th.head = *(v6_slot *)slot;
        memcpy(slot, &th, sizeof th);
    }
    return GCS_OK;
}

static gcs_status parse_remove_thread_block(v6_reader *r, gcs_cursor *c, gcs_error *err)
{
    while (gcs_cur_left(c) > 0) {
        uint64_t index;
        uint32_t seq;
        uint64_t at = gcs_cur_offset(c);
        if (!gcs_cur_varu64(c, &index) || !gcs_cur_varu32(c, &seq))
            return GCS_CORRUPT(err, at, "RemoveThread entry is truncated or unreadable");
        void *slot = table_find(&r->threads, index);
        if (!slot)
            return GCS_CORRUPT(err, at, "RemoveThread names unknown thread index %llu",
                               (unsigned long long)index);
        const gcs_sink *sink = r->base.sink;
        if (sink->thread_end)
            sink->thread_end(sink->ctx, ((v6_thread *)slot)->os_tid, seq);
        table_remove(&r->threads, slot);
    }
    return GCS_OK;
}

static gcs_status parse_label_list_block(v6_reader *r, gcs_cursor *c, gcs_error *err)
{
    uint32_t first, count;
    uint64_t at = gcs_cur_offset(c);
    if (!gcs_cur_u32(c, &first) || !gcs_cur_u32(c, &count))
        return GCS_CORRUPT(err, at, "LabelList block shorter than its 8-byte header");
    if (first == 0)
        return GCS_CORRUPT(err, at, "LabelList block: firstIndex is 0 (0 means no labels)");
    if (count > gcs_cur_left(c)) /* each list takes at least one byte */
        return GCS_CORRUPT(err, at + 4,
                           "LabelList block: %u lists cannot fit in the %zu bytes left", count,
                           gcs_cur_left(c));
    if (count > UINT32_MAX - first + 1u)
        return GCS_CORRUPT(err, at + 4, "LabelList block: ids %u + %u overflow 32 bits", first,
                           count);
    for (uint32_t i = 0; i < count; i++) {
        uint32_t id = first + i;
        v6_labels lab;
        memset(&lab, 0, sizeof lab);
        uint8_t kind_flag = 0;
        do {
            uint64_t lat = gcs_cur_offset(c);
            const uint8_t *s;
            uint32_t n;
            uint64_t u;
            bool ok = gcs_cur_u8(c, &kind_flag);
            unsigned kind = kind_flag & 0x7f;
            if (ok) {
                switch (kind) {
                case 1: /* ActivityId */
                    ok = gcs_cur_bytes(c, 16, &s);
                    if (ok) {
                        memcpy(lab.activity, s, 16);
                        lab.has_activity = true;
                    }
                    break;
                case 2: /* RelatedActivityId */
                    ok = gcs_cur_bytes(c, 16, &s);
                    if (ok) {
                        memcpy(lab.related, s, 16);
                        lab.has_related = true;
                    }
                    break;
                case 3: ok = gcs_cur_skip(c, 16); break;             /* TraceId */
                case 4: ok = gcs_cur_skip(c, 8); break;              /* SpanId */
                case 5:                                              /* Key, string Value */
                    ok = gcs_v6_read_string(c, &s, &n) && gcs_v6_read_string(c, &s, &n);
                    break;
                case 6: /* Key, varint64 Value */
                    ok = gcs_v6_read_string(c, &s, &n) && gcs_cur_varu64(c, &u);
                    break;
                case 7: ok = gcs_cur_skip(c, 1); break; /* OpCode override */
                case 8: ok = gcs_cur_skip(c, 8); break; /* Keywords override */
                case 9: ok = gcs_cur_skip(c, 1); break; /* Level override */
                case 10: ok = gcs_cur_skip(c, 1); break; /* Version override */
                default:
                    return GCS_CORRUPT(err, lat, "label list %u: unknown label kind %u", id,
                                       kind);
                }
            }
            if (!ok)
                return GCS_CORRUPT(err, lat, "label list %u: label of kind %u is truncated", id,
                                   kind);
        } while (!(kind_flag & 0x80));
        void *slot = table_find(&r->labels, id);
        if (!slot) {
            gcs_status st = table_insert(&r->labels, id, &slot, "label lists", err, at);
            if (st != GCS_OK)
                return st;
        }
        lab.head = *(v6_slot *)slot;
        memcpy(slot, &lab, sizeof lab);
    }
    return GCS_OK;
}

static gcs_status parse_stack_block(v6_reader *r, gcs_cursor *c, gcs_error *err)
{
    uint32_t first, count;
    uint64_t at = gcs_cur_offset(c);
    if (!gcs_cur_u32(c, &first) || !gcs_cur_u32(c, &count))
        return GCS_CORRUPT(err, at, "Stack block shorter than its 8-byte header");
    if (count > gcs_cur_left(c) / 4)
        return GCS_CORRUPT(err, at + 4, "Stack block: %u stacks cannot fit in the %zu bytes left",
                           count, gcs_cur_left(c));
    for (uint32_t i = 0; i < count; i++) {
        uint32_t size;
        const uint8_t *ips;
        uint64_t sat = gcs_cur_offset(c);
        if (!gcs_cur_u32(c, &size) || !gcs_cur_bytes(c, size, &ips))
            return GCS_CORRUPT(err, sat, "stack %u: size missing or beyond the %zu bytes left",
                               first + i, gcs_cur_left(c));
        if (r->base.sink->stack)
            r->base.sink->stack(r->base.sink->ctx, first + i, ips, size);
    }
    return GCS_OK;
}

static gcs_status parse_sequence_point_block(v6_reader *r, gcs_cursor *c, gcs_error *err)
{
    uint64_t ts;
    uint32_t flags, count;
    uint64_t at = gcs_cur_offset(c);
    if (!gcs_cur_u64(c, &ts) || !gcs_cur_u32(c, &flags) || !gcs_cur_u32(c, &count))
        return GCS_CORRUPT(err, at, "SequencePoint block shorter than its 16-byte header");
    if (count > gcs_cur_left(c) / 2) /* each entry takes at least two bytes */
        return GCS_CORRUPT(err, at + 12,
                           "SequencePoint block: %u threads cannot fit in the %zu bytes left",
                           count, gcs_cur_left(c));
    r->seq_entries.len = 0;
    gcs_status st = gcs_buf_reserve(&r->seq_entries, (size_t)count * sizeof(gcs_seq_entry));
    if (st != GCS_OK)
        return GCS_FAIL(err, st, at + 12, "no room for %u sequence point entries", count);
    gcs_seq_entry *entries = (gcs_seq_entry *)(void *)r->seq_entries.data;
    for (uint32_t i = 0; i < count; i++) {
        uint64_t index;
        uint32_t seq;
        uint64_t eat = gcs_cur_offset(c);
        if (!gcs_cur_varu64(c, &index) || !gcs_cur_varu32(c, &seq))
            return GCS_CORRUPT(err, eat, "sequence point entry %u of %u is truncated", i, count);
        const v6_thread *th = table_find(&r->threads, index);
        if (!th)
            return GCS_CORRUPT(err, eat, "sequence point names unknown thread index %llu",
                               (unsigned long long)index);
        entries[i].capture_tid = th->os_tid;
        entries[i].sequence = seq;
    }
    if (r->base.sink->sequence_point) {
        st = r->base.sink->sequence_point(r->base.sink->ctx, (int64_t)ts, count ? entries : NULL,
                                          count, err);
        if (st != GCS_OK)
            return st;
    }
    /* Label lists (and stacks, which are not cached here) live until the
     * next sequence point; threads only if flag 1 says so (after the sequence
     * checks above). Flag 2 (metadata flush) allows the writer to reuse ids:
     * a redefinition simply reaches the sink again. */
    table_clear(&r->labels);
    if (flags & 1u)
        table_clear(&r->threads);
    return GCS_OK;
}

static gcs_status resolve_thread(v6_reader *r, uint64_t index, const char *role, uint64_t at,
                                 const v6_thread **out, gcs_error *err)
{
    const v6_thread *th = table_find(&r->threads, index);
    if (!th)
        return GCS_CORRUPT(err, at, "event row: %s index %llu names no live thread", role,
                           (unsigned long long)index);
    *out = th;
    return GCS_OK;
}

static gcs_status parse_event_block(v6_reader *r, gcs_cursor *c, gcs_error *err)
{
    uint16_t header_size, flags;
    uint64_t min_ts, max_ts;
    uint64_t at = gcs_cur_offset(c);
    if (!gcs_cur_u16(c, &header_size) || !gcs_cur_u16(c, &flags) || !gcs_cur_u64(c, &min_ts) ||
        !gcs_cur_u64(c, &max_ts))
        return GCS_CORRUPT(err, at, "Event block shorter than its 20-byte header");
    if (header_size < V6_EVENT_HEADER_MIN)
        return GCS_CORRUPT(err, at, "Event block: HeaderSize %u is below 20", header_size);
    if (!gcs_cur_skip(c, header_size - V6_EVENT_HEADER_MIN))
        return GCS_CORRUPT(err, at, "Event block: HeaderSize %u is beyond the block",
                           header_size);
    bool compressed = (flags & 1u) != 0;
    v6_row_state h;
    memset(&h, 0, sizeof h);
    /* resolution caches: the tables cannot change inside one block */
    const v6_thread *thread = NULL, *capture = NULL;
    uint64_t thread_key = 0, capture_key = 0;
    const v6_labels *labels = NULL;
    uint32_t labels_key = 0;
    const gcs_sink *sink = r->base.sink;

    while (gcs_cur_left(c) > 0) {
        uint64_t row_at = gcs_cur_offset(c);
        if (compressed) {
            uint8_t f = 0;
            uint64_t delta;
            uint32_t seq_delta;
            bool ok = gcs_cur_u8(c, &f);
            if (ok && (f & 1u))
                ok = gcs_cur_varu32(c, &h.metadata_id);
            if (ok && (f & 2u)) {
                ok = gcs_cur_varu32(c, &seq_delta) && gcs_cur_varu64(c, &h.capture_index) &&
                     gcs_cur_varu32(c, &h.processor);
                h.sequence += seq_delta + 1u; /* modulo 2^32 */
            } else if (ok && h.metadata_id != 0) {
                /* as the runtime writer and TraceEvent: id 0 (metadata in
                 * older versions) does not advance the sequence */
                h.sequence++;
            }
            if (ok && (f & 4u))
                ok = gcs_cur_varu64(c, &h.thread_index);
            if (ok && (f & 8u))
                ok = gcs_cur_varu32(c, &h.stack_id);
            if (ok)
                ok = gcs_cur_varu64(c, &delta);
            if (ok)
                h.timestamp += delta; /* modulo 2^64 */
            if (ok && (f & 16u))
                ok = gcs_cur_varu32(c, &h.label_id);
            h.sorted = (f & 64u) != 0;
            if (ok && (f & 128u))
                ok = gcs_cur_varu32(c, &h.payload_size);
            if (!ok)
                return GCS_CORRUPT(err, row_at,
                                   "compressed event header (flags 0x%02x) is truncated or has "
                                   "an unreadable varuint",
                                   f);
        } else {
            uint32_t event_size, meta;
            bool ok = gcs_cur_u32(c, &event_size) && gcs_cur_u32(c, &meta) &&
                      gcs_cur_u32(c, &h.sequence) && gcs_cur_u64(c, &h.thread_index) &&
                      gcs_cur_u64(c, &h.capture_index) && gcs_cur_u32(c, &h.processor) &&
                      gcs_cur_u32(c, &h.stack_id) && gcs_cur_u64(c, &h.timestamp) &&
                      gcs_cur_u32(c, &h.label_id) && gcs_cur_u32(c, &h.payload_size);
            if (!ok)
                return GCS_CORRUPT(err, row_at,
                                   "uncompressed event header needs 52 bytes, %zu are left",
                                   (size_t)(c->end - c->start) - (size_t)(row_at - c->origin));
            /* The runtime and TraceEvent set the high bit for events that
             * are NOT sorted (the spec's wording suggests the opposite). */
            h.metadata_id = meta & 0x7fffffffu;
            h.sorted = (meta & 0x80000000u) == 0;
            (void)event_size; /* redundant with PayloadSize; TraceEvent ignores it too */
        }
        if (h.payload_size > GCS_MAX_PAYLOAD_SIZE)
            return GCS_FAIL(err, GCS_ERR_LIMIT, row_at,
                            "event payload of %u bytes exceeds the %zu-byte limit",
                            h.payload_size, GCS_MAX_PAYLOAD_SIZE);
        const uint8_t *payload;
        if (!gcs_cur_bytes(c, h.payload_size, &payload))
            return GCS_CORRUPT(err, gcs_cur_offset(c),
                               "event payload of %u bytes is beyond the %zu bytes left in "
                               "the block",
                               h.payload_size, gcs_cur_left(c));
        gcs_status st;
        if (!thread || thread_key != h.thread_index) {
            st = resolve_thread(r, h.thread_index, "thread", row_at, &thread, err);
            if (st != GCS_OK)
                return st;
            thread_key = h.thread_index;
        }
        if (!capture || capture_key != h.capture_index) {
            st = resolve_thread(r, h.capture_index, "capture thread", row_at, &capture, err);
            if (st != GCS_OK)
                return st;
            capture_key = h.capture_index;
        }
        if (h.label_id == 0) {
            labels = NULL;
        } else if (!labels || labels_key != h.label_id) {
            labels = table_find(&r->labels, h.label_id);
            if (!labels)
                return GCS_CORRUPT(err, row_at,
                                   "event row: label list %u is not defined since the last "
                                   "sequence point",
                                   h.label_id);
            labels_key = h.label_id;
        }
        gcs_raw_event ev;
        ev.metadata_id = h.metadata_id;
        ev.is_sorted = h.sorted;
        ev.has_sequence = true;
        ev.pointer_size = 0; /* the trace's */
        ev.sequence = h.sequence;
        ev.pid = thread->pid;
        ev.tid = thread->os_tid;
        ev.capture_tid = capture->os_tid;
        ev.processor = h.processor;
        ev.stack_id = h.stack_id;
        ev.timestamp = (int64_t)h.timestamp;
        ev.activity_id = labels && labels->has_activity ? labels->activity : NULL;
        ev.related_activity_id = labels && labels->has_related ? labels->related : NULL;
        ev.payload = payload;
        ev.payload_size = h.payload_size;
        ev.inline_stack = NULL; /* stacks come in Stack blocks */
        ev.inline_stack_size = 0;
        ev.offset = row_at;
        if (sink->event) {
            st = sink->event(sink->ctx, &ev, err);
            if (st != GCS_OK)
                return st;
        }
    }
    return GCS_OK;
}

static gcs_status v6_step(gcs_container *base, gcs_error *err)
{
    v6_reader *r = (v6_reader *)base;
    gcs_stream *s = base->stream;
    if (!r->header_read)
        return read_stream_header(r, err);
    if (r->ended)
        return GCS_END;
    uint64_t block_at = gcs_stream_offset(s);
    gcs_status st = gcs_stream_need(s, 4, err);
    if (st == GCS_AGAIN || st < 0)
        return st;
    if (st == GCS_END) {
        if (gcs_stream_avail(s) == 0)
            return GCS_FAIL(err, GCS_ERR_TRUNCATED, block_at,
                            "the input ends at offset %llu without an EndOfStream "
                            "block",
                            (unsigned long long)block_at);
        return GCS_FAIL(err, GCS_ERR_TRUNCATED, block_at,
                        "block header at offset %llu needs 4 bytes, the input has "
                        "%zu",
                        (unsigned long long)block_at, gcs_stream_avail(s));
    }
    gcs_cursor hc = gcs_cur_make(gcs_stream_peek(s), 4, block_at);
    uint32_t word = 0;
    (void)gcs_cur_u32(&hc, &word);
    size_t size = word & 0xFFFFFFu;
    unsigned kind = word >> 24;
    if (size > GCS_MAX_BLOCK_SIZE)
        return GCS_FAIL(err, GCS_ERR_LIMIT, block_at, "%s block of %zu bytes exceeds %zu",
                        block_kind_name(kind), size, GCS_MAX_BLOCK_SIZE);
    st = gcs_stream_need(s, 4 + size, err);
    if (st == GCS_AGAIN || st < 0)
        return st;
    if (st == GCS_END)
        return GCS_FAIL(err, GCS_ERR_TRUNCATED, block_at,
                        "%s block (kind %u) at offset %llu declares %zu bytes, the "
                        "input ends after %zu of them",
                        block_kind_name(kind), kind, (unsigned long long)block_at, size,
                        gcs_stream_avail(s) - 4);
    gcs_cursor c = gcs_cur_make(gcs_stream_peek(s) + 4, size, block_at + 4);
    if (!r->trace_seen && kind != GCS_V6_BLOCK_TRACE)
        return GCS_CORRUPT(err, block_at,
                           "%s block (kind %u) before the Trace block, which must come first",
                           block_kind_name(kind), kind);
    switch (kind) {
    case GCS_V6_BLOCK_END_OF_STREAM: st = GCS_OK; break; /* content reserved */
    case GCS_V6_BLOCK_TRACE: st = parse_trace_block(r, &c, err); break;
    case GCS_V6_BLOCK_EVENT: st = parse_event_block(r, &c, err); break;
    case GCS_V6_BLOCK_METADATA: st = parse_metadata_block(r, &c, err); break;
    case GCS_V6_BLOCK_SEQUENCE_POINT: st = parse_sequence_point_block(r, &c, err); break;
    case GCS_V6_BLOCK_STACK: st = parse_stack_block(r, &c, err); break;
    case GCS_V6_BLOCK_THREAD: st = parse_thread_block(r, &c, err); break;
    case GCS_V6_BLOCK_REMOVE_THREAD: st = parse_remove_thread_block(r, &c, err); break;
    case GCS_V6_BLOCK_LABEL_LIST: st = parse_label_list_block(r, &c, err); break;
    default: {
        char why[64];
        snprintf(why, sizeof why, "unknown block kind %u skipped", kind);
        r->anomalies.unknown_blocks++; /* newer minor versions may add kinds */
        report_anomaly(r, block_at, why);
        st = GCS_OK;
        break;
    }
    }
    if (st != GCS_OK)
        return st;
    if (base->sink->block)
        base->sink->block(base->sink->ctx);
    gcs_stream_consume(s, 4 + size);
    if (kind == GCS_V6_BLOCK_END_OF_STREAM) {
        r->ended = true;
        return GCS_END;
    }
    return GCS_OK;
}

static void v6_destroy(gcs_container *base)
{
    v6_reader *r = (v6_reader *)base;
    if (!r)
        return;
    table_free(&r->threads);
    table_free(&r->labels);
    gcs_buf_free(&r->seq_entries);
    free(r);
}

static const gcs_container_ops v6_ops = {"nettrace-v6", v6_step, v6_destroy, false};

const gcs_v6_anomalies *gcs_nettrace_v6_anomalies(const gcs_container *c)
{
    assert(c && c->ops == &v6_ops);
    return &((const v6_reader *)c)->anomalies;
}

gcs_status gcs_nettrace_v6_open(gcs_stream *s, const gcs_sink *sink, gcs_container **out,
                                gcs_error *err)
{
    *out = NULL;
    v6_reader *r = calloc(1, sizeof *r);
    if (!r)
        return GCS_FAIL(err, GCS_ERR_NOMEM, gcs_stream_offset(s), "out of memory");
    r->base.ops = &v6_ops;
    r->base.stream = s;
    r->base.sink = sink;
    table_init(&r->threads, sizeof(v6_thread), GCS_V6_MAX_THREADS);
    table_init(&r->labels, sizeof(v6_labels), GCS_V6_MAX_LABEL_LISTS);
    gcs_buf_init(&r->seq_entries, GCS_MAX_BLOCK_SIZE / 2 * sizeof(gcs_seq_entry));
    gcs_status st = read_stream_header(r, err);
    if (st < 0) {
        v6_destroy(&r->base);
        return st;
    }
    /* GCS_AGAIN: the header is read by the first step() */
    *out = &r->base;
    return GCS_OK;
}
