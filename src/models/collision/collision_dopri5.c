/* collision_dopri5.c: the scalar part of the collision model's Dormand-Prince 5(4)
 * integrator, for one point: what happens after a step the lanes (collision_lanes.c)
 * took. Events are located by solving g(y(t)) = 0 on the step's interpolant, then the
 * point goes there by an actual RK step of that length (which the lanes take), not along
 * the interpolant, so the state at an event is as accurate as any step end; a step
 * rejected across a kink of the right-hand side is retried up to the kink. */
#include "collision_dopri5.h"

#include <float.h>
#include <math.h>

static int crossing(int event, double before_sign, double after)
{
    int up = before_sign < 0.0 && after >= 0.0, down = before_sign > 0.0 && after <= 0.0;
    int dir = collision_root_direction[event];
    return (up && dir >= 0) ? 1 : (down && dir <= 0) ? -1 : 0;
}

/* Root `event` of collision_events at y alone, the same bits, without computing the
 * others (the force root's power only for the force root, f(y) only where needed). */
static double root_value(const collision_problem *pb, int event, const double *y)
{
    int maxwell = pb->dimension == 4;
    switch (event) {
    case COLLISION_ROOT_FORCE: {
        if (collision_force_follows_x(pb))
            return -y[0];
        double force = collision_force(pb, y), magnitude = fabs(force);
        if (pb->p != 1.0)
            magnitude = collision_root_power(magnitude, pb->p);
        return force < 0.0 ? -magnitude : magnitude;
    }
    case COLLISION_ROOT_VELOCITY:
        return collision_velocity(pb, y);
    case COLLISION_ROOT_KINK_W:
        return pb->law == LAW_BWM ? y[3] : 1.0;
    case COLLISION_ROOT_KINK_U:
        return pb->p != 1.0 ? (maxwell ? y[1] : y[0]) : 1.0;
    case COLLISION_ROOT_KINK_Z:
        return pb->law == LAW_BWM || pb->law == LAW_BWSHC ? y[2] : 1.0;
    default: { /* the force rate and rest need f(y) */
        double g[COLLISION_EVENTS];
        collision_events(pb, y, NULL, g, 1);
        return g[event];
    }
    }
}

/* The state component that root `event` is (as root_value has it, where the root can
 * cross), or -1 when it is a function of the whole state. */
static int root_component(const collision_problem *pb, int event)
{
    int maxwell = pb->dimension == 4;
    switch (event) {
    case COLLISION_ROOT_VELOCITY:
        return maxwell ? -1 : 1;
    case COLLISION_ROOT_KINK_W:
        return 3;
    case COLLISION_ROOT_KINK_U:
        return maxwell ? 1 : 0;
    case COLLISION_ROOT_KINK_Z:
        return 2;
    default:
        return -1;
    }
}

/* How closely the interpolant's root is found, as a share of the step. Every event is
 * then corrected by a Newton step on the exact state (roots of F, V and the kinks) or
 * enters the outputs only squared (a maximum of F, where F' = 0), so the time is right
 * to well below rounding either way; to 4 eps this took 14 evaluations of the force root
 * per event instead of 8. Events found within 4 times this of each other coincide. */
#define LOCATE_TOLERANCE 1e-9
#define COINCIDENT (4.0 * LOCATE_TOLERANCE)

/* The root in (0, h] of event g_event along the step from (y, f0) to (y1, f1), by the
 * Illinois method on the cubic Hermite interpolant. Every event marks an extremum of a
 * recorded quantity (V at F = 0, X at V = 0, F at F' = 0), so an error in the event
 * time enters the outputs only squared; the state there then comes from an exact
 * RK step (see the caller). */
