/*
 * format/nettrace/nettrace_v5.c - nettrace V4 and V5 (.NET Core 3.0 to
 * .NET 10 when asked for the V5 format): the blocks inside the
 * FastSerialization framing of fastser.c.
 *
 * EventBlock / MetadataBlock: int16 HeaderSize (>= 20), int16 Flags, then
 * min/max timestamps and reserved bytes up to HeaderSize, then event rows,
 * header-compressed when Flags & 1. StackBlock: FirstId, Count, then Count
 * times (Size, bytes). SPBlock: Timestamp, ThreadCount, then ThreadCount
 * times (CaptureThreadId int64, SequenceNumber int32). See
 * docs/format-nettrace.md for the exact layouts.
 *
 * Two ways through an EventBlock: parse_rows hands every row to
 * sink->event; for a counting sink (sink->tally) tally_compressed_rows
 * counts the rows of counted types itself, in a tight loop
 * (take_counted_rows) with a one-peek path for the runtime's usual 5-byte
 * row header. Both decode the same way and report the same faults at the
 * same offsets.
 */
#include <assert.h>
#include <string.h>

#include "base/error.h"
#include "format/eventpipe_metadata.h"
#include "format/fastser.h"

/* Flags of a compressed event header. */
enum {
    CF_METADATA_ID = 1 << 0,
    CF_CAPTURE_THREAD_AND_SEQUENCE = 1 << 1,
    CF_THREAD_ID = 1 << 2,
    CF_STACK_ID = 1 << 3,
    CF_ACTIVITY_ID = 1 << 4,
    CF_RELATED_ACTIVITY_ID = 1 << 5,
    CF_SORTED = 1 << 6,
    CF_DATA_LENGTH = 1 << 7
};

#define BLOCK_FLAG_HEADER_COMPRESSION 1u
#define MIN_BLOCK_HEADER_SIZE 20u
/* EventSize .. PayloadSize of an uncompressed row. */
#define UNCOMPRESSED_HEADER_SIZE 80u

/* The previous row's header: compressed rows are deltas against it; all
 * zero at the start of each block. */
typedef struct row_state {
    /* Header fields kept in the event handed to the sink, so that a row
     * costs no copy; timestamp deltas wrap modulo 2^64. */
    gcs_raw_event ev;
    uint8_t activity[16];
    uint8_t related[16];
    bool activity_set; /* activity or related nonzero: else passed on as NULL */
} row_state;

static inline bool guid_nonzero(const uint8_t *g)
{
    uint64_t a, b;
    memcpy(&a, g, 8);
    memcpy(&b, g + 8, 8);
    return (a | b) != 0;
}

#define ROW_CUT(err, c, what) \
    GCS_CORRUPT(err, gcs_cur_offset(c), "event row: %s cut short or invalid", what)

/* The longest compressed header: flags, metadata id, sequence delta,
 * capture thread, processor, thread, stack, timestamp, two ids, size. */
#define COMPRESSED_HEADER_MAX (1u + 5 + 5 + 10 + 5 + 10 + 5 + 10 + 16 + 16 + 5)

/* Varints of a row header: with `room` (COMPRESSED_HEADER_MAX bytes left,
 * so every field has its longest encoding's bytes) the per-byte checks
 * are skipped. `room` is a constant at each call: the compiler keeps one
 * specialized body per value. */
static inline __attribute__((always_inline)) bool row_varu32(gcs_cursor *c, bool room,
                                                            uint32_t *v)
{
    return room ? gcs_cur_varu32_room(c, v) : gcs_cur_varu32(c, v);
}
static inline __attribute__((always_inline)) bool row_varu64(gcs_cursor *c, bool room,
                                                            uint64_t *v)
{
    return room ? gcs_cur_varu64_room(c, v) : gcs_cur_varu64(c, v);
}

/* The fields after the flags byte. `flags` is a constant where the caller
 * specializes for the runtime's common row (see tally_common_rows). */
static inline __attribute__((always_inline)) gcs_status
read_row_fields(gcs_cursor *c, row_state *rs, gcs_error *err, bool room, uint8_t flags)
{
    if ((flags & CF_METADATA_ID) && !row_varu32(c, room, &rs->ev.metadata_id))
        return ROW_CUT(err, c, "metadata id");
    if (flags & CF_CAPTURE_THREAD_AND_SEQUENCE) {
        uint32_t delta;
        if (!row_varu32(c, room, &delta) || !row_varu64(c, room, &rs->ev.capture_tid) ||
            !row_varu32(c, room, &rs->ev.processor))
            return ROW_CUT(err, c, "capture thread/sequence");
        rs->ev.sequence += delta + 1u; /* wraps modulo 2^32 like the writer's counter */
    } else if (rs->ev.metadata_id != 0) {
        rs->ev.sequence++;
    }
    if ((flags & CF_THREAD_ID) && !row_varu64(c, room, &rs->ev.tid))
        return ROW_CUT(err, c, "thread id");
    if ((flags & CF_STACK_ID) && !row_varu32(c, room, &rs->ev.stack_id))
        return ROW_CUT(err, c, "stack id");
    uint64_t delta_ts;
    if (!row_varu64(c, room, &delta_ts))
        return ROW_CUT(err, c, "timestamp");
    rs->ev.timestamp = (int64_t)((uint64_t)rs->ev.timestamp + delta_ts);
    const uint8_t *g;
    if (flags & CF_ACTIVITY_ID) {
        if (!gcs_cur_bytes(c, 16, &g))
            return ROW_CUT(err, c, "activity id");
        memcpy(rs->activity, g, 16);
    }
    if (flags & CF_RELATED_ACTIVITY_ID) {
        if (!gcs_cur_bytes(c, 16, &g))
            return ROW_CUT(err, c, "related activity id");
        memcpy(rs->related, g, 16);
    }
    if (flags & (CF_ACTIVITY_ID | CF_RELATED_ACTIVITY_ID))
        rs->activity_set = guid_nonzero(rs->activity) || guid_nonzero(rs->related);
    rs->ev.is_sorted = (flags & CF_SORTED) != 0;
    if ((flags & CF_DATA_LENGTH) && !row_varu32(c, room, &rs->ev.payload_size))
        return ROW_CUT(err, c, "payload size");
    return GCS_OK;
}

static inline __attribute__((always_inline)) gcs_status
read_compressed_row_with(gcs_cursor *c, row_state *rs, gcs_error *err, bool room)
{
    uint8_t flags;
    if (!gcs_cur_u8(c, &flags))
        return ROW_CUT(err, c, "flags");
    return read_row_fields(c, rs, err, room, flags);
}

static gcs_status read_compressed_row(gcs_cursor *c, row_state *rs, gcs_error *err)
{
    return read_compressed_row_with(c, rs, err, false);
}

/* Only when COMPRESSED_HEADER_MAX bytes are left. */
static gcs_status read_compressed_row_room(gcs_cursor *c, row_state *rs, gcs_error *err)
{
    return read_compressed_row_with(c, rs, err, true);
}

