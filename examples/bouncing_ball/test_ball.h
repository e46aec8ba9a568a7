/* test_ball.h: what the bouncing ball's two tests share: the model's parameters and
 * outputs by index (as its tables list them, checked against the model), the values a
 * point takes in eval_batch's output, and a plain check that counts failures. */
#ifndef TEST_BALL_H
#define TEST_BALL_H

#include <impactsweep/model.h>
#include <stdio.h>

extern const is_model bouncing_ball_model;

enum { GAMMA, R, X0, V0, PERIODS, SECTION_N, SECTION_AT, PARAMS };
enum { REGIME, PERIOD, SPEED, PHASE, IMPACTS, STICKS, FAILURE, T_FAILURE, SECTION_PERIOD,
       SECTION_VALUES, SECTION_SPREAD, LYAPUNOV, LYAPUNOV_ERROR, SECTION, OUTPUTS };
enum { VALUES = OUTPUTS - 1 + 64 }; /* a point's: the scalars, then the array `section` */
#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

static int failures;

static void check(int ok, const char *what, double got, double expected)
{
    if (!ok) {
        printf("FAILED: %s: got %.17g, expected %.17g\n", what, got, expected);
        failures++;
    }
}

/* 0 when the indices above are the model's tables' */
static int tables_differ(void)
{
    if (bouncing_ball_model.param_count == PARAMS && bouncing_ball_model.output_count == OUTPUTS)
        return 0;
    printf("FAILED: the test's tables (%d parameters, %d outputs) are not the model's\n",
           (int)PARAMS, (int)OUTPUTS);
    return 1;
}

#endif
