/* evaluator.c: the engine's side of an evaluator (evaluator.h): the calls in process, the
 * evaluator process (started, fed, watched, killed, started again), each call's memory
 * (made, sealed, read: evaluator_shm.h) and the bisection of a batch that killed it. The
 * process's own side is evaluator_process.c. */
#include "evaluator.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "conformance.h"
#include "engine.h"
#include "evaluator_shm.h"
#include "numtext.h"

/* The seals (Linux's, from <linux/fcntl.h>, which clashes with <fcntl.h>). */
#ifndef F_ADD_SEALS
#define F_ADD_SEALS 1033
#define F_SEAL_SHRINK 0x0002
#define F_SEAL_GROW 0x0004
#endif
#ifndef F_SEAL_FUTURE_WRITE
#define F_SEAL_FUTURE_WRITE 0x0010
#endif
#ifndef F_SETPIPE_SZ
#define F_SETPIPE_SZ 1031
#endif

extern char **environ;

/* How long the evaluator process may take to load the model and make its workspace. */
#define STARTUP_SECONDS 120.0
/* The engine looks at the stop flag this often while the process computes. */
#define POLL_MS 50
/* A batch of n points may take point_timeout + DEADLINE_FACTOR n (the mean cost of a point
 * so far) before it is bisected: generous, since a batch that runs over is only split,
 * never failed; a single point gets point_timeout exactly. */
#define DEADLINE_FACTOR 4.0
/* Calls of fewer points do not enter the mean cost of a point: their time is mostly the
 * round trip to the evaluator process (some 50 us). */
#define RATE_POINTS 64

/* How a call in the evaluator process ended. */
typedef enum {
    RUN_OK,          /* results in the shared memory, checked */
    RUN_MODEL_ERROR, /* eval_batch failed the batch (err says why) */
    RUN_BAD,         /* the process died, ran past its deadline or broke a guard */
    RUN_STOPPED,     /* a stop: nothing kept */
    RUN_FAILED       /* the process could not be (re)started (err) */
} run_result;

typedef struct bad_run {
    uint8_t status; /* FAILED_CRASH, _TIMEOUT, _CHECK */
    char reason[256];
} bad_run;

struct is_evaluator {
    is_evaluator_config config;
    const is_model *model;
    size_t np, no;
    /* in process */
    void *workspace;
    int workspace_made;
    double *points, *outputs, *outputs_room; /* outputs_room: GUARD_BYTES before outputs */
    double *points_shared; /* contained: the points' shared memory */
    uint8_t *status, *status_room;
    /* contained: outputs and status above are the engine's own copies; points shared */
    shm_layout layout;
    shm_control *control;        /* the control page, shared */
    int memory, points_memory, socket; /* memory: the control page's */
    int pipe_fd;                       /* the call's pipe, its read end (-1: none) */
    size_t pipe_out, pipe_status;      /* the bytes it brings: outputs, statuses */
    size_t pipe_got;
    int pipe_eof;
    pid_t pid, worker; /* the evaluator process, its worker of the moment */
    int ready;         /* the worker said READY and has not died since */
    char self[4096];
    double *merged; /* a bisected batch's results, outputs[o * count + i] */
    uint8_t *merged_status;
    size_t merged_count;
    double cost_seconds, cost_points; /* the calls that returned, for deadlines */
    double stop_since;                /* when the stop request was passed on (0: not yet) */
    /* strict: the first breach */
    char breach[512];
    double cpu; /* the model's CPU time in the last call */
};

static double now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int stop_requested(const is_evaluator *ev)
{
    return ev->config.stop && *ev->config.stop;
}

double *is_evaluator_points(is_evaluator *ev)
{
    return ev->points;
}

double is_evaluator_cpu_seconds(const is_evaluator *ev)
{
    return ev->cpu;
}

static double thread_cpu_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

size_t is_evaluator_capacity(const is_evaluator *ev)
{
    return ev->config.capacity;
}

void is_evaluator_bind(is_evaluator *ev, const volatile sig_atomic_t *stop,
                       is_evaluator_report report, void *context)
{
    ev->config.stop = stop;
    ev->config.report = report;
    ev->config.context = context;
}

/* --- what every call does: guards and checks ---------------------------------------- */

/* Outputs NaN (a failed point may leave them), statuses "none given", canaries after the
 * part a call of `count` uses (to the end of the room in strict mode). */
static void prepare(is_evaluator *ev, double *outputs, uint8_t *status, size_t count,
                    size_t room_bytes_out, size_t room_bytes_status)
{
    shm_prepare(outputs, status, count, ev->no, ev->config.strict, room_bytes_out,
                room_bytes_status);
}

