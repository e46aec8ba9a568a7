/* test_forced_stop.c: the forced-stop model's physics against exact results, through its
 * table alone (eval_batch), with plain checks (no test framework needed): the period-1
 * orbit and its stability in closed form (below; started on it, the impacts come at its
 * phase and speed, which checks the flight, the contact times and the impact law), chatter
 * and sticking, the free-motion proof, and the table's behaviour (validation, pointwise
 * results, the stop flag). Exit status 0 when every check passes.
 *
 * The exact result: the period-1 orbit, one impact per forcing period, for zeta = 0.
 * Between impacts x = y + P cos(omega t), P = A / (1 - omega^2), y'' + y = 0. Let the
 * impacts be at phase phi = omega t0 (mod 2 pi) with arrival speed v > 0, leaving at -r v,
 * and the next one period T = 2 pi / omega later at the same phase and speed. The
 * homogeneous part starts at y0 = delta - P cos phi, y0' = -r v + P omega sin phi and,
 * the forcing being T-periodic, must come back to y(T) = y0, y'(T) = v + P omega sin phi.
 * y turns by the angle T in its phase plane:
 *     y(T) = y0 cos T + y0' sin T = y0        =>  y0' = y0 tan(T/2)
 *     y'(T) = y0' cos T - y0 sin T = -y0'     (substituting: reversibility),
 * so v + P omega sin phi = r v - P omega sin phi, i.e.
 *     v = -2 P omega sin(phi) / (1 - r),                                          (1)
 * and y0' = y0 tan(T/2) becomes, with (1),
 *     P (alpha sin phi + beta cos phi) = delta beta,
 *     alpha = omega (1 + r) / (1 - r),  beta = tan(pi / omega),
 * so sin(phi + psi) = delta beta / (P R), R = hypot(alpha, beta), psi = atan2(beta, alpha):
 * two phases, each an orbit if its v from (1) is > 0 and x < delta in between. For
 * delta = 0, sin(phi + psi) = 0 and exactly one of the two has v > 0:
 *     v = 2 |P| omega |beta| / sqrt(omega^2 (1 + r)^2 + (1 - r)^2 beta^2).        (2)
 * Stability: the stroboscopic map's Jacobian is similar to S Phi(T), Phi(T) the rotation
 * by T (the flow's), S the impact's saltation matrix R + (f+ - R f-) e1^T / v with
 * R = diag(1, -r), f- = (v, F), f+ = (-r v, F), F = A cos(phi) - delta the acceleration at
 * the stop: S = [[-r, 0], [(1 + r) F / v, -r]]. So det = r^2 and
 *     trace = -2 r cos T + (1 + r) F sin T / v,                                   (3)
 * and the orbit is stable when |trace| < 1 + r^2 (both eigenvalues inside the unit
 * circle). The simulation must find (1)-(2) to 1e-9 where (3) says stable, and must leave
 * the orbit where (3) says unstable: a wrong flow, contact time, impact law or phase
 * bookkeeping breaks one or the other. */
#include <impactsweep/model.h>

#include <float.h>
#include <math.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef M_PI /* strict C11 leaves it out */
#define M_PI 3.14159265358979323846
#endif

extern const is_model forced_stop_model;

typedef struct tally {
    int checks, failures;
} tally;

