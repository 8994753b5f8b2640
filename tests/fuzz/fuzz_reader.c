/*
 * Harness: the whole pipeline over one input. A memory source feeds
 * gcs_reader_next; every event goes through both event printers (text and
 * JSON), one event at a time and through gcs_event_printer (whose lines
 * must be the same bytes), the GC analyzer, the finalized-objects counter,
 * the object analysis and the allocation samples by stack (the reader
 * keeping stacks for inputs of even size); then every report format (GC
 * table/JSON/CSV with the finalized objects, the HTML report with them and
 * the allocations, objects and
 * allocs table/JSON/CSV) is written, with report
 * options (columns, filters, summary only, objects time range and limit)
 * chosen from the input's size so that every variant is reached. While
 * reading, the GCs the analyzer hands out as settled (what `gcscope live`
 * prints) are taken: each GC must come out exactly once, with the values
 * the finished report holds (the promise of gcs_gc_analyzer_next_settled).
 * Otherwise the sanitizers are the oracle.
 */
#include "fuzz_common.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "gcscope.h"

#define MAX_SETTLED 4096

/* Two values equal as the report prints them (NaN equals NaN). */
static bool same(double a, double b) { return (isnan(a) && isnan(b)) || a == b; }

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    FILE *out = fuzz_sink();
    gcs_error err;
    gcs_error_clear(&err);
    gcs_source *src = gcs_source_from_memory(data, size, &err);
    unsigned variant = (unsigned)(size % 8);
    gcs_reader_options rd = {0};
    rd.stacks = (variant & 1) == 0;
    gcs_reader *r = src ? gcs_reader_new(src, &rd, &err) : NULL;
    gcs_gc_analyzer *gc = gcs_gc_analyzer_new(NULL, &err);
    gcs_objects *objs = gcs_objects_new(&err);
    gcs_finalized *fz = gcs_finalized_new();
    gcs_allocs *al = gcs_allocs_new();
    FUZZ_REQUIRE(src && r && gc && objs && fz && al);
    if (variant & 4)
        gcs_objects_set_time_range(objs, true, 1.0, variant & 1, 500.0);
    /* Lines of gcs_event_print_text/_json (one) and of the printers
     * (many), text then JSON. */
    char *lines[2][2] = {{NULL, NULL}, {NULL, NULL}};
    size_t line_len[2][2] = {{0, 0}, {0, 0}};
    FILE *line_out[2][2];
    for (int k = 0; k < 2; k++)
        for (int json = 0; json < 2; json++)
            FUZZ_REQUIRE(line_out[k][json] = open_memstream(&lines[k][json], &line_len[k][json]));
    gcs_event_printer *printer[2] = {gcs_event_printer_new(line_out[1][0], GCS_PRINT_TEXT),
                                     gcs_event_printer_new(line_out[1][1], GCS_PRINT_JSON)};
    FUZZ_REQUIRE(printer[0] && printer[1]);
    static gcs_gc_settled settled[MAX_SETTLED];
    size_t n_settled = 0, n_handed = 0;
    gcs_gc_settled one;
    const gcs_event *ev;
    gcs_status st;
    while ((st = gcs_reader_next(r, &ev, &err)) == GCS_OK) {
        gcs_error perr;
        gcs_error_clear(&perr);
        (void)gcs_event_print_text(line_out[0][0], ev, &perr);
        (void)gcs_event_print_json(line_out[0][1], ev, &perr);
        (void)gcs_event_printer_put(printer[0], ev, &perr);
        (void)gcs_event_printer_put(printer[1], ev, &perr);
        if (gcs_gc_analyzer_feed(gc, ev) < 0)
            break;
        while (gcs_gc_analyzer_next_settled(gc, &one))
            if (n_handed++ < MAX_SETTLED)
                settled[n_settled++] = one;
        if (gcs_objects_feed(objs, ev, &perr) < 0)
            break;
        FUZZ_REQUIRE(gcs_finalized_feed(fz, ev) == GCS_OK);
        gcs_allocs_feed(al, r, ev);
    }
    FUZZ_REQUIRE(gcs_finalized_finish(fz) == GCS_OK);
    /* Allocation samples: every sample once in the exclusive view, at
     * least once in the inclusive one; frames named at most all. */
    gcs_allocs_finish(al, r);
    gcs_allocs_stats as;
    gcs_allocs_get_stats(al, &as);
    FUZZ_REQUIRE(as.ticks_with_stack <= as.ticks && as.frames_resolved <= as.frames);
    FUZZ_REQUIRE(rd.stacks || as.ticks_with_stack == 0);
    if (as.over_limit == 0) {
        uint64_t bytes = 0, ticks = 0;
        for (size_t i = 0; i < gcs_allocs_count(al, GCS_ALLOCS_EXCLUSIVE); i++) {
            bytes += gcs_allocs_at(al, GCS_ALLOCS_EXCLUSIVE, i)->bytes;
            ticks += gcs_allocs_at(al, GCS_ALLOCS_EXCLUSIVE, i)->ticks;
        }
        FUZZ_REQUIRE(bytes == as.bytes && ticks == as.ticks);
        for (size_t i = 0; i < gcs_allocs_count(al, GCS_ALLOCS_INCLUSIVE); i++)
            FUZZ_REQUIRE(gcs_allocs_at(al, GCS_ALLOCS_INCLUSIVE, i)->ticks <= as.ticks);
        uint64_t stacked = 0;
        for (size_t i = 0; i < gcs_allocs_stack_count(al); i++) {
            const gcs_allocs_stack *stk = gcs_allocs_stack_at(al, i);
            FUZZ_REQUIRE(stk->n_frames > 0);
            stacked += stk->ticks;
        }
        FUZZ_REQUIRE(stacked == as.ticks_with_stack);
        uint64_t gcs = 0;
        for (size_t i = 0; i < gcs_allocs_trigger_count(al); i++)
            gcs += gcs_allocs_trigger_at(al, i)->gcs;
        FUZZ_REQUIRE(gcs == as.triggers);
    }
    for (int f = 0; f < 3; f++) {
        gcs_allocs_report_options ao = {.format = (gcs_allocs_format)f, .trace_name = "fuzz"};
        ao.wide = variant & 2;
        ao.limit = variant & 4 ? 2 : 0;
        (void)gcs_allocs_report_write(al, out, &ao, &err);
        (void)gcs_allocs_diff_write(al, al, out, &ao, "base", &err);
    }
    /* Each process's rows: most first, adding up to its objects; the ""
     * row's type ids add up to it. */
    for (size_t i = 0; i < gcs_finalized_process_count(fz); i++) {
        const gcs_finalized_process *fp = gcs_finalized_process_at(fz, i);
        uint64_t sum = 0;
        for (size_t k = 0; k < fp->type_count; k++) {
            FUZZ_REQUIRE(k == 0 || fp->types[k].count <= fp->types[k - 1].count);
            sum += fp->types[k].count;
            if (fp->types[k].name[0] == 0) {
                uint64_t ids = 0;
                for (size_t u = 0; u < fp->unnamed_count; u++)
                    ids += fp->unnamed[u].count;
                gcs_finalized_stats fs;
                gcs_finalized_get_stats(fz, &fs);
                FUZZ_REQUIRE(ids == fp->types[k].count || fs.over_limit > 0);
            }
        }
        FUZZ_REQUIRE(sum == fp->objects && gcs_finalized_find(fz, fp->pid) == fp);
        uint64_t private_sum = 0;
        for (size_t k = 0; k < fp->private_type_count; k++)
            private_sum += fp->private_types[k].count;
        FUZZ_REQUIRE(private_sum == fp->private_objects);
    }
    FUZZ_REQUIRE(st != GCS_AGAIN); /* a memory source never waits */
    for (int json = 0; json < 2; json++) {
        FUZZ_REQUIRE(gcs_event_printer_flush(printer[json], &err) == GCS_OK);
        gcs_event_printer_free(printer[json]);
        fclose(line_out[0][json]);
        fclose(line_out[1][json]);
        FUZZ_REQUIRE(line_len[0][json] == line_len[1][json] &&
                     memcmp(lines[0][json], lines[1][json], line_len[0][json]) == 0);
        free(lines[0][json]);
        free(lines[1][json]);
    }
    const gcs_reader_stats *rs = gcs_reader_get_stats(r);
    gcs_gc_analyzer_set_lost_events(gc, rs->lost_events);
    if (rs->events > 0)
        gcs_gc_analyzer_set_span(gc, gcs_reader_msec(r, rs->first_timestamp),
                                 gcs_reader_msec(r, rs->last_timestamp));
    gcs_gc_analyzer_finish(gc);
    while (gcs_gc_analyzer_next_settled(gc, &one))
        if (n_handed++ < MAX_SETTLED)
            settled[n_settled++] = one;
    /* Every GC once, with the report's values: per runtime the settled GCs
     * come in the order of the runtime's list (GCStart order). */
    size_t n_gcs = 0;
    for (size_t i = 0; i < gcs_gc_process_count(gc); i++) {
        const gcs_gc_process *p = gcs_gc_process_at(gc, i);
        n_gcs += p->gc_count;
        size_t j = 0;
        for (size_t m = 0; m < n_settled && n_handed <= MAX_SETTLED; m++) {
            if (settled[m].pid != p->pid || settled[m].clr_instance_id != p->clr_instance_id)
                continue;
            FUZZ_REQUIRE(j < p->gc_count);
            const gcs_gc_info *g = &p->gcs[j++], *s = &settled[m].info;
            FUZZ_REQUIRE(s->number == g->number && same(s->start_ms, g->start_ms) &&
                         s->generation == g->generation && s->type == g->type &&
                         s->is_complete == g->is_complete && same(s->pause_ms, g->pause_ms) &&
                         same(s->suspend_ms, g->suspend_ms) &&
                         same(s->pause_start_ms, g->pause_start_ms) &&
                         same(s->allocated_since_last_gc_mb, g->allocated_since_last_gc_mb) &&
                         same(s->heap_size_peak_mb, g->heap_size_peak_mb));
        }
        FUZZ_REQUIRE(j == p->gc_count || n_handed > MAX_SETTLED);
    }
    FUZZ_REQUIRE(n_handed == n_gcs);
    static const gcs_gc_format gc_formats[] = {GCS_GC_FORMAT_TABLE, GCS_GC_FORMAT_JSON,
                                               GCS_GC_FORMAT_CSV};
    for (size_t i = 0; i < sizeof gc_formats / sizeof gc_formats[0]; i++) {
        gcs_gc_report_options ro = {.format = gc_formats[i], .trace_name = "fuzz",
                                    .finalized = variant == 0 ? NULL : fz};
        ro.wide = variant == 1;
        ro.columns = variant == 2 ? "number,reason,pause,peak,notes,condemned" : NULL;
        ro.summary_only = variant == 3;
        ro.color = variant & 1;
        ro.long_pause_ms = variant == 5 ? 0.5 : 0;
        if (variant >= 4) {
            ro.filter.gen_mask = 1u << (variant % 3);
            ro.filter.has_min_pause = variant == 6;
            ro.filter.min_pause_ms = 0.1;
            ro.filter.top = variant == 7 ? 3 : 0;
            ro.filter.limit = variant == 5 ? 2 : 0;
            ro.filter.has_from = true;
            ro.filter.from_ms = 0.5;
        }
        (void)gcs_gc_report_write(out, gc, &ro);
    }
    gcs_gc_html_options ho = {.trace_name = "fuzz", .finalized = fz, .allocs = al};
    (void)gcs_gc_html_write(out, gc, &ho);
    /* compare and check on the trace's runtimes: each with itself (no
     * change, no regression), the first against the last, paired as two
     * traces would be. */
    size_t np = gcs_gc_process_count(gc);
    const gcs_gc_process *procs[8];
    size_t nk = np < 8 ? np : 8;
    for (size_t i = 0; i < nk; i++)
        procs[i] = gcs_gc_process_at(gc, i);
    long base_of[8];
    if (nk > 0) {
        (void)gcs_gc_pair_runtimes(procs, NULL, nk, procs, NULL, nk, base_of);
        for (size_t i = 0; i < nk; i++)
            FUZZ_REQUIRE(base_of[i] >= -1 && base_of[i] < (long)nk);
    }
    gcs_gc_limits lim = {.has_max_pause = true, .max_pause_ms = 10, .has_max_p99 = true,
                         .max_p99_pause_ms = 5, .has_max_gc_pct = true, .max_gc_pct = 1,
                         .has_max_gen2 = true, .max_gen2 = 1, .has_max_regression = true,
                         .max_regression_pct = 0};
    for (size_t i = 0; i < nk; i++) {
        gcs_gc_compare_row rows[GCS_GC_COMPARE_ROWS];
        int n = gcs_gc_compare(procs[i], procs[i], NULL, rows);
        FUZZ_REQUIRE(n <= GCS_GC_COMPARE_ROWS);
        for (int k = 0; k < n; k++)
            FUZZ_REQUIRE(rows[k].verdict == GCS_VERDICT_SAME);
        (void)gcs_gc_compare(procs[0], procs[i], NULL, rows);
        gcs_gc_violation v[16];
        int nv = gcs_gc_check(procs[i], procs[nk - 1 - i], &lim, v, 16);
        nv = gcs_gc_check(procs[i], procs[i], &lim, v, 16);
        for (int k = 0; k < nv && k < 16; k++) /* against itself nothing regressed */
            FUZZ_REQUIRE(strstr(v[k].limit, "regression") == NULL);
    }
    gcs_error_clear(&err);
    if (gcs_objects_finish(objs, &err) == GCS_OK) {
        static const gcs_objects_format obj_formats[] = {GCS_OBJECTS_TABLE, GCS_OBJECTS_JSON,
                                                         GCS_OBJECTS_CSV};
        for (size_t i = 0; i < sizeof obj_formats / sizeof obj_formats[0]; i++) {
            gcs_objects_report_options oo = {.format = obj_formats[i], .trace_name = "fuzz"};
            oo.wide = variant & 2;
            oo.limit = variant & 1 ? 2 : 0;
            (void)gcs_objects_report_write(objs, out, &oo, &err);
        }
    }
    fflush(out);
    gcs_objects_free(objs);
    gcs_finalized_free(fz);
    gcs_allocs_free(al);
    gcs_gc_analyzer_free(gc);
    gcs_reader_free(r);
    gcs_source_free(src);
    return 0;
}
