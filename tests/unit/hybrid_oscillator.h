/* hybrid_oscillator.h: the unit tests' harmonic oscillator x'' = -x on the hybrid
 * integrator (its field and its exact flow), which the hybrid and Lyapunov suites both
 * put beside a wall. Included after models/shared/hybrid.h. */
#ifndef TEST_HYBRID_OSCILLATOR_H
#define TEST_HYBRID_OSCILLATOR_H

static void osc_field(is_hybrid_lanes *b, lv_double t, const lv_double *y, lv_double *f)
{
    (void)b, (void)t;
    f[0] = y[1];
    f[1] = -y[0];
}

static void osc_flow(const is_hybrid_lanes *b, lv_double t0, const lv_double *y0, lv_double dt,
                     lv_double *y)
{
    (void)b, (void)t0;
    lv_double s, c;
    lv_sincos(dt, &s, &c);
    y[0] = y0[0] * c + y0[1] * s;
    y[1] = y0[1] * c + -(y0[0] * s);
}

#endif
