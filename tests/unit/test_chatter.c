/* test_chatter.c: the chatter model against exact properties of its mechanics
 * (restitution law, energy balance, impulse direction, symmetry), against an
 * independent formulation of the rod, and the vectorised batch kernel against the
 * scalar reference simulation; its Wilson intervals against their closed form and their
 * coverage of simulated binomials; the stop flag, the physical checks and the bound on
 * a point's cost. */
#include <CUnit/CUnit.h>
#include <float.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>

#include "chatter_reference.h"
#include "models/chatter/chatter.h"
#include "check.h"
#include "suites.h"

static void make_point(double *point, int n, double rho, double gamma, int samples,
                       int max_impacts)
{
    point[CHATTER_N] = n;
    point[CHATTER_RHO] = rho;
    point[CHATTER_GAMMA] = gamma;
    point[CHATTER_SAMPLES] = samples;
    point[CHATTER_MAX_IMPACTS] = max_impacts;
    point[CHATTER_PERTURBATION] = 0.1;
    point[CHATTER_SEED] = 7;
    point[CHATTER_CONE_ROUNDS] = 0;
    point[CHATTER_EARLY_STOP] = 0;
}

static double kinetic_energy(double rho, const double p[3])
{
    return 0.5 * (rho * rho * (p[0] * p[0] + p[1] * p[1]) + p[2] * p[2]);
}

static double normal_velocity(const chatter_geometry *g, int j, const double p[3])
{
    return g->fx[j] * p[0] + g->fy[j] * p[1] + p[2];
}

/* A deterministic pseudo-random double in (-1, 1) for test inputs. */
static double test_random(unsigned *state)
{
    *state = *state * 1103515245u + 12345u;
    return ((*state >> 8) & 0xFFFFFF) / (double)0x800000 - 1.0;
}

/* --- geometry -------------------------------------------------------------------- */

static void test_geometry_unit_circle_and_mirror(void)
{
    for (int n = 2; n <= 12; n++) {
        chatter_geometry g;
        chatter_geometry_init(&g, n);
        for (int i = 0; i < n; i++) {
            CU_ASSERT_DOUBLE_EQUAL(g.fx[i] * g.fx[i] + g.fy[i] * g.fy[i], 1.0, 4e-16);
            /* vertex n - i is vertex i reflected in the x axis, exactly */
            int mirror = (n - i) % n;
            CU_ASSERT_EQUAL(g.fx[mirror], -g.fx[i]);
            CU_ASSERT_EQUAL(g.fy[mirror], g.fy[i]);
        }
        CU_ASSERT_EQUAL(g.fx[0], 0.0); /* vertex 0 at (1, 0): y_0 = 0 exactly */
        CU_ASSERT_EQUAL(g.fy[0], -1.0);
        if (n % 2 == 0) {
            CU_ASSERT_EQUAL(g.fx[n / 2], 0.0); /* sin(pi) snapped to 0 */
        }
    }
}

static void test_geometry_pair_directions(void)
{
    for (int n = 3; n <= 10; n++) {
        chatter_geometry g;
        chatter_geometry_init(&g, n);
        for (int i = 0; i < n; i++) {
            const double *m = g.m_unit[i];
            double m3[3] = {m[0] / m[2], m[1] / m[2], 1.0};
            /* both vertices of the pair touch the plane, the others stay above */
            for (int k = 0; k < n; k++) {
                double height = normal_velocity(&g, k, m3);
                if (k == i || k == (i + 1) % n) {
                    CU_ASSERT_DOUBLE_EQUAL(height, 0.0, 1e-14);
                } else {
                    CU_ASSERT_TRUE(height > 1e-3);
                }
            }
            CU_ASSERT_DOUBLE_EQUAL(m[0] * m[0] + m[1] * m[1] + m[2] * m[2], 1.0, 1e-15);
        }
    }
}

/* --- the impact map ---------------------------------------------------------------- */

static void test_impact_restitution_energy_impulse(void)
{
    unsigned seed = 12345;
    int checked = 0;
    for (int trial = 0; trial < 4000; trial++) {
        int n = 2 + trial % 7;
        double rho = 0.05 + 2.0 * fabs(test_random(&seed));
        double gamma = 0.01 + 0.98 * fabs(test_random(&seed));
        chatter_geometry g;
        chatter_geometry_init(&g, n);
        int j = trial % n;
        double p[3] = {test_random(&seed), test_random(&seed), test_random(&seed)};
        if (n == 2)
            p[0] = 0.0;
        double before = normal_velocity(&g, j, p);
        if (!(before < -1e-3))
            continue;
        double old[3] = {p[0], p[1], p[2]};
        double energy_before = kinetic_energy(rho, p);
        chatter_apply_impact(&g, rho, gamma, j, p);
        double after = normal_velocity(&g, j, p);
        /* Newton's law, and the vertex just hit moves away from the plane */
        CU_ASSERT_DOUBLE_EQUAL(after, -gamma * before, 1e-14 * (1.0 + fabs(before)));
        CU_ASSERT_TRUE(after > 0.0);
        /* energy: lost exactly (1 - gamma^2) m_eff u^2 / 2, m_eff = rho^2 / (1 + rho^2) */
        double m_eff = rho * rho / (1.0 + rho * rho);
        double loss = 0.5 * m_eff * (1.0 - gamma * gamma) * before * before;
        double energy_after = kinetic_energy(rho, p);
        CU_ASSERT_TRUE(energy_after <= energy_before * (1.0 + 1e-15));
        CU_ASSERT_DOUBLE_EQUAL(energy_before - energy_after, loss,
                               1e-13 * (energy_before + 1e-300));
        /* the impulse is along the contact normal: Theta (p+ - p-) parallel to f_j */
        double impulse[3] = {rho * rho * (p[0] - old[0]), rho * rho * (p[1] - old[1]),
                             p[2] - old[2]};
        double f[3] = {g.fx[j], g.fy[j], 1.0};
        double cross[3] = {impulse[1] * f[2] - impulse[2] * f[1],
                           impulse[2] * f[0] - impulse[0] * f[2],
                           impulse[0] * f[1] - impulse[1] * f[0]};
        /* p+ - p- loses digits when the change is small against p */
        double scale = (1.0 + rho * rho) * (fabs(old[0]) + fabs(old[1]) + fabs(old[2]));
        for (int k = 0; k < 3; k++)
            CU_ASSERT_DOUBLE_EQUAL(cross[k], 0.0, 1e-14 * scale);
        CU_ASSERT_TRUE(p[2] > old[2]); /* impulses only push the body up */
        checked++;
    }
    CU_ASSERT_TRUE(checked > 1000);
}

static void test_energy_never_grows_along_drops(void)
{
    /* Re-simulate drops impact by impact with the map and watch the energy. */
    double point[CHATTER_PARAM_COUNT];
    for (int n = 2; n <= 5; n++) {
        make_point(point, n, 0.4, 0.3, 1, 200);
        chatter_geometry g;
        chatter_geometry_init(&g, n);
        for (int sample = 0; sample < 20; sample++) {
            double q[3], p[3];
            chatter_initial_state(point, (uint64_t)sample, q, p);
            double energy = kinetic_energy(0.4, p);
            int last = -1;
            for (int impact = 0; impact < 60 && p[2] < 0.0; impact++) {
                int next = -1;
                double t_next = INFINITY;
                for (int j = 0; j < n; j++) {
                    double fp = normal_velocity(&g, j, p);
                    if (j == last || !(fp < 0.0))
                        continue;
                    double t = fmax(0.0, -normal_velocity(&g, j, q) / fp);
                    if (t < t_next) {
                        t_next = t;
                        next = j;
                    }
                }
                if (next < 0)
                    break;
                for (int k = 0; k < 3; k++)
                    q[k] += t_next * p[k];
                chatter_apply_impact(&g, 0.4, 0.3, next, p);
                double now = kinetic_energy(0.4, p);
                CU_ASSERT_TRUE(now <= energy * (1.0 + 1e-14));
                energy = now;
                last = next;
                /* the configuration stays penetration-free (to rounding) */
                for (int j = 0; j < n; j++)
                    CU_ASSERT_TRUE(normal_velocity(&g, j, q) > -1e-12 * fabs(q[2]));
            }
        }
    }
}

/* --- initial states ----------------------------------------------------------------- */

static void test_initial_state_ranges_and_determinism(void)
{
    double point[CHATTER_PARAM_COUNT];
    make_point(point, 4, 0.3, 0.1, 1, 200);
    point[CHATTER_PERTURBATION] = 0.05;
    double q0[3], p0[3], q1[3], p1[3];
    double sum = 0.0;
    for (int s = 0; s < 2000; s++) {
        chatter_initial_state(point, (uint64_t)s, q0, p0);
        chatter_initial_state(point, (uint64_t)s, q1, p1);
        CU_ASSERT_EQUAL(memcmp(q0, q1, sizeof q0), 0);
        CU_ASSERT_EQUAL(memcmp(p0, p1, sizeof p0), 0);
        double r[5] = {p0[0], p0[1], q0[0], q0[1], q0[2] - 1.0};
        for (int k = 0; k < 5; k++) {
            CU_ASSERT_TRUE(r[k] > 0.0 && r[k] < 0.05);
            sum += r[k];
        }
        CU_ASSERT_EQUAL(p0[2], -1.0);
    }
    /* mean of 10000 uniforms on (0, 0.05): 0.025 with standard error 1.4e-4 */
    CU_ASSERT_DOUBLE_EQUAL(sum / 10000.0, 0.025, 7e-4);
    chatter_initial_state(point, 0, q0, p0);
    chatter_initial_state(point, 1, q1, p1);
    CU_ASSERT_NOT_EQUAL(q0[0], q1[0]);
    point[CHATTER_SEED] = 8;
    chatter_initial_state(point, 0, q1, p1);
    CU_ASSERT_NOT_EQUAL(q0[0], q1[0]);
    /* the rod has no phi_x */
    make_point(point, 2, 0.3, 0.1, 1, 200);
    chatter_initial_state(point, 3, q0, p0);
    CU_ASSERT_EQUAL(q0[0], 0.0);
    CU_ASSERT_EQUAL(p0[0], 0.0);
}

