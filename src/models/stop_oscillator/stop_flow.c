/* stop_flow.c: the exact flows of the stop oscillator (COD in modal form, CD as one
 * harmonic oscillator) and the first-contact search that cannot step over a crossing. */
#include "stop_oscillator.h"

#include <float.h>
#include <math.h>

void stop_system_init(stop_system *sys, double k, double k12, double s, double epsilon)
{
    sys->k = k;
    sys->k12 = k12;
    sys->s = s;
    sys->epsilon = epsilon;
    sys->w1 = sqrt(k);
    sys->w2 = sqrt(k + 2.0 * k12);
    sys->w_shm = sqrt(k + k12);
    sys->x2t = (k + k12) * s / k12;
    sys->x2eq = k12 * s / (k + k12);
}

double stop_energy(const stop_system *sys, const stop_state *x)
{
    double d = x->x1 - x->x2;
    return 0.5 * (x->v1 * x->v1 + x->v2 * x->v2) +
           0.5 * (sys->k * x->x1 * x->x1 + sys->k12 * d * d + sys->k * x->x2 * x->x2);
}

double stop_contact_force(const stop_system *sys, double x2)
{
    return -(sys->k + sys->k12) * sys->s + sys->k12 * x2;
}

void stop_modes_from_state(const stop_state *x, stop_modes *m)
{
    m->u = 0.5 * (x->x1 + x->x2);
    m->du = 0.5 * (x->v1 + x->v2);
    m->w = 0.5 * (x->x1 - x->x2);
    m->dw = 0.5 * (x->v1 - x->v2);
}

void stop_mode_amplitudes(const stop_system *sys, const stop_modes *m, double *a1, double *a2)
{
    *a1 = sqrt(m->u * m->u + (m->du / sys->w1) * (m->du / sys->w1)); /* hypot() is slow */
    *a2 = sqrt(m->w * m->w + (m->dw / sys->w2) * (m->dw / sys->w2));
}

/* sin and cos of x: a Taylor polynomial for small |x| (the short flights of a Zeno
 * sequence, where they are most of the work; truncation below 1e-20), libm otherwise. */
static inline void sin_cos(double x, double *sn, double *cs)
{
    if (fabs(x) < 0.25) {
        /* Horner in x^2 with the Taylor coefficients 1/n! (multiplications only) */
        double x2 = x * x;
        *sn = x * (1.0 + x2 * (-1.0 / 6 + x2 * (1.0 / 120 + x2 * (-1.0 / 5040 + x2 *
                  (1.0 / 362880 + x2 * (-1.0 / 39916800 + x2 * (1.0 / 6227020800.0)))))));
        *cs = 1.0 + x2 * (-0.5 + x2 * (1.0 / 24 + x2 * (-1.0 / 720 + x2 * (1.0 / 40320 + x2 *
                  (-1.0 / 3628800 + x2 * (1.0 / 479001600.0))))));
        return;
    }
    *sn = sin(x);
    *cs = cos(x);
}

/* One mode after time t: position, velocity, acceleration. */
static void mode_at(double q, double dq, double w, double t, double *pos, double *vel,
                    double *acc)
{
    double sn, cs;
    sin_cos(w * t, &sn, &cs);
    *pos = q * cs + dq / w * sn;
    *vel = dq * cs - q * w * sn;
    *acc = -w * w * *pos;
}

/* The COD state after t and x1'' there. One out-of-line function for every caller: the
 * compiler vectorises inlined copies differently (seen at -O3 -march=native), and the
 * state at a contact must be the very bits the flow gives there. */
static __attribute__((noinline)) void cod_at(const stop_system *sys, const stop_modes *m,
                                             double t, stop_state *x, double *x1_acc)
{
    double u, du, uu, w, dw, ww;
    mode_at(m->u, m->du, sys->w1, t, &u, &du, &uu);
    mode_at(m->w, m->dw, sys->w2, t, &w, &dw, &ww);
    x->x1 = u + w;
    x->v1 = du + dw;
    x->x2 = u - w;
    x->v2 = du - dw;
    *x1_acc = uu + ww;
}

void stop_cod_flow(const stop_system *sys, const stop_modes *m, double t, stop_state *x)
{
    double acc;
    cod_at(sys, m, t, x, &acc);
}

/* x1 - s and its first two derivatives at t, and the whole state there. */
static void gap_at(const stop_system *sys, const stop_modes *m, double t, double *g, double *dg,
                   double *ddg, stop_state *x)
{
    cod_at(sys, m, t, x, ddg);
    *g = x->x1 - sys->s;
    *dg = x->v1;
}

