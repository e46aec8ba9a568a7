/* lanes_math_avx2.c: lanes_math_width.h in AVX2 (4 lanes) where the build targets AVX2 or
 * more (AVX-512 too: the narrower set is picked); otherwise the build's own set. */
#define IMPACTSWEEP_LANES_AVX2
#define LMW_NAME lanes_math_eval_avx2
#include "lanes_math_width.h"
