/* h5compare.c: `h5compare A.h5 B.h5`: do two impactsweep result files hold the same
 * results? Used by the integration tests (e.g. 1 rank vs 2 ranks, resumed vs straight).
 *
 * Compared:
 *   - the set of root datasets, and for each its shape, its type and every byte, read
 *     with the file's own type and compared with memcmp;
 *   - every attribute of every dataset (same names, shapes, types and values), except
 *     that the dimension-scale bookkeeping is compared by meaning: DIMENSION_LIST by the
 *     names of the scales attached to each dimension, and REFERENCE_LIST (its inverse,
 *     made of file addresses) is skipped (result files hold no other variable-length
 *     or reference data; variable-length strings are compared as texts);
 *   - these root attributes: impactsweep_format, model, axes, outputs, job,
 *     job_fingerprint, points_total, grid_points, piece_first, seed.
 *     The job text is compared without the [sweep] keys that only say where and how the
 *     work was run (output, unit_size, unit_seconds, progress_interval, master_computes,
 *     piece), so the same job written to another file or cut into other work units
 *     compares equal;
 *   - the run state's status tally and state (/run/tally, /run/state), and the points'
 *     checksums (/run/check; a pending point's is 0 however the file was made).
 * Ignored: every other root attribute, as run-specific: start_time, history, ranks, host,
 * slurm, build, git_commit, engine_version, hdf5_version, mpi_library, job_source, title,
 * ..., and the run log and end time (/run/log, /run/log_count, /run/end_time).
 *
 * Each difference is printed to stderr (dataset or attribute name, first differing
 * index). Exit status: 0 same results, 1 different, 2 usage or open error. */
#include <hdf5.h>
#include <hdf5_hl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const root_attributes[] = {
    "impactsweep_format", "model",       "axes",        "outputs", "job", "job_fingerprint",
    "points_total",       "grid_points", "piece_first", "seed",    NULL};

/* Datasets of the run state that describe the results, not the run: the tally, the
 * state, and each point's checksum (format 3; skipped where neither file has it). */
static const char *const run_datasets[] = {"/run/tally", "/run/state", "/run/check", NULL};

/* [sweep] keys of the job text that do not change the results. */
static const char *const run_only_keys[] = {"output",          "unit_size", "unit_seconds",
                                            "progress_interval", "master_computes", "piece",
                                            NULL};

static const char *name_a, *name_b; /* the two file names, for messages */
static int differences;

static void differ(const char *what, const char *fmt, const char *detail)
{
    fprintf(stderr, "h5compare: %s: ", what);
    fprintf(stderr, fmt, detail);
    fprintf(stderr, "\n");
    differences++;
}

/* A dataset's or attribute's value: its type, shape, and bytes. Variable-length strings
 * become their texts one after the other, each with its NUL. */
typedef struct blob {
    hid_t type;
    int rank, is_string;
    hsize_t dims[H5S_MAX_RANK];
    size_t count, size; /* elements, bytes */
    unsigned char *bytes;
} blob;

static void blob_free(blob *b)
{
    if (b->type >= 0)
        H5Tclose(b->type);
    free(b->bytes);
    memset(b, 0, sizeof *b);
    b->type = -1;
}

