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

/* A point that breaks the contract, found by is_conformance_results. */
typedef void (*is_conformance_report)(void *context, size_t index, const char *reason);

/* The contract kept by each of `count` points that eval_batch returned (outputs[o * count +
 * i], status[i]), as every run checks them: a status a model may return (PENDING only when
 * `stopping`), and for a done point outputs as declared (a finite number unless the
 * output's flags allow NaN or infinity; integers integral within int32; categories
 * 0..k-1). A point that breaks it gets IS_POINT_FAILED_CHECK, and report(context, i,
 * reason) is called once for it. Whatever the status, an integer or category that cannot
 * be stored as one (it would wrap) becomes NaN (stored as "no value"). Returns the number
 * of points failed. */
size_t is_conformance_results(const is_model *model, double *outputs, uint8_t *status,
                              size_t count, int stopping, is_conformance_report report,
                              void *context);

/* Evaluates count points (points[i * param_count + p]) in one batch with a fresh
 * workspace, into outputs[o * count + i] and status[i] as eval_batch leaves them (outputs
 * NaN and status 255 where it writes nothing). IS_PLUGIN when the model breaks the
 * contract on the way (it crashed, wrote past an array: the message says which). With
 * outputs NULL it runs the model's validate on them instead: IS_PARAM (and its message)
 * when it refuses one. */
typedef is_code (*is_conformance_evaluate)(void *context, const is_model *model,
                                           const double *points, size_t count, double *outputs,
                                           uint8_t *status, is_error *err);

/* eval_batch keeps the contract on a few admissible points (through `evaluate`, NULL: in
 * this process): a valid status for each, outputs as declared (is_conformance_results),
 * and each point's result (bits) the same alone, in a batch with other points, and twice
 * over. IS_PLUGIN with what broke. */
is_code is_conformance_behaviour(const is_model *model, is_conformance_evaluate evaluate,
                                 void *context, is_error *err);

#endif
