/* chatter_batch.c: the vectorised drop simulator behind the chatter model's eval_batch.
 *
 * Drops run in a pool of LANES lanes held as structure-of-arrays; every inner loop
 * runs over all lanes with selects instead of branches, so the compiler vectorises it.
 * A lane that finishes (lift-off or impact budget) is refilled at the next round
 * boundary from the queue of the batch's drops, so slow and fast drops share the pool.
 * Each drop's arithmetic is elementwise and rescaling is by powers of two, so a drop's
 * result is bitwise the same whatever lane, round or batch it runs in. Per-point
 * reductions run in drop order at the end, for the same reason. */
#include "chatter.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define LANES 64
#define NO_DROP SIZE_MAX

struct chatter_workspace {
    /* Lane state: configuration q and velocity p, each scaled by its own power of two. */
    _Alignas(64) double qx[LANES], qy[LANES], qz[LANES];
    _Alignas(64) double px[LANES], py[LANES], pz[LANES];
    _Alignas(64) double last[LANES];     /* vertex hit last, -1 before the first impact */
    _Alignas(64) double impacts[LANES];
    _Alignas(64) double limit[LANES];    /* max_impacts of the lane's drop */
    _Alignas(64) double time[LANES];     /* accumulated flight time, unscaled */
    _Alignas(64) double tscale[LANES];   /* 2^(q exponent - p exponent) */
    _Alignas(64) double c_rot[LANES], c_h[LANES]; /* impact coefficients, see chatter_apply_impact */
    _Alignas(64) double active[LANES];   /* 1: still simulating, 0: finished or empty */
    _Alignas(64) double lifted[LANES];   /* 1: ended by lift-off */
    _Alignas(64) double pcc_seen[LANES]; /* 1: the velocity was PCC-like before an impact */
    /* Scratch of the vertex search. */
    _Alignas(64) double best_num[LANES], best_den[LANES], best_fx[LANES], best_fy[LANES],
        best_j[LANES];
    _Alignas(64) double last_fx[LANES], last_fy[LANES]; /* normal of the vertex hit last */
    int q_exp[LANES], p_exp[LANES];
    size_t drop[LANES];                  /* index into the drop results, or NO_DROP */

    chatter_cone_work *cone;             /* the certificate search's arrays */

    /* Per-drop results of the current batch, grown when a batch needs more. */
    size_t drop_capacity;
    uint8_t *drop_outcome;
    double *drop_impacts;
    double *drop_time;
};

is_code chatter_workspace_create(void **workspace, is_error *err)
{
    chatter_workspace *ws = aligned_alloc(64, (sizeof *ws + 63) / 64 * 64);
    if (!ws)
        return is_error_set(err, IS_NOMEM, "chatter: cannot allocate the workspace");
    memset(ws, 0, sizeof *ws);
    ws->cone = chatter_cone_work_create();
    if (!ws->cone) {
        free(ws);
        return is_error_set(err, IS_NOMEM, "chatter: cannot allocate the cone search");
    }
    *workspace = ws;
    return IS_OK;
}

void chatter_workspace_free(void *workspace)
{
    chatter_workspace *ws = workspace;
    if (!ws)
        return;
    free(ws->drop_outcome);
    free(ws->drop_impacts);
    free(ws->drop_time);
    chatter_cone_work_free(ws->cone);
    free(ws);
}

static is_code reserve_drops(chatter_workspace *ws, size_t needed, is_error *err)
{
    if (needed <= ws->drop_capacity)
        return IS_OK;
    size_t capacity = ws->drop_capacity ? ws->drop_capacity : 1024;
    while (capacity < needed)
        capacity *= 2;
    uint8_t *outcome = realloc(ws->drop_outcome, capacity * sizeof *outcome);
    if (outcome)
        ws->drop_outcome = outcome;
    double *impacts = realloc(ws->drop_impacts, capacity * sizeof *impacts);
    if (impacts)
        ws->drop_impacts = impacts;
    double *time = realloc(ws->drop_time, capacity * sizeof *time);
    if (time)
        ws->drop_time = time;
    if (!outcome || !impacts || !time)
        return is_error_set(err, IS_NOMEM, "chatter: cannot allocate results for %zu drops",
                            needed);
    ws->drop_capacity = capacity;
    return IS_OK;
}

/* Rounds between rescalings. An impact shrinks |p| (in the kinetic-energy norm) by at
 * most a factor gamma, and q by about gamma^2, so a round of R impacts keeps both
 * far above the subnormal range (2^-1022) when gamma^(2R) > 2^-500. */
