/*
 * test_gc_insight.c - the report's metrics (gcscope/gc_insight.h) on
 * synthetic GC lists: percentiles, MMU, Mann-Whitney, findings, compare,
 * check, and the HTML writer at 100,000 GCs; then compare on a real
 * fixture against itself with its pauses doubled.
 */
#include <math.h>

#include "check.h"
#include "gcscope.h"

/* A complete GC with the given numbers (the rest NaN/0 as the analyzer
 * leaves a GC without those events). */
static gcs_gc_info make_gc(int32_t number, uint32_t gen, uint32_t type, uint32_t reason,
                           double pause_start_ms, double pause_ms, double after_mb)
{
    gcs_gc_info g;
    memset(&g, 0, sizeof g);
    g.number = number;
    g.generation = gen;
    g.type = type;
    g.reason = reason;
    g.is_complete = true;
    g.start_ms = pause_start_ms + 0.01;
    g.pause_start_ms = pause_start_ms;
    g.pause_ms = pause_ms;
    g.duration_ms = type == GCS_GC_BACKGROUND ? 5 * pause_ms : pause_ms;
    g.heap_size_before_mb = after_mb + 10;
    g.heap_size_peak_mb = after_mb + 10;
    g.heap_size_after_mb = after_mb;
    for (int k = 0; k < GCS_GEN_COUNT; k++) {
        g.gen_size_after_mb[k] = after_mb / GCS_GEN_COUNT;
        g.fragmentation_pct[k] = 5;
    }
    g.promoted_mb = 1;
    g.allocated_since_last_gc_mb = 10;
    g.user_allocated_mb[GCS_GEN0] = 10;
    g.has_heap_stats = true;
    return g;
}

static gcs_gc_process make_process(gcs_gc_info *gcs, size_t n)
{
    gcs_gc_process p;
    memset(&p, 0, sizeof p);
    p.pid = 42;
    p.gc_mode = "workstation";
    p.concurrent = 1;
    p.heap_count = 1;
    p.first_event_ms = NAN;
    p.last_event_ms = NAN;
    p.gcs = gcs;
    p.gc_count = n;
    return p;
}

static void test_percentiles(void)
{
    double v[100];
    for (int i = 0; i < 100; i++)
        v[i] = i + 1;
    CHECK_NEAR(gcs_percentile_sorted(v, 100, 50), 50, 0);
    CHECK_NEAR(gcs_percentile_sorted(v, 100, 99), 99, 0);
    CHECK_NEAR(gcs_percentile_sorted(v, 100, 100), 100, 0);
    CHECK_NEAR(gcs_percentile_sorted(v, 100, 0), 1, 0);
    CHECK_NEAR(gcs_percentile_sorted(v, 3, 50), 2, 0); /* ceil(1.5) = rank 2 */
    CHECK(isnan(gcs_percentile_sorted(v, 0, 50)));
}

static void test_mmu(void)
{
    /* Paused [10, 20) and [30, 40) in [0, 100]. */
    gcs_gc_info g[2] = {make_gc(1, 0, 0, 0, 10, 10, 1), make_gc(2, 0, 0, 0, 30, 10, 1)};
    double w[6] = {5, 10, 20, 30, 100, 200}, u[6];
    CHECK(gcs_gc_mmu(g, 2, 0, 100, w, 6, u));
    CHECK_NEAR(u[0], 0, 1e-12);           /* a window inside a pause */
    CHECK_NEAR(u[1], 0, 1e-12);
    CHECK_NEAR(u[2], 0.5, 1e-12);         /* [10, 30): 10 of 20 paused */
    CHECK_NEAR(u[3], 1.0 / 3.0, 1e-12);   /* [10, 40): 20 of 30 */
    CHECK_NEAR(u[4], 0.8, 1e-12);         /* the whole span */
    CHECK(isnan(u[5]));                   /* longer than the span */
    /* An incomplete GC does not count. */
    g[1].is_complete = false;
    CHECK(gcs_gc_mmu(g, 2, 0, 100, w, 6, u));
    CHECK_NEAR(u[3], 2.0 / 3.0, 1e-12);
}

/* ---- MMU: the former computation (a binary search for each candidate
 * window's ends), for reference; the walk that replaced it must give the
 * same bits ---- */

static uint64_t ref_next(uint64_t *state); /* the bootstrap's reference generator, below */

typedef struct ref_iv {
    double start, end;
} ref_iv;

