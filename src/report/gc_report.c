/*
 * report/gc_report.c - `gcscope stats` output: table, JSON, CSV.
 *
 * Deterministic: fixed decimals, '.' as decimal separator whatever the
 * locale, no pointers, runtimes ordered by pid. NaN/infinite values are
 * null in JSON, empty in CSV and "-" in tables. Schema: docs/gc-stats.md.
 */
#include <assert.h>
#include <math.h>
#include <stdio.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "gcscope/finalized.h"
#include "gcscope/gc.h"
#include "report/csv.h"
#include "report/json.h"
#include "report/fast_number.h"
#include "report/format_fixed.h"
#include "report/runtime_note.h"

#define DEC 6 /* decimals of ms, MB and % in JSON and CSV */

/* printf("%.*f") with '.' whatever LC_NUMERIC says, and no "-0.000";
 * returns the text's length (empty for NaN and infinities). */
static size_t fixed_len(char *buf, size_t cap, double v, int decimals)
{
    if (!isfinite(v)) {
        buf[0] = 0;
        return 0;
    }
    /* The usual value straight from gcs_put_fixed (it needs 40 bytes):
     * no wrapper, and no "-0" to look for. */
    if (cap >= 40 && !signbit(v) && decimals >= 0) {
        char *end = gcs_put_fixed(buf, v, (unsigned)decimals);
        if (end) {
            *end = 0;
            return (size_t)(end - buf);
        }
    }
    size_t len = gcs_format_fixed_len(buf, cap, v, decimals);
    /* "-0.000000" -> "0.000000" */
    if (buf[0] == '-') {
        bool zero = true;
        for (const char *p = buf + 1; *p; p++)
            if (*p != '0' && *p != '.')
                zero = false;
        if (zero)
            memmove(buf, buf + 1, len--);
    }
    return len;
}

static const char *fixed(char *buf, size_t cap, double v, int decimals)
{
    fixed_len(buf, cap, v, decimals);
    return buf;
}

static void json_num(FILE *f, double v)
{
    char b[64];
    if (!isfinite(v))
        fputs("null", f);
    else
        fputs(fixed(b, sizeof b, v, DEC), f);
}


/* A record's text built in memory and written with one fwrite: a per-GC
 * JSON object or CSV row took ~40 stdio calls (fprintf among them), some
 * 31,000 and 16,000 instructions a GC. */
typedef struct text_out {
    FILE *f;
    size_t len;
    char buf[4096];
} text_out;

/* (Not an initializer: that would clear the 4 KB buffer each record.) */
static void out_begin(text_out *o, FILE *f)
{
    o->f = f;
    o->len = 0;
}

static void out_flush(text_out *o)
{
    if (o->len)
        fwrite(o->buf, 1, o->len, o->f);
    o->len = 0;
}

/* Where n more bytes go (n <= sizeof o->buf); the caller adds what it
 * wrote to o->len. */
static char *out_room(text_out *o, size_t n)
{
    if (sizeof o->buf - o->len < n)
        out_flush(o);
    return o->buf + o->len;
}

static void out_mem(text_out *o, const char *s, size_t n)
{
    if (n > sizeof o->buf) {
        out_flush(o);
        fwrite(s, 1, n, o->f);
        return;
    }
    memcpy(out_room(o, n), s, n);
    o->len += n;
}

static void out_str(text_out *o, const char *s) { out_mem(o, s, strlen(s)); }

#define OUT_LIT(o, lit) out_mem((o), (lit), sizeof(lit) - 1)

static void out_u64(text_out *o, uint64_t v)
{
    char *p = out_room(o, GCS_U64_TEXT_MAX + 1);
    o->len += (size_t)(gcs_put_u64(p, v) - p);
}

static void out_i64(text_out *o, int64_t v)
{
    char *p = out_room(o, GCS_U64_TEXT_MAX + 1);
    o->len += (size_t)(gcs_put_i64(p, v) - p);
}

/* fixed(v) into a 64-byte cell, as json_num and csv_num print it (the
 * same cut for the rare value longer than that). */
static void out_fixed(text_out *o, double v, int decimals)
{
    char *p = out_room(o, 64);
    o->len += fixed_len(p, 64, v, decimals);
}

/* json_num. */
static void out_json_num(text_out *o, double v)
{
    if (!isfinite(v))
        OUT_LIT(o, "null");
    else
        out_fixed(o, v, DEC);
}

/* gcs_json_string into the record buffer. */
static void out_json_str(text_out *o, const char *s)
{
    static const char hex[] = "0123456789abcdef";
    OUT_LIT(o, "\"");
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        char *w = out_room(o, 6);
        if (*p == '"' || *p == '\\') {
            w[0] = '\\';
            w[1] = (char)*p;
            o->len += 2;
        } else if (*p < 0x20) {
            memcpy(w, "\\u00", 4);
            w[4] = hex[*p >> 4];
            w[5] = hex[*p & 15];
            o->len += 6;
        } else {
            w[0] = (char)*p;
            o->len++;
        }
    }
    OUT_LIT(o, "\"");
}

/* snprintf(buf, cap, "%s%s..") of n strings without printf (~1,000
 * instructions a cell of the per-GC table through printf). */
static char *join_text(char *buf, size_t cap, const char *const *parts, size_t n)
{
    size_t len = 0;
    for (size_t i = 0; i < n && len + 1 < cap; i++) {
        size_t k = strlen(parts[i]);
        if (k > cap - 1 - len)
            k = cap - 1 - len;
        memcpy(buf + len, parts[i], k);
        len += k;
    }
    if (cap)
        buf[len] = 0;
    return buf;
}

static const char *reason_text(uint32_t reason, char *buf, size_t cap)
{
    const char *n = gcs_gc_reason_name(reason);
    if (n)
        return n;
    snprintf(buf, cap, "%u", reason);
    return buf;
}

/* A reason later runtimes may add shows as "reason N". */
static const char *compact_reason_text(int reason, char *buf, size_t cap)
{
    const char *n = gcs_gc_compact_reason_name((uint32_t)reason);
    if (n)
        return n;
    snprintf(buf, cap, "reason %d", reason);
    return buf;
}

static const char *type_text(uint32_t type, char *buf, size_t cap)
{
    const char *n = gcs_gc_type_name(type);
    if (n)
        return n;
    snprintf(buf, cap, "%u", type);
    return buf;
}

/* PerfView's "Gen" column: generation, N/B/F, and I (induced) or i (not
 * forced); returns its length (buf: at least 16 bytes). */
static size_t gen_text_len(const gcs_gc_info *gc, char *buf, size_t cap)
{
    assert(cap >= GCS_U64_TEXT_MAX / 2 + 3); /* a uint32_t, two letters, NUL */
    char *w = gcs_put_u64(buf, gc->generation);
    *w++ = gc->type == GCS_GC_BACKGROUND ? 'B' : gc->type == GCS_GC_FOREGROUND ? 'F' : 'N';
    if (gc->reason == 1)
        *w++ = 'I';
    else if (gc->reason == 7)
        *w++ = 'i';
    *w = 0;
    return (size_t)(w - buf);
}

static const char *gen_text(const gcs_gc_info *gc, char *buf, size_t cap)
{
    gen_text_len(gc, buf, cap);
    return buf;
}

/* The time a GC is placed at: its pause start (the table's first time),
 * or GCStart when the pause start is unknown. */
static double gc_time_ms(const gcs_gc_info *gc)
{
    return isfinite(gc->pause_start_ms) ? gc->pause_start_ms : gc->start_ms;
}

/* Induced, InducedNotForced, InducedLowMemory, InducedCompacting,
 * InducedAggressive: a GC the program (or the host) asked for. */
static bool induced_reason(uint32_t reason)
{
    return reason == 1 || reason == 7 || reason == 9 || reason == 10 || reason == 17;
}

static bool filter_active(const gcs_gc_filter *f)
{
    return f->gen_mask || f->kind_mask || f->induced || f->has_min_pause || f->has_from ||
           f->has_to || f->top || f->limit;
}

bool gcs_gc_filter_match(const gcs_gc_filter *f, const gcs_gc_info *gc)
{
    if (f->gen_mask && (gc->generation > 2 || !(f->gen_mask & (1u << gc->generation))))
        return false;
    if (f->kind_mask && (gc->type > 2 || !(f->kind_mask & (1u << gc->type))))
        return false;
    if (f->induced && !induced_reason(gc->reason))
        return false;
    if (f->has_min_pause && !(gc->is_complete && gc->pause_ms >= f->min_pause_ms))
        return false;
    double t = gc_time_ms(gc);
    if (f->has_from && !(t >= f->from_ms))
        return false;
    if (f->has_to && !(t < f->to_ms))
        return false;
    return true;
}

/* The GCs of one runtime as the report reads them: p->gcs, or when the
 * analyzer spilled them (gcs_gc_options.spill_gcs) read back from its file
 * 512 at a time; each section reads them in order, so a chunk is read
 * once a pass. A record that cannot be read back reads as zeros and the
 * report fails (gcs_gc_report_write returns -1). */
enum { GC_LIST_CHUNK = 512 }; /* 250 KB: the analyzer's largest chunk */
typedef struct gc_list {
    const gcs_gc_analyzer *an;
    const gcs_gc_process *p;
    size_t first, n; /* chunk holds GCs first .. first + n - 1 */
    bool failed;
    gcs_gc_info chunk[GC_LIST_CHUNK];
} gc_list;

/* A list in one 2 MiB page (gcs_big_resize): one page fault, not 60 for
 * the chunk's 250 KB of fresh memory. NULL when memory is short. */
static gc_list *gc_list_new(void)
{
    _Static_assert(sizeof(gc_list) <= GCS_BIG_BYTES, "a list fits its page");
    return gcs_big_resize(NULL, 0, GCS_BIG_BYTES);
}

