/* lock.h: one run per result file at a time.
 *
 * The lock is a file beside the result, PATH.lock, created with O_CREAT | O_EXCL (atomic
 * on local file systems, NFSv3+ and Lustre) and holding who owns it: host, pid, Slurm job
 * and restart count, start time and a heartbeat counter that a thread of the owner
 * advances every few seconds. A lock left behind by a crash is taken over when its
 * owner is provably gone: on the same host its pid no longer exists; under Slurm it
 * belongs to an earlier incarnation of this very job (a requeue); otherwise its
 * heartbeat has not moved for IMPACTSWEEP_LOCK_TIMEOUT seconds (default 30). A lock
 * held by a live run is refused with IS_LOCKED, naming the holder. */
#ifndef IMPACTSWEEP_LOCK_H
#define IMPACTSWEEP_LOCK_H

#include "error.h"

typedef struct is_lock is_lock;

/* Takes the lock of result file `path` (may wait up to the timeout to decide whether a
 * lock from another host is stale). On success *lock is set and its heartbeat runs. */
is_code is_lock_acquire(const char *path, is_lock **lock, is_error *err);

/* Stops the heartbeat and removes the lock file if it is still ours; *lock = NULL. */
void is_lock_release(is_lock **lock);

/* The lock file's path for result file `path` (caller frees). */
char *is_lock_path(const char *path);

#endif
