/* stop_oscillator.c: the stop-oscillator model's table (parameters, outputs), its point
 * check, the batch evaluator with its scaling and the physical checks of each result.
 * The flows are in stop_flow.c, the hybrid simulation in stop_sim.c, the periodic orbits
 * in stop_orbits.c, the CVODE option in stop_cvode.c.
 *
 * Units: the paper's. Both masses are the unit of mass m; lengths are in a unit L and
 * times in a unit T of the user's choosing (the spring constants are per unit mass, in
 * 1/T^2), so every parameter and output is a number, UDUNITS "1", and its meaning says
 * which scale it is in. The simulation itself runs in the scaled variables of MODELS.md
 * sec. 3 (lengths in s, time in 1/omega1 = 1/sqrt(k): only k12/k remains), where the
 * method is verified over the admissible ranges below, and the outputs are scaled back. */
#include "stop_oscillator.h"

#include "../../core/contract/memo.h"

#include <math.h>
#include <stdlib.h>

static const char *const integrator_names[] = {"exact", "cvode", NULL};
static const char *const regime_names[] = {"free", "periodic", "impacting", "failed",
                                           "undecided", NULL};
/* stop_basis: the names say what decided the regime (proved, reached, or the approach
 * certificate, which rests on an observed law), or for undecided what would decide it */
static const char *const basis_names[] = {
    "failed",         "free_proved",           "periodic_reached",
    "periodic_approached_certificate_heuristic",    "impacting_proved",
    "undecided_raise_t_end", "undecided_near_orbit_raise_t_end",
    "undecided_below_orbit_raise_t_end", "undecided_no_orbit_matches_raise_t_end", NULL};
static const char *const fragile_names[] = {"robust", "fragile", NULL};
static const char *const failure_names[] = {
    "none", "budget", "solver", "energy_rose", "energy_balance", "nonfinite", "invalid", NULL};

enum { INTEGRATOR_EXACT, INTEGRATOR_CVODE };

/* Where the method is verified, besides STOP_RATIO_MIN/MAX and STOP_AMPLITUDE_MAX: */
#define PHASE_MAX 1e9       /* t_end sqrt(k): the run's clock keeps 1e-7 of 1/omega1 */
#define ORBIT_PHASE_MAX 1e5 /* orbit_t_max sqrt(k + 2 k12): the orbit search samples
                               every pole interval of both tangents (~3e4 here) */

static const is_param_when when_cvode[] = {{"integrator", 1u << INTEGRATOR_CVODE}, {NULL, 0}};

