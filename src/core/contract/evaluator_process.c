/* evaluator_process.c: the evaluator process (evaluator.h): this executable started again
 * as `IMPACTSWEEP __evaluator ...` by a contained evaluator. It loads the model (a
 * built-in one by name, a plug-in from its library, whose checksum must match) once, and
 * then forks workers from that image, one at a time: a worker makes its workspace, says
 * READY (with its pid) and answers the engine's requests on the socket, the data in
 * shared memory (evaluator_shm.h), until the socket closes or the engine says QUIT. When
 * a worker dies of the model's code (a signal, exit(), the engine's SIGKILL past a
 * deadline) the process tells the engine how (DIED), ends whatever the worker left
 * running (it is their subreaper: a setsid grandchild is reparented to it too), and forks
 * the next: a restart costs a fork, not an exec and a load. Both die with their parent,
 * ignore the stop signals (the engine passes a stop on through the shared flag), and a
 * worker records where a fault fell before dying of it, so that the engine can say what
 * the model did. Any SIGSEGV or SIGBUS ends the worker, a real fault or one the model's
 * code raised itself (raise, kill: a point must not go on after it), and so does a call
 * after which the handler is no longer the engine's or such a signal waits, blocked. */
#include "evaluator.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "engine.h"
#include "evaluator_shm.h"
#include "plugin.h"

typedef struct process_args {
    int socket, memory, points;
    pid_t parent;
    size_t capacity, params, outputs;
    const char *model, *library, *sha256;
} process_args;

/* What the fault handler needs: a signal handler reaches globals only (as signals.c).
 * fault_base is the worker's outputs (NULL in the process itself). */
static shm_control *fault_control;
static shm_layout fault_layout;
static char *volatile fault_base;
static const char *fault_points;

static int fault_region(uintptr_t at)
{
    const shm_layout *l = &fault_layout;
    uintptr_t base = (uintptr_t)fault_base, points = (uintptr_t)fault_points;
    if (fault_points && at >= points && at < points + l->points_size)
        return FAULT_POINTS;
    if (!fault_base || at < base || at >= base + l->total)
        return FAULT_ELSEWHERE;
    size_t off = at - base;
    if (off < l->outputs_at)
        return FAULT_BEFORE_OUTPUTS;
    if (off < l->guard2_at)
        return FAULT_AFTER_OUTPUTS;
    if (off < l->status_at) /* the guard between: its first half follows the outputs */
        return off < l->guard2_at + l->page / 2 ? FAULT_AFTER_OUTPUTS : FAULT_BEFORE_STATUS;
    return FAULT_AFTER_STATUS;
}

static void on_fault(int signo, siginfo_t *info, void *unused)
{
    (void)unused;
    if (fault_control) {
        fault_control->fault_signal = signo;
        fault_control->fault_where = fault_region((uintptr_t)info->si_addr);
    }
    /* Raised or real, the signal ends the worker: the default action, pending now (the
     * signal is blocked in its handler) and taken on return. A real fault would fault
     * again; a raised one would otherwise return into the model's code. */
    signal(signo, SIG_DFL);
    raise(signo);
}

static const int fault_signals[] = {SIGSEGV, SIGBUS};

/* The fault handlers, the engine's (again: the model's code may have replaced them), and
 * the signals unblocked in this thread. */
static void arm_faults(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_fault;
    sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
    sigemptyset(&sa.sa_mask);
    sigset_t set;
    sigemptyset(&set);
    for (size_t i = 0; i < sizeof fault_signals / sizeof *fault_signals; i++) {
        sigaction(fault_signals[i], &sa, NULL);
        sigaddset(&set, fault_signals[i]);
    }
    sigprocmask(SIG_UNBLOCK, &set, NULL);
}

/* After a call: a fault signal that waits (blocked by the model's code), or a handler
 * that is not the engine's any more (a signal may have been swallowed): the worker dies
 * of that signal, as of a fault, its kind recorded. */
static void disarm_faults(shm_control *control)
{
    sigset_t pending;
    sigemptyset(&pending);
    sigpending(&pending);
    for (size_t i = 0; i < sizeof fault_signals / sizeof *fault_signals; i++) {
        int signo = fault_signals[i];
        struct sigaction now;
        int replaced = sigaction(signo, NULL, &now) != 0 || !(now.sa_flags & SA_SIGINFO) ||
                       now.sa_sigaction != on_fault;
        if (!replaced && !sigismember(&pending, signo))
            continue;
        control->fault_signal = signo;
        control->fault_where = FAULT_HANDLER;
        signal(signo, SIG_DFL);
        sigset_t set;
        sigemptyset(&set);
        sigaddset(&set, signo);
        raise(signo);
        sigprocmask(SIG_UNBLOCK, &set, NULL); /* (the pending one is delivered here) */
        _exit(128 + signo);                   /* (not reached) */
    }
}

