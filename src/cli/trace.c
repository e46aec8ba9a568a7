/* trace.c: `impactsweep trace`, the trajectory behind one point.
 *
 *   impactsweep trace MODEL name=value ... [--output FILE] [--overwrite] [--drop K]
 *                     [--window T0,T1] [--max-samples N]
 *   impactsweep trace RESULT.h5 axis=value ... [--nearest] [the same options]
 *
 * The point is given by its parameters (checked as `eval` checks them: point.h) or as a
 * point of an existing result file, by its coordinates: each axis of the file must be
 * given a value that is on it exactly, the fixed parameters being the file's own
 * (parameter_NAME). The model's trace (model.h: is_model_trace) evaluates the point with
 * eval_batch's code while passing every sample and event to the sink below, which keeps
 * them in memory (buffers that grow, up to --max-samples; with --window only those with
 * T0 <= t <= T1, the run itself going from its start), after refusing at once a request
 * that the model sizes beyond --max-samples (is_model.trace_samples); then trace_file.c
 * writes the trace file (default trace.h5; an existing file only with --overwrite). A point of a
 * result file is compared with what the file stores for it.
 *
 * Exit status: 0 the point is done; 1 it failed (the trace is written all the same: the
 * way to a failure is worth seeing) or the run failed; 2 bad input (unknown model,
 * parameter or option, a coordinate not on its axis, a model without a trace, an existing
 * output); 75 stopped by a signal (nothing written). */
#include "trace.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../core/contract/conformance.h"
#include "../core/contract/engine.h"
#include "../core/job/job.h"
#include "../core/contract/model_text.h"
#include "../core/base/numtext.h"
#include "../core/store/results.h"
#include "../core/base/signals.h"
#include "../core/store/trace_file.h"
#include "point.h"

/* Samples kept at most unless --max-samples says otherwise: 4e6 samples of a dozen
 * channels are about 400 MB. */
#define DEFAULT_MAX_SAMPLES 4000000.0

/* Axis values read from a result file at a time, looking for a coordinate. */
#define COORDINATE_BLOCK 65536

/* --- the sink: the trace in memory ------------------------------------------------------ */

typedef struct collector {
    size_t channels;
    size_t max_samples;            /* samples (and events) kept at most */
    double t0, t1;                 /* kept: samples and events with t0 <= t <= t1 (--window) */
    size_t samples, sample_capacity;
    double *t, *values;            /* samples x channels, sample by sample */
    size_t events, event_capacity;
    double *event_t, *event_values;
    int *event_kind;
    int kinds;                     /* event kinds of the model */
    is_error *err;
} collector;

/* Makes room for one more row in arrays of `width` doubles each (and `ints`). */
static is_code grow(collector *c, size_t used, size_t *capacity, double **times,
                    double **values, int **ints)
{
    if (used >= c->max_samples)
        return is_error_set(c->err, IS_USAGE,
                            "the trace has more than %zu samples or events (--max-samples): "
                            "ask for fewer (a part of the run with --window T0,T1, a shorter "
                            "horizon, a coarser sampling) or raise it",
                            c->max_samples);
    if (used < *capacity)
        return IS_OK;
    size_t capacity_new = *capacity ? 2 * *capacity : 1024;
    double *t = realloc(*times, capacity_new * sizeof *t);
    if (t)
        *times = t;
    double *v = t ? realloc(*values, capacity_new * (c->channels ? c->channels : 1) * sizeof *v)
                  : NULL;
    if (v)
        *values = v;
    int *k = v && ints ? realloc(*ints, capacity_new * sizeof *k) : NULL;
    if (k)
        *ints = k;
    if (!t || !v || (ints && !k))
        return is_error_set(c->err, IS_NOMEM, "out of memory keeping %zu samples of the trace",
                            used);
    *capacity = capacity_new;
    return IS_OK;
}

static is_code collect_sample(void *context, double t, const double *values)
{
    collector *c = context;
    if (!(t >= c->t0 && t <= c->t1))
        return IS_OK; /* outside --window: the run goes on, the sample is not kept */
    is_code rc = grow(c, c->samples, &c->sample_capacity, &c->t, &c->values, NULL);
    if (rc != IS_OK)
        return rc;
    c->t[c->samples] = t;
    memcpy(c->values + c->samples * c->channels, values, c->channels * sizeof *values);
    c->samples++;
    return IS_OK;
}

