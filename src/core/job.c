/* job.c: job-file parsing (libinih), --set overrides, and checking every key.
 *
 * Three passes: collect (section, key, value, where) entries from the file, with a
 * scan of the section headers that inih does not report; apply the overrides; then
 * interpret [sweep] through its key table, [model] and [axis.NAME] through the model's
 * parameter table. Nothing is written anywhere until all of it has passed. */
#include "job.h"

#include <ctype.h>
#include <errno.h>
#include <ini.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "../models/registry.h"

#define ORIGIN_MAX 320

typedef struct entry {
    char *section, *key, *value;
    char origin[ORIGIN_MAX]; /* "file:line" or "--set 'section.key=value'" */
    int line;                /* 0 for overrides */
    int used;
} entry;

typedef struct section_header {
    char *name;
    char origin[ORIGIN_MAX];
    int line;
} section_header;

typedef struct parse_state {
    const char *source;
    const char *cursor; /* reader position in the text */
    int line;           /* number of the line inih is handling */
    int indented;       /* that line starts with a blank: inih's continuation line */
    entry *entries;
    size_t entry_count, entry_capacity;
    section_header *sections;
    size_t section_count, section_capacity;
    is_error *err;
    is_code rc;
} parse_state;

static char *copy_string(const char *s)
{
    size_t n = strlen(s) + 1;
    char *c = malloc(n);
    if (c)
        memcpy(c, s, n);
    return c;
}

static char *trim(char *s)
{
    while (isspace((unsigned char)*s))
        s++;
    char *end = s + strlen(s);
    while (end > s && isspace((unsigned char)end[-1]))
        *--end = '\0';
    return s;
}

/* --- pass 1: collecting entries ------------------------------------------------ */

static char *read_line(char *str, int num, void *stream)
{
    parse_state *ps = stream;
    if (!*ps->cursor)
        return NULL;
    ps->indented = *ps->cursor == ' ' || *ps->cursor == '\t';
    int i = 0;
    while (*ps->cursor && i < num - 1) {
        char c = *ps->cursor++;
        str[i++] = c;
        if (c == '\n')
            break;
    }
    str[i] = '\0';
    ps->line++;
    return str;
}

static int grow(void **array, size_t *capacity, size_t count, size_t size)
{
    if (count < *capacity)
        return 1;
    size_t cap = *capacity ? *capacity * 2 : 16;
    void *a = realloc(*array, cap * size);
    if (!a)
        return 0;
    *array = a;
    *capacity = cap;
    return 1;
}

static entry *find_entry(parse_state *ps, const char *section, const char *key)
{
    for (size_t i = 0; i < ps->entry_count; i++)
        if (strcmp(ps->entries[i].section, section) == 0 && strcmp(ps->entries[i].key, key) == 0)
            return &ps->entries[i];
    return NULL;
}

static int add_entry(parse_state *ps, const char *section, const char *key, const char *value,
                     const char *origin, int line)
{
    if (!grow((void **)&ps->entries, &ps->entry_capacity, ps->entry_count, sizeof(entry))) {
        ps->rc = is_error_set(ps->err, IS_NOMEM, "out of memory reading the job");
        return 0;
    }
    entry *e = &ps->entries[ps->entry_count];
    e->section = copy_string(section);
    e->key = copy_string(key);
    e->value = copy_string(value);
    if (!e->section || !e->key || !e->value) {
        free(e->section);
        free(e->key);
        free(e->value);
        ps->rc = is_error_set(ps->err, IS_NOMEM, "out of memory reading the job");
        return 0;
    }
    snprintf(e->origin, sizeof e->origin, "%s", origin);
    e->line = line;
    e->used = 0;
    ps->entry_count++;
    return 1;
}

static int on_key(void *user, const char *section, const char *name, const char *value)
{
    parse_state *ps = user;
    if (ps->rc != IS_OK)
        return 0;
    if (!*section) {
        ps->rc = is_error_set(ps->err, IS_JOB, "%s:%d: key '%s' comes before any [section]",
                              ps->source, ps->line, name);
        return 0;
    }
    entry *previous = find_entry(ps, section, name);
    if (previous && ps->indented) {
        /* inih's multi-line value: an indented line continues the previous key */
        size_t n = strlen(previous->value) + strlen(value) + 2;
        char *joined = malloc(n);
        if (!joined) {
            ps->rc = is_error_set(ps->err, IS_NOMEM, "out of memory reading the job");
            return 0;
        }
        snprintf(joined, n, "%s %s", previous->value, value);
        free(previous->value);
        previous->value = joined;
        previous->line = ps->line;
        return 1;
    }
    if (previous) {
        ps->rc = is_error_set(ps->err, IS_JOB, "%s:%d: [%s] %s: key given twice (first at %s)",
                              ps->source, ps->line, section, name, previous->origin);
        return 0;
    }
    char origin[ORIGIN_MAX];
    snprintf(origin, sizeof origin, "%s:%d", ps->source, ps->line);
    return add_entry(ps, section, name, value, origin, ps->line);
}

