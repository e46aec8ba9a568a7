/* collision_dopri5.c: one collision integrated with the Dormand-Prince 5(4) pair, on the
 * stack, with no allocation: for these 3- and 4-state systems CVODE's per-step overhead
 * dominates, and this is several times faster at the same accuracy (the tests hold the
 * two to the requested tolerance). Events are located by solving g(y(t)) = 0 with
 * y(t) from an actual RK step of the right length, not an interpolant, so the state at
 * an event is as accurate as any step end. */
#include "collision.h"

#include <float.h>
#include <math.h>

/* The Butcher tableau (Dormand & Prince 1980): stages 2..7 (nodes 1/5, 3/10, 4/5, 8/9,
 * 1, 1; the system is autonomous, so they enter only through the rows), the 5th-order
 * weights are the last row (FSAL), and the error weights are 5th minus 4th order. */
static const double a21 = 1.0 / 5;
static const double a31 = 3.0 / 40, a32 = 9.0 / 40;
static const double a41 = 44.0 / 45, a42 = -56.0 / 15, a43 = 32.0 / 9;
static const double a51 = 19372.0 / 6561, a52 = -25360.0 / 2187, a53 = 64448.0 / 6561,
                    a54 = -212.0 / 729;
static const double a61 = 9017.0 / 3168, a62 = -355.0 / 33, a63 = 46732.0 / 5247,
                    a64 = 49.0 / 176, a65 = -5103.0 / 18656;
static const double b1 = 35.0 / 384, b3 = 500.0 / 1113, b4 = 125.0 / 192, b5 = -2187.0 / 6784,
                    b6 = 11.0 / 84;
static const double e1 = 71.0 / 57600, e3 = -71.0 / 16695, e4 = 71.0 / 1920,
                    e5 = -17253.0 / 339200, e6 = 22.0 / 525, e7 = -1.0 / 40;

#define MAX_DIM 4

/* One step of size h from y (with f0 = f(y)): y1, f1 = f(y1) and the error estimate. */
static void dopri5_step(const collision_problem *pb, const double *y, const double *f0, double h,
                        double *y1, double *f1, double *error)
{
    const int d = pb->dimension;
    double k2[MAX_DIM], k3[MAX_DIM], k4[MAX_DIM], k5[MAX_DIM], k6[MAX_DIM], s[MAX_DIM] = {0};
    for (int i = 0; i < d; i++)
        s[i] = y[i] + h * a21 * f0[i];
    collision_rhs(pb, s, k2);
    for (int i = 0; i < d; i++)
        s[i] = y[i] + h * (a31 * f0[i] + a32 * k2[i]);
    collision_rhs(pb, s, k3);
    for (int i = 0; i < d; i++)
        s[i] = y[i] + h * (a41 * f0[i] + a42 * k2[i] + a43 * k3[i]);
    collision_rhs(pb, s, k4);
    for (int i = 0; i < d; i++)
        s[i] = y[i] + h * (a51 * f0[i] + a52 * k2[i] + a53 * k3[i] + a54 * k4[i]);
    collision_rhs(pb, s, k5);
    for (int i = 0; i < d; i++)
        s[i] = y[i] + h * (a61 * f0[i] + a62 * k2[i] + a63 * k3[i] + a64 * k4[i] + a65 * k5[i]);
    collision_rhs(pb, s, k6);
    for (int i = 0; i < d; i++)
        y1[i] = y[i] + h * (b1 * f0[i] + b3 * k3[i] + b4 * k4[i] + b5 * k5[i] + b6 * k6[i]);
    collision_rhs(pb, y1, f1);
    for (int i = 0; i < d; i++)
        error[i] = h * (e1 * f0[i] + e3 * k3[i] + e4 * k4[i] + e5 * k5[i] + e6 * k6[i] +
                        e7 * f1[i]);
}

/* The error in e comes out at about 0.4 times the local tolerance (measured against the
 * exact results of the classical laws), so the local tolerance is a quarter of the
 * accuracy asked of the outputs. */
#define TOLERANCE_SAFETY 0.25
/* atol is the accuracy asked of the state; like CVODE (whose local absolute tolerance
 * is 1e-3 atol), the local one is tighter: the states start at 0 (or -1), where the
 * solution is least smooth, and an error there stays in e (measured: the
 * Bouc-Wen-Maxwell e drifts by 10 rtol with a local atol of rtol/100; it is within rtol
 * with 1e-2 atol at the usual atol = rtol/100). */
