/*
 * replay_main.c - runs a harness's LLVMFuzzerTestOneInput on files, without
 * libFuzzer (gcc, ASan+UBSan): `make test` replays every committed failing
 * input (tests/fuzz/regressions/<harness>/) this way.
 *
 *   replay_<harness> NAME PATH...   (a PATH may be a directory: its files)
 *
 * Prints "NAME: N passed, 0 failed" as the unit tests do; a sanitizer or an
 * invariant stops the process with the offending file named on stderr.
 */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fuzz_common.h"
#include "unit/check.h"

static unsigned replayed, unreadable;

static void replay_file(const char *path)
{
    size_t size = 0;
    unsigned char *data = check_read_file(path, &size);
    if (!data) {
        fprintf(stderr, "cannot read %s\n", path);
        unreadable++;
        return;
    }
    fprintf(stderr, "replaying %s (%zu bytes)\n", path, size);
    /* An exact-size copy, so ASan sees a read one past the input. */
    uint8_t *exact = malloc(size ? size : 1);
    memcpy(exact, data, size);
    free(data);
    LLVMFuzzerTestOneInput(exact, size);
    free(exact);
    replayed++;
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static void replay_path(const char *path)
{
    struct stat st;
    if (stat(path, &st) != 0)
        return; /* no such directory: nothing to replay */
    if (!S_ISDIR(st.st_mode)) {
        replay_file(path);
        return;
    }
    DIR *d = opendir(path);
    if (!d)
        return;
    char **names = NULL;
    size_t count = 0, cap = 0;
    struct dirent *de;
    while ((de = readdir(d))) {
        if (de->d_name[0] == '.')
            continue;
        if (count == cap) {
            cap = cap ? cap * 2 : 64;
            names = realloc(names, cap * sizeof *names);
        }
        size_t l = strlen(path) + strlen(de->d_name) + 2;
        names[count] = malloc(l);
        snprintf(names[count], l, "%s/%s", path, de->d_name);
        count++;
    }
    closedir(d);
    if (count > 0)
        qsort(names, count, sizeof *names, by_name);
    for (size_t i = 0; i < count; i++) {
        replay_path(names[i]);
        free(names[i]);
    }
    free(names);
}

int main(int argc, char **argv)
{
    (void)check_failed_in_test; /* check.h's, for its file reader only */
    if (argc < 2) {
        fprintf(stderr, "usage: %s NAME PATH...\n", argv[0]);
        return 2;
    }
    for (int i = 2; i < argc; i++)
        replay_path(argv[i]);
    printf("%s: %u passed, %u failed\n", argv[1], replayed, unreadable);
    return unreadable ? 1 : 0;
}
