/* lock.c: the result file's locks, their generations and their heartbeat (see lock.h). */
#include "lock.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "engine.h"
#include "error.h"
#include "provenance.h"

/* Seconds between heartbeats; a lock from another host is stale when its heartbeat has
 * not moved for the timeout (several beats, for a busy or slow file system). */
#define HEARTBEAT_SECONDS 5
#define DEFAULT_TIMEOUT_SECONDS 30
/* A lock file caught between its creation and its first write is given this long. */
#define UNWRITTEN_GRACE_SECONDS 2
/* Rounds of taking a lock over before giving up when other runs keep racing for it. */
#define ATTEMPTS 8
/* A run holds the name's lock, the file's, and a new file's. */
#define MAX_HELD 3
#define RECORD_MAX 1024

typedef struct owner {
    char host[128];
    long pid;
    unsigned long long pid_start; /* the process's start time (Linux), against pid reuse */
    char slurm_job[64];
    long slurm_restart;
    char started[32];
    unsigned long long heartbeat;
} owner;

/* One lock we hold: our file NAME (BASE or BASE.GENERATION) in DIR. */
typedef struct held {
    char dir[PATH_MAX], name[NAME_MAX + 1];
    int fd;
} held;

struct is_lock {
    char *path;
    owner me;
    held locks[MAX_HELD];
    int count;
    pthread_t thread;
    pthread_mutex_t mutex;
    pthread_cond_t wake;
    int stopping, thread_running;
};

/* A file of a lock's family, as found in its directory. */
typedef enum { ENTRY_RECORD, ENTRY_UNWRITTEN, ENTRY_FOREIGN, ENTRY_GONE } entry_kind;

typedef struct entry {
    char name[NAME_MAX + 1];
    unsigned long long generation;
    entry_kind kind;
    char text[RECORD_MAX];
    owner holder; /* ENTRY_RECORD */
    int stale;
} entry;

typedef struct family {
    entry *entries;
    size_t count, capacity;
} family;

char *is_lock_path(const char *path)
{
    return is_path_with_suffix(path, ".lock");
}

static void sleep_seconds(double s)
{
    struct timespec ts = {(time_t)s, (long)((s - (double)(time_t)s) * 1e9)};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
        ;
}

/* The start of a small file as a string; 0 when it cannot be read or is empty. */
static int read_small(const char *path, char *text, size_t size)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return 0;
    ssize_t n = read(fd, text, size - 1);
    close(fd);
    if (n <= 0)
        return 0;
    text[n] = '\0';
    return 1;
}

/* Start time of process pid in clock ticks since boot (field 22 of /proc/PID/stat), or 0
 * where there is no /proc. */
static unsigned long long process_start(long pid)
{
    char path[64], text[1024];
    snprintf(path, sizeof path, "/proc/%ld/stat", pid);
    if (!read_small(path, text, sizeof text))
        return 0;
    const char *p = strrchr(text, ')'); /* the command name may hold blanks */
    unsigned long long start = 0;
    for (int field = 2; p && *p && field < 22; p++)
        field += *p == ' ';
    if (p && sscanf(p, "%llu", &start) != 1)
        start = 0;
    return start;
}

static void describe_self(owner *me)
{
    memset(me, 0, sizeof *me);
    if (gethostname(me->host, sizeof me->host - 1) != 0)
        snprintf(me->host, sizeof me->host, "unknown");
    me->pid = (long)getpid();
    me->pid_start = process_start(me->pid);
    const char *job = getenv("SLURM_JOB_ID"), *restart = getenv("SLURM_RESTART_COUNT");
    snprintf(me->slurm_job, sizeof me->slurm_job, "%s", job ? job : "");
    me->slurm_restart = restart ? atol(restart) : 0;
    is_provenance_now(me->started, sizeof me->started);
}

/* The lock's text: fixed layout, the heartbeat last and of fixed width, so that a
 * heartbeat rewrites the same bytes. */
