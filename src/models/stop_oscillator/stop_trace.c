/* stop_trace.c: the orbit of one stop-oscillator point for `impactsweep trace`: x1, v1,
 * x2, v2 and the energy along the COD and CD segments, sampled from the exact flows at a
 * fixed resolution, and every event (rebound, Zeno reset, contact phase start and end,
 * graze, periodic orbit detected, end) at the run's own states. It runs eval_batch's code
 * (stop_evaluate_point) with a hook that stop_simulate calls, so that the last sample is
 * the state the outputs are computed from: its energy is the `energy` output, bit for bit.
 * Between events the samples are the exact flow from the segment's start, with
 * integrator = cvode too (CVODE's own states are the segment ends and the events). */
#include "stop_oscillator.h"

#include <math.h>
#include <string.h>

enum { CHANNEL_X1, CHANNEL_V1, CHANNEL_X2, CHANNEL_V2, CHANNEL_ENERGY, CHANNEL_CONTACT,
       CHANNEL_COUNT };

static const is_trace_channel channels[CHANNEL_COUNT] = {
    [CHANNEL_X1] = {"x1", "1", "position of mass one, in L (the stop is at s)"},
    [CHANNEL_V1] = {"v1", "1", "velocity of mass one, in L/T"},
    [CHANNEL_X2] = {"x2", "1", "position of mass two, in L"},
    [CHANNEL_V2] = {"v2", "1", "velocity of mass two, in L/T"},
    [CHANNEL_ENERGY] = {"energy", "1", "energy, in m L^2/T^2 (m: the unit mass; a free run "
                        "keeps the energy of the point as given)"},
    [CHANNEL_CONTACT] = {"contact", "1", "1 where mass one is held at the stop (a contact "
                         "phase, or the tail of a Zeno sequence), else 0"},
};

static const char *const event_names[] = {
    [STOP_EVENT_REBOUND] = "rebound",
    [STOP_EVENT_ZENO_RESET] = "zeno_reset",
    [STOP_EVENT_CONTACT_START] = "contact_start",
    [STOP_EVENT_CONTACT_END] = "contact_end",
    [STOP_EVENT_GRAZE] = "graze",
    [STOP_EVENT_PERIODIC] = "periodic_detected",
    [STOP_EVENT_END] = "end",
    NULL};

enum { OPTION_RESOLUTION, OPTION_COUNT };

static const is_param options[OPTION_COUNT] = {
    [OPTION_RESOLUTION] = {"resolution", "samples of the flow per period 2 pi/omega2 of the "
                           "fast mode (besides every event)", "1", IS_PARAM_REAL, 32.0, 1.0,
                           1e4, 0, NULL, NULL},
};

struct stop_trace {
    const is_trace_sink *sink;
    double resolution;
    const stop_system *sys;             /* scaled: lengths in s, time in 1/omega1 */
    double length, speed, time, energy; /* the units the point is given in */
    double energy_given;                /* the energy of the point as given */
    int free;                           /* a free run: energy_given throughout */
    double dt;                          /* the sampling step, scaled time */
    const volatile sig_atomic_t *watch; /* the run's stop flag */
    volatile sig_atomic_t stop;         /* the run's flag while tracing, or a sink failure */
    is_code failure;
    double t;                           /* the last sample (scaled time, state, values) */
    stop_state x;
    double values[CHANNEL_COUNT];
    int sampled;
    int last_event;                     /* the last event reported, and its time */
    double last_event_t;
};

void stop_trace_attach(stop_trace *trace, stop_options *opt, const stop_system *sys,
                       double length, double speed, double time, double energy,
                       double energy_given)
{
    trace->sys = sys;
    trace->length = length;
    trace->speed = speed;
    trace->time = time;
    trace->energy = energy;
    trace->energy_given = energy_given;
    trace->dt = 2.0 * M_PI / (sys->w2 * trace->resolution);
    trace->watch = opt->stop;
    trace->stop = 0;
    opt->stop = &trace->stop;
    opt->trace = trace;
}

static void sample(stop_trace *trace, double t, const stop_state *x, int contact)
{
    if (trace->watch && *trace->watch)
        trace->stop = 1;
    trace->t = t;
    trace->x = *x;
    trace->sampled = 1;
    trace->values[CHANNEL_X1] = x->x1 * trace->length;
    trace->values[CHANNEL_V1] = x->v1 * trace->speed;
    trace->values[CHANNEL_X2] = x->x2 * trace->length;
    trace->values[CHANNEL_V2] = x->v2 * trace->speed;
    /* the expression of the `energy` output, bit for bit */
    trace->values[CHANNEL_ENERGY] =
        trace->free ? trace->energy_given : stop_energy(trace->sys, x) * trace->energy;
    trace->values[CHANNEL_CONTACT] = contact;
    if (trace->failure != IS_OK)
        return;
    trace->failure = trace->sink->sample(trace->sink->context, t * trace->time, trace->values);
    if (trace->failure != IS_OK)
        trace->stop = 1;
}