static void gc_list_free(gc_list *l) { gcs_big_free(l, GCS_BIG_BYTES); }

static void gc_list_begin(gc_list *l, const gcs_gc_analyzer *an, const gcs_gc_process *p)
{
    l->an = an;
    l->p = p;
    l->first = l->n = 0;
}

/* GC i of the runtime (i < p->gc_count); valid until the next call. */
static const gcs_gc_info *gc_at(gc_list *l, size_t i)
{
    if (l->p->gcs)
        return &l->p->gcs[i];
    if (i < l->first || i - l->first >= l->n) {
        /* In order (the next chunks, or the first): a chunk; a jump (the
         * rows of --top, longest first): that GC alone. */
        bool forward = l->n == 0 ? i < GC_LIST_CHUNK
                                 : i >= l->first && i - l->first < 2 * GC_LIST_CHUNK;
        l->first = forward ? i - i % GC_LIST_CHUNK : i;
        l->n = gcs_gc_process_gcs(l->an, l->p, l->first, l->chunk, forward ? GC_LIST_CHUNK : 1);
        if (i - l->first >= l->n) {
            static const gcs_gc_info unread;
            l->failed = true;
            l->n = 0;
            return &unread;
        }
    }
    return &l->chunk[i - l->first];
}

typedef struct ranked_gc {
    double pause_ms;
    size_t index;
    int reason_len; /* of its reason text: the table's column width */
} ranked_gc;

/* Longest pause first; equal pauses in GC order. */
static int by_pause_desc(const void *a, const void *b)
{
    const ranked_gc *x = a, *y = b;
    if (x->pause_ms != y->pause_ms)
        return x->pause_ms > y->pause_ms ? -1 : 1;
    return x->index < y->index ? -1 : x->index > y->index;
}

/*
 * The GCs of p the filter selects, as indexes into p->gcs in the order they
 * are shown (GC order; with top, longest pause first). Returns how many
 * (then *out is malloc'ed, or NULL with none or with no filter: all of
 * them, in order), or -1 on out-of-memory. *reason_width: the longest
 * reason text of those selected (0 with no filter: the scan's), so that
 * the table needs no second read of the rows --top ranks out of order.
 */
static long select_gcs(gc_list *gl, const gcs_gc_filter *f, size_t **out, int *reason_width)
{
    const gcs_gc_process *p = gl->p;
    *out = NULL;
    *reason_width = 0;
    if (p->gc_count == 0)
        return 0;
    /* No filter: every GC in order, which callers take from a NULL list. */
    if (!filter_active(f))
        return (long)p->gc_count;
    ranked_gc *r = malloc(p->gc_count * sizeof *r);
    if (!r)
        return -1;
    size_t n = 0;
    for (size_t i = 0; i < p->gc_count; i++) {
        const gcs_gc_info *gc = gc_at(gl, i);
        if (!gcs_gc_filter_match(f, gc))
            continue;
        /* Top ranks the pauses that are known. */
        if (f->top && !(gc->is_complete && isfinite(gc->pause_ms)))
            continue;
        char rb[32];
        r[n].pause_ms = gc->pause_ms;
        r[n].index = i;
        r[n].reason_len = (int)strlen(reason_text(gc->reason, rb, sizeof rb));
        n++;
    }
    if (f->top) {
        qsort(r, n, sizeof *r, by_pause_desc);
        if (n > f->top)
            n = f->top;
    }
    if (f->limit && n > f->limit)
        n = f->limit;
    if (n == 0) {
        free(r);
        return 0;
    }
    size_t *idx = malloc(n * sizeof *idx);
    if (!idx) {
        free(r);
        return -1;
    }
    for (size_t k = 0; k < n; k++) {
        idx[k] = r[k].index;
        if (r[k].reason_len > *reason_width)
            *reason_width = r[k].reason_len;
    }
    free(r);
    *out = idx;
    return (long)n;
}

/* "gen 2, background, pause >= 10 ms, ..." (what the filter asks). */
static const char *filter_text(const gcs_gc_filter *f, char *buf, size_t cap)
{
    size_t len = 0;
    buf[0] = 0;
#define ADD(...)                                                                         \
    do {                                                                                 \
        if (len < cap) {                                                                 \
            int w_ = snprintf(buf + len, cap - len, "%s", len ? ", " : "");              \
            len += w_ > 0 ? (size_t)w_ : 0;                                              \
        }                                                                                \
        if (len < cap) {                                                                 \
            int w_ = snprintf(buf + len, cap - len, __VA_ARGS__);                        \
            len += w_ > 0 ? (size_t)w_ : 0;                                              \
        }                                                                                \
    } while (0)
    char a[64];
    if (f->gen_mask) {
        char g[16] = "";
        for (int k = 0; k < 3; k++)
            if (f->gen_mask & (1u << k))
                snprintf(g + strlen(g), sizeof g - strlen(g), "%s%d", g[0] ? "|" : "", k);
        ADD("gen %s", g);
    }
    if (f->kind_mask) {
        static const char *const kinds[3] = {"blocking", "background", "foreground"};
        char k[48] = "";
        for (int t = 0; t < 3; t++)
            if (f->kind_mask & (1u << t))
                snprintf(k + strlen(k), sizeof k - strlen(k), "%s%s", k[0] ? "|" : "", kinds[t]);
        ADD("kind %s", k);
    }
    if (f->induced)
        ADD("induced");
    if (f->has_min_pause)
        ADD("pause >= %s ms", gcs_format_fixed(a, sizeof a, f->min_pause_ms, 3));
    if (f->has_from)
        ADD("from %s ms", gcs_format_fixed(a, sizeof a, f->from_ms, 3));
    if (f->has_to)
        ADD("to %s ms", gcs_format_fixed(a, sizeof a, f->to_ms, 3));
    if (f->top)
        ADD("top %zu pauses", f->top);
    if (f->limit)
        ADD("limit %zu", f->limit);
#undef ADD
    return buf;
}

static double long_pause_ms(const gcs_gc_report_options *o)
{
    return o->long_pause_ms > 0 ? o->long_pause_ms : 200.0;
}

/* Complete GCs whose pause exceeds the long-pause threshold. */
static bool is_long_pause(const gcs_gc_info *gc, double threshold_ms)
{
    return gc->is_complete && isfinite(gc->pause_ms) && gc->pause_ms > threshold_ms;
}

/* What the sections before the per-GC list read of every GC, in one pass
 * over them (spilled GCs are read back once for it): how many GCs carry
 * condemned reasons (a GCGlobalHeapHistory) and per group how many of
 * them name it, the long pauses, and the longest reason text. */
typedef struct gc_scan {
    uint32_t counts[GCS_GC_CONDEMNED_GROUPS];
    uint32_t with;
    size_t *long_gcs; /* indexes of the long pauses, in order (malloc'ed) */
    size_t n_long, cap_long;
    int reason_width;     /* the longest reason text of all GCs */
    int sel_reason_width; /* of the GCs a filter selects (select_gcs) */
} gc_scan;

/* False on out-of-memory. */
static bool scan_gcs(gc_list *gl, double threshold, gc_scan *sc)
{
    memset(sc, 0, sizeof *sc);
    for (size_t i = 0; i < gl->p->gc_count; i++) {
        const gcs_gc_info *gc = gc_at(gl, i);
        char rb[32];
        int len = (int)strlen(reason_text(gc->reason, rb, sizeof rb));
        if (len > sc->reason_width)
            sc->reason_width = len;
        if (is_long_pause(gc, threshold)) {
            if (!gcs_array_reserve((void **)&sc->long_gcs, &sc->cap_long, sc->n_long + 1,
                                   sizeof *sc->long_gcs, 16))
                return false; /* the caller frees long_gcs */
            sc->long_gcs[sc->n_long++] = i;
        }
        if (!gc->has_global_history)
            continue;
        sc->with++;
        for (uint32_t g = 0; g < GCS_GC_CONDEMNED_GROUPS; g++)
            if (gc->condemned_reasons & (1u << g))
                sc->counts[g]++;
    }
    return true;
}

/* PerfView's "Alloc MB/MSec GC": the runtime's total allocation over the
 * row's total pause (every row divides the ALL allocation, as TraceEvent). */
static double alloc_per_pause(const gcs_gc_process *p, const gcs_gc_rollup *row)
{
    return row->total_pause_ms > 0 ? p->all.total_allocated_mb / row->total_pause_ms : NAN;
}

static const char *fact_command_line(const gcs_gc_report_options *o, uint32_t pid)
{
    return o->command_line ? o->command_line(o->facts_ctx, pid) : NULL;
}

static const char *fact_process_name(const gcs_gc_report_options *o, uint32_t pid)
{
    return o->process_name ? o->process_name(o->facts_ctx, pid) : NULL;
}

static int64_t fact_finalizers(const gcs_gc_report_options *o, uint32_t pid)
{
    return o->finalizers_run ? o->finalizers_run(o->facts_ctx, pid) : -1;
}

/* Runtimes that ran no GC while traced have nothing to report (a table of
 * zeros and "Heap count -1" would look like measurements). */
static bool wanted(const gcs_gc_process *p, const gcs_gc_report_options *o)
{
    return (!o->filter_pid || p->pid == o->pid) &&
           (!o->select_process || o->select_process(o->facts_ctx, p->pid)) && p->gc_count > 0;
}

/* ------------------------------------------------------------------ JSON */

