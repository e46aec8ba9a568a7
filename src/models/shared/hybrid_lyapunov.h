/* hybrid_lyapunov.h: Lyapunov exponents of is_hybrid_run (included by hybrid_impl.h, after
 * its block and trial step types; installed with hybrid.h; private names begin with ish_).
 * A system that sets is_hybrid_system.lyapunov (a const is_hybrid_lyapunov) gets, per
 * point, the largest exponent (or the `vectors` largest) in is_hybrid_end.lyapunov, in
 * 1 / (the model's time unit), with a convergence measure. How:
 *
 *   - Tangent vectors evolve with the state over every accepted step. Field mode: the
 *     variational equations v' = J(t, y) v, integrated by the same DOPRI5 step as the
 *     state (the step's stages give the states where J is taken: the combined system's
 *     step, with the step size the state's error chose). Flow mode: v <- D(flow) v, the
 *     model's derivative of its flow over the step.
 *   - At every event that lands (a reset, a kink, a switch of mode; not an observe event)
 *     the saltation matrix (Mueller 1995; di Bernardo et al. 2008)
 *         S = R_x + (f+ - R_x f- - R_t) n^T / (n^T f- + g_t)
 *     maps them: n and g_t the event function's gradient in y and its partial derivative
 *     in t (n^T f- + g_t: the event's rate, the model's own where it gives rates), f- and
 *     f+ the fields before and after (at the state before and after the reset), R_x and
 *     R_t the reset's derivatives in y and t (identity and zero where the state does not
 *     jump). Events that happen together (two masses on two stops hit at once): nearby
 *     motions meet them one after the other, so each one's saltation matrix is taken in
 *     turn, at the state the ones before left (on_event with that event alone, on a copy
 *     of the lanes: with `lyapunov`, on_event must change nothing but y and b->rec); where
 *     the order of the indices and its reverse give different maps (a corner: a coupling
 *     through the reset velocities) the exponents are undecided, NaN with the reason in
 *     is_hybrid_end.lyapunov_reason.
 *     An accumulation (Zeno) maps them by accumulate_jacobian, or to zero without it:
 *     nearby motions that accumulate onto a constraint reach the same state there.
 *   - Benettin's renormalisation: every `interval` of time (at the first step end on or
 *     after it; 0: every step), Gram-Schmidt orthonormalisation (modified), the log of
 *     each vector's norm added up once the transient is over. Exponent k is that sum over
 *     the time since the transient's end; lyapunov_error is the spread (max - min) of the
 *     running estimate of the largest at the renormalisations of the last quarter of the
 *     time from the transient's end to the horizon, and the end (NaN: fewer than two).
 *   - A tangent that collapses to zero (a motion caught by sticking: nearby motions merge
 *     in finite time) gives -inf.
 *
 * A system without it pays nothing: every hook is behind `if (sys->lyapunov)`, a
 * constant where is_hybrid_run is inlined, and the tangents live in memory of their own. */
#ifndef IMPACTSWEEP_HYBRID_LYAPUNOV_H
#define IMPACTSWEEP_HYBRID_LYAPUNOV_H

/* What a model gives for its Lyapunov exponents. Matrices are [row][column] over the
 * tangent's components (i, j < dimension): every entry there is to be written (the
 * integrator clears them first, so a zero may be left out). All callbacks work on vectors
 * of lanes like the system's own (idle lanes included: they must not fail). */