static is_code collect_event(void *context, double t, int kind, const double *values)
{
    collector *c = context;
    if (kind < 0 || kind >= c->kinds)
        return is_error_set(c->err, IS_INTERNAL, "the model reported an event of kind %d "
                            "(it names %d kinds)", kind, c->kinds);
    if (!(t >= c->t0 && t <= c->t1))
        return IS_OK;
    is_code rc = grow(c, c->events, &c->event_capacity, &c->event_t, &c->event_values,
                      &c->event_kind);
    if (rc != IS_OK)
        return rc;
    c->event_t[c->events] = t;
    c->event_kind[c->events] = kind;
    memcpy(c->event_values + c->events * c->channels, values, c->channels * sizeof *values);
    c->events++;
    return IS_OK;
}

static void collector_free(collector *c)
{
    free(c->t);
    free(c->values);
    free(c->event_t);
    free(c->event_values);
    free(c->event_kind);
}

/* --- the command line ------------------------------------------------------------------ */

typedef struct trace_args {
    const char *output;
    int overwrite;
    int nearest;        /* --nearest: a coordinate off its axis takes the nearest value */
    double max_samples;
    double window[2];   /* --window T0,T1: the times kept (default: all) */
    int windowed;
    char **args;        /* argv's entries, NULL where an option was taken */
    int argc;
    char *source;       /* what the point is (for the file's `source`) */
} trace_args;

static const is_param *find_option(const is_model_trace *trace, const char *name, int *index)
{
    for (size_t o = 0; o < trace->option_count; o++)
        if (strcmp(trace->options[o].name, name) == 0) {
            *index = (int)o;
            return &trace->options[o];
        }
    return NULL;
}

/* A trace option's value: a choice's name or a number (integers in any notation). */
static is_code parse_option(const is_param *param, const char *origin, const char *text,
                            double *out, is_error *err)
{
    if (param->type == IS_PARAM_CHOICE) {
        for (int c = 0; param->choices && param->choices[c]; c++)
            if (strcmp(param->choices[c], text) == 0) {
                *out = c;
                return IS_OK;
            }
    }
    char *end = NULL;
    errno = 0;
    double value = strtod(text, &end);
    if (!*text || *end || errno == ERANGE)
        return is_error_set(err, IS_USAGE, "%s: %s = '%s' is not a number", origin,
                            param->name, text);
    is_code rc = is_param_check(param, value, err);
    if (rc != IS_OK) {
        char message[IS_ERROR_MESSAGE_MAX];
        snprintf(message, sizeof message, "%s", err->message);
        return is_error_set(err, rc, "%s: %s", origin, message);
    }
    *out = value;
    return IS_OK;
}

/* --window T0,T1: two finite numbers, T0 < T1, in the trace's time unit. */
static is_code parse_window(const char *origin, const char *text, double window[2],
                            is_error *err)
{
    const char *comma = strchr(text, ',');
    char *end = NULL;
    double t0 = NAN, t1 = NAN;
    int numbers = comma && comma > text;
    if (numbers) {
        errno = 0;
        t0 = strtod(text, &end);
        numbers = end == comma && errno != ERANGE;
    }
    if (numbers) {
        t1 = strtod(comma + 1, &end);
        numbers = comma[1] && !*end && errno != ERANGE;
    }
    if (!numbers)
        return is_error_set(err, IS_USAGE,
                            "%s: --window needs T0,T1 (two numbers, the times kept), not '%s'",
                            origin, text);
    if (!isfinite(t0) || !isfinite(t1))
        return is_error_set(err, IS_USAGE, "%s: --window %s: T0 and T1 must be finite", origin,
                            text);
    if (!(t0 < t1))
        return is_error_set(err, IS_USAGE, "%s: --window %s: T0 must be less than T1", origin,
                            text);
    window[0] = t0;
    window[1] = t1;
    return IS_OK;
}

/* Takes the options out of args (NULL where taken): --output, --overwrite, --max-samples,
 * --window, and the trace's own options as --NAME VALUE or NAME=VALUE (the others at their
 * defaults). */
