/* sched.c: master/worker scheduling over MPI (protocol and policy in sched.h).
 *
 * Messages are MSG_LEN uint64 each. A worker sends REQUEST (a report: points computed
 * since its last message, by status, and their compute time), gets ASSIGN (first,
 * count; count 0 means there is no more work), and ends with FINAL (its last report
 * and flags), after which it receives until BYE, consuming a STOP that rank 0 may have
 * sent it meanwhile (MPI keeps the order of two messages from one sender, so STOP is
 * never left behind). A worker sends its next REQUEST before it starts computing a
 * unit, so it holds one reply in reserve. A failed point's reason text that a worker has
 * not met before goes to rank 0 (REASON, IS_RESULTS_REASON_TEXT characters), which
 * interns it into the file and answers with its code (CODE, one uint64): the worker waits
 * for it, once per distinct text (its cache keeps the codes), since the point's record
 * names the code. Rank 0 answers REASON until every worker has said FINAL. */
#include "sched.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "engine.h"
#include "evaluator.h"
#include "numtext.h"
#include "progress.h"
#include "reason_table.h"
#include "signals.h"
#include "units.h"
#include "verify_run.h"

enum { TAG_REQUEST = 1, TAG_ASSIGN, TAG_FINAL, TAG_STOP, TAG_BYE, TAG_NOTE, TAG_REASON,
       TAG_CODE };
enum { FLAG_INTERRUPTED = 1, FLAG_ERROR = 2 };
/* a report: points per status, then nanoseconds of computing, flags, the signal seen */
enum { MSG_NANOS = IS_POINT_STATUS_COUNT, MSG_FLAGS, MSG_SIGNAL, MSG_LEN };

/* Buffers hold a multiple of this many points (units.h: unit and region bounds too). */
#define QUANTUM IS_UNITS_QUANTUM
/* A rank's write buffer: its results reach the file in blocks of about this size, or at
 * the end of the first unit that ends FLUSH_SECONDS (at most unit_seconds) after the
 * buffer's first result was computed: a kill loses at most that, and a unit, of a rank's
 * work, while a cheap model's many short units share few large writes. Units of a fixed
 * size (sweep.unit_size) are each written at their end. */
#define FLUSH_BYTES (UINT64_C(16) << 20)
#define FLUSH_SECONDS 1.0
/* Points of one model call at most (bounds the parameter and output scratch). */
#define BATCH_MAX IS_EVALUATOR_RUN_CAPACITY
/* Target duration of a batch: the latency of a stop on a worker; rank 0 uses a shorter
 * one while it has requests to answer. */
#define BATCH_SECONDS 0.25
#define MASTER_BATCH_SECONDS 0.02
/* A rank's units grow at most this much from one to the next. */
#define GROWTH 4
/* Units near the end shrink to no less than this much work a rank, TAIL_SECONDS at most.
 * At the end a worker still holds the unit it asked for in reserve while the others run
 * dry, so small final units matter on few ranks (with a fixed 0.1 s, 2 ranks lost 5 to 7 %
 * of a 1 s run); on many, rank 0 answers every request, and the floor keeps it to about
 * 1000 requests a second. */
#define TAIL_SECONDS 0.1
#define TAIL_SECONDS_PER_RANK 1e-3
/* Points measured before the cost estimate sizes units outright. */
#define TRUSTED_POINTS 64
/* Points the engine failed (a crash, a timeout, a breach of the contract) that a rank
 * names on stderr, and that rank 0 names in the run log, in a run: the tally counts the
 * rest. A note is one run-log line (TAG_NOTE, from a worker to rank 0). */
#define NOTES_PER_RANK 20
#define NOTES_IN_LOG 20

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

double is_sched_unit_seconds(const is_job *job)
{
    double seconds = job->unit_seconds;
    const char *grace = getenv("IMPACTSWEEP_GRACE");
    double g = grace ? atof(grace) : 0.0;
    if (g > 0 && seconds > g / 4)
        seconds = g / 4;
    return seconds > 0.01 ? seconds : 0.01;
}

/* --- computing a unit -------------------------------------------------------------- */

