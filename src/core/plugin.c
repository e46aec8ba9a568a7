/* plugin.c: the set of models a command can use, built-in and plug-ins (see plugin.h). */
#include "plugin.h"

#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "conformance.h"
#include "sha256.h"

/* More plug-ins than anyone installs: beyond it IMPACTSWEEP_MODEL_PATH is refused. */
#define PLUGIN_MAX 256

typedef struct plugin {
    void *handle;
    const is_model *model;
    char *library; /* absolute path */
    char sha256[65];
} plugin;

struct is_models {
    const is_model **list; /* built-in, then plug-ins; NULL-terminated */
    size_t builtin_count, count;
    unsigned flags;
    plugin plugins[PLUGIN_MAX];
    size_t plugin_count;
};

int is_models_is_path(const char *text)
{
    size_t n = strlen(text);
    return strchr(text, '/') != NULL || (n > 3 && strcmp(text + n - 3, ".so") == 0);
}

const is_model *const *is_models_list(const is_models *models)
{
    return models->list;
}

const is_model *is_models_find(const is_models *models, const char *name)
{
    return is_model_find(models->list, name);
}

const char *is_models_library(const is_models *models, const is_model *model,
                              const char **sha256)
{
    for (size_t i = 0; i < models->plugin_count; i++)
        if (models->plugins[i].model == model) {
            if (sha256)
                *sha256 = models->plugins[i].sha256;
            return models->plugins[i].library;
        }
    if (sha256)
        *sha256 = NULL;
    return NULL;
}

/* Opens the library and takes its model: the contract version first, then the entry
 * point, then the table's conformance. */
static is_code open_plugin(const char *path, plugin *out, is_error *err)
{
    dlerror();
    void *handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!handle) {
        const char *why = dlerror();
        return is_error_set(err, IS_PLUGIN, "model plug-in %s: cannot load it: %s", path,
                            why ? why : "unknown reason");
    }
    is_code rc = IS_OK;
    const int *abi = dlsym(handle, "impactsweep_model_abi");
    const is_model *(*entry)(void) = NULL;
    *(void **)&entry = dlsym(handle, "impactsweep_model");
    if (!abi)
        rc = is_error_set(err, IS_PLUGIN,
                          "model plug-in %s: not an impactsweep model (it exports no "
                          "impactsweep_model_abi: end the model's source with "
                          "IS_MODEL_PLUGIN(table))",
                          path);
    else if (*abi != IS_MODEL_ABI_VERSION)
        rc = is_error_set(err, IS_PLUGIN,
                          "model plug-in %s: built against model contract version %d, but this "
                          "impactsweep loads version %d: rebuild it against this "
                          "impactsweep's model.h",
                          path, *abi, IS_MODEL_ABI_VERSION);
    else if (!entry)
        rc = is_error_set(err, IS_PLUGIN,
                          "model plug-in %s: it exports no entry point impactsweep_model "
                          "(use IS_MODEL_PLUGIN(table))",
                          path);
    const is_model *model = rc == IS_OK ? entry() : NULL;
    if (rc == IS_OK && !model)
        rc = is_error_set(err, IS_PLUGIN, "model plug-in %s: its entry point returned no model",
                          path);
    is_error detail;
    if (rc == IS_OK && is_conformance_table(model, &detail) != IS_OK)
        rc = is_error_set(err, IS_PLUGIN, "model plug-in %s breaks the model contract: %s", path,
                          detail.message);
    if (rc != IS_OK) {
        dlclose(handle);
        return rc;
    }
    out->handle = handle;
    out->model = model;
    return IS_OK;
}

static const char *file_kind(mode_t mode)
{
    return S_ISDIR(mode)    ? "a directory"
           : S_ISCHR(mode)  ? "a character device"
           : S_ISBLK(mode)  ? "a block device"
           : S_ISFIFO(mode) ? "a FIFO"
           : S_ISSOCK(mode) ? "a socket"
                            : "not a regular file";
}

/* A library is a regular file: a device or a FIFO would hang the checksum's read (or its
 * open), a directory fail late with a read error; each is refused before it is opened. */
static is_code check_regular(const char *path, is_error *err)
{
    struct stat st;
    if (stat(path, &st) != 0)
        return is_error_set(err, IS_PLUGIN, "model plug-in %s: %s", path, strerror(errno));
    if (!S_ISREG(st.st_mode))
        return is_error_set(err, IS_PLUGIN,
                            "model plug-in %s: %s, not a shared library: refused", path,
                            file_kind(st.st_mode));
    return IS_OK;
}

