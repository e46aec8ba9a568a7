/* A frozen copy of the model contract version 2 (impactsweep before the ABI header):
 * the headers a stale plug-in was built with (tests/models/plugins/boundary.c, kind
 * old_abi). Never edit. */
/* model.h: the one contract every model keeps.
 *
 * A model is a const table: its parameters (with defaults and admissible ranges),
 * its outputs (with units), a cross-parameter check, and a batch evaluator with a
 * per-worker workspace. The job parser, `impactsweep models`, the result-file
 * attributes and the conformance tests all read the same table. A model never
 * touches MPI or HDF5; the core never knows a model by name. */
#ifndef IMPACTSWEEP_MODEL_H
#define IMPACTSWEEP_MODEL_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>

#include "error.h"

typedef enum {
    IS_PARAM_REAL,   /* any finite double inside the range */
    IS_PARAM_INT,    /* an integral double inside the range (exact up to 2^53) */
    IS_PARAM_CHOICE  /* one of `choices`, stored as its index 0, 1, ... */
} is_param_type;

enum {
    IS_PARAM_MIN_OPEN = 1u << 0, /* min itself is not admissible */
    IS_PARAM_MAX_OPEN = 1u << 1, /* max itself is not admissible */
    IS_PARAM_SEED = 1u << 2,     /* the random seed: recorded as the file's `seed` attribute */
    IS_PARAM_FIXED_ONLY = 1u << 3 /* may not be an axis (e.g. a choice of method) */
};

/* A condition on a choice parameter: it holds when the choice's index c has bit c of
 * `choices` set (e.g. {"form", 1u << FORM_VELOCITY | 1u << FORM_DIMENSIONAL}). */
typedef struct is_param_when {
    const char *choice;          /* the name of a choice parameter of the same model */
    unsigned choices;            /* the set of its values (bit c: choice c) */
} is_param_when;

typedef struct is_param {
    const char *name;
    const char *meaning;
    const char *unit;            /* UDUNITS: "1" for dimensionless (say the scale in meaning) */
    is_param_type type;
    double default_value;        /* NAN: the parameter must be given */
    double min, max;             /* -INFINITY / INFINITY when unbounded */
    unsigned flags;
    const char *const *choices;  /* IS_PARAM_CHOICE: NULL-terminated names */
    const is_param_when *when;   /* NULL: the parameter always applies; else a list ended by
                                    {NULL}: it applies only where every condition holds (a
                                    value given where it does not apply is refused) */
} is_param;

typedef enum {
    IS_OUTPUT_REAL,     /* stored as double; NAN where not computed */
    IS_OUTPUT_INT,      /* stored as int32; -1 where not computed */
    IS_OUTPUT_CATEGORY  /* stored as int8 0..k-1 naming `categories`; -1 where not computed */
} is_output_type;

typedef struct is_output {
    const char *name;
    const char *unit;
    const char *long_name;
    is_output_type type;
    const char *const *categories; /* IS_OUTPUT_CATEGORY: NULL-terminated names */
} is_output;

/* Per-point status, stored in the result file's `status` variable. A failed point is a
 * value here, never an abort. X(name, value, meaning). */
#define IS_POINT_STATUS_LIST(X)                                   \
    X(PENDING, 0, "not computed yet")                             \
    X(DONE, 1, "computed")                                        \
    X(FAILED_INVALID, 2, "failed: parameters rejected by the model") \
    X(FAILED_SOLVER, 3, "failed: solver error")                   \
    X(FAILED_BUDGET, 4, "failed: work budget exhausted")          \
    X(FAILED_NONFINITE, 5, "failed: non-finite result")                \
    X(FAILED_CHECK, 6, "failed: the result failed a physical check")   \
    X(INFERRED, 7, "not computed: inferred from the corners of its refinement cell")

/* The failures are the statuses FAILED_FIRST .. FAILED_LAST. INFERRED is set by the engine
 * alone, in files of a refined sweep ([sweep] refine, see README "Refinement"): a model
 * never returns it (the conformance checks refuse it), and the file of a sweep without
 * refinement lists only the statuses before it. */
#define IS_POINT_FAILED_FIRST IS_POINT_FAILED_INVALID
#define IS_POINT_FAILED_LAST IS_POINT_FAILED_CHECK

typedef enum {
#define IS_POINT_ENUM(name, value, text) IS_POINT_##name = value,
    IS_POINT_STATUS_LIST(IS_POINT_ENUM)
#undef IS_POINT_ENUM
    IS_POINT_STATUS_COUNT
} is_point_status;

const char *is_point_status_name(int status);

/* The version of this contract. A plug-in (a shared library holding one model) exports
 * it as `impactsweep_model_abi` next to its entry point `impactsweep_model`; impactsweep
 * loads only a library built against the version it speaks. Raise it whenever is_model,
 * is_param, is_output, is_error or the point statuses change in a way that breaks a
 * compiled model. 2: is_model.trace (the engine reads it, past the end of a version 1
 * table). */
#define IS_MODEL_ABI_VERSION 2

/* --- trajectories (`impactsweep trace`) ----------------------------------------------
 * A model may also write the time history of one point, its trace: it names the
 * quantities it records (channels: each becomes a variable of the trace file over its
 * `sample` dimension) and the kinds of event it reports, and calls the sink the core
 * provides (GSL-style: a few function pointers and a context). */

typedef struct is_trace_channel {
    const char *name;            /* a variable name: letters, digits, '_' */
    const char *unit;            /* UDUNITS, as is_output.unit */
    const char *long_name;
} is_trace_channel;

