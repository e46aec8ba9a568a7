/* verify_run.h: self-verification during a run ([sweep] verify): each rank recomputes the
 * sampled points of its batches tighter (tolerance.h), right after the batch, and keeps
 * their records (verification.h) with the batch's results until they are written, just
 * before the block's outputs: memory bounded by the rank's result buffer. */
#ifndef IMPACTSWEEP_VERIFY_RUN_H
#define IMPACTSWEEP_VERIFY_RUN_H

#include <stdint.h>

#include "evaluator.h"
#include "job.h"
#include "results.h"
#include "verification.h"

typedef struct is_verify_run is_verify_run;

/* *v for this rank's batches, or NULL when the file has no records (v: the file's, open
 * for the run). */
is_code is_verify_run_create(is_verify_run **out, const is_job *job, is_verification *v,
                             is_error *err);
void is_verify_run_free(is_verify_run **v);

/* After a batch of n points (this file's indices at .. at + n - 1, or index[0 .. n - 1])
 * whose results are those of points from .. from + n - 1 of outputs (model.h's layout with
 * stride points: output o's value e of point i at outputs[S_o * stride + i * L_o + e]),
 * status[i]: recomputes its sampled done points with `ev` (whose points room it
 * overwrites) and keeps their records. */
is_code is_verify_run_batch(is_verify_run *v, is_evaluator *ev, uint64_t at, uint64_t n,
                            const uint64_t *index, const double *outputs, size_t stride,
                            size_t from, const uint8_t *status, is_error *err);

/* Writes the records kept so far (call before the block's outputs are written). */
is_code is_verify_run_flush(is_verify_run *v, is_error *err);

/* Collective (merge): copies the records of `from` into `to` (each to its grid index's
 * row), checking each; a file without records, or with another sample, gives none. */
is_code is_verify_run_merge(is_results *from, is_results *to, MPI_Comm comm, is_error *err);

/* The verification summary of an open file, as lines of text (caller frees *text; NULL
 * when the file has no records and its job asked for none); *beyond: checked points with
 * an output beyond verify_tolerance. `model` (or NULL) names the model of a file whose job
 * asked for records it could not have. One process. */
is_code is_verify_run_describe(is_results *r, const is_model *model, char **text,
                               uint64_t *beyond, is_error *err);

#endif
