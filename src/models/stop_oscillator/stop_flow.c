/* stop_flow.c: the exact flows of the stop oscillator (COD in modal form, CD as one
 * harmonic oscillator) and the first-contact search that cannot step over a crossing. */
#include "stop_oscillator.h"

#include <float.h>
#include <math.h>

#include "stop_math.h"
#include "stop_search.h"

void stop_system_init(stop_system *sys, double k, double k12, double s, double epsilon)
{
    sys->k = k;
    sys->k12 = k12;
    sys->s = s;
    sys->epsilon = epsilon;
    sys->w1 = sqrt(k);
    sys->w2 = sqrt(k + 2.0 * k12);
    sys->inv_w1 = 1.0 / sys->w1;
    sys->inv_w2 = 1.0 / sys->w2;
    sys->w_shm = sqrt(k + k12);
    sys->x2t = (k + k12) * s / k12;
    sys->x2eq = k12 * s / (k + k12);
}

double stop_energy(const stop_system *sys, const stop_state *x)
{
    return stop_energy_inline(sys, x);
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
    /* hypot() is slow; dq / w as stop_cod_init has it */
    double u_a = m->du * sys->inv_w1, w_a = m->dw * sys->inv_w2;
    *a1 = sqrt(m->u * m->u + u_a * u_a);
    *a2 = sqrt(m->w * m->w + w_a * w_a);
}

void stop_cod_flow(const stop_system *sys, const stop_modes *m, double t, stop_state *x)
{
    stop_cod c;
    double acc, jerk;
    stop_cod_init(sys, m, &c);
    stop_cod_at(&c, t, x, &acc, &jerk);
}

int stop_first_contact(const stop_system *sys, const stop_modes *m, double horizon,
                       double *t_hit, stop_state *at, int64_t *evaluations)
{
    stop_search S;
    if (stop_search_init(sys, m, horizon, &S) == STOP_SEARCH_NONE)
        return 0; /* the orbit never reaches the stop */
    int rc = stop_search_run(&S);
    *evaluations += S.evaluations;
    *at = S.at;
    if (rc == STOP_SEARCH_HIT)
        *t_hit = S.t;
    return rc == STOP_SEARCH_STALLED ? -1 : rc;
}

void stop_cd_flow(const stop_system *sys, const stop_state *x, double t, stop_state *out)
{
    double w = sys->w_shm, X = x->x2 - sys->x2eq;
    double sn, cs;
    stop_sincos(w * t, &sn, &cs);
    out->x1 = sys->s;
    out->v1 = 0.0;
    out->x2 = sys->x2eq + X * cs + x->v2 / w * sn;
    out->v2 = x->v2 * cs + -(X * w) * sn; /* additions only: stop_search.h */
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
