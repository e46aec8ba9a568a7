/* summary.c: `impactsweep info` and the end-of-run summary (see summary.h). */
#include "summary.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "collective.h"
#include "engine.h"
#include "model.h"
#include "numtext.h"
#include "refine.h"
#include "results.h"

/* Points read at a time by a rank (status plus one variable as doubles: 9 MiB). */
#define SUMMARY_BLOCK (UINT64_C(1) << 20)
#define MAX_CATEGORIES 64
#define TEXT 1024

typedef struct variable_stats {
    char name[64];
    char meanings[TEXT];
    char shape[96];                      /* an array output's " [k: 5]"; else "" */
    int categorical;
    double fill;
    double min, max, sum, used;          /* reals and integers */
    double tally[MAX_CATEGORIES];        /* categories: computed points */
    double inferred[MAX_CATEGORIES];     /* categories: points a refinement inferred */
    int thresholded;                     /* a refine output with a threshold: */
    double threshold;
    double sides[2][3];                  /* points [computed, inferred][below, at or above,
                                            NaN] */
} variable_stats;

typedef struct axis_info {
    char name[64], scale[32];
    uint64_t count;
    double first, last;
    char names[512]; /* a swept choice: its names */
} axis_info;

struct is_summary {
    char path[TEXT], model[128], description[256], title[TEXT], version[64], commit[64];
    char references[1024];
    char ranks[32], start[64], end[64], state[64], piece[96];
    size_t axis_count, variable_count;
    axis_info axes[IS_GRID_MAX_AXES];
    variable_stats *vars;       /* the outputs */
    double tally[IS_POINT_STATUS_COUNT];
    uint64_t points;
    char *log;                  /* the run log, one line after the other */
    char refine[1024];          /* a refined sweep's outputs ("regime, energy >= 1") */
    is_refine_settings refinement;
    is_refine_census census;
};

static void append_log(const char *line, void *user)
{
    char **log = user;
    size_t old = *log ? strlen(*log) : 0, n = old + strlen(line) + 2;
    char *bigger = realloc(*log, n);
    if (!bigger)
        return;
    snprintf(bigger + old, n - old, "%s\n", line);
    *log = bigger;
}

static void describe(is_summary *s, is_results *r)
{
    is_results_attribute(r, "model", s->model, sizeof s->model);
    is_results_attribute(r, "model_description", s->description, sizeof s->description);
    is_results_attribute(r, "references", s->references, sizeof s->references);
    is_results_attribute(r, "title", s->title, sizeof s->title);
    is_results_attribute(r, "engine_version", s->version, sizeof s->version);
    is_results_attribute(r, "git_commit", s->commit, sizeof s->commit);
    is_results_attribute(r, "ranks", s->ranks, sizeof s->ranks);
    is_results_attribute(r, "start_time", s->start, sizeof s->start);
    is_results_attribute(r, "piece", s->piece, sizeof s->piece);
    s->points = is_results_point_count(r);
    s->axis_count = is_results_axis_count(r);
    for (size_t k = 0; k < s->axis_count; k++) {
        axis_info *a = &s->axes[k];
        snprintf(a->name, sizeof a->name, "%s", is_results_axis_name(r, k));
        is_results_axis_attribute(r, k, "scale", a->scale, sizeof a->scale);
        a->count = is_results_axis_length(r, k);
    }
    s->variable_count = is_results_variable_count(r) - 1;
    for (size_t v = 0; v < s->variable_count; v++) {
        const is_results_variable *var = is_results_variable_at(r, v);
        variable_stats *st = &s->vars[v];
        snprintf(st->name, sizeof st->name, "%s", var->name);
        snprintf(st->meanings, sizeof st->meanings, "%s", var->flag_meanings);
        st->categorical = var->type == IS_OUTPUT_CATEGORY;
        if (var->length > 1)
            snprintf(st->shape, sizeof st->shape, " [%s: %zu]", var->dimension, var->length);
        st->fill = var->fill;
        st->min = INFINITY;
        st->max = -INFINITY;
    }
}

/* A refined sweep's settings (levels 0: none), and which outputs have a threshold. */
static is_code refinement_of(is_summary *s, is_results *r, is_error *err)
{
    is_results_attribute(r, "refine", s->refine, sizeof s->refine);
    is_code rc = is_refine_settings_of_file(r, &s->refinement, err);
    for (size_t j = 0; rc == IS_OK && j < s->refinement.output_count; j++) {
        const is_refine_output *o = &s->refinement.outputs[j];
        if (!isnan(o->threshold)) {
            s->vars[o->output].thresholded = 1;
            s->vars[o->output].threshold = o->threshold;
        }
    }
    return rc;
}

