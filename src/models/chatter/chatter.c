/* chatter.c: the chatter model's table: parameters, outputs and the point check.
 * The physics is in chatter_geometry.c, the batch simulator in chatter_batch.c, the
 * checks of its results and their uncertainty in chatter_check.c. */
#include "chatter.h"

#include <math.h>

static const is_param chatter_params[CHATTER_PARAM_COUNT] = {
    [CHATTER_N] = {"n", "number of contact points (vertices of the regular n-gon)", "1",
                   IS_PARAM_INT, 4, 2, CHATTER_MAX_VERTICES, 0, NULL, NULL, "$n$"},
    [CHATTER_RHO] = {"rho", "radius of gyration over circumradius", "1", IS_PARAM_REAL, NAN, 0,
                     INFINITY, IS_PARAM_MIN_OPEN, NULL, NULL, "$\\rho$"},
    [CHATTER_GAMMA] = {"gamma", "Newton coefficient of restitution of each contact", "1",
                       IS_PARAM_REAL, NAN, 0, 1, IS_PARAM_MIN_OPEN | IS_PARAM_MAX_OPEN, NULL,
                       NULL, "$\\gamma$"},
    [CHATTER_SAMPLES] = {"samples", "random drops per parameter point", "1", IS_PARAM_INT, 100,
                         1, 2147483647.0, 0, NULL, NULL, NULL},
    [CHATTER_MAX_IMPACTS] = {"max_impacts", "impact budget of a drop (survivors are CC or PCC)",
                             "1", IS_PARAM_INT, 200, 1, 2147483647.0, 0, NULL, NULL, NULL},
    [CHATTER_PERTURBATION] = {"perturbation",
                              "range of the uniform perturbations R_k of the initial state",
                              "1", IS_PARAM_REAL, 0.1, 0, 0.5, IS_PARAM_MIN_OPEN, NULL, NULL, NULL},
    [CHATTER_SEED] = {"seed", "seed of the counter-based random generator", "1", IS_PARAM_INT,
                      1, 0, 9007199254740992.0, IS_PARAM_SEED, NULL, NULL, NULL},
    [CHATTER_CONE_ROUNDS] = {"cone_rounds",
                             "round limit of the invariant-cone search for n >= 3 (0: no "
                             "search; the rod, n = 2, has an exact condition)", "1",
                             IS_PARAM_INT, 100, 0, 100000, 0, NULL, NULL, NULL},
    [CHATTER_EARLY_STOP] = {"early_stop",
                            "1: a drop stops, proven CC, once its velocity is in the region "
                            "of the point's certificate (p_certified; never for n = 3, where "
                            "no region can exist); 0: every drop runs to lift-off, PCC, a flat "
                            "landing or max_impacts, as in the paper", "1", IS_PARAM_INT, 1, 0,
                            1, 0, NULL, NULL, NULL},
};

static const char *const chatter_regimes[] = {"icc", "cc", "pcc", "flat", NULL};
static const char *const chatter_cones[] = {"found", "none", "inconclusive", NULL};

