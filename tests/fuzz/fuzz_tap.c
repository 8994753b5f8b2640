/*
 * Harness: taps against delivery, differentially. One input is read
 * twice for GC analysis (options.want = gcs_gc_wants): once with every
 * wanted event delivered, once with the allocation ticks tapped
 * (gcs_gc_taps, gcs_gc_analyzer_tap) into an analyzer that spills its
 * GC records to a file (gcs_gc_options.spill_gcs), as `gcscope stats`
 * reads. Both must end with the same status, the same reader counters
 * and the same GC report (JSON, every figure printed), whatever the
 * bytes: the tap rows are released and handed out where delivery would
 * have put them (docs/reader.md), and a spilled GC is the GC the
 * analysis in memory finishes with (docs/gc-stats.md). Inputs
 * of odd size are read through a source that copies at most 1000 bytes
 * a read and says GCS_AGAIN before every other read (both reads alike:
 * the reader releases what it may when the source waits).
 */
#include "fuzz_common.h"

#include <stdlib.h>
#include <string.h>

#include "gcscope.h"
#include "unit/copy_source.h"

typedef struct reading {
    gcs_status status;
    gcs_reader_stats stats;
    char *report;
    size_t report_len;
} reading;

static void read_once(const uint8_t *data, size_t size, bool tap, reading *out)
{
    gcs_error err;
    gcs_error_clear(&err);
    gcs_gc_options gopts = {.spill_gcs = tap};
    gcs_gc_analyzer *gc = gcs_gc_analyzer_new(&gopts, &err);
    FUZZ_REQUIRE(gc);
    copy_src slow = {.data = data, .size = size, .max_chunk = 1000, .at_end = GCS_END,
                     .again_every_other = true};
    gcs_source *src = size % 2 ? gcs_source_custom(copy_src_read, NULL, &slow, &err)
                               : gcs_source_from_memory(data, size, &err);
    gcs_reader_options opts = {.want = gcs_gc_wants};
    if (tap) {
        opts.tap = gcs_gc_taps;
        opts.on_tap = gcs_gc_analyzer_tap;
        opts.tap_ctx = gc;
    }
    gcs_reader *r = src ? gcs_reader_new(src, &opts, &err) : NULL;
    FUZZ_REQUIRE(src && r);
    const gcs_event *ev;
    gcs_status st;
    while ((st = gcs_reader_next(r, &ev, &err)) == GCS_OK || st == GCS_AGAIN)
        if (st == GCS_OK && gcs_gc_analyzer_feed(gc, ev) < 0)
            break;
    out->status = st == GCS_OK ? gcs_gc_analyzer_status(gc) : st;
    out->stats = *gcs_reader_get_stats(r);
    gcs_gc_analyzer_set_lost_events(gc, out->stats.lost_events);
    if (out->stats.events > 0)
        gcs_gc_analyzer_set_span(gc, gcs_reader_msec(r, out->stats.first_timestamp),
                                 gcs_reader_msec(r, out->stats.last_timestamp));
    gcs_gc_analyzer_finish(gc);
    FILE *f = open_memstream(&out->report, &out->report_len);
    FUZZ_REQUIRE(f);
    gcs_gc_report_options ro = {.format = GCS_GC_FORMAT_JSON, .trace_name = "fuzz"};
    FUZZ_REQUIRE(gcs_gc_report_write(f, gc, &ro) >= 0);
    fclose(f);
    gcs_reader_free(r);
    gcs_source_free(src);
    gcs_gc_analyzer_free(gc);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    reading delivered, tapped;
    read_once(data, size, false, &delivered);
    read_once(data, size, true, &tapped);
    const gcs_reader_stats *a = &delivered.stats, *b = &tapped.stats;
    FUZZ_REQUIRE(delivered.status == tapped.status);
    FUZZ_REQUIRE(a->events == b->events && a->skipped_events == b->skipped_events &&
                 a->lost_events == b->lost_events && a->unknown_events == b->unknown_events &&
                 a->undecodable_events == b->undecodable_events &&
                 a->sort_overflows == b->sort_overflows &&
                 a->first_timestamp == b->first_timestamp &&
                 a->last_timestamp == b->last_timestamp && a->bytes_read == b->bytes_read);
    FUZZ_REQUIRE(delivered.report_len == tapped.report_len &&
                 memcmp(delivered.report, tapped.report, delivered.report_len) == 0);
    free(delivered.report);
    free(tapped.report);
    return 0;
}
