/* chatter_round.c: a round of the chatter model's drop simulator (chatter_batch.c): up
 * to 32 impacts on every active lane of the pool, in blocks of LV_WIDTH lanes whose
 * state stays in vector registers (PAIR blocks side by side), written with the lane
 * layer (../shared/lanes.h): the vertex search, the impact law, the PCC gate and the
 * flat landing as masked selects, and the rescaling by powers of two that keeps a
 * drop's state far from the subnormals. Every operation is elementwise IEEE
 * arithmetic, so a lane computes the same bits as the scalar reference whatever the
 * lane, round, batch or instruction set. */
#include "../shared/lanes.h"
#include "chatter_pool.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static int rescale_exponent(double a, double b, double c)
{
    double big = fmax(fabs(a), fmax(fabs(b), fabs(c)));
    if (!(big > 0.0) || !isfinite(big))
        return 0;
    int e;
    frexp(big, &e);
    return e;
}

static void lane_rescale(chatter_workspace *ws, int l)
{
    int eq = rescale_exponent(ws->qx[l], ws->qy[l], ws->qz[l]);
    int ep = rescale_exponent(ws->px[l], ws->py[l], ws->pz[l]);
    ws->qx[l] = ldexp(ws->qx[l], -eq);
    ws->qy[l] = ldexp(ws->qy[l], -eq);
    ws->qz[l] = ldexp(ws->qz[l], -eq);
    ws->px[l] = ldexp(ws->px[l], -ep);
    ws->py[l] = ldexp(ws->py[l], -ep);
    ws->pz[l] = ldexp(ws->pz[l], -ep);
    ws->q_exp[l] += eq;
    ws->p_exp[l] += ep;
    ws->tscale[l] = ldexp(1.0, ldexp_exponent(ws->q_exp[l] - ws->p_exp[l]));
}

/* Lanes whose state stays in registers while they run a round: one vector of doubles
 * (lanes.h: 8 with AVX-512, 4 with AVX2, 2 with SSE2; wider than the registers, the
 * blocks spill: 8 lanes on SSE2 ran at a third of the speed of the plain loops before).
 * A block's state is loaded once a round and stored once, instead of every lane array
 * streaming through memory once per vertex per impact (that loop was load/store bound at
 * 1.4e8 impacts/s on AVX-512). With plain arrays GCC 12 kept the block on the stack and
 * formed the masks in general registers; the lane layer's masks are AVX-512's mask
 * registers where it has them (through vectors GCC 12 made a select of two xors and
 * x > 0 ? x : 0 of a compare and a select: 2.46e8 impacts/s against 3.3e8 after), its
 * selects BLENDVPD with AVX2 (1.65e8 against 1.20e8 with and/andnot/or), its masked
 * moves ANDPD rather than the integer VPAND (on Zen 2 a double passed through an integer
 * operation is 2 cycles later, and these are on the chain from one impact to the next).
 * Every operation is elementwise IEEE arithmetic, so a lane computes the same bits as
 * the scalar reference, whatever the width. */
#define BLOCK LV_WIDTH
#if defined(__GNUC__)
#define UNLIKELY(x) __builtin_expect(!!(x), 0)
#else
#define UNLIKELY(x) (x)
#endif

/* Vertex j's key: the index itself where there is no lookup, else the lookup's operand
 * (see lv_lookup). Exact both ways for j in [-1, BLOCK), -1 (no vertex) included. */
static inline lv_double vkey(lv_double j)
{
    return j * LV_LOOKUP_KEY1 + LV_LOOKUP_KEY0;
}

static inline lv_double vindex(lv_double key)
{
    return (key - LV_LOOKUP_KEY0) / LV_LOOKUP_KEY1;
}

/* The state of a block's lanes through a round (masks where the workspace holds 0/1);
 * last is the key of the vertex hit last (vkey). */
typedef struct block_state {
    lv_double qx, qy, qz, px, py, pz, last, impacts, time;
    lv_mask active, lifted;
    int armed; /* some lane of the block is armed for the flat-landing test (ws->armed) */
} block_state;

