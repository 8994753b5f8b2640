/*
 * base/cursor.h - the only code that touches raw input bytes.
 *
 * A cursor walks [p, end) of a buffer whose first byte sits at input offset
 * `origin`. Every read checks the bytes left first (`n > end - p`, never
 * `p + n > end`); a failed read leaves the cursor where it was and returns
 * false, and the caller reports GCS_CORRUPT with gcs_cur_offset().
 * Multi-byte values are little-endian and may be unaligned.
 */
#ifndef GCS_BASE_CURSOR_H
#define GCS_BASE_CURSOR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

typedef struct gcs_cursor {
    const uint8_t *p;
    const uint8_t *end;
    const uint8_t *start;
    uint64_t origin; /* input offset of start */
} gcs_cursor;

static inline gcs_cursor gcs_cur_make(const void *data, size_t size, uint64_t origin)
{
    gcs_cursor c;
    c.start = c.p = (const uint8_t *)data;
    c.end = c.p + size;
    c.origin = origin;
    return c;
}

static inline size_t gcs_cur_left(const gcs_cursor *c) { return (size_t)(c->end - c->p); }
static inline uint64_t gcs_cur_offset(const gcs_cursor *c)
{
    return c->origin + (uint64_t)(c->p - c->start);
}
/* For offsets of many positions in one buffer: offset = base + address
 * (modulo 2^64), the same as gcs_cur_offset at that position. */
static inline uint64_t gcs_cur_offset_base(const gcs_cursor *c)
{
    return c->origin - (uint64_t)(uintptr_t)c->start;
}
static inline uint64_t gcs_cur_offset_at(uint64_t base, const gcs_cursor *c)
{
    return base + (uint64_t)(uintptr_t)c->p;
}
static inline bool gcs_cur_skip(gcs_cursor *c, size_t n)
{
    if (n > (size_t)(c->end - c->p))
        return false;
    c->p += n;
    return true;
}
/* Points *out at the next n bytes and steps over them. */
static inline bool gcs_cur_bytes(gcs_cursor *c, size_t n, const uint8_t **out)
{
    if (n > (size_t)(c->end - c->p))
        return false;
    *out = c->p;
    c->p += n;
    return true;
}
/* A sub-cursor over the next n bytes; steps over them. */
static inline bool gcs_cur_sub(gcs_cursor *c, size_t n, gcs_cursor *sub)
{
    if (n > (size_t)(c->end - c->p))
        return false;
    *sub = gcs_cur_make(c->p, n, gcs_cur_offset(c));
    c->p += n;
    return true;
}
static inline bool gcs_cur_u8(gcs_cursor *c, uint8_t *v)
{
    if (c->p >= c->end)
        return false;
    *v = *c->p++;
    return true;
}
static inline bool gcs_cur_u16(gcs_cursor *c, uint16_t *v)
{
    if (2 > c->end - c->p)
        return false;
    *v = (uint16_t)(c->p[0] | (c->p[1] << 8));
    c->p += 2;
    return true;
}
/* Little-endian loads from bytes known to be there: the cursor's reads
 * below, after their check, and loops over fixed-size records whose whole
 * run was checked once (the range arrays of gc_events.c). */
static inline uint32_t gcs_load_le32(const uint8_t *p)
{
    return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) |
           ((uint32_t)p[3] << 24);
}
static inline uint64_t gcs_load_le64(const uint8_t *p)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    /* One load (GCC leaves a byte loop as a loop: 8 loads, 48
     * instructions, for every 64-bit field of every decoder). */
    uint64_t v;
    memcpy(&v, p, 8);
    return v;
#else
    return (uint64_t)gcs_load_le32(p) | ((uint64_t)gcs_load_le32(p + 4) << 32);
#endif
}
static inline bool gcs_cur_u32(gcs_cursor *c, uint32_t *v)
{
    if (4 > c->end - c->p)
        return false;
    *v = gcs_load_le32(c->p);
    c->p += 4;
    return true;
}
static inline bool gcs_cur_u64(gcs_cursor *c, uint64_t *v)
{
    if (8 > c->end - c->p)
        return false;
    *v = gcs_load_le64(c->p);
    c->p += 8;
    return true;
}
/* A hint that the bytes `ahead` past the position will be read soon (a
 * tight loop over rows whose next position depends on the bytes just read
 * would otherwise wait for each cache line). Reads nothing: never faults. */
