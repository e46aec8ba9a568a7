/* hybrid_steps.h: the trial steps of is_hybrid_run and the state inside them (included
 * by hybrid_impl.h, after its lanes' and trial step's types; private names begin with
 * ish_): one DOPRI5 (DOP853: hybrid_dop853.h) or flow step of every block, the events at a step's end, DOPRI5's
 * dense output, and the first crossing of an event inside a step (Illinois). Apart from
 * hybrid_impl.h so that each stays short enough to read whole. */
#ifndef IMPACTSWEEP_HYBRID_STEPS_H
#define IMPACTSWEEP_HYBRID_STEPS_H

#include "hybrid_dop853.h" /* the DOP853 pair (is_hybrid_system.pair) */

/* --- trial steps -------------------------------------------------------------------- */

/* One DOPRI5 trial step of each of the nb blocks, stage by stage across them. */
ISH_INLINE void ish_trial_steps_field(const is_hybrid_system *sys, ish_block *const *bs,
                                         int nb, ish_trial *tr)
{
    if (ISH8_ON(sys)) {
        ish8_trial_steps(sys, bs, nb, tr);
        return;
    }
    const int d = sys->dimension;
    lv_double s[ISH_D];
    for (int j = 0; j < nb; j++) {
        tr[j].h = bs[j]->h;
        for (int i = 0; i < d; i++)
            tr[j].k[0][i] = bs[j]->f[i];
    }
#pragma GCC unroll 8
    for (int st = 1; st < 7; st++)
#pragma GCC unroll 4
        for (int j = 0; j < nb; j++) {
            ish_block *b = bs[j];
            ish_trial *T = &tr[j];
#pragma GCC unroll 8
            for (int i = 0; i < d; i++) {
                lv_double sum = ish_a[st][0] * T->k[0][i];
#pragma GCC unroll 8
                for (int q = 1; q < st; q++)
                    if (ish_a[st][q] != 0.0)
                        sum = sum + ish_a[st][q] * T->k[q][i];
                s[i] = b->y[i] + T->h * sum;
            }
            if (st == 6)
                for (int i = 0; i < d; i++)
                    T->y1[i] = s[i];
            sys->field(&b->pub, b->t + ish_c[st] * T->h, s, T->k[st]);
        }
    for (int j = 0; j < nb; j++) {
        const ish_block *b = bs[j];
        ish_trial *T = &tr[j];
        lv_double sum2 = lv_zero();
        for (int i = 0; i < d; i++) {
            lv_double err = ish_e[0] * T->k[0][i];
            for (int q = 2; q < 7; q++)
                err = err + ish_e[q] * T->k[q][i];
            err = T->h * err;
            lv_double scale = b->atol + b->rtol * lv_max_nanb(lv_abs(b->y[i]), lv_abs(T->y1[i]));
            lv_double r = err / scale;
            sum2 = sum2 + r * r;
        }
        T->err2 = sum2 * (1.0 / d);
    }
}

/* One flow step of each block (exact: no error). */
ISH_INLINE void ish_trial_steps_flow(const is_hybrid_system *sys, ish_block *const *bs, int nb,
                                        ish_trial *tr)
{
    for (int j = 0; j < nb; j++) {
        tr[j].h = bs[j]->h;
        sys->flow(&bs[j]->pub, bs[j]->t, bs[j]->y, tr[j].h, tr[j].y1);
        tr[j].err2 = lv_zero();
    }
}

/* The events (and rates) at a step's end (t1, y1, f1). */
ISH_INLINE void ish_events_at(const is_hybrid_system *sys, const ish_block *b, lv_double t1,
                                 const lv_double *y1, const lv_double *f1, lv_double *g,
                                 lv_double *dg)
{
    /* the rates: a flow's grazing checks, a field's predicted kinks (ish_predict) */
    sys->event_values(&b->pub, t1, y1, sys->field ? f1 : NULL, g, sys->rates ? dg : NULL);
}

/* --- the state inside a step -------------------------------------------------------- */

/* The step size factor of the pair in use (0.9 err^(-1/5), DOP853's 0.9 err^(-1/8)). */
ISH_INLINE lv_double ish_step_factor(const is_hybrid_system *sys, lv_double err2)
{
    return ISH8_ON(sys) ? ish8_factor(err2) : ish_factor(err2);
}

/* DOPRI5's dense output of a trial step: y(theta) = r0 + theta (r1 + (1 - theta) (r2 +
 * theta (r3 + (1 - theta) r4))), DOP853's of order 7 (ish8_dense_init: 8 rows), or the
 * flow itself. */
typedef struct ish_dense {
    lv_double r[8][ISH_D];
} ish_dense;