static int ref_iv_cmp(const void *a, const void *b)
{
    const ref_iv *x = a, *y = b;
    return x->start < y->start ? -1 : x->start > y->start ? 1 : 0;
}

static double ref_paused_before(const ref_iv *iv, const double *prefix, size_t n, double t)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (iv[mid].start < t)
            lo = mid + 1;
        else
            hi = mid;
    }
    double s = prefix[lo];
    if (lo > 0 && iv[lo - 1].end > t)
        s -= iv[lo - 1].end - t;
    return s;
}

static void ref_mmu(const gcs_gc_info *gcs, size_t n, double from_ms, double to_ms,
                    const double *windows_ms, size_t n_windows, double *out)
{
    ref_iv *iv = malloc((n + 1) * sizeof *iv);
    double *prefix = malloc((n + 1) * sizeof *prefix);
    size_t m = 0;
    for (size_t i = 0; i < n; i++) {
        const gcs_gc_info *gc = &gcs[i];
        if (!gc->is_complete || !isfinite(gc->pause_ms) || !isfinite(gc->pause_start_ms) ||
            gc->pause_ms <= 0)
            continue;
        double s = fmax(gc->pause_start_ms, from_ms), e = fmin(gc->pause_start_ms + gc->pause_ms, to_ms);
        if (e > s)
            iv[m++] = (ref_iv){s, e};
    }
    qsort(iv, m, sizeof *iv, ref_iv_cmp);
    size_t k = 0;
    for (size_t i = 0; i < m; i++) {
        if (k > 0 && iv[i].start <= iv[k - 1].end)
            iv[k - 1].end = fmax(iv[k - 1].end, iv[i].end);
        else
            iv[k++] = iv[i];
    }
    prefix[0] = 0;
    for (size_t i = 0; i < k; i++)
        prefix[i + 1] = prefix[i] + (iv[i].end - iv[i].start);
    for (size_t w = 0; w < n_windows; w++) {
        double win = windows_ms[w];
        if (!(win > 0) || !(win <= to_ms - from_ms)) {
            out[w] = NAN;
            continue;
        }
        double worst = 0, last_start = to_ms - win;
        for (size_t i = 0; i < k; i++) {
            double cand[2] = {iv[i].start, iv[i].end - win};
            for (int c = 0; c < 2; c++) {
                double t = fmin(fmax(cand[c], from_ms), last_start);
                double paused = ref_paused_before(iv, prefix, k, t + win) -
                                ref_paused_before(iv, prefix, k, t);
                if (paused > worst)
                    worst = paused;
            }
        }
        double u = 1.0 - worst / win;
        out[w] = u < 0 ? 0 : u;
    }
    free(iv);
    free(prefix);
}

/* Random pause lists (some pauses overlapping, some GCs incomplete, the
 * span cut inside pauses) give the reference's MMU bit for bit. */
static void test_mmu_against_reference(void)
{
    enum { GCS = 3000, WINDOWS = 32 };
    static gcs_gc_info g[GCS];
    uint64_t rng = 0x2545F4914F6CDD1Dull;
    for (int round = 0; round < 40; round++) {
        size_t n = 1 + (size_t)(ref_next(&rng) % GCS);
        double t = (double)(ref_next(&rng) % 1000) / 7.0;
        for (size_t i = 0; i < n; i++) {
            double pause = (double)(1 + ref_next(&rng) % 5000) / 97.0;
            /* One in eight starts before the last one ends. */
            double gap = ref_next(&rng) % 8 == 0 ? -pause / 2
                                                  : (double)(ref_next(&rng) % 100000) / 13.0;
            t = fmax(0, t + gap);
            g[i] = make_gc((int32_t)i + 1, 0, 0, 0, t, pause, 1);
            g[i].is_complete = ref_next(&rng) % 16 != 0;
            t += pause;
        }
        double from = round % 3 == 0 ? g[0].pause_start_ms + 0.25 : 0;
        double to = round % 2 == 0 ? t : t - (double)(ref_next(&rng) % 1000) / 3.0;
        double w[WINDOWS], got[WINDOWS], want[WINDOWS];
        size_t nw = gcs_gc_mmu_windows(to - from, w, WINDOWS);
        w[nw++] = (to - from) / 3.0; /* a window no decade step gives */
        CHECK(gcs_gc_mmu(g, n, from, to, w, nw, got));
        ref_mmu(g, n, from, to, w, nw, want);
        for (size_t i = 0; i < nw; i++)
            CHECK(memcmp(&got[i], &want[i], sizeof got[i]) == 0);
    }
}

