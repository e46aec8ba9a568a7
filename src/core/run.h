/* run.h: one `impactsweep run`: create or resume the result file (rank 0), open it on
 * every rank, schedule the computation, close, and record how the run ended. */
#ifndef IMPACTSWEEP_RUN_H
#define IMPACTSWEEP_RUN_H

#include <mpi.h>
#include <stdint.h>

#include "error.h"
#include "job.h"
#include "sched.h"

typedef struct is_run_options {
    int resume;        /* continue the existing file (start afresh if there is none) */
    int overwrite;     /* replace an existing file */
    int live_progress; /* 1 bar, 0 lines, -1 by isatty(stderr) */
} is_run_options;

typedef struct is_run_summary {
    is_sched_result sched;
    uint64_t counts[3];  /* done, failed, pending in the file at the end (rank 0) */
    int resumed;         /* an existing file was continued */
} is_run_summary;

/* Collective. Every rank returns the same code: IS_OK when the file is complete,
 * IS_INTERRUPTED when a signal stopped the run (the file is resumable), or the first
 * error (reported in err on the rank that found it, and as a summary on rank 0). */
is_code is_run(const is_job *job, const is_run_options *options, MPI_Comm comm,
               is_run_summary *summary, is_error *err);

#endif
