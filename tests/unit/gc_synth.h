/*
 * tests/unit/gc_synth.h - a typed GC record as a decoder would hand it to
 * the GC analyzer (gcs_gc_analyzer_feed_record), for tests and benches
 * that build GC sequences without a trace. Fields of the kind's payload
 * are zero: the caller sets the ones it needs.
 */
#ifndef GCS_TESTS_GC_SYNTH_H
#define GCS_TESTS_GC_SYNTH_H

#include <string.h>

#include "analysis/gc/gc_analyzer.h"

static inline gcs_gc_record gc_synth_record(gcs_gc_kind kind, uint32_t version)
{
    gcs_gc_record r;
    memset(&r, 0, sizeof r);
    r.kind = kind;
    r.version = version;
    r.pointer_size = 8;
    r.has_clr_instance_id = true;
    return r;
}

#endif
