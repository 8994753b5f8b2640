/*
 * Unit tests of the nettrace V6 container reader (src/format/nettrace/
 * nettrace_v6*.c), through a recording gcs_sink: hand-assembled bytes from
 * the spec, the synthetic trace of tests/tools/nettrace_v6_writer.h in both
 * event encodings, a live source that trickles bytes with GCS_AGAIN,
 * truncation at every length, byte flips, and error/limit corners.
 */
#include "check.h"

#include <stdlib.h>

#include "base/error.h"
#include "format/container.h"
#include "format/nettrace/nettrace_v6.h"
#include "tools/nettrace_v6_writer.h"

/* ---- recording sink ------------------------------------------------ */

#define REC_MAX_EVENTS 64
#define REC_MAX_META 16
#define REC_MAX_SP 8

typedef struct rec_event {
    gcs_raw_event ev;
    uint8_t payload[128];
    uint8_t activity[16], related[16];
    bool has_activity, has_related;
} rec_event;

typedef struct rec_sp {
    int64_t timestamp;
    size_t n;
    gcs_seq_entry entries[8];
} rec_sp;

typedef struct recorder {
    gcs_arena arena;
    int traces;
    gcs_trace_info info;
    size_t n_meta, n_events, n_sp, n_stacks, n_blocks, n_anomalies;
    uint64_t first_anomaly_offset;
    gcs_meta_def meta[REC_MAX_META];
    rec_event events[REC_MAX_EVENTS];
    rec_sp sp[REC_MAX_SP];
    uint32_t stack_ids[8];
} recorder;

static gcs_status rec_trace(void *ctx, const gcs_trace_info *info, gcs_error *err)
{
    recorder *r = ctx;
    r->traces++;
    r->info = *info;
    return GCS_OK;
}
static gcs_status rec_meta(void *ctx, const gcs_meta_def *def, gcs_error *err)
{
    recorder *r = ctx;
    if (r->n_meta < REC_MAX_META)
        r->meta[r->n_meta] = *def;
    r->n_meta++;
    return GCS_OK;
}
static gcs_status rec_event_cb(void *ctx, const gcs_raw_event *ev, gcs_error *err)
{
    recorder *r = ctx;
    if (r->n_events < REC_MAX_EVENTS) {
        rec_event *e = &r->events[r->n_events];
        e->ev = *ev;
        size_t n = ev->payload_size < sizeof e->payload ? ev->payload_size : sizeof e->payload;
        memcpy(e->payload, ev->payload, n);
        e->ev.payload = NULL;
        e->has_activity = ev->activity_id != NULL;
        e->has_related = ev->related_activity_id != NULL;
        if (ev->activity_id)
            memcpy(e->activity, ev->activity_id, 16);
        if (ev->related_activity_id)
            memcpy(e->related, ev->related_activity_id, 16);
        e->ev.activity_id = e->ev.related_activity_id = NULL;
    }
    r->n_events++;
    return GCS_OK;
}
static gcs_status rec_sp_cb(void *ctx, int64_t ts, const gcs_seq_entry *entries, size_t n,
                            gcs_error *err)
{
    recorder *r = ctx;
    if (r->n_sp < REC_MAX_SP) {
        rec_sp *s = &r->sp[r->n_sp];
        s->timestamp = ts;
        s->n = n;
        for (size_t i = 0; i < n && i < 8; i++)
            s->entries[i] = entries[i];
    }
    r->n_sp++;
    return GCS_OK;
}
static void rec_block(void *ctx) { ((recorder *)ctx)->n_blocks++; }
static void rec_anomaly(void *ctx, uint64_t offset, const char *reason)
{
    recorder *r = ctx;
    if (r->n_anomalies++ == 0)
        r->first_anomaly_offset = offset;
    CHECK(reason && reason[0]);
}
static void rec_stack(void *ctx, uint32_t id)
{
    recorder *r = ctx;
    if (r->n_stacks < 8)
        r->stack_ids[r->n_stacks] = id;
    r->n_stacks++;
}

static recorder *rec_new(gcs_sink *sink)
{
    recorder *r = calloc(1, sizeof *r);
    gcs_arena_init(&r->arena, (size_t)64 << 20);
    sink->ctx = r;
    sink->meta_arena = &r->arena;
    sink->trace = rec_trace;
    sink->metadata = rec_meta;
    sink->event = rec_event_cb;
    sink->sequence_point = rec_sp_cb;
    sink->block = rec_block;
    sink->stack = rec_stack;
    sink->anomaly = rec_anomaly;
    return r;
}
static void rec_free(recorder *r)
{
    gcs_arena_reset(&r->arena);
    free(r);
}

/* A source that hands out one byte per read and says AGAIN every other
 * call: a live socket at its worst. */
typedef struct trickle {
    const uint8_t *data;
    size_t size, pos;
    bool again_next;
} trickle;

static gcs_status trickle_read(void *ctx, void *buf, size_t cap, size_t *got)
{
    trickle *t = ctx;
    *got = 0;
    if (t->again_next) {
        t->again_next = false;
        return GCS_AGAIN;
    }
    t->again_next = true;
    if (t->pos == t->size)
        return GCS_END;
    *(uint8_t *)buf = t->data[t->pos++];
    *got = 1;
    return GCS_OK;
}

typedef struct run_result {
    gcs_status status;
    gcs_error err;
    uint64_t agains;
    gcs_v6_anomalies anomalies;
} run_result;

