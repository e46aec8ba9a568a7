/* test_sections.c: the hybrid integrator's section recorders (hybrid_sections.h) against
 * motions whose sections are known exactly.
 *
 * A rotation (flow mode): (c, s) = A (cos(w t + a), sin(w t + a)), with w = 2 pi m / k
 * (m, k coprime), sampled at t = 1, 2, ... (the stroboscopic section, T = 1) has period k
 * exactly, k distinct values, and its time stamps are t0 + j; an observe event where s
 * rises through 0 samples it at c = A. Periods up to N/2 are found, N per point, k > 16
 * with N = 64 (the old ring of 32 stops at 16), none at k = 33 with N = 64 but k = 33 with
 * N = 66, none for an irrational rotation; the same at any amplitude (the tolerance is
 * relative to the section's scale). The copy fills the caller's buffer, oldest first, NaN
 * before the first sample kept, and a point's copy has the same bits alone and in a batch.
 *
 * The bouncing ball on its period-1 orbit (a table at Gamma sin t, x'' = -1, impacts
 * v - w = -r (v_in - w), w = Gamma cos t): the impacts come at the phase phi with
 * Gamma cos(phi) = pi (1 - r)/(1 + r), the ball arriving at -pi and leaving at +pi (a
 * flight of 2 pi from velocity pi returns to the same height). Its impact section, taken
 * before and after the reset, holds exactly these, one sample an impact. */
#include <CUnit/CUnit.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "models/shared/hybrid.h"
#include "suites.h"

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif
#define COPY 70 /* values copied per point (more than some points keep) */

/* --- the rotation ---------------------------------------------------------------------- */

enum { ROT_W, ROT_A, ROT_PHASE }; /* the lanes' parameters */

/* A point: the rotation's m / k (or an irrational share), amplitude, N and horizon. */
typedef struct rot_point {
    double m, k, amplitude;
    int n, periods;
} rot_point;

typedef struct rot_result {
    int finished, status, period, distinct, event_period, copied, old_period;
    int64_t count, events_count;
    int kept;
    double spread, event_c_error, event_s_error, t[COPY], c[COPY];
} rot_result;

typedef struct rot_batch {
    const rot_point *points;
    rot_result *results;
} rot_batch;

static void rot_flow(const is_hybrid_lanes *b, lv_double t0, const lv_double *y0, lv_double dt,
                     lv_double *y)
{
    lv_double s, c, a = b->par[ROT_A];
    (void)y0, lv_sincos(b->par[ROT_W] * (t0 + dt) + b->par[ROT_PHASE], &s, &c);
    y[0] = a * c;
    y[1] = a * s;
}

static void rot_events(const is_hybrid_lanes *b, lv_double t, const lv_double *y,
                       const lv_double *f, lv_double *g, lv_double *dg)
{
    (void)t, (void)f;
    g[0] = y[1];
    if (dg)
        dg[0] = b->par[ROT_W] * y[0];
}

static lv_mask rot_event(is_hybrid_lanes *b, const lv_mask *fired, lv_double t, lv_double *y)
{
    (void)b, (void)fired, (void)t, (void)y;
    return lv_mask_none();
}

static int rot_start(void *ctx, size_t i, is_hybrid_start *s)
{
    const rot_point *p = &((rot_batch *)ctx)->points[i];
    double w = 2.0 * M_PI * p->m / p->k, phase = 0.3;
    s->t_end = p->periods;
    s->section_period = 1.0;
    s->par[ROT_W] = w, s->par[ROT_A] = p->amplitude, s->par[ROT_PHASE] = phase;
    s->y[0] = p->amplitude * cos(phase), s->y[1] = p->amplitude * sin(phase);
    s->h_max = 0.3;
    s->section_samples[0] = s->section_samples[1] = p->n;
    return 1;
}

