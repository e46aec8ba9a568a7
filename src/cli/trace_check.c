/* trace_check.c: `impactsweep models --check`'s look at a model's trace (trace_check.h):
 * the trace of the model's default point, with the trace's default options, is run into a
 * sink that checks each sample and event as it comes (time finite and never running
 * backwards, an event at the time of the sample before it and of a declared kind, every
 * channel finite, or NaN throughout: a channel that does not apply to the point, as a
 * model may declare), then the run's end (a status, a sample at least) and its outputs
 * against eval_batch's for the same point (the contract: the same bits). A plug-in's trace
 * runs in a child process (its crash or hang is the model's failure, named, not the
 * command's). Nothing is written to disk. */
#include "trace_check.h"

#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../core/contract/engine.h"

/* Samples looked at at most: a longer trace is checked this far (a run to its end would
 * only cost time), its outputs then not compared. */
#define CHECK_MAX_SAMPLES 1000000

typedef struct checker {
    const is_model *m;
    size_t channels, kinds, samples, events;
    double last_t, last_event_t;
    int full; /* CHECK_MAX_SAMPLES reached: the run was stopped there */
    unsigned char *seen; /* per channel: 1 finite so far, 2 NaN so far (0: not yet) */
    is_error *err;
} checker;

/* Every channel finite, or NaN where it has always been (one that does not apply to the
 * point); else IS_PLUGIN naming the first that breaks it. */
static is_code check_values(checker *c, const char *what, size_t index, double t,
                            const double *values)
{
    for (size_t k = 0; k < c->channels; k++) {
        unsigned char kind = isfinite(values[k]) ? 1 : isnan(values[k]) ? 2 : 0;
        if (kind && !c->seen[k])
            c->seen[k] = kind;
        if (kind != c->seen[k])
            return is_error_set(c->err, IS_PLUGIN,
                                "model %s: its trace's %s %zu (t = %.17g) has channel %s = %g%s",
                                c->m->name, what, index, t, c->m->trace->channels[k].name,
                                values[k], kind == 2 ? " (finite before)" : "");
    }
    return IS_OK;
}

static is_code check_sample(void *context, double t, const double *values)
{
    checker *c = context;
    if (!isfinite(t))
        return is_error_set(c->err, IS_PLUGIN, "model %s: its trace's sample %zu has time %g",
                            c->m->name, c->samples, t);
    if (c->samples > 0 && t < c->last_t)
        return is_error_set(c->err, IS_PLUGIN,
                            "model %s: its trace's time runs backwards: sample %zu at t = "
                            "%.17g after one at t = %.17g",
                            c->m->name, c->samples, t, c->last_t);
    is_code rc = check_values(c, "sample", c->samples, t, values);
    if (rc != IS_OK)
        return rc;
    c->last_t = t;
    if (++c->samples >= CHECK_MAX_SAMPLES) {
        c->full = 1;
        return is_error_set(c->err, IS_INTERRUPTED, "enough samples checked");
    }
    return IS_OK;
}

static is_code check_event(void *context, double t, int kind, const double *values)
{
    checker *c = context;
    if (kind < 0 || (size_t)kind >= c->kinds)
        return is_error_set(c->err, IS_PLUGIN,
                            "model %s: its trace's event %zu has kind %d (its kinds are 0 to "
                            "%zu)",
                            c->m->name, c->events, kind, c->kinds - 1);
    if (c->samples == 0 || t != c->last_t)
        return is_error_set(c->err, IS_PLUGIN,
                            "model %s: its trace's event %zu (%s) at t = %.17g does not "
                            "follow a sample at its time (the last at t = %.17g)",
                            c->m->name, c->events, c->m->trace->events[kind], t, c->last_t);
    is_code rc = check_values(c, "event", c->events, t, values);
    c->last_event_t = t;
    c->events++;
    return rc;
}

/* What a trace run gives back (through a pipe from a child). */
typedef struct trace_outcome {
    is_code code;
    int full;
    uint8_t status;
    size_t samples, events;
    char message[sizeof(((is_error *)0)->message)];
} trace_outcome;

/* The trace of point with the default options, checked, in this process. */
static void run_checked(const is_model *m, const double *point, double *outputs,
                        trace_outcome *o)
{
    const is_model_trace *trace = m->trace;
    is_error err;
    is_error_clear(&err);
    double options[64]; /* (the contract's largest option count is smaller: PARAM_MAX) */
    for (size_t k = 0; k < trace->option_count && k < 64; k++)
        options[k] = trace->options[k].default_value;
    checker c = {.m = m, .channels = trace->channel_count, .err = &err,
                 .seen = calloc(trace->channel_count + 1, 1)};
    while (trace->events[c.kinds])
        c.kinds++;
    void *ws = NULL;
    is_code rc = !c.seen                ? is_error_set(&err, IS_NOMEM, "out of memory")
                 : m->workspace_create ? m->workspace_create(&ws, &err)
                                       : IS_OK;
    uint8_t status = IS_POINT_PENDING;
    if (rc == IS_OK) {
        is_trace_sink sink = {check_sample, check_event, &c};
        rc = trace->run(ws, point, options, &sink, outputs, &status, &err);
    }
    if (ws && m->workspace_free)
        m->workspace_free(ws);
    free(c.seen);
    if (c.full && rc == IS_INTERRUPTED)
        rc = IS_OK;
    else if (rc == IS_OK && c.samples == 0)
        rc = is_error_set(&err, IS_PLUGIN, "model %s: its trace wrote no sample", m->name);
    else if (rc == IS_OK && (status == IS_POINT_PENDING || status >= IS_POINT_STATUS_COUNT))
        rc = is_error_set(&err, IS_PLUGIN, "model %s: its trace left the point's status %s",
                          m->name, is_point_status_name(status));
    else if (rc != IS_OK && rc != IS_PLUGIN) {
        char why[sizeof err.message];
        snprintf(why, sizeof why, "%s", err.message); /* (err is written next) */
        rc = is_error_set(&err, IS_PLUGIN, "model %s: its trace failed: %s", m->name, why);
    }
    *o = (trace_outcome){.code = rc, .full = c.full, .status = status, .samples = c.samples,
                         .events = c.events};
    snprintf(o->message, sizeof o->message, "%s", rc == IS_OK ? "" : err.message);
}

