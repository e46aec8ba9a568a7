/* test_lyapunov.c: the Lyapunov exponents of the hybrid integrator (hybrid_lyapunov.h)
 * against exact values.
 *
 *   - A damped oscillator x'' + 2 z x' + x = 0, no events: both exponents are -z (the
 *     real part of the eigenvalues -z +- i sqrt(1 - z^2)), and their sum is -2 z exactly
 *     at every renormalisation (Liouville: the tangents' volume grows as the flow's
 *     determinant, exp(trace t)), in field mode (variational equations) and flow mode
 *     (the exact flow's derivative).
 *   - A forced Duffing oscillator x'' + c x' - x + x^3 = F cos t in its chaotic regime:
 *     the sum of the two exponents is the average divergence, -c, and the largest is
 *     positive.
 *   - An oscillator x'' = -x with a wall at x = 0 and restitution r: every flight between
 *     impacts lasts pi and the system is linear and homogeneous, so both exponents are
 *     log(r) / pi. The saltation matrix is -r I there; the reset's derivative alone,
 *     diag(1, -r), would give 0 for the largest: the test fails without the saltation.
 *   - Two such oscillators, two walls: hit at one instant, each wall's saltation applies
 *     (every exponent log(r) / pi), or, where a coupling makes the two orders of the
 *     impacts map differently, the exponents are undecided; hit 1e-12 apart, no Zeno.
 *   - The damped oscillator reset to one state at t0 (nearby motions merge: the tangents
 *     collapse): -z when t0 is in the transient (the count starts afresh), -inf after. */
#include <CUnit/CUnit.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "models/shared/hybrid.h"
#include "hybrid_oscillator.h"
#include "suites.h"

enum { P_Z, P_C, P_F, P_R };

typedef struct ly_batch {
    const double *par; /* per point: z, c, F, r */
    double t_end, interval, transient, y0[2], atol, h_max;
    is_hybrid_end *ends;
} ly_batch;

static int ly_start(void *ctx, size_t i, is_hybrid_start *s)
{
    const ly_batch *w = ctx;
    s->t_end = w->t_end;
    s->y[0] = w->y0[0], s->y[1] = w->y0[1];
    for (int p = 0; p < 4; p++)
        s->par[p] = w->par[4 * i + p];
    s->rtol = 1e-11, s->atol = w->atol, s->h_max = w->h_max;
    s->lyapunov_interval = w->interval;
    s->lyapunov_transient = w->transient;
    return 1;
}

static void ly_finish(void *ctx, size_t i, const is_hybrid_end *e)
{
    ((ly_batch *)ctx)->ends[i] = *e;
}

static void ly_run(const is_hybrid_system *sys, ly_batch *w, size_t n)
{
    CHECK(is_hybrid_run(sys, w, n, NULL, 0) == 0, "is_hybrid_run failed");
}

/* --- the damped oscillator ---------------------------------------------------------------- */

static void damped_field(is_hybrid_lanes *b, lv_double t, const lv_double *y, lv_double *f)
{
    (void)t;
    f[0] = y[1];
    f[1] = -y[0] + -2.0 * b->par[P_Z] * y[1];
}

static void damped_jacobian(is_hybrid_lanes *b, lv_double t, const lv_double *y,
                            lv_double (*J)[IS_HYBRID_MAX_DIM])
{
    (void)t, (void)y;
    J[0][1] = lv_splat(1.0);
    J[1][0] = lv_splat(-1.0);
    J[1][1] = -2.0 * b->par[P_Z];
}

/* the flow and its derivative: e^(-z t) (cos wt + z/w sin wt, sin wt / w;
 * -sin wt / w, cos wt - z/w sin wt), w = sqrt(1 - z^2) */
static void damped_matrix(const is_hybrid_lanes *b, lv_double dt, lv_double (*P)[IS_HYBRID_MAX_DIM])
{
    lv_double z = b->par[P_Z], w = lv_sqrt(1.0 - z * z), s, c, hi, lo;
    lv_sincos(w * dt, &s, &c);
    lv_two_product(-z, dt, &hi, &lo);
    lv_double decay = lv_exp_dd(hi, lo);
    P[0][0] = decay * (c + z / w * s);
    P[0][1] = decay * (s / w);
    P[1][0] = decay * -(s / w);
    P[1][1] = decay * (c - z / w * s);
}

