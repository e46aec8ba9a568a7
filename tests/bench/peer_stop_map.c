/* peer_stop_map.c: the stop oscillator's regime map (jobs/stop_regime_map.ini) computed
 * the way a researcher would write it in a day, as the yardstick of issue 27: an
 * event-driven simulation on the same closed-form flows (the two modes of COD, CD as one
 * harmonic oscillator, libm's sin and cos), safe steps to each contact (x1 - s cannot
 * reach 0 before the root of its quadratic bound: the modal bound of |x1''|; moving in,
 * the linear guess tried as a bracket), Brent's method to 1e-12 on the bracket, and the
 * model's rules and tolerances (the contact band 64 DBL_EPSILON (s + a1 + a2)): rebounds
 * v1 -> -eps v1; a Zeno reset when the tail 2 |v1| / ((1 - eps) F1) is below 1e-3 / w2 or
 * the excursion v1^2 / (2 F1) below 1e-12 s; an arrival at rest below 1e-7 of the speed
 * scale with x2 = x2t widened by 1e-6; two rebound-free contact cycles: periodic; a rebound
 * and the energy below the sticking level: impacting; a1 + a2 < s: free; else undecided.
 * The 2-phase orbits with t_cod <= orbit_t_max are searched once per k12 (the outer loop:
 * they do not depend on epsilon) with the model's equation: the branch function sampled 64
 * times between poles, bisection, a check by simulating 10 periods.
 *
 * Usage: peer_stop_map [K12_COUNT EPS_COUNT [T_END [ORBIT_T_MAX]]] (default 200 200 500
 * 20: the job at 200 x 200). Prints the points, the CPU seconds, the mean rebound count
 * (impactsweep's `info` gives its own), the regimes and the orbit count. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

typedef struct { double k, k12, s, eps, w1, w2, wshm, x2t, x2eq; } sys_t;
typedef struct { double x1, v1, x2, v2; } state;

static sys_t make_sys(double k, double k12, double s, double eps)
{
    sys_t y = {k, k12, s, eps, sqrt(k), sqrt(k + 2 * k12), sqrt(k + k12), (k + k12) * s / k12,
               k12 * s / (k + k12)};
    return y;
}

static double energy(const sys_t *y, const state *x)
{
    double d = x->x1 - x->x2;
    return 0.5 * (x->v1 * x->v1 + x->v2 * x->v2) +
           0.5 * (y->k * x->x1 * x->x1 + y->k12 * d * d + y->k * x->x2 * x->x2);
}

/* COD from x0 after time t (modes u = (x1 + x2) / 2 at w1, w = (x1 - x2) / 2 at w2). */
static state cod(const sys_t *y, const state *x0, double t)
{
    double u = 0.5 * (x0->x1 + x0->x2), du = 0.5 * (x0->v1 + x0->v2);
    double w = 0.5 * (x0->x1 - x0->x2), dw = 0.5 * (x0->v1 - x0->v2);
    double c1 = cos(y->w1 * t), s1 = sin(y->w1 * t), c2 = cos(y->w2 * t), s2 = sin(y->w2 * t);
    double ut = u * c1 + du / y->w1 * s1, dut = du * c1 - u * y->w1 * s1;
    double wt = w * c2 + dw / y->w2 * s2, dwt = dw * c2 - w * y->w2 * s2;
    state x = {ut + wt, dut + dwt, ut - wt, dut - dwt};
    return x;
}

/* CD from x after time t. */
static state cd(const sys_t *y, const state *x, double t)
{
    double X = x->x2 - y->x2eq, c = cos(y->wshm * t), s = sin(y->wshm * t);
    state o = {y->s, 0.0, y->x2eq + X * c + x->v2 / y->wshm * s, x->v2 * c - X * y->wshm * s};
    return o;
}

/* When CD from x falls back to x2t with v2 < 0. */
static double cd_exit(const sys_t *y, const state *x)
{
    double X = x->x2 - y->x2eq, Xt = y->x2t - y->x2eq, R = hypot(X, x->v2 / y->wshm);
    if (R <= Xt)
        return 0.0;
    double phase = fmod(atan2(x->v2 / y->wshm, X) + acos(Xt / R), 2 * M_PI);
    if (phase < 0)
        phase += 2 * M_PI;
    if (phase <= 1e-15)
        phase += 2 * M_PI;
    return phase / y->wshm;
}

