/* runner.c: runs one CUnit suite by name (`unit_tests grid`), or all of them (the exit
 * status is nonzero when any assertion failed), and the shared CHECK of check.h. */
#include <CUnit/Basic.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "core/contract/evaluator.h"
#include "core/contract/plugin.h"
#include "models/registry.h"
#include "suites.h"

static is_models *test_models;

is_models *is_test_models(void)
{
    is_error err;
    if (!test_models && is_models_create(&test_models, is_registry_models(), 0, &err) != IS_OK) {
        fprintf(stderr, "unit_tests: %s\n", err.message);
        exit(2);
    }
    return test_models;
}

static const struct {
    const char *name;
    void (*add)(void);
} suites[] = {
#define IS_TEST_ROW(name) {#name, suite_##name},
    IS_TEST_SUITES(IS_TEST_ROW)
#undef IS_TEST_ROW
};

void is_test_check_at(int ok, const char *file, unsigned line, const char *function,
                      const char *fmt, ...)
{
    char text[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    CU_assertImplementation(ok ? CU_TRUE : CU_FALSE, line, text, file, function, CU_FALSE);
}

int main(int argc, char **argv)
{
    /* a contained model's evaluator process (the boundary suite starts some) */
    if (argc > 1 && strcmp(argv[1], IS_EVALUATOR_COMMAND) == 0)
        return is_evaluator_process_main(argc, argv, is_registry_models());
    if (CU_initialize_registry() != CUE_SUCCESS)
        return 2;
    int added = 0;
    for (size_t i = 0; i < sizeof suites / sizeof *suites; i++)
        if (argc < 2 || strcmp(argv[1], suites[i].name) == 0) {
            suites[i].add();
            added++;
        }
    if (!added) {
        fprintf(stderr, "unit_tests: no suite named '%s'\n", argv[1]);
        CU_cleanup_registry();
        return 2;
    }
    CU_basic_set_mode(CU_BRM_VERBOSE);
    CU_basic_run_tests();
    unsigned failures = CU_get_number_of_failures() + CU_get_number_of_tests_failed();
    unsigned ran = CU_get_number_of_tests_run();
    CU_cleanup_registry();
    is_models_free(&test_models);
    return failures || ran == 0 ? 1 : 0;
}
