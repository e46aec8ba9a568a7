/* test_forced_stop.c: the forced-stop model's physics against exact results, with plain
 * checks (no test framework needed): the closed-form flight against a fine Runge-Kutta
 * integration, the contact search against dense scans (it never steps over a contact),
 * the period-1 orbit and its stability in closed form (below), chatter and sticking, the
 * free-motion proof, and the table's behaviour (validation, pointwise results, the stop
 * flag). Exit status 0 when every check passes.
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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "forced_stop.h"

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

/* A small deterministic generator (64-bit LCG, top 53 bits): uniform on [0, 1). */
static double uniform(uint64_t *state)
{
    *state = *state * 6364136223846793005ULL + 1442695040888963407ULL;
    return (double)(*state >> 11) / 9007199254740992.0;
}

static fs_options options(int64_t periods)
{
    return (fs_options){.periods = periods, .max_period = 16, .max_impacts = 10000000,
                        .zeno_tail = 1e-6, .stop = NULL};
}

/* --- the flight against classical RK4 on x'' = -x - 2 zeta x' + A cos(phase0 + omega s) */

static void rhs(const fs_system *sys, double phase0, double s, const double y[2], double dy[2])
{
    dy[0] = y[1];
    dy[1] = -y[0] - 2.0 * sys->zeta * y[1] + sys->A * cos(phase0 + sys->omega * s);
}

static void test_flight_against_rk4(tally *t)
{
    const double cases[][7] = {/* omega, zeta, A, delta, x, v, phase */
                               {2.0, 0.0, 1.0, 0.0, -0.3, 0.7, 1.1},
                               {0.37, 0.05, 2.0, 0.5, -1.0, -2.0, 4.0},
                               {5.5, 0.6, 0.3, 0.1, 0.0, 3.0, 0.2},
                               {1.3, 0.99, 1.0, 0.0, -2.0, 0.0, 6.0},
                               {0.02, 0.1, 1.0, 2.0, 1.0, 0.5, 3.0}};
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        const double *k = cases[c];
        fs_system sys;
        fs_system_init(&sys, k[0], k[1], k[2], k[3], 0.5);
        fs_flight f;
        fs_flight_start(&sys, k[4], k[5], k[6], &f);
        double y[2] = {k[4], k[5]}, s = 0.0, end = fmin(3.0 * sys.T, 40.0);
        const int steps = 400000;
        const double h = end / steps;
        double worst = 0.0;
        for (int i = 1; i <= steps; i++) {
            double k1[2], k2[2], k3[2], k4[2], tmp[2];
            rhs(&sys, k[6], s, y, k1);
            for (int j = 0; j < 2; j++)
                tmp[j] = y[j] + 0.5 * h * k1[j];
            rhs(&sys, k[6], s + 0.5 * h, tmp, k2);
            for (int j = 0; j < 2; j++)
                tmp[j] = y[j] + 0.5 * h * k2[j];
            rhs(&sys, k[6], s + 0.5 * h, tmp, k3);
            for (int j = 0; j < 2; j++)
                tmp[j] = y[j] + h * k3[j];
            rhs(&sys, k[6], s + h, tmp, k4);
            for (int j = 0; j < 2; j++)
                y[j] += h / 6.0 * (k1[j] + 2.0 * k2[j] + 2.0 * k3[j] + k4[j]);
            s = i * h;
            if (i % 1000 == 0) {
                double x, v, acc;
                fs_flight_at(&sys, &f, s, &x, &v, &acc);
                worst = fmax(worst, fmax(fabs(x - y[0]), fabs(v - y[1])));
                /* the acceleration is the equation's */
                double want = -x - 2.0 * sys.zeta * v + sys.A * cos(k[6] + sys.omega * s);
                CHECK(t, fabs(acc - want) <= 1e-12 * (1.0 + fabs(want)),
                      "case %zu: acceleration %.17g, the equation gives %.17g", c, acc, want);
            }
        }
        CHECK(t, worst <= 1e-9 * (1.0 + f.amp + sys.X),
              "case %zu: the closed form is %.3g from RK4 (amplitude %g)", c, worst, f.amp);
        /* the relative energy is constant without damping, never rises with it */
        double w0 = fs_relative_energy(&sys, k[4], k[5], k[6]), x, v, acc;
        fs_flight_at(&sys, &f, end, &x, &v, &acc);
        double w1 = fs_relative_energy(&sys, x, v, k[6] + sys.omega * end);
        if (sys.zeta == 0.0)
            CHECK(t, fabs(w1 - w0) <= 1e-13 * (1.0 + w0), "case %zu: W %.17g -> %.17g", c, w0, w1);
        else
            CHECK(t, w1 <= w0 * (1.0 + 1e-13), "case %zu: W rose %.17g -> %.17g", c, w0, w1);
    }
}

/* --- the contact search against dense scans --------------------------------------- */