/* Reads the fixed header; *row_end gets where the row ends by EventSize. */
static gcs_status read_uncompressed_row(gcs_cursor *c, row_state *rs, uint64_t *event_size,
                                        gcs_error *err)
{
    uint32_t size, raw_id;
    uint64_t timestamp;
    const uint8_t *g1, *g2;
    if (!gcs_cur_u32(c, &size) || !gcs_cur_u32(c, &raw_id) || !gcs_cur_u32(c, &rs->ev.sequence) ||
        !gcs_cur_u64(c, &rs->ev.tid) || !gcs_cur_u64(c, &rs->ev.capture_tid) ||
        !gcs_cur_u32(c, &rs->ev.processor) || !gcs_cur_u32(c, &rs->ev.stack_id) ||
        !gcs_cur_u64(c, &timestamp) || !gcs_cur_bytes(c, 16, &g1) ||
        !gcs_cur_bytes(c, 16, &g2) || !gcs_cur_u32(c, &rs->ev.payload_size))
        return ROW_CUT(err, c, "uncompressed header");
    rs->ev.metadata_id = raw_id & 0x7fffffffu;
    rs->ev.timestamp = (int64_t)timestamp;
    /* TraceEvent reads a clear high bit as "sorted"; the runtime writes
     * compressed headers only, so this layout is rare. */
    rs->ev.is_sorted = (raw_id & 0x80000000u) == 0;
    memcpy(rs->activity, g1, 16);
    memcpy(rs->related, g2, 16);
    rs->activity_set = guid_nonzero(rs->activity) || guid_nonzero(rs->related);
    *event_size = size;
    return GCS_OK;
}

/* What the runtime writes for nearly every row: the event type and the
 * payload size change, the thread and its numbering do not. */
#define COMMON_ROW_FLAGS (CF_METADATA_ID | CF_DATA_LENGTH)

/* Rows that keep the capture thread and its numbering, carry no activity
 * ids and are not flagged sorted: only the metadata id, thread id (the
 * sample profiler's rows name the sampled thread), stack id and size may
 * change. */
#define SIMPLE_ROW_FLAGS (CF_METADATA_ID | CF_THREAD_ID | CF_STACK_ID | CF_DATA_LENGTH)

/* Simple rows that keep the previous row's type and size: runs of them
 * (the sample profiler's) go to take_same_type_rows. */
#define SAME_TYPE_ROW_FLAGS (CF_THREAD_ID | CF_STACK_ID)

/* The usual encoding of a common row (little-endian bytes): the flags, a
 * 1-byte metadata id, a 2-byte timestamp delta, a 1-byte size. The mask
 * keeps the flags byte and each byte's continuation bit. */
#define COMMON_SHAPE_BYTES 5u
#define COMMON_SHAPE_MASK 0x80808080FFull
#define COMMON_SHAPE_BITS (0x800000ull | COMMON_ROW_FLAGS)

/* How far ahead the counting loop asks for input: the loop is a chain of
 * dependent loads (each row's size gives the next row's position), and
 * the hardware brings a sequential stream only as far as L2 in time, and
 * not across 4 KiB pages. Measured on the 1 GiB bench trace (`gcscope
 * info`, one core, built with OPT="-O2 -g -DPREFETCH_AHEAD=..."): 0.23 s
 * without, 0.24 s at 512 bytes, 0.21 s at 1 KiB, 0.20 s at
 * 2 and 4 KiB, 0.21-0.24 s at 8 and 16 KiB. */
#ifndef PREFETCH_AHEAD
#define PREFETCH_AHEAD 2048u
#endif

/* Consecutive sequence numbers of counted rows, reported to the sink as
 * one run (sink->sequence_run) when the run breaks. */
typedef struct seq_run {
    bool open;
    uint64_t tid;
    uint32_t first, last;
} seq_run;

static void end_run(const gcs_sink *sink, seq_run *run)
{
    if (run->open && sink->sequence_run)
        sink->sequence_run(sink->ctx, run->tid, run->first, run->last);
    run->open = false;
}

static inline void extend_run(const gcs_sink *sink, seq_run *run, uint64_t tid, uint32_t first,
                              uint32_t last)
{
    if (run->open && run->tid == tid && first == run->last + 1u) {
        run->last = last;
        return;
    }
    end_run(sink, run);
    *run = (seq_run){true, tid, first, last};
}

/* Rows counted since the tally was last updated (a local, so that the
 * counting loops keep it in registers). */
typedef struct tally_acc {
    int64_t lo, hi; /* earliest and latest timestamp counted */
    uint64_t taken, short_rows;
    uint64_t tapped; /* rows written to the sink's lane (not counted) */
} tally_acc;

static inline tally_acc acc_start(const gcs_tally *t)
{
    return (tally_acc){t->rows ? t->first_timestamp : INT64_MAX,
                       t->rows ? t->last_timestamp : INT64_MIN, 0, 0, 0};
}

/*
 * A tally with until (gcs_tally.has_until: the reader counting the rows
 * before a window) counts a row of an until_only slot only when its
 * timestamp, compared unsigned (one below 0 is past any until), is below
 * until. The loops below take `cut` (and until) as a constant of their
 * inlined bodies: a body for such a tally and one for any other, which
 * compares nothing.
 */
static inline bool counts_at(bool cut, uint64_t until, const gcs_tally_slot *slot,
                             int64_t timestamp)
{
    return !cut || !slot->until_only || (uint64_t)timestamp < until;
}

/* The tally's until, for a tally with has_until. */
static inline uint64_t tally_until(const gcs_tally *t)
{
    assert(t->has_until && t->until >= 0);
    return (uint64_t)t->until;
}

/* Where take_counted_rows writes the rows of GCS_TALLY_TAP slots: lane
 * NULL when it may not (no lane, or the rows carry activity ids, which
 * repeat from an earlier row). */
typedef struct tap_target {
    gcs_tap_lane *lane;
    uint32_t pid;
} tap_target;

/* Counts one row of a counted type. */
static inline void acc_count(tally_acc *a, gcs_tally_slot *slot, uint32_t size, int64_t timestamp)
{
    slot->count++;
    a->short_rows += size < slot->min_size;
    a->lo = timestamp < a->lo ? timestamp : a->lo;
    a->hi = timestamp > a->hi ? timestamp : a->hi;
    a->taken++;
}

static inline void acc_finish(gcs_tally *t, const tally_acc *a)
{
    if (!a->taken)
        return;
    t->rows += a->taken;
    t->short_rows += a->short_rows;
    t->first_timestamp = a->lo;
    t->last_timestamp = a->hi;
}

/* The fields of a row in the usual 5-byte encoding (COMMON_SHAPE_*). */
static inline uint32_t shape_id(uint64_t head) { return (uint32_t)(head >> 8) & 0x7f; }
static inline uint32_t shape_size(uint64_t head) { return (uint32_t)(head >> 32) & 0x7f; }
static inline uint64_t shape_delta(uint64_t head)
{
    return ((head >> 16) & 0x7f) | ((head >> 17) & (0x7fu << 7));
}
static inline bool is_shape(uint64_t head)
{
    return (head & COMMON_SHAPE_MASK) == COMMON_SHAPE_BITS;
}

/* What two rows of the usual 5-byte encoding share when they have the
 * same type and size: all but the time delta's value bits. */
#define SHAPE_KEY_MASK (COMMON_SHAPE_MASK | 0x7full << 8 | 0x7full << 32)

