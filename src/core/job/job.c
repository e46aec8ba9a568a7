/* job.c: job-file parsing (libinih), --set overrides, and checking every key.
 *
 * Three passes: collect (section, key, value, where) entries from the file, with a
 * scan of the section headers that inih does not report; apply the overrides; then
 * interpret [sweep] through its key table, [model] and [axis.NAME] through the model's
 * parameter table. Nothing is written anywhere until all of it has passed. */
#include "job.h"

#include <ctype.h>
#include <errno.h>
#include <ini.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "engine.h"
#include "evaluator.h"
#include "model_text.h"
#include "numtext.h"

#define ORIGIN_MAX 320

typedef struct entry {
    char *section, *key, *value;
    size_t value_length, value_capacity; /* continuation lines append in place */
    char origin[ORIGIN_MAX]; /* "file:line" or "--set 'section.key=value'" */
    int line;                /* 0 for overrides */
    int used;
} entry;

typedef struct section_header {
    char *name;
    char origin[ORIGIN_MAX];
    int line;
} section_header;

typedef struct parse_state {
    const char *source;
    const char *cursor;  /* reader position in the text */
    int line;            /* number of the physical line inih is handling */
    int indented;        /* that line starts with a blank: inih's continuation line */
    int piece;           /* it is a piece of a long line (see read_line) */
    const char *rest;    /* what remains of a long line to hand over in pieces */
    size_t rest_length;
    entry *entries;
    size_t entry_count, entry_capacity;
    section_header *sections;
    size_t section_count, section_capacity;
    is_models *models;   /* where the model is looked up or loaded */
    is_error *err;
    is_code rc;
} parse_state;

static char *copy_string(const char *s)
{
    size_t n = strlen(s) + 1;
    char *c = malloc(n);
    if (c)
        memcpy(c, s, n);
    return c;
}

static char *trim(char *s)
{
    while (isspace((unsigned char)*s))
        s++;
    char *end = s + strlen(s);
    while (end > s && isspace((unsigned char)end[-1]))
        *--end = '\0';
    return s;
}

/* --- pass 1: collecting entries ------------------------------------------------ */

/* inih's line buffer in Debian's build: a line of this many bytes or more would reach
 * inih cut in two. */
#define INIH_LINE_MAX 200
/* Pieces of a long line are at most this long. */
#define PIECE_MAX 150
/* More keys than any job has: beyond it the file is refused (find_entry is linear). */
#define ENTRY_MAX 10000

/* A line ends, for inih, at a ';' after white space (isspace: '\r' too), an inline
 * comment. */
static size_t before_comment(const char *line, size_t length)
{
    for (size_t i = 1; i < length; i++)
        if (line[i] == ';' && isspace((unsigned char)line[i - 1]))
            return i;
    return length;
}

/* Where to cut text[0 .. length): at most `max` bytes, between two characters that are
 * not blanks (inih strips the blanks around a line) and before one that does not start a
 * comment; 0 when there is no such place. */
static size_t piece_end(const char *text, size_t length, size_t max)
{
    if (length <= max)
        return length;
    for (size_t cut = max; cut > 0; cut--) {
        char before = text[cut - 1], after = text[cut];
        if (!isspace((unsigned char)before) && !isspace((unsigned char)after) && after != ';' &&
            after != '#')
            return cut;
    }
    return 0;
}

/* The reader inih calls for each line. A `key = value` line too long for inih's buffer is
 * handed over in pieces: the first as it is, the others as indented continuation lines,
 * which on_key joins without the blank it puts between real continuation lines. So a
 * value of any length reads as if inih had no limit. */
static char *read_line(char *str, int num, void *stream)
{
    parse_state *ps = stream;
    if (ps->rest_length) { /* the next piece of a long line */
        size_t n = piece_end(ps->rest, ps->rest_length, PIECE_MAX);
        if (n == 0) {
            ps->rc = is_error_set(ps->err, IS_JOB,
                                  "%s:%d: a long value with blanks runs of over %d characters",
                                  ps->source, ps->line, PIECE_MAX);
            return NULL;
        }
        snprintf(str, (size_t)num, " %.*s\n", (int)n, ps->rest);
        ps->rest += n;
        ps->rest_length -= n;
        ps->indented = ps->piece = 1;
        return str;
    }
    if (!*ps->cursor)
        return NULL;
    const char *line = ps->cursor, *eol = strchr(line, '\n');
    size_t length = eol ? (size_t)(eol - line) : strlen(line);
    ps->cursor = eol ? eol + 1 : line + length;
    ps->line++;
    ps->indented = *line == ' ' || *line == '\t';
    ps->piece = 0;
    const char *first = line;
    while (first < line + length && isspace((unsigned char)*first))
        first++;
    if (length + 2 < (size_t)num || *first == ';' || *first == '#' || *first == '[') {
        /* a line that fits, or a comment (whose text does not matter) or a section header
         * (scan_sections refuses one that is too long) */
        size_t n = length + 2 < (size_t)num ? length : (size_t)num - 2;
        snprintf(str, (size_t)num, "%.*s\n", (int)n, line);
        return str;
    }
    length = before_comment(line, length);
    size_t eq = strcspn(line, "=:");
    size_t n = piece_end(line, length, PIECE_MAX);
    if (!ps->indented && (eq >= n || n == 0)) {
        ps->rc = is_error_set(ps->err, IS_JOB,
                              "%s:%d: a key of over %d characters, or a long value with blank "
                              "runs of that length",
                              ps->source, ps->line, PIECE_MAX);
        return NULL;
    }
    snprintf(str, (size_t)num, "%.*s\n", (int)n, line);
    ps->rest = line + n;
    ps->rest_length = length - n;
    return str;
}

static int grow(void **array, size_t *capacity, size_t count, size_t size)
{
    if (count < *capacity)
        return 1;
    size_t cap = *capacity ? *capacity * 2 : 16;
    void *a = realloc(*array, cap * size);
    if (!a)
        return 0;
    *array = a;
    *capacity = cap;
    return 1;
}

static entry *find_entry(parse_state *ps, const char *section, const char *key)
{
    for (size_t i = 0; i < ps->entry_count; i++)
        if (strcmp(ps->entries[i].section, section) == 0 && strcmp(ps->entries[i].key, key) == 0)
            return &ps->entries[i];
    return NULL;
}

static int add_entry(parse_state *ps, const char *section, const char *key, const char *value,
                     const char *origin, int line)
{
    if (ps->entry_count >= ENTRY_MAX) {
        ps->rc = is_error_set(ps->err, IS_JOB, "%s: more than %d keys: not a job file", origin,
                              ENTRY_MAX);
        return 0;
    }
    if (!grow((void **)&ps->entries, &ps->entry_capacity, ps->entry_count, sizeof(entry))) {
        ps->rc = is_error_set(ps->err, IS_NOMEM, "out of memory reading the job");
        return 0;
    }
    entry *e = &ps->entries[ps->entry_count];
    e->section = copy_string(section);
    e->key = copy_string(key);
    e->value = copy_string(value);
    if (!e->section || !e->key || !e->value) {
        free(e->section);
        free(e->key);
        free(e->value);
        ps->rc = is_error_set(ps->err, IS_NOMEM, "out of memory reading the job");
        return 0;
    }
    e->value_length = strlen(value);
    e->value_capacity = e->value_length + 1;
    snprintf(e->origin, sizeof e->origin, "%s", origin);
    e->line = line;
    e->used = 0;
    ps->entry_count++;
    return 1;
}

/* Appends `separator` and `text` to e's value (in amortised constant time per byte, so
 * that a value of many continuation lines reads in linear time). */
/* Sets an entry's value to a copy of `value`; 0 when out of memory (the entry unchanged). */
static int replace_value(entry *e, const char *value)
{
    char *copy = copy_string(value);
    if (!copy)
        return 0;
    free(e->value);
    e->value = copy;
    e->value_length = strlen(copy);
    e->value_capacity = e->value_length + 1;
    return 1;
}

static int append_value(entry *e, const char *separator, const char *text, size_t length)
{
    size_t add = strlen(separator) + length;
    if (e->value_length + add + 1 > e->value_capacity) {
        size_t cap = 2 * (e->value_length + add + 1);
        char *bigger = realloc(e->value, cap);
        if (!bigger)
            return 0;
        e->value = bigger;
        e->value_capacity = cap;
    }
    e->value_length += (size_t)snprintf(e->value + e->value_length,
                                        e->value_capacity - e->value_length, "%s%.*s", separator,
                                        (int)length, text);
    return 1;
}

static int on_key(void *user, const char *section, const char *name, const char *value)
{
    parse_state *ps = user;
    if (ps->rc != IS_OK)
        return 0;
    if (!*section) {
        ps->rc = is_error_set(ps->err, IS_JOB, "%s:%d: key '%s' comes before any [section]",
                              ps->source, ps->line, name);
        return 0;
    }
    entry *previous = ps->entry_count && ps->indented ? &ps->entries[ps->entry_count - 1]
                                                      : find_entry(ps, section, name);
    if (previous && ps->indented && strcmp(previous->key, name) == 0 &&
        strcmp(previous->section, section) == 0) {
        /* inih's multi-line value: an indented line continues the previous key; a piece
         * of a long line continues it without a blank (see read_line). inih leaves an
         * inline comment on a continuation line, where on the key's own line it cuts it:
         * cut it here too, or the stored text (one line) would read back differently. */
        size_t length = strlen(value);
        if (!ps->piece) {
            length = before_comment(value, length);
            while (length > 0 && isspace((unsigned char)value[length - 1]))
                length--;
        }
        const char *separator = ps->piece || previous->value_length == 0 ? "" : " ";
        if (!append_value(previous, separator, value, length)) {
            ps->rc = is_error_set(ps->err, IS_NOMEM, "out of memory reading the job");
            return 0;
        }
        previous->line = ps->line;
        return 1;
    }
    if (ps->indented)
        previous = find_entry(ps, section, name);
    if (previous) {
        ps->rc = is_error_set(ps->err, IS_JOB, "%s:%d: [%s] %s: key given twice (first at %s)",
                              ps->source, ps->line, section, name, previous->origin);
        return 0;
    }
    char origin[ORIGIN_MAX];
    snprintf(origin, sizeof origin, "%s:%d", ps->source, ps->line);
    return add_entry(ps, section, name, value, origin, ps->line);
}

