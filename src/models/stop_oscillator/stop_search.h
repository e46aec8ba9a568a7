/* stop_search.h: the COD flow ready to evaluate and one step of the first-contact search,
 * as inline functions of one point: stop_flow.c runs them for one point at a time,
 * stop_lanes.c for lanes of points. Both compile the same operations (fp contraction is
 * off, stop_sincos is plain C), so a point's search gives the same bits in either. */
#ifndef IMPACTSWEEP_STOP_SEARCH_H
#define IMPACTSWEEP_STOP_SEARCH_H

#include <float.h>
#include <math.h>

#include "stop_math.h"
#include "stop_oscillator.h"

/* fmin and fmax as selects (libm's are calls): a NaN argument gives the other one */
static inline double stop_min(double a, double b) { return a < b || b != b ? a : b; }
static inline double stop_max(double a, double b) { return a > b || b != b ? a : b; }

/* stop_energy, for the event loop's own use (the same operations). */
static inline double stop_energy_inline(const stop_system *sys, const stop_state *x)
{
    double d = x->x1 - x->x2;
    return 0.5 * (x->v1 * x->v1 + x->v2 * x->v2) +
           0.5 * (sys->k * x->x1 * x->x1 + sys->k12 * d * d + sys->k * x->x2 * x->x2);
}

/* GCC 12's SLP vectoriser fuses a lane pair {a b + c, a b - c} into one vfmaddsub
 * instruction even with -ffp-contract=off (found in this code at -O3 -march=native: a
 * contact state one ulp off the flow's). The flows and the search are therefore written
 * with additions only, negating the constants instead (the same bits: negation and
 * x + (-y) = x - y are exact), and `objdump -d` of the stop oscillator's objects shows no
 * vfm* instruction (README, stop oscillator). */

/* COD from a segment start, with what every evaluation needs precomputed: mode q (u at
 * w1, w at w2) is q cos + (dq / w) sin, its velocity dq cos + (-q w) sin, its
 * acceleration -w^2 times its position. */
typedef struct stop_cod {
    double u, du, u_a, nu_w, w1, nw1;
    double w, dw, w_a, nw_w, w2, nw2;
} stop_cod;

static inline void stop_cod_init(const stop_system *sys, const stop_modes *m, stop_cod *c)
{
    *c = (stop_cod){m->u, m->du, m->du * sys->inv_w1, -(m->u * sys->w1), sys->w1,
                    -(sys->w1 * sys->w1),
                    m->w, m->dw, m->dw * sys->inv_w2, -(m->w * sys->w2), sys->w2,
                    -(sys->w2 * sys->w2)};
}

/* The COD state after t, and x1'' and x1''' there. */
static inline void stop_cod_at(const stop_cod *c, double t, stop_state *x, double *x1_acc,
                               double *x1_jerk)
{
    double s1, c1, s2, c2;
    stop_sincos(c->w1 * t, &s1, &c1);
    stop_sincos(c->w2 * t, &s2, &c2);
    double u = c->u * c1 + c->u_a * s1, du = c->du * c1 + c->nu_w * s1;
    double w = c->w * c2 + c->w_a * s2, dw = c->dw * c2 + c->nw_w * s2;
    double nw = -w, ndw = -dw;
    x->x1 = u + w;
    x->v1 = du + dw;
    x->x2 = u + nw;
    x->v2 = du + ndw;
    *x1_acc = c->nw1 * u + c->nw2 * w;
    *x1_jerk = c->nw1 * du + c->nw2 * dw;
}

/* The smallest tau > 0 with g + dg tau + c tau^2 / 2 = 0 (g < 0), or INFINITY. */
static inline double stop_first_root_of_bound(double g, double dg, double c)
{
    double disc = dg * dg - 2.0 * c * g;
    if (disc < 0.0)
        return INFINITY;
    if (dg > 0.0)
        return -2.0 * g / (dg + sqrt(disc)); /* the stable form */
    if (c > 0.0)
        return (-dg + sqrt(disc)) / c;
    return INFINITY; /* falling and bending down: the bound never comes back to 0 */
}

/* A first-contact search in progress (stop_first_contact states what it finds). */
struct stop_search {
    stop_cod cod;
    double s, m2, m3, m4, reach, h_max, horizon;
    double t, g, dg, ddg, dddg, h; /* the gap x1 - s and its derivatives at t; the trial
                                      step */
    int away;                /* mass one has been away from the stop (beyond the band) */
    stop_state at;           /* the state at t */
    int64_t evaluations;     /* of the flow, so far */
};

enum { STOP_SEARCH_NONE = 0, STOP_SEARCH_HIT = 1, STOP_SEARCH_ON = 2, STOP_SEARCH_STALLED = 3 };

/* Sets the search up from the modes; returns STOP_SEARCH_NONE when the orbit never
 * reaches the stop (a1 + a2 < s), else STOP_SEARCH_ON. */