/* This rank's share of the points, read block by block. */
static is_code scan(is_summary *s, is_results *r, uint64_t lo, uint64_t hi, is_error *err)
{
    uint64_t most = is_results_block_points(r, SUMMARY_BLOCK); /* (8 bytes a value) */
    uint64_t block = hi - lo < most ? hi - lo : most;
    double *status = malloc((block ? block : 1) * sizeof *status);
    double *values = malloc((block ? block : 1) * (SUMMARY_BLOCK / most + 1) * sizeof *values);
    is_code rc = status && values ? IS_OK : is_error_set(err, IS_NOMEM, "out of memory");
    size_t status_var = s->variable_count;
    for (uint64_t at = lo; at < hi && rc == IS_OK; at += block) {
        uint64_t n = hi - at < block ? hi - at : block;
        rc = is_results_read_doubles(r, status_var, at, n, status, err);
        for (uint64_t i = 0; rc == IS_OK && i < n; i++)
            if (status[i] >= 0 && status[i] < IS_POINT_STATUS_COUNT)
                s->tally[(int)status[i]]++;
        for (size_t v = 0; v < s->variable_count && rc == IS_OK; v++) {
            variable_stats *st = &s->vars[v];
            size_t length = is_results_variable_at(r, v)->length; /* (an array: all values) */
            rc = is_results_read_doubles(r, v, at, n, values, err);
            for (uint64_t e = 0; rc == IS_OK && e < n * length; e++) {
                uint64_t i = e / length;
                double x = values[e];
                if (status[i] == IS_POINT_INFERRED && st->categorical && x >= 0 &&
                    x < MAX_CATEGORIES)
                    st->inferred[(int)x]++;
                if (st->thresholded && (status[i] == IS_POINT_DONE ||
                                        status[i] == IS_POINT_INFERRED))
                    st->sides[status[i] == IS_POINT_INFERRED][isnan(x) ? 2 : x >= st->threshold]++;
                if (status[i] != IS_POINT_DONE || !isfinite(x) || x == st->fill)
                    continue; /* not computed, or "not applicable here" */
                if (st->categorical) {
                    if (x >= 0 && x < MAX_CATEGORIES)
                        st->tally[(int)x]++;
                    continue;
                }
                st->min = x < st->min ? x : st->min;
                st->max = x > st->max ? x : st->max;
                st->sum += x;
                st->used++;
            }
        }
    }
    free(status);
    free(values);
    return rc;
}

/* Sums, minima and maxima of every rank's share, on rank 0. */
static void reduce(is_summary *s, MPI_Comm comm)
{
    int rank;
    MPI_Comm_rank(comm, &rank);
    void *in_place = MPI_IN_PLACE;
    MPI_Reduce(rank == 0 ? in_place : s->tally, s->tally, IS_POINT_STATUS_COUNT, MPI_DOUBLE,
               MPI_SUM, 0, comm);
    for (size_t v = 0; v < s->variable_count; v++) {
        variable_stats *st = &s->vars[v];
        enum { SUMS = 2 + 2 * MAX_CATEGORIES + 6 };
        double sums[SUMS] = {st->sum, st->used};
        memcpy(sums + 2, st->tally, sizeof st->tally);
        memcpy(sums + 2 + MAX_CATEGORIES, st->inferred, sizeof st->inferred);
        memcpy(sums + 2 + 2 * MAX_CATEGORIES, st->sides, sizeof st->sides);
        MPI_Reduce(rank == 0 ? in_place : sums, sums, SUMS, MPI_DOUBLE, MPI_SUM, 0, comm);
        MPI_Reduce(rank == 0 ? in_place : &st->min, &st->min, 1, MPI_DOUBLE, MPI_MIN, 0, comm);
        MPI_Reduce(rank == 0 ? in_place : &st->max, &st->max, 1, MPI_DOUBLE, MPI_MAX, 0, comm);
        st->sum = sums[0];
        st->used = sums[1];
        memcpy(st->tally, sums + 2, sizeof st->tally);
        memcpy(st->inferred, sums + 2 + MAX_CATEGORIES, sizeof st->inferred);
        memcpy(st->sides, sums + 2 + 2 * MAX_CATEGORIES, sizeof st->sides);
    }
}

