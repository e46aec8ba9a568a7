/* merge_guard.h: what a merge may do to an output that exists. A merge only ever makes a
 * result better: it replaces an existing output only if that is a result of the same job
 * (an earlier merge, or with --overwrite any file of the whole grid of the job) and only
 * when the new file holds every point the old one holds, with the same values; otherwise
 * it refuses (exit status 2) and the old file stays as it was. A piece purged from scratch
 * after a first merge, or a merge of some pieces only, can then never cost results. */
#ifndef IMPACTSWEEP_MERGE_GUARD_H
#define IMPACTSWEEP_MERGE_GUARD_H

#include <mpi.h>

#include "error.h"
#include "job.h"
#include "lock.h"
#include "results.h"
#include "stop.h"

/* Rank 0, before anything is built: the output's directory, room and lock; an existing
 * output must be a result file of this job, and an earlier merge unless `overwrite`.
 * *replacing: it exists (is_merge_guard must then pass before it is replaced). */
is_code is_merge_claim_output(const is_job *job, const char *output, int overwrite, int *replacing,
                              is_lock **lock, is_error *err);

/* Collective: the existing output `output` checked against its checksums, and compared
 * point by point with the new merged file `merged` (open): IS_EXISTS, naming the first
 * point the old file holds and the new one lacks or holds otherwise, and how many. */
is_code is_merge_guard(const char *output, is_results *merged, MPI_Comm comm, is_stop *stop,
                       is_error *err);

#endif
