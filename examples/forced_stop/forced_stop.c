/* forced_stop.c: the forced-stop model, an out-of-tree plug-in on the SDK's hybrid
 * integrator (<impactsweep/hybrid.h>): x'' + 2 zeta x' + x = A cos(omega t), x <= delta,
 * x' -> -r x' at x = delta; time in 1/omega_n, lengths in a unit L (A: F0/k), speeds in
 * L omega_n. The flight is exact (steady response plus the damped homogeneous part); the
 * integrator locates the contacts (crossings, or grazes that the cubic of the values and
 * rates shows between two steps) and resets accumulating impacts (chatter) at their limit,
 * where the mass rests on the stop while A cos(omega t) - delta pushes into it. A flight
 * whose envelope stays below the stop (amp + X < delta) is free for ever. The final
 * motion's period: the smallest p <= max_period with the last p states at t = k T equal to
 * the ones p periods before, to 1e-8 of |delta| + X (a stroboscopic section recorder).
 * The section outputs: the last section_n (x, v) at t = k T or at the contacts (before the
 * reset); the largest Lyapunov exponent (exponent = on) from the flight's exact derivative
 * and the impacts' saltation matrices. State (x, v, stuck, impacts, rests). */
#include <impactsweep/hybrid.h> /* (with <stdlib.h>) */
#include <impactsweep/model.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>

enum { P_OMEGA, P_ZETA, P_A, P_DELTA, P_R, P_X0, P_V0, P_PERIODS, P_MAX_PERIOD, P_MAX_IMPACTS,
       P_ZENO_TAIL, P_SECTION_N, P_SECTION_AT, P_EXPONENT, PARAM_COUNT };
enum { O_REGIME, O_PERIOD, O_IMPACTS_PER_PERIOD, O_IMPACTS, O_V_IMPACT, O_PHASE_IMPACT,
       O_V_IMPACT_MAX, O_CHECK, O_T_CHECK, O_SECTION_PERIOD, O_SECTION_VALUES,
       O_SECTION_SPREAD, O_LYAPUNOV, O_LYAPUNOV_ERROR, O_SECTION, OUTPUT_COUNT };
/* the recorders, their capacity, and the values a point of the array output `section` */
enum { S_STROBE, S_CONTACT, SECTION_MAX = 1024, SECTION_LENGTH = 64 };
enum { REGIME_FREE, REGIME_PERIODIC, REGIME_CHATTER, REGIME_UNDECIDED, REGIME_FAILED };
enum { CHECK_NONE, CHECK_BUDGET, CHECK_PENETRATION, CHECK_NONFINITE }; /* (status_of) */
/* the lanes' parameters and records; the events */
enum { L_OMEGA, L_ZETA, L_A, L_DELTA, L_R, L_WD, L_PC, L_PS, L_X, L_HALF, L_REACH, L_H_MIN, L_MAX,
       L_SCALE };
enum { R_V_LAST, R_PHASE_LAST, R_V_MAX_LATE, R_FREE, R_BUDGET, E_CONTACT = 0, E_RELEASE };
#define RESPONSE_MAX 1e3 /* the response's largest gain (the closed form's digits, near 1) */
#define TWO_PI 6.283185307179586
static const char *const regime_names[] = {"free", "periodic", "chatter", "undecided", "failed", 0};
static const char *const check_names[] = {"none", "budget", "penetration", "nonfinite", 0};
static const char *const section_names[] = {"stroboscopic", "contact", 0},
                         *const off_on[] = {"off", "on", 0};
