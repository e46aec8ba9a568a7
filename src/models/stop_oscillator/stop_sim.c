/* stop_sim.c: the hybrid simulation of chart 2.1: COD and CD segments, rebounds, sticking
 * and release, Zeno sequences ended by the orbit reset, and the long-run regime. */
#include "stop_oscillator.h"

#include <float.h>
#include <math.h>

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

typedef struct run {
    const stop_system *sys;
    const stop_options *opt;
    stop_result *r;
    stop_state x;
    double t;
    int events_since_release; /* rebounds and resets since the last CD exit */
    int clean_cycles;         /* CD phases each reached from the last without a rebound */
} run;

/* The CVODE option for either segment (contact: CD): the same returns as below, and the
 * event pinned exactly (x1 = s at a contact, x2 = x2t at a release). */
static int cvode_segment(run *rn, int contact, double horizon)
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
    return rc;
}

/* Advances COD from run->x by at most `horizon`, to the first contact. Returns 1 at a
 * contact (x1 = s exactly), 0 at the horizon, < 0 on failure. */
static int cod_segment(run *rn, double horizon)
{
    if (rn->opt->use_cvode)
        return cvode_segment(rn, 0, horizon);
    stop_modes m;
    stop_modes_from_state(&rn->x, &m);
    double t_hit;
    stop_state at;
    int rc = stop_first_contact(rn->sys, &m, horizon, &t_hit, &at, &rn->r->evaluations);
    if (rc < 0)
        return rc;
    if (rc == 1) {
        rn->x = at;
        rn->x.x1 = rn->sys->s;
        rn->t += t_hit;
    } else {
        stop_cod_flow(rn->sys, &m, horizon, &rn->x);
        rn->t += horizon;
    }
    return rc;
}

/* CD from run->x until release or the horizon. Returns 1 released, 0 at the horizon. */
static int cd_segment(run *rn, double horizon)
{
    const stop_system *sys = rn->sys;
    rn->r->contact_phases++;
    if (rn->opt->use_cvode)
        return cvode_segment(rn, 1, horizon);
    double exit = stop_cd_exit_time(sys, &rn->x);
    double dt = exit < horizon ? exit : horizon;
    stop_state out;
    stop_cd_flow(sys, &rn->x, dt, &out);
    rn->x = out;
    rn->t += dt;
    if (exit < horizon) {
        rn->x.x2 = sys->x2t; /* on the exit surface exactly */
        return 1;
    }
    return 0;
}

/* The orbit reset: the limit point of the Zeno sequence, reached after the tail time,
 * during which mass one is at the stop to within its vanishing excursions, so that mass
 * two moves as under contact dynamics. */
static void orbit_reset(run *rn, double tail)
{
    stop_state out;
    stop_cd_flow(rn->sys, &rn->x, tail, &out);
    rn->x = out;
    rn->t += tail;
    rn->r->zeno_resets++;
    rn->r->t_last_reset = rn->t;
    rn->events_since_release++;
}

void stop_simulate(const stop_system *sys, const stop_state *x0, const stop_options *opt,
                   stop_result *r)
{
    run rn = {.sys = sys, .opt = opt, .r = r, .x = *x0, .t = 0.0};
    r->rebounds = r->zeno_resets = r->contact_phases = r->evaluations = 0;
    r->t_last_rebound = r->t_last_reset = NAN;
    r->v_in_last = r->v_in_max = 0.0;
    r->failed = 0;
    double e0 = stop_energy(sys, x0);
    double v_scale = sqrt(2.0 * e0) + DBL_MIN;
    /* A contact located to this accuracy counts as "arriving with zero velocity"
     * (tangential returns, triple zeros of x1 - s, are found only to ~1e-5 in time). */
    const double v_rest = 1e-7 * v_scale, x_slack = 1e-6 * (fabs(sys->x2t) + fabs(sys->s));
    int in_contact = rn.x.x1 >= sys->s && rn.x.v1 == 0.0 && sticks(sys, &rn.x, 0.0);
    int free_flight = 0;
    if (!in_contact && rn.x.x1 < sys->s) {
        stop_modes m;
        double a1, a2;
        stop_modes_from_state(&rn.x, &m);
        stop_mode_amplitudes(sys, &m, &a1, &a2);
        free_flight = a1 + a2 < sys->s;
    }
    while (rn.t < opt->t_end && !free_flight) {
        double horizon = opt->t_end - rn.t;
        if (in_contact) {
            int rc = cd_segment(&rn, horizon);
            if (rc < 0) {
                r->failed = 2;
                break;
            }
            if (rc == 0)
                break;
            in_contact = 0;
            rn.clean_cycles = rn.events_since_release == 0 ? rn.clean_cycles + 1 : 0;
            rn.events_since_release = 0;
            if (rn.clean_cycles >= 2 && !opt->keep_periodic)
                break; /* two rebound-free CD-COD cycles: a 2-phase periodic orbit */
            continue;
        }
        /* at the stop moving in: rebound */
        if (rn.x.x1 >= sys->s && rn.x.v1 > v_rest) {
            if (r->rebounds >= opt->max_rebounds) {
                r->failed = 1;
                break;
            }
            rn.x.x1 = sys->s;
            r->v_in_last = rn.x.v1;
            r->v_in_max = fmax(r->v_in_max, rn.x.v1);
            rn.x.v1 = -sys->epsilon * rn.x.v1;
            r->rebounds++;
            r->t_last_rebound = rn.t;
            rn.events_since_release++;
            double force = stop_contact_force(sys, rn.x.x2);
            if (force > 0.0) {
                double tail = zeno_tail(sys, rn.x.v1, force);
                double excursion = rn.x.v1 * rn.x.v1 / (2.0 * force);
                if (tail * sys->w2 < opt->zeno_tail || excursion < 1e-12 * sys->s) {
                    if (tail > horizon)
                        tail = horizon;
                    rn.x.v1 = 0.0;
                    orbit_reset(&rn, tail);
                    in_contact = sticks(sys, &rn.x, 0.0);
                    continue;
                }
            }
        } else if (rn.x.x1 >= sys->s && rn.x.v1 >= -v_rest) {
            /* arrived with (numerically) zero velocity: chart 2.1 decides */
            rn.x.x1 = sys->s;
            rn.x.v1 = 0.0;
            if (sticks(sys, &rn.x, x_slack)) {
                in_contact = 1;
                continue;
            }
        }
        int rc = cod_segment(&rn, horizon);
        if (rc < 0) {
            r->failed = 2;
            break;
        }
        if (rc == 0)
            break;
    }
    r->final = rn.x;
    r->t_final = rn.t;
    r->energy = stop_energy(sys, &rn.x);
    r->energy_lost = e0 - r->energy;
    int recurring_resets = r->zeno_resets > 0 && r->t_last_reset >= 0.75 * opt->t_end;
    int weakening = r->rebounds > 0 && r->v_in_last < 1e-2 * r->v_in_max;
    r->regime = r->failed                ? REGIME_FAILED
                : free_flight            ? REGIME_FREE
                : rn.clean_cycles >= 2   ? REGIME_PERIODIC
                : recurring_resets       ? REGIME_STICKING
                : weakening              ? REGIME_GRAZING
                                         : REGIME_IMPACTING;
}
