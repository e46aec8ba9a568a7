#!/usr/bin/python3
"""impactfit: a model's parameters fitted to measured data, as a FIT.ini describes
(the command line of impactsweep.fit).

    /usr/bin/python3 analysis/impactfit.py FIT.ini

FIT.ini has [fit] (model, data, output, report, figure, ranks, n_starts, seed, diff,
rel_step, max_nfev, x), [free] (name = start, lower, upper) and [fixed] (name = value).
It prints the result, writes the JSON report (and the figure); exit status 0 when the fit
converged, 1 when it did not, 2 for a bad FIT.ini or data file.
"""

import os
import sys

# The module impactsweep beside this file (source tree: analysis/impactsweep/), else the
# installed one (installed, the line after #! sets INSTALLED_PACKAGE_DIR, relative to bin/).
here = os.path.dirname(os.path.realpath(__file__))
installed = globals().get("INSTALLED_PACKAGE_DIR", os.path.join("..", "share", "impactsweep",
                                                                 "python"))
for where in (here, os.path.join(here, installed)):
    if os.path.isfile(os.path.join(where, "impactsweep", "__init__.py")):
        sys.path.insert(0, os.path.normpath(where))
        break

from impactsweep._fitini import main  # noqa: E402

if __name__ == "__main__":
    sys.exit(main())
