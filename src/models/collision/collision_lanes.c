/* collision_lanes.c: the collision model's DOPRI5 integrator run across lanes of points.
 *
 * A batch's dopri5 points are grouped by (law, kind of p, kind of n), so that one
 * right-hand side without branches serves a whole group, and each group runs in blocks
 * of LANES lanes held as vectors (structure of arrays; BLOCKS blocks step side by side):
 * every lane is one point with its own step size, and the steps of all lanes are taken
 * together, with accept/reject, the step size control and the detection of root
 * crossings as masked lane updates. What is rare runs in scalar code for the one lane it
 * concerns (collision_dopri5.c): locating an event on the step's interpolant and its
 * Newton correction, retrying a rejected step up to a kink, failing, finishing; the exact
 * steps to an event are lane steps like the others (the lane's stage says what its step
 * is). A lane whose point is over is refilled from the group's queue.
 *
 * Cost (callgrind, the bench point bwshc p = 1.5, n = 1 at rtol 1e-8): 56,000
 * instructions a CoR, 60% in the lanes (about 25 block steps a CoR: 75 accepted steps,
 * 9 rejected, 12 exact steps to 6 events, over 4 lanes) and 40% in the scalar event code;
 * with general exponents (p = 1.7, n = 1.3) 146,000, two thirds in the power.
 *
 * Determinism: every lane operation is elementwise IEEE arithmetic (contraction is off),
 * there is no reduction across lanes, and the one power without a fast path is the plain
 * C routine below (used by the scalar code too), so a point's result is the same bits
 * whatever its lane, block, batch and build. A trace runs the same code with one lane. */
#include "collision_dopri5.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../shared/lanes_math.h"

/* Lanes per block: a vector register's doubles (lanes.h). The width changes no result:
 * every lane computes its own point alone. */
#define LANES LV_WIDTH

typedef lv_double vdouble;
typedef lv_int vint; /* masks here are lanes of 0 / -1, as C's vector comparisons give */

static inline vdouble vsel(vint m, vdouble a, vdouble b)
{
    return lv_sel(lv_mask_from_int(m), a, b);
}

static inline int vany(vint m)
{
    return lv_any(lv_mask_from_int(m));
}

static inline int vall(vint m)
{
    return lv_all(lv_mask_from_int(m));
}

static inline vdouble vsplat(double x)
{
    return lv_splat(x);
}

static inline vdouble vpow_general(vdouble x, vdouble e)
{
    return lv_pow(x, e);
}

double collision_power_general(double x, double e)
{
    return lv_pow(lv_splat(x), lv_splat(e))[0];
}

/* collision_power_eval in lanes: the same kinds, the same bits. */
static inline vdouble vpower(int kind, vdouble x, vdouble e)
{
    switch (kind) {
    case 1:
        return x;
    case 2:
        return x * x;
    case 3:
        return x * x * x;
    case 4:
        return x * lv_sqrt(x);
    case 5:
        return x * x * lv_sqrt(x);
    default:
        return vpow_general(x, e);
    }
}

/* |x|^p and |x|^n (kinds p_kind, n_kind), one logarithm between them where both need
 * the general power. */
static inline void vpower_pair(int p_kind, int n_kind, vdouble x, vdouble p, vdouble n, vdouble *xp,
                               vdouble *xn)
{
    if (p_kind == 0 && n_kind == 0) {
        vdouble lhi, llo;
        lv_log_for_pow(x, &lhi, &llo);
        *xp = lv_pow_from_log(x, lhi, llo, p);
        *xn = lv_pow_from_log(x, lhi, llo, n);
        return;
    }
    *xp = vpower(p_kind, x, p);
    *xn = vpower(n_kind, x, n);
}

/* --- the laws in lanes (collision_law.c's right-hand sides and roots, the same bits) --- */

/* What a group's points share: the law, the kinds of p and n (collision_power). */
typedef struct lane_kind {
    collision_law law;
    int dimension, p_kind, n_kind;
    int rough; /* the Maxwell type with p != 1: steps limited after rough points */
} lane_kind;

/* Per-lane parameters of the laws and of the step control. */
typedef struct lane_params {
    vdouble pi1, pi2, pi3, p, n, alpha, alpha_c, A, rest_velocity;
    vdouble rtol, atol, t_max, h_start, max_steps;
} lane_params;

