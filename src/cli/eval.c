/* eval.c: `impactsweep eval`: one point from the command line, or many from standard input
 * (one point a line, in the command line's name=value words), each answered with one line
 * of JSON; the stream keeps one workspace and evaluates the lines it has in batches. */
#include "eval.h"

#include <errno.h>
#include <math.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../core/contract/engine.h"
#include "../core/base/numtext.h"
#include "../core/base/signals.h"
#include "describe.h"
#include "point.h"

/* Points evaluated by one eval_batch of the stream: enough to amortise a batch's set-up
 * (the lanes fill), few enough that an answer never waits long. */
#define STREAM_BATCH 64
/* Words on one line at most (a model has far fewer parameters). */
#define LINE_WORDS_MAX 256

/* --- JSON ------------------------------------------------------------------------------ */

/* A real always with a point or an exponent (0.0, 1e+20), an integer without, so that
 * a reader can tell an integer output or parameter from a real one of whole value; NaN
 * (no value) as null, and an infinity (an output that may be one) as the string "inf" or
 * "-inf", JSON having no number for it. */
static void print_json_number(FILE *out, double v, int integer)
{
    char text[IS_NUMTEXT_SIZE];
    if (isinf(v) && !integer)
        fputs(v > 0 ? "\"inf\"" : "\"-inf\"", out);
    else if (!isfinite(v))
        fputs("null", out);
    else if (integer)
        fprintf(out, "%.0f", v);
    else {
        is_numtext(text, v);
        fprintf(out, "%s%s", text, strpbrk(text, ".e") ? "" : ".0");
    }
}

/* Bytes of a failed point's reason kept for its line (the evaluator's are shorter). */
#define REASON_TEXT 256

/* One value of output desc. */
static void print_value(FILE *out, const is_output *desc, double v)
{
    if (desc->type == IS_OUTPUT_CATEGORY && isfinite(v) && v >= 0 &&
        v < is_output_category_count(desc))
        is_cli_json_string(out, desc->categories[(int)v]);
    else
        print_json_number(out, v, desc->type != IS_OUTPUT_REAL);
}

/* One point's line: {"model": .., "parameters": {..}, "status": .., "outputs": {..}}
 * (and "reason" after the status where the engine failed the point: its reason, as a
 * sweep's file keeps it), an array output's values as a JSON list; the outputs of point i
 * of a batch of `stride` points, as eval_batch lays them out (model.h). */
static void print_point(FILE *out, const is_model *m, const double *point,
                        const double *outputs, size_t stride, size_t i, uint8_t status,
                        const char *reason)
{
    fputs("{\"model\": ", out);
    is_cli_json_string(out, m->name);
    fputs(", \"parameters\": {", out);
    for (size_t p = 0; p < m->param_count; p++) {
        fputs(p ? ", " : "", out);
        is_cli_json_string(out, m->params[p].name);
        fputs(": ", out);
        if (m->params[p].type == IS_PARAM_CHOICE)
            is_cli_json_string(out, m->params[p].choices[(int)point[p]]);
        else
            print_json_number(out, point[p], m->params[p].type == IS_PARAM_INT);
    }
    fputs("}, \"status\": ", out);
    is_cli_json_string(out, is_point_status_name(status));
    if (reason && *reason) {
        fputs(", \"reason\": ", out);
        is_cli_json_string(out, reason);
    }
    fputs(", \"outputs\": {", out);
    for (size_t o = 0, at = 0; o < m->output_count; o++) {
        const is_output *desc = &m->outputs[o];
        size_t length = is_output_length(desc);
        const double *v = outputs + at * stride + i * length;
        at += length;
        fputs(o ? ", " : "", out);
        is_cli_json_string(out, desc->name);
        fputs(": ", out);
        if (desc->length <= 1) {
            print_value(out, desc, v[0]);
            continue;
        }
        for (size_t j = 0; j < length; j++) {
            fputs(j ? ", " : "[", out);
            print_value(out, desc, v[j]);
        }
        fputs("]", out);
    }
    fputs("}}\n", out);
}

/* --- the evaluation, shared by both modes ----------------------------------------------- */

