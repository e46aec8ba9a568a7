/* results.c: an open result file: its variables and raw-data blocks (the layout and its
 * guarantees are in results.h; creating a file is results_create.c, the run state and
 * the failed points' reasons in /run results_run.c). */
#define _GNU_SOURCE /* fallocate */
#include "results.h"

#include <errno.h>
#include <fcntl.h>
#include <hdf5.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "crc32c.h"
#include "h5attr.h"
#include "results_layout.h"

struct is_results {
    hid_t file;
    int parallel;
    is_results_mode mode;
    int format;                   /* 2 (no checksums), 3 (no reasons) or 4 */
    char *path;
    size_t axis_count;
    uint64_t dims[IS_GRID_MAX_AXES];
    char axis_names[IS_GRID_MAX_AXES][IS_LAYOUT_NAME_MAX];
    uint64_t points, first;
    size_t variable_count;        /* outputs + status; the arrays below have one more,
                                     the checksums (/run/check), at index variable_count */
    is_results_variable *variables;
    char (*names)[IS_LAYOUT_NAME_MAX];
    char (*meanings)[IS_LAYOUT_MEANINGS_MAX];
    hid_t *datasets;
    hid_t *spaces;                /* an array output's dataspace (-1: file_space's shape) */
    char (*dimensions)[IS_LAYOUT_NAME_MAX]; /* an array output's last dimension */
    hid_t coordinates[IS_GRID_MAX_AXES];
    hid_t file_space;             /* the variables' dataspace, reused for every selection */
    hid_t run[IS_LAYOUT_RUN_COUNT]; /* the /run datasets */
    hid_t verification;           /* /verify/records, or -1 (verification.h) */
    hid_t reasons[2];             /* /run/reason and /run/reasons, or -1 (files made
                                     before them) */
    int sync_fd;                  /* writing: this rank's descriptor for fdatasync */
    int tally_length;             /* statuses the tally holds: a refined sweep's file has
                                     inferred too (is_results_set_state writes no more) */
    void *convert;                /* scratch for int32 / int8 outputs */
    size_t convert_capacity;      /* in bytes */
    uint32_t *checks;             /* scratch: the checksums of a block being written */
    uint8_t *no_reasons;          /* check_capacity zeros: the codes of points without one */
    size_t check_capacity;        /* in points */
    const void **columns;         /* a block being written: each variable's stored values */
    size_t *sizes;                /* each variable's element size */
};

/* --- opening ------------------------------------------------------------------------- */

/* Splits a space-separated attribute into at most max names; returns their number. */
static size_t split_names(const char *text, char (*names)[IS_LAYOUT_NAME_MAX], size_t max)
{
    size_t n = 0;
    for (const char *p = text; *p && n < max;) {
        while (*p == ' ')
            p++;
        size_t len = strcspn(p, " ");
        if (len == 0)
            break;
        snprintf(names[n++], IS_LAYOUT_NAME_MAX, "%.*s", (int)len, p);
        p += len;
    }
    return n;
}

static size_t count_names(const char *text)
{
    size_t n = 0;
    for (const char *p = text; *p;) {
        while (*p == ' ')
            p++;
        size_t len = strcspn(p, " ");
        n += len > 0;
        p += len;
    }
    return n;
}

static hid_t access_list(MPI_Comm comm)
{
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    if (comm != MPI_COMM_NULL) {
        MPI_Info info = is_layout_mpi_hints();
        H5Pset_fapl_mpio(fapl, comm, info);
        if (info != MPI_INFO_NULL)
            MPI_Info_free(&info);
        /* rank 0 reads the metadata and broadcasts it: 10^4 ranks opening one file
         * must not each read its object headers */
        H5Pset_all_coll_metadata_ops(fapl, 1);
        H5Pset_coll_metadata_write(fapl, 1);
    }
    is_layout_no_hdf5_locking(fapl);
    return fapl;
}

/* Describes variable v from its dataset: its type, categories and fill value. */
static void describe(is_results *r, size_t v, int is_status)
{
    is_results_variable *var = &r->variables[v];
    hid_t ds = r->datasets[v], type = H5Dget_type(ds);
    var->name = r->names[v];
    var->is_status = is_status;
    var->value_size = H5Tget_size(type);
    var->type = H5Tget_class(type) == H5T_FLOAT ? IS_OUTPUT_REAL
                : var->value_size == 4          ? IS_OUTPUT_INT
                                                : IS_OUTPUT_CATEGORY;
    H5Tclose(type);
    var->length = 1;
    var->dimension = r->dimensions[v];
    hid_t space = H5Dget_space(ds);
    hsize_t dims[H5S_MAX_RANK];
    int rank = space < 0 ? -1 : H5Sget_simple_extent_dims(space, dims, NULL);
    if (!is_status && rank == (int)r->axis_count + 1) { /* an array output */
        var->length = (size_t)dims[rank - 1];
        r->spaces[v] = space;
        is_layout_dimension_name(ds, rank - 1, r->dimensions[v], IS_LAYOUT_NAME_MAX);
    } else if (space >= 0) {
        H5Sclose(space);
    }
    var->element_size = var->length * var->value_size;
    is_h5_attr_read_string(ds, "flag_meanings", r->meanings[v], IS_LAYOUT_MEANINGS_MAX);
    var->flag_meanings = r->meanings[v];
    var->fill = is_status ? (double)IS_POINT_PENDING : var->type == IS_OUTPUT_REAL ? NAN : -1.0;
}

/* A result file whose structure does not hold together: damaged (exit status 2). */
static is_code damaged(is_error *err, const char *path, const char *what, const char *name)
{
    char detail[IS_ERROR_MESSAGE_MAX];
    is_h5_fail(err, path, what);
    snprintf(detail, sizeof detail, "%s", err ? err->message : "");
    return is_error_set(err, IS_DAMAGED, "%s is damaged: %s %s failed (%s)", path, what, name,
                        detail);
}

