/* describe.c: a model's table for `impactsweep models`: as text (for people), and as JSON
 * (`models MODEL --json`, for programs): its parameters and outputs with what a result
 * file records of each (type, unit, long_name, label, categories as CF flags, the storage
 * type), and the status flags of every file. */
#include "describe.h"

#include <math.h>
#include <stdint.h>

#include "../core/base/numtext.h"
#include "../core/base/provenance.h"
#include "../core/contract/engine.h"

void is_cli_json_string(FILE *out, const char *s)
{
    if (!s) {
        fputs("null", out);
        return;
    }
    fputc('"', out);
    for (; *s; s++) {
        if (*s == '"' || *s == '\\')
            fprintf(out, "\\%c", *s);
        else if ((unsigned char)*s < 0x20)
            fprintf(out, "\\u%04x", *s);
        else
            fputc(*s, out);
    }
    fputc('"', out);
}

/* A number as JSON: null for NaN, the strings "inf" and "-inf" for the infinities (JSON has
 * none), the shortest text that reads back otherwise. */
static void json_number(FILE *out, double v)
{
    char text[IS_NUMTEXT_SIZE];
    if (isnan(v))
        fputs("null", out);
    else if (isinf(v))
        fputs(v > 0 ? "\"inf\"" : "\"-inf\"", out);
    else {
        is_numtext(text, v);
        fputs(text, out);
    }
}

static void json_names(FILE *out, const char *const *names)
{
    fputc('[', out);
    for (int i = 0; names && names[i]; i++) {
        fputs(i ? ", " : "", out);
        is_cli_json_string(out, names[i]);
    }
    fputc(']', out);
}

/* `, "key": "text"` (or `{"key": ...` for the first field of an object). */
static void field_text(FILE *out, const char *key, const char *text)
{
    fprintf(out, "%s\"%s\": ", *key == '{' ? "{" : ", ", *key == '{' ? key + 1 : key);
    is_cli_json_string(out, text);
}

static void field_number(FILE *out, const char *key, double v)
{
    fprintf(out, ", \"%s\": ", key);
    json_number(out, v);
}

static void field_flag(FILE *out, const char *key, unsigned flags, unsigned flag)
{
    fprintf(out, ", \"%s\": %s", key, (flags & flag) ? "true" : "false");
}

static void field_names(FILE *out, const char *key, const char *const *names)
{
    fprintf(out, ", \"%s\": ", key);
    json_names(out, names);
}

static void describe_param(FILE *out, const is_param *p)
{
    static const char *const types[] = {"real", "integer", "choice"};
    field_text(out, "{name", p->name);
    field_text(out, "type", types[p->type]);
    field_text(out, "unit", p->unit);
    field_text(out, "long_name", p->meaning);
    field_text(out, "label", p->label);
    field_number(out, "default", p->default_value);
    field_number(out, "min", p->min);
    field_number(out, "max", p->max);
    field_flag(out, "fixed_only", p->flags, IS_PARAM_FIXED_ONLY);
    field_flag(out, "seed", p->flags, IS_PARAM_SEED);
    field_flag(out, "tolerance", p->flags, IS_PARAM_TOLERANCE);
    field_flag(out, "method", p->flags, IS_PARAM_METHOD);
    if (p->type == IS_PARAM_CHOICE)
        field_names(out, "choices", p->choices);
    fputc('}', out);
}

/* An output as the file stores it: float64 (fill NaN), int32 (fill -1) or int8 codes
 * (fill -1) with flag_values 0 .. k-1 and flag_meanings. */
static void describe_output(FILE *out, const is_output *o)
{
    static const char *const types[] = {"real", "integer", "category"};
    static const char *const stored[] = {"float64", "int32", "int8"};
    field_text(out, "{name", o->name);
    field_text(out, "type", types[o->type]);
    field_text(out, "dtype", stored[o->type]);
    field_text(out, "units", o->unit);
    field_text(out, "long_name", o->long_name);
    field_text(out, "label", o->label);
    field_flag(out, "may_be_nan", o->flags, IS_OUTPUT_MAY_BE_NAN);
    field_flag(out, "may_be_inf", o->flags, IS_OUTPUT_MAY_BE_INF);
    field_flag(out, "work", o->flags, IS_OUTPUT_WORK);
    if (o->type == IS_OUTPUT_CATEGORY)
        field_names(out, "categories", o->categories);
    fprintf(out, ", \"length\": %zu", is_output_length(o)); /* values a point */
    if (o->length > 1) { /* an array output: its dimension, the file's last */
        char dim[160];
        is_output_dimension(o, dim, sizeof dim);
        field_text(out, "dimension", dim);
    }
    fputc('}', out);
}

