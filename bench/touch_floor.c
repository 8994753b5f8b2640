/*
 * bench/touch_floor.c - the least time any reader needs to look at every
 * event of a trace once: the files are read into a 256 KiB buffer (as
 * gcscope reads them, GCS_STREAM_READ_CHUNK) and one byte is loaded every
 * STRIDE bytes, STRIDE being the trace's bytes per event. A reader that finds each event's
 * header must at least touch memory that often; whatever it then does
 * with the event costs more. A program that prints a figure, not a test.
 *
 *   touch_floor STRIDE ROUNDS FILE...
 *
 * Prints the best wall time of ROUNDS passes over all FILEs, in seconds
 * (the page cache warm after the first pass, as for the bench's `cat`).
 */
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#define WINDOW ((size_t)16 << 20)

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

#define CHUNK ((size_t)256 << 10)

/* Loads one byte every stride bytes of the file; false if it cannot be read. */
static bool touch_file(const char *path, size_t stride, uint64_t *sum)
{
    static uint8_t buf[CHUNK];
    int fd = open(path, O_RDONLY);
    if (fd < 0)
        return false;
    /* The stride runs on across reads. */
    uint64_t at = 0, next = 0;
    for (;;) {
        ssize_t n = read(fd, buf, sizeof buf);
        if (n < 0) {
            close(fd);
            return false;
        }
        if (n == 0)
            break;
        const volatile uint8_t *m = buf;
        for (; next < at + (uint64_t)n; next += stride)
            *sum += m[next - at];
        at += (uint64_t)n;
    }
    close(fd);
    return true;
}

int main(int argc, char **argv)
{
    if (argc < 4) {
        fprintf(stderr, "usage: touch_floor STRIDE ROUNDS FILE...\n");
        return 2;
    }
    size_t stride = (size_t)strtoull(argv[1], NULL, 10);
    int rounds = atoi(argv[2]);
    if (stride == 0)
        stride = 1;
    if (rounds < 1)
        rounds = 1;
    double best = -1;
    uint64_t sum = 0;
    for (int r = 0; r < rounds; r++) {
        double t0 = now();
        for (int i = 3; i < argc; i++)
            if (!touch_file(argv[i], stride, &sum)) {
                fprintf(stderr, "touch_floor: cannot read %s\n", argv[i]);
                return 2;
            }
        double t = now() - t0;
        if (best < 0 || t < best)
            best = t;
    }
    /* The sum is printed to stderr so the loads cannot be optimized away. */
    fprintf(stderr, "touch_floor: checksum %llu\n", (unsigned long long)sum);
    printf("%.4f\n", best);
    return 0;
}
