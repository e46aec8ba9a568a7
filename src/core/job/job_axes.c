/* job_axes.c: a job's [axis.NAME] sections: value lists and ranges turned into
 * axes, with their order and repetition checked. */
#include "job_internal.h"
#include "suggest.h"

#include <ctype.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "numtext.h"

/* An item left empty between commas ("1,,2", a comma first or last): a value missing,
 * refused as an empty `key =` is, rather than read as the list without it. Returns the
 * 1-based number of the first empty item, or 0. */
static size_t empty_list_item(const char *text)
{
    size_t item = 1;
    int filled = 0;
    for (const char *c = text;; c++) {
        if (*c == ',' || *c == '\0') {
            if (!filled && (*c == ',' || item > 1))
                return item;
            if (*c == '\0')
                return 0;
            item++;
            filled = 0;
        } else if (!isspace((unsigned char)*c)) {
            filled = 1;
        }
    }
}

/* Splits "a, b, c" (commas and/or blanks) and parses each value. */
static is_code parse_value_list(const is_param *param, const entry *e, is_axis *axis, is_error *err)
{
    size_t empty = empty_list_item(e->value);
    if (empty)
        return is_error_set(err, IS_JOB,
                            "%s: [axis.%s] values: item %zu is empty (two commas with no value "
                            "between them, or a comma first or last)",
                            e->origin, param->name, empty);
    size_t capacity = 8, count = 0;
    double *values = malloc(capacity * sizeof *values);
    char *text = job_copy_string(e->value);
    if (!values || !text) {
        free(values);
        free(text);
        return is_error_set(err, IS_NOMEM, "out of memory");
    }
    is_code rc = IS_OK;
    char where[ORIGIN_MAX + 64];
    for (char *save = NULL, *tok = strtok_r(text, ", \t\r\n", &save); tok;
         tok = strtok_r(NULL, ", \t\r\n", &save)) {
        snprintf(where, sizeof where, "%s: [axis.%s] values (item %zu)", e->origin, param->name,
                 count + 1);
        if (count == capacity) {
            double *v = realloc(values, 2 * capacity * sizeof *v);
            if (!v) {
                rc = is_error_set(err, IS_NOMEM, "out of memory");
                break;
            }
            values = v;
            capacity *= 2;
        }
        rc = job_parse_param_text(param, where, tok, &values[count], err);
        if (rc != IS_OK)
            break;
        count++;
    }
    free(text);
    if (rc == IS_OK && count == 0)
        rc = is_error_set(err, IS_JOB, "%s: [axis.%s] values: empty list", e->origin, param->name);
    if (rc != IS_OK) {
        free(values);
        return rc;
    }
    is_axis_set_values(axis, values, count);
    return IS_OK;
}

/* An axis must be a coordinate: strictly increasing or strictly decreasing (CF), so
 * that no two points of the grid are the same and every figure reads it in order.
 * Returns 0, or the index (from 1) of the first value out of order. */
static size_t out_of_order(const is_axis *axis)
{
    if (axis->count < 2 || !axis->values)
        return 0;
    int rising = axis->values[1] > axis->values[0];
    for (size_t i = 1; i < axis->count; i++) {
        double a = axis->values[i - 1], b = axis->values[i];
        if (rising ? !(b > a) : !(b < a))
            return i + 1;
    }
    return 0;
}

/* The 1-based position of the first choice that repeats an earlier one, or 0. */
static size_t repeated_choice(const is_axis *axis)
{
    for (size_t i = 1; i < axis->count; i++)
        for (size_t j = 0; j < i; j++)
            if (axis->values[i] == axis->values[j])
                return i + 1;
    return 0;
}

/* The keys of an [axis.NAME] section. */
typedef struct axis_keys {
    entry *from, *to, *count, *scale, *values;
} axis_keys;

/* Their names, where each is kept, and what the reference and the man page say of it. */
static const struct axis_key {
    const char *name;
    size_t slot; /* offset of its entry pointer in axis_keys */
    const char *values, *fallback, *help;
} axis_key_table[] = {
    {"from", offsetof(axis_keys, from), "a value of the parameter", "required (or values)",
     "the first value of a range"},
    {"to", offsetof(axis_keys, to), "a value of the parameter", "required when count > 1",
     "the last value of a range (both ends are exact)"},
    {"count", offsetof(axis_keys, count), "an integer from 1 to 1e9", "required (or values)",
     "the number of values of a range"},
    {"scale", offsetof(axis_keys, scale), "linear or log", "linear",
     "the spacing of a range's values (log: equal ratios)"},
    {"values", offsetof(axis_keys, values),
     "values separated by commas or blanks (a choice's by name)", "none (a range instead)",
     "the axis's values, strictly increasing or decreasing (a choice's in the order given); "
     "may continue on indented lines"},
};
enum { AXIS_KEY_COUNT = sizeof axis_key_table / sizeof *axis_key_table };