static is_code take_options(trace_args *a, const is_model_trace *trace, double *options,
                            is_error *err)
{
    for (size_t o = 0; o < trace->option_count; o++)
        options[o] = trace->options[o].default_value;
    for (int i = 2; i < a->argc; i++) {
        char *arg = a->args[i], origin[64];
        if (!arg)
            continue;
        snprintf(origin, sizeof origin, "argument %d", i);
        int index = -1;
        if (strcmp(arg, "--output") == 0 || strcmp(arg, "-o") == 0 ||
            strcmp(arg, "--max-samples") == 0 || strcmp(arg, "--window") == 0 ||
            (strncmp(arg, "--", 2) == 0 && find_option(trace, arg + 2, &index))) {
            if (i + 1 >= a->argc)
                return is_error_set(err, IS_USAGE, "%s: %s needs a value", origin, arg);
            const char *value = a->args[i + 1];
            if (index >= 0) {
                is_code rc = parse_option(&trace->options[index], origin, value,
                                          &options[index], err);
                if (rc != IS_OK)
                    return rc;
            } else if (strcmp(arg, "--window") == 0) {
                is_code rc = parse_window(origin, value, a->window, err);
                if (rc != IS_OK)
                    return rc;
                a->windowed = 1;
            } else if (strcmp(arg, "--max-samples") == 0) {
                char *end = NULL;
                a->max_samples = strtod(value, &end);
                if (*end || !(a->max_samples >= 1 && a->max_samples <= 1e12))
                    return is_error_set(err, IS_USAGE,
                                        "%s: --max-samples needs a number from 1 to 1e12, "
                                        "not '%s'", origin, value);
            } else {
                a->output = value;
            }
            a->args[i] = a->args[i + 1] = NULL;
            i++;
        } else if (strcmp(arg, "--overwrite") == 0) {
            a->overwrite = 1;
            a->args[i] = NULL;
        } else if (strcmp(arg, "--nearest") == 0) {
            a->nearest = 1;
            a->args[i] = NULL;
        } else if (arg[0] == '-') {
            return is_error_set(err, IS_USAGE, "%s: unknown option '%s'", origin, arg);
        } else {
            const char *eq = strchr(arg, '=');
            char name[128];
            if (eq && (size_t)(eq - arg) < sizeof name) {
                snprintf(name, sizeof name, "%.*s", (int)(eq - arg), arg);
                const is_param *option = find_option(trace, name, &index);
                if (option) {
                    is_code rc = parse_option(option, origin, eq + 1, &options[index], err);
                    if (rc != IS_OK)
                        return rc;
                    a->args[i] = NULL;
                }
            }
        }
    }
    return IS_OK;
}

/* --- a point of a result file ----------------------------------------------------------- */

/* How far coordinate c is from v on an axis of this scale: in ratio on a log axis. */
static double axis_distance(int log_scale, double c, double v)
{
    return log_scale && c > 0 && v > 0 ? fabs(log(c / v)) : fabs(c - v);
}

/* Index of `value` on axis k of r, exactly; else, with `nearest`, the index of the nearest
 * coordinate (in ratio on a log axis) with that coordinate in *value; else IS_PARAM naming
 * the axis and the nearest value on it. */
static is_code find_on_axis(is_results *r, const char *path, size_t k, const is_param *param,
                            int nearest_wanted, double *value_io, uint64_t *index,
                            is_error *err)
{
    double value = *value_io;
    uint64_t length = is_results_axis_length(r, k);
    char scale[32];
    is_results_axis_attribute(r, k, "scale", scale, sizeof scale);
    if (strcmp(scale, "choice") == 0) { /* a choice axis holds the names */
        char names[4096];
        is_code rc = is_results_coordinate_names(r, k, names, sizeof names, err);
        const char *wanted = param->choices[(int)value];
        uint64_t at = 0;
        for (char *save = NULL, *name = rc == IS_OK ? strtok_r(names, ",", &save) : NULL; name;
             name = strtok_r(NULL, ",", &save), at++) {
            name += strspn(name, " ");
            if (strcmp(name, wanted) == 0) {
                *index = at;
                return IS_OK;
            }
        }
        if (rc == IS_OK)
            is_results_coordinate_names(r, k, names, sizeof names, err);
        return rc != IS_OK ? rc
                           : is_error_set(err, IS_PARAM, "%s = %s is not on the axis %s of %s "
                                          "(%s)", param->name, wanted, param->name, path,
                                          names);
    }
    int log_scale = strcmp(scale, "log") == 0;
    double *block = malloc(COORDINATE_BLOCK * sizeof *block);
    if (!block)
        return is_error_set(err, IS_NOMEM, "out of memory");
    double nearest = NAN, first = NAN, last = NAN;
    uint64_t nearest_at = 0;
    is_code rc = IS_OK;
    int found = 0;
    for (uint64_t at = 0; at < length && rc == IS_OK && !found; at += COORDINATE_BLOCK) {
        uint64_t n = length - at < COORDINATE_BLOCK ? length - at : COORDINATE_BLOCK;
        rc = is_results_coordinates(r, k, at, n, block, 0, err);
        for (uint64_t j = 0; rc == IS_OK && j < n; j++) {
            if (at + j == 0)
                first = block[j];
            last = block[j];
            if (block[j] == value) {
                *index = at + j;
                found = 1;
                break;
            }
            if (isnan(nearest) || axis_distance(log_scale, block[j], value) <
                                      axis_distance(log_scale, nearest, value)) {
                nearest = block[j];
                nearest_at = at + j;
            }
        }
    }
    free(block);
    if (rc != IS_OK || found)
        return rc;
    const char *name = is_results_axis_name(r, k);
    if (nearest_wanted && !isnan(nearest)) {
        fprintf(stderr, "impactsweep: trace: %s = %s is not on the axis %s of %s: taking the "
                "nearest grid point, %s = %s (index %llu)\n", name, IS_NUM(value), name, path,
                name, IS_NUM(nearest), (unsigned long long)nearest_at);
        *value_io = nearest;
        *index = nearest_at;
        return IS_OK;
    }
    return is_error_set(err, IS_PARAM,
                        "%s = %s is not on the axis %s of %s (%llu values from %s to %s; the "
                        "nearest is %s, index %llu): give a value of the axis exactly, or "
                        "--nearest",
                        name, IS_NUM(value), name, path, (unsigned long long)length,
                        IS_NUM(first), IS_NUM(last), IS_NUM(nearest),
                        (unsigned long long)nearest_at);
}

