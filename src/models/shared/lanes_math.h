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
 *   lv_log_dd(x, &hi, &lo)    log x = hi + lo for finite x > 0 (subnormals too): a
 *                             128-entry table and Taylor's series to r^9 around its
 *                             point; hi within 0.5 ulp + 2^-13 (0.5000 measured), hi + lo
 *                             within 2^-66 relative
 *   lv_exp_dd(hi, lo)         exp(hi + lo) for |hi| < 800, |lo| < 2^-15: a 128-entry
 *                             table of 2^(j/128) and Taylor's series to r^5; within 0.52
 *                             ulp (0.509 measured over 2e6 arguments), subnormal results
 *                             within 1 ulp, overflow infinite
 *   lv_pow(x, e)              x^e for x >= 0 and e > 0 (x = 0, inf, NaN as pow gives them),
 *                             exp(e log x) with e log x carried in double-double: within
 *                             0.52 ulp of powl (0.509 measured over 2e6 arguments, x in
 *                             (0, 1e6] and e in [1, 4], and over every binade);
 *                             lv_log_for_pow and lv_pow_from_log share one logarithm
 *                             between two exponents, the same bits as two powers;
 *                             lv_log_for_pow_n and lv_pow_from_log_n: the same for up to
 *                             4 vectors side by side (their chains overlap), the same bits
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

/* The tables (lanes_tables.h, from scripts/lanes_tables.py) are read a lane at a time
 * (lv_gather): exact constants, so a lane's result does not depend on the width. The
 * design is that of ARM's optimized-routines pow (also glibc's), without fused
 * multiply-adds: where a product must be exact it is split into halves that are. */
#include "lanes_tables.h"

/* k 2^52 for signed k, shifted as unsigned (a negative k shifted left would be undefined) */
typedef uint64_t lv_uint_bits_ __attribute__((vector_size(sizeof(lv_int))));
static inline lv_int lv_shift_52(lv_int k)
{
    return (lv_int)((lv_uint_bits_)k << 52);
}

/* log x = hi + lo, |lo| <= ulp(hi)/2, for finite x > 0 (subnormals too; lv_log_bits takes
 * the bits of a normal x, or of a subnormal's x 2^52 less 52 in the exponent): x = 2^k z with z
 * in [OFF, 2 OFF), OFF ~ 0.708, z in piece i of 128 with 1/c_i of 8 bits, so that
 * r = z/c_i - 1 (|r| < 0.0058) comes exactly from z split in halves, as rhi + rlo;
 * log x = k ln2 + log c_i + log1p(r), log1p(r) = r - r^2/2 + r^3 P(r) by Taylor's series
 * to r^9 (truncation below 2^-70); k ln2_hi + log c_i is exact (the table rounds log c_i
 * so), -r^2/2 is carried as rhi^2/2 exactly plus a correction, the rest summed small to
 * large: error below 2^-66 relative to log x, so hi is the correctly rounded log but for
 * ties within about 2^-13 ulp. */
