/*
 * base/hash.h - the hashes of the open-addressing tables (not for input
 * bytes: they hash values already read).
 */
#ifndef GCS_BASE_HASH_H
#define GCS_BASE_HASH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Spreads every bit of x over the result (splitmix64's finalizer), so that
 * the low bits index a power-of-two table well. */
static inline uint64_t gcs_hash_mix(uint64_t x)
{
    x ^= x >> 30;
    x *= 0xbf58476d1ce4e5b9ull;
    x ^= x >> 27;
    x *= 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

/* FNV-1a offset basis: the seed of gcs_hash_bytes. */
#define GCS_HASH_SEED 0xcbf29ce484222325ull

/* FNV-1a over n bytes from seed h (not mixed: callers mix the result). */
static inline uint64_t gcs_hash_bytes(uint64_t h, const void *p, size_t n)
{
    const unsigned char *c = p;
    for (size_t i = 0; i < n; i++)
        h = (h ^ c[i]) * 0x100000001b3ull;
    return h;
}

/*
 * An open-addressing index over the ids of an array the caller keeps:
 * slot = id + 1, 0 empty, load at most 1/2, linear probing. The caller
 * walks a probe sequence to find an entry and compares it itself:
 *
 *     for (size_t k = gcs_index_first(&x, h); gcs_index_id(&x, k, &id);
 *          k = gcs_index_next(&x, k))
 *         if (same(&array[id])) return id;
 *     if (!gcs_index_room(&x, n, hash_of_id, array)) ...;   // before adding id n
 *     gcs_index_put(&x, h, n);
 */
typedef struct gcs_index {
    uint32_t *slots;
    size_t cap; /* a power of two, or 0 */
} gcs_index;

typedef uint64_t (*gcs_index_hash_fn)(const void *ctx, uint32_t id);

static inline size_t gcs_index_first(const gcs_index *x, uint64_t hash)
{
    return x->cap ? (size_t)hash & (x->cap - 1) : 0;
}

static inline size_t gcs_index_next(const gcs_index *x, size_t k)
{
    return (k + 1) & (x->cap - 1);
}

/* The id at slot k, false when the slot is empty (the sequence ends). */
static inline bool gcs_index_id(const gcs_index *x, size_t k, uint32_t *id)
{
    if (!x->cap || !x->slots[k])
        return false;
    *id = x->slots[k] - 1;
    return true;
}

/* Room for id n (ids 0 .. n-1 are in): doubles when the load would pass
 * 1/2, placing them again by hash(ctx, id). False when memory is short. */
bool gcs_index_room(gcs_index *x, size_t n, gcs_index_hash_fn hash, const void *ctx);

/* Puts id at the first empty slot of hash's sequence (after gcs_index_room). */
static inline void gcs_index_put(gcs_index *x, uint64_t hash, uint32_t id)
{
    size_t k = gcs_index_first(x, hash);
    while (x->slots[k])
        k = gcs_index_next(x, k);
    x->slots[k] = id + 1;
}

void gcs_index_free(gcs_index *x);

#endif
