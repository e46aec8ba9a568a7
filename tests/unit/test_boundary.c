/* test_boundary.c: the plug-in boundary's own pieces: the checks every run makes of what a
 * model returns (is_conformance_results), the tables of older contracts read in the
 * engine's layout (model_abi.h), a model's table as text and back (model_text.h), and the
 * evaluator, in process and contained (the same bits; a point past point_timeout failed
 * alone; a write past the outputs caught); array outputs (contract 3.4) through them. */
#include <CUnit/CUnit.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "core/contract/conformance.h"
#include "core/contract/engine.h"
#include "core/contract/evaluator.h"
#include "core/contract/model_abi.h"
#include "core/contract/model_text.h"
#include "models/registry.h"
#include "suites.h"

/* --- the results of every run --------------------------------------------------------- */

static const char *const two[] = {"a", "b", NULL};
static const is_param one_param[] = {
    {"x", "a number", "1", IS_PARAM_REAL, 0, -10, 10, 0, NULL, NULL, "$x$"}};
static const is_output four_outputs[] = {
    {"real", "1", "a real", IS_OUTPUT_REAL, NULL, 0, NULL},
    {"maybe", "1", "a real that may be NaN", IS_OUTPUT_REAL, NULL, IS_OUTPUT_MAY_BE_NAN, NULL},
    {"count", "1", "an integer", IS_OUTPUT_INT, NULL, 0, NULL},
    {"kind", "1", "a category", IS_OUTPUT_CATEGORY, two, 0, NULL}};

static is_code never(void *ws, const double *p, size_t n, double *o, uint8_t *s, is_error *e)
{
    (void)ws, (void)p, (void)n, (void)o, (void)s, (void)e;
    return IS_OK;
}

static const is_model checked = {IS_MODEL_HEADER,     .name = "checked",  .description = "checks",
                                 .params = one_param, .param_count = 1,   .outputs = four_outputs,
                                 .output_count = 4,   .eval_batch = never};

typedef struct reports {
    size_t count;
    size_t index[16];
    char reason[16][256];
} reports;

static void collect(void *context, size_t index, const char *reason)
{
    reports *r = context;
    if (r->count < 16) {
        r->index[r->count] = index;
        snprintf(r->reason[r->count], 256, "%s", reason);
    }
    r->count++;
}

static void test_results_checked(void)
{
    enum { N = 10 };
    /* point: what it returns; expected: whether it fails */
    double out[4 * N];
    uint8_t status[N];
    for (size_t i = 0; i < N; i++) {
        out[0 * N + i] = 1.5, out[1 * N + i] = 2.5, out[2 * N + i] = 3, out[3 * N + i] = 1;
        status[i] = IS_POINT_DONE;
    }
    status[1] = 200;               /* no status */
    status[2] = IS_POINT_INFERRED; /* the engine's */
    status[3] = IS_POINT_PENDING;  /* without a stop */
    out[0 * N + 4] = NAN;          /* a real that may not be NaN */
    out[1 * N + 5] = NAN;          /* one that may: fine */
    out[0 * N + 6] = INFINITY;     /* inf, not declared */
    out[2 * N + 7] = 1e300;        /* an integer that would wrap */
    out[3 * N + 8] = 2;            /* a category that does not exist */
    status[9] = IS_POINT_FAILED_SOLVER;
    out[2 * N + 9] = -3e10; /* a failed point's unstorable integer: no value */
    reports r = {0};
    size_t failed = is_conformance_results(&checked, out, status, N, 0, collect, &r);
    static const int fails[N] = {0, 1, 1, 1, 1, 0, 1, 1, 1, 0};
    CHECK(failed == 7 && r.count == 7, "%zu failed, %zu reported", failed, r.count);
    for (size_t i = 0; i < N; i++)
        CHECK((status[i] == IS_POINT_FAILED_CHECK) == fails[i] ||
                  (i == 9 && status[i] == IS_POINT_FAILED_SOLVER),
              "point %zu: status %d", i, status[i]);
    CHECK(isnan(out[2 * N + 9]), "a failed point's int32-overflowing output is %g", out[2 * N + 9]);
    CHECK(isnan(out[2 * N + 7]), "the wrapping integer is still %g", out[2 * N + 7]);
    int named = 0;
    for (size_t k = 0; k < r.count && k < 16; k++)
        named += strstr(r.reason[k], "count = 1e+300 is not an int32") != NULL ||
                 strstr(r.reason[k], "kind = 2 names no category") != NULL ||
                 strstr(r.reason[k], "real is NaN") != NULL;
    CHECK(named == 3, "the reasons: %s | %s | %s", r.reason[0], r.reason[3], r.reason[5]);
    /* when stopping, a pending point is no breach */
    uint8_t pending = IS_POINT_PENDING;
    double none[4] = {NAN, NAN, NAN, NAN};
    CHECK(is_conformance_results(&checked, none, &pending, 1, 1, NULL, NULL) == 0,
          "a pending point after a stop was failed");
}

