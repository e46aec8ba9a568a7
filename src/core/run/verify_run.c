/* verify_run.c: self-verification during a run, and its summary (verify_run.h). */
#include "verify_run.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collective.h"
#include "engine.h"
#include "numtext.h"
#include "tolerance.h"

struct is_verify_run {
    const is_job *job;
    is_verification *file;
    uint64_t stride, seed, first; /* first: the file's first grid index */
    size_t width, np, no, nv;     /* nv: values per point (array outputs: their lengths) */
    double *rows;                 /* records kept, in slot order */
    uint64_t *slots;
    size_t count, capacity;
    double *main;                 /* a batch's sampled points: their results, n x nv */
    uint64_t *pending;            /* ... their rows */
    uint64_t *grid;               /* ... their grid indices */
};

is_code is_verify_run_create(is_verify_run **out, const is_job *job, is_verification *file,
                             is_error *err)
{
    *out = NULL;
    if (!file)
        return IS_OK;
    is_verify_run *v = calloc(1, sizeof *v);
    if (!v)
        return is_error_set(err, IS_NOMEM, "out of memory");
    v->job = job;
    v->file = file;
    v->stride = is_verification_stride_of(file);
    v->seed = is_verification_seed_of(file);
    v->first = job->piece_first;
    v->width = is_verification_width(file);
    v->np = job->model->param_count;
    v->no = job->model->output_count;
    v->nv = is_model_value_count(job->model);
    *out = v;
    return IS_OK;
}

void is_verify_run_free(is_verify_run **v)
{
    if (!v || !*v)
        return;
    free((*v)->rows);
    free((*v)->slots);
    free((*v)->main);
    free((*v)->pending);
    free((*v)->grid);
    free(*v);
    *v = NULL;
}

/* Room for `more` records (and as many sampled points of a batch). */
static is_code reserve(is_verify_run *v, size_t more, is_error *err)
{
    if (v->count + more <= v->capacity)
        return IS_OK;
    size_t want = (v->count + more) * 2;
    double *rows = realloc(v->rows, want * v->width * sizeof *rows);
    if (rows)
        v->rows = rows;
    uint64_t *slots = realloc(v->slots, want * sizeof *slots);
    if (slots)
        v->slots = slots;
    double *main = realloc(v->main, want * (v->nv ? v->nv : 1) * sizeof *main);
    if (main)
        v->main = main;
    uint64_t *pending = realloc(v->pending, want * sizeof *pending);
    if (pending)
        v->pending = pending;
    uint64_t *grid = realloc(v->grid, want * sizeof *grid);
    if (grid)
        v->grid = grid;
    if (!rows || !slots || !main || !pending || !grid)
        return is_error_set(err, IS_NOMEM, "out of memory for the verification records");
    v->capacity = want;
    return IS_OK;
}

/* Row r: the record of grid index g, its recomputation's status, then each output's
 * discrepancy (NULL: NaN); g == UINT64_MAX: an empty row, which clears its slot. */
static void fill(is_verify_run *v, size_t r, uint64_t g, double status, const double *d)
{
    double *row = v->rows + r * v->width;
    memset(row, 0, v->width * sizeof *row);
    if (g == UINT64_MAX)
        return;
    row[0] = (double)(g + 1);
    row[1] = status;
    for (size_t o = 0; o < v->no; o++)
        row[2 + o] = d ? d[o] : NAN;
    is_verification_seal(row, v->width);
}

/* A new row for `slot` (room reserved). */
static size_t keep(is_verify_run *v, uint64_t g, uint64_t slot, double status, const double *d)
{
    fill(v, v->count, g, status, d);
    v->slots[v->count] = slot;
    return v->count++;
}

/* ok[i] for the points i < count of the evaluator's room whose ok[i] is `which`: 1 when the
 * model's validate admits the point, else 0. */
static is_code validate(is_evaluator *ev, size_t count, uint8_t *ok, uint8_t which,
                        is_error *err)
{
    for (size_t i = 0; i < count; i++) {
        if (ok[i] != which)
            continue;
        size_t refused = 0;
        is_error why;
        is_code rc = is_evaluator_validate(ev, i, 1, &refused, &why, err);
        if (rc != IS_OK)
            return rc;
        ok[i] = refused == i + 1;
    }
    return IS_OK;
}

/* The records of the m_count recomputed points, into their placeholders: ok[j] says
 * whether point j was admitted (its results in out, model.h's layout for tight points,
 * st[k], in order). An array output's discrepancy is its largest element's. */
