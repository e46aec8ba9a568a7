/* hybrid_impl.h: how is_hybrid_run works (hybrid.h is the contract; include that, not
 * this). Private names begin with ish_. A round takes one trial step of every busy block
 * (ish_trial_steps), then settles each block (ish_settle): lanes whose step crossed an
 * event locate it (ish_locate) and either report it on the dense output (observe) or go
 * there by their next step (landing); landed lanes arrive (ish_arrive: on_event, resets,
 * accumulation); the others accept or reject their step. Lanes whose run is over are
 * finished and refilled from the batch between rounds (ish_refill). */
#ifndef IMPACTSWEEP_HYBRID_IMPL_H
#define IMPACTSWEEP_HYBRID_IMPL_H

/* Dormand & Prince (1980) 5(4): nodes, rows, the 5th-order weights (the last row: the
 * step is first same as last), the error weights (5th minus 4th order) and Hairer's
 * dense output of order 4 (DOPRI5's contd5). */
static const double ish_c[7] = {0.0, 1.0 / 5, 3.0 / 10, 4.0 / 5, 8.0 / 9, 1.0, 1.0};
static const double ish_a[7][6] = {
    {0},
    {1.0 / 5},
    {3.0 / 40, 9.0 / 40},
    {44.0 / 45, -56.0 / 15, 32.0 / 9},
    {19372.0 / 6561, -25360.0 / 2187, 64448.0 / 6561, -212.0 / 729},
    {9017.0 / 3168, -355.0 / 33, 46732.0 / 5247, 49.0 / 176, -5103.0 / 18656},
    {35.0 / 384, 0.0, 500.0 / 1113, 125.0 / 192, -2187.0 / 6784, 11.0 / 84}};
static const double ish_e[7] = {71.0 / 57600,      0.0,           -71.0 / 16695, 71.0 / 1920,
                                -17253.0 / 339200, 22.0 / 525,    -1.0 / 40};
static const double ish_d[7] = {-12715105075.0 / 11282082432.0, 0.0,
                                87487479700.0 / 32700410799.0,  -10690763975.0 / 1880347072.0,
                                701980252875.0 / 199316789632.0, -1453857185.0 / 822651844.0,
                                69997945.0 / 29380423.0};

/* Every function is inlined into the model's call of is_hybrid_run, where the system is
 * a constant: its sizes, kinds and callbacks fold, the loops over the state and the
 * events unroll, and the callbacks inline. */
#define ISH_INLINE static inline __attribute__((always_inline))

/* ish_landed's Newton corrections of a landing: while its pending event's root is more
 * than this share of the step away, at most this many times. (1e-4 and 2 left the
 * predicted landings on kinks of ish_predict 4.9e-9 from CVODE's e at worst on the bwshc
 * surface, 1.7e-9 with these.) */
#define ISH_REFINE_SHARE 1e-6
#define ISH_REFINE_MAX 3.0
#define ISH_SECANT_MAX 6.0 /* the same by secants, without rates */

/* ish_accumulate's stall rule (see there) */
#define ISH_STALL_RUN 8.0
#define ISH_STALL_DEPTH 1e3

#define ISH_D IS_HYBRID_MAX_DIM
#define ISH_E IS_HYBRID_MAX_EVENTS

#include "hybrid_trace.h" /* the trace without the model's code */

/* One vector of lanes and what the integrator keeps of each: the state at t, f(t, y)
 * (field mode), the event values and rates there, the side of each event, the step, the
 * per-point settings, the counts, and the accumulation watch. */
typedef struct ish_block {
    is_hybrid_lanes pub;
    lv_double y[ISH_D], f[ISH_D], g[ISH_E], dg[ISH_E]; /* sides: pub.side */
    lv_double t, h, h_resume, t_end, h_max, rtol, atol, max_steps, max_events;
    lv_double zeno_tail, zeno_events, stick_speed;
    lv_double steps, rejected, events, accumulations;
    lv_double last_reset, last_interval, shrinking, refined, refine_h, refine_g;
    lv_double run_first, run_min, run_count; /* ish_accumulate's stall rule */
    lv_double last_fired[ISH_E]; /* 1 where the watched event fired at the last reset (or
                                    the start: unknown, counts as fired) */
    lv_double t_start, section_period, t_section, t_target, sections, h_want;
    lv_mask active, landing, was_rejected, clamped, rough_next, pend[ISH_E];
    size_t point[LV_WIDTH];
    /* the sections of each lane, in plain arrays: they are recorded once a section */
    double sec[LV_WIDTH][IS_HYBRID_RING][ISH_D];
    int64_t sec_events[LV_WIDTH][IS_HYBRID_RING], sec_acc[LV_WIDTH][IS_HYBRID_RING];
    /* the invariant a lane violated, for its end */
    int invariant[LV_WIDTH];
    double invariant_value[LV_WIDTH];
    ishs_store *store; /* the section recorders' rings (hybrid_sections.h; NULL: none) */
    struct ish_lyap *ly; /* the tangents (hybrid_lyapunov.h), where the system has them */
} ish_block;

/* A trial step of one block: its length, stages (k[0] = f(t, y), k[6] = f at the end;
 * DOPRI5 uses 7, DOP853 13: hybrid_dop853.h), end, event values there, and the squared
 * error norm. */
typedef struct ish_trial {
    lv_double h, k[13][ISH_D], y1[ISH_D], g1[ISH_E], dg1[ISH_E], err2;
} ish_trial;

/* The event crossings from a side to values g (direction filtered): cross[e]. */
ISH_INLINE lv_mask ish_crossings(const is_hybrid_system *sys, const lv_double *side,
                                    const lv_double *g, lv_mask *cross)
{
    lv_mask any = lv_mask_none();
    for (int e = 0; e < sys->events; e++) {
        lv_mask up = lv_lt(side[e], lv_zero()) & lv_ge(g[e], lv_zero());
        lv_mask down = lv_gt(side[e], lv_zero()) & lv_le(g[e], lv_zero());
        int d = sys->direction[e];
        cross[e] = d > 0 ? up : d < 0 ? down : up | down;
        any |= cross[e];
    }
    return any;
}

/* -1, 1, or `keep` where g is 0 (or NaN): the sign of g as -1 or 1 is 1.0 with g's sign
 * bit. */
