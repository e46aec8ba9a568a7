/* pieces.c: job-array pieces of equal estimated cost (see pieces.h).
 *
 * The profile: sample i (at grid index s_i, t_i seconds) stands for the points from the
 * midpoint between it and the sample before to the midpoint between it and the sample
 * after, each of them costing t_i; the cumulative cost C(x) of points 0 .. x - 1 is then
 * piecewise linear, and the cost of a piece is a difference of two C's.
 *
 * The cut: see below. */
#include "pieces.h"

#include <math.h>
#include <stdlib.h>

struct is_cost_profile {
    uint64_t points;
    size_t count;    /* stretches (at least 1) */
    uint64_t *start; /* count + 1: stretch i is points start[i] .. start[i + 1] - 1 */
    double *each;    /* count: the cost of one of its points */
    double *before;  /* count + 1: the cost of all points before stretch i */
};

/* A point's cost is at least this share of the mean: a sample cannot see every costly
 * pocket between its points, and no point is free to write. */
#define COST_FLOOR 0.01

static int by_index(const void *a, const void *b)
{
    const is_cost_sample *x = a, *y = b;
    return (x->index > y->index) - (x->index < y->index);
}

/* Merges repeated indices (their mean) in sorted samples; returns how many remain. */
static size_t merge_repeats(is_cost_sample *s, size_t n)
{
    size_t out = 0;
    for (size_t i = 0; i < n;) {
        size_t j = i;
        double sum = 0;
        while (j < n && s[j].index == s[i].index)
            sum += s[j++].seconds;
        s[out].index = s[i].index;
        s[out++].seconds = sum / (double)(j - i);
        i = j;
    }
    return out;
}

static void fill_stretches(is_cost_profile *p, const is_cost_sample *s, size_t n)
{
    double mean = 0;
    for (size_t i = 0; i < n; i++)
        mean += s[i].seconds / (double)n;
    p->start[0] = 0;
    for (size_t i = 0; i < n; i++) {
        p->start[i + 1] = i + 1 < n ? s[i].index + (s[i + 1].index - s[i].index + 1) / 2
                                    : p->points;
        double t = s[i].seconds;
        p->each[i] = mean > 0 ? fmax(isfinite(t) ? t : mean, COST_FLOOR * mean) : 1.0;
    }
    p->before[0] = 0;
    for (size_t i = 0; i < n; i++)
        p->before[i + 1] = p->before[i] + p->each[i] * (double)(p->start[i + 1] - p->start[i]);
}

is_code is_cost_profile_create(uint64_t points, const is_cost_sample *samples, size_t count,
                               is_cost_profile **profile, is_error *err)
{
    *profile = NULL;
    size_t n = 0;
    is_cost_sample *s = malloc((count ? count : 1) * sizeof *s);
    is_cost_profile *p = calloc(1, sizeof *p);
    if (s && p)
        for (size_t i = 0; i < count; i++)
            if (samples[i].index < points && samples[i].seconds >= 0)
                s[n++] = samples[i];
    if (s && p && n == 0) /* no sample: every point alike */
        s[n++] = (is_cost_sample){.index = 0, .seconds = 1.0};
    if (s && p) {
        qsort(s, n, sizeof *s, by_index);
        n = merge_repeats(s, n);
        p->points = points;
        p->count = n;
        p->start = malloc((n + 1) * sizeof *p->start);
        p->each = malloc(n * sizeof *p->each);
        p->before = malloc((n + 1) * sizeof *p->before);
    }
    if (!s || !p || !p->start || !p->each || !p->before) {
        free(s);
        is_cost_profile_free(&p);
        return is_error_set(err, IS_NOMEM, "out of memory");
    }
    fill_stretches(p, s, n);
    free(s);
    *profile = p;
    return IS_OK;
}

void is_cost_profile_free(is_cost_profile **profile)
{
    if (!*profile)
        return;
    free((*profile)->start);
    free((*profile)->each);
    free((*profile)->before);
    free(*profile);
    *profile = NULL;
}

/* C(x): the cost of points 0 .. x - 1. */
static double cost_before(const is_cost_profile *p, uint64_t x)
{
    size_t lo = 0, hi = p->count; /* the stretch holding x: start[lo] <= x < start[lo + 1] */
    while (hi - lo > 1) {
        size_t mid = lo + (hi - lo) / 2;
        if (p->start[mid] <= x)
            lo = mid;
        else
            hi = mid;
    }
    if (x >= p->points)
        return p->before[p->count];
    return p->before[lo] + p->each[lo] * (double)(x - p->start[lo]);
}

double is_cost_profile_between(const is_cost_profile *p, uint64_t first, uint64_t last)
{
    return cost_before(p, last) - cost_before(p, first);
}

/* --- the cut --------------------------------------------------------------------------
 * A piece is a run of whole slices of some axis k inside one slice of axis k - 1. For a
 * bound T on a piece's cost, the fewest pieces of cost <= T come from one walk along the
 * slices of axis 0: runs as long as T allows, and a slice that alone costs more than T
 * cut the same way along the next axis (greedy runs are the fewest for a line of
 * slices, and a slice above T cannot share a piece). The least T for which N pieces
 * suffice is found by bisection; the walk at that T gives at most N pieces, and the
 * costliest are then halved until there are N. */

typedef struct walk {
    const is_grid *grid;
    const is_cost_profile *profile;
    double bound;       /* T */
    uint64_t most;      /* stop counting beyond this many pieces */
    uint64_t *bounds;   /* when not NULL: each piece's first point is written here */
    uint64_t count;     /* pieces so far */
} walk;

/* Points first .. last - 1 (whole slices of axis k inside one slice of axis k - 1) cut
 * into pieces of cost <= bound; 0, or -1 when a single point costs more (or too many). */
