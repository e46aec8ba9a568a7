/* job_text.c: a job's canonical text (what the result file stores) and its
 * fingerprint (what --resume compares), and the default output name. */
#include "job_internal.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* --- canonical text and fingerprint ---------------------------------------------- */

void job_append(text_buffer *b, const char *fmt, ...)
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

void job_append_section(text_buffer *b, parse_state *ps, const char *section)
{
    job_append(b, "[%s]\n", section);
    for (size_t i = 0; i < ps->entry_count; i++)
        if (strcmp(ps->entries[i].section, section) == 0)
            job_append(b, "%s = %s\n", ps->entries[i].key, ps->entries[i].value);
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

/* Which points a refined sweep computes. A sweep whose rule is that of the first
 * refinement (one output, and either categorical or with refine_margin = 0) digests as it
 * did then, so that its files resume; any other digests every output, threshold and the
 * margin too. */
static uint64_t refine_fingerprint(const is_job *job, uint64_t h)
{
    const is_refine_output *first = &job->refine_outputs[0];
    if (job->refine_output_count == 1 && (isnan(first->threshold) || job->refine_margin == 0)) {
        double refine[4] = {(double)first->output, first->threshold, (double)job->refine_levels,
                            (double)job->refine_axes};
        h = fnv1a(h, "refine", 7);
        return fnv1a(h, refine, sizeof refine);
    }
    double refine[3] = {job->refine_margin, (double)job->refine_levels, (double)job->refine_axes};
    h = fnv1a(h, "refine outputs", 15);
    for (size_t i = 0; i < job->refine_output_count; i++) {
        double item[2] = {(double)job->refine_outputs[i].output, job->refine_outputs[i].threshold};
        h = fnv1a(h, item, sizeof item);
    }
    return fnv1a(h, refine, sizeof refine);
}

/* A linear or log axis enters by its formula, so that the digest costs O(axes), not
 * O(points); an explicit axis by its values. */
uint64_t job_fingerprint_of(const is_job *job, const char *model_digest)
{
    uint64_t h = 0xCBF29CE484222325ull;
    h = fnv1a(h, job->model->name, strlen(job->model->name) + 1);
    if (model_digest) /* a plug-in: what determines its results */
        h = fnv1a(h, model_digest, strlen(model_digest));
    for (size_t p = 0; p < job->model->param_count; p++) { /* a choice by its name */
        const is_param *param = &job->model->params[p];
        if (param->type == IS_PARAM_CHOICE)
            h = fnv1a(h, param->choices[(int)job->fixed[p]],
                      strlen(param->choices[(int)job->fixed[p]]) + 1);
        else
            h = fnv1a(h, &job->fixed[p], sizeof job->fixed[p]);
    }
    for (size_t k = 0; k < job->grid.axis_count; k++) {
        const is_axis *a = &job->grid.axes[k];
        uint64_t header[4] = {(uint64_t)a->param, (uint64_t)a->count, (uint64_t)a->scale,
                              (uint64_t)a->integral};
        h = fnv1a(h, header, sizeof header);
        const is_param *param = &job->model->params[a->param];
        if (param->type == IS_PARAM_CHOICE) { /* by name: a reordered list changes it */
            for (size_t i = 0; i < a->count; i++)
                h = fnv1a(h, param->choices[(int)a->values[i]],
                          strlen(param->choices[(int)a->values[i]]) + 1);
        } else if (a->scale == IS_SCALE_VALUES) {
            h = fnv1a(h, a->values, a->count * sizeof *a->values);
        } else {
            double ends[2] = {a->from, a->to};
            h = fnv1a(h, ends, sizeof ends);
        }
    }
    return job->refine_levels ? refine_fingerprint(job, h) : h;
}

char *job_default_output(const char *source)
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
