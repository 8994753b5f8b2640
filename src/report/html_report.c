/*
 * report/html_report.c - `gcscope report`: one self-contained HTML file per
 * trace (docs/report.md). Inline CSS, SVG charts and a small script (hover
 * and the sortable per-GC table); nothing is fetched.
 *
 * Readable at any GC count: charts draw at most one mark per pixel column
 * and series (the longest pause, or the min and max of a size, of the GCs
 * that fall in that column), so 100,000 GCs cost as much SVG as 1,000. The
 * per-GC table is rendered by the script, a page at a time, from compact
 * column arrays embedded as JSON (numbers and start times delta-encoded).
 * Deterministic: no time of the run, ids from the runtime's index.
 *
 * Memory does not grow with the GC count: each chart, table and column
 * of the per-GC arrays is a pass over the GCs (gc_walk.h), which an
 * analyzer that spills reads back from its file 512 records at a time.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/gc/gc_walk.h"
#include "gcscope/allocs.h"
#include "gcscope/finalized.h"
#include "gcscope/gc_insight.h"
#include "report/format_fixed.h"
#include "report/runtime_note.h"

enum { CHART_W = 900, CHART_H = 180, PAD_L = 56, PAD_B = 22, PAD_T = 8, N_CLASSES = 5 };

/* Colour classes of a GC: gen0, gen1, gen2 blocking, background, foreground. */
static const char *const class_name[N_CLASSES] = {"gen0", "gen1", "gen2 blocking", "background gen2",
                                                  "foreground"};
static const char *const class_color[N_CLASSES] = {"#4e79a7", "#59a14f", "#e15759", "#f28e2b",
                                                   "#b07aa1"};

static int class_of(const gcs_gc_info *gc)
{
    if (gc->type == GCS_GC_BACKGROUND)
        return 3;
    if (gc->type == GCS_GC_FOREGROUND)
        return 4;
    return gc->generation >= 2 ? 2 : (int)gc->generation;
}

/* A number with `dec` decimals, "-0" cleaned; `undef` for NaN/infinity. */
static const char *num(char *buf, double v, int dec, const char *undef)
{
    if (!isfinite(v))
        return undef;
    gcs_format_fixed(buf, 48, v, dec);
    if (buf[0] == '-' && strspn(buf + 1, "0.") == strlen(buf + 1))
        memmove(buf, buf + 1, strlen(buf));
    return buf;
}

static void put_num(FILE *f, double v, int dec)
{
    char b[48];
    fputs(num(b, v, dec, "null"), f);
}

static void put_text(FILE *f, double v, int dec)
{
    char b[48];
    fputs(num(b, v, dec, "-"), f);
}

/* Also safe inside a JSON string in a script: no '<' is left. */
void gcs_html_escape(FILE *f, const char *s)
{
    for (; *s; s++) {
        switch (*s) {
        case '<': fputs("&lt;", f); break;
        case '>': fputs("&gt;", f); break;
        case '&': fputs("&amp;", f); break;
        case '"': fputs("&quot;", f); break;
        default: fputc(*s, f);
        }
    }
}

static double gc_time(const gcs_gc_info *gc)
{
    return isfinite(gc->pause_start_ms) ? gc->pause_start_ms : gc->start_ms;
}

static bool complete(const gcs_gc_info *gc)
{
    return gc->is_complete && isfinite(gc->pause_ms);
}

/* The time axis of a runtime's charts. */
typedef struct axis {
    double t0, t1;
} axis;

static double x_of(const axis *a, double t)
{
    double span = a->t1 - a->t0;
    double x = span > 0 ? (t - a->t0) / span : 0;
    return PAD_L + fmin(fmax(x, 0), 1) * (CHART_W - PAD_L - 4);
}

static int col_of(const axis *a, double t)
{
    int c = (int)(x_of(a, t) - PAD_L);
    int max = CHART_W - PAD_L - 5;
    return c < 0 ? 0 : c > max ? max : c;
}

static double y_of(double v, double vmax)
{
    double plot = CHART_H - PAD_T - PAD_B;
    double r = vmax > 0 ? v / vmax : 0;
    return PAD_T + plot * (1 - fmin(fmax(r, 0), 1));
}

/* A round axis maximum at or above v. */
static double nice_max(double v)
{
    if (!(v > 0))
        return 1;
    double e = pow(10, floor(log10(v)));
    for (double m = 1; m <= 10; m += (m < 2 ? 0.5 : 1))
        if (m * e >= v)
            return m * e;
    return 10 * e;
}

static void svg_open(FILE *f, const char *id, const char *title, int height)
{
    fprintf(f, "<figure class=\"chart\"><figcaption>%s</figcaption>\n", title);
    fprintf(f,
            "<svg id=\"%s\" class=\"plot\" viewBox=\"0 0 %d %d\" width=\"%d\" height=\"%d\" "
            "role=\"img\">\n",
            id, CHART_W, height, CHART_W, height);
}

static void svg_close(FILE *f, const char *legend_html)
{
    fputs("</svg>", f);
    if (legend_html)
        fputs(legend_html, f);
    fputs("</figure>\n", f);
}

/* Y axis: 0, half and max labels and grid lines; x axis: time labels. */
static void svg_axes(FILE *f, double vmax, const char *unit, const axis *a)
{
    char b[48];
    for (int i = 0; i <= 2; i++) {
        double v = vmax * i / 2.0;
        double y = y_of(v, vmax);
        fprintf(f, "<line class=\"grid\" x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\"/>", PAD_L, y,
                CHART_W - 4, y);
        fprintf(f, "<text class=\"lbl\" x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%s%s</text>\n",
                PAD_L - 4, y + 4, num(b, v, v < 10 ? 2 : 0, "-"), i == 2 ? unit : "");
    }
    if (!a)
        return;
    for (int i = 0; i <= 4; i++) {
        double t = a->t0 + (a->t1 - a->t0) * i / 4.0;
        fprintf(f, "<text class=\"lbl\" x=\"%.1f\" y=\"%d\" text-anchor=\"%s\">%s s</text>\n",
                x_of(a, t), CHART_H - 6, i == 0 ? "start" : i == 4 ? "end" : "middle",
                num(b, t / 1000.0, 2, "-"));
    }
}

static void legend(char *buf, size_t cap, const int *classes, int n, const char *const *names,
                   const char *const *colors)
{
    size_t used = (size_t)snprintf(buf, cap, "<div class=\"legend\">");
    for (int i = 0; i < n && used < cap; i++) {
        int c = classes ? classes[i] : i;
        used += (size_t)snprintf(buf + used, cap - used,
                                 "<span><i style=\"background:%s\"></i>%s</span>", colors[c],
                                 names[c]);
    }
    if (used < cap)
        snprintf(buf + used, cap - used, "</div>");
}

/* Pause timeline: per pixel column and class the longest pause (its GC
 * in data-i for the hover); background GC spans as a band on top. False
 * when p's spill file could not be read. */
