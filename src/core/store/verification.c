/* verification.c: self-verification's records in a result file (verification.h). */
#include "verification.h"

#include <hdf5.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collective.h"
#include "crc32c.h"
#include "h5attr.h"
#include "results_layout.h"
#include "tolerance.h"

#define RECORDS "/verify/records"
#define BLOCK_ROWS 4096 /* rows read at a time: bounded memory whatever the file */

struct is_verification {
    is_results *results;
    hid_t ds;
    uint64_t stride, seed, first_stratum, slots;
    size_t width;
    double tolerance;
};

uint64_t is_verification_stride(double fraction)
{
    if (!(fraction > 0))
        return 0;
    double s = floor(1.0 / fraction + 0.5);
    return s < 1 ? 1 : (uint64_t)s;
}

/* splitmix64's finaliser: every bit of the stratum and the seed moves every bit. */
static uint64_t mix(uint64_t z)
{
    z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
    return z ^ (z >> 31);
}

int is_verification_sampled(uint64_t stride, uint64_t seed, uint64_t g)
{
    if (stride == 0)
        return 0;
    uint64_t stratum = g / stride;
    return g % stride == mix(mix(stratum) ^ (seed + UINT64_C(0x9e3779b97f4a7c15))) % stride;
}

uint64_t is_verification_seed(const is_job *job)
{
    for (size_t p = 0; p < job->model->param_count; p++)
        if (job->model->params[p].flags & IS_PARAM_SEED) {
            for (size_t k = 0; k < job->grid.axis_count; k++)
                if ((size_t)job->grid.axes[k].param == p)
                    return 0; /* swept: no one seed */
            return (uint64_t)job->fixed[p];
        }
    return 0;
}

/* The first and one past the last stratum whose sampled point lies in [first, end). */
static void strata(uint64_t stride, uint64_t seed, uint64_t first, uint64_t end, uint64_t *lo,
                   uint64_t *hi)
{
    *lo = *hi = 0;
    if (stride == 0 || end <= first)
        return;
    uint64_t a = first / stride, b = (end - 1) / stride;
    uint64_t ga = a * stride + mix(mix(a) ^ (seed + UINT64_C(0x9e3779b97f4a7c15))) % stride;
    uint64_t gb = b * stride + mix(mix(b) ^ (seed + UINT64_C(0x9e3779b97f4a7c15))) % stride;
    *lo = ga >= first ? a : a + 1;
    *hi = gb < end ? b + 1 : b;
    if (*hi < *lo)
        *hi = *lo;
}

/* The default verify_tolerance: IS_TOLERANCE_VERIFY_SCALE x the largest tolerance the job
 * asks (over an axis where one is swept). */
static double default_tolerance(const is_job *job)
{
    const is_model *m = job->model;
    double largest = 0;
    for (size_t p = 0; p < m->param_count; p++) {
        if (!(m->params[p].flags & IS_PARAM_TOLERANCE))
            continue;
        double v = job->fixed[p];
        for (size_t k = 0; k < job->grid.axis_count; k++)
            if ((size_t)job->grid.axes[k].param == p)
                for (size_t i = 0; i < job->grid.axes[k].count; i++)
                    v = fmax(v, is_axis_value(&job->grid.axes[k], i));
        largest = fmax(largest, v);
    }
    char text[32]; /* 1000 x 1e-10 is 1e-07, not 1.0000000000000001e-07 */
    snprintf(text, sizeof text, "%.12g", IS_TOLERANCE_VERIFY_SCALE * largest);
    return strtod(text, NULL);
}

