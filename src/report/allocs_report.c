/*
 * report/allocs_report.c - the allocation samples by call stack as a
 * table, JSON or CSV (gcscope/allocs.h; docs/allocs.md).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "gcscope/allocs.h"
#include "report/csv.h"
#include "report/json.h"

#define TABLE_ROWS 20u
#define TABLE_STACKS 5u   /* call stacks the table shows (--limit N: N) */
#define TABLE_FRAMES 12u  /* frames of each (--wide: all) */
#define TABLE_TRIGGERS 10u /* GC trigger rows the table shows (--limit N: N) */
#define NAME_CUT 100u

static const char *const view_keys[3] = {"exclusive", "inclusive", "by_type"};

static size_t shown(const gcs_allocs *a, gcs_allocs_view v, size_t limit)
{
    size_t n = gcs_allocs_count(a, v);
    return limit && limit < n ? limit : n;
}

/* s, or its first NAME_CUT bytes (at a character boundary) and "...". */
static void put_name(FILE *f, const char *s, bool wide)
{
    size_t n = strlen(s);
    if (wide || n <= NAME_CUT) {
        /* Control bytes of a hostile name would move the cursor. */
        for (const unsigned char *p = (const unsigned char *)s; *p; p++)
            fputc(*p < 0x20 || *p == 0x7f ? '?' : *p, f);
        return;
    }
    size_t cut = NAME_CUT - 3;
    while (cut > 0 && ((unsigned char)s[cut] & 0xC0) == 0x80)
        cut--;
    for (size_t i = 0; i < cut; i++) {
        unsigned char c = (unsigned char)s[i];
        fputc(c < 0x20 || c == 0x7f ? '?' : c, f);
    }
    fputs("...", f);
}

/* A stack's frames, a line each: TABLE_FRAMES at most (--wide: all). */
static void put_frames(FILE *f, const char *const *frames, size_t n, bool wide)
{
    const size_t shown = wide || n <= TABLE_FRAMES ? n : TABLE_FRAMES - 1;
    for (size_t j = 0; j < shown; j++) {
        fputs("      at ", f);
        put_name(f, frames[j], wide);
        fputc('\n', f);
    }
    if (shown < n)
        fprintf(f, "      ... %zu more frames (--wide: all)\n", n - shown);
}

static double pct(uint64_t part, uint64_t whole)
{
    return whole ? 100.0 * (double)part / (double)whole : 0.0;
}

static void table_view(FILE *f, const gcs_allocs *a, gcs_allocs_view v, const char *title,
                       const gcs_allocs_stats *s, const gcs_allocs_report_options *o)
{
    const size_t limit = o->limit ? o->limit : TABLE_ROWS;
    const size_t n = gcs_allocs_count(a, v), k = shown(a, v, limit);
    fprintf(f, "\n%s\n", title);
    fprintf(f, "%12s %6s %8s  %s\n", "MB", "%", "Samples",
            v == GCS_ALLOCS_BY_TYPE ? "Type  <-  Method" : "Method");
    for (size_t i = 0; i < k; i++) {
        const gcs_allocs_row *r = gcs_allocs_at(a, v, i);
        fprintf(f, "%12.3f %5.1f%% %8llu  ", (double)r->bytes / 1e6, pct(r->bytes, s->bytes),
                (unsigned long long)r->ticks);
        if (r->type) {
            put_name(f, r->type, o->wide);
            fputs("  <-  ", f);
        }
        put_name(f, r->method, o->wide);
        fputc('\n', f);
    }
    if (k < n)
        fprintf(f, "  (%zu more rows: --limit N or --format json)\n", n - k);
}

/* GCs by what triggered them: reason and frames, as the stacks are. */
static void write_table_triggers(FILE *f, const gcs_allocs *a, const gcs_allocs_report_options *o,
                                 const gcs_allocs_stats *s)
{
    const size_t n = gcs_allocs_trigger_count(a);
    if (n == 0)
        return;
    const size_t k = o->limit ? (o->limit < n ? o->limit : n) : (n < TABLE_TRIGGERS ? n : TABLE_TRIGGERS);
    fprintf(f, "\nGCs by what triggered them (%llu GCTriggered events, %llu with a stack: the "
               "reason, then the frames that are methods)\n",
            (unsigned long long)s->triggers, (unsigned long long)s->triggers_with_stack);
    fprintf(f, "%8s  %s\n", "GCs", "Reason");
    for (size_t i = 0; i < k; i++) {
        const gcs_allocs_trigger *t = gcs_allocs_trigger_at(a, i);
        fprintf(f, "%8llu  ", (unsigned long long)t->gcs);
        put_name(f, t->reason, o->wide);
        fputc('\n', f);
        put_frames(f, t->frames, t->n_frames, o->wide);
    }
    if (k < n)
        fprintf(f, "  (%zu more: --limit N or --format json)\n", n - k);
}

