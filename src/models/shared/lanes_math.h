/* lanes_math.h: the models' elementary functions in lanes, written with lanes.h's
 * operations alone (additions, multiplications, bit moves; no libm, no fused
 * multiply-add), so that a lane gives the same bits on every CPU, in every build and in
 * every lane, which libm's and libmvec's ISA-dependent variants do not promise. The
 * scalar code that must agree with the lanes takes lane 0 of the same routines. Installed
 * as <impactsweep/lanes_math.h>.
 *
 *   lv_sincos_n(n, x, s, c)   sin and cos of n vectors, statement by statement across
 *                             them (their chains of dependent operations overlap);
 *                             lv_sincos(x, &s, &c) for one. fdlibm's kernels after a
 *                             reduction by the nearest multiple of pi/2: within 2 ulp of
 *                             libm for |x| < 2^20 pi/2, within a few ulp(x) up to 2^51.
 *   lv_log_dd(x, &hi, &lo)    log x = hi + lo for finite x > 0 (fdlibm's log, with the
 *                             last rounding kept in lo)
 *   lv_exp_dd(hi, lo)         exp(hi + lo) for |hi| < 800, |lo| <= ulp(hi)
 *   lv_pow(x, e)              x^e for x >= 0 and e > 0 (x = 0, inf, NaN as pow gives them),
 *                             exp(e log x) with the product in double-double: about
 *                             (1 + e/4) ulp; lv_log_for_pow and lv_pow_from_log share one
 *                             logarithm between two exponents, the same bits as two powers
 *   lv_two_sum, lv_two_product   error-free transformations (Knuth, Dekker-Veltkamp) */
#ifndef IMPACTSWEEP_LANES_MATH_H
#define IMPACTSWEEP_LANES_MATH_H

#include "lanes.h"

/* --- error-free transformations --------------------------------------------------------- */

/* a + b = hi + lo exactly (Knuth's two-sum). */
static inline void lv_two_sum(lv_double a, lv_double b, lv_double *hi, lv_double *lo)
{
    lv_double s = a + b, bb = s - a;
    *hi = s;
    *lo = (a - (s - bb)) + (b - bb);
}

/* a b = hi + lo exactly (Dekker's product, with Veltkamp's split: no FMA needed). */
static inline void lv_two_product(lv_double a, lv_double b, lv_double *hi, lv_double *lo)
{
    const double split = 134217729.0; /* 2^27 + 1 */
    lv_double ca = split * a, cb = split * b;
    lv_double ah = ca - (ca - a), al = a - ah, bh = cb - (cb - b), bl = b - bh;
    lv_double p = a * b;
    *hi = p;
    *lo = ((ah * bh - p) + ah * bl + al * bh) + al * bl;
}

/* --- log, exp and the power -------------------------------------------------------------- */

/* log x = hi + lo for finite x > 0: x = 2^k m, m in [sqrt(1/2), sqrt(2)), and
 * log m = f - f^2/2 + s (f^2/2 + R(s^2)), s = f/(2 + f), f = m - 1, with fdlibm's
 * minimax R (error below 2^-58 on that range); k log 2 is exact in its high part. */
static inline void lv_log_dd(lv_double x, lv_double *hi, lv_double *lo)
{
    const double ln2_hi = 6.93147180369123816490e-01, ln2_lo = 1.90821492927058770002e-10;
    const double lg1 = 6.666666666666735130e-01, lg2 = 3.999999999940941908e-01,
                 lg3 = 2.857142874366239149e-01, lg4 = 2.222219843214978396e-01,
                 lg5 = 1.818357216161805012e-01, lg6 = 1.531383769920937332e-01,
                 lg7 = 1.479819860511658591e-01;
    lv_mask tiny = lv_lt(x, lv_splat(0x1p-1022)); /* subnormal: scaled into the normal range */
    x = lv_sel(tiny, x * 0x1p54, x);
    lv_int bits = lv_as_int(x);
    lv_double m = lv_as_double((bits & 0x000fffffffffffff) | 0x3ff0000000000000);
    /* the biased exponent as a double, exactly: 2^52 + e - 2^52 (x > 0: the sign bit is
     * 0, and the shift brings in zeros) */
    lv_double k = (lv_as_double((bits >> 52) | 0x4330000000000000) - 0x1p52) - 1023.0;
    k = lv_sel(tiny, k - 54.0, k);
    lv_mask big = lv_gt(m, lv_splat(1.4142135623730951));
    m = lv_sel(big, m * 0.5, m);
    k = lv_sel(big, k + 1.0, k);
    lv_double f = m - 1.0, s = f / (2.0 + f), z = s * s, w = z * z;
    lv_double t1 = w * (lg2 + w * (lg4 + w * lg6));
    lv_double t2 = z * (lg1 + w * (lg3 + w * (lg5 + w * lg7)));
    lv_double r = t2 + t1, hfsq = 0.5 * f * f;
    lv_double rest = f - (hfsq - (s * (hfsq + r) + k * ln2_lo));
    lv_two_sum(k * ln2_hi, rest, hi, lo);
}

