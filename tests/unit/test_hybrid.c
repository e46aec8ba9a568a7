/* test_hybrid.c: the hybrid integrator in lanes (src/models/shared/hybrid.h) against exact
 * event times, accumulation and sticking, and a point's bits whatever its lane and batch.
 *
 * The systems: a linear oscillator x'' = -x hitting a wall at x = a (0 < a < 1) with
 * restitution r, from x = 0, x' = 1: impacts at t1 = asin a with speed u1 = sqrt(1 - a^2),
 * then t_{k+1} = t_k + 2 pi - 2 atan(r u_k / a), u_{k+1} = r u_k (the flight from the wall
 * with speed r u_k returns when a cos s - r u_k sin s = a); run with DOPRI5 on the field
 * and with the closed-form flow. A ball under gravity x'' = -1 on a floor x = 0, dropped
 * from x0: impacts accumulate at t1 + 2 r u1 / (1 - r), t1 = u1 = sqrt(2 x0), which the
 * integrator's geometric prediction gives exactly. A grazing contact: x = sin t against a
 * wall just below 1, found inside a flow step whose ends are both clear of it. The trace
 * the integrator makes (hybrid_trace.h) of the oscillator with a wall, minima and zeros:
 * events of each kind where they are, samples in time order, eval_batch's output. */
#include <CUnit/CUnit.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "models/shared/hybrid.h"
#include "hybrid_oscillator.h"
#include "suites.h"

enum { WALL_A, WALL_R, WALL_H_MAX, WALL_STICK };
#define IMPACTS 10
#define REC_COUNT 15 /* rec[0 .. IMPACTS): impact times; rec[REC_COUNT]: their count */

/* --- the oscillator and the wall ---------------------------------------------------------- */

static void wall_events(const is_hybrid_lanes *b, lv_double t, const lv_double *y,
                        const lv_double *f, lv_double *g, lv_double *dg)
{
    (void)t, (void)f;
    g[0] = b->par[WALL_A] - y[0];
    if (dg)
        dg[0] = -y[1];
}

/* An impact: v -> -r v, its time recorded; the run ends after IMPACTS. */
static lv_mask wall_impact(is_hybrid_lanes *b, const lv_mask *fired, lv_double t, lv_double *y)
{
    lv_double n = b->rec[REC_COUNT];
    for (int k = 0; k < IMPACTS; k++)
        b->rec[k] = lv_sel(fired[0] & lv_eq(n, lv_splat(k)), t, b->rec[k]);
    b->rec[REC_COUNT] = lv_add_where(fired[0], n, lv_splat(1.0));
    y[1] = lv_sel(fired[0], -b->par[WALL_R] * y[1], y[1]);
    return fired[0] & lv_ge(b->rec[REC_COUNT], lv_splat(IMPACTS));
}

/* The batch: points[i] = (a, r); ends[i] and the records are kept for the checks. */
typedef struct wall_batch {
    const double (*points)[2];
    is_hybrid_end *ends;
    int *finished;
    double h_max;
} wall_batch;

static int wall_start(void *ctx, size_t i, is_hybrid_start *s)
{
    wall_batch *w = ctx;
    s->t_end = 200.0;
    s->y[0] = 0.0;
    s->y[1] = 1.0;
    s->par[WALL_A] = w->points[i][0];
    s->par[WALL_R] = w->points[i][1];
    s->rtol = 1e-12;
    s->atol = 1e-14;
    s->h_max = w->h_max;
    s->max_steps = 1e6;
    return 1;
}

static void wall_finish(void *ctx, size_t i, const is_hybrid_end *e)
{
    wall_batch *w = ctx;
    w->ends[i] = *e;
    w->finished[i]++;
}

static const is_hybrid_system wall_field = {
    .dimension = 2, .events = 1, .direction = {-1}, .kind = {IS_HYBRID_RESET},
    .field = osc_field, .event_values = wall_events, .on_event = wall_impact,
    .start = wall_start, .finish = wall_finish};

static const is_hybrid_system wall_flow = {
    .dimension = 2, .events = 1, .direction = {-1}, .kind = {IS_HYBRID_RESET},
    .flow = osc_flow, .event_values = wall_events, .rates = 1,
    .on_event = wall_impact, .start = wall_start, .finish = wall_finish};

/* (a, r), with impact speeds r^k sqrt(1 - a^2) that stay well above grazing (the flight
 * from the wall at speed w rises above it for 2 w / a) */
static const double wall_points[][2] = {{0.5, 0.8}, {0.2, 0.85}, {0.9, 0.95}, {0.3, 0.9},
                                        {0.05, 0.9}, {0.6, 1.0}, {0.33, 0.8}, {0.4, 0.93},
                                        {0.45, 0.85}, {0.15, 0.8}, {0.95, 0.99}};
#define WALL_COUNT (sizeof wall_points / sizeof *wall_points)

static void wall_run(const is_hybrid_system *sys, const double (*points)[2], size_t count,
                     is_hybrid_end *ends, double h_max)
{
    int finished[WALL_COUNT] = {0};
    wall_batch w = {points, ends, finished, h_max};
    CHECK(is_hybrid_run(sys, &w, count, NULL, 0) == 0, "is_hybrid_run failed");
    for (size_t i = 0; i < count; i++)
        CHECK(finished[i] == 1, "point %zu finished %d times", i, finished[i]);
}

