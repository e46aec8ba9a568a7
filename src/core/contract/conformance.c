/* conformance.c: the model contract checked at run time (see conformance.h). */
#include "conformance.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine.h"
#include "numtext.h"

/* Bounds on a table, far beyond any real model, so that a broken one cannot make the
 * engine allocate without limit. */
#define PARAM_MAX 1024
#define OUTPUT_MAX 1024
#define NAME_MAX_LENGTH 64
/* is_model.references: bytes at most (model.h says 1023) */
#define REFERENCES_MAX 1023

/* A model name: letters, digits, '-' and '_'. A parameter or output name is also a
 * variable of the result file: a letter first, then letters, digits and '_'. */
static int is_name(const char *s, int variable)
{
    if (!s || !*s || strlen(s) > NAME_MAX_LENGTH || !isalpha((unsigned char)*s))
        return 0;
    for (; *s; s++)
        if (!isalnum((unsigned char)*s) && *s != '_' && (variable || *s != '-'))
            return 0;
    return 1;
}

static int is_text(const char *s)
{
    return s && *s;
}

/* One line of 1 to max bytes, without control characters (an attribute's text). */
static int is_line(const char *s, size_t max)
{
    size_t n = 0;
    for (; s[n]; n++)
        if ((unsigned char)s[n] < 0x20 || s[n] == 0x7f || n + 1 > max)
            return 0;
    return n > 0;
}

static is_code check_param(const is_model *m, size_t p, is_error *err)
{
    const is_param *param = &m->params[p];
    if (!is_name(param->name, 1))
        return is_error_set(err, IS_PLUGIN,
                            "model %s: parameter %zu has no valid name (a letter, then "
                            "letters, digits and '_', at most %d)",
                            m->name, p, NAME_MAX_LENGTH);
    if (is_model_param_index(m, param->name) != (int)p)
        return is_error_set(err, IS_PLUGIN, "model %s: parameter %s is listed twice", m->name,
                            param->name);
    if (is_model_output_index(m, param->name) >= 0 || strcmp(param->name, "status") == 0)
        return is_error_set(err, IS_PLUGIN,
                            "model %s: parameter %s has the name of an output or of status "
                            "(they share the result file)",
                            m->name, param->name);
    if (!is_text(param->meaning) || !param->unit)
        return is_error_set(err, IS_PLUGIN, "model %s: parameter %s has no meaning or no unit",
                            m->name, param->name);
    if (param->label && !is_text(param->label))
        return is_error_set(err, IS_PLUGIN,
                            "model %s: parameter %s has an empty label (NULL: its name)",
                            m->name, param->name);
    if (param->type != IS_PARAM_REAL && param->type != IS_PARAM_INT &&
        param->type != IS_PARAM_CHOICE)
        return is_error_set(err, IS_PLUGIN, "model %s: parameter %s has an unknown type %d",
                            m->name, param->name, (int)param->type);
    if (param->type == IS_PARAM_CHOICE) {
        int count = is_param_choice_count(param);
        if (count < 1 || count > 32)
            return is_error_set(err, IS_PLUGIN,
                                "model %s: choice parameter %s needs 1 to 32 choices", m->name,
                                param->name);
        for (int c = 0; c < count; c++)
            for (int d = 0; d < c; d++)
                if (strcmp(param->choices[c], param->choices[d]) == 0)
                    return is_error_set(err, IS_PLUGIN,
                                        "model %s: parameter %s lists choice %s twice", m->name,
                                        param->name, param->choices[c]);
    } else if (!(param->min <= param->max)) {
        return is_error_set(err, IS_PLUGIN, "model %s: parameter %s has min > max", m->name,
                            param->name);
    }
    if (((param->flags & IS_PARAM_TOLERANCE) && param->type != IS_PARAM_REAL) ||
        ((param->flags & IS_PARAM_METHOD) && param->type != IS_PARAM_CHOICE))
        return is_error_set(err, IS_PLUGIN,
                            "model %s: parameter %s: IS_PARAM_TOLERANCE marks a real parameter, "
                            "IS_PARAM_METHOD a choice",
                            m->name, param->name);
    is_error detail;
    if (!isnan(param->default_value) && is_param_check(param, param->default_value, &detail))
        return is_error_set(err, IS_PLUGIN, "model %s: the default is not admissible: %s",
                            m->name, detail.message);
    for (const is_param_when *w = param->when; w && w->choice; w++) {
        int c = is_model_param_index(m, w->choice);
        if (c < 0 || c == (int)p || m->params[c].type != IS_PARAM_CHOICE)
            return is_error_set(err, IS_PLUGIN,
                                "model %s: parameter %s applies on a condition on '%s', "
                                "which is not another choice parameter of the model",
                                m->name, param->name, w->choice);
        unsigned all = (1u << is_param_choice_count(&m->params[c])) - 1u;
        if (w->choices == 0 || (w->choices & ~all) != 0)
            return is_error_set(err, IS_PLUGIN,
                                "model %s: parameter %s's condition on %s names no choice or "
                                "one that does not exist",
                                m->name, param->name, w->choice);
    }
    return IS_OK;
}

