/* bouncing_ball.c: a ball on a sinusoidally vibrating table, a plug-in on the SDK's hybrid
 * integrator (<impactsweep/hybrid.h>). Time in forcing radians, lengths in g/omega^2: the
 * table is at Gamma sin t, the ball falls freely (x'' = -1, in closed form) and leaves an
 * impact with v - w = -r (v_in - w), w = Gamma cos t. Accumulating impacts (Zeno) end in
 * sticking while the contact force 1 - Gamma sin t is positive. The period-p locking is
 * read from the state at t = 2 pi k (the integrator's sections); the largest Lyapunov exponent
 * from the flow's derivative and the impacts' saltation matrices. State (x, v, stuck).
 * The section outputs: the last section_n (x, v) at t = 2 pi k or at impacts (before). */
#include <impactsweep/hybrid.h>
#include <impactsweep/model.h>
#include <math.h>

enum { P_GAMMA, P_R, P_X0, P_V0, P_PERIODS, P_SECTION_N, P_SECTION_AT, PARAMS };
enum { O_REGIME, O_PERIOD, O_SPEED, O_PHASE, O_IMPACTS, O_STICKS, O_FAILURE, O_T_FAILURE,
       O_SECTION_PERIOD, O_SECTION_VALUES, O_SECTION_SPREAD, O_LYAPUNOV, O_LYAPUNOV_ERROR,
       O_SECTION, OUTPUTS };
/* the recorders, their capacity, and the values a point of the array output `section` */
enum { S_STROBE, S_IMPACT, SECTION_MAX = 1024, SECTION_LENGTH = 64 };
enum { E_IMPACT, E_RELEASE, R_IMPACTS = 0, R_SPEED, R_PHASE }; /* events, records */
enum { L_GAMMA, L_R, L_BOUND };                                /* the lanes' parameters */
enum { F_NONE, F_BELOW, F_SPEED, F_BUDGET, F_NONFINITE };     /* failures */
#define TWO_PI 6.283185307179586
#define R IS_PARAM_REAL
#define END NULL, NULL /* choices, when */
#define NAN_OK IS_OUTPUT_MAY_BE_NAN /* a done point's output may be NaN (no value) */
static const char *const regimes[] = {"periodic", "sticking", "undecided", "failed", NULL};
static const char *const failures[] = {"none", "below_table", "speed_bound", "budget",
                                       "nonfinite", NULL};
static const char *const sections[] = {"stroboscopic", "impact", NULL};
static const is_param params[PARAMS] = {
    {"Gamma", "table amplitude over g/omega^2", "1", R, 1.0, 0.0, 1e3, IS_PARAM_MIN_OPEN, END,
     "$\\Gamma$"},
    {"r", "coefficient of restitution", "1", R, 0.5, 0.0, 1.0, IS_PARAM_MAX_OPEN, END, "$r$"},
    {"x0", "height above the table at t = 0, in g/omega^2", "1", R, 1.0, 0.0, 1e6, 0, END},
    {"v0", "velocity at t = 0, in g/omega", "1", R, 0.0, -1e6, 1e6, 0, END},
    {"periods", "horizon, in forcing periods", "1", IS_PARAM_INT, 200, 16, 1e7, 0, END},
    {"section_n", "section samples kept, N (periods up to N/2)", "1", IS_PARAM_INT, 64, 2,
     SECTION_MAX, 0, END},
    {"section_at", "the section: (x, v) at t = 2 pi k, or at impacts (before the reset)", "1",
     IS_PARAM_CHOICE, 0, 0, 1, 0, sections, NULL}};
