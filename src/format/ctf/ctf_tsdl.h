/*
 * format/ctf/ctf_tsdl.h - the CTF 1.8 metadata (TSDL) of an LTTng trace,
 * parsed into field layouts the stream reader (ctf_stream.c) walks.
 *
 * The subset is what lttng-ust and lttng-modules write (docs/format-ctf.md,
 * "Our own reader"): typealias/typedef, integer (size, align, signed,
 * byte_order, encoding, map = clock.NAME.value), floating_point, string,
 * enum over an integer, struct (named or not, align(n)), variant with a
 * tag, fixed arrays and sequences whose length is an earlier field, and the
 * trace, clock, stream and event blocks (env and callsite are skipped).
 * Anything else is GCS_ERR_UNSUPPORTED, so the caller can hand the trace
 * to babeltrace2 instead; so are layouts our reader would take unbounded
 * time over (docs/fuzzing.md, findings 9-21): arrays and sequences of
 * elements that may take no bits, and event headers of over 65536 member
 * visits when searched for their id fields.
 *
 * Field names lose one leading underscore (CTF 1.8 section 4.1.6: LTTng
 * writes "_vpid" for "vpid"), as babeltrace2 shows them.
 *
 * The text is hostile: every token is bounded by the text, nesting by
 * CTF_TSDL_MAX_NESTING, and every count by a named limit below.
 */
#ifndef GCS_FORMAT_CTF_TSDL_H
#define GCS_FORMAT_CTF_TSDL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/buf.h"
#include "base/error.h"

#define CTF_TSDL_MAX_NESTING 32u     /* types inside types */
#define CTF_TSDL_MAX_MEMBERS 65536u  /* members of one struct or variant */
#define CTF_TSDL_MAX_RANGES 65536u   /* labels of one enum */
#define CTF_TSDL_MAX_EVENTS 1048576u /* event classes */
#define CTF_TSDL_MAX_STREAMS 1024u   /* stream classes */
#define CTF_TSDL_MAX_REGS 65536u     /* fields other fields refer to */
#define CTF_TSDL_MAX_CLOCKS 16u
#define CTF_TSDL_MAX_ARRAY 16777216u /* elements of a fixed array */
#define CTF_TSDL_MAX_EVENT_ID 1048575u

typedef enum ctf_kind {
    CTF_INT, /* integers and enums */
    CTF_FLOAT,
    CTF_STRING,
    CTF_STRUCT,
    CTF_VARIANT,
    CTF_ARRAY,
    CTF_SEQUENCE
} ctf_kind;

typedef enum ctf_byte_order { CTF_BO_NATIVE, CTF_BO_LE, CTF_BO_BE } ctf_byte_order;

typedef struct ctf_type ctf_type;

typedef struct ctf_member {
    const char *name;     /* without its leading underscore */
    const ctf_type *type;
    /* Register slots (-1: none) the decoder writes this integer's value
     * to: `reg` for sequences and variants that name it, `role_reg` for
     * what the reader itself needs (event id, packet sizes, vpid, ...). */
    int32_t reg, role_reg;
    /* The packet context's timestamp_end maps to the clock but does not
     * move it (the packet's events come before it). */
    bool leaves_clock;
} ctf_member;

typedef struct ctf_range {
    uint64_t lo, hi; /* as the tag's bits; signed enums compare signed */
    const char *label;
} ctf_range;

struct ctf_type {
    ctf_kind kind;
    uint32_t align; /* in bits, a power of two */
    uint32_t depth; /* types inside it, plus one (bounds the reader's recursion) */
    /* Fixed: whole bytes at byte alignment, nothing inside that is variable
     * or names a register, so skipping it from a byte boundary is adding
     * fixed_bits (is_raw below builds on it). Settled after parsing. */
    bool is_fixed, settled;
    uint64_t fixed_bits;
    /* Fixed and little-endian throughout: its bytes are already the
     * manifest layout ctf_read would rebuild (the reader points at them). */
    bool is_raw;
    uint64_t min_bits; /* the fewest bits it takes (saturated); arrays and
                          sequences need elements of one bit at least */
    /* CTF_INT, CTF_FLOAT (size = exp_dig + mant_dig) */
    uint32_t size;
    bool is_signed;
    bool is_text; /* encoding UTF8/ASCII: arrays of such bytes are strings */
    ctf_byte_order byte_order;
    int32_t clock; /* index of the clock it maps to, or -1 */
    const ctf_range *ranges; /* an enum's labels, or NULL */
    uint32_t n_ranges;
    /* CTF_STRUCT, CTF_VARIANT (the options) */
    const ctf_member *members;
    uint32_t n_members;
    /* CTF_VARIANT: the tag's register and, per label of its enum, the
     * option it selects (-1: none) */
    int32_t tag_reg;
    const ctf_type *tag;
    const int32_t *option_of_range;
    /* CTF_ARRAY (length), CTF_SEQUENCE (length_reg) */
    uint64_t length;
    int32_t length_reg;
    const ctf_type *elem;
};

