/*
 * format/container.h - what every container reader (nettrace, netperf,
 * later etl, ctf) gives the layers above it.
 *
 * A container reads whole units (blocks) from a gcs_stream and reports what
 * they hold through a gcs_sink: the trace header once, metadata rows, raw
 * events (in file order, NOT sorted), sequence points, stacks. It knows
 * nothing of GC. Resolution of container-internal tables (V6 thread and
 * label-list tables) happens here, so raw events already carry OS thread
 * and process ids and activity ids.
 */
#ifndef GCS_FORMAT_CONTAINER_H
#define GCS_FORMAT_CONTAINER_H

#include "base/buf.h"
#include "base/cursor.h"
#include "gcscope/reader.h"
#include "io/source.h"

/* Limits on lengths read from input (checked before any allocation). */
#define GCS_MAX_BLOCK_SIZE ((size_t)32 << 20)   /* one block/object */
#define GCS_MAX_STRING_UNITS 65536              /* metadata strings */
#define GCS_MAX_FIELDS 1024                     /* fields of one metadata row */
#define GCS_MAX_FIELD_DEPTH 16                  /* nesting of struct fields */
#define GCS_MAX_PAYLOAD_SIZE ((size_t)16 << 20) /* one event payload */

/* One metadata row: describes events that reference metadata_id. All
 * pointers live in the sink's meta_arena (alive for the reader's life). */
typedef struct gcs_meta_def {
    uint32_t metadata_id;
    const char *provider;   /* UTF-8, never NULL ("" if none) */
    uint32_t event_id;
    const char *event_name; /* UTF-8, "" when the trace gives none */
    uint64_t keywords;
    uint32_t version;
    uint32_t level;
    uint32_t opcode;
    bool has_opcode;        /* the metadata carried an opcode */
    /* event_id unknown: the trace names the event instead (LTTng's
     * tracepoint name, e.g. "GCStart" with version 2 from "GCStart_V2");
     * the decoder finds the id from (provider, event_name, version). */
    bool id_from_name;
    const gcs_field *fields;
    uint32_t field_count;   /* 0: no schema in the trace (native runtime events) */
} gcs_meta_def;

/* One event as stored in the container. Pointers are valid only during the
 * sink call (the sink copies what it keeps). */
typedef struct gcs_raw_event {
    uint32_t metadata_id;
    bool is_sorted;           /* the writer's IsSorted flag */
    bool has_sequence;
    uint8_t pointer_size;     /* 4 or 8: this event's writer differs from the trace
                                 (a 32-bit process in a 64-bit ETW log); 0: the trace's */
    uint32_t sequence;
    uint32_t pid;             /* process id (from thread table or header) */
    uint64_t tid;             /* OS thread id */
    uint64_t capture_tid;     /* thread whose sequence numbering this is */
    uint32_t processor;
    uint32_t stack_id;        /* a StackBlock's stack (0: none) */
    int64_t timestamp;        /* ticks */
    const uint8_t *activity_id;          /* 16 bytes, or NULL */
    const uint8_t *related_activity_id;  /* 16 bytes, or NULL */
    const uint8_t *payload;
    uint32_t payload_size;
    uint64_t offset;          /* input offset of the event row */
    /* A stack written inside the event (netperf), bytes of the trace's
     * pointer size each, leaf first; NULL/0 if none. */
    const uint8_t *inline_stack;
    uint32_t inline_stack_size;
} gcs_raw_event;

/*
 * Counting in the container (sink->tally, for a sink that only counts):
 * rows whose metadata id has a slot marked `counted` are not handed over
 * one by one; the container adds them to the slot's count (and to
 * `short_rows` when the payload is shorter than the slot's min_size), and
 * keeps the earliest and latest timestamp. Every other row goes to
 * sink->event as usual. Slots belong to the sink, which may add or
 * reallocate them during any sink call. Slot 0 is never marked counted:
 * rows of metadata id 0 take no sequence number.
 */
/* Strings a gcs_tally_layout describes at most. */
#define GCS_TALLY_MAX_STRINGS 8

/*
 * A type's payload as fixed bytes and terminated strings: fixed[0] bytes,
 * a string of unit[0]-byte units, fixed[1] bytes, ..., string n_strings -
 * 1, fixed[n_strings] bytes. A payload made of exactly these parts, each
 * string's first terminator at its end, fits the type's schema.
 */
typedef struct gcs_tally_layout {
    uint32_t n_strings;
    uint8_t unit[GCS_TALLY_MAX_STRINGS];
    uint32_t fixed[GCS_TALLY_MAX_STRINGS + 1];
} gcs_tally_layout;

