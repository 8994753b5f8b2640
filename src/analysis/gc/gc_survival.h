/*
 * analysis/gc/gc_survival.h - which generations' SurvivalPercent a GC
 * reports (TraceEvent's GetGenData: LOH and POH only for a gen2 GC, else
 * the generations the GC condemned). The analyzer sums the per-heap
 * survival rates only of those (each a division); the final pass reads
 * only those sums.
 */
#ifndef GCS_ANALYSIS_GC_SURVIVAL_H
#define GCS_ANALYSIS_GC_SURVIVAL_H

#include <stdbool.h>
#include <stdint.h>

#include "gcscope/gc.h"

/* Whether a GC of generation gc_generation reports generation g's
 * survival percentage. */
static inline bool gcs_gc_survival_reported(uint32_t g, uint32_t gc_generation)
{
    if (g == GCS_GEN_LOH || g == GCS_GEN_POH)
        return gc_generation >= 2;
    return g <= gc_generation;
}

#endif
