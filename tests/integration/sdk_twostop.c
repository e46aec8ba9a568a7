/* sdk_twostop.c: integration.install's outside model, written from the installed headers
 * and docs/writing-a-model.md alone: two forced linear oscillators, each against its own
 * rigid stop, coupled by a spring kc, in FIELD mode (vector field and Jacobian, no closed
 * form given to the integrator): x_i'' + 2 z x_i' + x_i + kc (x_i - x_j) = A cos(w t), impact at x_i = s with
 * v_i -> -r v_i. With symmetric starts both masses hit at the same instant every time
 * (two events at once). Outputs: impacts of mass 1, its last 16 impact times and speeds
 * (array outputs, an impact section), the stroboscopic and impact sections' periods, the
 * Lyapunov spectrum (array of 4) and its convergence measure. */
#include <impactsweep/hybrid.h>
#include <impactsweep/model.h>
#include <math.h>

enum { P_Z, P_A, P_W, P_S, P_R, P_KC, P_X1, P_V1, P_X2, P_V2, P_PERIODS, P_TRANS,
       P_RTOL, P_HMAX, PARAMS };
enum { O_IMPACTS, O_T, O_V, O_SPER, O_IPER, O_LYAP, O_LERR, O_STEPS, O_T_END, O_END,
       O_IMP2, OUTPUTS };
enum { R_IMP1, R_IMP2 };
#define NSEC 16
#define NPAR(n, m, u, d, lo, hi) {n, m, u, IS_PARAM_REAL, d, lo, hi, 0, NULL, NULL, NULL}

static const is_param params[PARAMS] = {
    NPAR("z", "damping ratio", "1", 0.05, 0.0, 1.0),
    NPAR("A", "forcing amplitude", "1", 1.0, 0.0, 100.0),
    NPAR("w", "forcing frequency", "1", 2.0, 0.1, 10.0),
    NPAR("s", "stop position", "1", 0.2, -10.0, 10.0),
    NPAR("r", "restitution", "1", 0.8, 0.0, 1.0),
    NPAR("kc", "coupling stiffness", "1", 0.0, 0.0, 10.0),
    NPAR("x1", "initial x1", "1", 0.0, -10.0, 10.0),
    NPAR("v1", "initial v1", "1", 0.0, -100.0, 100.0),
    NPAR("x2", "initial x2", "1", 0.0, -10.0, 10.0),
    NPAR("v2", "initial v2", "1", 0.0, -100.0, 100.0),
    NPAR("periods", "forcing periods run", "1", 20.0, 0.0, 1e6),
    NPAR("transient", "forcing periods before the exponents count", "1", 0.0, 0.0, 1e6),
    {"rtol", "relative tolerance", "1", IS_PARAM_REAL, 1e-8, 1e-14, 1e-3, IS_PARAM_TOLERANCE,
     NULL, NULL, NULL},
    NPAR("hmax", "longest step (0: none)", "1", 0.0, 0.0, 10.0)};

static const is_output outputs[OUTPUTS] = {
    {.name = "impacts", .unit = "1", .long_name = "impacts of mass 1", .type = IS_OUTPUT_INT},
    {.name = "impact_t", .unit = "1", .long_name = "mass 1's last impact times",
     .type = IS_OUTPUT_REAL, .flags = IS_OUTPUT_MAY_BE_NAN, .length = NSEC,
     .length_name = "impact"},
    {.name = "impact_v", .unit = "1", .long_name = "mass 1's speed into its last impacts",
     .type = IS_OUTPUT_REAL, .flags = IS_OUTPUT_MAY_BE_NAN, .length = NSEC,
     .length_name = "impact"},
    {.name = "strobe_period", .unit = "1", .long_name = "period on the stroboscopic section "
     "(forcing periods; 0 none found)", .type = IS_OUTPUT_INT},
    {.name = "impact_period", .unit = "1", .long_name = "period on mass 1's impact section "
     "(impacts; 0 none found)", .type = IS_OUTPUT_INT},
    {.name = "lyapunov", .unit = "1", .long_name = "Lyapunov spectrum", .type = IS_OUTPUT_REAL,
     .flags = IS_OUTPUT_MAY_BE_NAN | IS_OUTPUT_MAY_BE_INF, .length = 4},
    {.name = "lyapunov_error", .unit = "1", .long_name = "spread of the largest exponent",
     .type = IS_OUTPUT_REAL, .flags = IS_OUTPUT_MAY_BE_NAN},
    {.name = "steps", .unit = "1", .long_name = "steps", .type = IS_OUTPUT_INT,
     .flags = IS_OUTPUT_WORK},
    {.name = "t_end", .unit = "1", .long_name = "end time", .type = IS_OUTPUT_REAL},
    {.name = "end", .unit = "1", .long_name = "the integrator's end status", .type = IS_OUTPUT_INT},
    {.name = "impacts2", .unit = "1", .long_name = "impacts of mass 2", .type = IS_OUTPUT_INT}};

