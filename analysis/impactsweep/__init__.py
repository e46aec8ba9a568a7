"""impactsweep from Python: result files as decoded xarray Datasets, points evaluated
through one `impactsweep eval MODEL -` process, and sweeps run from a notebook.

    import impactsweep as isw
    ds = isw.open_dataset("example.h5")        # categories as names, integers as integers
    ds.regime.sel(rho=0.3, gamma=0.1, method="nearest").item()   # 'cc'
    pts = isw.eval("chatter", rho=[0.2, 0.3], gamma=0.1)        # a Dataset over rho
    ds = isw.run("jobs/example.ini", ranks=2, model__n=5)         # --set model.n=5

The command is found through the environment variable IMPACTSWEEP (its path), else next
to this package in an installation (bin/impactsweep) or in a source tree (build/), else
on PATH. Errors the command reports (exit status 2: a bad job, a refused point) raise
ImpactsweepError with its message.
"""

import json
import os
import shutil
import subprocess
import sys
import tempfile
from typing import Dict, Iterable, List, Optional

os.environ.setdefault("HDF5_USE_FILE_LOCKING", "FALSE")

import numpy as np  # noqa: E402
import xarray as xr  # noqa: E402

__all__ = ["open_dataset", "decode", "eval", "run", "command", "ImpactsweepError"]

NOT_COMPUTED = ""  # the name a category takes where its point has no value


class ImpactsweepError(RuntimeError):
    """impactsweep refused or failed; the message is its own."""


# ----------------------------------------------------------------------------- the command


def command() -> str:
    """The impactsweep executable this module runs."""
    given = os.environ.get("IMPACTSWEEP")
    if given:
        return given
    here = os.path.dirname(os.path.abspath(__file__))
    for candidate in (os.path.join(here, "..", "..", "..", "..", "bin", "impactsweep"),
                      os.path.join(here, "..", "..", "build", "impactsweep")):
        if os.access(candidate, os.X_OK):
            return os.path.normpath(candidate)
    found = shutil.which("impactsweep")
    if found:
        return found
    raise ImpactsweepError("impactsweep not found: set IMPACTSWEEP to its path or put it "
                           "on PATH")


# ----------------------------------------------------------------------------- reading


def _categories(da: xr.DataArray) -> Optional[Dict[int, str]]:
    meanings = da.attrs.get("flag_meanings")
    values = da.attrs.get("flag_values")
    if meanings is None or values is None:
        return None
    names = str(meanings).split()
    codes = np.atleast_1d(np.asarray(values)).astype(np.int64).tolist()
    return dict(zip(codes, names)) if len(codes) == len(names) else None


def _decode_category(da: xr.DataArray, names: Dict[int, str]) -> xr.DataArray:
    codes = da.values
    width = max((len(n) for n in names.values()), default=1)
    out = np.full(codes.shape, NOT_COMPUTED, dtype=f"<U{width}")
    known = np.isfinite(codes) if codes.dtype.kind == "f" else np.ones(codes.shape, bool)
    for code, name in names.items():
        out[known & (codes == code)] = name
    attrs = dict(da.attrs)  # flag_values and flag_meanings still say which code is which
    attrs["categories"] = " ".join(names[c] for c in sorted(names))
    return xr.DataArray(out, dims=da.dims, coords=da.coords, attrs=attrs, name=da.name)


def _restore_integer(da: xr.DataArray) -> xr.DataArray:
    """An integer output read back as float (NaN where not computed): integers again, with
    the file's own fill value (-1) where the point has no value."""
    dtype = np.dtype(da.encoding["dtype"])
    fill = da.encoding.get("_FillValue", -1)
    values = np.where(np.isnan(da.values), fill, da.values).astype(dtype)
    out = xr.DataArray(values, dims=da.dims, coords=da.coords, attrs=dict(da.attrs),
                       name=da.name)
    out.attrs["missing_value"] = dtype.type(fill)
    return out


def decode(ds: xr.Dataset) -> xr.Dataset:
    """DS (a result file's Dataset, or a selection of it) with every categorical variable
    (flag_values and flag_meanings: the regimes, status) as the names of its categories
    ('' where not computed; the names in its `categories` attribute) and every integer
    output as integers (its fill value, -1, where not computed)."""
    out = ds.copy()
    for name, da in ds.data_vars.items():
        names = _categories(da)
        if names is not None:
            out[name] = _decode_category(da, names)
        elif da.dtype.kind == "f" and np.dtype(da.encoding.get("dtype", da.dtype)).kind in "iu":
            out[name] = _restore_integer(da)
    return out


def open_dataset(path: str, decode_categories: bool = True) -> xr.Dataset:
    """The result file PATH as an xarray Dataset (loaded, the file closed again), decoded as
    `decode` says unless decode_categories is False (then as xarray reads it)."""
    if not os.path.exists(path):
        raise ImpactsweepError(f"{path}: no such file")
    with xr.open_dataset(path, engine="h5netcdf") as ds:
        ds = ds.load()
    return decode(ds) if decode_categories else ds


# ----------------------------------------------------------------------------- eval


def _as_array(name: str, value) -> xr.DataArray:
    """A parameter's values: a DataArray keeps its dimensions; a sequence becomes an axis
    named after the parameter (so that several sequences make a grid, as a sweep does); a
    scalar stays a scalar."""
    if isinstance(value, xr.DataArray):
        return value
    values = np.asarray(value)
    if values.ndim == 0:
        return xr.DataArray(values)
    if values.ndim != 1:
        raise ValueError(f"{name}: give a scalar, a sequence or an xarray.DataArray")
    return xr.DataArray(values, dims=[name], coords={name: values})


