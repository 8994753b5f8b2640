/*
 * bench/report_bench.c - `gcscope report` at 100,000 GCs: feeds a synthetic
 * GC sequence through the GC analyzer (typed records, as the events would
 * bring them), then times the HTML report and measures its size. A
 * program that prints figures; exit 1 when the report takes 2 s of CPU or
 * more, or weighs 5 MB or more (issue 12's budget).
 *
 *   report_bench [GCS [OUT.html]]   (default 100000, the HTML to /dev/null
 *                                    after its size is measured in memory)
 *
 * Deterministic: gen0 every ~40 ms, gen1 every 10th, gen2 every 50th,
 * pauses 0.1..20 ms, heap sizes drifting up and down.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gcscope.h"
#include "unit/gc_synth.h"

static gcs_gc_analyzer *an;

static void feed(double ms, gcs_gc_kind kind, uint32_t a, uint32_t b, uint32_t c, uint64_t mb)
{
    gcs_gc_record r = gc_synth_record(kind, 2);
    switch (kind) {
    case GCS_GCK_SUSPEND_EE_BEGIN: r.u.suspend_ee_begin.reason = 1; break;
    case GCS_GCK_START:
        r.u.start.count = a;
        r.u.start.depth = b;
        r.u.start.reason = c;
        r.u.start.type = GCS_GC_NONCONCURRENT;
        break;
    case GCS_GCK_END: r.u.end.count = a; break;
    case GCS_GCK_HEAP_STATS:
        for (int g = 0; g < 5; g++)
            r.u.heap_stats.generation_size[g] = mb * 1000000u / (g + 1);
        break;
    default: break;
    }
    gcs_gc_event_ctx ctx = {4242, 7, ms};
    if (gcs_gc_analyzer_feed_record(an, &ctx, &r) != GCS_OK) {
        fprintf(stderr, "report_bench: the analyzer refused a record\n");
        exit(2);
    }
}

static double cpu_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
    long gcs = argc > 1 ? atol(argv[1]) : 100000;
    const char *out_path = argc > 2 ? argv[2] : NULL;
    an = gcs_gc_analyzer_new(NULL, NULL);
    uint64_t rng = 0x9E3779B97F4A7C15ull;
    double t = 10;
    double t0 = cpu_seconds();
    for (long i = 1; i <= gcs; i++) {
        rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
        uint32_t gen = i % 50 == 0 ? 2 : i % 10 == 0 ? 1 : 0;
        double pause = 0.1 + (double)(rng % 2000) / 100.0 * (gen + 1) / 3.0;
        uint64_t mb = 50 + (uint64_t)(i % 997) / 10 + (rng >> 40) % 20;
        feed(t, GCS_GCK_SUSPEND_EE_BEGIN, 0, 0, 0, 0);
        feed(t + 0.01, GCS_GCK_SUSPEND_EE_END, 0, 0, 0, 0);
        feed(t + 0.02, GCS_GCK_START, (uint32_t)i, gen, i % 1000 == 0 ? 1 : 0, 0);
        feed(t + pause - 0.02, GCS_GCK_END, (uint32_t)i, 0, 0, 0);
        feed(t + pause - 0.01, GCS_GCK_HEAP_STATS, 0, 0, 0, mb);
        feed(t + pause, GCS_GCK_RESTART_EE_END, 0, 0, 0, 0);
        t += pause + 20 + (double)(rng % 4000) / 100.0;
    }
    gcs_gc_analyzer_set_span(an, 0, t);
    gcs_gc_analyzer_finish(an);
    double t1 = cpu_seconds();
    char *buf = NULL;
    size_t size = 0;
    FILE *f = open_memstream(&buf, &size);
    gcs_gc_html_options o = {.trace_name = "synthetic.nettrace"};
    int written = gcs_gc_html_write(f, an, &o);
    fclose(f);
    double t2 = cpu_seconds();
    const gcs_gc_process *p = gcs_gc_process_at(an, 0);
    printf("report_bench: %zu GCs: analysis %.3f s, HTML report %.3f s CPU, %.2f MB (%zu bytes)\n",
           p ? p->gc_count : 0, t1 - t0, t2 - t1, size / 1e6, size);
    if (out_path) {
        FILE *o2 = fopen(out_path, "w");
        if (o2) {
            fwrite(buf, 1, size, o2);
            fclose(o2);
        }
    }
    free(buf);
    gcs_gc_analyzer_free(an);
    bool ok = written == 1 && t2 - t1 < 2.0 && size < 5000000;
    if (!ok)
        printf("report_bench: over budget (2 s, 5 MB)\n");
    return ok ? 0 : 1;
}
