/* results_create.c: building a new result file, publishing it under its name, and
 * checking that an existing one belongs to a job (the layout is in results.h).
 *
 * Building is split so that nothing serial grows with the grid: rank 0 alone creates the
 * metadata (every dataset allocated at once, contiguous, never filled by HDF5, whose
 * parallel fill would be rank 0 writing the whole file); then all ranks open the file and
 * each fills its share of every variable and coordinate with large contiguous writes. */
#include "results.h"

#include <errno.h>
#include <hdf5.h>
#include <hdf5_hl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <libgen.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "collective.h"
#include "digest.h"
#include "engine.h"
#include "h5attr.h"
#include "model_text.h"
#include "numtext.h"
#include "results_layout.h"
#include "stop.h"
#include "verification.h"

/* Points per fill or coordinate write: 4 MiB of doubles. */
#define BUILD_BLOCK (UINT64_C(1) << 19)
/* Datasets of at least this size start on a boundary of this size, so that the large
 * writes of the run are aligned to file-system blocks and stripes. */
#define ALIGNMENT (UINT64_C(1) << 20)

char *is_results_partial_path(const char *path)
{
    return is_path_with_suffix(path, ".partial");
}

/* --- the metadata (rank 0) ----------------------------------------------------------- */

static hid_t stored_type(is_output_type type)
{
    return type == IS_OUTPUT_REAL ? H5T_IEEE_F64LE
           : type == IS_OUTPUT_INT ? H5T_STD_I32LE
                                   : H5T_STD_I8LE;
}

static hid_t box_space(const is_job *job)
{
    hsize_t dims[IS_GRID_MAX_AXES];
    for (size_t k = 0; k < job->grid.axis_count; k++)
        dims[k] = job->piece_box.count[k];
    return job->grid.axis_count ? H5Screate_simple((int)job->grid.axis_count, dims, NULL)
                                : H5Screate(H5S_SCALAR);
}

/* A dataset with its storage allocated now, contiguous, and not filled by HDF5 (the ranks
 * fill it): the layout the run's raw writes rely on. */
