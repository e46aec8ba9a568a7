/* lanes_generic.h: lanes.h's primitives in plain GCC/Clang vector code, for targets
 * without one of the x86 headers (aarch64, ppc64le, ...): 2 lanes; masks are vectors of
 * 0 / -1 lanes; the compiler picks the instructions. The same bits as the others: the
 * operations are the same IEEE ones. Included by lanes.h only. */
#ifndef IMPACTSWEEP_LANES_GENERIC_H
#define IMPACTSWEEP_LANES_GENERIC_H

#include <math.h>

#define LV_WIDTH 2
#define LV_ISA "generic"

typedef double lv_double __attribute__((vector_size(16)));
typedef int64_t lv_int __attribute__((vector_size(16)));
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
static inline int lv_mask_bits(lv_mask m) { return (m[0] != 0) | (m[1] != 0) << 1; }
static inline int lv_any(lv_mask m) { return (m[0] | m[1]) != 0; }
static inline int lv_all(lv_mask m) { return (m[0] & m[1]) != 0; }
static inline int lv_mask_lane(lv_mask m, int l) { return m[l] != 0; }
static inline lv_mask lv_mask_clear(lv_mask m, int l)
{
    m[l] = 0;
    return m;
}

static inline lv_double lv_sel(lv_mask m, lv_double a, lv_double b)
{
    return (lv_double)(((lv_int)a & m) | ((lv_int)b & ~m));
}

static inline lv_int lv_isel(lv_mask m, lv_int a, lv_int b)
{
    return (a & m) | (b & ~m);
}

static inline lv_double lv_sqrt(lv_double x)
{
    for (int l = 0; l < 2; l++)
        x[l] = sqrt(x[l]);
    return x;
}

static inline lv_double lv_abs(lv_double a)
{
    return (lv_double)((lv_int)a & INT64_MAX);
}

static inline lv_double lv_min_nanb(lv_double a, lv_double b)
{
    return lv_sel((lv_mask)(a < b), a, b);
}

static inline lv_double lv_max_nanb(lv_double a, lv_double b)
{
    return lv_sel((lv_mask)(a > b), a, b);
}

static inline lv_double lv_keep(lv_mask m, lv_double a)
{
    return (lv_double)((lv_int)a & m);
}

static inline lv_double lv_drop(lv_mask m, lv_double a)
{
    return (lv_double)((lv_int)a & ~m);
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

#define LV_HAS_LOOKUP 0
#define LV_LOOKUP_KEY0 0.0
#define LV_LOOKUP_KEY1 1.0
static inline lv_double lv_lookup(lv_double table, lv_double key) /* not there: no lookup */
{
    (void)key;
    return table;
}

/* table[idx[l]] in each lane (0 <= idx < the table's length): a load a lane, which the
 * compiler may turn into a gather; a table's entries are the same bits in every width. */
static inline lv_double lv_gather(const double *table, lv_int idx)
{
    lv_double v;
    for (int l = 0; l < LV_WIDTH; l++)
        v[l] = table[idx[l]];
    return v;
}

#endif