/* What the result file stores for the point, for the comparison after the trace. */
typedef struct stored_point {
    int have;
    uint8_t status;
    double *outputs;
} stored_point;

/* The fixed parameters as file r records them (parameter_NAME attributes; a choice by
 * its name, in older files by its index); NaN for the swept ones. */
static is_code fixed_of_file(is_results *r, const char *path, const is_model *m,
                             const int *axis_param, size_t axes, double *p, is_error *err)
{
    is_code rc = IS_OK;
    for (size_t q = 0; q < m->param_count && rc == IS_OK; q++) {
        int swept = 0;
        for (size_t k = 0; k < axes; k++)
            swept |= axis_param[k] == (int)q;
        p[q] = NAN;
        if (swept)
            continue;
        char attribute[160], text[256], origin[400];
        snprintf(attribute, sizeof attribute, "parameter_%s", m->params[q].name);
        snprintf(origin, sizeof origin, "%s: %s", path, attribute);
        is_results_attribute(r, attribute, text, sizeof text);
        char *end = NULL;
        if (!*text)
            rc = is_error_set(err, IS_NOT_RESULT, "%s has no attribute %s", path, attribute);
        else if (m->params[q].type == IS_PARAM_CHOICE && (p[q] = strtod(text, &end), !*end))
            rc = is_param_check(&m->params[q], p[q], err);
        else
            rc = is_job_parse_param_value(m, origin, m->params[q].name, text, &p[q], err);
    }
    return rc;
}

/* The point's place on the file's axes. */
typedef struct file_place {
    int given[64];
    uint64_t at[64];
    char where[2048]; /* " axis=value" for each, as given */
} file_place;

/* One argument axis=value (argument i): the coordinate on that axis of file r. */
static is_code coordinate_of_arg(is_results *r, const char *path, const is_model *m,
                                 const char *arg, int i, int nearest, double *p,
                                 file_place *place, is_error *err)
{
    size_t axes = is_results_axis_count(r);
    const char *eq = strchr(arg, '=');
    if (!eq || eq == arg || eq - arg >= 128)
        return is_error_set(err, IS_USAGE, "argument %d: '%s': expected axis=value", i, arg);
    char key[128], origin[64];
    snprintf(key, sizeof key, "%.*s", (int)(eq - arg), arg);
    snprintf(origin, sizeof origin, "argument %d", i);
    size_t k = 0;
    while (k < axes && strcmp(is_results_axis_name(r, k), key) != 0)
        k++;
    int q = is_model_param_index(m, key);
    if (k == axes && q >= 0)
        return is_error_set(err, IS_PARAM,
                            "%s: %s is fixed in %s (%s = %s): only its axes are coordinates",
                            origin, key, path, key, IS_NUM(p[q]));
    if (k == axes)
        return is_error_set(err, IS_USAGE, "%s: %s is no axis of %s (a %s result file)", origin,
                            key, path, m->name);
    if (place->given[k])
        return is_error_set(err, IS_USAGE, "%s: axis %s given twice", origin, key);
    double value;
    is_code rc = is_job_parse_param_value(m, origin, key, eq + 1, &value, err);
    if (rc == IS_OK)
        rc = find_on_axis(r, path, k, &m->params[q], nearest, &value, &place->at[k], err);
    if (rc != IS_OK)
        return rc;
    p[q] = value;
    place->given[k] = 1;
    size_t used = strlen(place->where);
    if (m->params[q].type == IS_PARAM_CHOICE)
        snprintf(place->where + used, sizeof place->where - used, " %s=%s", key, eq + 1);
    else /* the coordinate taken, which --nearest may have moved */
        snprintf(place->where + used, sizeof place->where - used, " %s=%s", key, IS_NUM(value));
    return IS_OK;
}