/* inih does not report section headers, so empty or repeated sections would go
 * unnoticed; this scan records each header with its line. It also rejects what inih
 * would silently misread: over-long section headers and blanks inside the brackets. */
static is_code scan_sections(parse_state *ps, const char *text)
{
    int line = 0;
    for (const char *p = text; *p;) {
        const char *eol = strchr(p, '\n');
        size_t len = eol ? (size_t)(eol - p) : strlen(p);
        line++;
        const char *first = p;
        while (first < p + len && isspace((unsigned char)*first))
            first++;
        if (*first != '[') {
            p += len;
            if (eol)
                p = eol + 1;
            else
                break;
            continue;
        }
        if (len + 1 >= INIH_LINE_MAX)
            return is_error_set(ps->err, IS_JOB,
                                "%s:%d: a section header of over %d characters", ps->source,
                                line, INIH_LINE_MAX - 2);
        char buf[INIH_LINE_MAX];
        memcpy(buf, p, len);
        buf[len] = '\0';
        char *s = trim(buf);
        if (*s == '[') {
            char *close = strchr(s, ']');
            if (!close)
                return is_error_set(ps->err, IS_JOB, "%s:%d: section header without ']'",
                                    ps->source, line);
            char *name = s + 1;
            int blank_end = close > name && isspace((unsigned char)close[-1]);
            *close = '\0';
            if (blank_end || !*name || name != trim(name))
                return is_error_set(ps->err, IS_JOB,
                                    "%s:%d: [%s]: no blanks inside a section header", ps->source,
                                    line, name);
            if (ps->section_count >= IS_GRID_MAX_AXES + 8) /* [sweep], [model], the axes */
                return is_error_set(ps->err, IS_JOB,
                                    "%s:%d: [%s]: more sections than a job can have (%d axes "
                                    "at most)",
                                    ps->source, line, name, IS_GRID_MAX_AXES);
            for (size_t i = 0; i < ps->section_count; i++)
                if (strcmp(ps->sections[i].name, name) == 0)
                    return is_error_set(ps->err, IS_JOB,
                                        "%s:%d: section [%s] appears twice (first at %s)",
                                        ps->source, line, name, ps->sections[i].origin);
            if (!grow((void **)&ps->sections, &ps->section_capacity, ps->section_count,
                      sizeof(section_header)))
                return is_error_set(ps->err, IS_NOMEM, "out of memory reading the job");
            section_header *h = &ps->sections[ps->section_count];
            h->name = copy_string(name);
            if (!h->name)
                return is_error_set(ps->err, IS_NOMEM, "out of memory reading the job");
            snprintf(h->origin, sizeof h->origin, "%s:%d", ps->source, line);
            h->line = line;
            ps->section_count++;
        }
        p += len;
        if (eol)
            p = eol + 1;
        else
            break;
    }
    return IS_OK;
}

static void free_state(parse_state *ps);

/* Would this key and value read back the same from the stored job text? Not when the
 * value holds a line break, or a ';' after a blank (a comment to inih), or starts with
 * one, or the names hold characters that end a header or a key. The job text of a result
 * file must re-read as the same job: read it back here, through the same reader. */
static int survives(const char *section, const char *key, const char *value)
{
    size_t n = strlen(section) + strlen(key) + strlen(value) + 16;
    char *text = malloc(n);
    if (!text)
        return 0;
    snprintf(text, n, "[%s]\n%s = %s\n", section, key, value);
    is_error ignored;
    parse_state back = {.source = "", .cursor = text, .err = &ignored, .rc = IS_OK};
    int ok = scan_sections(&back, text) == IS_OK && back.section_count == 1 &&
             strcmp(back.sections[0].name, section) == 0 &&
             ini_parse_stream(read_line, &back, on_key, &back) == 0 && back.rc == IS_OK &&
             back.entry_count == 1 && strcmp(back.entries[0].section, section) == 0 &&
             strcmp(back.entries[0].key, key) == 0 && strcmp(back.entries[0].value, value) == 0;
    free_state(&back);
    free(text);
    return ok;
}

static is_code apply_override(parse_state *ps, const char *override)
{
    char origin[ORIGIN_MAX];
    /* the message names the --set; a value too long to quote whole is abbreviated there */
    snprintf(origin, sizeof origin, "--set '%.*s%s'", 200, override,
             strlen(override) > 200 ? "..." : "");
    const char *eq = strchr(override, '=');
    if (!eq)
        return is_error_set(ps->err, IS_USAGE, "%s: expected section.key=value", origin);
    char path[256];
    size_t len = (size_t)(eq - override);
    if (len >= sizeof path)
        return is_error_set(ps->err, IS_USAGE, "%s: key too long", origin);
    memcpy(path, override, len);
    path[len] = '\0';
    char *full = trim(path);
    char *dot = strrchr(full, '.');
    if (!dot || dot == full || !dot[1])
        return is_error_set(ps->err, IS_USAGE,
                            "%s: expected section.key=value (e.g. model.gamma=0.2)", origin);
    *dot = '\0';
    char *section = trim(full), *key = trim(dot + 1);
    char *value = copy_string(eq + 1);
    if (!value)
        return is_error_set(ps->err, IS_NOMEM, "out of memory");
    char *v = trim(value);
    if (!survives(section, key, v)) {
        free(value);
        return is_error_set(ps->err, IS_USAGE,
                            "%s: cannot be stored in the job text as given (a value may not hold "
                            "a line break, start with ';', or hold a ';' after a blank; "
                            "names may not hold ']', '=', ':' or ';')",
                            origin);
    }
    is_code rc = IS_OK;
    entry *e = find_entry(ps, section, key);
    if (e) {
        int replaced = replace_value(e, v);
        free(value);
        if (!replaced)
            return is_error_set(ps->err, IS_NOMEM, "out of memory");
        snprintf(e->origin, sizeof e->origin, "%s", origin);
        e->line = 0;
        return rc;
    }
    int added = add_entry(ps, section, key, v, origin, 0);
    free(value);
    if (!added)
        return ps->rc;
    int known = 0;
    for (size_t i = 0; i < ps->section_count; i++)
        known |= strcmp(ps->sections[i].name, section) == 0;
    if (!known) {
        if (!grow((void **)&ps->sections, &ps->section_capacity, ps->section_count,
                  sizeof(section_header)))
            return is_error_set(ps->err, IS_NOMEM, "out of memory");
        section_header *h = &ps->sections[ps->section_count];
        h->name = copy_string(section);
        if (!h->name)
            return is_error_set(ps->err, IS_NOMEM, "out of memory");
        snprintf(h->origin, sizeof h->origin, "%s", origin);
        h->line = 0;
        ps->section_count++;
    }
    return IS_OK;
}

/* --- pass 3: interpreting values ----------------------------------------------- */

/* Why a text is not a finite double: none (it is), not a number at all, or one whose
 * magnitude no double holds. A subnormal number (5e-324) is a number: strtod's ERANGE
 * for it only says that it lost precision, as the file and eval store it. */
typedef enum { REAL_OK, REAL_NOT_NUMBER, REAL_TOO_LARGE, REAL_TOO_SMALL } real_verdict;

static real_verdict read_real(const char *text, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(text, &end);
    int range = errno == ERANGE;
    if (end == text)
        return REAL_NOT_NUMBER;
    while (isspace((unsigned char)*end))
        end++;
    if (*end || isnan(v))
        return REAL_NOT_NUMBER;
    if (isinf(v))
        return REAL_TOO_LARGE; /* "inf", or beyond 1.8e308 */
    if (range && v == 0.0)
        return REAL_TOO_SMALL; /* a nonzero value below 4.9e-324 that rounds to 0 */
    *out = v;
    return REAL_OK;
}

static int parse_real(const char *text, double *out)
{
    return read_real(text, out) == REAL_OK;
}

static int parse_bool(const char *text, int *out)
{
    static const char *const yes[] = {"1", "true", "yes", "on"}, *const no[] = {"0", "false",
                                                                                 "no", "off"};
    for (int i = 0; i < 4; i++) {
        if (strcasecmp(text, yes[i]) == 0)
            return *out = 1, 1;
        if (strcasecmp(text, no[i]) == 0)
            return *out = 0, 1;
    }
    return 0;
}

/* A parameter value from text: a number, or for a choice one of its names. */
static is_code parse_param_text(const is_param *param, const char *where, const char *text,
                                double *out, is_error *err)
{
    if (param->type == IS_PARAM_CHOICE) {
        for (int i = 0; param->choices[i]; i++)
            if (strcmp(param->choices[i], text) == 0) {
                *out = i;
                return IS_OK;
            }
        char range[256];
        is_param_format_range(param, range, sizeof range);
        return is_error_set(err, IS_PARAM, "%s: %s = '%s' is not one of: %s", where,
                            param->name, text, range);
    }
    switch (read_real(text, out)) {
    case REAL_OK:
        break;
    case REAL_TOO_LARGE:
        return is_error_set(err, IS_JOB,
                            "%s: %s = '%s' is not a finite number (a double holds magnitudes "
                            "up to 1.8e308)",
                            where, param->name, text);
    case REAL_TOO_SMALL:
        return is_error_set(err, IS_JOB,
                            "%s: %s = '%s' is below the smallest nonzero double (4.9e-324): it "
                            "would be stored as 0; write 0 if that is meant",
                            where, param->name, text);
    default:
        return is_error_set(err, IS_JOB, "%s: %s = '%s' is not a number", where, param->name,
                            text);
    }
    is_error detail;
    if (is_param_check(param, *out, &detail) != IS_OK)
        return is_error_set(err, IS_PARAM, "%s: %s", where, detail.message);
    return IS_OK;
}

/* The names that an "unknown ..." message lists: name(context, i) for i < count. */
typedef const char *name_getter(const void *context, size_t i);

