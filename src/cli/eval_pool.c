/* eval_pool.c: `impactsweep eval MODEL -n N -`: the stream of points on N worker processes.
 * The parent reads the input, deals its lines to the workers in blocks, in turn (each line
 * sent as "NUMBER<TAB>POINT", so that a worker's answers and messages carry the input's
 * line numbers), and prints the answers block by block in the order the blocks were dealt:
 * one answer a line, in the order of the lines, as one stream gives them. Every descriptor
 * is polled (the parent never blocks writing to a worker that is blocked writing to it),
 * and at most POOL_AHEAD blocks a worker are out, so the parent's memory is bounded
 * whatever the input's length. */
#include "eval.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../core/base/signals.h"
#include "../core/contract/engine.h"

#define POOL_BLOCK 16 /* lines a block: few enough that a short input is shared evenly,
                         enough to fill a worker's lanes */
#define POOL_AHEAD 4  /* blocks a worker may hold unanswered */
#define POOL_WORKERS_MAX 256

typedef struct bytes {
    char *data;
    size_t length, capacity;
} bytes;

typedef struct worker {
    pid_t pid;
    int to, from;  /* its standard input and output (-1: closed) */
    bytes out, in; /* what is still to be written to it; what it answered, not yet printed */
    int ended;     /* its output reached end of file */
} worker;

typedef struct block {
    int worker;
    size_t lines;
} block;

static int bytes_append(bytes *b, const char *data, size_t length)
{
    if (b->length + length > b->capacity) {
        size_t capacity = b->capacity ? b->capacity : 4096;
        while (capacity < b->length + length)
            capacity *= 2;
        char *grown = realloc(b->data, capacity);
        if (!grown)
            return -1;
        b->data = grown;
        b->capacity = capacity;
    }
    memcpy(b->data + b->length, data, length);
    b->length += length;
    return 0;
}

static void bytes_drop(bytes *b, size_t length)
{
    if (length == 0)
        return; /* (data may be NULL: memmove wants pointers) */
    memmove(b->data, b->data + length, b->length - length);
    b->length -= length;
}

static int start_worker(worker *w, const is_evaluator_config *config, const char *name,
                        const worker *all, int count)
{
    int to[2], from[2];
    if (pipe(to) != 0)
        return -1;
    if (pipe(from) != 0) {
        close(to[0]), close(to[1]);
        return -1;
    }
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) {
        close(to[0]), close(to[1]), close(from[0]), close(from[1]);
        return -1;
    }
    if (pid == 0) { /* the worker: a stream of its own on the pipes */
        for (int k = 0; k < count; k++) {
            if (all[k].to >= 0)
                close(all[k].to);
            if (all[k].from >= 0)
                close(all[k].from);
        }
        close(to[1]), close(from[0]);
        if (dup2(to[0], STDIN_FILENO) < 0 || dup2(from[1], STDOUT_FILENO) < 0)
            _exit(1);
        close(to[0]), close(from[1]);
        int status = is_cli_eval_stream_numbered(config, STDIN_FILENO, name, 1);
        fflush(stdout);
        _exit(status);
    }
    close(to[0]), close(from[1]);
    w->pid = pid;
    w->to = to[1];
    w->from = from[0];
    fcntl(w->to, F_SETFL, fcntl(w->to, F_GETFL) | O_NONBLOCK);
    return 0;
}

/* Lines of `b` complete at its start, at most `want`: their bytes. */
static size_t complete_lines(const bytes *b, size_t want, size_t *got)
{
    size_t at = 0;
    *got = 0;
    while (*got < want && at < b->length) { /* (data may be NULL when empty) */
        const char *nl = memchr(b->data + at, '\n', b->length - at);
        if (!nl)
            break;
        at = (size_t)(nl - b->data) + 1;
        (*got)++;
    }
    return at;
}

typedef struct pool {
    worker w[POOL_WORKERS_MAX];
    int count;
    block queue[POOL_WORKERS_MAX * POOL_AHEAD]; /* dealt, not yet printed: a ring */
    size_t head, queued;
    int next;          /* the worker the open block goes to */
    size_t open_lines; /* lines in the open block (not queued yet) */
    bytes input;       /* input read, not yet dealt */
    int input_ended;
    unsigned long number; /* input lines so far */
} pool;

