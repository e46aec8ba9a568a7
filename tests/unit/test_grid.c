/* test_grid.c: axis values, strides and point count, index <-> point mapping, the box
 * decomposition of index blocks, and job-array pieces (of equal size, and of equal cost:
 * pieces.h). */
#include <CUnit/CUnit.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/job/grid.h"
#include "core/job/pieces.h"
#include "core/run/units.h"
#include "check.h"
#include "suites.h"

/* A CUnit assertion with a formatted failure text showing the values involved. */

/* --- axes ------------------------------------------------------------------------- */

static void test_linear_endpoints_exact_and_even(void)
{
    is_axis axis = {0};
    is_error err = {0};
    const double from = 0.1, to = 0.7;
    const size_t count = 7;
    CU_ASSERT_EQUAL_FATAL(is_axis_fill(&axis, IS_SCALE_LINEAR, from, to, count, &err), IS_OK);
    CU_ASSERT_EQUAL(axis.count, count);
    CU_ASSERT_EQUAL(axis.scale, IS_SCALE_LINEAR);
    /* Exact ends: the job file's bounds are what the user will look up in the results. */
    CU_ASSERT(axis.values[0] == from);
    CU_ASSERT(axis.values[count - 1] == to);
    double step = (to - from) / (double)(count - 1);
    for (size_t i = 1; i < count; i++) {
        CHECK(axis.values[i] > axis.values[i - 1], "not increasing at %zu: %.17g <= %.17g", i,
              axis.values[i], axis.values[i - 1]);
        double expected = from + step * (double)i;
        CHECK(fabs(axis.values[i] - expected) <= 1e-14, "value %zu is %.17g, expected %.17g", i,
              axis.values[i], expected);
    }
    is_axis_free(&axis);
    CU_ASSERT_PTR_NULL(axis.values);
    CU_ASSERT_EQUAL(axis.count, 0);
}

/* from > to is a legitimate axis (a sweep downwards): ends exact, strictly decreasing. */
static void test_linear_decreasing(void)
{
    is_axis axis = {0};
    is_error err = {0};
    CU_ASSERT_EQUAL_FATAL(is_axis_fill(&axis, IS_SCALE_LINEAR, 3.0, -2.0, 11, &err), IS_OK);
    CU_ASSERT(axis.values[0] == 3.0);
    CU_ASSERT(axis.values[10] == -2.0);
    for (size_t i = 1; i < axis.count; i++)
        CHECK(axis.values[i] < axis.values[i - 1], "not decreasing at %zu", i);
    is_axis_free(&axis);
}

/* Integer parameters (n, samples, seed) are swept on linear axes and the job parser
 * rejects any axis value that is not an integer; so where the exact value is a double
 * (here every multiple of 10), the fill must produce it exactly, not 39.999999999999993. */
static void test_linear_hits_representable_values_exactly(void)
{
    is_axis axis = {0};
    is_error err = {0};
    CU_ASSERT_EQUAL_FATAL(is_axis_fill(&axis, IS_SCALE_LINEAR, 10.0, 100.0, 10, &err), IS_OK);
    for (size_t i = 0; i < axis.count; i++)
        CHECK(axis.values[i] == 10.0 * (double)(i + 1), "value %zu is %.17g, expected %g", i,
              axis.values[i], 10.0 * (double)(i + 1));
    CU_ASSERT_EQUAL_FATAL(is_axis_fill(&axis, IS_SCALE_LINEAR, 2.0, 64.0, 32, &err), IS_OK);
    for (size_t i = 0; i < axis.count; i++)
        CHECK(axis.values[i] == 2.0 * (double)(i + 1), "value %zu is %.17g, expected %g", i,
              axis.values[i], 2.0 * (double)(i + 1));
    is_axis_free(&axis);
}

static void test_log_endpoints_and_constant_ratio(void)
{
    is_axis axis = {0};
    is_error err = {0};
    const double from = 1e-3, to = 1e3;
    const size_t count = 13;
    CU_ASSERT_EQUAL_FATAL(is_axis_fill(&axis, IS_SCALE_LOG, from, to, count, &err), IS_OK);
    CU_ASSERT_EQUAL(axis.count, count);
    CU_ASSERT_EQUAL(axis.scale, IS_SCALE_LOG);
    CU_ASSERT(axis.values[0] == from);
    CU_ASSERT(axis.values[count - 1] == to);
    /* Geometric spacing: each step multiplies by (to/from)^(1/(count-1)); the bound
     * allows a few tens of ulps for exp/log, far below any linear-vs-log mix-up. */
    double ratio = pow(to / from, 1.0 / (double)(count - 1));
    for (size_t i = 1; i < count; i++) {
        CHECK(axis.values[i] > axis.values[i - 1], "not increasing at %zu", i);
        double r = axis.values[i] / axis.values[i - 1];
        CHECK(fabs(r / ratio - 1.0) < 1e-14, "ratio at %zu is %.17g, expected %.17g", i, r,
              ratio);
    }
    is_axis_free(&axis);
}

