/* forced_stop_sim.c: one run of the forced impact oscillator, impact by impact: free
 * flights in closed form (forced_stop_flow.c), Newton's impact law, chatter sequences
 * ended by a reset, sticking while the force pushes into the stop, and a stroboscopic
 * record (the state at every forcing period) from which the final motion's period is read.
 *
 * Rules, in order:
 * - a flight whose envelope stays below the stop is proved free for ever: regime free;
 * - an impact at speed v with the force F = A cos(phase) - delta > 0 pushing into the stop
 *   starts a chatter: the flights that follow last 2 r^k v / F, so the rest of the
 *   sequence lasts tail = 2 r v / ((1 - r) F). Once tail is below zeno_tail forcing
 *   periods (or the flights no longer rise clear of the rounding at the stop) the
 *   sequence is reset: the mass is put at rest on the stop at the end of the tail, stuck
 *   there while F > 0, let go where F falls through 0 (phase acos(delta / A));
 * - after the horizon the last 2 p stroboscopic states are compared: the smallest p
 *   (<= max_period) with every state equal to the one p periods before, to 1e-8 of the
 *   motion's scale |delta| + X, is the period; the final motion is `chatter` if it comes
 *   to rest on the stop within that period, `periodic` otherwise, and `undecided` when no
 *   period is found (a chaotic motion, or a transient longer than the horizon). */
#include "forced_stop.h"

#include <float.h>
#include <math.h>

#define PERIOD_TOLERANCE 1e-8 /* of the motion's scale: the stroboscopic states' agreement */
#define ENERGY_ALLOWANCE 256.0 /* units of rounding of the flight's scale squared */
#define STOP_POLL 256          /* events between looks at the stop flag */

typedef struct sim {
    const fs_system *sys;
    const fs_options *opt;
    fs_result *res;
    double x, v, phase;   /* the state and the forcing phase omega t mod 2 pi */
    int64_t n;            /* forcing periods completed */
    int stuck;            /* at rest on the stop, held there by the force */
    int64_t at_stop;      /* resets plus periods begun stuck: the motion came to rest */
    double ring_x[FS_RING], ring_v[FS_RING];
    int64_t ring_impacts[FS_RING], ring_at_stop[FS_RING];
} sim;

static void fail(sim *s, fs_check check)
{
    if (s->res->check == FS_CHECK_NONE)
        s->res->check = check;
}

static void record(sim *s)
{
    int i = (int)(s->n % FS_RING);
    s->ring_x[i] = s->x;
    s->ring_v[i] = s->v;
    s->ring_impacts[i] = s->res->impacts;
    s->ring_at_stop[i] = s->at_stop;
}

/* The period ends with the state (x, v): the stroboscopic sample. reach: the rounding
 * band at the stop of the flight that got there. */
static void next_period(sim *s, double x, double v, double reach)
{
    if (!isfinite(x) || !isfinite(v)) {
        fail(s, FS_CHECK_NONFINITE);
        return;
    }
    if (x - s->sys->delta > 2.0 * reach) /* see the contact's check in fs_simulate */
        fail(s, FS_CHECK_PENETRATION);
    s->x = x;
    s->v = v;
    s->phase = 0.0;
    s->n++;
    if (s->stuck)
        s->at_stop++;
    record(s);
}

/* Time dt passes with the mass at rest on the stop (a chatter's tail). */
static void rest_at_stop(sim *s, double dt)
{
    s->phase += s->sys->omega * dt;
    while (s->phase >= 2.0 * M_PI && s->n < s->opt->periods && s->res->check == FS_CHECK_NONE) {
        double rest = s->phase - 2.0 * M_PI;
        next_period(s, s->sys->delta, 0.0, 0.0);
        s->phase = rest;
    }
    if (s->phase >= 2.0 * M_PI)
        s->phase = 0.0; /* the horizon was reached */
}