static void json_rollup(FILE *f, const char *row, const gcs_gc_process *p, const gcs_gc_rollup *r)
{
    fputs("        {\"generation\": ", f);
    gcs_json_string(f, row);
    fprintf(f, ", \"count\": %u, \"max_pause_ms\": ", r->count);
    json_num(f, r->max_pause_ms);
    fputs(", \"max_peak_mb\": ", f);
    json_num(f, r->max_size_peak_mb);
    fputs(", \"max_alloc_rate_mb_s\": ", f);
    json_num(f, r->max_alloc_rate_mb_s);
    fputs(", \"total_pause_ms\": ", f);
    json_num(f, r->total_pause_ms);
    fputs(", \"total_allocated_mb\": ", f);
    json_num(f, r->total_allocated_mb);
    fputs(", \"mean_pause_ms\": ", f);
    json_num(f, r->mean_pause_ms);
    fputs(", \"alloc_mb_per_msec_gc\": ", f);
    json_num(f, alloc_per_pause(p, r));
    /* TraceEvent divides the promoted MB by the GC CPU time, which an
     * EventPipe trace does not carry. */
    fputs(", \"survived_mb_per_msec_gc\": null", f);
    fprintf(f, ", \"induced\": %u}", r->num_induced);
}

static void json_pct(FILE *f, const char *name, const gcs_gc_percentiles *p, bool last)
{
    fprintf(f, "        \"%s\": {\"count\": %u, \"p50\": ", name, p->count);
    json_num(f, p->p50);
    fputs(", \"p90\": ", f);
    json_num(f, p->p90);
    fputs(", \"p99\": ", f);
    json_num(f, p->p99);
    fputs(", \"max\": ", f);
    json_num(f, p->max);
    fprintf(f, "}%s\n", last ? "" : ",");
}

static void out_json_arr(text_out *o, const double *v, int n)
{
    OUT_LIT(o, "[");
    for (int g = 0; g < n; g++) {
        if (g)
            OUT_LIT(o, ", ");
        out_json_num(o, v[g]);
    }
    OUT_LIT(o, "]");
}

static void json_gc(FILE *f, const gcs_gc_info *gc, bool last)
{
    text_out o;
    out_begin(&o, f);
    char b[32];
    OUT_LIT(&o, "        {\"number\": ");
    out_i64(&o, gc->number);
    OUT_LIT(&o, ", \"generation\": ");
    out_u64(&o, gc->generation);
    OUT_LIT(&o, ", \"type\": ");
    out_json_str(&o, type_text(gc->type, b, sizeof b));
    OUT_LIT(&o, ", \"reason\": ");
    out_json_str(&o, reason_text(gc->reason, b, sizeof b));
    /* Each key with its separators: ", \"key\": ". */
    static const char *const keys[] = {
        ", \"start_ms\": ", ", \"pause_start_ms\": ", ", \"pause_ms\": ",
        ", \"suspend_ms\": ", ", \"duration_ms\": ", ", \"pause_time_pct\": ",
        ", \"heap_size_before_mb\": ", ", \"heap_size_after_mb\": ",
        ", \"heap_size_peak_mb\": ", ", \"ratio_peak_after\": ", ", \"promoted_mb\": "};
    double vals[] = {gc->start_ms, gc->pause_start_ms, gc->pause_ms, gc->suspend_ms,
                     gc->duration_ms, gc->pause_time_pct, gc->heap_size_before_mb,
                     gc->heap_size_after_mb, gc->heap_size_peak_mb, gc->ratio_peak_after,
                     gc->promoted_mb};
    for (size_t k = 0; k < sizeof vals / sizeof vals[0]; k++) {
        out_str(&o, keys[k]);
        out_json_num(&o, vals[k]);
    }
    OUT_LIT(&o, ", \"gen_size_before_mb\": ");
    out_json_arr(&o, gc->gen_size_before_mb, GCS_GEN_COUNT);
    OUT_LIT(&o, ", \"gen_size_after_mb\": ");
    out_json_arr(&o, gc->gen_size_after_mb, GCS_GEN_COUNT);
    OUT_LIT(&o, ", \"survival_pct\": ");
    out_json_arr(&o, gc->survival_pct, GCS_GEN_COUNT);
    OUT_LIT(&o, ", \"fragmentation_pct\": ");
    out_json_arr(&o, gc->fragmentation_pct, GCS_GEN_COUNT);
    OUT_LIT(&o, ", \"allocated_since_last_gc_mb\": ");
    out_json_num(&o, gc->allocated_since_last_gc_mb);
    OUT_LIT(&o, ", \"gen0_allocated_mb\": ");
    out_json_num(&o, gc->user_allocated_mb[0]);
    OUT_LIT(&o, ", \"alloc_rate_mb_s\": ");
    out_json_num(&o, gc->alloc_rate_mb_s);
    OUT_LIT(&o, ", \"alloc_tick_mb\": ");
    out_json_arr(&o, gc->alloc_tick_mb, 3);
    OUT_LIT(&o, ", \"duration_since_last_restart_ms\": ");
    out_json_num(&o, gc->duration_since_last_restart_ms);
    OUT_LIT(&o, ", \"finalization_promoted_mb\": ");
    out_json_num(&o, gc->finalization_promoted_mb);
    if (gc->finalization_promoted_implausible)
        OUT_LIT(&o, ", \"finalization_promoted_implausible\": true");
    OUT_LIT(&o, ", \"pinned_objects\": ");
    out_u64(&o, gc->pinned_objects);
    OUT_LIT(&o, ", \"heaps\": ");
    if (gc->num_heaps >= 0)
        out_u64(&o, (uint64_t)gc->num_heaps);
    else
        OUT_LIT(&o, "null");
    if (gc->compacting < 0)
        OUT_LIT(&o, ", \"compacting\": null");
    else if (gc->compacting)
        OUT_LIT(&o, ", \"compacting\": true");
    else
        OUT_LIT(&o, ", \"compacting\": false");
    OUT_LIT(&o, ", \"compact_reason\": ");
    if (gc->compact_reason >= 0) {
        char rb[32];
        out_json_str(&o, compact_reason_text(gc->compact_reason, rb, sizeof rb));
    } else {
        OUT_LIT(&o, "null");
    }
    OUT_LIT(&o, ", \"condemned_reasons\": [");
    bool first = true;
    for (uint32_t g = 0; g < GCS_GC_CONDEMNED_GROUPS; g++) {
        if (!(gc->condemned_reasons & (1u << g)))
            continue;
        if (!first)
            OUT_LIT(&o, ", ");
        first = false;
        out_json_str(&o, gcs_gc_condemned_group_name(g));
    }
    if (gc->is_complete)
        OUT_LIT(&o, "], \"is_complete\": true");
    else
        OUT_LIT(&o, "], \"is_complete\": false");
    if (!gc->is_complete) {
        OUT_LIT(&o, ", \"incomplete_reason\": ");
        out_json_str(&o, gcs_gc_incomplete_name(gc->incomplete_reason));
    }
    if (last)
        OUT_LIT(&o, "}\n");
    else
        OUT_LIT(&o, "},\n");
    out_flush(&o);
}

/* Finalized objects by type (o->finalized; docs/gc-stats.md): TraceEvent's
 * rows, the type ids behind its "" row with the names found elsewhere. */
static void json_finalized(FILE *f, const gcs_gc_report_options *o, uint32_t pid)
{
    if (!o->finalized)
        return;
    const gcs_finalized_process *fp = gcs_finalized_find(o->finalized, pid);
    fprintf(f, ",\n      \"finalized_objects\": {\"objects\": %llu, \"private_objects\": %llu, \"types\": [",
            (unsigned long long)(fp ? fp->objects : 0),
            (unsigned long long)(fp ? fp->private_objects : 0));
    for (size_t i = 0; fp && i < fp->type_count; i++) {
        const gcs_finalized_type *t = &fp->types[i];
        fputs(i ? ", {\"name\": " : "{\"name\": ", f);
        gcs_json_string(f, t->name);
        fprintf(f, ", \"count\": %llu", (unsigned long long)t->count);
        if (!t->name[0]) {
            fputs(", \"type_ids\": [", f);
            for (size_t k = 0; k < fp->unnamed_count; k++) {
                const gcs_finalized_unnamed *u = &fp->unnamed[k];
                fprintf(f, "%s{\"type_id\": %llu, \"count\": %llu, \"name\": ", k ? ", " : "",
                        (unsigned long long)u->type_id, (unsigned long long)u->count);
                if (u->name)
                    gcs_json_string(f, u->name);
                else
                    fputs("null", f);
                fputs(", \"name_from\": ", f);
                gcs_json_string(f, gcs_finalized_name_source_name(u->source));
                fputc('}', f);
            }
            fputc(']', f);
        }
        fputc('}', f);
    }
    fputs("], \"private_types\": [", f);
    for (size_t i = 0; fp && i < fp->private_type_count; i++) {
        fputs(i ? ", {\"name\": " : "{\"name\": ", f);
        gcs_json_string(f, fp->private_types[i].name);
        fprintf(f, ", \"count\": %llu}", (unsigned long long)fp->private_types[i].count);
    }
    fputs("]}", f);
}

