/* check.h: an assertion for the unit tests whose failure message is formatted with the
 * values involved (CUnit's own macros can only show the expression). */
#ifndef IMPACTSWEEP_TEST_CHECK_H
#define IMPACTSWEEP_TEST_CHECK_H

void is_test_check_at(int ok, const char *file, unsigned line, const char *function,
                      const char *fmt, ...) __attribute__((format(printf, 5, 6)));

/* The models of the test build (built-in and synthetic), for is_job_parse; no plug-ins. */
struct is_models;
struct is_models *is_test_models(void);

#define CHECK(cond, ...) is_test_check_at((cond), __FILE__, __LINE__, __func__, __VA_ARGS__)

#endif
