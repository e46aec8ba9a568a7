/* refine.c: coarse-to-fine sweeps: the passes and their selection, the
 * inferred points (see refine.h; job.c resolves the keys). */
#include "refine.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collective.h"
#include "pending.h"
#include "signals.h"

#define MAX_REFINED IS_REFINE_MAX_AXES
/* Rows (see refiner) kept beyond 2 per level: a pass reads at most 5 rows around a point,
 * the inferring pass 2 per level. */
#define SPARE_ROWS 8
/* Points the inferring pass reads, and writes, at a time. */
#define INFER_BLOCK (UINT64_C(1) << 18)
/* A key that is no class: the point is not stored (pending, or inferred). */
#define KEY_NONE INT32_MIN

/* --- the selection ---------------------------------------------------------------- */

/* A row: the points that share their indices along every axis up to the slowest refined
 * one included (a contiguous run of the file, as long as that axis's stride). A pass
 * reads only rows of the lattices before it, a few around each point: the refiner keeps
 * the classes of the last rows it read, never more than (2 L + 8) rows. */
typedef struct row {
    uint64_t first;                     /* its first point; UINT64_MAX: empty */
    uint64_t used;                      /* when last used (the oldest is replaced) */
    int32_t *key;                       /* per point: its class, a failure, or KEY_NONE */
    double *value;                      /* per point: the refine output */
} row;

typedef struct refiner {
    const is_job *job;
    is_results *results;
    size_t d;                           /* refined axes */
    uint64_t n[MAX_REFINED];            /* their lengths */
    uint64_t stride[MAX_REFINED];       /* points per step along them */
    unsigned levels;                    /* L */
    unsigned level;                     /* the pass: 0 .. L computing, L + 1 inferring */
    int output;                         /* the refine output */
    int category, real;                 /* its type */
    double threshold;
    uint64_t points;
    uint64_t row_length;                /* the stride of the slowest refined axis */
    size_t row_count;
    row *rows;
    uint64_t clock;
    uint8_t *status;                    /* scratch: a row's status */
    is_code rc;                         /* the first failure to read a row (err says why) */
    is_error *err;
} refiner;

static void refiner_free(refiner *r)
{
    for (size_t i = 0; r->rows && i < r->row_count; i++) {
        free(r->rows[i].key);
        free(r->rows[i].value);
    }
    free(r->rows);
    free(r->status);
}

static is_code refiner_init(refiner *r, const is_job *job, is_results *results, is_error *err)
{
    memset(r, 0, sizeof *r);
    r->job = job;
    r->results = results;
    r->err = err;
    r->levels = job->refine_levels;
    r->output = job->refine_output;
    const is_output *out = &job->model->outputs[r->output];
    r->category = out->type == IS_OUTPUT_CATEGORY;
    r->real = out->type == IS_OUTPUT_REAL;
    r->threshold = job->refine_threshold;
    r->points = is_results_point_count(results);
    for (size_t k = 0; k < job->grid.axis_count; k++)
        if ((job->refine_axes >> k) & 1) {
            r->n[r->d] = job->grid.axes[k].count;
            r->stride[r->d] = job->grid.stride[k];
            r->d++;
        }
    r->row_length = r->stride[0];
    r->row_count = 2 * (size_t)r->levels + SPARE_ROWS;
    r->rows = calloc(r->row_count, sizeof *r->rows);
    r->status = malloc(r->row_length);
    int ok = r->rows && r->status;
    for (size_t i = 0; ok && i < r->row_count; i++) {
        r->rows[i].first = UINT64_MAX;
        r->rows[i].key = malloc(r->row_length * sizeof *r->rows[i].key);
        r->rows[i].value = malloc(r->row_length * sizeof *r->rows[i].value);
        ok = r->rows[i].key && r->rows[i].value;
    }
    if (!ok)
        return is_error_set(err, IS_NOMEM,
                            "cannot allocate the refinement rows (%zu of %llu points)",
                            r->row_count, (unsigned long long)r->row_length);
    return IS_OK;
}

/* Pass `level` starts: the rows kept may have changed since they were read. */
static void refiner_set_level(refiner *r, unsigned level)
{
    r->level = level;
    for (size_t i = 0; i < r->row_count; i++)
        r->rows[i].first = UINT64_MAX;
}

/* The class of a stored point (>= 0), a failure (< 0), or KEY_NONE. */
static int32_t point_key(const refiner *r, uint8_t status, double v)
{
    if (status == IS_POINT_DONE) {
        if (r->category) /* -1 (not applicable) is a class of its own */
            return isnan(v) ? 0 : (int32_t)v + 1;
        return isnan(v) ? 0 : v >= r->threshold ? 2 : 1;
    }
    if (status >= IS_POINT_FAILED_FIRST && status <= IS_POINT_FAILED_LAST)
        return -(int32_t)status;
    return KEY_NONE;
}

