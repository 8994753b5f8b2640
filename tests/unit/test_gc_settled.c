/*
 * test_gc_settled.c - gcs_gc_analyzer_next_settled hands out every GC once,
 * in list order, with exactly the values the finished analysis holds (the
 * report `gcscope stats` prints), and hands most of them out while the
 * stream is still being read: the rows `gcscope live` prints.
 *
 * Run on every trace in tests/data (and ../shared's EventPipe traces when
 * present), each read with the GC analyzer pulled after every event; and
 * through the library's watch (gcs_watch_*, replaying the file as a live
 * stream): the same GCs, the pause stop, saving, a cut stream.
 */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analysis/gc/gc_analyzer.h"
#include "analysis/gc/gc_internal.h"
#include "gcscope.h"
#include "unit/check.h"
#include "unit/gc_synth.h"

/* Both equal, NaN equal to NaN. */
static bool same(double a, double b) { return (isnan(a) && isnan(b)) || a == b; }

static int shown;

/* Every field of two GC records (NaN = NaN); names the first that differs. */
static bool same_gc(const char *trace, const gcs_gc_info *a, const gcs_gc_info *b)
{
    const char *what = NULL;
#define F(f) else if (!same((double)a->f, (double)b->f)) what = #f
#define A(f, n)                                                                             \
    for (int k_ = 0; !what && k_ < (n); k_++)                                               \
        if (!same(a->f[k_], b->f[k_]))                                                      \
            what = #f;
    if (0) {
    }
    F(number); F(generation); F(type); F(reason); F(is_complete); F(incomplete_reason);
    F(start_ms); F(pause_start_ms); F(pause_ms); F(suspend_ms); F(duration_ms);
    F(duration_since_last_restart_ms); F(bgc_final_pause_ms); F(pause_time_pct);
    F(heap_size_before_mb); F(heap_size_after_mb); F(heap_size_peak_mb); F(ratio_peak_after);
    F(promoted_mb); F(allocated_since_last_gc_mb); F(alloc_rate_mb_s);
    F(finalization_promoted_mb); F(pinned_objects); F(per_heap_histories); F(heap_count);
    F(condemned_reasons); F(has_heap_stats); F(has_global_history);
    A(gen_size_before_mb, GCS_GEN_COUNT) A(gen_size_after_mb, GCS_GEN_COUNT)
    A(gen_promoted_mb, GCS_GEN_COUNT) A(survival_pct, GCS_GEN_COUNT)
    A(fragmentation_pct, GCS_GEN_COUNT) A(fragmentation_mb, GCS_GEN_COUNT)
    A(user_allocated_mb, GCS_GEN_COUNT) A(alloc_tick_mb, 3)
#undef F
#undef A
    if (what && shown++ < 20)
        fprintf(stderr, "%s: GC %d: %s differs between the settled GC and the report\n", trace,
                (int)b->number, what);
    return what == NULL;
}

typedef struct settled_list {
    gcs_gc_settled *v;
    size_t n, cap;
    size_t early; /* handed out before finish */
} settled_list;

static void list_push(settled_list *l, const gcs_gc_settled *s)
{
    if (l->n == l->cap) {
        l->cap = l->cap ? 2 * l->cap : 256;
        l->v = realloc(l->v, l->cap * sizeof *l->v);
        if (!l->v)
            abort();
    }
    l->v[l->n++] = *s;
}

static void take_settled(gcs_gc_analyzer *an, settled_list *l, bool finished)
{
    gcs_gc_settled s;
    while (gcs_gc_analyzer_next_settled(an, &s)) {
        list_push(l, &s);
        if (!finished)
            l->early++;
    }
}

/* The bytes of the spill the analyses below keep in memory
 * (gcs_gc_options.spill_memory_bytes; 0: the default, 16 MiB, where every
 * fixture's spill fits). SPILL_MEMORY_SMALL puts the rest in the file,
 * the record it stops in cut in two. */
#define SPILL_MEMORY_SMALL 3001
static size_t spill_memory;

/* Reads path into an analyzer that spills its GC records
 * (gcs_gc_options.spill_gcs), pulling settled GCs after every event into
 * *l, finished; NULL when there is no reader. */
static gcs_gc_analyzer *spilled_analysis(const char *path, settled_list *l)
{
    gcs_error err;
    gcs_error_clear(&err);
    gcs_source *src = gcs_source_open_file(path, &err);
    gcs_reader *r = src ? gcs_reader_new(src, NULL, &err) : NULL;
    gcs_gc_options o = {.spill_gcs = true, .spill_memory_bytes = spill_memory};
    gcs_gc_analyzer *an = r ? gcs_gc_analyzer_new(&o, &err) : NULL;
    if (an) {
        const gcs_event *ev;
        while (gcs_reader_next(r, &ev, &err) == GCS_OK) {
            CHECK_EQ_INT(gcs_gc_analyzer_feed(an, ev), GCS_OK);
            take_settled(an, l, false);
        }
        gcs_gc_analyzer_set_lost_events(an, gcs_reader_get_stats(r)->lost_events);
        gcs_gc_analyzer_finish(an);
        take_settled(an, l, true);
        CHECK_EQ_INT(gcs_gc_analyzer_status(an), GCS_OK);
        gcs_gc_settled none;
        CHECK(!gcs_gc_analyzer_next_settled(an, &none)); /* each GC once */
    }
    gcs_reader_free(r);
    gcs_source_free(src);
    return an;
}

static size_t spilled_gcs_seen, spilled_gcs_dropped;
static size_t spilled_to_file; /* traces whose small memory spill went on in the file */

static size_t spilled_heap_values_seen;

/* What gc_insight.h gives of runtime p of the analyzer in memory (mem)
 * and of the one that spills (sp), read a pass at a time from its file:
 * the same headline numbers, MMU, findings, per-heap values, comparison
 * and CI verdicts. */
