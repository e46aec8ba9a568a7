/* bench_collision.c: coefficient-of-restitution evaluations per second on one core for
 * the collision model, and the error in e reached, next to issue 13's aims: CVODE,
 * DOPRI5 one point per batch (one lane busy, as a point-by-point integrator runs), and
 * DOPRI5 in lanes (a batch of points side by side), on the bench point (bwshc pi1 = 0.5,
 * pi2 = 1, pi3 = 0.5, n = 1, p = 1.5, alpha = 0.5, A = 1) and with general exponents
 * (p = 1.7, n = 1.3, which need the general power). The reference e of each point comes
 * from both integrators at rtol 1e-11 (which agree to ~1e-12). Rates are per second of
 * the process's CPU time, so that a machine shared with other work (the load of other
 * processes takes wall time, not CPU time) still gives the figure of one core.
 * Usage: bench_collision [law rtol evaluations reps [which [pair]]] (law: bwshc, bwm, ...;
 * which: all, or lanes for the DOPRI5 lanes alone, e.g. to profile them, or
 * lanes-bench, lanes-general for one of the two points; pair: dopri5 (the default) or
 * dop853, the lanes' Runge-Kutta pair). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_util.h"
#include "core/job/job.h"
#include "models/collision/collision.h"

/* The aims for the lanes, in CoR/s per core at an error in e below 1e-8. */
#define AIM_BENCH_POINT 2.5e5
#define AIM_GENERAL 1e5

/* The benchmark point with the law, integrator, tolerance and exponents given. */
static void make_point(double *point, const char *law, const char *integrator, double rtol,
                       double p, double n)
{
    const is_model *m = &is_model_collision;
    for (size_t k = 0; k < m->param_count; k++)
        point[k] = m->params[k].default_value;
    is_error err;
    char tol[32];
    snprintf(tol, sizeof tol, "%.17g", rtol);
    if (is_job_parse_param_value(m, "bench", "law", law, &point[COLLISION_LAW], &err) ||
        is_job_parse_param_value(m, "bench", "integrator", integrator, &point[COLLISION_INTEGRATOR],
                                 &err) ||
        is_job_parse_param_value(m, "bench", "rtol", tol, &point[COLLISION_RTOL], &err)) {
        fprintf(stderr, "bench_collision: %s\n", err.message);
        exit(2);
    }
    point[COLLISION_ATOL] = rtol * 1e-2;
    point[COLLISION_PI1] = 0.5;
    point[COLLISION_PI2] = 1.0;
    point[COLLISION_PI3] = 0.5;
    point[COLLISION_N] = n;
    point[COLLISION_P] = p;
    point[COLLISION_ALPHA] = 0.5;
    point[COLLISION_A] = 1.0;
}

typedef struct bench {
    void *ws;
    double *points, *out;
    uint8_t *status;
    size_t count;
    int reps;
} bench;