/* The name of the first array whose canary a call of `count` broke, or NULL. */
static const char *broken_guard(const is_evaluator *ev, const double *outputs,
                                const uint8_t *status, size_t count, size_t room_bytes_out,
                                size_t room_bytes_status)
{
    size_t used = count * ev->no;
    size_t out_guard = ev->config.strict ? room_bytes_out - used * sizeof(double) : GUARD_BYTES;
    size_t st_guard = ev->config.strict ? room_bytes_status - count : GUARD_BYTES;
    uint64_t pattern = GUARD_OUTPUT;
    for (size_t b = 0; b + sizeof pattern <= out_guard; b += sizeof pattern)
        if (memcmp((const char *)(outputs + used) + b, &pattern, sizeof pattern) != 0)
            return "outputs";
    for (size_t b = 0; b < st_guard; b++)
        if (status[count + b] != GUARD_STATUS)
            return "status";
    return NULL;
}

typedef struct check_context {
    is_evaluator *ev;
    size_t offset; /* the checked part's first point in the call */
} check_context;

static void report_point(is_evaluator *ev, size_t index, uint8_t status, const char *reason)
{
    if (ev->config.strict && !ev->breach[0])
        snprintf(ev->breach, sizeof ev->breach, "point %zu of a batch: %s", index, reason);
    if (ev->config.report) {
        is_evaluator_failure f = {index, status, reason};
        ev->config.report(ev->config.context, ev->points + index * ev->np, &f);
    }
}

static void on_breach(void *context, size_t index, const char *reason)
{
    check_context *c = context;
    report_point(c->ev, c->offset + index, IS_POINT_FAILED_CHECK, reason);
}

static size_t check_results(is_evaluator *ev, double *outputs, uint8_t *status, size_t count,
                            size_t offset)
{
    check_context c = {ev, offset};
    return is_conformance_results(ev->model, outputs, status, count, stop_requested(ev), on_breach,
                                  &c);
}

static is_code strict_result(is_evaluator *ev, is_error *err)
{
    if (!ev->config.strict || !ev->breach[0])
        return IS_OK;
    return is_error_set(err, IS_PLUGIN, "model %s: eval_batch breaks the contract: %s",
                        ev->model->name, ev->breach);
}

/* --- in process ---------------------------------------------------------------------- */

static is_code direct_create(is_evaluator *ev, is_error *err)
{
    size_t cap = ev->config.capacity, out_room = cap * ev->no * sizeof(double) + GUARD_BYTES;
    ev->points = malloc((cap * ev->np + 1) * sizeof *ev->points);
    ev->outputs_room = malloc(out_room + GUARD_BYTES);
    ev->status_room = malloc(cap + 2 * GUARD_BYTES);
    if (!ev->points || !ev->outputs_room || !ev->status_room)
        return is_error_set(err, IS_NOMEM, "out of memory");
    ev->outputs = (double *)((char *)ev->outputs_room + GUARD_BYTES);
    ev->status = ev->status_room + GUARD_BYTES;
    return IS_OK;
}

/* The workspace, made at the first evaluation (a validation needs none). */
static is_code direct_workspace(is_evaluator *ev, is_error *err)
{
    const is_model *m = ev->model;
    if (ev->workspace_made)
        return IS_OK;
    is_code rc = m->workspace_create ? m->workspace_create(&ev->workspace, err) : IS_OK;
    if (rc == IS_OK && m->workspace_watch && ev->config.stop)
        m->workspace_watch(ev->workspace, ev->config.stop);
    ev->workspace_made = rc == IS_OK;
    return rc;
}

/* The canaries before the arrays (in process there are no guard pages). */
static int leading_guards_intact(const is_evaluator *ev)
{
    uint64_t pattern = GUARD_OUTPUT;
    for (size_t b = 0; b < GUARD_BYTES; b += sizeof pattern)
        if (memcmp((const char *)ev->outputs_room + b, &pattern, sizeof pattern) != 0)
            return 0;
    for (size_t b = 0; b < GUARD_BYTES; b++)
        if (ev->status_room[b] != GUARD_STATUS)
            return 0;
    return 1;
}

static is_code direct_eval(is_evaluator *ev, size_t count, is_error *err)
{
    size_t out_room = ev->config.capacity * ev->no * sizeof(double) + GUARD_BYTES;
    size_t st_room = ev->config.capacity + GUARD_BYTES;
    uint64_t pattern = GUARD_OUTPUT;
    for (size_t b = 0; b < GUARD_BYTES; b += sizeof pattern)
        memcpy((char *)ev->outputs_room + b, &pattern, sizeof pattern);
    memset(ev->status_room, GUARD_STATUS, GUARD_BYTES);
    prepare(ev, ev->outputs, ev->status, count, out_room, st_room);
    is_code rc = direct_workspace(ev, err);
    double started = thread_cpu_now();
    if (rc == IS_OK)
        rc = ev->model->eval_batch(ev->workspace, ev->points, count, ev->outputs, ev->status, err);
    ev->cpu = thread_cpu_now() - started;
    if (rc != IS_OK)
        return rc;
    const char *broken = broken_guard(ev, ev->outputs, ev->status, count, out_room, st_room);
    if (!broken && !leading_guards_intact(ev))
        broken = "outputs or status (before its start)";
    if (broken)
        return is_error_set(err, ev->config.strict ? IS_PLUGIN : IS_INTERNAL,
                            "model %s: eval_batch wrote outside its %s array (a batch of %zu "
                            "points)%s",
                            ev->model->name, broken, count,
                            ev->config.strict ? ""
                                              : ": the run stops, its memory is not to be "
                                                "trusted");
    check_results(ev, ev->outputs, ev->status, count, 0);
    return strict_result(ev, err);
}

