/* stop_lanes.c: eval_batch's points run in lanes. Each lane holds one point's run
 * (stop_run, stop_sim.c). A round, for all lanes at once as vectors of BLOCK doubles with
 * masked updates, NVEC vectors side by side so that their dependency chains overlap:
 * init_lanes sets up the searches handed over since the last round (stop_search_init),
 * step_lanes takes one step of every search (stop_search_step), rebound_lanes takes the
 * plain rebounds where searches hit the stop and sets up the next searches; then
 * service gives every other ended search to its lane's scalar run (stop_run_searched and
 * stop_run_advance: first rebounds, Zeno resets, contact phases, releases, CVODE, the end
 * of the run), and a lane whose point is finished takes the batch's next point.
 *
 * Determinism: the vector code makes, lane by lane, the scalar code's decisions with the
 * same operations in the same order (fp contraction is off; stop_sincos is plain C; sqrt
 * and division are correctly rounded in every ISA; a lane's values never depend on
 * another's), so that a point's result is the same bits in any lane, batch, order and
 * build, and the same as stop_simulate's (the trace's): tests/unit/test_stop.c checks it. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "stop_oscillator.h"
#include "stop_search.h"

#if defined(__AVX__) || defined(__SSE2__)
#include <immintrin.h>
#endif

#pragma GCC diagnostic ignored "-Wpsabi" /* vectors wider than the baseline ABI's */

/* A round steps NVEC vectors of BLOCK doubles, statement by statement side by side
 * (EACH), so that their dependency chains overlap: the search is a chain of dependent
 * operations (sin, cos, sqrt, a division), which one vector leaves mostly idle. Measured
 * (CPU time, bench_stop's impacting runs, the searches alone in the lanes): 357 ns a
 * rebound with two vectors one after the other, 308 side by side, 278 with three or
 * four; 1380 with one vector of 8 doubles (GCC splits it through memory). The sines and
 * cosines of both modes are one block of 2 NVEC side by side (vsincos), and then three
 * vectors (12 lanes) are better than four: paired runs of both workloads, 1.07x (Zeno)
 * and 1.11x (impacting) against four vectors with the two modes one after the other;
 * AVX2 has 16 registers, and four vectors spilled twice as much. */
#define BLOCK 4 /* doubles a vector (AVX2: one register; SSE2: two) */
#ifndef LANES_NVEC
#define LANES_NVEC 3
#endif
#define NVEC LANES_NVEC
#define LANES (BLOCK * NVEC)
#define EACH(statement)                                                                     \
    for (int k = 0; k < NVEC; k++) {                                                        \
        statement;                                                                          \
    }
#define NSC (2 * NVEC) /* vsincos's vectors: both modes' angles */
#define EACH_SC(statement)                                                                  \
    for (int k = 0; k < NSC; k++) {                                                         \
        statement;                                                                          \
    }

/* A lane whose search is still to be set up from its state (x1, v1, x2, v2) and horizon. */
#define LANE_INIT 4.0
/* A lane with no point (the batch is used up): neither rebound_lanes nor service. */
#define LANE_IDLE 5.0

typedef double vd __attribute__((vector_size(BLOCK * sizeof(double))));
typedef int64_t vi __attribute__((vector_size(BLOCK * sizeof(int64_t))));
typedef uint64_t vu __attribute__((vector_size(BLOCK * sizeof(uint64_t))));

