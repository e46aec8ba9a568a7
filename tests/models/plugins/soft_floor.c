/* soft_floor.c: a plug-in whose outputs do not converge as its tolerance tightens, as a
 * soft floor whose kinks are located to about 1e-4 whatever rtol asks (issue 30, point 2):
 * `models --check` must refuse it, naming the output. Its `exact` output is right to the
 * rounding at every tolerance (it must not be named); `rebound` carries an error of about
 * 1e-4 that moves erratically with the tolerance. */
#include <impactsweep/model.h>
#include <math.h>

static const is_param params[] = {
    {"x", "a position", "1", IS_PARAM_REAL, 0.5, -10, 10, 0, NULL, NULL, NULL},
    {"rtol", "relative tolerance asked of the outputs", "1", IS_PARAM_REAL, 1e-10, 1e-12, 1e-2,
     IS_PARAM_TOLERANCE, NULL, NULL, NULL},
};
static const is_output outputs[] = {
    {"exact", "1", "sin(x), computed exactly", IS_OUTPUT_REAL, NULL, 0, NULL},
    {"rebound", "1", "1 + sin(x) with an event located to about 1e-4 whatever rtol asks",
     IS_OUTPUT_REAL, NULL, 0, NULL},
};

static is_code eval_batch(void *ws, const double *points, size_t count, double *out,
                          uint8_t *status, is_error *err)
{
    (void)ws, (void)err;
    for (size_t i = 0; i < count; i++) {
        double x = points[2 * i], rtol = points[2 * i + 1];
        out[i] = sin(x);
        out[count + i] = 1.0 + sin(x) + 1e-4 * sin(1e3 * log(rtol) + x);
        status[i] = IS_POINT_DONE;
    }
    return IS_OK;
}

static const is_model soft_floor = {
    IS_MODEL_HEADER,
    .name = "soft-floor",
    .description = "test plug-in: an output whose error does not follow its tolerance",
    .params = params,
    .param_count = 2,
    .outputs = outputs,
    .output_count = 2,
    .eval_batch = eval_batch,
    .version = "1.0",
};

IS_MODEL_PLUGIN(soft_floor)
