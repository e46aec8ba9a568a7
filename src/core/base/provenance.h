/* provenance.h: what a result file records about how it was made: engine version and
 * git commit, library versions, host, rank count, batch-system job, times. */
#ifndef IMPACTSWEEP_PROVENANCE_H
#define IMPACTSWEEP_PROVENANCE_H

#include <mpi.h>

#define IS_PROVENANCE_TEXT 256

typedef struct is_provenance {
    char engine_version[64];
    char git_commit[64];
    char build[IS_PROVENANCE_TEXT];      /* compiler and flags */
    char hdf5_version[32];
    char mpi_library[IS_PROVENANCE_TEXT];
    char sundials_version[32];
    char inih_version[32];
    char host[128];
    char hosts[1024];                    /* every rank's host: "NAME:RANKS ..." (sorted) */
    char slurm[IS_PROVENANCE_TEXT];      /* SLURM_JOB_ID etc., empty outside Slurm */
    char start_time[32];                 /* ISO 8601, UTC */
    int ranks;
} is_provenance;

/* Fills every field; calls MPI_Get_library_version only if MPI is initialised. */
void is_provenance_collect(is_provenance *prov, int ranks);

/* Collective over comm: prov->hosts from every rank's host name, each named once with
 * its count of ranks ("isnode1:2 isnode2:2"; cut short with "... (N hosts)" where long).
 * Rank 0 briefly holds 64 bytes a rank. */
void is_provenance_gather_hosts(is_provenance *prov, MPI_Comm comm);

/* The current UTC time as ISO 8601 ("2026-12-01T21:26:26Z"). */
void is_provenance_now(char *buf, unsigned size);

#endif