/* Dies with the engine; stop signals are the engine's to handle; faults are recorded. */
static void set_up_signals(pid_t parent)
{
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent)
        _exit(1);
    static const int ignored[] = {SIGINT, SIGTERM, SIGHUP, SIGUSR1, SIGUSR2, SIGPIPE};
    for (size_t i = 0; i < sizeof ignored / sizeof *ignored; i++)
        signal(ignored[i], SIG_IGN);
    static char stack[1 << 16]; /* a model's stack overflow still reaches the handler */
    stack_t ss = {.ss_sp = stack, .ss_size = sizeof stack};
    sigaltstack(&ss, NULL);
    arm_faults();
}

/* Every descriptor but the standard ones and ours is the engine's business (MPI's, the
 * result file's): closed, those /proc lists (else the first thousand). */
static void close_others(const process_args *a)
{
    int fds[1024], n = 0;
    DIR *d = opendir("/proc/self/fd");
    for (struct dirent *e; d && (e = readdir(d)) && n < 1024;)
        if (e->d_name[0] != '.')
            fds[n++] = atoi(e->d_name);
    if (d)
        closedir(d);
    if (!d)
        for (n = 0; n < 1024; n++)
            fds[n] = n;
    for (int i = 0; i < n; i++)
        if (fds[i] > 2 && fds[i] != a->socket && fds[i] != a->memory && fds[i] != a->points)
            close(fds[i]);
}

static int parse_args(int argc, char **argv, process_args *a)
{
    memset(a, 0, sizeof *a);
    a->socket = a->memory = a->points = -1;
    for (int i = 2; i + 1 < argc; i += 2) {
        const char *k = argv[i], *v = argv[i + 1];
        if (strcmp(k, "--socket") == 0)
            a->socket = atoi(v);
        else if (strcmp(k, "--memory") == 0)
            a->memory = atoi(v);
        else if (strcmp(k, "--points") == 0)
            a->points = atoi(v);
        else if (strcmp(k, "--parent") == 0)
            a->parent = (pid_t)atol(v);
        else if (strcmp(k, "--capacity") == 0)
            a->capacity = strtoull(v, NULL, 10);
        else if (strcmp(k, "--params") == 0)
            a->params = strtoull(v, NULL, 10);
        else if (strcmp(k, "--outputs") == 0)
            a->outputs = strtoull(v, NULL, 10);
        else if (strcmp(k, "--model") == 0)
            a->model = v;
        else if (strcmp(k, "--library") == 0)
            a->library = v;
        else if (strcmp(k, "--sha256") == 0)
            a->sha256 = v;
    }
    return a->socket >= 0 && a->memory >= 0 && a->points >= 0 && a->parent > 0 &&
           a->capacity > 0 && a->model;
}

/* The control page. */
static shm_control *map_control(const process_args *a)
{
    void *base = mmap(NULL, shm_control_size(), PROT_READ | PROT_WRITE, MAP_SHARED, a->memory, 0);
    return base == MAP_FAILED ? NULL : base;
}

/* The points, read-only (their memory is sealed: no process but the engine can write). */
static const double *map_points(const process_args *a, const shm_layout *l)
{
    void *base = mmap(NULL, l->points_size, PROT_READ, MAP_SHARED, a->points, 0);
    return base == MAP_FAILED ? NULL : base;
}

