/* grid.c: axis values, index arithmetic, block decomposition and job-array pieces of the
 * parameter grid (see grid.h). */
#include "grid.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "numtext.h"

/* --- axes ------------------------------------------------------------------------- */

static double integral_value(const is_axis *axis, double v)
{
    double r = nearbyint(v);
    return axis->scale == IS_SCALE_LOG || fabs(v - r) <= 1e-9 * fmax(1.0, fabs(r)) ? r : v;
}

static double formula_value(const is_axis *axis, size_t i)
{
    double v;
    if (i == 0) {
        v = axis->from;
    } else if (i == axis->count - 1) {
        v = axis->to;
    } else {
        double span = (double)(axis->count - 1), s = (double)i, r = (double)(axis->count - 1 - i);
        /* Weighted sums divided last: exact wherever the value is representable
         * (integer steps come out as integers) and symmetric in the two ends. */
        v = axis->scale == IS_SCALE_LOG ? exp((r * axis->log_from + s * axis->log_to) / span)
                                        : (r * axis->from + s * axis->to) / span;
    }
    return axis->integral ? integral_value(axis, v) : v;
}

double is_axis_value(const is_axis *axis, size_t i)
{
    return axis->values ? axis->values[i] : formula_value(axis, i);
}

/* The table of a short linear / log axis (a cache: the formula gives the same bits). */
static is_code fill_cache(is_axis *axis, is_error *err)
{
    free(axis->values);
    axis->values = NULL;
    if (axis->count > IS_AXIS_CACHE_MAX)
        return IS_OK;
    double *values = malloc(axis->count * sizeof *values);
    if (!values)
        return is_error_set(err, IS_NOMEM, "cannot allocate %zu axis values", axis->count);
    for (size_t i = 0; i < axis->count; i++)
        values[i] = formula_value(axis, i);
    axis->values = values;
    return IS_OK;
}

is_code is_axis_fill(is_axis *axis, is_axis_scale scale, double from, double to, size_t count,
                     is_error *err)
{
    if (count < 1)
        return is_error_set(err, IS_JOB, "count must be at least 1");
    if (scale == IS_SCALE_LOG && !(from > 0.0 && to > 0.0))
        return is_error_set(err, IS_JOB, "a log scale needs from > 0 and to > 0 (got %s, %s)",
                            IS_NUM(from), IS_NUM(to));
    is_axis filled = *axis;
    filled.values = NULL;
    filled.scale = scale;
    filled.count = count;
    filled.from = from;
    filled.to = count == 1 ? from : to;
    filled.log_from = scale == IS_SCALE_LOG ? log(from) : 0.0;
    filled.log_to = scale == IS_SCALE_LOG ? log(to) : 0.0;
    filled.integral = 0;
    is_code rc = fill_cache(&filled, err);
    if (rc != IS_OK)
        return rc;
    free(axis->values);
    *axis = filled;
    return IS_OK;
}

void is_axis_set_values(is_axis *axis, double *values, size_t count)
{
    free(axis->values);
    axis->values = values;
    axis->count = count;
    axis->scale = IS_SCALE_VALUES;
    axis->from = values[0];
    axis->to = values[count - 1];
    axis->integral = 0;
}

void is_axis_set_integral(is_axis *axis)
{
    axis->integral = 1;
    if (axis->scale == IS_SCALE_VALUES)
        return; /* listed values were each checked to be integers */
    is_error ignored;
    if (fill_cache(axis, &ignored) != IS_OK) {
        /* no table: the formula rounds each value as it is asked for */
        free(axis->values);
        axis->values = NULL;
    }
}

void is_axis_free(is_axis *axis)
{
    free(axis->values);
    axis->values = NULL;
    axis->count = 0;
}

/* --- the grid ----------------------------------------------------------------------- */

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
        params[grid->axes[k].param] = is_axis_value(&grid->axes[k], i);
    }
}

/* --- blocks as boxes ------------------------------------------------------------------ */

typedef struct shape {
    size_t rank;
    const uint64_t *dims;
    uint64_t stride[IS_GRID_MAX_AXES];
} shape;

/* Boxes of the range [first, last) inside the sub-array of axes k.., whose origin is
 * at[] on axes 0..k-1 (those are fixed at one index each). */