#define R IS_PARAM_REAL
#define I IS_PARAM_INT
#define END NULL, NULL /* the choices, when */
#define NAN_OK IS_OUTPUT_MAY_BE_NAN /* a done point's output may be NaN (no value) */
static const is_param fs_params[PARAM_COUNT] = {
    {"omega", "forcing frequency / the natural one", "1", R, 2.0, 0.01, 100, 0, END, "$\\omega$"},
    {"zeta", "damping ratio", "1", R, 0.0, 0.0, 1.0, IS_PARAM_MAX_OPEN, END, "$\\zeta$"},
    {"A", "forcing amplitude as a static deflection F0 / k, in L", "1", R, 1.0, 1e-6, 1e6, 0, END},
    {"delta", "position of the stop, in L (the spring's equilibrium is x = 0; delta < 0: a "
     "pre-loaded stop)", "1", R, 0.0, -1e6, 1e6, 0, END, "$\\delta$"},
    {"r", "coefficient of restitution (0: plastic, 1: elastic)", "1", R, 0.8, 0, 1, 0, END, "$r$"},
    {"x0", "initial position at t = 0, in L (<= delta)", "1", R, 0.0, -1e6, 1e6, 0, END, "$x_0$"},
    {"v0", "initial velocity at t = 0, in L omega_n", "1", R, 0.0, -1e6, 1e6, 0, END, "$v_0$"},
    {"periods", "horizon, in forcing periods 2 pi / omega", "1", I, 1000, 1, 1e8, 0, END},
    {"max_period", "longest period looked for, in forcing periods", "1", I, 16, 1,
     SECTION_MAX / 2, 0, END},
    {"max_impacts", "budget of impacts simulated one by one", "1", I, 1e7, 1, 1e12, 0, END},
    {"zeno_tail", "reset a chatter when the rest of it lasts less than this, in forcing "
     "periods", "1", R, 1e-6, 0.0, 0.1, IS_PARAM_MIN_OPEN, END},
    {"section_n", "section samples kept, N (section_period up to N/2)", "1", I, 64, 2,
     SECTION_MAX, 0, END},
    {"section_at", "the section: (x, v) at t = k T, or at the contacts (before the reset)",
     "1", IS_PARAM_CHOICE, 0, 0, 1, 0, section_names, NULL},
    {"exponent", "compute the largest Lyapunov exponent (its tangents take about 10 % more "
     "time)", "1", IS_PARAM_CHOICE, 0, 0, 1, 0, off_on, NULL}};
static const is_output fs_outputs[OUTPUT_COUNT] = {
    {"regime", "1", "final motion (chatter: periodic, coming to rest on the stop)",
     IS_OUTPUT_CATEGORY, regime_names, 0, "final motion"},
    {"period", "1", "period of the final motion, in forcing periods (missing: not periodic)",
     IS_OUTPUT_INT, NULL, NAN_OK, "period"},
    {"impacts_per_period", "1", "impacts in one period of the final motion (a chatter's tail, "
     "cut by its reset, not counted)", IS_OUTPUT_INT, NULL, NAN_OK, "impacts per period"},
    {"impacts", "1", "impacts simulated over the whole run", IS_OUTPUT_INT, NULL, 0, "impacts"},
    {"v_impact", "1", "arrival speed at the last impact (> 0: into the stop), in L omega_n "
     "(NaN: no impact)", IS_OUTPUT_REAL, NULL, NAN_OK, "impact speed $v$"},
    {"phase_impact", "1", "forcing phase omega t mod 2 pi of the last impact, in radians (NaN: "
     "no impact)", IS_OUTPUT_REAL, NULL, NAN_OK, "impact phase $\\omega t$"},
    {"v_impact_max", "1", "largest arrival speed in the last half of the run, in L omega_n (0: "
     "no impact there)", IS_OUTPUT_REAL, NULL, 0, "largest impact speed $v_{\\max}$"},
    {"check", "1", "the first physical check the result failed (none: it passed)",
     IS_OUTPUT_CATEGORY, check_names, 0, "check"},
    {"t_check", "1", "when the check failed (the invariant broken, the state, the budget), in "
     "1/omega_n (NaN: none failed)", IS_OUTPUT_REAL, NULL, NAN_OK, "time of the failed check"},
    {"section_period", "1", "period of the last section_n section samples, up to section_n / 2, "
     "in samples (missing: none)", IS_OUTPUT_INT, NULL, NAN_OK, "section period"},
    {"section_values", "1", "distinct (x, v) among them (to 1e-7 of their largest |v|, and "
     "of |delta| + X)", IS_OUTPUT_INT, NULL, 0, "section values"},
    {"section_spread", "1", "range of v among them, in L omega_n (NaN: none)", IS_OUTPUT_REAL,
     NULL, NAN_OK, "section spread"},
    {"lyapunov", "1", "largest Lyapunov exponent of (x, v), in omega_n, over the last 3/4 of "
     "the run (-inf: rests on the stop, where nearby motions merge; NaN: exponent off, or "
     "failed)", IS_OUTPUT_REAL, NULL, NAN_OK | IS_OUTPUT_MAY_BE_INF, "Lyapunov exponent"},
    {"lyapunov_error", "1", "spread of the exponent's running estimate over the run's last "
     "quarter (NaN: none)", IS_OUTPUT_REAL, NULL, NAN_OK, "exponent's spread"},
    {"section", "1", "v at the last 64 section samples, oldest first (NaN before the first "
     "taken, or beyond section_n): the orbit diagram's points", IS_OUTPUT_REAL, NULL, NAN_OK,
     "section $v$", SECTION_LENGTH, "sample"}};

