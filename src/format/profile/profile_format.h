/*
 * format/profile/profile_format.h - the record stream written by the
 * in-process profiler (tools/profiler, libgcscope_profiler.so) and read by
 * format/profile/profile.c. The contract is docs/format-profile.md; these
 * are its constants only (the profiler includes this header, nothing else
 * of the library).
 *
 * Everything is little-endian. A file is the 48-byte header, then records;
 * each record is a one-byte kind followed by the body of that kind (TYPE,
 * MOVED and SURVIVING carry a count or length first; ALLOC is varints).
 *
 * ALLOC is relative to what came before in the file: its time to the
 * previous record's time (the header's start for the first), its address
 * and class id to the previous ALLOC's (0 for the first). A record the
 * profiler drops leaves the bases as they were, so the file decodes
 * alone.
 */
#ifndef GCS_FORMAT_PROFILE_FORMAT_H
#define GCS_FORMAT_PROFILE_FORMAT_H

#define GCS_PROFILE_MAGIC "GCSPROF" /* 7 characters + NUL = 8 bytes */
#define GCS_PROFILE_VERSION 1u
#define GCS_PROFILE_HEADER_SIZE 48u

/* Header: magic[8], u32 version, u32 header_size, u32 pid,
 * u32 pointer_size, u64 clock_frequency (ticks per second), u64
 * start_ticks (the clock at the profiler's start), u64 start_unix_ms. */

enum gcs_profile_record_kind {
    GCS_PROFILE_TYPE = 1,      /* u64 class_id, u16 name_len, name (UTF-8) */
    GCS_PROFILE_ALLOC = 2,     /* small object heap: varuint time delta, zigzag varint
                                * address delta, zigzag varint class id delta,
                                * varuint size */
    GCS_PROFILE_GC_START = 3,  /* u64 time, u32 gc_number, u8 condemned, u8 induced */
    GCS_PROFILE_MOVED = 4,     /* u32 count, count x (u64 old, u64 new, u64 length) */
    GCS_PROFILE_SURVIVING = 5, /* u32 count, count x (u64 start, u64 length) */
    GCS_PROFILE_GC_END = 6,    /* u64 time, u32 gc_number */
    GCS_PROFILE_LOST = 7,      /* u64 time, u64 records, u64 bytes dropped since the last */
    GCS_PROFILE_EXIT = 8,      /* u64 time, u64 allocations seen, u64 records dropped in all */
    GCS_PROFILE_ALLOC_LARGE = 9,  /* ALLOC on the LOH */
    GCS_PROFILE_ALLOC_PINNED = 10, /* ALLOC on the POH */
    GCS_PROFILE_GENERATIONS = 11   /* the heap after a GC: u32 count, count x (u8 generation
                                    * 0..4, u64 start, u64 used length, u64 reserved length) */
};

#define GCS_PROFILE_ALLOC_MAX 41u    /* longest ALLOC record: kind + 4 varints of 10 bytes */
#define GCS_PROFILE_MAX_NAME 4096u   /* type names are cut to this many bytes */
#define GCS_PROFILE_MAX_RANGES 65536u /* ranges per MOVED/SURVIVING record */

#endif