static int round_length(double gamma_min)
{
    double per_impact = -2.0 * log2(gamma_min) + 1.0;
    int r = (int)(500.0 / per_impact);
    return r < 1 ? 1 : r > 16 ? 16 : r;
}

static int rescale_exponent(double a, double b, double c)
{
    double big = fmax(fabs(a), fmax(fabs(b), fabs(c)));
    if (!(big > 0.0) || !isfinite(big))
        return 0;
    int e;
    frexp(big, &e);
    return e;
}

static void lane_rescale(chatter_workspace *ws, int l)
{
    int eq = rescale_exponent(ws->qx[l], ws->qy[l], ws->qz[l]);
    int ep = rescale_exponent(ws->px[l], ws->py[l], ws->pz[l]);
    ws->qx[l] = ldexp(ws->qx[l], -eq);
    ws->qy[l] = ldexp(ws->qy[l], -eq);
    ws->qz[l] = ldexp(ws->qz[l], -eq);
    ws->px[l] = ldexp(ws->px[l], -ep);
    ws->py[l] = ldexp(ws->py[l], -ep);
    ws->pz[l] = ldexp(ws->pz[l], -ep);
    ws->q_exp[l] += eq;
    ws->p_exp[l] += ep;
    ws->tscale[l] = ldexp(1.0, ws->q_exp[l] - ws->p_exp[l]);
}

static void lane_start(chatter_workspace *ws, int l, const double *point, uint64_t sample,
                       size_t drop)
{
    double q0[3], p0[3];
    chatter_initial_state(point, sample, q0, p0);
    double rho2 = point[CHATTER_RHO] * point[CHATTER_RHO];
    double gamma = point[CHATTER_GAMMA];
    ws->qx[l] = q0[0];
    ws->qy[l] = q0[1];
    ws->qz[l] = q0[2];
    ws->px[l] = p0[0];
    ws->py[l] = p0[1];
    ws->pz[l] = p0[2];
    ws->q_exp[l] = ws->p_exp[l] = 0;
    ws->last[l] = -1.0;
    ws->impacts[l] = 0.0;
    ws->limit[l] = point[CHATTER_MAX_IMPACTS];
    ws->time[l] = 0.0;
    ws->c_rot[l] = (1.0 + gamma) / (1.0 + rho2);
    ws->c_h[l] = (1.0 + gamma) * rho2 / (1.0 + rho2);
    ws->active[l] = 1.0;
    ws->lifted[l] = 0.0;
    ws->pcc_seen[l] = 0.0;
    ws->last_fx[l] = ws->last_fy[l] = 0.0;
    ws->drop[l] = drop;
    lane_rescale(ws, l);
}

static void lane_finish(chatter_workspace *ws, int l, const chatter_geometry *geometry)
{
    size_t d = ws->drop[l];
    double p[3] = {ws->px[l], ws->py[l], ws->pz[l]};
    int pcc = ws->pcc_seen[l] != 0.0 ||
              (ws->lifted[l] == 0.0 && chatter_is_pcc_velocity(geometry, p));
    ws->drop_outcome[d] = pcc ? CHATTER_PCC : ws->lifted[l] != 0.0 ? CHATTER_ICC : CHATTER_CC;
    ws->drop_impacts[d] = ws->impacts[l];
    ws->drop_time[d] = ws->time[l];
    ws->drop[l] = NO_DROP;
}

/* `steps` impacts on every active lane: the hot loop. Same arithmetic as
 * chatter_drop_reference, with the nearest vertex found by comparing the flight times
 * num/den as cross products, so that there is one division per impact, not per vertex. */