/* --- the rod, two ways ------------------------------------------------------------ */

/* The rod written in its own variables: heights d0, d1 and normal velocities u0, u1 of
 * its two ends. An impact at end a gives u_a -> -gamma u_a and
 * u_b -> u_b - (1 + gamma) u_a (rho^2 - 1) / (rho^2 + 1), derived from momentum
 * balance independently of the 3-D impact matrix. Heights and velocities shrink
 * geometrically under chatter, so each pair is rescaled by powers of two and the
 * flight times scaled back. */
static void rod_by_ends(double rho, double gamma, int max_impacts, const double q[3],
                        const double p[3], int *impacts, double *time, int *lifted)
{
    double d[2] = {-q[1] + q[2], q[1] + q[2]}, u[2] = {-p[1] + p[2], p[1] + p[2]};
    double coupling = (rho * rho - 1.0) / (rho * rho + 1.0);
    int d_exp = 0, u_exp = 0, last = -1;
    *impacts = 0;
    *time = 0.0;
    *lifted = 0;
    while (*impacts < max_impacts) {
        int a = last == 0 ? 1 : 0; /* the ends alternate */
        if (!(u[a] < 0.0)) {
            *lifted = 1;
            return;
        }
        double t = fmax(0.0, -d[a] / u[a]);
        d[0] += t * u[0];
        d[1] += t * u[1];
        *time += ldexp(t, d_exp - u_exp);
        u[1 - a] -= (1.0 + gamma) * u[a] * coupling;
        u[a] *= -gamma;
        (*impacts)++;
        last = a;
        if (u[0] + u[1] >= 0.0) { /* the centre of mass moves up */
            *lifted = 1;
            return;
        }
        int eu, ed;
        frexp(fmax(fabs(u[0]), fabs(u[1])), &eu);
        frexp(fmax(fabs(d[0]), fabs(d[1])), &ed);
        for (int k = 0; k < 2; k++) {
            u[k] = ldexp(u[k], -eu);
            d[k] = ldexp(d[k], -ed);
        }
        u_exp += eu;
        d_exp += ed;
    }
}

static void test_rod_two_formulations(void)
{
    const double rhos[] = {0.1, 0.3, 0.5, 0.7, 0.9, 1.3};
    const double gammas[] = {0.05, 0.2, 0.5, 0.8};
    int cc = 0, icc = 0;
    for (size_t r = 0; r < sizeof rhos / sizeof *rhos; r++)
        for (size_t k = 0; k < sizeof gammas / sizeof *gammas; k++) {
            double point[CHATTER_PARAM_COUNT];
            make_point(point, 2, rhos[r], gammas[k], 1, 400);
            chatter_geometry g;
            chatter_geometry_init(&g, 2);
            for (int s = 0; s < 10; s++) {
                double q[3], p[3];
                chatter_initial_state(point, (uint64_t)s, q, p);
                chatter_drop drop;
                chatter_drop_reference(&g, rhos[r], gammas[k], 400, q, p, &drop);
                int impacts, lifted;
                double time;
                rod_by_ends(rhos[r], gammas[k], 400, q, p, &impacts, &time, &lifted);
                CU_ASSERT_EQUAL(drop.impacts, impacts);
                CU_ASSERT_EQUAL(drop.outcome == CHATTER_ICC, lifted);
                CU_ASSERT_DOUBLE_EQUAL(drop.time, time, 1e-12 * time);
                CU_ASSERT_NOT_EQUAL(drop.outcome, CHATTER_PCC); /* undefined for the rod */
                cc += drop.outcome == CHATTER_CC;
                icc += drop.outcome == CHATTER_ICC;
            }
        }
    CU_ASSERT_TRUE(cc > 0 && icc > 0); /* the grid covers both regimes */
}

static void test_rod_rho_one_bounces_each_end_once(void)
{
    /* At rho = 1 an impact at one end leaves the other end's velocity alone, so each end
     * bounces at most once and the rod leaves: one impact if the first bounce already
     * lifts the centre of mass (-gamma u_a + u_b >= 0), else two. */
    void *ws;
    is_error err;
    CU_ASSERT_EQUAL_FATAL(chatter_workspace_create(&ws, &err), IS_OK);
    const double gammas[] = {0.01, 0.3, 0.95, 0.99};
    for (int k = 0; k < 4; k++) {
        double point[CHATTER_PARAM_COUNT], out[CHATTER_OUTPUT_COUNT];
        uint8_t status;
        make_point(point, 2, 1.0, gammas[k], 300, 200);
        double expected = 0.0;
        for (int s = 0; s < 300; s++) {
            double q[3], p[3];
            chatter_initial_state(point, (uint64_t)s, q, p);
            double d[2] = {-q[1] + q[2], q[1] + q[2]}, u[2] = {-p[1] + p[2], p[1] + p[2]};
            int a = d[0] / -u[0] <= d[1] / -u[1] ? 0 : 1;
            expected += -gammas[k] * u[a] + u[1 - a] >= 0.0 ? 1.0 : 2.0;
        }
        CU_ASSERT_EQUAL(chatter_eval_batch(ws, point, 1, out, &status, &err), IS_OK);
        CU_ASSERT_EQUAL(status, IS_POINT_DONE);
        CU_ASSERT_EQUAL(out[CHATTER_P_ICC], 1.0);
        CU_ASSERT_DOUBLE_EQUAL(out[CHATTER_IMPACTS_MEAN], expected / 300.0, 1e-15);
        CU_ASSERT_TRUE(out[CHATTER_IMPACTS_MAX] <= 2.0);
    }
    chatter_workspace_free(ws);
}

/* --- symmetry ------------------------------------------------------------------------ */

static void test_mirror_symmetry_is_exact(void)
{
    /* Reflecting the state in the x axis, (phi_x, phi_y, h) -> (-phi_x, phi_y, h),
     * relabels vertex i as n - i; every product and sum is the same, so the drop must
     * be the same to the last bit. */
    for (int n = 3; n <= 6; n++) {
        double point[CHATTER_PARAM_COUNT];
        make_point(point, n, 0.35, 0.15, 1, 300);
        chatter_geometry g;
        chatter_geometry_init(&g, n);
        for (int s = 0; s < 25; s++) {
            double q[3], p[3];
            chatter_initial_state(point, (uint64_t)s, q, p);
            double qm[3] = {-q[0], q[1], q[2]}, pm[3] = {-p[0], p[1], p[2]};
            chatter_drop a, b;
            chatter_drop_reference(&g, 0.35, 0.15, 300, q, p, &a);
            chatter_drop_reference(&g, 0.35, 0.15, 300, qm, pm, &b);
            CU_ASSERT_EQUAL(a.impacts, b.impacts);
            CU_ASSERT_EQUAL(a.outcome, b.outcome);
            CU_ASSERT_EQUAL(a.time, b.time);
            CU_ASSERT_EQUAL(a.q[0], -b.q[0]);
            CU_ASSERT_EQUAL(a.p[1], b.p[1]);
        }
    }
}

/* --- the batch kernel against the scalar reference ---------------------------------- */

/* The Wilson score interval as textbooks write it, centre +- half width, in long double:
 * (p + z^2/2n -+ z sqrt(p (1 - p)/n + z^2/4n^2)) / (1 + z^2/n), p = k/n, clamped to [0, 1]. */
static void wilson_textbook(double k, double n, double *lo, double *hi)
{
    const long double z = 1.959963984540054L;
    long double p = (long double)k / n, z2n = z * z / n;
    long double centre = (p + z2n / 2) / (1 + z2n);
    long double half = z / (1 + z2n) * sqrtl(p * (1 - p) / n + z2n / (4 * n));
    *lo = (double)fmaxl(0.0L, centre - half);
    *hi = (double)fminl(1.0L, centre + half);
}

