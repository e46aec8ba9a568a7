/* hybrid_events.h: the grazes and the accumulation of events of is_hybrid_run (included
 * by hybrid_impl.h; private names begin with ish_). A step whose two ends are on an
 * event's side may still have dipped through it and back (an even number of crossings:
 * a graze). Every accepted step is checked for every event, in both modes, with rates or
 * without:
 *
 *   - an estimate of side * g inside the step: the Hermite cubic of the values and rates
 *     at the ends (the model's rates), or without rates the parabola through the ends and
 *     one more sample at the step's middle (its vertex looked for a quarter step beyond
 *     the ends too, so that a minimum just inside an end is not left to neither step);
 *   - where the estimate has a minimum nearer zero than its depth below the lower end
 *     (min(p0, p1) - p_min > p_min: the only steps where an estimate's error could hide a
 *     crossing; on a plain step the function's dip within a step is tiny against its
 *     distance from zero), the true minimum is located on the step's continuous
 *     extension (dense output, or the flow) by Brent's safeguarded minimiser (parabolic
 *     interpolation and golden sections), all flagged lanes of a vector at once;
 *   - a minimum at or below zero is a crossing bracket [0, x] for ish_locate.
 *
 * The cost: with rates, two bit operations an event on every step (a dip needs a rate that
 * changes sign within the step) and the estimate's arithmetic (a few operations an event)
 * only for the events whose rate does; without rates, one more evaluation of the events
 * (and, in flow mode, of the flow); the minimiser only on the rare flagged steps. A dip
 * shallower than the rounding of g stays unseen: there is nothing to see. Rates that are
 * NaN (not known) skip the check where they are. */
#ifndef IMPACTSWEEP_HYBRID_EVENTS_H
#define IMPACTSWEEP_HYBRID_EVENTS_H

#define ISH_GRAZE_ITER 60

/* side * g of event ev at the share theta of the step; g: every event's value there. */
ISH_INLINE lv_double ish_side_value(const is_hybrid_system *sys, const ish_block *b,
                                    const ish_trial *T, const ish_dense *D, int ev,
                                    lv_double theta, lv_double *g)
{
    lv_double y[ISH_D];
    ish_dense_at(sys, b, T, D, theta, y);
    sys->event_values(&b->pub, b->t + theta * T->h, y, NULL, g, NULL);
    return b->pub.side[ev] * g[ev];
}

/* Brent's minimiser (Brent 1973, localmin) of side * g_ev on the shares [0, 1] of the
 * step for the lanes m, from x0 inside; a lane stops as soon as a value <= 0 is found
 * (that is all the caller needs) or its minimum is located to sqrt(eps). Returns the best
 * share, with its value in *fmin and every event's value there in g_at. */
