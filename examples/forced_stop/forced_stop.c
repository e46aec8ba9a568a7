/* forced_stop.c: the forced-stop model, an out-of-tree plug-in of impactsweep: its table
 * (parameters, outputs), its point check, the batch evaluator and the physical checks of
 * each result. The physics is in forced_stop_flow.c (closed-form flight, contact search)
 * and forced_stop_sim.c (impacts, chatter, sticking, the final motion's period).
 *
 * The harmonically forced linear oscillator hitting a rigid stop:
 *     x'' + 2 zeta x' + x = A cos(omega t),   x <= delta,   x' -> -r x' at x = delta.
 * Units: time in 1/omega_n (the natural frequency is 1, omega is the frequency ratio),
 * lengths in a unit L of the user's choosing (A is the static deflection F0/k), speeds in
 * L omega_n; every parameter and output is a number, UDUNITS "1", its scale named in its
 * meaning.
 *
 * Built against the installed contract alone (<impactsweep/model.h>), and self-contained:
 * it calls nothing of the engine's (messages are written into is_error here), so it loads
 * into any impactsweep speaking IS_MODEL_ABI_VERSION and its tests link without it. */
#include <impactsweep/model.h>

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "forced_stop.h"

enum {
    P_OMEGA, P_ZETA, P_A, P_DELTA, P_R, P_X0, P_V0, P_PERIODS, P_MAX_PERIOD, P_MAX_IMPACTS,
    P_ZENO_TAIL, PARAM_COUNT
};
enum {
    O_REGIME, O_PERIOD, O_IMPACTS_PER_PERIOD, O_IMPACTS, O_V_IMPACT, O_PHASE_IMPACT,
    O_V_IMPACT_MAX, O_CHECK, OUTPUT_COUNT
};

/* The forced response A / |1 - omega^2 + 2 i zeta omega| may be at most this many times
 * A: near the undamped resonance the closed form cancels the large steady response against
 * an equally large homogeneous part and loses digits (log10 of the ratio). */
#define RESPONSE_MAX 1e3

static const char *const regime_names[] = {"free", "periodic", "chatter", "undecided",
                                           "failed", NULL};
static const char *const check_names[] = {"none",    "budget",    "search", "penetration",
                                          "energy",  "nonfinite", "invalid", NULL};

static const is_param fs_params[PARAM_COUNT] = {
    [P_OMEGA] = {"omega", "forcing frequency over the natural frequency omega_n", "1",
                 IS_PARAM_REAL, 2.0, 0.01, 100.0, 0, NULL, NULL},
    [P_ZETA] = {"zeta", "damping ratio (damping over its critical value)", "1", IS_PARAM_REAL,
                0.0, 0.0, 1.0, IS_PARAM_MAX_OPEN, NULL, NULL},
    [P_A] = {"A", "forcing amplitude as a static deflection F0 / k, in the length unit L",
             "1", IS_PARAM_REAL, 1.0, 1e-6, 1e6, 0, NULL, NULL},
    [P_DELTA] = {"delta", "position of the stop, in L (the spring's equilibrium is x = 0; "
                 "delta < 0: a pre-loaded stop)",
                 "1", IS_PARAM_REAL, 0.0, -1e6, 1e6, 0, NULL, NULL},
    [P_R] = {"r", "coefficient of restitution at the stop (0: plastic, 1: elastic)", "1",
             IS_PARAM_REAL, 0.8, 0.0, 1.0, 0, NULL, NULL},
    [P_X0] = {"x0", "initial position at t = 0, in L (<= delta)", "1", IS_PARAM_REAL, 0.0,
              -1e6, 1e6, 0, NULL, NULL},
    [P_V0] = {"v0", "initial velocity at t = 0, in L omega_n", "1", IS_PARAM_REAL, 0.0, -1e6,
              1e6, 0, NULL, NULL},
    [P_PERIODS] = {"periods", "horizon, in forcing periods 2 pi / omega", "1", IS_PARAM_INT,
                   1000, 1, 1e8, 0, NULL, NULL},
    [P_MAX_PERIOD] = {"max_period", "longest period of the final motion looked for, in "
                      "forcing periods",
                      "1", IS_PARAM_INT, 16, 1, FS_MAX_PERIOD, 0, NULL, NULL},
    [P_MAX_IMPACTS] = {"max_impacts", "budget of impacts simulated one by one", "1",
                       IS_PARAM_INT, 1e7, 1, 1e12, 0, NULL, NULL},
    [P_ZENO_TAIL] = {"zeno_tail", "reset a chatter when the rest of it lasts less than this, "
                     "in forcing periods",
                     "1", IS_PARAM_REAL, 1e-6, 0.0, 0.1, IS_PARAM_MIN_OPEN, NULL, NULL},
};

