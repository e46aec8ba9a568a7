/* model_text.c: a model's table as text, and back (see model_text.h).
 *
 * One record a line, fields separated by tabs, each field percent-encoded (%, tab,
 * newline, '|', ',', '=' and control characters as %XX):
 *     impactsweep model table 3
 *     name     NAME
 *     version  VERSION
 *     param    NAME MEANING UNIT real|int|choice DEFAULT MIN MAX FLAGS CHOICES WHEN LABEL
 *     output   NAME UNIT LONG_NAME real|int|category CATEGORIES FLAGS LABEL [LENGTH DIMENSION]
 *     description TEXT
 *     references TEXT                  (only when the model names its papers)
 * CHOICES and CATEGORIES are names joined by '|', WHEN is "choice=bits" joined by ',',
 * numbers are %.17g (inf, nan as printf writes them), an absent label is empty; LENGTH and
 * DIMENSION (its name, empty: the default) only for an array output. The
 * digest covers every line but the description and the references, with the labels left
 * empty: none of them changes a result. */
#include "model_text.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sha256.h"

#define HEADER "impactsweep model table 3"
/* Bounds of a described table, as conformance.c's. */
#define ITEMS_MAX 1024

typedef struct text {
    char *data;
    size_t length, capacity;
    int failed;
} text;

static void put(text *t, const char *s, size_t n)
{
    if (t->failed)
        return;
    if (t->length + n + 1 > t->capacity) {
        size_t cap = t->capacity ? t->capacity : 1024;
        while (cap < t->length + n + 1)
            cap *= 2;
        char *d = realloc(t->data, cap);
        if (!d) {
            t->failed = 1;
            return;
        }
        t->data = d;
        t->capacity = cap;
    }
    memcpy(t->data + t->length, s, n);
    t->length += n;
    t->data[t->length] = '\0';
}

static void put_field(text *t, const char *s)
{
    put(t, "\t", 1);
    for (; s && *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c < 0x20 || c == 0x7f || strchr("%|,=", c)) {
            char hex[4];
            snprintf(hex, sizeof hex, "%%%02X", c);
            put(t, hex, 3);
        } else {
            put(t, s, 1);
        }
    }
}

static void put_number(text *t, double v)
{
    char n[40];
    snprintf(n, sizeof n, "%.17g", v);
    put_field(t, n);
}

/* names[] NULL-terminated, as one field "a|b|c" (each encoded on its own). */
static void put_list(text *t, const char *const *names)
{
    text one = {0};
    put(t, "\t", 1);
    for (int i = 0; names && names[i]; i++) {
        one.length = 0;
        put_field(&one, names[i]);
        if (i)
            put(t, "|", 1);
        if (one.data)
            put(t, one.data + 1, one.length - 1);
    }
    t->failed |= one.failed;
    free(one.data);
}

static void put_param(text *t, const is_param *p, int labels)
{
    static const char *const types[] = {"real", "int", "choice"};
    put(t, "param", 5);
    put_field(t, p->name);
    put_field(t, p->meaning);
    put_field(t, p->unit);
    put_field(t, types[p->type]);
    put_number(t, p->default_value);
    put_number(t, p->min);
    put_number(t, p->max);
    put_number(t, (double)p->flags);
    put_list(t, p->choices);
    put(t, "\t", 1);
    for (const is_param_when *w = p->when; w && w->choice; w++) {
        char bits[24];
        snprintf(bits, sizeof bits, "=%u", w->choices);
        text one = {0};
        put_field(&one, w->choice);
        if (w != p->when)
            put(t, ",", 1);
        if (one.data)
            put(t, one.data + 1, one.length - 1);
        t->failed |= one.failed;
        free(one.data);
        put(t, bits, strlen(bits));
    }
    put_field(t, labels ? p->label : NULL);
    put(t, "\n", 1);
}

static void put_output(text *t, const is_output *o, int labels)
{
    static const char *const types[] = {"real", "int", "category"};
    put(t, "output", 6);
    put_field(t, o->name);
    put_field(t, o->unit);
    put_field(t, o->long_name);
    put_field(t, types[o->type]);
    put_list(t, o->categories);
    put_number(t, (double)o->flags);
    put_field(t, labels ? o->label : NULL);
    if (o->length > 1) { /* (a scalar's line is as before arrays) */
        put_number(t, (double)o->length);
        put_field(t, o->length_name);
    }
    put(t, "\n", 1);
}

/* The table; with `labels` (the stored text) or without (what the digest covers, with
 * the description: neither changes a result). */
