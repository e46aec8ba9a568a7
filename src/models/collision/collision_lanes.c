/* collision_lanes.c: the collision model's DOPRI5 and DOP853 integrators: the laws in
 * lanes on the hybrid integrator (../shared/hybrid.h), which runs a batch's points side by
 * side, each lane a point with its own step size, locates the events in lanes and never
 * lets a step straddle a kink of the right-hand side.
 *
 * A batch's dopri5 points are grouped by (law, kind of p, kind of n), so that one
 * right-hand side without branches serves a whole group (collision_power: p, n of 1, 2, 3,
 * 1.5, 2.5 need no power; 1.5 and 2.5 a square root). The events are collision_events':
 * the force root falling (sign(F) |F|^(1/p), with an increasing stand-in for the power;
 * -X for the laws whose F has the sign of -X), V (a kink of the Bouc-Wen rate for bwshc,
 * else where X has its extremes: observed), F' falling (a maximum of F: observed), the
 * kinks W, U, Z, and coming to rest; on_event is collision_tracker_event in lanes, with
 * the separation time corrected by a Newton step (the state there is a step's end: V is
 * flat, and X moves by V dt). The field leaves |U|^p and |Z|^p in aux for the events at
 * the same state.
 *
 * Determinism: every lane operation is elementwise IEEE arithmetic (contraction is off),
 * there is no reduction across lanes, and the one power without a fast path is
 * lanes_math.h's lv_pow (collision_power_general, which the scalar code uses too, is its
 * lane 0), so a point's result is the same bits whatever its lane, block, batch and build.
 * A trace runs the same code with one point. */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../shared/hybrid.h"
#include "collision.h"

/* The error in e comes out below the local tolerance (measured against the exact results
 * of the classical laws), so the local tolerance is a share of the accuracy asked of the
 * outputs. */
#define TOLERANCE_SAFETY 0.25
/* atol is the accuracy asked of the state; the local one is tighter (as CVODE's): the
 * states start at 0 (or -1), where the solution is least smooth, and an error there
 * stays in e (the Bouc-Wen-Maxwell e drifted by 10 rtol with a local atol of rtol/100). */
#define ABSOLUTE_SAFETY 1e-2
/* For the Maxwell type with p > 1 the right-hand side holds |Y|^(p-1) and |Z|^(p-1),
 * which are not even Lipschitz at 0 for p < 2: just after such a point, or after contact,
 * steps stay below this share of the distance to it. */
#define ROUGH_STEP_SHARE 0.25
#ifndef ROUGH_PENALTY
#define ROUGH_PENALTY 10.0
#endif

double collision_power_general(double x, double e)
{
    return lv_pow(lv_splat(x), lv_splat(e))[0];
}

/* What a group's points share: the law, the kinds of p and n (collision_power). */
typedef struct lane_kind {
    collision_law law;
    int dimension, p_kind, n_kind;
    int rough; /* the Maxwell type with p != 1: steps limited after rough points */
} lane_kind;

/* The lanes' parameters (is_hybrid_lanes.par) and records (.rec). */
enum { P_PI1, P_PI2, P_PI3, P_P, P_N, P_ALPHA, P_ALPHA_C, P_A, P_REST, P_H_START, P_INV_P };
enum {
    R_OUTCOME, R_COR, R_T_SEP, R_X_MAX, R_X_SEP, R_F_MAX, R_E_MAX, R_E_MIN, R_NONFINITE,
    R_T_ROUGH
};
/* The field's by-products (is_hybrid_lanes.aux): |U|^p and |Z|^p at its state. */
enum { AUX_UP, AUX_ZP };

/* A group's run: its kind, and its points (order[i]: the batch index of point i). */
typedef struct group {
    lane_kind kind;
    int variant; /* SPECIALIZED: which compiled case of the laws serves the group */
    const collision_problem *problems;
    collision_result *results;
    uint8_t *status;
    const size_t *order;
} group;

/* --- the laws in lanes (collision_law.c's right-hand sides and roots) ---------------- */

/* collision_power_eval in lanes: the same kinds, the same bits. */
static inline lv_double vpower(int kind, lv_double x, lv_double e)
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
        return lv_pow(x, e);
    }
}

/* |x|^p and |x|^n, one logarithm between them where both need the general power. */
static inline void vpower_pair(int p_kind, int n_kind, lv_double x, lv_double p, lv_double n,
                               lv_double *xp, lv_double *xn)
{
    if (p_kind == 0 && n_kind == 0) {
        lv_double lhi, llo;
        lv_log_for_pow(x, &lhi, &llo);
        *xp = lv_pow_from_log(x, lhi, llo, p);
        *xn = lv_pow_from_log(x, lhi, llo, n);
        return;
    }
    *xp = vpower(p_kind, x, p);
    *xn = vpower(n_kind, x, n);
}

/* |a|^p, |b|^p and |b|^n for general p and n (kind 0): the two logarithms and the three
 * exponentials side by side (lanes_math.h's _n forms, the same bits as vpower and
 * vpower_pair), so that their chains of dependent operations overlap. */