static void test_mmu_windows(void)
{
    double ws[32];
    CHECK_EQ_INT(gcs_gc_mmu_windows(60, ws, 32), 6);
    CHECK_NEAR(ws[5], 50, 0);
    CHECK_EQ_INT(gcs_gc_mmu_windows(0.5, ws, 32), 0);
    CHECK_EQ_INT(gcs_gc_mmu_windows(1e9, ws, 4), 4);
}

/* ---- bootstrap: the former one-statistic computation, for reference ----
 * (its generator copied from gc_metrics.c, not shared: the reference must
 * not change with the code it checks) */

static uint64_t ref_next(uint64_t *state)
{
    uint64_t x = *state;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    *state = x;
    return x * 2685821657736338717ull;
}

static int ref_cmp(const void *pa, const void *pb)
{
    double a = *(const double *)pa, b = *(const double *)pb;
    return (a > b) - (a < b);
}

/* One resample's statistic, as gcs_bootstrap_diff_ci computed it before
 * it took several at once: a mean over draws, or a nearest-rank
 * percentile of the drawn positions. */
static double ref_stat(const double *v, size_t n, double p, uint64_t *rng)
{
    if (p < 0) {
        double sum = 0;
        for (size_t i = 0; i < n; i++)
            sum += v[ref_next(rng) % n];
        return sum / (double)n;
    }
    uint32_t *counts = calloc(n, sizeof *counts);
    CHECK(counts != NULL);
    for (size_t i = 0; i < n; i++)
        counts[ref_next(rng) % n]++;
    /* The nearest rank, clamped to 1..n. */
    double r = ceil(p / 100.0 * (double)n);
    size_t rank = r < 1 ? 1 : r >= (double)n ? n : (size_t)r, seen = 0;
    double out = v[n - 1];
    for (size_t i = 0; i < n; i++) {
        seen += counts[i];
        if (seen >= rank) {
            out = v[i];
            break;
        }
    }
    free(counts);
    return out;
}

static void ref_ci(const double *a, size_t na, const double *b, size_t nb, double p,
                   unsigned resamples, double confidence, double *lo, double *hi)
{
    double *sa = malloc(na * sizeof *sa), *sb = malloc(nb * sizeof *sb);
    double *diff = malloc(resamples * sizeof *diff);
    CHECK(sa && sb && diff);
    memcpy(sa, a, na * sizeof *sa);
    memcpy(sb, b, nb * sizeof *sb);
    qsort(sa, na, sizeof *sa, ref_cmp);
    qsort(sb, nb, sizeof *sb, ref_cmp);
    uint64_t rng = 0x9E3779B97F4A7C15ull;
    for (unsigned i = 0; i < resamples; i++) {
        double stat_b = ref_stat(sb, nb, p, &rng); /* b's draws first */
        double stat_a = ref_stat(sa, na, p, &rng);
        diff[i] = stat_b - stat_a;
    }
    qsort(diff, resamples, sizeof *diff, ref_cmp);
    double tail = (1.0 - confidence) / 2.0;
    size_t ilo = (size_t)floor(tail * (resamples - 1));
    size_t ihi = (size_t)ceil((1.0 - tail) * (resamples - 1));
    *lo = diff[ilo];
    *hi = diff[ihi < resamples ? ihi : resamples - 1];
    free(sa);
    free(sb);
    free(diff);
}

/* Several statistics from one set of resamples give, bit for bit, what
 * one call each gave (compare takes its five pause intervals at once),
 * with ties, single values and uneven sizes; the intervals say what they
 * should of a shifted sample. */