/* "a, b, c" into out, cut short to fit its size; returns out. */
static const char *list_names(char *out, size_t size, size_t count, name_getter *name,
                              const void *context)
{
    size_t used = 0;
    out[0] = '\0';
    for (size_t i = 0; i < count && used < size; i++)
        used += (size_t)snprintf(out + used, size - used, "%s%s", i ? ", " : "",
                                 name(context, i));
    return out;
}

static const char *param_name(const void *model, size_t i)
{
    return ((const is_model *)model)->params[i].name;
}

static const char *output_name(const void *model, size_t i)
{
    return ((const is_model *)model)->outputs[i].name;
}

is_code is_job_parse_param_value(const is_model *model, const char *origin, const char *name,
                                 const char *value, double *out, is_error *err)
{
    int p = is_model_param_index(model, name);
    if (p < 0) {
        char known[512];
        return is_error_set(
            err, IS_JOB, "%s: unknown parameter '%s' of model %s (known: %s)", origin, name,
            model->name, list_names(known, sizeof known, model->param_count, param_name, model));
    }
    return parse_param_text(&model->params[p], origin, value, out, err);
}

typedef is_code (*sweep_setter)(is_job *job, const entry *e, is_error *err);

static is_code set_output(is_job *job, const entry *e, is_error *err)
{
    if (!*e->value)
        return is_error_set(err, IS_JOB, "%s: [sweep] output: empty path", e->origin);
    free(job->output);
    job->output = copy_string(e->value);
    snprintf(job->output_origin, sizeof job->output_origin, "%s: [sweep] output", e->origin);
    return job->output ? IS_OK : is_error_set(err, IS_NOMEM, "out of memory");
}

static is_code set_title(is_job *job, const entry *e, is_error *err)
{
    free(job->title);
    job->title = copy_string(e->value);
    return job->title ? IS_OK : is_error_set(err, IS_NOMEM, "out of memory");
}

static is_code set_unit_size(is_job *job, const entry *e, is_error *err)
{
    double v;
    if (strcmp(e->value, "auto") == 0) {
        job->unit_size = 0;
        return IS_OK;
    }
    if (!parse_real(e->value, &v) || v < 1 || v != floor(v) || v > 1e12)
        return is_error_set(err, IS_JOB,
                            "%s: [sweep] unit_size = '%s': expected 'auto' or an integer >= 1",
                            e->origin, e->value);
    job->unit_size = (uint64_t)v;
    return IS_OK;
}

static is_code set_unit_seconds(is_job *job, const entry *e, is_error *err)
{
    double v;
    if (!parse_real(e->value, &v) || !(v >= 0.01 && v <= 86400))
        return is_error_set(err, IS_JOB,
                            "%s: [sweep] unit_seconds = '%s': expected seconds from 0.01 to "
                            "86400",
                            e->origin, e->value);
    job->unit_seconds = v;
    return IS_OK;
}

static is_code set_piece(is_job *job, const entry *e, is_error *err)
{
    unsigned long long index, count, first = 0, last = 0;
    int used = 0, end = 0;
    const char *v = e->value;
    int parsed = sscanf(v, "%llu/%llu%n:%llu-%llu%n", &index, &count, &used, &first, &last, &end);
    int plain = parsed == 2 && v[used] == '\0';
    int ranged = parsed == 4 && v[end] == '\0' && first <= last;
    if (!(plain || ranged) || count < 1 || index >= count || !isdigit((unsigned char)v[0]))
        return is_error_set(err, IS_JOB,
                            "%s: [sweep] piece = '%s': expected I/N with 0 <= I < N (e.g. "
                            "3/16), or I/N:FIRST-LAST with the piece's first and last point "
                            "(e.g. 3/16:1200-1319, as slurm/submit gives pieces of equal cost)",
                            e->origin, v);
    job->piece_index = index;
    job->piece_count = count;
    job->piece_ranged = ranged;
    job->piece_first = first;
    job->piece_last = ranged ? last + 1 : 0;
    return IS_OK;
}

static is_code set_progress_interval(is_job *job, const entry *e, is_error *err)
{
    double v;
    if (!parse_real(e->value, &v) || !(v > 0))
        return is_error_set(err, IS_JOB,
                            "%s: [sweep] progress_interval = '%s': expected seconds > 0",
                            e->origin, e->value);
    job->progress_interval = v;
    return IS_OK;
}

static is_code set_master_computes(is_job *job, const entry *e, is_error *err)
{
    if (!parse_bool(e->value, &job->master_computes))
        return is_error_set(err, IS_JOB,
                            "%s: [sweep] master_computes = '%s': expected true or false",
                            e->origin, e->value);
    return IS_OK;
}

/* The refine keys are kept as given and resolved once the model and the axes are known
 * (refine_resolve, below). */
static is_code keep_refine(is_job *job, int which, const entry *e, is_error *err)
{
    free(job->refine_spec[which]);
    job->refine_spec[which] = copy_string(e->value);
    snprintf(job->refine_origin[which], sizeof job->refine_origin[which], "%s", e->origin);
    return job->refine_spec[which] ? IS_OK : is_error_set(err, IS_NOMEM, "out of memory");
}

static is_code set_refine(is_job *job, const entry *e, is_error *err)
{
    return keep_refine(job, 0, e, err);
}

static is_code set_refine_threshold(is_job *job, const entry *e, is_error *err)
{
    return keep_refine(job, 1, e, err);
}

static is_code set_refine_axes(is_job *job, const entry *e, is_error *err)
{
    return keep_refine(job, 2, e, err);
}

static is_code set_refine_levels(is_job *job, const entry *e, is_error *err)
{
    double v;
    if (!parse_real(e->value, &v) || v < 1 || v > 30 || v != floor(v))
        return is_error_set(err, IS_JOB,
                            "%s: [sweep] refine_levels = '%s': expected an integer from 1 to 30",
                            e->origin, e->value);
    job->refine_levels = (unsigned)v;
    snprintf(job->refine_origin[3], sizeof job->refine_origin[3], "%s", e->origin);
    return IS_OK;
}

static is_code set_refine_margin(is_job *job, const entry *e, is_error *err)
{
    double v;
    if (!parse_real(e->value, &v) || !(v >= 0) || v > 1e6)
        return is_error_set(err, IS_JOB,
                            "%s: [sweep] refine_margin = '%s': expected a number from 0 to 1e6 "
                            "(0: refine only cells whose classes differ)",
                            e->origin, e->value);
    job->refine_margin = v;
    snprintf(job->refine_origin[4], sizeof job->refine_origin[4], "%s", e->origin);
    return IS_OK;
}

static is_code set_containment(is_job *job, const entry *e, is_error *err)
{
    static const char *const names[] = {"auto", "process", "none"};
    for (int i = 0; i < 3; i++)
        if (strcmp(e->value, names[i]) == 0) {
            job->containment = i;
            return IS_OK;
        }
    return is_error_set(err, IS_JOB,
                        "%s: [sweep] containment = '%s': expected auto, process or none",
                        e->origin, e->value);
}

static is_code set_point_timeout(is_job *job, const entry *e, is_error *err)
{
    double v;
    if (strcmp(e->value, "none") == 0) {
        job->point_timeout = 0;
        return IS_OK;
    }
    if (!parse_real(e->value, &v) || !(v >= 0.001 && v <= 1e7))
        return is_error_set(err, IS_JOB,
                            "%s: [sweep] point_timeout = '%s': expected seconds from 0.001 to "
                            "1e7, or none",
                            e->origin, e->value);
    job->point_timeout = v;
    snprintf(job->timeout_origin, sizeof job->timeout_origin, "%s", e->origin);
    return IS_OK;
}

int is_job_contained(const is_job *job)
{
    return job->containment == IS_CONTAINMENT_PROCESS ||
           (job->containment == IS_CONTAINMENT_AUTO &&
            (job->model_library != NULL || job->point_timeout > 0));
}

/* A point_timeout needs the model out of the engine's process: it is killed there. */
static is_code check_containment(const is_job *job, is_error *err)
{
    if (job->point_timeout > 0 && job->containment == IS_CONTAINMENT_NONE)
        return is_error_set(err, IS_JOB,
                            "%s: [sweep] point_timeout = %s needs the model in an evaluator "
                            "process (containment auto or process, not none)",
                            job->timeout_origin, IS_NUM(job->point_timeout));
    return IS_OK;
}

static is_code set_model_checked(is_job *job, const entry *e, is_error *err)
{
    (void)job, (void)e, (void)err; /* resolved before the other keys, see find_model */
    return IS_OK;
}

static const struct sweep_key {
    const char *name;
    sweep_setter set;
    const char *help;
} sweep_keys[] = {
    {"model", set_model_checked, "the model to run (see `impactsweep models`)"},
    {"output", set_output, "result file path (default: the job file's name with .h5)"},
    {"title", set_title, "free text stored with the results"},
    {"unit_size", set_unit_size,
     "points per work unit, or auto (units of unit_seconds, the default)"},
    {"unit_seconds", set_unit_seconds,
     "target duration of a work unit in seconds (default 30; at most a quarter of the "
     "batch system's grace period)"},
    {"piece", set_piece,
     "I/N: compute only piece I of N equal parts of the grid (job arrays; merge the files); "
     "I/N:FIRST-LAST: piece I of N is points FIRST to LAST (a box of the grid)"},
    {"progress_interval", set_progress_interval,
     "seconds between progress lines when stderr is not a terminal (default 5)"},
    {"master_computes", set_master_computes,
     "rank 0 computes between serving work requests (default true)"},
    {"containment", set_containment,
     "where the model's code runs: auto (a plug-in, or with point_timeout, in an evaluator "
     "process where a crash or a hang costs only its point; else in the engine), process, "
     "none (default auto)"},
    {"point_timeout", set_point_timeout,
     "seconds a point may take before it is killed and failed (failed_timeout), or none "
     "(the default)"},
    {"refine", set_refine,
     "the outputs whose classes decide a coarse-to-fine sweep, as OUTPUT (categorical) or "
     "OUTPUT >= T (real or integer), comma-separated: cells whose corners differ in class, "
     "or lie near a threshold, are refined, the other points are inferred (default: none, "
     "every point)"},
    {"refine_levels", set_refine_levels,
     "levels of refinement L: the first pass computes every 2^L-th point (default 4)"},
    {"refine_threshold", set_refine_threshold,
     "with refine naming one real or integer output: its class is value >= threshold "
     "(the same as refine = OUTPUT >= threshold)"},
    {"refine_margin", set_refine_margin,
     "a thresholded refine output also refines cells whose corners lie within this many "
     "times their interpolation error of the threshold (default 2; 0: only cells whose "
     "classes differ)"},
    {"refine_axes", set_refine_axes,
     "the axes refined, by name (default: every axis that is not a choice)"},
};