/* --- older tables ------------------------------------------------------------------------ */

/* Contract 2's layout, as a plug-in built then has it (tests/models/plugins/abi2). */
typedef struct v2_param {
    const char *name, *meaning, *unit;
    is_param_type type;
    double default_value, min, max;
    unsigned flags;
    const char *const *choices;
    const is_param_when *when;
} v2_param;
typedef struct v2_output {
    const char *name, *unit, *long_name;
    is_output_type type;
    const char *const *categories;
} v2_output;
typedef struct v2_model {
    const char *name, *description;
    const v2_param *params;
    size_t param_count;
    const v2_output *outputs;
    size_t output_count;
    void *validate, *workspace_create, *workspace_free, *workspace_watch, *eval_batch;
    const char *version;
    const void *trace;
} v2_model;

static void test_older_tables(void)
{
    static const v2_param params[] = {{"x", "x", "1", IS_PARAM_REAL, 0, -1, 1, 0, NULL, NULL},
                                      {"k", "k", "1", IS_PARAM_CHOICE, 1, 0, 1, 0, two, NULL}};
    static const v2_output outputs[] = {{"y", "1", "y", IS_OUTPUT_REAL, NULL},
                                        {"c", "1", "c", IS_OUTPUT_CATEGORY, two}};
    v2_model old = {"old", "an old table", params,        2,     outputs, 2, NULL, NULL,
                    NULL,  NULL,           (void *)never, "0.9", NULL};
    is_model_copy *copy = NULL;
    is_error err;
    CU_ASSERT_EQUAL_FATAL(is_model_abi_read(&old, 2, "old.so", &copy, &err), IS_OK);
    const is_model *m = is_model_abi_model(copy);
    CHECK(strcmp(m->name, "old") == 0 && m->param_count == 2 && m->output_count == 2 &&
              strcmp(m->params[1].name, "k") == 0 && m->params[1].choices == two &&
              m->params[1].default_value == 1 && strcmp(m->outputs[1].name, "c") == 0 &&
              m->outputs[1].categories == two && m->eval_batch == (void *)never,
          "the contract-2 table read wrong");
    CHECK(m->params[0].label == NULL && m->outputs[0].flags == IS_OUTPUT_MAY_BE_NAN,
          "what contract 2 lacks: label %p, flags %u", (const void *)m->params[0].label,
          m->outputs[0].flags);
    CHECK(is_conformance_table(m, &err) == IS_OK, "the read table: %s", err.message);
    is_model_abi_free(&copy);

    /* 3.x: a newer minor, a header that does not add up, another major: refused */
    is_model newer = checked;
    newer.abi_minor = IS_MODEL_ABI_MINOR + 1;
    CHECK(is_model_abi_read(&newer, IS_MODEL_ABI_VERSION, "new.so", &copy, &err) == IS_PLUGIN &&
              strstr(err.message, "newer than this impactsweep's"),
          "a newer minor: %s", err.message);
    is_model headerless = checked;
    headerless.struct_size = 0, headerless.abi_version = 0;
    CHECK(is_model_abi_read(&headerless, IS_MODEL_ABI_VERSION, "h.so", &copy, &err) == IS_PLUGIN &&
              strstr(err.message, "IS_MODEL_HEADER"),
          "no header: %s", err.message);
    is_model wide = checked;
    wide.param_size = sizeof(is_param) + 8;
    CHECK(is_model_abi_read(&wide, IS_MODEL_ABI_VERSION, "w.so", &copy, &err) == IS_PLUGIN,
          "a parameter larger than this engine's, at this minor, was read");
    CHECK(is_model_abi_read(&checked, IS_MODEL_ABI_VERSION + 1, "m.so", &copy, &err) == IS_PLUGIN,
          "another major was read");
    CHECK(is_model_abi_read(&checked, IS_MODEL_ABI_VERSION, "ok.so", &copy, &err) == IS_OK,
          "the current table: %s", err.message);
    is_model_abi_free(&copy);
}

