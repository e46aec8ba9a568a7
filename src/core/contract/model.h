/* model.h: the one contract every model keeps, and the model SDK.
 *
 * A model is a const table: its parameters (with defaults and admissible ranges),
 * its outputs (with units), a cross-parameter check, and a batch evaluator with a
 * per-worker workspace. The job parser, `impactsweep models`, the result-file
 * attributes and the conformance tests all read the same table. A model never
 * touches MPI or HDF5; the core never knows a model by name.
 *
 * Installed as <impactsweep/model.h> (with error.h) for plug-in models, shared libraries
 * that end with IS_MODEL_PLUGIN(table). The table begins with IS_MODEL_HEADER, so that it
 * can grow without orphaning compiled plug-ins (see "Versions" below); the SDK is this
 * header's types and the few functions marked IS_SDK_API, the only symbols the engine
 * exports. */
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
    IS_PARAM_FIXED_ONLY = 1u << 3, /* may not be an axis (e.g. a choice of method) */
    /* since 3.2 */
    IS_PARAM_TOLERANCE = 1u << 4, /* a real parameter that sets the accuracy asked of the
                                     outputs (a relative or absolute tolerance): smaller is
                                     more accurate. Self-verification ([sweep] verify) and
                                     `models --check` recompute points with it divided by
                                     100 (not below its min) and compare the outputs */
    IS_PARAM_METHOD = 1u << 5     /* a choice among methods that compute the same results
                                     (integrators): self-verification recomputes with another
                                     one, the next in the list (cyclically), skipping one
                                     named "auto" */
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
    /* since 3.0 */
    const char *label;           /* short label for figures' axes: a symbol, as plain text or
                                    matplotlib mathtext ("$\\omega$", "$x_0$"), without the
                                    unit; NULL: the name */
} is_param;

/* How an output is passed and stored. eval_batch writes every output as a double; the
 * file stores it as the type says. NaN means "no value" (not computed, or not defined at
 * this point): stored as NaN for a real output and as -1 for an integer or a category
 * (-1 is therefore also what an integer output of -1 reads as). */
typedef enum {
    IS_OUTPUT_REAL,     /* stored as double */
    IS_OUTPUT_INT,      /* an integral double within int32 (-2147483648 .. 2147483647),
                           stored as int32 */
    IS_OUTPUT_CATEGORY  /* 0..k-1 naming `categories`, stored as int8 */
} is_output_type;

/* What a point with status IS_POINT_DONE may hold (the engine checks every done point on
 * every run; a point that breaks its declaration gets IS_POINT_FAILED_CHECK with the
 * reason in the run log). Without a flag a done point's output is a finite number (in
 * range for an integer or a category). */
enum {
    IS_OUTPUT_MAY_BE_NAN = 1u << 0, /* NaN: the output has no value at this point (a period
                                       of a motion that is not periodic) */
    IS_OUTPUT_MAY_BE_INF = 1u << 1, /* +-inf (real outputs only) */
    /* since 3.2 */
    IS_OUTPUT_WORK = 1u << 2        /* a measure of the computation (steps taken), not of the
                                       model: it changes with the tolerance, so
                                       self-verification and `models --check` do not compare
                                       it */
};

typedef struct is_output {
    const char *name;
    const char *unit;
    const char *long_name;
    is_output_type type;
    const char *const *categories; /* IS_OUTPUT_CATEGORY: NULL-terminated names */
    /* since 3.0 */
    unsigned flags;              /* IS_OUTPUT_MAY_BE_* */
    const char *label;           /* short label for figures (a colour bar, a legend): a few
                                    words or a symbol, plain text or mathtext, without the
                                    unit; NULL: long_name */
    /* since 3.4 */
    size_t length;               /* values per point: 0 or 1, a scalar (as before); L > 1 (at
                                    most IS_OUTPUT_LENGTH_MAX), an array output of L values,
                                    each one under the type and flags above (a section: the
                                    last L samples, NaN where fewer). eval_batch lays them out
                                    as its comment says; the result file stores it with one
                                    more dimension, the last, of length L */
    const char *length_name;     /* an array output's dimension in the result file (a
                                    variable name, e.g. "sample"; outputs may share one if
                                    their lengths agree), with coordinate 0 .. L - 1; NULL:
                                    "<name>_index". Unused for a scalar */
} is_output;