/* Reads the whole input through the container. */
static run_result run(const uint8_t *data, size_t size, recorder **out_rec, bool trickling)
{
    run_result res;
    memset(&res, 0, sizeof res);
    gcs_sink sink = {0};
    recorder *rec = rec_new(&sink);
    trickle t = {data, size, 0, false};
    gcs_source *src = trickling ? gcs_source_custom(trickle_read, NULL, &t, &res.err)
                                : gcs_source_from_memory(data, size, &res.err);
    gcs_stream stream;
    gcs_stream_init(&stream, src);
    gcs_container *c = NULL;
    gcs_status st;
    do {
        st = gcs_container_open(&stream, &sink, &c, &res.err);
        if (st == GCS_AGAIN)
            res.agains++;
    } while (st == GCS_AGAIN);
    if (st == GCS_OK) {
        for (;;) {
            st = c->ops->step(c, &res.err);
            if (st == GCS_AGAIN) {
                res.agains++;
                continue;
            }
            if (st != GCS_OK)
                break;
        }
        if (strcmp(c->ops->name, "nettrace-v6") == 0)
            res.anomalies = *gcs_nettrace_v6_anomalies(c);
        c->ops->destroy(c);
    }
    res.status = st;
    gcs_stream_free(&stream);
    gcs_source_free(src);
    if (out_rec)
        *out_rec = rec;
    else
        rec_free(rec);
    return res;
}

static v6w_bytes synthetic_bytes(bool compressed)
{
    v6w_bytes out = {0};
    v6w w;
    v6w_init(&w, v6w_to_bytes, &out, compressed);
    v6w_synthetic(&w);
    bool ok = v6w_end(&w);
    v6w_free(&w);
    CHECK(ok);
    return out;
}

/* ---- hand-assembled bytes straight from the spec ------------------- */

static const uint8_t hand_trace[] = {
    'N', 'e', 't', 't', 'r', 'a', 'c', 'e', 0, 0, 0, 0, 6, 0, 0, 0, 3, 0, 0, 0, /* 6.3 */
    /* Trace block: kind 1, 54 bytes */
    54, 0, 0, 1,
    0xEA, 0x07, 1, 0, 4, 0, 2, 0, 3, 0, 4, 0, 5, 0, 6, 0, /* 2026-01-02 03:04:05.006 */
    0x10, 0, 0, 0, 0, 0, 0, 0,                             /* SyncTimeTicks 16 */
    0x40, 0x42, 0x0F, 0, 0, 0, 0, 0,                       /* TickFrequency 1000000 */
    4, 0, 0, 0,                                            /* PointerSize 4 */
    1, 0, 0, 0,                                            /* one key/value */
    9, 'P', 'r', 'o', 'c', 'e', 's', 's', 'I', 'd', 3, '1', '2', '3',
    /* Metadata block: kind 3, 25 bytes */
    25, 0, 0, 3,
    0, 0,            /* HeaderSize 0 */
    21, 0,           /* row size */
    5,               /* MetadataId 5 */
    1, 'P',          /* provider "P" */
    9,               /* EventId 9 */
    2, 'E', 'v',     /* name "Ev" */
    1, 0,            /* 1 field */
    4, 0, 1, 'a', 10, 0xEE, /* "a": UInt32, one extension byte */
    3, 0, 8, 4, 0xFF,       /* optional: Level 4, then an unknown kind */
    0x77,            /* row extension byte */
    /* Thread block: kind 6, 8 bytes */
    8, 0, 0, 6,
    6, 0, 0x81, 0x01, 3, 0x2A, 2, 0x07, /* index 129: tid 42, pid 7 */
    /* Event block: kind 2, 36 bytes, compressed */
    36, 0, 0, 2,
    22, 0, 1, 0,                       /* HeaderSize 22 (2 reserved bytes), compressed */
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, /* min/max timestamps */
    0xAB, 0xCD,                        /* reserved header bytes */
    0x87,                              /* flags: metadata, capture+seq, thread, payload size */
    5,                                 /* metadata 5 */
    9, 0x81, 0x01, 2,                  /* sequence 0+9+1 = 10, capture 129, processor 2 */
    0x81, 0x01,                        /* thread 129 */
    20,                                /* timestamp 20 */
    4,                                 /* payload size 4 */
    0x44, 0x33, 0x22, 0x11,
    0, 0, 0, 0 /* EndOfStream */
};

static void test_hand_built(void)
{
    recorder *rec;
    run_result res = run(hand_trace, sizeof hand_trace, &rec, false);
    CHECK_EQ_INT(res.status, GCS_END);
    CHECK_EQ_INT(rec->traces, 1);
    CHECK_EQ_U64(rec->info.format_version, 6);
    CHECK_EQ_U64(rec->info.format_minor, 3);
    CHECK_EQ_U64(rec->info.pointer_size, 4);
    CHECK_EQ_U64(rec->info.pid, 123);
    CHECK_EQ_U64(rec->info.clock_frequency, 1000000);
    CHECK_EQ_U64(rec->info.start_ticks, 16);
    CHECK_EQ_INT(rec->info.start_year, 2026);
    CHECK_EQ_INT(rec->info.start_day, 2);
    CHECK_EQ_INT(rec->info.start_millisecond, 6);
    CHECK_EQ_U64(rec->n_meta, 1);
    CHECK_EQ_U64(rec->meta[0].metadata_id, 5);
    CHECK_EQ_STR(rec->meta[0].provider, "P");
    CHECK_EQ_STR(rec->meta[0].event_name, "Ev");
    CHECK_EQ_U64(rec->meta[0].event_id, 9);
    CHECK_EQ_U64(rec->meta[0].level, 4);
    CHECK(!rec->meta[0].has_opcode);
    CHECK_EQ_U64(rec->meta[0].field_count, 1);
    CHECK_EQ_STR(rec->meta[0].fields[0].name, "a");
    CHECK_EQ_INT(rec->meta[0].fields[0].type, GCS_T_U32);
    CHECK_EQ_U64(res.anomalies.optional_metadata_cut, 1);
    CHECK_EQ_U64(rec->n_anomalies, 1);
    CHECK_EQ_U64(rec->first_anomaly_offset, 8 + 12 + 4 + 54 + 4 + 2);
    CHECK_EQ_U64(rec->n_events, 1);
    const gcs_raw_event *e = &rec->events[0].ev;
    CHECK_EQ_U64(e->metadata_id, 5);
    CHECK_EQ_U64(e->sequence, 10);
    CHECK_EQ_U64(e->tid, 42);
    CHECK_EQ_U64(e->capture_tid, 42);
    CHECK_EQ_U64(e->pid, 7);
    CHECK_EQ_U64(e->processor, 2);
    CHECK_EQ_U64(e->timestamp, 20);
    CHECK(!e->is_sorted);
    CHECK_EQ_U64(e->payload_size, 4);
    CHECK_EQ_U64(rec->events[0].payload[0], 0x44);
    CHECK_EQ_U64(e->offset, 8 + 12 + 4 + 54 + 4 + 25 + 4 + 8 + 4 + 22);
    CHECK(!rec->events[0].has_activity);
    CHECK_EQ_U64(rec->n_blocks, 5);
    rec_free(rec);
}

