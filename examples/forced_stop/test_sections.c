/* test_sections.c: the forced-stop model's sections and Lyapunov exponent against
 * independent computations (plain checks, exit 1 on a failure).
 *
 * The stroboscopic map (the state at t = k T to the state one forcing period later) is
 * computed here on its own: the flight in closed form around the steady response
 * (x_p = X cos(omega t - theta), written from the amplitude and the phase lag, not the
 * model's two gains), the contacts found by scanning delta - x on a grid of T/4000 and
 * bisection to rounding, the impact law v -> -r v. Its Jacobian comes from central
 * differences of the map, and on a stable period-k orbit (k = 1, 2, 4) found by
 * iterating the map, the largest exponent of the flow is log(max |mu|) / (k T), mu the
 * eigenvalues of the k-fold map's Jacobian. The model, started on the orbit (exponent =
 * on, 6000 periods), must give it within 1e-3 relative; its stroboscopic section must
 * hold k values, period k (k = 4: the cascade of r = 0.5); with a chatter the exponent
 * is -inf (nearby motions merge on the stop), for a free motion -zeta, past the cascade
 * positive; a period-32 orbit of the cascade is found (max_period above the old bound of
 * 16). The contact section must be the contacts' arrival speeds in the model's own trace
 * (IS_HYBRID_PLUGIN's: the integrator's samples at the events), the last one at the
 * phase and speed of phase_impact and v_impact. */
#include <impactsweep/model.h>

#include <complex.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

extern const is_model forced_stop_model;
const is_model *impactsweep_model(void); /* the table with its trace (IS_HYBRID_PLUGIN) */

enum { OMEGA, ZETA, A, DELTA, R, X0, V0, PERIODS, MAX_PERIOD, MAX_IMPACTS, ZENO_TAIL,
       SECTION_N, SECTION_AT, EXPONENT, PARAMS };
enum { REGIME, PERIOD, IMPACTS_PER_PERIOD, IMPACTS, V_IMPACT, PHASE_IMPACT, V_IMPACT_MAX,
       CHECK, T_CHECK, SECTION_PERIOD, SECTION_VALUES, SECTION_SPREAD, LYAPUNOV,
       LYAPUNOV_ERROR, SECTION, OUTPUTS };
enum { LENGTH = 64, VALUES = OUTPUTS - 1 + LENGTH }; /* a point's: scalars, then `section` */
enum { REGIME_FREE, REGIME_PERIODIC, REGIME_CHATTER };

static int failures;

static void check(int ok, const char *what, double got, double expected)
{
    if (!ok) {
        printf("FAILED: %s: got %.17g, expected %.17g\n", what, got, expected);
        failures++;
    }
}

/* --- the stroboscopic map, on its own --------------------------------------------- */

typedef struct sys {
    double omega, zeta, A, delta, r, X, theta, wd;
} sys;

static sys make_sys(double omega, double zeta, double A, double delta, double r)
{
    sys s = {omega, zeta, A, delta, r, 0, 0, sqrt(1.0 - zeta * zeta)};
    s.X = A / hypot(1.0 - omega * omega, 2.0 * zeta * omega);
    s.theta = atan2(2.0 * zeta * omega, 1.0 - omega * omega);
    return s;
}

/* the flight from (t0, x0, v0) to t0 + s */
static void flight(const sys *q, double t0, double x0, double v0, double s, double *x, double *v)
{
    double xp0 = q->X * cos(q->omega * t0 - q->theta), vp0 = -q->omega * q->X * sin(q->omega * t0 - q->theta);
    double t = t0 + s, xp = q->X * cos(q->omega * t - q->theta);
    double vp = -q->omega * q->X * sin(q->omega * t - q->theta);
    double h = x0 - xp0, b = (v0 - vp0 + q->zeta * h) / q->wd, e = exp(-q->zeta * s);
    double c = cos(q->wd * s), sn = sin(q->wd * s);
    *x = xp + e * (h * c + b * sn);
    *v = vp + e * (q->wd * (b * c - h * sn) - q->zeta * (h * c + b * sn));
}

