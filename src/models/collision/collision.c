/* collision.c: the collision model's table (parameters, outputs), the three parameter
 * forms mapped to one nondimensional problem, and the batch evaluator. The laws are in
 * collision_law.c, the integrators in collision_cvode.c and collision_dopri5.c. */
#include "collision.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char *const law_names[] = {"bwshc", "bwm", "hooke", "hertz", "kelvin-voigt",
                                        "hunt-crossley", "maxwell", NULL};
static const char *const form_names[] = {"nondimensional", "velocity", "dimensional", NULL};
static const char *const integrator_names[] = {"cvode", "dopri5", NULL};
static const char *const cvode_method_names[] = {"adams", "bdf", NULL};
static const char *const outcome_names[] = {"separated", "no_separation", "solver_failure",
                                            NULL};

#define R IS_PARAM_REAL
#define I IS_PARAM_INT
#define C IS_PARAM_CHOICE
#define OPEN_MIN IS_PARAM_MIN_OPEN
#define OPEN_BOTH (IS_PARAM_MIN_OPEN | IS_PARAM_MAX_OPEN)
#define FIXED IS_PARAM_FIXED_ONLY

static const is_param collision_params[COLLISION_PARAM_COUNT] = {
    [COLLISION_LAW] = {"law", "collision law", "1", C, LAW_BWSHC, 0, LAW_COUNT - 1, FIXED,
                       law_names},
    [COLLISION_FORM] = {"form", "how the parameters are given", "1", C, FORM_NONDIMENSIONAL, 0,
                        2, FIXED, form_names},
    [COLLISION_INTEGRATOR] = {"integrator", "ODE integrator (both locate events exactly)", "1",
                              C, INTEGRATOR_CVODE, 0, 1, FIXED, integrator_names},
    [COLLISION_CVODE_METHOD] = {"cvode_method", "CVODE linear multistep family", "1", C, 0, 0, 1,
                                FIXED, cvode_method_names},
    [COLLISION_PI1] = {"pi1", "damping group (form nondimensional)", "1", R, 0.5, 0, INFINITY,
                       0, NULL},
    [COLLISION_PI2] = {"pi2", "Bouc-Wen beta group (form nondimensional)", "1", R, 1.0, 0,
                       INFINITY, OPEN_MIN, NULL},
    [COLLISION_PI3] = {"pi3", "Bouc-Wen gamma group, |pi3| < pi2 (form nondimensional)", "1", R,
                       0.5, -INFINITY, INFINITY, 0, NULL},
    [COLLISION_N] = {"n", "Bouc-Wen exponent", "1", R, 1.0, 1, INFINITY, 0, NULL},
    [COLLISION_P] = {"p", "force exponent (Hertz 1.5; 1 for hooke, kelvin-voigt, maxwell)", "1",
                     R, 1.5, 1, INFINITY, 0, NULL},
    [COLLISION_ALPHA] = {"alpha", "elastic share of the Bouc-Wen force", "1", R, 0.5, 0, 1,
                         OPEN_BOTH, NULL},
    [COLLISION_A] = {"A", "Bouc-Wen rate A", "1", R, 1.0, 0, INFINITY, OPEN_MIN, NULL},
    [COLLISION_PI1B] = {"pi1b", "base pi1 at v0 = 1 (form velocity)", "1", R, 0.5, 0, INFINITY, 0,
                        NULL},
    [COLLISION_PI2B] = {"pi2b", "base pi2 at v0 = 1 (form velocity)", "1", R, 1.0, 0, INFINITY,
                        OPEN_MIN, NULL},
    [COLLISION_PI3B] = {"pi3b", "base pi3 at v0 = 1 (form velocity)", "1", R, 0.5, -INFINITY,
                        INFINITY, 0, NULL},
    [COLLISION_V0] = {"v0", "impact speed (forms velocity, dimensional)", "length/time", R, 1.0,
                      0, INFINITY, OPEN_MIN, NULL},
    [COLLISION_MASS] = {"m", "reduced mass (form dimensional)", "mass", R, 1.0, 0, INFINITY,
                        OPEN_MIN, NULL},
    [COLLISION_STIFFNESS] = {"k", "stiffness (form dimensional)", "force/length^p", R, 1.0, 0,
                             INFINITY, OPEN_MIN, NULL},
    [COLLISION_DAMPING] = {"c", "damping coefficient (form dimensional)", "force time/length^(p+1)",
                           R, 0.5, 0, INFINITY, 0, NULL},
    [COLLISION_BETA] = {"beta", "Bouc-Wen beta (form dimensional)", "1/length^n", R, 1.0, 0,
                        INFINITY, OPEN_MIN, NULL},
    [COLLISION_GAMMA] = {"gamma", "Bouc-Wen gamma, |gamma| < beta (form dimensional)",
                         "1/length^n", R, 0.5, -INFINITY, INFINITY, 0, NULL},
    [COLLISION_RTOL] = {"rtol", "relative accuracy asked of the outputs (the integrators "
                        "tighten their own tolerances to deliver it)", "1", R, 1e-10, 1e-11,
                        1e-3, 0, NULL},
    [COLLISION_ATOL] = {"atol", "absolute accuracy asked of the state (units of X_c, V_c)", "1",
                        R, 1e-12, 1e-14, 1e-3, 0, NULL},
    [COLLISION_MAX_STEPS] = {"max_steps", "work budget: integrator steps per point", "1", I,
                             200000, 10, 1e9, 0, NULL},
    [COLLISION_T_MAX] = {"t_max", "horizon in units of T_c: no separation by then means e = 0",
                         "1", R, 1000, 0, 1e9, OPEN_MIN, NULL},
    [COLLISION_REST_VELOCITY] = {"rest_velocity",
                                 "a separation slower than this (in units of v0) is rest: e = 0",
                                 "1", R, 1e-9, 0, 1e-2, 0, NULL},
};

