/* digest.c: the digest of a result file's fixed bytes (see digest.h). */
#include "digest.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "collective.h"
#include "crc32c.h"
#include "results_layout.h"

#define PIECE (UINT64_C(1) << 20)

typedef struct cut {
    uint64_t offset, length;
    uint64_t kind; /* 0: mutable (left out); 1 + k: coordinate k */
} cut;

static int by_offset(const void *a, const void *b)
{
    const cut *x = a, *y = b;
    return x->offset < y->offset ? -1 : x->offset > y->offset;
}

/* splitmix64's finaliser: a bijection that spreads every input bit over the output. */
static uint64_t mix(uint64_t z)
{
    z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
    return z ^ (z >> 31);
}

static void add_segment(uint64_t (*rows)[4], size_t capacity, uint64_t offset, uint64_t length,
                        uint64_t kind)
{
    uint64_t n = rows[0][2];
    if (length == 0 || 1 + n >= capacity)
        return;
    rows[1 + n][0] = offset;
    rows[1 + n][1] = length;
    rows[1 + n][2] = kind;
    rows[1 + n][3] = 0;
    rows[0][2] = n + 1;
}

/* The segments of a file of `size` bytes with r's layout, digests 0; rows[0] the header.
 * Returns 0 when the cuts do not fit the table (a damaged layout). */
static int segments(const is_results *r, uint64_t size, uint64_t (*rows)[4], size_t capacity)
{
    size_t axes = is_results_axis_count(r);
    size_t max = is_results_variable_count(r) + 4 + IS_LAYOUT_RUN_COUNT + axes;
    cut *cuts = calloc(max, sizeof *cuts);
    uint64_t(*extents)[2] = calloc(max, sizeof *extents);
    int ok = cuts && extents;
    size_t n = ok ? is_results_mutable_extents(r, extents, max - axes) : 0;
    for (size_t i = 0; ok && i < n; i++)
        cuts[i] = (cut){extents[i][0], extents[i][1], 0};
    for (size_t k = 0; ok && k < axes; k++) {
        uint64_t e[2];
        is_results_coordinate_extent(r, k, e);
        cuts[n++] = (cut){e[0], e[1], 1 + k};
    }
    memset(rows, 0, capacity * sizeof *rows);
    rows[0][0] = IS_LAYOUT_DIGEST_VERSION;
    rows[0][1] = size;
    if (ok) {
        qsort(cuts, n, sizeof *cuts, by_offset);
        uint64_t at = 0;
        for (size_t i = 0; i < n; i++) {
            if (cuts[i].length == 0)
                continue;
            if (cuts[i].offset > at)
                add_segment(rows, capacity, at, cuts[i].offset - at, IS_LAYOUT_SEGMENT_METADATA);
            if (cuts[i].kind)
                add_segment(rows, capacity, cuts[i].offset, cuts[i].length, cuts[i].kind);
            if (cuts[i].offset + cuts[i].length > at)
                at = cuts[i].offset + cuts[i].length;
        }
        if (at < size)
            add_segment(rows, capacity, at, size - at, IS_LAYOUT_SEGMENT_METADATA);
    }
    free(cuts);
    free(extents);
    return ok;
}

/* This rank's pieces (every size-th, from rank on) added into the segments' digests (of
 * the metadata alone, skipping the coordinates, if metadata_only); *stopped when a stop cut
 * it short. */
