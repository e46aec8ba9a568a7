/* results.h: the result file, one HDF5 file shared by all ranks; the only part of
 * impactsweep that speaks HDF5 (run, merge, info and the summary go through it).
 *
 * Layout (netCDF-4 compatible, opens with xarray's h5netcdf engine): each axis is a 1-D
 * coordinate variable named after its parameter (an HDF5 dimension scale); each model
 * output and `status` is a variable over the axes, in job-file axis order; an array output
 * (model.h: is_output.length L > 1) has one more dimension, the last, whose coordinate
 * (0 .. L - 1, int32, written at creation) is named after the output's dimension. A job-array
 * piece's file holds exactly its box of the grid (its coordinates are those of the box).
 * The root attributes record the job and the provenance of the file's creation. The
 * group `/run` holds what changes from run to run (state, status tally, end time, a log
 * line per create / resume / end / merge) as raw data.
 *
 * The guarantee: once created, the file's metadata is never written again (HDF5 does
 * rewrite the 96-byte superblock when it closes a file opened for writing, with the same
 * bytes). Every later write is raw data into storage that was allocated (and filled with
 * "not computed") when the file was created, and a block's outputs are flushed to stable
 * storage (fdatasync) before its status is written. So a kill at any moment, of any rank and in any phase,
 * or a node crash, leaves a file that HDF5 opens and whose `status` says exactly which
 * points are stored; a full disk cannot truncate or corrupt it either. Creating builds
 * the whole file under PATH.partial and renames it to PATH only when it is complete.
 *
 * Checksums (format 3): damage is detected, never resumed or merged. Each stored point has
 * a CRC-32C (crc32c.h) in /run/check, over its record: its grid index (8 bytes,
 * little-endian), each output's stored bytes in file order (an array output's values of
 * the point in order), its reason code (in files
 * that keep the failed points' reasons: /run/reason), its status byte; a pending
 * point has 0 there and is not covered. It is written with the outputs, before the flush
 * that precedes the status: a point's status and its checksum become valid together,
 * whatever a kill interrupts or tears (per point, since a block of points is shared by
 * ranks and made valid status byte by status byte). Every byte that is not such mutable
 * data (HDF5's metadata, the attributes: units, long_name, flag values, the job text, and
 * the coordinates, all written once at creation) is covered by the digest table in
 * /run/digest, written last at creation: one digest per stretch of fixed bytes between the
 * mutable datasets, one per coordinate. */
#ifndef IMPACTSWEEP_RESULTS_H
#define IMPACTSWEEP_RESULTS_H

#include <mpi.h>
#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "job.h"
#include "model.h"
#include "provenance.h"

/* The root attribute that marks an impactsweep result file, and its layout version. */
#define IS_RESULTS_FORMAT_ATTRIBUTE "impactsweep_format"
#define IS_RESULTS_FORMAT_VERSION 4
/* Format 3, the first with checksums, has no failed points' reasons (/run/reason): still
 * read, resumed and merged (its records end with the status; a point failed in it has no
 * stored text). Files of format 2 (no checksums) are still read (info, trace), never
 * written or merged. */
#define IS_RESULTS_FORMAT_CHECKSUMS 3
#define IS_RESULTS_FORMAT_READABLE 2

/* Room for the run log: lines of at most this many bytes (a Slurm node list can be
 * long), this many lines (a run adds two; later lines replace the last one, which then
 * says so): 128 KiB in every file. */
#define IS_RESULTS_LOG_LINE 512
#define IS_RESULTS_LOG_CAPACITY 256

/* The path a file is built under before it is renamed to `path` (caller frees). */
char *is_results_partial_path(const char *path);

/* Collective over comm. Builds the complete, empty result file of `job` at `path`
 * (normally is_results_partial_path(job->output)): rank 0 writes the metadata alone
 * (O(axes + outputs)); then every rank fills its share of each variable with "not
 * computed" and writes its share of each coordinate. `path` must not exist. The run
 * state says "created" and the log holds `first_line`. */
