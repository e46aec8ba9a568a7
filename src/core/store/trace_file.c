/* trace_file.c: writing the trace file of one point (layout in trace_file.h), serially,
 * in one go: two netCDF dimensions without coordinate variables (HDF5 dimension scales
 * named as netCDF-4 names such dimensions), the variables over them, the attributes. */
#include "trace_file.h"

#include <errno.h>
#include <hdf5.h>
#include <hdf5_hl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "engine.h"
#include "h5attr.h"
#include "provenance.h"
#include "results.h"

is_code is_trace_file_check(const char *path, int overwrite, is_error *err)
{
    struct stat st;
    if (lstat(path, &st) != 0) {
        if (errno == ENOENT)
            return IS_OK;
        return is_error_set(err, IS_USAGE, "%s: cannot look at the output: %s", path,
                            strerror(errno));
    }
    if (!S_ISREG(st.st_mode))
        return is_error_set(err, IS_USAGE,
                            "%s exists and is not a regular file (a directory, a symbolic "
                            "link, a device): not replaced",
                            path);
    if (!overwrite)
        return is_error_set(err, IS_EXISTS,
                            "%s exists: give --overwrite to replace it, or another --output",
                            path);
    return IS_OK;
}

/* A netCDF dimension that is no variable: a dimension scale whose NAME says so (the text
 * netCDF-C writes, with the length), float, never read. */
static hid_t create_dimension(hid_t file, const char *name, size_t length, int dimid)
{
    hsize_t dims[1] = {length};
    hid_t space = H5Screate_simple(1, dims, NULL);
    hid_t ds = H5Dcreate2(file, name, H5T_IEEE_F32LE, space, H5P_DEFAULT, H5P_DEFAULT,
                          H5P_DEFAULT);
    H5Sclose(space);
    if (ds < 0)
        return -1;
    char scale[128];
    snprintf(scale, sizeof scale, "This is a netCDF dimension but not a netCDF variable.%10zu",
             length);
    int32_t id = dimid;
    if (H5DSset_scale(ds, scale) < 0 ||
        is_h5_attr_array(ds, "_Netcdf4Dimid", H5T_NATIVE_INT32, 1, &id) < 0) {
        H5Dclose(ds);
        return -1;
    }
    return ds;
}

/* A variable over one dimension: `count` values taken `stride` apart from `values` (a
 * column of the samples), or `ints` as int32; with units and long_name (skipped if
 * NULL) and attached to the dimension. */
