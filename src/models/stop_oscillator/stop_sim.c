/* stop_sim.c: the hybrid simulation of chart 2.1: COD and CD segments, rebounds, sticking
 * and release, Zeno sequences ended by the orbit reset, the energy's bookkeeping, and the
 * long-run regime decided from what the run proves or detects. */
#include "stop_oscillator.h"

#include <float.h>
#include <math.h>

#include "stop_search.h"

/* The tail of a Zeno sequence: with mass one at the stop and F1 > 0 nearly constant,
 * rebound n lasts 2 |v_n| / F1 and v_(n+1) = epsilon v_n, so the rest of the sequence
 * takes 2 |v| / ((1 - epsilon) F1). */
static double zeno_tail(const stop_system *sys, double v_out, double force)
{
    return 2.0 * fabs(v_out) / ((1.0 - sys->epsilon) * force);
}

/* Chart 2.1 at the stop with v1 = 0: contact dynamics if F1 > 0 (x2 > x2t) or F1 = 0
 * and increasing (v2 > 0); else COD. `slack` widens x2 = x2t for a contact that was
 * located only to some accuracy (a tangential return). */
static int sticks(const stop_system *sys, const stop_state *x, double slack)
{
    return x->x2 > sys->x2t + slack || (x->x2 >= sys->x2t - slack && x->v2 > 0.0);
}

/* The potential with mass one at the stop, as a function of x2: it grows with x2 beyond
 * x2eq. Mass one can be at the stop with F1 >= 0 (stick, or begin a Zeno sequence) only
 * with x2 >= x2t, so only with an energy of at least its value there. */
static double potential_at_stop(const stop_system *sys, double x2)
{
    stop_state at = {sys->s, 0.0, x2, 0.0};
    return stop_energy(sys, &at);
}

/* The stop flag, polled every 64 passes of the event loop (a pass is one event, or one
 * contact search over at most STOP_CHUNK / w1: up to a few thousand flow evaluations or
 * some 10^4 CVODE steps): a load per 64 rebounds of a Zeno sequence, and a stop within
 * milliseconds of exact-flow work, about a second of CVODE. */
static int asked_to_stop(stop_run *rn)
{
    return rn->opt->stop && (++rn->polls & 63u) == 0 && *rn->opt->stop;
}

/* Before an event at rn->t: the energy at t_end / 2 (3 t_end / 4) is the energy after the
 * last event before it (the flows keep it). */
static void before_event(stop_run *rn)
{
    if (!rn->mid_seen && rn->t >= rn->t_mid) {
        rn->r->energy_mid = rn->e_now;
        rn->mid_seen = 1;
    }
    if (!rn->q3_seen && rn->t >= rn->t_3q) {
        rn->r->energy_3q = rn->e_now;
        rn->q3_seen = 1;
    }
}

/* After an event that took `loss` out of the energy: the bookkeeping, and the moment the
 * energy goes below the sticking level. */
static void after_event(stop_run *rn, double loss)
{
    stop_result *r = rn->r;
    r->losses += loss;
    rn->e_now = stop_energy_inline(rn->sys, &rn->x);
    if (isnan(r->t_below) && rn->e_now < r->e_stick)
        r->t_below = rn->t;
}

/* The CVODE option for either segment (contact: CD): CVODE's flag (< 0) on failure, else
 * STOP_SEGMENT_EVENT or STOP_SEGMENT_HORIZON, the event pinned exactly (x1 = s at a
 * contact, x2 = x2t at a release). */
static int cvode_segment(stop_run *rn, int contact, double horizon)
{
    double elapsed;
    stop_state out;
    int rc = stop_cvode_segment(rn->opt->cvode, rn->sys, &rn->x, contact, horizon,
                                rn->opt->rtol, &elapsed, &out);
    if (rc < 0)
        return rc;
    rn->x = out;
    rn->t += elapsed;
    if (rc == 1 && contact)
        rn->x.x2 = rn->sys->x2t;
    else if (rc == 1)
        rn->x.x1 = rn->sys->s;
    return rc == 1 ? STOP_SEGMENT_EVENT : STOP_SEGMENT_HORIZON;
}