/* The exact impact times of point (a, r). */
static void wall_exact(double a, double r, double *t)
{
    double u = sqrt(1.0 - a * a);
    t[0] = asin(a);
    for (int k = 1; k < IMPACTS; k++) {
        t[k] = t[k - 1] + 2.0 * M_PI - 2.0 * atan(r * u / a);
        u *= r;
    }
}

static void check_wall_times(const is_hybrid_system *sys, double h_max, double tolerance,
                             const char *what)
{
    is_hybrid_end ends[WALL_COUNT];
    wall_run(sys, wall_points, WALL_COUNT, ends, h_max);
    double worst = 0.0;
    for (size_t i = 0; i < WALL_COUNT; i++) {
        double exact[IMPACTS];
        wall_exact(wall_points[i][0], wall_points[i][1], exact);
        CHECK(ends[i].status == IS_HYBRID_ENDED && ends[i].rec[REC_COUNT] == IMPACTS,
              "%s: point %zu ended with status %d after %g impacts", what, i, ends[i].status,
              ends[i].rec[REC_COUNT]);
        for (int k = 0; k < IMPACTS; k++)
            worst = fmax(worst, fabs(ends[i].rec[k] - exact[k]));
    }
    printf("\n    %s: impact times within %.2g of the exact ones", what, worst);
    CHECK(worst < tolerance, "%s: an impact time is %.3g off", what, worst);
}

static void test_wall_field(void)
{
    check_wall_times(&wall_field, 0.0, 1e-9, "oscillator and wall, DOPRI5 at rtol 1e-12");
}

static void test_wall_flow(void)
{
    check_wall_times(&wall_flow, 0.5, 2e-13, "oscillator and wall, closed-form flow");
}

/* The same bits for every point alone, in the batch, and in the batch reversed. */
static void test_wall_lanes(void)
{
    const is_hybrid_system *systems[] = {&wall_field, &wall_flow};
    for (int s = 0; s < 2; s++) {
        is_hybrid_end batch[WALL_COUNT], alone, reversed[WALL_COUNT];
        double back[WALL_COUNT][2];
        for (size_t i = 0; i < WALL_COUNT; i++) {
            back[i][0] = wall_points[WALL_COUNT - 1 - i][0];
            back[i][1] = wall_points[WALL_COUNT - 1 - i][1];
        }
        wall_run(systems[s], wall_points, WALL_COUNT, batch, 0.5);
        wall_run(systems[s], (const double(*)[2])back, WALL_COUNT, reversed, 0.5);
        for (size_t i = 0; i < WALL_COUNT; i++) {
            wall_run(systems[s], wall_points + i, 1, &alone, 0.5);
            const is_hybrid_end *r = &reversed[WALL_COUNT - 1 - i];
            CHECK(!memcmp(alone.rec, batch[i].rec, sizeof alone.rec) &&
                      !memcmp(r->rec, batch[i].rec, sizeof r->rec) && alone.t == batch[i].t &&
                      alone.y[0] == batch[i].y[0] && alone.y[1] == batch[i].y[1] &&
                      alone.steps == batch[i].steps,
                  "%s: point %zu's bits depend on its lane or batch",
                  s ? "flow" : "field", i);
        }
    }
}

/* --- the ball on the floor: accumulation ------------------------------------------------- */

static void fall_flow(const is_hybrid_lanes *b, lv_double t0, const lv_double *y0, lv_double dt,
                      lv_double *y)
{
    (void)b, (void)t0;
    y[0] = y0[0] + dt * (y0[1] + -0.5 * dt);
    y[1] = y0[1] + -dt;
}

static void floor_events(const is_hybrid_lanes *b, lv_double t, const lv_double *y,
                         const lv_double *f, lv_double *g, lv_double *dg)
{
    (void)b, (void)t, (void)f;
    g[0] = y[0];
    if (dg)
        dg[0] = y[1];
}

static lv_mask floor_impact(is_hybrid_lanes *b, const lv_mask *fired, lv_double t, lv_double *y)
{
    (void)t;
    b->rec[REC_COUNT] = lv_add_where(fired[0], b->rec[REC_COUNT], lv_splat(1.0));
    y[1] = lv_sel(fired[0], -b->par[WALL_R] * y[1], y[1]);
    return lv_mask_none();
}

/* At rest on the floor from t_star: the run ends there (rec[0]: t_star, rec[1]: t). */
static lv_mask floor_rest(is_hybrid_lanes *b, lv_mask lanes, lv_double t, lv_double t_star,
                          lv_double *y)
{
    b->rec[0] = lv_sel(lanes, t_star, b->rec[0]);
    b->rec[1] = lv_sel(lanes, t, b->rec[1]);
    y[0] = lv_sel(lanes, lv_zero(), y[0]);
    y[1] = lv_sel(lanes, lv_zero(), y[1]);
    return lanes;
}

static int floor_start(void *ctx, size_t i, is_hybrid_start *s)
{
    wall_batch *w = ctx;
    s->t_end = 100.0;
    s->y[0] = w->points[i][0];
    s->par[WALL_R] = w->points[i][1];
    s->h_max = 0.25;
    s->max_events = 1e5;
    s->zeno_tail = w->h_max; /* (the batch's h_max field carries the rule here) */
    s->stick_speed = w->h_max > 0 ? 0.0 : 1e-3;
    return 1;
}

