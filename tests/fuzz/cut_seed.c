/*
 * cut_seed - makes a small seed for the fuzzers from a big trace: only the
 * events one analysis uses, rewritten as nettrace V6 in small blocks with
 * the test writer, so that a prefix of a few KiB already holds whole GCs.
 * (A fixture's own prefix holds its header and first events only:
 * allocation ticks and segments.) tests/fuzz/make-corpus.sh cuts both.
 *
 *   cut_seed gc|objects IN OUT
 *     gc:      the events GC analysis uses (gcs_gc_wants) but allocation
 *              ticks (most of them; the fixtures' prefixes have them)
 *     objects: GC/Start, GC/End, ranges, generation ranges, pins, allocation
 *              samples and type names (what gcs_objects_feed follows)
 */
#include <stdio.h>
#include <string.h>

#include "gcscope.h"
#include "tools/nettrace_v6_writer.h"

static bool starts_with(const char *s, const char *prefix)
{
    return s && strncmp(s, prefix, strlen(prefix)) == 0;
}

static bool gc_events(void *ctx, const gcs_event_type *t)
{
    return gcs_gc_wants(ctx, t) && !starts_with(t->name, "GC/AllocationTick");
}

static bool object_events(void *ctx, const gcs_event_type *t)
{
    (void)ctx;
    static const char *const names[] = {
        "GC/Start", "GC/End", "GC/BulkMovedObjectRanges", "GC/BulkSurvivingObjectRanges",
        "GC/GenerationRange", "GC/PinObjectAtGCTime", "GC/AllocationTick",
        "GC/SampledObjectAllocation", "Type/", "AllocationSampled"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (starts_with(t->name, names[i]))
            return true;
    return false;
}

int main(int argc, char **argv)
{
    if (argc != 4 || (strcmp(argv[1], "gc") && strcmp(argv[1], "objects"))) {
        fprintf(stderr, "usage: %s gc|objects IN OUT\n", argv[0]);
        return 2;
    }
    gcs_error err;
    gcs_error_clear(&err);
    gcs_source *src = gcs_source_open_file(argv[2], &err);
    gcs_reader_options opts = {.want = strcmp(argv[1], "gc") ? object_events : gc_events};
    gcs_reader *r = src ? gcs_reader_new(src, &opts, &err) : NULL;
    FILE *f = r ? fopen(argv[3], "wb") : NULL;
    if (!f) {
        fprintf(stderr, "%s: %s\n", argv[2], err.reason[0] ? err.reason : "cannot open output");
        gcs_reader_free(r);
        gcs_source_free(src);
        return 1;
    }
    v6w w;
    v6w_init(&w, v6w_to_file, f, true);
    w.event_block_target = 2000; /* small blocks: a prefix ends near a block end */
    uint64_t events = 0;
    gcs_status st = v6w_convert(r, &w, &events, &err);
    int rc = fclose(f) != 0 || w.failed || events == 0;
    if (st < 0)
        fprintf(stderr, "%s: %s (the events before it were kept)\n", argv[2], err.reason);
    v6w_free(&w);
    gcs_reader_free(r);
    gcs_source_free(src);
    return rc;
}
