/* synthetic.c: a model whose every output is a closed-form function of its parameters,
 * so that a test knows each value a sweep must store, with a cost per point on demand (a
 * busy wait of `cost` seconds: a model slowed on purpose, to test time-sized units and
 * stops in the middle of a unit; or of `cpu_cost` seconds of the thread's CPU time, a cost
 * that a busy machine does not shrink, for the tests of estimates made in CPU time) and
 * failures on demand (points with x < fail_below get
 * failed_solver). Its cross-parameter check refuses x * y > limit, to test the checks
 * spread over the ranks. `scale` applies only with shape = scaled, to test the refusal
 * of values that do not apply. Its cheapness makes it the benchmark of the engine
 * itself. */
#include "synthetic.h"

#include <math.h>
#include <time.h>

enum { X, Y, COST, FAIL_BELOW, LIMIT, SHAPE, SCALE, CPU_COST, PARAM_COUNT };
enum { PLAIN, SCALED };

static const char *const shapes[] = {"plain", "scaled", NULL};
static const is_param_when when_scaled[] = {{"shape", 1u << SCALED}, {NULL, 0}};
enum { SUM, PRODUCT, CELL, SIGN, OUTPUT_COUNT };

static const is_param params[PARAM_COUNT] = {
    [X] = {"x", "first coordinate", "1", IS_PARAM_REAL, 0, -1e9, 1e9, 0, NULL, NULL, "$x$"},
    [Y] = {"y", "second coordinate", "1", IS_PARAM_REAL, 0, -1e9, 1e9, 0, NULL, NULL, "$y$"},
    [COST] = {"cost", "busy wait per point", "s", IS_PARAM_REAL, 0, 0, 60, 0, NULL, NULL, NULL},
    [FAIL_BELOW] = {"fail_below", "points with x below this fail (solver failure)", "1",
                    IS_PARAM_REAL, -1e300, -1e300, 1e300, 0, NULL, NULL, NULL},
    [LIMIT] = {"limit", "points with x * y above this are refused before the run", "1",
               IS_PARAM_REAL, 1e300, -1e300, 1e300, 0, NULL, NULL, NULL},
    [SHAPE] = {"shape", "plain product, or scaled by `scale`", "1", IS_PARAM_CHOICE, PLAIN, 0,
               1, IS_PARAM_FIXED_ONLY, shapes, NULL, NULL},
    [SCALE] = {"scale", "factor of the product (shape scaled)", "1", IS_PARAM_REAL, 1, -1e9,
               1e9, 0, NULL, when_scaled, NULL},
    [CPU_COST] = {"cpu_cost", "busy wait per point in the thread's CPU time", "s",
                  IS_PARAM_REAL, 0, 0, 60, 0, NULL, NULL, NULL},
};

static const char *const signs[] = {"negative", "zero", "positive", NULL};

static const is_output outputs[OUTPUT_COUNT] = {
    [SUM] = {"sum", "1", "x + y", IS_OUTPUT_REAL, NULL, 0, "$x + y$"},
    [PRODUCT] = {"product", "1", "x y (times scale with shape scaled)", IS_OUTPUT_REAL, NULL,
                 0, "$x y$"},
    [CELL] = {"cell", "1", "floor(x), where it fits in 32 bits", IS_OUTPUT_INT, NULL,
              IS_OUTPUT_MAY_BE_NAN, "$\\lfloor x \\rfloor$"},
    [SIGN] = {"sign", "1", "sign of x - y", IS_OUTPUT_CATEGORY, signs, 0, "sign of $x - y$"},
};

static is_code validate(const double *point, is_error *err)
{
    if (point[X] * point[Y] > point[LIMIT])
        return is_error_set(err, IS_PARAM, "x * y = %.17g exceeds limit = %.17g",
                            point[X] * point[Y], point[LIMIT]);
    return IS_OK;
}

static void busy_wait_on(clockid_t clock, double seconds)
{
    struct timespec t0, t;
    clock_gettime(clock, &t0);
    do
        clock_gettime(clock, &t);
    while ((double)(t.tv_sec - t0.tv_sec) + 1e-9 * (double)(t.tv_nsec - t0.tv_nsec) < seconds);
}

void synthetic_busy_wait(double seconds)
{
    busy_wait_on(CLOCK_MONOTONIC, seconds);
}

static is_code eval_batch(void *workspace, const double *points, size_t count, double *out,
                          uint8_t *status, is_error *err)
{
    (void)workspace, (void)err;
    for (size_t i = 0; i < count; i++) {
        const double *p = points + i * PARAM_COUNT;
        if (p[COST] > 0)
            synthetic_busy_wait(p[COST]);
        if (p[CPU_COST] > 0)
            busy_wait_on(CLOCK_THREAD_CPUTIME_ID, p[CPU_COST]);
        if (p[X] < p[FAIL_BELOW]) {
            status[i] = IS_POINT_FAILED_SOLVER;
            continue;
        }
        double d = p[X] - p[Y], cell = floor(p[X]);
        out[SUM * count + i] = p[X] + p[Y];
        out[PRODUCT * count + i] = p[X] * p[Y] * (p[SHAPE] == SCALED ? p[SCALE] : 1.0);
        out[CELL * count + i] = fabs(cell) < 2147483647.0 ? cell : NAN;
        out[SIGN * count + i] = d < 0 ? 0 : d == 0 ? 1 : 2;
        status[i] = IS_POINT_DONE;
    }
    return IS_OK;
}

const is_model is_model_synthetic = {
    IS_MODEL_HEADER,
    .name = "synthetic",
    .description = "closed-form outputs for the engine's tests (cost and failures on demand)",
    .params = params,
    .param_count = PARAM_COUNT,
    .outputs = outputs,
    .output_count = OUTPUT_COUNT,
    .validate = validate,
    .eval_batch = eval_batch,
};
