/* bench_collision.c: coefficient-of-restitution evaluations per second on one core for
 * the collision model, and the accuracy reached, for one law and tolerance, with each
 * integrator. The reference e comes from both integrators at rtol 1e-11 (which agree to
 * ~1e-12). Usage: bench_collision [law rtol evaluations reps] (law: bwshc, bwm, ...). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_util.h"
#include "core/job.h"
#include "models/collision/collision.h"

/* The benchmark point of issue 3, with the law, integrator and tolerance given. */
static void make_point(double *point, const char *law, const char *integrator, double rtol)
{
    const is_model *m = &is_model_collision;
    for (size_t p = 0; p < m->param_count; p++)
        point[p] = m->params[p].default_value;
    is_error err;
    char tol[32];
    snprintf(tol, sizeof tol, "%.17g", rtol);
    if (is_job_parse_param_value(m, "bench", "law", law, &point[COLLISION_LAW], &err) ||
        is_job_parse_param_value(m, "bench", "integrator", integrator,
                                 &point[COLLISION_INTEGRATOR], &err) ||
        is_job_parse_param_value(m, "bench", "rtol", tol, &point[COLLISION_RTOL], &err)) {
        fprintf(stderr, "bench_collision: %s\n", err.message);
        exit(2);
    }
    point[COLLISION_ATOL] = rtol * 1e-2;
    point[COLLISION_PI1] = 0.5;
    point[COLLISION_PI2] = 1.0;
    point[COLLISION_PI3] = 0.5;
    point[COLLISION_N] = 1.0;
    point[COLLISION_P] = 1.5;
    point[COLLISION_ALPHA] = 0.5;
    point[COLLISION_A] = 1.0;
}

int main(int argc, char **argv)
{
    const char *law = argc > 1 ? argv[1] : "bwshc";
    double rtol = argc > 2 ? atof(argv[2]) : 1e-8;
    size_t count = argc > 3 ? (size_t)atol(argv[3]) : 20000;
    int reps = argc > 4 ? atoi(argv[4]) : 5;
    if (count < 1 || reps < 1 || reps > 100)
        return 2;
    const char *integrators[] = {"cvode", "dopri5"};
    double *points = malloc(count * COLLISION_PARAM_COUNT * sizeof *points);
    double *out = malloc(count * COLLISION_OUTPUT_COUNT * sizeof *out);
    uint8_t *status = malloc(count);
    void *ws;
    is_error err;
    if (!points || !out || !status || collision_workspace_create(&ws, &err) != IS_OK)
        return 1;
    double reference[2];
    for (int k = 0; k < 2; k++) {
        make_point(points, law, integrators[k], 1e-11);
        collision_eval_batch(ws, points, 1, out, status, &err);
        reference[k] = out[COLLISION_COR];
    }
    double e_ref = 0.5 * (reference[0] + reference[1]);
    printf("collision %s: reference e = %.15f (cvode and dopri5 at rtol 1e-11 differ by %.1e)\n",
           law, e_ref, fabs(reference[0] - reference[1]));
    for (int k = 0; k < 2; k++) {
        for (size_t i = 0; i < count; i++)
            make_point(points + i * COLLISION_PARAM_COUNT, law, integrators[k], rtol);
        double rates[100];
        for (int r = 0; r < reps; r++) {
            double start = bench_now_seconds();
            collision_eval_batch(ws, points, count, out, status, &err);
            rates[r] = (double)count / (bench_now_seconds() - start);
        }
        bench_median(rates, (size_t)reps);
        printf("  %-7s rtol %.0e: %8.4g evaluations/s per core (median of %d), |error in e| "
               "%.2e, %g steps\n",
               integrators[k], rtol, rates[reps / 2], reps, fabs(out[COLLISION_COR] - e_ref),
               out[COLLISION_STEPS * count]);
    }
    collision_workspace_free(ws);
    free(points);
    free(out);
    free(status);
    return 0;
}