static void check_insight_spilled(const gcs_gc_analyzer *sp, const gcs_gc_analyzer *mem, size_t p)
{
    const gcs_gc_process *a = gcs_gc_process_at(mem, p), *b = gcs_gc_process_at(sp, p);
    gcs_gc_kpis ka, kb;
    CHECK(gcs_gc_kpis_compute(a, &ka));
    CHECK(gcs_gc_kpis_compute(b, &kb));
    CHECK(memcmp(&ka, &kb, sizeof ka) == 0);
    /* The MMU of the records in memory (gcs_gc_mmu), of the runtime
     * (gcs_gc_process_mmu) and of the spilled runtime: the same. */
    double win[32], mmu_list[32], mmu_a[32], mmu_b[32];
    size_t nw = gcs_gc_mmu_windows(ka.span_ms, win, 32);
    double t0 = a->first_event_ms, t1 = a->last_event_ms;
    CHECK(gcs_gc_mmu(a->gcs, a->gc_count, t0, t1, win, nw, mmu_list));
    CHECK(gcs_gc_process_mmu(a, t0, t1, win, nw, mmu_a));
    CHECK(gcs_gc_process_mmu(b, t0, t1, win, nw, mmu_b));
    for (size_t w = 0; w < nw; w++)
        CHECK(same(mmu_a[w], mmu_list[w]) && same(mmu_b[w], mmu_list[w]));
    gcs_gc_finding fa[16], fb[16];
    gcs_gc_finding_options fo = {.long_pause_ms = 1}; /* long pauses fire too */
    int na = gcs_gc_findings(a, &fo, fa, 16), nb = gcs_gc_findings(b, &fo, fb, 16);
    CHECK(na >= 0);
    CHECK_EQ_INT(nb, na);
    for (int i = 0; i < na && i < nb && i < 16; i++) {
        CHECK_EQ_STR(fb[i].rule, fa[i].rule);
        CHECK_EQ_INT(fb[i].score, fa[i].score);
        CHECK_EQ_STR(fb[i].evidence, fa[i].evidence);
    }
    double ha[64], hb[64];
    for (size_t i = 0; i < a->gc_count; i++) {
        for (int after = 0; after < 2; after++) {
            size_t n1 = after ? gcs_gc_heap_object_size_after(mem, a, i, ha, 64)
                              : gcs_gc_heap_object_space(mem, a, i, ha, 64);
            size_t n2 = after ? gcs_gc_heap_object_size_after(sp, b, i, hb, 64)
                              : gcs_gc_heap_object_space(sp, b, i, hb, 64);
            CHECK_EQ_U64(n2, n1);
            for (size_t h = 0; h < n1 && h < n2 && h < 64; h++)
                CHECK(same(ha[h], hb[h]));
            spilled_heap_values_seen += n1 < 64 ? n1 : 64;
        }
    }
    /* Against itself and across: every delta 0, the same rows. */
    gcs_gc_compare_row ra[GCS_GC_COMPARE_ROWS], rb[GCS_GC_COMPARE_ROWS];
    CHECK_EQ_INT(gcs_gc_compare(a, a, NULL, ra), GCS_GC_COMPARE_ROWS);
    CHECK_EQ_INT(gcs_gc_compare(a, b, NULL, rb), GCS_GC_COMPARE_ROWS);
    for (int i = 0; i < GCS_GC_COMPARE_ROWS; i++) {
        CHECK(same(rb[i].next, ra[i].next) && same(rb[i].delta, ra[i].delta));
        CHECK(same(rb[i].ci_lo, ra[i].ci_lo) && same(rb[i].p_value, ra[i].p_value));
        CHECK_EQ_INT(rb[i].verdict, ra[i].verdict);
    }
    gcs_gc_limits lim = {.has_max_pause = true, .has_max_p99 = true, .has_max_gc_pct = true,
                         .has_max_gen2 = true, .has_max_regression = true};
    gcs_gc_violation va[8], vb[8];
    int nva = gcs_gc_check(a, a, &lim, va, 8), nvb = gcs_gc_check(b, b, &lim, vb, 8);
    CHECK(nva >= 0);
    CHECK_EQ_INT(nvb, nva);
    for (int i = 0; i < nva && i < nvb && i < 8; i++)
        CHECK_EQ_STR(vb[i].text, va[i].text);
}

/* The HTML report of both analyzers, byte for byte. */
static void check_html_spilled(const gcs_gc_analyzer *sp, const gcs_gc_analyzer *mem,
                               const char *path)
{
    char *text[2] = {NULL, NULL};
    size_t len[2] = {0, 0};
    int written[2];
    for (int k = 0; k < 2; k++) {
        FILE *f = open_memstream(&text[k], &len[k]);
        CHECK(f != NULL);
        if (!f)
            return;
        gcs_gc_html_options ho = {.trace_name = "t", .long_pause_ms = 1};
        written[k] = gcs_gc_html_write(f, k ? sp : mem, &ho);
        fclose(f);
    }
    CHECK(written[0] >= 0);
    CHECK_EQ_INT(written[1], written[0]);
    CHECK_EQ_U64(len[1], len[0]);
    bool equal = len[0] == len[1] && memcmp(text[0], text[1], len[0]) == 0;
    if (!equal && shown++ < 20)
        fprintf(stderr, "%s: the HTML report of the spilled analysis differs\n", path);
    CHECK(equal);
    free(text[0]);
    free(text[1]);
}

/* The spilled analysis of path against the one in memory (mem): the same
 * runtimes, summaries (rollups, percentiles, histogram, problems) and GC
 * records, read back with gcs_gc_process_gcs in pieces of every size;
 * the same insight (gc_insight.h) and HTML report. */
