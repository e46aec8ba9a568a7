/* test_models.c: the conformance suite: every registered model keeps the contract of
 * model.h (a well-formed table, and eval_batch results that depend only on each
 * point's own parameters). A new model is covered by adding it to the registry. */
#include <CUnit/CUnit.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "core/contract/conformance.h"
#include "core/contract/engine.h"
#include "core/job/job.h"
#include "models/registry.h"
#include "suites.h"

/* An admissible value for parameter p: its default, or inside its range (the point the
 * runtime checks use too). */
static double admissible_value(const is_model *model, size_t p)
{
    double point[64];
    CU_ASSERT_FATAL(model->param_count <= 64);
    is_conformance_point(model, point);
    return point[p];
}

/* The built-in models name the paper each implements (is_model.references, the result
 * files' `references`): its arXiv identifier, as README's list and CITATION.cff have it. */
static void test_models_name_their_papers(void)
{
    static const struct {
        const char *model, *arxiv, *title;
    } papers[] = {
        {"chatter", "arXiv:1704.03044", "Zeno chattering of rigid bodies"},
        {"collision", "arXiv:2410.08147", "The Bouc-Wen Model for Binary Direct Collinear"},
        {"stop-oscillator", "arXiv:nlin/0309060", "Two Coupled Oscillators that can Impact"},
    };
    for (size_t i = 0; i < sizeof papers / sizeof papers[0]; i++) {
        const is_model *m = is_registry_find(papers[i].model);
        CU_ASSERT_PTR_NOT_NULL_FATAL(m);
        CU_ASSERT_PTR_NOT_NULL_FATAL(m->references);
        CU_ASSERT_PTR_NOT_NULL(strstr(m->references, papers[i].arxiv));
        CU_ASSERT_PTR_NOT_NULL(strstr(m->references, papers[i].title));
    }
}

static void test_tables_are_well_formed(void)
{
    const is_model *const *models = is_registry_models();
    CU_ASSERT_PTR_NOT_NULL_FATAL(models[0]);
    for (const is_model *const *m = models; *m; m++) {
        const is_model *model = *m;
        CU_ASSERT_TRUE(model->name && *model->name && model->description && *model->description);
        CU_ASSERT_PTR_EQUAL(is_registry_find(model->name), model);
        CU_ASSERT_TRUE(model->param_count > 0 && model->output_count > 0);
        CU_ASSERT_PTR_NOT_NULL(model->eval_batch);
        for (const is_model *const *other = m + 1; *other; other++)
            CU_ASSERT_NOT_EQUAL(strcmp(model->name, (*other)->name), 0);
        for (size_t p = 0; p < model->param_count; p++) {
            const is_param *param = &model->params[p];
            CU_ASSERT_TRUE(param->name && *param->name && param->meaning && param->unit);
            CU_ASSERT_EQUAL(is_model_param_index(model, param->name), (int)p);
            CU_ASSERT_TRUE(param->min <= param->max);
            if (param->type == IS_PARAM_CHOICE)
                CU_ASSERT_TRUE(param->choices && param->choices[0]);
            is_error err;
            if (!isnan(param->default_value))
                CU_ASSERT_EQUAL(is_param_check(param, param->default_value, &err), IS_OK);
            CU_ASSERT_EQUAL(is_param_check(param, admissible_value(model, p), &err), IS_OK);
            CU_ASSERT_NOT_EQUAL(is_param_check(param, NAN, &err), IS_OK);
            /* applicability: conditions on choices of this model, each some of their values */
            for (const is_param_when *w = param->when; w && w->choice; w++) {
                int c = is_model_param_index(model, w->choice);
                CU_ASSERT_TRUE_FATAL(c >= 0);
                CU_ASSERT_EQUAL(model->params[c].type, IS_PARAM_CHOICE);
                CU_ASSERT_NOT_EQUAL(c, (int)p);
                unsigned all = (1u << is_param_choice_count(&model->params[c])) - 1u;
                CU_ASSERT_TRUE(w->choices != 0 && (w->choices & ~all) == 0);
            }
            /* outputs and parameters share the file's namespace, with `status` */
            CU_ASSERT_EQUAL(is_model_output_index(model, param->name), -1);
            CU_ASSERT_NOT_EQUAL(strcmp(param->name, "status"), 0);
        }
        for (size_t o = 0; o < model->output_count; o++) {
            const is_output *out = &model->outputs[o];
            CU_ASSERT_TRUE(out->name && *out->name && out->unit && out->long_name);
            CU_ASSERT_EQUAL(is_model_output_index(model, out->name), (int)o);
            CU_ASSERT_NOT_EQUAL(strcmp(out->name, "status"), 0);
            if (out->type == IS_OUTPUT_CATEGORY) {
                int count = is_output_category_count(out);
                CU_ASSERT_TRUE(count > 0 && count <= 64);
            }
        }
    }
}