static double gap(const sys_t *y, const state *x0, double t)
{
    return cod(y, x0, t).x1 - y->s;
}

/* Brent's method for the root of gap in [a, b], gap(a) < 0 <= gap(b), to tol. */
static double brent(const sys_t *y, const state *x0, double a, double b, double tol)
{
    double fa = gap(y, x0, a), fb = gap(y, x0, b), c = a, fc = fa, d = b - a, e = d;
    for (int it = 0; it < 200; it++) {
        if ((fb > 0) == (fc > 0)) {
            c = a, fc = fa, d = e = b - a;
        }
        if (fabs(fc) < fabs(fb)) {
            a = b, b = c, c = a;
            fa = fb, fb = fc, fc = fa;
        }
        double m = 0.5 * (c - b), t = 2e-16 * fabs(b) + 0.5 * tol;
        if (fabs(m) <= t || fb == 0)
            return b;
        if (fabs(e) >= t && fabs(fa) > fabs(fb)) {
            double s = fb / fa, p, q;
            if (a == c) {
                p = 2 * m * s, q = 1 - s;
            } else {
                double qq = fa / fc, r = fb / fc;
                p = s * (2 * m * qq * (qq - r) - (b - a) * (r - 1));
                q = (qq - 1) * (r - 1) * (s - 1);
            }
            if (p > 0) q = -q; else p = -p;
            if (2 * p < fmin(3 * m * q - fabs(t * q), fabs(e * q))) {
                e = d, d = p / q;
            } else {
                d = m, e = d;
            }
        } else {
            d = m, e = d;
        }
        a = b, fa = fb;
        b += fabs(d) > t ? d : (m > 0 ? t : -t);
        fb = gap(y, x0, b);
    }
    return b;
}

/* The first contact of COD from x0 within horizon: 1 with *t_hit, else 0. Safe steps: with
 * |x1''| <= M (the modes' bound), x1 - s stays below 0 until g + v h + M h^2 / 2 = 0. Moving
 * in, once the linear guess of the contact is within two safe steps, twice the guess is
 * tried as a bracket's end; a bracket goes to Brent. */
static int contact(const sys_t *y, const state *x0, double horizon, double *t_hit)
{
    double u = 0.5 * (x0->x1 + x0->x2), du = 0.5 * (x0->v1 + x0->v2);
    double w = 0.5 * (x0->x1 - x0->x2), dw = 0.5 * (x0->v1 - x0->v2);
    double a1 = hypot(u, du / y->w1), a2 = hypot(w, dw / y->w2);
    if (a1 + a2 < y->s)
        return 0;
    double M = y->w1 * y->w1 * a1 + y->w2 * y->w2 * a2, band = 64 * 2.2e-16 * (y->s + a1 + a2);
    double t = 0, g = x0->x1 - y->s, v = x0->v1;
    int away = g < -band;
    for (;;) {
        double g0 = away ? g : fmin(g, 0.0) - band; /* leave the stop's band first */
        double h = fmax((-v + sqrt(v * v - 2 * M * g0)) / M, 1e-13);
        /* near a crossing the bound's steps shrink geometrically: try the bracket */
        if (away && v > 0 && -g / v <= 2 * h && t - 2 * g / v < horizon) {
            double tb = t - 2 * g / v;
            if (gap(y, x0, tb) >= 0) {
                *t_hit = brent(y, x0, t, tb, 1e-12);
                return 1;
            }
        }
        if (t + h > horizon)
            h = horizon - t;
        state x = cod(y, x0, t + h);
        double gn = x.x1 - y->s;
        if (away && gn >= 0) {
            *t_hit = brent(y, x0, t, t + h, 1e-12);
            return 1;
        }
        t += h;
        g = gn, v = x.v1;
        if (g > -band && (away || v > 0)) { /* at the stop, moving in */
            *t_hit = t;
            return 1;
        }
        away |= g < -band;
        if (t >= horizon)
            return 0;
    }
}

