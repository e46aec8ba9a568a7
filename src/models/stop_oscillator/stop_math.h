/* stop_math.h: sin and cos for the stop oscillator's exact flows, the lane layer's
 * (additions, multiplications, one rounding trick, no libm): the same bits on every CPU,
 * in every build (IMPACTSWEEP_NATIVE on or off: fp contraction is off) and in every lane
 * of the lane code (stop_lanes.c), which libm's ISA-dependent variants do not promise.
 *
 * Accuracy: within 2 ulp of libm's for |x| < 2^20 pi / 2 (the search's flows stay below
 * 256 w2 / w1 <= 1.2e4 rad: STOP_CHUNK; tests/unit/test_stop.c checks it against libm);
 * beyond (a trace's free orbit up to t_end), within a few ulp(x), the order of the
 * rounding of the argument itself, up to |x| = 2^51. */
#ifndef IMPACTSWEEP_STOP_MATH_H
#define IMPACTSWEEP_STOP_MATH_H

#include "../shared/lanes_math.h"

/* sin and cos of x: lanes_math.h's lv_sincos (fdlibm's kernels after a reduction by the
 * nearest multiple of pi/2), lane 0: the same routine, bit for bit, as the lanes run. */
static inline void stop_sincos(double x, double *sn, double *cs)
{
    lv_double s, c;
    lv_sincos(lv_splat(x), &s, &c);
    *sn = s[0];
    *cs = c[0];
}

#endif