typedef struct compute {
    const is_job *job;
    is_results *results;
    MPI_Comm comm;
    int rank, resumed;
    is_evaluator *evaluator;   /* runs the model (contained or not) and checks its results */
    int borrowed;              /* it is the job's (job->evaluator), not this run's */
    size_t param_count, output_count, value_count; /* value_count: doubles per point */
    double *points;            /* one batch's parameters (the evaluator's room) */
    uint64_t batch_at;         /* the batch being evaluated: its points at .. (or ...) */
    const uint64_t *batch_points; /* ... these, with a filter */
    unsigned notes;            /* failures named on stderr so far */
    is_reason_table *reasons;  /* rank 0: the file's table; a worker: its cache of codes */
    uint8_t *buffer_reason;     /* each buffered point's reason code (0: none) */
    is_code reason_rc;          /* a reason that could not be interned (the run fails) */
    is_error reason_err;
    unsigned *logged;          /* rank 0: notes written into the run log so far */
    uint64_t batch_max, batch;  /* the batch size, adapted to batch_seconds */
    double batch_seconds;
    double *buffer;             /* results of points buffer_first .. + buffered - 1,
                                   model.h's layout with buffer_max points */
    uint8_t *buffer_status;
    uint64_t buffer_max, buffer_first, buffered;
    double buffer_since;        /* when the buffer's first result was computed */
    double flush_seconds;       /* a unit's end writes a buffer this old */
    uint8_t *status;            /* resumed: status of points status_first .. + status_count - 1 */
    const is_pending_filter *filter; /* resumed: which pending points to compute (NULL: all) */
    uint64_t *buffer_index;     /* with a filter: the point of each buffered result (the
                                   points picked are gathered into batches, gaps and all) */
    uint64_t *batch_index;      /* with a filter: the points of one batch */
    uint64_t status_first, status_count;
    uint64_t tally[IS_POINT_STATUS_COUNT]; /* since the last report */
    double seconds;
    is_verify_run *verify;      /* the sampled points' recomputation (NULL: none) */
} compute;

/* Decides, between two batches, whether to stop the unit now (1). */
typedef int (*between_fn)(void *ctx, is_error *err);

/* A note of rank 0's (its own, or a worker's): on the run log, up to NOTES_IN_LOG. */
static void log_note(is_results *results, unsigned *logged, const char *line)
{
    is_error ignored;
    if (*logged < NOTES_IN_LOG)
        is_results_log(results, line, &ignored);
    else if (*logged == NOTES_IN_LOG)
        is_results_log(results, "(further points failed by the engine are not listed: the "
                                "status tally counts them)",
                       &ignored);
    ++*logged;
}

/* The code of a failed point's reason: rank 0 interns it into the file; a worker asks
 * rank 0 for a text it has not met. 0 (none) where that fails, which fails the run. */
static unsigned reason_code(compute *c, const char *text)
{
    unsigned code = is_reason_table_find(c->reasons, text);
    if (code || c->reason_rc != IS_OK)
        return code;
    if (c->rank == 0) {
        c->reason_rc = is_reason_table_intern(c->reasons, text, &code, &c->reason_err);
        return code;
    }
    char row[IS_RESULTS_REASON_TEXT] = "";
    snprintf(row, sizeof row, "%s", text);
    uint64_t answer = 0;
    c->reason_rc = mpi_check(MPI_Send(row, IS_RESULTS_REASON_TEXT, MPI_CHAR, 0, TAG_REASON,
                                      c->comm),
                             "sending a failed point's reason", &c->reason_err);
    if (c->reason_rc == IS_OK)
        c->reason_rc = mpi_check(MPI_Recv(&answer, 1, MPI_UINT64_T, 0, TAG_CODE, c->comm,
                                          MPI_STATUS_IGNORE),
                                 "receiving a reason's code", &c->reason_err);
    if (c->reason_rc == IS_OK && (answer == 0 || answer > IS_RESULTS_REASON_CAPACITY))
        c->reason_rc = is_error_set(&c->reason_err, IS_IO,
                                    "rank 0 could not record a failed point's reason");
    if (c->reason_rc != IS_OK)
        return 0;
    is_reason_table_remember(c->reasons, text, (unsigned)answer);
    return (unsigned)answer;
}

/* The evaluator found a point to fail: its reason's code recorded with the point, and
 * the first few named with grid index and coordinates, on stderr and in the run log
 * (through rank 0). */
static void on_failure(void *context, const double *point, const is_evaluator_failure *f)
{
    compute *c = context;
    const is_job *job = c->job;
    uint64_t at = c->batch_points ? c->batch_points[f->index] : c->batch_at + f->index;
    char line[IS_RESULTS_LOG_LINE];
    int used = snprintf(line, sizeof line, "grid point %llu (",
                        (unsigned long long)(job->piece_first + at));
    for (size_t k = 0; k < job->grid.axis_count && used < (int)sizeof line; k++) {
        const is_param *param = &job->model->params[job->grid.axes[k].param];
        double v = point[job->grid.axes[k].param];
        if (param->type == IS_PARAM_CHOICE)
            used += snprintf(line + used, sizeof line - (size_t)used, "%s%s = %s", k ? ", " : "",
                             param->name, param->choices[(int)v]);
        else
            used += snprintf(line + used, sizeof line - (size_t)used, "%s%s = %s",
                             k ? ", " : "", param->name, IS_NUM(v));
    }
    char status[32];
    snprintf(status, sizeof status, "%s", is_point_status_name(f->status));
    for (char *s = status; *s; s++)
        *s = (char)(*s >= 'A' && *s <= 'Z' ? *s - 'A' + 'a' : *s);
    if (used < (int)sizeof line)
        snprintf(line + used, sizeof line - (size_t)used, "): %s: %s", status, f->reason);
    c->buffer_reason[c->buffered + f->index] = (uint8_t)reason_code(c, f->reason);
    if (c->notes++ < NOTES_PER_RANK) {
        fprintf(stderr, "impactsweep: %s\n", line);
        if (c->rank == 0)
            log_note(c->results, c->logged, line);
        else
            MPI_Send(line, IS_RESULTS_LOG_LINE, MPI_CHAR, 0, TAG_NOTE, c->comm);
    } else if (c->notes == NOTES_PER_RANK + 1) {
        fprintf(stderr, "impactsweep: (further points this rank failed are not listed: the "
                        "status tally counts them)\n");
    }
}

