/* test_job.c: job-file parsing (values, defaults, axes, overrides, canonical text, fingerprint),
 * every kind of bad input, and the file and parameter-value readers. */
#include <CUnit/CUnit.h>
#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "core/base/suggest.h"
#include "core/job/job.h"
#include "core/job/validate.h"
#include "models/registry.h"
#include "suites.h"

/* --- helpers ---------------------------------------------------------------------- */

/* A CUnit assertion with a formatted failure text, reported at the caller's line. */

static int is_word_char(char c)
{
    return isalnum((unsigned char)c) || c == '_';
}

/* Whether `needle` occurs in `text` as a whole word: "t.ini:7" must not match
 * "t.ini:70", nor the key "n" any 'n' inside another word. */
static int contains_word(const char *text, const char *needle)
{
    size_t n = strlen(needle);
    for (const char *p = strstr(text, needle); p; p = strstr(p + 1, needle)) {
        int starts = p == text || !is_word_char(p[-1]) || !is_word_char(needle[0]);
        int ends = !is_word_char(p[n]) || !is_word_char(needle[n - 1]);
        if (starts && ends)
            return 1;
    }
    return 0;
}

/* A needle may list alternatives, "t.ini:7|t.ini:10", where more than one line is a
 * fair place to report the problem. */
static int contains_any_word(const char *text, const char *needle)
{
    char copy[256];
    snprintf(copy, sizeof copy, "%s", needle);
    for (char *save = NULL, *alt = strtok_r(copy, "|", &save); alt;
         alt = strtok_r(NULL, "|", &save))
        if (contains_word(text, alt))
            return 1;
    return 0;
}

static const is_model *chatter(void)
{
    const is_model *model = is_registry_find("chatter");
    CU_ASSERT_PTR_NOT_NULL_FATAL(model);
    return model;
}

static int param_index(const char *name)
{
    int p = is_model_param_index(chatter(), name);
    CU_ASSERT_FATAL(p >= 0);
    return p;
}

static is_job *parse_ok_at(unsigned line, const char *source, const char *text,
                           const char *const *overrides, size_t override_count)
{
    is_job *job = NULL;
    is_error err = {0};
    is_code rc =
        is_job_parse(source, text, overrides, override_count, is_test_models(), &job, &err);
    is_test_check_at(rc == IS_OK && job != NULL, __FILE__, line, "parse_ok",
                     "expected success, got %s: %s", is_code_name(rc),
                     rc == IS_OK ? "" : err.message);
    if (rc != IS_OK)
        return NULL;
    return job;
}
/* Parses a job that must be accepted; NULL (and a recorded failure) otherwise. */
#define PARSE_OK(text) parse_ok_at(__LINE__, "t.ini", (text), NULL, 0)
#define PARSE_OK_WITH(text, overrides)                                                             \
    parse_ok_at(__LINE__, "t.ini", (text), (overrides), sizeof(overrides) / sizeof *(overrides))

/* Parses a job that must be rejected with `code`, *job left NULL, and a message that
 * contains each of the NULL-terminated `needles` as a word (the file:line, the key). */
static void expect_failure_at(unsigned line, const char *text, const char *const *overrides,
                              size_t override_count, is_code code, const char *const *needles)
{
    static is_job sentinel; /* proves that *job is reset, not merely left alone */
    is_job *job = &sentinel;
    is_error err = {0};
    is_code rc =
        is_job_parse("t.ini", text, overrides, override_count, is_test_models(), &job, &err);
    if (rc == IS_OK) {
        is_test_check_at(0, __FILE__, line, "expect_failure", "expected %s, got OK",
                         is_code_name(code));
        if (job != &sentinel)
            is_job_free(&job);
        return;
    }
    is_test_check_at(rc == code, __FILE__, line, "expect_failure",
                     "expected %s, got %s (message: %s)", is_code_name(code), is_code_name(rc),
                     err.message);
    is_test_check_at(job == NULL, __FILE__, line, "expect_failure",
                     "*job is not NULL after a failure");
    is_test_check_at(err.code == rc, __FILE__, line, "expect_failure",
                     "err.code %s differs from the return %s", is_code_name(err.code),
                     is_code_name(rc));
    for (const char *const *n = needles; *n; n++)
        is_test_check_at(contains_any_word(err.message, *n), __FILE__, line, "expect_failure",
                         "message '%s' does not mention '%s'", err.message, *n);
}
#define EXPECT_FAILURE(text, code, ...)                                                            \
    expect_failure_at(__LINE__, (text), NULL, 0, (code), (const char *const[]){__VA_ARGS__, NULL})
#define EXPECT_OVERRIDE_FAILURE(text, override, code, ...)                                         \
    expect_failure_at(__LINE__, (text), (const char *const[]){override}, 1, (code),                \
                      (const char *const[]){__VA_ARGS__, NULL})

static uint64_t fingerprint_of(unsigned line, const char *text)
{
    is_job *job = parse_ok_at(line, "t.ini", text, NULL, 0);
    if (!job)
        return 0;
    uint64_t f = job->fingerprint;
    is_job_free(&job);
    return f;
}

/* Lines 1-5 of many bad jobs below: a complete, valid job, so that the one bad line
 * that follows (line 6) is the only problem. */
#define GOOD_HEAD                                                                                  \
    "[sweep]\n"         /* 1 */                                                                    \
    "model = chatter\n" /* 2 */                                                                    \
    "[model]\n"         /* 3 */                                                                    \
    "rho = 1.5\n"       /* 4 */                                                                    \
    "gamma = 0.5\n"     /* 5 */

/* --- good jobs -------------------------------------------------------------------- */

/* Given values land at their parameter's index; every other parameter gets the table's
 * default; the [sweep] defaults apply; a job without axes is a one-point grid. */
static void test_good_fixed_values_and_defaults(void)
{
    is_job *job = PARSE_OK("[sweep]\n"
                           "model = chatter\n"
                           "title = a test job\n"
                           "[model]\n"
                           "rho = 1.5\n"
                           "gamma = 0.25\n"
                           "samples = 12\n");
    CU_ASSERT_PTR_NOT_NULL_FATAL(job);
    const is_model *model = chatter();
    CU_ASSERT_PTR_EQUAL(job->model, model);
    CU_ASSERT_PTR_NOT_NULL_FATAL(job->fixed);
    for (size_t p = 0; p < model->param_count; p++) {
        const char *name = model->params[p].name;
        double expected = strcmp(name, "rho") == 0       ? 1.5
                          : strcmp(name, "gamma") == 0   ? 0.25
                          : strcmp(name, "samples") == 0 ? 12.0
                                                         : model->params[p].default_value;
        CHECK(job->fixed[p] == expected, "%s = %.17g, expected %.17g", name, job->fixed[p],
              expected);
    }
    CU_ASSERT_STRING_EQUAL(job->source, "t.ini");
    CU_ASSERT_PTR_NOT_NULL_FATAL(job->title);
    CU_ASSERT_STRING_EQUAL(job->title, "a test job");
    CU_ASSERT_EQUAL(job->unit_size, 0);       /* auto */
    CU_ASSERT(job->progress_interval == 5.0); /* documented default */
    CU_ASSERT_EQUAL(job->master_computes, 1); /* documented default */
    CU_ASSERT_EQUAL(job->grid.axis_count, 0);
    CU_ASSERT_EQUAL(job->grid.point_count, 1);
    CU_ASSERT_PTR_EQUAL(job->grid.base, job->fixed);
    CU_ASSERT_EQUAL(job->grid.param_count, model->param_count);
    is_job_free(&job);
    CU_ASSERT_PTR_NULL(job);
    is_job_free(&job); /* freeing twice through the cleared pointer is harmless */
}

/* The [sweep] keys other than model and output reach their fields. */
static void test_good_sweep_keys(void)
{
    is_job *job = PARSE_OK("[sweep]\n"
                           "model = chatter\n"
                           "unit_size = 64\n"
                           "progress_interval = 2.5\n"
                           "master_computes = false\n"
                           "[model]\n"
                           "rho = 1.5\n"
                           "gamma = 0.5\n");
    CU_ASSERT_PTR_NOT_NULL_FATAL(job);
    CU_ASSERT_EQUAL(job->unit_size, 64);
    CU_ASSERT(job->progress_interval == 2.5);
    CU_ASSERT_EQUAL(job->master_computes, 0);
    is_job_free(&job);
    job = PARSE_OK("[sweep]\nmodel = chatter\nunit_size = auto\nmaster_computes = yes\n"
                   "[model]\nrho = 1.5\ngamma = 0.5\n");
    CU_ASSERT_PTR_NOT_NULL_FATAL(job);
    CU_ASSERT_EQUAL(job->unit_size, 0);
    CU_ASSERT_EQUAL(job->master_computes, 1);
    is_job_free(&job);
}

/* What [sweep]'s and an axis's keys set, to compare a job with and without a key. */
typedef struct job_settings {
    uint64_t unit_size;
    double unit_seconds, progress_interval, point_timeout, verify_fraction, verify_tolerance;
    double refine_margin, axis_from, axis_to;
    int master_computes, containment, scale;
    unsigned refine_levels, refine_axes;
    size_t refine_output_count, axis_count;
} job_settings;

/* A refined job on a 17 x 17 grid with `key = value` in `section` (none for key NULL);
 * 1 when it parses, with what it sets in *out. */
