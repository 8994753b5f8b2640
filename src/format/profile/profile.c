/*
 * format/profile/profile.c - reads the profiler's record stream
 * (docs/format-profile.md) and hands each record to the sink as the
 * runtime event that says the same thing (Microsoft-Windows-DotNETRuntime,
 * the layouts of docs/gc-events.md), so that the decoders, the object
 * analysis and every report above serve profiles unchanged:
 *
 *   ALLOC*     -> GC/AllocationTick V4: AllocationAmount = ObjectSize = the
 *                 object's size (every object is "sampled"), TypeID, the
 *                 type's name, Address, Kind (small/large/pinned)
 *   GC_START   -> GC/Start V2 (Count, Depth = condemned, Reason 1 if induced)
 *   MOVED      -> GC/BulkMovedObjectRanges V0
 *   SURVIVING  -> GC/BulkSurvivingObjectRanges V0
 *   GENERATIONS -> GC/GenerationRange V0, one per range (the heap after
 *                 the GC, before its GC/Stop: the analysis takes it as
 *                 authoritative)
 *   GC_END     -> GC/Stop V1
 *   TYPE       -> kept: the name goes into each AllocationTick of the type
 *   LOST       -> an anomaly (records the profiler dropped), counted
 *   EXIT       -> the end of the stream
 *
 * The records are in time order (the profiler stamps them under its
 * lock), so every event is flagged sorted and a sequence point follows
 * each GC: the sorter holds back nothing.
 */
#include "format/profile/profile.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/cursor.h"
#include "base/error.h"
#include "format/profile/profile_format.h"

/* Metadata ids of the events we make (1-based, one per event type). */
enum {
    MD_GC_START = 1, MD_GC_STOP, MD_ALLOC_TICK, MD_SURVIVING, MD_MOVED, MD_GENERATION_RANGE,
    MD_COUNT = MD_GENERATION_RANGE
};

static const struct {
    uint32_t event_id, version;
    uint64_t keywords;
    uint32_t level;
} event_defs[MD_COUNT + 1] = {
    [MD_GC_START] = {1, 2, 0x1, 4},
    [MD_GC_STOP] = {2, 1, 0x1, 4},
    [MD_ALLOC_TICK] = {10, 4, 0x1, 5},
    [MD_SURVIVING] = {21, 0, 0x400000, 4},
    [MD_MOVED] = {22, 0, 0x400000, 4},
    [MD_GENERATION_RANGE] = {23, 0, 0x400000, 4},
};

#define MAX_TYPES ((size_t)1 << 20)
#define MAX_NAME_BYTES ((size_t)64 << 20) /* all type names, UTF-16 */
#define SEQUENCE_POINT_EVERY 4096u

typedef struct type_name {
    uint64_t class_id;     /* 0: empty slot */
    uint8_t *utf16;        /* UTF-16LE, 0-terminated */
    size_t bytes;          /* with the terminator */
} type_name;

typedef struct profile_reader {
    gcs_container base;
    gcs_trace_info info;
    bool have_header, ended;
    uint32_t gc_depth;     /* condemned generation of the open GC */
    uint32_t range_index;  /* Index field of the open GC's range events */
    type_name *types;
    size_t types_cap, types_n, name_bytes;
    uint8_t *scratch;      /* payload being built */
    size_t scratch_cap;
    uint32_t since_point;  /* events since the last sequence point */
    int64_t last_time;     /* the last record's time: ALLOC times are relative */
    uint64_t base_address, base_class; /* the last ALLOC's */
    uint8_t *gens;         /* GENERATIONS elements still to deliver (25 bytes each) */
    size_t gens_cap, gens_n, gens_next;
    uint64_t gens_at;      /* offset of their record */
} profile_reader;

bool gcs_profile_sniff(const uint8_t *p, size_t n)
{
    return n >= 8 && memcmp(p, GCS_PROFILE_MAGIC, 8) == 0;
}

static void anomaly(profile_reader *r, uint64_t at, const char *reason)
{
    if (r->base.sink->anomaly)
        r->base.sink->anomaly(r->base.sink->ctx, at, reason);
}

static uint8_t *put_u16(uint8_t *p, uint16_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
    return p + 2;
}

static uint8_t *put_u32(uint8_t *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (uint8_t)(v >> (8 * i));
    return p + 4;
}

