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
 * The vector code is written with the models' lane layer (../shared/lanes.h and
 * lanes_math.h, whose lv_sincos_n is stop_sincos in lanes).
 *
 * Determinism: the vector code makes, lane by lane, the scalar code's decisions with the
 * same operations in the same order (fp contraction is off; the sine and cosine are the
 * lane layer's, in plain arithmetic; sqrt and division are correctly rounded in every
 * ISA; a lane's values never depend on another's), so that a point's result is the same
 * bits in any lane, batch, order and build, and the same as stop_simulate's (the
 * trace's): tests/unit/test_stop.c checks it. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../shared/lanes_math.h"
#include "stop_oscillator.h"
#include "stop_search.h"

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
#define BLOCK LV_WIDTH /* doubles a vector */
#ifndef LANES_NVEC
#define LANES_NVEC 3
#endif
#define NVEC LANES_NVEC
#define LANES (BLOCK * NVEC)
#define EACH(statement)                                                                     \
    for (int k = 0; k < NVEC; k++) {                                                        \
        statement;                                                                          \
    }
#define NSC (2 * NVEC) /* lv_sincos_n's vectors: both modes' angles */

/* A lane whose search is still to be set up from its state (x1, v1, x2, v2) and horizon. */
#define LANE_INIT 4.0
/* A lane with no point (the batch is used up): neither rebound_lanes nor service. */
#define LANE_IDLE 5.0

typedef lv_double vd;
typedef lv_int vi;
typedef uint64_t vu __attribute__((vector_size(BLOCK * sizeof(uint64_t))));

/* The searches of all lanes, structure of arrays (the fields of stop_search). */
typedef struct lane_searches {
    _Alignas(64) double u[LANES], du[LANES], u_a[LANES], nu_w[LANES], w1[LANES], nw1[LANES];
    _Alignas(64) double w[LANES], dw[LANES], w_a[LANES], nw_w[LANES], w2[LANES], nw2[LANES];
    _Alignas(64) double s[LANES], m2[LANES], m3[LANES], reach[LANES], h_max[LANES];
    _Alignas(64) double inv_w2[LANES], w1c[LANES], w2c[LANES]; /* 1 / w2, w^3 */
    _Alignas(64) double horizon[LANES], t[LANES], g[LANES], dg[LANES], ddg[LANES], h[LANES];
    _Alignas(64) double dddg[LANES], m4[LANES], w1q[LANES], w2q[LANES]; /* w1q = w1^4 */
    _Alignas(64) double away[LANES]; /* a mask's bits: all ones, or 0 */
    _Alignas(64) double keeps[LANES]; /* a mask's bits: the run keeps its sections */
    _Alignas(64) double x1[LANES], v1[LANES], x2[LANES], v2[LANES];
    _Alignas(64) int64_t evaluations[LANES]; /* (double's to int64's conversion takes
                                                lane by lane extractions without AVX-512) */
    _Alignas(64) double rc[LANES]; /* STOP_SEARCH_* after the last step, LANE_INIT or
                                      LANE_IDLE */
    /* The runs' own state while their searches are in the lanes (stop_run, stop_result:
     * put_start gathers it, scatter gives it back before the scalar run goes on), so
     * that a plain rebound is taken in the lanes too (rebound_lanes). */
    _Alignas(64) double T[LANES], t_end[LANES], t_stop[LANES]; /* t; the first of t_end
                                                                   and the next of t_mid,
                                                                   t_3q still to record */
    _Alignas(64) double rx1[LANES], rv1[LANES], rx2[LANES], rv2[LANES]; /* the run's x */
    _Alignas(64) double v_in_last[LANES], v_in_max[LANES], t_last[LANES], losses[LANES];
    _Alignas(64) double e_now[LANES], t_below[LANES], e_stick[LANES];
    _Alignas(64) double v_rest[LANES], zeno_tail[LANES], k[LANES], k12[LANES];
    _Alignas(64) double piece[LANES], excursion_min[LANES];
    /* the rebound's and the set-up's factors that depend on the system alone, as the
     * scalar code computes them (w1s = w1^2 = -nw1 exactly, f0 = -(k + k12) s, ...) */
    _Alignas(64) double w1s[LANES], w2s[LANES], abs_s[LANES], quarter[LANES];
    _Alignas(64) double neps[LANES], omeps[LANES], lossf[LANES], f0[LANES], kss[LANES];
    _Alignas(64) int64_t rebounds[LANES], n_limit[LANES], since_release[LANES];
    _Alignas(64) int64_t evals[LANES], polls[LANES], segments[LANES], more[LANES];
    _Alignas(64) int64_t lane_rebounds[LANES]; /* rebound_lanes' since put_start */
    stop_ring *ring[LANES]; /* the run's rebound section (NULL: none kept) */
} lane_searches;