static bool chart_timeline(FILE *f, int pi, const gcs_gc_process *p, const axis *a, double max_pause)
{
    enum { COLS = CHART_W - PAD_L - 4 };
    long best[COLS][N_CLASSES];
    double best_pause[COLS][N_CLASSES];
    unsigned char span_on[COLS];
    memset(span_on, 0, sizeof span_on);
    for (int c = 0; c < COLS; c++)
        for (int k = 0; k < N_CLASSES; k++)
            best[c][k] = -1;
    bool any_bgc = false;
    gcs_gc_walk walk;
    gcs_gc_walk_start(&walk, p);
    for (const gcs_gc_info *gc; (gc = gcs_gc_walk_next(&walk));) {
        if (gc->type == GCS_GC_BACKGROUND && isfinite(gc->start_ms)) {
            double end = gc->start_ms + (isfinite(gc->duration_ms) ? gc->duration_ms : 0);
            for (int c = col_of(a, gc->start_ms); c <= col_of(a, end); c++)
                span_on[c] = 1;
            any_bgc = true;
        }
        if (!complete(gc))
            continue;
        int c = col_of(a, gc_time(gc)), k = class_of(gc);
        if (best[c][k] < 0 || gc->pause_ms > best_pause[c][k]) {
            best[c][k] = (long)gcs_gc_walk_index(&walk);
            best_pause[c][k] = gc->pause_ms;
        }
    }
    if (!gcs_gc_walk_end(&walk))
        return false;
    char id[32];
    snprintf(id, sizeof id, "p%d-timeline", pi);
    svg_open(f, id, "Pause timeline (each GC at its pause start; height = pause; band: background GCs running)",
             CHART_H);
    double vmax = nice_max(max_pause);
    svg_axes(f, vmax, " ms", a);
    if (any_bgc) {
        for (int c = 0; c < COLS;) {
            if (!span_on[c]) {
                c++;
                continue;
            }
            int s = c;
            while (c < COLS && span_on[c])
                c++;
            fprintf(f, "<rect class=\"bgc\" x=\"%d\" y=\"%d\" width=\"%d\" height=\"4\"/>", PAD_L + s,
                    PAD_T - 6 < 0 ? 0 : PAD_T - 6, c - s);
        }
        fputc('\n', f);
    }
    /* Tallest classes first so that a shorter pause in the same column
     * stays visible in front of it. */
    for (int c = 0; c < COLS; c++) {
        for (int k = 0; k < N_CLASSES; k++) {
            long i = best[c][k];
            if (i < 0)
                continue;
            double y = y_of(best_pause[c][k], vmax);
            double h = CHART_H - PAD_B - y;
            if (h < 1)
                h = 1, y = CHART_H - PAD_B - 1;
            fprintf(f, "<rect class=\"g%d\" data-i=\"%ld\" x=\"%d\" y=\"%.1f\" width=\"2\" height=\"%.1f\"/>\n",
                    k, i, PAD_L + c, y, h);
        }
    }
    char leg[1024];
    legend(leg, sizeof leg, NULL, N_CLASSES, class_name, class_color);
    svg_close(f, leg);
    return true;
}

/* A size series over time, drawn as its per-column min/max envelope:
 * values added in list order, each in its GC's column. */
enum { ENVELOPE_COLS = CHART_W - PAD_L - 4 };
typedef struct envelope {
    double lo[ENVELOPE_COLS], hi[ENVELOPE_COLS], first[ENVELOPE_COLS], last[ENVELOPE_COLS];
} envelope;

static void envelope_init(envelope *e)
{
    for (int c = 0; c < ENVELOPE_COLS; c++)
        e->lo[c] = INFINITY, e->hi[c] = -INFINITY, e->first[c] = e->last[c] = NAN;
}

/* Adds v (skipped unless finite) in column c. */
static void envelope_add(envelope *e, int c, double v)
{
    if (!isfinite(v))
        return;
    if (!isfinite(e->first[c]))
        e->first[c] = v;
    e->last[c] = v;
    e->lo[c] = fmin(e->lo[c], v);
    e->hi[c] = fmax(e->hi[c], v);
}

static void envelope_draw(FILE *f, const envelope *e, double vmax, const char *color, const char *cls)
{
    fprintf(f, "<polyline class=\"%s\" fill=\"none\" stroke=\"%s\" points=\"", cls, color);
    for (int c = 0; c < ENVELOPE_COLS; c++) {
        if (!isfinite(e->first[c]))
            continue;
        double x = PAD_L + c, first = e->first[c], last = e->last[c], lo = e->lo[c], hi = e->hi[c];
        /* Enter at the column's first value, visit its extremes, leave at its last. */
        fprintf(f, "%.0f,%.1f ", x, y_of(first, vmax));
        if (lo != hi)
            fprintf(f, "%.0f,%.1f %.0f,%.1f ", x, y_of(first <= last ? lo : hi, vmax), x,
                    y_of(first <= last ? hi : lo, vmax));
        if (last != first)
            fprintf(f, "%.0f,%.1f ", x, y_of(last, vmax));
    }
    fputs("\"/>\n", f);
}

/* The heap size before a GC (its peak when known), NaN without heap stats. */
static double size_before(const gcs_gc_info *gc)
{
    if (!gc->has_heap_stats)
        return NAN;
    return isfinite(gc->heap_size_peak_mb) ? gc->heap_size_peak_mb : gc->heap_size_before_mb;
}

static bool chart_heap(FILE *f, int pi, const gcs_gc_process *p, const axis *a, double peak)
{
    static const char *const names[7] = {"before (peak)", "after", "gen0 after", "gen1 after",
                                         "gen2 after", "LOH after", "POH after"};
    static const char *const colors[7] = {"#9c755f", "#222222", "#4e79a7", "#59a14f",
                                          "#e15759", "#edc948", "#76b7b2"};
    /* Before, after, and after per generation, from one pass. */
    envelope *e = malloc(7 * sizeof *e);
    if (!e)
        return false;
    for (int s = 0; s < 7; s++)
        envelope_init(&e[s]);
    gcs_gc_walk walk;
    gcs_gc_walk_start(&walk, p);
    for (const gcs_gc_info *gc; (gc = gcs_gc_walk_next(&walk));) {
        if (!gc->has_heap_stats)
            continue;
        int c = col_of(a, gc_time(gc));
        envelope_add(&e[0], c, size_before(gc));
        envelope_add(&e[1], c, gc->heap_size_after_mb);
        for (int g = 0; g < GCS_GEN_COUNT; g++)
            envelope_add(&e[2 + g], c, gc->gen_size_after_mb[g]);
    }
    if (!gcs_gc_walk_end(&walk)) {
        free(e);
        return false;
    }
    char id[32];
    snprintf(id, sizeof id, "p%d-heap", pi);
    svg_open(f, id, "Heap size before and after each GC, and per generation after it (MB)", CHART_H);
    double vmax = nice_max(peak);
    svg_axes(f, vmax, " MB", a);
    envelope_draw(f, &e[0], vmax, colors[0], "s0");
    envelope_draw(f, &e[1], vmax, colors[1], "s1");
    for (int g = 0; g < GCS_GEN_COUNT; g++)
        envelope_draw(f, &e[2 + g], vmax, colors[2 + g], "s2");
    free(e);
    char leg[1024];
    legend(leg, sizeof leg, NULL, 7, names, colors);
    svg_close(f, leg);
    return true;
}

/* Server GC: per heap (its per-heap history, in arrival order) the object
 * space of gen0 + LOH + POH before each GC (dashed) and its object size
 * after (solid), one colour a heap (the first 16). */