/* is_error_set's work, here, so that the plug-in needs nothing from the engine. */
static is_code fs_error(is_error *err, is_code code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err->message, sizeof err->message, fmt, ap);
    va_end(ap);
    return err->code = code;
}

static is_code fs_validate(const double *p, is_error *err)
{
    if (p[P_X0] > p[P_DELTA])
        return fs_error(err, IS_PARAM, "x0 = %g is beyond the stop delta = %g: the mass "
                        "starts at or before it (x0 <= delta)", p[P_X0], p[P_DELTA]);
    double re = 1.0 - p[P_OMEGA] * p[P_OMEGA], im = 2.0 * p[P_ZETA] * p[P_OMEGA],
           gain = 1.0 / sqrt(re * re + im * im);
    if (!(gain <= RESPONSE_MAX))
        return fs_error(err, IS_PARAM, "omega = %g with zeta = %g is too near the resonance: "
                        "the steady response is %g A, at most %g A; move omega away from 1 or "
                        "raise zeta", p[P_OMEGA], p[P_ZETA], gain, RESPONSE_MAX);
    return IS_OK;
}

static inline void steady(const lv_double *q, lv_double s, lv_double c, lv_double *x,
                          lv_double *v) /* the steady response at omega t (sine s, cosine c) */
{
    *x = q[L_PC] * c + q[L_PS] * s;
    *v = q[L_OMEGA] * (q[L_PS] * c + -(q[L_PC] * s));
}

/* The flight from (t0, y0) for dt: y = e^(-zeta s) (y0 cos(wd s) + b sin(wd s)) around the
 * steady response, b = (y0' + zeta y0) / wd; at rest on the stop while stuck. */
static void flow(const is_hybrid_lanes *b, lv_double t0, const lv_double *y0, lv_double dt,
                 lv_double *y)
{
    const lv_double *q = b->par;
    lv_double angle[3] = {q[L_OMEGA] * t0, q[L_OMEGA] * (t0 + dt), q[L_WD] * dt}, s[3], c[3];
    lv_sincos_n(3, angle, s, c);
    lv_double xp0, vp0, xp, vp, e = lv_exp_dd(-(q[L_ZETA] * dt), lv_zero());
    steady(q, s[0], c[0], &xp0, &vp0);
    steady(q, s[1], c[1], &xp, &vp);
    lv_double h0 = y0[0] - xp0, bb = (y0[1] - vp0 + q[L_ZETA] * h0) / q[L_WD];
    lv_double arc = h0 * c[2] + bb * s[2], h = e * arc;
    lv_double dh = e * (q[L_WD] * (bb * c[2] + -(h0 * s[2])) + -(q[L_ZETA] * arc));
    lv_mask stuck = lv_gt(y0[2], lv_zero());
    y[0] = lv_sel(stuck, q[L_DELTA], h + xp);
    y[1] = lv_sel(stuck, lv_zero(), dh + vp);
    y[2] = y0[2];
    y[3] = y0[3];
    y[4] = y0[4];
}