static is_code compute_init(compute *c, const is_job *job, is_results *results, int resumed,
                            double batch_seconds, is_error *err)
{
    const is_model *model = job->model;
    c->job = job;
    c->results = results;
    c->resumed = resumed;
    c->param_count = model->param_count;
    c->output_count = model->output_count;
    c->value_count = is_model_value_count(model);
    uint64_t per_point = 8 * (uint64_t)c->value_count + 1;
    c->buffer_max = FLUSH_BYTES / per_point / QUANTUM * QUANTUM;
    if (c->buffer_max < QUANTUM) /* (long array outputs: fewer points, no more bytes) */
        c->buffer_max = per_point * QUANTUM <= 4 * FLUSH_BYTES ? QUANTUM
                        : FLUSH_BYTES / per_point ? FLUSH_BYTES / per_point : 1;
    c->batch_max = c->buffer_max < BATCH_MAX ? c->buffer_max : BATCH_MAX;
    c->batch = 1; /* the first batch measures the cost of a point */
    c->batch_seconds = batch_seconds;
    size_t outputs = c->value_count ? c->value_count : 1;
    c->buffer = malloc(c->buffer_max * outputs * sizeof *c->buffer);
    c->buffer_status = malloc(c->buffer_max);
    c->buffer_reason = calloc(c->buffer_max, 1);
    c->status = resumed ? malloc(c->buffer_max) : NULL;
    c->reasons = calloc(1, sizeof *c->reasons);
    if (!c->buffer || !c->buffer_status || !c->buffer_reason || (resumed && !c->status) ||
        !c->reasons)
        return is_error_set(err, IS_NOMEM, "cannot allocate the buffers of a rank");
    /* rank 0 reads the table the file has (a resumed file's, a new file's empty one) */
    is_code table_rc = is_reason_table_init(c->reasons, c->rank == 0 ? results : NULL,
                                            c->rank == 0, err);
    if (table_rc != IS_OK) {
        free(c->reasons);
        c->reasons = NULL;
        return table_rc;
    }
    is_evaluator_config config = {.model = model,
                                  .library = job->model_library,
                                  .sha256 = job->model_sha256,
                                  .contained = is_job_contained(job),
                                  .point_timeout = job->point_timeout,
                                  .capacity = c->batch_max,
                                  .stop = is_signals_flag(),
                                  .report = on_failure,
                                  .context = c};
    is_code rc = IS_OK;
    if (job->evaluator && is_evaluator_capacity(job->evaluator) >= c->batch_max) {
        c->evaluator = job->evaluator; /* the process the grid's checks started */
        c->borrowed = 1;
        is_evaluator_bind(c->evaluator, is_signals_flag(), on_failure, c);
    } else {
        rc = is_evaluator_create(&c->evaluator, &config, err);
    }
    c->points = rc == IS_OK ? is_evaluator_points(c->evaluator) : NULL;
    return rc;
}

static void compute_free(compute *c)
{
    if (c->borrowed)
        is_evaluator_bind(c->evaluator, is_signals_flag(), NULL, NULL); /* (the job keeps it) */
    else
        is_evaluator_free(&c->evaluator);
    free(c->buffer);
    free(c->buffer_status);
    free(c->buffer_reason);
    if (c->reasons)
        is_reason_table_free(c->reasons);
    free(c->reasons);
    free(c->status);
    free(c->buffer_index);
    free(c->batch_index);
    is_verify_run_free(&c->verify);
}

static is_code flush(compute *c, is_error *err)
{
    if (c->buffered == 0)
        return IS_OK;
    is_code rc = is_verify_run_flush(c->verify, err); /* before the outputs' flush */
    if (rc == IS_OK && c->reason_rc != IS_OK) /* a reason not recorded: nothing more is */
        rc = is_error_set(err, c->reason_rc, "%s", c->reason_err.message);
    if (rc != IS_OK)
        return rc;
    rc = c->buffer_index
                     ? is_results_write_points(c->results, c->buffer_index, c->buffered,
                                               c->buffer, c->buffer_max, c->buffer_status,
                                               c->buffer_reason, err)
                     : is_results_write(c->results, c->buffer_first, c->buffered, c->buffer,
                                        c->buffer_max, c->buffer_status, c->buffer_reason,
                                        err);
    c->buffered = 0;
    return rc;
}

/* The self-verification of the batch just buffered (verify_run.h): its failures are the
 * verification's, not reported as the batch's points'. */
