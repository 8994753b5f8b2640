/*
 * format/fastser.c - FastSerialization object framing for netperf V1..V3
 * and nettrace V4/V5 (see fastser.h and docs/format-nettrace.md).
 */
#include "format/fastser.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"

enum {
    TAG_NULL_REFERENCE = 1,
    TAG_BEGIN_OBJECT = 4,
    TAG_BEGIN_PRIVATE_OBJECT = 5,
    TAG_END_OBJECT = 6
};

/* Begin, Begin, NullReference, Version, MinimumReaderVersion, name length. */
#define OBJECT_HEAD_FIXED 15u
/* Longest type name of these formats is "Microsoft.DotNet.Runtime.EventPipeFile"
 * (38 bytes); anything much longer is not a FastSerialization stream of ours. */
#define MAX_TYPE_NAME 64u
/* Trace object payloads: V3+ = SystemTime(16) QPC(8) Freq(8) PointerSize
 * ProcessId NumberOfProcessors ExpectedCPUSamplingRate (4 each); V1/V2 =
 * a forward reference (4) then SystemTime, QPC, Freq. */
#define TRACE_BODY_V3 48u
#define TRACE_BODY_V1 36u
/* Blocks these readers understand: version 2 (nettrace), 1 (netperf). */
#define READER_BLOCK_VERSION 2u

static const char fast_ser_magic[24] = {20, 0, 0, 0, '!', 'F', 'a', 's', 't', 'S', 'e', 'r',
                                        'i', 'a', 'l', 'i', 'z', 'a', 't', 'i', 'o', 'n', '.', '1'};

void gcs_fs_anomaly(gcs_fs_reader *r, uint64_t offset, const char *reason)
{
    const gcs_sink *sink = r->base.sink;
    if (sink->anomaly)
        sink->anomaly(sink->ctx, offset, reason);
}

gcs_status gcs_fs_report_metadata(gcs_fs_reader *r, const gcs_meta_def *def,
                                  const gcs_error *problem, gcs_error *err)
{
    const gcs_sink *sink = r->base.sink;
    if (problem->status != GCS_OK)
        gcs_fs_anomaly(r, problem->offset, problem->reason);
    if (!sink->metadata)
        return GCS_OK;
    return sink->metadata(sink->ctx, def, err);
}

gcs_status gcs_fs_need(gcs_fs_reader *r, size_t n, uint64_t unit_start, const char *what,
                       gcs_error *err)
{
    gcs_stream *s = r->base.stream;
    gcs_status st = gcs_stream_need(s, n, err);
    if (st != GCS_END)
        return st;
    uint64_t cut = gcs_stream_offset(s) + gcs_stream_avail(s);
    return GCS_FAIL(err, GCS_ERR_TRUNCATED, cut,
                    "truncated: input ends at offset %llu inside %s that starts at %llu "
                    "(%zu bytes needed, %zu present)",
                    (unsigned long long)cut, what, (unsigned long long)unit_start, n,
                    gcs_stream_avail(s));
}

static gcs_fs_kind kind_of(const uint8_t *name, uint32_t len)
{
    static const struct {
        const char *name;
        gcs_fs_kind kind;
    } names[] = {
        {"Trace", GCS_FS_TRACE},
        {"Microsoft.DotNet.Runtime.EventPipeFile", GCS_FS_TRACE},
        {"EventBlock", GCS_FS_EVENT_BLOCK},
        {"MetadataBlock", GCS_FS_METADATA_BLOCK},
        {"StackBlock", GCS_FS_STACK_BLOCK},
        {"SPBlock", GCS_FS_SP_BLOCK},
    };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (strlen(names[i].name) == len && memcmp(names[i].name, name, len) == 0)
            return names[i].kind;
    return GCS_FS_UNKNOWN;
}

