/* run.h: one `impactsweep run`: take the result file's lock (rank 0), create the file or
 * check the existing one, open it on every rank, find what is pending (resume), schedule
 * the computation, record how the run ended, close and release the lock. */
#ifndef IMPACTSWEEP_RUN_H
#define IMPACTSWEEP_RUN_H

#include <mpi.h>
#include <stdint.h>

#include "error.h"
#include "job.h"
#include "sched.h"

/* From this many points on, the run says when it starts each phase before the computing
 * (the grid's check, creating the file, the resume's check of the checksums), which take
 * seconds there. */
#define IS_RUN_PHASE_NOTE_POINTS UINT64_C(1000000)

typedef struct is_run_options {
    int resume;        /* continue the existing file (start afresh if there is none) */
    int overwrite;     /* replace an existing file (only once the new one is complete) */
    int live_progress; /* 1 bar, 0 lines, IS_PROGRESS_AUTO, IS_PROGRESS_QUIET (progress.h) */
} is_run_options;

typedef struct is_run_summary {
    is_sched_result sched;
    uint64_t tally[IS_POINT_STATUS_COUNT]; /* rank 0: the file's points by status at the end */
    uint64_t counts[3];  /* rank 0: done, failed, pending in the file at the end */
    int resumed;         /* an existing file was continued */
    double create_seconds, scan_seconds; /* building the file; the resume scan */
    double verify_seconds; /* of the resume scan: checking the file's checksums */
    uint64_t verified;   /* resumed: the stored points whose checksums were checked */
    char verification[4096]; /* rank 0: the self-verification summary (verify_run.h) */
    uint64_t verify_beyond;  /* rank 0: checked points with an output beyond the tolerance */
} is_run_summary;

/* Checks, before anything is touched, that the job's output can be written: an existing
 * path must be a regular file (not a symlink, with --overwrite), must not be the job file
 * itself, its directory must exist and be writable, and its name must leave room for the
 * .partial and .lock files beside it. Any process. */
is_code is_run_check_output(const is_job *job, const char *job_path, int overwrite,
                            is_error *err);

/* Collective. Every rank returns the same code: IS_OK when the file is complete,
 * IS_INTERRUPTED when a signal stopped the run (the file is resumable; in any phase,
 * within seconds), or the first error (reported in err on every rank). A resumed file is
 * first checked against its checksums and its coordinates against the job: damage is
 * IS_DAMAGED, and nothing is written. */
is_code is_run(const is_job *job, const char *job_path, const is_run_options *options,
               MPI_Comm comm, is_run_summary *summary, is_error *err);

#endif