/* The end of a COD segment (the segment's outcome rc: STOP_SEGMENT_*, or CVODE's flag),
 * as the event loop goes on from it. */
static void cod_segment_end(stop_run *rn, int rc)
{
    if (rn->opt->trace && rc >= 0 && rc != STOP_SEGMENT_STALLED)
        stop_trace_flow(rn->opt->trace, 0, rn->seg_t0, &rn->seg_x0, rn->t, &rn->x);
    if (rc == STOP_SEGMENT_HORIZON && rn->seg_more)
        rc = STOP_SEGMENT_PIECE;
    /* CVODE at a loose tolerance can put mass one on the stop moving away from it (a
     * root its step could not resolve, e.g. an excursion of 1e-12 s): a contact that is
     * no arrival, which it would find again at once, for ever */
    if (rc < 0 || rc == STOP_SEGMENT_STALLED ||
        (rc == STOP_SEGMENT_EVENT && rn->opt->use_cvode && rn->x.v1 < -rn->v_rest)) {
        rn->r->failed = STOP_RUN_SOLVER;
        rn->r->solver_flag = rc < 0 ? rc : SOLVER_SEARCH_STALLED;
        rn->done = 1;
    } else if (rc == STOP_SEGMENT_HORIZON) {
        rn->done = 1;
    }
}

/* Starts a COD segment from rn->x for at most `horizon`, one piece of at most
 * STOP_CHUNK / w1: with CVODE it runs at once (returns 0); else the contact search is set
 * up in *S and 1 is returned, unless the orbit is proved never to reach the stop. */
static int cod_segment_begin(stop_run *rn, double horizon, stop_search *S)
{
    rn->seg_x0 = rn->x;
    rn->seg_t0 = rn->t;
    rn->r->segments++;
    double piece = STOP_CHUNK * rn->sys->inv_w1;
    rn->seg_more = horizon > piece;
    if (rn->seg_more)
        horizon = piece;
    if (rn->opt->use_cvode) {
        cod_segment_end(rn, cvode_segment(rn, 0, horizon));
        return 0;
    }
    if (rn->defer_search) {
        S->horizon = horizon;
        return 1;
    }
    stop_modes m;
    stop_modes_from_state(&rn->x, &m);
    if (stop_search_init(rn->sys, &m, horizon, S) == STOP_SEARCH_ON)
        return 1;
    stop_cod_flow(rn->sys, &m, horizon, &rn->x);
    rn->t += horizon;
    cod_segment_end(rn, STOP_SEGMENT_HORIZON);
    return 0;
}

/* (A deferred search that finds the orbit never reaches the stop ends as STOP_SEARCH_NONE
 * with no evaluation: the same as cod_segment_begin's own case.) */
void stop_run_searched(stop_run *rn, const stop_search *S, int rc)
{
    rn->r->evaluations += S->evaluations;
    if (rc == STOP_SEARCH_HIT) {
        rn->x = S->at;
        rn->x.x1 = rn->sys->s;
        rn->t += S->t;
    } else if (rc == STOP_SEARCH_NONE) {
        stop_modes m;
        stop_modes_from_state(&rn->x, &m);
        stop_cod_flow(rn->sys, &m, S->horizon, &rn->x);
        rn->t += S->horizon;
    }
    cod_segment_end(rn, rc == STOP_SEARCH_HIT    ? STOP_SEGMENT_EVENT
                        : rc == STOP_SEARCH_NONE ? STOP_SEGMENT_HORIZON
                                                 : STOP_SEGMENT_STALLED);
}

/* A release from contact: the count of rebound-free CD-COD cycles, which two in a row
 * make a 2-phase periodic orbit (the run stops there unless keep_periodic). */