static gcs_status parse_trace_body(gcs_fs_reader *r, gcs_cursor *c, gcs_error *err)
{
    gcs_trace_info *ti = &r->info;
    memset(ti, 0, sizeof *ti);
    ti->format = r->nettrace ? GCS_FORMAT_NETTRACE : GCS_FORMAT_NETPERF;
    ti->format_version = r->version;
    uint64_t at = gcs_cur_offset(c);
    if (r->version < 3 && !gcs_cur_skip(c, 4)) /* forward reference to the end of events */
        return GCS_CORRUPT(err, at, "trace object cut short");
    uint16_t t[8];
    for (int i = 0; i < 8; i++)
        if (!gcs_cur_u16(c, &t[i]))
            return GCS_CORRUPT(err, gcs_cur_offset(c), "trace object cut short");
    /* SYSTEMTIME order: year, month, day of week, day, hour, minute, second, ms */
    ti->start_year = (int16_t)t[0];
    ti->start_month = (int16_t)t[1];
    ti->start_day = (int16_t)t[3];
    ti->start_hour = (int16_t)t[4];
    ti->start_minute = (int16_t)t[5];
    ti->start_second = (int16_t)t[6];
    ti->start_millisecond = (int16_t)t[7];
    if (!gcs_cur_i64(c, &ti->start_ticks) || !gcs_cur_i64(c, &ti->clock_frequency))
        return GCS_CORRUPT(err, gcs_cur_offset(c), "trace object cut short");
    if (ti->clock_frequency <= 0)
        return GCS_CORRUPT(err, gcs_cur_offset(c) - 8, "trace clock frequency %lld is not positive",
                           (long long)ti->clock_frequency);
    if (r->version >= 3) {
        uint32_t ptr, pid, cpus, rate;
        if (!gcs_cur_u32(c, &ptr) || !gcs_cur_u32(c, &pid) || !gcs_cur_u32(c, &cpus) ||
            !gcs_cur_u32(c, &rate))
            return GCS_CORRUPT(err, gcs_cur_offset(c), "trace object cut short");
        if (ptr != 4 && ptr != 8)
            return GCS_CORRUPT(err, gcs_cur_offset(c) - 16, "pointer size %u is neither 4 nor 8",
                               ptr);
        ti->pointer_size = ptr;
        ti->pid = pid;
        ti->cpu_count = cpus;
        ti->expected_cpu_sampling_rate = (int32_t)rate;
    } else {
        /* V1/V2 were written only by 64-bit Linux runtimes and say nothing more. */
        ti->pointer_size = 8;
    }
    return GCS_OK;
}

static gcs_status step_header(gcs_fs_reader *r, gcs_error *err)
{
    gcs_stream *s = r->base.stream;
    uint64_t at = gcs_stream_offset(s);
    gcs_status st = gcs_fs_need(r, sizeof fast_ser_magic, at, "the FastSerialization header", err);
    if (st != GCS_OK)
        return st;
    if (memcmp(gcs_stream_peek(s), fast_ser_magic, sizeof fast_ser_magic) != 0)
        return GCS_FAIL(err, GCS_ERR_NOT_TRACE, at,
                        "not a trace: no \"!FastSerialization.1\" header at offset %llu",
                        (unsigned long long)at);
    gcs_stream_consume(s, sizeof fast_ser_magic);
    r->stage = GCS_FS_STAGE_TRACE;
    return GCS_OK;
}

