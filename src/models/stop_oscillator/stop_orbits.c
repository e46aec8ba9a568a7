/* stop_orbits.c: the 2-phase periodic hybrid orbits. A COD phase from (s, 0, x2t, v)
 * that returns to (s, 0, x2t, -v) is, by reversibility, one in which both modes reach a
 * turning point at t_cod / 2 = tau. With u(0) = (s + x2t)/2, u'(0) = v/2, w(0) =
 * (s - x2t)/2, w'(0) = -v/2 that means
 *     tan(w1 tau) = v / ((s + x2t) w1)   and   tan(w2 tau) = v / ((x2t - s) w2),
 * so tau solves (s + x2t) w1 tan(w1 tau) = (x2t - s) w2 tan(w2 tau), one root per branch
 * between the poles, and v = (s + x2t) w1 tan(w1 tau) must be negative (the CD exit is
 * left with v2 < 0). Mass one must stay off the stop in between; each candidate is then
 * simulated for several periods and kept only if it closes on itself. */
#include "stop_oscillator.h"

#include "../../core/contract/memo.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>

static double branch_function(const stop_system *sys, double tau)
{
    return (sys->s + sys->x2t) * sys->w1 * tan(sys->w1 * tau) -
           (sys->x2t - sys->s) * sys->w2 * tan(sys->w2 * tau);
}

static int by_speed(const void *a, const void *b)
{
    double x = fabs(((const stop_orbit *)a)->v), y = fabs(((const stop_orbit *)b)->v);
    return (x > y) - (x < y);
}

/* Bisection to the sign change of the branch function in [lo, hi]. */
static double bisect(const stop_system *sys, double lo, double hi)
{
    double flo = branch_function(sys, lo);
    for (int i = 0; i < 200 && hi - lo > 4.0 * DBL_EPSILON * hi; i++) {
        double mid = 0.5 * (lo + hi), fm = branch_function(sys, mid);
        if ((fm < 0.0) == (flo < 0.0)) {
            lo = mid;
            flo = fm;
        } else {
            hi = mid;
        }
    }
    return 0.5 * (lo + hi);
}

/* The candidate is a periodic orbit: COD stays off the stop until t_cod, and the
 * simulated hybrid motion makes `periods` rebound-free cycles back to its start. */
static int verified(const stop_system *sys, stop_orbit *orbit, int periods)
{
    stop_state x0 = {sys->s, 0.0, sys->x2t, orbit->v};
    stop_modes m;
    stop_modes_from_state(&x0, &m);
    double t_hit;
    stop_state at;
    int64_t evaluations = 0;
    int rc = stop_first_contact(sys, &m, orbit->t_cod * 1.5, &t_hit, &at, &evaluations);
    /* the return is tangential (a triple zero), located only to ~1e-5 in time */
    if (rc != 1 || fabs(t_hit - orbit->t_cod) > 1e-4 * (1.0 + orbit->t_cod))
        return 0;
    stop_state back = {sys->s, 0.0, sys->x2t, -orbit->v};
    orbit->t_cd = stop_cd_exit_time(sys, &back);
    stop_options opt = {.t_end = periods * (orbit->t_cod + orbit->t_cd),
                        .max_rebounds = 0, .zeno_tail = 1e-3, .keep_periodic = 1};
    stop_result r;
    stop_simulate(sys, &x0, &opt, &r);
    double e0 = stop_energy(sys, &x0);
    return !r.failed && r.rebounds == 0 && r.zeno_resets == 0 &&
           r.contact_phases >= periods && fabs(r.energy - e0) <= 1e-9 * e0;
}

/* Keeps the STOP_MAX_ORBITS orbits with the smallest |v| among those found so far. */
static void keep(stop_orbit *orbits, int found, const stop_orbit *orbit)
{
    if (found < STOP_MAX_ORBITS) {
        orbits[found] = *orbit;
        return;
    }
    int largest = 0;
    for (int i = 1; i < STOP_MAX_ORBITS; i++)
        if (fabs(orbits[i].v) > fabs(orbits[largest].v))
            largest = i;
    if (fabs(orbit->v) < fabs(orbits[largest].v))
        orbits[largest] = *orbit;
}

/* The roots of the branch function in one interval of continuity (a, b), each verified;
 * returns the new count of orbits found. */