static const is_output collision_outputs[COLLISION_OUTPUT_COUNT] = {
    [COLLISION_COR] = {"cor", "1", "coefficient of restitution e = V(T_s)", IS_OUTPUT_REAL, NULL},
    [COLLISION_T_SEP] = {"t_sep", "T_c", "separation time T_s", IS_OUTPUT_REAL, NULL},
    [COLLISION_X_MAX] = {"x_max", "X_c", "largest compression", IS_OUTPUT_REAL, NULL},
    [COLLISION_X_SEP] = {"x_sep", "X_c", "indentation left at separation (plastic deformation)",
                         IS_OUTPUT_REAL, NULL},
    [COLLISION_F_MAX] = {"f_max", "m X_c / T_c^2", "peak contact force", IS_OUTPUT_REAL, NULL},
    [COLLISION_STEPS] = {"steps", "1", "integrator steps", IS_OUTPUT_INT, NULL},
    [COLLISION_OUTCOME] = {"outcome", "1", "how the collision ended", IS_OUTPUT_CATEGORY,
                           outcome_names},
    [COLLISION_SOLVER_FLAG] = {"solver_flag", "1", "integrator failure code (CVODE's), 0 if none",
                               IS_OUTPUT_INT, NULL},
    [COLLISION_T_SEP_DIM] = {"t_sep_dim", "time", "separation time (form dimensional)",
                             IS_OUTPUT_REAL, NULL},
    [COLLISION_X_MAX_DIM] = {"x_max_dim", "length", "largest compression (form dimensional)",
                             IS_OUTPUT_REAL, NULL},
    [COLLISION_X_SEP_DIM] = {"x_sep_dim", "length", "indentation at separation (form dimensional)",
                             IS_OUTPUT_REAL, NULL},
    [COLLISION_F_MAX_DIM] = {"f_max_dim", "force", "peak contact force (form dimensional)",
                             IS_OUTPUT_REAL, NULL},
};

static int has_bouc_wen(collision_law law)
{
    return law == LAW_BWSHC || law == LAW_BWM;
}

static int maxwell_type(collision_law law)
{
    return law == LAW_BWM || law == LAW_MAXWELL;
}