static inline vdouble vsigned(vdouble u, vdouble magnitude)
{
    return vsel(u < 0.0, -magnitude, magnitude);
}

/* Z' = A (U - pi2 |Z|^(n-1) Z |U| - pi3 |Z|^n U), with zn = |Z|^n */
static inline vdouble vbouc_wen(const lane_params *q, vdouble z, vdouble zn, vdouble u)
{
    vdouble zn_signed = vsigned(z, zn);
    return q->A * (u - q->pi2 * zn_signed * lv_abs(u) - q->pi3 * zn * u);
}

/* |u|^(p-1) as |u|^p / |u| (0 at u = 0 for p > 1, 1 for p = 1), from up = |u|^p */
static inline vdouble vpower_less_one(const lane_kind *k, vdouble au, vdouble up)
{
    return k->p_kind == 1 ? vsplat(1.0) : vsel(au > 0.0, up / au, vsplat(0.0));
}

/* |U|^p and |Z|^p (U = X, or Y for the Maxwell type) at a state, as the right-hand side
 * computed them, for the force rate at the same state (the same bits, without computing
 * them again). */
typedef struct vpowers {
    vdouble up, zp;
} vpowers;

static void vrhs_maxwell(const lane_kind *k, const lane_params *q, const vdouble *y, vdouble *f,
                         vpowers *pw)
{
    vdouble w = y[3], ay = lv_abs(y[1]), az = lv_abs(y[2]), zp, zn;
    vdouble yp = vpower(k->p_kind, ay, q->p);
    if (k->law == LAW_BWM)
        vpower_pair(k->p_kind, k->n_kind, az, q->p, q->n, &zp, &zn);
    else
        zp = zn = vpower(k->p_kind, az, q->p);
    vdouble r_rate = q->pi1 * (q->alpha * vsigned(y[1], yp) + q->alpha_c * vsigned(y[2], zp));
    vdouble z_rate = k->law == LAW_BWM ? vbouc_wen(q, y[2], zn, w) : vsplat(0.0);
    vdouble y_p1 = vpower_less_one(k, ay, yp), z_p1 = vpower_less_one(k, az, zp);
    f[0] = r_rate;
    f[1] = w;
    f[2] = z_rate;
    f[3] = -r_rate / q->pi1 - q->alpha * q->p * q->pi1 * y_p1 * w -
           q->alpha_c * q->p * q->pi1 * z_p1 * z_rate;
    pw->up = yp;
    pw->zp = zp;
}

static void vrhs(const lane_kind *k, const lane_params *q, const vdouble *y, vdouble *f,
                 vpowers *pw)
{
    if (k->dimension == 4) {
        vrhs_maxwell(k, q, y, f, pw);
        return;
    }
    vdouble x = y[0], v = y[1], z = y[2];
    f[0] = v;
    f[2] = vsplat(0.0);
    pw->up = pw->zp = vsplat(0.0); /* hooke, kelvin-voigt: not needed */
    switch (k->law) {
    case LAW_HOOKE:
        f[1] = -x;
        break;
    case LAW_KELVIN_VOIGT:
        f[1] = -x - q->pi1 * v;
        break;
    case LAW_HERTZ:
        pw->up = vpower(k->p_kind, lv_abs(x), q->p);
        f[1] = -vsigned(x, pw->up);
        break;
    case LAW_HUNT_CROSSLEY: {
        vdouble xp = vpower(k->p_kind, lv_abs(x), q->p);
        f[1] = -vsigned(x, xp) - q->pi1 * xp * v;
        pw->up = xp;
        break;
    }
    default: { /* LAW_BWSHC */
        vdouble xp = vpower(k->p_kind, lv_abs(x), q->p), zp, zn;
        vpower_pair(k->p_kind, k->n_kind, lv_abs(z), q->p, q->n, &zp, &zn);
        f[1] = -q->alpha * vsigned(x, xp) - q->alpha_c * vsigned(z, zp) - q->pi1 * xp * v;
        f[2] = vbouc_wen(q, z, zn, v);
        pw->up = xp;
        pw->zp = zp;
        break;
    }
    }
}

/* The force F and its rate (the force-rate root) at (y, f = f(y)), as collision_events
 * (pw: the powers at y from f's right-hand side). */
