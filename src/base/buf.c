#if defined(__linux__) && !defined(_GNU_SOURCE)
#define _GNU_SOURCE /* mremap */
#endif
#include "base/buf.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>
#if defined(__linux__)
#include <sys/mman.h>
#endif

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

void gcs_buf_init(gcs_buf *b, size_t max_cap)
{
    b->data = NULL;
    b->len = b->cap = 0;
    b->max_cap = max_cap;
    b->big = false;
}

void gcs_buf_init_big(gcs_buf *b, size_t max_cap)
{
    gcs_buf_init(b, max_cap);
    b->big = true;
}

void gcs_buf_free(gcs_buf *b)
{
    if (b->big)
        gcs_big_free(b->data, b->cap);
    else
        free(b->data);
    b->data = NULL;
    b->len = b->cap = 0;
}

gcs_status gcs_buf_reserve(gcs_buf *b, size_t extra)
{
    assert(b->len <= b->cap);
    if (extra <= b->cap - b->len)
        return GCS_OK;
    if (extra > b->max_cap - b->len)
        return GCS_ERR_LIMIT;
    size_t need = b->len + extra;
    size_t ncap = b->cap ? b->cap : b->big ? GCS_BIG_BYTES : 4096;
    while (ncap < need)
        ncap = ncap > SIZE_MAX / 2 ? need : ncap * 2;
    if (ncap > b->max_cap)
        ncap = b->max_cap;
    uint8_t *nd = b->big ? gcs_big_resize(b->data, b->cap, ncap) : realloc(b->data, ncap);
    if (!nd)
        return GCS_ERR_NOMEM;
    b->data = nd;
    b->cap = ncap;
    return GCS_OK;
}

gcs_status gcs_buf_append(gcs_buf *b, const void *data, size_t n)
{
    gcs_status st = gcs_buf_reserve(b, n);
    if (st != GCS_OK)
        return st;
    if (n)
        memcpy(b->data + b->len, data, n);
    b->len += n;
    return GCS_OK;
}

/* The capacity an array of cap elements grows to for need (> cap):
 * doubled from cap, or min_cap when empty; 0 when the bytes overflow. */
static size_t grown_cap(size_t cap, size_t need, size_t elem_size, size_t min_cap)
{
    assert(elem_size > 0 && need > cap);
    size_t ncap = cap ? cap : (min_cap ? min_cap : 1);
    while (ncap < need)
        ncap = ncap > SIZE_MAX / 2 ? need : ncap * 2;
    return ncap > SIZE_MAX / elem_size ? 0 : ncap;
}

bool gcs_array_reserve(void **arr, size_t *cap, size_t need, size_t elem_size, size_t min_cap)
{
    if (need <= *cap)
        return true;
    size_t ncap = grown_cap(*cap, need, elem_size, min_cap);
    void *p = ncap ? realloc(*arr, ncap * elem_size) : NULL;
    if (!p)
        return false;
    *arr = p;
    *cap = ncap;
    return true;
}

#if defined(__linux__) && defined(MREMAP_MAYMOVE) && defined(MREMAP_FIXED) && \
    defined(MADV_HUGEPAGE)
#define BIG_HUGE ((size_t)2 << 20)

static size_t big_round(size_t bytes) { return (bytes + BIG_HUGE - 1) & ~(BIG_HUGE - 1); }

/* A fresh mapping of len bytes (a multiple of BIG_HUGE) at a BIG_HUGE
 * boundary: mapped BIG_HUGE longer, the ends trimmed. */
static void *big_map(size_t len)
{
    if (len > SIZE_MAX - BIG_HUGE)
        return NULL;
    uint8_t *m = mmap(NULL, len + BIG_HUGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
                      -1, 0);
    if (m == MAP_FAILED)
        return NULL;
    uint8_t *a = (uint8_t *)(((uintptr_t)m + BIG_HUGE - 1) & ~(uintptr_t)(BIG_HUGE - 1));
    if (a > m)
        munmap(m, (size_t)(a - m));
    size_t tail = (size_t)(m + len + BIG_HUGE - (a + len));
    if (tail)
        munmap(a + len, tail);
    (void)madvise(a, len, MADV_HUGEPAGE);
    return a;
}