static inline __attribute__((always_inline)) void
vpowers_general(lv_double a, lv_double b, lv_double p, lv_double n, lv_double *ap,
                lv_double *bp, lv_double *bn)
{
    lv_double base[2] = {a, b}, lhi[2], llo[2];
    lv_log_for_pow_n(2, base, lhi, llo);
    lv_double x[3] = {a, b, b}, hi[3] = {lhi[0], lhi[1], lhi[1]}, lo[3] = {llo[0], llo[1], llo[1]};
    lv_double e[3] = {p, p, n}, out[3];
    lv_pow_from_log_n(3, x, hi, lo, e, out);
    *ap = out[0];
    *bp = out[1];
    *bn = out[2];
}

static inline lv_double vsigned(lv_double u, lv_double magnitude)
{
    return lv_sel(lv_lt(u, lv_zero()), -magnitude, magnitude);
}

/* Z' = A (U - pi2 |Z|^(n-1) Z |U| - pi3 |Z|^n U), with zn = |Z|^n */
static inline lv_double vbouc_wen(const lv_double *q, lv_double z, lv_double zn, lv_double u)
{
    lv_double zn_signed = vsigned(z, zn);
    return q[P_A] * (u - q[P_PI2] * zn_signed * lv_abs(u) - q[P_PI3] * zn * u);
}

/* |u|^(p-1) as |u|^p / |u| (0 at u = 0 for p > 1, 1 for p = 1), from up = |u|^p */
static inline lv_double vpower_less_one(const lane_kind *k, lv_double au, lv_double up)
{
    return k->p_kind == 1 ? lv_splat(1.0) : lv_sel(lv_gt(au, lv_zero()), up / au, lv_zero());
}

static inline void vrhs_maxwell(const lane_kind *k, const lv_double *q, const lv_double *y,
                                lv_double *f, lv_double *pw)
{
    lv_double w = y[3], ay = lv_abs(y[1]), az = lv_abs(y[2]), yp, zp, zn;
    if (k->law == LAW_BWM && k->p_kind == 0 && k->n_kind == 0) {
        vpowers_general(ay, az, q[P_P], q[P_N], &yp, &zp, &zn);
    } else {
        yp = vpower(k->p_kind, ay, q[P_P]);
        if (k->law == LAW_BWM)
            vpower_pair(k->p_kind, k->n_kind, az, q[P_P], q[P_N], &zp, &zn);
        else
            zp = zn = vpower(k->p_kind, az, q[P_P]);
    }
    lv_double r_rate =
        q[P_PI1] * (q[P_ALPHA] * vsigned(y[1], yp) + q[P_ALPHA_C] * vsigned(y[2], zp));
    lv_double z_rate = k->law == LAW_BWM ? vbouc_wen(q, y[2], zn, w) : lv_zero();
    lv_double y_p1 = vpower_less_one(k, ay, yp), z_p1 = vpower_less_one(k, az, zp);
    f[0] = r_rate;
    f[1] = w;
    f[2] = z_rate;
    f[3] = -r_rate / q[P_PI1] - q[P_ALPHA] * q[P_P] * q[P_PI1] * y_p1 * w -
           q[P_ALPHA_C] * q[P_P] * q[P_PI1] * z_p1 * z_rate;
    pw[AUX_UP] = yp;
    pw[AUX_ZP] = zp;
}

/* y' = f(y) of the group's law, and |U|^p, |Z|^p in pw (0 where the law needs none). */
static inline __attribute__((always_inline)) void vrhs(const lane_kind *k, const lv_double *q, const lv_double *y, lv_double *f,
                        lv_double *pw)
{
    if (k->dimension == 4) {
        vrhs_maxwell(k, q, y, f, pw);
        return;
    }
    lv_double x = y[0], v = y[1], z = y[2];
    f[0] = v;
    f[2] = lv_zero();
    pw[AUX_UP] = pw[AUX_ZP] = lv_zero();
    switch (k->law) {
    case LAW_HOOKE:
        f[1] = -x;
        break;
    case LAW_KELVIN_VOIGT:
        f[1] = -x - q[P_PI1] * v;
        break;
    case LAW_HERTZ:
        pw[AUX_UP] = vpower(k->p_kind, lv_abs(x), q[P_P]);
        f[1] = -vsigned(x, pw[AUX_UP]);
        break;
    case LAW_HUNT_CROSSLEY: {
        lv_double xp = vpower(k->p_kind, lv_abs(x), q[P_P]);
        f[1] = -vsigned(x, xp) - q[P_PI1] * xp * v;
        pw[AUX_UP] = xp;
        break;
    }
    default: { /* LAW_BWSHC */
        lv_double xp, zp, zn;
        if (k->p_kind == 0 && k->n_kind == 0) {
            vpowers_general(lv_abs(x), lv_abs(z), q[P_P], q[P_N], &xp, &zp, &zn);
        } else {
            xp = vpower(k->p_kind, lv_abs(x), q[P_P]);
            vpower_pair(k->p_kind, k->n_kind, lv_abs(z), q[P_P], q[P_N], &zp, &zn);
        }
        f[1] = -q[P_ALPHA] * vsigned(x, xp) - q[P_ALPHA_C] * vsigned(z, zp) - q[P_PI1] * xp * v;
        f[2] = vbouc_wen(q, z, zn, v);
        pw[AUX_UP] = xp;
        pw[AUX_ZP] = zp;
        break;
    }
    }
}