static const is_param stop_params[STOP_PARAM_COUNT] = {
    [STOP_K] = {"k", "outer spring constants per unit mass, in 1/T^2 (T: the time unit; k = 1 "
                "makes T = 1/omega1)",
                "1", IS_PARAM_REAL, 1.0, 0, INFINITY, IS_PARAM_MIN_OPEN, NULL, NULL, "$k$"},
    [STOP_K12] = {"k12", "coupling spring constant per unit mass, in 1/T^2; k12 / k in [1e-3, "
                  "1e3] (verified there)",
                  "1", IS_PARAM_REAL, 1.0, 0, INFINITY, IS_PARAM_MIN_OPEN, NULL, NULL, "$k_{12}$"},
    [STOP_S] = {"s", "position of the stop, in the length unit L (> 0: off it at "
                "equilibrium; the motion may reach up to 1e6 s)",
                "1", IS_PARAM_REAL, 1.0, 0, INFINITY, IS_PARAM_MIN_OPEN, NULL, NULL, "$s$"},
    [STOP_EPSILON] = {"epsilon", "coefficient of restitution at the stop", "1", IS_PARAM_REAL,
                      0.8, 0, 1, IS_PARAM_MIN_OPEN | IS_PARAM_MAX_OPEN, NULL,
                      NULL, "$\\varepsilon$"},
    [STOP_X1] = {"x1_0", "initial position of mass one, in L (<= s)", "1", IS_PARAM_REAL, 0.0,
                 -INFINITY, INFINITY, 0, NULL, NULL, "$x_{1,0}$"},
    [STOP_V1] = {"v1_0", "initial velocity of mass one, in L/T", "1", IS_PARAM_REAL, 1.5,
                 -INFINITY, INFINITY, 0, NULL, NULL, "$v_{1,0}$"},
    [STOP_X2] = {"x2_0", "initial position of mass two, in L", "1", IS_PARAM_REAL, 0.0,
                 -INFINITY, INFINITY, 0, NULL, NULL, "$x_{2,0}$"},
    [STOP_V2] = {"v2_0", "initial velocity of mass two, in L/T", "1", IS_PARAM_REAL, 0.0,
                 -INFINITY, INFINITY, 0, NULL, NULL, "$v_{2,0}$"},
    [STOP_T_END] = {"t_end", "horizon of the simulation, in T (t_end sqrt(k) <= 1e9)", "1",
                    IS_PARAM_REAL, 100.0, 0, 1e9, IS_PARAM_MIN_OPEN, NULL,
                    NULL, "$t_{\\mathrm{end}}$"},
    [STOP_MAX_REBOUNDS] = {"max_rebounds", "budget of rebounds simulated one by one", "1",
                           IS_PARAM_INT, 1e6, 0, 1e15, 0, NULL, NULL, NULL},
    [STOP_INTEGRATOR] = {"integrator", "exact closed-form flows, or CVODE (a check)", "1",
                         IS_PARAM_CHOICE, INTEGRATOR_EXACT, 0, 1, 0,
                         integrator_names, NULL, NULL},
    [STOP_RTOL] = {"rtol", "CVODE's relative tolerance", "1", IS_PARAM_REAL, 1e-10, 1e-14,
                   1e-3, IS_PARAM_TOLERANCE, NULL, when_cvode, NULL},
    [STOP_ZENO_TAIL] = {"zeno_tail",
                        "reset a Zeno sequence when the rest of it lasts less than this, in "
                        "units of 1/omega2",
                        "1", IS_PARAM_REAL, 1e-3, 0, 1, IS_PARAM_MIN_OPEN, NULL, NULL, NULL},
    [STOP_ORBIT_T_MAX] = {"orbit_t_max",
                          "look for 2-phase periodic orbits whose COD phase lasts up to this, "
                          "in T (0: do not; orbit_t_max sqrt(k + 2 k12) <= 1e5)",
                          "1", IS_PARAM_REAL, 0.0, 0, 1e4, 0, NULL, NULL, NULL},
    [STOP_FRAGILITY] = {"fragility",
                        "1: run each decided point again from its initial state moved by "
                        "1e-12 (relative) and say in `fragile` whether the regime changes "
                        "(twice the work of decided points); 0: do not",
                        "1", IS_PARAM_INT, 0.0, 0, 1, IS_PARAM_FIXED_ONLY, NULL, NULL, NULL},
    [STOP_SECTIONS] = {"sections",
                       "1: keep the last 64 rebounds and contact releases (the rebound map's "
                       "sections) and give rebound_period, rebound_values, release_period and "
                       "release_values; 0: do not (they are missing)",
                       "1", IS_PARAM_INT, 0.0, 0, 1, IS_PARAM_FIXED_ONLY, NULL, NULL, NULL},
};