/* ---- the synthetic trace ------------------------------------------- */

static void check_synthetic(const recorder *rec)
{
    CHECK_EQ_INT(rec->traces, 1);
    CHECK_EQ_U64(rec->info.pid, 4242);
    CHECK_EQ_U64(rec->info.cpu_count, 8);
    CHECK_EQ_U64(rec->info.expected_cpu_sampling_rate, 1000000);
    CHECK_EQ_U64(rec->info.clock_frequency, 10000000);
    CHECK_EQ_U64(rec->info.start_ticks, 1000000);
    CHECK_EQ_INT(rec->info.start_hour, 18);
    CHECK_EQ_INT(rec->info.start_second, 5);

    CHECK_EQ_U64(rec->n_meta, 2);
    const gcs_meta_def *m = &rec->meta[0];
    CHECK_EQ_STR(m->provider, "Microsoft-Windows-DotNETRuntime");
    CHECK_EQ_STR(m->event_name, "GC/Start");
    CHECK_EQ_U64(m->event_id, 1);
    CHECK_EQ_U64(m->version, 2);
    CHECK_EQ_U64(m->keywords, 1);
    CHECK_EQ_U64(m->level, 4);
    CHECK(m->has_opcode);
    CHECK_EQ_U64(m->opcode, 1);
    CHECK_EQ_U64(m->field_count, 0);
    m = &rec->meta[1];
    CHECK_EQ_U64(m->metadata_id, 2);
    CHECK_EQ_STR(m->event_name, "Sample");
    CHECK_EQ_U64(m->keywords, 0xF00);
    CHECK_EQ_U64(m->opcode, 10);
    CHECK_EQ_U64(m->field_count, 8);
    if (m->field_count == 8) {
        CHECK_EQ_STR(m->fields[1].name, "Name");
        CHECK_EQ_INT(m->fields[1].type, GCS_T_UTF16Z);
        CHECK_EQ_INT(m->fields[2].type, GCS_T_I64);
        CHECK_EQ_INT(m->fields[2].repeat, GCS_REPEAT_U16_PREFIX);
        CHECK_EQ_INT(m->fields[3].type, GCS_T_STRUCT);
        CHECK_EQ_U64(m->fields[3].child_count, 2);
        CHECK_EQ_STR(m->fields[3].children[1].name, "Y");
        CHECK_EQ_INT(m->fields[4].repeat, GCS_REPEAT_FIXED);
        CHECK_EQ_U64(m->fields[4].repeat_arg, 4);
        CHECK_EQ_INT(m->fields[5].type, GCS_T_VARUINT);
        CHECK_EQ_INT(m->fields[6].type, GCS_T_STRUCT);
        CHECK_EQ_INT(m->fields[6].repeat, GCS_REPEAT_U16_PREFIX);
        CHECK_EQ_INT(m->fields[6].children[0].repeat, GCS_REPEAT_U16_PREFIX);
        CHECK_EQ_INT(m->fields[7].type, GCS_T_BOOL8);
    }

    CHECK_EQ_U64(rec->n_events, 8);
    /* metadata, pid, tid, capture tid, sequence, processor, timestamp, sorted */
    static const struct {
        uint32_t meta, pid;
        uint64_t tid, cap;
        uint32_t seq, proc, stack;
        int64_t ts;
        bool sorted;
        const uint8_t *act, *rel;
        uint32_t size;
    } want[8] = {
        {1, 4242, 100, 100, 1, 0, 0, 1000100, true, NULL, NULL, 26},
        {2, 4242, 200, 200, 1, 1, 1, 1000200, false, v6w_synth_guid_a, NULL, 43},
        {2, 4242, 100, 100, 2, 1, 2, 1000300, false, v6w_synth_guid_b, v6w_synth_guid_c, 43},
        {1, 77, 300, 300, 5, 3, 0, 1000250, false, NULL, NULL, 26},
        {1, 4242, 200, 200, 2, 0, 0, 1000500, true, v6w_synth_guid_d, NULL, 26},
        {1, 4242, 400, 400, 1, 0, 0, 1000700, false, NULL, NULL, 26},
        {1, 4242, 400, 500, 1, 0, 0, 1000650, false, NULL, NULL, 26},
        {1, 4242, 400, 400, 2, 0, 0, 1000800, false, NULL, NULL, 26},
    };
    for (size_t i = 0; i < 8 && i < rec->n_events; i++) {
        const rec_event *e = &rec->events[i];
        CHECK_EQ_U64(e->ev.metadata_id, want[i].meta);
        CHECK_EQ_U64(e->ev.pid, want[i].pid);
        CHECK_EQ_U64(e->ev.tid, want[i].tid);
        CHECK_EQ_U64(e->ev.capture_tid, want[i].cap);
        CHECK_EQ_U64(e->ev.sequence, want[i].seq);
        CHECK(e->ev.has_sequence);
        CHECK_EQ_U64(e->ev.processor, want[i].proc);
        CHECK_EQ_U64(e->ev.stack_id, want[i].stack);
        CHECK_EQ_INT(e->ev.timestamp, want[i].ts);
        CHECK_EQ_INT(e->ev.is_sorted, want[i].sorted);
        CHECK_EQ_U64(e->ev.payload_size, want[i].size);
        CHECK_EQ_INT(e->has_activity, want[i].act != NULL);
        CHECK_EQ_INT(e->has_related, want[i].rel != NULL);
        if (want[i].act && e->has_activity)
            CHECK(memcmp(e->activity, want[i].act, 16) == 0);
        if (want[i].rel && e->has_related)
            CHECK(memcmp(e->related, want[i].rel, 16) == 0);
    }
    CHECK_EQ_U64(rec->events[1].payload[0], 5);
    CHECK_EQ_U64(rec->events[1].payload[42], 1);

    CHECK_EQ_U64(rec->n_stacks, 2);
    CHECK_EQ_U64(rec->stack_ids[0], 1);
    CHECK_EQ_U64(rec->stack_ids[1], 2);
    CHECK_EQ_U64(rec->n_sp, 2);
    CHECK_EQ_INT(rec->sp[0].timestamp, 1000400);
    CHECK_EQ_U64(rec->sp[0].n, 3);
    CHECK_EQ_U64(rec->sp[0].entries[0].capture_tid, 100);
    CHECK_EQ_U64(rec->sp[0].entries[0].sequence, 2);
    CHECK_EQ_U64(rec->sp[0].entries[2].capture_tid, 300);
    CHECK_EQ_U64(rec->sp[0].entries[2].sequence, 5);
    CHECK_EQ_INT(rec->sp[1].timestamp, 1000600);
    CHECK_EQ_U64(rec->sp[1].n, 2);
    CHECK_EQ_U64(rec->sp[1].entries[1].capture_tid, 200);
    CHECK_EQ_U64(rec->sp[1].entries[1].sequence, 2);
}

