/* refine.c: coarse-to-fine sweeps: the passes and their selection, the inferred points,
 * the census of refined cells (see refine.h; job.c resolves the keys). */
#include "refine.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collective.h"
#include "engine.h"
#include "pending.h"
#include "signals.h"

#define MAX_REFINED IS_REFINE_MAX_AXES
#define MAX_OUTPUTS IS_REFINE_MAX_OUTPUTS
/* Rows (see refiner) kept beyond 2 per level: a pass reads at most 7 rows around a point
 * (its cells, one of margin, and their corners' lattice neighbours), the inferring pass 2
 * per level, the census 4. */
#define SPARE_ROWS 8
/* Points the inferring pass reads, and writes, at a time. */
#define INFER_BLOCK (UINT64_C(1) << 18)
/* A point's key: the class of refine output j in bits 8 j .. 8 j + 7 (a category + 1,
 * at most 128, or 0 NaN, 1 below, 2 at or above the threshold); a failure -status; and
 * KEY_NONE: the point is not stored (pending, or inferred). */
#define KEY_BITS 8
#define KEY_NONE INT64_MIN

/* --- settings ----------------------------------------------------------------------- */

void is_refine_settings_of_job(const is_job *job, is_refine_settings *s)
{
    memset(s, 0, sizeof *s);
    s->levels = job->refine_levels;
    s->axes = job->refine_axes;
    s->output_count = job->refine_output_count;
    memcpy(s->outputs, job->refine_outputs, sizeof s->outputs);
    s->margin = job->refine_margin;
}

static int variable_named(is_results *results, const char *name)
{
    for (size_t v = 0; v + 1 < is_results_variable_count(results); v++)
        if (strcmp(is_results_variable_at(results, v)->name, name) == 0)
            return is_results_variable_at(results, v)->length == 1 ? (int)v : -1; /* (scalars
                                                                                   only) */
    return -1;
}

/* The refine outputs of a file: `refine_outputs` and `refine_thresholds` (blank-separated),
 * or in the first layout `refine` (one name) and `refine_threshold`. */
static is_code outputs_of_file(is_results *results, is_refine_settings *s, is_error *err)
{
    char names[1024], thresholds[1024];
    is_results_attribute(results, "refine_outputs", names, sizeof names);
    is_results_attribute(results, "refine_thresholds", thresholds, sizeof thresholds);
    if (!*names) {
        is_results_attribute(results, "refine", names, sizeof names);
        is_results_attribute(results, "refine_threshold", thresholds, sizeof thresholds);
    }
    char *save = NULL, *next = thresholds;
    for (char *name = strtok_r(names, " ", &save); name; name = strtok_r(NULL, " ", &save)) {
        int v = variable_named(results, name);
        if (v < 0 || s->output_count == MAX_OUTPUTS)
            return is_error_set(err, IS_NOT_RESULT,
                                "the refinement attributes name '%s', no variable of the file",
                                name);
        char *end = next;
        double t = strtod(next, &end);
        s->outputs[s->output_count++] = (is_refine_output){v, end == next ? NAN : t};
        next = end;
    }
    return s->output_count ? IS_OK
                           : is_error_set(err, IS_NOT_RESULT,
                                          "a refined file without refinement outputs");
}

is_code is_refine_settings_of_file(is_results *results, is_refine_settings *s, is_error *err)
{
    memset(s, 0, sizeof *s);
    char text[1024];
    is_results_attribute(results, "refine_levels", text, sizeof text);
    unsigned long levels = strtoul(text, NULL, 10);
    if (levels == 0 || levels > IS_REFINE_MAX_LEVELS)
        return IS_OK;
    is_results_attribute(results, "refine_axes", text, sizeof text);
    char *save = NULL;
    for (char *name = strtok_r(text, " ", &save); name; name = strtok_r(NULL, " ", &save))
        for (size_t k = 0; k < is_results_axis_count(results); k++)
            if (strcmp(is_results_axis_name(results, k), name) == 0)
                s->axes |= 1u << k;
    is_results_attribute(results, "refine_margin", text, sizeof text);
    s->margin = *text ? strtod(text, NULL) : 0; /* files made before it: the first rule */
    is_code rc = outputs_of_file(results, s, err);
    if (rc == IS_OK && s->axes == 0)
        rc = is_error_set(err, IS_NOT_RESULT, "a refined file without refined axes");
    s->levels = rc == IS_OK ? (unsigned)levels : 0;
    return rc;
}

