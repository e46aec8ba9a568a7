/* run.c: the phases of a run (see run.h); the only place that sequences them. */
#include "run.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "provenance.h"
#include "results.h"

/* Rank 0's code and message reach every rank, so all ranks return the same. */
static is_code agree(is_code rc, MPI_Comm comm, is_error *err)
{
    int rank;
    MPI_Comm_rank(comm, &rank);
    int code = (int)rc;
    MPI_Bcast(&code, 1, MPI_INT, 0, comm);
    if (rank != 0 && code != IS_OK && rc == IS_OK)
        is_error_set(err, (is_code)code, "rank 0 reported: %s", is_code_text((is_code)code));
    return (is_code)code;
}

/* The worst of all ranks' codes, so that one rank's failure is everyone's. */
static is_code worst(is_code rc, MPI_Comm comm)
{
    int mine = rc == IS_OK ? 0 : (int)rc, any = 0;
    MPI_Allreduce(&mine, &any, 1, MPI_INT, MPI_MAX, comm);
    return (is_code)any;
}

is_code is_run(const is_job *job, const is_run_options *options, MPI_Comm comm,
               is_run_summary *summary, is_error *err)
{
    memset(summary, 0, sizeof *summary);
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    is_provenance prov;
    is_provenance_collect(&prov, size);

    uint8_t *status = NULL;
    uint64_t done_before = 0;
    is_code rc = IS_OK;
    if (rank == 0) {
        if (options->resume && access(job->output, F_OK) == 0) {
            rc = is_results_resume(job, &prov, &status, err);
            for (uint64_t i = job->piece_first; rc == IS_OK && i < job->piece_last; i++)
                done_before += status[i] != IS_POINT_PENDING;
            summary->resumed = rc == IS_OK;
        } else {
            rc = is_results_create(job, &prov, options->overwrite, err);
        }
    }
    rc = agree(rc, comm, err);
    if (rc != IS_OK) {
        free(status);
        return rc;
    }

    is_results *results = NULL;
    rc = worst(is_results_open(job, comm, &results, err), comm);
    if (rc != IS_OK) {
        is_results_close(&results, NULL);
        free(status);
        return rc;
    }
    is_sched_options sched_options = {status, done_before, options->live_progress};
    is_code sched_rc = is_sched_run(job, comm, results, &sched_options, &summary->sched, err);
    is_code close_rc = is_results_close(&results, err);
    free(status);
    rc = worst(sched_rc != IS_OK ? sched_rc : close_rc, comm);

    is_code finish_rc = IS_OK;
    if (rank == 0) {
        int stopped = summary->sched.stop_signal != 0;
        const char *state = rc != IS_OK || summary->sched.rank_errors ? "failed"
                            : stopped                                 ? "interrupted"
                                                                      : "complete";
        is_error finish_err;
        finish_rc = is_results_finish(job, &prov, state, summary->counts, &finish_err);
        if (finish_rc != IS_OK && rc == IS_OK)
            *err = finish_err;
        if (rc == IS_OK && finish_rc == IS_OK && summary->sched.rank_errors)
            rc = is_error_set(err, IS_MODEL, "%d rank(s) stopped on errors (see above); "
                              "the file is resumable", summary->sched.rank_errors);
        else if (rc == IS_OK && finish_rc == IS_OK && stopped)
            rc = is_error_set(err, IS_INTERRUPTED,
                              "stopped by signal %d; %llu points stored, %llu pending: "
                              "continue with --resume",
                              summary->sched.stop_signal, (unsigned long long)summary->counts[0],
                              (unsigned long long)summary->counts[2]);
        if (rc == IS_OK)
            rc = finish_rc;
        if (rc == IS_OK && summary->counts[2] > 0)
            rc = is_error_set(err, IS_INTERNAL, "the schedule ended with %llu points pending; "
                              "continue with --resume",
                              (unsigned long long)summary->counts[2]);
    }
    return agree(rc, comm, err);
}
