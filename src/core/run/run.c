/* run.c: the phases of a run (see run.h); the only place that sequences them. */
#include "run.h"

#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "collective.h"
#include "engine.h"
#include "lock.h"
#include "pending.h"
#include "progress.h"
#include "provenance.h"
#include "refine.h"
#include "results.h"
#include "stop.h"
#include "verification.h"
#include "verify.h"
#include "verify_run.h"
#include "numtext.h"
#include "tolerance.h"

/* Room the longest sibling name needs beyond the result file's own: ".partial", and
 * ".lock.N" once a stale lock was taken over (lock.c). */
#define SIBLING_SUFFIX 16

static double now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

is_code is_run_check_output(const is_job *job, const char *job_path, int overwrite,
                            is_error *err)
{
    const char *path = job->output, *where = job->output_origin;
    char *copy = strdup(path);
    if (!copy)
        return is_error_set(err, IS_NOMEM, "out of memory");
    char *dir = dirname(copy);
    const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
    long name_max = pathconf(dir, _PC_NAME_MAX);
    if (name_max <= 0)
        name_max = 255;
    is_code rc = IS_OK;
    struct stat st, job_st;
    if (!*base)
        rc = is_error_set(err, IS_JOB, "%s: '%s' names a directory, not a file", where, path);
    else if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode))
        rc = is_error_set(err, IS_JOB, "%s: the directory of '%s' does not exist", where, path);
    else if (access(dir, W_OK | X_OK) != 0)
        rc = is_error_set(err, IS_JOB, "%s: cannot write in the directory of '%s': %s", where,
                          path, strerror(errno));
    else if ((long)strlen(base) + SIBLING_SUFFIX > name_max)
        rc = is_error_set(err, IS_JOB,
                          "%s: the file name is %zu characters long; at most %ld here (the "
                          "file system allows %ld, and NAME.partial and NAME.lock go beside "
                          "it)",
                          where, strlen(base), name_max - SIBLING_SUFFIX, name_max);
    else if (strlen(path) + SIBLING_SUFFIX >= PATH_MAX)
        rc = is_error_set(err, IS_JOB, "%s: the path is %zu characters long; at most %d",
                          where, strlen(path), PATH_MAX - SIBLING_SUFFIX - 1);
    else if (lstat(path, &st) == 0) {
        if (overwrite && !S_ISREG(st.st_mode))
            rc = is_error_set(err, IS_JOB,
                              "%s: '%s' is not a regular file (%s); --overwrite replaces "
                              "only result files",
                              where, path,
                              S_ISLNK(st.st_mode)   ? "a symbolic link"
                              : S_ISDIR(st.st_mode) ? "a directory"
                                                    : "a device, pipe or socket");
        else if (!overwrite && stat(path, &st) == 0 && !S_ISREG(st.st_mode))
            rc = is_error_set(err, IS_JOB, "%s: '%s' is not a regular file", where, path);
        else if (job_path && stat(job_path, &job_st) == 0 && stat(path, &st) == 0 &&
                 st.st_dev == job_st.st_dev && st.st_ino == job_st.st_ino)
            rc = is_error_set(err, IS_JOB, "%s: '%s' is the job file itself", where, path);
    }
    free(copy);
    return rc;
}

static void format_line(char *line, size_t size, const char *what, const is_provenance *prov)
{
    snprintf(line, size, "%s %s by impactsweep %s (%s) on %s, %d ranks%s%s", prov->start_time,
             what, prov->engine_version, prov->git_commit, prov->host, prov->ranks,
             *prov->slurm ? ", " : "", prov->slurm);
}

/* Whether rank 0 says when a phase before the computing starts. */
static int phase_notes(const is_job *job, const is_run_options *options)
{
    return options->live_progress != IS_PROGRESS_QUIET &&
           job->piece_last - job->piece_first >= IS_RUN_PHASE_NOTE_POINTS;
}

/* Collective: "; model M V, library sha256 NOW" for a resume's log line, and
 * the file's own library checksum where a rebuild of the same version and tables now
 * continues it (is_results_check let it). */
