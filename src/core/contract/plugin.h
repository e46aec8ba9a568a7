/* plugin.h: the models a command can use: the built-in ones it is given, and plug-ins,
 * shared libraries holding one model each (see IS_MODEL_PLUGIN in model.h), found through
 * IMPACTSWEEP_MODEL_PATH or named by path in a job (`model = path/to/libmodel.so`).
 *
 * Found as HDF5 finds its filter plug-ins: the path is listed when the set is made, and a
 * library is opened only when a model is looked for that is not built in (or for a
 * listing of them all); a built-in model never opens one. A library is loaded with
 * dlopen, then read through its exported contract version (impactsweep_model_abi) and
 * entry point (impactsweep_model), its table copied into the engine's layout
 * (model_abi.h) and checked (conformance.h). On the path, a library that cannot be used
 * (not a regular file, writable by anyone, another contract, a broken table, a name
 * taken) is skipped with one warning, and refused (IS_PLUGIN, exit status 2, naming it and
 * why) only when the model asked for is in it, or is in two libraries at once. A library
 * named by its path must be usable. The libraries stay loaded until is_models_free. */
#ifndef IMPACTSWEEP_PLUGIN_H
#define IMPACTSWEEP_PLUGIN_H

#include "error.h"
#include "model.h"

typedef struct is_models is_models;

/* The environment variable listing plug-ins: directories (each *.so in them, in name
 * order) and library files, separated by ':'. */
#define IS_MODEL_PATH_VARIABLE "IMPACTSWEEP_MODEL_PATH"
/* Set to 1, it lets libraries (and their directories) that anyone may write be loaded,
 * as ssh's StrictModes=no does for keys; otherwise they are refused. */
#define IS_MODEL_UNSAFE_VARIABLE "IMPACTSWEEP_ALLOW_WRITABLE_MODELS"

enum {
    IS_MODELS_LOAD = 1u << 0,   /* plug-ins may be loaded (by path); else refused */
    IS_MODELS_SEARCH = 1u << 1, /* IMPACTSWEEP_MODEL_PATH's libraries may be opened */
    IS_MODELS_QUIET = 1u << 2   /* no warnings on stderr (the ranks but rank 0) */
};

/* A set holding the built-in models (NULL-terminated list; not copied) and, with
 * IS_MODELS_SEARCH, the libraries IMPACTSWEEP_MODEL_PATH lists (not opened yet; an entry
 * that does not exist, or a directory anyone may write, is warned about and skipped). */
is_code is_models_create(is_models **models, const is_model *const *builtin, unsigned flags,
                         is_error *err);
void is_models_free(is_models **models);

/* Every model loaded so far, built-in ones first (NULL-terminated; valid until the next
 * load). is_models_open_all first lists every usable one. */
const is_model *const *is_models_list(const is_models *models);
/* Opens every library on the path (warning about and skipping the unusable ones). */
void is_models_open_all(is_models *models);

/* The name of a known model that `name` is a near miss of ("chater": "chatter"), or NULL
 * (the built-in models and those of the libraries opened so far). */
const char *is_models_suggest(const is_models *models, const char *name);

/* The model called `name`: built in, or else in a library on the path (the libraries
 * are opened then). IS_USAGE when there is none; IS_PLUGIN when the model is in an
 * unusable library or in two. */
is_code is_models_lookup(is_models *models, const char *name, const is_model **model,
                         is_error *err);
/* The named model among those loaded, or NULL (opens nothing). */
const is_model *is_models_find(const is_models *models, const char *name);

/* Loads the plug-in at `path` (relative paths from the working directory), or finds it
 * loaded already from the same file. */
is_code is_models_load(is_models *models, const char *path, const is_model **model, is_error *err);

/* Adds `model` (a description without functions, read from a result file: see
 * model_text.h) as the model of `library`: a later is_models_load(library) or lookup of
 * its name takes it without opening anything (merge, which copies data only). */
is_code is_models_add_described(is_models *models, const char *library, const char *sha256,
                                const is_model *model, is_error *err);

/* Is `text` a path to a library rather than a model name? (It holds a '/' or ends in
 * ".so".) */
int is_models_is_path(const char *text);

/* Where a model came from: NULL for a built-in model, else the absolute path of its
 * library, whose SHA-256 (64 hex digits) goes to *sha256. */
const char *is_models_library(const is_models *models, const is_model *model, const char **sha256);

/* The contract version a plug-in's table was read as ("3.0", "2 (before the ABI
 * header)"); NULL for a built-in model. */
const char *is_models_contract(const is_models *models, const is_model *model);

#endif