/* A table of an older minor (3.0, before `references`), and references' own checks. */
static void test_older_minor(void)
{
    is_model_copy *copy = NULL;
    is_error err;
    /* 3.0: a table built before `references` (3.1) ends at `trace`: what lies beyond it
     * in the plug-in's memory is not read, the member reads as absent */
    struct {
        is_model table;
        char beyond[64];
    } v3_0;
    memset(&v3_0, 0xA5, sizeof v3_0);
    v3_0.table = checked;
    v3_0.table.struct_size = (uint32_t)offsetof(is_model, references);
    v3_0.table.abi_minor = 0;
    memset(&v3_0.table.references, 0xA5, sizeof v3_0.table.references);
    CU_ASSERT_EQUAL_FATAL(is_model_abi_read(&v3_0.table, IS_MODEL_ABI_VERSION, "v3_0.so", &copy,
                                            &err),
                          IS_OK);
    const is_model *m = is_model_abi_model(copy);
    CHECK(m->references == NULL && strcmp(m->name, "checked") == 0 &&
              strcmp(is_model_abi_version(copy), "3.0") == 0,
          "a 3.0 table: references %p, read as %s", (const void *)m->references,
          is_model_abi_version(copy));
    CHECK(is_conformance_table(m, &err) == IS_OK, "the 3.0 table read: %s", err.message);
    is_model_abi_free(&copy);

    /* references: one line of text or NULL */
    is_model cited = checked;
    cited.references = "A. Author, Title, arXiv:0000.00000";
    CHECK(is_conformance_table(&cited, &err) == IS_OK, "references refused: %s", err.message);
    cited.references = "";
    CHECK(is_conformance_table(&cited, &err) == IS_PLUGIN && strstr(err.message, "references"),
          "empty references accepted");
    cited.references = "two\nlines";
    CHECK(is_conformance_table(&cited, &err) == IS_PLUGIN && strstr(err.message, "references"),
          "references of two lines accepted");
}

/* --- the table as text -------------------------------------------------------------------- */

static void test_table_text(void)
{
    for (const is_model *const *m = is_registry_models(); *m; m++) {
        char digest[65], again[65];
        char *text = is_model_text(*m, "9.9", digest);
        CU_ASSERT_PTR_NOT_NULL_FATAL(text);
        is_model_described *d = NULL;
        is_error err;
        CHECK(is_model_describe(text, &d, &err) == IS_OK, "%s: %s", (*m)->name, err.message);
        if (!d) {
            free(text);
            continue;
        }
        char *back = is_model_text(is_model_described_model(d), "other", again);
        CHECK(back && strcmp(text, back) == 0, "%s: the table does not read back", (*m)->name);
        CHECK(strcmp(digest, again) == 0, "%s: another digest read back", (*m)->name);
        CHECK(is_conformance_table(is_model_described_model(d), &err) == IS_OK ||
                  strstr(err.message, "eval_batch"),
              "%s: the description breaks the table checks: %s", (*m)->name, err.message);
        free(back);
        is_model_described_free(&d);
        free(text);
    }
    /* the digest: the version and the tables, not the labels nor the description */
    is_param p[1];
    is_output o[4];
    memcpy(p, one_param, sizeof p);
    memcpy(o, four_outputs, sizeof o);
    is_model m = checked;
    m.params = p, m.outputs = o, m.version = "1.0";
    char base[65], other[65];
    free(is_model_text(&m, NULL, base));
    p[0].label = "$\\xi$", o[0].label = "a real", m.description = "another description";
    m.references = "A. Author, A Title, arXiv:0000.00000";
    char *with_references = is_model_text(&m, NULL, other);
    CHECK(strcmp(base, other) == 0, "labels, the description or references changed the digest");
    /* the references read back from the stored text (merge and info take the model there) */
    is_model_described *back = NULL;
    is_error why;
    CHECK(with_references && is_model_describe(with_references, &back, &why) == IS_OK &&
              is_model_described_model(back)->references &&
              strcmp(is_model_described_model(back)->references, m.references) == 0,
          "the references did not read back from the table's text");
    is_model_described_free(&back);
    free(with_references);
    m.references = NULL;
    p[0].max = 11;
    free(is_model_text(&m, NULL, other));
    CHECK(strcmp(base, other) != 0, "a range did not change the digest");
    p[0].max = 10, m.version = "1.1";
    free(is_model_text(&m, NULL, other));
    CHECK(strcmp(base, other) != 0, "the version did not change the digest");
    is_model_described *d = NULL;
    is_error err;
    CHECK(is_model_describe("not a table", &d, &err) == IS_NOT_RESULT, "garbage was read");
}