static double cpu_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Median evaluations per second of CPU time over the reps, evaluated `per_batch` points per call
 * (the outputs of the last call's first point stay in b->out). */
__attribute__((noinline)) static double measure(bench *b, size_t per_batch, double *e,
                                                double *steps)
{
    double rates[100];
    is_error err;
    for (int r = 0; r < b->reps; r++) {
        double start = cpu_seconds();
        for (size_t i = 0; i < b->count; i += per_batch) {
            size_t n = b->count - i < per_batch ? b->count - i : per_batch;
            collision_eval_batch(b->ws, b->points + i * COLLISION_PARAM_COUNT, n, b->out, b->status,
                                 &err);
            if (i == 0) {
                *e = b->out[COLLISION_COR * n];
                *steps = b->out[COLLISION_STEPS * n];
            }
        }
        rates[r] = (double)b->count / (cpu_seconds() - start);
    }
    bench_median(rates, (size_t)b->reps);
    return rates[b->reps / 2];
}

/* One point (law, p, n) with each way of integrating it. */
static void run_point(bench *b, const char *law, double rtol, double p, double n, double aim,
                      int lanes_only, const char *pair)
{
    double reference[2];
    is_error err;
    const char *integrators[] = {"cvode", "dopri5"};
    for (int k = 0; k < 2; k++) {
        make_point(b->points, law, integrators[k], 1e-11, p, n);
        collision_eval_batch(b->ws, b->points, 1, b->out, b->status, &err);
        reference[k] = b->out[COLLISION_COR];
    }
    double e_ref = 0.5 * (reference[0] + reference[1]);
    printf("collision %s p = %g, n = %g: reference e = %.15f (cvode and dopri5 at rtol 1e-11 "
           "differ by %.1e)\n",
           law, p, n, e_ref, fabs(reference[0] - reference[1]));
    const struct {
        const char *label, *integrator;
        size_t per_batch;
    } ways[] = {{"cvode", "cvode", 1},
                {"dopri5, 1 point a batch", "dopri5", 1},
                {strcmp(pair, "dopri5") == 0 ? "dopri5 lanes" : "dop853 lanes", pair, b->count}};
    for (int w = lanes_only ? 2 : 0; w < 3; w++) {
        for (size_t i = 0; i < b->count; i++)
            make_point(b->points + i * COLLISION_PARAM_COUNT, law, ways[w].integrator, rtol, p, n);
        double e = NAN, steps = NAN;
        size_t count = b->count;
        if (w == 0) /* CVODE is ~100 times slower: a twentieth of the points */
            b->count = count / 20 > 0 ? count / 20 : 1;
        double rate = measure(b, ways[w].per_batch, &e, &steps);
        b->count = count;
        double error = fabs(e - e_ref);
        /* "general" in the line names its aim for tests/bench/bench.sh */
        char label[64];
        snprintf(label, sizeof label, "%s%s", ways[w].label, aim == AIM_GENERAL ? ", general" : "");
        printf(
            "  %-33s rtol %.0e: %9.4g CoR/s per core (CPU time, median of %d), |error in e| %.2e, "
            "%g steps",
            label, rtol, rate, b->reps, error, steps);
        if (w == 2)
            printf("; aim >= %.2g at error < 1e-8: %s", aim,
                   rate >= aim && error < 1e-8 ? "met" : "NOT met");
        printf("\n");
    }
}

int main(int argc, char **argv)
{
    const char *law = argc > 1 ? argv[1] : "bwshc";
    double rtol = argc > 2 ? atof(argv[2]) : 1e-8;
    bench b = {0};
    b.count = argc > 3 ? (size_t)atol(argv[3]) : 20000;
    b.reps = argc > 4 ? atoi(argv[4]) : 5;
    const char *which = argc > 5 ? argv[5] : "all";
    const char *pair = argc > 6 && strcmp(argv[6], "dop853") == 0 ? "dop853" : "dopri5";
    int lanes_only = strncmp(which, "lanes", 5) == 0;
    if (b.count < 1 || b.reps < 1 || b.reps > 100)
        return 2;
    b.points = malloc(b.count * COLLISION_PARAM_COUNT * sizeof *b.points);
    b.out = malloc(b.count * COLLISION_OUTPUT_COUNT * sizeof *b.out);
    b.status = malloc(b.count);
    is_error err;
    if (!b.points || !b.out || !b.status || collision_workspace_create(&b.ws, &err) != IS_OK)
        return 1;
    if (strcmp(which, "lanes-general") != 0)
        run_point(&b, law, rtol, 1.5, 1.0, AIM_BENCH_POINT, lanes_only, pair);
    if (strcmp(which, "lanes-bench") != 0)
        run_point(&b, law, rtol, 1.7, 1.3, AIM_GENERAL, lanes_only, pair);
    collision_workspace_free(b.ws);
    free(b.points);
    free(b.out);
    free(b.status);
    return 0;
}
