"""impactsweep from Python: result files as decoded xarray Datasets (eagerly, or lazily
through dask), points evaluated through `impactsweep eval MODEL -` processes and answered
as the Dataset a sweep would store, sweeps run from a notebook, parameters fitted to
measured data (fit: least squares over eval batches), and `.isw` on xarray objects for
categories.

    import impactsweep as isw
    ds = isw.open_dataset("example.h5")        # categories as names, integers as integers
    (ds.regime == "cc").sum()                  # classes compare by name
    ds.regime.isw.plot()                       # impactplot's class colours and a legend
    ds.p_cc.plot()                             # labelled with the short label and unit
    ds.failure_reason.where(ds.status == "failed_crash", drop=True)  # why each failed
    lazy = isw.open_dataset("big.h5", chunks={})                 # dask arrays
    pts = isw.eval("chatter", rho=[0.2, 0.3], gamma=0.1)        # a Dataset over rho
    pts = isw.eval("chatter", rho=R, gamma=G, ranks=2)           # meshgrid arrays, 2 cores
    ds = isw.run("jobs/example.ini", ranks=2, model__n=5)         # --set model.n=5
    r = isw.fit("collision", "e_v0.csv", free={"pi1b": (0.3, 0.01, 5)},
                fixed={"law": "bwshc", "form": "velocity"}, ranks=2)  # least squares

The command is found through the environment variable IMPACTSWEEP (its path), else next
to this package in an installation (bin/impactsweep) or in a source tree (build/), else
on PATH. Errors the command reports (exit status 2: a bad job, a refused point) raise
ImpactsweepError with its message: as strict as the command line.
"""

import os
from typing import Dict, Optional

os.environ.setdefault("HDF5_USE_FILE_LOCKING", "FALSE")

import xarray as xr  # noqa: E402

from . import accessor  # noqa: E402,F401  (registers .isw)
from ._command import ImpactsweepError, command, describe  # noqa: E402
from ._eval import evaluate  # noqa: E402
from ._fit import fit  # noqa: E402
from ._fitreport import plot_fit, predict  # noqa: E402
from ._reading import NOT_COMPUTED, decode, open_dataset  # noqa: E402
from ._run import run  # noqa: E402

__all__ = ["open_dataset", "decode", "eval", "run", "fit", "plot_fit", "predict", "command",
           "describe", "ImpactsweepError", "NOT_COMPUTED"]


def eval(model: str, params: Optional[Dict[str, object]] = None, *,
         ranks: Optional[int] = None, errors: str = "raise", timeout: Optional[float] = None,
         decode_categories: bool = True, **kwparams) -> xr.Dataset:
    """MODEL's outputs at the points the parameters span, as the Dataset a sweep over the
    same points would store and open_dataset would give (variables, dtypes, NaN and -1
    where no value, attributes, coordinates): one variable per output, `status` and
    `failure_reason` (why the engine failed a point, '' where it did not).

    Parameters are keywords (or PARAMS, a dict, for a name that is also one of this
    function's keywords): a scalar; a sequence (an axis named after the parameter: several
    make a grid, as a sweep does); an xarray.DataArray (its own dimensions); a numpy array
    of several dimensions (arrays broadcast by position; an axis along which exactly one
    parameter varies takes its name and values, as numpy.meshgrid's arrays do). Parameters
    not given take the model's defaults; a name the model does not have is refused before
    anything runs.

    RANKS: the points are computed by that many processes (`impactsweep eval MODEL - -n
    RANKS`: blocks of lines dealt in turn, answered in order; default 1). ERRORS: 'raise' (default) raises
    ImpactsweepError naming the first refused point's line and the command line's message;
    'keep' returns them: the refused points have status failed_invalid, no outputs, and
    the variable `error` says why. TIMEOUT: seconds a point of a plug-in may take
    (`eval --timeout`)."""
    given = dict(params or {})
    for name, value in kwparams.items():
        if name in given:
            raise ValueError(f"{name} given twice (as a keyword and in params)")
        given[name] = value
    return evaluate(model, given, ranks, errors, timeout, decode_categories)