typedef struct is_hybrid_lyapunov {
    int dimension; /* the tangent's components: the state's first `dimension` (0: all); the
                      others (a mode's flag) must not move continuously */
    int vectors;   /* exponents: 1 the largest, up to dimension the spectrum (0: 1) */
    /* field mode: J[i][j] = df_i/dy_j at (t, y) */
    void (*jacobian)(is_hybrid_lanes *b, lv_double t, const lv_double *y,
                     lv_double (*J)[IS_HYBRID_MAX_DIM]);
    /* flow mode: P[i][j] = d y_i(t0 + dt) / d y0_j of the flow from (t0, y0) */
    void (*flow_jacobian)(const is_hybrid_lanes *b, lv_double t0, const lv_double *y0,
                          lv_double dt, lv_double (*P)[IS_HYBRID_MAX_DIM]);
    /* flow mode: the vector field f(t, y) (for the saltation matrices; field mode uses the
     * system's field); without it, or without event_gradient, the exponents of a point
     * that meets an event are NaN */
    void (*field)(const is_hybrid_lanes *b, lv_double t, const lv_double *y, lv_double *f);
    /* n[e][i] = dg_e/dy_i and g_t[e] = dg_e/dt (partial) at (t, y), every event (g_t only
     * without the system's rates: with them, n^T f + g_t is the rate it gives); in the
     * mode of y (the state before the event) */
    void (*event_gradient)(const is_hybrid_lanes *b, lv_double t, const lv_double *y,
                           lv_double (*n)[IS_HYBRID_MAX_DIM], lv_double *g_t);
    /* optional: the derivative of on_event's reset at (t, y) (y: the state before it) for
     * the lanes fired[e]: R[i][j] = d y+_i / d y_j, R_t[i] = d y+_i / dt (the integrator
     * sets the identity and zero first: change only where the state jumps) */
    void (*reset_jacobian)(const is_hybrid_lanes *b, const lv_mask *fired, lv_double t,
                           const lv_double *y, lv_double (*R)[IS_HYBRID_MAX_DIM],
                           lv_double *R_t);
    /* optional: the derivative of on_accumulate's state at t_star (y: the state after it)
     * in the state before, for the lanes m (the integrator clears A first) */
    void (*accumulate_jacobian)(const is_hybrid_lanes *b, lv_mask m, lv_double t_star,
                                const lv_double *y, lv_double (*A)[IS_HYBRID_MAX_DIM]);
} is_hybrid_lyapunov;

/* The tangent vectors of one block's lanes (v[k][i]: component i of vector k) and their
 * renormalisation: the log sums since t_from (on: the transient over), the next
 * renormalisation (t_base + count interval), and the running estimate's extremes over
 * the last quarter (from t_quarter, `samples` of them). */
typedef struct ish_lyap {
    lv_double v[ISH_D][ISH_D], sum[ISH_D];
    lv_double t_from, t_base, count, interval, t_next, t_quarter, lo, hi, samples;
    lv_double why; /* ISH_LY_* : why the exponents are undecided (0: they are not) */
    lv_mask on;
} ish_lyap;

/* Why a lane's exponents are undecided (ish_lyap.why; is_hybrid_end.lyapunov_reason). */
#define ISH_LY_OK 0.0
#define ISH_LY_UNGIVEN 1.0 /* an event landed, and no event_gradient or field was given */
#define ISH_LY_CORNER 2.0  /* events fired together whose orders map differently */
#define ISH_LY_SAMPLES 3.0 /* events fired together, and on_event samples itself */

#define ISH_LY(sys) ((const is_hybrid_lyapunov *)(sys)->lyapunov)
#define ISH_LY_DIM(sys) (ISH_LY(sys)->dimension > 0 ? ISH_LY(sys)->dimension : (sys)->dimension)
#define ISH_LY_VEC(sys)                                                                    \
    (ISH_LY(sys)->vectors <= 0 ? 1 : ISH_LY(sys)->vectors < ISH_LY_DIM(sys) ? ISH_LY(sys)->vectors \
                                                                             : ISH_LY_DIM(sys))

/* The blocks' tangents (one allocation, freed by ish_lyap_free): 0, or -1 without
 * memory. */
ISH_INLINE int ish_lyap_alloc(const is_hybrid_system *sys, ish_block *blocks)
{
    const size_t size = (sizeof(ish_lyap) * IS_HYBRID_BLOCKS + 63) / 64 * 64;
    ish_lyap *ly = aligned_alloc(64, size);
    if (!ly)
        return -1;
    memset(ly, 0, size);
    for (int j = 0; j < IS_HYBRID_BLOCKS; j++)
        blocks[j].ly = &ly[j];
    (void)sys;
    return 0;
}

ISH_INLINE void ish_lyap_free(ish_block *blocks)
{
    free(blocks[0].ly);
}

