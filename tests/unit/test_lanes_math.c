/* test_lanes_math.c: lanes_math.h's logarithm, exponential and power against long double
 * (x87's 64-bit significand on x86: 11 bits beyond a double's, so the reference's own
 * error is below 2^-11 ulp): the error bounds of the header's comment on random
 * arguments over the ranges the models use and beyond, the special values, and the same
 * bits in every lane width (generic, SSE2, AVX2 and the build's own set, from
 * lanes_math_*.c) and in every lane. */
#include <CUnit/CUnit.h>
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "suites.h"

#define LMW_NAME lanes_math_eval_native
#include "lanes_math_width.h"

void lanes_math_eval_generic(const double *x, const double *e, const double *h, size_t n,
                             double *log_hi, double *log_lo, double *ex, double *pw);
void lanes_math_eval_sse2(const double *x, const double *e, const double *h, size_t n,
                          double *log_hi, double *log_lo, double *ex, double *pw);
void lanes_math_eval_avx2(const double *x, const double *e, const double *h, size_t n,
                          double *log_hi, double *log_lo, double *ex, double *pw);

#define SAMPLES 200000

/* xorshift64: the same arguments on every run */
static double uniform(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return (double)(*s >> 11) * 0x1p-53;
}

/* |got - exact| in units of the last place of the double nearest exact (2^-1074 for
 * results below 2^-1022), computed in long double throughout: a difference of half a
 * subnormal's ulp is not a double. */
static double ulp_error(double got, long double exact)
{
    double nearest = (double)exact;
    if (nearest == 0.0)
        return got == 0.0 ? 0.0 : INFINITY;
    int ex;
    frexp(nearest, &ex);
    long double ulp = fabs(nearest) < DBL_MIN ? 0x1p-1074L : ldexpl(1.0L, ex - 53);
    return (double)(fabsl((long double)got - exact) / ulp);
}

static int reference_is_wider(void)
{
    return LDBL_MANT_DIG >= 64;
}

/* The worst errors over random arguments: log x (hi, and hi + lo as a double-double) over
 * every binade of the doubles, exp over the normal results and the subnormal ones, and
 * x^e for x in (0, 1e6], e in [1, 4] (collision's) and over every binade with e in
 * (0, 4], for results in the normal range and below it. */
static void test_accuracy(void)
{
    if (!reference_is_wider()) {
        CHECK(1, "long double is no wider than double here: no reference");
        return;
    }
    uint64_t seed = 0x9e3779b97f4a7c15u;
    double log_hi = 0, log_dd = 0, exp_normal = 0, exp_sub = 0, pow_model = 0, pow_wide = 0,
           pow_sub = 0;
    for (int i = 0; i < SAMPLES; i += LV_WIDTH) {
        lv_double x, xm, e, ew, h;
        for (int l = 0; l < LV_WIDTH; l++) {
            x[l] = ldexp(1.0 + uniform(&seed), (int)(uniform(&seed) * 2098) - 1075);
            xm[l] = 1e6 * exp(-uniform(&seed) * 700.0); /* (0, 1e6]: e^-700 .. 1e6 */
            e[l] = 1.0 + 3.0 * uniform(&seed);
            ew[l] = 4.0 * uniform(&seed) + 0x1p-20;
            h[l] = -745.0 + 1454.7 * uniform(&seed);
        }
        lv_double hi, lo;
        lv_log_for_pow(x, &hi, &lo);
        lv_double ex = lv_exp_dd(h, lv_zero()), pm = lv_pow(xm, e), pw = lv_pow(x, ew);
        for (int l = 0; l < LV_WIDTH; l++) {
            long double lx = logl(x[l]);
            log_hi = fmax(log_hi, ulp_error(hi[l], lx));
            double ulp = lx == 0 ? 0x1p-1074 : ldexp(1.0, ilogb((double)lx) - 52);
            log_dd = fmax(log_dd, (double)(fabsl((long double)hi[l] + lo[l] - lx) / ulp));
            long double le = expl(h[l]);
            if (le >= DBL_MIN)
                exp_normal = fmax(exp_normal, ulp_error(ex[l], le));
            else
                exp_sub = fmax(exp_sub, ulp_error(ex[l], le));
            long double lm = powl(xm[l], e[l]), lw = powl(x[l], ew[l]);
            if (lm >= DBL_MIN)
                pow_model = fmax(pow_model, ulp_error(pm[l], lm));
            else
                pow_sub = fmax(pow_sub, ulp_error(pm[l], lm));
            if (lw >= DBL_MIN && lw <= DBL_MAX)
                pow_wide = fmax(pow_wide, ulp_error(pw[l], lw));
            else if (lw < DBL_MIN)
                pow_sub = fmax(pow_sub, ulp_error(pw[l], lw));
            else
                CHECK(isinf(pw[l]), "%a^%a: %a, not inf", x[l], ew[l], pw[l]);
        }
    }
    CHECK(log_hi < 0.501, "log: hi's error %.4f ulp", log_hi);
    CHECK(log_dd < 0.002, "log: hi + lo's error %.5f ulp of log x", log_dd);
    CHECK(exp_normal < 0.52, "exp: %.4f ulp (normal results)", exp_normal);
    CHECK(exp_sub <= 1.0, "exp: %.4f ulp (subnormal results)", exp_sub);
    CHECK(pow_model < 0.52, "pow: %.4f ulp (x in (0, 1e6], e in [1, 4])", pow_model);
    CHECK(pow_wide < 0.52, "pow: %.4f ulp (every binade, e in (0, 4])", pow_wide);
    CHECK(pow_sub <= 1.0, "pow: %.4f ulp (subnormal results)", pow_sub);
    /* the bounds are not vacuous: the random arguments reached the rounding's own error */
    CHECK(log_hi > 0.49 && exp_normal > 0.49 && pow_model > 0.49, "errors %g %g %g", log_hi,
          exp_normal, pow_model);
}

