/* trace.h: `impactsweep trace`, the trajectory behind one point (trace.c). */
#ifndef IMPACTSWEEP_CLI_TRACE_H
#define IMPACTSWEEP_CLI_TRACE_H

#include "../core/contract/model.h"

/* Looks a model up as the command line does (a name, or a plug-in's path), with the
 * command line's message when there is none; *contained: its code runs out of the
 * command's process (a plug-in's: evaluator.h). */
typedef is_code (*is_cli_model_finder)(void *context, const char *name, const is_model **model,
                                       int *contained, is_error *err);

/* argv[0] is "trace"; find(context, ...) looks models up. Returns the exit status. */
int is_cli_trace(int argc, char **argv, is_cli_model_finder find, void *context);

#endif