/* The force F and its rate (the force-rate root of collision_events) at (y, f = f(y)),
 * from the powers pw at y. */
static inline void vforce(const lane_kind *k, const lv_double *q, const lv_double *y,
                          const lv_double *f, const lv_double *pw, lv_double *force,
                          lv_double *rate)
{
    if (k->dimension == 4) {
        lv_double y_p1 = vpower_less_one(k, lv_abs(y[1]), pw[AUX_UP]);
        lv_double z_p1 = vpower_less_one(k, lv_abs(y[2]), pw[AUX_ZP]);
        *force = -f[0] / q[P_PI1];
        *rate = -q[P_P] * (q[P_ALPHA] * y_p1 * f[1] + q[P_ALPHA_C] * z_p1 * f[2]);
        return;
    }
    lv_double x = y[0], v = y[1], z = y[2];
    *force = f[1];
    switch (k->law) {
    case LAW_HOOKE: /* |X|^1 */
        *rate = q[P_PI1] * x * lv_abs(x) - q[P_P] * v;
        break;
    case LAW_HERTZ:
    case LAW_HUNT_CROSSLEY:
        *rate = q[P_PI1] * x * pw[AUX_UP] - q[P_P] * v;
        break;
    case LAW_KELVIN_VOIGT:
        *rate = -v - q[P_PI1] * *force;
        break;
    default: { /* LAW_BWSHC */
        lv_double xp = pw[AUX_UP];
        lv_double x_p1 = vpower_less_one(k, lv_abs(x), xp);
        lv_double z_p1 = vpower_less_one(k, lv_abs(z), pw[AUX_ZP]);
        lv_double sx = lv_sel(lv_lt(x, lv_zero()), lv_splat(-1.0),
                              lv_sel(lv_gt(x, lv_zero()), lv_splat(1.0), lv_zero()));
        *rate = -q[P_ALPHA] * q[P_P] * x_p1 * v - q[P_ALPHA_C] * q[P_P] * z_p1 * f[2] -
                q[P_PI1] * (q[P_P] * x_p1 * sx * v * v + xp * *force);
        break;
    }
    }
}

/* An increasing stand-in for x^(1/p), x >= 0 (the force root's: it has F's root and
 * undoes F's flat zero |X|^p, so that the root search sees a function close to linear):
 * 2^(L/p) with L = e + m - 1 the piecewise linear log2 of x = 2^e m and 2^f ~ 1 + f,
 * continuous and increasing; 0 stays 0. */
static inline lv_double vroot_power(lv_double x, lv_double inv_p)
{
    lv_int bits = lv_as_int(x);
    lv_double m = lv_as_double((bits & 0x000fffffffffffff) | 0x3ff0000000000000);
    lv_double e = (lv_as_double((bits >> 52) | 0x4330000000000000) - 0x1p52) - 1023.0;
    lv_double y = (e + (m - 1.0)) * inv_p;
    lv_double n = (y + 0x1.8p52) - 0x1.8p52;
    n = lv_sel(lv_gt(n, y), n - 1.0, n); /* floor */
    lv_double two_n =
        lv_as_double((lv_as_int(n + 0x1.8p52) - lv_as_int(lv_splat(0x1.8p52)) + 1023) << 52);
    return lv_sel(lv_gt(x, lv_zero()), two_n * (1.0 + (y - n)), x);
}

static inline int follows_x(const lane_kind *k)
{
    return k->law == LAW_HOOKE || k->law == LAW_HERTZ || k->law == LAW_HUNT_CROSSLEY;
}

/* The velocity V (R' + W for the Maxwell type) from f. */
static inline lv_double vvelocity(const lane_kind *k, const lv_double *y, const lv_double *f)
{
    return k->dimension == 4 ? f[0] + y[3] : y[1];
}

/* --- the hybrid system ------------------------------------------------------------------ */

/* The laws compiled for the kinds most used, with the kinds as constants (no dispatch on
 * them inside the right-hand side): bwshc with p = 1.5 and n = 1 (Hertz contact, the
 * bench point), bwshc with general p and n; every other group takes the kinds as they
 * come. `body` runs with `k`, the group's kind, of dimension `dim`. */
