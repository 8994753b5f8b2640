/*
 * gcscope/reader.h - reading EventPipe traces (nettrace, netperf) as a
 * stream of events in timestamp order.
 *
 *   gcs_source *src = gcs_source_open_file(path, &err);
 *   gcs_reader *r = gcs_reader_new(src, NULL, &err);
 *   const gcs_event *ev;
 *   while ((st = gcs_reader_next(r, &ev, &err)) == GCS_OK) { ... }
 *   // st == GCS_END: done; GCS_AGAIN: live source has no data yet;
 *   // st < 0: err says what and where; events before it were delivered.
 *
 * Memory stays bounded by the events between two sequence points of the
 * trace, whatever the file size.
 */
#ifndef GCSCOPE_READER_H
#define GCSCOPE_READER_H

#include "gcscope/core.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum gcs_format {
    GCS_FORMAT_UNKNOWN = 0,
    GCS_FORMAT_NETTRACE = 1, /* "Nettrace" magic, versions 4, 5, 6 */
    GCS_FORMAT_NETPERF = 2,  /* "!FastSerialization.1", versions 1..3 */
    GCS_FORMAT_ETL = 3,      /* Windows ETW log file */
    GCS_FORMAT_CTF = 4,      /* LTTng trace (CTF 1.8): a folder, or perfcollect's .trace.zip */
    GCS_FORMAT_PROFILE = 5   /* gcscope's profiler stream (docs/format-profile.md) */
} gcs_format;

/* Name of a format ("nettrace", "netperf"). */
const char *gcs_format_name(gcs_format format);

/* The format a file's first n bytes announce: nettrace, netperf or ETL
 * (GCS_FORMAT_UNKNOWN otherwise, or when n is too short to tell;
 * GCS_FORMAT_SNIFF_BYTES always suffice), by the tests gcs_reader_new's
 * reader makes, without opening anything. Folders (CTF) and archives are
 * not recognised here. */
#define GCS_FORMAT_SNIFF_BYTES 80
gcs_format gcs_format_sniff(const void *head, size_t n);

/* What the trace says about itself (its header). */
typedef struct gcs_trace_info {
    gcs_format format;
    uint32_t format_version;  /* nettrace 4..6, netperf 1..3, etl: the logfile header's Version */
    uint32_t format_minor;    /* nettrace 6 minor version, else 0 */
    uint32_t pointer_size;    /* 4 or 8 */
    uint32_t pid;             /* process traced (0 if the trace does not say) */
    uint32_t cpu_count;       /* 0 if unknown */
    int64_t clock_frequency;  /* ticks per second */
    int64_t start_ticks;      /* timestamp of the trace start (SyncTimeQPC) */
    /* Trace start in UTC, as written (SyncTimeUTC). */
    int start_year, start_month, start_day, start_hour, start_minute, start_second,
        start_millisecond;
    int64_t expected_cpu_sampling_rate; /* 0 if absent */
} gcs_trace_info;

/* Scalar kinds of payload fields. */
typedef enum gcs_type {
    GCS_T_NONE = 0,
    GCS_T_BOOL8, GCS_T_BOOL32, GCS_T_CHAR16,
    GCS_T_I8, GCS_T_U8, GCS_T_I16, GCS_T_U16, GCS_T_I32, GCS_T_U32,
    GCS_T_I64, GCS_T_U64, GCS_T_F32, GCS_T_F64,
    GCS_T_POINTER,      /* pointer_size bytes, unsigned */
    GCS_T_GUID,         /* 16 bytes */
    GCS_T_UTF16Z,       /* UTF-16LE, 0x0000-terminated */
    GCS_T_ANSIZ,        /* bytes, 0x00-terminated */
    GCS_T_UTF8,         /* varuint32 length then UTF-8 (nettrace V6 only) */
    GCS_T_DATETIME,     /* 8-byte FILETIME */
    GCS_T_BINARY,       /* raw bytes; length from array rule */
    GCS_T_STRUCT,       /* children describe the element */
    GCS_T_VARINT,       /* zigzag varint64 (nettrace V6 VarInt) */
    GCS_T_VARUINT,      /* varuint64 (nettrace V6 VarUInt) */
    GCS_T_CHAR8,        /* one UTF-8 code unit (nettrace V6 UTF8CodeUnit) */
    GCS_T_SID,          /* Windows security id as ETW kernel Process events hold it:
                           4 zero bytes (none), or a TOKEN_USER (2 pointers) then
                           the SID (8 bytes + 4 a sub-authority); text "S-1-5-18" */
    GCS_T_IPV4,         /* 4 bytes in network order; text "10.128.0.55", u the
                           address as a big-endian number */
    GCS_T_IPV6,         /* 16 bytes in network order; text as .NET's IPAddress
                           shows it ("2001:4898:e0:81::1", "::ffff:10.0.0.1") */
    GCS_T_PORT,         /* 16-bit big-endian (network order) integer: port 445 */
    GCS_T_UTF16_FIXED   /* UTF-16LE in exactly n code units, n from the repeat
                           rule (GCS_REPEAT_FIXED); text up to the first 0x0000 */
} gcs_type;