static inline void gcs_cur_prefetch(const gcs_cursor *c, size_t ahead)
{
#if defined(__GNUC__)
    __builtin_prefetch((const char *)c->p + ahead);
#else
    (void)c;
    (void)ahead;
#endif
}
/* The next 8 bytes as a little-endian value, without stepping over them
 * (a decoder that recognizes a common encoding in one compare). */
static inline bool gcs_cur_peek_u64(const gcs_cursor *c, uint64_t *v)
{
    if (8 > c->end - c->p)
        return false;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    memcpy(v, c->p, 8); /* one load where the host's order is the input's */
#else
    uint64_t x = 0;
    for (int i = 7; i >= 0; i--)
        x = (x << 8) | c->p[i];
    *v = x;
#endif
    return true;
}
/* The 2 bytes `at` bytes past the position, little-endian, without
 * stepping (a loop that checks a byte pair inside a row before taking it). */
static inline bool gcs_cur_peek_u16_at(const gcs_cursor *c, size_t at, uint16_t *v)
{
    if (at > (size_t)(c->end - c->p) || 2 > (size_t)(c->end - c->p) - at)
        return false;
    *v = (uint16_t)(c->p[at] | (unsigned)c->p[at + 1] << 8);
    return true;
}
/* The 8 bytes `at` bytes past the position, as gcs_cur_peek_u64 reads
 * them (a loop that checks a row ahead before stepping to it). */
static inline bool gcs_cur_peek_u64_at(const gcs_cursor *c, size_t at, uint64_t *v)
{
    if (at > (size_t)(c->end - c->p) || 8 > (size_t)(c->end - c->p) - at)
        return false;
    gcs_cursor ahead = *c;
    ahead.p += at;
    return gcs_cur_peek_u64(&ahead, v);
}
static inline bool gcs_cur_i16(gcs_cursor *c, int16_t *v)
{
    uint16_t u;
    if (!gcs_cur_u16(c, &u))
        return false;
    *v = (int16_t)u;
    return true;
}
static inline bool gcs_cur_i32(gcs_cursor *c, int32_t *v)
{
    uint32_t u;
    if (!gcs_cur_u32(c, &u))
        return false;
    *v = (int32_t)u;
    return true;
}
static inline bool gcs_cur_i64(gcs_cursor *c, int64_t *v)
{
    uint64_t u;
    if (!gcs_cur_u64(c, &u))
        return false;
    *v = (int64_t)u;
    return true;
}
/* Unsigned pointer of 4 or 8 bytes, zero-extended. */
static inline bool gcs_cur_ptr(gcs_cursor *c, uint32_t pointer_size, uint64_t *v)
{
    if (pointer_size == 4) {
        uint32_t u;
        if (!gcs_cur_u32(c, &u))
            return false;
        *v = u;
        return true;
    }
    return gcs_cur_u64(c, v);
}
/* LEB128-style varuint (7 bits a byte, high bit = more), at most max_bits
 * (so at most ceil(max_bits / 7) bytes) and never past 64 bits. */