static gcs_status step_object(gcs_fs_reader *r, gcs_error *err)
{
    gcs_stream *s = r->base.stream;
    const gcs_sink *sink = r->base.sink;
    uint64_t at = gcs_stream_offset(s);
    gcs_status st = gcs_stream_need(s, 1, err);
    if (st == GCS_END)
        return GCS_FAIL(err, GCS_ERR_TRUNCATED, at,
                        "truncated: input ends at offset %llu without the end-of-stream tag",
                        (unsigned long long)at);
    if (st != GCS_OK)
        return st;
    const uint8_t *p = gcs_stream_peek(s);
    if (p[0] == TAG_NULL_REFERENCE && r->stage == GCS_FS_STAGE_OBJECTS) {
        gcs_stream_consume(s, 1);
        r->stage = GCS_FS_STAGE_DONE;
        return GCS_END;
    }
    uint8_t begin = r->nettrace ? TAG_BEGIN_PRIVATE_OBJECT : TAG_BEGIN_OBJECT;
    if (p[0] != begin)
        return GCS_CORRUPT(err, at, "expected an object (tag %u) or the end tag, found byte %u",
                           begin, p[0]);
    if ((st = gcs_fs_need(r, OBJECT_HEAD_FIXED, at, "an object header", err)) != GCS_OK)
        return st;
    gcs_cursor c = gcs_cur_make(gcs_stream_peek(s), gcs_stream_avail(s), at);
    uint8_t tag0 = 0, tag1 = 0, tag2 = 0;
    uint32_t version = 0, min_version = 0, name_len = 0;
    (void)(gcs_cur_u8(&c, &tag0) && gcs_cur_u8(&c, &tag1) && gcs_cur_u8(&c, &tag2) &&
           gcs_cur_u32(&c, &version) && gcs_cur_u32(&c, &min_version) &&
           gcs_cur_u32(&c, &name_len));
    if (tag1 != begin || tag2 != TAG_NULL_REFERENCE)
        return GCS_CORRUPT(err, at + 1, "object type header: expected tags %u %u, found %u %u",
                           begin, TAG_NULL_REFERENCE, tag1, tag2);
    if (name_len > MAX_TYPE_NAME)
        return GCS_CORRUPT(err, at + 11, "object type name of %u bytes (limit %u)", name_len,
                           MAX_TYPE_NAME);
    size_t head = OBJECT_HEAD_FIXED + name_len + 1;
    if ((st = gcs_fs_need(r, head, at, "an object header", err)) != GCS_OK)
        return st;
    p = gcs_stream_peek(s);
    const uint8_t *name = p + OBJECT_HEAD_FIXED;
    if (p[head - 1] != TAG_END_OBJECT)
        return GCS_CORRUPT(err, at + head - 1, "object type header: missing end tag");
    gcs_fs_kind kind = kind_of(name, name_len);

    if (kind == GCS_FS_TRACE) {
        if (r->stage != GCS_FS_STAGE_TRACE)
            return GCS_CORRUPT(err, at, "a second Trace object");
        bool ok = r->nettrace ? version == 4 : (version >= 1 && version <= 3);
        if (!ok)
            return GCS_FAIL(err, GCS_ERR_UNSUPPORTED, at + 3,
                            "%s Trace object version %u is not supported (expected %s)",
                            r->nettrace ? "nettrace" : "netperf", version,
                            r->nettrace ? "4" : "1..3");
        r->version = version;
        size_t body = version >= 3 ? TRACE_BODY_V3 : TRACE_BODY_V1;
        size_t total = head + body + (version >= 3 ? 1 : 0);
        if ((st = gcs_fs_need(r, total, at, "the Trace object", err)) != GCS_OK)
            return st;
        p = gcs_stream_peek(s);
        gcs_cursor tc = gcs_cur_make(p + head, body, at + head);
        if ((st = parse_trace_body(r, &tc, err)) != GCS_OK)
            return st;
        if (version >= 3 && p[total - 1] != TAG_END_OBJECT)
            return GCS_CORRUPT(err, at + total - 1, "Trace object: missing end tag");
        if (sink->trace && (st = sink->trace(sink->ctx, &r->info, err)) < 0)
            return st;
        gcs_stream_consume(s, total);
        /* V1/V2: the events follow inside the Trace object. */
        r->stage = version >= 3 ? GCS_FS_STAGE_OBJECTS : GCS_FS_STAGE_INLINE_EVENTS;
        return GCS_OK;
    }
    if (r->stage == GCS_FS_STAGE_TRACE)
        return GCS_CORRUPT(err, at, "the first object is \"%.*s\", not the Trace object",
                           (int)name_len, (const char *)name);
    if ((st = gcs_fs_need(r, head + 4, at, "a block object", err)) != GCS_OK)
        return st;
    p = gcs_stream_peek(s);
    uint32_t block_size = (uint32_t)p[head] | ((uint32_t)p[head + 1] << 8) |
                          ((uint32_t)p[head + 2] << 16) | ((uint32_t)p[head + 3] << 24);
    if (block_size > GCS_MAX_BLOCK_SIZE)
        return GCS_FAIL(err, GCS_ERR_LIMIT, at + head, "block of %u bytes exceeds the %zu-byte limit",
                        block_size, GCS_MAX_BLOCK_SIZE);
    uint64_t body_at = at + head + 4;
    size_t pad = (size_t)((4 - (body_at & 3)) & 3);
    body_at += pad;
    size_t total = head + 4 + pad + block_size + 1;
    if ((st = gcs_fs_need(r, total, at, "a block object", err)) != GCS_OK)
        return st;
    p = gcs_stream_peek(s);
    if (p[total - 1] != TAG_END_OBJECT)
        return GCS_CORRUPT(err, at + total - 1, "block object: missing end tag after %u bytes",
                           block_size);
    if (kind == GCS_FS_UNKNOWN) {
        gcs_fs_anomaly(r, at, "unknown object type skipped");
    } else {
        if (min_version > READER_BLOCK_VERSION)
            return GCS_FAIL(err, GCS_ERR_UNSUPPORTED, at + 7,
                            "\"%.*s\" needs a reader of version %u (this one reads %u)",
                            (int)name_len, (const char *)name, min_version, READER_BLOCK_VERSION);
        gcs_cursor body = gcs_cur_make(p + head + 4 + pad, block_size, body_at);
        if ((st = r->parse_block(r, kind, &body, err)) < 0)
            return st;
    }
    if (sink->block)
        sink->block(sink->ctx);
    gcs_stream_consume(s, total);
    return GCS_OK;
}

