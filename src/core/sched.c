/* sched.c: master/worker scheduling over MPI (protocol in sched.h).
 *
 * Messages are four uint64 each. A worker sends REQUEST (points done and failed since
 * its last message), gets ASSIGN (first, count; count 0 means stop), and ends with
 * FINAL (its last counts and flags). It sends its next REQUEST before it starts
 * computing a unit, so it holds one reply in reserve. */
#include "sched.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "progress.h"
#include "signals.h"

enum { TAG_REQUEST = 1, TAG_ASSIGN = 2, TAG_FINAL = 3 };
enum { FLAG_INTERRUPTED = 1, FLAG_ERROR = 2 };
enum { MSG_LEN = 4 };

/* Rank 0 computes its own units in pieces of this fraction of a unit, serving
 * requests in between, so that no worker waits long for its next unit. */
#define MASTER_PIECES 8

static double now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static is_code mpi_check(int rc, const char *what, is_error *err)
{
    if (rc == MPI_SUCCESS)
        return IS_OK;
    char text[MPI_MAX_ERROR_STRING];
    int len = 0;
    MPI_Error_string(rc, text, &len);
    return is_error_set(err, IS_MPI, "%s: %s", what, text);
}

uint64_t is_sched_auto_unit_size(uint64_t pending, int ranks)
{
    uint64_t per = pending / ((uint64_t)(ranks > 0 ? ranks : 1) * 16);
    return per < 1 ? 1 : per > 1024 ? 1024 : per;
}

/* --- computing a block ----------------------------------------------------------- */

typedef struct compute {
    const is_job *job;
    is_results *results;
    void *workspace;
    double *points, *outputs;
    uint8_t *status;
    uint64_t capacity;
} compute;

static is_code compute_init(compute *c, const is_job *job, is_results *results,
                            uint64_t capacity, is_error *err)
{
    memset(c, 0, sizeof *c);
    c->job = job;
    c->results = results;
    c->capacity = capacity;
    const is_model *model = job->model;
    c->points = malloc(capacity * model->param_count * sizeof *c->points);
    c->outputs = malloc(capacity * (model->output_count ? model->output_count : 1) *
                        sizeof *c->outputs);
    c->status = malloc(capacity);
    if (!c->points || !c->outputs || !c->status)
        return is_error_set(err, IS_NOMEM, "cannot allocate buffers for %llu points",
                            (unsigned long long)capacity);
    if (model->workspace_create)
        return model->workspace_create(&c->workspace, err);
    return IS_OK;
}

static void compute_free(compute *c)
{
    if (c->job && c->job->model->workspace_free && c->workspace)
        c->job->model->workspace_free(c->workspace);
    free(c->points);
    free(c->outputs);
    free(c->status);
}

static is_code compute_block(compute *c, uint64_t first, uint64_t count, uint64_t *done,
                             uint64_t *failed, is_error *err)
{
    const is_model *model = c->job->model;
    for (uint64_t i = 0; i < count; i++)
        is_grid_point(&c->job->grid, first + i, c->points + i * model->param_count);
    for (uint64_t i = 0; i < count * model->output_count; i++)
        c->outputs[i] = NAN;
    is_code rc = model->eval_batch(c->workspace, c->points, count, c->outputs, c->status, err);
    if (rc != IS_OK)
        return rc;
    rc = is_results_write(c->results, first, count, c->outputs, c->status, err);
    if (rc != IS_OK)
        return rc;
    for (uint64_t i = 0; i < count; i++) {
        *done += c->status[i] == IS_POINT_DONE;
        *failed += c->status[i] != IS_POINT_DONE;
    }
    return IS_OK;
}

/* --- the units of work (rank 0) ---------------------------------------------------- */

typedef struct unit_source {
    const uint8_t *status; /* NULL: every point is pending */
    uint64_t next, total, unit;
} unit_source;

static int next_unit(unit_source *s, uint64_t *first, uint64_t *count)
{
    while (s->next < s->total && s->status && s->status[s->next] != IS_POINT_PENDING)
        s->next++;
    if (s->next >= s->total)
        return 0;
    *first = s->next;
    while (s->next < s->total && s->next - *first < s->unit &&
           (!s->status || s->status[s->next] == IS_POINT_PENDING))
        s->next++;
    *count = s->next - *first;
    return 1;
}

/* --- rank 0 ------------------------------------------------------------------------ */