/*
 * An event of a tapped type (gcs_reader_options.tap), kept apart from the
 * sorted events with only its payload's head: what a container writes
 * into the sink's lane (gcs_tap_lane) instead of calling sink->event,
 * when the row's slot is GCS_TALLY_TAP. 64 bytes.
 */
typedef struct gcs_tap_row {
    int64_t timestamp;
    uint64_t tid;
    const void *type;      /* the slot's tap_type (the sink's type of the event) */
    uint32_t arrival;      /* the lane's arrivals, taken */
    uint32_t pid;
    uint32_t payload_size; /* the whole payload's */
    uint8_t pointer_size;  /* as in gcs_raw_event */
    uint8_t head_size;     /* min(payload_size, GCS_TAP_HEAD_BYTES) */
    uint8_t mark;          /* the sink's (0 from a container: the row fits its type) */
    bool is_sorted;
    uint8_t head[GCS_TAP_HEAD_BYTES];
} gcs_tap_row;

/* Where tap rows go, in arrival order. A container appends while n <
 * cap, else hands the row to sink->event; every row and every event the
 * sink sorts takes the next arrival number (their order at equal times). */
typedef struct gcs_tap_lane {
    gcs_tap_row *rows;
    size_t n, cap;
    uint32_t arrivals;
} gcs_tap_lane;

typedef struct gcs_tally_slot {
    uint64_t count;
    uint32_t min_size;
    /* GCS_TALLY_ZERO_TAIL and GCS_TALLY_STRINGS: the payload is fixed
     * bytes, terminated strings of zero_unit-byte units (1 or 2), fixed
     * bytes (zero_before and zero_after of them). One string
     * (GCS_TALLY_ZERO_TAIL): a row is counted only when the unit just
     * before the trailing fixed bytes, a whole number of units after the
     * leading ones, is zero (then the string surely ends in the payload).
     * zero_strings of them (GCS_TALLY_STRINGS): only when the strings end
     * before the trailing bytes (gcs_cur_strings_end). Any other row of
     * the slot goes to sink->event, which checks it fully. (Fields in
     * this order: a slot stays 40 bytes.) */
    uint32_t zero_before, zero_after;
    uint8_t zero_unit;
    uint8_t zero_strings;
    uint8_t counted; /* gcs_tally_mode */
    /* With the tally's has_until: the slot's rows are counted only before
     * until (a type the reader delivers from a window's start on); 0: at
     * any time (a type it never delivers). */
    uint8_t until_only;
    /* The type's layout, when its schema is of that form (else NULL),
     * whatever `counted` says: a container that builds payloads itself
     * (LTTng's CTF, rebuilt in the manifest's layout) may count a row it
     * knows would be built exactly so, without building it, even in a
     * slot of GCS_TALLY_NO (the row fits: it adds no short row). */
    const gcs_tally_layout *layout;
    /* GCS_TALLY_TAP: what the rows' tap_row.type is. */
    const void *tap_type;
} gcs_tally_slot;
_Static_assert(sizeof(gcs_tally_slot) <= 40, "a tally slot stays 40 bytes");

/* How a slot's rows are counted (the modes that look into the payload
 * last: `counted < GCS_TALLY_ZERO_TAIL` says a row is taken whatever its
 * payload, or never). */
typedef enum gcs_tally_mode {
    GCS_TALLY_NO = 0,        /* every row goes to sink->event */
    GCS_TALLY_PLAIN = 1,     /* every row counted */
    GCS_TALLY_ZERO_TAIL = 2, /* rows with the zero unit counted (above) */
    GCS_TALLY_STRINGS = 3,   /* rows whose strings end counted (above; not by every
                                container: see gcs_tally_takes) */
    GCS_TALLY_TAP = 4        /* not counted: rows that surely fit (gcs_tap_fits) go to
                                the sink's lane as tap rows, when a container can;
                                any other goes to sink->event */
} gcs_tally_mode;

/* Does a row of a GCS_TALLY_TAP slot surely fit its type, so that it may
 * go to the lane? Its one string ends where the type's tail begins
 * (zero_unit != 0, as GCS_TALLY_ZERO_TAIL), or it has min_size bytes. */
static inline bool gcs_tap_fits(const gcs_tally_slot *s, const gcs_cursor *payload, uint32_t size)
{
    if (s->zero_unit)
        return gcs_cur_string_surely_ends(payload, size, s->zero_before, s->zero_unit,
                                          s->zero_after);
    return size >= s->min_size;
}

