/* job_values.c: a job's values: numbers, booleans and parameter values read and
 * checked, and the [sweep] and [model] sections interpreted through their key tables. */
#include "job_internal.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "engine.h"
#include "numtext.h"
#include "suggest.h"

/* --- pass 3: interpreting values ----------------------------------------------- */

/* Why a text is not a finite double: none (it is), not a number at all, or one whose
 * magnitude no double holds. A subnormal number (5e-324) is a number: strtod's ERANGE
 * for it only says that it lost precision, as the file and eval store it. */
typedef enum { REAL_OK, REAL_NOT_NUMBER, REAL_TOO_LARGE, REAL_TOO_SMALL } real_verdict;

static real_verdict read_real(const char *text, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(text, &end);
    int range = errno == ERANGE;
    if (end == text)
        return REAL_NOT_NUMBER;
    while (isspace((unsigned char)*end))
        end++;
    if (*end || isnan(v))
        return REAL_NOT_NUMBER;
    if (isinf(v))
        return REAL_TOO_LARGE; /* "inf", or beyond 1.8e308 */
    if (range && v == 0.0)
        return REAL_TOO_SMALL; /* a nonzero value below 4.9e-324 that rounds to 0 */
    *out = v;
    return REAL_OK;
}

/* Does text denote exactly the double v? Read again in long double (x86's 64-bit
 * mantissa holds every integer up to 2^64, so 2^53 + 1 reads as itself there). */
static int text_is_exactly(const char *text, double v)
{
    return strtold(text, NULL) == (long double)v;
}

int job_parse_real(const char *text, double *out)
{
    return read_real(text, out) == REAL_OK;
}

static int parse_bool(const char *text, int *out)
{
    static const char *const yes[] = {"1", "true", "yes", "on"}, *const no[] = {"0", "false", "no",
                                                                                "off"};
    for (int i = 0; i < 4; i++) {
        if (strcasecmp(text, yes[i]) == 0)
            return *out = 1, 1;
        if (strcasecmp(text, no[i]) == 0)
            return *out = 0, 1;
    }
    return 0;
}

/* A parameter value from text: a number, or for a choice one of its names. */
is_code job_parse_param_text(const is_param *param, const char *where, const char *text,
                             double *out, is_error *err)
{
    if (param->type == IS_PARAM_CHOICE) {
        for (int i = 0; param->choices[i]; i++)
            if (strcmp(param->choices[i], text) == 0) {
                *out = i;
                return IS_OK;
            }
        char range[256];
        is_param_format_range(param, range, sizeof range);
        return is_error_set(err, IS_PARAM, "%s: %s = '%s' is not one of: %s", where, param->name,
                            text, range);
    }
    switch (read_real(text, out)) {
    case REAL_OK:
        break;
    case REAL_TOO_LARGE:
        return is_error_set(err, IS_JOB,
                            "%s: %s = '%s' is not a finite number (a double holds magnitudes "
                            "up to 1.8e308)",
                            where, param->name, text);
    case REAL_TOO_SMALL:
        return is_error_set(err, IS_JOB,
                            "%s: %s = '%s' is below the smallest nonzero double (4.9e-324): it "
                            "would be stored as 0; write 0 if that is meant",
                            where, param->name, text);
    default:
        return is_error_set(err, IS_JOB, "%s: %s = '%s' is not a number", where, param->name, text);
    }
    if (param->type == IS_PARAM_INT && fabs(*out) >= 0x1p53 && !text_is_exactly(text, *out))
        return is_error_set(err, IS_PARAM,
                            "%s: %s = '%s' is an integer beyond 2^53 = 9007199254740992, where a "
                            "double does not hold every integer: it would be stored as %.0f",
                            where, param->name, text, *out);
    is_error detail;
    if (is_param_check(param, *out, &detail) != IS_OK)
        return is_error_set(err, IS_PARAM, "%s: %s", where, detail.message);
    return IS_OK;
}

/* "a, b, c" into out, cut short to fit its size; returns out. */
const char *job_list_names(char *out, size_t size, size_t count, name_getter *name,
                           const void *context)
{
    size_t used = 0;
    out[0] = '\0';
    for (size_t i = 0; i < count && used < size; i++)
        used += (size_t)snprintf(out + used, size - used, "%s%s", i ? ", " : "", name(context, i));
    return out;
}

static const char *param_name(const void *model, size_t i)
{
    return ((const is_model *)model)->params[i].name;
}

const char *job_output_name(const void *model, size_t i)
{
    return ((const is_model *)model)->outputs[i].name;
}

