/* grid.h: the parameter grid: axes (one per swept parameter), the Cartesian product in
 * C order (first axis slowest, as listed in the job file), point index <-> parameter
 * values, the boxes that make up a contiguous block of point indices, and the split of
 * the grid into job-array pieces that are boxes themselves.
 *
 * Nothing here grows with the number of points: a linear or logarithmic axis is its
 * formula (its values are computed on demand, and cached only for short axes), an
 * explicit axis holds the values its job file lists. */
#ifndef IMPACTSWEEP_GRID_H
#define IMPACTSWEEP_GRID_H

#include <stddef.h>
#include <stdint.h>

#include "error.h"

#define IS_GRID_MAX_AXES 16
/* Beyond this a sweep should be split into job-array pieces. */
#define IS_GRID_MAX_POINTS (UINT64_C(1) << 40)
/* Linear and log axes up to this many values keep them in a table (512 KiB at most);
 * longer ones compute each value when asked, so that no rank holds O(points) memory
 * for a one-axis grid. */
#define IS_AXIS_CACHE_MAX 65536

typedef enum { IS_SCALE_LINEAR, IS_SCALE_LOG, IS_SCALE_VALUES } is_axis_scale;

typedef struct is_axis {
    int param;           /* index into the model's parameters */
    is_axis_scale scale;
    size_t count;
    double from, to;     /* linear / log: the two ends, both exact */
    double log_from, log_to;
    int integral;        /* values of an integer parameter (see is_axis_set_integral) */
    double *values;      /* IS_SCALE_VALUES: the listed values (owned); linear / log: a
                            table of is_axis_value() when count <= IS_AXIS_CACHE_MAX,
                            else NULL */
} is_axis;

/* Sets a linear or logarithmic axis from `from` to `to` (both ends exact), or count == 1
 * meaning just `from`. Log scales need from, to > 0. */
is_code is_axis_fill(is_axis *axis, is_axis_scale scale, double from, double to, size_t count,
                     is_error *err);
/* Takes ownership of values[count] (malloc'ed) as an explicit axis. */
void is_axis_set_values(is_axis *axis, double *values, size_t count);
/* Marks the axis as one of an integer parameter: a log axis rounds every value to the
 * nearest integer (2 ... 64 in 6 steps gives 2, 4, ..., 64); a linear one snaps values
 * within rounding of an integer and leaves the others for the range check to reject. */
void is_axis_set_integral(is_axis *axis);
/* Value i (0 <= i < count): the same bits whether cached or computed. */
double is_axis_value(const is_axis *axis, size_t i);
void is_axis_free(is_axis *axis);

typedef struct is_grid {
    size_t axis_count;
    is_axis axes[IS_GRID_MAX_AXES];
    uint64_t stride[IS_GRID_MAX_AXES]; /* points per step along each axis */
    uint64_t point_count;
    size_t param_count;
    const double *base;  /* param_count values of the fixed parameters (not owned) */
} is_grid;

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

/* The same for an array of `rank` dimensions dims[] (C order); the boxes' starts are
 * relative to the array. */
size_t is_shape_block_boxes(size_t rank, const uint64_t *dims, uint64_t first, uint64_t count,
                            is_grid_box *boxes);

/* Piece `index` of `pieces` (job arrays): a box of the grid, and therefore also the
 * contiguous point indices *first .. *last - 1. The first axis is split into near-equal
 * runs of whole slices; where there are more pieces than slices, each slice gets its
 * share of the pieces and is split the same way along the next axis. So every piece is
 * exactly a box (its file holds nothing else) and the pieces tile the grid in order.
 * Needs pieces <= point_count. */
void is_grid_piece(const is_grid *grid, uint64_t pieces, uint64_t index, is_grid_box *box,
                   uint64_t *first, uint64_t *last);

/* Is first .. last - 1 a piece a result file can hold, i.e. a box of the grid that is
 * also contiguous in C order (a run of whole slices of one axis, inside one slice of each
 * axis before it)? 1 and its box, or 0. is_grid_piece's pieces all are. */
int is_grid_range_box(const is_grid *grid, uint64_t first, uint64_t last, is_grid_box *box);

#endif