static void library_note(const is_job *job, is_results *results, char *text, size_t size)
{
    char first[80];
    is_results_attribute(results, "model_library_sha256", first, sizeof first);
    int rebuilt = strcmp(first, job->model_sha256) != 0;
    snprintf(text, size, "; model %s %s, library sha256 %s%s%s%s", job->model->name,
             job->model->version ? job->model->version : "(no version)", job->model_sha256,
             rebuilt ? " (rebuilt: the file began with sha256 " : "", rebuilt ? first : "",
             rebuilt ? "; the same declared version and tables)" : "");
}

/* Rank 0 decides whether to continue an existing file; then the file exists (created
 * if need be) and belongs to the job. Collective. */
static is_code prepare_file(const is_job *job, const is_run_options *options,
                            const is_provenance *prov, is_lock *lock, MPI_Comm comm,
                            int *resumed, is_error *err)
{
    int rank;
    MPI_Comm_rank(comm, &rank);
    int exists = rank == 0 && access(job->output, F_OK) == 0;
    MPI_Bcast(&exists, 1, MPI_INT, 0, comm);
    is_code rc = IS_OK;
    *resumed = exists && options->resume;
    char *partial = is_results_partial_path(job->output);
    if (!partial)
        rc = is_error_set(err, IS_NOMEM, "out of memory");
    else if (exists && !options->resume && !options->overwrite)
        rc = is_error_set(err, IS_EXISTS,
                          "%s: %s exists; use --resume to continue it or --overwrite to "
                          "replace it",
                          job->output_origin, job->output);
    else if (*resumed && rank == 0)
        rc = is_results_check(job, job->output, err);
    else if (rank == 0) /* a new file: will it fit? (exit status 2, nothing touched) */
        rc = is_results_check_space(job, job->output, err);
    /* a .partial is left by a run that died building the file, or between publishing it
     * and removing the name (then a second link to the file): we hold the lock */
    if (rc == IS_OK && rank == 0)
        unlink(partial);
    rc = is_collective_share(rc, 0, comm, err);
    if (rc != IS_OK || *resumed) {
        free(partial);
        return rc;
    }
    char line[1024];
    format_line(line, sizeof line, "created", prov);
    if (rank == 0 && phase_notes(job, options))
        fprintf(stderr, "impactsweep: creating %s (%.3g GB)\n", job->output,
                (double)is_results_size(job) / 1e9);
    if (rc == IS_OK)
        rc = is_results_build(job, prov, partial, line, comm, err);
    if (rc == IS_OK && rank == 0) /* the new file is locked before it has its name */
        rc = is_lock_adopt(lock, partial, err);
    if (rc == IS_OK && rank == 0)
        rc = is_results_publish(partial, job->output, options->overwrite, err);
    rc = is_collective_share(rc, 0, comm, err);
    if (rc != IS_OK && rank == 0 && partial)
        unlink(partial);
    free(partial);
    return rc;
}

/* Collective, before anything is written into a resumed file: its checksums, and its
 * coordinates against the job. */
static is_code verify_resumed(const is_job *job, const is_run_options *options,
                              is_results *results, MPI_Comm comm, is_run_summary *summary,
                              is_error *err)
{
    int rank;
    MPI_Comm_rank(comm, &rank);
    if (rank == 0 && phase_notes(job, options))
        fprintf(stderr, "impactsweep: checking %s against its checksums (%llu points)\n",
                job->output, (unsigned long long)(job->piece_last - job->piece_first));
    double started = now_seconds();
    is_stop *stop = NULL;
    is_code rc = is_stop_begin(comm, &stop, err);
    if (rc == IS_OK)
        rc = is_verify_file(results, job, comm, stop, &summary->verified, err);
    rc = is_stop_end(&stop, rc, "the check of the file's checksums (nothing was written)", err);
    summary->verify_seconds = now_seconds() - started;
    return rc;
}