static int read_all(int fd, void *buffer, size_t size)
{
    char *p = buffer;
    while (size > 0) {
        ssize_t n = read(fd, p, size);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return -1;
        p += n;
        size -= (size_t)n;
    }
    return 0;
}

/* run_checked in a child process, which `timeout` seconds end. */
static void run_contained(const is_model *m, const double *point, double *outputs,
                          double timeout, trace_outcome *o)
{
    size_t bytes = is_model_value_count(m) * sizeof *outputs;
    int pipefd[2];
    if (pipe(pipefd) != 0) {
        run_checked(m, point, outputs, o);
        return;
    }
    fflush(NULL);
    pid_t child = fork();
    if (child == 0) {
        close(pipefd[0]);
        alarm((unsigned)ceil(timeout));
        run_checked(m, point, outputs, o);
        int ok = write(pipefd[1], o, sizeof *o) == (ssize_t)sizeof *o &&
                 write(pipefd[1], outputs, bytes) == (ssize_t)bytes;
        _exit(ok ? 0 : 1);
    }
    close(pipefd[1]);
    int got = child > 0 && read_all(pipefd[0], o, sizeof *o) == 0 &&
              read_all(pipefd[0], outputs, bytes) == 0;
    close(pipefd[0]);
    int wstatus = 0;
    while (child > 0 && waitpid(child, &wstatus, 0) < 0 && errno == EINTR)
        ;
    if (got)
        return;
    *o = (trace_outcome){.code = IS_PLUGIN};
    if (child < 0)
        snprintf(o->message, sizeof o->message, "model %s: cannot run its trace: %s", m->name,
                 strerror(errno));
    else if (WIFSIGNALED(wstatus) && WTERMSIG(wstatus) == SIGALRM)
        snprintf(o->message, sizeof o->message,
                 "model %s: its trace of the default point ran past %g s (--timeout)", m->name,
                 timeout);
    else if (WIFSIGNALED(wstatus))
        snprintf(o->message, sizeof o->message, "model %s: its trace crashed with signal %d (%s)",
                 m->name, WTERMSIG(wstatus), strsignal(WTERMSIG(wstatus)));
    else
        snprintf(o->message, sizeof o->message, "model %s: its trace ended the process (exit %d)",
                 m->name, WEXITSTATUS(wstatus));
}

/* The trace's outputs and status against eval_batch's (evaluate) for the same point. */
static is_code compare_eval(const is_model *m, const double *point, const double *traced,
                            uint8_t traced_status, is_conformance_evaluate evaluate,
                            void *context, is_error *err)
{
    double *outputs = malloc(is_model_value_count(m) * sizeof *outputs);
    if (!outputs)
        return is_error_set(err, IS_NOMEM, "out of memory");
    uint8_t status = 255;
    is_code rc = evaluate(context, m, point, 1, outputs, &status, err);
    for (size_t e = 0, o = 0, end = 0; rc == IS_OK && e < is_model_value_count(m); e++) {
        while (e >= end) /* (count 1: every output's values in a row) */
            end += is_output_length(&m->outputs[o++]);
        if (memcmp(&outputs[e], &traced[e], sizeof *outputs) != 0 &&
            !(isnan(outputs[e]) && isnan(traced[e])))
            rc = is_error_set(err, IS_PLUGIN,
                              "model %s: its trace's output %s is %.17g, eval_batch's %.17g "
                              "for the same point (a trace runs eval_batch's code)",
                              m->name, m->outputs[o - 1].name, traced[e], outputs[e]);
    }
    if (rc == IS_OK && status != traced_status)
        rc = is_error_set(err, IS_PLUGIN,
                          "model %s: its trace leaves the point %s, eval_batch %s", m->name,
                          is_point_status_name(traced_status), is_point_status_name(status));
    free(outputs);
    return rc;
}

is_code is_cli_trace_check(const is_model *m, int contained, double timeout,
                           is_conformance_evaluate evaluate, void *context, char *summary,
                           size_t size, is_error *err)
{
    snprintf(summary, size, "%s", "");
    if (!m->trace)
        return IS_OK;
    double *point = malloc(m->param_count * sizeof *point);
    double *outputs = malloc(is_model_value_count(m) * sizeof *outputs);
    is_code rc = point && outputs ? IS_OK : is_error_set(err, IS_NOMEM, "out of memory");
    trace_outcome o = {.code = IS_OK};
    if (rc == IS_OK) {
        is_conformance_point(m, point);
        if (contained)
            run_contained(m, point, outputs, timeout, &o);
        else
            run_checked(m, point, outputs, &o);
        if (o.code != IS_OK)
            rc = is_error_set(err, o.code, "%s", o.message);
    }
    if (rc == IS_OK && !o.full)
        rc = compare_eval(m, point, outputs, o.status, evaluate, context, err);
    if (rc == IS_OK)
        snprintf(summary, size, "; its trace of the defaults (%zu samples%s, %zu events) in "
                 "time order, finite%s",
                 o.samples, o.full ? " checked" : "", o.events,
                 o.full ? "" : ", with eval_batch's outputs");
    free(point);
    free(outputs);
    return rc;
}
