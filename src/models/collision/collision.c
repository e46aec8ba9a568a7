/* collision.c: the collision model's table (parameters with where each applies, outputs
 * with their meaning in every outcome), the three parameter forms mapped to one
 * nondimensional problem (reading exactly the parameters that apply), and the batch
 * evaluator (physical checks before a point is done, the stop flag). The laws, their
 * energy and the checks are in collision_law.c, the integrators in collision_cvode.c and
 * collision_dopri5.c. */
#include "collision.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char *const law_names[] = {"bwshc", "bwm", "hooke", "hertz", "kelvin-voigt",
                                        "hunt-crossley", "maxwell", NULL};
static const char *const form_names[] = {"nondimensional", "velocity", "dimensional", NULL};
static const char *const integrator_names[] = {"cvode", "dopri5", "auto", "dop853", NULL};
static const char *const used_names[] = {"cvode_adams", "cvode_bdf", "dopri5", "dop853", NULL};
static const char *const cvode_method_names[] = {"adams", "bdf", NULL};
static const char *const outcome_names[] = {"separated", "no_separation", "solver_failure",
                                            "horizon", NULL};
static const char *const check_names[] = {"passed", "nonfinite", "cor", "energy", "signs", NULL};

#define R IS_PARAM_REAL
#define I IS_PARAM_INT
#define C IS_PARAM_CHOICE
#define OPEN_MIN IS_PARAM_MIN_OPEN
#define OPEN_BOTH (IS_PARAM_MIN_OPEN | IS_PARAM_MAX_OPEN)

/* Where each parameter applies (is_param.when): exactly the laws, forms and integrators
 * whose code reads it (collision_problem_from_point, collision_law.c, the integrators);
 * test_applicability_matches_the_code perturbs every parameter under every combination
 * and holds this table to it. */
#define LAW(l) (1u << (l))
#define LAWS_BOUC_WEN (LAW(LAW_BWSHC) | LAW(LAW_BWM))
/* pi1 (or c): every law but the undamped hooke and hertz */
#define LAWS_DAMPED \
    (LAWS_BOUC_WEN | LAW(LAW_KELVIN_VOIGT) | LAW(LAW_HUNT_CROSSLEY) | LAW(LAW_MAXWELL))
/* p: kelvin-voigt, maxwell and hooke are linear, p = 1 */
#define LAWS_EXPONENT (LAWS_BOUC_WEN | LAW(LAW_HERTZ) | LAW(LAW_HUNT_CROSSLEY))
/* rest_velocity: hooke and hertz conserve energy and never come to rest */
#define LAWS_DISSIPATIVE LAWS_DAMPED
/* the velocity form: the laws that depend on v0 once the material is fixed (kelvin-voigt
 * and maxwell have p = 1, so pi1 = c/sqrt(mk) or sqrt(mk)/c; hooke and hertz have no
 * parameter at all) */
#define LAWS_VELOCITY (LAWS_BOUC_WEN | LAW(LAW_HUNT_CROSSLEY))
#define FORM(f) (1u << (f))
#define END {NULL, 0}

static const is_param_when when_bouc_wen[] = {{"law", LAWS_BOUC_WEN}, END};
static const is_param_when when_exponent[] = {{"law", LAWS_EXPONENT}, END};
static const is_param_when when_dissipative[] = {{"law", LAWS_DISSIPATIVE}, END};
static const is_param_when when_cvode[] = {{"integrator", 1u << INTEGRATOR_CVODE}, END};
static const is_param_when when_pi1[] = {{"form", FORM(FORM_NONDIMENSIONAL)},
                                         {"law", LAWS_DAMPED}, END};
static const is_param_when when_pi23[] = {{"form", FORM(FORM_NONDIMENSIONAL)},
                                          {"law", LAWS_BOUC_WEN}, END};
static const is_param_when when_pi1b[] = {{"form", FORM(FORM_VELOCITY)},
                                          {"law", LAWS_VELOCITY}, END};
static const is_param_when when_pi23b[] = {{"form", FORM(FORM_VELOCITY)},
                                           {"law", LAWS_BOUC_WEN}, END};
/* the velocity form takes only LAWS_VELOCITY, and all of them read v0 */
static const is_param_when when_v0[] = {{"form", FORM(FORM_VELOCITY) | FORM(FORM_DIMENSIONAL)},
                                        END};
static const is_param_when when_dimensional[] = {{"form", FORM(FORM_DIMENSIONAL)}, END};
static const is_param_when when_damping[] = {{"form", FORM(FORM_DIMENSIONAL)},
                                             {"law", LAWS_DAMPED}, END};
static const is_param_when when_beta_gamma[] = {{"form", FORM(FORM_DIMENSIONAL)},
                                                {"law", LAWS_BOUC_WEN}, END};