/* The vertex hit next, per lane: the flight time num/den (compared as cross products,
 * so that there is one division per impact, not per vertex), its key and its normal. */
typedef struct block_target {
    lv_double num, fp, fx, fy, key; /* fp = f.p = -den */
} block_target;

/* How the search gets a vertex's f.p and f.q, and the normal of the vertex found. */
enum {
    SEARCH_SQUARE = 1, /* n = 4, normals (0, -1), (1, 0), (0, 1), (-1, 0): see vertex_dot */
    SEARCH_LOOKUP = 2  /* the normal found is looked up (lv_lookup, n <= BLOCK), not carried */
};

/* f_j.v = fx v_x + fy v_y + v_z, the reference's expression. For the square, products
 * by +-1 are exact and one by 0 only adds a zero, so the sums below are its bits (but
 * for the sign of an exact zero, which neither fp < 0, |fp| nor max(fq, 0) sees): no
 * multiplication, where multiplications and selects compete for two of Zen 2's ports. */
static inline lv_double vertex_dot(const chatter_geometry *geometry, int j, int mode, lv_double x,
                                   lv_double y, lv_double z)
{
    if (mode & SEARCH_SQUARE)
        return j == 0 ? z - y : j == 1 ? x + z : j == 2 ? y + z : z - x;
    return lv_splat(geometry->fx[j]) * x + lv_splat(geometry->fy[j]) * y + z;
}

/* Vertex j (key `key`) as a candidate for the block's next impact: its f.p and the
 * numerator of its flight time, max(f.q, 0). The kernel's test is fp < 0 && num t.den <
 * t.num den (den = -fp), here negated on both sides of the comparison (negation is
 * exact, so these are its bits). fp < 0 is implied: num and t.num are >= 0 and t.fp <= 0
 * (it starts at -0.0 and takes only such fp), so for fp >= 0 the left side is <= 0 <= the
 * right side, and NaN fails. So the vertex hit last is left out by making its fp +0,
 * off the chain of dependences from one vertex to the next, where a mask operation was
 * on it. */
static inline void vertex_candidate(const block_state *b, const chatter_geometry *geometry, int j,
                                    lv_double key, int mode, lv_double *fp, lv_double *num)
{
    *fp = lv_drop(lv_eq(b->last, key), vertex_dot(geometry, j, mode, b->px, b->py, b->pz));
    *num = lv_max_nanb(vertex_dot(geometry, j, mode, b->qx, b->qy, b->qz), lv_zero());
}

/* Vertex 0 against the start, num 1 and fp -0.0 ("infinitely far"): the test is
 * num * -0.0 > fp. Where it fails, fp +0 is the same start (no test sees the sign of that
 * zero), and the key and normal of a lane that takes no vertex are never used: so no
 * selects but the one of num. */
static inline void target_first(const block_state *b, block_target *t,
                                const chatter_geometry *geometry, lv_double key, int mode)
{
    lv_double fp, num;
    vertex_candidate(b, geometry, 0, key, mode, &fp, &num);
    lv_mask take = lv_gt(num * lv_splat(-0.0), fp);
    t->num = lv_sel(take, num, lv_splat(1.0));
    t->fp = lv_keep(take, fp);
    t->key = key;
    t->fx = lv_splat(geometry->fx[0]);
    t->fy = lv_splat(geometry->fy[0]);
}

/* Vertex j > 0 against the nearest so far. */
static inline void target_consider(const block_state *b, block_target *t,
                                   const chatter_geometry *geometry, int j, lv_double key,
                                   int mode)
{
    lv_double fp, num;
    vertex_candidate(b, geometry, j, key, mode, &fp, &num);
    lv_mask take = lv_gt(num * t->fp, t->num * fp);
    t->num = lv_sel(take, num, t->num);
    t->fp = lv_sel(take, fp, t->fp);
    t->key = lv_sel(take, key, t->key);
    if (!(mode & SEARCH_LOOKUP)) {
        t->fx = lv_sel(take, lv_splat(geometry->fx[j]), t->fx);
        t->fy = lv_sel(take, lv_splat(geometry->fy[j]), t->fy);
    }
}

