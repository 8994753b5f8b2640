/*
 * test_gc_oracle.c - `gcscope stats --format json` against TraceEvent.
 *
 * For every fixture tests/data/X.nettrace with X.oracle-gcstats.json (the
 * output of tools/oracle on TraceEvent 4.0.0): read the trace, write our
 * JSON report, parse both, and compare. Every GC is matched by number;
 * generation, type, reason and completeness are equal; every number we
 * print with 6 decimals (times, sizes, allocations, rates, percentages) is
 * TraceEvent's double rounded to 6 decimals; the rollups and the summary
 * likewise. The oracle output may be gzipped (X.oracle-gcstats.json.gz) when
 * it is large.
 *
 * Given file pairs (`test_gc_oracle ORACLE.json OURS.json ...`), it makes
 * the same comparison between the oracle's gcstats and `gcscope stats
 * --format json` of any trace instead (scripts/check-oracle.sh,
 * tests/cli/stats_oracle.sh).
 *
 * Deliberate differences (docs/gc-stats.md) are named here:
 *  - reason names: TraceEvent calls 0x8 "Internal" (the runtime
 *    documentation: stress) and has no names for 0xE..0x11 (prints the
 *    number); we print Stress, BGCTuningSOH, BGCTuningLOH, BGCStepping,
 *    InducedAggressive.
 *  - gc_mode: TraceEvent without a TraceLog says "unknown"; we use the
 *    runtime's StartupFlags (not compared).
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gcscope.h"
#include "unit/check.h"
#include "unit/json_mini.h"

/* TraceEvent's reason names that we deliberately spell differently. */
static const char *reason_as_ours(const char *theirs)
{
    static const char *const map[][2] = {{"Internal", "Stress"},      {"14", "BGCTuningSOH"},
                                         {"15", "BGCTuningLOH"},      {"16", "BGCStepping"},
                                         {"17", "InducedAggressive"}};
    for (size_t i = 0; i < sizeof map / sizeof map[0]; i++)
        if (!strcmp(theirs, map[i][0]))
            return map[i][1];
    return theirs;
}

/* A gzipped oracle output, decompressed by gzip into a temporary file;
 * NULL when absent. */
static char *read_gzipped(const char *path, size_t *size)
{
    if (!check_file_exists(path))
        return NULL;
    char tmp[] = "/tmp/gcs_oracle_XXXXXX";
    int fd = mkstemp(tmp);
    if (fd < 0)
        return NULL;
    close(fd);
    char cmd[600];
    snprintf(cmd, sizeof cmd, "gzip -dc '%s' > '%s'", path, tmp);
    char *text = system(cmd) == 0 ? (char *)check_read_file(tmp, size) : NULL;
    unlink(tmp);
    return text;
}

static int failures_shown;
/* GCs whose compaction was compared, and left out (TraceEvent took a
 * background GC's history for them): said at the end of the run. */
static unsigned compaction_compared, compaction_left_out;

/* a and b equal within eps (both NaN counts as equal). */
static bool close_enough(double a, double b, double eps)
{
    if (isnan(a) || isnan(b))
        return isnan(a) && isnan(b);
    if (isinf(a) || isinf(b))
        return a == b;
    double scale = fabs(a) > 1 ? fabs(a) : 1;
    return fabs(a - b) <= eps * scale;
}

/* b is a (a double) as we print it: rounded to 6 decimals. The slack
 * beyond half a unit of the 6th decimal only absorbs the binary
 * representation of the decimal text. */
static bool same_to_6_decimals(double a, double b)
{
    if (isnan(a) || isnan(b) || isinf(a) || isinf(b))
        return close_enough(a, b, 0);
    return fabs(a - b) <= 0.5e-6 + 1e-15 * fabs(a);
}

#define CMP_6(what, num, a, b) CMP_NUM(what, num, a, b, -1)