/* Evaluates `count` points; returns outputs (caller frees) and statuses. */
static double *evaluate(const is_model *model, const double *points, size_t count,
                        uint8_t *status)
{
    double *out = malloc(count * model->output_count * sizeof *out);
    void *ws = NULL;
    is_error err;
    CU_ASSERT_FATAL(out != NULL);
    if (model->workspace_create)
        CU_ASSERT_EQUAL_FATAL(model->workspace_create(&ws, &err), IS_OK);
    CU_ASSERT_EQUAL(model->eval_batch(ws, points, count, out, status, &err), IS_OK);
    if (model->workspace_free)
        model->workspace_free(ws);
    return out;
}

static void test_eval_is_pointwise(void)
{
    for (const is_model *const *m = is_registry_models(); *m; m++) {
        const is_model *model = *m;
        size_t np = model->param_count, no = model->output_count;
        /* point A: admissible defaults; point B: A with one real parameter moved */
        double *points = malloc(3 * np * sizeof *points);
        CU_ASSERT_FATAL(points != NULL);
        for (size_t p = 0; p < np; p++)
            points[p] = admissible_value(model, p);
        memcpy(points + np, points, np * sizeof *points);
        for (size_t p = 0; p < np; p++) {
            const is_param *param = &model->params[p];
            double moved = points[p] * 1.25 + 0.01;
            is_error err;
            if (param->type == IS_PARAM_REAL && is_param_check(param, moved, &err) == IS_OK) {
                points[np + p] = moved;
                break;
            }
        }
        memcpy(points + 2 * np, points, np * sizeof *points); /* A again */
        uint8_t status[3], single_status[1];
        double *together = evaluate(model, points, 3, status);
        double *alone = evaluate(model, points + np, 1, single_status);
        for (int i = 0; i < 3; i++)
            CU_ASSERT_TRUE(status[i] < IS_POINT_STATUS_COUNT && status[i] != IS_POINT_PENDING);
        CU_ASSERT_EQUAL(single_status[0], status[1]);
        for (size_t o = 0; o < no; o++) {
            /* the same point gives the same bits wherever it sits in a batch */
            CU_ASSERT_EQUAL(memcmp(&together[o * 3 + 0], &together[o * 3 + 2], sizeof(double)), 0);
            CU_ASSERT_EQUAL(memcmp(&together[o * 3 + 1], &alone[o], sizeof(double)), 0);
            const is_output *out = &model->outputs[o];
            for (int i = 0; i < 3; i++) {
                double v = together[o * 3 + i];
                if (status[i] != IS_POINT_DONE)
                    continue;
                if (out->type == IS_OUTPUT_CATEGORY) {
                    /* a class, or NaN where the output may have no value (stored as -1) */
                    CU_ASSERT_TRUE((isnan(v) && (out->flags & IS_OUTPUT_MAY_BE_NAN)) ||
                                   (v >= 0 && v < is_output_category_count(out) &&
                                    v == floor(v)));
                } else if (out->type == IS_OUTPUT_INT) {
                    /* integral, or NaN: not applicable to this point (stored as -1) */
                    CU_ASSERT_TRUE(isnan(v) || (v == floor(v) && fabs(v) < 2147483647.0));
                }
            }
        }
        free(together);
        free(alone);
        free(points);
    }
}

static void test_job_accepts_every_parameter_as_axis(void)
{
    /* The job parser and the table agree: each sweepable parameter can be an axis. */
    for (const is_model *const *m = is_registry_models(); *m; m++) {
        const is_model *model = *m;
        for (size_t p = 0; p < model->param_count; p++) {
            const is_param *param = &model->params[p];
            if (param->flags & IS_PARAM_FIXED_ONLY || param->type == IS_PARAM_CHOICE)
                continue;
            char text[4096];
            int used = snprintf(text, sizeof text, "[sweep]\nmodel = %s\n[model]\n", model->name);
            for (size_t q = 0; q < model->param_count; q++)
                if (q != p && isnan(model->params[q].default_value))
                    used += snprintf(text + used, sizeof text - (size_t)used, "%s = %.17g\n",
                                     model->params[q].name, admissible_value(model, q));
            /* the choices under which p applies: the first value each condition allows */
            for (const is_param_when *w = param->when; w && w->choice; w++) {
                const is_param *choice = &model->params[is_model_param_index(model, w->choice)];
                int c = 0;
                while (!(w->choices >> c & 1u))
                    c++;
                used += snprintf(text + used, sizeof text - (size_t)used, "%s = %s\n",
                                 w->choice, choice->choices[c]);
            }
            snprintf(text + used, sizeof text - (size_t)used, "[axis.%s]\nvalues = %.17g\n",
                     param->name, admissible_value(model, p));
            is_job *job = NULL;
            is_error err;
            CU_ASSERT_EQUAL(is_job_parse("conformance.ini", text, NULL, 0, is_test_models(), &job,
                                         &err),
                            IS_OK);
            if (job) {
                CU_ASSERT_EQUAL(job->grid.axis_count, 1);
                CU_ASSERT_EQUAL(job->grid.axes[0].param, (int)p);
            }
            is_job_free(&job);
        }
    }
}

