/* test_bouncing_ball.c: the bouncing-ball plug-in against theory (plain checks, exit 1 on
 * a failure). The period-1 orbit, one impact every forcing period: the ball leaves the
 * table with velocity pi (a flight of 2 pi returns it to the same table height, so
 * u 2 pi - (2 pi)^2 / 2 = 0), arrives at u - 2 pi = -pi, and the impact law
 * u_out - w = -r (u_in - w) with the table's velocity w = Gamma cos(phi) gives
 * w = pi (1 - r)/(1 + r): impacts at the phase phi with Gamma cos(phi) = pi (1 - r)/(1 + r)
 * and the relative impact speed pi + w = 2 pi / (1 + r). It exists for
 * Gamma > pi (1 - r)/(1 + r) and is stable up to
 * sqrt((pi (1 - r)/(1 + r))^2 + (2 (1 + r^2)/(1 + r)^2)^2) (the impact map's trace
 * reaching -(1 + r^2)), on the branch with sin(phi) > 0 (the table moving up and
 * slowing down). Checked: started on that orbit the impacts come at phi + 2 pi k (the
 * event locator against exact event times), perturbed inside the band the run locks onto
 * it with that speed, just beyond the band it does not, below Gamma = 1 the ball sticks
 * for ever, and a point's result is the same bits alone and in a batch. The sections
 * (test_sections): on the orbit in the band one value, period 1; just past its flip,
 * found from the exact impact map's Jacobian, two values, period 2. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "test_ball.h"

#define COUNT 64

/* The bounds of the stable period-1 band at restitution r. */
static double band_low(double r)
{
    return M_PI * (1.0 - r) / (1.0 + r);
}

static double band_high(double r)
{
    double a = band_low(r), b = 2.0 * (1.0 + r * r) / ((1.0 + r) * (1.0 + r));
    return sqrt(a * a + b * b);
}

/* The point (Gamma, r) started at t = 0 on the period-1 orbit (x0 shifted by dx): in
 * flight since its last impact at phi - 2 pi, s = 2 pi - phi ago. */
static void on_orbit(double *p, double gamma, double r, double dx)
{
    double phi = acos(band_low(r) / gamma), s = 2.0 * M_PI - phi;
    p[GAMMA] = gamma;
    p[R] = r;
    p[X0] = gamma * sin(phi) + M_PI * s - 0.5 * s * s + dx;
    p[V0] = M_PI - s;
    p[PERIODS] = 300;
    p[SECTION_N] = 64;
    p[SECTION_AT] = 0;
}

static void evaluate(const double *points, size_t n, double *out, uint8_t *status)
{
    is_error err;
    if (bouncing_ball_model.eval_batch(NULL, points, n, out, status, &err) != IS_OK) {
        printf("FAILED: eval_batch\n");
        failures++;
    }
}

/* The exact impact map, (phase, lift-off velocity) of one impact to the next: the flight
 * Gamma sin(phi) + u s - s^2 / 2 meets the table Gamma sin(phi + s) first at s (scanned in
 * steps of 1e-3, bisected to rounding), the ball arrives at u - s and leaves at
 * w + r (w - u + s), w = Gamma cos(phi + s). */
static void impact_map(double gamma, double r, double phi, double u, double *phi1, double *u1)
{
    double lo = 1e-3, hi = lo;
    while (gamma * sin(phi) + u * hi - 0.5 * hi * hi - gamma * sin(phi + hi) > 0.0)
        lo = hi, hi += 1e-3;
    for (int k = 0; k < 200 && hi - lo > 4e-16 * hi; k++) {
        double mid = 0.5 * (lo + hi);
        if (gamma * sin(phi) + u * mid - 0.5 * mid * mid - gamma * sin(phi + mid) > 0.0)
            lo = mid;
        else
            hi = mid;
    }
    double s = 0.5 * (lo + hi), w = gamma * cos(phi + s);
    *phi1 = phi + s - 2.0 * M_PI; /* (the period-1 orbit's phase again) */
    *u1 = w + r * (w - u + s);
}

/* 1 + trace + det of the impact map's Jacobian at the period-1 orbit (phase phi with
 * Gamma cos(phi) = pi (1 - r)/(1 + r), sin(phi) > 0; lift-off velocity pi), by central
 * differences of the exact map: 0 where an eigenvalue is -1, the orbit's flip. */
static double flip_margin(double gamma, double r)
{
    double phi = acos(band_low(r) / gamma), u = M_PI, h = 1e-6, J[2][2];
    for (int j = 0; j < 2; j++) {
        double a[2], b[2];
        impact_map(gamma, r, phi + (j == 0) * h, u + (j == 1) * h, &a[0], &a[1]);
        impact_map(gamma, r, phi - (j == 0) * h, u - (j == 1) * h, &b[0], &b[1]);
        for (int i = 0; i < 2; i++)
            J[i][j] = (a[i] - b[i]) / (2.0 * h);
    }
    return 1.0 + J[0][0] + J[1][1] + J[0][0] * J[1][1] - J[0][1] * J[1][0];
}