static int format_owner(const owner *o, char *buf, size_t size)
{
    return snprintf(buf, size,
                    "impactsweep lock\nhost=%s\npid=%ld\npid_start=%llu\nslurm_job=%s\n"
                    "slurm_restart=%ld\nstarted=%s\nheartbeat=%020llu\n",
                    o->host, o->pid, o->pid_start, o->slurm_job, o->slurm_restart, o->started,
                    o->heartbeat);
}

/* 1 when the text is a whole owner record. */
static int parse_owner(const char *record, owner *o)
{
    char text[RECORD_MAX];
    snprintf(text, sizeof text, "%s", record);
    memset(o, 0, sizeof *o);
    int fields = 0;
    for (char *save = NULL, *line = strtok_r(text, "\n", &save); line;
         line = strtok_r(NULL, "\n", &save)) {
        if (sscanf(line, "host=%127s", o->host) == 1 || sscanf(line, "pid=%ld", &o->pid) == 1 ||
            sscanf(line, "pid_start=%llu", &o->pid_start) == 1 ||
            sscanf(line, "slurm_restart=%ld", &o->slurm_restart) == 1 ||
            sscanf(line, "started=%31s", o->started) == 1)
            fields++;
        else if (strncmp(line, "slurm_job=", 10) == 0)
            snprintf(o->slurm_job, sizeof o->slurm_job, "%s", line + 10), fields++;
        else if (sscanf(line, "heartbeat=%llu", &o->heartbeat) == 1)
            fields++;
    }
    return fields == 7;
}

/* Reads a lock file without ever following a link or blocking on a fifo. */
static entry_kind read_entry(const char *dir, const char *name, char *text, size_t size)
{
    char path[PATH_MAX + NAME_MAX + 2];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    text[0] = '\0';
    int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0)
        return errno == ENOENT ? ENTRY_GONE : ENTRY_FOREIGN; /* ELOOP: a symbolic link */
    struct stat st;
    entry_kind kind = ENTRY_FOREIGN;
    if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode)) {
        ssize_t n = read(fd, text, size - 1);
        text[n > 0 ? n : 0] = '\0';
        owner o;
        kind = parse_owner(text, &o) ? ENTRY_RECORD : ENTRY_UNWRITTEN;
    }
    close(fd);
    return kind;
}

/* The files of the family BASE (BASE, BASE.1, BASE.2, ...) in DIR, read. */
static int list_family(const char *dir, const char *base, family *f)
{
    f->count = 0;
    DIR *d = opendir(dir);
    if (!d)
        return -1;
    size_t length = strlen(base);
    for (struct dirent *de; (de = readdir(d));) {
        const char *rest = de->d_name + length;
        unsigned long long generation = 0;
        if (strncmp(de->d_name, base, length) != 0)
            continue;
        if (*rest) { /* ".N": digits only */
            char *end;
            if (rest[0] != '.' || rest[1] < '0' || rest[1] > '9')
                continue;
            generation = strtoull(rest + 1, &end, 10);
            if (*end || generation == 0)
                continue;
        }
        if (f->count == f->capacity) {
            size_t capacity = f->capacity ? 2 * f->capacity : 4;
            entry *bigger = realloc(f->entries, capacity * sizeof *bigger);
            if (!bigger)
                break;
            f->entries = bigger;
            f->capacity = capacity;
        }
        entry *e = &f->entries[f->count++];
        memset(e, 0, sizeof *e);
        snprintf(e->name, sizeof e->name, "%s", de->d_name);
        e->generation = generation;
        e->kind = read_entry(dir, e->name, e->text, sizeof e->text);
        if (e->kind == ENTRY_RECORD)
            parse_owner(e->text, &e->holder);
    }
    closedir(d);
    return 0;
}

static void describe_holder(const owner *o, char *buf, size_t size)
{
    snprintf(buf, size, "host %s, pid %ld%s%s%s, started %s", o->host, o->pid,
             *o->slurm_job ? ", Slurm job " : "", o->slurm_job,
             *o->slurm_job && o->slurm_restart ? " (requeued)" : "", o->started);
}