enum { VARIANT_ANY, VARIANT_BWSHC_HERTZ, VARIANT_BWSHC_GENERAL };
#define SPECIALIZED(gr, dim, body)                                                          \
    do {                                                                                    \
        if ((dim) == 3 && (gr)->variant == VARIANT_BWSHC_HERTZ) {                           \
            const lane_kind kind_ = {LAW_BWSHC, 3, 4, 1, 0}, *k = &kind_;                   \
            body;                                                                           \
        } else if ((dim) == 3 && (gr)->variant == VARIANT_BWSHC_GENERAL) {                  \
            const lane_kind kind_ = {LAW_BWSHC, 3, 0, 0, 0}, *k = &kind_;                   \
            body;                                                                           \
        } else {                                                                            \
            lane_kind kind_ = (gr)->kind;                                                   \
            kind_.dimension = (dim);                                                        \
            const lane_kind *k = &kind_;                                                    \
            body;                                                                           \
        }                                                                                   \
    } while (0)

static int variant_of(const lane_kind *k)
{
    if (k->law == LAW_BWSHC && k->p_kind == 4 && k->n_kind == 1)
        return VARIANT_BWSHC_HERTZ;
    if (k->law == LAW_BWSHC && k->p_kind == 0 && k->n_kind == 0)
        return VARIANT_BWSHC_GENERAL;
    return VARIANT_ANY;
}

static inline __attribute__((always_inline)) void field3(is_hybrid_lanes *b, lv_double t,
                                                         const lv_double *y, lv_double *f)
{
    (void)t;
    const group *gr = b->ctx;
    SPECIALIZED(gr, 3, vrhs(k, b->par, y, f, b->aux));
}

static inline __attribute__((always_inline)) void field4(is_hybrid_lanes *b, lv_double t,
                                                         const lv_double *y, lv_double *f)
{
    (void)t;
    const group *gr = b->ctx;
    SPECIALIZED(gr, 4, vrhs(k, b->par, y, f, b->aux));
}

/* The roots of collision_events (collision_root). */
static inline __attribute__((always_inline)) void roots(const lane_kind *k, const is_hybrid_lanes *b,
                                                        const lv_double *y, const lv_double *given,
                                                        lv_double *g, lv_double *force_out,
                                                        lv_double *rate_out)
{
    const lv_double *q = b->par;
    lv_double computed[4], pw_computed[IS_HYBRID_MAX_AUX];
    const lv_double *f = given, *pw = b->aux;
    if (!f) { /* on the dense output: the field here */
        vrhs(k, q, y, computed, pw_computed);
        f = computed;
        pw = pw_computed;
    }
    lv_double force, rate;
    vforce(k, q, y, f, pw, &force, &rate);
    int maxwell = k->dimension == 4;
    lv_double one = lv_splat(1.0), velocity = vvelocity(k, y, f);
    lv_double magnitude = k->p_kind == 1 ? lv_abs(force) : vroot_power(lv_abs(force), q[P_INV_P]);
    g[COLLISION_ROOT_FORCE] = follows_x(k) ? -y[0] : vsigned(force, magnitude);
    g[COLLISION_ROOT_VELOCITY] = velocity;
    g[COLLISION_ROOT_FORCE_RATE] = rate;
    g[COLLISION_ROOT_KINK_W] = k->law == LAW_BWM ? y[3] : one;
    g[COLLISION_ROOT_KINK_U] = k->p_kind != 1 ? (maxwell ? y[1] : y[0]) : one;
    g[COLLISION_ROOT_KINK_Z] = k->law == LAW_BWM || k->law == LAW_BWSHC ? y[2] : one;
    int conservative = k->law == LAW_HOOKE || k->law == LAW_HERTZ;
    g[COLLISION_ROOT_REST] =
        conservative ? one : lv_max_nanb(lv_abs(velocity), lv_abs(force)) - q[P_REST];
    *force_out = force;
    *rate_out = rate;
}

/* The roots' rates along the solution, where they are components of f (the kinks, V,
 * and -X for the laws whose force root it is), and for the force root F' scaled as the
 * root is (its Newton correction is then F's own, -F/F'): the integrator's Newton
 * corrections of landings and its predictions of kinks; NaN for the others (no
 * correction). */
static inline __attribute__((always_inline)) void rates(const lane_kind *k, const lv_double *f,
                                                        const lv_double *g, lv_double force,
                                                        lv_double rate, lv_double *dg)
{
    lv_double none = lv_splat(__builtin_nan(""));
    int maxwell = k->dimension == 4;
    lv_double force_rate = g[COLLISION_ROOT_FORCE] * (rate / force); /* NaN at F = 0 */
    dg[COLLISION_ROOT_FORCE] = follows_x(k) ? -f[0] : force_rate;
    dg[COLLISION_ROOT_VELOCITY] = maxwell ? none : force; /* V' = F */
    dg[COLLISION_ROOT_FORCE_RATE] = none;
    dg[COLLISION_ROOT_KINK_W] = k->law == LAW_BWM ? f[3] : none;
    dg[COLLISION_ROOT_KINK_U] = k->p_kind != 1 ? (maxwell ? f[1] : f[0]) : none;
    dg[COLLISION_ROOT_KINK_Z] = k->law == LAW_BWM || k->law == LAW_BWSHC ? f[2] : none;
    dg[COLLISION_ROOT_REST] = none;
}

