/* chatter_batch.c: the vectorised drop simulator behind the chatter model's eval_batch.
 *
 * Drops run in a pool of LANES lanes held as structure-of-arrays. A round takes up to
 * 32 impacts on every lane, in blocks of BLOCK lanes whose state stays in vector
 * registers for the whole round (PAIR blocks side by side), with masked selects
 * instead of branches. A lane that finishes (lift-off or impact budget) is refilled at
 * the next round boundary from the queue of the batch's drops, so slow and fast drops
 * share the pool. Where the point's certificate gives a region (chatter_region), a drop
 * also pauses every CHATTER_CERTIFY_EVERY impacts of its own (its lane's limit), and at
 * the round boundary its velocity is tested: in the region, it ends as proven CC; else it
 * goes on. So the stop is the same impact whatever the lane and round, and the inner loop
 * does not change.
 * Each drop's arithmetic is elementwise and rescaling is by powers of two, so a drop's
 * result is bitwise the same whatever lane, round or batch it runs in. Per-point
 * reductions run in drop order, for the same reason: finished drops wait in a window of
 * WINDOW slots until every earlier drop has been folded in, so memory does not grow with
 * `samples` (it did: 17 bytes a drop, 842 MB for samples = 5e7). */
#include "../shared/lanes.h"
#include "chatter.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* A multiple of every PAIR * BLOCK below: 3 x 4 (AVX2), 2 x 8 (AVX-512), 2 x 2 (SSE2). */
#define LANES 48
#define NO_DROP SIZE_MAX

/* Drops of a group that may be started beyond its oldest unfinished drop. A lane waits
 * (idles) only while one drop outlives the WINDOW drops started after it, ~WINDOW / LANES
 * = 1365 times the length of the drops around it, which takes budgets beyond ~10^4
 * impacts: a point of 10^6-impact drops followed in one batch by points with 4e6 drops
 * of ~5 impacts ran 8% slower than with unbounded storage (2.79 s against 2.58 s, with
 * 64 lanes), and points whose drops are alike never wait. 17 bytes a slot: 1.1 MiB. */
#define WINDOW (1u << 16)

/* A slot's state: empty, or the drop's outcome + 1, with SLOT_ENERGY_ROSE when it ended
 * with more kinetic energy than it started with (chatter_check_result). */
#define SLOT_EMPTY 0
#define SLOT_ENERGY_ROSE 0x80
#define SLOT_CERTIFIED 0x40 /* CC, stopped in the certificate's region (chatter_region) */
#define SLOT_OUTCOME 0x3f

/* Regions of the points whose drops are in the lanes: each lane and the point whose
 * drops are being started hold one, so LANES + 1 entries are always enough. */
#define REGIONS (LANES + 1)

/* Lanes that reached PCC's gate in a round (chatter_pcc_proven decides at its end): the
 * state before the gate's impact and the pair's vertices. */
typedef struct pcc_gate {
    double q[LANES][3], p[LANES][3];
    int last[LANES], next[LANES];
    uint8_t waiting[LANES]; /* 1: a proof to make before the lane goes on */
} pcc_gate;

struct chatter_workspace {
    /* Lane state: configuration q and velocity p, each scaled by its own power of two. */
    _Alignas(64) double qx[LANES], qy[LANES], qz[LANES];
    _Alignas(64) double px[LANES], py[LANES], pz[LANES];
    _Alignas(64) double last[LANES];     /* vertex hit last, -1 before the first impact */
    _Alignas(64) double impacts[LANES];
    _Alignas(64) double limit[LANES];    /* where the lane pauses: max_impacts of the lane's
                                            drop, or its next checkpoint (certify_pause) */
    _Alignas(64) double time[LANES];     /* accumulated flight time, unscaled */
    _Alignas(64) double tscale[LANES];   /* 2^(q exponent - p exponent) */
    _Alignas(64) double c_rot[LANES], c_h[LANES]; /* impact coefficients, see chatter_apply_impact */
    _Alignas(64) double active[LANES];   /* 1: still simulating, 0: finished or empty */
    _Alignas(64) double lifted[LANES];   /* 1: ended by lift-off */
    _Alignas(64) double pcc[LANES];      /* 1: PCC proven (the drop ended, lane_checkpoint) */
    _Alignas(64) double flat[LANES];     /* 1: the last flight landed flat (the drop ends) */
    _Alignas(64) double armed[LANES];    /* 1: flights are tested for a flat landing */
    pcc_gate gate;                       /* lanes at PCC's gate (the proof) */
    _Alignas(64) int64_t q_exp[LANES], p_exp[LANES]; /* the powers of two taken out */
    double rho2[LANES], gamma[LANES];    /* rho^2 and gamma (the PCC proof) */
    double energy0[LANES];               /* the initial kinetic energy (checks) */
    size_t drop[LANES];                  /* the drop's number in its group, or NO_DROP */
    double budget[LANES];                /* max_impacts of the lane's drop */
    int region[LANES];                   /* its point's entry of regions[] */
    uint8_t certified[LANES];            /* 1: stopped in the region */

