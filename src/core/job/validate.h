/* validate.h: checking every point of the grid before anything is computed, with the
 * work spread over the ranks: the values of each long axis (the parser checked the short
 * ones, and every explicit list, itself), then the model's cross-parameter check on
 * every point of the piece. The first failure in grid order is reported, naming the job
 * file's line and key, exactly as if one process had checked everything. */
#ifndef IMPACTSWEEP_VALIDATE_H
#define IMPACTSWEEP_VALIDATE_H

#include <mpi.h>

#include "error.h"
#include "job.h"

/* Collective over comm (MPI_COMM_NULL: this process checks everything). A stop request
 * (signals.h) on any rank ends it within a fraction of a second: IS_INTERRUPTED. A model
 * that runs contained is checked in its evaluator process, which stays in job->evaluator
 * for the run (one process a rank for both). */
is_code is_validate_grid(is_job *job, MPI_Comm comm, is_error *err);

/* The same, checking at most `most` points of the piece (a dry run of a grid too large to
 * check point by point in seconds): evenly spread over it, its first and last among them,
 * so that a failure is still the first in grid order among those checked. */
is_code is_validate_grid_sampled(is_job *job, MPI_Comm comm, uint64_t most, is_error *err);

#endif
