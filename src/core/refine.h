/* refine.h: coarse-to-fine sweeps ([sweep] refine = OUTPUT, refine_levels = L).
 *
 * The refined axes are cut into cells: the lattice of level l holds the indices that are
 * multiples of 2^(L - l) along each refined axis, and each axis's last index (so that
 * the cells cover the grid); its cells join neighbouring lattice indices. Pass 0
 * computes the points of the level-0 lattice. Pass l (1 .. L) computes the points that
 * are new on the level-l lattice (on it, not on level l - 1's) lying in or next to (one
 * cell of margin along each refined axis) a level-(l - 1) cell that disagrees: all its
 * corners are stored and either their classes differ or one of them failed. A last pass
 * gives every point still pending the class of the finest cell around it whose corners
 * are all stored (they agree there): status inferred, the refine output its class (a real
 * refine output the multilinear interpolation of the corners, which lies on the same side
 * of the threshold as all of them), every other output "not computed". The other axes
 * are swept in full: each of their points is a slice refined on its own.
 *
 * Pass l reads only points of the level-(l - 1) lattice, which no pass from l on writes:
 * what a pass computes depends on stored values alone, never on the rank count, the
 * order of the units or where an earlier run was stopped, and --resume runs the same
 * passes again (a finished pass costs a scan). Each pass is a resumed schedule (sched.h)
 * filtered by the pass's selection, evaluated by the rank that owns the unit from the
 * rows of the file around the point (a row: the points that share their indices up to
 * the slowest refined axis, one stride of it long); a rank keeps 2 L + 8 rows at most
 * (for a map over the two slowest axes of 1025 x 1025 x 1000 points, 18 rows of 10^6
 * points: 216 MB; nothing scales with the other axes). */
#ifndef IMPACTSWEEP_REFINE_H
#define IMPACTSWEEP_REFINE_H

#include <mpi.h>

#include "error.h"
#include "job.h"
#include "results.h"
#include "sched.h"

/* Collective: the passes of a refined sweep over an open file (its status may hold any
 * stored points: a new file and a resumed one are run alike). `options` gives the
 * progress mode; result sums the passes (tally[IS_POINT_INFERRED]: points the last pass
 * inferred). Stops after a pass on a signal or an error, like is_sched_run; the file
 * stays resumable. */
is_code is_refine_run(const is_job *job, MPI_Comm comm, is_results *results,
                      const is_sched_options *options, is_sched_result *result,
                      is_error *err);

#endif