static is_code open_variables(is_results *r, is_error *err)
{
    char outputs[IS_LAYOUT_TEXT_MAX], axes[IS_LAYOUT_TEXT_MAX];
    is_h5_attr_read_string(r->file, "outputs", outputs, sizeof outputs);
    is_h5_attr_read_string(r->file, "axes", axes, sizeof axes);
    size_t output_count = count_names(outputs);
    r->axis_count = split_names(axes, r->axis_names, IS_GRID_MAX_AXES);
    r->variable_count = output_count + 1;
    size_t n = r->variable_count + 2; /* and the checksums, the reasons' codes */
    r->variables = calloc(n, sizeof *r->variables);
    r->names = calloc(n, sizeof *r->names);
    r->meanings = calloc(n, sizeof *r->meanings);
    r->datasets = malloc(n * sizeof *r->datasets);
    r->spaces = malloc(n * sizeof *r->spaces);
    r->dimensions = calloc(n, sizeof *r->dimensions);
    if (!r->variables || !r->names || !r->meanings || !r->datasets || !r->spaces ||
        !r->dimensions)
        return is_error_set(err, IS_NOMEM, "out of memory");
    for (size_t v = 0; v < n; v++)
        r->datasets[v] = r->spaces[v] = -1;
    split_names(outputs, r->names, output_count);
    snprintf(r->names[output_count], IS_LAYOUT_NAME_MAX, "status");
    snprintf(r->names[r->variable_count], IS_LAYOUT_NAME_MAX, "%s", IS_LAYOUT_CHECK_NAME);
    snprintf(r->names[r->variable_count + 1], IS_LAYOUT_NAME_MAX, "%s", IS_LAYOUT_REASON_NAME);
    for (size_t v = 0; v < n; v++) {
        if (v == r->variable_count + 1)
            break; /* the reasons: opened with /run (is_layout_reasons_open) */
        if (v == r->variable_count && r->format < 3)
            break; /* format 2: no checksums */
        r->datasets[v] = H5Dopen2(r->file, r->names[v], H5P_DEFAULT);
        if (r->datasets[v] < 0)
            return damaged(err, r->path, "opening the variable", r->names[v]);
        if (v < r->variable_count)
            describe(r, v, v == output_count);
    }
    is_results_variable *check = &r->variables[r->variable_count];
    *check = (is_results_variable){r->names[r->variable_count], IS_OUTPUT_INT, 0, 4, "", 0.0,
                                   1, 4, ""};
    r->variables[r->variable_count + 1] = (is_results_variable){
        r->names[r->variable_count + 1], IS_OUTPUT_CATEGORY, 0, 1, "", 0.0, 1, 1, ""};
    /* a record's columns: the outputs, the reason's code (where the file has them), status */
    r->columns = calloc(r->variable_count + 1, sizeof *r->columns);
    r->sizes = calloc(r->variable_count + 1, sizeof *r->sizes);
    if (!r->columns || !r->sizes)
        return is_error_set(err, IS_NOMEM, "out of memory");
    for (size_t v = 0; v + 1 < r->variable_count; v++)
        r->sizes[v] = r->variables[v].element_size;
    r->sizes[r->variable_count - 1] = r->sizes[r->variable_count] = 1;
    /* the variables' shape: that of status (described first: the outputs' is one longer) */
    hid_t space = H5Dget_space(r->datasets[output_count]);
    hsize_t dims[H5S_MAX_RANK];
    int rank = space < 0 ? -1 : H5Sget_simple_extent_dims(space, dims, NULL);
    if (space >= 0)
        H5Sclose(space);
    if (rank < 0 || (size_t)rank != r->axis_count)
        return is_error_set(err, IS_DAMAGED, "%s is damaged: status has %d dimensions, %zu axes",
                            r->path, rank, r->axis_count);
    r->points = 1;
    for (size_t k = 0; k < r->axis_count; k++) {
        r->dims[k] = dims[k];
        r->points *= dims[k];
    }
    r->file_space = H5Dget_space(r->datasets[output_count]);
    char first[32];
    is_h5_attr_read_string(r->file, "piece_first", first, sizeof first);
    r->first = strtoull(first, NULL, 10);
    for (size_t k = 0; k < r->axis_count; k++) {
        r->coordinates[k] = H5Dopen2(r->file, r->axis_names[k], H5P_DEFAULT);
        if (r->coordinates[k] < 0)
            return damaged(err, r->path, "opening the coordinate", r->axis_names[k]);
    }
    int run_count = r->format < 3 ? IS_LAYOUT_RUN_COUNT_V2 : IS_LAYOUT_RUN_COUNT;
    for (int d = 0; d < run_count; d++) {
        r->run[d] = H5Dopen2(r->file, is_layout_run_names[d], H5P_DEFAULT);
        if (r->run[d] < 0)
            return damaged(err, r->path, "opening", is_layout_run_names[d]);
    }
    hid_t tally_space = H5Dget_space(r->run[IS_LAYOUT_RUN_TALLY]);
    hssize_t tally_length = tally_space < 0 ? -1 : H5Sget_simple_extent_npoints(tally_space);
    if (tally_space >= 0)
        H5Sclose(tally_space);
    r->verification = is_layout_verification_open(r->file);
    is_layout_reasons_open(r->file, r->reasons);
    r->tally_length = tally_length < 0                       ? 0
                      : tally_length > IS_POINT_STATUS_COUNT ? IS_POINT_STATUS_COUNT
                                                             : (int)tally_length;
    return r->file_space < 0 ? damaged(err, r->path, "reading the shape of", "status") : IS_OK;
}

