/* fuzz_job.c: libFuzzer target for the job parser (is_job_parse, src/core/job/job.c).
 *
 * The input is split at NUL bytes: the bytes up to the first NUL are the job file's
 * text, every further NUL-separated piece is one --set override ("section.key=value").
 * An input without a NUL is a job file alone. Inputs over 64 KiB are skipped.
 *
 * For every input it checks what must hold whatever the bytes are, and abort()s (so
 * libFuzzer keeps the input as a crash) with a line saying which property failed:
 *  - the parse returns IS_OK, or an error whose code is IS_JOB, IS_PARAM, IS_USAGE or
 *    IS_NOMEM (or IS_PLUGIN for a model given as a path: no plug-in is loaded here), with
 *    that code in err and a non-empty message, and no job;
 *  - on IS_OK the job is consistent: a model, a non-empty output, point_count the
 *    product of the axis counts (at most 2^40, at most IS_GRID_MAX_AXES axes), the
 *    piece 0 <= index < count <= point_count and piece_first < piece_last <=
 *    point_count, every fixed value and every value of a short axis admissible for its
 *    parameter, and the canonical text job->text present;
 *  - round trip: job->text re-parses (same source, no overrides) to IS_OK with the same
 *    fingerprint, point count, piece, output and title, and its own canonical text is
 *    job->text again (the canonical form is a fixpoint). The result file stores job->text
 *    and `merge` re-parses it, so a job whose text does not reproduce it is a bug.
 * Everything is freed: the fuzzer runs under ASan/LSan and UBSan.
 *
 * Build and run: tests/fuzz/run_fuzz.sh (see tests/fuzz/README). */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/error.h"
#include "core/job/grid.h"
#include "core/job/job.h"
#include "core/contract/model.h"
#include "core/contract/plugin.h"
#include "models/registry.h"

#define FUZZ_MAX_INPUT (64u << 10)
#define FUZZ_MAX_OVERRIDES 64
#define FUZZ_SOURCE "fuzz.ini"

static void fail(const char *property, const char *detail)
{
    fprintf(stderr, "\nfuzz_job: property violated: %s\n", property);
    if (detail)
        fprintf(stderr, "%s\n", detail);
    abort();
}

static void check_error(is_code rc, const is_job *job, const is_error *err, const char *what)
{
    char detail[IS_ERROR_MESSAGE_MAX + 128];
    snprintf(detail, sizeof detail, "%s: code %s (%d), err.code %d, message '%s'", what,
             is_code_name(rc), (int)rc, (int)err->code, err->message);
    if (rc != IS_JOB && rc != IS_PARAM && rc != IS_USAGE && rc != IS_NOMEM && rc != IS_PLUGIN)
        fail("error code is one of IS_JOB, IS_PARAM, IS_USAGE, IS_NOMEM, IS_PLUGIN", detail);
    if (err->code != rc)
        fail("err.code equals the returned code", detail);
    if (memchr(err->message, '\0', sizeof err->message) == NULL)
        fail("error message is NUL-terminated", NULL);
    if (err->message[0] == '\0')
        fail("error message is not empty", detail);
    if (job != NULL)
        fail("no job is returned with an error", detail);
}

static void check_job(const is_job *job)
{
    char detail[512];
    if (!job)
        fail("IS_OK returns a job", NULL);
    const is_model *model = job->model;
    if (!model)
        fail("the job has a model", NULL);
    if (!job->source || strcmp(job->source, FUZZ_SOURCE) != 0)
        fail("job->source is the source given", job->source);
    if (!job->output || !job->output[0])
        fail("the output path is not empty", NULL);
    if (!job->text)
        fail("the canonical text is present", NULL);
    if (!job->fixed || job->grid.base != job->fixed || job->grid.param_count != model->param_count)
        fail("grid.base is the fixed values, param_count the model's", NULL);
    if (job->grid.axis_count > IS_GRID_MAX_AXES)
        fail("at most IS_GRID_MAX_AXES axes", NULL);

    uint64_t product = 1;
    for (size_t k = 0; k < job->grid.axis_count; k++) {
        const is_axis *a = &job->grid.axes[k];
        if (a->param < 0 || (size_t)a->param >= model->param_count)
            fail("an axis names a parameter of the model", NULL);
        for (size_t j = 0; j < k; j++)
            if (job->grid.axes[j].param == a->param)
                fail("no parameter is swept twice", model->params[a->param].name);
        if (a->count == 0)
            fail("every axis has at least one value", model->params[a->param].name);
        if (a->count > IS_GRID_MAX_POINTS / product)
            fail("the grid has at most 2^40 points", NULL);
        product *= a->count;
        if (job->grid.stride[k] == 0)
            fail("strides are positive", NULL);
    }
    if (job->grid.point_count != product) {
        snprintf(detail, sizeof detail, "point_count %llu, product of the axis counts %llu",
                 (unsigned long long)job->grid.point_count, (unsigned long long)product);
        fail("grid point_count == product of the axis counts", detail);
    }
    if (!(job->piece_count >= 1 && job->piece_index < job->piece_count &&
          job->piece_count <= job->grid.point_count)) {
        snprintf(detail, sizeof detail, "piece %llu/%llu of %llu points",
                 (unsigned long long)job->piece_index, (unsigned long long)job->piece_count,
                 (unsigned long long)job->grid.point_count);
        fail("0 <= piece_index < piece_count <= point_count", detail);
    }
    if (!(job->piece_first < job->piece_last && job->piece_last <= job->grid.point_count)) {
        snprintf(detail, sizeof detail, "piece_first %llu, piece_last %llu, point_count %llu",
                 (unsigned long long)job->piece_first, (unsigned long long)job->piece_last,
                 (unsigned long long)job->grid.point_count);
        fail("piece_first < piece_last <= point_count", detail);
    }
    if (!(job->unit_seconds >= 0.01 && job->unit_seconds <= 86400) ||
        !(job->progress_interval > 0))
        fail("unit_seconds and progress_interval in range", NULL);

    is_error perr;
    for (size_t p = 0; p < model->param_count; p++)
        if (is_param_check(&model->params[p], job->fixed[p], &perr) != IS_OK)
            fail("every fixed value is admissible", perr.message);
    /* short axes (explicit values, or linear / log with a table) are checked value by
     * value by the parser; long ones by all ranks together at run time */
    for (size_t k = 0; k < job->grid.axis_count; k++) {
        const is_axis *a = &job->grid.axes[k];
        if (a->scale != IS_SCALE_VALUES && a->count > IS_AXIS_CACHE_MAX)
            continue;
        for (size_t i = 0; i < a->count; i++)
            if (is_param_check(&model->params[a->param], is_axis_value(a, i), &perr) != IS_OK) {
                snprintf(detail, sizeof detail, "axis %s value %zu: %s",
                         model->params[a->param].name, i, perr.message);
                fail("every value of a short axis is admissible", detail);
            }
    }
}