static const char *sweep_key_name(const void *unused, size_t i)
{
    (void)unused;
    return sweep_keys[i].name;
}

/* Where section `name` starts ("job.ini:3"), or the file's name if it has none. */
static const char *section_origin(const parse_state *ps, const char *name)
{
    for (size_t i = 0; i < ps->section_count; i++)
        if (strcmp(ps->sections[i].name, name) == 0)
            return ps->sections[i].origin;
    return ps->source;
}

static const char *model_name(const void *list, size_t i)
{
    return ((const is_model *const *)list)[i]->name;
}

static void list_models(const is_models *models, char *known, size_t size)
{
    const is_model *const *list = is_models_list(models);
    size_t count = 0;
    while (list[count])
        count++;
    list_names(known, size, count, model_name, list);
}

/* `model = path/to/libmodel.so`: a relative path is taken from the job file's directory
 * (from the working directory for a --set), and the entry then holds the absolute path,
 * so that the stored job text names the library wherever it is read. */
static is_code load_model_library(parse_state *ps, entry *e, is_job *job)
{
    const char *path = e->value;
    char *joined = NULL;
    const char *slash = strrchr(ps->source, '/');
    if (path[0] != '/' && e->line > 0 && slash) {
        size_t dir = (size_t)(slash - ps->source) + 1, size = dir + strlen(path) + 1;
        if (!(joined = malloc(size)))
            return is_error_set(ps->err, IS_NOMEM, "out of memory");
        snprintf(joined, size, "%.*s%s", (int)dir, ps->source, path);
        path = joined;
    }
    is_error detail;
    is_code rc = is_models_load(ps->models, path, &job->model, &detail);
    free(joined);
    if (rc != IS_OK)
        return is_error_set(ps->err, rc, "%s: [sweep] model: %s", e->origin, detail.message);
    const char *library = is_models_library(ps->models, job->model, &job->model_sha256);
    if (!replace_value(e, library))
        return is_error_set(ps->err, IS_NOMEM, "out of memory");
    job->model_library = library;
    return IS_OK;
}

static is_code find_model(parse_state *ps, is_job *job)
{
    char known[256];
    entry *e = find_entry(ps, "sweep", "model");
    if (!e) {
        list_models(ps->models, known, sizeof known);
        return is_error_set(ps->err, IS_JOB, "%s: [sweep] model: missing (known models: %s)",
                            section_origin(ps, "sweep"), known);
    }
    if (is_models_is_path(e->value))
        return load_model_library(ps, e, job);
    is_error detail;
    is_code rc = is_models_lookup(ps->models, e->value, &job->model, &detail);
    list_models(ps->models, known, sizeof known);
    if (rc == IS_USAGE)
        return is_error_set(ps->err, IS_JOB,
                            "%s: [sweep] model = '%s': unknown model (known: %s; a plug-in is "
                            "named by its path, or found through %s)",
                            e->origin, e->value, known, IS_MODEL_PATH_VARIABLE);
    if (rc != IS_OK)
        return is_error_set(ps->err, rc, "%s: [sweep] model: %s", e->origin, detail.message);
    job->model_library = is_models_library(ps->models, job->model, &job->model_sha256);
    return IS_OK;
}

static is_code interpret_sweep(parse_state *ps, is_job *job)
{
    for (size_t i = 0; i < ps->entry_count; i++) {
        entry *e = &ps->entries[i];
        if (strcmp(e->section, "sweep") != 0)
            continue;
        const struct sweep_key *k = NULL;
        for (size_t j = 0; j < sizeof sweep_keys / sizeof *sweep_keys; j++)
            if (strcmp(sweep_keys[j].name, e->key) == 0)
                k = &sweep_keys[j];
        if (!k) {
            char known[256];
            list_names(known, sizeof known, sizeof sweep_keys / sizeof *sweep_keys,
                       sweep_key_name, NULL);
            return is_error_set(ps->err, IS_JOB, "%s: [sweep] %s: unknown key (known: %s)",
                                e->origin, e->key, known);
        }
        is_code rc = k->set(job, e, ps->err);
        if (rc != IS_OK)
            return rc;
        e->used = 1;
    }
    return IS_OK;
}

static is_code interpret_model(parse_state *ps, is_job *job, int *fixed_by)
{
    for (size_t i = 0; i < ps->entry_count; i++) {
        entry *e = &ps->entries[i];
        if (strcmp(e->section, "model") != 0)
            continue;
        char where[ORIGIN_MAX + 32];
        snprintf(where, sizeof where, "%s: [model]", e->origin);
        int p = is_model_param_index(job->model, e->key);
        is_code rc = is_job_parse_param_value(job->model, where, e->key, e->value,
                                              &job->fixed[p < 0 ? 0 : p], ps->err);
        if (rc != IS_OK)
            return rc;
        fixed_by[p] = (int)i;
        snprintf(job->param_origin[p], sizeof job->param_origin[p], "%s: [model] %s", e->origin,
                 e->key);
        e->used = 1;
    }
    return IS_OK;
}

/* An item left empty between commas ("1,,2", a comma first or last): a value missing,
 * refused as an empty `key =` is, rather than read as the list without it. Returns the
 * 1-based number of the first empty item, or 0. */
static size_t empty_list_item(const char *text)
{
    size_t item = 1;
    int filled = 0;
    for (const char *c = text;; c++) {
        if (*c == ',' || *c == '\0') {
            if (!filled && (*c == ',' || item > 1))
                return item;
            if (*c == '\0')
                return 0;
            item++;
            filled = 0;
        } else if (!isspace((unsigned char)*c)) {
            filled = 1;
        }
    }
}

/* Splits "a, b, c" (commas and/or blanks) and parses each value. */
static is_code parse_value_list(const is_param *param, const entry *e, is_axis *axis,
                                is_error *err)
{
    size_t empty = empty_list_item(e->value);
    if (empty)
        return is_error_set(err, IS_JOB,
                            "%s: [axis.%s] values: item %zu is empty (two commas with no value "
                            "between them, or a comma first or last)",
                            e->origin, param->name, empty);
    size_t capacity = 8, count = 0;
    double *values = malloc(capacity * sizeof *values);
    char *text = copy_string(e->value);
    if (!values || !text) {
        free(values);
        free(text);
        return is_error_set(err, IS_NOMEM, "out of memory");
    }
    is_code rc = IS_OK;
    char where[ORIGIN_MAX + 64];
    for (char *save = NULL, *tok = strtok_r(text, ", \t\r\n", &save); tok;
         tok = strtok_r(NULL, ", \t\r\n", &save)) {
        snprintf(where, sizeof where, "%s: [axis.%s] values (item %zu)", e->origin, param->name,
                 count + 1);
        if (count == capacity) {
            double *v = realloc(values, 2 * capacity * sizeof *v);
            if (!v) {
                rc = is_error_set(err, IS_NOMEM, "out of memory");
                break;
            }
            values = v;
            capacity *= 2;
        }
        rc = parse_param_text(param, where, tok, &values[count], err);
        if (rc != IS_OK)
            break;
        count++;
    }
    free(text);
    if (rc == IS_OK && count == 0)
        rc = is_error_set(err, IS_JOB, "%s: [axis.%s] values: empty list", e->origin,
                          param->name);
    if (rc != IS_OK) {
        free(values);
        return rc;
    }
    is_axis_set_values(axis, values, count);
    return IS_OK;
}

/* An axis must be a coordinate: strictly increasing or strictly decreasing (CF), so
 * that no two points of the grid are the same and every figure reads it in order.
 * Returns 0, or the index (from 1) of the first value out of order. */
static size_t out_of_order(const is_axis *axis)
{
    if (axis->count < 2 || !axis->values)
        return 0;
    int rising = axis->values[1] > axis->values[0];
    for (size_t i = 1; i < axis->count; i++) {
        double a = axis->values[i - 1], b = axis->values[i];
        if (rising ? !(b > a) : !(b < a))
            return i + 1;
    }
    return 0;
}

/* The 1-based position of the first choice that repeats an earlier one, or 0. */
static size_t repeated_choice(const is_axis *axis)
{
    for (size_t i = 1; i < axis->count; i++)
        for (size_t j = 0; j < i; j++)
            if (axis->values[i] == axis->values[j])
                return i + 1;
    return 0;
}

/* The keys of an [axis.NAME] section. */
typedef struct axis_keys {
    entry *from, *to, *count, *scale, *values;
} axis_keys;

static is_code collect_axis_keys(parse_state *ps, const section_header *h, axis_keys *keys)
{
    *keys = (axis_keys){0};
    for (size_t i = 0; i < ps->entry_count; i++) {
        entry *e = &ps->entries[i];
        if (strcmp(e->section, h->name) != 0)
            continue;
        entry **slot = strcmp(e->key, "from") == 0     ? &keys->from
                       : strcmp(e->key, "to") == 0     ? &keys->to
                       : strcmp(e->key, "count") == 0  ? &keys->count
                       : strcmp(e->key, "scale") == 0  ? &keys->scale
                       : strcmp(e->key, "values") == 0 ? &keys->values
                                                       : NULL;
        if (!slot)
            return is_error_set(ps->err, IS_JOB,
                                "%s: [%s] %s: unknown key (known: from, to, count, scale, "
                                "values)",
                                e->origin, h->name, e->key);
        *slot = e;
        e->used = 1;
    }
    return IS_OK;
}

