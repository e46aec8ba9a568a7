/* results_layout.h: what results.c (an open file) and results_create.c (a new one) share
 * about the file's layout: names and sizes of the /run datasets, the fixed-length text
 * type, the MPI-IO hints and the error text of a failed transfer. Private to the two. */
#ifndef IMPACTSWEEP_RESULTS_LAYOUT_H
#define IMPACTSWEEP_RESULTS_LAYOUT_H

#include <hdf5.h>
#include <mpi.h>

#include "error.h"

#define IS_LAYOUT_NAME_MAX 64
#define IS_LAYOUT_MEANINGS_MAX 1024
#define IS_LAYOUT_TEXT_MAX 8192
#define IS_LAYOUT_STATE_TEXT 32

enum {
    IS_LAYOUT_RUN_STATE,
    IS_LAYOUT_RUN_END_TIME,
    IS_LAYOUT_RUN_TALLY,
    IS_LAYOUT_RUN_LOG,
    IS_LAYOUT_RUN_LOG_COUNT,
    IS_LAYOUT_RUN_DIGEST, /* format 3 on */
    IS_LAYOUT_RUN_COUNT
};
/* The /run datasets of format 2 (no checksums): those before IS_LAYOUT_RUN_DIGEST. */
#define IS_LAYOUT_RUN_COUNT_V2 IS_LAYOUT_RUN_DIGEST
extern const char *const is_layout_run_names[IS_LAYOUT_RUN_COUNT];

/* Each point's checksum (format 3 on): /run/check, uint32 over the grid like status, 0
 * where the point is pending. */
#define IS_LAYOUT_CHECK_NAME "/run/check"

/* The digest table of the file's fixed bytes, /run/digest: rows of 4 uint64. Row 0 is
 * {IS_LAYOUT_DIGEST_VERSION, file size, segment count, 0}; row 1 + s is segment s:
 * {offset, length, kind, digest}, kind IS_LAYOUT_SEGMENT_METADATA or 1 + k for the values
 * of axis k's coordinate. */
#define IS_LAYOUT_DIGEST_VERSION 1
#define IS_LAYOUT_SEGMENT_METADATA 0
/* Rows of a file with `outputs` outputs and `axes` axes: every mutable dataset cuts the
 * fixed bytes once more, every coordinate twice. */
#define IS_LAYOUT_DIGEST_ROWS(outputs, axes) (2 + 2 * ((outputs) + 5 + IS_LAYOUT_RUN_COUNT + (axes)))
/* (three more mutable datasets: the verification records, verification.h, and the
 * failed points' reasons, /run/reason and /run/reasons) */

/* The name of the dimension scale attached to dimension `dim` of dataset ds (an array
 * output's last: its dimension's name), or "" where none is. */
void is_layout_dimension_name(hid_t ds, int dim, char *buf, size_t size);

/* Fixed-length, NUL-padded UTF-8 text of `size` bytes (caller closes). */
hid_t is_layout_text_type(size_t size);

/* The MPI-IO hints of IMPACTSWEEP_MPIIO_HINTS ("key=value,key=value", e.g. Lustre's
 * striping_factor=16,striping_unit=4194304), or MPI_INFO_NULL. */
MPI_Info is_layout_mpi_hints(void);

/* HDF5's own flock() locking off: impactsweep keeps its own lock (lock.h), and flock
 * fails outright on some parallel file systems. */
void is_layout_no_hdf5_locking(hid_t fapl);

/* Records a failed read or write of `what` with HDF5's innermost message; a full disk
 * or quota is said as such (IS_IO), with what became of the points: `building` (a file
 * being made under its .partial name: nothing of it is kept) or not (--resume keeps every
 * point stored). Returns the code. */
is_code is_layout_io_fail(is_error *err, const char *path, const char *verb, const char *what,
                          int building);

/* Self-verification's records (verification.c): created with the file's metadata (none
 * when the job asks for none or its model has no tolerance parameter), opened with the
 * file (-1: none), the open file's dataset. */
struct is_job;
herr_t is_layout_verification_create(hid_t file, const struct is_job *job);
hid_t is_layout_verification_open(hid_t file);
struct is_results;
hid_t is_layout_verification(const struct is_results *r);

/* The failed points' reasons (results_run.c): /run/reason, a uint8 code per point of the
 * file (1-D, in the file's point order; 0: none), and /run/reasons, the text of code c in
 * row c - 1 (rows of characters, netCDF's char type). Created with the file's metadata;
 * opened with it (-1 each where a file made before them has none). */
#define IS_LAYOUT_REASON_NAME "/run/reason"
#define IS_LAYOUT_REASONS_NAME "/run/reasons"
herr_t is_layout_reasons_create(hid_t file, uint64_t points);
void is_layout_reasons_open(hid_t file, hid_t reasons[2]);
hid_t is_layout_reasons(const struct is_results *r, int texts);

/* What results_run.c reads of an open file (results.c keeps it). */
hid_t is_layout_run(const struct is_results *r, int which);
int is_layout_building(const struct is_results *r);
int is_layout_writable(const struct is_results *r);
int is_layout_tally_length(const struct is_results *r);
/* Elements first .. first + count - 1 of the 1-D dataset ds (or its one element, if
 * scalar), read or written in memory type mem_type; `name` for the message. */
is_code is_layout_range_transfer(const struct is_results *r, hid_t ds, const char *name,
                                 hsize_t first, hsize_t count, hid_t mem_type, void *buf,
                                 int writing, is_error *err);

#endif
