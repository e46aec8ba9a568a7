/* verify.h: checking a result file against its checksums (results.h): its fixed bytes
 * (digest.h: metadata, attributes, coordinates), every stored point's record, and, for a
 * --resume, the coordinates against the job. Damage is IS_DAMAGED (exit status 2) with
 * the dataset, the point and its coordinates, the block read; nothing is written. */
#ifndef IMPACTSWEEP_VERIFY_H
#define IMPACTSWEEP_VERIFY_H

#include <mpi.h>
#include <stdint.h>

#include "error.h"
#include "job.h"
#include "results.h"
#include "stop.h"

/* Collective over comm (MPI_COMM_NULL: this process alone): every point whose status is
 * not pending matches its checksum, every status is one of impactsweep's, and a file that
 * says it is complete has no point pending and the tally it says. The ranks
 * share the points, each reading its share in blocks (bounded memory) and polling stop.
 * *stored (every rank): the points checked. */
is_code is_verify_points(is_results *r, MPI_Comm comm, is_stop *stop, uint64_t *stored,
                         is_error *err);

/* Any process: a file that says it is complete holds `stored` points, all of them (else
 * IS_DAMAGED: statuses were lost, which no checksum covers). */
is_code is_verify_complete_count(is_results *r, uint64_t stored, is_error *err);

/* Collective: the file's coordinates are exactly the job's values (bit for bit; a swept
 * choice's names). */
is_code is_verify_coordinates(is_results *r, const is_job *job, MPI_Comm comm, is_stop *stop,
                              is_error *err);

/* Any process: the IS_DAMAGED message of damaged point `point` of r (its dataset, found
 * from its checksum where one bit differs, its coordinates, its block), `count` the
 * damaged points found in all. */
is_code is_verify_damaged_point(is_results *r, uint64_t point, uint64_t count, is_error *err);

/* Any process: "x = 0.3, y = -1", the coordinates of point `point` of r, for messages. */
void is_verify_point_coordinates(is_results *r, uint64_t point, char *buf, size_t size);

/* Collective: the fixed bytes, then the points (and, given a job, the coordinates
 * against it). */
is_code is_verify_file(is_results *r, const is_job *job, MPI_Comm comm, is_stop *stop,
                       uint64_t *stored, is_error *err);

#endif
