/* results.c: creating, resuming, writing and finishing the shared HDF5 result file
 * (layout and guarantees in results.h). */
#include "results.h"

#include "h5attr.h"

#include <errno.h>
#include <hdf5.h>
#include <hdf5_hl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* --- creating ------------------------------------------------------------------- */

static hid_t stored_type(is_output_type type)
{
    return type == IS_OUTPUT_REAL ? H5T_IEEE_F64LE
           : type == IS_OUTPUT_INT ? H5T_STD_I32LE
                                   : H5T_STD_I8LE;
}

static hid_t memory_type(is_output_type type)
{
    return type == IS_OUTPUT_REAL ? H5T_NATIVE_DOUBLE
           : type == IS_OUTPUT_INT ? H5T_NATIVE_INT32
                                   : H5T_NATIVE_INT8;
}

static hid_t grid_space(const is_grid *grid)
{
    hsize_t dims[IS_GRID_MAX_AXES];
    for (size_t k = 0; k < grid->axis_count; k++)
        dims[k] = grid->axes[k].count;
    return grid->axis_count ? H5Screate_simple((int)grid->axis_count, dims, NULL)
                            : H5Screate(H5S_SCALAR);
}

/* A variable over the grid, allocated now and filled with `fill`. */
static hid_t create_variable(hid_t file, const char *name, const is_grid *grid, hid_t type,
                             const void *fill)
{
    hid_t space = grid_space(grid), dcpl = H5Pcreate(H5P_DATASET_CREATE);
    H5Pset_layout(dcpl, H5D_CONTIGUOUS);
    H5Pset_alloc_time(dcpl, H5D_ALLOC_TIME_EARLY);
    H5Pset_fill_time(dcpl, H5D_FILL_TIME_ALLOC);
    H5Pset_fill_value(dcpl, type, fill);
    hid_t ds = H5Dcreate2(file, name, type, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    H5Pclose(dcpl);
    H5Sclose(space);
    return ds;
}

static herr_t describe_output(hid_t ds, const is_output *out)
{
    herr_t rc = is_h5_attr_string(ds, "units", out->unit);
    rc |= is_h5_attr_string(ds, "long_name", out->long_name);
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

static herr_t describe_status(hid_t ds)
{
    uint8_t values[IS_POINT_STATUS_COUNT];
    char meanings[512] = "";
    size_t used = 0;
    for (int s = 0; s < IS_POINT_STATUS_COUNT; s++) {
        values[s] = (uint8_t)s;
        char name[64];
        snprintf(name, sizeof name, "%s", is_point_status_name(s));
        for (char *c = name; *c; c++)
            *c = (char)(*c >= 'A' && *c <= 'Z' ? *c - 'A' + 'a' : *c);
        used += (size_t)snprintf(meanings + used, sizeof meanings - used, "%s%s", s ? " " : "",
                                 name);
    }
    herr_t rc = is_h5_attr_string(ds, "long_name", "computation status of the point");
    rc |= is_h5_attr_string(ds, "units", "1");
    rc |= is_h5_attr_array(ds, "flag_values", H5T_NATIVE_UINT8, IS_POINT_STATUS_COUNT, values);
    rc |= is_h5_attr_string(ds, "flag_meanings", meanings);
    return rc;
}

static herr_t write_provenance(hid_t file, const is_job *job, const is_provenance *prov)
{
    const is_model *model = job->model;
    char fingerprint[32], axes[512] = "";
    snprintf(fingerprint, sizeof fingerprint, "%016llx", (unsigned long long)job->fingerprint);
    size_t used = 0;
    for (size_t k = 0; k < job->grid.axis_count; k++)
        used += (size_t)snprintf(axes + used, sizeof axes - used, "%s%s", k ? " " : "",
                                 model->params[job->grid.axes[k].param].name);
    char outputs[1024] = "";
    size_t out_used = 0;
    for (size_t o = 0; o < model->output_count; o++)
        out_used += (size_t)snprintf(outputs + out_used, sizeof outputs - out_used, "%s%s",
                                     o ? " " : "", model->outputs[o].name);
    herr_t rc = is_h5_attr_int64(file, IS_RESULTS_FORMAT_ATTRIBUTE, IS_RESULTS_FORMAT_VERSION);
    rc |= is_h5_attr_string(file, "outputs", outputs);
    rc |= is_h5_attr_string(file, "title", job->title ? job->title : "");
    rc |= is_h5_attr_string(file, "model", model->name);
    rc |= is_h5_attr_string(file, "model_description", model->description);
    rc |= is_h5_attr_string(file, "axes", axes);
    rc |= is_h5_attr_string(file, "job", job->text);
    rc |= is_h5_attr_string(file, "job_source", job->source);
    rc |= is_h5_attr_string(file, "job_fingerprint", fingerprint);
    rc |= is_h5_attr_string(file, "engine_version", prov->engine_version);
    rc |= is_h5_attr_string(file, "git_commit", prov->git_commit);
    rc |= is_h5_attr_string(file, "build", prov->build);
    rc |= is_h5_attr_string(file, "hdf5_version", prov->hdf5_version);
    rc |= is_h5_attr_string(file, "mpi_library", prov->mpi_library);
    rc |= is_h5_attr_string(file, "sundials_version", prov->sundials_version);
    rc |= is_h5_attr_string(file, "inih_version", prov->inih_version);
    rc |= is_h5_attr_string(file, "host", prov->host);
    rc |= is_h5_attr_string(file, "slurm", prov->slurm);
    rc |= is_h5_attr_string(file, "start_time", prov->start_time);
    rc |= is_h5_attr_string(file, "end_time", "");
    rc |= is_h5_attr_string(file, "run_state", "created");
    rc |= is_h5_attr_int64(file, "ranks", prov->ranks);
    rc |= is_h5_attr_int64(file, "points_total", (int64_t)job->grid.point_count);
    char piece[64];
    snprintf(piece, sizeof piece, "%llu/%llu", (unsigned long long)job->piece_index,
             (unsigned long long)job->piece_count);
    rc |= is_h5_attr_string(file, "piece", piece);
    for (size_t p = 0; p < model->param_count; p++) {
        char name[128];
        snprintf(name, sizeof name, "parameter_%s", model->params[p].name);
        rc |= is_h5_attr_double(file, name, job->fixed[p]);
        if (model->params[p].flags & IS_PARAM_SEED) {
            int swept = 0;
            for (size_t k = 0; k < job->grid.axis_count; k++)
                swept |= job->grid.axes[k].param == (int)p;
            if (swept)
                rc |= is_h5_attr_string(file, "seed", "swept");
            else
                rc |= is_h5_attr_int64(file, "seed", (int64_t)job->fixed[p]);
        }
    }
    char line[1024];
    snprintf(line, sizeof line, "%s created by impactsweep %s (%s) on %s, %d ranks%s%s",
             prov->start_time, prov->engine_version, prov->git_commit, prov->host, prov->ranks,
             *prov->slurm ? ", " : "", prov->slurm);
    rc |= is_h5_history_append(file, line);
    return rc;
}

static is_code build_file(const char *path, const is_job *job, const is_provenance *prov,
                          is_error *err)
{
    const is_model *model = job->model;
    const is_grid *grid = &job->grid;
    hid_t file = H5Fcreate(path, H5F_ACC_EXCL, H5P_DEFAULT, H5P_DEFAULT);
    if (file < 0)
        return is_h5_fail(err, path, "creating the file");
    is_code rc = IS_OK;
    hid_t scales[IS_GRID_MAX_AXES];
    size_t made = 0;
    for (; made < grid->axis_count; made++) {
        const is_axis *axis = &grid->axes[made];
        const is_param *param = &model->params[axis->param];
        hsize_t dims[1] = {axis->count};
        hid_t space = H5Screate_simple(1, dims, NULL);
        scales[made] = H5Dcreate2(file, param->name, H5T_IEEE_F64LE, space, H5P_DEFAULT,
                                  H5P_DEFAULT, H5P_DEFAULT);
        H5Sclose(space);
        if (scales[made] < 0 ||
            H5Dwrite(scales[made], H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT,
                     axis->values) < 0 ||
            H5DSset_scale(scales[made], param->name) < 0 ||
            is_h5_attr_string(scales[made], "units", param->unit) < 0 ||
            is_h5_attr_string(scales[made], "long_name", param->meaning) < 0 ||
            is_h5_attr_string(scales[made], "scale", axis->scale == IS_SCALE_LOG      ? "log"
                                               : axis->scale == IS_SCALE_LINEAR ? "linear"
                                                                                : "values") < 0) {
            if (scales[made] >= 0)
                H5Dclose(scales[made]);
            rc = is_h5_fail(err, path, "writing an axis");
            break;
        }
    }
    for (size_t o = 0; rc == IS_OK && o <= model->output_count; o++) {
        int is_status = o == model->output_count;
        const is_output *out = is_status ? NULL : &model->outputs[o];
        double fill_real = NAN;
        int32_t fill_int = -1;
        int8_t fill_category = -1;
        uint8_t fill_status = IS_POINT_PENDING;
        const void *fill = is_status                        ? (const void *)&fill_status
                           : out->type == IS_OUTPUT_REAL    ? (const void *)&fill_real
                           : out->type == IS_OUTPUT_INT     ? (const void *)&fill_int
                                                            : (const void *)&fill_category;
        hid_t ds = create_variable(file, is_status ? "status" : out->name, grid,
                                   is_status ? H5T_STD_U8LE : stored_type(out->type), fill);
        herr_t bad = ds < 0 ? -1 : is_status ? describe_status(ds) : describe_output(ds, out);
        for (size_t k = 0; !bad && k < grid->axis_count; k++)
            bad = H5DSattach_scale(ds, scales[k], (unsigned)k);
        if (ds >= 0)
            H5Dclose(ds);
        if (bad)
            rc = is_h5_fail(err, path, is_status ? "creating status" : "creating an output");
    }
    for (size_t k = 0; k < made; k++)
        H5Dclose(scales[k]);
    if (rc == IS_OK && write_provenance(file, job, prov) < 0)
        rc = is_h5_fail(err, path, "writing the provenance attributes");
    if (H5Fclose(file) < 0 && rc == IS_OK)
        rc = is_h5_fail(err, path, "closing the new file");
    return rc;
}

is_code is_results_create(const is_job *job, const is_provenance *prov, int overwrite,
                          is_error *err)
{
    const char *path = job->output;
    struct stat st;
    if (!overwrite && stat(path, &st) == 0)
        return is_error_set(err, IS_EXISTS,
                            "%s exists; use --resume to continue it or --overwrite to replace "
                            "it",
                            path);
    size_t n = strlen(path) + 64;
    char *partial = malloc(n);
    if (!partial)
        return is_error_set(err, IS_NOMEM, "out of memory");
    snprintf(partial, n, "%s.partial-%ld", path, (long)getpid());
    unlink(partial);
    is_code rc = build_file(partial, job, prov, err);
    if (rc == IS_OK) {
        /* link() refuses to replace, so a file that appeared meanwhile is kept; where
         * the file system has no hard links, check and rename instead */
        int moved = overwrite ? rename(partial, path) : link(partial, path);
        if (moved != 0 && !overwrite && errno != EEXIST && stat(path, &st) != 0)
            moved = rename(partial, path);
        if (moved != 0)
            rc = is_error_set(err, errno == EEXIST ? IS_EXISTS : IS_IO, "%s: cannot create: %s",
                              path, strerror(errno));
    }
    unlink(partial);
    free(partial);
    return rc;
}

/* --- resuming and finishing --------------------------------------------------------- */

static is_code open_own_file(const is_job *job, hid_t *file, is_error *err)
{
    const char *path = job->output;
    htri_t is_hdf5 = H5Fis_hdf5(path);
    if (is_hdf5 <= 0) {
        H5Eclear2(H5E_DEFAULT);
        return is_error_set(err, access(path, F_OK) == 0 ? IS_NOT_RESULT : IS_IO,
                            "%s: %s", path,
                            access(path, F_OK) == 0 ? "not an HDF5 file" : "no such file");
    }
    *file = H5Fopen(path, H5F_ACC_RDWR, H5P_DEFAULT);
    if (*file < 0)
        return is_h5_fail(err, path, "opening");
    if (H5Aexists(*file, IS_RESULTS_FORMAT_ATTRIBUTE) <= 0) {
        H5Fclose(*file);
        return is_error_set(err, IS_NOT_RESULT, "%s: not an impactsweep result file", path);
    }
    char model[64], fingerprint[32], expected[32];
    is_h5_attr_read_string(*file, "model", model, sizeof model);
    is_h5_attr_read_string(*file, "job_fingerprint", fingerprint, sizeof fingerprint);
    snprintf(expected, sizeof expected, "%016llx", (unsigned long long)job->fingerprint);
    if (strcmp(model, job->model->name) != 0 || strcmp(fingerprint, expected) != 0) {
        H5Fclose(*file);
        return is_error_set(err, IS_MISMATCH,
                            "%s was made by another job (model %s, fingerprint %s; this job: "
                            "model %s, fingerprint %s): parameters or axes differ",
                            path, model, fingerprint, job->model->name, expected);
    }
    return IS_OK;
}

static is_code read_status(hid_t file, const is_job *job, uint8_t **status, is_error *err)
{
    uint64_t total = job->grid.point_count;
    uint8_t *buf = malloc(total ? total : 1);
    if (!buf)
        return is_error_set(err, IS_NOMEM, "cannot allocate %llu status bytes",
                            (unsigned long long)total);
    hid_t ds = H5Dopen2(file, "status", H5P_DEFAULT);
    herr_t rc = ds < 0 ? -1 : H5Dread(ds, H5T_NATIVE_UINT8, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf);
    if (ds >= 0)
        H5Dclose(ds);
    if (rc < 0) {
        free(buf);
        return is_h5_fail(err, job->output, "reading status");
    }
    *status = buf;
    return IS_OK;
}

is_code is_results_resume(const is_job *job, const is_provenance *prov, uint8_t **status,
                          is_error *err)
{
    hid_t file;
    is_code rc = open_own_file(job, &file, err);
    if (rc != IS_OK)
        return rc;
    rc = read_status(file, job, status, err);
    if (rc == IS_OK) {
        char line[1024];
        snprintf(line, sizeof line, "%s resumed by impactsweep %s (%s) on %s, %d ranks%s%s",
                 prov->start_time, prov->engine_version, prov->git_commit, prov->host,
                 prov->ranks, *prov->slurm ? ", " : "", prov->slurm);
        if (is_h5_history_append(file, line) < 0 || is_h5_attr_string(file, "run_state", "running") < 0)
            rc = is_h5_fail(err, job->output, "recording the resumption");
    }
    if (H5Fclose(file) < 0 && rc == IS_OK)
        rc = is_h5_fail(err, job->output, "closing");
    if (rc != IS_OK) {
        free(*status);
        *status = NULL;
    }
    return rc;
}

is_code is_results_finish(const is_job *job, const is_provenance *prov, const char *state,
                          uint64_t counts[3], is_error *err)
{
    hid_t file;
    is_code rc = open_own_file(job, &file, err);
    if (rc != IS_OK)
        return rc;
    uint8_t *status = NULL;
    rc = read_status(file, job, &status, err);
    uint64_t done = 0, failed = 0, pending = 0, pending_here = 0;
    for (uint64_t i = 0; rc == IS_OK && i < job->grid.point_count; i++) {
        done += status[i] == IS_POINT_DONE;
        failed += status[i] >= IS_POINT_FAILED_INVALID;
        pending += status[i] == IS_POINT_PENDING;
        pending_here += status[i] == IS_POINT_PENDING && i >= job->piece_first &&
                        i < job->piece_last;
    }
    free(status);
    /* a piece of a job array is complete when its own points are */
    if (strcmp(state, "complete") == 0 && pending_here > 0)
        state = "incomplete";
    else if (strcmp(state, "complete") == 0 && pending > 0)
        state = "piece complete";
    if (rc == IS_OK) {
        char now[32], line[1024];
        is_provenance_now(now, sizeof now);
        snprintf(line, sizeof line, "%s %s: %llu done, %llu failed, %llu pending", now, state,
                 (unsigned long long)done, (unsigned long long)failed,
                 (unsigned long long)pending);
        herr_t bad = is_h5_attr_string(file, "end_time", now);
        bad |= is_h5_attr_string(file, "run_state", state);
        bad |= is_h5_attr_int64(file, "ranks", prov->ranks);
        bad |= is_h5_attr_string(file, "slurm", prov->slurm); /* the last run's job */
        bad |= is_h5_attr_int64(file, "points_done", (int64_t)done);
        bad |= is_h5_attr_int64(file, "points_failed", (int64_t)failed);
        bad |= is_h5_attr_int64(file, "points_pending", (int64_t)pending);
        bad |= is_h5_history_append(file, line);
        if (bad < 0)
            rc = is_h5_fail(err, job->output, "recording the end of the run");
    }
    if (H5Fclose(file) < 0 && rc == IS_OK)
        rc = is_h5_fail(err, job->output, "closing");
    if (rc == IS_OK && counts) {
        counts[0] = done;
        counts[1] = failed;
        counts[2] = pending_here;
    }
    return rc;
}

/* --- the parallel phase ---------------------------------------------------------- */

struct is_results {
    const is_job *job;
    hid_t file;
    hid_t file_space;          /* the grid's dataspace, reused for every selection */
    hid_t *datasets;           /* one per output, then status */
    size_t dataset_count;
    void *convert;             /* scratch for int32 / int8 outputs */
    size_t convert_capacity;   /* in points */
};

is_code is_results_open(const is_job *job, MPI_Comm comm, is_results **out, is_error *err)
{
    *out = NULL;
    is_results *r = calloc(1, sizeof *r);
    if (!r)
        return is_error_set(err, IS_NOMEM, "out of memory");
    r->job = job;
    r->dataset_count = job->model->output_count + 1;
    r->datasets = malloc(r->dataset_count * sizeof *r->datasets);
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    H5Pset_fapl_mpio(fapl, comm, MPI_INFO_NULL);
    r->file = r->datasets ? H5Fopen(job->output, H5F_ACC_RDWR, fapl) : -1;
    H5Pclose(fapl);
    if (r->file < 0) {
        free(r->datasets);
        free(r);
        return is_h5_fail(err, job->output, "opening for parallel writing");
    }
    size_t opened = 0;
    for (; opened < r->dataset_count; opened++) {
        const char *name = opened < job->model->output_count
                               ? job->model->outputs[opened].name
                               : "status";
        r->datasets[opened] = H5Dopen2(r->file, name, H5P_DEFAULT);
        if (r->datasets[opened] < 0)
            break;
    }
    r->file_space = grid_space(&job->grid);
    if (opened < r->dataset_count || r->file_space < 0) {
        r->dataset_count = opened;
        is_code rc = is_h5_fail(err, job->output, "opening the datasets");
        is_results_close(&r, NULL);
        return rc;
    }
    *out = r;
    return IS_OK;
}

static is_code select_block(is_results *r, uint64_t first, uint64_t count)
{
    const is_grid *grid = &r->job->grid;
    if (grid->axis_count == 0)
        return H5Sselect_all(r->file_space) < 0 ? IS_HDF5 : IS_OK;
    is_grid_box boxes[2 * IS_GRID_MAX_AXES];
    size_t n = is_grid_block_boxes(grid, first, count, boxes);
    for (size_t b = 0; b < n; b++) {
        hsize_t start[IS_GRID_MAX_AXES], extent[IS_GRID_MAX_AXES];
        for (size_t k = 0; k < grid->axis_count; k++) {
            start[k] = boxes[b].start[k];
            extent[k] = boxes[b].count[k];
        }
        if (H5Sselect_hyperslab(r->file_space, b == 0 ? H5S_SELECT_SET : H5S_SELECT_OR, start,
                                NULL, extent, NULL) < 0)
            return IS_HDF5;
    }
    return IS_OK;
}

is_code is_results_write(is_results *r, uint64_t first, uint64_t count, const double *outputs,
                         const uint8_t *status, is_error *err)
{
    const is_model *model = r->job->model;
    if (count == 0)
        return IS_OK;
    if (count > r->convert_capacity) {
        void *bigger = realloc(r->convert, count * sizeof(int32_t));
        if (!bigger)
            return is_error_set(err, IS_NOMEM, "out of memory");
        r->convert = bigger;
        r->convert_capacity = count;
    }
    if (select_block(r, first, count) != IS_OK)
        return is_h5_fail(err, r->job->output, "selecting a block");
    hsize_t mem_dims[1] = {count};
    hid_t mem_space = H5Screate_simple(1, mem_dims, NULL);
    is_code rc = IS_OK;
    for (size_t o = 0; o < r->dataset_count && rc == IS_OK; o++) {
        const void *buf;
        hid_t type;
        if (o == model->output_count) {
            buf = status;
            type = H5T_NATIVE_UINT8;
        } else if (model->outputs[o].type == IS_OUTPUT_REAL) {
            buf = outputs + o * count;
            type = H5T_NATIVE_DOUBLE;
        } else {
            const double *src = outputs + o * count;
            int is_int = model->outputs[o].type == IS_OUTPUT_INT;
            for (uint64_t i = 0; i < count; i++) {
                double v = isfinite(src[i]) ? src[i] : -1.0;
                if (is_int)
                    ((int32_t *)r->convert)[i] = (int32_t)v;
                else
                    ((int8_t *)r->convert)[i] = (int8_t)v;
            }
            buf = r->convert;
            type = memory_type(model->outputs[o].type);
        }
        if (H5Dwrite(r->datasets[o], type, mem_space, r->file_space, H5P_DEFAULT, buf) < 0)
            rc = is_h5_fail(err, r->job->output, "writing a block");
    }
    H5Sclose(mem_space);
    return rc;
}

is_code is_results_close(is_results **results, is_error *err)
{
    if (!results || !*results)
        return IS_OK;
    is_results *r = *results;
    herr_t bad = 0;
    for (size_t o = 0; o < r->dataset_count; o++)
        bad |= H5Dclose(r->datasets[o]);
    if (r->file_space >= 0)
        H5Sclose(r->file_space);
    bad |= H5Fclose(r->file);
    const char *path = r->job->output;
    free(r->datasets);
    free(r->convert);
    free(r);
    *results = NULL;
    return bad < 0 ? is_h5_fail(err, path, "closing after the parallel phase") : IS_OK;
}
