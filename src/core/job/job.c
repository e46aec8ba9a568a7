/* job.c: job-file parsing (libinih), --set overrides, and checking every key.
 *
 * Three passes: collect (section, key, value, where) entries from the file, with a
 * scan of the section headers that inih does not report; apply the overrides; then
 * interpret [sweep] through its key table, [model] and [axis.NAME] through the model's
 * parameter table. Nothing is written anywhere until all of it has passed. */
#include "job.h"

#include <errno.h>
#include <ini.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine.h"
#include "evaluator.h"
#include "model_text.h"

#include "job_internal.h"
#include "suggest.h"

/* --- the whole parse -------------------------------------------------------------- */

/* The axis of choice parameter c, or NULL when it is fixed. */
static const is_axis *choice_axis(const is_job *job, int c)
{
    for (size_t k = 0; k < job->grid.axis_count; k++)
        if (job->grid.axes[k].param == c)
            return &job->grid.axes[k];
    return NULL;
}

/* Does parameter p apply at one combination at least of the swept choices' values (the
 * fixed ones as they are)? 1 yes, 0 no, -1 out of memory. */
static int applies_somewhere(const is_job *job, size_t p)
{
    const is_model *model = job->model;
    double *point = malloc(model->param_count * sizeof *point);
    if (!point)
        return -1;
    memcpy(point, job->fixed, model->param_count * sizeof *point);
    const is_axis *axes[IS_GRID_MAX_AXES];
    size_t index[IS_GRID_MAX_AXES] = {0}, n = 0;
    for (size_t k = 0; k < job->grid.axis_count; k++)
        if (model->params[job->grid.axes[k].param].type == IS_PARAM_CHOICE)
            axes[n++] = &job->grid.axes[k];
    int applies = 0;
    for (;;) { /* every combination, as an odometer (at most 32 choices each) */
        for (size_t k = 0; k < n; k++)
            point[axes[k]->param] = axes[k]->values[index[k]];
        if ((applies = is_param_applies(model, p, point)) != 0)
            break;
        size_t k = 0;
        while (k < n && ++index[k] == axes[k]->count)
            index[k++] = 0;
        if (k == n)
            break;
    }
    free(point);
    return applies;
}

/* The sections a job file may have, and what each holds (the reference and the man page
 * say it from here). */
static const is_job_section_doc sections[] = {
    {"sweep", "the model, the result file and how the run goes", 1},
    {"model", "fixed parameter values (the others take their defaults): any parameter of "
              "the model, by name (`impactsweep models MODEL` lists them)",
     0},
    {"axis.PARAMETER", "one section per swept parameter, in grid order (the grid is their "
                       "Cartesian product, the first axis slowest): a range, or a list of "
                       "values",
     1},
    {NULL, NULL, 0}};

const is_job_section_doc *is_job_sections(void)
{
    return sections;
}

int is_job_key_doc_at(const char *section, size_t i, is_job_key_doc *doc)
{
    if (strcmp(section, "sweep") == 0)
        return job_sweep_key_doc(i, doc);
    if (strncmp(section, "axis.", 5) == 0)
        return job_axis_key_doc(i, doc);
    return 0;
}

/* Is a section's name one of the table's ("axis.PARAMETER" for every "axis.NAME")? */
static int known_section(const char *name)
{
    for (const is_job_section_doc *s = sections; s->name; s++) {
        const char *dot = strchr(s->name, '.');
        size_t stem = dot ? (size_t)(dot - s->name) + 1 : strlen(s->name) + 1;
        if (dot ? strncmp(name, s->name, stem) == 0 : strcmp(name, s->name) == 0)
            return 1;
    }
    return 0;
}

/* Every section is [sweep], [model] or [axis.PARAMETER]. */
static is_code check_sections(parse_state *ps)
{
    for (size_t i = 0; i < ps->section_count; i++) {
        const section_header *h = &ps->sections[i];
        if (!known_section(h->name)) {
            static const char *const names[] = {"sweep", "model", NULL};
            char hint[96];
            return is_error_set(ps->err, IS_JOB,
                                "%s: [%s]: unknown section%s (known: [sweep], [model], "
                                "[axis.PARAMETER])",
                                h->origin, h->name,
                                is_suggest_text(hint, sizeof hint,
                                                is_suggest_among(h->name, names)));
        }
    }
    return IS_OK;
}