/* exp(hi + lo) for |hi| < 800 (hi, lo from a product: |lo| <= ulp(hi)): 2^n e^r,
 * |r| <= log(2)/2, e^r by its Taylor series to degree 13 (error below 1e-17). */
static inline lv_double lv_exp_dd(lv_double hi, lv_double lo)
{
    const double ln2_hi = 6.93147180369123816490e-01, ln2_lo = 1.90821492927058770002e-10;
    const double shifter = 0x1.8p52; /* adding it rounds to an integer, kept in the bits */
    lv_double t = hi * 1.4426950408889634 + shifter;
    lv_double n = t - shifter;
    lv_int ni = lv_as_int(t) - lv_as_int(lv_splat(shifter));
    lv_double r = (hi - n * ln2_hi) + (lo - n * ln2_lo);
    /* q = sum a_i r^i, a_i = 1/(i + 2)!, i < 12, by Estrin's scheme: pairs, then pairs
     * of pairs in r^2, r^4, r^8; 8 dependent operations deep where Horner's rule is 24
     * (the chain the power waited on). r^2 q <= 0.07, so q's few ulp are below half an
     * ulp of e. */
    lv_double r2 = r * r, r4 = r2 * r2, r8 = r4 * r4;
    lv_double p01 = (1.0 / 2.0) + r * (1.0 / 6.0), p23 = (1.0 / 24.0) + r * (1.0 / 120.0);
    lv_double p45 = (1.0 / 720.0) + r * (1.0 / 5040.0);
    lv_double p67 = (1.0 / 40320.0) + r * (1.0 / 362880.0);
    lv_double p89 = (1.0 / 3628800.0) + r * (1.0 / 39916800.0);
    lv_double p1011 = (1.0 / 479001600.0) + r * (1.0 / 6227020800.0);
    lv_double q0 = p01 + r2 * p23, q1 = p45 + r2 * p67, q2 = p89 + r2 * p1011;
    lv_double q = (q0 + r4 * q1) + r8 * q2;
    lv_double e = 1.0 + (r + r2 * q);
    /* 2^n in two factors, so that the results below 2^-1022 come out subnormal */
    lv_int n1 = ni >> 1, n2 = ni - n1;
    lv_double s1 = lv_as_double((n1 + 1023) << 52), s2 = lv_as_double((n2 + 1023) << 52);
    return e * s1 * s2;
}

/* log x = hi + lo for the power: x > 0 finite, anything else (0, inf, NaN: the power sets
 * those apart) as if 1. */
static inline void lv_log_for_pow(lv_double x, lv_double *hi, lv_double *lo)
{
    lv_mask ordinary = lv_gt(x, lv_zero()) & lv_lt(x, lv_splat(__builtin_inf()));
    lv_log_dd(lv_sel(ordinary, x, lv_splat(1.0)), hi, lo);
}

/* x^e for x >= 0, e > 0, from (lhi, llo) = lv_log_for_pow(x): exp(e log x), the product
 * in double-double, so that the error is about (1 + e/4) ulp rather than growing with
 * |e log x|. */
static inline lv_double lv_pow_from_log(lv_double x, lv_double lhi, lv_double llo, lv_double e)
{
    lv_double yhi, ylo;
    lv_two_product(e, lhi, &yhi, &ylo);
    ylo = ylo + e * llo;
    lv_mask huge = lv_gt(yhi, lv_splat(710.0)), small = lv_lt(yhi, lv_splat(-746.0));
    lv_double clipped = lv_sel(huge | small, lv_zero(), yhi);
    lv_double result = lv_exp_dd(clipped, lv_sel(huge | small, lv_zero(), ylo));
    result = lv_sel(huge, lv_splat(__builtin_inf()), lv_sel(small, lv_zero(), result));
    result = lv_sel(lv_eq(x, lv_zero()), lv_zero(), result);
    result = lv_sel(lv_eq(x, lv_splat(__builtin_inf())), x, result);
    return lv_sel(lv_eq(x, x), result, x); /* NaN stays NaN */
}