static double lock_timeout(void)
{
    const char *text = getenv("IMPACTSWEEP_LOCK_TIMEOUT");
    double t = text ? atof(text) : DEFAULT_TIMEOUT_SECONDS;
    return t > 0 ? t : DEFAULT_TIMEOUT_SECONDS;
}

/* Is the owner of lock file e (in dir) gone for good? */
static int holder_is_gone(const char *dir, const entry *e, const owner *me)
{
    const owner *o = &e->holder;
    if (strcmp(o->host, me->host) == 0) {
        if (o->pid <= 0 || (kill((pid_t)o->pid, 0) != 0 && errno == ESRCH))
            return 1;
        unsigned long long start = process_start(o->pid);
        return o->pid_start && start && start != o->pid_start; /* the pid was reused */
    }
    if (*o->slurm_job && strcmp(o->slurm_job, me->slurm_job) == 0 &&
        me->slurm_restart > o->slurm_restart)
        return 1; /* Slurm requeued this job: its earlier incarnation has ended */
    /* another host: alive while its heartbeat moves */
    double waited = 0, timeout = lock_timeout();
    while (waited < timeout) {
        sleep_seconds(0.5);
        waited += 0.5;
        char text[RECORD_MAX];
        owner now;
        entry_kind kind = read_entry(dir, e->name, text, sizeof text);
        if (kind == ENTRY_GONE)
            return 1; /* removed meanwhile: gone */
        if (kind != ENTRY_RECORD || !parse_owner(text, &now) || now.heartbeat != o->heartbeat ||
            now.pid != o->pid || strcmp(now.host, o->host) != 0)
            return 0;
    }
    return 1;
}

/* Judges every file of the family: IS_OK when all are stale (e->stale, e->text their
 * content as judged); else IS_LOCKED naming the holder, or the file that is no lock. */
static is_code judge(const char *dir, family *f, const owner *me, const char *what, is_error *err)
{
    for (size_t i = 0; i < f->count; i++) {
        entry *e = &f->entries[i];
        for (double waited = 0; e->kind == ENTRY_UNWRITTEN && waited < UNWRITTEN_GRACE_SECONDS;
             waited += 0.1) { /* being written: give it a moment */
            sleep_seconds(0.1);
            e->kind = read_entry(dir, e->name, e->text, sizeof e->text);
            if (e->kind == ENTRY_RECORD)
                parse_owner(e->text, &e->holder);
        }
        if (e->kind == ENTRY_FOREIGN)
            return is_error_set(err, IS_LOCKED,
                                "%s/%s is not a lock file impactsweep made (a symbolic link, "
                                "or not a regular file): impactsweep never writes through it, "
                                "and will not run on %s while it is there; remove it if it is "
                                "not yours",
                                dir, e->name, what);
        e->stale = e->kind != ENTRY_RECORD || holder_is_gone(dir, e, me);
        if (!e->stale) {
            char who[512];
            describe_holder(&e->holder, who, sizeof who);
            return is_error_set(err, IS_LOCKED,
                                "%s is in use by another run (%s; lock file %s/%s). Wait for "
                                "it to end; if it is dead and the lock is not taken over by "
                                "itself, remove the lock file",
                                what, who, dir, e->name);
        }
    }
    return IS_OK;
}

/* Did anything appear in `now` that `before` did not have (with the same content)? */
static int changed(const family *before, const family *now, const char *ours)
{
    for (size_t i = 0; i < now->count; i++) {
        const entry *e = &now->entries[i];
        if (strcmp(e->name, ours) == 0 || e->kind == ENTRY_GONE)
            continue;
        int known = 0;
        for (size_t j = 0; j < before->count && !known; j++)
            known = strcmp(before->entries[j].name, e->name) == 0 &&
                    strcmp(before->entries[j].text, e->text) == 0;
        if (!known)
            return 1;
    }
    return 0;
}

