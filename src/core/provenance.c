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