static void json_process(FILE *f, gc_list *gl, const gc_scan *sc, const gcs_gc_report_options *o,
                         const size_t *sel, long n_sel, bool last)
{
    const gcs_gc_process *p = gl->p;
    fprintf(f, "    {\n      \"pid\": %u,\n      \"clr_instance_id\": %u,\n      \"runtime_version\": ",
            p->pid, (unsigned)p->clr_instance_id);
    if (p->runtime_version[0])
        gcs_json_string(f, p->runtime_version);
    else
        fputs("null", f);
    fputs(",\n      \"runtime_sku\": ", f);
    fputs(p->runtime_sku == 1 ? "\"DesktopClr\"" : p->runtime_sku == 2 ? "\"CoreClr\"" : "null", f);
    if (p->native_aot) /* only then: other reports keep their keys */
        fputs(",\n      \"native_aot\": true", f);
    const char *pname = fact_process_name(o, p->pid);
    if (pname) {
        /* Only when known (ETL kernel events): EventPipe reports keep
         * their keys. */
        fputs(",\n      \"process_name\": ", f);
        gcs_json_string(f, pname);
    }
    fputs(",\n      \"command_line\": ", f);
    const char *cmdline = fact_command_line(o, p->pid);
    if (cmdline)
        gcs_json_string(f, cmdline);
    else
        fputs("null", f);
    int64_t finalizers = fact_finalizers(o, p->pid);
    if (finalizers >= 0)
        fprintf(f, ",\n      \"finalizers_run\": %lld", (long long)finalizers);
    else
        fputs(",\n      \"finalizers_run\": null", f);
    json_finalized(f, o, p->pid);
    fputs(",\n      \"gc_mode\": ", f);
    gcs_json_string(f, p->gc_mode);
    fprintf(f, ",\n      \"gc_mode_inferred\": %s", p->gc_mode_inferred ? "true" : "false");
    fprintf(f, ",\n      \"concurrent\": %s,\n      \"concurrent_inferred\": %s",
            p->concurrent < 0 ? "null" : p->concurrent ? "true" : "false",
            p->concurrent_inferred ? "true" : "false");
    fprintf(f, ",\n      \"heap_count\": %d, \"min_heap_count\": %d, \"max_heap_count\": %d,\n",
            p->heap_count, p->min_heap_count, p->max_heap_count);

    fputs("      \"summary\": {\"trace_duration_ms\": ", f);
    json_num(f, p->last_event_ms - p->first_event_ms);
    fputs(", \"total_allocated_mb\": ", f);
    json_num(f, p->all.total_allocated_mb);
    fprintf(f, ", \"gc_count\": %u, \"incomplete_gc_count\": %llu, \"total_pause_ms\": ",
            p->all.count, (unsigned long long)p->problems.incomplete_gcs);
    json_num(f, p->all.total_pause_ms);
    fputs(", \"max_pause_ms\": ", f);
    json_num(f, p->all.max_pause_ms);
    fputs(", \"mean_pause_ms\": ", f);
    json_num(f, p->all.mean_pause_ms);
    fputs(", \"max_suspend_ms\": ", f);
    json_num(f, p->all.max_suspend_ms);
    fputs(", \"pause_time_pct_of_trace\": ", f);
    json_num(f, p->pause_time_pct_of_trace);
    fputs(", \"traceevent_pause_time_pct\": ", f);
    json_num(f, p->pause_time_pct);
    fputs(", \"traceevent_process_duration_ms\": ", f);
    json_num(f, p->process_duration_ms);
    fputs(", \"max_heap_size_mb\": ", f);
    json_num(f, p->all.max_size_peak_mb);
    fputs(", \"total_promoted_mb\": ", f);
    json_num(f, p->all.total_promoted_mb);
    fputs(", \"max_alloc_rate_mb_s\": ", f);
    json_num(f, p->all.max_alloc_rate_mb_s);
    fprintf(f, ", \"induced\": %u},\n", p->all.num_induced);

    fputs("      \"generations\": [\n", f);
    json_rollup(f, "all", p, &p->all);
    for (int g = 0; g < 3; g++) {
        char row[16];
        snprintf(row, sizeof row, "%d", g);
        fputs(",\n", f);
        json_rollup(f, row, p, &p->gen[g]);
    }
    fputs("\n      ],\n      \"percentiles\": {\n", f);
    json_pct(f, "gen0", &p->pct_gen[0], false);
    json_pct(f, "gen1", &p->pct_gen[1], false);
    json_pct(f, "gen2", &p->pct_gen[2], false);
    json_pct(f, "blocking", &p->pct_kind[GCS_GC_NONCONCURRENT], false);
    json_pct(f, "background", &p->pct_kind[GCS_GC_BACKGROUND], false);
    json_pct(f, "foreground", &p->pct_kind[GCS_GC_FOREGROUND], false);
    json_pct(f, "all", &p->pct_all, false);
    fputs("        \"histogram\": [", f);
    for (int b = 0; b < GCS_GC_HIST_BUCKETS; b++) {
        fputs(b ? ", {\"below_ms\": " : "{\"below_ms\": ", f);
        if (b < GCS_GC_HIST_BUCKETS - 1)
            json_num(f, gcs_gc_hist_bounds_ms[b]);
        else
            fputs("null", f);
        fprintf(f, ", \"count\": %llu}", (unsigned long long)p->histogram[b]);
    }
    fputs("]\n      },\n", f);

    const gcs_gc_problems *q = &p->problems;
    fprintf(f,
            "      \"problems\": {\"incomplete_gcs\": %llu, \"bad_times\": %llu, "
            "\"starts_without_suspension\": %llu, \"duplicate_starts\": %llu, "
            "\"number_jumps\": %llu, \"orphan_events\": %llu, \"truncated_events\": %llu, "
            "\"unrecognised_histories\": %llu, \"lost_events\": %llu, "
            "\"implausible_values\": %llu},\n",
            (unsigned long long)q->incomplete_gcs, (unsigned long long)q->bad_times,
            (unsigned long long)q->starts_without_suspension,
            (unsigned long long)q->duplicate_starts, (unsigned long long)q->number_jumps,
            (unsigned long long)q->orphan_events, (unsigned long long)q->truncated_events,
            (unsigned long long)q->unrecognised_histories, (unsigned long long)q->lost_events,
            (unsigned long long)q->implausible_values);
    double threshold = long_pause_ms(o);
    fputs("      \"long_pauses\": {\"threshold_ms\": ", f);
    json_num(f, threshold);
    fputs(", \"gcs\": [", f);
    bool first = true;
    for (size_t k = 0; k < sc->n_long; k++) {
        const gcs_gc_info *gc = gc_at(gl, sc->long_gcs[k]);
        fprintf(f, "%s{\"number\": %d, \"pause_start_ms\": ", first ? "" : ", ", gc->number);
        first = false;
        json_num(f, gc->pause_start_ms);
        fputs(", \"pause_ms\": ", f);
        json_num(f, gc->pause_ms);
        char b[32];
        fputs(", \"gen_name\": ", f);
        gcs_json_string(f, gen_text(gc, b, sizeof b));
        fputs(", \"reason\": ", f);
        gcs_json_string(f, reason_text(gc->reason, b, sizeof b));
        fputc('}', f);
    }
    fputs("]},\n", f);
    const uint32_t *counts = sc->counts;
    fprintf(f, "      \"condemned_reasons\": {\"gcs_with_reasons\": %u, \"counts\": {", sc->with);
    first = true;
    for (uint32_t g = 0; g < GCS_GC_CONDEMNED_GROUPS; g++) {
        if (!counts[g])
            continue;
        fputs(first ? "" : ", ", f);
        first = false;
        gcs_json_string(f, gcs_gc_condemned_group_name(g));
        fprintf(f, ": %u", counts[g]);
    }
    fputs("}},\n", f);
    fprintf(f, "      \"gcs_total\": %zu,\n      \"gcs_shown\": %ld,\n", p->gc_count, n_sel);
    fputs("      \"gcs\": [\n", f);
    for (long k = 0; k < n_sel; k++)
        json_gc(f, gc_at(gl, sel ? sel[k] : (size_t)k), k + 1 == n_sel);
    fprintf(f, "      ]\n    }%s\n", last ? "" : ",");
}

/* ------------------------------------------------------------------- CSV */

/* A CSV number cell: its comma, then the value (nothing when unknown). */
static void out_csv_num(text_out *o, double v)
{
    OUT_LIT(o, ",");
    if (isfinite(v))
        out_fixed(o, v, DEC);
}

/* A text cell: as is, or quoted (quotes doubled) when it holds a comma,
 * a quote or a line break; empty stays empty. */
static void csv_header(FILE *f)
{
    fputs("trace,pid,number,generation,type,reason,gen_name,is_complete,incomplete_reason,start_ms,"
          "pause_start_ms,pause_ms,suspend_ms,duration_ms,pause_time_pct,gen0_allocated_mb,"
          "allocated_since_last_gc_mb,alloc_rate_mb_s,heap_size_before_mb,heap_size_peak_mb,"
          "heap_size_after_mb,ratio_peak_after,promoted_mb",
          f);
    static const char *const gens[GCS_GEN_COUNT] = {"gen0", "gen1", "gen2", "loh", "poh"};
    for (int g = 0; g < GCS_GEN_COUNT; g++)
        fprintf(f, ",%s_size_after_mb,%s_survival_pct,%s_fragmentation_pct", gens[g], gens[g],
                gens[g]);
    fputs(",finalization_promoted_mb,pinned_objects,heaps,compacting,compact_reason,"
          "condemned_reasons\n",
          f);
}

