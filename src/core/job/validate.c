/* validate.c: the grid's checks, spread over the ranks (see validate.h). */
#include "validate.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collective.h"
#include "engine.h"
#include "evaluator.h"
#include "numtext.h"
#include "signals.h"
#include "stop.h"

#define NONE UINT64_MAX
/* Points between two polls of the stop flag (a poll reads a clock: ~20 ns). */
#define POLL_EVERY 1024

/* This rank's share [*lo, *hi) of n items. */
static void share(uint64_t n, MPI_Comm comm, uint64_t *lo, uint64_t *hi)
{
    int rank = 0, size = 1;
    if (comm != MPI_COMM_NULL) {
        MPI_Comm_rank(comm, &rank);
        MPI_Comm_size(comm, &size);
    }
    uint64_t p = (uint64_t)size, k = (uint64_t)rank;
    *lo = n / p * k + n % p * k / p;
    *hi = n / p * (k + 1) + n % p * (k + 1) / p;
}

/* The smallest of the ranks' keys; the rank that found it has `mine` equal to it and
 * shares its message. NONE when no rank found anything. */
static is_code first_failure(uint64_t mine, is_code code, MPI_Comm comm, is_error *err)
{
    if (comm == MPI_COMM_NULL)
        return mine == NONE ? IS_OK : code;
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    uint64_t first;
    MPI_Allreduce(&mine, &first, 1, MPI_UINT64_T, MPI_MIN, comm);
    if (first == NONE)
        return IS_OK;
    int owner = mine == first ? rank : size, root;
    MPI_Allreduce(&owner, &root, 1, MPI_INT, MPI_MIN, comm);
    return is_collective_share(code, root, comm, err);
}

/* Axes without a table of values (those over IS_AXIS_CACHE_MAX long). */
static is_code check_axes(const is_job *job, MPI_Comm comm, is_stop *stop, is_error *err)
{
    for (size_t k = 0; k < job->grid.axis_count; k++) {
        const is_axis *axis = &job->grid.axes[k];
        if (axis->values)
            continue;
        const is_param *param = &job->model->params[axis->param];
        uint64_t lo, hi, mine = NONE;
        share(axis->count, comm, &lo, &hi);
        is_code code = IS_OK;
        int rising = is_axis_value(axis, 1) > is_axis_value(axis, 0);
        double before = lo > 0 ? is_axis_value(axis, (size_t)lo - 1) : 0.0;
        for (uint64_t i = lo; i < hi && mine == NONE; i++) {
            if (i % POLL_EVERY == 0 && is_stop_poll(stop))
                break;
            is_error detail;
            double v = is_axis_value(axis, (size_t)i);
            code = is_param_check(param, v, &detail);
            if (code != IS_OK) {
                mine = i;
                is_error_set(err, code, "%s: value %llu of the axis: %s", job->axis_origin[k],
                             (unsigned long long)(i + 1), detail.message);
            } else if (i > 0 && (rising ? !(v > before) : !(v < before))) {
                /* too many steps for the span (or an integer axis rounding two onto one) */
                mine = i;
                code = IS_JOB;
                is_error_set(err, code,
                             "%s count: values %llu and %llu of the axis are both %s: an "
                             "axis must be strictly monotonic",
                             job->axis_origin[k], (unsigned long long)i,
                             (unsigned long long)(i + 1), IS_NUM(v));
            }
            before = v;
        }
        is_code rc = first_failure(mine, mine == NONE ? IS_PARAM : code, comm, err);
        if (rc != IS_OK)
            return rc;
    }
    return IS_OK;
}

static int word_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

/* " (given at t.ini:5: [model] pi2; t.ini:9: [axis.pi3])" for the parameters a model's
 * message names, so that a cross-parameter error points at the lines to change. */
static void given_at(const is_job *job, const char *message, char *out, size_t size)
{
    size_t used = 0;
    for (size_t p = 0; p < job->model->param_count && used < size; p++) {
        const char *name = job->model->params[p].name, *origin = job->param_origin[p];
        size_t n = strlen(name);
        int named = 0;
        for (const char *at = strstr(message, name); at && !named; at = strstr(at + 1, name))
            named = (at == message || !word_char(at[-1])) && !word_char(at[n]);
        if (named && *origin)
            used += (size_t)snprintf(out + used, size - used, "%s%s", used ? "; " : " (given at ",
                                     origin);
    }
    if (used && used < size)
        snprintf(out + used, size - used, ")");
}

/* Points checked in one call of the evaluator (a plug-in's validate runs in its
 * evaluator process, as its eval_batch does: a crash there refuses that point, named):
 * many, since a call is a round trip between two processes and a validate is cheap (10^7
 * points in calls of 4096 cost the cheap sweep of bench_containment.sh 10 % more). */