static const is_output stop_outputs[STOP_OUTPUT_COUNT] = {
    [STOP_REBOUNDS] = {"rebounds", "1", "rebounds simulated one by one", IS_OUTPUT_INT, NULL,
                       0, "rebounds"},
    [STOP_ZENO_RESETS] = {"zeno_resets", "1", "Zeno sequences ended by an orbit reset",
                          IS_OUTPUT_INT, NULL, 0, "Zeno resets"},
    [STOP_CONTACT_PHASES] = {"contact_phases", "1", "contact (CD) phases", IS_OUTPUT_INT,
                             NULL, 0, "contact phases"},
    [STOP_ENERGY] = {"energy", "1", "energy at the end, in m L^2/T^2 (m: the unit mass)",
                     IS_OUTPUT_REAL, NULL, 0, "$E$"},
    [STOP_ENERGY_LOST] = {"energy_lost", "1", "initial minus final energy (>= 0), in m L^2/T^2",
                          IS_OUTPUT_REAL, NULL, 0, "$E_0 - E$"},
    [STOP_T_LAST_REBOUND] = {"t_last_rebound", "1", "time of the last rebound, in T (NaN: none)",
                             IS_OUTPUT_REAL, NULL, IS_OUTPUT_MAY_BE_NAN, "$t_{\\mathrm{last}}$"},
    [STOP_REGIME] = {"regime", "1",
                     "long-run regime by t_end: proved (free, impacting), reached (periodic) "
                     "or approached (periodic by a certificate that rests on an observed law: "
                     "a heuristic; see regime_basis)",
                     IS_OUTPUT_CATEGORY, regime_names, 0, "regime"},
    [STOP_ORBITS] = {"orbits", "1",
                     "2-phase periodic orbits with t_cod <= orbit_t_max (missing: not searched)",
                     IS_OUTPUT_INT, NULL, IS_OUTPUT_MAY_BE_NAN, "periodic orbits"},
    [STOP_ORBIT_V] = {"orbit_v", "1", "v2 leaving contact on the orbit of least |v|, in L/T",
                      IS_OUTPUT_REAL, NULL, IS_OUTPUT_MAY_BE_NAN, "$v_2^*$"},
    [STOP_ORBIT_T_COD] = {"orbit_t_cod", "1", "duration of that orbit's COD phase, in T",
                          IS_OUTPUT_REAL, NULL,
                          IS_OUTPUT_MAY_BE_NAN, "$t_{\\mathrm{cod}}$"},
    [STOP_V_LAST_REBOUND] = {"v_last_rebound", "1",
                             "arrival speed of mass one at the last rebound, in L/T (NaN: none)",
                             IS_OUTPUT_REAL, NULL, IS_OUTPUT_MAY_BE_NAN, "$|v_1|_{\\mathrm{last}}$"},
    [STOP_ENERGY_FALL] = {"energy_fall", "1",
                          "relative fall of the energy over the last half of the run",
                          IS_OUTPUT_REAL, NULL, 0, "energy fall, last half"},
    [STOP_ENERGY_FALL_Q4] = {"energy_fall_q4", "1",
                             "fall of the energy over the last quarter, over E(t_end / 2)",
                              IS_OUTPUT_REAL, NULL, 0, "energy fall, last quarter"},
    [STOP_STICK_RATIO] = {"stick_ratio", "1",
                          "final energy over the least energy to stick (< 1: never again)",
                          IS_OUTPUT_REAL, NULL, 0, "$E / E_{\\mathrm{stick}}$"},
    [STOP_LATE_STICKING] = {"late_sticking", "1",
                            "Zeno sequences and contact phases in the last half of the run",
                            IS_OUTPUT_INT, NULL, 0, "late sticking"},
    [STOP_T_REGIME] = {"t_regime", "1", "time from which the regime is proved or detected, in T",
                       IS_OUTPUT_REAL, NULL, IS_OUTPUT_MAY_BE_NAN, "$t_{\\mathrm{regime}}$"},
    [STOP_FAILURE] = {"failure", "1", "why the point failed (none: it did not)",
                      IS_OUTPUT_CATEGORY, failure_names, 0, "failure"},
    [STOP_REGIME_BASIS] = {"regime_basis", "1",
                           "why the regime is decided (a proof, an exact detection, or the "
                           "approach certificate with stated tolerances, which rests on the "
                           "local law of a grazing return: a heuristic), or for undecided "
                           "what would decide it",
                           IS_OUTPUT_CATEGORY, basis_names, 0, "regime basis"},
    [STOP_ORBIT_GAP] = {"orbit_gap", "1",
                        "(E - E*) / E* at the last contact phase, E* the energy of the 2-phase "
                        "orbit its cycles follow (< 0: below it; NaN: none)",
                        IS_OUTPUT_REAL, NULL, IS_OUTPUT_MAY_BE_NAN, "$(E - E^*) / E^*$"},
    [STOP_FRAGILE] = {"fragile", "1",
                      "whether the regime rests on rounding: a twin run from the initial "
                      "state moved by 1e-12 (relative) has another regime (missing: "
                      "fragility 0, or the point not decided)",
                      IS_OUTPUT_CATEGORY, fragile_names, IS_OUTPUT_MAY_BE_NAN, "fragile"},
    [STOP_REBOUND_PERIOD] = {"rebound_period", "1",
                             "period of the rebound map's section, in rebounds: the least p "
                             "(up to 32) with each of the last p rebounds' states (E, x2, v2) "
                             "leaving the stop equal to the one p rebounds before (to 1e-7 "
                             "of their largest values; missing: none, or sections 0)",
                             IS_OUTPUT_INT, NULL, IS_OUTPUT_MAY_BE_NAN, "rebound period"},
    [STOP_REBOUND_VALUES] = {"rebound_values", "1",
                             "distinct states (E, x2, v2) leaving the stop among the last 64 "
                             "rebounds (to 1e-7 of their largest values; 0: no rebound; "
                             "missing: sections 0)",
                             IS_OUTPUT_INT, NULL, IS_OUTPUT_MAY_BE_NAN, "rebound values"},
    [STOP_RELEASE_PERIOD] = {"release_period", "1",
                             "period of the contact-release section, in releases (the end of "
                             "a contact phase), up to 32, as rebound_period (1 on a 2-phase "
                             "periodic orbit; missing: none, or sections 0)",
                             IS_OUTPUT_INT, NULL, IS_OUTPUT_MAY_BE_NAN, "release period"},
    [STOP_RELEASE_VALUES] = {"release_values", "1",
                             "distinct states (E, v2) at the last 64 contact releases (to "
                             "1e-7 of their largest values; 0: no release; missing: sections "
                             "0)",
                             IS_OUTPUT_INT, NULL, IS_OUTPUT_MAY_BE_NAN, "release values"},
};