static inline void lv_log_bits(lv_int ix, lv_double *hi, lv_double *lo)
{
    const double ln2_hi = 0x1.62e42fefa3800p-1, ln2_lo = 0x1.ef35793c76730p-45;
    const int64_t off = 0x3fe6955500000000;
    lv_int tmp = ix - off;
    lv_int i = (tmp >> (52 - LV_TABLE_BITS)) & ((1 << LV_TABLE_BITS) - 1);
    lv_int k = tmp >> 52; /* arithmetic: the exponent of x relative to the interval's */
    lv_double z = lv_as_double(ix - (tmp & (int64_t)0xfff0000000000000));
    /* |k| < 2^51: k + 1.5 2^52 is a double with k in its low bits */
    lv_double kd = lv_as_double(k + lv_as_int(lv_splat(0x1.8p52))) - 0x1.8p52;
    lv_double invc = lv_gather(lv_log_invc, i), logc = lv_gather(lv_log_logc, i);
    lv_double logctail = lv_gather(lv_log_logctail, i);
    /* z = zhi + zlo, zhi of 21 bits: zhi invc (8 bits) and zlo invc are exact, and so is
     * zhi invc - 1 (Sterbenz) */
    lv_double zhi = lv_as_double((lv_as_int(z) + ((int64_t)1 << 31)) & (int64_t)-((int64_t)1 << 32));
    lv_double zlo = z - zhi;
    lv_double rhi = zhi * invc - 1.0, rlo = zlo * invc, r = rhi + rlo;
    lv_double t1 = kd * ln2_hi + logc; /* exact */
    lv_double t2 = t1 + r;
    lv_double lo1 = kd * ln2_lo + logctail, lo2 = (t1 - t2) + r; /* |t1| = 0 or > |r| */
    lv_double ar = -0.5 * r, arhi = -0.5 * rhi, arhi2 = rhi * arhi; /* rhi^2 exact */
    lv_double h = t2 + arhi2;
    lv_double lo3 = rlo * (ar + arhi), lo4 = (t2 - h) + arhi2;
    lv_double r2 = r * r, r3 = r2 * r, r4 = r2 * r2;
    lv_double p = r3 * (((1.0 / 3.0) + r * -0.25) + r2 * (0.2 + r * (-1.0 / 6.0)) +
                        r4 * (((1.0 / 7.0) + r * -0.125) + r2 * (1.0 / 9.0)));
    lv_double l = (((lo1 + lo2) + lo3) + lo4) + p;
    lv_double y = h + l;
    *hi = y;
    *lo = (h - y) + l;
}

static inline void lv_log_dd(lv_double x, lv_double *hi, lv_double *lo)
{
    lv_mask tiny = lv_lt(x, lv_splat(0x1p-1022));
    lv_int ix = lv_as_int(x);
    if (lv_any(tiny)) /* subnormal: scaled into the normal range (the others' bits as they are) */
        ix = lv_isel(tiny, lv_as_int(x * 0x1p52) - ((int64_t)52 << 52), ix);
    lv_log_bits(ix, hi, lo);
}

/* exp(hi + lo) for |hi| < 800 and |lo| < 2^-15: hi = (k N + j) ln2/N + r, N = 128,
 * |r| <= ln2/256 (+ lo), exp = 2^k 2^(j/N) e^r with 2^(j/N) = s_j (1 + t_j) from the table
 * and e^r - 1 by Taylor's series to r^5 (truncation below 2^-60); (k N + j) ln2_hi/N is
 * exact (ln2_hi/N has 34 bits, k N + j < 2^18), hi minus it too (Sterbenz). 2^k in two
 * factors, one in s_j's exponent, so that results below 2^-1022 come out subnormal (once
 * more rounded) and results beyond the largest double infinite. */
static inline lv_double lv_exp_dd(lv_double hi, lv_double lo)
{
    const double inv_ln2_n = 0x1.71547652b82fep+7, shifter = 0x1.8p52;
    const double nln2_hi_n = -0x1.62e42fef80000p-8, nln2_lo_n = -0x1.1cf79abc9e3b4p-43;
    lv_double kd = hi * inv_ln2_n + shifter;
    lv_int ki = lv_as_int(kd) - lv_as_int(lv_splat(shifter));
    kd = kd - shifter;
    lv_double r = ((hi + kd * nln2_hi_n) + kd * nln2_lo_n) + lo;
    lv_int j = ki & ((1 << LV_TABLE_BITS) - 1), k = ki >> LV_TABLE_BITS;
    lv_double s = lv_gather(lv_exp_scale, j), t = lv_gather(lv_exp_tail, j);
    lv_double r2 = r * r;
    lv_double q = (t + r) + (r2 * (0.5 + r * (1.0 / 6.0)) +
                             (r2 * r2) * ((1.0 / 24.0) + r * (1.0 / 120.0)));
    /* 2^k in s's exponent where every lane's result is above 2^-960 and finite (the same
     * bits as the two factors: s 2^k q, if subnormal, is below 2^-8 ulp of the sum) */
    if (lv_all(lv_gt(hi, lv_splat(-665.0)) & lv_lt(hi, lv_splat(709.0)))) {
        lv_double scale = lv_as_double(lv_as_int(s) + lv_shift_52(k));
        return scale + scale * q;
    }
    lv_int k1 = k >> 1, k2 = k - k1;
    lv_double s1 = lv_as_double(lv_as_int(s) + lv_shift_52(k1)); /* s in [1, 2): stays normal */
    lv_double s2 = lv_as_double((k2 + 1023) << 52);
    return (s1 + s1 * q) * s2;
}