/* delta - x in flight, the force into the stop while stuck; their rates where asked */
static void events(const is_hybrid_lanes *b, lv_double t, const lv_double *y,
                   const lv_double *f, lv_double *g, lv_double *dg)
{
    const lv_double *q = b->par;
    lv_double s, c, one = lv_splat(1.0);
    (void)f, lv_sincos(q[L_OMEGA] * t, &s, &c);
    lv_mask stuck = lv_gt(y[2], lv_zero());
    g[E_CONTACT] = lv_sel(stuck, one, q[L_DELTA] - y[0]);
    g[E_RELEASE] = lv_sel(stuck, q[L_A] * c - q[L_DELTA], one);
    if (!dg)
        return;
    dg[E_CONTACT] = lv_drop(stuck, -y[1]);
    dg[E_RELEASE] = lv_keep(stuck, -(q[L_A] * q[L_OMEGA] * s));
}

/* amp = |C| of the flight's homogeneous part y = Re(C e^(lambda s)) at (t, y) */
static lv_double envelope(const lv_double *q, lv_double t, const lv_double *y)
{
    lv_double s, c, xp, vp;
    lv_sincos(q[L_OMEGA] * t, &s, &c);
    steady(q, s, c, &xp, &vp);
    lv_double h = y[0] - xp, bb = (y[1] - vp + q[L_ZETA] * h) / q[L_WD];
    return lv_sqrt(h * h + bb * bb);
}

/* The lanes m in flight whose envelope amp + X stays below the stop for ever: free. */
static lv_mask free_for_ever(const lv_double *q, lv_mask m, lv_double t, const lv_double *y)
{
    lv_double amp = envelope(q, t, y);
    return m & lv_le(y[2], lv_zero()) & lv_lt(amp + q[L_X] + q[L_REACH], q[L_DELTA]);
}

/* A step that cannot reach the stop: delta - x >= g0 + g0' s - M s^2 / 2 with M = amp + X
 * omega^2 bounding |x''| (|y^(k)| <= amp e^(-zeta s)), to its first root, or h_min = T/50
 * (where the grazing check's cubic is within (h_min omega)^4 / 384 of the truth); stuck,
 * T/4 (the release's cosine, a crossing at a time). */
static lv_double step_limit(const is_hybrid_lanes *b, lv_double t, const lv_double *y)
{
    const lv_double *q = b->par;
    lv_double g = q[L_DELTA] - y[0], dg = -y[1];
    lv_double M = envelope(q, t, y) + q[L_X] * q[L_OMEGA] * q[L_OMEGA];
    lv_double first = (dg + lv_sqrt(lv_max_nanb(dg * dg + 2.0 * M * g, lv_zero()))) / M;
    return lv_sel(lv_gt(y[2], lv_zero()), 12.5 * q[L_H_MIN], lv_max_nanb(first, q[L_H_MIN]));
}

/* An impact: v -> -r v at x = delta, its speed and phase recorded; a release: free. */
static lv_mask on_event(is_hybrid_lanes *b, const lv_mask *fired, lv_double t, lv_double *y)
{
    const lv_double *q = b->par;
    lv_double *rec = b->rec, turns = q[L_OMEGA] * t * (1.0 / TWO_PI);
    lv_double k = (turns + 0x1.8p52) - 0x1.8p52; /* turns, rounded down: */
    k = lv_sel(lv_gt(k, turns), k - 1.0, k);
    lv_mask hit = fired[E_CONTACT], late = hit & lv_ge(t, q[L_HALF]);
    lv_double v_in = lv_max_nanb(y[1], lv_zero());
    rec[R_V_LAST] = lv_sel(hit, v_in, rec[R_V_LAST]);
    lv_double phase = lv_max_nanb((turns - k) * TWO_PI, lv_zero());
    rec[R_PHASE_LAST] = lv_sel(hit, phase, rec[R_PHASE_LAST]);
    rec[R_V_MAX_LATE] = lv_sel(late, lv_max_nanb(rec[R_V_MAX_LATE], v_in), rec[R_V_MAX_LATE]);
    y[0] = lv_sel(hit, q[L_DELTA], y[0]);
    y[1] = lv_sel(hit, -(q[L_R] * v_in), y[1]);
    y[3] = lv_add_where(hit, y[3], lv_splat(1.0));
    y[2] = lv_sel(fired[E_RELEASE], lv_zero(), y[2]);
    lv_mask budget = hit & lv_gt(y[3], q[L_MAX]);
    lv_mask free = free_for_ever(q, hit | fired[E_RELEASE], t, y);
    rec[R_BUDGET] = lv_sel(budget, lv_splat(1.0), rec[R_BUDGET]);
    rec[R_FREE] = lv_sel(free, lv_splat(1.0), rec[R_FREE]);
    return budget | free;
}