static void run_steps(chatter_workspace *restrict ws, const chatter_geometry *restrict geometry,
                      int steps)
{
    double *restrict qx = ws->qx, *restrict qy = ws->qy, *restrict qz = ws->qz;
    double *restrict px = ws->px, *restrict py = ws->py, *restrict pz = ws->pz;
    double *restrict last = ws->last, *restrict impacts = ws->impacts;
    double *restrict time = ws->time, *restrict active = ws->active;
    double *restrict lifted = ws->lifted, *restrict pcc_seen = ws->pcc_seen;
    double *restrict last_fx = ws->last_fx, *restrict last_fy = ws->last_fy;
    const int pcc_possible = geometry->n >= 3;
    const double wrap = (double)(geometry->n - 1);
    const double *restrict limit = ws->limit, *restrict tscale = ws->tscale;
    const double *restrict c_rot = ws->c_rot, *restrict c_h = ws->c_h;
    double *restrict bnum = ws->best_num, *restrict bden = ws->best_den;
    double *restrict bfx = ws->best_fx, *restrict bfy = ws->best_fy, *restrict bj = ws->best_j;
    const int n = geometry->n;

    for (int s = 0; s < steps; s++) {
        for (int l = 0; l < LANES; l++) {
            bnum[l] = 1.0;
            bden[l] = 0.0; /* "infinitely far": any candidate beats it */
            bfx[l] = 0.0;
            bfy[l] = 0.0;
            bj[l] = -1.0;
        }
        for (int j = 0; j < n; j++) {
            const double fx = geometry->fx[j], fy = geometry->fy[j], jd = (double)j;
            for (int l = 0; l < LANES; l++) {
                double fp = fx * px[l] + fy * py[l] + pz[l];
                double fq = fx * qx[l] + fy * qy[l] + qz[l];
                double num = fq > 0.0 ? fq : 0.0;
                double den = -fp;
                int take = (fp < 0.0) & (last[l] != jd) & (num * bden[l] < bnum[l] * den);
                bnum[l] = take ? num : bnum[l];
                bden[l] = take ? den : bden[l];
                bfx[l] = take ? fx : bfx[l];
                bfy[l] = take ? fy : bfy[l];
                bj[l] = take ? jd : bj[l];
            }
        }
        for (int l = 0; l < LANES; l++) {
            int on = active[l] != 0.0;
            int hit = on & (bden[l] > 0.0);
            /* PCC: the vertex hit last and the one about to be hit are adjacent and both
             * nearly at rest (see pcc_before_impact in chatter_geometry.c) */
            double threshold = CHATTER_PCC_TOLERANCE * fabs(pz[l]);
            double last_fp = last_fx[l] * px[l] + last_fy[l] * py[l] + pz[l];
            double step = fabs(bj[l] - last[l]);
            int adjacent = (last[l] >= 0.0) & ((step == 1.0) | (step == wrap));
            int pcc = pcc_possible & hit & adjacent & (fabs(last_fp) < threshold) &
                      (bden[l] < threshold);
            pcc_seen[l] = pcc ? 1.0 : pcc_seen[l];
            double t = hit ? bnum[l] / bden[l] : 0.0;
            double fp = -bden[l];
            double nqx = qx[l] + t * px[l], nqy = qy[l] + t * py[l], nqz = qz[l] + t * pz[l];
            double npx = px[l] - c_rot[l] * fp * bfx[l];
            double npy = py[l] - c_rot[l] * fp * bfy[l];
            double npz = pz[l] - c_h[l] * fp;
            double nimp = impacts[l] + 1.0;
            int lift = on & ((!hit) | (npz >= 0.0));
            qx[l] = hit ? nqx : qx[l];
            qy[l] = hit ? nqy : qy[l];
            qz[l] = hit ? nqz : qz[l];
            px[l] = hit ? npx : px[l];
            py[l] = hit ? npy : py[l];
            pz[l] = hit ? npz : pz[l];
            impacts[l] = hit ? nimp : impacts[l];
            time[l] = hit ? time[l] + t * tscale[l] : time[l];
            last[l] = hit ? bj[l] : last[l];
            last_fx[l] = hit ? bfx[l] : last_fx[l];
            last_fy[l] = hit ? bfy[l] : last_fy[l];
            lifted[l] = lift ? 1.0 : lifted[l];
            active[l] = (on & !lift & (nimp < limit[l])) ? 1.0 : 0.0;
        }
    }
}

/* Simulates every drop of points[first .. first + count), which share one n. */
static void run_group(chatter_workspace *ws, const double *points, size_t first, size_t count,
                      size_t drop_base)
{
    chatter_geometry geometry;
    chatter_geometry_init(&geometry, (int)points[first * CHATTER_PARAM_COUNT + CHATTER_N]);
    double gamma_min = 1.0;
    for (size_t i = first; i < first + count; i++)
        gamma_min = fmin(gamma_min, points[i * CHATTER_PARAM_COUNT + CHATTER_GAMMA]);
    const int steps = round_length(gamma_min);

    size_t next_point = first;
    uint64_t next_sample = 0;
    size_t next_drop = drop_base;
    for (int l = 0; l < LANES; l++) {
        ws->drop[l] = NO_DROP;
        ws->active[l] = 0.0;
    }
    for (;;) {
        int busy = 0;
        for (int l = 0; l < LANES; l++) {
            if (ws->drop[l] != NO_DROP && ws->active[l] == 0.0)
                lane_finish(ws, l, &geometry);
            if (ws->drop[l] == NO_DROP && next_point < first + count) {
                const double *point = points + next_point * CHATTER_PARAM_COUNT;
                lane_start(ws, l, point, next_sample, next_drop++);
                if (++next_sample == (uint64_t)point[CHATTER_SAMPLES]) {
                    next_sample = 0;
                    next_point++;
                }
            } else if (ws->drop[l] != NO_DROP) {
                lane_rescale(ws, l);
            }
            busy |= ws->drop[l] != NO_DROP;
        }
        if (!busy)
            break;
        run_steps(ws, &geometry, steps);
    }
}