/* Rank 0: the state and log line that close the run. */
static is_code record_end(is_results *results, is_code rc, is_run_summary *summary,
                          is_error *err)
{
    const is_sched_result *s = &summary->sched;
    uint64_t computed = 0;
    for (int i = 0; i < IS_POINT_STATUS_COUNT; i++) {
        summary->tally[i] += s->tally[i];
        computed += s->tally[i];
    }
    summary->tally[IS_POINT_PENDING] -= computed;
    computed -= s->tally[IS_POINT_INFERRED]; /* a refined sweep's last pass */
    uint64_t failed = 0;
    for (int i = 0; i < IS_POINT_STATUS_COUNT; i++)
        failed += is_point_failed(i) ? summary->tally[i] : 0;
    summary->counts[0] = summary->tally[IS_POINT_DONE];
    summary->counts[1] = failed;
    summary->counts[2] = summary->tally[IS_POINT_PENDING];
    const char *state = rc == IS_INTERRUPTED                 ? "interrupted"
                        : rc != IS_OK || s->rank_errors ? "failed"
                        : s->stop_signal             ? "interrupted"
                        : summary->counts[2]         ? "incomplete"
                                                     : "complete";
    char now[32], line[IS_RESULTS_LOG_LINE];
    is_provenance_now(now, sizeof now);
    char inferred[64] = "";
    if (summary->tally[IS_POINT_INFERRED])
        snprintf(inferred, sizeof inferred, ", %llu inferred",
                 (unsigned long long)summary->tally[IS_POINT_INFERRED]);
    snprintf(line, sizeof line,
             "%s %s: %llu done, %llu failed, %llu pending%s; this run computed %llu points in "
             "%.1f s",
             now, state, (unsigned long long)summary->counts[0], (unsigned long long)failed,
             (unsigned long long)summary->counts[2], inferred, (unsigned long long)computed,
             s->seconds);
    /* the state first: it is what --resume and info trust; the log line is history */
    is_code rc_state = is_results_set_state(results, state, summary->tally, 1, err);
    return rc_state == IS_OK ? is_results_log(results, line, err) : rc_state;
}

/* On rank 0 after the schedule (which ended with rc): the end recorded in the file, and
 * what stopped a run short of its points, as the run's error. */
static is_code end_of_run(is_results *results, is_code rc, is_run_summary *summary,
                          is_error *err)
{
    is_error end_err;
    is_code end_rc = record_end(results, rc, summary, &end_err);
    if (rc == IS_OK && end_rc != IS_OK) {
        *err = end_err;
        return end_rc;
    }
    if (rc != IS_OK)
        return rc;
    if (summary->sched.rank_errors)
        return is_error_set(err, IS_MODEL,
                            "%d rank(s) stopped on errors (see above); the file is resumable",
                            summary->sched.rank_errors);
    if (summary->sched.stop_signal)
        return is_error_set(err, IS_INTERRUPTED,
                            "stopped by signal %d; %llu points stored, %llu pending: continue "
                            "with --resume",
                            summary->sched.stop_signal, (unsigned long long)summary->counts[0],
                            (unsigned long long)summary->counts[2]);
    if (summary->counts[2] > 0)
        return is_error_set(err, IS_INTERNAL,
                            "the schedule ended with %llu points pending; continue with "
                            "--resume",
                            (unsigned long long)summary->counts[2]);
    return IS_OK;
}

/* The file's self-verification records (verification.h), where it has them; a job that
 * asks for other ones than the file holds is told that the file's are kept. */
static is_code open_verification(const is_job *job, is_results *results, is_verification **v,
                                 is_error *err)
{
    is_code rc = is_verification_open(results, v, err);
    uint64_t asked = is_verification_stride(job->verify_fraction);
    uint64_t holds = *v ? is_verification_stride_of(*v) : 0;
    if (rc == IS_OK && *job->verify_origin && asked != holds && is_tolerance_model(job->model))
        fprintf(stderr,
                "impactsweep: %s: [sweep] verify = %s, but %s was made with %s: the file's "
                "sample is kept\n",
                job->verify_origin, IS_NUM(job->verify_fraction), job->output,
                holds ? "another verify" : "verify = 0");
    return rc;
}

/* Rank 0, at the end: the verification summary, from the whole file (a resume's records
 * and this run's alike). */