/* What file r stores at point `index`: stored->have says whether it could be read. */
static void read_stored(is_results *r, const is_model *m, uint64_t index, stored_point *stored,
                        is_error *err)
{
    size_t variables = is_results_variable_count(r);
    stored->have = variables == m->output_count + 1 &&
                   is_results_value_count(r) == is_model_value_count(m);
    for (size_t v = 0; v < variables && stored->have; v++) {
        const is_results_variable *var = is_results_variable_at(r, v);
        double *at = stored->outputs + is_model_output_offset(m, v); /* (count 1: in a row) */
        is_code read = var->is_status ? is_results_read_raw(r, v, index, 1, &stored->status, err)
                                      : is_results_read_doubles(r, v, index, 1, at, err);
        stored->have = read == IS_OK;
    }
}

/* The point of result file `path` at the coordinates in args: the model from its
 * `model` attribute, the fixed parameters from parameter_NAME, the axes from args. */
static is_code point_of_file(const char *path, trace_args *a, const is_model *m,
                             double **point, stored_point *stored, is_error *err)
{
    is_results *r = NULL;
    is_code rc = is_results_open(path, MPI_COMM_NULL, IS_RESULTS_READ, &r, err);
    if (rc != IS_OK)
        return rc;
    double *p = *point = malloc(m->param_count * sizeof *p);
    size_t values = is_model_value_count(m);
    stored->outputs = malloc((values ? values : 1) * sizeof *stored->outputs);
    file_place *place = calloc(1, sizeof *place);
    if (!p || !stored->outputs || !place) {
        free(place);
        is_results_close(&r, NULL);
        return is_error_set(err, IS_NOMEM, "out of memory");
    }
    size_t axes = is_results_axis_count(r);
    int axis_param[64];
    for (size_t k = 0; k < axes && k < 64; k++)
        axis_param[k] = is_model_param_index(m, is_results_axis_name(r, k));
    rc = fixed_of_file(r, path, m, axis_param, axes, p, err);
    for (int i = 2; i < a->argc && rc == IS_OK; i++) {
        if (!a->args[i])
            continue;
        rc = coordinate_of_arg(r, path, m, a->args[i], i, a->nearest, p, place, err);
        a->args[i] = NULL;
    }
    for (size_t k = 0; k < axes && rc == IS_OK; k++)
        if (!place->given[k])
            rc = is_error_set(err, IS_USAGE,
                              "give the point's coordinate on every axis of %s: %s=VALUE is "
                              "missing",
                              path, is_results_axis_name(r, k));
    if (rc == IS_OK) { /* the point's index in the file (C order) */
        uint64_t index = 0;
        for (size_t k = 0; k < axes; k++)
            index = index * is_results_axis_length(r, k) + place->at[k];
        read_stored(r, m, index, stored, err);
        size_t n = strlen(path) + strlen(place->where) + 64;
        a->source = malloc(n);
        if (a->source)
            snprintf(a->source, n, "%s at%s (point %llu of the file)", path, place->where,
                     (unsigned long long)index);
    }
    free(place);
    is_results_close(&r, NULL);
    return rc;
}

/* After the trace of a result file's point: does the file hold the same result? */
static void compare_stored(const is_model *m, const char *path, const stored_point *stored,
                           const double *outputs, uint8_t status)
{
    if (!stored->have)
        return;
    if (stored->status == IS_POINT_PENDING) {
        fprintf(stderr, "impactsweep: %s has not computed this point yet\n", path);
        return;
    }
    for (size_t e = 0, o = 0, end = 0; e < is_model_value_count(m); e++) { /* every value */
        while (e >= end)
            end += is_output_length(&m->outputs[o++]);
        double s = stored->outputs[e], t = outputs[e];
        int same = s == t || (isnan(s) && isnan(t)) ||
                   /* integer and categorical outputs are stored as -1 where not finite */
                   (m->outputs[o - 1].type != IS_OUTPUT_REAL && s == -1 && !isfinite(t));
        if (!same) {
            fprintf(stderr,
                    "impactsweep: warning: %s stores another result for this point (%s = "
                    "%s there, %s now): made by another version or build?\n",
                    path, m->outputs[o - 1].name, IS_NUM(s), IS_NUM(t));
            return;
        }
    }
    if (stored->status != status)
        fprintf(stderr, "impactsweep: warning: %s stores status %s for this point, now %s\n",
                path, is_point_status_name(stored->status), is_point_status_name(status));
    else
        fprintf(stderr, "impactsweep: %s stores the same result for this point\n", path);
}

static char *command_line(int argc, char **argv)
{
    size_t n = 32;
    for (int i = 0; i < argc; i++)
        n += strlen(argv[i]) + 1;
    char *line = malloc(n);
    if (!line)
        return NULL;
    size_t used = (size_t)snprintf(line, n, "impactsweep");
    for (int i = 0; i < argc; i++)
        used += (size_t)snprintf(line + used, n - used, " %s", argv[i]);
    return line;
}