/* A trace's size estimate (is_model.trace_samples), for a table that has no trace. */
static double some_samples(const double *point, const double *options, double t0, double t1)
{
    (void)point, (void)options, (void)t0, (void)t1;
    return 1.0;
}

/* The contract's runtime checks (what a plug-in meets as it is loaded, and `models
 * --check`) pass every registered model, and catch each kind of breach in a table made
 * from a good one. */
static void test_runtime_conformance(void)
{
    is_error err;
    for (const is_model *const *m = is_registry_models(); *m; m++) {
        CHECK(is_conformance_table(*m, &err) == IS_OK, "%s: %s", (*m)->name, err.message);
        CHECK(is_conformance_behaviour(*m, NULL, NULL, &err) == IS_OK, "%s: %s", (*m)->name,
              err.message);
    }
    const is_model *good = is_model_find(is_registry_models(), "synthetic");
    CU_ASSERT_PTR_NOT_NULL_FATAL(good);
    is_param params[16];
    is_output outputs[16];
    CU_ASSERT_FATAL(good->param_count <= 16 && good->output_count <= 16);
    static const is_param_when on_a_real[] = {{"x", 1u}, {NULL, 0}};
    static const is_param_when on_a_missing_choice[] = {{"shape", 1u << 5}, {NULL, 0}};
    static const char *const no_choices[] = {NULL};
    static const char *const breaches[] = {
        "model name",          "duplicate parameter",    "bad parameter name",
        "parameter named as an output", "status as output", "default out of range",
        "min above max",       "condition on a real",    "condition on no choice",
        "choice without choices", "no eval_batch",       "half a workspace pair",
        "no unit",             "a trace without run",    "an estimate without a trace"};
    static const char *const one_event[] = {"end", NULL};
    static const is_model_trace traceless = {"1", "time", NULL, 0, one_event, NULL, 0, NULL};
    for (size_t b = 0; b < sizeof breaches / sizeof *breaches; b++) {
        is_model broken = *good;
        memcpy(params, good->params, good->param_count * sizeof *params);
        memcpy(outputs, good->outputs, good->output_count * sizeof *outputs);
        broken.params = params;
        broken.outputs = outputs;
        switch (b) {
        case 0: broken.name = "has space"; break;
        case 1: params[1].name = params[0].name; break;
        case 2: params[0].name = "1x"; break;
        case 3: params[0].name = outputs[0].name; break;
        case 4: outputs[0].name = "status"; break;
        case 5: params[0].default_value = params[0].max * 2 + 1; break;
        case 6: params[0].min = 1, params[0].max = 0, params[0].default_value = NAN; break;
        case 7: params[6].when = on_a_real; break;
        case 8: params[6].when = on_a_missing_choice; break;
        case 9: params[5].choices = no_choices; break;
        case 10: broken.eval_batch = NULL; break;
        case 11: broken.workspace_create = NULL, broken.workspace_free = free; break;
        case 12: outputs[1].unit = NULL; break;
        case 13: broken.trace = &traceless; break;
        case 14: broken.trace = NULL, broken.trace_samples = some_samples; break;
        }
        is_code rc = is_conformance_table(&broken, &err);
        CHECK(rc == IS_PLUGIN, "breach '%s' passed the table checks", breaches[b]);
    }
}

void suite_models(void)
{
    CU_pSuite s = CU_add_suite("models", NULL, NULL);
    CU_add_test(s, "every model table is well formed", test_tables_are_well_formed);
    CU_add_test(s, "the built-in models name their papers", test_models_name_their_papers);
    CU_add_test(s, "eval_batch is pointwise and deterministic", test_eval_is_pointwise);
    CU_add_test(s, "every parameter can be an axis", test_job_accepts_every_parameter_as_axis);
    CU_add_test(s, "the runtime conformance checks pass every model and catch breaches",
                test_runtime_conformance);
}