static const is_output chatter_outputs[CHATTER_OUTPUT_COUNT] = {
    [CHATTER_P_ICC] = {"p_icc", "1", "fraction of drops ending in incomplete chatter (lift-off)",
                       IS_OUTPUT_REAL, NULL, 0, "$p_{\\mathrm{ICC}}$"},
    [CHATTER_P_CC] = {"p_cc", "1",
                      "fraction of drops in complete chatter (p_certified proven, p_undecided "
                      "at max_impacts)", IS_OUTPUT_REAL, NULL, 0, "$p_{\\mathrm{CC}}$"},
    [CHATTER_P_PCC] = {"p_pcc", "1",
                       "fraction of drops in partial complete chatter, proven: two adjacent "
                       "vertices chatter to rest before anything else touches (the drop ends "
                       "there; the flat landing that follows is undecidable)",
                       IS_OUTPUT_REAL, NULL, 0, "$p_{\\mathrm{PCC}}$"},
    [CHATTER_IMPACTS_MEAN] = {"impacts_mean", "1", "mean number of impacts per drop",
                              IS_OUTPUT_REAL, NULL, 0, "impacts per drop"},
    [CHATTER_IMPACTS_MAX] = {"impacts_max", "1", "largest number of impacts of a drop",
                             IS_OUTPUT_INT, NULL, 0, "max. impacts"},
    [CHATTER_TIME_MEAN] = {"time_mean", "1",
                           "mean accumulated time of the impacts simulated (to lift-off, "
                           "PCC, a flat landing, the early stop or max_impacts), in units of "
                           "circumradius / initial sink speed of the centre of mass",
                           IS_OUTPUT_REAL, NULL, 0, "mean time $\\bar{t}$"},
    [CHATTER_REGIME] = {"regime", "1",
                        "most frequent outcome of the drops: icc (lift-off), cc (complete "
                        "chatter: certified or at max_impacts), pcc (proven), flat (a flat "
                        "landing, all vertices at once: undecidable)",
                        IS_OUTPUT_CATEGORY, chatter_regimes, 0, "regime"},
    [CHATTER_CONE] = {"cone", "1",
                      "complete-chatter certificate: effectively invariant cone (n >= 3) or "
                      "the rod's exact condition (n = 2)",
                      IS_OUTPUT_CATEGORY, chatter_cones, IS_OUTPUT_MAY_BE_NAN, "cone certificate"},
    [CHATTER_CONE_ROUNDS_USED] = {"cone_rounds_used", "1", "rounds of the cone search",
                                  IS_OUTPUT_INT, NULL, IS_OUTPUT_MAY_BE_NAN, "cone rounds"},
    /* the binomial uncertainty of the three fractions (chatter_wilson) */
    [CHATTER_P_ICC_LO] = {"p_icc_lo", "1", "lower bound of the 95% Wilson score interval of p_icc",
                          IS_OUTPUT_REAL, NULL, 0, "lower $p_{\\mathrm{ICC}}$"},
    [CHATTER_P_ICC_HI] = {"p_icc_hi", "1", "upper bound of the 95% Wilson score interval of p_icc",
                          IS_OUTPUT_REAL, NULL, 0, "upper $p_{\\mathrm{ICC}}$"},
    [CHATTER_P_CC_LO] = {"p_cc_lo", "1", "lower bound of the 95% Wilson score interval of p_cc",
                         IS_OUTPUT_REAL, NULL, 0, "lower $p_{\\mathrm{CC}}$"},
    [CHATTER_P_CC_HI] = {"p_cc_hi", "1", "upper bound of the 95% Wilson score interval of p_cc",
                         IS_OUTPUT_REAL, NULL, 0, "upper $p_{\\mathrm{CC}}$"},
    [CHATTER_P_PCC_LO] = {"p_pcc_lo", "1",
                          "lower bound of the 95% Wilson score interval of p_pcc (0 for n = 2)",
                          IS_OUTPUT_REAL, NULL, 0, "lower $p_{\\mathrm{PCC}}$"},
    [CHATTER_P_PCC_HI] = {"p_pcc_hi", "1",
                          "upper bound of the 95% Wilson score interval of p_pcc (0 for n = 2)",
                          IS_OUTPUT_REAL, NULL, 0, "upper $p_{\\mathrm{PCC}}$"},
    /* how much of p_cc is proven (chatter_region) and how much rests on the cap */
    [CHATTER_P_CERTIFIED] = {"p_certified", "1",
                             "fraction of drops proven to chatter to rest: stopped once their "
                             "velocity entered the invariant region of the certificate (part "
                             "of p_cc)", IS_OUTPUT_REAL, NULL, 0, "$p_{\\mathrm{certified}}$"},
    [CHATTER_P_UNDECIDED] = {"p_undecided", "1",
                             "fraction of drops counted CC only because they reached "
                             "max_impacts uncertified (p_cc = p_certified + p_undecided)",
                             IS_OUTPUT_REAL, NULL, 0, "$p_{\\mathrm{undecided}}$"},
    /* drops that landed flat (CHATTER_FLAT_RATIO): where the paper's classification is
     * undefined */
    [CHATTER_P_FLAT] = {"p_flat", "1",
                        "fraction of drops that landed flat: every vertex at the plane at once "
                        "(within 2^-32 of the centroid's height), a simultaneous impact the "
                        "paper leaves undecidable; the drop ends there",
                        IS_OUTPUT_REAL, NULL, 0, "$p_{\\mathrm{flat}}$"},
    [CHATTER_P_FLAT_LO] = {"p_flat_lo", "1",
                           "lower bound of the 95% Wilson score interval of p_flat",
                           IS_OUTPUT_REAL, NULL, 0, "lower $p_{\\mathrm{flat}}$"},
    [CHATTER_P_FLAT_HI] = {"p_flat_hi", "1",
                           "upper bound of the 95% Wilson score interval of p_flat",
                           IS_OUTPUT_REAL, NULL, 0, "upper $p_{\\mathrm{flat}}$"},
};

/* The one cross-parameter limit: what a point may cost (CHATTER_MAX_POINT_IMPACTS). */
static is_code chatter_validate(const double *point, is_error *err)
{
    double samples = point[CHATTER_SAMPLES], max_impacts = point[CHATTER_MAX_IMPACTS];
    if (samples * max_impacts > CHATTER_MAX_POINT_IMPACTS)
        return is_error_set(err, IS_PARAM,
                            "samples * max_impacts = %.17g * %.17g = %g impacts is more than "
                            "a point may cost (%g, about 45 minutes of a core at n = 4): lower "
                            "samples or max_impacts",
                            samples, max_impacts, samples * max_impacts,
                            CHATTER_MAX_POINT_IMPACTS);
    return IS_OK;
}

const is_model is_model_chatter = {
    IS_MODEL_HEADER,
    .name = "chatter",
    .description = "rigid regular n-gon chattering on a plane: ICC / CC / PCC fractions",
    .params = chatter_params,
    .param_count = CHATTER_PARAM_COUNT,
    .outputs = chatter_outputs,
    .output_count = CHATTER_OUTPUT_COUNT,
    .validate = chatter_validate,
    .workspace_create = chatter_workspace_create,
    .workspace_free = chatter_workspace_free,
    .workspace_watch = chatter_workspace_watch,
    .eval_batch = chatter_eval_batch,
    .trace = &chatter_trace,
    .references = "T. Baranyai, P. L. Varkonyi, Zeno chattering of rigid bodies with multiple "
                  "point contacts, arXiv:1704.03044",
};
