/* estimate.c: `run --dry-run`'s cost estimate (estimate.h).
 *
 * What made the first estimate wrong, and what this one does about it:
 *  - points timed one by one, while a run hands a model batches of a quarter of a second:
 *    a lane-parallel model (the stop oscillator's 12 lanes, collision's DOPRI5 lanes)
 *    computes one point alone with most lanes idle, so the stop oscillator read 4x high.
 *    The sample is evaluated again in batches, and the ratio of the two times scales the
 *    per-point costs;
 *  - wall-clock times on a machine shared with other work: a point preempted halfway
 *    counted the other processes' time (one slow point moved the mean 3x from one dry
 *    run to the next). Times are this thread's CPU time;
 *  - a sample cut short by the time budget covered only the first part of the grid (the
 *    points were taken in grid order), so a loaded machine sampled another region. The
 *    points are taken coarse to fine: any first part of the sample spans the grid;
 *  - the first call pays for the workspace's first use: the first point is timed twice
 *    and its second time kept.
 * The sample is the job's own points, spread over the grid, so that a grid whose cost
 * varies across it (chatter's ICC corner against its CC region) is sampled across it;
 * the budget is kept by a watchdog thread raising the model's stop flag, so that one very
 * long point cannot hold a dry run up. The model runs where a run runs it (evaluator.h: a
 * plug-in in its evaluator process, whose CPU time is the one counted); a sampled point
 * that crashes it, or breaks the contract, is counted and named, not fatal. */
#include "estimate.h"

#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../core/contract/evaluator.h"
#include "../core/base/numtext.h"
#include "../core/base/rng.h"
#include "../core/base/signals.h"

/* Resamples of the bootstrap, and the interval it reports. */
#define BOOTSTRAP 1000
#define INTERVAL_LOW 0.05
#define INTERVAL_HIGH 0.95
/* A batch of the second pass: at most this many points, and at least this many batches
 * when the sample allows. */
#define BATCH_POINTS 64
#define BATCHES 8
/* Fewer points than this cannot be trusted to show a costly region of a few percent of
 * the grid (one of 3 / n of it is missed with about 5 % chance). */
#define SMALL_SAMPLE 100

static double wall_seconds(void)
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
    pthread_t thread;
    int started;
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

static void watch_start(watchdog *w, double seconds)
{
    clock_gettime(CLOCK_REALTIME, &w->deadline);
    double end = (double)w->deadline.tv_nsec * 1e-9 + (seconds > 0 ? seconds : 0);
    w->deadline.tv_sec += (time_t)floor(end);
    w->deadline.tv_nsec = (long)((end - floor(end)) * 1e9);
    w->over = 0;
    w->started = pthread_create(&w->thread, NULL, watch, w) == 0;
}

static void watch_end(watchdog *w)
{
    if (!w->started)
        return;
    pthread_mutex_lock(&w->lock);
    w->over = 1;
    pthread_cond_signal(&w->wake);
    pthread_mutex_unlock(&w->lock);
    pthread_join(w->thread, NULL);
    w->started = 0;
}

/* The i-th of n stretches in coarse-to-fine order (bits reversed, those beyond n
 * skipped: 0, n/2, n/4, 3n/4, ...), so that a sample cut short still spans the grid; *j
 * walks the reversed numbers. */
static uint64_t next_stretch(uint64_t n, uint64_t *j)
{
    unsigned bits = 0;
    while ((UINT64_C(1) << bits) < n)
        bits++;
    for (;; ++*j) {
        uint64_t r = 0;
        for (unsigned b = 0; b < bits; b++)
            r |= ((*j >> b) & 1) << (bits - 1 - b);
        if (r < n) {
            ++*j;
            return r;
        }
    }
}

/* What the two passes share. */
typedef struct sampler {
    const is_job *job;
    is_evaluator *ev;         /* where the model's code runs (the job's, when contained) */
    watchdog *w;
    uint64_t *index;          /* the sample: grid indices, coarse to fine */
    double *took;             /* and each one's CPU time alone */
    is_estimate *e;
} sampler;