/* Creates generation g of the family with our record; the descriptor, or -1 (errno). */
static int create_generation(const char *dir, const char *base, unsigned long long g,
                             const owner *me, char *name, size_t size)
{
    if (g == 0)
        snprintf(name, size, "%s", base);
    else
        snprintf(name, size, "%s.%llu", base, g);
    char path[PATH_MAX + NAME_MAX + 2], text[RECORD_MAX];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (fd < 0)
        return -1;
    int n = format_owner(me, text, sizeof text);
    if (pwrite(fd, text, (size_t)n, 0) != n || fsync(fd) != 0) {
        int saved = errno;
        close(fd);
        unlink(path);
        errno = saved;
        return -1;
    }
    return fd;
}

static void remove_stale(const char *dir, const family *f)
{
    char path[PATH_MAX + NAME_MAX + 2], text[RECORD_MAX];
    for (size_t i = 0; i < f->count; i++) {
        const entry *e = &f->entries[i];
        if (snprintf(path, sizeof path, "%s/%s", dir, e->name) >= (int)sizeof path)
            continue;
        if (e->stale && read_entry(dir, e->name, text, sizeof text) != ENTRY_FOREIGN &&
            strcmp(text, e->text) == 0)
            unlink(path); /* removes the name only: never what a link points to */
    }
}

/* One round of taking the family BASE in DIR: 1 done (*h holds it), 0 to try again (a
 * race with another run), -1 refused or failed (err). */
static int take_round(held *h, const char *dir, const char *base, const owner *me, const char *what,
                      family *before, family *after, is_error *err)
{
    if (list_family(dir, base, before) != 0) {
        is_error_set(err, IS_IO, "%s: cannot list the directory for its lock: %s", dir,
                     strerror(errno));
        return -1;
    }
    if (judge(dir, before, me, what, err) != IS_OK)
        return -1;
    unsigned long long next = 0;
    for (size_t i = 0; i < before->count; i++)
        next = before->entries[i].generation + 1 > next ? before->entries[i].generation + 1 : next;
    h->fd = create_generation(dir, base, next, me, h->name, sizeof h->name);
    if (h->fd < 0 && errno == EEXIST)
        return 0; /* another run created it first: look again */
    if (h->fd < 0) {
        is_error_set(err, IS_IO, "%s/%s: cannot create the lock file: %s", dir, h->name,
                     strerror(errno));
        return -1;
    }
    if (list_family(dir, base, after) == 0 && !changed(before, after, h->name)) {
        remove_stale(dir, before);
        return 1;
    }
    /* another run acted meanwhile: neither may trust its view; both back off */
    char path[PATH_MAX + NAME_MAX + 2];
    snprintf(path, sizeof path, "%s/%s", dir, h->name);
    unlink(path);
    close(h->fd);
    h->fd = -1;
    return 0;
}

/* Takes the lock family BASE in DIR for `what` (the file, for messages) into *h. */
static is_code take(held *h, const char *dir, const char *base, const owner *me, const char *what,
                    is_error *err)
{
    family before = {0}, after = {0};
    snprintf(h->dir, sizeof h->dir, "%s", dir);
    h->fd = -1;
    int done = 0;
    unsigned seed = (unsigned)me->pid ^ (unsigned)time(NULL);
    for (int attempt = 0; attempt < ATTEMPTS && done == 0; attempt++) {
        done = take_round(h, dir, base, me, what, &before, &after, err);
        if (done == 0) /* let the other run win: a random pause of 0.05 to 0.45 s */
            sleep_seconds(0.05 + 0.4 * (double)(rand_r(&seed) % 1000) / 1000.0);
    }
    free(before.entries);
    free(after.entries);
    if (done == 0)
        return is_error_set(err, IS_LOCKED,
                            "%s is in use: other runs kept taking its lock (%s/%s) while this "
                            "one tried; run again once they end",
                            what, dir, base);
    return done > 0 ? IS_OK : err ? err->code : IS_LOCKED;
}