#define CHECK(t, cond, ...)                                                                  \
    do {                                                                                     \
        (t)->checks++;                                                                       \
        if (!(cond)) {                                                                       \
            (t)->failures++;                                                                 \
            fprintf(stderr, "%s:%d: FAIL (%s): ", __FILE__, __LINE__, #cond);                \
            fprintf(stderr, __VA_ARGS__);                                                    \
            fputc('\n', stderr);                                                             \
        }                                                                                    \
    } while (0)

enum { REGIME_FREE, REGIME_PERIODIC, REGIME_CHATTER, REGIME_UNDECIDED, REGIME_FAILED };

static void default_point(double *p)
{
    for (size_t i = 0; i < forced_stop_model.param_count; i++)
        p[i] = forced_stop_model.params[i].default_value;
}

static int param(const char *name)
{
    for (size_t i = 0; i < forced_stop_model.param_count; i++)
        if (strcmp(forced_stop_model.params[i].name, name) == 0)
            return (int)i;
    return -1;
}

static int output(const char *name)
{
    for (size_t i = 0; i < forced_stop_model.output_count; i++)
        if (strcmp(forced_stop_model.outputs[i].name, name) == 0)
            return (int)i;
    return -1;
}

/* One run's outputs and status. */
typedef struct run {
    double out[256]; /* (a point's values: the scalars and the array section) */
    uint8_t status;
    int regime, period, impacts_per_period;
    double impacts, v, phase;
} run;

static run simulate(double omega, double zeta, double A, double delta, double r, double x0,
                    double v0, double periods)
{
    double p[16];
    default_point(p);
    p[param("omega")] = omega, p[param("zeta")] = zeta, p[param("A")] = A;
    p[param("delta")] = delta, p[param("r")] = r, p[param("x0")] = x0, p[param("v0")] = v0;
    p[param("periods")] = periods;
    run rn;
    is_error err;
    void *ws = NULL;
    forced_stop_model.workspace_create(&ws, &err);
    forced_stop_model.eval_batch(ws, p, 1, rn.out, &rn.status, &err);
    forced_stop_model.workspace_free(ws);
    double period = rn.out[output("period")], per = rn.out[output("impacts_per_period")];
    rn.regime = (int)rn.out[output("regime")];
    rn.period = isnan(period) ? 0 : (int)period;
    rn.impacts_per_period = isnan(per) ? -1 : (int)per;
    rn.impacts = rn.out[output("impacts")];
    rn.v = rn.out[output("v_impact")];
    rn.phase = rn.out[output("phase_impact")];
    return rn;
}

/* --- the period-1 orbit in closed form (see the top of the file) ------------------- */

typedef struct orbit {
    double phi, v, trace;
    int admissible, stable;
} orbit;

static int period1_orbits(double omega, double r, double A, double delta, orbit out[2])
{
    double P = A / (1.0 - omega * omega), T = 2.0 * M_PI / omega, beta = tan(M_PI / omega);
    double alpha = omega * (1.0 + r) / (1.0 - r), R = hypot(alpha, beta);
    double psi = atan2(beta, alpha), q = delta * beta / (P * R);
    if (fabs(q) > 1.0)
        return 0;
    double phases[2] = {-psi + asin(q), M_PI - psi - asin(q)};
    int n = 0;
    for (int k = 0; k < 2; k++) {
        double phi = fmod(phases[k], 2.0 * M_PI);
        if (phi < 0.0)
            phi += 2.0 * M_PI;
        double v = -2.0 * P * omega * sin(phi) / (1.0 - r);
        if (!(v > 0.0))
            continue;
        orbit *o = &out[n++];
        o->phi = phi;
        o->v = v;
        /* x < delta between the impacts, on a fine grid */
        double y0 = delta - P * cos(phi), dy0 = -r * v + P * omega * sin(phi);
        o->admissible = 1;
        for (int j = 1; j < 20000 && o->admissible; j++) {
            double s = T * j / 20000.0;
            o->admissible = y0 * cos(s) + dy0 * sin(s) + P * cos(phi + omega * s) < delta;
        }
        double F = A * cos(phi) - delta;
        o->trace = -2.0 * r * cos(T) + (1.0 + r) * F * sin(T) / v;
        o->stable = fabs(o->trace) < 1.0 + r * r;
    }
    return n;
}

/* The state at phase 0 of the orbit: one flight (zeta = 0) from its impact at phi. */
static void orbit_start(double omega, double r, double A, double delta, const orbit *o,
                        double *x0, double *v0)
{
    double P = A / (1.0 - omega * omega), s = (2.0 * M_PI - o->phi) / omega;
    double y0 = delta - P * cos(o->phi), dy0 = -r * o->v + P * omega * sin(o->phi);
    *x0 = y0 * cos(s) + dy0 * sin(s) + P;
    *v0 = -y0 * sin(s) + dy0 * cos(s);
}

static void test_period1_orbit(tally *t)
{
    /* delta = 0: formula (2) directly, on a grid where the orbit is stable */
    int compared = 0, unstable_left = 0, stable_found = 0;
    for (int i = 0; i <= 20; i++) {
        for (int j = 0; j <= 10; j++) {
            double omega = 1.5 + 3.5 * i / 20.0, r = 0.3 + 0.65 * j / 10.0;
            double beta = tan(M_PI / omega), P = 1.0 / (1.0 - omega * omega);
            double v2 = 2.0 * fabs(P) * omega * fabs(beta) /
                        sqrt(omega * omega * (1.0 + r) * (1.0 + r) +
                             (1.0 - r) * (1.0 - r) * beta * beta);
            orbit o[2];
            int n = period1_orbits(omega, r, 1.0, 0.0, o);
            CHECK(t, n == 1 && fabs(o[0].v - v2) <= 1e-12 * v2,
                  "omega %g r %g: (1) and (2) disagree (%d orbits)", omega, r, n);
            if (n != 1 || !o[0].admissible)
                continue;
            /* started on the orbit, the simulation meets the stop at its phase and speed
             * (one period: beyond, an unstable orbit multiplies the rounding by about
             * |trace| a period) */
            double x0, v0;
            orbit_start(omega, r, 1.0, 0.0, &o[0], &x0, &v0);
            run res = simulate(omega, 0.0, 1.0, 0.0, r, x0, v0, 1);
            compared++;
            CHECK(t, res.status == IS_POINT_DONE && res.impacts == 1 &&
                         fabs(res.v - v2) <= 1e-10 * v2 && fabs(res.phase - o[0].phi) <= 1e-10,
                  "omega %g r %g: on the orbit, %g impacts, v %.17g (exact %.17g), phase "
                  "%.17g (exact %.17g)",
                  omega, r, res.impacts, res.v, v2, res.phase, o[0].phi);
            /* perturbed by 1e-7, for 3000 periods: back to the orbit iff (3) says stable */
            res = simulate(omega, 0.0, 1.0, 0.0, r, x0 - 1e-7, v0, 3000);
            int on = res.regime == REGIME_PERIODIC && res.period == 1 &&
                     res.impacts_per_period == 1 && fabs(res.v - v2) <= 1e-9 * v2;
            if (fabs(fabs(o[0].trace) - (1.0 + r * r)) < 0.05)
                continue; /* too near the stability boundary to converge or leave */
            if (o[0].stable) {
                stable_found += on;
                CHECK(t, on, "omega %g r %g: stable (trace %g) but the run ends %d, period %d, "
                      "v %.17g (exact %.17g)", omega, r, o[0].trace, res.regime, res.period,
                      res.v, v2);
            } else {
                unstable_left += !on;
                CHECK(t, !on, "omega %g r %g: unstable (trace %g) but the run stays on it",
                      omega, r, o[0].trace);
            }
        }
    }
    CHECK(t, compared > 100 && stable_found > 30 && unstable_left > 10,
          "too few cases: %d on the orbit, %d stable found, %d unstable left", compared,
          stable_found, unstable_left);
    printf("period-1 orbit: %d started on it, %d stable ones reached again, %d unstable "
           "ones left\n",
           compared, stable_found, unstable_left);

    /* delta != 0: both phases of (1), from a generic start where one is the attractor */
    const double cases[][3] = {
        {1.5, 0.7, 0.3}, {2.5, 0.8, -0.2}, {2.2, 0.6, 0.1}, {3.0, 0.6, -0.3}, {1.8, 0.5, 0.2}};
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        double omega = cases[c][0], r = cases[c][1], delta = cases[c][2];
        orbit o[2];
        int n = period1_orbits(omega, r, 1.0, delta, o), stable = -1;
        for (int k = 0; k < n; k++)
            if (o[k].admissible && o[k].stable)
                stable = k;
        CHECK(t, stable >= 0, "case %zu: no stable admissible orbit", c);
        if (stable < 0)
            continue;
        double x0, v0;
        orbit_start(omega, r, 1.0, delta, &o[stable], &x0, &v0);
        run res = simulate(omega, 0.0, 1.0, delta, r, x0 - 0.05, v0 + 0.05, 3000);
        CHECK(t, res.regime == REGIME_PERIODIC && res.period == 1 && res.impacts_per_period == 1 &&
                     fabs(res.v - o[stable].v) <= 1e-9 * o[stable].v &&
                     fabs(res.phase - o[stable].phi) <= 1e-9,
              "case %zu: regime %d period %d, v %.17g phase %.17g; exact v %.17g phase %.17g",
              c, res.regime, res.period, res.v, res.phase, o[stable].v, o[stable].phi);
    }
}