static const is_output fs_outputs[OUTPUT_COUNT] = {
    /* free: proved never to hit the stop again; chatter: periodic, coming to rest on the
     * stop (a chatter ended by a reset, held there while the force pushes in) in every
     * period; undecided: no period <= max_period by the horizon (chaotic, or a transient
     * longer than the horizon) */
    [O_REGIME] = {"regime", "1", "final motion (chatter: periodic, coming to rest on the stop)",
                  IS_OUTPUT_CATEGORY, regime_names},
    [O_PERIOD] = {"period", "1", "period of the final motion, in forcing periods (missing: "
                  "not periodic)",
                  IS_OUTPUT_INT, NULL},
    [O_IMPACTS_PER_PERIOD] = {"impacts_per_period", "1", "impacts in one period of the final "
                              "motion (a chatter's tail, cut by its reset, not counted)",
                              IS_OUTPUT_INT, NULL},
    [O_IMPACTS] = {"impacts", "1", "impacts simulated over the whole run", IS_OUTPUT_INT, NULL},
    [O_V_IMPACT] = {"v_impact", "1", "arrival speed at the last impact (> 0: into the stop), "
                    "in L omega_n (NaN: no impact)",
                    IS_OUTPUT_REAL, NULL},
    [O_PHASE_IMPACT] = {"phase_impact", "1", "forcing phase omega t mod 2 pi of the last "
                        "impact, in radians (NaN: no impact)",
                        IS_OUTPUT_REAL, NULL},
    [O_V_IMPACT_MAX] = {"v_impact_max", "1", "largest arrival speed in the last half of the "
                        "run, in L omega_n (0: no impact there)",
                        IS_OUTPUT_REAL, NULL},
    [O_CHECK] = {"check", "1", "the first physical check the result failed (none: it passed)",
                 IS_OUTPUT_CATEGORY, check_names},
};

/* is_error_set's work, here, so that the plug-in needs nothing from the engine. */
static is_code fs_error(is_error *err, is_code code, const char *fmt, ...)
{
    if (err) {
        va_list ap;
        va_start(ap, fmt);
        err->code = code;
        vsnprintf(err->message, sizeof err->message, fmt, ap);
        va_end(ap);
    }
    return code;
}

static is_code fs_validate(const double *p, is_error *err)
{
    if (p[P_X0] > p[P_DELTA])
        return fs_error(err, IS_PARAM,
                        "x0 = %g is beyond the stop delta = %g: the mass starts at or before "
                        "it (x0 <= delta)",
                        p[P_X0], p[P_DELTA]);
    double re = 1.0 - p[P_OMEGA] * p[P_OMEGA], im = 2.0 * p[P_ZETA] * p[P_OMEGA];
    double gain = 1.0 / sqrt(re * re + im * im);
    if (!(gain <= RESPONSE_MAX))
        return fs_error(err, IS_PARAM,
                        "omega = %g with zeta = %g is too near the resonance omega = 1: the "
                        "steady response is %g A, at most %g A (the closed-form flight loses "
                        "its digits beyond); move omega away from 1 or raise zeta",
                        p[P_OMEGA], p[P_ZETA], gain, RESPONSE_MAX);
    return IS_OK;
}

typedef struct fs_workspace {
    const volatile sig_atomic_t *stop; /* never NULL */
} fs_workspace;

/* What fs_workspace_watch has not been given: a flag that is never set. */
static const volatile sig_atomic_t never_stop = 0;

static is_code fs_workspace_create(void **workspace, is_error *err)
{
    fs_workspace *ws = malloc(sizeof *ws);
    if (!ws)
        return fs_error(err, IS_NOMEM, "forced-stop: cannot allocate a workspace");
    ws->stop = &never_stop;
    *workspace = ws;
    return IS_OK;
}

static void fs_workspace_free(void *workspace)
{
    free(workspace);
}

static void fs_workspace_watch(void *workspace, const volatile sig_atomic_t *stop)
{
    ((fs_workspace *)workspace)->stop = stop ? stop : &never_stop;
}

static void pending_from(size_t first, size_t count, double *outputs, uint8_t *status)
{
    for (size_t i = first; i < count; i++) {
        for (int o = 0; o < OUTPUT_COUNT; o++)
            outputs[(size_t)o * count + i] = NAN;
        status[i] = IS_POINT_PENDING;
    }
}