static void reference_outputs(const double *point, double *out)
{
    chatter_geometry g;
    chatter_geometry_init(&g, (int)point[CHATTER_N]);
    int samples = (int)point[CHATTER_SAMPLES], rounds;
    chatter_region region; /* the early stop, where cone_rounds > 0 finds a certificate */
    chatter_cone_work *work = chatter_cone_work_create();
    CU_ASSERT_PTR_NOT_NULL_FATAL(work);
    out[CHATTER_CONE] = chatter_point_certificate(point, work, &rounds, &region);
    chatter_cone_work_free(work);
    double tally[CHATTER_OUTCOMES] = {0}, impacts = 0, most = 0, time = 0, certified = 0;
    for (int s = 0; s < samples; s++) {
        double q[3], p[3];
        chatter_initial_state(point, (uint64_t)s, q, p);
        chatter_drop d;
        chatter_drop_reference_certified(&g, point[CHATTER_RHO], point[CHATTER_GAMMA],
                                         (int64_t)point[CHATTER_MAX_IMPACTS], &region, q, p,
                                         &d);
        tally[d.outcome] += 1;
        certified += d.certified;
        impacts += (double)d.impacts;
        most = fmax(most, (double)d.impacts);
        time += d.time;
    }
    for (int k = 0; k < CHATTER_OUTCOMES; k++)
        out[chatter_fraction_outputs[k][0]] = tally[k] / samples;
    out[CHATTER_P_CERTIFIED] = certified / samples;
    out[CHATTER_P_UNDECIDED] = (tally[1] - certified) / samples;
    out[CHATTER_IMPACTS_MEAN] = impacts / samples;
    out[CHATTER_IMPACTS_MAX] = most;
    out[CHATTER_TIME_MEAN] = time / samples;
    for (int k = 0; k < CHATTER_OUTCOMES; k++)
        wilson_textbook(tally[k], samples, &out[chatter_fraction_outputs[k][1]],
                        &out[chatter_fraction_outputs[k][2]]);
    if (point[CHATTER_N] == 2.0) /* PCC is not defined for the rod: exactly 0 */
        out[CHATTER_P_PCC_LO] = out[CHATTER_P_PCC_HI] = 0.0;
}

/* Points that cover ICC, CC, PCC and flat landings, several n, and long budgets. */
static const double kernel_cases[][5] = {
    /* n, rho, gamma, samples, max_impacts */
    {4, 0.3, 0.1, 150, 200},  {4, 0.3, 0.5, 150, 200},  {3, 0.1, 0.05, 150, 200},
    {3, 0.5, 0.2, 150, 200},  {5, 0.2, 0.3, 150, 200},  {6, 0.45, 0.12, 150, 200},
    {2, 0.4, 0.2, 150, 200},  {2, 0.8, 0.6, 150, 200},  {4, 0.25, 0.05, 20, 10000},
    {7, 0.6, 0.4, 150, 300},  {3, 0.15, 0.1, 97, 1000},  {4, 0.12, 0.3, 60, 1000},
    {2, 0.3, 0.1, 60, 1000},  {6, 0.15, 0.2, 60, 10000}, {4, 0.3, 1e-6, 40, 203},
    /* issue 21: the corner of flat landings (PCC proven, flat, CC), at long budgets; a
     * point of flat landings armed from the start (gamma below chatter_flat_armed's
     * bound), and the rod where tiny gamma lands it flat (never armed) */
    {3, 0.46429424955138265, 0.005, 64, 10000}, {3, 0.6746, 0.000289, 40, 1000},
    {3, 0.173387, 0.0587334, 60, 1000},         {3, 0.55, 0.014, 64, 100000},
    {2, 0.01, 1e-13, 20, 1000},
};
#define KERNEL_CASES (sizeof kernel_cases / sizeof *kernel_cases)

/* Case c; from KERNEL_CASES on, case c - KERNEL_CASES with the certificate (cone_rounds
 * 100) and so with drops stopped early where it holds. */
static void fill_case(double *point, size_t c)
{
    size_t k = c % KERNEL_CASES;
    make_point(point, (int)kernel_cases[k][0], kernel_cases[k][1], kernel_cases[k][2],
               (int)kernel_cases[k][3], (int)kernel_cases[k][4]);
    if (c >= KERNEL_CASES) {
        point[CHATTER_CONE_ROUNDS] = 100;
        point[CHATTER_EARLY_STOP] = 1;
    }
}

static void test_kernel_matches_reference(void)
{
    void *ws;
    is_error err;
    CU_ASSERT_EQUAL_FATAL(chatter_workspace_create(&ws, &err), IS_OK);
    int regimes_seen[CHATTER_OUTCOMES] = {0}, certified_seen = 0;
    for (size_t c = 0; c < 2 * KERNEL_CASES; c++) {
        double point[CHATTER_PARAM_COUNT], out[CHATTER_OUTPUT_COUNT], ref[CHATTER_OUTPUT_COUNT];
        uint8_t status;
        fill_case(point, c);
        CU_ASSERT_EQUAL(chatter_eval_batch(ws, point, 1, out, &status, &err), IS_OK);
        CU_ASSERT_EQUAL(status, IS_POINT_DONE);
        reference_outputs(point, ref);
        for (int o = CHATTER_P_ICC; o <= CHATTER_IMPACTS_MAX; o++)
            CHECK(out[o] == ref[o], "case %zu output %d: %.17g, reference %.17g", c, o, out[o],
                  ref[o]);
        CHECK(out[CHATTER_P_FLAT] == ref[CHATTER_P_FLAT], "case %zu p_flat: %.17g, reference %.17g",
              c, out[CHATTER_P_FLAT], ref[CHATTER_P_FLAT]);
        CU_ASSERT_EQUAL(out[CHATTER_P_CERTIFIED], ref[CHATTER_P_CERTIFIED]);
        CU_ASSERT_EQUAL(out[CHATTER_P_UNDECIDED], ref[CHATTER_P_UNDECIDED]);
        CU_ASSERT_EQUAL(memcmp(&out[CHATTER_CONE], &ref[CHATTER_CONE], sizeof(double)), 0);
        certified_seen += out[CHATTER_P_CERTIFIED] > 0.0;
        if (c < KERNEL_CASES) /* no early stop asked for */
            CU_ASSERT_EQUAL(out[CHATTER_P_CERTIFIED], 0.0);
        CU_ASSERT_DOUBLE_EQUAL(out[CHATTER_TIME_MEAN], ref[CHATTER_TIME_MEAN],
                               1e-13 * ref[CHATTER_TIME_MEAN]);
        /* the uncertainty of the fractions: the Wilson bounds of the reference's counts */
        for (int k = 0; k < CHATTER_OUTCOMES; k++)
            for (int b = 1; b <= 2; b++) {
                int o = chatter_fraction_outputs[k][b];
                CHECK(fabs(out[o] - ref[o]) <= 1e-14,
                      "case %zu output %d: %.17g, closed form %.17g", c, o, out[o], ref[o]);
            }
        CU_ASSERT_DOUBLE_EQUAL(out[CHATTER_P_ICC] + out[CHATTER_P_CC] + out[CHATTER_P_PCC] +
                                   out[CHATTER_P_FLAT],
                               1.0, 1e-15);
        regimes_seen[(int)out[CHATTER_REGIME]]++;
    }
    for (int k = 0; k < CHATTER_OUTCOMES; k++)
        CU_ASSERT_TRUE(regimes_seen[k] > 0); /* the cases cover all four outcomes */
    CU_ASSERT_TRUE(certified_seen >= 5);     /* and drops stopped early */
    chatter_workspace_free(ws);
}

static void test_batch_composition_does_not_matter(void)
{
    /* The same points one at a time, all together, and in reverse order (mixing n
     * within one batch, certified and plain points, and gamma = 1e-6, which shortens
     * the kernel's rounds for its whole group, so the checkpoints of certified drops fall
     * inside rounds) give the same bits. */
    void *ws;
    is_error err;
    CU_ASSERT_EQUAL_FATAL(chatter_workspace_create(&ws, &err), IS_OK);
    size_t count = 2 * KERNEL_CASES;
    double *points = malloc(count * CHATTER_PARAM_COUNT * sizeof *points);
    double *reversed = malloc(count * CHATTER_PARAM_COUNT * sizeof *reversed);
    double *together = malloc(count * CHATTER_OUTPUT_COUNT * sizeof *together);
    double *backwards = malloc(count * CHATTER_OUTPUT_COUNT * sizeof *backwards);
    uint8_t *status = malloc(count);
    CU_ASSERT_FATAL(points && reversed && together && backwards && status);
    for (size_t c = 0; c < count; c++) {
        fill_case(points + c * CHATTER_PARAM_COUNT, c);
        fill_case(reversed + (count - 1 - c) * CHATTER_PARAM_COUNT, c);
    }
    CU_ASSERT_EQUAL(chatter_eval_batch(ws, points, count, together, status, &err), IS_OK);
    CU_ASSERT_EQUAL(chatter_eval_batch(ws, reversed, count, backwards, status, &err), IS_OK);
    for (size_t c = 0; c < count; c++) {
        double alone[CHATTER_OUTPUT_COUNT];
        uint8_t one;
        CU_ASSERT_EQUAL(chatter_eval_batch(ws, points + c * CHATTER_PARAM_COUNT, 1, alone, &one,
                                           &err),
                        IS_OK);
        for (int o = 0; o < CHATTER_OUTPUT_COUNT; o++) { /* bits: NaN where not asked for */
            CU_ASSERT_EQUAL(memcmp(&alone[o], &together[o * count + c], sizeof(double)), 0);
            CU_ASSERT_EQUAL(memcmp(&alone[o], &backwards[o * count + (count - 1 - c)],
                                   sizeof(double)), 0);
        }
    }
    free(points);
    free(reversed);
    free(together);
    free(backwards);
    free(status);
    chatter_workspace_free(ws);
}

/* --- long chatter and the PCC tolerance ---------------------------------------------- */

