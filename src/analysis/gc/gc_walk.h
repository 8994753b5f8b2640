/*
 * analysis/gc/gc_walk.h - one pass over a runtime's GC records, wherever
 * they are: in memory (gcs_gc_process.gcs, no copy) or in an analyzer's
 * spill file (read GCS_GC_WALK_BATCH records at a time). The insight
 * functions (headline metrics, findings, comparison, MMU, the HTML
 * report) go through it, so a spilled analysis serves them with memory
 * that does not grow with the trace.
 *
 *   gcs_gc_walk w;
 *   gcs_gc_walk_start(&w, p);
 *   for (const gcs_gc_info *gc; (gc = gcs_gc_walk_next(&w));)
 *       use(gc, gcs_gc_walk_index(&w));
 *   if (!gcs_gc_walk_end(&w)) ...  // no memory, or the spill file could not be read
 */
#ifndef GCS_ANALYSIS_GC_WALK_H
#define GCS_ANALYSIS_GC_WALK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>

#include "gcscope/gc.h"

/* Records read from a spill file at a time: 512 of 488 bytes (244 KB,
 * allocated by the first read): a pread costs ~2 us on a paravirtualized
 * guest, so a report's ~20 passes over 179,454 GCs took 0.30 s more with
 * 32 a read, 0.15 s with 128. */
#define GCS_GC_WALK_BATCH 512

typedef struct gcs_gc_walk {
    const gcs_gc_process *p;
    size_t next;      /* list position of the GC the next call returns */
    size_t buf_first; /* list position of buf[0] */
    size_t buf_n;     /* records in buf */
    bool failed;      /* a read came back short, or no memory for buf */
    gcs_gc_info *buf; /* spilled lists only; gcs_gc_walk_end frees it */
} gcs_gc_walk;

static inline void gcs_gc_walk_start(gcs_gc_walk *w, const gcs_gc_process *p)
{
    w->p = p;
    w->next = w->buf_first = w->buf_n = 0;
    w->failed = false;
    w->buf = NULL;
}

/* The next GC (list order), or NULL at the end or when a read failed. The
 * record stays valid until the next call. */
static inline const gcs_gc_info *gcs_gc_walk_next(gcs_gc_walk *w)
{
    const gcs_gc_process *p = w->p;
    if (w->failed || w->next >= p->gc_count)
        return NULL;
    if (p->gcs)
        return &p->gcs[w->next++];
    if (w->next - w->buf_first >= w->buf_n) {
        size_t want = p->gc_count - w->next;
        if (want > GCS_GC_WALK_BATCH)
            want = GCS_GC_WALK_BATCH;
        if (!w->buf)
            w->buf = malloc(GCS_GC_WALK_BATCH * sizeof *w->buf);
        size_t got = w->buf ? gcs_gc_process_read(p, w->next, w->buf, want) : 0;
        if (got != want) {
            w->failed = true;
            return NULL;
        }
        w->buf_first = w->next;
        w->buf_n = got;
    }
    return &w->buf[w->next++ - w->buf_first];
}

/* The list position of the GC the last gcs_gc_walk_next returned. */
static inline size_t gcs_gc_walk_index(const gcs_gc_walk *w)
{
    return w->next - 1;
}

/*
 * The per-heap values of a runtime's GCs (gcs_gc_heap_object_space and
 * _size_after), both at once, for a pass over its GCs: a spilled
 * analyzer's chunk index is read once per chunk and kept here, so a GC
 * costs one read of the file, not four. Start it zeroed.
 */
#define GCS_GC_HEAP_INDEX_MAX 512 /* GCs a spill chunk holds at most (GCS_GC_SPILL_MAX) */
typedef struct gcs_gc_heap_index {
    const void *runtime; /* whose chunk is kept (NULL: none) */
    size_t chunk;
    uint64_t at[GCS_GC_HEAP_INDEX_MAX + 1];
} gcs_gc_heap_index;

/* GC gc_index's per-heap object space before (before[], may be NULL) and
 * object size after (after[], may be NULL), MB, at most cap of each;
 * returns how many histories it has (0: none, or the file unreadable). */
size_t gcs_gc_heap_values(const gcs_gc_analyzer *an, const gcs_gc_process *p, size_t gc_index,
                          gcs_gc_heap_index *index, double *before, double *after, size_t cap);

/* Ends the pass (frees the buffer); false when it stopped early (a read
 * failed or memory ran out): what it computed is then incomplete. */
static inline bool gcs_gc_walk_end(gcs_gc_walk *w)
{
    free(w->buf);
    w->buf = NULL;
    return !w->failed;
}

#endif
