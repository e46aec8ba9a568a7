/* bench_stop.c: rebounds simulated per second on one core by the stop oscillator's exact
 * event-driven simulation, in two regimes: Zeno sequences simulated rebound by rebound
 * (the paper's Theorem 1 states, with the reset held back until the excursions reach
 * rounding level) and long impacting runs at high restitution. Measured through
 * eval_batch (the lanes, stop_lanes.c: what a sweep runs), each figure next to the aim of
 * issue 13, and one point at a time through stop_simulate (the scalar path, which the
 * trace uses) for comparison. The same points as before the lanes. Median of repeats.
 * Per core is per second of this thread's CPU time (on a machine shared with other work,
 * wall time counts theirs too); the wall-clock figure is printed beside it. */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "bench_util.h"
#include "models/stop_oscillator/stop_oscillator.h"

enum { RUNS = 2000, MAX_REPS = 100 };

static double cpu_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

typedef struct workload {
    const char *name;
    double k12, epsilon, t_end, zeno_tail, aim;
    int runs;
    double points[RUNS][STOP_PARAM_COUNT];
} workload;

static void point_at(workload *w, int i, double x1, double v1, double x2, double v2)
{
    double *p = w->points[i];
    for (int j = 0; j < STOP_PARAM_COUNT; j++)
        p[j] = is_model_stop_oscillator.params[j].default_value;
    p[STOP_K] = 1.0;
    p[STOP_K12] = w->k12;
    p[STOP_S] = 1.0;
    p[STOP_EPSILON] = w->epsilon;
    p[STOP_X1] = x1;
    p[STOP_V1] = v1;
    p[STOP_X2] = x2;
    p[STOP_V2] = v2;
    p[STOP_T_END] = w->t_end;
    p[STOP_MAX_REBOUNDS] = 1e6;
    p[STOP_ZENO_TAIL] = w->zeno_tail;
}

/* Rebounds per CPU second (and per wall-clock second, *wall) through eval_batch, the
 * whole workload one batch. */
static double batch_rate(void *ws, const workload *w, int reps, double *per_run, double *wall)
{
    static double outputs[STOP_OUTPUT_COUNT * RUNS];
    static uint8_t status[RUNS];
    double rates[MAX_REPS], wall_rates[MAX_REPS];
    is_error err;
    for (int r = 0; r < reps; r++) {
        double start = bench_now_seconds(), cpu_start = cpu_seconds();
        is_model_stop_oscillator.eval_batch(ws, &w->points[0][0], (size_t)w->runs, outputs,
                                            status, &err);
        double took = cpu_seconds() - cpu_start, wall_took = bench_now_seconds() - start;
        double total = 0.0;
        for (int i = 0; i < w->runs; i++)
            total += outputs[STOP_REBOUNDS * w->runs + i];
        rates[r] = total / took;
        wall_rates[r] = total / wall_took;
        *per_run = total / w->runs;
    }
    *wall = bench_median(wall_rates, (size_t)reps);
    return bench_median(rates, (size_t)reps);
}

/* Rebounds per second one point at a time through stop_simulate (k = s = 1: the scaled
 * variables are the point's own). */
static double scalar_rate(const workload *w, int reps)
{
    double rates[MAX_REPS];
    for (int r = 0; r < reps; r++) {
        int64_t total = 0;
        double start = cpu_seconds();
        for (int i = 0; i < w->runs; i++) {
            const double *p = w->points[i];
            stop_system sys;
            stop_system_init(&sys, 1.0, w->k12, 1.0, w->epsilon);
            stop_state x0 = {p[STOP_X1], p[STOP_V1], p[STOP_X2], p[STOP_V2]};
            stop_options opt = {.t_end = w->t_end, .max_rebounds = 1000000,
                                .zeno_tail = w->zeno_tail};
            stop_result result;
            stop_simulate(&sys, &x0, &opt, &result);
            total += result.rebounds;
        }
        rates[r] = (double)total / (cpu_seconds() - start);
    }
    return bench_median(rates, (size_t)reps);
}

static void measure(void *ws, const workload *w, int reps)
{
    double per_run, wall;
    double lanes = batch_rate(ws, w, reps, &per_run, &wall);
    double scalar = scalar_rate(w, reps);
    printf("stop oscillator, %s: %.4g rebounds/s per core through eval_batch (aim >= %.0e: "
           "%s; %.4g per wall-clock second), %.4g one point at a time (%.0f rebounds per run, "
           "median of %d)\n",
           w->name, lanes, w->aim, lanes >= w->aim ? "met" : "not met", wall, scalar, per_run,
           reps);
}

int main(int argc, char **argv)
{
    int reps = argc > 1 ? atoi(argv[1]) : 5;
    if (reps < 1 || reps > MAX_REPS)
        reps = 5;
    void *ws;
    is_error err;
    if (is_model_stop_oscillator.workspace_create(&ws, &err) != IS_OK) {
        fprintf(stderr, "bench_stop: %s\n", err.message);
        return 1;
    }
    static workload zeno = {.name = "Zeno sequences (eps 0.8)", .k12 = 1.0, .epsilon = 0.8,
                            .t_end = 2.0, .zeno_tail = 1e-30, .aim = 2e7, .runs = RUNS};
    /* Zeno: x1 = s, v1 small and negative, x2 > x2t, v2 < 0 */
    for (int i = 0; i < RUNS; i++)
        point_at(&zeno, i, 1.0, -0.002 - 0.02 * i / RUNS, 2.5 + 1.5 * i / RUNS, -0.5);
    measure(ws, &zeno, reps);

    /* impacting at high restitution, strong coupling */
    static workload impacting = {.name = "impacting runs (eps 0.98, k12 = 4)", .k12 = 4.0,
                                 .epsilon = 0.98, .t_end = 2000.0, .zeno_tail = 1e-3,
                                 .aim = 4e6, .runs = RUNS / 10};
    for (int i = 0; i < RUNS / 10; i++)
        point_at(&impacting, i, 0.0, 2.0 + 2.0 * i / RUNS, 0.3, 0.0);
    measure(ws, &impacting, reps);
    is_model_stop_oscillator.workspace_free(ws);
    return 0;
}
