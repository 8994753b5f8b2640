/*
 * format/etl/xpress.h - LZ77 "XPRESS" decompression of ETW buffers.
 */
#ifndef GCS_FORMAT_ETL_XPRESS_H
#define GCS_FORMAT_ETL_XPRESS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * Decompresses in[0..in_size) into out (at most out_size bytes); *out_len
 * gets the bytes written. False when the input is invalid (a match before
 * the output start, a length field cut short) or the output would exceed
 * out_size. Never reads or writes out of bounds.
 */
bool gcs_xpress_decompress(const uint8_t *in, size_t in_size, uint8_t *out, size_t out_size,
                           size_t *out_len);

#endif