/* The roots, and their rates where asked (then f is given: at landings and arrivals). */
static inline __attribute__((always_inline)) void events3(const is_hybrid_lanes *b, lv_double t,
                                                          const lv_double *y, const lv_double *f,
                                                          lv_double *g, lv_double *dg)
{
    (void)t;
    const group *gr = b->ctx;
    lv_double force, rate;
    SPECIALIZED(gr, 3, roots(k, b, y, f, g, &force, &rate);
                if (dg) rates(k, f, g, force, rate, dg));
}

static inline __attribute__((always_inline)) void events4(const is_hybrid_lanes *b, lv_double t,
                                                          const lv_double *y, const lv_double *f,
                                                          lv_double *g, lv_double *dg)
{
    (void)t;
    const group *gr = b->ctx;
    lv_double force, rate;
    SPECIALIZED(gr, 4, roots(k, b, y, f, g, &force, &rate);
                if (dg) rates(k, f, g, force, rate, dg));
}

/* collision_energy in lanes, from the powers pw at y. */
static inline lv_double venergy(const lane_kind *k, const lv_double *q, const lv_double *y,
                                lv_double v, const lv_double *pw)
{
    lv_double u = lv_abs(k->dimension == 4 ? y[1] : y[0]);
    lv_double up = k->p_kind == 1 ? u : pw[AUX_UP], zp = k->p_kind == 1 ? lv_abs(y[2]) : pw[AUX_ZP];
    if (k->law == LAW_HOOKE || k->law == LAW_KELVIN_VOIGT || k->law == LAW_MAXWELL)
        up = u, zp = lv_abs(y[2]); /* p = 1: the field left no powers */
    lv_double energy = 0.5 * v * v + q[P_ALPHA] * u * up / (q[P_P] + 1.0);
    lv_double stored = q[P_ALPHA_C] * lv_abs(y[2]) * zp / ((q[P_P] + 1.0) * q[P_A]);
    return energy + lv_keep(lv_gt(q[P_ALPHA_C], lv_zero()), stored);
}

/* The hook's events of a traced point (the only point: lane 0). */
static void hook_events(const group *gr, const is_hybrid_lanes *b, const lv_mask *fired,
                        lv_mask ended, lv_mask separated, lv_mask rest)
{
    collision_hook *hook = gr->problems[gr->order[0]].hook;
    if (!hook)
        return;
    if (lv_mask_lane(fired[COLLISION_ROOT_VELOCITY], 0))
        collision_hook_event(hook, b->side[COLLISION_ROOT_VELOCITY][0] < 0.0
                                       ? COLLISION_EVENT_MAX_COMPRESSION
                                       : COLLISION_EVENT_MIN_COMPRESSION);
    if (lv_mask_lane(fired[COLLISION_ROOT_FORCE_RATE], 0))
        collision_hook_event(hook, COLLISION_EVENT_FORCE_MAX);
    if (lv_mask_lane(rest, 0))
        collision_hook_event(hook, COLLISION_EVENT_REST);
    else if (lv_mask_lane(separated, 0))
        collision_hook_event(hook, COLLISION_EVENT_SEPARATION);
    else if (!lv_mask_lane(ended, 0) &&
             lv_mask_lane(fired[COLLISION_ROOT_KINK_W] | fired[COLLISION_ROOT_KINK_U] |
                              fired[COLLISION_ROOT_KINK_Z], 0))
        collision_hook_event(hook, COLLISION_EVENT_KINK);
}

/* The end of the contact at the compression c for the lanes m (track_end). */
static inline void vtrack_end(is_hybrid_lanes *b, lv_mask m, lv_double c)
{
    b->rec[R_X_SEP] = lv_sel(m, c, b->rec[R_X_SEP]);
    b->rec[R_X_MAX] = lv_sel(m, lv_max_num(b->rec[R_X_MAX], c), b->rec[R_X_MAX]);
    lv_mask bad = m & lv_ne(c - c, lv_zero());
    b->rec[R_NONFINITE] = lv_sel(bad, lv_splat(1.0), b->rec[R_NONFINITE]);
}

