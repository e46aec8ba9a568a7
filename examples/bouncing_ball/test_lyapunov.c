/* test_lyapunov.c: the bouncing ball's `lyapunov` against its exact impact map (plain
 * checks, exit 1 on a failure).
 *
 * The exact map (no high-bounce approximation: the model's flight is the exact parabola):
 * from an impact at t_n leaving with velocity v_n, the next impact is at the first root
 * t_{n+1} = t_n + s of F = Gamma sin t_n + v_n s - s^2 / 2 - Gamma sin(t_n + s), and the
 * ball leaves it with v_{n+1} = (1 + r) Gamma cos t_{n+1} - r (v_n - s). Its Jacobian,
 * by implicit differentiation (F_x the partial derivatives):
 *     dt_{n+1} = -(F_tn dt_n + F_vn dv_n) / F_t{n+1},
 *     dv_{n+1} = -(1 + r) Gamma sin t_{n+1} dt_{n+1} - r dv_n + r (dt_{n+1} - dt_n),
 * with F_tn = Gamma cos t_n - v_n + s, F_vn = s, F_t{n+1} = v_n - s - Gamma cos t_{n+1}.
 * On the period-1 orbit (s = 2 pi, v_n = pi, Gamma cos(phi) = pi (1 - r)/(1 + r)) the
 * exponent of the flow is log(max |mu|) / (2 pi), mu the eigenvalues of that 2x2 matrix.
 * The test checks its own matrix against central differences of the map (its impact
 * times solved by Newton's method), then the model's `lyapunov` started on the orbit at
 * 4 values of Gamma across the stable band, for r = 0.5 and 0.7, within 1e-3 relative;
 * and points of the chaotic band of r = 0.5 (Gamma 1.7 to 1.8, between periodic
 * windows): a positive exponent, larger than its spread. */
#include <complex.h>
#include <math.h>
#include <stdio.h>

#include "test_ball.h"

/* The exact map from (t, v) just after an impact, the flight's root from s0 by Newton. */
static void impact_map(double G, double r, double t, double v, double s0, double *t1, double *v1)
{
    double s = s0;
    for (int k = 0; k < 50; k++) {
        double F = G * sin(t) + v * s - 0.5 * s * s - G * sin(t + s);
        double dF = v - s - G * cos(t + s);
        s -= F / dF;
    }
    *t1 = t + s;
    *v1 = (1.0 + r) * G * cos(t + s) - r * (v - s);
}

/* The map's Jacobian at (t, v) with flight s, by implicit differentiation. */
static void map_jacobian(double G, double r, double t, double v, double s, double J[2][2])
{
    double t1 = t + s, Ft = G * cos(t) - v + s, Fv = s, Ft1 = v - s - G * cos(t1);
    double dt_dt = -Ft / Ft1, dt_dv = -Fv / Ft1, a = -(1.0 + r) * G * sin(t1);
    J[0][0] = dt_dt;
    J[0][1] = dt_dv;
    J[1][0] = a * dt_dt + r * (dt_dt - 1.0);
    J[1][1] = a * dt_dv - r + r * dt_dv;
}

static double largest_modulus(double J[2][2])
{
    double tr = J[0][0] + J[1][1], det = J[0][0] * J[1][1] - J[0][1] * J[1][0];
    double complex root = csqrt(tr * tr - 4.0 * det + 0.0 * I);
    return fmax(cabs(0.5 * (tr + root)), cabs(0.5 * (tr - root)));
}

/* The point (Gamma, r) started at t = 0 on the period-1 orbit (as test_bouncing_ball). */
static void on_orbit(double *p, double gamma, double r, double periods)
{
    double phi = acos(M_PI * (1.0 - r) / (1.0 + r) / gamma), s = 2.0 * M_PI - phi;
    p[GAMMA] = gamma, p[R] = r;
    p[X0] = gamma * sin(phi) + M_PI * s - 0.5 * s * s;
    p[V0] = M_PI - s;
    p[PERIODS] = periods;
    p[SECTION_N] = 64;
    p[SECTION_AT] = 0;
}