/* The invariant: the mass not beyond the stop (in flight; on it while stuck), over the
 * scale |delta| + X + |x0| + |v0| + 1 (tolerance 1e-10). */
static void invariants(const is_hybrid_lanes *b, lv_double t, const lv_double *y, lv_double *v)
{
    (void)t;
    v[0] = (b->par[L_DELTA] - y[0]) / b->par[L_SCALE];
}

/* A chatter reset at t_star: at rest on the stop, held while the force pushes into it. */
static lv_mask rest(is_hybrid_lanes *b, lv_mask m, lv_double t, lv_double t_star, lv_double *y)
{
    const lv_double *q = b->par;
    lv_double s, c;
    (void)t, lv_sincos(q[L_OMEGA] * t_star, &s, &c);
    y[0] = lv_sel(m, q[L_DELTA], y[0]);
    y[1] = lv_sel(m, lv_zero(), y[1]);
    y[2] = lv_sel(m & lv_gt(q[L_A] * c - q[L_DELTA], lv_zero()), lv_splat(1.0), y[2]);
    y[4] = lv_add_where(m, y[4], lv_splat(1.0));
    return lv_mask_none();
}

/* The Lyapunov exponent's derivatives in (x, v) (<impactsweep/hybrid_lyapunov.h>): the
 * flight's, e^(-zeta s) [[c + zeta S / w, S / w], [-S / w, c - zeta S / w]] (c, S the
 * cosine and sine of w s, w = sqrt(1 - zeta^2)), and none at rest (the stop holds it:
 * nearby motions merge); the field, the contact's gradient and its law v+ = -r v for the
 * saltation matrix (the rate, -v, is the events'). */
static void flow_jacobian(const is_hybrid_lanes *b, lv_double t0, const lv_double *y0,
                          lv_double dt, lv_double (*P)[IS_HYBRID_MAX_DIM])
{
    const lv_double *q = b->par;
    lv_double s, c, e = lv_exp_dd(-(q[L_ZETA] * dt), lv_zero()), w = 1.0 / q[L_WD];
    lv_mask free = lv_not(lv_gt(y0[2], lv_zero()));
    (void)t0, lv_sincos(q[L_WD] * dt, &s, &c);
    lv_double es = lv_keep(free, e * s * w), ez = q[L_ZETA] * es, ec = lv_keep(free, e * c);
    P[0][0] = ec + ez, P[0][1] = es;
    P[1][0] = -es, P[1][1] = ec - ez;
}

static void field(const is_hybrid_lanes *b, lv_double t, const lv_double *y, lv_double *f)
{
    const lv_double *q = b->par;
    lv_mask free = lv_not(lv_gt(y[2], lv_zero()));
    lv_double s, c;
    lv_sincos(q[L_OMEGA] * t, &s, &c);
    lv_double a = q[L_A] * c - y[0] + -(2.0 * q[L_ZETA] * y[1]);
    f[0] = lv_keep(free, y[1]), f[1] = lv_keep(free, a);
}