static void check_spilled_against(const gcs_gc_analyzer *sp, const gcs_gc_analyzer *mem,
                                  const char *path)
{
    CHECK_EQ_U64(gcs_gc_process_count(sp), gcs_gc_process_count(mem));
    check_html_spilled(sp, mem, path);
    for (size_t p = 0; p < gcs_gc_process_count(sp) && p < gcs_gc_process_count(mem); p++) {
        gcs_gc_process a = *gcs_gc_process_at(mem, p), b = *gcs_gc_process_at(sp, p);
        CHECK(a.gcs != NULL || a.gc_count == 0);
        CHECK(b.gcs == NULL);
        CHECK(b.source == sp);
        const gcs_gc_info *records = a.gcs;
        a.gcs = b.gcs = NULL;
        a.source = b.source = NULL;
        CHECK(memcmp(&a, &b, sizeof a) == 0);
        check_insight_spilled(sp, mem, p);
        /* Read back in pieces of 1, 7, 64 and 1000 GCs. */
        static const size_t piece[] = {1, 7, 64, 1000};
        gcs_gc_info *buf = malloc(1000 * sizeof *buf);
        CHECK(buf != NULL);
        for (size_t s = 0; buf && s < sizeof piece / sizeof piece[0]; s++) {
            size_t at = 0, got;
            while ((got = gcs_gc_process_gcs(sp, gcs_gc_process_at(sp, p), at, buf, piece[s])) > 0) {
                for (size_t k = 0; k < got && at + k < a.gc_count; k++)
                    CHECK(same_gc(path, &buf[k], &records[at + k]));
                at += got;
            }
            CHECK_EQ_U64(at, a.gc_count);
        }
        free(buf);
        /* The records the spilled analyzer dropped from memory (counted
         * in the pass with the spill in memory). */
        const gcs_gc_runtime *rt = sp->runtimes[p];
        if (spill_memory == 0) {
            spilled_gcs_seen += rt->n;
            spilled_gcs_dropped += rt->base;
        }
    }
    /* Where the spill went: memory alone, or on into the file. */
    if (spill_memory == 0)
        CHECK(sp->spill_end <= sp->spill_mem_max);
    else if (sp->spill_end > sp->spill_mem_max)
        spilled_to_file++;
}

/* The spilled analysis of path against the one in memory (mem), and the
 * GCs it handed out while reading against those mem's reading handed
 * out (mem_l): the same GCs, in the same order, as early. */
static void check_spilled_with(const char *path, const gcs_gc_analyzer *mem,
                               const settled_list *mem_l)
{
    settled_list l = {0};
    gcs_gc_analyzer *sp = spilled_analysis(path, &l);
    CHECK(sp != NULL);
    if (!sp)
        return;
    check_spilled_against(sp, mem, path);
    CHECK_EQ_U64(l.n, mem_l->n);
    CHECK_EQ_U64(l.early, mem_l->early);
    for (size_t i = 0; i < l.n && i < mem_l->n; i++) {
        CHECK_EQ_U64(l.v[i].pid, mem_l->v[i].pid);
        CHECK_EQ_U64(l.v[i].clr_instance_id, mem_l->v[i].clr_instance_id);
        CHECK(same_gc(path, &l.v[i].info, &mem_l->v[i].info));
    }
    free(l.v);
    gcs_gc_analyzer_free(sp);
}

/* check_spilled_with the spill in memory (the default), then mostly in
 * the file. */
static void check_spilled(const char *path, const gcs_gc_analyzer *mem, const settled_list *mem_l)
{
    spill_memory = 0;
    check_spilled_with(path, mem, mem_l);
    spill_memory = SPILL_MEMORY_SMALL;
    check_spilled_with(path, mem, mem_l);
    spill_memory = 0;
}

/* Reads path pulling settled GCs after every event; compares them with the
 * finished analysis, and with the analysis that spills its records.
 * Returns the GC count (-1: no reader for it). */
static long check_trace(const char *path, size_t *early_out, settled_list *out)
{
    gcs_error err;
    gcs_error_clear(&err);
    gcs_source *src = gcs_source_open_file(path, &err);
    CHECK(src != NULL);
    if (!src)
        return -1;
    gcs_reader *r = gcs_reader_new(src, NULL, &err);
    if (!r) {
        gcs_source_free(src);
        return -1;
    }
    gcs_gc_analyzer *an = gcs_gc_analyzer_new(NULL, &err);
    settled_list l = {0};
    const gcs_event *ev;
    while (gcs_reader_next(r, &ev, &err) == GCS_OK) {
        CHECK_EQ_INT(gcs_gc_analyzer_feed(an, ev), GCS_OK);
        take_settled(an, &l, false);
    }
    gcs_gc_analyzer_set_lost_events(an, gcs_reader_get_stats(r)->lost_events);
    gcs_gc_analyzer_finish(an);
    take_settled(an, &l, true);
    gcs_gc_settled extra;
    CHECK(!gcs_gc_analyzer_next_settled(an, &extra)); /* each GC once */

    size_t total = 0, at = 0;
    for (size_t p = 0; p < gcs_gc_process_count(an); p++) {
        const gcs_gc_process *proc = gcs_gc_process_at(an, p);
        total += proc->gc_count;
        /* This runtime's GCs, in list order, among the settled ones. */
        size_t k = 0;
        for (size_t i = 0; i < l.n && k < proc->gc_count; i++) {
            if (l.v[i].pid != proc->pid || l.v[i].clr_instance_id != proc->clr_instance_id)
                continue;
            CHECK(same_gc(path, &l.v[i].info, &proc->gcs[k]));
            k++;
        }
        CHECK_EQ_U64(k, proc->gc_count);
        at += k;
    }
    CHECK_EQ_U64(l.n, total);
    CHECK_EQ_U64(at, total);
    *early_out = l.early;
    check_spilled(path, an, &l);
    gcs_gc_analyzer_free(an);
    gcs_reader_free(r);
    gcs_source_free(src);
    if (out)
        *out = l;
    else
        free(l.v);
    return (long)total;
}