is_code is_summary_collect(const char *path, MPI_Comm comm, is_summary **out, is_error *err)
{
    *out = NULL;
    int rank = 0, size = 1;
    if (comm != MPI_COMM_NULL) {
        MPI_Comm_rank(comm, &rank);
        MPI_Comm_size(comm, &size);
    }
    is_code rc = IS_OK;
    if (rank == 0 && access(path, R_OK) != 0)
        rc = is_error_set(err, errno == EIO ? IS_IO : IS_NOT_RESULT,
                          "%s: cannot read the file: %s", path, strerror(errno));
    rc = is_collective_share(rc, 0, comm, err);
    if (rc != IS_OK)
        return rc;
    is_results *r = NULL;
    rc = is_collective_agree(is_results_open(path, comm, IS_RESULTS_READ, &r, err), comm, err);
    if (rc != IS_OK)
        return rc;
    is_summary *s = calloc(1, sizeof *s);
    if (s)
        s->vars = calloc(is_results_variable_count(r), sizeof *s->vars);
    rc = s && s->vars ? IS_OK : is_error_set(err, IS_NOMEM, "out of memory");
    if (rc == IS_OK) {
        snprintf(s->path, sizeof s->path, "%s", path);
        describe(s, r);
        rc = refinement_of(s, r, err);
    }
    if (rc == IS_OK) {
        uint64_t n = s->points, p = (uint64_t)size, k = (uint64_t)rank;
        rc = scan(s, r, n / p * k + n % p * k / p, n / p * (k + 1) + n % p * (k + 1) / p, err);
    }
    rc = is_collective_agree(rc, comm, err);
    if (rc == IS_OK && comm != MPI_COMM_NULL)
        reduce(s, comm);
    if (rc == IS_OK && s->refinement.levels) /* which cells were refined, and why */
        rc = is_collective_agree(
            is_refine_census_collect(r, &s->refinement, comm, &s->census, err), comm, err);
    if (rc == IS_OK && rank == 0) {
        for (size_t k = 0; k < s->axis_count && rc == IS_OK; k++) {
            axis_info *a = &s->axes[k];
            if (strcmp(a->scale, "choice") == 0) {
                rc = is_results_coordinate_names(r, k, a->names, sizeof a->names, err);
                continue;
            }
            rc = is_results_coordinates(r, k, 0, 1, &a->first, 0, err);
            if (rc == IS_OK)
                rc = is_results_coordinates(r, k, a->count - 1, 1, &a->last, 0, err);
        }
        if (rc == IS_OK)
            rc = is_results_get_state(r, s->state, sizeof s->state, NULL, s->end, sizeof s->end,
                                      err);
        if (rc == IS_OK)
            rc = is_results_read_log(r, append_log, &s->log, err);
    }
    rc = is_collective_share(rc, 0, comm, err);
    is_results_close(&r, NULL);
    if (rc == IS_OK && rank == 0)
        *out = s;
    else
        is_summary_free(&s);
    return rc;
}

void is_summary_free(is_summary **summary)
{
    if (!summary || !*summary)
        return;
    free((*summary)->vars);
    free((*summary)->log);
    free(*summary);
    *summary = NULL;
}

/* What one level's refined cells were refined for: "30 classes differ, 2 near x >= 1". */
static void print_reasons(const is_summary *s, const uint64_t *refined, FILE *out)
{
    const char *sep = "";
    for (int why = 0; why < IS_REFINE_REASONS; why++) {
        if (!refined[why])
            continue;
        fprintf(out, "%s%llu ", sep, (unsigned long long)refined[why]);
        sep = ", ";
        if (why == IS_REFINE_FAILED)
            fprintf(out, "with a failed corner");
        else if (why == IS_REFINE_CLASSES)
            fprintf(out, "where the classes differ");
        else {
            const is_refine_output *o = &s->refinement.outputs[why - IS_REFINE_THRESHOLD];
            fprintf(out, "near %s >= %s", s->vars[o->output].name, IS_NUM(o->threshold));
        }
    }
    fprintf(out, "\n");
}

/* A refined sweep: its settings and, per level, the cells refined and why (the census
 * of the file's points as they stand). */
static void print_refinement(const is_summary *s, FILE *out)
{
    const is_refine_settings *r = &s->refinement;
    fprintf(out, "refined: %s; %u levels over", s->refine, r->levels);
    for (size_t k = 0; k < s->axis_count; k++)
        if ((r->axes >> k) & 1)
            fprintf(out, " %s", s->axes[k].name);
    int thresholds = 0;
    for (size_t j = 0; j < r->output_count; j++)
        thresholds |= !isnan(r->outputs[j].threshold);
    if (thresholds) /* the margin counts only there */
        fprintf(out, "; refine_margin %s", IS_NUM(r->margin));
    fprintf(out, "\n");
    uint64_t total[IS_REFINE_REASONS] = {0}, cells = 0, refined = 0;
    for (unsigned m = 0; m < r->levels; m++) {
        uint64_t here = 0;
        for (int why = 0; why < IS_REFINE_REASONS; why++) {
            here += s->census.refined[m][why];
            total[why] += s->census.refined[m][why];
        }
        cells += s->census.cells[m];
        refined += here;
        fprintf(out, "  level %u cells (spacing %llu): %llu with every corner computed, %llu "
                     "refined%s",
                m, 1ull << (r->levels - m), (unsigned long long)s->census.cells[m],
                (unsigned long long)here, here ? ": " : "\n");
        if (here)
            print_reasons(s, s->census.refined[m], out);
    }
    fprintf(out, "  all levels: %llu cells, %llu refined%s", (unsigned long long)cells,
            (unsigned long long)refined, refined ? ": " : "\n");
    if (refined)
        print_reasons(s, total, out);
    for (size_t v = 0; v < s->variable_count; v++) {
        const variable_stats *st = &s->vars[v];
        if (!st->thresholded)
            continue;
        fprintf(out, "  %s >= %s: %.0f computed, %.0f inferred; below: %.0f computed, %.0f "
                     "inferred",
                st->name, IS_NUM(st->threshold), st->sides[0][1], st->sides[1][1], st->sides[0][0],
                st->sides[1][0]);
        if (st->sides[0][2] + st->sides[1][2] > 0)
            fprintf(out, "; NaN: %.0f computed, %.0f inferred", st->sides[0][2],
                    st->sides[1][2]);
        fprintf(out, "\n");
    }
}