/* An array output's length and dimension: a variable name of its own (no parameter's,
 * output's or status), shared only by outputs of the same length. */
static is_code check_length(const is_model *m, size_t o, is_error *err)
{
    const is_output *out = &m->outputs[o];
    if (out->length > IS_OUTPUT_LENGTH_MAX)
        return is_error_set(err, IS_PLUGIN,
                            "model %s: output %s has length %zu (0 or 1: a scalar; an array "
                            "output has 2 to %d values)",
                            m->name, out->name, out->length, IS_OUTPUT_LENGTH_MAX);
    if (out->length <= 1) {
        if (out->length_name)
            return is_error_set(err, IS_PLUGIN,
                                "model %s: output %s is a scalar (length %zu) but names a "
                                "dimension (length_name %s)",
                                m->name, out->name, out->length, out->length_name);
        return IS_OK;
    }
    char dim[2 * NAME_MAX_LENGTH];
    is_output_dimension(out, dim, sizeof dim);
    if (!is_name(dim, 1) || strcmp(dim, "status") == 0 || is_model_param_index(m, dim) >= 0 ||
        is_model_output_index(m, dim) >= 0)
        return is_error_set(err, IS_PLUGIN,
                            "model %s: array output %s's dimension '%s' is not a variable name "
                            "of its own (a letter, then letters, digits and '_', at most %d; "
                            "no parameter's or output's name, not status): set length_name",
                            m->name, out->name, dim, NAME_MAX_LENGTH);
    for (size_t k = 0; k < o; k++) {
        char other[2 * NAME_MAX_LENGTH];
        if (m->outputs[k].length <= 1)
            continue;
        is_output_dimension(&m->outputs[k], other, sizeof other);
        if (strcmp(dim, other) == 0 && m->outputs[k].length != out->length)
            return is_error_set(err, IS_PLUGIN,
                                "model %s: outputs %s and %s share the dimension %s with "
                                "lengths %zu and %zu",
                                m->name, m->outputs[k].name, out->name, dim,
                                m->outputs[k].length, out->length);
    }
    return IS_OK;
}