static herr_t write_variable(hid_t file, hid_t dimension, const char *name, size_t count,
                             const double *values, size_t stride, const int *ints,
                             const char *unit, const char *long_name, const char *coordinates)
{
    hsize_t dims[1] = {count};
    hid_t space = H5Screate_simple(1, dims, NULL);
    hid_t type = ints ? H5T_STD_I32LE : H5T_IEEE_F64LE;
    hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
    H5Pset_attr_creation_order(dcpl, H5P_CRT_ORDER_TRACKED | H5P_CRT_ORDER_INDEXED);
    hid_t ds = H5Dcreate2(file, name, type, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    H5Pclose(dcpl);
    herr_t rc = ds < 0 ? -1 : 0;
    if (rc == 0 && count > 0) {
        if (ints) {
            rc = H5Dwrite(ds, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, H5P_DEFAULT, ints);
        } else { /* column `values[0], values[stride], ...` of the row-major array */
            hsize_t mem_dims[2] = {count, stride}, start[2] = {0, 0}, block[2] = {count, 1};
            hid_t mem = H5Screate_simple(2, mem_dims, NULL);
            rc = H5Sselect_hyperslab(mem, H5S_SELECT_SET, start, NULL, block, NULL);
            rc |= H5Dwrite(ds, H5T_NATIVE_DOUBLE, mem, space, H5P_DEFAULT, values);
            H5Sclose(mem);
        }
    }
    if (rc == 0 && unit)
        rc |= is_h5_attr_string(ds, "units", unit);
    if (rc == 0 && long_name)
        rc |= is_h5_attr_string(ds, "long_name", long_name);
    if (rc == 0 && coordinates)
        rc |= is_h5_attr_string(ds, "coordinates", coordinates);
    if (rc == 0)
        rc |= H5DSattach_scale(ds, dimension, 0);
    if (ds >= 0)
        H5Dclose(ds);
    H5Sclose(space);
    return rc;
}

/* event_kind's flags: 0 .. kinds - 1 naming the model's event kinds. */
static herr_t describe_kinds(hid_t file, const is_model_trace *trace)
{
    hid_t ds = H5Dopen2(file, "event_kind", H5P_DEFAULT);
    if (ds < 0)
        return -1;
    int32_t values[256];
    char meanings[4096] = "";
    size_t used = 0;
    int count = 0;
    for (; trace->events[count] && count < 256; count++) {
        values[count] = count;
        used += (size_t)snprintf(meanings + used, used < sizeof meanings ? sizeof meanings - used
                                                                          : 0,
                                 "%s%s", count ? " " : "", trace->events[count]);
    }
    herr_t rc = 0;
    if (count > 0) {
        rc |= is_h5_attr_array(ds, "flag_values", H5T_NATIVE_INT32, (size_t)count, values);
        rc |= is_h5_attr_string(ds, "flag_meanings", meanings);
    }
    H5Dclose(ds);
    return rc;
}

static herr_t write_attributes(hid_t file, const is_trace_data *d)
{
    const is_model *m = d->model;
    const is_model_trace *trace = m->trace;
    is_provenance prov;
    is_provenance_collect(&prov, 1);
    char name[160];
    herr_t rc = is_h5_attr_int64(file, IS_TRACE_FILE_ATTRIBUTE, IS_TRACE_FILE_VERSION);
    rc |= is_h5_attr_string(file, "Conventions", "CF-1.8");
    snprintf(name, sizeof name, "Trajectory of one %s point (impactsweep trace)", m->name);
    rc |= is_h5_attr_string(file, "title", name);
    rc |= is_h5_attr_string(file, "model", m->name);
    rc |= is_h5_attr_string(file, "model_description", m->description);
    if (m->references)
        rc |= is_h5_attr_string(file, "references", m->references);
    rc |= is_h5_attr_string(file, "model_version", m->version ? m->version : prov.engine_version);
    rc |= is_h5_attr_string(file, "source", d->source ? d->source : "parameters");
    if (d->window) /* the run went from its start: only what it kept is limited */
        rc |= is_h5_attr_array(file, "time_window", H5T_NATIVE_DOUBLE, 2, d->window);
    for (size_t p = 0; p < m->param_count; p++) { /* a choice by name, as result files */
        snprintf(name, sizeof name, "parameter_%s", m->params[p].name);
        rc |= m->params[p].type == IS_PARAM_CHOICE
                  ? is_h5_attr_string(file, name, m->params[p].choices[(int)d->point[p]])
                  : is_h5_attr_double(file, name, d->point[p]);
    }
    for (size_t p = 0; p < trace->option_count; p++) {
        snprintf(name, sizeof name, "trace_option_%s", trace->options[p].name);
        rc |= is_h5_attr_double(file, name, d->options[p]);
    }
    char status[64];
    snprintf(status, sizeof status, "%s", is_point_status_name(d->status));
    for (char *c = status; *c; c++)
        *c = (char)(*c >= 'A' && *c <= 'Z' ? *c - 'A' + 'a' : *c);
    rc |= is_h5_attr_string(file, "status", status);
    for (size_t o = 0, at = 0; o < m->output_count; at += is_output_length(&m->outputs[o++])) {
        const is_output *out = &m->outputs[o];
        double v = d->outputs[at];
        snprintf(name, sizeof name, "output_%s", out->name);
        if (is_output_length(out) > 1) /* an array output: its values (categories' indices) */
            rc |= is_h5_attr_array(file, name, H5T_NATIVE_DOUBLE, is_output_length(out),
                                   d->outputs + at);
        else if (out->type == IS_OUTPUT_CATEGORY && isfinite(v) && v >= 0 &&
            v < is_output_category_count(out))
            rc |= is_h5_attr_string(file, name, out->categories[(int)v]);
        else
            rc |= is_h5_attr_double(file, name, v);
    }
    rc |= is_h5_attr_string(file, "engine_version", prov.engine_version);
    rc |= is_h5_attr_string(file, "git_commit", prov.git_commit);
    rc |= is_h5_attr_string(file, "build", prov.build);
    rc |= is_h5_attr_string(file, "hdf5_version", prov.hdf5_version);
    rc |= is_h5_attr_string(file, "sundials_version", prov.sundials_version);
    rc |= is_h5_attr_string(file, "host", prov.host);
    char line[4096];
    snprintf(line, sizeof line, "%s %s (%s)", prov.start_time,
             d->history ? d->history : "impactsweep trace", prov.host);
    rc |= is_h5_history_append(file, line);
    return rc;
}

static is_code write_file(const char *path, const is_trace_data *d, is_error *err)
{
    const is_model_trace *trace = d->model->trace;
    size_t channels = trace->channel_count;
    /* variables and attributes listed in the order written (t first), as netCDF-C does */
    hid_t fcpl = H5Pcreate(H5P_FILE_CREATE);
    H5Pset_link_creation_order(fcpl, H5P_CRT_ORDER_TRACKED | H5P_CRT_ORDER_INDEXED);
    H5Pset_attr_creation_order(fcpl, H5P_CRT_ORDER_TRACKED | H5P_CRT_ORDER_INDEXED);
    hid_t file = H5Fcreate(path, H5F_ACC_TRUNC, fcpl, H5P_DEFAULT);
    H5Pclose(fcpl);
    if (file < 0)
        return is_h5_fail(err, path, "creating the trace file");
    hid_t sample = create_dimension(file, "sample", d->sample_count, 0);
    hid_t event = create_dimension(file, "event", d->event_count, 1);
    herr_t rc = sample < 0 || event < 0 ? -1 : 0;
    char name[160], long_name[1024];
    if (rc == 0)
        rc = write_variable(file, sample, "t", d->sample_count, d->sample_t, 1, NULL,
                            trace->time_unit, trace->time_long_name, NULL);
    for (size_t c = 0; rc == 0 && c < channels; c++)
        rc = write_variable(file, sample, trace->channels[c].name, d->sample_count,
                            d->samples + c, channels, NULL, trace->channels[c].unit,
                            trace->channels[c].long_name, "t");
    if (rc == 0) {
        snprintf(long_name, sizeof long_name, "time of the event (%s)", trace->time_long_name);
        rc = write_variable(file, event, "event_t", d->event_count, d->event_t, 1, NULL,
                            trace->time_unit, long_name, NULL);
    }
    if (rc == 0)
        rc = write_variable(file, event, "event_kind", d->event_count, NULL, 1, d->event_kind,
                            "1", "what happened", "event_t");
    if (rc == 0)
        rc = describe_kinds(file, trace);
    for (size_t c = 0; rc == 0 && c < channels; c++) {
        snprintf(name, sizeof name, "event_%s", trace->channels[c].name);
        snprintf(long_name, sizeof long_name, "%s, at the event", trace->channels[c].long_name);
        rc = write_variable(file, event, name, d->event_count, d->event_values + c, channels,
                            NULL, trace->channels[c].unit, long_name, "event_t event_kind");
    }
    if (rc == 0)
        rc = write_attributes(file, d);
    if (sample >= 0)
        H5Dclose(sample);
    if (event >= 0)
        H5Dclose(event);
    is_code code = rc == 0 ? IS_OK : is_h5_fail(err, path, "writing the trace");
    if (H5Fclose(file) < 0 && code == IS_OK)
        code = is_h5_fail(err, path, "closing the trace file");
    return code;
}

is_code is_trace_file_write(const char *path, int overwrite, const is_trace_data *data,
                            is_error *err)
{
    is_code rc = is_trace_file_check(path, overwrite, err);
    if (rc != IS_OK)
        return rc;
    char *partial = is_path_with_suffix(path, ".partial");
    if (!partial)
        return is_error_set(err, IS_NOMEM, "out of memory");
    rc = write_file(partial, data, err);
    if (rc == IS_OK)
        rc = is_results_publish(partial, path, overwrite, err);
    if (rc != IS_OK)
        unlink(partial);
    free(partial);
    return rc;
}