static const is_hybrid_system floor_zeno = {
    .dimension = 2, .events = 1, .direction = {-1}, .kind = {IS_HYBRID_RESET},
    .flow = fall_flow, .event_values = floor_events, .rates = 1,
    .on_event = floor_impact, .on_accumulate = floor_rest, .start = floor_start,
    .finish = wall_finish};

static const is_hybrid_system floor_no_answer = {
    .dimension = 2, .events = 1, .direction = {-1}, .kind = {IS_HYBRID_RESET},
    .flow = fall_flow, .event_values = floor_events, .rates = 1,
    .on_event = floor_impact, .start = floor_start, .finish = wall_finish};

static void test_accumulation(void)
{
    static const double drops[][2] = {{1.0, 0.5}, {2.0, 0.8}, {0.3, 0.9}, {5.0, 0.2}, {1.5, 0.7}};
    const size_t n = sizeof drops / sizeof *drops;
    is_hybrid_end ends[WALL_COUNT];
    int finished[WALL_COUNT] = {0};
    wall_batch w = {drops, ends, finished, 1e-4};
    CHECK(is_hybrid_run(&floor_zeno, &w, n, NULL, 0) == 0, "run failed");
    double worst = 0.0;
    for (size_t i = 0; i < n; i++) {
        double u = sqrt(2.0 * drops[i][0]), r = drops[i][1], t_inf = u + 2.0 * r * u / (1.0 - r);
        CHECK(ends[i].status == IS_HYBRID_ENDED && ends[i].accumulations == 1,
              "drop %zu: status %d, %" PRId64 " accumulations", i, ends[i].status,
              ends[i].accumulations);
        worst = fmax(worst, fabs(ends[i].rec[0] - t_inf) / t_inf);
        CHECK(t_inf - ends[i].rec[1] < 1e-4 * 1.0001, "drop %zu: accumulated %g before", i,
              t_inf - ends[i].rec[1]);
    }
    printf("\n    Zeno: accumulation times within %.2g (relative) of t1 + 2 r u1 / (1 - r)", worst);
    CHECK(worst < 1e-12, "an accumulation time is %.3g off", worst);
    /* without on_accumulate: the run ends as Zeno */
    memset(finished, 0, sizeof finished);
    CHECK(is_hybrid_run(&floor_no_answer, &w, n, NULL, 0) == 0, "run failed");
    for (size_t i = 0; i < n; i++)
        CHECK(ends[i].status == IS_HYBRID_ZENO, "drop %zu: status %d, not Zeno", i,
              ends[i].status);
    /* sticking: zeno_tail 0, stick_speed 1e-3: the lane sticks once the bounce is slower */
    w.h_max = 0.0;
    memset(finished, 0, sizeof finished);
    CHECK(is_hybrid_run(&floor_zeno, &w, n, NULL, 0) == 0, "run failed");
    for (size_t i = 0; i < n; i++) {
        double u = sqrt(2.0 * drops[i][0]), r = drops[i][1];
        double k = ceil(log(1e-3 / u) / log(r)); /* the first impact leaving r^k u <= 1e-3 */
        CHECK(ends[i].status == IS_HYBRID_ENDED && ends[i].rec[0] == ends[i].rec[1] &&
                  ends[i].rec[REC_COUNT] == k,
              "drop %zu: status %d, stuck after %g impacts (%g expected)", i, ends[i].status,
              ends[i].rec[REC_COUNT], k);
    }
}


/* --- accumulation through rounding noise ------------------------------------------------- */

/* The ball on the floor whose height carries a rounding-like noise of 1e-13 (a sawtooth
 * in t of period 2^-40, as the rounding of a forcing's phase at t ~ 100 would give), no
 * rates: the impacts' intervals shrink geometrically to about sqrt(2e-13) and then wander
 * at that level, never reaching a rest below zeno_tail (1e-15 here): the stall rule must
 * see the accumulation there, within about that level of the exact limit, instead of
 * grinding to the budget. */
static void noisy_floor_events(const is_hybrid_lanes *b, lv_double t, const lv_double *y,
                               const lv_double *f, lv_double *g, lv_double *dg)
{
    (void)b, (void)f, (void)dg;
    lv_double u = t * 0x1p40, k = (u + 0x1.8p52) - 0x1.8p52;
    k = lv_sel(lv_gt(k, u), k - 1.0, k);
    g[0] = y[0] + 2e-13 * ((u - k) - 0.5);
}

static const is_hybrid_system floor_noisy = {
    .dimension = 2, .events = 1, .direction = {-1}, .kind = {IS_HYBRID_RESET},
    .flow = fall_flow, .event_values = noisy_floor_events, .on_event = floor_impact,
    .on_accumulate = floor_rest, .start = floor_start, .finish = wall_finish};

