/* job_refine.c: a job's refinement keys resolved against its axes and the
 * model's outputs (the run itself is refine.c). */
#include "job_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* --- refinement (the run itself is refine.c)
 * --------------------------------------------------------------------- */

static const char *axis_name(const is_job *job, size_t k)
{
    return job->model->params[job->grid.axes[k].param].name;
}

static const char *axis_name_of(const void *job, size_t k)
{
    return axis_name(job, k);
}

static int is_choice_axis(const is_job *job, size_t k)
{
    return job->model->params[job->grid.axes[k].param].type == IS_PARAM_CHOICE;
}

static is_code resolve_axes(is_job *job, is_error *err)
{
    const char *spec = job->refine_spec[2], *origin = job->refine_origin[2];
    job->refine_axes = 0;
    if (!spec) { /* every axis with an order */
        for (size_t k = 0; k < job->grid.axis_count; k++)
            if (!is_choice_axis(job, k) && job->grid.axes[k].count > 1)
                job->refine_axes |= 1u << k;
        return IS_OK;
    }
    char known[1024];
    job_list_names(known, sizeof known, job->grid.axis_count, axis_name_of, job);
    for (const char *p = spec; *p;) {
        size_t skip = strspn(p, ", \t"), len;
        p += skip;
        if (!*p)
            break;
        len = strcspn(p, ", \t");
        size_t k = 0;
        while (k < job->grid.axis_count &&
               !(strlen(axis_name(job, k)) == len && strncmp(axis_name(job, k), p, len) == 0))
            k++;
        if (k == job->grid.axis_count)
            return is_error_set(err, IS_JOB,
                                "%s: [sweep] refine_axes: '%.*s' is not an axis of the sweep "
                                "(axes: %s)",
                                origin, (int)len, p, *known ? known : "none");
        if (is_choice_axis(job, k))
            return is_error_set(err, IS_JOB,
                                "%s: [sweep] refine_axes: '%s' is a choice axis: its values "
                                "have no order to refine between (it is swept in full)",
                                origin, axis_name(job, k));
        job->refine_axes |= 1u << k;
        p += len;
    }
    return IS_OK;
}

/* One item of [sweep] refine, "NAME" or "NAME >= NUMBER" (blanks trimmed), into
 * job->refine_outputs; `item` is modified. `spec` is the whole value, for messages. */
static is_code resolve_output(is_job *job, char *item, const char *spec, int single, is_error *err)
{
    const is_model *model = job->model;
    const char *origin = job->refine_origin[0];
    char *name = job_trim(item), *number = NULL, *at = strstr(name, ">=");
    if (at) {
        *at = '\0';
        number = job_trim(at + 2);
        name = job_trim(name);
    }
    if (!*name)
        return is_error_set(err, IS_JOB,
                            "%s: [sweep] refine = '%s': an empty item (expected OUTPUT or "
                            "OUTPUT >= NUMBER, comma-separated)",
                            origin, spec);
    if (strcspn(name, "<>=! \t") != strlen(name))
        return is_error_set(err, IS_JOB,
                            "%s: [sweep] refine = '%s': '%s': expected OUTPUT or OUTPUT >= "
                            "NUMBER, comma-separated",
                            origin, spec, name);
    int o = is_model_output_index(model, name);
    if (o < 0) {
        char known[2048];
        job_list_names(known, sizeof known, model->output_count, job_output_name, model);
        if (single)
            return is_error_set(err, IS_JOB,
                                "%s: [sweep] refine = '%s': model %s has no such output "
                                "(outputs: %s)",
                                origin, spec, model->name, known);
        return is_error_set(err, IS_JOB,
                            "%s: [sweep] refine = '%s': '%s': model %s has no such output "
                            "(outputs: %s)",
                            origin, spec, name, model->name, known);
    }
    for (size_t i = 0; i < job->refine_output_count; i++)
        if (job->refine_outputs[i].output == o)
            return is_error_set(err, IS_JOB, "%s: [sweep] refine = '%s': %s is named twice", origin,
                                spec, name);
    if (job->refine_output_count == IS_REFINE_MAX_OUTPUTS)
        return is_error_set(err, IS_JOB, "%s: [sweep] refine = '%s': at most %d outputs", origin,
                            spec, IS_REFINE_MAX_OUTPUTS);
    const is_output *out = &model->outputs[o];
    if (out->length > 1) /* (a class is one value's) */
        return is_error_set(err, IS_JOB,
                            "%s: [sweep] refine = '%s': %s is an array output (%zu values a "
                            "point); refinement classifies points by scalar outputs only",
                            origin, spec, name, out->length);
    double threshold = NAN;
    if (number && !job_parse_real(number, &threshold))
        return is_error_set(err, IS_JOB,
                            "%s: [sweep] refine = '%s': %s >= '%s': expected a finite number",
                            origin, spec, name, number);
    if (number && out->type == IS_OUTPUT_CATEGORY)
        return is_error_set(err, IS_JOB,
                            "%s: [sweep] refine = '%s': %s is categorical (its categories are "
                            "the classes): remove '>= %s'",
                            origin, spec, name, number);
    job->refine_outputs[job->refine_output_count++] = (is_refine_output){o, threshold};
    return IS_OK;
}

