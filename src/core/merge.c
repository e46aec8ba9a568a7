/* merge.c: merging job-array pieces (see merge.h). Serial; each dataset is read whole,
 * one at a time, so memory is two datasets' worth. */
#include "merge.h"

#include <hdf5.h>
#include <stdlib.h>
#include <string.h>

#include "h5attr.h"
#include "job.h"
#include "provenance.h"
#include "results.h"

/* Reads the whole dataset `name` of file into a new buffer, in its own type. */
static void *read_whole(hid_t file, const char *name, size_t count, size_t *element, hid_t *type)
{
    hid_t ds = H5Dopen2(file, name, H5P_DEFAULT);
    if (ds < 0)
        return NULL;
    hid_t file_type = H5Dget_type(ds);
    *type = H5Tget_native_type(file_type, H5T_DIR_ASCEND);
    H5Tclose(file_type);
    *element = H5Tget_size(*type);
    void *buf = malloc(count * *element + 1);
    if (buf && H5Dread(ds, *type, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf) < 0) {
        free(buf);
        buf = NULL;
    }
    H5Dclose(ds);
    return buf;
}

static is_code write_whole(hid_t file, const char *name, hid_t type, const void *buf,
                           const char *path, is_error *err)
{
    hid_t ds = H5Dopen2(file, name, H5P_DEFAULT);
    herr_t rc = ds < 0 ? -1 : H5Dwrite(ds, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf);
    if (ds >= 0)
        H5Dclose(ds);
    return rc < 0 ? is_h5_fail(err, path, "writing merged data") : IS_OK;
}

/* The job of an input file, re-parsed from its `job` attribute. */
static is_code job_of(const char *path, hid_t file, is_job **job, char *fingerprint, size_t size,
                      is_error *err)
{
    if (H5Aexists(file, IS_RESULTS_FORMAT_ATTRIBUTE) <= 0)
        return is_error_set(err, IS_NOT_RESULT, "%s: not an impactsweep result file", path);
    is_h5_attr_read_string(file, "job_fingerprint", fingerprint, size);
    size_t cap = 1 << 20;
    char *text = malloc(cap);
    if (!text)
        return is_error_set(err, IS_NOMEM, "out of memory");
    is_h5_attr_read_string(file, "job", text, cap);
    is_error detail;
    is_code rc = is_job_parse(path, text, NULL, 0, job, &detail);
    free(text);
    if (rc != IS_OK)
        return is_error_set(err, IS_NOT_RESULT, "%s: its recorded job does not parse: %s", path,
                            detail.message);
    return IS_OK;
}

static hid_t open_input(const char *path, is_error *err)
{
    htri_t ok = H5Fis_hdf5(path);
    H5Eclear2(H5E_DEFAULT);
    if (ok <= 0) {
        is_error_set(err, IS_NOT_RESULT, "%s: not an HDF5 file (or missing)", path);
        return -1;
    }
    hid_t file = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    if (file < 0)
        is_h5_fail(err, path, "opening");
    return file;
}