/* count = 1 is a single value, `from`, whatever `to` says (linear and log alike). */
static void test_count_one_gives_from(void)
{
    is_axis axis = {0};
    is_error err = {0};
    CU_ASSERT_EQUAL_FATAL(is_axis_fill(&axis, IS_SCALE_LINEAR, 0.25, 0.75, 1, &err), IS_OK);
    CU_ASSERT_EQUAL(axis.count, 1);
    CU_ASSERT(axis.values[0] == 0.25);
    CU_ASSERT_EQUAL_FATAL(is_axis_fill(&axis, IS_SCALE_LOG, 3.0, 300.0, 1, &err), IS_OK);
    CU_ASSERT_EQUAL(axis.count, 1);
    CU_ASSERT(axis.values[0] == 3.0);
    is_axis_free(&axis);
}

/* Bad requests fail with IS_JOB and leave the axis as it was (nothing half-filled). */
static void test_fill_errors(void)
{
    static const struct {
        double from, to;
    } bad_log[] = {{0.0, 1.0}, {-1.0, 1.0}, {1.0, 0.0}, {1.0, -5.0}};
    for (size_t i = 0; i < sizeof bad_log / sizeof *bad_log; i++) {
        is_axis axis = {0};
        is_error err = {0};
        is_code rc = is_axis_fill(&axis, IS_SCALE_LOG, bad_log[i].from, bad_log[i].to, 5, &err);
        CHECK(rc == IS_JOB, "log from %g to %g: code %d, expected IS_JOB", bad_log[i].from,
              bad_log[i].to, (int)rc);
        CU_ASSERT_EQUAL(err.code, IS_JOB);
        CU_ASSERT(err.message[0] != '\0');
        CU_ASSERT_PTR_NULL(axis.values);
        CU_ASSERT_EQUAL(axis.count, 0);
    }
    is_axis axis = {0};
    is_error err = {0};
    CU_ASSERT_EQUAL(is_axis_fill(&axis, IS_SCALE_LINEAR, 0.0, 1.0, 0, &err), IS_JOB);
    CU_ASSERT_PTR_NULL(axis.values);
    /* A failed refill keeps the old values. */
    CU_ASSERT_EQUAL_FATAL(is_axis_fill(&axis, IS_SCALE_LINEAR, 1.0, 2.0, 3, &err), IS_OK);
    CU_ASSERT_EQUAL(is_axis_fill(&axis, IS_SCALE_LOG, 0.0, 2.0, 3, &err), IS_JOB);
    CU_ASSERT_EQUAL(axis.count, 3);
    CU_ASSERT_PTR_NOT_NULL_FATAL(axis.values);
    CU_ASSERT(axis.values[0] == 1.0 && axis.values[2] == 2.0);
    is_axis_free(&axis);
}

/* --- grids built by hand ------------------------------------------------------------ */

#define TEST_PARAMS 6

/* A grid over `axis_count` axes of the given sizes, sweeping parameters params[k] of a
 * TEST_PARAMS-long base. Axis k runs from 100 k in steps of about 1, so that values of
 * different axes and indices never coincide. */
static void build_grid(is_grid *grid, const double *base, const size_t *sizes,
                       const int *params, size_t axis_count)
{
    memset(grid, 0, sizeof *grid);
    grid->base = base;
    grid->param_count = TEST_PARAMS;
    grid->axis_count = axis_count;
    for (size_t k = 0; k < axis_count; k++) {
        is_error err = {0};
        double from = 100.0 * (double)k;
        grid->axes[k].param = params[k];
        CU_ASSERT_EQUAL_FATAL(is_axis_fill(&grid->axes[k], IS_SCALE_LINEAR, from,
                                           from + (double)(sizes[k] - 1), sizes[k], &err),
                              IS_OK);
    }
    is_error err = {0};
    CU_ASSERT_EQUAL_FATAL(is_grid_finish(grid, &err), IS_OK);
}

static void free_grid(is_grid *grid)
{
    for (size_t k = 0; k < grid->axis_count; k++)
        is_axis_free(&grid->axes[k]);
}

/* Strides by definition: the product of the sizes of the later axes (C order, last
 * axis fastest); the point count is the product of all sizes. */
static void test_finish_strides_and_count(void)
{
    static const size_t sizes[][4] = {{7}, {3, 5}, {2, 3, 4}, {5, 1, 3, 2}};
    static const size_t axis_counts[] = {1, 2, 3, 4};
    static const int params[] = {0, 1, 2, 3};
    const double base[TEST_PARAMS] = {0};
    for (size_t g = 0; g < sizeof axis_counts / sizeof *axis_counts; g++) {
        is_grid grid;
        build_grid(&grid, base, sizes[g], params, axis_counts[g]);
        uint64_t product = 1;
        for (size_t k = axis_counts[g]; k-- > 0;) {
            CHECK(grid.stride[k] == product, "grid %zu axis %zu: stride %llu, expected %llu", g,
                  k, (unsigned long long)grid.stride[k], (unsigned long long)product);
            product *= sizes[g][k];
        }
        CHECK(grid.point_count == product, "grid %zu: %llu points, expected %llu", g,
              (unsigned long long)grid.point_count, (unsigned long long)product);
        free_grid(&grid);
    }
    /* No axes: the one point of the fixed parameters. */
    is_grid scalar;
    memset(&scalar, 0, sizeof scalar);
    scalar.base = base;
    scalar.param_count = TEST_PARAMS;
    is_error err = {0};
    CU_ASSERT_EQUAL(is_grid_finish(&scalar, &err), IS_OK);
    CU_ASSERT_EQUAL(scalar.point_count, 1);
}

