/*
 * format/ctf/ctf_names.c - the LTTng names of the runtime's events and the
 * string re-encoding their payloads need: pure functions over untrusted
 * values, fuzzed by tests/fuzz/fuzz_ctf.c.
 */
#include "format/ctf/ctf.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/error.h"
#include "base/sat_math.h"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

/* Bytes below 0x80 at the start of s (n bytes), 16 at a time where SSE2
 * is (strings of the runtime's events are ASCII: type and method names). */
static size_t ascii_prefix(const uint8_t *s, size_t n)
{
    size_t i = 0;
#if defined(__SSE2__)
    while (n - i >= 16) {
        __m128i v = _mm_loadu_si128((const __m128i *)(const void *)(s + i));
        if (_mm_movemask_epi8(v) != 0)
            break;
        i += 16;
    }
#endif
    while (i < n && s[i] < 0x80)
        i++;
    return i;
}

/* LTTng provider prefix -> the runtime's ETW provider. */
static const struct {
    const char *lttng;
    const char *provider;
} runtime_providers[] = {
    {"DotNETRuntime", "Microsoft-Windows-DotNETRuntime"},
    {"DotNETRuntimeRundown", "Microsoft-Windows-DotNETRuntimeRundown"},
    {"DotNETRuntimePrivate", "Microsoft-Windows-DotNETRuntimePrivate"},
    {"DotNETRuntimeStress", "Microsoft-Windows-DotNETRuntimeStress"},
};

bool gcs_ctf_split_name(const char *lttng_name, const char **provider, char *sym, size_t cap,
                        uint32_t *version, bool *runtime)
{
    const char *colon = strchr(lttng_name, ':');
    *provider = "";
    *version = 0;
    *runtime = false;
    if (!colon || cap == 0)
        return false;
    const char *name = colon + 1;
    size_t n = strlen(name);
    size_t plen = (size_t)(colon - lttng_name);
    for (size_t i = 0; i < sizeof runtime_providers / sizeof runtime_providers[0]; i++)
        if (strlen(runtime_providers[i].lttng) == plen &&
            memcmp(lttng_name, runtime_providers[i].lttng, plen) == 0) {
            *provider = runtime_providers[i].provider;
            *runtime = true;
        }
    if (*runtime) {
        /* "_V<digits>" at the end is the version; the symbol is before it. */
        size_t d = n;
        while (d > 0 && name[d - 1] >= '0' && name[d - 1] <= '9')
            d--;
        if (d < n && n - d <= 3 && d >= 2 && name[d - 1] == 'V' && name[d - 2] == '_') {
            uint32_t v = 0;
            for (size_t i = d; i < n; i++)
                v = v * 10 + (uint32_t)(name[i] - '0');
            *version = v;
            n = d - 2;
        }
    } else {
        /* Other providers keep their LTTng names whole. */
        *provider = NULL;
    }
    if (n >= cap)
        return false;
    memcpy(sym, name, n);
    sym[n] = '\0';
    return true;
}

/* One code point from UTF-8 at s[*i] (n bytes); an invalid sequence
 * yields U+FFFD and consumes one byte. */
static uint32_t next_code_point(const uint8_t *s, size_t n, size_t *i)
{
    uint8_t c = s[*i];
    size_t len = c < 0x80 ? 1 : (c & 0xE0) == 0xC0 ? 2 : (c & 0xF0) == 0xE0 ? 3
                                                      : (c & 0xF8) == 0xF0 ? 4 : 0;
    if (len == 0 || len > n - *i) {
        (*i)++;
        return 0xFFFD;
    }
    uint32_t cp = len == 1 ? c : len == 2 ? (c & 0x1Fu) : len == 3 ? (c & 0x0Fu) : (c & 0x07u);
    for (size_t k = 1; k < len; k++) {
        if ((s[*i + k] & 0xC0) != 0x80) {
            (*i)++;
            return 0xFFFD;
        }
        cp = (cp << 6) | (s[*i + k] & 0x3Fu);
    }
    static const uint32_t min_for_len[5] = {0, 0, 0x80, 0x800, 0x10000};
    if (cp < min_for_len[len] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) {
        (*i)++;
        return 0xFFFD;
    }
    *i += len;
    return cp;
}

gcs_status gcs_ctf_append_utf16z(gcs_buf *b, const uint8_t *s, size_t n)
{
    /* Each input byte gives at most one UTF-16 unit (a 4-byte sequence
     * gives two), so 2n + 2 bytes hold the result: reserved once, then
     * written in place (EventSource payloads are long strings). */
    if (n > (SIZE_MAX - 2) / 2)
        return GCS_ERR_LIMIT;
    gcs_status st = gcs_buf_reserve(b, 2 * n + 2);
    if (st != GCS_OK)
        return st;
    uint8_t *out = b->data + b->len;
    size_t i = 0;
    while (i < n) {
        if (s[i] < 0x80) { /* ASCII, the usual case: a run widened at once */
            size_t run = ascii_prefix(s + i, n - i), k = 0;
#if defined(__SSE2__)
            const __m128i zero = _mm_setzero_si128();
            for (; run - k >= 16; k += 16) {
                __m128i v = _mm_loadu_si128((const __m128i *)(const void *)(s + i + k));
                _mm_storeu_si128((__m128i *)(void *)(out + 2 * k), _mm_unpacklo_epi8(v, zero));
                _mm_storeu_si128((__m128i *)(void *)(out + 2 * k + 16), _mm_unpackhi_epi8(v, zero));
            }
#endif
            for (; k < run; k++) {
                out[2 * k] = s[i + k];
                out[2 * k + 1] = 0;
            }
            out += 2 * run;
            i += run;
            continue;
        }
        uint32_t cp = next_code_point(s, n, &i);
        if (cp >= 0x10000) {
            uint32_t v = cp - 0x10000;
            uint16_t hi = (uint16_t)(0xD800 + (v >> 10)), lo = (uint16_t)(0xDC00 + (v & 0x3FF));
            *out++ = (uint8_t)hi, *out++ = (uint8_t)(hi >> 8);
            *out++ = (uint8_t)lo, *out++ = (uint8_t)(lo >> 8);
        } else {
            *out++ = (uint8_t)cp, *out++ = (uint8_t)(cp >> 8);
        }
    }
    *out++ = 0;
    *out++ = 0;
    b->len = (size_t)(out - b->data);
    return GCS_OK;
}