/* The row holding point q, read if need be; NULL after a failure (r->rc). */
static const row *row_of(refiner *r, uint64_t q)
{
    uint64_t first = q - q % r->row_length;
    row *oldest = &r->rows[0];
    for (size_t i = 0; i < r->row_count; i++) {
        row *w = &r->rows[i];
        if (w->first == first) {
            w->used = ++r->clock;
            return w;
        }
        if (w->used < oldest->used)
            oldest = w;
    }
    if (r->rc != IS_OK)
        return NULL;
    size_t status_var = is_results_variable_count(r->results) - 1;
    oldest->first = UINT64_MAX;
    r->rc = is_results_read_raw(r->results, status_var, first, r->row_length, r->status, r->err);
    if (r->rc == IS_OK)
        r->rc = is_results_read_doubles(r->results, (size_t)r->output, first, r->row_length,
                                        oldest->value, r->err);
    if (r->rc != IS_OK)
        return NULL;
    for (uint64_t i = 0; i < r->row_length; i++)
        oldest->key[i] = point_key(r, r->status[i], oldest->value[i]);
    oldest->first = first;
    oldest->used = ++r->clock;
    return oldest;
}

static int32_t key_at(refiner *r, uint64_t q)
{
    const row *w = row_of(r, q);
    return w ? w->key[q - w->first] : KEY_NONE;
}

static double value_at(refiner *r, uint64_t q)
{
    const row *w = row_of(r, q);
    return w ? w->value[q - w->first] : NAN;
}

/* Indices of point p along the refined axes. */
static void unravel(const refiner *r, uint64_t p, uint64_t *i)
{
    for (size_t k = 0; k < r->d; k++)
        i[k] = p / r->stride[k] % r->n[k];
}

static int on_lattice(const refiner *r, const uint64_t *i, uint64_t spacing)
{
    for (size_t k = 0; k < r->d; k++)
        if (i[k] % spacing != 0 && i[k] != r->n[k] - 1)
            return 0;
    return 1;
}

enum { CELL_UNKNOWN = -2, CELL_DISAGREE = -1 };

/* The cell c (its lower corner c[k] * S along each refined axis) seen from point p (at
 * indices i): CELL_UNKNOWN when a corner is not stored,
 * CELL_DISAGREE when their classes differ or one failed, else their class. */
static int32_t cell_class(refiner *r, uint64_t p, const uint64_t *i, const uint64_t *c,
                          uint64_t S)
{
    int32_t first = KEY_NONE;
    int disagree = 0;
    for (unsigned mask = 0; mask < 1u << r->d; mask++) {
        int64_t offset = 0;
        for (size_t k = 0; k < r->d; k++) {
            uint64_t a = c[k] * S, b = a + S < r->n[k] - 1 ? a + S : r->n[k] - 1;
            uint64_t x = (mask >> k) & 1 ? b : a;
            offset += ((int64_t)x - (int64_t)i[k]) * (int64_t)r->stride[k];
        }
        int32_t key = key_at(r, (uint64_t)((int64_t)p + offset));
        if (key == KEY_NONE)
            return CELL_UNKNOWN;
        disagree |= key < 0 || (mask && key != first);
        if (mask == 0)
            first = key;
    }
    return disagree ? CELL_DISAGREE : first;
}

/* The cells of spacing S along axis k that hold index i (lo .. hi), widened by `margin`
 * cells on each side. */
static void cells_around(const refiner *r, size_t k, uint64_t i, uint64_t S, uint64_t margin,
                         uint64_t *lo, uint64_t *hi)
{
    uint64_t count = (r->n[k] - 1 + S - 1) / S;
    uint64_t h = i / S < count - 1 ? i / S : count - 1;
    uint64_t l = i % S == 0 && i > 0 && i / S - 1 < h ? i / S - 1 : h;
    *lo = l > margin ? l - margin : 0;
    *hi = h + margin < count - 1 ? h + margin : count - 1;
}

/* Steps the multi-index c through lo .. hi (C order); 0 after the last. */
static int next_cell(size_t d, uint64_t *c, const uint64_t *lo, const uint64_t *hi)
{
    for (size_t k = d; k-- > 0;) {
        if (c[k] < hi[k]) {
            c[k]++;
            return 1;
        }
        c[k] = lo[k];
    }
    return 0;
}