static is_code interpret_axes(parse_state *ps, is_job *job, int *fixed_by)
{
    is_code rc = IS_OK;
    for (size_t i = 0; i < ps->section_count && rc == IS_OK; i++) {
        const section_header *h = &ps->sections[i];
        if (strncmp(h->name, "axis.", 5) != 0)
            continue;
        int has_keys = 0;
        for (size_t j = 0; j < ps->entry_count; j++)
            has_keys |= strcmp(ps->entries[j].section, h->name) == 0;
        if (!has_keys)
            rc =
                is_error_set(ps->err, IS_JOB, "%s: [%s]: the axis has no keys", h->origin, h->name);
        else
            rc = job_interpret_axis(ps, job, h, fixed_by);
        int p = is_model_param_index(job->model, h->name + 5);
        for (size_t k = 0; rc == IS_OK && k + 1 < job->grid.axis_count; k++)
            if (job->grid.axes[k].param == p)
                rc =
                    is_error_set(ps->err, IS_JOB, "%s: [%s]: axis given twice", h->origin, h->name);
    }
    return rc;
}

/* A value given for a parameter that the choices made leave unused would be silently
 * ignored: a flat map over an axis that changes nothing (with choices swept, it must
 * apply with one of their combinations at least). */
static is_code check_param_applies(parse_state *ps, const is_job *job, size_t p)
{
    const is_model *model = job->model;
    int applies = applies_somewhere(job, p);
    if (applies < 0)
        return is_error_set(ps->err, IS_NOMEM, "out of memory");
    if (applies != 0)
        return IS_OK;
    char when[512], now[512] = "";
    is_param_format_when(model, p, when, sizeof when);
    size_t used = 0;
    for (const is_param_when *w = model->params[p].when; w && w->choice; w++) {
        int c = is_model_param_index(model, w->choice);
        if (c < 0 || used >= sizeof now)
            continue;
        const is_axis *axis = choice_axis(job, c);
        used += (size_t)snprintf(now + used, sizeof now - used, "%s%s %s ", used ? ", " : "",
                                 w->choice, axis ? "in" : "=");
        for (size_t i = 0; i < (axis ? axis->count : 1) && used < sizeof now; i++)
            used += (size_t)snprintf(
                now + used, sizeof now - used, "%s%s", i ? " | " : "",
                model->params[c].choices[(int)(axis ? axis->values[i] : job->fixed[c])]);
    }
    return is_error_set(ps->err, IS_PARAM,
                        "%s: %s does not apply with %s (it is used with %s); remove it, or "
                        "choose accordingly",
                        job->param_origin[p], model->params[p].name, now, when);
}

/* Every parameter has a value, every value given applies, every key was used. */
static is_code check_params(parse_state *ps, const is_job *job)
{
    const is_model *model = job->model;
    for (size_t p = 0; p < model->param_count; p++)
        if (isnan(job->fixed[p]))
            return is_error_set(ps->err, IS_JOB,
                                "%s: [model] %s: missing: parameter %s of model %s has no "
                                "default: give it in [model] or sweep it in [axis.%s]",
                                job_section_origin(ps, "model"), model->params[p].name,
                                model->params[p].name, model->name, model->params[p].name);
    for (size_t p = 0; p < model->param_count; p++) {
        is_code rc = *job->param_origin[p] ? check_param_applies(ps, job, p) : IS_OK;
        if (rc != IS_OK)
            return rc;
    }
    for (size_t i = 0; i < ps->entry_count; i++)
        if (!ps->entries[i].used)
            return is_error_set(ps->err, IS_JOB, "%s: [%s] %s: unknown section or key",
                                ps->entries[i].origin, ps->entries[i].section, ps->entries[i].key);
    return IS_OK;
}