static void test_bootstrap_intervals(void)
{
    static const size_t sizes[][2] = {{1, 1}, {7, 3}, {1000, 1000}, {4321, 257}, {2, 5000}};
    static const double stats[] = {50, -1, 99, 90, 100, 0, 50};
    const size_t nstats = sizeof stats / sizeof *stats;
    uint64_t seed = 12345;
    for (size_t c = 0; c < sizeof sizes / sizeof *sizes; c++) {
        size_t na = sizes[c][0], nb = sizes[c][1];
        double *a = malloc(na * sizeof *a), *b = malloc(nb * sizeof *b);
        CHECK(a && b);
        for (size_t i = 0; i < na; i++) /* ties: values on a 0.25 grid */
            a[i] = (double)(ref_next(&seed) % 400) * 0.25;
        for (size_t i = 0; i < nb; i++)
            b[i] = (double)(ref_next(&seed) % 400) * 0.25 + 5;
        double lo[16], hi[16];
        CHECK(gcs_bootstrap_diff_cis(a, na, b, nb, stats, nstats, 200, 0.99, lo, hi));
        for (size_t s = 0; s < nstats; s++) {
            double rlo, rhi, one_lo, one_hi;
            ref_ci(a, na, b, nb, stats[s], 200, 0.99, &rlo, &rhi);
            CHECK(gcs_bootstrap_diff_ci(a, na, b, nb, stats[s], 200, 0.99, &one_lo, &one_hi));
            CHECK(memcmp(&lo[s], &rlo, sizeof rlo) == 0 && memcmp(&hi[s], &rhi, sizeof rhi) == 0);
            CHECK(one_lo == rlo && one_hi == rhi);
            CHECK(lo[s] <= hi[s]);
        }
        /* Large samples: b is a shifted by about 5, the mean's interval
         * holds 5 and not 0. */
        if (na >= 1000 && nb >= 1000) {
            CHECK(lo[1] < 5 + 3 && hi[1] > 5 - 3);
            CHECK(lo[1] > 0);
        }
        free(a);
        free(b);
    }
    double x = 1, lo[1], hi[1], p = 50;
    CHECK(!gcs_bootstrap_diff_cis(&x, 0, &x, 1, &p, 1, 10, 0.9, lo, hi));
    CHECK(!gcs_bootstrap_diff_cis(&x, 1, &x, 1, &p, 0, 10, 0.9, lo, hi));
    CHECK(!gcs_bootstrap_diff_cis(&x, 1, &x, 1, &p, GCS_BOOTSTRAP_MAX_STATS + 1, 10, 0.9, lo,
                                  hi));
}

static void test_mann_whitney(void)
{
    double a[3] = {1, 2, 3}, b[3] = {4, 5, 6}, z, p;
    CHECK(gcs_mann_whitney(a, 3, b, 3, &z, &p));
    /* U = 9, mean 4.5, variance 3*3*7/12 = 5.25, continuity 0.5: z = 4 / sqrt(5.25). */
    CHECK_NEAR(z, 4 / sqrt(5.25), 1e-12);
    CHECK_NEAR(p, erfc(z / sqrt(2.0)), 1e-12);
    CHECK_NEAR(p, 0.0809, 1e-3);
    CHECK(gcs_mann_whitney(b, 3, a, 3, &z, &p));
    CHECK(z < 0);
    /* The same sample: no shift. */
    CHECK(gcs_mann_whitney(a, 3, a, 3, &z, &p));
    CHECK_NEAR(z, 0, 1e-12);
    CHECK_NEAR(p, 1, 1e-12);
    /* All ties: variance 0, no evidence. */
    double c[4] = {7, 7, 7, 7};
    CHECK(gcs_mann_whitney(c, 2, c + 2, 2, &z, &p));
    CHECK_NEAR(p, 1, 0);
    CHECK(!gcs_mann_whitney(a, 0, b, 3, &z, &p));
}

/* 200 GCs over 20 s: gen0 every 100 ms pausing 1..5 ms; every 20th a gen2
 * whose heap after grows 100 -> 290 MB; GCs 50 and 150 are induced; GC 100
 * a 300 ms gen2 blocking pause. */
static gcs_gc_info g200[200];

static gcs_gc_process synthetic200(void)
{
    for (int i = 0; i < 200; i++) {
        bool gen2 = i % 20 == 19;
        double after = gen2 ? 100 + 10 * (i / 20) * 2 : 50;
        g200[i] = make_gc(i + 1, gen2 ? 2 : 0, 0, (i == 49 || i == 149) ? 1 : 0, i * 100.0,
                          1 + (i % 5), after);
    }
    g200[99].generation = 2;
    g200[99].pause_ms = 300;
    return make_process(g200, 200);
}

static const gcs_gc_finding *find_rule(const gcs_gc_finding *f, int n, const char *rule)
{
    for (int i = 0; i < n; i++)
        if (strcmp(f[i].rule, rule) == 0)
            return &f[i];
    return NULL;
}