/* An axis given by `values`: choices in the order given, numbers monotonic. */
static is_code axis_from_values(parse_state *ps, const section_header *h, const is_param *param,
                                const axis_keys *k, is_axis *axis)
{
    const entry *values = k->values;
    const entry *extra = k->from ? k->from : k->to ? k->to : k->count ? k->count : k->scale;
    if (extra)
        return is_error_set(ps->err, IS_JOB,
                            "%s: [%s] %s: give either 'values' (at %s) or from/to/count, "
                            "not both",
                            extra->origin, h->name, extra->key, values->origin);
    is_code rc = parse_value_list(param, values, axis, ps->err);
    if (rc != IS_OK)
        return rc;
    /* a choice axis is in the order given (its coordinate holds the names); a number
     * axis must be monotonic, to be a coordinate */
    size_t bad = param->type == IS_PARAM_CHOICE ? repeated_choice(axis) : out_of_order(axis);
    if (bad && param->type == IS_PARAM_CHOICE)
        return is_error_set(ps->err, IS_JOB, "%s: [%s] values: item %zu (%s) is given twice",
                            values->origin, h->name, bad,
                            param->choices[(int)axis->values[bad - 1]]);
    if (bad)
        return is_error_set(ps->err, IS_JOB,
                            "%s: [%s] values: item %zu (%s) %s item %zu (%s): an axis "
                            "must be strictly increasing or strictly decreasing",
                            values->origin, h->name, bad, IS_NUM(axis->values[bad - 1]),
                            axis->values[bad - 1] == axis->values[bad - 2] ? "repeats"
                                                                            : "turns back after",
                            bad - 1, IS_NUM(axis->values[bad - 2]));
    return IS_OK;
}

/* An axis given by from, to, count and scale. */
static is_code axis_from_range(parse_state *ps, const section_header *h, const is_param *param,
                               const axis_keys *k, is_axis *axis)
{
    const entry *from = k->from, *to = k->to, *count = k->count, *scale = k->scale;
    const char *name = param->name;
    if (!from || !count)
        return is_error_set(ps->err, IS_JOB,
                            "%s: [%s]: needs 'from', 'to' and 'count', or 'values'",
                            h->origin, h->name);
    double n;
    if (!parse_real(count->value, &n) || n < 1 || n != floor(n) || n > 1e9)
        return is_error_set(ps->err, IS_JOB,
                            "%s: [%s] count = '%s': expected an integer from 1 to 1e9",
                            count->origin, h->name, count->value);
    if (!to && n > 1)
        return is_error_set(ps->err, IS_JOB, "%s: [%s]: 'to' is missing (count is %s)",
                            h->origin, h->name, IS_NUM(n));
    is_axis_scale sc = IS_SCALE_LINEAR;
    if (scale && strcmp(scale->value, "log") == 0)
        sc = IS_SCALE_LOG;
    else if (scale && strcmp(scale->value, "linear") != 0)
        return is_error_set(ps->err, IS_JOB,
                            "%s: [%s] scale = '%s': expected linear or log", scale->origin,
                            h->name, scale->value);
    if (param->type == IS_PARAM_CHOICE)
        return is_error_set(ps->err, IS_JOB,
                            "%s: [%s]: %s is a choice; sweep it with 'values'", h->origin,
                            h->name, name);
    double lo, hi;
    char where[ORIGIN_MAX + 64];
    snprintf(where, sizeof where, "%s: [%s] from", from->origin, h->name);
    is_code rc = parse_param_text(param, where, from->value, &lo, ps->err);
    if (rc != IS_OK)
        return rc;
    hi = lo;
    if (to) {
        snprintf(where, sizeof where, "%s: [%s] to", to->origin, h->name);
        rc = parse_param_text(param, where, to->value, &hi, ps->err);
        if (rc != IS_OK)
            return rc;
    }
    is_error detail;
    rc = is_axis_fill(axis, sc, lo, hi, (size_t)n, &detail);
    if (rc != IS_OK)
        return is_error_set(ps->err, rc, "%s: [%s]: %s", (scale ? scale : from)->origin,
                            h->name, detail.message);
    if (param->type == IS_PARAM_INT)
        is_axis_set_integral(axis);
    /* Short axes are checked value by value here, with the line to blame; the
     * values of a long one are checked by all ranks together (is_validate_grid). */
    for (size_t i = 0; axis->values && i < axis->count; i++) {
        rc = is_param_check(param, axis->values[i], &detail);
        if (rc != IS_OK)
            return is_error_set(ps->err, rc, "%s: [%s]: value %zu of the axis: %s",
                                h->origin, h->name, i + 1, detail.message);
    }
    if (n > 1 && lo == hi)
        return is_error_set(ps->err, IS_JOB,
                            "%s: [%s] to: from = to = %s with count %s: the axis would "
                            "repeat one value; give count = 1 (or fix it in [model])",
                            to->origin, h->name, IS_NUM(lo), IS_NUM(n));
    size_t bad = out_of_order(axis);
    if (bad)
        return is_error_set(ps->err, IS_JOB,
                            "%s: [%s] count: values %zu and %zu of the axis are both %s "
                            "(too many steps between %s and %s%s): an axis must be "
                            "strictly monotonic",
                            count->origin, h->name, bad - 1, bad,
                            IS_NUM(axis->values[bad - 1]), IS_NUM(lo), IS_NUM(hi), param->type == IS_PARAM_INT ? " for an integer" : "");
    return IS_OK;
}

static is_code interpret_axis(parse_state *ps, is_job *job, const section_header *h,
                              const int *fixed_by)
{
    const char *name = h->name + strlen("axis.");
    int p = is_model_param_index(job->model, name);
    if (p < 0)
        return is_error_set(ps->err, IS_JOB,
                            "%s: [%s]: '%s' is not a parameter of model %s (see "
                            "`impactsweep models`)",
                            h->origin, h->name, name, job->model->name);
    const is_param *param = &job->model->params[p];
    if (param->flags & IS_PARAM_FIXED_ONLY)
        return is_error_set(ps->err, IS_JOB, "%s: [%s]: parameter %s cannot be swept",
                            h->origin, h->name, name);
    if (fixed_by[p] >= 0)
        return is_error_set(ps->err, IS_JOB,
                            "%s: [%s]: %s is also fixed in [model] at %s; give it one place",
                            h->origin, h->name, name, ps->entries[fixed_by[p]].origin);
    if (job->grid.axis_count == IS_GRID_MAX_AXES)
        return is_error_set(ps->err, IS_JOB, "%s: [%s]: more than %d axes", h->origin, h->name,
                            IS_GRID_MAX_AXES);

    axis_keys keys;
    is_code rc = collect_axis_keys(ps, h, &keys);
    if (rc != IS_OK)
        return rc;
    is_axis *axis = &job->grid.axes[job->grid.axis_count];
    memset(axis, 0, sizeof *axis);
    axis->param = p;
    job->grid.axis_count++;
    rc = keys.values ? axis_from_values(ps, h, param, &keys, axis)
                     : axis_from_range(ps, h, param, &keys, axis);
    if (rc != IS_OK)
        return rc;
    snprintf(job->axis_origin[job->grid.axis_count - 1], sizeof job->axis_origin[0], "%s: [%s]",
             h->origin, h->name);
    snprintf(job->param_origin[p], sizeof job->param_origin[p], "%s: [%s]", h->origin, h->name);
    job->fixed[p] = is_axis_value(axis, 0);
    return IS_OK;
}

/* --- refinement (the run itself is refine.c) --------------------------------------------------------------------- */

static const char *axis_name(const is_job *job, size_t k)
{
    return job->model->params[job->grid.axes[k].param].name;
}

static const char *axis_name_of(const void *job, size_t k)
{
    return axis_name(job, k);
}

static int is_choice_axis(const is_job *job, size_t k)
{
    return job->model->params[job->grid.axes[k].param].type == IS_PARAM_CHOICE;
}

static is_code resolve_axes(is_job *job, is_error *err)
{
    const char *spec = job->refine_spec[2], *origin = job->refine_origin[2];
    job->refine_axes = 0;
    if (!spec) { /* every axis with an order */
        for (size_t k = 0; k < job->grid.axis_count; k++)
            if (!is_choice_axis(job, k) && job->grid.axes[k].count > 1)
                job->refine_axes |= 1u << k;
        return IS_OK;
    }
    char known[1024];
    list_names(known, sizeof known, job->grid.axis_count, axis_name_of, job);
    for (const char *p = spec; *p;) {
        size_t skip = strspn(p, ", \t"), len;
        p += skip;
        if (!*p)
            break;
        len = strcspn(p, ", \t");
        size_t k = 0;
        while (k < job->grid.axis_count &&
               !(strlen(axis_name(job, k)) == len && strncmp(axis_name(job, k), p, len) == 0))
            k++;
        if (k == job->grid.axis_count)
            return is_error_set(err, IS_JOB,
                                "%s: [sweep] refine_axes: '%.*s' is not an axis of the sweep "
                                "(axes: %s)",
                                origin, (int)len, p, *known ? known : "none");
        if (is_choice_axis(job, k))
            return is_error_set(err, IS_JOB,
                                "%s: [sweep] refine_axes: '%s' is a choice axis: its values "
                                "have no order to refine between (it is swept in full)",
                                origin, axis_name(job, k));
        job->refine_axes |= 1u << k;
        p += len;
    }
    return IS_OK;
}

/* One item of [sweep] refine, "NAME" or "NAME >= NUMBER" (blanks trimmed), into
 * job->refine_outputs; `item` is modified. `spec` is the whole value, for messages. */