static uint8_t *put_u64(uint8_t *p, uint64_t v)
{
    for (int i = 0; i < 8; i++)
        p[i] = (uint8_t)(v >> (8 * i));
    return p + 8;
}

static gcs_status need_scratch(profile_reader *r, size_t n, uint64_t at, gcs_error *err)
{
    if (n <= r->scratch_cap)
        return GCS_OK;
    size_t cap = r->scratch_cap ? r->scratch_cap : 4096;
    while (cap < n)
        cap *= 2;
    uint8_t *p = realloc(r->scratch, cap);
    if (!p)
        return GCS_FAIL(err, GCS_ERR_NOMEM, at, "out of memory for a profile event");
    r->scratch = p;
    r->scratch_cap = cap;
    return GCS_OK;
}

/* ------------------------------------------------------------------ */
/* Type names                                                          */

static size_t type_slot(const profile_reader *r, uint64_t class_id)
{
    size_t mask = r->types_cap - 1;
    size_t h = (size_t)((class_id >> 3) * 0x9E3779B97F4A7C15ull) & mask;
    while (r->types[h].class_id && r->types[h].class_id != class_id)
        h = (h + 1) & mask;
    return h;
}

static const type_name *find_type(const profile_reader *r, uint64_t class_id)
{
    if (!r->types_cap || class_id == 0)
        return NULL;
    const type_name *t = &r->types[type_slot(r, class_id)];
    return t->class_id ? t : NULL;
}

/* UTF-8 (from the input: any bytes) to UTF-16LE; a byte that does not
 * start a well-formed sequence becomes U+FFFD. Returns the bytes written
 * (out has room for 2 * n + 2: one unit per input byte at most, and a
 * 4-byte sequence gives two units). */
static size_t utf8_to_utf16(const uint8_t *s, size_t n, uint8_t *out)
{
    size_t o = 0;
    for (size_t i = 0; i < n;) {
        uint32_t c = s[i], need = 0;
        if (c < 0x80)
            need = 0;
        else if ((c & 0xE0) == 0xC0)
            need = 1, c &= 0x1F;
        else if ((c & 0xF0) == 0xE0)
            need = 2, c &= 0x0F;
        else if ((c & 0xF8) == 0xF0)
            need = 3, c &= 0x07;
        else
            need = 99;
        bool ok = need != 99 && need < n - i;
        for (uint32_t k = 1; ok && k <= need; k++) {
            if ((s[i + k] & 0xC0) != 0x80)
                ok = false;
            else
                c = (c << 6) | (s[i + k] & 0x3Fu);
        }
        if (ok && ((need == 1 && c < 0x80) || (need == 2 && c < 0x800) ||
                   (need == 3 && (c < 0x10000 || c > 0x10FFFF)) || (c >= 0xD800 && c < 0xE000)))
            ok = false;
        if (!ok) {
            c = 0xFFFD;
            i++;
        } else {
            i += need + 1;
        }
        if (c >= 0x10000) {
            c -= 0x10000;
            put_u16(out + o, (uint16_t)(0xD800 + (c >> 10)));
            put_u16(out + o + 2, (uint16_t)(0xDC00 + (c & 0x3FF)));
            o += 4;
        } else {
            put_u16(out + o, (uint16_t)c);
            o += 2;
        }
    }
    put_u16(out + o, 0);
    return o + 2;
}

static gcs_status add_type(profile_reader *r, uint64_t class_id, const uint8_t *name, size_t n,
                           uint64_t at, gcs_error *err)
{
    if (class_id == 0) {
        anomaly(r, at, "profile: TYPE record for class id 0 ignored");
        return GCS_OK;
    }
    if ((r->types_n + 1) * 2 > r->types_cap) {
        if (r->types_n >= MAX_TYPES)
            return GCS_FAIL(err, GCS_ERR_LIMIT, at, "profile: more than %zu types", MAX_TYPES);
        size_t cap = r->types_cap ? r->types_cap * 2 : 1024;
        type_name *old = r->types;
        size_t old_cap = r->types_cap;
        r->types = calloc(cap, sizeof *r->types);
        if (!r->types) {
            r->types = old;
            return GCS_FAIL(err, GCS_ERR_NOMEM, at, "out of memory for profile types");
        }
        r->types_cap = cap;
        for (size_t i = 0; i < old_cap; i++)
            if (old[i].class_id)
                r->types[type_slot(r, old[i].class_id)] = old[i];
        free(old);
    }
    size_t cap = 2 * n + 2;
    if (cap > MAX_NAME_BYTES - r->name_bytes)
        return GCS_FAIL(err, GCS_ERR_LIMIT, at, "profile: type names exceed %zu bytes",
                        MAX_NAME_BYTES);
    uint8_t *w = malloc(cap);
    if (!w)
        return GCS_FAIL(err, GCS_ERR_NOMEM, at, "out of memory for profile types");
    size_t bytes = utf8_to_utf16(name, n, w);
    type_name *t = &r->types[type_slot(r, class_id)];
    if (t->class_id) {
        /* Named again (a class id reused after an unload): the new name wins. */
        r->name_bytes -= t->bytes;
        free(t->utf16);
    } else {
        r->types_n++;
    }
    t->class_id = class_id;
    t->utf16 = w;
    t->bytes = bytes;
    r->name_bytes += bytes;
    return GCS_OK;
}