static int queue_full(const pool *p)
{
    return p->queued >= (size_t)p->count * POOL_AHEAD;
}

static void close_block(pool *p)
{
    if (p->open_lines == 0)
        return;
    size_t slot = (p->head + p->queued) % (sizeof p->queue / sizeof *p->queue);
    p->queue[slot] = (block){p->next, p->open_lines};
    p->queued++;
    p->open_lines = 0;
    p->next = (p->next + 1) % p->count;
}

/* Deals the complete lines of the input read (and, at its end, a last one without a
 * newline) while blocks may be dealt. Returns -1 when out of memory. */
static int deal(pool *p)
{
    size_t at = 0;
    while (!queue_full(p) && at < p->input.length) { /* (data may be NULL when empty) */
        const char *start = p->input.data + at;
        const char *nl = memchr(start, '\n', p->input.length - at);
        size_t length = nl ? (size_t)(nl - start) : p->input.length - at;
        if (!nl && (!p->input_ended || length == 0))
            break;
        p->number++;
        if (!is_cli_eval_line_skipped(start, length)) { /* (no worker is sent them) */
            char prefix[32];
            int n = snprintf(prefix, sizeof prefix, "%lu\t", p->number);
            bytes *out = &p->w[p->next].out;
            if (bytes_append(out, prefix, (size_t)n) || bytes_append(out, start, length) ||
                bytes_append(out, "\n", 1))
                return -1;
            if (++p->open_lines == POOL_BLOCK)
                close_block(p);
        }
        at += length + (nl != NULL);
    }
    bytes_drop(&p->input, at);
    return 0;
}

/* Prints the answers of the blocks at the head of the queue that are complete. Returns 1
 * when a worker ended owing answers. */
static int print_answers(pool *p)
{
    while (p->queued) {
        block *b = &p->queue[p->head];
        worker *w = &p->w[b->worker];
        size_t got, length = complete_lines(&w->in, b->lines, &got);
        if (got < b->lines) {
            if (w->ended)
                return 1;
            if (length) /* a part now, the rest as it comes */
                fwrite(w->in.data, 1, length, stdout);
            bytes_drop(&w->in, length);
            b->lines -= got;
            break;
        }
        if (length)
            fwrite(w->in.data, 1, length, stdout);
        bytes_drop(&w->in, length);
        p->head = (p->head + 1) % (sizeof p->queue / sizeof *p->queue);
        p->queued--;
    }
    fflush(stdout);
    return 0;
}

/* One round: waits for any descriptor, then reads input, writes to workers, reads their
 * answers. Returns -1 on an error (errno), 0 otherwise. */
static int pump(pool *p, int fd)
{
    struct pollfd fds[1 + 2 * POOL_WORKERS_MAX];
    int n = 0, want_input = !p->input_ended && !queue_full(p) && !*is_signals_flag();
    if (want_input)
        fds[n++] = (struct pollfd){.fd = fd, .events = POLLIN};
    for (int k = 0; k < p->count; k++) {
        worker *w = &p->w[k];
        if (w->to >= 0 && w->out.length)
            fds[n++] = (struct pollfd){.fd = w->to, .events = POLLOUT};
        if (w->from >= 0)
            fds[n++] = (struct pollfd){.fd = w->from, .events = POLLIN};
    }
    if (n == 0)
        return 0;
    int ready = poll(fds, (nfds_t)n, 250);
    if (ready < 0)
        return errno == EINTR ? 0 : -1;
    for (int i = 0; i < n; i++) {
        if (!fds[i].revents)
            continue;
        char chunk[65536];
        if (want_input && fds[i].fd == fd) {
            ssize_t got = read(fd, chunk, sizeof chunk);
            if (got < 0 && errno != EINTR && errno != EAGAIN)
                return -1;
            if (got == 0)
                p->input_ended = 1;
            if (got > 0 && bytes_append(&p->input, chunk, (size_t)got))
                return errno = ENOMEM, -1;
            continue;
        }
        for (int k = 0; k < p->count; k++) {
            worker *w = &p->w[k];
            if (fds[i].fd == w->to && w->to >= 0) {
                ssize_t put = write(w->to, w->out.data, w->out.length);
                if (put > 0)
                    bytes_drop(&w->out, (size_t)put);
                else if (put < 0 && errno == EPIPE) /* it ended: its lines go unanswered */
                    w->out.length = 0;
            } else if (fds[i].fd == w->from && w->from >= 0) {
                ssize_t got = read(w->from, chunk, sizeof chunk);
                if (got > 0 && bytes_append(&w->in, chunk, (size_t)got))
                    return errno = ENOMEM, -1;
                if (got == 0 || (got < 0 && errno != EINTR && errno != EAGAIN)) {
                    close(w->from);
                    w->from = -1;
                    w->ended = 1;
                }
            }
        }
    }
    return 0;
}