/* Removes the file locks in DIR left by dead processes of this host (a run killed while it
 * built a file leaves the lock of a file that no longer exists, which nobody would take
 * over). Only locks whose owner is provably gone at once; never waits. */
static void sweep_dead_file_locks(const char *dir, const owner *me)
{
    static const char prefix[] = ".impactsweep-lock.";
    DIR *d = opendir(dir);
    for (struct dirent *de; d && (de = readdir(d));) {
        entry e;
        memset(&e, 0, sizeof e);
        if (strncmp(de->d_name, prefix, sizeof prefix - 1) != 0)
            continue;
        snprintf(e.name, sizeof e.name, "%s", de->d_name);
        if (read_entry(dir, e.name, e.text, sizeof e.text) != ENTRY_RECORD ||
            !parse_owner(e.text, &e.holder) || strcmp(e.holder.host, me->host) != 0)
            continue;
        e.stale = holder_is_gone(dir, &e, me);
        family f = {&e, 1, 1};
        remove_stale(dir, &f);
    }
    if (d)
        closedir(d);
}

/* The directory (symbolic links resolved) and name of the file a path leads to. */
static int canonical(const char *path, char *dir, size_t dir_size, char *name, size_t name_size)
{
    char target[PATH_MAX];
    if (!realpath(path, target)) { /* no file yet: its directory's real path */
        char *copy = strdup(path), *copy2 = strdup(path);
        char real[PATH_MAX];
        int ok = copy && copy2 && realpath(dirname(copy), real) != NULL;
        if (ok)
            ok = snprintf(target, sizeof target, "%s/%s", real, basename(copy2)) <
                 (int)sizeof target;
        free(copy);
        free(copy2);
        if (!ok)
            return -1;
    }
    char *a = strdup(target), *b = strdup(target);
    if (a && b) {
        snprintf(dir, dir_size, "%s", dirname(a));
        snprintf(name, name_size, "%s", basename(b));
    }
    free(a);
    free(b);
    return a && b ? 0 : -1;
}

/* IS_OK unless the file `st` (found as NAME in DIR) has names in other directories, which
 * a run through them would not find its lock by. */
static is_code all_links_here(const char *dir, const struct stat *st, const char *what,
                              is_error *err)
{
    if (st->st_nlink <= 1)
        return IS_OK;
    nlink_t here = 0;
    DIR *d = opendir(dir);
    for (struct dirent *de; d && (de = readdir(d));) {
        struct stat other;
        if (de->d_ino == st->st_ino &&
            fstatat(dirfd(d), de->d_name, &other, AT_SYMLINK_NOFOLLOW) == 0 &&
            other.st_ino == st->st_ino && other.st_dev == st->st_dev)
            here++;
    }
    if (d)
        closedir(d);
    if (here >= st->st_nlink)
        return IS_OK;
    return is_error_set(err, IS_LOCKED,
                        "%s has %lu names (hard links), %lu of them outside %s: a run through "
                        "another could not see this run's lock, so impactsweep does not write "
                        "it; remove the other links, or work on a copy",
                        what, (unsigned long)st->st_nlink, (unsigned long)(st->st_nlink - here),
                        dir);
}

/* The lock of the file at `path` (its inode), if it exists. */
static is_code take_file_lock(is_lock *lock, const char *path, is_error *err)
{
    char dir[PATH_MAX], name[NAME_MAX + 1], base[64];
    struct stat st;
    if (stat(path, &st) != 0 || canonical(path, dir, sizeof dir, name, sizeof name) != 0)
        return IS_OK; /* no file (yet): its name's lock guards it */
    if (lock->count >= MAX_HELD)
        return is_error_set(err, IS_INTERNAL, "%s: too many locks", path);
    is_code rc = all_links_here(dir, &st, path, err);
    snprintf(base, sizeof base, ".impactsweep-lock.%llu", (unsigned long long)st.st_ino);
    if (rc == IS_OK)
        rc = take(&lock->locks[lock->count], dir, base, &lock->me, path, err);
    if (rc == IS_OK)
        lock->count++;
    return rc;
}

