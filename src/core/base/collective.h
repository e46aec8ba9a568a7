/* collective.h: agreeing on an outcome across the ranks. A phase that every rank takes
 * part in ends with one code for all of them, and every rank holds the message of the
 * failure that decided it, so that whichever rank reports it says the same thing. */
#ifndef IMPACTSWEEP_COLLECTIVE_H
#define IMPACTSWEEP_COLLECTIVE_H

#include <mpi.h>

#include "error.h"

/* Collective over comm (MPI_COMM_NULL: this process alone, rc is returned as is).
 * Returns IS_OK if every rank passed IS_OK; otherwise the code of the lowest-numbered
 * rank that failed, whose err is then copied to every rank's err. */
is_code is_collective_agree(is_code rc, MPI_Comm comm, is_error *err);

/* Collective: the code and message of rank `root` on every rank. */
is_code is_collective_share(is_code rc, int root, MPI_Comm comm, is_error *err);

#endif
