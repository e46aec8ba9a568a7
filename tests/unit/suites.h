/* suites.h: the CUnit suites of the unit-test runner; each test_NAME.c defines
 * `void suite_NAME(void)`, which adds its suite and tests to the CUnit registry. */
#ifndef IMPACTSWEEP_TEST_SUITES_H
#define IMPACTSWEEP_TEST_SUITES_H

#define IS_TEST_SUITES(X)                                                                  \
    X(rng) X(grid) X(job) X(chatter) X(chatter_degenerate) X(collision) X(stop) X(hybrid)     \
        X(sections) X(lanes_math) X(models) X(progress) X(trace) X(memo) X(integrity)       \
            X(boundary) X(verification) X(lyapunov) X(dop853)

#define IS_TEST_DECLARE(name) void suite_##name(void);
IS_TEST_SUITES(IS_TEST_DECLARE)
#undef IS_TEST_DECLARE

#endif
