/* chatter_batch.c: the vectorised drop simulator behind the chatter model's eval_batch.
 *
 * Drops run in a pool of LANES lanes held as structure-of-arrays. A round takes up to
 * 32 impacts on every lane, in blocks of BLOCK lanes whose state stays in vector
 * registers for the whole round (PAIR blocks side by side), with masked selects
 * instead of branches. A lane that finishes (lift-off or impact budget) is refilled at
 * the next round boundary from the queue of the batch's drops, so slow and fast drops
 * share the pool. Where the point's certificate gives a region (chatter_region), a drop
 * also pauses every CHATTER_CERTIFY_EVERY impacts of its own (its lane's limit), and at
 * the round boundary its velocity is tested: in the region, it ends as proven CC; else it
 * goes on. So the stop is the same impact whatever the lane and round, and the inner loop
 * does not change.
 * Each drop's arithmetic is elementwise and rescaling is by powers of two, so a drop's
 * result is bitwise the same whatever lane, round or batch it runs in. Per-point
 * reductions run in drop order, for the same reason: finished drops wait in a window of
 * WINDOW slots until every earlier drop has been folded in, so memory does not grow with
 * `samples` (it did: 17 bytes a drop, 842 MB for samples = 5e7).
 * A round's impacts are computed in chatter_round.c; this file keeps the pool filled,
 * the checkpoints and the sums. */
#include "../shared/lanes.h"
#include "chatter_pool.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* What chatter_workspace_watch has not been given: a flag that is never set. */
static const volatile sig_atomic_t never_stop = 0;

is_code chatter_workspace_create(void **workspace, is_error *err)
{
    chatter_workspace *ws = aligned_alloc(64, (sizeof *ws + 63) / 64 * 64);
    if (!ws)
        return is_error_set(err, IS_NOMEM, "chatter: cannot allocate the workspace");
    memset(ws, 0, sizeof *ws);
    ws->stop = &never_stop;
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
    chatter_cone_work_free(ws->cone);
    free(ws);
}

void chatter_workspace_watch(void *workspace, const volatile sig_atomic_t *stop)
{
    chatter_workspace *ws = workspace;
    ws->stop = stop ? stop : &never_stop;
}

/* Rounds between rescalings. An impact shrinks |p| (in the kinetic-energy norm) by at
 * most a factor gamma, and q by about gamma^2, so a round of R impacts keeps both
 * far above the subnormal range (2^-1022) when gamma^(2R) > 2^-500. At most 32: the
 * rescaling, loads and lane bookkeeping of a round were 15 % of the instructions at the
 * bench point with 16; 32 ran 1.06 to 1.09 times as fast there (AVX2, paired runs) and
 * no slower on points of short ICC drops (1.01 to 1.05), as a round ends once all the
 * lanes of its blocks have stopped. */
static int round_length(double gamma_min)
{
    double per_impact = -2.0 * log2(gamma_min) + 1.0;
    int r = (int)(500.0 / per_impact);
    return r < 1 ? 1 : r > 32 ? 32 : r;
}

/* The lane's next pause: its budget, or with a region the next checkpoint of the drop
 * (a multiple of CHATTER_CERTIFY_EVERY impacts), where run_group tests its velocity. */
static void certify_pause(chatter_workspace *ws, int l)
{
    double limit = ws->budget[l];
    if (ws->regions[ws->region[l]].edges > 0) {
        double next = (floor(ws->impacts[l] / CHATTER_CERTIFY_EVERY) + 1.0) *
                      CHATTER_CERTIFY_EVERY;
        limit = fmin(limit, next);
    }
    ws->limit[l] = limit;
}

