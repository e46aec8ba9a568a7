/* lock.c: the result file's lock and its heartbeat (see lock.h). */
#include "lock.h"

#include <errno.h>
#include <fcntl.h>
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

typedef struct owner {
    char host[128];
    long pid;
    unsigned long long pid_start; /* the process's start time (Linux), against pid reuse */
    char slurm_job[64];
    long slurm_restart;
    char started[32];
    unsigned long long heartbeat;
} owner;

struct is_lock {
    char *path;
    owner me;
    int fd;
    pthread_t thread;
    pthread_mutex_t mutex;
    pthread_cond_t wake;
    int stopping, thread_running;
};

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
    int fd = open(path, O_RDONLY);
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

/* 1 when the file holds a whole owner record. */
static int read_owner(const char *path, owner *o)
{
    char text[1024] = "";
    if (!read_small(path, text, sizeof text))
        return 0;
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

/* Is the owner of the lock at `path` (record *o) gone for good? */
static int holder_is_gone(const char *path, const owner *o, const owner *me)
{
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
        owner now;
        if (!read_owner(path, &now))
            return access(path, F_OK) != 0; /* removed meanwhile: gone */
        if (now.heartbeat != o->heartbeat || now.pid != o->pid || strcmp(now.host, o->host))
            return 0;
    }
    return 1;
}

static int write_all(int fd, const char *text, size_t length)
{
    return pwrite(fd, text, length, 0) == (ssize_t)length && fsync(fd) == 0 ? 0 : -1;
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
        char text[1024];
        int n = format_owner(&lock->me, text, sizeof text);
        if (pwrite(lock->fd, text, (size_t)n, 0) != n) {
            /* a lost heartbeat only lets another run take the lock after the timeout */
        }
    }
    pthread_mutex_unlock(&lock->mutex);
    return NULL;
}

/* Creates the lock file with our record; 0, or -1 with errno (EEXIST: held). */
static int create_lock(const char *path, const owner *me)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0644);
    if (fd < 0)
        return -1;
    char text[1024];
    int n = format_owner(me, text, sizeof text);
    if (write_all(fd, text, (size_t)n) != 0) {
        int saved = errno;
        close(fd);
        unlink(path);
        errno = saved;
        return -1;
    }
    return fd;
}

/* Replaces a stale lock by ours, in place (no other file is made, so a crash here
 * leaves nothing behind but the lock, empty or ours), then checks that ours survived a
 * competitor doing the same. Returns the descriptor, or -1. */
static int take_over(const char *path, const owner *me)
{
    int fd = open(path, O_WRONLY);
    if (fd < 0)
        return -1;
    char text[1024];
    int n = format_owner(me, text, sizeof text);
    if (ftruncate(fd, 0) != 0 || write_all(fd, text, (size_t)n) != 0) {
        close(fd);
        return -1;
    }
    sleep_seconds(0.2);
    owner check;
    if (read_owner(path, &check) && check.pid == me->pid && strcmp(check.host, me->host) == 0)
        return fd;
    close(fd);
    errno = EEXIST;
    return -1;
}

is_code is_lock_acquire(const char *path, is_lock **out, is_error *err)
{
    *out = NULL;
    is_lock *lock = calloc(1, sizeof *lock);
    if (!lock || !(lock->path = is_lock_path(path))) {
        free(lock);
        return is_error_set(err, IS_NOMEM, "out of memory");
    }
    describe_self(&lock->me);
    lock->fd = -1;
    owner holder;
    memset(&holder, 0, sizeof holder);
    double unwritten = 0;
    while (lock->fd < 0) {
        lock->fd = create_lock(lock->path, &lock->me);
        if (lock->fd >= 0)
            break;
        if (errno != EEXIST) {
            is_code rc = is_error_set(err, IS_IO, "%s: cannot create the lock file: %s",
                                      lock->path, strerror(errno));
            is_lock_release(&lock);
            return rc;
        }
        if (!read_owner(lock->path, &holder)) {
            if (access(lock->path, F_OK) != 0)
                continue; /* released meanwhile */
            if (unwritten < UNWRITTEN_GRACE_SECONDS) { /* being written: give it a moment */
                sleep_seconds(0.1);
                unwritten += 0.1;
                continue;
            }
            lock->fd = take_over(lock->path, &lock->me); /* a crash left it empty */
        } else if (holder_is_gone(lock->path, &holder, &lock->me)) {
            lock->fd = take_over(lock->path, &lock->me);
        } else {
            break;
        }
        if (lock->fd < 0 && !read_owner(lock->path, &holder))
            snprintf(holder.host, sizeof holder.host, "unknown");
        break;
    }
    if (lock->fd < 0) {
        char who[512];
        describe_holder(&holder, who, sizeof who);
        is_code rc = is_error_set(err, IS_LOCKED,
                                  "%s is in use by another run (%s; lock file %s). Wait for it "
                                  "to end; if it is dead and the lock is not taken over by "
                                  "itself, remove the lock file",
                                  path, who, lock->path);
        free(lock->path);
        free(lock);
        return rc;
    }
    pthread_mutex_init(&lock->mutex, NULL);
    pthread_cond_init(&lock->wake, NULL);
    lock->thread_running = pthread_create(&lock->thread, NULL, heartbeat_main, lock) == 0;
    *out = lock;
    return IS_OK;
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
        pthread_mutex_destroy(&lock->mutex);
        pthread_cond_destroy(&lock->wake);
    }
    if (lock->fd >= 0) {
        owner check;
        if (read_owner(lock->path, &check) && check.pid == lock->me.pid &&
            strcmp(check.host, lock->me.host) == 0)
            unlink(lock->path);
        close(lock->fd);
    }
    free(lock->path);
    free(lock);
    *lockp = NULL;
}