#define CMP_NUM(what, num, a, b, eps)                                                         \
    do {                                                                                      \
        double a_ = (a), b_ = (b);                                                            \
        if ((eps) < 0 ? !same_to_6_decimals(a_, b_) : !close_enough(a_, b_, eps)) {             \
            check_failed_in_test = 1;                                                         \
            if (failures_shown++ < 40)                                                        \
                fprintf(stderr, "%s: GC %d %s: TraceEvent %.17g, ours %.17g\n", name, (int)(num), \
                        what, a_, b_);                                                        \
        }                                                                                     \
    } while (0)

/* Our report (JSON) for a trace, parsed. NULL + *skip when the build has
 * no reader for this format yet. */
static jm_node *our_report(const char *path, bool *skip)
{
    gcs_error err;
    gcs_error_clear(&err);
    *skip = false;
    gcs_source *src = gcs_source_open_file(path, &err);
    if (!src)
        return NULL;
    gcs_reader *r = gcs_reader_new(src, NULL, &err);
    gcs_gc_analyzer *an = gcs_gc_analyzer_new(NULL, &err);
    gcs_finalized *fz = gcs_finalized_new();
    CHECK(fz != NULL);
    const gcs_event *ev;
    gcs_status st;
    while ((st = gcs_reader_next(r, &ev, &err)) == GCS_OK) {
        CHECK_EQ_INT(gcs_gc_analyzer_feed(an, ev), GCS_OK);
        CHECK_EQ_INT(gcs_finalized_feed(fz, ev), GCS_OK);
    }
    CHECK_EQ_INT(gcs_finalized_finish(fz), GCS_OK);
    if (st == GCS_ERR_UNSUPPORTED && gcs_reader_get_stats(r)->events == 0)
        *skip = true;
    else
        CHECK_EQ_INT(st, GCS_END);
    gcs_gc_analyzer_set_lost_events(an, gcs_reader_get_stats(r)->lost_events);
    gcs_gc_analyzer_finish(an);
    char *buf = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&buf, &len);
    gcs_gc_report_options ro = {.format = GCS_GC_FORMAT_JSON, .trace_name = "trace",
                                .finalized = fz};
    CHECK(gcs_gc_report_write(mem, an, &ro) >= 0);
    fclose(mem);
    jm_node *doc = *skip ? NULL : jm_parse(buf, len);
    if (!*skip)
        CHECK(doc != NULL);
    free(buf);
    gcs_finalized_free(fz);
    gcs_gc_analyzer_free(an);
    gcs_reader_free(r);
    gcs_source_free(src);
    return doc;
}