static const is_output outputs[OUTPUTS] = {
    {"regime", "1", "final motion: period-p locking (sticking in it: sticking), or none found",
     IS_OUTPUT_CATEGORY, regimes, 0, "final motion"},
    {"period", "1", "p of the locking, in forcing periods (missing: none)", IS_OUTPUT_INT, NULL,
     NAN_OK, "period $p$"},
    {"impact_speed", "1", "relative speed of the last impact, g/omega (NaN: no impact)",
     IS_OUTPUT_REAL, NULL, NAN_OK, "impact speed"},
    {"impact_phase", "1", "forcing phase of the last impact, radians (NaN: no impact)",
     IS_OUTPUT_REAL, NULL, NAN_OK, "impact phase"},
    {"impacts", "1", "impacts over the run", IS_OUTPUT_INT, NULL, 0, "impacts"},
    {"sticks", "1", "accumulations of impacts (Zeno), then sticking", IS_OUTPUT_INT, NULL, 0,
     "accumulations"},
    {"failure", "1", "why a failed point failed: the ball below the table or faster than its "
     "energy allows (an invariant broken), the budget, a non-finite state (none: done)",
     IS_OUTPUT_CATEGORY, failures, 0, "failure"},
    {"t_failure", "1", "when the point failed, in forcing radians (NaN: it did not)",
     IS_OUTPUT_REAL, NULL, NAN_OK, "time of failure"},
    {"section_period", "1", "period of the last section_n section samples, up to section_n / 2, "
     "in samples (missing: none)", IS_OUTPUT_INT, NULL, NAN_OK, "section period"},
    {"section_values", "1", "distinct (x, v) among them (to 1e-7 of their largest |x|, |v|)",
     IS_OUTPUT_INT, NULL, 0, "section values"},
    {"section_spread", "1", "largest range of x or v among them (NaN: none)", IS_OUTPUT_REAL,
     NULL, NAN_OK, "section spread"},
    {"lyapunov", "1", "largest Lyapunov exponent of (x, v), per forcing radian, over the last "
     "3/4 of the run (-inf: caught by sticking, where nearby motions merge; NaN: failed)",
     IS_OUTPUT_REAL, NULL, NAN_OK | IS_OUTPUT_MAY_BE_INF, "Lyapunov exponent"},
    {"lyapunov_error", "1", "spread of the exponent's running estimate over the run's last "
     "quarter (NaN: none)", IS_OUTPUT_REAL, NULL, NAN_OK, "exponent's spread"},
    {"section", "1", "v at the last 64 section samples, oldest first (NaN before the first "
     "taken, or beyond section_n): the orbit diagram's points", IS_OUTPUT_REAL, NULL, NAN_OK,
     "section $v$", SECTION_LENGTH, "sample"}};

static void flow(const is_hybrid_lanes *b, lv_double t0, const lv_double *y0, lv_double dt,
                 lv_double *y)
{
    lv_double s, c, G = b->par[P_GAMMA];
    lv_mask stuck = lv_gt(y0[2], lv_zero());
    lv_sincos(t0 + dt, &s, &c);
    y[0] = lv_sel(stuck, G * s, y0[0] + dt * (y0[1] + -0.5 * dt));
    y[1] = lv_sel(stuck, G * c, y0[1] + -dt);
    y[2] = y0[2];
}

/* the ball over the table (free), the contact force (stuck); their rates where asked */
static void events(const is_hybrid_lanes *b, lv_double t, const lv_double *y,
                   const lv_double *f, lv_double *g, lv_double *dg)
{
    lv_double s, c, G = b->par[P_GAMMA], one = lv_splat(1.0);
    lv_mask stuck = lv_gt(y[2], lv_zero());
    (void)f, lv_sincos(t, &s, &c);
    g[E_IMPACT] = lv_sel(stuck, one, y[0] - G * s);
    g[E_RELEASE] = lv_sel(stuck, 1.0 - G * s, one);
    if (!dg)
        return;
    dg[E_IMPACT] = lv_drop(stuck, y[1] - G * c);
    dg[E_RELEASE] = lv_keep(stuck, -G * c);
}

static lv_mask on_event(is_hybrid_lanes *b, const lv_mask *fired, lv_double t, lv_double *y)
{
    lv_double s, c, *rec = b->rec, turns = t * (1.0 / TWO_PI);
    lv_sincos(t, &s, &c);
    lv_double w = b->par[P_GAMMA] * c, k = (turns + 0x1.8p52) - 0x1.8p52; /* w: the table's */
    k = lv_sel(lv_gt(k, turns), k - 1.0, k);
    lv_mask hit = fired[E_IMPACT];
    rec[R_IMPACTS] = lv_add_where(hit, rec[R_IMPACTS], lv_splat(1.0));
    rec[R_SPEED] = lv_sel(hit, w - y[1], rec[R_SPEED]);
    rec[R_PHASE] = lv_sel(hit, lv_max_nanb(t - k * TWO_PI, lv_zero()), rec[R_PHASE]);
    y[1] = lv_sel(hit, w + b->par[P_R] * (w - y[1]), y[1]);
    y[2] = lv_sel(fired[E_RELEASE], lv_zero(), y[2]);
    return lv_mask_none();
}

/* Invariants (over 1 + Gamma): the ball not below the table, |v| within U (see start) */
static void invariants(const is_hybrid_lanes *b, lv_double t, const lv_double *y, lv_double *v)
{
    lv_double s, c, G = b->par[L_GAMMA], scale = 1.0 / (1.0 + G);
    (void)lv_sincos(t, &s, &c);
    v[0] = lv_sel(lv_gt(y[2], lv_zero()), lv_zero(), (y[0] - G * s) * scale);
    v[1] = (b->par[L_BOUND] - lv_abs(y[1])) * scale;
}