/* The point in the scaled variables: lengths in units of s, time in units of 1/omega1
 * (k = 1, s = 1, k12 / k). With k = 1 and s = 1 every factor is exactly 1, so the
 * scaling changes no bit. */
typedef struct scaled_point {
    stop_system sys;
    stop_state x0;
    double time, speed, energy; /* the units of the scaled variables' time, speed, energy */
} scaled_point;

static void scale_point(const double *p, scaled_point *sp)
{
    double w1 = sqrt(p[STOP_K]), s = p[STOP_S];
    sp->time = 1.0 / w1;
    sp->speed = s * w1;
    sp->energy = s * s * p[STOP_K];
    stop_system_init(&sp->sys, 1.0, p[STOP_K12] / p[STOP_K], 1.0, p[STOP_EPSILON]);
    sp->x0 = (stop_state){p[STOP_X1] / s, p[STOP_V1] / sp->speed, p[STOP_X2] / s,
                          p[STOP_V2] / sp->speed};
}

/* The initial energy in the given units, from the point as given (not scaled). */
static double initial_energy(const double *p)
{
    stop_system sys;
    stop_system_init(&sys, p[STOP_K], p[STOP_K12], p[STOP_S], p[STOP_EPSILON]);
    stop_state x0 = {p[STOP_X1], p[STOP_V1], p[STOP_X2], p[STOP_V2]};
    return stop_energy(&sys, &x0);
}