/* The searches of all lanes, structure of arrays (the fields of stop_search). */
typedef struct lane_searches {
    _Alignas(32) double u[LANES], du[LANES], u_a[LANES], nu_w[LANES], w1[LANES], nw1[LANES];
    _Alignas(32) double w[LANES], dw[LANES], w_a[LANES], nw_w[LANES], w2[LANES], nw2[LANES];
    _Alignas(32) double s[LANES], m2[LANES], m3[LANES], reach[LANES], h_max[LANES];
    _Alignas(32) double inv_w2[LANES], w1c[LANES], w2c[LANES]; /* 1 / w2, w^3 */
    _Alignas(32) double horizon[LANES], t[LANES], g[LANES], dg[LANES], ddg[LANES], h[LANES];
    _Alignas(32) double dddg[LANES], m4[LANES], w1q[LANES], w2q[LANES]; /* w1q = w1^4 */
    _Alignas(32) double away[LANES]; /* a mask's bits: all ones, or 0 */
    _Alignas(32) double x1[LANES], v1[LANES], x2[LANES], v2[LANES];
    _Alignas(32) int64_t evaluations[LANES]; /* (double's to int64's conversion takes
                                                lane by lane extractions without AVX-512) */
    _Alignas(32) double rc[LANES]; /* STOP_SEARCH_* after the last step, LANE_INIT or
                                      LANE_IDLE */
    /* The runs' own state while their searches are in the lanes (stop_run, stop_result:
     * put_start gathers it, scatter gives it back before the scalar run goes on), so
     * that a plain rebound is taken in the lanes too (rebound_lanes). */
    _Alignas(32) double T[LANES], t_end[LANES], t_stop[LANES]; /* t; the first of t_end
                                                                   and the next of t_mid,
                                                                   t_3q still to record */
    _Alignas(32) double rx1[LANES], rv1[LANES], rx2[LANES], rv2[LANES]; /* the run's x */
    _Alignas(32) double v_in_last[LANES], v_in_max[LANES], t_last[LANES], losses[LANES];
    _Alignas(32) double e_now[LANES], t_below[LANES], e_stick[LANES];
    _Alignas(32) double v_rest[LANES], zeno_tail[LANES], k[LANES], k12[LANES];
    _Alignas(32) double piece[LANES], excursion_min[LANES];
    /* the rebound's and the set-up's factors that depend on the system alone, as the
     * scalar code computes them (w1s = w1^2 = -nw1 exactly, f0 = -(k + k12) s, ...) */
    _Alignas(32) double w1s[LANES], w2s[LANES], abs_s[LANES], quarter[LANES];
    _Alignas(32) double neps[LANES], omeps[LANES], lossf[LANES], f0[LANES], kss[LANES];
    _Alignas(32) int64_t rebounds[LANES], n_limit[LANES], since_release[LANES];
    _Alignas(32) int64_t evals[LANES], polls[LANES], segments[LANES], more[LANES];
    _Alignas(32) int64_t lane_rebounds[LANES]; /* rebound_lanes' since put_start */
} lane_searches;

static inline vd ld(const void *p)
{
    vd v;
    memcpy(&v, p, sizeof v);
    return v;
}

static inline void st(void *p, vd v)
{
    memcpy(p, &v, sizeof v);
}

/* m ? a : b, lane by lane, m a mask (every bit of a lane set, or none). With AVX, one
 * blend (it reads each lane's top bit): GCC writes the generic form as three bitwise
 * operations, b ^ ((a ^ b) & m), not knowing that m is a mask. */
static inline vd sel(vi m, vd a, vd b)
{
#if defined(__AVX__)
    return (vd)_mm256_blendv_pd((__m256d)b, (__m256d)a, (__m256d)m);
#else
    return (vd)((m & (vi)a) | (~m & (vi)b));
#endif
}

static inline vd vmin(vd a, vd b) /* stop_min */
{
    return sel((a < b) | (b != b), a, b);
}

static inline vd vmax(vd a, vd b) /* stop_max */
{
    return sel((a > b) | (b != b), a, b);
}

/* stop_min and stop_max where b is never NaN: then they are a < b ? a : b and
 * a > b ? a : b, which is what MINPD and MAXPD do (their second operand when either is
 * NaN, or both are zeros), one instruction for four. */
static inline vd vmin_b(vd a, vd b)
{
#if defined(__AVX__)
    return (vd)_mm256_min_pd((__m256d)a, (__m256d)b);
#else
    return vmin(a, b);
#endif
}

static inline vd vmax_b(vd a, vd b)
{
#if defined(__AVX__)
    return (vd)_mm256_max_pd((__m256d)a, (__m256d)b);
#else
    return vmax(a, b);
#endif
}

static inline vd vsqrt(vd x)
{
#if defined(__AVX__)
    return (vd)_mm256_sqrt_pd((__m256d)x);
#elif defined(__SSE2__)
    union { vd v; __m128d h[2]; } u = {x};
    u.h[0] = _mm_sqrt_pd(u.h[0]);
    u.h[1] = _mm_sqrt_pd(u.h[1]);
    return u.v;
#else
    for (int i = 0; i < BLOCK; i++)
        x[i] = sqrt(x[i]);
    return x;
#endif
}

/* Any lane of a mask set: one movemask where there is one, instead of GCC's extraction
 * and or of the four lanes one by one. */