static void compare_gc(const char *name, const jm_node *o, const jm_node *m)
{
    int num = (int)jm_num(jm_get(o, "number"));
    CMP_NUM("generation", num, jm_num(jm_get(o, "generation")), jm_num(jm_get(m, "generation")), 0);
    const char *ot = jm_str(jm_get(o, "type")), *mt = jm_str(jm_get(m, "type"));
    const char *orr = jm_str(jm_get(o, "reason")), *mr = jm_str(jm_get(m, "reason"));
    if (!ot || !mt || strcmp(ot, mt) || !orr || !mr || strcmp(reason_as_ours(orr), mr)) {
        check_failed_in_test = 1;
        fprintf(stderr, "%s: GC %d type/reason: TraceEvent %s/%s, ours %s/%s\n", name, num,
                ot ? ot : "?", orr ? orr : "?", mt ? mt : "?", mr ? mr : "?");
    }
    bool complete = jm_num(jm_get(o, "is_complete")) == 1;
    CMP_NUM("is_complete", num, complete, jm_num(jm_get(m, "is_complete")), 0);
    /* Our per-GC heap count (TraceEvent keeps the first GC's for all): the
     * NumHeaps of the history TraceEvent attached to this GC, or none. */
    const jm_node *ohist = jm_get(o, "global_heap_history"), *mheaps = jm_get(m, "heaps");
    /* compacting: TraceEvent's IsNotCompacting() is true when the history's
     * GlobalMechanisms has Compaction (its name says the opposite), and
     * true without a history, where ours is null. */
    const jm_node *mcomp = jm_get(m, "compacting");
    if (ohist && ohist->type == JM_OBJ) {
        CMP_NUM("heaps", num, jm_num(jm_get(ohist, "num_heaps")), jm_num(mheaps), 0);
        /* A background GC's global history landed on this GC too, and
         * TraceEvent keeps the later one, ours the GC's own (the first):
         * seen by its per-heap histories coming too (more than heaps:
         * wks-service GCs 24 and 482), or by the history condemning
         * another generation than the GC (a NativeAOT .NET 8 recording: a
         * foreground gen0 GC ending just before the BGC's history, its
         * RestartEE after it, so that TraceEvent's current GC was still
         * the foreground one). */
        if (jm_num(jm_get(o, "per_heap_history_count")) <= jm_num(jm_get(ohist, "num_heaps")) &&
            jm_num(jm_get(ohist, "condemned_generation")) == jm_num(jm_get(o, "generation"))) {
            CMP_NUM("compacting", num, jm_num(jm_get(o, "is_not_compacting")), jm_num(mcomp), 0);
            compaction_compared++;
        } else {
            compaction_left_out++;
        }
    } else if (!mheaps || mheaps->type != JM_NULL || !mcomp || mcomp->type != JM_NULL) {
        check_failed_in_test = 1;
        fprintf(stderr, "%s: GC %d: TraceEvent attached no history, our heaps/compacting are "
                        "not null\n", name, num);
    }
    if (!complete)
        return; /* TraceEvent computes nothing more for it */
    static const char *const same_name[] = {
        "pause_ms", "suspend_ms", "duration_ms", "pause_start_ms", "start_ms",
        "duration_since_last_restart_ms", "heap_size_before_mb", "heap_size_after_mb",
        "heap_size_peak_mb", "promoted_mb", "allocated_since_last_gc_mb", "alloc_rate_mb_s",
        "ratio_peak_after"};
    for (size_t k = 0; k < sizeof same_name / sizeof same_name[0]; k++)
        CMP_6(same_name[k], num, jm_num(jm_get(o, same_name[k])), jm_num(jm_get(m, same_name[k])));
    CMP_6("pause_time_pct", num, jm_num(jm_get(o, "pause_time_pct_since_last_gc")),
          jm_num(jm_get(m, "pause_time_pct")));
    CMP_6("gen0_allocated_mb", num, jm_num(jm_at(jm_get(o, "user_allocated_mb"), 0)),
          jm_num(jm_get(m, "gen0_allocated_mb")));
    /* TraceEvent's FinalizationPromotedSize is a signed 64-bit field. */
    CMP_6("finalization_promoted_mb", num,
          jm_num(jm_get(jm_get(o, "heap_stats"), "finalization_promoted_size")) / 1e6,
          jm_num(jm_get(m, "finalization_promoted_mb")));
    const jm_node *oticks = jm_get(o, "alloced_since_last_gc_alloc_tick_mb");
    for (size_t k = 0; oticks && oticks->type == JM_ARR && k < 3; k++)
        CMP_6("alloc_tick_mb", num, jm_num(jm_at(oticks, k)),
              jm_num(jm_at(jm_get(m, "alloc_tick_mb"), k)));
    static const char *const arrays[] = {"gen_size_before_mb", "gen_size_after_mb", "survival_pct",
                                         "fragmentation_pct"};
    for (size_t k = 0; k < sizeof arrays / sizeof arrays[0]; k++)
        for (size_t g = 0; g < 5; g++)
            CMP_6(arrays[k], num, jm_num(jm_at(jm_get(o, arrays[k]), g)),
                  jm_num(jm_at(jm_get(m, arrays[k]), g)));
    CMP_NUM("pinned_objects", num, jm_num(jm_get(o, "pinned_objects")),
            jm_num(jm_get(m, "pinned_objects")), 0);
    /* Condemned reasons: TraceEvent's GetCondemnedReasons keys = our list. */
    const jm_node *oc = jm_get(o, "condemned_reasons"), *mc = jm_get(m, "condemned_reasons");
    size_t on = oc && oc->type == JM_OBJ ? oc->count : 0;
    bool same = mc && mc->type == JM_ARR && mc->count == on;
    for (size_t i = 0; same && i < on; i++) {
        bool found = false;
        for (size_t j = 0; j < mc->count; j++)
            if (jm_str(mc->items[j]) && !strcmp(jm_str(mc->items[j]), oc->keys[i]))
                found = true;
        same = found;
    }
    if (!same) {
        check_failed_in_test = 1;
        fprintf(stderr, "%s: GC %d condemned reasons differ\n", name, num);
    }
}