static void test_synthetic_compressed(void)
{
    v6w_bytes b = synthetic_bytes(true);
    recorder *rec;
    run_result res = run(b.data, b.len, &rec, false);
    CHECK_EQ_INT(res.status, GCS_END);
    check_synthetic(rec);
    rec_free(rec);
    v6w_free_bytes(&b);
}

static void test_synthetic_uncompressed(void)
{
    v6w_bytes b = synthetic_bytes(false);
    v6w_bytes c = synthetic_bytes(true);
    CHECK(b.len > c.len); /* header compression does compress */
    recorder *rec;
    run_result res = run(b.data, b.len, &rec, false);
    CHECK_EQ_INT(res.status, GCS_END);
    check_synthetic(rec);
    rec_free(rec);
    v6w_free_bytes(&b);
    v6w_free_bytes(&c);
}

static void test_trickling_source(void)
{
    v6w_bytes b = synthetic_bytes(true);
    recorder *rec;
    run_result res = run(b.data, b.len, &rec, true);
    CHECK_EQ_INT(res.status, GCS_END);
    CHECK(res.agains + 2 >= b.len); /* an AGAIN between (almost) every two bytes */
    check_synthetic(rec);
    rec_free(rec);
    v6w_free_bytes(&b);
}

/* Block boundaries of a V6 byte string (offsets of each block header). */
static size_t block_starts(const uint8_t *d, size_t n, size_t *out, size_t max)
{
    size_t k = 0, p = 20;
    while (p + 4 <= n && k < max) {
        out[k++] = p;
        size_t size = (size_t)d[p] | ((size_t)d[p + 1] << 8) | ((size_t)d[p + 2] << 16);
        p += 4 + size;
    }
    return k;
}

static void test_truncation_everywhere(void)
{
    v6w_bytes b = synthetic_bytes(true);
    size_t starts[64];
    size_t nb = block_starts(b.data, b.len, starts, 64);
    CHECK(nb >= 12);
    for (size_t len = 0; len < b.len; len++) {
        run_result res = run(b.data, len, NULL, false);
        if (len < 12) {
            CHECK(res.status == GCS_ERR_NOT_TRACE || res.status == GCS_ERR_TRUNCATED);
            continue;
        }
        CHECK_EQ_INT(res.status, GCS_ERR_TRUNCATED);
        CHECK(res.err.offset <= len);
        CHECK(res.err.reason[0] != 0);
        bool at_boundary = false;
        for (size_t i = 0; i < nb; i++)
            at_boundary |= starts[i] == len;
        if (at_boundary) {
            CHECK(strstr(res.err.reason, "without an EndOfStream") != NULL);
            CHECK_EQ_U64(res.err.offset, len);
        } else if (len > 20) {
            CHECK(strstr(res.err.reason, "the input") != NULL);
        }
    }
    v6w_free_bytes(&b);
}