static void put_table(text *t, const is_model *m, const char *version, int labels)
{
    put(t, HEADER "\nname", strlen(HEADER) + 5);
    put_field(t, m->name);
    put(t, "\nversion", 8);
    put_field(t, m->version ? m->version : version);
    put(t, "\n", 1);
    for (size_t p = 0; p < m->param_count; p++)
        put_param(t, &m->params[p], labels);
    for (size_t o = 0; o < m->output_count; o++)
        put_output(t, &m->outputs[o], labels);
}

char *is_model_text(const is_model *m, const char *version, char sha256[65])
{
    text t = {0};
    if (sha256) {
        put_table(&t, m, version, 0);
        if (!t.failed)
            is_sha256_hex(t.data, t.length, sha256);
        t.length = 0;
    }
    put_table(&t, m, version, 1);
    put(&t, "description", 11);
    put_field(&t, m->description);
    put(&t, "\n", 1);
    if (m->references) {
        put(&t, "references", 10);
        put_field(&t, m->references);
        put(&t, "\n", 1);
    }
    if (t.failed) {
        free(t.data);
        return NULL;
    }
    return t.data;
}

/* --- reading it back ------------------------------------------------------------------ */

struct is_model_described {
    is_model model;
    is_param *params;
    is_output *outputs;
    char **strings; /* every string and array allocated, to free */
    size_t string_count, string_capacity;
    int failed;
};

static void *keep(is_model_described *d, void *p)
{
    if (!p || d->failed) {
        d->failed = 1;
        free(p);
        return NULL;
    }
    if (d->string_count == d->string_capacity) {
        size_t cap = d->string_capacity ? 2 * d->string_capacity : 64;
        char **s = realloc(d->strings, cap * sizeof *s);
        if (!s) {
            d->failed = 1;
            free(p);
            return NULL;
        }
        d->strings = s;
        d->string_capacity = cap;
    }
    d->strings[d->string_count++] = p;
    return p;
}

static int hex(char c)
{
    return isdigit((unsigned char)c) ? c - '0' : toupper((unsigned char)c) - 'A' + 10;
}

/* The field [s, end) decoded into a kept string. */
static char *decode(is_model_described *d, const char *s, const char *end)
{
    char *out = keep(d, malloc((size_t)(end - s) + 1)), *o = out;
    for (; out && s < end; s++) {
        if (*s == '%' && end - s >= 3 && isxdigit((unsigned char)s[1]) &&
            isxdigit((unsigned char)s[2])) {
            *o++ = (char)(hex(s[1]) * 16 + hex(s[2]));
            s += 2;
        } else {
            *o++ = *s;
        }
    }
    if (out)
        *o = '\0';
    return out;
}

/* Splits [s, end) at `sep` into at most max fields. */
static size_t split(const char *s, const char *end, char sep, const char **at, const char **to,
                    size_t max)
{
    size_t n = 0;
    while (n < max) {
        const char *stop = memchr(s, sep, (size_t)(end - s));
        at[n] = s;
        to[n++] = stop ? stop : end;
        if (!stop)
            break;
        s = stop + 1;
    }
    return n;
}

/* "a|b|c" into a NULL-terminated kept array; an empty field: NULL. */
static const char *const *decode_list(is_model_described *d, const char *s, const char *end)
{
    if (s == end)
        return NULL;
    const char *at[65], *to[65];
    size_t n = split(s, end, '|', at, to, 64);
    const char **names = keep(d, calloc(n + 1, sizeof *names));
    for (size_t i = 0; names && i < n; i++)
        names[i] = decode(d, at[i], to[i]);
    return names;
}

static const is_param_when *decode_when(is_model_described *d, const char *s, const char *end)
{
    if (s == end)
        return NULL;
    const char *at[33], *to[33];
    size_t n = split(s, end, ',', at, to, 32);
    is_param_when *when = keep(d, calloc(n + 1, sizeof *when));
    for (size_t i = 0; when && i < n; i++) {
        const char *eq = memchr(at[i], '=', (size_t)(to[i] - at[i]));
        if (!eq) {
            d->failed = 1;
            break;
        }
        when[i].choice = decode(d, at[i], eq);
        when[i].choices = (unsigned)strtoul(eq + 1, NULL, 10);
    }
    return when;
}

static int type_of(const char *s, const char *end, const char *const *names)
{
    for (int i = 0; names[i]; i++)
        if ((size_t)(end - s) == strlen(names[i]) && strncmp(s, names[i], (size_t)(end - s)) == 0)
            return i;
    return -1;
}

static double number(is_model_described *d, const char *s, const char *end)
{
    char *text = decode(d, s, end), *stop = NULL;
    double v = text ? strtod(text, &stop) : NAN;
    if (!text || stop == text || *stop)
        d->failed = 1;
    return v;
}