/* Units are UDUNITS strings: "1" for the nondimensional groups (the scale is in the
 * meaning); SI for the dimensional form, except k, c, beta and gamma, whose SI units
 * have the exponents p and n and are stated in the meaning. */
static const is_param collision_params[COLLISION_PARAM_COUNT] = {
    [COLLISION_LAW] = {"law", "collision law", "1", C, LAW_BWSHC, 0, LAW_COUNT - 1, 0,
                       law_names, NULL, NULL},
    [COLLISION_FORM] = {"form", "how the parameters are given (velocity: laws bwshc, bwm, "
                        "hunt-crossley, the ones that depend on v0)", "1", C,
                        FORM_NONDIMENSIONAL, 0, 2, 0, form_names, NULL, NULL},
    [COLLISION_INTEGRATOR] = {"integrator", "ODE integrator (all locate events exactly): auto "
                              "is the lanes where they are admissible (all but bwm and "
                              "maxwell with 1 < p < 2: CVODE Adams): DOP853 at rtol 1e-9 to "
                              "1e-8 (where it is cheaper), else DOPRI5; and CVODE BDF for a "
                              "point they fail (stiff); the output integrator_used says which",
                              "1", C, INTEGRATOR_AUTO, 0, 3, IS_PARAM_METHOD,
                              integrator_names, NULL, NULL},
    [COLLISION_CVODE_METHOD] = {"cvode_method", "CVODE linear multistep family (bdf for stiff "
                                "points: large pi1, pi2 or A, where adams runs out of steps)",
                                "1", C, 0, 0, 1, 0, cvode_method_names, when_cvode, NULL},
    [COLLISION_PI1] = {"pi1", "damping group pi1 (kelvin-voigt, maxwell: twice the damping "
                       "ratio; at most 300 for kelvin-voigt, 1e4 for bwshc, where it is "
                       "verified)", "1", R, 0.5, 0, INFINITY, 0, NULL, when_pi1, "$\\pi_{1}$"},
    [COLLISION_PI2] = {"pi2", "Bouc-Wen beta group pi2", "1", R, 1.0, 0, INFINITY, OPEN_MIN,
                       NULL, when_pi23, "$\\pi_{2}$"},
    [COLLISION_PI3] = {"pi3", "Bouc-Wen gamma group pi3, |pi3| < pi2", "1", R, 0.5, -INFINITY,
                       INFINITY, 0, NULL, when_pi23, "$\\pi_{3}$"},
    [COLLISION_N] = {"n", "Bouc-Wen exponent n", "1", R, 1.0, 1, INFINITY, 0, NULL,
                     when_bouc_wen, "$n$"},
    [COLLISION_P] = {"p", "force exponent p (Hertz 1.5; hooke, kelvin-voigt and maxwell have "
                     "p = 1)", "1", R, 1.5, 1, INFINITY, 0, NULL, when_exponent, "$p$"},
    [COLLISION_ALPHA] = {"alpha", "elastic share of the Bouc-Wen force", "1", R, 0.5, 0, 1,
                         OPEN_BOTH, NULL, when_bouc_wen, "$\\alpha$"},
    [COLLISION_A] = {"A", "Bouc-Wen rate A", "1", R, 1.0, 0, INFINITY, OPEN_MIN, NULL,
                     when_bouc_wen, "$A$"},
    [COLLISION_PI1B] = {"pi1b", "base pi1, at v0 = 1 m s-1", "1", R, 0.5, 0, INFINITY, 0, NULL,
                        when_pi1b, "$\\pi_{1b}$"},
    [COLLISION_PI2B] = {"pi2b", "base pi2, at v0 = 1 m s-1", "1", R, 1.0, 0, INFINITY,
                        OPEN_MIN, NULL, when_pi23b, "$\\pi_{2b}$"},
    [COLLISION_PI3B] = {"pi3b", "base pi3, at v0 = 1 m s-1, |pi3b| < pi2b", "1", R, 0.5,
                        -INFINITY, INFINITY, 0, NULL, when_pi23b, "$\\pi_{3b}$"},
    [COLLISION_V0] = {"v0", "impact speed v0 = -v(0)", "m s-1", R, 1.0, 0, INFINITY, OPEN_MIN,
                      NULL, when_v0, "$v_{0}$"},
    [COLLISION_MASS] = {"m", "reduced mass", "kg", R, 1.0, 0, INFINITY, OPEN_MIN, NULL,
                        when_dimensional, "$m$"},
    [COLLISION_STIFFNESS] = {"k", "stiffness k, in N m^-p", "1", R, 1.0, 0, INFINITY, OPEN_MIN,
                             NULL, when_dimensional, "$k$"},
    [COLLISION_DAMPING] = {"c", "damping coefficient c, in N s m^-(p+1) (bwshc, kelvin-voigt, "
                           "hunt-crossley: force c |x|^p v) or N s m^-1 (bwm, maxwell: a dashpot "
                           "in series)", "1", R, 0.5, 0, INFINITY, 0, NULL, when_damping, "$c$"},
    [COLLISION_BETA] = {"beta", "Bouc-Wen beta, in m^-n", "1", R, 1.0, 0, INFINITY, OPEN_MIN,
                        NULL, when_beta_gamma, "$\\beta$"},
    [COLLISION_GAMMA] = {"gamma", "Bouc-Wen gamma, in m^-n, |gamma| < beta", "1", R, 0.5,
                         -INFINITY, INFINITY, 0, NULL, when_beta_gamma, "$\\gamma$"},
    [COLLISION_RTOL] = {"rtol", "relative accuracy asked of the outputs (the integrators "
                        "tighten their own tolerances to deliver it)", "1", R, 1e-10, 1e-11,
                        1e-3, IS_PARAM_TOLERANCE, NULL, NULL, NULL},
    [COLLISION_ATOL] = {"atol", "absolute accuracy asked of the state, in units of X_c and "
                        "v0 (the integrators tighten their own tolerances to deliver it)", "1",
                        R, 1e-12, 1e-14, 1e-3, IS_PARAM_TOLERANCE, NULL, NULL, NULL},
    [COLLISION_MAX_STEPS] = {"max_steps", "work budget: integrator steps per point", "1", I,
                             200000, 10, 1e9, 0, NULL, NULL, NULL},
    [COLLISION_T_MAX] = {"t_max", "horizon, in units of T_c: still in contact then is outcome "
                         "horizon, e = 0", "1", R, 1000, 0, 1e9, OPEN_MIN, NULL, NULL, NULL},
    [COLLISION_REST_VELOCITY] = {"rest_velocity",
                                 "a separation slower than this, or |V| and |F| both below it "
                                 "in contact, is rest: e = 0 (in units of v0)",
                                 "1", R, 1e-9, 0, 1e-2, 0, NULL, when_dissipative, NULL},
};