/* --- the evaluator process ----------------------------------------------------------- */

/* The evaluator process (its worker with it) is gone: closed, reaped. */
static void reap(is_evaluator *ev)
{
    if (ev->socket >= 0)
        close(ev->socket);
    ev->socket = -1;
    if (ev->pid > 0)
        while (waitpid(ev->pid, NULL, 0) < 0 && errno == EINTR)
            ;
    ev->pid = ev->worker = 0;
    ev->ready = 0;
}

static void kill_process(is_evaluator *ev)
{
    if (ev->worker > 0)
        kill(ev->worker, SIGKILL);
    if (ev->pid > 0)
        kill(ev->pid, SIGKILL);
    reap(ev);
}

static const char *fault_text(int where)
{
    switch (where) {
    case FAULT_POINTS:
        return ", writing into its parameters (read-only)";
    case FAULT_BEFORE_OUTPUTS:
        return ", writing before the start of its outputs array";
    case FAULT_AFTER_OUTPUTS:
        return ", writing past the end of its outputs array";
    case FAULT_BEFORE_STATUS:
        return ", writing before the start of its status array";
    case FAULT_AFTER_STATUS:
        return ", writing past the end of its status array";
    case FAULT_HANDLER:
        return ", with the engine's handler of it replaced or the signal blocked (a fault "
               "may have gone unseen)";
    default:
        return "";
    }
}

/* "the model's code crashed with signal 11 (Segmentation fault), writing ..." */
static void describe_death(const is_evaluator *ev, int wstatus, char *text, size_t size)
{
    const shm_control *control = ev->control;
    if (WIFSIGNALED(wstatus)) {
        int signo = WTERMSIG(wstatus);
        snprintf(text, size, "the model's code crashed with signal %d (%s)%s", signo,
                 strsignal(signo),
                 control->fault_signal == signo ? fault_text(control->fault_where) : "");
    } else if (WIFEXITED(wstatus)) {
        snprintf(text, size, "the model's code ended its process: exit(%d)", WEXITSTATUS(wstatus));
    } else {
        snprintf(text, size, "the evaluator process ended (status %#x)", (unsigned)wstatus);
    }
}

/* The next message of the evaluator process, if one comes within POLL_MS: 1 got it, 0
 * none yet, -1 the process is gone. */
/* --- a call's pipe (evaluator_shm.h) ------------------------------------------------- */

static void kill_worker(is_evaluator *ev);

/* Whether the pipe is still to be read: open, and no byte past the results yet (a
 * process that writes more makes the call bad: it is not read on). */
static int pipe_open(const is_evaluator *ev)
{
    return ev->pipe_fd >= 0 && !ev->pipe_eof && ev->pipe_got <= ev->pipe_out + ev->pipe_status;
}

/* What the pipe holds now, read into the outputs and then the statuses (bytes past
 * them end the reading); at its end, pipe_eof. */
static void drain_pipe(is_evaluator *ev)
{
    char scratch[64];
    while (pipe_open(ev)) {
        size_t at = ev->pipe_got, out = ev->pipe_out, want = ev->pipe_out + ev->pipe_status;
        char *to = at < out ? (char *)ev->outputs + at
                   : at < want ? (char *)ev->status + (at - out)
                               : scratch;
        size_t room = at < out ? out - at : at < want ? want - at : sizeof scratch;
        ssize_t got = read(ev->pipe_fd, to, room);
        if (got < 0 && errno == EINTR)
            continue;
        if (got < 0)
            return; /* EAGAIN: nothing more for now */
        if (got == 0)
            ev->pipe_eof = 1;
        ev->pipe_got += (size_t)got;
    }
}

static void close_pipe(is_evaluator *ev)
{
    if (ev->pipe_fd >= 0)
        close(ev->pipe_fd);
    ev->pipe_fd = -1;
}

/* A pipe for a call of `count` points: its write end (to pass on), or -1 (err). */
static int open_pipe(is_evaluator *ev, size_t count, is_error *err)
{
    int p[2];
    if (pipe(p) != 0) {
        is_error_set(err, IS_PLUGIN, "evaluator of model %s: pipe: %s", ev->model->name,
                     strerror(errno));
        return -1;
    }
    fcntl(p[0], F_SETFD, FD_CLOEXEC);
    fcntl(p[1], F_SETFD, FD_CLOEXEC);
    fcntl(p[0], F_SETFL, O_NONBLOCK);
    fcntl(p[1], F_SETPIPE_SZ, 1 << 20); /* (fewer wake-ups; the default where refused) */
    ev->pipe_fd = p[0];
    ev->pipe_got = 0;
    ev->pipe_eof = 0;
    shm_call_bytes(&ev->layout, count, ev->config.strict, &ev->pipe_out, &ev->pipe_status);
    return p[1];
}

