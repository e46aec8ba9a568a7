/* model_cvode.h: the one CVODE set-up of the models that integrate with SUNDIALS CVODE
 * (collision, stop oscillator): an integrator for a fixed state size, created once per
 * worker and re-initialised per point, with its method, root functions and quiet error
 * handling configured in one place. Not part of the model contract: models under
 * src/models/ share it as they share solver_status.h. */
#ifndef IMPACTSWEEP_MODEL_CVODE_H
#define IMPACTSWEEP_MODEL_CVODE_H

#include <cvode/cvode.h>
#include <sundials/sundials_context.h>

/* How to set an integrator up. */
typedef struct model_cvode_config {
    int size;                   /* number of states */
    int bdf;                    /* BDF with a dense Newton solve and a difference-quotient
                                   Jacobian (stiff problems); else Adams with functional
                                   iteration (nonstiff: no Jacobian at all) */
    CVRhsFn rhs;
    int root_count;             /* 0: no root finding */
    CVRootFn roots;
    const int *root_directions; /* root_count entries (-1 falling, 0 both, 1 rising), or
                                   NULL for both ways */
    void *user_data;            /* passed to rhs and roots */
} model_cvode_config;

/* One CVODE memory and what it owns. Its address must not change once initialised (the
 * error handler writes last_error through it). */
typedef struct model_cvode {
    void *mem;
    N_Vector y; /* the state: CVODE's initial value and result vector */
    SUNMatrix matrix;
    SUNLinearSolver linear;
    SUNNonlinearSolver nonlinear;
    int last_error; /* the code of CVODE's last error message (CVODE prints none) */
} model_cvode;

/* What model_cvode_init returns when a SUNDIALS constructor could not allocate. */
#define MODEL_CVODE_NO_MEMORY (-1000)

/* Creates the integrator (y = 0 at t = 0; callers set y and call model_cvode_restart per
 * problem). Returns 0, a negative CVODE flag, or MODEL_CVODE_NO_MEMORY; on failure
 * *solver holds what was made, for model_cvode_free. */
int model_cvode_init(model_cvode *solver, SUNContext context, const model_cvode_config *config);

/* Frees what model_cvode_init made and zeroes *solver (safe on a zeroed one). */
void model_cvode_free(model_cvode *solver);

/* Re-initialises for a new problem from y at t0 with the given tolerances and stop time:
 * 0 or CVODE's flag. */
int model_cvode_restart(model_cvode *solver, double t0, double rtol, double atol,
                        double t_stop);

#endif