/* Outputs: X is the relative displacement in units of X_c, negative in compression
 * (X(0) = 0, V(0) = -1); compressions are -X. Every output has a value in every outcome
 * of a computed point, except t_sep (NaN unless the bodies separate) and the dimensional
 * ones (NaN unless form = dimensional). */
static const is_output collision_outputs[COLLISION_OUTPUT_COUNT] = {
    [COLLISION_COR] = {"cor", "1", "coefficient of restitution e = V(T_s) = -v(t_s)/v(0); 0 when "
                       "the bodies do not separate", IS_OUTPUT_REAL, NULL,
                       0, "$e$"},
    [COLLISION_T_SEP] = {"t_sep", "1", "separation time T_s = t_s/T_c, the first time with "
                         "F <= 0 and V >= 0; NaN when the bodies do not separate",
                         IS_OUTPUT_REAL, NULL, IS_OUTPUT_MAY_BE_NAN, "$T_s$"},
    [COLLISION_X_MAX] = {"x_max", "1", "largest compression -X reached in the contact, in units "
                         "of X_c (>= 0, in every outcome)", IS_OUTPUT_REAL, NULL,
                         0, "$X_{\\max}$"},
    [COLLISION_X_SEP] = {"x_sep", "1", "compression -X where the contact ended, in units of X_c: "
                         "at separation the permanent indentation (0 for hooke, hertz, "
                         "hunt-crossley), else where the motion came to rest or at t_max",
                         IS_OUTPUT_REAL, NULL, 0, "$X_s$"},
    [COLLISION_F_MAX] = {"f_max", "1", "peak contact force F = V', in units of m X_c/T_c^2 "
                         "(>= 0; F > 0 pushes the bodies apart)", IS_OUTPUT_REAL, NULL,
                         0, "$F_{\\max}$"},
    [COLLISION_STEPS] = {"steps", "1", "steps", IS_OUTPUT_INT, NULL,
                         IS_OUTPUT_WORK, "steps"},
    [COLLISION_OUTCOME] = {"outcome", "1", "how the collision ended: separated; no_separation "
                           "(came to rest in contact), e = 0; solver_failure; horizon (still "
                           "in contact and moving at t_max), e = 0", IS_OUTPUT_CATEGORY,
                           outcome_names, 0, "outcome"},
    [COLLISION_SOLVER_FLAG] = {"solver_flag", "1", "why the integrator failed (outcome "
                               "solver_failure): 0 none; negative: SUNDIALS CVODE's return flag "
                               "(-1 CV_TOO_MUCH_WORK, -3 CV_ERR_FAILURE, -4 CV_CONV_FAILURE, "
                               "-8..-10 the right-hand side failed, ...); positive: 1 step size "
                               "underflow, 2 non-finite state or error, 3 step budget "
                               "(max_steps) used up, 4 event search stalled, 5 integrator "
                               "set-up failed", IS_OUTPUT_INT, NULL, 0, "solver flag"},
    [COLLISION_CHECK] = {"check", "1", "physical check of the result: passed, or the first that "
                         "failed (status failed_check): nonfinite (a state or output), cor "
                         "(e outside [0, 1], or not 1 for hooke and hertz), energy (the energy "
                         "rose above the impact energy, or hooke and hertz did not conserve "
                         "it), signs (x_max < 0, f_max < 0 or t_sep <= 0)",
                         IS_OUTPUT_CATEGORY, check_names, 0, "check"},
    [COLLISION_T_SEP_DIM] = {"t_sep_dim", "s", "separation time t_s = T_s T_c (form dimensional)",
                             IS_OUTPUT_REAL, NULL, IS_OUTPUT_MAY_BE_NAN, "$t_s$"},
    [COLLISION_X_MAX_DIM] = {"x_max_dim", "m", "largest compression x_max X_c (form dimensional)",
                             IS_OUTPUT_REAL, NULL,
                             IS_OUTPUT_MAY_BE_NAN, "$x_{\\max}$"},
    [COLLISION_X_SEP_DIM] = {"x_sep_dim", "m", "compression where the contact ended, x_sep X_c "
                             "(form dimensional)", IS_OUTPUT_REAL, NULL,
                             IS_OUTPUT_MAY_BE_NAN, "$x_s$"},
    [COLLISION_F_MAX_DIM] = {"f_max_dim", "N", "peak contact force f_max m X_c/T_c^2 (form "
                             "dimensional)", IS_OUTPUT_REAL, NULL,
                             IS_OUTPUT_MAY_BE_NAN, "$f_{\\max}$"},
    [COLLISION_INTEGRATOR_USED] = {"integrator_used", "1", "the integrator that computed the "
                                   "point: cvode_adams, cvode_bdf, dopri5 or dop853 (integrator auto "
                                   "chooses per point)", IS_OUTPUT_CATEGORY, used_names,
                                   IS_OUTPUT_WORK, "integrator"},
};