/* --- the refiner: rows of the file and the cells they make ---------------------------- */

/* A row: the points that share their indices along every axis up to the slowest refined
 * one included (a contiguous run of the file, as long as that axis's stride). A pass
 * reads only rows of the lattices before it, a few around each point: the refiner keeps
 * the classes of the last rows it read, never more than (2 L + 8) rows. */
typedef struct row {
    uint64_t first;                     /* its first point; UINT64_MAX: empty */
    int64_t *key;                       /* per point: its classes, a failure, or KEY_NONE */
    double *value;                      /* per thresholded output t, per point:
                                           value[t * row_length + i] */
} row;

typedef struct refine_output {
    size_t variable;
    int category, real;                 /* its type */
    double threshold;
    int slot;                           /* thresholded: its values in a row; else -1 */
} refine_output;

typedef struct refiner {
    is_results *results;
    size_t d;                           /* refined axes */
    uint64_t n[MAX_REFINED];            /* their lengths */
    uint64_t stride[MAX_REFINED];       /* points per step along them */
    unsigned levels;                    /* L */
    unsigned level;                     /* the pass: 0 .. L computing, L + 1 inferring */
    size_t output_count;                /* refine outputs */
    refine_output outputs[MAX_OUTPUTS];
    size_t thresholded;                 /* of them, with a threshold */
    double margin;
    size_t variables;                   /* the file's outputs */
    uint64_t points;
    uint64_t row_length;                /* the stride of the slowest refined axis */
    size_t row_count;
    row *rows;
    row **order;                        /* the rows, most recently used first */
    uint8_t *status;                    /* scratch: a row's status */
    double *scratch;                    /* scratch: a row's categorical output */
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
    free(r->order);
    free(r->status);
    free(r->scratch);
}

static void describe_outputs(refiner *r, const is_refine_settings *s)
{
    r->output_count = s->output_count;
    r->thresholded = 0;
    for (size_t j = 0; j < s->output_count; j++) {
        refine_output *o = &r->outputs[j];
        const is_results_variable *var = is_results_variable_at(r->results,
                                                                (size_t)s->outputs[j].output);
        o->variable = (size_t)s->outputs[j].output;
        o->category = var->type == IS_OUTPUT_CATEGORY;
        o->real = var->type == IS_OUTPUT_REAL;
        o->threshold = s->outputs[j].threshold;
        o->slot = o->category ? -1 : (int)r->thresholded++;
    }
}