static void test_long_chatter_stays_normal(void)
{
    /* 10^4 impacts of complete chatter: without rescaling the state would underflow
     * after a few hundred. The accumulation time converges, so 10^4 impacts add almost
     * nothing to the time of 200. */
    double point[CHATTER_PARAM_COUNT];
    make_point(point, 4, 0.3, 0.1, 1, 10000);
    chatter_geometry g;
    chatter_geometry_init(&g, 4);
    for (int s = 0; s < 5; s++) {
        double q[3], p[3];
        chatter_initial_state(point, (uint64_t)s, q, p);
        chatter_drop long_drop, short_drop;
        chatter_drop_reference(&g, 0.3, 0.1, 10000, q, p, &long_drop);
        chatter_drop_reference(&g, 0.3, 0.1, 200, q, p, &short_drop);
        CU_ASSERT_EQUAL(long_drop.outcome, CHATTER_CC);
        CU_ASSERT_EQUAL(long_drop.impacts, 10000);
        for (int k = 0; k < 3; k++) {
            CU_ASSERT_TRUE(long_drop.q[k] == 0.0 || fpclassify(long_drop.q[k]) == FP_NORMAL);
            CU_ASSERT_TRUE(long_drop.p[k] == 0.0 || fpclassify(long_drop.p[k]) == FP_NORMAL);
        }
        CU_ASSERT_TRUE(isfinite(long_drop.time));
        CU_ASSERT_TRUE(long_drop.time >= short_drop.time);
        CU_ASSERT_DOUBLE_EQUAL(long_drop.time, short_drop.time, 1e-6 * short_drop.time);
    }
}

/* max(|f_i.p|, |f_j.p|) / |p_3| for the adjacent pair where it is smallest: zero
 * exactly on the PCC ray -m_ij. */
static double pcc_closeness(const chatter_geometry *g, const double p[3])
{
    double best = INFINITY;
    for (int i = 0; i < g->n; i++) {
        int j = (i + 1) % g->n;
        double a = fabs(normal_velocity(g, i, p)), b = fabs(normal_velocity(g, j, p));
        best = fmin(best, fmax(a, b) / fabs(p[2]));
    }
    return best;
}

static void test_pcc_gate_separates_cleanly(void)
{
    /* PCC is decided by a proof (chatter_pcc_proven) asked for only at its gate, both
     * speeds of the pair below CHATTER_PCC_TOLERANCE |p_3|: the gate must not be marginal.
     * (3, 0.1, 0.05) is deep in the PCC region: there the proof passes within a few impacts
     * of the first state through the gate, whose pair is then far inside it; the others are
     * CC points where drops come closest to a PCC ray, never within 1e2 of the gate. Drops
     * end with the impact before which PCC was proven, and every PCC drop of the deep
     * point is proven PCC by the test's independent simulator too. */
    static const double cases[][3] = {{3, 0.1, 0.05}, {3, 0.15, 0.1}, {3, 0.3, 0.2},
                                      {4, 0.2, 0.05}, {5, 0.2, 0.1}};
    int pcc = 0, cc = 0, late = 0, reference_pcc = 0;
    double cc_best = INFINITY;
    for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
        int n = (int)cases[c][0];
        double point[CHATTER_PARAM_COUNT];
        make_point(point, n, cases[c][1], cases[c][2], 1, 200);
        chatter_geometry g;
        chatter_geometry_init(&g, n);
        for (int s = 0; s < 60; s++) {
            double q[3], p[3];
            chatter_initial_state(point, (uint64_t)s, q, p);
            chatter_drop d;
            chatter_drop_reference(&g, cases[c][1], cases[c][2], 200, q, p, &d);
            /* the closest approach to a PCC ray along the drop, before each impact, and the
             * first impact before which some adjacent pair is through the gate */
            double closest = INFINITY;
            int64_t gate = -1;
            for (int64_t budget = 0; budget <= d.impacts && budget <= 200; budget += 1) {
                chatter_drop upto;
                chatter_drop_reference(&g, cases[c][1], cases[c][2], budget, q, p, &upto);
                closest = fmin(closest, pcc_closeness(&g, upto.p));
                if (gate < 0 && closest < CHATTER_PCC_TOLERANCE)
                    gate = budget;
            }
            if (d.outcome == CHATTER_PCC) {
                pcc++;
                late += !(gate >= 0 && d.pcc_at <= gate + 2);
                chatter_ref_drop r;
                chatter_ref_simulate_state(n, cases[c][1], cases[c][2], q, p, 200, &r);
                reference_pcc += r.outcome == CHATTER_PCC && r.impacts == d.impacts;
            } else if (d.outcome == CHATTER_CC) {
                cc++;
                cc_best = fmin(cc_best, closest);
            }
        }
    }
    CU_ASSERT_TRUE(pcc > 40 && cc > 150);
    CHECK(late == 0, "%d of %d PCC drops proven more than 2 impacts after the gate", late, pcc);
    CHECK(reference_pcc == pcc, "%d of %d PCC drops PCC at the same impact in long double",
          reference_pcc, pcc);
    /* measured: CC drops never come closer than 3.5e-3 */
    CU_ASSERT_TRUE(cc_best > 1e2 * CHATTER_PCC_TOLERANCE);
}

static void test_pcc_is_decided_early(void)
{
    /* Deep in the PCC region every drop is PCC, and is proven within a few dozen impacts,
     * long before its budget, where the drop ends. */
    double point[CHATTER_PARAM_COUNT];
    make_point(point, 3, 0.1, 0.05, 1, 2000);
    chatter_geometry g;
    chatter_geometry_init(&g, 3);
    for (int s = 0; s < 100; s++) {
        double q[3], p[3];
        chatter_initial_state(point, (uint64_t)s, q, p);
        chatter_drop d;
        chatter_drop_reference(&g, 0.1, 0.05, 2000, q, p, &d);
        CU_ASSERT_EQUAL(d.outcome, CHATTER_PCC);
        CU_ASSERT_TRUE(d.pcc_at >= 0 && d.pcc_at < 100 && d.impacts == d.pcc_at + 1);
    }
}

static void test_pcc_velocity_on_constructed_states(void)
{
    chatter_geometry g;
    chatter_geometry_init(&g, 4);
    const double *m = g.m_unit[1];
    double p[3] = {-m[0], -m[1], -m[2]};
    CU_ASSERT_TRUE(chatter_is_pcc_velocity(&g, p));
    p[0] += 1e-3; /* off the ray */
    CU_ASSERT_FALSE(chatter_is_pcc_velocity(&g, p));
    double vertical[3] = {0.0, 0.0, -1.0}; /* all vertices approach alike: not PCC */
    CU_ASSERT_FALSE(chatter_is_pcc_velocity(&g, vertical));
    chatter_geometry rod;
    chatter_geometry_init(&rod, 2);
    double rod_rest[3] = {0.0, 0.0, -1e-300};
    CU_ASSERT_FALSE(chatter_is_pcc_velocity(&rod, rod_rest)); /* undefined for the rod */
}

/* --- the certificates ---------------------------------------------------------------- */

static int inside_polygon(const double (*poly)[2], size_t count, double x, double y, double tol)
{
    /* counter-clockwise convex polygon: left of (or within tol of) every edge */
    for (size_t i = 0; i < count; i++) {
        const double *a = poly[i], *b = poly[(i + 1) % count];
        double ex = b[0] - a[0], ey = b[1] - a[1], len = sqrt(ex * ex + ey * ey);
        if (len == 0.0)
            continue;
        if ((ex * (y - a[1]) - ey * (x - a[0])) / len < -tol)
            return 0;
    }
    return 1;
}

static void test_cone_found_means_no_drop_escapes(void)
{
    /* A found cone certifies CC (or PCC): then no simulated drop may lift off. */
    void *ws;
    is_error err;
    CU_ASSERT_EQUAL_FATAL(chatter_workspace_create(&ws, &err), IS_OK);
    int found = 0, none = 0;
    for (int n = 3; n <= 5; n++)
        for (int i = 0; i < 10; i++)
            for (int k = 0; k < 10; k++) {
                double point[CHATTER_PARAM_COUNT], out[CHATTER_OUTPUT_COUNT];
                uint8_t status;
                make_point(point, n, 0.05 + 0.07 * i, 0.02 + 0.06 * k, 400, 300);
                point[CHATTER_CONE_ROUNDS] = 100;
                CU_ASSERT_EQUAL(chatter_eval_batch(ws, point, 1, out, &status, &err), IS_OK);
                if (out[CHATTER_CONE] == CHATTER_CONE_FOUND) {
                    found++;
                    CHECK(out[CHATTER_P_ICC] == 0.0, "n %d rho %g gamma %g: cone found but "
                          "p_icc = %g", n, point[CHATTER_RHO], point[CHATTER_GAMMA],
                          out[CHATTER_P_ICC]);
                } else if (out[CHATTER_CONE] == CHATTER_CONE_NONE) {
                    none++;
                }
            }
    CU_ASSERT_TRUE(found > 20 && none > 20); /* the grid covers both answers */
    chatter_workspace_free(ws);
}