static void test_accumulation_noise(void)
{
    static const double drops[][2] = {{1.0, 0.5}, {2.0, 0.8}, {0.3, 0.9}, {1.5, 0.7}};
    const size_t n = sizeof drops / sizeof *drops;
    is_hybrid_end ends[WALL_COUNT];
    int finished[WALL_COUNT] = {0};
    wall_batch w = {drops, ends, finished, 1e-15};
    CHECK(is_hybrid_run(&floor_noisy, &w, n, NULL, 0) == 0, "run failed");
    double worst = 0.0, most = 0.0;
    for (size_t i = 0; i < n; i++) {
        double u = sqrt(2.0 * drops[i][0]), r = drops[i][1], t_inf = u + 2.0 * r * u / (1.0 - r);
        CHECK(ends[i].status == IS_HYBRID_ENDED && ends[i].accumulations == 1 &&
                  ends[i].rec[REC_COUNT] < 1000 && fabs(ends[i].rec[0] - t_inf) < 2e-5,
              "noisy drop %zu: status %d (%s), %" PRId64 " accumulations after %g impacts, at "
              "%.17g (exact %.17g)", i, ends[i].status, ends[i].reason, ends[i].accumulations,
              ends[i].rec[REC_COUNT], ends[i].rec[0], t_inf);
        worst = fmax(worst, fabs(ends[i].rec[0] - t_inf));
        most = fmax(most, ends[i].rec[REC_COUNT]);
    }
    printf("\n    Zeno through noise of 1e-13: accumulated within %.2g of the limit, after %g "
           "impacts at most", worst, most);
}

/* --- a grazing contact ------------------------------------------------------------------- */

static void test_graze(void)
{
    /* x = sin t (x(0) = 0, v = 1) against a wall at a = 1 - 1e-6: the crossing lies within
     * 1.5e-3 of t = pi/2, inside the flow step from 1.5 to 1.6, whose ends are clear of the
     * wall (by 2.5e-3 and 4.3e-4); the Hermite cubic of a - x (values and rates), within
     * 0.1^4 / 384 = 2.6e-7 of it, dips below zero there. */
    static const double points[][2] = {{1.0 - 1e-6, 0.5}, {1.0 - 1e-5, 0.5}};
    is_hybrid_end ends[2];
    int finished[2] = {0};
    wall_batch w = {points, ends, finished, 0.1};
    CHECK(is_hybrid_run(&wall_flow, &w, 2, NULL, 0) == 0, "run failed");
    for (int i = 0; i < 2; i++) {
        double exact = asin(points[i][0]);
        CHECK(ends[i].rec[REC_COUNT] >= 1 && fabs(ends[i].rec[0] - exact) < 1e-9,
              "graze %d: first impact at %.15g, exact %.15g (%g impacts)", i, ends[i].rec[0],
              exact, ends[i].rec[REC_COUNT]);
    }
}


/* --- grazes of a forced oscillator --------------------------------------------------------- */

/* x'' + x = -3 cos 2t, on its steady response x = cos 2t (period pi, top 1 at t = k pi),
 * against a stop at sigma = 1 - eps: the first impact at pi - acos(1 - eps) / 2, inside a
 * step of pi/64 from t = 0.3 whose ends are clear of the stop; no rates (the plain way of
 * writing a plug-in), in flow mode (closed form) and in field mode (DOPRI5). */
static void forced_flow(const is_hybrid_lanes *b, lv_double t0, const lv_double *y0,
                        lv_double dt, lv_double *y)
{
    (void)b;
    lv_double s, c, s0, c0, s1, c1;
    lv_sincos(dt, &s, &c);
    lv_sincos(2.0 * t0, &s0, &c0);
    lv_sincos(2.0 * (t0 + dt), &s1, &c1);
    lv_double u = y0[0] - c0, w = y0[1] + 2.0 * s0; /* the free part */
    y[0] = c1 + (u * c + w * s);
    y[1] = -2.0 * s1 + (w * c - u * s);
}

static void forced_field(is_hybrid_lanes *b, lv_double t, const lv_double *y, lv_double *f)
{
    (void)b;
    lv_double s, c;
    lv_sincos(2.0 * t, &s, &c);
    f[0] = y[1];
    f[1] = -y[0] + -3.0 * c;
}

static int forced_start(void *ctx, size_t i, is_hybrid_start *s)
{
    wall_batch *w = ctx;
    s->t = 0.3;
    s->t_end = M_PI + 0.3;
    s->y[0] = cos(0.6);
    s->y[1] = -2.0 * sin(0.6);
    s->par[WALL_A] = w->points[i][0];
    s->par[WALL_R] = w->points[i][1];
    s->rtol = 1e-12;
    s->atol = 1e-14;
    s->h_max = M_PI / 64;
    s->max_steps = 1e6;
    return 1;
}

static const is_hybrid_system forced_flow_plain = {
    .dimension = 2, .events = 1, .direction = {-1}, .kind = {IS_HYBRID_RESET},
    .flow = forced_flow, .event_values = wall_events, .on_event = wall_impact,
    .start = forced_start, .finish = wall_finish};

static const is_hybrid_system forced_field_plain = {
    .dimension = 2, .events = 1, .direction = {-1}, .kind = {IS_HYBRID_RESET},
    .field = forced_field, .event_values = wall_events, .on_event = wall_impact,
    .start = forced_start, .finish = wall_finish};

static const is_hybrid_system forced_field_rates = {
    .dimension = 2, .events = 1, .direction = {-1}, .kind = {IS_HYBRID_RESET},
    .field = forced_field, .event_values = wall_events, .rates = 1, .on_event = wall_impact,
    .start = forced_start, .finish = wall_finish};

