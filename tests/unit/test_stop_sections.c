/* test_stop_sections.c: the stop oscillator's rebound-map sections (`sections` = 1), part
 * of the `stop` suite (test_stop.c adds these tests). The rings are checked against the
 * trace's events (their times and states, the energies computed here from those states)
 * and the lanes' rings against the scalar run's, the outputs against a reading of those
 * events written out here, a start on a 2-phase orbit (one release value, period 1, its
 * energy), `sections` against every other output, and the model's shortcut reading
 * against hybrid_sections.h's scans on made-up rings (period-k patterns give k). */
#include <CUnit/CUnit.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "models/shared/hybrid.h"
#include "models/stop_oscillator/stop_oscillator.h"

void stop_sections_tests(CU_pSuite suite);

#define RTOL 1e-7  /* the model's section tolerance (stop_sections.c), restated */
#define ATOL 1e-12 /* (in the scaled units: k = s = 1 in these points) */

/* A point of the paper's map (k = s = 1: the scaled units are the given ones). */
static void map_point(double *p, double k12, double epsilon, double t_end)
{
    for (int q = 0; q < STOP_PARAM_COUNT; q++)
        p[q] = is_model_stop_oscillator.params[q].default_value;
    p[STOP_K12] = k12;
    p[STOP_EPSILON] = epsilon;
    p[STOP_X1] = p[STOP_V1] = p[STOP_V2] = 0.0;
    p[STOP_X2] = 3.0;
    p[STOP_T_END] = t_end;
    p[STOP_SECTIONS] = 1.0;
}

/* --- the trace's events ------------------------------------------------------------- */

typedef struct events {
    size_t n, cap;
    double *t, *v; /* v: CHANNELS values an event */
    int *kind;
} events;

enum { CHANNELS = 6 }; /* x1, v1, x2, v2, energy, contact (stop_trace.c) */

static is_code on_sample(void *context, double t, const double *values)
{
    (void)context, (void)t, (void)values;
    return IS_OK;
}

static is_code on_event(void *context, double t, int kind, const double *values)
{
    events *e = context;
    if (e->n == e->cap) {
        size_t cap = e->cap ? 2 * e->cap : 1024;
        double *nt = realloc(e->t, cap * sizeof *nt);
        if (nt)
            e->t = nt;
        double *nv = realloc(e->v, cap * CHANNELS * sizeof *nv);
        if (nv)
            e->v = nv;
        int *nk = realloc(e->kind, cap * sizeof *nk);
        if (nk)
            e->kind = nk;
        if (!nt || !nv || !nk)
            return IS_NOMEM;
        e->cap = cap;
    }
    e->t[e->n] = t;
    e->kind[e->n] = kind;
    memcpy(e->v + e->n * CHANNELS, values, CHANNELS * sizeof *values);
    e->n++;
    return IS_OK;
}

static int channel(const char *name)
{
    const is_model_trace *tr = is_model_stop_oscillator.trace;
    for (size_t c = 0; c < tr->channel_count; c++)
        if (strcmp(tr->channels[c].name, name) == 0)
            return (int)c;
    return -1;
}

static int event_kind(const char *name)
{
    const is_model_trace *tr = is_model_stop_oscillator.trace;
    for (int k = 0; tr->events[k]; k++)
        if (strcmp(tr->events[k], name) == 0)
            return k;
    return -1;
}

/* The section's samples from the events of one kind: rows (t, E, x2, v2), E computed here
 * from the event's state and the point's k, k12; returns how many there are (all of
 * them, the last `max` kept in rows, oldest first). */
static size_t event_rows(const events *e, int kind, const double *p, double (*rows)[4],
                         size_t max)
{
    int c_x1 = channel("x1"), c_v1 = channel("v1"), c_x2 = channel("x2"), c_v2 = channel("v2");
    size_t total = 0;
    for (size_t i = 0; i < e->n; i++)
        total += e->kind[i] == kind;
    size_t skip = total > max ? total - max : 0, j = 0, seen = 0;
    for (size_t i = 0; i < e->n; i++) {
        if (e->kind[i] != kind || seen++ < skip)
            continue;
        const double *v = e->v + i * CHANNELS;
        double x1 = v[c_x1], v1 = v[c_v1], x2 = v[c_x2], v2 = v[c_v2], d = x1 - x2;
        rows[j][0] = e->t[i];
        rows[j][1] = 0.5 * (v1 * v1 + v2 * v2) +
                     0.5 * (p[STOP_K] * x1 * x1 + p[STOP_K12] * d * d + p[STOP_K] * x2 * x2);
        rows[j][2] = x2;
        rows[j][3] = v2;
        j++;
    }
    return total;
}

