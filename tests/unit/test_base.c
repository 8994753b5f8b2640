/* Unit tests of src/base: the cursor, buffers, UTF-16 conversion. */
#include "check.h"

#include <stdlib.h>
#include <sys/mman.h>

#include "base/buf.h"
#include "base/cursor.h"
#include "base/error.h"

static void test_cursor_bounds(void)
{
    const uint8_t data[] = {1, 2, 3, 4, 5, 6, 7, 8, 9};
    gcs_cursor c = gcs_cur_make(data, sizeof data, 100);
    uint32_t v32;
    uint64_t v64;
    CHECK(gcs_cur_u32(&c, &v32));
    CHECK_EQ_U64(v32, 0x04030201u);
    CHECK_EQ_U64(gcs_cur_offset(&c), 104);
    CHECK(!gcs_cur_u64(&c, &v64)); /* only 5 left */
    CHECK_EQ_U64(gcs_cur_offset(&c), 104);
    CHECK(gcs_cur_skip(&c, 5));
    CHECK(!gcs_cur_skip(&c, 1));
    CHECK(!gcs_cur_skip(&c, SIZE_MAX));
}

static void test_varuint(void)
{
    const uint8_t a[] = {0xE5, 0x8E, 0x26};
    gcs_cursor c = gcs_cur_make(a, sizeof a, 0);
    uint32_t v;
    CHECK(gcs_cur_varu32(&c, &v));
    CHECK_EQ_U64(v, 624485);
    const uint8_t too_long[] = {0x80, 0x80, 0x80, 0x80, 0x80, 0x01};
    c = gcs_cur_make(too_long, sizeof too_long, 0);
    CHECK(!gcs_cur_varu32(&c, &v));
    CHECK_EQ_U64(gcs_cur_offset(&c), 0);
    const uint8_t unterminated[] = {0x80, 0x80};
    c = gcs_cur_make(unterminated, sizeof unterminated, 0);
    CHECK(!gcs_cur_varu32(&c, &v));
    const uint8_t big[] = {0xff, 0xff, 0xff, 0xff, 0x1f};
    c = gcs_cur_make(big, sizeof big, 0);
    CHECK(!gcs_cur_varu32(&c, &v)); /* > UINT32_MAX */
    uint64_t v64;
    const uint8_t max64[] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01};
    c = gcs_cur_make(max64, sizeof max64, 0);
    CHECK(gcs_cur_varu64(&c, &v64));
    CHECK_EQ_U64(v64, UINT64_MAX);
    const uint8_t over64[] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x03};
    c = gcs_cur_make(over64, sizeof over64, 0);
    CHECK(!gcs_cur_varu64(&c, &v64));
}

static void test_utf16(void)
{
    const uint8_t s[] = {'G', 0, 'C', 0, 0xAC, 0x20, 0x3D, 0xD8, 0x00, 0xDE, 0, 0};
    gcs_cursor c = gcs_cur_make(s, sizeof s, 0);
    const uint8_t *str;
    size_t units;
    CHECK(gcs_cur_utf16z(&c, &str, &units));
    CHECK_EQ_U64(units, 5);
    CHECK_EQ_U64(gcs_cur_left(&c), 0);
    char out[32];
    gcs_utf16_to_utf8_buf(str, units, out, sizeof out);
    CHECK_EQ_STR(out, "GC\xE2\x82\xAC\xF0\x9F\x98\x80");
    const uint8_t unterminated[] = {'G', 0, 'C'};
    c = gcs_cur_make(unterminated, sizeof unterminated, 0);
    CHECK(!gcs_cur_utf16z(&c, &str, &units));
    /* Runs of 8 ASCII units go at once: a unit of 0x80 or more (0x8041 and
     * 0xFF41 are negative to a signed compare) at each place of a 24-unit
     * string, against the expected UTF-8; the output capped at 9 and 17
     * bytes too (the room check: as many whole characters as fit). */
    static const uint16_t odd[] = {0x00E9, 0x0141, 0x8041, 0xFF41, 0x0080, 0x007F};
    for (size_t k = 0; k < sizeof odd / sizeof *odd; k++)
        for (size_t at = 0; at < 24; at++) {
            uint8_t u[48];
            char want[128];
            size_t w = 0;
            for (size_t i = 0; i < 24; i++) {
                uint16_t v = i == at ? odd[k] : (uint16_t)('a' + i);
                u[2 * i] = (uint8_t)v;
                u[2 * i + 1] = (uint8_t)(v >> 8);
                if (v < 0x80) {
                    want[w++] = (char)v;
                } else if (v < 0x800) {
                    want[w++] = (char)(0xC0 | (v >> 6));
                    want[w++] = (char)(0x80 | (v & 0x3F));
                } else {
                    want[w++] = (char)(0xE0 | (v >> 12));
                    want[w++] = (char)(0x80 | ((v >> 6) & 0x3F));
                    want[w++] = (char)(0x80 | (v & 0x3F));
                }
            }
            want[w] = 0;
            char got[128];
            CHECK_EQ_U64(gcs_utf16_to_utf8_buf(u, 24, got, sizeof got), w);
            CHECK_EQ_STR(got, want);
            for (size_t cap = 9; cap < 18; cap += 8) {
                char small[18];
                size_t n = gcs_utf16_to_utf8_buf(u, 24, small, cap);
                CHECK(n < cap && small[n] == 0 && memcmp(small, want, n) == 0);
                /* as many whole characters as fit */
                CHECK(n + 3 >= cap - 1);
            }
        }
}

