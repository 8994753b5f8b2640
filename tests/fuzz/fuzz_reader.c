/*
 * Harness: the whole pipeline over one input. A memory source feeds
 * gcs_reader_next; every event goes through both event printers (text and
 * JSON), the GC analyzer and the object analysis; then every report format
 * (GC table/JSON/CSV, objects table/JSON/CSV) is written. Nothing is
 * compared: the sanitizers are the oracle.
 */
#include "fuzz_common.h"

#include "gcscope.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    FILE *out = fuzz_sink();
    gcs_error err;
    gcs_error_clear(&err);
    gcs_source *src = gcs_source_from_memory(data, size, &err);
    gcs_reader *r = src ? gcs_reader_new(src, NULL, &err) : NULL;
    gcs_gc_analyzer *gc = gcs_gc_analyzer_new(NULL, &err);
    gcs_objects *objs = gcs_objects_new(&err);
    FUZZ_REQUIRE(src && r && gc && objs);
    const gcs_event *ev;
    gcs_status st;
    while ((st = gcs_reader_next(r, &ev, &err)) == GCS_OK) {
        gcs_error perr;
        gcs_error_clear(&perr);
        (void)gcs_event_print_text(out, ev, &perr);
        (void)gcs_event_print_json(out, ev, &perr);
        if (gcs_gc_analyzer_feed(gc, ev) < 0)
            break;
        if (gcs_objects_feed(objs, ev, &perr) < 0)
            break;
    }
    FUZZ_REQUIRE(st != GCS_AGAIN); /* a memory source never waits */
    const gcs_reader_stats *rs = gcs_reader_get_stats(r);
    gcs_gc_analyzer_set_lost_events(gc, rs->lost_events);
    if (rs->events > 0)
        gcs_gc_analyzer_set_span(gc, gcs_reader_msec(r, rs->first_timestamp),
                                 gcs_reader_msec(r, rs->last_timestamp));
    gcs_gc_analyzer_finish(gc);
    static const gcs_gc_format gc_formats[] = {GCS_GC_FORMAT_TABLE, GCS_GC_FORMAT_JSON,
                                               GCS_GC_FORMAT_CSV};
    for (size_t i = 0; i < sizeof gc_formats / sizeof gc_formats[0]; i++) {
        gcs_gc_report_options ro = {.format = gc_formats[i], .trace_name = "fuzz"};
        (void)gcs_gc_report_write(out, gc, &ro);
    }
    gcs_error_clear(&err);
    if (gcs_objects_finish(objs, &err) == GCS_OK) {
        static const gcs_objects_format obj_formats[] = {GCS_OBJECTS_TABLE, GCS_OBJECTS_JSON,
                                                         GCS_OBJECTS_CSV};
        for (size_t i = 0; i < sizeof obj_formats / sizeof obj_formats[0]; i++)
            (void)gcs_objects_report(objs, out, obj_formats[i], &err);
    }
    fflush(out);
    gcs_objects_free(objs);
    gcs_gc_analyzer_free(gc);
    gcs_reader_free(r);
    gcs_source_free(src);
    return 0;
}
