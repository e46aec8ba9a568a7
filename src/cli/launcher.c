/* launcher.c: `run -n N`: its checks around the MPI launcher, the launcher started, and
 * the stop signals passed on to it (see launcher.h). */
#define _GNU_SOURCE
#include "launcher.h"

#include <errno.h>
#include <fcntl.h>
#include <mpi.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
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

is_code is_launcher_prepare(const char *ranks, char **words, int count, int *added, is_launcher *l,
                            is_error *err)
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
            fprintf(stderr,
                    "impactsweep: %ld ranks on %ld core%s: oversubscribed (the ranks "
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
    fprintf(stderr,
            "impactsweep: run -n: the MPI launcher ended with status %d before any rank "
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

/* `run -n N`: runs `mpirun -n N impactsweep run ...` as a child in its own process group
 * and turns SIGINT, SIGTERM and SIGHUP into SIGUSR1 for it (which mpirun passes to every
 * rank: a polite stop, exit 75), where mpirun itself would abort the ranks and exit 1. A
 * second such signal is not passed on (the ranks are stopping already; a second SIGUSR1
 * would kill them, and Open MPI's mpirun can crash on a SIGTERM while its ranks stop); a
 * third kills mpirun's process group at once (SIGKILL; exit status 128 + the signal, 130
 * for ^C; the file stays resumable, as after any kill). */
static volatile sig_atomic_t launcher_signals = 0, launcher_last_signal = 0;

static void launcher_on_signal(int signo)
{
    launcher_last_signal = signo;
    launcher_signals++;
}

/* Acts on the launcher's signals not acted on yet; returns 128 + signal once it has
 * killed the run, else 0. */
static int launcher_forward(pid_t child, int *forwarded)
{
    while (*forwarded < launcher_signals) {
        int n = ++*forwarded;
        if (n == 1) {
            kill(child, SIGUSR1);
        } else if (n == 2) {
            static const char note[] = "impactsweep: stopping: every rank ends its batch and "
                                       "writes what it holds; a third signal kills the run "
                                       "at once\n";
            if (write(STDERR_FILENO, note, sizeof note - 1) < 0) {
                /* nothing to do: stderr is gone */
            }
        } else {
            kill(-child, SIGKILL); /* mpirun's process group: mpirun and its ranks */
            kill(child, SIGKILL);
            return 128 + launcher_last_signal;
        }
    }
    return 0;
}

/* Waits for the launcher, forwarding stop signals (launcher_forward); its exit status as
 * `run -n`'s (is_launcher_finish: 2 when it ended before any rank started). */
static int wait_launcher(pid_t child, is_launcher *launcher)
{
    int forwarded = 0, status = 0, killed = 0;
    for (;;) { /* polled: a signal between a check and a blocking wait is never lost */
        int code = launcher_forward(child, &forwarded);
        killed = killed ? killed : code;
        pid_t got = waitpid(child, &status, WNOHANG);
        if (got == child)
            break;
        if (got < 0 && errno != EINTR)
            return is_launcher_finish(launcher, 1);
        struct timespec pause = {0, 20000000};
        nanosleep(&pause, NULL);
    }
    if (killed) { /* killed on the user's third signal: that, whether a rank started or not */
        is_launcher_finish(launcher, 0); /* (removes the start marker) */
        return killed;
    }
    return is_launcher_finish(launcher,
                              WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status));
}

int is_launcher_run(int argc, char **argv, const char *ranks)
{
    /* the launcher command: IMPACTSWEEP_MPIEXEC, words split at blanks (default mpirun) */
    const char *command = getenv("IMPACTSWEEP_MPIEXEC");
    char *words = strdup(command && *command ? command : "mpirun");
    char **args = calloc((size_t)argc + 8 + IS_LAUNCHER_EXTRA_ARGS + (words ? strlen(words) : 0),
                         sizeof *args);
    char self[4096];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (!words || !args || n <= 0) {
        free(words);
        free(args);
        fprintf(stderr, "impactsweep: cannot start the MPI launcher\n");
        return 1;
    }
    self[n] = '\0';
    int k = 0;
    for (char *save = NULL, *w = strtok_r(words, " \t", &save); w; w = strtok_r(NULL, " \t", &save))
        args[k++] = w;
    const char *mpiexec = args[0];
    is_launcher launcher;
    is_error err;
    int added = 0;
    if (is_launcher_prepare(ranks, args, k, &added, &launcher, &err) != IS_OK) {
        free(words);
        free(args);
        fprintf(stderr, "impactsweep: %s\n", err.message);
        return is_code_exit_status(err.code);
    }
    k += added;
    args[k++] = "-n";
    args[k++] = (char *)ranks;
    args[k++] = self;
    args[k++] = "run";
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "-n") == 0 || strcmp(argv[i], "--ranks") == 0) {
            i++;
            continue;
        }
        args[k++] = argv[i];
    }
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = launcher_on_signal;
    sigemptyset(&sa.sa_mask);
    for (int s = 0, stops[] = {SIGINT, SIGTERM, SIGHUP, SIGUSR1, SIGUSR2}; s < 5; s++)
        sigaction(stops[s], &sa, NULL);
    pid_t child = fork();
    if (child == 0) {
        setpgid(0, 0); /* the terminal's ^C reaches us, not mpirun */
        int null = open("/dev/null", O_RDONLY);
        if (null >= 0)
            dup2(null, 0); /* mpirun in a background group must not read the terminal */
        execvp(mpiexec, args);
        fprintf(stderr, "impactsweep: cannot run %s: %s\n", mpiexec, strerror(errno));
        _exit(127);
    }
    if (child < 0)
        fprintf(stderr, "impactsweep: cannot start %s: %s\n", mpiexec, strerror(errno));
    free(args);
    free(words);
    if (child < 0)
        return is_launcher_finish(&launcher, 127);
    return wait_launcher(child, &launcher);
}
