"""fits: the figure of a fit report (the JSON that `impactsweep fit` and impactsweep.fit
write): the measured data with their error bars, the fitted curve and its confidence band,
and below each output the residuals against the band. Everything drawn is read from the
report (the data, the curve on a dense grid and its standard deviation), so the figure
needs no engine run and always shows what the report says."""

import json
import os
from typing import Dict, List, Optional

import numpy as np

from .drawing import Drawn
from .reading import BadInput

REPORT_FORMAT = "impactsweep-fit-report"

# The members the figure reads: a report without one is refused, naming it.
REQUIRED = ("model", "free", "params", "stderr", "fitted", "data.inputs", "data.outputs",
            "data.sigma", "data.sigma_given", "curve.x", "curve.grid", "curve.values",
            "curve.sd", "curve.band_z", "curve.band_level")


def looks_like_report(path: str) -> bool:
    """Whether PATH is a JSON document (its first character `{`): a fit report to
    open_report, which says what is wrong with it if it is not one."""
    try:
        with open(path, "rb") as f:
            return f.read(64).lstrip()[:1] == b"{"
    except OSError:
        return False


def _member(doc: dict, dotted: str):
    """DOC's member DOTTED (a.b), or KeyError naming the first part missing."""
    value, parts = doc, dotted.split(".")
    for i, part in enumerate(parts):
        if not isinstance(value, dict) or part not in value:
            raise KeyError(".".join(parts[:i + 1]))
        value = value[part]
    return value


def check_report(doc, path: str = "report") -> dict:
    """DOC if it is a fit report the figure can be drawn from, else BadInput naming the
    member that is missing or inconsistent."""
    if not isinstance(doc, dict) or doc.get("format") != REPORT_FORMAT:
        raise BadInput(f"{path}: JSON, but not an impactsweep fit report (no member "
                       f"format = {REPORT_FORMAT!r})")
    for name in REQUIRED:
        try:
            _member(doc, name)
        except KeyError as e:
            raise BadInput(f"{path}: fit report without member {e.args[0]!r}: cannot draw the "
                           "fit (a report of an older impactsweep fit? run the fit "
                           "again)") from None
    data, curve = doc["data"], doc["curve"]
    for name in doc["free"]:
        for table in ("params", "stderr"):
            if name not in doc[table]:
                raise BadInput(f"{path}: fit report without member {table}.{name}")
    if curve["x"] not in data["inputs"]:
        raise BadInput(f"{path}: curve.x {curve['x']!r} is not one of the data's inputs "
                       f"({', '.join(data['inputs']) or 'none'})")
    rows = len(data["inputs"][curve["x"]])
    points = len(curve["grid"])
    for out in data["outputs"]:
        for where, table, length in (("data.outputs", data["outputs"], rows),
                                     ("data.sigma", data["sigma"], rows),
                                     ("fitted", doc["fitted"], rows),
                                     ("curve.values", curve["values"], points),
                                     ("curve.sd", curve["sd"], points)):
            if out not in table:
                raise BadInput(f"{path}: fit report without member {where}.{out}")
            if len(table[out]) != length:
                raise BadInput(f"{path}: {where}.{out} has {len(table[out])} values, not "
                               f"{length}")
    if not data["outputs"]:
        raise BadInput(f"{path}: the fit report's data.outputs is empty: nothing to draw")
    return doc


def open_report(path: str) -> dict:
    """The fit report at PATH, checked (BadInput says why it cannot be drawn)."""
    try:
        with open(path, encoding="utf-8") as f:
            doc = json.load(f)
    except OSError as e:
        raise BadInput(f"{path}: cannot read it: {e.strerror}") from None
    except ValueError as e:
        raise BadInput(f"{path}: not an impactsweep result file nor a fit report (not "
                       f"valid JSON: {e})") from None
    return check_report(doc, path)


def _floats(values) -> np.ndarray:
    """A JSON list of numbers (non-finite ones written as strings) as floats."""
    return np.array([float(v) for v in values], dtype=float)