static int documented_job(const char *section, const char *key, const char *value,
                          job_settings *out)
{
    char line[256] = "", text[768];
    if (key)
        snprintf(line, sizeof line, "%s = %s", key, value);
    int axis = strcmp(section, "sweep") != 0;
    snprintf(text, sizeof text,
             "[sweep]\nmodel = chatter\nrefine = regime\n%s\n[axis.rho]\nfrom = 0.1\nto = 1\n"
             "count = 17\n%s\n[axis.gamma]\nfrom = 0.1\nto = 0.9\ncount = 17\n",
             axis ? "" : line, axis ? line : "");
    is_job *job = NULL;
    is_error err = {0};
    if (is_job_parse("t.ini", text, NULL, 0, is_test_models(), &job, &err) != IS_OK)
        return 0;
    memset(out, 0, sizeof *out); /* the padding too: compared with memcmp */
    out->unit_size = job->unit_size;
    out->unit_seconds = job->unit_seconds;
    out->progress_interval = job->progress_interval;
    out->point_timeout = job->point_timeout;
    out->verify_fraction = job->verify_fraction;
    out->verify_tolerance = job->verify_tolerance;
    out->refine_margin = job->refine_margin;
    out->axis_from = job->grid.axes[0].from;
    out->axis_to = job->grid.axes[0].to;
    out->master_computes = job->master_computes;
    out->containment = job->containment;
    out->scale = (int)job->grid.axes[0].scale;
    out->refine_levels = job->refine_levels;
    out->refine_axes = job->refine_axes;
    out->refine_output_count = job->refine_output_count;
    out->axis_count = job->grid.axes[0].count;
    is_job_free(&job);
    return 1;
}

/* The defaults the reference and impactsweep-job(5) state (the key tables' `fallback`)
 * are the parser's: a job that gives a key its documented default is the job that does
 * not give it. A default that is no value ("required", "none (every point)": blanks, or
 * a word the key does not take) is not compared; a number always is. */
static void test_documented_defaults(void)
{
    static const char *const sections[] = {"sweep", "axis.rho"};
    size_t compared = 0;
    for (int s = 0; s < 2; s++) {
        job_settings plain, with;
        CU_ASSERT_FATAL(documented_job(sections[s], NULL, NULL, &plain));
        is_job_key_doc key;
        for (size_t i = 0; is_job_key_doc_at(sections[s], i, &key); i++) {
            CHECK(key.values && *key.values && key.fallback && *key.fallback && key.help &&
                      *key.help,
                  "[%s] %s: a text of its table is empty", sections[s], key.name);
            char *end;
            strtod(key.fallback, &end);
            int number = end != key.fallback && *end == '\0';
            if (strchr(key.fallback, ' ') || strcmp(key.fallback, "required") == 0)
                continue;
            if (!documented_job(sections[s], key.name, key.fallback, &with)) {
                CHECK(!number, "[%s] %s = %s, its documented default, is refused", sections[s],
                      key.name, key.fallback);
                continue;
            }
            CHECK(memcmp(&plain, &with, sizeof plain) == 0,
                  "[%s] %s = %s (documented as the default) makes another job than none",
                  sections[s], key.name, key.fallback);
            compared++;
        }
    }
    CHECK(compared >= 9, "only %zu documented defaults compared", compared);
}

/* The ranges the reference states (the key tables' `values`: "from A to B", "above A",
 * "at most B", "an integer") are the parser's: both ends taken when stated as taken, a
 * value just beyond either end and a fraction of an integer key refused. */
static int documented_value_taken(const char *key, double v)
{
    char text[768];
    snprintf(text, sizeof text,
             "[sweep]\nmodel = chatter\nrefine = regime\n%s = %.17g\n[axis.rho]\nfrom = 0.1\n"
             "to = 1\ncount = 17\n[axis.gamma]\nfrom = 0.1\nto = 0.9\ncount = 17\n",
             key, v);
    is_job *job = NULL;
    is_error err = {0};
    if (is_job_parse("t.ini", text, NULL, 0, is_test_models(), &job, &err) == IS_OK) {
        is_job_free(&job);
        return 1;
    }
    /* refused for what the value is, not for what it asks of this small grid */
    return strstr(err.message, "expected") == NULL;
}

static void test_documented_ranges(void)
{
    size_t ranges = 0;
    is_job_key_doc key;
    for (size_t i = 0; is_job_key_doc_at("sweep", i, &key); i++) {
        double lo = NAN, hi = NAN;
        const char *from = strstr(key.values, "from "), *above = strstr(key.values, "above ");
        const char *most = strstr(key.values, "at most ");
        int lo_open = above != NULL, integer = strstr(key.values, "an integer") != NULL;
        if (from && sscanf(from, "from %lf to %lf", &lo, &hi) != 2)
            lo = hi = NAN;
        if (above)
            sscanf(above, "above %lf", &lo);
        if (most)
            sscanf(most, "at most %lf", &hi);
        if (isnan(lo) || isnan(hi))
            continue;
        ranges++;
        double below = lo - (lo == 0 ? 1e-9 : fabs(lo) * 1e-9), beyond = hi * (1 + 1e-9);
        CHECK(documented_value_taken(key.name, lo) == !lo_open, "[sweep] %s = %g (%s)",
              key.name, lo, key.values);
        CHECK(documented_value_taken(key.name, hi), "[sweep] %s = %g refused (%s)", key.name,
              hi, key.values);
        CHECK(!documented_value_taken(key.name, below), "[sweep] %s = %.17g taken (%s)",
              key.name, below, key.values);
        CHECK(!documented_value_taken(key.name, beyond), "[sweep] %s = %.17g taken (%s)",
              key.name, beyond, key.values);
        if (integer)
            CHECK(!documented_value_taken(key.name, lo + 0.5), "[sweep] %s = %g taken (%s)",
                  key.name, lo + 0.5, key.values);
    }
    CHECK(ranges >= 8, "only %zu documented ranges compared", ranges);
}

/* Axes keep the file's order (it is the C order of the result arrays), whatever the
 * parameters' order in the model; linear, log and explicit values; a swept
 * parameter's fixed value is its first axis value. */
static void test_good_axes_in_file_order(void)
{
    is_job *job = PARSE_OK("[sweep]\n"
                           "model = chatter\n"
                           "[axis.gamma]\n"
                           "from = 0.2\n"
                           "to = 0.8\n"
                           "count = 4\n"
                           "scale = linear\n"
                           "[axis.rho]\n"
                           "from = 0.1\n"
                           "to = 10\n"
                           "count = 3\n"
                           "scale = log\n"
                           "[axis.n]\n"
                           "values = 3, 5 7\n");
    CU_ASSERT_PTR_NOT_NULL_FATAL(job);
    int gamma = param_index("gamma"), rho = param_index("rho"), n = param_index("n");
    CU_ASSERT_EQUAL_FATAL(job->grid.axis_count, 3);
    const is_axis *a = job->grid.axes;
    CU_ASSERT_EQUAL(a[0].param, gamma);
    CU_ASSERT_EQUAL(a[1].param, rho);
    CU_ASSERT_EQUAL(a[2].param, n);
    CU_ASSERT_EQUAL(a[0].scale, IS_SCALE_LINEAR);
    CU_ASSERT_EQUAL(a[1].scale, IS_SCALE_LOG);
    CU_ASSERT_EQUAL(a[2].scale, IS_SCALE_VALUES);
    CU_ASSERT_EQUAL_FATAL(a[0].count, 4);
    CU_ASSERT_EQUAL_FATAL(a[1].count, 3);
    CU_ASSERT_EQUAL_FATAL(a[2].count, 3);
    CU_ASSERT(a[0].values[0] == 0.2 && a[0].values[3] == 0.8);
    CU_ASSERT_DOUBLE_EQUAL(a[0].values[1], 0.4, 1e-15);
    CU_ASSERT_DOUBLE_EQUAL(a[0].values[2], 0.6, 1e-15);
    CU_ASSERT(a[1].values[0] == 0.1 && a[1].values[2] == 10.0);
    CU_ASSERT_DOUBLE_EQUAL(a[1].values[1], 1.0, 1e-14); /* geometric, not arithmetic, middle */
    CU_ASSERT(a[2].values[0] == 3.0 && a[2].values[1] == 5.0 && a[2].values[2] == 7.0);
    CU_ASSERT(job->fixed[gamma] == 0.2);
    CU_ASSERT(job->fixed[rho] == 0.1);
    CU_ASSERT(job->fixed[n] == 3.0);
    CU_ASSERT_EQUAL(job->grid.point_count, 36);
    /* The last point is the last value of every axis. */
    double *point = malloc(job->model->param_count * sizeof *point);
    CU_ASSERT_PTR_NOT_NULL_FATAL(point);
    is_grid_point(&job->grid, job->grid.point_count - 1, point);
    CU_ASSERT(point[gamma] == 0.8 && point[rho] == 10.0 && point[n] == 7.0);
    free(point);
    is_job_free(&job);
}

/* An axis with count = 1 needs no 'to'. */
static void test_good_single_value_axis(void)
{
    is_job *job = PARSE_OK("[sweep]\nmodel = chatter\n[model]\nrho = 1.5\n"
                           "[axis.gamma]\nfrom = 0.3\ncount = 1\n");
    CU_ASSERT_PTR_NOT_NULL_FATAL(job);
    CU_ASSERT_EQUAL_FATAL(job->grid.axis_count, 1);
    CU_ASSERT_EQUAL_FATAL(job->grid.axes[0].count, 1);
    CU_ASSERT(job->grid.axes[0].values[0] == 0.3);
    CU_ASSERT_EQUAL(job->grid.point_count, 1);
    is_job_free(&job);
}

/* A long `values` list may go on over indented lines (inih's multi-line values); every
 * item on every line counts, and the next section starts cleanly afterwards. */
static void test_good_values_continuation(void)
{
    is_job *job = PARSE_OK("[sweep]\n"
                           "model = chatter\n"
                           "[axis.gamma]\n"
                           "values = 0.1, 0.2,\n"
                           "    0.3, 0.4\n"
                           "\t0.5\n"
                           "[model]\n"
                           "rho = 2\n");
    CU_ASSERT_PTR_NOT_NULL_FATAL(job);
    CU_ASSERT_EQUAL_FATAL(job->grid.axis_count, 1);
    const is_axis *axis = &job->grid.axes[0];
    static const double expected[] = {0.1, 0.2, 0.3, 0.4, 0.5};
    CU_ASSERT_EQUAL_FATAL(axis->count, 5);
    for (size_t i = 0; i < 5; i++)
        CHECK(axis->values[i] == expected[i], "value %zu is %.17g, expected %.17g", i,
              axis->values[i], expected[i]);
    CU_ASSERT(job->fixed[param_index("rho")] == 2.0);
    is_job_free(&job);
}

/* --set overrides replace keys of the file (also inside an axis) and add new keys,
 * sections and axes; the canonical text shows the values actually used. */