/* A clear "not ours" before HDF5 opens anything: a device, FIFO or directory (HDF5's open
 * would block on a FIFO and read /dev/zero), and, where one rank opens alone, a file that
 * is not HDF5 at all. */
static is_code check_openable(const char *path, int parallel, is_error *err)
{
    struct stat st;
    if (stat(path, &st) == 0 && !S_ISREG(st.st_mode))
        return is_error_set(err, IS_NOT_RESULT, "%s: not a result file (%s)", path,
                            S_ISDIR(st.st_mode)    ? "a directory"
                            : S_ISFIFO(st.st_mode) ? "a FIFO"
                            : S_ISCHR(st.st_mode)  ? "a character device"
                                                   : "not a regular file");
    if (parallel)
        return IS_OK;
    htri_t hdf5 = H5Fis_hdf5(path);
    H5Eclear2(H5E_DEFAULT);
    if (hdf5 > 0)
        return IS_OK;
    return access(path, F_OK) == 0 ? is_error_set(err, IS_NOT_RESULT, "%s: not an HDF5 file", path)
                                   : is_error_set(err, IS_NOT_RESULT, "%s: no such file", path);
}

is_code is_results_open(const char *path, MPI_Comm comm, is_results_mode mode,
                        is_results **out, is_error *err)
{
    *out = NULL;
    is_results *r = calloc(1, sizeof *r);
    if (!r || !(r->path = strdup(path))) {
        free(r);
        return is_error_set(err, IS_NOMEM, "out of memory");
    }
    r->parallel = comm != MPI_COMM_NULL;
    r->mode = mode;
    r->file_space = -1;
    r->sync_fd = -1;
    r->verification = -1;
    r->reasons[0] = r->reasons[1] = -1;
    for (int d = 0; d < IS_LAYOUT_RUN_COUNT; d++)
        r->run[d] = -1;
    for (size_t k = 0; k < IS_GRID_MAX_AXES; k++)
        r->coordinates[k] = -1;
    is_code checked = check_openable(path, r->parallel, err);
    if (checked != IS_OK) {
        free(r->path);
        free(r);
        return checked;
    }
    hid_t fapl = access_list(comm);
    r->file = H5Fopen(path, mode != IS_RESULTS_READ ? H5F_ACC_RDWR : H5F_ACC_RDONLY, fapl);
    H5Pclose(fapl);
    if (r->file < 0) {
        /* a file we may read that HDF5 cannot open (truncated, a damaged superblock) is
         * bad input, as is one we may not read; only a failing device is the run's */
        int saved = errno, readable = access(path, R_OK) == 0;
        is_h5_fail(err, path, "opening");
        is_code rc = saved == EIO ? IS_IO : readable ? IS_DAMAGED : IS_NOT_RESULT;
        char detail[IS_ERROR_MESSAGE_MAX];
        snprintf(detail, sizeof detail, "%s", err ? err->message : "");
        if (readable)
            is_error_set(err, rc, "%s is damaged: HDF5 cannot open it (%s)", path, detail);
        else
            is_error_set(err, rc, "%s: cannot read the file: %s", path, strerror(saved));
        free(r->path);
        free(r);
        return rc;
    }
    is_code rc = IS_OK;
    char version[32];
    is_h5_attr_read_string(r->file, IS_RESULTS_FORMAT_ATTRIBUTE, version, sizeof version);
    r->format = atoi(version);
    if (!*version)
        rc = is_error_set(err, IS_NOT_RESULT, "%s: not an impactsweep result file", path);
    else if (r->format == IS_RESULTS_FORMAT_READABLE && mode != IS_RESULTS_READ)
        rc = is_error_set(err, IS_NOT_RESULT,
                          "%s: written in result-file format %d, which has no checksums: this "
                          "impactsweep reads it but never writes into it (finish it with the "
                          "version that made it, or start anew with --overwrite)",
                          path, r->format);
    else if (r->format < IS_RESULTS_FORMAT_READABLE || r->format > IS_RESULTS_FORMAT_VERSION)
        rc = is_error_set(err, IS_NOT_RESULT,
                          "%s: written in result-file format %s; this impactsweep reads "
                          "formats %d to %d (use the version that made it)",
                          path, version, IS_RESULTS_FORMAT_READABLE, IS_RESULTS_FORMAT_VERSION);
    if (rc == IS_OK)
        rc = open_variables(r, err);
    if (rc == IS_OK && mode != IS_RESULTS_READ && (r->sync_fd = open(path, O_RDONLY)) < 0)
        rc = is_error_set(err, IS_IO, "%s: cannot open for flushing: %s", path, strerror(errno));
    if (rc != IS_OK) {
        is_results_close(&r, NULL);
        return rc;
    }
    *out = r;
    return IS_OK;
}

is_code is_results_close(is_results **results, is_error *err)
{
    if (!results || !*results)
        return IS_OK;
    is_results *r = *results;
    herr_t bad = 0;
    for (size_t v = 0; r->datasets && v <= r->variable_count; v++)
        if (r->datasets[v] >= 0)
            bad |= H5Dclose(r->datasets[v]);
    for (size_t v = 0; r->spaces && v <= r->variable_count; v++)
        if (r->spaces[v] >= 0)
            H5Sclose(r->spaces[v]);
    for (int d = 0; d < IS_LAYOUT_RUN_COUNT; d++)
        if (r->run[d] >= 0)
            bad |= H5Dclose(r->run[d]);
    for (size_t k = 0; k < IS_GRID_MAX_AXES; k++)
        if (r->coordinates[k] >= 0)
            bad |= H5Dclose(r->coordinates[k]);
    bad |= r->verification >= 0 ? H5Dclose(r->verification) : 0;
    for (int t = 0; t < 2; t++)
        bad |= r->reasons[t] >= 0 ? H5Dclose(r->reasons[t]) : 0;
    if (r->file_space >= 0)
        H5Sclose(r->file_space);
    bad |= H5Fclose(r->file);
    is_code rc = bad < 0 ? is_h5_fail(err, r->path, "closing") : IS_OK;
    if (r->sync_fd >= 0)
        close(r->sync_fd);
    free(r->path);
    free(r->variables);
    free(r->names);
    free(r->meanings);
    free(r->datasets);
    free(r->spaces);
    free(r->dimensions);
    free(r->convert);
    free(r->checks);
    free(r->no_reasons);
    free(r->columns);
    free(r->sizes);
    free(r);
    *results = NULL;
    return rc;
}

