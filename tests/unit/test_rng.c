/* test_rng.c: the Philox4x32-10 generator, the open-interval uniform map and the digest of parameter values. */
#include <CUnit/CUnit.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "core/base/rng.h"
#include "check.h"
#include "suites.h"

/* A CUnit assertion whose failure text is formatted, so that a failing check shows the
 * numbers involved instead of just the expression. */

static is_rng_counter make_counter(uint32_t a, uint32_t b, uint32_t c, uint32_t d)
{
    is_rng_counter ctr = {{a, b, c, d}};
    return ctr;
}

static is_rng_key make_key(uint32_t a, uint32_t b)
{
    is_rng_key key = {{a, b}};
    return key;
}

static int counters_equal(is_rng_counter x, is_rng_counter y)
{
    return memcmp(x.v, y.v, sizeof x.v) == 0;
}

/* The known-answer vectors published with Random123 (kat_vectors, philox4x32 10). They
 * are the only proof that this is Philox4x32-10 and not merely a good-looking mixer. */
static void test_philox_known_answers(void)
{
    static const struct {
        uint32_t ctr[4], key[2], out[4];
    } vectors[] = {
        {{0x00000000u, 0x00000000u, 0x00000000u, 0x00000000u},
         {0x00000000u, 0x00000000u},
         {0x6627e8d5u, 0xe169c58du, 0xbc57ac4cu, 0x9b00dbd8u}},
        {{0xffffffffu, 0xffffffffu, 0xffffffffu, 0xffffffffu},
         {0xffffffffu, 0xffffffffu},
         {0x408f276du, 0x41c83b0eu, 0xa20bc7c6u, 0x6d5451fdu}},
        {{0x243f6a88u, 0x85a308d3u, 0x13198a2eu, 0x03707344u},
         {0xa4093822u, 0x299f31d0u},
         {0xd16cfe09u, 0x94fdccebu, 0x5001e420u, 0x24126ea1u}},
    };
    for (size_t i = 0; i < sizeof vectors / sizeof *vectors; i++) {
        is_rng_counter ctr = make_counter(vectors[i].ctr[0], vectors[i].ctr[1], vectors[i].ctr[2],
                                          vectors[i].ctr[3]);
        is_rng_counter out = is_rng_philox4x32(ctr, make_key(vectors[i].key[0], vectors[i].key[1]));
        for (int w = 0; w < 4; w++)
            CHECK(out.v[w] == vectors[i].out[w], "vector %zu word %d: got %08x, expected %08x", i,
                  w, (unsigned)out.v[w], (unsigned)vectors[i].out[w]);
    }
}

/* No hidden state: the same (counter, key) must give the same block however often and in
 * whatever order it is asked for, or results would depend on the rank count. */
static void test_philox_is_a_pure_function(void)
{
    is_rng_key key = make_key(0x12345678u, 0x9abcdef0u);
    is_rng_counter a = make_counter(1, 2, 3, 4), b = make_counter(5, 6, 7, 8);
    is_rng_counter a1 = is_rng_philox4x32(a, key);
    is_rng_counter b1 = is_rng_philox4x32(b, key);
    is_rng_counter a2 = is_rng_philox4x32(a, key); /* after another call in between */
    is_rng_counter b2 = is_rng_philox4x32(b, key);
    CU_ASSERT(counters_equal(a1, a2));
    CU_ASSERT(counters_equal(b1, b2));
}

/* Every word of the counter and of the key must reach the output: a point's draws are
 * told apart by counter words (point digest, draw number), jobs by the key (seed). A
 * one-bit change in any word must change the block. */
