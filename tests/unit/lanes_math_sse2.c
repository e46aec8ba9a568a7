/* lanes_math_sse2.c: lanes_math_width.h in SSE2 (2 lanes), where the compiler has it. */
#define IMPACTSWEEP_LANES_SSE2
#define LMW_NAME lanes_math_eval_sse2
#include "lanes_math_width.h"