static void gradient(const is_hybrid_lanes *b, lv_double t, const lv_double *y,
                     lv_double (*n)[IS_HYBRID_MAX_DIM], lv_double *g_t)
{
    (void)b, (void)t, (void)y, (void)g_t, n[E_CONTACT][0] = lv_splat(-1.0); /* (rates given) */
}

static void contact_jacobian(const is_hybrid_lanes *b, const lv_mask *fired, lv_double t,
                             const lv_double *y, lv_double (*R)[IS_HYBRID_MAX_DIM], lv_double *R_t)
{
    (void)t, (void)y, (void)R_t, R[1][1] = lv_sel(fired[E_CONTACT], -b->par[L_R], R[1][1]);
}

static const is_hybrid_lyapunov lyapunov = {.dimension = 2, .flow_jacobian = flow_jacobian,
    .field = field, .event_gradient = gradient, .reset_jacobian = contact_jacobian};

/* the batch; its points with exponent = `exponent` are run (two passes, two systems) */
typedef struct batch { const double *points; double *out; uint8_t *status; size_t count;
                       int exponent; } batch;

static int start(void *ctx, size_t i, is_hybrid_start *s)
{
    const double *p = ((batch *)ctx)->points + i * PARAM_COUNT;
    double w = p[P_OMEGA], zeta = p[P_ZETA], re = 1.0 - w * w, im = 2.0 * zeta * w;
    double d2 = re * re + im * im, T = TWO_PI / w, X = p[P_A] / sqrt(d2);
    double scale = fabs(p[P_DELTA]) + X + fabs(p[P_X0]) + fabs(p[P_V0]);
    double par[] = {w, zeta, p[P_A], p[P_DELTA], p[P_R], sqrt(1.0 - zeta * zeta),
                    p[P_A] * re / d2, p[P_A] * im / d2, X, 0.5 * T * p[P_PERIODS],
                    64.0 * 2.2e-16 * scale, 0.02 * T, p[P_MAX_IMPACTS]};
    for (int k = 0; k <= L_MAX; k++)
        s->par[k] = par[k];
    s->par[L_SCALE] = 1.0 + scale;
    s->t_end = T * p[P_PERIODS];
    s->section_period = T;
    s->y[0] = p[P_X0], s->y[1] = p[P_V0];
    s->rec[R_V_LAST] = s->rec[R_PHASE_LAST] = NAN;
    s->h_max = T; /* (the step limit keeps steps clear of the stop) */
    s->zeno_tail = p[P_ZENO_TAIL] * T, s->stick_speed = 1e-12 * scale;
    s->lyapunov_interval = T, s->lyapunov_transient = 0.25 * s->t_end;
    int n = (int)p[P_SECTION_N], at = (int)p[P_SECTION_AT], strobe = 2 * (int)p[P_MAX_PERIOD];
    s->section_samples[S_STROBE] = at == S_STROBE && n > strobe ? n : strobe;
    s->section_samples[S_CONTACT] = at == S_CONTACT ? n : 1;
    return (int)p[P_EXPONENT] == ((batch *)ctx)->exponent;
}

/* The section outputs from the chosen recorder (after the scalars, the array `section`:
 * a point's values together, the contract's layout; NaN before the first sample kept);
 * the exponent: a free motion's is exact, -zeta (the linear flight's, both of them). */
static void section_outputs(const batch *bt, size_t i, const is_hybrid_end *e, int ok,
                            int free, double X)
{
    const double *p = bt->points + i * PARAM_COUNT;
    int n = (int)p[P_SECTION_N];
    const is_hybrid_section *sec = &e->recorded[(int)p[P_SECTION_AT]];
    double *o = bt->out + i, x = 1e-12 * (1.0 + fabs(p[P_DELTA]) + X); /* rounding */
    double atol[2] = {1e-7 * (fabs(p[P_DELTA]) + X) + x, x};
    int sp = is_hybrid_section_period(sec, 2, n / 2, 1e-7, atol);
    o[O_SECTION_PERIOD * bt->count] = sp ? sp : NAN;
    o[O_SECTION_VALUES * bt->count] = is_hybrid_section_distinct(sec, 2, n, 1e-7, atol);
    o[O_SECTION_SPREAD * bt->count] = is_hybrid_section_spread(sec, 1, n);
    if (ok && bt->exponent) {
        o[O_LYAPUNOV * bt->count] = free ? -p[P_ZETA] : e->lyapunov[0];
        o[O_LYAPUNOV_ERROR * bt->count] = free ? 0.0 : e->lyapunov_error;
    }
    is_hybrid_section_copy(sec, 1, SECTION_LENGTH, bt->out + O_SECTION * bt->count +
                           i * SECTION_LENGTH, 1);
}