/* inih's line buffer in Debian's build; a longer line would be split in two. */
#define INIH_LINE_MAX 200

/* inih does not report section headers, so empty or repeated sections would go
 * unnoticed; this scan records each header with its line. It also rejects what inih
 * would silently misread: over-long lines and blanks inside the brackets. */
static is_code scan_sections(parse_state *ps, const char *text)
{
    int line = 0;
    for (const char *p = text; *p;) {
        const char *eol = strchr(p, '\n');
        size_t len = eol ? (size_t)(eol - p) : strlen(p);
        line++;
        if (len + 1 >= INIH_LINE_MAX)
            return is_error_set(ps->err, IS_JOB,
                                "%s:%d: line longer than %d characters; continue long values "
                                "on indented lines",
                                ps->source, line, INIH_LINE_MAX - 2);
        char buf[INIH_LINE_MAX];
        memcpy(buf, p, len);
        buf[len] = '\0';
        char *s = trim(buf);
        if (*s == '[') {
            char *close = strchr(s, ']');
            if (!close)
                return is_error_set(ps->err, IS_JOB, "%s:%d: section header without ']'",
                                    ps->source, line);
            char *name = s + 1;
            int blank_end = close > name && isspace((unsigned char)close[-1]);
            *close = '\0';
            if (blank_end || !*name || name != trim(name))
                return is_error_set(ps->err, IS_JOB,
                                    "%s:%d: [%s]: no blanks inside a section header", ps->source,
                                    line, name);
            for (size_t i = 0; i < ps->section_count; i++)
                if (strcmp(ps->sections[i].name, name) == 0)
                    return is_error_set(ps->err, IS_JOB,
                                        "%s:%d: section [%s] appears twice (first at %s)",
                                        ps->source, line, name, ps->sections[i].origin);
            if (!grow((void **)&ps->sections, &ps->section_capacity, ps->section_count,
                      sizeof(section_header)))
                return is_error_set(ps->err, IS_NOMEM, "out of memory reading the job");
            section_header *h = &ps->sections[ps->section_count];
            h->name = copy_string(name);
            if (!h->name)
                return is_error_set(ps->err, IS_NOMEM, "out of memory reading the job");
            snprintf(h->origin, sizeof h->origin, "%s:%d", ps->source, line);
            h->line = line;
            ps->section_count++;
        }
        p += len;
        if (eol)
            p = eol + 1;
        else
            break;
    }
    return IS_OK;
}

static is_code apply_override(parse_state *ps, const char *override)
{
    char origin[ORIGIN_MAX];
    snprintf(origin, sizeof origin, "--set '%s'", override);
    const char *eq = strchr(override, '=');
    if (!eq)
        return is_error_set(ps->err, IS_USAGE, "%s: expected section.key=value", origin);
    char path[256];
    size_t len = (size_t)(eq - override);
    if (len >= sizeof path)
        return is_error_set(ps->err, IS_USAGE, "%s: key too long", origin);
    memcpy(path, override, len);
    path[len] = '\0';
    char *full = trim(path);
    char *dot = strrchr(full, '.');
    if (!dot || dot == full || !dot[1])
        return is_error_set(ps->err, IS_USAGE,
                            "%s: expected section.key=value (e.g. model.gamma=0.2)", origin);
    *dot = '\0';
    char *section = trim(full), *key = trim(dot + 1);
    char value[1024];
    snprintf(value, sizeof value, "%s", eq + 1);
    char *v = trim(value);
    entry *e = find_entry(ps, section, key);
    if (e) {
        char *copy = copy_string(v);
        if (!copy)
            return is_error_set(ps->err, IS_NOMEM, "out of memory");
        free(e->value);
        e->value = copy;
        snprintf(e->origin, sizeof e->origin, "%s", origin);
        e->line = 0;
        return IS_OK;
    }
    if (!add_entry(ps, section, key, v, origin, 0))
        return ps->rc;
    int known = 0;
    for (size_t i = 0; i < ps->section_count; i++)
        known |= strcmp(ps->sections[i].name, section) == 0;
    if (!known) {
        if (!grow((void **)&ps->sections, &ps->section_capacity, ps->section_count,
                  sizeof(section_header)))
            return is_error_set(ps->err, IS_NOMEM, "out of memory");
        section_header *h = &ps->sections[ps->section_count];
        h->name = copy_string(section);
        if (!h->name)
            return is_error_set(ps->err, IS_NOMEM, "out of memory");
        snprintf(h->origin, sizeof h->origin, "%s", origin);
        h->line = 0;
        ps->section_count++;
    }
    return IS_OK;
}