/* The grid from the axes, the output's name and this piece's part of the grid. */
static is_code finish_grid(parse_state *ps, is_job *job)
{
    job->grid.base = job->fixed;
    job->grid.param_count = job->model->param_count;
    is_error detail;
    is_code rc = is_grid_finish(&job->grid, &detail);
    if (rc != IS_OK) { /* name the axes whose counts multiply beyond the limit */
        char counts[1024] = "";
        size_t used = 0;
        for (size_t k = 0; k < job->grid.axis_count && used < sizeof counts; k++)
            used += (size_t)snprintf(counts + used, sizeof counts - used, "%s%s count %zu",
                                     k ? ", " : "", job->axis_origin[k], job->grid.axes[k].count);
        return is_error_set(ps->err, rc, "%s: %s (%s)",
                            job->grid.axis_count ? job->axis_origin[0] : ps->source, detail.message,
                            counts);
    }
    if (!job->output) {
        if (!(job->output = job_default_output(ps->source)))
            return is_error_set(ps->err, IS_NOMEM, "out of memory");
        snprintf(job->output_origin, sizeof job->output_origin,
                 "%s: the default output (the job file's name with .h5)", ps->source);
    }
    uint64_t total = job->grid.point_count;
    if (job->piece_count > total || job->piece_count > (UINT64_C(1) << 20)) {
        const entry *e = job_find_entry(ps, "sweep", "piece");
        return is_error_set(ps->err, IS_JOB, "%s: [sweep] piece: %llu pieces for %llu points",
                            e ? e->origin : ps->source, (unsigned long long)job->piece_count,
                            (unsigned long long)total);
    }
    if (!job->piece_ranged) {
        is_grid_piece(&job->grid, job->piece_count, job->piece_index, &job->piece_box,
                      &job->piece_first, &job->piece_last);
        return IS_OK;
    }
    int whole = job->piece_first == 0 && job->piece_last == total;
    if ((job->piece_count > 1 || whole) &&
        is_grid_range_box(&job->grid, job->piece_first, job->piece_last, &job->piece_box))
        return IS_OK;
    const entry *e = job_find_entry(ps, "sweep", "piece");
    return is_error_set(ps->err, IS_JOB,
                        "%s: [sweep] piece = '%s': points %llu to %llu are not a piece of the "
                        "%llu-point grid (a piece is a run of whole slices of one axis inside one "
                        "slice of each axis before it; see `run --dry-run --pieces N`)",
                        e ? e->origin : ps->source, e ? e->value : "",
                        (unsigned long long)job->piece_first,
                        (unsigned long long)job->piece_last - 1, (unsigned long long)total);
}

void is_job_piece_text(const is_job *job, char *text, size_t size)
{
    if (job->piece_ranged && job->piece_count > 1) /* (one piece is the grid, however given) */
        snprintf(text, size, "%llu/%llu:%llu-%llu", (unsigned long long)job->piece_index,
                 (unsigned long long)job->piece_count, (unsigned long long)job->piece_first,
                 (unsigned long long)job->piece_last - 1);
    else
        snprintf(text, size, "%llu/%llu", (unsigned long long)job->piece_index,
                 (unsigned long long)job->piece_count);
}

/* The job's own text (its sections in a fixed order) and its fingerprint. */
static is_code store_text(parse_state *ps, is_job *job)
{
    text_buffer text = {0};
    job_append_section(&text, ps, "sweep");
    int has_model_keys = 0;
    for (size_t i = 0; i < ps->entry_count; i++)
        has_model_keys |= strcmp(ps->entries[i].section, "model") == 0;
    if (has_model_keys) {
        job_append(&text, "\n");
        job_append_section(&text, ps, "model");
    }
    for (size_t k = 0; k < job->grid.axis_count; k++) {
        char section[128];
        snprintf(section, sizeof section, "axis.%s",
                 job->model->params[job->grid.axes[k].param].name);
        job_append(&text, "\n");
        job_append_section(&text, ps, section);
    }
    if (text.failed) {
        free(text.data);
        return is_error_set(ps->err, IS_NOMEM, "out of memory");
    }
    job->text = text.data;
    /* a plug-in's results are determined by its declared version and tables (a rebuild
     * that keeps them may continue a file); files made before said: its library's bytes */
    char *table = is_model_text(job->model, NULL, job->model_table_sha256);
    free(table);
    if (!table)
        return is_error_set(ps->err, IS_NOMEM, "out of memory");
    job->fingerprint = job_fingerprint_of(job, job->model_sha256 ? job->model_table_sha256 : NULL);
    job->fingerprint_of_library = job_fingerprint_of(job, job->model_sha256);
    return IS_OK;
}

