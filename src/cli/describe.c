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

static void describe_param(FILE *out, const is_param *p)
{
    static const char *const types[] = {"real", "integer", "choice"};
    fputs("{\"name\": ", out);
    is_cli_json_string(out, p->name);
    fputs(", \"type\": ", out);
    is_cli_json_string(out, types[p->type]);
    fputs(", \"unit\": ", out);
    is_cli_json_string(out, p->unit);
    fputs(", \"long_name\": ", out);
    is_cli_json_string(out, p->meaning);
    fputs(", \"label\": ", out);
    is_cli_json_string(out, p->label);
    fputs(", \"default\": ", out);
    json_number(out, p->default_value);
    fputs(", \"min\": ", out);
    json_number(out, p->min);
    fputs(", \"max\": ", out);
    json_number(out, p->max);
    fprintf(out, ", \"fixed_only\": %s, \"seed\": %s, \"tolerance\": %s, \"method\": %s",
            (p->flags & IS_PARAM_FIXED_ONLY) ? "true" : "false",
            (p->flags & IS_PARAM_SEED) ? "true" : "false",
            (p->flags & IS_PARAM_TOLERANCE) ? "true" : "false",
            (p->flags & IS_PARAM_METHOD) ? "true" : "false");
    if (p->type == IS_PARAM_CHOICE) {
        fputs(", \"choices\": ", out);
        json_names(out, p->choices);
    }
    fputc('}', out);
}

/* An output as the file stores it: float64 (fill NaN), int32 (fill -1) or int8 codes
 * (fill -1) with flag_values 0 .. k-1 and flag_meanings. */
static void describe_output(FILE *out, const is_output *o)
{
    static const char *const types[] = {"real", "integer", "category"};
    static const char *const stored[] = {"float64", "int32", "int8"};
    fputs("{\"name\": ", out);
    is_cli_json_string(out, o->name);
    fputs(", \"type\": ", out);
    is_cli_json_string(out, types[o->type]);
    fputs(", \"dtype\": ", out);
    is_cli_json_string(out, stored[o->type]);
    fputs(", \"units\": ", out);
    is_cli_json_string(out, o->unit);
    fputs(", \"long_name\": ", out);
    is_cli_json_string(out, o->long_name);
    fputs(", \"label\": ", out);
    is_cli_json_string(out, o->label);
    fprintf(out, ", \"may_be_nan\": %s, \"may_be_inf\": %s, \"work\": %s",
            (o->flags & IS_OUTPUT_MAY_BE_NAN) ? "true" : "false",
            (o->flags & IS_OUTPUT_MAY_BE_INF) ? "true" : "false",
            (o->flags & IS_OUTPUT_WORK) ? "true" : "false");
    if (o->type == IS_OUTPUT_CATEGORY) {
        fputs(", \"categories\": ", out);
        json_names(out, o->categories);
    }
    fputc('}', out);
}

void is_cli_describe_json(FILE *out, const is_model *m, const char *library)
{
    fputs("{\"model\": ", out);
    is_cli_json_string(out, m->name);
    fputs(", \"description\": ", out);
    is_cli_json_string(out, m->description);
    fputs(", \"version\": ", out);
    is_cli_json_string(out, m->version);
    fputs(", \"library\": ", out);
    is_cli_json_string(out, library);
    fputs(", \"references\": ", out);
    is_cli_json_string(out, m->references);
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
        if (isnan(param->default_value))
            snprintf(def, sizeof def, "(required)");
        else if (param->type == IS_PARAM_CHOICE)
            snprintf(def, sizeof def, "%s", param->choices[(int)param->default_value]);
        else
            snprintf(def, sizeof def, "%.10g", param->default_value);
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
        printf("\n");
    }
}