int is_results_format(const is_results *r) { return r->format; }
const char *is_results_path(const is_results *r) { return r->path; }
hid_t is_layout_verification(const is_results *r) { return r->verification; }
hid_t is_layout_run(const is_results *r, int which) { return r->run[which]; }
hid_t is_layout_reasons(const is_results *r, int texts) { return r->reasons[texts ? 1 : 0]; }
int is_layout_building(const is_results *r) { return r->mode == IS_RESULTS_BUILD; }
int is_layout_writable(const is_results *r) { return r->mode != IS_RESULTS_READ; }
int is_layout_tally_length(const is_results *r) { return r->tally_length; }
uint64_t is_results_point_count(const is_results *r) { return r->points; }
uint64_t is_results_first_point(const is_results *r) { return r->first; }
size_t is_results_variable_count(const is_results *r) { return r->variable_count; }

uint64_t is_results_block_points(const is_results *r, uint64_t points)
{
    size_t longest = 1; /* (as raw bytes or as doubles: 8 bytes a value at most) */
    for (size_t v = 0; v < r->variable_count; v++)
        longest = r->variables[v].length > longest ? r->variables[v].length : longest;
    return points / longest ? points / longest : 1;
}

size_t is_results_value_count(const is_results *r)
{
    size_t n = 0;
    for (size_t v = 0; v + 1 < r->variable_count; v++)
        n += r->variables[v].length;
    return n;
}
size_t is_results_axis_count(const is_results *r) { return r->axis_count; }
const char *is_results_axis_name(const is_results *r, size_t k) { return r->axis_names[k]; }
uint64_t is_results_axis_length(const is_results *r, size_t k) { return r->dims[k]; }

const is_results_variable *is_results_variable_at(const is_results *r, size_t v)
{
    return &r->variables[v];
}

void is_results_attribute(const is_results *r, const char *name, char *buf, size_t size)
{
    is_h5_attr_read_string(r->file, name, buf, size);
}

void is_results_axis_attribute(const is_results *r, size_t k, const char *name, char *buf,
                               size_t size)
{
    is_h5_attr_read_string(r->coordinates[k], name, buf, size);
}

char *is_results_job_text(const is_results *r)
{
    return is_h5_attr_read_text(r->file, "job");
}

/* --- raw data ------------------------------------------------------------------------- */

/* Selects points first .. first + count - 1 of `space` (a union of boxes; an array
 * output's boxes span its last dimension, of `length`: in C order, point by point). */
static is_code select_block(is_results *r, hid_t space, size_t length, uint64_t first,
                            uint64_t count)
{
    if (first + count > r->points || count == 0)
        return IS_INTERNAL;
    if (r->axis_count == 0 && length == 1)
        return H5Sselect_all(space) < 0 ? IS_HDF5 : IS_OK;
    is_grid_box boxes[2 * IS_GRID_MAX_AXES];
    size_t n = r->axis_count ? is_shape_block_boxes(r->axis_count, r->dims, first, count, boxes)
                             : 1;
    for (size_t b = 0; b < n; b++) {
        hsize_t start[IS_GRID_MAX_AXES + 1], extent[IS_GRID_MAX_AXES + 1];
        for (size_t k = 0; k < r->axis_count; k++) {
            start[k] = boxes[b].start[k];
            extent[k] = boxes[b].count[k];
        }
        start[r->axis_count] = 0;
        extent[r->axis_count] = length;
        if (H5Sselect_hyperslab(space, b == 0 ? H5S_SELECT_SET : H5S_SELECT_OR, start, NULL,
                                extent, NULL) < 0)
            return IS_HDF5;
    }
    return IS_OK;
}

/* Moves count points of variable v between memory (mem_type) and the file. */
static is_code transfer(is_results *r, size_t v, uint64_t first, uint64_t count, hid_t mem_type,
                        void *buf, int writing, is_error *err)
{
    if (count == 0)
        return IS_OK;
    if (writing && r->mode == IS_RESULTS_READ)
        return is_error_set(err, IS_INTERNAL, "%s: opened read-only", r->path);
    if (r->datasets[v] < 0)
        return is_error_set(err, IS_NOT_RESULT,
                            "%s: written in result-file format %d, which has no checksums",
                            r->path, r->format);
    size_t length = r->variables[v].length;
    hid_t space = r->spaces[v] >= 0 ? r->spaces[v] : r->file_space;
    if (select_block(r, space, length, first, count) != IS_OK)
        return is_h5_fail(err, r->path, "selecting a block");
    hsize_t mem_dims[1] = {count * length};
    hid_t mem_space = H5Screate_simple(1, mem_dims, NULL);
    herr_t rc = writing ? H5Dwrite(r->datasets[v], mem_type, mem_space, space, H5P_DEFAULT, buf)
                        : H5Dread(r->datasets[v], mem_type, mem_space, space, H5P_DEFAULT, buf);
    /* read HDF5's error stack before the next call clears it */
    is_code code = rc < 0 ? is_layout_io_fail(err, r->path, writing ? "writing" : "reading",
                                              r->names[v], r->mode == IS_RESULTS_BUILD)
                          : IS_OK;
    H5Sclose(mem_space);
    return code;
}

