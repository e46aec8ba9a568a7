"""_fitreport: what a fit leaves behind: a JSON report with its provenance (model, data
file and its hash, versions of the engine and the libraries, the command), the data and
the fitted curve with its confidence band (delta method) on a dense grid, so that the
figure (impactplot's, drawn here or by `impactplot REPORT`) needs no engine run."""

import datetime
import json
import os
import platform
import subprocess
import sys
from typing import Optional

import numpy as np
import xarray as xr

from ._command import ImpactsweepError, command
from ._eval import evaluate

BAND_Z = 1.959964        # two-sided 95% of a normal distribution


def engine_version() -> str:
    try:
        proc = subprocess.run([command(), "--version"], capture_output=True, text=True,
                              timeout=30)
        return proc.stdout.strip() or proc.stderr.strip()
    except (OSError, subprocess.SubprocessError) as e:
        return f"unknown ({e})"


def provenance(result) -> dict:
    import scipy
    versions = {"engine": engine_version(), "engine_path": command(),
                "python": platform.python_version(), "numpy": np.__version__,
                "scipy": scipy.__version__, "xarray": xr.__version__}
    try:
        import pandas
        versions["pandas"] = pandas.__version__
    except ImportError:
        pass
    return {"created": datetime.datetime.now(datetime.timezone.utc).isoformat(
                timespec="seconds"),
            "command": result.command_line or " ".join([sys.executable] + sys.argv),
            "data": result.data.source, "versions": versions, "host": platform.node()}


def _numbers(values) -> list:
    """VALUES as a JSON list: numbers, non-finite ones as strings ("nan", "inf")."""
    out = []
    for v in np.asarray(values).reshape(-1).tolist():
        out.append(v if not isinstance(v, float) or np.isfinite(v) else str(v))
    return out


def report_dict(result, with_provenance: bool = True) -> dict:
    """RESULT as the report's document: the result, the data it was fitted to (inputs,
    outputs, sigma), the fitted curve and its band (result.curve, see fit_curve) and, with
    WITH_PROVENANCE, where it all came from; enough to draw the figure without the
    engine (impactplot REPORT)."""
    from impactplot.fits import REPORT_FORMAT
    data = result.data
    doc = {"format": REPORT_FORMAT, "format_version": 1}
    doc.update(result.as_dict())
    doc["data"] = {
        "inputs": {n: _numbers(v) for n, v in data.inputs.items()},
        "outputs": {o: _numbers(data.values[:, i]) for i, o in enumerate(data.outputs)},
        "sigma": {o: _numbers(data.sigma[:, i]) for i, o in enumerate(data.outputs)},
        "sigma_given": data.sigma_given, "rows": data.rows}
    if result.curve is not None:
        doc["curve"] = result.curve
    if with_provenance:
        doc["provenance"] = provenance(result)
    return doc


def write_report(result, path: str) -> None:
    """RESULT and its provenance as JSON at PATH (written whole, then renamed)."""
    doc = report_dict(result)
    tmp = f"{path}.tmp"
    with open(tmp, "w") as f:
        json.dump(doc, f, indent=1, allow_nan=False)
        f.write("\n")
    os.replace(tmp, path)
    result.report = path


def fit_curve(result, x: Optional[str] = None, ranks: Optional[int] = None,
              points: int = 121, rel_step: float = 1e-5) -> dict:
    """The fitted model on POINTS values of input X spanning the data (geometric where
    they span more than a factor 30; default X: the numeric input with the most distinct
    values; other inputs held at their first row's value) and its standard deviation by
    the delta method (predict): one eval batch. The report's `curve` member."""
    inputs = result.data.inputs
    numeric = {n: v for n, v in inputs.items() if np.issubdtype(np.asarray(v).dtype, np.number)}
    if not numeric:
        raise ImpactsweepError("fit: the data have no numeric input column to draw the curve "
                         "against")
    if x is None:
        x = max(numeric, key=lambda n: len(np.unique(numeric[n])))
    elif x not in numeric:
        raise ImpactsweepError(f"fit: x = {x!r} is not a numeric input column of the data "
                         f"(have: {', '.join(numeric)})")
    xs = np.asarray(inputs[x], dtype=float)
    log = xs.min() > 0 and xs.max() / xs.min() > 30
    grid = (np.geomspace(xs.min(), xs.max(), points) if log else
            np.linspace(xs.min(), xs.max(), points))
    held = {n: np.asarray(v)[0].item() for n, v in inputs.items() if n != x}
    curve_inputs = {n: np.full(points, v) for n, v in held.items()}
    curve_inputs[x] = grid
    values, sd = predict(result, ranks=ranks, rel_step=rel_step, **curve_inputs)
    return {"x": x, "xscale": "log" if log else "linear", "grid": _numbers(grid),
            "held": held, "values": {o: _numbers(v) for o, v in values.items()},
            "sd": {o: _numbers(v) for o, v in sd.items()},
            "band_z": BAND_Z, "band_level": 0.95,
            "method": "delta method: var y = g^T cov g, g = dy/dtheta by forward "
                      f"differences of relative step {rel_step:g}"}