static void released(stop_run *rn)
{
    rn->in_contact = 0;
    if (rn->events_since_release == 0) {
        if (rn->clean_cycles++ == 0)
            rn->t_clean = rn->t_release;
    } else {
        rn->clean_cycles = 0;
    }
    rn->t_release = rn->t;
    if (rn->opt->sections) /* the release section: the state's energy, kept by CD */
        stop_ring_put(&rn->opt->sections[STOP_RING_RELEASE], rn->t,
                      stop_energy_inline(rn->sys, &rn->x), rn->x.x2, rn->x.v2);
    rn->contacts[(rn->r->contact_phases - 1) % (STOP_CYCLES + 1)].t_exit = rn->t;
    rn->events_since_release = 0;
    if (rn->opt->trace && rn->clean_cycles == 2)
        stop_trace_event(rn->opt->trace, STOP_EVENT_PERIODIC);
    if (rn->clean_cycles >= 2 && !rn->opt->keep_periodic)
        rn->done = 1; /* two rebound-free CD-COD cycles: a 2-phase periodic orbit */
}

/* CD from run->x until release or the horizon. */
static void cd_segment(stop_run *rn, double horizon)
{
    const stop_system *sys = rn->sys;
    stop_trace *trace = rn->opt->trace;
    stop_state x0 = rn->x;
    double t0 = rn->t;
    rn->contacts[rn->r->contact_phases % (STOP_CYCLES + 1)] =
        (stop_contact){.t_entry = t0, .e_entry = rn->e_now, .t_exit = NAN};
    rn->r->contact_phases++;
    rn->r->segments++;
    if (trace)
        stop_trace_event(trace, STOP_EVENT_CONTACT_START);
    int rc;
    if (rn->opt->use_cvode) {
        rc = cvode_segment(rn, 1, horizon);
    } else {
        double exit = stop_cd_exit_time(sys, &rn->x);
        double dt = exit < horizon ? exit : horizon;
        stop_state out;
        stop_cd_flow(sys, &rn->x, dt, &out);
        rn->x = out;
        rn->t += dt;
        rc = exit < horizon ? STOP_SEGMENT_EVENT : STOP_SEGMENT_HORIZON;
        if (rc == STOP_SEGMENT_EVENT)
            rn->x.x2 = sys->x2t; /* on the exit surface exactly */
    }
    if (trace && rc >= 0)
        stop_trace_flow(trace, 1, t0, &x0, rn->t, &rn->x);
    if (trace && rc == STOP_SEGMENT_EVENT)
        stop_trace_event(trace, STOP_EVENT_CONTACT_END);
    if (rc < 0) {
        rn->r->failed = STOP_RUN_SOLVER;
        rn->r->solver_flag = rc;
    }
    if (rc != STOP_SEGMENT_EVENT) {
        rn->done = 1;
        return;
    }
    released(rn);
}

/* The orbit reset: the limit point of the Zeno sequence, reached after the tail time,
 * during which mass one is at the stop to within its vanishing excursions, so that mass
 * two moves as under contact dynamics. The kinetic energy mass one had left is what the
 * rest of the sequence loses: (1 - eps^2) / 2 sum eps^(2n) v^2 = v^2 / 2. */
static void orbit_reset(stop_run *rn, double tail)
{
    double loss = 0.5 * rn->x.v1 * rn->x.v1;
    rn->x.v1 = 0.0;
    stop_state x0 = rn->x, out;
    double t0 = rn->t;
    if (rn->opt->trace) /* the kinetic energy left to mass one is gone at once */
        stop_trace_state(rn->opt->trace, t0, &x0);
    stop_cd_flow(rn->sys, &rn->x, tail, &out);
    rn->x = out;
    rn->t += tail;
    if (rn->opt->trace) {
        stop_trace_flow(rn->opt->trace, 1, t0, &x0, rn->t, &rn->x);
        stop_trace_event(rn->opt->trace, STOP_EVENT_ZENO_RESET);
    }
    rn->r->zeno_resets++;
    rn->r->segments++;
    rn->r->t_last_reset = rn->t;
    rn->events_since_release++;
    after_event(rn, loss);
    rn->in_contact = sticks(rn->sys, &rn->x, 0.0);
}

/* At the stop moving in: the rebound, then a reset when the Zeno sequence it begins would
 * end soon (returns 1: the event loop goes on from the reset) or run out of budget. */