static inline bool gcs_cur_varuint(gcs_cursor *c, unsigned max_bits, uint64_t *v)
{
    const uint8_t *q = c->p;
    size_t left = (size_t)(c->end - q);
    /* One-byte values dominate compressed event headers. */
    if (left > 0 && !(q[0] & 0x80) && max_bits >= 7) {
        *v = q[0];
        c->p = q + 1;
        return true;
    }
    size_t max_bytes = (max_bits + 6) / 7;
    uint64_t x = 0;
    size_t i = 0;
    if (max_bytes <= left) {
        /* Room for the longest encoding: no bounds check per byte. */
        for (; i < max_bytes; i++) {
            uint8_t b = q[i];
            x |= (uint64_t)(b & 0x7f) << (7 * i);
            if (!(b & 0x80))
                goto last;
        }
        return false;
    }
    for (; i < left; i++) {
        uint8_t b = q[i];
        x |= (uint64_t)(b & 0x7f) << (7 * i);
        if (!(b & 0x80))
            goto last;
    }
    return false;
last:
    /* The tenth byte holds bit 63 only; anything more overflows. */
    if (i == 9 && q[9] > 1)
        return false;
    if (max_bits < 64 && (x >> max_bits) != 0)
        return false;
    *v = x;
    c->p = q + i + 1;
    return true;
}
static inline bool gcs_cur_varu32(gcs_cursor *c, uint32_t *v)
{
    uint64_t x;
    if (!gcs_cur_varuint(c, 35, &x) || x > UINT32_MAX)
        return false;
    *v = (uint32_t)x;
    return true;
}
static inline bool gcs_cur_varu64(gcs_cursor *c, uint64_t *v)
{
    return gcs_cur_varuint(c, 70, v);
}
/*
 * The same varuints for callers that made sure at least
 * GCS_CUR_VARUINT_MAX_BYTES bytes are left (e.g. a whole row header):
 * same results and failures, without a bounds check per byte.
 */
#define GCS_CUR_VARUINT_MAX_BYTES 10u
static inline bool gcs_cur_varuint_room(gcs_cursor *c, unsigned max_bits, uint64_t *v)
{
    const uint8_t *q = c->p;
    /* 1 to 3 bytes (up to 21 bits) cover almost every header field. */
    if (max_bits >= 21) {
        uint64_t b0 = q[0];
        if (!(b0 & 0x80)) {
            *v = b0;
            c->p = q + 1;
            return true;
        }
        uint64_t b1 = q[1];
        if (!(b1 & 0x80)) {
            *v = (b0 & 0x7f) | (b1 << 7);
            c->p = q + 2;
            return true;
        }
        uint64_t b2 = q[2];
        if (!(b2 & 0x80)) {
            *v = (b0 & 0x7f) | ((b1 & 0x7f) << 7) | (b2 << 14);
            c->p = q + 3;
            return true;
        }
    }
    size_t max_bytes = (max_bits + 6) / 7;
    uint64_t x = 0;
    for (size_t i = 0; i < max_bytes; i++) {
        uint8_t b = q[i];
        x |= (uint64_t)(b & 0x7f) << (7 * i);
        if (b & 0x80)
            continue;
        if (i == 9 && b > 1)
            return false;
        if (max_bits < 64 && (x >> max_bits) != 0)
            return false;
        *v = x;
        c->p = q + i + 1;
        return true;
    }
    return false;
}
static inline bool gcs_cur_varu32_room(gcs_cursor *c, uint32_t *v)
{
    uint64_t x;
    if (!gcs_cur_varuint_room(c, 35, &x) || x > UINT32_MAX)
        return false;
    *v = (uint32_t)x;
    return true;
}
static inline bool gcs_cur_varu64_room(gcs_cursor *c, uint64_t *v)
{
    return gcs_cur_varuint_room(c, 70, v);
}
/* The value of a varuint of n (1 to 4) bytes already read and checked by
 * the caller (a row encoding that repeats, compared in one mask): its
 * bytes at the low end of x, little-endian; the bits above them are
 * ignored. With n a constant, a few operations. */
static inline uint32_t gcs_varuint_pack(uint64_t x, unsigned n)
{
    uint32_t v = (uint32_t)x & 0x7fu;
    if (n > 1)
        v |= (uint32_t)(x >> 1) & 0x3f80u;
    if (n > 2)
        v |= (uint32_t)(x >> 2) & 0x1fc000u;
    if (n > 3)
        v |= (uint32_t)(x >> 3) & 0xfe00000u;
    return v;
}
/*
 * Steps over a UTF-16LE string terminated by a 0x0000 unit (terminator
 * included), sixteen units at a time where SSE2 is there (every x86-64),
 * else four (gcs_cur_utf16z also says where the string is). Method and
 * type names of rundown and allocation events are tens to hundreds of
 * units: their fit checks are mostly this loop.
 */
