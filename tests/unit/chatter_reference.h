/* chatter_reference.h: an independent simulator of chatter drops for the tests, in long
 * double (64-bit significands against the kernel's 53), sharing nothing with the model's
 * code but the random initial states: its own vertices (cosl, sinl, not snapped), its own
 * impact map (from Theta^-1 f_j / f_j Theta^-1 f_j, not the kernel's two coefficients),
 * its own search, rescaling and time, and its own PCC decision: where the pair's
 * alternation has real roots, the pair is followed impact by impact (its own impact map,
 * every other vertex watched) until both of its speeds are below 1e-15 |p_3|, which
 * proves nothing in general but checks the kernel's closed-form proof against the motion
 * itself. The classes follow the documented rules (README, chatter.h): ICC at lift-off,
 * PCC, a flat landing (centroid height falling to 2^-32 of itself in one flight; tested
 * on every flight here, where the kernel arms the test), CC at the cap. */
#ifndef IMPACTSWEEP_TEST_CHATTER_REFERENCE_H
#define IMPACTSWEEP_TEST_CHATTER_REFERENCE_H

#include <stdint.h>

typedef struct chatter_ref_drop {
    int outcome;      /* CHATTER_ICC, _CC, _PCC or _FLAT */
    int64_t impacts;  /* impacts simulated, the last included */
    long double time; /* their accumulated time */
    double min_ratio; /* smallest q_3 after / q_3 before of a flight that did not land flat */
} chatter_ref_drop;

/* Drop `sample` of the point (n, rho, gamma, perturbation 0.1, seed), at most max_impacts. */
void chatter_ref_simulate(int n, double rho, double gamma, uint64_t seed, uint64_t sample,
                          int64_t max_impacts, chatter_ref_drop *drop);

/* The same from a given initial state (q0, p0). */
void chatter_ref_simulate_state(int n, double rho, double gamma, const double q0[3],
                                const double p0[3], int64_t max_impacts, chatter_ref_drop *drop);

#endif
