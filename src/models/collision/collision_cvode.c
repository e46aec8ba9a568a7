/* collision_cvode.c: one collision integrated with SUNDIALS CVODE (Adams or BDF), the
 * events located by CVODE's root finding. One integrator per worker and per state size,
 * created on first use and re-initialised for every point (no allocation per point). */
#include "collision.h"

#include <cvode/cvode.h>
#include <math.h>
#include <nvector/nvector_serial.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sundials/sundials_context.h>
#include <sunlinsol/sunlinsol_dense.h>
#include <sunmatrix/sunmatrix_dense.h>
#include <sunnonlinsol/sunnonlinsol_fixedpoint.h>

/* CVODE's error in e is 1e2 to 1e3 times its local tolerance on these problems
 * (measured against the exact Hunt-Crossley, Hertz, Kelvin-Voigt and Maxwell results,
 * worst for Hunt-Crossley's flat force zero), so the local tolerances are this much
 * tighter than the accuracy asked of the outputs; 1e-14 is as tight as they go. */
#define TOLERANCE_SAFETY 1e-3
#define TIGHTEST_RTOL 1e-14

/* One CVODE memory for a (method, state size) pair. */
typedef struct solver {
    void *mem;
    N_Vector y;
    SUNMatrix matrix;
    SUNLinearSolver linear;
    SUNNonlinearSolver fixed_point;
} solver;

struct collision_cvode {
    SUNContext context;
    solver solvers[2][2]; /* [bdf][dimension == 4] */
    const collision_problem *problem;
    int last_error;
};

/* A non-finite derivative is reported (CVODE's recoverable error: it retries with a
 * smaller step, then fails with a RHSFUNC flag, the point's status failed_nonfinite). */
static int rhs(realtype t, N_Vector y, N_Vector ydot, void *data)
{
    (void)t;
    const collision_cvode *cv = data;
    double *dydt = N_VGetArrayPointer(ydot);
    collision_rhs(cv->problem, N_VGetArrayPointer(y), dydt);
    int finite = 1;
    for (int i = 0; i < cv->problem->dimension; i++)
        finite &= isfinite(dydt[i]) != 0;
    return finite ? 0 : 1;
}

static int roots(realtype t, N_Vector y, realtype *g, void *data)
{
    (void)t;
    const collision_cvode *cv = data;
    collision_events(cv->problem, N_VGetArrayPointer(y), NULL, g, 0);
    return 0;
}

/* CVODE would print its failures; they become the point's status instead. */
static void quiet(int code, const char *module, const char *function, char *message, void *data)
{
    (void)module, (void)function, (void)message;
    ((collision_cvode *)data)->last_error = code;
}

int collision_cvode_create(collision_cvode **out)
{
    collision_cvode *cv = calloc(1, sizeof *cv);
    if (!cv)
        return -1;
    if (SUNContext_Create(NULL, &cv->context) != 0) {
        free(cv);
        return -2;
    }
    *out = cv;
    return 0;
}

static void solver_free(solver *s)
{
    if (s->mem)
        CVodeFree(&s->mem);
    if (s->fixed_point)
        SUNNonlinSolFree(s->fixed_point);
    if (s->linear)
        SUNLinSolFree(s->linear);
    if (s->matrix)
        SUNMatDestroy(s->matrix);
    if (s->y)
        N_VDestroy(s->y);
    memset(s, 0, sizeof *s);
}

void collision_cvode_free(collision_cvode **cvode)
{
    if (!cvode || !*cvode)
        return;
    collision_cvode *cv = *cvode;
    for (int b = 0; b < 2; b++)
        for (int d = 0; d < 2; d++)
            solver_free(&cv->solvers[b][d]);
    SUNContext_Free(&cv->context);
    free(cv);
    *cvode = NULL;
}

/* Creates the CVODE memory for this method and size on first use: 0, SOLVER_SETUP when
 * SUNDIALS could not allocate, or CVODE's (negative) flag. */
static int solver_get(collision_cvode *cv, int bdf, int dimension, solver **out)
{
    solver *s = &cv->solvers[bdf][dimension == 4];
    *out = s;
    if (s->mem)
        return 0;
    s->y = N_VNew_Serial(dimension, cv->context);
    s->mem = CVodeCreate(bdf ? CV_BDF : CV_ADAMS, cv->context);
    if (!s->y || !s->mem)
        return SOLVER_SETUP;
    N_VConst(0.0, s->y);
    int rc = CVodeInit(s->mem, rhs, 0.0, s->y);
    rc = rc ? rc : CVodeSetUserData(s->mem, cv);
    rc = rc ? rc : CVodeSetErrHandlerFn(s->mem, quiet, cv);
    rc = rc ? rc : CVodeRootInit(s->mem, COLLISION_EVENTS, roots);
    rc = rc ? rc : CVodeSetNoInactiveRootWarn(s->mem);
    if (rc)
        return rc;
    if (bdf) {
        s->matrix = SUNDenseMatrix(dimension, dimension, cv->context);
        s->linear = s->matrix ? SUNLinSol_Dense(s->y, s->matrix, cv->context) : NULL;
        if (!s->linear)
            return SOLVER_SETUP;
        rc = CVodeSetLinearSolver(s->mem, s->linear, s->matrix); /* difference Jacobian */
    } else {
        /* Adams on a nonstiff system: functional iteration, no Jacobian */
        s->fixed_point = SUNNonlinSol_FixedPoint(s->y, 0, cv->context);
        if (!s->fixed_point)
            return SOLVER_SETUP;
        rc = CVodeSetNonlinearSolver(s->mem, s->fixed_point);
    }
    if (rc)
        return rc;
    /* rising F' roots and rising F roots mean nothing here */
    int directions[COLLISION_EVENTS];
    for (int e = 0; e < COLLISION_EVENTS; e++)
        directions[e] = collision_root_direction[e];
    return CVodeSetRootDirection(s->mem, directions);
}

