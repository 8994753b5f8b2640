/*
 * byte_builder.h - little-endian byte writer for hand-made test inputs
 * (synthetic traces and metadata payloads). Aborts past its capacity:
 * test inputs are small and fixed.
 */
#ifndef GCS_TESTS_BYTE_BUILDER_H
#define GCS_TESTS_BYTE_BUILDER_H

#include <assert.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

typedef struct bb {
    uint8_t data[65536];
    size_t len;
} bb;

static inline void bb_bytes(bb *b, const void *p, size_t n)
{
    assert(n <= sizeof b->data - b->len);
    memcpy(b->data + b->len, p, n);
    b->len += n;
}
static inline void bb_u8(bb *b, uint8_t v) { bb_bytes(b, &v, 1); }
static inline void bb_u16(bb *b, uint16_t v)
{
    uint8_t t[2] = {(uint8_t)v, (uint8_t)(v >> 8)};
    bb_bytes(b, t, 2);
}
static inline void bb_u32(bb *b, uint32_t v)
{
    uint8_t t[4];
    for (int i = 0; i < 4; i++)
        t[i] = (uint8_t)(v >> (8 * i));
    bb_bytes(b, t, 4);
}
static inline void bb_u64(bb *b, uint64_t v)
{
    uint8_t t[8];
    for (int i = 0; i < 8; i++)
        t[i] = (uint8_t)(v >> (8 * i));
    bb_bytes(b, t, 8);
}
static inline void bb_varu(bb *b, uint64_t v)
{
    do {
        uint8_t byte = v & 0x7f;
        v >>= 7;
        bb_u8(b, byte | (v ? 0x80 : 0));
    } while (v);
}
static inline void bb_zeros(bb *b, size_t n)
{
    while (n--)
        bb_u8(b, 0);
}
/* ASCII text as UTF-16LE with its 0x0000 terminator. */
static inline void bb_utf16z(bb *b, const char *s)
{
    for (; *s; s++)
        bb_u16(b, (uint8_t)*s);
    bb_u16(b, 0);
}
/* Overwrites 4 bytes at pos (sizes known only later). */
static inline void bb_patch_u32(bb *b, size_t pos, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        b->data[pos + i] = (uint8_t)(v >> (8 * i));
}

/* Writes the bytes to path; 0, or 1 after perror (for fixture writers). */
static inline int bb_write_file(const bb *b, const char *path)
{
    FILE *f = fopen(path, "wb");
    if (!f) {
        perror(path);
        return 1;
    }
    int failed = fwrite(b->data, 1, b->len, f) != b->len;
    failed |= fclose(f) != 0;
    if (failed)
        perror(path);
    return failed;
}

#endif
