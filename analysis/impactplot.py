#!/usr/bin/python3
"""impactplot: the figures of impactsweep result and trace files (the command).

    /usr/bin/python3 analysis/impactplot.py FILE [FILE ...] [--output PREFIX]
        [--format png,pdf,svg,eps] [--size single|double|auto|WxH] [--dpi N]
        [--field NAME[,NAME]] [--sel AXIS=VALUE] [--facet AXIS] [--axes X[,Y]]
        [--title [TEXT]] [--footer] [--layout] [--source-path]

The drawing lives in the package impactplot/ beside this file (in the source tree,
analysis/impactplot/; installed, share/impactsweep/python/impactplot/), which is also
the library for notebooks. See `--help` and README "Figures".
"""

import importlib
import os
import sys

# The packages impactplot/ and impactsweep/ beside this file (source tree: analysis/), else
# the installed ones (installed, the line after #! sets INSTALLED_PACKAGE_DIR, relative to
# this file). impactfit runs this launcher too, with MAIN naming its own entry point, so
# that both commands find the packages one way.
here = os.path.dirname(os.path.realpath(__file__))
installed = globals().get("INSTALLED_PACKAGE_DIR", os.path.join("..", "share", "impactsweep",
                                                                 "python"))
for where in (here, os.path.join(here, installed)):
    if os.path.isfile(os.path.join(where, "impactplot", "__init__.py")):
        sys.path.insert(0, os.path.normpath(where))
        break

main = importlib.import_module(globals().get("MAIN", "impactplot.cli")).main

if __name__ == "__main__":
    sys.exit(main())