#define ABSOLUTE_SAFETY 1e-2
/* For the Maxwell type with p > 1 the right-hand side holds |Y|^(p-1) and |Z|^(p-1),
 * which are not even Lipschitz at 0 for p < 2: just after such a point, or after
 * contact, steps stay below this share of the distance to it. */
#define ROUGH_STEP_SHARE 0.25

/* The RMS of the error scaled by atol + rtol |y|, as CVODE weighs it. */
static double error_norm(const collision_problem *pb, const double *y, const double *y1,
                         const double *error)
{
    double sum = 0.0, atol = ABSOLUTE_SAFETY * pb->atol;
    for (int i = 0; i < pb->dimension; i++) {
        double a = fabs(y[i]), b = fabs(y1[i]); /* (fmax() is a libm call here) */
        double scale = TOLERANCE_SAFETY * (atol + pb->rtol * (a > b ? a : b));
        double e = error[i] / scale;
        sum += e * e;
    }
    return sqrt(sum / pb->dimension);
}

/* The directions that matter, as in the CVODE driver: F falling, V either way,
 * F' falling, the kink points either way, coming to rest. */
static const int event_direction[COLLISION_EVENTS] = {-1, 0, -1, 0, 0, 0, -1};

static int crossing(int event, double before_sign, double after)
{
    int up = before_sign < 0.0 && after >= 0.0, down = before_sign > 0.0 && after <= 0.0;
    int dir = event_direction[event];
    return (up && dir >= 0) ? 1 : (down && dir <= 0) ? -1 : 0;
}

/* The root in (0, h] of event g_event along the step from (y, f0) to (y1, f1), by the
 * Illinois method on the cubic Hermite interpolant. Every event marks an extremum of a
 * recorded quantity (V at F = 0, X at V = 0, F at F' = 0), so an error in the event
 * time enters the outputs only squared; the state there then comes from an exact
 * RK step (see the caller). */
static double locate(const collision_problem *pb, const double *y, const double *f0,
                     const double *y1, const double *f1, double h, int event, double g_lo,
                     double g_hi)
{
    const int d = pb->dimension;
    double lo = 0.0, hi = 1.0, glo = g_lo, ghi = g_hi;
    int side = 0;
    for (int iter = 0; iter < 200 && hi - lo > 4.0 * DBL_EPSILON; iter++) {
        double s = (glo * hi - ghi * lo) / (glo - ghi);
        if (!(s > lo && s < hi))
            s = 0.5 * (lo + hi);
        double s2 = s * s, s3 = s2 * s;
        double h00 = 2 * s3 - 3 * s2 + 1, h10 = s3 - 2 * s2 + s, h01 = -2 * s3 + 3 * s2,
               h11 = s3 - s2;
        double ys[MAX_DIM], g[COLLISION_EVENTS];
        for (int i = 0; i < d; i++)
            ys[i] = h00 * y[i] + h10 * h * f0[i] + h01 * y1[i] + h11 * h * f1[i];
        collision_events(pb, ys, NULL, g, event != 0); /* pow() only for the F event */
        if (g[event] == 0.0)
            return s * h;
        if ((g[event] < 0.0) == (glo < 0.0)) {
            lo = s;
            glo = g[event];
            if (side == -1)
                ghi *= 0.5; /* Illinois: halve the stale end */
            side = -1;
        } else {
            hi = s;
            ghi = g[event];
            if (side == 1)
                glo *= 0.5;
            side = 1;
        }
    }
    return hi * h; /* the first point past the root: the crossing has happened there */
}

/* Where, as a share of the step, the trial step from (y, f0) to (y1, f1) crosses a
 * point where the right-hand side has a kink (V for the Kelvin-Voigt type, W, X or Y,
 * Z), estimated on its interpolant; 0 if it crosses none. */
