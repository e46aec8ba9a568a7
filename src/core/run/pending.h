/* pending.h: which parts of a result file still need computing, found without any rank
 * holding O(points): the ranks read `status` together, each a contiguous share in
 * blocks, and rank 0 receives a fixed-size map (points pending per segment of the file)
 * and the tally of every status. Used by --resume to plan the work units. */
#ifndef IMPACTSWEEP_PENDING_H
#define IMPACTSWEEP_PENDING_H

#include <mpi.h>
#include <stdint.h>

#include "error.h"
#include "model.h"
#include "results.h"

/* At most this many segments (512 KiB of counts), whatever the grid size. */
#define IS_PENDING_MAX_SEGMENTS 65536

typedef struct is_pending_map {
    uint64_t points;          /* points in the file */
    uint64_t segment_length;  /* points per segment (the last may be shorter) */
    uint64_t segment_count;
    uint64_t *pending;        /* rank 0: pending points of each segment; else NULL */
} is_pending_map;

/* Collective. Scans the status of the whole file; on rank 0 fills *map and
 * tally[status] (points per status; status values out of range count as failed_invalid
 * would not: they are refused as a damaged file). */
is_code is_pending_scan(is_results *results, MPI_Comm comm, is_pending_map *map,
                        uint64_t tally[IS_POINT_STATUS_COUNT], is_error *err);

/* A selection among the pending points (a pass of a refined sweep, refine.h): pick sets
 * *wanted to 1 when pending point `point` (an index of the file) is to be computed now.
 * Each rank passes its own context; pick may read the file. */
typedef struct is_pending_filter {
    is_code (*pick)(void *context, uint64_t point, int *wanted, is_error *err);
    void *context;
} is_pending_filter;

/* is_pending_scan where the map counts only the pending points the filter picks (NULL:
 * every pending point). */
is_code is_pending_scan_filtered(is_results *results, MPI_Comm comm,
                                 const is_pending_filter *filter, is_pending_map *map,
                                 uint64_t tally[IS_POINT_STATUS_COUNT], is_error *err);

void is_pending_free(is_pending_map *map);

/* Points in segment s, and the segment holding point i. */
uint64_t is_pending_segment_length(const is_pending_map *map, uint64_t s);

#endif