/* A failure with CVODE's flag (negative) or one of solver_status.h's (positive): the
 * point's status. */
static int fail(collision_result *r, int flag)
{
    r->outcome = OUTCOME_SOLVER_FAILURE;
    r->solver_flag = flag;
    switch (flag) {
    case SOLVER_BUDGET:
    case CV_TOO_MUCH_WORK:
        return IS_POINT_FAILED_BUDGET;
    case SOLVER_NONFINITE:
    case CV_RHSFUNC_FAIL:
    case CV_FIRST_RHSFUNC_ERR:
    case CV_REPTD_RHSFUNC_ERR:
    case CV_UNREC_RHSFUNC_ERR:
        return IS_POINT_FAILED_NONFINITE;
    default:
        return IS_POINT_FAILED_SOLVER;
    }
}

int collision_solve_cvode(collision_cvode *cv, const collision_problem *pb, collision_result *r)
{
    solver *s;
    cv->problem = pb;
    cv->last_error = 0;
    double *y = NULL;
    collision_tracker tracker;
    int rc = solver_get(cv, pb->bdf, pb->dimension, &s);
    if (rc)
        return fail(r, rc); /* SOLVER_SETUP, or CVODE's flag */
    y = N_VGetArrayPointer(s->y);
    collision_initial_state(pb, y);
    collision_tracker_start(&tracker, pb, r, y);
    double t = 0.0;
    rc = CVodeReInit(s->mem, 0.0, s->y);
    rc = rc ? rc
            : CVodeSStolerances(s->mem, fmax(TIGHTEST_RTOL, TOLERANCE_SAFETY * pb->rtol),
                                TOLERANCE_SAFETY * pb->atol);
    rc = rc ? rc : CVodeSetStopTime(s->mem, pb->t_max);
    if (rc)
        return fail(r, rc);
    /* CVODE counts steps since the last (re)initialisation, and its step limit is per call:
     * the budget is the steps banked before the last restart plus those since. Calls are
     * at most COLLISION_POLL_STEPS steps long, so that a stop is seen within them; a call
     * that ends at its step limit (CV_TOO_MUCH_WORK) is simply continued. */
    int64_t banked = 0;
    for (;;) {
        long steps = 0;
        CVodeGetNumSteps(s->mem, &steps);
        r->steps = banked + steps;
        int64_t left = pb->max_steps - r->steps;
        if (left <= 0)
            return fail(r, SOLVER_BUDGET);
        if (pb->stop && *pb->stop)
            return IS_POINT_PENDING;
        /* A trace takes every step: calls of one step each return its end, and take
         * the same steps (a call's step limit ends it between steps, never changes one) */
        long chunk = pb->hook ? 1 : COLLISION_POLL_STEPS;
        CVodeSetMaxNumSteps(s->mem, left < chunk ? (long)left : chunk);
        int flag = CVode(s->mem, pb->t_max, s->y, &t, CV_NORMAL);
        CVodeGetNumSteps(s->mem, &steps);
        r->steps = banked + steps;
        if (flag == CV_TOO_MUCH_WORK) {
            if (pb->hook)
                collision_hook_sample(pb->hook, t, y);
            continue;
        }
        if (flag == CV_ROOT_RETURN) {
            int found[COLLISION_EVENTS];
            CVodeGetRootInfo(s->mem, found);
            if (collision_tracker_event(&tracker, t, y, found))
                return IS_POINT_DONE;
            if (!found[COLLISION_ROOT_VELOCITY] && !found[COLLISION_ROOT_KINK_W] &&
                !found[COLLISION_ROOT_KINK_U] && !found[COLLISION_ROOT_KINK_Z])
                continue; /* CVODE goes on from the root by itself */
            /* |V| (or |W|) puts a kink into the right-hand side: restart there rather
             * than carry the multistep history across it (counters restart, so bank the
             * steps) */
            banked = r->steps;
            rc = CVodeReInit(s->mem, t, s->y);
            if (rc)
                return fail(r, rc);
            continue;
        }
        if (flag == CV_SUCCESS || flag == CV_TSTOP_RETURN) {
            collision_tracker_horizon(&tracker, t, y);
            return IS_POINT_DONE;
        }
        return fail(r, flag);
    }
}