static void test_kpis(void)
{
    gcs_gc_process p = synthetic200();
    gcs_gc_kpis k;
    CHECK(gcs_gc_kpis_compute(&p, &k));
    CHECK_EQ_INT(k.complete_count, 200);
    CHECK_EQ_INT(k.gen_count[2], 10);
    CHECK_EQ_INT(k.induced_count, 2);
    CHECK_NEAR(k.max_pause_ms, 300, 0);
    /* 199 ordinary pauses 1..5 (i % 5 + 1) and the 300: p50 = 3, p99 = 5. */
    CHECK_NEAR(k.p50_pause_ms, 3, 0);
    CHECK_NEAR(k.p99_pause_ms, 5, 0);
    /* Span: first pause start 0 to the last pause end 19900 + 1 + 4. */
    CHECK_NEAR(k.span_ms, 19905, 1e-9);
    double total = 0;
    for (int i = 0; i < 200; i++)
        total += g200[i].pause_ms;
    CHECK_NEAR(k.total_pause_ms, total, 1e-9);
    CHECK_NEAR(k.gc_pct, 100 * total / 19905, 1e-9);
    CHECK_NEAR(k.peak_heap_mb, 290, 1e-9); /* 280 after + 10 */
}

static void test_findings(void)
{
    gcs_gc_process p = synthetic200();
    gcs_gc_finding f[16];
    int n = gcs_gc_findings(&p, NULL, f, 16);
    CHECK(n >= 3);
    const gcs_gc_finding *lp = find_rule(f, n, "long-pauses");
    CHECK(lp != NULL);
    if (lp)
        CHECK(strstr(lp->evidence, "1 of 200 GCs paused over 200 ms (gen0 0, gen1 0, gen2 1") != NULL);
    const gcs_gc_finding *ind = find_rule(f, n, "induced-gcs");
    CHECK(ind != NULL);
    if (ind)
        CHECK_EQ_STR(ind->evidence, "2 of 200 GCs were induced.");
    const gcs_gc_finding *hg = find_rule(f, n, "heap-growth");
    CHECK(hg != NULL);
    if (hg)
        CHECK(strstr(hg->evidence, "from 100.0 MB to 280.0 MB over 10 gen2 GCs") != NULL);
    CHECK(find_rule(f, n, "gc-time") == NULL); /* ~3 % paused */
    CHECK(find_rule(f, n, "incomplete-data") == NULL);
    for (int i = 1; i < n; i++)
        CHECK(f[i - 1].score >= f[i].score);
    /* A higher threshold: no long pause. */
    gcs_gc_finding_options o = {.long_pause_ms = 500};
    n = gcs_gc_findings(&p, &o, f, 16);
    CHECK(find_rule(f, n, "long-pauses") == NULL);
    /* Lost events make the numbers incomplete. */
    p.problems.lost_events = 7;
    n = gcs_gc_findings(&p, NULL, f, 16);
    const gcs_gc_finding *inc = find_rule(f, n, "incomplete-data");
    CHECK(inc != NULL);
    if (inc)
        CHECK(strstr(inc->evidence, "7 events lost") != NULL);
    /* cap 1 keeps the highest score and still counts every rule. */
    int all = n;
    CHECK_EQ_INT(gcs_gc_findings(&p, NULL, f, 1), all);
}

static gcs_gc_info doubled[200];