static void csv_gc(FILE *f, const char *trace, uint32_t pid, const gcs_gc_info *gc)
{
    char b1[32], b2[32], b3[32];
    gcs_csv_text(f, trace ? trace : "");
    text_out o;
    out_begin(&o, f);
    OUT_LIT(&o, ",");
    out_u64(&o, pid);
    OUT_LIT(&o, ",");
    out_i64(&o, gc->number);
    OUT_LIT(&o, ",");
    out_u64(&o, gc->generation);
    OUT_LIT(&o, ",");
    out_str(&o, type_text(gc->type, b1, sizeof b1));
    OUT_LIT(&o, ",");
    out_str(&o, reason_text(gc->reason, b2, sizeof b2));
    OUT_LIT(&o, ",");
    out_mem(&o, b3, gen_text_len(gc, b3, sizeof b3));
    if (gc->is_complete) {
        OUT_LIT(&o, ",true,");
    } else {
        OUT_LIT(&o, ",false,");
        /* Through the shared quoting, in its place in the row. */
        out_flush(&o);
        gcs_csv_text(f, gcs_gc_incomplete_name(gc->incomplete_reason));
    }
    double v[] = {gc->start_ms, gc->pause_start_ms, gc->pause_ms, gc->suspend_ms, gc->duration_ms,
                  gc->pause_time_pct, gc->user_allocated_mb[0], gc->allocated_since_last_gc_mb,
                  gc->alloc_rate_mb_s, gc->heap_size_before_mb, gc->heap_size_peak_mb,
                  gc->heap_size_after_mb, gc->ratio_peak_after, gc->promoted_mb};
    for (size_t k = 0; k < sizeof v / sizeof v[0]; k++)
        out_csv_num(&o, v[k]);
    for (int g = 0; g < GCS_GEN_COUNT; g++) {
        out_csv_num(&o, gc->gen_size_after_mb[g]);
        out_csv_num(&o, gc->survival_pct[g]);
        out_csv_num(&o, gc->fragmentation_pct[g]);
    }
    /* Implausible: empty, so that a spreadsheet sums no garbage. */
    out_csv_num(&o, gc->finalization_promoted_implausible ? NAN : gc->finalization_promoted_mb);
    OUT_LIT(&o, ",");
    out_u64(&o, gc->pinned_objects);
    OUT_LIT(&o, ",");
    if (gc->num_heaps >= 0) /* empty without a GlobalHeapHistory */
        out_u64(&o, (uint64_t)gc->num_heaps);
    OUT_LIT(&o, ",");
    if (gc->compacting >= 0)
        out_str(&o, gc->compacting ? "true" : "false");
    OUT_LIT(&o, ",");
    if (gc->compact_reason >= 0) {
        char rb[32];
        out_str(&o, compact_reason_text(gc->compact_reason, rb, sizeof rb));
    }
    OUT_LIT(&o, ",");
    bool first = true;
    for (uint32_t g = 0; g < GCS_GC_CONDEMNED_GROUPS; g++) {
        if (!(gc->condemned_reasons & (1u << g)))
            continue;
        if (!first)
            OUT_LIT(&o, "|");
        out_str(&o, gcs_gc_condemned_group_name(g));
        first = false;
    }
    OUT_LIT(&o, "\n");
    out_flush(&o);
}

/* ----------------------------------------------------------------- table */

/* A table number: fixed, or "-" when unknown; returns its length. */
static size_t tnum_len(char *buf, size_t cap, double v, int decimals)
{
    if (!isfinite(v)) {
        buf[0] = '-';
        buf[1] = 0;
        return 1;
    }
    return fixed_len(buf, cap, v, decimals);
}

static const char *tnum(char *buf, size_t cap, double v, int decimals)
{
    tnum_len(buf, cap, v, decimals);
    return buf;
}

/* ANSI colors, only when opts->color (a terminal). */
#define C_BOLD "\033[1m"
#define C_LONG "\033[1;31m" /* a long pause */
#define C_WARN "\033[33m"   /* an incomplete GC */
#define C_OFF "\033[0m"

static void title(FILE *f, bool color, const char *text)
{
    fprintf(f, "%s%s%s\n", color ? C_BOLD : "", text, color ? C_OFF : "");
}

/* What a per-GC table cell shows. */
typedef enum cell_kind {
    CELL_NUMBER, CELL_START, CELL_REASON, CELL_GEN, CELL_SUSPEND, CELL_PAUSE, CELL_PAUSE_PCT,
    CELL_GEN0_ALLOC, CELL_GEN0_RATE, CELL_PEAK, CELL_AFTER, CELL_RATIO, CELL_PROMOTED,
    CELL_GEN_MB, CELL_GEN_SURV, CELL_GEN_FRAG, CELL_FIN_PROMOTED, CELL_PINNED, CELL_HEAPS, CELL_COMPACT,
    CELL_CONDEMNED, CELL_NOTES
} cell_kind;

typedef struct gc_column {
    const char *name;   /* what --columns calls it */
    const char *header;
    int width;          /* > 0 right-aligned, < 0 left-aligned, 0: free text at the line's end */
    cell_kind kind;
    int gen;            /* the generation of the per-generation columns */
    bool by_default;
} gc_column;

/* Every column, in the --wide order (the PerfView order). */
static const gc_column columns[] = {
    {"number", "GC#", 6, CELL_NUMBER, 0, true},
    {"start", "PauseStart", 12, CELL_START, 0, true},
    {"reason", "Reason", -6, CELL_REASON, 0, true}, /* widened to the longest reason */
    {"gen", "Gen", -5, CELL_GEN, 0, true},
    {"suspend", "Suspend", 9, CELL_SUSPEND, 0, true},
    {"pause", "Pause", 9, CELL_PAUSE, 0, true},
    {"pause_pct", "%Pause", 7, CELL_PAUSE_PCT, 0, true},
    {"gen0_alloc", "Gen0Alloc", 10, CELL_GEN0_ALLOC, 0, true},
    {"gen0_rate", "Gen0MB/s", 11, CELL_GEN0_RATE, 0, false},
    {"peak", "PeakMB", 9, CELL_PEAK, 0, true},
    {"after", "AfterMB", 9, CELL_AFTER, 0, true},
    {"ratio", "Ratio", 6, CELL_RATIO, 0, false},
    {"promoted", "Promoted", 9, CELL_PROMOTED, 0, true},
    {"gen0_mb", "Gen0MB", 8, CELL_GEN_MB, 0, false},
    {"gen0_surv", "Surv%", 6, CELL_GEN_SURV, 0, false},
    {"gen0_frag", "Frag%", 6, CELL_GEN_FRAG, 0, false},
    {"gen1_mb", "Gen1MB", 8, CELL_GEN_MB, 1, false},
    {"gen1_surv", "Surv%", 6, CELL_GEN_SURV, 1, false},
    {"gen1_frag", "Frag%", 6, CELL_GEN_FRAG, 1, false},
    {"gen2_mb", "Gen2MB", 8, CELL_GEN_MB, 2, false},
    {"gen2_surv", "Surv%", 6, CELL_GEN_SURV, 2, false},
    {"gen2_frag", "Frag%", 6, CELL_GEN_FRAG, 2, false},
    {"loh_mb", "LOHMB", 8, CELL_GEN_MB, 3, false},
    {"loh_surv", "Surv%", 6, CELL_GEN_SURV, 3, false},
    {"loh_frag", "Frag%", 6, CELL_GEN_FRAG, 3, false},
    {"poh_mb", "POHMB", 8, CELL_GEN_MB, 4, false},
    {"poh_surv", "Surv%", 6, CELL_GEN_SURV, 4, false},
    {"poh_frag", "Frag%", 6, CELL_GEN_FRAG, 4, false},
    {"fin_promoted", "FinPrMB", 8, CELL_FIN_PROMOTED, 0, false},
    {"pinned", "Pinned", 7, CELL_PINNED, 0, false},
    {"heaps", "Heaps", 5, CELL_HEAPS, 0, false},
    {"compact", "Compacted", -21, CELL_COMPACT, 0, false},
    {"condemned", "Condemned", 0, CELL_CONDEMNED, 0, false},
    {"notes", "Notes", 0, CELL_NOTES, 0, true},
};
#define N_COLUMNS (sizeof columns / sizeof columns[0])

const char *gcs_gc_report_column_names(void)
{
    static char names[512];
    if (!names[0]) {
        size_t len = 0;
        for (size_t c = 0; c < N_COLUMNS; c++) {
            int w = snprintf(names + len, sizeof names - len, "%s%s", c ? "," : "",
                             columns[c].name);
            if (w > 0)
                len += (size_t)w;
        }
    }
    return names;
}

/* The column named by the n bytes at name, or -1. */
static int column_index(const char *name, size_t n)
{
    for (size_t c = 0; c < N_COLUMNS; c++)
        if (strlen(columns[c].name) == n && memcmp(columns[c].name, name, n) == 0)
            return (int)c;
    return -1;
}

long gcs_gc_report_columns_check(const char *list)
{
    const char *p = list;
    for (;;) {
        size_t n = strcspn(p, ",");
        if (column_index(p, n) < 0)
            return (long)(p - list);
        if (!p[n])
            return -1;
        p += n + 1;
    }
}

/* The columns the table shows, in order (fixed-width ones first, the free
 * text ones last whatever the list's order, so that rows stay aligned). */
static size_t table_columns(const gcs_gc_report_options *o, const gc_column *out[N_COLUMNS])
{
    bool on[N_COLUMNS] = {false};
    int order[N_COLUMNS];
    size_t n = 0;
    if (o->wide) {
        for (size_t c = 0; c < N_COLUMNS; c++)
            order[n++] = (int)c;
    } else if (o->columns && o->columns[0] && gcs_gc_report_columns_check(o->columns) < 0) {
        const char *p = o->columns;
        for (;;) {
            size_t len = strcspn(p, ",");
            int c = column_index(p, len);
            if (c >= 0 && !on[c]) {
                on[c] = true;
                order[n++] = c;
            }
            if (!p[len])
                break;
            p += len + 1;
        }
    } else {
        for (size_t c = 0; c < N_COLUMNS; c++)
            if (columns[c].by_default)
                order[n++] = (int)c;
    }
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (columns[order[i]].width != 0)
            out[k++] = &columns[order[i]];
    for (size_t i = 0; i < n; i++)
        if (columns[order[i]].width == 0)
            out[k++] = &columns[order[i]];
    return k;
}

static void condemned_text(const gcs_gc_info *gc, char *buf, size_t cap)
{
    size_t len = 0;
    buf[0] = 0;
    for (uint32_t g = 0; g < GCS_GC_CONDEMNED_GROUPS && len < cap; g++) {
        if (!(gc->condemned_reasons & (1u << g)))
            continue;
        int w = snprintf(buf + len, cap - len, "%s%s", len ? "," : "", gcs_gc_condemned_group_name(g));
        if (w > 0)
            len += (size_t)w;
    }
}

