/*
 * format/ctf/ctf_decode.c - CTF fields from packet bytes (ctf_decode.h).
 *
 * Integers follow CTF 1.8 section 4.1.5: a little-endian field takes its
 * bits from the least significant bit of each byte up, a big-endian one
 * from the most significant down. Aligned little-endian fields of whole
 * bytes (nearly all of LTTng's) are read with one load.
 */
#include "format/ctf/ctf_decode.h"

#include <string.h>

#include "format/ctf/ctf.h"

/* The bits of an unaligned or big-endian integer, byte by byte. */
static uint64_t read_bits(const uint8_t *data, uint64_t pos, uint32_t size, bool big)
{
    uint64_t v = 0;
    uint32_t left = size, shift = 0;
    while (left > 0) {
        uint8_t byte = data[pos >> 3];
        uint32_t in_byte = (uint32_t)(pos & 7), room = 8 - in_byte;
        uint32_t take = left < room ? left : room;
        uint64_t mask = ((uint64_t)1 << take) - 1;
        if (big) {
            v = (v << take) | ((uint64_t)(byte >> (room - take)) & mask);
        } else {
            v |= ((uint64_t)(byte >> in_byte) & mask) << shift;
            shift += take;
        }
        pos += take;
        left -= take;
    }
    return v;
}

/* An integer (or a float's bits) of type t at d->pos, sign-extended. */
static gcs_status read_int(ctf_decoder *d, const ctf_type *t, bool moves_clock, uint64_t *out)
{
    if (!ctf_align(d, t->align) || t->size > d->end - d->pos)
        return GCS_ERR_TRUNCATED;
    bool big = t->byte_order == CTF_BO_BE || (t->byte_order == CTF_BO_NATIVE && d->meta->big_endian);
    uint64_t v;
    const uint8_t *p = d->data + (d->pos >> 3);
    if (!big && (d->pos & 7) == 0 && (t->size == 8 || t->size == 16 || t->size == 32 ||
                                      t->size == 64))
        v = ctf_le_bytes(p, t->size / 8); /* whole little-endian bytes: one load */
    else
        v = read_bits(d->data, d->pos, t->size, big);
    d->pos += t->size;
    if (t->is_signed)
        v = ctf_sign_extend(v, t->size);
    if (t->clock >= 0 && moves_clock)
        ctf_move_clock(d, t->clock, v, t->size, d->pos - t->size);
    *out = v;
    return GCS_OK;
}

static gcs_status put_le(gcs_buf *out, uint64_t v, uint32_t bits)
{
    if (!out)
        return GCS_OK;
    uint8_t tmp[8];
    unsigned bytes = (bits + 7) / 8;
    for (unsigned i = 0; i < bytes; i++)
        tmp[i] = (uint8_t)(v >> (8 * i));
    return gcs_buf_append(out, tmp, bytes);
}

/* A string's bytes (UTF-8) as UTF-16 with a terminator (out may be NULL). */
static gcs_status put_text(gcs_buf *out, const uint8_t *s, size_t n)
{
    return out ? gcs_ctf_append_utf16z(out, s, n) : GCS_OK;
}

/* An array or sequence of n elements. Arrays of text bytes are strings. */
static gcs_status read_elements(ctf_decoder *d, const ctf_type *t, uint64_t n, gcs_buf *out)
{
    const ctf_type *e = t->elem;
    if (!ctf_align(d, t->align))
        return GCS_ERR_TRUNCATED;
    bool bytes = e->kind == CTF_INT && e->size == 8 && (e->align & 7) == 0;
    if (bytes) {
        if (n > (d->end - d->pos) / 8)
            return GCS_ERR_TRUNCATED;
        const uint8_t *p = d->data + (d->pos >> 3);
        d->pos += 8 * n;
        d->span = p;
        d->span_len = (size_t)n;
        if (e->is_text) {
            const uint8_t *nul = memchr(p, 0, (size_t)n);
            d->text = p;
            d->text_len = nul ? (size_t)(nul - p) : (size_t)n;
            return put_text(out, p, d->text_len);
        }
        return out ? gcs_buf_append(out, p, (size_t)n) : GCS_OK;
    }
    /* Every element takes a bit at least (strings 8): a length past the
     * bits left is corrupt, whatever the elements. */
    if (n > d->end - d->pos)
        return GCS_ERR_TRUNCATED;
    for (uint64_t i = 0; i < n; i++) {
        gcs_status st = ctf_read(d, e, out);
        if (st != GCS_OK)
            return st;
    }
    return GCS_OK;
}

gcs_status ctf_read_member(ctf_decoder *d, const ctf_member *m, gcs_buf *out)
{
    const ctf_type *t = m->type;
    if (t->kind != CTF_INT)
        return ctf_read(d, t, out);
    uint64_t v;
    gcs_status st = read_int(d, t, !m->leaves_clock, &v);
    if (st != GCS_OK)
        return st;
    if (m->reg >= 0)
        d->regs[m->reg] = v;
    if (m->role_reg >= 0)
        d->regs[m->role_reg] = v;
    return put_le(out, v, t->size);
}

gcs_status ctf_read(ctf_decoder *d, const ctf_type *t, gcs_buf *out)
{
    gcs_status st;
    if (++d->steps > d->max_steps && d->max_steps) {
        d->too_many_steps = true;
        return GCS_ERR_LIMIT;
    }
    switch (t->kind) {
    case CTF_INT:
    case CTF_FLOAT: {
        uint64_t v;
        if ((st = read_int(d, t, true, &v)) != GCS_OK)
            return st;
        return put_le(out, v, t->size);
    }
    case CTF_STRING: {
        if (!ctf_align(d, 8))
            return GCS_ERR_TRUNCATED;
        const uint8_t *p = d->data + (d->pos >> 3);
        size_t left = (size_t)((d->end - d->pos) / 8);
        const uint8_t *nul = memchr(p, 0, left);
        if (!nul)
            return GCS_ERR_CORRUPT;
        d->text = p;
        d->text_len = (size_t)(nul - p);
        d->pos += 8 * (d->text_len + 1);
        return put_text(out, p, d->text_len);
    }
    case CTF_STRUCT:
        if (!ctf_align(d, t->align))
            return GCS_ERR_TRUNCATED;
        for (uint32_t i = 0; i < t->n_members; i++)
            if ((st = ctf_read_member(d, &t->members[i], out)) != GCS_OK)
                return st;
        return GCS_OK;
    case CTF_VARIANT: {
        uint64_t tag = t->tag_reg >= 0 ? d->regs[t->tag_reg] : 0;
        int32_t option = -1;
        for (uint32_t r = 0; t->tag && r < t->tag->n_ranges && option < 0; r++) {
            const ctf_range *g = &t->tag->ranges[r];
            bool in = t->tag->is_signed ? (int64_t)g->lo <= (int64_t)tag && (int64_t)tag <= (int64_t)g->hi
                                        : g->lo <= tag && tag <= g->hi;
            if (in)
                option = t->option_of_range[r];
        }
        if (option < 0)
            return GCS_ERR_CORRUPT;
        if (out)
            d->unsupported = true;
        return ctf_read_member(d, &t->members[option], NULL);
    }
    case CTF_ARRAY:
        return read_elements(d, t, t->length, out);
    case CTF_SEQUENCE:
        return read_elements(d, t, d->regs[t->length_reg], out);
    }
    return GCS_ERR_CORRUPT;
}