/* A sampled point the engine failed: counted, the first one named. */
static void on_failure(void *context, const double *point, const is_evaluator_failure *f)
{
    sampler *s = context;
    if (s->e->failed++ > 0)
        return;
    const is_job *job = s->job;
    size_t used = 0, size = sizeof s->e->first_failure;
    char *text = s->e->first_failure;
    for (size_t k = 0; k < job->grid.axis_count && used < size; k++) {
        int p = job->grid.axes[k].param;
        used += (size_t)snprintf(text + used, size - used, "%s%s = %s", k ? ", " : "",
                                 job->model->params[p].name, IS_NUM(point[p]));
    }
    if (used < size)
        snprintf(text + used, size - used, "%s%s: %s", used ? ": " : "",
                 is_point_status_name(f->status), f->reason);
}

/* One model call on points index[0 .. n - 1]: the model's CPU time, *stopped when the
 * watchdog left a point unfinished. */
static is_code evaluate(sampler *s, const uint64_t *index, size_t n, double *took,
                        int *stopped, is_error *err)
{
    const is_model *m = s->job->model;
    double *params = is_evaluator_points(s->ev);
    for (size_t i = 0; i < n; i++)
        is_grid_point(&s->job->grid, index[i], params + i * m->param_count);
    const double *outputs;
    const uint8_t *status;
    is_code rc = is_evaluator_eval(s->ev, n, &outputs, &status, err);
    *took = is_evaluator_cpu_seconds(s->ev);
    *stopped = 0;
    for (size_t i = 0; rc == IS_OK && i < n; i++)
        *stopped |= status[i] == IS_POINT_PENDING;
    return rc;
}

/* The first pass: up to max_points, one by one, until the watchdog stops it. */
static is_code sample_alone(sampler *s, uint64_t max_points, is_estimate *e, is_error *err)
{
    const is_job *job = s->job;
    uint64_t first = job->piece_first, count = job->piece_last - job->piece_first;
    uint64_t n = count < max_points ? count : max_points, walk = 0;
    double started = wall_seconds();
    for (uint64_t taken = 0; taken < n && !s->w->stop; taken++) {
        /* the middle of the i-th of n equal stretches of the points */
        uint64_t i = next_stretch(n, &walk);
        uint64_t index = first + (uint64_t)(((double)i + 0.5) * (double)count / (double)n);
        index = index < job->piece_last ? index : job->piece_last - 1;
        double took;
        int stopped;
        is_code rc = evaluate(s, &index, 1, &took, &stopped, err);
        if (rc == IS_OK && taken == 0 && !stopped && wall_seconds() - started < 0.1)
            rc = evaluate(s, &index, 1, &took, &stopped, err); /* the warm one */
        if (rc != IS_OK)
            return rc;
        if (stopped && e->sampled > 0) { /* the budget ran out: the sample ends here */
            e->unfinished = took;
            break;
        }
        /* a first point the watchdog stopped (pending) counts with the time it had: its
         * own is longer, so the estimate is then a lower bound */
        e->cut |= stopped;
        s->index[e->sampled] = index;
        s->took[e->sampled++] = took;
        e->seconds += took;
        e->fastest = e->sampled == 1 ? took : fmin(e->fastest, took);
        e->slowest = fmax(e->slowest, took);
    }
    return IS_OK;
}

/* The second pass: the sample again, in batches of consecutive sample points (each a
 * spread over the grid, the sample being coarse to fine), until the watchdog stops it. */
static is_code sample_batched(sampler *s, is_estimate *e, is_error *err)
{
    uint64_t n = e->cut ? 0 : e->sampled;
    uint64_t size = n / BATCHES < 1 ? 1 : n / BATCHES > BATCH_POINTS ? BATCH_POINTS : n / BATCHES;
    for (uint64_t at = 0; at + size <= n && !s->w->stop; at += size) {
        double took;
        int stopped;
        is_code rc = evaluate(s, s->index + at, (size_t)size, &took, &stopped, err);
        if (rc != IS_OK)
            return rc;
        if (stopped) /* unfinished: not a batch's time */
            break;
        e->batched += size;
        e->batch_seconds += took;
        for (uint64_t i = at; i < at + size; i++)
            e->alone_seconds += s->took[i];
    }
    return IS_OK;
}