/* The state one forcing period after (t0, x, v), in flight (x < delta). */
static void strobe_map(const sys *q, double t0, double *x, double *v)
{
    const int grid = 4000;
    double T = 2.0 * M_PI / q->omega, t = t0, end = t0 + T, h = T / grid;
    while (t < end) {
        double s = fmin(h, end - t), x1, v1;
        flight(q, t, *x, *v, s, &x1, &v1);
        if (x1 < q->delta) {
            *x = x1, *v = v1, t += s;
            continue;
        }
        double lo = 0.0, hi = s; /* a contact in (t, t + s]: bisection to rounding */
        for (int k = 0; k < 200 && lo < hi; k++) {
            double mid = 0.5 * (lo + hi), xm, vm;
            if (mid == lo || mid == hi)
                break;
            flight(q, t, *x, *v, mid, &xm, &vm);
            if (xm < q->delta)
                lo = mid;
            else
                hi = mid;
        }
        flight(q, t, *x, *v, hi, &x1, &v1);
        *x = q->delta, *v = -q->r * v1, t += hi;
    }
}

static void strobe_map_k(const sys *q, int k, double *x, double *v)
{
    for (int j = 0; j < k; j++)
        strobe_map(q, 0.0, x, v); /* (T-periodic: every period starts at phase 0) */
}

/* log(max |mu|) / (k T) of the k-fold map's Jacobian at (x, v), by central differences */
static double map_exponent(const sys *q, int k, double x, double v)
{
    double J[2][2], scale = fabs(q->delta) + q->X, h = 1e-6 * scale;
    for (int c = 0; c < 2; c++) {
        double xp = x + (c ? 0 : h), vp = v + (c ? h : 0), xm = x - (c ? 0 : h), vm = v - (c ? h : 0);
        strobe_map_k(q, k, &xp, &vp);
        strobe_map_k(q, k, &xm, &vm);
        J[0][c] = (xp - xm) / (2 * h), J[1][c] = (vp - vm) / (2 * h);
    }
    double tr = J[0][0] + J[1][1], det = J[0][0] * J[1][1] - J[0][1] * J[1][0];
    double complex root = csqrt(tr * tr - 4.0 * det + 0.0 * I);
    double mu = fmax(cabs(0.5 * (tr + root)), cabs(0.5 * (tr - root)));
    return log(mu) / (k * 2.0 * M_PI / q->omega);
}

/* --- the model ---------------------------------------------------------------------- */

static void point(double *p, double omega, double zeta, double delta, double r, double x0,
                  double v0, double periods)
{
    for (int i = 0; i < PARAMS; i++)
        p[i] = forced_stop_model.params[i].default_value;
    p[OMEGA] = omega, p[ZETA] = zeta, p[DELTA] = delta, p[R] = r, p[X0] = x0, p[V0] = v0;
    p[PERIODS] = periods, p[EXPONENT] = 1;
}