static void damped_flow(const is_hybrid_lanes *b, lv_double t0, const lv_double *y0,
                        lv_double dt, lv_double *y)
{
    lv_double P[IS_HYBRID_MAX_DIM][IS_HYBRID_MAX_DIM];
    (void)t0;
    damped_matrix(b, dt, P);
    y[0] = P[0][0] * y0[0] + P[0][1] * y0[1];
    y[1] = P[1][0] * y0[0] + P[1][1] * y0[1];
}

static void damped_flow_jacobian(const is_hybrid_lanes *b, lv_double t0, const lv_double *y0,
                                 lv_double dt, lv_double (*P)[IS_HYBRID_MAX_DIM])
{
    (void)t0, (void)y0;
    damped_matrix(b, dt, P);
}

/* no events: one that never fires (g = 1) */
static void no_events(const is_hybrid_lanes *b, lv_double t, const lv_double *y,
                      const lv_double *f, lv_double *g, lv_double *dg)
{
    (void)b, (void)t, (void)y, (void)f;
    g[0] = lv_splat(1.0);
    if (dg)
        dg[0] = lv_zero();
}

static lv_mask no_reset(is_hybrid_lanes *b, const lv_mask *fired, lv_double t, lv_double *y)
{
    (void)b, (void)fired, (void)t, (void)y;
    return lv_mask_none();
}

static const is_hybrid_lyapunov damped_field_ly = {.vectors = 2, .jacobian = damped_jacobian};
static const is_hybrid_lyapunov damped_flow_ly = {.vectors = 2,
                                                  .flow_jacobian = damped_flow_jacobian};
static const is_hybrid_system damped_field_sys = {
    .dimension = 2, .events = 1, .direction = {-1}, .kind = {IS_HYBRID_LAND},
    .field = damped_field, .event_values = no_events, .on_event = no_reset,
    .start = ly_start, .finish = ly_finish, .lyapunov = &damped_field_ly};
static const is_hybrid_system damped_flow_sys = {
    .dimension = 2, .events = 1, .direction = {-1}, .kind = {IS_HYBRID_LAND},
    .flow = damped_flow, .event_values = no_events, .on_event = no_reset,
    .start = ly_start, .finish = ly_finish, .lyapunov = &damped_flow_ly};

static void test_damped(void)
{
    static const double par[] = {0.05, 0, 0, 0, 0.1, 0, 0, 0, 0.3, 0, 0, 0, 0.7, 0, 0, 0};
    enum { N = sizeof par / sizeof *par / 4 };
    for (int flow = 0; flow < 2; flow++) {
        is_hybrid_end ends[N];
        /* (the steps follow the state's error alone: h_max keeps the tangents' accurate
         * once the state has decayed below atol) */
        ly_batch w = {par, 2000.0, 1.0, 0.0, {1.0, 0.0}, 1e-14, 0.05, ends};
        ly_run(flow ? &damped_flow_sys : &damped_field_sys, &w, N);
        for (int i = 0; i < N; i++) {
            double z = par[4 * i], l0 = ends[i].lyapunov[0], l1 = ends[i].lyapunov[1];
            double err = ends[i].lyapunov_error;
            printf("  damped z %.2f (%s): exponents %.9f %.9f (exact %.2f), sum + 2z %.2g, "
                   "spread %.2g\n", z, flow ? "flow" : "field", l0, l1, -z, l0 + l1 + 2 * z, err);
            CHECK(ends[i].status == IS_HYBRID_HORIZON, "status %d", ends[i].status);
            /* the estimate's error is the tangents' bounded wobble over the run: log of the
             * eigenvectors' condition, over 2000 */
            CHECK(fabs(l0 + z) <= 1e-3 * z + 2e-4, "z %g: largest %.12g, exact %g", z, l0, -z);
            CHECK(fabs(l1 + z) <= 1e-3 * z + 2e-4, "z %g: second %.12g, exact %g", z, l1, -z);
            CHECK(fabs(l0 + l1 + 2.0 * z) <= 1e-9, "z %g: sum %.15g, trace %g", z, l0 + l1,
                  -2.0 * z);
            CHECK(err >= 0.0 && err <= 1e-3, "z %g: spread %g", z, err);
            CHECK(isnan(ends[i].lyapunov[2]), "a third exponent: %g", ends[i].lyapunov[2]);
        }
    }
}