/* At rest on the stop: held there while the force pushes into it. */
static void stick_or_fly(sim *s)
{
    s->x = s->sys->delta;
    s->v = 0.0;
    double F = s->sys->A * cos(s->phase) - s->sys->delta;
    s->stuck = F > 0.0;
    if (s->stuck)
        s->res->sticks++;
}

/* Stuck on the stop: wait for the force to let go (at phase_release, where it falls
 * through 0), recording the periods that pass. */
static void wait_for_release(sim *s)
{
    const double release = s->sys->phase_release;
    if (isinf(release)) { /* delta <= -A: held for ever */
        while (s->n < s->opt->periods && s->res->check == FS_CHECK_NONE)
            next_period(s, s->sys->delta, 0.0, 0.0);
        return;
    }
    /* held means cos(phase) > delta / A: phase < release or phase > 2 pi - release */
    if (s->phase > M_PI) {
        next_period(s, s->sys->delta, 0.0, 0.0);
        if (s->n >= s->opt->periods)
            return;
    }
    if (s->phase < release)
        s->phase = release; /* else rounding held it just past the release: let go now */
    s->stuck = 0;
    s->x = s->sys->delta;
    s->v = 0.0;
}

/* An arrival at the stop at speed v_in (>= 0) at the current phase. */
static void impact(sim *s, double v_in, double reach)
{
    const fs_system *sys = s->sys;
    fs_result *res = s->res;
    res->impacts++;
    if (res->impacts > s->opt->max_impacts) {
        fail(s, FS_CHECK_BUDGET);
        return;
    }
    res->v_last = v_in;
    res->phase_last = s->phase;
    if (s->n >= s->opt->periods / 2 && v_in > res->v_max_late)
        res->v_max_late = v_in;
    double v_out = sys->r * v_in;
    double F = sys->A * cos(s->phase) - sys->delta;
    if (F > 0.0) {
        double tail = sys->r < 1.0 ? 2.0 * v_out / ((1.0 - sys->r) * F) : INFINITY;
        /* Flights that rise less than a few rounding bands are timed by rounding: the
         * search may find the return at the far edge of the band (+ reach), which gives
         * back 4 F reach of v^2 a flight and would keep the sequence going at
         * v^2 = 4 F reach r^2 / (1 - r^2) for ever. Below that level (at most 1e4 bands,
         * 1e-10 of the scale: elastic or nearly elastic impacts only lose their speed to
         * damping, slowly) the sequence is over. */
        double excursion = v_out * v_out / (2.0 * F);
        double band = sys->r < 1.0 ? fmin(4.0 / (1.0 - sys->r * sys->r), 1e4) : 1e4;
        if (tail / sys->T < s->opt->zeno_tail || excursion <= band * reach) {
            res->resets++;
            s->at_stop++;
            rest_at_stop(s, isfinite(tail) ? tail : 0.0);
            stick_or_fly(s);
            return;
        }
    }
    s->x = sys->delta;
    s->v = -v_out;
}

/* The smallest period p <= max_period whose last p stroboscopic states each equal the one
 * p periods before, or 0. */
static int find_period(const sim *s)
{
    const double tol_x = PERIOD_TOLERANCE * s->sys->scale;
    const double tol_v = tol_x * fmax(1.0, s->sys->omega);
    for (int p = 1; p <= s->opt->max_period && 2 * (int64_t)p <= s->n; p++) {
        int same = 1;
        for (int i = 0; i < p && same; i++) {
            int a = (int)((s->n - i) % FS_RING), b = (int)((s->n - i - p) % FS_RING);
            same = fabs(s->ring_x[a] - s->ring_x[b]) <= tol_x &&
                   fabs(s->ring_v[a] - s->ring_v[b]) <= tol_v;
        }
        if (same)
            return p;
    }
    return 0;
}

