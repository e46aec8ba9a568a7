/* ball.c: a model plug-in for the tests, built against model.h alone as a user's would be:
 * a ball dropped from height h onto a rigid floor, rebounding with restitution r under
 * gravity g, in closed form. Rebound k leaves at v_k = r^k v_0 (v_0 = sqrt(2 g h)), each
 * flight lasts 2 v_k / g, so the ball comes to rest (a Zeno sequence) at
 *     t_rest = sqrt(2 h / g) + (2 v_0 / g) r / (1 - r),
 * and the rebounds faster than v_min, r^k v_0 > v_min for k >= 1, number
 * ceil(log(v_min / v_0) / log r) - 1 (the logarithm's quotient not being an integer).
 * The form `series` sums the flights one by one instead (up to the rebound budget): an
 * independent method that the tests compare with the closed form. */
#include <impactsweep/model.h>
#include <math.h>

enum { H, R, G, V_MIN, METHOD, MAX_REBOUNDS, PARAM_COUNT };
enum { CLOSED, SERIES };
enum { T_REST, REBOUNDS, V_FIRST, OUTPUT_COUNT };

static const char *const methods[] = {"closed", "series", NULL};
static const is_param_when series_only[] = {{"method", 1u << SERIES}, {NULL, 0}};

static const is_param params[PARAM_COUNT] = {
    [H] = {"h", "drop height", "m", IS_PARAM_REAL, 1, 0, 1e6, IS_PARAM_MIN_OPEN, NULL, NULL},
    [R] = {"r", "coefficient of restitution", "1", IS_PARAM_REAL, 0.5, 0, 1,
           IS_PARAM_MIN_OPEN | IS_PARAM_MAX_OPEN, NULL, NULL},
    [G] = {"g", "gravity", "m s-2", IS_PARAM_REAL, 9.81, 0, 1e3, IS_PARAM_MIN_OPEN, NULL,
           NULL},
    [V_MIN] = {"v_min", "speed below which rebounds are not counted", "m s-1", IS_PARAM_REAL,
               1e-3, 0, 1e6, IS_PARAM_MIN_OPEN, NULL, NULL},
    [METHOD] = {"method", "closed form, or the flights summed one by one", "1",
                IS_PARAM_CHOICE, CLOSED, 0, 1, 0, methods, NULL},
    [MAX_REBOUNDS] = {"max_rebounds", "flights summed at most (method series)", "1",
                      IS_PARAM_INT, 1e6, 1, 1e9, 0, NULL, series_only},
};

static const is_output outputs[OUTPUT_COUNT] = {
    [T_REST] = {"t_rest", "s", "time at which the ball comes to rest", IS_OUTPUT_REAL, NULL},
    [REBOUNDS] = {"rebounds", "1", "rebounds faster than v_min", IS_OUTPUT_INT, NULL},
    [V_FIRST] = {"v_first", "m s-1", "impact speed of the first impact", IS_OUTPUT_REAL, NULL},
};

static void closed_form(const double *p, double *t_rest, double *rebounds)
{
    double v0 = sqrt(2 * p[G] * p[H]);
    *t_rest = sqrt(2 * p[H] / p[G]) + 2 * v0 / p[G] * p[R] / (1 - p[R]);
    *rebounds = v0 <= p[V_MIN] ? 0 : ceil(log(p[V_MIN] / v0) / log(p[R])) - 1;
}

/* The flights one by one, down to rounding (or the budget: then failed_budget). */
static int series(const double *p, double *t_rest, double *rebounds)
{
    double v = sqrt(2 * p[G] * p[H]), t = sqrt(2 * p[H] / p[G]), count = 0;
    for (double k = 0; k < p[MAX_REBOUNDS]; k++) {
        v *= p[R];
        if (v > p[V_MIN])
            count++;
        double flight = 2 * v / p[G];
        if (flight <= 1e-17 * t) {
            *t_rest = t;
            *rebounds = count;
            return 1;
        }
        t += flight;
    }
    return 0;
}

static is_code eval_batch(void *workspace, const double *points, size_t count, double *out,
                          uint8_t *status, is_error *err)
{
    (void)workspace;
    (void)err;
    for (size_t i = 0; i < count; i++) {
        const double *p = points + i * PARAM_COUNT;
        double t_rest, rebounds;
        status[i] = IS_POINT_DONE;
        if (p[METHOD] == CLOSED)
            closed_form(p, &t_rest, &rebounds);
        else if (!series(p, &t_rest, &rebounds)) {
            t_rest = rebounds = NAN;
            status[i] = IS_POINT_FAILED_BUDGET;
        }
        out[T_REST * count + i] = t_rest;
        out[REBOUNDS * count + i] = rebounds;
        out[V_FIRST * count + i] = sqrt(2 * p[G] * p[H]);
    }
    return IS_OK;
}

static const is_model ball = {
    IS_MODEL_HEADER,
    .name = "ball",
    .description = "a ball bouncing on a rigid floor (test plug-in, closed form)",
    .params = params,
    .param_count = PARAM_COUNT,
    .outputs = outputs,
    .output_count = OUTPUT_COUNT,
    .eval_batch = eval_batch,
    .version = "1.0.0",
    .references = "the textbook bouncing ball (a test plug-in: no paper)",
};

IS_MODEL_PLUGIN(ball)
