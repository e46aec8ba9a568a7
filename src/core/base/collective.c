/* collective.c: agreeing on an outcome across the ranks (see collective.h). */
#include "collective.h"

#include <string.h>

is_code is_collective_share(is_code rc, int root, MPI_Comm comm, is_error *err)
{
    if (comm == MPI_COMM_NULL)
        return rc;
    int rank;
    MPI_Comm_rank(comm, &rank);
    is_error shared;
    if (rank == root) {
        is_error_clear(&shared);
        shared.code = rc;
        if (rc != IS_OK && err)
            memcpy(shared.message, err->message, sizeof shared.message);
    }
    MPI_Bcast(&shared, (int)sizeof shared, MPI_BYTE, root, comm);
    if (err && shared.code != IS_OK)
        *err = shared;
    return shared.code;
}

is_code is_collective_agree(is_code rc, MPI_Comm comm, is_error *err)
{
    if (comm == MPI_COMM_NULL)
        return rc;
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    int mine = rc == IS_OK ? size : rank, first = size;
    MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, comm);
    if (first == size)
        return IS_OK;
    if (rank == first && err)
        err->code = rc;
    return is_collective_share(rc, first, comm, err);
}