static hid_t stored_memory_type(const is_results *r, size_t v)
{
    const is_results_variable *var = &r->variables[v];
    return v == r->variable_count             ? H5T_NATIVE_UINT32 /* the checksums */
           : var->is_status                   ? H5T_NATIVE_UINT8
           : var->type == IS_OUTPUT_REAL      ? H5T_NATIVE_DOUBLE
           : var->type == IS_OUTPUT_INT       ? H5T_NATIVE_INT32
                                              : H5T_NATIVE_INT8;
}

is_code is_results_read_doubles(is_results *r, size_t v, uint64_t first, uint64_t count,
                                double *values, is_error *err)
{
    return transfer(r, v, first, count, H5T_NATIVE_DOUBLE, values, 0, err);
}

is_code is_results_read_raw(is_results *r, size_t v, uint64_t first, uint64_t count,
                            void *bytes, is_error *err)
{
    return transfer(r, v, first, count, stored_memory_type(r, v), bytes, 0, err);
}

is_code is_results_write_raw(is_results *r, size_t v, uint64_t first, uint64_t count,
                             const void *bytes, is_error *err)
{
    return transfer(r, v, first, count, stored_memory_type(r, v), (void *)bytes, 1,
                    err);
}

is_code is_results_sync(is_results *r, is_error *err)
{
    /* fdatasync on any descriptor of the file flushes every rank's writes made through
     * this node's page cache (MPI-IO writes straight through to it) */
    if (r->sync_fd < 0 || fdatasync(r->sync_fd) == 0 || errno == EINVAL)
        return IS_OK; /* EINVAL: a file system without synchronisation */
    return is_error_set(err, IS_IO, "%s: flushing to stable storage failed: %s", r->path,
                        strerror(errno));
}

/* --- checksums ------------------------------------------------------------------------ */

size_t is_results_check_variable(const is_results *r) { return r->variable_count; }

void is_results_checks_begin(const is_results *r, uint64_t first, uint64_t count,
                             uint32_t *states)
{
    is_crc32c_start(states, r->first + first, (size_t)count);
}

/* An array output's values, point by point, each little-endian in turn. */
static void checks_add_array(const is_results_variable *var, uint64_t count, const void *raw,
                             uint32_t *states)
{
    const unsigned char *bytes = raw;
    for (uint64_t i = 0; i < count; i++)
        for (size_t j = 0; j < var->length; j++)
            is_crc32c_numbers(states + i, bytes + (i * var->length + j) * var->value_size,
                              var->value_size, 1);
}

void is_results_checks_add(const is_results *r, size_t v, uint64_t count, const void *raw,
                           uint32_t *states)
{
    if (r->variables[v].length > 1)
        checks_add_array(&r->variables[v], count, raw, states);
    else
        is_crc32c_numbers(states, raw, r->variables[v].element_size, (size_t)count);
    if (v == r->variable_count - 1) /* the status ends a record */
        is_crc32c_finish(states, (size_t)count);
}

size_t is_results_reason_variable(const is_results *r) { return r->variable_count + 1; }

void is_results_checks_add_reasons(const is_results *r, uint64_t count, const uint8_t *codes,
                                   uint32_t *states)
{
    if (is_results_has_reasons(r))
        is_crc32c_numbers(states, codes, 1, (size_t)count);
}

size_t is_results_record_size(const is_results *r)
{
    size_t bytes = 8 + (is_results_has_reasons(r) ? 1 : 0);
    for (size_t v = 0; v < r->variable_count; v++)
        bytes += r->variables[v].element_size;
    return bytes;
}

size_t is_results_record_variable(const is_results *r, size_t bit)
{
    size_t at = 8 * 8; /* the grid index comes first */
    if (bit < at)
        return r->variable_count;
    for (size_t v = 0; v < r->variable_count; v++) {
        if (v == r->variable_count - 1 && is_results_has_reasons(r)) { /* before status */
            at += 8;
            if (bit < at)
                return r->variable_count + 1;
        }
        at += 8 * r->variables[v].element_size;
        if (bit < at)
            return v;
    }
    return r->variable_count;
}

/* Bytes of `count` converted values of `size` bytes, rounded up to 8: each converted
 * column starts 8-byte aligned. */
static size_t converted_bytes(uint64_t count, size_t size)
{
    return ((size_t)count * size + 7) / 8 * 8;
}

/* Room for `count` points' records in the scratch of r: every integer and categorical
 * output converted at once, and the checksums. */
static is_code check_room(is_results *r, uint64_t count, is_error *err)
{
    size_t need = 8;
    for (size_t o = 0; o + 1 < r->variable_count; o++)
        if (r->variables[o].type != IS_OUTPUT_REAL)
            need += converted_bytes(count, r->variables[o].element_size);
    if (need > r->convert_capacity) {
        void *bigger = realloc(r->convert, need);
        if (!bigger)
            return is_error_set(err, IS_NOMEM, "out of memory");
        r->convert = bigger;
        r->convert_capacity = need;
    }
    if (count > r->check_capacity) {
        uint32_t *checks = realloc(r->checks, count * sizeof *checks);
        uint8_t *none = checks ? realloc(r->no_reasons, count) : NULL;
        if (checks)
            r->checks = checks;
        if (!checks || !none)
            return is_error_set(err, IS_NOMEM, "out of memory");
        r->no_reasons = none;
        memset(none, 0, count);
        r->check_capacity = count;
    }
    return IS_OK;
}

/* The outputs of points first .. first + count - 1 (as is_results_write, from point `from`
 * of outputs on), not flushed; r->columns then points at each output's stored values (for
 * their checksums). */