/* --- the evaluator ---------------------------------------------------------------------- */

static void fill_synthetic(const is_model *m, double *points, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        double *p = points + i * m->param_count;
        is_conformance_point(m, p);
        p[0] = (double)i * 0.37 - 3;  /* x */
        p[1] = (double)(i % 7) * 1.5; /* y */
    }
}

static int evaluate(const is_model *m, int contained, double timeout, size_t n, double *out,
                    uint8_t *status, double cost_at)
{
    is_evaluator_config config = {
        .model = m, .contained = contained, .point_timeout = timeout, .capacity = n};
    is_evaluator *ev = NULL;
    is_error err;
    if (is_evaluator_create(&ev, &config, &err) != IS_OK) {
        CHECK(0, "evaluator: %s", err.message);
        return 0;
    }
    double *points = is_evaluator_points(ev);
    fill_synthetic(m, points, n);
    if (cost_at >= 0)
        points[(size_t)cost_at * m->param_count + is_model_param_index(m, "cost")] = 2.0;
    const double *o;
    const uint8_t *s;
    is_code rc = is_evaluator_eval(ev, n, &o, &s, &err);
    CHECK(rc == IS_OK, "eval: %s", err.message);
    if (rc == IS_OK) {
        memcpy(out, o, n * m->output_count * sizeof *o);
        memcpy(status, s, n);
    }
    is_evaluator_free(&ev);
    return rc == IS_OK;
}

static void test_evaluator(void)
{
    const is_model *m = is_registry_find("synthetic");
    CU_ASSERT_PTR_NOT_NULL_FATAL(m);
    enum { N = 500 };
    size_t no = m->output_count;
    double *here = malloc(N * no * sizeof *here), *there = malloc(N * no * sizeof *there);
    uint8_t s_here[N], s_there[N];
    CU_ASSERT_FATAL(here && there);
    /* in process and in an evaluator process: the same bits */
    CU_ASSERT_FATAL(evaluate(m, 0, 0, N, here, s_here, -1));
    CU_ASSERT_FATAL(evaluate(m, 1, 0, N, there, s_there, -1));
    CHECK(memcmp(here, there, N * no * sizeof *here) == 0 && memcmp(s_here, s_there, N) == 0,
          "contained and in-process results differ");
    /* a point of 2 s with a point_timeout of 0.2 s: it alone fails, the rest as before */
    CU_ASSERT_FATAL(evaluate(m, 1, 0.2, N, there, s_there, 123));
    for (size_t i = 0; i < N; i++)
        CHECK(i == 123 ? s_there[i] == IS_POINT_FAILED_TIMEOUT : s_there[i] == s_here[i],
              "point %zu: status %d", i, s_there[i]);
    for (size_t o = 0; o < no; o++)
        for (size_t i = 0; i < N; i++)
            if (i != 123)
                CHECK(memcmp(&here[o * N + i], &there[o * N + i], sizeof *here) == 0,
                      "output %zu of point %zu differs after the timeout", o, i);
    free(here);
    free(there);
}