/* ------------------------------------------------------------------ */
/* Events                                                              */

/* One event per step, its payload in r->scratch (or the stream): the
 * sorter keeps payloads by reference until the step ends. */
static gcs_status deliver(profile_reader *r, uint32_t md, int64_t time, const uint8_t *payload,
                          size_t size, uint64_t at, gcs_error *err)
{
    const gcs_sink *sink = r->base.sink;
    gcs_raw_event ev;
    memset(&ev, 0, sizeof ev);
    ev.metadata_id = md;
    ev.is_sorted = true;
    ev.pid = r->info.pid;
    ev.timestamp = time;
    ev.payload = payload;
    ev.payload_size = (uint32_t)size;
    ev.offset = at;
    gcs_status st;
    if (sink->event && (st = sink->event(sink->ctx, &ev, err)) < 0)
        return st;
    if (++r->since_point >= SEQUENCE_POINT_EVERY && sink->sequence_point) {
        r->since_point = 0;
        if ((st = sink->sequence_point(sink->ctx, time, NULL, 0, err)) < 0)
            return st;
    }
    return GCS_OK;
}

/* Times never go back in a well-formed stream; one that does is kept in
 * order (clamped) and reported, so the sorter still releases at once. */
static int64_t record_time(profile_reader *r, uint64_t t, uint64_t at)
{
    int64_t v = t > (uint64_t)INT64_MAX ? INT64_MAX : (int64_t)t;
    if (v < r->last_time) {
        anomaly(r, at, "profile: a record's time goes back: kept at the previous time");
        v = r->last_time;
    }
    r->last_time = v;
    return v;
}

static uint64_t unzigzag(uint64_t v) { return (v >> 1) ^ (0 - (v & 1)); }

/* ALLOC, ALLOC_LARGE, ALLOC_PINNED: the varints after the kind byte. */
static gcs_status on_alloc(profile_reader *r, uint8_t kind, gcs_cursor *c, uint64_t at,
                           gcs_error *err)
{
    uint64_t dt, daddr, dclass, size;
    if (!gcs_cur_varu64(c, &dt) || !gcs_cur_varu64(c, &daddr) || !gcs_cur_varu64(c, &dclass) ||
        !gcs_cur_varu64(c, &size))
        return GCS_CORRUPT(err, at, "profile: ALLOC record cut short or a varint too long");
    uint64_t address = r->base_address + unzigzag(daddr);
    uint64_t class_id = r->base_class + unzigzag(dclass);
    r->base_address = address;
    r->base_class = class_id;
    uint64_t room = (uint64_t)INT64_MAX - (uint64_t)r->last_time;
    if (dt > room) {
        anomaly(r, at, "profile: an ALLOC time past 2^63 ticks: kept at the previous time");
        dt = 0;
    }
    int64_t time = r->last_time + (int64_t)dt;
    r->last_time = time;
    uint32_t heap = kind == GCS_PROFILE_ALLOC_LARGE ? 1 : kind == GCS_PROFILE_ALLOC_PINNED ? 2 : 0;
    const type_name *t = find_type(r, class_id);
    static const uint8_t no_name[2] = {0, 0};
    const uint8_t *name = t ? t->utf16 : no_name;
    size_t name_bytes = t ? t->bytes : 2;
    size_t n = 4 + 4 + 2 + 8 + 8 + name_bytes + 4 + 8 + 8;
    gcs_status st = need_scratch(r, n, at, err);
    if (st != GCS_OK)
        return st;
    uint8_t *p = r->scratch;
    p = put_u32(p, size > UINT32_MAX ? UINT32_MAX : (uint32_t)size); /* AllocationAmount */
    p = put_u32(p, heap);                                              /* AllocationKind */
    p = put_u16(p, 0);                                                 /* ClrInstanceID */
    p = put_u64(p, size);                                              /* AllocationAmount64 */
    p = put_u64(p, class_id);                                          /* TypeID */
    memcpy(p, name, name_bytes);                                       /* TypeName */
    p += name_bytes;
    p = put_u32(p, 0);                                                 /* HeapIndex */
    p = put_u64(p, address);                                           /* Address */
    p = put_u64(p, size);                                              /* ObjectSize */
    return deliver(r, MD_ALLOC_TICK, time, r->scratch, n, at, err);
}

