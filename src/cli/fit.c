/* fit.c: `impactsweep fit FIT.ini` hands the fit to the Python fitter (impactfit, the
 * command line of the module's impactsweep.fit: scipy's least squares, which the engine
 * serves through `impactsweep eval`), so that one command line does both. The fitter is
 * found beside this executable: bin/impactfit in an installation, ../analysis/impactfit.py
 * from a build directory in the source tree; IMPACTFIT names another. */
#include "fit.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* This executable's directory (from /proc/self/exe, else argv0's), into dir. */
static int own_directory(const char *argv0, char *dir, size_t size)
{
    ssize_t n = readlink("/proc/self/exe", dir, size - 1);
    if (n > 0) {
        dir[n] = '\0';
    } else if (!realpath(argv0, dir)) {
        return -1;
    }
    char *slash = strrchr(dir, '/');
    if (!slash)
        return -1;
    *slash = '\0';
    return 0;
}

int is_cli_fit(int argc, char **argv)
{
    if (argc != 2 || argv[1][0] == '-') {
        fprintf(stderr, "impactsweep fit: usage: impactsweep fit FIT.ini\n");
        return 2;
    }
    char dir[PATH_MAX], exe[PATH_MAX], script[PATH_MAX + 32];
    const char *given = getenv("IMPACTFIT");
    if (own_directory(argv[0], dir, sizeof dir) != 0) {
        fprintf(stderr, "impactsweep fit: cannot find this executable's directory\n");
        return 2;
    }
    /* the fitter evaluates with this very engine */
    if (snprintf(exe, sizeof exe, "%s/impactsweep", dir) >= (int)sizeof exe ||
        setenv("IMPACTSWEEP", exe, 1) != 0) {
        fprintf(stderr, "impactsweep fit: path too long\n");
        return 2;
    }
    const char *candidates[] = {"%s/impactfit", "%s/../analysis/impactfit.py"};
    if (given && *given) {
        snprintf(script, sizeof script, "%s", given);
    } else {
        script[0] = '\0';
        for (size_t i = 0; i < sizeof candidates / sizeof *candidates && !script[0]; i++) {
            snprintf(script, sizeof script, candidates[i], dir);
            if (access(script, X_OK) != 0)
                script[0] = '\0';
        }
    }
    if (!script[0]) {
        fprintf(stderr,
                "impactsweep fit: the fitter impactfit is not beside %s (nor "
                "../analysis/impactfit.py): set IMPACTFIT to its path\n",
                dir);
        return 2;
    }
    char *args[] = {script, argv[1], NULL};
    execv(script, args);
    fprintf(stderr, "impactsweep fit: cannot run %s: %s\n", script, strerror(errno));
    return 2;
}