static void *heartbeat_main(void *arg)
{
    is_lock *lock = arg;
    pthread_mutex_lock(&lock->mutex);
    while (!lock->stopping) {
        struct timespec until;
        clock_gettime(CLOCK_REALTIME, &until);
        until.tv_sec += HEARTBEAT_SECONDS;
        pthread_cond_timedwait(&lock->wake, &lock->mutex, &until);
        if (lock->stopping)
            break;
        lock->me.heartbeat++;
        char text[RECORD_MAX];
        int n = format_owner(&lock->me, text, sizeof text);
        for (int i = 0; i < lock->count; i++)
            if (pwrite(lock->locks[i].fd, text, (size_t)n, 0) != n) {
                /* a lost heartbeat only lets another run take the lock after the timeout */
            }
    }
    pthread_mutex_unlock(&lock->mutex);
    return NULL;
}

is_code is_lock_acquire(const char *path, is_lock **out, is_error *err)
{
    *out = NULL;
    is_lock *lock = calloc(1, sizeof *lock);
    if (!lock || !(lock->path = strdup(path))) {
        free(lock);
        return is_error_set(err, IS_NOMEM, "out of memory");
    }
    describe_self(&lock->me);
    pthread_mutex_init(&lock->mutex, NULL);
    pthread_cond_init(&lock->wake, NULL);
    char dir[PATH_MAX], name[NAME_MAX + 1], base[NAME_MAX + 1];
    is_code rc = canonical(path, dir, sizeof dir, name, sizeof name) == 0
                     ? IS_OK
                     : is_error_set(err, IS_IO, "%s: cannot resolve its directory: %s", path,
                                    strerror(errno));
    if (rc == IS_OK && strlen(name) + 5 >= sizeof base)
        rc = is_error_set(err, IS_JOB, "%s: the file name is too long for its lock", path);
    if (rc == IS_OK) {
        snprintf(base, sizeof base, "%s.lock", name);
        rc = take(&lock->locks[0], dir, base, &lock->me, path, err);
        lock->count = rc == IS_OK;
    }
    if (rc == IS_OK)
        sweep_dead_file_locks(dir, &lock->me);
    if (rc == IS_OK)
        rc = take_file_lock(lock, path, err);
    if (rc != IS_OK) {
        is_lock_release(&lock);
        return rc;
    }
    lock->thread_running = pthread_create(&lock->thread, NULL, heartbeat_main, lock) == 0;
    *out = lock;
    return IS_OK;
}

is_code is_lock_adopt(is_lock *lock, const char *path, is_error *err)
{
    pthread_mutex_lock(&lock->mutex); /* the heartbeat reads the list */
    is_code rc = take_file_lock(lock, path, err);
    pthread_mutex_unlock(&lock->mutex);
    return rc;
}

void is_lock_release(is_lock **lockp)
{
    if (!lockp || !*lockp)
        return;
    is_lock *lock = *lockp;
    if (lock->thread_running) {
        pthread_mutex_lock(&lock->mutex);
        lock->stopping = 1;
        pthread_cond_signal(&lock->wake);
        pthread_mutex_unlock(&lock->mutex);
        pthread_join(lock->thread, NULL);
    }
    pthread_mutex_destroy(&lock->mutex);
    pthread_cond_destroy(&lock->wake);
    for (int i = lock->count; i-- > 0;) {
        held *h = &lock->locks[i];
        char path[PATH_MAX + NAME_MAX + 2];
        snprintf(path, sizeof path, "%s/%s", h->dir, h->name);
        struct stat mine, there;
        if (fstat(h->fd, &mine) == 0 && lstat(path, &there) == 0 && mine.st_ino == there.st_ino &&
            mine.st_dev == there.st_dev)
            unlink(path); /* still ours */
        close(h->fd);
    }
    free(lock->path);
    free(lock);
    *lockp = NULL;
}