static is_code verify_batch(compute *c, uint64_t at, uint64_t n, const uint64_t *index,
                            is_error *err)
{
    uint64_t from = c->buffered - n;
    is_evaluator_bind(c->evaluator, is_signals_flag(), NULL, NULL);
    is_code rc = is_verify_run_batch(c->verify, c->evaluator, at, n, index, c->buffer,
                                     c->buffer_max, from, c->buffer_status + from, err);
    is_evaluator_bind(c->evaluator, is_signals_flag(), on_failure, c);
    return rc;
}

/* Evaluates points at .. at + n - 1 (or, given, index[0 .. n - 1]) into the buffer, which
 * must have room and continue at `at` (given an index: have room); adapts the batch size
 * to the time it took. */
static is_code evaluate(compute *c, uint64_t at, uint64_t n, const uint64_t *index,
                        is_error *err)
{
    const is_job *job = c->job;
    for (uint64_t i = 0; i < n; i++)
        is_grid_point(&job->grid, job->piece_first + (index ? index[i] : at + i),
                      c->points + i * c->param_count);
    c->batch_at = at;
    c->batch_points = index;
    memset(c->buffer_reason + c->buffered, 0, n); /* on_failure fills the failed points' */
    const double *outputs;
    const uint8_t *status;
    double started = now_seconds();
    is_code rc = is_evaluator_eval(c->evaluator, n, &outputs, &status, err);
    double took = now_seconds() - started;
    if (rc != IS_OK)
        return rc;
    if (c->buffered == 0) {
        c->buffer_first = at;
        c->buffer_since = started;
    }
    for (size_t o = 0, s = 0; o < c->output_count; o++) { /* (model.h's layout) */
        size_t length = is_output_length(&c->job->model->outputs[o]);
        memcpy(c->buffer + s * c->buffer_max + c->buffered * length, outputs + s * n,
               n * length * sizeof *outputs);
        s += length;
    }
    memcpy(c->buffer_status + c->buffered, status, n);
    if (index)
        memcpy(c->buffer_index + c->buffered, index, n * sizeof *index);
    c->buffered += n;
    for (uint64_t i = 0; i < n; i++) /* (the evaluator keeps statuses in range) */
        c->tally[status[i] < IS_POINT_STATUS_COUNT ? status[i] : IS_POINT_FAILED_CHECK]++;
    if (c->verify && (rc = verify_batch(c, at, n, index, err)) != IS_OK)
        return rc; /* (after the tally: it overwrites the evaluator's arrays) */
    c->seconds += took;
    /* next batch: about batch_seconds, growing at most GROWTH-fold */
    double per_point = took / (double)n;
    double want = per_point > 0 ? c->batch_seconds / per_point : (double)(GROWTH * n);
    uint64_t limit = GROWTH * n < c->batch_max ? GROWTH * n : c->batch_max;
    c->batch = want < 1 ? 1 : want > (double)limit ? limit : (uint64_t)want;
    return IS_OK;
}

/* Is point `at` (inside the status window) to be computed? */
static is_code wanted(compute *c, uint64_t at, int *yes, is_error *err)
{
    *yes = c->status[at - c->status_first] == IS_POINT_PENDING;
    return *yes && c->filter ? c->filter->pick(c->filter->context, at, yes, err) : IS_OK;
}

/* The next run of pending points in [from, end): [*first, *last); 0 when there is none. */
static is_code next_run(compute *c, uint64_t from, uint64_t end, uint64_t *first, uint64_t *last,
                        is_error *err)
{
    if (!c->resumed) {
        *first = from;
        *last = end;
        return IS_OK;
    }
    size_t status_var = is_results_variable_count(c->results) - 1;
    uint64_t at = from;
    *first = *last = end;
    while (at < end) {
        if (at < c->status_first || at >= c->status_first + c->status_count) {
            uint64_t n = end - at < c->buffer_max ? end - at : c->buffer_max;
            is_code rc = is_results_read_raw(c->results, status_var, at, n, c->status, err);
            if (rc != IS_OK)
                return rc;
            c->status_first = at;
            c->status_count = n;
        }
        uint64_t stop = c->status_first + c->status_count;
        int yes = 0;
        is_code rc = IS_OK;
        while (at < stop && (rc = wanted(c, at, &yes, err)) == IS_OK && !yes)
            at++;
        if (rc != IS_OK)
            return rc;
        if (at == stop)
            continue;
        *first = at;
        while (at < stop && (rc = wanted(c, at, &yes, err)) == IS_OK && yes)
            at++;
        *last = at;
        return rc;
    }
    return IS_OK;
}

/* Computes the pending points of first .. first + count - 1, calling between() before
 * each batch; *stopped when it asked to stop (the rest stays pending). Without a filter
 * the results stay in the rank's buffer, written when it is full, when the next point
 * does not continue it, at the end of a unit once it is FLUSH_SECONDS old, or by
 * finish() at the rank's end: a rank's units follow one another (units.h), so a run of
 * them is a few large writes, and a kill loses at most a buffer a rank (pending in the
 * file, recomputed by --resume). With a filter everything
 * computed is written before this returns (its writes span gaps other ranks must not
 * write meanwhile: results.h). */