/* log x in lanes: -inf at 0, x itself where x is inf or NaN. */
ISH_INLINE lv_double ish_lyap_log(lv_double x)
{
    lv_mask normal = lv_gt(x, lv_zero()) & lv_lt(x, lv_splat(__builtin_inf()));
    lv_double hi, lo;
    lv_log_dd(lv_sel(normal, x, lv_splat(1.0)), &hi, &lo);
    return lv_sel(normal, hi + lo, lv_sel(lv_eq(x, lv_zero()), lv_splat(-__builtin_inf()), x));
}

/* Lane l takes the point s: its tangent vectors a fixed generic set (e_k plus a little of
 * every component, so that no exponent's direction is missed by symmetry), orthonormal. */
/* Lane l's tangents: a generic orthonormal set (no vector along a coordinate axis, where
 * a model's symmetry could hide a direction). */
ISH_INLINE void ish_lyap_seed(const is_hybrid_system *sys, ish_lyap *ly, int l)
{
    const int m = ISH_LY_DIM(sys), nv = ISH_LY_VEC(sys);
    for (int k = 0; k < nv; k++) {
        double v[ISH_D];
        for (int i = 0; i < m; i++)
            v[i] = (i == k ? 1.0 : 0.0) + 0.125 * (1.0 + 0.5 * i) / (1.0 + k);
        for (int q = 0; q < k; q++) {
            double d = 0.0;
            for (int i = 0; i < m; i++)
                d += v[i] * ly->v[q][i][l];
            for (int i = 0; i < m; i++)
                v[i] -= d * ly->v[q][i][l];
        }
        double n2 = 0.0;
        for (int i = 0; i < m; i++)
            n2 += v[i] * v[i];
        for (int i = 0; i < m; i++)
            ly->v[k][i][l] = v[i] / sqrt(n2);
    }
}

ISH_INLINE void ish_lyap_load(const is_hybrid_system *sys, ish_block *b, int l,
                              const is_hybrid_start *s)
{
    ish_lyap *ly = b->ly;
    ish_lyap_seed(sys, ly, l);
    for (int k = 0; k < ISH_LY_VEC(sys); k++)
        ly->sum[k][l] = 0.0;
    double from = s->t + (s->lyapunov_transient > 0.0 ? s->lyapunov_transient : 0.0);
    ly->t_from[l] = from;
    ly->t_base[l] = s->t;
    ly->count[l] = 0.0;
    ly->interval[l] = s->lyapunov_interval > 0.0 ? s->lyapunov_interval : 0.0;
    ly->t_next[l] = s->lyapunov_interval > 0.0 ? s->t + s->lyapunov_interval : s->t;
    ly->t_quarter[l] = from + 0.75 * (s->t_end - from);
    ly->lo[l] = __builtin_inf();
    ly->hi[l] = -__builtin_inf();
    ly->samples[l] = 0.0;
    ly->why[l] = ISH_LY_OK;
    lv_mask lane = lv_eq(lv_iota(), lv_splat(l));
    ly->on = s->lyapunov_transient > 0.0 ? ly->on & lv_not(lane) : ly->on | lane;
}

/* y = M v over the tangent's components (M [row][column]). */
ISH_INLINE void ish_lyap_apply(int m, lv_double (*M)[ISH_D], const lv_double *v, lv_double *y)
{
    for (int i = 0; i < m; i++) {
        lv_double s = M[i][0] * v[0];
        for (int j = 1; j < m; j++)
            s = s + M[i][j] * v[j];
        y[i] = s;
    }
}

ISH_INLINE void ish_lyap_clear(lv_double (*M)[ISH_D], int m)
{
    for (int i = 0; i < m; i++)
        for (int j = 0; j < m; j++)
            M[i][j] = lv_zero();
}

/* The tangents of the lanes m over the trial step T from the block's (t, y) (before the
 * state advances): the variational equations by the step's DOPRI5 stages, or the flow's
 * derivative. */