gcs_status gcs_ctf_define_class(const gcs_sink *sink, const char *full, uint32_t metadata_id,
                                uint64_t offset, gcs_error *err)
{
    char sym[256];
    const char *provider;
    uint32_t version;
    bool runtime;
    gcs_meta_def def;
    memset(&def, 0, sizeof def);
    def.metadata_id = metadata_id;
    if (gcs_ctf_split_name(full, &provider, sym, sizeof sym, &version, &runtime)) {
        if (!provider) { /* another provider: "lttng_ust_statedump:start" */
            size_t plen = (size_t)(strchr(full, ':') - full);
            provider = gcs_arena_strndup(sink->meta_arena, full, plen);
        }
        def.provider = provider;
        def.event_name = gcs_arena_strndup(sink->meta_arena, sym, strlen(sym));
        def.version = version;
        def.id_from_name = runtime;
    } else { /* kernel events have no provider part: "sched_switch" */
        def.provider = "";
        def.event_name = gcs_arena_strndup(sink->meta_arena, full, strlen(full));
    }
    if (!def.provider || !def.event_name)
        return GCS_FAIL(err, GCS_ERR_LIMIT, offset, "CTF metadata exceeds the metadata cap");
    def.has_opcode = !runtime; /* names of other events are not Start/Stop guesses */
    return sink->metadata(sink->ctx, &def, err);
}

void gcs_ctf_names_report(gcs_ctf_names *t, const gcs_sink *sink, uint32_t pid, const char *name,
                          size_t len)
{
    if (t->has_last && pid == t->last_pid && len == t->last_len && memcmp(name, t->last, len) == 0)
        return; /* as the last call: decided already */
    t->has_last = len < sizeof t->last;
    if (t->has_last) {
        t->last_pid = pid;
        t->last_len = len;
        memcpy(t->last, name, len);
    }
    /* pid 0: no vpid in the context (the kernel trace's events). */
    if (pid == 0 || !sink->process_name)
        return;
    size_t n = 0;
    while (n < len && name[n])
        n++;
    bool blank = true;
    for (size_t i = 0; i < n && blank; i++)
        blank = name[i] == ' ' || name[i] == '\t' || name[i] == '\n' || name[i] == '\r';
    if (blank)
        return;
    if (n > GCS_CTF_PROCNAME_CAP - 1)
        n = GCS_CTF_PROCNAME_CAP - 1;
    struct gcs_ctf_pid_name *e =
        t->hit < t->n && t->v[t->hit].pid == pid ? &t->v[t->hit] : NULL;
    for (size_t i = 0; !e && i < t->n; i++)
        if (t->v[i].pid == pid)
            e = &t->v[t->hit = i];
    if (e && strlen(e->name) == n && memcmp(e->name, name, n) == 0)
        return;
    if (!e) {
        if (t->n == t->cap) {
            size_t cap = t->cap ? 2 * t->cap : 16;
            struct gcs_ctf_pid_name *v = realloc(t->v, cap * sizeof *v);
            if (!v)
                return; /* the process stays unnamed */
            t->v = v;
            t->cap = cap;
        }
        t->hit = t->n;
        e = &t->v[t->n++];
        e->pid = pid;
    }
    memcpy(e->name, name, n);
    e->name[n] = 0;
    sink->process_name(sink->ctx, pid, e->name);
}

void gcs_ctf_names_free(gcs_ctf_names *t)
{
    free(t->v);
    memset(t, 0, sizeof *t);
}

gcs_status gcs_ctf_send_info(const gcs_sink *sink, bool has_clock, uint64_t freq, int64_t off_s,
                             uint64_t off_cycles, uint64_t value, gcs_error *err)
{
    gcs_trace_info info;
    memset(&info, 0, sizeof info);
    info.format = GCS_FORMAT_CTF;
    info.format_version = 1;
    info.format_minor = 8;
    info.pointer_size = 8;
    if (has_clock) {
        info.clock_frequency = freq > INT64_MAX ? INT64_MAX : (int64_t)freq;
        info.start_ticks = (int64_t)value;
        if (freq > 0) {
            /* Seconds since the epoch, split to avoid overflow. */
            /* Saturated: the clock's offset and value are the trace's,
             * any 64-bit numbers (gmtime_r then refuses the year). */
            uint64_t cyc = off_cycles + value, whole = cyc / freq;
            int64_t secs = gcs_sat_add_i64(off_s, whole > INT64_MAX ? INT64_MAX : (int64_t)whole);
            uint64_t rem = cyc % freq;
            time_t tt = (time_t)secs;
            struct tm tm;
            if (gmtime_r(&tt, &tm)) {
                info.start_year = tm.tm_year + 1900;
                info.start_month = tm.tm_mon + 1;
                info.start_day = tm.tm_mday;
                info.start_hour = tm.tm_hour;
                info.start_minute = tm.tm_min;
                info.start_second = tm.tm_sec;
                info.start_millisecond = (int)((double)rem * 1000.0 / (double)freq);
            }
        }
    }
    return sink->trace(sink->ctx, &info, err);
}
