/* chatter_check.c: what a chatter point's result must satisfy before it is marked done,
 * and the Wilson score intervals that give its fractions their uncertainty. */
#include "chatter.h"

#include <float.h>
#include <math.h>

void chatter_wilson(int64_t k, int64_t n, double *lo, double *hi)
{
    /* The bounds are the roots of (k - n p)^2 = z^2 n p (1 - p):
     *   (k + z^2/2 -+ z S) / (n + z^2),  S = sqrt(k (n - k) / n + z^2/4);
     * their product is k^2 / (n (n + z^2)), which gives lo without the cancellation of
     * (k + z^2/2) - z S when k is small against n. */
    const double z = CHATTER_WILSON_Z, z2 = z * z;
    double kd = (double)k, nd = (double)n;
    double s = sqrt(kd * (double)(n - k) / nd + 0.25 * z2);
    double upper = kd + 0.5 * z2 + z * s;
    *lo = kd * kd / (nd * upper);
    *hi = k == n ? 1.0 : fmin(1.0, upper / (nd + z2));
}

/* Is v an integer in [min, max]? */
static int integral_in(double v, double min, double max)
{
    return v >= min && v <= max && v == floor(v);
}

const int chatter_fraction_outputs[CHATTER_OUTCOMES][3] = {
    [CHATTER_ICC] = {CHATTER_P_ICC, CHATTER_P_ICC_LO, CHATTER_P_ICC_HI},
    [CHATTER_CC] = {CHATTER_P_CC, CHATTER_P_CC_LO, CHATTER_P_CC_HI},
    [CHATTER_PCC] = {CHATTER_P_PCC, CHATTER_P_PCC_LO, CHATTER_P_PCC_HI},
    [CHATTER_FLAT] = {CHATTER_P_FLAT, CHATTER_P_FLAT_LO, CHATTER_P_FLAT_HI},
};

const char *chatter_check_result(const double *point, const double *outputs, size_t stride,
                                 int energy_ok)
{
#define OUT(o) outputs[(size_t)(o) * stride]
    const int(*fractions)[3] = chatter_fraction_outputs;
    double max_impacts = point[CHATTER_MAX_IMPACTS];
    if (!energy_ok)
        return "a drop ended with more kinetic energy than it started with";
    for (int o = 0; o < CHATTER_OUTPUT_COUNT; o++)
        if (o != CHATTER_CONE && o != CHATTER_CONE_ROUNDS_USED && !isfinite(OUT(o)))
            return "an output is not finite";
    double sum = 0.0;
    for (int k = 0; k < CHATTER_OUTCOMES; k++) {
        double p = OUT(fractions[k][0]), lo = OUT(fractions[k][1]), hi = OUT(fractions[k][2]);
        if (!(p >= 0.0 && p <= 1.0))
            return "a fraction is outside [0, 1]";
        if (!(0.0 <= lo && lo <= p && p <= hi && hi <= 1.0))
            return "a Wilson interval does not hold its fraction inside [0, 1]";
        sum += p;
    }
    /* four correctly rounded quotients of counts that add up to samples */
    if (!(fabs(sum - 1.0) <= 4.0 * DBL_EPSILON))
        return "p_icc + p_cc + p_pcc + p_flat is not 1";
    if (point[CHATTER_N] == 2.0 && OUT(CHATTER_P_PCC_HI) != 0.0)
        return "the rod is PCC";
    /* p_cc split into proven and capped: two correctly rounded quotients of counts that
     * add up to p_cc's count; drops are proven only where the search did not rule a cone out */
    double certified = OUT(CHATTER_P_CERTIFIED), undecided = OUT(CHATTER_P_UNDECIDED);
    if (!(certified >= 0.0 && undecided >= 0.0 &&
          fabs(certified + undecided - OUT(CHATTER_P_CC)) <= 2.0 * DBL_EPSILON))
        return "p_certified + p_undecided is not p_cc";
    if (certified > 0.0 && (OUT(CHATTER_CONE) == CHATTER_CONE_NONE ||
                            point[CHATTER_EARLY_STOP] == 0.0))
        return "drops certified without a certificate or with early_stop = 0";
    /* Every drop impacts at least once: it starts with p_3 = -1, so the mean of the f_i.p
     * is -1 and some vertex approaches, from a height f_i.q >= 1 - |R| sqrt(2) > 0. */
    double mean = OUT(CHATTER_IMPACTS_MEAN), most = OUT(CHATTER_IMPACTS_MAX);
    if (!(1.0 <= mean && mean <= most && integral_in(most, 1.0, max_impacts)))
        return "not 1 <= impacts_mean <= impacts_max <= max_impacts";
    if (!(OUT(CHATTER_TIME_MEAN) >= 0.0))
        return "time_mean is negative";
    double regime = OUT(CHATTER_REGIME);
    if (!integral_in(regime, 0.0, CHATTER_OUTCOMES - 1))
        return "regime is not a category";
    for (int k = 0; k < CHATTER_OUTCOMES; k++)
        if (OUT(fractions[k][0]) > OUT(fractions[(int)regime][0]))
            return "regime is not the most frequent outcome";
    /* the certificate: NaN only where it was not asked for (cone_rounds = 0, n >= 3) */
    double cone = OUT(CHATTER_CONE), used = OUT(CHATTER_CONE_ROUNDS_USED);
    int asked = point[CHATTER_N] == 2.0 || point[CHATTER_CONE_ROUNDS] > 0.0;
    if (asked ? !(integral_in(cone, 0.0, 2.0) &&
                  integral_in(used, 0.0, point[CHATTER_CONE_ROUNDS]))
              : !(isnan(cone) && isnan(used)))
        return "the cone certificate is not an answer within cone_rounds";
    return NULL;
#undef OUT
}