static is_code describe_verification(const is_job *job, is_results *results,
                                     is_run_summary *summary, is_error *err)
{
    char *text = NULL;
    is_code rc = is_verify_run_describe(results, job->model, &text, &summary->verify_beyond, err);
    snprintf(summary->verification, sizeof summary->verification, "%s", text ? text : "");
    free(text);
    return rc;
}

is_code is_run(const is_job *job, const char *job_path, const is_run_options *options,
               MPI_Comm comm, is_run_summary *summary, is_error *err)
{
    memset(summary, 0, sizeof *summary);
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    is_provenance prov;
    is_provenance_collect(&prov, size);
    is_provenance_gather_hosts(&prov, comm);

    is_lock *lock = NULL;
    is_code rc = IS_OK;
    if (rank == 0) {
        rc = is_run_check_output(job, job_path, options->overwrite, err);
        if (rc == IS_OK)
            rc = is_lock_acquire(job->output, &lock, err);
    }
    rc = is_collective_share(rc, 0, comm, err);
    double started = now_seconds();
    int resumed = 0;
    if (rc == IS_OK)
        rc = prepare_file(job, options, &prov, lock, comm, &resumed, err);
    summary->resumed = resumed;
    summary->create_seconds = resumed ? 0 : now_seconds() - started;

    is_results *results = NULL;
    if (rc == IS_OK)
        rc = is_collective_agree(is_results_open(job->output, comm, IS_RESULTS_WRITE, &results,
                                                 err),
                                 comm, err);
    is_pending_map map = {0};
    uint64_t points = job->piece_last - job->piece_first;
    if (rc == IS_OK && resumed) {
        started = now_seconds();
        rc = verify_resumed(job, options, results, comm, summary, err);
        if (rc == IS_OK)
            rc = is_pending_scan(results, comm, &map, summary->tally, err);
        summary->scan_seconds = now_seconds() - started;
    } else {
        summary->tally[IS_POINT_PENDING] = points;
    }
    char library[IS_RESULTS_LOG_LINE] = "";
    if (rc == IS_OK && resumed && job->model_library)
        library_note(job, results, library, sizeof library);
    if (rc == IS_OK && rank == 0) {
        char line[1024];
        format_line(line, sizeof line, "resumed", &prov);
        snprintf(line + strlen(line), sizeof line - strlen(line), "%s", library);
        if (resumed)
            rc = is_results_log(results, line, err);
        if (rc == IS_OK)
            rc = is_results_set_state(results, "running", summary->tally, 0, err);
    }
    rc = is_collective_share(rc, 0, comm, err);

    is_verification *verification = NULL; /* self-verification's records, every rank */
    if (rc == IS_OK)
        rc = is_collective_agree(open_verification(job, results, &verification, err), comm, err);
    if (rc == IS_OK) {
        is_sched_options sched = {resumed, &map, summary->tally[IS_POINT_PENDING], points,
                                  options->live_progress, NULL, NULL, verification};
        is_code sched_rc = job->refine_levels /* coarse to fine, pass by pass */
                               ? is_refine_run(job, comm, results, &sched, &summary->sched, err)
                               : is_sched_run(job, comm, results, &sched, &summary->sched, err);
        rc = is_collective_agree(sched_rc, comm, err);
        if (rank == 0)
            rc = end_of_run(results, rc, summary, err);
        if (rank == 0 && rc == IS_OK)
            rc = describe_verification(job, results, summary, err);
        rc = is_collective_share(rc, 0, comm, err);
    }
    is_verification_close(&verification);
    is_pending_free(&map);
    is_error close_err;
    is_code close_rc = results ? is_results_close(&results, &close_err) : IS_OK;
    close_rc = is_collective_agree(close_rc, comm, &close_err);
    if (rc == IS_OK && close_rc != IS_OK) {
        rc = close_rc;
        *err = close_err;
    }
    if (rank == 0)
        is_lock_release(&lock);
    /* no rank leaves before the lock is gone: mpirun kills the others as soon as one
     * exits with a non-zero status (75 after a stop) */
    MPI_Barrier(comm);
    return rc;
}