void stop_trace_state(stop_trace *trace, double t, const stop_state *x)
{
    if (trace->sampled && trace->t == t && memcmp(&trace->x, x, sizeof *x) == 0)
        return; /* the last sample already (a release passes through the arrival test) */
    sample(trace, t, x, x->x1 >= trace->sys->s && x->v1 == 0.0);
}

void stop_trace_flow(stop_trace *trace, int contact, double t0, const stop_state *x0,
                     double t1, const stop_state *x1)
{
    stop_modes m;
    stop_modes_from_state(x0, &m);
    /* the grid times j dt strictly inside (t0, t1) */
    for (double j = floor(t0 / trace->dt) + 1.0; j * trace->dt < t1; j++) {
        if (trace->failure != IS_OK || trace->stop)
            break;
        double tau = j * trace->dt - t0;
        if (!(tau > 0.0))
            continue;
        stop_state x;
        if (contact)
            stop_cd_flow(trace->sys, x0, tau, &x);
        else
            stop_cod_flow(trace->sys, &m, tau, &x);
        sample(trace, j * trace->dt, &x, contact);
    }
    sample(trace, t1, x1, contact);
}

void stop_trace_event(stop_trace *trace, int kind)
{
    /* a release from contact leaves mass one at the stop with v1 = 0, which the run
     * treats as an arrival at zero velocity: no graze of its own */
    int release = trace->last_event == STOP_EVENT_CONTACT_END && trace->last_event_t == trace->t;
    if (trace->failure != IS_OK || (kind == STOP_EVENT_GRAZE && release))
        return;
    trace->last_event = kind;
    trace->last_event_t = trace->t;
    trace->failure =
        trace->sink->event(trace->sink->context, trace->t * trace->time, kind, trace->values);
    if (trace->failure != IS_OK)
        trace->stop = 1;
}

void stop_trace_end(stop_trace *trace, double t, const stop_state *x)
{
    if (!trace->sampled || trace->t != t || memcmp(&trace->x, x, sizeof *x) != 0)
        stop_trace_state(trace, t, x);
    stop_trace_event(trace, STOP_EVENT_END);
}

void stop_trace_free(stop_trace *trace, const stop_state *x0, double t_end)
{
    trace->free = 1; /* the energy is conserved: the point's own, as `energy` reports it */
    stop_modes m;
    stop_state end;
    stop_modes_from_state(x0, &m);
    stop_cod_flow(trace->sys, &m, t_end, &end);
    sample(trace, 0.0, x0, 0);
    stop_trace_flow(trace, 0, 0.0, x0, t_end, &end);
    stop_trace_event(trace, STOP_EVENT_END);
}

static is_code run(void *workspace, const double *point, const double *opts,
                   const is_trace_sink *sink, double *outputs, uint8_t *status, is_error *err)
{
    (void)err;
    stop_trace trace;
    memset(&trace, 0, sizeof trace);
    trace.sink = sink;
    trace.last_event = -1;
    trace.resolution = opts[OPTION_RESOLUTION];
    trace.failure = IS_OK;
    double *out[STOP_OUTPUT_COUNT];
    for (int o = 0; o < STOP_OUTPUT_COUNT; o++) {
        outputs[o] = NAN;
        out[o] = &outputs[o];
    }
    *status = IS_POINT_PENDING;
    int stopped = stop_evaluate_point(workspace, point, &trace, out, status);
    if (trace.failure != IS_OK || stopped) {
        for (int o = 0; o < STOP_OUTPUT_COUNT; o++)
            outputs[o] = NAN;
        *status = IS_POINT_PENDING;
    }
    return trace.failure; /* a sink's code (its message is in err), or IS_OK */
}

/* The grid j dt of stop_trace_flow, dt = 2 pi / (omega2 resolution) in T, from 0 to t_end,
 * counted within [t0, t1]: a run that ends early (a periodic orbit found) gives fewer. */
double stop_trace_samples(const double *point, const double *options, double t0, double t1)
{
    double k = point[STOP_K], omega2 = sqrt(k + 2.0 * point[STOP_K12]);
    double dt = 2.0 * M_PI / (omega2 * options[OPTION_RESOLUTION]);
    double lo = t0 > 0.0 ? t0 : 0.0, hi = t1 < point[STOP_T_END] ? t1 : point[STOP_T_END];
    double n = floor(hi / dt) - ceil(lo / dt) + 1.0;
    return isfinite(n) ? (n > 0.0 ? n : 0.0) : NAN;
}

const is_model_trace stop_oscillator_trace = {
    .time_unit = "1",
    .time_long_name = "time, in T",
    .channels = channels,
    .channel_count = CHANNEL_COUNT,
    .events = event_names,
    .options = options,
    .option_count = OPTION_COUNT,
    .run = run,
};