static is_code digest_pieces(const char *path, uint64_t (*rows)[4], int rank, int size,
                             int metadata_only, is_stop *stop, int *stopped, is_error *err)
{
    int fd = open(path, O_RDONLY);
    unsigned char *buf = malloc(PIECE);
    if (fd < 0 || !buf) {
        if (fd >= 0)
            close(fd);
        free(buf);
        return fd < 0 ? is_error_set(err, IS_IO, "%s: cannot read: %s", path, strerror(errno))
                      : is_error_set(err, IS_NOMEM, "out of memory");
    }
    is_code rc = IS_OK;
    uint64_t piece = 0;
    for (uint64_t s = 0; s < rows[0][2] && !*stopped; s++) {
        uint64_t *row = rows[1 + s];
        if (metadata_only && row[2] != IS_LAYOUT_SEGMENT_METADATA)
            continue;
        for (uint64_t at = row[0]; at < row[0] + row[1] && !*stopped; piece++) {
            uint64_t end = (at / PIECE + 1) * PIECE; /* pieces align to the file's MiBs */
            end = end < row[0] + row[1] ? end : row[0] + row[1];
            if ((int)(piece % (uint64_t)size) == rank) {
                if ((*stopped = is_stop_poll(stop)) != 0)
                    break;
                ssize_t got = pread(fd, buf, (size_t)(end - at), (off_t)at);
                /* bytes the file lacks (a truncated file) count as damage, not an error */
                size_t have = got > 0 ? (size_t)got : 0;
                memset(buf + have, 0xa5, (size_t)(end - at) - have);
                uint32_t crc = is_crc32c(0, buf, (size_t)(end - at));
                row[3] += mix(at ^ ((uint64_t)crc << 32) ^ (end - at));
            }
            at = end;
        }
    }
    free(buf);
    close(fd);
    return rc;
}

static is_code compute(is_results *r, MPI_Comm comm, is_stop *stop, int metadata_only,
                       uint64_t (*rows)[4], is_error *err)
{
    int rank = 0, size = 1;
    if (comm != MPI_COMM_NULL) {
        MPI_Comm_rank(comm, &rank);
        MPI_Comm_size(comm, &size);
    }
    size_t capacity = is_results_digest_rows(r);
    const char *path = is_results_path(r);
    struct stat st;
    unsigned long long bytes =
        rank == 0 && stat(path, &st) == 0 ? (unsigned long long)st.st_size : 0;
    if (comm != MPI_COMM_NULL) /* one size for all: rank 0's view of the file */
        MPI_Bcast(&bytes, 1, MPI_UNSIGNED_LONG_LONG, 0, comm);
    is_code rc = capacity && segments(r, bytes, rows, capacity)
                     ? IS_OK
                     : is_error_set(err, IS_DAMAGED,
                                    "%s: its layout does not fit its digest "
                                    "table: the file's metadata is damaged",
                                    path);
    int stopped = 0, any = 0;
    if (rc == IS_OK)
        rc = digest_pieces(path, rows, rank, size, metadata_only, stop, &stopped, err);
    rc = is_collective_agree(rc, comm, err);
    any = stopped;
    if (comm != MPI_COMM_NULL) /* a table cut short by a stop on any rank is no answer */
        MPI_Allreduce(&stopped, &any, 1, MPI_INT, MPI_MAX, comm);
    if (rc == IS_OK && any)
        rc = is_error_set(err, IS_INTERRUPTED, "%s: stopped while reading it", path);
    if (rc == IS_OK && comm != MPI_COMM_NULL) {
        uint64_t n = rows[0][2];
        uint64_t *sums = malloc((size_t)(n ? n : 1) * sizeof *sums);
        for (uint64_t s = 0; sums && s < n; s++)
            sums[s] = rows[1 + s][3];
        /* uint64 sums wrap: the digest is a sum modulo 2^64 */
        if (sums)
            MPI_Allreduce(MPI_IN_PLACE, sums, (int)n, MPI_UINT64_T, MPI_SUM, comm);
        for (uint64_t s = 0; sums && s < n; s++)
            rows[1 + s][3] = sums[s];
        rc = is_collective_agree(sums ? IS_OK : is_error_set(err, IS_NOMEM, "out of memory"), comm,
                                 err);
        free(sums);
    }
    return rc;
}

is_code is_digest_compute(is_results *r, MPI_Comm comm, is_stop *stop, uint64_t (*rows)[4],
                          is_error *err)
{
    return compute(r, comm, stop, 0, rows, err);
}

