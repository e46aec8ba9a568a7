/* boundary.c: the plug-in boundary's test family, one library per BOUNDARY_KIND (a
 * compile-time definition; tests/CMakeLists.txt builds each as libboundary_KIND.so with a
 * model of that name). Every kind computes the same closed form on the points it keeps;
 * on its "bad" points (x * 40 + y a multiple of 137: 12 of the 1,600 points of the
 * 40 x 40 integer grid of tests/integration/test_boundary.sh, the default point among them)
 * it does what a plug-in author's mistake would:
 *   clean      nothing: the reference
 *   crash      a null-pointer write (SIGSEGV)
 *   exit       exit(0)
 *   abort      abort() (SIGABRT)
 *   hang       a loop that never ends and watches nothing
 *   oob        a write one past the end of its outputs or of its status
 *   status     a status outside the contract: 200 on some bad points, `inferred` on others
 *   output     a done point whose outputs break their declaration: NaN in a real output
 *              that does not allow it, 1e300 in an integer output (it would wrap), a
 *              category that does not exist
 *   old_abi    nothing, but built against the contract of version 2 (tests/models/plugins/
 *              abi2: no ABI header): loaded through the conversion of old tables
 *   namesake   nothing, but it computes through its own global function stop_energy, an
 *              engine internal's name (built as the documented cc line builds a plug-in)
 *   validate   its validate crashes on the bad points (a sweep is refused, naming one)
 *   raise      raises SIGSEGV itself (raise, kill, with the signal blocked, or SIGBUS
 *              after installing a handler of its own that returns): a runtime that
 *              signals on purpose; the point must not go on as if nothing happened
 *   linger     forks a child (and it a setsid grandchild) that keeps writing 12345 into
 *              the real output `value` for a second after eval_batch returned
 * A cost per point (busy wait, `cost` seconds) makes a sweep long enough to interrupt.
 * Each has a trace (one sample: the point's value) that runs eval_batch's code, so that
 * `impactsweep trace` meets the same misbehaviour. */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#include <impactsweep/model.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define CLEAN 0
#define CRASH 1
#define EXIT 2
#define ABORT 3
#define HANG 4
#define OOB 5
#define STATUS 6
#define OUTPUT 7
#define OLD_ABI 8
#define NAMESAKE 9
#define VALIDATE 10
#define RAISE 11
#define LINGER 12

#ifndef BOUNDARY_KIND
#error "define BOUNDARY_KIND"
#endif
#ifndef BOUNDARY_NAME
#error "define BOUNDARY_NAME (the model's name)"
#endif

enum { X, Y, COST, PARAM_COUNT };
enum { VALUE, COUNT, CLASS, OUTPUT_COUNT };

static const char *const classes[] = {"even", "odd", NULL};

static const is_param params[PARAM_COUNT] = {
    [X] = {"x", "first coordinate", "1", IS_PARAM_REAL, 0, -1e6, 1e6, 0, NULL, NULL},
    [Y] = {"y", "second coordinate", "1", IS_PARAM_REAL, 0, -1e6, 1e6, 0, NULL, NULL},
    [COST] = {"cost", "busy wait per point", "s", IS_PARAM_REAL, 0, 0, 10, 0, NULL, NULL},
};

static const is_output outputs[OUTPUT_COUNT] = {
    [VALUE] = {"value", "1", "x y + 1 / 3", IS_OUTPUT_REAL, NULL},
    [COUNT] = {"count", "1", "floor(x) + floor(y)", IS_OUTPUT_INT, NULL},
    [CLASS] = {"class", "1", "parity of count", IS_OUTPUT_CATEGORY, classes},
};

#if BOUNDARY_KIND == NAMESAKE
/* global, not static: an engine internal has this name (src/models/stop_oscillator) */
double stop_energy(double x, double y);
double stop_energy(double x, double y)
{
    return x * y + 1.0 / 3.0;
}
#define VALUE_OF(x, y) stop_energy(x, y)
#else
#define VALUE_OF(x, y) ((x) * (y) + 1.0 / 3.0)
#endif

static int is_bad(const double *p)
{
    double k = p[X] * 40 + p[Y];
    return k == floor(k) && fmod(k, 137.0) == 0.0;
}

static void busy_wait(double seconds)
{
    struct timespec t0, t;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    do
        clock_gettime(CLOCK_MONOTONIC, &t);
    while ((double)(t.tv_sec - t0.tv_sec) + 1e-9 * (double)(t.tv_nsec - t0.tv_nsec) < seconds);
}

#if BOUNDARY_KIND == RAISE
static void swallow(int signo)
{
    (void)signo; /* a runtime's handler that returns: the point would go on */
}