/* One value in every lane: lane 0 of the result (the others are checked by test_lanes). */
static double pow1(double x, double e)
{
    return lv_pow(lv_splat(x), lv_splat(e))[0];
}

static double exp1(double h)
{
    return lv_exp_dd(lv_splat(h), lv_zero())[0];
}

static void test_special_values(void)
{
    const double es[] = {0x1p-30, 0.5, 1.0, 1.3, 2.3, 4.0};
    for (size_t k = 0; k < sizeof es / sizeof es[0]; k++) {
        double e = es[k];
        CHECK(pow1(0.0, e) == 0.0 && !signbit(pow1(0.0, e)), "0^%g = %a", e, pow1(0.0, e));
        CHECK(pow1(1.0, e) == 1.0, "1^%g = %a", e, pow1(1.0, e));
        CHECK(isinf(pow1(INFINITY, e)) && pow1(INFINITY, e) > 0, "inf^%g = %a", e,
              pow1(INFINITY, e));
        CHECK(isnan(pow1(NAN, e)), "NaN^%g = %a", e, pow1(NAN, e));
        /* the smallest subnormal: x^e rounds to 0 for e > 1, and to a normal number below 1 */
        double tiny = 0x1p-1074;
        long double exact = powl(tiny, e);
        CHECK(ulp_error(pow1(tiny, e), exact) <= 1.0, "%a^%g = %a, not %La", tiny, e,
              pow1(tiny, e), exact);
    }
    /* results that are doubles come out exactly (the error is below half an ulp) */
    CHECK(pow1(4.0, 1.5) == 8.0 && pow1(9.0, 0.5) == 3.0 && pow1(0x1p-1060, 0.5) == 0x1p-530,
          "4^1.5 = %a, 9^0.5 = %a, 2^-1060^0.5 = %a", pow1(4.0, 1.5), pow1(9.0, 0.5),
          pow1(0x1p-1060, 0.5));
    CHECK(pow1(0x1p-1074, 1.0) == 0x1p-1074 && pow1(3.0, 1.0) == 3.0 && pow1(2.0, 3.0) == 8.0,
          "2^-1074^1 = %a, 3^1 = %a, 2^3 = %a", pow1(0x1p-1074, 1.0), pow1(3.0, 1.0),
          pow1(2.0, 3.0));
    /* overflow and underflow */
    CHECK(isinf(pow1(1e300, 2.0)) && pow1(1e-300, 2.0) == 0.0 && pow1(0x1p-1000, 1.05) > 0,
          "1e300^2 = %a, 1e-300^2 = %a, 2^-1000^1.05 = %a", pow1(1e300, 2.0),
          pow1(1e-300, 2.0), pow1(0x1p-1000, 1.05));
    CHECK(exp1(0.0) == 1.0 && exp1(-745.2) == 0.0 && isinf(exp1(709.8)) &&
              exp1(-745.0) == 0x1p-1074,
          "exp(0) = %a, exp(-745.2) = %a, exp(709.8) = %a, exp(-745) = %a", exp1(0.0),
          exp1(-745.2), exp1(709.8), exp1(-745.0));
    /* log: exact at 1, k ln 2 at powers of two (to the double-double's precision), and
     * subnormal arguments as accurate as normal ones */
    lv_double hi, lo;
    lv_log_dd(lv_splat(1.0), &hi, &lo);
    CHECK(hi[0] == 0.0 && lo[0] == 0.0, "log 1 = %a + %a", hi[0], lo[0]);
    const double xs[] = {0x1p-1074, 0x1.8p-1070, 0x1.fffffffffffffp-1023, 0x1p-1022, 0x1p1023,
                         DBL_MAX, 0.7083, 1.0 + 0x1p-52, 1.0 - 0x1p-53};
    for (size_t k = 0; k < sizeof xs / sizeof xs[0]; k++) {
        lv_log_dd(lv_splat(xs[k]), &hi, &lo);
        long double exact = logl(xs[k]);
        CHECK(ulp_error(hi[0], exact) < 0.501, "log %a = %a, not %La", xs[k], hi[0], exact);
    }
}

/* The same bits in every width and every lane: the arrays through the generic, SSE2,
 * AVX2 and native kernels (element i in lane i mod width), and the native kernel again
 * on the arrays rotated by one element, which puts each argument in another lane. */