/* After the reply to a call: its results, all of them, and then the pipe's end. A pipe
 * that does not end is still held by a process (or a thread) the model's code started,
 * which outlived the call: the worker is killed and the call is bad. */
static run_result pipe_results(is_evaluator *ev, bad_run *bad)
{
    drain_pipe(ev); /* (the worker wrote it all before it replied: no waiting) */
    size_t want = ev->pipe_out + ev->pipe_status;
    if (ev->pipe_eof && ev->pipe_got == want)
        return RUN_OK;
    int open = !ev->pipe_eof;
    kill_worker(ev);
    bad->status = IS_POINT_FAILED_CHECK;
    snprintf(bad->reason, sizeof bad->reason, "%s",
             open ? "its results could still be written after eval_batch had returned (a "
                    "process or thread of the model's code outlived the call): killed"
                  : "its results were not sent whole (the model's code wrote into their pipe)");
    return RUN_BAD;
}

static int receive_now(is_evaluator *ev, shm_message *m)
{
    struct pollfd p[2] = {{ev->socket, POLLIN, 0}, {ev->pipe_fd, POLLIN, 0}};
    int n = poll(p, pipe_open(ev) ? 2 : 1, POLL_MS);
    if (n > 0 && p[1].revents)
        drain_pipe(ev); /* (the worker waits while the pipe is full) */
    if (n <= 0 || !p[0].revents)
        return 0; /* (a signal interrupting the poll: the caller looks again) */
    ssize_t got;
    while ((got = recv(ev->socket, m, sizeof *m, 0)) < 0 && errno == EINTR)
        ;
    return got == (ssize_t)sizeof *m ? 1 : -1;
}

/* ... waiting at most until `deadline` and, with `stoppable`, while no stop is asked for:
 * 0 when they came first. */
static int receive(is_evaluator *ev, shm_message *m, double deadline, int stoppable)
{
    for (;;) {
        int got = receive_now(ev, m);
        if (got != 0)
            return got;
        if (now_seconds() > deadline || (stoppable && stop_requested(ev)))
            return 0;
    }
}

/* Kills the worker and takes the process's word that it died (then it makes the next);
 * the process itself, if it does not say so in time. */
static void kill_worker(is_evaluator *ev)
{
    shm_message m;
    if (ev->worker > 0)
        kill(ev->worker, SIGKILL);
    ev->ready = 0;
    int got = 0;
    double until = now_seconds() + IS_EVALUATOR_STOP_GRACE;
    while ((got = receive(ev, &m, until, 0)) == 1 && m.op != OP_DIED)
        ; /* (a reply that crossed the kill) */
    if (got != 1)
        kill_process(ev);
}

/* The request and its call's pipe `fd` (-1: none), sent. */
static void send_request(is_evaluator *ev, const shm_message *request, int fd)
{
    ev->control->fault_signal = ev->control->fault_where = 0;
    union {
        char bytes[CMSG_SPACE(sizeof(int))];
        struct cmsghdr align;
    } room;
    memset(&room, 0, sizeof room);
    struct iovec iov = {(void *)request, sizeof *request};
    struct msghdr msg = {0};
    msg.msg_iov = &iov;
    msg.msg_iovlen = 1;
    msg.msg_control = room.bytes;
    msg.msg_controllen = sizeof room.bytes;
    struct cmsghdr *c = CMSG_FIRSTHDR(&msg);
    c->cmsg_level = SOL_SOCKET;
    c->cmsg_type = SCM_RIGHTS;
    c->cmsg_len = CMSG_LEN(sizeof(int));
    memcpy(CMSG_DATA(c), &fd, sizeof fd);
    if (fd < 0) {
        msg.msg_control = NULL;
        msg.msg_controllen = 0;
    }
    while (sendmsg(ev->socket, &msg, MSG_NOSIGNAL) < 0 && errno == EINTR)
        ; /* (a dead end shows in the reply) */
}

/* After a request (send_request): *reply received unless the worker died, ran past
 * `deadline` (0: none) or a stop came: RUN_OK here means a reply is in *reply. */
