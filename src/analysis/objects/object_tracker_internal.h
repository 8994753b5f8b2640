/*
 * analysis/objects/object_tracker_internal.h - the tracker's switch for
 * tests (not part of the public API).
 */
#ifndef GCSCOPE_OBJECT_TRACKER_INTERNAL_H
#define GCSCOPE_OBJECT_TRACKER_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Whether trackers created from now on keep settled objects (generation 2,
 * LOH or POH, no private flags) apart, so that a gen-0 or gen-1 GC does not
 * walk them (default true). Tests create a tracker with it off and one with
 * it on and require the same deaths, counters and objects. */
extern bool gcs_objtrack_split;

/* How many settled objects wait in the main array before they move to the
 * old one (at least; also an eighth of the old ones). Read at creation;
 * tests make it small to move objects often. */
extern size_t gcs_objtrack_settle_min;

/* Whether trackers created from now on start in hashed mode (objects
 * unsorted, found through a hash table, until the first need of the
 * sorted order; default true). Tests compare a tracker with it off. */
extern bool gcs_objtrack_hashed;

/* Leaving hashed mode sorts with the in-place heapsort it keeps for when
 * memory is short (default false): tests take that path on purpose. */
extern bool gcs_objtrack_heapsort_only;

/* Whether trackers created from now on take a GC's ranges by stretches
 * when no two overlap (default true): put in order without a sort, and,
 * when they all stay in place, applied without even that (an in-place
 * sweep). Tests compare a tracker with it off. */
extern bool gcs_objtrack_stretches;

/* The widest gap between two ranges of one stretch (bytes, read at
 * creation; default 64 KiB, under a region): tests make it small, so that
 * their small heaps are cut as a real one is. */
extern uint64_t gcs_objtrack_stretch_gap;

typedef struct gcs_objtrack gcs_objtrack;

/* How many GCs t applied as in-place sweeps, and how many it put in
 * order by stretches (for tests). */
uint64_t gcs_objtrack_in_place_sweeps(const gcs_objtrack *t);
uint64_t gcs_objtrack_stretch_gcs(const gcs_objtrack *t);

/* How many objects t keeps in its old array (for tests). */
size_t gcs_objtrack_old_count(const gcs_objtrack *t);

#endif
