/*
 * test_gc_settled.c - gcs_gc_analyzer_next_settled hands out every GC once,
 * in list order, with exactly the values the finished analysis holds (the
 * report `gcscope stats` prints), and hands most of them out while the
 * stream is still being read: the rows `gcscope live` prints.
 *
 * Run on every trace in tests/data (and ../shared's EventPipe traces when
 * present), each read with the GC analyzer pulled after every event.
 */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gcscope.h"
#include "unit/check.h"

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

static void take_settled(gcs_gc_analyzer *an, settled_list *l, bool finished)
{
    gcs_gc_settled s;
    while (gcs_gc_analyzer_next_settled(an, &s)) {
        if (l->n == l->cap) {
            l->cap = l->cap ? 2 * l->cap : 256;
            l->v = realloc(l->v, l->cap * sizeof *l->v);
            if (!l->v)
                abort();
        }
        l->v[l->n++] = s;
        if (!finished)
            l->early++;
    }
}

/* Reads path pulling settled GCs after every event; compares them with the
 * finished analysis. Returns the GC count (-1: no reader for it). */
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

int main(void)
{
    RUN(test_every_fixture);
    RUN(test_wks_concurrent_bgc);
    return check_report("test_gc_settled");
}