static inline int any(vi m)
{
#if defined(__AVX__)
    return _mm256_movemask_pd((__m256d)m) != 0;
#elif defined(__SSE2__)
    union { vi v; __m128d h[2]; } u = {m};
    return (_mm_movemask_pd(u.h[0]) | _mm_movemask_pd(u.h[1])) != 0;
#else
    return (m[0] | m[1] | m[2] | m[3]) != 0;
#endif
}

static inline vd splat(double x)
{
    return (vd){x, x, x, x};
}

/* stop_sincos, lane by lane, of NSC vectors */
static inline __attribute__((always_inline)) void vsincos(const vd *x, vd *sn, vd *cs)
{
    const vd magic = splat(STOP_ROUND_MAGIC), nmagic = splat(-STOP_ROUND_MAGIC);
    vd n[NSC], r[NSC], z[NSC], ps[NSC], s[NSC], pc[NSC], nhz[NSC], w[NSC], c[NSC];
    vd s1[NSC], c1[NSC];
    vi q[NSC], swap[NSC];
    vd big[NSC];
    EACH_SC(big[k] = x[k] * STOP_2_OVER_PI + magic);
    EACH_SC(n[k] = big[k] + nmagic);
    EACH_SC(r[k] = (x[k] + n[k] * STOP_NPIO2_1) + n[k] * STOP_NPIO2_1T);
    EACH_SC(z[k] = r[k] * r[k]);
    EACH_SC(ps[k] = 8.33333333332248946124e-03 + z[k] * (-1.98412698298579493134e-04 +
                 z[k] * (2.75573137070700676789e-06 + z[k] * (-2.50507602534068634195e-08 +
                 z[k] * 1.58969099521155010221e-10))));
    EACH_SC(s[k] = r[k] + (r[k] * z[k]) * (-1.66666666666666324348e-01 + z[k] * ps[k]));
    EACH_SC(pc[k] = z[k] * (4.16666666666666019037e-02 + z[k] * (-1.38888888888741095749e-03 +
                 z[k] * (2.48015872894767294178e-05 + z[k] * (-2.75573143513906633035e-07 +
                 z[k] * (2.08757232129817482790e-09 + z[k] * -1.13596475577881948265e-11))))));
    EACH_SC(nhz[k] = -0.5 * z[k]);
    EACH_SC(w[k] = 1.0 + nhz[k]);
    EACH_SC(c[k] = w[k] + (((1.0 + -w[k]) + nhz[k]) + z[k] * pc[k]));
    EACH_SC(q[k] = (vi)big[k]);
    EACH_SC(swap[k] = (q[k] & 1) == 1);
    EACH_SC(s1[k] = sel(swap[k], c[k], s[k]));
    EACH_SC(c1[k] = sel(swap[k], s[k], c[k]));
    EACH_SC(sn[k] = (vd)((vi)s1[k] ^ ((q[k] & 2) << 62)));
    EACH_SC(cs[k] = (vd)((vi)c1[k] ^ (((q[k] + 1) & 2) << 62)));
}

#define LD(field) ld(L->field + BLOCK * k)
#define ST(field, value) st(L->field + BLOCK * k, value)

/* stop_search_init (with stop_modes_from_state) for the lanes m of vector k, from the
 * state (x1, v1, x2, v2) (their horizon is in place): STOP_SEARCH_ON, or
 * STOP_SEARCH_NONE with no evaluation when the orbit never reaches the stop. */