is_code is_merge(const char *output, const char *const *inputs, size_t input_count, int overwrite,
                 uint64_t counts[3], is_error *err)
{
    if (input_count < 1)
        return is_error_set(err, IS_USAGE, "merge needs at least one input file");
    hid_t first = open_input(inputs[0], err);
    if (first < 0)
        return err->code;
    is_job *job = NULL;
    char fingerprint[64], other[64];
    is_code rc = job_of(inputs[0], first, &job, fingerprint, sizeof fingerprint, err);
    H5Fclose(first);
    for (size_t i = 1; rc == IS_OK && i < input_count; i++) {
        hid_t f = open_input(inputs[i], err);
        if (f < 0) {
            rc = err->code;
            break;
        }
        if (H5Aexists(f, IS_RESULTS_FORMAT_ATTRIBUTE) <= 0)
            rc = is_error_set(err, IS_NOT_RESULT, "%s: not an impactsweep result file", inputs[i]);
        is_h5_attr_read_string(f, "job_fingerprint", other, sizeof other);
        if (rc == IS_OK && strcmp(other, fingerprint) != 0)
            rc = is_error_set(err, IS_MISMATCH,
                              "%s comes from another job than %s (fingerprint %s, not %s)",
                              inputs[i], inputs[0], other, fingerprint);
        H5Fclose(f);
    }
    if (rc != IS_OK) {
        is_job_free(&job);
        return rc;
    }
    /* the merged file is the whole grid: no piece */
    free(job->output);
    job->output = malloc(strlen(output) + 1);
    if (!job->output) {
        is_job_free(&job);
        return is_error_set(err, IS_NOMEM, "out of memory");
    }
    strcpy(job->output, output);
    /* the merged job is the pieces' job without its piece line */
    for (char *line = job->text; line && *line;) {
        char *end = strchr(line, '\n');
        size_t len = end ? (size_t)(end - line) + 1 : strlen(line);
        if (strncmp(line, "piece = ", 8) == 0) {
            memmove(line, line + len, strlen(line + len) + 1);
            continue;
        }
        line += len;
    }
    job->piece_index = 0;
    job->piece_count = 1;
    job->piece_first = 0;
    job->piece_last = job->grid.point_count;
    is_provenance prov;
    is_provenance_collect(&prov, 1);
    rc = is_results_create(job, &prov, overwrite, err);
    hid_t out = rc == IS_OK ? H5Fopen(output, H5F_ACC_RDWR, H5P_DEFAULT) : -1;
    if (rc == IS_OK && out < 0)
        rc = is_h5_fail(err, output, "opening the merged file");
    const is_model *model = job->model;
    size_t total = (size_t)job->grid.point_count;
    uint8_t *merged_status = NULL;
    for (size_t o = 0; rc == IS_OK && o <= model->output_count; o++) {
        /* status last: it decides, per input, which points are taken */
        const char *name = o < model->output_count ? model->outputs[o].name : "status";
        size_t element;
        hid_t type;
        unsigned char *merged = read_whole(out, name, total, &element, &type);
        if (!merged) {
            rc = is_h5_fail(err, output, "reading a dataset");
            break;
        }
        uint8_t *taken = calloc(total, 1);
        for (size_t i = 0; rc == IS_OK && i < input_count; i++) {
            hid_t in = open_input(inputs[i], err);
            size_t in_element;
            hid_t in_type, status_type;
            unsigned char *data =
                in < 0 ? NULL : read_whole(in, name, total, &in_element, &in_type);
            size_t status_element;
            uint8_t *status =
                in < 0 ? NULL : read_whole(in, "status", total, &status_element, &status_type);
            if (in >= 0)
                H5Fclose(in);
            if (!data || !status || !taken || in_element != element) {
                rc = in < 0 ? err->code : is_h5_fail(err, inputs[i], "reading a dataset");
            } else {
                for (size_t p = 0; p < total; p++) {
                    if (status[p] == IS_POINT_PENDING)
                        continue;
                    unsigned char *to = merged + p * element, *from = data + p * element;
                    if (taken[p] && memcmp(to, from, element) != 0) {
                        rc = is_error_set(err, IS_MISMATCH,
                                          "%s: point %zu of %s differs from another input's",
                                          inputs[i], p, name);
                        break;
                    }
                    memcpy(to, from, element);
                    taken[p] = 1;
                }
            }
            if (data)
                H5Tclose(in_type);
            if (status)
                H5Tclose(status_type);
            free(data);
            free(status);
        }
        if (rc == IS_OK)
            rc = write_whole(out, name, type, merged, output, err);
        H5Tclose(type);
        free(taken);
        if (o == model->output_count)
            merged_status = (uint8_t *)merged;
        else
            free(merged);
    }
    free(merged_status);
    if (out >= 0) {
        char line[4096];
        int used = snprintf(line, sizeof line, "merged from %zu files:", input_count);
        for (size_t i = 0; i < input_count && used > 0 && (size_t)used < sizeof line; i++)
            used += snprintf(line + used, sizeof line - (size_t)used, " %s", inputs[i]);
        if (rc == IS_OK && is_h5_history_append(out, line) < 0)
            rc = is_h5_fail(err, output, "recording the merge");
        H5Fclose(out);
    }
    if (rc == IS_OK)
        rc = is_results_finish(job, &prov, "complete", counts, err);
    is_job_free(&job);
    return rc;
}