/* y = (x1, v1, x2, v2) */
static void field(is_hybrid_lanes *b, lv_double t, const lv_double *y, lv_double *f)
{
    lv_double z2 = 2.0 * b->par[P_Z], kc = b->par[P_KC];
    lv_double sn, cs;
    lv_sincos(b->par[P_W] * t, &sn, &cs);
    lv_double F = b->par[P_A] * cs;
    f[0] = y[1];
    f[1] = F - z2 * y[1] - y[0] - kc * (y[0] - y[2]);
    f[2] = y[3];
    f[3] = F - z2 * y[3] - y[2] - kc * (y[2] - y[0]);
}

static void jacobian(is_hybrid_lanes *b, lv_double t, const lv_double *y,
                     lv_double (*J)[IS_HYBRID_MAX_DIM])
{
    (void)t, (void)y;
    lv_double z2 = 2.0 * b->par[P_Z], kc = b->par[P_KC];
    J[0][1] = lv_splat(1.0);
    J[1][0] = -1.0 - kc, J[1][1] = -z2, J[1][2] = kc;
    J[2][3] = lv_splat(1.0);
    J[3][2] = -1.0 - kc, J[3][3] = -z2, J[3][0] = kc;
}

/* g_i = s - x_i, falling through 0 at an impact; rate -v_i */
static void events(const is_hybrid_lanes *b, lv_double t, const lv_double *y,
                   const lv_double *dydt, lv_double *g, lv_double *dg)
{
    (void)t, (void)dydt;
    g[0] = b->par[P_S] - y[0];
    g[1] = b->par[P_S] - y[2];
    if (dg)
        dg[0] = -y[1], dg[1] = -y[3];
}

static lv_mask on_event(is_hybrid_lanes *b, const lv_mask *fired, lv_double t, lv_double *y)
{
    (void)t;
    y[1] = lv_sel(fired[0], -b->par[P_R] * y[1], y[1]);
    y[3] = lv_sel(fired[1], -b->par[P_R] * y[3], y[3]);
    b->rec[R_IMP1] = lv_add_where(fired[0], b->rec[R_IMP1], lv_splat(1.0));
    b->rec[R_IMP2] = lv_add_where(fired[1], b->rec[R_IMP2], lv_splat(1.0));
    return lv_mask_none();
}

static void gradient(const is_hybrid_lanes *b, lv_double t, const lv_double *y,
                     lv_double (*n)[IS_HYBRID_MAX_DIM], lv_double *g_t)
{
    (void)b, (void)t, (void)y, (void)g_t;
    n[0][0] = lv_splat(-1.0);
    n[1][2] = lv_splat(-1.0);
}

static void reset_jacobian(const is_hybrid_lanes *b, const lv_mask *fired, lv_double t,
                           const lv_double *y, lv_double (*R)[IS_HYBRID_MAX_DIM],
                           lv_double *R_t)
{
    (void)t, (void)y, (void)R_t;
    R[1][1] = lv_sel(fired[0], -b->par[P_R], R[1][1]);
    R[3][3] = lv_sel(fired[1], -b->par[P_R], R[3][3]);
}

static const is_hybrid_lyapunov lyap = {.dimension = 4, .vectors = 4, .jacobian = jacobian,
                                        .event_gradient = gradient,
                                        .reset_jacobian = reset_jacobian};

typedef struct batch {
    const double *points;
    double *out;
    uint8_t *status;
    size_t count;
} batch;