/* Laws whose force is linear in the displacement, whatever p says. */
static int linear_law(collision_law law)
{
    return law == LAW_HOOKE || law == LAW_KELVIN_VOIGT || law == LAW_MAXWELL;
}

is_code collision_problem_from_point(const double *point, collision_problem *pb, is_error *err)
{
    memset(pb, 0, sizeof *pb);
    collision_law law = (collision_law)point[COLLISION_LAW];
    collision_form form = (collision_form)point[COLLISION_FORM];
    pb->law = law;
    pb->integrator = (collision_integrator)point[COLLISION_INTEGRATOR];
    pb->bdf = point[COLLISION_CVODE_METHOD] == 1.0;
    pb->dimension = maxwell_type(law) ? 4 : 3;
    pb->n = point[COLLISION_N];
    pb->p = linear_law(law) ? 1.0 : point[COLLISION_P];
    pb->alpha = has_bouc_wen(law) ? point[COLLISION_ALPHA] : 1.0;
    pb->alpha_c = 1.0 - pb->alpha;
    pb->A = point[COLLISION_A];
    pb->rtol = point[COLLISION_RTOL];
    pb->atol = point[COLLISION_ATOL];
    pb->max_steps = (int64_t)point[COLLISION_MAX_STEPS];
    pb->t_max = point[COLLISION_T_MAX];
    pb->rest_velocity = point[COLLISION_REST_VELOCITY];
    double p = pb->p, n = pb->n, v0 = point[COLLISION_V0];
    /* exponents of the scales: pi2, pi3 ~ v0^(2n/(p+1)); pi1 ~ v0 (Kelvin-Voigt type,
     * p > 1 or hunt-crossley) or v0^((p-1)/(p+1)) (Maxwell type) */
    double bw_exponent = 2.0 * n / (p + 1.0);
    double pi1_exponent = maxwell_type(law) ? (p - 1.0) / (p + 1.0)
                          : linear_law(law) ? 0.0
                                            : 1.0;
    switch (form) {
    case FORM_NONDIMENSIONAL:
        pb->pi1 = point[COLLISION_PI1];
        pb->pi2 = point[COLLISION_PI2];
        pb->pi3 = point[COLLISION_PI3];
        break;
    case FORM_VELOCITY: /* the paper's map P */
        pb->pi1 = point[COLLISION_PI1B] * pow(v0, pi1_exponent);
        pb->pi2 = point[COLLISION_PI2B] * pow(v0, bw_exponent);
        pb->pi3 = point[COLLISION_PI3B] * pow(v0, bw_exponent);
        break;
    case FORM_DIMENSIONAL: {
        double m = point[COLLISION_MASS], k = point[COLLISION_STIFFNESS];
        double c = point[COLLISION_DAMPING];
        double ratio = pow(m / k, 1.0 / (p + 1.0)); /* (m/k)^(1/(p+1)) */
        pb->t_scale = ratio * pow(v0, (1.0 - p) / (p + 1.0));
        pb->x_scale = ratio * pow(v0, 2.0 / (p + 1.0));
        pb->f_scale = m * pb->x_scale / (pb->t_scale * pb->t_scale);
        pb->dimensional = 1;
        double bw_scale = pow(m / k, n / (p + 1.0)) * pow(v0, bw_exponent) / pb->A;
        pb->pi2 = point[COLLISION_BETA] * bw_scale;
        pb->pi3 = point[COLLISION_GAMMA] * bw_scale;
        if (law == LAW_KELVIN_VOIGT)
            pb->pi1 = c / sqrt(m * k);
        else if (law == LAW_MAXWELL)
            pb->pi1 = c > 0.0 ? sqrt(m * k) / c : INFINITY;
        else if (law == LAW_BWM)
            pb->pi1 = c > 0.0 ? pow(pow(m, p) * k, 1.0 / (p + 1.0)) * pow(v0, pi1_exponent) / c
                              : INFINITY;
        else
            pb->pi1 = c * v0 / k;
        break;
    }
    }
    collision_power_init(&pb->pow_p, pb->p);
    collision_power_init(&pb->pow_n, pb->n);

    const char *name = law_names[law];
    if ((maxwell_type(law) || has_bouc_wen(law)) && !(pb->pi1 > 0.0 && isfinite(pb->pi1)))
        return is_error_set(err, IS_PARAM, "law %s needs pi1 > 0 (a damper, c > 0), got pi1 = %g",
                            name, pb->pi1);
    if (has_bouc_wen(law) && !(fabs(pb->pi3) < pb->pi2))
        return is_error_set(err, IS_PARAM,
                            "law %s needs |pi3| < pi2 (|gamma| < beta), got pi2 = %g, pi3 = %g",
                            name, pb->pi2, pb->pi3);
    if (pb->integrator == INTEGRATOR_DOPRI5 && maxwell_type(law) && pb->p > 1.0 && pb->p < 2.0)
        return is_error_set(err, IS_PARAM,
                            "law %s with 1 < p < 2 has a right-hand side that is not Lipschitz "
                            "(|Y|^(p-1)); integrator dopri5 is not verified there, use "
                            "integrator = cvode",
                            name);
    if (!isfinite(pb->pi1) || !isfinite(pb->pi2) || !isfinite(pb->pi3))
        return is_error_set(err, IS_PARAM, "law %s: the parameters overflow (pi1 = %g, pi2 = %g)",
                            name, pb->pi1, pb->pi2);
    return IS_OK;
}