ISH_INLINE lv_double ish_minimise(const is_hybrid_system *sys, const ish_block *b,
                                  const ish_trial *T, const ish_dense *D, lv_mask m, int ev,
                                  lv_double x0, lv_double *fmin, lv_double *g_at)
{
    const double golden = 0.3819660112501051, rel = 1.4901161193847656e-08, abso = 1e-13;
    const lv_double inf = lv_splat(__builtin_inf());
    lv_double g[ISH_E], lo = lv_zero(), hi = lv_splat(1.0), x = x0;
    lv_double fx = ish_side_value(sys, b, T, D, ev, x, g);
    fx = lv_sel(lv_eq(fx, fx), fx, inf);
    for (int k = 0; k < sys->events; k++)
        g_at[k] = g[k];
    lv_double w = x, v = x, fw = fx, fv = fx, d = lv_zero(), e = lv_zero();
    lv_mask open = m & lv_gt(fx, lv_zero());
    for (int it = 0; it < ISH_GRAZE_ITER && lv_any(open); it++) {
        lv_double xm = 0.5 * (lo + hi), tol1 = rel * lv_abs(x) + abso, tol2 = 2.0 * tol1;
        open &= lv_gt(lv_abs(x - xm), tol2 - 0.5 * (hi - lo));
        if (!lv_any(open))
            break;
        /* a parabola through x, w, v where it falls inside and moves less than half the
         * step before last; golden sections otherwise */
        lv_double r = (x - w) * (fx - fv), q = (x - v) * (fx - fw);
        lv_double p = (x - v) * q - (x - w) * r;
        q = 2.0 * (q - r);
        p = lv_sel(lv_gt(q, lv_zero()), -p, p);
        q = lv_abs(q);
        lv_mask para = lv_gt(lv_abs(e), tol1) & lv_lt(lv_abs(p), lv_abs(0.5 * q * e)) &
                       lv_gt(p, q * (lo - x)) & lv_lt(p, q * (hi - x));
        lv_double toward = lv_sel(lv_ge(xm, x), tol1, -tol1);
        lv_double dp = p / q, up = x + dp;
        dp = lv_sel(lv_lt(up - lo, tol2) | lv_lt(hi - up, tol2), toward, dp);
        lv_double eg = lv_sel(lv_ge(x, xm), lo - x, hi - x);
        lv_double e_new = lv_sel(para, d, eg), d_new = lv_sel(para, dp, golden * eg);
        e = lv_sel(open, e_new, e);
        d = lv_sel(open, d_new, d);
        lv_double u = x + lv_sel(lv_ge(lv_abs(d), tol1), d,
                                 lv_sel(lv_gt(d, lv_zero()), tol1, -tol1));
        u = lv_sel(open, u, x);
        lv_double fu = ish_side_value(sys, b, T, D, ev, u, g);
        fu = lv_sel(lv_eq(fu, fu), fu, inf);
        lv_mask better = open & lv_le(fu, fx), worse = open & lv_not(better);
        lv_mask right = lv_ge(u, x);
        lo = lv_sel(better & right, x, lv_sel(worse & lv_lt(u, x), u, lo));
        hi = lv_sel(better & lv_not(right), x, lv_sel(worse & lv_ge(u, x), u, hi));
        lv_mask to_w = worse & (lv_le(fu, fw) | lv_eq(w, x));
        lv_mask to_v = worse & lv_not(to_w) & (lv_le(fu, fv) | lv_eq(v, x) | lv_eq(v, w));
        lv_mask shift = better | to_w;
        v = lv_sel(shift, w, lv_sel(to_v, u, v));
        fv = lv_sel(shift, fw, lv_sel(to_v, fu, fv));
        w = lv_sel(better, x, lv_sel(to_w, u, w));
        fw = lv_sel(better, fx, lv_sel(to_w, fu, fw));
        x = lv_sel(better, u, x);
        fx = lv_sel(better, fu, fx);
        for (int k = 0; k < sys->events; k++)
            g_at[k] = lv_sel(better, g[k], g_at[k]);
        open &= lv_gt(fx, lv_zero());
    }
    *fmin = fx;
    return x;
}

/* The lanes flag[e] whose estimate flagged a dip of event e near zero, from x0[e]: the
 * minimiser on the step's continuous extension; where it finds side * g <= 0, cross[e] is
 * set and *hi is the earliest such share, with the events' values there in g_hi (the
 * step's end's elsewhere); returns 1 if it found any (else g_hi is not written). Out of
 * line: rare, and not worth its code in every unrolled place (the callbacks are called
 * through the system's pointers here). */