static void write_table(FILE *f, const gcs_allocs *a, const gcs_allocs_report_options *o)
{
    gcs_allocs_stats s;
    gcs_allocs_get_stats(a, &s);
    fprintf(f, "Allocations by call stack: %llu AllocationTick samples, %.3f MB\n",
            (unsigned long long)s.ticks, (double)s.bytes / 1e6);
    fputs("  (a sample stands for the bytes its thread allocated since its previous one: "
          "PerfView's GC Heap Alloc Ignore Free (Coarse Sampling))\n",
          f);
    if (s.outside_range)
        fprintf(f, "Time range: %llu samples outside it left out\n",
                (unsigned long long)s.outside_range);
    if (s.ticks == 0) {
        fputs(s.outside_range ? "note: no AllocationTick sample in the time range\n"
                              : "note: no AllocationTick events: record the runtime provider's "
                                "GC keyword (0x1) at verbose level (5)\n",
              f);
        write_table_triggers(f, a, o, &s);
        return;
    }
    fprintf(f, "Stacks: %llu of %llu samples have one (%llu distinct); %llu of %llu frames "
               "(%.1f %%) are in one of the %llu methods the trace describes\n",
            (unsigned long long)s.ticks_with_stack, (unsigned long long)s.ticks,
            (unsigned long long)s.distinct_stacks, (unsigned long long)s.frames_resolved,
            (unsigned long long)s.frames, pct(s.frames_resolved, s.frames),
            (unsigned long long)s.methods);
    if (s.ticks_with_stack == 0)
        fputs("note: the samples carry no stack (nettrace, netperf and ETL traces give stacks "
              "when the session collects them; NativeAOT and LTTng traces have none)\n",
              f);
    else if (s.methods == 0)
        fputs("note: no method events, so no frame is named: record the rundown "
              "(DOTNET_EventPipeRundown=1, the default) or the runtime provider's JIT keyword "
              "(0x10) at verbose level\n",
              f);
    if (s.over_limit)
        fprintf(f, "note: %llu samples or methods left out at a limit (docs/allocs.md)\n",
                (unsigned long long)s.over_limit);
    table_view(f, a, GCS_ALLOCS_EXCLUSIVE,
               "Allocating methods (each sample under the first frame from the leaf that is a "
               "method)",
               &s, o);
    table_view(f, a, GCS_ALLOCS_INCLUSIVE,
               "Methods on the stacks (inclusive: each sample under every method of its stack)",
               &s, o);
    table_view(f, a, GCS_ALLOCS_BY_TYPE, "Types by allocating method", &s, o);
    const size_t n = gcs_allocs_stack_count(a);
    const size_t k = o->limit ? (o->limit < n ? o->limit : n) : (n < TABLE_STACKS ? n : TABLE_STACKS);
    fputs("\nAllocating call stacks (the frames that are methods, allocating frame first)\n", f);
    fprintf(f, "%12s %6s %8s\n", "MB", "%", "Samples");
    for (size_t i = 0; i < k; i++) {
        const gcs_allocs_stack *st = gcs_allocs_stack_at(a, i);
        fprintf(f, "%12.3f %5.1f%% %8llu\n", (double)st->bytes / 1e6, pct(st->bytes, s.bytes),
                (unsigned long long)st->ticks);
        put_frames(f, st->frames, st->n_frames, o->wide);
    }
    if (k < n)
        fprintf(f, "  (%zu more stacks: --limit N or --format json)\n", n - k);
    write_table_triggers(f, a, o, &s);
}