static is_code write_outputs(is_results *r, uint64_t first, uint64_t count,
                             const double *outputs, size_t stride, uint64_t from, is_error *err)
{
    size_t output_count = r->variable_count - 1;
    is_code rc = check_room(r, count, err);
    unsigned char *converted = r->convert;
    for (size_t o = 0, at = 0; o < output_count && rc == IS_OK; o++) {
        const is_results_variable *var = &r->variables[o];
        const double *src = outputs + at * stride + from * var->length;
        at += var->length;
        if (var->type == IS_OUTPUT_REAL) {
            r->columns[o] = src;
            rc = transfer(r, o, first, count, H5T_NATIVE_DOUBLE, (void *)src, 1, err);
            continue;
        }
        for (uint64_t i = 0; i < count * var->length; i++) {
            double v = isfinite(src[i]) ? src[i] : -1.0;
            if (var->type == IS_OUTPUT_INT)
                ((int32_t *)converted)[i] = (int32_t)v;
            else
                ((int8_t *)converted)[i] = (int8_t)v;
        }
        r->columns[o] = converted;
        rc = transfer(r, o, first, count, stored_memory_type(r, o), converted, 1, err);
        converted += converted_bytes(count, var->element_size);
    }
    return rc;
}

/* The checksums of the block write_outputs wrote, with its statuses, into r->checks: 0
 * for a pending point, which no checksum covers. One pass, each record in registers (with
 * array outputs: variable by variable). */
static void finish_checks(is_results *r, uint64_t first, uint64_t count, const uint8_t *status,
                          const uint8_t *reasons)
{
    int with = is_results_has_reasons(r);
    size_t status_var = r->variable_count - 1;
    r->columns[status_var] = with ? (const void *)reasons : (const void *)status;
    r->columns[r->variable_count] = status;
    if (is_results_value_count(r) == status_var) {
        is_crc32c_records(r->checks, r->first + first, (size_t)count, r->columns, r->sizes,
                          r->variable_count + (with ? 1 : 0));
    } else {
        is_results_checks_begin(r, first, count, r->checks);
        for (size_t v = 0; v < status_var; v++)
            is_results_checks_add(r, v, count, r->columns[v], r->checks);
        is_results_checks_add_reasons(r, count, reasons, r->checks);
        is_results_checks_add(r, status_var, count, status, r->checks);
    }
    for (uint64_t i = 0; i < count; i++)
        r->checks[i] = status[i] == IS_POINT_PENDING ? 0 : r->checks[i];
}

is_code is_results_write(is_results *r, uint64_t first, uint64_t count, const double *outputs,
                         size_t stride, const uint8_t *status, const uint8_t *reasons,
                         is_error *err)
{
    size_t output_count = r->variable_count - 1;
    if (count == 0)
        return IS_OK;
    is_code rc = write_outputs(r, first, count, outputs, stride, 0, err);
    reasons = reasons ? reasons : r->no_reasons;
    if (rc == IS_OK)
        rc = is_results_write_reasons(r, first, count, reasons, err);
    if (rc == IS_OK) { /* the checksums go with the outputs they vouch for */
        finish_checks(r, first, count, status, reasons);
        rc = transfer(r, r->variable_count, first, count, H5T_NATIVE_UINT32, r->checks, 1,
                      err);
    }
    /* the outputs reach stable storage before the status that vouches for them */
    if (rc == IS_OK)
        rc = is_results_sync(r, err);
    if (rc == IS_OK)
        rc = transfer(r, output_count, first, count, H5T_NATIVE_UINT8, (void *)status, 1, err);
    return rc;
}

/* Points this close are written as one block, the points between them written again with
 * what the file holds (a pass of a refined sweep takes every 2nd, 4th, ... point: a write
 * per point would cost a system call per variable each). The caller guarantees that no
 * other process writes between its points meanwhile; what is written again is the same
 * bytes (their checksums too, read back, never recomputed from what may be damaged), so a
 * kill in the middle changes nothing there. */
#define GAP_MAX 64
#define SEGMENT_MAX (UINT64_C(1) << 16)

/* Phase 0 of write_points for a block [first, first + n) holding the caller's points
 * points[i .. j - 1], gaps and all: their outputs and checksums. */
static is_code write_gapped_outputs(is_results *r, const uint64_t *points, uint64_t i,
                                    uint64_t j, const double *outputs, size_t stride,
                                    const uint8_t *status, const uint8_t *reasons,
                                    double *block, uint8_t *block_status,
                                    uint8_t *block_reasons, uint32_t *block_checks,
                                    uint64_t segment, is_error *err)
{
    size_t output_count = r->variable_count - 1;
    uint64_t first = points[i], n = points[j - 1] - first + 1;
    is_code rc = IS_OK;
    for (size_t o = 0, at = 0; o < output_count && rc == IS_OK; at += r->variables[o++].length)
        rc = is_results_read_doubles(r, o, first, n, block + at * segment, err);
    if (rc == IS_OK)
        rc = is_results_read_raw(r, r->variable_count, first, n, block_checks, err);
    if (rc == IS_OK) /* the reasons' codes, gaps and all */
        rc = is_results_read_reasons(r, first, n, block_reasons, err);
    if (rc != IS_OK)
        return rc;
    for (uint64_t k = i; k < j; k++)
        block_reasons[points[k] - first] = reasons ? reasons[k] : 0;
    rc = is_results_write_reasons(r, first, n, block_reasons, err);
    if (rc != IS_OK)
        return rc;
    for (size_t o = 0, at = 0; o < output_count; at += r->variables[o++].length) {
        size_t length = r->variables[o].length;
        for (uint64_t k = i; k < j; k++)
            memcpy(block + at * segment + (points[k] - first) * length,
                   outputs + at * stride + k * length, length * sizeof *block);
    }
    rc = write_outputs(r, first, n, block, segment, 0, err);
    if (rc != IS_OK)
        return rc;
    memset(block_status, IS_POINT_PENDING, n);
    for (uint64_t k = i; k < j; k++)
        block_status[points[k] - first] = status[k];
    finish_checks(r, first, n, block_status, block_reasons);
    for (uint64_t k = i; k < j; k++) /* the gaps keep the checksums the file holds */
        block_checks[points[k] - first] = r->checks[points[k] - first];
    return transfer(r, r->variable_count, first, n, H5T_NATIVE_UINT32, block_checks, 1, err);
}