/* Every trace file of a folder (by name ending). */
static void check_folder(const char *dir, const char *const *endings, size_t *traces,
                         size_t *gcs, size_t *early)
{
    DIR *d = opendir(dir);
    if (!d)
        return;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        size_t len = strlen(e->d_name);
        bool match = false;
        for (size_t k = 0; endings[k]; k++) {
            size_t el = strlen(endings[k]);
            if (len > el && !strcmp(e->d_name + len - el, endings[k]))
                match = true;
        }
        if (!match)
            continue;
        char path[1024];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        size_t n_early = 0;
        long n = check_trace(path, &n_early, NULL);
        if (n < 0)
            continue;
        (*traces)++;
        *gcs += (size_t)n;
        *early += n_early;
    }
    closedir(d);
}

/* Every fixture: each GC handed out once, equal to the report's. */
static void test_every_fixture(void)
{
    static const char *const endings[] = {".nettrace", ".netperf", NULL};
    size_t traces = 0, gcs = 0, early = 0;
    check_folder("tests/data", endings, &traces, &gcs, &early);
    check_folder("tests/data/v6", endings, &traces, &gcs, &early);
    check_folder(SHARED_TRACES, endings, &traces, &gcs, &early);
    printf("settled: %zu traces, %zu GCs, %zu handed out before the end\n", traces, gcs, early);
    printf("spilled: %zu GCs, %zu of them dropped from memory before the end\n", spilled_gcs_seen,
           spilled_gcs_dropped);
    CHECK_EQ_U64(spilled_gcs_seen, gcs);
    printf("spilled: %zu traces past %d bytes of memory, into the file\n", spilled_to_file,
           SPILL_MEMORY_SMALL);
    CHECK(spilled_to_file >= 8);
    /* The server-GC fixtures' per-heap values came back from the file. */
    printf("spilled: %zu per-heap values read back\n", spilled_heap_values_seen);
    CHECK(spilled_heap_values_seen >= 1000);
    /* wks-service alone has 586 GCs: most are dropped long before the end. */
    CHECK(spilled_gcs_dropped >= 512);
    CHECK(traces >= 8);
    CHECK(gcs >= 250);
    /* Most GCs settle while the stream is read (only the last few wait). */
    CHECK(early * 10 >= gcs * 9);
}

static const gcs_gc_info *find_gc(const settled_list *l, int32_t number, size_t *pos)
{
    for (size_t i = 0; i < l->n; i++)
        if (l->v[i].info.number == number) {
            *pos = i;
            return &l->v[i].info;
        }
    return NULL;
}

/* The background GCs of issue 14: GC 2 (a BGC) and GC 19 (the blocking
 * gen0 GC run at the start of BGC 18) as `gcscope stats` prints them. */
static void test_wks_concurrent_bgc(void)
{
    settled_list l;
    size_t early = 0, pos = 0;
    long n = check_trace(TEST_DATA("wks-concurrent.nettrace"), &early, &l);
    CHECK(n > 30);
    if (n <= 0)
        return;
    const gcs_gc_info *g2 = find_gc(&l, 2, &pos);
    CHECK(g2 != NULL);
    if (g2) {
        CHECK_EQ_INT(g2->type, GCS_GC_BACKGROUND);
        CHECK_NEAR(g2->pause_start_ms, 211.526, 0.0005);
        CHECK_NEAR(g2->suspend_ms, 0.012, 0.0005);
        CHECK_NEAR(g2->pause_ms, 0.012, 0.0005);
        CHECK(pos < early);
    }
    size_t p18 = 0, p19 = 0;
    const gcs_gc_info *g18 = find_gc(&l, 18, &p18), *g19 = find_gc(&l, 19, &p19);
    CHECK(g18 && g19);
    if (g18 && g19) {
        CHECK_NEAR(g19->pause_start_ms, 346.563, 0.0005);
        CHECK_NEAR(g19->suspend_ms, 0.000, 0.0005);
        CHECK_NEAR(g19->pause_ms, 41.509, 0.0005);
        CHECK_NEAR(g18->pause_ms, 5.049, 0.0005);
        /* List order: the BGC first, though the blocking GC ended first. */
        CHECK(p18 < p19);
        CHECK(p19 < early);
    }
    free(l.v);
}

/* A watch replaying path (saving to out_path when not NULL): every GC it
 * hands out, in order, equals the finished analysis's; returns the list. */
static void watch_replay(const char *path, const char *out_path, double pause_limit,
                         settled_list *l, gcs_watch_outcome *outcome, bool *gcs_equal)
{
    memset(l, 0, sizeof *l);
    gcs_watch_options o;
    memset(&o, 0, sizeof o);
    o.replay_path = path;
    o.out_path = out_path;
    o.stop_on_pause_ms = pause_limit;
    gcs_error err;
    gcs_error_clear(&err);
    gcs_watch *w = gcs_watch_start(&o, &err);
    CHECK(w != NULL);
    *gcs_equal = false;
    if (!w)
        return;
    CHECK_EQ_U64(gcs_watch_session_id(w), 0);
    CHECK(gcs_watch_analyzer(w) == NULL); /* not before the end */
    gcs_gc_settled s;
    gcs_status st;
    int guard = 0;
    while ((st = gcs_watch_next(w, &s, &err)) != GCS_END && guard++ < 1000000) {
        CHECK(st == GCS_OK || st == GCS_AGAIN);
        if (st != GCS_OK)
            continue;
        list_push(l, &s);
    }
    CHECK(st == GCS_END);
    CHECK(gcs_watch_next(w, &s, &err) == GCS_END);
    *outcome = *gcs_watch_get_outcome(w);
    const gcs_gc_analyzer *an = gcs_watch_analyzer(w);
    CHECK(an != NULL);
    size_t at = 0;
    bool equal = an != NULL;
    for (size_t p = 0; an && p < gcs_gc_process_count(an); p++) {
        const gcs_gc_process *proc = gcs_gc_process_at(an, p);
        for (size_t k = 0; k < proc->gc_count; k++, at++)
            if (at >= l->n || !same_gc(path, &l->v[at].info, &proc->gcs[k]))
                equal = false;
    }
    *gcs_equal = equal && at == l->n;
    gcs_watch_free(w);
}

