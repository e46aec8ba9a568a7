/* summary.h: a readable summary of any result file (model, axes, run state and log, how
 * many points are in each status, per-field min/mean/max or category counts), for
 * `impactsweep info` and the end of a run. It reads only the file, never a model table.
 *
 * Collected in bounded memory: the file is read in blocks, and under MPI every rank
 * reads its own share and the statistics are reduced to rank 0, so no process holds
 * or reads O(points) alone. */
#ifndef IMPACTSWEEP_SUMMARY_H
#define IMPACTSWEEP_SUMMARY_H

#include <mpi.h>
#include <stdio.h>

#include "error.h"

typedef struct is_summary is_summary;

/* Collective over comm (MPI_COMM_NULL: this process alone). On rank 0 *summary is set
 * (elsewhere NULL). IS_NOT_RESULT for a file that is not an impactsweep result file of
 * this format. */
is_code is_summary_collect(const char *path, MPI_Comm comm, is_summary **summary,
                           is_error *err);

/* Prints it; with `log`, also the run log. */
void is_summary_print(const is_summary *summary, int log, FILE *out);

/* The run log alone ("log:" and its lines), as is_summary_print ends with it. */
void is_summary_print_log(const is_summary *summary, FILE *out);

void is_summary_free(is_summary **summary);

#endif
