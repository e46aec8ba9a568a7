/* conformance.h: the model contract of model.h, checked at run time: on every plug-in as
 * it is loaded (the table), and by `impactsweep models --check` (the table and the
 * behaviour of eval_batch). The unit tests apply the same checks to the built-in models. */
#ifndef IMPACTSWEEP_CONFORMANCE_H
#define IMPACTSWEEP_CONFORMANCE_H

#include "error.h"
#include "model.h"

/* A well-formed table: names that can be file variables (unique, not `status`, not shared
 * between parameters and outputs), meanings and units, defaults and ranges that agree,
 * choices and categories, `when` conditions on choices of the model, and the functions a
 * model must have. IS_PLUGIN with the first breach named. */
is_code is_conformance_table(const is_model *model, is_error *err);

/* A point with every parameter admissible: the defaults, or a value inside the range. */
void is_conformance_point(const is_model *model, double *point);

/* eval_batch keeps the contract on a few admissible points: a valid status for each,
 * categories and integers in range, and each point's result (bits) the same alone, in a
 * batch with other points, and twice over. IS_PLUGIN with what broke. */
is_code is_conformance_behaviour(const is_model *model, is_error *err);

#endif