typedef struct master {
    MPI_Comm comm;
    unit_source units;
    int workers, finished;
    int stop;       /* no more units are handed out */
    int exhausted;  /* the units have run out */
    is_progress progress;
    is_sched_result *result;
} master;

static void master_note_stop(master *m)
{
    int signo = is_signals_pending();
    if (signo && !m->result->stop_signal) {
        m->result->stop_signal = signo;
        m->stop = 1;
    }
}

/* Answers every message that has arrived. */
static is_code master_serve(master *m, is_error *err)
{
    for (;;) {
        int flag = 0;
        MPI_Status st;
        is_code rc = mpi_check(MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, m->comm, &flag, &st),
                               "probing for requests", err);
        if (rc != IS_OK || !flag)
            return rc;
        uint64_t msg[MSG_LEN];
        rc = mpi_check(MPI_Recv(msg, MSG_LEN, MPI_UINT64_T, st.MPI_SOURCE, st.MPI_TAG, m->comm,
                                MPI_STATUS_IGNORE),
                       "receiving a request", err);
        if (rc != IS_OK)
            return rc;
        m->result->done += msg[0];
        m->result->failed += msg[1];
        is_progress_add(&m->progress, msg[0], msg[1], now_seconds());
        if (st.MPI_TAG == TAG_FINAL) {
            m->finished++;
            if (msg[2] & FLAG_ERROR)
                m->result->rank_errors++;
            if (msg[2] & (FLAG_ERROR | FLAG_INTERRUPTED))
                m->stop = 1;
            if ((msg[2] & FLAG_INTERRUPTED) && !m->result->stop_signal)
                m->result->stop_signal = (int)msg[3]; /* only a worker saw the signal */
            continue;
        }
        uint64_t reply[MSG_LEN] = {0, 0, 0, 0};
        master_note_stop(m);
        if (!m->stop && !m->exhausted && !next_unit(&m->units, &reply[0], &reply[1]))
            m->exhausted = 1;
        rc = mpi_check(MPI_Send(reply, MSG_LEN, MPI_UINT64_T, st.MPI_SOURCE, TAG_ASSIGN, m->comm),
                       "assigning a unit", err);
        if (rc != IS_OK)
            return rc;
    }
}

static is_code master_run(master *m, compute *c, int computes, is_error *err)
{
    is_code rc = IS_OK;
    while (rc == IS_OK) {
        rc = master_serve(m, err);
        master_note_stop(m);
        if (rc != IS_OK)
            break;
        if (m->finished == m->workers && (m->stop || m->exhausted || !computes))
            break;
        uint64_t first, count;
        if (computes && !m->stop && !m->exhausted && next_unit(&m->units, &first, &count)) {
            /* alone, rank 0 has nobody to serve: whole units batch best */
            uint64_t piece = m->workers ? (count + MASTER_PIECES - 1) / MASTER_PIECES : count;
            for (uint64_t at = first; at < first + count && rc == IS_OK;) {
                uint64_t n = first + count - at < piece ? first + count - at : piece;
                uint64_t done = 0, failed = 0;
                rc = compute_block(c, at, n, &done, &failed, err);
                m->result->done += done;
                m->result->failed += failed;
                is_progress_add(&m->progress, done, failed, now_seconds());
                at += n;
                if (rc == IS_OK)
                    rc = master_serve(m, err);
                master_note_stop(m);
                if (m->stop)
                    break; /* the rest of this unit stays pending */
            }
        } else if (computes && !m->exhausted && !m->stop) {
            m->exhausted = 1;
        } else {
            struct timespec pause = {0, 1000000}; /* idle: only serving */
            nanosleep(&pause, NULL);
            is_progress_add(&m->progress, 0, 0, now_seconds());
        }
    }
    if (rc != IS_OK) {
        /* Keep answering "stop" so that the workers finish and the file closes. */
        m->stop = 1;
        is_error ignored;
        while (m->finished < m->workers && master_serve(m, &ignored) == IS_OK) {
            struct timespec pause = {0, 1000000};
            nanosleep(&pause, NULL);
        }
    }
    is_progress_finish(&m->progress, now_seconds());
    return rc;
}

/* --- workers --------------------------------------------------------------------- */

