/* tolerance.h: a point recomputed at a tighter tolerance, and how far its outputs moved:
 * the measure behind self-verification ([sweep] verify, verification.h) and the
 * convergence test of `impactsweep models --check`.
 *
 * A model marks the parameters that set its accuracy with IS_PARAM_TOLERANCE, and a choice
 * of methods that compute the same results (integrators) with IS_PARAM_METHOD (model.h,
 * contract 3.2). A model without a tolerance parameter cannot be verified this way. */
#ifndef IMPACTSWEEP_TOLERANCE_H
#define IMPACTSWEEP_TOLERANCE_H

#include <stddef.h>

#include "model.h"

/* Self-verification divides each tolerance by this. */
#define IS_TOLERANCE_FACTOR 100.0
/* The default verify_tolerance is this many times the largest tolerance asked. */
#define IS_TOLERANCE_VERIFY_SCALE 1000.0
/* A real output's discrepancy is |a - b| / max(|a|, |b|, this): relative for values of
 * magnitude 1e-3 and more, below that an absolute difference scaled by 1e3 (the built-in
 * models' outputs are nondimensional, of order one; values near zero such as a
 * separation at the origin would otherwise read as relative noise). */
#define IS_TOLERANCE_FLOOR 1e-3

/* Does the model have a tolerance parameter? */
int is_tolerance_model(const is_model *model);

/* The largest value of a tolerance parameter that applies at `point` (0: none applies). */
double is_tolerance_value(const is_model *model, const double *point);

/* `point` recomputed tighter, into out[param_count]: each tolerance parameter divided by
 * `factor` (not below its min) and, with switch_method, each IS_PARAM_METHOD choice moved to
 * the next choice of its list, cyclically, skipping one named "auto". Returns 1 when some
 * tolerance parameter applies at the new point (it can be verified), else 0. */
int is_tolerance_tighten(const is_model *model, const double *point, double factor,
                         int switch_method, double *out);

/* How far an output moved between two computations a and b: a real output as said at
 * IS_TOLERANCE_FLOOR (0 when both are NaN or the same infinity, 1 when only one is NaN or
 * infinite); an integer output |a - b|; a category 1 when it changed, else 0; an output
 * marked IS_OUTPUT_WORK 0 (not compared). */
double is_tolerance_discrepancy(const is_output *out, double a, double b);

#endif