/* log x = hi + lo for the power: x > 0 finite, anything else (0, inf, NaN: the power sets
 * those apart) as if 1. */
static inline void lv_log_for_pow(lv_double x, lv_double *hi, lv_double *lo)
{
    const lv_double inf = lv_splat(__builtin_inf());
    if (lv_all(lv_ge(x, lv_splat(0x1p-1022)) & lv_lt(x, inf))) { /* all normal */
        lv_log_bits(lv_as_int(x), hi, lo);
        return;
    }
    lv_mask ordinary = lv_gt(x, lv_zero()) & lv_lt(x, inf);
    lv_log_dd(lv_sel(ordinary, x, lv_splat(1.0)), hi, lo);
}

/* x^e for x >= 0, e > 0, from (lhi, llo) = lv_log_for_pow(x): exp(e log x), the product
 * e (lhi + llo) as ehi + elo with ehi exact (e and lhi cut to 26 bits each), so that the
 * error stays below 0.52 ulp rather than growing with |e log x|. */
static inline lv_double lv_pow_from_log(lv_double x, lv_double lhi, lv_double llo, lv_double e)
{
    const int64_t cut = -((int64_t)1 << 27);
    lv_double ehi_e = lv_as_double(lv_as_int(e) & cut), elo_e = e - ehi_e;
    lv_double lhi_h = lv_as_double(lv_as_int(lhi) & cut), lhi_l = (lhi - lhi_h) + llo;
    lv_double yhi = ehi_e * lhi_h, ylo = elo_e * lhi_h + e * lhi_l;
    const lv_double inf = lv_splat(__builtin_inf());
    /* every lane ordinary (x > 0 finite, no overflow or underflow): the selects below would
     * leave every lane as it is */
    if (lv_all(lv_gt(x, lv_zero()) & lv_lt(x, inf) & lv_ge(yhi, lv_splat(-746.0)) &
               lv_le(yhi, lv_splat(710.0))))
        return lv_exp_dd(yhi, ylo);
    lv_mask huge = lv_gt(yhi, lv_splat(710.0)), small = lv_lt(yhi, lv_splat(-746.0));
    lv_mask out = huge | small;
    lv_double result = lv_exp_dd(lv_drop(out, yhi), lv_drop(out, ylo));
    result = lv_sel(huge, inf, lv_sel(small, lv_zero(), result));
    result = lv_sel(lv_eq(x, lv_zero()), lv_zero(), result);
    result = lv_sel(lv_eq(x, inf), x, result);
    return lv_sel(lv_eq(x, x), result, x); /* NaN stays NaN */
}

static inline lv_double lv_pow(lv_double x, lv_double e)
{
    lv_double lhi, llo;
    lv_log_for_pow(x, &lhi, &llo);
    return lv_pow_from_log(x, lhi, llo, e);
}

/* --- powers side by side ------------------------------------------------------------ */

/* The same operations as lv_log_bits, lv_pow_from_log and lv_exp_dd, written statement by
 * statement across n vectors (n <= LV_POW_MAX): one power is a long chain of dependent
 * operations (a gather, the series, a second gather), and written one after the other
 * those chains fill the processor's queue before the next one starts; side by side they
 * overlap. The results are the same bits as the single forms'; lanes outside the ordinary
 * range (x not normal and finite, e log x outside (-665, 709)) take the single forms. */
#define LV_POW_MAX 4
#define LV_EACH_POW(statement)                                                              \
    for (int m = 0; m < n; m++) {                                                           \
        statement;                                                                          \
    }