/* --- pass 3: interpreting values ----------------------------------------------- */

static int parse_real(const char *text, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(text, &end);
    if (end == text || errno == ERANGE || !isfinite(v))
        return 0;
    while (isspace((unsigned char)*end))
        end++;
    if (*end)
        return 0;
    *out = v;
    return 1;
}

static int parse_bool(const char *text, int *out)
{
    static const char *const yes[] = {"1", "true", "yes", "on"}, *const no[] = {"0", "false",
                                                                                 "no", "off"};
    for (int i = 0; i < 4; i++) {
        if (strcasecmp(text, yes[i]) == 0)
            return *out = 1, 1;
        if (strcasecmp(text, no[i]) == 0)
            return *out = 0, 1;
    }
    return 0;
}

/* A parameter value from text: a number, or for a choice one of its names. */
static is_code parse_param_text(const is_param *param, const char *where, const char *text,
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
        return is_error_set(err, IS_PARAM, "%s: %s = '%s' is not one of: %s", where,
                            param->name, text, range);
    }
    if (!parse_real(text, out))
        return is_error_set(err, IS_JOB, "%s: %s = '%s' is not a number", where, param->name,
                            text);
    is_error detail;
    if (is_param_check(param, *out, &detail) != IS_OK)
        return is_error_set(err, IS_PARAM, "%s: %s", where, detail.message);
    return IS_OK;
}

is_code is_job_parse_param_value(const is_model *model, const char *origin, const char *name,
                                 const char *value, double *out, is_error *err)
{
    int p = is_model_param_index(model, name);
    if (p < 0) {
        char known[512] = "";
        size_t used = 0;
        for (size_t i = 0; i < model->param_count && used < sizeof known; i++)
            used += (size_t)snprintf(known + used, sizeof known - used, "%s%s", i ? ", " : "",
                                     model->params[i].name);
        return is_error_set(err, IS_JOB, "%s: unknown parameter '%s' of model %s (known: %s)",
                            origin, name, model->name, known);
    }
    return parse_param_text(&model->params[p], origin, value, out, err);
}

typedef is_code (*sweep_setter)(is_job *job, const entry *e, is_error *err);

static is_code set_output(is_job *job, const entry *e, is_error *err)
{
    if (!*e->value)
        return is_error_set(err, IS_JOB, "%s: [sweep] output: empty path", e->origin);
    free(job->output);
    job->output = copy_string(e->value);
    snprintf(job->output_origin, sizeof job->output_origin, "%s: [sweep] output", e->origin);
    return job->output ? IS_OK : is_error_set(err, IS_NOMEM, "out of memory");
}

static is_code set_title(is_job *job, const entry *e, is_error *err)
{
    free(job->title);
    job->title = copy_string(e->value);
    return job->title ? IS_OK : is_error_set(err, IS_NOMEM, "out of memory");
}

static is_code set_unit_size(is_job *job, const entry *e, is_error *err)
{
    double v;
    if (strcmp(e->value, "auto") == 0) {
        job->unit_size = 0;
        return IS_OK;
    }
    if (!parse_real(e->value, &v) || v < 1 || v != floor(v) || v > 1e12)
        return is_error_set(err, IS_JOB,
                            "%s: [sweep] unit_size = '%s': expected 'auto' or an integer >= 1",
                            e->origin, e->value);
    job->unit_size = (uint64_t)v;
    return IS_OK;
}