/* collision_tracker_event in lanes, for the group's kind k. */
static inline __attribute__((always_inline)) lv_mask
tracker_event(is_hybrid_lanes *b, const group *gr, const lane_kind *k, const lv_mask *fired,
              lv_double t, lv_double *y)
{
    const lv_double *q = b->par;
    lv_double f[4], pw[IS_HYBRID_MAX_AUX], force, rate;
    vrhs(k, q, y, f, pw);
    vforce(k, q, y, f, pw, &force, &rate);
    lv_double v = vvelocity(k, y, f);
    lv_double compression = -(k->dimension == 4 ? y[0] + y[1] : y[0]);
    lv_mask any = lv_mask_none();
    for (int e = 0; e < COLLISION_EVENTS; e++)
        any |= fired[e];
    /* the energy at every event, and any non-finite state met */
    lv_double energy = venergy(k, q, y, v, pw);
    b->rec[R_E_MAX] = lv_sel(any, lv_max_num(b->rec[R_E_MAX], energy), b->rec[R_E_MAX]);
    b->rec[R_E_MIN] = lv_sel(any, lv_min_num(b->rec[R_E_MIN], energy), b->rec[R_E_MIN]);
    lv_mask bad = any & lv_ne(energy - energy, lv_zero());
    b->rec[R_NONFINITE] = lv_sel(bad, lv_splat(1.0), b->rec[R_NONFINITE]);
    lv_mask v_root = fired[COLLISION_ROOT_VELOCITY];
    b->rec[R_X_MAX] = lv_sel(v_root, lv_max_num(b->rec[R_X_MAX], compression), b->rec[R_X_MAX]);
    lv_mask f_max = fired[COLLISION_ROOT_FORCE_RATE];
    b->rec[R_F_MAX] = lv_sel(f_max, lv_max_num(b->rec[R_F_MAX], force), b->rec[R_F_MAX]);
    lv_mask kink = fired[COLLISION_ROOT_KINK_U] | fired[COLLISION_ROOT_KINK_Z];
    b->rec[R_T_ROUGH] = lv_sel(kink, t, b->rec[R_T_ROUGH]);
    /* at rest in the equilibrium set without having separated: e = 0 */
    lv_mask rest = fired[COLLISION_ROOT_REST];
    /* entering {F <= 0, V >= 0}: F falling to 0 with V >= 0, or V rising to 0 with F <= 0 */
    lv_mask rising = lv_lt(b->side[COLLISION_ROOT_VELOCITY], lv_zero());
    lv_mask separated = lv_not(rest) & ((fired[COLLISION_ROOT_FORCE] & lv_ge(v, lv_zero())) |
                                        (v_root & rising & lv_le(force, lv_zero())));
    /* One Newton step on the separation time, F (or -X) to 0 along F' (or -V), from the
     * state the step to the located time reached (the location on the dense output
     * carries its error, e.g. where F' is small), the state following to first order
     * (y + f dt); a step that is not small is not taken. The outputs are read from that
     * state (and a trace's last sample is it). */
    lv_double value = follows_x(k) ? -y[0] : force, slope = follows_x(k) ? -v : rate;
    lv_double dt = -value / slope;
    dt = lv_keep(separated & lv_le(lv_abs(dt), 1e-3 * (1.0 + t)), dt);
    lv_double ys[4] = {lv_zero(), lv_zero(), lv_zero(), lv_zero()}, fs[4], pws[IS_HYBRID_MAX_AUX];
    for (int i = 0; i < k->dimension; i++)
        ys[i] = y[i] + f[i] * dt;
    vrhs(k, q, ys, fs, pws);
    lv_double vs = vvelocity(k, ys, fs), ts = t + dt;
    lv_double cs = -(k->dimension == 4 ? ys[0] + ys[1] : ys[0]);
    lv_mask moving = separated & lv_ge(vs, q[P_REST]);
    vtrack_end(b, rest | separated, lv_sel(separated, cs, compression));
    b->rec[R_OUTCOME] = lv_sel(rest | separated, lv_sel(moving, lv_splat(OUTCOME_SEPARATED),
                                                        lv_splat(OUTCOME_NO_SEPARATION)),
                               b->rec[R_OUTCOME]);
    b->rec[R_COR] = lv_sel(moving, vs, b->rec[R_COR]);
    b->rec[R_T_SEP] = lv_sel(moving, ts, b->rec[R_T_SEP]);
    collision_hook *hook = gr->problems[gr->order[0]].hook;
    if (hook && lv_mask_lane(any, 0)) { /* the event's state; after a separation, the outputs' */
        double yl[4];
        int moved = lv_mask_lane(separated, 0);
        for (int i = 0; i < k->dimension; i++)
            yl[i] = moved ? ys[i][0] : y[i][0];
        collision_hook_sample(hook, moved ? ts[0] : t[0], yl);
    }
    lv_mask ended = rest | separated;
    hook_events(gr, b, fired, ended, moving, rest | (separated & lv_not(moving)));
    return ended;
}

static lv_mask on_event3(is_hybrid_lanes *b, const lv_mask *fired, lv_double t, lv_double *y)
{
    const group *gr = b->ctx;
    lv_mask ended;
    SPECIALIZED(gr, 3, ended = tracker_event(b, gr, k, fired, t, y));
    return ended;
}

static lv_mask on_event4(is_hybrid_lanes *b, const lv_mask *fired, lv_double t, lv_double *y)
{
    const group *gr = b->ctx;
    lv_mask ended;
    SPECIALIZED(gr, 4, ended = tracker_event(b, gr, k, fired, t, y));
    return ended;
}

