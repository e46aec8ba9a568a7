/* lanes.h: the models' one lane layer: vectors of doubles (lanes) and the operations the
 * batch kernels are written with, spelled once for every instruction set. Installed as
 * <impactsweep/lanes.h> for plug-ins; with lanes_math.h (sin, cos, log, exp, pow in
 * lanes) and hybrid.h (an integrator of hybrid systems in lanes) it is the models' SDK.
 *
 * As SLEEF keeps one helper header per instruction set and Highway keeps operations
 * apart from the algorithms written with them, the primitives live in one header per
 * instruction set, chosen here by the compiler's target macros:
 *
 *   lanes_avx512.h   AVX-512 F + DQ    8 lanes   masks are mask registers (__mmask8)
 *   lanes_avx2.h     AVX2              4 lanes   masks are vectors of 0 / -1
 *   lanes_sse2.h     SSE2 (x86-64)     2 lanes   masks are vectors of 0 / -1
 *   lanes_generic.h  anything else     2 lanes   plain GCC/Clang vector code
 *
 * and this file adds what is written once from them. Bits: every operation is an
 * elementwise IEEE operation (or moves bits), no operation mixes lanes, and nothing is
 * fused (build with -ffp-contract=off, as the engine and impactsweep::model do), so a
 * lane computes the same bits whatever the instruction set, the width and the other
 * lanes: a point's result is the same in any lane, batch and build. (Keep it so: GCC 12's
 * SLP vectoriser fuses a pair {a b + c, a b - c} into a vfmaddsub even with
 * -ffp-contract=off; write such pairs with additions of negated terms, as the stop
 * oscillator's flows do, and let tools.no_fused_multiply_add check the objects.)
 *
 * The operations (lv_double: LV_WIDTH doubles; lv_int: LV_WIDTH int64s; lv_mask: a lane
 * mask; doubles and ints take C's arithmetic and bitwise operators, lanes are read as
 * x[l]; masks combine with & and |, but are negated with lv_not and read with
 * lv_mask_lane, since their representation depends on the instruction set):
 *
 *   lv_splat(x), lv_zero(), lv_load(p), lv_store(p, v), lv_iload, lv_istore, lv_isplat,
 *   lv_iota() (0, 1, ...: lv_eq(lv_iota(), lv_splat(l)) is lane l's mask)
 *   lv_sel(m, a, b)          m ? a : b, lane by lane (lv_isel for ints)
 *   lv_lt, lv_le, lv_gt, lv_ge, lv_eq   ordered comparisons: false where a lane is NaN
 *   lv_ne                    unordered: true where a lane is NaN (C's !=)
 *   lv_ieq, lv_igt           comparisons of int lanes
 *   lv_not, lv_any, lv_all, lv_mask_bits (lane l in bit l), lv_mask_lane(m, l),
 *   lv_mask_clear(m, l) (lane l off), lv_mask_of(int), lv_mask_from_int (0 / -1 lanes),
 *   lv_int_from_mask
 *   lv_sqrt                  correctly rounded (IEEE), so the same as the scalar sqrt
 *   lv_abs                   the sign bit cleared (NaN stays NaN)
 *   lv_min_nanb(a, b)        a < b ? a : b   NaN in either lane gives b (x86 MINPD)
 *   lv_max_nanb(a, b)        a > b ? a : b   NaN in either lane gives b (x86 MAXPD)
 *   lv_min_num(a, b)         NaN ignored: the other lane's number (C's fmin); both NaN:
 *                            NaN; otherwise a < b ? a : b
 *   lv_max_num(a, b)         the same for the maximum (C's fmax)
 *   lv_keep(m, a), lv_drop(m, a)   m ? a : +0, m ? +0 : a
 *   lv_add_where(m, a, b)    m ? a + b : a, for a not -0 (a masked term, not a select)
 *   lv_imax(a, b)            the larger of two int lanes
 *   lv_gather(table, idx)    table[idx[l]] in lane l (a gather where there is one)
 *   lv_lookup(table, key)    table[j] in each lane where key = LV_LOOKUP_KEY0 +
 *                            j LV_LOOKUP_KEY1 (j < LV_WIDTH), where LV_HAS_LOOKUP is 1
 *
 * GCC warns (-Wpsabi) that passing vectors wider than the baseline ABI's by value changes
 * the ABI between instruction sets: true, and irrelevant to inline code within one build,
 * so the warning is off in the files that include this one. */