/* lv_log_for_pow of x[0..n) into hi[m], lo[m]. */
static inline __attribute__((always_inline)) void lv_log_for_pow_n(int n, const lv_double *x,
                                                                   lv_double *hi, lv_double *lo)
{
    const double ln2_hi = 0x1.62e42fefa3800p-1, ln2_lo = 0x1.ef35793c76730p-45;
    const int64_t off = 0x3fe6955500000000;
    const lv_double inf = lv_splat(__builtin_inf());
    lv_mask normal = lv_not(lv_mask_none());
    LV_EACH_POW(normal &= lv_ge(x[m], lv_splat(0x1p-1022)) & lv_lt(x[m], inf));
    if (!lv_all(normal)) {
        LV_EACH_POW(lv_log_for_pow(x[m], &hi[m], &lo[m]));
        return;
    }
    lv_int ix[LV_POW_MAX], tmp[LV_POW_MAX], i[LV_POW_MAX], k[LV_POW_MAX];
    lv_double z[LV_POW_MAX], kd[LV_POW_MAX], invc[LV_POW_MAX], logc[LV_POW_MAX];
    lv_double logctail[LV_POW_MAX], zhi[LV_POW_MAX], zlo[LV_POW_MAX], rhi[LV_POW_MAX];
    lv_double rlo[LV_POW_MAX], r[LV_POW_MAX], t1[LV_POW_MAX], t2[LV_POW_MAX], lo1[LV_POW_MAX];
    lv_double lo2[LV_POW_MAX], ar[LV_POW_MAX], arhi[LV_POW_MAX], arhi2[LV_POW_MAX];
    lv_double h[LV_POW_MAX], lo3[LV_POW_MAX], lo4[LV_POW_MAX], r2[LV_POW_MAX], r3[LV_POW_MAX];
    lv_double r4[LV_POW_MAX], p[LV_POW_MAX], l[LV_POW_MAX];
    LV_EACH_POW(ix[m] = lv_as_int(x[m]));
    LV_EACH_POW(tmp[m] = ix[m] - off);
    LV_EACH_POW(i[m] = (tmp[m] >> (52 - LV_TABLE_BITS)) & ((1 << LV_TABLE_BITS) - 1));
    LV_EACH_POW(invc[m] = lv_gather(lv_log_invc, i[m]));
    LV_EACH_POW(logc[m] = lv_gather(lv_log_logc, i[m]));
    LV_EACH_POW(logctail[m] = lv_gather(lv_log_logctail, i[m]));
    LV_EACH_POW(k[m] = tmp[m] >> 52);
    LV_EACH_POW(z[m] = lv_as_double(ix[m] - (tmp[m] & (int64_t)0xfff0000000000000)));
    LV_EACH_POW(kd[m] = lv_as_double(k[m] + lv_as_int(lv_splat(0x1.8p52))) - 0x1.8p52);
    LV_EACH_POW(zhi[m] = lv_as_double((lv_as_int(z[m]) + ((int64_t)1 << 31)) &
                                      (int64_t)-((int64_t)1 << 32)));
    LV_EACH_POW(zlo[m] = z[m] - zhi[m]);
    LV_EACH_POW(rhi[m] = zhi[m] * invc[m] - 1.0);
    LV_EACH_POW(rlo[m] = zlo[m] * invc[m]);
    LV_EACH_POW(r[m] = rhi[m] + rlo[m]);
    LV_EACH_POW(t1[m] = kd[m] * ln2_hi + logc[m]);
    LV_EACH_POW(t2[m] = t1[m] + r[m]);
    LV_EACH_POW(lo1[m] = kd[m] * ln2_lo + logctail[m]);
    LV_EACH_POW(lo2[m] = (t1[m] - t2[m]) + r[m]);
    LV_EACH_POW(ar[m] = -0.5 * r[m]);
    LV_EACH_POW(arhi[m] = -0.5 * rhi[m]);
    LV_EACH_POW(arhi2[m] = rhi[m] * arhi[m]);
    LV_EACH_POW(h[m] = t2[m] + arhi2[m]);
    LV_EACH_POW(lo3[m] = rlo[m] * (ar[m] + arhi[m]));
    LV_EACH_POW(lo4[m] = (t2[m] - h[m]) + arhi2[m]);
    LV_EACH_POW(r2[m] = r[m] * r[m]);
    LV_EACH_POW(r3[m] = r2[m] * r[m]);
    LV_EACH_POW(r4[m] = r2[m] * r2[m]);
    LV_EACH_POW(p[m] = r3[m] * (((1.0 / 3.0) + r[m] * -0.25) + r2[m] * (0.2 + r[m] * (-1.0 / 6.0)) +
                                r4[m] * (((1.0 / 7.0) + r[m] * -0.125) + r2[m] * (1.0 / 9.0))));
    LV_EACH_POW(l[m] = (((lo1[m] + lo2[m]) + lo3[m]) + lo4[m]) + p[m]);
    LV_EACH_POW(hi[m] = h[m] + l[m]);
    LV_EACH_POW(lo[m] = (h[m] - hi[m]) + l[m]);
}