static int has_bouc_wen(collision_law law)
{
    return law == LAW_BWSHC || law == LAW_BWM;
}

static int maxwell_type(collision_law law)
{
    return law == LAW_BWM || law == LAW_MAXWELL;
}

static int reads(unsigned laws, collision_law law)
{
    return laws >> law & 1u;
}

/* Where the results are verified at large damping. Beyond these the force near
 * separation is below the error the state carries (for overdamped kelvin-voigt
 * F ~ pi1^-3 there, against an error of pi1 times that of V), so the root of F, and with
 * it t_sep and x_sep, drifts while e stays right. Measured at the default tolerances:
 * kelvin-voigt's t_sep against its closed form is within 7e-7 at pi1 = 300, 4e-5 at
 * 1000, 3e-2 at 1e4 (where dopri5 never separates and runs out of steps); bwshc's t_sep
 * from adams, bdf and dopri5 agrees within 5e-7 at 1e4, 1e-4 at 1e5, 1e-2 at 1e6.
 * hunt-crossley, whose separation is X = 0, is exact to 1e-10 up to pi1 = 1e6 (its
 * contact then outlasts the default t_max: outcome horizon); maxwell and bwm at large pi1
 * creep to rest without separating and are only stiff (adams and dopri5 run out of
 * steps: a failed status, and bdf works). */
#define KELVIN_VOIGT_PI1_MAX 300.0
#define BWSHC_PI1_MAX 1e4

/* Reads exactly the parameters that apply (collision_params' `when`): the others keep
 * neutral values (pi1 = pi2 = pi3 = 0, n = 1, p = 1, alpha = 1, A = 1) and can neither
 * refuse a point nor change a bit of its result. */
/* The exponents of the scales: pi2, pi3 ~ v0^(2n/(p+1)); pi1 ~ v0 (bwshc, hunt-crossley)
 * or v0^((p-1)/(p+1)) (bwm). */
static double bouc_wen_exponent(const collision_problem *pb)
{
    return 2.0 * pb->n / (pb->p + 1.0);
}

static double pi1_exponent(const collision_problem *pb)
{
    return maxwell_type(pb->law) ? (pb->p - 1.0) / (pb->p + 1.0) : 1.0;
}

