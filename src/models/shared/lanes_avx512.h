/* lanes_avx512.h: lanes.h's primitives for AVX-512 (F and DQ): 8 lanes in a zmm
 * register; masks are mask registers (__mmask8, bit l for lane l). Through the vector
 * types GCC 12 moves every mask between a mask register and a vector and makes a select
 * of two xors, which left the chatter kernel bound by its vector ports (2.46e8 impacts/s
 * against 3.3e8 with these). Same bits as the others: the comparisons are C's (ordered,
 * and unordered for !=), a select moves bits, and MAXPD(x, y) is by definition
 * x > y ? x : y. Included by lanes.h only. */
#ifndef IMPACTSWEEP_LANES_AVX512_H
#define IMPACTSWEEP_LANES_AVX512_H

#include <immintrin.h>

#define LV_WIDTH 8
#define LV_ISA "avx512"

typedef double lv_double __attribute__((vector_size(64)));
typedef int64_t lv_int __attribute__((vector_size(64)));
typedef __mmask8 lv_mask; /* bit l: lane l */

static inline lv_mask lv_lt(lv_double a, lv_double b)
{
    return _mm512_cmp_pd_mask((__m512d)a, (__m512d)b, _CMP_LT_OQ);
}
static inline lv_mask lv_le(lv_double a, lv_double b)
{
    return _mm512_cmp_pd_mask((__m512d)a, (__m512d)b, _CMP_LE_OQ);
}
static inline lv_mask lv_gt(lv_double a, lv_double b)
{
    return _mm512_cmp_pd_mask((__m512d)a, (__m512d)b, _CMP_GT_OQ);
}
static inline lv_mask lv_ge(lv_double a, lv_double b)
{
    return _mm512_cmp_pd_mask((__m512d)a, (__m512d)b, _CMP_GE_OQ);
}
static inline lv_mask lv_eq(lv_double a, lv_double b)
{
    return _mm512_cmp_pd_mask((__m512d)a, (__m512d)b, _CMP_EQ_OQ);
}
static inline lv_mask lv_ne(lv_double a, lv_double b)
{
    return _mm512_cmp_pd_mask((__m512d)a, (__m512d)b, _CMP_NEQ_UQ);
}
static inline lv_mask lv_ieq(lv_int a, lv_int b)
{
    return _mm512_cmpeq_epi64_mask((__m512i)a, (__m512i)b);
}
static inline lv_mask lv_igt(lv_int a, lv_int b)
{
    return _mm512_cmpgt_epi64_mask((__m512i)a, (__m512i)b);
}

static inline lv_mask lv_mask_none(void) { return (lv_mask)0; }
static inline lv_mask lv_not(lv_mask m) { return (lv_mask)~m; }
static inline lv_mask lv_mask_from_int(lv_int m) { return _mm512_movepi64_mask((__m512i)m); }
static inline lv_int lv_int_from_mask(lv_mask m) { return (lv_int)_mm512_movm_epi64(m); }
static inline int lv_mask_bits(lv_mask m) { return m; }
static inline int lv_any(lv_mask m) { return m != 0; }
static inline int lv_all(lv_mask m) { return m == 0xff; }
static inline int lv_mask_lane(lv_mask m, int l) { return (m >> l) & 1; }
static inline lv_mask lv_mask_clear(lv_mask m, int l) { return (lv_mask)(m & ~(1u << l)); }

static inline lv_double lv_sel(lv_mask m, lv_double a, lv_double b)
{
    return (lv_double)_mm512_mask_blend_pd(m, (__m512d)b, (__m512d)a);
}

static inline lv_int lv_isel(lv_mask m, lv_int a, lv_int b)
{
    return (lv_int)_mm512_mask_blend_epi64(m, (__m512i)b, (__m512i)a);
}

static inline lv_double lv_sqrt(lv_double x)
{
    return (lv_double)_mm512_sqrt_pd((__m512d)x);
}

static inline lv_double lv_abs(lv_double a)
{
    return (lv_double)_mm512_andnot_pd(_mm512_set1_pd(-0.0), (__m512d)a);
}

static inline lv_double lv_min_nanb(lv_double a, lv_double b)
{
    return (lv_double)_mm512_min_pd((__m512d)a, (__m512d)b);
}

static inline lv_double lv_max_nanb(lv_double a, lv_double b)
{
    return (lv_double)_mm512_max_pd((__m512d)a, (__m512d)b);
}

static inline lv_double lv_keep(lv_mask m, lv_double a)
{
    return (lv_double)_mm512_maskz_mov_pd(m, (__m512d)a);
}

static inline lv_double lv_drop(lv_mask m, lv_double a)
{
    return (lv_double)_mm512_maskz_mov_pd((lv_mask)~m, (__m512d)a);
}

/* m ? a + b : a: one masked addition */
static inline lv_double lv_add_where(lv_mask m, lv_double a, lv_double b)
{
    return (lv_double)_mm512_mask_add_pd((__m512d)a, m, (__m512d)a, (__m512d)b);
}

static inline lv_int lv_imax(lv_int a, lv_int b)
{
    return (lv_int)_mm512_max_epi64((__m512i)a, (__m512i)b);
}

/* one permutation: the key is the index itself, converted */
#define LV_HAS_LOOKUP 1
#define LV_LOOKUP_KEY0 0.0
#define LV_LOOKUP_KEY1 1.0
static inline lv_double lv_lookup(lv_double table, lv_double key)
{
    return (lv_double)_mm512_permutexvar_pd(_mm512_cvttpd_epi64((__m512d)key), (__m512d)table);
}

/* table[idx[l]] in each lane (0 <= idx < the table's length): one VGATHERQPD. */
static inline lv_double lv_gather(const double *table, lv_int idx)
{
    return (lv_double)_mm512_i64gather_pd((__m512i)idx, table, 8);
}

#endif