/* A delta of the 5-byte encoding has at most 14 bits. */
#define SHAPE_DELTA_BITS 14

/* left / stride > most (stride > 0): more rows of stride bytes fit in
 * left than most. A product, not a divide (a run's loop is entered a
 * few times a block); (most + 1) * stride past 2^64 is past left. */
static inline bool rows_may_pass(uint64_t left, uint64_t stride, uint64_t most)
{
    uint64_t need;
    return !__builtin_mul_overflow(most + 1, stride, &need) && left >= need;
}

/*
 * Rows that repeat a cycle of two 5-byte headers (key_a's row, then
 * key_b's: two types written in turn, each row naming its type and size
 * because the row before had the other's), a pair at a time: the position
 * moves by the pair's fixed length, so no pair waits for the one before it
 * to be read. Only while a pair and the longest header after it fit, so
 * that each row meets take_shape_rows's own conditions. Returns the pairs
 * taken; *timestamp moves past them. When the pairs cannot carry the
 * timestamp past INT64_MAX (checked once), the timestamps only go up: the
 * latest is the last row's.
 */
static inline __attribute__((always_inline)) uint64_t
pair_loop(gcs_cursor *block, uint64_t key_a, uint64_t key_b, size_t stride_a, size_t stride,
          uint64_t *timestamp, uint64_t until, bool cut)
{
    gcs_cursor c = *block;
    uint64_t ts = *timestamp, pairs = 0, head_a, head_b;
    while (gcs_cur_left(&c) >= stride + COMPRESSED_HEADER_MAX &&
           gcs_cur_peek_u64(&c, &head_a) && gcs_cur_peek_u64_at(&c, stride_a, &head_b) &&
           (head_a & SHAPE_KEY_MASK) == key_a && (head_b & SHAPE_KEY_MASK) == key_b &&
           (!cut || ts + shape_delta(head_a) + shape_delta(head_b) < until)) {
        gcs_cur_skip(&c, stride); /* fits: checked above */
        gcs_cur_prefetch(&c, PREFETCH_AHEAD);
        ts += shape_delta(head_a) + shape_delta(head_b);
        pairs++;
    }
    *block = c;
    *timestamp = ts;
    return pairs;
}

/* With cut (either slot until_only), only pairs whose second row's
 * timestamp is before until (the first's is not later: the deltas add,
 * and the run stays below INT64_MAX; a timestamp below 0 is past any
 * until, compared unsigned). */
static __attribute__((noinline)) uint64_t take_pair_rows(gcs_cursor *block, uint64_t key_a,
                                                         uint64_t key_b, int64_t *timestamp,
                                                         bool cut, uint64_t until)
{
    const size_t stride_a = COMMON_SHAPE_BYTES + shape_size(key_a);
    const size_t stride = stride_a + COMMON_SHAPE_BYTES + shape_size(key_b);
    const int64_t ts0 = *timestamp;
    if (ts0 >= 0 && rows_may_pass(gcs_cur_left(block), stride,
                                  (uint64_t)(INT64_MAX - ts0) >> (SHAPE_DELTA_BITS + 1)))
        return 0; /* rare: take_shape_rows watches every timestamp */
    if (cut && ts0 < 0)
        return 0;
    uint64_t ts = (uint64_t)ts0;
    const uint64_t pairs = cut ? pair_loop(block, key_a, key_b, stride_a, stride, &ts, until, true)
                               : pair_loop(block, key_a, key_b, stride_a, stride, &ts, 0, false);
    *timestamp = (int64_t)ts;
    return pairs;
}

/*
 * The innermost loop: rows of the usual 5-byte encoding (COMMON_SHAPE_*)
 * of plainly counted types, entered at such a row (slots has 128 entries
 * at least), one 8-byte peek each. A function of its own so that its
 * dozen live values stay in registers. Stops before the first row it
 * cannot take, leaving it unread.
 */
static inline __attribute__((always_inline)) void
shape_rows_loop(gcs_cursor *block, gcs_tally_slot *slots, int64_t *timestamp, tally_acc *acc,
                uint64_t *last_head, uint64_t until, bool cut)
{
    gcs_cursor c = *block;
    int64_t ts = *timestamp;
    tally_acc a = *acc;
    uint64_t head, last = 0, before_last = 0;
    while (gcs_cur_left(&c) >= COMPRESSED_HEADER_MAX && gcs_cur_peek_u64(&c, &head) &&
           is_shape(head)) {
        if (before_last && (head & SHAPE_KEY_MASK) == (before_last & SHAPE_KEY_MASK)) {
            /* This row has the header of the row two back: a cycle of
             * two (both rows before it taken here: plain slots). */
            const uint64_t key_a = before_last & SHAPE_KEY_MASK, key_b = last & SHAPE_KEY_MASK;
            const uint64_t pairs = take_pair_rows(
                &c, key_a, key_b, &ts,
                cut && (slots[shape_id(key_a)].until_only || slots[shape_id(key_b)].until_only),
                until);
            if (pairs) {
                gcs_tally_slot *sa = &slots[shape_id(key_a)], *sb = &slots[shape_id(key_b)];
                sa->count += pairs;
                sb->count += pairs;
                a.short_rows += pairs * ((shape_size(key_a) < sa->min_size) +
                                         (shape_size(key_b) < sb->min_size));
                a.taken += 2 * pairs;
                a.hi = ts > a.hi ? ts : a.hi;
                continue; /* the last two rows are again a's and b's */
            }
        }
        const uint32_t id = shape_id(head), row_size = shape_size(head);
        const int64_t row_ts = (int64_t)((uint64_t)ts + shape_delta(head));
        if (slots[id].counted != GCS_TALLY_PLAIN || !counts_at(cut, until, &slots[id], row_ts) ||
            !gcs_cur_skip(&c, COMMON_SHAPE_BYTES + row_size))
            break;
        gcs_cur_prefetch(&c, PREFETCH_AHEAD);
        ts = row_ts;
        acc_count(&a, &slots[id], row_size, ts);
        before_last = last;
        last = head;
    }
    *block = c;
    *timestamp = ts;
    *acc = a;
    *last_head = last;
}

static __attribute__((noinline)) void take_shape_rows(gcs_cursor *block, gcs_tally_slot *slots,
                                                      int64_t *timestamp, tally_acc *acc,
                                                      uint64_t *last_head)
{
    shape_rows_loop(block, slots, timestamp, acc, last_head, 0, false);
}

/* take_shape_rows for a tally with until. */
static __attribute__((noinline)) void take_shape_rows_until(gcs_cursor *block,
                                                            gcs_tally_slot *slots,
                                                            int64_t *timestamp, tally_acc *acc,
                                                            uint64_t *last_head, uint64_t until)
{
    shape_rows_loop(block, slots, timestamp, acc, last_head, until, true);
}

/* The header fields a compressed row may leave out (they keep the
 * previous row's value), as of the last row taken. */
typedef struct sticky_fields {
    int64_t timestamp;
    uint64_t tid;
    uint32_t metadata_id, size, stack_id;
} sticky_fields;

/* A simple row decoded by the counting loop whose type it does not count:
 * where it starts, its type, size and timestamp delta. */