typedef struct {
    long rebounds, resets, contacts;
    int regime; /* 0 free, 1 periodic, 2 impacting, 4 undecided */
    double energy;
} result;

static int sticks(const sys_t *y, const state *x, double slack)
{
    return x->x2 > y->x2t + slack || (x->x2 >= y->x2t - slack && x->v2 > 0);
}

/* One run from x to t_end (max_rebounds < 0: no budget; 0: fail at the first). */
static result simulate(const sys_t *y, state x, double t_end, long max_rebounds, int keep)
{
    result r = {0, 0, 0, 4, 0};
    double e0 = energy(y, &x), v_rest = 1e-7 * sqrt(2 * e0), slack = 1e-6 * (y->x2t + y->s);
    state at = {y->s, 0, fmax(y->x2t - slack, y->x2eq), 0};
    double e_stick = energy(y, &at), t = 0;
    int in_contact = x.x1 >= y->s && x.v1 == 0 && sticks(y, &x, 0), events = 0, clean = 0;
    int below = e0 < e_stick, failed = 0;
    double a1 = hypot(0.5 * (x.x1 + x.x2), 0.5 * (x.v1 + x.v2) / y->w1);
    double a2 = hypot(0.5 * (x.x1 - x.x2), 0.5 * (x.v1 - x.v2) / y->w2);
    if (!in_contact && x.x1 < y->s && a1 + a2 < y->s) {
        r.regime = 0, r.energy = e0;
        return r;
    }
    while (t < t_end) {
        if (in_contact) {
            r.contacts++;
            double exit = cd_exit(y, &x), dt = fmin(exit, t_end - t);
            x = cd(y, &x, dt), t += dt;
            if (exit >= t_end - t + dt)
                break;
            x.x2 = y->x2t, in_contact = 0;
            clean = events == 0 ? clean + 1 : 0, events = 0;
            if (clean >= 2 && !keep)
                break;
            continue;
        }
        double th;
        if (!contact(y, &x, t_end - t, &th)) {
            x = cod(y, &x, t_end - t), t = t_end;
            break;
        }
        x = cod(y, &x, th), t += th, x.x1 = y->s;
        if (x.v1 > v_rest) { /* a rebound */
            if (max_rebounds >= 0 && r.rebounds >= max_rebounds) {
                failed = 1;
                break;
            }
            x.v1 *= -y->eps, r.rebounds++, events++;
            below |= energy(y, &x) < e_stick;
            double F1 = -(y->k + y->k12) * y->s + y->k12 * x.x2;
            if (F1 > 0) {
                double tail = 2 * fabs(x.v1) / ((1 - y->eps) * F1);
                if (tail * y->w2 < 1e-3 || x.v1 * x.v1 / (2 * F1) < 1e-12 * y->s) {
                    tail = fmin(tail, t_end - t);
                    x.v1 = 0, x = cd(y, &x, tail), t += tail, r.resets++;
                    below |= energy(y, &x) < e_stick;
                    in_contact = sticks(y, &x, 0);
                }
            }
        } else { /* arrived at rest */
            x.v1 = 0;
            below |= energy(y, &x) < e_stick;
            in_contact = sticks(y, &x, slack);
        }
    }
    r.energy = energy(y, &x);
    r.regime = failed ? 3 : clean >= 2 ? 1 : below && r.rebounds > 0 ? 2 : 4;
    return r;
}

static double branch(const sys_t *y, double tau)
{
    return (y->s + y->x2t) * y->w1 * tan(y->w1 * tau) -
           (y->x2t - y->s) * y->w2 * tan(y->w2 * tau);
}

/* A root tau of the branch function in [lo, hi] gives an orbit if v < 0, the COD phase
 * returns to the stop at 2 tau, and 10 periods simulate without a rebound. */