static run_result exchange(is_evaluator *ev, double deadline, shm_message *reply, bad_run *bad)
{
    shm_control *control = ev->control;
    for (;;) {
        int got = receive_now(ev, reply);
        if (got == 1 && reply->op != OP_DIED)
            return RUN_OK;
        if (got != 0) { /* the worker died (or the whole process: then its status is lost) */
            int wstatus = got == 1 ? reply->code : 0;
            if (got == 1)
                ev->ready = 0;
            else
                kill_process(ev);
            if (ev->stop_since > 0)
                return RUN_STOPPED; /* whatever killed it, the stop decides */
            bad->status = IS_POINT_FAILED_CRASH;
            if (got == 1)
                describe_death(ev, wstatus, bad->reason, sizeof bad->reason);
            else
                snprintf(bad->reason, sizeof bad->reason, "the evaluator process died");
            return RUN_BAD;
        }
        double now = now_seconds();
        if (stop_requested(ev) && ev->stop_since == 0) {
            control->stop = 1;
            ev->stop_since = now;
        }
        if (ev->stop_since > 0 && now - ev->stop_since > IS_EVALUATOR_STOP_GRACE) {
            kill_worker(ev);
            return RUN_STOPPED;
        }
        if (deadline > 0 && now > deadline) {
            kill_worker(ev);
            bad->status = IS_POINT_FAILED_TIMEOUT;
            snprintf(bad->reason, sizeof bad->reason,
                     "it ran past the point timeout of %s s: killed",
                     IS_NUM(ev->config.point_timeout));
            return RUN_BAD;
        }
    }
}

/* The worker's first word: ready (its pid), or why not. */
static is_code await_worker(is_evaluator *ev, is_error *err)
{
    shm_control *control = ev->control;
    shm_message m = {0};
    int got = receive(ev, &m, now_seconds() + STARTUP_SECONDS, 1);
    if (got == 1 && m.op == OP_READY && m.code == IS_OK) {
        ev->worker = (pid_t)m.first;
        ev->ready = 1;
        return IS_OK;
    }
    char why[256] = "no answer";
    if (got == 1 && m.op == OP_DIED)
        describe_death(ev, m.code, why, sizeof why);
    else if (got == -1)
        snprintf(why, sizeof why, "it ended");
    kill_process(ev);
    if (got == 1 && m.op == OP_READY && control->message[0])
        return is_error_set(err, IS_PLUGIN, "evaluator process of model %s: %s", ev->model->name,
                            control->message);
    if (got == 0 && stop_requested(ev))
        return is_error_set(err, IS_INTERRUPTED, "stopped while the evaluator process started");
    return is_error_set(err, IS_PLUGIN,
                        "evaluator process of model %s: it did not start (%s, while loading "
                        "the model or making its workspace)",
                        ev->model->name, why);
}

/* Starts the evaluator process and waits for its first worker to be ready. */
static is_code spawn(is_evaluator *ev, is_error *err)
{
    int pair[2];
    if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, pair) != 0)
        return is_error_set(err, IS_PLUGIN, "evaluator process: socketpair: %s", strerror(errno));
    /* its two descriptors, without close-on-exec (copies made for the moment) */
    int child_socket = fcntl(pair[1], F_DUPFD, 3), child_memory = fcntl(ev->memory, F_DUPFD, 3);
    int child_points = fcntl(ev->points_memory, F_DUPFD, 3);
    char num[7][32];
    snprintf(num[0], 32, "%d", child_socket);
    snprintf(num[1], 32, "%d", child_memory);
    snprintf(num[2], 32, "%ld", (long)getpid());
    snprintf(num[3], 32, "%zu", ev->config.capacity);
    snprintf(num[4], 32, "%zu", ev->np);
    snprintf(num[5], 32, "%zu", ev->no);
    snprintf(num[6], 32, "%d", child_points);
    char *argv[32] = {ev->self,     IS_EVALUATOR_COMMAND,
                      "--socket",   num[0],
                      "--memory",   num[1],
                      "--parent",   num[2],
                      "--capacity", num[3],
                      "--params",   num[4],
                      "--outputs",  num[5],
                      "--model",    (char *)ev->model->name,
                      "--points",   num[6]};
    int k = 18;
    if (ev->config.library) {
        argv[k++] = "--library";
        argv[k++] = (char *)ev->config.library;
    }
    if (ev->config.sha256) {
        argv[k++] = "--sha256";
        argv[k++] = (char *)ev->config.sha256;
    }
    argv[k] = NULL;
    int rc = child_socket < 0 || child_memory < 0 || child_points < 0
                 ? errno
                 : posix_spawn(&ev->pid, ev->self, NULL, NULL, argv, environ);
    close(pair[1]);
    if (child_socket >= 0)
        close(child_socket);
    if (child_memory >= 0)
        close(child_memory);
    if (child_points >= 0)
        close(child_points);
    ev->socket = pair[0];
    if (rc != 0) {
        ev->pid = 0;
        reap(ev);
        return is_error_set(err, IS_PLUGIN, "cannot start the evaluator process %s: %s", ev->self,
                            strerror(rc));
    }
    (ev->control)->message[0] = '\0';
    return await_worker(ev, err);
}

/* A worker ready to take a request: the process started, or its next worker awaited. */
static is_code ensure_worker(is_evaluator *ev, is_error *err)
{
    if (ev->pid == 0)
        return spawn(ev, err);
    return ev->ready ? IS_OK : await_worker(ev, err);
}