static void vforce(const lane_kind *k, const lane_params *q, const vdouble *y, const vdouble *f,
                   const vpowers *pw, vdouble *force, vdouble *rate)
{
    if (k->dimension == 4) {
        vdouble ay = lv_abs(y[1]), az = lv_abs(y[2]);
        vdouble y_p1 = vpower_less_one(k, ay, pw->up);
        vdouble z_p1 = vpower_less_one(k, az, pw->zp);
        *force = -f[0] / q->pi1;
        *rate = -q->p * (q->alpha * y_p1 * f[1] + q->alpha_c * z_p1 * f[2]);
        return;
    }
    vdouble x = y[0], v = y[1], z = y[2], ax = lv_abs(x), az = lv_abs(z);
    *force = f[1];
    switch (k->law) {
    case LAW_HOOKE: /* |X|^1 */
        *rate = q->pi1 * x * ax - q->p * v;
        break;
    case LAW_HERTZ:
    case LAW_HUNT_CROSSLEY:
        *rate = q->pi1 * x * pw->up - q->p * v;
        break;
    case LAW_KELVIN_VOIGT:
        *rate = -v - q->pi1 * *force;
        break;
    default: { /* LAW_BWSHC */
        vdouble xp = pw->up;
        vdouble x_p1 = vpower_less_one(k, ax, xp);
        vdouble z_p1 = vpower_less_one(k, az, pw->zp);
        vdouble sx = vsel(x < 0.0, vsplat(-1.0), vsel(x > 0.0, vsplat(1.0), vsplat(0.0)));
        *rate = -q->alpha * q->p * x_p1 * v - q->alpha_c * q->p * z_p1 * f[2] -
                q->pi1 * (q->p * x_p1 * sx * v * v + xp * *force);
        break;
    }
    }
}

/* The roots at (y, f), with the force root's sign only (collision_events, sign_only). */
static void vroots(const lane_kind *k, const lane_params *q, const vdouble *y, const vdouble *f,
                   const vpowers *pw, vdouble *g)
{
    vdouble force, rate;
    vforce(k, q, y, f, pw, &force, &rate);
    int maxwell = k->dimension == 4;
    int follows_x = k->law == LAW_HOOKE || k->law == LAW_HERTZ || k->law == LAW_HUNT_CROSSLEY;
    vdouble one = vsplat(1.0), velocity = maxwell ? f[0] + y[3] : y[1];
    g[COLLISION_ROOT_FORCE] = follows_x ? -y[0] : vsigned(force, lv_abs(force));
    g[COLLISION_ROOT_VELOCITY] = velocity;
    g[COLLISION_ROOT_FORCE_RATE] = rate;
    g[COLLISION_ROOT_KINK_W] = k->law == LAW_BWM ? y[3] : one;
    g[COLLISION_ROOT_KINK_U] = k->p_kind != 1 ? (maxwell ? y[1] : y[0]) : one;
    g[COLLISION_ROOT_KINK_Z] = k->law == LAW_BWM || k->law == LAW_BWSHC ? y[2] : one;
    int conservative = k->law == LAW_HOOKE || k->law == LAW_HERTZ;
    g[COLLISION_ROOT_REST] =
        conservative ? one : lv_max_nanb(lv_abs(velocity), lv_abs(force)) - q->rest_velocity;
}

/* --- a block of lanes ----------------------------------------------------------------- */

typedef struct block {
    vdouble y[DOPRI5_MAX_DIM], f[DOPRI5_MAX_DIM];
    vdouble t, h, t_rough, steps;
    vdouble sign[COLLISION_EVENTS];
    vint rejected, active;
    vint exact; /* the lane's step is an exact step to an event (dopri5_stage) */
    int hooked; /* a lane's point is traced (then it is the only point) */
    lane_params q;
    dopri5_point point[LANES]; /* the scalar side of each lane's point */
    size_t index[LANES];       /* the point's place in the batch */
} block;

/* Blocks stepped side by side: the stages of one step form a single chain of dependent
 * operations (a stage needs the last one's right-hand side, the next step needs this
 * one's error), so one block leaves the core waiting on latencies; the stages of
 * independent blocks, interleaved, fill those waits. No block's numbers depend on
 * another's, so nothing changes in the results. */
#define BLOCKS 2

/* One block's trial step: y1, f1, the powers at y1 and the error norm. */
typedef struct trial {
    vdouble y1[DOPRI5_MAX_DIM], f1[DOPRI5_MAX_DIM], err;
    vpowers pw;
} trial;

