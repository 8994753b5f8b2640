/*
 * bench/fixed_cost.c - what one number costs `gcs_put_fixed`
 * (src/report/fast_number.h), the writer of every fixed-point number of
 * the reports and of each event's milliseconds (docs/performance.md,
 * twenty-fifth landing). A program that prints figures, not a test.
 *
 *   cc -O2 -std=c11 -D_DEFAULT_SOURCE -Isrc -o /tmp/fixed_cost bench/fixed_cost.c
 *   taskset -c 0 /tmp/fixed_cost
 *
 * Prints, best of 7 rounds of 10 M values each, the nanoseconds a number
 * with 3 and with 6 decimals: once with the decimals a constant at the
 * call (the event printer's milliseconds), once read from a volatile
 * (the per-GC table, where one function writes every column).
 */
#include <stdint.h>
#include <stdio.h>
#include <time.h>

#include "report/fast_number.h"

#define VALUES 10000000
#define ROUNDS 7

static volatile unsigned three = 3, six = 6;

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* One round of VALUES numbers; the seconds it took. sum keeps the
 * writes alive. In line at each call, so that a constant `decimals`
 * stays one inside. */
static inline __attribute__((always_inline)) double round_of(unsigned decimals, double start,
                                                             double step, uint64_t *sum)
{
    char buf[64];
    double v = start, t0 = now_s();
    for (int i = 0; i < VALUES; i++, v += step) {
        char *end = gcs_put_fixed(buf, v, decimals);
        *sum += (uint64_t)(end - buf) + (uint8_t)buf[1];
    }
    return now_s() - t0;
}

int main(void)
{
    const unsigned d3 = three, d6 = six;
    double best[4] = {1e9, 1e9, 1e9, 1e9};
    uint64_t sum = 0;
    for (int r = 0; r < ROUNDS; r++) {
        double t[4] = {round_of(3, 0.123, 1.7371, &sum), round_of(6, 12.345678, 0.0137, &sum),
                       round_of(d3, 0.123, 1.7371, &sum), round_of(d6, 12.345678, 0.0137, &sum)};
        for (int k = 0; k < 4; k++)
            if (t[k] < best[k])
                best[k] = t[k];
    }
    printf("gcs_put_fixed, ns a number (best of %d rounds of %d):\n", ROUNDS, VALUES);
    printf("  decimals a constant:     3: %5.1f   6: %5.1f\n", best[0] * 1e9 / VALUES,
           best[1] * 1e9 / VALUES);
    printf("  decimals not a constant: 3: %5.1f   6: %5.1f\n", best[2] * 1e9 / VALUES,
           best[3] * 1e9 / VALUES);
    printf("  (checksum %llu)\n", (unsigned long long)sum);
    return 0;
}
