/* provenance.c: collecting the provenance fields (see provenance.h). */
#include "provenance.h"

#include <H5public.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sundials/sundials_config.h>
#include <time.h>
#include <unistd.h>

#include "version.h"

void is_provenance_now(char *buf, unsigned size)
{
    time_t now = time(NULL);
    struct tm utc;
    gmtime_r(&now, &utc);
    strftime(buf, size, "%Y-%m-%dT%H:%M:%SZ", &utc);
}

static void append_env(char *buf, size_t size, const char *name)
{
    const char *value = getenv(name);
    if (!value || !*value)
        return;
    size_t used = strlen(buf);
    snprintf(buf + used, size - used, "%s%s=%s", used ? " " : "", name, value);
}

void is_provenance_collect(is_provenance *prov, int ranks)
{
    memset(prov, 0, sizeof *prov);
    snprintf(prov->engine_version, sizeof prov->engine_version, "%s", IS_ENGINE_VERSION);
    snprintf(prov->git_commit, sizeof prov->git_commit, "%s", IS_GIT_COMMIT);
    snprintf(prov->build, sizeof prov->build, "%s %s", IS_BUILD_COMPILER, IS_BUILD_FLAGS);
    unsigned major, minor, release;
    H5get_libversion(&major, &minor, &release);
    snprintf(prov->hdf5_version, sizeof prov->hdf5_version, "%u.%u.%u", major, minor, release);
    snprintf(prov->sundials_version, sizeof prov->sundials_version, "%s", SUNDIALS_VERSION);
    snprintf(prov->inih_version, sizeof prov->inih_version, "%s", IS_INIH_VERSION);
    /* one of the few MPI calls allowed before MPI_Init: `version` asks it too */
    char version[MPI_MAX_LIBRARY_VERSION_STRING];
    int length = 0;
    if (MPI_Get_library_version(version, &length) == MPI_SUCCESS) {
        version[strcspn(version, ",\n")] = '\0'; /* first clause: "Open MPI v4.1.4" */
        snprintf(prov->mpi_library, sizeof prov->mpi_library, "%s", version);
    } else {
        snprintf(prov->mpi_library, sizeof prov->mpi_library, "unknown");
    }
    if (gethostname(prov->host, sizeof prov->host - 1) != 0)
        snprintf(prov->host, sizeof prov->host, "unknown");
    static const char *const slurm_vars[] = {"SLURM_JOB_ID", "SLURM_ARRAY_JOB_ID",
                                             "SLURM_ARRAY_TASK_ID", "SLURM_RESTART_COUNT",
                                             "SLURM_JOB_NODELIST"};
    for (size_t i = 0; i < sizeof slurm_vars / sizeof *slurm_vars; i++)
        append_env(prov->slurm, sizeof prov->slurm, slurm_vars[i]);
    is_provenance_now(prov->start_time, sizeof prov->start_time);
    prov->ranks = ranks;
}

#define HOST_SLOT 64

static int by_name(const void *a, const void *b)
{
    return strncmp(a, b, HOST_SLOT);
}

/* "NAME:COUNT ..." of the sorted slots, cut short (with the number of hosts) to fit. */
static void list_hosts(char *out, size_t size, char *names, int count)
{
    qsort(names, (size_t)count, HOST_SLOT, by_name);
    int hosts = 0;
    for (int i = 0; i < count; i++)
        hosts += i == 0 || by_name(names + (size_t)i * HOST_SLOT,
                                   names + (size_t)(i - 1) * HOST_SLOT) != 0;
    size_t used = 0;
    out[0] = '\0';
    for (int i = 0; i < count;) {
        int j = i;
        while (j < count && by_name(names + (size_t)i * HOST_SLOT, names + (size_t)j * HOST_SLOT) == 0)
            j++;
        char item[HOST_SLOT + 24];
        snprintf(item, sizeof item, "%s%.*s:%d", used ? " " : "", HOST_SLOT - 1,
                 names + (size_t)i * HOST_SLOT, j - i);
        if (used + strlen(item) + 32 >= size) {
            snprintf(out + used, size - used, " ... (%d hosts)", hosts);
            return;
        }
        used += (size_t)snprintf(out + used, size - used, "%s", item);
        i = j;
    }
}

void is_provenance_gather_hosts(is_provenance *prov, MPI_Comm comm)
{
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    char mine[HOST_SLOT] = {0};
    memcpy(mine, prov->host, sizeof mine - 1); /* (a longer name is cut) */
    char *all = rank == 0 ? malloc((size_t)size * HOST_SLOT) : NULL;
    int ok = rank != 0 || all != NULL;
    MPI_Bcast(&ok, 1, MPI_INT, 0, comm);
    if (!ok) { /* (then only this rank's host is known) */
        snprintf(prov->hosts, sizeof prov->hosts, "%s:%d", prov->host, size);
        return;
    }
    MPI_Gather(mine, HOST_SLOT, MPI_CHAR, all, HOST_SLOT, MPI_CHAR, 0, comm);
    if (rank == 0)
        list_hosts(prov->hosts, sizeof prov->hosts, all, size);
    free(all);
}