static void test_byte_flips(void)
{
    v6w_bytes b = synthetic_bytes(true);
    v6w_bytes u = synthetic_bytes(false);
    uint8_t *copy = malloc(b.len > u.len ? b.len : u.len);
    uint32_t seed = 12345;
    int errors = 0, runs = 0;
    for (int pass = 0; pass < 2; pass++) {
        const v6w_bytes *src = pass ? &u : &b;
        for (size_t i = 20; i < src->len; i++) {
            for (int k = 0; k < 2; k++) {
                memcpy(copy, src->data, src->len);
                seed = seed * 1103515245u + 12345u;
                uint8_t mask = (uint8_t)(k == 0 ? 0xFF : 1u << ((seed >> 16) % 8));
                copy[i] ^= mask;
                run_result res = run(copy, src->len, NULL, false);
                runs++;
                if (res.status < 0) {
                    errors++;
                    CHECK(res.err.offset <= src->len);
                    CHECK(res.err.reason[0] != 0);
                } else {
                    CHECK(res.status == GCS_END);
                }
            }
        }
    }
    CHECK(errors > 0);
    CHECK(runs > errors); /* some flips hit payload bytes and stay readable */
    free(copy);
    v6w_free_bytes(&b);
    v6w_free_bytes(&u);
}

static void test_versions(void)
{
    uint8_t d[sizeof hand_trace];
    memcpy(d, hand_trace, sizeof d);
    d[12] = 7;
    run_result res = run(d, sizeof d, NULL, false);
    CHECK_EQ_INT(res.status, GCS_ERR_UNSUPPORTED);
    CHECK(strstr(res.err.reason, "7.3") != NULL);
    CHECK_EQ_U64(res.err.offset, 12);
    d[12] = 5;
    res = run(d, sizeof d, NULL, false);
    CHECK_EQ_INT(res.status, GCS_ERR_CORRUPT);
    /* a block before the Trace block */
    memcpy(d, hand_trace, sizeof d);
    d[23] = 2;
    res = run(d, sizeof d, NULL, false);
    CHECK_EQ_INT(res.status, GCS_ERR_CORRUPT);
    CHECK_EQ_U64(res.err.offset, 20);
}

/* Builds header + Trace block + the given blocks + EndOfStream. */
static v6w_bytes with_blocks(void (*add)(v6w *w))
{
    v6w_bytes out = {0};
    v6w w;
    v6w_init(&w, v6w_to_bytes, &out, true);
    gcs_trace_info ti = {0};
    ti.pointer_size = 8;
    ti.clock_frequency = 1000;
    v6w_begin(&w, &ti);
    add(&w);
    v6w_end(&w);
    v6w_free(&w);
    return out;
}

static void add_unknown_thread_ref(v6w *w)
{
    v6w_thread(w, 1, 1, 11, NULL);
    v6w_event e = {0};
    e.metadata_id = 1;
    e.thread_index = 1;
    e.capture_index = 2; /* never declared */
    v6w_event_add(w, &e);
}

static void add_stale_label_ref(v6w *w)
{
    v6w_thread(w, 1, 1, 11, NULL);
    uint32_t l = v6w_label(w, v6w_synth_guid_a, NULL);
    v6w_flush(w);
    v6w_sequence_point(w, 0, 0, NULL, NULL, 0); /* forgets label lists */
    v6w_event e = {0};
    e.metadata_id = 1;
    e.thread_index = e.capture_index = 1;
    e.label_id = l;
    v6w_event_add(w, &e);
}

static void add_removed_thread_ref(v6w *w)
{
    v6w_thread(w, 1, 1, 11, NULL);
    v6w_remove_thread(w, 1, 0);
    v6w_event e = {0};
    e.metadata_id = 1;
    e.thread_index = e.capture_index = 1;
    v6w_event_add(w, &e);
}

static void add_flushed_thread_ref(v6w *w)
{
    v6w_thread(w, 1, 1, 11, NULL);
    v6w_sequence_point(w, 0, 1, NULL, NULL, 0); /* flag 1: forget threads */
    v6w_event e = {0};
    e.metadata_id = 1;
    e.thread_index = e.capture_index = 1;
    v6w_event_add(w, &e);
}

static void add_unknown_block(v6w *w)
{
    v6w_bytes b = {0};
    v6w_u32(&b, 0xDEADBEEF);
    v6w_block(w, 200, &b);
    v6w_free_bytes(&b);
    v6w_thread(w, 3, 1, 33, NULL);
    v6w_event e = {0};
    e.metadata_id = 1;
    e.thread_index = e.capture_index = 3;
    v6w_event_add(w, &e);
}

static void test_reference_errors(void)
{
    v6w_bytes b = with_blocks(add_unknown_thread_ref);
    run_result res = run(b.data, b.len, NULL, false);
    CHECK_EQ_INT(res.status, GCS_ERR_CORRUPT);
    CHECK(strstr(res.err.reason, "capture thread index 2") != NULL);
    CHECK(res.err.offset > 20 && res.err.offset < b.len);
    v6w_free_bytes(&b);

    b = with_blocks(add_stale_label_ref);
    res = run(b.data, b.len, NULL, false);
    CHECK_EQ_INT(res.status, GCS_ERR_CORRUPT);
    CHECK(strstr(res.err.reason, "label list 1") != NULL);
    v6w_free_bytes(&b);

    b = with_blocks(add_removed_thread_ref);
    res = run(b.data, b.len, NULL, false);
    CHECK_EQ_INT(res.status, GCS_ERR_CORRUPT);
    v6w_free_bytes(&b);

    b = with_blocks(add_flushed_thread_ref);
    res = run(b.data, b.len, NULL, false);
    CHECK_EQ_INT(res.status, GCS_ERR_CORRUPT);
    v6w_free_bytes(&b);

    recorder *rec;
    b = with_blocks(add_unknown_block);
    res = run(b.data, b.len, &rec, false);
    CHECK_EQ_INT(res.status, GCS_END);
    CHECK_EQ_U64(res.anomalies.unknown_blocks, 1);
    CHECK_EQ_U64(rec->n_anomalies, 1);
    CHECK_EQ_U64(rec->n_events, 1);
    CHECK_EQ_U64(rec->events[0].ev.tid, 33);
    CHECK_EQ_U64(rec->events[0].ev.pid, 1);
    rec_free(rec);
    v6w_free_bytes(&b);
}