def fit_panel(ax, doc: dict, out: str, lower=None) -> Drawn:
    """Output OUT of fit report DOC on AX: the data with error bars (sigma where the data
    gave it), the fitted curve and its band, and the parameters; on LOWER (if given) the
    residuals data - fit with the band around zero."""
    data, curve = doc["data"], doc["curve"]
    x = curve["x"]
    xs = _floats(data["inputs"][x])
    grid = _floats(curve["grid"])
    y = _floats(curve["values"][out])
    band = float(curve["band_z"]) * _floats(curve["sd"][out])
    measured = _floats(data["outputs"][out])
    yerr = _floats(data["sigma"][out]) if data["sigma_given"] else None
    level = f"{100 * float(curve['band_level']):g}% confidence band"
    fill = ax.fill_between(grid, y - band, y + band, color="C0", alpha=0.25, lw=0,
                           label=level)
    line, = ax.plot(grid, y, color="C0", lw=1.5, label="fit")
    line._impactplot_record = True       # its points go into --layout's record
    bars = ax.errorbar(xs, measured, yerr=yerr, fmt="o", ms=3.0, color="k", ecolor="0.4",
                       capsize=1.5, lw=0.7, label="data")
    log = curve.get("xscale") == "log"
    if log:
        ax.set_xscale("log")
    ax.set_ylabel(out)
    text = "\n".join(f"{n} = {float(doc['params'][n]):.4g} ± {float(doc['stderr'][n]):.2g}"
                     for n in doc["free"])
    ax.text(0.98, 0.97, text, transform=ax.transAxes, ha="right", va="top", fontsize=6.5,
            bbox={"fc": "white", "ec": "0.7", "alpha": 0.8})
    ax.legend(loc="lower left", fontsize=6.5, frameon=False)
    drawn = Drawn(ax, out, "fit", [x], artists=[fill, line, bars])
    if lower is None:
        ax.set_xlabel(x)
        return drawn
    lower.fill_between(grid, -band, band, color="C0", alpha=0.25, lw=0)
    lower.axhline(0.0, color="C0", lw=1.0)
    lower.errorbar(xs, measured - _floats(doc["fitted"][out]), yerr=yerr, fmt="o", ms=2.5,
                   color="k", ecolor="0.4", capsize=1.5, lw=0.7)
    if log:
        lower.set_xscale("log")
    lower.set_ylabel(f"{out} − fit")
    lower.set_xlabel(x)
    return drawn


def draw_fit(fig, doc: dict) -> List[Drawn]:
    """The whole figure of fit report DOC on FIG: per output a panel of the data and fit
    and below it one of data - fit (where a band a few thousandths wide is visible)."""
    outs = list(doc["data"]["outputs"])
    axes = np.atleast_1d(fig.subplots(2 * len(outs), 1, sharex=True,
                                      gridspec_kw={"height_ratios": [3, 1.3] * len(outs)}))
    drawn = [fit_panel(axes[2 * i], doc, out, axes[2 * i + 1]) for i, out in enumerate(outs)]
    for ax in axes[:-1]:
        ax.set_xlabel("")
    axes[0].set_title(f"{doc['model']}: fit of {', '.join(doc['free'])}")
    return drawn


def report_provenance(doc: dict, path: str, full_paths: bool = False) -> Dict[str, str]:
    """The provenance written into the figure's metadata (impactplot's keys)."""
    prov = doc.get("provenance", {}) if isinstance(doc.get("provenance"), dict) else {}
    versions = prov.get("versions", {}) if isinstance(prov.get("versions"), dict) else {}
    data = prov.get("data", {}) if isinstance(prov.get("data"), dict) else {}
    return {
        "model": str(doc["model"]),
        "title": f"fit of {', '.join(doc['free'])}",
        "job_fingerprint": str(data.get("sha256", ""))[:16],
        "git_commit": "",
        "engine_version": str(versions.get("engine", "")),
        "source_file": os.path.abspath(path) if full_paths else os.path.basename(path),
        "run_state": "complete" if doc.get("success") else "not converged",
        "points": f"{len(doc['data']['inputs'][doc['curve']['x']])} rows, chi-square "
                  f"{doc.get('chisqr', 'unknown')}",
    }


def figure_height(doc: dict, width: float, height: Optional[float]) -> float:
    """The figure's height: HEIGHT if given, else in proportion to its outputs."""
    return height or min(9.5, 1.05 * width * len(doc["data"]["outputs"]) + 0.3)
