/* pieces_plan.c: `run --dry-run --pieces N` (see pieces_plan.h). */
#include "pieces_plan.h"

#include <stdlib.h>

#include "../core/job/pieces.h"
#include "estimate.h"

/* The sample: as many points as about half of BASE seconds plus PER_PIECE a piece allow
 * (the estimate times them one by one for half its budget, in batches for the other; at
 * most MAX_SECONDS; on a cheap grid every point, up to MAX_POINTS, spread coarse to fine
 * so that a sample cut short still spans the grid). */
#define MAX_POINTS 16384
#define BASE_SECONDS 3.0
#define PER_PIECE_SECONDS 0.5
#define MAX_SECONDS 60.0

typedef struct collected {
    is_cost_sample *samples;
    size_t count, room;
} collected;

static void collect(void *user, uint64_t index, double seconds)
{
    collected *c = user;
    if (c->count < c->room)
        c->samples[c->count++] = (is_cost_sample){.index = index, .seconds = seconds};
}

static is_code check_plan(const is_job *job, uint64_t pieces, is_error *err)
{
    if (job->piece_count > 1)
        return is_error_set(err, IS_USAGE, "--pieces plans the pieces of the whole grid: "
                                           "drop --piece (and [sweep] piece)");
    if (job->refine_levels > 0)
        return is_error_set(err, IS_USAGE, "--pieces: a refined sweep cannot be cut into "
                                           "job-array pieces (run it as one MPI job)");
    if (pieces < 1 || pieces > job->grid.point_count || pieces > IS_PIECES_PLAN_MAX)
        return is_error_set(err, IS_USAGE,
                            "--pieces %llu: %llu pieces for %llu points (from 1 to %llu pieces)",
                            (unsigned long long)pieces, (unsigned long long)pieces,
                            (unsigned long long)job->grid.point_count,
                            (unsigned long long)(job->grid.point_count < IS_PIECES_PLAN_MAX
                                                     ? job->grid.point_count
                                                     : IS_PIECES_PLAN_MAX));
    return IS_OK;
}

/* The bounds of is_grid_piece's pieces of equal size. */
static void equal_size_bounds(const is_job *job, uint64_t pieces, uint64_t *bounds)
{
    for (uint64_t i = 0; i < pieces; i++) {
        is_grid_box box;
        uint64_t last;
        is_grid_piece(&job->grid, pieces, i, &box, &bounds[i], &last);
        bounds[i + 1] = last;
    }
}

static is_code print_cut(const is_job *job, const is_cost_profile *profile, uint64_t pieces,
                         FILE *out, is_error *err)
{
    uint64_t *bounds = malloc((pieces + 1) * sizeof *bounds);
    uint64_t *equal = malloc((pieces + 1) * sizeof *equal);
    is_code rc = bounds && equal ? IS_OK : is_error_set(err, IS_NOMEM, "out of memory");
    if (rc == IS_OK)
        rc = is_pieces_by_cost(&job->grid, profile, pieces, bounds, err);
    if (rc == IS_OK) {
        equal_size_bounds(job, pieces, equal);
        fprintf(out, "pieces:       %llu of equal estimated cost: the slowest %.2f x the mean "
                     "(%llu of equal size: %.2f x)\n",
                (unsigned long long)pieces, is_pieces_imbalance(profile, bounds, pieces),
                (unsigned long long)pieces, is_pieces_imbalance(profile, equal, pieces));
        fprintf(out, "piece bounds:");
        for (uint64_t i = 0; i <= pieces; i++)
            fprintf(out, " %llu", (unsigned long long)bounds[i]);
        fprintf(out, "\n");
    }
    free(bounds);
    free(equal);
    return rc;
}

is_code is_pieces_plan(const is_job *job, uint64_t pieces, int ranks, FILE *out, is_error *err)
{
    is_code rc = check_plan(job, pieces, err);
    if (rc != IS_OK)
        return rc;
    uint64_t most = MAX_POINTS;
    double budget = BASE_SECONDS + PER_PIECE_SECONDS * (double)pieces;
    budget = budget > MAX_SECONDS ? MAX_SECONDS : budget;
    collected c = {.samples = malloc(most * sizeof *c.samples), .room = most};
    if (!c.samples)
        return is_error_set(err, IS_NOMEM, "out of memory");
    is_estimate estimate;
    is_estimate_each each = {.point = collect, .user = &c};
    rc = is_estimate_cost_each(job, budget, most, &estimate, &each, err);
    is_cost_profile *profile = NULL;
    if (rc == IS_OK) {
        is_estimate_print(&estimate, job->grid.point_count, ranks, out);
        rc = is_cost_profile_create(job->grid.point_count, c.samples, c.count, &profile, err);
    }
    if (rc == IS_OK)
        rc = print_cut(job, profile, pieces, out, err);
    is_cost_profile_free(&profile);
    free(c.samples);
    return rc;
}
