/* job_entries.c: a job's entries: the job file read through libinih (with the
 * section headers and long lines inih does not report) and the --set overrides on top. */
#include "job_internal.h"

#include <ctype.h>
#include <ini.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

char *job_copy_string(const char *s)
{
    size_t n = strlen(s) + 1;
    char *c = malloc(n);
    if (c)
        memcpy(c, s, n);
    return c;
}

char *job_trim(char *s)
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
/* More keys than any job has: beyond it the file is refused (job_find_entry is linear). */
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
 * which job_on_key joins without the blank it puts between real continuation lines. So a
 * value of any length reads as if inih had no limit. */
char *job_read_line(char *str, int num, void *stream)
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
         * (job_scan_sections refuses one that is too long) */
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

entry *job_find_entry(parse_state *ps, const char *section, const char *key)
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
    e->section = job_copy_string(section);
    e->key = job_copy_string(key);
    e->value = job_copy_string(value);
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
int job_replace_value(entry *e, const char *value)
{
    char *copy = job_copy_string(value);
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
    e->value_length +=
        (size_t)snprintf(e->value + e->value_length, e->value_capacity - e->value_length, "%s%.*s",
                         separator, (int)length, text);
    return 1;
}

int job_on_key(void *user, const char *section, const char *name, const char *value)
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
                                                      : job_find_entry(ps, section, name);
    if (previous && ps->indented && strcmp(previous->key, name) == 0 &&
        strcmp(previous->section, section) == 0) {
        /* inih's multi-line value: an indented line continues the previous key; a piece
         * of a long line continues it without a blank (see job_read_line). inih leaves an
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
        previous = job_find_entry(ps, section, name);
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
is_code job_scan_sections(parse_state *ps, const char *text)
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
            return is_error_set(ps->err, IS_JOB, "%s:%d: a section header of over %d characters",
                                ps->source, line, INIH_LINE_MAX - 2);
        char buf[INIH_LINE_MAX];
        memcpy(buf, p, len);
        buf[len] = '\0';
        char *s = job_trim(buf);
        if (*s == '[') {
            char *close = strchr(s, ']');
            if (!close)
                return is_error_set(ps->err, IS_JOB, "%s:%d: section header without ']'",
                                    ps->source, line);
            char *name = s + 1;
            int blank_end = close > name && isspace((unsigned char)close[-1]);
            *close = '\0';
            if (blank_end || !*name || name != job_trim(name))
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
            h->name = job_copy_string(name);
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
    int ok = job_scan_sections(&back, text) == IS_OK && back.section_count == 1 &&
             strcmp(back.sections[0].name, section) == 0 &&
             ini_parse_stream(job_read_line, &back, job_on_key, &back) == 0 && back.rc == IS_OK &&
             back.entry_count == 1 && strcmp(back.entries[0].section, section) == 0 &&
             strcmp(back.entries[0].key, key) == 0 && strcmp(back.entries[0].value, value) == 0;
    job_free_state(&back);
    free(text);
    return ok;
}

is_code job_apply_override(parse_state *ps, const char *override)
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
    char *full = job_trim(path);
    char *dot = strrchr(full, '.');
    if (!dot || dot == full || !dot[1])
        return is_error_set(ps->err, IS_USAGE,
                            "%s: expected section.key=value (e.g. model.gamma=0.2)", origin);
    *dot = '\0';
    char *section = job_trim(full), *key = job_trim(dot + 1);
    char *value = job_copy_string(eq + 1);
    if (!value)
        return is_error_set(ps->err, IS_NOMEM, "out of memory");
    char *v = job_trim(value);
    if (!survives(section, key, v)) {
        free(value);
        return is_error_set(ps->err, IS_USAGE,
                            "%s: cannot be stored in the job text as given (a value may not hold "
                            "a line break, start with ';', or hold a ';' after a blank; "
                            "names may not hold ']', '=', ':' or ';')",
                            origin);
    }
    is_code rc = IS_OK;
    entry *e = job_find_entry(ps, section, key);
    if (e) {
        int replaced = job_replace_value(e, v);
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
        h->name = job_copy_string(section);
        if (!h->name)
            return is_error_set(ps->err, IS_NOMEM, "out of memory");
        snprintf(h->origin, sizeof h->origin, "%s", origin);
        h->line = 0;
        ps->section_count++;
    }
    return IS_OK;
}

void job_free_state(parse_state *ps)
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
