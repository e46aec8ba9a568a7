/* lanes_math_width.h: lanes_math.h's log, exp and power over arrays, compiled once per
 * lane width: each lanes_math_<isa>.c defines the width (lanes.h's IMPACTSWEEP_LANES_*)
 * and LMW_NAME, then includes this, so that test_lanes_math.c can compare the widths' bits
 * in one build. Element i goes to lane i mod LV_WIDTH. */
#include <stddef.h>

#include "models/shared/lanes_math.h"

void LMW_NAME(const double *x, const double *e, const double *h, size_t n, double *log_hi,
              double *log_lo, double *ex, double *pw);

/* n a multiple of 8 (every width's): log x = log_hi + log_lo, ex = exp(h), pw = x^e. */
void LMW_NAME(const double *x, const double *e, const double *h, size_t n, double *log_hi,
              double *log_lo, double *ex, double *pw)
{
    for (size_t i = 0; i + LV_WIDTH <= n; i += LV_WIDTH) {
        lv_double vx = lv_load(x + i), hi, lo;
        lv_log_for_pow(vx, &hi, &lo);
        lv_store(log_hi + i, hi);
        lv_store(log_lo + i, lo);
        lv_store(ex + i, lv_exp_dd(lv_load(h + i), lv_zero()));
        lv_store(pw + i, lv_pow(vx, lv_load(e + i)));
    }
}