void fs_simulate(const fs_system *sys, double x0, double v0, const fs_options *opt,
                 fs_result *res)
{
    *res = (fs_result){.regime = FS_REGIME_UNDECIDED,
                       .check = FS_CHECK_NONE,
                       .v_last = NAN,
                       .phase_last = NAN,
                       .v_max_late = 0.0};
    sim s = {.sys = sys, .opt = opt, .res = res, .x = x0, .v = v0, .phase = 0.0};
    record(&s);
    const double two_pi = 2.0 * M_PI;
    int64_t evaluations = 0;
    unsigned events = 0;
    /* starting on the stop: an arrival if moving into it, else held or let go */
    if (x0 == sys->delta) {
        if (v0 > 0.0)
            impact(&s, v0, 64.0 * DBL_EPSILON * sys->scale);
        else if (v0 == 0.0)
            stick_or_fly(&s);
    }
    while (s.n < opt->periods && res->check == FS_CHECK_NONE) {
        if (++events % STOP_POLL == 0 && opt->stop && *opt->stop) {
            res->check = FS_CHECK_STOPPED;
            return;
        }
        if (s.stuck) {
            wait_for_release(&s);
            continue;
        }
        fs_flight f;
        fs_flight_start(sys, s.x, s.v, s.phase, &f);
        if (!isfinite(f.amp)) {
            fail(&s, FS_CHECK_NONFINITE);
            break;
        }
        if (fs_flight_is_free(sys, &f)) {
            res->regime = FS_REGIME_FREE;
            break;
        }
        double horizon = (two_pi - s.phase) / sys->omega;
        double hit, x, v, acc;
        int found = fs_first_contact(sys, &f, horizon, &hit, &x, &v, &evaluations);
        if (found < 0) {
            fail(&s, FS_CHECK_SEARCH);
            break;
        }
        if (found == 0) {
            hit = horizon;
            fs_flight_at(sys, &f, hit, &x, &v, &acc);
        }
        /* the relative energy never rises in a flight (constant when zeta = 0) */
        double phase_end = found ? s.phase + sys->omega * hit : two_pi;
        double w0 = 0.5 * (f.y0 * f.y0 + f.dy0 * f.dy0);
        double w1 = fs_relative_energy(sys, x, v, phase_end);
        double size = f.amp + sys->X * (1.0 + sys->omega) + fabs(sys->delta) + fabs(x) + fabs(v);
        if (!(w1 <= w0 + ENERGY_ALLOWANCE * DBL_EPSILON * size * size)) {
            fail(&s, isfinite(w1) ? FS_CHECK_ENERGY : FS_CHECK_NONFINITE);
            break;
        }
        if (!found || phase_end >= two_pi) {
            next_period(&s, x, v, f.reach);
            if (!found || s.n >= opt->periods)
                continue;
        } else {
            s.phase = phase_end;
        }
        /* A contact: on the stop to rounding (the search lets a flight that has not left
         * the rounding band reach its far edge, + reach), arriving, or grazing it: found
         * in the band just past a maximum of x, where |v| <= sqrt(2 |x''| 2 reach). */
        double graze = sqrt(4.0 * f.reach * (f.amp + sys->X * sys->omega * sys->omega));
        if (x - sys->delta > 2.0 * f.reach || v < -graze) {
            fail(&s, FS_CHECK_PENETRATION);
            break;
        }
        impact(&s, fmax(v, 0.0), f.reach);
    }
    res->periods_done = s.n;
    if (res->check != FS_CHECK_NONE) {
        res->regime = FS_REGIME_FAILED;
        return;
    }
    if (res->regime == FS_REGIME_FREE)
        return;
    int p = find_period(&s);
    if (p == 0)
        return; /* undecided */
    int now = (int)(s.n % FS_RING), before = (int)((s.n - p) % FS_RING);
    res->period = p;
    res->impacts_per_period = s.ring_impacts[now] - s.ring_impacts[before];
    res->regime = s.ring_at_stop[now] > s.ring_at_stop[before] ? FS_REGIME_CHATTER
                                                               : FS_REGIME_PERIODIC;
}
