/* test_verification.c: self-verification's pieces that need no file: the sample (the same
 * points whatever splits the grid: ranks, units, pieces, a resume), the tighter point
 * (tolerance / 100, the other method) and the discrepancy measure. */
#include <CUnit/CUnit.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/contract/tolerance.h"
#include "core/store/verification.h"
#include "models/registry.h"
#include "suites.h"

static void test_stride(void)
{
    CU_ASSERT_EQUAL(is_verification_stride(0), 0);
    CU_ASSERT_EQUAL(is_verification_stride(1), 1);
    CU_ASSERT_EQUAL(is_verification_stride(0.05), 20);
    CU_ASSERT_EQUAL(is_verification_stride(0.01), 100);
    CU_ASSERT_EQUAL(is_verification_stride(0.3), 3);
    CU_ASSERT_EQUAL(is_verification_stride(0.7), 1);
}

/* One sampled point in every stratum of `stride` consecutive indices, found the same by
 * any split of [0, n) into pieces (each piece scanning only its own indices). */
static void check_split(uint64_t n, uint64_t stride, uint64_t seed, unsigned cuts_seed)
{
    uint8_t *whole = calloc(n, 1), *split = calloc(n, 1);
    CU_ASSERT_FATAL(whole && split);
    for (uint64_t g = 0; g < n; g++)
        whole[g] = (uint8_t)is_verification_sampled(stride, seed, g);
    /* pieces of random lengths, scanned backwards, as ranks would in any order */
    srand(cuts_seed);
    for (uint64_t end = n; end > 0;) {
        uint64_t len = 1 + (uint64_t)rand() % (3 * stride + 7), first = end > len ? end - len : 0;
        for (uint64_t g = end; g-- > first;)
            split[g] = (uint8_t)is_verification_sampled(stride, seed, g);
        end = first;
    }
    CU_ASSERT_EQUAL(memcmp(whole, split, n), 0);
    for (uint64_t s = 0; s * stride < n; s++) { /* exactly one a full stratum */
        unsigned count = 0;
        for (uint64_t g = s * stride; g < (s + 1) * stride && g < n; g++)
            count += whole[g];
        if ((s + 1) * stride <= n) {
            CU_ASSERT_EQUAL(count, 1);
        } else {
            CU_ASSERT(count <= 1);
        }
    }
    free(whole);
    free(split);
}

static void test_sample_split_independent(void)
{
    check_split(1000, 20, 0, 1);
    check_split(997, 7, 12345, 2);
    check_split(5000, 100, UINT64_C(9007199254740991), 3);
    check_split(50, 1, 3, 4);
}

/* The place in a stratum spreads over it, and moves with the seed. */
static void test_sample_spread(void)
{
    enum { STRIDE = 10, STRATA = 10000 };
    unsigned where[STRIDE] = {0}, moved = 0;
    for (uint64_t s = 0; s < STRATA; s++)
        for (uint64_t k = 0; k < STRIDE; k++)
            if (is_verification_sampled(STRIDE, 42, s * STRIDE + k)) {
                where[k]++;
                moved += !is_verification_sampled(STRIDE, 43, s * STRIDE + k);
            }
    for (int k = 0; k < STRIDE; k++) /* 1000 expected, sd 30: 5 sd either way */
        CU_ASSERT(where[k] > 850 && where[k] < 1150);
    CU_ASSERT(moved > STRATA * 8 / 10); /* 90 % expected */
}

static void test_discrepancy(void)
{
    is_output real = {"r", "1", "r", IS_OUTPUT_REAL, NULL, 0, NULL};
    is_output count = {"n", "1", "n", IS_OUTPUT_INT, NULL, 0, NULL};
    is_output work = {"w", "1", "w", IS_OUTPUT_INT, NULL, IS_OUTPUT_WORK, NULL};
    static const char *const names[] = {"a", "b", NULL};
    is_output cat = {"c", "1", "c", IS_OUTPUT_CATEGORY, names, 0, NULL};
    CU_ASSERT_EQUAL(is_tolerance_discrepancy(&real, 2.0, 2.0), 0.0);
    CU_ASSERT_DOUBLE_EQUAL(is_tolerance_discrepancy(&real, 2.0, 2.0 + 2e-9), 1e-9, 1e-15);
    CU_ASSERT_DOUBLE_EQUAL(is_tolerance_discrepancy(&real, -4.0, -3.0), 0.25, 1e-15);
    /* below the floor: an absolute difference over the floor */
    CU_ASSERT_DOUBLE_EQUAL(is_tolerance_discrepancy(&real, 1e-12, -1e-12), 2e-12 / 1e-3, 1e-20);
    CU_ASSERT_EQUAL(is_tolerance_discrepancy(&real, NAN, NAN), 0.0);
    CU_ASSERT_EQUAL(is_tolerance_discrepancy(&real, NAN, 1.0), 1.0);
    CU_ASSERT_EQUAL(is_tolerance_discrepancy(&real, INFINITY, INFINITY), 0.0);
    CU_ASSERT_EQUAL(is_tolerance_discrepancy(&real, INFINITY, 1e300), 1.0);
    CU_ASSERT_EQUAL(is_tolerance_discrepancy(&count, 2550, 2553), 3.0);
    CU_ASSERT_EQUAL(is_tolerance_discrepancy(&work, 100, 700), 0.0);
    CU_ASSERT_EQUAL(is_tolerance_discrepancy(&cat, 1, 1), 0.0);
    CU_ASSERT_EQUAL(is_tolerance_discrepancy(&cat, 0, 1), 1.0);
}

