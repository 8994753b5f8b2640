/*
 * check.h - the unit-test harness: TEST functions run by RUN(), CHECK
 * macros that record failures with file and line. Each test binary ends
 * with "<name>: N passed, M failed" and exits non-zero on any failure.
 */
#ifndef GCS_TESTS_CHECK_H
#define GCS_TESTS_CHECK_H

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int check_failed_in_test;
static int check_tests_passed, check_tests_failed;

#define CHECK(cond)                                                              \
    do {                                                                         \
        if (!(cond)) {                                                           \
            check_failed_in_test = 1;                                            \
            fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond); \
        }                                                                        \
    } while (0)

#define CHECK_EQ_INT(a, b)                                                            \
    do {                                                                              \
        long long check_a_ = (long long)(a), check_b_ = (long long)(b);               \
        if (check_a_ != check_b_) {                                                   \
            check_failed_in_test = 1;                                                 \
            fprintf(stderr, "%s:%d: CHECK failed: %s == %s (%lld != %lld)\n", __FILE__, \
                    __LINE__, #a, #b, check_a_, check_b_);                            \
        }                                                                             \
    } while (0)

#define CHECK_EQ_U64(a, b)                                                               \
    do {                                                                                 \
        unsigned long long check_a_ = (unsigned long long)(a),                           \
                           check_b_ = (unsigned long long)(b);                           \
        if (check_a_ != check_b_) {                                                      \
            check_failed_in_test = 1;                                                    \
            fprintf(stderr, "%s:%d: CHECK failed: %s == %s (%llu != %llu)\n", __FILE__,  \
                    __LINE__, #a, #b, check_a_, check_b_);                               \
        }                                                                                \
    } while (0)

#define CHECK_EQ_STR(a, b)                                                                 \
    do {                                                                                   \
        const char *check_a_ = (a), *check_b_ = (b);                                       \
        if (!check_a_ || !check_b_ || strcmp(check_a_, check_b_) != 0) {                   \
            check_failed_in_test = 1;                                                      \
            fprintf(stderr, "%s:%d: CHECK failed: %s == %s (\"%s\" != \"%s\")\n", __FILE__, \
                    __LINE__, #a, #b, check_a_ ? check_a_ : "(null)",                     \
                    check_b_ ? check_b_ : "(null)");                                       \
        }                                                                                  \
    } while (0)

#define CHECK_NEAR(a, b, eps)                                                              \
    do {                                                                                   \
        double check_a_ = (double)(a), check_b_ = (double)(b);                             \
        double check_d_ = check_a_ - check_b_;                                             \
        if (check_d_ < 0) check_d_ = -check_d_;                                            \
        if (!(check_d_ <= (eps))) {                                                        \
            check_failed_in_test = 1;                                                      \
            fprintf(stderr, "%s:%d: CHECK failed: %s ~ %s (%.9g vs %.9g)\n", __FILE__,     \
                    __LINE__, #a, #b, check_a_, check_b_);                                 \
        }                                                                                  \
    } while (0)

/* A test that cannot run here (no dotnet, no ../shared) says why. */
#define SKIP(why)                                                  \
    do {                                                           \
        printf("skipped: %s (%s)\n", __func__, why);               \
        return;                                                    \
    } while (0)

#define RUN(fn)                                                      \
    do {                                                             \
        check_failed_in_test = 0;                                    \
        fn();                                                        \
        if (check_failed_in_test) {                                  \
            check_tests_failed++;                                    \
            fprintf(stderr, "FAIL %s\n", #fn);                       \
        } else {                                                     \
            check_tests_passed++;                                    \
        }                                                            \
    } while (0)

static inline int check_report(const char *name)
{
    printf("%s: %d passed, %d failed\n", name, check_tests_passed, check_tests_failed);
    return check_tests_failed ? 1 : 0;
}

/* True when path can be opened for reading. */
static inline int check_file_exists(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (f)
        fclose(f);
    return f != NULL;
}

/* The whole file in malloc'd memory with a NUL after it (not counted in
 * *size); NULL when it cannot be read. */
static inline unsigned char *check_read_file(const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    size_t cap = 1 << 16, n = 0, got;
    unsigned char *b = malloc(cap + 1);
    while (b && (got = fread(b + n, 1, cap - n, f)) > 0) {
        n += got;
        if (n == cap) {
            unsigned char *nb = realloc(b, 2 * cap + 1);
            if (!nb) {
                free(b);
                b = NULL;
                break;
            }
            b = nb;
            cap *= 2;
        }
    }
    fclose(f);
    if (b) {
        b[n] = 0;
        *size = n;
    }
    return b;
}

/* A test binary given files on its command line (scripts/check-oracle.sh):
 * same(a, b) on each pair argv[1..], which prints its own verdict line and
 * says whether the pair agreed. Exit status 0 when every pair agreed, 1
 * when one did not, 2 for an odd number of arguments. */
static inline int check_run_pairs(int argc, char **argv, const char *usage,
                                  int (*same)(const char *a, const char *b))
{
    if (argc % 2 == 0) {
        fprintf(stderr, "usage: %s\n", usage);
        return 2;
    }
    int failed = 0;
    for (int i = 1; i + 1 < argc; i += 2) {
        check_failed_in_test = 0;
        failed += !same(argv[i], argv[i + 1]);
    }
    return failed ? 1 : 0;
}

/* Path of a test data file, relative to the repo root (tests run there). */
#define TEST_DATA(name) ("tests/data/" name)
#define SHARED_TRACES "../shared/traces/perfview/"

#endif