static void test_forced_grazes(void)
{
    static const double eps[] = {1e-2, 1e-4, 1e-6, 1e-8, 1e-10, 1e-12};
    enum { N = sizeof eps / sizeof *eps };
    double points[N][2];
    for (int i = 0; i < N; i++)
        points[i][0] = 1.0 - eps[i], points[i][1] = 0.8;
    const is_hybrid_system *systems[] = {&forced_flow_plain, &forced_field_plain,
                                         &forced_field_rates};
    const char *names[] = {"flow, no rates", "DOPRI5, no rates", "DOPRI5, rates"};
    for (int k = 0; k < 3; k++) {
        is_hybrid_end ends[N];
        int finished[N] = {0};
        wall_batch w = {(const double(*)[2])points, ends, finished, 0.0};
        CHECK(is_hybrid_run(systems[k], &w, N, NULL, 0) == 0, "run failed");
        double worst = 0.0;
        for (int i = 0; i < N; i++) {
            double exact = M_PI - 0.5 * acos(points[i][0]);
            /* a graze of depth eps is crossed at speed 2 sqrt(2 eps): its time is as
             * sharp as sigma - x's error over that speed (rounding with the flow, DOPRI5's
             * error at rtol 1e-12 with the field) */
            double tol = 1e-9 + (k ? 1e-13 : 1e-15) / sqrt(eps[i]);
            CHECK(finished[i] == 1 && ends[i].rec[REC_COUNT] >= 1 &&
                      fabs(ends[i].rec[0] - exact) < tol,
                  "%s, eps %g: %g impacts, the first at %.17g (exact %.17g)", names[k], eps[i],
                  ends[i].rec[REC_COUNT], ends[i].rec[0], exact);
            if (ends[i].rec[REC_COUNT] >= 1)
                worst = fmax(worst, fabs(ends[i].rec[0] - exact) / tol);
        }
        for (int i = 0; i < N; i++) { /* the minimiser's lanes: the same bits alone */
            is_hybrid_end alone;
            int once = 0;
            wall_batch w1 = {(const double(*)[2])points + i, &alone, &once, 0.0};
            CHECK(is_hybrid_run(systems[k], &w1, 1, NULL, 0) == 0, "run failed");
            CHECK(!memcmp(alone.rec, ends[i].rec, sizeof alone.rec) && alone.t == ends[i].t &&
                      alone.steps == ends[i].steps,
                  "%s, eps %g: the bits depend on the batch", names[k], eps[i]);
        }
        printf("\n    forced grazes (%s): eps 1e-2 .. 1e-12 found, times within %.2g of their "
               "tolerance", names[k], worst);
    }
}


/* --- the trace made by the integrator (hybrid_trace.h) ----------------------------------- */

/* The wall with two more events: the oscillator's minimum (observe: v rising through 0)
 * and x = 0 (a kink, harmless on a smooth field: first falling, then passed each way),
 * with their rates. */
static void traced_events(const is_hybrid_lanes *b, lv_double t, const lv_double *y,
                          const lv_double *f, lv_double *g, lv_double *dg)
{
    wall_events(b, t, y, f, g, dg);
    g[1] = y[1];
    g[2] = y[0];
    if (dg) {
        dg[1] = -y[0];
        dg[2] = y[1];
    }
}

static const is_hybrid_system wall_traced = {
    .dimension = 2, .events = 3, .direction = {-1, 1, -1},
    .kind = {IS_HYBRID_RESET, IS_HYBRID_OBSERVE, IS_HYBRID_KINK}, .field = osc_field,
    .event_values = traced_events, .rates = 1, .on_event = wall_impact, .start = wall_start,
    .finish = wall_finish};

/* eval_batch of a model of the point (a, r): the time of the last impact */
static is_code traced_eval(void *ws, const double *points, size_t count, double *out,
                           uint8_t *status, is_error *err)
{
    (void)ws, (void)err;
    is_hybrid_end ends[4];
    int finished[4] = {0};
    CHECK(count <= 4, "a batch of %zu", count);
    wall_batch w = {(const double(*)[2])points, ends, finished, 0.0};
    if (is_hybrid_run(&wall_traced, &w, count, NULL, 0) != 0)
        return IS_NOMEM;
    for (size_t i = 0; i < count; i++) {
        out[i] = ends[i].t;
        status[i] = IS_POINT_DONE;
    }
    return IS_OK;
}

typedef struct trace_log {
    double t[4096], y[4096][2], et[256], ey[256][2];
    int kind[256];
    size_t samples, events;
} trace_log;

static is_code log_sample(void *context, double t, const double *values)
{
    trace_log *g = context;
    if (g->samples == 4096)
        return IS_NOMEM;
    g->t[g->samples] = t;
    memcpy(g->y[g->samples++], values, 2 * sizeof *values);
    return IS_OK;
}

static is_code log_event(void *context, double t, int kind, const double *values)
{
    trace_log *g = context;
    if (g->events == 256)
        return IS_NOMEM;
    CHECK(g->samples > 0 && g->t[g->samples - 1] == t, "event %zu at %.17g off its sample",
          g->events, t);
    g->et[g->events] = t;
    g->kind[g->events] = kind;
    memcpy(g->ey[g->events++], values, 2 * sizeof *values);
    return IS_OK;
}

static is_code traced_run(void *ws, const double *point, const double *options,
                          const is_trace_sink *sink, double *outputs, uint8_t *status,
                          is_error *err);