/* The flip's Gamma_c at r: bisection of flip_margin between the band's low end (the
 * margin 2 (1 + r^2) > 0 there) and 10 (beyond it). */
static double gamma_flip(double r)
{
    double lo = band_low(r) * (1.0 + 1e-9), hi = 10.0;
    for (int k = 0; k < 100 && hi - lo > 1e-12; k++) {
        double mid = 0.5 * (lo + hi);
        if (flip_margin(mid, r) > 0.0)
            lo = mid;
        else
            hi = mid;
    }
    return 0.5 * (lo + hi);
}

/* The sections (section_n = 64: periods up to 32): on the period-1 orbit at 4 values of
 * Gamma in the band for r = 0.5 and 0.7, the stroboscopic and the impact section one value
 * to 1e-7 (spread), period 1; at 1.02 Gamma_c, from near the orbit, period 2 and two
 * values, both sections; the same with section_n = 2 finds no period (up to 1 only). */
/* The distinct values among an array output's finite ones (to tol of the largest), and how
 * many are finite, NaN ones all before them (-1 if not). */
static int distinct_values(const double *v, int length, double tol, int *finite)
{
    int distinct = 0, first = length;
    double scale = 0.0;
    for (int j = length - 1; j >= 0 && !isnan(v[j]); j--)
        first = j, scale = fmax(scale, fabs(v[j]));
    for (int j = 0; j < first; j++)
        if (!isnan(v[j]))
            return -1;
    for (int j = first; j < length; j++) {
        int seen = 0;
        for (int q = first; q < j; q++)
            seen |= fabs(v[q] - v[j]) <= tol * scale;
        distinct += !seen;
    }
    *finite = length - first;
    return distinct;
}

static void test_sections(void)
{
    static const double rs[] = {0.5, 0.7}, shares[] = {0.1, 0.35, 0.6, 0.85};
    enum { STABLE = 2 * 4 * 2, N = STABLE + 2 * 3 };
    double points[N * PARAMS], out[N * VALUES], worst_flip = 0.0, worst_spread = 0.0;
    double doubled_spread = INFINITY;
    uint8_t status[N];
    size_t n = 0;
    for (size_t i = 0; i < 2; i++) {
        double lo = band_low(rs[i]), gc = gamma_flip(rs[i]);
        worst_flip = fmax(worst_flip, fabs(gc - band_high(rs[i])) / gc);
        check(fabs(gc - band_high(rs[i])) <= 1e-7 * gc, "the flip from the map's Jacobian",
              gc, band_high(rs[i]));
        for (size_t j = 0; j < 4; j++)
            for (int at = 0; at < 2; at++) {
                double *p = points + n++ * PARAMS;
                on_orbit(p, lo + shares[j] * (gc - lo), rs[i], 0.0);
                p[SECTION_AT] = at;
            }
    }
    for (size_t i = 0; i < 2; i++)
        for (int k = 0; k < 3; k++) { /* stroboscopic, impact, stroboscopic with N = 2 */
            double *p = points + n++ * PARAMS;
            on_orbit(p, 1.02 * gamma_flip(rs[i]), rs[i], 1e-6);
            p[PERIODS] = 2000;
            p[SECTION_AT] = k == 1;
            p[SECTION_N] = k == 2 ? 2 : 64;
        }
    evaluate(points, n, out, status);
    for (size_t k = 0; k < n; k++) {
        double period = out[SECTION_PERIOD * n + k], values = out[SECTION_VALUES * n + k];
        double spread = out[SECTION_SPREAD * n + k];
        int finite = 0, kept = k >= STABLE && (k - STABLE) % 3 == 2 ? 2 : 64;
        int array = distinct_values(out + SECTION * n + k * 64, 64, 1e-7, &finite);
        check(status[k] == IS_POINT_DONE, "status", status[k], IS_POINT_DONE);
        check(finite == kept, "the array section's last section_n samples kept", finite, kept);
        check(array == (int)values, "the array section's distinct values", array, values);
        if (k < STABLE) {
            worst_spread = fmax(worst_spread, spread);
            check(period == 1 && values == 1, "one section value on the period-1 orbit", values, 1);
            check(spread <= 1e-7, "the section's spread on the period-1 orbit", spread, 1e-7);
        } else if ((k - STABLE) % 3 < 2) {
            doubled_spread = fmin(doubled_spread, spread);
            check(period == 2 && values == 2, "period 2 just past the flip", period, 2);
            check(spread > 1e-3, "two distinct values past the flip", spread, 1e-3);
        } else {
            check(isnan(period) && values == 2, "no period above section_n / 2", period, NAN);
        }
    }
    printf("sections: Gamma_c from the impact map's Jacobian within %.2g (relative) of the "
           "closed form; %d points on the period-1 orbit: one section value, spread <= %.2g; "
           "at 1.02 Gamma_c period 2, spread >= %.3g\n",
           worst_flip, STABLE, worst_spread, doubled_spread);
}

