/* units.h: rank 0's plan of the work units (sched.c). The points still to compute are
 * dealt out as one contiguous region per computing rank at the start, and each rank's
 * units come from the front of its own region, one after the other: a rank's results are
 * then a run of consecutive points, which its write buffer stores in few large writes
 * (one per variable per full buffer) instead of a write per variable per unit. A rank
 * whose region runs out takes the back half of the largest region left (its owner keeps
 * the front), so the ranks still finish together. Which rank computes a point never
 * changes its result: a result depends on the point alone. Memory: two numbers a rank. */
#ifndef IMPACTSWEEP_UNITS_H
#define IMPACTSWEEP_UNITS_H

#include <stdint.h>

#include "error.h"
#include "pending.h"

/* Unit ends, and region bounds, are multiples of this many points once they are this
 * large or more: with 1-byte status and 8-byte outputs every write then starts on a 4 KiB
 * (32 KiB) boundary of its dataset, and no two ranks share a file-system page. */
#define IS_UNITS_QUANTUM 4096

typedef struct is_units_region {
    uint64_t next, end; /* points next .. end - 1 are still to hand out */
} is_units_region;

typedef struct is_units {
    const is_pending_map *map; /* NULL: every point is pending */
    is_units_region *regions;  /* per rank (an empty one for a rank that does not compute) */
    int ranks;
    uint64_t remaining;        /* points still to hand out, about this many pending */
} is_units;

/* Points 0 .. points - 1, about `pending` of them pending (map: where; NULL: all), dealt
 * out among ranks 0 .. ranks - 1, rank 0 included only where it computes. */
is_code is_units_init(is_units *u, const is_pending_map *map, uint64_t points, uint64_t pending,
                      int ranks, int rank0_computes, is_error *err);
void is_units_free(is_units *u);

/* The next unit of rank `rank`, of about `want` pending points: *first, *count; 0 when
 * no points are left anywhere. */
int is_units_next(is_units *u, int rank, uint64_t want, uint64_t *first, uint64_t *count);

#endif