static void lane_start(chatter_workspace *ws, int l, const double *point, uint64_t sample,
                       size_t drop, int region)
{
    double q0[3], p0[3];
    chatter_drop_state(&ws->stream, sample, q0, p0);
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
    ws->budget[l] = point[CHATTER_MAX_IMPACTS];
    ws->region[l] = region;
    ws->region_refs[region]++;
    ws->certified[l] = 0;
    certify_pause(ws, l);
    ws->time[l] = 0.0;
    ws->c_rot[l] = (1.0 + gamma) / (1.0 + rho2);
    ws->c_h[l] = (1.0 + gamma) * rho2 / (1.0 + rho2);
    ws->active[l] = 1.0;
    ws->lifted[l] = 0.0;
    ws->pcc[l] = 0.0;
    ws->flat[l] = 0.0;
    ws->armed[l] = chatter_flat_armed((int)point[CHATTER_N], gamma);
    ws->gate.waiting[l] = 0;
    ws->rho2[l] = rho2;
    ws->gamma[l] = gamma;
    ws->energy0[l] = 0.5 * (rho2 * (p0[0] * p0[0] + p0[1] * p0[1]) + p0[2] * p0[2]);
    ws->drop[l] = drop;
    /* rescaled with the lanes already running, by rescale_block before the first impact */
}

/* The traced drop's lane as it stands (chatter_hook). */
static void lane_view(const chatter_workspace *ws, int l, chatter_lane *view)
{
    view->q[0] = ws->qx[l];
    view->q[1] = ws->qy[l];
    view->q[2] = ws->qz[l];
    view->p[0] = ws->px[l];
    view->p[1] = ws->py[l];
    view->p[2] = ws->pz[l];
    view->q_exp = ws->q_exp[l];
    view->p_exp = ws->p_exp[l];
    view->rho2 = ws->rho2[l];
    view->time = ws->time[l];
    view->impacts = ws->impacts[l];
    view->vertex = ws->last[l];
}

/* Puts the lane's finished drop into its slot. Also checks, once per drop, that the
 * kinetic energy 1/2 (rho^2 (p_1^2 + p_2^2) + p_3^2) did not rise: every impact loses
 * (1 - gamma^2) m_eff (f.p)^2 / 2 >= 0 and free flight keeps p, so only rounding (at most
 * a few ulps an impact, hence the allowance of 16 eps per impact) can raise it, while a
 * broken lane (a wrong coefficient, a stale or non-finite state, which the vertex search
 * would otherwise take for a lift-off) raises it by O(1) or makes it NaN. Checking every
 * impact would add work to the hot loop for an identity that tests/unit/test_chatter.c
 * verifies on thousands of random impacts and along whole drops. */
static void lane_finish(chatter_workspace *ws, int l)
{
    size_t slot = ws->drop[l] % WINDOW;
    double p[3] = {ws->px[l], ws->py[l], ws->pz[l]};
    chatter_outcome outcome = ws->pcc[l] != 0.0      ? CHATTER_PCC
                              : ws->flat[l] != 0.0   ? CHATTER_FLAT
                              : ws->lifted[l] != 0.0 ? CHATTER_ICC
                                                     : CHATTER_CC;
    int certified = ws->certified[l] && outcome == CHATTER_CC;
    double scaled = 0.5 * (ws->rho2[l] * (p[0] * p[0] + p[1] * p[1]) + p[2] * p[2]);
    double energy = ldexp(scaled, ldexp_exponent(2 * ws->p_exp[l]));
    double allowed = ws->energy0[l] * (1.0 + 16.0 * DBL_EPSILON * (ws->impacts[l] + 1.0));
    ws->slot_state[slot] = (uint8_t)(1 + outcome) | (certified ? SLOT_CERTIFIED : 0) |
                           (energy <= allowed ? 0 : SLOT_ENERGY_ROSE);
    ws->slot_impacts[slot] = ws->impacts[l];
    ws->slot_time[slot] = ws->time[l];
    ws->drop[l] = NO_DROP;
    ws->region_refs[ws->region[l]]--;
}

/* A lane that has stopped: at PCC's gate (the proof is made here, on the state before
 * the gate's impact), at a checkpoint or at its budget, or because the drop is over.
 * Returns 1 when the drop is over (lifted, PCC, flat, out of budget, or certified), 0 when
 * it goes on: from a gate that the proof did not pass (its state unchanged, so the drop is
 * the same bits as if it had not stopped), or from a checkpoint outside the region. */
