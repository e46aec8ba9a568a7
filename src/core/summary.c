/* summary.c: `impactsweep info` (see summary.h). */
#include "summary.h"

#include <errno.h>
#include <hdf5.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "h5attr.h"
#include "model.h"
#include "results.h"

/* Reads a whole dataset as doubles (HDF5 converts integer types). */
static double *read_all(hid_t file, const char *name, size_t *count)
{
    hid_t ds = H5Dopen2(file, name, H5P_DEFAULT);
    if (ds < 0)
        return NULL;
    hid_t space = H5Dget_space(ds);
    hssize_t n = H5Sget_simple_extent_npoints(space);
    H5Sclose(space);
    double *values = n > 0 ? malloc((size_t)n * sizeof *values) : NULL;
    if (values && H5Dread(ds, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, values) < 0) {
        free(values);
        values = NULL;
    }
    H5Dclose(ds);
    *count = values ? (size_t)n : 0;
    return values;
}

static void print_categories(FILE *out, hid_t file, const char *name, const double *values,
                             const double *status, size_t n)
{
    char meanings[1024];
    hid_t ds = H5Dopen2(file, name, H5P_DEFAULT);
    is_h5_attr_read_string(ds, "flag_meanings", meanings, sizeof meanings);
    H5Dclose(ds);
    fprintf(out, "  %-14s", name);
    int index = 0;
    for (char *save = NULL, *tok = strtok_r(meanings, " ", &save); tok;
         tok = strtok_r(NULL, " ", &save), index++) {
        size_t tally = 0;
        for (size_t i = 0; i < n; i++)
            tally += status[i] == IS_POINT_DONE && values[i] == index;
        fprintf(out, " %s: %zu", tok, tally);
    }
    fprintf(out, "\n");
}

is_code is_summary_print(const char *path, FILE *out, is_error *err)
{
    if (access(path, R_OK) != 0)
        return is_error_set(err, IS_NOT_RESULT, "%s: cannot read the file: %s", path,
                            strerror(errno));
    htri_t hdf5 = H5Fis_hdf5(path);
    H5Eclear2(H5E_DEFAULT);
    if (hdf5 <= 0)
        return is_error_set(err, IS_NOT_RESULT, "%s: not an HDF5 file", path);
    hid_t file = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    if (file < 0)
        return is_error_set(err, IS_HDF5, "%s: cannot open", path);
    if (H5Aexists(file, IS_RESULTS_FORMAT_ATTRIBUTE) <= 0) {
        H5Fclose(file);
        return is_error_set(err, IS_NOT_RESULT, "%s: not an impactsweep result file", path);
    }
    char model[128], description[256], title[256], axes[512], outputs[1024], state[64],
        start[64], end[64], ranks[32], version[64], commit[64];
    is_h5_attr_read_string(file, "model", model, sizeof model);
    is_h5_attr_read_string(file, "model_description", description, sizeof description);
    is_h5_attr_read_string(file, "title", title, sizeof title);
    is_h5_attr_read_string(file, "axes", axes, sizeof axes);
    is_h5_attr_read_string(file, "outputs", outputs, sizeof outputs);
    is_h5_attr_read_string(file, "run_state", state, sizeof state);
    is_h5_attr_read_string(file, "start_time", start, sizeof start);
    is_h5_attr_read_string(file, "end_time", end, sizeof end);
    is_h5_attr_read_string(file, "ranks", ranks, sizeof ranks);
    is_h5_attr_read_string(file, "engine_version", version, sizeof version);
    is_h5_attr_read_string(file, "git_commit", commit, sizeof commit);
    fprintf(out, "file:    %s\nmodel:   %s (%s)\n", path, model, description);
    if (*title)
        fprintf(out, "title:   %s\n", title);
    fprintf(out, "engine:  impactsweep %s (%s), last run on %s ranks\n", version, commit, ranks);
    fprintf(out, "times:   started %s, last ended %s, state %s\n", start, *end ? end : "-",
            state);

    fprintf(out, "axes:\n");
    char axes_copy[512];
    snprintf(axes_copy, sizeof axes_copy, "%s", axes);
    for (char *save = NULL, *tok = strtok_r(axes_copy, " ", &save); tok;
         tok = strtok_r(NULL, " ", &save)) {
        size_t n = 0;
        double *v = read_all(file, tok, &n);
        char scale[32] = "";
        hid_t ds = H5Dopen2(file, tok, H5P_DEFAULT);
        if (ds >= 0) {
            is_h5_attr_read_string(ds, "scale", scale, sizeof scale);
            H5Dclose(ds);
        }
        if (v && n)
            fprintf(out, "  %-14s %zu values from %.6g to %.6g (%s)\n", tok, n, v[0], v[n - 1],
                    scale);
        free(v);
    }

    size_t points = 0;
    double *status = read_all(file, "status", &points);
    if (!status) {
        H5Fclose(file);
        return is_error_set(err, IS_NOT_RESULT, "%s: has no readable status variable", path);
    }
    size_t tally[IS_POINT_STATUS_COUNT] = {0};
    for (size_t i = 0; i < points; i++)
        if (status[i] >= 0 && status[i] < IS_POINT_STATUS_COUNT)
            tally[(int)status[i]]++;
    size_t failed = points - tally[IS_POINT_DONE] - tally[IS_POINT_PENDING];
    fprintf(out, "points:  %zu total, %zu done, %zu failed, %zu pending\n", points,
            tally[IS_POINT_DONE], failed, tally[IS_POINT_PENDING]);
    for (int s = IS_POINT_FAILED_INVALID; s < IS_POINT_STATUS_COUNT; s++)
        if (tally[s])
            fprintf(out, "  %zu %s\n", tally[s], is_point_status_name(s));

    fprintf(out, "fields (over computed points):\n  %-14s %14s %14s %14s\n", "name", "min",
            "mean", "max");
    for (char *save = NULL, *tok = strtok_r(outputs, " ", &save); tok;
         tok = strtok_r(NULL, " ", &save)) {
        size_t n = 0;
        double *v = read_all(file, tok, &n);
        if (!v || n != points) {
            free(v);
            continue;
        }
        hid_t ds = H5Dopen2(file, tok, H5P_DEFAULT);
        int categorical = H5Aexists(ds, "flag_meanings") > 0;
        double fill = NAN; /* "not applicable here" for integer outputs */
        if (H5Aexists(ds, "_FillValue") > 0) {
            hid_t attr = H5Aopen(ds, "_FillValue", H5P_DEFAULT);
            if (H5Aread(attr, H5T_NATIVE_DOUBLE, &fill) < 0)
                fill = NAN;
            H5Aclose(attr);
        }
        H5Dclose(ds);
        if (categorical) {
            print_categories(out, file, tok, v, status, n);
        } else {
            double lo = INFINITY, hi = -INFINITY, sum = 0;
            size_t used = 0;
            for (size_t i = 0; i < n; i++) {
                if (status[i] != IS_POINT_DONE || !isfinite(v[i]) || v[i] == fill)
                    continue;
                lo = fmin(lo, v[i]);
                hi = fmax(hi, v[i]);
                sum += v[i];
                used++;
            }
            if (used)
                fprintf(out, "  %-14s %14.6g %14.6g %14.6g\n", tok, lo, sum / (double)used, hi);
            else
                fprintf(out, "  %-14s %14s %14s %14s\n", tok, "-", "-", "-");
        }
        free(v);
    }
    free(status);
    H5Fclose(file);
    return IS_OK;
}