/* Reads object `id` (an attribute if is_attr, else a dataset) into b; 0 on success. */
static int blob_read(hid_t id, int is_attr, blob *b)
{
    memset(b, 0, sizeof *b);
    b->type = is_attr ? H5Aget_type(id) : H5Dget_type(id);
    hid_t space = is_attr ? H5Aget_space(id) : H5Dget_space(id);
    if (b->type < 0 || space < 0) {
        if (space >= 0)
            H5Sclose(space);
        return -1;
    }
    b->rank = H5Sget_simple_extent_dims(space, b->dims, NULL);
    hssize_t n = H5Sget_simple_extent_npoints(space);
    H5Sclose(space);
    if (b->rank < 0 || n < 0)
        return -1;
    b->count = (size_t)n;
    b->is_string = H5Tis_variable_str(b->type) > 0;
    herr_t rc = 0;
    if (!b->is_string) {
        b->size = b->count * H5Tget_size(b->type);
        b->bytes = malloc(b->size ? b->size : 1);
        if (b->bytes && b->count)
            rc = is_attr ? H5Aread(id, b->type, b->bytes)
                         : H5Dread(id, b->type, H5S_ALL, H5S_ALL, H5P_DEFAULT, b->bytes);
        return b->bytes && rc >= 0 ? 0 : -1;
    }
    char **texts = calloc(b->count ? b->count : 1, sizeof *texts);
    hid_t mem = H5Tcopy(H5T_C_S1);
    H5Tset_size(mem, H5T_VARIABLE);
    H5Tset_cset(mem, H5Tget_cset(b->type));
    if (texts && b->count)
        rc = is_attr ? H5Aread(id, mem, texts)
                     : H5Dread(id, mem, H5S_ALL, H5S_ALL, H5P_DEFAULT, texts);
    H5Tclose(mem);
    for (size_t i = 0; texts && rc >= 0 && i < b->count; i++)
        b->size += (texts[i] ? strlen(texts[i]) : 0) + 1;
    b->bytes = texts && rc >= 0 ? malloc(b->size ? b->size : 1) : NULL;
    size_t used = 0;
    for (size_t i = 0; texts && i < b->count; i++) {
        size_t len = texts[i] ? strlen(texts[i]) + 1 : 1;
        if (b->bytes)
            memcpy(b->bytes + used, texts[i] ? texts[i] : "", len);
        used += len;
        if (texts[i])
            H5free_memory(texts[i]);
    }
    free(texts);
    return b->bytes ? 0 : -1;
}

/* Compares two values; prints the first difference. */
static void blob_compare(const char *what, const blob *a, const blob *b)
{
    int same_shape = a->rank == b->rank;
    for (int k = 0; same_shape && k < a->rank; k++)
        same_shape = a->dims[k] == b->dims[k];
    if (H5Tequal(a->type, b->type) <= 0) {
        differ(what, "%s", "types differ");
    } else if (!same_shape) {
        differ(what, "%s", "shapes differ");
    } else if (a->size != b->size || memcmp(a->bytes, b->bytes, a->size) != 0) {
        if (a->is_string || a->count == 1) {
            differ(what, "%s", a->is_string ? "texts differ" : "values differ");
            return;
        }
        size_t elem = a->size / a->count, first = 0, count = 0;
        for (size_t i = 0; i < a->count; i++)
            if (memcmp(a->bytes + i * elem, b->bytes + i * elem, elem) != 0 && count++ == 0)
                first = i;
        char detail[512];
        int used = snprintf(detail, sizeof detail,
                            "%zu of %zu elements differ, first at index [", count, a->count);
        size_t stride = a->count;
        for (int k = 0; k < a->rank; k++) {
            stride /= (size_t)a->dims[k];
            used += snprintf(detail + used, sizeof detail - (size_t)used, "%s%zu",
                             k ? ", " : "", first / stride % (size_t)a->dims[k]);
        }
        snprintf(detail + used, sizeof detail - (size_t)used, "] (flat %zu)", first);
        differ(what, "%s", detail);
    }
}

/* Drops the run-only [sweep] lines from a job text (in place; the blob stays one text). */
static void strip_run_only_keys(blob *job)
{
    if (!job->is_string || job->count != 1)
        return;
    char *text = (char *)job->bytes, *out = text, *line = text;
    int in_sweep = 0;
    while (*line) {
        char *end = strchr(line, '\n');
        size_t len = end ? (size_t)(end - line) + 1 : strlen(line);
        int keep = 1;
        if (line[0] == '[')
            in_sweep = strncmp(line, "[sweep]", 7) == 0;
        else
            for (int k = 0; in_sweep && run_only_keys[k]; k++) {
                size_t n = strlen(run_only_keys[k]);
                if (strncmp(line, run_only_keys[k], n) == 0 && strchr(" =", line[n]))
                    keep = 0;
            }
        if (keep)
            memmove(out, line, len);
        out += keep ? len : 0;
        line += len;
    }
    *out = '\0';
    job->size = (size_t)(out - text) + 1;
}