ISH_INLINE lv_double ish_side_of(lv_double g, lv_double keep)
{
    lv_double sign = lv_as_double((lv_as_int(g) & lv_as_int(lv_splat(-0.0))) |
                                  lv_as_int(lv_splat(1.0)));
    return lv_sel(lv_ne(g, lv_zero()) & lv_eq(g, g), sign, keep);
}

/* The controller's factor 0.9 err^(-1/5) from err2 = err^2 (so no square root): x^(-1/10)
 * from x's exponent and mantissa, log2(m) ~ m - 1 and 2^f ~ 1 + f (0.6565 + 0.3435 f),
 * within about 1% (a step size needs no more), in elementwise operations. */
ISH_INLINE lv_double ish_factor(lv_double err2)
{
    lv_double x = lv_min_nanb(lv_max_nanb(err2, lv_splat(1e-30)), lv_splat(1e30));
    lv_int bits = lv_as_int(x);
    lv_double m = lv_as_double((bits & 0x000fffffffffffff) | 0x3ff0000000000000);
    lv_double e = (lv_as_double((bits >> 52) | 0x4330000000000000) - 0x1p52) - 1023.0;
    lv_double y = -0.1 * (e + (m - 1.0)); /* ~ log2 x^(-1/10), in [-10, 10] */
    lv_double n = (y + 0x1.8p52) - 0x1.8p52; /* nearest integer */
    n = lv_sel(lv_gt(n, y), n - 1.0, n);     /* floor */
    lv_double f = y - n;
    lv_double two_n = lv_as_double((lv_as_int(n + 0x1.8p52) - lv_as_int(lv_splat(0x1.8p52)) +
                                    1023) << 52);
    return 0.9 * two_n * (1.0 + f * (0.6565 + 0.3435 * f));
}

#include "hybrid_steps.h" /* trial steps, dense output, crossings */
#include "hybrid_lyapunov.h" /* tangents, saltation matrices, renormalisation */

/* --- lanes in and out --------------------------------------------------------------- */

ISH_INLINE void ish_lane_end(const is_hybrid_system *sys, ish_block *b, int l,
                                is_hybrid_status status)
{
    is_hybrid_end e;
    memset(&e, 0, offsetof(is_hybrid_end, section));
    e.status = status;
    e.t = b->t[l];
    for (int i = 0; i < sys->dimension; i++)
        e.y[i] = b->y[i][l];
    for (int r = 0; r < IS_HYBRID_MAX_RECORDS; r++)
        e.rec[r] = b->pub.rec[r][l];
    e.steps = (int64_t)b->steps[l];
    e.rejected = (int64_t)b->rejected[l];
    e.events = (int64_t)b->events[l];
    e.accumulations = (int64_t)b->accumulations[l];
    e.sections = (int64_t)b->sections[l];
    e.invariant = -1;
    e.reason = status == IS_HYBRID_BUDGET
                   ? (b->steps[l] >= b->max_steps[l] ? "the budget of steps (max_steps) used up"
                                                      : "the budget of events (max_events) used up")
               : status == IS_HYBRID_NONFINITE ? "the state or its error estimate was not finite"
               : status == IS_HYBRID_UNDERFLOW ? "the step fell below the rounding of t"
               : status == IS_HYBRID_ZENO ? "events accumulated (Zeno) and the model has no "
                                            "on_accumulate"
                                          : "";
    if (status == IS_HYBRID_VIOLATED) {
        e.invariant = b->invariant[l];
        e.invariant_value = b->invariant_value[l];
        e.reason = sys->invariant_name[e.invariant] ? sys->invariant_name[e.invariant]
                                                     : "an invariant failed";
    }
    ishs_end(sys->recorders, b->store, b->pub.slot + l, e.recorded);
    if (e.sections > 0) { /* (a few kB, for the models that record sections) */
        memcpy(e.section, b->sec[l], sizeof e.section);
        memcpy(e.section_events, b->sec_events[l], sizeof e.section_events);
        memcpy(e.section_accumulations, b->sec_acc[l], sizeof e.section_accumulations);
    }
    for (int k = 0; k < ISH_D; k++)
        e.lyapunov[k] = NAN;
    e.lyapunov_error = NAN;
    e.lyapunov_reason = sys->lyapunov ? "" : "the system has no lyapunov";
    if (sys->lyapunov)
        ish_lyap_end(sys, b, l, &e);
    if (ish_tracing)
        ish_trace_end(ish_tracing, e.t, e.y);
    sys->finish(b->pub.ctx, b->point[l], &e);
}

/* Ends the active lanes of m with this status. */
ISH_INLINE void ish_end(const is_hybrid_system *sys, ish_block *b, lv_mask m,
                           is_hybrid_status status)
{
    m = m & b->active;
    if (!lv_any(m))
        return;
    for (int l = 0; l < LV_WIDTH; l++)
        if (lv_mask_lane(m, l))
            ish_lane_end(sys, b, l, status);
    b->active = b->active & lv_not(m);
}

/* Lane l takes the point s (the block's f and g are worked out for it afterwards). */
ISH_INLINE void ish_lane_load(ish_block *b, int l, size_t point, const is_hybrid_start *s,
                                 int field)
{
    b->point[l] = point;
    b->pub.point[l] = point;
    b->t[l] = s->t;
    b->t_end[l] = s->t_end;
    for (int i = 0; i < ISH_D; i++)
        b->y[i][l] = s->y[i];
    for (int p = 0; p < IS_HYBRID_MAX_PARAMS; p++)
        b->pub.par[p][l] = s->par[p];
    for (int r = 0; r < IS_HYBRID_MAX_RECORDS; r++)
        b->pub.rec[r][l] = s->rec[r];
    b->h_max[l] = s->h_max > 0.0 ? s->h_max : __builtin_inf();
    b->h[l] = s->h > 0.0 ? s->h : field ? 1e-2 * sqrt(s->rtol) : b->h_max[l];
    b->h_resume[l] = b->h[l];
    b->rtol[l] = s->rtol;
    b->atol[l] = s->atol;
    b->max_steps[l] = s->max_steps > 0.0    ? s->max_steps
                      : s->max_steps == 0.0 ? IS_HYBRID_DEFAULT_STEPS
                                            : __builtin_inf();
    b->max_events[l] = s->max_events > 0.0    ? s->max_events
                       : s->max_events == 0.0 ? IS_HYBRID_DEFAULT_EVENTS
                                              : __builtin_inf();
    b->zeno_tail[l] = s->zeno_tail;
    b->zeno_events[l] = s->zeno_events > 0.0 ? s->zeno_events : 3.0;
    b->stick_speed[l] = s->stick_speed;
    b->steps[l] = b->rejected[l] = b->events[l] = b->accumulations[l] = 0.0;
    b->last_reset[l] = s->t;
    b->last_interval[l] = __builtin_inf();
    b->shrinking[l] = 0.0;
    b->run_min[l] = b->run_first[l] = __builtin_inf();
    b->run_count[l] = 0.0;
    for (int e = 0; e < ISH_E; e++)
        b->last_fired[e][l] = 1.0;
    b->t_start[l] = s->t;
    b->section_period[l] = s->section_period > 0.0 ? s->section_period : __builtin_inf();
    b->t_section[l] = s->t + b->section_period[l];
    b->sections[l] = 0.0;
    for (int e = 0; e < ISH_E; e++)
        b->pub.side[e][l] = 0.0; /* from g, by the caller */
}