static is_code refiner_init(refiner *r, const is_refine_settings *s, is_results *results,
                            is_error *err)
{
    memset(r, 0, sizeof *r);
    r->results = results;
    r->err = err;
    r->levels = s->levels;
    r->margin = s->margin;
    r->variables = is_results_variable_count(results) - 1;
    r->points = is_results_point_count(results);
    describe_outputs(r, s);
    uint64_t stride = 1;
    uint64_t strides[IS_GRID_MAX_AXES];
    for (size_t k = is_results_axis_count(results); k-- > 0;) {
        strides[k] = stride;
        stride *= is_results_axis_length(results, k);
    }
    for (size_t k = 0; k < is_results_axis_count(results); k++)
        if ((s->axes >> k) & 1) {
            r->n[r->d] = is_results_axis_length(results, k);
            r->stride[r->d] = strides[k];
            r->d++;
        }
    r->row_length = r->stride[0];
    r->row_count = 2 * (size_t)r->levels + SPARE_ROWS;
    r->rows = calloc(r->row_count, sizeof *r->rows);
    r->order = malloc(r->row_count * sizeof *r->order);
    r->status = malloc(r->row_length);
    r->scratch = malloc(r->row_length * sizeof *r->scratch);
    int ok = r->rows && r->order && r->status && r->scratch;
    size_t values = r->row_length * (r->thresholded ? r->thresholded : 1);
    for (size_t i = 0; ok && i < r->row_count; i++) {
        r->order[i] = &r->rows[i];
        r->rows[i].first = UINT64_MAX;
        r->rows[i].key = malloc(r->row_length * sizeof *r->rows[i].key);
        r->rows[i].value = malloc(values * sizeof *r->rows[i].value);
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

/* The class of output o at a stored point (value v). */
static int64_t output_key(const refine_output *o, double v)
{
    if (o->category) /* -1 (not applicable) is a class of its own, as NaN */
        return isnan(v) || v < 0 ? 0 : (int64_t)v + 1;
    return isnan(v) ? 0 : v >= o->threshold ? 2 : 1;
}

static int64_t class_of(const int64_t key, size_t j)
{
    return (key >> (KEY_BITS * j)) & ((1 << KEY_BITS) - 1);
}

/* Reads row `first` into w: status, then each refine output; the keys. */
static is_code read_row(refiner *r, row *w, uint64_t first)
{
    size_t status_var = r->variables;
    is_code rc = is_results_read_raw(r->results, status_var, first, r->row_length, r->status,
                                     r->err);
    for (uint64_t i = 0; rc == IS_OK && i < r->row_length; i++) {
        uint8_t st = r->status[i];
        w->key[i] = st == IS_POINT_DONE ? 0
                    : is_point_failed(st) ? -(int64_t)st
                                                                                : KEY_NONE;
    }
    for (size_t j = 0; rc == IS_OK && j < r->output_count; j++) {
        const refine_output *o = &r->outputs[j];
        double *v = o->slot >= 0 ? w->value + (size_t)o->slot * r->row_length : r->scratch;
        rc = is_results_read_doubles(r->results, o->variable, first, r->row_length, v, r->err);
        for (uint64_t i = 0; rc == IS_OK && i < r->row_length; i++)
            if (r->status[i] == IS_POINT_DONE)
                w->key[i] |= output_key(o, v[i]) << (KEY_BITS * j);
    }
    return rc;
}

/* The row holding point q, read if need be; NULL after a failure (r->rc). The rows are
 * kept most recently used first (a lookup mostly wants one of the last two or three), and
 * the last is the one replaced. */
static const row *row_of(refiner *r, uint64_t q)
{
    uint64_t first = q - q % r->row_length;
    row *w = r->order[0];
    if (w->first == first)
        return w;
    size_t at = 1;
    while (at < r->row_count && r->order[at]->first != first)
        at++;
    if (at == r->row_count) { /* not kept: read it into the oldest */
        if (r->rc != IS_OK)
            return NULL;
        at = r->row_count - 1;
        w = r->order[at];
        w->first = UINT64_MAX;
        r->rc = read_row(r, w, first);
        if (r->rc != IS_OK)
            return NULL;
        w->first = first;
    }
    w = r->order[at];
    memmove(r->order + 1, r->order, at * sizeof *r->order);
    r->order[0] = w;
    return w;
}

static int64_t key_at(refiner *r, uint64_t q)
{
    const row *w = row_of(r, q);
    return w ? w->key[q - w->first] : KEY_NONE;
}

/* Thresholded output slot's value at q. */
static double value_at(refiner *r, uint64_t q, int slot)
{
    const row *w = row_of(r, q);
    return w ? w->value[(size_t)slot * r->row_length + (q - w->first)] : NAN;
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

/* The point at indices x along the refined axes, in the slice of point p (at indices i). */
static uint64_t point_at(const refiner *r, uint64_t p, const uint64_t *i, const uint64_t *x)
{
    int64_t offset = 0;
    for (size_t k = 0; k < r->d; k++)
        offset += ((int64_t)x[k] - (int64_t)i[k]) * (int64_t)r->stride[k];
    return (uint64_t)((int64_t)p + offset);
}

/* Cell c of spacing S: its corners' indices a[k] (lower) and b[k] (upper). */
static void cell_bounds(const refiner *r, const uint64_t *c, uint64_t S, uint64_t *a,
                        uint64_t *b)
{
    for (size_t k = 0; k < r->d; k++) {
        a[k] = c[k] * S;
        b[k] = a[k] + S < r->n[k] - 1 ? a[k] + S : r->n[k] - 1;
    }
}

/* --- why a cell is refined ------------------------------------------------------------ */

/* The lattice of spacing S along axis k: the index before x and after it (UINT64_MAX:
 * none). */
static uint64_t lattice_before(uint64_t x, uint64_t S)
{
    if (x == 0)
        return UINT64_MAX;
    return x % S ? x - x % S : x - S; /* x % S: the last index */
}

static uint64_t lattice_after(const refiner *r, size_t k, uint64_t x, uint64_t S)
{
    uint64_t last = r->n[k] - 1;
    return x >= last ? UINT64_MAX : x + S < last ? x + S : last;
}

/* |second difference| of thresholded output o along axis k at the lattice point x (of
 * spacing S), scaled to the spacing S; 0 where a neighbour is missing or not a number. */
static double bend(refiner *r, const refine_output *o, uint64_t p, const uint64_t *i,
                   uint64_t *x, size_t k, uint64_t S)
{
    uint64_t at = x[k], before = lattice_before(at, S), after = lattice_after(r, k, at, S);
    if (before == UINT64_MAX || after == UINT64_MAX)
        return 0;
    double f[3];
    uint64_t where[3] = {before, at, after};
    for (int m = 0; m < 3; m++) {
        x[k] = where[m];
        uint64_t q = point_at(r, p, i, x);
        f[m] = key_at(r, q) >= 0 ? value_at(r, q, o->slot) : NAN;
    }
    x[k] = at;
    double h0 = (double)(at - before), h1 = (double)(after - at), s = (double)S;
    double d2 = 2 * s * s * ((f[2] - f[1]) / h1 - (f[1] - f[0]) / h0) / (h0 + h1);
    return isfinite(d2) ? fabs(d2) : 0;
}

/* Does a corner of the cell (a, b) lie within margin x the largest second difference at
 * its corners of the threshold of output o? (The corners agree: all on one side.) */
static int near_threshold(refiner *r, const refine_output *o, uint64_t p, const uint64_t *i,
                          const uint64_t *a, const uint64_t *b, uint64_t S)
{
    uint64_t x[MAX_REFINED];
    double nearest = INFINITY;
    for (unsigned mask = 0; mask < 1u << r->d; mask++) {
        for (size_t k = 0; k < r->d; k++)
            x[k] = (mask >> k) & 1 ? b[k] : a[k];
        nearest = fmin(nearest, fabs(value_at(r, point_at(r, p, i, x), o->slot) - o->threshold));
    }
    if (!isfinite(nearest))
        return 0;
    double needed = nearest / r->margin;
    for (unsigned mask = 0; mask < 1u << r->d; mask++) {
        for (size_t k = 0; k < r->d; k++)
            x[k] = (mask >> k) & 1 ? b[k] : a[k];
        for (size_t k = 0; k < r->d; k++)
            if (bend(r, o, p, i, x, k, S) >= needed)
                return 1;
    }
    return 0;
}

enum { CELL_UNKNOWN = -1, CELL_AGREES = 0 }; /* else 1 + the reason it is refined */

/* The cell c (its lower corner c[k] * S along each refined axis) seen from point p (at
 * indices i): CELL_UNKNOWN when a corner is not stored, 1 + IS_REFINE_FAILED or
 * IS_REFINE_CLASSES, 1 + IS_REFINE_THRESHOLD + j (`thresholds` only) when it is refined,
 * else CELL_AGREES and *key their classes. */
static int cell_state(refiner *r, uint64_t p, const uint64_t *i, const uint64_t *c, uint64_t S,
                      int thresholds, int64_t *key)
{
    uint64_t a[MAX_REFINED], b[MAX_REFINED], x[MAX_REFINED];
    cell_bounds(r, c, S, a, b);
    int64_t first = KEY_NONE;
    int failed = 0, differ = 0;
    for (unsigned mask = 0; mask < 1u << r->d; mask++) {
        for (size_t k = 0; k < r->d; k++)
            x[k] = (mask >> k) & 1 ? b[k] : a[k];
        int64_t corner = key_at(r, point_at(r, p, i, x));
        if (corner == KEY_NONE)
            return CELL_UNKNOWN;
        failed |= corner < 0;
        differ |= mask && corner != first;
        if (mask == 0)
            first = corner;
    }
    if (failed)
        return 1 + IS_REFINE_FAILED;
    if (differ)
        return 1 + IS_REFINE_CLASSES;
    *key = first;
    for (size_t j = 0; thresholds && r->margin > 0 && j < r->output_count; j++) {
        const refine_output *o = &r->outputs[j];
        if (o->slot >= 0 && class_of(first, j) != 0 && near_threshold(r, o, p, i, a, b, S))
            return 1 + IS_REFINE_THRESHOLD + (int)j;
    }
    return CELL_AGREES;
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
    int64_t key;
    do {
        if (cell_state(r, p, i, c, S, 1, &key) > CELL_AGREES) {
            *wanted = 1;
            break;
        }
    } while (next_cell(r->d, c, lo, hi));
    if (r->rc != IS_OK && err && err != r->err)
        *err = *r->err;
    return r->rc;
}

/* --- the inferred points ----------------------------------------------------------- */

/* Output o at point p inside the cell (a, b) of spacing S: the multilinear interpolation
 * of its corners, kept on their side of the threshold (`above`). */
static double interpolate(refiner *r, const refine_output *o, uint64_t p, const uint64_t *i,
                          const uint64_t *a, const uint64_t *b, int above)
{
    uint64_t x[MAX_REFINED];
    double sum = 0;
    for (unsigned mask = 0; mask < 1u << r->d; mask++) {
        double w = 1;
        for (size_t k = 0; k < r->d; k++) {
            double t = (double)(i[k] - a[k]) / (double)(b[k] - a[k]);
            x[k] = (mask >> k) & 1 ? b[k] : a[k];
            w *= (mask >> k) & 1 ? t : 1 - t;
        }
        sum += w * value_at(r, point_at(r, p, i, x), o->slot);
    }
    /* a convex combination of corners on one side stays there, but rounding must not
     * carry it across */
    if ((sum >= o->threshold) != above)
        sum = o->threshold;
    if ((sum >= o->threshold) != above)
        sum = nextafter(o->threshold, -INFINITY);
    return sum;
}

/* Where variable v's values start in a block of model.h's layout (in units of stride):
 * the lengths of the variables before it (an array output's is its values'). */
static size_t offset_of(const refiner *r, size_t v)
{
    size_t at = 0;
    for (size_t u = 0; u < v; u++)
        at += is_results_variable_at(r->results, u)->length;
    return at;
}

/* The inferred outputs of point p in the agreeing cell c of spacing S (classes `key`):
 * point `slot` of outputs, a block of stride points in model.h's layout (every array
 * output not computed: NaN; refinement outputs are scalars). */
static void fill_inferred(refiner *r, uint64_t p, const uint64_t *i, const uint64_t *c,
                          uint64_t S, int64_t key, double *outputs, size_t stride, size_t slot)
{
    uint64_t a[MAX_REFINED], b[MAX_REFINED];
    cell_bounds(r, c, S, a, b);
    for (size_t v = 0, at = 0; v < r->variables; v++) {
        size_t length = is_results_variable_at(r->results, v)->length;
        for (size_t e = 0; e < length; e++)
            outputs[at * stride + slot * length + e] = NAN;
        at += length;
    }
    for (size_t j = 0; j < r->output_count; j++) {
        const refine_output *o = &r->outputs[j];
        int64_t class = class_of(key, j);
        double *out = &outputs[offset_of(r, o->variable) * stride + slot];
        if (o->category)
            *out = class > 0 ? (double)(class - 1) : NAN;
        else if (o->real && class > 0) /* an integer output: not computed (-1) */
            *out = interpolate(r, o, p, i, a, b, class == 2);
    }
}

/* The inferred results of pending point p: point `slot` of outputs (fill_inferred); 0 when
 * no cell around it has all its corners stored in agreement (then p stays pending). */
static int infer(refiner *r, uint64_t p, double *outputs, size_t stride, size_t slot)
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
            int64_t key;
            if (cell_state(r, p, i, c, S, 0, &key) == CELL_AGREES) {
                fill_inferred(r, p, i, c, S, key, outputs, stride, slot);
                return 1;
            }
        } while (next_cell(r->d, c, lo, hi));
    }
    return 0;
}