/* The outputs of a result, and the status they earn: a failed check keeps its outputs. */
static uint8_t fill_outputs(const fs_result *r, double **out)
{
    *out[O_REGIME] = r->regime;
    *out[O_PERIOD] = r->period > 0 ? (double)r->period : NAN;
    *out[O_IMPACTS_PER_PERIOD] = r->period > 0 ? (double)r->impacts_per_period : NAN;
    *out[O_IMPACTS] = (double)r->impacts;
    *out[O_V_IMPACT] = r->v_last;
    *out[O_PHASE_IMPACT] = r->phase_last;
    *out[O_V_IMPACT_MAX] = r->v_max_late;
    fs_check check = r->check;
    /* every output that must be a number is one, and every speed is an arrival */
    if (check == FS_CHECK_NONE &&
        (!isfinite(r->v_max_late) || r->v_max_late < 0.0 ||
         (r->impacts > 0 && !(isfinite(r->v_last) && r->v_last >= 0.0 &&
                              r->phase_last >= 0.0 && r->phase_last < 2.0 * M_PI))))
        check = FS_CHECK_NONFINITE;
    *out[O_CHECK] = check;
    if (check != FS_CHECK_NONE)
        *out[O_REGIME] = FS_REGIME_FAILED;
    switch (check) {
    case FS_CHECK_NONE:
        return IS_POINT_DONE;
    case FS_CHECK_BUDGET:
        return IS_POINT_FAILED_BUDGET;
    case FS_CHECK_SEARCH:
        return IS_POINT_FAILED_SOLVER;
    case FS_CHECK_NONFINITE:
        return IS_POINT_FAILED_NONFINITE;
    default:
        return IS_POINT_FAILED_CHECK; /* penetration, energy */
    }
}

static is_code fs_eval_batch(void *workspace, const double *points, size_t count,
                             double *outputs, uint8_t *status, is_error *err)
{
    (void)err;
    fs_workspace *ws = workspace;
    for (size_t i = 0; i < count; i++) {
        if (*ws->stop) {
            pending_from(i, count, outputs, status);
            return IS_OK;
        }
        const double *p = points + i * PARAM_COUNT;
        double *out[OUTPUT_COUNT];
        for (int o = 0; o < OUTPUT_COUNT; o++)
            out[o] = &outputs[(size_t)o * count + i];
        /* the core validates every point first; a caller that did not gets no result */
        is_error refused;
        if (fs_validate(p, &refused) != IS_OK) {
            for (int o = 0; o < OUTPUT_COUNT; o++)
                *out[o] = NAN;
            *out[O_REGIME] = FS_REGIME_FAILED;
            *out[O_CHECK] = FS_CHECK_INVALID;
            status[i] = IS_POINT_FAILED_INVALID;
            continue;
        }
        fs_system sys;
        fs_system_init(&sys, p[P_OMEGA], p[P_ZETA], p[P_A], p[P_DELTA], p[P_R]);
        fs_options opt = {.periods = (int64_t)p[P_PERIODS],
                          .max_period = (int)p[P_MAX_PERIOD],
                          .max_impacts = (int64_t)p[P_MAX_IMPACTS],
                          .zeno_tail = p[P_ZENO_TAIL],
                          .stop = ws->stop};
        fs_result r;
        fs_simulate(&sys, p[P_X0], p[P_V0], &opt, &r);
        if (r.check == FS_CHECK_STOPPED) { /* this point and the rest are computed again */
            pending_from(i, count, outputs, status);
            return IS_OK;
        }
        status[i] = fill_outputs(&r, out);
    }
    return IS_OK;
}

const is_model forced_stop_model = {
    .name = "forced-stop",
    .description = "harmonically forced linear oscillator hitting a rigid stop (restitution "
                   "r): impacts, chatter, sticking, the period of the final motion (time in "
                   "1/omega_n, lengths in a unit L)",
    .params = fs_params,
    .param_count = PARAM_COUNT,
    .outputs = fs_outputs,
    .output_count = OUTPUT_COUNT,
    .validate = fs_validate,
    .workspace_create = fs_workspace_create,
    .workspace_free = fs_workspace_free,
    .workspace_watch = fs_workspace_watch,
    .eval_batch = fs_eval_batch,
    .version = "1.0.0",
};

IS_MODEL_PLUGIN(forced_stop_model)
