/*
 * bench/objects_bench.c - how fast the object tracker applies GCs, and how
 * much memory it holds. A program that prints figures, not a test.
 *
 *   objects_bench [OBJECTS [RANGES_PER_GC [GCS]]]   (default 10M 100k 100)
 *
 * Synthetic and deterministic: OBJECTS objects 64 bytes apart; every GC is
 * a gen-2 GC (all objects condemned: the worst case) whose RANGES_PER_GC
 * moved ranges each carry a run of consecutive objects minus the first of
 * each run (it dies), handed over in shuffled order in chunks of 1000 as
 * events would bring them. Between GCs as many objects are allocated as
 * died, so the population stays at OBJECTS. Nine GCs in ten slide objects
 * down (compaction that keeps address order); every tenth sends the runs
 * to shuffled destinations (the order breaks and must be re-sorted).
 * Only begin_gc + add_moved + end_gc are timed, in CPU time of the process
 * (the machine may be shared; wall time would measure the neighbours).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "gcscope.h"

static uint64_t rng = 0x9E3779B97F4A7C15ull;
static uint64_t next_random(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static uint64_t deaths;
static void on_death(void *ctx, const gcs_tracked_object *o, gcs_death_kind kind, uint32_t gc,
                     int condemned, int64_t time)
{
    deaths++;
}

int main(int argc, char **argv)
{
    size_t n_objects = argc > 1 ? strtoull(argv[1], NULL, 10) : 10000000;
    size_t n_ranges = argc > 2 ? strtoull(argv[2], NULL, 10) : 100000;
    int n_gcs = argc > 3 ? atoi(argv[3]) : 100;
    if (n_objects < 2 * n_ranges || n_ranges == 0 || n_gcs <= 0) {
        fprintf(stderr, "usage: objects_bench [OBJECTS [RANGES_PER_GC [GCS]]] "
                        "(OBJECTS >= 2 * RANGES)\n");
        return 1;
    }
    const uint64_t spacing = 64;
    gcs_error err;
    gcs_objtrack_options opts = {0};
    opts.on_death = on_death;
    gcs_objtrack *t = gcs_objtrack_new(&opts, &err);
    if (!t)
        return 2;
    uint64_t alloc_ptr = 0x100000000ull; /* next free address, grows up */
    for (size_t i = 0; i < n_objects; i++) {
        gcs_tracked_object o = {0};
        o.address = alloc_ptr;
        o.size = (uint32_t)spacing;
        o.tag = (uint32_t)(i % 1000);
        alloc_ptr += spacing;
        if (gcs_objtrack_add(t, &o, &err) != GCS_OK)
            return 2;
    }
    gcs_moved_range *ranges = malloc(n_ranges * sizeof *ranges);
    size_t *slot = malloc(n_ranges * sizeof *slot);
    if (!ranges || !slot)
        return 2;
    double total = 0, total_sorted = 0, total_reordered = 0, worst = 0;
    int n_sorted = 0, n_reordered = 0;
    for (int g = 1; g <= n_gcs; g++) {
        /* Build this GC's ranges from the current population (untimed). */
        size_t n;
        const gcs_tracked_object *objs = gcs_objtrack_objects(t, &n);
        size_t per_run = n / n_ranges;
        bool reorder = g % 10 == 0;
        for (size_t r = 0; r < n_ranges; r++)
            slot[r] = r;
        if (reorder)
            for (size_t r = n_ranges - 1; r > 0; r--) {
                size_t k = (size_t)(next_random() % (r + 1));
                size_t x = slot[r];
                slot[r] = slot[k];
                slot[k] = x;
            }
        uint64_t dest_base = objs[0].address; /* slide down to the heap start */
        uint64_t slide_to = dest_base;
        uint64_t max_run_bytes = 0;
        for (size_t r = 0; r < n_ranges; r++) {
            size_t first = r * per_run + 1; /* objs[r * per_run] dies */
            size_t last = r + 1 < n_ranges ? (r + 1) * per_run - 1 : n - 1;
            uint64_t start = objs[first].address;
            uint64_t length = objs[last].address + spacing - start;
            ranges[r].old_start = start;
            ranges[r].length = length;
            if (length > max_run_bytes)
                max_run_bytes = length;
            ranges[r].new_start = slide_to;
            slide_to += length;
        }
        if (reorder) /* destinations: fixed-size slots in shuffled order */
            for (size_t r = 0; r < n_ranges; r++)
                ranges[r].new_start = dest_base + slot[r] * max_run_bytes;
        /* Events bring ranges in no particular order. */
        for (size_t r = n_ranges - 1; r > 0; r--) {
            size_t k = (size_t)(next_random() % (r + 1));
            gcs_moved_range x = ranges[r];
            ranges[r] = ranges[k];
            ranges[k] = x;
        }
        uint64_t deaths_before = deaths;
        double t0 = now_s();
        gcs_objtrack_begin_gc(t, (uint32_t)g, 2, g, &err);
        for (size_t r = 0; r < n_ranges; r += 1000) {
            size_t chunk = n_ranges - r < 1000 ? n_ranges - r : 1000;
            gcs_objtrack_add_moved(t, &ranges[r], chunk, &err);
        }
        if (gcs_objtrack_end_gc(t, &err) != GCS_OK) {
            fprintf(stderr, "objects_bench: %s\n", err.reason);
            return 2;
        }
        double dt = now_s() - t0;
        total += dt;
        if (dt > worst)
            worst = dt;
        if (reorder) {
            total_reordered += dt;
            n_reordered++;
        } else {
            total_sorted += dt;
            n_sorted++;
        }
        /* Allocate as many as died, above everything (untimed). */
        uint64_t died = deaths - deaths_before;
        const gcs_tracked_object *after = gcs_objtrack_objects(t, &n);
        if (n && after[n - 1].address + spacing > alloc_ptr)
            alloc_ptr = after[n - 1].address + spacing;
        for (uint64_t i = 0; i < died; i++) {
            gcs_tracked_object o = {0};
            o.address = alloc_ptr;
            o.size = (uint32_t)spacing;
            o.alloc_gc = (uint32_t)g;
            alloc_ptr += spacing;
            gcs_objtrack_add(t, &o, &err);
        }
    }
    size_t n;
    gcs_objtrack_objects(t, &n);
    const gcs_objtrack_stats *s = gcs_objtrack_get_stats(t);
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    printf("objects_bench: %zu tracked objects, %zu moved ranges per GC, %d gen-2 GCs\n",
           n_objects, n_ranges, n_gcs);
    printf("  CPU time per GC    %8.1f ms (mean), %8.1f ms (worst)\n", 1000 * total / n_gcs,
           1000 * worst);
    if (n_sorted)
        printf("  order-keeping GCs  %8.1f ms (mean of %d)\n", 1000 * total_sorted / n_sorted,
               n_sorted);
    if (n_reordered)
        printf("  reordering GCs     %8.1f ms (mean of %d, re-sorted %llu times)\n",
               1000 * total_reordered / n_reordered, n_reordered,
               (unsigned long long)s->resorts);
    printf("  objects per second %8.1f M (through a GC)\n",
           (double)n_objects * n_gcs / total / 1e6);
    printf("  deaths             %llu (%.2f%% per GC), tracked at end %zu\n",
           (unsigned long long)deaths, 100.0 * (double)deaths / n_gcs / (double)n_objects, n);
    printf("  record size        %zu bytes per tracked object\n", sizeof(gcs_tracked_object));
    printf("  peak RSS           %8.1f MB (%.1f bytes per tracked object)\n",
           ru.ru_maxrss / 1024.0, ru.ru_maxrss * 1024.0 / (double)n_objects);
    free(ranges);
    free(slot);
    gcs_objtrack_free(t);
    return 0;
}