/* The reading the outputs document, written out: samples are the same when each of
 * (E, x2, v2) differs by at most RTOL times its largest |value| plus ATOL; the period is
 * the least p (2p samples) whose last p samples each equal the one p before; the values,
 * newest first, those that equal no value found before. */
static void tolerances(double (*rows)[4], size_t n, double *tol)
{
    for (int c = 0; c < 3; c++) {
        double scale = 0.0;
        for (size_t i = 0; i < n; i++)
            scale = fmax(scale, fabs(rows[i][1 + c]));
        tol[c] = ATOL + RTOL * scale;
    }
}

static int same_row(const double *a, const double *b, const double *tol)
{
    return fabs(a[1] - b[1]) <= tol[0] && fabs(a[2] - b[2]) <= tol[1] &&
           fabs(a[3] - b[3]) <= tol[2];
}

static double written_period(double (*rows)[4], size_t n)
{
    double tol[3];
    tolerances(rows, n, tol);
    for (size_t p = 1; p <= STOP_SECTION_N / 2 && 2 * p <= n; p++) {
        int same = 1;
        for (size_t k = 0; k < p && same; k++)
            same = same_row(rows[n - 1 - k], rows[n - 1 - k - p], tol);
        if (same)
            return (double)p;
    }
    return NAN;
}

static double written_values(double (*rows)[4], size_t n)
{
    double tol[3];
    size_t first[STOP_SECTION_N], found = 0;
    tolerances(rows, n, tol);
    for (size_t k = 0; k < n; k++) {
        int known = 0;
        for (size_t j = 0; j < found && !known; j++)
            known = same_row(rows[n - 1 - k], rows[first[j]], tol);
        if (!known)
            first[found++] = n - 1 - k;
    }
    return (double)found;
}

/* Point p's run on the scalar path with its rings (pt->rings = rings), as eval_batch's
 * stop_evaluate_point runs it. */
static void run_with_rings(void *ws, const double *p, stop_task *pt, stop_ring *rings)
{
    double outputs[STOP_OUTPUT_COUNT], *out[STOP_OUTPUT_COUNT];
    uint8_t status;
    for (int o = 0; o < STOP_OUTPUT_COUNT; o++)
        out[o] = &outputs[o];
    pt->rings = rings;
    CU_ASSERT_FATAL(stop_point_begin(ws, p, NULL, pt, out, &status) == STOP_POINT_RUN);
    stop_simulate(&pt->sys, &pt->x0, &pt->opt, &pt->r);
}

static int same_double(double a, double b)
{
    return memcmp(&a, &b, sizeof a) == 0;
}

/* The ring's last samples against the events' rows: times and positions, speeds the same
 * bits (the trace scales the run's own state by the same units), energies to rounding. */
static void check_ring(const stop_task *pt, const stop_ring *ring, double (*rows)[4],
                       size_t total, const char *what, int point)
{
    size_t kept = total < STOP_SECTION_N ? total : STOP_SECTION_N;
    CHECK(ring->count == (int64_t)total, "point %d: %s ring counted %lld, the trace %zu", point,
          what, (long long)ring->count, total);
    int bad = 0;
    for (size_t j = 0; j < kept && ring->count == (int64_t)total; j++) {
        const double *r = ring->row[(total - kept + j) % STOP_SECTION_N];
        double e = r[1] * pt->energy;
        bad |= !same_double(r[0] * pt->time, rows[j][0]) ||
               !same_double(r[2] * 1.0, rows[j][2]) || !same_double(r[3] * pt->speed, rows[j][3]) ||
               !(fabs(e - rows[j][1]) <= 1e-13 * fabs(rows[j][1]));
    }
    CHECK(!bad, "point %d: the %s ring differs from the trace's events", point, what);
}

/* The lanes' rings of point p (alone in a batch: lane 0) are the scalar path's, bit for
 * bit, the rows kept and the counts. */