int main(void)
{
    if (tables_differ())
        return 1;
    static const double rs[] = {0.2, 0.35, 0.5, 0.65, 0.8, 0.9};
    static const double shares[] = {0.05, 0.3, 0.6, 0.9};
    double points[COUNT * PARAMS], out[COUNT * VALUES], alone[VALUES];
    uint8_t status[COUNT], st;
    size_t n = 0;
    for (size_t i = 0; i < sizeof rs / sizeof *rs; i++)
        for (size_t j = 0; j < sizeof shares / sizeof *shares; j++) {
            double lo = band_low(rs[i]), hi = band_high(rs[i]);
            on_orbit(points + n++ * PARAMS, lo + shares[j] * (hi - lo), rs[i], 1e-6);
        }
    size_t in_band = n;
    /* exactly on the orbit: the impacts at phi + 2 pi k */
    for (size_t i = 0; i < sizeof rs / sizeof *rs; i++)
        on_orbit(points + n++ * PARAMS, 0.5 * (band_low(rs[i]) + band_high(rs[i])),
                 rs[i], 0.0);
    size_t exact = n;
    for (size_t i = 0; i < sizeof rs / sizeof *rs; i++) /* just beyond the band */
        on_orbit(points + n++ * PARAMS, 1.03 * band_high(rs[i]), rs[i], 1e-6);
    size_t beyond = n;
    for (size_t i = 0; i < 3; i++) { /* below Gamma = 1: stuck for ever */
        double *p = points + n++ * PARAMS;
        p[GAMMA] = 0.3 + 0.3 * i, p[R] = 0.5, p[X0] = 1.0 + i, p[V0] = 0.0, p[PERIODS] = 50;
        p[SECTION_N] = 64, p[SECTION_AT] = 0;
    }
    size_t below = n;
    /* long runs through many chatters ending in sticking (issue 30: the impacts' times
     * reached their rounding and the ball went through the table, impact speeds of 1e5):
     * the speed stays within the energy's bound, U + Gamma < 12 here, or the point fails */
    for (size_t i = 0; i < 2; i++) {
        double *p = points + n++ * PARAMS;
        p[GAMMA] = i ? 3.9 : 2.65, p[R] = 0.5, p[X0] = 0.5, p[V0] = 3.0, p[PERIODS] = 3000;
        p[SECTION_N] = 64, p[SECTION_AT] = 1;
    }
    evaluate(points, n, out, status);
    double worst_speed = 0.0, worst_phase = 0.0;
    for (size_t k = 0; k < n; k++) {
        const double *p = points + k * PARAMS;
        double speed = out[SPEED * n + k], phase = out[PHASE * n + k];
        check(status[k] == IS_POINT_DONE, "status", status[k], IS_POINT_DONE);
        check(out[FAILURE * n + k] == 0 && isnan(out[T_FAILURE * n + k]), "no failure",
              out[FAILURE * n + k], 0);
        if (k < exact) {
            double expected = 2.0 * M_PI / (1.0 + p[R]), phi = acos(band_low(p[R]) / p[GAMMA]);
            check(out[REGIME * n + k] == 0 && out[PERIOD * n + k] == 1, "period-1 locking",
                  out[PERIOD * n + k], 1);
            worst_speed = fmax(worst_speed, fabs(speed - expected) / expected);
            check(fabs(speed - expected) <= 1e-9 * expected, "impact speed 2 pi / (1 + r)", speed,
                  expected);
            if (k >= in_band) {
                worst_phase = fmax(worst_phase, fabs(phase - phi));
                check(fabs(phase - phi) <= 1e-11, "impact phase on the exact orbit", phase, phi);
            }
        } else if (k < beyond) {
            check(out[PERIOD * n + k] != 1, "no period-1 locking beyond the band",
                  out[PERIOD * n + k], 2);
        } else if (k < below) {
            check(out[REGIME * n + k] == 1, "stuck for ever below Gamma = 1",
                  out[REGIME * n + k], 1);
        } else {
            check(fabs(speed) <= 12.0 && out[IMPACTS * n + k] > 1000,
                  "long chatters: impact speed within the energy's bound", speed, 12.0);
        }
        evaluate(p, 1, alone, &st);
        int same = st == status[k];
        for (int o = 0; o < VALUES; o++) { /* the scalars, then the array's 64 values */
            double a = alone[o];
            double b = o < SECTION ? out[o * n + k] : out[SECTION * n + k * 64 + (o - SECTION)];
            same &= (isnan(a) && isnan(b)) || !memcmp(&a, &b, sizeof a);
        }
        check(same, "the same bits alone and in the batch", (double)k, (double)k);
    }
    printf("%zu points in the period-1 band: impact speed within %.2g (relative) of 2 pi / (1 + r); "
           "%zu started on the orbit: impact phases within %.2g rad of phi; %zu beyond the band "
           "not locked on it; %zu below Gamma = 1 stuck; %zu long chatters within the speed bound\n",
           exact, worst_speed, exact - in_band, worst_phase, beyond - exact, below - beyond,
           n - below);
    test_sections();
    if (failures)
        printf("%d checks FAILED\n", failures);
    return failures != 0;
}