is_code is_models_load(is_models *models, const char *path, const is_model **model,
                       is_error *err)
{
    *model = NULL;
    if (!(models->flags & IS_MODELS_LOAD))
        return is_error_set(err, IS_PLUGIN, "model plug-in %s: plug-ins are not loaded here",
                            path);
    char absolute[PATH_MAX];
    if (!realpath(path, absolute))
        return is_error_set(err, IS_PLUGIN, "model plug-in %s: %s", path, strerror(errno));
    is_code regular = check_regular(absolute, err);
    if (regular != IS_OK)
        return regular;
    for (size_t i = 0; i < models->plugin_count; i++)
        if (strcmp(models->plugins[i].library, absolute) == 0) {
            *model = models->plugins[i].model;
            return IS_OK;
        }
    if (models->plugin_count >= PLUGIN_MAX)
        return is_error_set(err, IS_PLUGIN, "model plug-in %s: more than %d plug-ins", path,
                            PLUGIN_MAX);
    plugin p = {0};
    /* the checksum of the file as it is loaded: the result file records it, and a resume
     * refuses a library that has changed since */
    is_error detail;
    if (is_sha256_file(absolute, p.sha256, &detail) != IS_OK)
        return is_error_set(err, IS_PLUGIN, "model plug-in %s", detail.message);
    is_code rc = open_plugin(absolute, &p, err);
    if (rc != IS_OK)
        return rc;
    const is_model *same = is_models_find(models, p.model->name);
    if (same) {
        const char *where = is_models_library(models, same, NULL);
        rc = is_error_set(err, IS_PLUGIN,
                          "model plug-in %s: a model called %s exists already (%s%s)", absolute,
                          p.model->name, where ? "from " : "built in", where ? where : "");
    }
    const is_model **list = rc == IS_OK ? realloc(models->list, (models->count + 2) * sizeof *list)
                                        : NULL;
    if (rc == IS_OK && (!list || !(p.library = strdup(absolute))))
        rc = is_error_set(err, IS_NOMEM, "out of memory");
    if (list)
        models->list = list;
    if (rc != IS_OK) {
        dlclose(p.handle);
        return rc;
    }
    models->list[models->count++] = p.model;
    models->list[models->count] = NULL;
    models->plugins[models->plugin_count++] = p;
    *model = p.model;
    return IS_OK;
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Every *.so of a directory, in name order (the order of `impactsweep models`). */
static is_code load_directory(is_models *models, const char *dir, is_error *err)
{
    DIR *d = opendir(dir);
    if (!d)
        return is_error_set(err, IS_PLUGIN, "%s: %s: %s", IS_MODEL_PATH_VARIABLE, dir,
                            strerror(errno));
    char *names[PLUGIN_MAX];
    size_t count = 0;
    is_code rc = IS_OK;
    for (struct dirent *e; rc == IS_OK && (e = readdir(d));) {
        size_t n = strlen(e->d_name);
        if (n <= 3 || strcmp(e->d_name + n - 3, ".so") != 0)
            continue;
        if (count == PLUGIN_MAX)
            rc = is_error_set(err, IS_PLUGIN, "%s: %s holds more than %d libraries",
                              IS_MODEL_PATH_VARIABLE, dir, PLUGIN_MAX);
        else if (!(names[count++] = strdup(e->d_name)))
            rc = is_error_set(err, IS_NOMEM, "out of memory");
    }
    closedir(d);
    qsort(names, count, sizeof *names, by_name);
    for (size_t i = 0; i < count; i++) {
        if (rc == IS_OK && names[i]) {
            size_t size = strlen(dir) + strlen(names[i]) + 2;
            char *path = malloc(size);
            const is_model *ignored;
            if (!path)
                rc = is_error_set(err, IS_NOMEM, "out of memory");
            else {
                snprintf(path, size, "%s/%s", dir, names[i]);
                rc = is_models_load(models, path, &ignored, err);
            }
            free(path);
        }
        free(names[i]);
    }
    return rc;
}

static is_code load_search_path(is_models *models, is_error *err)
{
    const char *value = getenv(IS_MODEL_PATH_VARIABLE);
    if (!value || !*value)
        return IS_OK;
    char *copy = strdup(value);
    if (!copy)
        return is_error_set(err, IS_NOMEM, "out of memory");
    is_code rc = IS_OK;
    char *save = NULL;
    for (char *entry = strtok_r(copy, ":", &save); entry && rc == IS_OK;
         entry = strtok_r(NULL, ":", &save)) {
        struct stat st;
        const is_model *ignored;
        if (stat(entry, &st) != 0)
            rc = is_error_set(err, IS_PLUGIN, "%s: %s: %s", IS_MODEL_PATH_VARIABLE, entry,
                              strerror(errno));
        else if (S_ISDIR(st.st_mode))
            rc = load_directory(models, entry, err);
        else
            rc = is_models_load(models, entry, &ignored, err);
    }
    free(copy);
    return rc;
}

is_code is_models_create(is_models **out, const is_model *const *builtin, unsigned flags,
                         is_error *err)
{
    *out = NULL;
    is_models *models = calloc(1, sizeof *models);
    size_t n = 0;
    while (builtin && builtin[n])
        n++;
    if (!models || !(models->list = malloc((n + 1) * sizeof *models->list))) {
        free(models);
        return is_error_set(err, IS_NOMEM, "out of memory");
    }
    for (size_t i = 0; i < n; i++)
        models->list[i] = builtin[i];
    models->list[n] = NULL;
    models->builtin_count = models->count = n;
    models->flags = flags | (flags & IS_MODELS_SEARCH ? IS_MODELS_LOAD : 0u);
    is_code rc = flags & IS_MODELS_SEARCH ? load_search_path(models, err) : IS_OK;
    if (rc != IS_OK) {
        is_models_free(&models);
        return rc;
    }
    *out = models;
    return IS_OK;
}

void is_models_free(is_models **models)
{
    if (!models || !*models)
        return;
    is_models *m = *models;
    for (size_t i = 0; i < m->plugin_count; i++) {
        dlclose(m->plugins[i].handle);
        free(m->plugins[i].library);
    }
    free(m->list);
    free(m);
    *models = NULL;
}
