/* stop_cvode.c: the second, independent integrator of the stop oscillator: CVODE on the
 * COD and CD equations with root finding on x1 - s and x2 - x2t. Used by the tests to
 * check the exact flows and the contact search on runs without Zeno sequences. */
#include "stop_oscillator.h"

#include <math.h>
#include <nvector/nvector_serial.h>
#include <stdlib.h>

#include "../shared/model_cvode.h"

typedef struct stop_cvode {
    SUNContext context;
    model_cvode cod, cd; /* 4 states (x1, v1, x2, v2); 2 states (x2, v2) */
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

/* A segment ends where mass one reaches the stop (x1 - s rising) or, in contact, where
 * mass two falls back to x2t (x2 - x2t falling). Adams: the flows are not stiff. */
static int solver_init(stop_cvode *cv, model_cvode *s, int size, CVRhsFn rhs, CVRootFn root,
                       int direction)
{
    model_cvode_config config = {.size = size, .rhs = rhs, .root_count = 1, .roots = root,
                                 .root_directions = &direction, .user_data = cv};
    int rc = model_cvode_init(s, cv->context, &config);
    return rc ? rc : CVodeSetMaxNumSteps(s->mem, 1000000);
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
    model_cvode_free(&cv->cod);
    model_cvode_free(&cv->cd);
    SUNContext_Free(&cv->context);
    free(cv);
}

int stop_cvode_segment(void *cvode, const stop_system *sys, const stop_state *x, int contact,
                       double horizon, double rtol, double *elapsed, stop_state *out)
{
    stop_cvode *cv = cvode;
    cv->sys = sys;
    model_cvode *s = contact ? &cv->cd : &cv->cod;
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
    int rc = model_cvode_restart(s, 0.0, rtol, rtol * 1e-2 * scale, horizon);
    if (rc)
        return rc;
    double t = 0.0;
    int flag = CVode(s->mem, horizon, s->y, &t, CV_NORMAL);
    if (flag < 0)
        return flag;
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
