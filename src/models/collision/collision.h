/* collision.h: the collision model (MODELS.md sec. 2): a binary direct collinear impact
 * under one of seven collision laws, integrated in nondimensional form (X(0) = 0,
 * V(0) = -1) to the separation time T_s = inf{T : F <= 0 and V >= 0}; the outputs are the
 * coefficient of restitution e = V(T_s) and what happened on the way. Internal pieces the
 * tests check on their own are declared here too. */
#ifndef IMPACTSWEEP_COLLISION_H
#define IMPACTSWEEP_COLLISION_H

#include <signal.h>
#include <stdint.h>

#include "../../core/contract/model.h"
#include "../solver_status.h"

extern const is_model is_model_collision;

/* Parameter indices, in the order of the model's table. */
enum {
    COLLISION_LAW, COLLISION_FORM, COLLISION_INTEGRATOR, COLLISION_CVODE_METHOD,
    COLLISION_PI1, COLLISION_PI2, COLLISION_PI3, COLLISION_N, COLLISION_P, COLLISION_ALPHA,
    COLLISION_A,
    COLLISION_PI1B, COLLISION_PI2B, COLLISION_PI3B, COLLISION_V0,
    COLLISION_MASS, COLLISION_STIFFNESS, COLLISION_DAMPING, COLLISION_BETA, COLLISION_GAMMA,
    COLLISION_RTOL, COLLISION_ATOL, COLLISION_MAX_STEPS, COLLISION_T_MAX,
    COLLISION_REST_VELOCITY,
    COLLISION_PARAM_COUNT
};

/* Output indices, in the order of the model's table. */
enum {
    COLLISION_COR, COLLISION_T_SEP, COLLISION_X_MAX, COLLISION_X_SEP, COLLISION_F_MAX,
    COLLISION_STEPS, COLLISION_OUTCOME, COLLISION_SOLVER_FLAG, COLLISION_CHECK,
    COLLISION_T_SEP_DIM, COLLISION_X_MAX_DIM, COLLISION_X_SEP_DIM, COLLISION_F_MAX_DIM,
    COLLISION_INTEGRATOR_USED,
    COLLISION_OUTPUT_COUNT
};

typedef enum {
    LAW_BWSHC, LAW_BWM, LAW_HOOKE, LAW_HERTZ, LAW_KELVIN_VOIGT, LAW_HUNT_CROSSLEY, LAW_MAXWELL,
    LAW_COUNT
} collision_law;

typedef enum { FORM_NONDIMENSIONAL, FORM_VELOCITY, FORM_DIMENSIONAL } collision_form;
/* auto (the default) is resolved per point by collision_problem_from_point: the lanes
 * wherever they are admissible, else CVODE Adams; a point they fail (budget, solver,
 * non-finite: the stiff ones) is run again with CVODE BDF. In the lanes auto takes dop853
 * for rtol in [COLLISION_DOP853_RTOL_MIN, COLLISION_DOP853_RTOL_MAX], else dopri5: measured
 * on the bwshc surface (p 1.5), dop853 costs 0.84-0.91 of dopri5's CPU time there with
 * errors in e within 0.6 rtol; at 1e-7 and above it costs more (a step is 12 evaluations
 * to DOPRI5's 6), and below 1e-9 the rough points (|u|^p, 1 < p < 2, and the kinks of Z)
 * left some of its errors above rtol (4 rtol at 1e-10), where dopri5's stay below 0.3
 * rtol. dop853 runs in the lanes as dopri5 does: it is resolved to INTEGRATOR_DOPRI5 with
 * collision_problem.dop853 set. */
#define COLLISION_DOP853_RTOL_MIN 1e-9
#define COLLISION_DOP853_RTOL_MAX 1e-8
typedef enum {
    INTEGRATOR_CVODE,
    INTEGRATOR_DOPRI5,
    INTEGRATOR_AUTO,
    INTEGRATOR_DOP853
} collision_integrator;
/* What a point was computed with (the output integrator_used). */
typedef enum { USED_CVODE_ADAMS, USED_CVODE_BDF, USED_DOPRI5, USED_DOP853 } collision_used;