static size_t boxes_from(const shape *s, size_t k, uint64_t first, uint64_t last, uint64_t *at,
                         is_grid_box *boxes)
{
    if (first >= last)
        return 0;
    if (k == s->rank) { /* a single point */
        for (size_t a = 0; a < s->rank; a++) {
            boxes->start[a] = at[a];
            boxes->count[a] = 1;
        }
        return 1;
    }
    uint64_t step = s->stride[k];
    uint64_t head_end = (first + step - 1) / step * step; /* first multiple of step >= first */
    uint64_t tail_start = last / step * step;
    size_t made = 0;
    if (head_end > tail_start) { /* the whole range lies inside one slice of axis k */
        at[k] = first / step;
        return boxes_from(s, k + 1, first - at[k] * step, last - at[k] * step, at, boxes);
    }
    if (first < head_end) { /* partial slice at the start */
        at[k] = first / step;
        made += boxes_from(s, k + 1, first - at[k] * step, step, at, boxes + made);
    }
    if (head_end < tail_start) { /* whole slices: one box */
        is_grid_box *box = boxes + made++;
        for (size_t a = 0; a < k; a++) {
            box->start[a] = at[a];
            box->count[a] = 1;
        }
        box->start[k] = head_end / step;
        box->count[k] = (tail_start - head_end) / step;
        for (size_t a = k + 1; a < s->rank; a++) {
            box->start[a] = 0;
            box->count[a] = s->dims[a];
        }
    }
    if (tail_start < last) { /* partial slice at the end */
        at[k] = tail_start / step;
        made += boxes_from(s, k + 1, 0, last - tail_start, at, boxes + made);
    }
    return made;
}

size_t is_shape_block_boxes(size_t rank, const uint64_t *dims, uint64_t first, uint64_t count,
                            is_grid_box *boxes)
{
    if (rank == 0) /* a single point, the scalar grid */
        return count > 0 ? 1 : 0;
    shape s = {.rank = rank, .dims = dims};
    uint64_t total = 1;
    for (size_t k = rank; k-- > 0;) {
        s.stride[k] = total;
        total *= dims[k];
    }
    uint64_t at[IS_GRID_MAX_AXES] = {0};
    return boxes_from(&s, 0, first, first + count, at, boxes);
}

size_t is_grid_block_boxes(const is_grid *grid, uint64_t first, uint64_t count,
                           is_grid_box *boxes)
{
    uint64_t dims[IS_GRID_MAX_AXES];
    for (size_t k = 0; k < grid->axis_count; k++)
        dims[k] = grid->axes[k].count;
    return is_shape_block_boxes(grid->axis_count, dims, first, count, boxes);
}

/* --- job-array pieces ------------------------------------------------------------------ */

void is_grid_piece(const is_grid *grid, uint64_t pieces, uint64_t index, is_grid_box *box,
                   uint64_t *first, uint64_t *last)
{
    for (size_t k = 0; k < grid->axis_count; k++) {
        box->start[k] = 0;
        box->count[k] = grid->axes[k].count;
    }
    /* n pieces, of which we are number i, share the sub-grid of axes k.. */
    uint64_t n = pieces, i = index;
    for (size_t k = 0; k < grid->axis_count && n > 1; k++) {
        uint64_t c = grid->axes[k].count; /* products stay below 2^61: c < 2^40, n <= 2^20 */
        if (n <= c) { /* near-equal runs of whole slices */
            box->start[k] = i * c / n;
            box->count[k] = (i + 1) * c / n - box->start[k];
            break;
        }
        /* more pieces than slices: slice r takes pieces r n / c .. (r + 1) n / c - 1 */
        uint64_t r = ((i + 1) * c - 1) / n;
        uint64_t lo = r * n / c, hi = (r + 1) * n / c;
        box->start[k] = r;
        box->count[k] = 1;
        i -= lo;
        n = hi - lo;
    }
    uint64_t start = 0, size = 1;
    for (size_t k = 0; k < grid->axis_count; k++) {
        start += box->start[k] * grid->stride[k];
        size *= box->count[k];
    }
    *first = start;
    *last = start + size;
}

int is_grid_range_box(const is_grid *grid, uint64_t first, uint64_t last, is_grid_box *box)
{
    if (!(first < last && last <= grid->point_count))
        return 0;
    size_t axes = grid->axis_count;
    for (size_t k = 0; k < axes; k++) {
        uint64_t stride = grid->stride[k];
        uint64_t block = k == 0 ? grid->point_count : grid->stride[k - 1];
        /* a run of whole slices of axis k inside one slice of axis k - 1 */
        if (first % stride != 0 || last % stride != 0 || first / block != (last - 1) / block)
            continue;
        for (size_t j = 0; j < axes; j++) {
            uint64_t at = first / grid->stride[j] % grid->axes[j].count;
            box->start[j] = j <= k ? at : 0;
            box->count[j] = j < k ? 1 : j == k ? (last - first) / stride : grid->axes[j].count;
        }
        return 1;
    }
    return axes == 0; /* the scalar grid: its one point */
}