static gcs_status on_gc_start(profile_reader *r, gcs_cursor *c, uint64_t at, gcs_error *err)
{
    uint64_t time;
    uint32_t number;
    uint8_t condemned, induced;
    if (!gcs_cur_u64(c, &time) || !gcs_cur_u32(c, &number) || !gcs_cur_u8(c, &condemned) ||
        !gcs_cur_u8(c, &induced))
        return GCS_CORRUPT(err, at, "profile: GC_START record cut short");
    r->gc_depth = condemned;
    r->range_index = 0;
    enum { SIZE = 4 + 4 + 4 + 4 + 2 + 8 };
    gcs_status st = need_scratch(r, SIZE, at, err);
    if (st != GCS_OK)
        return st;
    uint8_t *payload = r->scratch;
    uint8_t *p = put_u32(payload, number);
    p = put_u32(p, condemned);
    p = put_u32(p, induced ? 1 : 0); /* Reason: 1 = Induced, 0 = AllocSmall (unknown) */
    p = put_u32(p, 0);               /* Type: NonConcurrentGC (blocking) */
    p = put_u16(p, 0);
    put_u64(p, 0);
    return deliver(r, MD_GC_START, record_time(r, time, at), payload, SIZE, at, err);
}

static gcs_status on_gc_end(profile_reader *r, gcs_cursor *c, uint64_t at, gcs_error *err)
{
    uint64_t time;
    uint32_t number;
    if (!gcs_cur_u64(c, &time) || !gcs_cur_u32(c, &number))
        return GCS_CORRUPT(err, at, "profile: GC_END record cut short");
    enum { SIZE = 4 + 4 + 2 };
    gcs_status st = need_scratch(r, SIZE, at, err);
    if (st != GCS_OK)
        return st;
    uint8_t *payload = r->scratch;
    uint8_t *p = put_u32(payload, number);
    p = put_u32(p, r->gc_depth);
    put_u16(p, 0);
    int64_t t = record_time(r, time, at);
    st = deliver(r, MD_GC_STOP, t, payload, SIZE, at, err);
    const gcs_sink *sink = r->base.sink;
    if (st == GCS_OK && sink->sequence_point) {
        r->since_point = 0;
        st = sink->sequence_point(sink->ctx, t, NULL, 0, err);
    }
    return st;
}

/* MOVED / SURVIVING: the elements are copied as they are (pointers of 8
 * bytes; the header's pointer size says so). */
static gcs_status on_ranges(profile_reader *r, bool moved, gcs_cursor *c, uint64_t at,
                            gcs_error *err)
{
    uint32_t count;
    if (!gcs_cur_u32(c, &count))
        return GCS_CORRUPT(err, at, "profile: range record cut short");
    size_t per = moved ? 24 : 16;
    const uint8_t *elems;
    if (count > GCS_PROFILE_MAX_RANGES || !gcs_cur_bytes(c, (size_t)count * per, &elems))
        return GCS_CORRUPT(err, at, "profile: range record of %u ranges is invalid", count);
    size_t n = 4 + 4 + 2 + (size_t)count * per;
    gcs_status st = need_scratch(r, n, at, err);
    if (st != GCS_OK)
        return st;
    uint8_t *p = put_u32(r->scratch, r->range_index++);
    p = put_u32(p, count);
    p = put_u16(p, 0);
    memcpy(p, elems, (size_t)count * per);
    return deliver(r, moved ? MD_MOVED : MD_SURVIVING, r->last_time, r->scratch, n, at, err);
}