/* is_grid_finish reads only the counts, so the huge grids here need no values. */
static is_code finish_counts(const uint64_t *counts, size_t axis_count, is_grid *grid,
                             is_error *err)
{
    memset(grid, 0, sizeof *grid);
    grid->axis_count = axis_count;
    for (size_t k = 0; k < axis_count; k++)
        grid->axes[k].count = (size_t)counts[k];
    return is_grid_finish(grid, err);
}

static void test_finish_point_limit(void)
{
    is_grid grid;
    is_error err = {0};
    const uint64_t half = UINT64_C(1) << 20;
    /* Exactly 2^40 points is allowed. */
    const uint64_t at_limit[] = {half, half};
    CU_ASSERT_EQUAL(finish_counts(at_limit, 2, &grid, &err), IS_OK);
    CU_ASSERT_EQUAL(grid.point_count, IS_GRID_MAX_POINTS);
    /* One more row is not. */
    const uint64_t above[] = {half + 1, half};
    is_error_clear(&err);
    CU_ASSERT_EQUAL(finish_counts(above, 2, &grid, &err), IS_JOB);
    CU_ASSERT_EQUAL(err.code, IS_JOB);
    CU_ASSERT(strstr(err.message, "2^40") != NULL);
    /* A product that wraps around 2^64 (2^96 points) must not slip through as small. */
    const uint64_t wrapping[] = {UINT64_C(1) << 32, UINT64_C(1) << 32, UINT64_C(1) << 32};
    is_error_clear(&err);
    CU_ASSERT_EQUAL(finish_counts(wrapping, 3, &grid, &err), IS_JOB);
    /* 2^41 spread over three axes, the limit crossed at the first (slowest) one. */
    const uint64_t three[] = {4, half, UINT64_C(1) << 19};
    is_error_clear(&err);
    CU_ASSERT_EQUAL(finish_counts(three, 3, &grid, &err), IS_JOB);
}

/* Point index <-> multi-index <-> values against a brute-force nested loop: C order,
 * first axis slowest. Parameters not swept keep their base values. */
static void test_unravel_and_point_round_trip(void)
{
    const size_t sizes[3] = {3, 4, 5};
    const int params[3] = {4, 1, 2}; /* deliberately not in parameter order */
    const double base[TEST_PARAMS] = {-1.0, -2.0, -3.0, -4.0, -5.0, -6.0};
    is_grid grid;
    build_grid(&grid, base, sizes, params, 3);
    CU_ASSERT_EQUAL_FATAL(grid.point_count, 60);
    uint64_t index = 0;
    for (size_t i0 = 0; i0 < sizes[0]; i0++)
        for (size_t i1 = 0; i1 < sizes[1]; i1++)
            for (size_t i2 = 0; i2 < sizes[2]; i2++, index++) {
                size_t multi[3] = {99, 99, 99};
                is_grid_unravel(&grid, index, multi);
                CHECK(multi[0] == i0 && multi[1] == i1 && multi[2] == i2,
                      "index %llu unravels to (%zu, %zu, %zu), expected (%zu, %zu, %zu)",
                      (unsigned long long)index, multi[0], multi[1], multi[2], i0, i1, i2);
                double point[TEST_PARAMS];
                is_grid_point(&grid, index, point);
                const size_t at[3] = {i0, i1, i2};
                for (int p = 0; p < TEST_PARAMS; p++) {
                    double expected = base[p];
                    for (int k = 0; k < 3; k++)
                        if (params[k] == p)
                            expected = grid.axes[k].values[at[k]];
                    CHECK(point[p] == expected,
                          "index %llu parameter %d is %g, expected %g",
                          (unsigned long long)index, p, point[p], expected);
                }
            }
    free_grid(&grid);
}

/* --- block boxes ---------------------------------------------------------------------- */

/* Walks the boxes in order, each in C order, and checks that together they are the
 * indices first .. first + count - 1, each once, in order; every box non-empty and
 * inside the grid; at most 2 * axis_count - 1 of them. Returns 1 when all held. */