int job_axis_key_doc(size_t i, is_job_key_doc *doc)
{
    if (i >= AXIS_KEY_COUNT)
        return 0;
    const struct axis_key *k = &axis_key_table[i];
    *doc = (is_job_key_doc){k->name, k->values, k->fallback, k->help};
    return 1;
}

static const char *axis_key_name(const void *unused, size_t i)
{
    (void)unused;
    return axis_key_table[i].name;
}

static is_code collect_axis_keys(parse_state *ps, const section_header *h, axis_keys *keys)
{
    *keys = (axis_keys){0};
    for (size_t i = 0; i < ps->entry_count; i++) {
        entry *e = &ps->entries[i];
        if (strcmp(e->section, h->name) != 0)
            continue;
        const struct axis_key *k = NULL;
        for (size_t j = 0; j < AXIS_KEY_COUNT && !k; j++)
            if (strcmp(e->key, axis_key_table[j].name) == 0)
                k = &axis_key_table[j];
        if (!k) {
            char known[128], hint[96];
            return is_error_set(
                ps->err, IS_JOB, "%s: [%s] %s: unknown key%s (known: %s)", e->origin, h->name,
                e->key,
                is_suggest_text(hint, sizeof hint,
                                is_suggest(e->key, AXIS_KEY_COUNT, axis_key_name, NULL)),
                job_list_names(known, sizeof known, AXIS_KEY_COUNT, axis_key_name, NULL));
        }
        *(entry **)((char *)keys + k->slot) = e;
        e->used = 1;
    }
    return IS_OK;
}

/* An axis given by `values`: choices in the order given, numbers monotonic. */
static is_code axis_from_values(parse_state *ps, const section_header *h, const is_param *param,
                                const axis_keys *k, is_axis *axis)
{
    const entry *values = k->values;
    const entry *extra = k->from ? k->from : k->to ? k->to : k->count ? k->count : k->scale;
    if (extra)
        return is_error_set(ps->err, IS_JOB,
                            "%s: [%s] %s: give either 'values' (at %s) or from/to/count, "
                            "not both",
                            extra->origin, h->name, extra->key, values->origin);
    is_code rc = parse_value_list(param, values, axis, ps->err);
    if (rc != IS_OK)
        return rc;
    /* a choice axis is in the order given (its coordinate holds the names); a number
     * axis must be monotonic, to be a coordinate */
    size_t bad = param->type == IS_PARAM_CHOICE ? repeated_choice(axis) : out_of_order(axis);
    if (bad && param->type == IS_PARAM_CHOICE)
        return is_error_set(ps->err, IS_JOB, "%s: [%s] values: item %zu (%s) is given twice",
                            values->origin, h->name, bad,
                            param->choices[(int)axis->values[bad - 1]]);
    if (bad)
        return is_error_set(ps->err, IS_JOB,
                            "%s: [%s] values: item %zu (%s) %s item %zu (%s): an axis "
                            "must be strictly increasing or strictly decreasing",
                            values->origin, h->name, bad, IS_NUM(axis->values[bad - 1]),
                            axis->values[bad - 1] == axis->values[bad - 2] ? "repeats"
                                                                           : "turns back after",
                            bad - 1, IS_NUM(axis->values[bad - 2]));
    return IS_OK;
}

