/* engine.h: the engine's own helpers over error codes and model tables, which plug-ins
 * neither see nor may call (not installed, not exported; model.h's SDK is the part
 * plug-ins get): the command line's exit statuses, the names of the files beside a result
 * file, and the formatting and counting of a table's ranges, choices and categories. */
#ifndef IMPACTSWEEP_ENGINE_H
#define IMPACTSWEEP_ENGINE_H

#include <stddef.h>

#include "error.h"
#include "model.h"

/* The process exit status of an error code (the X-macro list of error.h). */
int is_code_exit_status(is_code code);

/* path followed by suffix, as a new string (caller frees), or NULL when out of memory:
 * the names of the files that go beside a result file (.partial, .lock). */
char *is_path_with_suffix(const char *path, const char *suffix);

/* The model called `name` in a NULL-terminated list, or NULL. */
const is_model *is_model_find(const is_model *const *list, const char *name);

/* "form velocity | dimensional; law bwshc | bwm" for messages and `impactsweep models`;
 * "" for a parameter that always applies. */
void is_param_format_when(const is_model *model, size_t p, char *buf, size_t size);

/* Writes "[min, max)" etc. for messages and `impactsweep models`. */
void is_param_format_range(const is_param *param, char *buf, size_t size);

/* Number of values of a choice parameter. */
int is_param_choice_count(const is_param *param);

/* Number of categories of a categorical output. */
int is_output_category_count(const is_output *output);

/* Values per point of an output: its length, 1 for a scalar (length 0 or 1). */
static inline size_t is_output_length(const is_output *output)
{
    return output->length > 1 ? output->length : 1;
}

/* Values per point of all a model's outputs (their lengths' sum): eval_batch's outputs
 * hold count times as many doubles. */
size_t is_model_value_count(const is_model *model);

/* Where output o's block starts in eval_batch's outputs, in units of count (model.h):
 * the lengths of the outputs before it summed. */
size_t is_model_output_offset(const is_model *model, size_t o);

/* An array output's dimension name (length_name, or "<name>_index") into buf. */
void is_output_dimension(const is_output *output, char *buf, size_t size);

/* Is status s a failure (a model's, or one the engine found: crash, timeout)? */
static inline int is_point_failed(int s)
{
    return (s >= IS_POINT_FAILED_FIRST && s <= IS_POINT_FAILED_LAST) ||
           s == IS_POINT_FAILED_CRASH || s == IS_POINT_FAILED_TIMEOUT;
}

#endif