static is_code check_output(const is_model *m, size_t o, is_error *err)
{
    const is_output *out = &m->outputs[o];
    if (!is_name(out->name, 1) || strcmp(out->name, "status") == 0)
        return is_error_set(err, IS_PLUGIN,
                            "model %s: output %zu has no valid name (a letter, then letters, "
                            "digits and '_'; not status)",
                            m->name, o);
    if (is_model_output_index(m, out->name) != (int)o)
        return is_error_set(err, IS_PLUGIN, "model %s: output %s is listed twice", m->name,
                            out->name);
    if (!is_text(out->long_name) || !out->unit)
        return is_error_set(err, IS_PLUGIN, "model %s: output %s has no long_name or no unit",
                            m->name, out->name);
    if (out->type != IS_OUTPUT_REAL && out->type != IS_OUTPUT_INT &&
        out->type != IS_OUTPUT_CATEGORY)
        return is_error_set(err, IS_PLUGIN, "model %s: output %s has an unknown type %d",
                            m->name, out->name, (int)out->type);
    if (out->type == IS_OUTPUT_CATEGORY) {
        int count = is_output_category_count(out);
        if (count < 1 || count > 64)
            return is_error_set(err, IS_PLUGIN,
                                "model %s: categorical output %s needs 1 to 64 categories",
                                m->name, out->name);
    }
    if (out->flags & ~(unsigned)(IS_OUTPUT_MAY_BE_NAN | IS_OUTPUT_MAY_BE_INF | IS_OUTPUT_WORK))
        return is_error_set(err, IS_PLUGIN, "model %s: output %s has unknown flags %#x", m->name,
                            out->name, out->flags);
    if ((out->flags & IS_OUTPUT_MAY_BE_INF) && out->type != IS_OUTPUT_REAL)
        return is_error_set(err, IS_PLUGIN,
                            "model %s: output %s is an integer or a category: it cannot hold "
                            "infinity (IS_OUTPUT_MAY_BE_INF)",
                            m->name, out->name);
    if (out->label && !is_text(out->label))
        return is_error_set(err, IS_PLUGIN,
                            "model %s: output %s has an empty label (NULL: its long_name)",
                            m->name, out->name);
    return check_length(m, o, err);
}

/* The optional trace table: what `impactsweep trace` reads, all of it given and named. */
static is_code check_trace(const is_model *m, is_error *err)
{
    const is_model_trace *t = m->trace;
    if (!t->run || !is_text(t->time_unit) || !is_text(t->time_long_name) || !t->events ||
        !t->events[0] || (t->channel_count && !t->channels) ||
        (t->option_count && !t->options) || t->channel_count > OUTPUT_MAX ||
        t->option_count > PARAM_MAX)
        return is_error_set(err, IS_PLUGIN,
                            "model %s: its trace table is incomplete (run, time_unit, "
                            "time_long_name, one event kind at least, channels and options "
                            "as counted)",
                            m->name);
    for (size_t c = 0; c < t->channel_count; c++) {
        const is_trace_channel *ch = &t->channels[c];
        if (!is_name(ch->name, 1) || !ch->unit || !is_text(ch->long_name) ||
            strcmp(ch->name, "t") == 0)
            return is_error_set(err, IS_PLUGIN,
                                "model %s: trace channel %zu needs a variable name (not t), a "
                                "unit and a long_name",
                                m->name, c);
        for (size_t d = 0; d < c; d++)
            if (strcmp(t->channels[d].name, ch->name) == 0)
                return is_error_set(err, IS_PLUGIN, "model %s: trace channel %s is listed twice",
                                    m->name, ch->name);
    }
    for (size_t o = 0; o < t->option_count; o++) {
        const is_param *opt = &t->options[o];
        is_error detail;
        if (!is_name(opt->name, 1) || opt->type == IS_PARAM_CHOICE || !(opt->min <= opt->max) ||
            is_param_check(opt, opt->default_value, &detail) != IS_OK)
            return is_error_set(err, IS_PLUGIN,
                                "model %s: trace option %zu needs a name, a number type and an "
                                "admissible default",
                                m->name, o);
    }
    return IS_OK;
}