static int check_blocks(const is_grid *grid, uint64_t first, uint64_t count, const char *name)
{
    is_grid_box boxes[2 * IS_GRID_MAX_AXES];
    memset(boxes, 0, sizeof boxes);
    size_t nb = is_grid_block_boxes(grid, first, count, boxes);
    size_t n_axes = grid->axis_count;
    size_t max_boxes = n_axes ? 2 * n_axes - 1 : 1;
    int ok = 1;
    if (nb > max_boxes || (count == 0 && nb != 0) || (count > 0 && nb == 0)) {
        CHECK(0, "%s first %llu count %llu: %zu boxes (at most %zu allowed)", name,
              (unsigned long long)first, (unsigned long long)count, nb, max_boxes);
        return 0;
    }
    uint64_t expected = first;
    for (size_t b = 0; b < nb && ok; b++) {
        const is_grid_box *box = &boxes[b];
        for (size_t k = 0; k < n_axes; k++)
            if (box->count[k] == 0 || box->start[k] + box->count[k] > grid->axes[k].count) {
                CHECK(0, "%s first %llu count %llu: box %zu axis %zu is [%llu, +%llu), outside "
                      "or empty",
                      name, (unsigned long long)first, (unsigned long long)count, b, k,
                      (unsigned long long)box->start[k], (unsigned long long)box->count[k]);
                return 0;
            }
        /* Odometer over the box, last axis fastest. */
        uint64_t offset[IS_GRID_MAX_AXES] = {0};
        for (;;) {
            uint64_t index = 0;
            for (size_t k = 0; k < n_axes; k++)
                index += (box->start[k] + offset[k]) * grid->stride[k];
            if (index != expected) {
                CHECK(0, "%s first %llu count %llu: box %zu yields index %llu, expected %llu",
                      name, (unsigned long long)first, (unsigned long long)count, b,
                      (unsigned long long)index, (unsigned long long)expected);
                return 0;
            }
            expected++;
            size_t k = n_axes;
            while (k > 0 && ++offset[k - 1] == box->count[k - 1])
                offset[--k] = 0;
            if (k == 0)
                break;
        }
    }
    if (expected != first + count) {
        CHECK(0, "%s first %llu count %llu: boxes cover %llu indices", name,
              (unsigned long long)first, (unsigned long long)count,
              (unsigned long long)(expected - first));
        ok = 0;
    }
    return ok;
}

/* Every (first, count) range of several small grids: this is what the scheduler hands
 * out and what the writer turns into HDF5 hyperslabs, so a gap or overlap here is lost
 * or doubly written results. */
static void test_block_boxes_cover_every_range(void)
{
    static const struct {
        const char *name;
        size_t axis_count;
        size_t sizes[4];
    } grids[] = {
        {"7", 1, {7}},
        {"1", 1, {1}},
        {"3x5", 2, {3, 5}},
        {"5x1", 2, {5, 1}},
        {"3x5x7", 3, {3, 5, 7}},
        {"2x1x3", 3, {2, 1, 3}},
        {"3x2x1x3", 4, {3, 2, 1, 3}},
    };
    static const int params[4] = {0, 1, 2, 3};
    const double base[TEST_PARAMS] = {0};
    for (size_t g = 0; g < sizeof grids / sizeof *grids; g++) {
        is_grid grid;
        build_grid(&grid, base, grids[g].sizes, params, grids[g].axis_count);
        size_t failures = 0;
        for (uint64_t first = 0; first <= grid.point_count && failures < 5; first++)
            for (uint64_t count = 0; first + count <= grid.point_count && failures < 5; count++)
                failures += !check_blocks(&grid, first, count, grids[g].name);
        free_grid(&grid);
    }
}

/* The grid without axes has one point; a block is that point or nothing. */
static void test_block_boxes_scalar_grid(void)
{
    const double base[TEST_PARAMS] = {0};
    is_grid grid;
    memset(&grid, 0, sizeof grid);
    grid.base = base;
    grid.param_count = TEST_PARAMS;
    is_error err = {0};
    CU_ASSERT_EQUAL_FATAL(is_grid_finish(&grid, &err), IS_OK);
    CU_ASSERT(check_blocks(&grid, 0, 1, "scalar"));
    CU_ASSERT(check_blocks(&grid, 0, 0, "scalar"));
    CU_ASSERT(check_blocks(&grid, 1, 0, "scalar"));
}

/* A bigger grid, sampled: pseudo-random ranges, most of which straddle slices of every
 * axis at once, the case that needs the most boxes. */
static void test_block_boxes_large_grid_sampled(void)
{
    const size_t sizes[3] = {37, 41, 43};
    static const int params[3] = {0, 1, 2};
    const double base[TEST_PARAMS] = {0};
    is_grid grid;
    build_grid(&grid, base, sizes, params, 3);
    unsigned state = 12345u;
    size_t failures = 0;
    for (int trial = 0; trial < 400 && failures < 5; trial++) {
        state = state * 1103515245u + 12345u;
        uint64_t first = (state >> 4) % grid.point_count;
        state = state * 1103515245u + 12345u;
        uint64_t count = (state >> 4) % (grid.point_count - first + 1);
        failures += !check_blocks(&grid, first, count, "37x41x43");
    }
    /* From inside the first row of the first plane to inside the last row of the last
     * plane: partial row, partial plane, whole planes, partial plane, partial row. */
    CU_ASSERT(check_blocks(&grid, 1, grid.point_count - 2, "37x41x43 nearly all"));
    free_grid(&grid);
}


/* --- long axes and job-array pieces -------------------------------------------------- */

/* An axis longer than the cache computes its values on demand: the same formula, so the
 * ends are exact, the steps even, and an integer axis rounds as a cached one does. */