static int lane_checkpoint(chatter_workspace *ws, int l, const chatter_geometry *geometry)
{
    pcc_gate *gate = &ws->gate;
    if (gate->waiting[l]) {
        gate->waiting[l] = 0;
        if (chatter_pcc_proven(geometry, ws->rho2[l], ws->gamma[l], gate->last[l],
                               gate->next[l], gate->q[l], gate->p[l])) {
            ws->pcc[l] = 1.0;
            return 1;
        }
    }
    if (ws->lifted[l] != 0.0 || ws->flat[l] != 0.0)
        return 1;
    if (ws->impacts[l] >= ws->limit[l]) { /* a checkpoint, or the budget */
        const chatter_region *region = &ws->regions[ws->region[l]];
        double p[3] = {ws->px[l], ws->py[l], ws->pz[l]};
        if (region->edges > 0 && chatter_region_contains(geometry, region, (int)ws->last[l], p)) {
            ws->certified[l] = 1;
            return 1;
        }
        if (ws->impacts[l] >= ws->budget[l])
            return 1;
    }
    ws->active[l] = 1.0;
    certify_pause(ws, l);
    return 0;
}

/* The sums of the point whose drops are being folded in, in drop order. */
typedef struct point_sums {
    size_t point;      /* its index in the batch */
    uint64_t folded;   /* drops folded in so far */
    int64_t tally[CHATTER_OUTCOMES], certified;
    double impacts_sum, impacts_max, time_sum;
    int energy_ok;
} point_sums;

static void sums_start(point_sums *sums, size_t point)
{
    memset(sums, 0, sizeof *sums);
    sums->point = point;
    sums->energy_ok = 1;
}

/* The point's certificate, written before its first drop starts, and its region. */
static void certify(chatter_workspace *ws, const double *point, size_t i, size_t count,
                    double *outputs, chatter_region *region)
{
    int rounds = 0;
    double answer = chatter_point_certificate(point, ws->cone, &rounds, region);
    outputs[CHATTER_CONE * count + i] = answer;
    outputs[CHATTER_CONE_ROUNDS_USED * count + i] = isnan(answer) ? NAN : rounds;
}

/* A free entry of regions[]: one always is (see REGIONS). */
static int region_take(chatter_workspace *ws)
{
    for (int e = 0; e < REGIONS; e++)
        if (ws->region_refs[e] == 0) {
            ws->region_refs[e] = 1;
            return e;
        }
    return -1; /* not reached */
}

/* A point whose drops are all folded in: its outputs and its checks (its certificate was
 * written when its first drop started). */
static void finish_point(const double *points, const point_sums *sums, size_t count,
                         double *outputs, uint8_t *status)
{
    size_t i = sums->point;
    const double *point = points + i * CHATTER_PARAM_COUNT;
    double total = (double)sums->folded;
    for (int k = 0; k < CHATTER_OUTCOMES; k++)
        outputs[chatter_fraction_outputs[k][0] * count + i] = (double)sums->tally[k] / total;
    outputs[CHATTER_P_CERTIFIED * count + i] = (double)sums->certified / total;
    outputs[CHATTER_P_UNDECIDED * count + i] =
        (double)(sums->tally[CHATTER_CC] - sums->certified) / total;
    outputs[CHATTER_IMPACTS_MEAN * count + i] = sums->impacts_sum / total;
    outputs[CHATTER_IMPACTS_MAX * count + i] = sums->impacts_max;
    outputs[CHATTER_TIME_MEAN * count + i] = sums->time_sum / total;
    int regime = CHATTER_ICC;
    for (int k = 1; k < CHATTER_OUTCOMES; k++)
        if (sums->tally[k] > sums->tally[regime])
            regime = k;
    outputs[CHATTER_REGIME * count + i] = regime;
    /* Wilson rather than p +- z sqrt(p (1 - p) / samples): these maps are mostly 0 or 1,
     * where the standard error is 0 and would claim certainty from a handful of drops;
     * Wilson's interval stays inside [0, 1] and still says how far 0 of 100 is from 0. */
    for (int k = 0; k < CHATTER_OUTCOMES; k++) {
        double lo, hi;
        chatter_wilson(sums->tally[k], (int64_t)sums->folded, &lo, &hi);
        outputs[chatter_fraction_outputs[k][1] * count + i] = lo;
        outputs[chatter_fraction_outputs[k][2] * count + i] = hi;
    }
    if (point[CHATTER_N] == 2.0) { /* the rod cannot be PCC: 0 by definition, not by chance */
        outputs[CHATTER_P_PCC_LO * count + i] = 0.0;
        outputs[CHATTER_P_PCC_HI * count + i] = 0.0;
    }
    if (!isfinite(sums->time_sum))
        status[i] = IS_POINT_FAILED_NONFINITE;
    else if (chatter_check_result(point, outputs + i, count, sums->energy_ok))
        status[i] = IS_POINT_FAILED_CHECK;
    else
        status[i] = IS_POINT_DONE;
}