static __attribute__((noinline)) int ish_graze_search(const is_hybrid_system *sys,
                                                       const ish_block *b, const ish_trial *T,
                                                       const lv_mask *flag, const lv_double *x0,
                                                       lv_mask *cross, lv_double *hi,
                                                       lv_double *g_hi)
{
    ish_dense D;
    ish_dense_init(sys, b, T, &D);
    lv_mask found = lv_mask_none();
    lv_double at = lv_splat(1.0), g[ISH_E] = {0};
    for (int e = 0; e < sys->events; e++) {
        lv_mask watch = flag[e];
        if (!lv_any(watch))
            continue;
        lv_double fmin, g_at[ISH_E];
        lv_double x = ish_minimise(sys, b, T, &D, watch, e, x0[e], &fmin, g_at);
        watch &= lv_le(fmin, lv_zero()) & lv_lt(x, at);
        if (!lv_any(watch))
            continue;
        cross[e] |= watch;
        found |= watch;
        at = lv_sel(watch, x, at);
        for (int k = 0; k < sys->events; k++)
            g[k] = lv_sel(watch, g_at[k], g[k]);
    }
    if (!lv_any(found))
        return 0;
    for (int k = 0; k < sys->events; k++)
        g_hi[k] = lv_sel(found, g[k], T->g1[k]);
    *hi = lv_sel(found, at, *hi);
    return 1;
}

/* Event e's rates at the step's two ends, their bits compared: the sign bit is set where
 * the signs differ (or a zero or a NaN says so). */
ISH_INLINE lv_int ish_turn_bits(const ish_block *b, const ish_trial *T, int e)
{
    return lv_as_int(b->dg[e]) ^ lv_as_int(T->dg1[e]);
}

/* The lanes where some event's rate may turn within the step: a dip with rates needs one,
 * falling at the start and rising at the end, so the lanes of no other step can flag one.
 * Two bit operations an event, where the test itself takes about ten: most steps stop
 * here. */
ISH_INLINE lv_mask ish_rates_turn(const is_hybrid_system *sys, const ish_block *b,
                                  const ish_trial *T)
{
    lv_int bits = lv_isplat(0);
    for (int e = 0; e < sys->events; e++)
        bits = bits | ish_turn_bits(b, T, e);
    return lv_igt(lv_isplat(0), bits);
}

/* The lanes m of an accepted trial step: events on their side at both ends whose estimate
 * flags a dip near zero are searched (ish_graze_search); not a landing's pending events
 * (they arrive at its end). Returns 1 where a graze was found (g_hi written). */