static void test_long_axis_without_table(void)
{
    is_axis axis;
    memset(&axis, 0, sizeof axis);
    is_error err = {0};
    size_t count = IS_AXIS_CACHE_MAX + 7;
    CU_ASSERT_EQUAL_FATAL(is_axis_fill(&axis, IS_SCALE_LINEAR, -1.0, 2.0, count, &err), IS_OK);
    CU_ASSERT_PTR_NULL(axis.values); /* nothing per point */
    CU_ASSERT(is_axis_value(&axis, 0) == -1.0);
    CU_ASSERT(is_axis_value(&axis, count - 1) == 2.0);
    double step = 3.0 / (double)(count - 1);
    size_t bad = 0;
    for (size_t i = 1; i < count; i++) {
        double v = is_axis_value(&axis, i), expected = -1.0 + step * (double)i;
        bad += !(v > is_axis_value(&axis, i - 1)) || fabs(v - expected) > 1e-14;
    }
    CHECK(bad == 0, "%zu values out of order or off the line", bad);
    /* the same axis, short enough for a table, gives the same bits at the same index */
    is_axis shorter;
    memset(&shorter, 0, sizeof shorter);
    CU_ASSERT_EQUAL_FATAL(is_axis_fill(&shorter, IS_SCALE_LOG, 1.0, 64.0, 7, &err), IS_OK);
    is_axis_set_integral(&shorter);
    CU_ASSERT_PTR_NOT_NULL_FATAL(shorter.values);
    is_axis copy = shorter;
    copy.values = NULL; /* force the formula */
    for (size_t i = 0; i < 7; i++)
        CHECK(is_axis_value(&copy, i) == shorter.values[i] &&
                  shorter.values[i] == ldexp(1.0, (int)i),
              "log integer axis value %zu: formula %.17g, table %.17g", i, is_axis_value(&copy, i),
              shorter.values[i]);
    is_axis_free(&shorter);
    is_axis_free(&axis);
}

/* Pieces: each is a box (its indices, read in C order, are exactly [first, last)), they
 * tile the grid in order, and where the first axis has enough slices they are runs of
 * whole slices of near-equal length. */
static void test_pieces_are_boxes_that_tile(void)
{
    static const struct {
        size_t axis_count;
        size_t sizes[3];
    } grids[] = {{1, {10}}, {2, {3, 50}}, {2, {7, 5}}, {3, {37, 23, 5}}, {3, {2, 1, 9}}};
    static const int params[3] = {0, 1, 2};
    const double base[TEST_PARAMS] = {0};
    for (size_t g = 0; g < sizeof grids / sizeof *grids; g++) {
        is_grid grid;
        build_grid(&grid, base, grids[g].sizes, params, grids[g].axis_count);
        for (uint64_t n = 1; n <= grid.point_count && n <= 40; n++) {
            uint64_t next = 0;
            for (uint64_t i = 0; i < n; i++) {
                is_grid_box box;
                uint64_t first, last;
                is_grid_piece(&grid, n, i, &box, &first, &last);
                CHECK(first == next && last > first,
                      "grid %zu, piece %llu/%llu: [%llu, %llu) after %llu", g,
                      (unsigned long long)i, (unsigned long long)n, (unsigned long long)first,
                      (unsigned long long)last, (unsigned long long)next);
                /* the box's indices in C order are first, first + 1, ... */
                uint64_t size = 1, corner = 0;
                for (size_t k = 0; k < grid.axis_count; k++) {
                    size *= box.count[k];
                    corner += box.start[k] * grid.stride[k];
                }
                CHECK(size == last - first && corner == first,
                      "grid %zu, piece %llu/%llu is not the box of its range", g,
                      (unsigned long long)i, (unsigned long long)n);
                if (n <= grid.axes[0].count) {
                    uint64_t rows = box.count[0], lo = grid.axes[0].count / n;
                    CHECK(rows == lo || rows == lo + 1,
                          "grid %zu, piece %llu/%llu has %llu slices, expected %llu or %llu", g,
                          (unsigned long long)i, (unsigned long long)n,
                          (unsigned long long)rows, (unsigned long long)lo,
                          (unsigned long long)(lo + 1));
                }
                next = last;
            }
            CHECK(next == grid.point_count, "grid %zu: %llu pieces cover %llu of %llu points",
                  g, (unsigned long long)n, (unsigned long long)next,
                  (unsigned long long)grid.point_count);
        }
        free_grid(&grid);
    }
}

/* is_grid_range_box against brute force on small grids: a range is a piece exactly when
 * the bounding box of its points' multi-indices holds no other point, and then the box
 * returned is that bounding box. */