static inline bool gcs_cur_skip_utf16z(gcs_cursor *c)
{
    const uint8_t *q = c->p;
#if defined(__SSE2__)
    /* Units compared as 16-bit lanes from the string's start (odd-offset
     * zero byte pairs are not units); the mask has both bits of a zero
     * unit's bytes, its lowest set bit is the first terminator's byte. */
    const __m128i zero = _mm_setzero_si128();
    while (c->end - q >= 32) {
        __m128i a = _mm_loadu_si128((const __m128i *)(const void *)q);
        __m128i b = _mm_loadu_si128((const __m128i *)(const void *)(q + 16));
        uint32_t m = (uint32_t)_mm_movemask_epi8(_mm_cmpeq_epi16(a, zero)) |
                     (uint32_t)_mm_movemask_epi8(_mm_cmpeq_epi16(b, zero)) << 16;
        if (m) {
            c->p = q + __builtin_ctz(m) + 2;
            return true;
        }
        q += 32;
    }
#endif
    /* A word has a zero unit iff (x - 0x0001..) & ~x & 0x8000.. is nonzero
     * (borrows can only mark units above a zero one); then the units of
     * that word are looked at one by one. */
    while (c->end - q >= 8) {
        uint64_t x;
        memcpy(&x, q, 8);
        if ((x - 0x0001000100010001ull) & ~x & 0x8000800080008000ull)
            break;
        q += 8;
    }
    for (;;) {
        if (2 > c->end - q)
            return false;
        if (q[0] == 0 && q[1] == 0)
            break;
        q += 2;
    }
    c->p = q + 2;
    return true;
}

/*
 * The next `size` bytes hold `before` fixed bytes, a string of `unit`-byte
 * units (1 or 2) ended by a zero unit, and `after` fixed bytes: true when
 * the unit just before the trailing fixed bytes, a whole number of units
 * after the leading ones, is zero. The first terminator is then at or
 * before it: the string surely ends inside. False says nothing (a string
 * followed by more bytes needs the scan). AllocationTick and every event
 * that names a type or a method are of this shape; the container's
 * counting and the reader's fit check both ask it per event.
 */
static inline bool gcs_cur_string_surely_ends(const gcs_cursor *c, uint32_t size, uint32_t before,
                                              uint32_t unit, uint32_t after)
{
    if (unit == 0 || size > gcs_cur_left(c) || (uint64_t)before + unit + after > size)
        return false;
    uint32_t last = size - after - unit;
    /* unit is 1 or 2: a whole number of units is an even offset for 2 */
    return ((last - before) & (unit - 1)) == 0 && c->p[last] == 0 && c->p[last + unit - 1] == 0;
}

#if defined(__SSE2__)
/* One bit a UTF-16 unit of the 32 bytes at p, set where the unit is zero
 * (packs turns a zero unit's 0xFFFF into one 0xFF byte). */
static inline uint32_t gcs_zero_unit_bits(const uint8_t *p)
{
    const __m128i zero = _mm_setzero_si128();
    const __m128i a = _mm_loadu_si128((const __m128i *)(const void *)p);
    const __m128i b = _mm_loadu_si128((const __m128i *)(const void *)(p + 16));
    return (uint32_t)_mm_movemask_epi8(
        _mm_packs_epi16(_mm_cmpeq_epi16(a, zero), _mm_cmpeq_epi16(b, zero)));
}
#endif

/* Adds the set bits of m (zero units, rare) to *n, one at a time; true
 * as soon as *n reaches `enough`. */
static inline bool gcs_zero_units_reach(uint32_t m, size_t *n, size_t enough)
{
    while (m) {
        if (++*n >= enough)
            return true;
        m &= m - 1;
    }
    return false;
}

/*
 * The next `size` bytes hold `before` fixed bytes, `strings` (>= 1)
 * strings of `unit`-byte units (1 or 2) each ended by a zero unit, then
 * `after` fixed bytes (more bytes may follow): exactly when the whole
 * units between the leading and the trailing fixed bytes hold `strings`
 * zero units (the strings follow one another from the leading bytes, so
 * the last one ends at the strings-th zero unit, which then leaves room
 * for the trailing bytes). The walker's answer for that schema, from one
 * pass over the units, sixteen UTF-16 units a step where SSE2 is there,
 * with no stop per string: the method events of a rundown
 * (MethodDCStopVerbose: namespace, name, signature) are of this shape.
 */