static is_code record(is_verify_run *v, size_t m_count, const uint8_t *ok, const double *out,
                      const uint8_t *st, size_t tight, is_error *err)
{
    const is_model *m = v->job->model;
    double *d = malloc((v->no ? v->no : 1) * sizeof *d);
    if (!d)
        return is_error_set(err, IS_NOMEM, "out of memory");
    for (size_t j = 0, k = 0; j < m_count; j++) {
        size_t r = (size_t)v->pending[j];
        if (!ok[j]) {
            fill(v, r, v->grid[j], IS_POINT_FAILED_INVALID, NULL);
            continue;
        }
        uint8_t got = st[k];
        for (size_t o = 0, at = 0; o < v->no; o++) {
            size_t length = is_output_length(&m->outputs[o]);
            d[o] = 0.0;
            for (size_t e = 0; e < length; e++)
                d[o] = fmax(d[o], is_tolerance_discrepancy(&m->outputs[o],
                                                           v->main[j * v->nv + at + e],
                                                           out[at * tight + k * length + e]));
            at += length;
        }
        k++;
        if (got == IS_POINT_PENDING) /* stopped: no record */
            fill(v, r, UINT64_MAX, 0, NULL);
        else
            fill(v, r, v->grid[j], got, got == IS_POINT_DONE ? d : NULL);
    }
    free(d);
    return IS_OK;
}

is_code is_verify_run_batch(is_verify_run *v, is_evaluator *ev, uint64_t at, uint64_t n,
                            const uint64_t *index, const double *outputs, size_t stride,
                            size_t from, const uint8_t *status, is_error *err)
{
    const is_model *m = v->job->model;
    double *room = is_evaluator_points(ev), *point = malloc(v->np * sizeof *point);
    if (!point)
        return is_error_set(err, IS_NOMEM, "out of memory");
    size_t m_count = 0;
    is_code rc = IS_OK;
    for (uint64_t i = 0; i < n && rc == IS_OK; i++) {
        uint64_t g = v->first + (index ? index[i] : at + i);
        if (!is_verification_sampled(v->stride, v->seed, g))
            continue;
        if ((rc = reserve(v, 1, err)) != IS_OK)
            break;
        uint64_t slot = is_verification_slot(v->file, g);
        if (status[i] != IS_POINT_DONE) {
            keep(v, UINT64_MAX, slot, 0, NULL); /* no record: the point has no result */
            continue;
        }
        is_grid_point(&v->job->grid, g, point);
        if (!is_tolerance_tighten(m, point, IS_TOLERANCE_FACTOR, 1, room + m_count * v->np)) {
            keep(v, g, slot, IS_VERIFICATION_UNVERIFIABLE, NULL);
            continue;
        }
        for (size_t o = 0, at = 0; o < v->no; o++) {
            size_t length = is_output_length(&m->outputs[o]);
            memcpy(v->main + m_count * v->nv + at, outputs + at * stride + (from + i) * length,
                   length * sizeof *outputs);
            at += length;
        }
        v->grid[m_count] = g;
        v->pending[m_count++] = keep(v, UINT64_MAX, slot, 0, NULL); /* filled below */
    }
    /* the recomputations, each checked by the model's validate first; one whose other
     * method the model refuses there is recomputed with its own */
    uint8_t *ok = rc == IS_OK && m_count ? calloc(m_count, 1) : NULL;
    if (rc == IS_OK && m_count && !ok)
        rc = is_error_set(err, IS_NOMEM, "out of memory");
    if (rc == IS_OK)
        rc = validate(ev, m_count, ok, 0, err);
    for (size_t j = 0; rc == IS_OK && j < m_count; j++)
        if (!ok[j]) {
            is_grid_point(&v->job->grid, v->grid[j], point);
            is_tolerance_tighten(m, point, IS_TOLERANCE_FACTOR, 0, room + j * v->np);
            ok[j] = 2; /* to be validated again */
        }
    if (rc == IS_OK)
        rc = validate(ev, m_count, ok, 2, err);
    free(point);
    const double *out = NULL;
    const uint8_t *st = NULL;
    size_t tight = 0; /* the admissible ones, moved to the front */
    for (size_t i = 0; rc == IS_OK && i < m_count; i++)
        if (ok[i] && tight++ != i)
            memmove(room + (tight - 1) * v->np, room + i * v->np, v->np * sizeof *room);
    if (rc == IS_OK && tight)
        rc = is_evaluator_eval(ev, tight, &out, &st, err);
    if (rc == IS_OK)
        rc = record(v, m_count, ok, out, st, tight, err);
    free(ok);
    return rc;
}

is_code is_verify_run_flush(is_verify_run *v, is_error *err)
{
    if (!v)
        return IS_OK;
    is_code rc = IS_OK;
    for (size_t r = 0; r < v->count && rc == IS_OK;) {
        size_t run = 1; /* consecutive slots: one write */
        while (r + run < v->count && v->slots[r + run] == v->slots[r] + run)
            run++;
        rc = is_verification_write(v->file, v->slots[r], run, v->rows + r * v->width, err);
        r += run;
    }
    v->count = 0;
    return rc;
}

/* Appends to a growing text. */
static void say(char **text, size_t *used, size_t *size, const char *format, ...)
{
    va_list ap;
    va_start(ap, format);
    char line[512];
    int n = vsnprintf(line, sizeof line, format, ap);
    va_end(ap);
    if (n < 0)
        return;
    size_t len = strlen(line);
    if (*used + len + 1 > *size) {
        size_t want = (*size + len + 1) * 2;
        char *grown = realloc(*text, want);
        if (!grown)
            return;
        *text = grown;
        *size = want;
    }
    memcpy(*text + *used, line, len + 1);
    *used += len;
}

