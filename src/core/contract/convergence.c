/* convergence.c: the convergence test of `models --check` (convergence.h). */
#include "convergence.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine.h"
#include "numtext.h"
#include "tolerance.h"

enum { SAMPLE = 2, LEVELS = 3 };
#define CONVERGED_FLOOR 1e-12 /* rounding: changes below this are no trend */
#define TIGHTEST 1e-12        /* the tightest tolerance asked: well above double rounding,
                                 where integrators asked for more fail erratically */

/* The sample: the defaults with each tolerance at its t0 (A), and A with its first real
 * parameter that can move moved (B, when the model admits one). Returns the count. */
static size_t sample(const is_model *m, is_conformance_evaluate evaluate, void *context,
                     double *points, is_error *err)
{
    size_t np = m->param_count;
    is_conformance_point(m, points);
    for (size_t p = 0; p < np; p++) {
        const is_param *param = &m->params[p];
        if (param->flags & IS_PARAM_TOLERANCE)
            points[p] = fmin(fmax(fmax(points[p], param->min * 1e4), TIGHTEST * 1e4),
                             param->max);
    }
    /* where no tolerance applies at the defaults (a choice of an exact method), the first
     * choice that makes one apply */
    for (size_t p = 0; p < np && is_tolerance_value(m, points) <= 0; p++) {
        double was = points[p];
        for (int c = 0; m->params[p].type == IS_PARAM_CHOICE && m->params[p].choices &&
                        m->params[p].choices[c] && is_tolerance_value(m, points) <= 0;
             c++)
            points[p] = c;
        if (is_tolerance_value(m, points) <= 0)
            points[p] = was;
    }
    if (evaluate(context, m, points, 1, NULL, NULL, err) != IS_OK)
        return 0;
    memcpy(points + np, points, np * sizeof *points);
    for (size_t p = 0; p < np; p++) {
        double moved = points[p] * 1.25 + 0.01;
        is_error ignored;
        if (m->params[p].type != IS_PARAM_REAL || (m->params[p].flags & IS_PARAM_TOLERANCE) ||
            is_param_check(&m->params[p], moved, &ignored) != IS_OK)
            continue;
        points[np + p] = moved;
        if (evaluate(context, m, points + np, 1, NULL, NULL, &ignored) == IS_OK)
            return 2;
        points[np + p] = points[p];
    }
    return 1;
}

static is_code judge(const is_model *m, const double *points, size_t count, const double *out,
                     const uint8_t *status, char *note, size_t note_size, is_error *err)
{
    size_t np = m->param_count, n = count * LEVELS;
    size_t tested = 0;
    for (size_t i = 0; i < count; i++) {
        const double *p1 = points + (i * LEVELS + 1) * np;
        double t0 = is_tolerance_value(m, points + i * LEVELS * np);
        double t1 = is_tolerance_value(m, p1), limit = IS_TOLERANCE_VERIFY_SCALE * t0;
        int done = 1;
        for (int l = 0; l < LEVELS; l++)
            done &= status[i * LEVELS + (size_t)l] == IS_POINT_DONE;
        if (!done || t1 <= 0)
            continue;
        tested++;
        for (size_t e = 0; e < is_model_value_count(m); e++) { /* each value of each output */
            size_t o = 0, at = 0, length = 1;
            while (o < m->output_count &&
                   e >= at + (length = is_output_length(&m->outputs[o])))
                at += length, o++;
            const double *w = out + at * n + i * LEVELS * length + (e - at);
            double v[LEVELS];
            for (int l = 0; l < LEVELS; l++)
                v[l] = w[(size_t)l * length];
            double d01 = is_tolerance_discrepancy(&m->outputs[o], v[0], v[1]);
            double d12 = is_tolerance_discrepancy(&m->outputs[o], v[1], v[2]);
            if (m->outputs[o].type != IS_OUTPUT_REAL ? d01 == 0 || d12 == 0
                                                     : d12 <= fmax(d01, CONVERGED_FLOOR) && d12 <= limit)
                continue; /* (a count or class may change once, near a graze; not twice) */
            return is_error_set(
                err, IS_PLUGIN,
                "model %s: output %s does not converge as the tolerance tightens, at sample "
                "point %zu (%s): it moves by %s from tolerance %s to %s, and by %s from %s to "
                "%s (%s); values %s, %s, %s",
                m->name, m->outputs[o].name, i, i == 0 ? "the defaults" : "one parameter moved",
                IS_NUM(d01), IS_NUM(t0), IS_NUM(t1), IS_NUM(d12), IS_NUM(t1),
                IS_NUM(t1 / IS_TOLERANCE_FACTOR),
                m->outputs[o].type != IS_OUTPUT_REAL
                    ? "a count or class that changes at every step"
                    : d12 > limit ? "beyond 1000 x the first tolerance, the verify_tolerance "
                                    "of a run there"
                                  : "more than the step before: it does not settle",
                IS_NUM(v[0]), IS_NUM(v[1]), IS_NUM(v[2]));
        }
    }
    if (tested)
        snprintf(note, note_size,
                 "; its outputs converge as its tolerance tightens (%zu point%s at tolerance / "
                 "1, / 100, / 10^4)",
                 tested, tested == 1 ? "" : "s");
    else
        snprintf(note, note_size, "; convergence not tested: no sample point was computed at "
                                  "all three tolerances");
    return IS_OK;
}

is_code is_convergence_check(const is_model *m, is_conformance_evaluate evaluate, void *context,
                             char *note, size_t note_size, is_error *err)
{
    if (!is_tolerance_model(m)) {
        snprintf(note, note_size, "; it has no tolerance parameter (IS_PARAM_TOLERANCE): "
                                  "convergence not tested, its points cannot be verified");
        return IS_OK;
    }
    size_t np = m->param_count, no = is_model_value_count(m);
    double *base = malloc(SAMPLE * np * sizeof *base);
    double *points = malloc(SAMPLE * LEVELS * np * sizeof *points);
    double *out = malloc(SAMPLE * LEVELS * (no ? no : 1) * sizeof *out);
    uint8_t status[SAMPLE * LEVELS];
    is_code rc = base && points && out ? IS_OK : is_error_set(err, IS_NOMEM, "out of memory");
    size_t count = rc == IS_OK ? sample(m, evaluate, context, base, err) : 0;
    if (rc == IS_OK && count == 0)
        rc = is_error_set(err, IS_PLUGIN, "model %s: its defaults (tolerances raised for the "
                          "convergence test) fail validate: %s", m->name, err->message);
    for (size_t i = 0; rc == IS_OK && i < count; i++) {
        double *p0 = points + i * LEVELS * np;
        memcpy(p0, base + i * np, np * sizeof *p0);
        is_tolerance_tighten(m, p0, IS_TOLERANCE_FACTOR, 0, p0 + np);
        is_tolerance_tighten(m, p0, IS_TOLERANCE_FACTOR * IS_TOLERANCE_FACTOR, 0, p0 + 2 * np);
    }
    if (rc == IS_OK)
        rc = evaluate(context, m, points, count * LEVELS, out, status, err);
    if (rc == IS_OK)
        rc = judge(m, points, count, out, status, note, note_size, err);
    free(base);
    free(points);
    free(out);
    return rc;
}