ISH_INLINE int ish_grazes(const is_hybrid_system *sys, ish_block *b, const ish_trial *T,
                           lv_mask m, lv_mask *cross, lv_double *hi, lv_double *g_hi)
{
    if (sys->rates)
        m &= ish_rates_turn(sys, b, T);
    if (!lv_any(m))
        return 0;
    lv_double g_mid[ISH_E];
    if (!sys->rates) { /* the sample at the step's middle */
        ish_dense D;
        lv_double y[ISH_D];
        ish_dense_init(sys, b, T, &D);
        ish_dense_at(sys, b, T, &D, lv_splat(0.5), y);
        sys->event_values(&b->pub, b->t + 0.5 * T->h, y, NULL, g_mid, NULL);
    }
    /* first the lanes that may graze, without a branch: both ends on the side, and with
     * rates the function falling at the start and rising at the end (not an event whose
     * rate does not turn in any lane: most) */
    lv_mask flag[ISH_E], maybe[ISH_E], any = lv_mask_none();
    lv_double x0[ISH_E];
    for (int e = 0; e < sys->events; e++) {
        maybe[e] = lv_mask_none();
        if (sys->rates && !lv_any(m & lv_igt(lv_isplat(0), ish_turn_bits(b, T, e))))
            continue;
        lv_double s = b->pub.side[e];
        int d = sys->direction[e];
        maybe[e] = m & lv_not(cross[e] | (b->landing & b->pend[e])) &
                   lv_gt(s * b->g[e], lv_zero()) &
                   lv_gt(s * T->g1[e], lv_zero()) &
                   (d == 0 ? lv_ne(s, lv_zero()) : lv_eq(s, lv_splat(-d)));
        if (sys->rates)
            maybe[e] &= lv_lt(s * b->dg[e], lv_zero()) & lv_gt(s * T->dg1[e], lv_zero());
        any |= maybe[e];
    }
    if (!lv_any(any))
        return 0;
    any = lv_mask_none();
    for (int e = 0; e < sys->events; e++) {
        lv_double s = b->pub.side[e], p0 = s * b->g[e], p1 = s * T->g1[e], x, px;
        lv_mask watch = maybe[e];
        flag[e] = lv_mask_none();
        x0[e] = lv_splat(0.5);
        if (!lv_any(watch))
            continue;
        if (sys->rates) {
            /* the Hermite cubic; p'(x) = A x^2 + B x + C on [0, 1]: its root where p'
             * turns from - to + */
            lv_double m0 = s * T->h * b->dg[e], m1 = s * T->h * T->dg1[e];
            lv_double A = 6.0 * (p0 - p1) + 3.0 * (m0 + m1);
            lv_double B = 6.0 * (p1 - p0) - 4.0 * m0 - 2.0 * m1;
            lv_double disc = lv_max_nanb(B * B - 4.0 * A * m0, lv_zero());
            x = lv_sel(lv_eq(A, lv_zero()), -m0 / B, (-B + lv_sqrt(disc)) / (2.0 * A));
            x = lv_min_nanb(lv_max_nanb(x, lv_zero()), lv_splat(1.0));
            lv_double r = 1.0 - x;
            px = (1.0 + 2.0 * x) * r * r * p0 + x * r * r * m0 + x * x * (3.0 - 2.0 * x) * p1 -
                 x * x * r * m1;
        } else {
            /* the parabola a2 x^2 + a1 x + p0 through the ends and the middle, or the
             * middle itself below zero */
            lv_double pm = s * g_mid[e];
            lv_double a2 = 2.0 * p0 - 4.0 * pm + 2.0 * p1, a1 = 4.0 * pm - 3.0 * p0 - p1;
            x = -a1 / (2.0 * a2);
            lv_mask below = lv_le(pm, lv_zero());
            watch &= below | (lv_gt(a2, lv_zero()) & lv_gt(x, lv_splat(-0.25)) &
                              lv_lt(x, lv_splat(1.25)));
            if (!lv_any(watch))
                continue;
            px = lv_min_nanb(p0 + x * (a1 + x * a2), pm);
            x = lv_sel(below, lv_splat(0.5), x);
        }
        lv_double depth = lv_min_nanb(p0, p1) - px;
        flag[e] = watch & lv_lt(px, depth);
        x0[e] = lv_min_nanb(lv_max_nanb(x, lv_splat(0.01)), lv_splat(0.99));
        any |= flag[e];
    }
    return lv_any(any) && ish_graze_search(sys, b, T, flag, x0, cross, hi, g_hi);
}

/* --- accumulation ------------------------------------------------------------------- */

/* After the arrivals `reset` (lanes where an IS_HYBRID_RESET event fired, fired[]): the
 * watch of their intervals, and the accumulations it finds (or sticking), handed to
 * on_accumulate. Returns the lanes to end: [0] ended by the model, [1] Zeno without a
 * model's answer. */
