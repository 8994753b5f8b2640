/*
 * pipeline/stack_table.h - the call stacks of a trace, interned.
 *
 * A nettrace writer numbers its stacks afresh between two sequence points
 * (a StackBlock's ids are valid up to the next SequencePoint block), and
 * writes the same stack again in every such span. Events are sorted, and
 * may be delivered after the sequence point that ended their stack's span,
 * so the reader translates each event's stack id when the container hands
 * the event over, into an id of this table: one per distinct list of
 * instruction pointers, valid for the whole read. Memory is that of the
 * distinct stacks (GCS_MAX_STACK_IPS instruction pointers at most); past
 * it, and for references to a stack the span never gave, events get no
 * stack and are counted (`dropped`).
 */
#ifndef GCS_PIPELINE_STACK_TABLE_H
#define GCS_PIPELINE_STACK_TABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/hash.h"

/* Distinct instruction pointers kept, all stacks together (256 MiB). */
#define GCS_MAX_STACK_IPS ((size_t)1 << 25)
/* A span's stack ids above this are not kept (a writer counts from 1). */
#define GCS_MAX_SPAN_STACK_ID ((uint32_t)1 << 22)
/* Frames of one stack; deeper stacks keep their first (leaf) frames. */
#define GCS_MAX_STACK_FRAMES 4096u

typedef struct gcs_stack_table {
    /* Interned stacks: stack i (1-based) is ips[starts[i - 1] .. starts[i]). */
    uint64_t *ips;
    size_t ips_n, ips_cap;
    uint64_t *starts; /* starts[0] = 0, starts[k] = end of stack k */
    size_t n, starts_cap;
    /* Interned id - 1 by hash of the ips. */
    gcs_index index;
    /* The current span: its stack id -> interned id (0: not given). */
    uint32_t *span;
    size_t span_cap;
    uint32_t span_max; /* highest span id set since the last reset */
    /* Counters. */
    uint64_t dropped;   /* references left without a stack (see above) */
    uint64_t truncated; /* stacks cut to GCS_MAX_STACK_FRAMES */
    bool full;          /* GCS_MAX_STACK_IPS reached once */
} gcs_stack_table;

void gcs_stack_table_init(gcs_stack_table *t);
void gcs_stack_table_free(gcs_stack_table *t);

/* Interns a stack of size bytes, each frame pointer_size (4 or 8) bytes,
 * little-endian, leaf first (trailing bytes short of a frame are ignored).
 * Returns its id (>= 1), or 0 when it has no frame or cannot be kept
 * (the caller counts that in dropped). */
uint32_t gcs_stack_table_intern(gcs_stack_table *t, const uint8_t *bytes, size_t size,
                                unsigned pointer_size);

/* A StackBlock's stack span_id: interned, remembered for the span. */
void gcs_stack_table_define(gcs_stack_table *t, uint32_t span_id, const uint8_t *bytes,
                            size_t size, unsigned pointer_size);

/* The interned id of the span's stack span_id (0 for 0; 0 and counted
 * when the span did not give it). */
static inline uint32_t gcs_stack_table_lookup(gcs_stack_table *t, uint32_t span_id)
{
    if (span_id == 0)
        return 0;
    uint32_t id = span_id < t->span_cap ? t->span[span_id] : 0;
    if (id == 0)
        t->dropped++;
    return id;
}

/* A sequence point: the span's ids are forgotten (the stacks stay). */
void gcs_stack_table_reset_span(gcs_stack_table *t);

/* Frames of interned stack id (leaf first); false for an unknown id. */
bool gcs_stack_table_get(const gcs_stack_table *t, uint32_t id, const uint64_t **ips, size_t *n);

#endif
