/* stop_oscillator.c: the stop-oscillator model's table (parameters, outputs), its point
 * check and the batch evaluator. The flows are in stop_flow.c, the hybrid simulation in
 * stop_sim.c, the periodic orbits in stop_orbits.c, the CVODE option in stop_cvode.c. */
#include "stop_oscillator.h"

#include <math.h>
#include <stdlib.h>

static const char *const integrator_names[] = {"exact", "cvode", NULL};
static const char *const regime_names[] = {"free",   "periodic", "impacting",
                                           "failed", "sticking", "grazing", NULL};

static const is_param stop_params[STOP_PARAM_COUNT] = {
    [STOP_K] = {"k", "outer spring constants (unit masses)", "1", IS_PARAM_REAL, 1.0, 0, INFINITY,
                IS_PARAM_MIN_OPEN, NULL},
    [STOP_K12] = {"k12", "coupling spring constant", "1", IS_PARAM_REAL, 1.0, 0, INFINITY,
                  IS_PARAM_MIN_OPEN, NULL},
    [STOP_S] = {"s", "position of the stop (> 0: off it at equilibrium)", "length",
                IS_PARAM_REAL, 1.0, 0, INFINITY, IS_PARAM_MIN_OPEN, NULL},
    [STOP_EPSILON] = {"epsilon", "coefficient of restitution at the stop", "1", IS_PARAM_REAL,
                      0.8, 0, 1, IS_PARAM_MIN_OPEN | IS_PARAM_MAX_OPEN, NULL},
    [STOP_X1] = {"x1_0", "initial position of mass one (<= s)", "length", IS_PARAM_REAL, 0.0,
                 -INFINITY, INFINITY, 0, NULL},
    [STOP_V1] = {"v1_0", "initial velocity of mass one", "length/time", IS_PARAM_REAL, 1.5,
                 -INFINITY, INFINITY, 0, NULL},
    [STOP_X2] = {"x2_0", "initial position of mass two", "length", IS_PARAM_REAL, 0.0,
                 -INFINITY, INFINITY, 0, NULL},
    [STOP_V2] = {"v2_0", "initial velocity of mass two", "length/time", IS_PARAM_REAL, 0.0,
                 -INFINITY, INFINITY, 0, NULL},
    [STOP_T_END] = {"t_end", "horizon of the simulation", "time", IS_PARAM_REAL, 100.0, 0, 1e9,
                    IS_PARAM_MIN_OPEN, NULL},
    [STOP_MAX_REBOUNDS] = {"max_rebounds", "budget of simulated rebounds", "1", IS_PARAM_INT,
                           1e6, 0, 1e15, 0, NULL},
    [STOP_INTEGRATOR] = {"integrator", "exact closed-form flows, or CVODE (a check)", "1",
                         IS_PARAM_CHOICE, 0, 0, 1, IS_PARAM_FIXED_ONLY, integrator_names},
    [STOP_RTOL] = {"rtol", "CVODE's relative tolerance (integrator cvode)", "1", IS_PARAM_REAL,
                   1e-10, 1e-14, 1e-3, 0, NULL},
    [STOP_ZENO_TAIL] = {"zeno_tail",
                        "reset a Zeno sequence when its tail lasts less than this / omega2",
                        "1", IS_PARAM_REAL, 1e-3, 0, 1, IS_PARAM_MIN_OPEN, NULL},
    [STOP_ORBIT_T_MAX] = {"orbit_t_max",
                          "look for 2-phase periodic orbits with t_cod up to this (0: do not)",
                          "time", IS_PARAM_REAL, 0.0, 0, 1e4, 0, NULL},
};

static const is_output stop_outputs[STOP_OUTPUT_COUNT] = {
    [STOP_REBOUNDS] = {"rebounds", "1", "rebounds simulated one by one", IS_OUTPUT_INT, NULL},
    [STOP_ZENO_RESETS] = {"zeno_resets", "1", "Zeno sequences ended by an orbit reset",
                          IS_OUTPUT_INT, NULL},
    [STOP_CONTACT_PHASES] = {"contact_phases", "1", "contact (CD) segments", IS_OUTPUT_INT,
                             NULL},
    [STOP_ENERGY] = {"energy", "energy", "energy at the end", IS_OUTPUT_REAL, NULL},
    [STOP_ENERGY_LOST] = {"energy_lost", "energy", "energy lost in rebounds and resets",
                          IS_OUTPUT_REAL, NULL},
    [STOP_T_LAST_REBOUND] = {"t_last_rebound", "time", "time of the last rebound",
                             IS_OUTPUT_REAL, NULL},
    [STOP_REGIME] = {"regime", "1", "long-run behaviour", IS_OUTPUT_CATEGORY, regime_names},
    [STOP_ORBITS] = {"orbits", "1", "2-phase periodic orbits with t_cod <= orbit_t_max",
                     IS_OUTPUT_INT, NULL},
    [STOP_ORBIT_V] = {"orbit_v", "length/time",
                      "v2 leaving contact on the periodic orbit with the smallest |v|",
                      IS_OUTPUT_REAL, NULL},
    [STOP_ORBIT_T_COD] = {"orbit_t_cod", "time", "its COD duration", IS_OUTPUT_REAL, NULL},
    [STOP_V_LAST_REBOUND] = {"v_last_rebound", "length/time",
                             "speed of mass one arriving at the last rebound", IS_OUTPUT_REAL,
                             NULL},
};