/* A model writing one past the end of its outputs. */
static is_code past_the_end(void *ws, const double *p, size_t n, double *o, uint8_t *s, is_error *e)
{
    (void)ws, (void)p, (void)e;
    for (size_t i = 0; i < n; i++)
        s[i] = IS_POINT_DONE, o[i] = 1, o[n + i] = 2, o[2 * n + i] = 3, o[3 * n + i] = 0;
    o[4 * n] = 42;
    return IS_OK;
}

static void test_guards(void)
{
    is_model bad = checked;
    bad.eval_batch = past_the_end;
    is_evaluator_config config = {.model = &bad, .capacity = 8};
    is_evaluator *ev = NULL;
    is_error err;
    CU_ASSERT_EQUAL_FATAL(is_evaluator_create(&ev, &config, &err), IS_OK);
    memset(is_evaluator_points(ev), 0, 8 * sizeof(double));
    const double *o;
    const uint8_t *s;
    CHECK(is_evaluator_eval(ev, 3, &o, &s, &err) == IS_INTERNAL &&
              strstr(err.message, "wrote outside its outputs array"),
          "a write past the outputs: %s", err.message);
    is_evaluator_free(&ev);
}

/* --- array outputs (3.4) ------------------------------------------------------------------ */

static const is_output array_outputs[] = {
    {.name = "peak", .unit = "1", .long_name = "a scalar", .type = IS_OUTPUT_REAL},
    {.name = "ramp", .unit = "1", .long_name = "an array", .type = IS_OUTPUT_REAL, .length = 3,
     .length_name = "k"},
    {.name = "kinds", .unit = "1", .long_name = "categories", .type = IS_OUTPUT_CATEGORY,
     .categories = two, .length = 2},
    {.name = "scalar_one", .unit = "1", .long_name = "length 1", .type = IS_OUTPUT_INT,
     .length = 1}};