/* Which scales are attached to each dimension, as "dim 0: /rho; dim 1: /gamma; ". */
static herr_t append_scale(hid_t did, unsigned dim, hid_t dsid, void *data)
{
    (void)did;
    char name[256] = "", *list = data;
    H5Iget_name(dsid, name, sizeof name);
    size_t used = strlen(list);
    snprintf(list + used, 4096 - used, "dim %u: %s; ", dim, name);
    return 0;
}

static void scales_of(hid_t ds, char list[4096])
{
    list[0] = '\0';
    hid_t space = H5Dget_space(ds);
    int rank = H5Sget_simple_extent_ndims(space);
    H5Sclose(space);
    for (int k = 0; k < rank; k++)
        H5DSiterate_scales(ds, (unsigned)k, NULL, append_scale, list);
}

/* Attribute names of an object, as one "\0"-separated list ending in an empty name. */
typedef struct names {
    char *list;
    size_t used, capacity;
} names;

static herr_t add_name(hid_t loc, const char *name, const H5A_info_t *info, void *data)
{
    (void)loc, (void)info;
    names *n = data;
    size_t len = strlen(name) + 1;
    if (n->used + len + 1 > n->capacity) {
        size_t cap = 2 * (n->capacity + len) + 64;
        char *bigger = realloc(n->list, cap);
        if (!bigger)
            return -1;
        n->list = bigger;
        n->capacity = cap;
    }
    memcpy(n->list + n->used, name, len);
    n->used += len;
    n->list[n->used] = '\0';
    return 0;
}

static void attribute_names(hid_t obj, names *n)
{
    n->list = calloc(1, 1);
    n->used = 0;
    n->capacity = n->list ? 1 : 0;
    hsize_t idx = 0;
    H5Aiterate2(obj, H5_INDEX_NAME, H5_ITER_INC, &idx, add_name, n);
}

/* Compares attribute `name` of a and b (reported as "what"); absent in both is equal. */
static void compare_attribute(hid_t a, hid_t b, const char *name, const char *what)
{
    int in_a = H5Aexists(a, name) > 0, in_b = H5Aexists(b, name) > 0;
    if (!in_a || !in_b) {
        if (in_a != in_b)
            differ(what, "only in %s", in_a ? name_a : name_b);
        return;
    }
    hid_t attr_a = H5Aopen(a, name, H5P_DEFAULT), attr_b = H5Aopen(b, name, H5P_DEFAULT);
    blob va, vb;
    int ok = blob_read(attr_a, 1, &va) == 0;
    ok &= blob_read(attr_b, 1, &vb) == 0;
    if (!ok) {
        differ(what, "%s", "cannot be read");
    } else {
        if (strcmp(name, "job") == 0) {
            strip_run_only_keys(&va);
            strip_run_only_keys(&vb);
        }
        blob_compare(what, &va, &vb);
    }
    blob_free(&va);
    blob_free(&vb);
    H5Aclose(attr_a);
    H5Aclose(attr_b);
}

static void compare_dataset(hid_t file_a, hid_t file_b, const char *name)
{
    hid_t a = H5Dopen2(file_a, name, H5P_DEFAULT), b = H5Dopen2(file_b, name, H5P_DEFAULT);
    blob va, vb;
    char what[1200];
    int ok = blob_read(a, 0, &va) == 0;
    ok &= blob_read(b, 0, &vb) == 0;
    if (!ok)
        differ(name, "%s", "cannot be read");
    else
        blob_compare(name, &va, &vb);
    blob_free(&va);
    blob_free(&vb);

    names na, nb;
    attribute_names(a, &na);
    attribute_names(b, &nb);
    for (const char *n = na.list; *n; n += strlen(n) + 1) {
        snprintf(what, sizeof what, "%s attribute %s", name, n);
        if (strcmp(n, "REFERENCE_LIST") == 0)
            continue;
        if (strcmp(n, "DIMENSION_LIST") == 0 && H5Aexists(b, n) > 0) {
            char scales_a[4096], scales_b[4096];
            scales_of(a, scales_a);
            scales_of(b, scales_b);
            if (strcmp(scales_a, scales_b) != 0)
                differ(what, "attached scales differ (%s)", scales_a);
            continue;
        }
        compare_attribute(a, b, n, what);
    }
    for (const char *n = nb.list; *n; n += strlen(n) + 1)
        if (H5Aexists(a, n) <= 0) {
            snprintf(what, sizeof what, "%s attribute %s", name, n);
            differ(what, "only in %s", name_b);
        }
    free(na.list);
    free(nb.list);
    H5Dclose(a);
    H5Dclose(b);
}

