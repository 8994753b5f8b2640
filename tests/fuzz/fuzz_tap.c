/*
 * Harness: taps against delivery, differentially. One input is read
 * twice for GC analysis (options.want = gcs_gc_wants): once with every
 * wanted event delivered, once with the allocation ticks tapped
 * (gcs_gc_taps, gcs_gc_analyzer_tap) into an analyzer that spills its
 * GC records (gcs_gc_options.spill_gcs), as `gcscope stats` reads: the
 * first 1,500 bytes to memory, the rest to a file. Both must end with the same status, the same reader counters
 * and the same GC report (JSON, every figure printed) and HTML report
 * (the spilled one read a pass at a time from the file, per-heap values
 * included: gc_insight.h), whatever the
 * bytes: the tap rows are released and handed out where delivery would
 * have put them (docs/reader.md), and a spilled GC is the GC the
 * analysis in memory finishes with (docs/gc-stats.md); the GCs
 * next_settled hands out while reading are the same, each runtime's in
 * the same order.
 * And the same input read twice for the object analysis, its
 * GenerationRange events delivered, then tapped (gcs_objects_taps): the
 * same status, summary and report.
 * Inputs
 * of odd size are read through a source that copies at most 1000 bytes
 * a read and says GCS_AGAIN before every other read (both reads alike:
 * the reader releases what it may when the source waits).
 */
#include "fuzz_common.h"

#include <stdlib.h>
#include <string.h>

#include "gcscope.h"
#include "unit/copy_source.h"

enum { MAX_RUNTIMES = 16 };

typedef struct reading {
    gcs_status status;
    gcs_reader_stats stats;
    char *report;
    size_t report_len;
    /* The GCs next_settled handed out: per runtime (pid, ClrInstanceID) a
     * digest of them in order (runtimes interleave as the pulls fall);
     * runtimes past MAX_RUNTIMES only counted. */
    uint64_t handed;
    size_t n_runtimes;
    struct { uint64_t key, digest; } runtimes[MAX_RUNTIMES];
} reading;

/* Pulls what the analyzer settled into the reading's digests. */
static void pull_settled(gcs_gc_analyzer *gc, reading *out)
{
    gcs_gc_settled s;
    while (gcs_gc_analyzer_next_settled(gc, &s)) {
        out->handed++;
        uint64_t key = (uint64_t)s.pid << 16 | s.clr_instance_id;
        size_t r = 0;
        while (r < out->n_runtimes && out->runtimes[r].key != key)
            r++;
        if (r == out->n_runtimes) {
            if (r == MAX_RUNTIMES)
                continue;
            out->runtimes[r].key = key;
            out->runtimes[r].digest = 0xcbf29ce484222325ull;
            out->n_runtimes++;
        }
        uint64_t pause;
        memcpy(&pause, &s.info.pause_ms, sizeof pause);
        const uint64_t fields[] = {(uint32_t)s.info.number, s.info.generation, s.info.type,
                                   s.info.is_complete, pause};
        for (size_t k = 0; k < sizeof fields / sizeof fields[0]; k++)
            out->runtimes[r].digest = (out->runtimes[r].digest ^ fields[k]) * 0x100000001b3ull;
    }
}

/* Both readings handed out the same GCs, each runtime's in the same order. */
static bool same_handed(const reading *a, const reading *b)
{
    if (a->handed != b->handed || a->n_runtimes != b->n_runtimes)
        return false;
    for (size_t i = 0; i < a->n_runtimes; i++) {
        size_t j = 0;
        while (j < b->n_runtimes && b->runtimes[j].key != a->runtimes[i].key)
            j++;
        if (j == b->n_runtimes || b->runtimes[j].digest != a->runtimes[i].digest)
            return false;
    }
    return true;
}

/* A reader of the input for an analysis that wants `want`'s types and,
 * with `taps` (NULL: every event delivered), takes those types' events
 * from on_tap(tap_ctx, ...): inputs of odd size through *slow (at most
 * 1000 bytes a read, GCS_AGAIN before every other read), the others from
 * memory. *src: its source (free it after the reader). */
static gcs_reader *open_reader(const uint8_t *data, size_t size,
                               bool (*want)(void *, const gcs_event_type *),
                               bool (*taps)(void *, const gcs_event_type *),
                               void (*on_tap)(void *, const gcs_tap_event *), void *tap_ctx,
                               copy_src *slow, gcs_source **src)
{
    gcs_error err;
    const gcs_reader_options opts = {.want = want, .tap = taps, .on_tap = taps ? on_tap : NULL,
                                     .tap_ctx = tap_ctx};
    *slow = (copy_src){.data = data, .size = size, .max_chunk = 1000, .at_end = GCS_END,
                       .again_every_other = true};
    *src = size % 2 ? gcs_source_custom(copy_src_read, NULL, slow, &err)
                    : gcs_source_from_memory(data, size, &err);
    gcs_reader *r = *src ? gcs_reader_new(*src, &opts, &err) : NULL;
    FUZZ_REQUIRE(*src && r);
    return r;
}