static inline void init_vector(lane_searches *L, int k, vi m, vd x1, vd v1, vd x2, vd v2)
{
    vd u = 0.5 * (x1 + x2), du = 0.5 * (v1 + v2), w = 0.5 * (x1 - x2), dw = 0.5 * (v1 - v2);
    vd u_a = du * LD(h_max), w_a = dw * LD(inv_w2);
    vd a1 = vsqrt(u * u + u_a * u_a), a2 = vsqrt(w * w + w_a * w_a);
    vd reach = 64.0 * DBL_EPSILON * ((LD(abs_s) + a1) + a2);
    vd g = (u + w) - LD(s), dg = du + dw;
    vd ddg = LD(nw1) * u - LD(w2s) * w;
    vd quarter = LD(quarter);
    vd h = sel((dg < 0.0) & (ddg > 0.0), vmin_b(3.0 * -dg / ddg, quarter), quarter);
    vd rc = sel((a1 + a2) < LD(s), splat(STOP_SEARCH_NONE), splat(STOP_SEARCH_ON));
    ST(rc, sel(m, rc, LD(rc)));
    ST(u, sel(m, u, LD(u)));
    ST(du, sel(m, du, LD(du)));
    ST(u_a, sel(m, u_a, LD(u_a)));
    ST(nu_w, sel(m, -(u * LD(w1)), LD(nu_w)));
    ST(w, sel(m, w, LD(w)));
    ST(dw, sel(m, dw, LD(dw)));
    ST(w_a, sel(m, w_a, LD(w_a)));
    ST(nw_w, sel(m, -(w * LD(w2)), LD(nw_w)));
    ST(m2, sel(m, LD(w1s) * a1 + LD(w2s) * a2, LD(m2)));
    ST(m3, sel(m, LD(w1c) * a1 + LD(w2c) * a2, LD(m3)));
    ST(m4, sel(m, LD(w1q) * a1 + LD(w2q) * a2, LD(m4)));
    ST(dddg, sel(m, LD(nw1) * du + LD(nw2) * dw, LD(dddg)));
    ST(reach, sel(m, reach, LD(reach)));
    ST(t, sel(m, splat(0.0), LD(t)));
    ST(g, sel(m, g, LD(g)));
    ST(dg, sel(m, dg, LD(dg)));
    ST(ddg, sel(m, ddg, LD(ddg)));
    ST(h, sel(m, h, LD(h)));
    ST(away, sel(m, (vd)(g < -reach), LD(away)));
    ST(evaluations, (vd)((vi)LD(evaluations) & ~m));
}

/* The vectors with lanes to set up (one or two lanes a round, typically). */
static inline void init_lanes(lane_searches *L)
{
    for (int k = 0; k < NVEC; k++) {
        vi m = LD(rc) == LANE_INIT;
        if (any(m))
            init_vector(L, k, m, LD(x1), LD(v1), LD(x2), LD(v2));
    }
}

/* The lanes of vector k after a step to tn: those whose search went on and did not end
 * at the horizon (none) take the flow's state there and their new status. */
static inline void commit(lane_searches *L, int k, vi away, vd r, vd h, vd reach, vd tn,
                          vi none, vd u, vd du, vd w, vd dw)
{
    vd x1 = u + w, v1 = du + dw, x2 = u + -w, v2 = du + -dw;
    vd ddg = LD(nw1) * u + LD(nw2) * w;
    ST(dddg, LD(nw1) * du + LD(nw2) * dw);
    vd gn = x1 - LD(s);
    vi awayn = away | (gn < -reach);
    vi hit = ((gn > 0.0) & awayn) | ((tn > 0.0) & (gn >= -reach) & (awayn | (v1 > 0.0)));
    /* The state is stored whatever the lane: a search that ended before this step (or at
     * the horizon in it) is read for its count and status alone (stop_run_searched). An
     * idle lane steps on from its last state, up to its horizon, where it stays. */
    ST(t, tn);
    ST(g, gn);
    ST(dg, v1);
    ST(ddg, ddg);
    /* (h is never NaN: it starts from quarter, and h_max and DBL_MIN are numbers) */
    ST(h, sel(r < h, vmax_b(2.0 * r, splat(DBL_MIN)), vmin_b(2.0 * h, LD(h_max))));
    ST(away, (vd)awayn);
    ST(x1, x1);
    ST(x2, x2);
    ST(v2, v2);
    vi on = LD(rc) == (double)STOP_SEARCH_ON;
    ST(evaluations, (vd)((vi)LD(evaluations) - (on & ~none))); /* a mask is -1 */
    vd rc = sel(none, splat(STOP_SEARCH_NONE),
                sel(hit, splat(STOP_SEARCH_HIT), splat(STOP_SEARCH_ON)));
    ST(rc, sel(on, rc, LD(rc)));
}

/* A step of the searches of the NVEC vectors' lanes whose search goes on: the new state
 * where the step evaluates the flow; a lane that ends at the horizon keeps its state. */