/* impacts accumulated at t_star: on the table, stuck while it pushes (1 - Gamma sin > 0) */
static lv_mask stick(is_hybrid_lanes *b, lv_mask m, lv_double t, lv_double t_star, lv_double *y)
{
    lv_double s, c, G = b->par[P_GAMMA];
    (void)t, lv_sincos(t_star, &s, &c);
    y[0] = lv_sel(m, G * s, y[0]);
    y[1] = lv_sel(m, G * c, y[1]);
    y[2] = lv_sel(m & lv_gt(1.0 - G * s, lv_zero()), lv_splat(1.0), y[2]);
    return lv_mask_none();
}

/* The Lyapunov exponent's derivatives in (x, v) (<impactsweep/hybrid_lyapunov.h>): the
 * flight's (none stuck: the table carries the ball), the field and the impact's gradient
 * and law, v+ = (1 + r) Gamma cos t - r v, for its saltation matrix */
static void flow_jacobian(const is_hybrid_lanes *b, lv_double t0, const lv_double *y0,
                          lv_double dt, lv_double (*P)[IS_HYBRID_MAX_DIM])
{
    lv_mask free = lv_not(lv_gt(y0[2], lv_zero()));
    (void)b, (void)t0, P[0][1] = lv_keep(free, dt);
    P[0][0] = P[1][1] = lv_keep(free, lv_splat(1.0));
}

static void field(const is_hybrid_lanes *b, lv_double t, const lv_double *y, lv_double *f)
{
    lv_double s, c, G = b->par[P_GAMMA];
    lv_mask stuck = lv_gt(y[2], lv_zero());
    lv_sincos(t, &s, &c);
    f[0] = lv_sel(stuck, G * c, y[1]), f[1] = lv_sel(stuck, -(G * s), lv_splat(-1.0));
}

static void impact_jacobians(const is_hybrid_lanes *b, const lv_mask *fired, lv_double t,
                             const lv_double *y, lv_double (*R)[IS_HYBRID_MAX_DIM], lv_double *R_t)
{
    lv_double s, c, r = b->par[P_R];
    (void)y, lv_sincos(t, &s, &c);
    R[1][1] = lv_sel(fired[E_IMPACT], -r, R[1][1]);
    R_t[1] = lv_keep(fired[E_IMPACT], -((1.0 + r) * b->par[P_GAMMA] * s));
}

static void gradient(const is_hybrid_lanes *b, lv_double t, const lv_double *y,
                     lv_double (*n)[IS_HYBRID_MAX_DIM], lv_double *g_t)
{
    (void)b, (void)t, (void)y, (void)g_t, n[E_IMPACT][0] = lv_splat(1.0); /* (rates: no g_t) */
}

static const is_hybrid_lyapunov lyapunov = {.dimension = 2, .flow_jacobian = flow_jacobian,
    .field = field, .event_gradient = gradient, .reset_jacobian = impact_jacobians};

typedef struct batch { const double *points; double *out; uint8_t *status; size_t count; } batch;

static int start(void *ctx, size_t i, is_hybrid_start *s)
{
    const double *p = ((batch *)ctx)->points + i * PARAMS;
    s->t_end = TWO_PI * p[P_PERIODS];
    s->section_period = TWO_PI;
    s->lyapunov_interval = TWO_PI, s->lyapunov_transient = 0.25 * s->t_end;
    s->y[0] = p[P_X0], s->y[1] = p[P_V0];
    /* |v| <= U, U^2 = (Gamma (1 + r) + r U)^2 + 4 Gamma, or the start's (README) */
    double G = p[P_GAMMA], r = p[P_R], a = 1.0 - r * r, bq = G * (1.0 + r) * r;
    double U = (bq + sqrt(bq * bq + a * (G * G * (1.0 + r) * (1.0 + r) + 4.0 * G))) / a;
    s->par[L_GAMMA] = G, s->par[L_R] = r;
    s->par[L_BOUND] = fmax(U, sqrt(p[P_V0] * p[P_V0] + 2.0 * (p[P_X0] + G)));
    s->rec[R_SPEED] = s->rec[R_PHASE] = NAN;
    s->h_max = 0.25; /* the grazing checks' cubic is within 0.25^4 Gamma / 384 */
    s->max_events = 1e8, s->zeno_tail = 1e-9 * TWO_PI, s->stick_speed = 1e-12 * (1 + p[P_GAMMA]);
    s->section_samples[S_STROBE] = s->section_samples[S_IMPACT] = 1; /* section_n in the one */
    s->section_samples[(int)p[P_SECTION_AT]] = (int)p[P_SECTION_N];
    return 1;
}