/* Folds finished drops into their points in drop order, as far as they are contiguous;
 * finishes each point whose last drop this was. Returns the first drop not folded. */
static size_t fold(chatter_workspace *ws, const double *points, size_t folded, size_t started,
                   point_sums *sums, size_t count, double *outputs, uint8_t *status)
{
    while (folded < started && ws->slot_state[folded % WINDOW] != SLOT_EMPTY) {
        size_t slot = folded % WINDOW;
        uint8_t state = ws->slot_state[slot];
        ws->slot_state[slot] = SLOT_EMPTY;
        sums->tally[(state & SLOT_OUTCOME) - 1]++;
        sums->certified += (state & SLOT_CERTIFIED) != 0;
        sums->impacts_sum += ws->slot_impacts[slot];
        sums->impacts_max = fmax(sums->impacts_max, ws->slot_impacts[slot]);
        sums->time_sum += ws->slot_time[slot];
        sums->energy_ok &= !(state & SLOT_ENERGY_ROSE);
        folded++;
        if (++sums->folded ==
            (uint64_t)points[sums->point * CHATTER_PARAM_COUNT + CHATTER_SAMPLES]) {
            finish_point(points, sums, count, outputs, status);
            sums_start(sums, sums->point + 1);
        }
    }
    return folded;
}

/* Lanes paused at the end of a round: a drop that ended (or whose checkpoint proved it
 * CC) is finished into its slot, and a traced one's decision passed on. */
static void finish_lanes(chatter_workspace *ws, const chatter_geometry *geometry,
                         chatter_hook *hook)
{
    for (int l = 0; l < LANES; l++)
        if (ws->drop[l] != NO_DROP && ws->active[l] == 0.0 && lane_checkpoint(ws, l, geometry)) {
            size_t drop = ws->drop[l];
            lane_finish(ws, l);
            if (hook && l == hook->lane) { /* the traced drop: its decision, as folded */
                chatter_lane view;
                lane_view(ws, l, &view);
                chatter_hook_finish(hook, &view, ws->slot_state[drop % WINDOW]);
            }
        }
}

/* A round while a drop is traced: one impact, passed on to the hook (rounds change no
 * bit of a drop, see the top of this file). */
static void step_traced(chatter_workspace *ws, const chatter_geometry *geometry,
                        chatter_hook *hook)
{
    int l = hook->lane;
    chatter_run_steps(ws, geometry, 1);
    if (ws->impacts[l] != hook->impacts) {
        chatter_lane view;
        lane_view(ws, l, &view);
        chatter_hook_impact(hook, &view);
    }
}

/* Simulates every drop of points[first .. first + count), which share one n, and
 * finishes each point as its last drop is folded in. Returns 0, or 1 when the stop flag
 * ended it early: then the points not finished are left as they were (pending). */
