/* delayshim.c: an LD_PRELOAD shim that pauses a process just before chosen file-system
 * calls, to put two processes' steps in a chosen order: the lock race tests make one run
 * stall between judging a stale lock and taking it over, while another takes it.
 *
 *   DELAYSHIM_MATCH=s.h5.lock DELAYSHIM_CALL=create DELAYSHIM_SECONDS=0.5 \
 *       LD_PRELOAD=libdelayshim.so impactsweep run job.ini --resume
 *
 * Settings (environment variables, read at each call):
 *   DELAYSHIM_MATCH    a substring of the path: only calls on a path containing it count.
 *                      Unset or empty: the shim does nothing.
 *   DELAYSHIM_CALL     which calls count: create (open, openat, creat with O_CREAT |
 *                      O_EXCL), open (any other open of the path), opendir, unlink, rename
 *                      (either path), link (either path).
 *   DELAYSHIM_SECONDS  the pause, before the call reaches the kernel (default 0.5).
 *   DELAYSHIM_SKIP     counting calls pass this many first (default 0).
 *   DELAYSHIM_TIMES    then this many are paused (default 1); later ones pass.
 *   DELAYSHIM_LOG      optional: a line "pid call path paused" per paused call.
 * The count is per process. Build: cc -fPIC -shared -o libdelayshim.so delayshim.c -ldl */
#define _GNU_SOURCE
#undef _FILE_OFFSET_BITS
#undef _FORTIFY_SOURCE

#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static long seen; /* counting calls so far in this process */

/* Pauses if `call` on `path` is one to pause. */
static void maybe_pause(const char *call, const char *path)
{
    const char *match = getenv("DELAYSHIM_MATCH"), *which = getenv("DELAYSHIM_CALL");
    if (!match || !*match || !which || strcmp(which, call) != 0 || !path || !strstr(path, match))
        return;
    int saved = errno;
    const char *skip = getenv("DELAYSHIM_SKIP"), *times = getenv("DELAYSHIM_TIMES");
    const char *seconds = getenv("DELAYSHIM_SECONDS"), *log = getenv("DELAYSHIM_LOG");
    long n = __atomic_fetch_add(&seen, 1, __ATOMIC_SEQ_CST);
    long first = skip ? atol(skip) : 0, count = times ? atol(times) : 1;
    if (n >= first && n < first + count) {
        double s = seconds ? atof(seconds) : 0.5;
        struct timespec ts = {(time_t)s, (long)((s - (double)(time_t)s) * 1e9)};
        while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
            ;
        if (log && *log) {
            FILE *f = fopen(log, "a");
            if (f) {
                fprintf(f, "%ld %s %s paused\n", (long)getpid(), call, path);
                fclose(f);
            }
        }
    }
    errno = saved;
}

static void *next(const char *name)
{
    return dlsym(RTLD_NEXT, name);
}

static const char *open_kind(int flags)
{
    return (flags & O_CREAT) && (flags & O_EXCL) ? "create" : "open";
}

#define OPEN_LIKE(fn)                                                                              \
    int fn(const char *path, int flags, ...)                                                       \
    {                                                                                              \
        mode_t mode = 0;                                                                           \
        if (flags & (O_CREAT | O_TMPFILE)) {                                                       \
            va_list ap;                                                                            \
            va_start(ap, flags);                                                                   \
            mode = (mode_t)va_arg(ap, int);                                                        \
            va_end(ap);                                                                            \
        }                                                                                          \
        maybe_pause(open_kind(flags), path);                                                       \
        int (*real)(const char *, int, ...) = (int (*)(const char *, int, ...))next(#fn);          \
        return real(path, flags, mode);                                                            \
    }
OPEN_LIKE(open)
OPEN_LIKE(open64)

#define OPENAT_LIKE(fn)                                                                            \
    int fn(int dirfd, const char *path, int flags, ...)                                            \
    {                                                                                              \
        mode_t mode = 0;                                                                           \
        if (flags & (O_CREAT | O_TMPFILE)) {                                                       \
            va_list ap;                                                                            \
            va_start(ap, flags);                                                                   \
            mode = (mode_t)va_arg(ap, int);                                                        \
            va_end(ap);                                                                            \
        }                                                                                          \
        maybe_pause(open_kind(flags), path);                                                       \
        int (*real)(int, const char *, int, ...) =                                                 \
            (int (*)(int, const char *, int, ...))next(#fn);                                       \
        return real(dirfd, path, flags, mode);                                                     \
    }
OPENAT_LIKE(openat)
OPENAT_LIKE(openat64)

DIR *opendir(const char *path)
{
    maybe_pause("opendir", path);
    DIR *(*real)(const char *) = (DIR * (*)(const char *)) next("opendir");
    return real(path);
}

int unlink(const char *path)
{
    maybe_pause("unlink", path);
    int (*real)(const char *) = (int (*)(const char *))next("unlink");
    return real(path);
}

int rename(const char *from, const char *to)
{
    maybe_pause("rename", from);
    maybe_pause("rename", to);
    int (*real)(const char *, const char *) = (int (*)(const char *, const char *))next("rename");
    return real(from, to);
}

int link(const char *from, const char *to)
{
    maybe_pause("link", from);
    maybe_pause("link", to);
    int (*real)(const char *, const char *) = (int (*)(const char *, const char *))next("link");
    return real(from, to);
}