typedef struct other_row {
    uint64_t at;
    uint32_t id, size;
    uint64_t delta;
} other_row;

/*
 * The encoding of a same-type row (take_same_type_rows) whose header fits
 * 8 bytes: its flags and the length of each varuint. Rows of one shape
 * differ only in the values; the sample profiler's rows keep one shape
 * for long runs (the sampled thread ids and the time deltas keep their
 * length). A row has the shape when its first 8 bytes, masked, equal
 * `bits`: the flags byte whole, the continuation bit of every varuint
 * byte (set but in each varuint's last byte).
 */
typedef struct row_shape {
    uint64_t mask, bits;
    uint32_t delta_shift;  /* 8 x the time delta's first byte */
    uint32_t delta_len;    /* its bytes, 1 to 4 */
    uint32_t header;       /* header bytes: flags and varuints */
    uint32_t tid_len;      /* bytes of the thread id (0: none) */
    uint8_t flags;
} row_shape;

/* A shape no row has: its bits lie outside its mask, so no header
 * matches. (It was mask 0xff, bits 0xff, on the ground that 0xff is not a
 * same-type row's flags byte; but the test compares only the masked
 * bytes, so a row that starts 0xff (every flag: a valid row) matched it,
 * and take_same_type_rows stepped over it by the previous row's size as
 * a header-less same-type row: finding 26.) */
static const row_shape NO_SHAPE = {0, 1, 0, 0, 0, 0, 0};

/* Adds a varuint of `len` bytes at header byte `at` to the shape. */
static void shape_add_varuint(row_shape *sh, uint32_t at, uint32_t len)
{
    for (uint32_t i = 0; i < len; i++) {
        sh->mask |= 0x80ull << (8 * (at + i));
        if (i + 1 < len)
            sh->bits |= 0x80ull << (8 * (at + i));
    }
}

/* The shape of a row of `flags` whose varuints have these lengths (0 for
 * a field the flags leave out); NO_SHAPE when its header is over 8 bytes,
 * or its stack id or time delta over 4 bytes (values of at most 28 bits,
 * so any row of the shape reads as the general decoder reads it). */
static row_shape shape_of(uint8_t flags, uint32_t tid_len, uint32_t stack_len, uint32_t delta_len)
{
    row_shape sh = {0xff, flags, 0, 0, 0, 0, flags};
    uint32_t header = 1 + tid_len + stack_len + delta_len;
    if (header > 8 || stack_len > 4 || delta_len > 4)
        return NO_SHAPE;
    shape_add_varuint(&sh, 1, tid_len);
    shape_add_varuint(&sh, 1 + tid_len, stack_len);
    shape_add_varuint(&sh, 1 + tid_len + stack_len, delta_len);
    sh.delta_shift = 8 * (1 + tid_len + stack_len);
    sh.delta_len = delta_len;
    sh.header = header;
    sh.tid_len = tid_len;
    return sh;
}

/*
 * What a same-type run checks in each row's payload before it counts the
 * row. A GCS_TALLY_ZERO_TAIL slot counts a row when its string surely ends
 * (gcs_cur_string_surely_ends): with the size the same for the whole run,
 * that is the UTF-16 unit `at` bytes into the payload being zero. Not on
 * for a GCS_TALLY_PLAIN slot: nothing to check.
 */
typedef struct tail_zero {
    uint32_t at;
    bool on;
} tail_zero;

/* The check for rows of `size` bytes of a plain or zero-tail slot; false
 * when the slot counts no row of that size (the general decoder hands
 * such rows over). */
static bool tail_zero_of(const gcs_tally_slot *slot, uint32_t size, tail_zero *tz)
{
    *tz = (tail_zero){0, false};
    if (slot->counted == GCS_TALLY_PLAIN)
        return true;
    assert(slot->counted == GCS_TALLY_ZERO_TAIL);
    /* EventPipe's strings are UTF-16: 2-byte units. */
    const uint32_t before = slot->zero_before, after = slot->zero_after;
    if (slot->zero_unit != 2 || (uint64_t)before + 2 + after > size)
        return false;
    const uint32_t last = size - after - 2; /* the string's last unit */
    if (((last - before) & 1) != 0)
        return false;
    *tz = (tail_zero){last, true};
    return true;
}

/* Does the row whose payload starts `at` bytes past c pass tz? */
static inline bool tail_zero_passes(const gcs_cursor *c, size_t at, const tail_zero *tz)
{
    uint16_t pair;
    return gcs_cur_peek_u16_at(c, at + tz->at, &pair) && pair == 0;
}

/* The loop of take_shaped_rows for a time delta of delta_len bytes and a
 * payload check or none (constants at each call: one body each). Returns
 * the rows taken. */
static inline __attribute__((always_inline)) uint64_t
shaped_loop(gcs_cursor *block, uint64_t mask, uint64_t bits, uint32_t delta_shift, size_t stride,
            uint32_t header, const tail_zero *tz, uint64_t *timestamp, unsigned delta_len,
            bool check_tail)
{
    gcs_cursor c = *block;
    uint64_t ts = *timestamp, head, taken = 0;
    while (gcs_cur_peek_u64(&c, &head) && (head & mask) == bits &&
           (!check_tail || tail_zero_passes(&c, header, tz)) && gcs_cur_skip(&c, stride)) {
        gcs_cur_prefetch(&c, PREFETCH_AHEAD);
        ts += gcs_varuint_pack(head >> delta_shift, delta_len);
        taken++;
    }
    *block = c;
    *timestamp = ts;
    return taken;
}

/*
 * Rows of one shape, one 8-byte peek each: the position moves by a fixed
 * stride (header and payload), so no row waits for the one before it to
 * be decoded. Returns the rows taken; *last is moved to the last one's
 * start. A delta has at most 28 bits, so when the run cannot carry the
 * timestamp past INT64_MAX (checked once) the timestamps only go up: the
 * earliest is the first row's and the latest the last row's.
 */
static __attribute__((noinline)) uint64_t take_shaped_rows(gcs_cursor *block, const row_shape *shape,
                                                           uint32_t size, const tail_zero *tz,
                                                           int64_t *timestamp, int64_t *lo,
                                                           int64_t *hi, gcs_cursor *last)
{
    const size_t stride = (size_t)shape->header + size;
    const int64_t ts0 = *timestamp;
    if (ts0 < 0 || rows_may_pass(gcs_cur_left(block), stride, (uint64_t)(INT64_MAX - ts0) >> 28))
        return 0; /* rare: the general loop watches every timestamp */
    const gcs_cursor start = *block;
    const uint64_t mask = shape->mask, bits = shape->bits;
    const uint32_t shift = shape->delta_shift;
    const uint32_t header = shape->header;
    uint64_t ts = (uint64_t)ts0, taken;
#define SHAPED(n, check) shaped_loop(block, mask, bits, shift, stride, header, tz, &ts, n, check)
    if (!tz->on) {
        switch (shape->delta_len) {
        case 1: taken = SHAPED(1, false); break;
        case 2: taken = SHAPED(2, false); break;
        case 3: taken = SHAPED(3, false); break;
        default: taken = SHAPED(4, false); break;
        }
    } else {
        switch (shape->delta_len) {
        case 1: taken = SHAPED(1, true); break;
        case 2: taken = SHAPED(2, true); break;
        case 3: taken = SHAPED(3, true); break;
        default: taken = SHAPED(4, true); break;
        }
    }
#undef SHAPED
    if (taken) {
        *last = start;
        uint64_t first_head = 0;
        (void)gcs_cur_peek_u64(last, &first_head);
        const int64_t first =
            ts0 + (int64_t)gcs_varuint_pack(first_head >> shift, shape->delta_len);
        gcs_cur_skip(last, (taken - 1) * stride);
        *lo = first < *lo ? first : *lo;
        *hi = (int64_t)ts > *hi ? (int64_t)ts : *hi;
    }
    *timestamp = (int64_t)ts;
    return taken;
}

