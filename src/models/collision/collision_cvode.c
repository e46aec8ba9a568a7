/* collision_cvode.c: one collision integrated with SUNDIALS CVODE (Adams or BDF), the
 * events located by CVODE's root finding. One integrator per worker and per state size,
 * created on first use and re-initialised for every point (no allocation per point). */
#include "collision.h"

#include <math.h>
#include <nvector/nvector_serial.h>
#include <stdlib.h>

#include "../shared/model_cvode.h"

/* CVODE's error in e is 1e2 to 1e3 times its local tolerance on these problems
 * (measured against the exact Hunt-Crossley, Hertz, Kelvin-Voigt and Maxwell results,
 * worst for Hunt-Crossley's flat force zero), so the local tolerances are this much
 * tighter than the accuracy asked of the outputs; 1e-14 is as tight as they go. */
#define TOLERANCE_SAFETY 1e-3
#define TIGHTEST_RTOL 1e-14

struct collision_cvode {
    SUNContext context;
    model_cvode solvers[2][2]; /* [bdf][dimension == 4], each made on first use */
    const collision_problem *problem;
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

void collision_cvode_free(collision_cvode **cvode)
{
    if (!cvode || !*cvode)
        return;
    collision_cvode *cv = *cvode;
    for (int b = 0; b < 2; b++)
        for (int d = 0; d < 2; d++)
            model_cvode_free(&cv->solvers[b][d]);
    SUNContext_Free(&cv->context);
    free(cv);
    *cvode = NULL;
}

/* The CVODE memory for this method and size, made on first use: 0, SOLVER_SETUP when
 * SUNDIALS could not allocate, or CVODE's (negative) flag. Adams runs with functional
 * iteration (nonstiff: no Jacobian), BDF with a dense Newton solve. Rising F' and F
 * roots mean nothing here (collision_root_direction). */
static int solver_get(collision_cvode *cv, int bdf, int dimension, model_cvode **out)
{
    model_cvode *s = &cv->solvers[bdf][dimension == 4];
    *out = s;
    if (s->mem)
        return 0;
    model_cvode_config config = {.size = dimension, .bdf = bdf, .rhs = rhs,
                                 .root_count = COLLISION_EVENTS, .roots = roots,
                                 .root_directions = collision_root_direction,
                                 .user_data = cv};
    int rc = model_cvode_init(s, cv->context, &config);
    if (rc) {
        model_cvode_free(s); /* made again, whole, at the next point */
        return rc == MODEL_CVODE_NO_MEMORY ? SOLVER_SETUP : rc;
    }
    return 0;
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
    model_cvode *s;
    cv->problem = pb;
    double *y = NULL;
    collision_tracker tracker;
    int rc = solver_get(cv, pb->bdf, pb->dimension, &s);
    if (rc)
        return fail(r, rc); /* SOLVER_SETUP, or CVODE's flag */
    y = N_VGetArrayPointer(s->y);
    collision_initial_state(pb, y);
    collision_tracker_start(&tracker, pb, r, y);
    double t = 0.0;
    rc = model_cvode_restart(s, 0.0, fmax(TIGHTEST_RTOL, TOLERANCE_SAFETY * pb->rtol),
                             TOLERANCE_SAFETY * pb->atol, pb->t_max);
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