/* The Maxwell type with p != 1: steps after a rough point stay short against it. */
static lv_double step_limit(const is_hybrid_lanes *b, lv_double t, const lv_double *y)
{
    (void)y;
    return b->par[P_H_START] + ROUGH_STEP_SHARE * (t - b->rec[R_T_ROUGH]);
}

static int start(void *ctx, size_t i, is_hybrid_start *s)
{
    const group *gr = ctx;
    const collision_problem *pb = &gr->problems[gr->order[i]];
    collision_result *r = &gr->results[gr->order[i]];
    collision_initial_state(pb, s->y);
    collision_tracker tracker;
    collision_tracker_start(&tracker, pb, r, s->y); /* the outputs' start; hook: contact */
    double par[] = {[P_PI1] = pb->pi1, [P_PI2] = pb->pi2, [P_PI3] = pb->pi3, [P_P] = pb->p,
                    [P_N] = pb->n, [P_ALPHA] = pb->alpha, [P_ALPHA_C] = pb->alpha_c,
                    [P_A] = pb->A, [P_REST] = pb->rest_velocity,
                    [P_H_START] = 1e-2 * sqrt(TOLERANCE_SAFETY * pb->rtol), [P_INV_P] = 1.0 / pb->p};
    memcpy(s->par, par, sizeof par);
    s->rec[R_OUTCOME] = r->outcome;
    s->rec[R_COR] = r->cor;
    s->rec[R_T_SEP] = r->t_sep;
    s->rec[R_X_MAX] = r->x_max;
    s->rec[R_X_SEP] = r->x_sep;
    s->rec[R_F_MAX] = r->f_max;
    s->rec[R_E_MAX] = r->energy_max;
    s->rec[R_E_MIN] = r->energy_min;
    s->t_end = pb->t_max;
    /* the first step: DOP853's error goes with h^8, not h^5 (DOPRI5's first step left it
     * some 8 % of its steps growing out of it on the bwshc surface at rtol 1e-8) */
    s->h = pb->dop853 ? 1e-2 * pow(TOLERANCE_SAFETY * pb->rtol, 0.125) : par[P_H_START];
    s->rtol = TOLERANCE_SAFETY * pb->rtol;
    s->atol = TOLERANCE_SAFETY * ABSOLUTE_SAFETY * pb->atol;
    s->max_steps = (double)pb->max_steps;
    s->rough_start = pb->p != 1.0;
    return 1;
}

static void finish(void *ctx, size_t i, const is_hybrid_end *e)
{
    const group *gr = ctx;
    size_t index = gr->order[i];
    const collision_problem *pb = &gr->problems[index];
    collision_result *r = &gr->results[index];
    r->steps = e->steps;
    r->outcome = (collision_outcome)e->rec[R_OUTCOME];
    r->cor = e->rec[R_COR];
    r->t_sep = e->rec[R_T_SEP];
    r->x_max = e->rec[R_X_MAX];
    r->x_sep = e->rec[R_X_SEP];
    r->f_max = e->rec[R_F_MAX];
    r->energy_max = e->rec[R_E_MAX];
    r->energy_min = e->rec[R_E_MIN];
    r->nonfinite = e->rec[R_NONFINITE] != 0.0;
    int status = IS_POINT_DONE;
    solver_failure why = SOLVER_NONFINITE;
    switch (e->status) {
    case IS_HYBRID_HORIZON: {
        collision_tracker tracker = {pb, r};
        collision_tracker_horizon(&tracker, e->t, e->y);
        break;
    }
    case IS_HYBRID_BUDGET:
        why = SOLVER_BUDGET;
        status = IS_POINT_FAILED_BUDGET;
        break;
    case IS_HYBRID_NONFINITE:
        status = IS_POINT_FAILED_NONFINITE;
        break;
    case IS_HYBRID_UNDERFLOW:
    case IS_HYBRID_ZENO:
        why = SOLVER_STEP_UNDERFLOW;
        status = IS_POINT_FAILED_SOLVER;
        break;
    default:
        break;
    }
    if (status != IS_POINT_DONE) {
        r->outcome = OUTCOME_SOLVER_FAILURE;
        r->solver_flag = why;
    }
    gr->status[index] = (uint8_t)status;
}

static void sample(void *ctx, size_t i, double t, const double *y)
{
    const group *gr = ctx;
    collision_hook *hook = gr->problems[gr->order[i]].hook;
    if (hook)
        collision_hook_sample(hook, t, y);
}

/* The systems: the state's dimension (3: X, V, Z; 4: R, Y, Z, W), the events' kinds (V is
 * a kink of the Bouc-Wen rate of bwshc, whose input it is, else where X has its
 * extremes: observed; the force maximum is observed) and the step limit of the rough
 * Maxwell type. Each is run from a function of its own, so that is_hybrid_run is
 * compiled for it with its sizes and callbacks as constants. */