is_code is_job_parse_param_value(const is_model *model, const char *origin, const char *name,
                                 const char *value, double *out, is_error *err)
{
    int p = is_model_param_index(model, name);
    if (p < 0) {
        char known[512], hint[96];
        return is_error_set(
            err, IS_JOB, "%s: unknown parameter '%s' of model %s%s (known: %s)", origin, name,
            model->name,
            is_suggest_text(hint, sizeof hint,
                            is_suggest(name, model->param_count, param_name, model)),
            job_list_names(known, sizeof known, model->param_count, param_name, model));
    }
    return job_parse_param_text(&model->params[p], origin, value, out, err);
}

typedef is_code (*sweep_setter)(is_job *job, const entry *e, is_error *err);

/* A numeric key's admissible values: the interpreter checks them (with the table's text
 * of them in the message) before the setter runs, so a setter reads a valid number. */
typedef struct number_rule {
    int numeric;   /* 0: not a number key */
    double lo, hi; /* admissible range, lo excluded when lo_open */
    int lo_open, integer;
    const char *word; /* a word taken instead of a number ("auto", "none"), or NULL */
} number_rule;

#define NUMBER(lo, hi, lo_open, integer, word)                                                     \
    {                                                                                              \
        1, lo, hi, lo_open, integer, word                                                          \
    }
#define NOT_A_NUMBER                                                                               \
    {                                                                                              \
        0, 0, 0, 0, 0, NULL                                                                        \
    }

static int number_admissible(const number_rule *r, const char *text)
{
    double v;
    if (r->word && strcmp(text, r->word) == 0)
        return 1;
    if (!job_parse_real(text, &v) || !(r->lo_open ? v > r->lo : v >= r->lo) || !(v <= r->hi))
        return 0;
    return !r->integer || v == floor(v);
}

/* The value of a number key the interpreter has checked. */
static double number_of(const entry *e)
{
    double v = 0;
    job_parse_real(e->value, &v);
    return v;
}

static is_code set_output(is_job *job, const entry *e, is_error *err)
{
    if (!*e->value)
        return is_error_set(err, IS_JOB, "%s: [sweep] output: empty path", e->origin);
    free(job->output);
    job->output = job_copy_string(e->value);
    snprintf(job->output_origin, sizeof job->output_origin, "%s: [sweep] output", e->origin);
    return job->output ? IS_OK : is_error_set(err, IS_NOMEM, "out of memory");
}

static is_code set_title(is_job *job, const entry *e, is_error *err)
{
    free(job->title);
    job->title = job_copy_string(e->value);
    return job->title ? IS_OK : is_error_set(err, IS_NOMEM, "out of memory");
}

static is_code set_unit_size(is_job *job, const entry *e, is_error *err)
{
    (void)err;
    job->unit_size = strcmp(e->value, "auto") == 0 ? 0 : (uint64_t)number_of(e);
    return IS_OK;
}

static is_code set_unit_seconds(is_job *job, const entry *e, is_error *err)
{
    (void)err;
    job->unit_seconds = number_of(e);
    return IS_OK;
}

static is_code set_piece(is_job *job, const entry *e, is_error *err)
{
    unsigned long long index, count, first = 0, last = 0;
    int used = 0, end = 0;
    const char *v = e->value;
    int parsed = sscanf(v, "%llu/%llu%n:%llu-%llu%n", &index, &count, &used, &first, &last, &end);
    int plain = parsed == 2 && v[used] == '\0';
    int ranged = parsed == 4 && v[end] == '\0' && first <= last;
    if (!(plain || ranged) || count < 1 || index >= count || !isdigit((unsigned char)v[0]))
        return is_error_set(err, IS_JOB,
                            "%s: [sweep] piece = '%s': expected I/N with 0 <= I < N (e.g. "
                            "3/16), or I/N:FIRST-LAST with the piece's first and last point "
                            "(e.g. 3/16:1200-1319, as slurm/submit gives pieces of equal cost)",
                            e->origin, v);
    job->piece_index = index;
    job->piece_count = count;
    job->piece_ranged = ranged;
    job->piece_first = first;
    job->piece_last = ranged ? last + 1 : 0;
    return IS_OK;
}

static is_code set_progress_interval(is_job *job, const entry *e, is_error *err)
{
    (void)err;
    job->progress_interval = number_of(e);
    return IS_OK;
}

static is_code set_master_computes(is_job *job, const entry *e, is_error *err)
{
    if (!parse_bool(e->value, &job->master_computes))
        return is_error_set(err, IS_JOB,
                            "%s: [sweep] master_computes = '%s': expected true or false", e->origin,
                            e->value);
    return IS_OK;
}

/* The refine keys are kept as given and resolved once the model and the axes are known
 * (job_refine_resolve, below). */