/* The worker's outputs and statuses, private, with the guards inaccessible. */
static char *map_outputs(const shm_layout *l)
{
    char *base = mmap(NULL, l->total, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (base == MAP_FAILED)
        return NULL;
    if (mprotect(base + l->guard1_at, l->page, PROT_NONE) != 0 ||
        mprotect(base + l->guard2_at, l->page, PROT_NONE) != 0 ||
        mprotect(base + l->guard3_at, l->page, PROT_NONE) != 0) {
        munmap(base, l->total);
        return NULL;
    }
    return base;
}

/* n bytes into the call's pipe: 0, or -1 when it broke (the engine gave up on the call). */
static int send_all(int fd, const char *bytes, size_t n)
{
    while (n > 0) {
        ssize_t put = write(fd, bytes, n);
        if (put < 0 && errno == EINTR)
            continue;
        if (put <= 0)
            return -1;
        bytes += put;
        n -= (size_t)put;
    }
    return 0;
}

/* The next request, and the descriptor of its memory (-1 with none): 1, or 0 when the
 * socket closed (or failed). */
static int receive_request(int socket, shm_message *q, int *fd)
{
    union {
        char bytes[CMSG_SPACE(sizeof(int))];
        struct cmsghdr align;
    } room;
    for (;;) {
        struct iovec iov = {q, sizeof *q};
        struct msghdr msg = {0};
        msg.msg_iov = &iov;
        msg.msg_iovlen = 1;
        msg.msg_control = room.bytes;
        msg.msg_controllen = sizeof room.bytes;
        *fd = -1;
        ssize_t n = recvmsg(socket, &msg, MSG_CMSG_CLOEXEC);
        if (n < 0 && errno == EINTR)
            continue;
        for (struct cmsghdr *c = CMSG_FIRSTHDR(&msg); c; c = CMSG_NXTHDR(&msg, c))
            if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS)
                memcpy(fd, CMSG_DATA(c), sizeof *fd);
        if (n == (ssize_t)sizeof *q)
            return 1;
        if (*fd >= 0)
            close(*fd);
        return 0;
    }
}

/* The model: built in by name, or from its library (the very bytes the engine loaded). */
static is_code find_model(const process_args *a, const is_model *const *builtin, is_models **models,
                          const is_model **model, is_error *err)
{
    is_code rc = is_models_create(models, builtin, IS_MODELS_LOAD | IS_MODELS_QUIET, err);
    if (rc != IS_OK)
        return rc;
    if (!a->library) {
        *model = is_models_find(*models, a->model);
        return *model ? IS_OK : is_error_set(err, IS_PLUGIN, "no built-in model %s", a->model);
    }
    rc = is_models_load(*models, a->library, model, err);
    const char *sha = NULL;
    is_models_library(*models, *model, &sha);
    if (rc == IS_OK && a->sha256 && sha && strcmp(sha, a->sha256) != 0)
        rc = is_error_set(err, IS_PLUGIN,
                          "model plug-in %s changed since the run loaded it (sha256 %s, now %s)",
                          a->library, a->sha256, sha);
    if (rc == IS_OK &&
        ((*model)->param_count != a->params || is_model_value_count(*model) != a->outputs))
        rc = is_error_set(err, IS_PLUGIN, "model plug-in %s is not the model %s loaded", a->library,
                          a->model);
    return rc;
}

/* This process's CPU time (a model may start threads of its own), in seconds. */
static double cpu_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void reply(int socket, shm_control *control, uint32_t op, is_code code, uint64_t first,
                  const is_error *err)
{
    if (code != IS_OK && err)
        snprintf(control->message, sizeof control->message, "%s", err->message);
    shm_message m = {op, (int32_t)code, first, 0};
    while (send(socket, &m, sizeof m, MSG_NOSIGNAL) < 0 && errno == EINTR)
        ;
}

/* The model's validate on points first .. first + count - 1: *refused the first it
 * refuses (IS_PARAM, `why`), first + count when none. */
static is_code run_validate(const is_model *m, const double *points, const shm_message *q,
                            uint64_t *refused, is_error *why)
{
    for (uint64_t i = q->first; i < q->first + q->count && m->validate; i++) {
        if (m->validate(points + i * m->param_count, why) != IS_OK) {
            *refused = i;
            return IS_PARAM;
        }
    }
    *refused = q->first + q->count;
    return IS_OK;
}

/* The requests. An evaluation's results (outputs, statuses, canaries) go into the pipe
 * that came with it, which is closed before the reply (evaluator_shm.h). */
static void serve(int socket, const is_model *m, void *ws, shm_control *control,
                  const double *points, char *base, const shm_layout *l)
{
    double *outputs = (double *)(base + l->outputs_at);
    uint8_t *status = (uint8_t *)(base + l->status_at);
    for (;;) {
        shm_message q;
        int fd = -1;
        if (!receive_request(socket, &q, &fd) || q.op == OP_QUIT ||
            q.first + q.count > l->capacity || (q.op == OP_EVAL && fd < 0)) {
            if (fd >= 0)
                close(fd);
            return;
        }
        is_error err;
        is_error_clear(&err);
        is_code rc = IS_OK;
        uint64_t refused = 0;
        arm_faults();
        if (q.op == OP_VALIDATE) {
            rc = run_validate(m, points, &q, &refused, &err);
            disarm_faults(control);
        } else {
            size_t out_bytes, st_bytes;
            shm_call_bytes(l, q.count, q.code == 1, &out_bytes, &st_bytes);
            shm_prepare(outputs, status, q.count, l->outputs, q.code == 1, l->outputs_size,
                        l->status_size);
            double started = cpu_now();
            rc = m->eval_batch(ws, points + q.first * m->param_count, q.count, outputs, status,
                               &err);
            control->cpu_seconds = cpu_now() - started;
            disarm_faults(control);
            if (rc == IS_OK && (send_all(fd, (const char *)outputs, out_bytes) != 0 ||
                                send_all(fd, (const char *)status, st_bytes) != 0))
                rc = is_error_set(&err, IS_PLUGIN, "the results could not be sent");
        }
        if (fd >= 0)
            close(fd);
        reply(socket, control, q.op, rc, q.op == OP_VALIDATE ? refused : q.first, &err);
    }
}