/* The watch on a saved file: every fixture's GCs as the analysis reports
 * them, the stream ended with its end marker, nobody stopped it. */
static void test_watch_replay_fixtures(void)
{
    static const char *const traces[] = {"wks-concurrent", "wks-nonconcurrent", "server",
                                         "gen0size-small", "objects-movement", "probe-net10"};
    for (size_t i = 0; i < sizeof traces / sizeof traces[0]; i++) {
        char path[256];
        snprintf(path, sizeof path, "tests/data/%s.nettrace", traces[i]);
        settled_list l;
        gcs_watch_outcome out;
        bool equal;
        watch_replay(path, NULL, 0, &l, &out, &equal);
        CHECK(equal);
        CHECK(l.n > 0);
        CHECK(out.ended_clean);
        CHECK(!out.cut && !out.process_exited && !out.runtime_ended && !out.pause_stop);
        CHECK(!out.drain_timeout && !out.drain_abandoned && !out.analysis_failed);
        CHECK_EQ_STR(out.stop_reason, "");
        CHECK(out.stream.events > 0);
        free(l.v);
    }
}

/* stop_on_pause_ms: the first GC in list order whose pause is longer
 * stops the watch (wks-concurrent: GC 20, 125.080 ms, for 100 ms); the
 * saved copy of the replayed file is the file. */
static void test_watch_pause_and_save(void)
{
    char out_path[] = "/tmp/gcs-watch-test.XXXXXX";
    int fd = mkstemp(out_path);
    CHECK(fd >= 0);
    if (fd < 0)
        return;
    close(fd);
    settled_list l;
    gcs_watch_outcome out;
    bool equal;
    watch_replay(TEST_DATA("wks-concurrent.nettrace"), out_path, 100, &l, &out, &equal);
    CHECK(equal);
    CHECK(out.pause_stop);
    CHECK_EQ_INT(out.pause_gc, 20);
    CHECK_NEAR(out.pause_ms, 125.080, 0.0005);
    CHECK_EQ_STR(out.stop_reason, "GC #20 paused 125.080 ms > 100.000 ms");
    for (size_t i = 0; i < l.n && l.v[i].info.number != 20; i++)
        CHECK(!(l.v[i].info.pause_ms > 100));
    CHECK(out.saved);
    CHECK(out.save.stream_complete && !out.save.repaired);
    size_t a = 0, b = 0;
    unsigned char *orig = check_read_file(TEST_DATA("wks-concurrent.nettrace"), &a);
    unsigned char *copy = check_read_file(out_path, &b);
    CHECK(orig && copy && a == b && memcmp(orig, copy, a) == 0);
    CHECK_EQ_U64(out.save.bytes_kept, a);
    free(orig);
    free(copy);
    free(l.v);
    unlink(out_path);
}

/* A stream cut in the middle of a block: the watch ends with cut set and
 * hands out the GCs of what arrived, as the analysis reports them. */
static void test_watch_cut_stream(void)
{
    size_t size = 0;
    unsigned char *orig = check_read_file(TEST_DATA("wks-nonconcurrent.nettrace"), &size);
    CHECK(orig != NULL);
    if (!orig)
        return;
    char path[] = "/tmp/gcs-watch-cut.XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    if (fd >= 0) {
        CHECK(write(fd, orig, size / 2 + 7) == (ssize_t)(size / 2 + 7));
        close(fd);
        settled_list l;
        gcs_watch_outcome out;
        bool equal;
        watch_replay(path, NULL, 0, &l, &out, &equal);
        CHECK(equal);
        CHECK(out.cut);
        CHECK(!out.ended_clean);
        CHECK(l.n > 0);
        free(l.v);
        unlink(path);
    }
    free(orig);
}

/* A stream whose version the reader does not know (nettrace major 7):
 * not a failure of the analysis when only saving; a failure when
 * nothing is saved, or when a pause stop needs the analysis. */
static void test_watch_unsupported_stream(void)
{
    static const unsigned char v7[] = {'N', 'e', 't', 't', 'r', 'a', 'c', 'e', 0, 0, 0, 0,
                                       7,   0,   0,   0,   0,   0,   0,   0};
    char in_path[] = "/tmp/gcs-watch-v7.XXXXXX", out_path[] = "/tmp/gcs-watch-v7out.XXXXXX";
    int fd = mkstemp(in_path), fd2 = mkstemp(out_path);
    CHECK(fd >= 0 && fd2 >= 0);
    if (fd < 0 || fd2 < 0)
        return;
    CHECK(write(fd, v7, sizeof v7) == (ssize_t)sizeof v7);
    close(fd);
    close(fd2);
    for (int mode = 0; mode < 3; mode++) {
        gcs_watch_options o;
        memset(&o, 0, sizeof o);
        o.replay_path = in_path;
        o.out_path = mode == 2 ? NULL : out_path;
        o.stop_on_pause_ms = mode == 1 ? 10 : 0;
        gcs_error err;
        gcs_error_clear(&err);
        gcs_watch *w = gcs_watch_start(&o, &err);
        bool failed;
        if (!w) {
            CHECK(mode == 2); /* nothing to save: the start fails */
            CHECK(err.status == GCS_ERR_UNSUPPORTED);
            continue;
        }
        gcs_gc_settled s;
        gcs_status st;
        int errors = 0, guard = 0;
        while ((st = gcs_watch_next(w, &s, &err)) != GCS_END && guard++ < 100000) {
            CHECK(st != GCS_OK);
            if (st < 0)
                errors++;
        }
        const gcs_watch_outcome *out = gcs_watch_get_outcome(w);
        failed = out->analysis_failed;
        CHECK(out->analysis_error[0] != 0);
        CHECK(errors <= 1);
        CHECK_EQ_INT(failed, mode != 0);
        /* (what the tee makes of 20 bytes is its own business: tee tests) */
        gcs_watch_free(w);
    }
    unlink(in_path);
    unlink(out_path);
}