static is_code keep_refine(is_job *job, int which, const entry *e, is_error *err)
{
    free(job->refine_spec[which]);
    job->refine_spec[which] = job_copy_string(e->value);
    snprintf(job->refine_origin[which], sizeof job->refine_origin[which], "%s", e->origin);
    return job->refine_spec[which] ? IS_OK : is_error_set(err, IS_NOMEM, "out of memory");
}

static is_code set_refine(is_job *job, const entry *e, is_error *err)
{
    return keep_refine(job, 0, e, err);
}

static is_code set_refine_threshold(is_job *job, const entry *e, is_error *err)
{
    return keep_refine(job, 1, e, err);
}

static is_code set_refine_axes(is_job *job, const entry *e, is_error *err)
{
    return keep_refine(job, 2, e, err);
}

static is_code set_refine_levels(is_job *job, const entry *e, is_error *err)
{
    (void)err;
    job->refine_levels = (unsigned)number_of(e);
    snprintf(job->refine_origin[3], sizeof job->refine_origin[3], "%s", e->origin);
    return IS_OK;
}

static is_code set_refine_margin(is_job *job, const entry *e, is_error *err)
{
    (void)err;
    job->refine_margin = number_of(e);
    snprintf(job->refine_origin[4], sizeof job->refine_origin[4], "%s", e->origin);
    return IS_OK;
}

static is_code set_containment(is_job *job, const entry *e, is_error *err)
{
    static const char *const names[] = {"auto", "process", "none"};
    for (int i = 0; i < 3; i++)
        if (strcmp(e->value, names[i]) == 0) {
            job->containment = i;
            return IS_OK;
        }
    return is_error_set(err, IS_JOB,
                        "%s: [sweep] containment = '%s': expected auto, process or none", e->origin,
                        e->value);
}

static is_code set_point_timeout(is_job *job, const entry *e, is_error *err)
{
    (void)err;
    job->point_timeout = strcmp(e->value, "none") == 0 ? 0 : number_of(e);
    if (job->point_timeout == 0)
        return IS_OK;
    snprintf(job->timeout_origin, sizeof job->timeout_origin, "%s", e->origin);
    return IS_OK;
}

int is_job_contained(const is_job *job)
{
    return job->containment == IS_CONTAINMENT_PROCESS ||
           (job->containment == IS_CONTAINMENT_AUTO &&
            (job->model_library != NULL || job->point_timeout > 0));
}

/* A point_timeout needs the model out of the engine's process: it is killed there. */
is_code job_check_containment(const is_job *job, is_error *err)
{
    if (job->point_timeout > 0 && job->containment == IS_CONTAINMENT_NONE)
        return is_error_set(err, IS_JOB,
                            "%s: [sweep] point_timeout = %s needs the model in an evaluator "
                            "process (containment auto or process, not none)",
                            job->timeout_origin, IS_NUM(job->point_timeout));
    return IS_OK;
}

static is_code set_verify(is_job *job, const entry *e, is_error *err)
{
    (void)err;
    job->verify_fraction = number_of(e);
    snprintf(job->verify_origin, sizeof job->verify_origin, "%s", e->origin);
    return IS_OK;
}

static is_code set_verify_tolerance(is_job *job, const entry *e, is_error *err)
{
    (void)err;
    job->verify_tolerance = number_of(e);
    return IS_OK;
}

static is_code set_model_checked(is_job *job, const entry *e, is_error *err)
{
    (void)job, (void)e, (void)err; /* resolved before the other keys, see job_find_model */
    return IS_OK;
}

/* [sweep]'s keys: each one's setter, and what the reference and the man page say of it
 * (admissible values, default, meaning: one line each). */
