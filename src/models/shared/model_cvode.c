/* model_cvode.c: the models' shared CVODE set-up (model_cvode.h). Every SUNDIALS call's
 * return code is checked; the first failure is returned. */
#include "model_cvode.h"

#include <nvector/nvector_serial.h>
#include <string.h>
#include <sunlinsol/sunlinsol_dense.h>
#include <sunmatrix/sunmatrix_dense.h>
#include <sunnonlinsol/sunnonlinsol_fixedpoint.h>

/* CVODE would print its failures on stderr, from every worker; the failure reaches the
 * point's status (and the solver_flag output) instead. */
static void record_error(int code, const char *module, const char *function, char *message,
                         void *data)
{
    (void)module, (void)function, (void)message;
    ((model_cvode *)data)->last_error = code;
}

/* A null handle from a SUNDIALS constructor: it could not allocate. */
#define NO_MEMORY MODEL_CVODE_NO_MEMORY

static int attach_solvers(model_cvode *s, SUNContext context, const model_cvode_config *c)
{
    if (c->bdf) {
        s->matrix = SUNDenseMatrix(c->size, c->size, context);
        s->linear = s->matrix ? SUNLinSol_Dense(s->y, s->matrix, context) : NULL;
        if (!s->linear)
            return NO_MEMORY;
        return CVodeSetLinearSolver(s->mem, s->linear, s->matrix); /* difference Jacobian */
    }
    s->nonlinear = SUNNonlinSol_FixedPoint(s->y, 0, context);
    if (!s->nonlinear)
        return NO_MEMORY;
    return CVodeSetNonlinearSolver(s->mem, s->nonlinear);
}

int model_cvode_init(model_cvode *s, SUNContext context, const model_cvode_config *c)
{
    memset(s, 0, sizeof *s);
    s->y = N_VNew_Serial(c->size, context);
    s->mem = CVodeCreate(c->bdf ? CV_BDF : CV_ADAMS, context);
    if (!s->y || !s->mem)
        return NO_MEMORY;
    N_VConst(0.0, s->y);
    int rc = CVodeInit(s->mem, c->rhs, 0.0, s->y);
    rc = rc ? rc : CVodeSetUserData(s->mem, c->user_data);
    rc = rc ? rc : CVodeSetErrHandlerFn(s->mem, record_error, s);
    if (!rc && c->root_count > 0) {
        rc = CVodeRootInit(s->mem, c->root_count, c->roots);
        if (!rc && c->root_directions) {
            int directions[64];
            if (c->root_count > (int)(sizeof directions / sizeof *directions))
                return CV_ILL_INPUT;
            /* (CVODE takes the directions as non-const) */
            memcpy(directions, c->root_directions, (size_t)c->root_count * sizeof *directions);
            rc = CVodeSetRootDirection(s->mem, directions);
        }
        rc = rc ? rc : CVodeSetNoInactiveRootWarn(s->mem);
    }
    return rc ? rc : attach_solvers(s, context, c);
}

void model_cvode_free(model_cvode *s)
{
    if (s->mem)
        CVodeFree(&s->mem);
    if (s->nonlinear)
        SUNNonlinSolFree(s->nonlinear);
    if (s->linear)
        SUNLinSolFree(s->linear);
    if (s->matrix)
        SUNMatDestroy(s->matrix);
    if (s->y)
        N_VDestroy(s->y);
    memset(s, 0, sizeof *s);
}

int model_cvode_restart(model_cvode *s, double t0, double rtol, double atol, double t_stop)
{
    s->last_error = 0;
    int rc = CVodeReInit(s->mem, t0, s->y);
    rc = rc ? rc : CVodeSStolerances(s->mem, rtol, atol);
    return rc ? rc : CVodeSetStopTime(s->mem, t_stop);
}
