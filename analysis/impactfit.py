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
import runpy
import sys

# impactplot's launcher beside this file (impactplot.py in the source tree, impactplot
# installed) finds the packages for both commands; here it runs the fitter's main.
here = os.path.dirname(os.path.realpath(__file__))
for name in ("impactplot.py", "impactplot"):
    if os.path.isfile(os.path.join(here, name)):
        runpy.run_path(os.path.join(here, name), {"MAIN": "impactsweep._fitini"}, "__main__")
sys.exit(f"impactfit: the launcher impactplot is not beside {here}: the packages cannot be "
         "found")
