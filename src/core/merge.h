/* merge.h: joining the result files of the pieces of a job array (`[sweep] piece = I/N`)
 * into one file, as if the whole grid had been one run. */
#ifndef IMPACTSWEEP_MERGE_H
#define IMPACTSWEEP_MERGE_H

#include <stddef.h>
#include <stdint.h>

#include "error.h"

/* Creates `output` (refused if it exists, unless overwrite) for the job recorded in the
 * inputs, which must all come from the same job (model, parameters, axes: the job
 * fingerprint), and copies every point an input has (status not pending) into it. A point
 * computed in two inputs must agree. counts: done, failed, pending in the output. */
is_code is_merge(const char *output, const char *const *inputs, size_t input_count,
                 int overwrite, uint64_t counts[3], is_error *err);

#endif
