/* plugin.c: the set of models a command can use, built-in and plug-ins (see plugin.h). */
#include "plugin.h"

#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "conformance.h"
#include "engine.h"
#include "model_abi.h"
#include "sha256.h"
#include "suggest.h"

/* More plug-ins than anyone installs: beyond it IMPACTSWEEP_MODEL_PATH is refused. */
#define PLUGIN_MAX 256

typedef struct plugin {
    void *handle;        /* NULL: a described model (is_models_add_described) */
    is_model_copy *copy; /* the table in the engine's layout */
    const is_model *model;
    char *library; /* absolute path */
    char sha256[65];
} plugin;

/* A library on IMPACTSWEEP_MODEL_PATH, opened only when needed. */
typedef struct candidate {
    char *path;
    int opened;
    const is_model *model; /* what it holds, once opened (NULL: unusable) */
    char *why;             /* unusable: why (its warning) */
    char *clash;           /* its model's name, when another library holds it already */
} candidate;

struct is_models {
    const is_model **list; /* built-in, then plug-ins; NULL-terminated */
    size_t builtin_count, count;
    unsigned flags;
    plugin plugins[PLUGIN_MAX];
    size_t plugin_count;
    candidate candidates[PLUGIN_MAX];
    size_t candidate_count;
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

static const plugin *plugin_of(const is_models *models, const is_model *model)
{
    for (size_t i = 0; i < models->plugin_count; i++)
        if (models->plugins[i].model == model)
            return &models->plugins[i];
    return NULL;
}

const char *is_models_library(const is_models *models, const is_model *model, const char **sha256)
{
    const plugin *p = plugin_of(models, model);
    if (sha256)
        *sha256 = p ? p->sha256 : NULL;
    return p ? p->library : NULL;
}

const char *is_models_contract(const is_models *models, const is_model *model)
{
    const plugin *p = plugin_of(models, model);
    return p && p->copy ? is_model_abi_version(p->copy) : NULL;
}

static void warn(const is_models *models, const char *fmt, const char *a, const char *b)
{
    if (models->flags & IS_MODELS_QUIET)
        return;
    fprintf(stderr, "impactsweep: warning: %s: ", IS_MODEL_PATH_VARIABLE);
    fprintf(stderr, fmt, a, b);
    fputc('\n', stderr);
}

/* --- opening one library ----------------------------------------------------------- */

static int unsafe_allowed(void)
{
    const char *v = getenv(IS_MODEL_UNSAFE_VARIABLE);
    return v && strcmp(v, "1") == 0;
}

/* A library anyone may replace runs anyone's code in this process: refused (as ssh
 * refuses such keys) unless IS_MODEL_UNSAFE_VARIABLE says otherwise. Its directory too,
 * unless sticky (/tmp: others may not replace a file they do not own). */
static is_code check_writers(const char *absolute, const struct stat *st, is_error *err)
{
    if (unsafe_allowed())
        return IS_OK;
    if (st->st_mode & S_IWOTH)
        return is_error_set(err, IS_PLUGIN,
                            "model plug-in %s: anyone may write it (mode %04o): refused, as "
                            "anyone could run their code in this run (chmod o-w, or set %s=1)",
                            absolute, (unsigned)(st->st_mode & 07777), IS_MODEL_UNSAFE_VARIABLE);
    char copy[PATH_MAX];
    snprintf(copy, sizeof copy, "%s", absolute);
    const char *dir = dirname(copy);
    struct stat ds;
    if (stat(dir, &ds) == 0 && (ds.st_mode & S_IWOTH) && !(ds.st_mode & S_ISVTX))
        return is_error_set(err, IS_PLUGIN,
                            "model plug-in %s: anyone may write its directory %s (mode %04o): "
                            "refused, as anyone could replace the library (chmod o-w, or set "
                            "%s=1)",
                            absolute, dir, (unsigned)(ds.st_mode & 07777),
                            IS_MODEL_UNSAFE_VARIABLE);
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

/* Opens the file itself (never blocking: a FIFO or a device is refused at once), checks
 * who may write it and takes its checksum. *fd stays open for the caller. */
static is_code open_library_file(const char *absolute, int *fd, struct stat *st, char sha[65],
                                 is_error *err)
{
    *fd = open(absolute, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
    if (*fd < 0)
        return is_error_set(err, IS_PLUGIN, "model plug-in %s: %s", absolute, strerror(errno));
    is_code rc = IS_OK;
    if (fstat(*fd, st) != 0)
        rc = is_error_set(err, IS_PLUGIN, "model plug-in %s: %s", absolute, strerror(errno));
    else if (!S_ISREG(st->st_mode))
        rc = is_error_set(err, IS_PLUGIN, "model plug-in %s: %s, not a shared library: refused",
                          absolute, file_kind(st->st_mode));
    if (rc == IS_OK)
        rc = check_writers(absolute, st, err);
    is_error detail;
    if (rc == IS_OK && is_sha256_fd(*fd, absolute, sha, &detail) != IS_OK)
        rc = is_error_set(err, IS_PLUGIN, "model plug-in %s", detail.message);
    if (rc != IS_OK) {
        close(*fd);
        *fd = -1;
    }
    return rc;
}

/* dlopen's reason, with a hint when the library wants an engine function the SDK lacks. */
static is_code load_failed(const char *path, is_error *err)
{
    const char *why = dlerror();
    why = why ? why : "unknown reason";
    const char *missing = strstr(why, "undefined symbol: ");
    char hint[256] = "";
    if (missing)
        snprintf(hint, sizeof hint,
                 " (a plug-in may call only the SDK's functions, model.h \"The SDK\", of its "
                 "contract version or before: %.80s is none of this impactsweep's, contract "
                 "%d.%d)",
                 missing + 18, IS_MODEL_ABI_VERSION, IS_MODEL_ABI_MINOR);
    return is_error_set(err, IS_PLUGIN, "model plug-in %s: cannot load it: %s%s", path, why, hint);
}

/* Opens the library and takes its model: the contract version first, then the entry
 * point, then the table, read in the engine's layout and checked. */
static is_code open_plugin(const char *path, plugin *out, is_error *err)
{
    dlerror();
    void *handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!handle)
        return load_failed(path, err);
    is_code rc = IS_OK;
    const int *abi = dlsym(handle, "impactsweep_model_abi");
    const void *(*entry)(void) = NULL;
    *(void **)&entry = dlsym(handle, "impactsweep_model");
    if (!abi)
        rc = is_error_set(err, IS_PLUGIN,
                          "model plug-in %s: not an impactsweep model (it exports no "
                          "impactsweep_model_abi: end the model's source with "
                          "IS_MODEL_PLUGIN(table))",
                          path);
    else if (!entry)
        rc = is_error_set(err, IS_PLUGIN,
                          "model plug-in %s: it exports no entry point impactsweep_model "
                          "(use IS_MODEL_PLUGIN(table))",
                          path);
    if (rc == IS_OK && (*abi < 1 || *abi > IS_MODEL_ABI_VERSION))
        rc = is_model_abi_read(NULL, *abi, path, &out->copy, err); /* the message */
    const void *table = rc == IS_OK ? entry() : NULL;
    if (rc == IS_OK && !table)
        rc = is_error_set(err, IS_PLUGIN, "model plug-in %s: its entry point returned no model",
                          path);
    if (rc == IS_OK)
        rc = is_model_abi_read(table, *abi, path, &out->copy, err);
    is_error detail;
    if (rc == IS_OK && is_conformance_table(is_model_abi_model(out->copy), &detail) != IS_OK)
        rc = is_error_set(err, IS_PLUGIN, "model plug-in %s breaks the model contract: %s", path,
                          detail.message);
    if (rc != IS_OK) {
        is_model_abi_free(&out->copy);
        dlclose(handle);
        return rc;
    }
    out->handle = handle;
    out->model = is_model_abi_model(out->copy);
    return IS_OK;
}

/* Appends p (a loaded library, or a described model) to the set. */
static is_code add_plugin(is_models *models, plugin *p, is_error *err)
{
    const is_model **list = realloc(models->list, (models->count + 2) * sizeof *list);
    if (!list)
        return is_error_set(err, IS_NOMEM, "out of memory");
    models->list = list;
    models->list[models->count++] = p->model;
    models->list[models->count] = NULL;
    models->plugins[models->plugin_count++] = *p;
    return IS_OK;
}

static void plugin_free(plugin *p)
{
    is_model_abi_free(&p->copy);
    if (p->handle)
        dlclose(p->handle);
    free(p->library);
}

/* Loads the library at `absolute` (a regular file's real path). */
static is_code load_library(is_models *models, const char *absolute, const is_model **model,
                            is_error *err)
{
    if (models->plugin_count >= PLUGIN_MAX)
        return is_error_set(err, IS_PLUGIN, "model plug-in %s: more than %d plug-ins", absolute,
                            PLUGIN_MAX);
    plugin p = {0};
    int fd;
    struct stat st, now;
    /* the checksum of the file as it is loaded: the result file records it */
    is_code rc = open_library_file(absolute, &fd, &st, p.sha256, err);
    if (rc != IS_OK)
        return rc;
    rc = open_plugin(absolute, &p, err);
    /* the file dlopen read is the one hashed (not replaced meanwhile) */
    if (rc == IS_OK &&
        (stat(absolute, &now) != 0 || now.st_dev != st.st_dev || now.st_ino != st.st_ino))
        rc = is_error_set(err, IS_PLUGIN, "model plug-in %s: replaced while it was loaded",
                          absolute);
    close(fd);
    const is_model *same = rc == IS_OK ? is_models_find(models, p.model->name) : NULL;
    if (same) {
        const char *where = is_models_library(models, same, NULL);
        rc = is_error_set(err, IS_PLUGIN,
                          "model plug-in %s: a model called %s exists already (%s%s)", absolute,
                          p.model->name, where ? "from " : "built in", where ? where : "");
    }
    if (rc == IS_OK && !(p.library = strdup(absolute)))
        rc = is_error_set(err, IS_NOMEM, "out of memory");
    if (rc == IS_OK)
        rc = add_plugin(models, &p, err);
    if (rc != IS_OK) {
        plugin_free(&p);
        return rc;
    }
    *model = p.model;
    return IS_OK;
}

/* The loaded or described plug-in whose library is `path` as given, or NULL. */
static const plugin *loaded_from(const is_models *models, const char *path)
{
    for (size_t i = 0; i < models->plugin_count; i++)
        if (strcmp(models->plugins[i].library, path) == 0)
            return &models->plugins[i];
    return NULL;
}

is_code is_models_load(is_models *models, const char *path, const is_model **model, is_error *err)
{
    *model = NULL;
    if (!(models->flags & IS_MODELS_LOAD))
        return is_error_set(err, IS_PLUGIN, "model plug-in %s: plug-ins are not loaded here", path);
    const plugin *known = loaded_from(models, path); /* a described one needs no file */
    char absolute[PATH_MAX];
    if (!known && !realpath(path, absolute))
        return is_error_set(err, IS_PLUGIN, "model plug-in %s: %s", path, strerror(errno));
    if (!known)
        known = loaded_from(models, absolute);
    if (known) {
        *model = known->model;
        return IS_OK;
    }
    return load_library(models, absolute, model, err);
}

is_code is_models_add_described(is_models *models, const char *library, const char *sha256,
                                const is_model *model, is_error *err)
{
    if (is_models_find(models, model->name))
        return IS_OK; /* built in, or loaded: the file's own model comes first */
    if (models->plugin_count >= PLUGIN_MAX)
        return is_error_set(err, IS_PLUGIN, "more than %d plug-ins", PLUGIN_MAX);
    plugin p = {.model = model, .library = strdup(library ? library : model->name)};
    snprintf(p.sha256, sizeof p.sha256, "%s", sha256 ? sha256 : "");
    if (!p.library)
        return is_error_set(err, IS_NOMEM, "out of memory");
    is_code rc = add_plugin(models, &p, err);
    if (rc != IS_OK)
        free(p.library);
    return rc;
}

/* --- the search path --------------------------------------------------------------- */

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static void add_candidate(is_models *models, const char *path)
{
    if (models->candidate_count == PLUGIN_MAX) {
        warn(models, "%s: more than %s libraries: the rest are skipped", path, "256");
        return;
    }
    candidate *c = &models->candidates[models->candidate_count];
    if ((c->path = strdup(path)))
        models->candidate_count++;
}

/* A directory of the path: its *.so, in name order (the order of `impactsweep models`).
 * Anyone may add a library to a directory anyone may write (even a sticky one): it is
 * skipped whole. */
static void list_directory(is_models *models, const char *dir, const struct stat *st)
{
    if ((st->st_mode & S_IWOTH) && !unsafe_allowed()) {
        char why[128];
        snprintf(why, sizeof why, "mode %04o", (unsigned)(st->st_mode & 07777));
        warn(models,
             "%s: anyone may write this directory (%s): skipped (chmod o-w, or "
             "set " IS_MODEL_UNSAFE_VARIABLE "=1)",
             dir, why);
        return;
    }
    DIR *d = opendir(dir);
    if (!d) {
        warn(models, "%s: %s", dir, strerror(errno));
        return;
    }
    char *names[PLUGIN_MAX];
    size_t count = 0;
    for (struct dirent *e; (e = readdir(d)) && count < PLUGIN_MAX;) {
        size_t n = strlen(e->d_name);
        if (n > 3 && strcmp(e->d_name + n - 3, ".so") == 0 && (names[count] = strdup(e->d_name)))
            count++;
    }
    closedir(d);
    qsort(names, count, sizeof *names, by_name);
    for (size_t i = 0; i < count; i++) {
        char path[PATH_MAX];
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        add_candidate(models, path);
        free(names[i]);
    }
}

static void list_search_path(is_models *models)
{
    const char *value = getenv(IS_MODEL_PATH_VARIABLE);
    char *copy = value && *value ? strdup(value) : NULL;
    char *save = NULL;
    for (char *entry = copy ? strtok_r(copy, ":", &save) : NULL; entry;
         entry = strtok_r(NULL, ":", &save)) {
        struct stat st;
        if (stat(entry, &st) != 0)
            warn(models, "%s: %s", entry, strerror(errno));
        else if (S_ISDIR(st.st_mode))
            list_directory(models, entry, &st);
        else
            add_candidate(models, entry);
    }
    free(copy);
}

/* Opens candidate c, once; an unusable one is warned about (once) and remembered. */
static void open_candidate(is_models *models, candidate *c)
{
    if (c->opened)
        return;
    c->opened = 1;
    is_error err;
    const is_model *model = NULL;
    if (is_models_load(models, c->path, &model, &err) == IS_OK) {
        c->model = model;
        return;
    }
    c->why = strdup(err.message);
    const char *clash = strstr(err.message, ": a model called ");
    if (clash) { /* "...: a model called NAME exists already (...)" */
        clash += strlen(": a model called ");
        c->clash = strndup(clash, strcspn(clash, " "));
    }
    warn(models, "%s skipped: %s", c->path, err.message);
}

void is_models_open_all(is_models *models)
{
    for (size_t i = 0; i < models->candidate_count; i++)
        open_candidate(models, &models->candidates[i]);
}

/* Could the unusable candidate c hold model `name`? Its model's name, where it could be
 * read; else its file name (NAME.so or libNAME.so, '-' and '_' alike). */
static int may_hold(const candidate *c, const char *name)
{
    if (c->clash)
        return strcmp(c->clash, name) == 0;
    const char *base = strrchr(c->path, '/') ? strrchr(c->path, '/') + 1 : c->path;
    if (strncmp(base, "lib", 3) == 0)
        base += 3;
    size_t n = strlen(name);
    if (strlen(base) != n + 3 || strcmp(base + n, ".so") != 0)
        return 0;
    for (size_t i = 0; i < n; i++) {
        char a = base[i] == '-' ? '_' : base[i], b = name[i] == '-' ? '_' : name[i];
        if (a != b)
            return 0;
    }
    return 1;
}

is_code is_models_lookup(is_models *models, const char *name, const is_model **model, is_error *err)
{
    *model = is_model_find(models->list, name);
    if (*model)
        return IS_OK; /* built in, loaded or described: no library is opened */
    if (models->flags & IS_MODELS_SEARCH)
        is_models_open_all(models);
    *model = is_model_find(models->list, name);
    for (size_t i = 0; i < models->candidate_count; i++) {
        const candidate *c = &models->candidates[i];
        if (!c->opened || c->model || !may_hold(c, name))
            continue;
        const char *where = *model ? is_models_library(models, *model, NULL) : NULL;
        if (where && c->clash)
            return is_error_set(err, IS_PLUGIN,
                                "model %s is in two libraries on %s: %s and %s; name the one "
                                "to use by its path",
                                name, IS_MODEL_PATH_VARIABLE, where, c->path);
        if (where)
            return is_error_set(err, IS_PLUGIN,
                                "model %s: found in %s, but %s on %s may hold it too and is "
                                "refused (%s); name the one to use by its path",
                                name, where, c->path, IS_MODEL_PATH_VARIABLE, c->why ? c->why : "");
        return is_error_set(err, IS_PLUGIN, "model %s: %s", name, c->why ? c->why : c->path);
    }
    if (*model)
        return IS_OK;
    char hint[96];
    return is_error_set(err, IS_USAGE,
                        "unknown model '%s'%s (see `impactsweep models`; a plug-in is named by "
                        "its path, or found through %s)",
                        name, is_suggest_text(hint, sizeof hint, is_models_suggest(models, name)),
                        IS_MODEL_PATH_VARIABLE);
}

static const char *listed_model_name(const void *list, size_t i)
{
    return ((const is_model *const *)list)[i]->name;
}

const char *is_models_suggest(const is_models *models, const char *name)
{
    const is_model *const *list = is_models_list(models);
    size_t count = 0;
    while (list && list[count])
        count++;
    return is_suggest(name, count, listed_model_name, list);
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
    if (flags & IS_MODELS_SEARCH)
        list_search_path(models);
    *out = models;
    return IS_OK;
}

void is_models_free(is_models **models)
{
    if (!models || !*models)
        return;
    is_models *m = *models;
    for (size_t i = 0; i < m->plugin_count; i++)
        plugin_free(&m->plugins[i]);
    for (size_t i = 0; i < m->candidate_count; i++) {
        free(m->candidates[i].path);
        free(m->candidates[i].why);
        free(m->candidates[i].clash);
    }
    free(m->list);
    free(m);
    *models = NULL;
}
