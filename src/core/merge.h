/* merge.h: joining the result files of the pieces of a job array (`[sweep] piece = I/N`)
 * into one file, as if the whole grid had been one run.
 *
 * Collective, and in bounded memory: the ranks share each input's points and copy them
 * block by block (reading only that input's box), so no process holds or copies O(grid)
 * alone. The output is built beside its final name and renamed only when complete: a
 * merge that fails or is killed leaves any existing output and every input untouched. */
#ifndef IMPACTSWEEP_MERGE_H
#define IMPACTSWEEP_MERGE_H

#include <mpi.h>
#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "plugin.h"

/* Creates `output` (refused if it exists, unless overwrite; refused if it is one of the
 * inputs) for the job recorded in the inputs, which must all come from the same job
 * (model, parameters, axes: the job fingerprint), and copies every point an input has
 * (status not pending) into it. A point stored in two inputs must agree. counts (rank 0):
 * done, failed, pending in the output. */
is_code is_merge(const char *output, const char *const *inputs, size_t input_count,
                 int overwrite, is_models *models, MPI_Comm comm, uint64_t counts[3],
                 is_error *err);

#endif