/* This rank's share of n points: lo .. hi - 1. */
static void share(MPI_Comm comm, uint64_t n, uint64_t *lo, uint64_t *hi)
{
    int rank = 0, size = 1;
    if (comm != MPI_COMM_NULL) {
        MPI_Comm_rank(comm, &rank);
        MPI_Comm_size(comm, &size);
    }
    uint64_t pr = (uint64_t)rank, ps = (uint64_t)size;
    *lo = n / ps * pr + n % ps * pr / ps;
    *hi = n / ps * (pr + 1) + n % ps * (pr + 1) / ps;
}

/* The inferring pass: each rank its share of the points, in blocks; writes the inferred
 * points of a block (outputs, a flush, then their status, as every write). */
static is_code infer_pass(refiner *r, MPI_Comm comm, uint64_t *inferred, int *signal,
                          is_error *err)
{
    uint64_t lo, hi;
    share(comm, r->points, &lo, &hi);
    size_t outputs = offset_of(r, r->variables); /* values a point */
    /* (array outputs: fewer points a block, no more values) */
    uint64_t block = outputs <= r->variables ? INFER_BLOCK
                     : INFER_BLOCK * r->variables / outputs ? INFER_BLOCK * r->variables / outputs
                                                            : 1;
    uint8_t *status = malloc(INFER_BLOCK), *out_status = malloc(INFER_BLOCK);
    double *values = malloc(block * (outputs ? outputs : 1) * sizeof *values);
    uint64_t *index = malloc(INFER_BLOCK * sizeof *index);
    is_code rc = status && out_status && values && index
                     ? IS_OK
                     : is_error_set(err, IS_NOMEM, "out of memory");
    size_t status_var = r->variables;
    *inferred = 0;
    *signal = 0;
    for (uint64_t at = lo; at < hi && rc == IS_OK; at += block) {
        if ((*signal = is_signals_pending()))
            break;
        uint64_t m = hi - at < block ? hi - at : block;
        rc = is_results_read_raw(r->results, status_var, at, m, status, err);
        uint64_t found = 0;
        for (uint64_t i = 0; i < m && rc == IS_OK; i++) {
            if (status[i] != IS_POINT_PENDING)
                continue;
            if (infer(r, at + i, values, block, (size_t)found)) {
                out_status[found] = IS_POINT_INFERRED;
                index[found++] = at + i;
            }
            rc = r->rc;
        }
        if (rc == IS_OK)
            rc = is_results_write_points(r->results, index, found, values, block,
                                         out_status, NULL, err);
        *inferred += rc == IS_OK ? found : 0;
    }
    free(index);
    free(status);
    free(out_status);
    free(values);
    return rc;
}