enum { MAX_HEAP_LINES = 16 };

static bool chart_heaps(FILE *f, int pi, const gcs_gc_analyzer *an, const gcs_gc_process *p,
                        const axis *a)
{
    static const char *const palette[8] = {"#4e79a7", "#f28e2b", "#e15759", "#76b7b2",
                                           "#59a14f", "#edc948", "#b07aa1", "#9c755f"};
    int heaps = p->max_heap_count > MAX_HEAP_LINES ? MAX_HEAP_LINES : p->max_heap_count;
    if (!an || heaps <= 1 || p->gc_count == 0)
        return true;
    /* [before | after][heap], from one pass over the GCs. */
    envelope *e = malloc(2 * (size_t)heaps * sizeof *e);
    if (!e)
        return false;
    for (int s = 0; s < 2 * heaps; s++)
        envelope_init(&e[s]);
    /* Both sides of a GC from one read of a spill file (heap_index keeps
     * the chunk's index). */
    gcs_gc_heap_index *heap_index = calloc(1, sizeof *heap_index);
    if (!heap_index) {
        free(e);
        return false;
    }
    double vmax = 0, side_mb[2][MAX_HEAP_LINES];
    gcs_gc_walk walk;
    gcs_gc_walk_start(&walk, p);
    for (const gcs_gc_info *gc; (gc = gcs_gc_walk_next(&walk));) {
        size_t k = gcs_gc_heap_values(an, p, gcs_gc_walk_index(&walk), heap_index, side_mb[0],
                                      side_mb[1], MAX_HEAP_LINES);
        int c = col_of(a, gc_time(gc));
        for (int side = 0; side < 2; side++)
            for (int h = 0; h < heaps && (size_t)h < k; h++) {
                double v = side_mb[side][h];
                envelope_add(&e[side * heaps + h], c, v);
                if (isfinite(v) && v > vmax)
                    vmax = v;
            }
    }
    free(heap_index);
    if (!gcs_gc_walk_end(&walk)) {
        free(e);
        return false;
    }
    char id[32];
    snprintf(id, sizeof id, "p%d-heaps", pi);
    svg_open(f, id,
             "Server GC heaps: object space of gen0 + LOH + POH per heap, before each GC (dashed) "
             "and after it (solid) (MB)",
             CHART_H);
    vmax = nice_max(vmax);
    svg_axes(f, vmax, " MB", a);
    char names[MAX_HEAP_LINES][24];
    const char *name_of[MAX_HEAP_LINES], *color_of[MAX_HEAP_LINES];
    for (int h = 0; h < heaps; h++) {
        envelope_draw(f, &e[h], vmax, palette[h % 8], "hb");
        envelope_draw(f, &e[heaps + h], vmax, palette[h % 8], "ha");
        snprintf(names[h], sizeof names[h], "heap %d", h);
        name_of[h] = names[h];
        color_of[h] = palette[h % 8];
    }
    free(e);
    char leg[2048];
    legend(leg, sizeof leg, NULL, heaps, name_of, color_of);
    svg_close(f, leg);
    return true;
}

/* Allocation rate: what the GCs report allocated since the GC before,
 * summed per time bucket, over the bucket's length. */
static bool chart_alloc(FILE *f, int pi, const gcs_gc_process *p, const axis *a)
{
    enum { BUCKETS = 120 };
    double mb[BUCKETS] = {0};
    gcs_gc_walk walk;
    gcs_gc_walk_start(&walk, p);
    for (const gcs_gc_info *gc; (gc = gcs_gc_walk_next(&walk));) {
        if (!isfinite(gc->allocated_since_last_gc_mb))
            continue;
        double span = a->t1 - a->t0;
        int b = span > 0 ? (int)((gc_time(gc) - a->t0) / span * BUCKETS) : 0;
        b = b < 0 ? 0 : b >= BUCKETS ? BUCKETS - 1 : b;
        mb[b] += gc->allocated_since_last_gc_mb;
    }
    if (!gcs_gc_walk_end(&walk))
        return false;
    double bucket_s = (a->t1 - a->t0) / BUCKETS / 1000.0, rmax = 0;
    for (int b = 0; b < BUCKETS; b++)
        rmax = fmax(rmax, bucket_s > 0 ? mb[b] / bucket_s : 0);
    char id[32];
    snprintf(id, sizeof id, "p%d-alloc", pi);
    svg_open(f, id, "Allocation rate (MB/s, allocated between GCs, per time slice)", CHART_H);
    double vmax = nice_max(rmax);
    svg_axes(f, vmax, " MB/s", a);
    double w = (double)(CHART_W - PAD_L - 4) / BUCKETS;
    for (int b = 0; b < BUCKETS; b++) {
        double r = bucket_s > 0 ? mb[b] / bucket_s : 0;
        if (!(r > 0))
            continue;
        double y = y_of(r, vmax);
        fprintf(f, "<rect class=\"alloc\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\"><title>",
                PAD_L + b * w, y, w - 0.5, CHART_H - PAD_B - y);
        put_text(f, r, 1);
        fputs(" MB/s</title></rect>\n", f);
    }
    svg_close(f, NULL);
    return true;
}

static void chart_histogram(FILE *f, int pi, const uint64_t *hist)
{
    char id[32];
    snprintf(id, sizeof id, "p%d-hist", pi);
    svg_open(f, id, "Pause histogram (complete GCs per pause range)", CHART_H);
    uint64_t hmax = 0;
    for (int b = 0; b < GCS_GC_HIST_BUCKETS; b++)
        hmax = hist[b] > hmax ? hist[b] : hmax;
    double vmax = nice_max((double)hmax);
    svg_axes(f, vmax, "", NULL);
    double w = (double)(CHART_W - PAD_L - 4) / GCS_GC_HIST_BUCKETS;
    char b1[48];
    for (int b = 0; b < GCS_GC_HIST_BUCKETS; b++) {
        double y = y_of((double)hist[b], vmax);
        double x = PAD_L + b * w;
        fprintf(f, "<rect class=\"hist\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\"/>", x + 2, y,
                w - 4, CHART_H - PAD_B - y);
        fprintf(f, "<text class=\"lbl\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%llu</text>",
                x + w / 2, y - 2 < 10 ? 10 : y - 2, (unsigned long long)hist[b]);
        if (b < GCS_GC_HIST_BUCKETS - 1)
            fprintf(f, "<text class=\"lbl\" x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">&lt; %s ms</text>\n",
                    x + w / 2, CHART_H - 6, num(b1, gcs_gc_hist_bounds_ms[b], gcs_gc_hist_bounds_ms[b] < 1 ? 1 : 0, "-"));
        else
            fprintf(f, "<text class=\"lbl\" x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">more</text>\n",
                    x + w / 2, CHART_H - 6);
    }
    svg_close(f, NULL);
}