/* The exponent on stable period-k orbits: (omega, zeta, delta, r, k). */
static void test_orbits(void)
{
    static const double cases[][5] = {
        {2.5, 0.0, 0.0, 0.8, 1}, {2.0, 0.05, 0.1, 0.6, 1}, {1.8, 0.0, 0.2, 0.5, 1},
        {3.0, 0.02, -0.1, 0.7, 2}, {4.0, 0.0, 0.0, 0.5, 2}, {3.6, 0.01, 0.0, 0.4, 2}, {2.8, 0.0, 0.0, 0.5, 4}};
    enum { N = sizeof cases / sizeof cases[0] };
    double points[N * PARAMS], out[N * VALUES], expected[N], worst = 0.0;
    uint8_t status[N];
    for (int n = 0; n < N; n++) {
        const double *c = cases[n];
        sys q = make_sys(c[0], c[1], 1.0, c[2], c[3]);
        double x = c[2] - 0.3, v = 0.0, x1, v1;
        for (int j = 0; j < 3000; j++) /* onto the attractor */
            strobe_map(&q, 0.0, &x, &v);
        x1 = x, v1 = v;
        strobe_map_k(&q, (int)c[4], &x1, &v1);
        check(fabs(x1 - x) + fabs(v1 - v) < 1e-9, "the map's orbit has its period", x1, x);
        expected[n] = map_exponent(&q, (int)c[4], x, v);
        point(points + n * PARAMS, c[0], c[1], c[2], c[3], x, v, 6000);
    }
    is_error err;
    void *ws = NULL;
    if (forced_stop_model.workspace_create(&ws, &err) != IS_OK ||
        forced_stop_model.eval_batch(ws, points, N, out, status, &err) != IS_OK) {
        printf("FAILED: eval_batch: %s\n", err.message);
        failures++;
        return;
    }
    forced_stop_model.workspace_free(ws);
    for (int n = 0; n < N; n++) {
        double got = out[LYAPUNOV * N + n], rel = fabs(got - expected[n]) / fabs(expected[n]);
        int k = (int)cases[n][4];
        printf("omega %.2f zeta %.2f delta %.2f r %.2f (period %d): lyapunov %.9f, map %.9f "
               "(relative %.2g), spread %.2g, section values %g\n", cases[n][0], cases[n][1],
               cases[n][2], cases[n][3], k, got, expected[n], rel, out[LYAPUNOV_ERROR * N + n],
               out[SECTION_VALUES * N + n]);
        worst = fmax(worst, rel);
        check(status[n] == IS_POINT_DONE, "status", status[n], IS_POINT_DONE);
        check(out[PERIOD * N + n] == k && out[REGIME * N + n] == REGIME_PERIODIC,
              "the model stays on the orbit", out[PERIOD * N + n], k);
        check(rel <= 1e-3, "lyapunov against the map's multipliers", got, expected[n]);
        check(out[SECTION_VALUES * N + n] == k && out[SECTION_PERIOD * N + n] == k &&
                  (out[SECTION_SPREAD * N + n] > 1e-3) == (k > 1),
              "the stroboscopic section of a period-k orbit has k values",
              out[SECTION_VALUES * N + n], k);
        int finite = 0;
        for (int j = 0; j < LENGTH; j++)
            finite += isfinite(out[SECTION * N + n * LENGTH + j]);
        check(finite == LENGTH, "the array section full", finite, LENGTH);
    }
    printf("%d orbits: lyapunov within %.2g (relative) of the stroboscopic map's\n", N, worst);
}

/* A chatter (sticking every period): -inf; a free motion: -zeta; past the cascade of
 * r = 0.5 (omega 2.85): chaos, a positive exponent well above its spread, every one of
 * the 64 section samples distinct, no period. */
static void test_merging_free_chaos(void)
{
    double p[3 * PARAMS], out[3 * VALUES];
    uint8_t status[3];
    is_error err;
    void *ws = NULL;
    point(p, 0.5, 0.0, 0.0, 0.5, -0.5, 0.0, 400);
    point(p + PARAMS, 3.0, 0.2, 0.5, 0.8, -2.0, 0.0, 200);
    point(p + 2 * PARAMS, 2.85, 0.0, 0.0, 0.5, -0.5, 0.0, 2000);
    forced_stop_model.workspace_create(&ws, &err);
    forced_stop_model.eval_batch(ws, p, 3, out, status, &err);
    forced_stop_model.workspace_free(ws);
    check(out[REGIME * 3] == REGIME_CHATTER && isinf(out[LYAPUNOV * 3]) &&
              out[LYAPUNOV * 3] < 0, "a chatter's exponent is -inf", out[LYAPUNOV * 3], -INFINITY);
    check(out[REGIME * 3 + 1] == REGIME_FREE && out[LYAPUNOV * 3 + 1] == -0.2,
          "a free motion's exponent is -zeta", out[LYAPUNOV * 3 + 1], -0.2);
    double ly = out[LYAPUNOV * 3 + 2], spread = out[LYAPUNOV_ERROR * 3 + 2];
    printf("omega 2.85 r 0.5 (chaotic): lyapunov %.6f, spread %.2g, section values %g\n", ly,
           spread, out[SECTION_VALUES * 3 + 2]);
    check(ly > 0.0 && ly > 4.0 * spread && out[SECTION_VALUES * 3 + 2] == 64 &&
              isnan(out[SECTION_PERIOD * 3 + 2]), "chaos: a positive exponent", ly, spread);
}

/* Deep in the cascade of r = 0.5 (omega 2.8215) the orbit has period 32: found with
 * max_period = 64 (beyond the integrator's ring of 32 sections: the strobe recorder's),
 * by the section too (32 values); with max_period = 16 there is none. */