#define VALIDATE_BATCH IS_EVALUATOR_RUN_CAPACITY

/* ... fewer for a model of long array outputs, whose outputs' room (which the run may
 * borrow) grows with the values a point: no more than 16 values' worth a point. */
static size_t validate_batch(const is_model *model)
{
    size_t values = is_model_value_count(model);
    return values <= 16 ? VALIDATE_BATCH : VALIDATE_BATCH * 16 / values + 1;
}

/* The message of a point validate refused: where it is, and where its values were given. */
static void refusal(const is_job *job, uint64_t i, const double *point, const is_error *detail,
                    is_error *err)
{
    const is_model *model = job->model;
    char where[512] = "";
    size_t used = 0;
    for (size_t k = 0; k < job->grid.axis_count && used < sizeof where; k++) {
        int p = job->grid.axes[k].param;
        used += (size_t)snprintf(where + used, sizeof where - used, "%s%s = %s", k ? ", " : "",
                                 model->params[p].name, IS_NUM(point[p]));
    }
    char given[1024] = "";
    given_at(job, detail->message, given, sizeof given);
    is_error_set(err, detail->code == IS_PLUGIN ? IS_PLUGIN : IS_PARAM,
                 "%s: at grid point %llu (%s): %s%s", job->source, (unsigned long long)i,
                 used ? where : "the only point", detail->message, given);
}

/* The grid index of the k-th of `checked` points spread evenly over the piece's `total`
 * (all of them when checked = total). */
static uint64_t spread_index(const is_job *job, uint64_t k, uint64_t checked, uint64_t total)
{
    if (checked >= total || checked < 2)
        return job->piece_first + k;
    return job->piece_first +
           (uint64_t)((unsigned __int128)k * (total - 1) / (unsigned __int128)(checked - 1));
}

static is_code check_points(is_job *job, MPI_Comm comm, is_stop *stop, uint64_t most, is_error *err)
{
    const is_model *model = job->model;
    if (!model->validate)
        return IS_OK;
    is_evaluator_config config = {.model = model,
                                  .library = job->model_library,
                                  .sha256 = job->model_sha256,
                                  .contained = is_job_contained(job),
                                  .point_timeout = job->point_timeout,
                                  .capacity = validate_batch(model),
                                  .stop = is_signals_flag()};
    is_evaluator *ev = job->evaluator;
    is_code rc = ev ? IS_OK : is_evaluator_create(&ev, &config, err);
    rc = is_collective_agree(rc, comm, err);
    if (rc != IS_OK)
        return rc;
    double *points = is_evaluator_points(ev);
    uint64_t lo, hi, mine = NONE;
    is_code code = IS_PARAM;
    uint64_t total = job->piece_last - job->piece_first;
    uint64_t checked = total < most ? total : most;
    share(checked, comm, &lo, &hi);
    for (uint64_t k = lo; k < hi && mine == NONE;) {
        if (is_stop_poll(stop)) /* a batch between polls: well under a second */
            break;
        size_t batch = is_evaluator_capacity(ev);
        size_t n = hi - k < batch ? (size_t)(hi - k) : batch;
        for (size_t i = 0; i < n; i++)
            is_grid_point(&job->grid, spread_index(job, k + i, checked, total),
                          points + i * model->param_count);
        size_t refused;
        is_error detail;
        is_error_clear(&detail);
        is_code rc_eval = is_evaluator_validate(ev, 0, n, &refused, &detail, err);
        if (rc_eval != IS_OK) {
            mine = spread_index(
                job, k, checked,
                total); /* the evaluator failed (it cannot start, or a stop): err says */
            code = rc_eval;
        } else if (refused < n) {
            mine = spread_index(job, k + refused, checked, total);
            code = detail.code == IS_PLUGIN ? IS_PLUGIN : IS_PARAM;
            refusal(job, mine, points + refused * model->param_count, &detail, err);
        }
        k += n;
    }
    if (config.contained) /* the run's evaluator process too (a start saved) */
        job->evaluator = ev;
    else
        is_evaluator_free(&ev);
    return first_failure(mine, code, comm, err);
}

is_code is_validate_grid(is_job *job, MPI_Comm comm, is_error *err)
{
    return is_validate_grid_sampled(job, comm, UINT64_MAX, err);
}

is_code is_validate_grid_sampled(is_job *job, MPI_Comm comm, uint64_t most, is_error *err)
{
    is_stop *stop = NULL;
    is_code rc = is_stop_begin(comm, &stop, err);
    if (rc != IS_OK)
        return rc;
    rc = check_axes(job, comm, stop, err);
    if (rc == IS_OK)
        rc = check_points(job, comm, stop, most, err);
    /* a failure found before the stop is the answer; else the stop ends the run */
    return is_stop_end(&stop, rc, "the check of the grid (nothing was written)", err);
}
