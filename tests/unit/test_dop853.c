/* test_dop853.c: the hybrid integrator's DOP853 pair (src/models/shared/hybrid_dop853.h):
 * its orders measured on problems with exact solutions, and the whole integrator with it
 * against exact event times.
 *
 * Orders: y0' = -2 t y0 (non-autonomous, y0 = exp(-t^2)) and y1' = y1 (exp(t)), stepped
 * with fixed steps by the pair's trial step itself: the global error at t = 2 falls by
 * 2^8 when the step halves (order 8); the continuous extension at the middle of one step
 * from the exact state by 2^8 too (local error h^8: order 7), while DOPRI5's extension
 * would fall by 2^5 at most. A wrong digit in a coefficient breaks an order condition and
 * the ratio falls towards 2 or 4. Events: the oscillator against a wall with restitution
 * (impact times in closed form, as test_hybrid.c has them), run by is_hybrid_run with
 * pair = IS_HYBRID_DOP853. */
#include <CUnit/CUnit.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "models/shared/hybrid.h"
#include "suites.h"

/* --- orders -------------------------------------------------------------------------- */

static void order_field(is_hybrid_lanes *b, lv_double t, const lv_double *y, lv_double *f)
{
    (void)b;
    f[0] = -2.0 * t * y[0];
    f[1] = y[1];
}

static const is_hybrid_system order_system = {.dimension = 2, .field = order_field,
                                              .pair = IS_HYBRID_DOP853};

static void order_exact(double t, double *y)
{
    y[0] = exp(-t * t);
    y[1] = exp(t);
}

/* A block at (t, exact state) with step h (tolerances irrelevant here). */
static void order_block(ish_block *b, double t, double h)
{
    double y[2];
    order_exact(t, y);
    b->t = lv_splat(t);
    b->h = lv_splat(h);
    b->rtol = lv_splat(1e-10);
    b->atol = lv_splat(1e-10);
    for (int i = 0; i < 2; i++)
        b->y[i] = lv_splat(y[i]);
    order_field(&b->pub, b->t, b->y, b->f);
}

/* The largest error at t = 2 of n fixed steps from t = 0. */
static double global_error(ish_block *b, int n)
{
    double h = 2.0 / n;
    order_block(b, 0.0, h);
    ish_block *bs[1] = {b};
    ish_trial T;
    for (int s = 0; s < n; s++) {
        ish8_trial_steps(&order_system, bs, 1, &T);
        for (int i = 0; i < 2; i++) {
            b->y[i] = T.y1[i];
            b->f[i] = T.k[6][i];
        }
        b->t = lv_splat((s + 1) * h);
    }
    double exact[2];
    order_exact(2.0, exact);
    return fmax(fabs(b->y[0][0] - exact[0]), fabs(b->y[1][0] - exact[1]) / exact[1]);
}

/* The error of the continuous extension at theta = 0.5 of one step h from t = 0.3. */
static double dense_error(ish_block *b, double h)
{
    order_block(b, 0.3, h);
    ish_block *bs[1] = {b};
    ish_trial T;
    ish_dense D;
    lv_double y[ISH_D];
    ish8_trial_steps(&order_system, bs, 1, &T);
    ish_dense_init(&order_system, b, &T, &D);
    ish_dense_at(&order_system, b, &T, &D, lv_splat(0.5), y);
    double exact[2], end[2];
    order_exact(0.3 + 0.5 * h, exact);
    order_exact(0.3 + h, end);
    /* the extension ends on the step's solution and starts on its start */
    lv_double y1[ISH_D], y0[ISH_D];
    ish_dense_at(&order_system, b, &T, &D, lv_splat(1.0), y1);
    ish_dense_at(&order_system, b, &T, &D, lv_zero(), y0);
    for (int i = 0; i < 2; i++) {
        CHECK(fabs(y1[i][0] - T.y1[i][0]) <= 4e-16 * fabs(T.y1[i][0]),
              "the extension at theta = 1 is %.17g, the step's end %.17g", y1[i][0],
              T.y1[i][0]);
        CHECK(y0[i][0] == b->y[i][0], "the extension at theta = 0 is not the start");
    }
    return fmax(fabs(y[0][0] - exact[0]), fabs(y[1][0] - exact[1]));
}

static void test_orders(void)
{
    size_t size = (sizeof(ish_block) + 63) / 64 * 64;
    ish_block *b = aligned_alloc(64, size); /* the vectors' alignment */
    CHECK(b != NULL, "no memory");
    if (!b)
        return;
    memset(b, 0, size);
    double e[3];
    for (int k = 0; k < 3; k++)
        e[k] = global_error(b, 6 << k);
    printf("\n    global errors at t = 2 with 6, 12, 24 steps: %.3g %.3g %.3g (ratios %.1f %.1f)",
           e[0], e[1], e[2], e[0] / e[1], e[1] / e[2]);
    for (int k = 0; k < 2; k++) {
        double order = log2(e[k] / e[k + 1]);
        CHECK(order > 7.5 && order < 9.0, "the global order measured %.2f, not 8", order);
    }
    double d[3];
    for (int k = 0; k < 3; k++)
        d[k] = dense_error(b, 0.8 / (1 << k));
    printf("\n    dense output errors at theta 0.5, h = 0.8, 0.4, 0.2: %.3g %.3g %.3g "
           "(ratios %.1f %.1f)",
           d[0], d[1], d[2], d[0] / d[1], d[1] / d[2]);
    for (int k = 0; k < 2; k++) {
        double order = log2(d[k] / d[k + 1]);
        CHECK(order > 7.4 && order < 9.0, "the dense output's local order measured %.2f, not 8",
              order);
    }
    free(b);
}

