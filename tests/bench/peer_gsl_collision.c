/* peer_gsl_collision.c: the collision benchmark as a researcher writes it by hand with GSL
 * (the peer of bench_collision in issue 13), independent of impactsweep's code. The
 * nondimensional Bouc-Wen Simon-Hunt-Crossley law (MODELS.md sec. 2, eq. 14):
 *   X' = V,  Z' = A (V - pi2 |Z|^(n-1) Z |V| - pi3 |Z|^n V),
 *   V' = F = -alpha |X|^(p-1) X - (1 - alpha) |Z|^(p-1) Z - pi1 |X|^p V,
 * X(0) = Z(0) = 0, V(0) = -1, integrated by gsl_odeiv2 rk8pd under an adaptive step
 * control; separation (the first T with F <= 0 and V >= 0) is located by bisection on the
 * step that crossed it, and e = V there. Usage: peer_gsl_collision [evaluations reps].
 * Prints the error in e against the reference and CoR evaluations per second (of wall-clock
 * time, the median of the repeats, and of this thread's CPU time, for a shared machine). */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#include <gsl/gsl_errno.h>
#include <gsl/gsl_odeiv2.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

typedef struct {
    double pi1, pi2, pi3, n, p, alpha, A;
} law;

/* The bench point of issue 13 and its reference e (impactsweep's two integrators at
 * rtol 1e-11, which agree to ~1e-12). */
static const law bench = {0.5, 1.0, 0.5, 1.0, 1.5, 0.5, 1.0};
static const double e_reference = 0.563854447752242;
/* Step-control tolerances: the loosest power of ten that keeps |error in e| < 1e-8 here
 * (1.2e-9 at 1e-8; 1.5e-7 at 1e-7). The bisection stops at a bracket of 1e-6 in T: V is
 * flat at separation (F = V' = 0), so e is then exact to ~1e-12. */
static const double eps_abs = 1e-8, eps_rel = 1e-8, bracket = 1e-6;

static double force(const law *m, const double y[3])
{
    double x = y[0], z = y[1], v = y[2];
    return -m->alpha * pow(fabs(x), m->p - 1) * x - (1 - m->alpha) * pow(fabs(z), m->p - 1) * z
           - m->pi1 * pow(fabs(x), m->p) * v;
}

static int rhs(double t, const double y[], double dydt[], void *params)
{
    (void)t;
    const law *m = params;
    double z = y[1], v = y[2];
    dydt[0] = v;
    dydt[1] = m->A * (v - m->pi2 * pow(fabs(z), m->n - 1) * z * fabs(v)
                      - m->pi3 * pow(fabs(z), m->n) * v);
    dydt[2] = force(m, y);
    return GSL_SUCCESS;
}

static int separated(const law *m, const double y[3])
{
    return force(m, y) <= 0 && y[2] >= 0;
}

/* The coefficient of restitution of one impact; 0 if the bodies are still in contact at
 * T = 100. */
static double cor(law *m, gsl_odeiv2_step *step, gsl_odeiv2_control *control,
                  gsl_odeiv2_evolve *evolve)
{
    gsl_odeiv2_system sys = {rhs, NULL, 3, m};
    double t = 0, h = 1e-3, y[3] = {0, 0, -1};
    gsl_odeiv2_step_reset(step);
    gsl_odeiv2_evolve_reset(evolve);
    while (t < 100) {
        double t0 = t, y0[3] = {y[0], y[1], y[2]};
        if (gsl_odeiv2_evolve_apply(evolve, control, step, &sys, &t, 100, &h, y) != GSL_SUCCESS)
            return NAN;
        if (!separated(m, y))
            continue;
        /* Bisection on [t0, t]: [lo, hi] brackets the first separated time. */
        double lo = 0, hi = t - t0, ym[3], err[3];
        while (hi - lo > bracket) {
            double mid = 0.5 * (lo + hi);
            for (int k = 0; k < 3; k++)
                ym[k] = y0[k];
            gsl_odeiv2_step_apply(step, t0, mid, ym, err, NULL, NULL, &sys);
            if (separated(m, ym)) {
                hi = mid;
                for (int k = 0; k < 3; k++)
                    y[k] = ym[k];
            } else {
                lo = mid;
            }
        }
        return y[2];
    }
    return 0;
}

static double now(clockid_t clock)
{
    struct timespec ts;
    clock_gettime(clock, &ts);
    return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
    int count = argc > 1 ? atoi(argv[1]) : 2000, reps = argc > 2 ? atoi(argv[2]) : 5;
    if (count < 1 || reps < 1 || reps > 100)
        return 2;
    law m = bench;
    gsl_odeiv2_step *step = gsl_odeiv2_step_alloc(gsl_odeiv2_step_rk8pd, 3);
    gsl_odeiv2_control *control = gsl_odeiv2_control_y_new(eps_abs, eps_rel);
    gsl_odeiv2_evolve *evolve = gsl_odeiv2_evolve_alloc(3);
    double rates[100], cpu_rates[100], e = 0;
    for (int r = 0; r < reps; r++) {
        double start = now(CLOCK_MONOTONIC), cpu = now(CLOCK_THREAD_CPUTIME_ID);
        for (int i = 0; i < count; i++)
            e = cor(&m, step, control, evolve);
        rates[r] = count / (now(CLOCK_MONOTONIC) - start);
        cpu_rates[r] = count / (now(CLOCK_THREAD_CPUTIME_ID) - cpu);
    }
    qsort(rates, (size_t)reps, sizeof *rates, by_value);
    qsort(cpu_rates, (size_t)reps, sizeof *cpu_rates, by_value);
    printf("GSL peer (rk8pd, eps_abs = eps_rel = %.0e, separation by bisection to %.0e): "
           "e = %.15f, |error in e| %.2e\n", eps_abs, bracket, e, fabs(e - e_reference));
    printf("CoR evaluations per second per core: median %.4g (min %.4g, max %.4g over %d "
           "runs of %d); %.4g per second of CPU time\n", rates[reps / 2], rates[0],
           rates[reps - 1], reps, count, cpu_rates[reps / 2]);
    gsl_odeiv2_evolve_free(evolve);
    gsl_odeiv2_control_free(control);
    gsl_odeiv2_step_free(step);
    return 0;
}
