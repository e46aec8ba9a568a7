/* collision_trace.c: the trajectory of one collision for `impactsweep trace`: the states,
 * the force and the indentation from contact to the end of the contact, at every step
 * the integrator takes and at every event, so that the force-indentation loop of the
 * paper's figures can be drawn. It runs eval_batch's own code (collision_evaluate_point)
 * with a hook that the integrators and the tracker call; the last sample is the state
 * the outputs are read from (e = v there when the bodies separate). */
#include "collision.h"

#include <math.h>

enum {
    CHANNEL_X, CHANNEL_V, CHANNEL_Z, CHANNEL_Y, CHANNEL_FORCE, CHANNEL_INDENTATION,
    CHANNEL_ENERGY, CHANNEL_COUNT
};

static const is_trace_channel channels[CHANNEL_COUNT] = {
    [CHANNEL_X] = {"x", "1", "relative displacement X = x/X_c (X < 0: compression)"},
    [CHANNEL_V] = {"v", "1", "relative velocity V = dX/dT (V(0) = -1)"},
    [CHANNEL_Z] = {"z", "1", "Bouc-Wen hysteretic displacement Z, in units of X_c (0 for the "
                   "classical laws)"},
    [CHANNEL_Y] = {"y", "1", "elongation Y of the spring in series with the dashpot, in units "
                   "of X_c (Maxwell type: bwm, maxwell; NaN for the others)"},
    [CHANNEL_FORCE] = {"force", "1", "contact force F = dV/dT, in units of m X_c/T_c^2 (F > 0 "
                       "pushes the bodies apart)"},
    [CHANNEL_INDENTATION] = {"indentation", "1", "compression -X, in units of X_c"},
    [CHANNEL_ENERGY] = {"energy", "1", "energy E = V^2/2 + what the springs and the Bouc-Wen "
                        "element store, in units of m X_c^2/T_c^2 (E(0) = 1/2)"},
};

static const char *const event_names[] = {
    [COLLISION_EVENT_CONTACT] = "contact",
    [COLLISION_EVENT_MAX_COMPRESSION] = "max_compression",
    [COLLISION_EVENT_MIN_COMPRESSION] = "min_compression",
    [COLLISION_EVENT_FORCE_MAX] = "force_max",
    [COLLISION_EVENT_KINK] = "kink",
    [COLLISION_EVENT_SEPARATION] = "separation",
    [COLLISION_EVENT_REST] = "rest",
    [COLLISION_EVENT_HORIZON] = "horizon",
    [COLLISION_EVENT_SOLVER_FAILURE] = "solver_failure",
    NULL};

struct collision_hook {
    const is_trace_sink *sink;
    const collision_problem *problem;
    const volatile sig_atomic_t *watch; /* the run's stop flag (workspace_watch), or NULL */
    volatile sig_atomic_t stop;         /* the problem's stop flag while tracing: the run's,
                                           or a failure of the sink */
    is_code failure;                    /* the sink's first failure */
    double t;                           /* the last sample: time and channels */
    double values[CHANNEL_COUNT];
};

void collision_hook_attach(collision_hook *hook, collision_problem *problem,
                           const volatile sig_atomic_t *watch)
{
    hook->problem = problem;
    hook->watch = watch;
    problem->hook = hook;
    problem->stop = &hook->stop; /* polled by the integrators every 256 steps */
}

void collision_hook_sample(collision_hook *hook, double t, const double *y)
{
    const collision_problem *pb = hook->problem;
    double x = collision_displacement(pb, y);
    hook->t = t;
    hook->values[CHANNEL_X] = x;
    hook->values[CHANNEL_V] = collision_velocity(pb, y);
    hook->values[CHANNEL_Z] = y[2];
    hook->values[CHANNEL_Y] = pb->dimension == 4 ? y[1] : NAN;
    hook->values[CHANNEL_FORCE] = collision_force(pb, y);
    hook->values[CHANNEL_INDENTATION] = -x; /* the tracker's compression, bit for bit */
    hook->values[CHANNEL_ENERGY] = collision_energy(pb, y);
    if (hook->watch && *hook->watch)
        hook->stop = 1;
    if (hook->failure != IS_OK)
        return;
    hook->failure = hook->sink->sample(hook->sink->context, t, hook->values);
    if (hook->failure != IS_OK)
        hook->stop = 1;
}

/* At the last sample's state. */
void collision_hook_event(collision_hook *hook, int kind)
{
    if (hook->failure != IS_OK)
        return;
    hook->failure = hook->sink->event(hook->sink->context, hook->t, kind, hook->values);
    if (hook->failure != IS_OK)
        hook->stop = 1;
}

static is_code run(void *workspace, const double *point, const double *options,
                   const is_trace_sink *sink, double *outputs, uint8_t *status, is_error *err)
{
    (void)options, (void)err;
    collision_hook hook = {.sink = sink, .failure = IS_OK};
    double *out[COLLISION_OUTPUT_COUNT];
    for (int o = 0; o < COLLISION_OUTPUT_COUNT; o++) {
        outputs[o] = NAN;
        out[o] = &outputs[o];
    }
    *status = IS_POINT_PENDING;
    int stopped = collision_evaluate_point(workspace, point, &hook, out, status);
    if (hook.failure != IS_OK) { /* the sink's message is in err already */
        *status = IS_POINT_PENDING;
        return hook.failure;
    }
    if (stopped) { /* a signal: pending, like eval_batch leaves it */
        for (int o = 0; o < COLLISION_OUTPUT_COUNT; o++)
            outputs[o] = NAN;
        *status = IS_POINT_PENDING;
    }
    return IS_OK;
}

const is_model_trace collision_trace = {
    .time_unit = "1",
    .time_long_name = "time T = t/T_c since contact",
    .channels = channels,
    .channel_count = CHANNEL_COUNT,
    .events = event_names,
    .options = NULL,
    .option_count = 0,
    .run = run,
};