static inline vd splat(double x)
{
    return lv_splat(x);
}

/* A mask kept in a double's bits (all ones, or 0), and back. */
static inline vd mask_bits(lv_mask m)
{
    return lv_as_double(lv_int_from_mask(m));
}

static inline lv_mask bits_mask(vd bits)
{
    return lv_mask_from_int(lv_as_int(bits));
}

#define LD(field) lv_load(L->field + BLOCK * k)
#define ST(field, value) lv_store(L->field + BLOCK * k, value)
#define LDI(field) lv_iload(L->field + BLOCK * k)
#define STI(field, value) lv_istore(L->field + BLOCK * k, value)

/* stop_search_init (with stop_modes_from_state) for the lanes m of vector k, from the
 * state (x1, v1, x2, v2) (their horizon is in place): STOP_SEARCH_ON, or
 * STOP_SEARCH_NONE with no evaluation when the orbit never reaches the stop. */
static inline void init_vector(lane_searches *L, int k, lv_mask m, vd x1, vd v1, vd x2, vd v2)
{
    vd u = 0.5 * (x1 + x2), du = 0.5 * (v1 + v2), w = 0.5 * (x1 - x2), dw = 0.5 * (v1 - v2);
    vd u_a = du * LD(h_max), w_a = dw * LD(inv_w2);
    vd a1 = lv_sqrt(u * u + u_a * u_a), a2 = lv_sqrt(w * w + w_a * w_a);
    vd reach = 64.0 * DBL_EPSILON * ((LD(abs_s) + a1) + a2);
    vd g = (u + w) - LD(s), dg = du + dw;
    vd ddg = LD(nw1) * u - LD(w2s) * w;
    vd quarter = LD(quarter);
    vd h = lv_sel(lv_lt(dg, lv_zero()) & lv_gt(ddg, lv_zero()),
                  lv_min_nanb(3.0 * -dg / ddg, quarter), quarter);
    vd rc = lv_sel(lv_lt(a1 + a2, LD(s)), splat(STOP_SEARCH_NONE), splat(STOP_SEARCH_ON));
    ST(rc, lv_sel(m, rc, LD(rc)));
    ST(u, lv_sel(m, u, LD(u)));
    ST(du, lv_sel(m, du, LD(du)));
    ST(u_a, lv_sel(m, u_a, LD(u_a)));
    ST(nu_w, lv_sel(m, -(u * LD(w1)), LD(nu_w)));
    ST(w, lv_sel(m, w, LD(w)));
    ST(dw, lv_sel(m, dw, LD(dw)));
    ST(w_a, lv_sel(m, w_a, LD(w_a)));
    ST(nw_w, lv_sel(m, -(w * LD(w2)), LD(nw_w)));
    ST(m2, lv_sel(m, LD(w1s) * a1 + LD(w2s) * a2, LD(m2)));
    ST(m3, lv_sel(m, LD(w1c) * a1 + LD(w2c) * a2, LD(m3)));
    ST(m4, lv_sel(m, LD(w1q) * a1 + LD(w2q) * a2, LD(m4)));
    ST(dddg, lv_sel(m, LD(nw1) * du + LD(nw2) * dw, LD(dddg)));
    ST(reach, lv_sel(m, reach, LD(reach)));
    ST(t, lv_sel(m, splat(0.0), LD(t)));
    ST(g, lv_sel(m, g, LD(g)));
    ST(dg, lv_sel(m, dg, LD(dg)));
    ST(ddg, lv_sel(m, ddg, LD(ddg)));
    ST(h, lv_sel(m, h, LD(h)));
    ST(away, lv_sel(m, mask_bits(lv_lt(g, -reach)), LD(away)));
    STI(evaluations, LDI(evaluations) & ~lv_int_from_mask(m));
}

/* The vectors with lanes to set up (one or two lanes a round, typically). */
static inline void init_lanes(lane_searches *L)
{
    for (int k = 0; k < NVEC; k++) {
        lv_mask m = lv_eq(LD(rc), splat(LANE_INIT));
        if (lv_any(m))
            init_vector(L, k, m, LD(x1), LD(v1), LD(x2), LD(v2));
    }
}

/* The lanes of vector k after a step to tn: those whose search went on and did not end
 * at the horizon (none) take the flow's state there and their new status. */