/* GENERATIONS: the elements are kept and delivered one event per step
 * (the sorter holds a payload only until the step ends). */
static gcs_status on_generations(profile_reader *r, gcs_cursor *c, uint64_t at, gcs_error *err)
{
    uint32_t count;
    const uint8_t *elems;
    if (!gcs_cur_u32(c, &count) || count > GCS_PROFILE_MAX_RANGES ||
        !gcs_cur_bytes(c, (size_t)count * 25, &elems))
        return GCS_CORRUPT(err, at, "profile: GENERATIONS record is invalid");
    size_t bytes = (size_t)count * 25;
    if (bytes > r->gens_cap) {
        uint8_t *g = realloc(r->gens, bytes);
        if (!g)
            return GCS_FAIL(err, GCS_ERR_NOMEM, at, "out of memory for generation ranges");
        r->gens = g;
        r->gens_cap = bytes;
    }
    if (bytes) /* an empty record: no array yet, and memcpy wants one */
        memcpy(r->gens, elems, bytes);
    r->gens_n = count;
    r->gens_next = 0;
    r->gens_at = at;
    return GCS_OK;
}

static gcs_status next_generation_event(profile_reader *r, gcs_error *err)
{
    const uint8_t *e = r->gens + r->gens_next * 25;
    r->gens_next++;
    enum { SIZE = 1 + 8 + 8 + 8 + 2 };
    gcs_status st = need_scratch(r, SIZE, r->gens_at, err);
    if (st != GCS_OK)
        return st;
    memcpy(r->scratch, e, 25); /* Generation, RangeStart, RangeUsedLength, RangeReservedLength */
    put_u16(r->scratch + 25, 0);
    return deliver(r, MD_GENERATION_RANGE, r->last_time, r->scratch, SIZE, r->gens_at, err);
}

/* ------------------------------------------------------------------ */
/* Header and records                                                  */

static gcs_status read_header(profile_reader *r, gcs_error *err)
{
    gcs_stream *s = r->base.stream;
    gcs_status st = gcs_stream_need(s, GCS_PROFILE_HEADER_SIZE, err);
    if (st == GCS_AGAIN || st < 0)
        return st;
    if (st == GCS_END)
        return GCS_FAIL(err, GCS_ERR_TRUNCATED, 0, "truncated: the profile header is cut short");
    gcs_cursor c = gcs_cur_make(gcs_stream_peek(s), GCS_PROFILE_HEADER_SIZE, 0);
    uint32_t version, header_size, pid, pointer_size;
    uint64_t freq, start, unix_ms;
    (void)gcs_cur_skip(&c, 8);
    (void)(gcs_cur_u32(&c, &version) && gcs_cur_u32(&c, &header_size) &&
           gcs_cur_u32(&c, &pid) && gcs_cur_u32(&c, &pointer_size) && gcs_cur_u64(&c, &freq) &&
           gcs_cur_u64(&c, &start) && gcs_cur_u64(&c, &unix_ms));
    if (version != GCS_PROFILE_VERSION)
        return GCS_FAIL(err, GCS_ERR_UNSUPPORTED, 8,
                        "gcscope profile version %u (this build reads version %u)", version,
                        GCS_PROFILE_VERSION);
    if (header_size != GCS_PROFILE_HEADER_SIZE)
        return GCS_CORRUPT(err, 12, "profile header size %u (expected %u)", header_size,
                           GCS_PROFILE_HEADER_SIZE);
    if (pointer_size != 8)
        return GCS_FAIL(err, GCS_ERR_UNSUPPORTED, 20,
                        "profile of a %u-byte-pointer process: only 64-bit profiles are read",
                        pointer_size);
    if (freq == 0 || freq > INT64_MAX || start > INT64_MAX)
        return GCS_CORRUPT(err, 24, "profile clock: frequency %llu, start %llu",
                           (unsigned long long)freq, (unsigned long long)start);
    gcs_stream_consume(s, GCS_PROFILE_HEADER_SIZE);
    memset(&r->info, 0, sizeof r->info);
    r->info.format = GCS_FORMAT_PROFILE;
    r->info.format_version = version;
    r->info.pointer_size = pointer_size;
    r->info.pid = pid;
    r->info.clock_frequency = (int64_t)freq;
    r->info.start_ticks = (int64_t)start;
    r->last_time = (int64_t)start;
    time_t secs = (time_t)(unix_ms / 1000u);
    struct tm tm;
    if (unix_ms / 1000u <= (uint64_t)INT32_MAX * 64 && gmtime_r(&secs, &tm)) {
        r->info.start_year = tm.tm_year + 1900;
        r->info.start_month = tm.tm_mon + 1;
        r->info.start_day = tm.tm_mday;
        r->info.start_hour = tm.tm_hour;
        r->info.start_minute = tm.tm_min;
        r->info.start_second = tm.tm_sec;
        r->info.start_millisecond = (int)(unix_ms % 1000u);
    }
    r->have_header = true;
    const gcs_sink *sink = r->base.sink;
    if (sink->trace && (st = sink->trace(sink->ctx, &r->info, err)) < 0)
        return st;
    for (uint32_t md = 1; md <= MD_COUNT; md++) {
        gcs_meta_def def;
        memset(&def, 0, sizeof def);
        def.metadata_id = md;
        def.provider = "Microsoft-Windows-DotNETRuntime";
        def.event_name = "";
        def.event_id = event_defs[md].event_id;
        def.version = event_defs[md].version;
        def.keywords = event_defs[md].keywords;
        def.level = event_defs[md].level;
        if (sink->metadata && (st = sink->metadata(sink->ctx, &def, err)) < 0)
            return st;
    }
    return GCS_OK;
}