static void read_once(const uint8_t *data, size_t size, bool tap, reading *out)
{
    gcs_error err;
    gcs_error_clear(&err);
    /* The spill's first 1,500 bytes in memory, the rest in the file (a
     * record cut in two where they meet), as a long trace's. */
    gcs_gc_options gopts = {.spill_gcs = tap, .spill_memory_bytes = 1500};
    gcs_gc_analyzer *gc = gcs_gc_analyzer_new(&gopts, &err);
    FUZZ_REQUIRE(gc);
    copy_src slow;
    gcs_source *src;
    gcs_reader *r = open_reader(data, size, gcs_gc_wants, tap ? gcs_gc_taps : NULL,
                                gcs_gc_analyzer_tap, gc, &slow, &src);
    const gcs_event *ev;
    gcs_status st;
    out->handed = 0;
    out->n_runtimes = 0;
    while ((st = gcs_reader_next(r, &ev, &err)) == GCS_OK || st == GCS_AGAIN) {
        if (st == GCS_OK && gcs_gc_analyzer_feed(gc, ev) < 0)
            break;
        pull_settled(gc, out);
    }
    out->status = st == GCS_OK ? gcs_gc_analyzer_status(gc) : st;
    out->stats = *gcs_reader_get_stats(r);
    gcs_gc_analyzer_set_lost_events(gc, out->stats.lost_events);
    if (out->stats.events > 0)
        gcs_gc_analyzer_set_span(gc, gcs_reader_msec(r, out->stats.first_timestamp),
                                 gcs_reader_msec(r, out->stats.last_timestamp));
    gcs_gc_analyzer_finish(gc);
    pull_settled(gc, out);
    FILE *f = open_memstream(&out->report, &out->report_len);
    FUZZ_REQUIRE(f);
    gcs_gc_report_options ro = {.format = GCS_GC_FORMAT_JSON, .trace_name = "fuzz"};
    FUZZ_REQUIRE(gcs_gc_report_write(f, gc, &ro) >= 0);
    gcs_gc_html_options ho = {.trace_name = "fuzz"};
    FUZZ_REQUIRE(gcs_gc_html_write(f, gc, &ho) >= 0);
    fclose(f);
    gcs_reader_free(r);
    gcs_source_free(src);
    gcs_gc_analyzer_free(gc);
}

/* The same input read for the object analysis (gcs_objects_wants), with
 * its GenerationRange events delivered or tapped (gcs_objects_taps,
 * gcs_objects_tap): the reader's status, the summary and the JSON report. */
typedef struct objects_reading {
    gcs_status status, finish;
    gcs_objects_summary summary;
    char *report;
    size_t report_len;
} objects_reading;

static void read_objects_once(const uint8_t *data, size_t size, bool tap, objects_reading *out)
{
    gcs_error err;
    gcs_error_clear(&err);
    gcs_objects *a = gcs_objects_new(&err);
    FUZZ_REQUIRE(a);
    copy_src slow;
    gcs_source *src;
    gcs_reader *r = open_reader(data, size, gcs_objects_wants, tap ? gcs_objects_taps : NULL,
                                gcs_objects_tap, a, &slow, &src);
    const gcs_event *ev;
    gcs_status st;
    while ((st = gcs_reader_next(r, &ev, &err)) == GCS_OK || st == GCS_AGAIN)
        if (st == GCS_OK && gcs_objects_feed(a, ev, &err) < 0)
            break;
    out->status = st;
    out->finish = gcs_objects_finish(a, &err);
    /* Byte for byte (an assignment need not copy the padding memcmp reads). */
    memcpy(&out->summary, gcs_objects_get_summary(a), sizeof out->summary);
    FILE *f = open_memstream(&out->report, &out->report_len);
    FUZZ_REQUIRE(f);
    if (out->finish == GCS_OK)
        (void)gcs_objects_report(a, f, GCS_OBJECTS_JSON, &err);
    fclose(f);
    gcs_reader_free(r);
    gcs_source_free(src);
    gcs_objects_free(a);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    objects_reading od, ot;
    read_objects_once(data, size, false, &od);
    read_objects_once(data, size, true, &ot);
    FUZZ_REQUIRE(od.status == ot.status && od.finish == ot.finish);
    FUZZ_REQUIRE(memcmp(&od.summary, &ot.summary, sizeof od.summary) == 0);
    FUZZ_REQUIRE(od.report_len == ot.report_len &&
                 memcmp(od.report, ot.report, od.report_len) == 0);
    free(od.report);
    free(ot.report);

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
    /* The same GCs handed out while reading, in the same order (when each
     * came may differ: taps offer no pull between them). */
    FUZZ_REQUIRE(same_handed(&delivered, &tapped));
    FUZZ_REQUIRE(delivered.report_len == tapped.report_len &&
                 memcmp(delivered.report, tapped.report, delivered.report_len) == 0);
    free(delivered.report);
    free(tapped.report);
    return 0;
}