static void rot_finish(void *ctx, size_t i, const is_hybrid_end *e)
{
    rot_batch *bt = ctx;
    const rot_point *p = &bt->points[i];
    rot_result *r = &bt->results[i];
    const is_hybrid_section *strobe = &e->recorded[0], *at = &e->recorded[1];
    r->finished++;
    r->status = e->status;
    r->count = strobe->count;
    r->kept = is_hybrid_section_kept(strobe);
    r->period = is_hybrid_section_period(strobe, 2, IS_HYBRID_SECTION_MAX, 1e-9, NULL);
    r->distinct = is_hybrid_section_distinct(strobe, 2, strobe->n, 1e-9, NULL);
    r->spread = is_hybrid_section_spread(strobe, 0, strobe->n);
    double tol[2] = {1e-9 * p->amplitude, 1e-9 * p->amplitude}; /* the old ring of 32 */
    r->old_period = is_hybrid_period(e, 2, IS_HYBRID_RING, tol);
    r->copied = is_hybrid_section_copy(strobe, IS_HYBRID_SECTION_TIME, COPY, r->t, 1);
    is_hybrid_section_copy(strobe, 0, COPY, r->c, 1);
    /* the observe event's section: s rising through 0, so c = A; s is 0 to rounding there,
     * its scale too: it takes an absolute tolerance */
    double atol[2] = {1e-12 * p->amplitude, 1e-12 * p->amplitude};
    r->events_count = at->count;
    r->event_period = is_hybrid_section_period(at, 2, IS_HYBRID_SECTION_MAX, 1e-9, atol);
    r->event_c_error = r->event_s_error = 0.0;
    for (int k = 0; k < is_hybrid_section_kept(at); k++) {
        r->event_c_error = fmax(r->event_c_error,
                                fabs(is_hybrid_section_value(at, k, 0) - p->amplitude) / p->amplitude);
        r->event_s_error = fmax(r->event_s_error,
                                fabs(is_hybrid_section_value(at, k, 1)) / p->amplitude);
    }
}

static const is_hybrid_system rotation = {
    .dimension = 2, .events = 1, .direction = {1}, .kind = {IS_HYBRID_OBSERVE},
    .sections = 1, .recorders = 2,
    .recorder = {{IS_HYBRID_SECTION_STROBE, 0, 0, 0, 128},
                 {IS_HYBRID_SECTION_EVENTS, 1u, 1, 0, 128}},
    .flow = rot_flow, .event_values = rot_events, .rates = 1, .on_event = rot_event,
    .start = rot_start, .finish = rot_finish};

static void rot_run(const rot_point *points, size_t n, rot_result *results)
{
    rot_batch bt = {points, results};
    memset(results, 0, n * sizeof *results);
    CHECK(is_hybrid_run(&rotation, &bt, n, NULL, 0) == 0, "the rotation's run failed");
}

static void test_rotation_periods(void)
{
    const double golden = 0.5 * (sqrt(5.0) - 1.0);
    /* m / k, amplitude, N, periods: the expected period is k where k <= N / 2 */
    static rot_point points[] = {
        {1, 1, 1.0, 64, 200},   {1, 3, 1.0, 64, 200},   {5, 17, 1.0, 64, 200},
        {7, 23, 1e6, 64, 200},  {3, 31, 1e-6, 64, 200}, {1, 32, 1.0, 64, 200},
        {2, 33, 1.0, 64, 200},  {2, 33, 1.0, 66, 200},  {1, 5, 1.0, 8, 200},
        {1, 4, 1.0, 8, 3},      {1, 1, 1.0, 64, 5000},  {0, 1, 1.0, 128, 300}};
    enum { COUNT = sizeof points / sizeof *points };
    points[COUNT - 1].m = golden; /* irrational: no period */
    rot_result results[COUNT], alone;
    rot_run(points, COUNT, results);
    for (size_t i = 0; i < COUNT; i++) {
        const rot_point *p = &points[i];
        const rot_result *r = &results[i];
        int irrational = i == COUNT - 1, k = (int)p->k;
        int expected = irrational || 2 * k > p->n || 2 * k > p->periods ? 0 : k;
        int kept = p->periods < p->n ? p->periods : p->n;
        CHECK(r->finished == 1 && r->status == IS_HYBRID_HORIZON, "point %zu: status %d", i,
              r->status);
        CHECK(r->count == p->periods && r->kept == kept,
              "point %zu: %lld samples taken, %d kept (expected %d, %d)", i, (long long)r->count,
              r->kept, p->periods, kept);
        CHECK(r->period == expected, "point %zu (m/k = %g/%g, N = %d): period %d, expected %d", i,
              p->m, p->k, p->n, r->period, expected);
        /* the old ring (32 kept: periods up to 16) agrees where it can see the period */
        int old = irrational || 2 * k > IS_HYBRID_RING ? 0 : k;
        CHECK(p->periods < IS_HYBRID_RING || r->old_period == old,
              "point %zu: the old ring's period %d, expected %d", i, r->old_period, old);
        int distinct = irrational ? kept : (k < kept ? k : kept);
        CHECK(r->distinct == distinct, "point %zu: %d distinct values, expected %d", i,
              r->distinct, distinct);
        /* the time stamps t = j and the values A cos(w j + 0.3), oldest first */
        int copied = kept < COPY ? kept : COPY;
        CHECK(r->copied == copied, "point %zu: %d copied, expected %d", i, r->copied, copied);
        for (int j = 0; j < COPY; j++) {
            double t = p->periods - (COPY - 1 - j);
            double c = p->amplitude * cos(2.0 * M_PI * p->m / p->k * t + 0.3);
            if (j < COPY - copied)
                CHECK(isnan(r->t[j]) && isnan(r->c[j]), "point %zu: copy %d not NaN", i, j);
            else
                CHECK(r->t[j] == t && fabs(r->c[j] - c) <= 1e-12 * p->amplitude,
                      "point %zu: copy %d: (%.17g, %.17g), expected (%.17g, %.17g)", i, j,
                      r->t[j], r->c[j], t, c);
        }
        /* the observe event's section: s = 0 rising, c = A, one a turn */
        double turns = p->periods * p->m / p->k;
        CHECK(r->events_count >= (int64_t)turns - 1 && r->events_count <= (int64_t)turns + 1,
              "point %zu: %lld events, %.3g turns", i, (long long)r->events_count, turns);
        CHECK(r->events_count == 0 || (r->event_c_error <= 1e-12 && r->event_s_error <= 1e-9),
              "point %zu: event samples off (c, s) = (A, 0) by %.3g, %.3g", i, r->event_c_error,
              r->event_s_error);
        CHECK(r->events_count < 2 || r->event_period == 1, "point %zu: event section period %d",
              i, r->event_period);
        /* a point's bits alone as in the batch */
        rot_run(p, 1, &alone);
        CHECK(!memcmp(alone.t, r->t, sizeof r->t) && !memcmp(alone.c, r->c, sizeof r->c),
              "point %zu: its copy alone differs from the batch's", i);
    }
    printf("\n    rotations: periods 1 to 33 found with N up to 66, none above N/2, none for "
           "the golden share; %d points\n", (int)COUNT);
}