#ifndef IMPACTSWEEP_LANES_H
#define IMPACTSWEEP_LANES_H

#include <stdint.h>
#include <string.h>

#if defined(__GNUC__)
#pragma GCC diagnostic ignored "-Wpsabi"
#endif

/* IMPACTSWEEP_LANES_GENERIC, _SSE2 or _AVX2 defined before this header picks a narrower
 * set than the compiler's (the unit tests compare the widths' bits in one build). */
#if defined(IMPACTSWEEP_LANES_GENERIC)
#include "lanes_generic.h"
#elif defined(__AVX512F__) && defined(__AVX512DQ__) && !defined(IMPACTSWEEP_LANES_AVX2) &&  \
    !defined(IMPACTSWEEP_LANES_SSE2)
#include "lanes_avx512.h"
#elif defined(__AVX2__) && !defined(IMPACTSWEEP_LANES_SSE2)
#include "lanes_avx2.h"
#elif defined(__SSE2__)
#include "lanes_sse2.h"
#else
#include "lanes_generic.h"
#endif

/* x in every lane: x - 0 is x for every x (0 + x would turn -0.0 into +0.0), and
 * compilers emit a broadcast. */
static inline lv_double lv_splat(double x)
{
    return x - (lv_double){0};
}

static inline lv_double lv_zero(void)
{
    return (lv_double){0};
}

static inline lv_int lv_isplat(int64_t x)
{
    return x + (lv_int){0};
}

/* Loads and stores of LV_WIDTH doubles (or ints) at any alignment (memcpy compiles to
 * one vector move). */
static inline lv_double lv_load(const double *from)
{
    lv_double v;
    memcpy(&v, from, sizeof v);
    return v;
}

static inline void lv_store(double *to, lv_double v)
{
    memcpy(to, &v, sizeof v);
}

static inline lv_int lv_iload(const int64_t *from)
{
    lv_int v;
    memcpy(&v, from, sizeof v);
    return v;
}

static inline void lv_istore(int64_t *to, lv_int v)
{
    memcpy(to, &v, sizeof v);
}

/* The bits of a lane as the other type (no conversion). */
static inline lv_int lv_as_int(lv_double x)
{
    return (lv_int)x;
}

static inline lv_double lv_as_double(lv_int x)
{
    return (lv_double)x;
}

/* 0, 1, ..., LV_WIDTH - 1: lv_eq(lv_iota(), lv_splat(l)) is the mask of lane l. */
static inline lv_double lv_iota(void)
{
    lv_double v;
    for (int l = 0; l < LV_WIDTH; l++)
        v[l] = l;
    return v;
}

static inline lv_mask lv_mask_of(int all)
{
    return all ? lv_not(lv_mask_none()) : lv_mask_none();
}

static inline int lv_none(lv_mask m)
{
    return !lv_any(m);
}

/* C's fmin and fmax: a NaN lane is ignored where the other is a number. */
static inline lv_double lv_min_num(lv_double a, lv_double b)
{
    return lv_sel(lv_lt(a, b) | lv_ne(b, b), a, b);
}

static inline lv_double lv_max_num(lv_double a, lv_double b)
{
    return lv_sel(lv_gt(a, b) | lv_ne(b, b), a, b);
}

/* sign(s) |a|: a's magnitude with s's sign bit. */
static inline lv_double lv_copysign(lv_double a, lv_double s)
{
    return lv_as_double((lv_as_int(lv_abs(a))) | (lv_as_int(s) & lv_as_int(lv_splat(-0.0))));
}

#endif
