/* signals.h: turning SIGINT, SIGTERM, SIGHUP, SIGUSR1 and SIGUSR2 into a polite stop
 * request.
 * A signal handler can reach nothing but globals, so the flag set here is the one piece
 * of process-global mutable state in impactsweep; everything else is passed around. */
#ifndef IMPACTSWEEP_SIGNALS_H
#define IMPACTSWEEP_SIGNALS_H

#include <signal.h>

/* Installs the handlers (a second signal of the same kind restores the default, so a
 * second Ctrl-C kills at once). */
void is_signals_install(void);

/* The number of the first stop signal received, or 0. */
int is_signals_pending(void);

/* The flag itself, for a model's long loops to poll (model.h: workspace_watch). */
const volatile sig_atomic_t *is_signals_flag(void);

/* For tests: behave as if `signo` had arrived. */
void is_signals_raise_for_test(int signo);

#endif