/* Blocks run in pairs (or threes): one block's impact is a chain of dependent operations
 * (the vertex search, then a division), so alone it leaves the vector units waiting;
 * two independent chains fill them (AVX-512: 2.46e8 impacts/s against 2.19e8; four: no
 * better. AVX2, bench point, paired runs against two blocks: one 0.69 times as fast,
 * three 1.027, four 1.01). */
#ifndef PAIR
#if defined(__AVX2__) && !(defined(__AVX512F__) && defined(__AVX512DQ__))
#define PAIR 3
#else
#define PAIR 2
#endif
#endif
_Static_assert(LANES % (PAIR * BLOCK) == 0, "lanes come in whole groups of blocks");
#if defined(__GNUC__) && !defined(__clang__)
#define UNROLL_BLOCKS _Pragma("GCC unroll 8")
#else
#define UNROLL_BLOCKS
#endif

/* Lane-invariant data of a round. */
typedef struct round_const {
    const chatter_geometry *geometry;
    lv_double fx_table, fy_table; /* fx, fy of vertices 0..BLOCK-1 (SEARCH_LOOKUP) */
} round_const;

/* The vertex search of the PAIR blocks side by side, vertex by vertex, so that their
 * independent chains of selects overlap. */
static inline void pair_search(const block_state b[PAIR], block_target t[PAIR],
                               const round_const *r, int mode)
{
    const chatter_geometry *geometry = r->geometry;
    const int n = mode & SEARCH_SQUARE ? 4 : geometry->n;
    lv_double key = vkey(lv_splat(0.0)); /* counted in a register */
    UNROLL_BLOCKS
    for (int h = 0; h < PAIR; h++)
        target_first(&b[h], &t[h], geometry, key, mode);
    key += LV_LOOKUP_KEY1;
    for (int j = 1; j < n; j++, key += LV_LOOKUP_KEY1) {
        UNROLL_BLOCKS
        for (int h = 0; h < PAIR; h++)
            target_consider(&b[h], &t[h], geometry, j, key, mode);
    }
    if (mode & SEARCH_LOOKUP) {
        UNROLL_BLOCKS
        for (int h = 0; h < PAIR; h++) {
            t[h].fx = lv_lookup(r->fx_table, t[h].key);
            t[h].fy = lv_lookup(r->fy_table, t[h].key);
        }
    }
}

/* Lane-invariant data of a block during a round. */
typedef struct block_const {
    lv_double limit, tscale, c_rot, c_h, wrap; /* wrap: key difference of vertices 0, n - 1 */
    lv_double pcc_tolerance; /* CHATTER_PCC_TOLERANCE, or 0 for the rod (never PCC) */
    pcc_gate *gate;        /* where lanes at PCC's gate keep their state */
    double *flat, *armed;  /* the block's lanes' flags (chatter_workspace), in memory */
    int base;              /* the block's first lane */
} block_const;

/* f_last.p of the vertex hit last, as the search evaluates it, for the lanes where
 * there is one. Asked for only on the rare impacts that may be PCC, so not carried
 * through the search (that was a select per vertex). */
static lv_double last_fp(const block_state *b, const round_const *r, int mode)
{
    if (mode & SEARCH_LOOKUP)
        return lv_lookup(r->fx_table, b->last) * b->px + lv_lookup(r->fy_table, b->last) * b->py +
               b->pz;
    lv_double fp = lv_splat(0.0), j = vindex(b->last);
    for (int l = 0; l < BLOCK; l++)
        if (j[l] >= 0.0) {
            int v = (int)j[l];
            fp[l] = r->geometry->fx[v] * b->px[l] + r->geometry->fy[v] * b->py[l] + b->pz[l];
        }
    return fp;
}