static void test_good_overrides(void)
{
    static const char text[] = "[sweep]\n"
                               "model = chatter\n"
                               "[model]\n"
                               "gamma = 0.5\n"
                               "[axis.rho]\n"
                               "from = 1\n"
                               "to = 2\n"
                               "count = 3\n";
    const char *const overrides[] = {"model.gamma=0.3", "axis.rho.count=5", "sweep.output=x.h5",
                                     " model.samples = 50 ", "axis.n.values=2, 3"};
    is_job *job = PARSE_OK_WITH(text, overrides);
    CU_ASSERT_PTR_NOT_NULL_FATAL(job);
    CU_ASSERT(job->fixed[param_index("gamma")] == 0.3);
    CU_ASSERT(job->fixed[param_index("samples")] == 50.0);
    CU_ASSERT_PTR_NOT_NULL_FATAL(job->output);
    CU_ASSERT_STRING_EQUAL(job->output, "x.h5");
    CU_ASSERT_EQUAL_FATAL(job->grid.axis_count, 2);
    const is_axis *rho = &job->grid.axes[0];
    CU_ASSERT_EQUAL(rho->param, param_index("rho"));
    CU_ASSERT_EQUAL_FATAL(rho->count, 5);
    CU_ASSERT(rho->values[0] == 1.0 && rho->values[4] == 2.0);
    CU_ASSERT_EQUAL(job->grid.axes[1].param, param_index("n"));
    CU_ASSERT_EQUAL(job->grid.axes[1].count, 2);
    CU_ASSERT_EQUAL(job->grid.point_count, 10);
    CU_ASSERT_PTR_NOT_NULL_FATAL(job->text);
    CHECK(strstr(job->text, "gamma = 0.3") != NULL, "canonical text lacks gamma = 0.3:\n%s",
          job->text);
    CHECK(strstr(job->text, "gamma = 0.5") == NULL, "canonical text keeps gamma = 0.5:\n%s",
          job->text);
    CHECK(strstr(job->text, "count = 5") && !strstr(job->text, "count = 3"),
          "canonical text has the wrong rho count:\n%s", job->text);
    CHECK(strstr(job->text, "output = x.h5") != NULL, "canonical text lacks the output:\n%s",
          job->text);
    CHECK(strstr(job->text, "samples = 50") != NULL, "canonical text lacks samples:\n%s",
          job->text);
    CHECK(strstr(job->text, "[axis.n]") != NULL, "canonical text lacks [axis.n]:\n%s", job->text);
    is_job_free(&job);

    /* Of two overrides of one key the later wins; an override replaces a file's output. */
    static const char with_output[] = "[sweep]\nmodel = chatter\noutput = file.h5\n"
                                      "[model]\nrho = 1.5\ngamma = 0.5\n";
    const char *const twice[] = {"model.gamma=0.3", "model.gamma=0.4", "sweep.output=y.h5"};
    job = PARSE_OK_WITH(with_output, twice);
    CU_ASSERT_PTR_NOT_NULL_FATAL(job);
    CU_ASSERT(job->fixed[param_index("gamma")] == 0.4);
    CU_ASSERT_STRING_EQUAL(job->output, "y.h5");
    is_job_free(&job);
}

/* Without an output key the result file is the job file's base name with .h5, in the
 * current directory (not next to the job file). */