static hid_t create_dataset(hid_t loc, const char *name, hid_t type, hid_t space,
                            const void *fill)
{
    hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
    H5Pset_layout(dcpl, H5D_CONTIGUOUS);
    H5Pset_alloc_time(dcpl, H5D_ALLOC_TIME_EARLY);
    H5Pset_fill_time(dcpl, H5D_FILL_TIME_NEVER);
    if (fill)
        H5Pset_fill_value(dcpl, type, fill);
    hid_t ds = H5Dcreate2(loc, name, type, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    H5Pclose(dcpl);
    return ds;
}

static herr_t describe_output(hid_t ds, const is_output *out)
{
    herr_t rc = is_h5_attr_string(ds, "units", out->unit);
    rc |= is_h5_attr_string(ds, "long_name", out->long_name);
    if (out->label) /* the short label figures use (impactplot) */
        rc |= is_h5_attr_string(ds, "label", out->label);
    if (out->type == IS_OUTPUT_REAL) {
        double fill = NAN;
        rc |= is_h5_attr_array(ds, "_FillValue", H5T_NATIVE_DOUBLE, 1, &fill);
    } else if (out->type == IS_OUTPUT_INT) {
        int32_t fill = -1;
        rc |= is_h5_attr_array(ds, "_FillValue", H5T_NATIVE_INT32, 1, &fill);
    } else {
        int8_t fill = -1, values[64];
        int count = is_output_category_count(out);
        char meanings[1024] = "";
        size_t used = 0;
        for (int c = 0; c < count && c < 64; c++) {
            values[c] = (int8_t)c;
            used += (size_t)snprintf(meanings + used, sizeof meanings - used, "%s%s",
                                     c ? " " : "", out->categories[c]);
        }
        rc |= is_h5_attr_array(ds, "_FillValue", H5T_NATIVE_INT8, 1, &fill);
        rc |= is_h5_attr_array(ds, "flag_values", H5T_NATIVE_INT8, (size_t)count, values);
        rc |= is_h5_attr_string(ds, "flag_meanings", meanings);
    }
    return rc;
}

/* Statuses a file of `job` can hold: inferred only in a refined sweep's (so that the
 * files of other sweeps do not list it). */
static int holds_status(const is_job *job, int s)
{
    return s != IS_POINT_INFERRED || job->refine_levels;
}

static herr_t describe_status(hid_t ds, const is_job *job)
{
    uint8_t values[IS_POINT_STATUS_COUNT];
    char meanings[512] = "";
    size_t used = 0, count = 0;
    for (int s = 0; s < IS_POINT_STATUS_COUNT; s++) {
        if (!holds_status(job, s))
            continue;
        values[count++] = (uint8_t)s;
        char name[64];
        snprintf(name, sizeof name, "%s", is_point_status_name(s));
        for (char *c = name; *c; c++)
            *c = (char)(*c >= 'A' && *c <= 'Z' ? *c - 'A' + 'a' : *c);
        used += (size_t)snprintf(meanings + used, sizeof meanings - used, "%s%s", s ? " " : "",
                                 name);
    }
    /* CF: a fill value distinct from every flag value (255, netCDF's own for ubyte): no
     * point is ever missing, pending is a status like the others */
    uint8_t fill = 255;
    herr_t rc = is_h5_attr_string(ds, "long_name", "computation status of the point");
    rc |= is_h5_attr_string(ds, "units", "1");
    rc |= is_h5_attr_array(ds, "_FillValue", H5T_NATIVE_UINT8, 1, &fill);
    rc |= is_h5_attr_array(ds, "flag_values", H5T_NATIVE_UINT8, count, values);
    rc |= is_h5_attr_string(ds, "flag_meanings", meanings);
    return rc;
}

static int is_swept(const is_job *job, size_t p)
{
    for (size_t k = 0; k < job->grid.axis_count; k++)
        if (job->grid.axes[k].param == (int)p)
            return 1;
    return 0;
}

/* Where and how the file was made: the engine, its libraries, the machine and job. */
static herr_t write_build(hid_t file, const is_provenance *prov)
{
    herr_t rc = is_h5_attr_string(file, "engine_version", prov->engine_version);
    rc |= is_h5_attr_string(file, "git_commit", prov->git_commit);
    rc |= is_h5_attr_string(file, "build", prov->build);
    rc |= is_h5_attr_string(file, "hdf5_version", prov->hdf5_version);
    rc |= is_h5_attr_string(file, "mpi_library", prov->mpi_library);
    rc |= is_h5_attr_string(file, "sundials_version", prov->sundials_version);
    rc |= is_h5_attr_string(file, "inih_version", prov->inih_version);
    rc |= is_h5_attr_string(file, "host", prov->host);
    if (*prov->hosts) /* (every rank's host: a run's file, not a merge's) */
        rc |= is_h5_attr_string(file, "hosts", prov->hosts);
    rc |= is_h5_attr_string(file, "slurm", prov->slurm);
    rc |= is_h5_attr_string(file, "start_time", prov->start_time);
    rc |= is_h5_attr_int64(file, "ranks", prov->ranks);
    return rc;
}

/* The file's piece of the grid (the whole grid: piece 0/1). */
static herr_t write_piece(hid_t file, const is_job *job)
{
    herr_t rc = is_h5_attr_int64(file, "points_total",
                                 (int64_t)(job->piece_last - job->piece_first));
    rc |= is_h5_attr_int64(file, "grid_points", (int64_t)job->grid.point_count);
    rc |= is_h5_attr_int64(file, "piece_first", (int64_t)job->piece_first);
    char piece[96];
    is_job_piece_text(job, piece, sizeof piece);
    rc |= is_h5_attr_string(file, "piece", piece);
    if (job->grid.axis_count) {
        int64_t start[IS_GRID_MAX_AXES];
        for (size_t k = 0; k < job->grid.axis_count; k++)
            start[k] = (int64_t)job->piece_box.start[k];
        rc |= is_h5_attr_array(file, "piece_start", H5T_NATIVE_INT64, job->grid.axis_count,
                               start);
    }
    return rc;
}

/* A refined sweep's keys (refine.h; the job text has them too): `refine` as a reader
 * would write it ("regime, impacts_mean >= 50"), and the same split for programs
 * (`refine_outputs`, names; `refine_thresholds`, a number or nan each). */
static herr_t write_refinement(hid_t file, const is_job *job)
{
    const is_model *model = job->model;
    char refined[1024] = "", spec[1024] = "", names[1024] = "", thresholds[1024] = "";
    size_t n = 0, ns = 0, nn = 0, nt = 0;
    for (size_t k = 0; k < job->grid.axis_count; k++)
        if (job->refine_axes & 1u << k)
            n += (size_t)snprintf(refined + n, sizeof refined - n, "%s%s", n ? " " : "",
                                  model->params[job->grid.axes[k].param].name);
    for (size_t i = 0; i < job->refine_output_count; i++) {
        const is_refine_output *r = &job->refine_outputs[i];
        const char *name = model->outputs[r->output].name;
        ns += (size_t)snprintf(spec + ns, sizeof spec - ns, "%s%s", i ? ", " : "", name);
        if (!isnan(r->threshold))
            ns += (size_t)snprintf(spec + ns, sizeof spec - ns, " >= %s", IS_NUM(r->threshold));
        nn += (size_t)snprintf(names + nn, sizeof names - nn, "%s%s", i ? " " : "", name);
        nt += (size_t)snprintf(thresholds + nt, sizeof thresholds - nt, "%s%s", i ? " " : "",
                               IS_NUM(r->threshold));
    }
    herr_t rc = is_h5_attr_string(file, "refine", spec);
    rc |= is_h5_attr_int64(file, "refine_levels", (int64_t)job->refine_levels);
    rc |= is_h5_attr_string(file, "refine_axes", refined);
    rc |= is_h5_attr_string(file, "refine_outputs", names);
    rc |= is_h5_attr_string(file, "refine_thresholds", thresholds);
    rc |= is_h5_attr_double(file, "refine_margin", job->refine_margin);
    if (job->refine_output_count == 1 && !isnan(job->refine_outputs[0].threshold))
        rc |= is_h5_attr_double(file, "refine_threshold", job->refine_outputs[0].threshold);
    return rc;
}

/* parameter_NAME for each fixed parameter (a swept one is a coordinate), and the seed. */
static herr_t write_parameters(hid_t file, const is_job *job)
{
    const is_model *model = job->model;
    herr_t rc = 0;
    for (size_t p = 0; p < model->param_count; p++) {
        int swept = is_swept(job, p);
        if (!swept) {
            char name[128];
            snprintf(name, sizeof name, "parameter_%s", model->params[p].name);
            rc |= model->params[p].type == IS_PARAM_CHOICE /* by name, never by position */
                      ? is_h5_attr_string(file, name,
                                          model->params[p].choices[(int)job->fixed[p]])
                      : is_h5_attr_double(file, name, job->fixed[p]);
        }
        if (model->params[p].flags & IS_PARAM_SEED)
            rc |= swept ? is_h5_attr_string(file, "seed", "swept")
                        : is_h5_attr_int64(file, "seed", (int64_t)job->fixed[p]);
    }
    return rc;
}

static herr_t write_provenance(hid_t file, const is_job *job, const is_provenance *prov,
                               const char *first_line)
{
    const is_model *model = job->model;
    char fingerprint[32], axes[1024] = "";
    snprintf(fingerprint, sizeof fingerprint, "%016llx", (unsigned long long)job->fingerprint);
    size_t used = 0;
    for (size_t k = 0; k < job->grid.axis_count; k++)
        used += (size_t)snprintf(axes + used, sizeof axes - used, "%s%s", k ? " " : "",
                                 model->params[job->grid.axes[k].param].name);
    char outputs[4096] = "";
    size_t out_used = 0;
    for (size_t o = 0; o < model->output_count; o++)
        out_used += (size_t)snprintf(outputs + out_used, sizeof outputs - out_used, "%s%s",
                                     o ? " " : "", model->outputs[o].name);
    herr_t rc = is_h5_attr_int64(file, IS_RESULTS_FORMAT_ATTRIBUTE, IS_RESULTS_FORMAT_VERSION);
    rc |= is_h5_attr_string(file, "Conventions", "CF-1.8");
    rc |= is_h5_attr_string(file, "outputs", outputs);
    rc |= is_h5_attr_string(file, "title", job->title ? job->title : "");
    rc |= is_h5_attr_string(file, "model", model->name);
    rc |= is_h5_attr_string(file, "model_description", model->description);
    if (model->references) /* CF's attribute: the papers the model implements */
        rc |= is_h5_attr_string(file, "references", model->references);
    rc |= is_h5_attr_string(file, "model_version",
                            model->version ? model->version : prov->engine_version);
    if (job->model_library) { /* a plug-in: which library, exactly */
        rc |= is_h5_attr_string(file, "model_library", job->model_library);
        rc |= is_h5_attr_string(file, "model_library_sha256", job->model_sha256);
    }
    /* the model's table, and the digest of its version and tables (model_text.h): a
     * rebuilt plug-in that keeps them may continue the file; merge needs no plug-in */
    char *table = is_model_text(model, job->model_library ? NULL : prov->engine_version, NULL);
    rc |= table ? is_h5_attr_string(file, "model_table", table) : -1;
    rc |= is_h5_attr_string(file, "model_table_sha256", job->model_table_sha256);
    free(table);
    rc |= is_h5_attr_string(file, "axes", axes);
    rc |= is_h5_attr_string(file, "job", job->text);
    rc |= is_h5_attr_string(file, "job_source", job->source);
    rc |= is_h5_attr_string(file, "job_fingerprint", fingerprint);
    rc |= write_build(file, prov);
    rc |= write_piece(file, job);
    if (job->refine_levels)
        rc |= write_refinement(file, job);
    rc |= write_parameters(file, job);
    rc |= is_h5_history_append(file, first_line);
    return rc;
}

/* /run: the mutable run state, allocated and written whole now, and the digest table
 * (zeros until the file is complete: is_results_build). */
static herr_t create_run_group(hid_t file, const char *first_line, uint64_t points,
                               int statuses, hsize_t digest_rows)
{
    hid_t group = H5Gcreate2(file, "/run", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    if (group < 0)
        return -1;
    H5Gclose(group);
    hid_t state_type = is_layout_text_type(IS_LAYOUT_STATE_TEXT);
    hid_t line_type = H5Tcopy(H5T_C_S1); /* the log: rows of characters (netCDF char) */
    hid_t scalar = H5Screate(H5S_SCALAR);
    hsize_t tally_dims = (hsize_t)statuses;
    hsize_t log_dims[2] = {IS_RESULTS_LOG_CAPACITY, IS_RESULTS_LOG_LINE};
    hid_t tally_space = H5Screate_simple(1, &tally_dims, NULL);
    hid_t log_space = H5Screate_simple(2, log_dims, NULL);
    hsize_t digest_dims[2] = {digest_rows, 4};
    hid_t digest_space = H5Screate_simple(2, digest_dims, NULL);
    hid_t ds[IS_LAYOUT_RUN_COUNT];
    ds[IS_LAYOUT_RUN_STATE] = create_dataset(file, is_layout_run_names[IS_LAYOUT_RUN_STATE],
                                             state_type, scalar, NULL);
    ds[IS_LAYOUT_RUN_END_TIME] = create_dataset(
        file, is_layout_run_names[IS_LAYOUT_RUN_END_TIME], state_type, scalar, NULL);
    ds[IS_LAYOUT_RUN_TALLY] = create_dataset(file, is_layout_run_names[IS_LAYOUT_RUN_TALLY],
                                             H5T_STD_U64LE, tally_space, NULL);
    ds[IS_LAYOUT_RUN_LOG] = create_dataset(file, is_layout_run_names[IS_LAYOUT_RUN_LOG],
                                           line_type, log_space, NULL);
    ds[IS_LAYOUT_RUN_LOG_COUNT] = create_dataset(
        file, is_layout_run_names[IS_LAYOUT_RUN_LOG_COUNT], H5T_STD_U64LE, scalar, NULL);
    ds[IS_LAYOUT_RUN_DIGEST] = create_dataset(file, is_layout_run_names[IS_LAYOUT_RUN_DIGEST],
                                              H5T_STD_U64LE, digest_space, NULL);
    char state[IS_LAYOUT_STATE_TEXT] = "created", end[IS_LAYOUT_STATE_TEXT] = "";
    uint64_t tally[IS_POINT_STATUS_COUNT] = {0}, one = 1;
    tally[IS_POINT_PENDING] = points;
    /* every byte written now, so that later updates overwrite allocated blocks (a full
     * disk cannot fail them on a file system that overwrites in place) */
    char *log = calloc(IS_RESULTS_LOG_CAPACITY, IS_RESULTS_LOG_LINE);
    uint64_t *digest = calloc(digest_rows, 4 * sizeof *digest);
    herr_t rc = log && digest ? 0 : -1;
    for (int d = 0; d < IS_LAYOUT_RUN_COUNT; d++)
        rc |= ds[d] < 0 ? -1 : 0;
    if (rc == 0) {
        snprintf(log, IS_RESULTS_LOG_LINE, "%s", first_line);
        rc |= H5Dwrite(ds[IS_LAYOUT_RUN_STATE], state_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, state);
        rc |= H5Dwrite(ds[IS_LAYOUT_RUN_END_TIME], state_type, H5S_ALL, H5S_ALL, H5P_DEFAULT,
                       end);
        rc |= H5Dwrite(ds[IS_LAYOUT_RUN_TALLY], H5T_NATIVE_UINT64, H5S_ALL, H5S_ALL, H5P_DEFAULT,
                       tally);
        rc |= H5Dwrite(ds[IS_LAYOUT_RUN_LOG], line_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, log);
        rc |= H5Dwrite(ds[IS_LAYOUT_RUN_LOG_COUNT], H5T_NATIVE_UINT64, H5S_ALL, H5S_ALL,
                       H5P_DEFAULT, &one);
        rc |= H5Dwrite(ds[IS_LAYOUT_RUN_DIGEST], H5T_NATIVE_UINT64, H5S_ALL, H5S_ALL,
                       H5P_DEFAULT, digest);
        rc |= is_h5_attr_string(ds[IS_LAYOUT_RUN_DIGEST], "long_name",
                                "digests of the file's fixed bytes (impactsweep info --verify)");
    }
    free(log);
    free(digest);
    for (int d = 0; d < IS_LAYOUT_RUN_COUNT; d++)
        if (ds[d] >= 0)
            H5Dclose(ds[d]);
    H5Sclose(scalar);
    H5Sclose(tally_space);
    H5Sclose(log_space);
    H5Sclose(digest_space);
    H5Tclose(state_type);
    H5Tclose(line_type);
    return rc;
}

/* /run/check: a checksum per point (results.h), over the grid like status, 0 (pending). */
static herr_t create_checks(hid_t file, hid_t space)
{
    uint32_t zero = 0;
    hid_t ds = create_dataset(file, IS_LAYOUT_CHECK_NAME, H5T_STD_U32LE, space, &zero);
    if (ds < 0)
        return -1;
    herr_t rc = is_h5_attr_string(ds, "long_name",
                                  "CRC-32C of each stored point's record: its grid index (8 "
                                  "bytes, little-endian), each output's stored bytes, its "
                                  "status; 0 where pending");
    rc |= is_h5_attr_string(ds, "units", "1");
    H5Dclose(ds);
    return rc;
}

static const char *scale_name(is_axis_scale scale)
{
    return scale == IS_SCALE_LOG ? "log" : scale == IS_SCALE_LINEAR ? "linear" : "values";
}

/* A swept choice's coordinate holds its names (variable-length UTF-8 strings, netCDF-4's
 * string type), so that xarray selects by name (ds.sel(law="bwshc")) and no reader
 * decodes a position. At most 32 choices: rank 0 writes them as it creates the file. */
static hid_t create_choice_coordinate(hid_t file, const is_job *job, size_t k, hid_t space)
{
    const is_axis *axis = &job->grid.axes[k];
    const is_param *param = &job->model->params[axis->param];
    const char *names[32];
    size_t count = job->piece_box.count[k];
    if (count > 32)
        return -1;
    for (size_t i = 0; i < count; i++)
        names[i] = param->choices[(int)is_axis_value(axis, job->piece_box.start[k] + i)];
    hid_t type = H5Tcopy(H5T_C_S1);
    H5Tset_size(type, H5T_VARIABLE);
    H5Tset_cset(type, H5T_CSET_UTF8);
    hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
    hid_t ds = H5Dcreate2(file, param->name, type, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    H5Pclose(dcpl);
    if (ds >= 0 && H5Dwrite(ds, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, names) < 0) {
        H5Dclose(ds);
        ds = -1;
    }
    H5Tclose(type);
    return ds;
}

/* The space of output `out`: the piece's box, and an array output's values last. */
static hid_t output_space(const is_job *job, const is_output *out)
{
    if (is_output_length(out) == 1)
        return box_space(job);
    hsize_t dims[IS_GRID_MAX_AXES + 1];
    size_t axes = job->grid.axis_count;
    for (size_t k = 0; k < axes; k++)
        dims[k] = job->piece_box.count[k];
    dims[axes] = is_output_length(out);
    return H5Screate_simple((int)axes + 1, dims, NULL);
}

/* An array output's last dimension: its coordinate 0 .. L - 1 (int32, a dimension scale
 * named after it, written now: fixed bytes, which the digest covers), made by the first
 * output that names it and attached to each. */
static herr_t attach_dimension(hid_t file, hid_t ds, const is_output *out, size_t axes)
{
    char name[2 * IS_LAYOUT_NAME_MAX];
    is_output_dimension(out, name, sizeof name);
    hid_t scale = H5Lexists(file, name, H5P_DEFAULT) > 0 ? H5Dopen2(file, name, H5P_DEFAULT)
                                                          : -1;
    herr_t rc = 0;
    if (scale < 0) {
        hsize_t length = is_output_length(out);
        hid_t space = H5Screate_simple(1, &length, NULL);
        int32_t *index = malloc(length * sizeof *index);
        scale = index ? create_dataset(file, name, H5T_STD_I32LE, space, NULL) : -1;
        for (hsize_t j = 0; index && j < length; j++)
            index[j] = (int32_t)j;
        rc = scale < 0 ? -1
                       : H5Dwrite(scale, H5T_NATIVE_INT32, H5S_ALL, H5S_ALL, H5P_DEFAULT, index);
        free(index);
        H5Sclose(space);
        rc |= scale < 0 ? -1 : H5DSset_scale(scale, name);
        rc |= scale < 0 ? -1 : is_h5_attr_string(scale, "long_name", "index of the value");
        rc |= scale < 0 ? -1 : is_h5_attr_string(scale, "units", "1");
    }
    rc |= scale < 0 ? -1 : H5DSattach_scale(ds, scale, (unsigned)axes);
    if (scale >= 0)
        H5Dclose(scale);
    return rc;
}

static is_code create_metadata(const is_job *job, const is_provenance *prov, const char *path,
                               const char *first_line, is_error *err)
{
    const is_model *model = job->model;
    const is_grid *grid = &job->grid;
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    H5Pset_alignment(fapl, ALIGNMENT, ALIGNMENT);
    is_layout_no_hdf5_locking(fapl);
    hid_t file = H5Fcreate(path, H5F_ACC_EXCL, H5P_DEFAULT, fapl);
    H5Pclose(fapl);
    if (file < 0)
        return is_h5_fail(err, path, "creating the file");
    is_code rc = IS_OK;
    hid_t scales[IS_GRID_MAX_AXES];
    size_t made = 0;
    for (; made < grid->axis_count; made++) {
        const is_axis *axis = &grid->axes[made];
        const is_param *param = &model->params[axis->param];
        int choice = param->type == IS_PARAM_CHOICE;
        hsize_t dims[1] = {job->piece_box.count[made]};
        hid_t space = H5Screate_simple(1, dims, NULL);
        scales[made] = choice ? create_choice_coordinate(file, job, made, space)
                              : create_dataset(file, param->name, H5T_IEEE_F64LE, space, NULL);
        H5Sclose(space);
        if (scales[made] < 0 || H5DSset_scale(scales[made], param->name) < 0 ||
            (!choice && is_h5_attr_string(scales[made], "units", param->unit) < 0) ||
            is_h5_attr_string(scales[made], "long_name", param->meaning) < 0 ||
            (param->label && is_h5_attr_string(scales[made], "label", param->label) < 0) ||
            is_h5_attr_string(scales[made], "scale", choice ? "choice" : scale_name(axis->scale)) <
                0) {
            if (scales[made] >= 0)
                H5Dclose(scales[made]);
            rc = is_h5_fail(err, path, "creating an axis");
            break;
        }
    }
    hid_t space = box_space(job);
    for (size_t o = 0; rc == IS_OK && o <= model->output_count; o++) {
        int is_status = o == model->output_count;
        const is_output *out = is_status ? NULL : &model->outputs[o];
        double fill_real = NAN;
        int32_t fill_int = -1;
        int8_t fill_category = -1;
        uint8_t fill_status = IS_POINT_PENDING;
        const void *fill = is_status                     ? (const void *)&fill_status
                           : out->type == IS_OUTPUT_REAL ? (const void *)&fill_real
                           : out->type == IS_OUTPUT_INT  ? (const void *)&fill_int
                                                         : (const void *)&fill_category;
        hid_t own = is_status ? -1 : output_space(job, out);
        hid_t ds = create_dataset(file, is_status ? "status" : out->name,
                                  is_status ? H5T_STD_U8LE : stored_type(out->type),
                                  is_status ? space : own, fill);
        if (own >= 0)
            H5Sclose(own);
        herr_t bad = ds < 0 ? -1 : is_status ? describe_status(ds, job) : describe_output(ds, out);
        for (size_t k = 0; !bad && k < grid->axis_count; k++)
            bad = H5DSattach_scale(ds, scales[k], (unsigned)k);
        if (!bad && !is_status && is_output_length(out) > 1)
            bad = attach_dimension(file, ds, out, grid->axis_count);
        if (ds >= 0)
            H5Dclose(ds);
        if (bad)
            rc = is_h5_fail(err, path, is_status ? "creating status" : "creating an output");
    }
    for (size_t k = 0; k < made; k++)
        H5Dclose(scales[k]);
    if (rc == IS_OK && create_run_group(file, first_line, job->piece_last - job->piece_first,
                                       IS_POINT_STATUS_COUNT,
                                       IS_LAYOUT_DIGEST_ROWS(model->output_count,
                                                             grid->axis_count)) < 0)
        rc = is_h5_fail(err, path, "creating the run state");
    if (rc == IS_OK && create_checks(file, space) < 0)
        rc = is_h5_fail(err, path, "creating the checksums");
    if (rc == IS_OK && is_layout_verification_create(file, job) < 0)
        rc = is_h5_fail(err, path, "creating the verification records");
    if (rc == IS_OK && is_layout_reasons_create(file, job->piece_last - job->piece_first) < 0)
        rc = is_h5_fail(err, path, "creating the failed points' reasons");
    H5Sclose(space);
    if (rc == IS_OK && write_provenance(file, job, prov, first_line) < 0)
        rc = is_h5_fail(err, path, "writing the provenance attributes");
    if (H5Fclose(file) < 0 && rc == IS_OK)
        rc = is_h5_fail(err, path, "closing the new file");
    return rc;
}

/* --- size ----------------------------------------------------------------------------- */

uint64_t is_results_size(const is_job *job)
{
    const is_model *model = job->model;
    uint64_t per_point = 1 + 4 + 1; /* status, checksum and reason code */
    for (size_t o = 0; o < model->output_count; o++)
        per_point += is_output_length(&model->outputs[o]) *
                     (model->outputs[o].type == IS_OUTPUT_REAL  ? 8
                      : model->outputs[o].type == IS_OUTPUT_INT ? 4
                                                                : 1);
    uint64_t points = job->piece_last - job->piece_first;
    /* metadata and the run log, and up to one alignment per large dataset */
    uint64_t fixed = (UINT64_C(1) << 20) + (uint64_t)IS_RESULTS_LOG_CAPACITY * IS_RESULTS_LOG_LINE +
                     (uint64_t)IS_RESULTS_REASON_CAPACITY * IS_RESULTS_REASON_TEXT;
    uint64_t padding = points * 8 >= ALIGNMENT ? (model->output_count + 3) * ALIGNMENT : 0;
    uint64_t stride = is_verification_stride(job->verify_fraction); /* its records */
    uint64_t records = stride ? (points / stride + 2) * 8 * (model->output_count + 3) : 0;
    return points * per_point + fixed + padding + records;
}

is_code is_results_check_space(const is_job *job, const char *path, is_error *err)
{
    char *dir = strdup(path);
    if (!dir)
        return is_error_set(err, IS_NOMEM, "out of memory");
    struct statvfs vfs;
    int known = statvfs(dirname(dir), &vfs) == 0;
    free(dir);
    double free_bytes = known ? (double)vfs.f_bavail * (double)vfs.f_frsize : 0.0;
    double needed = (double)is_results_size(job);
    if (known && free_bytes < needed)
        return is_error_set(err, IS_JOB,
                            "%s: the result file needs about %.3g GB and its file system has "
                            "%.3g GB free",
                            job->output_origin, needed / 1e9, free_bytes / 1e9);
    return IS_OK;
}

/* --- filling (all ranks) ----------------------------------------------------------- */

/* This rank's share of n items: [*lo, *hi). */
static void share(uint64_t n, MPI_Comm comm, uint64_t *lo, uint64_t *hi)
{
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    *lo = n / (uint64_t)size * (uint64_t)rank + n % (uint64_t)size * (uint64_t)rank / (uint64_t)size;
    *hi = n / (uint64_t)size * (uint64_t)(rank + 1) +
          n % (uint64_t)size * (uint64_t)(rank + 1) / (uint64_t)size;
}

static is_code fill_variables(is_results *r, MPI_Comm comm, is_stop *stop, is_error *err)
{
    uint64_t lo, hi;
    share(is_results_point_count(r), comm, &lo, &hi);
    uint64_t block = hi - lo < BUILD_BLOCK ? hi - lo : BUILD_BLOCK;
    size_t longest = 1; /* values per point of the longest array output */
    for (size_t v = 0; v < is_results_variable_count(r); v++)
        if (is_results_variable_at(r, v)->length > longest)
            longest = is_results_variable_at(r, v)->length;
    if (block && block < longest)
        block = longest; /* (room for one point of it) */
    double *buf = malloc((block ? block : 1) * sizeof *buf);
    if (!buf)
        return is_error_set(err, IS_NOMEM, "out of memory");
    is_code rc = IS_OK;
    /* the outputs, status and the checksums (0) */
    for (size_t v = 0; v <= is_results_variable_count(r) && rc == IS_OK; v++) {
        const is_results_variable *var = is_results_variable_at(r, v);
        int allocated = 0; /* zeros (status pending, no checksum): allocated, not written */
        if (var->fill == 0.0 && !isnan(var->fill))
            rc = is_results_allocate_zeros(r, v, lo, hi - lo, &allocated, err);
        if (allocated || rc != IS_OK)
            continue;
        for (uint64_t i = 0; i < block; i++) {
            if (var->value_size == 8)
                buf[i] = var->fill;
            else if (var->value_size == 4)
                ((int32_t *)buf)[i] = (int32_t)var->fill;
            else
                ((int8_t *)buf)[i] = (int8_t)var->fill;
        }
        /* (an array output: fewer points a write, as many values) */
        uint64_t step = block / var->length ? block / var->length : 1;
        for (uint64_t at = lo; at < hi && rc == IS_OK && !is_stop_poll(stop); at += step) {
            uint64_t n = hi - at < step ? hi - at : step;
            rc = is_results_write_raw(r, v, at, n, buf, err);
        }
    }
    if (block) /* the reasons: 0, none (written: a byte a point, allocated blocks after) */
        memset(buf, 0, block * sizeof *buf);
    for (uint64_t at = lo; at < hi && rc == IS_OK && !is_stop_poll(stop); at += block) {
        uint64_t n = hi - at < block ? hi - at : block;
        rc = is_results_write_reasons(r, at, n, (const uint8_t *)buf, err);
    }
    free(buf);
    return rc;
}

static is_code write_coordinates(is_results *r, const is_job *job, MPI_Comm comm,
                                 is_stop *stop, is_error *err)
{
    is_code rc = IS_OK;
    for (size_t k = 0; k < job->grid.axis_count && rc == IS_OK; k++) {
        const is_axis *axis = &job->grid.axes[k];
        if (job->model->params[axis->param].type == IS_PARAM_CHOICE)
            continue; /* names, written as the file was created */
        uint64_t lo, hi, offset = job->piece_box.start[k];
        share(job->piece_box.count[k], comm, &lo, &hi);
        uint64_t block = hi - lo < BUILD_BLOCK ? hi - lo : BUILD_BLOCK;
        double *values = malloc((block ? block : 1) * sizeof *values);
        if (!values)
            return is_error_set(err, IS_NOMEM, "out of memory");
        for (uint64_t at = lo; at < hi && rc == IS_OK && !is_stop_poll(stop); at += block) {
            uint64_t n = hi - at < block ? hi - at : block;
            for (uint64_t i = 0; i < n; i++)
                values[i] = is_axis_value(axis, (size_t)(offset + at + i));
            rc = is_results_coordinates(r, k, at, n, values, 1, err);
        }
        free(values);
    }
    return rc;
}

/* Collective, the file complete: its digest table, written last (rank 0). */
static is_code seal(is_results *r, MPI_Comm comm, is_stop *stop, is_error *err)
{
    int rank;
    MPI_Comm_rank(comm, &rank);
    size_t n = is_results_digest_rows(r);
    uint64_t (*rows)[4] = calloc(n ? n : 1, sizeof *rows);
    is_code rc = is_collective_agree(rows ? IS_OK : is_error_set(err, IS_NOMEM, "out of memory"),
                                     comm, err);
    if (rc == IS_OK)
        rc = is_digest_compute(r, comm, stop, rows, err);
    if (rc == IS_OK && rank == 0)
        rc = is_results_digest(r, rows, 1, err);
    free(rows);
    return is_collective_share(rc, 0, comm, err);
}

is_code is_results_build(const is_job *job, const is_provenance *prov, const char *path,
                         const char *first_line, MPI_Comm comm, is_error *err)
{
    int rank;
    MPI_Comm_rank(comm, &rank);
    is_stop *stop = NULL;
    is_code rc = is_stop_begin(comm, &stop, err);
    if (rc != IS_OK)
        return rc;
    rc = rank == 0 ? create_metadata(job, prov, path, first_line, err) : IS_OK;
    rc = is_collective_share(rc, 0, comm, err);
    is_results *r = NULL;
    if (rc == IS_OK)
        rc = is_collective_agree(is_results_open(path, comm, IS_RESULTS_BUILD, &r, err), comm,
                                 err);
    if (rc == IS_OK)
        rc = fill_variables(r, comm, stop, err);
    if (rc == IS_OK)
        rc = is_verification_fill(r, comm, err);
    if (rc == IS_OK)
        rc = write_coordinates(r, job, comm, stop, err);
    if (rc == IS_OK && !is_stop_poll(stop)) /* a stopped build is thrown away: no flush */
        rc = is_results_sync(r, err);
    rc = is_collective_agree(rc, comm, err);
    if (rc == IS_OK) /* every rank's writes done and flushed: the fixed bytes are final */
        rc = seal(r, comm, stop, err);
    if (rc == IS_OK)
        rc = is_collective_agree(is_results_sync(r, err), comm, err);
    is_error close_err;
    is_code close_rc = r ? is_results_close(&r, &close_err) : IS_OK;
    if (rc == IS_OK && close_rc != IS_OK)
        *err = close_err;
    rc = is_collective_agree(rc != IS_OK ? rc : close_rc, comm, err);
    return is_stop_end(&stop, rc, "the creation of the file (nothing of it is kept)", err);
}

is_code is_results_publish(const char *built, const char *path, int replace, is_error *err)
{
    struct stat st;
    int moved;
    if (replace) {
        moved = rename(built, path);
    } else {
        /* link() refuses to replace, so a file that appeared meanwhile is kept; where
         * the file system has no hard links, check and rename instead */
        moved = link(built, path);
        if (moved == 0)
            unlink(built);
        else if (errno != EEXIST && stat(path, &st) != 0)
            moved = rename(built, path);
    }
    if (moved != 0)
        return is_error_set(err, errno == EEXIST ? IS_EXISTS : IS_IO, "%s: cannot create: %s",
                            path, strerror(errno));
    return IS_OK;
}

/* --- checking an existing file ------------------------------------------------------- */

/* A plug-in's file and this run's library: the same bytes; or a rebuild with the same
 * declared version and tables (model_table_sha256), which may continue it; else refused.
 * Files of earlier impactsweeps (no table digest) need the same bytes. */
static is_code check_library(const is_job *job, is_results *r, const char *path, is_error *err)
{
    char library[4096], sha256[80], table[80], version[128];
    is_results_attribute(r, "model_library", library, sizeof library);
    is_results_attribute(r, "model_library_sha256", sha256, sizeof sha256);
    is_results_attribute(r, "model_table_sha256", table, sizeof table);
    is_results_attribute(r, "model_version", version, sizeof version);
    const char *now = job->model_sha256 ? job->model_sha256 : "";
    if (strcmp(sha256, now) == 0)
        return IS_OK;
    const char *why = !*table ? "it was made by an earlier impactsweep, which ties a file to "
                                "its library's bytes"
                      : strcmp(table, job->model_table_sha256) != 0
                          ? "the model's declared version or tables differ"
                          : NULL;
    if (!why)
        return IS_OK; /* a rebuild of the same version and tables: run.c logs both */
    return is_error_set(err, IS_MISMATCH,
                        "%s was computed by model %s version %s from %s%s%s%s; this run's model "
                        "(version %s) comes from %s%s%s%s, and %s: results of two models are "
                        "never mixed (restore the library, or start a new file with "
                        "--overwrite)",
                        path, job->model->name, version,
                        *library ? library : "the engine (built in)", *sha256 ? " (sha256 " : "",
                        sha256, *sha256 ? ")" : "",
                        job->model->version ? job->model->version : "of the engine",
                        job->model_library ? job->model_library : "the engine (built in)",
                        *now ? " (sha256 " : "", now, *now ? ")" : "", why);
}

is_code is_results_check(const is_job *job, const char *path, is_error *err)
{
    is_results *r = NULL;
    is_code rc = is_results_open(path, MPI_COMM_NULL, IS_RESULTS_READ, &r, err);
    if (rc != IS_OK)
        return rc;
    if (is_results_format(r) < IS_RESULTS_FORMAT_CHECKSUMS) /* it cannot be resumed */
        rc = is_error_set(err, IS_NOT_RESULT,
                          "%s: written in result-file format %d, which has no checksums: this "
                          "impactsweep reads it but never writes into it (finish it with the "
                          "version that made it, or start anew with --overwrite)",
                          path, is_results_format(r));
    if (rc == IS_OK) /* before any attribute is trusted: damage is not "another job" */
        rc = is_digest_check_metadata(r, err);
    if (rc != IS_OK) {
        is_results_close(&r, NULL);
        return rc;
    }
    char model[128], fingerprint[32], expected[32], older[32], piece[96], wanted[96], table[80];
    is_results_attribute(r, "model", model, sizeof model);
    is_results_attribute(r, "job_fingerprint", fingerprint, sizeof fingerprint);
    is_results_attribute(r, "model_table_sha256", table, sizeof table);
    is_results_attribute(r, "piece", piece, sizeof piece);
    snprintf(expected, sizeof expected, "%016llx", (unsigned long long)job->fingerprint);
    snprintf(older, sizeof older, "%016llx", (unsigned long long)job->fingerprint_of_library);
    is_job_piece_text(job, wanted, sizeof wanted);
    if (strcmp(model, job->model->name) == 0)
        rc = check_library(job, r, path, err);
    if (rc == IS_OK && (strcmp(model, job->model->name) != 0 ||
                        (strcmp(fingerprint, expected) != 0 &&
                         (*table || strcmp(fingerprint, older) != 0))))
        rc = is_error_set(err, IS_MISMATCH,
                          "%s was made by another job (model %s, fingerprint %s; this job: "
                          "model %s, fingerprint %s): parameters or axes differ",
                          path, model, fingerprint, job->model->name, expected);
    else if (rc == IS_OK && strcmp(piece, wanted) != 0)
        rc = is_error_set(err, IS_MISMATCH, "%s holds piece %s of the grid; this run computes %s",
                          path, piece, wanted);
    is_results_close(&r, NULL);
    return rc;
}