static int compare_doubles(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The 90 % interval of the sample's mean: its points resampled with replacement. */
static void bootstrap(const double *took, uint64_t n, double *low, double *high)
{
    double *means = malloc(BOOTSTRAP * sizeof *means);
    if (!means || n == 0) {
        *low = *high = n ? took[0] : 0;
        free(means);
        return;
    }
    is_rng_key key = is_rng_key_from_seed(0x5EEDC057ull);
    for (uint32_t b = 0; b < BOOTSTRAP; b++) {
        double sum = 0;
        is_rng_counter bits = {{0}};
        for (uint64_t j = 0; j < n; j++) {
            if (j % 4 == 0)
                bits = is_rng_philox4x32((is_rng_counter){{b, (uint32_t)(j / 4), 0, 0}}, key);
            uint64_t pick = (uint64_t)(is_rng_uniform_open(bits.v[j % 4]) * (double)n);
            sum += took[pick < n ? pick : n - 1];
        }
        means[b] = sum / (double)n;
    }
    qsort(means, BOOTSTRAP, sizeof *means, compare_doubles);
    *low = means[(size_t)(INTERVAL_LOW * (BOOTSTRAP - 1))];
    *high = means[(size_t)(INTERVAL_HIGH * (BOOTSTRAP - 1))];
    free(means);
}

static is_code run_passes(sampler *s, double budget_seconds, uint64_t max_points,
                          is_estimate *e, is_error *err)
{
    watch_start(s->w, budget_seconds / 2);
    is_code rc = sample_alone(s, max_points, e, err);
    watch_end(s->w);
    s->w->stop = 0;
    double left = budget_seconds / 2; /* the second half, whatever the first used */
    watch_start(s->w, left);
    if (rc == IS_OK)
        rc = sample_batched(s, e, err);
    watch_end(s->w);
    bootstrap(s->took, e->sampled, &e->low, &e->high);
    return rc;
}

is_code is_estimate_cost(const is_job *job, double budget_seconds, uint64_t max_points,
                         is_estimate *e, is_error *err)
{
    return is_estimate_cost_each(job, budget_seconds, max_points, e, NULL, err);
}

is_code is_estimate_cost_each(const is_job *job, double budget_seconds, uint64_t max_points,
                              is_estimate *e, const is_estimate_each *each, is_error *err)
{
    *e = (is_estimate){0};
    uint64_t batch = BATCH_POINTS > max_points ? max_points : BATCH_POINTS;
    watchdog w = {.lock = PTHREAD_MUTEX_INITIALIZER, .wake = PTHREAD_COND_INITIALIZER};
    sampler s = {.job = job, .w = &w, .e = e};
    s.index = malloc((max_points ? max_points : 1) * sizeof *s.index);
    s.took = malloc((max_points ? max_points : 1) * sizeof *s.took);
    is_code rc = s.index && s.took ? IS_OK : is_error_set(err, IS_NOMEM, "out of memory");
    is_evaluator_config config = {.model = job->model,
                                  .library = job->model_library,
                                  .sha256 = job->model_sha256,
                                  .contained = is_job_contained(job),
                                  .point_timeout = job->point_timeout,
                                  .capacity = batch ? batch : 1,
                                  .stop = &w.stop,
                                  .report = on_failure,
                                  .context = &s};
    s.ev = job->evaluator; /* the grid's checks' process, when contained */
    if (rc == IS_OK && s.ev && is_evaluator_capacity(s.ev) >= config.capacity)
        is_evaluator_bind(s.ev, &w.stop, on_failure, &s);
    else if (rc == IS_OK)
        rc = is_evaluator_create(&s.ev, &config, err);
    if (rc == IS_OK)
        rc = run_passes(&s, budget_seconds, max_points, e, err);
    for (uint64_t i = 0; rc == IS_OK && each && i < e->sampled; i++)
        each->point(each->user, s.index[i], s.took[i]);
    if (s.ev == job->evaluator)
        is_evaluator_bind(s.ev, is_signals_flag(), NULL, NULL); /* (the job keeps it) */
    else
        is_evaluator_free(&s.ev);
    free(s.index);
    free(s.took);
    return rc;
}

/* What batches save: their time over the same points' one by one (1 without batches). */
static double batch_factor(const is_estimate *e)
{
    return e->batched && e->alone_seconds > 0 ? e->batch_seconds / e->alone_seconds : 1.0;
}

double is_estimate_per_point(const is_estimate *e)
{
    return e->sampled ? e->seconds / (double)e->sampled * batch_factor(e) : 0.0;
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

/* "warning: ..." when the sample cannot be trusted to have seen the costly points. */
static void print_warning(const is_estimate *e, uint64_t points, FILE *out)
{
    double share = e->seconds > 0 ? e->slowest / e->seconds : 0;
    if (e->cut)
        fprintf(out, "warning:      one point took the whole time budget: the estimate is a lower "
                     "bound; time a small piece first (run --piece 1/N)\n");
    else if (e->sampled < SMALL_SAMPLE && e->sampled < points)
        fprintf(out,
                "warning:      only %llu points sampled: a costly region of fewer than about "
                "%.0f points (3/%llu of the grid) is likely missed, and the range cannot show "
                "it; time a small piece first (run --piece 1/N)\n",
                (unsigned long long)e->sampled,
                fmin(ceil(3.0 * (double)points / (double)e->sampled), (double)points),
                (unsigned long long)e->sampled);
    else if (e->unfinished > e->slowest)
        fprintf(out,
                "warning:      a point was still running after %.3g s, longer than any "
                "sampled one: costlier points than the sample's may raise the total beyond "
                "the range\n",
                e->unfinished);
    else if (share > 0.25 || (e->low > 0 && e->high > 2 * e->low))
        fprintf(out,
                "warning:      the cost is carried by rare points (the slowest sampled point "
                "is %.0f %% of the sample's time): rarer, costlier ones the sample missed would "
                "raise the total beyond the range\n",
                100.0 * share);
}

void is_estimate_print(const is_estimate *e, uint64_t points, int ranks, FILE *out)
{
    if (e->sampled == 0) {
        fprintf(out, "cost:         unknown (no point sampled)\n");
        return;
    }
    double factor = batch_factor(e), per_point = is_estimate_per_point(e);
    double total = per_point * (double)points;
    char each[32], fast[32], slow[32], all[32], wall[32], low[32], high[32];
    format_duration(per_point, each, sizeof each);
    format_duration(e->fastest, fast, sizeof fast);
    format_duration(e->slowest, slow, sizeof slow);
    format_duration(total, all, sizeof all);
    format_duration(total / (ranks > 0 ? ranks : 1), wall, sizeof wall);
    format_duration(e->low * factor * (double)points, low, sizeof low);
    format_duration(e->high * factor * (double)points, high, sizeof high);
    char batches[128] = "";
    if (e->batched)
        snprintf(batches, sizeof batches,
                 "; %llu again in batches, as a run computes them: %.2g times that",
                 (unsigned long long)e->batched, factor);
    const char *bound = e->cut ? "at least " : "about ";
    if (e->cut)
        fprintf(out, "cost:         at least %s a point (%llu sampled, stopped unfinished after "
                     "%s of CPU time at the end of the time budget)\n",
                each, (unsigned long long)e->sampled, slow);
    else
        fprintf(out, "cost:         about %s a point (%llu sampled across the grid, CPU time: "
                     "%s to %s alone%s)\n",
                each, (unsigned long long)e->sampled, fast, slow, batches);
    char hours[48] = "";
    if (total >= 360.0)
        snprintf(hours, sizeof hours, ", %.3g core-hours", total / 3600.0);
    fprintf(out, "estimate:     %s%s of one core%s; %s%s on %d rank%s\n", bound, all, hours,
            bound, wall, ranks, ranks == 1 ? "" : "s");
    if (e->failed)
        fprintf(out, "failures:     %llu of the %llu sampled points failed in the model's code or "
                "its contract (a run fails only those points and names them in its log); "
                "the first, %s\n",
                (unsigned long long)e->failed, (unsigned long long)e->sampled, e->first_failure);
    if (!e->cut)
        fprintf(out, "range:        %s to %s of one core (90 %%, a bootstrap of the %llu "
                     "sampled points)\n",
                low, high, (unsigned long long)e->sampled);
    print_warning(e, points, out);
}