is_code is_conformance_table(const is_model *m, is_error *err)
{
    if (!m)
        return is_error_set(err, IS_PLUGIN, "no model table");
    if (!is_name(m->name, 0))
        return is_error_set(err, IS_PLUGIN,
                            "the model has no valid name (a letter, then letters, digits, '-' "
                            "and '_', at most %d)",
                            NAME_MAX_LENGTH);
    if (!is_text(m->description))
        return is_error_set(err, IS_PLUGIN, "model %s has no description", m->name);
    if (m->references && !is_line(m->references, REFERENCES_MAX))
        return is_error_set(err, IS_PLUGIN,
                            "model %s: references must be one line of text of 1 to %d bytes "
                            "(NULL when the model names no paper)",
                            m->name, REFERENCES_MAX);
    if (m->struct_size != sizeof(is_model) || m->abi_version != IS_MODEL_ABI_VERSION ||
        m->abi_minor != IS_MODEL_ABI_MINOR || m->param_size != sizeof(is_param) ||
        m->output_size != sizeof(is_output))
        return is_error_set(err, IS_PLUGIN,
                            "model %s: its table does not begin with IS_MODEL_HEADER (as this "
                            "engine reads it)",
                            m->name);
    if (m->param_count < 1 || m->param_count > PARAM_MAX || !m->params)
        return is_error_set(err, IS_PLUGIN, "model %s: needs 1 to %d parameters", m->name,
                            PARAM_MAX);
    if (m->output_count < 1 || m->output_count > OUTPUT_MAX || !m->outputs)
        return is_error_set(err, IS_PLUGIN, "model %s: needs 1 to %d outputs", m->name,
                            OUTPUT_MAX);
    if (!m->eval_batch)
        return is_error_set(err, IS_PLUGIN, "model %s has no eval_batch", m->name);
    if (!m->workspace_create != !m->workspace_free)
        return is_error_set(err, IS_PLUGIN,
                            "model %s: workspace_create and workspace_free come in a pair",
                            m->name);
    for (size_t p = 0; p < m->param_count; p++) {
        is_code rc = check_param(m, p, err);
        if (rc != IS_OK)
            return rc;
    }
    for (size_t o = 0; o < m->output_count; o++) {
        is_code rc = check_output(m, o, err);
        if (rc != IS_OK)
            return rc;
    }
    if (m->trace_samples && !m->trace)
        return is_error_set(err, IS_PLUGIN, "model %s: trace_samples without a trace table",
                            m->name);
    return m->trace ? check_trace(m, err) : IS_OK;
}

/* --- the results of every run ---------------------------------------------------------- */

static size_t fail_point(uint8_t *status, size_t i, is_conformance_report report, void *context,
                         const char *reason)
{
    status[i] = IS_POINT_FAILED_CHECK;
    if (report)
        report(context, i, reason);
    return 1;
}

/* Why value v breaks output `out`'s declaration at a done point, or NULL. */
static const char *breach(const is_output *out, double v, int categories, char *why, size_t size)
{
    const char *type = out->type == IS_OUTPUT_REAL ? "real" : out->type == IS_OUTPUT_INT
                                                                   ? "integer"
                                                                   : "categorical";
    if (isnan(v) && !(out->flags & IS_OUTPUT_MAY_BE_NAN))
        snprintf(why, size, "%s output %s is NaN on a done point, which its declaration does "
                 "not allow (IS_OUTPUT_MAY_BE_NAN)", type, out->name);
    else if (isinf(v) && !(out->flags & IS_OUTPUT_MAY_BE_INF))
        snprintf(why, size, "%s output %s is %s, which its declaration does not allow%s", type,
                 out->name, v < 0 ? "-inf" : "inf",
                 out->type == IS_OUTPUT_REAL ? " (IS_OUTPUT_MAY_BE_INF)" : "");
    else if (isnan(v) || isinf(v) || out->type == IS_OUTPUT_REAL)
        return NULL;
    else if (out->type == IS_OUTPUT_INT && (v != floor(v) || v < -2147483648.0 ||
                                            v > 2147483647.0))
        snprintf(why, size, "integer output %s = %s is not an int32 (it would be stored "
                 "wrapped)", out->name, IS_NUM(v));
    else if (out->type == IS_OUTPUT_CATEGORY && (v != floor(v) || v < 0 || v >= categories))
        snprintf(why, size, "categorical output %s = %s names no category (0 to %d)",
                 out->name, IS_NUM(v), categories - 1);
    else
        return NULL;
    return why;
}

/* An integer or category that cannot be stored as one: "no value" rather than wrapped. */
static void storable(const is_output *out, double *v, int categories)
{
    if (out->type == IS_OUTPUT_INT && isfinite(*v) &&
        !(*v >= -2147483648.0 && *v <= 2147483647.0))
        *v = NAN;
    else if (out->type == IS_OUTPUT_CATEGORY && isfinite(*v) && !(*v >= 0 && *v < categories))
        *v = NAN;
}