/* Lanes m whose time has reached their next section: the state is recorded there (more
 * than once where an accumulation's rest jumped over sections). */
ISH_INLINE void ish_sections(const is_hybrid_system *sys, ish_block *b, lv_mask m)
{
    m &= lv_ge(b->t, b->t_section);
    if (!lv_any(m))
        return;
    for (int l = 0; l < LV_WIDTH; l++)
        while (lv_mask_lane(m, l) && b->t[l] >= b->t_section[l]) {
            int k = (int)((int64_t)b->sections[l] % IS_HYBRID_RING);
            for (int i = 0; i < sys->dimension; i++)
                b->sec[l][k][i] = b->y[i][l];
            b->sec_events[l][k] = (int64_t)b->events[l];
            b->sec_acc[l][k] = (int64_t)b->accumulations[l];
            if (sys->recorders)
                ishs_strobe(sys->recorder, sys->recorders, b->store, b->pub.slot, l,
                            b->t_section[l], b->y);
            b->sections[l] += 1.0;
            b->t_section[l] = b->t_start[l] + (b->sections[l] + 1.0) * b->section_period[l];
        }
}

/* The rough lanes of a start (masks are set here, where lane l's mask is known). */
ISH_INLINE lv_mask ish_lane_mask(int l)
{
    return lv_eq(lv_iota(), lv_splat(l));
}


/* f, g and the rates at the block's state for the lanes m (the others keep theirs, which
 * came from their own step: recomputing them could give other bits where t was clamped
 * to t_end); the sides of m's events from g where `sides`. */
ISH_INLINE void ish_at_state(const is_hybrid_system *sys, ish_block *b, lv_mask m, int sides)
{
    lv_double f[ISH_D], g[ISH_E], dg[ISH_E];
    if (sys->field) {
        sys->field(&b->pub, b->t, b->y, f);
        for (int i = 0; i < sys->dimension; i++)
            b->f[i] = lv_sel(m, f[i], b->f[i]);
    }
    sys->event_values(&b->pub, b->t, b->y, sys->field ? b->f : NULL, g, sys->rates ? dg : NULL);
    for (int e = 0; e < sys->events; e++) {
        b->g[e] = lv_sel(m, g[e], b->g[e]);
        if (sys->rates)
            b->dg[e] = lv_sel(m, dg[e], b->dg[e]);
        if (sides)
            b->pub.side[e] = lv_sel(m, ish_side_of(g[e], b->pub.side[e]), b->pub.side[e]);
    }
}

/* The invariants at the state of the lanes m: where one fails (v < -tolerance, or NaN),
 * the lane ends IS_HYBRID_VIOLATED with the first that failed. */
ISH_INLINE void ish_invariants(const is_hybrid_system *sys, ish_block *b, lv_mask m)
{
    if (sys->invariants <= 0 || !sys->invariant_values)
        return;
    m &= b->active;
    if (!lv_any(m))
        return;
    lv_double v[IS_HYBRID_MAX_INVARIANTS];
    sys->invariant_values(&b->pub, b->t, b->y, v);
    lv_mask bad = lv_mask_none();
    for (int k = 0; k < sys->invariants && k < IS_HYBRID_MAX_INVARIANTS; k++) {
        lv_mask fails = m & lv_not(lv_ge(v[k], lv_splat(-sys->invariant_tolerance[k])));
        for (int l = 0; l < LV_WIDTH; l++)
            if (lv_mask_lane(fails & lv_not(bad), l)) {
                b->invariant[l] = k;
                b->invariant_value[l] = v[k][l];
            }
        bad |= fails;
    }
    ish_end(sys, b, bad, IS_HYBRID_VIOLATED);
}

/* Fills the block's free lanes from the batch (*next: the next point). Returns 1 if the
 * block has an active lane. A lane whose point has ended keeps its last state (every
 * update is masked), so an idle lane computes harmless numbers. */
ISH_INLINE int ish_refill(const is_hybrid_system *sys, ish_block *b, size_t count,
                             size_t *next)
{
    if (lv_all(b->active) || *next >= count)
        return lv_any(b->active);
    lv_mask loaded = lv_mask_none();
    for (int l = 0; l < LV_WIDTH && *next < count; l++) {
        if (lv_mask_lane(b->active, l))
            continue;
        while (*next < count) {
            is_hybrid_start s;
            memset(&s, 0, sizeof s);
            size_t point = (*next)++;
            if (!sys->start(b->pub.ctx, point, &s))
                continue;
            s.slot = b->pub.slot + l;
            ish_lane_load(b, l, point, &s, sys->field != NULL);
            if (sys->recorders)
                ishs_load(sys->recorders, b->store, b->pub.slot + l, s.section_samples);
            if (sys->lyapunov)
                ish_lyap_load(sys, b, l, &s);
            loaded |= ish_lane_mask(l);
            b->rough_next = s.rough_start ? b->rough_next | ish_lane_mask(l)
                                          : b->rough_next & lv_not(ish_lane_mask(l));
            break;
        }
    }
    if (lv_any(loaded)) {
        for (int e = 0; e < ISH_E; e++)
            b->pend[e] = b->pend[e] & lv_not(loaded);
        b->landing = b->landing & lv_not(loaded);
        b->was_rejected = b->was_rejected & lv_not(loaded);
        b->active = b->active | loaded;
        /* a start on an event (g = 0) is on the side it is crossed from: one that leaves
         * in the event's direction crosses it there (a mass started on its stop and pushed
         * into it, not through it) */
        for (int e = 0; e < sys->events; e++)
            if (sys->direction[e])
                b->pub.side[e] = lv_sel(loaded, lv_splat(-sys->direction[e]), b->pub.side[e]);
        ish_at_state(sys, b, loaded, 1);
        ish_invariants(sys, b, loaded);
    }
    return lv_any(b->active);
}

