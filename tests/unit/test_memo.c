/* test_memo.c: the bounded cache of shared work (src/core/contract/memo.h): a hit gives back what
 * was put for the same key bits and nothing else, the size stays what creation fixed
 * whatever is put, the least recently used entry makes room, IMPACTSWEEP_SHARE=0 turns
 * it off. */
#include <CUnit/CUnit.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "core/contract/memo.h"
#include "suites.h"

typedef struct value {
    double a, b;
    int64_t n;
} value;

/* The value a key stands for in these tests (a pure function of the key). */
static value value_of(const double *key)
{
    return (value){key[0] * 3.0 + key[1], key[2] - key[0], (int64_t)(key[1] * 7.0)};
}

static void key_of(uint64_t i, double *key)
{
    key[0] = (double)i * 0.25;
    key[1] = 1.0 / (1.0 + (double)i);
    key[2] = (double)(i % 17);
}

static void test_hits_give_back_what_was_put(void)
{
    is_memo *m = is_memo_create(3, sizeof(value), 100);
    CU_ASSERT_FATAL(m != NULL);
    CHECK(m->capacity == 256 && is_memo_bytes(m) == sizeof *m + 256 * (8 + 24 + 24),
          "capacity %zu, %zu bytes", m->capacity, is_memo_bytes(m));
    double key[3];
    for (uint64_t i = 0; i < 50; i++) {
        key_of(i, key);
        CHECK(is_memo_get(m, key) == NULL, "key %llu found before it was put",
              (unsigned long long)i);
        value v = value_of(key);
        is_memo_put(m, key, &v);
    }
    int wrong = 0, missing = 0;
    for (uint64_t i = 0; i < 50; i++) {
        key_of(i, key);
        const value *got = is_memo_get(m, key), want = value_of(key);
        missing += got == NULL;
        wrong += got && memcmp(got, &want, sizeof want) != 0;
    }
    CHECK(missing == 0 && wrong == 0 && m->hits == 50 && m->misses == 50,
          "%d missing, %d wrong, %llu hits, %llu misses", missing, wrong,
          (unsigned long long)m->hits, (unsigned long long)m->misses);
    /* keys compare bit for bit: -0.0 is not 0.0, and a key one ulp away is another */
    double zero[3] = {0.0, 1.0, 0.0}, negative[3] = {-0.0, 1.0, 0.0};
    value v = value_of(zero);
    is_memo_put(m, zero, &v);
    double near[3] = {0.0, nextafter(1.0, 2.0), 0.0};
    CHECK(is_memo_get(m, zero) != NULL && is_memo_get(m, negative) == NULL &&
              is_memo_get(m, near) == NULL,
          "bitwise keys");
    /* putting a key again replaces its value in place */
    value other = {1.0, 2.0, 3};
    is_memo_put(m, zero, &other);
    const value *got = is_memo_get(m, zero);
    CHECK(got && got->n == 3, "the second put of a key did not replace its value");
    is_memo_free(m);
}

static void test_bounded_and_least_recently_used_makes_room(void)
{
    /* 3000 keys in turn into a memo for 1000: the size never changes, a hit is always the
     * right value, and a key used over and over stays while others come and go */
    is_memo *m = is_memo_create(3, sizeof(value), 1000);
    CU_ASSERT_FATAL(m != NULL);
    size_t bytes = is_memo_bytes(m);
    double key[3], hot[3];
    key_of(7, hot);
    value hv = value_of(hot);
    is_memo_put(m, hot, &hv);
    int wrong = 0, hot_lost = 0;
    uint64_t hits = 0;
    for (uint64_t i = 100; i < 100100; i++) {
        key_of(i % 3000 + 100, key); /* 3000 keys in turn: more than the memo holds */
        const value *got = is_memo_get(m, key);
        value want = value_of(key);
        if (got) {
            hits++;
            wrong += memcmp(got, &want, sizeof want) != 0;
        } else {
            is_memo_put(m, key, &want);
        }
        if (i % 10 == 0)
            hot_lost += is_memo_get(m, hot) == NULL;
    }
    CHECK(wrong == 0 && hot_lost == 0 && is_memo_bytes(m) == bytes,
          "%d wrong values, the key in use lost %d times, %zu bytes (created with %zu)", wrong,
          hot_lost, is_memo_bytes(m), bytes);
    /* 3000 keys in a cycle through 2048 slots: least recently used means few hits */
    CHECK(hits < 20000, "%llu hits of 10^5 from 3000 keys in a cycle", (unsigned long long)hits);
    is_memo_free(m);
    /* 900 keys in a cycle fit: after the first round, (almost) every lookup hits */
    m = is_memo_create(3, sizeof(value), 1000);
    CU_ASSERT_FATAL(m != NULL);
    for (uint64_t i = 0; i < 9000; i++) {
        key_of(i % 900, key);
        if (!is_memo_get(m, key)) {
            value v = value_of(key);
            is_memo_put(m, key, &v);
        }
    }
    CHECK(m->misses <= 909 && m->hits + m->misses == 9000,
          "900 keys in a memo for 1000: %llu misses of 9000", (unsigned long long)m->misses);
    is_memo_free(m);
}

static void test_share_off(void)
{
    setenv("IMPACTSWEEP_SHARE", "0", 1);
    is_memo *m = is_memo_create(3, sizeof(value), 1000);
    unsetenv("IMPACTSWEEP_SHARE");
    CU_ASSERT_FATAL(m != NULL);
    double key[3];
    key_of(3, key);
    value v = value_of(key);
    is_memo_put(m, key, &v);
    CHECK(m->capacity == 0 && is_memo_get(m, key) == NULL && is_memo_bytes(m) == sizeof *m,
          "IMPACTSWEEP_SHARE=0: capacity %zu", m->capacity);
    is_memo_free(m);
    /* sizes that overflow are refused, not wrapped */
    CHECK(is_memo_create(SIZE_MAX / 8, 8, 16) == NULL && is_memo_create(2, 8, SIZE_MAX / 4) == NULL,
          "overflowing sizes accepted");
}

void suite_memo(void)
{
    CU_pSuite s = CU_add_suite("memo", NULL, NULL);
    CU_add_test(s, "a hit gives back what was put for the same key bits",
                test_hits_give_back_what_was_put);
    CU_add_test(s, "bounded: least recently used makes room, values stay right",
                test_bounded_and_least_recently_used_makes_room);
    CU_add_test(s, "IMPACTSWEEP_SHARE=0 turns it off; overflowing sizes refused", test_share_off);
}