/* --- events: the oscillator and the wall ----------------------------------------------- */

enum { WALL_A, WALL_R };
#define IMPACTS 10
#define REC_COUNT 15

static void wall_field(is_hybrid_lanes *b, lv_double t, const lv_double *y, lv_double *f)
{
    (void)b, (void)t;
    f[0] = y[1];
    f[1] = -y[0];
}

static void wall_events(const is_hybrid_lanes *b, lv_double t, const lv_double *y,
                        const lv_double *f, lv_double *g, lv_double *dg)
{
    (void)t, (void)f;
    g[0] = b->par[WALL_A] - y[0];
    if (dg)
        dg[0] = -y[1];
}

static lv_mask wall_impact(is_hybrid_lanes *b, const lv_mask *fired, lv_double t, lv_double *y)
{
    lv_double n = b->rec[REC_COUNT];
    for (int k = 0; k < IMPACTS; k++)
        b->rec[k] = lv_sel(fired[0] & lv_eq(n, lv_splat(k)), t, b->rec[k]);
    b->rec[REC_COUNT] = lv_add_where(fired[0], n, lv_splat(1.0));
    y[1] = lv_sel(fired[0], -b->par[WALL_R] * y[1], y[1]);
    return fired[0] & lv_ge(b->rec[REC_COUNT], lv_splat(IMPACTS));
}

static const double wall_points[][2] = {{0.5, 0.8}, {0.2, 0.85}, {0.9, 0.95}, {0.3, 0.9},
                                        {0.05, 0.9}, {0.6, 1.0}, {0.33, 0.8}, {0.4, 0.93}};
#define WALL_COUNT (sizeof wall_points / sizeof *wall_points)

typedef struct wall_batch {
    double rtol;
    is_hybrid_end ends[WALL_COUNT];
    int finished[WALL_COUNT];
} wall_batch;

static int wall_start(void *ctx, size_t i, is_hybrid_start *s)
{
    wall_batch *w = ctx;
    s->t_end = 200.0;
    s->y[1] = 1.0;
    s->par[WALL_A] = wall_points[i][0];
    s->par[WALL_R] = wall_points[i][1];
    s->rtol = w->rtol;
    s->atol = 1e-2 * w->rtol;
    s->max_steps = 1e6;
    return 1;
}

static void wall_finish(void *ctx, size_t i, const is_hybrid_end *e)
{
    wall_batch *w = ctx;
    w->ends[i] = *e;
    w->finished[i]++;
}

static const is_hybrid_system wall_dop853 = {
    .dimension = 2, .events = 1, .direction = {-1}, .kind = {IS_HYBRID_RESET},
    .field = wall_field, .event_values = wall_events, .rates = 1, .on_event = wall_impact,
    .start = wall_start, .finish = wall_finish, .pair = IS_HYBRID_DOP853};
static const is_hybrid_system wall_dopri5 = {
    .dimension = 2, .events = 1, .direction = {-1}, .kind = {IS_HYBRID_RESET},
    .field = wall_field, .event_values = wall_events, .rates = 1, .on_event = wall_impact,
    .start = wall_start, .finish = wall_finish};

/* The worst impact time error of a run at rtol; its steps in *steps. */
static double wall_worst(const is_hybrid_system *sys, double rtol, int64_t *steps)
{
    wall_batch *w = calloc(1, sizeof *w);
    CHECK(w != NULL, "no memory");
    if (!w)
        return INFINITY;
    w->rtol = rtol;
    CHECK(is_hybrid_run(sys, w, WALL_COUNT, NULL, 0) == 0, "is_hybrid_run failed");
    double worst = 0.0;
    *steps = 0;
    for (size_t i = 0; i < WALL_COUNT; i++) {
        CHECK(w->finished[i] == 1, "point %zu finished %d times", i, w->finished[i]);
        CHECK(w->ends[i].status == IS_HYBRID_ENDED && w->ends[i].rec[REC_COUNT] == IMPACTS,
              "point %zu ended with status %d", i, w->ends[i].status);
        double a = wall_points[i][0], r = wall_points[i][1], u = sqrt(1.0 - a * a);
        double t = asin(a);
        for (int k = 0; k < IMPACTS; k++) {
            worst = fmax(worst, fabs(w->ends[i].rec[k] - t));
            t += 2.0 * M_PI - 2.0 * atan(r * u / a);
            u *= r;
        }
        *steps += w->ends[i].steps;
    }
    free(w);
    return worst;
}

static void test_wall(void)
{
    for (double rtol = 1e-6; rtol >= 1e-12; rtol *= 1e-3) {
        int64_t s8, s5;
        double e8 = wall_worst(&wall_dop853, rtol, &s8), e5 = wall_worst(&wall_dopri5, rtol, &s5);
        printf("\n    rtol %g: impact times within %.2g (DOP853, %lld steps), %.2g (DOPRI5, "
               "%lld steps)",
               rtol, e8, (long long)s8, e5, (long long)s5);
        /* 10 impacts over ~60 time units: the global error is some 100 rtol */
        CHECK(e8 < 300.0 * rtol, "DOP853 at rtol %g: an impact time is %.3g off", rtol, e8);
        CHECK(s8 < s5, "DOP853 took %lld steps, DOPRI5 %lld at rtol %g", (long long)s8,
              (long long)s5, rtol);
    }
}

void suite_dop853(void)
{
    CU_pSuite s = CU_add_suite("dop853", NULL, NULL);
    CU_add_test(s, "DOP853: order 8, dense output of order 7", test_orders);
    CU_add_test(s, "DOP853: exact impact times of an oscillator against a wall", test_wall);
}