static void test_cone_is_invariant_under_the_dynamics(void)
{
    /* Sample velocities in a found cone K and configurations with vertex 0 on the plane;
     * let the dynamics (not the cones C_j) pick the next vertex j, apply U_j, relabel by
     * P(-2 pi j / n): the velocity must be back in K (to the search's accuracy). */
    static const double cases[][3] = {{4, 0.3, 0.1}, {3, 0.3, 0.2}, {5, 0.2, 0.1}, {4, 0.2, 0.05}};
    unsigned seed = 99;
    chatter_cone_work *work = chatter_cone_work_create();
    CU_ASSERT_PTR_NOT_NULL_FATAL(work);
    for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
        int n = (int)cases[c][0], rounds;
        double rho = cases[c][1], gamma = cases[c][2];
        chatter_geometry g;
        chatter_geometry_init(&g, n);
        CU_ASSERT_EQUAL_FATAL(chatter_cone_search(&g, rho, gamma, 100, work, &rounds),
                              CHATTER_CONE_FOUND);
        double poly[CHATTER_CONE_MAX_VERTICES][2];
        size_t count = chatter_cone_polygon(work, poly, CHATTER_CONE_MAX_VERTICES);
        CU_ASSERT_FATAL(count >= 3);
        int checked = 0;
        for (int trial = 0; trial < 4000; trial++) {
            /* a random point of K: a convex combination of three vertices */
            double w[3] = {fabs(test_random(&seed)), fabs(test_random(&seed)),
                           fabs(test_random(&seed))};
            size_t a = (size_t)(fabs(test_random(&seed)) * count) % count;
            size_t b = (size_t)(fabs(test_random(&seed)) * count) % count;
            size_t d = (size_t)(fabs(test_random(&seed)) * count) % count;
            double sum = w[0] + w[1] + w[2] + 1e-300;
            double p[3] = {(w[0] * poly[a][0] + w[1] * poly[b][0] + w[2] * poly[d][0]) / sum,
                           (w[0] * poly[a][1] + w[1] * poly[b][1] + w[2] * poly[d][1]) / sum,
                           -1.0};
            /* vertex 0 on the plane (h = q_y), the others above */
            double q[3] = {0.3 * test_random(&seed), 0.3 * test_random(&seed), 0.0};
            q[2] = q[1];
            int valid = 1;
            for (int k = 1; k < n; k++)
                valid &= normal_velocity(&g, k, q) > 1e-9;
            if (!valid)
                continue;
            int next = -1;
            double t_next = INFINITY;
            for (int k = 1; k < n; k++) {
                double fp = normal_velocity(&g, k, p);
                if (fp < 0.0 && -normal_velocity(&g, k, q) / fp < t_next) {
                    t_next = -normal_velocity(&g, k, q) / fp;
                    next = k;
                }
            }
            CU_ASSERT_TRUE(next > 0); /* p_3 < 0: some vertex approaches */
            if (next <= 0)
                continue;
            chatter_apply_impact(&g, rho, gamma, next, p);
            double angle = -2.0 * M_PI * next / n;
            double x = cos(angle) * p[0] - sin(angle) * p[1], y = sin(angle) * p[0] + cos(angle) * p[1];
            CU_ASSERT_TRUE(p[2] < 0.0);
            CHECK(inside_polygon((const double(*)[2])poly, count, x / -p[2], y / -p[2], 1e-3),
                  "n %d rho %g gamma %g: (%g, %g) mapped out of the cone", n, rho, gamma,
                  x / -p[2], y / -p[2]);
            checked++;
        }
        CU_ASSERT_TRUE(checked > 500);
    }
    chatter_cone_work_free(work);
}

/* --- drops stopped early: certified complete chatter ---------------------------------- */

static void test_certified_drops_never_lift_off(void)
{
    /* Soundness of the early stop: over (rho, gamma) grids that cross the boundary of
     * the certificates, n = 2 .. 6, every drop stopped as certified is simulated on from
     * where it stopped for 10^4 more impacts: none may lift off, none may turn PCC. (The
     * state is carried over as the stop left it, each of q and p scaled by a power of two;
     * the vertex just hit moves up, so the next impact is elsewhere, as it would be.) */
    int regions[7] = {0}, certified[7] = {0}, uncertified_cc[7] = {0}, icc_points[7] = {0};
    int inconclusive_regions = 0;
    double stop_sum = 0.0;
    chatter_cone_work *work = chatter_cone_work_create();
    CU_ASSERT_PTR_NOT_NULL_FATAL(work);
    for (int n = 2; n <= 6; n++) {
        chatter_geometry g;
        chatter_geometry_init(&g, n);
        for (int i = 0; i < 10; i++)
            for (int k = 0; k < 10; k++) {
                double point[CHATTER_PARAM_COUNT];
                make_point(point, n, 0.05 + 0.06 * i, 0.02 + 0.065 * k, 12, 200);
                point[CHATTER_CONE_ROUNDS] = 100;
                point[CHATTER_EARLY_STOP] = 1;
                chatter_region region;
                int rounds;
                double answer = chatter_point_certificate(point, work, &rounds, &region);
                regions[n] += region.edges > 0;
                inconclusive_regions += region.edges > 0 && answer == CHATTER_CONE_INCONCLUSIVE;
                int lifted = 0;
                for (int s = 0; s < 12; s++) {
                    double q[3], p[3];
                    chatter_initial_state(point, (uint64_t)s, q, p);
                    chatter_drop d, after;
                    chatter_drop_reference_certified(&g, point[CHATTER_RHO],
                                                     point[CHATTER_GAMMA], 200, &region, q, p,
                                                     &d);
                    lifted |= d.outcome == CHATTER_ICC;
                    if (!d.certified) {
                        uncertified_cc[n] += region.edges > 0 && d.outcome == CHATTER_CC;
                        continue;
                    }
                    certified[n]++;
                    stop_sum += (double)d.impacts;
                    chatter_drop_reference(&g, point[CHATTER_RHO], point[CHATTER_GAMMA], 10000,
                                           d.q, d.p, &after);
                    CHECK(after.outcome == CHATTER_CC && after.impacts == 10000,
                          "n %d rho %g gamma %g drop %d: certified after %lld impacts, then "
                          "outcome %d after %lld more", n, point[CHATTER_RHO],
                          point[CHATTER_GAMMA], s, (long long)d.impacts, after.outcome,
                          (long long)after.impacts);
                }
                icc_points[n] += lifted;
            }
    }
    chatter_cone_work_free(work);
    /* n = 3: a cone is found only where PCC is possible, so no region (chatter_cone.c) */
    CU_ASSERT_EQUAL(regions[3], 0);
    for (int n = 2; n <= 6; n++)
        if (n != 3)
            CHECK(regions[n] >= 8 && certified[n] >= 80 && icc_points[n] >= 20,
                  "n %d: %d points with a region, %d drops certified, %d points with lift-off "
                  "(the grid must cross the boundary)", n, regions[n], certified[n],
                  icc_points[n]);
    int total = 0;
    for (int n = 2; n <= 6; n++)
        total += certified[n];
    printf("\n    [%d certified drops each simulated 10^4 impacts on, none lifted off; mean "
           "stop at impact %.1f; %d %d %d %d %d CC drops in a region left uncertified; %d "
           "regions where the search was inconclusive]\n    ",
           total, stop_sum / total, uncertified_cc[2], uncertified_cc[3], uncertified_cc[4],
           uncertified_cc[5], uncertified_cc[6], inconclusive_regions);
}

static void test_certified_fractions_match_long_runs(void)
{
    /* Where no drop rests on the cap (p_undecided = 0) the fractions of a run at cap 200
     * with the early stop are the decided classes of its drops: a plain run of the same
     * drops at cap 10^4 must give exactly them, and a plain run of other drops (another
     * seed) must agree within the 95% Wilson intervals. Elsewhere the long run may only
     * move drops from p_cc to p_icc by at most p_undecided (within the intervals). */
    void *ws;
    is_error err;
    CU_ASSERT_EQUAL_FATAL(chatter_workspace_create(&ws, &err), IS_OK);
    int decided = 0, compared = 0, disjoint = 0;
    for (int n = 2; n <= 5; n++)
        for (int i = 0; i < 6; i++)
            for (int k = 0; k < 6; k++) {
                double point[CHATTER_PARAM_COUNT], plain[CHATTER_PARAM_COUNT];
                double other[CHATTER_PARAM_COUNT], a[CHATTER_OUTPUT_COUNT];
                double b[CHATTER_OUTPUT_COUNT], c[CHATTER_OUTPUT_COUNT];
                uint8_t status;
                make_point(point, n, 0.05 + 0.09 * i, 0.02 + 0.1 * k, 100, 200);
                point[CHATTER_CONE_ROUNDS] = 100;
                point[CHATTER_EARLY_STOP] = 1;
                memcpy(plain, point, sizeof plain);
                plain[CHATTER_EARLY_STOP] = 0;
                plain[CHATTER_MAX_IMPACTS] = 10000;
                memcpy(other, plain, sizeof other);
                other[CHATTER_SEED] = 12345;
                CU_ASSERT_EQUAL(chatter_eval_batch(ws, point, 1, a, &status, &err), IS_OK);
                CU_ASSERT_EQUAL(chatter_eval_batch(ws, plain, 1, b, &status, &err), IS_OK);
                CU_ASSERT_EQUAL(chatter_eval_batch(ws, other, 1, c, &status, &err), IS_OK);
                compared++;
                if (a[CHATTER_P_UNDECIDED] == 0.0) {
                    decided++;
                    CHECK(a[CHATTER_P_ICC] == b[CHATTER_P_ICC] &&
                              a[CHATTER_P_CC] == b[CHATTER_P_CC] &&
                              a[CHATTER_P_PCC] == b[CHATTER_P_PCC],
                          "n %d rho %g gamma %g: decided at cap 200 (%g %g %g), cap 10^4 "
                          "(%g %g %g)", n, point[CHATTER_RHO], point[CHATTER_GAMMA],
                          a[CHATTER_P_ICC], a[CHATTER_P_CC], a[CHATTER_P_PCC], b[CHATTER_P_ICC],
                          b[CHATTER_P_CC], b[CHATTER_P_PCC]);
                    for (int o = CHATTER_P_ICC_LO; o <= CHATTER_P_PCC_LO; o += 2)
                        disjoint += a[o + 1] < c[o] || c[o + 1] < a[o];
                } else {
                    CHECK(b[CHATTER_P_ICC] >= a[CHATTER_P_ICC] &&
                              b[CHATTER_P_ICC] <= a[CHATTER_P_ICC] + a[CHATTER_P_UNDECIDED],
                          "n %d rho %g gamma %g: p_icc %g at cap 200 (p_undecided %g), %g at "
                          "10^4", n, point[CHATTER_RHO], point[CHATTER_GAMMA], a[CHATTER_P_ICC],
                          a[CHATTER_P_UNDECIDED], b[CHATTER_P_ICC]);
                }
            }
    /* 95% intervals of independent samples of one fraction overlap far more often than
     * 95% of the time: a handful of disjoint pairs out of ~300 would already be suspect */
    CHECK(decided >= 40 && disjoint <= 2, "%d of %d points decided at cap 200, %d Wilson "
          "intervals disjoint from another seed's at cap 10^4", decided, compared, disjoint);
    chatter_workspace_free(ws);
}

