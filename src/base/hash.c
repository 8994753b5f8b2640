/*
 * base/hash.c - the open-addressing index (hash.h).
 */
#include "base/hash.h"

#include <stdlib.h>

bool gcs_index_room(gcs_index *x, size_t n, gcs_index_hash_fn hash, const void *ctx)
{
    if ((n + 1) * 2 <= x->cap)
        return true;
    size_t cap = x->cap ? x->cap * 2 : 64;
    while ((n + 1) * 2 > cap)
        cap *= 2;
    uint32_t *slots = calloc(cap, sizeof *slots);
    if (!slots)
        return false;
    gcs_index grown = {slots, cap};
    for (size_t id = 0; id < n; id++)
        gcs_index_put(&grown, hash(ctx, (uint32_t)id), (uint32_t)id);
    free(x->slots);
    *x = grown;
    return true;
}

void gcs_index_free(gcs_index *x)
{
    free(x->slots);
    x->slots = NULL;
    x->cap = 0;
}