ISH_INLINE void ish_lyap_step(const is_hybrid_system *sys, ish_block *b, const ish_trial *T,
                              lv_mask m)
{
    if (!lv_any(m))
        return;
    ish_lyap *ly = b->ly;
    const int d = ISH_LY_DIM(sys), nv = ISH_LY_VEC(sys), n = sys->dimension;
    lv_double M[ISH_D][ISH_D], w[ISH_D][ISH_D];
    if (!sys->field) {
        ish_lyap_clear(M, d);
        ISH_LY(sys)->flow_jacobian(&b->pub, b->t, b->y, T->h, M);
        for (int k = 0; k < nv; k++)
            ish_lyap_apply(d, M, ly->v[k], w[k]);
    } else {
        lv_double kv[6][ISH_D][ISH_D], s[ISH_D], u[ISH_D]; /* kv[stage][vector][component] */
        for (int st = 0; st < 6; st++) {
            for (int i = 0; i < n; i++) {
                lv_double sum = lv_zero();
                for (int q = 0; q < st; q++)
                    if (ish_a[st][q] != 0.0)
                        sum = sum + ish_a[st][q] * T->k[q][i];
                s[i] = st == 0 ? b->y[i] : b->y[i] + T->h * sum;
            }
            ish_lyap_clear(M, d);
            ISH_LY(sys)->jacobian(&b->pub, b->t + ish_c[st] * T->h, s, M);
            for (int k = 0; k < nv; k++) {
                for (int i = 0; i < d; i++) {
                    lv_double sum = lv_zero();
                    for (int q = 0; q < st; q++)
                        if (ish_a[st][q] != 0.0)
                            sum = sum + ish_a[st][q] * kv[q][k][i];
                    u[i] = st == 0 ? ly->v[k][i] : ly->v[k][i] + T->h * sum;
                }
                ish_lyap_apply(d, M, u, kv[st][k]);
            }
        }
        for (int k = 0; k < nv; k++)
            for (int i = 0; i < d; i++) {
                lv_double sum = lv_zero();
                for (int q = 0; q < 6; q++)
                    if (ish_a[6][q] != 0.0)
                        sum = sum + ish_a[6][q] * kv[q][k][i];
                w[k][i] = ly->v[k][i] + T->h * sum;
            }
    }
    for (int k = 0; k < nv; k++)
        for (int i = 0; i < d; i++)
            ly->v[k][i] = lv_sel(m, w[k][i], ly->v[k][i]);
}

/* Renormalises the tangents of the lanes m (Gram-Schmidt), their logs added where the
 * transient is over; starts the count where it has just ended; the running estimate's
 * extremes in the last quarter. */
ISH_INLINE void ish_lyap_renormalise(const is_hybrid_system *sys, ish_block *b, lv_mask m)
{
    ish_lyap *ly = b->ly;
    const int d = ISH_LY_DIM(sys), nv = ISH_LY_VEC(sys);
    lv_mask collapsed = lv_mask_none();
    for (int k = 0; k < nv; k++) {
        for (int q = 0; q < k; q++) {
            lv_double dot = lv_zero();
            for (int i = 0; i < d; i++)
                dot = dot + ly->v[k][i] * ly->v[q][i];
            for (int i = 0; i < d; i++)
                ly->v[k][i] = lv_sel(m, ly->v[k][i] - dot * ly->v[q][i], ly->v[k][i]);
        }
        lv_double n2 = lv_zero();
        for (int i = 0; i < d; i++)
            n2 = n2 + ly->v[k][i] * ly->v[k][i];
        lv_double norm = lv_sqrt(n2);
        collapsed |= lv_eq(norm, lv_zero());
        /* (a collapsed vector stays zero: its log is -inf, and it has no direction) */
        lv_double scale = lv_sel(lv_gt(norm, lv_zero()), 1.0 / norm, lv_splat(1.0));
        for (int i = 0; i < d; i++)
            ly->v[k][i] = lv_sel(m, ly->v[k][i] * scale, ly->v[k][i]);
        ly->sum[k] = lv_add_where(m & ly->on, ly->sum[k], ish_lyap_log(norm));
    }
    lv_mask begin = m & lv_not(ly->on) & lv_ge(b->t, ly->t_from);
    ly->t_from = lv_sel(begin, b->t, ly->t_from);
    for (int k = 0; k < nv; k++)
        ly->sum[k] = lv_sel(begin, lv_zero(), ly->sum[k]);
    ly->on |= begin;
    /* A tangent that collapsed in the transient (the motion stuck once: nearby motions
     * merged) stays zero; the exponent asked for is the attractor's, so it starts again
     * where the count starts. A collapse after that still gives -inf. */
    lv_mask reseed = begin & collapsed;
    if (lv_any(reseed))
        for (int l = 0; l < LV_WIDTH; l++)
            if (lv_mask_lane(reseed, l))
                ish_lyap_seed(sys, ly, l);
    lv_mask late = m & ly->on & lv_ge(b->t, ly->t_quarter) & lv_gt(b->t, ly->t_from);
    lv_double estimate = ly->sum[0] / (b->t - ly->t_from);
    ly->lo = lv_sel(late, lv_min_nanb(ly->lo, estimate), ly->lo);
    ly->hi = lv_sel(late, lv_max_nanb(ly->hi, estimate), ly->hi);
    ly->samples = lv_add_where(late, ly->samples, lv_splat(1.0));
}