/*
 * The innermost loop for a run of rows that keep the previous row's type
 * and size and change only the thread, the stack or the time (flags within
 * CF_THREAD_ID | CF_STACK_ID; the sample profiler writes such a row for
 * each sampled thread, the runtime such AllocationTicks for one type), of
 * a counted type: the slot and the size are the same for the whole run,
 * so they are counted once at its end, and a zero-tail slot's check is
 * two bytes at one offset (tz). A row is decoded as read_row_fields does
 * for these flags. When two rows in turn have one shape (flags and field
 * lengths), the rows after them that have it too go to take_shaped_rows
 * (the thread and stack ids of its last row read at the end): a shape
 * that changes every row or two (the allocation ticks' time deltas) costs
 * no shape made and no call. Stops before the first row it cannot take,
 * leaving it unread.
 */
static __attribute__((noinline)) void take_same_type_rows(gcs_cursor *block, gcs_tally_slot *slot,
                                                          uint32_t size, const tail_zero *tz,
                                                          sticky_fields *state, tally_acc *acc)
{
    gcs_cursor c = *block;
    int64_t ts = state->timestamp, lo = acc->lo, hi = acc->hi;
    uint64_t tid = state->tid, taken = 0;
    uint32_t stack_id = state->stack_id;
    row_shape shape = NO_SHAPE;
    uint32_t last_key = 0; /* the row before's flags and field lengths; 0: none (a row's
                            * time delta has a byte at least) */
    uint64_t head;
    while (gcs_cur_peek_u64(&c, &head)) {
        if ((head & shape.mask) == shape.bits) {
            gcs_cursor last;
            uint64_t n = take_shaped_rows(&c, &shape, size, tz, &ts, &lo, &hi, &last);
            if (n == 0)
                break;
            taken += n;
            /* The last row's ids, checked by the shape. */
            gcs_cur_skip(&last, 1);
            bool ids_read = (!(shape.flags & CF_THREAD_ID) || gcs_cur_varu64(&last, &tid)) &&
                            (!(shape.flags & CF_STACK_ID) || gcs_cur_varu32(&last, &stack_id));
            assert(ids_read);
            (void)ids_read;
            continue;
        }
        if (gcs_cur_left(&c) < COMPRESSED_HEADER_MAX || ((uint8_t)head & ~SAME_TYPE_ROW_FLAGS) != 0)
            break;
        const gcs_cursor row = c;
        const uint8_t flags = (uint8_t)head;
        uint64_t row_tid = tid, delta_ts;
        uint32_t row_stack_id = stack_id;
        gcs_cur_skip(&c, 1);
        const uint64_t tid_at = gcs_cur_offset(&c);
        if ((flags & CF_THREAD_ID) && !gcs_cur_varu64_room(&c, &row_tid)) {
            c = row;
            break;
        }
        const uint64_t stack_at = gcs_cur_offset(&c);
        if ((flags & CF_STACK_ID) && !gcs_cur_varu32_room(&c, &row_stack_id)) {
            c = row;
            break;
        }
        const uint64_t delta_at = gcs_cur_offset(&c);
        if (!gcs_cur_varu64_room(&c, &delta_ts)) {
            c = row;
            break;
        }
        /* Lengths of at most 10 bytes each: 4 bits. */
        const uint32_t tid_len = (uint32_t)(stack_at - tid_at),
                       stack_len = (uint32_t)(delta_at - stack_at),
                       delta_len = (uint32_t)(gcs_cur_offset(&c) - delta_at);
        const uint32_t key = (uint32_t)flags << 12 | tid_len << 8 | stack_len << 4 | delta_len;
        if (key == last_key)
            shape = shape_of(flags, tid_len, stack_len, delta_len);
        last_key = key;
        if ((tz->on && !tail_zero_passes(&c, 0, tz)) || !gcs_cur_skip(&c, size)) {
            c = row;
            break;
        }
        gcs_cur_prefetch(&c, PREFETCH_AHEAD);
        tid = row_tid;
        stack_id = row_stack_id;
        ts = (int64_t)((uint64_t)ts + delta_ts);
        lo = ts < lo ? ts : lo;
        hi = ts > hi ? ts : hi;
        taken++;
    }
    *block = c;
    state->timestamp = ts;
    state->tid = tid;
    state->stack_id = stack_id;
    slot->count += taken;
    acc->short_rows += size < slot->min_size ? taken : 0;
    acc->taken += taken;
    acc->lo = lo;
    acc->hi = hi;
}

/*
 * The counting loop: simple rows (SIMPLE_ROW_FLAGS) of counted types, one
 * after another, while the longest header fits. A run of rows in the
 * usual 5-byte encoding (COMMON_SHAPE_*; only when slots has an entry for
 * every 7-bit id) goes to take_shape_rows, a run of rows that keep the
 * type and size (the sample profiler's; allocation ticks of one type) to
 * take_same_type_rows; any other
 * simple row is decoded here, its payload looked into when its slot asks
 * (gcs_tally_takes); a row of a GCS_TALLY_TAP slot that surely fits goes
 * to tap->lane when it may (acc->tapped counts it, for its sequence
 * number only). Each loop is called only at a row it takes, so a
 * trace that changes encoding every row pays no empty call. Its state in
 * locals, so that the live values stay in registers.
 * Returns true at a simple row of a type not counted here: its header read
 * (the cursor at its payload, checked to fit), *other filled and its
 * thread and stack id in *state. Returns false at a row it cannot take,
 * left unread for the general decoder, which reports any fault exactly.
 * With cut (a tally with until), a row of an until_only slot at or after
 * until is handed over as a row of a type not counted here, and such a
 * slot's same-type runs are decoded row by row (take_same_type_rows, the
 * sample profiler's path, stays as it is for every other slot).
 */