static void test_default_output_name(void)
{
    static const char text[] = "[sweep]\nmodel = chatter\n[model]\nrho = 1.5\ngamma = 0.5\n";
    static const struct {
        const char *source, *output;
    } cases[] = {
        {"dir/myjob.ini", "myjob.h5"},
        {"myjob.ini", "myjob.h5"},
        {"myjob", "myjob.h5"},
        {"/abs/path.d/run.2.ini", "run.2.h5"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        is_job *job = parse_ok_at(__LINE__, cases[i].source, text, NULL, 0);
        CU_ASSERT_PTR_NOT_NULL_FATAL(job);
        CHECK(job->output && strcmp(job->output, cases[i].output) == 0,
              "source %s: output '%s', expected '%s'", cases[i].source,
              job->output ? job->output : "(null)", cases[i].output);
        CU_ASSERT_STRING_EQUAL(job->source, cases[i].source);
        is_job_free(&job);
    }
}

/* The canonical text (stored in the result file) is itself a job that parses to the
 * same results: same fingerprint, same values, no trace of the comments. */
static void test_canonical_text_reparses(void)
{
    static const char text[] = "; a comment\n"
                               "[sweep]\n"
                               "model = chatter   ; inline comment\n"
                               "title = canonical\n"
                               "\n"
                               "[axis.gamma]\n"
                               "values = 0.2, 0.4\n"
                               "   0.6\n"
                               "[model]\n"
                               "# another comment\n"
                               "rho = 1.5\n";
    const char *const overrides[] = {"model.samples=7"};
    is_job *job = PARSE_OK_WITH(text, overrides);
    CU_ASSERT_PTR_NOT_NULL_FATAL(job);
    CU_ASSERT_PTR_NOT_NULL_FATAL(job->text);
    CHECK(strstr(job->text, "comment") == NULL, "comments in the canonical text:\n%s", job->text);
    CHECK(strstr(job->text, "samples = 7") != NULL, "override missing:\n%s", job->text);
    is_job *again = parse_ok_at(__LINE__, "canonical.ini", job->text, NULL, 0);
    CU_ASSERT_PTR_NOT_NULL_FATAL(again);
    CU_ASSERT_EQUAL(again->fingerprint, job->fingerprint);
    CU_ASSERT(memcmp(again->fixed, job->fixed, job->model->param_count * sizeof *job->fixed) == 0);
    CU_ASSERT_EQUAL(again->grid.point_count, job->grid.point_count);
    CU_ASSERT_STRING_EQUAL(again->title, "canonical");
    is_job_free(&again);
    is_job_free(&job);
}

/* The fingerprint guards --resume: it must ignore what does not change results
 * (layout, comments, spelling of numbers, output, title, unit_size, progress and
 * scheduling settings, a default written out) and catch whatever does. */
static void test_fingerprint(void)
{
    static const char reference[] = "[sweep]\n"
                                    "model = chatter\n"
                                    "[model]\n"
                                    "rho = 1.5\n"
                                    "[axis.gamma]\n"
                                    "from = 0.2\n"
                                    "to = 0.6\n"
                                    "count = 5\n";
    uint64_t f = fingerprint_of(__LINE__, reference);

    static const char *const same[] = {
        /* comments, blank lines, blanks around '=' and at line ends */
        "; sweep over gamma\n"
        "[sweep]\n"
        "model=chatter\n"
        "\n"
        "# fixed parameters\n"
        "[model]\n"
        "rho   =   1.5   ; why 1.5\n"
        "\n"
        "[axis.gamma]\n"
        "from = 0.2\n"
        "to = 0.6 \n"
        "count = 5\n",
        /* presentation and scheduling keys */
        "[sweep]\nmodel = chatter\noutput = other.h5\ntitle = a different title\n"
        "unit_size = 7\nprogress_interval = 1\nmaster_computes = no\n"
        "[model]\nrho = 1.5\n[axis.gamma]\nfrom = 0.2\nto = 0.6\ncount = 5\n",
        /* the same numbers spelt differently, and a default given explicitly */
        "[sweep]\nmodel = chatter\n[model]\nrho = 15e-1\nsamples = 100\n"
        "[axis.gamma]\nfrom = 0.20\nto = .6\ncount = 5.0\n",
        /* the sections in another order (the axes' order unchanged) */
        "[axis.gamma]\nfrom = 0.2\nto = 0.6\ncount = 5\n[model]\nrho = 1.5\n"
        "[sweep]\nmodel = chatter\n",
    };
    for (size_t i = 0; i < sizeof same / sizeof *same; i++)
        CHECK(fingerprint_of(__LINE__, same[i]) == f, "variant %zu changed the fingerprint", i);

    static const char *const different[] = {
        /* a fixed parameter */
        "[sweep]\nmodel = chatter\n[model]\nrho = 1.6\n"
        "[axis.gamma]\nfrom = 0.2\nto = 0.6\ncount = 5\n",
        /* a parameter left at its default before */
        "[sweep]\nmodel = chatter\n[model]\nrho = 1.5\nsamples = 101\n"
        "[axis.gamma]\nfrom = 0.2\nto = 0.6\ncount = 5\n",
        /* an axis end */
        "[sweep]\nmodel = chatter\n[model]\nrho = 1.5\n"
        "[axis.gamma]\nfrom = 0.2\nto = 0.61\ncount = 5\n",
        /* an axis start (this also changes gamma's fixed value) */
        "[sweep]\nmodel = chatter\n[model]\nrho = 1.5\n"
        "[axis.gamma]\nfrom = 0.1\nto = 0.6\ncount = 5\n",
        /* an axis count */
        "[sweep]\nmodel = chatter\n[model]\nrho = 1.5\n"
        "[axis.gamma]\nfrom = 0.2\nto = 0.6\ncount = 6\n",
        /* an axis scale */
        "[sweep]\nmodel = chatter\n[model]\nrho = 1.5\n"
        "[axis.gamma]\nfrom = 0.2\nto = 0.6\ncount = 5\nscale = log\n",
        /* one more axis */
        "[sweep]\nmodel = chatter\n[model]\nrho = 1.5\n"
        "[axis.gamma]\nfrom = 0.2\nto = 0.6\ncount = 5\n[axis.n]\nvalues = 4\n",
    };
    for (size_t i = 0; i < sizeof different / sizeof *different; i++)
        CHECK(fingerprint_of(__LINE__, different[i]) != f,
              "variant %zu did not change the fingerprint", i);

    /* Swapping two axes reorders every point in the result file. */
    uint64_t gamma_n = fingerprint_of(__LINE__, "[sweep]\nmodel = chatter\n[model]\nrho = 1.5\n"
                                                "[axis.gamma]\nvalues = 0.2, 0.4\n"
                                                "[axis.n]\nvalues = 3, 4\n");
    uint64_t n_gamma = fingerprint_of(__LINE__, "[sweep]\nmodel = chatter\n[model]\nrho = 1.5\n"
                                                "[axis.n]\nvalues = 3, 4\n"
                                                "[axis.gamma]\nvalues = 0.2, 0.4\n");
    CU_ASSERT_NOT_EQUAL(gamma_n, n_gamma);

    /* An override counts like the same change in the file. */
    const char *const rho_override[] = {"model.rho=1.6"};
    is_job *job = PARSE_OK_WITH(reference, rho_override);
    CU_ASSERT_PTR_NOT_NULL_FATAL(job);
    CU_ASSERT_NOT_EQUAL(job->fingerprint, f);
    CU_ASSERT_EQUAL(job->fingerprint, fingerprint_of(__LINE__, different[0]));
    is_job_free(&job);
}

/* Integer parameters swept over integer steps: 10, 20, ..., 100 are all integers, so
 * the job must be accepted with exactly those values (the axis values must not come out
 * as 39.999999999999993 and then be rejected as non-integers). */
static void test_integer_linear_axis(void)
{
    is_job *job = PARSE_OK("[sweep]\nmodel = chatter\n[model]\nrho = 1.5\ngamma = 0.5\n"
                           "[axis.samples]\nfrom = 10\nto = 100\ncount = 10\n");
    CU_ASSERT_PTR_NOT_NULL_FATAL(job);
    CU_ASSERT_EQUAL_FATAL(job->grid.axes[0].count, 10);
    for (size_t i = 0; i < 10; i++)
        CHECK(job->grid.axes[0].values[i] == 10.0 * (double)(i + 1), "value %zu is %.17g", i,
              job->grid.axes[0].values[i]);
    is_job_free(&job);
}

/* The same on a log scale: n = 2, 4, 8, 16, 32, 64 is the natural polygon sweep. */
static void test_integer_log_axis(void)
{
    is_job *job = PARSE_OK("[sweep]\nmodel = chatter\n[model]\nrho = 1.5\ngamma = 0.5\n"
                           "[axis.n]\nfrom = 2\nto = 64\ncount = 6\nscale = log\n");
    CU_ASSERT_PTR_NOT_NULL_FATAL(job);
    CU_ASSERT_EQUAL_FATAL(job->grid.axes[0].count, 6);
    for (size_t i = 0; i < 6; i++)
        CHECK(job->grid.axes[0].values[i] == ldexp(2.0, (int)i), "value %zu is %.17g", i,
              job->grid.axes[0].values[i]);
    is_job_free(&job);
}

/* Blanks inside the brackets of a header: inih would take "[ model ]" as a section named
 * " model ", so the keys would vanish into an unknown section; they are refused at their
 * line instead. */
static void test_section_header_with_blanks(void)
{
    is_job *job = NULL;
    is_error err = {0};
    is_code rc = is_job_parse("t.ini", "[sweep]\nmodel = chatter\n[ model ]\nrho = 1.5\n", NULL, 0,
                              is_test_models(), &job, &err);
    CU_ASSERT_EQUAL(rc, IS_JOB);
    CU_ASSERT_PTR_NULL(job);
    CHECK(contains_word(err.message, "t.ini:3"), "blank header reported as: %s", err.message);
}

/* A line longer than inih's line buffer (200 bytes) must be read whole, or else be
 * rejected at its own line: never split into two lines with every later line number
 * off by one. */
static void test_long_lines(void)
{
    char values[1024] = "";
    size_t used = 0;
    for (int i = 1; i < 60; i++)
        used +=
            (size_t)snprintf(values + used, sizeof values - used, "%s0.%02d", i > 1 ? ", " : "", i);
    CU_ASSERT_FATAL(used > 250);
    char text[2048];
    snprintf(text, sizeof text,
             "[sweep]\n"         /* 1 */
             "model = chatter\n" /* 2 */
             "[model]\n"         /* 3 */
             "rho = 1.5\n"       /* 4 */
             "[axis.gamma]\n"    /* 5 */
             "values = %s\n",    /* 6: about 350 characters */
             values);
    is_job *job = PARSE_OK(text);
    if (job) {
        CU_ASSERT_EQUAL(job->grid.axes[0].count, 59);
        CU_ASSERT(job->grid.axes[0].values[58] == 0.59);
        is_job_free(&job);
    }
}


/* --- values of any length, read back as the same job ------------------------------ */

/* A line of any length reads whole, pieces joined without blanks; the lines after it keep
 * their numbers; a long comment line is a comment. */
static void test_any_line_length(void)
{
    size_t n = 20000;
    char *title = malloc(n + 1), *text = malloc(2 * n + 512);
    CU_ASSERT_PTR_NOT_NULL_FATAL(title);
    CU_ASSERT_PTR_NOT_NULL_FATAL(text);
    for (size_t i = 0; i < n; i++) /* blanks one apart and runs of letters */
        title[i] = i % 7 == 3 ? ' ' : (char)('a' + i % 26);
    title[0] = 'T';
    title[n - 1] = 'Z';
    title[n] = '\0';
    snprintf(text, 2 * n + 512,
             "[sweep]\nmodel = chatter\ntitle = %s\n; %s\n[model]\nrho = 1.5\ngamma = 0.5\n"
             "colour = red\n",
             title, title);
    is_job *job = NULL;
    is_error err = {0};
    is_code rc = is_job_parse("t.ini", text, NULL, 0, is_test_models(), &job, &err);
    /* the unknown key is reported at its own line, 8 */
    CU_ASSERT_EQUAL(rc, IS_JOB);
    CHECK(contains_word(err.message, "t.ini:8"), "unknown key reported as: %s", err.message);
    *strstr(text, "colour") = '\0';
    job = PARSE_OK(text);
    if (job) {
        CHECK(strcmp(job->title, title) == 0, "title of %zu characters read as %zu", n,
              strlen(job->title));
        is_job_free(&job);
    }
    free(title);
    free(text);
}

/* The stored job text re-reads as the same job, also where --set gave long values, and a
 * --set whose value would not read back is refused (exit status 2), never stored. */
static void test_job_text_reads_back(void)
{
    char values[30000] = "", title[3000] = "";
    size_t used = 0;
    for (int i = 1; i <= 2000; i++)
        used += (size_t)snprintf(values + used, sizeof values - used, "%s0.%04d",
                                 i > 1 ? ", " : "", i);
    for (size_t i = 0; i + 1 < sizeof title; i++)
        title[i] = i % 10 == 9 ? ' ' : 'x';
    char set_values[30100], set_title[3100];
    snprintf(set_values, sizeof set_values, "axis.gamma.values=%s", values);
    snprintf(set_title, sizeof set_title, "sweep.title= %s ", title);
    const char *overrides[] = {set_values, set_title, "model.rho=0.3"};
    is_job *job = PARSE_OK_WITH("[sweep]\nmodel = chatter\n[axis.gamma]\nvalues = 0.5\n",
                                overrides);
    if (!job)
        return;
    CU_ASSERT_EQUAL(job->grid.point_count, 2000);
    is_job *again = PARSE_OK(job->text);
    if (again) {
        CU_ASSERT_EQUAL(again->fingerprint, job->fingerprint);
        CU_ASSERT_EQUAL(again->grid.point_count, 2000);
        CHECK(strcmp(again->title, job->title) == 0, "the title did not read back%s", "");
        CHECK(strcmp(again->text, job->text) == 0, "the job text is not a fixed point%s", "");
        is_job_free(&again);
    }
    is_job_free(&job);
    static const char *const unstorable[] = {"sweep.title=a\nb",
                                             "sweep.title=;x", "sweep.title=a ; b",
                                             "sweep.title=a\t;b", "swe]ep.title=x",
                                             "model.rh;o=0.3"};
    for (size_t i = 0; i < sizeof unstorable / sizeof *unstorable; i++) {
        is_job *bad = NULL;
        is_error err = {0};
        is_code rc =
            is_job_parse("t.ini", GOOD_HEAD, &unstorable[i], 1, is_test_models(), &bad, &err);
        CHECK(rc == IS_USAGE || rc == IS_JOB, "--set '%s' was accepted (%s)", unstorable[i],
              is_code_name(rc));
        CHECK(bad == NULL, "--set '%s' left a job", unstorable[i]);
        is_job_free(&bad);
    }
    /* an inline comment on a continuation line is a comment, as on the key's own line */
    is_job *commented = PARSE_OK("[sweep]\nmodel = chatter\ntitle = a\n  b ;c\n[model]\nrho = 0.3\n"
                                 "[axis.gamma]\nvalues = 0.1,\n  0.2 ; 0.3\n");
    if (commented) {
        CU_ASSERT_EQUAL(commented->grid.point_count, 2);
        CHECK(strcmp(commented->title, "a b") == 0, "title '%s', expected 'a b'",
              commented->title);
        is_job *back = PARSE_OK(commented->text);
        if (back) {
            CHECK(strcmp(back->title, commented->title) == 0, "title '%s' read back as '%s'",
                  commented->title, back->title);
            CU_ASSERT_EQUAL(back->fingerprint, commented->fingerprint);
            is_job_free(&back);
        }
        is_job_free(&commented);
    }
    /* a ';' after any white space ('\r' included, as inih's isspace) starts a comment */
    is_job *cr = PARSE_OK("[sweep]\nmodel = chatter\ntitle = a\n  b\r;c\n[model]\nrho = 0.3\n"
                          "[axis.gamma]\nvalues = 0.1\n");
    if (cr) {
        CHECK(strcmp(cr->title, "a b") == 0, "title '%s', expected 'a b'", cr->title);
        is_job_free(&cr);
    }
    /* an empty value continued on the next line is that line, not a blank and that line */
    is_job *late = PARSE_OK("[sweep]\nmodel = chatter\ntitle =\n  x\n[model]\nrho = 0.3\n"
                            "[axis.gamma]\nvalues = 0.1\n");
    if (late) {
        CHECK(strcmp(late->title, "x") == 0, "title '%s', expected 'x'", late->title);
        is_job_free(&late);
    }
    /* the same value from a file (`key =;x`, no blank before the ';') would be stored as
     * `key = ;x`, which reads back as an empty value: refused where it is written */
    EXPECT_FAILURE("[sweep]\nmodel = chatter\ntitle =;x\n[axis.gamma]\nvalues = 0.5\n", IS_JOB,
                   "t.ini:3", "title", "';'");
}

/* Many continuation lines make one value (read in linear time: nothing here is timed,
 * but 200,000 lines would not finish if it were quadratic). */
static void test_many_continuation_lines(void)
{
    size_t lines = 200000, size = lines * 20 + 256, used = 0;
    char *text = malloc(size);
    CU_ASSERT_PTR_NOT_NULL_FATAL(text);
    used += (size_t)snprintf(text, size,
                             "[sweep]\nmodel = chatter\n[model]\nrho = 0.3\n[axis.gamma]\n"
                             "values = 0.000001");
    for (size_t i = 2; i <= lines; i++)
        used += (size_t)snprintf(text + used, size - used, "\n    %.9f", (double)i * 1e-6 * 0.99);
    is_job *job = PARSE_OK(text);
    if (job) {
        CU_ASSERT_EQUAL(job->grid.axes[0].count, lines);
        CU_ASSERT(job->grid.axes[0].values[lines - 1] == 0.198);
        is_job_free(&job);
    }
    free(text);
}

/* Axes are coordinates: strictly increasing or decreasing, no repeated value; the
 * message names the file, line and key. */
static void test_bad_axes_not_monotonic(void)
{
    EXPECT_FAILURE("[sweep]\nmodel = chatter\n[model]\nrho = 0.3\n[axis.gamma]\n"
                   "values = 0.3, 0.1, 0.2\n",
                   IS_JOB, "t.ini:6", "values", "gamma");
    EXPECT_FAILURE("[sweep]\nmodel = chatter\n[model]\nrho = 0.3\n[axis.gamma]\n"
                   "values = 0.1, 0.2, 0.2\n",
                   IS_JOB, "t.ini:6", "repeats");
    EXPECT_FAILURE("[sweep]\nmodel = chatter\n[model]\nrho = 0.3\n[axis.gamma]\nfrom = 0.2\n"
                   "to = 0.2\ncount = 3\n",
                   IS_JOB, "t.ini:7", "to");
    /* an integer axis whose rounding repeats a value */
    EXPECT_FAILURE("[sweep]\nmodel = chatter\n[model]\nrho = 0.3\ngamma = 0.1\n[axis.n]\n"
                   "from = 2\nto = 4\ncount = 7\nscale = log\n",
                   IS_JOB, "t.ini:9", "count");
    /* decreasing is fine */
    is_job *job = PARSE_OK("[sweep]\nmodel = chatter\n[model]\nrho = 0.3\n[axis.gamma]\n"
                           "from = 0.9\nto = 0.1\ncount = 9\n");
    is_job_free(&job);
    job = PARSE_OK("[sweep]\nmodel = chatter\n[model]\nrho = 0.3\n[axis.gamma]\n"
                   "values = 0.9, 0.5, 0.1\n");
    is_job_free(&job);
}


/* A value given for a parameter that the choices leave unused is refused, naming where
 * it was given and the choices that use it (the synthetic model's `scale` applies only
 * with shape = scaled). */
static void test_bad_parameter_that_does_not_apply(void)
{
    EXPECT_FAILURE("[sweep]\nmodel = synthetic\n[model]\nscale = 2\n", IS_PARAM, "t.ini:4",
                   "scale", "shape", "scaled");
    EXPECT_FAILURE("[sweep]\nmodel = synthetic\n[axis.scale]\nvalues = 1, 2\n", IS_PARAM,
                   "t.ini:3", "scale", "shape");
    EXPECT_OVERRIDE_FAILURE("[sweep]\nmodel = synthetic\n", "model.scale=3", IS_PARAM, "--set",
                            "scale");
    is_job *job = PARSE_OK("[sweep]\nmodel = synthetic\n[model]\nshape = scaled\nscale = 2\n");
    is_job_free(&job);
    job = PARSE_OK("[sweep]\nmodel = synthetic\n"); /* the default is not "given" */
    is_job_free(&job);
}


/* Messages that used to name no line: a missing model, a parameter without a default, a
 * grid that is too large, and a combination of values the model refuses (checked by
 * is_validate_grid, here in one process) all say where. */
static void test_messages_say_where(void)
{
    EXPECT_FAILURE("[model]\nrho = 0.3\n\n[sweep]\ntitle = x\n", IS_JOB, "t.ini:4", "model",
                   "missing");
    EXPECT_FAILURE("[sweep]\nmodel = chatter\n\n[model]\ngamma = 0.3\n", IS_JOB, "t.ini:4",
                   "rho", "missing");
    EXPECT_FAILURE("[sweep]\nmodel = chatter\n[model]\ngamma = 0.3\n[axis.rho]\nfrom = 0.1\n"
                   "to = 1\ncount = 1000000000\n[axis.seed]\nfrom = 0\nto = 99999\n"
                   "count = 100000\n",
                   IS_JOB, "t.ini:5", "2^40");
    is_job *job = PARSE_OK("[sweep]\nmodel = collision\n[model]\npi2 = 0.4\n[axis.pi3]\n"
                           "from = 0.1\nto = 0.9\ncount = 5\n");
    if (!job)
        return;
    is_error err = {0};
    is_code rc = is_validate_grid(job, MPI_COMM_NULL, &err);
    CU_ASSERT_EQUAL(rc, IS_PARAM);
    CHECK(contains_word(err.message, "t.ini:4") && contains_word(err.message, "t.ini:5") &&
              contains_word(err.message, "grid point 2"),
          "cross-parameter refusal reported as: %s", err.message);
    is_job_free(&job);
}

/* --- bad jobs: one test per kind of mistake ---------------------------------------- */

static void test_bad_unknown_section(void)
{
    EXPECT_FAILURE(GOOD_HEAD "[output]\n" /* 6 */ "file = x.h5\n", IS_JOB, "t.ini:6", "output");
}

static void test_bad_unknown_sweep_key(void)
{
    EXPECT_FAILURE("[sweep]\nmodel = chatter\ncolour = red\n" /* 3 */
                   "[model]\nrho = 1.5\ngamma = 0.5\n",
                   IS_JOB, "t.ini:3", "colour");
}

static void test_bad_unknown_model_parameter(void)
{
    EXPECT_FAILURE(GOOD_HEAD "beta = 2\n", IS_JOB, "t.ini:6", "beta");
}

static void test_bad_unknown_axis_key(void)
{
    EXPECT_FAILURE(GOOD_HEAD "[axis.n]\nfrom = 2\nto = 4\ncount = 3\nstep = 1\n" /* 10 */, IS_JOB,
                   "t.ini:10", "step");
}

static void test_bad_axis_of_non_parameter(void)
{
    EXPECT_FAILURE(GOOD_HEAD "[axis.beta]\n" /* 6 */ "values = 1, 2\n", IS_JOB, "t.ini:6", "beta");
}

/* The second occurrence is the mistake; the message points at both. */
static void test_bad_duplicate_key(void)
{
    EXPECT_FAILURE(GOOD_HEAD "rho = 2\n" /* 6 */, IS_JOB, "t.ini:6", "t.ini:4", "rho");
    EXPECT_FAILURE("[sweep]\nmodel = chatter\n[model]\nrho = 1.5\ngamma = 0.5\n"
                   "[axis.n]\nvalues = 2, 3\n; a comment between\nvalues = 4\n" /* 9 */,
                   IS_JOB, "t.ini:9", "values");
}

/* A repeated key on the very next line is a duplicate too, not a continuation: only an
 * indented line continues a value. Merging would turn "values = 2, 3" + "values = 4"
 * silently into three values. */
static void test_bad_duplicate_key_on_next_line(void)
{
    EXPECT_FAILURE("[sweep]\nmodel = chatter\n[model]\nrho = 1.5\nrho = 2\n" /* 5 */
                   "gamma = 0.5\n",
                   IS_JOB, "t.ini:5", "rho");
    EXPECT_FAILURE(GOOD_HEAD "[axis.n]\nvalues = 2, 3\nvalues = 4\n" /* 8 */, IS_JOB, "t.ini:8",
                   "values");
}

static void test_bad_duplicate_section(void)
{
    EXPECT_FAILURE(GOOD_HEAD "[model]\n" /* 6 */ "n = 3\n", IS_JOB, "t.ini:6", "t.ini:3", "model");
}

static void test_bad_key_before_section(void)
{
    EXPECT_FAILURE("model = chatter\n" /* 1 */ "[sweep]\n[model]\nrho = 1.5\ngamma = 0.5\n", IS_JOB,
                   "t.ini:1", "model");
}

static void test_bad_malformed_line(void)
{
    EXPECT_FAILURE(GOOD_HEAD "this line is nonsense\n" /* 6 */, IS_JOB, "t.ini:6");
    EXPECT_FAILURE(GOOD_HEAD "[axis.n\n" /* 6 */ "values = 2\n", IS_JOB, "t.ini:6");
}

static void test_bad_not_a_number(void)
{
    static const char *const texts[] = {
        "[sweep]\nmodel = chatter\n[model]\nrho = abc\ngamma = 0.5\n",
        "[sweep]\nmodel = chatter\n[model]\nrho = 1.5x\ngamma = 0.5\n",
        "[sweep]\nmodel = chatter\n[model]\nrho = nan\ngamma = 0.5\n",
        "[sweep]\nmodel = chatter\n[model]\nrho =\ngamma = 0.5\n",
    };
    for (size_t i = 0; i < sizeof texts / sizeof *texts; i++)
        EXPECT_FAILURE(texts[i], IS_JOB, "t.ini:4", "rho");
}

/* A number beyond a double's range is refused, saying so; a subnormal one is a number
 * (issue 22: 5e-324 was "not a number"), kept as strtod rounds it, as eval keeps it. */
static void test_number_range(void)
{
    EXPECT_FAILURE("[sweep]\nmodel = synthetic\n[model]\nx = 1e400\n", IS_JOB, "t.ini:4", "x",
                   "finite");
    EXPECT_FAILURE("[sweep]\nmodel = synthetic\n[model]\nx = -1e-400\n", IS_JOB, "t.ini:4",
                   "x", "smallest");
    is_job *job = PARSE_OK("[sweep]\nmodel = synthetic\n[model]\nx = 5e-324\n"
                           "[axis.y]\nvalues = -4.9e-324, 0, 2.2250738585072009e-308\n");
    if (!job)
        return;
    int x = is_model_param_index(job->model, "x");
    CHECK(x >= 0 && job->fixed[x] == 4.9406564584124654e-324, "x = %.17g, not the smallest "
          "subnormal", x >= 0 ? job->fixed[x] : NAN);
    CHECK(job->grid.axes[0].count == 3 && is_axis_value(&job->grid.axes[0], 0) < 0 &&
              is_axis_value(&job->grid.axes[0], 2) == 2.2250738585072009e-308,
          "the subnormal axis was read as %zu values", job->grid.axes[0].count);
    is_job_free(&job);
}

/* An integer parameter beyond 2^53 is refused where a double would store another integer
 * (2^53 + 1 was stored as 2^53), in [model], in an axis and beyond 2^53 at all; 2^53 itself
 * is exact and kept. count = 1 with a 'to' other than 'from' is refused: 'to' would be
 * dropped (it ran rho = 0.1 alone for from 0.1, to 0.5). */
static void test_inputs_not_silently_changed(void)
{
    EXPECT_FAILURE("[sweep]\nmodel = chatter\n[model]\nseed = 9007199254740993\n", IS_PARAM,
                   "t.ini:4", "seed", "2^53", "9007199254740992");
    EXPECT_FAILURE("[sweep]\nmodel = chatter\n[axis.seed]\nvalues = 1, 9007199254740993\n",
                   IS_PARAM, "seed", "2^53");
    EXPECT_FAILURE("[sweep]\nmodel = chatter\n[model]\nseed = 9.007199254740993e15\n",
                   IS_PARAM, "t.ini:4", "seed", "2^53");
    is_job *job = PARSE_OK("[sweep]\nmodel = chatter\n[model]\nseed = 9007199254740992\n"
                           "gamma = 0.1\n[axis.rho]\nvalues = 0.3\n");
    if (job) {
        int seed = is_model_param_index(job->model, "seed");
        CHECK(seed >= 0 && job->fixed[seed] == 0x1p53, "seed = 2^53 read as %.17g",
              seed >= 0 ? job->fixed[seed] : NAN);
        is_job_free(&job);
    }
    const is_param wide = {.name = "k", .type = IS_PARAM_INT, .min = -INFINITY, .max = INFINITY};
    is_error err;
    CHECK(is_param_check(&wide, 0x1p53, &err) == IS_OK, "2^53 refused: %s", err.message);
    CHECK(is_param_check(&wide, 0x1p54, &err) == IS_PARAM && strstr(err.message, "2^53"),
          "2^54 accepted for an integer parameter");
    EXPECT_FAILURE("[sweep]\nmodel = chatter\n[axis.rho]\nfrom = 0.1\nto = 0.5\ncount = 1\n",
                   IS_JOB, "t.ini:6", "count = 1", "0.5", "dropped");
    job = PARSE_OK("[sweep]\nmodel = chatter\n[model]\ngamma = 0.1\n[axis.rho]\nfrom = 0.1\nto = 0.1\ncount = 1\n");
    if (job) {
        CHECK(job->grid.axes[0].count == 1, "from = to with count 1 gave %zu values",
              job->grid.axes[0].count);
        is_job_free(&job);
    }
}

/* Near misses: one edit for short words, two beyond, swaps of neighbours one edit,
 * letters without case; an exact match and a distant word suggest nothing. */
static void test_suggestions(void)
{
    static const char *const words[] = {"run", "eval", "trace", "models", "merge", "gamma",
                                        "output", NULL};
    static const struct {
        const char *word, *want;
    } cases[] = {{"runn", "run"},    {"rn", "run"},         {"evla", "eval"},
                 {"EVAL2", "eval"},  {"modles", "models"},  {"gama", "gamma"},
                 {"ouptut", "output"}, {"trace", NULL},     {"xyz", NULL},
                 {"mrg", NULL},      {"", NULL},            {"outputs_all", NULL}};
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        const char *got = is_suggest_among(cases[i].word, words);
        CHECK((got == NULL) == (cases[i].want == NULL) &&
                  (!got || strcmp(got, cases[i].want) == 0),
              "'%s' suggested %s, not %s", cases[i].word, got ? got : "nothing",
              cases[i].want ? cases[i].want : "nothing");
    }
}

