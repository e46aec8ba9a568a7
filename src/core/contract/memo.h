/* memo.h: a cache of fixed size for work that a model does for every point but that
 * depends on a few of the point's parameters only: the stop oscillator's 2-phase orbits
 * depend on k12 / k and not on epsilon or the initial state, so a map over (k12, epsilon)
 * would search them once per point instead of once per k12. A model keeps an is_memo in
 * its workspace (one workspace per worker: no locks), looks a value up by its key before
 * computing it, and puts it there after.
 *
 * What keeps results bit-identical whatever the order, batch or rank count: the value
 * must be a function of the key alone. The key holds every input the computation reads,
 * as the very doubles it reads (keys compare bit for bit), so that a hit gives the bits a
 * computation would have given.
 *
 * Memory: 2 `capacity` slots of key_count doubles and value_size bytes, fixed at creation,
 * never grid-sized; when a key's few slots (IS_MEMO_WAYS) are full, the least recently
 * used of them makes room. A value is computed once per distinct key on a worker as long
 * as the key recurs while it is among the last `capacity` distinct keys there (but for
 * the rare key whose slots others all hold): when the swept values of the key's
 * parameters number at most `capacity`, or vary slower than the others (outer axes);
 * otherwise some are computed again, as they would be without the memo.
 *
 * IMPACTSWEEP_SHARE=0 in the environment turns every memo off (each lookup misses): what
 * the tests compare against. Header only: a plug-in built against the installed headers
 * alone (NO_UNDEFINED) may use it. */
#ifndef IMPACTSWEEP_MEMO_H
#define IMPACTSWEEP_MEMO_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define IS_MEMO_WAYS 8 /* the slots a key may occupy, from its hash on */

typedef struct is_memo {
    size_t key_count, value_size;
    size_t capacity; /* slots: 0 (off), or a power of two >= IS_MEMO_WAYS */
    size_t stride;   /* bytes a slot: its last use, the key, the value (8-byte aligned) */
    uint64_t clock;  /* uses so far (a slot's last use; 0: empty) */
    uint64_t hits, misses;
    unsigned char *slots;
} is_memo;

/* A memo for `capacity` entries, or for none when IMPACTSWEEP_SHARE=0; NULL when out of
 * memory or the sizes overflow. It has twice as many slots (rounded up to a power of two),
 * so that a key rarely finds its few slots taken by others while fewer than `capacity`
 * keys are in use. */
static inline is_memo *is_memo_create(size_t key_count, size_t value_size, size_t capacity)
{
    const char *share = getenv("IMPACTSWEEP_SHARE");
    if (share && strcmp(share, "0") == 0)
        capacity = 0;
    size_t slots = capacity ? IS_MEMO_WAYS : 0;
    while (slots / 2 < capacity && slots <= SIZE_MAX / 2)
        slots *= 2;
    if (key_count > SIZE_MAX / 64 || value_size > SIZE_MAX / 64 || slots / 2 < capacity)
        return NULL;
    size_t stride = sizeof(uint64_t) + key_count * sizeof(double) + (value_size + 7) / 8 * 8;
    if (slots && stride > SIZE_MAX / slots)
        return NULL;
    is_memo *m = calloc(1, sizeof *m);
    if (!m)
        return NULL;
    *m = (is_memo){
        .key_count = key_count, .value_size = value_size, .capacity = slots, .stride = stride};
    if (slots && !(m->slots = calloc(slots, stride))) {
        free(m);
        return NULL;
    }
    return m;
}

static inline void is_memo_free(is_memo *m)
{
    if (m)
        free(m->slots);
    free(m);
}

/* The memory a memo holds, in bytes. */
static inline size_t is_memo_bytes(const is_memo *m)
{
    return m ? sizeof *m + m->capacity * m->stride : 0;
}

/* The first of a key's slots (a hash of its bits). */
static inline size_t is_memo_home(const is_memo *m, const double *key)
{
    uint64_t h = 0x9e3779b97f4a7c15u;
    for (size_t i = 0; i < m->key_count; i++) {
        uint64_t bits;
        memcpy(&bits, &key[i], sizeof bits);
        h = (h ^ bits) * 0xff51afd7ed558ccdu;
        h ^= h >> 32;
    }
    return (size_t)h & (m->capacity - 1);
}

static inline unsigned char *is_memo_slot(const is_memo *m, size_t home, size_t way)
{
    return m->slots + ((home + way) & (m->capacity - 1)) * m->stride;
}

/* Is the slot in use with this key? */
static inline int is_memo_holds(const is_memo *m, const unsigned char *slot, const double *key)
{
    uint64_t used;
    memcpy(&used, slot, sizeof used);
    return used && memcmp(slot + sizeof used, key, m->key_count * sizeof *key) == 0;
}

/* The value stored for key (value_size bytes, 8-byte aligned; valid until the next put),
 * or NULL. */
static inline const void *is_memo_get(is_memo *m, const double *key)
{
    if (m->capacity) {
        size_t home = is_memo_home(m, key);
        for (size_t way = 0; way < IS_MEMO_WAYS; way++) {
            unsigned char *slot = is_memo_slot(m, home, way);
            if (is_memo_holds(m, slot, key)) {
                uint64_t now = ++m->clock;
                memcpy(slot, &now, sizeof now);
                m->hits++;
                return slot + sizeof now + m->key_count * sizeof *key;
            }
        }
    }
    m->misses++;
    return NULL;
}

/* Stores value_size bytes of value for key: in the key's own slot if it has one, else in
 * an empty one or the least recently used of the key's slots. */
static inline void is_memo_put(is_memo *m, const double *key, const void *value)
{
    if (!m->capacity)
        return;
    size_t home = is_memo_home(m, key);
    unsigned char *own = NULL, *oldest = NULL;
    uint64_t oldest_use = UINT64_MAX;
    for (size_t way = 0; way < IS_MEMO_WAYS && !own; way++) {
        unsigned char *slot = is_memo_slot(m, home, way);
        uint64_t used;
        memcpy(&used, slot, sizeof used);
        if (is_memo_holds(m, slot, key))
            own = slot;
        else if (used < oldest_use)
            oldest_use = used, oldest = slot;
    }
    unsigned char *best = own ? own : oldest;
    uint64_t now = ++m->clock;
    memcpy(best, &now, sizeof now);
    memcpy(best + sizeof now, key, m->key_count * sizeof *key);
    memcpy(best + sizeof now + m->key_count * sizeof *key, value, m->value_size);
}

#endif