/* --- the bouncing ball's impact section ------------------------------------------------- */

enum { BALL_GAMMA, BALL_R };

typedef struct ball_point {
    double gamma, r;
} ball_point;

typedef struct ball_result {
    int finished, status;
    int64_t impacts, before_count, after_count;
    double phase_error, before_error, after_error, height_error;
} ball_result;

typedef struct ball_batch {
    const ball_point *points;
    ball_result *results;
} ball_batch;

static void ball_flow(const is_hybrid_lanes *b, lv_double t0, const lv_double *y0, lv_double dt,
                      lv_double *y)
{
    (void)b, (void)t0;
    y[0] = y0[0] + dt * (y0[1] + -0.5 * dt);
    y[1] = y0[1] + -dt;
}

static void ball_events(const is_hybrid_lanes *b, lv_double t, const lv_double *y,
                        const lv_double *f, lv_double *g, lv_double *dg)
{
    lv_double s, c, G = b->par[BALL_GAMMA];
    (void)f, lv_sincos(t, &s, &c);
    g[0] = y[0] - G * s;
    if (dg)
        dg[0] = y[1] - G * c;
}

static lv_mask ball_impact(is_hybrid_lanes *b, const lv_mask *fired, lv_double t, lv_double *y)
{
    lv_double s, c;
    lv_sincos(t, &s, &c);
    lv_double w = b->par[BALL_GAMMA] * c;
    b->rec[0] = lv_add_where(fired[0], b->rec[0], lv_splat(1.0));
    y[1] = lv_sel(fired[0], w + b->par[BALL_R] * (w - y[1]), y[1]);
    return lv_mask_none();
}

/* On the orbit at t = 0: in flight since the impact at phi - 2 pi, s = 2 pi - phi ago. */
static int ball_start(void *ctx, size_t i, is_hybrid_start *s)
{
    const ball_point *p = &((ball_batch *)ctx)->points[i];
    double phi = acos(M_PI * (1.0 - p->r) / (1.0 + p->r) / p->gamma), f = 2.0 * M_PI - phi;
    s->t_end = 2.0 * M_PI * 40;
    s->y[0] = p->gamma * sin(phi) + M_PI * f - 0.5 * f * f;
    s->y[1] = M_PI - f;
    s->par[BALL_GAMMA] = p->gamma, s->par[BALL_R] = p->r;
    s->h_max = 0.25;
    return 1;
}