static void test_compare_and_check(void)
{
    gcs_gc_process a = synthetic200();
    gcs_gc_compare_row rows[GCS_GC_COMPARE_ROWS];
    CHECK_EQ_INT(gcs_gc_compare(&a, &a, NULL, rows), GCS_GC_COMPARE_ROWS);
    for (int i = 0; i < GCS_GC_COMPARE_ROWS; i++)
        CHECK_EQ_INT(rows[i].verdict, GCS_VERDICT_SAME);
    memcpy(doubled, g200, sizeof doubled);
    for (int i = 0; i < 200; i++)
        doubled[i].pause_ms *= 2;
    gcs_gc_process b = make_process(doubled, 200);
    CHECK_EQ_INT(gcs_gc_compare(&a, &b, NULL, rows), GCS_GC_COMPARE_ROWS);
    CHECK_EQ_STR(rows[8].metric, "p99_pause_ms");
    CHECK_NEAR(rows[8].delta_pct, 100, 1e-9);
    CHECK(rows[8].p_value < 0.01);
    CHECK_EQ_INT(rows[8].verdict, GCS_VERDICT_REGRESSED);
    CHECK_EQ_INT(rows[6].verdict, GCS_VERDICT_REGRESSED); /* p50 */
    CHECK_EQ_INT(rows[0].verdict, GCS_VERDICT_SAME);      /* gc_count */
    CHECK_EQ_STR(gcs_verdict_name(rows[0].verdict), "no significant change");
    CHECK_EQ_INT(gcs_gc_compare(&b, &a, NULL, rows), GCS_GC_COMPARE_ROWS);
    CHECK_EQ_INT(rows[8].verdict, GCS_VERDICT_IMPROVED);

    gcs_gc_limits lim = {.has_max_pause = true, .max_pause_ms = 250, .has_max_gen2 = true, .max_gen2 = 20};
    gcs_gc_violation v[8];
    CHECK_EQ_INT(gcs_gc_check(&a, NULL, &lim, v, 8), 1);
    CHECK_EQ_STR(v[0].limit, "max-pause-ms");
    CHECK_EQ_STR(v[0].text, "max pause 300.000 ms is over --max-pause-ms 250");
    lim.max_gen2 = 9;
    CHECK_EQ_INT(gcs_gc_check(&a, NULL, &lim, v, 8), 2);
    CHECK_EQ_STR(v[1].text, "10 gen2 GCs is over --max-gen2 9");
    gcs_gc_limits reg = {.has_max_regression = true, .max_regression_pct = 10};
    CHECK_EQ_INT(gcs_gc_check(&a, &a, &reg, v, 8), 0);
    int nv = gcs_gc_check(&b, &a, &reg, v, 8);
    CHECK_EQ_INT(nv, 3); /* gc %, p99, max pause */
    CHECK_EQ_STR(v[0].limit, "max-regression-pct");
    CHECK(strncmp(v[0].text, "gc_pct regressed", 16) == 0);
    CHECK_EQ_STR(v[1].text, "p99_pause_ms regressed 5.000 -> 10.000 (+100.0 %), over --max-regression-pct 10");
    reg.max_regression_pct = 150;
    CHECK_EQ_INT(gcs_gc_check(&b, &a, &reg, v, 8), 0);
}

/* Counts occurrences of needle in the n bytes of s. */
static size_t count_of(const char *s, size_t n, const char *needle)
{
    (void)n; /* s is NUL-terminated (open_memstream) */
    size_t c = 0, k = strlen(needle);
    for (const char *p = s; (p = strstr(p, needle)) != NULL; p += k)
        c++;
    return c;
}

/* compare's and check's pairing: names first, then pids, then order. */
static void test_pair_runtimes(void)
{
    gcs_gc_process p[6];
    memset(p, 0, sizeof p);
    const uint32_t pids[6] = {10, 20, 5, 30, 20, 40};
    for (int i = 0; i < 6; i++)
        p[i].pid = pids[i];
    const gcs_gc_process *base[2] = {&p[0], &p[1]}, *next[2] = {&p[2], &p[3]};
    const char *bn[2] = {"App", "Other"}, *nn[2] = {"other", "app"};
    long of[3];
    /* Named: "Other" (pid 20) pairs with "other" (pid 5), not in order. */
    CHECK_EQ_INT(gcs_gc_pair_runtimes(base, bn, 2, next, nn, 2, of), GCS_PAIRED_BY_NAME);
    CHECK_EQ_INT(of[0], 1);
    CHECK_EQ_INT(of[1], 0);
    CHECK_EQ_STR(gcs_gc_pairing_name(GCS_PAIRED_BY_NAME), "process name");
    /* No name in both: by pid; pid 40 has no counterpart. */
    const gcs_gc_process *next_pid[2] = {&p[5], &p[4]};
    const char *none[2] = {NULL, ""};
    CHECK_EQ_INT(gcs_gc_pair_runtimes(base, bn, 2, next_pid, none, 2, of), GCS_PAIRED_BY_PID);
    CHECK_EQ_INT(of[0], -1);
    CHECK_EQ_INT(of[1], 1);
    /* Neither: in order, the extra runtime unpaired. */
    const gcs_gc_process *next3[3] = {&p[2], &p[3], &p[5]};
    CHECK_EQ_INT(gcs_gc_pair_runtimes(base, NULL, 2, next3, NULL, 3, of), GCS_PAIRED_IN_ORDER);
    CHECK_EQ_INT(of[0], 0);
    CHECK_EQ_INT(of[1], 1);
    CHECK_EQ_INT(of[2], -1);
    /* Two runtimes of one process on each side pair in order among themselves. */
    const gcs_gc_process *two[2] = {&p[1], &p[1]}, *two_new[2] = {&p[4], &p[4]};
    CHECK_EQ_INT(gcs_gc_pair_runtimes(two, NULL, 2, two_new, NULL, 2, of), GCS_PAIRED_BY_PID);
    CHECK_EQ_INT(of[0], 0);
    CHECK_EQ_INT(of[1], 1);
}