static is_code contained_create(is_evaluator *ev, is_error *err)
{
    ssize_t n = readlink("/proc/self/exe", ev->self, sizeof ev->self - 1);
    if (n <= 0)
        return is_error_set(err, IS_PLUGIN, "cannot find this executable (/proc/self/exe)");
    ev->self[n] = '\0';
    shm_layout_of(&ev->layout, ev->config.capacity, ev->np, ev->no);
    ev->memory = (int)syscall(SYS_memfd_create, "impactsweep-control", 1u /* CLOEXEC */);
    if (ev->memory < 0 || ftruncate(ev->memory, (off_t)shm_control_size()) != 0)
        return is_error_set(err, IS_PLUGIN, "evaluator memory: %s", strerror(errno));
    void *control = mmap(NULL, shm_control_size(), PROT_READ | PROT_WRITE, MAP_SHARED,
                         ev->memory, 0);
    if (control == MAP_FAILED)
        return is_error_set(err, IS_PLUGIN, "evaluator memory: %s", strerror(errno));
    ev->control = control;
    /* the points: written by the engine alone (the seal forbids any other writer) */
    ev->points_memory = (int)syscall(SYS_memfd_create, "impactsweep-points", 3u);
    if (ev->points_memory < 0 || ftruncate(ev->points_memory, (off_t)ev->layout.points_size) != 0)
        return is_error_set(err, IS_PLUGIN, "evaluator memory: %s", strerror(errno));
    void *points = mmap(NULL, ev->layout.points_size, PROT_READ | PROT_WRITE, MAP_SHARED,
                        ev->points_memory, 0);
    if (points == MAP_FAILED)
        return is_error_set(err, IS_PLUGIN, "evaluator memory: %s", strerror(errno));
    ev->points_shared = points;
    if (fcntl(ev->points_memory, F_ADD_SEALS, F_SEAL_FUTURE_WRITE | F_SEAL_SHRINK | F_SEAL_GROW) &&
        errno != EINVAL) /* (a kernel before 5.1 has no such seal: mapped read-only, then) */
        return is_error_set(err, IS_PLUGIN, "evaluator memory: sealing the points: %s",
                            strerror(errno));
    ev->outputs_room = malloc(ev->layout.outputs_size);
    ev->status_room = malloc(ev->layout.status_size);
    ev->merged = malloc((ev->config.capacity * ev->no + 1) * sizeof *ev->merged);
    ev->merged_status = malloc(ev->config.capacity + 1);
    if (!ev->outputs_room || !ev->status_room || !ev->merged ||
        !ev->merged_status)
        return is_error_set(err, IS_NOMEM, "out of memory");
    ev->outputs = ev->outputs_room;
    ev->status = ev->status_room;
    ev->points = ev->points_shared;
    return spawn(ev, err);
}

/* The deadline of a call of `count` points (0: none). */
static double deadline_of(const is_evaluator *ev, size_t count, double start)
{
    double t = ev->config.point_timeout;
    if (t <= 0)
        return 0;
    double per_point = ev->cost_points > 0 ? ev->cost_seconds / ev->cost_points : 0;
    return start + (count == 1 ? t : t + DEADLINE_FACTOR * (double)count * per_point);
}

/* Evaluates points first .. first + count - 1 in the process, results (layout of count)
 * checked in the shared memory. */
static run_result run_once(is_evaluator *ev, size_t first, size_t count, bad_run *bad,
                           is_error *err)
{
    if (stop_requested(ev))
        return RUN_STOPPED;
    if (ev->stop_since > 0) { /* the stop asked for is over (the dry run's watchdog) */
        ev->stop_since = 0;
        (ev->control)->stop = 0;
    }
    is_code started = ensure_worker(ev, err);
    if (started != IS_OK)
        return started == IS_INTERRUPTED ? RUN_STOPPED : RUN_FAILED;
    int fd = open_pipe(ev, count, err);
    if (fd < 0)
        return RUN_FAILED;
    shm_message q = {OP_EVAL, ev->config.strict ? 1 : 0, first, count}, r;
    double start = now_seconds();
    send_request(ev, &q, fd);
    close(fd); /* (the worker's copy is the only one) */
    run_result result = exchange(ev, deadline_of(ev, count, start), &r, bad);
    if (result == RUN_OK && r.code == IS_OK)
        result = pipe_results(ev, bad);
    close_pipe(ev);
    if (result != RUN_OK)
        return result;
    if (r.code != IS_OK) {
        is_error_set(err, IS_MODEL, "model %s: eval_batch failed: %s", ev->model->name,
                     (ev->control)->message);
        return RUN_MODEL_ERROR;
    }
    const char *broken = broken_guard(ev, ev->outputs, ev->status, count, ev->layout.outputs_size,
                                      ev->layout.status_size);
    if (broken) {
        bad->status = IS_POINT_FAILED_CHECK;
        snprintf(bad->reason, sizeof bad->reason, "eval_batch wrote past the end of its %s array",
                 broken);
        return RUN_BAD;
    }
    ev->cpu += (ev->control)->cpu_seconds;
    if (count >= RATE_POINTS) { /* (a small call's time is the round trip's) */
        ev->cost_seconds += now_seconds() - start;
        ev->cost_points += (double)count;
    }
    check_results(ev, ev->outputs, ev->status, count, first);
    return RUN_OK;
}