static is_code collision_validate(const double *point, is_error *err)
{
    collision_problem pb;
    return collision_problem_from_point(point, &pb, err);
}

/* --- evaluation ------------------------------------------------------------------ */

typedef struct collision_workspace {
    collision_cvode *cvode;
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

is_code collision_eval_batch(void *workspace, const double *points, size_t count,
                             double *outputs, uint8_t *status, is_error *err)
{
    collision_workspace *ws = workspace;
    (void)err;
    for (size_t i = 0; i < count; i++) {
        collision_problem pb;
        collision_result r;
        double *out[COLLISION_OUTPUT_COUNT];
        for (int o = 0; o < COLLISION_OUTPUT_COUNT; o++) {
            out[o] = &outputs[(size_t)o * count + i];
            *out[o] = NAN;
        }
        is_error ignored;
        if (collision_problem_from_point(points + i * COLLISION_PARAM_COUNT, &pb, &ignored) !=
            IS_OK) {
            status[i] = IS_POINT_FAILED_INVALID;
            continue;
        }
        int rc = pb.integrator == INTEGRATOR_CVODE ? collision_solve_cvode(ws->cvode, &pb, &r)
                                                   : collision_solve_dopri5(&pb, &r);
        *out[COLLISION_STEPS] = (double)r.steps;
        *out[COLLISION_OUTCOME] = r.outcome;
        *out[COLLISION_SOLVER_FLAG] = r.solver_flag;
        if (rc != 0) {
            status[i] = r.budget ? IS_POINT_FAILED_BUDGET : IS_POINT_FAILED_SOLVER;
            continue;
        }
        *out[COLLISION_COR] = r.cor;
        *out[COLLISION_T_SEP] = r.t_sep;
        *out[COLLISION_X_MAX] = r.x_max;
        *out[COLLISION_X_SEP] = r.x_sep;
        *out[COLLISION_F_MAX] = r.f_max;
        if (pb.dimensional) {
            *out[COLLISION_T_SEP_DIM] = r.t_sep * pb.t_scale;
            *out[COLLISION_X_MAX_DIM] = r.x_max * pb.x_scale;
            *out[COLLISION_X_SEP_DIM] = r.x_sep * pb.x_scale;
            *out[COLLISION_F_MAX_DIM] = r.f_max * pb.f_scale;
        }
        status[i] = isfinite(r.cor) ? IS_POINT_DONE : IS_POINT_FAILED_NONFINITE;
    }
    return IS_OK;
}

const is_model is_model_collision = {
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
    .eval_batch = collision_eval_batch,
};