/* After an accepted step or an arrival of the lanes m, at the block's t: the
 * renormalisation where it is due, and the next one's time. */
ISH_INLINE void ish_lyap_due(const is_hybrid_system *sys, ish_block *b, lv_mask m)
{
    ish_lyap *ly = b->ly;
    m &= lv_ge(b->t, ly->t_next);
    if (!lv_any(m))
        return;
    ish_lyap_renormalise(sys, b, m);
    /* the next: t_base + count interval past t (as the sections' times are made, so that
     * renormalisations at a section's period fall on the sections' step ends) */
    lv_double x = (b->t - ly->t_base) / ly->interval, n = (x + 0x1.8p52) - 0x1.8p52;
    n = lv_sel(lv_gt(n, x), n - 1.0, n); /* floor */
    lv_double count = lv_max_nanb(ly->count + 1.0, n + 1.0);
    lv_mask periodic = m & lv_gt(ly->interval, lv_zero());
    ly->count = lv_sel(periodic, count, ly->count);
    ly->t_next = lv_sel(periodic, ly->t_base + count * ly->interval,
                        lv_sel(m, b->t, ly->t_next));
}

/* The lanes A arriving at events (fired[]) at t1, after on_event and the block's state and
 * field there (the trial step T's end: the state and field before): the saltation matrix
 * of the first fired event that lands. */
ISH_INLINE void ish_lyap_jump(const is_hybrid_system *sys, ish_block *b, const ish_trial *T,
                              lv_mask A, const lv_mask *fired, lv_double t1)
{
    const is_hybrid_lyapunov *L = ISH_LY(sys);
    ish_lyap *ly = b->ly;
    const int d = ISH_LY_DIM(sys), nv = ISH_LY_VEC(sys);
    lv_double n[ISH_E][ISH_D], g_t[ISH_E], R[ISH_D][ISH_D], R_t[ISH_D], fm[ISH_D], fp[ISH_D];
    lv_double nn[ISH_D], nt = lv_zero();
    lv_mask which[ISH_E], done = lv_mask_none();
    for (int e = 0; e < sys->events; e++) {
        which[e] = sys->kind[e] == IS_HYBRID_OBSERVE ? lv_mask_none() : A & fired[e] & lv_not(done);
        done |= which[e];
    }
    if (!lv_any(done))
        return;
    if (!L->event_gradient || (!sys->field && !L->field)) { /* (not given: no exponent) */
        for (int k = 0; k < nv; k++)
            for (int i = 0; i < d; i++)
                ly->v[k][i] = lv_sel(done, lv_splat(__builtin_nan("")), ly->v[k][i]);
        ly->why = lv_sel(done & lv_eq(ly->why, lv_zero()), lv_splat(ISH_LY_UNGIVEN), ly->why);
        return;
    }
    for (int e = 0; e < sys->events; e++) {
        g_t[e] = lv_zero();
        for (int i = 0; i < d; i++)
            n[e][i] = lv_zero();
    }
    L->event_gradient(&b->pub, t1, T->y1, n, g_t);
    for (int i = 0; i < d; i++)
        nn[i] = lv_zero();
    for (int e = 0; e < sys->events; e++) {
        for (int i = 0; i < d; i++)
            nn[i] = lv_sel(which[e], n[e][i], nn[i]);
        nt = lv_sel(which[e], g_t[e], nt);
    }
    for (int i = 0; i < d; i++) {
        for (int j = 0; j < d; j++)
            R[i][j] = lv_splat(i == j ? 1.0 : 0.0);
        R_t[i] = lv_zero();
    }
    if (L->reset_jacobian)
        L->reset_jacobian(&b->pub, which, t1, T->y1, R, R_t);
    if (sys->field) {
        for (int i = 0; i < d; i++)
            fm[i] = T->k[6][i], fp[i] = b->f[i];
    } else {
        L->field(&b->pub, t1, T->y1, fm);
        L->field(&b->pub, t1, b->y, fp);
    }
    /* S = R + (f+ - R f- - R_t) n^T / (n^T f- + g_t), the denominator the event's rate
     * along the solution: the model's where it gives them (and they are known) */
    lv_double rate = nt, given = lv_splat(__builtin_nan("")), c[ISH_D], Rf[ISH_D], w[ISH_D];
    for (int i = 0; i < d; i++)
        rate = rate + nn[i] * fm[i];
    if (sys->rates)
        for (int e = 0; e < sys->events; e++)
            given = lv_sel(which[e], T->dg1[e], given);
    rate = lv_sel(lv_eq(given, given), given, rate);
    ish_lyap_apply(d, R, fm, Rf);
    for (int i = 0; i < d; i++)
        c[i] = fp[i] - Rf[i] - R_t[i];
    for (int k = 0; k < nv; k++) {
        lv_double along = lv_zero();
        for (int j = 0; j < d; j++)
            along = along + nn[j] * ly->v[k][j];
        /* (none where n^T v is 0: an event of time alone, whose rate may be 0 too) */
        along = lv_sel(lv_eq(along, lv_zero()), lv_zero(), along / rate);
        ish_lyap_apply(d, R, ly->v[k], w);
        for (int i = 0; i < d; i++)
            ly->v[k][i] = lv_sel(done, w[i] + c[i] * along, ly->v[k][i]);
    }
}

