/* tolerance.c: a point recomputed tighter, and the discrepancy measure (tolerance.h). */
#include "tolerance.h"

#include <math.h>
#include <string.h>

int is_tolerance_model(const is_model *m)
{
    for (size_t p = 0; p < m->param_count; p++)
        if (m->params[p].flags & IS_PARAM_TOLERANCE)
            return 1;
    return 0;
}

double is_tolerance_value(const is_model *m, const double *point)
{
    double largest = 0;
    for (size_t p = 0; p < m->param_count; p++)
        if ((m->params[p].flags & IS_PARAM_TOLERANCE) && is_param_applies(m, p, point) &&
            point[p] > largest)
            largest = point[p];
    return largest;
}

/* The next choice after c (cyclically), skipping one named "auto"; c itself if none. */
static double next_method(const is_param *param, int c)
{
    int count = 0;
    while (param->choices && param->choices[count])
        count++;
    for (int step = 1; step < count; step++) {
        int d = (c + step) % count;
        if (strcmp(param->choices[d], "auto") != 0)
            return d;
    }
    return c;
}

int is_tolerance_tighten(const is_model *m, const double *point, double factor,
                         int switch_method, double *out)
{
    memcpy(out, point, m->param_count * sizeof *out);
    for (size_t p = 0; switch_method && p < m->param_count; p++)
        if ((m->params[p].flags & IS_PARAM_METHOD) && m->params[p].type == IS_PARAM_CHOICE &&
            is_param_applies(m, p, point))
            out[p] = next_method(&m->params[p], (int)point[p]);
    int applies = 0;
    for (size_t p = 0; p < m->param_count; p++) {
        const is_param *param = &m->params[p];
        if (!(param->flags & IS_PARAM_TOLERANCE) || !is_param_applies(m, p, out))
            continue;
        double tighter = out[p] / factor;
        if (!(tighter >= param->min))
            tighter = param->min; /* (a value at an open min would be refused: keep it) */
        if ((param->flags & IS_PARAM_MIN_OPEN) && tighter <= param->min)
            tighter = out[p];
        out[p] = tighter;
        applies = 1;
    }
    return applies;
}

double is_tolerance_discrepancy(const is_output *out, double a, double b)
{
    is_output_type type = out->type;
    if (out->flags & IS_OUTPUT_WORK)
        return 0.0;
    if (isnan(a) || isnan(b))
        return isnan(a) && isnan(b) ? 0.0 : 1.0;
    if (type == IS_OUTPUT_CATEGORY)
        return a == b ? 0.0 : 1.0;
    if (type == IS_OUTPUT_INT)
        return fabs(a - b);
    if (isinf(a) || isinf(b))
        return a == b ? 0.0 : 1.0;
    double scale = fmax(fmax(fabs(a), fabs(b)), IS_TOLERANCE_FLOOR);
    return fabs(a - b) / scale;
}