static inline void commit(lane_searches *L, int k, lv_mask away, vd r, vd h, vd reach, vd tn,
                          lv_mask none, vd u, vd du, vd w, vd dw)
{
    vd x1 = u + w, v1 = du + dw, x2 = u + -w, v2 = du + -dw;
    vd ddg = LD(nw1) * u + LD(nw2) * w;
    ST(dddg, LD(nw1) * du + LD(nw2) * dw);
    vd gn = x1 - LD(s);
    lv_mask awayn = away | lv_lt(gn, -reach);
    lv_mask hit = (lv_gt(gn, lv_zero()) & awayn) |
                  (lv_gt(tn, lv_zero()) & lv_ge(gn, -reach) & (awayn | lv_gt(v1, lv_zero())));
    /* The state is stored whatever the lane: a search that ended before this step (or at
     * the horizon in it) is read for its count and status alone (stop_run_searched). An
     * idle lane steps on from its last state, up to its horizon, where it stays. */
    ST(t, tn);
    ST(g, gn);
    ST(dg, v1);
    ST(ddg, ddg);
    /* (h is never NaN: it starts from quarter, and h_max and DBL_MIN are numbers) */
    ST(h, lv_sel(lv_lt(r, h), lv_max_nanb(2.0 * r, splat(DBL_MIN)),
                 lv_min_nanb(2.0 * h, LD(h_max))));
    ST(away, mask_bits(awayn));
    ST(x1, x1);
    ST(x2, x2);
    ST(v2, v2);
    lv_mask on = lv_eq(LD(rc), splat(STOP_SEARCH_ON));
    STI(evaluations, LDI(evaluations) - lv_int_from_mask(on & lv_not(none))); /* a mask: -1 */
    vd rc = lv_sel(none, splat(STOP_SEARCH_NONE),
                   lv_sel(hit, splat(STOP_SEARCH_HIT), splat(STOP_SEARCH_ON)));
    ST(rc, lv_sel(on, rc, LD(rc)));
}

/* A step of the searches of the NVEC vectors' lanes whose search goes on: the new state
 * where the step evaluates the flow; a lane that ends at the horizon keeps its state. */
