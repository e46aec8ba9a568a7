/* chatter_trace.c: the impact sequence of one drop for `impactsweep trace`: the drop
 * `drop` of the point, the same random initial state as the sweep gives it, simulated by
 * eval_batch's own kernel (chatter_evaluate) over the whole point, with a hook that
 * reports the traced lane after every impact and its class decision. So the drop's
 * class, impact count and time are exactly what the point's fractions, impacts_mean and
 * time_mean are made of.
 *
 * Under chatter q and p shrink geometrically, far below the doubles (p ~ gamma^k after k
 * impacts), so, as in the kernel, each is held scaled by its own power of two: the trace
 * records the scaled components and the exponents (q = q_scaled 2^q_exponent, exactly),
 * and log2 of the height and of the kinetic energy for drawing. */
#include "chatter.h"

#include <math.h>
#include <string.h>

enum {
    CHANNEL_IMPACTS, CHANNEL_VERTEX, CHANNEL_Q1, CHANNEL_Q2, CHANNEL_Q3, CHANNEL_Q_EXPONENT,
    CHANNEL_P1, CHANNEL_P2, CHANNEL_P3, CHANNEL_P_EXPONENT, CHANNEL_LOG2_HEIGHT,
    CHANNEL_LOG2_ENERGY, CHANNEL_COUNT
};

static const is_trace_channel channels[CHANNEL_COUNT] = {
    [CHANNEL_IMPACTS] = {"impacts", "1", "impacts so far (0: the initial state)"},
    [CHANNEL_VERTEX] = {"vertex", "1", "vertex hit by this impact (0 .. n-1; -1: none yet)"},
    [CHANNEL_Q1] = {"q1", "1", "configuration q_1 (rotation about the x axis, times the "
                    "circumradius), scaled: q = (q1, q2, q3) 2^q_exponent"},
    [CHANNEL_Q2] = {"q2", "1", "configuration q_2 (rotation about the y axis, times the "
                    "circumradius), scaled by 2^-q_exponent"},
    [CHANNEL_Q3] = {"q3", "1", "configuration q_3 (height h of the centre of mass over the "
                    "circumradius), scaled by 2^-q_exponent"},
    [CHANNEL_Q_EXPONENT] = {"q_exponent", "1", "power of two of q's scale"},
    [CHANNEL_P1] = {"p1", "1", "velocity p_1 (just after the impact), scaled: p = (p1, p2, "
                    "p3) 2^p_exponent, in units of the initial sink speed"},
    [CHANNEL_P2] = {"p2", "1", "velocity p_2 (just after the impact), scaled by "
                    "2^-p_exponent"},
    [CHANNEL_P3] = {"p3", "1", "velocity p_3 of the centre of mass (just after the impact; > 0: "
                    "moving up), scaled by 2^-p_exponent"},
    [CHANNEL_P_EXPONENT] = {"p_exponent", "1", "power of two of p's scale"},
    [CHANNEL_LOG2_HEIGHT] = {"log2_height", "1", "log2 of the height h of the centre of mass "
                             "over the circumradius"},
    [CHANNEL_LOG2_ENERGY] = {"log2_energy", "1", "log2 of the kinetic energy (rho^2 (p1^2 + "
                             "p2^2) + p3^2)/2, in units of m (initial sink speed)^2"},
};

enum { EVENT_ICC, EVENT_CC, EVENT_PCC, EVENT_ENERGY_ROSE, EVENT_CERTIFIED, EVENT_FLAT };

static const char *const event_names[] = {
    [EVENT_ICC] = "icc",             /* decision: lift-off, incomplete chatter */
    [EVENT_CC] = "cc",               /* decision: the impact budget used up, complete */
    [EVENT_PCC] = "pcc",             /* decision: partial complete chatter, proven (the drop
                                        ends with the impact before which it was) */
    [EVENT_ENERGY_ROSE] = "energy_rose", /* the drop ended with more kinetic energy (a
                                            failed check) */
    [EVENT_CERTIFIED] = "certified", /* decision: complete chatter proven, the velocity in
                                        the certificate's invariant region (chatter_region) */
    [EVENT_FLAT] = "flat",           /* decision: the body landed flat, all vertices at once
                                        (CHATTER_FLAT_RATIO): undecidable */
    NULL};

enum { OPTION_DROP, OPTION_COUNT };