static int same_string(const char *a, const char *b)
{
    return (!a && !b) || (a && b && strcmp(a, b) == 0);
}

/* The built-in models; no plug-in is ever loaded (a path as model is refused). */
static is_models *fuzz_models(void)
{
    static is_models *models;
    is_error err;
    if (!models && is_models_create(&models, is_registry_models(), 0, &err) != IS_OK)
        fail("the model set can be created", err.message);
    return models;
}

static void check_round_trip(const is_job *job)
{
    is_job *again = NULL;
    is_error err;
    memset(&err, 0, sizeof err);
    is_code rc = is_job_parse(FUZZ_SOURCE, job->text, NULL, 0, fuzz_models(), &again, &err);
    if (rc != IS_OK) {
        fprintf(stderr, "canonical text:\n%s\n--- end of canonical text\n", job->text);
        check_error(rc, again, &err, "re-parse of the canonical text");
        fail("the canonical text re-parses to IS_OK", err.message);
    }
    check_job(again);
    const char *property = NULL;
    if (again->fingerprint != job->fingerprint)
        property = "the canonical text re-parses to the same fingerprint";
    else if (again->grid.point_count != job->grid.point_count)
        property = "the canonical text re-parses to the same point count";
    else if (again->piece_index != job->piece_index || again->piece_count != job->piece_count)
        property = "the canonical text re-parses to the same piece";
    else if (!same_string(again->output, job->output))
        property = "the canonical text re-parses to the same output";
    else if (!same_string(again->title, job->title))
        property = "the canonical text re-parses to the same title";
    else if (strcmp(again->text, job->text) != 0)
        property = "the canonical text is a fixpoint (its re-parse has the same text)";
    if (property) {
        fprintf(stderr,
                "canonical text:\n%s\n--- end of canonical text\n"
                "its re-parse's canonical text:\n%s\n--- end\n"
                "fingerprint %016llx vs %016llx, points %llu vs %llu, output '%s' vs '%s'\n",
                job->text, again->text, (unsigned long long)job->fingerprint,
                (unsigned long long)again->fingerprint,
                (unsigned long long)job->grid.point_count,
                (unsigned long long)again->grid.point_count, job->output, again->output);
        is_job_free(&again);
        fail(property, NULL);
    }
    is_job_free(&again);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > FUZZ_MAX_INPUT)
        return -1; /* not added to the corpus */
    char *buf = malloc(size + 1);
    if (!buf)
        return 0;
    memcpy(buf, data, size);
    buf[size] = '\0';

    /* text up to the first NUL; then NUL-separated overrides */
    const char *text = buf;
    const char *overrides[FUZZ_MAX_OVERRIDES];
    size_t override_count = 0;
    size_t at = strlen(buf);
    while (at < size && override_count < FUZZ_MAX_OVERRIDES) {
        const char *o = buf + at + 1;
        overrides[override_count++] = o;
        at += 1 + strlen(o);
    }

    is_job *job = NULL;
    is_error err;
    memset(&err, 0, sizeof err);
    is_code rc =
        is_job_parse(FUZZ_SOURCE, text, overrides, override_count, fuzz_models(), &job, &err);
    static int verbose = -1; /* FUZZ_JOB_VERBOSE=1: print each input's outcome */
    if (verbose < 0)
        verbose = getenv("FUZZ_JOB_VERBOSE") != NULL;
    if (verbose) {
        if (rc == IS_OK)
            fprintf(stderr, "fuzz_job: IS_OK: %s, %llu points, piece %llu/%llu, fingerprint %016llx\n",
                    job->model->name, (unsigned long long)job->grid.point_count,
                    (unsigned long long)job->piece_index, (unsigned long long)job->piece_count,
                    (unsigned long long)job->fingerprint);
        else
            fprintf(stderr, "fuzz_job: %s: %s\n", is_code_name(rc), err.message);
    }
    if (rc != IS_OK) {
        check_error(rc, job, &err, "parse");
    } else {
        check_job(job);
        check_round_trip(job);
        is_job_free(&job);
        if (job)
            fail("is_job_free sets the pointer to NULL", NULL);
    }
    free(buf);
    return 0;
}
