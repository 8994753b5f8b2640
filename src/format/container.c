/*
 * format/container.c - recognizes the container from its first bytes.
 *
 *   offset 0  "Nettrace" (8 bytes)
 *     then uint32 0 (Reserved)          -> nettrace V6+ (block format)
 *     then int32 20 "!FastSerialization.1" -> nettrace V4/V5
 *   offset 0  int32 20 "!FastSerialization.1" -> netperf V1..V3
 *   offset 0  a WMI buffer header whose first record (offset 72) is the
 *             logfile header event                -> ETW .etl (etl/etl.c)
 *   a folder, or a zip ("PK\3\4") with CTF members -> LTTng CTF (ctf/ctf.c)
 *
 * The "Nettrace" magic is consumed here; the serialization header and
 * everything after it is left to the version's reader.
 */
#include "format/container.h"

#include <string.h>

#include "base/error.h"
#include "format/ctf/ctf.h"
#include "format/etl/etl.h"
#include "format/profile/profile.h"

static const char nettrace_magic[8] = {'N', 'e', 't', 't', 'r', 'a', 'c', 'e'};
static const char fast_ser[20] = "!FastSerialization.1";

gcs_status gcs_container_open(gcs_stream *s, const gcs_sink *sink, gcs_container **out,
                              gcs_error *err)
{
    *out = NULL;
    /* A folder: an LTTng trace, read by babeltrace2 file by file. */
    const char *path = gcs_source_path(s->src);
    if (path && gcs_source_is_dir(s->src))
        return gcs_ctf_open_dir(s, sink, path, out, err);
    gcs_status st = gcs_stream_need(s, 8, err);
    if (st == GCS_AGAIN || st < 0)
        return st;
    if (st == GCS_END)
        return GCS_FAIL(err, GCS_ERR_NOT_TRACE, 0,
                        "not a trace: only %zu bytes, no nettrace/netperf header",
                        gcs_stream_avail(s));
    const uint8_t *p = gcs_stream_peek(s);
    if (gcs_profile_sniff(p, 8))
        return gcs_profile_open(s, sink, out, err);
    if (memcmp(p, nettrace_magic, 8) == 0) {
        st = gcs_stream_need(s, 12, err);
        if (st == GCS_AGAIN || st < 0)
            return st;
        if (st == GCS_END)
            return GCS_FAIL(err, GCS_ERR_TRUNCATED, 8,
                            "truncated: the nettrace header ends after the magic");
        p = gcs_stream_peek(s);
        uint32_t next = (uint32_t)p[8] | ((uint32_t)p[9] << 8) | ((uint32_t)p[10] << 16) |
                        ((uint32_t)p[11] << 24);
        gcs_stream_consume(s, 8);
        if (next == 0)
            return gcs_nettrace_v6_open(s, sink, out, err);
        return gcs_nettrace_v5_open(s, sink, out, err);
    }
    st = gcs_stream_need(s, 24, err);
    if (st == GCS_AGAIN || st < 0)
        return st;
    p = gcs_stream_peek(s);
    if (st == GCS_OK && p[0] == 20 && p[1] == 0 && p[2] == 0 && p[3] == 0 &&
        memcmp(p + 4, fast_ser, 20) == 0)
        return gcs_netperf_open(s, sink, out, err);
    if (st == GCS_OK) {
        st = gcs_stream_need(s, 80, err);
        if (st == GCS_AGAIN || st < 0)
            return st;
        if (st == GCS_OK && gcs_etl_sniff(gcs_stream_peek(s), gcs_stream_avail(s)))
            return gcs_etl_open(s, sink, out, err);
    }
    /* A zip holding a CTF trace (perfcollect's .trace.zip), known by its
     * members: extracted, then read as a folder. */
    p = gcs_stream_peek(s);
    if (path && gcs_stream_avail(s) >= 4 && memcmp(p, "PK\3\4", 4) == 0 &&
        gcs_ctf_zip_holds_trace(path))
        return gcs_ctf_open_zip(s, sink, path, out, err);
    return GCS_FAIL(err, GCS_ERR_NOT_TRACE, 0,
                    "not a trace: no \"Nettrace\" or \"!FastSerialization.1\" header, nor an "
                    "ETW buffer starting with the logfile header");
}

bool gcs_container_reads_archive(const char *path, const uint8_t *p, size_t n)
{
    return path && n >= 4 && memcmp(p, "PK\3\4", 4) == 0 && gcs_ctf_zip_holds_trace(path);
}

gcs_format gcs_container_sniff(const uint8_t *p, size_t n)
{
    if (n >= 12 && memcmp(p, nettrace_magic, 8) == 0)
        return GCS_FORMAT_NETTRACE;
    if (n >= 24 && p[0] == 20 && p[1] == 0 && p[2] == 0 && p[3] == 0 &&
        memcmp(p + 4, fast_ser, 20) == 0)
        return GCS_FORMAT_NETPERF;
    if (n >= 80 && gcs_etl_sniff(p, n))
        return GCS_FORMAT_ETL;
    return GCS_FORMAT_UNKNOWN;
}