/* Errors: a missing file is one clear reason, no watch. */
static void test_watch_errors(void)
{
    gcs_watch_options o;
    memset(&o, 0, sizeof o);
    o.replay_path = "tests/data/no-such-file.nettrace";
    gcs_error err;
    gcs_error_clear(&err);
    CHECK(gcs_watch_start(&o, &err) == NULL);
    CHECK(err.status != GCS_OK);
    CHECK(strstr(err.reason, "no-such-file") != NULL);
    gcs_watch_free(NULL);
}

/* ---- a synthetic sequence: a GC paused before a background GC ended ---- */

static gcs_gc_analyzer *syn;

static void feed(double ms, uint64_t tid, gcs_gc_kind kind, uint32_t a, uint32_t b, uint32_t c,
                 uint32_t d)
{
    gcs_gc_record r = gc_synth_record(kind, 2);
    switch (kind) {
    case GCS_GCK_SUSPEND_EE_BEGIN: r.u.suspend_ee_begin.reason = a; break;
    case GCS_GCK_START:
        r.u.start.count = a;
        r.u.start.depth = b;
        r.u.start.reason = c;
        r.u.start.type = d;
        break;
    case GCS_GCK_END: r.u.end.count = a; break;
    case GCS_GCK_HEAP_STATS:
        for (int g = 0; g < 5; g++)
            r.u.heap_stats.generation_size[g] = (uint64_t)a * 1000000u;
        break;
    default: break;
    }
    gcs_gc_event_ctx ctx = {42, tid, ms};
    CHECK_EQ_INT(gcs_gc_analyzer_feed_record(syn, &ctx, &r), GCS_OK);
}

/* A blocking GC on tid: suspension, start, end, heap stats (mb per
 * generation), restart. */
static void blocking_gc(double t, uint64_t tid, uint32_t number, uint32_t mb)
{
    feed(t, tid, GCS_GCK_SUSPEND_EE_BEGIN, 1, 0, 0, 0);
    feed(t + 0.1, tid, GCS_GCK_SUSPEND_EE_END, 0, 0, 0, 0);
    feed(t + 0.2, tid, GCS_GCK_START, number, 0, 0, GCS_GC_NONCONCURRENT);
    feed(t + 1.0, tid, GCS_GCK_END, number, 0, 0, 0);
    feed(t + 1.1, tid, GCS_GCK_HEAP_STATS, mb, 0, 0, 0);
    feed(t + 1.2, tid, GCS_GCK_RESTART_EE_END, 0, 0, 0, 0);
}

static int pull(settled_list *l)
{
    int got = 0;
    gcs_gc_settled s;
    while (gcs_gc_analyzer_next_settled(syn, &s)) {
        l->v[l->n++] = s;
        got++;
    }
    return got;
}

/* Background GC 2 (paused at 10, ran 10.2..30: "ended" = 10 + 19.8 =
 * 29.8) completes at its heap stats (30.1); GC 3's suspension began at 29.0,
 * before that end, so GC 3 counts in GC 2's peak size: GC 2 waits for GC 3
 * to be frozen and for a GC paused after 29.8 (GC 4) before it is handed
 * out, and then carries the peak the report prints (GC 3's size before =
 * GC 2's sizes after, 5 x 7 MB), not its own size before. */
static void test_bgc_waits_for_gcs_paused_inside(void)
{
    syn = gcs_gc_analyzer_new(NULL, NULL);
    gcs_gc_settled buf[8];
    settled_list l = {buf, 0, 8, 0};
    blocking_gc(0, 2, 1, 3);
    CHECK_EQ_INT(pull(&l), 1);
    feed(10.0, 2, GCS_GCK_SUSPEND_EE_BEGIN, 1, 0, 0, 0);
    feed(10.1, 2, GCS_GCK_SUSPEND_EE_END, 0, 0, 0, 0);
    feed(10.2, 2, GCS_GCK_START, 2, 2, 0, GCS_GC_BACKGROUND);
    feed(10.5, 2, GCS_GCK_RESTART_EE_END, 0, 0, 0, 0);
    feed(29.0, 3, GCS_GCK_SUSPEND_EE_BEGIN, 1, 0, 0, 0);
    feed(30.0, 2, GCS_GCK_END, 2, 0, 0, 0);
    feed(30.1, 2, GCS_GCK_HEAP_STATS, 7, 0, 0, 0);
    CHECK_EQ_INT(pull(&l), 0); /* complete, but GC 3 may still start */
    feed(30.2, 3, GCS_GCK_SUSPEND_EE_END, 0, 0, 0, 0);
    feed(30.3, 3, GCS_GCK_START, 3, 0, 0, GCS_GC_NONCONCURRENT);
    feed(31.0, 3, GCS_GCK_END, 3, 0, 0, 0);
    feed(31.1, 3, GCS_GCK_HEAP_STATS, 6, 0, 0, 0);
    feed(31.2, 3, GCS_GCK_RESTART_EE_END, 0, 0, 0, 0);
    CHECK_EQ_INT(pull(&l), 0); /* a later GC could still pause before 29.8 */
    blocking_gc(40, 3, 4, 6);
    CHECK_EQ_INT(pull(&l), 3); /* GC 2, 3, 4 */
    gcs_gc_analyzer_finish(syn);
    CHECK_EQ_INT(pull(&l), 0);
    const gcs_gc_process *p = gcs_gc_process_at(syn, 0);
    CHECK(p && p->gc_count == 4 && l.n == 4);
    for (size_t i = 0; p && i < l.n && i < p->gc_count; i++) {
        CHECK_EQ_INT(l.v[i].info.number, (int)i + 1);
        CHECK(same_gc("synthetic", &l.v[i].info, &p->gcs[i]));
    }
    if (l.n >= 2) {
        CHECK(l.v[1].info.is_complete);
        CHECK_NEAR(l.v[1].info.heap_size_peak_mb, 35.0, 1e-9);
        CHECK(l.v[1].info.heap_size_peak_mb > l.v[1].info.heap_size_before_mb);
    }
    gcs_gc_analyzer_free(syn);
}

