/* pending.c: the parallel scan of `status` (see pending.h). */
#include "pending.h"

#include <stdlib.h>
#include <string.h>

#include "collective.h"

/* Status bytes read at a time by a rank. */
#define SCAN_BLOCK (UINT64_C(1) << 22)
/* A segment is at least this long, so that small files get few segments. */
#define MIN_SEGMENT 4096

uint64_t is_pending_segment_length(const is_pending_map *map, uint64_t s)
{
    uint64_t start = s * map->segment_length;
    uint64_t end = start + map->segment_length;
    return (end < map->points ? end : map->points) - start;
}

void is_pending_free(is_pending_map *map)
{
    free(map->pending);
    map->pending = NULL;
}

is_code is_pending_scan(is_results *results, MPI_Comm comm, is_pending_map *map,
                        uint64_t tally[IS_POINT_STATUS_COUNT], is_error *err)
{
    return is_pending_scan_filtered(results, comm, NULL, map, tally, err);
}

is_code is_pending_scan_filtered(is_results *results, MPI_Comm comm,
                                 const is_pending_filter *filter, is_pending_map *map,
                                 uint64_t tally[IS_POINT_STATUS_COUNT], is_error *err)
{
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    memset(map, 0, sizeof *map);
    map->points = is_results_point_count(results);
    uint64_t length = (map->points + IS_PENDING_MAX_SEGMENTS - 1) / IS_PENDING_MAX_SEGMENTS;
    map->segment_length = length < MIN_SEGMENT ? MIN_SEGMENT : length;
    map->segment_count = (map->points + map->segment_length - 1) / map->segment_length;
    size_t status_var = is_results_variable_count(results) - 1;

    /* this rank's share: whole segments lo .. hi - 1 */
    uint64_t n = map->segment_count, r = (uint64_t)rank, p = (uint64_t)size;
    uint64_t lo = n / p * r + n % p * r / p, hi = n / p * (r + 1) + n % p * (r + 1) / p;
    uint64_t *counts = calloc(n ? n : 1, sizeof *counts);
    uint64_t first = lo * map->segment_length;
    uint64_t last = hi * map->segment_length < map->points ? hi * map->segment_length : map->points;
    uint64_t block = last - first < SCAN_BLOCK ? last - first : SCAN_BLOCK;
    uint8_t *status = malloc(block ? block : 1);
    uint64_t mine[IS_POINT_STATUS_COUNT + 1] = {0}; /* the last: values out of range */
    is_code rc = counts && status ? IS_OK : is_error_set(err, IS_NOMEM, "out of memory");
    for (uint64_t at = first; at < last && rc == IS_OK; at += block) {
        uint64_t m = last - at < block ? last - at : block;
        rc = is_results_read_raw(results, status_var, at, m, status, err);
        for (uint64_t i = 0; rc == IS_OK && i < m; i++) {
            uint8_t s = status[i];
            mine[s < IS_POINT_STATUS_COUNT ? s : IS_POINT_STATUS_COUNT]++;
            int wanted = s == IS_POINT_PENDING;
            if (wanted && filter)
                rc = filter->pick(filter->context, at + i, &wanted, err);
            counts[(at + i) / map->segment_length] += wanted && rc == IS_OK;
        }
    }
    free(status);
    if (rc == IS_OK && mine[IS_POINT_STATUS_COUNT])
        rc = is_error_set(err, IS_NOT_RESULT,
                          "%llu points of the file have a status value that is not one of "
                          "impactsweep's: the file is damaged",
                          (unsigned long long)mine[IS_POINT_STATUS_COUNT]);
    rc = is_collective_agree(rc, comm, err);
    if (rc == IS_OK) {
        uint64_t total[IS_POINT_STATUS_COUNT + 1];
        MPI_Reduce(mine, total, IS_POINT_STATUS_COUNT + 1, MPI_UINT64_T, MPI_SUM, 0, comm);
        /* the map's counts: each rank's share is disjoint, so a sum is a gather */
        MPI_Reduce(rank == 0 ? MPI_IN_PLACE : counts, counts, (int)n, MPI_UINT64_T, MPI_SUM, 0,
                   comm);
        if (rank == 0) {
            memcpy(tally, total, IS_POINT_STATUS_COUNT * sizeof *tally);
            map->pending = counts;
            counts = NULL;
        }
    }
    free(counts);
    return rc;
}