/* The filter of computing pass r->level (is_pending_filter). */
static is_code pick(void *context, uint64_t p, int *wanted, is_error *err)
{
    refiner *r = context;
    uint64_t i[MAX_REFINED];
    unravel(r, p, i);
    unsigned L = r->levels, l = r->level;
    uint64_t s = UINT64_C(1) << (L - l), S = 2 * s;
    *wanted = 0;
    if (!on_lattice(r, i, s))
        return IS_OK;
    if (l == 0) {
        *wanted = 1;
        return IS_OK;
    }
    if (on_lattice(r, i, S)) /* a point of an earlier pass */
        return IS_OK;
    uint64_t lo[MAX_REFINED], hi[MAX_REFINED], c[MAX_REFINED];
    for (size_t k = 0; k < r->d; k++) {
        cells_around(r, k, i[k], S, 1, &lo[k], &hi[k]);
        c[k] = lo[k];
    }
    do {
        if (cell_class(r, p, i, c, S) == CELL_DISAGREE) {
            *wanted = 1;
            break;
        }
    } while (next_cell(r->d, c, lo, hi));
    if (r->rc != IS_OK && err && err != r->err)
        *err = *r->err;
    return r->rc;
}

/* The inferred results of pending point p: outputs[o * stride] (the refine output its
 * class or interpolation, the others NaN); 0 when no cell around it has all its corners
 * stored in agreement (then p stays pending). */
static int infer(refiner *r, uint64_t p, double *outputs, size_t stride)
{
    uint64_t i[MAX_REFINED];
    unravel(r, p, i);
    for (unsigned m = r->levels; m-- > 0;) { /* the finest cells first */
        uint64_t S = UINT64_C(1) << (r->levels - m);
        uint64_t lo[MAX_REFINED], hi[MAX_REFINED], c[MAX_REFINED];
        for (size_t k = 0; k < r->d; k++) {
            cells_around(r, k, i[k], S, 0, &lo[k], &hi[k]);
            c[k] = lo[k];
        }
        do {
            int32_t key = cell_class(r, p, i, c, S);
            if (key < 0)
                continue;
            size_t count = r->job->model->output_count;
            for (size_t o = 0; o < count; o++)
                outputs[o * stride] = NAN;
            if (r->category) {
                outputs[(size_t)r->output * stride] = key - 1 >= 0 ? key - 1 : NAN;
                return 1;
            }
            if (!r->real || key == 0) /* an integer output, or NaN corners */
                return 1;
            /* multilinear in the cell: a convex combination of corners on one side of
             * the threshold stays there */
            double sum = 0;
            for (unsigned mask = 0; mask < 1u << r->d; mask++) {
                double w = 1;
                int64_t offset = 0;
                for (size_t k = 0; k < r->d; k++) {
                    uint64_t a = c[k] * S, b = a + S < r->n[k] - 1 ? a + S : r->n[k] - 1;
                    double t = (double)(i[k] - a) / (double)(b - a);
                    uint64_t x = (mask >> k) & 1 ? b : a;
                    w *= (mask >> k) & 1 ? t : 1 - t;
                    offset += ((int64_t)x - (int64_t)i[k]) * (int64_t)r->stride[k];
                }
                sum += w * value_at(r, (uint64_t)((int64_t)p + offset));
            }
            /* rounding must not carry it across */
            if ((sum >= r->threshold) != (key == 2))
                sum = r->threshold;
            if ((sum >= r->threshold) != (key == 2))
                sum = nextafter(r->threshold, -INFINITY);
            outputs[(size_t)r->output * stride] = sum;
            return 1;
        } while (next_cell(r->d, c, lo, hi));
    }
    return 0;
}

/* The inferring pass: each rank its share of the points, in blocks; writes the inferred
 * points of a block (outputs, a flush, then their status, as every write). */