/* PCC's gate: the vertex hit last and the one about to be hit (key) are adjacent and
 * both nearly at rest (see pcc_before_impact in chatter_geometry.c). */
static lv_mask pcc_pair(const block_state *b, const block_const *k, const round_const *r,
                        lv_double key, lv_double threshold, int mode)
{
    lv_double step = lv_abs(key - b->last);
    lv_mask adjacent = lv_ge(b->last, lv_splat(LV_LOOKUP_KEY0)) &
                       (lv_eq(step, lv_splat(LV_LOOKUP_KEY1)) | lv_eq(step, k->wrap));
    return adjacent & lv_lt(lv_abs(last_fp(b, r, mode)), threshold);
}

/* A lane at PCC's gate keeps its state from before the impact (and the vertices of the
 * pair) for the proof at the end of the round (lane_checkpoint): plain stores, no call,
 * for a call in this loop makes the compiler keep the blocks' state in memory (all vector
 * registers are the caller's to save): the bench point ran 17-23 % slower. */
static inline void gate_save(pcc_gate *g, int base, lv_mask gate, const block_state *b,
                             lv_double qz, lv_double next)
{
    lv_double last = vindex(b->last), vertex = vindex(next);
    for (int l = 0; l < BLOCK; l++)
        if (lv_mask_lane(gate, l)) {
            int at = base + l;
            g->q[at][0] = b->qx[l], g->q[at][1] = b->qy[l], g->q[at][2] = qz[l];
            g->p[at][0] = b->px[l], g->p[at][1] = b->py[l], g->p[at][2] = b->pz[l];
            g->last[at] = (int)last[l], g->next[at] = (int)vertex[l], g->waiting[at] = 1;
        }
}

/* Which lanes of the block the impact found hits, and its flight time: the division,
 * begun for every block of the pair before any block's update uses it. */
typedef struct block_hit {
    lv_mask on, hit;
    lv_double den, dt;
} block_hit;

static inline block_hit block_hit_of(const block_state *b, const block_target *t)
{
    block_hit h = {.on = b->active, .den = -t->fp};
    h.hit = h.on & lv_lt(t->fp, (lv_double){0}); /* den > 0 */
    h.dt = t->num / h.den;
    return h;
}

/* The impact found by the search on every active lane of the block. Same arithmetic
 * as chatter_drop_reference (p - c fp f as p + c den f, den = -fp: negation is exact);
 * a lane that is not active is left as it is. Updates are masked sums (lv_add_where),
 * which leave every component but -0 as it is, and no component of a lane's state is
 * ever -0: the initial states have none (lane_start: +0 or nonzero), rescaling keeps
 * signs, and a sum or difference of two numbers is -0 only if one already is. */