static int rebound(stop_run *rn, double horizon)
{
    const stop_system *sys = rn->sys;
    stop_result *r = rn->r;
    if (r->rebounds >= rn->opt->max_rebounds) {
        r->failed = STOP_RUN_BUDGET;
        rn->done = 1;
        return 1;
    }
    before_event(rn);
    rn->x.x1 = sys->s;
    double v_in = rn->x.v1;
    r->v_in_last = v_in;
    r->v_in_max = stop_max(r->v_in_max, v_in);
    rn->x.v1 = -sys->epsilon * v_in;
    if (r->rebounds++ == 0)
        rn->t_first_rebound = rn->t;
    r->t_last_rebound = rn->t;
    rn->events_since_release++;
    after_event(rn, 0.5 * (1.0 - sys->epsilon * sys->epsilon) * v_in * v_in);
    if (rn->opt->sections) /* the rebound section (the lanes' rebound_vector too) */
        stop_ring_put(&rn->opt->sections[STOP_RING_REBOUND], rn->t, rn->e_now, rn->x.x2,
                      rn->x.v2);
    if (rn->opt->trace) {
        stop_trace_state(rn->opt->trace, rn->t, &rn->x);
        stop_trace_event(rn->opt->trace, STOP_EVENT_REBOUND);
    }
    double force = -(sys->k + sys->k12) * sys->s + sys->k12 * rn->x.x2; /* F1 */
    if (!(force > 0.0))
        return 0;
    double tail = zeno_tail(sys, rn->x.v1, force);
    double excursion = rn->x.v1 * rn->x.v1 / (2.0 * force);
    if (!(tail * sys->w2 < rn->opt->zeno_tail || excursion < 1e-12 * sys->s))
        return 0;
    if (tail > horizon)
        tail = horizon;
    if (rn->t >= rn->t_mid)
        r->late_sticking++; /* a Zeno sequence */
    orbit_reset(rn, tail);
    return 1;
}

/* Arrived with (numerically) zero velocity: chart 2.1 decides. Returns 1 when mass one
 * sticks (the event loop goes on in contact). */
static int arrival(stop_run *rn)
{
    before_event(rn);
    double v_in = rn->x.v1;
    rn->x.x1 = rn->sys->s;
    rn->x.v1 = 0.0;
    after_event(rn, 0.5 * v_in * v_in);
    if (rn->opt->trace)
        stop_trace_state(rn->opt->trace, rn->t, &rn->x);
    if (sticks(rn->sys, &rn->x, rn->x_slack)) {
        if (rn->t >= rn->t_mid)
            rn->r->late_sticking++; /* a contact phase reached without a reset */
        rn->in_contact = 1;
        return 1;
    }
    if (rn->opt->trace)
        stop_trace_event(rn->opt->trace, STOP_EVENT_GRAZE);
    return 0;
}

int stop_run_advance(stop_run *rn, stop_search *S)
{
    const stop_system *sys = rn->sys;
    while (!rn->done && rn->t < rn->opt->t_end && !rn->free_flight) {
        if (asked_to_stop(rn)) {
            rn->r->failed = STOP_RUN_STOPPED;
            break;
        }
        double horizon = rn->opt->t_end - rn->t;
        if (rn->in_contact) {
            cd_segment(rn, horizon);
            continue;
        }
        if (rn->x.x1 >= sys->s && rn->x.v1 > rn->v_rest) {
            if (rebound(rn, horizon))
                continue;
        } else if (rn->x.x1 >= sys->s && rn->x.v1 >= -rn->v_rest) {
            if (arrival(rn))
                continue;
        }
        if (cod_segment_begin(rn, horizon, S))
            return 1;
    }
    rn->done = 1;
    return 0;
}

/* The long-run regime, from what the run proved, detected or certified (in this order),
 * with its basis in r->basis and the time it holds from in r->t_regime. */
