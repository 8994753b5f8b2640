/*
 * base/hash.h - the hashes of the open-addressing tables (not for input
 * bytes: they hash values already read).
 */
#ifndef GCS_BASE_HASH_H
#define GCS_BASE_HASH_H

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

#endif
