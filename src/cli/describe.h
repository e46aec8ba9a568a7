/* describe.h: `impactsweep models MODEL --json`: a model's table as one JSON object, so
 * that a program (the Python module) can shape what eval answers exactly as a result file
 * stores it: types, units, labels, categories and the status flags. */
#ifndef IMPACTSWEEP_CLI_DESCRIBE_H
#define IMPACTSWEEP_CLI_DESCRIBE_H

#include <stdio.h>

#include "../core/contract/model.h"
#include "../core/contract/plugin.h"

/* Writes the JSON object of m (one line) to out; `library` is the plug-in's path or NULL. */
void is_cli_describe_json(FILE *out, const is_model *m, const char *library);

/* `impactsweep models [MODEL]`: the model as text on stdout (where it comes from, its
 * parameters with defaults, ranges and where they apply, its outputs). */
void is_cli_describe_text(const is_models *models, const is_model *m);

/* A parameter's default as `models MODEL` prints it: "(required)", a choice's name, or
 * the number. */
void is_cli_param_default_text(const is_param *param, char *text, size_t size);

/* Writes s as a JSON string (quoted, escaped); NULL as null. */
void is_cli_json_string(FILE *out, const char *s);

#endif