/* --- motions that merge: a reset to a fixed state at t = t0 (par[P_F]) -------------------- */

/* Every motion is sent to (1, 0) at t0: nearby motions become one (the saltation is 0, as
 * where a motion sticks), so the tangents collapse there. Once in the transient, the
 * exponents asked for are the attractor's (-z, the damped oscillator's); after it, -inf. */
static void damped_field_c(const is_hybrid_lanes *b, lv_double t, const lv_double *y,
                           lv_double *f)
{
    damped_field((is_hybrid_lanes *)b, t, y, f);
}

static void clock_event(const is_hybrid_lanes *b, lv_double t, const lv_double *y,
                        const lv_double *f, lv_double *g, lv_double *dg)
{
    (void)y, (void)f;
    g[0] = b->par[P_F] - t;
    if (dg)
        dg[0] = lv_splat(-1.0);
}

static void clock_gradient(const is_hybrid_lanes *b, lv_double t, const lv_double *y,
                           lv_double (*n)[IS_HYBRID_MAX_DIM], lv_double *g_t)
{
    (void)b, (void)t, (void)y, (void)n;
    g_t[0] = lv_splat(-1.0);
}

static lv_mask merge_reset(is_hybrid_lanes *b, const lv_mask *fired, lv_double t, lv_double *y)
{
    (void)b, (void)t;
    y[0] = lv_sel(fired[0], lv_splat(1.0), y[0]);
    y[1] = lv_sel(fired[0], lv_zero(), y[1]);
    return lv_mask_none();
}

static void merge_jacobian(const is_hybrid_lanes *b, const lv_mask *fired, lv_double t,
                           const lv_double *y, lv_double (*R)[IS_HYBRID_MAX_DIM], lv_double *R_t)
{
    (void)b, (void)t, (void)y, (void)R_t;
    R[0][0] = lv_sel(fired[0], lv_zero(), R[0][0]);
    R[1][1] = lv_sel(fired[0], lv_zero(), R[1][1]);
}

static const is_hybrid_lyapunov merge_ly = {
    .vectors = 2, .flow_jacobian = damped_flow_jacobian, .field = damped_field_c,
    .event_gradient = clock_gradient, .reset_jacobian = merge_jacobian};
/* (a clock's event passes to its far side: IS_HYBRID_LAND, whose on_event may still set
 * the state; a RESET would have to return it) */
static const is_hybrid_system merge_sys = {
    .dimension = 2, .events = 1, .direction = {-1}, .kind = {IS_HYBRID_LAND},
    .flow = damped_flow, .event_values = clock_event, .rates = 1, .on_event = merge_reset,
    .start = ly_start, .finish = ly_finish, .lyapunov = &merge_ly};

static void test_merge(void)
{
    /* z 0.1, the merge at t0 = 5 and 20 (in the transient) or 100 and 700 (after it) */
    static const double par[] = {0.1, 0, 5, 0, 0.1, 0, 20, 0, 0.1, 0, 100, 0, 0.1, 0, 700, 0};
    enum { N = sizeof par / sizeof *par / 4 };
    is_hybrid_end ends[N];
    ly_batch w = {par, 2000.0, 1.0, 50.0, {0.3, -0.2}, 1e-14, 0.05, ends};
    ly_run(&merge_sys, &w, N);
    for (int i = 0; i < N; i++) {
        double t0 = par[4 * i + P_F], l0 = ends[i].lyapunov[0], l1 = ends[i].lyapunov[1];
        printf("  merged at t = %g (transient 50): exponents %.9g %.9g (%s)\n", t0, l0, l1,
               ends[i].lyapunov_reason ? ends[i].lyapunov_reason : "");
        CHECK(ends[i].status == IS_HYBRID_HORIZON && ends[i].events == 1, "status %d, %lld",
              ends[i].status, (long long)ends[i].events);
        if (t0 < w.transient) {
            CHECK(fabs(l0 + 0.1) <= 1e-3 * 0.1 + 2e-4, "t0 %g: largest %.12g, exact -0.1", t0, l0);
            CHECK(fabs(l1 + 0.1) <= 1e-3 * 0.1 + 2e-4, "t0 %g: second %.12g, exact -0.1", t0, l1);
        } else {
            CHECK(isinf(l0) && l0 < 0 && isinf(l1) && l1 < 0, "t0 %g: %g %g, not -inf", t0, l0,
                  l1);
        }
    }
}