static void check_lane_rings(void *ws, const double *p, const stop_ring *scalar, int point)
{
    stop_lanes *lanes = stop_lanes_create();
    CU_ASSERT_FATAL(lanes != NULL);
    double out[STOP_OUTPUT_COUNT];
    uint8_t status;
    stop_lanes_eval(lanes, ws, p, 1, out, &status);
    const stop_ring *lane = stop_lanes_rings(lanes, 0);
    for (int k = 0; k < STOP_RINGS; k++) {
        int64_t kept = scalar[k].count < STOP_SECTION_N ? scalar[k].count : STOP_SECTION_N;
        int same = lane[k].count == scalar[k].count;
        for (int64_t j = scalar[k].count - kept; j < scalar[k].count && same; j++)
            same = memcmp(lane[k].row[j % STOP_SECTION_N], scalar[k].row[j % STOP_SECTION_N],
                          sizeof lane[k].row[0]) == 0;
        CHECK(same, "point %d: the lanes' ring %d (%lld samples) is not the scalar run's "
              "(%lld)", point, k, (long long)lane[k].count, (long long)scalar[k].count);
    }
    stop_lanes_free(lanes);
}

static void test_rings_are_the_traced_events(void)
{
    const is_model *m = &is_model_stop_oscillator;
    /* impacting (hundreds of rebounds), approaching a 2-phase orbit, contact phases and
     * Zeno resets (the default point), undecided below an orbit */
    double points[4][STOP_PARAM_COUNT];
    map_point(points[0], 4.0, 0.5, 500.0);
    map_point(points[1], 1.844046027715572, 0.21281407035175876, 500.0);
    map_point(points[2], 1.0, 0.8, 100.0);
    for (int q = 0; q < STOP_PARAM_COUNT; q++)
        points[2][q] = m->params[q].default_value;
    points[2][STOP_SECTIONS] = 1.0;
    map_point(points[3], 2.5, 0.3, 400.0);
    void *ws = NULL;
    is_error err;
    CU_ASSERT_FATAL(m->workspace_create(&ws, &err) == IS_OK);
    double options[1] = {1.0}; /* resolution: the events are what is read */
    int rebound = event_kind("rebound"), release = event_kind("contact_end");
    size_t most = 0, releases = 0;
    for (int i = 0; i < 4; i++) {
        events e = {0};
        is_trace_sink sink = {on_sample, on_event, &e};
        double out[STOP_OUTPUT_COUNT];
        uint8_t status;
        CU_ASSERT_FATAL(m->trace->run(ws, points[i], options, &sink, out, &status, &err) ==
                        IS_OK);
        stop_task pt;
        stop_ring rings[STOP_RINGS];
        run_with_rings(ws, points[i], &pt, rings);
        static double rows[STOP_SECTION_N][4];
        size_t n = event_rows(&e, rebound, points[i], rows, STOP_SECTION_N);
        size_t kept = n < STOP_SECTION_N ? n : STOP_SECTION_N;
        most = n > most ? n : most;
        check_ring(&pt, &rings[STOP_RING_REBOUND], rows, n, "rebound", i);
        check_lane_rings(ws, points[i], rings, i);
        double period = written_period(rows, kept), values = written_values(rows, kept);
        CHECK(same_double(out[STOP_REBOUND_PERIOD], period) && out[STOP_REBOUND_VALUES] == values,
              "point %d: rebound_period %g values %g; from the trace %g and %g", i,
              out[STOP_REBOUND_PERIOD], out[STOP_REBOUND_VALUES], period, values);
        n = event_rows(&e, release, points[i], rows, STOP_SECTION_N);
        kept = n < STOP_SECTION_N ? n : STOP_SECTION_N;
        releases += n;
        check_ring(&pt, &rings[STOP_RING_RELEASE], rows, n, "release", i);
        period = written_period(rows, kept), values = written_values(rows, kept);
        CHECK(same_double(out[STOP_RELEASE_PERIOD], period) && out[STOP_RELEASE_VALUES] == values,
              "point %d: release_period %g values %g; from the trace %g and %g", i,
              out[STOP_RELEASE_PERIOD], out[STOP_RELEASE_VALUES], period, values);
        free(e.t);
        free(e.v);
        free(e.kind);
    }
    m->workspace_free(ws);
    CHECK(most > STOP_SECTION_N && releases > 8,
          "the points do not fill the rings (%zu rebounds at most, %zu releases)", most,
          releases);
}

