/* job.h: a sweep job: the INI job file (libinih) plus --set overrides, every key
 * checked against the [sweep] key table and the model's parameter table, turned into
 * fixed parameter values and a grid. Every error names the file, line and key. */
#ifndef IMPACTSWEEP_JOB_H
#define IMPACTSWEEP_JOB_H

#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "grid.h"
#include "model.h"
#include "plugin.h"

/* Refinement ([sweep] refine, see refine.h): the default of refine_levels, at most this
 * many refined axes (a cell has 2^d corners, and a point up to 4^d cells around it), at
 * most this many outputs named by refine, and the default of refine_margin. */
#define IS_REFINE_DEFAULT_LEVELS 4
#define IS_REFINE_MAX_AXES 6
#define IS_REFINE_MAX_OUTPUTS 6
#define IS_REFINE_DEFAULT_MARGIN 2.0

/* An output named by [sweep] refine: a categorical one (its categories are classes), or a
 * real or integer one with a threshold (its class is value >= threshold, NaN a class of
 * its own). */
typedef struct is_refine_output {
    int output;                /* index into the model's outputs */
    double threshold;          /* NAN for a categorical output */
} is_refine_output;

/* [sweep] containment: where the model's code runs (evaluator.h). auto: a plug-in (or any
 * model with a point_timeout) in an evaluator process of its own, where a crash or a hang
 * costs only the point it happened on; a built-in model in the engine's process. */
enum { IS_CONTAINMENT_AUTO, IS_CONTAINMENT_PROCESS, IS_CONTAINMENT_NONE };

typedef struct is_job {
    const is_model *model;
    const char *model_library; /* a plug-in's absolute path (NULL: built in), and the */
    const char *model_sha256;  /* SHA-256 of that library; both owned by the is_models */
    char *source;              /* the job file's path, as given */
    char *output;              /* the result file's path */
    char output_origin[400];   /* where it was given ("job.ini:3: [sweep] output"), for messages */
    uint64_t unit_size;        /* points per work unit; 0: sized by time (unit_seconds) */
    double unit_seconds;       /* target duration of a work unit */
    uint64_t piece_index;      /* this run computes piece piece_index of piece_count ... */
    uint64_t piece_count;      /* ... pieces of the grid (1: all of it; see is_grid_piece) */
    int piece_ranged;          /* the piece's points were given (I/N:FIRST-LAST, pieces of
                                  equal cost), not computed by is_grid_piece */
    is_grid_box piece_box;     /* the piece: a box of the grid, which its result file holds */
    uint64_t piece_first;      /* its point indices: piece_first .. piece_last - 1 */
    uint64_t piece_last;
    double progress_interval;  /* seconds between progress lines when stderr is no terminal */
    int master_computes;       /* rank 0 computes too (between serving requests) */
    int containment;           /* IS_CONTAINMENT_*: where the model's code runs */
    double point_timeout;      /* seconds a point may take (0: no limit): past it, the point
                                  is failed (IS_POINT_FAILED_TIMEOUT); needs containment */
    char timeout_origin[400];  /* where point_timeout was given */
    struct is_evaluator *evaluator; /* a contained model's evaluator process, made by the
                                  grid's checks (validate.h) and kept for the run and the
                                  dry run: one a rank; NULL: none (yet); freed with the job */
    double verify_fraction;    /* [sweep] verify: the share of points recomputed tighter
                              (verification.h; 0: none) */
    double verify_tolerance;   /* [sweep] verify_tolerance (0: the default, 1000 x the
                                  largest tolerance asked) */
    char verify_origin[400];   /* where verify was given ("" for the default) */
    char *title;               /* free text, stored in the result file */
    double *fixed;             /* model->param_count values: defaults, [model] keys, and
                                  for swept parameters their first axis value */
    is_grid grid;              /* the axes; grid.base == fixed */
    char axis_origin[IS_GRID_MAX_AXES][400]; /* "job.ini:14: [axis.rho]", for messages */
    char (*param_origin)[400]; /* per parameter, where it was given ("job.ini:7: [model] pi2",
                                  an axis), "" for a default: for messages */
    /* Refinement ([sweep] refine, see refine.h): refine_levels 0 means none. */
    unsigned refine_levels;    /* L: level 0 computes every 2^L-th point of refined axes */
    size_t refine_output_count; /* the outputs whose classes decide (1 ..), in order */
    is_refine_output refine_outputs[IS_REFINE_MAX_OUTPUTS];
    double refine_margin;      /* a thresholded output also refines a cell whose corners lie
                                  within margin x its interpolation error of the threshold
                                  (0: only cells whose classes differ) */
    unsigned refine_axes;      /* bit k: axis k is refined (the others are swept in full) */
    char *refine_spec[3];      /* as given: refine, refine_threshold, refine_axes (or NULL) */
    char refine_origin[5][400]; /* where refine, _threshold, _axes, _levels, _margin were
                                   given */
    char *text;                /* the job after overrides, as canonical INI text */
    uint64_t fingerprint;      /* digest of all that determines the results (model,
                                  parameter values, axes; for a plug-in its declared
                                  version and tables, model_table_sha256); compared on
                                  --resume */
    uint64_t fingerprint_of_library; /* the same with a plug-in's library checksum instead
                                  of its tables: what files of earlier impactsweeps hold */
    char model_table_sha256[65]; /* the digest of the model's version and tables
                                  (model_text.h) */
} is_job;

