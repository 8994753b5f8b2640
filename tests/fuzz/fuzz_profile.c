/*
 * Harness: the profiler's record stream (docs/format-profile.md) through
 * the reader, the object analysis and the GC analyzer. The input is the
 * records after a valid 48-byte header the harness puts in front, so that
 * every input reaches the record parser (the `reader` harness spends most
 * of its time printing); an input that starts with the magic is read as
 * it is, so that the header is fuzzed too. Nothing is printed but the
 * objects reports (to /dev/null).
 * What must hold: a memory source never answers AGAIN; every failure has a
 * reason; every object the tracker kept is counted once as a sample of
 * its type (dead or alive at the end): the samples of all types add up
 * to the objects added less the duplicates.
 */
#include "fuzz_common.h"

#include <string.h>

#include "gcscope.h"

static void put_le(uint8_t *p, uint64_t v, int bytes)
{
    for (int i = 0; i < bytes; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    enum { HEADER = 48 };
    static uint8_t buf[HEADER + (1 << 20)];
    const uint8_t *in = data;
    size_t n = size;
    if (!(size >= 8 && memcmp(data, "GCSPROF", 8) == 0)) {
        if (size > sizeof buf - HEADER)
            return 0;
        memcpy(buf, "GCSPROF", 8);
        put_le(buf + 8, 1, 4);           /* version */
        put_le(buf + 12, HEADER, 4);     /* header size */
        put_le(buf + 16, 4242, 4);       /* pid */
        put_le(buf + 20, 8, 4);          /* pointer size */
        put_le(buf + 24, 10000000, 8);   /* ticks per second */
        put_le(buf + 32, 1000, 8);       /* start ticks */
        put_le(buf + 40, 1700000000000ull, 8);
        memcpy(buf + HEADER, data, size);
        in = buf;
        n = HEADER + size;
    }
    FILE *out = fuzz_sink();
    gcs_error err;
    gcs_error_clear(&err);
    gcs_source *src = gcs_source_from_memory(in, n, &err);
    gcs_reader *r = src ? gcs_reader_new(src, NULL, &err) : NULL;
    gcs_gc_analyzer *gc = gcs_gc_analyzer_new(NULL, &err);
    gcs_objects *objs = gcs_objects_new(&err);
    FUZZ_REQUIRE(src && r && gc && objs);
    const gcs_event *ev;
    gcs_status st;
    while ((st = gcs_reader_next(r, &ev, &err)) == GCS_OK) {
        gcs_error perr;
        gcs_error_clear(&perr);
        if (gcs_gc_analyzer_feed(gc, ev) < 0)
            break;
        if (gcs_objects_feed(objs, ev, &perr) < 0) {
            FUZZ_REQUIRE(perr.reason[0] != '\0');
            break;
        }
    }
    FUZZ_REQUIRE(st != GCS_AGAIN); /* a memory source never waits */
    if (st < 0)
        FUZZ_REQUIRE(err.reason[0] != '\0');
    gcs_gc_analyzer_finish(gc);
    gcs_error_clear(&err);
    if (gcs_objects_finish(objs, &err) == GCS_OK) {
        const gcs_objects_summary *s = gcs_objects_get_summary(objs);
        uint64_t samples = 0;
        for (size_t i = 0; i < gcs_objects_type_count(objs); i++)
            samples += gcs_objects_type(objs, i)->samples;
        FUZZ_REQUIRE(samples == s->tracker.objects_added - s->tracker.duplicate_adds);
        gcs_objects_report_options oo = {.format = size % 2 ? GCS_OBJECTS_CSV : GCS_OBJECTS_JSON,
                                         .trace_name = "fuzz"};
        (void)gcs_objects_report_write(objs, out, &oo, &err);
    }
    fflush(out);
    gcs_objects_free(objs);
    gcs_gc_analyzer_free(gc);
    gcs_reader_free(r);
    gcs_source_free(src);
    return 0;
}
