/* evaluator_process.c: the evaluator process (evaluator.h): this executable started again
 * as `IMPACTSWEEP __evaluator ...` by a contained evaluator. It loads the model (a
 * built-in one by name, a plug-in from its library, whose checksum must match) once, and
 * then forks workers from that image, one at a time: a worker makes its workspace, says
 * READY (with its pid) and answers the engine's requests on the socket, the data in
 * shared memory (evaluator_shm.h), until the socket closes or the engine says QUIT. When
 * a worker dies of the model's code (a signal, exit(), the engine's SIGKILL past a
 * deadline) the process tells the engine how (DIED) and forks the next: a restart costs a
 * fork, not an exec and a load. Both die with their parent, ignore the stop signals (the
 * engine passes a stop on through the shared flag), and a worker records where a fault
 * fell before dying of it, so that the engine can say what the model did. */
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
    int socket, memory;
    pid_t parent;
    size_t capacity, params, outputs;
    const char *model, *library, *sha256;
} process_args;

/* What the fault handler needs: a signal handler reaches globals only (as signals.c). */
static shm_control *fault_control;
static shm_layout fault_layout;
static char *fault_base;

static int fault_region(uintptr_t at)
{
    const shm_layout *l = &fault_layout;
    uintptr_t base = (uintptr_t)fault_base;
    if (!fault_base || at < base || at >= base + l->total)
        return FAULT_ELSEWHERE;
    size_t off = at - base;
    if (off < l->points_at)
        return FAULT_CONTROL;
    if (off < l->guard1_at)
        return FAULT_POINTS;
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
    signal(signo, SIG_DFL); /* returning faults again, now fatally: the engine sees it */
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
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_fault;
    sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGSEGV, &sa, NULL);
    sigaction(SIGBUS, &sa, NULL);
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
        if (fds[i] > 2 && fds[i] != a->socket && fds[i] != a->memory)
            close(fds[i]);
}

static int parse_args(int argc, char **argv, process_args *a)
{
    memset(a, 0, sizeof *a);
    a->socket = a->memory = -1;
    for (int i = 2; i + 1 < argc; i += 2) {
        const char *k = argv[i], *v = argv[i + 1];
        if (strcmp(k, "--socket") == 0)
            a->socket = atoi(v);
        else if (strcmp(k, "--memory") == 0)
            a->memory = atoi(v);
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
    return a->socket >= 0 && a->memory >= 0 && a->parent > 0 && a->capacity > 0 && a->model;
}

/* The memory, with the points read-only and the guards inaccessible. */
static char *map_memory(const process_args *a, shm_layout *l)
{
    shm_layout_of(l, a->capacity, a->params, a->outputs);
    char *base = mmap(NULL, l->total, PROT_READ | PROT_WRITE, MAP_SHARED, a->memory, 0);
    if (base == MAP_FAILED)
        return NULL;
    mprotect(base + l->points_at, l->points_size, PROT_READ);
    mprotect(base + l->guard1_at, l->page, PROT_NONE);
    mprotect(base + l->guard2_at, l->page, PROT_NONE);
    mprotect(base + l->guard3_at, l->page, PROT_NONE);
    return base;
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
    if (rc == IS_OK && ((*model)->param_count != a->params || (*model)->output_count != a->outputs))
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

/* The model's validate on points first .. first + count - 1: the first it refuses. */
static void serve_validate(const is_model *m, const double *points, const shm_message *q,
                           int socket, shm_control *control)
{
    is_error why;
    is_error_clear(&why);
    for (uint64_t i = q->first; i < q->first + q->count && m->validate; i++) {
        if (m->validate(points + i * m->param_count, &why) != IS_OK) {
            reply(socket, control, OP_VALIDATE, IS_PARAM, i, &why);
            return;
        }
    }
    reply(socket, control, OP_VALIDATE, IS_OK, q->first + q->count, NULL);
}

static void serve(int socket, const is_model *m, void *ws, char *base, const shm_layout *l)
{
    shm_control *control = (shm_control *)base;
    const double *points = (const double *)(base + l->points_at);
    double *outputs = (double *)(base + l->outputs_at);
    uint8_t *status = (uint8_t *)(base + l->status_at);
    for (;;) {
        shm_message q;
        ssize_t n = recv(socket, &q, sizeof q, 0);
        if (n < 0 && errno == EINTR)
            continue;
        if (n != (ssize_t)sizeof q || q.op == OP_QUIT || q.first + q.count > l->capacity)
            return;
        if (q.op == OP_VALIDATE) {
            serve_validate(m, points, &q, socket, control);
            continue;
        }
        is_error err;
        is_error_clear(&err);
        double started = cpu_now();
        is_code rc =
            m->eval_batch(ws, points + q.first * m->param_count, q.count, outputs, status, &err);
        control->cpu_seconds = cpu_now() - started;
        reply(socket, control, OP_EVAL, rc, q.first, &err);
    }
}

/* A worker: the workspace, READY, then the requests. It ends with _exit: its exit status
 * and the shared `quit` flag tell the process whether the engine ended it. */
static void work(int socket, const is_model *m, char *base, const shm_layout *l, pid_t zygote)
{
    shm_control *control = (shm_control *)base;
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != zygote)
        _exit(1);
    void *ws = NULL;
    is_error err;
    is_error_clear(&err);
    is_code rc = m->workspace_create ? m->workspace_create(&ws, &err) : IS_OK;
    if (rc == IS_OK && m->workspace_watch)
        m->workspace_watch(ws, &control->stop);
    reply(socket, control, OP_READY, rc, (uint64_t)getpid(), &err);
    if (rc == IS_OK)
        serve(socket, m, ws, base, l);
    if (ws && m->workspace_free)
        m->workspace_free(ws);
    control->quit = 1;
    _exit(rc == IS_OK ? 0 : 1);
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
    char *base = map_memory(&a, &l);
    if (!base)
        return 1;
    shm_control *control = (shm_control *)base;
    fault_control = control;
    fault_layout = l;
    fault_base = base;
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
            work(a.socket, m, base, &l, getppid());
        int wstatus = 0;
        while (worker > 0 && waitpid(worker, &wstatus, 0) < 0 && errno == EINTR)
            ;
        if (worker < 0 || control->quit)
            break; /* the engine ended it (or no worker could be made) */
        shm_message died = {OP_DIED, (int32_t)wstatus, (uint64_t)worker, 0};
        if (send(a.socket, &died, sizeof died, MSG_NOSIGNAL) != (ssize_t)sizeof died)
            break; /* the engine is gone */
    }
    _exit(0);
}