static int is_file(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/* A result file (HDF5's signature) rather than a model or a plug-in library? */
static int is_hdf5_file(const char *path)
{
    static const unsigned char signature[8] = {0x89, 'H', 'D', 'F', '\r', '\n', 0x1a, '\n'};
    unsigned char head[8];
    FILE *f = fopen(path, "rb");
    size_t n = f ? fread(head, 1, sizeof head, f) : 0;
    if (f)
        fclose(f);
    return n == sizeof head && memcmp(head, signature, sizeof head) == 0;
}

/* The model to trace: named by arg, or result file's (a plug-in's by its library); it
 * must have a trace table and meet the contract's checks (a plug-in met them as it was
 * loaded; a built-in model is held to the same). */
/* What made a result file: its model, version and library. */
typedef struct file_model {
    char name[256], version[128], library[4096], sha256[80], table[80];
} file_model;

static void read_file_model(is_results *r, file_model *f)
{
    is_results_attribute(r, "model", f->name, sizeof f->name);
    is_results_attribute(r, "model_version", f->version, sizeof f->version);
    is_results_attribute(r, "model_library", f->library, sizeof f->library);
    is_results_attribute(r, "model_library_sha256", f->sha256, sizeof f->sha256);
    is_results_attribute(r, "model_table_sha256", f->table, sizeof f->table);
}

/* "model ball version 1.0.0 from LIB (sha256 ...)" */
static void describe_file_model(const file_model *f, char *text, size_t size)
{
    snprintf(text, size, "model %s version %s %s%s%s%s%s", f->name, f->version,
             *f->library ? "from " : "built in", f->library, *f->sha256 ? " (sha256 " : "",
             f->sha256, *f->sha256 ? ")" : "");
}

/* The loaded model is the one that made the file: its declared version and tables (its
 * very bytes, for a file of an earlier impactsweep), else a trace would not be the file's
 * point. */
static is_code same_model(const file_model *f, const char *path, const is_model *m,
                          is_error *err)
{
    char digest[65];
    char *table = is_model_text(m, NULL, digest);
    free(table);
    int same = *f->table ? strcmp(f->table, digest) == 0 : 1;
    if (same && strcmp(f->name, m->name) == 0)
        return IS_OK;
    char made[4096 + 512];
    describe_file_model(f, made, sizeof made);
    return is_error_set(err, IS_MISMATCH,
                        "%s was made by %s; the model loaded now is %s version %s, whose "
                        "declared version or tables differ: trace the file's points with the "
                        "build that made it (restore that library)",
                        path, made, m->name, m->version ? m->version : "(none)");
}

/* The model to trace: named by arg, or result file's (a plug-in's by its library); it
 * must have a trace table and meet the contract's checks (a plug-in met them as it was
 * loaded; a built-in model is held to the same). */
static is_code trace_model(const char *arg, const char *file, is_cli_model_finder find,
                           void *context, const is_model **m, int *contained, is_error *err)
{
    is_code rc;
    if (!file) {
        rc = find(context, arg, m, contained, err);
    } else {
        is_results *r = NULL;
        rc = is_results_open(file, MPI_COMM_NULL, IS_RESULTS_READ, &r, err);
        if (rc != IS_OK)
            return rc;
        file_model f;
        read_file_model(r, &f);
        is_results_close(&r, NULL);
        rc = find(context, *f.library ? f.library : f.name, m, contained, err);
        if (rc != IS_OK) {
            char message[IS_ERROR_MESSAGE_MAX], made[4096 + 512];
            snprintf(message, sizeof message, "%s", err->message);
            describe_file_model(&f, made, sizeof made);
            return is_error_set(err, rc, "%s (%s was made by %s)", message, file, made);
        }
        if (*f.library) /* (a built-in model's: the engine's, as before) */
            rc = same_model(&f, file, *m, err);
    }
    if (rc == IS_OK && !(*m)->trace)
        return is_error_set(err, IS_USAGE,
                            "model %s has no trajectory to trace (its table has no trace)",
                            (*m)->name);
    return rc == IS_OK ? is_conformance_table(*m, err) : rc;
}

/* Runs the model's trace of the point into collector c (its own workspace). A signal
 * stops it with nothing written. */
static is_code run_trace(const is_model *m, const double *point, const double *options,
                         double *outputs, uint8_t *status, collector *c, size_t max_samples,
                         is_error *err)
{
    const is_model_trace *trace = m->trace;
    void *ws = NULL;
    is_code rc = m->workspace_create ? m->workspace_create(&ws, err) : IS_OK;
    if (rc == IS_OK) {
        is_signals_install(); /* ^C on a long point: nothing is written, exit 75 */
        if (m->workspace_watch)
            m->workspace_watch(ws, is_signals_flag());
        c->channels = trace->channel_count;
        c->max_samples = max_samples;
        c->err = err;
        while (trace->events && trace->events[c->kinds])
            c->kinds++;
        is_trace_sink sink = {collect_sample, collect_event, c};
        rc = trace->run(ws, point, options, &sink, outputs, status, err);
    }
    if (ws && m->workspace_free)
        m->workspace_free(ws);
    if (rc == IS_OK && *status == IS_POINT_PENDING)
        rc = is_error_set(err, IS_INTERRUPTED, "stopped by a signal: no trace written");
    return rc;
}

/* A trace being made: what the command line gave and what the run collects. */
typedef struct traced {
    trace_args a;
    const is_model *m;
    const char *file; /* a result file's point, or NULL */
    double *point, *options, *outputs;
    stored_point stored;
    collector c;
    char *history;
    uint8_t status;
} traced;

/* Before the run: the samples the model will give at its sampling rate within the window,
 * as it tells from the parameters (model.h: trace_samples). A request beyond --max-samples
 * is refused now, not when the cap is met minutes into the run; the samples at events
 * (their number is known only as the run goes) and a model that cannot tell meet the cap
 * as the trace runs. */
static is_code check_size(const traced *t, is_error *err)
{
    const is_model *m = t->m;
    const trace_args *a = &t->a;
    double samples = m->trace_samples ? m->trace_samples(t->point, t->options, a->window[0],
                                                         a->window[1])
                                      : NAN;
    if (!(samples > a->max_samples)) /* within the cap, or not known (NaN) */
        return IS_OK;
    double bytes = samples * (double)(m->trace->channel_count + 1) * sizeof(double);
    char size[32], options[256] = "";
    for (size_t o = 0; o < m->trace->option_count; o++) {
        size_t used = strlen(options);
        snprintf(options + used, sizeof options - used, "%s%s", o ? ", " : "",
                 m->trace->options[o].name);
    }
    return is_error_set(err, IS_USAGE,
                        "the trace of this point would hold %.0f samples of %zu channels "
                        "(%s), more than --max-samples %.0f: keep a part of the run "
                        "(--window T0,T1)%s%s%s, shorten the run, or raise --max-samples",
                        samples, m->trace->channel_count,
                        is_bytestext(size, sizeof size, bytes), a->max_samples,
                        *options ? ", sample it more coarsely (the trace's options: " : "",
                        options, *options ? ")" : "");
}

/* The model's own check of the point, its trace and the trace file: the exit status. */
static int trace_point(traced *t)
{
    is_error err;
    is_error_clear(&err);
    const is_model *m = t->m;
    is_code rc = m->validate ? m->validate(t->point, &err) : IS_OK;
    if (rc == IS_OK)
        rc = check_size(t, &err);
    t->c.t0 = t->a.window[0];
    t->c.t1 = t->a.window[1];
    if (rc == IS_OK)
        rc = run_trace(m, t->point, t->options, t->outputs, &t->status, &t->c,
                       (size_t)t->a.max_samples, &err);
    if (rc == IS_OK) {
        collector *c = &t->c;
        is_trace_data data = {.model = m, .point = t->point, .options = t->options,
                              .outputs = t->outputs, .status = t->status,
                              .sample_count = c->samples, .sample_t = c->t,
                              .samples = c->values, .event_count = c->events,
                              .event_t = c->event_t, .event_kind = c->event_kind,
                              .event_values = c->event_values,
                              .window = t->a.windowed ? t->a.window : NULL,
                              .source = t->a.source ? t->a.source : "parameters",
                              .history = t->history};
        rc = is_trace_file_write(t->a.output, t->a.overwrite, &data, &err);
    }
    if (rc != IS_OK) {
        fprintf(stderr, "impactsweep: %s\n", err.message);
        return is_code_exit_status(rc);
    }
    fprintf(stderr, "impactsweep: wrote %s: model %s, %zu samples, %zu events; the point is %s\n",
            t->a.output, m->name, t->c.samples, t->c.events, is_point_status_name(t->status));
    if (t->a.windowed && t->c.samples == 0)
        fprintf(stderr, "impactsweep: warning: no sample of the run lies in --window %s,%s\n",
                IS_NUM(t->a.window[0]), IS_NUM(t->a.window[1]));
    if (t->file)
        compare_stored(m, t->file, &t->stored, t->outputs, t->status);
    return t->status == IS_POINT_DONE ? 0 : 1;
}

/* trace_point in a child process (a plug-in's code: a crash, abort or exit() there costs
 * the trace, never an unexplained end): the command has no MPI and no open file now, so
 * a plain fork is a clean copy. The child's exit status comes through a pipe; without it,
 * the child died in the model's code. */
static int trace_point_contained(traced *t)
{
    int pipefd[2];
    if (pipe(pipefd) != 0)
        return trace_point(t);
    fflush(NULL);
    pid_t child = fork();
    if (child == 0) {
        close(pipefd[0]);
        unsigned char code = (unsigned char)trace_point(t);
        fflush(NULL);
        if (write(pipefd[1], &code, 1) != 1)
            _exit(1);
        _exit(code);
    }
    close(pipefd[1]);
    unsigned char code = 0;
    ssize_t n = child > 0 ? read(pipefd[0], &code, 1) : -1;
    close(pipefd[0]);
    int wstatus = 0;
    while (child > 0 && waitpid(child, &wstatus, 0) < 0 && errno == EINTR)
        ;
    if (n == 1)
        return code;
    if (child < 0)
        fprintf(stderr, "impactsweep: cannot start the trace: %s\n", strerror(errno));
    else if (WIFSIGNALED(wstatus))
        fprintf(stderr, "impactsweep: the model's code crashed with signal %d (%s) on this "
                        "point: no trace written\n",
                WTERMSIG(wstatus), strsignal(WTERMSIG(wstatus)));
    else
        fprintf(stderr, "impactsweep: the model's code ended the process with exit(%d) on "
                        "this point: no trace written\n",
                WEXITSTATUS(wstatus));
    return 1;
}

int is_cli_trace(int argc, char **argv, is_cli_model_finder find, void *context)
{
    is_error err;
    is_error_clear(&err);
    if (argc < 2) {
        fprintf(stderr, "impactsweep: trace needs a model or a result file (impactsweep trace "
                        "MODEL name=value ... | RESULT.h5 axis=value ...)\n");
        return is_code_exit_status(IS_USAGE);
    }
    traced t = {.a = {.output = "trace.h5", .max_samples = DEFAULT_MAX_SAMPLES,
                      .window = {-INFINITY, INFINITY}, .argc = argc},
                .status = IS_POINT_PENDING};
    trace_args *a = &t.a;
    t.file = is_file(argv[1]) && is_hdf5_file(argv[1]) ? argv[1] : NULL;
    t.history = command_line(argc, argv);
    int contained = 0;
    is_code rc = IS_OK;
    a->args = calloc((size_t)argc + 1, sizeof *a->args);
    if (!a->args || !t.history)
        rc = is_error_set(&err, IS_NOMEM, "out of memory");
    for (int i = 0; rc == IS_OK && i < argc; i++)
        a->args[i] = argv[i];
    if (rc == IS_OK)
        rc = trace_model(argv[1], t.file, find, context, &t.m, &contained, &err);
    const is_model *m = t.m;
    if (rc == IS_OK) {
        t.options = malloc((m->trace->option_count ? m->trace->option_count : 1) *
                           sizeof *t.options);
        t.outputs = malloc((is_model_value_count(m) ? is_model_value_count(m) : 1) *
                           sizeof *t.outputs);
        rc = t.options && t.outputs ? take_options(a, m->trace, t.options, &err)
                                    : is_error_set(&err, IS_NOMEM, "out of memory");
    }
    /* the point: as eval takes it, or a result file's */
    if (rc == IS_OK && !t.file) {
        if (!(t.point = malloc((m->param_count ? m->param_count : 1) * sizeof *t.point)))
            rc = is_error_set(&err, IS_NOMEM, "out of memory");
        else
            rc = is_cli_point_parse(m, a->args, 2, argc, t.point, &err);
    } else if (rc == IS_OK) {
        rc = point_of_file(t.file, a, m, &t.point, &t.stored, &err);
    }
    for (size_t o = 0; rc == IS_OK && o < m->trace->option_count; o++)
        if (isnan(t.options[o]))
            rc = is_error_set(&err, IS_USAGE, "the trace of %s needs %s=VALUE (%s)", m->name,
                              m->trace->options[o].name, m->trace->options[o].meaning);
    if (rc == IS_OK)
        rc = is_trace_file_check(a->output, a->overwrite, &err);
    if (rc != IS_OK)
        fprintf(stderr, "impactsweep: %s\n", err.message);
    int exit_status = rc != IS_OK  ? is_code_exit_status(rc)
                      : contained ? trace_point_contained(&t)
                                  : trace_point(&t);
    collector_free(&t.c);
    free(t.point);
    free(t.options);
    free(t.outputs);
    free(t.stored.outputs);
    free(a->source);
    free(a->args);
    free(t.history);
    return exit_status;
}