/* The scan against a unit-by-unit reference: every string length, every
 * start alignment, zero bytes that do not make a zero unit (odd offsets,
 * one byte of a unit), terminator at the very end, and none at all. */
static void test_utf16z_scan(void)
{
    uint8_t buf[16 + 2 * 100 + 8];
    unsigned rng = 12345;
    for (size_t align = 0; align < 16; align++)
        for (size_t len = 0; len < 100; len++)
            for (int variant = 0; variant < 4; variant++) {
                uint8_t *s = buf + align;
                size_t bytes = 2 * len + 2;
                for (size_t k = 0; k < 2 * len; k++) {
                    rng = rng * 1103515245u + 12345u;
                    /* Many zero bytes, never a zero unit. */
                    s[k] = (uint8_t)((rng >> 16) % 3 == 0 ? 0 : 1 + (rng >> 8) % 255);
                }
                for (size_t u = 0; u < len; u++)
                    if (s[2 * u] == 0 && s[2 * u + 1] == 0)
                        s[2 * u + (variant & 1)] = 'x';
                s[2 * len] = s[2 * len + 1] = 0;
                size_t size = bytes;
                if (variant == 2)
                    size = bytes - 1; /* cut inside the terminator: no string */
                if (variant == 3 && len > 0)
                    size = bytes + 5; /* bytes after the terminator */
                if (variant == 3 && len > 0) {
                    s[bytes] = s[bytes + 1] = 0;
                    s[bytes + 2] = 7, s[bytes + 3] = 0, s[bytes + 4] = 0;
                }
                gcs_cursor c = gcs_cur_make(s, size, 0);
                const uint8_t *str;
                size_t units;
                bool ok = gcs_cur_utf16z(&c, &str, &units);
                if (variant == 2) {
                    CHECK(!ok);
                    continue;
                }
                CHECK(ok);
                CHECK_EQ_U64(units, len);
                CHECK_EQ_U64(gcs_cur_left(&c), size - bytes);
            }
}

static void test_buf_cap(void)
{
    gcs_buf b;
    gcs_buf_init(&b, 10);
    CHECK_EQ_INT(gcs_buf_append(&b, "0123456789", 10), GCS_OK);
    CHECK_EQ_INT(gcs_buf_append(&b, "x", 1), GCS_ERR_LIMIT);
    CHECK_EQ_INT(gcs_buf_reserve(&b, SIZE_MAX), GCS_ERR_LIMIT);
    gcs_buf_free(&b);
}

static void test_array_reserve(void)
{
    int *a = NULL;
    size_t cap = 0;
    CHECK(gcs_array_reserve((void **)&a, &cap, 1, sizeof *a, 64));
    CHECK_EQ_U64(cap, 64);
    CHECK(gcs_array_reserve((void **)&a, &cap, 200, sizeof *a, 64));
    CHECK_EQ_U64(cap, 256); /* doubled until it fits */
    a[199] = 7;
    /* A size that would overflow is refused and changes nothing. */
    int *before = a;
    CHECK(!gcs_array_reserve((void **)&a, &cap, SIZE_MAX / 2, sizeof *a, 64));
    CHECK(a == before);
    CHECK_EQ_U64(cap, 256);
    CHECK_EQ_INT(a[199], 7);
    free(a);
}

/* A big array keeps its bytes through every growth and shrink, across
 * the line between malloc's memory and a mapping of its own, and is freed
 * by the size it was last given. Once big, a page is mapped right after
 * its mapping (where the kernel lets us), so the next growth cannot
 * extend it in place: its pages must move, and the array with them. */