ISH_INLINE void ish_sample(const is_hybrid_system *sys, const ish_block *b, lv_mask m)
{
    if (ish_tracing) { /* the start and the steps' ends */
        ish_trace_lanes(ish_tracing, m, b->t, b->y, 1, NULL, 0, -1);
        return;
    }
    double y[ISH_D];
    for (int l = 0; l < LV_WIDTH; l++)
        if (lv_mask_lane(m, l)) {
            for (int i = 0; i < sys->dimension; i++)
                y[i] = b->y[i][l];
            sys->sample(b->pub.ctx, b->point[l], b->t[l], y);
        }
}

/* A field with the events' rates: a kink (IS_HYBRID_KINK, IS_HYBRID_ROUGH) that the
 * free lanes m would cross within their step h, by the first-order prediction from its
 * value and rate at the step's start, is landed on at once: the step goes to the
 * predicted crossing with the event pending (ish_landed's Newton corrections make it
 * exact), and the step after it no longer than the landing (the far side of a rough
 * point is no smoother than the near one). A step straddling a kink is rejected for
 * certain (the field's derivative jumps: an error of order h d), so this saves the
 * rejected trial and a landing located on its poor dense output. */
ISH_INLINE void ish_predict(const is_hybrid_system *sys, ish_block *b, lv_mask m, lv_double h)
{
    lv_double first = h;
    lv_mask hit[ISH_E], any = lv_mask_none();
    for (int e = 0; e < sys->events; e++) {
        hit[e] = lv_mask_none();
        if (sys->kind[e] != IS_HYBRID_KINK && sys->kind[e] != IS_HYBRID_ROUGH)
            continue;
        lv_double value = b->pub.side[e] * b->g[e], rate = b->pub.side[e] * b->dg[e];
        lv_double at = value / -rate; /* NaN or inf where no rate: no prediction */
        hit[e] = m & lv_gt(value, lv_zero()) & lv_lt(rate, lv_zero()) & lv_lt(at, first);
        first = lv_sel(hit[e], at, first);
        any |= hit[e];
    }
    if (!lv_any(any))
        return;
    for (int e = 0; e < sys->events; e++) { /* the earliest event only (ties: all) */
        hit[e] &= lv_le(b->pub.side[e] * b->g[e] / -(b->pub.side[e] * b->dg[e]), first);
        b->pend[e] = b->pend[e] | hit[e];
    }
    b->h_resume = lv_sel(any, first, b->h_resume); /* (h itself: e 1.5 times less accurate) */
    b->h = lv_sel(any, first, b->h);
    b->landing |= any;
    b->clamped &= lv_not(any);
}

/* Before a trial step: lanes out of budget end; the step is cut to the longest allowed
 * and to the horizon (a step to an event keeps its length). */
ISH_INLINE void ish_begin(const is_hybrid_system *sys, ish_block *b)
{
    ish_end(sys, b, lv_not(b->landing) & lv_ge(b->steps, b->max_steps), IS_HYBRID_BUDGET);
    lv_mask free = b->active & lv_not(b->landing);
    lv_double h = lv_min_nanb(b->h, b->h_max);
    if (sys->step_limit)
        h = lv_min_nanb(h, sys->step_limit(&b->pub, b->t, b->y));
    /* steps end exactly at the horizon and at the sections */
    b->t_target = sys->sections ? lv_min_nanb(b->t_section, b->t_end) : b->t_end;
    b->clamped = free & lv_ge(b->t + h, b->t_target);
    if (sys->sections)
        b->h_want = lv_sel(free, h, b->h_want);
    b->h = lv_sel(free, lv_sel(b->clamped, b->t_target - b->t, h), b->h);
    if (sys->field && sys->rates)
        ish_predict(sys, b, free, b->h);
}

#include "hybrid_events.h" /* grazes, accumulation */

/* --- arrivals and the end of a step -------------------------------------------------- */

/* The lanes A whose step to an event was accepted: at its end (t1, y1), the events
 * pending and any other crossed there happen together: on_event, the sides (an
 * IS_HYBRID_RESET event returns to the side it came from, the others pass), the watch
 * for accumulation, and the lanes that end. */