/* Writes a tap row of type `type` (room checked by the caller: lane->n <
 * lane->cap), not flagged sorted, of the trace's pointer size, mark 0. */
static inline gcs_tap_row *gcs_tap_put(gcs_tap_lane *lane, const void *type, int64_t timestamp,
                                       uint64_t tid, uint32_t pid, const uint8_t *payload,
                                       uint32_t size)
{
    gcs_tap_row *t = &lane->rows[lane->n++];
    t->timestamp = timestamp;
    t->tid = tid;
    t->type = type;
    t->arrival = lane->arrivals++;
    t->pid = pid;
    t->payload_size = size;
    t->pointer_size = 0;
    t->mark = 0;
    t->is_sorted = false;
    if (size >= GCS_TAP_HEAD_BYTES) {
        t->head_size = GCS_TAP_HEAD_BYTES;
        memcpy(t->head, payload, GCS_TAP_HEAD_BYTES);
    } else {
        t->head_size = (uint8_t)size;
        if (size)
            memcpy(t->head, payload, size);
    }
    return t;
}

/* The same for a raw event (its pointer size and IsSorted flag kept). */
static inline void gcs_tap_append(gcs_tap_lane *lane, const void *type, const gcs_raw_event *ev)
{
    gcs_tap_row *t = gcs_tap_put(lane, type, ev->timestamp, ev->tid, ev->pid, ev->payload,
                                 ev->payload_size);
    t->pointer_size = ev->pointer_size;
    t->is_sorted = ev->is_sorted;
}

/* Is a row of this slot counted? `payload` is at its payload, which has
 * `size` bytes. Rows of a GCS_TALLY_STRINGS slot are not: the nettrace
 * counting loops leave them to sink->event (their strings' scan inlined
 * there costs the loops more than it saves); a container that counts
 * them asks gcs_tally_takes_strings. */
static inline bool gcs_tally_takes(const gcs_tally_slot *s, const gcs_cursor *payload,
                                   uint32_t size)
{
    if (s->counted != GCS_TALLY_ZERO_TAIL)
        return s->counted == GCS_TALLY_PLAIN;
    return gcs_cur_string_surely_ends(payload, size, s->zero_before, s->zero_unit, s->zero_after);
}

/* gcs_tally_takes, the rows of GCS_TALLY_STRINGS slots counted too (the
 * netperf reader's). */
static inline bool gcs_tally_takes_strings(const gcs_tally_slot *s, const gcs_cursor *payload,
                                           uint32_t size)
{
    if (s->counted == GCS_TALLY_STRINGS)
        return gcs_cur_strings_end(payload, size, s->zero_before, s->zero_unit, s->zero_strings,
                                   s->zero_after);
    return gcs_tally_takes(s, payload, size);
}

typedef struct gcs_tally {
    gcs_tally_slot *slots; /* by metadata id */
    size_t n_slots;
    uint64_t rows;         /* rows counted in slots */
    uint64_t short_rows;   /* of them, payload shorter than the slot's min_size */
    int64_t first_timestamp, last_timestamp; /* of counted rows, when rows > 0 */
    /* With has_until, a row of a slot marked until_only is counted here
     * only when its timestamp is in [0, until); any other goes to
     * sink->event as if its type were not counted. The reader counts so
     * the rows before a window's start of the types it delivers from there
     * on (gcs_reader_options.from_msec); only a container whose ops have
     * counts_until is given such a tally. */
    bool has_until;
    int64_t until;
} gcs_tally;

/* One thread's entry in a sequence point. */
typedef struct gcs_seq_entry {
    uint64_t capture_tid;
    uint32_t sequence;
} gcs_seq_entry;

