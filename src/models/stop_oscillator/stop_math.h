/* stop_math.h: sin and cos for the stop oscillator's exact flows, in plain C (additions,
 * multiplications, one rounding trick, no libm): the same bits on every CPU, in every
 * build (IMPACTSWEEP_NATIVE on or off: fp contraction is off) and in every lane of the
 * lane code (stop_lanes.c), which libm's ISA-dependent variants do not promise.
 *
 * Accuracy: within 2 ulp of libm's for |x| < 2^20 pi / 2 (the search's flows stay below
 * 256 w2 / w1 <= 1.2e4 rad: STOP_CHUNK; tests/unit/test_stop.c checks it against libm);
 * beyond (a trace's free orbit up to t_end), within a few ulp(x), the order of the
 * rounding of the argument itself, up to |x| = 2^51. */
#ifndef IMPACTSWEEP_STOP_MATH_H
#define IMPACTSWEEP_STOP_MATH_H

#include <math.h>
#include <stdint.h>
#include <string.h>

/* pi/2 in two parts (fdlibm's pio2_1, the first 33 bits, and pio2_1t, the rest): n pio2_1
 * is exact for |n| < 2^20, and x - n pio2_1 is exact (Sterbenz), so that the reduced
 * argument carries the rounding of n pio2_1t alone (|n| 1e-27 absolute). */
#define STOP_NPIO2_1 -1.57079632673412561417e+00 /* negated: additions only (stop_search.h) */
#define STOP_NPIO2_1T -6.07710050650619224932e-11
#define STOP_2_OVER_PI 6.36619772367581382433e-01
#define STOP_ROUND_MAGIC 0x1.8p52 /* (y + 0x1.8p52) - 0x1.8p52: y to the nearest integer */

/* sin and cos of x: the argument reduced to [-pi/4, pi/4] by the nearest multiple n of
 * pi/2, fdlibm's kernels there (as musl writes them, without the tail of a double-double
 * argument), and the quadrant n mod 4 picking the signs: the low bits of n + 1.5 2^52,
 * whose last bit is 1 (the unit of 2^52 .. 2^53), are n's own (2^51 is 0 mod 4), read as
 * an integer and turned into sign bits (integer operations that vectorise). */
static inline void stop_sincos(double x, double *sn, double *cs)
{
    double big = x * STOP_2_OVER_PI + STOP_ROUND_MAGIC;
    double n = big + -STOP_ROUND_MAGIC;
    double r = (x + n * STOP_NPIO2_1) + n * STOP_NPIO2_1T;
    double z = r * r;
    double ps = 8.33333333332248946124e-03 + z * (-1.98412698298579493134e-04 +
                z * (2.75573137070700676789e-06 + z * (-2.50507602534068634195e-08 +
                z * 1.58969099521155010221e-10)));
    double s = r + (r * z) * (-1.66666666666666324348e-01 + z * ps);
    double pc = z * (4.16666666666666019037e-02 + z * (-1.38888888888741095749e-03 +
                z * (2.48015872894767294178e-05 + z * (-2.75573143513906633035e-07 +
                z * (2.08757232129817482790e-09 + z * -1.13596475577881948265e-11)))));
    double nhz = -0.5 * z, w = 1.0 + nhz;
    double c = w + (((1.0 + -w) + nhz) + z * pc);
    uint64_t q, bs, bc;
    memcpy(&q, &big, sizeof q);
    double s1 = q & 1 ? c : s, c1 = q & 1 ? s : c; /* quadrants 1 and 3 swap */
    memcpy(&bs, &s1, sizeof bs);
    memcpy(&bc, &c1, sizeof bc);
    bs ^= (q & 2) << 62;       /* quadrants 2, 3: -sin */
    bc ^= ((q + 1) & 2) << 62; /* quadrants 1, 2: -cos */
    memcpy(sn, &bs, sizeof bs);
    memcpy(cs, &bc, sizeof bc);
}

#endif
