/*
 * format/ctf/ctf_decode.h - reads CTF fields from a packet's bytes by the
 * layouts of ctf_tsdl.h, bit by bit where the layout says so.
 *
 * The packet is hostile: every field is checked against the bits left
 * (`size > end - pos`), sequence lengths against the bits they need,
 * strings must end inside the packet's content.
 *
 * Output (optional) is the runtime's manifest layout, as TraceEvent's
 * CtfTraceEventSource and our babeltrace2 path rebuild it: integers and
 * enums little-endian in ceil(size / 8) bytes, floats as their IEEE bytes,
 * strings (and arrays of text bytes, up to their first NUL) as UTF-16LE
 * with a terminator, structs and arrays as their members in order. A
 * variant has no such layout: reading one into an output sets
 * `unsupported` (the caller drops the payload and counts it).
 */
#ifndef GCS_FORMAT_CTF_DECODE_H
#define GCS_FORMAT_CTF_DECODE_H

#include "format/ctf/ctf_tsdl.h"

typedef struct ctf_decoder {
    const ctf_meta *meta;
    uint64_t *regs;        /* meta->n_regs values */
    const uint8_t *data;   /* the packet's bytes */
    uint64_t pos, end;     /* in bits from data */
    uint64_t clock;        /* the stream's clock, rebuilt from its low bits */
    int32_t clock_index;   /* the clock the last mapped field named, or -1 */
    uint64_t clock_at;     /* bit position of the last field that moved the clock */
    uint32_t clock_bits;   /* and its size (tools that shift a trace in time) */
    bool unsupported;      /* a variant was read into an output */
    const uint8_t *text;   /* the last string or text array read */
    size_t text_len;       /* its bytes before the NUL */
    const uint8_t *span;   /* the last array of bytes read (text or not) */
    size_t span_len;
    /* ctf_read calls so far and the most allowed (0: no limit). Types of
     * no bits (empty structs) nest through typealiases into trees of
     * 2^depth nodes that read nothing: the caller bounds the work by the
     * bits it has (ctf_native.c: per packet). Past it: GCS_ERR_LIMIT and
     * too_many_steps. */
    uint64_t steps, max_steps;
    bool too_many_steps;
} ctf_decoder;

/* Reads a field of type t at d->pos, appending it to out (NULL: only
 * skipped). GCS_ERR_TRUNCATED when the field runs past d->end,
 * GCS_ERR_CORRUPT for a variant tag that selects nothing or a string
 * without its NUL, GCS_ERR_LIMIT/NOMEM from out, GCS_ERR_LIMIT past
 * d->max_steps. */
gcs_status ctf_read(ctf_decoder *d, const ctf_type *t, gcs_buf *out);


/* The same for member m of a struct: writes its registers. */
gcs_status ctf_read_member(ctf_decoder *d, const ctf_member *m, gcs_buf *out);

/* The n (1 to 8) little-endian bytes at p as an integer: one load for 1, 2,
 * 4 and 8 (the caller checked the bounds). */
static inline uint64_t ctf_le_bytes(const uint8_t *p, unsigned n)
{
    switch (n) {
    case 1: return p[0];
    case 2: return (uint64_t)p[0] | (uint64_t)p[1] << 8;
    case 4: return (uint64_t)p[0] | (uint64_t)p[1] << 8 | (uint64_t)p[2] << 16 | (uint64_t)p[3] << 24;
    case 8:
        return (uint64_t)p[0] | (uint64_t)p[1] << 8 | (uint64_t)p[2] << 16 | (uint64_t)p[3] << 24 |
               (uint64_t)p[4] << 32 | (uint64_t)p[5] << 40 | (uint64_t)p[6] << 48 |
               (uint64_t)p[7] << 56;
    default: {
        uint64_t v = 0;
        for (unsigned i = 0; i < n; i++)
            v |= (uint64_t)p[i] << (8 * i);
        return v;
    }
    }
}