/* Parses `text` (the contents of the job file `source`) with the overrides
 * ("section.key=value" each) applied on top, the model looked up in `models` (or, when
 * `[sweep] model` is a path, loaded into it as a plug-in: a relative path from the job
 * file's directory, or the working directory for a --set; the job text then holds the
 * absolute path). On success *job is set (valid while `models` is); on failure *job is
 * NULL and err says where and what (code IS_JOB, IS_PARAM or IS_PLUGIN). */
is_code is_job_parse(const char *source, const char *text, const char *const *overrides,
                     size_t override_count, is_models *models, is_job **job, is_error *err);

void is_job_free(is_job **job);

/* The job's piece as the result file records it: "I/N", or "I/N:FIRST-LAST" when its
 * points were given. */
void is_job_piece_text(const is_job *job, char *text, size_t size);

/* Reads a whole text file (a job file) into a new NUL-terminated buffer. */
is_code is_job_read_file(const char *path, char **text, is_error *err);

/* Parses a "name=value" model parameter as given to `impactsweep eval`: checks the
 * name, the value's type and range. */
is_code is_job_parse_param_value(const is_model *model, const char *origin, const char *name,
                                 const char *value, double *out, is_error *err);

/* Is the job's model to run contained (in an evaluator process)? */
int is_job_contained(const is_job *job);

/* What the parser reads, described from its own tables (the reference and the man page
 * impactsweep-job(5) are written from these): a job file's sections, and the keys of
 * each. Every text is one line. */
typedef struct is_job_key_doc {
    const char *name;
    const char *values;   /* the admissible values */
    const char *fallback; /* the default ("required" when the key must be given) */
    const char *help;     /* what it means */
} is_job_key_doc;

typedef struct is_job_section_doc {
    const char *name;     /* "sweep", "model", "axis.PARAMETER" */
    const char *help;     /* what the section holds */
    int has_keys;         /* 1: its keys are is_job_key_doc_at's; 0 ([model]): the model's
                             parameters */
} is_job_section_doc;

/* The sections, in the order a job file usually gives them; a NULL name after the last. */
const is_job_section_doc *is_job_sections(void);

/* Key i of section `section` (a name of is_job_sections): 1 with *doc filled, 0 after
 * the last key (or for a section whose keys are the model's parameters). */
int is_job_key_doc_at(const char *section, size_t i, is_job_key_doc *doc);

#endif