/* Form velocity: the paper's map P. */
static is_code velocity_form(const double *point, collision_problem *pb, is_error *err)
{
    collision_law law = pb->law;
    int bouc_wen = has_bouc_wen(law), damped = reads(LAWS_DAMPED, law);
    const char *name = law_names[law];
    if (!reads(LAWS_VELOCITY, law))
        return is_error_set(err, IS_PARAM,
                            "law %s does not depend on the impact speed v0 (%s): form "
                            "velocity has nothing to map; use form = nondimensional",
                            name, damped ? "p = 1, so pi1 = c/sqrt(mk) or sqrt(mk)/c"
                                         : "it has no parameter");
    double v0 = point[COLLISION_V0];
    pb->pi1 = point[COLLISION_PI1B] * pow(v0, pi1_exponent(pb));
    if (bouc_wen) {
        pb->pi2 = point[COLLISION_PI2B] * pow(v0, bouc_wen_exponent(pb));
        pb->pi3 = point[COLLISION_PI3B] * pow(v0, bouc_wen_exponent(pb));
    }
    return IS_OK;
}

/* Form dimensional: the groups and the scales from m, k, c, beta, gamma and v0. */
static is_code dimensional_form(const double *point, collision_problem *pb, is_error *err)
{
    collision_law law = pb->law;
    int bouc_wen = has_bouc_wen(law), damped = reads(LAWS_DAMPED, law);
    double p = pb->p, n = pb->n;
    double m = point[COLLISION_MASS], k = point[COLLISION_STIFFNESS];
    double v0 = point[COLLISION_V0];
    double ratio = pow(m / k, 1.0 / (p + 1.0)); /* (m/k)^(1/(p+1)) */
    pb->t_scale = ratio * pow(v0, (1.0 - p) / (p + 1.0));
    pb->x_scale = ratio * pow(v0, 2.0 / (p + 1.0));
    pb->f_scale = m * pb->x_scale / (pb->t_scale * pb->t_scale);
    pb->dimensional = 1;
    /* the outputs are scaled back: scales that overflow or vanish would turn them into
     * inf or 0 (m/k or v0 near the ends of the doubles) */
    if (!(isnormal(pb->t_scale) && isnormal(pb->x_scale) && isnormal(pb->f_scale)))
        return is_error_set(err, IS_PARAM,
                            "form dimensional: the scales T_c = %g s, X_c = %g m, "
                            "m X_c/T_c^2 = %g N of m, k and v0 are not representable",
                            pb->t_scale, pb->x_scale, pb->f_scale);
    if (bouc_wen) {
        double bw_scale = pow(m / k, n / (p + 1.0)) * pow(v0, bouc_wen_exponent(pb)) / pb->A;
        pb->pi2 = point[COLLISION_BETA] * bw_scale;
        pb->pi3 = point[COLLISION_GAMMA] * bw_scale;
    }
    double c = point[COLLISION_DAMPING];
    if (law == LAW_KELVIN_VOIGT)
        pb->pi1 = c / sqrt(m * k);
    else if (law == LAW_MAXWELL)
        pb->pi1 = c > 0.0 ? sqrt(m * k) / c : INFINITY;
    else if (law == LAW_BWM)
        pb->pi1 = c > 0.0 ? pow(pow(m, p) * k, 1.0 / (p + 1.0)) * pow(v0, pi1_exponent(pb)) / c
                          : INFINITY;
    else if (damped)
        pb->pi1 = c * v0 / k; /* bwshc, hunt-crossley */
    return IS_OK;
}

/* The checks across parameters that the ranges cannot say. */
static is_code admissible(const collision_problem *pb, is_error *err)
{
    collision_law law = pb->law;
    int bouc_wen = has_bouc_wen(law);
    const char *name = law_names[law];
    if ((maxwell_type(law) || bouc_wen) && !(pb->pi1 > 0.0 && isfinite(pb->pi1)))
        return is_error_set(err, IS_PARAM, "law %s needs pi1 > 0 (a damper, c > 0), got pi1 = %g",
                            name, pb->pi1);
    double pi1_max = law == LAW_KELVIN_VOIGT ? KELVIN_VOIGT_PI1_MAX
                     : law == LAW_BWSHC       ? BWSHC_PI1_MAX
                                              : INFINITY;
    if (pb->pi1 > pi1_max)
        return is_error_set(err, IS_PARAM,
                            "law %s: pi1 = %g is above %g, where the separation time is not "
                            "verified (the force near separation falls below the integration "
                            "error)",
                            name, pb->pi1, pi1_max);
    if (bouc_wen && !(fabs(pb->pi3) < pb->pi2))
        return is_error_set(err, IS_PARAM,
                            "law %s needs |pi3| < pi2 (|gamma| < beta), got pi2 = %g, pi3 = %g",
                            name, pb->pi2, pb->pi3);
    if (pb->integrator == INTEGRATOR_DOPRI5 && maxwell_type(law) && pb->p > 1.0 && pb->p < 2.0)
        return is_error_set(err, IS_PARAM,
                            "law %s with 1 < p < 2 has a right-hand side that is not Lipschitz "
                            "(|Y|^(p-1)); integrators dopri5, dop853 are not verified there, use "
                            "integrator = cvode",
                            name);
    if (!isfinite(pb->pi1) || !isfinite(pb->pi2) || !isfinite(pb->pi3))
        return is_error_set(err, IS_PARAM, "law %s: the parameters overflow (pi1 = %g, pi2 = %g)",
                            name, pb->pi1, pb->pi2);
    return IS_OK;
}

