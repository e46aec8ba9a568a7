/* pieces_plan.h: `run --dry-run --pieces N`: the dry run's timed sample, taken larger,
 * cut into N job-array pieces of equal estimated cost (pieces.h); slurm/submit --array N
 * reads the bounds it prints. */
#ifndef IMPACTSWEEP_CLI_PIECES_PLAN_H
#define IMPACTSWEEP_CLI_PIECES_PLAN_H

#include <stdint.h>
#include <stdio.h>

#include "../core/base/error.h"
#include "../core/job/job.h"

/* Most pieces a plan makes (a job array is rarely allowed more than a few thousand). */
#define IS_PIECES_PLAN_MAX (UINT64_C(1) << 20)

/* Samples the job's grid for about 3 s plus half a second a piece (at most 60 s in all,
 * half of it timing points one by one, and 16384 points), prints the cost lines of the
 * dry run, then
 *   pieces:       N of equal estimated cost: the slowest R x the mean (N of equal size: S x)
 *   piece bounds: B0 B1 ... BN
 * (piece I is points B_I .. B_{I+1} - 1: `run --piece I/N:B_I-(B_{I+1} - 1)`). The job must
 * be the whole grid (no piece of its own) and have no refinement. */
is_code is_pieces_plan(const is_job *job, uint64_t pieces, int ranks, FILE *out, is_error *err);

#endif