static double locate(const collision_problem *pb, const double *y, const double *f0,
                     const double *y1, const double *f1, double h, int event, double g_lo,
                     double g_hi)
{
    const int d = pb->dimension, component = root_component(pb, event);
    double lo = 0.0, hi = 1.0, glo = g_lo, ghi = g_hi;
    int side = 0;
    for (int iter = 0; iter < 200 && hi - lo > LOCATE_TOLERANCE; iter++) {
        double s = (glo * hi - ghi * lo) / (glo - ghi);
        if (!(s > lo && s < hi))
            s = 0.5 * (lo + hi);
        double s2 = s * s, s3 = s2 * s;
        double h00 = 2 * s3 - 3 * s2 + 1, h10 = s3 - 2 * s2 + s, h01 = -2 * s3 + 3 * s2,
               h11 = s3 - s2;
        double ys[DOPRI5_MAX_DIM], g;
        if (component >= 0) { /* the one component the root is */
            int i = component;
            g = h00 * y[i] + h10 * h * f0[i] + h01 * y1[i] + h11 * h * f1[i];
        } else {
            for (int i = 0; i < d; i++)
                ys[i] = h00 * y[i] + h10 * h * f0[i] + h01 * y1[i] + h11 * h * f1[i];
            g = root_value(pb, event, ys);
        }
        if (g == 0.0)
            return s * h;
        if ((g < 0.0) == (glo < 0.0)) {
            lo = s;
            glo = g;
            if (side == -1)
                ghi *= 0.5; /* Illinois: halve the stale end */
            side = -1;
        } else {
            hi = s;
            ghi = g;
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
                          const double *y1, const double *f1, const double *g1, double h,
                          const double *sign)
{
    static const int kinks[] = {COLLISION_ROOT_VELOCITY, COLLISION_ROOT_KINK_W,
                                COLLISION_ROOT_KINK_U, COLLISION_ROOT_KINK_Z};
    double nearest = 0.0;
    for (size_t k = 0; k < sizeof kinks / sizeof *kinks; k++) {
        int e = kinks[k];
        if (e == COLLISION_ROOT_VELOCITY && pb->dimension == 4)
            continue; /* the Maxwell type's input is W, not V */
        if (sign[e] == 0.0 || (g1[e] < 0.0) == (sign[e] < 0.0) || g1[e] == 0.0)
            continue;
        double g0 = root_value(pb, e, y);
        double g_lo = g0 != 0.0 ? g0 : sign[e] * DBL_MIN;
        double at = locate(pb, y, f0, y1, f1, h, e, g_lo, root_value(pb, e, y1));
        if (nearest == 0.0 || at < nearest)
            nearest = at;
    }
    return nearest;
}

/* -g/g' for the event at (y, f = f(y)), from the exact derivatives along the flow:
 * F' is the force-rate root, V' = F, and the kink roots are state components. 0 for the
 * force-rate root itself. */
static double newton_correction(const collision_problem *pb, int event, const double *y,
                                const double *f)
{
    double g[COLLISION_EVENTS];
    collision_events(pb, y, f, g, 1); /* the force root is F itself */
    double value, rate;
    int maxwell = pb->dimension == 4;
    switch (event) {
    case COLLISION_ROOT_FORCE: /* -X (collision_force_follows_x) or F itself */
        value = g[COLLISION_ROOT_FORCE];
        rate = collision_force_follows_x(pb) ? -f[0] : g[COLLISION_ROOT_FORCE_RATE];
        break;
    case COLLISION_ROOT_VELOCITY:
        value = g[COLLISION_ROOT_VELOCITY];
        rate = g[COLLISION_ROOT_FORCE];
        break;
    case COLLISION_ROOT_KINK_W:
        value = y[3];
        rate = f[3];
        break;
    case COLLISION_ROOT_KINK_U:
        value = maxwell ? y[1] : y[0];
        rate = maxwell ? f[1] : f[0];
        break;
    case COLLISION_ROOT_KINK_Z:
        value = y[2];
        rate = f[2];
        break;
    default:
        return 0.0;
    }
    return rate != 0.0 && isfinite(value / rate) ? -value / rate : 0.0;
}

void dopri5_point_start(dopri5_point *dp, const collision_problem *problem,
                        collision_result *result)
{
    dp->problem = *problem;
    dp->result = result;
    const collision_problem *pb = &dp->problem;
    double g[COLLISION_EVENTS];
    collision_initial_state(pb, dp->y);
    collision_tracker_start(&dp->tracker, pb, result, dp->y);
    collision_rhs(pb, dp->y, dp->f);
    collision_events(pb, dp->y, dp->f, g, 1);
    /* At contact F, F', X, Z (or Y, Z) start at exactly 0: their side is not known
     * until the first step (0 is "not known": no crossing can start from it), and they
     * leave 0 at once, so no crossing is lost in the first step. */
    for (int e = 0; e < COLLISION_EVENTS; e++)
        dp->sign[e] = g[e] < 0.0 ? -1.0 : g[e] > 0.0 ? 1.0 : 0.0;
    /* a small first step: at contact |X|^(p-1) or |Y|^(p-1) is not smooth, and the
     * error estimate of a long first step across it is not to be trusted */
    dp->h_start = 1e-2 * sqrt(TOLERANCE_SAFETY * pb->rtol);
    dp->h = dp->h_start;
    dp->t = 0.0;
    dp->t_rough = 0.0;
    dp->rejected = 0;
    dp->stage = DOPRI5_STEPPING;
}

/* A step across a kink of the right-hand side fails for any length that reaches the
 * kink, and shrinking would creep up on it for a dozen steps: end the retry at the kink
 * instead (the next step then crosses it within a tiny distance, where the kink costs
 * nothing). Only if that is a real cut, so that the loop always makes progress. */
double dopri5_point_retry(const dopri5_point *dp, const double *y1, const double *f1,
                          const double *g1, double h, double shrunk)
{
    double kink = kink_inside(&dp->problem, dp->y, dp->f, y1, f1, g1, h, dp->sign);
    return kink > 0.2 * h && kink < 0.99 * h ? fmax(kink, shrunk) : shrunk;
}

/* The first root crossed along the step (-1 if none), its time in the step, and each
 * crossing root's time (or -1). */
static int first_root(const dopri5_point *dp, const double *y1, const double *f1, double h,
                      const double *g1, double *t_event, double *event_time)
{
    const collision_problem *pb = &dp->problem;
    int first = -1;
    for (int e = 0; e < COLLISION_EVENTS; e++) {
        event_time[e] = -1.0;
        if (!crossing(e, dp->sign[e], g1[e]))
            continue;
        double g_start = root_value(pb, e, dp->y);
        /* already on the far side at the step's start: a crossing left over from the
         * last event (coincident to rounding), which happens right here */
        int far_side = g_start != 0.0 && (g_start < 0.0) != (dp->sign[e] < 0.0);
        double g_lo = g_start != 0.0 ? g_start : dp->sign[e] * DBL_MIN;
        double dt =
            far_side ? 0.0 : locate(pb, dp->y, dp->f, y1, f1, h, e, g_lo, root_value(pb, e, y1));
        event_time[e] = dt;
        if (first < 0 || dt < *t_event) {
            first = e;
            *t_event = dt;
        }
    }
    return first;
}

int dopri5_point_events(dopri5_point *dp, const double *y1, const double *f1, const double *g1,
                        double h, double h_next)
{
    const collision_problem *pb = &dp->problem;
    const int d = pb->dimension;
    double t_event = 0.0;
    int first = first_root(dp, y1, f1, h, g1, &t_event, dp->event_time);
    if (first < 0) { /* none after all: the step as it is */
        for (int e = 0; e < COLLISION_EVENTS; e++)
            if (g1[e] != 0.0)
                dp->sign[e] = g1[e] < 0.0 ? -1.0 : 1.0;
        dp->t += h;
        for (int i = 0; i < d; i++) {
            dp->y[i] = y1[i];
            dp->f[i] = f1[i];
        }
        if (pb->hook)
            collision_hook_sample(pb->hook, dp->t, dp->y);
        dp->h = h_next;
        return 0;
    }
    /* Go to the event with a step of exactly that length (the lanes take it). */
    dp->event = first;
    dp->event_step = h;
    dp->h = t_event;
    dp->stage = DOPRI5_TO_EVENT;
    return 0;
}

/* At the event (state ye, fe = f(ye) after the exact step): the tracker acts on it, and
 * the crossing roots change sides. Returns 1 when the collision is over. */
static int arrive(dopri5_point *dp, const double *ye, const double *fe)
{
    const collision_problem *pb = &dp->problem;
    double t_event = dp->h, h = dp->event_step;
    /* Events that coincide (F' = 0 exactly where W = 0, for the Maxwell type) are
     * all reported, like CVODE does. */
    int crossed[COLLISION_EVENTS] = {0};
    for (int e = 0; e < COLLISION_EVENTS; e++)
        if (dp->event_time[e] >= 0.0 && dp->event_time[e] <= t_event + COINCIDENT * h)
            crossed[e] = crossing(e, dp->sign[e], dp->sign[e] > 0 ? -1.0 : 1.0);
    dp->t += t_event;
    dp->stage = DOPRI5_STEPPING;
    if (collision_tracker_event(&dp->tracker, dp->t, ye, crossed))
        return 1;
    /* The crossing roots are now on their far side, whatever the rounding says; the
     * others keep the side they were on before, so that one that crossed at this very
     * point too is found (at the start of the next step), not lost. */
    for (int e = 0; e < COLLISION_EVENTS; e++)
        if (crossed[e])
            dp->sign[e] = -dp->sign[e];
    for (int i = 0; i < pb->dimension; i++) {
        dp->y[i] = ye[i];
        dp->f[i] = fe[i];
    }
    if (crossed[COLLISION_ROOT_KINK_U] || crossed[COLLISION_ROOT_KINK_Z])
        dp->t_rough = dp->t;
    dp->h = fmax(h - t_event, 0.5 * h); /* restart close to the step that worked */
    return 0;
}

int dopri5_point_at_event(dopri5_point *dp, const double *ye, const double *fe)
{
    double t_event = dp->h, h = dp->event_step;
    if (dp->stage == DOPRI5_TO_EVENT) {
        /* One Newton correction of the event time on the exact state, so that the
         * interpolant's error does not stay in t_sep: one more exact step. */
        double correction = newton_correction(&dp->problem, dp->event, ye, fe);
        if (t_event > 0.0 && fabs(correction) < 0.1 * h && t_event + correction > 0.0) {
            dp->h = t_event + correction;
            dp->stage = DOPRI5_TO_CORRECTED_EVENT;
            return 0;
        }
    }
    return arrive(dp, ye, fe);
}

int dopri5_point_fail(dopri5_point *dp, solver_failure why)
{
    dp->result->outcome = OUTCOME_SOLVER_FAILURE;
    dp->result->solver_flag = why;
    return why == SOLVER_BUDGET      ? IS_POINT_FAILED_BUDGET
           : why == SOLVER_NONFINITE ? IS_POINT_FAILED_NONFINITE
                                     : IS_POINT_FAILED_SOLVER;
}