static void compare_rollup(const char *name, const char *row, const jm_node *o, const jm_node *m)
{
    static const char *const keys[][2] = {
        {"count", "count"},           {"max_pause_ms", "max_pause_ms"},
        {"max_size_peak_mb", "max_peak_mb"}, {"max_alloc_rate_mb_s", "max_alloc_rate_mb_s"},
        {"total_pause_ms", "total_pause_ms"}, {"total_allocated_mb", "total_allocated_mb"},
        {"mean_pause_ms", "mean_pause_ms"},   {"num_induced", "induced"}};
    for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++) {
        double a = jm_num(jm_get(o, keys[k][0])), b = jm_num(jm_get(m, keys[k][1]));
        if (!same_to_6_decimals(a, b)) {
            check_failed_in_test = 1;
            fprintf(stderr, "%s: rollup %s %s: TraceEvent %.9g, ours %.9g\n", name, row, keys[k][0],
                    a, b);
        }
    }
}

/* A JSON file (gzipped when its name ends in .gz), parsed; NULL with
 * *absent set when it cannot be read, NULL alone when it is not JSON. */
static jm_node *read_json(const char *path, bool *absent)
{
    size_t len, n = strlen(path);
    char *text = n > 3 && strcmp(path + n - 3, ".gz") == 0 ? read_gzipped(path, &len)
                                                           : (char *)check_read_file(path, &len);
    *absent = text == NULL;
    if (!text)
        return NULL;
    jm_node *doc = jm_parse(text, len);
    free(text);
    if (!doc)
        fprintf(stderr, "%s: not JSON\n", path);
    return doc;
}

/* TraceEvent's GC analysis (odoc, the oracle's gcstats) against our JSON
 * report (mdoc); nothing to compare when either is NULL (the caller
 * checked it). */
/* TraceEvent's FinalizedObjects (name -> count) against our rows: the same
 * names with the same counts, ours most first; the "" row's type ids add
 * up to it. */
static void compare_finalized(const char *name, const jm_node *ofin, const jm_node *mfin)
{
    const jm_node *types = jm_get(mfin, "types");
    size_t oc = ofin ? ofin->count : 0, mc = types ? types->count : 0;
    if (oc != mc) {
        check_failed_in_test = 1;
        fprintf(stderr, "%s: finalized objects: TraceEvent %zu type names, ours %zu\n", name, oc, mc);
        return;
    }
    double total = 0;
    for (size_t i = 0; i < mc; i++) {
        const jm_node *row = types->items[i];
        const char *n = jm_get(row, "name") ? jm_get(row, "name")->str : NULL;
        double count = jm_num(jm_get(row, "count"));
        total += count;
        CHECK(n != NULL);
        if (i > 0)
            CHECK(count <= jm_num(jm_get(types->items[i - 1], "count")));
        const jm_node *theirs = n ? jm_get(ofin, n) : NULL;
        if (!theirs || jm_num(theirs) != count) {
            check_failed_in_test = 1;
            fprintf(stderr, "%s: finalized \"%s\": TraceEvent %.0f, ours %.0f\n", name, n ? n : "?",
                    theirs ? jm_num(theirs) : -1.0, count);
        }
        const jm_node *ids = jm_get(row, "type_ids");
        if (n && !n[0]) {
            double sum = 0;
            for (size_t k = 0; ids && k < ids->count; k++)
                sum += jm_num(jm_get(ids->items[k], "count"));
            CHECK(sum == count);
        }
    }
    CHECK(total == jm_num(jm_get(mfin, "objects")));
}

