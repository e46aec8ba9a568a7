/* bad_trace.c: test plug-ins whose trace is wrong in one way each (BAD_TRACE), which
 * `impactsweep models --check` must refuse (exit 2, naming the problem): 1 time that runs
 * backwards, 2 a NaN in a channel, 3 outputs other than eval_batch's for the point, 4 a
 * trace that fails. The model itself is fine: y = a t on 0 <= t <= 1, output y(1). */
#include <impactsweep/model.h>
#include <math.h>

#ifndef BAD_TRACE
#define BAD_TRACE 1
#endif
#define TEXT2(x) #x
#define TEXT(x) TEXT2(x)

static const is_param params[] = {
    {"a", "slope", "1", IS_PARAM_REAL, 2.0, -10, 10, 0, NULL, NULL, NULL}};
static const is_output outputs[] = {{"y_end", "1", "y at t = 1", IS_OUTPUT_REAL, NULL, 0, NULL}};
static const is_trace_channel channels[] = {{"y", "1", "the value"}};
static const char *const kinds[] = {"half", NULL};

static is_code eval_batch(void *ws, const double *points, size_t count, double *out,
                          uint8_t *status, is_error *err)
{
    (void)ws, (void)err;
    for (size_t i = 0; i < count; i++) {
        out[i] = points[i];
        status[i] = IS_POINT_DONE;
    }
    return IS_OK;
}

static is_code run(void *ws, const double *point, const double *options,
                   const is_trace_sink *sink, double *outputs, uint8_t *status, is_error *err)
{
    (void)ws, (void)options;
    for (int k = 0; k <= 10; k++) {
        double t = k / 10.0, y = point[0] * t;
        if (BAD_TRACE == 1 && k == 7)
            t = 0.1; /* back in time */
        if (BAD_TRACE == 2 && k == 4)
            y = NAN;
        is_code rc = sink->sample(sink->context, t, &y);
        if (rc == IS_OK && k == 5)
            rc = sink->event(sink->context, t, 0, &y);
        if (rc != IS_OK)
            return rc;
    }
    if (BAD_TRACE == 4)
        return is_error_set(err, IS_MODEL, "the trace gave up");
    outputs[0] = point[0] + (BAD_TRACE == 3 ? 1e-9 : 0.0);
    *status = IS_POINT_DONE;
    return IS_OK;
}

static const is_model_trace trace = {"1", "time", channels, 1, kinds, NULL, 0, run};

static const is_model model = {IS_MODEL_HEADER,
    .name = "bad-trace-" TEXT(BAD_TRACE), .version = "1.0.0",
    .description = "a test plug-in whose trace is wrong", .params = params, .param_count = 1,
    .outputs = outputs, .output_count = 1, .eval_batch = eval_batch, .trace = &trace};

IS_MODEL_PLUGIN(model)