static void read_param(is_model_described *d, const char **at, const char **to, size_t n)
{
    static const char *const types[] = {"real", "int", "choice", NULL};
    if (n != 12 || d->model.param_count >= ITEMS_MAX) {
        d->failed = 1;
        return;
    }
    is_param *p = &d->params[d->model.param_count++];
    p->name = decode(d, at[1], to[1]);
    p->meaning = decode(d, at[2], to[2]);
    p->unit = decode(d, at[3], to[3]);
    int type = type_of(at[4], to[4], types);
    d->failed |= type < 0;
    p->type = (is_param_type)(type < 0 ? 0 : type);
    p->default_value = number(d, at[5], to[5]);
    p->min = number(d, at[6], to[6]);
    p->max = number(d, at[7], to[7]);
    p->flags = (unsigned)number(d, at[8], to[8]);
    p->choices = decode_list(d, at[9], to[9]);
    p->when = decode_when(d, at[10], to[10]);
    p->label = at[11] == to[11] ? NULL : decode(d, at[11], to[11]);
}

static void read_output(is_model_described *d, const char **at, const char **to, size_t n)
{
    static const char *const types[] = {"real", "int", "category", NULL};
    if ((n != 8 && n != 10) || d->model.output_count >= ITEMS_MAX) {
        d->failed = 1;
        return;
    }
    is_output *o = &d->outputs[d->model.output_count++];
    o->name = decode(d, at[1], to[1]);
    o->unit = decode(d, at[2], to[2]);
    o->long_name = decode(d, at[3], to[3]);
    int type = type_of(at[4], to[4], types);
    d->failed |= type < 0;
    o->type = (is_output_type)(type < 0 ? 0 : type);
    o->categories = decode_list(d, at[5], to[5]);
    o->flags = (unsigned)number(d, at[6], to[6]);
    o->label = at[7] == to[7] ? NULL : decode(d, at[7], to[7]);
    if (n == 10) {
        double length = number(d, at[8], to[8]);
        d->failed |= !(length >= 2 && length <= IS_OUTPUT_LENGTH_MAX);
        o->length = d->failed ? 0 : (size_t)length;
        o->length_name = at[9] == to[9] ? NULL : decode(d, at[9], to[9]);
    }
}

static void read_line(is_model_described *d, const char *line, const char *end)
{
    const char *at[16], *to[16];
    size_t n = split(line, end, '\t', at, to, 16);
    const char *key = at[0];
    size_t len = (size_t)(to[0] - at[0]);
    if (len == 4 && strncmp(key, "name", 4) == 0 && n == 2)
        d->model.name = decode(d, at[1], to[1]);
    else if (len == 7 && strncmp(key, "version", 7) == 0 && n == 2)
        d->model.version = decode(d, at[1], to[1]);
    else if (len == 11 && strncmp(key, "description", 11) == 0 && n == 2)
        d->model.description = decode(d, at[1], to[1]);
    else if (len == 10 && strncmp(key, "references", 10) == 0 && n == 2)
        d->model.references = decode(d, at[1], to[1]);
    else if (len == 5 && strncmp(key, "param", 5) == 0)
        read_param(d, at, to, n);
    else if (len == 6 && strncmp(key, "output", 6) == 0)
        read_output(d, at, to, n);
    else if (len > 0)
        d->failed = 1;
}

is_code is_model_describe(const char *text, is_model_described **out, is_error *err)
{
    *out = NULL;
    is_model_described *d = calloc(1, sizeof *d);
    if (!d)
        return is_error_set(err, IS_NOMEM, "out of memory");
    d->model = (is_model){IS_MODEL_HEADER};
    d->params = calloc(ITEMS_MAX, sizeof *d->params);
    d->outputs = calloc(ITEMS_MAX, sizeof *d->outputs);
    size_t header = strlen(HEADER);
    d->failed = !d->params || !d->outputs || strncmp(text, HEADER "\n", header + 1) != 0;
    for (const char *line = text + (d->failed ? 0 : header + 1); !d->failed && *line;) {
        const char *end = strchr(line, '\n');
        end = end ? end : line + strlen(line);
        read_line(d, line, end);
        line = *end ? end + 1 : end;
    }
    d->model.params = d->params;
    d->model.outputs = d->outputs;
    if (d->failed || !d->model.name || !d->model.description) {
        is_model_described_free(&d);
        return is_error_set(err, IS_NOT_RESULT, "the model table stored in the file is damaged");
    }
    *out = d;
    return IS_OK;
}

const is_model *is_model_described_model(const is_model_described *d)
{
    return &d->model;
}

void is_model_described_free(is_model_described **d)
{
    if (!d || !*d)
        return;
    for (size_t i = 0; i < (*d)->string_count; i++)
        free((*d)->strings[i]);
    free((*d)->strings);
    free((*d)->params);
    free((*d)->outputs);
    free(*d);
    *d = NULL;
}