static void decide(stop_run *rn)
{
    stop_result *r = rn->r;
    r->orbit_gap = NAN;
    r->t_regime = NAN;
    if (r->failed) {
        r->regime = REGIME_FAILED;
        r->basis = STOP_BASIS_FAILED;
        return;
    }
    if (rn->free_flight) {
        r->regime = REGIME_FREE;
        r->basis = STOP_BASIS_FREE_PROVED;
        r->t_regime = 0.0;
        return;
    }
    if (rn->clean_cycles >= 2) {
        r->regime = REGIME_PERIODIC;
        r->basis = STOP_BASIS_PERIODIC_REACHED;
        r->t_regime = r->t_periodic;
        return;
    }
    /* Below the sticking level nothing but rebounds can happen again; and once mass one
     * has rebounded, its COD orbit came from x1 > s backwards in time, so that (the flow
     * being recurrent, on a torus) it returns there: rebounds for ever, their speeds
     * tending to 0 (they take at most the energy there is), a grazing orbit in the end.
     * (Without a rebound yet, a1 + a2 >= s alone proves no contact: with commensurate
     * frequencies the maximum of x1 may stay below a1 + a2.) */
    if (!isnan(r->t_below) && r->rebounds > 0) {
        r->regime = REGIME_IMPACTING;
        r->basis = STOP_BASIS_IMPACTING_PROVED;
        r->t_regime = fmax(r->t_below, rn->t_first_rebound);
        return;
    }
    r->regime = REGIME_UNDECIDED;
    r->basis = STOP_BASIS_RAISE_T_END;
    if (!rn->opt->certify_approach)
        return;
    double t_from;
    r->basis = stop_approach(rn, &r->orbit_gap, &t_from);
    if (r->basis == STOP_BASIS_PERIODIC_APPROACHED) {
        r->regime = REGIME_PERIODIC;
        r->t_regime = t_from;
    }
}

void stop_run_begin(stop_run *rn, const stop_system *sys, const stop_state *x0,
                    const stop_options *opt, stop_result *r)
{
    *rn = (stop_run){.sys = sys, .opt = opt, .r = r, .x = *x0, .x0 = *x0, .t = 0.0,
                     .t_mid = 0.5 * opt->t_end, .t_3q = 0.75 * opt->t_end, .t_clean = NAN,
                     .t_first_rebound = NAN};
    r->rebounds = r->zeno_resets = r->contact_phases = r->evaluations = 0;
    r->segments = r->late_sticking = 0;
    r->t_last_rebound = r->t_last_reset = r->t_below = r->t_periodic = NAN;
    r->v_in_last = r->v_in_max = 0.0;
    r->losses = 0.0;
    r->failed = STOP_RUN_OK;
    r->solver_flag = SOLVER_OK;
    for (int k = 0; opt->sections && k < STOP_RINGS; k++)
        opt->sections[k].count = 0;
    double e0 = stop_energy(sys, x0);
    r->e0 = rn->e_now = r->energy_mid = r->energy_3q = e0;
    double v_scale = sqrt(2.0 * e0) + DBL_MIN;
    /* A contact located to this accuracy counts as "arriving with zero velocity"
     * (tangential returns, triple zeros of x1 - s, are found only to ~1e-5 in time). */
    rn->v_rest = 1e-7 * v_scale;
    rn->x_slack = 1e-6 * (fabs(sys->x2t) + fabs(sys->s));
    /* `sticks` accepts x2 down to x2t - x_slack after a tangential return: the sticking
     * level is the potential there */
    r->e_stick = potential_at_stop(sys, fmax(sys->x2t - rn->x_slack, sys->x2eq));
    if (e0 < r->e_stick)
        r->t_below = 0.0;
    rn->in_contact = rn->x.x1 >= sys->s && rn->x.v1 == 0.0 && sticks(sys, &rn->x, 0.0);
    if (!rn->in_contact && rn->x.x1 < sys->s) {
        stop_modes m;
        double a1, a2;
        stop_modes_from_state(&rn->x, &m);
        stop_mode_amplitudes(sys, &m, &a1, &a2);
        rn->free_flight = a1 + a2 < sys->s;
    }
    if (opt->trace && !rn->free_flight)
        stop_trace_state(opt->trace, 0.0, x0);
}

/* The energies over the last half and quarter of the run. */
static void energy_falls(stop_run *rn)
{
    stop_result *r = rn->r;
    /* no event in the last half (or the run ended before it, on a periodic orbit): the
     * energy there is the present one */
    if (!rn->mid_seen)
        r->energy_mid = r->energy;
    if (!rn->q3_seen)
        r->energy_3q = r->energy;
    r->energy_fall = r->energy_mid > 0.0 ? (r->energy_mid - r->energy) / r->energy_mid : 0.0;
    r->energy_fall_q4 =
        r->energy_mid > 0.0 ? (r->energy_3q - r->energy) / r->energy_mid : 0.0;
}