void *gcs_big_resize(void *p, size_t old_bytes, size_t bytes)
{
    bool was_big = p && old_bytes >= GCS_BIG_BYTES;
    if (bytes < GCS_BIG_BYTES) {
        if (!was_big)
            return realloc(p, bytes ? bytes : 1);
        void *n = malloc(bytes ? bytes : 1);
        if (!n)
            return NULL;
        memcpy(n, p, bytes);
        munmap(p, big_round(old_bytes));
        return n;
    }
    size_t len = big_round(bytes);
    if (!was_big) {
        void *n = big_map(len);
        if (n && p)
            memcpy(n, p, old_bytes < bytes ? old_bytes : bytes);
        if (n)
            free(p);
        return n;
    }
    size_t old_len = big_round(old_bytes);
    if (len == old_len)
        return p;
    /* In place when the addresses after it are free, else the pages move
     * (page tables, not bytes) to a fresh aligned mapping. */
    void *n = mremap(p, old_len, len, 0);
    if (n != MAP_FAILED)
        return n;
    if (len < old_len)
        return p; /* shrinking in place cannot fail on Linux; keep it whole */
    uint8_t *dst = big_map(len);
    if (!dst)
        return NULL;
    n = mremap(p, old_len, old_len, MREMAP_MAYMOVE | MREMAP_FIXED, dst);
    if (n == MAP_FAILED) {
        munmap(dst, len);
        return NULL;
    }
    return n;
}

void gcs_big_free(void *p, size_t bytes)
{
    if (p && bytes >= GCS_BIG_BYTES)
        munmap(p, big_round(bytes));
    else
        free(p);
}
#else
void *gcs_big_resize(void *p, size_t old_bytes, size_t bytes)
{
    (void)old_bytes;
    return realloc(p, bytes ? bytes : 1);
}

void gcs_big_free(void *p, size_t bytes)
{
    (void)bytes;
    free(p);
}
#endif

bool gcs_big_reserve(void **arr, size_t *cap, size_t need, size_t elem_size, size_t min_cap)
{
    if (need <= *cap)
        return true;
    size_t ncap = grown_cap(*cap, need, elem_size, min_cap);
    void *p = ncap ? gcs_big_resize(*arr, *cap * elem_size, ncap * elem_size) : NULL;
    if (!p)
        return false;
    *arr = p;
    *cap = ncap;
    return true;
}

bool gcs_big_reserve_early(void **arr, size_t *cap, size_t need, size_t elem_size,
                           size_t min_cap)
{
    if (need <= *cap)
        return true;
    assert(elem_size > 0 && elem_size <= GCS_BIG_BYTES);
    /* need > *cap: an array already at GCS_BIG_BYTES needs more, and
     * grows by doubling. */
    return gcs_big_reserve(arr, cap, gcs_big_early_count(need, elem_size), elem_size, min_cap);
}

struct gcs_arena_chunk {
    gcs_arena_chunk *next;
    size_t used, size;
    _Alignas(8) uint8_t mem[];
};

void gcs_arena_init(gcs_arena *a, size_t max_total)
{
    a->head = NULL;
    a->total = 0;
    a->max_total = max_total;
}

void *gcs_arena_alloc(gcs_arena *a, size_t n)
{
    n = (n + 7) & ~(size_t)7;
    if (n == 0)
        n = 8;
    gcs_arena_chunk *c = a->head;
    if (!c || n > c->size - c->used) {
        size_t size = n > 60000 ? n : 65536 - sizeof(gcs_arena_chunk);
        if (a->max_total && size > a->max_total - (a->total < a->max_total ? a->total : a->max_total))
            return NULL;
        c = malloc(sizeof *c + size);
        if (!c)
            return NULL;
        c->next = a->head;
        c->used = 0;
        c->size = size;
        a->head = c;
        a->total += size;
    }
    void *p = c->mem + c->used;
    c->used += n;
    memset(p, 0, n);
    return p;
}

