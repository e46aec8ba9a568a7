/* failures.c: the failed points of a result file, named (see failures.h). */
#include "failures.h"

#include <stdlib.h>
#include <string.h>

#include "engine.h"
#include "model.h"
#include "numtext.h"
#include "reason_table.h"
#include "results.h"

/* Statuses read at a time. */
#define FAILURES_BLOCK (UINT64_C(1) << 20)
#define NAME_TEXT 64

/* The reasons the run log gives: "grid point N (...): status: reason" lines. */
typedef struct logged {
    uint64_t point;
    char *line; /* the whole line */
} logged;

typedef struct reasons {
    logged *items;
    size_t count, room;
} reasons;

static void take_line(const char *text, void *user)
{
    reasons *rs = user;
    unsigned long long point;
    if (sscanf(text, "grid point %llu (", &point) != 1 || !strstr(text, "): failed_"))
        return;
    if (rs->count == rs->room) {
        size_t room = rs->room ? 2 * rs->room : 64;
        logged *more = realloc(rs->items, room * sizeof *more);
        if (!more)
            return; /* (a reason less: the point is still named) */
        rs->items = more;
        rs->room = room;
    }
    char *copy = strdup(text);
    if (copy)
        rs->items[rs->count++] = (logged){(uint64_t)point, copy};
}

static const char *reason_of(const reasons *rs, uint64_t point)
{
    for (size_t i = rs->count; i-- > 0;) /* (the latest run's word on it) */
        if (rs->items[i].point == point)
            return rs->items[i].line;
    return NULL;
}

/* Each axis: its coordinates as text (a choice by name), for naming points. */
typedef struct axes {
    size_t count;
    uint64_t length[IS_GRID_MAX_AXES];
    char name[IS_GRID_MAX_AXES][NAME_TEXT];
    double *values[IS_GRID_MAX_AXES];
    char *choices[IS_GRID_MAX_AXES]; /* "a, b, c" for a choice axis, else NULL */
} axes;

static is_code read_axes(is_results *r, axes *a, is_error *err)
{
    a->count = is_results_axis_count(r);
    for (size_t k = 0; k < a->count; k++) {
        a->length[k] = is_results_axis_length(r, k);
        snprintf(a->name[k], NAME_TEXT, "%s", is_results_axis_name(r, k));
        char scale[32] = "";
        is_results_axis_attribute(r, k, "scale", scale, sizeof scale);
        if (strcmp(scale, "choice") == 0) {
            a->choices[k] = calloc(1, 1 << 16);
            if (!a->choices[k])
                return is_error_set(err, IS_NOMEM, "out of memory");
            is_code rc = is_results_coordinate_names(r, k, a->choices[k], 1 << 16, err);
            if (rc != IS_OK)
                return rc;
            continue;
        }
        a->values[k] = malloc((a->length[k] ? a->length[k] : 1) * sizeof(double));
        if (!a->values[k])
            return is_error_set(err, IS_NOMEM, "out of memory");
        is_code rc = is_results_coordinates(r, k, 0, a->length[k], a->values[k], 0, err);
        if (rc != IS_OK)
            return rc;
    }
    return IS_OK;
}

static void free_axes(axes *a)
{
    for (size_t k = 0; k < IS_GRID_MAX_AXES; k++) {
        free(a->values[k]);
        free(a->choices[k]);
    }
}

/* The i-th name of "a, b, c" into buf. */
static void choice_name(const char *names, uint64_t i, char *buf, size_t size)
{
    const char *p = names;
    for (uint64_t n = 0; n < i && p; n++) {
        p = strstr(p, ", ");
        p = p ? p + 2 : NULL;
    }
    size_t len = p ? strcspn(p, ",") : 0;
    snprintf(buf, size, "%.*s", (int)(len < size ? len : size - 1), p ? p : "?");
}

/* "grid point N (x = 3, y = 17): failed_crash" (+ ": reason", the file's, or in a file
 * made before the reasons were kept, the log's where it names the point). */
static void print_point(FILE *out, const axes *a, uint64_t first, uint64_t i, uint8_t status,
                        const char *reason, const reasons *rs)
{
    uint64_t point = first + i;
    const char *line = reason ? NULL : reason_of(rs, point);
    char name[32];
    snprintf(name, sizeof name, "%s", is_point_status_name(status));
    for (char *c = name; *c; c++)
        *c = (char)(*c >= 'A' && *c <= 'Z' ? *c - 'A' + 'a' : *c);
    if (line && strstr(line, name)) { /* the log names it, with this status: its line */
        fprintf(out, "  %s\n", line);
        return;
    }
    fprintf(out, "  grid point %llu (", (unsigned long long)point);
    uint64_t rest = i;
    uint64_t index[IS_GRID_MAX_AXES];
    for (size_t k = a->count; k-- > 0;) { /* C order: the last axis varies fastest */
        index[k] = a->length[k] ? rest % a->length[k] : 0;
        rest = a->length[k] ? rest / a->length[k] : rest;
    }
    for (size_t k = 0; k < a->count; k++) {
        char value[128];
        if (a->choices[k])
            choice_name(a->choices[k], index[k], value, sizeof value);
        else
            snprintf(value, sizeof value, "%s", IS_NUM(a->values[k][index[k]]));
        fprintf(out, "%s%s = %s", k ? ", " : "", a->name[k], value);
    }
    if (reason)
        fprintf(out, "): %s: %s\n", name, reason);
    else
        fprintf(out, "): %s\n", name);
}