/* The error norm of a step (the RMS of the error scaled by atol + rtol |y|, as CVODE
 * weighs it). */
static vdouble verror(const lane_kind *k, const block *b, const vdouble *k3, const vdouble *k4,
                      const vdouble *k5, const vdouble *k6, const trial *tr)
{
    const int d = k->dimension;
    const lane_params *q = &b->q;
    const vdouble h = b->h, *y = b->y, *f0 = b->f, *f1 = tr->f1, *y1 = tr->y1;
    vdouble sum = vsplat(0.0), atol = ABSOLUTE_SAFETY * q->atol;
    for (int i = 0; i < d; i++) {
        vdouble error =
            h * (e1 * f0[i] + e3 * k3[i] + e4 * k4[i] + e5 * k5[i] + e6 * k6[i] + e7 * f1[i]);
        vdouble scale = TOLERANCE_SAFETY * (atol + q->rtol * lv_max_nanb(lv_abs(y[i]), lv_abs(y1[i])));
        vdouble e = error / scale;
        sum += e * e;
    }
    return lv_sqrt(sum / (double)d);
}

/* One trial step of each of the nb blocks from its (y, f) by its h, stage by stage
 * across the blocks. */
static void vstep(const lane_kind *k, block *const *blocks, int nb, trial *tr)
{
    const int d = k->dimension;
    vdouble k2[BLOCKS][DOPRI5_MAX_DIM], k3[BLOCKS][DOPRI5_MAX_DIM], k4[BLOCKS][DOPRI5_MAX_DIM],
        k5[BLOCKS][DOPRI5_MAX_DIM], k6[BLOCKS][DOPRI5_MAX_DIM], s[DOPRI5_MAX_DIM];
    s[DOPRI5_MAX_DIM - 1] = vsplat(0.0); /* unused when d = 3 */
    for (int j = 0; j < nb; j++) {
        const block *b = blocks[j];
        for (int i = 0; i < d; i++)
            s[i] = b->y[i] + b->h * a21 * b->f[i];
        vrhs(k, &b->q, s, k2[j], &tr[j].pw);
    }
    for (int j = 0; j < nb; j++) {
        const block *b = blocks[j];
        for (int i = 0; i < d; i++)
            s[i] = b->y[i] + b->h * (a31 * b->f[i] + a32 * k2[j][i]);
        vrhs(k, &b->q, s, k3[j], &tr[j].pw);
    }
    for (int j = 0; j < nb; j++) {
        const block *b = blocks[j];
        for (int i = 0; i < d; i++)
            s[i] = b->y[i] + b->h * (a41 * b->f[i] + a42 * k2[j][i] + a43 * k3[j][i]);
        vrhs(k, &b->q, s, k4[j], &tr[j].pw);
    }
    for (int j = 0; j < nb; j++) {
        const block *b = blocks[j];
        for (int i = 0; i < d; i++)
            s[i] =
                b->y[i] + b->h * (a51 * b->f[i] + a52 * k2[j][i] + a53 * k3[j][i] + a54 * k4[j][i]);
        vrhs(k, &b->q, s, k5[j], &tr[j].pw);
    }
    for (int j = 0; j < nb; j++) {
        const block *b = blocks[j];
        for (int i = 0; i < d; i++)
            s[i] = b->y[i] + b->h * (a61 * b->f[i] + a62 * k2[j][i] + a63 * k3[j][i] +
                                     a64 * k4[j][i] + a65 * k5[j][i]);
        vrhs(k, &b->q, s, k6[j], &tr[j].pw);
    }
    for (int j = 0; j < nb; j++) {
        const block *b = blocks[j];
        vdouble *y1 = tr[j].y1;
        for (int i = 0; i < d; i++)
            y1[i] = b->y[i] + b->h * (b1 * b->f[i] + b3 * k3[j][i] + b4 * k4[j][i] + b5 * k5[j][i] +
                                      b6 * k6[j][i]);
        vrhs(k, &b->q, y1, tr[j].f1, &tr[j].pw); /* last: the powers at y1 stay */
    }
    for (int j = 0; j < nb; j++)
        tr[j].err = verror(k, blocks[j], k3[j], k4[j], k5[j], k6[j], &tr[j]);
}