static gcs_status fs_step(gcs_container *base, gcs_error *err)
{
    gcs_fs_reader *r = (gcs_fs_reader *)base;
    gcs_status st;
    switch (r->stage) {
    case GCS_FS_STAGE_HEADER:
        st = step_header(r, err);
        if (st == GCS_OK)
            st = step_object(r, err);
        break;
    case GCS_FS_STAGE_TRACE:
    case GCS_FS_STAGE_OBJECTS:
        st = step_object(r, err);
        break;
    case GCS_FS_STAGE_INLINE_EVENTS:
        st = r->inline_step ? r->inline_step(r, err)
                            : GCS_CORRUPT(err, gcs_stream_offset(base->stream),
                                          "inline events in a format that has none");
        break;
    case GCS_FS_STAGE_DONE:
        return GCS_END;
    default:
        return GCS_FAIL(err, r->failure, gcs_stream_offset(base->stream),
                        "the reader stopped at an earlier error");
    }
    if (st < 0) {
        r->stage = GCS_FS_STAGE_FAILED;
        r->failure = st;
    }
    return st;
}

static void fs_destroy(gcs_container *base)
{
    gcs_fs_reader *r = (gcs_fs_reader *)base;
    if (!r)
        return;
    gcs_buf_free(&r->scratch);
    free(r);
}

static const gcs_container_ops nettrace_ops = {"nettrace-v4v5", fs_step, fs_destroy, true};
static const gcs_container_ops netperf_ops = {"netperf", fs_step, fs_destroy, false};

gcs_status gcs_fs_create(gcs_stream *s, const gcs_sink *sink, bool nettrace,
                         gcs_status (*parse_block)(gcs_fs_reader *, gcs_fs_kind, gcs_cursor *,
                                                   gcs_error *),
                         gcs_status (*inline_step)(gcs_fs_reader *, gcs_error *),
                         gcs_container **out, gcs_error *err)
{
    assert(sink && sink->meta_arena); /* metadata rows live in the sink's arena */
    *out = NULL;
    gcs_fs_reader *r = calloc(1, sizeof *r);
    if (!r)
        return GCS_FAIL(err, GCS_ERR_NOMEM, gcs_stream_offset(s), "out of memory");
    r->base.ops = nettrace ? &nettrace_ops : &netperf_ops;
    r->base.stream = s;
    r->base.sink = sink;
    r->nettrace = nettrace;
    r->stage = GCS_FS_STAGE_HEADER;
    r->parse_block = parse_block;
    r->inline_step = inline_step;
    gcs_buf_init(&r->scratch, GCS_MAX_BLOCK_SIZE);
    *out = &r->base;
    return GCS_OK;
}