static void test_big_resize(void)
{
    static const size_t sizes[] = {1000,        GCS_BIG_BYTES - 8,     GCS_BIG_BYTES,
                                   3 * GCS_BIG_BYTES + 12345, 9 * GCS_BIG_BYTES, 5000,
                                   2 * GCS_BIG_BYTES, 24 * GCS_BIG_BYTES};
    const size_t huge = (size_t)2 << 20; /* the mapping's unit (buf.c) */
    uint32_t *a = NULL;
    size_t have = 0; /* bytes of a holding the pattern */
    size_t bytes = 0;
    void *blocker = NULL;
    bool all_kept = true, blocked_growth_moved = false;
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
        uint32_t *before = a;
        uint32_t *n = gcs_big_resize(a, bytes, sizes[k]);
        CHECK(n != NULL);
        if (!n)
            break;
        a = n;
        if (blocker && sizes[k] > bytes) {
            blocked_growth_moved = a != before;
            munmap(blocker, 4096);
            blocker = MAP_FAILED;
        }
        size_t keep = have < sizes[k] ? have : sizes[k];
        for (size_t i = 0; i < keep / 4; i++)
            if (a[i] != (uint32_t)(i * 2654435761u))
                all_kept = false;
        bytes = sizes[k];
        for (size_t i = 0; i < bytes / 4; i++)
            a[i] = (uint32_t)(i * 2654435761u);
        have = bytes / 4 * 4;
#if defined(__linux__) && defined(MAP_FIXED_NOREPLACE)
        if (!blocker && bytes >= GCS_BIG_BYTES) {
            uint8_t *end = (uint8_t *)a + (bytes + huge - 1) / huge * huge;
            blocker = mmap(end, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE,
                           -1, 0);
            if (blocker == MAP_FAILED || blocker != end)
                SKIP("cannot map a page after the array");
        }
#endif
    }
    CHECK(all_kept);
#if defined(__linux__) && defined(MAP_FIXED_NOREPLACE)
    CHECK(blocked_growth_moved);
#endif
    gcs_big_free(a, bytes);
    /* Small and empty: malloc's. */
    void *s = gcs_big_resize(NULL, 0, 0);
    CHECK(s != NULL);
    gcs_big_free(s, 0);
}

/*
 * gcs_big_reserve_early grows an array one element at a time as its
 * callers do: malloc's doubling up to GCS_BIG_EARLY_BYTES, then one step
 * to GCS_BIG_BYTES (not one past it), then doubling; every value kept
 * across each step, for elements of 2, 8 and 32 bytes.
 */
static void test_big_reserve_early(void)
{
    static const size_t elems[] = {2, 8, 32};
    for (size_t e = 0; e < sizeof elems / sizeof elems[0]; e++) {
        const size_t elem = elems[e], n = 3 * GCS_BIG_BYTES / elem + 7;
        uint8_t *a = NULL;
        size_t cap = 0, steps_past_early = 0, first_past_early = 0;
        bool kept = true;
        for (size_t i = 0; i < n; i++) {
            const size_t before = cap;
            CHECK(gcs_big_reserve_early((void **)&a, &cap, i + 1, elem, 64));
            if (!a)
                break;
            if (cap != before) {
                CHECK(cap >= i + 1);
                if (before * elem < GCS_BIG_EARLY_BYTES)
                    CHECK(cap * elem <= GCS_BIG_EARLY_BYTES);
                else if (steps_past_early++ == 0)
                    first_past_early = cap * elem;
                /* Every value so far survived the step. */
                for (size_t k = 0; k < i; k++)
                    if (a[k * elem] != (uint8_t)(k * 31) || a[k * elem + elem - 1] != (uint8_t)k)
                        kept = false;
            }
            a[i * elem] = (uint8_t)(i * 31);
            a[i * elem + elem - 1] = (uint8_t)i;
        }
        CHECK(kept);
        CHECK(cap * elem == 4 * GCS_BIG_BYTES); /* 2 MiB, then doubled once */
        CHECK_EQ_U64(first_past_early, GCS_BIG_BYTES);
        CHECK_EQ_U64(steps_past_early, 3);
        gcs_big_free(a, cap * elem);
    }
}

static void test_error_line(void)
{
    gcs_error e;
    gcs_error_clear(&e);
    CHECK_EQ_INT(GCS_CORRUPT(&e, 42, "bad %s", "thing"), GCS_ERR_CORRUPT);
    CHECK_EQ_U64(e.offset, 42);
    CHECK_EQ_STR(e.reason, "bad thing");
    CHECK(e.src_line > 0);
}

int main(void)
{
    RUN(test_cursor_bounds);
    RUN(test_varuint);
    RUN(test_utf16);
    RUN(test_utf16z_scan);
    RUN(test_buf_cap);
    RUN(test_array_reserve);
    RUN(test_big_resize);
    RUN(test_big_reserve_early);
    RUN(test_error_line);
    return check_report("test_base");
}
