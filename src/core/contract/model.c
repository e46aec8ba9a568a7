/* model.c: helpers over the model table that every command shares. */
#include "model.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "engine.h"
#include "numtext.h"

static const char *const point_status_names[IS_POINT_STATUS_COUNT] = {
#define IS_POINT_NAME(name, value, text) [value] = #name,
    IS_POINT_STATUS_LIST(IS_POINT_NAME)
#undef IS_POINT_NAME
};

const char *is_point_status_name(int status)
{
    return status >= 0 && status < IS_POINT_STATUS_COUNT ? point_status_names[status]
                                                         : "UNKNOWN";
}

const is_model *is_model_find(const is_model *const *list, const char *name)
{
    for (; *list; list++)
        if (strcmp((*list)->name, name) == 0)
            return *list;
    return NULL;
}

int is_model_param_index(const is_model *model, const char *name)
{
    for (size_t i = 0; i < model->param_count; i++)
        if (strcmp(model->params[i].name, name) == 0)
            return (int)i;
    return -1;
}

int is_param_choice_count(const is_param *param)
{
    int n = 0;
    while (param->choices && param->choices[n])
        n++;
    return n;
}

int is_param_applies(const is_model *model, size_t p, const double *point)
{
    for (const is_param_when *w = model->params[p].when; w && w->choice; w++) {
        int c = is_model_param_index(model, w->choice);
        if (c < 0 || !(w->choices >> (unsigned)point[c] & 1u))
            return 0;
    }
    return 1;
}

void is_param_format_when(const is_model *model, size_t p, char *buf, size_t size)
{
    size_t used = 0;
    buf[0] = '\0';
    for (const is_param_when *w = model->params[p].when; w && w->choice && used < size; w++) {
        int c = is_model_param_index(model, w->choice);
        if (c < 0)
            continue;
        used += (size_t)snprintf(buf + used, size - used, "%s%s", used ? "; " : "", w->choice);
        const char *const *names = model->params[c].choices;
        for (int i = 0, first = 1; names && names[i] && used < size; i++)
            if (w->choices >> i & 1u) {
                used += (size_t)snprintf(buf + used, size - used, "%s%s", first ? " " : " | ",
                                         names[i]);
                first = 0;
            }
    }
}

int is_model_output_index(const is_model *model, const char *name)
{
    for (size_t i = 0; i < model->output_count; i++)
        if (strcmp(model->outputs[i].name, name) == 0)
            return (int)i;
    return -1;
}

static void format_bound(double v, char *buf, size_t size)
{
    if (isinf(v))
        snprintf(buf, size, "%s", v < 0 ? "-inf" : "inf");
    else
        snprintf(buf, size, "%s", IS_NUM(v));
}

void is_param_format_range(const is_param *param, char *buf, size_t size)
{
    if (param->type == IS_PARAM_CHOICE) {
        size_t used = 0;
        buf[0] = '\0';
        for (const char *const *c = param->choices; c && *c; c++) {
            int w = snprintf(buf + used, size - used, "%s%s", used ? " | " : "", *c);
            if (w < 0 || (size_t)w >= size - used)
                break;
            used += (size_t)w;
        }
        return;
    }
    char lo[32], hi[32];
    format_bound(param->min, lo, sizeof lo);
    format_bound(param->max, hi, sizeof hi);
    snprintf(buf, size, "%c%s, %s%c%s",
             (param->flags & IS_PARAM_MIN_OPEN) || isinf(param->min) ? '(' : '[', lo, hi,
             (param->flags & IS_PARAM_MAX_OPEN) || isinf(param->max) ? ')' : ']',
             param->type == IS_PARAM_INT ? ", integer" : "");
}

is_code is_param_check(const is_param *param, double value, is_error *err)
{
    char range[256];
    is_param_format_range(param, range, sizeof range);
    if (!isfinite(value))
        return is_error_set(err, IS_PARAM, "%s = %s is not a finite number (admissible: %s)",
                            param->name, IS_NUM(value), range);
    if (param->type == IS_PARAM_CHOICE) {
        int count = 0;
        while (param->choices && param->choices[count])
            count++;
        if (value != floor(value) || value < 0 || value >= count)
            return is_error_set(err, IS_PARAM, "%s: choice %s out of range (admissible: %s)",
                                param->name, IS_NUM(value), range);
        return IS_OK;
    }
    if (param->type == IS_PARAM_INT && value != floor(value))
        return is_error_set(err, IS_PARAM, "%s = %s is not an integer (admissible: %s)",
                            param->name, IS_NUM(value), range);
    if (param->type == IS_PARAM_INT && fabs(value) > 0x1p53)
        return is_error_set(err, IS_PARAM,
                            "%s = %s is beyond 2^53 = 9007199254740992, where a double does not "
                            "hold every integer (admissible: %s)",
                            param->name, IS_NUM(value), range);
    int below = (param->flags & IS_PARAM_MIN_OPEN) ? !(value > param->min) : !(value >= param->min);
    int above = (param->flags & IS_PARAM_MAX_OPEN) ? !(value < param->max) : !(value <= param->max);
    if (below || above)
        return is_error_set(err, IS_PARAM, "%s = %s is outside the admissible range %s",
                            param->name, IS_NUM(value), range);
    return IS_OK;
}

int is_output_category_count(const is_output *output)
{
    int count = 0;
    while (output->categories && output->categories[count])
        count++;
    return count;
}

size_t is_model_value_count(const is_model *model)
{
    return is_model_output_offset(model, model->output_count);
}

size_t is_model_output_offset(const is_model *model, size_t o)
{
    size_t at = 0;
    for (size_t k = 0; k < o && k < model->output_count; k++)
        at += is_output_length(&model->outputs[k]);
    return at;
}

void is_output_dimension(const is_output *output, char *buf, size_t size)
{
    if (output->length_name)
        snprintf(buf, size, "%s", output->length_name);
    else
        snprintf(buf, size, "%s_index", output->name);
}
