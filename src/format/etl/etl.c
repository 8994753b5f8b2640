/*
 * format/etl/etl.c - Windows ETW log files (.etl), read on any OS.
 *
 * Layout (docs/format-etl.md has every offset and how it was confirmed):
 * the file is a run of buffers, each a 72-byte WMI buffer header then
 * records, 8-byte aligned, up to the header's filled offset. A buffer with
 * the compressed flag stores its records LZ77-"XPRESS"-compressed (its
 * in-file size is then the compressed size). Each record starts with a
 * 4-byte marker whose third byte is the header type: system/compact/
 * perfinfo headers (kernel logger), full/instance trace headers (classic
 * providers), EVENT_HEADER (manifest and TraceLogging providers). The
 * first record of the first buffer is the logfile header event
 * (EventTrace): clock frequency, pointer size, start time.
 *
 * ETW has no metadata rows: each distinct (provider, event id, version)
 * becomes a metadata row of ours with the provider's name, so the
 * runtime's events decode through the built-in manifest table.
 *
 * Order: buffers are per processor and flushed when full, so events of
 * different buffers interleave in time; a processor's own buffers follow
 * each other in time. The file has no sequence points. Once every
 * processor the header counts has written a data buffer, an event no later
 * than the latest time stamp of every other processor is flagged is_sorted:
 * nothing earlier can come any more, and the sorter releases what precedes
 * it (a streaming merge; memory is the events of about one buffer per
 * processor). A processor that has written nothing after ORDER_WAIT_BYTES
 * of data buffers is taken as idle (a late one is counted as an anomaly);
 * until then events wait for the end or for the sorter's window (64 MB of
 * payloads; a full window is counted as a sort overflow).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/cursor.h"
#include "base/error.h"
#include "format/container.h"
#include "format/etl/etl.h"
#include "format/etl/etl_kernel.h"
#include "format/etl/tdh.h"
#include "format/etl/tracelogging.h"
#include "format/etl/xpress.h"
#include "format/eventpipe_metadata.h"

#define BUFFER_HEADER_SIZE 72u
#define MIN_BUFFER_SIZE BUFFER_HEADER_SIZE
#define BUFFER_FLAG_COMPRESSED 0x40u

/* Header types (third byte of a record). */
enum {
    HT_SYSTEM32 = 0x01,
    HT_SYSTEM64 = 0x02,
    HT_COMPACT32 = 0x03,
    HT_COMPACT64 = 0x04,
    HT_FULL32 = 0x0a,
    HT_INSTANCE32 = 0x0b,
    HT_PERFINFO32 = 0x10,
    HT_PERFINFO64 = 0x11,
    HT_EVENT32 = 0x12,
    HT_EVENT64 = 0x13,
    HT_FULL64 = 0x14,
    HT_INSTANCE64 = 0x15
};

#define SYSTEM_HEADER_SIZE 32u
#define COMPACT_HEADER_SIZE 24u
#define PERFINFO_HEADER_SIZE 16u
#define EVENT_HEADER_SIZE 80u
#define FULL_HEADER_SIZE 48u
#define INSTANCE_HEADER_SIZE 72u
#define EXT_ITEM_HEADER_SIZE 8u
#define EVENT_FLAG_EXTENDED_INFO 0x0001u
#define EXT_TYPE_RELATED_ACTIVITYID 1u
#define EXT_TYPE_TL_SCHEMA 11u
#define EXT_TYPE_PROV_TRAITS 12u

/* Where our metadata rows come from. */
enum { KIND_EVENT = 1, KIND_KERNEL = 2, KIND_CLASSIC = 3 };

typedef struct type_key {
    uint8_t guid[16];
    uint32_t event_id;
    uint32_t version;
    uint32_t kind;
    uint64_t schema_hash; /* TraceLogging: of the schema and traits (events share id 0) */
} type_key;

/* The key of an event type: all bytes set (it is hashed and compared
 * whole), guid NULL for kernel groups that have none. */
static type_key type_key_of(const uint8_t *guid, uint32_t event_id, uint32_t version,
                            uint32_t kind)
{
    type_key key;
    memset(&key, 0, sizeof key);
    if (guid)
        memcpy(key.guid, guid, 16);
    key.event_id = event_id;
    key.version = version;
    key.kind = kind;
    return key;
}

typedef struct type_slot {
    type_key key;
    uint32_t metadata_id; /* 0: empty */
} type_slot;

#define MAX_TYPES ((size_t)1 << 20)

/* The metadata ids of EVENT_HEADER types without a TraceLogging schema, by
 * (provider GUID, event id, version) as the record holds them: a counted
 * record is recognized from its header words without making and hashing a
 * type_key. Direct-mapped; a miss goes the general way. */
#define EVENT_CACHE_SIZE 64u
typedef struct event_cache_entry {
    uint64_t guid_lo, guid_hi;
    uint32_t id_version; /* event id | version << 16 */
    uint32_t metadata_id; /* 0: empty */
} event_cache_entry;

static inline size_t event_cache_slot(uint64_t guid_lo, uint32_t id_version)
{
    return (size_t)(((guid_lo >> 32) ^ guid_lo ^ id_version) * 0x9E3779B97F4A7C15ull >> 58) &
           (EVENT_CACHE_SIZE - 1);
}

/* Data buffers read before a processor that has written none is taken as
 * idle (the bound on the streaming merge's wait, docs/format-etl.md). */
#define ORDER_WAIT_BYTES ((uint64_t)16 << 20)

typedef struct etl_reader {
    gcs_container base;
    bool have_info;
    gcs_trace_info info;
    type_slot *slots;
    size_t slots_cap, types_n;
    uint8_t *scratch; /* decompressed records of one buffer */
    size_t scratch_cap;
    uint64_t buffers;
    event_cache_entry event_cache[EVENT_CACHE_SIZE];
    /* Streaming order (see "Order" above): per processor, the latest time
     * stamp of its data buffers read so far; once every processor the
     * header counts has written one, an event no later than every other
     * processor's latest is flagged is_sorted (a release watermark). */
    int64_t cpu_last[256];
    bool cpu_seen[256];
    uint32_t cpus_seen;
    int64_t others_last;  /* this buffer: min of the other processors' latest */
    bool others_known;    /* every other processor has written a data buffer */
    int64_t buffer_last;  /* this buffer: latest time stamp read */
    int64_t buffer_first; /* and earliest */
    uint64_t data_bytes;  /* data buffers read (bytes in the file) */
    bool flagged;         /* an event was flagged is_sorted */
    int64_t flagged_last; /* the latest flagged */
    bool flagged_before;  /* the same before this buffer */
    int64_t flagged_last_before;
    gcs_etl_threads threads; /* thread -> process, from Thread events */
    /* Event descriptions from MetaData/EventInfo records, and an index by
     * provider, id and version (open addressing: slot = entry + 1; at
     * most half full), asked when a metadata row is made. */
    gcs_tdh_event *tdh;
    size_t tdh_n, tdh_cap;
    uint16_t tdh_index[8192];
} etl_reader;


