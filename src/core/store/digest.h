/* digest.h: the digest of a result file's fixed bytes (results.h): every byte that no
 * run, resume or merge writes after the file was made (HDF5's metadata, every attribute,
 * the coordinates), in segments between the mutable datasets, each coordinate a segment
 * of its own so that damage can be named. A segment's digest is a sum over its pieces of
 * at most 1 MiB of a mix of the piece's offset and CRC-32C: the ranks share the pieces,
 * and one changed bit changes the sum. */
#ifndef IMPACTSWEEP_DIGEST_H
#define IMPACTSWEEP_DIGEST_H

#include <mpi.h>
#include <stdint.h>

#include "error.h"
#include "results.h"
#include "stop.h"

/* Collective over comm (MPI_COMM_NULL: this process alone). The digest table of r's file
 * as it is now (results_layout.h: a header row, then {offset, length, kind, digest} per
 * segment), on every rank; rows has is_results_digest_rows(r) rows. Polls stop (may be
 * NULL) between pieces: a stopped computation's table is incomplete (is_stop_end says). */
is_code is_digest_compute(is_results *r, MPI_Comm comm, is_stop *stop, uint64_t (*rows)[4],
                          is_error *err);

/* Collective: compares the file with its stored table; IS_DAMAGED naming the segment (the
 * metadata's byte range, or a coordinate) where they differ; IS_NOT_RESULT for a file of
 * format 2 (no table). */
is_code is_digest_check(is_results *r, MPI_Comm comm, is_stop *stop, is_error *err);

/* This process alone: the metadata segments only (not the coordinates, whose size grows
 * with the grid), before a serial step trusts an attribute (the job text, the fingerprint,
 * the outputs' names): a damaged file is then called damaged, not another job's. */
is_code is_digest_check_metadata(is_results *r, is_error *err);

#endif