static void notes_text(const gcs_gc_info *gc, char *buf, size_t cap)
{
    join_text(buf, cap,
              (const char *const[]){
                  gc->finalization_promoted_implausible ? "IMPLAUSIBLE FinalizationPromotedSize" : "",
                  gc->finalization_promoted_implausible && !gc->is_complete ? " " : "",
                  gc->is_complete ? "" : "INCOMPLETE: ",
                  gc->is_complete ? "" : gcs_gc_incomplete_name(gc->incomplete_reason)},
              4);
}

/* A cell's text, at *text (buf or a constant), and its length. */
static size_t cell_text(const gc_column *c, const gcs_gc_info *gc, char *buf, size_t cap,
                        const char **text)
{
    int g = c->gen;
    *text = buf;
    switch (c->kind) {
    case CELL_NUMBER: return (size_t)(gcs_put_i64(buf, gc->number) - buf);
    case CELL_START: return tnum_len(buf, cap, gc->pause_start_ms, 3);
    case CELL_REASON: *text = reason_text(gc->reason, buf, cap); return strlen(*text);
    case CELL_GEN: return gen_text_len(gc, buf, cap);
    case CELL_SUSPEND: return tnum_len(buf, cap, gc->suspend_ms, 3);
    case CELL_PAUSE: return tnum_len(buf, cap, gc->pause_ms, 3);
    case CELL_PAUSE_PCT: return tnum_len(buf, cap, gc->pause_time_pct, 1);
    case CELL_GEN0_ALLOC: return tnum_len(buf, cap, gc->user_allocated_mb[0], 3);
    case CELL_GEN0_RATE:
        return tnum_len(buf, cap, gc->user_allocated_mb[0] * 1000.0 / gc->duration_since_last_restart_ms, 2);
    case CELL_PEAK: return tnum_len(buf, cap, gc->heap_size_peak_mb, 3);
    case CELL_AFTER: return tnum_len(buf, cap, gc->heap_size_after_mb, 3);
    case CELL_RATIO: return tnum_len(buf, cap, gc->ratio_peak_after, 2);
    case CELL_PROMOTED: return tnum_len(buf, cap, gc->promoted_mb, 3);
    case CELL_GEN_MB: return tnum_len(buf, cap, gc->gen_size_after_mb[g], 3);
    case CELL_GEN_SURV: return tnum_len(buf, cap, gc->survival_pct[g], 0);
    case CELL_GEN_FRAG: return tnum_len(buf, cap, gc->fragmentation_pct[g], 2);
    case CELL_FIN_PROMOTED:
        if (gc->finalization_promoted_implausible) {
            *text = "?";
            return 1;
        }
        return tnum_len(buf, cap, gc->finalization_promoted_mb, 2);
    case CELL_PINNED: return (size_t)(gcs_put_u64(buf, gc->pinned_objects) - buf);
    case CELL_HEAPS:
        if (gc->num_heaps < 0) {
            *text = "-";
            return 1;
        }
        return (size_t)(gcs_put_u64(buf, (uint64_t)gc->num_heaps) - buf);
    case CELL_COMPACT:
        /* the reason when it compacted, "swept", or "-" without a history */
        if (gc->compacting < 0)
            *text = "-";
        else if (!gc->compacting)
            *text = "swept";
        else if (gc->compact_reason < 0)
            *text = "yes";
        else
            *text = compact_reason_text(gc->compact_reason, buf, cap);
        return strlen(*text);
    case CELL_CONDEMNED: condemned_text(gc, buf, cap); return strlen(buf);
    case CELL_NOTES: notes_text(gc, buf, cap); return strlen(buf);
    }
    buf[0] = 0;
    return 0;
}

/* snprintf(dst, cap, " %*s", width, v) without printf, v's length n
 * known: a cell of the per-GC table cost ~770 instructions through printf
 * (11 cells a GC, 12.7 M of `stats` on a head of 1,509 GCs). Same bytes,
 * same return value. */
static int cell_padded(char *dst, size_t cap, int width, const char *v, size_t n)
{
    /* A negative width pads on the right (the text columns). */
    bool left = width < 0;
    size_t w = left ? (size_t)-(long)width : (size_t)width;
    size_t pad = w > n ? w - n : 0;
    size_t total = 1 + pad + n;
    if (cap == 0)
        return (int)total;
    size_t room = cap - 1, k = 0;
    if (k < room)
        dst[k++] = ' ';
    size_t spaces = pad < room - k ? pad : room - k;
    if (!left) {
        memset(dst + k, ' ', spaces);
        k += spaces;
    }
    size_t chars = n < room - k ? n : room - k;
    memcpy(dst + k, v, chars);
    k += chars;
    if (left) {
        spaces = pad < room - k ? pad : room - k;
        memset(dst + k, ' ', spaces);
        k += spaces;
    }
    dst[k] = 0;
    return (int)total;
}

/* The longest a table line's cells may be (the rest is cut). */
#define LINE_CAP 1024

/* cell_padded for the usual cell, a text of at most CELL_FAST_TEXT bytes
 * in a cell buffer of at least that many, at most CELL_FAST_WIDTH wide,
 * with CELL_FAST_ROOM bytes of room at dst: stores of constant sizes
 * (spaces, then the buffer's first CELL_FAST_TEXT bytes, then spaces
 * again, overwritten or past the end), not library calls of a few bytes
 * each (~25 % of a per-GC row's instructions). The same bytes before the
 * returned length; no terminating NUL. */
#define CELL_FAST_TEXT 32
#define CELL_FAST_WIDTH 64
#define CELL_FAST_ROOM (1 + CELL_FAST_WIDTH + CELL_FAST_TEXT + CELL_FAST_WIDTH)
static size_t cell_padded_fast(char *dst, int width, const char *text, size_t n)
{
    bool left = width < 0;
    size_t w = left ? (size_t)-(long)width : (size_t)width;
    size_t pad = w > n ? w - n : 0;
    memset(dst, ' ', 1 + CELL_FAST_WIDTH);
    char *t = left ? dst + 1 : dst + 1 + pad;
    memcpy(t, text, CELL_FAST_TEXT);
    memset(t + n, ' ', CELL_FAST_WIDTH);
    return 1 + pad + n;
}

/* One line of the table: the header (gc NULL) or a GC's row, between `on`
 * (a color, or "") and `end` (what closes the line), written at once (one
 * fwrite, not one stdio call a cell). Free-text cells follow the fixed
 * ones, separated by " / " in the header and a space in rows (empty ones
 * left out); trailing blanks are not written. */
static void table_line(FILE *f, const gc_column *const *cols, const int *widths, size_t n,
                       const gcs_gc_info *gc, const char *on, const char *end)
{
    size_t on_len = strlen(on), end_len = strlen(end);
    char out[16 + LINE_CAP + 16];
    assert(on_len < 15 && end_len <= 16);
    memcpy(out, on, on_len);
    out[on_len] = ' ';
    char *line = out + on_len + 1;
    size_t len = 0;
    bool any_text = false;
    line[0] = 0;
    for (size_t i = 0; i < n && len < LINE_CAP; i++) {
        const gc_column *c = cols[i];
        char buf[256];
        const char *v = c->header;
        size_t v_len = gc ? cell_text(c, gc, buf, sizeof buf, &v) : strlen(v);
        int w;
        if (c->width != 0 && v == buf && v_len <= CELL_FAST_TEXT &&
            abs(widths[i]) <= CELL_FAST_WIDTH && len + CELL_FAST_ROOM < LINE_CAP) {
            w = (int)cell_padded_fast(line + len, widths[i], buf, v_len);
        } else if (c->width != 0) {
            w = cell_padded(line + len, LINE_CAP - len, widths[i], v, v_len);
        } else {
            if (!v[0] && gc)
                continue;
            w = snprintf(line + len, LINE_CAP - len, "%s%s", !any_text ? "  " : gc ? " " : " / ", v);
            any_text = true;
        }
        if (w > 0)
            len += (size_t)w;
    }
    if (len >= LINE_CAP)
        len = LINE_CAP - 1;
    while (len > 0 && line[len - 1] == ' ')
        len--;
    memcpy(line + len, end, end_len);
    fwrite(out, 1, on_len + 1 + len + end_len, f);
}

static void table_rollup(FILE *f, const char *row, const gcs_gc_process *p, const gcs_gc_rollup *r)
{
    char a[32], b[32], c[32], d[32], e[32], g[32], h[32];
    fprintf(f, "  %-4s %7u %10s %11s %13s %12s %13s %15s %14s %10s %8u\n", row, r->count,
            tnum(a, sizeof a, r->max_pause_ms, 1), tnum(b, sizeof b, r->max_size_peak_mb, 1),
            tnum(c, sizeof c, r->max_alloc_rate_mb_s, 3), tnum(d, sizeof d, r->total_pause_ms, 1),
            tnum(e, sizeof e, r->total_allocated_mb, 1), tnum(h, sizeof h, alloc_per_pause(p, r), 3),
            "-", tnum(g, sizeof g, r->mean_pause_ms, 1), r->num_induced);
}

static void table_pct(FILE *f, const char *name, const gcs_gc_percentiles *p)
{
    char a[32], b[32], c[32], d[32];
    fprintf(f, "  %-11s %7u %10s %10s %10s %10s\n", name, p->count, tnum(a, sizeof a, p->p50, 3),
            tnum(b, sizeof b, p->p90, 3), tnum(c, sizeof c, p->p99, 3), tnum(d, sizeof d, p->max, 3));
}

/* "200" or "12.5": a threshold as the user would type it. */
static const char *threshold_text(char *buf, size_t cap, double ms)
{
    fixed(buf, cap, ms, 3);
    char *dot = strchr(buf, '.');
    if (dot) {
        char *end = buf + strlen(buf);
        while (end > dot + 1 && end[-1] == '0')
            *--end = 0;
        if (end == dot + 1)
            *dot = 0;
    }
    return buf;
}