typedef enum {
    OUTCOME_SEPARATED = 0,      /* F <= 0 and V >= 0 reached: e = V(T_s) */
    OUTCOME_NO_SEPARATION = 1,  /* the motion died out in contact (or separated slower than
                                   rest_velocity): e = 0 */
    OUTCOME_SOLVER_FAILURE = 2, /* the integrator failed or ran out of steps */
    OUTCOME_HORIZON = 3         /* still in contact and moving at t_max: e = 0 by eq. (18)
                                   applied at the horizon, which may be too short */
} collision_outcome;

/* The physical checks of a result (collision_check_result); the first that fails is the
 * `check` output, and the point's status is then IS_POINT_FAILED_CHECK. */
typedef enum {
    CHECK_PASSED = 0,
    CHECK_NONFINITE = 1, /* a state or an output that must be finite is not */
    CHECK_COR = 2,       /* e outside [0, 1], or (hooke, hertz) not 1 */
    CHECK_ENERGY = 3,    /* the energy rose above the impact energy 1/2, or (hooke, hertz)
                            was not conserved */
    CHECK_SIGNS = 4      /* x_max < 0, f_max < 0, or a separation at t_sep <= 0 */
} collision_check;

/* |x|^e for x >= 0 and e > 0, for the exponents without a fast path: exp(e log x) in
 * plain C arithmetic (collision_lanes.c), the same routine, bit for bit, in the scalar
 * code and in the lanes, whatever the instruction set (libm's pow and libmvec differ
 * between builds and CPUs). Relative error about (1 + e/4) ulp. */
double collision_power_general(double x, double e);

/* |x|^e for x >= 0, with the exponents that occur most (1, 2, 3, 1/2-steps) done
 * without pow(). */
typedef struct collision_power {
    int kind;
    double exponent;
} collision_power;

void collision_power_init(collision_power *power, double exponent);

static inline double collision_power_eval(const collision_power *power, double x)
{
    switch (power->kind) {
    case 1: return x;
    case 2: return x * x;
    case 3: return x * x * x;
    case 4: return x * __builtin_sqrt(x);          /* 1.5 */
    case 5: return x * x * __builtin_sqrt(x);      /* 2.5 */
    default: return collision_power_general(x, power->exponent);
    }
}

/* The trace of one collision (collision_trace.c): what `impactsweep trace` hooks into
 * the integrators; NULL in eval_batch. */
typedef struct collision_hook collision_hook;

/* A collision ready to integrate: the law's nondimensional parameters and the scales
 * back to physical units. State layouts: Kelvin-Voigt type laws (X, V, Z), Maxwell type
 * laws (R, Y, Z, W); Z stays 0 for the classical laws. */
typedef struct collision_problem {
    collision_law law;
    collision_integrator integrator;  /* cvode or dopri5, the lanes (auto, dop853 resolved) */
    int automatic;                    /* integrator = auto: a failure is run again (BDF) */
    int bdf;                          /* CVODE: BDF with a dense Newton solve, else Adams */
    int dop853;                       /* the lanes: DOP853, else DOPRI5 */
    int dimension;                    /* 3 or 4 */
    double pi1, pi2, pi3, n, p, alpha, alpha_c, A;
    collision_power pow_p, pow_n;     /* |.|^p and |.|^n */
    double rtol, atol, t_max, rest_velocity;
    int64_t max_steps;
    int conservative;                 /* hooke, hertz: the energy is conserved, e = 1 */
    const volatile sig_atomic_t *stop; /* non-zero: stop and leave the point pending (may be
                                          NULL) */
    int dimensional;                  /* T_c, X_c, F_c below are meaningful */
    double t_scale, x_scale, f_scale; /* t = T T_c, x = X X_c, f = F m X_c / T_c^2 */
    collision_hook *hook;             /* NULL, or a trace: every step and event is passed
                                         on (and CVODE returns after every step) */
} collision_problem;

/* Builds the problem of one parameter point (any form), or explains why the point is
 * not admissible (IS_PARAM). Also the model's validate. */
is_code collision_problem_from_point(const double *point, collision_problem *problem,
                                     is_error *err);