/* ---- spilling on a synthetic stream ------------------------------------
 *
 * What real fixtures rarely show: a stretch of GCs whose heap stats were
 * lost, longer than the GCs kept in memory (the derivation then looks back
 * to a dropped GC's sizes), and server GCs with several per-heap histories
 * whose chains are moved when the dropped GCs' are freed; background GCs
 * with foreground GCs inside. Fed to an analyzer in memory and to one that
 * spills: the same summary and records. */
typedef struct synth {
    gcs_gc_analyzer *an[2];
    settled_list handed[2]; /* what next_settled handed out after each record */
    double ms;
    uint64_t rng;
    int32_t number;
    uint8_t gen_data[5 * 10 * 8];
} synth;

static uint64_t synth_next(synth *s)
{
    s->rng = s->rng * 6364136223846793005ull + 1442695040888963407ull;
    return s->rng >> 33;
}

static void synth_feed(synth *s, gcs_gc_record *r, uint64_t tid)
{
    gcs_gc_event_ctx ctx = {4242, tid, s->ms};
    s->ms += 0.125 + (double)(synth_next(s) % 100) / 64.0;
    for (int k = 0; k < 2; k++) {
        CHECK_EQ_INT(gcs_gc_analyzer_feed_record(s->an[k], &ctx, r), GCS_OK);
        take_settled(s->an[k], &s->handed[k], false);
    }
}

static void synth_suspend(synth *s, uint32_t reason, uint64_t tid)
{
    gcs_gc_record r = gc_synth_record(GCS_GCK_SUSPEND_EE_BEGIN, 1);
    r.u.suspend_ee_begin.reason = reason;
    synth_feed(s, &r, tid);
    r = gc_synth_record(GCS_GCK_SUSPEND_EE_END, 1);
    synth_feed(s, &r, tid);
}

static void synth_restart(synth *s, uint64_t tid)
{
    gcs_gc_record r = gc_synth_record(GCS_GCK_RESTART_EE_END, 1);
    synth_feed(s, &r, tid);
}

static void synth_start(synth *s, uint32_t type, uint32_t depth, uint64_t tid)
{
    gcs_gc_record r = gc_synth_record(GCS_GCK_START, 2);
    r.u.start.count = (uint32_t)++s->number;
    r.u.start.depth = depth;
    r.u.start.type = type;
    r.u.start.reason = (uint32_t)(synth_next(s) % 4);
    r.u.start.has_depth_type = true;
    synth_feed(s, &r, tid);
}

/* heaps per-heap histories (0: none) and a global history. */
static void synth_histories(synth *s, int heaps, uint64_t tid)
{
    if (heaps == 0)
        return;
    gcs_gc_record g = gc_synth_record(GCS_GCK_GLOBAL_HEAP_HISTORY, 2);
    g.u.global_heap_history.num_heaps = heaps;
    g.u.global_heap_history.global_mechanisms = (uint32_t)(synth_next(s) % 4);
    synth_feed(s, &g, tid);
    for (int h = 0; h < heaps; h++) {
        for (size_t i = 0; i < sizeof s->gen_data; i += 8) {
            uint64_t v = synth_next(s) % 50000000;
            memcpy(s->gen_data + i, &v, 8);
        }
        gcs_gc_record r = gc_synth_record(GCS_GCK_PER_HEAP_HISTORY, 3);
        r.payload_size = 30 + 7 * 8 + 50 * 8;
        r.u.per_heap_history.layout = 3;
        r.u.per_heap_history.gen_count = 5;
        r.u.per_heap_history.gen_data = s->gen_data;
        r.u.per_heap_history.condemn_reasons0 = (uint32_t)synth_next(s);
        r.u.per_heap_history.condemn_reasons1 = (uint32_t)synth_next(s);
        r.u.per_heap_history.has_condemn_reasons1 = true;
        synth_feed(s, &r, tid);
    }
}

static void synth_end(synth *s, bool heap_stats, uint64_t tid)
{
    gcs_gc_record r = gc_synth_record(GCS_GCK_END, 1);
    synth_feed(s, &r, tid);
    if (!heap_stats)
        return;
    r = gc_synth_record(GCS_GCK_HEAP_STATS, 2);
    for (int k = 0; k < 5; k++) {
        r.u.heap_stats.generation_size[k] = synth_next(s) % 400000000;
        r.u.heap_stats.total_promoted_size[k] = synth_next(s) % 40000000;
    }
    synth_feed(s, &r, tid);
}

/* One blocking GC (heap stats lost when !heap_stats). */
static void synth_blocking(synth *s, uint32_t type, int heaps, bool heap_stats)
{
    synth_suspend(s, 1, 7);
    synth_start(s, type, (uint32_t)(synth_next(s) % 3 == 0), 7);
    synth_histories(s, heaps, 7);
    synth_end(s, heap_stats, 7);
    synth_restart(s, 7);
}

/* A blocking GC whose pause spans a day: times no pause has, refused as
 * bad times (incomplete) whether the GC is made final in the list or in
 * the copy a spilling analyzer writes. */
static void synth_day_long(synth *s)
{
    synth_suspend(s, 1, 7);
    synth_start(s, GCS_GC_NONCONCURRENT, 0, 7);
    s->ms += 25.0 * 3600.0 * 1000.0;
    synth_end(s, true, 7);
    synth_restart(s, 7);
}