static inline lv_double lv_pow(lv_double x, lv_double e)
{
    lv_double lhi, llo;
    lv_log_for_pow(x, &lhi, &llo);
    return lv_pow_from_log(x, lhi, llo, e);
}

/* --- sin and cos ----------------------------------------------------------------------- */

/* pi/2 in two parts (fdlibm's pio2_1, the first 33 bits, and pio2_1t, the rest): n pio2_1
 * is exact for |n| < 2^20, and x - n pio2_1 is exact (Sterbenz), so that the reduced
 * argument carries the rounding of n pio2_1t alone (|n| 1e-27 absolute). Negated, so that
 * the reduction is written with additions only (see lanes.h on vfmaddsub). */
#define LV_NPIO2_1 -1.57079632673412561417e+00
#define LV_NPIO2_1T -6.07710050650619224932e-11
#define LV_2_OVER_PI 6.36619772367581382433e-01
#define LV_ROUND_MAGIC 0x1.8p52 /* (y + 0x1.8p52) - 0x1.8p52: y to the nearest integer */

/* sin and cos of the n vectors x[0..n): the argument reduced to [-pi/4, pi/4] by the
 * nearest multiple m of pi/2, fdlibm's kernels there (as musl writes them, without the
 * tail of a double-double argument), and the quadrant m mod 4 picking the signs: the low
 * bits of m + 1.5 2^52, whose last bit is 1 (the unit of 2^52 .. 2^53), are m's own (2^51
 * is 0 mod 4), read as an integer and turned into sign bits. Each statement runs across
 * the n vectors (n <= 8), so that their independent chains overlap. */
#define LV_EACH(statement)                                                                  \
    for (int k = 0; k < n; k++) {                                                           \
        statement;                                                                          \
    }
static inline __attribute__((always_inline)) void lv_sincos_n(int n, const lv_double *x,
                                                              lv_double *sn, lv_double *cs)
{
    const lv_double magic = lv_splat(LV_ROUND_MAGIC), nmagic = lv_splat(-LV_ROUND_MAGIC);
    lv_double big[8], m[8], r[8], z[8], ps[8], s[8], pc[8], nhz[8], w[8], c[8], s1[8], c1[8];
    lv_int q[8];
    lv_mask swap[8];
    LV_EACH(big[k] = x[k] * LV_2_OVER_PI + magic);
    LV_EACH(m[k] = big[k] + nmagic);
    LV_EACH(r[k] = (x[k] + m[k] * LV_NPIO2_1) + m[k] * LV_NPIO2_1T);
    LV_EACH(z[k] = r[k] * r[k]);
    LV_EACH(ps[k] = 8.33333333332248946124e-03 + z[k] * (-1.98412698298579493134e-04 +
                    z[k] * (2.75573137070700676789e-06 + z[k] * (-2.50507602534068634195e-08 +
                    z[k] * 1.58969099521155010221e-10))));
    LV_EACH(s[k] = r[k] + (r[k] * z[k]) * (-1.66666666666666324348e-01 + z[k] * ps[k]));
    LV_EACH(pc[k] = z[k] * (4.16666666666666019037e-02 + z[k] * (-1.38888888888741095749e-03 +
                    z[k] * (2.48015872894767294178e-05 + z[k] * (-2.75573143513906633035e-07 +
                    z[k] * (2.08757232129817482790e-09 + z[k] * -1.13596475577881948265e-11))))));
    LV_EACH(nhz[k] = -0.5 * z[k]);
    LV_EACH(w[k] = 1.0 + nhz[k]);
    LV_EACH(c[k] = w[k] + (((1.0 + -w[k]) + nhz[k]) + z[k] * pc[k]));
    LV_EACH(q[k] = lv_as_int(big[k]));
    LV_EACH(swap[k] = lv_mask_from_int((lv_int)((q[k] & 1) == 1))); /* quadrants 1 and 3 */
    LV_EACH(s1[k] = lv_sel(swap[k], c[k], s[k]));
    LV_EACH(c1[k] = lv_sel(swap[k], s[k], c[k]));
    LV_EACH(sn[k] = lv_as_double(lv_as_int(s1[k]) ^ ((q[k] & 2) << 62)));
    LV_EACH(cs[k] = lv_as_double(lv_as_int(c1[k]) ^ (((q[k] + 1) & 2) << 62)));
}
#undef LV_EACH

static inline void lv_sincos(lv_double x, lv_double *sn, lv_double *cs)
{
    lv_sincos_n(1, &x, sn, cs);
}

#endif