/* Lane l's state into its scalar point, and back. */
static void lane_store(block *b, int l, int d)
{
    dopri5_point *dp = &b->point[l];
    for (int i = 0; i < d; i++) {
        dp->y[i] = b->y[i][l];
        dp->f[i] = b->f[i][l];
    }
    for (int e = 0; e < COLLISION_EVENTS; e++)
        dp->sign[e] = b->sign[e][l];
    dp->t = b->t[l];
    dp->h = b->h[l];
    dp->t_rough = b->t_rough[l];
    dp->rejected = b->rejected[l] != 0;
    dp->result->steps = (int64_t)b->steps[l];
}

static void lane_load(block *b, int l, int d)
{
    const dopri5_point *dp = &b->point[l];
    for (int i = 0; i < d; i++) {
        b->y[i][l] = dp->y[i];
        b->f[i][l] = dp->f[i];
    }
    for (int e = 0; e < COLLISION_EVENTS; e++)
        b->sign[e][l] = dp->sign[e];
    b->t[l] = dp->t;
    b->h[l] = dp->h;
    b->t_rough[l] = dp->t_rough;
    b->rejected[l] = dp->rejected ? -1 : 0;
    b->exact[l] = dp->stage != DOPRI5_STEPPING ? -1 : 0;
    b->steps[l] = (double)dp->result->steps;
}

/* Starts problem pb (batch index i) in lane l. */
static void lane_start(block *b, int l, const collision_problem *pb, collision_result *r, size_t i)
{
    dopri5_point *dp = &b->point[l];
    lane_params *q = &b->q;
    dopri5_point_start(dp, pb, r);
    b->index[l] = i;
    q->pi1[l] = pb->pi1;
    q->pi2[l] = pb->pi2;
    q->pi3[l] = pb->pi3;
    q->p[l] = pb->p;
    q->n[l] = pb->n;
    q->alpha[l] = pb->alpha;
    q->alpha_c[l] = pb->alpha_c;
    q->A[l] = pb->A;
    q->rest_velocity[l] = pb->rest_velocity;
    q->rtol[l] = pb->rtol;
    q->atol[l] = pb->atol;
    q->t_max[l] = pb->t_max;
    q->h_start[l] = dp->h_start;
    q->max_steps[l] = (double)pb->max_steps;
    r->steps = 0;
    b->hooked |= pb->hook != NULL;
    lane_load(b, l, pb->dimension);
    b->active[l] = -1;
}

/* Lane `to` gets lane `from`'s vector state and parameters (not its scalar point). */
static void lane_copy(block *b, int from, int to)
{
    lane_params *q = &b->q;
    vdouble *params[] = {&q->pi1,     &q->pi2,       &q->pi3,
                         &q->p,       &q->n,         &q->alpha,
                         &q->alpha_c, &q->A,         &q->rest_velocity,
                         &q->rtol,    &q->atol,      &q->t_max,
                         &q->h_start, &q->max_steps, &b->t,
                         &b->h,       &b->t_rough,   &b->steps};
    for (size_t i = 0; i < sizeof params / sizeof *params; i++)
        (*params[i])[to] = (*params[i])[from];
    for (int i = 0; i < DOPRI5_MAX_DIM; i++) {
        b->y[i][to] = b->y[i][from];
        b->f[i][to] = b->f[i][from];
    }
    for (int e = 0; e < COLLISION_EVENTS; e++)
        b->sign[e][to] = b->sign[e][from];
    b->rejected[to] = b->rejected[from];
    b->exact[to] = b->exact[from];
    b->active[to] = 0;
}

/* Lane l's point is over with this status. */
static void lane_finish(block *b, int l, uint8_t *status, int point_status)
{
    b->point[l].result->steps = (int64_t)b->steps[l];
    status[b->index[l]] = (uint8_t)point_status;
    b->active[l] = 0;
}

/* The lanes whose step crossed a root (the direction table decides which count). */
static vint crossings(const block *b, const vdouble *g)
{
    vint hit = (vint){0};
    for (int e = 0; e < COLLISION_EVENTS; e++) {
        vint up = (b->sign[e] < 0.0) & (g[e] >= 0.0), down = (b->sign[e] > 0.0) & (g[e] <= 0.0);
        int direction = collision_root_direction[e];
        if (direction >= 0)
            hit |= up;
        if (direction <= 0)
            hit |= down;
    }
    return hit;
}