/* The lanes of A where more than one event that lands fired at once (they take
 * ish_lyap_corner instead of ish_lyap_jump). */
ISH_INLINE lv_mask ish_lyap_several(const is_hybrid_system *sys, lv_mask A, const lv_mask *fired)
{
    lv_mask one = lv_mask_none(), more = lv_mask_none();
    for (int e = 0; e < sys->events; e++)
        if (sys->kind[e] != IS_HYBRID_OBSERVE) {
            more |= one & fired[e];
            one |= fired[e];
        }
    return A & more;
}

/* The tangent map M (d x d) of the events fired[] of the lanes C taken one at a time, in
 * the order of their indices (dir 1) or its reverse (dir -1), from the state before them
 * (T->y1, the lanes `before` on_event): each event's saltation matrix at the state the
 * ones before it left, the state between two found by on_event with that event alone,
 * on a copy of the lanes. */
ISH_INLINE void ish_lyap_order(const is_hybrid_system *sys, const ish_block *b,
                               const ish_trial *T, lv_mask C, const lv_mask *fired,
                               lv_double t1, const is_hybrid_lanes *before, int dir,
                               lv_double (*M)[ISH_D])
{
    const is_hybrid_lyapunov *L = ISH_LY(sys);
    const int d = ISH_LY_DIM(sys), n = sys->dimension, ne = sys->events;
    is_hybrid_lanes c = *before;
    lv_double y[ISH_D], f[ISH_D], y2[ISH_D], f2[ISH_D], S[ISH_D][ISH_D], P[ISH_D][ISH_D];
    for (int i = 0; i < n; i++)
        y[i] = T->y1[i], f[i] = sys->field ? T->k[6][i] : lv_zero();
    if (!sys->field)
        L->field(&c, t1, y, f);
    for (int i = 0; i < d; i++)
        for (int j = 0; j < d; j++)
            M[i][j] = lv_splat(i == j ? 1.0 : 0.0);
    for (int q = 0; q < ne; q++) {
        const int e = dir > 0 ? q : ne - 1 - q;
        lv_mask E = sys->kind[e] == IS_HYBRID_OBSERVE ? lv_mask_none() : C & fired[e];
        if (!lv_any(E))
            continue;
        lv_mask only[ISH_E];
        for (int k = 0; k < ne; k++)
            only[k] = k == e ? E : lv_mask_none();
        lv_double nv[ISH_E][ISH_D], g_t[ISH_E], R[ISH_D][ISH_D], R_t[ISH_D];
        for (int k = 0; k < ne; k++) {
            g_t[k] = lv_zero();
            for (int i = 0; i < d; i++)
                nv[k][i] = lv_zero();
        }
        L->event_gradient(&c, t1, y, nv, g_t);
        lv_double rate = g_t[e];
        for (int i = 0; i < d; i++)
            rate = rate + nv[e][i] * f[i];
        if (sys->rates) { /* (the model's rate where it gives one, as ish_lyap_jump) */
            lv_double g[ISH_E], dg[ISH_E];
            sys->event_values(&c, t1, y, sys->field ? f : NULL, g, dg);
            rate = lv_sel(lv_eq(dg[e], dg[e]), dg[e], rate);
        }
        for (int i = 0; i < d; i++) {
            for (int j = 0; j < d; j++)
                R[i][j] = lv_splat(i == j ? 1.0 : 0.0);
            R_t[i] = lv_zero();
        }
        if (L->reset_jacobian)
            L->reset_jacobian(&c, only, t1, y, R, R_t);
        for (int i = 0; i < n; i++)
            y2[i] = y[i];
        (void)sys->on_event(&c, only, t1, y2);
        c.side[e] = lv_sel(E, b->pub.side[e], c.side[e]); /* (the side it is on after) */
        if (sys->field)
            sys->field(&c, t1, y2, f2);
        else
            L->field(&c, t1, y2, f2);
        /* S = R + (f+ - R f- - R_t) n^T / rate (no n^T term where n is 0) */
        lv_double Rf[ISH_D];
        ish_lyap_apply(d, R, f, Rf);
        for (int i = 0; i < d; i++)
            for (int j = 0; j < d; j++) {
                lv_double w = lv_sel(lv_eq(nv[e][j], lv_zero()), lv_zero(), nv[e][j] / rate);
                S[i][j] = R[i][j] + (f2[i] - Rf[i] - R_t[i]) * w;
            }
        for (int i = 0; i < d; i++)
            for (int j = 0; j < d; j++) {
                lv_double sum = S[i][0] * M[0][j];
                for (int k = 1; k < d; k++)
                    sum = sum + S[i][k] * M[k][j];
                P[i][j] = sum;
            }
        for (int i = 0; i < d; i++)
            for (int j = 0; j < d; j++)
                M[i][j] = lv_sel(E, P[i][j], M[i][j]);
        for (int i = 0; i < n; i++)
            y[i] = lv_sel(E, y2[i], y[i]), f[i] = lv_sel(E, f2[i], f[i]);
    }
}

