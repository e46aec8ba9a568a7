/* rng.c: the digest that turns parameter values into part of a generator counter. */
#include "rng.h"

#include <string.h>

/* The SplitMix64 finaliser: a bijection with good avalanche. */
static uint64_t mix64(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

uint64_t is_rng_digest_values(const double *values, size_t count)
{
    uint64_t h = 0x243F6A8885A308D3ull ^ (uint64_t)count;
    for (size_t i = 0; i < count; i++) {
        double v = values[i] == 0.0 ? 0.0 : values[i];
        uint64_t bits;
        memcpy(&bits, &v, sizeof bits);
        h = mix64(h ^ mix64(bits + 0x9E3779B97F4A7C15ull * (i + 1)));
    }
    return h;
}