/* Lane l of a step's end (y1, f1) and its roots g, as the scalar code takes them. */
static void lane_point(const lane_kind *k, const vdouble *y1, const vdouble *f1, const vdouble *g,
                       int l, double *y1l, double *f1l, double *gl)
{
    for (int i = 0; i < k->dimension; i++) {
        y1l[i] = y1[i][l];
        f1l[i] = f1[i][l];
    }
    for (int e = 0; e < COLLISION_EVENTS; e++)
        gl[e] = g[e][l];
}

/* Rejected lanes: shrink (never by more than 5) and retry; the first rejection of a step
 * across a kink of the right-hand side (a kink root changed sign: V for the Kelvin-Voigt
 * type, W, U, Z) asks the scalar code where the kink is. */
static void reject(const lane_kind *k, block *b, vint rejected, vdouble factor, const vdouble *y1,
                   const vdouble *f1, const vdouble *g)
{
    vdouble shrunk = b->h * lv_max_nanb(vsplat(0.2), factor);
    static const int kinks[] = {COLLISION_ROOT_VELOCITY, COLLISION_ROOT_KINK_W,
                                COLLISION_ROOT_KINK_U, COLLISION_ROOT_KINK_Z};
    vint kink = (vint){0};
    for (int j = 0; j < 4; j++) {
        int e = kinks[j];
        if (e == COLLISION_ROOT_VELOCITY && k->dimension == 4)
            continue; /* the Maxwell type's input is W, not V */
        /* as dopri5_point_retry decides: a known side, and g on the other (not 0) */
        kink |= ((b->sign[e] < 0.0) & (g[e] > 0.0)) | ((b->sign[e] > 0.0) & (g[e] < 0.0));
    }
    vint first = rejected & ~b->rejected & kink;
    for (int l = 0; l < LANES; l++)
        if (first[l]) {
            double y1l[DOPRI5_MAX_DIM], f1l[DOPRI5_MAX_DIM], gl[COLLISION_EVENTS];
            lane_point(k, y1, f1, g, l, y1l, f1l, gl);
            lane_store(b, l, k->dimension);
            shrunk[l] = dopri5_point_retry(&b->point[l], y1l, f1l, gl, b->h[l], shrunk[l]);
        }
    b->h = vsel(rejected, shrunk, b->h);
    b->rejected |= rejected;
}

/* Accepted lanes: those that crossed a root go to the scalar code, the others move on. */
static void accept(const lane_kind *k, block *b, vint accepted, vdouble factor, const vdouble *y1,
                   const vdouble *f1, const vdouble *g, uint8_t *status)
{
    const int d = k->dimension;
    /* no growth after a rejection */
    vdouble growth = vsel(b->rejected, vsplat(1.0), vsplat(5.0));
    vdouble h_next = b->h * lv_min_nanb(growth, lv_max_nanb(vsplat(0.2), factor));
    b->rejected &= ~accepted;
    b->steps = vsel(accepted, b->steps + 1.0, b->steps);
    vint event = accepted & crossings(b, g), plain = accepted & ~event;
    for (int e = 0; e < COLLISION_EVENTS; e++) {
        vdouble side = vsel(g[e] < 0.0, vsplat(-1.0), vsplat(1.0));
        b->sign[e] = vsel(plain & (g[e] != 0.0), side, b->sign[e]);
    }
    b->t = vsel(plain, b->t + b->h, b->t);
    for (int i = 0; i < d; i++) {
        b->y[i] = vsel(plain, y1[i], b->y[i]);
        b->f[i] = vsel(plain, f1[i], b->f[i]);
    }
    vdouble h = b->h;
    b->h = vsel(plain, h_next, b->h);
    if (!b->hooked && !vany(event))
        return; /* most steps: no lane for the scalar code */
    for (int l = 0; l < LANES; l++) {
        dopri5_point *dp = &b->point[l];
        if (b->hooked && plain[l] && dp->problem.hook) {
            lane_store(b, l, d);
            collision_hook_sample(dp->problem.hook, dp->t, dp->y);
        }
        if (!event[l])
            continue;
        double y1l[DOPRI5_MAX_DIM], f1l[DOPRI5_MAX_DIM], gl[COLLISION_EVENTS];
        lane_point(k, y1, f1, g, l, y1l, f1l, gl);
        lane_store(b, l, d);
        if (dopri5_point_events(dp, y1l, f1l, gl, h[l], h_next[l]))
            lane_finish(b, l, status, IS_POINT_DONE);
        else
            lane_load(b, l, d);
    }
}