static void test_rod_matrix_is_the_derived_one(void)
{
    /* The derivation of chatter_rod_condition: A = U_0 P(pi) on (p_y, p_z) has trace
     * (1 + gamma)(1 - rho^2)/(1 + rho^2) and determinant gamma. */
    chatter_geometry g;
    chatter_geometry_init(&g, 2);
    for (int i = 1; i < 10; i++)
        for (int k = 1; k < 10; k++) {
            double rho = 0.15 * i, gamma = 0.1 * k, col[2][3];
            for (int e = 0; e < 2; e++) {
                double p[3] = {0.0, e == 0 ? -1.0 : 0.0, e == 1 ? 1.0 : 0.0}; /* P(pi) e_y, e_z */
                chatter_apply_impact(&g, rho, gamma, 0, p);
                memcpy(col[e], p, sizeof p);
            }
            double trace = col[0][1] + col[1][2], det = col[0][1] * col[1][2] - col[1][1] * col[0][2];
            CU_ASSERT_DOUBLE_EQUAL(trace, (1 + gamma) * (1 - rho * rho) / (1 + rho * rho), 1e-14);
            CU_ASSERT_DOUBLE_EQUAL(det, gamma, 1e-14);
        }
}

static void test_rod_condition_matches_long_simulations(void)
{
    /* Point by point on a grid: the exact condition against the outcome of long runs. */
    void *ws;
    is_error err;
    CU_ASSERT_EQUAL_FATAL(chatter_workspace_create(&ws, &err), IS_OK);
    int cc = 0, icc = 0;
    for (int i = 1; i < 25; i++)
        for (int k = 1; k < 25; k++) {
            double point[CHATTER_PARAM_COUNT], out[CHATTER_OUTPUT_COUNT];
            uint8_t status;
            make_point(point, 2, 0.04 * i, 0.04 * k, 30, 3000);
            CU_ASSERT_EQUAL(chatter_eval_batch(ws, point, 1, out, &status, &err), IS_OK);
            int exact = chatter_rod_condition(point[CHATTER_RHO], point[CHATTER_GAMMA]) ==
                        CHATTER_CONE_FOUND;
            CU_ASSERT_EQUAL(out[CHATTER_CONE], exact ? CHATTER_CONE_FOUND : CHATTER_CONE_NONE);
            CHECK(exact ? out[CHATTER_P_CC] == 1.0 : out[CHATTER_P_ICC] == 1.0,
                  "rod rho %g gamma %g: condition says %s, drops p_cc %g p_icc %g",
                  point[CHATTER_RHO], point[CHATTER_GAMMA], exact ? "CC" : "ICC",
                  out[CHATTER_P_CC], out[CHATTER_P_ICC]);
            cc += exact;
            icc += !exact;
        }
    CU_ASSERT_TRUE(cc > 30 && icc > 30);
    chatter_workspace_free(ws);
}

/* --- the uncertainty of the fractions ---------------------------------------------- */

static void test_wilson_against_closed_form(void)
{
    /* z is the two-sided 95% quantile: P(|N(0,1)| > z) = 0.05 */
    CU_ASSERT_DOUBLE_EQUAL(erfc(CHATTER_WILSON_Z / sqrt(2.0)), 0.05, 1e-15);
    static const int64_t ns[] = {1, 2, 7, 20, 100, 1000, 65537, 50000000, 2147483647};
    for (size_t a = 0; a < sizeof ns / sizeof *ns; a++) {
        int64_t n = ns[a];
        int64_t ks[] = {0, 1, 2, n / 3, n / 2, n - 2, n - 1, n};
        for (size_t b = 0; b < sizeof ks / sizeof *ks; b++) {
            int64_t k = ks[b];
            if (k < 0 || k > n)
                continue;
            double lo, hi, ref_lo, ref_hi, mirror_lo, mirror_hi;
            chatter_wilson(k, n, &lo, &hi);
            wilson_textbook((double)k, (double)n, &ref_lo, &ref_hi);
            /* relative to the bound itself, as near 0 the digits matter; the textbook's
             * centre - half cancels, leaving long double's rounding of the centre (~hi) */
            CHECK(fabs(lo - ref_lo) <= 1e-12 * ref_lo + 1e-17 * ref_hi &&
                      fabs(hi - ref_hi) <= 1e-12 * ref_hi,
                  "k %lld n %lld: [%.17g, %.17g], closed form [%.17g, %.17g]", (long long)k,
                  (long long)n, lo, hi, ref_lo, ref_hi);
            double p = (double)k / (double)n;
            CU_ASSERT_TRUE(0.0 <= lo && lo <= p && p <= hi && hi <= 1.0);
            CU_ASSERT_TRUE(lo < hi);
            /* p = 0 and p = 1 are where these maps mostly are: exact ends, honest widths */
            if (k == 0)
                CU_ASSERT_EQUAL(lo, 0.0);
            if (k == n)
                CU_ASSERT_EQUAL(hi, 1.0);
            /* swapping success and failure mirrors the interval */
            chatter_wilson(n - k, n, &mirror_lo, &mirror_hi);
            CU_ASSERT_DOUBLE_EQUAL(lo, 1.0 - mirror_hi, 4 * DBL_EPSILON);
            CU_ASSERT_DOUBLE_EQUAL(hi, 1.0 - mirror_lo, 4 * DBL_EPSILON);
        }
    }
    /* 0 of n: the upper bound is z^2 / (n + z^2) (the "rule of three" at 95%, ~3.84/n) */
    double lo, hi, z2 = CHATTER_WILSON_Z * CHATTER_WILSON_Z;
    chatter_wilson(0, 100, &lo, &hi);
    CU_ASSERT_DOUBLE_EQUAL(hi, z2 / (100.0 + z2), 1e-16);
    chatter_wilson(100, 100, &lo, &hi);
    CU_ASSERT_DOUBLE_EQUAL(lo, 100.0 / (100.0 + z2), 1e-16);
}

static uint64_t splitmix64(uint64_t *state)
{
    uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static void test_wilson_covers_simulated_binomials(void)
{
    /* For each (p, n): the exact coverage P(lo <= p <= hi) summed over the binomial
     * distribution, which must be near 95% (Wilson's oscillates around it), and the
     * coverage of 20000 simulated binomial counts, which must agree with it. */
    static const double cases[][2] = {{0.5, 20},  {0.3, 40},  {0.15, 60},  {0.5, 100},
                                      {0.2, 100}, {0.1, 200}, {0.05, 400}, {0.01, 1000},
                                      {0.0, 100}, {1.0, 100}};
    const int reps = 20000;
    uint64_t state = 2024;
    for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
        double p = cases[c][0];
        int n = (int)cases[c][1];
        double exact = 0.0;
        for (int k = 0; k <= n; k++) {
            double lo, hi;
            chatter_wilson(k, n, &lo, &hi);
            if (!(lo <= p && p <= hi))
                continue;
            double log_pmf = lgamma(n + 1.0) - lgamma(k + 1.0) - lgamma(n - k + 1.0) +
                             (k ? k * log(p) : 0.0) + (n - k ? (n - k) * log1p(-p) : 0.0);
            exact += exp(log_pmf);
        }
        int covered = 0;
        for (int r = 0; r < reps; r++) {
            int k = 0;
            for (int d = 0; d < n; d++)
                k += (double)(splitmix64(&state) >> 11) * 0x1p-53 < p;
            double lo, hi;
            chatter_wilson(k, n, &lo, &hi);
            covered += lo <= p && p <= hi;
        }
        double simulated = (double)covered / reps;
        if (p == 0.0 || p == 1.0) { /* always 0 or always n: the interval reaches the end */
            CU_ASSERT_EQUAL(covered, reps);
            continue;
        }
        double sigma = sqrt(exact * (1.0 - exact) / reps);
        CHECK(exact > 0.93 && exact < 0.97, "p %g n %d: exact coverage %.4f", p, n, exact);
        CHECK(fabs(simulated - exact) < 4.5 * sigma,
              "p %g n %d: simulated coverage %.4f, exact %.4f (sigma %.4f)", p, n, simulated,
              exact, sigma);
    }
}

/* --- bounded work: memory, the stop flag, the cost of a point ------------------------ */

