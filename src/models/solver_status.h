/* solver_status.h: the one failure convention of the models' integrators, shared by
 * every model that integrates (collision, stop oscillator):
 *
 *  - an integrator returns the point's status (is_point_status): IS_POINT_DONE,
 *    IS_POINT_FAILED_SOLVER, IS_POINT_FAILED_BUDGET, IS_POINT_FAILED_NONFINITE, or
 *    IS_POINT_PENDING when the run's stop flag ended it (no result; computed again by
 *    --resume);
 *  - why it failed goes into the `solver_flag` output, whose values never collide:
 *    0 none, a negative value is a SUNDIALS CVODE return flag exactly as CVODE gave it
 *    (CV_TOO_MUCH_WORK = -1, CV_TOO_MUCH_ACC = -2, ...: all of CVODE's are negative), a
 *    positive value is one of impactsweep's own below;
 *  - a right-hand side reports a non-finite value by returning nonzero (CVODE's "recoverable
 *    error" convention: CVODE then retries with a smaller step, and fails with
 *    CV_REPTD_RHSFUNC_ERR or CV_FIRST_RHSFUNC_ERR); the project's own integrators treat it as
 *    SOLVER_NONFINITE. */
#ifndef IMPACTSWEEP_SOLVER_STATUS_H
#define IMPACTSWEEP_SOLVER_STATUS_H

typedef enum {
    SOLVER_OK = 0,
    SOLVER_STEP_UNDERFLOW = 1, /* the step fell below the rounding of t */
    SOLVER_NONFINITE = 2,      /* a state, a derivative or an error estimate is not finite */
    SOLVER_BUDGET = 3,         /* the step (or event) budget is used up */
    SOLVER_SEARCH_STALLED = 4, /* an event search ran out of iterations (a tangency it cannot
                                  resolve) */
    SOLVER_SETUP = 5           /* the integrator's memory could not be created */
} solver_failure;

#endif