typedef struct evaluator {
    const is_model *m;
    is_evaluator *ev;  /* where the model's code runs (a plug-in's: its own process) */
    double *points;    /* STREAM_BATCH (or 1) points: the evaluator's room */
    size_t capacity, count;
    int worst;         /* the exit status so far: 0, 1 (a point failed), 75 (stopped) */
    char (*reasons)[REASON_TEXT]; /* each point's, where the engine failed it */
} evaluator;

static void evaluator_free(evaluator *ev)
{
    is_evaluator_free(&ev->ev);
    free(ev->reasons);
    memset(ev, 0, sizeof *ev);
}

/* A point the engine failed (the model's code crashed on it, ran past the timeout, broke
 * the contract): the answer's status says so, stderr why. */
static void report_failure(void *context, const double *point, const is_evaluator_failure *f)
{
    evaluator *ev = context;
    (void)point;
    if (f->index < ev->capacity)
        snprintf(ev->reasons[f->index], sizeof ev->reasons[f->index], "%s", f->reason);
    fprintf(stderr, "impactsweep: the point failed (%s): %s\n", is_point_status_name(f->status),
            f->reason);
}

static is_code evaluator_create(evaluator *ev, const is_evaluator_config *base, size_t capacity,
                                is_error *err)
{
    memset(ev, 0, sizeof *ev);
    ev->m = base->model;
    ev->capacity = capacity;
    is_signals_install(); /* ^C on a long point: it comes back pending */
    is_evaluator_config config = *base;
    config.capacity = capacity;
    config.stop = is_signals_flag();
    config.report = report_failure;
    config.context = ev;
    ev->reasons = calloc(capacity ? capacity : 1, sizeof *ev->reasons);
    if (!ev->reasons)
        return is_error_set(err, IS_NOMEM, "out of memory");
    is_code rc = is_evaluator_create(&ev->ev, &config, err);
    if (rc == IS_OK)
        ev->points = is_evaluator_points(ev->ev);
    else
        evaluator_free(ev);
    return rc;
}

/* The model's validate on the point at `index` (the next of the batch): IS_OK, or the
 * refusal in why (IS_PARAM: its message; IS_PLUGIN: validate crashed on it). */
static is_code evaluator_validate(evaluator *ev, size_t index, is_error *why, is_error *err)
{
    size_t refused;
    is_code rc = is_evaluator_validate(ev->ev, index, 1, &refused, why, err);
    if (rc != IS_OK)
        return rc;
    return refused == index ? (why->code == IS_PLUGIN ? IS_PLUGIN : IS_PARAM) : IS_OK;
}

/* Evaluates the points collected so far and prints one line each. */
static is_code evaluator_flush(evaluator *ev, FILE *out, is_error *err)
{
    const is_model *m = ev->m;
    size_t n = ev->count;
    if (n == 0)
        return IS_OK;
    const double *outputs;
    const uint8_t *st;
    memset(ev->reasons, 0, n * sizeof *ev->reasons);
    is_code rc = is_evaluator_eval(ev->ev, n, &outputs, &st, err);
    if (rc != IS_OK)
        return rc;
    for (size_t i = 0; i < n; i++) {
        print_point(out, m, ev->points + i * m->param_count, outputs, n, i, st[i],
                    ev->reasons[i]);
        /* a point left pending was stopped by a signal: the run's "interrupted" */
        int status = st[i] == IS_POINT_DONE      ? 0
                     : st[i] == IS_POINT_PENDING ? is_code_exit_status(IS_INTERRUPTED)
                                                 : 1;
        if (status > ev->worst)
            ev->worst = status;
    }
    ev->count = 0;
    fflush(out);
    return IS_OK;
}

/* Never an empty message nor exit 0: a failure without its message still says what it
 * was and exits non-zero. */
static int fail(const is_error *err)
{
    fprintf(stderr, "impactsweep: %s\n",
            err->message[0] ? err->message : is_code_text(err->code ? err->code : IS_INTERNAL));
    int status = is_code_exit_status(err->code);
    return status ? status : is_code_exit_status(IS_INTERNAL);
}