/* [sweep] refine_threshold: the threshold of the one output refine names (given there
 * with '>=' or here, not both); every real or integer output needs one. */
static is_code resolve_threshold(is_job *job, is_error *err)
{
    const char *threshold = job->refine_spec[1], *where = job->refine_origin[1];
    is_refine_output *first = &job->refine_outputs[0];
    const is_output *out = &job->model->outputs[first->output];
    if (threshold && job->refine_output_count > 1)
        return is_error_set(err, IS_JOB,
                            "%s: [sweep] refine_threshold: refine names %zu outputs; give each "
                            "real or integer one its threshold there ('NAME >= T')",
                            where, job->refine_output_count);
    if (threshold && out->type == IS_OUTPUT_CATEGORY)
        return is_error_set(err, IS_JOB,
                            "%s: [sweep] refine_threshold: %s is categorical (its categories "
                            "are the classes); remove the threshold",
                            where, out->name);
    if (threshold && !isnan(first->threshold))
        return is_error_set(err, IS_JOB,
                            "%s: [sweep] refine_threshold: the threshold of %s is given in "
                            "refine already ('%s')",
                            where, out->name, job->refine_spec[0]);
    if (threshold && !job_parse_real(threshold, &first->threshold))
        return is_error_set(err, IS_JOB,
                            "%s: [sweep] refine_threshold = '%s': expected a finite number", where,
                            threshold);
    for (size_t i = 0; i < job->refine_output_count; i++) {
        const is_refine_output *r = &job->refine_outputs[i];
        const is_output *o = &job->model->outputs[r->output];
        if (o->type == IS_OUTPUT_CATEGORY || !isnan(r->threshold))
            continue;
        const char *kind = o->type == IS_OUTPUT_REAL ? "a real" : "an integer";
        if (job->refine_output_count == 1)
            return is_error_set(err, IS_JOB,
                                "%s: [sweep] refine = '%s': %s is %s output: give "
                                "[sweep] refine_threshold too (its class is value >= "
                                "threshold), or refine on a categorical output",
                                job->refine_origin[0], job->refine_spec[0], o->name, kind);
        return is_error_set(err, IS_JOB,
                            "%s: [sweep] refine = '%s': %s is %s output: give its threshold "
                            "('%s >= T': its class is value >= T)",
                            job->refine_origin[0], job->refine_spec[0], o->name, kind, o->name);
    }
    return IS_OK;
}

/* [sweep] refine: the outputs whose classes decide, comma-separated. */
static is_code resolve_outputs(is_job *job, is_error *err)
{
    const char *spec = job->refine_spec[0];
    char *items = job_copy_string(spec);
    if (!items)
        return is_error_set(err, IS_NOMEM, "out of memory");
    job->refine_output_count = 0;
    int single = strchr(spec, ',') == NULL;
    is_code rc = IS_OK;
    for (char *item = items, *next; rc == IS_OK && item; item = next) {
        next = strchr(item, ',');
        if (next)
            *next++ = '\0';
        rc = resolve_output(job, item, spec, single, err);
    }
    free(items);
    return rc == IS_OK ? resolve_threshold(job, err) : rc;
}