static inline void step_lanes(lane_searches *L)
{
    vd t[NVEC], g[NVEC], dg[NVEC], h[NVEC], reach[NVEC], horizon[NVEC], c[NVEC], g0[NVEC];
    vd disc[NVEC], sq[NVEC], root[NVEC], r[NVEC], step[NVEC], tn[NVEC];
    vd u[NVEC], du[NVEC], w[NVEC], dw[NVEC], angle[NSC], sn[NSC], cs[NSC];
    lv_mask away[NVEC], over[NVEC], none[NVEC], rising[NVEC];
    EACH(t[k] = LD(t); g[k] = LD(g); dg[k] = LD(dg); h[k] = LD(h));
    EACH(reach[k] = LD(reach); horizon[k] = LD(horizon); away[k] = bits_mask(LD(away)));
    /* stop_min (NaN ignored), and where b is never NaN lv_min_nanb (MINPD) */
    EACH(c[k] = lv_min_num(LD(m2), LD(ddg) + LD(m3) * h[k]));
    EACH(c[k] = lv_min_num(c[k], LD(ddg) + lv_max_nanb(LD(dddg), splat(0.0)) * h[k] +
                                     0.5 * LD(m4) * h[k] * h[k]));
    EACH(g0[k] = lv_sel(away[k], lv_min_nanb(g[k], splat(-DBL_MIN)),
                        lv_min_nanb(g[k], splat(0.0)) - reach[k]));
    /* stop_first_root_of_bound */
    EACH(disc[k] = dg[k] * dg[k] - 2.0 * c[k] * g0[k]);
    EACH(sq[k] = lv_sqrt(disc[k]));
    /* one division: the operands of the branch stop_first_root_of_bound takes */
    EACH(rising[k] = lv_gt(dg[k], lv_zero()));
    EACH(root[k] = lv_sel(rising[k], -2.0 * g0[k], -dg[k] + sq[k]) /
                   lv_sel(rising[k], dg[k] + sq[k], c[k]));
    EACH(root[k] = lv_sel(rising[k] | lv_gt(c[k], lv_zero()), root[k], splat(INFINITY)));
    EACH(r[k] = lv_sel(lv_lt(disc[k], lv_zero()), splat(INFINITY), root[k]));
    EACH(step[k] = lv_min_nanb(r[k], h[k]));
    EACH(over[k] = lv_ge(t[k] + step[k], horizon[k]));
    EACH(none[k] = over[k] & lv_ge(r[k], horizon[k] - t[k]));
    EACH(tn[k] = t[k] + lv_sel(over[k], horizon[k] - t[k], step[k]));
    /* stop_cod_at */
    /* both modes' angles in one block: twice the independent chains through the
     * polynomials */
    EACH(angle[k] = LD(w1) * tn[k]; angle[NVEC + k] = LD(w2) * tn[k]);
    lv_sincos_n(NSC, angle, sn, cs);
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
    lv_mask hit = lv_eq(LD(rc), splat(STOP_SEARCH_HIT));
    if (!lv_any(hit))
        return;
    vd T = LD(T) + LD(t), v_in = LD(dg), x2 = LD(x2), v2 = LD(v2), s = LD(s);
    vd k1 = LD(k), k12 = LD(k12);
    vi n = LDI(lane_rebounds);
    lv_mask ok = hit & lv_lt(T, LD(t_stop)) & lv_gt(v_in, LD(v_rest)) & lv_igt(LDI(n_limit), n);
    vd v1 = LD(neps) * v_in;
    vd losses = LD(losses) + (LD(lossf) * v_in) * v_in;
    vd d = s - x2; /* stop_energy_inline at (s, v1, x2, v2) */
    vd e_now = 0.5 * (v1 * v1 + v2 * v2) + 0.5 * (LD(kss) + k12 * d * d + k1 * x2 * x2);
    vd t_below = LD(t_below);
    lv_mask below = lv_ne(t_below, t_below) & lv_lt(e_now, LD(e_stick));
    vd force = LD(f0) + k12 * x2;
    vd tail = 2.0 * lv_abs(v1) / (LD(omeps) * force);
    vd excursion = v1 * v1 / (2.0 * force);
    lv_mask reset = lv_gt(force, lv_zero()) &
                    (lv_lt(tail * LD(w2), LD(zeno_tail)) | lv_lt(excursion, LD(excursion_min)));
    ok &= lv_not(reset);
    if (!lv_any(ok))
        return;
    /* (the rebound count, polls, events since release and segments each grow by one a
     * rebound: lane_rebounds counts them; the time of the last rebound is T, x1 is s,
     * v1 and the energy follow from v_in and the state, and seg_more from T: scatter) */
    vd horizon = LD(t_end) - T, piece = LD(piece);
    /* unsigned: the lanes that take no rebound hold anything there, and a signed
     * overflow would be undefined (their sums are not kept) */
    vi evaluations = (vi)((vu)LDI(evals) + (vu)LDI(evaluations));
    vd v_in_max = LD(v_in_max);
    STI(lane_rebounds, lv_isel(ok, (vi)((vu)n + 1), n)); /* unsigned, as above */
    STI(evals, lv_isel(ok, evaluations, LDI(evals)));
    ST(T, lv_sel(ok, T, LD(T)));
    ST(v_in_last, lv_sel(ok, v_in, LD(v_in_last)));
    ST(v_in_max, lv_sel(ok, lv_max_nanb(v_in_max, v_in), v_in_max)); /* v_in > v_rest here */
    ST(losses, lv_sel(ok, losses, LD(losses)));
    ST(t_below, lv_sel(ok & below, T, t_below));
    ST(horizon, lv_sel(ok, lv_sel(lv_gt(horizon, piece), piece, horizon), LD(horizon)));
    ST(rx2, lv_sel(ok, x2, LD(rx2)));
    ST(rv2, lv_sel(ok, v2, LD(rv2)));
    /* the rebound section, as stop_sim.c's rebound writes it (e_now is its energy); one
     * test a vector where no run keeps sections (the default) */
    lv_mask keep = ok & bits_mask(LD(keeps));
    if (lv_any(keep))
        for (int i = 0; i < BLOCK; i++)
            if (lv_mask_lane(keep, i))
                stop_ring_put(L->ring[BLOCK * k + i], T[i], e_now[i], x2[i], v2[i]);
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
    stop_ring rings[LANES][STOP_RINGS]; /* each lane's sections (`sections` = 1), apart
                                           from the lanes' hot state */
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
    L->ring[l] = rn->opt->sections ? &rn->opt->sections[STOP_RING_REBOUND] : NULL;
    uint64_t keeps = L->ring[l] ? ~(uint64_t)0 : 0;
    memcpy(&L->keeps[l], &keeps, sizeof keeps);
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
        a->pt.rings = ln->rings[l];
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
        lv_mask searching = lv_eq(rc, splat(STOP_SEARCH_ON));
        lv_mask ended = (lv_not(searching) & lv_lt(rc, splat(LANE_INIT))) |
                        (searching & lv_igt(LDI(evaluations), lv_isplat(STOP_SEARCH_LIMIT - 1)));
        if (!lv_any(ended))
            continue;
        for (int i = 0; i < BLOCK && !ln->stopping; i++)
            if (lv_mask_lane(ended, i))
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

const stop_ring *stop_lanes_rings(const stop_lanes *lanes, int lane)
{
    return lanes->rings[lane];
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