static void test_a_start_on_a_two_phase_orbit(void)
{
    /* Started where a 2-phase orbit leaves contact (x1 = s, v1 = 0, x2 = x2t, v2 = v*):
     * the run reaches it (two rebound-free cycles), every release is that state again:
     * release_period 1 and one value, its energy E* = E(start); no rebound. */
    const is_model *m = &is_model_stop_oscillator;
    const double k12s[3] = {1.844046027715572, 2.5, 3.0};
    void *ws = NULL;
    is_error err;
    CU_ASSERT_FATAL(m->workspace_create(&ws, &err) == IS_OK);
    for (int c = 0; c < 3; c++) {
        stop_system sys;
        stop_system_init(&sys, 1.0, k12s[c], 1.0, 0.5);
        stop_orbit orbits[STOP_MAX_ORBITS];
        int n = stop_find_orbits(&sys, 20.0, 3, orbits);
        CHECK(n > 0, "k12 = %g: no 2-phase orbit", k12s[c]);
        if (n <= 0)
            continue;
        double p[STOP_PARAM_COUNT];
        map_point(p, k12s[c], 0.5, 200.0);
        stop_state start = {1.0, 0.0, sys.x2t, orbits[0].v};
        p[STOP_X1] = start.x1, p[STOP_V1] = start.v1;
        p[STOP_X2] = start.x2, p[STOP_V2] = start.v2;
        double out[STOP_OUTPUT_COUNT];
        uint8_t status;
        CU_ASSERT_FATAL(m->eval_batch(ws, p, 1, out, &status, &err) == IS_OK);
        CHECK(status == IS_POINT_DONE && out[STOP_REGIME] == REGIME_PERIODIC &&
                  out[STOP_REGIME_BASIS] == STOP_BASIS_PERIODIC_REACHED,
              "k12 = %g: status %d regime %g basis %g", k12s[c], status, out[STOP_REGIME],
              out[STOP_REGIME_BASIS]);
        CHECK(out[STOP_RELEASE_PERIOD] == 1.0 && out[STOP_RELEASE_VALUES] == 1.0 &&
                  out[STOP_REBOUND_VALUES] == 0.0 && isnan(out[STOP_REBOUND_PERIOD]),
              "k12 = %g: release period %g values %g, rebound period %g values %g", k12s[c],
              out[STOP_RELEASE_PERIOD], out[STOP_RELEASE_VALUES], out[STOP_REBOUND_PERIOD],
              out[STOP_REBOUND_VALUES]);
        stop_task pt;
        stop_ring rings[STOP_RINGS];
        run_with_rings(ws, p, &pt, rings);
        double e_star = stop_energy(&sys, &start);
        const stop_ring *r = &rings[STOP_RING_RELEASE];
        int bad = r->count < 2;
        for (int64_t j = 0; j < r->count && j < STOP_SECTION_N; j++)
            bad |= !(fabs(r->row[j][1] - e_star) <= 1e-12 * e_star) ||
                   r->row[j][2] != sys.x2t || !(fabs(r->row[j][3] - start.v2) <= 1e-9);
        CHECK(!bad, "k12 = %g: %lld releases, not all at the orbit's state (E* = %.17g)",
              k12s[c], (long long)r->count, e_star);
    }
    m->workspace_free(ws);
}