static void finish(void *ctx, size_t i, const is_hybrid_end *e)
{
    static const uint8_t status_of[] = {IS_POINT_DONE, IS_POINT_FAILED_BUDGET,
                                        IS_POINT_FAILED_CHECK, IS_POINT_FAILED_NONFINITE};
    batch *bt = ctx;
    const double *p = bt->points + i * PARAM_COUNT;
    is_hybrid_start s = {0}; /* the lane's values again: the end's envelope, the scales */
    lv_double q[L_MAX + 1], y[5] = {lv_splat(e->y[0]), lv_splat(e->y[1]), lv_splat(e->y[2])};
    start(ctx, i, &s);
    for (int k = 0; k <= L_MAX; k++)
        q[k] = lv_splat(s.par[k]);
    lv_mask free_end = free_for_ever(q, lv_mask_of(1), lv_splat(e->t), y);
    int free = e->rec[R_FREE] || lv_mask_lane(free_end, 0);
    double *o[OUTPUT_COUNT], X = s.par[L_X], tol = 1e-8 * (fabs(p[P_DELTA]) + X); /* of the scale */
    for (int k = 0; k < OUTPUT_COUNT; k++)
        o[k] = bt->out + (size_t)k * bt->count + i;
    int ok = e->status == IS_HYBRID_HORIZON || (e->status == IS_HYBRID_ENDED && e->rec[R_FREE]);
    int check = e->rec[R_BUDGET] || e->status == IS_HYBRID_BUDGET ? CHECK_BUDGET
                : e->status == IS_HYBRID_VIOLATED                  ? CHECK_PENETRATION
                : !ok                                              ? CHECK_NONFINITE
                                                                   : CHECK_NONE;
    for (int64_t k = 0; k < e->sections && k < IS_HYBRID_RING && !check; k++)
        if (e->section[k][0] > p[P_DELTA] + 1e-12 * (1.0 + fabs(p[P_DELTA]) + X))
            check = CHECK_PENETRATION; /* a state beyond the stop */
    /* (the strobe recorder: the sections, components (x, v, stuck, impacts, rests)) */
    const is_hybrid_section *strobe = &e->recorded[S_STROBE];
    double tols[2] = {tol, tol * fmax(1.0, p[P_OMEGA])};
    int period = check || free ? 0 : is_hybrid_section_period(strobe, 2, (int)p[P_MAX_PERIOD],
                                                              0.0, tols);
    const double *now = period ? is_hybrid_section_sample(strobe, 0) + 1 : NULL;
    const double *then = period ? is_hybrid_section_sample(strobe, period) + 1 : NULL;
    int chatter = period && (now[2] > 0.0 || now[4] > then[4]);
    *o[O_REGIME] = check ? REGIME_FAILED : free ? REGIME_FREE
                   : !period ? REGIME_UNDECIDED : chatter ? REGIME_CHATTER : REGIME_PERIODIC;
    *o[O_PERIOD] = period ? period : NAN;
    *o[O_IMPACTS_PER_PERIOD] = period ? now[3] - then[3] : NAN;
    *o[O_IMPACTS] = e->y[3];
    *o[O_V_IMPACT] = e->rec[R_V_LAST];
    *o[O_PHASE_IMPACT] = e->rec[R_PHASE_LAST];
    *o[O_V_IMPACT_MAX] = e->rec[R_V_MAX_LATE];
    *o[O_CHECK] = check;
    *o[O_T_CHECK] = check ? e->t : NAN; /* (a penetration seen at a section: the run's end) */
    section_outputs(bt, i, e, !check, free, X);
    bt->status[i] = status_of[check];
}