static void test_tighten_collision(void)
{
    const is_model *m = is_registry_find("collision");
    CU_ASSERT_FATAL(m != NULL);
    CU_ASSERT(is_tolerance_model(m));
    double *p = malloc(m->param_count * sizeof *p), *q = malloc(m->param_count * sizeof *q);
    CU_ASSERT_FATAL(p && q);
    for (size_t i = 0; i < m->param_count; i++)
        p[i] = m->params[i].default_value;
    int rtol = is_model_param_index(m, "rtol"), atol = is_model_param_index(m, "atol");
    int integrator = is_model_param_index(m, "integrator");
    p[rtol] = 1e-6;
    int method = (int)p[integrator];
    CU_ASSERT(is_tolerance_tighten(m, p, IS_TOLERANCE_FACTOR, 1, q));
    CU_ASSERT_DOUBLE_EQUAL(q[rtol], 1e-8, 1e-22);
    CU_ASSERT_DOUBLE_EQUAL(q[atol], p[atol] / 100, 1e-28);
    CU_ASSERT(q[integrator] != method); /* the other integrator */
    CU_ASSERT(strcmp(m->params[integrator].choices[(int)q[integrator]], "auto") != 0);
    double r[64];
    CU_ASSERT_FATAL(m->param_count <= 64);
    is_tolerance_tighten(m, q, IS_TOLERANCE_FACTOR, 1, r);
    CU_ASSERT(r[integrator] != q[integrator]);
    p[rtol] = m->params[rtol].min * 10; /* not below the range */
    is_tolerance_tighten(m, p, IS_TOLERANCE_FACTOR, 0, q);
    CU_ASSERT_EQUAL(q[rtol], m->params[rtol].min);
    CU_ASSERT_EQUAL(q[integrator], p[integrator]); /* no switch asked */
    CU_ASSERT_DOUBLE_EQUAL(is_tolerance_value(m, p), m->params[rtol].min * 10, 1e-25);
    free(p);
    free(q);
}

/* A method list with "auto": the next one, skipping auto. */
static void test_tighten_methods(void)
{
    static const char *const methods[] = {"auto", "slow", "fast", NULL};
    static const is_param_when when_slow[] = {{"method", 1u << 1}, {NULL, 0}};
    is_param params[] = {
        {"method", "m", "1", IS_PARAM_CHOICE, 0, 0, 2, IS_PARAM_METHOD, methods, NULL, NULL},
        {"tol", "t", "1", IS_PARAM_REAL, 1e-6, 1e-12, 1, IS_PARAM_TOLERANCE, NULL, when_slow,
         NULL}};
    is_model m = {IS_MODEL_HEADER, .name = "t", .params = params, .param_count = 2};
    double p[2] = {0, 1e-6}, q[2];
    CU_ASSERT(is_tolerance_tighten(&m, p, 100, 1, q)); /* auto -> slow: tol applies */
    CU_ASSERT_EQUAL(q[0], 1);
    CU_ASSERT_DOUBLE_EQUAL(q[1], 1e-8, 1e-20);
    p[0] = 1;
    CU_ASSERT(!is_tolerance_tighten(&m, p, 100, 1, q)); /* slow -> fast: no tolerance */
    CU_ASSERT_EQUAL(q[0], 2);
    p[0] = 2;
    CU_ASSERT(is_tolerance_tighten(&m, p, 100, 1, q)); /* fast -> slow, not auto */
    CU_ASSERT_EQUAL(q[0], 1);
    CU_ASSERT(!is_tolerance_tighten(&m, p, 100, 0, q)); /* fast alone: no tolerance */
    CU_ASSERT_EQUAL(is_tolerance_value(&m, p), 0.0);
}

/* The stop oscillator's rtol applies to CVODE only: its exact flows cannot be verified. */
static void test_tighten_stop(void)
{
    const is_model *m = is_registry_find("stop-oscillator");
    CU_ASSERT_FATAL(m != NULL && m->param_count <= 64);
    double p[64], q[64];
    for (size_t i = 0; i < m->param_count; i++)
        p[i] = m->params[i].default_value;
    CU_ASSERT(!is_tolerance_tighten(m, p, IS_TOLERANCE_FACTOR, 1, q));
    p[is_model_param_index(m, "integrator")] = 1; /* cvode */
    CU_ASSERT(is_tolerance_tighten(m, p, IS_TOLERANCE_FACTOR, 1, q));
    CU_ASSERT_DOUBLE_EQUAL(q[is_model_param_index(m, "rtol")], 1e-12, 1e-26);
    CU_ASSERT(!is_tolerance_model(is_registry_find("chatter")));
}

void suite_verification(void)
{
    CU_pSuite suite = CU_add_suite("verification", NULL, NULL);
    CU_add_test(suite, "the stride of a fraction", test_stride);
    CU_add_test(suite, "the sample is the same however the grid is split", test_sample_split_independent);
    CU_add_test(suite, "the sample spreads over each stratum and moves with the seed", test_sample_spread);
    CU_add_test(suite, "the discrepancy measure", test_discrepancy);
    CU_add_test(suite, "collision tightened: rtol / 100, atol / 100, the other integrator", test_tighten_collision);
    CU_add_test(suite, "the next method, skipping auto", test_tighten_methods);
    CU_add_test(suite, "the stop oscillator's exact flows are not verifiable", test_tighten_stop);
}