static inline __attribute__((always_inline)) bool
counted_rows_body(gcs_cursor *block, gcs_tally_slot *slots, size_t n_slots, bool shape_ok,
                  const tap_target *tap, sticky_fields *state, tally_acc *acc, other_row *other,
                  uint64_t until, bool cut)
{
    gcs_cursor c = *block;
    sticky_fields s = *state;
    tally_acc a = *acc;
    bool found_other = false;
    uint64_t head;
    while (gcs_cur_left(&c) >= COMPRESSED_HEADER_MAX && gcs_cur_peek_u64(&c, &head)) {
        /* A 5-byte row of a slot that looks into payloads (ZERO_TAIL,
         * STRINGS) goes below. */
        if (shape_ok && is_shape(head) && slots[shape_id(head)].counted < GCS_TALLY_ZERO_TAIL) {
            /* Not counted: its type's, or (a tally with until) its time. */
            if (slots[shape_id(head)].counted == GCS_TALLY_NO ||
                !counts_at(cut, until, &slots[shape_id(head)],
                           (int64_t)((uint64_t)s.timestamp + shape_delta(head)))) {
                const uint32_t row_size = shape_size(head);
                if (gcs_cur_left(&c) - COMMON_SHAPE_BYTES < row_size)
                    break;
                *other = (other_row){gcs_cur_offset(&c), shape_id(head), row_size, shape_delta(head)};
                gcs_cur_skip(&c, COMMON_SHAPE_BYTES);
                found_other = true;
                break;
            }
            /* A run of them, one peek each: most rows of most traces. */
            uint64_t last;
            if (cut)
                take_shape_rows_until(&c, slots, &s.timestamp, &a, &last, until);
            else
                take_shape_rows(&c, slots, &s.timestamp, &a, &last);
            if (!last)
                break; /* its payload overruns the block: the general decoder says so */
            s.metadata_id = shape_id(last);
            s.size = shape_size(last);
            continue;
        }
        /* Any other simple row: what read_row_fields does for these flags. */
        const uint8_t flags = (uint8_t)head;
        if ((flags & ~SIMPLE_ROW_FLAGS) != 0)
            break;
        tail_zero tz;
        if ((flags & ~SAME_TYPE_ROW_FLAGS) == 0 && s.metadata_id != 0 &&
            s.metadata_id < n_slots && !(cut && slots[s.metadata_id].until_only) &&
            (slots[s.metadata_id].counted == GCS_TALLY_PLAIN ||
             slots[s.metadata_id].counted == GCS_TALLY_ZERO_TAIL) &&
            s.size <= GCS_MAX_PAYLOAD_SIZE && tail_zero_of(&slots[s.metadata_id], s.size, &tz)) {
            const uint64_t taken = a.taken;
            take_same_type_rows(&c, &slots[s.metadata_id], s.size, &tz, &s, &a);
            if (a.taken != taken)
                continue;
            /* Not even one: the general decoding below says why. */
        }
        const gcs_cursor row = c;
        uint32_t id = s.metadata_id, row_size = s.size, stack_id = s.stack_id;
        uint64_t tid = s.tid, delta_ts;
        gcs_cur_skip(&c, 1);
        if (((flags & CF_METADATA_ID) && !gcs_cur_varu32_room(&c, &id)) ||
            ((flags & CF_THREAD_ID) && !gcs_cur_varu64_room(&c, &tid)) ||
            ((flags & CF_STACK_ID) && !gcs_cur_varu32_room(&c, &stack_id)) ||
            !gcs_cur_varu64_room(&c, &delta_ts) ||
            ((flags & CF_DATA_LENGTH) && !gcs_cur_varu32_room(&c, &row_size)) ||
            row_size > GCS_MAX_PAYLOAD_SIZE || row_size > gcs_cur_left(&c)) {
            c = row;
            break;
        }
        s.tid = tid;
        s.stack_id = stack_id;
        if (id == 0 || id >= n_slots || !gcs_tally_takes(&slots[id], &c, row_size) ||
            !counts_at(cut, until, &slots[id], (int64_t)((uint64_t)s.timestamp + delta_ts))) {
            gcs_tap_lane *lane = tap->lane;
            if (id != 0 && id < n_slots && slots[id].counted == GCS_TALLY_TAP && lane &&
                lane->n < lane->cap && gcs_tap_fits(&slots[id], &c, row_size)) {
                /* To the lane: a row taken for its sequence number. */
                const uint8_t *payload;
                gcs_cur_bytes(&c, row_size, &payload); /* checked above */
                s.metadata_id = id;
                s.size = row_size;
                s.timestamp = (int64_t)((uint64_t)s.timestamp + delta_ts);
                gcs_tap_put(lane, slots[id].tap_type, s.timestamp, tid, tap->pid, payload,
                            row_size);
                /* Asked ahead as after a counted row: without it, a trace
                 * whose rows are mostly tapped (`stats` on allocation
                 * ticks) reads them at memory's latency. */
                gcs_cur_prefetch(&c, PREFETCH_AHEAD);
                a.tapped++;
                continue;
            }
            *other = (other_row){gcs_cur_offset(&row), id, row_size, delta_ts};
            found_other = true;
            break;
        }
        gcs_cur_skip(&c, row_size);
        gcs_cur_prefetch(&c, PREFETCH_AHEAD);
        s.metadata_id = id;
        s.size = row_size;
        s.timestamp = (int64_t)((uint64_t)s.timestamp + delta_ts);
        acc_count(&a, &slots[id], row_size, s.timestamp);
    }
    *block = c;
    *state = s;
    *acc = a;
    return found_other;
}

static __attribute__((noinline)) bool take_counted_rows(gcs_cursor *block, gcs_tally_slot *slots,
                                                        size_t n_slots, bool shape_ok,
                                                        const tap_target *tap,
                                                        sticky_fields *state, tally_acc *acc,
                                                        other_row *other)
{
    return counted_rows_body(block, slots, n_slots, shape_ok, tap, state, acc, other, 0, false);
}

/* take_counted_rows for a tally with until: a row of an until_only slot
 * at or after it is handed over as a row of a type not counted here. */
static __attribute__((noinline)) bool
take_counted_rows_until(gcs_cursor *block, gcs_tally_slot *slots, size_t n_slots, bool shape_ok,
                        const tap_target *tap, sticky_fields *state, tally_acc *acc,
                        other_row *other, uint64_t until)
{
    return counted_rows_body(block, slots, n_slots, shape_ok, tap, state, acc, other, until, true);
}

/* A row not counted here goes to sink->event, its sequence number after
 * the open run's. */
static gcs_status hand_over(const gcs_sink *sink, seq_run *run, row_state *rs,
                            const uint8_t *payload, uint64_t row_at, gcs_error *err)
{
    end_run(sink, run);
    rs->ev.payload = payload;
    rs->ev.offset = row_at;
    rs->ev.activity_id = rs->activity_set ? rs->activity : NULL;
    rs->ev.related_activity_id = rs->activity_set ? rs->related : NULL;
    return sink->event(sink->ctx, &rs->ev, err);
}

/* A row of a GCS_TALLY_TAP slot that surely fits (gcs_tap_fits) goes to
 * the sink's lane when it has room, its sequence number reported as a
 * counted row's: true, done. False: it goes to sink->event. */
static inline bool tap_row(const gcs_sink *sink, seq_run *run, row_state *rs,
                           const gcs_tally_slot *slot, const uint8_t *payload,
                           const gcs_cursor *at_payload)
{
    gcs_tap_lane *lane = sink->lane;
    if (slot->counted != GCS_TALLY_TAP || !lane || lane->n == lane->cap || rs->activity_set ||
        !gcs_tap_fits(slot, at_payload, rs->ev.payload_size))
        return false;
    rs->ev.payload = payload;
    gcs_tap_append(lane, slot->tap_type, &rs->ev);
    extend_run(sink, run, rs->ev.capture_tid, rs->ev.sequence, rs->ev.sequence);
    return true;
}

