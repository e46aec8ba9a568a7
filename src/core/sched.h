/* sched.h: the master/worker scheduler. Rank 0 hands out work units (contiguous blocks
 * of pending point indices) on demand and computes units of its own in small pieces
 * between requests; workers keep one request outstanding while they compute, so a
 * reply is always waiting when they finish. Every rank writes its own units to the
 * result file. On a stop signal (or a rank's fatal error) no new unit is handed out;
 * units being computed are finished and written, units handed out but not started are
 * left pending for --resume. */
#ifndef IMPACTSWEEP_SCHED_H
#define IMPACTSWEEP_SCHED_H

#include <mpi.h>
#include <stdint.h>

#include "error.h"
#include "job.h"
#include "results.h"

typedef struct is_sched_options {
    const uint8_t *resume_status; /* rank 0: status array of a resumed file, or NULL */
    uint64_t done_before;         /* rank 0: points already stored (for the progress line) */
    int live_progress;            /* 1 bar, 0 lines, -1 decide by isatty(stderr) */
} is_sched_options;

typedef struct is_sched_result {
    uint64_t done, failed;  /* points computed in this run, over all ranks (rank 0) */
    uint64_t unit_size;     /* the unit size used */
    int stop_signal;        /* the signal that stopped the run, 0 if none (rank 0) */
    int rank_errors;        /* ranks that stopped on a fatal error (rank 0) */
    double seconds;         /* wall time of the computing phase */
} is_sched_result;

/* Collective over comm. Returns IS_OK when the schedule ran to its end (which may be a
 * stop by signal: see result->stop_signal), or the first fatal error of this rank. */
is_code is_sched_run(const is_job *job, MPI_Comm comm, is_results *results,
                     const is_sched_options *options, is_sched_result *result, is_error *err);

/* The unit size for `pending` points over `ranks` ranks when the job says auto:
 * enough units per rank for balance, not so many that rank 0 is swamped. */
uint64_t is_sched_auto_unit_size(uint64_t pending, int ranks);

#endif