ISH_INLINE void ish_arrive(const is_hybrid_system *sys, ish_block *b, const ish_trial *T,
                              lv_mask A, const lv_mask *cross, lv_double t1, int trace)
{
    lv_mask fired[ISH_E], reset = lv_mask_none(), rough = lv_mask_none();
    for (int e = 0; e < sys->events; e++) {
        fired[e] = A & (b->pend[e] | cross[e]);
        if (sys->kind[e] == IS_HYBRID_RESET && (!sys->watch || (sys->watch >> e & 1u)))
            reset |= fired[e];
        if (sys->kind[e] == IS_HYBRID_ROUGH)
            rough |= fired[e];
        b->pend[e] = b->pend[e] & lv_not(A);
    }
    if (sys->lyapunov)
        ish_lyap_step(sys, b, T, A);
    b->t = lv_sel(A, t1, b->t);
    for (int i = 0; i < sys->dimension; i++) {
        b->y[i] = lv_sel(A, T->y1[i], b->y[i]);
        b->f[i] = lv_sel(A, T->k[6][i], b->f[i]);
    }
    b->events = lv_add_where(A, b->events, lv_splat(1.0));
    ish_tracer *tr = trace ? ish_tracing : NULL; /* the events with their kinds */
    trace = trace && !tr && !sys->own_event_samples;
    if (trace)
        ish_sample(sys, b, A);
    if (tr)
        ish_trace_lanes(tr, A, b->t, b->y, 0, fired, sys->events, -1);
    lv_double y[ISH_D];
    for (int i = 0; i < sys->dimension; i++)
        y[i] = b->y[i];
    if (sys->recorders) /* the event sections before the reset */
        ishs_events(sys->recorder, sys->recorders, sys->events, b->store, b->pub.slot, fired,
                    A, b->t, y, 0);
    lv_mask several = lv_mask_none(); /* (the tangents' corners: the lanes as they were) */
    is_hybrid_lanes before;
    if (sys->lyapunov && sys->events > 1) {
        several = ish_lyap_several(sys, A, fired);
        if (lv_any(several))
            before = b->pub;
    }
    lv_mask ended = A & sys->on_event(&b->pub, fired, b->t, y), zeno = lv_mask_none();
    if (sys->recorders) /* and after it */
        ishs_events(sys->recorder, sys->recorders, sys->events, b->store, b->pub.slot, fired,
                    A, b->t, y, 1);
    lv_double accumulations = b->accumulations; /* (the trace's: the lanes that accumulate) */
    if (tr) /* the state after on_event */
        ish_trace_lanes(tr, A, b->t, y, 0, NULL, 0, -1);
    for (int i = 0; i < sys->dimension; i++)
        b->y[i] = lv_sel(A, y[i], b->y[i]);
    /* the fired events' sides turn before their values and rates are computed here, so
     * that event_values sees the side the lane is on now (0 where it is known only from
     * the value: an event passed from a start on it) */
    lv_double turned[ISH_E];
    for (int e = 0; e < sys->events; e++) {
        lv_double old = b->pub.side[e];
        lv_mask none = lv_eq(old, lv_zero());
        lv_double back = lv_sel(none, lv_splat(sys->direction[e] > 0 ? -1.0 : 1.0), old);
        turned[e] = sys->kind[e] == IS_HYBRID_RESET ? back : lv_sel(none, old, -old);
        b->pub.side[e] = lv_sel(fired[e], turned[e], b->pub.side[e]);
    }
    ish_at_state(sys, b, A, 1); /* (every side from its value: the fired keep their turn) */
    for (int e = 0; e < sys->events; e++)
        b->pub.side[e] =
            lv_sel(fired[e] & lv_ne(turned[e], lv_zero()), turned[e], b->pub.side[e]);
    if (sys->lyapunov) {
        ish_lyap_jump(sys, b, T, A & lv_not(several), fired, t1);
        if (lv_any(several))
            ish_lyap_corner(sys, b, T, several, fired, t1, &before);
    }
    ish_accumulate(sys, b, reset & lv_not(ended), fired, &ended, &zeno);
    if (sys->lyapunov)
        ish_lyap_arrived(sys, b, A, lv_gt(b->accumulations, accumulations));
    if (trace && lv_any(reset))
        ish_sample(sys, b, A & lv_not(ended | zeno));
    if (tr)
        ish_trace_lanes(tr, A & (lv_gt(b->accumulations, accumulations) | zeno), b->t, b->y, 0,
                        NULL, 0, sys->events);
    b->h = lv_sel(A, b->h_resume, b->h);
    b->rough_next = (b->rough_next & lv_not(A)) | rough;
    b->landing = b->landing & lv_not(A);
    b->was_rejected = b->was_rejected & lv_not(A);
    ish_end(sys, b, ended, IS_HYBRID_ENDED);
    ish_end(sys, b, zeno, IS_HYBRID_ZENO);
    ish_invariants(sys, b, A);
    ish_end(sys, b, lv_ge(b->events, b->max_events), IS_HYBRID_BUDGET);
}

/* Observe events at the share theta of the step, for the lanes O (fired[]): reported at
 * the dense output's state there; the step goes on. */
ISH_INLINE void ish_observe(const is_hybrid_system *sys, ish_block *b, const ish_trial *T,
                               const ish_dense *D, lv_mask O, const lv_mask *fired,
                               lv_double theta, int trace)
{
    lv_double y[ISH_D], t = b->t + theta * T->h;
    ish_dense_at(sys, b, T, D, theta, y);
    if (trace && ish_tracing)
        ish_trace_lanes(ish_tracing, O, t, y, 0, fired, sys->events, -1);
    else if (trace && !sys->own_event_samples) {
        double yl[ISH_D];
        for (int l = 0; l < LV_WIDTH; l++)
            if (lv_mask_lane(O, l)) {
                for (int i = 0; i < sys->dimension; i++)
                    yl[i] = y[i][l];
                sys->sample(b->pub.ctx, b->point[l], t[l], yl);
            }
    }
    if (sys->recorders) /* (the step goes on from y: the same state after on_event) */
        for (int after = 0; after < 2; after++)
            ishs_events(sys->recorder, sys->recorders, sys->events, b->store, b->pub.slot,
                        fired, O, t, y, after);
    lv_mask ended = O & sys->on_event(&b->pub, fired, t, y);
    for (int e = 0; e < sys->events; e++)
        b->pub.side[e] = lv_sel(fired[e], -b->pub.side[e], b->pub.side[e]);
    b->events = lv_add_where(O, b->events, lv_splat(1.0));
    if (lv_any(ended)) { /* the run ends there */
        b->t = lv_sel(ended, t, b->t);
        for (int i = 0; i < sys->dimension; i++)
            b->y[i] = lv_sel(ended, y[i], b->y[i]);
        ish_end(sys, b, ended, IS_HYBRID_ENDED);
    }
}

/* ish_search's events (`which`): all, the observe events only, all but the pending ones
 * (a landing's step searched for what crossed before its end) */
#define ISH_SEARCH_ALL 0
#define ISH_SEARCH_OBSERVE 1
#define ISH_SEARCH_UNPENDED 2

/* The lanes of `todo` whose trial step crossed events (cross[]): the first crossing is
 * located (ish_locate, from the step's start, or beyond observe events already reported
 * in the step); observe events found first are reported and the search goes on past them;
 * otherwise the lane's next step goes exactly there (landing, with the events pending).
 * Returns the lanes now landing. */