static is_code set_unit_seconds(is_job *job, const entry *e, is_error *err)
{
    double v;
    if (!parse_real(e->value, &v) || !(v >= 0.01 && v <= 86400))
        return is_error_set(err, IS_JOB,
                            "%s: [sweep] unit_seconds = '%s': expected seconds from 0.01 to "
                            "86400",
                            e->origin, e->value);
    job->unit_seconds = v;
    return IS_OK;
}

static is_code set_piece(is_job *job, const entry *e, is_error *err)
{
    unsigned long long index, count;
    char tail;
    if (sscanf(e->value, "%llu/%llu%c", &index, &count, &tail) != 2 || count < 1 || index >= count)
        return is_error_set(err, IS_JOB,
                            "%s: [sweep] piece = '%s': expected I/N with 0 <= I < N (e.g. 3/16)",
                            e->origin, e->value);
    job->piece_index = index;
    job->piece_count = count;
    return IS_OK;
}

static is_code set_progress_interval(is_job *job, const entry *e, is_error *err)
{
    double v;
    if (!parse_real(e->value, &v) || !(v > 0))
        return is_error_set(err, IS_JOB,
                            "%s: [sweep] progress_interval = '%s': expected seconds > 0",
                            e->origin, e->value);
    job->progress_interval = v;
    return IS_OK;
}

static is_code set_master_computes(is_job *job, const entry *e, is_error *err)
{
    if (!parse_bool(e->value, &job->master_computes))
        return is_error_set(err, IS_JOB,
                            "%s: [sweep] master_computes = '%s': expected true or false",
                            e->origin, e->value);
    return IS_OK;
}

static is_code set_model_checked(is_job *job, const entry *e, is_error *err)
{
    (void)job, (void)e, (void)err; /* resolved before the other keys, see find_model */
    return IS_OK;
}

static const struct sweep_key {
    const char *name;
    sweep_setter set;
    const char *help;
} sweep_keys[] = {
    {"model", set_model_checked, "the model to run (see `impactsweep models`)"},
    {"output", set_output, "result file path (default: the job file's name with .h5)"},
    {"title", set_title, "free text stored with the results"},
    {"unit_size", set_unit_size,
     "points per work unit, or auto (units of unit_seconds, the default)"},
    {"unit_seconds", set_unit_seconds,
     "target duration of a work unit in seconds (default 30; at most a quarter of the "
     "batch system's grace period)"},
    {"piece", set_piece,
     "I/N: compute only piece I of N equal parts of the grid (job arrays; merge the files)"},
    {"progress_interval", set_progress_interval,
     "seconds between progress lines when stderr is not a terminal (default 5)"},
    {"master_computes", set_master_computes,
     "rank 0 computes between serving work requests (default true)"},
};

static void list_models(char *known, size_t size)
{
    size_t used = 0;
    known[0] = '\0';
    for (const is_model *const *m = is_registry_models(); *m && used < size; m++)
        used += (size_t)snprintf(known + used, size - used, "%s%s", used ? ", " : "",
                                 (*m)->name);
}

static is_code find_model(parse_state *ps, is_job *job)
{
    char known[256];
    list_models(known, sizeof known);
    entry *e = find_entry(ps, "sweep", "model");
    if (!e)
        return is_error_set(ps->err, IS_JOB, "%s: [sweep] model: missing (known models: %s)",
                            ps->source, known);
    job->model = is_registry_find(e->value);
    if (!job->model)
        return is_error_set(ps->err, IS_JOB, "%s: [sweep] model = '%s': unknown model (known: %s)",
                            e->origin, e->value, known);
    return IS_OK;
}

static is_code interpret_sweep(parse_state *ps, is_job *job)
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
            char known[256] = "";
            size_t used = 0;
            for (size_t j = 0; j < sizeof sweep_keys / sizeof *sweep_keys; j++)
                used += (size_t)snprintf(known + used, sizeof known - used, "%s%s",
                                         j ? ", " : "", sweep_keys[j].name);
            return is_error_set(ps->err, IS_JOB, "%s: [sweep] %s: unknown key (known: %s)",
                                e->origin, e->key, known);
        }
        is_code rc = k->set(job, e, ps->err);
        if (rc != IS_OK)
            return rc;
        e->used = 1;
    }
    return IS_OK;
}

static is_code interpret_model(parse_state *ps, is_job *job, int *fixed_by)
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
        e->used = 1;
    }
    return IS_OK;
}