/* A background GC with `inside` foreground GCs during it. */
static void synth_background(synth *s, int heaps, int inside)
{
    synth_suspend(s, 6, 9);
    synth_start(s, GCS_GC_BACKGROUND, 2, 9);
    synth_restart(s, 9);
    for (int k = 0; k < inside; k++)
        synth_blocking(s, GCS_GC_FOREGROUND, heaps, true);
    synth_histories(s, heaps, 9);
    synth_end(s, true, 9);
    synth_suspend(s, 6, 9);
    synth_restart(s, 9);
}

static void test_spill_synthetic(void)
{
    synth s;
    memset(&s, 0, sizeof s);
    s.rng = 20261128;
    gcs_error err;
    gcs_error_clear(&err);
    gcs_gc_options spill = {.spill_gcs = true};
    s.an[0] = gcs_gc_analyzer_new(NULL, &err);
    s.an[1] = gcs_gc_analyzer_new(&spill, &err);
    CHECK(s.an[0] && s.an[1]);
    if (!s.an[0] || !s.an[1])
        return;
    /* Without histories: 20 GCs, 300 whose heap stats are lost, 20 more
     * (their sizes before look back 300 GCs). Then server GCs of 4 heaps,
     * with background GCs holding up to 150 foreground GCs, and six GCs
     * pausing a day. */
    for (int i = 0; i < 20; i++)
        synth_blocking(&s, GCS_GC_NONCONCURRENT, 0, true);
    for (int i = 0; i < 300; i++)
        synth_blocking(&s, GCS_GC_NONCONCURRENT, 0, false);
    for (int i = 0; i < 20; i++)
        synth_blocking(&s, GCS_GC_NONCONCURRENT, 0, true);
    for (int i = 0; i < 3000; i++) {
        if (i % 200 == 100)
            synth_background(&s, 4, (int)(synth_next(&s) % 150));
        else if (i % 500 == 250)
            synth_day_long(&s);
        else
            synth_blocking(&s, GCS_GC_NONCONCURRENT, 4, synth_next(&s) % 50 != 0);
    }
    for (int k = 0; k < 2; k++) {
        gcs_gc_analyzer_finish(s.an[k]);
        take_settled(s.an[k], &s.handed[k], true);
    }
    /* The same GCs handed out while feeding, as early, in memory or spilled. */
    CHECK_EQ_U64(s.handed[1].n, s.handed[0].n);
    CHECK_EQ_U64(s.handed[1].early, s.handed[0].early);
    CHECK(s.handed[0].early * 10 >= s.handed[0].n * 9);
    for (size_t i = 0; i < s.handed[0].n && i < s.handed[1].n; i++)
        CHECK(same_gc("synthetic", &s.handed[1].v[i].info, &s.handed[0].v[i].info));
    const gcs_gc_runtime *rt = s.an[1]->runtimes[0];
    printf("synthetic: %zu GCs, %zu dropped from memory, %zu per-heap records kept\n", rt->n,
           rt->base, rt->heap_alloc_n);
    CHECK(rt->n > 3300);
    CHECK(rt->base > 3000);
    CHECK(rt->heap_alloc_n < 4 * 400);
    /* The lookback really reached a dropped GC's heap stats; the day-long
     * pauses were refused. */
    CHECK(rt->dropped_hs_index > 0);
    CHECK_EQ_U64(s.an[1]->runtimes[0]->pub.problems.bad_times, 6);
    check_spilled_against(s.an[1], s.an[0], "synthetic");
    for (int k = 0; k < 2; k++) {
        gcs_gc_analyzer_free(s.an[k]);
        free(s.handed[k].v);
    }
}

/* A spilling analyzer with no temporary file to be had ($TMPDIR a
 * folder that does not exist) keeps its records in memory: gcs set, the
 * same analysis, the same GCs handed out. */
static void test_spill_without_file(void)
{
    const char *path = TEST_DATA("wks-concurrent.nettrace");
    const char *old = getenv("TMPDIR");
    char *saved = old ? strdup(old) : NULL;
    setenv("TMPDIR", "/nonexistent/gcscope-no-such-folder", 1);
    settled_list l = {0};
    gcs_gc_analyzer *sp = spilled_analysis(path, &l);
    if (saved) {
        setenv("TMPDIR", saved, 1);
        free(saved);
    } else {
        unsetenv("TMPDIR");
    }
    CHECK(sp != NULL);
    if (!sp)
        return;
    CHECK(gcs_gc_process_count(sp) > 0);
    for (size_t p = 0; p < gcs_gc_process_count(sp); p++)
        CHECK(gcs_gc_process_at(sp, p)->gcs != NULL);
    CHECK(l.n > 30);
    /* The same as the analysis that spills to a file. */
    settled_list l2 = {0};
    gcs_gc_analyzer *spilled = spilled_analysis(path, &l2);
    CHECK(spilled != NULL);
    if (spilled) {
        CHECK(gcs_gc_process_at(spilled, 0)->gcs == NULL);
        check_spilled_against(spilled, sp, path);
        CHECK_EQ_U64(l2.n, l.n);
        for (size_t i = 0; i < l.n && i < l2.n; i++)
            CHECK(same_gc(path, &l2.v[i].info, &l.v[i].info));
        gcs_gc_analyzer_free(spilled);
    }
    free(l.v);
    free(l2.v);
    gcs_gc_analyzer_free(sp);
}

int main(void)
{
    RUN(test_bgc_waits_for_gcs_paused_inside);
    RUN(test_every_fixture);
    RUN(test_spill_synthetic);
    RUN(test_spill_without_file);
    RUN(test_wks_concurrent_bgc);
    RUN(test_watch_replay_fixtures);
    RUN(test_watch_pause_and_save);
    RUN(test_watch_cut_stream);
    RUN(test_watch_unsupported_stream);
    RUN(test_watch_errors);
    return check_report("test_gc_settled");
}