/*
 * Simple rows (SIMPLE_ROW_FLAGS) of counted types, one after another, while
 * the longest header fits: counted into the tally by take_counted_rows. A
 * simple row of a type not counted here is decoded into rs and handed over to sink->event (*st its status)
 * without leaving: a delivered row costs no exit and re-entry of the
 * counting loop. Stops at the first row it cannot count or hand over, left
 * unread (false) to the general decoder, which reports any fault exactly
 * (other flags, an invalid or oversized field, a payload past the block);
 * true when sink->event failed (*st < 0).
 */
static __attribute__((noinline)) bool tally_common_rows(const gcs_sink *sink, gcs_cursor *block,
                                                       row_state *rs, seq_run *run,
                                                       gcs_status *st, gcs_error *err)
{
    gcs_tally *t = sink->tally;
    gcs_cursor c = *block;
    for (;;) { /* one pass per row handed over */
        /* Read again after each row handed over: the sink may have grown
         * (moved) its slots meanwhile. */
        gcs_tally_slot *const slots = t->slots;
        const size_t n_slots = t->n_slots;
        assert(n_slots == 0 || !slots[0].counted); /* the sink's contract */
        /* Every id of the 5-byte encoding (7 bits) has a slot: no id check. */
        const bool shape_ok = n_slots > 0x7f;
        const uint32_t first_sequence = rs->ev.sequence + 1u;
        tally_acc acc = acc_start(t);
        sticky_fields s = {rs->ev.timestamp, rs->ev.tid, rs->ev.metadata_id, rs->ev.payload_size,
                           rs->ev.stack_id};
        other_row other;
        const tap_target tap = {rs->activity_set ? NULL : sink->lane, rs->ev.pid};
        const bool found_other =
            t->has_until ? take_counted_rows_until(&c, slots, n_slots, shape_ok, &tap, &s, &acc,
                                                   &other, tally_until(t))
                         : take_counted_rows(&c, slots, n_slots, shape_ok, &tap, &s, &acc, &other);
        if (acc.taken + acc.tapped) {
            const uint32_t sequence = rs->ev.sequence + (uint32_t)(acc.taken + acc.tapped);
            rs->ev.metadata_id = s.metadata_id;
            rs->ev.payload_size = s.size;
            rs->ev.sequence = sequence;
            rs->ev.timestamp = s.timestamp;
            acc_finish(t, &acc);
            extend_run(sink, run, rs->ev.capture_tid, first_sequence, sequence);
        }
        rs->ev.stack_id = s.stack_id;
        rs->ev.tid = s.tid;
        if (!found_other) {
            *block = c;
            return false;
        }
        /* What the general decoder makes of a simple row. */
        rs->ev.metadata_id = other.id;
        rs->ev.payload_size = other.size;
        if (other.id != 0)
            rs->ev.sequence++;
        rs->ev.timestamp = (int64_t)((uint64_t)rs->ev.timestamp + other.delta);
        rs->ev.is_sorted = false;
        const gcs_cursor at_payload = c;
        const uint8_t *payload = NULL;
        gcs_cur_bytes(&c, other.size, &payload); /* checked above */
        if (other.id < n_slots && tap_row(sink, run, rs, &slots[other.id], payload, &at_payload))
            continue;
        if ((*st = hand_over(sink, run, rs, payload, other.at, err)) < 0) {
            *block = c;
            return true;
        }
    }
}

/*
 * The event rows of a header-compressed block for a counting sink
 * (sink->tally): rows of counted types are counted here, the others go to
 * sink->event; the same decoding and the same checks as parse_rows, so a
 * fault is reported with the same offset and reason, after the rows
 * before it were counted or handed over.
 */
static gcs_status tally_compressed_rows(gcs_fs_reader *r, gcs_cursor *block, gcs_error *err)
{
    const gcs_sink *sink = r->base.sink;
    gcs_cursor cur = *block;
    gcs_cursor *c = &cur;
    row_state rs;
    memset(&rs, 0, sizeof rs);
    rs.ev.has_sequence = true;
    rs.ev.pid = r->info.pid;
    seq_run run = {0};
    gcs_status st = GCS_OK;
    while (gcs_cur_left(c) > 0) {
        if (tally_common_rows(sink, c, &rs, &run, &st, err))
            break; /* sink->event failed */
        if (gcs_cur_left(c) == 0)
            break;
        const uint64_t row_at = gcs_cur_offset(c);
        /* Copies: taking the address of cur or rs would keep them out of
         * registers in the whole loop. */
        gcs_cursor row_cur = cur;
        row_state row_rs = rs;
        st = gcs_cur_left(c) >= COMPRESSED_HEADER_MAX ? read_compressed_row_room(&row_cur, &row_rs, err)
                                                      : read_compressed_row(&row_cur, &row_rs, err);
        cur = row_cur;
        rs = row_rs;
        if (st != GCS_OK)
            break;
        if (rs.ev.payload_size > GCS_MAX_PAYLOAD_SIZE) {
            st = GCS_FAIL(err, GCS_ERR_LIMIT, row_at, "event payload of %u bytes exceeds the limit",
                          rs.ev.payload_size);
            break;
        }
        const uint8_t *payload;
        const gcs_cursor at_payload = cur;
        if (!gcs_cur_bytes(c, rs.ev.payload_size, &payload)) {
            st = GCS_CORRUPT(err, gcs_cur_offset(c), "event payload of %u bytes overruns its block",
                             rs.ev.payload_size);
            break;
        }
        gcs_tally *t = sink->tally;
        uint32_t id = rs.ev.metadata_id;
        if (id != 0 && id < t->n_slots &&
            gcs_tally_takes(&t->slots[id], &at_payload, rs.ev.payload_size) &&
            (!t->has_until || !t->slots[id].until_only ||
             (uint64_t)rs.ev.timestamp < tally_until(t))) {
            tally_acc acc = acc_start(t);
            acc_count(&acc, &t->slots[id], rs.ev.payload_size, rs.ev.timestamp);
            acc_finish(t, &acc);
            extend_run(sink, &run, rs.ev.capture_tid, rs.ev.sequence, rs.ev.sequence);
            continue;
        }
        if (id != 0 && id < t->n_slots &&
            tap_row(sink, &run, &rs, &t->slots[id], payload, &at_payload))
            continue;
        if ((st = hand_over(sink, &run, &rs, payload, row_at, err)) < 0)
            break;
    }
    end_run(sink, &run);
    *block = cur;
    return st;
}