static double kink_inside(const collision_problem *pb, const double *y, const double *f0,
                          const double *y1, const double *f1, double h, const double *sign)
{
    static const int kinks[] = {1, 3, 4, 5};
    double g1[COLLISION_EVENTS], g0[COLLISION_EVENTS], nearest = 0.0;
    collision_events(pb, y1, f1, g1, 1);
    collision_events(pb, y, f0, g0, 0);
    for (size_t k = 0; k < sizeof kinks / sizeof *kinks; k++) {
        int e = kinks[k];
        if (e == 1 && pb->dimension == 4)
            continue; /* the Maxwell type's input is W, not V */
        if (sign[e] == 0.0 || (g1[e] < 0.0) == (sign[e] < 0.0) || g1[e] == 0.0)
            continue;
        double g_end[COLLISION_EVENTS];
        collision_events(pb, y1, f1, g_end, 0);
        double g_lo = g0[e] != 0.0 ? g0[e] : sign[e] * DBL_MIN;
        double at = locate(pb, y, f0, y1, f1, h, e, g_lo, g_end[e]);
        if (nearest == 0.0 || at < nearest)
            nearest = at;
    }
    return nearest;
}

/* -g/g' for the event at (y, f = f(y)), from the exact derivatives along the flow:
 * F' is g[2], V' = F, and the kink events are state components. 0 for F' = 0. */
static double newton_correction(const collision_problem *pb, int event, const double *y,
                                const double *f)
{
    double g[COLLISION_EVENTS];
    collision_events(pb, y, f, g, 1); /* g[0] = F itself */
    double value, rate;
    switch (event) {
    case 0: /* g[0] = -X (collision_force_follows_x) or F itself */
        value = g[0];
        rate = collision_force_follows_x(pb) ? -f[0] : g[2];
        break;
    case 1: value = g[1]; rate = g[0]; break;
    case 3: value = y[3]; rate = f[3]; break;
    case 4: value = pb->dimension == 4 ? y[1] : y[0]; rate = pb->dimension == 4 ? f[1] : f[0]; break;
    case 5: value = y[2]; rate = f[2]; break;
    default: return 0.0;
    }
    return rate != 0.0 && isfinite(value / rate) ? -value / rate : 0.0;
}