/* How many times a field repeats. */
typedef enum gcs_repeat {
    GCS_REPEAT_ONE = 0,       /* a single value */
    GCS_REPEAT_FIXED,         /* exactly repeat_arg elements */
    GCS_REPEAT_COUNT_FIELD,   /* count is the value of sibling field #repeat_arg */
    GCS_REPEAT_U16_PREFIX,    /* a uint16 element count precedes the elements */
    GCS_REPEAT_VARUINT_PREFIX, /* a varuint32 count precedes the elements */
    /* nettrace V6 RelLoc / DataLoc: a uint32 whose high 16 bits are the byte
     * size and low 16 bits the byte position of fixed-size elements, relative
     * to the end of this uint32 (RELLOC) or to the payload start (DATALOC). */
    GCS_REPEAT_RELLOC,
    GCS_REPEAT_DATALOC
} gcs_repeat;

/* One field of a payload schema. */
typedef struct gcs_field {
    const char *name;               /* UTF-8 */
    gcs_type type;
    gcs_repeat repeat;
    uint32_t repeat_arg;
    const struct gcs_field *children; /* for GCS_T_STRUCT */
    uint32_t child_count;
    const char *map_name;           /* value/bit map for display, or NULL */
    bool hex;                       /* display in hexadecimal */
} gcs_field;

/* One kind of event (one metadata row of the trace). */
typedef struct gcs_event_type {
    uint32_t metadata_id;
    const char *provider;     /* UTF-8 provider name */
    uint32_t event_id;
    uint32_t version;
    uint64_t keywords;
    uint32_t level;
    uint32_t opcode;          /* 0 if the trace does not say */
    const char *name;         /* display name: "GC/Start" (TraceEvent's naming) */
    const gcs_field *fields;  /* payload schema: from the trace, or built in */
    uint32_t field_count;
    bool schema_from_trace;   /* false: the built-in manifest table (or none) */
    bool known;               /* false: no name and no schema could be found */
    uint64_t count;           /* events of this type read so far (delivered by
                                 gcs_reader_next or counted by gcs_reader_scan) */
    uint32_t index;           /* its place in gcs_reader_event_type's list, so that
                                 a caller can keep per-type answers in an array
                                 (UINT32_MAX: events whose metadata could not be
                                 kept, listed nowhere) */
} gcs_event_type;

/* One event, valid until the next gcs_reader_next call. */
typedef struct gcs_event {
    const gcs_event_type *type;
    int64_t timestamp;        /* ticks */
    double msec;              /* ms since trace start (TraceEvent's MSec) */
    uint32_t pid;
    uint64_t tid;             /* OS thread id */
    uint64_t capture_tid;     /* thread that wrote the event */
    uint32_t processor;
    uint32_t sequence;        /* per capture thread, 0 if none */
    uint32_t stack_id;        /* 0 = no stack; with gcs_reader_options.stacks, the
                                 stack's id for gcs_reader_stack (else the id the
                                 container gives, valid only between two of its
                                 sequence points) */
    uint8_t activity_id[16];
    uint8_t related_activity_id[16];
    const uint8_t *payload;
    uint32_t payload_size;
    uint32_t pointer_size;    /* 4 or 8: the writer's (a 32-bit process in a 64-bit
                                 ETW log: 4), usually the trace's */
    const char *process_name; /* the name the trace gives pid with each event
                                 (LTTng's procname context), NULL when it gives
                                 none; valid until the next event, as payload */
} gcs_event;