static void chart_mmu(FILE *f, int pi, const double *win, const double *mmu, size_t n)
{
    char id[32];
    snprintf(id, sizeof id, "p%d-mmu", pi);
    svg_open(f, id, "Minimum mutator utilization (worst share of a window the program ran, per window size)",
             CHART_H);
    svg_axes(f, 1.0, "", NULL);
    double lmin = 0, lmax = n > 1 ? log10(win[n - 1]) : 1;
    double plot_w = CHART_W - PAD_L - 24;
    char b[48];
    fputs("<polyline class=\"mmul\" points=\"", f);
    for (size_t i = 0; i < n; i++)
        if (isfinite(mmu[i]))
            fprintf(f, "%.1f,%.1f ", PAD_L + 10 + plot_w * (log10(win[i]) - lmin) / (lmax - lmin),
                    y_of(mmu[i], 1.0));
    fputs("\"/>\n", f);
    for (size_t i = 0; i < n; i++) {
        if (!isfinite(mmu[i]))
            continue;
        double x = PAD_L + 10 + plot_w * (log10(win[i]) - lmin) / (lmax - lmin);
        fprintf(f, "<circle class=\"mmu\" cx=\"%.1f\" cy=\"%.1f\" r=\"3\"><title>%s ms: ", x,
                y_of(mmu[i], 1.0), num(b, win[i], 0, "-"));
        put_text(f, mmu[i] * 100, 1);
        fputs(" %</title></circle>", f);
        fprintf(f, "<text class=\"lbl\" x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%s</text>\n", x,
                CHART_H - 6,
                win[i] >= 1000 ? (snprintf(b, sizeof b, "%gs", win[i] / 1000), b)
                               : (snprintf(b, sizeof b, "%gms", win[i]), b));
    }
    svg_close(f, NULL);
}

/* ----------------------------------------------------------- sections */

static void kpi(FILE *f, const char *label, double v, int dec, const char *unit)
{
    fprintf(f, "<div class=\"kpi\"><b>");
    put_text(f, v, dec);
    fprintf(f, "%s</b><span>%s</span></div>\n", unit, label);
}

static void gen_code(char *buf, size_t cap, const gcs_gc_info *gc)
{
    const char *kind = gc->type == GCS_GC_BACKGROUND ? "B" : gc->type == GCS_GC_FOREGROUND ? "F" : "N";
    snprintf(buf, cap, "%u%s%s", gc->generation, kind,
             gc->reason == 1 ? "I" : gc->reason == 7 ? "i" : "");
}

static const char *reason_of(uint32_t r, char *buf, size_t cap)
{
    const char *n = gcs_gc_reason_name(r);
    if (n)
        return n;
    snprintf(buf, cap, "%u", r);
    return buf;
}

static void rollup_row(FILE *f, const char *name, const gcs_gc_process *p, const gcs_gc_rollup *r)
{
    fprintf(f, "<tr><td>%s</td><td>%u</td><td>", name, r->count);
    put_text(f, r->max_pause_ms, 3);
    fputs("</td><td>", f);
    put_text(f, r->max_size_peak_mb, 3);
    fputs("</td><td>", f);
    put_text(f, r->max_alloc_rate_mb_s, 3);
    fputs("</td><td>", f);
    put_text(f, r->total_pause_ms, 3);
    fputs("</td><td>", f);
    put_text(f, r->total_allocated_mb, 3);
    fputs("</td><td>", f);
    put_text(f, r->mean_pause_ms, 3);
    fputs("</td><td>", f);
    put_text(f, r->total_pause_ms > 0 ? p->all.total_allocated_mb / r->total_pause_ms : NAN, 3);
    fprintf(f, "</td><td>%u</td></tr>\n", r->num_induced);
}

enum { LONG_ROWS_MAX = 500 };

static bool table_long_pauses(FILE *f, const gcs_gc_process *p, double threshold)
{
    char b[48];
    fprintf(f, "<h3>Pauses over %s ms</h3>\n", num(b, threshold, threshold < 10 ? 1 : 0, "-"));
    size_t shown = 0, total = 0;
    gcs_gc_walk walk;
    gcs_gc_walk_start(&walk, p);
    for (const gcs_gc_info *gc; (gc = gcs_gc_walk_next(&walk));) {
        if (!complete(gc) || !(gc->pause_ms > threshold))
            continue;
        if (total++ == 0)
            fputs("<table class=\"t\"><tr><th>GC#</th><th>pause start (ms)</th><th>pause (ms)</th>"
                  "<th>gen</th><th>reason</th></tr>\n", f);
        if (shown >= LONG_ROWS_MAX)
            continue;
        shown++;
        char g[16], rb[16];
        gen_code(g, sizeof g, gc);
        fprintf(f, "<tr><td>%d</td><td>", gc->number);
        put_text(f, gc->pause_start_ms, 3);
        fputs("</td><td>", f);
        put_text(f, gc->pause_ms, 3);
        fprintf(f, "</td><td>%s</td><td>%s</td></tr>\n", g, reason_of(gc->reason, rb, sizeof rb));
    }
    if (total == 0)
        fputs("<p>None.</p>\n", f);
    else
        fputs("</table>\n", f);
    if (total > shown)
        fprintf(f, "<p>%zu more: sort the per-GC table by pause.</p>\n", total - shown);
    return gcs_gc_walk_end(&walk);
}

static bool table_condemned(FILE *f, const gcs_gc_process *p)
{
    uint32_t counts[GCS_GC_CONDEMNED_GROUPS] = {0}, with = 0;
    gcs_gc_walk walk;
    gcs_gc_walk_start(&walk, p);
    for (const gcs_gc_info *gc; (gc = gcs_gc_walk_next(&walk));) {
        if (!gc->has_global_history)
            continue;
        with++;
        for (uint32_t g = 0; g < GCS_GC_CONDEMNED_GROUPS; g++)
            if (gc->condemned_reasons & (1u << g))
                counts[g]++;
    }
    if (!gcs_gc_walk_end(&walk))
        return false;
    fputs("<h3>Condemned reasons</h3>\n", f);
    if (!with) {
        fputs("<p>No GC carries a global heap history.</p>\n", f);
        return true;
    }
    fputs("<table class=\"t\"><tr><th>reason</th><th>GCs</th><th>% of GCs with reasons</th></tr>\n", f);
    for (uint32_t g = 0; g < GCS_GC_CONDEMNED_GROUPS; g++) {
        if (!counts[g])
            continue;
        fprintf(f, "<tr><td>%s</td><td>%u</td><td>", gcs_gc_condemned_group_name(g), counts[g]);
        put_text(f, 100.0 * counts[g] / with, 1);
        fputs("</td></tr>\n", f);
    }
    fputs("</table>\n", f);
    return true;
}

/* Finalized objects by type (docs/gc-stats.md): TraceEvent's rows, the
 * type ids behind its "" row indented, at most 20 of each as PerfView. */
