/* verification.h: self-verification's records in a result file ([sweep] verify).
 *
 * The sample: one point in every `stride` consecutive grid indices (stride = the nearest
 * whole number to 1 / verify), the one whose place in its stratum is a hash of the
 * stratum's number and the job's seed: grid index g is sampled when g mod stride equals
 * hash(g div stride, seed) mod stride. It depends on nothing but the grid index, so the
 * same points are checked whatever the ranks, the schedule, the pieces or a resume.
 *
 * The records: /verify/records, a float64 dataset of `slots` rows of (outputs + 3)
 * columns, allocated with the file (metadata once) and zero where no record is: row
 * s holds the record of stratum first_stratum + s, {grid index + 1, the recomputation's
 * status (1 done, a failed_* value, 255: no tolerance parameter applies at the point),
 * each output's discrepancy (tolerance.h; NaN unless the recomputation is done),
 * the CRC-32C of the row's bytes before it}. A record is written with its point's block,
 * before the flush that precedes the point's status (results.h), so a resume recomputes
 * exactly the records of the points it recomputes. `info --verify`, `--resume` and
 * `merge` check each record's CRC and place; the attributes (stride, seed, the tolerance
 * and its factor) are fixed bytes under the file's digest. */
#ifndef IMPACTSWEEP_VERIFICATION_H
#define IMPACTSWEEP_VERIFICATION_H

#include <mpi.h>
#include <stdint.h>

#include "error.h"
#include "job.h"
#include "results.h"

/* Status of a record whose point no tolerance parameter applies to (not verifiable). */
#define IS_VERIFICATION_UNVERIFIABLE 255

/* The stride of a fraction (0 < fraction <= 1), 0 for none. */
uint64_t is_verification_stride(double fraction);
/* Is grid index g in the sample? */
int is_verification_sampled(uint64_t stride, uint64_t seed, uint64_t g);
/* The job's seed: its seed parameter's value where it has a fixed one, else 0. */
uint64_t is_verification_seed(const is_job *job);

typedef struct is_verification is_verification;

/* Collective where r was opened: *v is the file's records, or NULL when it has none. */
is_code is_verification_open(is_results *r, is_verification **v, is_error *err);
void is_verification_close(is_verification **v);

uint64_t is_verification_stride_of(const is_verification *v);
uint64_t is_verification_seed_of(const is_verification *v);
uint64_t is_verification_slots(const is_verification *v);
size_t is_verification_width(const is_verification *v);  /* columns of a row */
double is_verification_tolerance(const is_verification *v); /* verify_tolerance */
/* The row of grid index g (sampled, inside the file). */
uint64_t is_verification_slot(const is_verification *v, uint64_t g);

/* Puts the CRC of row[0 .. width - 2] into row[width - 1]. */
void is_verification_seal(double *row, size_t width);

/* Rows first .. first + count - 1 (independent, any rank). */
is_code is_verification_write(is_verification *v, uint64_t first, uint64_t count,
                              const double *rows, is_error *err);
is_code is_verification_read(is_verification *v, uint64_t first, uint64_t count, double *rows,
                             is_error *err);

/* Row s (as read) of v: 1 when it holds a sound record (*g its grid index), 0 when it is
 * empty, -1 when its CRC or its place is wrong. */
int is_verification_record(const is_verification *v, uint64_t s, const double *row,
                           uint64_t *g);

/* Every record's CRC and place (IS_DAMAGED naming the row and grid point). One process. */
is_code is_verification_check(is_verification *v, is_error *err);

/* The same over a whole file, collective where r was opened (rank 0 reads): IS_OK also
 * when the file has no records. */
is_code is_verification_check_file(is_results *r, MPI_Comm comm, is_error *err);

/* What the records say (one process; read in blocks, bounded memory). */
typedef struct is_verification_summary {
    uint64_t checked;        /* records whose recomputation is done */
    uint64_t failed;         /* records whose recomputation failed */
    uint64_t unverifiable;   /* sampled points no tolerance parameter applies to */
    uint64_t beyond;         /* checked records with an output beyond the tolerance */
    double tolerance;        /* verify_tolerance */
    double fraction;         /* 1 / stride */
    size_t outputs;
    double *largest;         /* [outputs]: the largest discrepancy of each output */
    uint64_t *largest_at;    /* [outputs]: its grid index */
    uint64_t *over;          /* [outputs]: records beyond the tolerance in that output */
} is_verification_summary;

is_code is_verification_summarize(is_verification *v, is_verification_summary *s,
                                  is_error *err);
void is_verification_summary_free(is_verification_summary *s);

/* Collective, while building r: every row zero (no record). */
is_code is_verification_fill(is_results *r, MPI_Comm comm, is_error *err);

#endif