static void test_lanes(void)
{
    enum { N = 4096 };
    double *in = malloc(4 * N * sizeof *in), *out = malloc(5 * 4 * N * sizeof *out);
    CU_ASSERT_FATAL(in != NULL && out != NULL);
    double *x = in, *e = in + N, *h = in + 2 * N, *xr = in + 3 * N;
    uint64_t seed = 12345;
    const double special[] = {0.0, 1.0, INFINITY, NAN, 0x1p-1074, 0x1p-1022, DBL_MAX, 1e6};
    for (int i = 0; i < N; i++) {
        x[i] = i < 8 ? special[i] : ldexp(1.0 + uniform(&seed), (int)(uniform(&seed) * 2098) - 1075);
        e[i] = 1.0 + 3.0 * uniform(&seed);
        h[i] = -750.0 + 1460.0 * uniform(&seed);
    }
    void (*kernels[])(const double *, const double *, const double *, size_t, double *, double *,
                      double *, double *) = {lanes_math_eval_native, lanes_math_eval_generic,
                                             lanes_math_eval_sse2, lanes_math_eval_avx2};
    for (int k = 0; k < 4; k++) {
        double *o = out + (size_t)k * 4 * N;
        kernels[k](x, e, h, N, o, o + N, o + 2 * N, o + 3 * N);
        if (k > 0)
            CHECK(memcmp(o, out, 4 * N * sizeof *out) == 0,
                  "kernel %d (of native, generic, sse2, avx2) differs from the native one", k);
    }
    /* rotated: argument i + 1 at position i */
    double *er = malloc(2 * N * sizeof *er);
    CU_ASSERT_FATAL(er != NULL);
    for (int i = 0; i < N; i++) {
        xr[i] = x[(i + 1) % N];
        er[i] = e[(i + 1) % N];
        er[N + i] = h[(i + 1) % N];
    }
    double *o = out + 4 * 4 * N;
    lanes_math_eval_native(xr, er, er + N, N, o, o + N, o + 2 * N, o + 3 * N);
    int same = 1;
    for (int part = 0; part < 4; part++)
        for (int i = 0; i < N; i++)
            same &= memcmp(&o[part * N + i], &out[part * N + (i + 1) % N], sizeof(double)) == 0;
    CHECK(same, "a value's bits depend on its lane");
    free(er);
    free(in);
    free(out);
}

/* lv_log_for_pow_n and lv_pow_from_log_n (up to 4 vectors side by side) against the single
 * forms, bit for bit: vectors of ordinary arguments (the side-by-side path), and vectors
 * where one lane holds a special value, a subnormal or a result out of range (the single
 * forms' path), in every count of vectors. */
static void test_side_by_side(void)
{
    uint64_t seed = 4242;
    const double special[] = {0.0, INFINITY, NAN, 0x1p-1074, 3e-310, 1e300, 1e-300, DBL_MAX};
    int differ = 0, cases = 0, fallback = 0;
    for (int round = 0; round < 4000; round++) {
        int n = 1 + round % LV_POW_MAX;
        lv_double x[LV_POW_MAX], e[LV_POW_MAX], hi[LV_POW_MAX], lo[LV_POW_MAX], out[LV_POW_MAX];
        for (int m = 0; m < n; m++)
            for (int l = 0; l < LV_WIDTH; l++) {
                x[m][l] = ldexp(1.0 + uniform(&seed), (int)(uniform(&seed) * 60.0) - 50);
                e[m][l] = 0.25 + 3.75 * uniform(&seed);
            }
        if (round % 3 == 0) { /* one lane somewhere out of the ordinary */
            int m = (int)(uniform(&seed) * n), l = (int)(uniform(&seed) * LV_WIDTH);
            x[m][l] = special[(round / 3) % 8];
            e[m][l] = 1.0 + 3.0 * uniform(&seed);
            fallback++;
        }
        lv_log_for_pow_n(n, x, hi, lo);
        lv_pow_from_log_n(n, x, hi, lo, e, out);
        for (int m = 0; m < n; m++) {
            lv_double h1, l1;
            lv_log_for_pow(x[m], &h1, &l1);
            lv_double p1 = lv_pow(x[m], e[m]);
            differ += memcmp(&h1, &hi[m], sizeof h1) != 0 || memcmp(&l1, &lo[m], sizeof l1) != 0 ||
                      memcmp(&p1, &out[m], sizeof p1) != 0;
            cases++;
        }
    }
    CHECK(differ == 0, "%d of %d vectors differ from the single forms (%d rounds with a special "
                       "lane)", differ, cases, fallback);
}

void suite_lanes_math(void)
{
    CU_pSuite s = CU_add_suite("lanes_math", NULL, NULL);
    CU_add_test(s, "log, exp and pow against long double: the documented bounds", test_accuracy);
    CU_add_test(s, "0, 1, subnormals, inf, NaN, exact results, overflow and underflow",
                test_special_values);
    CU_add_test(s, "the same bits in every lane width and every lane", test_lanes);
    CU_add_test(s, "powers side by side: the same bits as one at a time", test_side_by_side);
}