static is_code compute_unit_picked(compute *c, uint64_t first, uint64_t count,
                                   between_fn between, void *ctx, int *stopped, is_error *err);

static is_code compute_unit(compute *c, uint64_t first, uint64_t count, between_fn between,
                            void *ctx, int *stopped, is_error *err)
{
    if (c->filter)
        return compute_unit_picked(c, first, count, between, ctx, stopped, err);
    *stopped = 0;
    is_code rc = IS_OK;
    uint64_t end = first + count;
    for (uint64_t pos = first; pos < end && rc == IS_OK && !*stopped;) {
        uint64_t run_first, run_last;
        rc = next_run(c, pos, end, &run_first, &run_last, err);
        if (rc != IS_OK || run_first == end)
            break;
        for (uint64_t at = run_first; at < run_last && rc == IS_OK;) {
            if (between && between(ctx, err)) {
                *stopped = 1;
                break;
            }
            if (c->buffered && c->buffer_first + c->buffered != at)
                rc = flush(c, err); /* not contiguous with what is buffered */
            uint64_t room = c->buffer_max - c->buffered, n = run_last - at;
            n = n < c->batch ? n : c->batch;
            n = n < room ? n : room;
            if (rc == IS_OK)
                rc = evaluate(c, at, n, NULL, err);
            at += n;
            if (rc == IS_OK && c->buffered == c->buffer_max)
                rc = flush(c, err);
        }
        pos = run_last;
    }
    if (rc == IS_OK && c->buffered && now_seconds() - c->buffer_since >= c->flush_seconds)
        rc = flush(c, err); /* a costly model's results do not wait for a full buffer */
    return rc;
}

/* The end of a rank's computing: what its buffer holds reaches the file (also after an
 * error rc, whose message it keeps). */
static is_code finish(compute *c, is_code rc, is_error *err)
{
    is_error ignored;
    is_code flush_rc = flush(c, rc != IS_OK ? &ignored : err);
    return rc != IS_OK ? rc : flush_rc;
}

/* compute_unit with a filter: the points it picks, wherever they are in the unit, are
 * gathered into full batches (a pass of a refined sweep picks scattered points). */
static is_code compute_unit_picked(compute *c, uint64_t first, uint64_t count,
                                   between_fn between, void *ctx, int *stopped, is_error *err)
{
    *stopped = 0;
    is_code rc = IS_OK;
    uint64_t end = first + count, pos = first, run_first = end, run_last = end;
    while (rc == IS_OK) {
        uint64_t room = c->buffer_max - c->buffered, want = c->batch < room ? c->batch : room;
        uint64_t n = 0;
        while (n < want && rc == IS_OK) {
            if (run_first >= run_last) { /* the current run is used up */
                if (pos >= end)
                    break;
                rc = next_run(c, pos, end, &run_first, &run_last, err);
                pos = run_last;
                if (rc != IS_OK || run_first == end)
                    break;
            }
            while (n < want && run_first < run_last)
                c->batch_index[n++] = run_first++;
        }
        if (rc != IS_OK || n == 0)
            break;
        if (between && between(ctx, err)) {
            *stopped = 1;
            break;
        }
        rc = evaluate(c, 0, n, c->batch_index, err);
        if (rc == IS_OK && c->buffered == c->buffer_max)
            rc = flush(c, err);
    }
    is_code flush_rc = flush(c, err);
    return rc != IS_OK ? rc : flush_rc;
}

/* Moves c's report into msg (and clears it). */
static void take_report(compute *c, uint64_t *msg)
{
    memset(msg, 0, MSG_LEN * sizeof *msg);
    memcpy(msg, c->tally, sizeof c->tally);
    msg[MSG_NANOS] = (uint64_t)(c->seconds * 1e9);
    memset(c->tally, 0, sizeof c->tally);
    c->seconds = 0;
}

/* --- rank 0 ------------------------------------------------------------------------ */

typedef struct master {
    MPI_Comm comm;
    const is_job *job;
    is_units units;     /* the plan of the work (units.h) */
    int ranks, workers, finished;
    int stop;       /* no more units are handed out */
    int stop_sent;  /* and the workers have been told */
    int exhausted;  /* the units have run out */
    char *ended;    /* per rank: FINAL received */
    uint64_t *last_unit; /* per rank: the size of its last unit */
    double cost_seconds; /* measured: seconds of computing ... */
    double cost_points;  /* ... for this many points */
    double unit_seconds;
    is_progress progress;
    is_sched_result *result;
    is_results *results;
    unsigned logged;     /* notes written into the run log */
    is_reason_table *reasons; /* the file's reasons (rank 0's compute keeps it) */
} master;

static void master_note_stop(master *m)
{
    int signo = is_signals_pending();
    if (signo && !m->result->stop_signal) {
        m->result->stop_signal = signo;
        m->stop = 1;
    }
}