void is_cli_describe_json(FILE *out, const is_model *m, const char *library)
{
    field_text(out, "{model", m->name);
    field_text(out, "description", m->description);
    field_text(out, "version", m->version);
    field_text(out, "library", library);
    field_text(out, "references", m->references);
    fputs(", \"parameters\": [", out);
    for (size_t p = 0; p < m->param_count; p++) {
        fputs(p ? ", " : "", out);
        describe_param(out, &m->params[p]);
    }
    fputs("], \"outputs\": [", out);
    for (size_t o = 0; o < m->output_count; o++) {
        fputs(o ? ", " : "", out);
        describe_output(out, &m->outputs[o]);
    }
    /* the status variable of every file: its codes and their names (the file lists
     * `inferred` only for refined sweeps; eval never gives it) */
    fputs("], \"status\": {\"dtype\": \"uint8\", \"codes\": {", out);
    int first = 1;
    for (int s = 0; s < IS_POINT_STATUS_COUNT; s++) {
        const char *name = is_point_status_name(s);
        if (s == IS_POINT_INFERRED)
            continue;
        fprintf(out, "%s\"%d\": ", first ? "" : ", ", s);
        char lower[64];
        size_t i = 0;
        for (; name[i] && i + 1 < sizeof lower; i++)
            lower[i] = (char)(name[i] >= 'A' && name[i] <= 'Z' ? name[i] - 'A' + 'a' : name[i]);
        lower[i] = '\0';
        is_cli_json_string(out, lower);
        first = 0;
    }
    fputs("}}}\n", out);
}

void is_cli_param_default_text(const is_param *param, char *text, size_t size)
{
    if (isnan(param->default_value))
        snprintf(text, size, "(required)");
    else if (param->type == IS_PARAM_CHOICE)
        snprintf(text, size, "%s", param->choices[(int)param->default_value]);
    else
        snprintf(text, size, "%.10g", param->default_value);
}

void is_cli_describe_text(const is_models *models, const is_model *m)
{
    const char *sha256 = NULL;
    const char *library = is_models_library(models, m, &sha256);
    printf("%s: %s\n", m->name, m->description);
    if (library)
        printf("  from: %s (plug-in, version %s, sha256 %s, model contract %s)\n", library,
               m->version ? m->version : "not given", sha256, is_models_contract(models, m));
    else {
        is_provenance prov;
        is_provenance_collect(&prov, 1);
        printf("  from: built in (version %s)\n", m->version ? m->version : prov.engine_version);
    }
    if (m->references)
        printf("  references: %s\n", m->references);
    printf("  parameters:\n");
    for (size_t p = 0; p < m->param_count; p++) {
        const is_param *param = &m->params[p];
        char range[256], def[64];
        is_param_format_range(param, range, sizeof range);
        is_cli_param_default_text(param, def, sizeof def);
        char when[512];
        is_param_format_when(m, p, when, sizeof when);
        printf("    %-14s default %-12s admissible %-26s %s [%s]%s%s%s\n", param->name, def, range,
               param->meaning, param->unit, *when ? " (used with " : "", when, *when ? ")" : "");
    }
    printf("  outputs:\n");
    for (size_t o = 0; o < m->output_count; o++) {
        const is_output *out = &m->outputs[o];
        static const char *const types[] = {"real", "integer", "category"};
        printf("    %-14s %-9s %s [%s]", out->name, types[out->type], out->long_name, out->unit);
        if (out->type == IS_OUTPUT_CATEGORY) {
            printf(" (");
            for (int c = 0; out->categories[c]; c++)
                printf("%s%d=%s", c ? ", " : "", c, out->categories[c]);
            printf(")");
        }
        if (out->length > 1) {
            char dim[160];
            is_output_dimension(out, dim, sizeof dim);
            printf(" (array: %zu values a point, dimension %s)", out->length, dim);
        }
        printf("\n");
    }
}