static void test_many_drops_in_a_bounded_window(void)
{
    /* More drops than the reduction window holds (1 << 16), so its slots wrap; and a
     * batch whose first point's drops are 10^5 impacts long while the next point's
     * drops take a few, so the window fills up behind them and lanes wait. Results must
     * stay those of the reference, and of each point evaluated alone. */
    void *ws;
    is_error err;
    CU_ASSERT_EQUAL_FATAL(chatter_workspace_create(&ws, &err), IS_OK);
    double point[CHATTER_PARAM_COUNT], out[CHATTER_OUTPUT_COUNT], ref[CHATTER_OUTPUT_COUNT];
    uint8_t status;
    make_point(point, 4, 0.5, 0.3, 150000, 4);
    CU_ASSERT_EQUAL(chatter_eval_batch(ws, point, 1, out, &status, &err), IS_OK);
    CU_ASSERT_EQUAL(status, IS_POINT_DONE);
    reference_outputs(point, ref);
    for (int o = CHATTER_P_ICC; o <= CHATTER_IMPACTS_MAX; o++)
        CU_ASSERT_EQUAL(out[o], ref[o]);
    CU_ASSERT_DOUBLE_EQUAL(out[CHATTER_TIME_MEAN], ref[CHATTER_TIME_MEAN],
                           1e-13 * ref[CHATTER_TIME_MEAN]);

    double points[2 * CHATTER_PARAM_COUNT], both[2 * CHATTER_OUTPUT_COUNT];
    uint8_t statuses[2];
    make_point(points, 4, 0.3, 0.1, 3, 100000);                       /* CC: 10^5 each */
    make_point(points + CHATTER_PARAM_COUNT, 4, 0.6, 0.3, 200000, 100000); /* ICC: ~3 */
    CU_ASSERT_EQUAL(chatter_eval_batch(ws, points, 2, both, statuses, &err), IS_OK);
    for (int i = 0; i < 2; i++) {
        CU_ASSERT_EQUAL(statuses[i], IS_POINT_DONE);
        CU_ASSERT_EQUAL(chatter_eval_batch(ws, points + i * CHATTER_PARAM_COUNT, 1, out,
                                           &status, &err),
                        IS_OK);
        for (int o = 0; o < CHATTER_OUTPUT_COUNT; o++)
            CU_ASSERT_EQUAL(memcmp(&out[o], &both[o * 2 + i], sizeof(double)), 0);
    }
    CU_ASSERT_EQUAL(both[CHATTER_P_CC * 2], 1.0);
    CU_ASSERT_EQUAL(both[CHATTER_P_ICC * 2 + 1], 1.0);
    chatter_workspace_free(ws);
}

static double seconds_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* The stop flag as the engine sets it: from a signal handler (here SIGALRM, armed with
 * setitimer), which also records when. */
static volatile sig_atomic_t alarm_flag;
static double alarm_at;

static void on_alarm(int signo)
{
    (void)signo;
    alarm_at = seconds_now(); /* clock_gettime is async-signal-safe */
    alarm_flag = 1;
}

static void test_stop_flag_already_set(void)
{
    /* max_impacts = 10^9 of complete chatter: 100 drops would run ~15 minutes. With the
     * flag up the batch returns at once, everything pending and not computed (NaN); the
     * workspace then computes as if it were fresh. */
    void *ws, *fresh;
    is_error err;
    CU_ASSERT_EQUAL_FATAL(chatter_workspace_create(&ws, &err), IS_OK);
    CU_ASSERT_EQUAL_FATAL(chatter_workspace_create(&fresh, &err), IS_OK);
    volatile sig_atomic_t flag = 1;
    chatter_workspace_watch(ws, &flag);
    double points[2 * CHATTER_PARAM_COUNT], out[2 * CHATTER_OUTPUT_COUNT];
    uint8_t status[2];
    make_point(points, 4, 0.3, 0.1, 100, 1000000000);
    make_point(points + CHATTER_PARAM_COUNT, 3, 0.3, 0.1, 100, 1000000000);
    double started = seconds_now();
    CU_ASSERT_EQUAL(chatter_eval_batch(ws, points, 2, out, status, &err), IS_OK);
    CHECK(seconds_now() - started < 1.0, "took %.3f s with the stop flag set",
          seconds_now() - started);
    for (int i = 0; i < 2; i++) {
        CU_ASSERT_EQUAL(status[i], IS_POINT_PENDING);
        for (int o = 0; o < CHATTER_OUTPUT_COUNT; o++)
            CU_ASSERT_TRUE(isnan(out[o * 2 + i]));
    }
    flag = 0;
    double point[CHATTER_PARAM_COUNT], a[CHATTER_OUTPUT_COUNT], b[CHATTER_OUTPUT_COUNT];
    uint8_t sa, sb;
    make_point(point, 4, 0.3, 0.1, 300, 500);
    point[CHATTER_CONE_ROUNDS] = 100;
    CU_ASSERT_EQUAL(chatter_eval_batch(ws, point, 1, a, &sa, &err), IS_OK);
    CU_ASSERT_EQUAL(chatter_eval_batch(fresh, point, 1, b, &sb, &err), IS_OK);
    CU_ASSERT_EQUAL(sa, IS_POINT_DONE);
    CU_ASSERT_EQUAL(sb, IS_POINT_DONE);
    CU_ASSERT_EQUAL(memcmp(a, b, sizeof a), 0);
    chatter_workspace_watch(ws, NULL); /* back to never stopping */
    CU_ASSERT_EQUAL(chatter_eval_batch(ws, point, 1, a, &sa, &err), IS_OK);
    CU_ASSERT_EQUAL(memcmp(a, b, sizeof a), 0);
    chatter_workspace_free(ws);
    chatter_workspace_free(fresh);
}

static void test_stop_flag_set_while_running(void)
{
    /* A batch of a quick point (lift-off after a few impacts whatever the budget), a
     * 10^9-impact complete-chatter point and a point of another n; a signal handler sets
     * the flag after 0.2 s, as the engine's does. The call returns promptly after that;
     * the quick point is done (and the same as alone), the others pending. */
    void *ws;
    is_error err;
    CU_ASSERT_EQUAL_FATAL(chatter_workspace_create(&ws, &err), IS_OK);
    alarm_flag = 0;
    alarm_at = 0.0;
    chatter_workspace_watch(ws, &alarm_flag);
    double points[3 * CHATTER_PARAM_COUNT], out[3 * CHATTER_OUTPUT_COUNT];
    uint8_t status[3];
    make_point(points, 4, 0.6, 0.3, 100, 1000000000);
    make_point(points + CHATTER_PARAM_COUNT, 4, 0.3, 0.1, 100, 1000000000);
    make_point(points + 2 * CHATTER_PARAM_COUNT, 3, 0.3, 0.1, 100, 1000000000);
    struct sigaction action, previous;
    memset(&action, 0, sizeof action);
    action.sa_handler = on_alarm;
    sigemptyset(&action.sa_mask);
    CU_ASSERT_EQUAL_FATAL(sigaction(SIGALRM, &action, &previous), 0);
    struct itimerval in_200ms = {{0, 0}, {0, 200000}};
    CU_ASSERT_EQUAL_FATAL(setitimer(ITIMER_REAL, &in_200ms, NULL), 0);
    CU_ASSERT_EQUAL(chatter_eval_batch(ws, points, 3, out, status, &err), IS_OK);
    double returned = seconds_now();
    sigaction(SIGALRM, &previous, NULL);
    CU_ASSERT_TRUE(alarm_at > 0.0);
    /* measured: tens of microseconds (a round of the kernel); 1 s leaves room for a busy CI */
    CHECK(returned - alarm_at < 1.0, "returned %.6f s after the flag was set",
          returned - alarm_at);
    CU_ASSERT_EQUAL(status[0], IS_POINT_DONE);
    CU_ASSERT_EQUAL(status[1], IS_POINT_PENDING);
    CU_ASSERT_EQUAL(status[2], IS_POINT_PENDING);
    CU_ASSERT_TRUE(isnan(out[CHATTER_P_CC * 3 + 1]) && isnan(out[CHATTER_TIME_MEAN * 3 + 2]));
    double alone[CHATTER_OUTPUT_COUNT];
    uint8_t one;
    alarm_flag = 0;
    CU_ASSERT_EQUAL(chatter_eval_batch(ws, points, 1, alone, &one, &err), IS_OK);
    CU_ASSERT_EQUAL(one, IS_POINT_DONE);
    for (int o = 0; o < CHATTER_OUTPUT_COUNT; o++)
        CU_ASSERT_EQUAL(memcmp(&alone[o], &out[o * 3], sizeof(double)), 0);
    chatter_workspace_free(ws);
}

static void test_validate_bounds_the_cost_of_a_point(void)
{
    double point[CHATTER_PARAM_COUNT];
    is_error err;
    make_point(point, 4, 0.3, 0.1, 1000000, 1000000); /* exactly 10^12 impacts */
    CU_ASSERT_EQUAL(is_model_chatter.validate(point, &err), IS_OK);
    point[CHATTER_MAX_IMPACTS] = 1000001;
    CU_ASSERT_EQUAL(is_model_chatter.validate(point, &err), IS_PARAM);
    CHECK(strstr(err.message, "samples") && strstr(err.message, "max_impacts"),
          "the message names neither samples nor max_impacts: %s", err.message);
    make_point(point, 4, 0.3, 0.1, 100, 1000000000); /* the long drops of the stop tests */
    CU_ASSERT_EQUAL(is_model_chatter.validate(point, &err), IS_OK);
    make_point(point, 4, 0.3, 0.1, 2147483647, 2147483647);
    CU_ASSERT_EQUAL(is_model_chatter.validate(point, &err), IS_PARAM);
}

/* --- the physical checks --------------------------------------------------------------- */

