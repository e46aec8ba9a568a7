"""_fitreport: what a fit leaves behind: a JSON report with its provenance (model, data
file and its hash, versions of the engine and the libraries, the command), and a figure of
the data with error bars, the fitted curve and its confidence band (delta method)."""

import datetime
import json
import os
import platform
import subprocess
import sys
from typing import Optional

import numpy as np
import xarray as xr

from ._command import command
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


def write_report(result, path: str) -> None:
    """RESULT and its provenance as JSON at PATH (written whole, then renamed)."""
    doc = result.as_dict()
    doc["data_columns"] = {"inputs": list(result.data.inputs), "outputs": result.data.outputs,
                           "sigma_given": result.data.sigma_given}
    doc["provenance"] = provenance(result)
    tmp = f"{path}.tmp"
    with open(tmp, "w") as f:
        json.dump(doc, f, indent=1)
        f.write("\n")
    os.replace(tmp, path)
    result.report = path


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
             ranks: Optional[int] = None, points: int = 121, dpi: int = 150):
    """The data (error bars: sigma where given) against input X (default: the input that
    varies most), the fitted curve on POINTS values spanning the data and its 95%
    confidence band from the covariance (delta method), one panel per output; saved to
    OUTPUT if given. Other inputs, if any, are held at their first row's value."""
    import matplotlib
    if output and not ax:
        matplotlib.use(os.environ.get("MPLBACKEND", "Agg"))
    import matplotlib.pyplot as plt

    inputs = result.data.inputs
    if not inputs:
        raise ValueError("plot_fit: the data have no input column to draw against")
    numeric = {n: v for n, v in inputs.items() if np.issubdtype(np.asarray(v).dtype, np.number)}
    if x is None:
        x = max(numeric, key=lambda n: len(np.unique(numeric[n])))
    xs = np.asarray(inputs[x], dtype=float)
    log = xs.min() > 0 and xs.max() / xs.min() > 30
    grid = (np.geomspace(xs.min(), xs.max(), points) if log else
            np.linspace(xs.min(), xs.max(), points))
    curve_inputs = {n: np.full(points, np.asarray(v)[0]) for n, v in inputs.items() if n != x}
    curve_inputs[x] = grid
    values, sd = predict(result, ranks=ranks, **curve_inputs)
    outs = result.data.outputs
    own = ax is None
    if own:
        # per output a panel of the data and fit, and below it one of data - fit, where a
        # band a few thousandths wide is visible
        fig, grid_axes = plt.subplots(2 * len(outs), 1, sharex=True, squeeze=False,
                                      figsize=(5.5, 4.4 * len(outs)),
                                      gridspec_kw={"height_ratios": [3, 1.3] * len(outs)})
        axes, lower_axes = grid_axes[0::2, 0], grid_axes[1::2, 0]
    else:
        axes, lower_axes, fig = [ax], [None], ax.figure
    for i, (out, a, r) in enumerate(zip(outs, axes, lower_axes)):
        y = values[out]
        band = BAND_Z * sd[out]
        a.fill_between(grid, y - band, y + band, color="C0", alpha=0.25, lw=0,
                       label="95% confidence band")
        a.plot(grid, y, color="C0", lw=1.5, label="fit")
        yerr = result.data.sigma[:, i] if result.data.sigma_given else None
        a.errorbar(xs, result.data.values[:, i], yerr=yerr, fmt="o", ms=3.5, color="k",
                   ecolor="0.4", capsize=2, lw=0.8, label="data")
        if log:
            a.set_xscale("log")
        a.set_ylabel(out)
        text = "\n".join(f"{n} = {result.params[n]:.4g} ± {result.stderr[n]:.2g}"
                         for n in result.names)
        a.text(0.98, 0.97, text, transform=a.transAxes, ha="right", va="top", fontsize=8,
               bbox={"fc": "white", "ec": "0.7", "alpha": 0.8})
        a.legend(loc="lower left", fontsize=8, frameon=False)
        if r is None:
            a.set_xlabel(x)
            continue
        r.fill_between(grid, -band, band, color="C0", alpha=0.25, lw=0)
        r.axhline(0.0, color="C0", lw=1.0)
        r.errorbar(xs, result.data.values[:, i] - result.fitted[:, i], yerr=yerr, fmt="o",
                   ms=3, color="k", ecolor="0.4", capsize=2, lw=0.8)
        r.set_ylabel(f"{out} − fit")
        r.set_xlabel(x)
    axes[0].set_title(f"{result.model}: fit of {', '.join(result.names)}", fontsize=10)
    if own:
        fig.tight_layout()
    if output:
        fig.savefig(output, dpi=dpi)
        if own:
            plt.close(fig)
    return fig
