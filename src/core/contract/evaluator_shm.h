/* evaluator_shm.h: what the engine and its evaluator process share (evaluator.h): the
 * layout of the shared memory, the messages on their socket, the guards. Private to
 * evaluator.c and evaluator_process.c.
 *
 * Two shared memories, as long as the process: the control page (shm_control) and the
 * points, which are the engine's alone to write (sealed F_SEAL_FUTURE_WRITE: no other
 * process can map them writable or write them, ever). The outputs are the worker's own,
 * private: a guard page | the outputs | a guard page | the statuses | a guard page
 * (shm_layout). After eval_batch the worker writes them (with their canaries) into a
 * pipe the engine made for that call alone (its write end passed with the request) and
 * closes it, then replies. The engine reads the pipe as it fills and takes the results
 * only if it then reads end-of-file: no process holds the write end any more, so nothing
 * the model's code left running (a thread, a child, a setsid grandchild) can change what
 * the engine stores; one that holds it makes the call bad. Guard pages are
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

/* A request of EVAL comes with the write end of its call's pipe (SCM_RIGHTS) and, in
 * `code`, 1 for strict canaries (to the end of the room). */
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

/* The points' memory (its size) and the worker's outputs (their offsets from 0). */
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

/* Outputs NaN (a failed point may leave them), statuses "none given", canaries after the
 * part a call of `count` points of `no` outputs uses (to the end of the room in strict
 * mode). */
static inline void shm_prepare(double *outputs, uint8_t *status, size_t count, size_t no,
                               int strict, size_t room_bytes_out, size_t room_bytes_status)
{
    size_t used = count * no;
    for (size_t i = 0; i < used; i++)
        outputs[i] = __builtin_nan("");
    memset(status, 0xff, count);
    size_t out_guard = strict ? room_bytes_out - used * sizeof(double) : GUARD_BYTES;
    size_t st_guard = strict ? room_bytes_status - count : GUARD_BYTES;
    uint64_t pattern = GUARD_OUTPUT;
    for (size_t b = 0; b + sizeof pattern <= out_guard; b += sizeof pattern)
        memcpy((char *)(outputs + used) + b, &pattern, sizeof pattern);
    memset(status + count, GUARD_STATUS, st_guard);
}

/* The bytes of a call's outputs and statuses, canaries included, that the worker sends
 * back (evaluator_shm.h's top). */
static inline void shm_call_bytes(const shm_layout *l, size_t count, int strict, size_t *out,
                                  size_t *st)
{
    *out = strict ? l->outputs_size : count * l->outputs * sizeof(double) + GUARD_BYTES;
    *st = strict ? l->status_size : count + GUARD_BYTES;
}

/* The bytes of the control page's memory. */
static inline size_t shm_control_size(void)
{
    long page = sysconf(_SC_PAGESIZE);
    return shm_round(sizeof(shm_control), page > 0 ? (size_t)page : 4096);
}

#endif