static void finish(void *ctx, size_t i, const is_hybrid_end *e)
{
    batch *bt = ctx;
    double *o = bt->out + i, tol = 1e-7 * (1.0 + bt->points[i * PARAMS + P_GAMMA]);
    int ok = e->status == IS_HYBRID_HORIZON;
    int failure = ok ? F_NONE : e->status == IS_HYBRID_VIOLATED ? F_BELOW + e->invariant
                              : e->status == IS_HYBRID_BUDGET ? F_BUDGET : F_NONFINITE;
    int p = ok ? is_hybrid_period(e, 2, 8, (double[]){tol, tol}) : 0;
    int now = is_hybrid_section_back(e, 0), then = is_hybrid_section_back(e, p);
    o[O_REGIME * bt->count] = !ok ? 3 : !p ? 2 : /* sticking: stuck, or an accumulation */
        e->section[now][2] > 0.0 || e->section_accumulations[now] > e->section_accumulations[then];
    o[O_PERIOD * bt->count] = p ? p : NAN;
    o[O_SPEED * bt->count] = e->rec[R_SPEED];
    o[O_PHASE * bt->count] = e->rec[R_PHASE];
    o[O_IMPACTS * bt->count] = e->rec[R_IMPACTS];
    o[O_STICKS * bt->count] = (double)e->accumulations;
    o[O_FAILURE * bt->count] = failure;
    o[O_T_FAILURE * bt->count] = ok ? NAN : e->t;
    const double *q = bt->points + i * PARAMS, atol[2] = {1e-5 * tol, 1e-5 * tol}; /* rounding */
    const is_hybrid_section *sec = &e->recorded[(int)q[P_SECTION_AT]];
    int n = (int)q[P_SECTION_N], sp = is_hybrid_section_period(sec, 2, n / 2, 1e-7, atol);
    o[O_SECTION_PERIOD * bt->count] = sp ? sp : NAN;
    o[O_SECTION_VALUES * bt->count] = is_hybrid_section_distinct(sec, 2, n, 1e-7, atol);
    o[O_SECTION_SPREAD * bt->count] = fmax(is_hybrid_section_spread(sec, 0, n),
                                           is_hybrid_section_spread(sec, 1, n));
    o[O_LYAPUNOV * bt->count] = ok ? e->lyapunov[0] : NAN;
    o[O_LYAPUNOV_ERROR * bt->count] = ok ? e->lyapunov_error : NAN;
    /* the array after the scalars, a point's values together (the contract's layout) */
    double *values = bt->out + O_SECTION * bt->count + i * SECTION_LENGTH;
    for (int j = 0; j < SECTION_LENGTH && !ok; j++)
        values[j] = NAN;
    if (ok)
        is_hybrid_section_copy(sec, 1, SECTION_LENGTH, values, 1);
    bt->status[i] = ok ? IS_POINT_DONE : failure == F_BUDGET ? IS_POINT_FAILED_BUDGET
                    : failure == F_NONFINITE ? IS_POINT_FAILED_NONFINITE : IS_POINT_FAILED_CHECK;
}

static const is_hybrid_system ball = {
    .dimension = 3, .events = 2, .direction = {-1, -1},
    .kind = {IS_HYBRID_RESET, IS_HYBRID_RESET}, .watch = 1u << E_IMPACT, .sections = 1,
    .flow = flow, .event_values = events, .rates = 1, .on_event = on_event,
    .on_accumulate = stick, .start = start, .finish = finish, .invariants = 2,
    .invariant_name = {"the ball below the table", "the ball faster than its energy allows"},
    .invariant_tolerance = {1e-8, 1e-8}, .invariant_values = invariants,
    .recorders = 2, .recorder = {{IS_HYBRID_SECTION_STROBE, 0, 0, 2, SECTION_MAX},
                                 {IS_HYBRID_SECTION_EVENTS, 1u << E_IMPACT, 0, 2, SECTION_MAX}},
    .lyapunov = &lyapunov,
    /* the names `impactsweep trace` gives the state and the events (IS_HYBRID_PLUGIN) */
    .state_name = {"x", "v", "stuck"}, .event_name = {"impact", "release"}};

static is_code eval_batch(void *ws, const double *points, size_t n, double *out, uint8_t *status,
                          is_error *err)
{
    (void)ws, (void)err;
    batch bt = {points, out, status, n};
    for (size_t i = 0; i < n; i++)
        status[i] = IS_POINT_PENDING; /* until finished */
    return is_hybrid_run(&ball, &bt, n, NULL, 0) < 0 ? IS_NOMEM : IS_OK;
}

const is_model bouncing_ball_model = {IS_MODEL_HEADER,
    .name = "bouncing-ball", .version = "1.0.0",
    .description = "a ball on a sinusoidally vibrating table (Gamma sin t; time in forcing "
                   "radians, lengths in g/omega^2): period-p locking, sticking, impact speed",
    .params = params, .param_count = PARAMS, .outputs = outputs, .output_count = OUTPUTS,
    .eval_batch = eval_batch};

/* IS_MODEL_PLUGIN, with a trace made by the integrator: `impactsweep trace bouncing-ball` */
IS_HYBRID_PLUGIN(bouncing_ball_model, ball)