is_code is_results_write_points(is_results *r, const uint64_t *points, uint64_t count,
                                const double *outputs, size_t stride, const uint8_t *status,
                                const uint8_t *reasons, is_error *err)
{
    size_t output_count = r->variable_count - 1, values = is_results_value_count(r);
    /* (long array outputs: fewer points a block, no more bytes) */
    uint64_t segment = values <= 8 ? SEGMENT_MAX : 8 * SEGMENT_MAX / values + 1;
    double *block = NULL;
    uint8_t *block_status = NULL, *block_reasons = NULL;
    uint32_t *block_checks = NULL;
    is_code rc = IS_OK;
    for (int phase = 0; phase < 2 && rc == IS_OK; phase++) {
        for (uint64_t i = 0; i < count && rc == IS_OK;) {
            uint64_t j = i + 1;
            int consecutive = 1;
            while (j < count && points[j] - points[j - 1] <= GAP_MAX + 1 &&
                   points[j] - points[i] < segment) {
                consecutive &= points[j] == points[j - 1] + 1;
                j++;
            }
            uint64_t first = points[i], n = points[j - 1] - first + 1;
            if (consecutive && phase == 0) {
                rc = write_outputs(r, first, n, outputs, stride, i, err);
                const uint8_t *codes = reasons ? reasons + i : r->no_reasons;
                if (rc == IS_OK)
                    rc = is_results_write_reasons(r, first, n, codes, err);
                if (rc == IS_OK) {
                    finish_checks(r, first, n, status + i, codes);
                    rc = transfer(r, r->variable_count, first, n, H5T_NATIVE_UINT32, r->checks,
                                  1, err);
                }
                i = j;
                continue;
            }
            if (consecutive) {
                rc = transfer(r, output_count, first, n, H5T_NATIVE_UINT8, (void *)(status + i),
                              1, err);
                i = j;
                continue;
            }
            if (!block) {
                block = malloc(segment * (values ? values : 1) * sizeof *block);
                block_status = malloc(segment);
                block_reasons = malloc(segment);
                block_checks = malloc(segment * sizeof *block_checks);
                if (!block || !block_status || !block_reasons || !block_checks) {
                    rc = is_error_set(err, IS_NOMEM, "out of memory");
                    break;
                }
            }
            if (phase == 0) {
                rc = write_gapped_outputs(r, points, i, j, outputs, stride, status, reasons,
                                          block, block_status, block_reasons, block_checks,
                                          segment, err);
            } else {
                rc = is_results_read_raw(r, output_count, first, n, block_status, err);
                for (uint64_t k = i; k < j; k++)
                    block_status[points[k] - first] = status[k];
                if (rc == IS_OK)
                    rc = transfer(r, output_count, first, n, H5T_NATIVE_UINT8, block_status, 1,
                                  err);
            }
            i = j;
        }
        /* every output reaches stable storage before the statuses that vouch for them */
        if (phase == 0 && rc == IS_OK && count)
            rc = is_results_sync(r, err);
    }
    free(block);
    free(block_status);
    free(block_reasons);
    free(block_checks);
    return rc;
}

/* Elements first .. first + count - 1 of a 1-D dataset (or its one element, if scalar),
 * read or written in memory type mem_type. */
is_code is_layout_range_transfer(const is_results *r, hid_t ds, const char *name,
                                 hsize_t first, hsize_t count, hid_t mem_type, void *buf,
                                 int writing, is_error *err)
{
    hid_t space = H5Dget_space(ds), mem = H5Screate_simple(1, &count, NULL);
    herr_t rc = space < 0 || mem < 0 ? -1 : 0;
    if (rc == 0 && H5Sget_simple_extent_ndims(space) == 1)
        rc = H5Sselect_hyperslab(space, H5S_SELECT_SET, &first, NULL, &count, NULL);
    if (rc >= 0)
        rc = writing ? H5Dwrite(ds, mem_type, mem, space, H5P_DEFAULT, buf)
                     : H5Dread(ds, mem_type, mem, space, H5P_DEFAULT, buf);
    /* read HDF5's error stack before the next call clears it */
    is_code code = rc < 0 ? is_layout_io_fail(err, r->path, writing ? "writing" : "reading",
                                              name, r->mode == IS_RESULTS_BUILD)
                          : IS_OK;
    if (mem >= 0)
        H5Sclose(mem);
    if (space >= 0)
        H5Sclose(space);
    return code;
}

is_code is_results_coordinates(is_results *r, size_t k, uint64_t first, uint64_t count,
                               double *values, int writing, is_error *err)
{
    if (count == 0)
        return IS_OK;
    return is_layout_range_transfer(r, r->coordinates[k], r->axis_names[k], first, count,
                          H5T_NATIVE_DOUBLE, values, writing, err);
}

