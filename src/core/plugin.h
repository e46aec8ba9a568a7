/* plugin.h: the models a command can use: the built-in ones it is given, and plug-ins,
 * shared libraries holding one model each (see IS_MODEL_PLUGIN in model.h), found through
 * IMPACTSWEEP_MODEL_PATH or named by path in a job (`model = path/to/libmodel.so`).
 *
 * A plug-in is loaded as HDF5 loads its filter plug-ins: dlopen, then the exported
 * contract version (impactsweep_model_abi) and entry point (impactsweep_model). A library
 * built against another contract version, without them, or whose table breaks the
 * contract (conformance.h) is refused with IS_PLUGIN (exit status 2) and a message naming
 * the library. The libraries stay loaded until is_models_free. */
#ifndef IMPACTSWEEP_PLUGIN_H
#define IMPACTSWEEP_PLUGIN_H

#include "error.h"
#include "model.h"

typedef struct is_models is_models;

/* The environment variable listing plug-ins: directories (each *.so in them, in name
 * order) and library files, separated by ':'. */
#define IS_MODEL_PATH_VARIABLE "IMPACTSWEEP_MODEL_PATH"

enum {
    IS_MODELS_LOAD = 1u << 0,  /* plug-ins may be loaded (by path); else refused */
    IS_MODELS_SEARCH = 1u << 1 /* load every plug-in IMPACTSWEEP_MODEL_PATH names now */
};

/* A set holding the built-in models (NULL-terminated list; not copied) and the plug-ins
 * that flags (IS_MODELS_*) ask for. */
is_code is_models_create(is_models **models, const is_model *const *builtin, unsigned flags,
                         is_error *err);
void is_models_free(is_models **models);

/* Every model, built-in ones first (NULL-terminated; valid until the next load). */
const is_model *const *is_models_list(const is_models *models);
/* The named model, or NULL. */
const is_model *is_models_find(const is_models *models, const char *name);

/* Loads the plug-in at `path` (relative paths from the working directory), or finds it
 * loaded already from the same file. */
is_code is_models_load(is_models *models, const char *path, const is_model **model,
                       is_error *err);

/* Is `text` a path to a library rather than a model name? (It holds a '/' or ends in
 * ".so".) */
int is_models_is_path(const char *text);

/* Where a model came from: NULL for a built-in model, else the absolute path of its
 * library, whose SHA-256 (64 hex digits) goes to *sha256. */
const char *is_models_library(const is_models *models, const is_model *model,
                              const char **sha256);

#endif
