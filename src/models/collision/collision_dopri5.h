/* collision_dopri5.h: the Dormand-Prince 5(4) method of the collision model, shared by
 * its two halves: the lanes (collision_lanes.c), which take the steps of many points side
 * by side, and the scalar part of one point (collision_dopri5.c), which acts on what a
 * step found (a rejection across a kink, an event to locate, a failure). */
#ifndef IMPACTSWEEP_COLLISION_DOPRI5_H
#define IMPACTSWEEP_COLLISION_DOPRI5_H

#include "collision.h"

/* The Butcher tableau (Dormand & Prince 1980): stages 2..7 (nodes 1/5, 3/10, 4/5, 8/9,
 * 1, 1; the system is autonomous, so they enter only through the rows), the 5th-order
 * weights are the last row (FSAL), and the error weights are 5th minus 4th order. */
static const double a21 = 1.0 / 5;
static const double a31 = 3.0 / 40, a32 = 9.0 / 40;
static const double a41 = 44.0 / 45, a42 = -56.0 / 15, a43 = 32.0 / 9;
static const double a51 = 19372.0 / 6561, a52 = -25360.0 / 2187, a53 = 64448.0 / 6561,
                    a54 = -212.0 / 729;
static const double a61 = 9017.0 / 3168, a62 = -355.0 / 33, a63 = 46732.0 / 5247, a64 = 49.0 / 176,
                    a65 = -5103.0 / 18656;
static const double b1 = 35.0 / 384, b3 = 500.0 / 1113, b4 = 125.0 / 192, b5 = -2187.0 / 6784,
                    b6 = 11.0 / 84;
static const double e1 = 71.0 / 57600, e3 = -71.0 / 16695, e4 = 71.0 / 1920, e5 = -17253.0 / 339200,
                    e6 = 22.0 / 525, e7 = -1.0 / 40;

#define DOPRI5_MAX_DIM 4

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

/* Where a point's integration is: taking steps, or going to an event by an exact step
 * (then, once more, to its Newton-corrected time). */
typedef enum { DOPRI5_STEPPING, DOPRI5_TO_EVENT, DOPRI5_TO_CORRECTED_EVENT } dopri5_stage;

/* The integration of one point, as the scalar code sees it. In the lanes, y, f, t, h,
 * sign and rejected live in the lane's vectors and are copied here only when the scalar
 * code acts on the point. */
typedef struct dopri5_point {
    collision_problem problem;
    collision_result *result;
    collision_tracker tracker;                   /* points at problem and result */
    double y[DOPRI5_MAX_DIM], f[DOPRI5_MAX_DIM]; /* the state at t and f(y) */
    double t, h;                                 /* time, and the next step to try */
    double h_start;                /* the first step, and the floor of the rough-step limit */
    double t_rough;                /* the last point where |u|^(p-1) was not smooth */
    double sign[COLLISION_EVENTS]; /* the side of each root: -1, 1, or 0 (not known yet) */
    int rejected;                  /* the last try was rejected */
    dopri5_stage stage;
    /* going to an event (h is then the exact step to it): the first root crossed, the
     * step it was found in, and each root's time in that step (-1: not crossed) */
    int event;
    double event_step;
    double event_time[COLLISION_EVENTS];
} dopri5_point;

/* Sets the point up at contact (tracker started, f, the roots' sides, the first step). */
void dopri5_point_start(dopri5_point *dp, const collision_problem *problem,
                        collision_result *result);

/* g1 below: the roots at (y1, f1) as collision_events gives them with sign_only (the
 * lanes compute them). */

/* The first rejection of a step from (y, f) to (y1, f1) of length h: the step to retry,
 * shrunk to `shrunk` or ended at a kink of the right-hand side that the step crosses. */
double dopri5_point_retry(const dopri5_point *dp, const double *y1, const double *f1,
                          const double *g1, double h, double shrunk);

/* An accepted step of length h to (y1, f1) (h_next the step to try next) whose end has
 * crossed a root, as the lanes saw it: the first root is located on the step's
 * interpolant, and the point's next step is the exact step to it (stage
 * DOPRI5_TO_EVENT, h its length), or, if no root was crossed after all, the point takes
 * the step as it is. */
int dopri5_point_events(dopri5_point *dp, const double *y1, const double *f1, const double *g1,
                        double h, double h_next);

/* The exact step to the event came to (ye, fe): another one to the Newton-corrected time
 * (stage DOPRI5_TO_CORRECTED_EVENT, h its length), or the tracker acts on the event and
 * the point goes on stepping from there. Returns 1 when the collision is over. */
int dopri5_point_at_event(dopri5_point *dp, const double *ye, const double *fe);

/* A failure (SOLVER_*): the result says so; returns the point's status. */
int dopri5_point_fail(dopri5_point *dp, solver_failure why);

#endif