/* --- the census ------------------------------------------------------------------- */

/* Is index x the middle (rounded down) of its cell of spacing S along axis k? Then c is
 * that cell's index. */
static int middle_along(const refiner *r, size_t k, uint64_t x, uint64_t S, uint64_t *c)
{
    uint64_t count = (r->n[k] - 1 + S - 1) / S;
    *c = x / S;
    if (*c >= count)
        return 0;
    uint64_t a = *c * S, b = a + S < r->n[k] - 1 ? a + S : r->n[k] - 1;
    return x == a + (b - a) / 2;
}

/* The cells of level m whose middle point is in lo .. hi - 1, into the census: each cell
 * is counted by the rank that holds its middle. */
static is_code count_level(refiner *r, unsigned m, uint64_t lo, uint64_t hi,
                           is_refine_census *census)
{
    uint64_t S = UINT64_C(1) << (r->levels - m), i[MAX_REFINED], c[MAX_REFINED];
    for (uint64_t p = lo; p < hi && r->rc == IS_OK; p++) {
        unravel(r, p, i);
        if (!middle_along(r, 0, i[0], S, &c[0])) { /* no middle in this row */
            p = (p / r->row_length + 1) * r->row_length - 1;
            continue;
        }
        int middle = 1;
        for (size_t k = 1; k < r->d && middle; k++)
            middle = middle_along(r, k, i[k], S, &c[k]);
        int64_t key;
        int state = middle ? cell_state(r, p, i, c, S, 1, &key) : CELL_UNKNOWN;
        if (state == CELL_UNKNOWN)
            continue;
        census->cells[m]++;
        if (state > CELL_AGREES)
            census->refined[m][state - 1]++;
    }
    return r->rc;
}