static is_code infer_pass(refiner *r, MPI_Comm comm, uint64_t *inferred, int *signal,
                          is_error *err)
{
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    uint64_t n = r->points, pr = (uint64_t)rank, ps = (uint64_t)size;
    uint64_t lo = n / ps * pr + n % ps * pr / ps;
    uint64_t hi = n / ps * (pr + 1) + n % ps * (pr + 1) / ps;
    size_t outputs = r->job->model->output_count;
    uint8_t *status = malloc(INFER_BLOCK), *out_status = malloc(INFER_BLOCK);
    double *values = malloc(INFER_BLOCK * (outputs ? outputs : 1) * sizeof *values);
    uint64_t *index = malloc(INFER_BLOCK * sizeof *index);
    is_code rc = status && out_status && values && index
                     ? IS_OK
                     : is_error_set(err, IS_NOMEM, "out of memory");
    size_t status_var = is_results_variable_count(r->results) - 1;
    *inferred = 0;
    *signal = 0;
    for (uint64_t at = lo; at < hi && rc == IS_OK; at += INFER_BLOCK) {
        if ((*signal = is_signals_pending()))
            break;
        uint64_t m = hi - at < INFER_BLOCK ? hi - at : INFER_BLOCK;
        rc = is_results_read_raw(r->results, status_var, at, m, status, err);
        uint64_t found = 0;
        for (uint64_t i = 0; i < m && rc == IS_OK; i++) {
            if (status[i] != IS_POINT_PENDING)
                continue;
            if (infer(r, at + i, values + found, INFER_BLOCK)) {
                out_status[found] = IS_POINT_INFERRED;
                index[found++] = at + i;
            }
            rc = r->rc;
        }
        if (rc == IS_OK)
            rc = is_results_write_points(r->results, index, found, values, INFER_BLOCK,
                                         out_status, err);
        *inferred += rc == IS_OK ? found : 0;
    }
    free(index);
    free(status);
    free(out_status);
    free(values);
    return rc;
}

/* --- the passes ------------------------------------------------------------------- */

static void add_result(is_sched_result *sum, const is_sched_result *r)
{
    for (int s = 0; s < IS_POINT_STATUS_COUNT; s++)
        sum->tally[s] += r->tally[s];
    sum->done += r->done;
    sum->failed += r->failed;
    sum->units += r->units;
    sum->unit_seconds = r->unit_seconds;
    if (!sum->stop_signal)
        sum->stop_signal = r->stop_signal;
    sum->rank_errors += r->rank_errors;
    sum->serve_seconds += r->serve_seconds;
    sum->requests += r->requests;
}

is_code is_refine_run(const is_job *job, MPI_Comm comm, is_results *results,
                      const is_sched_options *options, is_sched_result *result,
                      is_error *err)
{
    memset(result, 0, sizeof *result);
    double started = MPI_Wtime();
    int rank;
    MPI_Comm_rank(comm, &rank);
    refiner r;
    is_code rc = is_collective_agree(refiner_init(&r, job, results, err), comm, err);
    int stop = 0;
    for (unsigned level = 0; level <= job->refine_levels && rc == IS_OK && !stop; level++) {
        refiner_set_level(&r, level);
        is_pending_filter filter = {pick, &r};
        is_pending_map map = {0};
        uint64_t tally[IS_POINT_STATUS_COUNT];
        rc = is_pending_scan_filtered(results, comm, &filter, &map, tally, err);
        uint64_t wanted = 0;
        for (uint64_t s = 0; rc == IS_OK && rank == 0 && s < map.segment_count; s++)
            wanted += map.pending[s];
        if (rc == IS_OK)
            MPI_Bcast(&wanted, 1, MPI_UINT64_T, 0, comm);
        if (rc == IS_OK && wanted > 0) {
            char label[64];
            snprintf(label, sizeof label, "level %u/%u: ", level, job->refine_levels);
            is_sched_options pass = *options;
            pass.resumed = 1;
            pass.map = &map;
            pass.pending = wanted;
            pass.points = r.points;
            pass.filter = &filter;
            pass.label = label;
            is_sched_result one;
            rc = is_collective_agree(is_sched_run(job, comm, results, &pass, &one, err), comm,
                                     err);
            add_result(result, &one);
            stop = rank == 0 && (one.stop_signal || one.rank_errors);
            MPI_Bcast(&stop, 1, MPI_INT, 0, comm);
        }
        is_pending_free(&map);
        /* what this pass wrote is read by the next one, on every rank */
        if (rc == IS_OK)
            rc = is_collective_agree(is_results_sync(results, err), comm, err);
        MPI_Barrier(comm);
    }
    if (rc == IS_OK && !stop) {
        refiner_set_level(&r, job->refine_levels + 1);
        uint64_t inferred = 0, total = 0;
        int signal = 0, any_signal = 0;
        rc = is_collective_agree(infer_pass(&r, comm, &inferred, &signal, err), comm, err);
        MPI_Reduce(&inferred, &total, 1, MPI_UINT64_T, MPI_SUM, 0, comm);
        MPI_Allreduce(&signal, &any_signal, 1, MPI_INT, MPI_MAX, comm);
        if (rank == 0) {
            result->tally[IS_POINT_INFERRED] += total;
            if (!result->stop_signal)
                result->stop_signal = any_signal;
        }
    }
    refiner_free(&r);
    result->seconds = MPI_Wtime() - started;
    return rc;
}
