/* launcher.c: `run -n N`'s checks around the MPI launcher (see launcher.h). */
#define _GNU_SOURCE
#include "launcher.h"

#include <errno.h>
#include <fcntl.h>
#include <mpi.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../core/contract/engine.h"

int is_launcher_ranks_valid(const char *text)
{
    if (!text || !*text || strlen(text) > 9)
        return 0;
    for (const char *c = text; *c; c++)
        if (*c < '0' || *c > '9')
            return 0;
    long n = strtol(text, NULL, 10);
    return n >= 1 && n <= IS_LAUNCHER_MAX_RANKS;
}

/* The cores this process may run on. */
static long usable_cores(void)
{
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0)
        return CPU_COUNT(&set);
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? n : 1;
}

/* Is `name` (a command, as execvp looks it up) there to run? */
static int runnable(const char *name)
{
    if (strchr(name, '/'))
        return access(name, X_OK) == 0;
    const char *path = getenv("PATH");
    char *copy = strdup(path && *path ? path : "/usr/bin:/bin"), *save = NULL;
    int found = 0;
    for (char *dir = copy ? strtok_r(copy, ":", &save) : NULL; dir && !found;
         dir = strtok_r(NULL, ":", &save)) {
        char full[PATH_MAX];
        struct stat st;
        snprintf(full, sizeof full, "%s/%s", *dir ? dir : ".", name);
        found = stat(full, &st) == 0 && S_ISREG(st.st_mode) && access(full, X_OK) == 0;
    }
    free(copy);
    return found;
}

static int is_open_mpi_launcher(const char *name)
{
#ifdef OPEN_MPI
    const char *base = strrchr(name, '/') ? strrchr(name, '/') + 1 : name;
    return strcmp(base, "mpirun") == 0 || strcmp(base, "mpiexec") == 0 ||
           strcmp(base, "orterun") == 0;
#else
    (void)name;
    return 0;
#endif
}

/* Where ranks may go was said by someone (a batch allocation, a host list): then the
 * launcher's own count of slots stands. */
static int placement_given(char **words, int count)
{
    static const char *const batch[] = {"SLURM_JOB_ID", "PBS_NODEFILE", "LSB_DJOB_HOSTFILE",
                                        "PE_HOSTFILE", "OMPI_MCA_orte_default_hostfile"};
    for (size_t i = 0; i < sizeof batch / sizeof *batch; i++)
        if (getenv(batch[i]))
            return 1;
    for (int i = 1; i < count; i++)
        if (strstr(words[i], "host") || strstr(words[i], "machinefile") ||
            strcmp(words[i], "-H") == 0 || strstr(words[i], "oversubscribe"))
            return 1;
    return 0;
}

/* Slurm's tasks, where this runs inside an allocation that says how many. */
static is_code check_allocation(long ranks, is_error *err)
{
    const char *tasks = getenv("SLURM_NTASKS");
    if (!getenv("SLURM_JOB_ID") || !tasks || atol(tasks) < 1 || ranks <= atol(tasks))
        return IS_OK;
    return is_error_set(err, IS_USAGE,
                        "run -n %ld: this Slurm allocation (job %s) has %s tasks; ask Slurm for "
                        "more (--ntasks) or run fewer ranks",
                        ranks, getenv("SLURM_JOB_ID"), tasks);
}

static void make_marker(is_launcher *l)
{
    const char *tmp = getenv("TMPDIR");
    snprintf(l->marker, sizeof l->marker, "%s/impactsweep-launch-XXXXXX",
             tmp && *tmp ? tmp : "/tmp");
    int fd = mkstemp(l->marker);
    if (fd < 0) {
        l->marker[0] = '\0'; /* (then a failure cannot be told apart: passed on as it is) */
        return;
    }
    close(fd);
    setenv(IS_LAUNCHER_MARK_VARIABLE, l->marker, 1);
}

is_code is_launcher_prepare(const char *ranks, char **words, int count, int *added,
                            is_launcher *l, is_error *err)
{
    memset(l, 0, sizeof *l);
    *added = 0;
    if (!is_launcher_ranks_valid(ranks))
        return is_error_set(err, IS_USAGE, "-n takes a number of ranks from 1 to %ld, not '%s'",
                            IS_LAUNCHER_MAX_RANKS, ranks ? ranks : "");
    l->ranks = strtol(ranks, NULL, 10);
    if (!runnable(words[0]))
        return is_error_set(err, IS_USAGE,
                            "run -n: the MPI launcher '%s' is not found (install Open MPI's "
                            "mpirun, or name the launcher in IMPACTSWEEP_MPIEXEC)",
                            words[0]);
    is_code rc = check_allocation(l->ranks, err);
    if (rc != IS_OK)
        return rc;
    l->open_mpi = is_open_mpi_launcher(words[0]);
    long cores = usable_cores();
    if (l->open_mpi && !placement_given(words, count)) {
        /* Open MPI counts a slot per core and refuses more ranks than slots */
        words[count + (*added)++] = "--oversubscribe";
        if (l->ranks > cores)
            fprintf(stderr, "impactsweep: %ld ranks on %ld core%s: oversubscribed (the ranks "
                            "share the cores; no faster than %ld ranks)\n",
                    l->ranks, cores, cores == 1 ? "" : "s", cores);
    }
    make_marker(l);
    if (l->open_mpi && l->marker[0]) { /* (Open MPI passes the variable to remote ranks) */
        words[count + (*added)++] = "-x";
        words[count + (*added)++] = IS_LAUNCHER_MARK_VARIABLE;
    }
    return IS_OK;
}

int is_launcher_finish(is_launcher *l, int status)
{
    if (!l->marker[0])
        return status;
    struct stat st;
    int started = stat(l->marker, &st) == 0 && st.st_size > 0;
    unlink(l->marker);
    if (status == 0 || started)
        return status;
    fprintf(stderr, "impactsweep: run -n: the MPI launcher ended with status %d before any rank "
                    "started: nothing was computed (its message is above)\n",
            status);
    return is_code_exit_status(IS_USAGE);
}

void is_launcher_mark_started(void)
{
    const char *path = getenv(IS_LAUNCHER_MARK_VARIABLE);
    int rank = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (!path || !*path || rank != 0)
        return;
    int fd = open(path, O_WRONLY | O_APPEND); /* never created here: only the launcher's */
    if (fd < 0)
        return;
    if (write(fd, "started\n", 8) != 8) {
        /* (a marker not written reads as "nothing started" only if the run fails too) */
    }
    close(fd);
}