static void table_finalized(FILE *f, const gcs_gc_html_options *o, uint32_t pid)
{
    enum { ROWS = 20 };
    if (!o->finalized)
        return;
    const gcs_finalized_process *fp = gcs_finalized_find(o->finalized, pid);
    fputs("<h3>Finalized objects by type</h3>\n", f);
    if (!fp) {
        fputs("<p>No FinalizeObject event of the runtime provider (its GC keyword at verbose level writes them).</p>\n", f);
        return;
    }
    if (fp->objects == 0) {
        /* Only the private provider's events (gcscope record's default). */
        fprintf(f, "<p>%llu objects queued for their finalizer, by the type name of the runtime's "
                   "private FinalizeObject event (TraceEvent counts none: it reads the runtime "
                   "provider's, which this trace does not have).</p>\n"
                   "<table class=\"t\"><tr><th>objects</th><th>type</th></tr>\n",
                (unsigned long long)fp->private_objects);
        for (size_t i = 0; i < fp->private_type_count && i < ROWS; i++) {
            fprintf(f, "<tr><td>%llu</td><td>", (unsigned long long)fp->private_types[i].count);
            gcs_html_escape(f, fp->private_types[i].name[0] ? fp->private_types[i].name : "\"\"");
            fputs("</td></tr>\n", f);
        }
        fputs("</table>\n", f);
        if (fp->private_type_count > ROWS)
            fprintf(f, "<p>%zu more types: <code>gcscope stats --format json</code> lists them all.</p>\n",
                    fp->private_type_count - ROWS);
        return;
    }
    fprintf(f, "<p>%llu objects queued for their finalizer, by the type name TraceEvent gives "
               "them.</p>\n<table class=\"t\"><tr><th>objects</th><th>type</th></tr>\n",
            (unsigned long long)fp->objects);
    for (size_t i = 0; i < fp->type_count && i < ROWS; i++) {
        const gcs_finalized_type *t = &fp->types[i];
        fprintf(f, "<tr><td>%llu</td><td>", (unsigned long long)t->count);
        if (t->name[0]) {
            gcs_html_escape(f, t->name);
            fputs("</td></tr>\n", f);
            continue;
        }
        fputs("&quot;&quot; (no BulkType named the type before the object)</td></tr>\n", f);
        for (size_t k = 0; k < fp->unnamed_count && k < ROWS; k++) {
            const gcs_finalized_unnamed *u = &fp->unnamed[k];
            fprintf(f, "<tr><td>%llu</td><td>&nbsp;&nbsp;&nbsp;&nbsp;", (unsigned long long)u->count);
            if (u->name) {
                gcs_html_escape(f, u->name);
                fputs(" <span class=\"sub\">(", f);
                gcs_html_escape(f, gcs_finalized_name_source_name(u->source));
                fputs(")</span>", f);
            } else {
                fprintf(f, "type 0x%llx <span class=\"sub\">(no name in the trace)</span>",
                        (unsigned long long)u->type_id);
            }
            fputs("</td></tr>\n", f);
        }
        if (fp->unnamed_count > ROWS)
            fprintf(f, "<tr><td></td><td>&nbsp;&nbsp;&nbsp;&nbsp;%zu more type ids "
                       "(<code>gcscope stats --format json</code> lists them all)</td></tr>\n",
                    fp->unnamed_count - ROWS);
    }
    fputs("</table>\n", f);
    if (fp->type_count > ROWS)
        fprintf(f, "<p>%zu more types: <code>gcscope stats --format json</code> lists them all.</p>\n",
                fp->type_count - ROWS);
}

/* A stack's frames in a table cell, a line each, the first 12. */
static void html_frames(FILE *f, const char *const *frames, size_t n)
{
    enum { FRAMES = 12 };
    for (size_t j = 0; j < n && j < FRAMES; j++) {
        if (j)
            fputs("<br>", f);
        gcs_html_escape(f, frames[j]);
    }
    if (n > FRAMES)
        fprintf(f, "<br>... %zu more frames", n - (size_t)FRAMES);
}

/* GCs by what triggered them (docs/allocs.md): reason and call stack,
 * every process together; who calls GC.Collect shows here. */
static void section_triggers(FILE *f, const gcs_allocs *al)
{
    enum { ROWS = 10 };
    const size_t n = gcs_allocs_trigger_count(al);
    if (n == 0)
        return;
    gcs_allocs_stats s;
    gcs_allocs_get_stats(al, &s);
    fprintf(f, "<section><h2>What triggers the GCs</h2>\n<p>%llu GCTriggered events (one per GC, "
               "on the thread whose allocation or GC.Collect call started it), %llu with a call "
               "stack; every process of the trace.</p>\n<table class=\"t\"><tr><th>GCs</th>"
               "<th>reason</th><th>frames that are methods, innermost first</th></tr>\n",
            (unsigned long long)s.triggers, (unsigned long long)s.triggers_with_stack);
    for (size_t i = 0; i < n && i < ROWS; i++) {
        const gcs_allocs_trigger *t = gcs_allocs_trigger_at(al, i);
        fprintf(f, "<tr><td>%llu</td><td>", (unsigned long long)t->gcs);
        gcs_html_escape(f, t->reason);
        fputs("</td><td>", f);
        html_frames(f, t->frames, t->n_frames);
        fputs("</td></tr>\n", f);
    }
    fputs("</table>\n", f);
    if (n > ROWS)
        fprintf(f, "<p>%zu more: <code>gcscope allocs</code> lists them all.</p>\n", n - ROWS);
    fputs("</section>\n", f);
}

/* Who allocates (docs/allocs.md): the allocating methods and the heaviest
 * call stacks, every process together; `gcscope allocs` has every list. */
static void section_allocs(FILE *f, const gcs_gc_html_options *o)
{
    enum { METHODS = 15, STACKS = 5 };
    if (!o->allocs)
        return;
    gcs_allocs_stats s;
    gcs_allocs_get_stats(o->allocs, &s);
    if (s.ticks == 0) {
        section_triggers(f, o->allocs);
        return;
    }
    fprintf(f, "<section><h2>Who allocates</h2>\n<p>%llu AllocationTick samples (each the bytes "
               "its thread allocated since its previous one), %.3f MB, every process of the "
               "trace; %llu with a call stack, their frames named as TraceEvent's TraceLog names "
               "them. <code>gcscope allocs</code> lists every method, type and stack.</p>\n",
            (unsigned long long)s.ticks, (double)s.bytes / 1e6,
            (unsigned long long)s.ticks_with_stack);
    fputs("<h3>Allocating methods</h3>\n<table class=\"t\"><tr><th>MB</th><th>%</th>"
          "<th>samples</th><th>method (the first frame that is a method)</th></tr>\n", f);
    const size_t n = gcs_allocs_count(o->allocs, GCS_ALLOCS_EXCLUSIVE);
    for (size_t i = 0; i < n && i < METHODS; i++) {
        const gcs_allocs_row *r = gcs_allocs_at(o->allocs, GCS_ALLOCS_EXCLUSIVE, i);
        fputs("<tr><td>", f);
        put_text(f, (double)r->bytes / 1e6, 3);
        fputs("</td><td>", f);
        put_text(f, 100.0 * (double)r->bytes / (double)s.bytes, 1);
        fprintf(f, "</td><td>%llu</td><td>", (unsigned long long)r->ticks);
        gcs_html_escape(f, r->method);
        fputs("</td></tr>\n", f);
    }
    fputs("</table>\n", f);
    const size_t ns = gcs_allocs_stack_count(o->allocs);
    if (ns > 0) {
        fputs("<h3>Allocating call stacks</h3>\n<table class=\"t\"><tr><th>MB</th><th>%</th>"
              "<th>samples</th><th>frames that are methods, allocating frame first</th></tr>\n",
              f);
        for (size_t i = 0; i < ns && i < STACKS; i++) {
            const gcs_allocs_stack *st = gcs_allocs_stack_at(o->allocs, i);
            fputs("<tr><td>", f);
            put_text(f, (double)st->bytes / 1e6, 3);
            fputs("</td><td>", f);
            put_text(f, 100.0 * (double)st->bytes / (double)s.bytes, 1);
            fprintf(f, "</td><td>%llu</td><td>", (unsigned long long)st->ticks);
            html_frames(f, st->frames, st->n_frames);
            fputs("</td></tr>\n", f);
        }
        fputs("</table>\n", f);
    }
    fputs("</section>\n", f);
    section_triggers(f, o->allocs);
}