/* An axis given by from, to, count and scale. */
static is_code axis_from_range(parse_state *ps, const section_header *h, const is_param *param,
                               const axis_keys *k, is_axis *axis)
{
    const entry *from = k->from, *to = k->to, *count = k->count, *scale = k->scale;
    const char *name = param->name;
    if (!from || !count)
        return is_error_set(ps->err, IS_JOB,
                            "%s: [%s]: needs 'from', 'to' and 'count', or 'values'", h->origin,
                            h->name);
    double n;
    if (!job_parse_real(count->value, &n) || n < 1 || n != floor(n) || n > 1e9)
        return is_error_set(ps->err, IS_JOB,
                            "%s: [%s] count = '%s': expected an integer from 1 to 1e9",
                            count->origin, h->name, count->value);
    if (!to && n > 1)
        return is_error_set(ps->err, IS_JOB, "%s: [%s]: 'to' is missing (count is %s)", h->origin,
                            h->name, IS_NUM(n));
    is_axis_scale sc = IS_SCALE_LINEAR;
    if (scale && strcmp(scale->value, "log") == 0)
        sc = IS_SCALE_LOG;
    else if (scale && strcmp(scale->value, "linear") != 0)
        return is_error_set(ps->err, IS_JOB, "%s: [%s] scale = '%s': expected linear or log",
                            scale->origin, h->name, scale->value);
    if (param->type == IS_PARAM_CHOICE)
        return is_error_set(ps->err, IS_JOB, "%s: [%s]: %s is a choice; sweep it with 'values'",
                            h->origin, h->name, name);
    double lo, hi;
    char where[ORIGIN_MAX + 64];
    snprintf(where, sizeof where, "%s: [%s] from", from->origin, h->name);
    is_code rc = job_parse_param_text(param, where, from->value, &lo, ps->err);
    if (rc != IS_OK)
        return rc;
    hi = lo;
    if (to) {
        snprintf(where, sizeof where, "%s: [%s] to", to->origin, h->name);
        rc = job_parse_param_text(param, where, to->value, &hi, ps->err);
        if (rc != IS_OK)
            return rc;
    }
    is_error detail;
    rc = is_axis_fill(axis, sc, lo, hi, (size_t)n, &detail);
    if (rc != IS_OK)
        return is_error_set(ps->err, rc, "%s: [%s]: %s", (scale ? scale : from)->origin, h->name,
                            detail.message);
    if (param->type == IS_PARAM_INT)
        is_axis_set_integral(axis);
    /* Short axes are checked value by value here, with the line to blame; the
     * values of a long one are checked by all ranks together (is_validate_grid). */
    for (size_t i = 0; axis->values && i < axis->count; i++) {
        rc = is_param_check(param, axis->values[i], &detail);
        if (rc != IS_OK)
            return is_error_set(ps->err, rc, "%s: [%s]: value %zu of the axis: %s", h->origin,
                                h->name, i + 1, detail.message);
    }
    if (n == 1 && hi != lo)
        return is_error_set(ps->err, IS_JOB,
                            "%s: [%s] count = 1: the axis is 'from' = %s alone and 'to' = %s "
                            "would be dropped; give count >= 2, or no 'to'",
                            count->origin, h->name, IS_NUM(lo), IS_NUM(hi));
    if (n > 1 && lo == hi)
        return is_error_set(ps->err, IS_JOB,
                            "%s: [%s] to: from = to = %s with count %s: the axis would "
                            "repeat one value; give count = 1 (or fix it in [model])",
                            to->origin, h->name, IS_NUM(lo), IS_NUM(n));
    size_t bad = out_of_order(axis);
    if (bad)
        return is_error_set(ps->err, IS_JOB,
                            "%s: [%s] count: values %zu and %zu of the axis are both %s "
                            "(too many steps between %s and %s%s): an axis must be "
                            "strictly monotonic",
                            count->origin, h->name, bad - 1, bad, IS_NUM(axis->values[bad - 1]),
                            IS_NUM(lo), IS_NUM(hi),
                            param->type == IS_PARAM_INT ? " for an integer" : "");
    return IS_OK;
}

is_code job_interpret_axis(parse_state *ps, is_job *job, const section_header *h,
                           const int *fixed_by)
{
    const char *name = h->name + strlen("axis.");
    int p = is_model_param_index(job->model, name);
    if (p < 0)
        return is_error_set(ps->err, IS_JOB,
                            "%s: [%s]: '%s' is not a parameter of model %s (see "
                            "`impactsweep models`)",
                            h->origin, h->name, name, job->model->name);
    const is_param *param = &job->model->params[p];
    if (param->flags & IS_PARAM_FIXED_ONLY)
        return is_error_set(ps->err, IS_JOB, "%s: [%s]: parameter %s cannot be swept", h->origin,
                            h->name, name);
    if (fixed_by[p] >= 0)
        return is_error_set(ps->err, IS_JOB,
                            "%s: [%s]: %s is also fixed in [model] at %s; give it one place",
                            h->origin, h->name, name, ps->entries[fixed_by[p]].origin);
    if (job->grid.axis_count == IS_GRID_MAX_AXES)
        return is_error_set(ps->err, IS_JOB, "%s: [%s]: more than %d axes", h->origin, h->name,
                            IS_GRID_MAX_AXES);

    axis_keys keys;
    is_code rc = collect_axis_keys(ps, h, &keys);
    if (rc != IS_OK)
        return rc;
    is_axis *axis = &job->grid.axes[job->grid.axis_count];
    memset(axis, 0, sizeof *axis);
    axis->param = p;
    job->grid.axis_count++;
    rc = keys.values ? axis_from_values(ps, h, param, &keys, axis)
                     : axis_from_range(ps, h, param, &keys, axis);
    if (rc != IS_OK)
        return rc;
    snprintf(job->axis_origin[job->grid.axis_count - 1], sizeof job->axis_origin[0], "%s: [%s]",
             h->origin, h->name);
    snprintf(job->param_origin[p], sizeof job->param_origin[p], "%s: [%s]", h->origin, h->name);
    job->fixed[p] = is_axis_value(axis, 0);
    return IS_OK;
}