typedef struct ctf_clock {
    const char *name;
    uint64_t freq;         /* Hz; 1e9 when not given */
    int64_t offset_s;      /* from the epoch */
    uint64_t offset;       /* cycles, beyond offset_s */
} ctf_clock;

typedef struct ctf_event_class {
    uint64_t id, stream_id;
    const char *name;
    const ctf_type *context, *fields; /* may be NULL */
    int32_t blob_member; /* the member "__data__" of fields, or -1 */
    uint32_t index;      /* in ctf_meta.events (a load, not a pointer division) */
} ctf_event_class;

typedef enum ctf_lttng_header {
    CTF_LTTNG_HEADER_NONE,
    CTF_LTTNG_HEADER_COMPACT, /* event_header_compact (the kernel's) */
    CTF_LTTNG_HEADER_LARGE    /* event_header_large (lttng-ust's) */
} ctf_lttng_header;

typedef struct ctf_stream_class {
    uint64_t id;
    const ctf_type *packet_context, *event_header, *event_context; /* may be NULL */
    /* event classes of this stream by id (NULL: none); ids < n_by_id */
    const ctf_event_class **by_id;
    uint32_t n_by_id;
    /* An event header without an "id" field: every event is of the
     * stream's one event class (sole; NULL when it has none or several),
     * whatever that class's id (as babeltrace2 reads it). */
    bool header_has_id;
    const ctf_event_class *sole;
    uint32_t context_roles; /* bit (1 << role): the packet context has it */
    /* The event header is exactly one of LTTng's two (5-bit id + 27-bit
     * timestamp, or 16-bit id + 32-bit timestamp, each with its extended
     * form), little-endian: read without walking its layout. */
    ctf_lttng_header lttng_header;
    int32_t header_clock; /* its timestamps' clock (lttng_header != NONE) */
    int32_t procname_member; /* index in event_context of "procname", or -1 */
    /* The event context at fixed byte offsets (LTTng's vpid, vtid and
     * procname[17]: whole little-endian integers and text arrays, nothing
     * another field refers to): read without walking it. Offsets in
     * bytes from the context's start; -1: absent. */
    bool context_flat;
    uint32_t context_bytes;
    int32_t vpid_at, vtid_at, procname_at;
    uint8_t vpid_bytes, vtid_bytes;
    bool vpid_signed, vtid_signed;
    uint32_t procname_len;
    /* LTTng's flat context: vpid and vtid of 4 bytes each and a procname.
     * Read with their signs as masks (0x80000000 when signed, else 0:
     * (v ^ mask) - mask extends v's sign), so that an event takes no test
     * on them. */
    bool context_lttng;
    uint32_t vpid_sign_mask, vtid_sign_mask;
} ctf_stream_class;

/* The registers the reader reads after decoding a header (role_reg). */
typedef enum ctf_role {
    CTF_ROLE_MAGIC,
    CTF_ROLE_STREAM_ID,
    CTF_ROLE_CONTENT_SIZE,
    CTF_ROLE_PACKET_SIZE,
    CTF_ROLE_EVENTS_DISCARDED,
    CTF_ROLE_CPU_ID,
    CTF_ROLE_EVENT_ID,
    CTF_ROLE_VPID,
    CTF_ROLE_VTID,
    CTF_ROLE_STREAM_INSTANCE_ID, /* the packet header's: babeltrace2's stream id */
    CTF_ROLE_TIMESTAMP_END,      /* the packet context's: the clock after the packet */
    CTF_ROLE_COUNT
} ctf_role;

typedef struct ctf_meta {
    gcs_arena arena;
    bool big_endian;
    bool has_uuid;
    uint8_t uuid[16];
    const ctf_type *packet_header; /* may be NULL */
    uint32_t header_roles; /* bit (1 << role): the packet header has it */
    ctf_clock clocks[CTF_TSDL_MAX_CLOCKS];
    uint32_t n_clocks;
    ctf_stream_class *streams;
    uint32_t n_streams;
    ctf_event_class *events;
    uint32_t n_events;
    uint32_t n_regs; /* registers, the roles' first */
} ctf_meta;

/* Parses the TSDL text (text[0..size), the metadata packets' contents
 * joined) into meta, which the caller frees with ctf_meta_free whatever
 * the result. name says which file in errors; offsets are in the text. */
gcs_status ctf_meta_parse(ctf_meta *meta, const char *text, size_t size, const char *name,
                          gcs_error *err);

void ctf_meta_free(ctf_meta *meta);

/* The stream class with id `id`, or NULL. */
const ctf_stream_class *ctf_meta_stream(const ctf_meta *meta, uint64_t id);

#endif