is_code is_results_build(const is_job *job, const is_provenance *prov, const char *path,
                         const char *first_line, MPI_Comm comm, is_error *err);

/* Bytes a new file of `job` takes: its points, the run log and metadata, the alignment. */
uint64_t is_results_size(const is_job *job);

/* Rank 0, before building: IS_JOB (exit status 2: nothing was touched) when the file
 * system of `path` has less free space than the new file needs, naming both. */
is_code is_results_check_space(const is_job *job, const char *path, is_error *err);

/* Rank 0: renames a built file to `path`. Without `replace` an existing file at `path`
 * is an error (IS_EXISTS) and stays untouched (link(), where the file system has hard
 * links, so that a file appearing meanwhile is never replaced). */
is_code is_results_publish(const char *built, const char *path, int replace, is_error *err);

/* Rank 0 (or any single process), read-only: checks that `path` is an impactsweep result
 * file of this format made by the same job (model, parameters, axes) and piece. */
is_code is_results_check(const is_job *job, const char *path, is_error *err);

/* --- an open file ------------------------------------------------------------------- */

typedef struct is_results is_results;

/* BUILD: writing a file being made under its .partial name (a failure keeps nothing of
 * it, which the messages say). */
typedef enum { IS_RESULTS_READ, IS_RESULTS_WRITE, IS_RESULTS_BUILD } is_results_mode;

/* A variable over the grid: the model's outputs in order, then `status`. */
typedef struct is_results_variable {
    const char *name;
    is_output_type type;     /* status is stored like a category (uint8) */
    int is_status;
    size_t element_size;     /* bytes per point in the file */
    const char *flag_meanings; /* categories and status: "icc cc pcc"; else "" */
    double fill;             /* "not computed" (NaN for reals) */
    size_t length;           /* values per point: 1, or an array output's length (its
                                dataset has one more dimension, the last) */
    size_t value_size;       /* bytes per value (element_size = length * value_size) */
    const char *dimension;   /* an array output's last dimension's name; else "" */
} is_results_variable;

/* Opens an existing result file. comm: collective over it, through MPI-IO; MPI_COMM_NULL:
 * this process alone (serial HDF5; for `info`). IS_RESULTS_WRITE needs MPI. */
is_code is_results_open(const char *path, MPI_Comm comm, is_results_mode mode,
                        is_results **results, is_error *err);

/* Closes (collective where the open was); *results becomes NULL. */
is_code is_results_close(is_results **results, is_error *err);

/* What the file holds. */
int is_results_format(const is_results *r);            /* 2: no checksums; 3 */
uint64_t is_results_point_count(const is_results *r);   /* points in this file */
uint64_t is_results_first_point(const is_results *r);   /* grid index of its point 0 */
size_t is_results_variable_count(const is_results *r);  /* outputs + status */
size_t is_results_value_count(const is_results *r);     /* the outputs' lengths summed */
/* Points a block of `points` points may hold where its buffers hold 8 bytes (a double) a
 * point and variable: as many, or fewer (at least 1) where an array output's point has
 * more values. */
uint64_t is_results_block_points(const is_results *r, uint64_t points);
const is_results_variable *is_results_variable_at(const is_results *r, size_t v);
size_t is_results_axis_count(const is_results *r);
const char *is_results_axis_name(const is_results *r, size_t k);
uint64_t is_results_axis_length(const is_results *r, size_t k);
/* A root attribute as text (numbers printed); "" where absent. Collective in parallel. */
void is_results_attribute(const is_results *r, const char *name, char *buf, size_t size);
/* An attribute of axis k's coordinate (e.g. "scale") as text. Collective in parallel. */
void is_results_axis_attribute(const is_results *r, size_t k, const char *name, char *buf,
                               size_t size);