ISH_INLINE lv_mask ish_search(const is_hybrid_system *sys, ish_block *b, const ish_trial *T,
                                 lv_mask todo, lv_mask accepted, const lv_mask *cross0,
                                 lv_double hi0, const lv_double *g_hi0, lv_double h_next,
                                 int trace, int which)
{
    ish_dense D;
    ish_dense_init(sys, b, T, &D);
    lv_double lo = lv_zero(), g_lo[ISH_E], g_at[ISH_E];
    lv_mask landing = lv_mask_none(), search[ISH_E], cross[ISH_E];
    for (int e = 0; e < sys->events; e++)
        g_lo[e] = b->g[e];
    for (int round = 0; round <= sys->events && lv_any(todo); round++) {
        const lv_double *g_hi = round == 0 ? g_hi0 : T->g1;
        if (round == 0)
            for (int e = 0; e < sys->events; e++)
                cross[e] = cross0[e];
        else
            ish_crossings(sys, b->pub.side, T->g1, cross);
        lv_mask found = lv_mask_none();
        for (int e = 0; e < sys->events; e++) {
            /* a rejected step is searched for the events it must not straddle */
            lv_mask ok = sys->kind[e] == IS_HYBRID_OBSERVE ? accepted
                         : which == ISH_SEARCH_OBSERVE     ? lv_mask_none()
                         : which == ISH_SEARCH_UNPENDED    ? todo & lv_not(b->pend[e])
                                                           : todo;
            search[e] = cross[e] & todo & ok;
            found |= search[e];
        }
        todo &= found;
        if (!lv_any(todo))
            break;
        /* G(lo) <= 0 (a lane on the boundary after a reset, or a rounding) counts as
         * just before the crossing: the search finds it at lo if it is there */
        lv_double glo = ish_least(sys, b->pub.side, search, g_lo);
        lv_double hi = round == 0 ? hi0 : lv_splat(1.0);
        lv_double ghi = lv_min_nanb(ish_least(sys, b->pub.side, search, g_hi), lv_splat(-DBL_MIN));
        for (int e = 0; e < sys->events; e++)
            g_at[e] = g_hi[e];
        lv_double theta = ish_locate(sys, b, T, &D, todo, search, lo,
                                     lv_max_nanb(glo, lv_splat(DBL_MIN)), hi, ghi, g_at);
        lv_mask fired[ISH_E], observed = todo & accepted;
        for (int e = 0; e < sys->events; e++) {
            fired[e] = search[e] & lv_le(b->pub.side[e] * g_at[e], lv_zero());
            if (sys->kind[e] != IS_HYBRID_OBSERVE)
                observed &= lv_not(fired[e]);
        }
        lv_mask land = todo & lv_not(observed);
        if (lv_any(observed)) {
            lv_mask obs_fired[ISH_E];
            for (int e = 0; e < sys->events; e++)
                obs_fired[e] = fired[e] & observed;
            ish_observe(sys, b, T, &D, observed, obs_fired, theta, trace);
            observed &= b->active;
        }
        for (int e = 0; e < sys->events; e++)
            b->pend[e] = (land & fired[e]) | (lv_not(land) & b->pend[e]);
        /* after the event: the step the controller proposed, or after a rejection (which
         * says nothing of the far side) the step to the event, or a fifth of the step */
        lv_double resume = lv_sel(accepted, h_next, lv_max_nanb(theta * T->h, 0.2 * T->h));
        b->h_resume = lv_sel(land, resume, b->h_resume);
        b->h = lv_sel(land, theta * T->h, b->h);
        landing |= land;
        todo = observed;
        lo = lv_sel(observed, theta, lo);
        for (int e = 0; e < sys->events; e++)
            g_lo[e] = lv_sel(observed, g_at[e], g_lo[e]);
    }
    return landing;
}

/* The lanes that advance to the trial step's end (t1): its state, f, events and rates;
 * the sides of the events from their values there. */
ISH_INLINE void ish_advance(const is_hybrid_system *sys, ish_block *b, const ish_trial *T,
                               lv_mask m, lv_double t1, lv_double h_next)
{
    if (sys->lyapunov)
        ish_lyap_step(sys, b, T, m);
    b->t = lv_sel(m, t1, b->t);
    for (int i = 0; i < sys->dimension; i++) {
        b->y[i] = lv_sel(m, T->y1[i], b->y[i]);
        b->f[i] = lv_sel(m, T->k[6][i], b->f[i]);
    }
    for (int e = 0; e < sys->events; e++) {
        b->g[e] = lv_sel(m, T->g1[e], b->g[e]);
        if (sys->rates)
            b->dg[e] = lv_sel(m, T->dg1[e], b->dg[e]);
        b->pub.side[e] = ish_side_of(T->g1[e] + lv_drop(m, lv_splat(__builtin_nan(""))),
                                     b->pub.side[e]); /* (NaN outside m: kept) */
    }
    b->h = lv_sel(m, h_next, b->h);
    b->was_rejected = b->was_rejected & lv_not(m);
    if (sys->lyapunov)
        ish_lyap_due(sys, b, m);
}

/* The steps that end or begin at a rough point (IS_HYBRID_ROUGH): their error estimate
 * is taken rough_penalty times larger. */
ISH_INLINE void ish_rough_penalty(const is_hybrid_system *sys, ish_block *b, ish_trial *T)
{
    int any_rough = 0;
    for (int e = 0; e < sys->events; e++)
        any_rough |= sys->kind[e] == IS_HYBRID_ROUGH;
    if (!any_rough)
        return;
    lv_mask m = b->rough_next;
    for (int e = 0; e < sys->events; e++)
        if (sys->kind[e] == IS_HYBRID_ROUGH)
            m |= b->landing & b->pend[e];
    double penalty = sys->rough_penalty > 0.0 ? sys->rough_penalty : 10.0;
    T->err2 = lv_sel(m & b->active, T->err2 * (penalty * penalty), T->err2);
}

/* The lanes L whose step to an event was accepted, before they arrive: the events other
 * than the pending ones that crossed inside the step (cross[], with the grazes up to hi0,
 * g_hi0 there) are searched on its dense output as a free step's are (ish_search):
 * observe events found (e.g. a maximum just before a kink, in a step that was rejected
 * across the kink) are reported, and a lane where another event crossed first (inside
 * the landing of a kink predicted by ish_predict) goes there instead: the pending events
 * are dropped (predicted again after it). One located within ISH_REFINE_SHARE of the
 * step's end, as close as the landing itself is corrected, happens together with the
 * pending ones. Then a correction of the
 * step's length towards the pending event's root where it is more than ISH_REFINE_SHARE
 * of the step (Newton's where the model gives the events' rates, a secant's where it
 * does not, ISH_SECANT_MAX times at most) (a landing located on
 * a rejected step's dense output, or predicted by ish_predict, may miss the kink by far
 * more than the location tolerance, and a kink straddled by d costs an error of order
 * d^2, or d^(p+1) at a rough one): those lanes take the step again (ISH_REFINE_MAX times
 * at most), and the others arrive. Returns the lanes that arrive. */