static int is_root_dataset(hid_t file, const char *name)
{
    if (H5Lexists(file, name, H5P_DEFAULT) <= 0)
        return 0;
    hid_t obj = H5Oopen(file, name, H5P_DEFAULT);
    int yes = obj >= 0 && H5Iget_type(obj) == H5I_DATASET;
    if (obj >= 0)
        H5Oclose(obj);
    return yes;
}

/* Calls compare_dataset for every root dataset of `from` (first pass), or reports the
 * root datasets of `from` that `other` lacks (second pass, `from` being B). */
static void walk_root(hid_t from, hid_t other, int compare, hid_t file_a, hid_t file_b)
{
    H5G_info_t info;
    if (H5Gget_info(from, &info) < 0)
        return;
    for (hsize_t i = 0; i < info.nlinks; i++) {
        char name[1024];
        if (H5Lget_name_by_idx(from, ".", H5_INDEX_NAME, H5_ITER_INC, i, name, sizeof name,
                               H5P_DEFAULT) < 0 ||
            !is_root_dataset(from, name))
            continue;
        if (!is_root_dataset(other, name))
            differ(name, "dataset only in %s", compare ? name_a : name_b);
        else if (compare)
            compare_dataset(file_a, file_b, name);
    }
}

int main(int argc, char **argv)
{
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    if (argc != 3) {
        fprintf(stderr, "usage: h5compare A.h5 B.h5\n"
                        "exit 0 when both result files hold the same results, 1 when they "
                        "differ, 2 on errors\n");
        return 2;
    }
    name_a = argv[1];
    name_b = argv[2];
    hid_t a = H5Fopen(name_a, H5F_ACC_RDONLY, H5P_DEFAULT);
    hid_t b = a >= 0 ? H5Fopen(name_b, H5F_ACC_RDONLY, H5P_DEFAULT) : -1;
    if (a < 0 || b < 0) {
        fprintf(stderr, "h5compare: cannot open %s as an HDF5 file\n", a < 0 ? name_a : name_b);
        if (a >= 0)
            H5Fclose(a);
        return 2;
    }
    walk_root(a, b, 1, a, b);
    walk_root(b, a, 0, a, b);
    for (int i = 0; run_datasets[i]; i++) {
        int runs = H5Lexists(a, "/run", H5P_DEFAULT) > 0 && H5Lexists(b, "/run", H5P_DEFAULT) > 0;
        int in_a = runs && H5Lexists(a, run_datasets[i], H5P_DEFAULT) > 0;
        int in_b = runs && H5Lexists(b, run_datasets[i], H5P_DEFAULT) > 0;
        if (runs && !in_a && !in_b && strcmp(run_datasets[i], "/run/check") == 0)
            continue; /* two files of format 2 */
        if (runs)
            compare_dataset(a, b, run_datasets[i]);
        else
            differ(run_datasets[i], "%s", "no run state in one of the files");
    }
    for (int i = 0; root_attributes[i]; i++) {
        char what[128];
        snprintf(what, sizeof what, "root attribute %s", root_attributes[i]);
        compare_attribute(a, b, root_attributes[i], what);
    }
    H5Fclose(a);
    H5Fclose(b);
    if (differences)
        fprintf(stderr, "h5compare: %s and %s differ (%d difference%s)\n", name_a, name_b,
                differences, differences == 1 ? "" : "s");
    return differences ? 1 : 0;
}