/* Splits "a, b, c" (commas and/or blanks) and parses each value. */
static is_code parse_value_list(const is_param *param, const entry *e, is_axis *axis,
                                is_error *err)
{
    size_t capacity = 8, count = 0;
    double *values = malloc(capacity * sizeof *values);
    char *text = copy_string(e->value);
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
        rc = parse_param_text(param, where, tok, &values[count], err);
        if (rc != IS_OK)
            break;
        count++;
    }
    free(text);
    if (rc == IS_OK && count == 0)
        rc = is_error_set(err, IS_JOB, "%s: [axis.%s] values: empty list", e->origin,
                          param->name);
    if (rc != IS_OK) {
        free(values);
        return rc;
    }
    is_axis_set_values(axis, values, count);
    return IS_OK;
}

static is_code interpret_axis(parse_state *ps, is_job *job, const section_header *h,
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
        return is_error_set(ps->err, IS_JOB, "%s: [%s]: parameter %s cannot be swept",
                            h->origin, h->name, name);
    if (fixed_by[p] >= 0)
        return is_error_set(ps->err, IS_JOB,
                            "%s: [%s]: %s is also fixed in [model] at %s; give it one place",
                            h->origin, h->name, name, ps->entries[fixed_by[p]].origin);
    if (job->grid.axis_count == IS_GRID_MAX_AXES)
        return is_error_set(ps->err, IS_JOB, "%s: [%s]: more than %d axes", h->origin, h->name,
                            IS_GRID_MAX_AXES);

    entry *from = NULL, *to = NULL, *count = NULL, *scale = NULL, *values = NULL;
    for (size_t i = 0; i < ps->entry_count; i++) {
        entry *e = &ps->entries[i];
        if (strcmp(e->section, h->name) != 0)
            continue;
        entry **slot = strcmp(e->key, "from") == 0     ? &from
                       : strcmp(e->key, "to") == 0     ? &to
                       : strcmp(e->key, "count") == 0  ? &count
                       : strcmp(e->key, "scale") == 0  ? &scale
                       : strcmp(e->key, "values") == 0 ? &values
                                                       : NULL;
        if (!slot)
            return is_error_set(ps->err, IS_JOB,
                                "%s: [%s] %s: unknown key (known: from, to, count, scale, "
                                "values)",
                                e->origin, h->name, e->key);
        *slot = e;
        e->used = 1;
    }
    is_axis *axis = &job->grid.axes[job->grid.axis_count];
    memset(axis, 0, sizeof *axis);
    axis->param = p;
    job->grid.axis_count++;

    if (values) {
        const entry *extra = from ? from : to ? to : count ? count : scale;
        if (extra)
            return is_error_set(ps->err, IS_JOB,
                                "%s: [%s] %s: give either 'values' (at %s) or from/to/count, "
                                "not both",
                                extra->origin, h->name, extra->key, values->origin);
        is_code rc = parse_value_list(param, values, axis, ps->err);
        if (rc != IS_OK)
            return rc;
    } else {
        if (!from || !count)
            return is_error_set(ps->err, IS_JOB,
                                "%s: [%s]: needs 'from', 'to' and 'count', or 'values'",
                                h->origin, h->name);
        double n;
        if (!parse_real(count->value, &n) || n < 1 || n != floor(n) || n > 1e9)
            return is_error_set(ps->err, IS_JOB,
                                "%s: [%s] count = '%s': expected an integer >= 1",
                                count->origin, h->name, count->value);
        if (!to && n > 1)
            return is_error_set(ps->err, IS_JOB, "%s: [%s]: 'to' is missing (count is %g)",
                                h->origin, h->name, n);
        is_axis_scale sc = IS_SCALE_LINEAR;
        if (scale && strcmp(scale->value, "log") == 0)
            sc = IS_SCALE_LOG;
        else if (scale && strcmp(scale->value, "linear") != 0)
            return is_error_set(ps->err, IS_JOB,
                                "%s: [%s] scale = '%s': expected linear or log", scale->origin,
                                h->name, scale->value);
        if (param->type == IS_PARAM_CHOICE)
            return is_error_set(ps->err, IS_JOB,
                                "%s: [%s]: %s is a choice; sweep it with 'values'", h->origin,
                                h->name, name);
        double lo, hi;
        char where[ORIGIN_MAX + 64];
        snprintf(where, sizeof where, "%s: [%s] from", from->origin, h->name);
        is_code rc = parse_param_text(param, where, from->value, &lo, ps->err);
        if (rc != IS_OK)
            return rc;
        hi = lo;
        if (to) {
            snprintf(where, sizeof where, "%s: [%s] to", to->origin, h->name);
            rc = parse_param_text(param, where, to->value, &hi, ps->err);
            if (rc != IS_OK)
                return rc;
        }
        is_error detail;
        rc = is_axis_fill(axis, sc, lo, hi, (size_t)n, &detail);
        if (rc != IS_OK)
            return is_error_set(ps->err, rc, "%s: [%s]: %s", (scale ? scale : from)->origin,
                                h->name, detail.message);
        if (param->type == IS_PARAM_INT)
            is_axis_set_integral(axis);
        /* Short axes are checked value by value here, with the line to blame; the
         * values of a long one are checked by all ranks together (is_validate_grid). */
        for (size_t i = 0; axis->values && i < axis->count; i++) {
            rc = is_param_check(param, axis->values[i], &detail);
            if (rc != IS_OK)
                return is_error_set(ps->err, rc, "%s: [%s]: value %zu of the axis: %s",
                                    h->origin, h->name, i + 1, detail.message);
        }
    }
    snprintf(job->axis_origin[job->grid.axis_count - 1], sizeof job->axis_origin[0], "%s: [%s]",
             h->origin, h->name);
    job->fixed[p] = is_axis_value(axis, 0);
    return IS_OK;
}