static void test_sections_change_only_their_outputs(void)
{
    /* A map of (k12, epsilon) in the lanes with sections 0 and 1: every other output the
     * same bits, the four missing with 0; with 1, integer values, periods up to 32, and
     * release_period 1 wherever the run reached a 2-phase orbit. */
    enum { SIDE = 12, N = SIDE * SIDE };
    static double on[N][STOP_PARAM_COUNT], off[N][STOP_PARAM_COUNT];
    static double out_on[STOP_OUTPUT_COUNT * N], out_off[STOP_OUTPUT_COUNT * N];
    uint8_t st_on[N], st_off[N];
    for (int i = 0; i < N; i++) {
        map_point(on[i], 0.5 + 5.0 * (i / SIDE) / (SIDE - 1.0),
                  0.05 + 0.9 * (i % SIDE) / (SIDE - 1.0), 300.0);
        memcpy(off[i], on[i], sizeof off[i]);
        off[i][STOP_SECTIONS] = 0.0;
    }
    const is_model *m = &is_model_stop_oscillator;
    void *ws = NULL;
    is_error err;
    CU_ASSERT_FATAL(m->workspace_create(&ws, &err) == IS_OK);
    CU_ASSERT_FATAL(m->eval_batch(ws, &on[0][0], N, out_on, st_on, &err) == IS_OK);
    CU_ASSERT_FATAL(m->eval_batch(ws, &off[0][0], N, out_off, st_off, &err) == IS_OK);
    /* the lanes' rebounds (most of them) keep the rings as the scalar path does: its
     * outputs are the lanes' (the scans read x2 and v2 where the energies are close) */
    int scanned = 0;
    for (int i = 0; i < N; i++) {
        double alone[STOP_OUTPUT_COUNT], *slots[STOP_OUTPUT_COUNT];
        uint8_t status;
        for (int o = 0; o < STOP_OUTPUT_COUNT; o++)
            slots[o] = &alone[o];
        stop_evaluate_point(ws, on[i], NULL, slots, &status);
        int differs = status != st_on[i];
        for (int o = 0; o < STOP_OUTPUT_COUNT; o++)
            differs |= !same_double(alone[o], out_on[(size_t)o * N + (size_t)i]);
        CHECK(!differs, "point %d: the lanes and the scalar path differ", i);
        scanned += alone[STOP_REBOUND_VALUES] > 1 && alone[STOP_REBOUND_VALUES] < STOP_SECTION_N;
    }
    CHECK(scanned >= 10, "only %d points with rebound values the scans count", scanned);
    m->workspace_free(ws);
    const int mine[4] = {STOP_REBOUND_PERIOD, STOP_REBOUND_VALUES, STOP_RELEASE_PERIOD,
                         STOP_RELEASE_VALUES};
    int reached = 0, with_rebounds = 0;
    for (int i = 0; i < N; i++) {
#define ON(o) out_on[(size_t)(o)*N + (size_t)i]
#define OFF(o) out_off[(size_t)(o)*N + (size_t)i]
        int differs = st_on[i] != st_off[i];
        for (int o = 0; o < STOP_OUTPUT_COUNT; o++) {
            int section = o == mine[0] || o == mine[1] || o == mine[2] || o == mine[3];
            differs |= section ? !isnan(OFF(o)) : !same_double(ON(o), OFF(o));
        }
        CHECK(!differs, "point %d: sections = 1 changes another output", i);
        int sane = ON(STOP_REBOUND_VALUES) >= (ON(STOP_REBOUNDS) > 0) &&
                   ON(STOP_REBOUND_VALUES) <= fmin(ON(STOP_REBOUNDS), STOP_SECTION_N) &&
                   ON(STOP_RELEASE_VALUES) <= fmin(ON(STOP_CONTACT_PHASES), STOP_SECTION_N);
        for (int k = 0; k < 2; k++) {
            double period = ON(mine[2 * k]);
            sane &= isnan(period) || (period >= 1 && period <= STOP_SECTION_N / 2 &&
                                      period == floor(period));
        }
        CHECK(sane, "point %d: rebound period %g values %g (of %g), release period %g values %g",
              i, ON(mine[0]), ON(mine[1]), ON(STOP_REBOUNDS), ON(mine[2]), ON(mine[3]));
        if (ON(STOP_REGIME_BASIS) == STOP_BASIS_PERIODIC_REACHED) {
            reached++;
            CHECK(ON(STOP_RELEASE_PERIOD) == 1.0,
                  "point %d reached a 2-phase orbit: release_period %g", i,
                  ON(STOP_RELEASE_PERIOD));
        }
        with_rebounds += ON(STOP_REBOUNDS) > STOP_SECTION_N;
#undef ON
#undef OFF
    }
    CHECK(with_rebounds >= 10, "only %d points fill the rebound ring", with_rebounds);
    (void)reached; /* (the map's reached points are few: the orbit start test has them) */
}

/* A ring of `count` samples whose energy sample j gives (x2, v2 follow). */
static void fill(stop_ring *ring, int64_t count, double (*energy)(int64_t j, void *c),
                 void *context)
{
    ring->count = 0;
    for (int64_t j = 0; j < count; j++) {
        double e = energy(j, context);
        stop_ring_put(ring, (double)j, e, 3.0 + 0.1 * e, -0.5 * e);
    }
}

