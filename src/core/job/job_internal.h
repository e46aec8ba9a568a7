/* job_internal.h: what the files of the job parser share (job.c and job_*.c): the
 * parse state and the helpers one file defines and another calls. Not for use
 * outside src/core/job. */
#ifndef IMPACTSWEEP_JOB_INTERNAL_H
#define IMPACTSWEEP_JOB_INTERNAL_H

#include "job.h"

#define ORIGIN_MAX 320

typedef struct entry {
    char *section, *key, *value;
    size_t value_length, value_capacity; /* continuation lines append in place */
    char origin[ORIGIN_MAX];             /* "file:line" or "--set 'section.key=value'" */
    int line;                            /* 0 for overrides */
    int used;
} entry;

typedef struct section_header {
    char *name;
    char origin[ORIGIN_MAX];
    int line;
} section_header;

typedef struct parse_state {
    const char *source;
    const char *cursor; /* reader position in the text */
    int line;           /* number of the physical line inih is handling */
    int indented;       /* that line starts with a blank: inih's continuation line */
    int piece;          /* it is a piece of a long line (see read_line) */
    const char *rest;   /* what remains of a long line to hand over in pieces */
    size_t rest_length;
    entry *entries;
    size_t entry_count, entry_capacity;
    section_header *sections;
    size_t section_count, section_capacity;
    is_models *models; /* where the model is looked up or loaded */
    is_error *err;
    is_code rc;
} parse_state;

typedef struct text_buffer {
    char *data;
    size_t length, capacity;
    int failed;
} text_buffer;

/* The names that an "unknown ..." message lists: name(context, i) for i < count. */
typedef const char *name_getter(const void *context, size_t i);

/* job_entries.c */
is_code job_apply_override(parse_state *ps, const char *override);
char *job_copy_string(const char *s);
entry *job_find_entry(parse_state *ps, const char *section, const char *key);
void job_free_state(parse_state *ps);
int job_on_key(void *user, const char *section, const char *name, const char *value);
char *job_read_line(char *str, int num, void *stream);
int job_replace_value(entry *e, const char *value);
is_code job_scan_sections(parse_state *ps, const char *text);
char *job_trim(char *s);
/* job_values.c */
is_code job_check_containment(const is_job *job, is_error *err);
is_code job_find_model(parse_state *ps, is_job *job);
is_code job_interpret_model(parse_state *ps, is_job *job, int *fixed_by);
is_code job_interpret_sweep(parse_state *ps, is_job *job);
const char *job_list_names(char *out, size_t size, size_t count, name_getter *name,
                           const void *context);
const char *job_output_name(const void *model, size_t i);
is_code job_parse_param_text(const is_param *param, const char *where, const char *text,
                             double *out, is_error *err);
int job_parse_real(const char *text, double *out);
const char *job_section_origin(const parse_state *ps, const char *name);
int job_sweep_key_doc(size_t i, is_job_key_doc *doc);
/* job_axes.c */
is_code job_interpret_axis(parse_state *ps, is_job *job, const section_header *h,
                           const int *fixed_by);
int job_axis_key_doc(size_t i, is_job_key_doc *doc);
/* job_refine.c */
is_code job_refine_resolve(is_job *job, is_error *err);
/* job_text.c */
void job_append(text_buffer *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void job_append_section(text_buffer *b, parse_state *ps, const char *section);
char *job_default_output(const char *source);
uint64_t job_fingerprint_of(const is_job *job, const char *model_digest);

#endif
