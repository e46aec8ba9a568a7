/* point.h: one parameter point of a model from `name=value` arguments, checked as a job
 * file's [model] keys are: the commands that take a point (eval, trace) share it. */
#ifndef IMPACTSWEEP_CLI_POINT_H
#define IMPACTSWEEP_CLI_POINT_H

#include "../core/base/error.h"
#include "../core/contract/model.h"

/* Fills point[param_count] with the defaults and then args[first .. end - 1]
 * ("name=value"; NULL entries are skipped: arguments the caller took for itself), and
 * checks it: known names with admissible values, every parameter without a default given,
 * none given where it does not apply (the model's own validate is the caller's to run,
 * where the model's code runs: evaluator.h). Messages name the argument by its index in
 * args ("argument 3: ..."). IS_USAGE or IS_PARAM (exit status 2) on failure. */
is_code is_cli_point_parse(const is_model *model, char *const *args, int first, int end,
                           double *point, is_error *err);

#endif