ISH_INLINE void ish_dense_init(const is_hybrid_system *sys, const ish_block *b,
                                  const ish_trial *T, ish_dense *D)
{
    if (!sys->field)
        return;
    if (ISH8_ON(sys)) {
        ish8_dense_init(sys, b, T, D->r);
        return;
    }
    for (int i = 0; i < sys->dimension; i++) {
        lv_double ydiff = T->y1[i] - b->y[i], bspl = T->h * T->k[0][i] - ydiff;
        lv_double cont = ish_d[0] * T->k[0][i];
        for (int q = 2; q < 7; q++)
            cont = cont + ish_d[q] * T->k[q][i];
        D->r[0][i] = b->y[i];
        D->r[1][i] = ydiff;
        D->r[2][i] = bspl;
        D->r[3][i] = ydiff - T->h * T->k[6][i] - bspl;
        D->r[4][i] = T->h * cont;
    }
}

ISH_INLINE void ish_dense_at(const is_hybrid_system *sys, const ish_block *b,
                                const ish_trial *T, const ish_dense *D, lv_double theta,
                                lv_double *y)
{
    if (!sys->field) {
        sys->flow(&b->pub, b->t, b->y, theta * T->h, y);
        return;
    }
    if (ISH8_ON(sys)) {
        ish8_dense_at(sys, &D->r[0][0], theta, y);
        return;
    }
    lv_double rest = 1.0 - theta;
    for (int i = 0; i < sys->dimension; i++)
        y[i] = D->r[0][i] +
               theta * (D->r[1][i] +
                        rest * (D->r[2][i] + theta * (D->r[3][i] + rest * D->r[4][i])));
}

/* The smallest side * g over the events in cross (infinity where none). */
ISH_INLINE lv_double ish_least(const is_hybrid_system *sys, const lv_double *side,
                                  const lv_mask *cross, const lv_double *g)
{
    lv_double least = lv_splat(__builtin_inf());
    for (int e = 0; e < sys->events; e++)
        least = lv_min_nanb(least, lv_sel(cross[e], side[e] * g[e], lv_splat(__builtin_inf())));
    return least;
}

/* The first crossing in (lo, hi] of the events in cross[] for the lanes m: the Illinois
 * method on G = min over them of side * g (G(lo) = glo > 0 > G(hi) = ghi), on the dense
 * output. Returns the located share of the step (the first point past the root: the
 * crossing has happened there), with the events' values there in g_at. */
ISH_INLINE lv_double ish_locate(const is_hybrid_system *sys, const ish_block *b,
                                   const ish_trial *T, const ish_dense *D, lv_mask m,
                                   const lv_mask *cross, lv_double lo, lv_double glo,
                                   lv_double hi, lv_double ghi, lv_double *g_at)
{
    lv_double tol = lv_splat(__builtin_inf());
    for (int e = 0; e < sys->events; e++) {
        double te = sys->locate_tolerance[e] > 0.0 ? sys->locate_tolerance[e]
                    : sys->field                    ? 1e-9
                                                    : 4.0 * DBL_EPSILON;
        tol = lv_sel(cross[e], lv_min_nanb(tol, lv_splat(te)), tol);
    }
    lv_double moved = lv_zero(); /* the side moved last: -1 lo, 1 hi */
    lv_double y[ISH_D], g[ISH_E];
    for (int iter = 0; iter < 200; iter++) {
        lv_mask open = m & lv_gt(hi - lo, tol);
        if (!lv_any(open))
            break;
        lv_double s = (glo * hi - ghi * lo) / (glo - ghi);
        /* bisection where the secant would creep: outside the bracket, or from a start
         * on the boundary (G(lo) ~ 0: just after a reset, or at a located event) */
        lv_mask secant = lv_gt(s, lo) & lv_lt(s, hi) & lv_gt(glo, -1e-3 * ghi);
        s = lv_sel(secant, s, 0.5 * (lo + hi));
        ish_dense_at(sys, b, T, D, s, y);
        sys->event_values(&b->pub, b->t + s * T->h, y, NULL, g, NULL);
        lv_double G = ish_least(sys, b->pub.side, cross, g);
        lv_mask zero = open & lv_eq(G, lv_zero()), below = open & lv_lt(G, lv_zero());
        lv_mask above = open & lv_not(zero | below) & lv_eq(G, G);
        lv_mask to_hi = below | zero | (open & lv_ne(G, G)); /* NaN: past the root */
        /* Illinois: an end kept twice in a row has its value halved */
        ghi = lv_sel(above & lv_lt(moved, lv_zero()), 0.5 * ghi, ghi);
        glo = lv_sel(to_hi & lv_gt(moved, lv_zero()), 0.5 * glo, glo);
        lo = lv_sel(above, s, lo);
        glo = lv_sel(above, G, glo);
        hi = lv_sel(to_hi, s, hi);
        ghi = lv_sel(to_hi, lv_min_nanb(G, lv_splat(-DBL_MIN)), ghi);
        moved = lv_sel(above, lv_splat(-1.0), lv_sel(to_hi, lv_splat(1.0), moved));
        for (int e = 0; e < sys->events; e++)
            g_at[e] = lv_sel(to_hi, g[e], g_at[e]);
        lo = lv_sel(zero, s, lo); /* an exact zero ends the search there */
    }
    return hi;
}

#endif