/* What segment `row` holds, for a message. */
static void describe_segment(const is_results *r, const uint64_t *row, char *buf, size_t size)
{
    if (row[2] > 0 && row[2] <= is_results_axis_count(r))
        snprintf(buf, size, "the values of the coordinate %s (bytes %llu to %llu)",
                 is_results_axis_name(r, (size_t)(row[2] - 1)), (unsigned long long)row[0],
                 (unsigned long long)(row[0] + row[1] - 1));
    else
        snprintf(buf, size,
                 "the file's metadata, bytes %llu to %llu (HDF5's structure and the "
                 "attributes: the job text, units, long_name, flag values, ...)",
                 (unsigned long long)row[0], (unsigned long long)(row[0] + row[1] - 1));
}

/* The first difference between the stored table and the file's, as a message. */
static is_code compare(const is_results *r, uint64_t (*stored)[4], uint64_t (*now)[4],
                       size_t capacity, int metadata_only, is_error *err)
{
    const char *path = is_results_path(r);
    if (stored[0][0] != IS_LAYOUT_DIGEST_VERSION || stored[0][2] + 1 > capacity)
        return is_error_set(err, IS_DAMAGED,
                            "%s is damaged: its digest table (/run/digest) is not one "
                            "impactsweep wrote",
                            path);
    if (stored[0][1] != now[0][1])
        return is_error_set(err, IS_DAMAGED,
                            "%s is damaged: it is %llu bytes long, and was %llu when it was "
                            "made (truncated, extended, or rewritten by another tool)",
                            path, (unsigned long long)now[0][1], (unsigned long long)stored[0][1]);
    char what[512];
    for (uint64_t s = 0; s < stored[0][2] || s < now[0][2]; s++) {
        uint64_t *a = stored[1 + s], *b = now[1 + s];
        if (s >= stored[0][2] || s >= now[0][2] || memcmp(a, b, 3 * sizeof *a) != 0) {
            describe_segment(r, s < now[0][2] ? b : a, what, sizeof what);
            return is_error_set(err, IS_DAMAGED,
                                "%s is damaged: its layout differs from when it was made, at "
                                "%s (or its digest table, /run/digest, is damaged)",
                                path, what);
        }
        if (a[3] != b[3] && !(metadata_only && b[2] != IS_LAYOUT_SEGMENT_METADATA)) {
            describe_segment(r, b, what, sizeof what);
            return is_error_set(err, IS_DAMAGED,
                                "%s is damaged: %s differ from their checksum (/run/digest "
                                "row %llu)",
                                path, what, (unsigned long long)(1 + s));
        }
    }
    return IS_OK;
}

static is_code check(is_results *r, MPI_Comm comm, is_stop *stop, int metadata_only, is_error *err)
{
    int rank = 0;
    if (comm != MPI_COMM_NULL)
        MPI_Comm_rank(comm, &rank);
    size_t capacity = is_results_digest_rows(r);
    if (is_results_format(r) < 3 || capacity == 0)
        return is_error_set(err, IS_NOT_RESULT,
                            "%s: written in result-file format %d, which has no checksums: "
                            "it cannot be verified",
                            is_results_path(r), is_results_format(r));
    uint64_t(*stored)[4] = calloc(capacity, sizeof *stored);
    uint64_t(*now)[4] = calloc(capacity, sizeof *now);
    is_code rc = stored && now ? IS_OK : is_error_set(err, IS_NOMEM, "out of memory");
    if (rc == IS_OK && rank == 0)
        rc = is_results_digest(r, stored, 0, err);
    rc = is_collective_share(rc, 0, comm, err);
    if (rc == IS_OK && comm != MPI_COMM_NULL)
        MPI_Bcast(stored, (int)(capacity * 4), MPI_UINT64_T, 0, comm);
    if (rc == IS_OK)
        rc = compute(r, comm, stop, metadata_only, now, err);
    if (rc == IS_OK)
        rc = compare(r, stored, now, capacity, metadata_only, err);
    free(stored);
    free(now);
    return rc;
}

is_code is_digest_check(is_results *r, MPI_Comm comm, is_stop *stop, is_error *err)
{
    return check(r, comm, stop, 0, err);
}

is_code is_digest_check_metadata(is_results *r, is_error *err)
{
    return check(r, MPI_COMM_NULL, NULL, 1, err);
}