herr_t is_layout_verification_create(hid_t file, const is_job *job)
{
    uint64_t stride = is_verification_stride(job->verify_fraction);
    if (stride == 0 || !is_tolerance_model(job->model))
        return 0; /* no records: none asked, or the model cannot be verified this way */
    uint64_t seed = is_verification_seed(job), lo, hi;
    strata(stride, seed, job->piece_first, job->piece_last, &lo, &hi);
    hsize_t dims[2] = {hi - lo, job->model->output_count + 3};
    hid_t group = H5Gcreate2(file, "/verify", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    hid_t space = H5Screate_simple(2, dims, NULL);
    hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
    H5Pset_layout(dcpl, H5D_CONTIGUOUS);
    H5Pset_alloc_time(dcpl, H5D_ALLOC_TIME_EARLY);
    H5Pset_fill_time(dcpl, H5D_FILL_TIME_NEVER); /* the ranks write the zeros */
    hid_t ds = group < 0 ? -1
                         : H5Dcreate2(file, RECORDS, H5T_IEEE_F64LE, space, H5P_DEFAULT, dcpl,
                                      H5P_DEFAULT);
    H5Pclose(dcpl);
    H5Sclose(space);
    herr_t rc = ds < 0 ? -1 : 0;
    double tolerance = job->verify_tolerance > 0 ? job->verify_tolerance : default_tolerance(job);
    char columns[IS_LAYOUT_TEXT_MAX] = "grid_index_plus_1 status";
    size_t used = strlen(columns);
    for (size_t o = 0; o < job->model->output_count && used < sizeof columns; o++)
        used += (size_t)snprintf(columns + used, sizeof columns - used, " %s",
                                 job->model->outputs[o].name);
    if (used < sizeof columns)
        snprintf(columns + used, sizeof columns - used, " crc32c");
    if (rc == 0) {
        rc |= is_h5_attr_string(ds, "long_name",
                                "self-verification: a row per sampled point, recomputed with "
                                "each tolerance parameter / factor (and another method): its "
                                "grid index + 1 (0: no record), the recomputation's status, "
                                "each output's discrepancy, the CRC-32C of the row before it");
        rc |= is_h5_attr_string(ds, "columns", columns);
        rc |= is_h5_attr_int64(ds, "stride", (int64_t)stride);
        rc |= is_h5_attr_int64(ds, "seed", (int64_t)seed);
        rc |= is_h5_attr_int64(ds, "first_stratum", (int64_t)lo);
        rc |= is_h5_attr_double(ds, "fraction", job->verify_fraction);
        rc |= is_h5_attr_double(ds, "verify_tolerance", tolerance);
        rc |= is_h5_attr_double(ds, "tolerance_factor", IS_TOLERANCE_FACTOR);
        rc |= is_h5_attr_double(ds, "discrepancy_floor", IS_TOLERANCE_FLOOR);
    }
    if (ds >= 0)
        H5Dclose(ds);
    if (group >= 0)
        H5Gclose(group);
    return rc;
}

hid_t is_layout_verification_open(hid_t file)
{
    if (H5Lexists(file, "/verify", H5P_DEFAULT) <= 0 ||
        H5Lexists(file, RECORDS, H5P_DEFAULT) <= 0) {
        H5Eclear2(H5E_DEFAULT);
        return -1;
    }
    return H5Dopen2(file, RECORDS, H5P_DEFAULT);
}

static uint64_t attr_u64(hid_t ds, const char *name)
{
    char text[64];
    is_h5_attr_read_string(ds, name, text, sizeof text);
    return strtoull(text, NULL, 10);
}

is_code is_verification_open(is_results *r, is_verification **out, is_error *err)
{
    *out = NULL;
    hid_t ds = is_layout_verification(r);
    if (ds < 0)
        return IS_OK;
    is_verification *v = calloc(1, sizeof *v);
    if (!v)
        return is_error_set(err, IS_NOMEM, "out of memory");
    v->results = r;
    v->ds = ds;
    v->stride = attr_u64(ds, "stride");
    v->seed = attr_u64(ds, "seed");
    v->first_stratum = attr_u64(ds, "first_stratum");
    char text[64];
    is_h5_attr_read_string(ds, "verify_tolerance", text, sizeof text);
    v->tolerance = strtod(text, NULL);
    hid_t space = H5Dget_space(ds);
    hsize_t dims[2] = {0, 0};
    int rank = space >= 0 ? H5Sget_simple_extent_dims(space, dims, NULL) : -1;
    if (space >= 0)
        H5Sclose(space);
    v->slots = dims[0];
    v->width = (size_t)dims[1];
    if (rank != 2 || v->stride == 0 || v->width != is_results_variable_count(r) + 2) {
        free(v);
        return is_error_set(err, IS_DAMAGED, "%s is damaged: %s has the wrong shape or "
                            "attributes", is_results_path(r), RECORDS);
    }
    *out = v;
    return IS_OK;
}

void is_verification_close(is_verification **v)
{
    free(*v); /* (the dataset is the open file's) */
    *v = NULL;
}

uint64_t is_verification_stride_of(const is_verification *v) { return v->stride; }
uint64_t is_verification_seed_of(const is_verification *v) { return v->seed; }
uint64_t is_verification_slots(const is_verification *v) { return v->slots; }
size_t is_verification_width(const is_verification *v) { return v->width; }
double is_verification_tolerance(const is_verification *v) { return v->tolerance; }

uint64_t is_verification_slot(const is_verification *v, uint64_t g)
{
    return g / v->stride - v->first_stratum;
}

void is_verification_seal(double *row, size_t width)
{
    row[width - 1] = (double)is_crc32c(0, row, (width - 1) * sizeof *row);
}

static is_code transfer(is_verification *v, uint64_t first, uint64_t count, double *rows,
                        int writing, is_error *err)
{
    if (count == 0)
        return IS_OK;
    hsize_t start[2] = {first, 0}, size[2] = {count, v->width};
    hid_t file_space = H5Dget_space(v->ds), mem = H5Screate_simple(2, size, NULL);
    herr_t rc = H5Sselect_hyperslab(file_space, H5S_SELECT_SET, start, NULL, size, NULL);
    if (rc >= 0)
        rc = writing ? H5Dwrite(v->ds, H5T_NATIVE_DOUBLE, mem, file_space, H5P_DEFAULT, rows)
                     : H5Dread(v->ds, H5T_NATIVE_DOUBLE, mem, file_space, H5P_DEFAULT, rows);
    H5Sclose(mem);
    H5Sclose(file_space);
    return rc < 0 ? is_layout_io_fail(err, is_results_path(v->results),
                                      writing ? "writing" : "reading", RECORDS, 0)
                  : IS_OK;
}

is_code is_verification_write(is_verification *v, uint64_t first, uint64_t count,
                              const double *rows, is_error *err)
{
    return transfer(v, first, count, (double *)rows, 1, err);
}

is_code is_verification_read(is_verification *v, uint64_t first, uint64_t count, double *rows,
                             is_error *err)
{
    return transfer(v, first, count, rows, 0, err);
}

int is_verification_record(const is_verification *v, uint64_t s, const double *row, uint64_t *g)
{
    if (row[0] == 0)
        return 0;
    double check = row[v->width - 1];
    if (!(row[0] >= 1 && row[0] <= 9007199254740992.0) ||
        check != (double)is_crc32c(0, row, (v->width - 1) * sizeof *row))
        return -1;
    *g = (uint64_t)row[0] - 1;
    uint64_t first = is_results_first_point(v->results);
    if (*g < first || *g - first >= is_results_point_count(v->results) ||
        !is_verification_sampled(v->stride, v->seed, *g) || is_verification_slot(v, *g) != s)
        return -1;
    return 1;
}

/* Calls each(context, row, g) for every record, in blocks; IS_DAMAGED at a broken one. */
static is_code each_record(is_verification *v, void (*each)(void *, const double *, uint64_t),
                           void *context, is_error *err)
{
    double *rows = malloc(BLOCK_ROWS * v->width * sizeof *rows);
    if (!rows)
        return is_error_set(err, IS_NOMEM, "out of memory");
    is_code rc = IS_OK;
    for (uint64_t at = 0; at < v->slots && rc == IS_OK; at += BLOCK_ROWS) {
        uint64_t n = v->slots - at < BLOCK_ROWS ? v->slots - at : BLOCK_ROWS;
        rc = is_verification_read(v, at, n, rows, err);
        for (uint64_t i = 0; i < n && rc == IS_OK; i++) {
            uint64_t g = 0;
            int found = is_verification_record(v, at + i, rows + i * v->width, &g);
            if (found < 0)
                rc = is_error_set(err, IS_DAMAGED,
                                  "%s is damaged: the verification record in row %llu of %s "
                                  "does not match its checksum or its place",
                                  is_results_path(v->results), (unsigned long long)(at + i),
                                  RECORDS);
            else if (found && each)
                each(context, rows + i * v->width, g);
        }
    }
    free(rows);
    return rc;
}

is_code is_verification_check(is_verification *v, is_error *err)
{
    return each_record(v, NULL, NULL, err);
}

static void add_record(void *context, const double *row, uint64_t g)
{
    is_verification_summary *s = context;
    int status = (int)row[1];
    if (status == IS_VERIFICATION_UNVERIFIABLE) {
        s->unverifiable++;
        return;
    }
    if (status != IS_POINT_DONE) {
        s->failed++;
        return;
    }
    s->checked++;
    int beyond = 0;
    for (size_t o = 0; o < s->outputs; o++) {
        double d = row[2 + o];
        if (d > s->largest[o] || (isnan(d) && !isnan(s->largest[o]))) {
            s->largest[o] = d;
            s->largest_at[o] = g;
        }
        if (!(d <= s->tolerance)) {
            s->over[o]++;
            beyond = 1;
        }
    }
    s->beyond += (uint64_t)beyond;
}

is_code is_verification_summarize(is_verification *v, is_verification_summary *s, is_error *err)
{
    memset(s, 0, sizeof *s);
    s->outputs = v->width - 3;
    s->tolerance = v->tolerance;
    s->fraction = 1.0 / (double)v->stride;
    size_t n = s->outputs ? s->outputs : 1;
    s->largest = calloc(n, sizeof *s->largest);
    s->largest_at = calloc(n, sizeof *s->largest_at);
    s->over = calloc(n, sizeof *s->over);
    if (!s->largest || !s->largest_at || !s->over) {
        is_verification_summary_free(s);
        return is_error_set(err, IS_NOMEM, "out of memory");
    }
    is_code rc = each_record(v, add_record, s, err);
    if (rc != IS_OK) /* (a damaged record: the caller gets no summary to free) */
        is_verification_summary_free(s);
    return rc;
}

void is_verification_summary_free(is_verification_summary *s)
{
    free(s->largest);
    free(s->largest_at);
    free(s->over);
    s->largest = NULL;
    s->largest_at = s->over = NULL;
}

is_code is_verification_fill(is_results *r, MPI_Comm comm, is_error *err)
{
    is_verification *v = NULL;
    is_code rc = is_verification_open(r, &v, err);
    if (rc != IS_OK || !v)
        return rc;
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    uint64_t lo = v->slots * (uint64_t)rank / (uint64_t)size;
    uint64_t hi = v->slots * (uint64_t)(rank + 1) / (uint64_t)size;
    double *zeros = calloc(BLOCK_ROWS * v->width, sizeof *zeros);
    if (!zeros)
        rc = is_error_set(err, IS_NOMEM, "out of memory");
    for (uint64_t at = lo; at < hi && rc == IS_OK; at += BLOCK_ROWS)
        rc = is_verification_write(v, at, hi - at < BLOCK_ROWS ? hi - at : BLOCK_ROWS, zeros,
                                   err);
    free(zeros);
    is_verification_close(&v);
    return rc;
}

is_code is_verification_check_file(is_results *r, MPI_Comm comm, is_error *err)
{
    int rank = 0;
    if (comm != MPI_COMM_NULL)
        MPI_Comm_rank(comm, &rank);
    is_verification *v = NULL;
    is_code rc = is_verification_open(r, &v, err);
    if (rc == IS_OK && v && rank == 0)
        rc = is_verification_check(v, err);
    is_verification_close(&v);
    return comm != MPI_COMM_NULL ? is_collective_share(rc, 0, comm, err) : rc;
}