/* out[m] = lv_pow_from_log(x[m], lhi[m], llo[m], e[m]) for m < n. */
static inline __attribute__((always_inline)) void
lv_pow_from_log_n(int n, const lv_double *x, const lv_double *lhi, const lv_double *llo,
                  const lv_double *e, lv_double *out)
{
    const int64_t cut = -((int64_t)1 << 27);
    const double inv_ln2_n = 0x1.71547652b82fep+7, shifter = 0x1.8p52;
    const double nln2_hi_n = -0x1.62e42fef80000p-8, nln2_lo_n = -0x1.1cf79abc9e3b4p-43;
    const lv_double inf = lv_splat(__builtin_inf());
    lv_double ehi[LV_POW_MAX], elo[LV_POW_MAX], lh[LV_POW_MAX], ll[LV_POW_MAX], yhi[LV_POW_MAX];
    lv_double ylo[LV_POW_MAX], kd[LV_POW_MAX], r[LV_POW_MAX], s[LV_POW_MAX], t[LV_POW_MAX];
    lv_double r2[LV_POW_MAX], q[LV_POW_MAX];
    lv_int ki[LV_POW_MAX], j[LV_POW_MAX], k[LV_POW_MAX];
    LV_EACH_POW(ehi[m] = lv_as_double(lv_as_int(e[m]) & cut));
    LV_EACH_POW(elo[m] = e[m] - ehi[m]);
    LV_EACH_POW(lh[m] = lv_as_double(lv_as_int(lhi[m]) & cut));
    LV_EACH_POW(ll[m] = (lhi[m] - lh[m]) + llo[m]);
    LV_EACH_POW(yhi[m] = ehi[m] * lh[m]);
    LV_EACH_POW(ylo[m] = elo[m] * lh[m] + e[m] * ll[m]);
    /* lv_pow_from_log's and lv_exp_dd's fast paths in every lane of every vector */
    lv_mask ordinary = lv_not(lv_mask_none());
    LV_EACH_POW(ordinary &= lv_gt(x[m], lv_zero()) & lv_lt(x[m], inf) &
                            lv_gt(yhi[m], lv_splat(-665.0)) & lv_lt(yhi[m], lv_splat(709.0)));
    if (!lv_all(ordinary)) {
        LV_EACH_POW(out[m] = lv_pow_from_log(x[m], lhi[m], llo[m], e[m]));
        return;
    }
    LV_EACH_POW(kd[m] = yhi[m] * inv_ln2_n + shifter);
    LV_EACH_POW(ki[m] = lv_as_int(kd[m]) - lv_as_int(lv_splat(shifter)));
    LV_EACH_POW(j[m] = ki[m] & ((1 << LV_TABLE_BITS) - 1));
    LV_EACH_POW(s[m] = lv_gather(lv_exp_scale, j[m]));
    LV_EACH_POW(t[m] = lv_gather(lv_exp_tail, j[m]));
    LV_EACH_POW(k[m] = ki[m] >> LV_TABLE_BITS);
    LV_EACH_POW(kd[m] = kd[m] - shifter);
    LV_EACH_POW(r[m] = ((yhi[m] + kd[m] * nln2_hi_n) + kd[m] * nln2_lo_n) + ylo[m]);
    LV_EACH_POW(r2[m] = r[m] * r[m]);
    LV_EACH_POW(q[m] = (t[m] + r[m]) + (r2[m] * (0.5 + r[m] * (1.0 / 6.0)) +
                                        (r2[m] * r2[m]) * ((1.0 / 24.0) + r[m] * (1.0 / 120.0))));
    LV_EACH_POW(s[m] = lv_as_double(lv_as_int(s[m]) + lv_shift_52(k[m])));
    LV_EACH_POW(out[m] = s[m] + s[m] * q[m]);
}
#undef LV_EACH_POW

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