ISH_INLINE void ish_accumulate(const is_hybrid_system *sys, ish_block *b, lv_mask reset,
                                  const lv_mask *fired, lv_mask *ended, lv_mask *zeno)
{
    lv_double interval = b->t - b->last_reset;
    lv_mask shrunk = lv_lt(interval, b->last_interval);
    b->shrinking = lv_sel(reset, lv_sel(shrunk, b->shrinking + 1.0, lv_zero()), b->shrinking);
    lv_double q = interval / b->last_interval;
    lv_double rest = interval * q / (1.0 - q);
    lv_mask on = lv_gt(b->zeno_tail, lv_zero());
    lv_mask geometric = lv_ge(b->shrinking, b->zeno_events) & lv_lt(rest, b->zeno_tail);
    /* an interval at rounding accumulates at once only between arrivals that share an
     * event: two independent impacts (two masses, two stops) that fall ever closer in
     * time are not a Zeno sequence, however close */
    lv_mask again = lv_mask_none();
    for (int e = 0; e < sys->events; e++)
        if (sys->kind[e] == IS_HYBRID_RESET && (!sys->watch || (sys->watch >> e & 1u))) {
            again |= fired[e] & lv_ne(b->last_fired[e], lv_zero());
            b->last_fired[e] = lv_sel(reset, lv_sel(fired[e], lv_splat(1.0), lv_zero()),
                                      b->last_fired[e]);
        }
    lv_mask at_once = again & lv_le(interval, 64.0 * DBL_EPSILON * (1.0 + lv_abs(b->t)));
    /* the stall: after a descent of ISH_STALL_RUN new smallest intervals to
     * ISH_STALL_DEPTH times shorter than the run's first, an interval that does not shrink
     * further: the intervals have reached the rounding of the events' location, where the
     * sequence can no longer shrink (a chatter that ends instead, its contact force
     * changing sign within the rest of so deep a descent, is not generic) */
    lv_mask new_min = lv_lt(interval, b->run_min);
    lv_mask stall = lv_not(new_min) & lv_ge(b->run_count, lv_splat(ISH_STALL_RUN)) &
                    lv_le(b->run_min, b->run_first * (1.0 / ISH_STALL_DEPTH));
    lv_mask restart = reset & lv_not(new_min);
    b->run_count = lv_sel(reset, lv_sel(new_min, b->run_count + 1.0, lv_zero()), b->run_count);
    b->run_first = lv_sel(restart | (reset & lv_eq(b->run_first, lv_splat(__builtin_inf()))),
                          interval, b->run_first);
    b->run_min = lv_sel(reset, interval, b->run_min);
    /* sticking: a reset that leaves the event's rate at most stick_speed, or heading back
     * through the event (a crossing that was rounding: the lane was leaving) */
    lv_mask stuck = lv_mask_none();
    if (sys->rates)
        for (int e = 0; e < sys->events; e++)
            if (sys->kind[e] == IS_HYBRID_RESET && (!sys->watch || (sys->watch >> e & 1u))) {
                lv_double away = b->pub.side[e] * b->dg[e];
                stuck |= fired[e] & ((lv_le(away, b->stick_speed) &
                                      lv_gt(b->stick_speed, lv_zero())) |
                                     (on & lv_lt(away, lv_zero())));
            }
    lv_mask accumulate = reset & ((on & (geometric | at_once | stall)) | stuck);
    b->last_interval = lv_sel(reset, interval, b->last_interval);
    b->last_reset = lv_sel(reset, b->t, b->last_reset);
    if (!lv_any(accumulate))
        return;
    lv_double t_star = lv_sel(geometric & lv_not(stuck | at_once | stall), b->t + rest, b->t);
    if (!sys->on_accumulate) {
        *zeno |= accumulate;
        return;
    }
    lv_double y[ISH_D];
    for (int i = 0; i < sys->dimension; i++)
        y[i] = b->y[i];
    *ended |= accumulate & sys->on_accumulate(&b->pub, accumulate, b->t, t_star, y);
    for (int i = 0; i < sys->dimension; i++)
        b->y[i] = lv_sel(accumulate, y[i], b->y[i]);
    b->t = lv_sel(accumulate, t_star, b->t);
    b->accumulations = lv_add_where(accumulate, b->accumulations, lv_splat(1.0));
    b->shrinking = lv_sel(accumulate, lv_zero(), b->shrinking);
    b->run_min = lv_sel(accumulate, lv_splat(__builtin_inf()), b->run_min);
    b->run_first = lv_sel(accumulate, lv_splat(__builtin_inf()), b->run_first);
    b->run_count = lv_sel(accumulate, lv_zero(), b->run_count);
    b->last_interval = lv_sel(accumulate, lv_splat(__builtin_inf()), b->last_interval);
    b->last_reset = lv_sel(accumulate, b->t, b->last_reset);
    ish_at_state(sys, b, accumulate, 1);
    if (sys->sections)
        ish_sections(sys, b, accumulate);
}

#endif