static inline void step_lanes(lane_searches *L)
{
    vd t[NVEC], g[NVEC], dg[NVEC], h[NVEC], reach[NVEC], horizon[NVEC], c[NVEC], g0[NVEC];
    vd disc[NVEC], sq[NVEC], root[NVEC], r[NVEC], step[NVEC], tn[NVEC];
    vd u[NVEC], du[NVEC], w[NVEC], dw[NVEC], angle[NSC], sn[NSC], cs[NSC];
    vi away[NVEC], over[NVEC], none[NVEC], rising[NVEC];
    EACH(t[k] = LD(t); g[k] = LD(g); dg[k] = LD(dg); h[k] = LD(h));
    EACH(reach[k] = LD(reach); horizon[k] = LD(horizon); away[k] = (vi)LD(away));
    EACH(c[k] = vmin(LD(m2), LD(ddg) + LD(m3) * h[k]));
    EACH(c[k] = vmin(c[k], LD(ddg) + vmax_b(LD(dddg), splat(0.0)) * h[k] +
                               0.5 * LD(m4) * h[k] * h[k]));
    EACH(g0[k] = sel(away[k], vmin_b(g[k], splat(-DBL_MIN)),
                     vmin_b(g[k], splat(0.0)) - reach[k]));
    /* stop_first_root_of_bound */
    EACH(disc[k] = dg[k] * dg[k] - 2.0 * c[k] * g0[k]);
    EACH(sq[k] = vsqrt(disc[k]));
    /* one division: the operands of the branch stop_first_root_of_bound takes */
    EACH(rising[k] = dg[k] > 0.0);
    EACH(root[k] = sel(rising[k], -2.0 * g0[k], -dg[k] + sq[k]) /
                   sel(rising[k], dg[k] + sq[k], c[k]));
    EACH(root[k] = sel(rising[k] | (c[k] > 0.0), root[k], splat(INFINITY)));
    EACH(r[k] = sel(disc[k] < 0.0, splat(INFINITY), root[k]));
    EACH(step[k] = vmin_b(r[k], h[k]));
    EACH(over[k] = t[k] + step[k] >= horizon[k]);
    EACH(none[k] = over[k] & (r[k] >= horizon[k] - t[k]));
    EACH(tn[k] = t[k] + sel(over[k], horizon[k] - t[k], step[k]));
    /* stop_cod_at */
    /* both modes' angles in one block: twice the independent chains through the
     * polynomials */
    EACH(angle[k] = LD(w1) * tn[k]; angle[NVEC + k] = LD(w2) * tn[k]);
    vsincos(angle, sn, cs);
    EACH(u[k] = LD(u) * cs[k] + LD(u_a) * sn[k]; du[k] = LD(du) * cs[k] + LD(nu_w) * sn[k]);
    EACH(w[k] = LD(w) * cs[NVEC + k] + LD(w_a) * sn[NVEC + k];
         dw[k] = LD(dw) * cs[NVEC + k] + LD(nw_w) * sn[NVEC + k]);
    EACH(commit(L, k, away[k], r[k], h[k], reach[k], tn[k], none[k], u[k], du[k], w[k],
                dw[k]));
}
/* The lanes of vector k whose search hit the stop, where the run would take a plain
 * rebound and set up the next search (stop_run_searched, one pass of stop_run_advance,
 * rebound and cod_segment_begin, with the same operations): that, for every lane where
 * nothing else happens (no poll of the stop flag due, the budget left, no energy to
 * record, not the first rebound, no Zeno reset, before t_end); the others are left to the
 * scalar run. */