/* v's low `bits` bits (1 to 64) as a signed value, sign-extended. */
static inline uint64_t ctf_sign_extend(uint64_t v, uint32_t bits)
{
    if (bits < 64 && (v >> (bits - 1)) & 1)
        v |= ~(uint64_t)0 << bits;
    return v;
}

/* Moves d->pos to a multiple of align bits; false past the end. */
static inline bool ctf_align(ctf_decoder *d, uint32_t align)
{
    uint64_t p = (d->pos + align - 1) & ~(uint64_t)(align - 1);
    if (p > d->end)
        return false;
    d->pos = p;
    return true;
}

/* The clock value `clock` becomes when its low bits (mask: of fewer than
 * 64 bits) are read as `low`: it wrapped when they went down. */
static inline uint64_t ctf_clock_low(uint64_t clock, uint64_t low, uint64_t mask)
{
    uint64_t base = clock & ~mask;
    if (low < (clock & mask))
        base += mask + 1;
    return base | low;
}

/* A field of `bits` bits mapped to clock `clock`, read at bit `at`, says
 * the clock's low bits are v (ctf_clock_low). */
static inline void ctf_move_clock(ctf_decoder *d, int32_t clock, uint64_t v, uint32_t bits,
                                  uint64_t at)
{
    if (bits >= 64) {
        d->clock = v;
    } else {
        uint64_t mask = ((uint64_t)1 << bits) - 1;
        d->clock = ctf_clock_low(d->clock, v & mask, mask);
    }
    d->clock_index = clock;
    d->clock_at = at;
    d->clock_bits = bits;
}

/* Reads one of LTTng's event headers (kind, its timestamps on clock
 * `clock`) as ctf_read would, without walking the layout: the event id
 * into *id, the clock moved. In line: the container reads one an event. */
static inline __attribute__((always_inline)) gcs_status
ctf_read_lttng_header_of(ctf_decoder *d, ctf_lttng_header kind, int32_t clock, uint64_t *id)
{
    if (!ctf_align(d, 8))
        return GCS_ERR_TRUNCATED;
    uint64_t left = (d->end - d->pos) / 8, at = d->pos;
    const uint8_t *p = d->data + (at >> 3);
    /* compact: a 5-bit id and a 27-bit timestamp in one little-endian
     * word; large: a 16-bit id, then a 32-bit timestamp. The id's largest
     * value says "extended": then (byte-aligned) a 32-bit id and a 64-bit
     * timestamp. */
    bool compact = kind == CTF_LTTNG_HEADER_COMPACT;
    unsigned short_bytes = compact ? 4 : 6, ext_at = compact ? 1 : 2;
    if (left < short_bytes)
        return GCS_ERR_TRUNCATED;
    uint64_t w = ctf_le_bytes(p, compact ? 4 : 2);
    uint64_t small = compact ? (w & 31) : w;
    if (small != (compact ? 31u : 65535u)) {
        *id = small;
        d->pos += 8 * short_bytes;
        ctf_move_clock(d, clock, compact ? w >> 5 : ctf_le_bytes(p + 2, 4), compact ? 27 : 32,
                       at + (compact ? 5 : 16));
        return GCS_OK;
    }
    if (left < ext_at + 12)
        return GCS_ERR_TRUNCATED;
    *id = ctf_le_bytes(p + ext_at, 4);
    d->pos += 8 * (ext_at + 12);
    ctf_move_clock(d, clock, ctf_le_bytes(p + ext_at + 4, 8), 64, at + 8 * (ext_at + 4));
    return GCS_OK;
}

/* ctf_read_lttng_header_of with the kind a constant in each branch: its
 * tests on the kind and its sizes folded. */
static inline gcs_status ctf_read_lttng_header(ctf_decoder *d, ctf_lttng_header kind,
                                               int32_t clock, uint64_t *id)
{
    if (kind == CTF_LTTNG_HEADER_LARGE)
        return ctf_read_lttng_header_of(d, CTF_LTTNG_HEADER_LARGE, clock, id);
    return ctf_read_lttng_header_of(d, CTF_LTTNG_HEADER_COMPACT, clock, id);
}

#endif
