/*
 * bench/spill_words.c - how alike successive GC records are: of each
 * final record's 8-byte words (gcs_gc_info, what `stats` spills), how
 * many equal the same word of the GC before, are zero, or else how many
 * of their leading bytes are the same. The figure behind "the spill,
 * measured" (docs/performance.md, twenty-fifth landing): what a spill of
 * changed words would save. A program that prints figures, not a test.
 *
 *   make build/libgcscope.a
 *   cc -O2 -std=c11 -D_DEFAULT_SOURCE -Iinclude -o /tmp/spill_words \
 *       bench/spill_words.c build/libgcscope.a -lm -ldl -pthread
 *   /tmp/spill_words TRACE
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "gcscope.h"

#define WORDS ((sizeof(gcs_gc_info) + 7) / 8)

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: spill_words TRACE\n");
        return 2;
    }
    gcs_error err;
    gcs_error_clear(&err);
    gcs_source *src = gcs_source_open_file(argv[1], &err);
    gcs_gc_options go = {.spill_gcs = true};
    gcs_gc_analyzer *an = gcs_gc_analyzer_new(&go, &err);
    gcs_reader_options opts = {.want = gcs_gc_wants, .tap = gcs_gc_taps,
                               .on_tap = gcs_gc_analyzer_tap, .tap_ctx = an};
    gcs_reader *r = src && an ? gcs_reader_new(src, &opts, &err) : NULL;
    if (!r) {
        fprintf(stderr, "spill_words: %s: %s\n", argv[1], err.reason);
        return 1;
    }
    const gcs_event *ev;
    gcs_status st;
    while ((st = gcs_reader_next(r, &ev, &err)) == GCS_OK)
        (void)gcs_gc_analyzer_feed(an, ev);
    gcs_gc_analyzer_finish(an);
    for (size_t pi = 0; pi < gcs_gc_process_count(an); pi++) {
        const gcs_gc_process *p = gcs_gc_process_at(an, pi);
        uint64_t prev[WORDS] = {0}, cur[WORDS] = {0};
        uint64_t same = 0, zero = 0, other = 0, lead = 0;
        gcs_gc_info gc;
        for (size_t i = 0; i < p->gc_count && gcs_gc_process_read(p, i, &gc, 1) == 1; i++) {
            memcpy(cur, &gc, sizeof gc);
            for (size_t w = 0; w < WORDS; w++) {
                if (cur[w] == prev[w]) {
                    same++;
                } else if (cur[w] == 0) {
                    zero++;
                } else {
                    other++;
                    lead += (uint64_t)__builtin_clzll(cur[w] ^ prev[w]) / 8;
                }
            }
            memcpy(prev, cur, sizeof prev);
        }
        uint64_t all = same + zero + other;
        if (all == 0)
            continue;
        printf("pid %u: %zu GCs, %zu words a record: %.1f %% as the GC before's, %.1f %% zero; "
               "the others' leading bytes the same: %.2f a word\n",
               p->pid, p->gc_count, (size_t)WORDS, 100.0 * (double)same / (double)all,
               100.0 * (double)zero / (double)all, other ? (double)lead / (double)other : 0.0);
    }
    gcs_reader_free(r);
    gcs_source_free(src);
    gcs_gc_analyzer_free(an);
    return st == GCS_END ? 0 : 1;
}
