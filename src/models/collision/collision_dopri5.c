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

/* The RMS of the error scaled by atol + rtol |y|, as CVODE weighs it. */
static double error_norm(const collision_problem *pb, const double *y, const double *y1,
                         const double *error)
{
    double sum = 0.0;
    for (int i = 0; i < pb->dimension; i++) {
        double scale = TOLERANCE_SAFETY * (pb->atol + pb->rtol * fmax(fabs(y[i]), fabs(y1[i])));
        double e = error[i] / scale;
        sum += e * e;
    }
    return sqrt(sum / pb->dimension);
}

/* The directions that matter, as in the CVODE driver: F falling, V either way,
 * F' falling. */
static const int event_direction[COLLISION_EVENTS] = {-1, 0, -1};

static int crossing(int event, double before_sign, double after)
{
    int up = before_sign < 0.0 && after >= 0.0, down = before_sign > 0.0 && after <= 0.0;
    int dir = event_direction[event];
    return (up && dir >= 0) ? 1 : (down && dir <= 0) ? -1 : 0;
}

/* The root in (0, h] of event g_event along the step from y, by the Illinois method
 * on an exact RK sub-step; g_lo is its value at 0 (sign only matters), g_hi at h. */
static double locate(const collision_problem *pb, const double *y, const double *f0, double h,
                     int event, double g_lo, double g_hi, int64_t *evaluations)
{
    double lo = 0.0, hi = h, glo = g_lo, ghi = g_hi;
    int side = 0;
    for (int iter = 0; iter < 100 && hi - lo > 4.0 * DBL_EPSILON * fabs(h); iter++) {
        double t = (glo * hi - ghi * lo) / (glo - ghi);
        if (!(t > lo && t < hi))
            t = 0.5 * (lo + hi);
        double ys[MAX_DIM], fs[MAX_DIM], es[MAX_DIM], g[COLLISION_EVENTS];
        dopri5_step(pb, y, f0, t, ys, fs, es);
        collision_events(pb, ys, g);
        (*evaluations)++;
        if (g[event] == 0.0)
            return t;
        if ((g[event] < 0.0) == (glo < 0.0)) {
            lo = t;
            glo = g[event];
            if (side == -1)
                ghi *= 0.5; /* Illinois: halve the stale end */
            side = -1;
        } else {
            hi = t;
            ghi = g[event];
            if (side == 1)
                glo *= 0.5;
            side = 1;
        }
    }
    return hi; /* the first point past the root: the crossing has happened there */
}

int collision_solve_dopri5(const collision_problem *pb, collision_result *r)
{
    const int d = pb->dimension;
    double y[MAX_DIM], f[MAX_DIM], g[COLLISION_EVENTS], sign[COLLISION_EVENTS];
    collision_tracker tracker;
    collision_initial_state(pb, y);
    collision_tracker_start(&tracker, pb, r, y);
    collision_rhs(pb, y, f);
    collision_events(pb, y, g);
    /* at contact F = 0 and F' = 0 (p > 1): both grow, so they count as positive */
    for (int e = 0; e < COLLISION_EVENTS; e++)
        sign[e] = g[e] < 0.0 ? -1.0 : 1.0;
    double t = 0.0, h = 0.1 * pow(TOLERANCE_SAFETY * pb->rtol, 0.2), previous_error = 1.0;
    int64_t sub_steps = 0;
    while (t < pb->t_max) {
        if (r->steps >= pb->max_steps) {
            r->outcome = OUTCOME_SOLVER_FAILURE;
            r->budget = 1;
            return -1;
        }
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
        if (err > 1.0) { /* rejected: shrink (never by more than 5) and retry */
            h *= fmax(0.2, 0.9 * pow(err, -0.2));
            continue;
        }
        r->steps++;
        /* PI step-size control (Gustafsson), as in Hairer's DOPRI5 */
        double factor = 0.9 * pow(fmax(err, 1e-10), -0.17) * pow(previous_error, 0.04);
        double h_next = h * fmin(5.0, fmax(0.2, factor));
        previous_error = fmax(err, 1e-4);

        double g1[COLLISION_EVENTS];
        collision_events(pb, y1, g1);
        int first = -1;
        double t_event = 0.0;
        for (int e = 0; e < COLLISION_EVENTS; e++) {
            if (!crossing(e, sign[e], g1[e]))
                continue;
            double dt = locate(pb, y, f, h, e, sign[e], g1[e], &sub_steps);
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
            h = h_next;
            continue;
        }
        /* Go to the event with a step of exactly that length, and act on it. */
        double ye[MAX_DIM], fe[MAX_DIM], ee[MAX_DIM], ge[COLLISION_EVENTS];
        dopri5_step(pb, y, f, t_event, ye, fe, ee);
        collision_events(pb, ye, ge);
        int crossed[COLLISION_EVENTS] = {0, 0, 0};
        crossed[first] = crossing(first, sign[first], sign[first] > 0 ? -1.0 : 1.0);
        t += t_event;
        if (collision_tracker_event(&tracker, t, ye, crossed))
            return 0;
        /* The crossing event is now on its far side, whatever the rounding of ge says;
         * the others keep the side they were on. */
        for (int e = 0; e < COLLISION_EVENTS; e++)
            if (e == first)
                sign[e] = -sign[e];
            else if (ge[e] != 0.0)
                sign[e] = ge[e] < 0.0 ? -1.0 : 1.0;
        for (int i = 0; i < d; i++) {
            y[i] = ye[i];
            f[i] = fe[i];
        }
        h = fmax(h - t_event, 0.5 * h); /* restart close to the step that worked */
    }
    collision_tracker_horizon(&tracker);
    return 0;
}
