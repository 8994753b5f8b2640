/*
 * bench/touch_floor.c - the least time any reader needs to look at every
 * event of a trace once: the files are mapped in 16 MiB windows (as
 * gcscope maps them) and one byte is loaded every STRIDE bytes, STRIDE
 * being the trace's bytes per event. A reader that finds each event's
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
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define WINDOW ((size_t)16 << 20)

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* Loads one byte every stride bytes of the file; false if it cannot be read. */
static bool touch_file(const char *path, size_t stride, uint64_t *sum)
{
    int fd = open(path, O_RDONLY);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0) {
        if (fd >= 0)
            close(fd);
        return false;
    }
    size_t size = (size_t)st.st_size;
    /* Window starts are multiples of WINDOW (page aligned); the stride
     * runs on across windows. */
    size_t next = 0;
    for (size_t off = 0; off < size; off += WINDOW) {
        size_t len = size - off < WINDOW ? size - off : WINDOW;
        const volatile uint8_t *m = mmap(NULL, len, PROT_READ, MAP_PRIVATE, fd, (off_t)off);
        if (m == MAP_FAILED) {
            close(fd);
            return false;
        }
        (void)madvise((void *)m, len, MADV_SEQUENTIAL);
        for (; next < off + len; next += stride)
            *sum += m[next - off];
        munmap((void *)m, len);
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