/* The size of the next unit of rank `rank`, in pending points. Until the cost of a point
 * is known (TRUSTED_POINTS measured), GROWTH times the rank's last unit (1 at first);
 * then unit_seconds of work at once (the first units of 10^4 ranks are the only small
 * writes of a run). Near the end, a share of what remains small enough that the ranks
 * finish together, though never less than TAIL_SECONDS_PER_RANK of work a rank (up to
 * TAIL_SECONDS). */
static uint64_t unit_points(master *m, int rank)
{
    if (m->job->unit_size)
        return m->job->unit_size;
    uint64_t last = m->last_unit[rank];
    double size = last ? (double)last * GROWTH : 1.0;
    double tail = ceil((double)m->units.remaining / (2.0 * m->ranks));
    if (m->cost_points > 0 && m->cost_seconds > 0) {
        double per_point = m->cost_seconds / m->cost_points;
        double by_time = m->unit_seconds / per_point;
        double tail_seconds = fmin(fmin(TAIL_SECONDS, TAIL_SECONDS_PER_RANK * m->ranks),
                                   m->unit_seconds);
        double floor = tail_seconds / per_point;
        size = m->cost_points >= TRUSTED_POINTS || size > by_time ? by_time : size;
        tail = tail > floor ? tail : floor;
    }
    size = size < tail ? size : tail;
    uint64_t points = size < 1 ? 1 : size > 1e15 ? (uint64_t)1e15 : (uint64_t)size;
    m->last_unit[rank] = points;
    return points;
}

static void account(master *m, const uint64_t *report, double now)
{
    /* points a model left pending (a stop during a long point) are not computed */
    uint64_t done = report[IS_POINT_DONE], all = 0;
    for (int s = IS_POINT_DONE; s < IS_POINT_STATUS_COUNT; s++) {
        m->result->tally[s] += report[s];
        all += report[s];
    }
    m->result->done += done;
    m->result->failed += all - done;
    m->cost_seconds += 1e-9 * (double)report[MSG_NANOS];
    m->cost_points += (double)all;
    is_progress_add(&m->progress, done, all - done, now);
}

static is_code send_stops(master *m, is_error *err)
{
    is_code rc = IS_OK;
    uint64_t msg[MSG_LEN] = {0};
    for (int w = 1; w < m->ranks && rc == IS_OK; w++)
        if (!m->ended[w])
            rc = mpi_check(MPI_Send(msg, MSG_LEN, MPI_UINT64_T, w, TAG_STOP, m->comm),
                           "telling a rank to stop", err);
    m->stop_sent = 1;
    return rc;
}

/* A worker's reason text: interned into the file, its code sent back (0 when it could not
 * be, which fails the worker's run: its points' reasons would be lost). */
static is_code master_reason(master *m, int source, is_error *err)
{
    char row[IS_RESULTS_REASON_TEXT + 1];
    is_code rc = mpi_check(MPI_Recv(row, IS_RESULTS_REASON_TEXT, MPI_CHAR, source, TAG_REASON,
                                    m->comm, MPI_STATUS_IGNORE),
                           "receiving a reason", err);
    if (rc != IS_OK)
        return rc;
    row[IS_RESULTS_REASON_TEXT] = '\0';
    unsigned code = 0;
    is_error why;
    if (!m->reasons) /* (rank 0 could not start computing: the run fails anyway) */
        code = 0;
    else if (is_reason_table_intern(m->reasons, row, &code, &why) != IS_OK) {
        fprintf(stderr, "impactsweep: %s\n", why.message);
        code = 0;
    }
    uint64_t answer = code;
    return mpi_check(MPI_Send(&answer, 1, MPI_UINT64_T, source, TAG_CODE, m->comm),
                     "sending a reason's code", err);
}