/* --- chatter, sticking, free motion ----------------------------------------------- */

static void test_chatter_and_sticking(tally *t)
{
    /* a pre-loaded stop beyond the force's reach (delta <= -A): once there, held for ever */
    run res = simulate(2.0, 0.1, 1.0, -1.5, 0.6, -3.0, 0.0, 200);
    CHECK(t, res.status == IS_POINT_DONE && res.regime == REGIME_CHATTER && res.period == 1 &&
                 res.impacts_per_period == 0,
          "held for ever: regime %d period %d impacts/period %d", res.regime, res.period,
          res.impacts_per_period);
    /* plastic impacts (r = 0) with the force pushing in: every impact ends at rest */
    res = simulate(0.3, 0.05, 1.0, 0.2, 0.0, -1.0, 0.0, 200);
    CHECK(t, res.status == IS_POINT_DONE && res.regime == REGIME_CHATTER && res.impacts > 0,
          "plastic: regime %d impacts %g", res.regime, res.impacts);
    /* slow forcing: a chatter, sticking, a release at acos(delta / A) in every period */
    res = simulate(0.2, 0.1, 1.0, 0.2, 0.7, 0.0, 0.0, 200);
    CHECK(t, res.status == IS_POINT_DONE && res.regime == REGIME_CHATTER && res.period >= 1,
          "slow forcing: regime %d period %d", res.regime, res.period);
    /* with damping and the steady response clear of the stop, the motion ends free */
    res = simulate(3.0, 0.2, 1.0, 0.5, 0.8, -2.0, 0.0, 200);
    CHECK(t, res.status == IS_POINT_DONE && res.regime == REGIME_FREE && res.impacts > 0,
          "free: regime %d impacts %g", res.regime, res.impacts);
}