/* An empty item of a values list is refused, naming it (issue 22: "1,,2" was [1, 2]). */
static void test_bad_empty_list_item(void)
{
    static const char *const lists[][2] = {
        {"1,,2", "2"}, {"1, 2,", "3"}, {", 1, 2", "1"}, {"1,\n  ,2", "2"}, {"1, \t ,2", "2"}};
    for (size_t i = 0; i < sizeof lists / sizeof *lists; i++) {
        char text[256];
        snprintf(text, sizeof text, "[sweep]\nmodel = synthetic\n[axis.x]\nvalues = %s\n",
                 lists[i][0]);
        EXPECT_FAILURE(text, IS_JOB, "t.ini:4", "axis.x", "empty", lists[i][1]);
    }
    EXPECT_OVERRIDE_FAILURE("[sweep]\nmodel = synthetic\n", "axis.x.values=1,,2", IS_JOB,
                            "empty", "2");
    is_job *job = PARSE_OK("[sweep]\nmodel = synthetic\n[axis.x]\nvalues = 1 2, 3,\n  4\n");
    CHECK(job && job->grid.axes[0].count == 4, "blanks and commas: %zu values, not 4",
          job ? job->grid.axes[0].count : 0);
    is_job_free(&job);
}

static void test_bad_integer_parameter_fraction(void)
{
    EXPECT_FAILURE(GOOD_HEAD "n = 2.5\n" /* 6 */, IS_PARAM, "t.ini:6", "n");
}