/* The per-GC columns of data_json, each written by a pass over the GCs:
 * n (GC number, delta from the previous), t (pause start in 0.01 ms,
 * delta), p pause ms, c code (generation + 4 type + 16 induced + 32
 * incomplete), r reason, k compaction, h heap count, b size before/peak,
 * a after, o promoted, l gen0 allocated (MB). */
typedef enum gc_column {
    COL_N, COL_T, COL_P, COL_C, COL_R, COL_K, COL_H, COL_B, COL_A, COL_O, COL_L
} gc_column;

static bool column_json(FILE *f, const gcs_gc_process *p, gc_column col)
{
    /* Deltas in 64 bits: a trace's GC numbers are any 32-bit values. */
    int64_t prev_n = 0;
    long long prev_t = 0;
    gcs_gc_walk walk;
    gcs_gc_walk_start(&walk, p);
    for (const gcs_gc_info *gc; (gc = gcs_gc_walk_next(&walk));) {
        const char *sep = gcs_gc_walk_index(&walk) ? "," : "";
        switch (col) {
        case COL_N:
            fprintf(f, "%s%lld", sep, (long long)(gc->number - prev_n));
            prev_n = gc->number;
            break;
        case COL_T: {
            /* Clamped to +-1e15 (317 years in 0.01 ms), so that llround and
             * the delta stay in range whatever a trace's timestamps say. */
            double t = gc_time(gc);
            long long tt = isfinite(t) ? llround(fmax(-1e15, fmin(1e15, t * 100))) : prev_t;
            fprintf(f, "%s%lld", sep, tt - prev_t);
            prev_t = tt;
            break;
        }
        case COL_P:
            fputs(sep, f);
            put_num(f, complete(gc) ? gc->pause_ms : NAN, 3);
            break;
        case COL_C: {
            unsigned code = (gc->generation & 3) + 4 * (gc->type & 3) +
                            16 * (gcs_gc_reason_is_induced(gc->reason) ? 1 : 0) + 32 * !complete(gc);
            fprintf(f, "%s%u", sep, code);
            break;
        }
        case COL_R:
            fprintf(f, "%s%u", sep, gc->reason);
            break;
        case COL_K: {
            /* 0 no history, 1 swept, 2 compacted for no named reason,
             * 3 + r for reason r, named by kn. */
            int code = gc->compacting < 0     ? 0
                       : !gc->compacting        ? 1
                       : gc->compact_reason < 0 ? 2
                                                : 3 + gc->compact_reason;
            fprintf(f, "%s%d", sep, code);
            break;
        }
        case COL_H:
            if (gc->num_heaps >= 0)
                fprintf(f, "%s%d", sep, (int)gc->num_heaps);
            else
                fprintf(f, "%snull", sep);
            break;
        default: {
            double v = col == COL_B   ? size_before(gc)
                       : col == COL_A ? gc->heap_size_after_mb
                       : col == COL_O ? gc->promoted_mb
                                      : gc->user_allocated_mb[GCS_GEN0];
            fputs(sep, f);
            put_num(f, v, 1); /* 0.1 MB: enough for a table, 400 kB less at 100k GCs */
            break;
        }
        }
    }
    return gcs_gc_walk_end(&walk);
}

/* The per-GC columns, JSON arrays the script turns into the table. */
static bool data_json(FILE *f, const gcs_gc_process *p, const gcs_gc_kpis *k, const uint64_t *hist,
                      const double *win, const double *mmu, size_t nw)
{
    fprintf(f, "{\"pid\":%u,\"heaps\":%d,\"kpi\":{\"gc_count\":%u,\"incomplete\":%u,\"max_pause_ms\":", p->pid,
            p->max_heap_count, k->complete_count, k->incomplete_count);
    put_num(f, k->max_pause_ms, 6);
    fputs(",\"p50_pause_ms\":", f);
    put_num(f, k->p50_pause_ms, 6);
    fputs(",\"p99_pause_ms\":", f);
    put_num(f, k->p99_pause_ms, 6);
    fputs(",\"total_pause_ms\":", f);
    put_num(f, k->total_pause_ms, 6);
    fputs(",\"gc_pct\":", f);
    put_num(f, k->gc_pct, 6);
    fputs(",\"peak_heap_mb\":", f);
    put_num(f, k->peak_heap_mb, 6);
    fputs("},\"histogram\":[", f);
    for (int b = 0; b < GCS_GC_HIST_BUCKETS; b++)
        fprintf(f, "%s%llu", b ? "," : "", (unsigned long long)hist[b]);
    fputs("],\"mmu\":[", f);
    for (size_t i = 0; i < nw; i++) {
        fprintf(f, "%s[", i ? "," : "");
        put_num(f, win[i], 0);
        fputc(',', f);
        put_num(f, mmu[i], 4);
        fputc(']', f);
    }
    bool ok = true;
    static const struct {
        const char *key;
        gc_column col;
    } before_kn[] = {{"n", COL_N}, {"t", COL_T}, {"p", COL_P}, {"c", COL_C}, {"r", COL_R}, {"k", COL_K}};
    fputs("],\"gcs\":{", f);
    for (size_t c = 0; c < sizeof before_kn / sizeof before_kn[0]; c++) {
        fprintf(f, "%s\"%s\":[", c ? "]," : "", before_kn[c].key);
        ok = ok && column_json(f, p, before_kn[c].col);
    }
    fputs("],\"kn\":[", f);
    for (uint32_t r = 0; gcs_gc_compact_reason_name(r); r++)
        fprintf(f, "%s\"%s\"", r ? "," : "", gcs_gc_compact_reason_name(r));
    /* h: each GC's heap count, only when it changed during the trace
     * (DATAS); else the script shows "heaps" for every row. */
    if (p->min_heap_count != p->max_heap_count) {
        fputs("],\"h\":[", f);
        ok = ok && column_json(f, p, COL_H);
    }
    static const struct {
        const char *key;
        gc_column col;
    } sizes[] = {{"b", COL_B}, {"a", COL_A}, {"o", COL_O}, {"l", COL_L}};
    for (size_t c = 0; c < sizeof sizes / sizeof sizes[0]; c++) {
        fprintf(f, "],\"%s\":[", sizes[c].key);
        ok = ok && column_json(f, p, sizes[c].col);
    }
    fputs("]}}", f);
    return ok;
}

/* One runtime's section; false when a pass over its GCs failed (out of
 * memory, a spill file that could not be read). */