/* --- the forced Duffing oscillator ------------------------------------------------------- */

static void duffing_field(is_hybrid_lanes *b, lv_double t, const lv_double *y, lv_double *f)
{
    lv_double s, c;
    lv_sincos(t, &s, &c);
    f[0] = y[1];
    f[1] = y[0] - y[0] * y[0] * y[0] + -(b->par[P_C] * y[1]) + b->par[P_F] * c;
}

static void duffing_jacobian(is_hybrid_lanes *b, lv_double t, const lv_double *y,
                             lv_double (*J)[IS_HYBRID_MAX_DIM])
{
    (void)t;
    J[0][1] = lv_splat(1.0);
    J[1][0] = 1.0 - 3.0 * y[0] * y[0];
    J[1][1] = -b->par[P_C];
}

static const is_hybrid_lyapunov duffing_ly = {.vectors = 2, .jacobian = duffing_jacobian};
static const is_hybrid_system duffing_sys = {
    .dimension = 2, .events = 1, .direction = {-1}, .kind = {IS_HYBRID_LAND},
    .field = duffing_field, .event_values = no_events, .on_event = no_reset,
    .start = ly_start, .finish = ly_finish, .lyapunov = &duffing_ly};

static void test_duffing(void)
{
    static const double par[] = {0, 0.25, 0.3, 0, 0, 0.25, 0.4, 0};
    enum { N = sizeof par / sizeof *par / 4 };
    is_hybrid_end ends[N];
    ly_batch w = {par, 4000.0, 2.0 * M_PI, 200.0, {0.5, 0.0}, 1e-14, 0.5, ends};
    ly_run(&duffing_sys, &w, N);
    for (int i = 0; i < N; i++) {
        double c = par[4 * i + P_C], l0 = ends[i].lyapunov[0], l1 = ends[i].lyapunov[1];
        printf("  Duffing c %.2f F %.2f: exponents %.6f %.6f, sum + c %.2g, spread %.2g\n", c,
               par[4 * i + P_F], l0, l1, l0 + l1 + c, ends[i].lyapunov_error);
        CHECK(ends[i].status == IS_HYBRID_HORIZON, "status %d", ends[i].status);
        CHECK(fabs(l0 + l1 + c) <= 1e-7, "sum %.12g, divergence %g", l0 + l1, -c);
        CHECK(l0 > 0.05 && l0 > 10.0 * ends[i].lyapunov_error, "chaotic: largest %g (spread %g)",
              l0, ends[i].lyapunov_error);
    }
}

/* --- the oscillator and the wall ------------------------------------------------------------ */

static void osc_field_c(const is_hybrid_lanes *b, lv_double t, const lv_double *y, lv_double *f)
{
    osc_field((is_hybrid_lanes *)b, t, y, f);
}

static void osc_jacobian(is_hybrid_lanes *b, lv_double t, const lv_double *y,
                         lv_double (*J)[IS_HYBRID_MAX_DIM])
{
    (void)b, (void)t, (void)y;
    J[0][1] = lv_splat(1.0);
    J[1][0] = lv_splat(-1.0);
}

static void osc_flow_jacobian(const is_hybrid_lanes *b, lv_double t0, const lv_double *y0,
                              lv_double dt, lv_double (*P)[IS_HYBRID_MAX_DIM])
{
    (void)b, (void)t0, (void)y0;
    lv_double s, c;
    lv_sincos(dt, &s, &c);
    P[0][0] = c, P[0][1] = s, P[1][0] = -s, P[1][1] = c;
}

/* the wall at x = 0: g = -x falls through 0 as the mass reaches it */
static void wall_events(const is_hybrid_lanes *b, lv_double t, const lv_double *y,
                        const lv_double *f, lv_double *g, lv_double *dg)
{
    (void)b, (void)t, (void)f;
    g[0] = -y[0];
    if (dg)
        dg[0] = -y[1];
}

