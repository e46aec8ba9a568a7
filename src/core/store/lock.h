/* lock.h: one writer per result file, by the file's identity.
 *
 * A run (or merge) holds two locks: the lock of the file's name, PATH.lock beside the file
 * (symbolic links resolved: a link to the file names the same lock), which guards the
 * creation of a new file; and, while the file exists, the lock of the file itself, keyed on
 * its inode, .impactsweep-lock.INODE in its directory, which every name of the file (hard
 * links included) leads to. A run creating a file takes the new file's lock before the file
 * gets its name. A file with a hard link in another directory is refused: a run through that
 * link would look for the lock there.
 *
 * A lock is a small file holding who owns it: host, pid, Slurm job and restart count, start
 * time and a heartbeat counter that a thread of the owner advances every few seconds. A
 * lock left behind by a crash is taken over when its owner is provably gone: on the same
 * host its pid no longer exists; under Slurm it belongs to an earlier incarnation of this
 * very job (a requeue); otherwise its heartbeat has not moved for IMPACTSWEEP_LOCK_TIMEOUT
 * seconds (default 30).
 *
 * Lock files are only ever created with O_CREAT | O_EXCL | O_NOFOLLOW (atomic on local file
 * systems, NFSv3+ and Lustre), written through the descriptor that created them, read with
 * O_NOFOLLOW, and removed by name: never opened for writing by name, so a symbolic link or a
 * hard link planted as a lock can never make a run write into another file (a lock that is
 * not a regular file is refused, naming it). A stale lock is never rewritten: it is
 * superseded by the next generation, NAME.1, NAME.2, ..., created with O_EXCL, so that of
 * two runs taking over the same stale lock exactly one creates the next name; each then
 * lists the directory again, and backs off if anything appeared that it had not judged
 * stale (a directory listing opened after a create sees it: close-to-open consistency on
 * NFS, coherent directories on Lustre). However the two are scheduled, at most one holds
 * the lock. A lock held by a live run is refused with IS_LOCKED, naming the holder. */
#ifndef IMPACTSWEEP_LOCK_H
#define IMPACTSWEEP_LOCK_H

#include "error.h"

typedef struct is_lock is_lock;

/* Takes the locks of result file `path` (of its name, and of the file if it exists; may
 * wait up to the timeout to decide whether a lock from another host is stale). On success
 * *lock is set and its heartbeat runs. */
is_code is_lock_acquire(const char *path, is_lock **lock, is_error *err);

/* Also takes the lock of the file at `path` (a new file, before it is given the locked
 * name: its .partial), so that the file is locked from the moment its name exists. */
is_code is_lock_adopt(is_lock *lock, const char *path, is_error *err);

/* Stops the heartbeat and removes the lock files that are still ours; *lock = NULL. */
void is_lock_release(is_lock **lock);

/* The name lock's path for result file `path` as given (caller frees). */
char *is_lock_path(const char *path);

#endif