/* The per-GC list of the table: title, legend, filter note, header, one
 * row per selected GC (long pauses and incomplete GCs in color). */
static void table_gc_list(FILE *f, gc_list *gl, const gc_scan *sc, const gcs_gc_report_options *o,
                          const size_t *sel, long n_sel, double threshold)
{
    const gcs_gc_process *p = gl->p;
    bool color = o->color;
    const gc_column *cols[N_COLUMNS];
    size_t n_cols = table_columns(o, cols);
    fputc('\n', f);
    title(f, color, "GCs");
    fputs("  Gen: generation, then N non-concurrent (blocking), B background, F foreground (blocking,\n"
          "  during a background GC); I induced, i induced not forced. Times in ms, sizes in MB.\n",
          f);
    if (filter_active(&o->filter)) {
        char ft[256];
        fprintf(f, "  Filtered (%s): %ld of %zu GCs shown; the sections above count them all.\n",
                filter_text(&o->filter, ft, sizeof ft), n_sel, p->gc_count);
    }
    /* The reason column as wide as the longest reason shown. */
    int widths[N_COLUMNS];
    for (size_t i = 0; i < n_cols; i++) {
        widths[i] = cols[i]->width;
        if (cols[i]->kind != CELL_REASON)
            continue;
        int w = (int)strlen(cols[i]->header);
        int longest = filter_active(&o->filter) ? sc->sel_reason_width : sc->reason_width;
        widths[i] = -(longest > w ? longest : w);
    }
    table_line(f, cols, widths, n_cols, NULL, "", "\n");
    for (long k = 0; k < n_sel; k++) {
        const gcs_gc_info *gc = gc_at(gl, sel ? sel[k] : (size_t)k);
        const char *on = !color                            ? ""
                         : is_long_pause(gc, threshold)    ? C_LONG
                         : !gc->is_complete                ? C_WARN
                                                           : "";
        table_line(f, cols, widths, n_cols, gc, on, on[0] ? C_OFF "\n" : "\n");
    }
}

/* Text from the trace (a type name, a command line) in a table line:
 * control bytes show as '?', so that a hostile name can neither break the
 * line nor send the terminal escape sequences. */
static void put_trace_text(FILE *f, const char *s)
{
    for (const unsigned char *c = (const unsigned char *)s; *c; c++)
        fputc(*c < 0x20 || *c == 0x7F ? '?' : *c, f);
}

/* Rows the table shows of each list (PerfView shows 20); JSON has all. */
#define FINALIZED_ROWS 20

static void table_finalized(FILE *f, const gcs_gc_report_options *o, uint32_t pid)
{
    if (!o->finalized)
        return;
    const gcs_finalized_process *fp = gcs_finalized_find(o->finalized, pid);
    fputc('\n', f);
    char line[128];
    if (fp && fp->objects == 0) {
        /* Only the private provider's events (gcscope record's default). */
        snprintf(line, sizeof line,
                 "Finalized objects by type (%llu private FinalizeObject events)",
                 (unsigned long long)fp->private_objects);
        title(f, o->color, line);
        fprintf(f, "  %10s  %s\n", "Objects", "Type (the runtime's name in the private event)");
        for (size_t i = 0; i < fp->private_type_count && i < FINALIZED_ROWS; i++) {
            fprintf(f, "  %10llu  ", (unsigned long long)fp->private_types[i].count);
            put_trace_text(f, fp->private_types[i].name[0] ? fp->private_types[i].name : "\"\"");
            fputc('\n', f);
        }
        if (fp->private_type_count > FINALIZED_ROWS)
            fprintf(f, "  ... %zu more types (JSON lists them all)\n",
                    fp->private_type_count - FINALIZED_ROWS);
        fputs("  TraceEvent counts none: it reads the runtime provider's FinalizeObject (its GC\n"
              "  keyword at verbose level), which this trace does not have.\n",
              f);
        return;
    }
    if (!fp) {
        title(f, o->color, "Finalized objects by type");
        fputs("  none (no FinalizeObject event of the runtime provider: its GC keyword at verbose level\n  writes them)\n", f);
        return;
    }
    snprintf(line, sizeof line, "Finalized objects by type (%llu FinalizeObject events)",
             (unsigned long long)fp->objects);
    title(f, o->color, line);
    fprintf(f, "  %10s  %s\n", "Objects", "Type (as TraceEvent names it)");
    bool private_named = false, later = false, nameless = false;
    for (size_t i = 0; i < fp->type_count && i < FINALIZED_ROWS; i++) {
        const gcs_finalized_type *t = &fp->types[i];
        if (t->name[0]) {
            fprintf(f, "  %10llu  ", (unsigned long long)t->count);
            put_trace_text(f, t->name);
            fputc('\n', f);
            continue;
        }
        fprintf(f, "  %10llu  \"\" (no BulkType name before the object), by type id:\n",
                (unsigned long long)t->count);
        for (size_t k = 0; k < fp->unnamed_count && k < FINALIZED_ROWS; k++) {
            const gcs_finalized_unnamed *u = &fp->unnamed[k];
            private_named |= u->source == GCS_FINALIZED_NAME_PRIVATE;
            later |= u->source == GCS_FINALIZED_NAME_LATER_BULK_TYPE;
            nameless |= u->source == GCS_FINALIZED_NAME_NONE;
            if (u->name) {
                fprintf(f, "  %10llu    ", (unsigned long long)u->count);
                put_trace_text(f, u->name);
                fputs(u->source == GCS_FINALIZED_NAME_LATER_BULK_TYPE ? " *\n" : "\n", f);
            } else
                fprintf(f, "  %10llu    (type 0x%llx: no name in the trace)\n",
                        (unsigned long long)u->count, (unsigned long long)u->type_id);
        }
        if (fp->unnamed_count > FINALIZED_ROWS)
            fprintf(f, "  %10s    ... %zu more type ids (JSON lists them all)\n", "",
                    fp->unnamed_count - FINALIZED_ROWS);
    }
    if (fp->type_count > FINALIZED_ROWS)
        fprintf(f, "  ... %zu more types (JSON lists them all)\n", fp->type_count - FINALIZED_ROWS);
    if (fp->unnamed_count > 0)
        fprintf(f, "  Indented: the type ids behind \"\"%s%s%s%s.\n",
                private_named || later ? ", named by " : "",
                private_named ? "the runtime's private FinalizeObject event" : "",
                private_named && later ? " or " : "",
                later ? "a BulkType after the objects (*)" : "");
    if (nameless)
        fputs("  Names: the private provider's GC keyword names the types "
              "(Microsoft-Windows-DotNETRuntimePrivate:0x1:5);\n  TraceEvent names them only from "
              "BulkType events, which need the keywords 0x80000 and 0x1000000.\n",
              f);
}