static void test_long_period(void)
{
    double p[2 * PARAMS], out[2 * VALUES];
    uint8_t status[2];
    is_error err;
    void *ws = NULL;
    for (int k = 0; k < 2; k++) {
        point(p + k * PARAMS, 2.8215, 0.0, 0.0, 0.5, -0.5, 0.0, 4000);
        p[k * PARAMS + EXPONENT] = 0, p[k * PARAMS + SECTION_N] = 256;
        p[k * PARAMS + MAX_PERIOD] = k ? 16 : 64;
    }
    forced_stop_model.workspace_create(&ws, &err);
    forced_stop_model.eval_batch(ws, p, 2, out, status, &err);
    forced_stop_model.workspace_free(ws);
    printf("omega 2.8215 r 0.5: period %g (max_period 64), %g (16); section period %g, "
           "%g values\n", out[PERIOD * 2], out[PERIOD * 2 + 1], out[SECTION_PERIOD * 2],
           out[SECTION_VALUES * 2]);
    check(out[PERIOD * 2] == 32 && out[SECTION_PERIOD * 2] == 32 && out[SECTION_VALUES * 2] == 32,
          "a period-32 orbit", out[PERIOD * 2], 32);
    check(isnan(out[PERIOD * 2 + 1]) && out[REGIME * 2 + 1] == 3, "no period up to 16",
          out[PERIOD * 2 + 1], NAN);
}

/* --- the contact section against the trace ------------------------------------------ */

typedef struct contacts {
    int n;
    double t[100000], v[100000];
} contacts;

static is_code on_sample(void *ctx, double t, const double *values)
{
    (void)ctx, (void)t, (void)values;
    return IS_OK;
}

static is_code on_event(void *ctx, double t, int kind, const double *values)
{
    contacts *c = ctx;
    if (kind == 0 && c->n < 100000)
        c->t[c->n] = t, c->v[c->n++] = values[1];
    return IS_OK;
}

static void test_contact_section(void)
{
    static contacts c;
    /* period 2, one contact a period; a chatter (20 contacts a period); a chaotic one */
    static const double cases[][4] = {{4.0, 0.0, 0.5, 0}, {0.5, 0.0, 0.5, 0}, {2.85, 0.0, 0.5, 0}};
    const is_model *m = impactsweep_model();
    for (int n = 0; n < 3; n++) {
        double p[PARAMS], out[VALUES];
        uint8_t status;
        is_error err;
        void *ws = NULL;
        point(p, cases[n][0], cases[n][1], 0.0, cases[n][2], -0.5, 0.0, 300);
        p[SECTION_AT] = 1, p[EXPONENT] = 0;
        c.n = 0;
        is_trace_sink sink = {on_sample, on_event, &c};
        m->workspace_create(&ws, &err);
        is_code rc = m->trace->run(ws, p, NULL, &sink, out, &status, &err);
        m->workspace_free(ws);
        check(rc == IS_OK && status == IS_POINT_DONE && c.n > LENGTH, "the trace", c.n, LENGTH);
        if (c.n <= LENGTH)
            continue;
        int same = 0;
        for (int j = 0; j < LENGTH; j++)
            same += memcmp(&out[SECTION + j], &c.v[c.n - LENGTH + j], sizeof(double)) == 0;
        check(same == LENGTH, "the contact section is the trace's contacts' speeds", same, LENGTH);
        double phase = fmod(p[OMEGA] * c.t[c.n - 1], 2.0 * M_PI);
        check(fabs(phase - out[PHASE_IMPACT]) <= 1e-12 * (1.0 + p[OMEGA] * c.t[c.n - 1]) &&
                  out[V_IMPACT] == c.v[c.n - 1] && out[SECTION + LENGTH - 1] == out[V_IMPACT],
              "the last contact's phase and speed", out[PHASE_IMPACT], phase);
        printf("omega %.2f r %.1f: %d contacts traced, the last %d the section's "
               "(period %g, %g values)\n", p[OMEGA], p[R], c.n, LENGTH, out[SECTION_PERIOD],
               out[SECTION_VALUES]);
    }
}

int main(void)
{
    if (forced_stop_model.param_count != PARAMS || forced_stop_model.output_count != OUTPUTS ||
        forced_stop_model.outputs[SECTION].length != LENGTH) {
        printf("FAILED: the test's tables are not the model's\n");
        return 1;
    }
    test_orbits();
    test_merging_free_chaos();
    test_long_period();
    test_contact_section();
    if (failures)
        printf("%d checks FAILED\n", failures);
    return failures != 0;
}