static void wall_gradient(const is_hybrid_lanes *b, lv_double t, const lv_double *y,
                          lv_double (*n)[IS_HYBRID_MAX_DIM], lv_double *g_t)
{
    (void)b, (void)t, (void)y, (void)g_t;
    n[0][0] = lv_splat(-1.0);
}

static lv_mask wall_impact(is_hybrid_lanes *b, const lv_mask *fired, lv_double t, lv_double *y)
{
    (void)t;
    y[1] = lv_sel(fired[0], -b->par[P_R] * y[1], y[1]);
    return lv_mask_none();
}

static void wall_reset(const is_hybrid_lanes *b, const lv_mask *fired, lv_double t,
                       const lv_double *y, lv_double (*R)[IS_HYBRID_MAX_DIM], lv_double *R_t)
{
    (void)t, (void)y, (void)R_t;
    R[1][1] = lv_sel(fired[0], -b->par[P_R], R[1][1]);
}

static const is_hybrid_lyapunov wall_field_ly = {
    .vectors = 2, .jacobian = osc_jacobian, .event_gradient = wall_gradient,
    .reset_jacobian = wall_reset};
static const is_hybrid_lyapunov wall_flow_ly = {
    .vectors = 2, .flow_jacobian = osc_flow_jacobian, .field = osc_field_c,
    .event_gradient = wall_gradient, .reset_jacobian = wall_reset};
/* (field mode without rates: the saltation's denominator n^T f- + g_t; flow mode with
 * them: the rate the model gives) */
static const is_hybrid_system wall_field_sys = {
    .dimension = 2, .events = 1, .direction = {-1}, .kind = {IS_HYBRID_RESET},
    .field = osc_field, .event_values = wall_events, .on_event = wall_impact,
    .start = ly_start, .finish = ly_finish, .lyapunov = &wall_field_ly};
static const is_hybrid_system wall_flow_sys = {
    .dimension = 2, .events = 1, .direction = {-1}, .kind = {IS_HYBRID_RESET},
    .flow = osc_flow, .event_values = wall_events, .rates = 1, .on_event = wall_impact,
    .start = ly_start, .finish = ly_finish, .lyapunov = &wall_flow_ly};

static void test_wall(void)
{
    static const double par[] = {0, 0, 0, 0.8, 0, 0, 0, 0.9, 0, 0, 0, 0.95, 0, 0, 0, 1.0};
    enum { N = sizeof par / sizeof *par / 4 };
    for (int flow = 0; flow < 2; flow++) {
        is_hybrid_end ends[N];
        /* (the motion decays as r^k: atol far below its end, 0.8^100 = 2e-10) */
        ly_batch w = {par, 100.0 * M_PI, M_PI, 0.0, {-1.0, 0.0}, 1e-24, 0.5, ends};
        ly_run(flow ? &wall_flow_sys : &wall_field_sys, &w, N);
        for (int i = 0; i < N; i++) {
            double r = par[4 * i + P_R], exact = log(r) / M_PI;
            double l0 = ends[i].lyapunov[0], l1 = ends[i].lyapunov[1];
            printf("  wall r %.2f (%s): exponents %.12f %.12f, exact %.12f (off by %.2g), %lld "
                   "impacts\n", r, flow ? "flow" : "field", l0, l1, exact,
                   fmax(fabs(l0 - exact), fabs(l1 - exact)), (long long)ends[i].events);
            CHECK(ends[i].status == IS_HYBRID_HORIZON && ends[i].events == 100, "status %d, %lld",
                  ends[i].status, (long long)ends[i].events);
            CHECK(fabs(l0 - exact) <= 1e-6 * (1e-3 + fabs(exact)), "r %g: largest %.15g, exact %.15g",
                  r, l0, exact);
            CHECK(fabs(l1 - exact) <= 1e-6 * (1e-3 + fabs(exact)), "r %g: second %.15g, exact %.15g",
                  r, l1, exact);
        }
    }
}

/* --- two oscillators, two walls: events at one instant ------------------------------------ */

/* y = (x1, v1, x2, v2): two oscillators x'' = -x + c v_other (c = par[P_C]: 0, independent;
 * else a velocity coupling), each with its wall at x = 0 (g_i = -x_i) */