static is_code stop_validate(const double *point, is_error *err)
{
    if (point[STOP_X1] > point[STOP_S])
        return is_error_set(err, IS_PARAM,
                            "x1_0 = %g is beyond the stop s = %g: mass one starts left of it",
                            point[STOP_X1], point[STOP_S]);
    double ratio = point[STOP_K12] / point[STOP_K];
    if (!(ratio >= STOP_RATIO_MIN && ratio <= STOP_RATIO_MAX))
        return is_error_set(err, IS_PARAM,
                            "k12 / k = %g (k12 = %g, k = %g) is outside [%g, %g], where the "
                            "method is verified",
                            ratio, point[STOP_K12], point[STOP_K], STOP_RATIO_MIN,
                            STOP_RATIO_MAX);
    scaled_point sp;
    scale_point(point, &sp);
    /* the units of the scaled variables must be numbers for the outputs to be scaled back */
    if (!isnormal(sp.energy) || !isnormal(sp.speed) || !isnormal(sp.time))
        return is_error_set(err, IS_PARAM,
                            "k = %g and s = %g are beyond double precision together (the unit "
                            "of energy k s^2 = %g, of speed s sqrt(k) = %g)",
                            point[STOP_K], point[STOP_S], sp.energy, sp.speed);
    /* the modal amplitudes (stop_mode_amplitudes), with hypot: no overflow here */
    stop_modes m;
    stop_modes_from_state(&sp.x0, &m);
    double a1 = hypot(m.u, m.du / sp.sys.w1), a2 = hypot(m.w, m.dw / sp.sys.w2);
    if (!(a1 + a2 <= STOP_AMPLITUDE_MAX))
        return is_error_set(err, IS_PARAM,
                            "the initial state (x1_0, v1_0, x2_0, v2_0) = (%g, %g, %g, %g) "
                            "moves %g times as far as the stop s = %g (with k = %g, k12 = %g): "
                            "at most %g, beyond which the stop is lost in the rounding of the "
                            "orbit",
                            point[STOP_X1], point[STOP_V1], point[STOP_X2], point[STOP_V2],
                            a1 + a2, point[STOP_S], point[STOP_K], point[STOP_K12],
                            STOP_AMPLITUDE_MAX);
    if (!isfinite(initial_energy(point)) || !isfinite(stop_energy(&sp.sys, &sp.x0) * sp.energy))
        return is_error_set(err, IS_PARAM,
                            "the initial energy overflows (k = %g, s = %g and the initial "
                            "state)",
                            point[STOP_K], point[STOP_S]);
    double phase = point[STOP_T_END] / sp.time;
    if (!(phase <= PHASE_MAX))
        return is_error_set(err, IS_PARAM,
                            "t_end sqrt(k) = %g (t_end = %g, k = %g) exceeds %g", phase,
                            point[STOP_T_END], point[STOP_K], PHASE_MAX);
    double orbit_phase = point[STOP_ORBIT_T_MAX] * sqrt(point[STOP_K] + 2.0 * point[STOP_K12]);
    if (!(orbit_phase <= ORBIT_PHASE_MAX))
        return is_error_set(err, IS_PARAM,
                            "orbit_t_max sqrt(k + 2 k12) = %g (orbit_t_max = %g, k = %g, "
                            "k12 = %g) exceeds %g",
                            orbit_phase, point[STOP_ORBIT_T_MAX], point[STOP_K],
                            point[STOP_K12], ORBIT_PHASE_MAX);
    return IS_OK;
}

typedef struct stop_workspace {
    void *cvode;
    stop_lanes *lanes;
    stop_twins *twins; /* the fragility twins' buffers */
    is_memo *orbits; /* the orbit outputs by (k, k12, s, t_cod_max): stop_orbit_outputs */
    const volatile sig_atomic_t *stop; /* never NULL */
} stop_workspace;

/* What stop_workspace_watch has not been given: a flag that is never set. */
static const volatile sig_atomic_t never_stop = 0;

static is_code stop_workspace_create(void **workspace, is_error *err)
{
    stop_workspace *ws = calloc(1, sizeof *ws);
    if (!ws)
        return is_error_set(err, IS_NOMEM, "stop-oscillator: cannot allocate a workspace");
    ws->lanes = stop_lanes_create();
    ws->twins = stop_twins_create();
    ws->orbits = is_memo_create(4, sizeof(stop_orbit_summary), STOP_ORBIT_MEMO_ENTRIES);
    if (!ws->lanes || !ws->twins || !ws->orbits) {
        stop_lanes_free(ws->lanes);
        stop_twins_free(ws->twins);
        is_memo_free(ws->orbits);
        free(ws);
        return is_error_set(err, IS_NOMEM,
                            "stop-oscillator: cannot allocate the lanes, the twins' buffers "
                            "or the orbit memo");
    }
    if (stop_cvode_create(&ws->cvode) != 0) {
        stop_lanes_free(ws->lanes);
        stop_twins_free(ws->twins);
        is_memo_free(ws->orbits);
        free(ws);
        return is_error_set(err, IS_MODEL, "stop-oscillator: cannot create CVODE");
    }
    ws->stop = &never_stop;
    *workspace = ws;
    return IS_OK;
}

static void stop_workspace_free(void *workspace)
{
    stop_workspace *ws = workspace;
    if (!ws)
        return;
    stop_cvode_free(ws->cvode);
    stop_lanes_free(ws->lanes);
    stop_twins_free(ws->twins);
    is_memo_free(ws->orbits);
    free(ws);
}