/* Four ways a model's code signals itself, by the point's count. */
static void raise_one(unsigned way)
{
    sigset_t set;
    switch (way % 4) {
    case 0:
        raise(SIGSEGV);
        break;
    case 1:
        kill(getpid(), SIGSEGV);
        break;
    case 2: /* blocked: it waits, and the call returns */
        sigemptyset(&set);
        sigaddset(&set, SIGSEGV);
        sigprocmask(SIG_BLOCK, &set, NULL);
        raise(SIGSEGV);
        break;
    default:
        signal(SIGBUS, swallow);
        raise(SIGBUS);
        break;
    }
}
#endif

#if BOUNDARY_KIND == LINGER
/* A process that writes 12345 into `value` for about a second after its parent
 * returned, as a model's helper process left running would. */
static void linger(double *out, size_t count)
{
    for (int n = 0; n < 2000; n++) {
        struct timespec pause = {0, 500000};
        nanosleep(&pause, NULL);
        for (size_t i = 0; i < count; i++) /* (a value the contract cannot tell wrong) */
            out[VALUE * count + i] = 12345.0;
    }
    _exit(0);
}
#endif

/* What a bad point does (kinds that fail the whole call, or leave a mark in it). */
static void misbehave(size_t i, size_t count, double *out, uint8_t *status)
{
    (void)i, (void)count, (void)out, (void)status;
#if BOUNDARY_KIND == CRASH
    *(volatile int *)(size_t)(i & 1) = 1;
#elif BOUNDARY_KIND == EXIT
    exit(0);
#elif BOUNDARY_KIND == ABORT
    abort();
#elif BOUNDARY_KIND == HANG
    for (volatile unsigned long n = 0;; n++)
        ;
#elif BOUNDARY_KIND == OOB
    if ((size_t)out[VALUE * count + i] % 2)
        status[count] = IS_POINT_DONE; /* one past the end of status */
    else
        out[OUTPUT_COUNT * count] = 0; /* one past the end of outputs */
#elif BOUNDARY_KIND == STATUS
    status[i] = out[COUNT * count + i] > 20 ? 200 : IS_POINT_INFERRED;
#elif BOUNDARY_KIND == OUTPUT
    double *v = &out[((size_t)out[COUNT * count + i] % OUTPUT_COUNT) * count + i];
    *v = v == &out[VALUE * count + i] ? NAN : v == &out[COUNT * count + i] ? 1e300 : 7;
#elif BOUNDARY_KIND == RAISE
    raise_one((unsigned)out[COUNT * count + i]);
#elif BOUNDARY_KIND == LINGER
    if (fork() == 0) {
        if (fork() == 0) { /* the grandchild, in a session of its own */
            setsid();
            linger(out, count);
        }
        linger(out, count);
    }
#endif
}

static is_code eval_batch(void *workspace, const double *points, size_t count, double *out,
                          uint8_t *status, is_error *err)
{
    (void)workspace, (void)err;
    for (size_t i = 0; i < count; i++) {
        const double *p = points + i * PARAM_COUNT;
        if (p[COST] > 0)
            busy_wait(p[COST]);
        double n = floor(p[X]) + floor(p[Y]);
        out[VALUE * count + i] = VALUE_OF(p[X], p[Y]);
        out[COUNT * count + i] = n;
        out[CLASS * count + i] = fmod(fabs(n), 2.0);
        status[i] = IS_POINT_DONE;
        if (is_bad(p))
            misbehave(i, count, out, status);
    }
    return IS_OK;
}

static is_code validate(const double *point, is_error *err)
{
    (void)err;
    if (BOUNDARY_KIND == VALIDATE && is_bad(point))
        *(volatile int *)0 = 1;
    return IS_OK;
}

/* The trace: eval_batch's own code on the point, and one sample of its value. */
static const is_trace_channel channels[] = {{"value", "1", "x y + 1 / 3"}};
static const char *const events[] = {"end", NULL};

static is_code trace_run(void *workspace, const double *point, const double *options,
                         const is_trace_sink *sink, double *outputs, uint8_t *status, is_error *err)
{
    (void)options;
    is_code rc = eval_batch(workspace, point, 1, outputs, status, err);
    if (rc == IS_OK)
        rc = sink->sample(sink->context, 0.0, &outputs[VALUE]);
    return rc;
}

static const is_model_trace trace = {"1", "time", channels, 1, events, NULL, 0, trace_run};

static const is_model boundary = {
#if BOUNDARY_KIND != OLD_ABI
    IS_MODEL_HEADER,
#endif
    .name = BOUNDARY_NAME,
    .description = "a plug-in that misbehaves on some points (the boundary's tests)",
    .params = params,
    .param_count = PARAM_COUNT,
    .outputs = outputs,
    .output_count = OUTPUT_COUNT,
    .validate = validate,
    .eval_batch = eval_batch,
    .version = "1.0.0",
    .trace = &trace,
};

IS_MODEL_PLUGIN(boundary)
