/* minimal.c: the smallest model on <impactsweep/hybrid.h>, the one docs/writing-a-model.md
 * walks through: a ball dropped from height h onto a rigid floor (x'' = -g), each impact
 * v -> -e v, until the impacts accumulate (Zeno) and the ball rests. Outputs: when it comes
 * to rest (exactly sqrt(2h/g) (1 + e) / (1 - e)) and the impacts counted before. The
 * integrator's trace comes with IS_HYBRID_PLUGIN: `impactsweep trace minimal-ball`. */
#include <impactsweep/hybrid.h>
#include <impactsweep/model.h>
#include <math.h>

#define G 9.81 /* gravity, m s-2 */
enum { P_H, P_E, PARAMS };      /* the parameters, */
enum { O_REST, O_IMPACTS, OUTPUTS }; /* the outputs, */
enum { R_IMPACTS };             /* the records a lane keeps */

static const is_param params[PARAMS] = {
    {"h", "drop height", "m", IS_PARAM_REAL, 1.0, 0.0, 100.0, IS_PARAM_MIN_OPEN, NULL, NULL,
     "$h$"},
    {"e", "coefficient of restitution", "1", IS_PARAM_REAL, 0.5, 0.05, 0.95, 0, NULL, NULL,
     "$e$"}};
static const is_output outputs[OUTPUTS] = {
    {"t_rest", "s", "time when the ball comes to rest", IS_OUTPUT_REAL, NULL, 0, "rest time"},
    {"impacts", "1", "impacts before the rest", IS_OUTPUT_INT, NULL, 0, "impacts"}};

/* y = (x, v): the free flight, in closed form (a flow: exact, and events located to
 * rounding) from (t0, y0) over dt */
static void flow(const is_hybrid_lanes *b, lv_double t0, const lv_double *y0, lv_double dt,
                 lv_double *y)
{
    (void)b, (void)t0;
    y[0] = y0[0] + dt * (y0[1] - (0.5 * G) * dt);
    y[1] = y0[1] - G * dt;
}

/* one event: the height, falling through 0; its rate is v */
static void events(const is_hybrid_lanes *b, lv_double t, const lv_double *y,
                   const lv_double *dydt, lv_double *g, lv_double *dg)
{
    (void)b, (void)t, (void)dydt;
    g[0] = y[0];
    if (dg)
        dg[0] = y[1];
}

/* the impact: v -> -e v, counted */
static lv_mask on_event(is_hybrid_lanes *b, const lv_mask *fired, lv_double t, lv_double *y)
{
    (void)t;
    y[1] = lv_sel(fired[0], -b->par[P_E] * y[1], y[1]);
    b->rec[R_IMPACTS] = lv_add_where(fired[0], b->rec[R_IMPACTS], lv_splat(1.0));
    return lv_mask_none(); /* no lane ends here */
}

/* the impacts accumulated at t_star: the ball rests there, and the run ends */
static lv_mask rest(is_hybrid_lanes *b, lv_mask m, lv_double t, lv_double t_star, lv_double *y)
{
    (void)b, (void)t, (void)t_star;
    y[0] = lv_sel(m, lv_zero(), y[0]);
    y[1] = lv_sel(m, lv_zero(), y[1]);
    return m;
}

/* per point, in plain C: the batch's arrays */
typedef struct batch {
    const double *points;
    double *out;
    uint8_t *status;
    size_t count;
} batch;

static int start(void *ctx, size_t i, is_hybrid_start *s)
{
    const double *p = ((batch *)ctx)->points + i * PARAMS;
    s->t_end = 1e4;
    s->y[0] = p[P_H];
    s->par[P_E] = p[P_E];
    s->h_max = 0.1; /* a flow's steps: the longest */
    s->zeno_tail = 1e-9; /* the impacts accumulate once the rest of them is this short */
    return 1;
}

static void finish(void *ctx, size_t i, const is_hybrid_end *e)
{
    batch *bt = ctx;
    int rested = e->status == IS_HYBRID_ENDED;
    bt->out[O_REST * bt->count + i] = e->t;
    bt->out[O_IMPACTS * bt->count + i] = e->rec[R_IMPACTS];
    bt->status[i] = rested ? IS_POINT_DONE : IS_POINT_FAILED_BUDGET;
}

static const is_hybrid_system ball = {
    .dimension = 2, .events = 1, .direction = {-1}, .kind = {IS_HYBRID_RESET},
    .flow = flow, .event_values = events, .rates = 1, .on_event = on_event,
    .on_accumulate = rest, .start = start, .finish = finish,
    .state_name = {"x", "v"}, .state_unit = {"m", "m s-1"}, .event_name = {"impact"},
    .time_unit = "s"};

static is_code eval_batch(void *ws, const double *points, size_t n, double *out,
                          uint8_t *status, is_error *err)
{
    (void)ws, (void)err;
    batch bt = {points, out, status, n};
    for (size_t i = 0; i < n; i++)
        status[i] = IS_POINT_PENDING; /* until finished */
    return is_hybrid_run(&ball, &bt, n, NULL, 0) < 0 ? IS_NOMEM : IS_OK;
}

static const is_model minimal_model = {IS_MODEL_HEADER,
    .name = "minimal-ball", .version = "1.0.0",
    .description = "a ball dropped onto a rigid floor: when it comes to rest",
    .params = params, .param_count = PARAMS, .outputs = outputs, .output_count = OUTPUTS,
    .eval_batch = eval_batch};

IS_HYBRID_PLUGIN(minimal_model, ball) /* the entry point, with the integrator's trace */
