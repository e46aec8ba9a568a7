/* rng.h: a counter-based random number generator (Philox4x32-10, Salmon et al., SC'11).
 *
 * There is no generator state: the numbers are a pure function of a 64-bit key
 * (the job's seed) and a 128-bit counter (which point, which draw). That is what makes
 * a sweep's results independent of the rank count and of the order of the work. */
#ifndef IMPACTSWEEP_RNG_H
#define IMPACTSWEEP_RNG_H

#include <stddef.h>
#include <stdint.h>

typedef struct { uint32_t v[4]; } is_rng_counter;
typedef struct { uint32_t v[2]; } is_rng_key;

static inline uint32_t is_rng__mulhilo(uint32_t a, uint32_t b, uint32_t *hi)
{
    uint64_t product = (uint64_t)a * b;
    *hi = (uint32_t)(product >> 32);
    return (uint32_t)product;
}

/* Philox4x32 with 10 rounds; reproduces the Random123 known-answer vectors. */
static inline is_rng_counter is_rng_philox4x32(is_rng_counter ctr, is_rng_key key)
{
    for (int round = 0; round < 10; round++) {
        if (round > 0) {
            key.v[0] += 0x9E3779B9u;
            key.v[1] += 0xBB67AE85u;
        }
        uint32_t hi0, hi1;
        uint32_t lo0 = is_rng__mulhilo(0xD2511F53u, ctr.v[0], &hi0);
        uint32_t lo1 = is_rng__mulhilo(0xCD9E8D57u, ctr.v[2], &hi1);
        is_rng_counter next = {{hi1 ^ ctr.v[1] ^ key.v[0], lo1, hi0 ^ ctr.v[3] ^ key.v[1], lo0}};
        ctr = next;
    }
    return ctr;
}

static inline is_rng_key is_rng_key_from_seed(uint64_t seed)
{
    is_rng_key key = {{(uint32_t)seed, (uint32_t)(seed >> 32)}};
    return key;
}

/* A uniform double in the open interval (0, 1), with 32 random bits. */
static inline double is_rng_uniform_open(uint32_t bits)
{
    return ((double)bits + 0.5) * 0x1p-32;
}

/* A 64-bit digest of parameter values (bit patterns, with -0 read as +0), for use as
 * part of a counter: a point's stream then depends on its values, not on where it sits
 * in a grid, so `impactsweep eval` reproduces any point of a sweep. */
uint64_t is_rng_digest_values(const double *values, size_t count);

#endif