is_code collision_problem_from_point(const double *point, collision_problem *pb, is_error *err)
{
    memset(pb, 0, sizeof *pb);
    collision_law law = (collision_law)point[COLLISION_LAW];
    collision_form form = (collision_form)point[COLLISION_FORM];
    int bouc_wen = has_bouc_wen(law), damped = reads(LAWS_DAMPED, law);
    pb->law = law;
    pb->integrator = (collision_integrator)point[COLLISION_INTEGRATOR];
    if (pb->integrator == INTEGRATOR_DOP853) { /* the lanes, with the other pair */
        pb->integrator = INTEGRATOR_DOPRI5;
        pb->dop853 = 1;
    }
    pb->bdf = pb->integrator == INTEGRATOR_CVODE && point[COLLISION_CVODE_METHOD] == 1.0;
    pb->dimension = maxwell_type(law) ? 4 : 3;
    pb->conservative = law == LAW_HOOKE || law == LAW_HERTZ;
    pb->n = bouc_wen ? point[COLLISION_N] : 1.0;
    pb->p = reads(LAWS_EXPONENT, law) ? point[COLLISION_P] : 1.0; /* the others are linear */
    if (pb->integrator == INTEGRATOR_AUTO) { /* the lanes wherever admissible() takes them */
        pb->automatic = 1;
        pb->integrator = maxwell_type(law) && pb->p > 1.0 && pb->p < 2.0 ? INTEGRATOR_CVODE
                                                                          : INTEGRATOR_DOPRI5;
        /* the pair with fewer evaluations at this tolerance (measured: README) */
        pb->dop853 = point[COLLISION_RTOL] >= COLLISION_DOP853_RTOL_MIN &&
                     point[COLLISION_RTOL] <= COLLISION_DOP853_RTOL_MAX;
    }
    pb->alpha = bouc_wen ? point[COLLISION_ALPHA] : 1.0;
    pb->alpha_c = 1.0 - pb->alpha;
    pb->A = bouc_wen ? point[COLLISION_A] : 1.0;
    pb->rtol = point[COLLISION_RTOL];
    pb->atol = point[COLLISION_ATOL];
    pb->max_steps = (int64_t)point[COLLISION_MAX_STEPS];
    pb->t_max = point[COLLISION_T_MAX];
    pb->rest_velocity = pb->conservative ? 0.0 : point[COLLISION_REST_VELOCITY];
    is_code rc = IS_OK;
    switch (form) {
    case FORM_NONDIMENSIONAL:
        if (damped)
            pb->pi1 = point[COLLISION_PI1];
        if (bouc_wen) {
            pb->pi2 = point[COLLISION_PI2];
            pb->pi3 = point[COLLISION_PI3];
        }
        break;
    case FORM_VELOCITY:
        rc = velocity_form(point, pb, err);
        break;
    case FORM_DIMENSIONAL:
        rc = dimensional_form(point, pb, err);
        break;
    }
    if (rc != IS_OK)
        return rc;
    collision_power_init(&pb->pow_p, pb->p);
    collision_power_init(&pb->pow_n, pb->n);
    return admissible(pb, err);
}

static is_code collision_validate(const double *point, is_error *err)
{
    collision_problem pb;
    return collision_problem_from_point(point, &pb, err);
}

/* --- evaluation ------------------------------------------------------------------ */

typedef struct collision_workspace {
    collision_cvode *cvode;
    const volatile sig_atomic_t *stop; /* the run's stop flag (workspace_watch), or NULL */
} collision_workspace;

is_code collision_workspace_create(void **workspace, is_error *err)
{
    collision_workspace *ws = calloc(1, sizeof *ws);
    if (!ws)
        return is_error_set(err, IS_NOMEM, "collision: cannot allocate the workspace");
    int rc = collision_cvode_create(&ws->cvode);
    if (rc != 0) {
        free(ws);
        return is_error_set(err, IS_MODEL, "collision: cannot create the CVODE integrator (%d)",
                            rc);
    }
    *workspace = ws;
    return IS_OK;
}