/* The lanes C where several events that land fired at once (ish_lyap_several), after the
 * arrival (the lanes `before` on_event: their sides and records then). Nearby motions meet
 * the events one after the other, in either order: the tangent map is the product of
 * their saltation matrices in the order met. Where the two orders give the same product
 * (to 1e-9 of its entries' largest: events of independent parts, say two masses on two
 * stops) it is that product; where they differ the map is not one matrix (a corner) and
 * the exponents are undecided (NaN, with the reason). With three or more, the order of
 * the indices and its reverse are compared. */
ISH_INLINE void ish_lyap_corner(const is_hybrid_system *sys, ish_block *b, const ish_trial *T,
                                lv_mask C, const lv_mask *fired, lv_double t1,
                                const is_hybrid_lanes *before)
{
    const is_hybrid_lyapunov *L = ISH_LY(sys);
    ish_lyap *ly = b->ly;
    const int d = ISH_LY_DIM(sys), nv = ISH_LY_VEC(sys);
    lv_double why = lv_splat(ISH_LY_OK), nan = lv_splat(__builtin_nan(""));
    lv_mask bad = lv_mask_none();
    if (!L->event_gradient || (!sys->field && !L->field)) {
        bad = C, why = lv_splat(ISH_LY_UNGIVEN);
    } else if (sys->own_event_samples) {
        bad = C, why = lv_splat(ISH_LY_SAMPLES);
    } else {
        lv_double F[ISH_D][ISH_D], B[ISH_D][ISH_D], w[ISH_D];
        ish_lyap_order(sys, b, T, C, fired, t1, before, 1, F);
        ish_lyap_order(sys, b, T, C, fired, t1, before, -1, B);
        lv_double diff = lv_zero(), size = lv_zero();
        for (int i = 0; i < d; i++)
            for (int j = 0; j < d; j++) {
                diff = lv_max_nanb(diff, lv_abs(F[i][j] - B[i][j]));
                size = lv_max_nanb(size, lv_max_nanb(lv_abs(F[i][j]), lv_abs(B[i][j])));
            }
        bad = C & lv_not(lv_le(diff, 1e-9 * size)); /* (NaN: bad) */
        why = lv_splat(ISH_LY_CORNER);
        for (int k = 0; k < nv; k++) {
            ish_lyap_apply(d, F, ly->v[k], w);
            for (int i = 0; i < d; i++)
                ly->v[k][i] = lv_sel(C, w[i], ly->v[k][i]);
        }
    }
    for (int k = 0; k < nv; k++)
        for (int i = 0; i < d; i++)
            ly->v[k][i] = lv_sel(bad, nan, ly->v[k][i]);
    ly->why = lv_sel(bad & lv_eq(ly->why, lv_zero()), why, ly->why);
}