static is_code interpret(parse_state *ps, is_job *job)
{
    is_code rc = job_find_model(ps, job);
    if (rc != IS_OK)
        return rc;
    const is_model *model = job->model;
    job->fixed = malloc(model->param_count * sizeof *job->fixed);
    job->param_origin = calloc(model->param_count, sizeof *job->param_origin);
    int *fixed_by = malloc(model->param_count * sizeof *fixed_by);
    if (!job->fixed || !job->param_origin || !fixed_by) {
        free(fixed_by);
        return is_error_set(ps->err, IS_NOMEM, "out of memory");
    }
    for (size_t p = 0; p < model->param_count; p++) {
        job->fixed[p] = model->params[p].default_value;
        fixed_by[p] = -1;
    }
    rc = check_sections(ps);
    if (rc == IS_OK)
        rc = job_interpret_sweep(ps, job);
    if (rc == IS_OK)
        rc = job_interpret_model(ps, job, fixed_by);
    if (rc == IS_OK)
        rc = interpret_axes(ps, job, fixed_by);
    free(fixed_by);
    if (rc == IS_OK)
        rc = check_params(ps, job);
    if (rc == IS_OK)
        rc = finish_grid(ps, job);
    if (rc == IS_OK)
        rc = job_refine_resolve(job, ps->err);
    if (rc == IS_OK)
        rc = job_check_containment(job, ps->err);
    return rc == IS_OK ? store_text(ps, job) : rc;
}

/* `key =;x` gives the value ";x", but the stored job text `key = ;x` would read back as an
 * empty value (a ';' after a blank starts a comment), and to a reader it looks like one. */
static is_code refuse_comment_like_values(parse_state *ps)
{
    for (size_t i = 0; i < ps->entry_count; i++) {
        const entry *e = &ps->entries[i];
        if (e->value[0] == ';')
            return is_error_set(ps->err, IS_JOB,
                                "%s: [%s] %s: a value may not start with ';' (it reads as a "
                                "comment)",
                                e->origin, e->section, e->key);
    }
    return IS_OK;
}

is_code is_job_parse(const char *source, const char *text, const char *const *overrides,
                     size_t override_count, is_models *models, is_job **out, is_error *err)
{
    *out = NULL;
    is_job *job = calloc(1, sizeof *job);
    parse_state ps = {.source = source, .cursor = text, .models = models, .err = err, .rc = IS_OK};
    if (!job || !(job->source = job_copy_string(source))) {
        free(job);
        return is_error_set(err, IS_NOMEM, "out of memory");
    }
    job->progress_interval = 5.0;
    job->master_computes = 1;
    job->unit_seconds = 30.0;
    job->piece_count = 1;
    job->refine_margin = IS_REFINE_DEFAULT_MARGIN;
    is_code rc = job_scan_sections(&ps, text);
    if (rc == IS_OK) {
        int bad_line = ini_parse_stream(job_read_line, &ps, job_on_key, &ps);
        if (ps.rc != IS_OK)
            rc = ps.rc;
        else if (bad_line > 0)
            rc = is_error_set(err, IS_JOB, "%s:%d: not a 'key = value' line or [section]", source,
                              bad_line);
        else if (bad_line < 0)
            rc = is_error_set(err, IS_NOMEM, "%s: out of memory while parsing", source);
    }
    if (rc == IS_OK)
        rc = refuse_comment_like_values(&ps);
    for (size_t i = 0; i < override_count && rc == IS_OK; i++)
        rc = job_apply_override(&ps, overrides[i]);
    if (rc == IS_OK)
        rc = interpret(&ps, job);
    job_free_state(&ps);
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
    for (int i = 0; i < 3; i++)
        free(j->refine_spec[i]);
    free(j->fixed);
    free(j->param_origin);
    free(j->text);
    is_evaluator_free(&j->evaluator);
    free(j);
    *job = NULL;
}

is_code is_job_read_file(const char *path, char **text, is_error *err)
{
    *text = NULL;
    FILE *f = fopen(path, "rb");
    if (!f)
        return is_error_set(err, IS_JOB, "%s: cannot open the job file: %s", path, strerror(errno));
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
        /* HDF5's signature (at 0, or at 512, 1024, ... after a user block) */
        static const char hdf5[8] = {'\x89', 'H', 'D', 'F', '\r', '\n', '\x1a', '\n'};
        int result = 0;
        for (size_t at = 0; at + 8 <= length && at <= 8192 && !result; at = at ? 2 * at : 512)
            result = memcmp(buf + at, hdf5, 8) == 0;
        free(buf);
        if (result)
            return is_error_set(err, IS_JOB,
                                "%s: an HDF5 file (a result file?), not a job file: `impactsweep "
                                "info %s` shows a result file, and its job is in it",
                                path, path);
        return is_error_set(err, IS_JOB, "%s: contains a NUL byte: not a text file", path);
    }
    *text = buf;
    return IS_OK;
}