typedef struct gcs_sink {
    void *ctx;
    gcs_arena *meta_arena; /* for gcs_meta_def and its fields/strings */
    gcs_status (*trace)(void *ctx, const gcs_trace_info *info, gcs_error *err);
    gcs_status (*metadata)(void *ctx, const gcs_meta_def *def, gcs_error *err);
    gcs_status (*event)(void *ctx, const gcs_raw_event *ev, gcs_error *err);
    /* Every event before it may be sorted and released. entries may be
     * NULL/0 (netperf has none; end of stream). */
    gcs_status (*sequence_point)(void *ctx, int64_t timestamp, const gcs_seq_entry *entries,
                                 size_t n, gcs_error *err);
    /* A block was read (counter). */
    void (*block)(void *ctx);
    /* A StackBlock's stack: its id (valid up to the next sequence point)
     * and its size bytes of instruction pointers (the trace's pointer
     * size each, leaf first), valid during the call. */
    void (*stack)(void *ctx, uint32_t stack_id, const uint8_t *ips, uint32_t size);
    /* Optional (may be NULL), for a sink that only counts events: a
     * container that can counts rows into it instead of calling `event`
     * (see gcs_tally). Their sequence numbers are then reported as runs:
     * sequence_run(capture_tid, first, last) for consecutive numbers of one
     * thread, in file order with the `event` calls. */
    gcs_tally *tally;
    void (*sequence_run)(void *ctx, uint64_t capture_tid, uint32_t first, uint32_t last);
    /* Optional (may be NULL), with tally: where a container that can puts
     * the rows of GCS_TALLY_TAP slots that surely fit (gcs_tap_append),
     * their sequence numbers reported as those of counted rows. */
    gcs_tap_lane *lane;
    /* Optional (may be NULL): a survivable anomaly in the container, e.g.
     * a metadata row whose field description could not be read (the row
     * is still reported, without fields) or an unknown object skipped. */
    void (*anomaly)(void *ctx, uint64_t offset, const char *reason);
    /* Optional (may be NULL): a thread will write no more events; its last
     * sequence number shows events lost at its end (nettrace V6
     * RemoveThread). Not a barrier: nothing is released. */
    void (*thread_end)(void *ctx, uint64_t capture_tid, uint32_t last_sequence);
    /* Optional (may be NULL): the trace names process pid `name` from the
     * next event on (LTTng's procname context), called when the name of a
     * pid changes; the sink copies it. */
    void (*process_name)(void *ctx, uint32_t pid, const char *name);
    /* Optional (may be NULL): n events the tracer says it dropped, which
     * no sequence numbers show (LTTng's events_discarded when its ring
     * buffer was full). Counted with the reader's lost events. */
    void (*events_lost)(void *ctx, uint64_t n);
} gcs_sink;

typedef struct gcs_container gcs_container;

typedef struct gcs_container_ops {
    const char *name;
    /* Reads and reports the next unit. GCS_OK: progress; GCS_END: the end
     * of stream marker was read; GCS_AGAIN: call again later, nothing was
     * consumed of a partial unit; < 0: error (offset, reason). A stream
     * that ends without its end marker is GCS_ERR_TRUNCATED. */
    gcs_status (*step)(gcs_container *c, gcs_error *err);
    void (*destroy)(gcs_container *c);
    /* Honors gcs_tally.has_until: tells each row's time before it counts
     * the row. */
    bool counts_until;
} gcs_container_ops;

/* Common head of every container object. */
struct gcs_container {
    const gcs_container_ops *ops;
    gcs_stream *stream;
    const gcs_sink *sink;
};

/*
 * Looks at the first bytes of the stream and creates the matching
 * container (the magic is consumed). GCS_AGAIN if too few bytes have
 * arrived, GCS_ERR_NOT_TRACE / GCS_ERR_UNSUPPORTED with a clear reason.
 */
gcs_status gcs_container_open(gcs_stream *s, const gcs_sink *sink, gcs_container **out,
                              gcs_error *err);

/* Whether the file at path is a trace this layer opens by itself although
 * it starts with an archive's magic: a zip holding an LTTng CTF folder
 * (perfcollect's .trace.zip), which babeltrace2 reads from an extracted
 * copy. The reader asks before it puts an archive medium in front. */
bool gcs_container_reads_archive(const char *path, const uint8_t *p, size_t n);

/* The format announced by a trace's first n bytes (GCS_FORMAT_UNKNOWN if
 * none, or if n is too short to tell), by gcs_container_open's tests,
 * without opening anything: used to pick the trace among an archive's
 * members. */
gcs_format gcs_container_sniff(const uint8_t *p, size_t n);

/* Constructors, called by gcs_container_open after sniffing. Each takes
 * over after the bytes the sniffer consumed (see container.c). */
gcs_status gcs_nettrace_v5_open(gcs_stream *s, const gcs_sink *sink, gcs_container **out,
                                gcs_error *err);
gcs_status gcs_nettrace_v6_open(gcs_stream *s, const gcs_sink *sink, gcs_container **out,
                                gcs_error *err);
gcs_status gcs_netperf_open(gcs_stream *s, const gcs_sink *sink, gcs_container **out,
                            gcs_error *err);

#endif