/* Lanes in `failed` fail for `why` (a solver_failure). */
static void fail(const lane_kind *k, block *b, vint failed, solver_failure why, uint8_t *status)
{
    if (!vany(failed))
        return;
    for (int l = 0; l < LANES; l++)
        if (failed[l]) {
            lane_store(b, l, k->dimension);
            lane_finish(b, l, status, dopri5_point_fail(&b->point[l], why));
        }
}

/* Lanes that took the exact step to an event, to (ye, fe). */
static void at_event(const lane_kind *k, block *b, vint arriving, const vdouble *ye,
                     const vdouble *fe, uint8_t *status)
{
    for (int l = 0; l < LANES; l++)
        if (arriving[l]) {
            double yl[DOPRI5_MAX_DIM], fl[DOPRI5_MAX_DIM];
            for (int i = 0; i < k->dimension; i++) {
                yl[i] = ye[i][l];
                fl[i] = fe[i][l];
            }
            lane_store(b, l, k->dimension);
            if (dopri5_point_at_event(&b->point[l], yl, fl))
                lane_finish(b, l, status, IS_POINT_DONE);
            else
                lane_load(b, l, k->dimension);
        }
}

/* Lanes that reached t_max in contact. */
static void horizon(const lane_kind *k, block *b, vint reached, uint8_t *status)
{
    for (int l = 0; l < LANES; l++)
        if (reached[l]) {
            lane_store(b, l, k->dimension);
            dopri5_point *dp = &b->point[l];
            collision_tracker_horizon(&dp->tracker, dp->t, dp->y);
            lane_finish(b, l, status, IS_POINT_DONE);
        }
}

/* Before a trial step: lanes out of budget fail, and the steps are cut to the limits. */
static void block_begin(const lane_kind *k, block *b, uint8_t *status)
{
    const lane_params *q = &b->q;
    /* out of budget before the step (every step counts; the exact steps to events are
     * part of the step that found them) */
    fail(k, b, b->active & ~b->exact & (b->steps >= q->max_steps), SOLVER_BUDGET, status);
    vint stepping = b->active & ~b->exact;
    /* Just after a point where |u|^(p-1) is not smooth, the solution behaves like
     * |t - t_rough|^p and an error estimate of a step as long as that distance is not to
     * be trusted: keep steps short against it (see ROUGH_STEP_SHARE). */
    if (k->rough)
        b->h =
            vsel(stepping, lv_min_nanb(b->h, q->h_start + ROUGH_STEP_SHARE * (b->t - b->t_rough)), b->h);
    b->h = vsel(stepping & (b->t + b->h > q->t_max), q->t_max - b->t, b->h);
}

/* After the trial step of every active lane (or the exact step to an event): what
 * follows from it. */
static void block_end(const lane_kind *k, block *b, trial *tr, uint8_t *status)
{
    const lane_params *q = &b->q;
    vint stepping = b->active & ~b->exact, arriving = b->active & b->exact;
    vdouble err = tr->err, *y1 = tr->y1, *f1 = tr->f1;
    /* err^(-1/4) by two square roots: the controller needs no more precision */
    vdouble factor = 0.9 / lv_sqrt(lv_sqrt(lv_max_nanb(err, vsplat(1e-12))));
    vint finite = err - err == 0.0;
    vint underflow = b->h < 16.0 * DBL_EPSILON * lv_max_nanb(vsplat(1.0), b->t);
    fail(k, b, stepping & ~finite, SOLVER_NONFINITE, status);
    fail(k, b, stepping & finite & underflow, SOLVER_STEP_UNDERFLOW, status);
    stepping &= b->active;
    vint rejected = stepping & (err > 1.0);
    vdouble g[COLLISION_EVENTS];
    vroots(k, &b->q, y1, f1, &tr->pw, g);
    if (vany(rejected))
        reject(k, b, rejected, factor, y1, f1, g);
    accept(k, b, stepping & ~rejected, factor, y1, f1, g, status);
    if (vany(arriving))
        at_event(k, b, arriving, y1, f1, status);
    vint reached = b->active & ~b->exact & ~(b->t < q->t_max);
    if (vany(reached))
        horizon(k, b, reached, status);
}

