/*
 * analysis/gc/gc_analyzer.h - internal entry points of the GC state
 * machine (the public ones are in include/gcscope/gc.h).
 *
 * The state machine consumes typed records (decode/gc_events.h) only, so
 * unit tests can drive it with synthetic sequences and no trace file.
 */
#ifndef GCS_ANALYSIS_GC_ANALYZER_H
#define GCS_ANALYSIS_GC_ANALYZER_H

#include "decode/gc_events.h"
#include "gcscope/gc.h"

/* Where and when a typed record happened. */
typedef struct gcs_gc_event_ctx {
    uint32_t pid;
    uint64_t tid;
    double msec; /* ms since trace start */
} gcs_gc_event_ctx;

/* Feeds one typed record. Same contract as gcs_gc_analyzer_feed. */
gcs_status gcs_gc_analyzer_feed_record(gcs_gc_analyzer *an, const gcs_gc_event_ctx *ctx,
                                       const gcs_gc_record *rec);

/* Counts a GC event whose payload could not be decoded (short payload). */
void gcs_gc_analyzer_count_truncated(gcs_gc_analyzer *an, uint32_t pid);

/* C#'s Math.Max on doubles: NaN if either is NaN. */
double gcs_gc_cs_max(double a, double b);

#endif