static const struct sweep_key {
    const char *name;
    sweep_setter set;
    number_rule number;
    const char *values, *fallback, *help;
} sweep_keys[] = {
    {"model", set_model_checked, NOT_A_NUMBER, "a model's name, or a plug-in library's path",
     "required",
     "the model to run (`impactsweep models` lists them; a relative path is taken from the "
     "job file's directory)"},
    {"output", set_output, NOT_A_NUMBER, "a file path", "the job file's name with .h5",
     "the result file (`run --output FILE` sets it too)"},
    {"title", set_title, NOT_A_NUMBER, "free text", "none", "a title stored with the results"},
    {"unit_size", set_unit_size, NUMBER(1, 1e12, 0, 1, "auto"),
     "auto, or an integer from 1 to 1e12", "auto",
     "points per work unit (auto: as many as take about unit_seconds)"},
    {"unit_seconds", set_unit_seconds, NUMBER(0.01, 86400, 0, 0, NULL),
     "seconds from 0.01 to 86400", "30",
     "target duration of a work unit (at most a quarter of the batch system's grace period, "
     "IMPACTSWEEP_GRACE)"},
    {"piece", set_piece, NOT_A_NUMBER, "I/N with 0 <= I < N, or I/N:FIRST-LAST",
     "none (the whole grid)",
     "compute only piece I of N of the grid: of equal size, or points FIRST to LAST (a box "
     "of the grid); `impactsweep merge` joins the pieces' files"},
    {"progress_interval", set_progress_interval, NUMBER(0, 1e7, 1, 0, NULL),
     "seconds above 0, at most 1e7", "5",
     "seconds between progress lines when stderr is not a terminal"},
    {"master_computes", set_master_computes, NOT_A_NUMBER, "true or false (1/0, yes/no, on/off)",
     "true", "rank 0 computes between serving work requests"},
    {"containment", set_containment, NOT_A_NUMBER, "auto, process or none", "auto",
     "where the model's code runs: auto puts a plug-in, or any model with a point_timeout, "
     "in an evaluator process (a crash or a hang costs only its point) and a built-in model "
     "in the engine; process: every model there; none: every model in the engine"},
    {"point_timeout", set_point_timeout, NUMBER(0.001, 1e7, 0, 0, "none"),
     "seconds from 0.001 to 1e7, or none", "none",
     "seconds a point may take before it is killed and stored as failed_timeout (needs "
     "containment auto or process)"},
    {"verify", set_verify, NUMBER(0, 1, 0, 0, NULL), "a share from 0 to 1", "0",
     "the share of points recomputed with each tolerance parameter / 100 (and another "
     "method, where the model has a choice of them) to measure each output's discrepancy "
     "(`impactsweep info` reports it; 0.01 adds about 3 % to a collision sweep with CVODE)"},
    {"verify_tolerance", set_verify_tolerance, NUMBER(0, 1e6, 1, 0, NULL),
     "a number above 0, at most 1e6", "1000 x the largest tolerance parameter's value",
     "the discrepancy beyond which a verified point counts as beyond (`run --strict` then "
     "exits 3)"},
    {"refine", set_refine, NOT_A_NUMBER, "OUTPUT or OUTPUT >= T, comma-separated",
     "none (every point)",
     "the outputs whose classes decide a coarse-to-fine sweep: cells whose corners differ "
     "in class, or lie near a threshold, are refined, the other points are inferred"},
    {"refine_levels", set_refine_levels, NUMBER(1, 30, 0, 1, NULL), "an integer from 1 to 30", "4",
     "levels of refinement L: the first pass computes every 2^L-th point"},
    {"refine_threshold", set_refine_threshold, NOT_A_NUMBER, "a number", "none",
     "with refine naming one real or integer output: its class is value >= threshold (the "
     "same as refine = OUTPUT >= threshold)"},
    {"refine_margin", set_refine_margin, NUMBER(0, 1e6, 0, 0, NULL), "a number from 0 to 1e6", "2",
     "a thresholded output also refines cells whose corners lie within this many times "
     "their interpolation error of the threshold (0: only cells whose classes differ)"},
    {"refine_axes", set_refine_axes, NOT_A_NUMBER, "axis names, comma-separated",
     "every axis that is not a choice", "the axes refined (the others are swept in full)"},
};

int job_sweep_key_doc(size_t i, is_job_key_doc *doc)
{
    if (i >= sizeof sweep_keys / sizeof *sweep_keys)
        return 0;
    const struct sweep_key *k = &sweep_keys[i];
    *doc = (is_job_key_doc){k->name, k->values, k->fallback, k->help};
    return 1;
}

static const char *sweep_key_name(const void *unused, size_t i)
{
    (void)unused;
    return sweep_keys[i].name;
}

/* Where section `name` starts ("job.ini:3"), or the file's name if it has none. */
const char *job_section_origin(const parse_state *ps, const char *name)
{
    for (size_t i = 0; i < ps->section_count; i++)
        if (strcmp(ps->sections[i].name, name) == 0)
            return ps->sections[i].origin;
    return ps->source;
}

static const char *model_name(const void *list, size_t i)
{
    return ((const is_model *const *)list)[i]->name;
}

static void list_models(const is_models *models, char *known, size_t size)
{
    const is_model *const *list = is_models_list(models);
    size_t count = 0;
    while (list[count])
        count++;
    job_list_names(known, size, count, model_name, list);
}

/* `model = path/to/libmodel.so`: a relative path is taken from the job file's directory
 * (from the working directory for a --set), and the entry then holds the absolute path,
 * so that the stored job text names the library wherever it is read. */