static void write_json(FILE *f, const gcs_allocs *a, const gcs_allocs_report_options *o)
{
    gcs_allocs_stats s;
    gcs_allocs_get_stats(a, &s);
    fprintf(f,
            "{\"samples\":%llu,\"bytes\":%llu,\"samples_with_stack\":%llu,"
            "\"distinct_stacks\":%llu,\"frames\":%llu,\"frames_in_methods\":%llu,"
            "\"methods\":%llu,\"over_limit\":%llu,\"stack_walks_of_other_events\":%llu,"
            "\"outside_range\":%llu",
            (unsigned long long)s.ticks, (unsigned long long)s.bytes,
            (unsigned long long)s.ticks_with_stack, (unsigned long long)s.distinct_stacks,
            (unsigned long long)s.frames, (unsigned long long)s.frames_resolved,
            (unsigned long long)s.methods, (unsigned long long)s.over_limit,
            (unsigned long long)s.walks_unpaired, (unsigned long long)s.outside_range);
    for (int v = 0; v < 3; v++) {
        const size_t n = gcs_allocs_count(a, (gcs_allocs_view)v);
        const size_t k = shown(a, (gcs_allocs_view)v, o->limit);
        fprintf(f, ",\"%s\":[", view_keys[v]);
        for (size_t i = 0; i < k; i++) {
            const gcs_allocs_row *r = gcs_allocs_at(a, (gcs_allocs_view)v, i);
            fputs(i ? ",{" : "{", f);
            if (r->type) {
                fputs("\"type\":", f);
                gcs_json_string(f, r->type);
                fputc(',', f);
            }
            fputs("\"method\":", f);
            gcs_json_string(f, r->method);
            fprintf(f, ",\"bytes\":%llu,\"samples\":%llu}", (unsigned long long)r->bytes,
                    (unsigned long long)r->ticks);
        }
        fprintf(f, "],\"%s_left_out\":%zu", view_keys[v], n - k);
    }
    const size_t n = gcs_allocs_stack_count(a);
    const size_t k = o->limit && o->limit < n ? o->limit : n;
    fputs(",\"stacks\":[", f);
    for (size_t i = 0; i < k; i++) {
        const gcs_allocs_stack *st = gcs_allocs_stack_at(a, i);
        fprintf(f, "%s{\"bytes\":%llu,\"samples\":%llu,\"frames\":[", i ? "," : "",
                (unsigned long long)st->bytes, (unsigned long long)st->ticks);
        for (size_t j = 0; j < st->n_frames; j++) {
            if (j)
                fputc(',', f);
            gcs_json_string(f, st->frames[j]);
        }
        fputs("]}", f);
    }
    fprintf(f, "],\"stacks_left_out\":%zu", n - k);
    const size_t nt = gcs_allocs_trigger_count(a);
    const size_t kt = o->limit && o->limit < nt ? o->limit : nt;
    fprintf(f, ",\"gc_triggers\":%llu,\"gc_triggers_with_stack\":%llu,\"gc_trigger_stacks\":[",
            (unsigned long long)s.triggers, (unsigned long long)s.triggers_with_stack);
    for (size_t i = 0; i < kt; i++) {
        const gcs_allocs_trigger *t = gcs_allocs_trigger_at(a, i);
        fprintf(f, "%s{\"gcs\":%llu,\"reason\":", i ? "," : "", (unsigned long long)t->gcs);
        gcs_json_string(f, t->reason);
        fputs(",\"frames\":[", f);
        for (size_t j = 0; j < t->n_frames; j++) {
            if (j)
                fputc(',', f);
            gcs_json_string(f, t->frames[j]);
        }
        fputs("]}", f);
    }
    fprintf(f, "],\"gc_trigger_stacks_left_out\":%zu}\n", nt - kt);
}

/* One CSV cell of a stack's frames, leaf first, joined by " <- ";
 * false (nothing written) when memory for the cell is short. */
static bool csv_frames(FILE *f, const char *const *frames, size_t n)
{
    char *cell = NULL;
    size_t cell_len = 0;
    FILE *m = open_memstream(&cell, &cell_len);
    if (!m)
        return false;
    for (size_t j = 0; j < n; j++)
        fprintf(m, "%s%s", j ? " <- " : "", frames[j]);
    fclose(m);
    gcs_csv_text(f, cell);
    free(cell);
    return true;
}