/* The smallest tau > 0 with g + dg tau + c tau^2 / 2 = 0 (g < 0), or INFINITY. */
static double first_root_of_bound(double g, double dg, double c)
{
    double disc = dg * dg - 2.0 * c * g;
    if (disc < 0.0)
        return INFINITY;
    if (dg > 0.0)
        return -2.0 * g / (dg + sqrt(disc)); /* the stable form */
    if (c > 0.0)
        return (-dg + sqrt(disc)) / c;
    return INFINITY; /* falling and bending down: the bound never comes back to 0 */
}

#define CONTACT_SEARCH_LIMIT 1000000

int stop_first_contact(const stop_system *sys, const stop_modes *m, double horizon,
                       double *t_hit, stop_state *at, int64_t *evaluations)
{
    double a1, a2;
    stop_mode_amplitudes(sys, m, &a1, &a2);
    if (a1 + a2 < sys->s)
        return 0; /* the orbit never reaches the stop */
    /* |g''| <= m2 and |g'''| <= m3 along the whole orbit. Over [t, t + h],
     * g'' <= min(m2, g''(t) + m3 h), so the quadratic with that curvature bounds g from
     * above there: until it reaches 0, g cannot. */
    const double m2 = sys->w1 * sys->w1 * a1 + sys->w2 * sys->w2 * a2;
    const double m3 = sys->w1 * sys->w1 * sys->w1 * a1 + sys->w2 * sys->w2 * sys->w2 * a2;
    const double reach = 64.0 * DBL_EPSILON * (fabs(sys->s) + a1 + a2);
    /* at t = 0 the modes give the gap directly, without evaluating the flow */
    double t = 0.0;
    double g = m->u + m->w - sys->s, dg = m->du + m->dw;
    double ddg = -sys->w1 * sys->w1 * m->u - sys->w2 * sys->w2 * m->w;
    *at = (stop_state){m->u + m->w, m->du + m->dw, m->u - m->w, m->du - m->dw};
    /* the first trial length: a little more than the flight under the present force when
     * it pulls mass one back (2 |v1| / F1: the short flights of a Zeno sequence) */
    double h = dg < 0.0 && ddg > 0.0 ? fmin(3.0 * -dg / ddg, 0.25 / sys->w2) : 0.25 / sys->w2;
    /* Starting at the stop (after a rebound, a release or a reset), the start itself is
     * no contact: one counts once mass one has been away, or when it comes back in. */
    int away = g < -reach;
    for (int iter = 0; iter < CONTACT_SEARCH_LIMIT; iter++) {
        if (t > 0.0 && g >= -reach && (away || dg > 0.0)) {
            *t_hit = t; /* at the stop, to rounding */
            return 1;
        }
        double c = fmin(m2, ddg + m3 * h);
        /* Until mass one has left the rounding band at the stop, the band itself is the
         * start: bounding from its edge lets the steps grow as the motion away develops
         * (after a tangential release, x1 - s ~ -t^3 stays 0 to rounding for a while). */
        double r = first_root_of_bound(away ? fmin(g, -DBL_MIN) : fmin(g, 0.0) - reach, dg, c);
        double step = fmin(r, h);
        if (t + step >= horizon) {
            if (r >= horizon - t)
                return 0; /* no contact can happen before the horizon */
            step = horizon - t;
        }
        t += step;
        gap_at(sys, m, t, &g, &dg, &ddg, at);
        (*evaluations)++;
        away |= g < -reach;
        if (g > 0.0 && away) { /* only rounding can get here: the bound says g <= 0 */
            *t_hit = t;
            return 1;
        }
        /* keep the trial length near the step the bound allows, so that m3 h stays
         * small near a contact (fast convergence), and let it grow away from one */
        h = r < h ? fmax(2.0 * r, DBL_MIN) : fmin(2.0 * h, 1.0 / sys->w1);
    }
    return -1;
}

void stop_cd_flow(const stop_system *sys, const stop_state *x, double t, stop_state *out)
{
    double w = sys->w_shm, X = x->x2 - sys->x2eq;
    double sn = sin(w * t), cs = cos(w * t);
    out->x1 = sys->s;
    out->v1 = 0.0;
    out->x2 = sys->x2eq + X * cs + x->v2 / w * sn;
    out->v2 = x->v2 * cs - X * w * sn;
}

double stop_cd_exit_time(const stop_system *sys, const stop_state *x)
{
    double w = sys->w_shm, X = x->x2 - sys->x2eq, Xt = sys->x2t - sys->x2eq;
    double R = hypot(X, x->v2 / w);
    if (R <= Xt)
        return 0.0; /* never above x2t: no contact phase at all */
    /* X(t) = R cos(w t - theta); it falls through Xt at phase acos(Xt / R) */
    double theta = atan2(x->v2 / w, X);
    double phase = fmod(theta + acos(Xt / R), 2.0 * M_PI);
    if (phase < 0.0)
        phase += 2.0 * M_PI;
    if (phase <= 4.0 * DBL_EPSILON)
        phase += 2.0 * M_PI; /* starting exactly on the exit: a whole cycle */
    return phase / w;
}