char *gcs_arena_strndup(gcs_arena *a, const char *s, size_t n)
{
    char *d = gcs_arena_alloc(a, n + 1);
    if (!d)
        return NULL;
    memcpy(d, s, n);
    d[n] = 0;
    return d;
}

void gcs_arena_reset(gcs_arena *a)
{
    gcs_arena_chunk *c = a->head;
    while (c) {
        gcs_arena_chunk *n = c->next;
        free(c);
        c = n;
    }
    a->head = NULL;
    a->total = 0;
}

static size_t put_utf8(uint32_t cp, char *o)
{
    if (cp < 0x80) { o[0] = (char)cp; return 1; }
    if (cp < 0x800) { o[0] = (char)(0xC0 | (cp >> 6)); o[1] = (char)(0x80 | (cp & 0x3F)); return 2; }
    if (cp < 0x10000) {
        o[0] = (char)(0xE0 | (cp >> 12)); o[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
        o[2] = (char)(0x80 | (cp & 0x3F));
        return 3;
    }
    o[0] = (char)(0xF0 | (cp >> 18)); o[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
    o[2] = (char)(0x80 | ((cp >> 6) & 0x3F)); o[3] = (char)(0x80 | (cp & 0x3F));
    return 4;
}

size_t gcs_utf16_to_utf8_buf(const uint8_t *s, size_t units, char *out, size_t out_cap)
{
    size_t o = 0;
    if (out_cap == 0)
        return 0;
    for (size_t i = 0; i < units; i++) {
        /* ASCII (most names), 8 units at a time while the output has room. */
#if defined(__SSE2__)
        while (units - i >= 8 && out_cap - 1 - o >= 8) {
            __m128i v = _mm_loadu_si128((const __m128i *)(const void *)(s + 2 * i));
            const __m128i zero = _mm_setzero_si128();
            __m128i high = _mm_and_si128(v, _mm_set1_epi16((short)0xff80));
            if (_mm_movemask_epi8(_mm_cmpeq_epi16(high, zero)) != 0xffff || /* a unit >= 0x80 */
                _mm_movemask_epi8(_mm_cmpeq_epi16(v, zero)) != 0)           /* or a NUL */
                break;
            _mm_storel_epi64((__m128i *)(void *)(out + o), _mm_packus_epi16(v, v));
            o += 8;
            i += 8;
        }
        if (i == units)
            break;
#endif
        uint32_t u = (uint32_t)(s[2 * i] | (s[2 * i + 1] << 8));
        uint32_t cp = u;
        if (u >= 0xD800 && u <= 0xDBFF && i + 1 < units) {
            uint32_t u2 = (uint32_t)(s[2 * i + 2] | (s[2 * i + 3] << 8));
            if (u2 >= 0xDC00 && u2 <= 0xDFFF) {
                cp = 0x10000 + ((u - 0xD800) << 10) + (u2 - 0xDC00);
                i++;
            } else {
                cp = 0xFFFD;
            }
        } else if (u >= 0xD800 && u <= 0xDFFF) {
            cp = 0xFFFD;
        }
        char tmp[4];
        size_t k = put_utf8(cp, tmp);
        if (k > out_cap - 1 - o)
            break;
        memcpy(out + o, tmp, k);
        o += k;
    }
    out[o] = 0;
    return o;
}

char *gcs_utf16_to_utf8(gcs_arena *a, const uint8_t *s, size_t units)
{
    if (units > SIZE_MAX / 4 - 1)
        return NULL;
    size_t cap = units * 3 + 1; /* a UTF-16 unit never needs more than 3 bytes; pairs need 4 for 2 */
    char *d = gcs_arena_alloc(a, cap);
    if (!d)
        return NULL;
    gcs_utf16_to_utf8_buf(s, units, d, cap);
    return d;
}