static void write_csv(FILE *f, const gcs_allocs *a, const gcs_allocs_report_options *o)
{
    fputs("trace,view,type,method,bytes,samples\n", f);
    for (int v = 0; v < 3; v++) {
        const size_t k = shown(a, (gcs_allocs_view)v, o->limit);
        for (size_t i = 0; i < k; i++) {
            const gcs_allocs_row *r = gcs_allocs_at(a, (gcs_allocs_view)v, i);
            gcs_csv_text(f, o->trace_name ? o->trace_name : "");
            fprintf(f, ",%s,", view_keys[v]);
            gcs_csv_text(f, r->type ? r->type : "");
            fputc(',', f);
            gcs_csv_text(f, r->method);
            fprintf(f, ",%llu,%llu\n", (unsigned long long)r->bytes,
                    (unsigned long long)r->ticks);
        }
    }
    /* A stack's frames in the method cell. */
    const size_t n = gcs_allocs_stack_count(a);
    const size_t k = o->limit && o->limit < n ? o->limit : n;
    for (size_t i = 0; i < k; i++) {
        const gcs_allocs_stack *st = gcs_allocs_stack_at(a, i);
        gcs_csv_text(f, o->trace_name ? o->trace_name : "");
        fputs(",stack,,", f);
        if (!csv_frames(f, st->frames, st->n_frames))
            break;
        fprintf(f, ",%llu,%llu\n", (unsigned long long)st->bytes, (unsigned long long)st->ticks);
    }
    /* GC triggers: view gc_trigger, the reason in the type cell, samples
     * the GCs, bytes 0. */
    const size_t nt = gcs_allocs_trigger_count(a);
    const size_t kt = o->limit && o->limit < nt ? o->limit : nt;
    for (size_t i = 0; i < kt; i++) {
        const gcs_allocs_trigger *t = gcs_allocs_trigger_at(a, i);
        gcs_csv_text(f, o->trace_name ? o->trace_name : "");
        fputs(",gc_trigger,", f);
        gcs_csv_text(f, t->reason);
        fputc(',', f);
        if (!csv_frames(f, t->frames, t->n_frames))
            break;
        fprintf(f, ",0,%llu\n", (unsigned long long)t->gcs);
    }
}

gcs_status gcs_allocs_report_write(const gcs_allocs *a, FILE *out,
                                   const gcs_allocs_report_options *opts, gcs_error *err)
{
    static const gcs_allocs_report_options defaults = {0};
    const gcs_allocs_report_options *o = opts ? opts : &defaults;
    switch (o->format) {
    case GCS_ALLOCS_FORMAT_JSON:
        write_json(out, a, o);
        break;
    case GCS_ALLOCS_FORMAT_CSV:
        write_csv(out, a, o);
        break;
    default:
        write_table(out, a, o);
        break;
    }
    if (ferror(out))
        return GCS_FAIL(err, GCS_ERR_IO, 0, "writing the allocations report failed");
    return GCS_OK;
}

/* ---- against a baseline ---------------------------------------------- */

typedef struct diff_row {
    const char *method;
    uint64_t base_bytes, base_ticks, bytes, ticks;
} diff_row;

static int cmp_by_method(const void *x, const void *y)
{
    return strcmp((*(const gcs_allocs_row *const *)x)->method,
                  (*(const gcs_allocs_row *const *)y)->method);
}

static double delta_of(const diff_row *d)
{
    return (double)d->bytes - (double)d->base_bytes;
}

/* Largest difference either way first, then by name. */
static int cmp_diff(const void *x, const void *y)
{
    const diff_row *p = x, *q = y;
    double a = delta_of(p), b = delta_of(q);
    a = a < 0 ? -a : a;
    b = b < 0 ? -b : b;
    if (a != b)
        return a > b ? -1 : 1;
    return strcmp(p->method, q->method);
}

/* The exclusive rows of a, sorted by method name (NULL when short of memory). */
static const gcs_allocs_row **rows_by_method(const gcs_allocs *a, size_t *n)
{
    *n = gcs_allocs_count(a, GCS_ALLOCS_EXCLUSIVE);
    const gcs_allocs_row **r = calloc(*n ? *n : 1, sizeof *r);
    if (!r)
        return NULL;
    for (size_t i = 0; i < *n; i++)
        r[i] = gcs_allocs_at(a, GCS_ALLOCS_EXCLUSIVE, i);
    if (*n > 1)
        qsort(r, *n, sizeof *r, cmp_by_method);
    return r;
}

