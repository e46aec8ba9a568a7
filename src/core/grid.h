/* grid.h: the parameter grid: axes (one per swept parameter), the Cartesian product in
 * C order (first axis slowest, as listed in the job file), point index <-> parameter
 * values, and the boxes that make up a contiguous block of point indices. */
#ifndef IMPACTSWEEP_GRID_H
#define IMPACTSWEEP_GRID_H

#include <stddef.h>
#include <stdint.h>

#include "error.h"

#define IS_GRID_MAX_AXES 16
/* Beyond this a sweep should be split into job-array pieces. */
#define IS_GRID_MAX_POINTS (UINT64_C(1) << 40)

typedef enum { IS_SCALE_LINEAR, IS_SCALE_LOG, IS_SCALE_VALUES } is_axis_scale;

typedef struct is_axis {
    int param;           /* index into the model's parameters */
    is_axis_scale scale;
    size_t count;
    double *values;      /* count values, owned by the axis */
} is_axis;

typedef struct is_grid {
    size_t axis_count;
    is_axis axes[IS_GRID_MAX_AXES];
    uint64_t stride[IS_GRID_MAX_AXES]; /* points per step along each axis */
    uint64_t point_count;
    size_t param_count;
    const double *base;  /* param_count values of the fixed parameters (not owned) */
} is_grid;

/* Fills axis->values: linear or logarithmic from `from` to `to` (both ends exact), or
 * count == 1 meaning just `from`. Log scales need from, to > 0. */
is_code is_axis_fill(is_axis *axis, is_axis_scale scale, double from, double to, size_t count,
                     is_error *err);
void is_axis_free(is_axis *axis);

/* Computes strides and the point count (with overflow check) of grid->axes. */
is_code is_grid_finish(is_grid *grid, is_error *err);

/* Multi-index (one entry per axis) of a point index. */
void is_grid_unravel(const is_grid *grid, uint64_t index, size_t *multi);

/* All param_count parameter values of point `index`: the base with axis values put in. */
void is_grid_point(const is_grid *grid, uint64_t index, double *params);

/* A box of the grid: start[k] .. start[k] + count[k] - 1 along each axis. */
typedef struct is_grid_box {
    uint64_t start[IS_GRID_MAX_AXES];
    uint64_t count[IS_GRID_MAX_AXES];
} is_grid_box;

/* Splits the point indices first .. first + count - 1 into at most 2 * axis_count - 1
 * boxes whose union, read in C order, is exactly that range. Returns the number of
 * boxes written to boxes[] (which must hold 2 * IS_GRID_MAX_AXES). */
size_t is_grid_block_boxes(const is_grid *grid, uint64_t first, uint64_t count,
                           is_grid_box *boxes);

#endif