static const is_output traced_output[] = {{"t_end", "1", "end", IS_OUTPUT_REAL, NULL, 0, NULL}};
static const is_model traced_model = {IS_MODEL_HEADER, .name = "wall", .output_count = 1,
                                      .outputs = traced_output, .eval_batch = traced_eval};

static is_code traced_run(void *ws, const double *point, const double *options,
                          const is_trace_sink *sink, double *outputs, uint8_t *status,
                          is_error *err)
{
    return is_hybrid_trace_eval(&wall_traced, &traced_model, ws, point, options, sink, outputs,
                                status, err);
}

static void test_trace(void)
{
    static is_hybrid_traced made;
    const is_model *m = is_hybrid_trace_table(&made, &traced_model, &wall_traced, traced_run);
    const is_model_trace *tr = m->trace;
    const char *want[] = {"reset_0", "observe_1", "kink_2", "accumulation", NULL};
    for (int k = 0; k < 5; k++)
        CHECK(want[k] ? tr->events[k] && strcmp(tr->events[k], want[k]) == 0 : !tr->events[k],
              "event kind %d is %s, not %s", k, tr->events[k] ? tr->events[k] : "(end)",
              want[k] ? want[k] : "(end)");
    CHECK(tr->channel_count == 2 && strcmp(tr->channels[1].name, "y1") == 0 &&
              tr->option_count == 1 && strcmp(tr->options[0].name, "dt") == 0,
          "the channels or the option");
    static trace_log log;
    double point[2] = {0.5, 0.8}, options[1] = {0.0}, out = NAN, plain = NAN;
    uint8_t status = 255, plain_status = 255;
    is_trace_sink sink = {log_sample, log_event, &log};
    is_error err;
    CHECK(tr->run(NULL, point, options, &sink, &out, &status, &err) == IS_OK, "trace failed");
    CHECK(traced_eval(NULL, point, 1, &plain, &plain_status, &err) == IS_OK && plain == out &&
              plain_status == status, "the trace's output %.17g, eval_batch's %.17g", out, plain);
    double exact[IMPACTS], worst = 0.0;
    wall_exact(0.5, 0.8, exact);
    int count[3] = {0};
    for (size_t i = 0; i < log.events; i++) {
        int k = log.kind[i];
        CHECK(k >= 0 && k < 3, "event %zu of kind %d", i, k);
        if (k == 0) /* at the wall, at the exact time */
            worst = fmax(worst, fmax(fabs(log.ey[i][0] - 0.5), fabs(log.et[i] - exact[count[0]])));
        else /* the minimum: v = 0 and x < 0; the kink: x = 0 */
            worst = fmax(worst, k == 1 ? fabs(log.ey[i][1]) + (log.ey[i][0] >= 0)
                                       : fabs(log.ey[i][0]));
        count[k]++;
    }
    for (size_t i = 1; i < log.samples; i++)
        CHECK(log.t[i] >= log.t[i - 1], "sample %zu before the one before it", i);
    printf("\n    trace: %zu samples; %d impacts, %d minima, %d zeros, within %.2g", log.samples,
           count[0], count[1], count[2], worst);
    CHECK(count[0] == IMPACTS && count[1] == IMPACTS - 1 && count[2] == 2 * (IMPACTS - 1) &&
              worst < 1e-8, "events: %d %d %d, off by %.3g", count[0], count[1], count[2], worst);
    CHECK(log.t[log.samples - 1] == out, "the last sample is not the end");
    size_t every = log.samples; /* dt = 1: fewer samples, the same events */
    log.samples = log.events = 0;
    options[0] = 1.0;
    CHECK(tr->run(NULL, point, options, &sink, &out, &status, &err) == IS_OK && out == plain &&
              log.events == (size_t)(count[0] + count[1] + count[2]) && log.samples < every,
          "dt = 1: %zu samples, %zu events", log.samples, log.events);
}

/* --- a soft floor without rates: kinks located to the asked tolerance --------------------- */

/* A ball x'' = -1 on a Kelvin-Voigt floor without damping (x'' = -1 - k x below x = 0), so
 * e = 1 exactly: thrown up from x = 1 at 0.5, its apexes before and after the contact are
 * equally high. Events: the floor (IS_HYBRID_KINK: the field's derivative jumps there), the
 * apex (IS_HYBRID_OBSERVE, v falling through 0); no rates, so the kinks are landed on by
 * secants: |e - 1| follows rtol (within 5 rtol; 1.1 rtol measured, 39 rtol without the
 * secants). rec: [0], [1] the apexes' heights, [2] their count. */
enum { SOFT_K };
static void soft_field(is_hybrid_lanes *b, lv_double t, const lv_double *y, lv_double *f)
{
    (void)t;
    f[0] = y[1];
    f[1] = lv_sel(lv_lt(y[0], lv_zero()), -1.0 - b->par[SOFT_K] * y[0], lv_splat(-1.0));
}

static void soft_events(const is_hybrid_lanes *b, lv_double t, const lv_double *y,
                        const lv_double *f, lv_double *g, lv_double *dg)
{
    (void)b, (void)t, (void)f, (void)dg;
    g[0] = y[0];
    g[1] = y[1];
}