#define COLLISION_SYSTEM(dim, v_kind, limit, rk_pair)                                        \
    {                                                                                        \
        .dimension = dim, .events = COLLISION_EVENTS,                                        \
        .direction = {[COLLISION_ROOT_FORCE] = -1, [COLLISION_ROOT_FORCE_RATE] = -1,         \
                      [COLLISION_ROOT_REST] = -1},                                           \
        .kind = {[COLLISION_ROOT_VELOCITY] = v_kind,                                         \
                 [COLLISION_ROOT_FORCE_RATE] = IS_HYBRID_LAND,                               \
                 [COLLISION_ROOT_KINK_W] = IS_HYBRID_KINK,                                   \
                 [COLLISION_ROOT_KINK_U] = IS_HYBRID_ROUGH,                                  \
                 [COLLISION_ROOT_KINK_Z] = IS_HYBRID_ROUGH},                                 \
        .locate_tolerance = {[COLLISION_ROOT_FORCE_RATE] = 1e-6},                             \
        .rough_penalty = ROUGH_PENALTY,                                                      \
        .field = field##dim, .event_values = events##dim, .rates = 1,                        \
        .on_event = on_event##dim,                                                           \
        .step_limit = limit, .start = start, .finish = finish, .sample = sample,             \
        .own_event_samples = 1, .pair = rk_pair                                              \
    }
/* each with either pair: [0] DOPRI5, [1] DOP853 (collision_problem.dop853) */
#define COLLISION_SYSTEMS(dim, v_kind, limit)                                                \
    {COLLISION_SYSTEM(dim, v_kind, limit, IS_HYBRID_DOPRI5),                                 \
     COLLISION_SYSTEM(dim, v_kind, limit, IS_HYBRID_DOP853)}
static const is_hybrid_system bwshc_system[2] = COLLISION_SYSTEMS(3, IS_HYBRID_KINK, NULL);
static const is_hybrid_system kelvin_voigt_type[2] =
    COLLISION_SYSTEMS(3, IS_HYBRID_OBSERVE, NULL);
static const is_hybrid_system maxwell_type[2] = COLLISION_SYSTEMS(4, IS_HYBRID_OBSERVE, NULL);
static const is_hybrid_system maxwell_type_rough[2] =
    COLLISION_SYSTEMS(4, IS_HYBRID_OBSERVE, step_limit);

typedef const volatile sig_atomic_t *stop_flag;

static int run_bwshc(group *g, size_t n, stop_flag stop, int trace, int dop853)
{
    if (dop853)
        return is_hybrid_run(&bwshc_system[1], g, n, stop, trace);
    return is_hybrid_run(&bwshc_system[0], g, n, stop, trace);
}

static int run_kelvin_voigt_type(group *g, size_t n, stop_flag stop, int trace, int dop853)
{
    if (dop853)
        return is_hybrid_run(&kelvin_voigt_type[1], g, n, stop, trace);
    return is_hybrid_run(&kelvin_voigt_type[0], g, n, stop, trace);
}

static int run_maxwell_type(group *g, size_t n, stop_flag stop, int trace, int dop853)
{
    if (dop853)
        return is_hybrid_run(&maxwell_type[1], g, n, stop, trace);
    return is_hybrid_run(&maxwell_type[0], g, n, stop, trace);
}

static int run_maxwell_type_rough(group *g, size_t n, stop_flag stop, int trace, int dop853)
{
    if (dop853)
        return is_hybrid_run(&maxwell_type_rough[1], g, n, stop, trace);
    return is_hybrid_run(&maxwell_type_rough[0], g, n, stop, trace);
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
    size_t key = ((size_t)pb->law * 8 + (size_t)pb->pow_p.kind) * 8 + (size_t)pb->pow_n.kind;
    return key * 2 + (size_t)(pb->dop853 != 0); /* the pair: a system each */
}

/* Runs the points order[0..count) of one group: 0, 1 if the stop flag ended it (the
 * points not finished stay pending), -1 if there was no memory for the lanes. */
static int run_group(const collision_problem *problems, collision_result *results, uint8_t *status,
                     const size_t *order, size_t count)
{
    const collision_problem *first = &problems[order[0]];
    group gr = {kind_of(first), 0, problems, results, status, order};
    gr.variant = variant_of(&gr.kind);
    int trace = first->hook != NULL, dop853 = first->dop853 != 0;
    if (first->law == LAW_BWSHC)
        return run_bwshc(&gr, count, first->stop, trace, dop853);
    if (first->dimension == 3)
        return run_kelvin_voigt_type(&gr, count, first->stop, trace, dop853);
    if (gr.kind.rough)
        return run_maxwell_type_rough(&gr, count, first->stop, trace, dop853);
    return run_maxwell_type(&gr, count, first->stop, trace, dop853);
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
    size_t begin = 0;
    while (begin < count) {
        size_t key = order[begin] >> index_bits, end = begin;
        while (end < count && order[end] >> index_bits == key) {
            order[end] &= index_mask;
            end++;
        }
        int rc = run_group(problems, results, status, order + begin, end - begin);
        if (rc != 0)
            return rc < 0 ? -1 : 0;
        begin = end;
    }
    return 0;
}