void collision_workspace_free(void *workspace)
{
    collision_workspace *ws = workspace;
    if (!ws)
        return;
    collision_cvode_free(&ws->cvode);
    free(ws);
}

/* A point may run for minutes (max_steps up to 1e9): the integrators poll this flag. */
void collision_workspace_watch(void *workspace, const volatile sig_atomic_t *stop)
{
    ((collision_workspace *)workspace)->stop = stop;
}

/* The outputs of a point the integrator is done with (`solved`: its status, not
 * pending), and the point's status: a failure as the integrator said, else the physical
 * checks decide. */
static void write_result(const collision_problem *pb, const collision_result *r, int solved,
                         collision_hook *hook, double *const *out, uint8_t *status)
{
    *out[COLLISION_STEPS] = (double)r->steps;
    *out[COLLISION_INTEGRATOR_USED] = pb->integrator != INTEGRATOR_DOPRI5 ? (pb->bdf ? USED_CVODE_BDF
                                                                                 : USED_CVODE_ADAMS)
                                      : pb->dop853 ? USED_DOP853
                                                   : USED_DOPRI5;
    *out[COLLISION_OUTCOME] = r->outcome;
    *out[COLLISION_SOLVER_FLAG] = r->solver_flag;
    if (solved != IS_POINT_DONE) {
        *status = (uint8_t)solved;
        if (hook)
            collision_hook_event(hook, COLLISION_EVENT_SOLVER_FAILURE);
        return;
    }
    *out[COLLISION_COR] = r->cor;
    *out[COLLISION_T_SEP] = r->t_sep;
    *out[COLLISION_X_MAX] = r->x_max;
    *out[COLLISION_X_SEP] = r->x_sep;
    *out[COLLISION_F_MAX] = r->f_max;
    if (pb->dimensional) {
        *out[COLLISION_T_SEP_DIM] = r->t_sep * pb->t_scale;
        *out[COLLISION_X_MAX_DIM] = r->x_max * pb->x_scale;
        *out[COLLISION_X_SEP_DIM] = r->x_sep * pb->x_scale;
        *out[COLLISION_F_MAX_DIM] = r->f_max * pb->f_scale;
    }
    /* every result is checked before it counts as done; one that fails keeps its
     * outputs (to be looked at) and says which check it failed */
    collision_check check = collision_check_result(pb, r);
    *out[COLLISION_CHECK] = check;
    *status = check == CHECK_PASSED ? IS_POINT_DONE : IS_POINT_FAILED_CHECK;
}

/* integrator = auto: a point the first integrator failed (out of steps, a solver failure,
 * a non-finite state: stiff points, where Adams and DOPRI5 crawl) is run again with CVODE
 * BDF; `steps` counts both runs. Returns the new status (pending: stopped). */
static uint8_t fall_back(collision_workspace *ws, collision_problem *pb, collision_result *r,
                         uint8_t solved)
{
    if (!pb->automatic || (solved != IS_POINT_FAILED_BUDGET && solved != IS_POINT_FAILED_SOLVER &&
                           solved != IS_POINT_FAILED_NONFINITE) ||
        (pb->integrator == INTEGRATOR_CVODE && pb->bdf))
        return solved;
    int64_t before = r->steps;
    pb->integrator = INTEGRATOR_CVODE;
    pb->bdf = 1;
    solved = (uint8_t)collision_solve_cvode(ws->cvode, pb, r);
    r->steps += before;
    return solved;
}

int collision_evaluate_point(void *workspace, const double *point, collision_hook *hook,
                             double *const *out, uint8_t *status)
{
    collision_workspace *ws = workspace;
    collision_problem pb;
    collision_result r;
    is_error ignored;
    if (collision_problem_from_point(point, &pb, &ignored) != IS_OK) {
        *status = IS_POINT_FAILED_INVALID;
        return 0;
    }
    pb.stop = ws->stop;
    if (hook) /* a trace: it watches the stop flag itself (collision_trace.c) */
        collision_hook_attach(hook, &pb, ws->stop);
    uint8_t solved;
    size_t order;
    /* dopri5: the lanes with this one point (no memory for them: pending) */
    if (pb.integrator == INTEGRATOR_CVODE)
        solved = (uint8_t)collision_solve_cvode(ws->cvode, &pb, &r);
    else if (collision_solve_dopri5(&pb, 1, &r, &solved, &order) != 0)
        return 1;
    if (solved != IS_POINT_PENDING)
        solved = fall_back(ws, &pb, &r, solved);
    if (solved == IS_POINT_PENDING)
        return 1; /* interrupted: no result, pending like the rest of the batch */
    write_result(&pb, &r, solved, hook, out, status);
    return 0;
}

/* A batch's scratch: the problems, results and statuses of its dopri5 points (run in
 * lanes, collision_lanes.c), their places in the batch, and the lanes' ordering. */
