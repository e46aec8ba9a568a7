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

/* Creates `output` for the job recorded in the inputs, which must all come from the same
 * job (model, parameters, axes: the job fingerprint), each piece and each file once, none
 * of them the output, and copies every point an input has (status not pending) into it,
 * each checked against its checksum (damage: IS_DAMAGED, naming the input, dataset and
 * point). A point stored in two inputs must agree. An existing output is replaced only as
 * merge_guard.h says (an earlier merge of the job, or any result of its whole grid with
 * overwrite, and only by a merge holding every point it holds). A stop (signals.h) ends
 * the merge within seconds with IS_INTERRUPTED, nothing written. counts (rank 0): done,
 * failed, pending in the output; report (rank 0): for a merge with points pending, which
 * pieces are missing or incomplete, else "". */
is_code is_merge(const char *output, const char *const *inputs, size_t input_count,
                 int overwrite, is_models *models, MPI_Comm comm, uint64_t counts[3],
                 char *report, size_t report_size, is_error *err);

#endif