void is_summary_print(const is_summary *s, int log, FILE *out)
{
    fprintf(out, "file:    %s\nmodel:   %s (%s)\n", s->path, s->model, s->description);
    if (*s->references)
        fprintf(out, "papers:  %s\n", s->references);
    if (*s->title)
        fprintf(out, "title:   %s\n", s->title);
    fprintf(out, "engine:  impactsweep %s (%s), created on %s ranks\n", s->version, s->commit,
            s->ranks);
    fprintf(out, "times:   started %s, last ended %s, state %s\n", s->start,
            *s->end ? s->end : "-", s->state);
    if (*s->piece && strcmp(s->piece, "0/1") != 0)
        fprintf(out, "piece:   %s of the grid\n", s->piece);
    fprintf(out, "axes:\n");
    for (size_t k = 0; k < s->axis_count; k++) {
        const axis_info *a = &s->axes[k];
        if (strcmp(a->scale, "choice") == 0)
            fprintf(out, "  %-14s %llu choices: %s\n", a->name, (unsigned long long)a->count,
                    a->names);
        else
            fprintf(out, "  %-14s %llu values from %s to %s (%s)\n", a->name,
                    (unsigned long long)a->count, IS_NUM(a->first), IS_NUM(a->last), a->scale);
    }
    double failed = 0;
    for (int st = 0; st < IS_POINT_STATUS_COUNT; st++)
        failed += is_point_failed(st) ? s->tally[st] : 0;
    fprintf(out, "points:  %llu total, %.0f done, %.0f failed, %.0f pending",
            (unsigned long long)s->points, s->tally[IS_POINT_DONE], failed,
            s->tally[IS_POINT_PENDING]);
    if (s->tally[IS_POINT_INFERRED]) /* a refined sweep's points left to their cell */
        fprintf(out, ", %.0f inferred", s->tally[IS_POINT_INFERRED]);
    fprintf(out, "\n");
    for (int st = 0; st < IS_POINT_STATUS_COUNT; st++)
        if (is_point_failed(st) && s->tally[st])
            fprintf(out, "  %.0f %s\n", s->tally[st], is_point_status_name(st));
    if (s->refinement.levels)
        print_refinement(s, out);
    int arrays = 0;
    for (size_t v = 0; v < s->variable_count; v++)
        arrays |= s->vars[v].shape[0] != '\0';
    fprintf(out, "fields (over computed points%s):\n  %-14s %14s %14s %14s\n",
            arrays ? "; an array output [dimension: length] over all its values" : "", "name",
            "min", "mean", "max");
    for (size_t v = 0; v < s->variable_count; v++) {
        const variable_stats *st = &s->vars[v];
        if (st->categorical) {
            char meanings[TEXT];
            snprintf(meanings, sizeof meanings, "%s", st->meanings);
            fprintf(out, "  %-14s", st->name);
            int index = 0;
            for (char *save = NULL, *tok = strtok_r(meanings, " ", &save); tok;
                 tok = strtok_r(NULL, " ", &save), index++) {
                int in = index < MAX_CATEGORIES;
                fprintf(out, " %s: %.0f", tok, in ? st->tally[index] : 0.0);
                if (in && st->inferred[index] > 0)
                    fprintf(out, " (+%.0f inferred)", st->inferred[index]);
            }
            fprintf(out, "%s\n", st->shape);
        } else if (st->used > 0) {
            fprintf(out, "  %-14s %14.6g %14.6g %14.6g%s\n", st->name, st->min,
                    st->sum / st->used, st->max, st->shape);
        } else {
            fprintf(out, "  %-14s %14s %14s %14s%s\n", st->name, "-", "-", "-", st->shape);
        }
    }
    if (log)
        is_summary_print_log(s, out);
}

void is_summary_print_log(const is_summary *s, FILE *out)
{
    if (s->log)
        fprintf(out, "log:\n%s", s->log);
}