static void two_field(is_hybrid_lanes *b, lv_double t, const lv_double *y, lv_double *f)
{
    (void)t;
    f[0] = y[1];
    f[1] = -y[0] + b->par[P_C] * y[3];
    f[2] = y[3];
    f[3] = -y[2] + b->par[P_C] * y[1];
}

static void two_jacobian(is_hybrid_lanes *b, lv_double t, const lv_double *y,
                         lv_double (*J)[IS_HYBRID_MAX_DIM])
{
    (void)t, (void)y;
    J[0][1] = J[2][3] = lv_splat(1.0);
    J[1][0] = J[3][2] = lv_splat(-1.0);
    J[1][3] = J[3][1] = b->par[P_C];
}

static void two_events(const is_hybrid_lanes *b, lv_double t, const lv_double *y,
                       const lv_double *f, lv_double *g, lv_double *dg)
{
    (void)b, (void)t, (void)f;
    g[0] = -y[0], g[1] = -y[2];
    if (dg)
        dg[0] = -y[1], dg[1] = -y[3];
}

static void two_gradient(const is_hybrid_lanes *b, lv_double t, const lv_double *y,
                         lv_double (*n)[IS_HYBRID_MAX_DIM], lv_double *g_t)
{
    (void)b, (void)t, (void)y, (void)g_t;
    n[0][0] = n[1][2] = lv_splat(-1.0);
}

static lv_mask two_impact(is_hybrid_lanes *b, const lv_mask *fired, lv_double t, lv_double *y)
{
    (void)t;
    y[1] = lv_sel(fired[0], -b->par[P_R] * y[1], y[1]);
    y[3] = lv_sel(fired[1], -b->par[P_R] * y[3], y[3]);
    return lv_mask_none();
}

static void two_reset(const is_hybrid_lanes *b, const lv_mask *fired, lv_double t,
                      const lv_double *y, lv_double (*R)[IS_HYBRID_MAX_DIM], lv_double *R_t)
{
    (void)t, (void)y, (void)R_t;
    R[1][1] = lv_sel(fired[0], -b->par[P_R], R[1][1]);
    R[3][3] = lv_sel(fired[1], -b->par[P_R], R[3][3]);
}

typedef struct two_batch {
    const double *par; /* per point: c, r, the second mass's lag */
    double t_end;
    is_hybrid_end *ends;
} two_batch;

/* the first mass from (-1, 0), the second on the same motion `lag` later */
static int two_start(void *ctx, size_t i, is_hybrid_start *s)
{
    const two_batch *w = ctx;
    const double *p = w->par + 3 * i;
    s->t_end = w->t_end;
    s->y[0] = -1.0, s->y[1] = 0.0;
    s->y[2] = -cos(p[2]), s->y[3] = -sin(p[2]);
    s->par[P_C] = p[0], s->par[P_R] = p[1];
    s->rtol = 1e-11, s->atol = 1e-24, s->h_max = 0.5;
    s->zeno_tail = 1e-9; /* (watched: two walls' impacts ever closer are no Zeno) */
    s->lyapunov_interval = M_PI;
    return 1;
}

static void two_finish(void *ctx, size_t i, const is_hybrid_end *e)
{
    ((two_batch *)ctx)->ends[i] = *e;
}

static const is_hybrid_lyapunov two_ly = {
    .vectors = 4, .jacobian = two_jacobian, .event_gradient = two_gradient,
    .reset_jacobian = two_reset};
static const is_hybrid_system two_sys = {
    .dimension = 4, .events = 2, .direction = {-1, -1},
    .kind = {IS_HYBRID_RESET, IS_HYBRID_RESET}, .field = two_field, .event_values = two_events,
    .rates = 1, .on_event = two_impact, .start = two_start, .finish = two_finish,
    .lyapunov = &two_ly};

/* Independent oscillators (c = 0) started in phase hit their walls at the same instants:
 * every exponent is log(r) / pi, the second wall's saltation applied with the first's
 * (applying the first alone leaves the second mass's two at 0). A velocity coupling makes
 * the two orders of the impacts map tangents differently: undecided, with the reason. */
