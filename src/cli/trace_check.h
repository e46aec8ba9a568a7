/* trace_check.h: `impactsweep models --check` runs the model's trace (trace_check.c). */
#ifndef IMPACTSWEEP_CLI_TRACE_CHECK_H
#define IMPACTSWEEP_CLI_TRACE_CHECK_H

#include <stddef.h>

#include "../core/contract/conformance.h"
#include "../core/contract/model.h"

/* Runs model's trace of its default point (is_conformance_point) with the trace's default
 * options (in a child process that `timeout` seconds end when `contained`: a plug-in's
 * code) and checks it: samples in time order, finite; events of declared kinds, each at
 * its sample's time; a status and a sample at least; the outputs and status eval_batch
 * (evaluate) gives the point. IS_OK with a clause for the command's summary in summary
 * ("" for a model without a trace), or IS_PLUGIN naming what broke. */
is_code is_cli_trace_check(const is_model *model, int contained, double timeout,
                           is_conformance_evaluate evaluate, void *context, char *summary,
                           size_t size, is_error *err);

#endif