/* The longest array output (values per point): a point's record stays a few pages. */
#define IS_OUTPUT_LENGTH_MAX 65536

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
    X(INFERRED, 7, "not computed: inferred from the corners of its refinement cell") \
    X(FAILED_CRASH, 8, "failed: the model's code crashed, aborted or exited on it") \
    X(FAILED_TIMEOUT, 9, "failed: it ran past the job's point_timeout")

/* A model returns PENDING (only when asked to stop, see workspace_watch), DONE or one of
 * the failures FAILED_FIRST .. FAILED_LAST. The engine alone sets the others: INFERRED in
 * files of a refined sweep ([sweep] refine, see README "Refinement"; the file of a sweep
 * without refinement does not list it), FAILED_CRASH and FAILED_TIMEOUT for the points it
 * found to crash the model's code or to hang it. A point whose status or outputs break
 * the contract (another status, an output against its declaration, see is_output) is
 * stored as FAILED_CHECK, the reason in the run log. */
#define IS_POINT_FAILED_FIRST IS_POINT_FAILED_INVALID
#define IS_POINT_FAILED_LAST IS_POINT_FAILED_CHECK

typedef enum {
#define IS_POINT_ENUM(name, value, text) IS_POINT_##name = value,
    IS_POINT_STATUS_LIST(IS_POINT_ENUM)
#undef IS_POINT_ENUM
    IS_POINT_STATUS_COUNT
} is_point_status;

/* --- Versions -------------------------------------------------------------------------
 * The contract's version is MAJOR.MINOR. A plug-in exports the major it was built against
 * (`impactsweep_model_abi`, IS_MODEL_PLUGIN does it) and its table begins with
 * IS_MODEL_HEADER: the sizes of is_model, is_param and is_output as it was compiled, and
 * the version. impactsweep loads
 *   - a table of its own major and of a minor up to its own: members beyond a smaller
 *     table's size (or an is_param's, an is_output's) read as zero, i.e. absent;
 *   - tables of the majors before the header (1 and 2), converted as HDF5 converts its
 *     class1 filter structs to class2: their parameters, outputs and trace read as 3.0's
 *     with the new members absent (outputs may then hold NaN anywhere, as they could);
 * and refuses a newer minor (it may rely on members or SDK functions this engine lacks)
 * and any other major, naming the library and both versions.
 *
 * A new MINOR may only add: a member at the end of is_model, is_param or is_output whose
 * zero value means "absent, as before" (each marked "since 3.N" here), an SDK function, a
 * flag bit, a status that the engine alone sets. Everything else needs a new MAJOR:
 * removing, reordering or retyping a member, a member a model must fill, a new meaning
 * of a value (a flag, a status, NaN), changing is_error, is_param_when, the is_trace_*
 * structs or eval_batch's layout, removing an SDK function or changing its signature. */
/* Minors: 3.1 references; 3.2 IS_PARAM_TOLERANCE, IS_PARAM_METHOD, IS_OUTPUT_WORK; 3.3
 * trace_samples; 3.4 array outputs (is_output.length, length_name: a table of 3.3 or
 * before has only scalars, its outputs' smaller size says so). */
#define IS_MODEL_ABI_VERSION 3
#define IS_MODEL_ABI_MINOR 4