static inline void block_update(block_state *b, const block_const *k, const round_const *r,
                                const block_target *t, const block_hit *h, int mode)
{
    const lv_mask hit = h->hit;
    const lv_double den = h->den, dt = h->dt, qz = b->qz;
    /* The PCC decision only where the vertex about to be hit is that slow, which CC drops
     * never are: the same mask, for a third of the operations. The test den < threshold as
     * fp > -threshold, -threshold = tolerance p_3 where p_3 < 0 (every lane hit: else it
     * had lifted off; NaN fails), which is -(tolerance |p_3|) bit for bit; for the rod the
     * tolerance is 0 and no fp > -0. Such a lane is armed for the flat-landing test below
     * from then on; at the gate (where the proof is asked for, on the state before this
     * impact) it keeps that state. Only memory is written here, so that the round's
     * registers stay as they were without this branch. */
    lv_double neg_threshold = k->pcc_tolerance * b->pz;
    lv_mask slow = hit & lv_gt(t->fp, neg_threshold);
    if (UNLIKELY(lv_any(slow))) {
        for (int l = 0; l < BLOCK; l++)
            if (lv_mask_lane(slow, l))
                k->armed[l] = 1.0;
        b->armed = 1;
        lv_mask gate = slow & pcc_pair(b, k, r, t->key, -neg_threshold, mode);
        if (lv_any(gate))
            gate_save(k->gate, k->base, gate, b, qz, t->key);
    }
    b->qx = lv_add_where(hit, b->qx, dt * b->px);
    b->qy = lv_add_where(hit, b->qy, dt * b->py);
    b->qz = lv_add_where(hit, qz, dt * b->pz);
    b->px = lv_add_where(hit, b->px, k->c_rot * den * t->fx);
    b->py = lv_add_where(hit, b->py, k->c_rot * den * t->fy);
    b->pz = lv_add_where(hit, b->pz, k->c_h * den);
    b->impacts = lv_add_where(hit, b->impacts, lv_splat(1.0));
    b->time = lv_add_where(hit, b->time, dt * k->tscale);
    b->last = lv_sel(hit, t->key, b->last);
    /* Lift-off where no vertex was hit or p_3 >= 0 after the impact (NaN goes on). */
    lv_mask stay = hit & lv_not(lv_ge(b->pz, (lv_double){0}));
    b->lifted |= h->on & lv_not(stay);
    b->active = stay & lv_lt(b->impacts, k->limit);
    /* Armed lanes (chatter_flat_armed; a branch on one integer a block, where the test on
     * every flight was 3 % of the bench point's time): a flat landing (chatter_lands_flat)
     * ends the drop with this impact, and a lane at PCC's gate stops after it, for the
     * proof at the round's end. Not masked by hit: every lane that holds a drop has
     * q_3 > 0 (it is at the start, and a flight that leaves it <= 0 lands flat), so a lane
     * not hit, q_3 unchanged, never passes. */
    if (UNLIKELY(b->armed)) {
        lv_mask landed = lv_le(b->qz, qz * lv_splat(CHATTER_FLAT_RATIO));
        for (int l = 0; l < BLOCK; l++) {
            int flat = lv_mask_lane(landed, l) && k->armed[l] != 0.0;
            if (flat)
                k->flat[l] = 1.0;
            if (flat || k->gate->waiting[k->base + l])
                b->active = lv_mask_clear(b->active, l);
        }
    }
}

/* The impacts found by the search on every active lane of the pair's blocks: the
 * divisions of all blocks first, then the updates (with the blocks' updates one after
 * the other, the second block's division began late: 5 % slower on Zen 2). Returns the
 * lanes still active. */
static inline lv_mask pair_update(block_state b[PAIR], const block_const k[PAIR],
                                  const round_const *r, const block_target t[PAIR], int mode)
{
    block_hit h[PAIR];
    lv_mask any = lv_mask_of(0);
    UNROLL_BLOCKS
    for (int i = 0; i < PAIR; i++)
        h[i] = block_hit_of(&b[i], &t[i]);
    UNROLL_BLOCKS
    for (int i = 0; i < PAIR; i++) {
        block_update(&b[i], &k[i], r, &t[i], &h[i], mode);
        any |= b[i].active;
    }
    return any;
}

/* The vector path of lane_rescale for v = (x, y, z): frexp's exponent of the largest
 * |component| read from its bits, and multiplication by 2^-exponent, exact (or rounded
 * as ldexp rounds). Returns the lanes of `todo` it cannot take: a largest component that
 * is zero, subnormal, infinite or NaN; they are left as they were. */
static inline lv_mask rescale_vector(lv_double *x, lv_double *y, lv_double *z, int64_t *exponent,
                                     lv_mask todo)
{
    lv_int e = lv_imax((lv_int)lv_abs(*x) >> 52,
                       lv_imax((lv_int)lv_abs(*y) >> 52, (lv_int)lv_abs(*z) >> 52));
    /* normal, and 2^-e */
    lv_mask ok = todo & lv_mask_from_int((lv_int)(e >= 1) & (lv_int)(e <= 2044));
    /* biased exponent e: frexp gives e - 1022, whose inverse has the bits (2045 - e) << 52 */
    lv_double factor = lv_sel(ok, (lv_double)((2045 - e) << 52), lv_splat(1.0));
    *x *= factor;
    *y *= factor;
    *z *= factor;
    lv_int taken = (lv_int)lv_sel(ok, (lv_double)(e - 1022), (lv_double){0}); /* bits, selected */
    lv_store((double *)exponent, (lv_double)(lv_iload(exponent) + taken));
    return todo & lv_not(ok);
}