/* Points first .. first + count - 1 of a bisected batch: all with `status`, no outputs. */
static void fill(is_evaluator *ev, size_t first, size_t count, uint8_t status)
{
    memset(ev->merged_status + first, status, count);
    for (size_t o = 0, at = 0; o < ev->model->output_count; o++) {
        size_t length = is_output_length(&ev->model->outputs[o]);
        for (size_t e = first * length; e < (first + count) * length; e++)
            ev->merged[at * ev->merged_count + e] = NAN;
        at += length;
    }
}

/* ... or as the last call left them in the shared memory (its layout: count points). */
static void keep(is_evaluator *ev, size_t first, size_t count)
{
    memcpy(ev->merged_status + first, ev->status, count);
    for (size_t o = 0, at = 0; o < ev->model->output_count; o++) { /* (model.h's layout) */
        size_t length = is_output_length(&ev->model->outputs[o]);
        memcpy(ev->merged + at * ev->merged_count + first * length, ev->outputs + at * count,
               count * length * sizeof *ev->merged);
        at += length;
    }
}

/* A bad call of `count` points is split into single points when they are few
 * (SINGLES_MAX), else into about sqrt(count) parts, each evaluated on its own (the bad
 * ones split again): the point that does it is alone after two or three rounds, at the
 * cost of as many deadlines or restarts of the process (halving would take log2(count)
 * of them) and a few hundred round trips (some 50 us each). */
#define SINGLES_MAX 256

static size_t part_size(size_t count)
{
    if (count <= SINGLES_MAX)
        return 1;
    size_t parts = (size_t)ceil(sqrt((double)count));
    return (count + parts - 1) / parts;
}

/* Points first .. first + count - 1 of a bisected batch, into merged: a call that goes
 * bad is split (part_size) until the point that does it is alone. */
static is_code solve(is_evaluator *ev, size_t first, size_t count, int *stopped, is_error *err);

static is_code solve_parts(is_evaluator *ev, size_t first, size_t count, int *stopped,
                           is_error *err)
{
    size_t part = part_size(count);
    is_code rc = IS_OK;
    for (size_t at = first; at < first + count && rc == IS_OK; at += part)
        rc = solve(ev, at, first + count - at < part ? first + count - at : part, stopped, err);
    return rc;
}

static is_code solve(is_evaluator *ev, size_t first, size_t count, int *stopped, is_error *err)
{
    bad_run bad = {0};
    run_result r = *stopped ? RUN_STOPPED : run_once(ev, first, count, &bad, err);
    switch (r) {
    case RUN_MODEL_ERROR:
    case RUN_FAILED:
        return err->code;
    case RUN_OK:
        keep(ev, first, count);
        return IS_OK;
    case RUN_STOPPED:
        *stopped = 1;
        fill(ev, first, count, IS_POINT_PENDING);
        return IS_OK;
    case RUN_BAD:
        break;
    }
    if (count == 1) {
        fill(ev, first, 1, bad.status);
        report_point(ev, first, bad.status, bad.reason);
        return IS_OK;
    }
    return solve_parts(ev, first, count, stopped, err);
}

static is_code contained_eval(is_evaluator *ev, size_t count, const double **outputs,
                              const uint8_t **status, is_error *err)
{
    bad_run bad = {0};
    run_result r = run_once(ev, 0, count, &bad, err);
    if (r == RUN_MODEL_ERROR || r == RUN_FAILED)
        return err->code;
    if (r == RUN_OK) {
        *outputs = ev->outputs;
        *status = ev->status;
        return strict_result(ev, err);
    }
    ev->merged_count = count;
    *outputs = ev->merged;
    *status = ev->merged_status;
    if (r == RUN_STOPPED) {
        fill(ev, 0, count, IS_POINT_PENDING);
        return IS_OK;
    }
    if (count == 1) {
        fill(ev, 0, 1, bad.status);
        report_point(ev, 0, bad.status, bad.reason);
        return strict_result(ev, err);
    }
    int stopped = 0;
    is_code rc = solve_parts(ev, 0, count, &stopped, err);
    return rc == IS_OK ? strict_result(ev, err) : rc;
}