static inline int stop_search_init(const stop_system *sys, const stop_modes *m, double horizon,
                                   stop_search *S)
{
    stop_cod_init(sys, m, &S->cod);
    /* stop_mode_amplitudes, from the coefficients */
    double a1 = sqrt(m->u * m->u + S->cod.u_a * S->cod.u_a);
    double a2 = sqrt(m->w * m->w + S->cod.w_a * S->cod.w_a);
    if (a1 + a2 < sys->s)
        return STOP_SEARCH_NONE; /* the orbit never reaches the stop */
    /* |g''| <= m2, |g'''| <= m3 and |g''''| <= m4 along the whole orbit. Over [t, t + h],
     * g'' <= min(m2, g''(t) + m3 h, g''(t) + max(g'''(t), 0) h + m4 h^2 / 2), so the
     * quadratic with that curvature bounds g from above there: until it reaches 0, g
     * cannot. (The last term, from the bound of g'''', halves the overshoot of the first
     * step of a Zeno flight: 2.2 evaluations a rebound instead of 2.8.) */
    S->s = sys->s;
    S->m2 = sys->w1 * sys->w1 * a1 + sys->w2 * sys->w2 * a2;
    S->m3 = sys->w1 * sys->w1 * sys->w1 * a1 + sys->w2 * sys->w2 * sys->w2 * a2;
    S->m4 = S->cod.nw1 * S->cod.nw1 * a1 + S->cod.nw2 * S->cod.nw2 * a2;
    S->reach = 64.0 * DBL_EPSILON * (fabs(sys->s) + a1 + a2);
    S->h_max = sys->inv_w1;
    S->horizon = horizon;
    /* at t = 0 the modes give the gap directly, without evaluating the flow */
    S->t = 0.0;
    S->g = m->u + m->w - sys->s;
    S->dg = m->du + m->dw;
    S->ddg = -sys->w1 * sys->w1 * m->u - sys->w2 * sys->w2 * m->w;
    S->dddg = S->cod.nw1 * m->du + S->cod.nw2 * m->dw;
    S->at = (stop_state){m->u + m->w, m->du + m->dw, m->u - m->w, m->du - m->dw};
    /* the first trial length: a little more than the flight under the present force when
     * it pulls mass one back (2 |v1| / F1: the short flights of a Zeno sequence) */
    double quarter = 0.25 * sys->inv_w2;
    S->h = S->dg < 0.0 && S->ddg > 0.0 ? stop_min(3.0 * -S->dg / S->ddg, quarter) : quarter;
    /* Starting at the stop (after a rebound, a release or a reset), the start itself is
     * no contact: one counts once mass one has been away, or when it comes back in. */
    S->away = S->g < -S->reach;
    S->evaluations = 0;
    return STOP_SEARCH_ON;
}

/* One step: STOP_SEARCH_NONE when no contact can happen before the horizon, else one
 * more evaluation, after which STOP_SEARCH_HIT at the stop (to rounding) at S->t, or
 * STOP_SEARCH_ON. (stop_lanes.c makes the same decisions with the same operations.) */
static inline int stop_search_step(stop_search *S)
{
    double c = stop_min(S->m2, S->ddg + S->m3 * S->h);
    c = stop_min(c, S->ddg + stop_max(S->dddg, 0.0) * S->h + 0.5 * S->m4 * S->h * S->h);
    /* Until mass one has left the rounding band at the stop, the band itself is the
     * start: bounding from its edge lets the steps grow as the motion away develops
     * (after a tangential release, x1 - s ~ -t^3 stays 0 to rounding for a while). */
    double g0 = S->away ? stop_min(S->g, -DBL_MIN) : stop_min(S->g, 0.0) - S->reach;
    double r = stop_first_root_of_bound(g0, S->dg, c);
    double step = stop_min(r, S->h);
    if (S->t + step >= S->horizon) {
        if (r >= S->horizon - S->t)
            return STOP_SEARCH_NONE; /* no contact can happen before the horizon */
        step = S->horizon - S->t;
    }
    S->t += step;
    stop_cod_at(&S->cod, S->t, &S->at, &S->ddg, &S->dddg);
    S->evaluations++;
    S->g = S->at.x1 - S->s;
    S->dg = S->at.v1;
    S->away |= S->g < -S->reach;
    if (S->g > 0.0 && S->away) /* only rounding can get here: the bound says g <= 0 */
        return STOP_SEARCH_HIT;
    if (S->t > 0.0 && S->g >= -S->reach && (S->away || S->dg > 0.0))
        return STOP_SEARCH_HIT; /* at the stop, to rounding */
    /* keep the trial length near the step the bound allows, so that m3 h stays
     * small near a contact (fast convergence), and let it grow away from one */
    S->h = r < S->h ? stop_max(2.0 * r, DBL_MIN) : stop_min(2.0 * S->h, S->h_max);
    return STOP_SEARCH_ON;
}

/* The search allows this many evaluations (then STOP_SEARCH_STALLED: a tangency it cannot
 * resolve; a piece of STOP_CHUNK / w1 takes a few thousand at most). */
#define STOP_SEARCH_LIMIT 1000000

/* Runs a search to its end: STOP_SEARCH_HIT, _NONE or _STALLED. */
static inline int stop_search_run(stop_search *S)
{
    int rc = STOP_SEARCH_ON;
    while (rc == STOP_SEARCH_ON && S->evaluations < STOP_SEARCH_LIMIT)
        rc = stop_search_step(S);
    return rc == STOP_SEARCH_ON ? STOP_SEARCH_STALLED : rc;
}

#endif