/* 2^k as lane_rescale's ldexp(1.0, k) gives it, from its bits: normal, subnormal
 * (k >= -1074), 0 below and infinity above. Under complete chatter q shrinks much faster
 * than p, so after a few thousand impacts the time scale of a drop is subnormal and then
 * 0: every round sent such lanes to lane_rescale (ldexp and frexp, scalar), and drops of
 * 10^4 impacts ran at half the rate of drops of 200. */
static inline lv_double vpow2(lv_int k)
{
    lv_int normal = (k + 1023) << 52, subnormal = ((lv_int){0} + 1) << ((k + 1074) & 63);
    lv_int infinite = (lv_int){0} + 0x7ff0000000000000;
    return (lv_double)((normal & (lv_int)(k >= -1022) & (lv_int)(k <= 1023)) |
                       (subnormal & (lv_int)(k >= -1074) & (lv_int)(k < -1022)) |
                       (infinite & (lv_int)(k > 1023)));
}

/* lane_rescale on every active lane of the block at `base`, vectorised where exact;
 * lanes left over go to lane_rescale, which redoes an exact rescaling as a no-op. */
static void rescale_block(chatter_workspace *ws, int base)
{
    lv_mask active = lv_ne(lv_load(ws->active + base), (lv_double){0});
    lv_double qx = lv_load(ws->qx + base), qy = lv_load(ws->qy + base), qz = lv_load(ws->qz + base);
    lv_double px = lv_load(ws->px + base), py = lv_load(ws->py + base), pz = lv_load(ws->pz + base);
    lv_mask slow = rescale_vector(&qx, &qy, &qz, ws->q_exp + base, active);
    slow |= rescale_vector(&px, &py, &pz, ws->p_exp + base, active & lv_not(slow));
    lv_store(ws->qx + base, qx), lv_store(ws->qy + base, qy), lv_store(ws->qz + base, qz);
    lv_store(ws->px + base, px), lv_store(ws->py + base, py), lv_store(ws->pz + base, pz);
    lv_int k = lv_iload(ws->q_exp + base) - lv_iload(ws->p_exp + base);
    lv_store(ws->tscale + base, vpow2(k));
    if (lv_any(slow))
        for (int l = 0; l < BLOCK; l++)
            if (lv_mask_lane(slow, l))
                lane_rescale(ws, base + l);
}

static inline block_state block_load(const chatter_workspace *ws, int base)
{
    int armed = 0;
    for (int l = 0; l < BLOCK; l++)
        armed |= ws->armed[base + l] != 0.0;
    return (block_state){
        .armed = armed,
        .qx = lv_load(ws->qx + base), .qy = lv_load(ws->qy + base), .qz = lv_load(ws->qz + base),
        .px = lv_load(ws->px + base), .py = lv_load(ws->py + base), .pz = lv_load(ws->pz + base),
        .last = vkey(lv_load(ws->last + base)), .impacts = lv_load(ws->impacts + base),
        .time = lv_load(ws->time + base),
        .active = lv_ne(lv_load(ws->active + base), (lv_double){0}),
        .lifted = lv_ne(lv_load(ws->lifted + base), (lv_double){0}),
        };
}

static block_const block_constants(chatter_workspace *ws, int base,
                                   const chatter_geometry *geometry)
{
    return (block_const){.limit = lv_load(ws->limit + base), .tscale = lv_load(ws->tscale + base),
                         .c_rot = lv_load(ws->c_rot + base), .c_h = lv_load(ws->c_h + base),
                         .wrap = lv_splat((geometry->n - 1) * LV_LOOKUP_KEY1),
                         .pcc_tolerance = lv_splat(geometry->n >= 3 ? CHATTER_PCC_TOLERANCE : 0.0),
                         .gate = &ws->gate, .flat = ws->flat + base,
                         .armed = ws->armed + base, .base = base};
}