static void test_range_box_is_exactly_the_contiguous_boxes(void)
{
    static const struct {
        size_t axis_count;
        size_t sizes[3];
    } grids[] = {{1, {6}}, {2, {3, 4}}, {2, {1, 5}}, {3, {2, 3, 4}}, {3, {3, 1, 2}}};
    static const int params[3] = {0, 1, 2};
    const double base[TEST_PARAMS] = {0};
    size_t wrong = 0, boxes = 0;
    for (size_t g = 0; g < sizeof grids / sizeof *grids; g++) {
        is_grid grid;
        build_grid(&grid, base, grids[g].sizes, params, grids[g].axis_count);
        uint64_t total = grid.point_count;
        for (uint64_t a = 0; a < total; a++)
            for (uint64_t b = a + 1; b <= total; b++) {
                size_t lo[3] = {SIZE_MAX, SIZE_MAX, SIZE_MAX}, hi[3] = {0, 0, 0}, multi[3];
                for (uint64_t i = a; i < b; i++) {
                    is_grid_unravel(&grid, i, multi);
                    for (size_t k = 0; k < grid.axis_count; k++) {
                        lo[k] = multi[k] < lo[k] ? multi[k] : lo[k];
                        hi[k] = multi[k] > hi[k] ? multi[k] : hi[k];
                    }
                }
                uint64_t bounding = 1;
                for (size_t k = 0; k < grid.axis_count; k++)
                    bounding *= hi[k] - lo[k] + 1;
                is_grid_box box;
                int is_box = is_grid_range_box(&grid, a, b, &box);
                int same = is_box == (bounding == b - a);
                for (size_t k = 0; is_box && k < grid.axis_count; k++)
                    same &= box.start[k] == lo[k] && box.count[k] == hi[k] - lo[k] + 1;
                wrong += !same;
                boxes += is_box;
            }
        CHECK(!is_grid_range_box(&grid, 0, total + 1, &(is_grid_box){{0}, {0}}) &&
                  !is_grid_range_box(&grid, 2, 2, &(is_grid_box){{0}, {0}}),
              "grid %zu: an empty range or one beyond the grid is a piece", g);
        free_grid(&grid);
    }
    CHECK(wrong == 0, "%zu ranges judged wrongly (of which %zu boxes found)", wrong, boxes);
}

/* A deterministic pseudo-random sequence for the tests below (no global state). */
static uint64_t next_random(uint64_t *state)
{
    *state = *state * 6364136223846793005ull + 1442695040888963407ull;
    return *state >> 33;
}

/* The cost of points first .. last - 1 when point i costs cost[i]. */
static double true_cost(const double *cost, uint64_t first, uint64_t last)
{
    double sum = 0;
    for (uint64_t i = first; i < last; i++)
        sum += cost[i];
    return sum;
}

/* A profile sampled at every point reproduces the point costs exactly (sums of pieces),
 * and one sample makes every point cost the same. */
static void test_cost_profile_sums(void)
{
    const double cost[7] = {1, 2, 4, 8, 16, 32, 64};
    is_cost_sample all[7];
    for (size_t i = 0; i < 7; i++) /* given out of order, with a repeat that averages */
        all[i] = (is_cost_sample){.index = (uint64_t)(6 - i), .seconds = cost[6 - i]};
    is_cost_profile *p = NULL;
    is_error err = {0};
    CU_ASSERT_EQUAL_FATAL(is_cost_profile_create(7, all, 7, &p, &err), IS_OK);
    for (uint64_t a = 0; a < 7; a++)
        for (uint64_t b = a; b <= 7; b++)
            CHECK(fabs(is_cost_profile_between(p, a, b) - true_cost(cost, a, b)) < 1e-12,
                  "cost of [%llu, %llu): %g, expected %g", (unsigned long long)a,
                  (unsigned long long)b, is_cost_profile_between(p, a, b), true_cost(cost, a, b));
    is_cost_profile_free(&p);
    is_cost_sample one = {.index = 3, .seconds = 0.5}, twice[2] = {{2, 1.0}, {2, 3.0}};
    CU_ASSERT_EQUAL_FATAL(is_cost_profile_create(10, &one, 1, &p, &err), IS_OK);
    CHECK(fabs(is_cost_profile_between(p, 2, 6) - 2.0) < 1e-12, "one sample: cost %g, not 2",
          is_cost_profile_between(p, 2, 6));
    is_cost_profile_free(&p);
    CU_ASSERT_EQUAL_FATAL(is_cost_profile_create(4, twice, 2, &p, &err), IS_OK);
    CHECK(fabs(is_cost_profile_between(p, 0, 4) - 8.0) < 1e-12, "a repeat: cost %g, not 8",
          is_cost_profile_between(p, 0, 4));
    is_cost_profile_free(&p);
}

/* Checks a cut: bounds from 0 to the end, increasing, every piece a box. */
static int cut_is_valid(const is_grid *grid, const uint64_t *bounds, uint64_t n)
{
    int ok = bounds[0] == 0 && bounds[n] == grid->point_count;
    for (uint64_t i = 0; i < n && ok; i++) {
        is_grid_box box;
        ok = bounds[i] < bounds[i + 1] && is_grid_range_box(grid, bounds[i], bounds[i + 1], &box);
    }
    return ok;
}

/* Pieces of equal cost, on random grids and random (heavy-tailed) point costs sampled at
 * every point: every cut is valid (N boxes tiling the grid in order), and its costliest
 * piece is never costlier than the costliest of the N pieces of equal size (those are a
 * cut of the same kind, and the cut of equal cost has the least largest piece among
 * them), nor below the mean. */