static int walk_slices(walk *w, size_t k, uint64_t first, uint64_t last)
{
    uint64_t stride = w->grid->stride[k];
    for (uint64_t at = first; at < last;) {
        if (w->count > w->most)
            return -1;
        double one = is_cost_profile_between(w->profile, at, at + stride);
        if (one > w->bound) { /* this slice alone needs several pieces */
            if (k + 1 >= w->grid->axis_count || walk_slices(w, k + 1, at, at + stride) != 0)
                return -1;
            at += stride;
            continue;
        }
        uint64_t lo = 1, hi = (last - at) / stride; /* the most slices within the bound */
        while (lo < hi) {
            uint64_t mid = hi - (hi - lo) / 2;
            if (is_cost_profile_between(w->profile, at, at + mid * stride) <= w->bound)
                lo = mid;
            else
                hi = mid - 1;
        }
        if (w->bounds && w->count < w->most)
            w->bounds[w->count] = at;
        w->count++;
        at += lo * stride;
    }
    return 0;
}

/* The pieces of cost <= bound (at most `most`; more, or a point above the bound: 0). */
static uint64_t pieces_within(const is_grid *grid, const is_cost_profile *profile,
                              double bound, uint64_t most, uint64_t *bounds)
{
    walk w = {.grid = grid, .profile = profile, .bound = bound, .most = most, .bounds = bounds};
    if (grid->axis_count == 0) {
        if (bounds)
            bounds[0] = 0;
        return 1;
    }
    int rc = walk_slices(&w, 0, 0, grid->point_count);
    return rc == 0 && w.count <= most ? w.count : 0;
}

/* Where piece first .. last - 1 (more than one point) is best halved: on a boundary of
 * the slices it is made of (of the next axis in, if it is one slice), the one that
 * leaves the two halves' costs nearest. */
static uint64_t halving_point(const is_grid *grid, const is_cost_profile *profile,
                              uint64_t first, uint64_t last)
{
    size_t k = 0;
    while (k + 1 < grid->axis_count &&
           (first % grid->stride[k] != 0 || last - first <= grid->stride[k]))
        k++; /* the coarsest axis of which the piece is several whole slices */
    uint64_t stride = grid->stride[k], lo = 1, hi = (last - first) / stride - 1;
    double half = is_cost_profile_between(profile, first, last) / 2;
    while (lo < hi) { /* the fewest slices reaching half the cost */
        uint64_t mid = lo + (hi - lo) / 2;
        if (is_cost_profile_between(profile, first, first + mid * stride) >= half)
            hi = mid;
        else
            lo = mid + 1;
    }
    uint64_t at = first + lo * stride;
    if (lo > 1 && half - is_cost_profile_between(profile, first, at - stride) <
                      is_cost_profile_between(profile, first, at) - half)
        at -= stride;
    return at;
}

static int by_value(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

/* From `have` pieces (their first points in bounds[0 .. have - 1]) to `pieces`: the
 * costliest piece of more than one point is halved, again and again. Each round scans
 * the pieces: O(pieces x halvings), and halvings are few (the bisection leaves at most
 * the pieces one more walk would have made). */
static void halve_to(const is_grid *grid, const is_cost_profile *profile, uint64_t *bounds,
                     uint64_t have, uint64_t pieces)
{
    while (have < pieces) {
        qsort(bounds, have, sizeof *bounds, by_value);
        bounds[have] = grid->point_count;
        uint64_t costliest = have;
        double most = -1;
        for (uint64_t i = 0; i < have; i++) {
            double cost = is_cost_profile_between(profile, bounds[i], bounds[i + 1]);
            if (bounds[i + 1] - bounds[i] > 1 && cost > most) {
                most = cost;
                costliest = i;
            }
        }
        bounds[have] = halving_point(grid, profile, bounds[costliest], bounds[costliest + 1]);
        have++;
    }
    qsort(bounds, pieces, sizeof *bounds, by_value);
}

is_code is_pieces_by_cost(const is_grid *grid, const is_cost_profile *profile, uint64_t pieces,
                          uint64_t *bounds, is_error *err)
{
    uint64_t total = grid->point_count;
    if (pieces < 1 || pieces > total)
        return is_error_set(err, IS_USAGE, "%llu pieces for %llu points",
                            (unsigned long long)pieces, (unsigned long long)total);
    double all = is_cost_profile_between(profile, 0, total);
    double lo = all / (double)pieces, hi = all; /* N pieces never do with less than lo */
    if (pieces_within(grid, profile, lo, pieces, NULL) == 0) {
        for (int round = 0; round < 100 && hi - lo > 1e-9 * all; round++) {
            double mid = lo + (hi - lo) / 2;
            if (pieces_within(grid, profile, mid, pieces, NULL) != 0)
                hi = mid;
            else
                lo = mid;
        }
    } else {
        hi = lo;
    }
    uint64_t have = pieces_within(grid, profile, hi, pieces, bounds);
    if (have == 0) /* (hi >= all always admits one piece: a failure is a bug here) */
        return is_error_set(err, IS_INTERNAL, "no cut of %llu points into %llu pieces",
                            (unsigned long long)total, (unsigned long long)pieces);
    halve_to(grid, profile, bounds, have, pieces);
    bounds[pieces] = total;
    return IS_OK;
}

double is_pieces_imbalance(const is_cost_profile *profile, const uint64_t *bounds,
                           uint64_t pieces)
{
    double slowest = 0, all = 0;
    for (uint64_t i = 0; i < pieces; i++) {
        double cost = is_cost_profile_between(profile, bounds[i], bounds[i + 1]);
        slowest = fmax(slowest, cost);
        all += cost;
    }
    return all > 0 ? slowest / (all / (double)pieces) : 1.0;
}