static is_code worker_run(MPI_Comm comm, compute *c, is_error *err)
{
    uint64_t report[MSG_LEN] = {0, 0, 0, 0}, unit[MSG_LEN];
    is_code rc = mpi_check(MPI_Send(report, MSG_LEN, MPI_UINT64_T, 0, TAG_REQUEST, comm),
                           "requesting work", err);
    if (rc == IS_OK)
        rc = mpi_check(MPI_Recv(unit, MSG_LEN, MPI_UINT64_T, 0, TAG_ASSIGN, comm,
                                MPI_STATUS_IGNORE),
                       "receiving work", err);
    is_code work_rc = IS_OK;
    while (rc == IS_OK && unit[1] > 0) {
        rc = mpi_check(MPI_Send(report, MSG_LEN, MPI_UINT64_T, 0, TAG_REQUEST, comm),
                       "requesting work", err);
        if (rc != IS_OK)
            break;
        report[0] = report[1] = 0;
        work_rc = compute_block(c, unit[0], unit[1], &report[0], &report[1], err);
        rc = mpi_check(MPI_Recv(unit, MSG_LEN, MPI_UINT64_T, 0, TAG_ASSIGN, comm,
                                MPI_STATUS_IGNORE),
                       "receiving work", err);
        if (work_rc != IS_OK || is_signals_pending())
            break; /* a unit received but not started stays pending */
    }
    report[2] = (work_rc != IS_OK ? FLAG_ERROR : 0) | (is_signals_pending() ? FLAG_INTERRUPTED : 0);
    report[3] = (uint64_t)is_signals_pending();
    if (rc == IS_OK)
        rc = mpi_check(MPI_Send(report, MSG_LEN, MPI_UINT64_T, 0, TAG_FINAL, comm),
                       "reporting the end", err);
    return work_rc != IS_OK ? work_rc : rc;
}

/* --- both ------------------------------------------------------------------------ */

is_code is_sched_run(const is_job *job, MPI_Comm world, is_results *results,
                     const is_sched_options *options, is_sched_result *result, is_error *err)
{
    memset(result, 0, sizeof *result);
    double started = now_seconds();
    MPI_Comm comm;
    is_code rc = mpi_check(MPI_Comm_dup(world, &comm), "duplicating the communicator", err);
    if (rc != IS_OK)
        return rc;
    MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);

    uint64_t unit = 0;
    if (rank == 0) {
        uint64_t pending = job->piece_last - job->piece_first - options->done_before;
        unit = job->unit_size ? job->unit_size : is_sched_auto_unit_size(pending, size);
    }
    rc = mpi_check(MPI_Bcast(&unit, 1, MPI_UINT64_T, 0, comm), "sharing the unit size", err);
    result->unit_size = unit;

    compute c;
    memset(&c, 0, sizeof c);
    is_code init_rc = rc == IS_OK ? compute_init(&c, job, results, unit, err) : rc;
    if (init_rc != IS_OK && rc == IS_OK)
        rc = init_rc;
    if (rank == 0) {
        master m = {.comm = comm, .workers = size - 1, .result = result};
        m.units = (unit_source){options->resume_status, job->piece_first, job->piece_last, unit};
        is_progress_init(&m.progress, stderr, options->live_progress, job->progress_interval,
                         job->piece_last - job->piece_first, options->done_before, started);
        int computes = job->master_computes || size == 1;
        if (rc != IS_OK) { /* cannot compute: still serve "stop" so the workers can end */
            m.stop = 1;
            computes = 0;
        }
        is_code run_rc = master_run(&m, &c, computes, err);
        if (rc == IS_OK)
            rc = run_rc;
    } else if (rc == IS_OK) {
        rc = worker_run(comm, &c, err);
    } else {
        /* Tell rank 0 we are out, so it does not wait for us. */
        uint64_t report[MSG_LEN] = {0, 0, FLAG_ERROR, 0}, unit_msg[MSG_LEN];
        MPI_Send(report, MSG_LEN, MPI_UINT64_T, 0, TAG_REQUEST, comm);
        MPI_Recv(unit_msg, MSG_LEN, MPI_UINT64_T, 0, TAG_ASSIGN, comm, MPI_STATUS_IGNORE);
        MPI_Send(report, MSG_LEN, MPI_UINT64_T, 0, TAG_FINAL, comm);
    }
    compute_free(&c);
    MPI_Comm_free(&comm);
    result->seconds = now_seconds() - started;
    return rc;
}