static is_code resolve_output(is_job *job, char *item, const char *spec, int single,
                              is_error *err)
{
    const is_model *model = job->model;
    const char *origin = job->refine_origin[0];
    char *name = trim(item), *number = NULL, *at = strstr(name, ">=");
    if (at) {
        *at = '\0';
        number = trim(at + 2);
        name = trim(name);
    }
    if (!*name)
        return is_error_set(err, IS_JOB,
                            "%s: [sweep] refine = '%s': an empty item (expected OUTPUT or "
                            "OUTPUT >= NUMBER, comma-separated)",
                            origin, spec);
    if (strcspn(name, "<>=! \t") != strlen(name))
        return is_error_set(err, IS_JOB,
                            "%s: [sweep] refine = '%s': '%s': expected OUTPUT or OUTPUT >= "
                            "NUMBER, comma-separated",
                            origin, spec, name);
    int o = is_model_output_index(model, name);
    if (o < 0) {
        char known[2048];
        list_names(known, sizeof known, model->output_count, output_name, model);
        if (single)
            return is_error_set(err, IS_JOB,
                                "%s: [sweep] refine = '%s': model %s has no such output "
                                "(outputs: %s)",
                                origin, spec, model->name, known);
        return is_error_set(err, IS_JOB,
                            "%s: [sweep] refine = '%s': '%s': model %s has no such output "
                            "(outputs: %s)",
                            origin, spec, name, model->name, known);
    }
    for (size_t i = 0; i < job->refine_output_count; i++)
        if (job->refine_outputs[i].output == o)
            return is_error_set(err, IS_JOB, "%s: [sweep] refine = '%s': %s is named twice",
                                origin, spec, name);
    if (job->refine_output_count == IS_REFINE_MAX_OUTPUTS)
        return is_error_set(err, IS_JOB, "%s: [sweep] refine = '%s': at most %d outputs",
                            origin, spec, IS_REFINE_MAX_OUTPUTS);
    const is_output *out = &model->outputs[o];
    double threshold = NAN;
    if (number && !parse_real(number, &threshold))
        return is_error_set(err, IS_JOB,
                            "%s: [sweep] refine = '%s': %s >= '%s': expected a finite number",
                            origin, spec, name, number);
    if (number && out->type == IS_OUTPUT_CATEGORY)
        return is_error_set(err, IS_JOB,
                            "%s: [sweep] refine = '%s': %s is categorical (its categories are "
                            "the classes): remove '>= %s'",
                            origin, spec, name, number);
    job->refine_outputs[job->refine_output_count++] = (is_refine_output){o, threshold};
    return IS_OK;
}

/* [sweep] refine_threshold: the threshold of the one output refine names (given there
 * with '>=' or here, not both); every real or integer output needs one. */
static is_code resolve_threshold(is_job *job, is_error *err)
{
    const char *threshold = job->refine_spec[1], *where = job->refine_origin[1];
    is_refine_output *first = &job->refine_outputs[0];
    const is_output *out = &job->model->outputs[first->output];
    if (threshold && job->refine_output_count > 1)
        return is_error_set(err, IS_JOB,
                            "%s: [sweep] refine_threshold: refine names %zu outputs; give each "
                            "real or integer one its threshold there ('NAME >= T')",
                            where, job->refine_output_count);
    if (threshold && out->type == IS_OUTPUT_CATEGORY)
        return is_error_set(err, IS_JOB,
                            "%s: [sweep] refine_threshold: %s is categorical (its categories "
                            "are the classes); remove the threshold",
                            where, out->name);
    if (threshold && !isnan(first->threshold))
        return is_error_set(err, IS_JOB,
                            "%s: [sweep] refine_threshold: the threshold of %s is given in "
                            "refine already ('%s')",
                            where, out->name, job->refine_spec[0]);
    if (threshold && !parse_real(threshold, &first->threshold))
        return is_error_set(err, IS_JOB,
                            "%s: [sweep] refine_threshold = '%s': expected a finite number",
                            where, threshold);
    for (size_t i = 0; i < job->refine_output_count; i++) {
        const is_refine_output *r = &job->refine_outputs[i];
        const is_output *o = &job->model->outputs[r->output];
        if (o->type == IS_OUTPUT_CATEGORY || !isnan(r->threshold))
            continue;
        const char *kind = o->type == IS_OUTPUT_REAL ? "a real" : "an integer";
        if (job->refine_output_count == 1)
            return is_error_set(err, IS_JOB,
                                "%s: [sweep] refine = '%s': %s is %s output: give "
                                "[sweep] refine_threshold too (its class is value >= "
                                "threshold), or refine on a categorical output",
                                job->refine_origin[0], job->refine_spec[0], o->name, kind);
        return is_error_set(err, IS_JOB,
                            "%s: [sweep] refine = '%s': %s is %s output: give its threshold "
                            "('%s >= T': its class is value >= T)",
                            job->refine_origin[0], job->refine_spec[0], o->name, kind,
                            o->name);
    }
    return IS_OK;
}

/* [sweep] refine: the outputs whose classes decide, comma-separated. */
static is_code resolve_outputs(is_job *job, is_error *err)
{
    const char *spec = job->refine_spec[0];
    char *items = copy_string(spec);
    if (!items)
        return is_error_set(err, IS_NOMEM, "out of memory");
    job->refine_output_count = 0;
    int single = strchr(spec, ',') == NULL;
    is_code rc = IS_OK;
    for (char *item = items, *next; rc == IS_OK && item; item = next) {
        next = strchr(item, ',');
        if (next)
            *next++ = '\0';
        rc = resolve_output(job, item, spec, single, err);
    }
    free(items);
    return rc == IS_OK ? resolve_threshold(job, err) : rc;
}

/* One axis refined at least and IS_REFINE_MAX_AXES at most, each with 2^levels + 1
 * values at least (so that the first pass, every 2^levels-th value, has two of it). */
static is_code check_refined_axes(const is_job *job, unsigned levels, int levels_given,
                                  is_error *err)
{
    const char *origin = job->refine_origin[0];
    const char *where = job->refine_origin[2][0] ? job->refine_origin[2] : origin;
    int refined = 0;
    for (size_t k = 0; k < job->grid.axis_count; k++)
        refined += (job->refine_axes >> k) & 1;
    if (refined == 0)
        return is_error_set(err, IS_JOB,
                            "%s: [sweep] refine: no axis to refine (it needs an axis of real "
                            "or integer values with two values or more)",
                            where);
    if (refined > IS_REFINE_MAX_AXES)
        return is_error_set(err, IS_JOB,
                            "%s: [sweep] refine: %d axes refined; at most %d (name them with "
                            "refine_axes: the others are swept in full)",
                            where, refined, IS_REFINE_MAX_AXES);
    for (size_t k = 0; k < job->grid.axis_count; k++) {
        if (!((job->refine_axes >> k) & 1))
            continue;
        uint64_t cells = job->grid.axes[k].count - 1;
        if (cells >= (UINT64_C(1) << levels))
            continue;
        int most = 0;
        while (most < 30 && (UINT64_C(2) << most) <= cells)
            most++;
        if (levels_given)
            return is_error_set(err, IS_JOB,
                                "%s: [sweep] refine_levels = %u: the first pass takes every "
                                "%llu-th value, but axis %s has %zu values (at least %llu "
                                "needed; at most %d levels here)",
                                job->refine_origin[3], levels,
                                (unsigned long long)(UINT64_C(1) << levels), axis_name(job, k),
                                job->grid.axes[k].count,
                                (unsigned long long)(UINT64_C(1) << levels) + 1, most);
        return is_error_set(err, IS_JOB,
                            "%s: [sweep] refine: axis %s has %zu values, too few for the "
                            "default refine_levels = %u (at least %llu); set refine_levels "
                            "(at most %d here) or refine_axes",
                            origin, axis_name(job, k), job->grid.axes[k].count, levels,
                            (unsigned long long)(UINT64_C(1) << levels) + 1, most);
    }
    return IS_OK;
}

/* Turns the refine keys kept by the setters (job->refine_spec) into refine_outputs,
 * refine_levels and refine_axes, once the model and the axes are known;
 * refine_levels stays 0 without [sweep] refine. IS_JOB (file:line: key: why) for an
 * unknown output, a threshold missing (real or integer output) or given (categorical
 * one), an unknown or choice axis, levels too many for an axis, or job-array pieces. */
static is_code refine_resolve(is_job *job, is_error *err)
{
    static const char *const keys[5] = {"refine", "refine_threshold", "refine_axes",
                                        "refine_levels", "refine_margin"};
    const char *spec = job->refine_spec[0], *origin = job->refine_origin[0];
    unsigned given_levels = job->refine_levels;
    job->refine_levels = 0;
    if (!spec || !*spec) { /* refine = (empty): none */
        for (int i = 1; i < 5; i++)
            if (*job->refine_origin[i])
                return is_error_set(err, IS_JOB,
                                    "%s: [sweep] %s: only with [sweep] refine (the output "
                                    "whose class decides where to refine)",
                                    job->refine_origin[i], keys[i]);
        return IS_OK;
    }
    is_code rc = resolve_outputs(job, err);
    if (rc != IS_OK)
        return rc;
    rc = resolve_axes(job, err);
    if (rc != IS_OK)
        return rc;
    unsigned levels = given_levels ? given_levels : IS_REFINE_DEFAULT_LEVELS;
    rc = check_refined_axes(job, levels, given_levels != 0, err);
    if (rc != IS_OK)
        return rc;
    if (job->piece_count > 1)
        return is_error_set(err, IS_JOB,
                            "%s: [sweep] refine: a refined sweep cannot be split into "
                            "job-array pieces (its passes read neighbouring cells across the "
                            "whole grid); run it as one job, on as many ranks as you like",
                            origin);
    job->refine_levels = levels;
    return IS_OK;
}

/* --- canonical text and fingerprint ---------------------------------------------- */

typedef struct text_buffer {
    char *data;
    size_t length, capacity;
    int failed;
} text_buffer;