    chatter_region regions[REGIONS];     /* the certificates' regions, edges = 0: none */
    int region_refs[REGIONS];            /* lanes (and the point being started) using one */
    chatter_drop_stream stream;          /* what the drops of the point being started share */

    chatter_cone_work *cone;             /* the certificate search's arrays */
    const volatile sig_atomic_t *stop;   /* the run's stop flag, never NULL */

    /* Finished drops waiting to be folded into their point, slot = drop % WINDOW. */
    uint8_t slot_state[WINDOW];
    double slot_impacts[WINDOW];
    double slot_time[WINDOW];
};

/* What chatter_workspace_watch has not been given: a flag that is never set. */
static const volatile sig_atomic_t never_stop = 0;

is_code chatter_workspace_create(void **workspace, is_error *err)
{
    chatter_workspace *ws = aligned_alloc(64, (sizeof *ws + 63) / 64 * 64);
    if (!ws)
        return is_error_set(err, IS_NOMEM, "chatter: cannot allocate the workspace");
    memset(ws, 0, sizeof *ws);
    ws->stop = &never_stop;
    ws->cone = chatter_cone_work_create();
    if (!ws->cone) {
        free(ws);
        return is_error_set(err, IS_NOMEM, "chatter: cannot allocate the cone search");
    }
    *workspace = ws;
    return IS_OK;
}

void chatter_workspace_free(void *workspace)
{
    chatter_workspace *ws = workspace;
    if (!ws)
        return;
    chatter_cone_work_free(ws->cone);
    free(ws);
}

void chatter_workspace_watch(void *workspace, const volatile sig_atomic_t *stop)
{
    chatter_workspace *ws = workspace;
    ws->stop = stop ? stop : &never_stop;
}

/* Rounds between rescalings. An impact shrinks |p| (in the kinetic-energy norm) by at
 * most a factor gamma, and q by about gamma^2, so a round of R impacts keeps both
 * far above the subnormal range (2^-1022) when gamma^(2R) > 2^-500. At most 32: the
 * rescaling, loads and lane bookkeeping of a round were 15 % of the instructions at the
 * bench point with 16; 32 ran 1.06 to 1.09 times as fast there (AVX2, paired runs) and
 * no slower on points of short ICC drops (1.01 to 1.05), as a round ends once all the
 * lanes of its blocks have stopped. */
static int round_length(double gamma_min)
{
    double per_impact = -2.0 * log2(gamma_min) + 1.0;
    int r = (int)(500.0 / per_impact);
    return r < 1 ? 1 : r > 32 ? 32 : r;
}

static int rescale_exponent(double a, double b, double c)
{
    double big = fmax(fabs(a), fmax(fabs(b), fabs(c)));
    if (!(big > 0.0) || !isfinite(big))
        return 0;
    int e;
    frexp(big, &e);
    return e;
}

