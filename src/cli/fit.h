/* fit.h: `impactsweep fit FIT.ini`, parameters fitted to measured data (fit.c). */
#ifndef IMPACTSWEEP_CLI_FIT_H
#define IMPACTSWEEP_CLI_FIT_H

/* argv[0] is "fit". Runs the Python fitter (impactfit) with this executable as its
 * engine; returns only when it could not be started (the exit status, 2). */
int is_cli_fit(int argc, char **argv);

#endif