void stop_run_finish(stop_run *rn)
{
    const stop_options *opt = rn->opt;
    stop_result *r = rn->r;
    r->final = rn->x;
    r->t_final = rn->t;
    if (opt->trace && rn->free_flight)
        stop_trace_free(opt->trace, &rn->x0, opt->t_end);
    else if (opt->trace && r->failed != STOP_RUN_STOPPED)
        stop_trace_end(opt->trace, rn->t, &rn->x);
    r->energy = stop_energy(rn->sys, &rn->x);
    r->energy_lost = r->e0 - r->energy;
    energy_falls(rn);
    if (rn->clean_cycles >= 2)
        r->t_periodic = rn->t_clean;
    decide(rn);
}

void stop_simulate(const stop_system *sys, const stop_state *x0, const stop_options *opt,
                   stop_result *r)
{
    stop_run rn;
    stop_search S;
    stop_run_begin(&rn, sys, x0, opt, r);
    while (stop_run_advance(&rn, &S))
        stop_run_searched(&rn, &S, stop_search_run(&S));
    stop_run_finish(&rn);
}

/* Each segment or event recomputes the state from a closed-form flow, a few units of
 * rounding in each modal amplitude (up to 16 eps of the energy), and a contact puts mass
 * one on the stop from within the search's band of 64 eps (s + a1 + a2), which moves the
 * energy by at most |F1| times the band. With E = w1^2 a1^2 + w2^2 a2^2,
 * |F1| <= w1^2 a1 + w2^2 a2 and a1 + a2 >= s after a contact, that is at most
 * 128 (1 + w2 / w1) eps E, w2 / w1 being at most sqrt(1 + 2 STOP_RATIO_MAX) where the
 * method is verified (a system beyond it is held to that too: there its contact search's
 * band is no rounding any more). The worst case adds up over all of them (random runs over
 * the admissible ranges use at most 4 % of it: tests/unit/test_stop.c). CVODE's error is its
 * tolerance instead: its energy drifts by up to 30 rtol per radian of the fast mode or
 * per segment (measured for rtol 1e-14 to 1e-6 over the admissible ranges); 100 rtol are
 * allowed. */
double stop_energy_allowance(const stop_system *sys, const stop_options *opt,
                             const stop_result *r)
{
    double events = 1.0 + (double)(r->rebounds + r->zeno_resets + r->contact_phases +
                                   r->segments);
    double ratio = fmin(sys->w2 / sys->w1, sqrt(1.0 + 2.0 * STOP_RATIO_MAX));
    double per_event = (128.0 * (1.0 + ratio) + 16.0) * DBL_EPSILON;
    double allowance = r->e0 * per_event * events;
    if (opt->use_cvode)
        allowance += r->e0 * 100.0 * opt->rtol * (events + sys->w2 * r->t_final);
    return allowance;
}

stop_failure stop_check_result(const stop_system *sys, const stop_options *opt,
                               const stop_result *r)
{
    if (r->failed == STOP_RUN_BUDGET)
        return STOP_FAILURE_BUDGET;
    if (r->failed == STOP_RUN_SOLVER)
        return STOP_FAILURE_SOLVER;
    double allowance = stop_energy_allowance(sys, opt, r);
    if (!isfinite(r->e0) || !isfinite(r->energy) || !isfinite(r->energy_lost) ||
        !isfinite(r->losses) || !isfinite(r->energy_fall) || !isfinite(r->energy_fall_q4) ||
        !isfinite(r->t_final) || !isfinite(allowance) ||
        (r->rebounds > 0 && !(isfinite(r->t_last_rebound) && isfinite(r->v_in_last))))
        return STOP_FAILURE_NONFINITE;
    if (r->energy_lost < -allowance)
        return STOP_FAILURE_ENERGY_ROSE;
    if (fabs(r->energy_lost - r->losses) > allowance)
        return STOP_FAILURE_ENERGY_BALANCE;
    return STOP_FAILURE_NONE;
}