static void test_checks_pass_everywhere(void)
{
    /* No false alarms: points across n, tiny and large rho, gamma near 0 and 1, short
     * and long budgets are all done (none FAILED_CHECK). */
    static const int ns[] = {2, 3, 4, 5, 8, 64};
    static const double rhos[] = {1e-6, 0.05, 0.3, 1.0, 30.0};
    static const double gammas[] = {1e-9, 0.1, 0.5, 0.999999};
    void *ws;
    is_error err;
    CU_ASSERT_EQUAL_FATAL(chatter_workspace_create(&ws, &err), IS_OK);
    for (size_t a = 0; a < sizeof ns / sizeof *ns; a++)
        for (size_t b = 0; b < sizeof rhos / sizeof *rhos; b++)
            for (size_t c = 0; c < sizeof gammas / sizeof *gammas; c++) {
                double point[CHATTER_PARAM_COUNT], out[CHATTER_OUTPUT_COUNT];
                uint8_t status;
                make_point(point, ns[a], rhos[b], gammas[c], 40, c % 2 ? 3000 : 200);
                point[CHATTER_CONE_ROUNDS] = b % 2 ? 0 : 30;
                point[CHATTER_PERTURBATION] = c % 2 ? 0.5 : 0.1;
                CU_ASSERT_EQUAL(chatter_eval_batch(ws, point, 1, out, &status, &err), IS_OK);
                CHECK(status == IS_POINT_DONE, "n %d rho %g gamma %g: status %d (%s)", ns[a],
                      rhos[b], gammas[c], status, chatter_check_result(point, out, 1, 1));
            }
    chatter_workspace_free(ws);
}

static void test_checks_catch_nonsense(void)
{
    /* A sound result passes; each kind of nonsense, planted in turn, is caught. */
    void *ws;
    is_error err;
    CU_ASSERT_EQUAL_FATAL(chatter_workspace_create(&ws, &err), IS_OK);
    double point[CHATTER_PARAM_COUNT], good[CHATTER_OUTPUT_COUNT], bad[CHATTER_OUTPUT_COUNT];
    uint8_t status;
    make_point(point, 3, 0.5, 0.2, 200, 300); /* a mix of outcomes: every field matters */
    point[CHATTER_CONE_ROUNDS] = 50;
    CU_ASSERT_EQUAL(chatter_eval_batch(ws, point, 1, good, &status, &err), IS_OK);
    CU_ASSERT_EQUAL_FATAL(status, IS_POINT_DONE);
    CU_ASSERT_PTR_NULL(chatter_check_result(point, good, 1, 1));
    CU_ASSERT_PTR_NOT_NULL(chatter_check_result(point, good, 1, 0)); /* energy rose */
    struct {
        int output;
        double value;
    } plants[] = {
        {CHATTER_P_ICC, NAN},           {CHATTER_P_ICC, good[CHATTER_P_ICC] + 0.01},
        {CHATTER_P_CC, -0.0001},        {CHATTER_P_PCC, 1.5},
        {CHATTER_IMPACTS_MEAN, INFINITY}, {CHATTER_IMPACTS_MEAN, good[CHATTER_IMPACTS_MAX] + 1},
        {CHATTER_IMPACTS_MEAN, 0.5},    {CHATTER_IMPACTS_MAX, 301},
        {CHATTER_IMPACTS_MAX, 2.5},     {CHATTER_TIME_MEAN, -1e-9},
        {CHATTER_TIME_MEAN, NAN},       {CHATTER_REGIME, 4},
        {CHATTER_REGIME, NAN},          {CHATTER_CONE, NAN},
        {CHATTER_CONE, 1.5},            {CHATTER_CONE_ROUNDS_USED, 51},
        {CHATTER_P_ICC_LO, -1e-3},      {CHATTER_P_CC_HI, 1.01},
        {CHATTER_P_PCC_LO, NAN},        {CHATTER_P_CC_LO, good[CHATTER_P_CC] + 1e-3},
        {CHATTER_P_ICC_HI, good[CHATTER_P_ICC] - 1e-3},
        {CHATTER_P_FLAT, 0.01},         {CHATTER_P_FLAT_HI, NAN},
        {CHATTER_P_FLAT_LO, -1e-3},     {CHATTER_REGIME, 3}, /* flat, not the most frequent */
    };
    for (size_t k = 0; k < sizeof plants / sizeof *plants; k++) {
        memcpy(bad, good, sizeof bad);
        bad[plants[k].output] = plants[k].value;
        CHECK(chatter_check_result(point, bad, 1, 1) != NULL,
              "output %d = %g was not caught", plants[k].output, plants[k].value);
    }
    /* the regime must be the most frequent outcome */
    memcpy(bad, good, sizeof bad);
    bad[CHATTER_REGIME] = bad[CHATTER_REGIME] == 0.0 ? 1.0 : 0.0;
    CU_ASSERT_PTR_NOT_NULL(chatter_check_result(point, bad, 1, 1));
    /* the rod cannot be PCC; its certificate is always there */
    make_point(point, 2, 0.4, 0.2, 100, 200);
    CU_ASSERT_EQUAL(chatter_eval_batch(ws, point, 1, good, &status, &err), IS_OK);
    CU_ASSERT_EQUAL(status, IS_POINT_DONE);
    CU_ASSERT_EQUAL(good[CHATTER_P_PCC_LO], 0.0);
    CU_ASSERT_EQUAL(good[CHATTER_P_PCC_HI], 0.0);
    memcpy(bad, good, sizeof bad);
    bad[CHATTER_P_PCC_HI] = 0.03;
    CU_ASSERT_PTR_NOT_NULL(chatter_check_result(point, bad, 1, 1));
    memcpy(bad, good, sizeof bad);
    bad[CHATTER_CONE] = NAN;
    CU_ASSERT_PTR_NOT_NULL(chatter_check_result(point, bad, 1, 1));
    /* strided, as in a batch: output o of point i at outputs[o * count + i] */
    double strided[3 * CHATTER_OUTPUT_COUNT];
    for (int o = 0; o < CHATTER_OUTPUT_COUNT; o++)
        for (int i = 0; i < 3; i++)
            strided[o * 3 + i] = i == 1 ? good[o] : NAN;
    CU_ASSERT_PTR_NULL(chatter_check_result(point, strided + 1, 3, 1));
    chatter_workspace_free(ws);
}

void suite_chatter(void)
{
    CU_pSuite s = CU_add_suite("chatter", NULL, NULL);
    CU_add_test(s, "vertices on the unit circle, mirror symmetric, snapped",
                test_geometry_unit_circle_and_mirror);
    CU_add_test(s, "m_ij touches vertices i and j only", test_geometry_pair_directions);
    CU_add_test(s, "impact: restitution, exact energy loss, impulse along f_j",
                test_impact_restitution_energy_impulse);
    CU_add_test(s, "energy never grows along drops", test_energy_never_grows_along_drops);
    CU_add_test(s, "initial states: ranges, determinism, rod",
                test_initial_state_ranges_and_determinism);
    CU_add_test(s, "rod: 3-D map agrees with the two-end formulation",
                test_rod_two_formulations);
    CU_add_test(s, "rod at rho = 1 bounces each end once",
                test_rod_rho_one_bounces_each_end_once);
    CU_add_test(s, "mirror symmetry of drops is exact", test_mirror_symmetry_is_exact);
    CU_add_test(s, "batch kernel equals the scalar reference", test_kernel_matches_reference);
    CU_add_test(s, "batch composition does not change results",
                test_batch_composition_does_not_matter);
    CU_add_test(s, "10^4 impacts stay in normal numbers", test_long_chatter_stays_normal);
    CU_add_test(s, "PCC's gate separates PCC from CC", test_pcc_gate_separates_cleanly);
    CU_add_test(s, "PCC is decided early, and the drop ends", test_pcc_is_decided_early);
    CU_add_test(s, "PCC velocity test on constructed states",
                test_pcc_velocity_on_constructed_states);
    CU_add_test(s, "a found cone means no drop escapes", test_cone_found_means_no_drop_escapes);
    CU_add_test(s, "found cones are invariant under the dynamics",
                test_cone_is_invariant_under_the_dynamics);
    CU_add_test(s, "certified drops never lift off in 10^4 more impacts, n = 2 .. 6",
                test_certified_drops_never_lift_off);
    CU_add_test(s, "certified fractions at cap 200 are those of plain runs at cap 10^4",
                test_certified_fractions_match_long_runs);
    CU_add_test(s, "rod: U_0 P(pi) has the derived trace and determinant",
                test_rod_matrix_is_the_derived_one);
    CU_add_test(s, "rod: exact condition agrees with long simulations",
                test_rod_condition_matches_long_simulations);
    CU_add_test(s, "Wilson intervals equal their closed form", test_wilson_against_closed_form);
    CU_add_test(s, "Wilson intervals cover simulated binomials at 95%",
                test_wilson_covers_simulated_binomials);
    CU_add_test(s, "drops beyond the reduction window, lanes waiting behind long drops",
                test_many_drops_in_a_bounded_window);
    CU_add_test(s, "a stop flag already set leaves the batch pending",
                test_stop_flag_already_set);
    CU_add_test(s, "a stop flag set by a signal while running ends the batch promptly",
                test_stop_flag_set_while_running);
    CU_add_test(s, "validate bounds samples * max_impacts",
                test_validate_bounds_the_cost_of_a_point);
    CU_add_test(s, "the physical checks pass at extreme parameters", test_checks_pass_everywhere);
    CU_add_test(s, "the physical checks catch planted nonsense", test_checks_catch_nonsense);
}