/* The right-hand side y' = f(y); never fails. */
void collision_rhs(const collision_problem *problem, const double *y, double *dydt);

void collision_initial_state(const collision_problem *problem, double *y);

/* Contact force F = V' (nondimensional), relative velocity V and displacement X. */
double collision_force(const collision_problem *problem, const double *y);
double collision_velocity(const collision_problem *problem, const double *y);
double collision_displacement(const collision_problem *problem, const double *y);

/* The energy E = V^2/2 + alpha |U|^(p+1)/(p+1) + alpha_c |Z|^(p+1)/((p+1) A) (U = X, or Y
 * for the Maxwell type): kinetic plus what the springs and the Bouc-Wen element store.
 * E(0) = 1/2, and dE/dT <= 0 along every solution (derivation in collision_law.c);
 * constant for hooke and hertz. */
double collision_energy(const collision_problem *problem, const double *y);

/* The event functions (root functions), all continuous along solutions, named:
 * COLLISION_ROOT_FORCE = sign(F) |F|^(1/p) (F itself has a flat zero |X|^p where it
 * vanishes at X = 0, which root finders locate poorly; |F|^(1/p) is approximated by an
 * increasing function with the same root, collision_root_power), COLLISION_ROOT_VELOCITY = V,
 * COLLISION_ROOT_FORCE_RATE = dF/dT (a maximum of F), and the points where the right-hand
 * side is not smooth, where integrators restart rather than step across:
 * COLLISION_ROOT_KINK_W = W, the Bouc-Wen input of the Maxwell type (|W| has a kink; the
 * Kelvin-Voigt type's input is V, the velocity root); COLLISION_ROOT_KINK_U and
 * COLLISION_ROOT_KINK_Z = the arguments of |.|^(p-1) (U = X, or Y for the Maxwell type,
 * and Z), whose derivative is singular at 0 for 1 < p < 2. Events that cannot happen for
 * a law are held at 1. Last, COLLISION_ROOT_REST = max(|V|, |F|) - rest_velocity:
 * falling through 0 means the motion has died out in the equilibrium set (solutions
 * converge to it, eq. 15) without separating (held at 1 for hooke and hertz, which never
 * come to rest).
 * For hooke, hertz and hunt-crossley, whose F has the sign of -X exactly, the force root
 * is -X and the force-rate root the factor of dF/dT that carries its sign (see
 * collision_law.c: their F is rounding noise where hunt-crossley creeps at large pi1).
 * With `sign_only` the force root is F itself: the same sign, without the power. dydt is
 * f(y) if the caller has it, else NULL. */
typedef enum {
    COLLISION_ROOT_FORCE,
    COLLISION_ROOT_VELOCITY,
    COLLISION_ROOT_FORCE_RATE,
    COLLISION_ROOT_KINK_W,
    COLLISION_ROOT_KINK_U,
    COLLISION_ROOT_KINK_Z,
    COLLISION_ROOT_REST,
    COLLISION_EVENTS
} collision_root;
void collision_events(const collision_problem *problem, const double *y, const double *dydt,
                      double *g, int sign_only);
/* The force root's |F|^(1/p): an increasing stand-in, exact at 0 (collision_law.c). */
double collision_root_power(double x, double p);

/* The directions of the roots that matter, one table for every integrator (CVODE's
 * CVodeSetRootDirection convention: -1 falling, 0 either way, 1 rising): F falling, V
 * either way, F' falling (a maximum), the kink points either way, coming to rest. */
extern const int collision_root_direction[COLLISION_EVENTS];

/* Laws whose force has the sign of -X exactly (hooke, hertz, hunt-crossley): their force
 * root is -X, with rate -V. */
static inline int collision_force_follows_x(const collision_problem *problem)
{
    return problem->law == LAW_HOOKE || problem->law == LAW_HERTZ ||
           problem->law == LAW_HUNT_CROSSLEY;
}

/* The outcome of one collision, nondimensional. Compressions are -X (X < 0 is
 * compression, as X(0) = 0 and V(0) = -1): x_max the largest reached, x_sep the one where
 * the contact ended (separation, rest or the horizon). */