static void test_pieces_by_cost_valid_and_no_worse(void)
{
    static const int params[3] = {0, 1, 2};
    const double base[TEST_PARAMS] = {0};
    uint64_t state = 12345;
    size_t bad = 0, worse = 0, cuts = 0;
    for (int trial = 0; trial < 60; trial++) {
        size_t axis_count = 1 + next_random(&state) % 3, sizes[3];
        for (size_t k = 0; k < 3; k++)
            sizes[k] = 1 + next_random(&state) % 9;
        is_grid grid;
        build_grid(&grid, base, sizes, params, axis_count);
        uint64_t total = grid.point_count;
        double *cost = malloc(total * sizeof *cost);
        is_cost_sample *samples = malloc(total * sizeof *samples);
        uint64_t *bounds = malloc((total + 1) * sizeof *bounds);
        uint64_t *equal = malloc((total + 1) * sizeof *equal);
        for (uint64_t i = 0; i < total; i++) {
            double u = (double)(next_random(&state) % 1000 + 1) / 1000.0;
            cost[i] = trial % 3 == 0 ? 1.0 : 1e-3 / (u * u); /* uniform, or heavy-tailed */
            samples[i] = (is_cost_sample){.index = i, .seconds = cost[i]};
        }
        is_cost_profile *p = NULL;
        is_error err = {0};
        CU_ASSERT_EQUAL_FATAL(is_cost_profile_create(total, samples, total, &p, &err), IS_OK);
        for (uint64_t n = 1; n <= total && n <= 25; n++) {
            cuts++;
            if (is_pieces_by_cost(&grid, p, n, bounds, &err) != IS_OK ||
                !cut_is_valid(&grid, bounds, n)) {
                bad++;
                continue;
            }
            for (uint64_t i = 0; i < n; i++) {
                is_grid_box box;
                is_grid_piece(&grid, n, i, &box, &equal[i], &equal[i + 1]);
            }
            double by_cost = is_pieces_imbalance(p, bounds, n);
            worse += by_cost > is_pieces_imbalance(p, equal, n) * (1 + 1e-6) || by_cost < 1 - 1e-9;
        }
        is_cost_profile_free(&p);
        free(cost);
        free(samples);
        free(bounds);
        free(equal);
        free_grid(&grid);
    }
    CHECK(bad == 0, "%zu of %zu cuts invalid", bad, cuts);
    CHECK(worse == 0, "%zu of %zu cuts costlier than equal sizes (or below the mean)", worse, cuts);
}

/* Exact cases: uniform cost over 8 x 5 in 8 pieces gives the 8 rows. With the last row
 * at 7 a point and the others at 1 (70 in all, 8.75 a piece), the best cut of this kind
 * is 4 pieces of whole rows (10, 10, 10, 5) and the last row in 4 (14, 7, 7, 7): the
 * costliest 14 = 1.6 x the mean (3 pieces of rows leave 15), where equal sizes give
 * the last row alone, 35 = 4 x. */
static void test_pieces_by_cost_exact_cases(void)
{
    static const int params[2] = {0, 1};
    const double base[TEST_PARAMS] = {0};
    const size_t sizes[2] = {8, 5};
    is_grid grid;
    build_grid(&grid, base, sizes, params, 2);
    is_cost_sample samples[40];
    for (uint64_t i = 0; i < 40; i++)
        samples[i] = (is_cost_sample){.index = i, .seconds = i >= 35 ? 7.0 : 1.0};
    is_cost_profile *p = NULL;
    is_error err = {0};
    uint64_t bounds[9], equal[9];
    CU_ASSERT_EQUAL_FATAL(is_cost_profile_create(40, samples, 1, &p, &err), IS_OK);
    CU_ASSERT_EQUAL_FATAL(is_pieces_by_cost(&grid, p, 8, bounds, &err), IS_OK);
    for (uint64_t i = 0; i <= 8; i++)
        CHECK(bounds[i] == 5 * i, "uniform: bound %llu is %llu, not %llu", (unsigned long long)i,
              (unsigned long long)bounds[i], (unsigned long long)(5 * i));
    is_cost_profile_free(&p);
    CU_ASSERT_EQUAL_FATAL(is_cost_profile_create(40, samples, 40, &p, &err), IS_OK);
    CU_ASSERT_EQUAL_FATAL(is_pieces_by_cost(&grid, p, 8, bounds, &err), IS_OK);
    for (uint64_t i = 0; i < 8; i++) {
        is_grid_box box;
        is_grid_piece(&grid, 8, i, &box, &equal[i], &equal[i + 1]);
    }
    int last_row_pieces = 0;
    for (uint64_t i = 0; i < 8; i++)
        last_row_pieces += bounds[i] >= 35;
    CHECK(last_row_pieces == 4, "the costly last row got %d pieces, not 4", last_row_pieces);
    CHECK(fabs(is_pieces_imbalance(p, bounds, 8) - 1.6) < 1e-9 &&
              fabs(is_pieces_imbalance(p, equal, 8) - 4.0) < 1e-9,
          "imbalance by cost %.3f, by size %.3f", is_pieces_imbalance(p, bounds, 8),
          is_pieces_imbalance(p, equal, 8));
    CU_ASSERT_NOT_EQUAL(is_pieces_by_cost(&grid, p, 41, bounds, &err), IS_OK);
    is_cost_profile_free(&p);
    free_grid(&grid);
}

/* The work units of rank 0's plan (units.h), asked for by ranks in a pseudo-random order,
 * sizes varied: every point is handed out exactly once; a rank's units follow one another
 * until its region runs out (then it takes over part of another's); with a pending map, no
 * unit lies wholly in segments with nothing pending. */