def _word(name: str, value) -> str:
    if isinstance(value, (str, np.str_)):
        return f"{name}={value}"
    return f"{name}={float(value)!r}"


def _points(params: Dict[str, xr.DataArray]) -> (List[str], xr.DataArray):
    """The input lines of the points PARAMS span, in C order over the dimensions of the
    template returned (a DataArray whose dims and coordinates the result takes)."""
    names = list(params)
    broadcast = xr.broadcast(*params.values()) if names else [xr.DataArray(0.0)]
    template = broadcast[0]
    dims = list(template.dims)
    flat = {n: np.atleast_1d(b.transpose(*dims).values).ravel()
            for n, b in zip(names, broadcast)}
    lines = [" ".join(_word(n, flat[n][i]) for n in names) for i in range(template.size)]
    return lines, template


def _answers_to_dataset(answers: List[dict], template: xr.DataArray) -> xr.Dataset:
    dims = list(template.dims)
    shape = template.shape
    outputs = list(answers[0]["outputs"]) if answers else []
    data = {}
    for name in outputs:
        column = [a["outputs"][name] for a in answers]
        if any(isinstance(v, str) for v in column):
            values = np.array([v if isinstance(v, str) else NOT_COMPUTED for v in column])
        elif all(v is None or isinstance(v, int) for v in column):  # an integer output
            values = np.array([-1 if v is None else v for v in column], dtype=np.int64)
        else:
            values = np.array([np.nan if v is None else v for v in column], dtype=float)
        data[name] = (dims, values.reshape(shape))
    data["status"] = (dims, np.array([a["status"].lower() for a in answers]).reshape(shape))
    ds = xr.Dataset(data, coords=template.coords)
    ds.attrs["model"] = answers[0]["model"] if answers else ""
    for p, v in (answers[0]["parameters"] if answers else {}).items():
        if all(a["parameters"][p] == v for a in answers):
            ds.attrs[f"parameter_{p}"] = v
    return ds


def eval(model: str, **params) -> xr.Dataset:
    """MODEL's outputs at the points PARAMS spans, from one `impactsweep eval MODEL -`
    process: a Dataset with one variable per output (categories as names) and `status`
    ('done', or why not), over the dimensions of the parameters given as sequences
    (an axis each, named after its parameter) or DataArrays (their own dimensions).
    Parameters not given take the model's defaults. Raises ImpactsweepError naming the
    first refused point."""
    arrays = {name: _as_array(name, value) for name, value in params.items()}
    lines, grid = _points(arrays)
    proc = subprocess.run([command(), "eval", model, "-"], input="\n".join(lines) + "\n",
                          capture_output=True, text=True)
    answers = [json.loads(line) for line in proc.stdout.splitlines() if line.strip()]
    refused = [a for a in answers if "error" in a]
    if refused or (proc.returncode not in (0, 1) and not answers):
        first = refused[0] if refused else None
        where = f"point {first['line']} ({lines[first['line'] - 1]}): " if first else ""
        message = first["error"] if first else proc.stderr.strip()
        raise ImpactsweepError(f"eval {model}: {where}{message}")
    if len(answers) != len(lines):
        raise ImpactsweepError(f"eval {model}: {len(answers)} answers for {len(lines)} "
                               f"points (exit status {proc.returncode}): {proc.stderr.strip()}")
    return _answers_to_dataset(answers, grid)


# ----------------------------------------------------------------------------- run


def _set_arguments(overrides: Dict[str, object]) -> List[str]:
    args = []
    for key, value in overrides.items():
        key = key.replace("__", ".")
        if "." not in key:
            raise ValueError(f"{key}: name an override section__key (model__n=5) or pass "
                             "set={'model.n': 5}")
        if isinstance(value, (list, tuple, np.ndarray)):
            value = ", ".join(str(v) for v in value)
        args += ["--set", f"{key}={value}"]
    return args


def run(job: str, ranks: int = 1, output: Optional[str] = None, progress: bool = True,
        set: Optional[Dict[str, object]] = None, extra: Iterable[str] = (),
        **overrides) -> xr.Dataset:
    """Runs the sweep of the job file JOB on RANKS ranks (`impactsweep run -n RANKS`) into
    OUTPUT (default: a new file in a temporary directory), printing its progress, and
    returns the result as open_dataset gives it. Overrides: set={'model.n': 5} or
    model__n=5 (section__key), as `--set`; EXTRA: more options of `impactsweep run`
    (for example ['--resume']). Raises ImpactsweepError when the run does not complete."""
    if output is None:
        output = os.path.join(tempfile.mkdtemp(prefix="impactsweep-"), "result.h5")
    args = [command(), "run", job, "--output", output]
    if ranks != 1:
        args += ["-n", str(int(ranks))]
    args += _set_arguments(dict(set or {}, **overrides)) + list(extra)
    if progress:
        args += ["--progress", "lines"]
    proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    tail = []
    for line in proc.stdout:
        tail = (tail + [line.rstrip()])[-20:]
        if progress:
            print(line, end="", file=sys.stderr, flush=True)
    status = proc.wait()
    if status != 0:
        raise ImpactsweepError(f"run {job}: exit status {status}\n" + "\n".join(tail))
    return open_dataset(output)