is_code is_results_coordinate_names(is_results *r, size_t k, char *buf, size_t size,
                                    is_error *err)
{
    buf[0] = '\0';
    hid_t space = H5Dget_space(r->coordinates[k]);
    hssize_t n = space < 0 ? -1 : H5Sget_simple_extent_npoints(space);
    hid_t type = H5Tcopy(H5T_C_S1);
    H5Tset_size(type, H5T_VARIABLE);
    H5Tset_cset(type, H5T_CSET_UTF8);
    char **names = n > 0 && n <= 64 ? calloc((size_t)n, sizeof *names) : NULL;
    herr_t rc = names ? H5Dread(r->coordinates[k], type, H5S_ALL, H5S_ALL, H5P_DEFAULT, names)
                      : -1;
    is_code code =
        rc < 0 ? is_layout_io_fail(err, r->path, "reading", r->axis_names[k], 0) : IS_OK;
    size_t used = 0;
    for (hssize_t i = 0; rc >= 0 && i < n && used < size; i++)
        used += (size_t)snprintf(buf + used, size - used, "%s%s", i ? ", " : "",
                                 names[i] ? names[i] : "?");
    if (rc >= 0)
        H5Dvlen_reclaim(type, space, H5P_DEFAULT, names);
    free(names);
    H5Tclose(type);
    if (space >= 0)
        H5Sclose(space);
    return code;
}

/* --- the file's fixed bytes ------------------------------------------------------------- */

/* {offset, length} of a contiguous dataset's raw data; {0, 0} where it has none. */
static void extent_of(hid_t ds, uint64_t extent[2])
{
    haddr_t at = ds >= 0 ? H5Dget_offset(ds) : HADDR_UNDEF;
    hsize_t size = ds >= 0 ? H5Dget_storage_size(ds) : 0;
    H5Eclear2(H5E_DEFAULT);
    extent[0] = at == HADDR_UNDEF ? 0 : (uint64_t)at;
    extent[1] = at == HADDR_UNDEF ? 0 : (uint64_t)size;
}

is_code is_results_allocate_zeros(is_results *r, size_t v, uint64_t first, uint64_t count,
                                  int *done, is_error *err)
{
    uint64_t extent[2];
    extent_of(r->datasets[v], extent);
    size_t size = r->variables[v].element_size;
    *done = 0;
    if (count == 0 || extent[1] < (first + count) * size || r->mode == IS_RESULTS_READ)
        return IS_OK;
    int fd = open(r->path, O_WRONLY | O_CLOEXEC);
    if (fd < 0)
        return IS_OK; /* written instead */
    int rc = fallocate(fd, 0, (off_t)(extent[0] + first * size), (off_t)(count * size));
    int saved = errno;
    close(fd);
    if (rc == 0) {
        *done = 1;
        return IS_OK;
    }
    if (saved == ENOSPC || saved == EDQUOT)
        return is_error_set(err, IS_IO,
                            "%s: allocating %s failed: no space left on the device (or quota "
                            "exceeded) while the file was being made: nothing of it is kept; "
                            "free some space and run again",
                            r->path, r->names[v]);
    return IS_OK; /* not supported here (EOPNOTSUPP, ENOSYS, EINVAL): written instead */
}

size_t is_results_mutable_extents(const is_results *r, uint64_t (*extents)[2], size_t max)
{
    size_t n = 0;
    for (size_t v = 0; v <= r->variable_count && n < max; v++)
        if (r->datasets[v] >= 0)
            extent_of(r->datasets[v], extents[n++]);
    for (int d = 0; d < IS_LAYOUT_RUN_COUNT && n < max; d++)
        if (r->run[d] >= 0)
            extent_of(r->run[d], extents[n++]);
    if (r->verification >= 0 && n < max)
        extent_of(r->verification, extents[n++]);
    for (int t = 0; t < 2 && n < max; t++)
        if (r->reasons[t] >= 0)
            extent_of(r->reasons[t], extents[n++]);
    return n;
}

void is_results_coordinate_extent(const is_results *r, size_t k, uint64_t extent[2])
{
    hid_t type = H5Dget_type(r->coordinates[k]);
    int numeric = type >= 0 && H5Tget_class(type) == H5T_FLOAT;
    if (type >= 0)
        H5Tclose(type);
    if (numeric)
        extent_of(r->coordinates[k], extent);
    else
        extent[0] = extent[1] = 0;
}

size_t is_results_digest_rows(const is_results *r)
{
    hid_t ds = r->run[IS_LAYOUT_RUN_DIGEST];
    hid_t space = ds >= 0 ? H5Dget_space(ds) : -1;
    hsize_t dims[2] = {0, 0};
    int rank = space >= 0 ? H5Sget_simple_extent_dims(space, dims, NULL) : -1;
    if (space >= 0)
        H5Sclose(space);
    return rank == 2 && dims[1] == 4 ? (size_t)dims[0] : 0;
}

is_code is_results_digest(is_results *r, uint64_t (*rows)[4], int writing, is_error *err)
{
    size_t n = is_results_digest_rows(r);
    if (n == 0)
        return is_error_set(err, IS_NOT_RESULT, "%s: has no digest table (/run/digest)",
                            r->path);
    if (writing && r->mode == IS_RESULTS_READ)
        return is_error_set(err, IS_INTERNAL, "%s: opened read-only", r->path);
    hid_t ds = r->run[IS_LAYOUT_RUN_DIGEST];
    herr_t rc = writing ? H5Dwrite(ds, H5T_NATIVE_UINT64, H5S_ALL, H5S_ALL, H5P_DEFAULT, rows)
                        : H5Dread(ds, H5T_NATIVE_UINT64, H5S_ALL, H5S_ALL, H5P_DEFAULT, rows);
    return rc < 0 ? is_layout_io_fail(err, r->path, writing ? "writing" : "reading",
                                      is_layout_run_names[IS_LAYOUT_RUN_DIGEST],
                                      r->mode == IS_RESULTS_BUILD)
                  : IS_OK;
}