static bool write_process(FILE *f, int pi, const gcs_gc_analyzer *an, const gcs_gc_process *p,
                          const gcs_gc_html_options *o)
{
    gcs_gc_kpis k;
    if (!gcs_gc_kpis_compute(p, &k))
        return false;
    double threshold = o->long_pause_ms > 0 ? o->long_pause_ms : 200.0;
    /* The time axis: the runtime's span (its GCs' when unknown), and the
     * pause histogram. */
    axis a = {INFINITY, -INFINITY};
    uint64_t hist[GCS_GC_HIST_BUCKETS] = {0};
    gcs_gc_walk walk;
    gcs_gc_walk_start(&walk, p);
    for (const gcs_gc_info *gc; (gc = gcs_gc_walk_next(&walk));) {
        double t = gc_time(gc);
        if (isfinite(t)) {
            a.t0 = fmin(a.t0, t);
            a.t1 = fmax(a.t1, t + (isfinite(gc->pause_ms) ? gc->pause_ms : 0));
        }
        if (!complete(gc))
            continue;
        int b = 0;
        while (b < GCS_GC_HIST_BUCKETS - 1 && !(gc->pause_ms < gcs_gc_hist_bounds_ms[b]))
            b++;
        hist[b]++;
    }
    if (!gcs_gc_walk_end(&walk))
        return false;
    if (isfinite(p->first_event_ms) && isfinite(p->last_event_ms) && p->last_event_ms > p->first_event_ms) {
        a.t0 = fmin(a.t0, p->first_event_ms);
        a.t1 = fmax(a.t1, p->last_event_ms);
    }
    if (!(a.t1 > a.t0))
        a.t1 = a.t0 + 1;
    double win[32], mmu[32];
    size_t nw = gcs_gc_mmu_windows(a.t1 - a.t0, win, 32);
    if (!gcs_gc_process_mmu(p, a.t0, a.t1, win, nw, mmu))
        nw = 0;

    fprintf(f, "<section class=\"proc\" id=\"p%d\">\n<h2>Process %u", pi, p->pid);
    if (p->clr_instance_id)
        fprintf(f, " (runtime %u)", (unsigned)p->clr_instance_id);
    fputs("</h2>\n<p class=\"sub\">", f);
    fprintf(f, ".NET %s%s &middot; %s GC%s%s &middot; concurrent %s &middot; heaps ",
            p->runtime_version[0] ? p->runtime_version : "(version unknown)", gcs_runtime_note(p),
            p->gc_mode ? p->gc_mode : "unknown", p->gc_mode_inferred ? " (inferred)" : "",
            "", p->concurrent < 0 ? "unknown" : p->concurrent ? "yes" : "no");
    if (p->min_heap_count != p->max_heap_count)
        fprintf(f, "%d to %d (DATAS: each GC's in the table)</p>\n", p->min_heap_count,
                p->max_heap_count);
    else
        fprintf(f, "%d</p>\n", p->max_heap_count > p->heap_count ? p->max_heap_count : p->heap_count);
    fputs("<div class=\"kpis\">\n", f);
    kpi(f, "GC throughput (time not paused)", k.throughput_pct, 2, " %");
    kpi(f, "p50 pause", k.p50_pause_ms, 3, " ms");
    kpi(f, "p99 pause", k.p99_pause_ms, 3, " ms");
    kpi(f, "max pause", k.max_pause_ms, 3, " ms");
    kpi(f, "peak heap", k.peak_heap_mb, 1, " MB");
    kpi(f, "allocation rate", k.alloc_rate_mb_s, 1, " MB/s");
    fprintf(f,
            "<div class=\"kpi\"><b>%u</b><span>GCs: gen0 %u, gen1 %u, gen2 %u; background %u, "
            "foreground %u, induced %u; incomplete %u</span></div>\n</div>\n",
            k.complete_count, k.gen_count[0], k.gen_count[1], k.gen_count[2],
            k.kind_count[GCS_GC_BACKGROUND], k.kind_count[GCS_GC_FOREGROUND], k.induced_count,
            k.incomplete_count);

    gcs_gc_finding fs[16];
    gcs_gc_finding_options fo = {.long_pause_ms = threshold};
    int nf = gcs_gc_findings(p, &fo, fs, 16);
    if (nf < 0)
        return false;
    fputs("<h3>Findings</h3>\n", f);
    if (nf <= 0)
        fputs("<p>No rule fired (docs/findings.md lists them).</p>\n", f);
    else {
        fputs("<ol class=\"findings\">\n", f);
        for (int i = 0; i < nf && i < 16; i++) {
            fprintf(f, "<li><span class=\"score\">%d</span> <b>", fs[i].score);
            gcs_html_escape(f, fs[i].title);
            fprintf(f, "</b> <code>%s</code><br>", fs[i].rule);
            gcs_html_escape(f, fs[i].evidence);
            fputs("<br><i>Try:</i> ", f);
            gcs_html_escape(f, fs[i].advice);
            fputs("</li>\n", f);
        }
        fputs("</ol>\n", f);
    }

    fputs("<h3>Charts</h3>\n", f);
    if (!chart_timeline(f, pi, p, &a, k.max_pause_ms) || !chart_heap(f, pi, p, &a, k.peak_heap_mb) ||
        !chart_heaps(f, pi, an, p, &a) || !chart_alloc(f, pi, p, &a))
        return false;
    chart_histogram(f, pi, hist);
    chart_mmu(f, pi, win, mmu, nw);

    fputs("<h3>GC rollup by generation</h3>\n<table class=\"t\"><tr><th>gen</th><th>count</th>"
          "<th>max pause (ms)</th><th>max peak (MB)</th><th>max alloc (MB/s)</th>"
          "<th>total pause (ms)</th><th>total alloc (MB)</th><th>mean pause (ms)</th>"
          "<th>alloc MB/ms GC</th><th>induced</th></tr>\n", f);
    rollup_row(f, "ALL", p, &p->all);
    for (int g = 0; g < 3; g++) {
        char name[16];
        snprintf(name, sizeof name, "%d", g);
        rollup_row(f, name, p, &p->gen[g]);
    }
    fputs("</table>\n", f);
    if (!table_long_pauses(f, p, threshold) || !table_condemned(f, p))
        return false;
    table_finalized(f, o, p->pid);

    fprintf(f, "<h3>Every GC (%zu)</h3>\n<div class=\"gctable\" id=\"p%d-gcs\"></div>\n"
               "<noscript>The per-GC table needs JavaScript; `gcscope stats` prints it.</noscript>\n",
            p->gc_count, pi);
    fprintf(f, "<script type=\"application/json\" class=\"gcs-data\" id=\"p%d-data\">", pi);
    bool ok = data_json(f, p, &k, hist, win, mmu, nw);
    fputs("</script>\n</section>\n", f);
    return ok;
}