/* After an arrival of the lanes A: the lanes `acc` that accumulated map their tangents
 * (accumulate_jacobian, or to zero); then the renormalisation where due. */
ISH_INLINE void ish_lyap_arrived(const is_hybrid_system *sys, ish_block *b, lv_mask A,
                                 lv_mask acc)
{
    ish_lyap *ly = b->ly;
    const int d = ISH_LY_DIM(sys), nv = ISH_LY_VEC(sys);
    if (lv_any(acc)) {
        lv_double M[ISH_D][ISH_D], w[ISH_D];
        ish_lyap_clear(M, d);
        if (ISH_LY(sys)->accumulate_jacobian)
            ISH_LY(sys)->accumulate_jacobian(&b->pub, acc, b->t, b->y, M);
        for (int k = 0; k < nv; k++) {
            /* (zero without the model's map: not 0 times a tangent that a chatter's
             * grazing impacts may have made infinite) */
            if (ISH_LY(sys)->accumulate_jacobian)
                ish_lyap_apply(d, M, ly->v[k], w);
            for (int i = 0; i < d; i++)
                ly->v[k][i] = lv_sel(acc, ISH_LY(sys)->accumulate_jacobian ? w[i] : lv_zero(),
                                     ly->v[k][i]);
        }
    }
    ish_lyap_due(sys, b, A & b->active);
}

/* Lane l's exponents for its end: a last renormalisation at its end, then the sums over
 * the time since the transient's end (NaN if it never ended). */
ISH_INLINE void ish_lyap_end(const is_hybrid_system *sys, ish_block *b, int l, is_hybrid_end *e)
{
    ish_lyap *ly = b->ly;
    ish_lyap_renormalise(sys, b, lv_eq(lv_iota(), lv_splat(l)));
    int on = lv_mask_lane(ly->on, l);
    double span = b->t[l] - ly->t_from[l];
    double why = ly->why[l];
    for (int k = 0; k < ISH_LY_VEC(sys); k++)
        e->lyapunov[k] = on && span > 0.0 && why == ISH_LY_OK ? ly->sum[k][l] / span : NAN;
    e->lyapunov_error = on && ly->samples[l] >= 2.0 && why == ISH_LY_OK ? ly->hi[l] - ly->lo[l]
                                                                        : NAN;
    e->lyapunov_reason =
        why == ISH_LY_UNGIVEN ? "an event landed, and the system's lyapunov has no "
                                "event_gradient (or, in flow mode, no field)"
        : why == ISH_LY_CORNER ? "events fired together whose saltation matrices taken in one "
                                 "order and in the other differ (a corner: nearby motions "
                                 "meet them in either order, and the tangent map is not one "
                                 "matrix)"
        : why == ISH_LY_SAMPLES ? "events fired together, and on_event samples itself "
                                  "(own_event_samples): their orders cannot be tried"
        : !on || span <= 0.0 ? "the run ended before the transient did"
                             : "";
}

#endif