int main(void)
{
    static const double rs[] = {0.5, 0.7}, shares[] = {0.08, 0.35, 0.65, 0.98};
    /* the chaotic band of r = 0.5 past the period-doubling cascade (Gamma_c 1.527; chaos
     * from about 1.705; from about 1.762 the ball is caught by sticking at times: -inf) */
    static const double chaotic[] = {1.72, 1.735, 1.75};
    enum { NS = 8, NC = 3, N = NS + NC };
    double points[N * PARAMS], out[N * VALUES], expected[NS];
    uint8_t status[N];
    double worst = 0.0, worst_fd = 0.0;
    if (tables_differ())
        return 1;
    int n = 0;
    for (int i = 0; i < 2; i++)
        for (int j = 0; j < 4; j++, n++) {
            double r = rs[i], w = M_PI * (1.0 - r) / (1.0 + r);
            double lo = w, b = 2.0 * (1.0 + r * r) / ((1.0 + r) * (1.0 + r));
            double hi = sqrt(w * w + b * b), G = lo + shares[j] * (hi - lo);
            double phi = acos(w / G), J[2][2], t1, v1, Jd[2][2];
            map_jacobian(G, r, phi, M_PI, 2.0 * M_PI, J);
            /* the test's own check: the orbit is fixed, the matrix the map's derivative */
            impact_map(G, r, phi, M_PI, 2.0 * M_PI, &t1, &v1);
            check(fabs(t1 - phi - 2.0 * M_PI) < 1e-12 && fabs(v1 - M_PI) < 1e-12,
                  "the period-1 orbit is the map's fixed point", v1, M_PI);
            for (int c = 0; c < 2; c++) {
                double h = 1e-6, tp, vp, tm, vm;
                impact_map(G, r, phi + (c ? 0 : h), M_PI + (c ? h : 0), 2 * M_PI, &tp, &vp);
                impact_map(G, r, phi - (c ? 0 : h), M_PI - (c ? h : 0), 2 * M_PI, &tm, &vm);
                Jd[0][c] = (tp - tm) / (2 * h), Jd[1][c] = (vp - vm) / (2 * h);
            }
            for (int a = 0; a < 2; a++)
                for (int c = 0; c < 2; c++)
                    worst_fd = fmax(worst_fd, fabs(Jd[a][c] - J[a][c]));
            expected[n] = log(largest_modulus(J)) / (2.0 * M_PI);
            on_orbit(points + n * PARAMS, G, r, 6000);
        }
    check(worst_fd < 1e-7, "the map's Jacobian against central differences", worst_fd, 0);
    for (int k = 0; k < NC; k++, n++)
        on_orbit(points + n * PARAMS, chaotic[k], 0.5, 2000);
    is_error err;
    if (bouncing_ball_model.eval_batch(NULL, points, N, out, status, &err) != IS_OK) {
        printf("FAILED: eval_batch\n");
        return 1;
    }
    for (int k = 0; k < N; k++) {
        const double *p = points + k * PARAMS;
        double got = out[LYAPUNOV * N + k], spread = out[LYAPUNOV_ERROR * N + k];
        check(status[k] == IS_POINT_DONE, "status", status[k], IS_POINT_DONE);
        if (k < NS) {
            double rel = fabs(got - expected[k]) / fabs(expected[k]);
            printf("Gamma %.6f r %.1f: lyapunov %.9f, exact %.9f (relative %.2g), spread %.2g\n",
                   p[GAMMA], p[R], got, expected[k], rel, spread);
            worst = fmax(worst, rel);
            check(rel <= 1e-3, "lyapunov on the period-1 orbit", got, expected[k]);
            check(out[PERIOD * N + k] == 1, "still on the period-1 orbit", out[PERIOD * N + k], 1);
        } else {
            printf("Gamma %.3f r 0.5 (chaotic band): lyapunov %.6f, spread %.2g, regime %g\n",
                   p[GAMMA], got, spread, out[REGIME * N + k]);
            check(got > 0.0 && got > 4.0 * spread, "a positive exponent in the chaotic band",
                  got, spread);
        }
    }
    printf("%d points on the period-1 orbit: lyapunov within %.2g (relative) of "
           "log(max |mu|) / (2 pi); %d in the chaotic band positive\n", NS, worst, NC);
    if (failures)
        printf("%d checks FAILED\n", failures);
    return failures != 0;
}