/* The worst of the workers' exit statuses, as one stream ranks them: a refused line (2)
 * before a stop (75) before a failed point (1); anything else (a worker killed) first. */
static int severity(int status)
{
    return status == 0 ? 0 : status == 1 ? 1 : status == 75 ? 2 : status == 2 ? 3 : 4;
}

static int worst_status(int a, int b)
{
    return severity(b) > severity(a) ? b : a;
}

int is_cli_eval_pool(const is_evaluator_config *config, int fd, const char *name, int workers)
{
    if (workers <= 1)
        return is_cli_eval_stream(config, fd, name);
    pool *p = calloc(1, sizeof *p);
    if (!p) {
        fprintf(stderr, "impactsweep: eval -n %d: out of memory\n", workers);
        return 1;
    }
    signal(SIGPIPE, SIG_IGN); /* a worker that ended: EPIPE, not the end of the parent */
    is_signals_install();
    p->count = workers;
    for (int k = 0; k < workers; k++)
        p->w[k].to = p->w[k].from = -1;
    int status = 0, broken = 0;
    for (int k = 0; k < workers && !broken; k++)
        broken = start_worker(&p->w[k], config, name, p->w, k) != 0;
    if (broken) {
        fprintf(stderr, "impactsweep: eval -n %d: cannot start the workers: %s\n", workers,
                strerror(errno));
        status = 1;
    }
    while (!broken) {
        if (deal(p) != 0 || pump(p, fd) != 0) {
            fprintf(stderr, "impactsweep: eval -n %d: %s: %s\n", workers, name, strerror(errno));
            status = 1;
            break;
        }
        int stopping = *is_signals_flag();
        if (p->input_ended || stopping) {
            if (p->input_ended)
                deal(p); /* a last line without a newline */
            close_block(p);
        } else if (p->open_lines && !queue_full(p)) {
            struct pollfd waiting = {.fd = fd, .events = POLLIN};
            if (poll(&waiting, 1, 0) == 0)
                close_block(p); /* nothing more waiting: answer what there is */
        }
        if (print_answers(p)) {
            fprintf(stderr,
                    "impactsweep: eval -n %d: a worker ended without answering its "
                    "points\n",
                    workers);
            status = 1;
            break;
        }
        int all_sent = 1;
        for (int k = 0; k < workers; k++)
            all_sent &= p->w[k].out.length == 0;
        if ((p->input_ended || stopping) && all_sent)
            for (int k = 0; k < workers; k++)
                if (p->w[k].to >= 0) {
                    close(p->w[k].to); /* the end of its stream: it answers and exits */
                    p->w[k].to = -1;
                }
        if ((p->input_ended || stopping) && p->queued == 0 && p->open_lines == 0 && all_sent)
            break;
    }
    for (int k = 0; k < workers; k++) {
        worker *w = &p->w[k];
        if (w->to >= 0)
            close(w->to);
        if (w->from >= 0)
            close(w->from);
        int ws = 0;
        if (w->pid > 0 && waitpid(w->pid, &ws, 0) == w->pid)
            status = worst_status(status, WIFEXITED(ws) ? WEXITSTATUS(ws) : 1);
        free(w->out.data);
        free(w->in.data);
    }
    if (*is_signals_flag() && status != 2)
        status = is_code_exit_status(IS_INTERRUPTED);
    free(p->input.data);
    free(p);
    return status;
}