/* The first members of every table: `IS_MODEL_HEADER, .name = ..., ...`. */
#define IS_MODEL_HEADER                                                                     \
    .struct_size = sizeof(is_model), .abi_version = IS_MODEL_ABI_VERSION,                   \
    .abi_minor = IS_MODEL_ABI_MINOR, .param_size = sizeof(is_param),                        \
    .output_size = sizeof(is_output)

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
    /* IS_MODEL_HEADER: what this table is, so that the engine reads it as it was built */
    uint32_t struct_size;        /* sizeof(is_model) */
    uint16_t abi_version;        /* IS_MODEL_ABI_VERSION */
    uint16_t abi_minor;          /* IS_MODEL_ABI_MINOR */
    uint32_t param_size;         /* sizeof(is_param): the stride of params (and trace options) */
    uint32_t output_size;        /* sizeof(is_output): the stride of outputs */

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
     * Writes outputs[o * count + i] for every output o and status[i] for every point
     * (with array outputs, since 3.4: output o's block starts at S_o * count, S_o the sum
     * of the lengths of the outputs before it (a scalar counts 1), and holds value j of
     * point i at S_o * count + i * L_o + j; without array outputs S_o = o, as before)
     * (outputs come filled with NaN: a failed point may leave them). Nothing else: no
     * byte outside those arrays, no write to points. A point's result depends only on its
     * own parameter values: never on its neighbours in the batch, the batch size or the
     * caller. Returns IS_OK, or an error code for a failure of the whole batch (out of
     * memory). A plug-in's eval_batch runs in an evaluator process of its own (README,
     * "Writing a model"): a crash, abort, exit() or hang there costs the points it
     * happened on (FAILED_CRASH, FAILED_TIMEOUT), never the run. */
    is_code (*eval_batch)(void *workspace, const double *points, size_t count,
                          double *outputs, uint8_t *status, is_error *err);

    /* The model's own version (e.g. "1.2.0"), recorded in every result file; NULL: the
     * engine's version (built-in models). A plug-in rebuilt without a change of version
     * or tables may continue (--resume) the files of the build before: raise the version
     * whenever a point's result may change. */
    const char *version;

    /* Optional: the trajectory of one point, for `impactsweep trace` (is_model_trace);
     * NULL: the model has none to show. */
    const is_model_trace *trace;

    /* since 3.1 */
    /* Optional: the published work the model implements, as a short text naming it
     * ("A. Author, B. Author, Title, arXiv:2410.08147"; several joined by "; "; at most
     * 1023 bytes, one line), written into every result file as the global attribute
     * `references` (CF's) and shown by `impactsweep models`; NULL: none. Not part of the
     * table's digest: correcting it does not stop a --resume. */
    const char *references;

    /* since 3.3 */
    /* Optional, with trace: the most samples trace->run gives at its sampling rate for this
     * validated point and these trace options with t0 <= t <= t1 (the trace's time
     * coordinate; the whole run: -inf, +inf), told from the parameters without running
     * the point, so that `impactsweep trace` refuses an oversize request at once. Samples
     * at events, whose number only the run tells, are not counted. NaN: not known in
     * advance (the core's cap then applies as the trace runs). NULL: never known. */
    double (*trace_samples)(const double *point, const double *options, double t0, double t1);
} is_model;

/* A plug-in model: one shared library, built against this header alone, that ends with
 *     IS_MODEL_PLUGIN(my_model_table)
 * exports the contract version it was built against and its entry point (the only two
 * symbols a plug-in needs to export: build it with -fvisibility=hidden). */
#define IS_MODEL_PLUGIN(table)                                                               \
    __attribute__((visibility("default"))) const int impactsweep_model_abi =                \
        IS_MODEL_ABI_VERSION;                                                                \
    __attribute__((visibility("default"))) const is_model *impactsweep_model(void)          \
    {                                                                                        \
        return &(table);                                                                     \
    }

/* --- The SDK ----------------------------------------------------------------------------
 * The functions the engine exports to plug-ins, each with the contract version that
 * brought it ("SDK 3.0"): error.h's is_error_set, is_error_clear, is_code_name and
 * is_code_text, and those below. They are the whole of what a plug-in may call in the
 * engine; none of them allocates or keeps state. A plug-in that calls none loads into any
 * impactsweep of its major (link it with -Wl,-z,defs to be sure). */

/* "DONE", "FAILED_SOLVER", ... for a status value; "UNKNOWN" for another. (SDK 3.0) */
IS_SDK_API const char *is_point_status_name(int status);

/* Checks value against param's type and range; on failure writes a message that
 * starts with the parameter name and says what is admissible. (SDK 3.0) */
IS_SDK_API is_code is_param_check(const is_param *param, double value, is_error *err);

/* Does parameter p apply at `point` (param_count values: its choices decide)? (SDK 3.0) */
IS_SDK_API int is_param_applies(const is_model *model, size_t p, const double *point);

/* Index of the named parameter / output, or -1. (SDK 3.0) */
IS_SDK_API int is_model_param_index(const is_model *model, const char *name);
IS_SDK_API int is_model_output_index(const is_model *model, const char *name);

#endif