static void stop_workspace_watch(void *workspace, const volatile sig_atomic_t *stop)
{
    ((stop_workspace *)workspace)->stop = stop ? stop : &never_stop;
}

int stop_point_begin(void *workspace, const double *p, stop_trace *trace, stop_task *pt,
                     double *const *out, uint8_t *status)
{
    stop_workspace *ws = workspace;
    if (*ws->stop)
        return STOP_POINT_STOPPED; /* asked to stop: this point and the rest stay pending */
    /* the core validates every point first; a caller that did not gets no result
     * from outside the ranges where the method is verified */
    is_error refused;
    if (stop_validate(p, &refused) != IS_OK) {
        for (int o = 0; o < STOP_OUTPUT_COUNT; o++)
            *out[o] = NAN;
        *out[STOP_REGIME] = REGIME_FAILED;
        *out[STOP_REGIME_BASIS] = STOP_BASIS_FAILED;
        *out[STOP_FAILURE] = STOP_FAILURE_INVALID;
        *status = IS_POINT_FAILED_INVALID;
        return STOP_POINT_DONE;
    }
    scaled_point sp;
    scale_point(p, &sp);
    pt->sys = sp.sys;
    pt->x0 = sp.x0;
    pt->time = sp.time;
    pt->speed = sp.speed;
    pt->energy = sp.energy;
    pt->orbits = ws->orbits;
    pt->opt = (stop_options){.t_end = p[STOP_T_END] / sp.time,
                             .max_rebounds = (int64_t)p[STOP_MAX_REBOUNDS],
                             .zeno_tail = p[STOP_ZENO_TAIL],
                             .use_cvode = p[STOP_INTEGRATOR] == INTEGRATOR_CVODE,
                             .rtol = p[STOP_RTOL],
                             .cvode = ws->cvode,
                             .certify_approach = 1,
                             .stop = ws->stop,
                             .sections = p[STOP_SECTIONS] != 0.0 ? pt->rings : NULL};
    if (trace) /* it reports in the point's units, and watches the stop flag itself */
        stop_trace_attach(trace, &pt->opt, &pt->sys, p[STOP_S], sp.speed, sp.time, sp.energy,
                          initial_energy(p));
    return STOP_POINT_RUN;
}

/* The 2-phase periodic orbits of the point's system, when asked for (searched once per
 * system and t_cod_max on a worker: stop_orbit_outputs). */
static void orbit_outputs(const double *p, const stop_task *pt, double *const *out)
{
    *out[STOP_ORBITS] = NAN;
    *out[STOP_ORBIT_V] = NAN;
    *out[STOP_ORBIT_T_COD] = NAN;
    if (!(p[STOP_ORBIT_T_MAX] > 0.0))
        return;
    stop_orbit_summary found;
    stop_orbit_outputs(pt->orbits, &pt->sys, p[STOP_ORBIT_T_MAX] / pt->time, &found);
    *out[STOP_ORBITS] = found.count;
    if (found.count > 0) {
        *out[STOP_ORBIT_V] = found.v * pt->speed;
        *out[STOP_ORBIT_T_COD] = found.t_cod * pt->time;
    }
}

