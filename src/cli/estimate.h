/* estimate.h: `run --dry-run`'s cost estimate: a short, timed sample of the job's own
 * points, spread evenly over the grid (or the piece), evaluated by the model on this rank. */
#ifndef IMPACTSWEEP_CLI_ESTIMATE_H
#define IMPACTSWEEP_CLI_ESTIMATE_H

#include <stdint.h>
#include <stdio.h>

#include "../core/error.h"
#include "../core/job.h"

typedef struct is_estimate {
    uint64_t sampled;    /* points evaluated */
    double seconds;      /* their time, in all */
    double fastest, slowest; /* one point's time */
    int cut;             /* the last point was still running when the time budget ran out
                            and counts with the time it had: the estimate is a lower
                            bound */
} is_estimate;

/* Evaluates up to max_points points of the job, one at a time, for at most about
 * budget_seconds (a point still running then is stopped through the model's
 * workspace_watch, where it has one). IS_OK, or the model's error. */
is_code is_estimate_cost(const is_job *job, double budget_seconds, uint64_t max_points,
                         is_estimate *estimate, is_error *err);

/* "cost: ..." lines: time per point, core-hours of the job, wall time on `ranks`. */
void is_estimate_print(const is_estimate *estimate, uint64_t points, int ranks, FILE *out);

#endif
