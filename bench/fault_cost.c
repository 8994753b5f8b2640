/*
 * bench/fault_cost.c - what a page fault costs on this machine, the
 * figure behind two choices of src/ (docs/performance.md, "Twentieth
 * landing"): trace files are read into a small buffer, not mapped
 * (src/io/source.c), and large arrays live in 2 MiB pages
 * (gcs_big_resize in src/base/buf.c). A program that prints figures, not
 * a test.
 *
 *   cc -O2 -std=c11 -D_DEFAULT_SOURCE -o /tmp/fault_cost bench/fault_cost.c
 *   /tmp/fault_cost [FILE]
 *
 * Prints, best of 5 each:
 *   - 40 MiB of fresh anonymous memory touched one store a 4 KiB page,
 *     then the same in a mapping advised MADV_HUGEPAGE (2 MiB pages);
 *   - with FILE (warm in the page cache after the first pass): the file
 *     mapped in 16 MiB windows (as gcscope did until the twentieth
 *     landing) against read() into a 256 KiB buffer (as it does now), one
 *     byte loaded every 64 either way.
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define ANON_BYTES ((size_t)40 << 20)
#define HUGE_PAGE ((size_t)2 << 20)
#define WINDOW ((size_t)16 << 20)
#define CHUNK ((size_t)256 << 10)
#define ROUNDS 5

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* Seconds to map ANON_BYTES and store once a 4 KiB page; huge: advised
 * for 2 MiB pages, at a 2 MiB boundary. */
static double touch_anon(int huge)
{
    double t0 = now();
    uint8_t *m = mmap(NULL, ANON_BYTES + HUGE_PAGE, PROT_READ | PROT_WRITE,
                      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED)
        return -1;
    uint8_t *a = (uint8_t *)(((uintptr_t)m + HUGE_PAGE - 1) & ~(uintptr_t)(HUGE_PAGE - 1));
#ifdef MADV_HUGEPAGE
    if (huge)
        (void)madvise(a, ANON_BYTES, MADV_HUGEPAGE);
#endif
    for (size_t i = 0; i < ANON_BYTES; i += 4096)
        ((volatile uint8_t *)a)[i] = 1;
    double t = now() - t0;
    munmap(m, ANON_BYTES + HUGE_PAGE);
    return t;
}

/* Seconds to load a byte every 64 of the file, mapped or read; -1 if it
 * cannot be. */
static double scan_file(const char *path, int mapped, uint64_t *sum)
{
    static uint8_t buf[CHUNK];
    int fd = open(path, O_RDONLY);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0) {
        if (fd >= 0)
            close(fd);
        return -1;
    }
    double t0 = now();
    if (mapped) {
        for (off_t off = 0; off < st.st_size; off += (off_t)WINDOW) {
            size_t len = (size_t)(st.st_size - off) < WINDOW ? (size_t)(st.st_size - off) : WINDOW;
            const volatile uint8_t *m = mmap(NULL, len, PROT_READ, MAP_PRIVATE, fd, off);
            if (m == MAP_FAILED) {
                close(fd);
                return -1;
            }
            (void)madvise((void *)m, len, MADV_SEQUENTIAL);
            for (size_t i = 0; i < len; i += 64)
                *sum += m[i];
            munmap((void *)m, len);
        }
    } else {
        ssize_t n;
        while ((n = read(fd, buf, sizeof buf)) > 0)
            for (ssize_t i = 0; i < n; i += 64)
                *sum += ((volatile uint8_t *)buf)[i];
    }
    double t = now() - t0;
    close(fd);
    return t;
}

static double best(double a, double b) { return a < 0 || (b >= 0 && b < a) ? b : a; }

int main(int argc, char **argv)
{
    double small = -1, huge = -1;
    for (int r = 0; r < ROUNDS; r++) {
        small = best(small, touch_anon(0));
        huge = best(huge, touch_anon(1));
    }
    printf("40 MiB fresh memory, 4 KiB pages:  %8.1f ms (%.2f us a page)\n", small * 1e3,
           small * 1e6 / (double)(ANON_BYTES / 4096));
    printf("40 MiB fresh memory, 2 MiB pages:  %8.1f ms\n", huge * 1e3);
    if (argc > 1) {
        uint64_t sum = 0;
        double mapped = -1, read_in = -1;
        (void)scan_file(argv[1], 0, &sum); /* into the page cache */
        for (int r = 0; r < ROUNDS; r++) {
            mapped = best(mapped, scan_file(argv[1], 1, &sum));
            read_in = best(read_in, scan_file(argv[1], 0, &sum));
        }
        if (mapped < 0 || read_in < 0) {
            fprintf(stderr, "fault_cost: cannot read %s\n", argv[1]);
            return 2;
        }
        printf("%s mapped in 16 MiB windows:  %8.1f ms\n", argv[1], mapped * 1e3);
        printf("%s read 256 KiB at a time:    %8.1f ms\n", argv[1], read_in * 1e3);
        fprintf(stderr, "fault_cost: checksum %llu\n", (unsigned long long)sum);
    }
    return 0;
}