/* Answers every message that has arrived. */
static is_code master_serve(master *m, is_error *err)
{
    for (;;) {
        int flag = 0;
        MPI_Status st;
        is_code rc = mpi_check(MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, m->comm, &flag, &st),
                               "probing for requests", err);
        if (rc != IS_OK)
            return rc;
        if (!flag)
            break;
        double started = now_seconds();
        if (st.MPI_TAG == TAG_NOTE) { /* a worker's failed point, for the run log */
            char line[IS_RESULTS_LOG_LINE];
            rc = mpi_check(MPI_Recv(line, IS_RESULTS_LOG_LINE, MPI_CHAR, st.MPI_SOURCE,
                                    TAG_NOTE, m->comm, MPI_STATUS_IGNORE),
                           "receiving a note", err);
            if (rc != IS_OK)
                return rc;
            line[IS_RESULTS_LOG_LINE - 1] = '\0';
            log_note(m->results, &m->logged, line);
            continue;
        }
        if (st.MPI_TAG == TAG_REASON) { /* a worker's new reason: its code */
            rc = master_reason(m, st.MPI_SOURCE, err);
            if (rc != IS_OK)
                return rc;
            continue;
        }
        uint64_t msg[MSG_LEN];
        rc = mpi_check(MPI_Recv(msg, MSG_LEN, MPI_UINT64_T, st.MPI_SOURCE, st.MPI_TAG, m->comm,
                                MPI_STATUS_IGNORE),
                       "receiving a request", err);
        if (rc != IS_OK)
            return rc;
        account(m, msg, started);
        m->result->requests++;
        uint64_t reply[MSG_LEN] = {0};
        if (st.MPI_TAG == TAG_FINAL) {
            m->finished++;
            m->ended[st.MPI_SOURCE] = 1;
            if (msg[MSG_FLAGS] & FLAG_ERROR)
                m->result->rank_errors++;
            if (msg[MSG_FLAGS] & (FLAG_ERROR | FLAG_INTERRUPTED))
                m->stop = 1;
            if ((msg[MSG_FLAGS] & FLAG_INTERRUPTED) && !m->result->stop_signal)
                m->result->stop_signal = (int)msg[MSG_SIGNAL]; /* only a worker saw it */
            rc = mpi_check(MPI_Send(reply, MSG_LEN, MPI_UINT64_T, st.MPI_SOURCE, TAG_BYE,
                                    m->comm),
                           "saying goodbye", err);
        } else {
            master_note_stop(m);
            if (!m->stop && !m->exhausted &&
                is_units_next(&m->units, st.MPI_SOURCE, unit_points(m, st.MPI_SOURCE), &reply[0],
                              &reply[1]))
                m->result->units++;
            else
                m->exhausted |= !m->stop;
            rc = mpi_check(MPI_Send(reply, MSG_LEN, MPI_UINT64_T, st.MPI_SOURCE, TAG_ASSIGN,
                                    m->comm),
                           "assigning a unit", err);
        }
        m->result->serve_seconds += now_seconds() - started;
        if (rc != IS_OK)
            return rc;
    }
    master_note_stop(m);
    if (m->stop && !m->stop_sent)
        return send_stops(m, err);
    return IS_OK;
}

/* Between rank 0's own batches: answer the requests, stop on a signal. */
static int master_between(void *ctx, is_error *err)
{
    master *m = ctx;
    if (master_serve(m, err) != IS_OK)
        m->stop = 1;
    is_progress_add(&m->progress, 0, 0, now_seconds());
    return m->stop;
}