/* Outside the range, including exactly at an open bound. */
static void test_bad_value_out_of_range(void)
{
    EXPECT_FAILURE("[sweep]\nmodel = chatter\n[model]\nrho = 1.5\ngamma = 1.5\n", IS_PARAM,
                   "t.ini:5", "gamma");
    EXPECT_FAILURE("[sweep]\nmodel = chatter\n[model]\nrho = 1.5\ngamma = 0\n", IS_PARAM, "t.ini:5",
                   "gamma");
    EXPECT_FAILURE("[sweep]\nmodel = chatter\n[model]\nrho = 1.5\ngamma = 1\n", IS_PARAM, "t.ini:5",
                   "gamma");
    EXPECT_FAILURE("[sweep]\nmodel = chatter\n[model]\nrho = -1\ngamma = 0.5\n", IS_PARAM,
                   "t.ini:4", "rho");
    EXPECT_FAILURE(GOOD_HEAD "n = 65\n", IS_PARAM, "t.ini:6", "n");
}

/* Axis values are checked like fixed ones: an end outside the range, and a value made
 * inside the axis that is not admissible (3.5 for the integer n). */
static void test_bad_value_out_of_range_in_axis(void)
{
    EXPECT_FAILURE("[sweep]\nmodel = chatter\n[model]\nrho = 1.5\n"
                   "[axis.gamma]\nfrom = 0.5\nto = 1.0\n" /* 7 */ "count = 3\n",
                   IS_PARAM, "t.ini:7", "gamma");
    EXPECT_FAILURE(GOOD_HEAD "[axis.n]\n" /* 6 */ "from = 2\nto = 5\ncount = 3\n", IS_PARAM,
                   "t.ini:6|t.ini:7|t.ini:8|t.ini:9", "n");
    EXPECT_FAILURE(GOOD_HEAD "[axis.samples]\nvalues = 10, 0, 30\n" /* 7 */, IS_PARAM, "t.ini:7",
                   "samples");
}

/* No line to point at: the file and the parameter. */
static void test_bad_missing_required_parameter(void)
{
    EXPECT_FAILURE("[sweep]\nmodel = chatter\n[model]\ngamma = 0.5\n", IS_JOB, "t.ini", "rho");
}

static void test_bad_fixed_and_swept(void)
{
    EXPECT_FAILURE(GOOD_HEAD "[axis.rho]\n" /* 6 */ "values = 1, 2\n", IS_JOB, "t.ini:6", "t.ini:4",
                   "rho");
}

static void test_bad_axis_without_count_or_to(void)
{
    EXPECT_FAILURE("[sweep]\nmodel = chatter\n[model]\nrho = 1.5\n"
                   "[axis.gamma]\n" /* 5 */ "from = 0.2\nto = 0.4\n",
                   IS_JOB, "t.ini:5", "count");
    EXPECT_FAILURE("[sweep]\nmodel = chatter\n[model]\nrho = 1.5\n"
                   "[axis.gamma]\n" /* 5 */ "from = 0.2\ncount = 3\n",
                   IS_JOB, "t.ini:5", "to");
    EXPECT_FAILURE("[sweep]\nmodel = chatter\n[model]\nrho = 1.5\n"
                   "[axis.gamma]\n" /* 5 */ "to = 0.4\ncount = 3\n",
                   IS_JOB, "t.ini:5", "from");
    EXPECT_FAILURE("[sweep]\nmodel = chatter\n[model]\nrho = 1.5\n"
                   "[axis.gamma]\nfrom = 0.2\nto = 0.4\ncount = 2.5\n" /* 8 */,
                   IS_JOB, "t.ini:8", "count");
    EXPECT_FAILURE("[sweep]\nmodel = chatter\n[model]\nrho = 1.5\n"
                   "[axis.gamma]\nfrom = 0.2\nto = 0.4\ncount = 0\n" /* 8 */,
                   IS_JOB, "t.ini:8", "count");
    /* an axis of over 1e9 values is refused before anything is allocated, with its limit */
    EXPECT_FAILURE("[sweep]\nmodel = chatter\n[model]\nrho = 1.5\n"
                   "[axis.gamma]\nfrom = 0.2\nto = 0.4\ncount = 1000000001\n" /* 8 */,
                   IS_JOB, "t.ini:8", "count", "1e9");
}

