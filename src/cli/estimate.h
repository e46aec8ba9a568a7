/* estimate.h: `run --dry-run`'s cost estimate: a short, timed sample of the job's own
 * points, spread over the grid (or the piece), evaluated by the model on this rank: each
 * point alone (its cost, for the spread), then the same points again in batches as a run
 * evaluates them (lane-parallel models compute a batch much faster than its points one by
 * one). Times are this thread's CPU time, so that other work on the machine does not
 * inflate them; the range is a bootstrap of the sampled points. */
#ifndef IMPACTSWEEP_CLI_ESTIMATE_H
#define IMPACTSWEEP_CLI_ESTIMATE_H

#include <stdint.h>
#include <stdio.h>

#include "../core/base/error.h"
#include "../core/job/job.h"

typedef struct is_estimate {
    uint64_t sampled;    /* points evaluated one by one */
    double seconds;      /* their CPU time, in all */
    double fastest, slowest; /* one point's */
    double low, high;    /* the mean of one point alone: a 90 % bootstrap interval */
    uint64_t batched;    /* of them, points evaluated again in batches (each batch a spread
                            over the grid, as many as the budget allowed) */
    double batch_seconds;    /* their CPU time in batches */
    double alone_seconds;    /* the same points' CPU time one by one */
    double unfinished;   /* CPU time of a point stopped unfinished at the end of the first
                            pass (not in the sample) */
    int cut;             /* the first point was still running when the time budget ran
                            out and counts with the time it had: the estimate is a lower
                            bound */
    uint64_t failed;     /* sampled points the engine failed: the model's code crashed on
                            them, ran past point_timeout or broke the contract (a run names
                            them in its log) */
    char first_failure[512]; /* the first of them: "x = 1, y = 2: FAILED_CRASH: ..." */
} is_estimate;

/* Evaluates up to max_points points of the job, for at most about budget_seconds (a point
 * still running then is stopped through the model's workspace_watch, where it has one; a
 * contained one is killed after the grace of evaluator.h): one by one for half of it,
 * then in batches, where a run evaluates them (a plug-in in its evaluator process: a point
 * that crashes it is counted, not fatal). IS_OK, or the model's error. */
is_code is_estimate_cost(const is_job *job, double budget_seconds, uint64_t max_points,
                         is_estimate *estimate, is_error *err);

/* The sample point by point (slurm/submit's pieces of equal cost are cut from it). */
typedef struct is_estimate_each {
    void (*point)(void *user, uint64_t index, double seconds); /* its grid index, its CPU
                                                                   time alone */
    void *user;
} is_estimate_each;

/* is_estimate_cost, then each sampled point handed to each->point (each may be NULL). */
is_code is_estimate_cost_each(const is_job *job, double budget_seconds, uint64_t max_points,
                              is_estimate *estimate, const is_estimate_each *each,
                              is_error *err);

/* Seconds of one point in a run: the sample's mean, scaled by what batches saved. */
double is_estimate_per_point(const is_estimate *estimate);

/* "cost: ..." lines: time per point, core-hours of the job, wall time on `ranks`, the
 * range, and a warning when the sample is too small or too uneven to trust. */
void is_estimate_print(const is_estimate *estimate, uint64_t points, int ranks, FILE *out);

#endif