static is_code master_run(master *m, compute *c, int computes, is_error *err)
{
    is_code rc = IS_OK;
    while (rc == IS_OK) {
        rc = master_serve(m, err);
        if (rc != IS_OK)
            break;
        if (m->finished == m->workers && (m->stop || m->exhausted || !computes))
            break;
        uint64_t first, count;
        if (computes && !m->stop && !m->exhausted &&
            is_units_next(&m->units, 0, unit_points(m, 0), &first, &count)) {
            m->result->units++;
            int stopped;
            rc = compute_unit(c, first, count, master_between, m, &stopped, err);
            uint64_t report[MSG_LEN];
            take_report(c, report);
            account(m, report, now_seconds());
        } else if (computes && !m->exhausted && !m->stop) {
            m->exhausted = 1;
        } else {
            struct timespec pause = {0, 1000000}; /* idle: only serving */
            nanosleep(&pause, NULL);
            is_progress_add(&m->progress, 0, 0, now_seconds());
        }
    }
    rc = finish(c, rc, err);
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

typedef struct worker {
    MPI_Comm comm;
} worker;

/* Between a worker's batches: a signal, or rank 0's STOP (left to be received later). */
static int worker_between(void *ctx, is_error *err)
{
    worker *w = ctx;
    if (is_signals_pending())
        return 1;
    int flag = 0;
    if (MPI_Iprobe(0, TAG_STOP, w->comm, &flag, MPI_STATUS_IGNORE) != MPI_SUCCESS) {
        is_error_set(err, IS_MPI, "probing for a stop");
        return 1;
    }
    return flag;
}

static is_code worker_run(MPI_Comm comm, compute *c, is_error *err)
{
    worker w = {comm};
    uint64_t report[MSG_LEN] = {0}, unit[MSG_LEN];
    is_code rc = mpi_check(MPI_Send(report, MSG_LEN, MPI_UINT64_T, 0, TAG_REQUEST, comm),
                           "requesting work", err);
    if (rc == IS_OK)
        rc = mpi_check(MPI_Recv(unit, MSG_LEN, MPI_UINT64_T, 0, TAG_ASSIGN, comm,
                                MPI_STATUS_IGNORE),
                       "receiving work", err);
    is_code work_rc = IS_OK;
    int stopped = 0;
    while (rc == IS_OK && unit[1] > 0) {
        take_report(c, report);
        rc = mpi_check(MPI_Send(report, MSG_LEN, MPI_UINT64_T, 0, TAG_REQUEST, comm),
                       "requesting work", err);
        if (rc != IS_OK)
            break;
        work_rc = compute_unit(c, unit[0], unit[1], worker_between, &w, &stopped, err);
        rc = mpi_check(MPI_Recv(unit, MSG_LEN, MPI_UINT64_T, 0, TAG_ASSIGN, comm,
                                MPI_STATUS_IGNORE),
                       "receiving work", err);
        if (work_rc != IS_OK || stopped || is_signals_pending())
            break; /* a unit received but not started stays pending */
    }
    work_rc = finish(c, work_rc, err); /* written before the end is reported */
    take_report(c, report);
    report[MSG_FLAGS] = (work_rc != IS_OK ? FLAG_ERROR : 0) |
                        (is_signals_pending() ? FLAG_INTERRUPTED : 0);
    report[MSG_SIGNAL] = (uint64_t)is_signals_pending();
    if (rc == IS_OK)
        rc = mpi_check(MPI_Send(report, MSG_LEN, MPI_UINT64_T, 0, TAG_FINAL, comm),
                       "reporting the end", err);
    /* until BYE: a STOP sent meanwhile comes first */
    for (int tag = 0; rc == IS_OK && tag != TAG_BYE;) {
        MPI_Status st;
        rc = mpi_check(MPI_Recv(unit, MSG_LEN, MPI_UINT64_T, 0, MPI_ANY_TAG, comm, &st),
                       "waiting for the end", err);
        tag = st.MPI_TAG;
    }
    return work_rc != IS_OK ? work_rc : rc;
}

/* A rank that cannot compute still takes part, so that rank 0 does not wait for it. */
static void worker_bow_out(MPI_Comm comm)
{
    uint64_t report[MSG_LEN] = {0}, msg[MSG_LEN];
    report[MSG_FLAGS] = FLAG_ERROR;
    MPI_Send(report, MSG_LEN, MPI_UINT64_T, 0, TAG_FINAL, comm);
    for (int tag = 0; tag != TAG_BYE;) {
        MPI_Status st;
        if (MPI_Recv(msg, MSG_LEN, MPI_UINT64_T, 0, MPI_ANY_TAG, comm, &st) != MPI_SUCCESS)
            break;
        tag = st.MPI_TAG;
    }
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
    result->unit_seconds = is_sched_unit_seconds(job);

    compute c;
    memset(&c, 0, sizeof c);
    c.comm = comm;
    c.rank = rank;
    master m = {.comm = comm, .job = job, .ranks = size, .workers = size - 1,
                .unit_seconds = result->unit_seconds, .result = result, .results = results};
    c.logged = &m.logged;
    double batch_seconds = rank == 0 && size > 1 ? MASTER_BATCH_SECONDS : BATCH_SECONDS;
    rc = compute_init(&c, job, results, options->resumed, batch_seconds, err);
    c.filter = options->resumed ? options->filter : NULL;
    /* units of a fixed size: each written at its end, as the job asks */
    c.flush_seconds = job->unit_size ? 0 : fmin(FLUSH_SECONDS, result->unit_seconds);
    m.reasons = c.reasons;
    if (rc == IS_OK)
        rc = is_verify_run_create(&c.verify, job, options->verification, err);
    if (rc == IS_OK && c.filter) {
        c.buffer_index = malloc(c.buffer_max * sizeof *c.buffer_index);
        c.batch_index = malloc(c.batch_max * sizeof *c.batch_index);
        if (!c.buffer_index || !c.batch_index)
            rc = is_error_set(err, IS_NOMEM, "cannot allocate the buffers of a rank");
    }
    if (rank == 0) {
        if (rc == IS_OK)
            rc = is_units_init(&m.units, options->resumed ? options->map : NULL,
                               options->points, options->pending, size, job->master_computes,
                               err);
        m.ended = calloc((size_t)size, 1);
        m.last_unit = calloc((size_t)size, sizeof *m.last_unit);
        if (rc == IS_OK && (!m.ended || !m.last_unit))
            rc = is_error_set(err, IS_NOMEM, "out of memory");
        if (options->filter) /* a pass: its own points */
            is_progress_init(&m.progress, stderr, options->live_progress,
                             job->progress_interval, options->pending, 0, started);
        else
            is_progress_init(&m.progress, stderr, options->live_progress,
                             job->progress_interval, options->points,
                             options->points - options->pending, started);
        m.progress.label = options->label;
        int computes = job->master_computes || size == 1;
        if (rc != IS_OK) { /* cannot compute: still serve "stop" so the workers can end */
            m.stop = 1;
            computes = 0;
        }
        if (m.ended && m.last_unit) {
            is_code run_rc = master_run(&m, &c, computes, err);
            if (rc == IS_OK)
                rc = run_rc;
        }
        free(m.ended);
        free(m.last_unit);
        is_units_free(&m.units);
    } else if (rc == IS_OK) {
        rc = worker_run(comm, &c, err);
    } else {
        worker_bow_out(comm);
    }
    compute_free(&c);
    MPI_Comm_free(&comm);
    result->seconds = now_seconds() - started;
    return rc;
}