static void test_bad_axis_values_and_from(void)
{
    EXPECT_FAILURE("[sweep]\nmodel = chatter\n[model]\nrho = 1.5\n"
                   "[axis.gamma]\nvalues = 0.2, 0.3\nfrom = 0.2\n" /* 7 */,
                   IS_JOB, "t.ini:7", "from", "values");
}

static void test_bad_scale_name(void)
{
    EXPECT_FAILURE("[sweep]\nmodel = chatter\n[model]\ngamma = 0.5\n"
                   "[axis.rho]\nfrom = 1\nto = 10\ncount = 3\nscale = logarithmic\n" /* 9 */,
                   IS_JOB, "t.ini:9", "scale");
}

/* seed admits 0, so only the log scale can object; rho does not admit 0 at all. */
static void test_bad_log_axis_from_zero(void)
{
    EXPECT_FAILURE(GOOD_HEAD "[axis.seed]\nfrom = 0\n" /* 7 */ "to = 8\ncount = 4\n"
                             "scale = log\n" /* 10 */,
                   IS_JOB, "t.ini:7|t.ini:10", "seed");
    EXPECT_FAILURE("[sweep]\nmodel = chatter\n[model]\ngamma = 0.5\n"
                   "[axis.rho]\nfrom = 0\n" /* 6 */ "to = 10\ncount = 3\nscale = log\n",
                   IS_PARAM, "t.ini:6|t.ini:9", "rho");
}

static void test_bad_empty_axis(void)
{
    EXPECT_FAILURE(GOOD_HEAD "[axis.n]\n" /* 6 */, IS_JOB, "t.ini:6", "n");
    EXPECT_FAILURE(GOOD_HEAD "[axis.n]\n" /* 6 */ "\n[axis.samples]\nvalues = 10\n", IS_JOB,
                   "t.ini:6", "n");
    EXPECT_FAILURE(GOOD_HEAD "[axis.n]\nvalues = ,\n" /* 7 */, IS_JOB, "t.ini:7", "n");
}

static void test_bad_missing_model(void)
{
    EXPECT_FAILURE("[sweep]\ntitle = no model\n[model]\nrho = 1.5\ngamma = 0.5\n", IS_JOB, "t.ini",
                   "model");
    EXPECT_FAILURE("[model]\nrho = 1.5\ngamma = 0.5\n", IS_JOB, "t.ini", "model");
    EXPECT_FAILURE("", IS_JOB, "t.ini", "model");
}

static void test_bad_unknown_model(void)
{
    EXPECT_FAILURE("[sweep]\nmodel = pendulum\n" /* 2 */ "[model]\nrho = 1.5\n", IS_JOB, "t.ini:2",
                   "pendulum");
}

static void test_bad_sweep_values(void)
{
    static const char *const unit_sizes[] = {"0", "2.5", "many", "-3"};
    for (size_t i = 0; i < sizeof unit_sizes / sizeof *unit_sizes; i++) {
        char text[256];
        snprintf(text, sizeof text,
                 "[sweep]\nmodel = chatter\nunit_size = %s\n" /* 3 */
                 "[model]\nrho = 1.5\ngamma = 0.5\n",
                 unit_sizes[i]);
        EXPECT_FAILURE(text, IS_JOB, "t.ini:3", "unit_size");
    }
    EXPECT_FAILURE("[sweep]\nmodel = chatter\nprogress_interval = 0\n" /* 3 */
                   "[model]\nrho = 1.5\ngamma = 0.5\n",
                   IS_JOB, "t.ini:3", "progress_interval");
    EXPECT_FAILURE("[sweep]\nmodel = chatter\nmaster_computes = maybe\n" /* 3 */
                   "[model]\nrho = 1.5\ngamma = 0.5\n",
                   IS_JOB, "t.ini:3", "master_computes");
}

/* A refined chatter job on a 17 x 17 grid with `refine` and `extra` at lines 3 and 4. */
static void refine_job(char *text, size_t size, const char *refine, const char *extra)
{
    snprintf(text, size,
             "[sweep]\nmodel = chatter\nrefine = %s\n%s\n" /* 3, 4 */
             "[axis.rho]\nfrom = 0.1\nto = 1\ncount = 17\n"
             "[axis.gamma]\nfrom = 0.1\nto = 0.9\ncount = 17\n",
             refine, extra);
}

/* [sweep] refine names outputs, categorical or with a threshold, in order; refine_threshold
 * is the threshold of a single one; refine_margin defaults to 2 and enters the
 * fingerprint only where a threshold makes it count. */
static void test_refine_outputs(void)
{
    char text[512];
    const is_model *m = chatter();
    refine_job(text, sizeof text, "regime, impacts_mean >= 50, impacts_max>=1e2", "");
    is_job *job = PARSE_OK(text);
    CU_ASSERT_PTR_NOT_NULL_FATAL(job);
    CU_ASSERT_EQUAL(job->refine_output_count, 3);
    CU_ASSERT_EQUAL(job->refine_outputs[0].output, is_model_output_index(m, "regime"));
    CU_ASSERT(isnan(job->refine_outputs[0].threshold));
    CU_ASSERT_EQUAL(job->refine_outputs[1].output, is_model_output_index(m, "impacts_mean"));
    CU_ASSERT_EQUAL(job->refine_outputs[1].threshold, 50);
    CU_ASSERT_EQUAL(job->refine_outputs[2].threshold, 100);
    CU_ASSERT_EQUAL(job->refine_margin, IS_REFINE_DEFAULT_MARGIN);
    CU_ASSERT_EQUAL(job->refine_levels, IS_REFINE_DEFAULT_LEVELS);
    is_job_free(&job);
    /* the old form and the new one are one job */
    refine_job(text, sizeof text, "impacts_mean", "refine_threshold = 50");
    uint64_t old_form = fingerprint_of(__LINE__, text);
    refine_job(text, sizeof text, "impacts_mean >= 50", "");
    CU_ASSERT_EQUAL(fingerprint_of(__LINE__, text), old_form);
    refine_job(text, sizeof text, "impacts_mean >= 50", "refine_margin = 3");
    CU_ASSERT_NOT_EQUAL(fingerprint_of(__LINE__, text), old_form);
    refine_job(text, sizeof text, "impacts_mean >= 50, regime", "");
    CU_ASSERT_NOT_EQUAL(fingerprint_of(__LINE__, text), old_form);
    /* a categorical output alone: the margin changes nothing, nor the fingerprint */
    refine_job(text, sizeof text, "regime", "");
    uint64_t categorical = fingerprint_of(__LINE__, text);
    refine_job(text, sizeof text, "regime", "refine_margin = 0");
    CU_ASSERT_EQUAL(fingerprint_of(__LINE__, text), categorical);
}

/* Every bad refine value: exit status 2 (IS_JOB), naming the file, the line and the key. */
static void test_bad_refine_outputs(void)
{
    static const struct {
        const char *refine, *extra, *line, *key, *word;
    } bad[] = {
        {"regime, nothing >= 1", "", "t.ini:3", "refine", "nothing"},
        {"regime, energy", "", "t.ini:3", "refine", "regime"},
        {"regime >= 1", "", "t.ini:3", "refine", "categorical"},
        {"regime, impacts_mean", "", "t.ini:3", "refine", "threshold"},
        {"regime, impacts_mean >= abc", "", "t.ini:3", "refine", "abc"},
        {"regime, impacts_mean > 50", "", "t.ini:3", "refine", "impacts_mean"},
        {"regime, impacts_mean <= 50", "", "t.ini:3", "refine", "impacts_mean"},
        {"regime,, impacts_mean >= 50", "", "t.ini:3", "refine", "empty"},
        {"regime, ", "", "t.ini:3", "refine", "empty"},
        {"regime, regime", "", "t.ini:3", "refine", "twice"},
        {"regime, impacts_mean >= 50", "refine_threshold = 50", "t.ini:4", "refine_threshold",
         "outputs"},
        {"impacts_mean >= 50", "refine_threshold = 50", "t.ini:4", "refine_threshold",
         "already"},
        {"impacts_mean", "refine_margin = -1", "t.ini:4", "refine_margin", "number"},
        {"impacts_mean >= 50", "refine_margin = lots", "t.ini:4", "refine_margin", "number"},
        {"p_icc >= 0.5, p_cc >= 0.5, p_pcc >= 0.5, p_icc_lo >= 0.5, p_icc_hi >= 0.5, "
         "p_cc_lo >= 0.5, p_cc_hi >= 0.5",
         "", "t.ini:3", "refine", "most"},
    };
    char text[512];
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        refine_job(text, sizeof text, bad[i].refine, bad[i].extra);
        EXPECT_FAILURE(text, IS_JOB, bad[i].line, bad[i].key, bad[i].word);
    }
    /* refine_margin without refine */
    EXPECT_FAILURE("[sweep]\nmodel = chatter\nrefine_margin = 1\n" /* 3 */
                   "[model]\nrho = 1.5\ngamma = 0.5\n",
                   IS_JOB, "t.ini:3", "refine_margin");
}

/* A --set that is not section.key=value is a command-line mistake (IS_USAGE). */
static void test_bad_override_syntax(void)
{
    EXPECT_OVERRIDE_FAILURE(GOOD_HEAD, "model.gamma", IS_USAGE, "--set", "model.gamma");
    EXPECT_OVERRIDE_FAILURE(GOOD_HEAD, "gamma=0.3", IS_USAGE, "--set", "gamma");
    EXPECT_OVERRIDE_FAILURE(GOOD_HEAD, ".gamma=0.3", IS_USAGE, "--set", "gamma");
    EXPECT_OVERRIDE_FAILURE(GOOD_HEAD, "model.=0.3", IS_USAGE, "--set", "model");
}

/* A well-formed --set with a bad key or value fails like the file would, but the
 * message names the --set instead of a file line. */
static void test_bad_override_value(void)
{
    EXPECT_OVERRIDE_FAILURE(GOOD_HEAD, "model.gamma=1.5", IS_PARAM, "--set", "gamma");
    EXPECT_OVERRIDE_FAILURE(GOOD_HEAD, "model.rho=abc", IS_JOB, "--set", "rho");
    EXPECT_OVERRIDE_FAILURE(GOOD_HEAD, "model.beta=1", IS_JOB, "--set", "beta");
    EXPECT_OVERRIDE_FAILURE(GOOD_HEAD, "sweep.colour=red", IS_JOB, "--set", "colour");
    EXPECT_OVERRIDE_FAILURE(GOOD_HEAD, "axis.n.count=3", IS_JOB, "--set", "n");
}