static void test_array_outputs(void)
{
    is_output o[4];
    memcpy(o, array_outputs, sizeof o);
    is_model m = checked;
    m.outputs = o, m.output_count = 4;
    is_error err;
    CHECK(is_conformance_table(&m, &err) == IS_OK, "an array table refused: %s", err.message);
    /* eval_batch's layout: each output's block after the lengths before it */
    CHECK(is_model_value_count(&m) == 7 && is_model_output_offset(&m, 1) == 1 &&
              is_model_output_offset(&m, 2) == 4 && is_model_output_offset(&m, 3) == 6,
          "value count %zu, offsets %zu %zu %zu", is_model_value_count(&m),
          is_model_output_offset(&m, 1), is_model_output_offset(&m, 2),
          is_model_output_offset(&m, 3));
    char dim[64];
    is_output_dimension(&o[2], dim, sizeof dim);
    CHECK(strcmp(dim, "kinds_index") == 0, "the default dimension: %s", dim);
    /* refused: too long, a scalar naming a dimension, a parameter's or an output's name,
     * one dimension with two lengths */
    struct {
        size_t output, length;
        const char *name, *why;
    } bad[] = {{1, IS_OUTPUT_LENGTH_MAX + 1, "k", "length"}, {0, 0, "k", "scalar"},
               {1, 3, "x", "variable name"}, {1, 3, "peak", "variable name"},
               {1, 3, "1k", "variable name"}, {1, 3, "kinds_index", "share the dimension"}};
    for (size_t b = 0; b < sizeof bad / sizeof *bad; b++) {
        memcpy(o, array_outputs, sizeof o);
        o[bad[b].output].length = bad[b].length;
        o[bad[b].output].length_name = bad[b].name;
        CHECK(is_conformance_table(&m, &err) == IS_PLUGIN && strstr(err.message, bad[b].why),
              "case %zu accepted or another message: %s", b, err.message);
    }
    memcpy(o, array_outputs, sizeof o);

    /* every value is checked: ramp's NaN (not allowed) fails its point only; a category
     * out of range in point 0's second value is failed and stored as no value */
    enum { N = 2 };
    double out[7 * N];
    for (size_t i = 0; i < 7 * N; i++)
        out[i] = 0.0;
    out[1 * N + 1 * 3 + 2] = NAN; /* ramp, point 1, value 2 */
    out[4 * N + 0 * 2 + 1] = 5;   /* kinds, point 0, value 1 */
    uint8_t status[N] = {IS_POINT_DONE, IS_POINT_DONE};
    reports r = {0};
    size_t failed = is_conformance_results(&m, out, status, N, 0, collect, &r);
    CHECK(failed == 2 && status[0] == IS_POINT_FAILED_CHECK &&
              status[1] == IS_POINT_FAILED_CHECK && r.count == 2 && isnan(out[4 * N + 1]) &&
              out[4 * N] == 0 && out[1 * N + 3] == 0,
          "array values checked wrong: %zu failed (%s; %s)", failed, r.reason[0], r.reason[1]);

    /* the table's text: an array's length and dimension read back and change the digest */
    char base[65], other[65];
    char *text = is_model_text(&m, "1.0", base);
    is_model_described *d = NULL;
    CHECK(text && is_model_describe(text, &d, &err) == IS_OK &&
              is_model_described_model(d)->outputs[1].length == 3 &&
              strcmp(is_model_described_model(d)->outputs[1].length_name, "k") == 0 &&
              is_model_described_model(d)->outputs[2].length == 2 &&
              is_model_described_model(d)->outputs[2].length_name == NULL &&
              is_model_described_model(d)->outputs[0].length == 0,
          "the array outputs did not read back from the table's text");
    is_model_described_free(&d);
    free(text);
    o[1].length = 4;
    free(is_model_text(&m, "1.0", other));
    CHECK(strcmp(base, other) != 0, "a length did not change the digest");
    o[1].length = 3;
    o[3].length = 0; /* a scalar of length 1 or 0: the same table */
    free(is_model_text(&m, "1.0", other));
    CHECK(strcmp(base, other) == 0, "length 0 and 1 differ in the digest");

    /* a 3.3 table: its outputs end before `length`; what lies beyond is not read */
    size_t size33 = offsetof(is_output, length);
    unsigned char *old = malloc(4 * size33 + 64);
    CU_ASSERT_PTR_NOT_NULL_FATAL(old);
    memset(old, 0xA5, 4 * size33 + 64);
    for (size_t k = 0; k < 4; k++)
        memcpy(old + k * size33, &four_outputs[k], size33);
    is_model v33 = checked;
    v33.abi_minor = 3, v33.output_size = (uint32_t)size33;
    v33.outputs = (const is_output *)(const void *)old;
    is_model_copy *copy = NULL;
    CU_ASSERT_EQUAL_FATAL(is_model_abi_read(&v33, IS_MODEL_ABI_VERSION, "v3_3.so", &copy, &err),
                          IS_OK);
    const is_model *read = is_model_abi_model(copy);
    CHECK(read->outputs[3].length == 0 && read->outputs[3].length_name == NULL &&
              read->outputs[3].categories == two && is_model_value_count(read) == 4 &&
              is_conformance_table(read, &err) == IS_OK,
          "a 3.3 table read with length %zu", read->outputs[3].length);
    is_model_abi_free(&copy);
    free(old);
}

void suite_boundary(void)
{
    CU_pSuite s = CU_add_suite("boundary", NULL, NULL);
    CU_add_test(s, "every result is checked against the contract", test_results_checked);
    CU_add_test(s, "tables of older contracts are read, newer or broken ones refused",
                test_older_tables);
    CU_add_test(s, "a 3.0 table reads without references; references checked", test_older_minor);
    CU_add_test(s, "a model's table reads back from its text; the digest", test_table_text);
    CU_add_test(s, "contained and in process: the same bits; a timeout fails one point",
                test_evaluator);
    CU_add_test(s, "a write past the outputs is caught", test_guards);
    CU_add_test(s, "array outputs: the table, every value checked, the text, a 3.3 table",
                test_array_outputs);
}
