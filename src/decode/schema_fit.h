/*
 * decode/schema_fit.h - whether a payload fits its schema, answered by a
 * small program compiled once per event type instead of a field walk.
 *
 * Counting an event checks that its payload fits its schema (the reader's
 * "undecodable" count). gcs_payload_walk_fields answers that by visiting
 * every value, thousands of them for a bulk event's array; the program
 * answers the same question with one step per run of fixed-size fields,
 * one per string and one per array of fixed-size elements (whatever their
 * count). It accepts exactly the payloads the walker accepts without a
 * visitor (tests/unit/test_schema_fit.c checks every event of the real
 * traces and every cut of them); schemas it does not cover compile to
 * NULL and stay with the walker.
 */
#ifndef GCS_DECODE_SCHEMA_FIT_H
#define GCS_DECODE_SCHEMA_FIT_H

#include "base/buf.h"
#include "base/cursor.h"
#include "gcscope/reader.h"

typedef struct gcs_fit_prog gcs_fit_prog;

/* The program for fields read with pointers of pointer_size (4 or 8),
 * allocated in arena; NULL when the schema has something it does not
 * cover (located arrays, variable-length integers, UTF-8 strings, deep
 * nesting, count fields the walker would refuse) or the arena is full. */
const gcs_fit_prog *gcs_fit_compile(const gcs_field *fields, uint32_t count,
                                    uint32_t pointer_size, gcs_arena *arena);

/* Does the payload fit? The answer of gcs_payload_walk_fields == GCS_OK
 * for the schema and pointer size the program was compiled from. */
bool gcs_fit_check(const gcs_fit_prog *prog, const uint8_t *payload, uint32_t size);

/*
 * A schema of fixed fields, terminated strings, fixed fields (an event
 * that names a type or a method: AllocationTick, MethodLoadVerbose, ...):
 * unit is the strings' unit (2: UTF-16, 1: ANSI; all alike), strings how
 * many (1 to GCS_FIT_MAX_SHAPE_STRINGS), before and after the fixed bytes
 * around them; unit 0 for any other schema.
 */
typedef struct gcs_fit_string_shape {
    uint32_t unit, strings, before, after;
} gcs_fit_string_shape;

/* More strings in a row: the general program. */
#define GCS_FIT_MAX_SHAPE_STRINGS 255u

/* The program's shape (unit 0 when it is not of strings between fixed
 * fields). */
gcs_fit_string_shape gcs_fit_string_shape_of(const gcs_fit_prog *prog);

/*
 * True when a payload of that shape surely fits. One string: its last
 * possible unit (just before the trailing fixed bytes, in whole units from
 * the string's start) is a terminator, so the first terminator is at or
 * before it; false then says nothing (a payload with trailing bytes, or
 * one that does not fit: gcs_fit_check answers). Several strings: exactly
 * gcs_fit_check's answer, from one pass counting the zero units
 * (gcs_cur_strings_end). Inline: gcs_fit_check asks it first; the reader
 * asks the one-string test inline per event (gcs_cur_string_surely_ends).
 */
static inline bool gcs_fit_string_surely_fits(const gcs_fit_string_shape *shape,
                                              const uint8_t *payload, uint32_t size)
{
    /* An empty payload may come as NULL (CTF events without fields):
     * no cursor over a null pointer (NULL + 0 is undefined). */
    const gcs_cursor c = gcs_cur_make(size ? payload : (const uint8_t *)"", size, 0);
    if (shape->strings > 1)
        return gcs_cur_strings_end(&c, size, shape->before, shape->unit, shape->strings,
                                   shape->after);
    return gcs_cur_string_surely_ends(&c, size, shape->before, shape->unit, shape->after);
}

/*
 * The program as fixed runs and terminated strings only: fixed[0] bytes,
 * a string of units[0]-byte units, fixed[1] bytes, ..., string n - 1,
 * fixed[n] bytes (*n_strings = n, at most max_strings). False for any
 * other program (counts, arrays, padding, structs) or more strings. A
 * payload made of exactly these parts fits.
 */
bool gcs_fit_flat(const gcs_fit_prog *prog, uint32_t max_strings, uint32_t *n_strings,
                  uint8_t *units, uint32_t *fixed);

#endif
