/* signals.c: the stop-request flag behind signals.h. */
#include "signals.h"

#include <signal.h>
#include <string.h>

static volatile sig_atomic_t stop_signal = 0;

static void on_signal(int signo)
{
    if (stop_signal == 0)
        stop_signal = signo;
    signal(signo, SIG_DFL); /* a second one of the same kind acts at once */
}

void is_signals_install(void)
{
    /* SIGHUP too: a closed terminal or a batch system's hang-up is a stop like SIGTERM */
    static const int stops[] = {SIGINT, SIGTERM, SIGHUP, SIGUSR1, SIGUSR2};
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_RESTART;
    for (size_t i = 0; i < sizeof stops / sizeof *stops; i++)
        sigaction(stops[i], &sa, NULL);
}

int is_signals_pending(void)
{
    return stop_signal;
}

const volatile sig_atomic_t *is_signals_flag(void)
{
    return &stop_signal;
}

void is_signals_raise_for_test(int signo)
{
    stop_signal = signo;
}
