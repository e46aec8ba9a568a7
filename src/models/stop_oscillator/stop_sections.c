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

/* Whether the energies of the samples kept fall (or rise) by more than the energy's
 * tolerance from each sample to the next: then every two samples differ in E, and the
 * SDK's answers are known without its scans, which compare each sample with every value
 * found (64 x 64 comparisons where every sample is new): no period, and as many values as
 * samples. A run that loses energy at each rebound is mostly that. */
static int energies_apart(const stop_ring *ring)
{
    int64_t kept = ring->count < STOP_SECTION_N ? ring->count : STOP_SECTION_N;
    int64_t first = ring->count - kept;
    double scale = 0.0;
    for (int64_t j = first; j < ring->count; j++)
        scale = fmax(scale, fabs(ring->row[j & (STOP_SECTION_N - 1)][1]));
    double tol = SECTION_ATOL + SECTION_RTOL * scale; /* ishs_tolerances' */
    int falling = 1, rising = 1;
    for (int64_t j = first + 1; j < ring->count; j++) {
        double step = ring->row[j & (STOP_SECTION_N - 1)][1] -
                      ring->row[(j - 1) & (STOP_SECTION_N - 1)][1];
        falling &= -step > tol;
        rising &= step > tol;
    }
    return falling || rising;
}

void stop_section_outputs(const stop_task *pt, double *const *out)
{
    static const int period_slot[STOP_RINGS] = {STOP_REBOUND_PERIOD, STOP_RELEASE_PERIOD};
    static const int values_slot[STOP_RINGS] = {STOP_REBOUND_VALUES, STOP_RELEASE_VALUES};
    const double atol[STOP_SECTION_WIDTH - 1] = {SECTION_ATOL, SECTION_ATOL, SECTION_ATOL};
    for (int k = 0; k < STOP_RINGS; k++) {
        *out[period_slot[k]] = NAN;
        *out[values_slot[k]] = NAN;
        if (!pt->opt.sections)
            continue;
        const stop_ring *ring = &pt->opt.sections[k];
        is_hybrid_section s = view(ring);
        if (energies_apart(ring)) {
            *out[values_slot[k]] = is_hybrid_section_kept(&s);
            continue;
        }
        int p = is_hybrid_section_period(&s, s.components, STOP_SECTION_N / 2, SECTION_RTOL,
                                         atol);
        *out[period_slot[k]] = p > 0 ? p : NAN;
        *out[values_slot[k]] =
            is_hybrid_section_distinct(&s, s.components, STOP_SECTION_N, SECTION_RTOL, atol);
    }
}