/* Many threads added and removed: the table grows, and deletions keep
 * every other entry findable. */
static void add_many_threads(v6w *w)
{
    for (uint64_t i = 1; i <= 3000; i++)
        v6w_thread(w, i * 7919, 1, 100000 + i, NULL);
    v6w_flush(w);
    for (uint64_t i = 1; i <= 3000; i += 2)
        v6w_remove_thread(w, i * 7919, 0);
    v6w_event e = {0};
    e.metadata_id = 1;
    for (uint64_t i = 2; i <= 3000; i += 2) {
        e.thread_index = e.capture_index = i * 7919;
        e.sequence++;
        v6w_event_add(w, &e);
    }
}

static void test_thread_table(void)
{
    v6w_bytes b = with_blocks(add_many_threads);
    recorder *rec;
    run_result res = run(b.data, b.len, &rec, false);
    CHECK_EQ_INT(res.status, GCS_END);
    CHECK_EQ_U64(rec->n_events, 1500);
    CHECK_EQ_U64(rec->events[0].ev.tid, 100002);
    CHECK_EQ_U64(rec->events[63].ev.tid, 100128);
    rec_free(rec);
    v6w_free_bytes(&b);
}

/* Metadata rows with hand-made field descriptions. */
static v6w_bytes meta_trace(const uint8_t *row, size_t n)
{
    v6w_bytes out = {0};
    v6w w;
    v6w_init(&w, v6w_to_bytes, &out, true);
    gcs_trace_info ti = {0};
    ti.pointer_size = 8;
    ti.clock_frequency = 1000;
    v6w_begin(&w, &ti);
    v6w_bytes blk = {0};
    v6w_u16(&blk, 0);
    v6w_u16(&blk, (uint16_t)n);
    v6w_put(&blk, row, n);
    v6w_block(&w, 3, &blk);
    v6w_free_bytes(&blk);
    v6w_end(&w);
    v6w_free(&w);
    return out;
}

static void test_metadata_corners(void)
{
    /* "A": Array of Array of Int32, "B": RelLoc of UInt16; opcode 1 */
    static const uint8_t row[] = {
        1, 0, 1, 1, 'E', 2, 0,       /* id 1, provider "", event 1, "E", 2 fields */
        5, 0, 1, 'A', 19, 19, 9,     /* A: Array of Array of Int32 */
        4, 0, 1, 'B', 24, 8,         /* B: RelLoc of UInt16 */
        2, 0, 1, 0x01,               /* optional: opcode 1 */
    };
    v6w_bytes b = meta_trace(row, sizeof row);
    recorder *rec;
    run_result res = run(b.data, b.len, &rec, false);
    CHECK_EQ_INT(res.status, GCS_END);
    CHECK_EQ_U64(rec->n_meta, 1);
    const gcs_meta_def *m = &rec->meta[0];
    CHECK_EQ_U64(m->field_count, 2);
    if (m->field_count == 2) {
        CHECK_EQ_INT(m->fields[0].type, GCS_T_STRUCT);
        CHECK_EQ_INT(m->fields[0].repeat, GCS_REPEAT_U16_PREFIX);
        CHECK_EQ_U64(m->fields[0].child_count, 1);
        CHECK_EQ_INT(m->fields[0].children[0].type, GCS_T_I32);
        CHECK_EQ_INT(m->fields[0].children[0].repeat, GCS_REPEAT_U16_PREFIX);
        CHECK_EQ_INT(m->fields[1].type, GCS_T_U16);
        CHECK_EQ_INT(m->fields[1].repeat, GCS_REPEAT_RELLOC);
    }
    CHECK(m->has_opcode);
    CHECK_EQ_U64(m->opcode, 1);
    rec_free(rec);
    v6w_free_bytes(&b);

    /* unknown type code: schema dropped, identity and opcode kept */
    static const uint8_t unk[] = {
        1, 0, 1, 1, 'E', 2, 0,
        3, 0, 1, 'C', 99,
        3, 0, 1, 'D', 9,
        2, 0, 1, 0x07,
    };
    b = meta_trace(unk, sizeof unk);
    res = run(b.data, b.len, &rec, false);
    CHECK_EQ_INT(res.status, GCS_END);
    CHECK_EQ_U64(res.anomalies.schemas_dropped, 1);
    CHECK_EQ_U64(rec->meta[0].field_count, 0);
    CHECK_EQ_STR(rec->meta[0].event_name, "E");
    CHECK_EQ_U64(rec->meta[0].opcode, 7);
    rec_free(rec);
    v6w_free_bytes(&b);

    /* RelLoc of a variable-size element: corrupt */
    static const uint8_t rel[] = {1, 0, 1, 1, 'E', 1, 0, 4, 0, 1, 'R', 24, 18, 0, 0};
    b = meta_trace(rel, sizeof rel);
    res = run(b.data, b.len, NULL, false);
    CHECK_EQ_INT(res.status, GCS_ERR_CORRUPT);
    CHECK(strstr(res.err.reason, "fixed-size") != NULL);
    v6w_free_bytes(&b);

    /* structs nested beyond GCS_MAX_FIELD_DEPTH: limit */
    v6w_bytes deep = {0};
    v6w_u8(&deep, 1);
    v6w_str(&deep, "P");
    v6w_u8(&deep, 1);
    v6w_str(&deep, "E");
    /* innermost first: a field list with one Int32 */
    v6w_bytes inner = {0};
    v6w_u16(&inner, 1);
    v6w_bytes f = {0};
    v6w_str(&f, "x");
    v6w_u8(&f, 9);
    v6w_sized16(&inner, &f);
    for (int level = 0; level < GCS_MAX_FIELD_DEPTH + 1; level++) {
        v6w_bytes outer = {0};
        v6w_u16(&outer, 1);
        f.len = 0;
        v6w_str(&f, "s");
        v6w_u8(&f, 1);
        v6w_put(&f, inner.data, inner.len);
        v6w_sized16(&outer, &f);
        v6w_free_bytes(&inner);
        inner = outer;
    }
    v6w_put(&deep, inner.data, inner.len);
    v6w_u16(&deep, 0);
    b = meta_trace(deep.data, deep.len);
    res = run(b.data, b.len, NULL, false);
    CHECK_EQ_INT(res.status, GCS_ERR_LIMIT);
    CHECK(strstr(res.err.reason, "deeper") != NULL);
    v6w_free_bytes(&b);
    v6w_free_bytes(&deep);
    v6w_free_bytes(&inner);
    v6w_free_bytes(&f);

    /* a field count beyond the bytes of the row: corrupt, no allocation */
    static const uint8_t many[] = {1, 0, 1, 1, 'E', 0xFF, 0x03, 0, 0};
    b = meta_trace(many, sizeof many);
    res = run(b.data, b.len, NULL, false);
    CHECK_EQ_INT(res.status, GCS_ERR_CORRUPT);
    v6w_free_bytes(&b);
}

