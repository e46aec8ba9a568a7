/* results.h: the result file, one HDF5 file shared by all ranks.
 *
 * Layout (netCDF-4 compatible, opens with xarray's h5netcdf engine): each axis is a
 * 1-D coordinate variable named after its parameter (an HDF5 dimension scale); each
 * model output and `status` is a variable over the axes, in job-file axis order.
 * Datasets are contiguous and allocated when the file is created, so that computing
 * only ever writes raw data: metadata is written by rank 0 alone, serially, at create,
 * resume and finish. A kill at any moment of the computing phase leaves a readable file
 * whose `status` says exactly which points are stored (a unit's outputs are written
 * before its status). */
#ifndef IMPACTSWEEP_RESULTS_H
#define IMPACTSWEEP_RESULTS_H

#include <mpi.h>
#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "job.h"
#include "provenance.h"

/* The root attribute that marks an impactsweep result file, and its layout version. */
#define IS_RESULTS_FORMAT_ATTRIBUTE "impactsweep_format"
#define IS_RESULTS_FORMAT_VERSION 1

/* Rank 0, serial. Creates the file for `job` at job->output with every dataset and
 * attribute, filled with "not computed". It is built under a temporary name and renamed
 * at the end, so a failure leaves no file, and with `overwrite` an existing file is
 * replaced only by a complete new one. Without `overwrite` an existing file is an error
 * (IS_EXISTS) and stays untouched. */
is_code is_results_create(const is_job *job, const is_provenance *prov, int overwrite,
                          is_error *err);

/* Rank 0, serial. Opens an existing file for --resume: checks that it is an impactsweep
 * file made by the same job (model, parameters, axes), records the resumption in its
 * history and returns its status array (job->grid.point_count bytes, caller frees). */
is_code is_results_resume(const is_job *job, const is_provenance *prov, uint8_t **status,
                          is_error *err);

/* Rank 0, serial, after the parallel phase. Counts the points by status, records them,
 * the end time and `state` ("complete", "interrupted", "failed"; a complete run that
 * leaves points of its piece pending becomes "incomplete", one that leaves only other
 * pieces' points pending "piece complete") in the attributes and the history. Optional
 * counts out (may be NULL): done, failed (whole file), pending (in this run's piece). */
is_code is_results_finish(const is_job *job, const is_provenance *prov, const char *state,
                          uint64_t counts[3], is_error *err);

/* All ranks (collective): opens the file for writing raw data through MPI-IO. */
typedef struct is_results is_results;
is_code is_results_open(const is_job *job, MPI_Comm comm, is_results **results, is_error *err);

/* One rank, independent: writes points first .. first + count - 1. outputs is laid out
 * as the model's eval_batch writes it (outputs[o * count + i]); the status block is
 * written last. Not-finite values of integer and categorical outputs are stored as -1. */
is_code is_results_write(is_results *results, uint64_t first, uint64_t count,
                         const double *outputs, const uint8_t *status, is_error *err);

/* All ranks (collective): flushes and closes; *results becomes NULL. */
is_code is_results_close(is_results **results, is_error *err);

#endif