static void check_units(uint64_t points, int ranks, int rank0_computes, const is_pending_map *map)
{
    is_units u;
    is_error err;
    uint64_t pending = points;
    if (map) {
        pending = 0;
        for (uint64_t s = 0; s < map->segment_count; s++)
            pending += map->pending[s];
    }
    CHECK(is_units_init(&u, map, points, pending, ranks, rank0_computes, &err) == IS_OK,
          "init: %s", err.message);
    unsigned char *seen = calloc(points ? points : 1, 1);
    uint64_t *last_end = calloc((size_t)ranks, sizeof *last_end);
    unsigned seed = (unsigned)(points * 31 + (uint64_t)ranks);
    int jumps = 0, live = ranks - (rank0_computes || ranks == 1 ? 0 : 1);
    for (;;) {
        int rank = (rank0_computes || ranks == 1 ? 0 : 1) + rand_r(&seed) % live;
        uint64_t want = 1 + (uint64_t)rand_r(&seed) % (points / 7 + 3), first, count;
        if (!is_units_next(&u, rank, want, &first, &count))
            break;
        CHECK(count > 0 && first + count <= points, "unit %llu + %llu outside the grid",
              (unsigned long long)first, (unsigned long long)count);
        for (uint64_t i = first; i < first + count && i < points; i++) {
            CHECK(!seen[i], "point %llu handed out twice", (unsigned long long)i);
            seen[i] = 1;
        }
        if (map) {
            uint64_t any = 0;
            for (uint64_t i = first; i < first + count; i++)
                any += map->pending[i / map->segment_length];
            CHECK(any > 0, "a unit of nothing pending at %llu", (unsigned long long)first);
        }
        jumps += last_end[rank] && first != last_end[rank];
        last_end[rank] = first + count;
    }
    for (uint64_t i = 0; i < points; i++)
        if (!map || map->pending[i / map->segment_length])
            CHECK(seen[i], "pending point %llu never handed out", (unsigned long long)i);
    /* a jump is a take-over (each halves a region): few, against many units */
    CHECK(jumps <= 64 * ranks, "%d jumps on %d ranks", jumps, ranks);
    CHECK(!is_units_next(&u, 0, 5, &(uint64_t){0}, &(uint64_t){0}), "a unit after the end");
    free(seen);
    free(last_end);
    is_units_free(&u);
}

static void test_units_hand_out_every_point_once(void)
{
    const uint64_t sizes[] = {1, 2, 7, 30, 4096, 100003, 1 << 20};
    for (size_t k = 0; k < sizeof sizes / sizeof *sizes; k++)
        for (int ranks = 1; ranks <= 5; ranks++) {
            check_units(sizes[k], ranks, 1, NULL);
            check_units(sizes[k], ranks, 0, NULL);
        }
    /* a resume: segments of 4096 points, every third with nothing pending */
    uint64_t points = 10 * 4096 + 5;
    uint64_t pending[11];
    is_pending_map map = {points, 4096, 11, pending};
    for (int s = 0; s < 11; s++)
        pending[s] = s % 3 == 1 ? 0 : (uint64_t)is_pending_segment_length(&map, (uint64_t)s);
    for (int ranks = 1; ranks <= 4; ranks++)
        check_units(points, ranks, 1, &map);
}

void suite_grid(void)
{
    CU_pSuite suite = CU_add_suite("grid", NULL, NULL);
    CU_add_test(suite, "linear axis: exact ends, even steps", test_linear_endpoints_exact_and_even);
    CU_add_test(suite, "linear axis: decreasing", test_linear_decreasing);
    CU_add_test(suite, "linear axis: representable values exact",
                test_linear_hits_representable_values_exactly);
    CU_add_test(suite, "log axis: exact ends, constant ratio",
                test_log_endpoints_and_constant_ratio);
    CU_add_test(suite, "axis with count 1 is from", test_count_one_gives_from);
    CU_add_test(suite, "axis fill errors", test_fill_errors);
    CU_add_test(suite, "strides and point count", test_finish_strides_and_count);
    CU_add_test(suite, "2^40 point limit", test_finish_point_limit);
    CU_add_test(suite, "unravel and point round trip", test_unravel_and_point_round_trip);
    CU_add_test(suite, "block boxes cover every range", test_block_boxes_cover_every_range);
    CU_add_test(suite, "block boxes of the scalar grid", test_block_boxes_scalar_grid);
    CU_add_test(suite, "block boxes of a large grid", test_block_boxes_large_grid_sampled);
    CU_add_test(suite, "long axis without a table", test_long_axis_without_table);
    CU_add_test(suite, "pieces are boxes that tile the grid", test_pieces_are_boxes_that_tile);
    CU_add_test(suite, "range pieces are exactly the contiguous boxes",
                test_range_box_is_exactly_the_contiguous_boxes);
    CU_add_test(suite, "cost profile sums", test_cost_profile_sums);
    CU_add_test(suite, "pieces by cost: valid, no worse than by size",
                test_pieces_by_cost_valid_and_no_worse);
    CU_add_test(suite, "pieces by cost: exact cases", test_pieces_by_cost_exact_cases);
    CU_add_test(suite, "work units: every point once, a rank's units in a row",
                test_units_hand_out_every_point_once);
}