/* The one escaping the report, compare's HTML and check's JUnit share. */
static void test_html_escape(void)
{
    char *buf = NULL;
    size_t size = 0;
    FILE *f = open_memstream(&buf, &size);
    CHECK(f != NULL);
    if (!f)
        return;
    gcs_html_escape(f, "a<b>&\"c\" 'd' \xc3\xa9");
    gcs_html_escape(f, "");
    fclose(f);
    CHECK(strcmp(buf, "a&lt;b&gt;&amp;&quot;c&quot; 'd' \xc3\xa9") == 0);
    free(buf);
}

static void test_html_100k(void)
{
    enum { N = 100000 };
    gcs_gc_info *g = malloc(N * sizeof *g);
    CHECK(g != NULL);
    if (!g)
        return;
    for (int i = 0; i < N; i++) {
        uint32_t gen = i % 50 == 49 ? 2 : i % 10 == 9 ? 1 : 0;
        uint32_t type = gen == 2 && i % 100 == 99 ? GCS_GC_BACKGROUND : 0;
        g[i] = make_gc(i + 1, gen, type, 0, i * 37.5, 0.5 + (i * 7919 % 1000) / 100.0,
                       100 + (i % 1000) / 10.0);
    }
    gcs_gc_process p = make_process(g, N);
    const gcs_gc_process *ps[1] = {&p};
    char *buf = NULL;
    size_t size = 0;
    FILE *f = open_memstream(&buf, &size);
    gcs_gc_html_options o = {.trace_name = "synthetic"};
    CHECK_EQ_INT(gcs_gc_html_write_processes(f, ps, 1, &o), 1);
    fclose(f);
    CHECK(size < 5u * 1000 * 1000);
    /* One timeline mark per pixel column and class at the most. */
    size_t marks = count_of(buf, size, "data-i=");
    CHECK(marks > 800 && marks <= 840 * 5);
    CHECK(count_of(buf, size, "<svg id=\"p0-") == 5);
    CHECK(count_of(buf, size, "http://") == 0 && count_of(buf, size, "https://") == 0);
    CHECK(strstr(buf, "\"gc_count\":100000") != NULL);
    /* Deterministic. */
    char *buf2 = NULL;
    size_t size2 = 0;
    f = open_memstream(&buf2, &size2);
    gcs_gc_html_write_processes(f, ps, 1, &o);
    fclose(f);
    CHECK(size == size2 && memcmp(buf, buf2, size) == 0);
    free(buf);
    free(buf2);
    free(g);
}

/* A fixture read through the GC analyzer (finished); NULL if unreadable. */
static gcs_gc_analyzer *analyze(const char *path)
{
    gcs_error err;
    gcs_error_clear(&err);
    gcs_source *src = gcs_source_open_file(path, &err);
    gcs_reader *r = src ? gcs_reader_new(src, NULL, &err) : NULL;
    gcs_gc_analyzer *an = r ? gcs_gc_analyzer_new(NULL, &err) : NULL;
    const gcs_event *ev;
    while (an && gcs_reader_next(r, &ev, &err) == GCS_OK)
        gcs_gc_analyzer_feed(an, ev);
    if (an)
        gcs_gc_analyzer_finish(an);
    gcs_reader_free(r);
    gcs_source_free(src);
    return an;
}