typedef struct collision_result {
    collision_outcome outcome;
    double cor, t_sep, x_max, x_sep, f_max;
    double energy_max, energy_min; /* of E at every event and at the end */
    int nonfinite;                 /* a state met on the way was not finite */
    int64_t steps;
    int solver_flag; /* solver_status.h: 0, a negative CVODE flag, or a solver_failure */
} collision_result;

/* What to do at a located event (shared by both integrators, so that they agree on the
 * meaning of every root): returns 1 when the collision is over (result filled in). */
typedef struct collision_tracker {
    const collision_problem *problem;
    collision_result *result;
} collision_tracker;

void collision_tracker_start(collision_tracker *tracker, const collision_problem *problem,
                             collision_result *result, const double *y0);
int collision_tracker_event(collision_tracker *tracker, double t, const double *y,
                            const int *crossed);
/* t_max reached in contact at time t, state y. */
void collision_tracker_horizon(collision_tracker *tracker, double t, const double *y);

/* The physical checks of a finished collision (collision_check). */
collision_check collision_check_result(const collision_problem *problem,
                                       const collision_result *result);

/* The integrators (failure convention: ../solver_status.h). Each returns the point's
 * status: IS_POINT_DONE with the result filled in; IS_POINT_FAILED_SOLVER,
 * IS_POINT_FAILED_BUDGET or IS_POINT_FAILED_NONFINITE with outcome solver_failure, the
 * steps taken and result->solver_flag saying why; or IS_POINT_PENDING when the stop flag
 * (problem->stop, polled every COLLISION_POLL_STEPS steps) ended it: no result. */
#define COLLISION_POLL_STEPS 256
typedef struct collision_cvode collision_cvode;
int collision_cvode_create(collision_cvode **cvode);
void collision_cvode_free(collision_cvode **cvode);
int collision_solve_cvode(collision_cvode *cvode, const collision_problem *problem,
                          collision_result *result);

/* DOPRI5 in lanes (collision_lanes.c): the count problems (all with integrator dopri5)
 * run side by side, each in a lane with its own step size, and results[i], status[i]
 * (as above) are filled in for each; `order` is scratch for count entries. A point's
 * result is the same bits whatever its lane and the other points. The stop flag is the
 * problems' (the same for all); when it is raised, the points not finished stay
 * IS_POINT_PENDING. Returns 0, or -1 when there was no memory for the lanes (the points
 * not finished stay pending). */
int collision_solve_dopri5(const collision_problem *problems, size_t count,
                           collision_result *results, uint8_t *status, size_t *order);

/* The trace's side of the hook (collision_trace.c): an accepted step of the integrator
 * (state y at time t), and the events the tracker recognises. */
enum {
    COLLISION_EVENT_CONTACT, COLLISION_EVENT_MAX_COMPRESSION, COLLISION_EVENT_MIN_COMPRESSION,
    COLLISION_EVENT_FORCE_MAX, COLLISION_EVENT_KINK, COLLISION_EVENT_SEPARATION,
    COLLISION_EVENT_REST, COLLISION_EVENT_HORIZON, COLLISION_EVENT_SOLVER_FAILURE
};
void collision_hook_attach(collision_hook *hook, collision_problem *problem,
                           const volatile sig_atomic_t *watch);
void collision_hook_sample(collision_hook *hook, double t, const double *y);
void collision_hook_event(collision_hook *hook, int kind);

extern const is_model_trace collision_trace;

/* Workspace and batch evaluation (collision.c). */
is_code collision_workspace_create(void **workspace, is_error *err);
void collision_workspace_free(void *workspace);
void collision_workspace_watch(void *workspace, const volatile sig_atomic_t *stop);
is_code collision_eval_batch(void *workspace, const double *points, size_t count,
                             double *outputs, uint8_t *status, is_error *err);
/* One point of eval_batch (out[o]: where output o goes), with a trace's hook or NULL.
 * Returns 1 when the stop flag ended it (no result: the point stays pending). */
int collision_evaluate_point(void *workspace, const double *point, collision_hook *hook,
                             double *const *out, uint8_t *status);

#endif