/* Counters of what was read and of survivable problems. */
typedef struct gcs_reader_stats {
    uint64_t bytes_read;
    uint64_t blocks;
    uint64_t events;              /* events read: delivered, or counted only
                                     (see skipped_events) */
    uint64_t skipped_events;      /* of them, counted but not delivered:
                                     refused by options.want, or scanned */
    uint64_t lost_events;         /* gaps in per-thread sequence numbers */
    uint64_t unknown_events;      /* no name or schema known */
    uint64_t undecodable_events;  /* payload does not fit its schema */
    uint64_t sequence_points;
    uint64_t stacks;              /* stacks read (StackBlock entries) */
    uint64_t stacks_distinct;     /* with options.stacks: distinct stacks kept */
    uint64_t stacks_dropped;      /* with options.stacks: events whose stack could
                                     not be kept or was never given */
    uint64_t metadata;
    uint64_t sort_overflows;      /* sort window full: order not guaranteed */
    uint64_t idle_releases;       /* gcs_reader_release_pending calls that released */
    uint64_t anomalies;           /* survivable container problems (an unusable
                                     field description, a skipped object) */
    uint64_t first_anomaly_offset;
    char first_anomaly[160];      /* reason of the first one, "" if none */
    /* Earliest and latest event read (0 if none): the first and the last
     * delivered, or skipped ones when earlier or later. */
    int64_t first_timestamp;
    int64_t last_timestamp;
} gcs_reader_stats;

/* Payload bytes a tapped event comes with (options.tap). */
#define GCS_TAP_HEAD_BYTES 24

/* An event of a tapped type, handed to options.on_tap; valid during the
 * call. */
typedef struct gcs_tap_event {
    const gcs_event_type *type;
    int64_t timestamp;        /* ticks */
    double msec;              /* as gcs_event's */
    uint32_t pid;
    uint64_t tid;
    const uint8_t *head;      /* the payload's first head_size bytes */
    uint32_t head_size;       /* min(payload_size, GCS_TAP_HEAD_BYTES) */
    uint32_t payload_size;    /* the whole payload's */
    uint32_t pointer_size;    /* as in gcs_event */
    const char *process_name; /* as in gcs_event (NULL: the trace gives none);
                                 valid during the call */
} gcs_tap_event;

typedef struct gcs_reader_options {
    /* Cap on the bytes of events buffered for sorting (0: default 256 MiB). */
    size_t sort_window_bytes;
    /* Which events to deliver (NULL: all). Asked once per event type, with
     * want_ctx. Events of refused types are counted (stats, type counts,
     * lost events) but neither sorted nor delivered, which is much faster
     * when they are most of the trace (e.g. gcs_gc_wants for GC analysis
     * of a trace full of handle or allocation events). */
    bool (*want)(void *want_ctx, const gcs_event_type *type);
    void *want_ctx;
    /* Optional: types (among the wanted ones) whose events the caller only
     * folds, in time order, into running figures, from the first
     * GCS_TAP_HEAD_BYTES bytes of their payloads (GC analysis: the
     * AllocationTick amounts). Asked once per type, with tap_ctx. Events
     * of tapped types never come from gcs_reader_next: gcs_reader_next
     * hands them to on_tap(tap_ctx, ev) itself, each just before the
     * event it would have come before, so that the caller sees exactly
     * the order it would have had. They are counted as delivered. Cheaper
     * than delivering: buffered apart from the other events, 64 bytes
     * each, without their activity ids. on_tap must not call the reader
     * (it is called from inside gcs_reader_next). */
    bool (*tap)(void *tap_ctx, const gcs_event_type *type);
    void (*on_tap)(void *tap_ctx, const gcs_tap_event *ev);
    void *tap_ctx;
    /* has_from_msec: deliver (and tap) only the events at or after
     * from_msec ms from the trace start (gcs_event.msec >= from_msec); the
     * earlier ones are counted as refused types' are, so the counters and
     * type counts stay those of a full read. A window late in a long trace
     * then costs what counting its beginning costs, not sorting it. */
    bool has_from_msec;
    double from_msec;
    /* Input that is a zip or tar archive: the member to read, by its path
     * in the archive or its file name (NULL: the first member that is a
     * trace). The caller keeps the string alive as long as the reader. */
    const char *archive_member;
    /* Keep call stacks: nettrace StackBlocks and netperf's stacks inside
     * events (other containers give none), each distinct stack once. A
     * delivered event's stack_id then names its stack for the whole read
     * (gcs_reader_stack). Memory is that of the distinct stacks (capped;
     * events past the cap get no stack, counted in stacks_dropped).
     * Tapped events carry no stack. */
    bool stacks;
} gcs_reader_options;

typedef struct gcs_reader gcs_reader;