static const is_param options[OPTION_COUNT] = {
    [OPTION_DROP] = {"drop", "which of the point's random drops (0 .. samples - 1; the sweep's "
                     "own random initial state)", "1", IS_PARAM_INT, 0, 0, 2147483646.0, 0,
                     NULL, NULL},
};

static void values_of(const chatter_lane *v, double *values)
{
    values[CHANNEL_IMPACTS] = v->impacts;
    values[CHANNEL_VERTEX] = v->vertex;
    values[CHANNEL_Q1] = v->q[0];
    values[CHANNEL_Q2] = v->q[1];
    values[CHANNEL_Q3] = v->q[2];
    values[CHANNEL_Q_EXPONENT] = v->q_exp;
    values[CHANNEL_P1] = v->p[0];
    values[CHANNEL_P2] = v->p[1];
    values[CHANNEL_P3] = v->p[2];
    values[CHANNEL_P_EXPONENT] = v->p_exp;
    values[CHANNEL_LOG2_HEIGHT] = log2(v->q[2]) + v->q_exp;
    double energy = 0.5 * (v->rho2 * (v->p[0] * v->p[0] + v->p[1] * v->p[1]) + v->p[2] * v->p[2]);
    values[CHANNEL_LOG2_ENERGY] = log2(energy) + 2.0 * v->p_exp;
}

static void report(chatter_hook *hook, const chatter_lane *view, int event)
{
    if (hook->failure != IS_OK)
        return;
    double values[CHANNEL_COUNT];
    values_of(view, values);
    hook->failure = event < 0 ? hook->sink->sample(hook->sink->context, view->time, values)
                              : hook->sink->event(hook->sink->context, view->time, event,
                                                  values);
}

void chatter_hook_start(chatter_hook *hook, int lane, const chatter_lane *view)
{
    hook->lane = lane;
    hook->impacts = view->impacts;
    report(hook, view, -1);
}

void chatter_hook_impact(chatter_hook *hook, const chatter_lane *view)
{
    report(hook, view, -1);
    hook->impacts = view->impacts;
}

void chatter_hook_finish(chatter_hook *hook, const chatter_lane *view, unsigned slot_state)
{
    static const int decision[CHATTER_OUTCOMES] = {[CHATTER_ICC] = EVENT_ICC,
                                                   [CHATTER_CC] = EVENT_CC,
                                                   [CHATTER_PCC] = EVENT_PCC,
                                                   [CHATTER_FLAT] = EVENT_FLAT};
    unsigned outcome = (slot_state & 0x3fu) - 1u;
    hook->lane = -1;
    if (outcome == CHATTER_CC && (slot_state & 0x40u))
        report(hook, view, EVENT_CERTIFIED);
    else if (outcome < CHATTER_OUTCOMES)
        report(hook, view, decision[outcome]);
    if (slot_state & 0x80u)
        report(hook, view, EVENT_ENERGY_ROSE);
}

static is_code run(void *workspace, const double *point, const double *opts,
                   const is_trace_sink *sink, double *outputs, uint8_t *status, is_error *err)
{
    double drop = opts[OPTION_DROP];
    for (int o = 0; o < CHATTER_OUTPUT_COUNT; o++)
        outputs[o] = NAN;
    *status = IS_POINT_PENDING;
    if (!(drop < point[CHATTER_SAMPLES]))
        return is_error_set(err, IS_PARAM,
                            "drop = %.17g: the point has samples = %.17g drops, 0 .. %.17g",
                            drop, point[CHATTER_SAMPLES], point[CHATTER_SAMPLES] - 1);
    chatter_hook hook = {.point = 0, .drop = (uint64_t)drop, .lane = -1, .impacts = 0,
                         .sink = sink, .failure = IS_OK};
    chatter_evaluate(workspace, point, 1, outputs, status, &hook);
    if (hook.failure != IS_OK) { /* the sink's message is in err already */
        for (int o = 0; o < CHATTER_OUTPUT_COUNT; o++)
            outputs[o] = NAN;
        *status = IS_POINT_PENDING;
    }
    return hook.failure;
}

const is_model_trace chatter_trace = {
    .time_unit = "1",
    .time_long_name = "accumulated time of the impact sequence, in units of circumradius / "
                      "initial sink speed of the centre of mass",
    .channels = channels,
    .channel_count = CHANNEL_COUNT,
    .events = event_names,
    .options = options,
    .option_count = OPTION_COUNT,
    .run = run,
};