def predict(result, ranks: Optional[int] = None, rel_step: float = 1e-5, **inputs):
    """The fitted model's outputs at INPUTS (parameter arrays of one dimension, the same
    length) and their standard deviation from the covariance by the delta method,
    var y = g^T cov g with g = dy/dtheta by forward differences; one eval batch.
    Returns ({output: values}, {output: sd})."""
    names, x = result.names, np.array([result.params[n] for n in result.names])
    lengths = {len(np.atleast_1d(v)) for v in inputs.values()}
    if len(lengths) != 1:
        raise ValueError("predict: give the inputs as arrays of one length")
    rows = lengths.pop()
    h = rel_step * np.maximum(np.abs(x), 1e-3)
    upper = np.array([result.bounds[n][1] for n in names])
    h = np.where(x + h > upper, -h, h)
    thetas = np.vstack([x] + [x + np.eye(len(x))[j] * h[j] for j in range(len(x))])
    params = dict(result.fixed)
    dim = "fit_point"
    for name, values in inputs.items():
        params[name] = xr.DataArray(np.tile(np.atleast_1d(values), len(thetas)), dims=[dim])
    for j, name in enumerate(names):
        params[name] = xr.DataArray(np.repeat(thetas[:, j], rows), dims=[dim])
    ds = evaluate(result.model, params, ranks, "keep", None, True)
    done = np.asarray(ds["status"].values) == "done"
    values, sd = {}, {}
    cov = np.where(np.isfinite(result.cov), result.cov, 0.0)
    for out in result.data.outputs:
        y = np.where(done, np.asarray(ds[out].values, dtype=float), np.nan)
        y = y.reshape(len(thetas), rows)
        g = (y[1:] - y[0]) / h[:, None]
        values[out] = y[0]
        sd[out] = np.sqrt(np.maximum(np.einsum("ir,ij,jr->r", g, cov, g), 0.0))
    return values, sd


def plot_fit(result, output: Optional[str] = None, x: Optional[str] = None, ax=None,
             ranks: Optional[int] = None, points: int = 121, dpi: int = 300):
    """The data (error bars: sigma where given) against input X, the fitted curve on
    POINTS values spanning the data and its 95% confidence band (delta method), and below
    the residuals, one pair of panels per output (on AX: the first output's data and fit
    alone); saved to OUTPUT if given. The curve is RESULT's (computed once, by fit_curve,
    and kept in result.curve and the report); the drawing is impactplot's, the figure
    `impactplot REPORT` makes."""
    import matplotlib
    from impactplot import journal_style
    from impactplot.fits import check_report, draw_fit, figure_height, fit_panel
    from impactplot.style import SIZE_PRESETS
    curve = result.curve
    if curve is None or (x is not None and curve["x"] != x) or len(curve["grid"]) != points:
        result.curve = fit_curve(result, x=x, ranks=ranks, points=points)
    doc = check_report(report_dict(result, with_provenance=False))
    if ax is not None:
        fit_panel(ax, doc, next(iter(doc["data"]["outputs"])))
        if output:
            ax.figure.savefig(output, dpi=dpi)
        return ax.figure
    if output:
        matplotlib.use(os.environ.get("MPLBACKEND", "Agg"))
    import matplotlib.pyplot as plt
    width = SIZE_PRESETS["single"]
    with journal_style():
        fig = plt.figure(figsize=(width, figure_height(doc, width, None)),
                         layout="constrained")
        draw_fit(fig, doc)
        if output:
            fig.savefig(output, dpi=dpi)
            plt.close(fig)
    return fig