/* Creates a reader over src (the reader does not own src). The header is
 * read lazily by the first gcs_reader_next. NULL on failure. */
gcs_reader *gcs_reader_new(gcs_source *src, const gcs_reader_options *opts, gcs_error *err);

/* The frames (instruction pointers, leaf first) of stack_id, an event's
 * stack_id when options.stacks is set; valid until gcs_reader_free.
 * False (nothing set) for 0 or an id the reader did not give. */
bool gcs_reader_stack(const gcs_reader *r, uint32_t stack_id, const uint64_t **ips, size_t *n);

/* Next event in timestamp order. GCS_OK: *ev is set. GCS_END: finished.
 * GCS_AGAIN: the source has no data yet. < 0: error in err; the reader
 * stays in the error state. */
gcs_status gcs_reader_next(gcs_reader *r, const gcs_event **ev, gcs_error *err);

/*
 * Reads the rest of the trace without delivering its events, for summaries
 * that need no order (`gcscope info`). Afterwards the counters
 * (gcs_reader_get_stats) and every type's count are what reading each
 * event with gcs_reader_next would have given; first_timestamp and
 * last_timestamp are then the earliest and the latest event's (the same
 * whenever the events come out in timestamp order, which a corrupt
 * timestamp or a sort window overflow can break). Events are neither sorted nor built
 * one by one, which makes this several times faster than a
 * gcs_reader_next loop. Events gcs_reader_next had buffered are counted
 * first. Returns GCS_END at the end of the trace, GCS_AGAIN when a live
 * source has no data yet (call again), or an error (err says what and
 * where; the counters cover everything before it). Once called, the
 * reader only scans: gcs_reader_next then answers GCS_ERR_ARG.
 */
gcs_status gcs_reader_scan(gcs_reader *r, gcs_error *err);

/*
 * Releases every buffered event now instead of waiting for the trace's next
 * sequence point or IsSorted mark. For a live source that has said
 * GCS_AGAIN for longer than the writer's flush period (the runtime writes
 * its buffers every 100 ms): by then no older event can still be on its
 * way, and waiting would hold the last events back until the process
 * writes again. Call it after gcs_reader_next returned GCS_AGAIN.
 */
void gcs_reader_release_pending(gcs_reader *r);

/* A timestamp as ms since the trace start (what gcs_event.msec holds);
 * 0 until the header has been read. */
double gcs_reader_msec(const gcs_reader *r, int64_t timestamp);

/*
 * Zipped and compressed traces: when the input starts with the magic of a
 * zip, gzip, xz, zstd or bzip2 file, the reader reads the trace inside it
 * through libarchive, streaming (nothing is unpacked to disk). From a zip
 * (or a compressed tar) it reads the first member whose first bytes are a
 * trace (or options.archive_member). Offsets in errors and counters are
 * then within the member; archive damage (bad CRC, cut archive) is
 * GCS_ERR_CORRUPT or GCS_ERR_TRUNCATED naming the member.
 *
 * Says whether the trace came from an archive: true with *kind ("zip",
 * "gzip", ...) and *member (the member's path, "" for a compressed single
 * file), valid for the reader's life; either pointer may be NULL. False
 * for a plain trace, and until the first gcs_reader_next or
 * gcs_reader_scan has looked at the input.
 */
bool gcs_reader_archive(const gcs_reader *r, const char **kind, const char **member);

/* Header facts; NULL until the header has been read. */
const gcs_trace_info *gcs_reader_info(const gcs_reader *r);

/* Counters so far. */
const gcs_reader_stats *gcs_reader_get_stats(const gcs_reader *r);

/* Iterates over the event types seen so far, in arrival order (index from
 * 0; a metadata id defined again appears once per definition). NULL past
 * the end. */
const gcs_event_type *gcs_reader_event_type(const gcs_reader *r, uint32_t index);

void gcs_reader_free(gcs_reader *r);

/*
 * Deletes the temporary files every reader of this process holds (an
 * LTTng .trace.zip is extracted into $TMPDIR/gcscope-ctf-<pid>-XXXXXX and
 * deleted by gcs_reader_free). Async-signal-safe: for a SIGINT/SIGTERM
 * handler, before the process dies; the readers must not be used after.
 * (Folders left by a process killed otherwise are deleted by a later
 * process that opens a zip: their pid is gone.)
 */
void gcs_remove_temporary_files(void);

#ifdef __cplusplus
}
#endif
#endif