/* The whole job text (caller frees), or NULL. Collective in parallel. */
char *is_results_job_text(const is_results *r);

/* --- raw data (independent: any rank, any time, between open and close) --------------
 * Points are this file's own indices 0 .. is_results_point_count() - 1, in C order. */

/* Writes the results of points first .. first + count - 1: outputs[o * stride + i] as the
 * model's eval_batch lays them out with stride points (an array output's values of point
 * i at outputs[S_o * stride + i * L_o ..], model.h; is_results_value_count() doubles per
 * point in all) (non-finite values of integer and categorical outputs
 * are stored as -1) and reasons[i], the code of the reason the engine failed the point
 * (NULL: 0 for all), flushes them to stable storage, and then writes status[i]. */
is_code is_results_write(is_results *r, uint64_t first, uint64_t count, const double *outputs,
                         size_t stride, const uint8_t *status, const uint8_t *reasons,
                         is_error *err);

/* The same for points[0] < points[1] < ... (any gaps), with one flush before the
 * statuses (a pass of a refined sweep). Points a few apart are written as one block with
 * the points between them rewritten as the file holds them: no other process may write
 * between points[0] and points[count - 1] meanwhile. */
is_code is_results_write_points(is_results *r, const uint64_t *points, uint64_t count,
                                const double *outputs, size_t stride, const uint8_t *status,
                                const uint8_t *reasons, is_error *err);

/* Variable v of points first .. first + count - 1: as doubles (length each), or as the
 * stored bytes (element_size each). */
is_code is_results_read_doubles(is_results *r, size_t v, uint64_t first, uint64_t count,
                                double *values, is_error *err);
is_code is_results_read_raw(is_results *r, size_t v, uint64_t first, uint64_t count,
                            void *bytes, is_error *err);
is_code is_results_write_raw(is_results *r, size_t v, uint64_t first, uint64_t count,
                             const void *bytes, is_error *err);
/* Values first .. first + count - 1 of the coordinate of axis k (read, or written). */
is_code is_results_coordinates(is_results *r, size_t k, uint64_t first, uint64_t count,
                               double *values, int writing, is_error *err);
/* The names along a swept choice's coordinate (axis k, scale "choice"), joined by ", ". */
is_code is_results_coordinate_names(is_results *r, size_t k, char *buf, size_t size,
                                    is_error *err);
/* Flushes every write so far to stable storage (fdatasync). */
is_code is_results_sync(is_results *r, is_error *err);

/* --- checksums (format 3; see the top of this file) ------------------------------------
 * The checksums are variable number is_results_check_variable(r) (= the variable count)
 * for is_results_read_raw and is_results_write_raw, uint32 (merge copies them as they
 * are: a record names its grid index, not its place in a file). */
size_t is_results_check_variable(const is_results *r);
/* Records of points first .. first + count - 1 (this file's indices): states[i] start,
 * then take variable 0, 1, ..., status in order from their stored bytes (as read_raw gives
 * them); after status, states[i] is point i's checksum (pending points' are not 0 here:
 * a pending point has no checksum to compare). */
void is_results_checks_begin(const is_results *r, uint64_t first, uint64_t count,
                             uint32_t *states);
void is_results_checks_add(const is_results *r, size_t v, uint64_t count, const void *raw,
                           uint32_t *states);
/* A file with the failed points' reasons (is_results_has_reasons) has each point's reason
 * code in its record too, between the outputs and the status: add it after the outputs
 * (no-op in a file without them). */
void is_results_checks_add_reasons(const is_results *r, uint64_t count, const uint8_t *codes,
                                   uint32_t *states);
/* Which variable holds bit `bit` of a point's record (variable_count: the grid index,
 * which no dataset holds; is_results_reason_variable: the reason's code, /run/reason);
 * for naming the dataset of a damaged point (is_results_variable_at names each). */
