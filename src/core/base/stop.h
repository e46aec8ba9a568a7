/* stop.h: a stop request (signals.h) heard by every rank of a collective phase within a
 * fraction of a second, whichever rank the signal reached: rank 0 alone (a scheduler
 * signalling the batch script's first process), a worker alone, or all of them. For the
 * phases between the start and the computing, each a loop over the grid or the file (the
 * grid's check, building the file, the resume's verification and scan, a merge's copy),
 * which the computing phase's own protocol (sched.h) does not cover.
 *
 *     is_stop *stop = NULL;
 *     is_stop_begin(comm, &stop, err);
 *     for (...; ...; ...) { if (is_stop_poll(stop)) break; ... }   (as often as you like)
 *     rc = is_stop_end(&stop, rc, err);    (IS_INTERRUPTED on every rank if any stopped)
 *
 * A rank that sees its own signal tells rank 0, which tells every rank; polling costs a
 * clock read, and an MPI test every millisecond at most. */
#ifndef IMPACTSWEEP_STOP_H
#define IMPACTSWEEP_STOP_H

#include <mpi.h>

#include "error.h"

typedef struct is_stop is_stop;

/* Collective over comm (MPI_COMM_NULL: this process alone, which polls its own signals). */
is_code is_stop_begin(MPI_Comm comm, is_stop **stop, is_error *err);

/* 1 once this rank knows of a stop (its own signal, or one another rank heard); a NULL
 * stop polls this process's signals alone. Never blocks. */
int is_stop_poll(is_stop *stop);

/* Collective: ends the watch (*stop becomes NULL). If any rank stopped, returns
 * IS_INTERRUPTED on every rank ("stopped by signal N during WHAT"), whatever rc was, unless
 * rc is already another failure, which is kept (a definite answer, such as a bad point
 * found before the stop, wins). Otherwise returns rc. */
is_code is_stop_end(is_stop **stop, is_code rc, const char *what, is_error *err);

#endif