static const char CSS[] =
    "body{font:14px/1.4 system-ui,sans-serif;margin:16px auto;max-width:960px;color:#222}"
    "h1{font-size:20px}h2{font-size:18px;border-bottom:1px solid #ccc}h3{font-size:15px;margin:18px 0 6px}"
    ".sub{color:#555}.kpis{display:flex;flex-wrap:wrap;gap:8px}"
    ".kpi{border:1px solid #ddd;border-radius:6px;padding:6px 10px;min-width:120px}"
    ".kpi b{display:block;font-size:18px}.kpi span{color:#555;font-size:12px}"
    ".chart{margin:8px 0}.chart figcaption{font-weight:600;font-size:13px}"
    "svg.plot{display:block;background:#fafafa;border:1px solid #eee}"
    ".grid{stroke:#e4e4e4}.lbl{font-size:10px;fill:#555}"
    ".g0{fill:#4e79a7}.g1{fill:#59a14f}.g2{fill:#e15759}.g3{fill:#f28e2b}.g4{fill:#b07aa1}"
    ".bgc{fill:#f28e2b;opacity:.45}.alloc{fill:#76b7b2}.hist{fill:#4e79a7}"
    ".mmu{fill:#e15759}.mmul{stroke:#e15759;fill:none;stroke-width:2}polyline{stroke-width:1.5}"
    ".hb{stroke-dasharray:4 3}"
    ".legend span{margin-right:12px;font-size:12px}.legend i{display:inline-block;width:10px;height:10px;margin-right:4px}"
    "table.t{border-collapse:collapse;font-size:12px}table.t td,table.t th{border:1px solid #ddd;padding:2px 6px;text-align:right}"
    "table.t th{background:#f0f0f0;cursor:pointer}.findings li{margin-bottom:6px}"
    ".score{display:inline-block;min-width:26px;text-align:center;background:#e15759;color:#fff;border-radius:4px}"
    "#tip{position:fixed;display:none;background:#fff;border:1px solid #999;padding:4px 8px;font-size:12px;pointer-events:none}"
    ".pager button{margin:4px}";

/* Hover on a timeline mark shows its GC's row; the per-GC table sorts by
 * any column and pages 100 rows at a time. */
static const char JS[] =
    "(function(){var R=['AllocSmall','Induced','LowMemory','Empty','AllocLarge','OutOfSpaceSOH',"
    "'OutOfSpaceLOH','InducedNotForced','Stress','InducedLowMemory','InducedCompacting','LowMemoryHost',"
    "'PMFullGC','LowMemoryHostBlocking','BGCTuningSOH','BGCTuningLOH','BGCStepping','InducedAggressive'];"
    "var H=['GC#','start ms','gen','reason','pause ms','peak MB','after MB','promoted MB','gen0 alloc MB','heaps','compacted'];"
    "var tip=document.getElementById('tip');"
    "function rows(d){var g=d.gcs,n=0,t=0,o=[];for(var i=0;i<g.n.length;i++){n+=g.n[i];t+=g.t[i];var c=g.c[i];"
    "o.push([n,t/100,(c&3)+'NBF'[(c>>2)&3]+(c&16?'I':'')+(c&32?' incomplete':''),R[g.r[i]]||g.r[i],g.p[i],g.b[i],g.a[i],g.o[i],g.l[i],g.h?g.h[i]:d.heaps<0?null:d.heaps,"
    "(g.k[i]<3?[null,'swept','yes'][g.k[i]]:g.kn[g.k[i]-3]||'reason '+(g.k[i]-3))]);}return o;}"
    "function f(v){return v===null?'-':typeof v=='number'&&v%1?v.toFixed(3):v;}"
    "document.querySelectorAll('script.gcs-data').forEach(function(s){var d=JSON.parse(s.textContent),"
    "all=rows(d),id=s.id.replace('-data',''),box=document.getElementById(id+'-gcs'),key=0,dir=1,page=0;"
    "function draw(){var h='<div class=pager><button data-m=-1>&lt;</button>'+(page*100+1)+'-'+Math.min(all.length,page*100+100)+' of '+all.length+'<button data-m=1>&gt;</button></div><table class=t><tr>';"
    "H.forEach(function(x,i){h+='<th data-k='+i+'>'+x+(i==key?(dir>0?' &#9650;':' &#9660;'):'')+'</th>'});h+='</tr>';"
    "all.slice(page*100,page*100+100).forEach(function(r){h+='<tr>'+r.map(function(v){return '<td>'+f(v)+'</td>'}).join('')+'</tr>'});"
    "box.innerHTML=h+'</table>';}"
    "box.addEventListener('click',function(e){var k=e.target.getAttribute('data-k'),m=e.target.getAttribute('data-m');"
    "if(k!==null){k=+k;dir=k==key?-dir:1;key=k;all.sort(function(a,b){var x=a[k],y=b[k];if(x===y)return a[0]-b[0];"
    "if(x===null)return 1;if(y===null)return -1;return (x<y?-1:1)*dir});page=0;draw();}"
    "if(m!==null){page=Math.max(0,Math.min(Math.floor((all.length-1)/100),page+ +m));draw();}});draw();"
    "var byIndex=rows(d),svg=document.getElementById(id+'-timeline');"
    "svg.addEventListener('mousemove',function(e){var i=e.target.getAttribute('data-i');if(i===null){tip.style.display='none';return;}"
    "var r=byIndex[+i];tip.innerHTML=H.map(function(x,j){return x+': '+f(r[j])}).join('<br>');"
    "tip.style.left=(e.clientX+12)+'px';tip.style.top=(e.clientY+12)+'px';tip.style.display='block';});"
    "svg.addEventListener('mouseleave',function(){tip.style.display='none'});});})();";

/* The page; an (may be NULL) gives the per-heap sizes of server GC. */
static int write_page(FILE *f, const gcs_gc_analyzer *an, const gcs_gc_process *const *ps, size_t n,
                      const gcs_gc_html_options *opts)
{
    gcs_gc_html_options none;
    memset(&none, 0, sizeof none);
    const gcs_gc_html_options *o = opts ? opts : &none;
    fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n<title>gcscope report", f);
    if (o->trace_name) {
        fputs(": ", f);
        gcs_html_escape(f, o->trace_name);
    }
    fprintf(f, "</title>\n<meta name=\"generator\" content=\"gcscope %s\">\n<style>%s</style></head><body>\n",
            GCS_VERSION_STRING, CSS);
    fputs("<h1>GC report", f);
    if (o->trace_name) {
        fputs(": ", f);
        gcs_html_escape(f, o->trace_name);
    }
    fputs("</h1>\n<div id=\"tip\"></div>\n", f);
    int written = 0;
    bool ok = true;
    for (size_t i = 0; i < n && ok; i++) {
        const gcs_gc_process *p = ps[i];
        if ((o->filter_pid && p->pid != o->pid) || p->gc_count == 0)
            continue;
        ok = write_process(f, (int)i, an, p, o);
        written++;
    }
    if (!ok)
        return -1;
    if (!written)
        fputs("<p>No GC in this trace.</p>\n", f);
    section_allocs(f, o);
    fprintf(f, "<p class=\"sub\">Made by gcscope %s. Times are ms since the trace start; sizes MB "
               "of 1,000,000 bytes. Findings: docs/findings.md.</p>\n",
            GCS_VERSION_STRING);
    fprintf(f, "<script>%s</script>\n</body></html>\n", JS);
    return ferror(f) ? -1 : written;
}

int gcs_gc_html_write_processes(FILE *f, const gcs_gc_process *const *ps, size_t n,
                                const gcs_gc_html_options *opts)
{
    return write_page(f, NULL, ps, n, opts);
}

int gcs_gc_html_write(FILE *f, const gcs_gc_analyzer *an, const gcs_gc_html_options *opts)
{
    size_t n = gcs_gc_process_count(an);
    const gcs_gc_process **ps = malloc((n ? n : 1) * sizeof *ps);
    if (!ps)
        return -1;
    for (size_t i = 0; i < n; i++)
        ps[i] = gcs_gc_process_at(an, i);
    int rc = write_page(f, an, ps, n, opts);
    free(ps);
    return rc;
}