static void compare_docs(const char *name, const jm_node *odoc, const jm_node *mdoc)
{
    if (!odoc || !mdoc)
        return;
    const jm_node *oprocs = jm_get(odoc, "processes"), *mprocs = jm_get(mdoc, "processes");
    CHECK(oprocs && oprocs->count > 0);
    for (size_t i = 0; oprocs && i < oprocs->count; i++) {
        const jm_node *op = oprocs->items[i];
        const jm_node *mp = NULL;
        for (size_t j = 0; mprocs && j < mprocs->count; j++)
            if (jm_num(jm_get(mprocs->items[j], "pid")) == jm_num(jm_get(op, "pid")))
                mp = mprocs->items[j];
        /* A runtime without GCs: TraceEvent lists it, we report no process. */
        const jm_node *op_gcs = jm_get(op, "gcs");
        if (!mp && (!op_gcs || op_gcs->count == 0))
            continue;
        CHECK(mp != NULL);
        if (!mp)
            continue;
        const jm_node *ogcs = jm_get(op, "gcs"), *mgcs = jm_get(mp, "gcs");
        CHECK_EQ_U64(mgcs ? mgcs->count : 0, ogcs ? ogcs->count : 0);
        for (size_t k = 0; ogcs && k < ogcs->count; k++) {
            const jm_node *og = ogcs->items[k];
            const jm_node *mg = NULL;
            const double number = jm_num(jm_get(og, "number"));
            /* Both list the GCs in the same order, usually: the same
             * place first (a search of every GC would make a trace of
             * 40,000 GCs take minutes). */
            if (mgcs && k < mgcs->count && jm_num(jm_get(mgcs->items[k], "number")) == number)
                mg = mgcs->items[k];
            for (size_t j = 0; !mg && mgcs && j < mgcs->count; j++)
                if (jm_num(jm_get(mgcs->items[j], "number")) == number)
                    mg = mgcs->items[j];
            if (!mg) {
                check_failed_in_test = 1;
                fprintf(stderr, "%s: GC %d missing\n", name, (int)jm_num(jm_get(og, "number")));
                continue;
            }
            compare_gc(name, og, mg);
        }
        const jm_node *os = jm_get(op, "stats"), *ms = jm_get(mp, "summary");
        static const char *const sk[][2] = {{"count", "gc_count"},
                                            {"total_pause_ms", "total_pause_ms"},
                                            {"max_pause_ms", "max_pause_ms"},
                                            {"total_allocated_mb", "total_allocated_mb"},
                                            {"max_size_peak_mb", "max_heap_size_mb"},
                                            {"process_duration_ms", "traceevent_process_duration_ms"},
                                            {"gc_pause_time_pct", "traceevent_pause_time_pct"},
                                            {"max_suspend_ms", "max_suspend_ms"},
                                            {"total_promoted_mb", "total_promoted_mb"}};
        for (size_t k = 0; k < sizeof sk / sizeof sk[0]; k++) {
            double a = jm_num(jm_get(os, sk[k][0])), b = jm_num(jm_get(ms, sk[k][1]));
            if (!same_to_6_decimals(a, b)) {
                check_failed_in_test = 1;
                fprintf(stderr, "%s: summary %s: TraceEvent %.9g, ours %.9g\n", name, sk[k][0], a, b);
            }
        }
        compare_rollup(name, "ALL", os, jm_at(jm_get(mp, "generations"), 0));
        const jm_node *ogens = jm_get(op, "generations");
        for (size_t g = 0; g < 3; g++) {
            char row[8];
            snprintf(row, sizeof row, "%zu", g);
            compare_rollup(name, row, jm_at(ogens, g), jm_at(jm_get(mp, "generations"), g + 1));
        }
        CHECK_EQ_INT(jm_num(jm_get(op, "heap_count")), jm_num(jm_get(mp, "heap_count")));
        compare_finalized(name, jm_get(os, "finalized_objects"), jm_get(mp, "finalized_objects"));
    }
}