static void table_process(FILE *f, gc_list *gl, const gc_scan *sc, const gcs_gc_report_options *o,
                          const size_t *sel, long n_sel)
{
    const gcs_gc_process *p = gl->p;
    const char *trace = o->trace_name;
    bool color = o->color;
    char a[32], b[32];
    const char *pname = fact_process_name(o, p->pid);
    fprintf(f, "%sProcess %u%s", color ? C_BOLD : "", p->pid, pname ? " " : "");
    put_trace_text(f, pname ? pname : "");
    fprintf(f, " (ClrInstanceID %u)%s%s%s\n", (unsigned)p->clr_instance_id, trace ? " in " : "",
            trace ? trace : "", color ? C_OFF : "");
    const char *cmdline = fact_command_line(o, p->pid);
    if (cmdline) {
        fputs("  Command line         ", f);
        put_trace_text(f, cmdline);
        fputc('\n', f);
    }
    fprintf(f, "  Runtime version      %s%s\n", p->runtime_version[0] ? p->runtime_version : "unknown",
            gcs_runtime_note(p));
    char mode_why[48] = "";
    if (p->gc_mode_inferred)
        snprintf(mode_why, sizeof mode_why, " (inferred: %d heap%s)", p->max_heap_count,
                 p->max_heap_count == 1 ? "" : "s");
    fprintf(f, "  GC flavour           %s%s, %s%s\n", p->gc_mode, mode_why,
            p->concurrent < 0 ? "concurrent unknown"
            : p->concurrent   ? "concurrent"
                              : "non-concurrent",
            p->concurrent_inferred ? " (inferred: background GCs seen)" : "");
    if (p->heap_count < 0)
        fputs("  Heap count           unknown (no GCGlobalHeapHistory)\n", f);
    else if (p->min_heap_count != p->max_heap_count)
        fprintf(f,
                "  Heap count           %d at the first GC, %d to %d over the trace (DATAS; "
                "each GC's: the heaps column)\n",
                p->heap_count, p->min_heap_count, p->max_heap_count);
    else
        fprintf(f, "  Heap count           %d\n", p->heap_count);
    fprintf(f, "  Trace duration       %s ms\n",
            tnum(a, sizeof a, p->last_event_ms - p->first_event_ms, 3));
    fprintf(f, "  Total allocated      %s MB\n", tnum(a, sizeof a, p->all.total_allocated_mb, 3));
    fprintf(f, "  GCs                  %u complete, %llu incomplete\n", p->all.count,
            (unsigned long long)p->problems.incomplete_gcs);
    fprintf(f, "  Total pause          %s ms (max %s ms)\n", tnum(a, sizeof a, p->all.total_pause_ms, 3),
            tnum(b, sizeof b, p->all.max_pause_ms, 3));
    fprintf(f, "  Time paused for GC   %s %% of the trace (total pause / trace duration)\n",
            tnum(a, sizeof a, p->pause_time_pct_of_trace, 2));
    fprintf(f, "  Max heap size        %s MB\n", tnum(a, sizeof a, p->all.max_size_peak_mb, 3));
    int64_t finalizers = fact_finalizers(o, p->pid);
    if (finalizers >= 0)
        fprintf(f, "  Finalizers run       %lld (GCFinalizersEnd)\n", (long long)finalizers);
    fputc('\n', f);

    title(f, color, "GC Rollup By Generation");
    fprintf(f, "  %-4s %7s %10s %11s %13s %12s %13s %15s %14s %10s %8s\n", "Gen", "Count", "MaxPause",
            "MaxPeakMB", "MaxAllocMB/s", "TotalPause", "TotalAllocMB", "AllocMB/MSecGC",
            "SurvMB/MSecGC", "MeanPause", "Induced");
    table_rollup(f, "ALL", p, &p->all);
    table_rollup(f, "0", p, &p->gen[0]);
    table_rollup(f, "1", p, &p->gen[1]);
    table_rollup(f, "2", p, &p->gen[2]);
    fputs("  AllocMB/MSecGC: all the MB allocated / the row's total pause (TraceEvent's ratio).\n"
          "  SurvMB/MSecGC: promoted MB / GC CPU ms; an EventPipe trace has no CPU samples: -.\n",
          f);

    fputc('\n', f);
    title(f, color, "Pause percentiles (ms, nearest rank)");
    fprintf(f, "  %-11s %7s %10s %10s %10s %10s\n", "Group", "Count", "p50", "p90", "p99", "max");
    table_pct(f, "gen0", &p->pct_gen[0]);
    table_pct(f, "gen1", &p->pct_gen[1]);
    table_pct(f, "gen2", &p->pct_gen[2]);
    table_pct(f, "blocking", &p->pct_kind[GCS_GC_NONCONCURRENT]);
    table_pct(f, "background", &p->pct_kind[GCS_GC_BACKGROUND]);
    table_pct(f, "foreground", &p->pct_kind[GCS_GC_FOREGROUND]);
    table_pct(f, "all", &p->pct_all);

    fputc('\n', f);
    title(f, color, "Pause histogram");
    for (int k = 0; k < GCS_GC_HIST_BUCKETS; k++) {
        char lo[32], hi[32];
        if (k == 0)
            snprintf(lo, sizeof lo, "0");
        else
            tnum(lo, sizeof lo, gcs_gc_hist_bounds_ms[k - 1], 1);
        if (k < GCS_GC_HIST_BUCKETS - 1)
            tnum(hi, sizeof hi, gcs_gc_hist_bounds_ms[k], 1);
        else
            snprintf(hi, sizeof hi, "inf");
        fprintf(f, "  [%6s, %6s) ms %8llu\n", lo, hi, (unsigned long long)p->histogram[k]);
    }

    double threshold = long_pause_ms(o);
    char t[64], line[96];
    snprintf(line, sizeof line, "Pauses over %s ms", threshold_text(t, sizeof t, threshold));
    fputc('\n', f);
    title(f, color, line);
    for (size_t k = 0; k < sc->n_long; k++) {
        const gcs_gc_info *gc = gc_at(gl, sc->long_gcs[k]);
        char c[4][32];
        if (k == 0)
            fprintf(f, "  %6s %12s %-16s %-5s %9s\n", "GC#", "PauseStart", "Reason", "Gen", "Pause");
        fprintf(f, "  %s%6d %12s %-16s %-5s %9s%s\n", color ? C_LONG : "", gc->number,
                tnum(c[0], 32, gc->pause_start_ms, 3), reason_text(gc->reason, c[1], 32),
                gen_text(gc, c[2], 32), tnum(c[3], 32, gc->pause_ms, 3), color ? C_OFF : "");
    }
    if (sc->n_long == 0)
        fputs("  none\n", f);

    const uint32_t *counts = sc->counts;
    uint32_t with = sc->with;
    fputc('\n', f);
    title(f, color, "Condemned reasons (GCs naming each reason group)");
    if (with == 0) {
        fputs("  none recorded (no GCGlobalHeapHistory)\n", f);
    } else {
        fprintf(f, "  %-24s %7s %7s\n", "Reason group", "GCs", "%");
        for (uint32_t g = 0; g < GCS_GC_CONDEMNED_GROUPS; g++) {
            if (!counts[g])
                continue;
            fprintf(f, "  %-24s %7u %7s\n", gcs_gc_condemned_group_name(g), counts[g],
                    tnum(a, sizeof a, 100.0 * counts[g] / with, 1));
        }
        fprintf(f, "  (of %u GCs with a GCGlobalHeapHistory)\n", with);
    }

    table_finalized(f, o, p->pid);
    if (!o->summary_only)
        table_gc_list(f, gl, sc, o, sel, n_sel, threshold);
    const gcs_gc_problems *q = &p->problems;
    fprintf(f,
            "\nProblems: %llu incomplete GCs (%llu with impossible times), %llu GCStart without "
            "suspension, %llu duplicate GCStart,\n"
            "  %llu GC number jumps, %llu orphan events, %llu truncated events, %llu unrecognised "
            "histories,\n"
            "  %llu lost events, %llu implausible values\n\n",
            (unsigned long long)q->incomplete_gcs, (unsigned long long)q->bad_times,
            (unsigned long long)q->starts_without_suspension,
            (unsigned long long)q->duplicate_starts, (unsigned long long)q->number_jumps,
            (unsigned long long)q->orphan_events, (unsigned long long)q->truncated_events,
            (unsigned long long)q->unrecognised_histories, (unsigned long long)q->lost_events,
            (unsigned long long)q->implausible_values);
}

const char *gcs_gc_report_no_gcs_line(void)
{
    return "No GC in this trace: no .NET runtime started a GC while it was traced.";
}

long gcs_gc_report_selected(const gcs_gc_analyzer *an, const gcs_gc_report_options *opts)
{
    long total = 0;
    if (!filter_active(&opts->filter)) {
        /* Every GC of every runtime reported (select_gcs' answer without
         * reading one): no list to make. */
        for (size_t i = 0; i < gcs_gc_process_count(an); i++) {
            const gcs_gc_process *p = gcs_gc_process_at(an, i);
            if (wanted(p, opts))
                total += (long)p->gc_count;
        }
        return total;
    }
    gc_list *gl = gc_list_new();
    if (!gl)
        return -1;
    for (size_t i = 0; i < gcs_gc_process_count(an); i++) {
        const gcs_gc_process *p = gcs_gc_process_at(an, i);
        if (!wanted(p, opts))
            continue;
        gc_list_begin(gl, an, p);
        size_t *sel;
        int width;
        long n = select_gcs(gl, &opts->filter, &sel, &width);
        free(sel);
        if (n < 0) {
            gc_list_free(gl);
            return -1;
        }
        total += n;
    }
    gc_list_free(gl);
    return total;
}

int gcs_gc_report_write(FILE *f, const gcs_gc_analyzer *an, const gcs_gc_report_options *opts)
{
    gcs_gc_report_options defaults;
    memset(&defaults, 0, sizeof defaults);
    if (!opts)
        opts = &defaults;
    size_t n = gcs_gc_process_count(an);
    int written = 0;
    size_t total = 0;
    for (size_t i = 0; i < n; i++)
        if (wanted(gcs_gc_process_at(an, i), opts))
            total++;
    bool filtered = filter_active(&opts->filter);
    if (opts->format == GCS_GC_FORMAT_JSON) {
        fputs("{\n  \"trace\": ", f);
        if (opts->trace_name)
            gcs_json_string(f, opts->trace_name);
        else
            fputs("null", f);
        fputs(",\n  \"filter\": ", f);
        if (filtered) {
            char ft[256];
            gcs_json_string(f, filter_text(&opts->filter, ft, sizeof ft));
        } else {
            fputs("null", f);
        }
        fputs(",\n  \"processes\": [\n", f);
    } else if (opts->format == GCS_GC_FORMAT_CSV) {
        csv_header(f);
    }
    gc_list *gl = gc_list_new();
    if (!gl)
        return -1;
    bool unread = false;
    for (size_t i = 0; i < n; i++) {
        const gcs_gc_process *p = gcs_gc_process_at(an, i);
        if (!wanted(p, opts))
            continue;
        gc_list_begin(gl, an, p);
        gl->failed = false;
        size_t *sel;
        int sel_reason_width;
        long n_sel = select_gcs(gl, &opts->filter, &sel, &sel_reason_width);
        if (n_sel < 0) {
            gc_list_free(gl);
            return -1;
        }
        gc_scan sc;
        memset(&sc, 0, sizeof sc);
        if (opts->format != GCS_GC_FORMAT_CSV && !scan_gcs(gl, long_pause_ms(opts), &sc)) {
            free(sc.long_gcs);
            free(sel);
            gc_list_free(gl);
            return -1;
        }
        sc.sel_reason_width = sel_reason_width;
        written++;
        if (opts->format == GCS_GC_FORMAT_JSON)
            json_process(f, gl, &sc, opts, sel, n_sel, (size_t)written == total);
        else if (opts->format == GCS_GC_FORMAT_CSV)
            for (long k = 0; k < n_sel; k++)
                csv_gc(f, opts->trace_name, p->pid, gc_at(gl, sel ? sel[k] : (size_t)k));
        else
            table_process(f, gl, &sc, opts, sel, n_sel);
        free(sc.long_gcs);
        free(sel);
        unread |= gl->failed;
    }
    gc_list_free(gl);
    if (opts->format == GCS_GC_FORMAT_JSON) {
        fputs("  ]\n}\n", f);
    } else if (opts->format == GCS_GC_FORMAT_TABLE && written == 0) {
        if (opts->filter_pid)
            fprintf(f, "No GC of process %u in this trace.\n", opts->pid);
        else
            fprintf(f, "%s\n", gcs_gc_report_no_gcs_line());
    }
    return ferror(f) || unread ? -1 : written;
}