ISH_INLINE lv_mask ish_landed(const is_hybrid_system *sys, ish_block *b, const ish_trial *T,
                              lv_mask L, lv_mask *cross, lv_double hi0, const lv_double *g_hi0,
                              lv_double t1, int trace)
{
    /* an impact (IS_HYBRID_RESET) on its far side at rounding where the step began (its
     * reset just made at such a state) and no deeper at the end has not crossed again: it
     * is leaving (two masses' impacts a rounding apart: the first mass still a rounding
     * past its stop when the second's step lands); firing it again would count it twice
     * and take its outgoing rate for a stick */
    for (int e = 0; e < sys->events; e++)
        if (sys->kind[e] == IS_HYBRID_RESET) {
            lv_double was = b->pub.side[e] * b->g[e], now = b->pub.side[e] * T->g1[e];
            cross[e] &= lv_not(L & lv_not(b->pend[e]) & lv_le(was, lv_zero()) & lv_ge(now, was));
        }
    /* first whether any other event crossed at all: two operations an event, and most
     * landings cross none */
    lv_mask todo = lv_mask_none();
    for (int e = 0; e < sys->events; e++)
        todo |= cross[e] & lv_not(b->pend[e]);
    todo &= L;
    if (lv_any(todo)) {
        lv_mask other[ISH_E], pend[ISH_E];
        todo = lv_mask_none();
        for (int e = 0; e < sys->events; e++) {
            /* (not one already at zero where the step began, its side just turned at an
             * arrival: rounding, that the search would find at the start again and again) */
            other[e] = cross[e] & L & lv_not(b->pend[e]) &
                       lv_gt(b->pub.side[e] * b->g[e], lv_zero());
            todo |= other[e];
        }
        if (lv_any(todo)) {
            lv_double resume = b->h_resume;
            for (int e = 0; e < sys->events; e++)
                pend[e] = b->pend[e];
            lv_mask moved = ish_search(sys, b, T, todo, L, other, hi0, g_hi0, T->h, trace,
                                       ISH_SEARCH_UNPENDED);
            lv_mask together = moved & lv_ge(b->h, T->h * (1.0 - ISH_REFINE_SHARE)),
                    now[ISH_E];
            /* (the observe events reported have turned their sides; any other crossed at
             * the end arrives with the pending ones) */
            ish_crossings(sys, b->pub.side, T->g1, now);
            for (int e = 0; e < sys->events; e++) {
                b->pend[e] |= together & pend[e];
                cross[e] = (cross[e] & lv_not(other[e])) | (other[e] & now[e]);
            }
            b->h_resume = lv_sel(together, resume, b->h_resume);
            moved &= lv_not(together);
            b->refined = lv_sel(moved, lv_zero(), b->refined);
            L &= b->active & lv_not(moved);
        }
    }
    if (!lv_any(L))
        return L;
    /* the step to the root: Newton's from the rates; without them the secant's through
     * this try's end and the last try's (the step's start first). The events and rates at
     * the step's end are the trial's (ish_events_at: the same t, y and field, whose aux
     * event_values may read), computed again only where a search above may have turned
     * the lanes' sides, which event_values may read too. */
    const lv_double *g = T->g1, *dg = sys->rates ? T->dg1 : T->g1;
    lv_double g_now[ISH_E], dg_now[ISH_E], step = lv_zero(), at_root = lv_zero();
    lv_mask found = lv_mask_none(), newton = lv_mask_none();
    if (sys->rates && lv_any(todo & L)) {
        sys->event_values(&b->pub, t1, T->y1, sys->field ? T->k[6] : NULL, g_now, dg_now);
        g = g_now;
        dg = dg_now;
    }
    lv_mask again_before = lv_gt(b->refined, lv_zero());
    lv_double h_prev = lv_sel(again_before, b->refine_h, lv_zero());
    for (int e = 0; e < sys->events; e++) {
        if (!lv_any(L & b->pend[e])) /* (most events are not pending: their divisions saved) */
            continue;
        lv_double g_prev = lv_sel(again_before, b->refine_g, b->g[e]);
        lv_double secant = -g[e] * (T->h - h_prev) / (g[e] - g_prev);
        /* (rates given but not finite there: no correction; secants there failed the
         * rough kinks of collision) */
        lv_double d = sys->rates ? -g[e] / dg[e] : secant;
        lv_mask exact = sys->rates ? lv_eq(d - d, lv_zero()) : lv_mask_none();
        lv_mask take = L & b->pend[e] & lv_not(found) & lv_eq(d - d, lv_zero());
        step = lv_sel(take, d, step);
        at_root = lv_sel(take, g[e], at_root);
        newton |= take & exact;
        found |= take;
    }
    lv_double most = lv_sel(newton, lv_splat(ISH_REFINE_MAX), lv_splat(ISH_SECANT_MAX));
    /* (a correction longer than the step, or from a start already past the event, is
     * not a root's: a tangent at rounding level, a graze's flat bottom) */
    lv_double start_side = lv_zero();
    for (int e = 0; e < sys->events; e++)
        start_side = lv_sel(L & b->pend[e] & lv_eq(start_side, lv_zero()),
                            b->pub.side[e] * b->g[e], start_side);
    lv_mask again = found & lv_gt(lv_abs(step), ISH_REFINE_SHARE * T->h) &
                    lv_lt(b->refined, most) & lv_gt(T->h + step, lv_zero()) &
                    lv_le(lv_abs(step), T->h) & lv_gt(start_side, lv_zero());
    b->refined = lv_sel(again, b->refined + 1.0, lv_sel(L, lv_zero(), b->refined));
    b->refine_h = lv_sel(again, T->h, b->refine_h);
    b->refine_g = lv_sel(again, at_root, b->refine_g);
    b->h = lv_sel(again, T->h + step, b->h);
    return L & lv_not(again);
}

/* After the trial step of the block: failures, then for each lane one of: a step to an
 * event accepted (ish_arrive), events to locate (ish_search), a plain accepted step
 * (ish_advance), a rejected one (shrunk: no more than 5 times, no growth after it); last
 * the horizon. */