/* A worker: the workspace, READY, then the requests. It ends with _exit: its exit status
 * and the shared `quit` flag tell the process whether the engine ended it. */
static void work(int socket, const is_model *m, shm_control *control, const double *points,
                 const shm_layout *l, pid_t zygote)
{
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != zygote)
        _exit(1);
    void *ws = NULL;
    is_error err;
    is_error_clear(&err);
    char *base = map_outputs(l);
    if (!base)
        _exit(1);
    fault_base = base;
    is_code rc = m->workspace_create ? m->workspace_create(&ws, &err) : IS_OK;
    if (rc == IS_OK && m->workspace_watch)
        m->workspace_watch(ws, &control->stop);
    reply(socket, control, OP_READY, rc, (uint64_t)getpid(), &err);
    if (rc == IS_OK)
        serve(socket, m, ws, control, points, base, l);
    if (ws && m->workspace_free)
        m->workspace_free(ws);
    control->quit = 1;
    _exit(rc == IS_OK ? 0 : 1);
}

/* Every process the worker left behind (now this process's children: it is their
 * subreaper), killed and reaped, until none is left (one that forks meanwhile leaves
 * its children here too). */
static void end_orphans(void)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/self/task/%ld/children", (long)getpid());
    for (int rounds = 0; rounds < 10000; rounds++) {
        FILE *f = fopen(path, "r");
        long pid;
        int killed = 0;
        while (f && fscanf(f, "%ld", &pid) == 1)
            killed += kill((pid_t)pid, SIGKILL) == 0;
        if (f)
            fclose(f);
        if (waitpid(-1, NULL, killed ? 0 : WNOHANG) <= 0 && !killed)
            return; /* (no child left, or none has ended: the list was empty) */
        while (waitpid(-1, NULL, WNOHANG) > 0)
            ;
    }
}

int is_evaluator_process_main(int argc, char **argv, const is_model *const *builtin)
{
    process_args a;
    if (!parse_args(argc, argv, &a)) {
        fprintf(stderr, "impactsweep: %s is started by impactsweep itself\n", IS_EVALUATOR_COMMAND);
        return 2;
    }
    set_up_signals(a.parent);
    close_others(&a);
    shm_layout l;
    shm_layout_of(&l, a.capacity, a.params, a.outputs);
    shm_control *control = map_control(&a);
    const double *points = map_points(&a, &l);
    if (!control || !points)
        return 1;
    close(a.memory);
    close(a.points);
    fault_control = control;
    fault_layout = l;
    fault_points = (const char *)points;
    /* what a worker leaves running is reparented here (end_orphans), setsid or not */
    prctl(PR_SET_CHILD_SUBREAPER, 1);
    is_models *models = NULL;
    const is_model *m = NULL;
    is_error err;
    is_error_clear(&err);
    if (find_model(&a, builtin, &models, &m, &err) != IS_OK) {
        reply(a.socket, control, OP_READY, err.code, 0, &err);
        _exit(1); /* none of the engine's exit handlers: they are not ours */
    }
    for (;;) { /* a worker at a time; the next when one dies */
        control->quit = 0;
        pid_t worker = fork();
        if (worker == 0)
            work(a.socket, m, control, points, &l, getppid());
        int wstatus = 0;
        while (worker > 0 && waitpid(worker, &wstatus, 0) < 0 && errno == EINTR)
            ;
        end_orphans();
        if (worker < 0 || control->quit)
            break; /* the engine ended it (or no worker could be made) */
        shm_message died = {OP_DIED, (int32_t)wstatus, (uint64_t)worker, 0};
        if (send(a.socket, &died, sizeof died, MSG_NOSIGNAL) != (ssize_t)sizeof died)
            break; /* the engine is gone */
    }
    _exit(0);
}