/* The trace at `trace` against the oracle's `oracle_base`.oracle-gcstats.json[.gz]. */
static void compare_trace(const char *name, const char *trace, const char *oracle_base)
{
    char oracle[300];
    bool absent;
    snprintf(oracle, sizeof oracle, "%s.oracle-gcstats.json", oracle_base);
    jm_node *odoc = read_json(oracle, &absent);
    if (absent) {
        snprintf(oracle, sizeof oracle, "%s.oracle-gcstats.json.gz", oracle_base);
        odoc = read_json(oracle, &absent);
    }
    if (absent) {
        printf("skipped: %s (no %s)\n", name, oracle);
        return;
    }
    CHECK(odoc != NULL);
    bool skip;
    jm_node *mdoc = our_report(trace, &skip);
    if (skip) {
        printf("skipped: %s (this build has no reader for the trace format yet)\n", name);
        jm_free(odoc);
        return;
    }
    compare_docs(name, odoc, mdoc);
    jm_free(odoc);
    jm_free(mdoc);
}

static void compare_fixture(const char *name)
{
    char trace[256], base[256];
    snprintf(trace, sizeof trace, "tests/data/%s.nettrace", name);
    snprintf(base, sizeof base, "tests/data/%s", name);
    compare_trace(name, trace, base);
}

/* LTTng traces from PerfView's tests, against CtfTraceEventSource: 11 GCs
 * in two processes (clr-only), none (netcoreapp31). */
static void test_ctf(void)
{
    static const char *const traces[] = {"clr-only.trace.zip", "netcoreapp31.trace.zip"};
    if (!check_file_exists("../shared/traces/ctf/clr-only.trace.zip"))
        SKIP("../shared/traces/ctf not present");
    for (size_t i = 0; i < sizeof traces / sizeof traces[0]; i++) {
        char trace[256], base[256];
        snprintf(trace, sizeof trace, "../shared/traces/ctf/%s", traces[i]);
        snprintf(base, sizeof base, "tests/data/shared/%s", traces[i]);
        compare_trace(traces[i], trace, base);
    }
}

static void test_wks_nonconcurrent(void) { compare_fixture("wks-nonconcurrent"); }
static void test_wks_concurrent(void) { compare_fixture("wks-concurrent"); }
/* The segments GC (libclrgc.so): background GCs, foreground GCs in them. */
static void test_wks_segments(void) { compare_fixture("wks-segments"); }
/* The cpu bench shape in small: sample-profiler rows between the GC's. */
static void test_cpu_sampled(void) { compare_fixture("cpu-sampled"); }
/* Older runtimes: .NET 8 server GC (compact reason 11 of its aggressive GC),
 * .NET 9 server GC with DATAS (1 heap, then 2), .NET Core 3.1 (segments,
 * the GC events' older versions, a GC number jump, server histories
 * after their background GC). */
static void test_older_runtimes(void)
{
    compare_fixture("net8-server");
    compare_fixture("net9-server-datas");
    compare_fixture("net31-concurrent");
    compare_fixture("net31-server");
}
/* NativeAOT executables of .NET 10 and 9: their own runtime writes the GC
 * events (no RuntimeInformation; .NET 10's ModuleLoad version 3; .NET 9's
 * server GC, no module event). */
static void test_native_aot(void)
{
    compare_fixture("net10-aot");
    compare_fixture("net9-aot");
}
/* Recorded by dotnet-trace: its default profile, its gc-verbose profile. */
static void test_dotnet_trace(void)
{
    compare_fixture("dotnet-trace-default");
    compare_fixture("dotnet-trace-gc-verbose");
}
static void test_server(void) { compare_fixture("server"); }
static void test_objects_movement(void) { compare_fixture("objects-movement"); }
static void test_objects_allocsampled(void) { compare_fixture("objects-allocsampled"); }
static void test_objects_bgc(void) { compare_fixture("objects-bgc"); }
static void test_objects_bgc_server(void) { compare_fixture("objects-bgc-server"); }
static void test_gen0size_small(void) { compare_fixture("gen0size-small"); }
static void test_probe_net10(void) { compare_fixture("probe-net10"); }
/* GCs 25 and 483 follow a foreground GC that got two one-heap histories
 * (TraceEvent pairs them heap by heap); GC 417's rate shows how times are
 * computed from ticks. */
static void test_wks_service(void) { compare_fixture("wks-service"); }
static void test_server_attach(void) { compare_fixture("server-attach"); }