/* An exponent sum as ldexp's argument: beyond +-4000 ldexp gives 0 or inf anyway. */
static int ldexp_exponent(int64_t e)
{
    return e < -4000 ? -4000 : e > 4000 ? 4000 : (int)e;
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

/* The lane's next pause: its budget, or with a region the next checkpoint of the drop
 * (a multiple of CHATTER_CERTIFY_EVERY impacts), where run_group tests its velocity. */
static void certify_pause(chatter_workspace *ws, int l)
{
    double limit = ws->budget[l];
    if (ws->regions[ws->region[l]].edges > 0) {
        double next = (floor(ws->impacts[l] / CHATTER_CERTIFY_EVERY) + 1.0) *
                      CHATTER_CERTIFY_EVERY;
        limit = fmin(limit, next);
    }
    ws->limit[l] = limit;
}

static void lane_start(chatter_workspace *ws, int l, const double *point, uint64_t sample,
                       size_t drop, int region)
{
    double q0[3], p0[3];
    chatter_drop_state(&ws->stream, sample, q0, p0);
    double rho2 = point[CHATTER_RHO] * point[CHATTER_RHO];
    double gamma = point[CHATTER_GAMMA];
    ws->qx[l] = q0[0];
    ws->qy[l] = q0[1];
    ws->qz[l] = q0[2];
    ws->px[l] = p0[0];
    ws->py[l] = p0[1];
    ws->pz[l] = p0[2];
    ws->q_exp[l] = ws->p_exp[l] = 0;
    ws->last[l] = -1.0;
    ws->impacts[l] = 0.0;
    ws->budget[l] = point[CHATTER_MAX_IMPACTS];
    ws->region[l] = region;
    ws->region_refs[region]++;
    ws->certified[l] = 0;
    certify_pause(ws, l);
    ws->time[l] = 0.0;
    ws->c_rot[l] = (1.0 + gamma) / (1.0 + rho2);
    ws->c_h[l] = (1.0 + gamma) * rho2 / (1.0 + rho2);
    ws->active[l] = 1.0;
    ws->lifted[l] = 0.0;
    ws->pcc[l] = 0.0;
    ws->flat[l] = 0.0;
    ws->armed[l] = chatter_flat_armed((int)point[CHATTER_N], gamma);
    ws->gate.waiting[l] = 0;
    ws->rho2[l] = rho2;
    ws->gamma[l] = gamma;
    ws->energy0[l] = 0.5 * (rho2 * (p0[0] * p0[0] + p0[1] * p0[1]) + p0[2] * p0[2]);
    ws->drop[l] = drop;
    /* rescaled with the lanes already running, by rescale_block before the first impact */
}

/* The traced drop's lane as it stands (chatter_hook). */
static void lane_view(const chatter_workspace *ws, int l, chatter_lane *view)
{
    view->q[0] = ws->qx[l];
    view->q[1] = ws->qy[l];
    view->q[2] = ws->qz[l];
    view->p[0] = ws->px[l];
    view->p[1] = ws->py[l];
    view->p[2] = ws->pz[l];
    view->q_exp = ws->q_exp[l];
    view->p_exp = ws->p_exp[l];
    view->rho2 = ws->rho2[l];
    view->time = ws->time[l];
    view->impacts = ws->impacts[l];
    view->vertex = ws->last[l];
}

/* Puts the lane's finished drop into its slot. Also checks, once per drop, that the
 * kinetic energy 1/2 (rho^2 (p_1^2 + p_2^2) + p_3^2) did not rise: every impact loses
 * (1 - gamma^2) m_eff (f.p)^2 / 2 >= 0 and free flight keeps p, so only rounding (at most
 * a few ulps an impact, hence the allowance of 16 eps per impact) can raise it, while a
 * broken lane (a wrong coefficient, a stale or non-finite state, which the vertex search
 * would otherwise take for a lift-off) raises it by O(1) or makes it NaN. Checking every
 * impact would add work to the hot loop for an identity that tests/unit/test_chatter.c
 * verifies on thousands of random impacts and along whole drops. */
static void lane_finish(chatter_workspace *ws, int l)
{
    size_t slot = ws->drop[l] % WINDOW;
    double p[3] = {ws->px[l], ws->py[l], ws->pz[l]};
    chatter_outcome outcome = ws->pcc[l] != 0.0      ? CHATTER_PCC
                              : ws->flat[l] != 0.0   ? CHATTER_FLAT
                              : ws->lifted[l] != 0.0 ? CHATTER_ICC
                                                     : CHATTER_CC;
    int certified = ws->certified[l] && outcome == CHATTER_CC;
    double scaled = 0.5 * (ws->rho2[l] * (p[0] * p[0] + p[1] * p[1]) + p[2] * p[2]);
    double energy = ldexp(scaled, ldexp_exponent(2 * ws->p_exp[l]));
    double allowed = ws->energy0[l] * (1.0 + 16.0 * DBL_EPSILON * (ws->impacts[l] + 1.0));
    ws->slot_state[slot] = (uint8_t)(1 + outcome) | (certified ? SLOT_CERTIFIED : 0) |
                           (energy <= allowed ? 0 : SLOT_ENERGY_ROSE);
    ws->slot_impacts[slot] = ws->impacts[l];
    ws->slot_time[slot] = ws->time[l];
    ws->drop[l] = NO_DROP;
    ws->region_refs[ws->region[l]]--;
}

/* A lane that has stopped: at PCC's gate (the proof is made here, on the state before
 * the gate's impact), at a checkpoint or at its budget, or because the drop is over.
 * Returns 1 when the drop is over (lifted, PCC, flat, out of budget, or certified), 0 when
 * it goes on: from a gate that the proof did not pass (its state unchanged, so the drop is
 * the same bits as if it had not stopped), or from a checkpoint outside the region. */
static int lane_checkpoint(chatter_workspace *ws, int l, const chatter_geometry *geometry)
{
    pcc_gate *gate = &ws->gate;
    if (gate->waiting[l]) {
        gate->waiting[l] = 0;
        if (chatter_pcc_proven(geometry, ws->rho2[l], ws->gamma[l], gate->last[l],
                               gate->next[l], gate->q[l], gate->p[l])) {
            ws->pcc[l] = 1.0;
            return 1;
        }
    }
    if (ws->lifted[l] != 0.0 || ws->flat[l] != 0.0)
        return 1;
    if (ws->impacts[l] >= ws->limit[l]) { /* a checkpoint, or the budget */
        const chatter_region *region = &ws->regions[ws->region[l]];
        double p[3] = {ws->px[l], ws->py[l], ws->pz[l]};
        if (region->edges > 0 && chatter_region_contains(geometry, region, (int)ws->last[l], p)) {
            ws->certified[l] = 1;
            return 1;
        }
        if (ws->impacts[l] >= ws->budget[l])
            return 1;
    }
    ws->active[l] = 1.0;
    certify_pause(ws, l);
    return 0;
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
static void run_steps(chatter_workspace *ws, const chatter_geometry *geometry, int steps)
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

/* The sums of the point whose drops are being folded in, in drop order. */
typedef struct point_sums {
    size_t point;      /* its index in the batch */
    uint64_t folded;   /* drops folded in so far */
    int64_t tally[CHATTER_OUTCOMES], certified;
    double impacts_sum, impacts_max, time_sum;
    int energy_ok;
} point_sums;

static void sums_start(point_sums *sums, size_t point)
{
    memset(sums, 0, sizeof *sums);
    sums->point = point;
    sums->energy_ok = 1;
}

/* The point's certificate, written before its first drop starts, and its region. */
static void certify(chatter_workspace *ws, const double *point, size_t i, size_t count,
                    double *outputs, chatter_region *region)
{
    int rounds = 0;
    double answer = chatter_point_certificate(point, ws->cone, &rounds, region);
    outputs[CHATTER_CONE * count + i] = answer;
    outputs[CHATTER_CONE_ROUNDS_USED * count + i] = isnan(answer) ? NAN : rounds;
}

/* A free entry of regions[]: one always is (see REGIONS). */
static int region_take(chatter_workspace *ws)
{
    for (int e = 0; e < REGIONS; e++)
        if (ws->region_refs[e] == 0) {
            ws->region_refs[e] = 1;
            return e;
        }
    return -1; /* not reached */
}

/* A point whose drops are all folded in: its outputs and its checks (its certificate was
 * written when its first drop started). */
static void finish_point(const double *points, const point_sums *sums, size_t count,
                         double *outputs, uint8_t *status)
{
    size_t i = sums->point;
    const double *point = points + i * CHATTER_PARAM_COUNT;
    double total = (double)sums->folded;
    for (int k = 0; k < CHATTER_OUTCOMES; k++)
        outputs[chatter_fraction_outputs[k][0] * count + i] = (double)sums->tally[k] / total;
    outputs[CHATTER_P_CERTIFIED * count + i] = (double)sums->certified / total;
    outputs[CHATTER_P_UNDECIDED * count + i] =
        (double)(sums->tally[CHATTER_CC] - sums->certified) / total;
    outputs[CHATTER_IMPACTS_MEAN * count + i] = sums->impacts_sum / total;
    outputs[CHATTER_IMPACTS_MAX * count + i] = sums->impacts_max;
    outputs[CHATTER_TIME_MEAN * count + i] = sums->time_sum / total;
    int regime = CHATTER_ICC;
    for (int k = 1; k < CHATTER_OUTCOMES; k++)
        if (sums->tally[k] > sums->tally[regime])
            regime = k;
    outputs[CHATTER_REGIME * count + i] = regime;
    /* Wilson rather than p +- z sqrt(p (1 - p) / samples): these maps are mostly 0 or 1,
     * where the standard error is 0 and would claim certainty from a handful of drops;
     * Wilson's interval stays inside [0, 1] and still says how far 0 of 100 is from 0. */
    for (int k = 0; k < CHATTER_OUTCOMES; k++) {
        double lo, hi;
        chatter_wilson(sums->tally[k], (int64_t)sums->folded, &lo, &hi);
        outputs[chatter_fraction_outputs[k][1] * count + i] = lo;
        outputs[chatter_fraction_outputs[k][2] * count + i] = hi;
    }
    if (point[CHATTER_N] == 2.0) { /* the rod cannot be PCC: 0 by definition, not by chance */
        outputs[CHATTER_P_PCC_LO * count + i] = 0.0;
        outputs[CHATTER_P_PCC_HI * count + i] = 0.0;
    }
    if (!isfinite(sums->time_sum))
        status[i] = IS_POINT_FAILED_NONFINITE;
    else if (chatter_check_result(point, outputs + i, count, sums->energy_ok))
        status[i] = IS_POINT_FAILED_CHECK;
    else
        status[i] = IS_POINT_DONE;
}

/* Folds finished drops into their points in drop order, as far as they are contiguous;
 * finishes each point whose last drop this was. Returns the first drop not folded. */
static size_t fold(chatter_workspace *ws, const double *points, size_t folded, size_t started,
                   point_sums *sums, size_t count, double *outputs, uint8_t *status)
{
    while (folded < started && ws->slot_state[folded % WINDOW] != SLOT_EMPTY) {
        size_t slot = folded % WINDOW;
        uint8_t state = ws->slot_state[slot];
        ws->slot_state[slot] = SLOT_EMPTY;
        sums->tally[(state & SLOT_OUTCOME) - 1]++;
        sums->certified += (state & SLOT_CERTIFIED) != 0;
        sums->impacts_sum += ws->slot_impacts[slot];
        sums->impacts_max = fmax(sums->impacts_max, ws->slot_impacts[slot]);
        sums->time_sum += ws->slot_time[slot];
        sums->energy_ok &= !(state & SLOT_ENERGY_ROSE);
        folded++;
        if (++sums->folded ==
            (uint64_t)points[sums->point * CHATTER_PARAM_COUNT + CHATTER_SAMPLES]) {
            finish_point(points, sums, count, outputs, status);
            sums_start(sums, sums->point + 1);
        }
    }
    return folded;
}

/* Lanes paused at the end of a round: a drop that ended (or whose checkpoint proved it
 * CC) is finished into its slot, and a traced one's decision passed on. */
static void finish_lanes(chatter_workspace *ws, const chatter_geometry *geometry,
                         chatter_hook *hook)
{
    for (int l = 0; l < LANES; l++)
        if (ws->drop[l] != NO_DROP && ws->active[l] == 0.0 && lane_checkpoint(ws, l, geometry)) {
            size_t drop = ws->drop[l];
            lane_finish(ws, l);
            if (hook && l == hook->lane) { /* the traced drop: its decision, as folded */
                chatter_lane view;
                lane_view(ws, l, &view);
                chatter_hook_finish(hook, &view, ws->slot_state[drop % WINDOW]);
            }
        }
}

/* A round while a drop is traced: one impact, passed on to the hook (rounds change no
 * bit of a drop, see the top of this file). */
static void step_traced(chatter_workspace *ws, const chatter_geometry *geometry,
                        chatter_hook *hook)
{
    int l = hook->lane;
    run_steps(ws, geometry, 1);
    if (ws->impacts[l] != hook->impacts) {
        chatter_lane view;
        lane_view(ws, l, &view);
        chatter_hook_impact(hook, &view);
    }
}

/* Simulates every drop of points[first .. first + count), which share one n, and
 * finishes each point as its last drop is folded in. Returns 0, or 1 when the stop flag
 * ended it early: then the points not finished are left as they were (pending). */
static int run_group(chatter_workspace *ws, const double *points, size_t first, size_t count,
                     size_t batch_count, double *outputs, uint8_t *status, chatter_hook *hook)
{
    chatter_geometry geometry;
    chatter_geometry_init(&geometry, (int)points[first * CHATTER_PARAM_COUNT + CHATTER_N]);
    double gamma_min = 1.0;
    for (size_t i = first; i < first + count; i++)
        gamma_min = fmin(gamma_min, points[i * CHATTER_PARAM_COUNT + CHATTER_GAMMA]);
    const int steps = round_length(gamma_min);

    size_t next_point = first;
    uint64_t next_sample = 0;
    size_t started = 0, folded = 0; /* drops of the group: started, folded into a point */
    point_sums sums;
    sums_start(&sums, first);
    for (int l = 0; l < LANES; l++) {
        ws->drop[l] = NO_DROP;
        ws->active[l] = 0.0;
    }
    for (int e = 0; e < REGIONS; e++)
        ws->region_refs[e] = 0;
    int region = -1; /* the entry of the point whose drops are being started */
    for (;;) {
        /* One load a round (at most LANES x 32 impacts): nothing against the round. */
        if (*ws->stop || (hook && hook->failure != IS_OK)) {
            for (size_t d = folded; d < started; d++) /* leave the window empty */
                ws->slot_state[d % WINDOW] = SLOT_EMPTY;
            return 1;
        }
        finish_lanes(ws, &geometry, hook);
        folded = fold(ws, points, folded, started, &sums, batch_count, outputs, status);
        int busy = 0;
        for (int l = 0; l < LANES; l++) {
            if (ws->drop[l] == NO_DROP && next_point < first + count &&
                started < folded + WINDOW) {
                const double *point = points + next_point * CHATTER_PARAM_COUNT;
                if (next_sample == 0) { /* the point's certificate, before its first drop */
                    if (region >= 0)
                        ws->region_refs[region]--;
                    region = region_take(ws);
                    certify(ws, point, next_point, batch_count, outputs, &ws->regions[region]);
                    chatter_drop_stream_of(point, &ws->stream);
                }
                lane_start(ws, l, point, next_sample, started++, region);
                if (hook && next_point == hook->point && next_sample == hook->drop) {
                    chatter_lane view;
                    lane_view(ws, l, &view);
                    chatter_hook_start(hook, l, &view);
                }
                if (++next_sample == (uint64_t)point[CHATTER_SAMPLES]) {
                    next_sample = 0;
                    next_point++;
                }
            }
            busy |= ws->drop[l] != NO_DROP;
        }
        if (!busy)
            return 0;
        if (!hook || hook->lane < 0)
            run_steps(ws, &geometry, steps);
        else
            step_traced(ws, &geometry, hook);
    }
}

is_code chatter_eval_batch(void *workspace, const double *points, size_t count,
                           double *outputs, uint8_t *status, is_error *err)
{
    (void)err; /* nothing is allocated per batch any more */
    chatter_evaluate(workspace, points, count, outputs, status, NULL);
    return IS_OK;
}

void chatter_evaluate(void *workspace, const double *points, size_t count, double *outputs,
                      uint8_t *status, chatter_hook *hook)
{
    chatter_workspace *ws = workspace;
    for (size_t i = 0; i < count; i++)
        status[i] = IS_POINT_PENDING;
    for (size_t first = 0; first < count;) {
        /* Lanes share the vertex table, so a group is a run of points with one n. */
        size_t end = first + 1;
        while (end < count && points[end * CHATTER_PARAM_COUNT + CHATTER_N] ==
                                  points[first * CHATTER_PARAM_COUNT + CHATTER_N])
            end++;
        if (run_group(ws, points, first, end - first, count, outputs, status, hook))
            break;
        first = end;
    }
    /* Stopped: what is not finished reads as not computed, whatever was half written. */
    for (size_t i = 0; i < count; i++)
        if (status[i] == IS_POINT_PENDING)
            for (int o = 0; o < CHATTER_OUTPUT_COUNT; o++)
                outputs[o * count + i] = NAN;
}
