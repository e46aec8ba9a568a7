/* arrays.c: a plug-in with array outputs (model contract 3.4), whose every value is an
 * exact function of its point, for the tests of the result file, its checksums, resume,
 * merge, info, eval and the Python module (tests/integration/test_arrays.sh):
 *   peak             rho + gamma                      (a scalar before the arrays)
 *   ramp[k], k < 5   rho * k + gamma for k <= 5 gamma, NaN beyond (dimension "k")
 *   counts[k], k < 3 k + floor(10 rho), int32         (dimension "counts_index")
 *   kind             rho > 1: high, else low          (a scalar category after them)
 * `delay` seconds of sleep a point make a run long enough to interrupt; `rtol`, a tolerance
 * the values do not depend on, lets self-verification and `models --check` compare every
 * value; the trace (two samples of rho and gamma) gives eval_batch's outputs. */
#include <impactsweep/model.h>
#include <math.h>
#include <time.h>

enum { RAMP = 5, COUNTS = 3 };

static const char *const kinds[] = {"low", "high", NULL};

static const is_param params[] = {
    {.name = "rho", .meaning = "slope", .unit = "1", .type = IS_PARAM_REAL,
     .default_value = 0.5, .min = 0, .max = 2},
    {.name = "gamma", .meaning = "offset", .unit = "1", .type = IS_PARAM_REAL,
     .default_value = 0.25, .min = 0, .max = 1, .flags = IS_PARAM_MAX_OPEN},
    {.name = "delay", .meaning = "seconds of sleep a point", .unit = "s",
     .type = IS_PARAM_REAL, .default_value = 0, .min = 0, .max = 1},
    {.name = "rtol", .meaning = "a tolerance the values do not depend on", .unit = "1",
     .type = IS_PARAM_REAL, .default_value = 1e-6, .min = 1e-14, .max = 1e-2,
     .flags = IS_PARAM_TOLERANCE},
};
enum { PARAMS = sizeof params / sizeof *params };

static const is_output outputs[] = {
    {.name = "peak", .unit = "1", .long_name = "rho + gamma", .type = IS_OUTPUT_REAL},
    {.name = "ramp", .unit = "1", .long_name = "rho k + gamma while k <= 5 gamma",
     .type = IS_OUTPUT_REAL, .flags = IS_OUTPUT_MAY_BE_NAN, .length = RAMP,
     .length_name = "k"},
    {.name = "counts", .unit = "1", .long_name = "k + floor(10 rho)", .type = IS_OUTPUT_INT,
     .length = COUNTS},
    {.name = "kind", .unit = "1", .long_name = "rho above 1", .type = IS_OUTPUT_CATEGORY,
     .categories = kinds},
};

static is_code eval_batch(void *ws, const double *points, size_t count, double *out,
                          uint8_t *status, is_error *err)
{
    (void)ws, (void)err;
    /* model.h's layout: peak at 0, ramp from count, counts from 6 count, kind at 9 count */
    double *peak = out, *ramp = out + count, *counts = out + (1 + RAMP) * count;
    double *kind = out + (1 + RAMP + COUNTS) * count;
    for (size_t i = 0; i < count; i++) {
        double rho = points[PARAMS * i], gamma = points[PARAMS * i + 1];
        double delay = points[PARAMS * i + 2];
        if (delay > 0) {
            struct timespec ts = {0, (long)(delay * 1e9)};
            nanosleep(&ts, NULL);
        }
        peak[i] = rho + gamma;
        for (int k = 0; k < RAMP; k++)
            ramp[i * RAMP + k] = k <= 5 * gamma ? rho * k + gamma : NAN;
        for (int k = 0; k < COUNTS; k++)
            counts[i * COUNTS + k] = k + floor(10 * rho);
        kind[i] = rho > 1;
        status[i] = IS_POINT_DONE;
    }
    return IS_OK;
}

/* The trace: rho and gamma at t = 0 and 1, then eval_batch's outputs for the point (count 1:
 * every output's values in a row). */
static is_code run(void *ws, const double *point, const double *options,
                   const is_trace_sink *sink, double *outputs, uint8_t *status, is_error *err)
{
    (void)options;
    is_code rc = IS_OK;
    for (int k = 0; k < 2 && rc == IS_OK; k++)
        rc = sink->sample(sink->context, k, point);
    return rc == IS_OK ? eval_batch(ws, point, 1, outputs, status, err) : rc;
}

static const is_trace_channel channels[] = {{"rho", "1", "slope"}, {"gamma", "1", "offset"}};
static const char *const events[] = {"none", NULL};
static const is_model_trace trace = {.time_unit = "1", .time_long_name = "time",
                                     .channels = channels, .channel_count = 2,
                                     .events = events, .run = run};

static const is_model arrays = {
    IS_MODEL_HEADER,
    .name = "arrays",
    .description = "test plug-in: array outputs, exact functions of the point",
    .params = params,
    .param_count = PARAMS,
    .outputs = outputs,
    .output_count = 4,
    .eval_batch = eval_batch,
    .version = "1.0",
    .trace = &trace,
};

IS_MODEL_PLUGIN(arrays)