static void test_contact_search_never_steps_over(tally *t)
{
    uint64_t rng = 20260101;
    int contacts = 0, grazes = 0;
    for (int trial = 0; trial < 1500; trial++) {
        double omega = exp(log(0.1) + uniform(&rng) * log(100.0));
        double zeta = uniform(&rng) < 0.3 ? 0.0 : 0.5 * uniform(&rng);
        double delta = -0.5 + 2.0 * uniform(&rng);
        fs_system sys;
        fs_system_init(&sys, omega, zeta, 1.0, delta, 0.7);
        double phase = 2.0 * M_PI * uniform(&rng), x0, v0;
        if (trial % 3 == 0) { /* leaving the stop, as after an impact */
            x0 = delta;
            v0 = -uniform(&rng);
        } else {
            x0 = delta - 2.0 * uniform(&rng);
            v0 = -2.0 + 4.0 * uniform(&rng);
        }
        if (trial % 7 == 0) { /* a near graze: on the steady motion, the stop at its top */
            fs_system_init(&sys, omega, zeta, 1.0, sys.X * (1.0 + (trial % 2 ? 1e-9 : -1e-9)),
                           0.7);
            delta = sys.delta;
            fs_steady(&sys, phase, &x0, &v0);
            if (x0 > delta)
                fs_steady(&sys, phase += M_PI, &x0, &v0);
        }
        fs_flight f;
        fs_flight_start(&sys, x0, v0, phase, &f);
        double horizon = sys.T, hit = NAN, xh, vh;
        int64_t evaluations = 0;
        int found = fs_first_contact(&sys, &f, horizon, &hit, &xh, &vh, &evaluations);
        CHECK(t, found >= 0, "trial %d: the search did not end", trial);
        /* the dense scan: the first sample at or beyond the stop (after leaving it) */
        const int n = 200000;
        double first = INFINITY, dt = horizon / n, top = -INFINITY;
        int left = x0 < delta - f.reach;
        for (int i = 1; i <= n; i++) {
            double x, v, acc;
            fs_flight_at(&sys, &f, i * dt, &x, &v, &acc);
            left |= x < delta - f.reach;
            if (left)
                top = fmax(top, x + 0.125 * fabs(v) * dt); /* between samples too */
            if (left && x - delta > 1e-9 * (1.0 + f.amp)) {
                first = i * dt;
                break;
            }
        }
        if (isfinite(first)) {
            contacts++;
            CHECK(t, found == 1 && hit <= first + 1e-12,
                  "trial %d: the scan crosses the stop at %.17g, the search says %d at %.17g",
                  trial, first, found, hit);
        }
        /* and never a contact where the flight stays clear of the stop */
        if (left && top < delta - 1e3 * f.reach)
            CHECK(t, found == 0, "trial %d: a contact at %.17g, but x stays %.3g below the stop",
                  trial, hit, delta - top);
        if (found == 1) {
            grazes += !isfinite(first);
            CHECK(t, fabs(xh - delta) <= 2.0 * f.reach,
                  "trial %d: the contact at %.17g is %.3g from the stop", trial, hit, xh - delta);
        }
    }
    CHECK(t, contacts > 500, "only %d of the trials met the stop", contacts);
    printf("contact search: %d crossings found first, %d touches within rounding\n", contacts,
           grazes);
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

/* The state at phase 0 of the orbit (from its impact, one flight to the period's end). */
static void orbit_start(const fs_system *sys, const orbit *o, double *x0, double *v0)
{
    fs_flight f;
    fs_flight_start(sys, sys->delta, -sys->r * o->v, o->phi, &f);
    double acc;
    fs_flight_at(sys, &f, (2.0 * M_PI - o->phi) / sys->omega, x0, v0, &acc);
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
            fs_system sys;
            fs_system_init(&sys, omega, 0.0, 1.0, 0.0, r);
            /* started on the orbit, the simulation meets the stop at its phase and speed
             * (one period: beyond, an unstable orbit multiplies the rounding by about
             * |trace| a period) */
            double x0, v0;
            orbit_start(&sys, &o[0], &x0, &v0);
            fs_options opt = options(1);
            fs_result res;
            fs_simulate(&sys, x0, v0, &opt, &res);
            compared++;
            CHECK(t, res.check == FS_CHECK_NONE && res.impacts == 1 &&
                         fabs(res.v_last - v2) <= 1e-10 * v2 &&
                         fabs(res.phase_last - o[0].phi) <= 1e-10,
                  "omega %g r %g: on the orbit, %ld impacts, v %.17g (exact %.17g), phase "
                  "%.17g (exact %.17g)",
                  omega, r, (long)res.impacts, res.v_last, v2, res.phase_last, o[0].phi);
            /* perturbed by 1e-7, for 3000 periods: back to the orbit iff (3) says stable */
            opt = options(3000);
            fs_simulate(&sys, x0 - 1e-7, v0, &opt, &res);
            int on = res.regime == FS_REGIME_PERIODIC && res.period == 1 &&
                     res.impacts_per_period == 1 && fabs(res.v_last - v2) <= 1e-9 * v2;
            if (fabs(fabs(o[0].trace) - (1.0 + r * r)) < 0.05)
                continue; /* too near the stability boundary to converge or leave */
            if (o[0].stable) {
                stable_found += on;
                CHECK(t, on, "omega %g r %g: stable (trace %g) but the run ends %d, period %d, "
                      "v %.17g (exact %.17g)", omega, r, o[0].trace, res.regime, res.period,
                      res.v_last, v2);
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
        fs_system sys;
        fs_system_init(&sys, omega, 0.0, 1.0, delta, r);
        double x0, v0;
        orbit_start(&sys, &o[stable], &x0, &v0);
        fs_options opt = options(3000);
        fs_result res;
        fs_simulate(&sys, x0 - 0.05, v0 + 0.05, &opt, &res);
        CHECK(t, res.regime == FS_REGIME_PERIODIC && res.period == 1 &&
                     res.impacts_per_period == 1 &&
                     fabs(res.v_last - o[stable].v) <= 1e-9 * o[stable].v &&
                     fabs(res.phase_last - o[stable].phi) <= 1e-9,
              "case %zu: regime %d period %d, v %.17g phase %.17g; exact v %.17g phase %.17g",
              c, res.regime, res.period, res.v_last, res.phase_last, o[stable].v,
              o[stable].phi);
    }
}

/* --- chatter, sticking, free motion ----------------------------------------------- */

static void test_chatter_and_sticking(tally *t)
{
    /* a pre-loaded stop beyond the force's reach (delta <= -A): once there, held for ever */
    fs_system sys;
    fs_system_init(&sys, 2.0, 0.1, 1.0, -1.5, 0.6);
    fs_options opt = options(200);
    fs_result res;
    fs_simulate(&sys, -3.0, 0.0, &opt, &res);
    CHECK(t, res.check == FS_CHECK_NONE && res.regime == FS_REGIME_CHATTER &&
                 res.period == 1 && res.impacts_per_period == 0 && res.resets == 1 &&
                 res.sticks == 1,
          "held for ever: regime %d period %d impacts/period %ld resets %ld sticks %ld",
          res.regime, res.period, (long)res.impacts_per_period, (long)res.resets,
          (long)res.sticks);
    /* plastic impacts (r = 0) with the force pushing in: every impact ends at rest */
    fs_system_init(&sys, 0.3, 0.05, 1.0, 0.2, 0.0);
    fs_simulate(&sys, -1.0, 0.0, &opt, &res);
    CHECK(t, res.check == FS_CHECK_NONE && res.resets > 0 && res.regime == FS_REGIME_CHATTER,
          "plastic: regime %d resets %ld impacts %ld", res.regime, (long)res.resets,
          (long)res.impacts);
    /* slow forcing: a chatter, sticking, a release at acos(delta / A) in every period */
    fs_system_init(&sys, 0.2, 0.1, 1.0, 0.2, 0.7);
    fs_simulate(&sys, 0.0, 0.0, &opt, &res);
    CHECK(t, res.check == FS_CHECK_NONE && res.regime == FS_REGIME_CHATTER &&
                 res.sticks >= 100 && res.period >= 1,
          "slow forcing: regime %d period %d sticks %ld", res.regime, res.period,
          (long)res.sticks);
    CHECK(t, fabs(sys.phase_release - acos(0.2)) == 0.0, "release phase %.17g",
          sys.phase_release);
    /* with damping and the steady response clear of the stop, the motion ends free */
    fs_system_init(&sys, 3.0, 0.2, 1.0, 0.5, 0.8);
    fs_simulate(&sys, -2.0, 0.0, &opt, &res);
    CHECK(t, res.check == FS_CHECK_NONE && res.regime == FS_REGIME_FREE && res.impacts > 0 &&
                 res.periods_done < opt.periods,
          "free: regime %d impacts %ld periods %ld", res.regime, (long)res.impacts,
          (long)res.periods_done);
}

/* --- the table: validation, pointwise results, the stop flag ----------------------- */

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

static void test_table(tally *t)
{
    const is_model *m = &forced_stop_model;
    enum { NP = 16, NO = 16 };
    CHECK(t, m->param_count <= NP && m->output_count <= NO, "table too large for the test");
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
    for (size_t o = 0; o < no; o++) {
        CHECK(t, memcmp(&together[o * 3], &together[o * 3 + 2], sizeof(double)) == 0,
              "output %s differs between two copies of a point", m->outputs[o].name);
        CHECK(t, memcmp(&together[o * 3 + 1], &alone[o], sizeof(double)) == 0,
              "output %s differs alone and in a batch", m->outputs[o].name);
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
    test_flight_against_rk4(&t);
    test_contact_search_never_steps_over(&t);
    test_period1_orbit(&t);
    test_chatter_and_sticking(&t);
    test_table(&t);
    printf("%d checks, %d failed\n", t.checks, t.failures);
    return t.failures == 0 ? 0 : 1;
}