/* tests/data/v6/synthetic*.nettrace are this writer's output (TraceEvent's
 * reading of them is synthetic.oracle-all.txt): they must stay in step. */
static void test_committed_synthetic(void)
{
    const char *paths[2] = {TEST_DATA("v6/synthetic.nettrace"),
                            TEST_DATA("v6/synthetic-uncompressed.nettrace")};
    for (int i = 0; i < 2; i++) {
        FILE *f = fopen(paths[i], "rb");
        CHECK(f != NULL);
        if (!f)
            continue;
        uint8_t buf[4096];
        size_t n = fread(buf, 1, sizeof buf, f);
        fclose(f);
        v6w_bytes b = synthetic_bytes(i == 0);
        CHECK_EQ_U64(n, b.len);
        CHECK(n == b.len && memcmp(buf, b.data, n) == 0);
        recorder *rec;
        run_result res = run(buf, n, &rec, false);
        CHECK_EQ_INT(res.status, GCS_END);
        check_synthetic(rec);
        rec_free(rec);
        v6w_free_bytes(&b);
    }
}

/* ---- round trip through the public reader -------------------------- */

static bool same_schema(const gcs_field *a, uint32_t na, const gcs_field *b, uint32_t nb,
                        uint32_t pointer_size)
{
    if (na != nb)
        return false;
    for (uint32_t i = 0; i < na; i++) {
        gcs_type ta = a[i].type;
        if (ta == GCS_T_POINTER) /* V6 spells pointers as the machine's integer */
            ta = pointer_size == 4 ? GCS_T_U32 : GCS_T_U64;
        if (strcmp(a[i].name, b[i].name) != 0 || ta != b[i].type || a[i].repeat != b[i].repeat ||
            a[i].repeat_arg != b[i].repeat_arg)
            return false;
        if (!same_schema(a[i].children, a[i].child_count, b[i].children, b[i].child_count,
                         pointer_size))
            return false;
    }
    return true;
}

/* Converts the trace of src to V6 in memory with the writer's converter. */
static bool convert_to_v6(gcs_source *src, bool compressed, v6w_bytes *out, uint64_t *events)
{
    gcs_error err;
    gcs_error_clear(&err);
    gcs_reader *r = gcs_reader_new(src, NULL, &err);
    v6w w;
    v6w_init(&w, v6w_to_bytes, out, compressed);
    gcs_status st = v6w_convert(r, &w, events, &err);
    if (st != GCS_END)
        fprintf(stderr, "convert: %s at %llu: %s\n", gcs_status_name(st),
                (unsigned long long)err.offset, err.reason);
    bool ok = st == GCS_END && !w.failed;
    CHECK_EQ_U64(w.unmatched_names, 0);
    CHECK_EQ_U64(w.unencodable_schemas, 0);
    v6w_free(&w);
    gcs_reader_free(r);
    return ok;
}

/* Reads a and b in lockstep: the same events, field by field. Returns the
 * number of events compared, or -1 after the first difference. */
