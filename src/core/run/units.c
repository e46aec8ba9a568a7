/* units.c: the work units, a contiguous region of points per rank (see units.h). */
#include "units.h"

#include <math.h>
#include <stdlib.h>

/* A bound of a region: at a multiple of the quantum where the regions are long enough. */
static uint64_t region_bound(uint64_t points, int parts, int k)
{
    uint64_t at = (uint64_t)((double)points * (double)k / (double)parts);
    if (points / (uint64_t)parts >= 4 * IS_UNITS_QUANTUM)
        at = at / IS_UNITS_QUANTUM * IS_UNITS_QUANTUM;
    return k == parts ? points : at;
}

is_code is_units_init(is_units *u, const is_pending_map *map, uint64_t points, uint64_t pending,
                      int ranks, int rank0_computes, is_error *err)
{
    u->map = map;
    u->ranks = ranks > 0 ? ranks : 1;
    u->remaining = pending;
    u->regions = calloc((size_t)u->ranks, sizeof *u->regions);
    if (!u->regions)
        return is_error_set(err, IS_NOMEM, "out of memory");
    int from = rank0_computes || u->ranks == 1 ? 0 : 1, parts = u->ranks - from;
    for (int k = 0; k < parts; k++)
        u->regions[from + k] = (is_units_region){region_bound(points, parts, k),
                                                 region_bound(points, parts, k + 1)};
    return IS_OK;
}

void is_units_free(is_units *u)
{
    free(u->regions);
    u->regions = NULL;
}

/* Pending points of [a, b) inside segment s, estimated as evenly spread. */
static double estimate(const is_units *u, uint64_t segment, uint64_t a, uint64_t b)
{
    if (!u->map)
        return (double)(b - a);
    double length = (double)is_pending_segment_length(u->map, segment);
    return (double)u->map->pending[segment] * (double)(b - a) / length;
}

/* Moves g's front past the segments with nothing pending. */
static void skip_done(const is_units *u, is_units_region *g)
{
    const is_pending_map *map = u->map;
    if (!map)
        return;
    while (g->next < g->end && map->pending[g->next / map->segment_length] == 0)
        g->next = (g->next / map->segment_length + 1) * map->segment_length;
    if (g->next > g->end)
        g->next = g->end;
}

/* Rank r's region is used up: it takes the back half of the largest one left, at least
 * `want` points of it (all of it where it holds no more): taking less would leave both
 * ranks crumbs to fight over, each take-over a write of its own. 0 when nothing is left. */
static int steal(is_units *u, int r, uint64_t want)
{
    int victim = -1;
    uint64_t longest = 0;
    for (int k = 0; k < u->ranks; k++) {
        uint64_t length = u->regions[k].end - u->regions[k].next;
        if (k != r && length > longest) {
            longest = length;
            victim = k;
        }
    }
    if (victim < 0)
        return 0;
    is_units_region *v = &u->regions[victim];
    uint64_t mid = v->next + longest / 2;
    if (longest <= want)
        mid = v->next;
    else if (v->end - mid < want)
        mid = v->end - want;
    if (longest >= 8 * IS_UNITS_QUANTUM)
        mid = mid / IS_UNITS_QUANTUM * IS_UNITS_QUANTUM;
    u->regions[r] = (is_units_region){mid, v->end};
    v->end = mid;
    return 1;
}

int is_units_next(is_units *u, int rank, uint64_t want, uint64_t *first, uint64_t *count)
{
    if (!u->regions || rank < 0 || rank >= u->ranks)
        return 0;
    is_units_region *g = &u->regions[rank];
    for (skip_done(u, g); g->next >= g->end; skip_done(u, g))
        if (!steal(u, rank, want))
            return 0;
    const is_pending_map *map = u->map;
    uint64_t at = g->next;
    double got = 0;
    while (at < g->end && got < (double)want) {
        uint64_t segment = map ? at / map->segment_length : 0;
        uint64_t seg_end = map ? (segment + 1) * map->segment_length : g->end;
        if (seg_end > g->end)
            seg_end = g->end;
        double here = estimate(u, segment, at, seg_end);
        if (got + here <= (double)want) {
            got += here;
            at = seg_end;
            continue;
        }
        /* part of this segment */
        double fraction = ((double)want - got) / here;
        uint64_t part = (uint64_t)ceil(fraction * (double)(seg_end - at));
        at += part > 0 ? part : 1;
        got = (double)want;
    }
    if (at - g->next >= 4 * IS_UNITS_QUANTUM && at < g->end)
        at = at / IS_UNITS_QUANTUM * IS_UNITS_QUANTUM; /* aligned unit ends */
    if (g->end - at < (at - g->next) / 4)
        at = g->end; /* no crumbs of a region left behind (a take-over's write each) */
    got = 0; /* what the unit holds, after the alignment */
    for (uint64_t a = g->next; a < at;) {
        uint64_t segment = map ? a / map->segment_length : 0;
        uint64_t seg_end = map ? (segment + 1) * map->segment_length : at;
        seg_end = seg_end < at ? seg_end : at;
        got += estimate(u, segment, a, seg_end);
        a = seg_end;
    }
    *first = g->next;
    *count = at - g->next;
    u->remaining = (double)u->remaining > got ? u->remaining - (uint64_t)got : 0;
    g->next = at;
    return 1;
}