static int run_group(chatter_workspace *ws, const double *points, size_t first, size_t count,
                     size_t batch_count, double *outputs, uint8_t *status, chatter_hook *hook)
{
    chatter_geometry geometry;
    chatter_geometry_init(&geometry, (int)points[first * CHATTER_PARAM_COUNT + CHATTER_N]);
    double gamma_min = 1.0;
    for (size_t i = first; i < first + count; i++)
        gamma_min = fmin(gamma_min, points[i * CHATTER_PARAM_COUNT + CHATTER_GAMMA]);
    const int steps = round_length(gamma_min);

    size_t next_point = first;
    uint64_t next_sample = 0;
    size_t started = 0, folded = 0; /* drops of the group: started, folded into a point */
    point_sums sums;
    sums_start(&sums, first);
    for (int l = 0; l < LANES; l++) {
        ws->drop[l] = NO_DROP;
        ws->active[l] = 0.0;
    }
    for (int e = 0; e < REGIONS; e++)
        ws->region_refs[e] = 0;
    int region = -1; /* the entry of the point whose drops are being started */
    for (;;) {
        /* One load a round (at most LANES x 32 impacts): nothing against the round. */
        if (*ws->stop || (hook && hook->failure != IS_OK)) {
            for (size_t d = folded; d < started; d++) /* leave the window empty */
                ws->slot_state[d % WINDOW] = SLOT_EMPTY;
            return 1;
        }
        finish_lanes(ws, &geometry, hook);
        folded = fold(ws, points, folded, started, &sums, batch_count, outputs, status);
        int busy = 0;
        for (int l = 0; l < LANES; l++) {
            if (ws->drop[l] == NO_DROP && next_point < first + count &&
                started < folded + WINDOW) {
                const double *point = points + next_point * CHATTER_PARAM_COUNT;
                if (next_sample == 0) { /* the point's certificate, before its first drop */
                    if (region >= 0)
                        ws->region_refs[region]--;
                    region = region_take(ws);
                    certify(ws, point, next_point, batch_count, outputs, &ws->regions[region]);
                    chatter_drop_stream_of(point, &ws->stream);
                }
                lane_start(ws, l, point, next_sample, started++, region);
                if (hook && next_point == hook->point && next_sample == hook->drop) {
                    chatter_lane view;
                    lane_view(ws, l, &view);
                    chatter_hook_start(hook, l, &view);
                }
                if (++next_sample == (uint64_t)point[CHATTER_SAMPLES]) {
                    next_sample = 0;
                    next_point++;
                }
            }
            busy |= ws->drop[l] != NO_DROP;
        }
        if (!busy)
            return 0;
        if (!hook || hook->lane < 0)
            chatter_run_steps(ws, &geometry, steps);
        else
            step_traced(ws, &geometry, hook);
    }
}

is_code chatter_eval_batch(void *workspace, const double *points, size_t count,
                           double *outputs, uint8_t *status, is_error *err)
{
    (void)err; /* nothing is allocated per batch any more */
    chatter_evaluate(workspace, points, count, outputs, status, NULL);
    return IS_OK;
}

void chatter_evaluate(void *workspace, const double *points, size_t count, double *outputs,
                      uint8_t *status, chatter_hook *hook)
{
    chatter_workspace *ws = workspace;
    for (size_t i = 0; i < count; i++)
        status[i] = IS_POINT_PENDING;
    for (size_t first = 0; first < count;) {
        /* Lanes share the vertex table, so a group is a run of points with one n. */
        size_t end = first + 1;
        while (end < count && points[end * CHATTER_PARAM_COUNT + CHATTER_N] ==
                                  points[first * CHATTER_PARAM_COUNT + CHATTER_N])
            end++;
        if (run_group(ws, points, first, end - first, count, outputs, status, hook))
            break;
        first = end;
    }
    /* Stopped: what is not finished reads as not computed, whatever was half written. */
    for (size_t i = 0; i < count; i++)
        if (status[i] == IS_POINT_PENDING)
            for (int o = 0; o < CHATTER_OUTPUT_COUNT; o++)
                outputs[o * count + i] = NAN;
}
