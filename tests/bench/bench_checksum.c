/* bench_checksum.c: what the checksums of a result file cost (issue 22), piece by piece,
 * on one process: the CRC-32C of N points' records as a write makes them (the synthetic
 * model's 22 bytes a point: an index, two doubles, an int32, an int8 and the status), and
 * on a result file FILE (made by `impactsweep run`): the digest of its fixed bytes (what
 * a creation adds at its end, and every check reads), and the check of every stored point
 * (what --resume, merge and info --verify read). Medians of R repeats, in seconds of CPU
 * time (the machine may be shared).
 *
 *     bench_checksum [N [FILE [R]]]      (default N = 10^7, no file, R = 5) */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/base/crc32c.h"
#include "core/store/digest.h"
#include "core/store/results.h"
#include "core/store/verify.h"

/* Seconds of this process's CPU: on a machine shared with other work the wall clock says
 * how busy the others are. */
static double now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *t, int n)
{
    qsort(t, (size_t)n, sizeof *t, by_value);
    return n % 2 ? t[n / 2] : 0.5 * (t[n / 2 - 1] + t[n / 2]);
}

/* The records of n points in blocks of 2^16, as is_results_write makes them. */
static double records(uint64_t n)
{
    enum { BLOCK = 1 << 16 };
    double *a = malloc(BLOCK * sizeof *a), *b = malloc(BLOCK * sizeof *b);
    int32_t *c = malloc(BLOCK * sizeof *c);
    int8_t *d = malloc(BLOCK);
    uint8_t *s = malloc(BLOCK);
    uint32_t *states = malloc(BLOCK * sizeof *states);
    for (int i = 0; i < BLOCK; i++) {
        a[i] = 0.5 * i, b[i] = -1.0 / (i + 1), c[i] = i, d[i] = (int8_t)(i % 3), s[i] = 1;
    }
    const void *columns[] = {a, b, c, d, s};
    const size_t sizes[] = {8, 8, 4, 1, 1};
    uint32_t sink = 0;
    double started = now_seconds();
    for (uint64_t at = 0; at < n; at += BLOCK) {
        size_t m = n - at < BLOCK ? (size_t)(n - at) : BLOCK;
        is_crc32c_records(states, at, m, columns, sizes, 5);
        sink ^= states[m - 1];
    }
    double took = now_seconds() - started;
    free(a), free(b), free(c), free(d), free(s), free(states);
    if (sink == 0x12345678u)
        printf("(sink)\n");
    return took;
}

int main(int argc, char **argv)
{
    uint64_t n = argc > 1 ? strtoull(argv[1], NULL, 10) : 10000000;
    const char *file = argc > 2 ? argv[2] : NULL;
    int repeats = argc > 3 ? atoi(argv[3]) : 5;
    double t[100];
    repeats = repeats < 1 ? 1 : repeats > 100 ? 100 : repeats;
    for (int i = 0; i < repeats; i++)
        t[i] = records(n);
    double crc = median(t, repeats);
    printf("records of %llu points (22 bytes each): %.4f s, %.3g points/s, %.2f GB/s\n",
           (unsigned long long)n, crc, (double)n / crc, 22.0 * (double)n / crc / 1e9);
    if (!file)
        return 0;
    MPI_Init(&argc, &argv);
    is_results *r = NULL;
    is_error err;
    if (is_results_open(file, MPI_COMM_NULL, IS_RESULTS_READ, &r, &err) != IS_OK) {
        fprintf(stderr, "bench_checksum: %s\n", err.message);
        MPI_Finalize();
        return 2;
    }
    size_t rows = is_results_digest_rows(r);
    uint64_t(*table)[4] = calloc(rows, sizeof *table);
    for (int i = 0; i < repeats; i++) {
        double started = now_seconds();
        is_digest_compute(r, MPI_COMM_NULL, NULL, table, &err);
        t[i] = now_seconds() - started;
    }
    uint64_t fixed = 0;
    for (uint64_t s = 0; s < table[0][2]; s++)
        fixed += table[1 + s][1];
    printf("digest of the fixed bytes of %s (%llu bytes in %llu segments): %.4f s\n", file,
           (unsigned long long)fixed, (unsigned long long)table[0][2], median(t, repeats));
    uint64_t stored = 0;
    for (int i = 0; i < repeats; i++) {
        double started = now_seconds();
        if (is_verify_points(r, MPI_COMM_NULL, NULL, &stored, &err) != IS_OK)
            fprintf(stderr, "bench_checksum: %s\n", err.message);
        t[i] = now_seconds() - started;
    }
    printf("check of the %llu stored points (read and CRC): %.4f s\n", (unsigned long long)stored,
           median(t, repeats));
    free(table);
    is_results_close(&r, NULL);
    MPI_Finalize();
    return 0;
}