static lv_mask soft_event(is_hybrid_lanes *b, const lv_mask *fired, lv_double t, lv_double *y)
{
    (void)t;
    lv_double n = b->rec[2];
    b->rec[0] = lv_sel(fired[1] & lv_eq(n, lv_zero()), y[0], b->rec[0]);
    b->rec[1] = lv_sel(fired[1] & lv_eq(n, lv_splat(1.0)), y[0], b->rec[1]);
    b->rec[2] = lv_add_where(fired[1], n, lv_splat(1.0));
    return fired[1] & lv_ge(b->rec[2], lv_splat(2.0));
}

static int soft_start(void *ctx, size_t i, is_hybrid_start *s)
{
    wall_batch *w = ctx;
    s->t_end = 100.0;
    s->y[0] = 1.0;
    s->y[1] = 0.5;
    s->par[SOFT_K] = w->points[i][0];
    s->rtol = w->points[i][1];
    s->atol = 1e-3 * s->rtol;
    s->max_steps = 1e6;
    return 1;
}

static const is_hybrid_system soft_floor = {
    .dimension = 2, .events = 2, .direction = {0, -1},
    .kind = {IS_HYBRID_KINK, IS_HYBRID_OBSERVE}, .field = soft_field,
    .event_values = soft_events, .on_event = soft_event, .start = soft_start,
    .finish = wall_finish};

static void test_soft_floor(void)
{
    static const double points[][2] = {{1.0, 1e-10}, {100.0, 1e-10}, {1e4, 1e-10},
                                       {1.0, 1e-9}, {100.0, 1e-11}, {1e4, 1e-8}};
    enum { N = sizeof points / sizeof *points };
    is_hybrid_end ends[N];
    int finished[N] = {0};
    wall_batch w = {points, ends, finished, 0.0};
    CHECK(is_hybrid_run(&soft_floor, &w, N, NULL, 0) == 0, "run failed");
    printf("\n    soft floor, zeta = 0, no rates: |e - 1| =");
    for (int i = 0; i < N; i++) {
        double e = sqrt(ends[i].rec[1] / ends[i].rec[0]), err = fabs(e - 1.0);
        printf(" %.2g (k %g, rtol %g)", err, points[i][0], points[i][1]);
        CHECK(ends[i].status == IS_HYBRID_ENDED && fabs(ends[i].rec[0] - 1.125) < 1e-9 &&
                  err <= 5.0 * points[i][1],
              "k %g, rtol %g: status %d, apexes %.17g and %.17g: |e - 1| = %.3g", points[i][0],
              points[i][1], ends[i].status, ends[i].rec[0], ends[i].rec[1], err);
    }
}

/* --- events inside a predicted kink landing ------------------------------------------------- */

/* A kink predicted from its rate turns the step into a landing on it; an event that crosses
 * inside that landing step is located there, not reported at the kink. The system: x' = 1,
 * y' = v, v' = -1 - max(x - K, 0) from (0, 0, 1): x = t and y = t - t^2 / 2 up to the kink
 * at x = K (IS_HYBRID_KINK, rates given). The other event (IS_HYBRID_LAND, rates given) by
 * LAND_FORM: 0, y - c (crosses at 1 - sqrt(1 - 2 c)); 1, (x - m)^2 - d^2 (a dip through
 * zero and back inside the step: crosses at m - d, and back at m + d); 2, K - x (the kink
 * itself: both at K, together or one just after the other, as the landing's rounding
 * falls). The solution is a polynomial that DOPRI5 integrates exactly, so the first step
 * (h = 1) is accepted, and it is predicted onto the kink with the crossing inside. The run
 * ends once both have happened. rec: [0] the event's first time, [1] y there, [2] the
 * kink's time, [3] arrivals with both events together, [4] arrivals with any. */
enum { LAND_K, LAND_FORM, LAND_A, LAND_B };
static void land_field(is_hybrid_lanes *b, lv_double t, const lv_double *y, lv_double *f)
{
    (void)t;
    f[0] = lv_splat(1.0);
    f[1] = y[2];
    f[2] = -1.0 - lv_max_nanb(y[0] - b->par[LAND_K], lv_zero());
}

static void land_events(const is_hybrid_lanes *b, lv_double t, const lv_double *y,
                        const lv_double *f, lv_double *g, lv_double *dg)
{
    (void)t;
    const lv_double *q = b->par;
    lv_mask dip = lv_eq(q[LAND_FORM], lv_splat(1.0)), same = lv_eq(q[LAND_FORM], lv_splat(2.0));
    lv_double off = y[0] - q[LAND_A];
    g[0] = y[0] - q[LAND_K];
    g[1] = lv_sel(dip, off * off - q[LAND_B] * q[LAND_B], lv_sel(same, -g[0], y[1] - q[LAND_A]));
    if (dg) {
        dg[0] = f[0];
        dg[1] = lv_sel(dip, 2.0 * off * f[0], lv_sel(same, -f[0], f[1]));
    }
}

static lv_mask land_event(is_hybrid_lanes *b, const lv_mask *fired, lv_double t, lv_double *y)
{
    lv_mask first = fired[1] & lv_eq(b->rec[0], lv_zero());
    b->rec[0] = lv_sel(first, t, b->rec[0]);
    b->rec[1] = lv_sel(first, y[1], b->rec[1]);
    b->rec[2] = lv_sel(fired[0] & lv_eq(b->rec[2], lv_zero()), t, b->rec[2]);
    b->rec[3] = lv_add_where(fired[0] & fired[1], b->rec[3], lv_splat(1.0));
    b->rec[4] = lv_add_where(fired[0] | fired[1], b->rec[4], lv_splat(1.0));
    return lv_gt(b->rec[0], lv_zero()) & lv_gt(b->rec[2], lv_zero());
}