static long long compare_readers(gcs_source *sa, gcs_source *sb)
{
    gcs_error ea, eb;
    gcs_error_clear(&ea);
    gcs_error_clear(&eb);
    gcs_reader *a = gcs_reader_new(sa, NULL, &ea);
    gcs_reader *b = gcs_reader_new(sb, NULL, &eb);
    long long n = 0;
    for (;;) {
        const gcs_event *x, *y;
        gcs_status st_a = gcs_reader_next(a, &x, &ea);
        gcs_status st_b = gcs_reader_next(b, &y, &eb);
        CHECK_EQ_INT(st_a, st_b);
        if (st_a != GCS_OK || st_b != GCS_OK) {
            CHECK_EQ_INT(st_a, GCS_END);
            break;
        }
        const gcs_event_type *tx = x->type, *ty = y->type;
        bool same = strcmp(tx->provider, ty->provider) == 0 && tx->event_id == ty->event_id &&
                    tx->version == ty->version && tx->keywords == ty->keywords &&
                    tx->level == ty->level && tx->opcode == ty->opcode &&
                    strcmp(tx->name, ty->name) == 0 &&
                    tx->schema_from_trace == ty->schema_from_trace &&
                    (!tx->schema_from_trace ||
                     same_schema(tx->fields, tx->field_count, ty->fields, ty->field_count,
                                 x->pointer_size)) &&
                    x->timestamp == y->timestamp && x->pid == y->pid && x->tid == y->tid &&
                    x->capture_tid == y->capture_tid && x->processor == y->processor &&
                    x->sequence == y->sequence &&
                    memcmp(x->activity_id, y->activity_id, 16) == 0 &&
                    memcmp(x->related_activity_id, y->related_activity_id, 16) == 0 &&
                    x->payload_size == y->payload_size &&
                    (x->payload_size == 0 || memcmp(x->payload, y->payload, x->payload_size) == 0) &&
                    x->msec == y->msec;
        if (!same) {
            fprintf(stderr, "event %lld differs: %s/%s ts %lld tid %llu seq %u vs %s/%s ts %lld "
                    "tid %llu seq %u\n",
                    n, tx->provider, tx->name, (long long)x->timestamp,
                    (unsigned long long)x->tid, x->sequence, ty->provider, ty->name,
                    (long long)y->timestamp, (unsigned long long)y->tid, y->sequence);
            CHECK(same);
            n = -1;
            break;
        }
        n++;
    }
    const gcs_reader_stats *xa = gcs_reader_get_stats(a), *xb = gcs_reader_get_stats(b);
    if (n >= 0) {
        CHECK_EQ_U64(xa->events, xb->events);
        CHECK_EQ_U64(xa->lost_events, xb->lost_events);
        const gcs_trace_info *ia = gcs_reader_info(a), *ib = gcs_reader_info(b);
        CHECK(ia && ib);
        if (ia && ib) {
            CHECK_EQ_U64(ib->format_version, 6);
            CHECK_EQ_U64(ia->pid, ib->pid);
            CHECK_EQ_U64(ia->cpu_count, ib->cpu_count);
            CHECK_EQ_U64(ia->pointer_size, ib->pointer_size);
            CHECK_EQ_INT(ia->clock_frequency, ib->clock_frequency);
            CHECK_EQ_INT(ia->start_ticks, ib->start_ticks);
            CHECK_EQ_INT(ia->start_year, ib->start_year);
            CHECK_EQ_INT(ia->start_millisecond, ib->start_millisecond);
        }
    }
    gcs_reader_free(a);
    gcs_reader_free(b);
    return n;
}

static void test_round_trip_synthetic(void)
{
    for (int compressed = 0; compressed < 2; compressed++) {
        v6w_bytes orig = synthetic_bytes(compressed);
        v6w_bytes conv = {0};
        uint64_t events = 0;
        gcs_source *s = gcs_source_from_memory(orig.data, orig.len, NULL);
        CHECK(convert_to_v6(s, !compressed, &conv, &events));
        gcs_source_free(s);
        CHECK_EQ_U64(events, 8);
        gcs_source *sa = gcs_source_from_memory(orig.data, orig.len, NULL);
        gcs_source *sb = gcs_source_from_memory(conv.data, conv.len, NULL);
        CHECK_EQ_INT(compare_readers(sa, sb), 8);
        gcs_source_free(sa);
        gcs_source_free(sb);
        v6w_free_bytes(&orig);
        v6w_free_bytes(&conv);
    }
}

/* Real traces: V5 fixtures recorded from .NET, V4 traces of perfview. */
static void round_trip_file(const char *path)
{
    gcs_error err;
    gcs_error_clear(&err);
    gcs_source *probe = gcs_source_open_file(path, &err);
    if (!probe) {
        printf("skipped: round trip of %s (%s)\n", path, err.reason);
        return;
    }
    gcs_reader *r = gcs_reader_new(probe, NULL, &err);
    const gcs_event *ev;
    gcs_status st = gcs_reader_next(r, &ev, &err);
    gcs_reader_free(r);
    gcs_source_free(probe);
    if (st != GCS_OK) {
        printf("skipped: round trip of %s (the library cannot read it yet: %s)\n", path,
               err.reason);
        return;
    }
    for (int compressed = 1; compressed >= 0; compressed--) {
        v6w_bytes conv = {0};
        uint64_t events = 0;
        gcs_source *s = gcs_source_open_file(path, &err);
        CHECK(convert_to_v6(s, compressed, &conv, &events));
        gcs_source_free(s);
        CHECK(events > 0);
        gcs_source *sa = gcs_source_open_file(path, &err);
        gcs_source *sb = gcs_source_from_memory(conv.data, conv.len, NULL);
        long long n = compare_readers(sa, sb);
        CHECK_EQ_INT(n, (long long)events);
        printf("round trip %s (%s): %lld events identical, V6 %zu bytes\n", path,
               compressed ? "compressed" : "uncompressed", n, conv.len);
        gcs_source_free(sa);
        gcs_source_free(sb);
        v6w_free_bytes(&conv);
    }
}

static void test_round_trip_fixtures(void)
{
    round_trip_file(TEST_DATA("wks-nonconcurrent.nettrace"));
    round_trip_file(TEST_DATA("server.nettrace"));
    round_trip_file(TEST_DATA("objects-movement.nettrace"));
    round_trip_file(SHARED_TRACES "eventpipe-dotnetcore5.0-win-x64-arraytypes.nettrace");
    round_trip_file(SHARED_TRACES "eventpipe-dotnetcore6.0-win-x64-executioncheckpoints.nettrace");
}

int main(void)
{
    RUN(test_hand_built);
    RUN(test_synthetic_compressed);
    RUN(test_synthetic_uncompressed);
    RUN(test_trickling_source);
    RUN(test_truncation_everywhere);
    RUN(test_byte_flips);
    RUN(test_versions);
    RUN(test_reference_errors);
    RUN(test_thread_table);
    RUN(test_metadata_corners);
    RUN(test_committed_synthetic);
    RUN(test_round_trip_synthetic);
    RUN(test_round_trip_fixtures);
    return check_report("test_nettrace_v6");
}