static inline bool gcs_cur_strings_end(const gcs_cursor *c, uint32_t size, uint32_t before,
                                       uint32_t unit, uint32_t strings, uint32_t after)
{
    if ((unit != 1 && unit != 2) || size > gcs_cur_left(c) || (uint64_t)before + after > size)
        return false;
    const uint8_t *q = c->p + before;
    /* Bytes of the whole units between the fixed ones. */
    const size_t bytes = (size - before - after) & ~(size_t)(unit - 1);
    size_t zeros = 0, i = 0;
    if (strings == 0)
        return true;
    if (unit == 1) {
        while (zeros < strings) {
            const uint8_t *z = i < bytes ? memchr(q + i, 0, bytes - i) : NULL;
            if (!z)
                return false;
            zeros++;
            i = (size_t)(z - q) + 1;
        }
        return true;
    }
#if defined(__SSE2__)
    /* 64 bytes a step, one test for any zero unit; the mask of the
     * zero units (packs: one bit a unit) only where there is one. */
    const __m128i zero = _mm_setzero_si128();
    for (const size_t whole = bytes & ~(size_t)63; i < whole; i += 64) {
        const __m128i a = _mm_cmpeq_epi16(_mm_loadu_si128((const __m128i *)(const void *)(q + i)), zero);
        const __m128i b = _mm_cmpeq_epi16(_mm_loadu_si128((const __m128i *)(const void *)(q + i + 16)), zero);
        const __m128i d = _mm_cmpeq_epi16(_mm_loadu_si128((const __m128i *)(const void *)(q + i + 32)), zero);
        const __m128i e = _mm_cmpeq_epi16(_mm_loadu_si128((const __m128i *)(const void *)(q + i + 48)), zero);
        if (!_mm_movemask_epi8(_mm_or_si128(_mm_or_si128(a, b), _mm_or_si128(d, e))))
            continue;
        const uint32_t m = (uint32_t)_mm_movemask_epi8(_mm_packs_epi16(a, b)) |
                           (uint32_t)_mm_movemask_epi8(_mm_packs_epi16(d, e)) << 16;
        if (gcs_zero_units_reach(m, &zeros, strings))
            return true;
    }
    if (bytes - i >= 32) { /* fewer than 64 left: one step of 32 at most */
        const uint32_t m = gcs_zero_unit_bits(q + i);
        if (m && gcs_zero_units_reach(m, &zeros, strings))
            return true;
        i += 32;
    }
    if (i < bytes && bytes >= 32) {
        /* The last 32 bytes again (an even offset), minus the units
         * counted above. */
        const size_t back = 32 - (bytes - i);
        return gcs_zero_units_reach(gcs_zero_unit_bits(q + bytes - 32) >> (back / 2), &zeros,
                                    strings);
    }
#endif
    for (; i < bytes; i += 2)
        if (q[i] == 0 && q[i + 1] == 0 && ++zeros >= strings)
            return true;
    return false;
}

/*
 * Steps over a UTF-16LE string terminated by a 0x0000 unit (terminator
 * included). *units gets the number of code units before the terminator.
 */
static inline bool gcs_cur_utf16z(gcs_cursor *c, const uint8_t **s, size_t *units)
{
    const uint8_t *start = c->p;
    if (!gcs_cur_skip_utf16z(c))
        return false;
    *s = start;
    *units = (size_t)(c->p - start - 2) / 2;
    return true;
}
/* Steps over a 0x00-terminated byte string (terminator included). */
static inline bool gcs_cur_ansiz(gcs_cursor *c, const uint8_t **s, size_t *len)
{
    const uint8_t *z = memchr(c->p, 0, (size_t)(c->end - c->p));
    if (!z)
        return false;
    *s = c->p;
    *len = (size_t)(z - c->p);
    c->p = z + 1;
    return true;
}

#endif