/* points[i] = (K, form, a, b) */
typedef struct land_batch {
    const double (*points)[4];
    is_hybrid_end *ends;
} land_batch;

static int land_start(void *ctx, size_t i, is_hybrid_start *s)
{
    const land_batch *w = ctx;
    s->t_end = 10.0;
    s->y[2] = 1.0;
    for (int p = 0; p < 4; p++)
        s->par[p] = w->points[i][p];
    s->h = 1.0;
    s->rtol = 1e-10;
    s->atol = 1e-12;
    return 1;
}

static void land_finish(void *ctx, size_t i, const is_hybrid_end *e)
{
    const land_batch *w = ctx;
    w->ends[i] = *e;
}

static const is_hybrid_system land_system = {
    .dimension = 3, .events = 2, .direction = {0, 0}, .kind = {IS_HYBRID_KINK, IS_HYBRID_LAND},
    .field = land_field, .event_values = land_events, .rates = 1, .on_event = land_event,
    .start = land_start, .finish = land_finish};

/* The same with the other event a kink too: both are predicted within the first step, the
 * other first; only it is landed on (not the two together at the earlier's time). */
static const is_hybrid_system land_kinks = {
    .dimension = 3, .events = 2, .direction = {0, 0}, .kind = {IS_HYBRID_KINK, IS_HYBRID_KINK},
    .field = land_field, .event_values = land_events, .rates = 1, .on_event = land_event,
    .start = land_start, .finish = land_finish};

/* A point of test_landing_crossings, (K, form, a, b), against its exact times. */
static void check_landing(const double *point, const is_hybrid_end *end, int kinks)
{
    double K = point[0], form = point[1], a = point[2], d = point[3];
    double t = form == 0 ? 1.0 - sqrt(1.0 - 2.0 * a) : form == 1 ? a - d : K;
    const double *r = end->rec;
    CHECK(end->status == IS_HYBRID_ENDED && fabs(r[0] - t) <= 1e-9 &&
              fabs(r[1] - (t - 0.5 * t * t)) <= 1e-9 && fabs(r[2] - K) <= 1e-12 &&
              (form == 2 ? r[4] <= 2.0 : r[3] == 0.0 && r[4] == (form == 1 ? 3.0 : 2.0)),
          "%s, K %g, form %g, %g %g: status %d, event at t %.17g (exact %.17g), y %.17g (exact "
          "%.17g), kink at %.17g; %g together of %g arrivals",
          kinks ? "two kinks" : "kink and land", K, form, a, d, end->status, r[0], t, r[1],
          t - 0.5 * t * t, r[2], r[3], r[4]);
}

static void test_landing_crossings(void)
{
    static const double points[][4] = {
        {0.6, 0, 0.3, 0},    {0.9, 0, 0.4948995, 0}, {0.75, 0, 0.46, 0}, {0.8, 0, 0.1, 0},
        {0.6, 1, 0.4, 0.01}, {0.9, 1, 0.3, 0.05},    {0.75, 2, 0, 0}};
    /* the other kink's roots where its first-order prediction is a few Newton corrections
     * from them (further, a landing may arrive before it has converged) */
    static const double kink_points[][4] = {{0.6, 0, 0.3, 0}, {0.8, 0, 0.1, 0}, {0.75, 2, 0, 0}};
    enum { N = sizeof points / sizeof *points, NK = sizeof kink_points / sizeof *kink_points };
    for (int kinks = 0; kinks < 2; kinks++) {
        const double(*p)[4] = kinks ? kink_points : points;
        size_t n = kinks ? NK : N;
        is_hybrid_end ends[N];
        memset(ends, 0, sizeof ends);
        land_batch w = {p, ends};
        CHECK(is_hybrid_run(kinks ? &land_kinks : &land_system, &w, n, NULL, 0) == 0,
              "run failed");
        for (size_t i = 0; i < n; i++)
            check_landing(p[i], &ends[i], kinks);
    }
}

void suite_hybrid(void)
{
    CU_pSuite s = CU_add_suite("hybrid", NULL, NULL);
    CU_add_test(s, "the integrator's trace: samples, events and their kinds", test_trace);
    CU_add_test(s, "oscillator and wall: exact impact times (DOPRI5)", test_wall_field);
    CU_add_test(s, "oscillator and wall: exact impact times (closed-form flow)", test_wall_flow);
    CU_add_test(s, "a point's bits whatever its lane and batch", test_wall_lanes);
    CU_add_test(s, "accumulation at the geometric limit, Zeno, sticking", test_accumulation);
    CU_add_test(s, "accumulation through rounding noise (the stall rule)",
                test_accumulation_noise);
    CU_add_test(s, "a grazing contact inside a flow step", test_graze);
    CU_add_test(s, "grazes of a forced oscillator, without rates (flow and field)",
                test_forced_grazes);
    CU_add_test(s, "a soft floor without rates: e = 1 to the asked tolerance", test_soft_floor);
    CU_add_test(s, "events crossed inside a predicted kink landing: located, not at the kink",
                test_landing_crossings);
}
