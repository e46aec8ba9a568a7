/* launcher.h: what `impactsweep run -n N` settles before it starts the MPI launcher, and
 * how it reads the launcher's end. Either the run starts, or nothing does and the exit
 * status is 2:
 *   - N must be a whole number of ranks (1 .. IS_LAUNCHER_MAX_RANKS);
 *   - the launcher (IMPACTSWEEP_MPIEXEC's first word, default mpirun) must be found;
 *   - on a machine of its own (no batch allocation, no host list given), Open MPI's
 *     mpirun may place more ranks than the machine has cores: it is told so
 *     (--oversubscribe), with a one-line notice where N exceeds the cores;
 *   - inside a Slurm allocation N may not exceed its tasks (SLURM_NTASKS);
 *   - a launcher that fails before any rank has started (rank 0 marks the start in a
 *     file the launcher's environment names) is reported as such, status 2, never as
 *     the run's failure (1). */
#ifndef IMPACTSWEEP_CLI_LAUNCHER_H
#define IMPACTSWEEP_CLI_LAUNCHER_H

#include <limits.h>

#include "../core/base/error.h"

#define IS_LAUNCHER_MAX_RANKS (1L << 24)
/* Arguments is_launcher_prepare may add after the launcher's own words. */
#define IS_LAUNCHER_EXTRA_ARGS 3
/* The environment variable that names the start marker. */
#define IS_LAUNCHER_MARK_VARIABLE "IMPACTSWEEP_LAUNCH_MARK"

typedef struct is_launcher {
    long ranks;
    int open_mpi;           /* the launcher is Open MPI's (mpirun, mpiexec, orterun) */
    char marker[PATH_MAX];  /* the start marker ("" when none could be made) */
} is_launcher;

/* Is `text` a whole number of ranks, 1 .. IS_LAUNCHER_MAX_RANKS? */
int is_launcher_ranks_valid(const char *text);

/* Checks the rank count and the launcher (words[0 .. count - 1], its command line so
 * far), makes the start marker and appends to words the arguments the launcher needs
 * (--oversubscribe, Open MPI's -x for the marker's variable; at most
 * IS_LAUNCHER_EXTRA_ARGS); *added says how many. Prints the oversubscription notice.
 * IS_USAGE (exit status 2) when nothing may start. */
is_code is_launcher_prepare(const char *ranks, char **words, int count, int *added,
                            is_launcher *launcher, is_error *err);

/* The exit status of `run -n` for the launcher's `status`: as it is once a rank has
 * started; 2 with a message when none did. Removes the marker. */
int is_launcher_finish(is_launcher *launcher, int status);

/* `run -n N ARGS`: starts the launcher on `impactsweep run ARGS` (argv less -n N) and
 * waits for it, passing on stop signals; returns run -n's exit status. */
int is_launcher_run(int argc, char **argv, const char *ranks);

/* Rank 0 of a run started by `run -n`: marks the start (nothing when not so started). */
void is_launcher_mark_started(void);

#endif