/* One trial step of every active lane of the nb blocks, and what follows from it. */
static void blocks_try(const lane_kind *k, block *const *blocks, int nb, uint8_t *status)
{
    trial tr[BLOCKS];
    for (int j = 0; j < nb; j++) {
        block_begin(k, blocks[j], status);
        tr[j].y1[DOPRI5_MAX_DIM - 1] = tr[j].f1[DOPRI5_MAX_DIM - 1] = vsplat(0.0); /* d = 3 */
    }
    vstep(k, blocks, nb, tr);
    for (int j = 0; j < nb; j++)
        block_end(k, blocks[j], &tr[j], status);
}

/* The group's kind: what its points share (the grouping key is made of it). */
static lane_kind kind_of(const collision_problem *pb)
{
    lane_kind k = {pb->law, pb->dimension, pb->pow_p.kind, pb->pow_n.kind, 0};
    k.rough = pb->dimension == 4 && pb->p != 1.0;
    return k;
}

static size_t group_key(const collision_problem *pb)
{
    return ((size_t)pb->law * 8 + (size_t)pb->pow_p.kind) * 8 + (size_t)pb->pow_n.kind;
}

/* Runs the points order[0..count) of one group; returns 1 if the stop flag ended it
 * (the points not finished stay pending), -1 if there was no memory for the lanes. */
static int run_group(const collision_problem *problems, collision_result *results, uint8_t *status,
                     const size_t *order, size_t count)
{
    const collision_problem *first = &problems[order[0]];
    const lane_kind k = kind_of(first);
    const volatile sig_atomic_t *stop = first->stop;
    const int nb = count > LANES ? BLOCKS : 1; /* a second block only with points for it */
    const size_t size = (sizeof(block) * (size_t)nb + 63) / 64 * 64;
    block *all = aligned_alloc(64, size); /* the vectors' alignment */
    if (!all)
        return -1;
    memset(all, 0, size);
    /* every lane holds a point's parameters and state, even when idle, so that idle
     * lanes compute harmless numbers: the first point's, started in lane 0 (and started
     * again as the first point to run) */
    for (int j = 0; j < nb; j++) {
        lane_start(&all[j], 0, first, &results[order[0]], order[0]);
        for (int l = 1; l < LANES; l++)
            lane_copy(&all[j], 0, l);
        all[j].active[0] = 0;
    }
    size_t next = 0;
    int64_t tries = 0, stopped = 0;
    for (;;) {
        block *busy[BLOCKS];
        int nbusy = 0;
        for (int j = 0; j < nb; j++) {
            block *b = &all[j];
            for (int l = 0; l < LANES && next < count && !vall(b->active); l++)
                if (!b->active[l]) {
                    lane_start(b, l, &problems[order[next]], &results[order[next]], order[next]);
                    next++;
                }
            if (vany(b->active))
                busy[nbusy++] = b;
        }
        if (nbusy == 0)
            break;
        if (tries++ % COLLISION_POLL_STEPS == 0 && stop && *stop) {
            stopped = 1;
            break;
        }
        blocks_try(&k, busy, nbusy, status);
    }
    free(all);
    return (int)stopped;
}

static int compare_size(const void *a, const void *b)
{
    size_t x = *(const size_t *)a, y = *(const size_t *)b;
    return x < y ? -1 : x > y;
}

int collision_solve_dopri5(const collision_problem *problems, size_t count,
                           collision_result *results, uint8_t *status, size_t *order)
{
    /* groups in the order of their keys, each in batch order (the key in the high bits,
     * the index in the low 40) */
    const size_t index_bits = 40, index_mask = ((size_t)1 << index_bits) - 1;
    for (size_t i = 0; i < count; i++) {
        status[i] = IS_POINT_PENDING;
        order[i] = group_key(&problems[i]) << index_bits | i;
    }
    qsort(order, count, sizeof *order, compare_size);
    size_t start = 0;
    while (start < count) {
        size_t key = order[start] >> index_bits, end = start;
        while (end < count && order[end] >> index_bits == key) {
            order[end] &= index_mask;
            end++;
        }
        int rc = run_group(problems, results, status, order + start, end - start);
        if (rc != 0)
            return rc < 0 ? -1 : 0;
        start = end;
    }
    return 0;
}
