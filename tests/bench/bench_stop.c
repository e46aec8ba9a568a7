/* bench_stop.c: rebounds simulated per second on one core by the stop oscillator's exact
 * event-driven simulation, in two regimes: Zeno sequences simulated rebound by rebound
 * (the paper's Theorem 1 states, with the reset held back until the excursions reach
 * rounding level) and long impacting runs at high restitution. Median of repeats. */
#include <stdio.h>
#include <stdlib.h>

#include "bench_util.h"
#include "models/stop_oscillator/stop_oscillator.h"

static double rate(const stop_system *sys, const stop_state *starts, int count,
                   const stop_options *opt, int reps, double *rebounds_per_run)
{
    double rates[100];
    int64_t total = 0;
    for (int r = 0; r < reps; r++) {
        total = 0;
        double start = bench_now_seconds();
        for (int i = 0; i < count; i++) {
            stop_result result;
            stop_simulate(sys, &starts[i], opt, &result);
            total += result.rebounds;
        }
        rates[r] = (double)total / (bench_now_seconds() - start);
    }
    *rebounds_per_run = (double)total / count;
    return bench_median(rates, (size_t)reps);
}

int main(int argc, char **argv)
{
    int reps = argc > 1 ? atoi(argv[1]) : 5;
    if (reps < 1 || reps > 100)
        reps = 5;
    enum { RUNS = 2000 };
    static stop_state starts[RUNS];
    stop_system sys;
    double per_run;

    /* Zeno: x1 = s, v1 small and negative, x2 > x2t, v2 < 0 */
    stop_system_init(&sys, 1.0, 1.0, 1.0, 0.8);
    for (int i = 0; i < RUNS; i++)
        starts[i] = (stop_state){1.0, -0.002 - 0.02 * i / RUNS, 2.5 + 1.5 * i / RUNS, -0.5};
    stop_options zeno = {.t_end = 2.0, .max_rebounds = 1000000, .zeno_tail = 1e-30};
    double r1 = rate(&sys, starts, RUNS, &zeno, reps, &per_run);
    printf("stop oscillator, Zeno sequences (eps 0.8): %.4g rebounds/s per core "
           "(%.0f rebounds per run, median of %d)\n", r1, per_run, reps);

    /* impacting at high restitution, strong coupling */
    stop_system_init(&sys, 1.0, 4.0, 1.0, 0.98);
    for (int i = 0; i < RUNS / 10; i++)
        starts[i] = (stop_state){0.0, 2.0 + 2.0 * i / RUNS, 0.3, 0.0};
    stop_options impacting = {.t_end = 2000.0, .max_rebounds = 1000000, .zeno_tail = 1e-3};
    double r2 = rate(&sys, starts, RUNS / 10, &impacting, reps, &per_run);
    printf("stop oscillator, impacting runs (eps 0.98, k12 = 4): %.4g rebounds/s per core "
           "(%.0f rebounds per run, median of %d)\n", r2, per_run, reps);
    return 0;
}