is_code is_failures_print(const char *path, uint64_t limit, FILE *out, uint64_t *failed,
                          is_error *err)
{
    *failed = 0;
    is_results *r = NULL;
    is_code rc = is_results_open(path, MPI_COMM_NULL, IS_RESULTS_READ, &r, err);
    if (rc != IS_OK)
        return rc;
    reasons rs = {0};
    axes a;
    memset(&a, 0, sizeof a);
    is_reason_table table = {0};
    int kept = is_results_has_reasons(r); /* else the log's reasons, where it has them */
    uint8_t *status = malloc(FAILURES_BLOCK), *codes = malloc(FAILURES_BLOCK);
    if (!status || !codes)
        rc = is_error_set(err, IS_NOMEM, "out of memory");
    if (rc == IS_OK)
        rc = read_axes(r, &a, err);
    if (rc == IS_OK)
        rc = is_reason_table_init(&table, r, 0, err);
    if (rc == IS_OK && !kept)
        rc = is_results_read_log(r, take_line, &rs, err);
    uint64_t points = is_results_point_count(r), first = is_results_first_point(r);
    size_t status_var = is_results_variable_count(r) - 1;
    for (uint64_t at = 0; at < points && rc == IS_OK; at += FAILURES_BLOCK) {
        uint64_t n = points - at < FAILURES_BLOCK ? points - at : FAILURES_BLOCK;
        rc = is_results_read_raw(r, status_var, at, n, status, err);
        if (rc == IS_OK)
            rc = is_results_read_reasons(r, at, n, codes, err);
        for (uint64_t i = 0; i < n && rc == IS_OK; i++) {
            if (!is_point_failed(status[i]))
                continue;
            const char *reason = kept && codes[i] ? is_reason_table_text(&table, codes[i]) : NULL;
            if (kept && codes[i] && !reason)
                reason = "(its reason's text is missing from /run/reasons)";
            if (limit == 0 || *failed < limit)
                print_point(out, &a, first, at + i, status[i], reason, &rs);
            ++*failed;
        }
    }
    if (rc == IS_OK && limit && *failed > limit)
        fprintf(out, "  ... and %llu more: `impactsweep info %s --failures` lists them all\n",
                (unsigned long long)(*failed - limit), path);
    for (size_t i = 0; i < rs.count; i++)
        free(rs.items[i].line);
    free(rs.items);
    free_axes(&a);
    free(status);
    free(codes);
    if (table.texts)
        is_reason_table_free(&table);
    is_results_close(&r, NULL);
    return rc;
}

/* --- merge: the pieces' reasons carried over ---------------------------------------- */

typedef struct carrier {
    is_results *out;
    unsigned carried, skipped;
    is_code rc;
    is_error *err;
} carrier;

static void carry_line(const char *text, void *user)
{
    carrier *c = user;
    unsigned long long point;
    if (sscanf(text, "grid point %llu (", &point) != 1 || !strstr(text, "): failed_"))
        return;
    if (c->carried >= IS_FAILURES_CARRIED || c->rc != IS_OK) {
        c->skipped++;
        return;
    }
    c->rc = is_results_log(c->out, text, c->err);
    c->carried++;
}

is_code is_failures_carry(is_results *out, const char *const *paths, size_t n, is_error *err)
{
    carrier c = {out, 0, 0, IS_OK, err};
    for (size_t i = 0; i < n && c.rc == IS_OK; i++) {
        is_results *in = NULL;
        is_error ignored; /* (an input the merge read is readable; its log is a bonus) */
        if (is_results_open(paths[i], MPI_COMM_NULL, IS_RESULTS_READ, &in, &ignored) != IS_OK)
            continue;
        is_results_read_log(in, carry_line, &c, &ignored);
        is_results_close(&in, NULL);
    }
    if (c.rc == IS_OK && c.skipped) {
        char line[IS_RESULTS_LOG_LINE];
        snprintf(line, sizeof line,
                 "(%u more points failed by the engine are named in the pieces' logs, not "
                 "here: their statuses are here)",
                 c.skipped);
        c.rc = is_results_log(out, line, err);
    }
    return c.rc;
}
