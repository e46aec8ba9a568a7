/* bench_chatter.c: impacts per second on one core for the chatter model's batch kernel
 * in its chattering regime (every drop uses its whole impact budget), as the median of
 * repeated batches. Usage: bench_chatter [n rho gamma samples max_impacts reps]. */
#include <stdio.h>
#include <stdlib.h>

#include "bench_util.h"
#include "models/chatter/chatter.h"

int main(int argc, char **argv)
{
    double point[CHATTER_PARAM_COUNT] = {
        [CHATTER_N] = argc > 1 ? atof(argv[1]) : 4,
        [CHATTER_RHO] = argc > 2 ? atof(argv[2]) : 0.3,
        [CHATTER_GAMMA] = argc > 3 ? atof(argv[3]) : 0.1,
        [CHATTER_SAMPLES] = argc > 4 ? atof(argv[4]) : 20000,
        [CHATTER_MAX_IMPACTS] = argc > 5 ? atof(argv[5]) : 200,
        [CHATTER_PERTURBATION] = 0.1,
        [CHATTER_SEED] = 1,
    };
    int reps = argc > 6 ? atoi(argv[6]) : 9;
    if (reps < 1 || reps > 1000)
        reps = 9;
    void *ws;
    is_error err;
    if (chatter_workspace_create(&ws, &err) != IS_OK) {
        fprintf(stderr, "bench_chatter: %s\n", err.message);
        return 1;
    }
    double rates[1000], out[CHATTER_OUTPUT_COUNT];
    uint8_t status;
    for (int r = 0; r < reps; r++) {
        double start = bench_now_seconds();
        if (chatter_eval_batch(ws, point, 1, out, &status, &err) != IS_OK) {
            fprintf(stderr, "bench_chatter: %s\n", err.message);
            return 1;
        }
        double seconds = bench_now_seconds() - start;
        rates[r] = out[CHATTER_IMPACTS_MEAN] * point[CHATTER_SAMPLES] / seconds;
    }
    bench_median(rates, (size_t)reps);
    printf("chatter n=%g rho=%g gamma=%g: %g drops x %g impacts (p_cc %.3f, p_pcc %.3f)\n",
           point[CHATTER_N], point[CHATTER_RHO], point[CHATTER_GAMMA], point[CHATTER_SAMPLES],
           out[CHATTER_IMPACTS_MEAN], out[CHATTER_P_CC], out[CHATTER_P_PCC]);
    printf("impacts per second per core: median %.4g (min %.4g, max %.4g over %d runs; "
           "aim at n=4 rho=0.3 gamma=0.1, issue 13: >= 3.5e8)\n",
           rates[reps / 2], rates[0], rates[reps - 1], reps);
    chatter_workspace_free(ws);
    return 0;
}