static int orbit_at(const sys_t *y, double lo, double hi)
{
    double flo = branch(y, lo);
    for (int i = 0; i < 200 && hi - lo > 4e-16 * hi; i++) {
        double mid = 0.5 * (lo + hi), fm = branch(y, mid);
        if ((fm < 0) == (flo < 0))
            lo = mid, flo = fm;
        else
            hi = mid;
    }
    double tau = 0.5 * (lo + hi), v = (y->s + y->x2t) * y->w1 * tan(y->w1 * tau);
    if (!(fabs(branch(y, tau)) < 1e-6 * (1 + fabs(v)) && v < 0))
        return 0;
    state x0 = {y->s, 0, y->x2t, v}, back = {y->s, 0, y->x2t, -v};
    double th;
    if (!contact(y, &x0, 3 * tau, &th) || fabs(th - 2 * tau) > 1e-4 * (1 + 2 * tau))
        return 0;
    double period = 2 * tau + cd_exit(y, &back);
    result r = simulate(y, x0, 10 * period, 0, 1);
    return r.regime != 3 && r.rebounds == 0 && r.resets == 0 && r.contacts >= 10 &&
           fabs(r.energy - energy(y, &x0)) <= 1e-9 * energy(y, &x0);
}

/* The number of 2-phase orbits with t_cod <= t_max. */
static int orbits(const sys_t *y, double t_max)
{
    int found = 0;
    double a = 0, tau_max = 0.5 * t_max;
    for (long j1 = 0, j2 = 0; a < tau_max;) {
        double p1 = (0.5 + j1) * M_PI / y->w1, p2 = (0.5 + j2) * M_PI / y->w2;
        double b = fmin(fmin(p1, p2), tau_max), span = b - a, margin = 1e-9 * span;
        j1 += p1 <= b, j2 += p2 <= b;
        double prev_tau = a + margin, prev = branch(y, prev_tau);
        for (int k = 1; span > 1e-12 * (1 + b) && k <= 64; k++) {
            double tau = k == 64 ? b - margin : a + span * k / 64, value = branch(y, tau);
            if ((value < 0) != (prev < 0) && isfinite(value) && isfinite(prev))
                found += orbit_at(y, prev_tau, tau);
            prev = value, prev_tau = tau;
        }
        a = b;
    }
    return found;
}

static double cpu_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

int main(int argc, char **argv)
{
    int nk = argc > 2 ? atoi(argv[1]) : 200, ne = argc > 2 ? atoi(argv[2]) : 200;
    double t_end = argc > 3 ? atof(argv[3]) : 500, t_max = argc > 4 ? atof(argv[4]) : 20;
    if (nk < 2 || ne < 2 || !(t_end > 0) || !(t_max >= 0)) {
        fprintf(stderr, "usage: peer_stop_map [K12_COUNT EPS_COUNT [T_END [ORBIT_T_MAX]]]\n");
        return 2;
    }
    double start = cpu_seconds(), rebounds = 0;
    long regimes[5] = {0}, with_orbits = 0;
    for (int i = 0; i < nk; i++) {
        /* the job's axes as the engine computes them (src/core/job/grid.c) */
        double r = nk - 1 - i, s = i;
        double k12 = i == 0 ? 0.2 : i == nk - 1 ? 10 : exp((r * log(0.2) + s * log(10.0)) / (nk - 1));
        sys_t y0 = make_sys(1, k12, 1, 0.5);
        with_orbits += t_max > 0 && orbits(&y0, t_max) > 0;
        for (int j = 0; j < ne; j++) {
            double eps = j == 0 ? 0.05 : j == ne - 1 ? 0.95
                                                     : ((ne - 1 - j) * 0.05 + j * 0.95) / (ne - 1);
            sys_t y = make_sys(1, k12, 1, eps);
            state x0 = {0, 0, 3, 0};
            result res = simulate(&y, x0, t_end, 1000000, 0);
            rebounds += res.rebounds;
            regimes[res.regime]++;
        }
    }
    double took = cpu_seconds() - start;
    printf("peer: %d points in %.3f s of CPU (%.4g points per CPU second); rebounds mean %.6g; "
           "regimes free %ld periodic %ld impacting %ld failed %ld undecided %ld; k12 values "
           "with orbits %ld of %d\n",
           nk * ne, took, nk * ne / took, rebounds / (nk * ne), regimes[0], regimes[1],
           regimes[2], regimes[3], regimes[4], with_orbits, nk);
    return 0;
}