static is_code stop_validate(const double *point, is_error *err)
{
    if (point[STOP_X1] > point[STOP_S])
        return is_error_set(err, IS_PARAM,
                            "x1_0 = %g is beyond the stop s = %g: mass one starts left of it",
                            point[STOP_X1], point[STOP_S]);
    return IS_OK;
}

static is_code stop_workspace_create(void **workspace, is_error *err)
{
    if (stop_cvode_create(workspace) != 0)
        return is_error_set(err, IS_MODEL, "stop-oscillator: cannot create CVODE");
    return IS_OK;
}

static void stop_workspace_free(void *workspace)
{
    stop_cvode_free(workspace);
}

static is_code stop_eval_batch(void *workspace, const double *points, size_t count,
                               double *outputs, uint8_t *status, is_error *err)
{
    (void)err;
    for (size_t i = 0; i < count; i++) {
        const double *p = points + i * STOP_PARAM_COUNT;
        stop_system sys;
        stop_system_init(&sys, p[STOP_K], p[STOP_K12], p[STOP_S], p[STOP_EPSILON]);
        stop_state x0 = {p[STOP_X1], p[STOP_V1], p[STOP_X2], p[STOP_V2]};
        stop_options opt = {.t_end = p[STOP_T_END],
                            .max_rebounds = (int64_t)p[STOP_MAX_REBOUNDS],
                            .zeno_tail = p[STOP_ZENO_TAIL],
                            .use_cvode = p[STOP_INTEGRATOR] == 1.0,
                            .rtol = p[STOP_RTOL],
                            .cvode = workspace};
        stop_result r;
        stop_simulate(&sys, &x0, &opt, &r);
        double *out[STOP_OUTPUT_COUNT];
        for (int o = 0; o < STOP_OUTPUT_COUNT; o++)
            out[o] = &outputs[(size_t)o * count + i];
        *out[STOP_REBOUNDS] = (double)r.rebounds;
        *out[STOP_ZENO_RESETS] = (double)r.zeno_resets;
        *out[STOP_CONTACT_PHASES] = (double)r.contact_phases;
        *out[STOP_ENERGY] = r.energy;
        *out[STOP_ENERGY_LOST] = r.energy_lost;
        *out[STOP_T_LAST_REBOUND] = r.t_last_rebound;
        *out[STOP_REGIME] = r.regime;
        *out[STOP_V_LAST_REBOUND] = r.rebounds > 0 ? r.v_in_last : NAN;
        *out[STOP_ORBITS] = NAN;
        *out[STOP_ORBIT_V] = NAN;
        *out[STOP_ORBIT_T_COD] = NAN;
        if (p[STOP_ORBIT_T_MAX] > 0.0) {
            stop_orbit orbits[STOP_MAX_ORBITS];
            int n = stop_find_orbits(&sys, p[STOP_ORBIT_T_MAX], 10, orbits);
            *out[STOP_ORBITS] = n;
            if (n > 0) {
                *out[STOP_ORBIT_V] = orbits[0].v;
                *out[STOP_ORBIT_T_COD] = orbits[0].t_cod;
            }
        }
        status[i] = r.failed == 1   ? IS_POINT_FAILED_BUDGET
                    : r.failed == 2 ? IS_POINT_FAILED_SOLVER
                                    : IS_POINT_DONE;
    }
    return IS_OK;
}

const is_model is_model_stop_oscillator = {
    .name = "stop-oscillator",
    .description = "two coupled oscillators, one hitting a fixed stop: rebounds, Zeno "
                   "resets, sticking, 2-phase periodic orbits",
    .params = stop_params,
    .param_count = STOP_PARAM_COUNT,
    .outputs = stop_outputs,
    .output_count = STOP_OUTPUT_COUNT,
    .validate = stop_validate,
    .workspace_create = stop_workspace_create,
    .workspace_free = stop_workspace_free,
    .eval_batch = stop_eval_batch,
};
