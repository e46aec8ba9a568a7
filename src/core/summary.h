/* summary.h: a readable summary of any result file (model, axes, how many points are
 * done, per-field min/mean/max), for `impactsweep info` and the end of a run. It reads
 * only the file, never a model table, so it works on files from other versions. */
#ifndef IMPACTSWEEP_SUMMARY_H
#define IMPACTSWEEP_SUMMARY_H

#include <stdio.h>

#include "error.h"

/* IS_NOT_RESULT for a file that is not an impactsweep result file. */
is_code is_summary_print(const char *path, FILE *out, is_error *err);

#endif
