/* stop_sections.c: the outputs of the rebound map's sections (stop_oscillator.h says what
 * the rings keep), read with the section functions of the hybrid integrator's SDK
 * (hybrid_sections.h) over an is_hybrid_section filled from each ring: the same period
 * and distinct-value rules as a hybrid.h model's recorders give. */
#include "../shared/hybrid.h"
#include "stop_oscillator.h"

/* Two samples are the same when each of (E, x2, v2) differs by at most SECTION_RTOL times
 * the largest |value| of that component over the samples kept, plus SECTION_ATOL (scaled
 * units: s, s sqrt(k), k s^2) for a component that is 0 on the section to rounding. The
 * rings hold the run's own bits, so rounding is some 1e-15 of the energy; 1e-7 is the
 * bouncing ball's section tolerance, and leaves an orbit approached from above (each
 * cycle losing a shrinking share of its gap) to the period it converges to. */
#define SECTION_RTOL 1e-7
#define SECTION_ATOL 1e-12

/* The ring as the SDK reads a recorder's section: rows (t, E, x2, v2), oldest overwritten. */
static is_hybrid_section view(const stop_ring *ring)
{
    is_hybrid_section s = {ring->count, STOP_SECTION_N, STOP_SECTION_WIDTH - 1,
                           &ring->row[0][0]};
    return s;
}

void stop_section_outputs(const stop_task *pt, double *const *out)
{
    static const int period_slot[STOP_SECTIONS] = {STOP_REBOUND_PERIOD, STOP_RELEASE_PERIOD};
    static const int values_slot[STOP_SECTIONS] = {STOP_REBOUND_VALUES, STOP_RELEASE_VALUES};
    const double atol[STOP_SECTION_WIDTH - 1] = {SECTION_ATOL, SECTION_ATOL, SECTION_ATOL};
    for (int k = 0; k < STOP_SECTIONS; k++) {
        is_hybrid_section s = view(&pt->sections[k]);
        int p = is_hybrid_section_period(&s, s.components, STOP_SECTION_N / 2, SECTION_RTOL,
                                         atol);
        *out[period_slot[k]] = p > 0 ? p : NAN;
        *out[values_slot[k]] =
            is_hybrid_section_distinct(&s, s.components, STOP_SECTION_N, SECTION_RTOL, atol);
    }
}