/* The core's end of a trace. values[channel_count] are copied before a call returns (the
 * model may reuse its array at once). Each call returns IS_OK, or an error code (out of
 * memory, a sample limit) after writing its message into the is_error the core passed to
 * is_model_trace.run: the model then stops at once and returns that same code, leaving
 * the message alone. */
typedef struct is_trace_sink {
    /* One sample at time t (samples come in time order; two may share a t, the states just
     * before and just after an event). */
    is_code (*sample)(void *context, double t, const double *values);
    /* An event of kind `kind` (an index into is_model_trace.events) at time t, with the
     * channels' values there; it follows the sample it happened at. */
    is_code (*event)(void *context, double t, int kind, const double *values);
    void *context;
} is_trace_sink;

typedef struct is_model_trace {
    const char *time_unit;       /* the sample coordinate `t`: UDUNITS */
    const char *time_long_name;
    const is_trace_channel *channels;
    size_t channel_count;
    const char *const *events;   /* the kinds of event, NULL-terminated */
    /* The trace's own parameters (e.g. which drop of a point), checked by the core against
     * their types and ranges like a model's, defaults filled in; NULL when none. */
    const is_param *options;
    size_t option_count;
    /* Evaluates one validated point (param_count values) with the very code eval_batch
     * runs, so that outputs[output_count] and *status are bit for bit what eval_batch
     * gives it with count = 1, while writing its trajectory into sink: the last sample is
     * the state the outputs describe. `workspace` is one of workspace_create's and
     * watched like eval_batch's: a stop leaves *status IS_POINT_PENDING and returns IS_OK.
     * Nothing is allocated per sample. Returns IS_OK; a sink's code; or IS_PARAM (err
     * says why) when an option does not fit the point. */
    is_code (*run)(void *workspace, const double *point, const double *options,
                   const is_trace_sink *sink, double *outputs, uint8_t *status,
                   is_error *err);
} is_model_trace;

typedef struct is_model {
    const char *name;
    const char *description;
    const is_param *params;
    size_t param_count;
    const is_output *outputs;
    size_t output_count;

    /* Cross-parameter checks beyond each parameter's own range (which the core has
     * already enforced). point[param_count]. Returns IS_OK, or IS_PARAM with a message
     * naming the parameters involved. May be NULL. */
    is_code (*validate)(const double *point, is_error *err);

    /* A per-worker workspace (scratch arrays, solver memory), so that nothing is
     * allocated per point. create sets *workspace (possibly NULL) or fails. */
    is_code (*workspace_create)(void **workspace, is_error *err);
    void (*workspace_free)(void *workspace);

    /* Optional: gives the workspace a flag that becomes non-zero when the run is asked to
     * stop. A model whose points can take long (seconds or more) polls it in its loops
     * and, once it is set, leaves the points it has not finished with status
     * IS_POINT_PENDING (they are computed again by --resume) and returns IS_OK. */
    void (*workspace_watch)(void *workspace, const volatile sig_atomic_t *stop);

    /* Evaluates count points, points[i * param_count + p], all already validated.
     * Writes outputs[o * count + i] for every output o and status[i] for every point.
     * A point's result depends only on its own parameter values: never on its
     * neighbours in the batch, the batch size or the caller. Returns IS_OK, or an
     * error code for a failure of the whole batch (out of memory). */
    is_code (*eval_batch)(void *workspace, const double *points, size_t count,
                          double *outputs, uint8_t *status, is_error *err);

    /* The model's own version (e.g. "1.2.0"), recorded in every result file; NULL: the
     * engine's version (built-in models). */
    const char *version;

    /* Optional: the trajectory of one point, for `impactsweep trace` (is_model_trace);
     * NULL: the model has none to show. */
    const is_model_trace *trace;
} is_model;

/* A plug-in model: one shared library, built against this header alone, that ends with
 *     IS_MODEL_PLUGIN(my_model_table)
 * exports the contract version it was built against and its entry point. */
#define IS_MODEL_PLUGIN(table)                                                               \
    __attribute__((visibility("default"))) const int impactsweep_model_abi =                \
        IS_MODEL_ABI_VERSION;                                                                \
    __attribute__((visibility("default"))) const is_model *impactsweep_model(void)          \
    {                                                                                        \
        return &(table);                                                                     \
    }

/* The model called `name` in a NULL-terminated list, or NULL. */
const is_model *is_model_find(const is_model *const *list, const char *name);

/* Does parameter p apply at `point` (param_count values: its choices decide)? */
int is_param_applies(const is_model *model, size_t p, const double *point);

/* "form velocity | dimensional; law bwshc | bwm" for messages and `impactsweep models`;
 * "" for a parameter that always applies. */
void is_param_format_when(const is_model *model, size_t p, char *buf, size_t size);

/* Index of the named parameter / output, or -1. */
int is_model_param_index(const is_model *model, const char *name);
int is_model_output_index(const is_model *model, const char *name);

/* Checks value against param's type and range; on failure writes a message that
 * starts with the parameter name and says what is admissible. */
is_code is_param_check(const is_param *param, double value, is_error *err);

/* Writes "[min, max)" etc. for messages and `impactsweep models`. */
void is_param_format_range(const is_param *param, char *buf, size_t size);

/* Number of values of a choice parameter. */
int is_param_choice_count(const is_param *param);

/* Number of categories of a categorical output. */
int is_output_category_count(const is_output *output);

#endif