/* A real trace against itself with every pause doubled. */
static void test_fixture_doubled(void)
{
    gcs_gc_analyzer *an = analyze("tests/data/wks-nonconcurrent.nettrace");
    CHECK(an != NULL);
    if (!an)
        return;
    const gcs_gc_process *p = gcs_gc_process_at(an, 0);
    CHECK(p != NULL && p->gc_count > 20);
    gcs_gc_info *copy = malloc(p->gc_count * sizeof *copy);
    memcpy(copy, p->gcs, p->gc_count * sizeof *copy);
    for (size_t i = 0; i < p->gc_count; i++)
        copy[i].pause_ms *= 2;
    gcs_gc_process q = *p;
    q.gcs = copy;
    gcs_gc_compare_row rows[GCS_GC_COMPARE_ROWS];
    CHECK_EQ_INT(gcs_gc_compare(p, p, NULL, rows), GCS_GC_COMPARE_ROWS);
    for (int i = 5; i <= 9; i++)
        CHECK_EQ_INT(rows[i].verdict, GCS_VERDICT_SAME);
    CHECK_EQ_INT(gcs_gc_compare(p, &q, NULL, rows), GCS_GC_COMPARE_ROWS);
    for (int i = 5; i <= 9; i++) /* mean, p50, p90, p99, max */
        CHECK_EQ_INT(rows[i].verdict, GCS_VERDICT_REGRESSED);
    /* The report's numbers equal the analyzer's rollup. */
    gcs_gc_kpis k;
    CHECK(gcs_gc_kpis_compute(p, &k));
    CHECK_EQ_INT(k.complete_count, p->all.count);
    CHECK_NEAR(k.max_pause_ms, p->all.max_pause_ms, 0);
    CHECK_NEAR(k.p99_pause_ms, p->pct_all.p99, 0);
    CHECK_NEAR(k.p50_pause_ms, p->pct_all.p50, 0);
    free(copy);
    gcs_gc_analyzer_free(an);
}

/* Per-heap object space: one value per per-heap history, on the two-heap
 * server fixture; none for a hand-made process. */
static void test_heap_object_space(void)
{
    gcs_gc_analyzer *an = analyze("tests/data/server.nettrace");
    CHECK(an != NULL);
    if (!an)
        return;
    const gcs_gc_process *p = gcs_gc_process_at(an, 0);
    CHECK(p != NULL && p->max_heap_count == 2);
    size_t with_two = 0;
    for (size_t i = 0; p && i < p->gc_count; i++) {
        double v[4] = {NAN, NAN, NAN, NAN};
        size_t k = gcs_gc_heap_object_space(an, p, i, v, 4);
        CHECK_EQ_U64(k, p->gcs[i].per_heap_histories);
        if (k == 2) {
            with_two++;
            CHECK(v[0] >= 0 && v[1] >= 0 && isnan(v[2]));
            /* Object space before (size before minus free space) never
             * exceeds the size before the histories sum for gen0+LOH+POH. */
            CHECK(v[0] + v[1] <= p->gcs[i].gen_size_before_mb[0] + p->gcs[i].gen_size_before_mb[3] +
                                     p->gcs[i].gen_size_before_mb[4] + 1e-6);
        }
    }
    CHECK(with_two > 10);
    /* After the GC: object size (size after minus free space) of the same
     * generations, at most the GC's sizes after (GCHeapStats); a GC
     * leaves less than it found on some heap (gen0 emptied). */
    size_t after_two = 0, shrank = 0;
    for (size_t i = 0; p && i < p->gc_count; i++) {
        double before[4], after[4] = {NAN, NAN, NAN, NAN};
        size_t k = gcs_gc_heap_object_size_after(an, p, i, after, 4);
        CHECK_EQ_U64(k, p->gcs[i].per_heap_histories);
        gcs_gc_heap_object_space(an, p, i, before, 4);
        if (k != 2)
            continue;
        after_two++;
        CHECK(after[0] >= 0 && after[1] >= 0 && isnan(after[2]));
        const double *sa = p->gcs[i].gen_size_after_mb;
        if (isfinite(sa[0]))
            CHECK(after[0] + after[1] <= sa[0] + sa[3] + sa[4] + 1e-6);
        shrank += after[0] < before[0] || after[1] < before[1];
    }
    CHECK_EQ_U64(after_two, with_two);
    CHECK(shrank > 10);
    gcs_gc_process copy = *p;
    CHECK_EQ_U64(gcs_gc_heap_object_space(an, &copy, 0, NULL, 0), 0); /* not one of an's */
    CHECK_EQ_U64(gcs_gc_heap_object_size_after(an, &copy, 0, NULL, 0), 0);
    gcs_gc_analyzer_free(an);
}

int main(void)
{
    RUN(test_percentiles);
    RUN(test_mmu);
    RUN(test_mmu_windows);
    RUN(test_mmu_against_reference);
    RUN(test_mann_whitney);
    RUN(test_bootstrap_intervals);
    RUN(test_kpis);
    RUN(test_findings);
    RUN(test_compare_and_check);
    RUN(test_pair_runtimes);
    RUN(test_html_escape);
    RUN(test_html_100k);
    RUN(test_fixture_doubled);
    RUN(test_heap_object_space);
    return check_report("test_gc_insight");
}