/* One axis refined at least and IS_REFINE_MAX_AXES at most, each with 2^levels + 1
 * values at least (so that the first pass, every 2^levels-th value, has two of it). */
static is_code check_refined_axes(const is_job *job, unsigned levels, int levels_given,
                                  is_error *err)
{
    const char *origin = job->refine_origin[0];
    const char *where = job->refine_origin[2][0] ? job->refine_origin[2] : origin;
    int refined = 0;
    for (size_t k = 0; k < job->grid.axis_count; k++)
        refined += (job->refine_axes >> k) & 1;
    if (refined == 0)
        return is_error_set(err, IS_JOB,
                            "%s: [sweep] refine: no axis to refine (it needs an axis of real "
                            "or integer values with two values or more)",
                            where);
    if (refined > IS_REFINE_MAX_AXES)
        return is_error_set(err, IS_JOB,
                            "%s: [sweep] refine: %d axes refined; at most %d (name them with "
                            "refine_axes: the others are swept in full)",
                            where, refined, IS_REFINE_MAX_AXES);
    for (size_t k = 0; k < job->grid.axis_count; k++) {
        if (!((job->refine_axes >> k) & 1))
            continue;
        uint64_t cells = job->grid.axes[k].count - 1;
        if (cells >= (UINT64_C(1) << levels))
            continue;
        int most = 0;
        while (most < 30 && (UINT64_C(2) << most) <= cells)
            most++;
        if (levels_given)
            return is_error_set(err, IS_JOB,
                                "%s: [sweep] refine_levels = %u: the first pass takes every "
                                "%llu-th value, but axis %s has %zu values (at least %llu "
                                "needed; at most %d levels here)",
                                job->refine_origin[3], levels,
                                (unsigned long long)(UINT64_C(1) << levels), axis_name(job, k),
                                job->grid.axes[k].count,
                                (unsigned long long)(UINT64_C(1) << levels) + 1, most);
        return is_error_set(err, IS_JOB,
                            "%s: [sweep] refine: axis %s has %zu values, too few for the "
                            "default refine_levels = %u (at least %llu); set refine_levels "
                            "(at most %d here) or refine_axes",
                            origin, axis_name(job, k), job->grid.axes[k].count, levels,
                            (unsigned long long)(UINT64_C(1) << levels) + 1, most);
    }
    return IS_OK;
}

/* Turns the refine keys kept by the setters (job->refine_spec) into refine_outputs,
 * refine_levels and refine_axes, once the model and the axes are known;
 * refine_levels stays 0 without [sweep] refine. IS_JOB (file:line: key: why) for an
 * unknown output, a threshold missing (real or integer output) or given (categorical
 * one), an unknown or choice axis, levels too many for an axis, or job-array pieces. */
is_code job_refine_resolve(is_job *job, is_error *err)
{
    static const char *const keys[5] = {"refine", "refine_threshold", "refine_axes",
                                        "refine_levels", "refine_margin"};
    const char *spec = job->refine_spec[0], *origin = job->refine_origin[0];
    unsigned given_levels = job->refine_levels;
    job->refine_levels = 0;
    if (!spec || !*spec) { /* refine = (empty): none */
        for (int i = 1; i < 5; i++)
            if (*job->refine_origin[i])
                return is_error_set(err, IS_JOB,
                                    "%s: [sweep] %s: only with [sweep] refine (the output "
                                    "whose class decides where to refine)",
                                    job->refine_origin[i], keys[i]);
        return IS_OK;
    }
    is_code rc = resolve_outputs(job, err);
    if (rc != IS_OK)
        return rc;
    rc = resolve_axes(job, err);
    if (rc != IS_OK)
        return rc;
    unsigned levels = given_levels ? given_levels : IS_REFINE_DEFAULT_LEVELS;
    rc = check_refined_axes(job, levels, given_levels != 0, err);
    if (rc != IS_OK)
        return rc;
    if (job->piece_count > 1)
        return is_error_set(err, IS_JOB,
                            "%s: [sweep] refine: a refined sweep cannot be split into "
                            "job-array pieces (its passes read neighbouring cells across the "
                            "whole grid); run it as one job, on as many ranks as you like",
                            origin);
    job->refine_levels = levels;
    return IS_OK;
}