gcs_status gcs_allocs_diff_write(const gcs_allocs *base, const gcs_allocs *a, FILE *f,
                                 const gcs_allocs_report_options *opts, const char *base_name,
                                 gcs_error *err)
{
    static const gcs_allocs_report_options defaults = {0};
    const gcs_allocs_report_options *o = opts ? opts : &defaults;
    size_t nb, na;
    const gcs_allocs_row **rb = rows_by_method(base, &nb), **ra = rows_by_method(a, &na);
    diff_row *d = calloc(nb + na + 1, sizeof *d);
    if (!rb || !ra || !d) {
        free(rb);
        free(ra);
        free(d);
        return GCS_FAIL(err, GCS_ERR_NOMEM, 0, "out of memory comparing allocations");
    }
    /* Merge the two name-sorted lists. */
    size_t n = 0, i = 0, j = 0;
    while (i < nb || j < na) {
        int c = i == nb ? 1 : j == na ? -1 : strcmp(rb[i]->method, ra[j]->method);
        diff_row *r = &d[n++];
        r->method = c <= 0 ? rb[i]->method : ra[j]->method;
        if (c <= 0) {
            r->base_bytes = rb[i]->bytes;
            r->base_ticks = rb[i++]->ticks;
        }
        if (c >= 0) {
            r->bytes = ra[j]->bytes;
            r->ticks = ra[j++]->ticks;
        }
    }
    if (n > 1)
        qsort(d, n, sizeof *d, cmp_diff);
    gcs_allocs_stats sb, sa;
    gcs_allocs_get_stats(base, &sb);
    gcs_allocs_get_stats(a, &sa);
    const size_t limit = o->limit ? o->limit : o->format == GCS_ALLOCS_FORMAT_TABLE ? TABLE_ROWS : 0;
    const size_t k = limit && limit < n ? limit : n;
    const char *name = o->trace_name ? o->trace_name : "";
    if (o->format == GCS_ALLOCS_FORMAT_JSON) {
        fputs("{\"base\":", f);
        gcs_json_string(f, base_name ? base_name : "");
        fputs(",\"trace\":", f);
        gcs_json_string(f, name);
        fprintf(f, ",\"base_samples\":%llu,\"base_bytes\":%llu,\"samples\":%llu,\"bytes\":%llu,"
                   "\"methods\":[",
                (unsigned long long)sb.ticks, (unsigned long long)sb.bytes,
                (unsigned long long)sa.ticks, (unsigned long long)sa.bytes);
        for (size_t x = 0; x < k; x++) {
            fputs(x ? ",{\"method\":" : "{\"method\":", f);
            gcs_json_string(f, d[x].method);
            fprintf(f, ",\"base_bytes\":%llu,\"base_samples\":%llu,\"bytes\":%llu,\"samples\":%llu}",
                    (unsigned long long)d[x].base_bytes, (unsigned long long)d[x].base_ticks,
                    (unsigned long long)d[x].bytes, (unsigned long long)d[x].ticks);
        }
        fprintf(f, "],\"methods_left_out\":%zu}\n", n - k);
    } else if (o->format == GCS_ALLOCS_FORMAT_CSV) {
        fputs("trace,base,method,base_bytes,base_samples,bytes,samples\n", f);
        for (size_t x = 0; x < k; x++) {
            gcs_csv_text(f, name);
            fputc(',', f);
            gcs_csv_text(f, base_name ? base_name : "");
            fputc(',', f);
            gcs_csv_text(f, d[x].method);
            fprintf(f, ",%llu,%llu,%llu,%llu\n", (unsigned long long)d[x].base_bytes,
                    (unsigned long long)d[x].base_ticks, (unsigned long long)d[x].bytes,
                    (unsigned long long)d[x].ticks);
        }
    } else {
        fprintf(f, "Allocating methods against a baseline: %llu samples, %.3f MB (base: %llu, "
                   "%.3f MB)\n",
                (unsigned long long)sa.ticks, (double)sa.bytes / 1e6,
                (unsigned long long)sb.ticks, (double)sb.bytes / 1e6);
        fputs("  (each sample under the first frame of its stack that is a method; the largest "
              "differences first; runs of other lengths differ in total too)\n",
              f);
        fprintf(f, "%12s %12s %12s  %s\n", "BaseMB", "MB", "DeltaMB", "Method");
        for (size_t x = 0; x < k; x++) {
            fprintf(f, "%12.3f %12.3f %+12.3f  ", (double)d[x].base_bytes / 1e6,
                    (double)d[x].bytes / 1e6, delta_of(&d[x]) / 1e6);
            put_name(f, d[x].method, o->wide);
            fputc('\n', f);
        }
        if (k < n)
            fprintf(f, "  (%zu more methods: --limit N or --format json)\n", n - k);
    }
    free(rb);
    free(ra);
    free(d);
    if (ferror(f))
        return GCS_FAIL(err, GCS_ERR_IO, 0, "writing the allocations comparison failed");
    return GCS_OK;
}