/* Bytes of the record starting at p (n bytes available, n >= 1), or 0
 * when more bytes are needed to tell (*need says how many). */
static size_t record_size(const uint8_t *p, size_t n, size_t *need, bool *unknown)
{
    *unknown = false;
    switch (p[0]) {
    case GCS_PROFILE_TYPE:
        if (n < 11) {
            *need = 11;
            return 0;
        }
        return 11 + ((size_t)p[9] | ((size_t)p[10] << 8));
    case GCS_PROFILE_GC_START: return 15;
    case GCS_PROFILE_GC_END: return 13;
    case GCS_PROFILE_LOST:
    case GCS_PROFILE_EXIT: return 25;
    case GCS_PROFILE_MOVED:
    case GCS_PROFILE_SURVIVING:
    case GCS_PROFILE_GENERATIONS: {
        if (n < 5) {
            *need = 5;
            return 0;
        }
        uint32_t count = (uint32_t)p[1] | ((uint32_t)p[2] << 8) | ((uint32_t)p[3] << 16) |
                         ((uint32_t)p[4] << 24);
        if (count > GCS_PROFILE_MAX_RANGES) {
            *unknown = true;
            return 0;
        }
        return 5 + (size_t)count * (p[0] == GCS_PROFILE_MOVED       ? 24
                                    : p[0] == GCS_PROFILE_SURVIVING ? 16
                                                                    : 25);
    }
    default:
        *unknown = true;
        return 0;
    }
}