is_code is_refine_census_collect(is_results *results, const is_refine_settings *settings,
                                 MPI_Comm comm, is_refine_census *census, is_error *err)
{
    memset(census, 0, sizeof *census);
    census->levels = settings->levels;
    refiner r;
    is_code rc = refiner_init(&r, settings, results, err);
    uint64_t lo, hi;
    share(comm, r.points, &lo, &hi);
    for (unsigned m = 0; rc == IS_OK && m < settings->levels; m++) {
        refiner_set_level(&r, m + 1);
        rc = count_level(&r, m, lo, hi, census);
    }
    refiner_free(&r);
    if (comm == MPI_COMM_NULL)
        return rc;
    rc = is_collective_agree(rc, comm, err);
    int rank;
    MPI_Comm_rank(comm, &rank);
    void *in_place = MPI_IN_PLACE;
    if (rc == IS_OK) {
        MPI_Reduce(rank == 0 ? in_place : census->cells, census->cells, IS_REFINE_MAX_LEVELS,
                   MPI_UINT64_T, MPI_SUM, 0, comm);
        MPI_Reduce(rank == 0 ? in_place : census->refined, census->refined,
                   IS_REFINE_MAX_LEVELS * IS_REFINE_REASONS, MPI_UINT64_T, MPI_SUM, 0, comm);
    }
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

/* Pass `level`: a resumed schedule of the points pick wants; *stop when rank 0 says so. */
static is_code run_pass(const is_job *job, MPI_Comm comm, is_results *results, refiner *r,
                        unsigned level, const is_sched_options *options,
                        is_sched_result *result, int *stop, is_error *err)
{
    int rank;
    MPI_Comm_rank(comm, &rank);
    refiner_set_level(r, level);
    is_pending_filter filter = {pick, r};
    is_pending_map map = {0};
    uint64_t tally[IS_POINT_STATUS_COUNT];
    is_code rc = is_pending_scan_filtered(results, comm, &filter, &map, tally, err);
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
        pass.points = r->points;
        pass.filter = &filter;
        pass.label = label;
        is_sched_result one;
        rc = is_collective_agree(is_sched_run(job, comm, results, &pass, &one, err), comm, err);
        add_result(result, &one);
        *stop = rank == 0 && (one.stop_signal || one.rank_errors);
        MPI_Bcast(stop, 1, MPI_INT, 0, comm);
    }
    is_pending_free(&map);
    /* what this pass wrote is read by the next one, on every rank */
    if (rc == IS_OK)
        rc = is_collective_agree(is_results_sync(results, err), comm, err);
    MPI_Barrier(comm);
    return rc;
}

is_code is_refine_run(const is_job *job, MPI_Comm comm, is_results *results,
                      const is_sched_options *options, is_sched_result *result,
                      is_error *err)
{
    memset(result, 0, sizeof *result);
    double started = MPI_Wtime();
    int rank;
    MPI_Comm_rank(comm, &rank);
    is_refine_settings settings;
    is_refine_settings_of_job(job, &settings);
    refiner r;
    is_code rc = is_collective_agree(refiner_init(&r, &settings, results, err), comm, err);
    int stop = 0;
    for (unsigned level = 0; level <= job->refine_levels && rc == IS_OK && !stop; level++)
        rc = run_pass(job, comm, results, &r, level, options, result, &stop, err);
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
