/* error.h: the one list of impactsweep error codes, and the error record
 * every fallible function fills in (code + a message that says where and what).
 * Installed with model.h: part of the model SDK (see model.h, "The SDK"). */
#ifndef IMPACTSWEEP_ERROR_H
#define IMPACTSWEEP_ERROR_H

#include <stddef.h>

/* X(name, process exit status, short description).
 * Exit statuses: 2 = the user's input is wrong (nothing was computed or written),
 * 1 = the run failed (results so far stay resumable), 75 = interrupted (resumable,
 * the EX_TEMPFAIL convention batch scripts use to requeue). New codes go at the end: a
 * plug-in built against an older list returns these numbers. */
#define IS_ERROR_LIST(X)                                          \
    X(OK, 0, "success")                                          \
    X(USAGE, 2, "bad command line")                              \
    X(JOB, 2, "bad job file")                                    \
    X(PARAM, 2, "parameter value not admissible")                \
    X(EXISTS, 2, "output file exists")                           \
    X(MISMATCH, 2, "result file belongs to another job")         \
    X(NOT_RESULT, 2, "not an impactsweep result file")           \
    X(LOCKED, 2, "result file in use by another run")            \
    X(IO, 1, "input/output error")                               \
    X(HDF5, 1, "HDF5 error")                                     \
    X(MPI, 1, "MPI error")                                       \
    X(NOMEM, 1, "out of memory")                                 \
    X(MODEL, 1, "model failure")                                 \
    X(INTERNAL, 1, "internal error")                             \
    X(INTERRUPTED, 75, "interrupted by a signal (resumable)")      \
    X(PLUGIN, 2, "model plug-in refused")                        \
    X(DAMAGED, 2, "result file damaged")                         \
    X(POINTS_FAILED, 3, "points failed (run --strict)")

typedef enum {
#define IS_ERROR_ENUM(name, status, text) IS_##name,
    IS_ERROR_LIST(IS_ERROR_ENUM)
#undef IS_ERROR_ENUM
    IS_ERROR_COUNT
} is_code;

/* IS_SDK_API marks the functions of the model SDK: the only symbols the impactsweep binary
 * exports to plug-ins (everything else of the engine is built with hidden visibility). */
#if defined(__GNUC__) || defined(__clang__)
#define IS_SDK_API __attribute__((visibility("default")))
#else
#define IS_SDK_API
#endif

#define IS_ERROR_MESSAGE_MAX 1024

/* Filled by the function that finds the problem; callers only pass the code up. */
typedef struct is_error {
    is_code code;
    char message[IS_ERROR_MESSAGE_MAX];
} is_error;

/* Records code and a printf-style message in err (if err is not NULL); returns code,
 * so that `return is_error_set(err, IS_JOB, "...")` reads naturally. (SDK 3.0) */
IS_SDK_API is_code is_error_set(is_error *err, is_code code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* err->code = IS_OK and an empty message. (SDK 3.0) */
IS_SDK_API void is_error_clear(is_error *err);
/* "PARAM" and "parameter value not admissible" for IS_PARAM. (SDK 3.0) */
IS_SDK_API const char *is_code_name(is_code code);
IS_SDK_API const char *is_code_text(is_code code);

#endif