static void append(text_buffer *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void append(text_buffer *b, const char *fmt, ...)
{
    if (b->failed)
        return;
    for (;;) {
        va_list ap;
        va_start(ap, fmt);
        int w = vsnprintf(b->data ? b->data + b->length : NULL,
                          b->data ? b->capacity - b->length : 0, fmt, ap);
        va_end(ap);
        if (w < 0) {
            b->failed = 1;
            return;
        }
        if (b->data && b->length + (size_t)w < b->capacity) {
            b->length += (size_t)w;
            return;
        }
        size_t cap = b->capacity ? b->capacity : 1024;
        while (cap <= b->length + (size_t)w)
            cap *= 2;
        char *d = realloc(b->data, cap);
        if (!d) {
            b->failed = 1;
            return;
        }
        b->data = d;
        b->capacity = cap;
    }
}

static void append_section(text_buffer *b, parse_state *ps, const char *section)
{
    append(b, "[%s]\n", section);
    for (size_t i = 0; i < ps->entry_count; i++)
        if (strcmp(ps->entries[i].section, section) == 0)
            append(b, "%s = %s\n", ps->entries[i].key, ps->entries[i].value);
}

static uint64_t fnv1a(uint64_t h, const void *data, size_t size)
{
    const unsigned char *p = data;
    for (size_t i = 0; i < size; i++) {
        h ^= p[i];
        h *= 0x100000001B3ull;
    }
    return h;
}

/* Which points a refined sweep computes. A sweep whose rule is that of the first
 * refinement (one output, and either categorical or with refine_margin = 0) digests as it
 * did then, so that its files resume; any other digests every output, threshold and the
 * margin too. */
static uint64_t refine_fingerprint(const is_job *job, uint64_t h)
{
    const is_refine_output *first = &job->refine_outputs[0];
    if (job->refine_output_count == 1 && (isnan(first->threshold) || job->refine_margin == 0)) {
        double refine[4] = {(double)first->output, first->threshold,
                            (double)job->refine_levels, (double)job->refine_axes};
        h = fnv1a(h, "refine", 7);
        return fnv1a(h, refine, sizeof refine);
    }
    double refine[3] = {job->refine_margin, (double)job->refine_levels,
                        (double)job->refine_axes};
    h = fnv1a(h, "refine outputs", 15);
    for (size_t i = 0; i < job->refine_output_count; i++) {
        double item[2] = {(double)job->refine_outputs[i].output,
                          job->refine_outputs[i].threshold};
        h = fnv1a(h, item, sizeof item);
    }
    return fnv1a(h, refine, sizeof refine);
}

/* A linear or log axis enters by its formula, so that the digest costs O(axes), not
 * O(points); an explicit axis by its values. */
static uint64_t job_fingerprint(const is_job *job, const char *model_digest)
{
    uint64_t h = 0xCBF29CE484222325ull;
    h = fnv1a(h, job->model->name, strlen(job->model->name) + 1);
    if (model_digest) /* a plug-in: what determines its results */
        h = fnv1a(h, model_digest, strlen(model_digest));
    for (size_t p = 0; p < job->model->param_count; p++) { /* a choice by its name */
        const is_param *param = &job->model->params[p];
        if (param->type == IS_PARAM_CHOICE)
            h = fnv1a(h, param->choices[(int)job->fixed[p]],
                      strlen(param->choices[(int)job->fixed[p]]) + 1);
        else
            h = fnv1a(h, &job->fixed[p], sizeof job->fixed[p]);
    }
    for (size_t k = 0; k < job->grid.axis_count; k++) {
        const is_axis *a = &job->grid.axes[k];
        uint64_t header[4] = {(uint64_t)a->param, (uint64_t)a->count, (uint64_t)a->scale,
                              (uint64_t)a->integral};
        h = fnv1a(h, header, sizeof header);
        const is_param *param = &job->model->params[a->param];
        if (param->type == IS_PARAM_CHOICE) { /* by name: a reordered list changes it */
            for (size_t i = 0; i < a->count; i++)
                h = fnv1a(h, param->choices[(int)a->values[i]],
                          strlen(param->choices[(int)a->values[i]]) + 1);
        } else if (a->scale == IS_SCALE_VALUES) {
            h = fnv1a(h, a->values, a->count * sizeof *a->values);
        } else {
            double ends[2] = {a->from, a->to};
            h = fnv1a(h, ends, sizeof ends);
        }
    }
    return job->refine_levels ? refine_fingerprint(job, h) : h;
}

static char *default_output(const char *source)
{
    const char *base = strrchr(source, '/');
    base = base ? base + 1 : source;
    size_t len = strlen(base);
    const char *dot = strrchr(base, '.');
    if (dot && dot != base)
        len = (size_t)(dot - base);
    char *out = malloc(len + 4);
    if (out) {
        memcpy(out, base, len);
        memcpy(out + len, ".h5", 4);
    }
    return out;
}

/* --- the whole parse -------------------------------------------------------------- */

static void free_state(parse_state *ps)
{
    for (size_t i = 0; i < ps->entry_count; i++) {
        free(ps->entries[i].section);
        free(ps->entries[i].key);
        free(ps->entries[i].value);
    }
    free(ps->entries);
    for (size_t i = 0; i < ps->section_count; i++)
        free(ps->sections[i].name);
    free(ps->sections);
}

/* The axis of choice parameter c, or NULL when it is fixed. */
static const is_axis *choice_axis(const is_job *job, int c)
{
    for (size_t k = 0; k < job->grid.axis_count; k++)
        if (job->grid.axes[k].param == c)
            return &job->grid.axes[k];
    return NULL;
}

/* Does parameter p apply at one combination at least of the swept choices' values (the
 * fixed ones as they are)? 1 yes, 0 no, -1 out of memory. */
static int applies_somewhere(const is_job *job, size_t p)
{
    const is_model *model = job->model;
    double *point = malloc(model->param_count * sizeof *point);
    if (!point)
        return -1;
    memcpy(point, job->fixed, model->param_count * sizeof *point);
    const is_axis *axes[IS_GRID_MAX_AXES];
    size_t index[IS_GRID_MAX_AXES] = {0}, n = 0;
    for (size_t k = 0; k < job->grid.axis_count; k++)
        if (model->params[job->grid.axes[k].param].type == IS_PARAM_CHOICE)
            axes[n++] = &job->grid.axes[k];
    int applies = 0;
    for (;;) { /* every combination, as an odometer (at most 32 choices each) */
        for (size_t k = 0; k < n; k++)
            point[axes[k]->param] = axes[k]->values[index[k]];
        if ((applies = is_param_applies(model, p, point)) != 0)
            break;
        size_t k = 0;
        while (k < n && ++index[k] == axes[k]->count)
            index[k++] = 0;
        if (k == n)
            break;
    }
    free(point);
    return applies;
}

/* Every section is [sweep], [model] or [axis.PARAMETER]. */
static is_code check_sections(parse_state *ps)
{
    for (size_t i = 0; i < ps->section_count; i++) {
        const section_header *h = &ps->sections[i];
        if (strcmp(h->name, "sweep") && strcmp(h->name, "model") &&
            strncmp(h->name, "axis.", 5) != 0)
            return is_error_set(ps->err, IS_JOB,
                                "%s: [%s]: unknown section (known: [sweep], [model], "
                                "[axis.PARAMETER])",
                                h->origin, h->name);
    }
    return IS_OK;
}

static is_code interpret_axes(parse_state *ps, is_job *job, int *fixed_by)
{
    is_code rc = IS_OK;
    for (size_t i = 0; i < ps->section_count && rc == IS_OK; i++) {
        const section_header *h = &ps->sections[i];
        if (strncmp(h->name, "axis.", 5) != 0)
            continue;
        int has_keys = 0;
        for (size_t j = 0; j < ps->entry_count; j++)
            has_keys |= strcmp(ps->entries[j].section, h->name) == 0;
        if (!has_keys)
            rc = is_error_set(ps->err, IS_JOB, "%s: [%s]: the axis has no keys", h->origin,
                              h->name);
        else
            rc = interpret_axis(ps, job, h, fixed_by);
        int p = is_model_param_index(job->model, h->name + 5);
        for (size_t k = 0; rc == IS_OK && k + 1 < job->grid.axis_count; k++)
            if (job->grid.axes[k].param == p)
                rc = is_error_set(ps->err, IS_JOB, "%s: [%s]: axis given twice", h->origin,
                                  h->name);
    }
    return rc;
}

/* A value given for a parameter that the choices made leave unused would be silently
 * ignored: a flat map over an axis that changes nothing (with choices swept, it must
 * apply with one of their combinations at least). */
static is_code check_param_applies(parse_state *ps, const is_job *job, size_t p)
{
    const is_model *model = job->model;
    int applies = applies_somewhere(job, p);
    if (applies < 0)
        return is_error_set(ps->err, IS_NOMEM, "out of memory");
    if (applies != 0)
        return IS_OK;
    char when[512], now[512] = "";
    is_param_format_when(model, p, when, sizeof when);
    size_t used = 0;
    for (const is_param_when *w = model->params[p].when; w && w->choice; w++) {
        int c = is_model_param_index(model, w->choice);
        if (c < 0 || used >= sizeof now)
            continue;
        const is_axis *axis = choice_axis(job, c);
        used += (size_t)snprintf(now + used, sizeof now - used, "%s%s %s ", used ? ", " : "",
                                 w->choice, axis ? "in" : "=");
        for (size_t i = 0; i < (axis ? axis->count : 1) && used < sizeof now; i++)
            used += (size_t)snprintf(
                now + used, sizeof now - used, "%s%s", i ? " | " : "",
                model->params[c].choices[(int)(axis ? axis->values[i] : job->fixed[c])]);
    }
    return is_error_set(ps->err, IS_PARAM,
                        "%s: %s does not apply with %s (it is used with %s); remove it, or "
                        "choose accordingly",
                        job->param_origin[p], model->params[p].name, now, when);
}

/* Every parameter has a value, every value given applies, every key was used. */
static is_code check_params(parse_state *ps, const is_job *job)
{
    const is_model *model = job->model;
    for (size_t p = 0; p < model->param_count; p++)
        if (isnan(job->fixed[p]))
            return is_error_set(ps->err, IS_JOB,
                                "%s: [model] %s: missing: parameter %s of model %s has no "
                                "default: give it in [model] or sweep it in [axis.%s]",
                                section_origin(ps, "model"), model->params[p].name,
                                model->params[p].name, model->name, model->params[p].name);
    for (size_t p = 0; p < model->param_count; p++) {
        is_code rc = *job->param_origin[p] ? check_param_applies(ps, job, p) : IS_OK;
        if (rc != IS_OK)
            return rc;
    }
    for (size_t i = 0; i < ps->entry_count; i++)
        if (!ps->entries[i].used)
            return is_error_set(ps->err, IS_JOB, "%s: [%s] %s: unknown section or key",
                                ps->entries[i].origin, ps->entries[i].section,
                                ps->entries[i].key);
    return IS_OK;
}

/* The grid from the axes, the output's name and this piece's part of the grid. */
static is_code finish_grid(parse_state *ps, is_job *job)
{
    job->grid.base = job->fixed;
    job->grid.param_count = job->model->param_count;
    is_error detail;
    is_code rc = is_grid_finish(&job->grid, &detail);
    if (rc != IS_OK) { /* name the axes whose counts multiply beyond the limit */
        char counts[1024] = "";
        size_t used = 0;
        for (size_t k = 0; k < job->grid.axis_count && used < sizeof counts; k++)
            used += (size_t)snprintf(counts + used, sizeof counts - used, "%s%s count %zu",
                                     k ? ", " : "", job->axis_origin[k],
                                     job->grid.axes[k].count);
        return is_error_set(ps->err, rc, "%s: %s (%s)",
                            job->grid.axis_count ? job->axis_origin[0] : ps->source,
                            detail.message, counts);
    }
    if (!job->output) {
        if (!(job->output = default_output(ps->source)))
            return is_error_set(ps->err, IS_NOMEM, "out of memory");
        snprintf(job->output_origin, sizeof job->output_origin,
                 "%s: the default output (the job file's name with .h5)", ps->source);
    }
    uint64_t total = job->grid.point_count;
    if (job->piece_count > total || job->piece_count > (UINT64_C(1) << 20)) {
        const entry *e = find_entry(ps, "sweep", "piece");
        return is_error_set(ps->err, IS_JOB, "%s: [sweep] piece: %llu pieces for %llu points",
                            e ? e->origin : ps->source, (unsigned long long)job->piece_count,
                            (unsigned long long)total);
    }
    if (!job->piece_ranged) {
        is_grid_piece(&job->grid, job->piece_count, job->piece_index, &job->piece_box,
                      &job->piece_first, &job->piece_last);
        return IS_OK;
    }
    int whole = job->piece_first == 0 && job->piece_last == total;
    if ((job->piece_count > 1 || whole) &&
        is_grid_range_box(&job->grid, job->piece_first, job->piece_last, &job->piece_box))
        return IS_OK;
    const entry *e = find_entry(ps, "sweep", "piece");
    return is_error_set(ps->err, IS_JOB,
                        "%s: [sweep] piece = '%s': points %llu to %llu are not a piece of the "
                        "%llu-point grid (a piece is a run of whole slices of one axis inside one "
                        "slice of each axis before it; see `run --dry-run --pieces N`)",
                        e ? e->origin : ps->source, e ? e->value : "",
                        (unsigned long long)job->piece_first,
                        (unsigned long long)job->piece_last - 1, (unsigned long long)total);
}

void is_job_piece_text(const is_job *job, char *text, size_t size)
{
    if (job->piece_ranged && job->piece_count > 1) /* (one piece is the grid, however given) */
        snprintf(text, size, "%llu/%llu:%llu-%llu", (unsigned long long)job->piece_index,
                 (unsigned long long)job->piece_count, (unsigned long long)job->piece_first,
                 (unsigned long long)job->piece_last - 1);
    else
        snprintf(text, size, "%llu/%llu", (unsigned long long)job->piece_index,
                 (unsigned long long)job->piece_count);
}

/* The job's own text (its sections in a fixed order) and its fingerprint. */
static is_code store_text(parse_state *ps, is_job *job)
{
    text_buffer text = {0};
    append_section(&text, ps, "sweep");
    int has_model_keys = 0;
    for (size_t i = 0; i < ps->entry_count; i++)
        has_model_keys |= strcmp(ps->entries[i].section, "model") == 0;
    if (has_model_keys) {
        append(&text, "\n");
        append_section(&text, ps, "model");
    }
    for (size_t k = 0; k < job->grid.axis_count; k++) {
        char section[128];
        snprintf(section, sizeof section, "axis.%s",
                 job->model->params[job->grid.axes[k].param].name);
        append(&text, "\n");
        append_section(&text, ps, section);
    }
    if (text.failed) {
        free(text.data);
        return is_error_set(ps->err, IS_NOMEM, "out of memory");
    }
    job->text = text.data;
    /* a plug-in's results are determined by its declared version and tables (a rebuild
     * that keeps them may continue a file); files made before said: its library's bytes */
    char *table = is_model_text(job->model, NULL, job->model_table_sha256);
    free(table);
    if (!table)
        return is_error_set(ps->err, IS_NOMEM, "out of memory");
    job->fingerprint = job_fingerprint(job, job->model_sha256 ? job->model_table_sha256 : NULL);
    job->fingerprint_of_library = job_fingerprint(job, job->model_sha256);
    return IS_OK;
}

static is_code interpret(parse_state *ps, is_job *job)
{
    is_code rc = find_model(ps, job);
    if (rc != IS_OK)
        return rc;
    const is_model *model = job->model;
    job->fixed = malloc(model->param_count * sizeof *job->fixed);
    job->param_origin = calloc(model->param_count, sizeof *job->param_origin);
    int *fixed_by = malloc(model->param_count * sizeof *fixed_by);
    if (!job->fixed || !job->param_origin || !fixed_by) {
        free(fixed_by);
        return is_error_set(ps->err, IS_NOMEM, "out of memory");
    }
    for (size_t p = 0; p < model->param_count; p++) {
        job->fixed[p] = model->params[p].default_value;
        fixed_by[p] = -1;
    }
    rc = check_sections(ps);
    if (rc == IS_OK)
        rc = interpret_sweep(ps, job);
    if (rc == IS_OK)
        rc = interpret_model(ps, job, fixed_by);
    if (rc == IS_OK)
        rc = interpret_axes(ps, job, fixed_by);
    free(fixed_by);
    if (rc == IS_OK)
        rc = check_params(ps, job);
    if (rc == IS_OK)
        rc = finish_grid(ps, job);
    if (rc == IS_OK)
        rc = refine_resolve(job, ps->err);
    if (rc == IS_OK)
        rc = check_containment(job, ps->err);
    return rc == IS_OK ? store_text(ps, job) : rc;
}

/* `key =;x` gives the value ";x", but the stored job text `key = ;x` would read back as an
 * empty value (a ';' after a blank starts a comment), and to a reader it looks like one. */
static is_code refuse_comment_like_values(parse_state *ps)
{
    for (size_t i = 0; i < ps->entry_count; i++) {
        const entry *e = &ps->entries[i];
        if (e->value[0] == ';')
            return is_error_set(ps->err, IS_JOB,
                                "%s: [%s] %s: a value may not start with ';' (it reads as a "
                                "comment)",
                                e->origin, e->section, e->key);
    }
    return IS_OK;
}

is_code is_job_parse(const char *source, const char *text, const char *const *overrides,
                     size_t override_count, is_models *models, is_job **out, is_error *err)
{
    *out = NULL;
    is_job *job = calloc(1, sizeof *job);
    parse_state ps = {
        .source = source, .cursor = text, .models = models, .err = err, .rc = IS_OK};
    if (!job || !(job->source = copy_string(source))) {
        free(job);
        return is_error_set(err, IS_NOMEM, "out of memory");
    }
    job->progress_interval = 5.0;
    job->master_computes = 1;
    job->unit_seconds = 30.0;
    job->piece_count = 1;
    job->refine_margin = IS_REFINE_DEFAULT_MARGIN;
    is_code rc = scan_sections(&ps, text);
    if (rc == IS_OK) {
        int bad_line = ini_parse_stream(read_line, &ps, on_key, &ps);
        if (ps.rc != IS_OK)
            rc = ps.rc;
        else if (bad_line > 0)
            rc = is_error_set(err, IS_JOB, "%s:%d: not a 'key = value' line or [section]",
                              source, bad_line);
        else if (bad_line < 0)
            rc = is_error_set(err, IS_NOMEM, "%s: out of memory while parsing", source);
    }
    if (rc == IS_OK)
        rc = refuse_comment_like_values(&ps);
    for (size_t i = 0; i < override_count && rc == IS_OK; i++)
        rc = apply_override(&ps, overrides[i]);
    if (rc == IS_OK)
        rc = interpret(&ps, job);
    free_state(&ps);
    if (rc != IS_OK) {
        is_job_free(&job);
        return rc;
    }
    *out = job;
    return IS_OK;
}

void is_job_free(is_job **job)
{
    if (!job || !*job)
        return;
    is_job *j = *job;
    for (size_t k = 0; k < j->grid.axis_count; k++)
        is_axis_free(&j->grid.axes[k]);
    free(j->source);
    free(j->output);
    free(j->title);
    for (int i = 0; i < 3; i++)
        free(j->refine_spec[i]);
    free(j->fixed);
    free(j->param_origin);
    free(j->text);
    is_evaluator_free(&j->evaluator);
    free(j);
    *job = NULL;
}

is_code is_job_read_file(const char *path, char **text, is_error *err)
{
    *text = NULL;
    FILE *f = fopen(path, "rb");
    if (!f)
        return is_error_set(err, IS_JOB, "%s: cannot open the job file: %s", path,
                            strerror(errno));
    size_t capacity = 4096, length = 0;
    char *buf = malloc(capacity);
    while (buf) {
        size_t got = fread(buf + length, 1, capacity - length - 1, f);
        length += got;
        if (length < capacity - 1)
            break;
        if (capacity > (64u << 20)) {
            free(buf);
            fclose(f);
            return is_error_set(err, IS_JOB, "%s: larger than 64 MiB: not a job file", path);
        }
        char *bigger = realloc(buf, capacity * 2);
        if (!bigger) {
            free(buf);
            buf = NULL;
            break;
        }
        buf = bigger;
        capacity *= 2;
    }
    int failed = ferror(f);
    fclose(f);
    if (!buf)
        return is_error_set(err, IS_NOMEM, "%s: out of memory reading the job file", path);
    if (failed) {
        free(buf);
        return is_error_set(err, IS_JOB, "%s: read error", path);
    }
    buf[length] = '\0';
    if (strlen(buf) != length) {
        free(buf);
        return is_error_set(err, IS_JOB, "%s: contains a NUL byte: not a text file", path);
    }
    *text = buf;
    return IS_OK;
}
