/* model_abi.c: a plug-in's table in the engine's layout (see model_abi.h). */
#include "model_abi.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Contracts 1 and 2, before the ABI header (frozen: never edit). Their parameters and
 * outputs are 3.0's first members; 2 added `trace` at the end of the model. */
typedef struct legacy_param {
    const char *name, *meaning, *unit;
    is_param_type type;
    double default_value, min, max;
    unsigned flags;
    const char *const *choices;
    const is_param_when *when;
} legacy_param;

typedef struct legacy_output {
    const char *name, *unit, *long_name;
    is_output_type type;
    const char *const *categories;
} legacy_output;

typedef struct legacy_model {
    const char *name, *description;
    const legacy_param *params;
    size_t param_count;
    const legacy_output *outputs;
    size_t output_count;
    is_code (*validate)(const double *point, is_error *err);
    is_code (*workspace_create)(void **workspace, is_error *err);
    void (*workspace_free)(void *workspace);
    void (*workspace_watch)(void *workspace, const volatile sig_atomic_t *stop);
    is_code (*eval_batch)(void *workspace, const double *points, size_t count, double *outputs,
                          uint8_t *status, is_error *err);
    const char *version;
    const is_model_trace *trace; /* contract 2 only */
} legacy_model;

/* Where 3.0's structs end: a 3.x table is at least this large. */
#define MODEL_3_0_SIZE (offsetof(is_model, trace) + sizeof(const is_model_trace *))
#define PARAM_3_0_SIZE (offsetof(is_param, label) + sizeof(const char *))
#define OUTPUT_3_0_SIZE (offsetof(is_output, label) + sizeof(const char *))
/* Counts beyond any real model (conformance.c refuses more): a table claiming more is
 * garbage, not a model. */
#define COUNT_MAX 1024

struct is_model_copy {
    is_model model;
    is_param *params;
    is_output *outputs;
    is_model_trace trace;
    is_param *options;
    char version[64];
};

const is_model *is_model_abi_model(const is_model_copy *copy)
{
    return &copy->model;
}

const char *is_model_abi_version(const is_model_copy *copy)
{
    return copy->version;
}

void is_model_abi_free(is_model_copy **copy)
{
    if (!copy || !*copy)
        return;
    free((*copy)->params);
    free((*copy)->outputs);
    free((*copy)->options);
    free(*copy);
    *copy = NULL;
}

/* count elements of `size` bytes each (the plug-in's stride) into the engine's `own`
 * bytes each, zero beyond what the plug-in's hold. NULL when out of memory. */
static void *restride(const void *from, size_t count, size_t size, size_t own)
{
    char *to = calloc(count ? count : 1, own);
    for (size_t i = 0; to && from && i < count; i++)
        memcpy(to + i * own, (const char *)from + i * size, size < own ? size : own);
    return to;
}

static is_code copy_trace(is_model_copy *c, const is_model_trace *trace, size_t param_size,
                          is_error *err)
{
    if (!trace)
        return IS_OK;
    c->trace = *trace;
    if (trace->option_count > COUNT_MAX)
        return is_error_set(err, IS_PLUGIN, "its trace lists %zu options", trace->option_count);
    if (trace->options) {
        c->options = restride(trace->options, trace->option_count, param_size, sizeof(is_param));
        if (!c->options)
            return is_error_set(err, IS_NOMEM, "out of memory");
        c->trace.options = c->options;
    }
    c->model.trace = &c->trace;
    return IS_OK;
}

/* Contracts 1 and 2: the same members, then the new ones absent. The outputs' flags say
 * what those contracts allowed: NaN in any output of a done point. */
static is_code read_legacy(is_model_copy *c, const legacy_model *old, int major, is_error *err)
{
    if (old->param_count > COUNT_MAX || old->output_count > COUNT_MAX)
        return is_error_set(err, IS_PLUGIN, "its table lists %zu parameters and %zu outputs",
                            old->param_count, old->output_count);
    c->model = (is_model){IS_MODEL_HEADER,
                          .name = old->name,
                          .description = old->description,
                          .param_count = old->param_count,
                          .output_count = old->output_count,
                          .validate = old->validate,
                          .workspace_create = old->workspace_create,
                          .workspace_free = old->workspace_free,
                          .workspace_watch = old->workspace_watch,
                          .eval_batch = old->eval_batch,
                          .version = old->version};
    c->params = restride(old->params, old->param_count, sizeof(legacy_param), sizeof(is_param));
    c->outputs =
        restride(old->outputs, old->output_count, sizeof(legacy_output), sizeof(is_output));
    if (!c->params || !c->outputs)
        return is_error_set(err, IS_NOMEM, "out of memory");
    for (size_t o = 0; o < old->output_count; o++)
        c->outputs[o].flags = IS_OUTPUT_MAY_BE_NAN;
    c->model.params = old->params ? c->params : NULL;
    c->model.outputs = old->outputs ? c->outputs : NULL;
    snprintf(c->version, sizeof c->version, "%d (before the ABI header)", major);
    return major == 2 ? copy_trace(c, old->trace, sizeof(legacy_param), err) : IS_OK;
}

