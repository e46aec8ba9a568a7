/* refine.h: coarse-to-fine sweeps ([sweep] refine = OUTPUT, ..., refine_levels = L).
 *
 * The refined axes are cut into cells: the lattice of level l holds the indices that are
 * multiples of 2^(L - l) along each refined axis, and each axis's last index (so that
 * the cells cover the grid); its cells join neighbouring lattice indices. A point's class
 * is the tuple of the classes of the refine outputs (a category; or value >= threshold,
 * NaN a class of its own). Pass 0 computes the points of the level-0 lattice. Pass l
 * (1 .. L) computes the points that are new on the level-l lattice (on it, not on level
 * l - 1's) lying in or next to (one cell of margin along each refined axis) a level-(l - 1)
 * cell that is refined: all its corners are stored and
 *  - one of them failed, or their classes differ; or
 *  - (a thresholded output, refine_margin m > 0) they agree, but the corner nearest the
 *    threshold lies within m D of it, D the largest second difference of the output at
 *    the corners along the refined axes, over that lattice (each corner with its lattice
 *    neighbours): the lattice's own measure of how far the output bends away from the
 *    linear interpolation between corners, which is D / 8 at a cell's centre for a
 *    quadratic. A thin band, a peak or a kink between corners shows there, while a
 *    linear output never refines: a feature the lattice gives no sign of is not seen.
 * A last pass gives every point still pending the class of the finest cell around it
 * whose corners are all stored (they agree there): status inferred, each categorical refine
 * output its class, each real thresholded one the multilinear interpolation of the corners
 * (which lies on the same side of the threshold as all of them), every other output "not
 * computed". The other axes are swept in full: each of their points is a slice refined on
 * its own.
 *
 * Pass l reads only points of the level-(l - 1) lattice, which no pass from l on writes:
 * what a pass computes depends on stored values alone, never on the rank count, the
 * order of the units or where an earlier run was stopped, and --resume runs the same
 * passes again (a finished pass costs a scan). Each pass is a resumed schedule (sched.h)
 * filtered by the pass's selection, evaluated by the rank that owns the unit from the
 * rows of the file around the point (a row: the points that share their indices up to
 * the slowest refined axis, one stride of it long); a rank keeps 2 L + 8 rows at most
 * (for a map over the two slowest axes of 1025 x 1025 x 1000 points, 18 rows of 10^6
 * points, 8 + 8 t bytes a point with t thresholded outputs: 288 MB for one; nothing
 * scales with the other axes). The census (is_refine_census_collect) counts, from the
 * file alone, the cells of each level that were refined and why. */
#ifndef IMPACTSWEEP_REFINE_H
#define IMPACTSWEEP_REFINE_H

#include <mpi.h>

#include "error.h"
#include "job.h"
#include "results.h"
#include "sched.h"

/* What decides a refined sweep: the job's keys, or a result file's attributes. */
typedef struct is_refine_settings {
    unsigned levels;                    /* L; 0: not a refined sweep */
    unsigned axes;                      /* bit k: axis k is refined */
    size_t output_count;
    is_refine_output outputs[IS_REFINE_MAX_OUTPUTS]; /* output: index of the file's variable */
    double margin;                      /* refine_margin (0 in files made before it) */
} is_refine_settings;

void is_refine_settings_of_job(const is_job *job, is_refine_settings *settings);

/* From a result file's attributes (refine_outputs and refine_thresholds, or the first
 * layout's refine and refine_threshold). settings->levels is 0 for a file that is not
 * refined; IS_NOT_RESULT when the attributes name no variable of the file. */
is_code is_refine_settings_of_file(is_results *results, is_refine_settings *settings,
                                   is_error *err);

/* Why a cell was refined: the first that applies. */
enum {
    IS_REFINE_FAILED,      /* a corner failed */
    IS_REFINE_CLASSES,     /* the corners' classes differ */
    IS_REFINE_THRESHOLD    /* + i: near the threshold of refine output i */
};
#define IS_REFINE_REASONS (IS_REFINE_THRESHOLD + IS_REFINE_MAX_OUTPUTS)
#define IS_REFINE_MAX_LEVELS 30

typedef struct is_refine_census {
    unsigned levels;
    uint64_t cells[IS_REFINE_MAX_LEVELS];   /* cells of level m with every corner stored */
    uint64_t refined[IS_REFINE_MAX_LEVELS][IS_REFINE_REASONS]; /* refined, by reason */
} is_refine_census;

/* Collective over comm (or MPI_COMM_NULL: this process alone): counts the cells of each
 * level of the file's points as they stand (after a complete run: what each pass
 * refined). Each rank its share of the cells; the sums on rank 0. */
is_code is_refine_census_collect(is_results *results, const is_refine_settings *settings,
                                 MPI_Comm comm, is_refine_census *census, is_error *err);

/* Collective: the passes of a refined sweep over an open file (its status may hold any
 * stored points: a new file and a resumed one are run alike). `options` gives the
 * progress mode; result sums the passes (tally[IS_POINT_INFERRED]: points the last pass
 * inferred). Stops after a pass on a signal or an error, like is_sched_run; the file
 * stays resumable. */
is_code is_refine_run(const is_job *job, MPI_Comm comm, is_results *results,
                      const is_sched_options *options, is_sched_result *result,
                      is_error *err);

#endif
