/* grid.c: axis values, index arithmetic and block decomposition for the parameter grid. */
#include "grid.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

is_code is_axis_fill(is_axis *axis, is_axis_scale scale, double from, double to, size_t count,
                     is_error *err)
{
    if (count < 1)
        return is_error_set(err, IS_JOB, "count must be at least 1");
    if (scale == IS_SCALE_LOG && !(from > 0.0 && to > 0.0))
        return is_error_set(err, IS_JOB, "a log scale needs from > 0 and to > 0 (got %g, %g)",
                            from, to);
    double *values = malloc(count * sizeof *values);
    if (!values)
        return is_error_set(err, IS_NOMEM, "cannot allocate %zu axis values", count);
    if (count == 1) {
        values[0] = from;
    } else {
        double span = (double)(count - 1);
        double lf = scale == IS_SCALE_LOG ? log(from) : 0.0;
        double lt = scale == IS_SCALE_LOG ? log(to) : 0.0;
        for (size_t i = 0; i < count; i++) {
            double s = (double)i, r = (double)(count - 1 - i);
            /* Weighted sums divided last: exact wherever the value is representable
             * (integer steps come out as integers) and symmetric in the two ends. */
            values[i] = scale == IS_SCALE_LOG ? exp((r * lf + s * lt) / span)
                                              : (r * from + s * to) / span;
        }
        values[0] = from;
        values[count - 1] = to;
    }
    free(axis->values);
    axis->values = values;
    axis->count = count;
    axis->scale = scale;
    return IS_OK;
}

void is_axis_free(is_axis *axis)
{
    free(axis->values);
    axis->values = NULL;
    axis->count = 0;
}

is_code is_grid_finish(is_grid *grid, is_error *err)
{
    uint64_t total = 1;
    for (size_t k = grid->axis_count; k-- > 0;) {
        grid->stride[k] = total;
        uint64_t count = grid->axes[k].count;
        if (count == 0 || total > IS_GRID_MAX_POINTS / count)
            return is_error_set(err, IS_JOB,
                                "the grid has more than 2^40 points; split it into pieces");
        total *= count;
    }
    grid->point_count = total;
    return IS_OK;
}

void is_grid_unravel(const is_grid *grid, uint64_t index, size_t *multi)
{
    for (size_t k = 0; k < grid->axis_count; k++) {
        multi[k] = (size_t)(index / grid->stride[k]);
        index %= grid->stride[k];
    }
}

void is_grid_point(const is_grid *grid, uint64_t index, double *params)
{
    memcpy(params, grid->base, grid->param_count * sizeof *params);
    for (size_t k = 0; k < grid->axis_count; k++) {
        size_t i = (size_t)(index / grid->stride[k]);
        index %= grid->stride[k];
        params[grid->axes[k].param] = grid->axes[k].values[i];
    }
}

/* Boxes of the range [first, last) inside the sub-grid of axes k.., whose origin is
 * at[] on axes 0..k-1 (those are fixed at one index each). */
static size_t boxes_from(const is_grid *grid, size_t k, uint64_t first, uint64_t last,
                         uint64_t *at, is_grid_box *boxes)
{
    if (first >= last)
        return 0;
    if (k == grid->axis_count) { /* a single point */
        for (size_t a = 0; a < grid->axis_count; a++) {
            boxes->start[a] = at[a];
            boxes->count[a] = 1;
        }
        return 1;
    }
    uint64_t step = grid->stride[k];
    uint64_t head_end = (first + step - 1) / step * step; /* first multiple of step >= first */
    uint64_t tail_start = last / step * step;
    size_t made = 0;
    if (head_end > tail_start) { /* the whole range lies inside one slice of axis k */
        at[k] = first / step;
        return boxes_from(grid, k + 1, first - at[k] * step, last - at[k] * step, at, boxes);
    }
    if (first < head_end) { /* partial slice at the start */
        at[k] = first / step;
        made += boxes_from(grid, k + 1, first - at[k] * step, step, at, boxes + made);
    }
    if (head_end < tail_start) { /* whole slices: one box */
        is_grid_box *box = boxes + made++;
        for (size_t a = 0; a < k; a++) {
            box->start[a] = at[a];
            box->count[a] = 1;
        }
        box->start[k] = head_end / step;
        box->count[k] = (tail_start - head_end) / step;
        for (size_t a = k + 1; a < grid->axis_count; a++) {
            box->start[a] = 0;
            box->count[a] = grid->axes[a].count;
        }
    }
    if (tail_start < last) { /* partial slice at the end */
        at[k] = tail_start / step;
        made += boxes_from(grid, k + 1, 0, last - tail_start, at, boxes + made);
    }
    return made;
}

size_t is_grid_block_boxes(const is_grid *grid, uint64_t first, uint64_t count,
                           is_grid_box *boxes)
{
    uint64_t at[IS_GRID_MAX_AXES] = {0};
    if (grid->axis_count == 0) /* a single point, the scalar grid */
        return count > 0 ? 1 : 0;
    return boxes_from(grid, 0, first, first + count, at, boxes);
}