static void test_philox_distinct_inputs_distinct_outputs(void)
{
    is_rng_counter base_ctr = make_counter(0x01234567u, 0x89abcdefu, 0xfedcba98u, 0x76543210u);
    is_rng_key base_key = make_key(0x0badcafeu, 0xdeadbeefu);
    is_rng_counter reference = is_rng_philox4x32(base_ctr, base_key);
    for (int w = 0; w < 4; w++)
        for (int bit = 0; bit < 32; bit += 7) {
            is_rng_counter ctr = base_ctr;
            ctr.v[w] ^= 1u << bit;
            CHECK(!counters_equal(is_rng_philox4x32(ctr, base_key), reference),
                  "flipping counter word %d bit %d left the output unchanged", w, bit);
        }
    for (int w = 0; w < 2; w++)
        for (int bit = 0; bit < 32; bit += 7) {
            is_rng_key key = base_key;
            key.v[w] ^= 1u << bit;
            CHECK(!counters_equal(is_rng_philox4x32(base_ctr, key), reference),
                  "flipping key word %d bit %d left the output unchanged", w, bit);
        }
    /* Consecutive counters, the common case (draw i, i + 1), give different blocks. */
    is_rng_counter previous = is_rng_philox4x32(make_counter(0, 0, 0, 0), base_key);
    for (uint32_t i = 1; i < 64; i++) {
        is_rng_counter next = is_rng_philox4x32(make_counter(i, 0, 0, 0), base_key);
        CHECK(!counters_equal(next, previous), "counters %u and %u gave the same block", i - 1,
              i);
        previous = next;
    }
}

/* The seed is 64 bits: both halves must land in the key, low word first. */
static void test_key_from_seed_keeps_all_bits(void)
{
    uint64_t seed = UINT64_C(0x0123456789abcdef);
    is_rng_key key = is_rng_key_from_seed(seed);
    CU_ASSERT_EQUAL(key.v[0], (uint32_t)(seed & 0xffffffffu));
    CU_ASSERT_EQUAL(key.v[1], (uint32_t)(seed >> 32));
    is_rng_key other = is_rng_key_from_seed(seed + (UINT64_C(1) << 32));
    CU_ASSERT_NOT_EQUAL(other.v[1], key.v[1]);
}

/* The simulation takes logarithms and divides by these numbers: 0 and 1 must never come
 * out, not even for the extreme bit patterns. */
static void test_uniform_open_interval_at_extremes(void)
{
    double lo = is_rng_uniform_open(0u), hi = is_rng_uniform_open(0xffffffffu);
    CHECK(lo > 0.0 && lo < 1.0, "uniform(0) = %.17g is not inside (0, 1)", lo);
    CHECK(hi > 0.0 && hi < 1.0, "uniform(0xffffffff) = %.17g is not inside (0, 1)", hi);
    /* Symmetric about 1/2, so that neither end is favoured. */
    CHECK(fabs((lo + hi) - 1.0) < 1e-15, "uniform(0) + uniform(max) = %.17g, expected 1",
          lo + hi);
    /* Strictly increasing in the bits: the map loses none of the 32 bits. */
    static const uint32_t samples[] = {0u, 1u, 2u, 0x7fffffffu, 0x80000000u, 0xfffffffeu,
                                       0xffffffffu};
    for (size_t i = 1; i < sizeof samples / sizeof *samples; i++)
        CHECK(is_rng_uniform_open(samples[i - 1]) < is_rng_uniform_open(samples[i]),
              "uniform(%08x) >= uniform(%08x)", (unsigned)samples[i - 1], (unsigned)samples[i]);
}

/* The mean of N uniforms from Philox blocks is 1/2 with standard error 1/sqrt(12 N).
 * The bound is 6 standard errors: a correct generator exceeds it with probability about
 * 2e-9, while a bias of a few parts in 10^3 (a stuck bit, a word used twice) fails. */
static void test_uniform_mean_is_one_half(void)
{
    const uint32_t blocks = 1u << 18; /* four uniforms per block: N = 2^20 */
    is_rng_key key = is_rng_key_from_seed(20240601u);
    double sum = 0.0;
    for (uint32_t i = 0; i < blocks; i++) {
        is_rng_counter out = is_rng_philox4x32(make_counter(i, 0, 7, 0), key);
        for (int w = 0; w < 4; w++)
            sum += is_rng_uniform_open(out.v[w]);
    }
    double n = 4.0 * blocks;
    double mean = sum / n, bound = 6.0 / sqrt(12.0 * n);
    CHECK(fabs(mean - 0.5) < bound, "mean of %.0f uniforms is %.9f, |mean - 0.5| >= %.3g", n,
          mean, bound);
}