static int start(void *ctx, size_t i, is_hybrid_start *s)
{
    const double *p = ((batch *)ctx)->points + i * PARAMS;
    double T = 6.283185307179586 / p[P_W];
    s->t_end = p[P_PERIODS] * T;
    s->y[0] = p[P_X1], s->y[1] = p[P_V1], s->y[2] = p[P_X2], s->y[3] = p[P_V2];
    for (int k = 0; k < PARAMS; k++)
        s->par[k] = p[k];
    s->rtol = p[P_RTOL];
    s->atol = p[P_RTOL] * 1e-2;
    s->h_max = p[P_HMAX];
    s->zeno_tail = 1e-9;
    s->section_period = T;
    s->lyapunov_interval = T;
    s->lyapunov_transient = p[P_TRANS] * T;
    return 1;
}

static void finish(void *ctx, size_t i, const is_hybrid_end *e)
{
    batch *bt = ctx;
    size_t n = bt->count;
    double *o = bt->out;
    /* block starts: scalars count 1, arrays their length */
    size_t at_t = 1, at_v = at_t + NSEC, at_sp = at_v + NSEC, at_ip = at_sp + 1,
           at_l = at_ip + 1, at_le = at_l + 4, at_st = at_le + 1, at_te = at_st + 1;
    o[0 * n + i] = e->rec[R_IMP1];
    is_hybrid_section_copy(&e->recorded[1], IS_HYBRID_SECTION_TIME, NSEC,
                           o + at_t * n + i * NSEC, 1);
    is_hybrid_section_copy(&e->recorded[1], 1, NSEC, o + at_v * n + i * NSEC, 1);
    o[at_sp * n + i] = is_hybrid_section_period(&e->recorded[0], 4, 32, 1e-6, NULL);
    o[at_ip * n + i] = is_hybrid_section_period(&e->recorded[1], 2, 32, 1e-6,
                                                (const double[]){1e-9, 1e-9});
    for (int k = 0; k < 4; k++)
        o[at_l * n + i * 4 + k] = e->lyapunov[k];
    o[at_le * n + i] = e->lyapunov_error;
    o[at_st * n + i] = (double)e->steps;
    o[at_te * n + i] = e->t;
    o[(at_te + 1) * n + i] = e->status;
    o[(at_te + 2) * n + i] = e->rec[R_IMP2];
    bt->status[i] = e->status == IS_HYBRID_HORIZON ? IS_POINT_DONE
                    : e->status == IS_HYBRID_VIOLATED ? IS_POINT_FAILED_CHECK
                                                      : IS_POINT_FAILED_SOLVER;
}

static const is_hybrid_system twostop = {
    .dimension = 4, .events = 2, .direction = {-1, -1},
    .kind = {IS_HYBRID_RESET, IS_HYBRID_RESET}, .field = field, .event_values = events,
    .rates = 1, .on_event = on_event, .start = start, .finish = finish, .sections = 1,
    .locate_tolerance = {1e-13, 1e-13}, /* (the default, 1e-9 of a step, is coarser than
                                           the solution at rtol 1e-14) */
    .recorders = 2,
    .recorder = {{IS_HYBRID_SECTION_STROBE, 0, 0, 4, 64},
                 {IS_HYBRID_SECTION_EVENTS, 1u << 0, 0, 2, 64}},
    .state_name = {"x1", "v1", "x2", "v2"}, .event_name = {"impact1", "impact2"},
    .lyapunov = &lyap};

static is_code eval_batch(void *ws, const double *points, size_t n, double *out,
                          uint8_t *status, is_error *err)
{
    (void)ws, (void)err;
    batch bt = {points, out, status, n};
    for (size_t i = 0; i < n; i++)
        status[i] = IS_POINT_PENDING;
    return is_hybrid_run(&twostop, &bt, n, NULL, 0) < 0 ? IS_NOMEM : IS_OK;
}

static const is_model model = {IS_MODEL_HEADER, .name = "twostop", .version = "0.1.0",
                               .description = "two coupled forced oscillators on rigid stops",
                               .params = params, .param_count = PARAMS, .outputs = outputs,
                               .output_count = OUTPUTS, .eval_batch = eval_batch};

IS_HYBRID_PLUGIN(model, twostop)