void stop_point_end(const double *p, const stop_task *pt, double *const *out, uint8_t *status)
{
    const stop_result *r = &pt->r;
    *out[STOP_REBOUNDS] = (double)r->rebounds;
    *out[STOP_ZENO_RESETS] = (double)r->zeno_resets;
    *out[STOP_CONTACT_PHASES] = (double)r->contact_phases;
    /* a free run keeps its energy: the one of the point as given (where the scaled
     * state is tiny, the scaled energy keeps fewer digits) */
    *out[STOP_ENERGY] = r->regime == REGIME_FREE ? initial_energy(p) : r->energy * pt->energy;
    *out[STOP_ENERGY_LOST] = r->energy_lost * pt->energy;
    *out[STOP_T_LAST_REBOUND] = r->t_last_rebound * pt->time;
    *out[STOP_REGIME] = r->regime;
    *out[STOP_V_LAST_REBOUND] = r->rebounds > 0 ? r->v_in_last * pt->speed : NAN;
    *out[STOP_ENERGY_FALL] = r->energy_fall;
    *out[STOP_ENERGY_FALL_Q4] = r->energy_fall_q4;
    *out[STOP_STICK_RATIO] = r->energy / r->e_stick;
    *out[STOP_LATE_STICKING] = (double)r->late_sticking;
    *out[STOP_T_REGIME] = r->t_regime * pt->time;
    *out[STOP_REGIME_BASIS] = r->basis;
    *out[STOP_ORBIT_GAP] = r->orbit_gap;
    *out[STOP_FRAGILE] = NAN; /* the twin's, when it has one (stop_fragility.c) */
    orbit_outputs(p, pt, out);
    stop_section_outputs(pt, out);
    stop_failure failure = stop_check_result(&pt->sys, &pt->opt, r);
    *out[STOP_FAILURE] = failure;
    if (failure != STOP_FAILURE_NONE) {
        *out[STOP_REGIME] = REGIME_FAILED;
        *out[STOP_REGIME_BASIS] = STOP_BASIS_FAILED;
    }
    *status = failure == STOP_FAILURE_NONE          ? IS_POINT_DONE
              : failure == STOP_FAILURE_BUDGET      ? IS_POINT_FAILED_BUDGET
              : failure == STOP_FAILURE_SOLVER      ? IS_POINT_FAILED_SOLVER
              : failure == STOP_FAILURE_NONFINITE   ? IS_POINT_FAILED_NONFINITE
                                                    : IS_POINT_FAILED_CHECK;
}

int stop_evaluate_point(void *workspace, const double *p, stop_trace *trace,
                        double *const *out, uint8_t *status)
{
    stop_task pt;
    stop_ring rings[STOP_RINGS];
    pt.rings = rings;
    int rc = stop_point_begin(workspace, p, trace, &pt, out, status);
    if (rc != STOP_POINT_RUN)
        return rc == STOP_POINT_STOPPED;
    stop_simulate(&pt.sys, &pt.x0, &pt.opt, &pt.r);
    if (pt.r.failed == STOP_RUN_STOPPED) /* stopped: this point and the rest are computed
                                            again */
        return 1;
    stop_point_end(p, &pt, out, status);
    return stop_twin_alone(workspace, p, out, status);
}

void stop_pending(size_t first, size_t count, double *outputs, uint8_t *status)
{
    for (size_t i = first; i < count; i++) {
        for (int o = 0; o < STOP_OUTPUT_COUNT; o++)
            outputs[(size_t)o * count + i] = NAN;
        status[i] = IS_POINT_PENDING;
    }
}

/* The points run in lanes (stop_lanes.c), each to the same bits as alone; then the
 * twins of those with fragility 1 (stop_fragility.c), in lanes too. */
static is_code stop_eval_batch(void *workspace, const double *points, size_t count,
                               double *outputs, uint8_t *status, is_error *err)
{
    (void)err;
    stop_workspace *ws = workspace;
    stop_lanes_eval(ws->lanes, workspace, points, count, outputs, status);
    stop_twins_eval(ws->twins, ws->lanes, workspace, points, count, outputs, status);
    return IS_OK;
}

const is_model is_model_stop_oscillator = {
    IS_MODEL_HEADER,
    .name = "stop-oscillator",
    .description = "two coupled oscillators, one hitting a fixed stop: rebounds, Zeno "
                   "resets, contact phases, 2-phase periodic orbits (unit masses; lengths in a "
                   "unit L, times in a unit T)",
    .params = stop_params,
    .param_count = STOP_PARAM_COUNT,
    .outputs = stop_outputs,
    .output_count = STOP_OUTPUT_COUNT,
    .validate = stop_validate,
    .workspace_create = stop_workspace_create,
    .workspace_free = stop_workspace_free,
    .workspace_watch = stop_workspace_watch,
    .eval_batch = stop_eval_batch,
    .trace = &stop_oscillator_trace,
    .references = "A. X. C. N. Valente, N. H. McClamroch, I. Mezic, Hybrid Dynamics of Two "
                  "Coupled Oscillators that can Impact a Fixed Stop, arXiv:nlin/0309060",
    .trace_samples = stop_trace_samples,
};