static gcs_status parse_rows(gcs_fs_reader *r, gcs_cursor *c, bool metadata_block,
                             gcs_error *err)
{
    const gcs_sink *sink = r->base.sink;
    uint64_t block_at = gcs_cur_offset(c);
    uint16_t header_size, flags;
    if (!gcs_cur_u16(c, &header_size) || !gcs_cur_u16(c, &flags))
        return GCS_CORRUPT(err, block_at, "block header cut short");
    if (header_size < MIN_BLOCK_HEADER_SIZE || !gcs_cur_skip(c, (size_t)header_size - 4))
        return GCS_CORRUPT(err, block_at, "block header size %u is invalid", header_size);
    bool compressed = (flags & BLOCK_FLAG_HEADER_COMPRESSION) != 0;
    if (compressed && !metadata_block && sink->tally)
        return tally_compressed_rows(r, c, err);

    row_state rs;
    memset(&rs, 0, sizeof rs);
    rs.ev.has_sequence = true;
    rs.ev.pid = r->info.pid;
    gcs_status (*const on_event)(void *, const gcs_raw_event *, gcs_error *) = sink->event;
    void *const ctx = sink->ctx;
    gcs_status st;
    const uint64_t offset_base = gcs_cur_offset_base(c);

    while (gcs_cur_left(c) > 0) {
        uint64_t row_at = gcs_cur_offset_at(offset_base, c);
        uint64_t event_size = 0;
        st = !compressed ? read_uncompressed_row(c, &rs, &event_size, err)
             : gcs_cur_left(c) >= COMPRESSED_HEADER_MAX ? read_compressed_row_room(c, &rs, err)
                                                        : read_compressed_row(c, &rs, err);
        if (st != GCS_OK)
            return st;
        if (rs.ev.payload_size > GCS_MAX_PAYLOAD_SIZE)
            return GCS_FAIL(err, GCS_ERR_LIMIT, row_at, "event payload of %u bytes exceeds the limit",
                            rs.ev.payload_size);
        const uint8_t *payload;
        /* A failed read leaves the cursor at the payload. */
        if (!gcs_cur_bytes(c, rs.ev.payload_size, &payload))
            return GCS_CORRUPT(err, gcs_cur_offset(c), "event payload of %u bytes overruns its block",
                               rs.ev.payload_size);
        if (!compressed) {
            /* EventSize covers the whole row after itself, padding
             * included, and the next row starts right after it: the
             * runtime counts its padding to a multiple of 4 in EventSize,
             * TraceEvent's own writer pads nothing (EventSize = 76 +
             * PayloadSize), and TraceEvent 4.0.0 steps 80 + PayloadSize.
             * No alignment to the file offset (docs/format-nettrace.md). */
            uint64_t used = gcs_cur_offset(c) - row_at - 4;
            if (event_size < used)
                return GCS_CORRUPT(err, row_at, "EventSize %llu smaller than the row (%llu)",
                                   (unsigned long long)event_size, (unsigned long long)used);
            if (!gcs_cur_skip(c, (size_t)(event_size - used)))
                return GCS_CORRUPT(err, row_at, "EventSize %llu overruns its block",
                                   (unsigned long long)event_size);
        }
        if (metadata_block) {
            uint64_t payload_at = c->origin + (uint64_t)(payload - c->start);
            gcs_cursor mc = gcs_cur_make(payload, rs.ev.payload_size, payload_at);
            gcs_meta_def def;
            gcs_error problem;
            st = gcs_ep_metadata_parse(&mc, r->version == 4 ? 5 : r->version, 0, sink->meta_arena,
                                       &def, &problem, err);
            if (st != GCS_OK)
                return st;
            if ((st = gcs_fs_report_metadata(r, &def, &problem, err)) < 0)
                return st;
            continue;
        }
        rs.ev.payload = payload;
        rs.ev.offset = row_at;
        /* Most rows carry no activity: NULL spares the sorter a check. */
        rs.ev.activity_id = rs.activity_set ? rs.activity : NULL;
        rs.ev.related_activity_id = rs.activity_set ? rs.related : NULL;
        if (on_event && (st = on_event(ctx, &rs.ev, err)) < 0)
            return st;
    }
    return GCS_OK;
}

static gcs_status parse_stacks(gcs_fs_reader *r, gcs_cursor *c, gcs_error *err)
{
    const gcs_sink *sink = r->base.sink;
    uint32_t first_id, count;
    if (!gcs_cur_u32(c, &first_id) || !gcs_cur_u32(c, &count))
        return GCS_CORRUPT(err, gcs_cur_offset(c), "stack block header cut short");
    if (count > gcs_cur_left(c) / 4)
        return GCS_CORRUPT(err, gcs_cur_offset(c) - 4, "%u stacks cannot fit in %zu bytes", count,
                           gcs_cur_left(c));
    for (uint32_t i = 0; i < count; i++) {
        uint32_t size;
        const uint8_t *ips;
        uint64_t at = gcs_cur_offset(c);
        if (!gcs_cur_u32(c, &size) || !gcs_cur_bytes(c, size, &ips))
            return GCS_CORRUPT(err, at, "stack %u overruns its block", first_id + i);
        if (sink->stack)
            sink->stack(sink->ctx, first_id + i, ips, size);
    }
    return GCS_OK;
}

#define SEQ_ENTRY_BYTES 12u

static gcs_status parse_sequence_point(gcs_fs_reader *r, gcs_cursor *c, gcs_error *err)
{
    const gcs_sink *sink = r->base.sink;
    uint64_t timestamp;
    uint32_t count;
    uint64_t at = gcs_cur_offset(c);
    if (!gcs_cur_u64(c, &timestamp) || !gcs_cur_u32(c, &count))
        return GCS_CORRUPT(err, at, "sequence point header cut short");
    if (count > gcs_cur_left(c) / SEQ_ENTRY_BYTES)
        return GCS_CORRUPT(err, at + 8, "%u sequence point threads cannot fit in %zu bytes", count,
                           gcs_cur_left(c));
    gcs_seq_entry *entries = NULL;
    if (count > 0) {
        r->scratch.len = 0;
        gcs_status st = gcs_buf_reserve(&r->scratch, (size_t)count * sizeof *entries);
        if (st != GCS_OK)
            return GCS_FAIL(err, st, at, "cannot hold %u sequence point threads", count);
        entries = (gcs_seq_entry *)(void *)r->scratch.data;
    }
    for (uint32_t i = 0; i < count; i++) {
        (void)(gcs_cur_u64(c, &entries[i].capture_tid) && gcs_cur_u32(c, &entries[i].sequence));
    }
    if (gcs_cur_left(c) != 0)
        gcs_fs_anomaly(r, gcs_cur_offset(c), "sequence point block has trailing bytes");
    if (!sink->sequence_point)
        return GCS_OK;
    return sink->sequence_point(sink->ctx, (int64_t)timestamp, entries, count, err);
}

static gcs_status nettrace_parse_block(gcs_fs_reader *r, gcs_fs_kind kind, gcs_cursor *body,
                                       gcs_error *err)
{
    switch (kind) {
    case GCS_FS_EVENT_BLOCK:
        return parse_rows(r, body, false, err);
    case GCS_FS_METADATA_BLOCK:
        return parse_rows(r, body, true, err);
    case GCS_FS_STACK_BLOCK:
        return parse_stacks(r, body, err);
    case GCS_FS_SP_BLOCK:
        return parse_sequence_point(r, body, err);
    default:
        gcs_fs_anomaly(r, gcs_cur_offset(body), "unexpected object type skipped");
        return GCS_OK;
    }
}

gcs_status gcs_nettrace_v5_open(gcs_stream *s, const gcs_sink *sink, gcs_container **out,
                                gcs_error *err)
{
    return gcs_fs_create(s, sink, true, nettrace_parse_block, NULL, out, err);
}
