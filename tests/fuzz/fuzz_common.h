/*
 * fuzz_common.h - what the libFuzzer harnesses share: a sink FILE for the
 * printers and reports, and a loud stop when an invariant breaks.
 *
 * A harness is one LLVMFuzzerTestOneInput per .c file. `make fuzz` links it
 * with libFuzzer; `make test` links it with replay_main.c and replays
 * tests/fuzz/regressions/<harness>/ (docs/fuzzing.md).
 */
#ifndef GCS_FUZZ_COMMON_H
#define GCS_FUZZ_COMMON_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Where printers and reports write: /dev/null, fully buffered (the output
 * is not checked, only that producing it is defined behaviour). */
static inline FILE *fuzz_sink(void)
{
    static FILE *sink;
    static char buf[1 << 16];
    if (!sink) {
        sink = fopen("/dev/null", "w");
        if (!sink)
            abort();
        setvbuf(sink, buf, _IOFBF, sizeof buf);
    }
    return sink;
}

/* An invariant failed: say which, and abort so the fuzzer keeps the input. */
#define FUZZ_REQUIRE(cond)                                                               \
    do {                                                                                 \
        if (!(cond)) {                                                                   \
            fprintf(stderr, "%s:%d: invariant failed: %s\n", __FILE__, __LINE__, #cond); \
            abort();                                                                     \
        }                                                                                \
    } while (0)

#endif