static inline void rebound_vector(lane_searches *L, int k)
{
    vi hit = LD(rc) == (double)STOP_SEARCH_HIT;
    if (!any(hit))
        return;
    vd T = LD(T) + LD(t), v_in = LD(dg), x2 = LD(x2), v2 = LD(v2), s = LD(s);
    vd k1 = LD(k), k12 = LD(k12);
    vi n = (vi)LD(lane_rebounds);
    vi ok = hit & (T < LD(t_stop)) & (v_in > LD(v_rest)) & (n < (vi)LD(n_limit));
    vd v1 = LD(neps) * v_in;
    vd losses = LD(losses) + (LD(lossf) * v_in) * v_in;
    vd d = s - x2; /* stop_energy_inline at (s, v1, x2, v2) */
    vd e_now = 0.5 * (v1 * v1 + v2 * v2) + 0.5 * (LD(kss) + k12 * d * d + k1 * x2 * x2);
    vd t_below = LD(t_below);
    vi below = (t_below != t_below) & (e_now < LD(e_stick));
    vd force = LD(f0) + k12 * x2;
    vd tail = 2.0 * (vd)((vi)v1 & ~(vi)splat(-0.0)) / (LD(omeps) * force);
    vd excursion = v1 * v1 / (2.0 * force);
    vi reset = (force > 0.0) & ((tail * LD(w2) < LD(zeno_tail)) | (excursion < LD(excursion_min)));
    ok &= ~reset;
    if (!any(ok))
        return;
    /* (the rebound count, polls, events since release and segments each grow by one a
     * rebound: lane_rebounds counts them; the time of the last rebound is T, x1 is s,
     * v1 and the energy follow from v_in and the state, and seg_more from T: scatter) */
    vd horizon = LD(t_end) - T, piece = LD(piece);
    /* unsigned: the lanes that take no rebound hold anything there, and a signed
     * overflow would be undefined (their sums are not kept) */
    vi evaluations = (vi)((vu)LD(evals) + (vu)LD(evaluations));
    vd v_in_max = LD(v_in_max);
    ST(lane_rebounds, sel(ok, (vd)((vu)n + 1), (vd)n)); /* unsigned, as above */
    ST(evals, sel(ok, (vd)evaluations, LD(evals)));
    ST(T, sel(ok, T, LD(T)));
    ST(v_in_last, sel(ok, v_in, LD(v_in_last)));
    ST(v_in_max, sel(ok, vmax_b(v_in_max, v_in), v_in_max)); /* v_in > v_rest here */
    ST(losses, sel(ok, losses, LD(losses)));
    ST(t_below, sel(ok & below, T, t_below));
    ST(horizon, sel(ok, sel(horizon > piece, piece, horizon), LD(horizon)));
    ST(rx2, sel(ok, x2, LD(rx2)));
    ST(rv2, sel(ok, v2, LD(rv2)));
    /* the next search at once, from the state in registers */
    init_vector(L, k, ok, s, v1, x2, v2);
}

static inline void rebound_lanes(lane_searches *L)
{
    for (int k = 0; k < NVEC; k++)
        rebound_vector(L, k);
}

/* A lane: the point it runs (its index in the batch), and the run. */
typedef struct lane {
    size_t index;
    int active;
    stop_task pt;
    stop_run rn;
} lane;

struct stop_lanes {
    lane_searches S;
    lane lane[LANES];
    void *workspace;
    const double *points;
    size_t count, next;
    double *outputs;
    uint8_t *status;
    int stopping; /* the stop flag was seen: every point not finished stays pending */
    int busy;     /* lanes with a point */
};
typedef stop_lanes lanes;

/* The lane's system, when it takes a point. */
static void put_system(lane_searches *L, int l, const stop_system *sys)
{
    L->w1[l] = sys->w1, L->nw1[l] = -(sys->w1 * sys->w1);
    L->w2[l] = sys->w2, L->nw2[l] = -(sys->w2 * sys->w2);
    L->w1c[l] = sys->w1 * sys->w1 * sys->w1, L->w2c[l] = sys->w2 * sys->w2 * sys->w2;
    L->w1q[l] = L->nw1[l] * L->nw1[l], L->w2q[l] = L->nw2[l] * L->nw2[l];
    L->h_max[l] = sys->inv_w1, L->inv_w2[l] = sys->inv_w2, L->s[l] = sys->s;
    L->w1s[l] = sys->w1 * sys->w1, L->w2s[l] = sys->w2 * sys->w2, L->abs_s[l] = fabs(sys->s);
    L->quarter[l] = 0.25 * sys->inv_w2;
    L->neps[l] = -sys->epsilon, L->omeps[l] = 1.0 - sys->epsilon;
    L->lossf[l] = 0.5 * (1.0 - sys->epsilon * sys->epsilon);
    L->f0[l] = -(sys->k + sys->k12) * sys->s, L->kss[l] = sys->k * sys->s * sys->s;
}