static is_code load_model_library(parse_state *ps, entry *e, is_job *job)
{
    const char *path = e->value;
    char *joined = NULL;
    const char *slash = strrchr(ps->source, '/');
    if (path[0] != '/' && e->line > 0 && slash) {
        size_t dir = (size_t)(slash - ps->source) + 1, size = dir + strlen(path) + 1;
        if (!(joined = malloc(size)))
            return is_error_set(ps->err, IS_NOMEM, "out of memory");
        snprintf(joined, size, "%.*s%s", (int)dir, ps->source, path);
        path = joined;
    }
    is_error detail;
    is_code rc = is_models_load(ps->models, path, &job->model, &detail);
    free(joined);
    if (rc != IS_OK)
        return is_error_set(ps->err, rc, "%s: [sweep] model: %s", e->origin, detail.message);
    const char *library = is_models_library(ps->models, job->model, &job->model_sha256);
    if (!job_replace_value(e, library))
        return is_error_set(ps->err, IS_NOMEM, "out of memory");
    job->model_library = library;
    return IS_OK;
}

is_code job_find_model(parse_state *ps, is_job *job)
{
    char known[256];
    entry *e = job_find_entry(ps, "sweep", "model");
    if (!e) {
        list_models(ps->models, known, sizeof known);
        return is_error_set(ps->err, IS_JOB, "%s: [sweep] model: missing (known models: %s)",
                            job_section_origin(ps, "sweep"), known);
    }
    if (is_models_is_path(e->value))
        return load_model_library(ps, e, job);
    is_error detail;
    is_code rc = is_models_lookup(ps->models, e->value, &job->model, &detail);
    list_models(ps->models, known, sizeof known);
    if (rc == IS_USAGE) {
        char hint[96];
        return is_error_set(
            ps->err, IS_JOB,
            "%s: [sweep] model = '%s': unknown model%s (known: %s; a plug-in is "
            "named by its path, or found through %s)",
            e->origin, e->value,
            is_suggest_text(hint, sizeof hint, is_models_suggest(ps->models, e->value)), known,
            IS_MODEL_PATH_VARIABLE);
    }
    if (rc != IS_OK)
        return is_error_set(ps->err, rc, "%s: [sweep] model: %s", e->origin, detail.message);
    job->model_library = is_models_library(ps->models, job->model, &job->model_sha256);
    return IS_OK;
}

is_code job_interpret_sweep(parse_state *ps, is_job *job)
{
    for (size_t i = 0; i < ps->entry_count; i++) {
        entry *e = &ps->entries[i];
        if (strcmp(e->section, "sweep") != 0)
            continue;
        const struct sweep_key *k = NULL;
        for (size_t j = 0; j < sizeof sweep_keys / sizeof *sweep_keys; j++)
            if (strcmp(sweep_keys[j].name, e->key) == 0)
                k = &sweep_keys[j];
        if (!k) {
            char known[256], hint[96];
            size_t count = sizeof sweep_keys / sizeof *sweep_keys;
            job_list_names(known, sizeof known, count, sweep_key_name, NULL);
            return is_error_set(
                ps->err, IS_JOB, "%s: [sweep] %s: unknown key%s (known: %s)", e->origin, e->key,
                is_suggest_text(hint, sizeof hint, is_suggest(e->key, count, sweep_key_name, NULL)),
                known);
        }
        if (k->number.numeric && !number_admissible(&k->number, e->value))
            return is_error_set(ps->err, IS_JOB, "%s: [sweep] %s = '%s': expected %s", e->origin,
                                e->key, e->value, k->values);
        is_code rc = k->set(job, e, ps->err);
        if (rc != IS_OK)
            return rc;
        e->used = 1;
    }
    return IS_OK;
}

is_code job_interpret_model(parse_state *ps, is_job *job, int *fixed_by)
{
    for (size_t i = 0; i < ps->entry_count; i++) {
        entry *e = &ps->entries[i];
        if (strcmp(e->section, "model") != 0)
            continue;
        char where[ORIGIN_MAX + 32];
        snprintf(where, sizeof where, "%s: [model]", e->origin);
        int p = is_model_param_index(job->model, e->key);
        is_code rc = is_job_parse_param_value(job->model, where, e->key, e->value,
                                              &job->fixed[p < 0 ? 0 : p], ps->err);
        if (rc != IS_OK)
            return rc;
        fixed_by[p] = (int)i;
        snprintf(job->param_origin[p], sizeof job->param_origin[p], "%s: [model] %s", e->origin,
                 e->key);
        e->used = 1;
    }
    return IS_OK;
}
