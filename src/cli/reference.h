/* reference.h: the reference (docs/reference.md, `impactsweep help --reference`) and the
 * man page impactsweep-job(5) (`impactsweep help --man-job`), written from the program's
 * own tables: the commands' help, the job parser's sections and keys, the models'. */
#ifndef IMPACTSWEEP_CLI_REFERENCE_H
#define IMPACTSWEEP_CLI_REFERENCE_H

#include <stdio.h>

#include "../core/contract/model.h"

/* The reference in Markdown: the commands, the environment, the job file and the models
 * in `models` (NULL-terminated). Nothing in it depends on the build (no version), so that
 * a committed copy can be compared with it. */
void is_cli_reference(FILE *out, const is_model *const *models);

/* The man page impactsweep-job(5) in roff: every section and key of a job file, the
 * parameters of `models`, an example, and what bad input does. */
void is_cli_man_job(FILE *out, const char *version, const is_model *const *models);

#endif
