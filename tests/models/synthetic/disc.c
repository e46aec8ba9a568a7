/* disc.c: a model with a known boundary, for the tests of refined sweeps (refine.h): the
 * class of a point is whether it lies in the ball of radius r around (cx, cy, cz) (a disc
 * in the plane z = cz when z is not swept), and `dist` is its signed distance to the
 * sphere, so that a test knows the exact map a refined sweep must infer; `ridge` is a thin
 * band just outside the sphere (0.2 inside, 1 on the sphere, falling off as
 * 1 / (1 + d / ridge_width) at distance d outside), a feature thinner than a coarse cell
 * for the threshold rule of refinement to find. `cost` slows it
 * on purpose (a busy wait per point), for kills in the middle of a pass; points with
 * x < fail_below fail, to test failures at cell corners. Registered in the test builds
 * only (tests/models/test_registry.c). */
#include "disc.h"
#include "synthetic.h"

#include <math.h>

enum { X, Y, Z, CX, CY, CZ, R, COST, FAIL_BELOW, RIDGE_WIDTH, PARAM_COUNT };
enum { REGION, DIST, RIDGE, OUTPUT_COUNT };

static const is_param params[PARAM_COUNT] = {
    [X] = {"x", "first coordinate", "1", IS_PARAM_REAL, 0, -1e9, 1e9, 0, NULL},
    [Y] = {"y", "second coordinate", "1", IS_PARAM_REAL, 0, -1e9, 1e9, 0, NULL},
    [Z] = {"z", "third coordinate", "1", IS_PARAM_REAL, 0, -1e9, 1e9, 0, NULL},
    [CX] = {"cx", "centre, x", "1", IS_PARAM_REAL, 0, -1e9, 1e9, 0, NULL},
    [CY] = {"cy", "centre, y", "1", IS_PARAM_REAL, 0, -1e9, 1e9, 0, NULL},
    [CZ] = {"cz", "centre, z", "1", IS_PARAM_REAL, 0, -1e9, 1e9, 0, NULL},
    [R] = {"r", "radius", "1", IS_PARAM_REAL, 0.5, 0, 1e9, 0, NULL},
    [COST] = {"cost", "busy wait per point", "s", IS_PARAM_REAL, 0, 0, 60, 0, NULL},
    [FAIL_BELOW] = {"fail_below", "points with x below this fail (solver failure)", "1",
                    IS_PARAM_REAL, -1e300, -1e300, 1e300, 0, NULL},
    [RIDGE_WIDTH] = {"ridge_width", "width of the ridge outside the sphere", "1",
                     IS_PARAM_REAL, 0.02, 1e-9, 1e9, 0, NULL},
};

static const char *const regions[] = {"outside", "inside", NULL};

static const is_output outputs[OUTPUT_COUNT] = {
    [REGION] = {"region", "1", "inside the ball or outside", IS_OUTPUT_CATEGORY, regions},
    [DIST] = {"dist", "1", "distance to the centre minus r", IS_OUTPUT_REAL, NULL},
    [RIDGE] = {"ridge", "1", "a thin ridge just outside the sphere", IS_OUTPUT_REAL, NULL},
};

static is_code eval_batch(void *workspace, const double *points, size_t count, double *out,
                          uint8_t *status, is_error *err)
{
    (void)workspace, (void)err;
    for (size_t i = 0; i < count; i++) {
        const double *p = points + i * PARAM_COUNT;
        if (p[COST] > 0)
            synthetic_busy_wait(p[COST]);
        if (p[X] < p[FAIL_BELOW]) {
            status[i] = IS_POINT_FAILED_SOLVER;
            continue;
        }
        double dx = p[X] - p[CX], dy = p[Y] - p[CY], dz = p[Z] - p[CZ];
        double d = sqrt(dx * dx + dy * dy + dz * dz) - p[R];
        out[REGION * count + i] = d < 0;
        out[DIST * count + i] = d;
        out[RIDGE * count + i] = d < 0 ? 0.2 : 1 / (1 + d / p[RIDGE_WIDTH]);
        status[i] = IS_POINT_DONE;
    }
    return IS_OK;
}

const is_model is_model_disc = {
    IS_MODEL_HEADER,
    .name = "disc",
    .description = "a ball with a known boundary, for the tests of refined sweeps",
    .params = params,
    .param_count = PARAM_COUNT,
    .outputs = outputs,
    .output_count = OUTPUT_COUNT,
    .eval_batch = eval_batch,
};