size_t is_results_record_variable(const is_results *r, size_t bit);
size_t is_results_reason_variable(const is_results *r);
/* Bytes of a point's record (index, outputs, reason code where kept, status). */
size_t is_results_record_size(const is_results *r);

/* While building: allocates the storage of points first .. first + count - 1 of variable
 * v, whose "not computed" is all zero bytes (status, the checksums), without writing it
 * (fallocate: the file system's blocks, zeros): *done, or 0 where the file system cannot
 * (then write the zeros). A full disk is IS_IO, as a write's. */
is_code is_results_allocate_zeros(is_results *r, size_t v, uint64_t first, uint64_t count,
                                  int *done, is_error *err);

/* The stretches of the file that change after creation: every variable's and /run's raw
 * data, as {offset, length}; returns their number (at most max). The numeric coordinates'
 * extents likewise, by axis ({0, 0} for a swept choice, whose names are metadata). */
size_t is_results_mutable_extents(const is_results *r, uint64_t (*extents)[2], size_t max);
void is_results_coordinate_extent(const is_results *r, size_t k, uint64_t extent[2]);
/* The digest table /run/digest (results_layout.h): rows of 4 uint64; its row count. */
size_t is_results_digest_rows(const is_results *r);
is_code is_results_digest(is_results *r, uint64_t (*rows)[4], int writing, is_error *err);
/* The file's path as opened. */
const char *is_results_path(const is_results *r);

/* --- the run state (one process at a time: rank 0) ----------------------------------- */

/* Appends a line to the run log. */
is_code is_results_log(is_results *r, const char *line, is_error *err);
/* Records the state ("running", "interrupted", "failed", "complete", "incomplete"), the
 * status tally (points per is_point_status) and the time now as end_time. Written
 * tally, end time, state: each is whole on its own, whatever a crash interrupts. */
is_code is_results_set_state(is_results *r, const char *state,
                             const uint64_t tally[IS_POINT_STATUS_COUNT], int ended,
                             is_error *err);
/* Reads the state back; tally and end_time may be NULL. */
is_code is_results_get_state(is_results *r, char *state, size_t state_size,
                             uint64_t tally[IS_POINT_STATUS_COUNT], char *end_time,
                             size_t end_size, is_error *err);
/* Calls line() for each log line in order. */
is_code is_results_read_log(is_results *r, void (*line)(const char *text, void *user),
                            void *user, is_error *err);

/* --- the failed points' reasons (results_run.c) ---------------------------------------
 * Every point the engine fails (a crash, a timeout, a breach of the contract) has a reason
 * code in /run/reason, 0 for every other point; code c (1 .. IS_RESULTS_REASON_CAPACITY)
 * names row c - 1 of /run/reasons, the text, stored once per distinct text. Rank 0 alone
 * interns texts (run/sched.c); past the capacity a text gets IS_RESULTS_REASON_OTHER, whose
 * row says so. A point's code is written with its outputs, before the flush that precedes
 * its status, and a text's row is flushed before any point names it. */
#define IS_RESULTS_REASON_TEXT 256
#define IS_RESULTS_REASON_CAPACITY 255
#define IS_RESULTS_REASON_OTHER IS_RESULTS_REASON_CAPACITY
/* The file has the reasons (files made before them have not: every read gives 0). */
int is_results_has_reasons(const is_results *r);
/* Codes of points first .. first + count - 1 (raw data: any rank, any time). */
is_code is_results_read_reasons(is_results *r, uint64_t first, uint64_t count, uint8_t *codes,
                                is_error *err);
is_code is_results_write_reasons(is_results *r, uint64_t first, uint64_t count,
                                 const uint8_t *codes, is_error *err);
/* The text of code (1 .. capacity), "" where the row is empty; writing it (rank 0). */
is_code is_results_reason_text(is_results *r, unsigned code, char text[IS_RESULTS_REASON_TEXT],
                               int writing, is_error *err);

#endif
