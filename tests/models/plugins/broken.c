/* broken.c: plug-ins that the loader must refuse, one per BROKEN_KIND (a compile-time
 * definition; tests/CMakeLists.txt builds one library per kind):
 *   1 built against another contract version      2 no entry point
 *   3 a table that breaks the contract (a parameter listed twice)
 *   4 no contract version (a library that is no impactsweep model)
 *   5 a well-formed table whose eval_batch depends on the batch (`models --check` fails)
 *   6 the name of a built-in model
 * Each, when loaded, appends its kind to the file IMPACTSWEEP_TEST_LOADED names (if set):
 * the tests see which libraries a command opened. */
#include <impactsweep/model.h>
#include <stdio.h>
#include <stdlib.h>

#ifndef BROKEN_KIND
#error "define BROKEN_KIND"
#endif

__attribute__((constructor)) static void loaded(void)
{
    const char *marker = getenv("IMPACTSWEEP_TEST_LOADED");
    FILE *f = marker ? fopen(marker, "a") : NULL;
    if (f) {
        fprintf(f, "broken_%d\n", BROKEN_KIND);
        fclose(f);
    }
}

static const is_param params[] = {
    {"x", "a coordinate", "1", IS_PARAM_REAL, 0, -1, 1, 0, NULL, NULL, NULL},
    {BROKEN_KIND == 3 ? "x" : "y", "another", "1", IS_PARAM_REAL, 0, -1, 1, 0, NULL, NULL, NULL},
};

static const is_output outputs[] = {{"z", "1", "x + y (+ the batch position)", IS_OUTPUT_REAL,
                                     NULL, 0, NULL}};

static is_code eval_batch(void *workspace, const double *points, size_t count, double *out,
                          uint8_t *status, is_error *err)
{
    (void)workspace;
    (void)err;
    for (size_t i = 0; i < count; i++) {
        out[i] = points[2 * i] + points[2 * i + 1] + (BROKEN_KIND == 5 ? (double)i : 0.0);
        status[i] = IS_POINT_DONE;
    }
    return IS_OK;
}

__attribute__((unused)) static const is_model broken = {
    IS_MODEL_HEADER,
    .name = BROKEN_KIND == 6 ? "chatter" : "broken",
    .description = "a plug-in the loader must refuse (tests)",
    .params = params,
    .param_count = 2,
    .outputs = outputs,
    .output_count = 1,
    .eval_batch = eval_batch,
};

#if BROKEN_KIND != 4
__attribute__((visibility("default"))) const int impactsweep_model_abi =
    BROKEN_KIND == 1 ? IS_MODEL_ABI_VERSION + 1 : IS_MODEL_ABI_VERSION;
#endif
#if BROKEN_KIND != 2
__attribute__((visibility("default"))) const is_model *impactsweep_model(void)
{
    return &broken;
}
#endif