static double falling(int64_t j, void *c)
{
    return 10.0 * pow(*(double *)c, (double)j); /* steps of (1 - ratio) E */
}

static double pattern(int64_t j, void *c)
{
    int k = *(int *)c;
    return 1.0 + 0.25 * (double)(j % k) + 1e-11 * (double)(j % 7); /* noise within tol */
}

static double scatter(int64_t j, void *c)
{
    (void)c;
    return 1.0 + fmod((double)j * 0.6180339887498949, 1.0);
}

static void test_reading_against_the_sdk(void)
{
    /* stop_section_outputs against is_hybrid_section_period and _distinct on made-up rings
     * (its shortcut where the energies fall apart, the scans elsewhere), and period-k
     * patterns giving period k with k values. */
    static stop_ring rings[STOP_RINGS];
    stop_task pt;
    memset(&pt, 0, sizeof pt);
    pt.opt.sections = rings;
    const double atol[3] = {ATOL, ATOL, ATOL};
    for (int c = 0; c < 40; c++) {
        double ratio = c < 10 ? 0.9 : 1.0 - 1e-9; /* apart, then within the tolerance */
        int k = 1 + c % 6;
        int64_t count = (int64_t[]){0, 1, 2, 5, 63, 64, 65, 200, 1001, 4097}[c % 10];
        if (c < 20)
            fill(&rings[0], count, falling, &ratio);
        else if (c < 30)
            fill(&rings[0], count, pattern, &k);
        else
            fill(&rings[0], count, scatter, NULL);
        fill(&rings[1], count / 2, pattern, &k);
        double out[STOP_OUTPUT_COUNT], *slots[STOP_OUTPUT_COUNT];
        for (int o = 0; o < STOP_OUTPUT_COUNT; o++)
            slots[o] = &out[o];
        stop_section_outputs(&pt, slots);
        for (int r = 0; r < STOP_RINGS; r++) {
            is_hybrid_section s = {rings[r].count, STOP_SECTION_N, 3, &rings[r].row[0][0]};
            int p = is_hybrid_section_period(&s, 3, STOP_SECTION_N / 2, RTOL, atol);
            int v = is_hybrid_section_distinct(&s, 3, STOP_SECTION_N, RTOL, atol);
            double period = out[r ? STOP_RELEASE_PERIOD : STOP_REBOUND_PERIOD];
            double values = out[r ? STOP_RELEASE_VALUES : STOP_REBOUND_VALUES];
            CHECK(same_double(period, p ? p : NAN) && values == v,
                  "case %d ring %d: period %g values %g, the SDK %d and %d", c, r, period,
                  values, p, v);
            int is_pattern = r == 1 || (c >= 20 && c < 30);
            int64_t n = r ? count / 2 : count, kept = n < STOP_SECTION_N ? n : STOP_SECTION_N;
            if (is_pattern && kept >= 2 * k)
                CHECK(period == k && values == k, "case %d ring %d: a period-%d pattern gives "
                      "period %g, %g values", c, r, k, period, values);
        }
    }
    pt.opt.sections = NULL; /* sections 0: all four missing */
    double out[STOP_OUTPUT_COUNT], *slots[STOP_OUTPUT_COUNT];
    for (int o = 0; o < STOP_OUTPUT_COUNT; o++)
        slots[o] = &out[o];
    stop_section_outputs(&pt, slots);
    CHECK(isnan(out[STOP_REBOUND_PERIOD]) && isnan(out[STOP_REBOUND_VALUES]) &&
              isnan(out[STOP_RELEASE_PERIOD]) && isnan(out[STOP_RELEASE_VALUES]),
          "without rings the section outputs are not missing");
}

void stop_sections_tests(CU_pSuite suite)
{
    CU_add_test(suite, "sections: the rings are the trace's rebounds and releases, the outputs "
                "its reading", test_rings_are_the_traced_events);
    CU_add_test(suite, "sections: a start on a 2-phase orbit gives one release value, period 1",
                test_a_start_on_a_two_phase_orbit);
    CU_add_test(suite, "sections: on or off changes no other output, in the lanes",
                test_sections_change_only_their_outputs);
    CU_add_test(suite, "sections: the model's reading is hybrid_sections.h's; period-k gives k",
                test_reading_against_the_sdk);
}
