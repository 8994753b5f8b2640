/*
 * format/etl/xpress.c - the plain LZ77 "XPRESS" decompressor ([MS-XCA]
 * section 2.4), used by ETW for buffers with the compressed flag.
 *
 * The stream is groups of 32 items led by a 32-bit flag word (most
 * significant bit first): a 0 bit is one literal byte, a 1 bit a match of
 * 16 bits (offset-1 in the high 13 bits, length-3 in the low 3). A length
 * of 7 continues in a 4-bit nibble (two matches share one byte), 15 there
 * continues in a byte, 255 there in a 16-bit (then 32-bit) total.
 */
#include "format/etl/xpress.h"

#include <string.h>

static bool read_u16(const uint8_t *in, size_t in_size, size_t *pos, uint32_t *v)
{
    if (2 > in_size - *pos)
        return false;
    *v = (uint32_t)in[*pos] | ((uint32_t)in[*pos + 1] << 8);
    *pos += 2;
    return true;
}

bool gcs_xpress_decompress(const uint8_t *in, size_t in_size, uint8_t *out, size_t out_size,
                           size_t *out_len)
{
    size_t ip = 0, op = 0;
    uint32_t flags = 0;
    unsigned flag_count = 0;
    size_t half_byte_at = 0; /* input position of a nibble shared with the next match; 0: none */
    *out_len = 0;
    for (;;) {
        if (flag_count == 0) {
            if (4 > in_size - ip)
                break; /* no more flag word: the stream ends here */
            flags = (uint32_t)in[ip] | ((uint32_t)in[ip + 1] << 8) | ((uint32_t)in[ip + 2] << 16) |
                    ((uint32_t)in[ip + 3] << 24);
            ip += 4;
            flag_count = 32;
        }
        flag_count--;
        if (((flags >> flag_count) & 1u) == 0) {
            if (ip >= in_size)
                break;
            if (op >= out_size)
                return false;
            out[op++] = in[ip++];
            continue;
        }
        uint32_t match;
        if (!read_u16(in, in_size, &ip, &match))
            break; /* a set flag past the data ends the stream */
        size_t length = match & 7u;
        size_t distance = (match >> 3) + 1;
        if (length == 7) {
            if (half_byte_at == 0) {
                if (ip >= in_size)
                    return false;
                length = in[ip] & 15u;
                half_byte_at = ip++;
            } else {
                length = in[half_byte_at] >> 4;
                half_byte_at = 0;
            }
            if (length == 15) {
                if (ip >= in_size)
                    return false;
                length = in[ip++];
                if (length == 255) {
                    uint32_t l16;
                    if (!read_u16(in, in_size, &ip, &l16))
                        return false;
                    length = l16;
                    if (length == 0) {
                        uint32_t lo, hi;
                        if (!read_u16(in, in_size, &ip, &lo) || !read_u16(in, in_size, &ip, &hi))
                            return false;
                        length = (size_t)lo | ((size_t)hi << 16);
                    }
                    if (length < 15 + 7)
                        return false;
                    length -= 15 + 7;
                }
                length += 15;
            }
            length += 7;
        }
        length += 3;
        if (distance > op || length > out_size - op)
            return false;
        if (distance >= length) {
            memcpy(out + op, out + op - distance, length);
            op += length;
        } else {
            /* Overlapping its own output: byte by byte repeats the run. */
            for (size_t i = 0; i < length; i++, op++)
                out[op] = out[op - distance];
        }
    }
    *out_len = op;
    return true;
}