int is_cli_eval_args(const is_evaluator_config *config, int argc, char **argv)
{
    const is_model *m = config->model;
    evaluator ev;
    is_error err, why;
    is_error_clear(&err);
    is_error_clear(&why);
    double *point = malloc((m->param_count ? m->param_count : 1) * sizeof *point);
    if (!point)
        return fail(&(is_error){IS_NOMEM, "eval: out of memory"});
    is_code rc = is_cli_point_parse(m, argv, 2, argc, point, &err); /* shared with trace */
    if (rc == IS_OK)
        rc = evaluator_create(&ev, config, 1, &err);
    if (rc != IS_OK) {
        free(point);
        return fail(&err);
    }
    memcpy(ev.points, point, m->param_count * sizeof *point);
    free(point);
    rc = evaluator_validate(&ev, 0, &why, &err);
    if (rc == IS_PARAM || rc == IS_PLUGIN)
        err = why;
    ev.count = 1;
    if (rc == IS_OK)
        rc = evaluator_flush(&ev, stdout, &err);
    int status = rc == IS_OK ? ev.worst : fail(&err);
    evaluator_free(&ev);
    return status;
}

/* --- the stream: lines from a file descriptor --------------------------------------------- */

/* Lines read with read(2), so that the stream can tell whether more input is waiting
 * (then the batch grows) or not (then the points it holds are answered first). */
typedef struct line_reader {
    int fd;
    char *buf;
    size_t size, start, end; /* buf[start .. end) is read and not yet returned */
    int eof;
} line_reader;

/* Is a whole line in the buffer (or, at the end of input, a last line without '\n')? */
static char *buffered_line(line_reader *r)
{
    if (r->end == r->start)
        return NULL; /* nothing buffered (and buf may not exist yet: memchr wants a pointer) */
    char *nl = memchr(r->buf + r->start, '\n', r->end - r->start);
    if (!nl && r->eof && r->end > r->start)
        nl = r->buf + r->end; /* the last line has no newline: end it where it ends */
    return nl;
}

static int input_waiting(const line_reader *r)
{
    struct pollfd p = {.fd = r->fd, .events = POLLIN};
    return poll(&p, 1, 0) > 0;
}

/* Reads more input (blocking): 1 read something, 0 end of input, -1 error. */
static int read_more(line_reader *r)
{
    if (r->start > 0) {
        memmove(r->buf, r->buf + r->start, r->end - r->start);
        r->end -= r->start;
        r->start = 0;
    }
    if (r->end + 1 >= r->size) { /* + 1: room for the NUL of a last line */
        size_t size = r->size ? 2 * r->size : 65536;
        char *grown = realloc(r->buf, size);
        if (!grown)
            return -1;
        r->buf = grown;
        r->size = size;
    }
    /* the stop handlers restart read(2): wait in short polls, so that ^C is seen at once */
    struct pollfd p = {.fd = r->fd, .events = POLLIN};
    for (;;) {
        int ready = poll(&p, 1, 250);
        if (ready > 0 || (ready < 0 && errno != EINTR))
            break;
        if (*is_signals_flag())
            return 0;
    }
    ssize_t got = read(r->fd, r->buf + r->end, r->size - 1 - r->end);
    if (got < 0)
        return errno == EINTR ? 0 : -1;
    if (got == 0)
        r->eof = 1;
    r->end += (size_t)got;
    return got > 0;
}

/* Splits line into words (blank-separated, in place) at words[1 ..] (words[0] is NULL,
 * which the point parser skips, so that its messages count the words from 1): the count
 * of words, or -1 if too many. */
static int split_words(char *line, char **words)
{
    int n = 0;
    words[0] = NULL;
    for (char *s = strtok(line, " \t\r"); s; s = strtok(NULL, " \t\r")) {
        if (n == LINE_WORDS_MAX)
            return -1;
        words[++n] = s;
    }
    return n;
}

int is_cli_eval_line_skipped(const char *line, size_t length)
{
    size_t i = 0;
    while (i < length && (line[i] == ' ' || line[i] == '\t' || line[i] == '\r'))
        i++;
    return i == length || line[i] == '#';
}

/* One input line: a point added to the batch, nothing (blank or a # comment), or an
 * {"line": N, "error": ...} answer after the points before it (exit status 2 at the end). */