/* --- the table: validation, pointwise results, the stop flag ----------------------- */

static void test_table(tally *t)
{
    const is_model *m = &forced_stop_model;
    enum { NP = 16, NO = 256 }; /* NO: a point's values, the arrays' included */
    size_t values = 0;
    for (size_t o = 0; o < m->output_count; o++)
        values += m->outputs[o].length > 1 ? m->outputs[o].length : 1;
    CHECK(t, m->param_count <= NP && values <= NO, "table too large for the test");
    double p[3 * NP];
    is_error err;
    default_point(p);
    CHECK(t, m->validate(p, &err) == IS_OK, "the defaults are refused: %s", err.message);
    p[param("x0")] = 0.5; /* beyond the stop at delta = 0 */
    CHECK(t, m->validate(p, &err) == IS_PARAM && strstr(err.message, "x0 = 0.5") &&
                 strstr(err.message, "delta"),
          "x0 beyond the stop: %s", err.message);
    default_point(p);
    p[param("omega")] = 1.0002; /* zeta = 0: the response is 2500 A */
    CHECK(t, m->validate(p, &err) == IS_PARAM && strstr(err.message, "resonance"),
          "near resonance: %s", err.message);
    p[param("zeta")] = 0.01;
    CHECK(t, m->validate(p, &err) == IS_OK, "damped near resonance refused: %s", err.message);

    /* a point's outputs do not depend on its neighbours in the batch */
    void *ws = NULL;
    CHECK(t, m->workspace_create(&ws, &err) == IS_OK, "workspace: %s", err.message);
    size_t np = m->param_count, no = m->output_count;
    default_point(p);
    default_point(p + np);
    p[np + (size_t)param("omega")] = 3.3;
    p[np + (size_t)param("r")] = 0.6;
    memcpy(p + 2 * np, p, np * sizeof *p);
    double together[3 * NO], alone[NO];
    uint8_t status[3], single[1];
    CHECK(t, m->eval_batch(ws, p, 3, together, status, &err) == IS_OK, "batch: %s",
          err.message);
    CHECK(t, m->eval_batch(ws, p + np, 1, alone, single, &err) == IS_OK, "single: %s",
          err.message);
    CHECK(t, status[0] == IS_POINT_DONE && status[1] == IS_POINT_DONE && single[0] == status[1],
          "statuses %d %d %d", status[0], status[1], single[0]);
    for (size_t o = 0, S = 0; o < no; o++) { /* output o's values start at S * count */
        size_t L = m->outputs[o].length > 1 ? m->outputs[o].length : 1;
        CHECK(t, memcmp(&together[S * 3], &together[S * 3 + 2 * L], L * sizeof(double)) == 0,
              "output %s differs between two copies of a point", m->outputs[o].name);
        CHECK(t, memcmp(&together[S * 3 + L], &alone[S], L * sizeof(double)) == 0,
              "output %s differs alone and in a batch", m->outputs[o].name);
        S += L;
    }
    /* the stop flag leaves every unfinished point pending */
    volatile sig_atomic_t stop = 1;
    m->workspace_watch(ws, &stop);
    CHECK(t, m->eval_batch(ws, p, 3, together, status, &err) == IS_OK, "stopped batch");
    CHECK(t, status[0] == IS_POINT_PENDING && status[2] == IS_POINT_PENDING,
          "stopped: statuses %d %d", status[0], status[2]);
    m->workspace_free(ws);
}

int main(void)
{
    tally t = {0, 0};
    test_period1_orbit(&t);
    test_chatter_and_sticking(&t);
    test_table(&t);
    printf("%d checks, %d failed\n", t.checks, t.failures);
    return t.failures == 0 ? 0 : 1;
}
