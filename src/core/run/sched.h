/* sched.h: the master/worker scheduler.
 *
 * Rank 0 hands out work units (contiguous ranges of the file's points) on demand and,
 * unless told not to, computes units of its own in short batches between requests;
 * workers keep one request outstanding while they compute, so a reply is always waiting
 * when they finish. Units are sized by time: rank 0 learns the cost of a point from the
 * reports and aims at `unit_seconds` per unit, starting with tiny units that grow
 * (at most 4x per unit of a rank) and shrinking them again near the end so that no rank
 * idles. A rank's units follow one another in a region of its own (units.h). A rank
 * evaluates batches of about a quarter of a second, keeps their results in a bounded
 * buffer across units and writes them in large, aligned blocks (when the buffer is full,
 * when the next point does not continue it, at the end of a unit once the buffer is a
 * second old, or when it stops).
 *
 * On a stop signal (or a rank's fatal error) no new unit is handed out and every rank
 * stops after its current batch: what it has finished is written, the rest of its unit
 * stays pending for --resume. Rank 0 also tells every worker to stop, so a signal that
 * reaches rank 0 alone is honoured as quickly. Results do not depend on any of this:
 * a point's result depends only on its parameters. */
#ifndef IMPACTSWEEP_SCHED_H
#define IMPACTSWEEP_SCHED_H

#include <mpi.h>
#include <stdint.h>

#include "error.h"
#include "job.h"
#include "pending.h"
#include "results.h"
#include "verification.h"

typedef struct is_sched_options {
    int resumed;                /* the file holds stored points: read each unit's status and
                                   compute only its pending points */
    const is_pending_map *map;  /* rank 0, resumed: pending points per segment */
    uint64_t pending;           /* rank 0: points pending at the start */
    uint64_t points;            /* points in the file */
    int live_progress;          /* 1 bar, 0 lines, -1 decide by isatty(stderr) */
    const is_pending_filter *filter; /* resumed: compute only the pending points it picks
                                        (this rank's; NULL: all) and count progress over
                                        `pending` alone (a pass of a refined sweep) */
    const char *label;          /* put before each progress line (NULL: nothing) */
    is_verification *verification; /* the file's self-verification records, open on every
                                      rank (NULL: none): sampled points recomputed tighter */
} is_sched_options;

typedef struct is_sched_result {
    uint64_t tally[IS_POINT_STATUS_COUNT]; /* rank 0: points computed in this run (all ranks),
                                              by the status they got */
    uint64_t done, failed;      /* rank 0: the same, summed */
    uint64_t units;             /* rank 0: units handed out (its own included) */
    double unit_seconds;        /* the target unit duration used */
    int stop_signal;            /* rank 0: the signal that stopped the run, 0 if none */
    int rank_errors;            /* rank 0: ranks that stopped on a fatal error */
    double seconds;             /* wall time of the computing phase */
    double serve_seconds;       /* rank 0: time spent answering requests */
    uint64_t requests;          /* rank 0: requests answered */
} is_sched_result;

/* Collective over comm. Returns IS_OK when the schedule ran to its end (which may be a
 * stop by signal: see result->stop_signal), or the first fatal error of this rank. */
is_code is_sched_run(const is_job *job, MPI_Comm comm, is_results *results,
                     const is_sched_options *options, is_sched_result *result, is_error *err);

/* The target duration of a unit: the job's unit_seconds, at most a quarter of the batch
 * system's grace period when one is known (IMPACTSWEEP_GRACE, seconds). */
double is_sched_unit_seconds(const is_job *job);

#endif