static void reduce_point(const chatter_workspace *ws, size_t drop_base, size_t samples,
                         size_t i, size_t count, double *outputs, uint8_t *status)
{
    int64_t tally[3] = {0, 0, 0};
    double impacts_sum = 0.0, impacts_max = 0.0, time_sum = 0.0;
    for (size_t d = drop_base; d < drop_base + samples; d++) {
        tally[ws->drop_outcome[d]]++;
        impacts_sum += ws->drop_impacts[d];
        impacts_max = fmax(impacts_max, ws->drop_impacts[d]);
        time_sum += ws->drop_time[d];
    }
    double total = (double)samples;
    outputs[CHATTER_P_ICC * count + i] = (double)tally[CHATTER_ICC] / total;
    outputs[CHATTER_P_CC * count + i] = (double)tally[CHATTER_CC] / total;
    outputs[CHATTER_P_PCC * count + i] = (double)tally[CHATTER_PCC] / total;
    outputs[CHATTER_IMPACTS_MEAN * count + i] = impacts_sum / total;
    outputs[CHATTER_IMPACTS_MAX * count + i] = impacts_max;
    outputs[CHATTER_TIME_MEAN * count + i] = time_sum / total;
    int regime = CHATTER_ICC;
    for (int k = 1; k < 3; k++)
        if (tally[k] > tally[regime])
            regime = k;
    outputs[CHATTER_REGIME * count + i] = regime;
    status[i] = isfinite(time_sum) ? IS_POINT_DONE : IS_POINT_FAILED_NONFINITE;
}

/* The cone certificate of a point (not part of the drops; NaN when not asked for). */
static void certify(chatter_workspace *ws, const double *point, size_t i, size_t count,
                    double *outputs)
{
    int max_rounds = (int)point[CHATTER_CONE_ROUNDS], rounds = 0;
    double answer = NAN;
    if (point[CHATTER_N] == 2.0) {
        answer = chatter_rod_condition(point[CHATTER_RHO], point[CHATTER_GAMMA]);
    } else if (max_rounds > 0) {
        chatter_geometry geometry;
        chatter_geometry_init(&geometry, (int)point[CHATTER_N]);
        answer = chatter_cone_search(&geometry, point[CHATTER_RHO], point[CHATTER_GAMMA],
                                     max_rounds, ws->cone, &rounds);
    }
    outputs[CHATTER_CONE * count + i] = answer;
    outputs[CHATTER_CONE_ROUNDS_USED * count + i] = isnan(answer) ? NAN : rounds;
}

is_code chatter_eval_batch(void *workspace, const double *points, size_t count,
                           double *outputs, uint8_t *status, is_error *err)
{
    chatter_workspace *ws = workspace;
    size_t drops = 0;
    for (size_t i = 0; i < count; i++)
        drops += (size_t)points[i * CHATTER_PARAM_COUNT + CHATTER_SAMPLES];
    is_code rc = reserve_drops(ws, drops, err);
    if (rc != IS_OK)
        return rc;

    size_t drop_base = 0;
    for (size_t first = 0; first < count;) {
        /* Lanes share the vertex table, so a group is a run of points with one n. */
        size_t end = first + 1;
        while (end < count && points[end * CHATTER_PARAM_COUNT + CHATTER_N] ==
                                  points[first * CHATTER_PARAM_COUNT + CHATTER_N])
            end++;
        run_group(ws, points, first, end - first, drop_base);
        for (size_t i = first; i < end; i++) {
            size_t samples = (size_t)points[i * CHATTER_PARAM_COUNT + CHATTER_SAMPLES];
            reduce_point(ws, drop_base, samples, i, count, outputs, status);
            certify(ws, points + i * CHATTER_PARAM_COUNT, i, count, outputs);
            drop_base += samples;
        }
        first = end;
    }
    return IS_OK;
}
