/* lanes_avx2.h: lanes.h's primitives for AVX2: 4 lanes in a ymm register; masks are
 * vectors of 0 / -1 lanes. Selects are BLENDVPD (one instruction where and/andnot/or is
 * three: the chatter kernel ran 1.65e8 impacts/s against 1.20e8 with the generic form),
 * masks are read with one MOVMSKPD, and the masked moves are ANDPD/ANDNPD rather than the
 * integer VPAND of the vector types' &: on Zen 2 a double passed through an integer
 * operation and back is 2 cycles later (VPAND then VADDPD, 6 cycles; VANDPD then VADDPD,
 * 4). Included by lanes.h only. */
#ifndef IMPACTSWEEP_LANES_AVX2_H
#define IMPACTSWEEP_LANES_AVX2_H

#include <immintrin.h>

#define LV_WIDTH 4
#define LV_ISA "avx2"

typedef double lv_double __attribute__((vector_size(32)));
typedef int64_t lv_int __attribute__((vector_size(32)));
typedef lv_int lv_mask; /* lane l: 0 or -1 */

static inline lv_mask lv_lt(lv_double a, lv_double b) { return (lv_mask)(a < b); }
static inline lv_mask lv_le(lv_double a, lv_double b) { return (lv_mask)(a <= b); }
static inline lv_mask lv_gt(lv_double a, lv_double b) { return (lv_mask)(a > b); }
static inline lv_mask lv_ge(lv_double a, lv_double b) { return (lv_mask)(a >= b); }
static inline lv_mask lv_eq(lv_double a, lv_double b) { return (lv_mask)(a == b); }
static inline lv_mask lv_ne(lv_double a, lv_double b) { return (lv_mask)(a != b); }
static inline lv_mask lv_ieq(lv_int a, lv_int b) { return (lv_mask)(a == b); }
static inline lv_mask lv_igt(lv_int a, lv_int b) { return (lv_mask)(a > b); }

static inline lv_mask lv_mask_none(void) { return (lv_mask){0}; }
static inline lv_mask lv_not(lv_mask m) { return ~m; }
static inline lv_mask lv_mask_from_int(lv_int m) { return m; }
static inline lv_int lv_int_from_mask(lv_mask m) { return m; }
static inline int lv_mask_bits(lv_mask m) { return _mm256_movemask_pd((__m256d)m); }
static inline int lv_any(lv_mask m) { return _mm256_movemask_pd((__m256d)m) != 0; }
static inline int lv_all(lv_mask m) { return _mm256_movemask_pd((__m256d)m) == 15; }
static inline int lv_mask_lane(lv_mask m, int l) { return m[l] != 0; }
static inline lv_mask lv_mask_clear(lv_mask m, int l)
{
    m[l] = 0;
    return m;
}

static inline lv_double lv_sel(lv_mask m, lv_double a, lv_double b)
{
    return (lv_double)_mm256_blendv_pd((__m256d)b, (__m256d)a, (__m256d)m);
}

static inline lv_int lv_isel(lv_mask m, lv_int a, lv_int b)
{
    return (lv_int)_mm256_blendv_pd((__m256d)b, (__m256d)a, (__m256d)m);
}

static inline lv_double lv_sqrt(lv_double x)
{
    return (lv_double)_mm256_sqrt_pd((__m256d)x);
}

/* ANDNPD with -0.0, a constant loaded in one broadcast */
static inline lv_double lv_abs(lv_double a)
{
    return (lv_double)_mm256_andnot_pd(_mm256_set1_pd(-0.0), (__m256d)a);
}

static inline lv_double lv_min_nanb(lv_double a, lv_double b)
{
    return (lv_double)_mm256_min_pd((__m256d)a, (__m256d)b);
}

static inline lv_double lv_max_nanb(lv_double a, lv_double b)
{
    return (lv_double)_mm256_max_pd((__m256d)a, (__m256d)b);
}

static inline lv_double lv_keep(lv_mask m, lv_double a)
{
    return (lv_double)_mm256_and_pd((__m256d)a, (__m256d)m);
}

static inline lv_double lv_drop(lv_mask m, lv_double a)
{
    return (lv_double)_mm256_andnot_pd((__m256d)m, (__m256d)a);
}

/* m ? a + b : a where a is not -0 (a + (+0) is a for every other a): a masked term
 * instead of a select, a logic operation that any vector port takes. */
static inline lv_double lv_add_where(lv_mask m, lv_double a, lv_double b)
{
    return a + lv_keep(m, b);
}

static inline lv_int lv_imax(lv_int a, lv_int b)
{
    lv_int a_greater = (lv_int)(a > b);
    return (a & a_greater) | (b & ~a_greater);
}

/* VPERMPS picks 32-bit halves: the key of entry j, KEY0 + j KEY1 (exact, below 2^53),
 * has the halves 2j and 2j + 1 in its low bits, which select the double table[j] of the
 * 4-entry table; the lookup needs no conversion of the key. */
#define LV_HAS_LOOKUP 1
#define LV_LOOKUP_KEY0 (0x1p52 + 0x1p32)
#define LV_LOOKUP_KEY1 (0x1p33 + 2.0)
static inline lv_double lv_lookup(lv_double table, lv_double key)
{
    return (lv_double)_mm256_permutevar8x32_ps((__m256)table, (__m256i)key);
}

/* table[idx[l]] in each lane (0 <= idx < the table's length): one VGATHERQPD. */
static inline lv_double lv_gather(const double *table, lv_int idx)
{
    return (lv_double)_mm256_i64gather_pd(table, (__m256i)idx, 8);
}

#endif