static void test_two_walls(void)
{
    static const double par[] = {0, 0.8, 0, 0, 0.5, 0, 0.2, 0.8, 0};
    enum { N = sizeof par / sizeof *par / 3 };
    is_hybrid_end ends[N];
    two_batch w = {par, 60.0 * M_PI, ends};
    CHECK(is_hybrid_run(&two_sys, &w, N, NULL, 0) == 0, "is_hybrid_run failed");
    for (int i = 0; i < N; i++) {
        double c = par[3 * i], r = par[3 * i + 1], exact = log(r) / M_PI;
        printf("  two walls c %.1f r %.1f: %s, %lld arrivals, exponents %.12f %.12f %.12f "
               "%.12f (exact %.12f)%s%s\n", c, r,
               ends[i].status == IS_HYBRID_HORIZON ? "horizon" : ends[i].reason,
               (long long)ends[i].events, ends[i].lyapunov[0], ends[i].lyapunov[1],
               ends[i].lyapunov[2], ends[i].lyapunov[3], exact,
               ends[i].lyapunov_reason[0] ? ": " : "", ends[i].lyapunov_reason);
        CHECK(ends[i].status == IS_HYBRID_HORIZON && (c != 0.0 || ends[i].events == 60),
              "status %d, %lld", ends[i].status, (long long)ends[i].events);
        for (int k = 0; k < 4; k++)
            if (c == 0.0)
                CHECK(fabs(ends[i].lyapunov[k] - exact) <= 1e-8, "c 0 r %g: exponent %d %.15g, "
                      "exact %.15g", r, k, ends[i].lyapunov[k], exact);
            else
                CHECK(isnan(ends[i].lyapunov[k]) && strstr(ends[i].lyapunov_reason, "corner"),
                      "c %g: exponent %d %g, not undecided (%s)", c, k, ends[i].lyapunov[k],
                      ends[i].lyapunov_reason);
    }
}

/* Independent oscillators whose impacts fall 1e-12 apart (the second mass lags by that):
 * two arrivals at rounding's distance are not events accumulating (Zeno), the run goes on
 * to its horizon with every impact, and the exponents are log(r) / pi (the saltations
 * taken one after the other). */
static void test_two_walls_apart(void)
{
    static const double par[] = {0, 0.8, 1e-12, 0, 0.9, 1e-13, 0, 0.8, 3e-11};
    enum { N = sizeof par / sizeof *par / 3 };
    is_hybrid_end ends[N];
    two_batch w = {par, 40.0 * M_PI, ends};
    CHECK(is_hybrid_run(&two_sys, &w, N, NULL, 0) == 0, "is_hybrid_run failed");
    for (int i = 0; i < N; i++) {
        double r = par[3 * i + 1], exact = log(r) / M_PI;
        printf("  two walls %g apart: %s, %lld arrivals, largest %.12f (exact %.12f)\n",
               par[3 * i + 2], ends[i].status == IS_HYBRID_HORIZON ? "horizon" : ends[i].reason,
               (long long)ends[i].events, ends[i].lyapunov[0], exact);
        CHECK(ends[i].status == IS_HYBRID_HORIZON && ends[i].events >= 40 &&
              ends[i].events <= 80, "lag %g: status %d (%s), %lld arrivals", par[3 * i + 2],
              ends[i].status, ends[i].reason, (long long)ends[i].events);
        for (int k = 0; k < 4; k++)
            CHECK(fabs(ends[i].lyapunov[k] - exact) <= 1e-6, "lag %g: exponent %d %.15g, "
                  "exact %.15g", par[3 * i + 2], k, ends[i].lyapunov[k], exact);
    }
}

void suite_lyapunov(void)
{
    CU_pSuite s = CU_add_suite("lyapunov", NULL, NULL);
    CU_add_test(s, "a damped oscillator: -z twice, their sum the trace (field and flow)",
                test_damped);
    CU_add_test(s, "a chaotic Duffing oscillator: the sum is the divergence, the largest > 0",
                test_duffing);
    CU_add_test(s, "an oscillator and a wall: log(r) / pi through the saltation matrices",
                test_wall);
    CU_add_test(s, "two walls hit at once: both saltations, or undecided at a corner",
                test_two_walls);
    CU_add_test(s, "two walls hit 1e-12 apart: no Zeno, every impact", test_two_walls_apart);
    CU_add_test(s, "motions merged in the transient: the attractor's exponents, -inf after it",
                test_merge);
}