static inline void block_store(chatter_workspace *ws, int base, const block_state *b)
{
    const lv_double zero = lv_splat(0.0), one = lv_splat(1.0);
    lv_store(ws->qx + base, b->qx), lv_store(ws->qy + base, b->qy), lv_store(ws->qz + base, b->qz);
    lv_store(ws->px + base, b->px), lv_store(ws->py + base, b->py), lv_store(ws->pz + base, b->pz);
    lv_store(ws->last + base, vindex(b->last)), lv_store(ws->impacts + base, b->impacts);
    lv_store(ws->time + base, b->time), lv_store(ws->active + base, lv_sel(b->active, one, zero));
    lv_store(ws->lifted + base, lv_sel(b->lifted, one, zero));
}


#if defined(__GNUC__)
#define ALWAYS_INLINE inline __attribute__((always_inline))
#else
#define ALWAYS_INLINE inline
#endif

/* The round of the PAIR blocks at `base`, each block's state held in registers for
 * the whole round, with the search `mode` (a constant where this is inlined). The
 * round ends early once no lane of the pair is active (an inactive lane would not
 * change). */
static ALWAYS_INLINE void pair_round(chatter_workspace *ws, const round_const *r, int base,
                                     int steps, int mode)
{
    block_state b[PAIR];
    block_const k[PAIR];
    lv_mask any = lv_mask_of(0);
    UNROLL_BLOCKS
    for (int h = 0; h < PAIR; h++) {
        rescale_block(ws, base + h * BLOCK);
        b[h] = block_load(ws, base + h * BLOCK);
        k[h] = block_constants(ws, base + h * BLOCK, r->geometry);
        any |= b[h].active;
    }
    for (int s = 0; s < steps && lv_any(any); s++) {
        block_target t[PAIR];
        pair_search(b, t, r, mode);
        any = pair_update(b, k, r, t, mode);
    }
    UNROLL_BLOCKS
    for (int h = 0; h < PAIR; h++)
        block_store(ws, base + h * BLOCK, &b[h]);
}

static int search_mode(const chatter_geometry *geometry)
{
    static const double square_fx[4] = {0.0, 1.0, 0.0, -1.0}, square_fy[4] = {-1.0, 0.0, 1.0, 0.0};
    int square = geometry->n == 4;
    for (int j = 0; square && j < 4; j++)
        square = geometry->fx[j] == square_fx[j] && geometry->fy[j] == square_fy[j];
    return (square ? SEARCH_SQUARE : 0) |
           (LV_HAS_LOOKUP && geometry->n <= BLOCK ? SEARCH_LOOKUP : 0);
}

/* A round of `steps` impacts on every active lane, PAIR blocks at a time, with the
 * search made for the geometry. */
void chatter_run_steps(chatter_workspace *ws, const chatter_geometry *geometry, int steps)
{
    double fx[BLOCK] = {0}, fy[BLOCK] = {0};
    for (int j = 0; j < geometry->n && j < BLOCK; j++) {
        fx[j] = geometry->fx[j];
        fy[j] = geometry->fy[j];
    }
    const round_const r = {.geometry = geometry, .fx_table = lv_load(fx), .fy_table = lv_load(fy)};
    const int mode = search_mode(geometry);
    for (int base = 0; base < LANES; base += PAIR * BLOCK)
        switch (mode) {
        case SEARCH_SQUARE | SEARCH_LOOKUP:
            pair_round(ws, &r, base, steps, SEARCH_SQUARE | SEARCH_LOOKUP);
            break;
        case SEARCH_SQUARE:
            pair_round(ws, &r, base, steps, SEARCH_SQUARE);
            break;
        case SEARCH_LOOKUP:
            pair_round(ws, &r, base, steps, SEARCH_LOOKUP);
            break;
        default:
            pair_round(ws, &r, base, steps, 0);
        }
}