/* Contract 3.x: the header says how large each struct is as the plug-in was built. */
static is_code read_current(is_model_copy *c, const is_model *t, is_error *err)
{
    if (t->abi_version != IS_MODEL_ABI_VERSION)
        return is_error_set(err, IS_PLUGIN,
                            "its table says contract version %u, its export %d: does the "
                            "table begin with IS_MODEL_HEADER?",
                            (unsigned)t->abi_version, IS_MODEL_ABI_VERSION);
    if (t->abi_minor > IS_MODEL_ABI_MINOR)
        return is_error_set(err, IS_PLUGIN,
                            "built against model contract %u.%u, newer than this "
                            "impactsweep's %d.%d: it may need members or SDK functions that "
                            "this impactsweep lacks (upgrade impactsweep, or rebuild the "
                            "plug-in against this one's model.h)",
                            (unsigned)t->abi_version, (unsigned)t->abi_minor, IS_MODEL_ABI_VERSION,
                            IS_MODEL_ABI_MINOR);
    if (t->struct_size < MODEL_3_0_SIZE || t->struct_size > sizeof(is_model) ||
        t->param_size < PARAM_3_0_SIZE || t->param_size > sizeof(is_param) ||
        t->output_size < OUTPUT_3_0_SIZE || t->output_size > sizeof(is_output))
        return is_error_set(err, IS_PLUGIN,
                            "its table's header does not add up (sizes %u, %u, %u for contract "
                            "%u.%u): does it begin with IS_MODEL_HEADER?",
                            (unsigned)t->struct_size, (unsigned)t->param_size,
                            (unsigned)t->output_size, (unsigned)t->abi_version,
                            (unsigned)t->abi_minor);
    memcpy(&c->model, t, t->struct_size);
    if (t->param_count > COUNT_MAX || t->output_count > COUNT_MAX)
        return is_error_set(err, IS_PLUGIN, "its table lists %zu parameters and %zu outputs",
                            t->param_count, t->output_count);
    c->params = restride(t->params, t->param_count, t->param_size, sizeof(is_param));
    c->outputs = restride(t->outputs, t->output_count, t->output_size, sizeof(is_output));
    if (!c->params || !c->outputs)
        return is_error_set(err, IS_NOMEM, "out of memory");
    c->model.params = t->params ? c->params : NULL;
    c->model.outputs = t->outputs ? c->outputs : NULL;
    /* the copy is in this engine's layout now */
    c->model.abi_minor = IS_MODEL_ABI_MINOR;
    c->model.struct_size = sizeof(is_model);
    c->model.param_size = sizeof(is_param);
    c->model.output_size = sizeof(is_output);
    snprintf(c->version, sizeof c->version, "%u.%u", (unsigned)t->abi_version,
             (unsigned)t->abi_minor);
    return copy_trace(c, c->model.trace, t->param_size, err);
}

is_code is_model_abi_read(const void *table, int major, const char *library, is_model_copy **copy,
                          is_error *err)
{
    *copy = NULL;
    if (major != 1 && major != 2 && major != IS_MODEL_ABI_VERSION)
        return is_error_set(err, IS_PLUGIN,
                            "model plug-in %s: built against model contract version %d, but "
                            "this impactsweep loads versions 1 to %d.%d: rebuild it against "
                            "this impactsweep's model.h",
                            library, major, IS_MODEL_ABI_VERSION, IS_MODEL_ABI_MINOR);
    is_model_copy *c = calloc(1, sizeof *c);
    if (!c)
        return is_error_set(err, IS_NOMEM, "out of memory");
    is_error detail;
    is_code rc = major == IS_MODEL_ABI_VERSION ? read_current(c, table, &detail)
                                               : read_legacy(c, table, major, &detail);
    if (rc != IS_OK) {
        is_model_abi_free(&c);
        return is_error_set(err, rc, "model plug-in %s: %s", library, detail.message);
    }
    *copy = c;
    return IS_OK;
}
