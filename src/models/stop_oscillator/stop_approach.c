/* stop_approach.c: the certificate that a run approaches a 2-phase periodic orbit, read
 * from its last contact phases at the end of the run.
 *
 * Why it is evidence (README, stop oscillator): a contact phase always ends at
 * (s, 0, x2t, v2 < 0) with v2 fixed by the energy, so the releases of a run are the
 * iterates of a map of one number, E -> P(E) <= E, whose fixed points are the 2-phase
 * orbits (the only orbits with contact phases and no rebound). Near an orbit of energy E*
 * the gap x1 - s of the COD flight has a triple zero where the orbit returns,
 * a (t - t_cod)^3 with a > 0, and COD being linear in its initial state, a release at
 * E* + delta adds c delta to it: the flight meets the stop at a speed of order
 * delta^(2/3) and the cycle loses L ~ K delta^(4/3) (the local motion scales with
 * delta^(1/3) in time). From above (delta > 0) the gap then closes monotonically, the
 * share L / delta of it lost in a cycle shrinking like delta^(1/3), algebraically (delta
 * after n cycles ~ (3 / (K n))^3), so that the orbit is approached, never reached; from
 * below, the losses carry the run away from the orbit. The certificate checks that the run
 * is in that regime; the local law's higher-order terms are not bounded, which makes it
 * a certificate with stated tolerances that rests on an observed law, not a proof. */
#include <float.h>
#include <math.h>

#include "stop_oscillator.h"

/* The cycles of the last STOP_CYCLES + 1 contact phases, oldest first. */
typedef struct cycles {
    const stop_contact *c[STOP_CYCLES + 1];
    double cod_lo, cod_hi;       /* the shortest and longest COD phase (release to contact) */
    double period_lo, period_hi; /* ... and cycle (contact phase to contact phase) */
} cycles;

static void read_cycles(const stop_run *rn, cycles *cy)
{
    int64_t n = rn->r->contact_phases;
    cy->cod_lo = cy->period_lo = INFINITY;
    cy->cod_hi = cy->period_hi = -INFINITY;
    for (int i = 0; i <= STOP_CYCLES; i++)
        cy->c[i] = &rn->contacts[(n - 1 - STOP_CYCLES + i) % (STOP_CYCLES + 1)];
    for (int i = 1; i <= STOP_CYCLES; i++) {
        double cod = cy->c[i]->t_entry - cy->c[i - 1]->t_exit;
        double period = cy->c[i]->t_entry - cy->c[i - 1]->t_entry;
        cy->cod_lo = fmin(cy->cod_lo, cod);
        cy->cod_hi = fmax(cy->cod_hi, cod);
        cy->period_lo = fmin(cy->period_lo, period);
        cy->period_hi = fmax(cy->period_hi, period);
    }
}

/* Every cycle lasts the orbit's period to STOP_APPROACH_PERIOD, and its COD phase the
 * orbit's t_cod to STOP_APPROACH_TIMING (the contact phase begins after the Zeno sequence
 * at the return, which shifts it by some delta^(1/3)). */
static int orbit_fits(const cycles *cy, const stop_orbit *o)
{
    double tol = STOP_APPROACH_TIMING, period = o->t_cod + o->t_cd;
    return fabs(cy->cod_lo - o->t_cod) <= tol * o->t_cod &&
           fabs(cy->cod_hi - o->t_cod) <= tol * o->t_cod &&
           fabs(cy->period_lo - period) <= STOP_APPROACH_PERIOD * period &&
           fabs(cy->period_hi - period) <= STOP_APPROACH_PERIOD * period;
}

static double orbit_energy(const stop_system *sys, const stop_orbit *o)
{
    stop_state on = {sys->s, 0.0, sys->x2t, o->v};
    return stop_energy(sys, &on);
}

/* The gap to the orbit closes as the local law has it: E_i - E* > 0 falls strictly, no
 * cycle loses more than STOP_APPROACH_LOSS of the gap it starts from, and the share lost
 * does not grow over the window (beyond the rounding of the energies, a few units of
 * DBL_EPSILON E each). */
static int gap_closes(const cycles *cy, double e_star)
{
    double noise = 8.0 * DBL_EPSILON * e_star, first = NAN, last = NAN;
    for (int i = 1; i <= STOP_CYCLES; i++) {
        double before = cy->c[i - 1]->e_entry - e_star, after = cy->c[i]->e_entry - e_star;
        if (!(after > 0.0 && after < before))
            return 0;
        double share = (before - after) / before;
        if (!(share <= STOP_APPROACH_LOSS))
            return 0;
        if (i == 1)
            first = share + noise / before;
        last = share - noise / before;
    }
    return last <= first;
}

stop_basis stop_approach(const stop_run *rn, double *gap, double *t_from)
{
    *gap = NAN;
    *t_from = NAN;
    if (rn->r->contact_phases < STOP_CYCLES + 1)
        return STOP_BASIS_RAISE_T_END;
    cycles cy;
    read_cycles(rn, &cy);
    const stop_contact *newest = cy.c[STOP_CYCLES];
    /* still cycling at the end: no return overdue since the last release */
    double since = isnan(newest->t_exit) ? 0.0 : rn->t - newest->t_exit;
    if (!(since <= cy.cod_hi * (1.0 + STOP_APPROACH_TIMING)) ||
        !(cy.period_hi <= cy.period_lo * (1.0 + 2.0 * STOP_APPROACH_PERIOD)))
        return STOP_BASIS_RAISE_T_END;
    /* the orbits whose t_cod every cycle's COD phase matches */
    stop_orbit orbits[STOP_MAX_ORBITS];
    double tol = STOP_APPROACH_TIMING;
    int n = stop_find_orbits_between(rn->sys, cy.cod_hi / (1.0 + tol), cy.cod_lo / (1.0 - tol), 10,
                                     orbits);
    /* the one just below the last contact phase's energy, else the lowest above it */
    int below = -1, above = -1;
    double e_last = newest->e_entry, e_below = -INFINITY, e_above = INFINITY;
    for (int i = 0; i < n && i < STOP_MAX_ORBITS; i++) {
        if (!orbit_fits(&cy, &orbits[i]))
            continue;
        double e = orbit_energy(rn->sys, &orbits[i]);
        if (e < e_last && e > e_below)
            below = i, e_below = e;
        if (e >= e_last && e < e_above)
            above = i, e_above = e;
    }
    if (below < 0 && above < 0)
        return STOP_BASIS_NO_ORBIT;
    if (below < 0) {
        *gap = (e_last - e_above) / e_above;
        return STOP_BASIS_BELOW_ORBIT;
    }
    *gap = (e_last - e_below) / e_below;
    if (!(*gap <= STOP_APPROACH_GAP) || !gap_closes(&cy, e_below))
        return STOP_BASIS_NEAR_ORBIT;
    *t_from = cy.c[0]->t_entry;
    return STOP_BASIS_PERIODIC_APPROACHED;
}