ISH_INLINE void ish_settle(const is_hybrid_system *sys, ish_block *b, ish_trial *T, int trace)
{
    lv_double t1 = lv_sel(b->clamped, b->t_target, b->t + T->h);
    ish_events_at(sys, b, t1, T->y1, T->k[6], T->g1, T->dg1);
    lv_double finite = T->err2; /* with a field, NaN or inf whenever y1 is not finite */
    if (!sys->field)
        for (int i = 0; i < sys->dimension; i++)
            finite = finite + (T->y1[i] - T->y1[i]); /* NaN if any is not finite */
    ish_end(sys, b, lv_ne(finite - finite, lv_zero()), IS_HYBRID_NONFINITE);
    if (sys->field) {
        lv_double unit = 16.0 * DBL_EPSILON * lv_max_nanb(lv_splat(1.0), lv_abs(b->t));
        ish_end(sys, b, lv_not(b->landing) & lv_lt(T->h, unit), IS_HYBRID_UNDERFLOW);
    }
    lv_mask act = b->active;
    b->steps = lv_add_where(act, b->steps, lv_splat(1.0));
    ish_rough_penalty(sys, b, T);
    lv_mask accepted = act & lv_le(T->err2, lv_splat(1.0)), rejected = act & lv_not(accepted);
    b->rejected = lv_add_where(rejected, b->rejected, lv_splat(1.0));
    lv_double factor = lv_max_nanb(lv_splat(0.2), ish_step_factor(sys, T->err2));
    lv_double growth = lv_sel(b->was_rejected, lv_splat(1.0), lv_splat(5.0));
    /* the next step: the controller's; after a step cut to a target, the one wanted
     * before the cut at least; with a flow, the longest allowed */
    lv_double h_next = T->h * lv_min_nanb(growth, factor);
    if (sys->sections)
        h_next = lv_sel(b->clamped, lv_max_nanb(h_next, b->h_want), h_next);
    if (!sys->field)
        h_next = b->h_max;
    lv_mask cross[ISH_E];
    lv_double hi0 = lv_splat(1.0), g_graze[ISH_E];
    const lv_double *g_hi0 = T->g1; /* the events at hi0: the step's end, or a graze's */
    ish_crossings(sys, b->pub.side, T->g1, cross);
    lv_mask free = act & lv_not(b->landing);
    /* a landing's pending events arrive at its end (ish_arrive fires pend and cross[]):
     * its other events are searched like a free step's (ish_landed) */
    if (ish_grazes(sys, b, T, accepted, cross, &hi0, g_graze))
        g_hi0 = g_graze;
    lv_mask todo = lv_mask_none();
    for (int e = 0; e < sys->events; e++)
        todo |= cross[e] & free;
    lv_mask landed = b->landing & accepted, missed = b->landing & rejected, to_event = lv_mask_none();
    if (lv_any(todo))
        to_event = ish_search(sys, b, T, todo, accepted, cross, hi0, g_hi0,
                              lv_sel(accepted, h_next, T->h), trace, ISH_SEARCH_ALL);
    lv_mask plain = accepted & b->active & lv_not(b->landing | to_event);
    ish_advance(sys, b, T, plain, t1, h_next);
    ish_invariants(sys, b, plain);
    b->rough_next = b->rough_next & lv_not(plain);
    if (sys->sections)
        ish_sections(sys, b, plain & b->clamped);
    if (trace && lv_any(plain))
        ish_sample(sys, b, plain);
    lv_mask shrink = rejected & b->active & lv_not(to_event);
    b->h = lv_sel(shrink, T->h * factor, b->h);
    b->was_rejected = b->was_rejected | shrink;
    if (lv_any(missed))
        for (int e = 0; e < sys->events; e++)
            b->pend[e] = b->pend[e] & lv_not(missed);
    b->landing = (b->landing & lv_not(missed)) | to_event;
    if (lv_any(landed))
        landed = ish_landed(sys, b, T, landed, cross, hi0, g_hi0, t1, trace);
    if (lv_any(landed))
        ish_arrive(sys, b, T, landed, cross, t1, trace);
    ish_end(sys, b, lv_not(b->landing) & lv_ge(b->t, b->t_end), IS_HYBRID_HORIZON);
}

ISH_INLINE int is_hybrid_run(const is_hybrid_system *sys, void *ctx, size_t count,
                                const volatile sig_atomic_t *stop, int trace)
{
    if (count == 0)
        return 0;
    const size_t size = (sizeof(ish_block) * IS_HYBRID_BLOCKS + 63) / 64 * 64;
    ish_block *blocks = aligned_alloc(64, size); /* the vectors' alignment */
    if (!blocks)
        return -1;
    memset(blocks, 0, size); /* no lane active, no mask set */
    ishs_store *store; /* the section recorders' rings, once per call */
    if (ishs_open(sys->recorder, sys->recorders, sys->dimension, &store) < 0) {
        free(blocks);
        return -1;
    }
    if (sys->lyapunov && ish_lyap_alloc(sys, blocks) < 0) {
        free(store);
        free(blocks);
        return -1;
    }
    for (int j = 0; j < IS_HYBRID_BLOCKS; j++) {
        blocks[j].pub.ctx = ctx;
        blocks[j].pub.slot = j * LV_WIDTH;
        blocks[j].store = store;
    }
    ish_tracer *tr = ish_tracing;
    trace = (trace && sys->sample) || tr;
    size_t next = 0;
    int stopped = 0;
    for (uint64_t round = 0;; round++) {
        ish_block *busy[IS_HYBRID_BLOCKS];
        int nb = 0;
        for (int j = 0; j < IS_HYBRID_BLOCKS; j++)
            if (ish_refill(sys, &blocks[j], count, &next))
                busy[nb++] = &blocks[j];
        if (nb == 0)
            break;
        if ((round % IS_HYBRID_POLL == 0 && stop && *stop) || (tr && tr->code != IS_OK)) {
            stopped = 1;
            break;
        }
        if (round == 0 && trace)
            for (int j = 0; j < nb; j++)
                ish_sample(sys, busy[j], busy[j]->active);
        ish_trial tr[IS_HYBRID_BLOCKS];
        for (int j = 0; j < nb; j++)
            ish_begin(sys, busy[j]);
        if (sys->field)
            ish_trial_steps_field(sys, busy, nb, tr);
        else
            ish_trial_steps_flow(sys, busy, nb, tr);
        for (int j = 0; j < nb; j++)
            ish_settle(sys, busy[j], &tr[j], trace);
    }
    free(store);
    if (sys->lyapunov)
        ish_lyap_free(blocks);
    free(blocks);
    return stopped;
}

static inline int is_hybrid_period(const is_hybrid_end *e, int dimension, int max_period,
                                   const double *tolerance)
{
    for (int p = 1; p <= max_period && p <= IS_HYBRID_RING / 2 && 2 * p <= e->sections; p++) {
        int same = 1;
        for (int k = 0; k < p && same; k++) {
            const double *now = e->section[is_hybrid_section_back(e, k)];
            const double *before = e->section[is_hybrid_section_back(e, k + p)];
            for (int i = 0; i < dimension && same; i++)
                same = fabs(now[i] - before[i]) <= tolerance[i];
        }
        if (same)
            return p;
    }
    return 0;
}

#endif