/* A search from the run's state to the horizon, set up by the next round (init_lanes). */
static void put_start(lane_searches *L, int l, const stop_run *rn, const stop_search *S)
{
    const stop_result *r = rn->r;
    const stop_system *sys = rn->sys;
    L->x1[l] = rn->x.x1, L->v1[l] = rn->x.v1, L->x2[l] = rn->x.x2, L->v2[l] = rn->x.v2;
    L->rx1[l] = rn->x.x1, L->rv1[l] = rn->x.v1, L->rx2[l] = rn->x.x2, L->rv2[l] = rn->x.v2;
    L->horizon[l] = S->horizon;
    L->rc[l] = LANE_INIT;
    L->T[l] = rn->t, L->t_end[l] = rn->opt->t_end;
    double t_mark = !rn->mid_seen ? rn->t_mid : !rn->q3_seen ? rn->t_3q : INFINITY;
    L->t_stop[l] = t_mark < rn->opt->t_end ? t_mark : rn->opt->t_end;
    L->v_in_last[l] = r->v_in_last, L->v_in_max[l] = r->v_in_max;
    L->t_last[l] = r->t_last_rebound, L->losses[l] = r->losses;
    L->e_now[l] = rn->e_now, L->t_below[l] = r->t_below, L->e_stick[l] = r->e_stick;
    L->v_rest[l] = rn->v_rest, L->zeno_tail[l] = rn->opt->zeno_tail;
    L->k[l] = sys->k, L->k12[l] = sys->k12;
    L->piece[l] = STOP_CHUNK * sys->inv_w1, L->excursion_min[l] = 1e-12 * sys->s;
    /* Lane rebound n (from 0) counts rebound rebounds + n and polls the stop flag at pass
     * polls + n + 1: it is left to the scalar run when that is the first rebound (which
     * records its time), beyond the budget, or a poll (a multiple of 64). */
    int64_t to_poll = (int64_t)(~rn->polls & 63u), budget = rn->opt->max_rebounds - r->rebounds;
    L->rebounds[l] = r->rebounds;
    L->n_limit[l] = r->rebounds == 0 ? 0 : to_poll < budget ? to_poll : budget;
    L->since_release[l] = rn->events_since_release;
    L->evals[l] = r->evaluations, L->polls[l] = rn->polls, L->segments[l] = r->segments;
    L->more[l] = rn->seg_more;
    L->lane_rebounds[l] = 0;
}

/* The run's state back from the lanes (rebound_lanes may have moved it on). */
static void scatter(const lane_searches *L, int l, stop_run *rn)
{
    stop_result *r = rn->r;
    int64_t n = L->lane_rebounds[l];
    rn->x = (stop_state){n ? L->s[l] : L->rx1[l], n ? L->neps[l] * L->v_in_last[l] : L->rv1[l],
                         L->rx2[l], L->rv2[l]};
    rn->t = L->T[l];
    rn->seg_x0 = rn->x;
    rn->seg_t0 = rn->t;
    r->v_in_last = L->v_in_last[l], r->v_in_max = L->v_in_max[l];
    r->t_last_rebound = n ? L->T[l] : L->t_last[l], r->losses = L->losses[l];
    rn->e_now = n ? stop_energy_inline(rn->sys, &rn->x) : L->e_now[l];
    r->t_below = L->t_below[l];
    r->rebounds = L->rebounds[l] + n;
    rn->events_since_release = (int)(L->since_release[l] + n);
    r->evaluations = L->evals[l], rn->polls = (unsigned)(L->polls[l] + n);
    r->segments = L->segments[l] + n;
    rn->seg_more = n ? L->t_end[l] - L->T[l] > L->piece[l] : (int)L->more[l];
}

/* What stop_run_searched reads of a finished search. */
static void get_search(const lane_searches *L, int l, stop_search *S)
{
    S->t = L->t[l];
    S->horizon = L->horizon[l];
    S->at = (stop_state){L->x1[l], L->dg[l], L->x2[l], L->v2[l]};
    S->evaluations = L->evaluations[l];
}

/* Where output o of point i goes. */
static void output_slots(lanes *ln, size_t i, double **out)
{
    for (int o = 0; o < STOP_OUTPUT_COUNT; o++)
        out[o] = &ln->outputs[(size_t)o * ln->count + i];
}

/* Point i stays pending (NaN outputs). */
static void pending_one(lanes *ln, size_t i)
{
    for (int o = 0; o < STOP_OUTPUT_COUNT; o++)
        ln->outputs[(size_t)o * ln->count + i] = NAN;
    ln->status[i] = IS_POINT_PENDING;
}

/* The lane's point has ended its run: its outputs, or pending when it was stopped. */
static void finish_point(lanes *ln, lane *a)
{
    stop_run_finish(&a->rn);
    a->active = 0;
    ln->busy--;
    if (a->pt.r.failed == STOP_RUN_STOPPED) {
        ln->stopping = 1;
        pending_one(ln, a->index);
        return;
    }
    double *out[STOP_OUTPUT_COUNT];
    output_slots(ln, a->index, out);
    stop_point_end(ln->points + a->index * STOP_PARAM_COUNT, &a->pt, out,
                   &ln->status[a->index]);
}