/* --- canonical text and fingerprint ---------------------------------------------- */

typedef struct text_buffer {
    char *data;
    size_t length, capacity;
    int failed;
} text_buffer;

static void append(text_buffer *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void append(text_buffer *b, const char *fmt, ...)
{
    if (b->failed)
        return;
    for (;;) {
        va_list ap;
        va_start(ap, fmt);
        int w = vsnprintf(b->data ? b->data + b->length : NULL,
                          b->data ? b->capacity - b->length : 0, fmt, ap);
        va_end(ap);
        if (w < 0) {
            b->failed = 1;
            return;
        }
        if (b->data && b->length + (size_t)w < b->capacity) {
            b->length += (size_t)w;
            return;
        }
        size_t cap = b->capacity ? b->capacity : 1024;
        while (cap <= b->length + (size_t)w)
            cap *= 2;
        char *d = realloc(b->data, cap);
        if (!d) {
            b->failed = 1;
            return;
        }
        b->data = d;
        b->capacity = cap;
    }
}

static void append_section(text_buffer *b, parse_state *ps, const char *section)
{
    append(b, "[%s]\n", section);
    for (size_t i = 0; i < ps->entry_count; i++)
        if (strcmp(ps->entries[i].section, section) == 0)
            append(b, "%s = %s\n", ps->entries[i].key, ps->entries[i].value);
}

static uint64_t fnv1a(uint64_t h, const void *data, size_t size)
{
    const unsigned char *p = data;
    for (size_t i = 0; i < size; i++) {
        h ^= p[i];
        h *= 0x100000001B3ull;
    }
    return h;
}

/* A linear or log axis enters by its formula, so that the digest costs O(axes), not
 * O(points); an explicit axis by its values. */
static uint64_t job_fingerprint(const is_job *job)
{
    uint64_t h = 0xCBF29CE484222325ull;
    h = fnv1a(h, job->model->name, strlen(job->model->name) + 1);
    h = fnv1a(h, job->fixed, job->model->param_count * sizeof *job->fixed);
    for (size_t k = 0; k < job->grid.axis_count; k++) {
        const is_axis *a = &job->grid.axes[k];
        uint64_t header[4] = {(uint64_t)a->param, (uint64_t)a->count, (uint64_t)a->scale,
                              (uint64_t)a->integral};
        h = fnv1a(h, header, sizeof header);
        if (a->scale == IS_SCALE_VALUES) {
            h = fnv1a(h, a->values, a->count * sizeof *a->values);
        } else {
            double ends[2] = {a->from, a->to};
            h = fnv1a(h, ends, sizeof ends);
        }
    }
    return h;
}

static char *default_output(const char *source)
{
    const char *base = strrchr(source, '/');
    base = base ? base + 1 : source;
    size_t len = strlen(base);
    const char *dot = strrchr(base, '.');
    if (dot && dot != base)
        len = (size_t)(dot - base);
    char *out = malloc(len + 4);
    if (out) {
        memcpy(out, base, len);
        memcpy(out + len, ".h5", 4);
    }
    return out;
}

/* --- the whole parse -------------------------------------------------------------- */

static void free_state(parse_state *ps)
{
    for (size_t i = 0; i < ps->entry_count; i++) {
        free(ps->entries[i].section);
        free(ps->entries[i].key);
        free(ps->entries[i].value);
    }
    free(ps->entries);
    for (size_t i = 0; i < ps->section_count; i++)
        free(ps->sections[i].name);
    free(ps->sections);
}

static is_code interpret(parse_state *ps, is_job *job)
{
    is_code rc = find_model(ps, job);
    if (rc != IS_OK)
        return rc;
    const is_model *model = job->model;
    job->fixed = malloc(model->param_count * sizeof *job->fixed);
    int *fixed_by = malloc(model->param_count * sizeof *fixed_by);
    if (!job->fixed || !fixed_by) {
        free(fixed_by);
        return is_error_set(ps->err, IS_NOMEM, "out of memory");
    }
    for (size_t p = 0; p < model->param_count; p++) {
        job->fixed[p] = model->params[p].default_value;
        fixed_by[p] = -1;
    }
    for (size_t i = 0; i < ps->section_count && rc == IS_OK; i++) {
        const section_header *h = &ps->sections[i];
        if (strcmp(h->name, "sweep") && strcmp(h->name, "model") &&
            strncmp(h->name, "axis.", 5) != 0)
            rc = is_error_set(ps->err, IS_JOB,
                              "%s: [%s]: unknown section (known: [sweep], [model], "
                              "[axis.PARAMETER])",
                              h->origin, h->name);
    }
    if (rc == IS_OK)
        rc = interpret_sweep(ps, job);
    if (rc == IS_OK)
        rc = interpret_model(ps, job, fixed_by);
    for (size_t i = 0; i < ps->section_count && rc == IS_OK; i++) {
        const section_header *h = &ps->sections[i];
        if (strncmp(h->name, "axis.", 5) != 0)
            continue;
        int has_keys = 0;
        for (size_t j = 0; j < ps->entry_count; j++)
            has_keys |= strcmp(ps->entries[j].section, h->name) == 0;
        if (!has_keys)
            rc = is_error_set(ps->err, IS_JOB, "%s: [%s]: the axis has no keys", h->origin,
                              h->name);
        else
            rc = interpret_axis(ps, job, h, fixed_by);
        int p = is_model_param_index(model, h->name + 5);
        for (size_t k = 0; rc == IS_OK && k + 1 < job->grid.axis_count; k++)
            if (job->grid.axes[k].param == p)
                rc = is_error_set(ps->err, IS_JOB, "%s: [%s]: axis given twice", h->origin,
                                  h->name);
    }
    for (size_t p = 0; p < model->param_count && rc == IS_OK; p++) {
        if (!isnan(job->fixed[p]))
            continue;
        rc = is_error_set(ps->err, IS_JOB,
                          "%s: parameter %s of model %s has no default: give it in [model] "
                          "or sweep it in [axis.%s]",
                          ps->source, model->params[p].name, model->name,
                          model->params[p].name);
    }
    free(fixed_by);
    if (rc != IS_OK)
        return rc;
    for (size_t i = 0; i < ps->entry_count; i++)
        if (!ps->entries[i].used)
            return is_error_set(ps->err, IS_JOB, "%s: [%s] %s: unknown section or key",
                                ps->entries[i].origin, ps->entries[i].section,
                                ps->entries[i].key);
    job->grid.base = job->fixed;
    job->grid.param_count = model->param_count;
    is_error detail;
    rc = is_grid_finish(&job->grid, &detail);
    if (rc != IS_OK)
        return is_error_set(ps->err, rc, "%s: %s", ps->source, detail.message);
    if (!job->output) {
        if (!(job->output = default_output(ps->source)))
            return is_error_set(ps->err, IS_NOMEM, "out of memory");
        snprintf(job->output_origin, sizeof job->output_origin,
                 "%s: the default output (the job file's name with .h5)", ps->source);
    }
    uint64_t total = job->grid.point_count;
    if (job->piece_count > total || job->piece_count > (UINT64_C(1) << 20)) {
        const entry *e = find_entry(ps, "sweep", "piece");
        return is_error_set(ps->err, IS_JOB, "%s: [sweep] piece: %llu pieces for %llu points",
                            e ? e->origin : ps->source, (unsigned long long)job->piece_count,
                            (unsigned long long)total);
    }
    is_grid_piece(&job->grid, job->piece_count, job->piece_index, &job->piece_box,
                  &job->piece_first, &job->piece_last);

    text_buffer text = {0};
    append_section(&text, ps, "sweep");
    int has_model_keys = 0;
    for (size_t i = 0; i < ps->entry_count; i++)
        has_model_keys |= strcmp(ps->entries[i].section, "model") == 0;
    if (has_model_keys) {
        append(&text, "\n");
        append_section(&text, ps, "model");
    }
    for (size_t k = 0; k < job->grid.axis_count; k++) {
        char section[128];
        snprintf(section, sizeof section, "axis.%s", model->params[job->grid.axes[k].param].name);
        append(&text, "\n");
        append_section(&text, ps, section);
    }
    if (text.failed) {
        free(text.data);
        return is_error_set(ps->err, IS_NOMEM, "out of memory");
    }
    job->text = text.data;
    job->fingerprint = job_fingerprint(job);
    return IS_OK;
}

is_code is_job_parse(const char *source, const char *text, const char *const *overrides,
                     size_t override_count, is_job **out, is_error *err)
{
    *out = NULL;
    is_job *job = calloc(1, sizeof *job);
    parse_state ps = {.source = source, .cursor = text, .err = err, .rc = IS_OK};
    if (!job || !(job->source = copy_string(source))) {
        free(job);
        return is_error_set(err, IS_NOMEM, "out of memory");
    }
    job->progress_interval = 5.0;
    job->master_computes = 1;
    job->unit_seconds = 30.0;
    job->piece_count = 1;
    is_code rc = scan_sections(&ps, text);
    if (rc == IS_OK) {
        int bad_line = ini_parse_stream(read_line, &ps, on_key, &ps);
        if (ps.rc != IS_OK)
            rc = ps.rc;
        else if (bad_line > 0)
            rc = is_error_set(err, IS_JOB, "%s:%d: not a 'key = value' line or [section]",
                              source, bad_line);
        else if (bad_line < 0)
            rc = is_error_set(err, IS_NOMEM, "%s: out of memory while parsing", source);
    }
    for (size_t i = 0; i < override_count && rc == IS_OK; i++)
        rc = apply_override(&ps, overrides[i]);
    if (rc == IS_OK)
        rc = interpret(&ps, job);
    free_state(&ps);
    if (rc != IS_OK) {
        is_job_free(&job);
        return rc;
    }
    *out = job;
    return IS_OK;
}

void is_job_free(is_job **job)
{
    if (!job || !*job)
        return;
    is_job *j = *job;
    for (size_t k = 0; k < j->grid.axis_count; k++)
        is_axis_free(&j->grid.axes[k]);
    free(j->source);
    free(j->output);
    free(j->title);
    free(j->fixed);
    free(j->text);
    free(j);
    *job = NULL;
}

is_code is_job_read_file(const char *path, char **text, is_error *err)
{
    *text = NULL;
    FILE *f = fopen(path, "rb");
    if (!f)
        return is_error_set(err, IS_JOB, "%s: cannot open the job file: %s", path,
                            strerror(errno));
    size_t capacity = 4096, length = 0;
    char *buf = malloc(capacity);
    while (buf) {
        size_t got = fread(buf + length, 1, capacity - length - 1, f);
        length += got;
        if (length < capacity - 1)
            break;
        if (capacity > (64u << 20)) {
            free(buf);
            fclose(f);
            return is_error_set(err, IS_JOB, "%s: larger than 64 MiB: not a job file", path);
        }
        char *bigger = realloc(buf, capacity * 2);
        if (!bigger) {
            free(buf);
            buf = NULL;
            break;
        }
        buf = bigger;
        capacity *= 2;
    }
    int failed = ferror(f);
    fclose(f);
    if (!buf)
        return is_error_set(err, IS_NOMEM, "%s: out of memory reading the job file", path);
    if (failed) {
        free(buf);
        return is_error_set(err, IS_JOB, "%s: read error", path);
    }
    buf[length] = '\0';
    if (strlen(buf) != length) {
        free(buf);
        return is_error_set(err, IS_JOB, "%s: contains a NUL byte: not a text file", path);
    }
    *text = buf;
    return IS_OK;
}