static is_code stream_line(evaluator *ev, char *line, unsigned long number, const char *name,
                           FILE *out, int *refused, is_error *err)
{
    if (is_cli_eval_line_skipped(line, strlen(line)))
        return IS_OK;
    char *words[LINE_WORDS_MAX + 1];
    int n = split_words(line, words);
    is_error why;
    is_error_clear(&why);
    /* whatever the parser refuses (a name, a value, a word) is this line's error; only
     * the evaluator's own failure (out of memory, a dead evaluator) ends the stream */
    is_code rc = n < 0 ? is_error_set(&why, IS_USAGE, "more than %d words", LINE_WORDS_MAX)
                       : is_cli_point_parse(ev->m, words, 0, n + 1,
                                            ev->points + ev->count * ev->m->param_count, &why);
    if (rc != IS_OK && !why.message[0])
        is_error_set(&why, rc, "the line is not a point (%s)", is_code_name(rc));
    if (rc == IS_OK) {
        rc = evaluator_validate(ev, ev->count, &why, err);
        if (rc != IS_OK && rc != IS_PARAM && rc != IS_PLUGIN)
            return rc; /* the evaluator itself failed */
    }
    if (rc == IS_OK) {
        ev->count++;
        return ev->count == ev->capacity ? evaluator_flush(ev, out, err) : IS_OK;
    }
    rc = evaluator_flush(ev, out, err); /* the answers stay in the order of the lines */
    fprintf(out, "{\"line\": %lu, \"error\": ", number);
    is_cli_json_string(out, why.message);
    fputs("}\n", out);
    fflush(out);
    fprintf(stderr, "impactsweep: %s:%lu: %s\n", name, number, why.message);
    *refused = 1;
    return rc;
}

/* A line "N<TAB>TEXT" of a pool's worker (eval_pool.c): N is its number in the pool's
 * input, given back in the answer and the messages; *text points at TEXT. */
static unsigned long numbered_line(char *line, char **text)
{
    char *end = NULL;
    unsigned long number = strtoul(line, &end, 10);
    if (end == line || *end != '\t') {
        *text = line; /* (the pool writes every line so; a stray one keeps its text) */
        return 0;
    }
    *text = end + 1;
    return number;
}

int is_cli_eval_stream(const is_evaluator_config *config, int fd, const char *name)
{
    return is_cli_eval_stream_numbered(config, fd, name, 0);
}

int is_cli_eval_stream_numbered(const is_evaluator_config *config, int fd, const char *name,
                                int numbered)
{
    evaluator ev;
    is_error err;
    is_error_clear(&err);
    is_signals_install(); /* ^C between lines: the answers so far, then exit 75 */
    if (evaluator_create(&ev, config, STREAM_BATCH, &err) != IS_OK)
        return fail(&err);
    line_reader r = {.fd = fd};
    unsigned long number = 0;
    int refused = 0;
    is_code rc = IS_OK;
    while (rc == IS_OK && !*is_signals_flag()) {
        char *nl = buffered_line(&r);
        if (!nl) {
            if (r.eof)
                break;
            if (ev.count && !input_waiting(&r)) /* answer what we have before waiting */
                rc = evaluator_flush(&ev, stdout, &err);
            if (rc == IS_OK && read_more(&r) < 0 && !r.eof && !*is_signals_flag())
                rc = is_error_set(&err, IS_IO, "%s: %s", name, strerror(errno));
            continue;
        }
        *nl = '\0';
        char *line = r.buf + r.start;
        r.start = (size_t)(nl - r.buf) + (nl < r.buf + r.end);
        ++number;
        if (numbered) {
            unsigned long given = numbered_line(line, &line);
            number = given ? given : number;
        }
        rc = stream_line(&ev, line, number, name, stdout, &refused, &err);
    }
    if (rc == IS_OK)
        rc = evaluator_flush(&ev, stdout, &err);
    free(r.buf);
    int status = rc != IS_OK ? fail(&err) : refused ? is_code_exit_status(IS_USAGE) : ev.worst;
    if (rc == IS_OK && *is_signals_flag() && status != 2)
        status = is_code_exit_status(IS_INTERRUPTED);
    evaluator_free(&ev);
    return status;
}
