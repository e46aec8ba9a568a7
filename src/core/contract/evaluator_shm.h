/* evaluator_shm.h: what the engine and its evaluator process share (evaluator.h): the
 * layout of the shared memory, the messages on their socket, the guards. Private to
 * evaluator.c and evaluator_process.c.
 *
 * Three memories. The control page (shm_control) and the points live as long as the
 * process; the points are the engine's alone to write (sealed F_SEAL_FUTURE_WRITE: no
 * other process can map them writable or write them, ever). A call's outputs live in a
 * memory of their own, made by the engine for that call alone (a memfd, passed with the
 * request): a guard page | the outputs | a guard page | the statuses | a guard page.
 * The worker unmaps it before it replies; the engine then seals it against every write
 * (F_SEAL_WRITE, which the kernel refuses while any process still maps it writable) and
 * reads the results out of it: what the engine stores was frozen when the call ended,
 * whatever the model's code left running (a thread, a child, a setsid grandchild).
 * Guard pages are
 * inaccessible in the evaluator process: a write just before or past an array faults
 * there, and the fault handler records which. Canaries (GUARD_BYTES of a fixed pattern)
 * right after the part of each array a call uses catch a write past it that stays inside
 * the array's room. */
#ifndef IMPACTSWEEP_EVALUATOR_SHM_H
#define IMPACTSWEEP_EVALUATOR_SHM_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include "error.h"

/* Canaries after each array's used part (and, in strict mode, to its end). */
#define GUARD_BYTES 256
#define GUARD_OUTPUT UINT64_C(0x7ff4dead5afe1234) /* a signalling NaN no model writes */
#define GUARD_STATUS 0xa5

/* READY (a worker, its pid in `first`), EVAL, VALIDATE and QUIT (requests and replies),
 * DIED (the process: its worker died, the wait status in `code`, its pid in `first`). */
enum { OP_READY = 1, OP_EVAL, OP_VALIDATE, OP_QUIT, OP_DIED };

/* Where a fault of the evaluator process fell (its handler's finding). */
enum {
    FAULT_NONE,
    FAULT_POINTS,         /* a write into the parameters */
    FAULT_BEFORE_OUTPUTS, /* just before the outputs */
    FAULT_AFTER_OUTPUTS,  /* past their room */
    FAULT_BEFORE_STATUS,
    FAULT_AFTER_STATUS,
    FAULT_CONTROL,
    FAULT_ELSEWHERE,
    FAULT_HANDLER, /* the model's code had replaced the handler (or blocked the signal) */
};

/* A request of EVAL or VALIDATE comes with its call's memory (a descriptor, SCM_RIGHTS). */
typedef struct shm_message {
    uint32_t op;
    int32_t code;   /* a reply: is_code (its message in the control page) */
    uint64_t first; /* a request: the first point; a validate reply: the refused one */
    uint64_t count;
} shm_message;

typedef struct shm_control {
    volatile sig_atomic_t stop; /* the engine's stop request, for workspace_watch */
    volatile sig_atomic_t fault_signal;
    volatile sig_atomic_t fault_where;
    volatile sig_atomic_t quit;         /* a worker ends because the engine ended it */
    volatile double cpu_seconds;        /* the worker's CPU time in its last eval_batch */
    char message[IS_ERROR_MESSAGE_MAX]; /* a reply's message (eval_batch's error, ...) */
} shm_control;

/* The points' memory (its size) and a call's memory (its offsets from 0). */
typedef struct shm_layout {
    size_t page, capacity, params, outputs;
    size_t points_size; /* the points' memory, apart */
    size_t guard1_at;   /* byte offsets and sizes in a call's memory, page-aligned */
    size_t outputs_at, outputs_size; /* room for capacity * outputs doubles + GUARD_BYTES */
    size_t guard2_at;
    size_t status_at, status_size; /* room for capacity bytes + GUARD_BYTES */
    size_t guard3_at;
    size_t total;
} shm_layout;

static inline size_t shm_round(size_t n, size_t page)
{
    return (n + page - 1) / page * page;
}

static inline void shm_layout_of(shm_layout *l, size_t capacity, size_t params, size_t outputs)
{
    long page = sysconf(_SC_PAGESIZE);
    memset(l, 0, sizeof *l);
    l->page = page > 0 ? (size_t)page : 4096;
    l->capacity = capacity;
    l->params = params;
    l->outputs = outputs;
    l->points_size = shm_round(capacity * params * sizeof(double) + 1, l->page);
    l->guard1_at = 0;
    l->outputs_at = l->guard1_at + l->page;
    l->outputs_size = shm_round(capacity * outputs * sizeof(double) + GUARD_BYTES, l->page);
    l->guard2_at = l->outputs_at + l->outputs_size;
    l->status_at = l->guard2_at + l->page;
    l->status_size = shm_round(capacity + GUARD_BYTES, l->page);
    l->guard3_at = l->status_at + l->status_size;
    l->total = l->guard3_at + l->page;
}

/* The bytes of the control page's memory. */
static inline size_t shm_control_size(void)
{
    long page = sysconf(_SC_PAGESIZE);
    return shm_round(sizeof(shm_control), page > 0 ? (size_t)page : 4096);
}

#endif