int collision_solve_dopri5(const collision_problem *pb, collision_result *r)
{
    const int d = pb->dimension;
    double y[MAX_DIM], f[MAX_DIM], g[COLLISION_EVENTS], sign[COLLISION_EVENTS];
    collision_tracker tracker;
    collision_initial_state(pb, y);
    collision_tracker_start(&tracker, pb, r, y);
    collision_rhs(pb, y, f);
    collision_events(pb, y, f, g, 1);
    /* At contact F, F', X, Z (or Y, Z) start at exactly 0: their side is not known
     * until the first step (0 is "not known": no crossing can start from it), and they
     * leave 0 at once, so no crossing is lost in the first step. */
    for (int e = 0; e < COLLISION_EVENTS; e++)
        sign[e] = g[e] < 0.0 ? -1.0 : g[e] > 0.0 ? 1.0 : 0.0;
    /* a small first step: at contact |X|^(p-1) or |Y|^(p-1) is not smooth, and the
     * error estimate of a long first step across it is not to be trusted */
    const double h_start = 1e-2 * sqrt(TOLERANCE_SAFETY * pb->rtol);
    double t = 0.0, h = h_start, t_rough = 0.0;
    int rejected = 0;
    int64_t tries = 0;
    while (t < pb->t_max) {
        if (++tries % COLLISION_POLL_STEPS == 0 && pb->stop && *pb->stop) {
            r->stopped = 1;
            return -1;
        }
        if (r->steps >= pb->max_steps) {
            r->outcome = OUTCOME_SOLVER_FAILURE;
            r->budget = 1;
            return -1;
        }
        /* Just after a point where |u|^(p-1) is not smooth, the solution behaves like
         * |t - t_rough|^p and an error estimate of a step as long as that distance is
         * not to be trusted: keep steps short against it. */
        if (pb->dimension == 4 && pb->p != 1.0) /* the Maxwell type: see ROUGH_STEP_SHARE */
            h = fmin(h, h_start + ROUGH_STEP_SHARE * (t - t_rough));
        if (t + h > pb->t_max)
            h = pb->t_max - t;
        double y1[MAX_DIM], f1[MAX_DIM], error[MAX_DIM];
        dopri5_step(pb, y, f, h, y1, f1, error);
        double err = error_norm(pb, y, y1, error);
        if (!isfinite(err) || h < 16.0 * DBL_EPSILON * fmax(1.0, t)) {
            r->outcome = OUTCOME_SOLVER_FAILURE;
            r->solver_flag = -1; /* step size underflow or a non-finite state */
            return -1;
        }
        /* err^(-1/4) by two square roots: the controller needs no more precision than
         * that, and pow() would be a good part of the cost of a step */
        double factor = 0.9 / sqrt(sqrt(fmax(err, 1e-12)));
        if (err > 1.0) { /* rejected: shrink (never by more than 5) and retry */
            /* A step across a kink of the right-hand side fails for any length that
             * reaches the kink, and shrinking would creep up on it for a dozen steps:
             * end the retry at the kink instead (the next step then crosses it within a
             * tiny distance, where the kink costs nothing). Once per step, and only if
             * that is a real cut, so that the loop always makes progress. */
            double kink = rejected ? 0.0 : kink_inside(pb, y, f, y1, f1, h, sign);
            double shrunk = h * fmax(0.2, factor);
            h = kink > 0.2 * h && kink < 0.99 * h ? fmax(kink, shrunk) : shrunk;
            rejected = 1;
            continue;
        }
        r->steps++;
        double h_next = h * fmin(rejected ? 1.0 : 5.0, fmax(0.2, factor)); /* no growth
                                                                          after a rejection */
        rejected = 0;

        double g1[COLLISION_EVENTS];
        collision_events(pb, y1, f1, g1, 1);
        int first = -1;
        double t_event = 0.0, event_time[COLLISION_EVENTS];
        for (int e = 0; e < COLLISION_EVENTS; e++) {
            event_time[e] = -1.0;
            if (!crossing(e, sign[e], g1[e]))
                continue;
            double g_start[COLLISION_EVENTS], g_end[COLLISION_EVENTS];
            collision_events(pb, y, f, g_start, 0);
            collision_events(pb, y1, f1, g_end, 0);
            /* already on the far side at the step's start: a crossing left over from the
             * last event (coincident to rounding), which happens right here */
            int far_side = g_start[e] != 0.0 && (g_start[e] < 0.0) != (sign[e] < 0.0);
            double g_lo = g_start[e] != 0.0 ? g_start[e] : sign[e] * DBL_MIN;
            double dt = far_side ? 0.0 : locate(pb, y, f, y1, f1, h, e, g_lo, g_end[e]);
            event_time[e] = dt;
            if (first < 0 || dt < t_event) {
                first = e;
                t_event = dt;
            }
        }
        if (first < 0) {
            for (int e = 0; e < COLLISION_EVENTS; e++)
                if (g1[e] != 0.0)
                    sign[e] = g1[e] < 0.0 ? -1.0 : 1.0;
            t += h;
            for (int i = 0; i < d; i++) {
                y[i] = y1[i];
                f[i] = f1[i];
            }
            if (pb->hook)
                collision_hook_sample(pb->hook, t, y);
            h = h_next;
            continue;
        }
        /* Go to the event with a step of exactly that length, and act on it. */
        double ye[MAX_DIM], fe[MAX_DIM], ee[MAX_DIM];
        dopri5_step(pb, y, f, t_event, ye, fe, ee);
        /* One Newton correction of the event time on the exact state, so that the
         * interpolant's error does not stay in t_sep. */
        double correction = newton_correction(pb, first, ye, fe);
        if (t_event > 0.0 && fabs(correction) < 0.1 * h && t_event + correction > 0.0) {
            t_event += correction;
            dopri5_step(pb, y, f, t_event, ye, fe, ee);
        }
        /* Events that coincide (F' = 0 exactly where W = 0, for the Maxwell type) are
         * all reported, like CVODE does. */
        int crossed[COLLISION_EVENTS] = {0};
        for (int e = 0; e < COLLISION_EVENTS; e++)
            if (event_time[e] >= 0.0 && event_time[e] <= t_event + 1e-12 * h)
                crossed[e] = crossing(e, sign[e], sign[e] > 0 ? -1.0 : 1.0);
        t += t_event;
        if (collision_tracker_event(&tracker, t, ye, crossed))
            return 0;
        /* The crossing events are now on their far side, whatever the rounding of ge
         * says; the others keep the side they were on before, so that one that crossed
         * at this very point too is found (at the start of the next step), not lost. */
        for (int e = 0; e < COLLISION_EVENTS; e++)
            if (crossed[e])
                sign[e] = -sign[e];
        for (int i = 0; i < d; i++) {
            y[i] = ye[i];
            f[i] = fe[i];
        }
        if (crossed[4] || crossed[5])
            t_rough = t;
        h = fmax(h - t_event, 0.5 * h); /* restart close to the step that worked */
    }
    collision_tracker_horizon(&tracker, t, y);
    return 0;
}
