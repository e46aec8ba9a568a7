/* lanes_math_generic.c: lanes_math_width.h in lanes_generic.h's plain vector code. */
#define IMPACTSWEEP_LANES_GENERIC
#define LMW_NAME lanes_math_eval_generic
#include "lanes_math_width.h"
