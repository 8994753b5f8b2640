/*
 * pipeline/stack_table.c - interned call stacks (see stack_table.h).
 */
#include "pipeline/stack_table.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/cursor.h"
#include "base/hash.h"

void gcs_stack_table_init(gcs_stack_table *t)
{
    memset(t, 0, sizeof *t);
}

void gcs_stack_table_free(gcs_stack_table *t)
{
    free(t->ips);
    free(t->starts);
    gcs_index_free(&t->index);
    free(t->span);
    memset(t, 0, sizeof *t);
}

static uint64_t hash_ips(const uint64_t *ips, size_t n)
{
    uint64_t h = 0x9e3779b97f4a7c15u ^ n;
    for (size_t i = 0; i < n; i++) {
        h ^= ips[i];
        h *= 0xff51afd7ed558ccdu;
        h ^= h >> 32;
    }
    return h;
}

static bool same_stack(const gcs_stack_table *t, uint32_t id, const uint64_t *ips, size_t n)
{
    const size_t start = (size_t)t->starts[id - 1], end = (size_t)t->starts[id];
    return end - start == n && memcmp(t->ips + start, ips, n * sizeof *ips) == 0;
}

/* The hash of interned stack id + 1 (the index holds ids from 0). */
static uint64_t stack_hash_of(const void *ctx, uint32_t index_id)
{
    const gcs_stack_table *t = ctx;
    const size_t start = (size_t)t->starts[index_id];
    return hash_ips(t->ips + start, (size_t)t->starts[index_id + 1] - start);
}

uint32_t gcs_stack_table_intern(gcs_stack_table *t, const uint8_t *bytes, size_t size,
                                unsigned pointer_size)
{
    assert(pointer_size == 4 || pointer_size == 8);
    size_t n = size / pointer_size;
    if (n == 0)
        return 0;
    if (n > GCS_MAX_STACK_FRAMES) {
        n = GCS_MAX_STACK_FRAMES;
        t->truncated++;
    }
    if (n > GCS_MAX_STACK_IPS - t->ips_n) {
        t->full = true;
        return 0;
    }
    /* The frames go to the end of ips first: they are compared there, and
     * stay when the stack is new. */
    if (!gcs_array_reserve((void **)&t->ips, &t->ips_cap, t->ips_n + n, sizeof *t->ips, 4096) ||
        !gcs_array_reserve((void **)&t->starts, &t->starts_cap, t->n + 2, sizeof *t->starts,
                           1024) ||
        !gcs_index_room(&t->index, t->n, stack_hash_of, t))
        return 0;
    uint64_t *ips = t->ips + t->ips_n;
    gcs_cursor c = gcs_cur_make(bytes, n * pointer_size, 0);
    for (size_t i = 0; i < n; i++) {
        uint32_t v32 = 0;
        bool ok = pointer_size == 8 ? gcs_cur_u64(&c, &ips[i]) : gcs_cur_u32(&c, &v32);
        assert(ok); /* n frames fit in size bytes */
        (void)ok;
        if (pointer_size == 4)
            ips[i] = v32;
    }
    const uint64_t h = hash_ips(ips, n);
    uint32_t index_id;
    for (size_t k = gcs_index_first(&t->index, h); gcs_index_id(&t->index, k, &index_id);
         k = gcs_index_next(&t->index, k))
        if (same_stack(t, index_id + 1, ips, n))
            return index_id + 1;
    if (t->n == 0)
        t->starts[0] = 0;
    t->ips_n += n;
    gcs_index_put(&t->index, h, (uint32_t)t->n);
    t->starts[++t->n] = t->ips_n;
    return (uint32_t)t->n;
}

void gcs_stack_table_define(gcs_stack_table *t, uint32_t span_id, const uint8_t *bytes,
                            size_t size, unsigned pointer_size)
{
    if (span_id == 0 || span_id > GCS_MAX_SPAN_STACK_ID)
        return; /* references to it are counted by lookup */
    if (span_id >= t->span_cap) {
        size_t cap = t->span_cap;
        if (!gcs_array_reserve((void **)&t->span, &cap, (size_t)span_id + 1, sizeof *t->span,
                               1024))
            return;
        memset(t->span + t->span_cap, 0, (cap - t->span_cap) * sizeof *t->span);
        t->span_cap = cap;
    }
    t->span[span_id] = gcs_stack_table_intern(t, bytes, size, pointer_size);
    if (span_id > t->span_max)
        t->span_max = span_id;
}

void gcs_stack_table_reset_span(gcs_stack_table *t)
{
    if (t->span_cap)
        memset(t->span, 0, ((size_t)t->span_max + 1) * sizeof *t->span);
    t->span_max = 0;
}

bool gcs_stack_table_get(const gcs_stack_table *t, uint32_t id, const uint64_t **ips, size_t *n)
{
    if (id == 0 || id > t->n)
        return false;
    const size_t start = (size_t)t->starts[id - 1];
    *ips = t->ips + start;
    *n = (size_t)t->starts[id] - start;
    return true;
}
