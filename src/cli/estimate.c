/* estimate.c: `run --dry-run`'s cost estimate (estimate.h). The sample is the job's own
 * points, evenly spread, so that a grid whose cost varies across it (chatter's ICC
 * corner against its CC region) is sampled across it too; the budget is kept by a
 * watchdog thread raising the model's stop flag, so that one very long point cannot
 * hold a dry run up. */
#include "estimate.h"

#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <time.h>

static double now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* The watchdog: raises `stop` at the deadline unless told first that the sample is over. */
typedef struct watchdog {
    pthread_mutex_t lock;
    pthread_cond_t wake;
    struct timespec deadline; /* CLOCK_REALTIME, as pthread_cond_timedwait takes it */
    int over;
    volatile sig_atomic_t stop;
} watchdog;

static void *watch(void *arg)
{
    watchdog *w = arg;
    pthread_mutex_lock(&w->lock);
    while (!w->over)
        if (pthread_cond_timedwait(&w->wake, &w->lock, &w->deadline) != 0) {
            w->stop = 1; /* timed out (or failed: stop rather than wait for ever) */
            break;
        }
    pthread_mutex_unlock(&w->lock);
    return NULL;
}

/* Evaluates the sample with the watchdog running. */
static is_code sample(const is_job *job, void *ws, uint64_t max_points, watchdog *w,
                      double *params, double *outputs, is_estimate *e, is_error *err)
{
    const is_model *m = job->model;
    uint64_t first = job->piece_first, count = job->piece_last - job->piece_first;
    uint64_t n = count < max_points ? count : max_points;
    for (uint64_t i = 0; i < n && !w->stop; i++) {
        /* the middle of the i-th of n equal stretches of the points */
        uint64_t index = first + (uint64_t)(((double)i + 0.5) * (double)count / (double)n);
        is_grid_point(&job->grid, index < job->piece_last ? index : job->piece_last - 1,
                      params);
        uint8_t status = 0;
        double start = now_seconds();
        is_code rc = m->eval_batch(ws, params, 1, outputs, &status, err);
        double took = now_seconds() - start;
        if (rc != IS_OK)
            return rc;
        /* a point the watchdog stopped (pending) counts with the time it had: its own
         * is longer, so the sample's mean is then a lower bound */
        e->cut |= status == IS_POINT_PENDING;
        e->sampled++;
        e->seconds += took;
        e->fastest = e->sampled == 1 ? took : fmin(e->fastest, took);
        e->slowest = fmax(e->slowest, took);
    }
    return IS_OK;
}

is_code is_estimate_cost(const is_job *job, double budget_seconds, uint64_t max_points,
                         is_estimate *e, is_error *err)
{
    const is_model *m = job->model;
    *e = (is_estimate){0};
    void *ws = NULL;
    double *params = malloc(m->param_count * sizeof *params);
    double *outputs = malloc((m->output_count + 1) * sizeof *outputs);
    is_code rc = params && outputs ? IS_OK : is_error_set(err, IS_NOMEM, "out of memory");
    if (rc == IS_OK && m->workspace_create)
        rc = m->workspace_create(&ws, err);
    watchdog w = {.lock = PTHREAD_MUTEX_INITIALIZER, .wake = PTHREAD_COND_INITIALIZER};
    pthread_t thread;
    int started = 0;
    if (rc == IS_OK) {
        clock_gettime(CLOCK_REALTIME, &w.deadline);
        double end = (double)w.deadline.tv_nsec * 1e-9 + budget_seconds;
        w.deadline.tv_sec += (time_t)floor(end);
        w.deadline.tv_nsec = (long)((end - floor(end)) * 1e9);
        if (m->workspace_watch)
            m->workspace_watch(ws, &w.stop);
        started = pthread_create(&thread, NULL, watch, &w) == 0;
        rc = sample(job, ws, max_points, &w, params, outputs, e, err);
    }
    if (started) {
        pthread_mutex_lock(&w.lock);
        w.over = 1;
        pthread_cond_signal(&w.wake);
        pthread_mutex_unlock(&w.lock);
        pthread_join(thread, NULL);
    }
    if (ws && m->workspace_free)
        m->workspace_free(ws);
    free(params);
    free(outputs);
    return rc;
}

/* A duration in the unit that reads best. */
static void format_duration(double seconds, char *text, size_t size)
{
    if (seconds < 1e-3)
        snprintf(text, size, "%.3g us", seconds * 1e6);
    else if (seconds < 1.0)
        snprintf(text, size, "%.3g ms", seconds * 1e3);
    else if (seconds < 120.0)
        snprintf(text, size, "%.3g s", seconds);
    else if (seconds < 7200.0)
        snprintf(text, size, "%.3g min", seconds / 60.0);
    else if (seconds < 3 * 86400.0)
        snprintf(text, size, "%.3g h", seconds / 3600.0);
    else
        snprintf(text, size, "%.3g days", seconds / 86400.0);
}

void is_estimate_print(const is_estimate *e, uint64_t points, int ranks, FILE *out)
{
    if (e->sampled == 0) {
        fprintf(out, "cost:         unknown (no point sampled)\n");
        return;
    }
    double per_point = e->seconds / (double)e->sampled;
    double total = per_point * (double)points;
    char each[32], fast[32], slow[32], all[32], wall[32];
    format_duration(per_point, each, sizeof each);
    format_duration(e->fastest, fast, sizeof fast);
    format_duration(e->slowest, slow, sizeof slow);
    format_duration(total, all, sizeof all);
    format_duration(total / (ranks > 0 ? ranks : 1), wall, sizeof wall);
    const char *bound = e->cut ? "at least " : "about ";
    fprintf(out, "cost:         %s%s a point (%llu sampled across the grid: %s to %s%s)\n",
            bound, each, (unsigned long long)e->sampled, fast, slow,
            e->cut ? "; the last one was stopped unfinished" : "");
    char hours[48] = "";
    if (total >= 360.0)
        snprintf(hours, sizeof hours, ", %.3g core-hours", total / 3600.0);
    fprintf(out, "estimate:     %s%s of one core%s; %s%s on %d rank%s\n", bound, all, hours,
            bound, wall, ranks, ranks == 1 ? "" : "s");
}
