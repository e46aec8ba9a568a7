/* bench_util.h: the clock and the median helper the benchmarks share. */
#ifndef IMPACTSWEEP_BENCH_UTIL_H
#define IMPACTSWEEP_BENCH_UTIL_H

#include <stdlib.h>
#include <time.h>

static inline double bench_now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static inline int bench_compare_doubles(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Sorts values[0 .. count) and returns the median (the upper one for even counts). */
static inline double bench_median(double *values, size_t count)
{
    qsort(values, count, sizeof *values, bench_compare_doubles);
    return values[count / 2];
}

#endif