/* server-attach with StartupFlags None in its rundown RuntimeInformation and
 * FinalizationPromotedSize 0xbaadbaadbaadbaad in GC 22's GCHeapStats
 * (scripts/patch-trace.py): every number still TraceEvent's (the garbage
 * read signed, as it does), the flavour inferred from the 2 heaps, the
 * garbage flagged. */
static void test_server_attach_patched(void)
{
    compare_fixture("server-attach-patched");
    bool skip;
    jm_node *doc = our_report("tests/data/server-attach-patched.nettrace", &skip);
    if (!doc)
        return;
    const jm_node *p = jm_at(jm_get(doc, "processes"), 0);
    CHECK(jm_str(jm_get(p, "gc_mode")) && !strcmp(jm_str(jm_get(p, "gc_mode")), "server"));
    CHECK_EQ_INT(jm_num(jm_get(p, "gc_mode_inferred")), 1);
    CHECK_EQ_INT(jm_num(jm_get(p, "concurrent")), 1); /* GCSettingsRundown BitSettings */
    CHECK_EQ_INT(jm_num(jm_get(p, "heap_count")), 2);
    CHECK_EQ_INT(jm_num(jm_get(jm_get(p, "problems"), "implausible_values")), 1);
    const jm_node *gcs = jm_get(p, "gcs");
    int flagged = 0;
    for (size_t i = 0; gcs && i < gcs->count; i++)
        if (jm_num(jm_get(gcs->items[i], "finalization_promoted_implausible")) == 1) {
            flagged++;
            CHECK_EQ_INT(jm_num(jm_get(gcs->items[i], "number")), 22);
        }
    CHECK_EQ_INT(flagged, 1);
    jm_free(doc);
}

/* GCs listed in a report's processes. */
static size_t gc_count(const jm_node *doc)
{
    size_t n = 0;
    const jm_node *procs = jm_get(doc, "processes");
    for (size_t i = 0; procs && i < procs->count; i++) {
        const jm_node *gcs = jm_get(procs->items[i], "gcs");
        n += gcs ? gcs->count : 0;
    }
    return n;
}

/* test_gc_oracle ORACLE.json[.gz] OURS.json ...: the same comparison on
 * any trace (scripts/check-oracle.sh: the oracle's `gcstats` and `gcscope
 * stats --format json` of the bench traces; tests/cli/stats_oracle.sh). */
static int compare_file_pair(const char *oracle, const char *ours)
{
    bool absent;
    jm_node *odoc = read_json(oracle, &absent), *mdoc = read_json(ours, &absent);
    check_failed_in_test = odoc == NULL || mdoc == NULL;
    failures_shown = 0;
    compare_docs(ours, odoc, mdoc);
    printf("%s %s: %zu GCs (TraceEvent %zu)\n", check_failed_in_test ? "FAIL" : "same", ours,
           mdoc ? gc_count(mdoc) : 0, odoc ? gc_count(odoc) : 0);
    jm_free(odoc);
    jm_free(mdoc);
    return !check_failed_in_test;
}

int main(int argc, char **argv)
{
    if (argc > 1)
        return check_run_pairs(argc, argv, "test_gc_oracle [ORACLE.json OURS.json]...",
                               compare_file_pair);
    RUN(test_wks_nonconcurrent);
    RUN(test_wks_concurrent);
    RUN(test_wks_segments);
    RUN(test_cpu_sampled);
    RUN(test_dotnet_trace);
    RUN(test_older_runtimes);
    RUN(test_native_aot);
    RUN(test_server);
    RUN(test_objects_movement);
    RUN(test_objects_bgc);
    RUN(test_objects_bgc_server);
    RUN(test_objects_allocsampled);
    RUN(test_gen0size_small);
    RUN(test_probe_net10);
    RUN(test_wks_service);
    RUN(test_server_attach);
    RUN(test_server_attach_patched);
    RUN(test_ctf);
    printf("test_gc_oracle: compaction compared on %u GCs, left out on %u (a background GC's "
           "history TraceEvent attached to them)\n",
           compaction_compared, compaction_left_out);
    return check_report("test_gc_oracle");
}
