/* stop.c: a stop request spread over the ranks of a phase (see stop.h).
 *
 * On a duplicate of the phase's communicator, every rank but 0 keeps a receive posted for
 * rank 0's word (the signal number, or 0 at the end of a phase without a stop), and rank
 * 0 keeps one posted for a rank's report of its own signal. The end is collective: the
 * ranks agree on the signal (a maximum), rank 0 sends its word to whoever has not had it,
 * and drains the reports it has not received yet (their number is summed), so that no
 * message outlives the phase. */
#include "stop.h"

#include <stdlib.h>
#include <time.h>

#include "signals.h"

enum { TAG_UP = 1, TAG_DOWN };
#define POLL_SECONDS 1e-3

struct is_stop {
    MPI_Comm comm; /* MPI_COMM_NULL: a single process */
    int rank, size;
    int signal;      /* the stop this rank knows of, 0 if none */
    int told_up;     /* a worker: reported its own signal to rank 0 */
    int told_down;   /* rank 0: sent every worker its word */
    int up_received; /* rank 0: reports received */
    int up_message, down_message;
    MPI_Request up, down; /* the posted receives (rank 0: up; others: down) */
    MPI_Request report;   /* a worker's report in flight */
    MPI_Request *words;   /* rank 0: its words to the workers in flight */
    double next_test;     /* the clock when MPI is tested next */
};

static double now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

is_code is_stop_begin(MPI_Comm comm, is_stop **out, is_error *err)
{
    *out = NULL;
    is_stop *s = calloc(1, sizeof *s);
    int ok = s != NULL;
    if (comm != MPI_COMM_NULL) { /* agree before anyone posts a message */
        int all = 0;
        MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, comm);
        ok = all;
    }
    if (!ok) {
        free(s);
        return is_error_set(err, IS_NOMEM, "out of memory");
    }
    s->comm = MPI_COMM_NULL;
    s->up = s->down = s->report = MPI_REQUEST_NULL;
    if (comm != MPI_COMM_NULL) {
        MPI_Comm_dup(comm, &s->comm);
        MPI_Comm_rank(s->comm, &s->rank);
        MPI_Comm_size(s->comm, &s->size);
        if (s->rank == 0)
            MPI_Irecv(&s->up_message, 1, MPI_INT, MPI_ANY_SOURCE, TAG_UP, s->comm, &s->up);
        else
            MPI_Irecv(&s->down_message, 1, MPI_INT, 0, TAG_DOWN, s->comm, &s->down);
    }
    *out = s;
    return IS_OK;
}

/* Rank 0: every worker's word, sent without waiting (at most once). */
static void tell_workers(is_stop *s, int word)
{
    if (s->told_down || s->size < 2)
        return;
    s->words = malloc((size_t)s->size * sizeof *s->words);
    s->down_message = word;
    for (int w = 1; w < s->size; w++) {
        if (s->words)
            MPI_Isend(&s->down_message, 1, MPI_INT, w, TAG_DOWN, s->comm, &s->words[w]);
        else /* out of memory: the word still goes */
            MPI_Send(&s->down_message, 1, MPI_INT, w, TAG_DOWN, s->comm);
    }
    s->told_down = 1;
}

static void test_messages(is_stop *s)
{
    int done = 0;
    if (s->rank == 0 && s->up != MPI_REQUEST_NULL) {
        MPI_Test(&s->up, &done, MPI_STATUS_IGNORE);
        if (done) {
            s->up_received++;
            if (!s->signal)
                s->signal = s->up_message;
            if (s->up_received < s->size - 1) /* more may come: listen on */
                MPI_Irecv(&s->up_message, 1, MPI_INT, MPI_ANY_SOURCE, TAG_UP, s->comm, &s->up);
        }
    } else if (s->rank != 0 && s->down != MPI_REQUEST_NULL) {
        MPI_Test(&s->down, &done, MPI_STATUS_IGNORE);
        if (done && s->down_message && !s->signal)
            s->signal = s->down_message;
    }
}

int is_stop_poll(is_stop *s)
{
    if (!s)
        return is_signals_pending() != 0;
    if (!s->signal && is_signals_pending())
        s->signal = is_signals_pending();
    if (s->comm == MPI_COMM_NULL)
        return s->signal != 0;
    double now = now_seconds();
    if (now >= s->next_test) {
        s->next_test = now + POLL_SECONDS;
        test_messages(s);
    }
    if (s->signal && s->rank == 0)
        tell_workers(s, s->signal);
    if (s->signal && s->rank != 0 && !s->told_up &&
        s->down != MPI_REQUEST_NULL) { /* our own signal: rank 0 tells the others */
        s->up_message = s->signal;
        MPI_Isend(&s->up_message, 1, MPI_INT, 0, TAG_UP, s->comm, &s->report);
        s->told_up = 1;
    }
    return s->signal != 0;
}

/* Collective: no message of the watch is left in flight. */
static void drain(is_stop *s, int reports)
{
    if (s->rank == 0) {
        tell_workers(s, s->signal);
        int pending = reports - s->up_received; /* reports not received yet */
        if (s->up != MPI_REQUEST_NULL) {
            if (pending > 0) {
                MPI_Wait(&s->up, MPI_STATUS_IGNORE);
                pending--;
            } else {
                MPI_Cancel(&s->up);
                MPI_Wait(&s->up, MPI_STATUS_IGNORE);
            }
        }
        for (int message; pending > 0; pending--)
            MPI_Recv(&message, 1, MPI_INT, MPI_ANY_SOURCE, TAG_UP, s->comm, MPI_STATUS_IGNORE);
        for (int w = 1; s->words && w < s->size; w++)
            MPI_Wait(&s->words[w], MPI_STATUS_IGNORE);
    } else {
        MPI_Wait(&s->down, MPI_STATUS_IGNORE);
        if (s->told_up)
            MPI_Wait(&s->report, MPI_STATUS_IGNORE);
    }
}

is_code is_stop_end(is_stop **stop, is_code rc, const char *what, is_error *err)
{
    is_stop *s = *stop;
    if (!s)
        return rc;
    is_stop_poll(s);
    int signal = s->signal;
    if (s->comm != MPI_COMM_NULL) {
        int mine[2] = {s->signal, s->told_up}, all[2];
        MPI_Allreduce(&mine[0], &all[0], 1, MPI_INT, MPI_MAX, s->comm);
        MPI_Allreduce(&mine[1], &all[1], 1, MPI_INT, MPI_SUM, s->comm);
        signal = all[0];
        s->signal = signal;
        drain(s, all[1]);
        MPI_Comm_free(&s->comm);
    }
    free(s->words);
    free(s);
    *stop = NULL;
    if (signal && (rc == IS_OK || rc == IS_INTERRUPTED))
        return is_error_set(err, IS_INTERRUPTED, "stopped by signal %d during %s", signal, what);
    return rc;
}