typedef struct batch_scratch {
    collision_problem *problems;
    collision_result *results;
    uint8_t *solved, *dopri5; /* dopri5[i]: batch point i runs in the lanes */
    size_t *index, *order;
} batch_scratch;

static int scratch_alloc(batch_scratch *s, size_t count)
{
    s->problems = malloc(count * sizeof *s->problems);
    s->results = malloc(count * sizeof *s->results);
    s->solved = malloc(count);
    s->dopri5 = calloc(count, 1);
    s->index = malloc(count * sizeof *s->index);
    s->order = malloc(count * sizeof *s->order);
    return s->problems && s->results && s->solved && s->dopri5 && s->index && s->order;
}

static void scratch_free(batch_scratch *s)
{
    free(s->problems);
    free(s->results);
    free(s->solved);
    free(s->dopri5);
    free(s->index);
    free(s->order);
}

static void output_slots(double *outputs, size_t count, size_t i, double **out)
{
    for (int o = 0; o < COLLISION_OUTPUT_COUNT; o++)
        out[o] = &outputs[(size_t)o * count + i];
}

/* The dopri5 points side by side in lanes, then the CVODE points one by one. */
is_code collision_eval_batch(void *workspace, const double *points, size_t count,
                             double *outputs, uint8_t *status, is_error *err)
{
    collision_workspace *ws = workspace;
    /* everything starts out not computed, so that a stop can leave the rest as it is */
    for (size_t i = 0; i < count; i++) {
        status[i] = IS_POINT_PENDING;
        for (int o = 0; o < COLLISION_OUTPUT_COUNT; o++)
            outputs[(size_t)o * count + i] = NAN;
    }
    if (count == 0 || (ws->stop && *ws->stop))
        return IS_OK;
    batch_scratch s;
    if (!scratch_alloc(&s, count)) {
        scratch_free(&s);
        return is_error_set(err, IS_NOMEM, "collision: cannot allocate a batch of %zu points",
                            count);
    }
    size_t lanes = 0;
    is_error ignored;
    for (size_t i = 0; i < count; i++) {
        collision_problem *pb = &s.problems[lanes];
        if (collision_problem_from_point(points + i * COLLISION_PARAM_COUNT, pb, &ignored) !=
            IS_OK) {
            status[i] = IS_POINT_FAILED_INVALID;
            continue;
        }
        pb->stop = ws->stop;
        if (pb->integrator == INTEGRATOR_DOPRI5) {
            s.dopri5[i] = 1;
            s.index[lanes++] = i;
        }
    }
    if (collision_solve_dopri5(s.problems, lanes, s.results, s.solved, s.order) != 0) {
        scratch_free(&s);
        return is_error_set(err, IS_NOMEM, "collision: no memory for the integrator's lanes");
    }
    double *out[COLLISION_OUTPUT_COUNT];
    for (size_t j = 0; j < lanes; j++) {
        if (s.solved[j] == IS_POINT_PENDING)
            continue;
        s.solved[j] = fall_back(ws, &s.problems[j], &s.results[j], s.solved[j]);
        if (s.solved[j] == IS_POINT_PENDING)
            continue; /* stopped in the second run */
        output_slots(outputs, count, s.index[j], out);
        write_result(&s.problems[j], &s.results[j], s.solved[j], NULL, out, &status[s.index[j]]);
    }
    for (size_t i = 0; i < count; i++) {
        if ((ws->stop && *ws->stop))
            break; /* this point and the rest stay pending */
        if (status[i] != IS_POINT_PENDING || s.dopri5[i])
            continue;
        output_slots(outputs, count, i, out);
        if (collision_evaluate_point(ws, points + i * COLLISION_PARAM_COUNT, NULL, out,
                                     &status[i]))
            break; /* interrupted: pending like the rest of the batch */
    }
    scratch_free(&s);
    return IS_OK;
}

const is_model is_model_collision = {
    IS_MODEL_HEADER,
    .name = "collision",
    .description = "binary collinear impact under Bouc-Wen and classical collision laws: "
                   "coefficient of restitution",
    .params = collision_params,
    .param_count = COLLISION_PARAM_COUNT,
    .outputs = collision_outputs,
    .output_count = COLLISION_OUTPUT_COUNT,
    .validate = collision_validate,
    .workspace_create = collision_workspace_create,
    .workspace_free = collision_workspace_free,
    .workspace_watch = collision_workspace_watch,
    .eval_batch = collision_eval_batch,
    .trace = &collision_trace,
    .references = "M. Milehins, D. B. Marghitu, The Bouc-Wen Model for Binary Direct Collinear "
                  "Collisions of Convex Viscoplastic Bodies, arXiv:2410.08147",
};
