/* stop_cvode.c: the second, independent integrator of the stop oscillator: CVODE on the
 * COD and CD equations with root finding on x1 - s and x2 - x2t. Used by the tests to
 * check the exact flows and the contact search on runs without Zeno sequences. */
#include "stop_oscillator.h"

#include <cvode/cvode.h>
#include <math.h>
#include <nvector/nvector_serial.h>
#include <stdlib.h>
#include <sundials/sundials_context.h>
#include <sunnonlinsol/sunnonlinsol_fixedpoint.h>

typedef struct segment_solver {
    void *mem;
    N_Vector y;
    SUNNonlinearSolver nls;
} segment_solver;

typedef struct stop_cvode {
    SUNContext context;
    segment_solver cod, cd; /* 4 states (x1, v1, x2, v2); 2 states (x2, v2) */
    const stop_system *sys;
} stop_cvode;

static int cod_rhs(realtype t, N_Vector y, N_Vector ydot, void *data)
{
    (void)t;
    const stop_system *sys = ((stop_cvode *)data)->sys;
    const double *x = N_VGetArrayPointer(y);
    double *d = N_VGetArrayPointer(ydot);
    d[0] = x[1];
    d[1] = -(sys->k + sys->k12) * x[0] + sys->k12 * x[2];
    d[2] = x[3];
    d[3] = -(sys->k + sys->k12) * x[2] + sys->k12 * x[0];
    return 0;
}

static int cod_root(realtype t, N_Vector y, realtype *g, void *data)
{
    (void)t;
    g[0] = N_VGetArrayPointer(y)[0] - ((stop_cvode *)data)->sys->s;
    return 0;
}

static int cd_rhs(realtype t, N_Vector y, N_Vector ydot, void *data)
{
    (void)t;
    const stop_system *sys = ((stop_cvode *)data)->sys;
    const double *x = N_VGetArrayPointer(y);
    double *d = N_VGetArrayPointer(ydot);
    d[0] = x[1];
    d[1] = -(sys->k + sys->k12) * (x[0] - sys->x2eq);
    return 0;
}

static int cd_root(realtype t, N_Vector y, realtype *g, void *data)
{
    (void)t;
    g[0] = N_VGetArrayPointer(y)[0] - ((stop_cvode *)data)->sys->x2t;
    return 0;
}

static void quiet(int code, const char *module, const char *function, char *message, void *data)
{
    (void)code, (void)module, (void)function, (void)message, (void)data;
}

static int solver_init(stop_cvode *cv, segment_solver *s, int size, CVRhsFn rhs, CVRootFn root,
                       int direction)
{
    s->y = N_VNew_Serial(size, cv->context);
    s->mem = CVodeCreate(CV_ADAMS, cv->context);
    if (!s->y || !s->mem)
        return -1;
    N_VConst(0.0, s->y);
    int rc = CVodeInit(s->mem, rhs, 0.0, s->y);
    rc = rc ? rc : CVodeSetUserData(s->mem, cv);
    rc = rc ? rc : CVodeSetErrHandlerFn(s->mem, quiet, cv);
    rc = rc ? rc : CVodeRootInit(s->mem, 1, root);
    rc = rc ? rc : CVodeSetRootDirection(s->mem, &direction);
    rc = rc ? rc : CVodeSetNoInactiveRootWarn(s->mem);
    rc = rc ? rc : CVodeSetMaxNumSteps(s->mem, 1000000);
    if (rc)
        return rc;
    s->nls = SUNNonlinSol_FixedPoint(s->y, 0, cv->context);
    return s->nls ? CVodeSetNonlinearSolver(s->mem, s->nls) : -1;
}

static void solver_free(segment_solver *s)
{
    if (s->mem)
        CVodeFree(&s->mem);
    if (s->nls)
        SUNNonlinSolFree(s->nls);
    if (s->y)
        N_VDestroy(s->y);
}

int stop_cvode_create(void **out)
{
    stop_cvode *cv = calloc(1, sizeof *cv);
    if (!cv || SUNContext_Create(NULL, &cv->context) != 0) {
        free(cv);
        return -1;
    }
    if (solver_init(cv, &cv->cod, 4, cod_rhs, cod_root, 1) ||
        solver_init(cv, &cv->cd, 2, cd_rhs, cd_root, -1)) {
        stop_cvode_free(cv);
        return -1;
    }
    *out = cv;
    return 0;
}

void stop_cvode_free(void *cvode)
{
    stop_cvode *cv = cvode;
    if (!cv)
        return;
    solver_free(&cv->cod);
    solver_free(&cv->cd);
    SUNContext_Free(&cv->context);
    free(cv);
}

int stop_cvode_segment(void *cvode, const stop_system *sys, const stop_state *x, int contact,
                       double horizon, double rtol, double *elapsed, stop_state *out)
{
    stop_cvode *cv = cvode;
    cv->sys = sys;
    segment_solver *s = contact ? &cv->cd : &cv->cod;
    double *y = N_VGetArrayPointer(s->y);
    if (contact) {
        y[0] = x->x2;
        y[1] = x->v2;
    } else {
        y[0] = x->x1;
        y[1] = x->v1;
        y[2] = x->x2;
        y[3] = x->v2;
    }
    /* the absolute tolerance on the scale of the motion: the stop, the positions and
     * the velocities over omega1 (x2t, once used here, is 1000 s at k12 / k = 1e-3) */
    double scale = fabs(sys->s) + fmax(fmax(fabs(x->x1), fabs(x->x2)),
                                       fmax(fabs(x->v1), fabs(x->v2)) / sys->w1);
    int rc = CVodeReInit(s->mem, 0.0, s->y);
    rc = rc ? rc : CVodeSStolerances(s->mem, rtol, rtol * 1e-2 * scale);
    rc = rc ? rc : CVodeSetStopTime(s->mem, horizon);
    if (rc)
        return -1;
    double t = 0.0;
    int flag = CVode(s->mem, horizon, s->y, &t, CV_NORMAL);
    if (flag < 0)
        return -1;
    *elapsed = t;
    if (contact) {
        out->x1 = sys->s;
        out->v1 = 0.0;
        out->x2 = y[0];
        out->v2 = y[1];
    } else {
        out->x1 = y[0];
        out->v1 = y[1];
        out->x2 = y[2];
        out->v2 = y[3];
    }
    return flag == CV_ROOT_RETURN ? 1 : 0;
}