/* -0.0 == +0.0 numerically, so a point given as -0 must get the same stream as +0
 * (e.g. a linear axis through zero computed as -0.0). */
static void test_digest_signed_zero(void)
{
    const double plus[3] = {1.5, 0.0, 2.0};
    const double minus[3] = {1.5, -0.0, 2.0};
    CU_ASSERT(signbit(minus[1]) && !signbit(plus[1])); /* the inputs really differ in bits */
    CU_ASSERT_EQUAL(is_rng_digest_values(plus, 3), is_rng_digest_values(minus, 3));
    const double lone_plus = 0.0, lone_minus = -0.0;
    CU_ASSERT_EQUAL(is_rng_digest_values(&lone_plus, 1), is_rng_digest_values(&lone_minus, 1));
}

/* (rho, gamma) = (a, b) and (b, a) are different points and need different streams. */
static void test_digest_order_sensitive(void)
{
    const double ab[2] = {0.25, 0.75}, ba[2] = {0.75, 0.25};
    CU_ASSERT_NOT_EQUAL(is_rng_digest_values(ab, 2), is_rng_digest_values(ba, 2));
    const double abc[3] = {1.0, 2.0, 3.0}, acb[3] = {1.0, 3.0, 2.0};
    CU_ASSERT_NOT_EQUAL(is_rng_digest_values(abc, 3), is_rng_digest_values(acb, 3));
}

/* Neighbouring grid points can differ in the last bit only (a fine axis); each value's
 * every bit must reach the digest. */
static void test_digest_last_bit(void)
{
    const double base[3] = {4.0, 0.3, 123456.789};
    uint64_t reference = is_rng_digest_values(base, 3);
    for (int i = 0; i < 3; i++) {
        double up[3], down[3];
        memcpy(up, base, sizeof up);
        memcpy(down, base, sizeof down);
        up[i] = nextafter(base[i], INFINITY);
        down[i] = nextafter(base[i], -INFINITY);
        CHECK(is_rng_digest_values(up, 3) != reference, "value %d one ulp up: same digest", i);
        CHECK(is_rng_digest_values(down, 3) != reference, "value %d one ulp down: same digest",
              i);
        CHECK(is_rng_digest_values(up, 3) != is_rng_digest_values(down, 3),
              "value %d one ulp up and down: same digest", i);
    }
}

/* The digest is a function of the values: same values, same digest, also when they sit
 * in different arrays; and a different number of values gives a different digest. */
static void test_digest_deterministic_and_count_sensitive(void)
{
    const double a[3] = {2.0, 0.5, 0.0};
    double copy[3];
    memcpy(copy, a, sizeof copy);
    CU_ASSERT_EQUAL(is_rng_digest_values(a, 3), is_rng_digest_values(copy, 3));
    CU_ASSERT_NOT_EQUAL(is_rng_digest_values(a, 3), is_rng_digest_values(a, 2));
}

void suite_rng(void)
{
    CU_pSuite suite = CU_add_suite("rng", NULL, NULL);
    CU_add_test(suite, "Philox4x32-10 known-answer vectors", test_philox_known_answers);
    CU_add_test(suite, "Philox is a pure function", test_philox_is_a_pure_function);
    CU_add_test(suite, "distinct counters and keys give distinct blocks",
                test_philox_distinct_inputs_distinct_outputs);
    CU_add_test(suite, "key from seed keeps all 64 bits", test_key_from_seed_keeps_all_bits);
    CU_add_test(suite, "uniform stays inside (0, 1)", test_uniform_open_interval_at_extremes);
    CU_add_test(suite, "uniform mean is 1/2", test_uniform_mean_is_one_half);
    CU_add_test(suite, "digest: -0 equals +0", test_digest_signed_zero);
    CU_add_test(suite, "digest: order matters", test_digest_order_sensitive);
    CU_add_test(suite, "digest: last bit matters", test_digest_last_bit);
    CU_add_test(suite, "digest: deterministic, count matters",
                test_digest_deterministic_and_count_sensitive);
}