size_t is_conformance_results(const is_model *m, double *outputs, uint8_t *status,
                              size_t count, int stopping, is_conformance_report report,
                              void *context)
{
    size_t failed = 0;
    char why[256];
    for (size_t i = 0; i < count; i++) {
        uint8_t s = status[i];
        if (s == IS_POINT_DONE || (s >= IS_POINT_FAILED_FIRST && s <= IS_POINT_FAILED_LAST) ||
            (s == IS_POINT_PENDING && stopping))
            continue;
        if (s == IS_POINT_PENDING)
            snprintf(why, sizeof why, "eval_batch left the point pending, but no stop was "
                     "asked for");
        else
            snprintf(why, sizeof why, "eval_batch gave the point status %d (%s), which only "
                     "the engine sets or which does not exist", s, is_point_status_name(s));
        failed += fail_point(status, i, report, context, why);
    }
    for (size_t o = 0, at = 0; o < m->output_count; o++) { /* output by output: as they lie */
        const is_output *out = &m->outputs[o];
        size_t length = is_output_length(out);
        double *column = outputs + at * count;
        at += length;
        int categories = out->type == IS_OUTPUT_CATEGORY ? is_output_category_count(out) : 0;
        for (size_t e = 0; e < count * length; e++) {
            size_t i = e / length;
            double v = column[e];
            if (out->type == IS_OUTPUT_REAL ? isfinite(v)
                : out->type == IS_OUTPUT_INT
                    ? v >= -2147483648.0 && v <= 2147483647.0 && v == (double)(int64_t)v
                    : v >= 0 && v < categories && v == (double)(int)v)
                continue; /* the common cases, at once (the range first: no cast overflows) */
            const char *reason = status[i] == IS_POINT_DONE ? breach(out, v, categories, why,
                                                                     sizeof why)
                                                            : NULL;
            if (reason)
                failed += fail_point(status, i, report, context, reason);
            storable(out, &column[e], categories);
        }
    }
    return failed;
}

void is_conformance_point(const is_model *m, double *point)
{
    for (size_t p = 0; p < m->param_count; p++) {
        const is_param *param = &m->params[p];
        double v;
        if (!isnan(param->default_value))
            v = param->default_value;
        else if (param->type == IS_PARAM_CHOICE)
            v = 0;
        else if (isfinite(param->min) && isfinite(param->max))
            v = 0.5 * (param->min + param->max);
        else if (isfinite(param->min))
            v = param->min + 0.5;
        else if (isfinite(param->max))
            v = param->max - 0.5;
        else
            v = 0.5;
        point[p] = param->type == IS_PARAM_INT ? ceil(v) : v;
    }
}

/* Evaluates count points in one batch with a fresh workspace, in this process. */
static is_code evaluate_here(void *context, const is_model *m, const double *points,
                             size_t count, double *out, uint8_t *status, is_error *err)
{
    (void)context;
    if (!out) { /* validate */
        for (size_t i = 0; i < count && m->validate; i++)
            if (m->validate(points + i * m->param_count, err) != IS_OK)
                return IS_PARAM;
        return IS_OK;
    }
    void *ws = NULL;
    is_code rc = m->workspace_create ? m->workspace_create(&ws, err) : IS_OK;
    if (rc != IS_OK)
        return is_error_set(err, IS_PLUGIN, "model %s: workspace_create failed: %s", m->name,
                            err->message);
    for (size_t i = 0; i < count; i++)
        status[i] = 255;
    for (size_t i = 0; i < count * is_model_value_count(m); i++)
        out[i] = NAN;
    rc = m->eval_batch(ws, points, count, out, status, err);
    if (m->workspace_free)
        m->workspace_free(ws);
    if (rc != IS_OK)
        return is_error_set(err, IS_PLUGIN, "model %s: eval_batch failed on admissible points: %s",
                            m->name, err->message);
    return IS_OK;
}

static void first_breach(void *context, size_t index, const char *reason)
{
    is_error *err = context;
    if (err->code == IS_OK)
        is_error_set(err, IS_PLUGIN, "point %zu: %s", index, reason);
}

static is_code check_results(const is_model *m, double *out, uint8_t *status, size_t count,
                             is_error *err)
{
    is_error breach;
    is_error_clear(&breach);
    is_conformance_results(m, out, status, count, 0, first_breach, &breach);
    if (breach.code != IS_OK)
        return is_error_set(err, IS_PLUGIN, "model %s: eval_batch breaks the contract: %s",
                            m->name, breach.message);
    return IS_OK;
}

