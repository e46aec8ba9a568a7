/* evaluator.h: where a model's code runs, and the checks on what it returns.
 *
 * Every call of a model's eval_batch or validate by a command goes through an evaluator.
 * It has two forms behind one interface:
 *   - in process: direct calls (built-in models, or `[sweep] containment = none`);
 *   - contained: in an evaluator process of its own, started from this executable (a
 *     clean image: no MPI, no HDF5 file; it loads the model itself, once, checks its
 *     library's checksum, and ignores the stop signals, which reach it through a flag in
 *     shared memory), whose worker (a fork of it: a restart costs a fork) is fed through
 *     shared memory with one small message a batch. A crash, an abort, an exit() or a
 *     hang (past point_timeout) of the model's code kills only that worker: the batch is
 *     split (sqrt-wise) until each point that did it is alone, found exactly and stored as
 *     IS_POINT_FAILED_CRASH (or IS_POINT_FAILED_TIMEOUT) with the reason reported, the
 *     next worker takes over, and every other point is computed as without it (a point's
 *     result depends on its parameters alone). The parameters are read-only there (only
 *     the engine can write them) and guard pages surround the outputs and statuses. Any
 *     SIGSEGV or SIGBUS ends the worker, raised by the model's code or real. A call's
 *     results reach the engine through a pipe of that call that must be closed by every
 *     process when the call returns: nothing the model's code leaves running can change
 *     them (one that holds it fails the point: IS_POINT_FAILED_CHECK).
 * Either way eval_batch's arrays end in guards (canaries) that a write past them breaks,
 * and every result is checked against the contract (is_conformance_results): a breach
 * fails that point with IS_POINT_FAILED_CHECK and a reason. A stop request (the flag
 * given) is passed on to the model (workspace_watch); a contained model that does not
 * return within STOP_GRACE seconds of it is killed, its batch left pending. */
#ifndef IMPACTSWEEP_EVALUATOR_H
#define IMPACTSWEEP_EVALUATOR_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "model.h"

typedef struct is_evaluator is_evaluator;

/* The first word of an evaluator process's command line (this executable, started again). */
#define IS_EVALUATOR_COMMAND "__evaluator"

/* A point the engine failed (the model did not say so itself). */
typedef struct is_evaluator_failure {
    size_t index;       /* in the batch */
    uint8_t status;     /* IS_POINT_FAILED_CRASH, _TIMEOUT or _CHECK */
    const char *reason; /* "the model's code crashed with signal 11 (Segmentation fault)" */
} is_evaluator_failure;

/* Called once for each such point, with its parameters. */
typedef void (*is_evaluator_report)(void *context, const double *point,
                                    const is_evaluator_failure *failure);

typedef struct is_evaluator_config {
    const is_model *model;
    const char *library;  /* a plug-in's library (absolute path); NULL: built in */
    const char *sha256;   /* its checksum: the evaluator process loads only those bytes */
    int contained;        /* in an evaluator process (1) or in this one (0) */
    double point_timeout; /* seconds a point may take, 0: no limit (contained only) */
    size_t capacity;      /* points per call at most */
    const volatile sig_atomic_t *stop; /* the stop request; NULL: none */
    /* `models --check`: every breach the engine finds is an error of the call (IS_PLUGIN,
     * naming what broke), and the guards cover the whole arrays */
    int strict;
    is_evaluator_report report; /* may be NULL */
    void *context;
} is_evaluator_config;

/* A model that is contained by default: a plug-in, or one with a point_timeout. */
static inline int is_evaluator_contains_by_default(const char *library, double point_timeout)
{
    return library != NULL || point_timeout > 0;
}

/* A contained evaluator starts its process here (and fails here if it cannot: IS_PLUGIN
 * when the library cannot be loaded there, naming it). */
is_code is_evaluator_create(is_evaluator **ev, const is_evaluator_config *config, is_error *err);
void is_evaluator_free(is_evaluator **ev);

/* Room for `capacity` points, points[i * param_count + p]: the caller writes the points
 * of a call here. */
double *is_evaluator_points(is_evaluator *ev);

/* Evaluates the first `count` points of is_evaluator_points. On IS_OK, *outputs
 * (outputs[o * count + i]) and *status hold every point's result, valid until the next
 * call (points a stop interrupted are IS_POINT_PENDING). Errors: eval_batch's own for the
 * whole batch (IS_MODEL and its message), the evaluator process's (it could not be
 * started again: IS_PLUGIN), a built-in model writing past its arrays (IS_INTERNAL), and
 * in strict mode any breach (IS_PLUGIN). */
is_code is_evaluator_eval(is_evaluator *ev, size_t count, const double **outputs,
                          const uint8_t **status, is_error *err);

/* The model's validate on points first .. first + count - 1 of is_evaluator_points:
 * *refused is the index of the first point it refuses (first + count: none) and `why` its
 * message (IS_PARAM; IS_PLUGIN for a validate that crashed on the point, saying so).
 * IS_OK unless the evaluator itself fails; IS_INTERRUPTED when a stop came first. */
is_code is_evaluator_validate(is_evaluator *ev, size_t first, size_t count, size_t *refused,
                              is_error *why, is_error *err);

/* Points a run's evaluator takes at most in a call (sched.c's batches; the grid's checks
 * make theirs of this size too, so that the run can take over their process). */
#define IS_EVALUATOR_RUN_CAPACITY 65536

/* CPU seconds the model's code took in the last is_evaluator_eval (this thread's, or its
 * evaluator process's; a part that crashed is not counted). */
double is_evaluator_cpu_seconds(const is_evaluator *ev);

/* The points a call may take (config.capacity). */
size_t is_evaluator_capacity(const is_evaluator *ev);

/* Another user of the same evaluator: its stop request, and where failures are reported,
 * from now on. */
void is_evaluator_bind(is_evaluator *ev, const volatile sig_atomic_t *stop,
                       is_evaluator_report report, void *context);

/* Seconds a contained model may take to return after a stop request before it is killed
 * (its batch is then left pending). */
#define IS_EVALUATOR_STOP_GRACE 2.0

/* The evaluator process: main() calls this when argv[1] is IS_EVALUATOR_COMMAND, with the
 * built-in models (a contained built-in model is found there by name). Returns the
 * process's exit status. */
int is_evaluator_process_main(int argc, char **argv, const is_model *const *builtin);

#endif