static void anomaly(etl_reader *r, uint64_t offset, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
#include <stdarg.h>
static void anomaly(etl_reader *r, uint64_t offset, const char *fmt, ...)
{
    const gcs_sink *sink = r->base.sink;
    if (!sink->anomaly)
        return;
    char text[160];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    sink->anomaly(sink->ctx, offset, text);
}

#define MAX_TDH_EVENTS 4096u /* half of tdh_index */

static size_t tdh_slot(const etl_reader *r, const uint8_t *guid, uint16_t id, uint8_t version)
{
    const size_t mask = sizeof r->tdh_index / sizeof r->tdh_index[0] - 1;
    uint32_t h = 2166136261u;
    for (int i = 0; i < 16; i++)
        h = (h ^ guid[i]) * 16777619u;
    h = (h ^ id) * 16777619u;
    h = (h ^ version) * 16777619u;
    size_t slot = h & mask;
    while (r->tdh_index[slot]) {
        const gcs_tdh_event *e = &r->tdh[r->tdh_index[slot] - 1];
        if (e->event_id == id && e->version == version && memcmp(e->provider_guid, guid, 16) == 0)
            break;
        slot = (slot + 1) & mask;
    }
    return slot;
}

/* Keeps a MetaData/EventInfo record's description (counted as an anomaly
 * when it cannot be read). */
static void note_event_info(etl_reader *r, const uint8_t *p, size_t n, uint64_t at)
{
    gcs_tdh_event ev;
    const char *why = NULL;
    if (!gcs_tdh_parse(p, n, r->base.sink->meta_arena, &ev, &why)) {
        anomaly(r, at, "ETL MetaData/EventInfo not read (%s)", why);
        return;
    }
    size_t slot = tdh_slot(r, ev.provider_guid, ev.event_id, ev.version);
    if (r->tdh_index[slot]) {
        r->tdh[r->tdh_index[slot] - 1] = ev; /* described again: the latest wins */
        return;
    }
    if (r->tdh_n == r->tdh_cap) {
        if (r->tdh_cap >= MAX_TDH_EVENTS)
            return;
        size_t cap = r->tdh_cap ? r->tdh_cap * 2 : 16;
        gcs_tdh_event *v = realloc(r->tdh, cap * sizeof *v);
        if (!v)
            return;
        r->tdh = v;
        r->tdh_cap = cap;
    }
    r->tdh[r->tdh_n++] = ev;
    r->tdh_index[slot] = (uint16_t)r->tdh_n;
}

static const gcs_tdh_event *find_event_info(const etl_reader *r, const uint8_t *guid, uint16_t id,
                                            uint8_t version)
{
    size_t slot = tdh_slot(r, guid, id, version);
    return r->tdh_index[slot] ? &r->tdh[r->tdh_index[slot] - 1] : NULL;
}

/* ------------------------------------------------------------------ */
/* Trace info from the logfile header event                            */

/* UTC calendar fields of a FILETIME (100 ns since 1601-01-01). */
static void filetime_to_utc(uint64_t ft, gcs_trace_info *ti)
{
    uint64_t ms_total = ft / 10000u;
    uint64_t days = ms_total / 86400000u;
    uint64_t ms_of_day = ms_total % 86400000u;
    /* Days since 1601-01-01 to days since 0000-03-01 (proleptic
     * Gregorian), then the civil date by 400-year eras. */
    int64_t z = (int64_t)days + 584694; /* 1601-01-01 is day 584694 after 0000-03-01 */
    int64_t era = z / 146097;
    int64_t doe = z - era * 146097;
    int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    int64_t mp = (5 * doy + 2) / 153;
    int64_t day = doy - (153 * mp + 2) / 5 + 1;
    int64_t month = mp < 10 ? mp + 3 : mp - 9;
    int64_t year = yoe + era * 400 + (month <= 2);
    ti->start_year = (int)year;
    ti->start_month = (int)month;
    ti->start_day = (int)day;
    ti->start_hour = (int)(ms_of_day / 3600000u);
    ti->start_minute = (int)(ms_of_day / 60000u % 60u);
    ti->start_second = (int)(ms_of_day / 1000u % 60u);
    ti->start_millisecond = (int)(ms_of_day % 1000u);
}

static gcs_status report_info(etl_reader *r, gcs_error *err)
{
    r->have_info = true;
    const gcs_sink *sink = r->base.sink;
    if (sink->trace)
        return sink->trace(sink->ctx, &r->info, err);
    return GCS_OK;
}

/* Reads the TRACE_LOGFILE_HEADER payload of the EventTrace header event. */
static gcs_status read_logfile_header(etl_reader *r, gcs_cursor *payload, int64_t timestamp,
                                      gcs_error *err)
{
    uint64_t at = gcs_cur_offset(payload);
    uint32_t buffer_size, version, provider_version, cpus, timer_res, max_size, mode, written;
    uint32_t start_buffers, pointer_size, events_lost, cpu_mhz;
    uint64_t end_time;
    if (!gcs_cur_u32(payload, &buffer_size) || !gcs_cur_u32(payload, &version) ||
        !gcs_cur_u32(payload, &provider_version) || !gcs_cur_u32(payload, &cpus) ||
        !gcs_cur_u64(payload, &end_time) || !gcs_cur_u32(payload, &timer_res) ||
        !gcs_cur_u32(payload, &max_size) || !gcs_cur_u32(payload, &mode) ||
        !gcs_cur_u32(payload, &written) || !gcs_cur_u32(payload, &start_buffers) ||
        !gcs_cur_u32(payload, &pointer_size) || !gcs_cur_u32(payload, &events_lost) ||
        !gcs_cur_u32(payload, &cpu_mhz))
        return GCS_CORRUPT(err, at, "ETL logfile header cut short");
    if (pointer_size != 4 && pointer_size != 8)
        return GCS_CORRUPT(err, at + 0x2c, "ETL logfile header: pointer size %u", pointer_size);
    /* Two pointers (logger and file name), the 172-byte time zone, then
     * padding to 8: the fields after it move with the pointer size. */
    size_t skip = 2 * (size_t)pointer_size + 172;
    skip += (size_t)((8 - ((0x38 + skip) & 7)) & 7);
    uint64_t boot_time, perf_freq, start_time;
    uint32_t reserved_flags, buffers_lost;
    if (!gcs_cur_skip(payload, skip) || !gcs_cur_u64(payload, &boot_time) ||
        !gcs_cur_u64(payload, &perf_freq) || !gcs_cur_u64(payload, &start_time) ||
        !gcs_cur_u32(payload, &reserved_flags) || !gcs_cur_u32(payload, &buffers_lost))
        return GCS_CORRUPT(err, at, "ETL logfile header cut short (pointer size %u)", pointer_size);
    if (perf_freq == 0 || perf_freq > INT64_MAX)
        return GCS_CORRUPT(err, at, "ETL logfile header: clock frequency %llu",
                           (unsigned long long)perf_freq);
    memset(&r->info, 0, sizeof r->info);
    r->info.format = GCS_FORMAT_ETL;
    /* As written (TraceEvent's Version): 0x0501000a from the kernel
     * logger, 0x00020206 / 0x0002000a in relogged files; its parts'
     * meaning is not established. */
    r->info.format_version = version;
    r->info.pointer_size = pointer_size;
    r->info.cpu_count = cpus;
    r->info.clock_frequency = (int64_t)perf_freq;
    /* TraceEvent's MSec origin for ETL: the timestamp of this event. */
    r->info.start_ticks = timestamp;
    filetime_to_utc(start_time, &r->info);
    if (events_lost)
        anomaly(r, at + 0x30, "ETL logfile header: %u events lost", events_lost);
    if (buffers_lost)
        anomaly(r, at, "ETL logfile header: %u buffers lost", buffers_lost);
    return report_info(r, err);
}

/* A trace without its header event: the clock is unknown (MSec 0). */
static gcs_status default_info(etl_reader *r, int64_t timestamp, uint64_t at, gcs_error *err)
{
    anomaly(r, at, "ETL: no logfile header event before the first event");
    memset(&r->info, 0, sizeof r->info);
    r->info.format = GCS_FORMAT_ETL;
    r->info.pointer_size = 8;
    r->info.start_ticks = timestamp;
    return report_info(r, err);
}

/* ------------------------------------------------------------------ */
/* Metadata rows                                                       */

/* Keys are zeroed before they are filled (padding included): hashed as
 * 64-bit words, once per event. */
static uint64_t key_hash(const type_key *k)
{
    uint64_t h = 0x9E3779B97F4A7C15ull;
    const uint8_t *b = (const uint8_t *)k;
    for (size_t i = 0; i + 8 <= sizeof *k; i += 8) {
        uint64_t w;
        memcpy(&w, b + i, 8);
        h = (h ^ w) * 0xff51afd7ed558ccdull;
        h ^= h >> 32;
    }
    return h;
}

static gcs_status grow_slots(etl_reader *r, gcs_error *err)
{
    size_t cap = r->slots_cap ? r->slots_cap * 2 : 256;
    type_slot *slots = calloc(cap, sizeof *slots);
    if (!slots)
        return GCS_FAIL(err, GCS_ERR_NOMEM, 0, "out of memory");
    for (size_t i = 0; i < r->slots_cap; i++) {
        if (!r->slots[i].metadata_id)
            continue;
        size_t h = (size_t)key_hash(&r->slots[i].key) & (cap - 1);
        while (slots[h].metadata_id)
            h = (h + 1) & (cap - 1);
        slots[h] = r->slots[i];
    }
    free(r->slots);
    r->slots = slots;
    r->slots_cap = cap;
    return GCS_OK;
}

typedef struct type_desc {
    const char *provider; /* NULL: named from key.guid */
    const char *name;     /* NULL: none; copied when a row is made */
    uint32_t level, opcode;
    uint64_t keywords;
    /* TraceLogging: the event's schema and provider traits (or NULL). */
    const uint8_t *tl_schema, *tl_traits;
    uint16_t tl_schema_size, tl_traits_size;
    /* Kernel events: the payload schema (etl_kernel.c), or NULL. */
    const gcs_field *fields;
    uint32_t field_count;
} type_desc;

/* The metadata id of a key, reporting a new row the first time. */
static gcs_status metadata_id_for(etl_reader *r, const type_key *key, const type_desc *d,
                                  uint64_t at, uint32_t *out, gcs_error *err)
{
    gcs_status st;
    if ((r->types_n + 1) * 2 > r->slots_cap && (st = grow_slots(r, err)) != GCS_OK)
        return st;
    size_t mask = r->slots_cap - 1;
    size_t h = (size_t)key_hash(key) & mask;
    while (r->slots[h].metadata_id) {
        if (memcmp(&r->slots[h].key, key, sizeof *key) == 0) {
            *out = r->slots[h].metadata_id;
            return GCS_OK;
        }
        h = (h + 1) & mask;
    }
    if (r->types_n >= MAX_TYPES)
        return GCS_FAIL(err, GCS_ERR_LIMIT, at, "ETL: more than %zu event types", MAX_TYPES);
    const gcs_sink *sink = r->base.sink;
    gcs_meta_def def;
    memset(&def, 0, sizeof def);
    def.metadata_id = (uint32_t)(r->types_n + 1);
    const char *d_name = d->name;
    if (d->tl_schema) {
        gcs_tl_event tl;
        const char *why = NULL;
        if (gcs_tl_parse(d->tl_schema, d->tl_schema_size, d->tl_traits, d->tl_traits_size,
                         sink->meta_arena, &tl, &why)) {
            def.provider = tl.provider;
            def.event_name = tl.event_name;
            def.fields = tl.fields;
            def.field_count = tl.field_count;
        } else {
            anomaly(r, at, "ETL TraceLogging schema not decoded (%s): event named by provider "
                    "GUID, fields undecoded", why);
        }
    }
    if (!def.provider)
        def.provider = d->provider ? d->provider
                                   : gcs_provider_name_for_guid(key->guid, sink->meta_arena);
    /* A manifest provider the file describes (a MetaData/EventInfo record
     * before its first event): named and decoded as described. Providers
     * we know by GUID (the runtime's) keep their names and manifest. */
    const gcs_tdh_event *info = NULL;
    if (key->kind == KIND_EVENT && !d->tl_schema && def.provider &&
        strncmp(def.provider, "Provider(", 9) == 0)
        info = find_event_info(r, key->guid, (uint16_t)key->event_id, (uint8_t)key->version);
    if (info) {
        def.provider = info->provider;
        d_name = info->event_name;
        def.fields = info->fields;
        def.field_count = info->field_count;
    }
    char kernel_name[32];
    if (key->kind == KIND_KERNEL && !d_name) {
        snprintf(kernel_name, sizeof kernel_name, "Group%u/Opcode%u", key->event_id >> 8,
                 key->event_id & 0xffu);
        d_name = kernel_name;
    }
    if (d->fields) {
        def.fields = d->fields;
        def.field_count = d->field_count;
    }
    /* The name is copied into the metadata arena only when a row is made. */
    if (!def.event_name)
        def.event_name =
            d_name ? gcs_arena_strndup(sink->meta_arena, d_name, strlen(d_name)) : "";
    if (!def.provider || !def.event_name)
        return GCS_FAIL(err, GCS_ERR_LIMIT, at, "ETL: metadata memory limit reached");
    def.event_id = key->event_id;
    def.version = key->version;
    def.level = d->level;
    def.opcode = d->opcode;
    if (key->kind == KIND_KERNEL || info) {
        /* The name carries the opcode ("Process/DCStart", "ProcessStart/
         * Start"): reported as opcode 0 so it is shown as is (a kernel
         * event_id is group << 8 | opcode). */
        def.opcode = 0;
        def.has_opcode = true;
    } else {
        def.has_opcode = key->kind == KIND_EVENT;
    }
    def.keywords = d->keywords;
    if (sink->metadata && (st = sink->metadata(sink->ctx, &def, err)) < 0)
        return st;
    r->slots[h].key = *key;
    r->slots[h].metadata_id = def.metadata_id;
    r->types_n++;
    *out = def.metadata_id;
    return GCS_OK;
}

/* What every record gives its event (the payload is the rest of rec). */
typedef struct record_head {
    uint32_t pid, tid, processor;
    uint64_t timestamp;
    const uint8_t *activity, *related; /* 16 bytes or NULL */
    uint8_t header_type;               /* its width is the writer's pointer size */
} record_head;

/* Pointer size of the process that wrote a record of this header type:
 * the 32-bit variants come from 32-bit processes, also in a 64-bit log
 * (net.4.5.2.x86: every runtime event is 0x12 in a log of PointerSize 8,
 * its AllocationTick TypeID 4 bytes wide in TraceEvent's baseline). */
static uint32_t header_pointer_size(uint8_t type)
{
    switch (type) {
    case HT_SYSTEM32: case HT_COMPACT32: case HT_FULL32: case HT_INSTANCE32:
    case HT_PERFINFO32: case HT_EVENT32:
        return 4;
    default:
        return 8;
    }
}

/* Hands the event of a record over: the metadata row of key (made the
 * first time), the header fields, the rest of rec as payload. */
static gcs_status deliver_id(etl_reader *r, uint32_t metadata_id, const record_head *h,
                             gcs_cursor *rec, uint64_t at, gcs_error *err)
{
    gcs_raw_event ev;
    gcs_status st;
    memset(&ev, 0, sizeof ev);
    ev.metadata_id = metadata_id;
    ev.pid = h->pid;
    ev.tid = h->tid;
    ev.capture_tid = h->tid;
    ev.processor = h->processor;
    ev.timestamp = (int64_t)h->timestamp;
    ev.activity_id = h->activity;
    ev.related_activity_id = h->related;
    ev.payload = rec->p;
    ev.payload_size = (uint32_t)gcs_cur_left(rec);
    ev.offset = at;
    if (ev.timestamp > r->buffer_last)
        r->buffer_last = ev.timestamp;
    if (ev.timestamp < r->buffer_first)
        r->buffer_first = ev.timestamp;
    /* No other processor can still bring an earlier event: this one
     * releases what precedes it (the sorter's IsSorted watermark). */
    ev.is_sorted = r->others_known && ev.timestamp <= r->others_last;
    if (ev.is_sorted && (!r->flagged || ev.timestamp > r->flagged_last)) {
        r->flagged = true;
        r->flagged_last = ev.timestamp;
    }
    if (!r->have_info && (st = default_info(r, ev.timestamp, at, err)) < 0)
        return st;
    /* Said per event only where it differs from the log's (0: the trace's). */
    uint32_t pointer_size = header_pointer_size(h->header_type);
    ev.pointer_size = pointer_size == r->info.pointer_size ? 0 : (uint8_t)pointer_size;
    const gcs_sink *sink = r->base.sink;
    if (sink->event && (st = sink->event(sink->ctx, &ev, err)) < 0)
        return st;
    return GCS_OK;
}

/* The same for the type of key (its metadata row made the first time). */
static gcs_status deliver(etl_reader *r, const type_key *key, const type_desc *d,
                          const record_head *h, gcs_cursor *rec, uint64_t at, gcs_error *err)
{
    uint32_t metadata_id;
    gcs_status st = metadata_id_for(r, key, d, at, &metadata_id, err);
    if (st < 0)
        return st;
    return deliver_id(r, metadata_id, h, rec, at, err);
}

/* ------------------------------------------------------------------ */
/* Records                                                             */

/* EVENT_HEADER record (manifest / TraceLogging providers). */
static gcs_status read_event_record(etl_reader *r, gcs_cursor *rec, uint32_t processor,
                                    gcs_error *err)
{
    uint64_t at = gcs_cur_offset(rec);
    uint16_t size, flags, property, id, task;
    uint8_t type, marker, version, channel, level, opcode;
    uint32_t tid, pid;
    uint64_t timestamp, keywords, cpu_time;
    const uint8_t *guid, *activity;
    if (!gcs_cur_u16(rec, &size) || !gcs_cur_u8(rec, &type) || !gcs_cur_u8(rec, &marker) ||
        !gcs_cur_u16(rec, &flags) || !gcs_cur_u16(rec, &property) || !gcs_cur_u32(rec, &tid) ||
        !gcs_cur_u32(rec, &pid) || !gcs_cur_u64(rec, &timestamp) ||
        !gcs_cur_bytes(rec, 16, &guid) || !gcs_cur_u16(rec, &id) || !gcs_cur_u8(rec, &version) ||
        !gcs_cur_u8(rec, &channel) || !gcs_cur_u8(rec, &level) || !gcs_cur_u8(rec, &opcode) ||
        !gcs_cur_u16(rec, &task) || !gcs_cur_u64(rec, &keywords) || !gcs_cur_u64(rec, &cpu_time) ||
        !gcs_cur_bytes(rec, 16, &activity)) {
        anomaly(r, at, "ETL event header cut short: record skipped");
        return GCS_OK;
    }
    const uint8_t *related = NULL, *tl_schema = NULL, *tl_traits = NULL;
    uint16_t tl_schema_size = 0, tl_traits_size = 0;
    if (flags & EVENT_FLAG_EXTENDED_INFO) {
        for (;;) {
            uint64_t item_at = gcs_cur_offset(rec);
            uint16_t item_size, ext_type, linkage, data_size;
            const uint8_t *data;
            if (!gcs_cur_u16(rec, &item_size) || !gcs_cur_u16(rec, &ext_type) ||
                !gcs_cur_u16(rec, &linkage) || !gcs_cur_u16(rec, &data_size) ||
                item_size < EXT_ITEM_HEADER_SIZE || data_size > item_size - EXT_ITEM_HEADER_SIZE ||
                !gcs_cur_bytes(rec, data_size, &data) ||
                !gcs_cur_skip(rec, item_size - EXT_ITEM_HEADER_SIZE - data_size)) {
                anomaly(r, item_at, "ETL extended data item invalid: event skipped");
                return GCS_OK;
            }
            if (ext_type == EXT_TYPE_RELATED_ACTIVITYID && data_size >= 16)
                related = data;
            else if (ext_type == EXT_TYPE_TL_SCHEMA) {
                tl_schema = data;
                tl_schema_size = data_size;
            } else if (ext_type == EXT_TYPE_PROV_TRAITS) {
                tl_traits = data;
                tl_traits_size = data_size;
            }
            if ((linkage & 1u) == 0)
                break;
        }
    }
    record_head h = {pid, tid, processor, timestamp, activity, related, type};
    if (!tl_schema) {
        /* The type by the cache, else by its key (then cached). */
        /* The GUID's halves as tally_event_records reads them. */
        uint64_t guid_lo = 0, guid_hi = 0;
        gcs_cursor g = gcs_cur_make(guid, 16, 0);
        (void)gcs_cur_peek_u64(&g, &guid_lo);
        (void)gcs_cur_skip(&g, 8);
        (void)gcs_cur_peek_u64(&g, &guid_hi);
        uint32_t id_version = (uint32_t)id | (uint32_t)version << 16;
        event_cache_entry *ce = &r->event_cache[event_cache_slot(guid_lo, id_version)];
        if (ce->metadata_id == 0 || ce->guid_lo != guid_lo || ce->guid_hi != guid_hi ||
            ce->id_version != id_version) {
            type_key key = type_key_of(guid, id, version, KIND_EVENT);
            type_desc d = {NULL, NULL, level, opcode, keywords, NULL, NULL, 0, 0, NULL, 0};
            uint32_t metadata_id;
            gcs_status st = metadata_id_for(r, &key, &d, at, &metadata_id, err);
            if (st < 0)
                return st;
            *ce = (event_cache_entry){guid_lo, guid_hi, id_version, metadata_id};
        }
        return deliver_id(r, ce->metadata_id, &h, rec, at, err);
    }
    type_key key = type_key_of(guid, id, version, KIND_EVENT);
    type_desc d = {NULL, NULL, level, opcode, keywords, tl_schema, tl_traits, tl_schema_size,
                   tl_traits_size, NULL, 0};
    uint64_t hash = 1469598103934665603ull; /* of the schema and traits */
    for (uint16_t i = 0; i < tl_schema_size; i++)
        hash = (hash ^ tl_schema[i]) * 1099511628211ull;
    for (uint16_t i = 0; i < tl_traits_size; i++)
        hash = (hash ^ tl_traits[i]) * 1099511628211ull;
    key.schema_hash = hash;
    (void)channel;
    (void)task;
    (void)property;
    (void)cpu_time;
    (void)marker;
    (void)size;
    return deliver(r, &key, &d, &h, rec, at, err);
}

/* System / compact / perfinfo record (kernel logger). */
static gcs_status read_kernel_record(etl_reader *r, gcs_cursor *rec, uint8_t type,
                                     uint32_t processor, bool first_record, gcs_error *err)
{
    uint64_t at = gcs_cur_offset(rec);
    uint16_t version, size;
    uint8_t htype, marker, op, group;
    /* A perfinfo header names no process or thread: -1 as TraceEvent shows. */
    uint32_t tid = UINT32_MAX, pid = UINT32_MAX;
    uint64_t timestamp;
    bool perfinfo = type == HT_PERFINFO32 || type == HT_PERFINFO64;
    if (!gcs_cur_u16(rec, &version) || !gcs_cur_u8(rec, &htype) || !gcs_cur_u8(rec, &marker) ||
        !gcs_cur_u16(rec, &size) || !gcs_cur_u8(rec, &op) || !gcs_cur_u8(rec, &group) ||
        (!perfinfo && (!gcs_cur_u32(rec, &tid) || !gcs_cur_u32(rec, &pid))) ||
        !gcs_cur_u64(rec, &timestamp) ||
        ((type == HT_SYSTEM32 || type == HT_SYSTEM64) && !gcs_cur_skip(rec, 8))) {
        anomaly(r, at, "ETL kernel header cut short: record skipped");
        return GCS_OK;
    }
    (void)htype;
    (void)marker;
    bool header_event = group == 0 && op == 0 && !perfinfo;
    if (header_event && first_record && !r->have_info) {
        gcs_cursor payload = *rec;
        gcs_status st = read_logfile_header(r, &payload, (int64_t)timestamp, err);
        if (st < 0)
            return st;
    }
    /* The version (the header's first field) selects the payload layout. */
    type_key key = type_key_of(NULL, (uint32_t)group << 8 | op, version, KIND_KERNEL);
    gcs_etl_kernel_desc kd = gcs_etl_kernel_describe(group, op, version);
    type_desc d = {kd.provider, kd.name, 0, op, 0, NULL, NULL, 0, 0, kd.fields, kd.field_count};
    /* Process and thread as TraceEvent shows them: the payload's, for the
     * events about a process or thread (Process/DCStart names the process
     * it describes, not the logger's). */
    uint64_t shown_tid = tid;
    gcs_etl_kernel_ids(group, op, version, rec->p, gcs_cur_left(rec), header_pointer_size(type),
                       &r->threads, &pid, &shown_tid);
    record_head h = {pid, (uint32_t)shown_tid, processor, timestamp, NULL, NULL, type};
    return deliver(r, &key, &d, &h, rec, at, err);
}

/* Full / instance trace header record (classic providers). */
static gcs_status read_classic_record(etl_reader *r, gcs_cursor *rec, uint8_t type,
                                      uint32_t processor, gcs_error *err)
{
    uint64_t at = gcs_cur_offset(rec);
    uint16_t size, version;
    uint8_t htype, marker, op, level;
    uint32_t tid, pid;
    uint64_t timestamp, cpu_time;
    const uint8_t *guid;
    bool instance = type == HT_INSTANCE32 || type == HT_INSTANCE64;
    if (!gcs_cur_u16(rec, &size) || !gcs_cur_u8(rec, &htype) || !gcs_cur_u8(rec, &marker) ||
        !gcs_cur_u8(rec, &op) || !gcs_cur_u8(rec, &level) || !gcs_cur_u16(rec, &version) ||
        !gcs_cur_u32(rec, &tid) || !gcs_cur_u32(rec, &pid) || !gcs_cur_u64(rec, &timestamp) ||
        !gcs_cur_bytes(rec, 16, &guid) || !gcs_cur_u64(rec, &cpu_time) ||
        (instance && !gcs_cur_skip(rec, INSTANCE_HEADER_SIZE - FULL_HEADER_SIZE))) {
        anomaly(r, at, "ETL trace header cut short: record skipped");
        return GCS_OK;
    }
    (void)size;
    (void)htype;
    (void)marker;
    (void)cpu_time;
    type_key key = type_key_of(guid, op, version, KIND_CLASSIC);
    type_desc d = {NULL, NULL, level, op, 0, NULL, NULL, 0, 0, NULL, 0};
    if (gcs_etl_is_event_info(guid, op))
        note_event_info(r, rec->p, gcs_cur_left(rec), at);
    gcs_etl_kernel_desc cd;
    if (gcs_etl_classic_describe(guid, op, &cd)) {
        d.provider = cd.provider;
        d.name = cd.name;
        d.fields = cd.fields;
        d.field_count = cd.field_count;
    }
    /* A real-time session's lost-event record: the event stays (named),
     * and the loss is reported. */
    const char *lost = gcs_etl_lost_event_kind(guid, op);
    if (lost)
        anomaly(r, at, "ETL: %s lost by the session (RT_LostEvent record)", lost);
    record_head h = {pid, tid, processor, timestamp, NULL, NULL, type};
    return deliver(r, &key, &d, &h, rec, at, err);
}

/*
 * Counting sink (sink->tally): counts the EVENT_HEADER records at c's
 * position whose type the sink counts, with no event made and no call,
 * until a record that needs the general path (another header type,
 * extended data, a type not cached or not counted, a pointer size other
 * than the log's, a size that does not fit): c is left at it. Reads the
 * header as five 64-bit words (one load each, gcs_cur_peek_u64):
 * size/type/marker/flags, (tid, pid skipped), time stamp, the GUID's two
 * halves, id/version.
 */
static void tally_event_records(etl_reader *r, gcs_cursor *c)
{
    gcs_tally *t = r->base.sink->tally;
    gcs_tally_slot *const slots = t->slots;
    const size_t n_slots = t->n_slots;
    const uint8_t counted_type = r->info.pointer_size == 4 ? HT_EVENT32 : HT_EVENT64;
    int64_t lo = t->rows ? t->first_timestamp : INT64_MAX;
    int64_t hi = t->rows ? t->last_timestamp : INT64_MIN;
    uint64_t taken = 0, short_rows = 0;
    int64_t own_lo = INT64_MAX, own_hi = INT64_MIN; /* of this call's records only */
    for (;;) {
        uint64_t w0, ts = 0, guid_lo = 0, guid_hi = 0, w5 = 0;
        if (!gcs_cur_peek_u64(c, &w0))
            break;
        uint32_t size = (uint16_t)w0;
        if ((uint8_t)(w0 >> 16) != counted_type || ((w0 >> 24) & 0x80u) == 0 ||
            ((w0 >> 32) & EVENT_FLAG_EXTENDED_INFO) || size < EVENT_HEADER_SIZE ||
            size > gcs_cur_left(c))
            break;
        /* The whole header is in the record: the peeks below fit. */
        gcs_cursor p = *c;
        (void)gcs_cur_skip(&p, 16);
        (void)gcs_cur_peek_u64(&p, &ts);
        (void)gcs_cur_skip(&p, 8);
        (void)gcs_cur_peek_u64(&p, &guid_lo);
        (void)gcs_cur_skip(&p, 8);
        (void)gcs_cur_peek_u64(&p, &guid_hi);
        (void)gcs_cur_skip(&p, 8);
        (void)gcs_cur_peek_u64(&p, &w5);
        uint32_t id_version = (uint32_t)w5 & 0xffffffu;
        const event_cache_entry *ce = &r->event_cache[event_cache_slot(guid_lo, id_version)];
        uint32_t id = ce->metadata_id;
        if (id == 0 || ce->guid_lo != guid_lo || ce->guid_hi != guid_hi ||
            ce->id_version != id_version || id >= n_slots ||
            slots[id].counted != GCS_TALLY_PLAIN) /* no payload is looked into here */
            break;
        slots[id].count++;
        short_rows += size - EVENT_HEADER_SIZE < slots[id].min_size;
        own_lo = (int64_t)ts < own_lo ? (int64_t)ts : own_lo;
        own_hi = (int64_t)ts > own_hi ? (int64_t)ts : own_hi;
        taken++;
        /* 8-byte aligned; the last record may end the buffer unpadded. */
        size_t step = (size + 7u) & ~(size_t)7u;
        if (step > gcs_cur_left(c))
            step = gcs_cur_left(c);
        (void)gcs_cur_skip(c, step);
    }
    if (taken) {
        if (own_hi > r->buffer_last)
            r->buffer_last = own_hi;
        if (own_lo < r->buffer_first)
            r->buffer_first = own_lo;
        t->rows += taken;
        t->short_rows += short_rows;
        t->first_timestamp = own_lo < lo ? own_lo : lo;
        t->last_timestamp = own_hi > hi ? own_hi : hi;
    }
}

/* The records of one buffer (its bytes after the buffer header). */
static gcs_status read_records(etl_reader *r, gcs_cursor *c, uint32_t processor, bool first_buffer,
                               gcs_error *err)
{
    bool first = first_buffer;
    const bool tally = r->base.sink->tally != NULL;
    for (;;) {
        if (tally && r->have_info)
            tally_event_records(r, c);
        if (gcs_cur_left(c) < 4)
            break;
        uint64_t at = gcs_cur_offset(c);
        gcs_cursor peek = *c;
        uint16_t w0 = 0, w2 = 0;
        uint8_t type = 0, marker = 0;
        (void)gcs_cur_u16(&peek, &w0);
        (void)gcs_cur_u8(&peek, &type);
        (void)gcs_cur_u8(&peek, &marker);
        if (w0 == 0xffff && type == 0xff && marker == 0xff)
            break; /* the unused rest of the buffer */
        if ((marker & 0x80u) == 0) {
            anomaly(r, at, "ETL record without the trace header marker: rest of buffer skipped");
            break;
        }
        uint32_t size, min_size;
        switch (type) {
        case HT_SYSTEM32: case HT_SYSTEM64: min_size = SYSTEM_HEADER_SIZE; break;
        case HT_COMPACT32: case HT_COMPACT64: min_size = COMPACT_HEADER_SIZE; break;
        case HT_PERFINFO32: case HT_PERFINFO64: min_size = PERFINFO_HEADER_SIZE; break;
        case HT_EVENT32: case HT_EVENT64: min_size = EVENT_HEADER_SIZE; break;
        case HT_FULL32: case HT_FULL64: min_size = FULL_HEADER_SIZE; break;
        case HT_INSTANCE32: case HT_INSTANCE64: min_size = INSTANCE_HEADER_SIZE; break;
        default: min_size = 4; break;
        }
        bool kernel = min_size == SYSTEM_HEADER_SIZE || min_size == COMPACT_HEADER_SIZE ||
                      min_size == PERFINFO_HEADER_SIZE;
        if (kernel) {
            /* The size follows the 4-byte marker. */
            if (!gcs_cur_u16(&peek, &w2)) {
                anomaly(r, at, "ETL record cut at the buffer end");
                break;
            }
            size = w2;
        } else {
            size = w0;
        }
        if (size < min_size || size > gcs_cur_left(c)) {
            anomaly(r, at, "ETL record of %u bytes (header type 0x%02x) does not fit: rest of "
                    "buffer skipped", size, type);
            break;
        }
        gcs_cursor rec;
        (void)gcs_cur_sub(c, size, &rec);
        /* Records are 8-byte aligned within the buffer (the end may be
         * the buffer's end, unpadded). */
        size_t pad = (size_t)((8 - (size & 7u)) & 7u);
        if (pad > gcs_cur_left(c))
            pad = gcs_cur_left(c);
        (void)gcs_cur_skip(c, pad);
        gcs_status st = GCS_OK;
        switch (type) {
        case HT_EVENT32: case HT_EVENT64:
            st = read_event_record(r, &rec, processor, err);
            break;
        case HT_FULL32: case HT_FULL64: case HT_INSTANCE32: case HT_INSTANCE64:
            st = read_classic_record(r, &rec, type, processor, err);
            break;
        default:
            if (kernel)
                st = read_kernel_record(r, &rec, type, processor, first, err);
            else
                anomaly(r, at, "ETL record of unknown header type 0x%02x skipped", type);
            break;
        }
        if (st < 0)
            return st;
        first = false;
    }
    return GCS_OK;
}

/* ------------------------------------------------------------------ */
/* Buffers                                                             */

/* Before a buffer of `processor`: the time no other processor can still
 * go below (the minimum of their latest), known once every processor the
 * header counts (at most 256: the buffer header's byte) has written a data
 * buffer, or, when some never did, once ORDER_WAIT_BYTES of data buffers
 * were read (it is then taken as idle; should it write later, its events
 * may come after later ones: counted as an anomaly). The header buffer
 * does not count (in gcevents.etl processor 0 wrote only that one). */
static void begin_buffer_order(etl_reader *r, uint8_t processor, bool header_buffer)
{
    r->buffer_last = INT64_MIN;
    r->buffer_first = INT64_MAX;
    r->others_known = false;
    r->flagged_before = r->flagged;
    r->flagged_last_before = r->flagged_last;
    uint32_t expected = r->info.cpu_count;
    if (header_buffer || expected == 0 || expected > 256 || processor >= expected)
        return;
    uint32_t others = r->cpus_seen - (r->cpu_seen[processor] ? 1u : 0u);
    if (others == 0 || (others + 1 < expected && r->data_bytes < ORDER_WAIT_BYTES))
        return;
    int64_t lo = INT64_MAX;
    for (uint32_t i = 0; i < expected; i++)
        if (r->cpu_seen[i] && i != processor && r->cpu_last[i] < lo)
            lo = r->cpu_last[i];
    r->others_last = lo;
    r->others_known = true;
}

/* After it: its processor's latest time stamp (buffers of one processor
 * follow each other in time). */
static void end_buffer_order(etl_reader *r, uint8_t processor, bool header_buffer,
                             uint32_t buffer_size, uint64_t at)
{
    r->others_known = false;
    if (header_buffer)
        return;
    r->data_bytes += buffer_size;
    /* A processor beyond the header's count (a corrupt byte) is not one
     * of those waited for. */
    if (r->buffer_last == INT64_MIN || processor >= r->info.cpu_count)
        return;
    if (!r->cpu_seen[processor]) {
        r->cpu_seen[processor] = true;
        r->cpus_seen++;
        r->cpu_last[processor] = r->buffer_last;
        if (r->flagged_before && r->buffer_first < r->flagged_last_before)
            anomaly(r, at, "ETL: processor %u's first buffer comes after events released up to "
                    "a later time: order not guaranteed", processor);
    } else if (r->buffer_last > r->cpu_last[processor]) {
        r->cpu_last[processor] = r->buffer_last;
    }
}

static gcs_status etl_step(gcs_container *base, gcs_error *err)
{
    etl_reader *r = (etl_reader *)base;
    gcs_stream *s = base->stream;
    uint64_t at = gcs_stream_offset(s);
    gcs_status st = gcs_stream_need(s, BUFFER_HEADER_SIZE, err);
    if (st == GCS_AGAIN || st < 0)
        return st;
    if (st == GCS_END) {
        if (gcs_stream_avail(s) == 0)
            return GCS_END; /* buffers end with the file */
        return GCS_FAIL(err, GCS_ERR_TRUNCATED, at,
                        "truncated: ETL buffer header cut short (%zu of %u bytes)",
                        gcs_stream_avail(s), BUFFER_HEADER_SIZE);
    }
    gcs_cursor h = gcs_cur_make(gcs_stream_peek(s), BUFFER_HEADER_SIZE, at);
    uint32_t buffer_size = 0, filled = 0;
    uint16_t flags = 0;
    uint8_t processor = 0;
    (void)gcs_cur_u32(&h, &buffer_size);
    (void)gcs_cur_skip(&h, 0x28 - 4);
    (void)gcs_cur_u8(&h, &processor);
    (void)gcs_cur_skip(&h, 0x30 - 0x29);
    (void)gcs_cur_u32(&h, &filled);
    (void)gcs_cur_u16(&h, &flags);
    if (buffer_size < MIN_BUFFER_SIZE)
        return GCS_CORRUPT(err, at, "ETL buffer size %u is below its %u-byte header", buffer_size,
                           BUFFER_HEADER_SIZE);
    if (buffer_size > GCS_MAX_BLOCK_SIZE || filled > GCS_MAX_BLOCK_SIZE)
        return GCS_FAIL(err, GCS_ERR_LIMIT, at, "ETL buffer of %u bytes exceeds the limit",
                        buffer_size > filled ? buffer_size : filled);
    st = gcs_stream_need(s, buffer_size, err);
    if (st == GCS_AGAIN || st < 0)
        return st;
    if (st == GCS_END)
        return GCS_FAIL(err, GCS_ERR_TRUNCATED, at,
                        "truncated: ETL buffer of %u bytes, %zu present", buffer_size,
                        gcs_stream_avail(s));
    const uint8_t *buf = gcs_stream_peek(s);
    bool first_buffer = r->buffers == 0;
    r->buffers++;
    begin_buffer_order(r, processor, first_buffer);
    if (base->sink->block)
        base->sink->block(base->sink->ctx);
    if (filled < BUFFER_HEADER_SIZE) {
        anomaly(r, at + 0x30, "ETL buffer filled offset %u below its header: buffer skipped",
                filled);
    } else if (flags & BUFFER_FLAG_COMPRESSED) {
        size_t want = filled - BUFFER_HEADER_SIZE;
        if (want > r->scratch_cap) {
            uint8_t *p = realloc(r->scratch, want);
            if (!p)
                return GCS_FAIL(err, GCS_ERR_NOMEM, at, "out of memory");
            r->scratch = p;
            r->scratch_cap = want;
        }
        size_t got = 0;
        if (!gcs_xpress_decompress(buf + BUFFER_HEADER_SIZE, buffer_size - BUFFER_HEADER_SIZE,
                                   r->scratch, want, &got) ||
            got != want) {
            anomaly(r, at, "ETL compressed buffer does not decompress to its %u bytes: skipped",
                    filled);
        } else {
            /* Offsets inside a decompressed buffer are reported as the
             * buffer's own offset: they do not exist in the file. */
            gcs_cursor c = gcs_cur_make(r->scratch, want, at);
            if ((st = read_records(r, &c, processor, first_buffer, err)) < 0)
                return st;
        }
    } else {
        uint32_t end = filled;
        if (end > buffer_size) {
            anomaly(r, at + 0x30, "ETL buffer filled offset %u beyond its size %u", filled,
                    buffer_size);
            end = buffer_size;
        }
        gcs_cursor c = gcs_cur_make(buf + BUFFER_HEADER_SIZE, end - BUFFER_HEADER_SIZE,
                                    at + BUFFER_HEADER_SIZE);
        if ((st = read_records(r, &c, processor, first_buffer, err)) < 0)
            return st;
    }
    end_buffer_order(r, processor, first_buffer, buffer_size, at);
    gcs_stream_consume(s, buffer_size);
    return GCS_OK;
}

static void etl_destroy(gcs_container *base)
{
    etl_reader *r = (etl_reader *)base;
    free(r->slots);
    free(r->scratch);
    free(r->tdh);
    gcs_etl_threads_free(&r->threads);
    free(r);
}

static const gcs_container_ops etl_ops = {"etl", etl_step, etl_destroy, false};

bool gcs_etl_sniff(const uint8_t *p, size_t n)
{
    /* The first record of the first buffer is the logfile header event: a
     * system header (type 1 or 2, marker 0xc0) of group 0, opcode 0. */
    if (n < BUFFER_HEADER_SIZE + 8)
        return false;
    gcs_cursor c = gcs_cur_make(p, n, 0);
    uint32_t buffer_size = 0;
    uint8_t type = 0, marker = 0, op = 0, group = 0;
    (void)gcs_cur_u32(&c, &buffer_size);
    (void)gcs_cur_skip(&c, BUFFER_HEADER_SIZE - 4 + 2);
    (void)gcs_cur_u8(&c, &type);
    (void)gcs_cur_u8(&c, &marker);
    (void)gcs_cur_skip(&c, 2);
    (void)gcs_cur_u8(&c, &op);
    (void)gcs_cur_u8(&c, &group);
    return buffer_size >= BUFFER_HEADER_SIZE && (type == HT_SYSTEM32 || type == HT_SYSTEM64) &&
           marker == 0xc0 && op == 0 && group == 0;
}

gcs_status gcs_etl_open(gcs_stream *s, const gcs_sink *sink, gcs_container **out, gcs_error *err)
{
    etl_reader *r = calloc(1, sizeof *r);
    if (!r)
        return GCS_FAIL(err, GCS_ERR_NOMEM, 0, "out of memory");
    r->base.ops = &etl_ops;
    r->base.stream = s;
    r->base.sink = sink;
    *out = &r->base;
    return GCS_OK;
}