is_code is_verify_run_describe(is_results *r, const is_model *model, char **text,
                               uint64_t *beyond, is_error *err)
{
    *text = NULL;
    *beyond = 0;
    size_t used = 0, size = 0;
    is_verification *v = NULL;
    is_code rc = is_verification_open(r, &v, err);
    if (rc != IS_OK)
        return rc;
    if (!v) { /* said only where verify was asked: a model without a tolerance */
        char *job = is_results_job_text(r);
        int asked = job && strstr(job, "\nverify = ") && !strstr(job, "\nverify = 0\n");
        free(job);
        char name[128];
        is_results_attribute(r, "model", name, sizeof name);
        if (asked)
            say(text, &used, &size,
                "verification: none: model %s has no tolerance parameter, so its points "
                "cannot be recomputed tighter (it marks none with IS_PARAM_TOLERANCE)\n",
                model ? model->name : name);
        return IS_OK;
    }
    is_verification_summary s;
    rc = is_verification_summarize(v, &s, err);
    is_verification_close(&v);
    if (rc != IS_OK)
        return rc;
    *beyond = s.beyond;
    say(text, &used, &size,
        "verification: %s of the points (1 in %s), recomputed with each tolerance / %s "
        "(and another method where the model has them): %llu checked, %llu beyond "
        "verify_tolerance %s%s\n",
        IS_NUM(s.fraction), IS_NUM(1.0 / s.fraction), IS_NUM(IS_TOLERANCE_FACTOR),
        (unsigned long long)s.checked, (unsigned long long)s.beyond, IS_NUM(s.tolerance),
        s.beyond ? " (run --strict exits 3)" : "");
    if (s.failed)
        say(text, &used, &size, "  %llu recomputations failed (their status is in the records)\n",
            (unsigned long long)s.failed);
    if (s.unverifiable)
        say(text, &used, &size,
            "  %llu sampled points not verifiable: no tolerance parameter applies to them (an "
            "exact method)\n",
            (unsigned long long)s.unverifiable);
    if (s.checked) {
        say(text, &used, &size, "  %-16s %14s %14s %8s\n", "output", "largest", "at point",
            "beyond");
        for (size_t o = 0; o < s.outputs; o++) {
            char at[32] = "-";
            if (s.largest[o] > 0)
                snprintf(at, sizeof at, "%llu", (unsigned long long)s.largest_at[o]);
            say(text, &used, &size, "  %-16s %14.3g %14s %8llu\n",
                is_results_variable_at(r, o)->name, s.largest[o], at,
                (unsigned long long)s.over[o]);
        }
    }
    is_verification_summary_free(&s);
    return IS_OK;
}

/* Rank 0 of the merge: the sound records of `in`, each into its row of `out`. */
static is_code copy_records(is_verification *in, is_verification *out, const char *path,
                            is_error *err)
{
    size_t width = is_verification_width(in);
    double *rows = malloc(4096 * width * sizeof *rows);
    if (!rows)
        return is_error_set(err, IS_NOMEM, "out of memory");
    is_code rc = IS_OK;
    uint64_t slots = is_verification_slots(in);
    for (uint64_t at = 0; at < slots && rc == IS_OK; at += 4096) {
        uint64_t n = slots - at < 4096 ? slots - at : 4096, g = 0;
        rc = is_verification_read(in, at, n, rows, err);
        for (uint64_t i = 0; i < n && rc == IS_OK; i++) {
            int found = is_verification_record(in, at + i, rows + i * width, &g);
            if (found < 0)
                rc = is_error_set(err, IS_DAMAGED,
                                  "%s is damaged: its verification record in row %llu does not "
                                  "match its checksum or its place",
                                  path, (unsigned long long)(at + i));
            else if (found)
                rc = is_verification_write(out, is_verification_slot(out, g), 1,
                                           rows + i * width, err);
        }
    }
    free(rows);
    return rc;
}

is_code is_verify_run_merge(is_results *from, is_results *to, MPI_Comm comm, is_error *err)
{
    int rank;
    MPI_Comm_rank(comm, &rank);
    is_verification *in = NULL, *out = NULL;
    is_code rc = is_verification_open(from, &in, err);
    if (rc == IS_OK)
        rc = is_verification_open(to, &out, err);
    int same = in && out && is_verification_stride_of(in) == is_verification_stride_of(out) &&
               is_verification_seed_of(in) == is_verification_seed_of(out) &&
               is_verification_width(in) == is_verification_width(out);
    if (rc == IS_OK && same && rank == 0)
        rc = copy_records(in, out, is_results_path(from), err);
    is_verification_close(&in);
    is_verification_close(&out);
    return is_collective_share(rc, 0, comm, err);
}
