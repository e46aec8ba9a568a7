/* pieces.h: job-array pieces of equal estimated cost. A cost profile of the grid (the
 * timed sample of a dry run: some points' indices and times) is read as a cost per point
 * that is constant between samples; the grid is then cut into N pieces whose estimated
 * costs are as equal as the shape of a result file allows (each piece a box of the grid
 * that is contiguous in C order, see is_grid_range_box), where is_grid_piece cuts it
 * into pieces of equal size whatever they cost.
 *
 * Memory: the profile (the sample) and the N + 1 bounds; nothing grows with the grid. */
#ifndef IMPACTSWEEP_PIECES_H
#define IMPACTSWEEP_PIECES_H

#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "grid.h"

/* One timed point of the sample. */
typedef struct is_cost_sample {
    uint64_t index;  /* its grid index */
    double seconds;  /* its time */
} is_cost_sample;

/* A cost profile over points 0 .. points - 1 (from samples sorted by index here). */
typedef struct is_cost_profile is_cost_profile;

/* Copies and sorts the samples (any order, repeated indices averaged). With none every
 * point costs the same. */
is_code is_cost_profile_create(uint64_t points, const is_cost_sample *samples, size_t count,
                               is_cost_profile **profile, is_error *err);
void is_cost_profile_free(is_cost_profile **profile);

/* The estimated cost of points first .. last - 1 (in seconds of the sample's points). */
double is_cost_profile_between(const is_cost_profile *profile, uint64_t first, uint64_t last);

/* Cuts the grid into `pieces` (1 <= pieces <= point_count) pieces of about equal cost:
 * bounds[0] = 0 < bounds[1] < ... < bounds[pieces] = point_count, piece i being points
 * bounds[i] .. bounds[i + 1] - 1, each a box of the grid (is_grid_range_box). */
is_code is_pieces_by_cost(const is_grid *grid, const is_cost_profile *profile, uint64_t pieces,
                          uint64_t *bounds, is_error *err);

/* The slowest of the pieces' estimated costs over their mean (1: perfectly even). */
double is_pieces_imbalance(const is_cost_profile *profile, const uint64_t *bounds,
                           uint64_t pieces);

#endif