static void ball_finish(void *ctx, size_t i, const is_hybrid_end *e)
{
    ball_batch *bt = ctx;
    const ball_point *p = &bt->points[i];
    ball_result *r = &bt->results[i];
    const is_hybrid_section *before = &e->recorded[0], *after = &e->recorded[1];
    double phi = acos(M_PI * (1.0 - p->r) / (1.0 + p->r) / p->gamma);
    r->finished++;
    r->status = e->status;
    r->impacts = (int64_t)e->rec[0];
    r->before_count = before->count;
    r->after_count = after->count;
    for (int k = 0; k < is_hybrid_section_kept(before); k++) {
        double t = is_hybrid_section_value(before, k, IS_HYBRID_SECTION_TIME);
        double phase = t - 2.0 * M_PI * floor(t / (2.0 * M_PI));
        r->phase_error = fmax(r->phase_error, fabs(phase - phi));
        r->height_error = fmax(r->height_error,
                               fabs(is_hybrid_section_value(before, k, 0) - p->gamma * sin(phi)));
        r->before_error = fmax(r->before_error, fabs(is_hybrid_section_value(before, k, 1) + M_PI));
        r->after_error = fmax(r->after_error, fabs(is_hybrid_section_value(after, k, 1) - M_PI));
        /* the same arrival in both */
        if (is_hybrid_section_value(after, k, IS_HYBRID_SECTION_TIME) != t)
            r->phase_error = INFINITY;
    }
}

static const is_hybrid_system ball = {
    .dimension = 2, .events = 1, .direction = {-1}, .kind = {IS_HYBRID_RESET},
    .recorders = 2,
    .recorder = {{IS_HYBRID_SECTION_EVENTS, 1u, 0, 0, 0}, {IS_HYBRID_SECTION_EVENTS, 1u, 1, 0, 0}},
    .flow = ball_flow, .event_values = ball_events, .rates = 1, .on_event = ball_impact,
    .start = ball_start, .finish = ball_finish};

static void test_impact_section(void)
{
    /* (inside the stable band pi (1 - r)/(1 + r) < Gamma < ..., r = 0.5: 1.05 to 1.53,
     * 0.7: 0.55 to 1.17, 0.3: 1.69 to 2.13) */
    static const ball_point points[] = {{1.2, 0.5}, {1.45, 0.5}, {0.8, 0.7}, {1.1, 0.7},
                                        {1.9, 0.3}};
    enum { COUNT = sizeof points / sizeof *points };
    ball_result results[COUNT];
    ball_batch bt = {points, results};
    memset(results, 0, sizeof results);
    CHECK(is_hybrid_run(&ball, &bt, COUNT, NULL, 0) == 0, "the ball's run failed");
    double worst = 0.0;
    for (size_t i = 0; i < COUNT; i++) {
        const ball_result *r = &results[i];
        CHECK(r->finished == 1 && r->status == IS_HYBRID_HORIZON, "ball %zu: status %d", i,
              r->status);
        /* one impact a period, every one sampled (N = 64 by default: all 40 kept) */
        CHECK(r->impacts == 40 && r->before_count == 40 && r->after_count == 40,
              "ball %zu: %lld impacts, %lld and %lld samples", i, (long long)r->impacts,
              (long long)r->before_count, (long long)r->after_count);
        CHECK(r->phase_error <= 1e-11 && r->height_error <= 1e-11,
              "ball %zu: impact phase off by %.3g, height by %.3g", i, r->phase_error,
              r->height_error);
        CHECK(r->before_error <= 1e-10 && r->after_error <= 1e-10,
              "ball %zu: velocity before the reset off -pi by %.3g, after it off pi by %.3g", i,
              r->before_error, r->after_error);
        worst = fmax(worst, fmax(fmax(r->phase_error, r->height_error),
                                 fmax(r->before_error, r->after_error)));
    }
    printf("\n    the ball's impact section on its period-1 orbit: phase, height and velocities "
           "(before, after the reset) within %.2g of the exact ones\n", worst);
}

void suite_sections(void)
{
    CU_pSuite s = CU_add_suite("sections", NULL, NULL);
    CU_add_test(s, "rotations: periods up to N/2, N per point, copies", test_rotation_periods);
    CU_add_test(s, "the bouncing ball's impact section, before and after the reset",
                test_impact_section);
}