is_code is_conformance_behaviour(const is_model *m, is_conformance_evaluate evaluate,
                                 void *context, is_error *err)
{
    if (!evaluate)
        evaluate = evaluate_here;
    is_code rc = is_conformance_table(m, err);
    if (rc != IS_OK)
        return rc;
    size_t np = m->param_count, no = is_model_value_count(m);
    enum { COUNT = 3 };
    double *points = malloc(COUNT * np * sizeof *points);
    double *together = malloc(COUNT * no * sizeof *together);
    double *alone = malloc(no * sizeof *alone);
    if (!points || !together || !alone) {
        free(points);
        free(together);
        free(alone);
        return is_error_set(err, IS_NOMEM, "out of memory");
    }
    /* A: the defaults; B: A with the first real parameter that can move moved; A again */
    is_conformance_point(m, points);
    memcpy(points + np, points, np * sizeof *points);
    for (size_t p = 0; p < np; p++) {
        double moved = points[p] * 1.25 + 0.01;
        is_error ignored;
        if (m->params[p].type != IS_PARAM_REAL ||
            is_param_check(&m->params[p], moved, &ignored) != IS_OK)
            continue;
        points[np + p] = moved;
        if ((rc = evaluate(context, m, points + np, 1, NULL, NULL, err)) != IS_PARAM)
            break; /* admissible (or an error of the evaluation) */
        rc = IS_OK;
        points[np + p] = points[p];
    }
    memcpy(points + 2 * np, points, np * sizeof *points);
    uint8_t status[COUNT], single;
    if (rc == IS_OK && (rc = evaluate(context, m, points, 1, NULL, NULL, err)) == IS_PARAM)
        rc = is_error_set(err, IS_PLUGIN, "model %s: its own defaults fail validate: %s",
                          m->name, err->message);
    if (rc == IS_OK)
        rc = evaluate(context, m, points, COUNT, together, status, err);
    if (rc == IS_OK)
        rc = check_results(m, together, status, COUNT, err);
    for (size_t i = 0; rc == IS_OK && i < COUNT; i++) {
        rc = evaluate(context, m, points + i * np, 1, alone, &single, err);
        if (rc == IS_OK)
            rc = check_results(m, alone, &single, 1, err);
        if (rc != IS_OK)
            break;
        if (single != status[i])
            rc = is_error_set(err, IS_PLUGIN,
                              "model %s: point %zu has status %d alone and %d in a batch",
                              m->name, i, single, status[i]);
        for (size_t o = 0, at = 0; rc == IS_OK && o < m->output_count; o++) {
            size_t length = is_output_length(&m->outputs[o]);
            for (size_t j = 0; rc == IS_OK && j < length; j++) {
                double a = alone[at + j], b = together[at * COUNT + i * length + j];
                if (!(memcmp(&a, &b, sizeof a) == 0 || (isnan(a) && isnan(b))))
                    rc = is_error_set(err, IS_PLUGIN,
                                      "model %s: output %s[%zu] of point %zu is %s alone and "
                                      "%s in a batch: a result must depend only on its own "
                                      "point",
                                      m->name, m->outputs[o].name, j, i, IS_NUM(a), IS_NUM(b));
            }
            at += length;
        }
    }
    for (size_t o = 0, at = 0; rc == IS_OK && o < m->output_count; o++) {
        size_t length = is_output_length(&m->outputs[o]);
        for (size_t j = 0; rc == IS_OK && j < length; j++) {
            double a = together[at * COUNT + j], c = together[at * COUNT + 2 * length + j];
            if (!(memcmp(&a, &c, sizeof a) == 0 || (isnan(a) && isnan(c))))
                rc = is_error_set(err, IS_PLUGIN,
                                  "model %s: output %s differs between two evaluations of "
                                  "the same point (%s, %s)",
                                  m->name, m->outputs[o].name, IS_NUM(a), IS_NUM(c));
        }
        at += length;
    }
    free(points);
    free(together);
    free(alone);
    return rc;
}