static gcs_status profile_step(gcs_container *base, gcs_error *err)
{
    profile_reader *r = (profile_reader *)base;
    if (r->ended)
        return GCS_END;
    if (!r->have_header)
        return read_header(r, err);
    if (r->gens_next < r->gens_n)
        return next_generation_event(r, err);
    gcs_stream *s = base->stream;
    uint64_t at = gcs_stream_offset(s);
    gcs_status st = gcs_stream_need(s, 1, err);
    if (st == GCS_END)
        return GCS_FAIL(err, GCS_ERR_TRUNCATED, at,
                        "truncated: the profile ends at offset %llu without its EXIT record (the "
                        "process was killed, or is still running)",
                        (unsigned long long)at);
    if (st != GCS_OK)
        return st;
    uint8_t first = gcs_stream_peek(s)[0];
    if (first == GCS_PROFILE_ALLOC || first == GCS_PROFILE_ALLOC_LARGE ||
        first == GCS_PROFILE_ALLOC_PINNED) {
        /* Varints: the longest record, or what the stream still has. */
        st = gcs_stream_need(s, GCS_PROFILE_ALLOC_MAX, err);
        if (st == GCS_AGAIN || st < 0)
            return st;
        size_t avail = gcs_stream_avail(s);
        gcs_cursor c = gcs_cur_make(gcs_stream_peek(s) + 1,
                                    avail < GCS_PROFILE_ALLOC_MAX ? avail - 1
                                                                  : GCS_PROFILE_ALLOC_MAX - 1,
                                    at + 1);
        st = on_alloc(r, first, &c, at, err);
        if (st == GCS_ERR_CORRUPT && avail < GCS_PROFILE_ALLOC_MAX)
            return GCS_FAIL(err, GCS_ERR_TRUNCATED, at,
                            "truncated: the profile's last record (ALLOC) is cut short");
        if (st < 0)
            return st;
        gcs_stream_consume(s, (size_t)(gcs_cur_offset(&c) - at));
        return GCS_OK;
    }
    size_t need = 0, size = 0;
    bool unknown = false;
    for (;;) {
        size = record_size(gcs_stream_peek(s), gcs_stream_avail(s), &need, &unknown);
        if (unknown)
            return GCS_CORRUPT(err, at, "profile: record kind %u (or its count) is invalid",
                               gcs_stream_peek(s)[0]);
        if (size == 0 || gcs_stream_avail(s) < size) {
            size_t want = size ? size : need;
            st = gcs_stream_need(s, want, err);
            if (st == GCS_END)
                return GCS_FAIL(err, GCS_ERR_TRUNCATED, at,
                                "truncated: the profile's last record (kind %u) is cut short",
                                gcs_stream_peek(s)[0]);
            if (st != GCS_OK)
                return st;
            if (size)
                break;
            continue;
        }
        break;
    }
    gcs_cursor c = gcs_cur_make(gcs_stream_peek(s), size, at);
    uint8_t kind = 0;
    (void)gcs_cur_u8(&c, &kind);
    switch (kind) {
    case GCS_PROFILE_TYPE: {
        uint64_t class_id = 0;
        uint16_t len = 0;
        const uint8_t *name = NULL;
        (void)(gcs_cur_u64(&c, &class_id) && gcs_cur_u16(&c, &len) &&
               gcs_cur_bytes(&c, len, &name));
        st = add_type(r, class_id, name, len, at, err);
        break;
    }
    case GCS_PROFILE_GC_START: st = on_gc_start(r, &c, at, err); break;
    case GCS_PROFILE_GC_END: st = on_gc_end(r, &c, at, err); break;
    case GCS_PROFILE_MOVED: st = on_ranges(r, true, &c, at, err); break;
    case GCS_PROFILE_SURVIVING: st = on_ranges(r, false, &c, at, err); break;
    case GCS_PROFILE_GENERATIONS: st = on_generations(r, &c, at, err); break;
    case GCS_PROFILE_LOST: {
        uint64_t time = 0, records = 0, bytes = 0;
        (void)(gcs_cur_u64(&c, &time) && gcs_cur_u64(&c, &records) && gcs_cur_u64(&c, &bytes));
        char why[160];
        snprintf(why, sizeof why,
                 "profile: the profiler dropped %llu records (%llu bytes): its buffers were full",
                 (unsigned long long)records, (unsigned long long)bytes);
        anomaly(r, at, why);
        st = GCS_OK;
        break;
    }
    case GCS_PROFILE_EXIT: {
        gcs_stream_consume(s, size);
        r->ended = true;
        const gcs_sink *sink = r->base.sink;
        if (sink->sequence_point && (st = sink->sequence_point(sink->ctx, r->last_time, NULL, 0,
                                                                err)) < 0)
            return st;
        return GCS_END;
    }
    }
    if (st < 0)
        return st;
    gcs_stream_consume(s, size);
    return GCS_OK;
}

static void profile_destroy(gcs_container *base)
{
    profile_reader *r = (profile_reader *)base;
    for (size_t i = 0; i < r->types_cap; i++)
        free(r->types[i].utf16);
    free(r->types);
    free(r->scratch);
    free(r->gens);
    free(r);
}

static const gcs_container_ops profile_ops = {"profile", profile_step, profile_destroy, false};

gcs_status gcs_profile_open(gcs_stream *s, const gcs_sink *sink, gcs_container **out,
                            gcs_error *err)
{
    profile_reader *r = calloc(1, sizeof *r);
    if (!r)
        return GCS_FAIL(err, GCS_ERR_NOMEM, 0, "out of memory");
    r->base.ops = &profile_ops;
    r->base.stream = s;
    r->base.sink = sink;
    *out = &r->base;
    return GCS_OK;
}