/* Runs lane l's point (resume), then the batch's next ones, up to the next contact
 * search, which it puts in the lane; the lane stays inactive when the batch is used up or
 * stopping. */
static void fill_lane(lanes *ln, int l, int resume)
{
    lane *a = &ln->lane[l];
    stop_search S;
    if (resume) {
        if (stop_run_advance(&a->rn, &S)) {
            put_start(&ln->S, l, &a->rn, &S);
            return;
        }
        finish_point(ln, a);
    }
    while (!ln->stopping && ln->next < ln->count) {
        a->index = ln->next++;
        double *out[STOP_OUTPUT_COUNT];
        output_slots(ln, a->index, out);
        const double *p = ln->points + a->index * STOP_PARAM_COUNT;
        int rc = stop_point_begin(ln->workspace, p, NULL, &a->pt, out, &ln->status[a->index]);
        if (rc == STOP_POINT_STOPPED) {
            ln->stopping = 1;
            pending_one(ln, a->index);
        }
        if (rc != STOP_POINT_RUN)
            continue;
        a->active = 1;
        ln->busy++;
        stop_run_begin(&a->rn, &a->pt.sys, &a->pt.x0, &a->pt.opt, &a->pt.r);
        a->rn.defer_search = 1;
        put_system(&ln->S, l, &a->pt.sys);
        if (stop_run_advance(&a->rn, &S)) {
            put_start(&ln->S, l, &a->rn, &S);
            return;
        }
        finish_point(ln, a);
    }
    ln->S.rc[l] = LANE_IDLE;
}

/* Lane l's search has ended (rc): the run takes its outcome and goes on. */
static void service_lane(lanes *ln, int l, int rc)
{
    lane *a = &ln->lane[l];
    if (rc == STOP_SEARCH_ON)
        rc = STOP_SEARCH_STALLED;
    stop_search S;
    get_search(&ln->S, l, &S);
    scatter(&ln->S, l, &a->rn);
    stop_run_searched(&a->rn, &S, rc);
    fill_lane(ln, l, 1);
}

/* The lanes whose search has ended take its outcome and go on: found a vector at a
 * time, since most rounds end no search (a rebound taken in the lanes goes on there). */
static void service(lanes *ln)
{
    lane_searches *L = &ln->S;
    for (int k = 0; k < NVEC && !ln->stopping; k++) {
        vd rc = LD(rc);
        vi ended = ((rc != (double)STOP_SEARCH_ON) & (rc < LANE_INIT)) |
                   ((rc == (double)STOP_SEARCH_ON) & ((vi)LD(evaluations) >= STOP_SEARCH_LIMIT));
        if (!any(ended))
            continue;
        for (int i = 0; i < BLOCK && !ln->stopping; i++)
            if (ended[i])
                service_lane(ln, BLOCK * k + i, (int)rc[i]);
    }
}

stop_lanes *stop_lanes_create(void)
{
    return aligned_alloc(64, (sizeof(stop_lanes) + 63) / 64 * 64);
}

void stop_lanes_free(stop_lanes *lanes)
{
    free(lanes);
}

void stop_lanes_eval(stop_lanes *ln, void *workspace, const double *points, size_t count,
                     double *outputs, uint8_t *status)
{
    ln->workspace = workspace;
    ln->points = points;
    ln->count = count;
    ln->next = 0;
    ln->outputs = outputs;
    ln->status = status;
    ln->stopping = 0;
    ln->busy = 0;
    for (int l = 0; l < LANES; l++) {
        ln->lane[l].active = 0;
        ln->S.rc[l] = LANE_IDLE;
        fill_lane(ln, l, 0);
    }
    while (ln->busy && !ln->stopping) {
        init_lanes(&ln->S);
        step_lanes(&ln->S);
        rebound_lanes(&ln->S);
        service(ln);
    }
    if (!ln->stopping)
        return;
    for (int l = 0; l < LANES; l++) /* every point not finished stays pending */
        if (ln->lane[l].active)
            pending_one(ln, ln->lane[l].index);
    stop_pending(ln->next, count, outputs, status);
}