/* --- the other entry points -------------------------------------------------------- */

/* `impactsweep eval n=3 gamma=0.2`: each pair is checked like a [model] key. */
static void test_parse_param_value(void)
{
    const is_model *model = chatter();
    is_error err = {0};
    double v = -1.0;
    CU_ASSERT_EQUAL(is_job_parse_param_value(model, "argument 1", "gamma", "0.25", &v, &err),
                    IS_OK);
    CU_ASSERT(v == 0.25);
    CU_ASSERT_EQUAL(is_job_parse_param_value(model, "argument 1", "n", "6", &v, &err), IS_OK);
    CU_ASSERT(v == 6.0);

    static const struct {
        const char *name, *value;
        is_code code;
    } bad[] = {
        {"n", "2.5", IS_PARAM},  {"gamma", "1", IS_PARAM}, {"rho", "0", IS_PARAM},
        {"rho", "x", IS_JOB},    {"beta", "1", IS_JOB},    {"perturbation", "0.6", IS_PARAM},
        {"samples", "", IS_JOB},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        is_error_clear(&err);
        v = 42.0;
        is_code rc =
            is_job_parse_param_value(model, "argument 3", bad[i].name, bad[i].value, &v, &err);
        CHECK(rc == bad[i].code, "%s=%s: got %s, expected %s", bad[i].name, bad[i].value,
              is_code_name(rc), is_code_name(bad[i].code));
        CHECK(strstr(err.message, "argument 3") && contains_word(err.message, bad[i].name),
              "%s=%s: message '%s' lacks the origin or the name", bad[i].name, bad[i].value,
              err.message);
    }
}

/* Writes `size` bytes to a new temporary file; returns its path in `path`. */
static int write_temp(char *path, size_t path_size, const char *data, size_t size)
{
    snprintf(path, path_size, "/tmp/impactsweep_test_job_XXXXXX");
    int fd = mkstemp(path);
    if (fd < 0)
        return 0;
    size_t done = 0;
    while (done < size) {
        ssize_t w = write(fd, data + done, size - done);
        if (w <= 0) {
            close(fd);
            unlink(path);
            return 0;
        }
        done += (size_t)w;
    }
    close(fd);
    return 1;
}

/* Reads back exactly what was written, for sizes around the reader's first buffer
 * (4096 bytes) and well beyond it. */
static void test_read_file(void)
{
    static const size_t sizes[] = {0, 1, 4095, 4096, 4097, 10000, 100003};
    char *data = malloc(100003);
    CU_ASSERT_PTR_NOT_NULL_FATAL(data);
    for (size_t i = 0; i < 100003; i++)
        data[i] = i % 61 == 60 ? '\n' : (char)('a' + (char)(i % 26));
    for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++) {
        char path[64];
        CU_ASSERT_FATAL(write_temp(path, sizeof path, data, sizes[s]));
        char *text = NULL;
        is_error err = {0};
        is_code rc = is_job_read_file(path, &text, &err);
        CHECK(rc == IS_OK, "size %zu: %s", sizes[s], err.message);
        if (rc == IS_OK) {
            CHECK(text && strlen(text) == sizes[s] && memcmp(text, data, sizes[s]) == 0,
                  "size %zu: read back %zu different bytes", sizes[s], text ? strlen(text) : 0);
            free(text);
        }
        unlink(path);
    }
    free(data);

    /* A read job file parses like the text it contains. */
    static const char job_text[] = GOOD_HEAD;
    char path[64];
    CU_ASSERT_FATAL(write_temp(path, sizeof path, job_text, strlen(job_text)));
    char *text = NULL;
    is_error err = {0};
    CU_ASSERT_EQUAL_FATAL(is_job_read_file(path, &text, &err), IS_OK);
    is_job *job = parse_ok_at(__LINE__, path, text, NULL, 0);
    CU_ASSERT_PTR_NOT_NULL(job);
    is_job_free(&job);
    free(text);
    unlink(path);
}

static void test_read_file_errors(void)
{
    static char marker[] = "not reset"; /* proves that *text is reset */
    char *text = marker;
    is_error err = {0};
    const char *missing = "/tmp/impactsweep_test_job_no_such_dir/missing.ini";
    CU_ASSERT_EQUAL(is_job_read_file(missing, &text, &err), IS_JOB);
    CU_ASSERT_PTR_NULL(text);
    CHECK(strstr(err.message, missing) != NULL, "message '%s' lacks the path", err.message);

    /* A NUL byte means this is not a text file (and would cut the job short). */
    static const char binary[] = "[sweep]\nmodel = chatter\0garbage\n";
    char path[64];
    CU_ASSERT_FATAL(write_temp(path, sizeof path, binary, sizeof binary - 1));
    text = marker;
    is_error_clear(&err);
    CU_ASSERT_EQUAL(is_job_read_file(path, &text, &err), IS_JOB);
    CU_ASSERT_PTR_NULL(text);
    CHECK(strstr(err.message, path) != NULL, "message '%s' lacks the path", err.message);
    unlink(path);
}

void suite_job(void)
{
    CU_pSuite suite = CU_add_suite("job", NULL, NULL);
    CU_add_test(suite, "fixed values and defaults", test_good_fixed_values_and_defaults);
    CU_add_test(suite, "sweep keys", test_good_sweep_keys);
    CU_add_test(suite, "documented defaults are the parser's", test_documented_defaults);
    CU_add_test(suite, "documented ranges are the parser's", test_documented_ranges);
    CU_add_test(suite, "axes in file order", test_good_axes_in_file_order);
    CU_add_test(suite, "single-value axis", test_good_single_value_axis);
    CU_add_test(suite, "values continued over lines", test_good_values_continuation);
    CU_add_test(suite, "overrides", test_good_overrides);
    CU_add_test(suite, "default output name", test_default_output_name);
    CU_add_test(suite, "canonical text reparses", test_canonical_text_reparses);
    CU_add_test(suite, "fingerprint", test_fingerprint);
    CU_add_test(suite, "integer parameter on a linear axis", test_integer_linear_axis);
    CU_add_test(suite, "integer parameter on a log axis", test_integer_log_axis);
    CU_add_test(suite, "section header with blanks", test_section_header_with_blanks);
    CU_add_test(suite, "lines longer than 200 characters", test_long_lines);
    CU_add_test(suite, "lines of any length", test_any_line_length);
    CU_add_test(suite, "the job text reads back as the same job", test_job_text_reads_back);
    CU_add_test(suite, "many continuation lines", test_many_continuation_lines);
    CU_add_test(suite, "bad: axes that are not monotonic", test_bad_axes_not_monotonic);
    CU_add_test(suite, "bad: a parameter that does not apply",
                test_bad_parameter_that_does_not_apply);
    CU_add_test(suite, "messages say where", test_messages_say_where);
    CU_add_test(suite, "bad: unknown section", test_bad_unknown_section);
    CU_add_test(suite, "bad: unknown [sweep] key", test_bad_unknown_sweep_key);
    CU_add_test(suite, "bad: unknown [model] parameter", test_bad_unknown_model_parameter);
    CU_add_test(suite, "bad: unknown axis key", test_bad_unknown_axis_key);
    CU_add_test(suite, "bad: axis of a non-parameter", test_bad_axis_of_non_parameter);
    CU_add_test(suite, "bad: duplicate key", test_bad_duplicate_key);
    CU_add_test(suite, "bad: duplicate key on the next line", test_bad_duplicate_key_on_next_line);
    CU_add_test(suite, "bad: duplicate section", test_bad_duplicate_section);
    CU_add_test(suite, "bad: key before any section", test_bad_key_before_section);
    CU_add_test(suite, "bad: malformed line", test_bad_malformed_line);
    CU_add_test(suite, "bad: not a number", test_bad_not_a_number);
    CU_add_test(suite, "numbers beyond range, subnormal numbers", test_number_range);
    CU_add_test(suite, "bad: an empty item of a values list", test_bad_empty_list_item);
    CU_add_test(suite, "bad: integers beyond 2^53, count = 1 dropping to", test_inputs_not_silently_changed);
    CU_add_test(suite, "near misses suggested", test_suggestions);
    CU_add_test(suite, "bad: integer parameter 2.5", test_bad_integer_parameter_fraction);
    CU_add_test(suite, "bad: value out of range", test_bad_value_out_of_range);
    CU_add_test(suite, "bad: out of range in an axis", test_bad_value_out_of_range_in_axis);
    CU_add_test(suite, "bad: missing required parameter", test_bad_missing_required_parameter);
    CU_add_test(suite, "bad: fixed and swept", test_bad_fixed_and_swept);
    CU_add_test(suite, "bad: axis without count, to or from", test_bad_axis_without_count_or_to);
    CU_add_test(suite, "bad: axis with values and from", test_bad_axis_values_and_from);
    CU_add_test(suite, "bad: scale name", test_bad_scale_name);
    CU_add_test(suite, "bad: log axis from 0", test_bad_log_axis_from_zero);
    CU_add_test(suite, "bad: empty axis", test_bad_empty_axis);
    CU_add_test(suite, "bad: missing model", test_bad_missing_model);
    CU_add_test(suite, "bad: unknown model", test_bad_unknown_model);
    CU_add_test(suite, "bad: [sweep] values", test_bad_sweep_values);
    CU_add_test(suite, "refine: several outputs", test_refine_outputs);
    CU_add_test(suite, "bad: refine outputs", test_bad_refine_outputs);
    CU_add_test(suite, "bad: override syntax", test_bad_override_syntax);
    CU_add_test(suite, "bad: override value", test_bad_override_value);
    CU_add_test(suite, "parameter value from the command line", test_parse_param_value);
    CU_add_test(suite, "read a job file", test_read_file);
    CU_add_test(suite, "read a job file: errors", test_read_file_errors);
}