static int search_interval(const stop_system *sys, double a, double b, int periods,
                           stop_orbit *orbits, int found)
{
    double span = b - a;
    if (span <= 1e-12 * (1.0 + b))
        return found;
    /* sample inside, away from the poles, and bisect each sign change */
    const int samples = 64;
    double margin = 1e-9 * span, previous_tau = a + margin;
    double previous = branch_function(sys, previous_tau);
    for (int k = 1; k <= samples; k++) {
        double tau = k == samples ? b - margin : a + span * k / samples;
        double value = branch_function(sys, tau);
        if ((value < 0.0) != (previous < 0.0) && isfinite(value) && isfinite(previous)) {
            double root = bisect(sys, previous_tau, tau);
            /* a sign change across a pole is no root: the function must be small */
            double check = fabs(branch_function(sys, root));
            double v = (sys->s + sys->x2t) * sys->w1 * tan(sys->w1 * root);
            if (check < 1e-6 * (1.0 + fabs(v)) && v < 0.0) {
                stop_orbit orbit = {.v = v, .t_cod = 2.0 * root};
                if (verified(sys, &orbit, periods))
                    keep(orbits, found++, &orbit);
            }
        }
        previous = value;
        previous_tau = tau;
    }
    return found;
}

/* The orbits in the intervals between poles that meet [tau_lo, tau_max] (tau = t_cod / 2),
 * the last one cut at tau_max; returns how many were found. */
static int search_poles(const stop_system *sys, double tau_lo, double tau_max, int periods,
                        stop_orbit *orbits)
{
    /* the poles of both tangents, (j + 1/2) pi / w, split (0, tau_max] into intervals of
     * continuity: walk the two sequences of poles in step, in increasing order */
    int found = 0;
    double a = 0.0;
    for (int64_t j1 = 0, j2 = 0; a < tau_max;) {
        double p1 = (0.5 + (double)j1) * M_PI / sys->w1, p2 = (0.5 + (double)j2) * M_PI / sys->w2;
        double b = fmin(fmin(p1, p2), tau_max);
        j1 += p1 <= b;
        j2 += p2 <= b;
        if (b >= tau_lo)
            found = search_interval(sys, a, b, periods, orbits, found);
        a = b;
    }
    qsort(orbits, (size_t)(found < STOP_MAX_ORBITS ? found : STOP_MAX_ORBITS), sizeof *orbits,
          by_speed);
    return found;
}

int stop_find_orbits(const stop_system *sys, double t_cod_max, int periods, stop_orbit *orbits)
{
    double tau_max = 0.5 * t_cod_max;
    if (!(tau_max > 0.0))
        return 0;
    return search_poles(sys, 0.0, tau_max, periods, orbits);
}

int stop_find_orbits_between(const stop_system *sys, double t_cod_lo, double t_cod_hi,
                             int periods, stop_orbit *orbits)
{
    if (!(t_cod_hi > 0.0 && t_cod_lo <= t_cod_hi))
        return 0;
    /* the whole intervals that meet the window (the last one cut at its end, as a search
     * up to t_cod_hi would cut it), then the orbits inside it */
    int found = search_poles(sys, 0.5 * t_cod_lo, 0.5 * t_cod_hi, periods, orbits);
    int kept = 0;
    for (int i = 0; i < found && i < STOP_MAX_ORBITS; i++)
        if (orbits[i].t_cod >= t_cod_lo)
            orbits[kept++] = orbits[i];
    return kept;
}

void stop_orbit_outputs(struct is_memo *memo, const stop_system *sys, double t_cod_max,
                        stop_orbit_summary *out)
{
    /* the search reads k, k12, s (the scaled system's: 1, k12 / k, 1) and t_cod_max,
     * never epsilon (its runs have no rebound budget; unit.stop checks that the results
     * do not depend on it): one canonical epsilon for every point makes that so by
     * construction */
    const double key[4] = {sys->k, sys->k12, sys->s, t_cod_max};
    const void *known = memo ? is_memo_get(memo, key) : NULL;
    if (known) {
        memcpy(out, known, sizeof *out);
        return;
    }
    stop_system canonical;
    stop_system_init(&canonical, sys->k, sys->k12, sys->s, 0.5);
    stop_orbit orbits[STOP_MAX_ORBITS];
    int n = stop_find_orbits(&canonical, t_cod_max, 10, orbits);
    *out = (stop_orbit_summary){n, n > 0 ? orbits[0].v : NAN, n > 0 ? orbits[0].t_cod : NAN};
    if (memo)
        is_memo_put(memo, key, out);
}