/* validate on points first .. first + count - 1, bisected where it crashes. */
static is_code contained_validate(is_evaluator *ev, size_t first, size_t count, size_t *refused,
                                  is_error *why, is_error *err)
{
    is_code started = ensure_worker(ev, err);
    if (started != IS_OK)
        return started;
    shm_message q = {OP_VALIDATE, 0, first, count}, r;
    bad_run bad = {0};
    send_request(ev, &q, -1);
    run_result result = exchange(ev, 0, &r, &bad);
    if (result == RUN_STOPPED)
        return is_error_set(err, IS_INTERRUPTED, "stopped while checking the points");
    if (result == RUN_OK) {
        if (r.code != IS_OK) {
            *refused = (size_t)r.first;
            is_error_set(why, (is_code)r.code, "%s", (ev->control)->message);
        }
        return IS_OK;
    }
    if (count == 1) {
        *refused = first;
        is_error_set(why, IS_PLUGIN, "validate crashed on it: %s", bad.reason);
        return IS_OK;
    }
    size_t part = part_size(count);
    is_code rc = IS_OK;
    for (size_t at = first; at < first + count && rc == IS_OK && *refused == SIZE_MAX; at += part)
        rc = contained_validate(ev, at, first + count - at < part ? first + count - at : part,
                                refused, why, err);
    return rc;
}

/* --- the interface ------------------------------------------------------------------- */

is_code is_evaluator_create(is_evaluator **out, const is_evaluator_config *config, is_error *err)
{
    *out = NULL;
    is_evaluator *ev = calloc(1, sizeof *ev);
    if (!ev)
        return is_error_set(err, IS_NOMEM, "out of memory");
    ev->config = *config;
    if (ev->config.capacity < 1)
        ev->config.capacity = 1;
    ev->model = config->model;
    ev->np = ev->model->param_count;
    ev->no = is_model_value_count(ev->model); /* doubles per point */
    ev->memory = ev->socket = ev->points_memory = ev->pipe_fd = -1;
    is_code rc = config->contained ? contained_create(ev, err) : direct_create(ev, err);
    if (rc != IS_OK) {
        is_evaluator_free(&ev);
        return rc;
    }
    *out = ev;
    return IS_OK;
}

void is_evaluator_free(is_evaluator **evp)
{
    if (!evp || !*evp)
        return;
    is_evaluator *ev = *evp;
    if (ev->config.contained) {
        if (ev->pid > 0) { /* closing the socket ends it; a model that will not end, ends */
            shm_message q = {OP_QUIT, 0, 0, 0};
            send(ev->socket, &q, sizeof q, MSG_NOSIGNAL);
            close(ev->socket);
            ev->socket = -1;
            int ws;
            double until = now_seconds() + IS_EVALUATOR_STOP_GRACE;
            pid_t gone = 0;
            while ((gone = waitpid(ev->pid, &ws, WNOHANG)) == 0 && now_seconds() < until)
                nanosleep(&(struct timespec){0, 1000000}, NULL);
            if (gone == ev->pid) /* (ended: its pids may be another's by now) */
                ev->pid = ev->worker = 0;
            kill_process(ev);
        }
        if (ev->control)
            munmap(ev->control, shm_control_size());
        if (ev->memory >= 0)
            close(ev->memory);
        free(ev->merged);
        free(ev->merged_status);
    } else if (ev->workspace_made && ev->workspace && ev->model->workspace_free) {
        ev->model->workspace_free(ev->workspace);
    }
    if (ev->points_shared)
        munmap(ev->points_shared, ev->layout.points_size);
    else
        free(ev->points);
    if (ev->points_memory >= 0)
        close(ev->points_memory);
    free(ev->outputs_room);
    free(ev->status_room);
    free(ev);
    *evp = NULL;
}

is_code is_evaluator_eval(is_evaluator *ev, size_t count, const double **outputs,
                          const uint8_t **status, is_error *err)
{
    if (count > ev->config.capacity)
        return is_error_set(err, IS_INTERNAL, "evaluator: %zu points, room for %zu", count,
                            ev->config.capacity);
    ev->breach[0] = '\0';
    ev->cpu = 0;
    if (ev->config.contained)
        return contained_eval(ev, count, outputs, status, err);
    *outputs = ev->outputs;
    *status = ev->status;
    return direct_eval(ev, count, err);
}

is_code is_evaluator_validate(is_evaluator *ev, size_t first, size_t count, size_t *refused,
                              is_error *why, is_error *err)
{
    *refused = SIZE_MAX;
    is_code rc = IS_OK;
    if (first + count > ev->config.capacity)
        return is_error_set(err, IS_INTERNAL, "evaluator: points to %zu, room for %zu",
                            first + count, ev->config.capacity);
    if (ev->model->validate && ev->config.contained) {
        rc = contained_validate(ev, first, count, refused, why, err);
    } else if (ev->model->validate) {
        for (size_t i = first; i < first + count && *refused == SIZE_MAX; i++)
            if (ev->model->validate(ev->points + i * ev->np, why) != IS_OK)
                *refused = i;
    }
    if (*refused == SIZE_MAX)
        *refused = first + count;
    return rc;
}