/* The system without the exponent and with it (a point pays for the tangents only when it
 * asks for them); the names are those `impactsweep trace` gives the state and the events
 * (IS_HYBRID_PLUGIN). */
#define FORCED_STOP(exponent) {                                                              \
    .dimension = 5, .events = 2, .direction = {-1, -1},                                      \
    .kind = {IS_HYBRID_RESET, IS_HYBRID_RESET}, .watch = 1u << E_CONTACT, .sections = 1,     \
    .flow = flow, .event_values = events, .rates = 1, .on_event = on_event,                  \
    .on_accumulate = rest, .step_limit = step_limit, .start = start, .finish = finish,       \
    .invariants = 1, .invariant_name = {"the mass beyond the stop"},                         \
    .invariant_tolerance = {1e-10}, .invariant_values = invariants, .recorders = 2,          \
    .recorder = {{IS_HYBRID_SECTION_STROBE, 0, 0, 5, SECTION_MAX},                           \
                 {IS_HYBRID_SECTION_EVENTS, 1u << E_CONTACT, 0, 2, SECTION_MAX}},            \
    .lyapunov = exponent, .state_name = {"x", "v", "stuck", "impacts", "rests"},             \
    .event_name = {"contact", "release"}}
static const is_hybrid_system forced_stop = FORCED_STOP(NULL),
                              forced_stop_exponent = FORCED_STOP(&lyapunov);

static is_code fs_workspace_create(void **workspace, is_error *err) /* the stop flag */
{
    *workspace = calloc(1, sizeof(const volatile sig_atomic_t *));
    return *workspace ? IS_OK : fs_error(err, IS_NOMEM, "forced-stop: no memory");
}

static void fs_workspace_watch(void *workspace, const volatile sig_atomic_t *stop)
{
    *(const volatile sig_atomic_t **)workspace = stop;
}

static is_code fs_eval_batch(void *workspace, const double *points, size_t count,
                             double *outputs, uint8_t *status, is_error *err)
{
    batch bt = {points, outputs, status, count, 0};
    const volatile sig_atomic_t *stop = *(const volatile sig_atomic_t **)workspace;
    int exponent = 0, rc = 0;
    for (size_t i = 0; i < count * (OUTPUT_COUNT - 1 + SECTION_LENGTH); i++)
        outputs[i] = NAN;
    for (size_t i = 0; i < count; i++)
        status[i] = IS_POINT_PENDING, /* until finished: a stop leaves the rest pending */
        exponent |= points[i * PARAM_COUNT + P_EXPONENT] != 0.0;
    rc = is_hybrid_run(&forced_stop, &bt, count, stop, 0);
    bt.exponent = 1;
    if (exponent && rc == 0)
        rc = is_hybrid_run(&forced_stop_exponent, &bt, count, stop, 0);
    return rc < 0 ? fs_error(err, IS_NOMEM, "forced-stop: no memory for the lanes") : IS_OK;
}

const is_model forced_stop_model = {IS_MODEL_HEADER,
    .name = "forced-stop", .description = "harmonically forced linear oscillator hitting a "
    "rigid stop: impacts, chatter, sticking, the final motion's period, its sections and "
    "Lyapunov exponent (time in 1/omega_n)",
    .params = fs_params, .param_count = PARAM_COUNT, .outputs = fs_outputs,
    .output_count = OUTPUT_COUNT, .validate = fs_validate,
    .workspace_create = fs_workspace_create, .workspace_free = free,
    .workspace_watch = fs_workspace_watch, .eval_batch = fs_eval_batch, .version = "2.1.0"};

/* IS_MODEL_PLUGIN, with a trace made by the integrator: `impactsweep trace forced-stop` */
IS_HYBRID_PLUGIN(forced_stop_model, forced_stop)
