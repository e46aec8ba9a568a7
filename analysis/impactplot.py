#!/usr/bin/python3
"""impactplot: the published figures of an impactsweep result file.

    /usr/bin/python3 analysis/impactplot.py FILE [--output PREFIX] [--format png,pdf]
                                                 [--field NAME[,NAME...]] [--dpi N] [--layout]

Reads any impactsweep result file (complete, interrupted or still running) and draws what
fits its model, one figure per kind, written as PREFIX_KIND.png / PREFIX_KIND.pdf (PREFIX
defaults to FILE without its .h5 suffix); the paths written are printed on stdout.

    chatter          regime     ICC / CC / PCC map (the `regime` categorical, else the
                                largest of p_icc / p_cc / p_pcc) with the level curves of
                                impacts_mean at 10, 25, 50, 100, 200, ... (paper Fig. 7)
                     impacts    impacts_mean as colour with the same level curves
                     fractions  p_icc, p_cc, p_pcc side by side
                     cone       the `cone` categorical, if the file has one (paper Fig. 6)
    collision        cor        CoR e: filled contours over two axes, e(axis) on one
                     cor_v0     e(v0), one curve per value of the other axis (v0 an axis)
                     outcome    how each collision ended (two axes)
    stop-oscillator  regime     long-run regime map
                     zeno       Zeno region (zeno_resets > 0) with rebounds as contours

Any other output can be drawn with --field NAME (a categorical map or a colour map).
With one axis the maps become lines (categoricals a coloured strip); with three or more
axes the figures are 2-D slices at the first index of the extra axes (said on stderr and
in the figure). Points not yet computed (status 0) are drawn light grey ("not computed"),
failed points (status >= 2) crimson ("failed"); the class colours are the fixed table
CLASS_COLOURS below, so that tests and readers can rely on them.

Provenance (model, job fingerprint, git commit, engine version, source file, title) goes
into the PNG text chunks, the PDF Info dictionary (Title, Subject, Keywords, Creator) and
a footer line. --layout also writes PREFIX_KIND.json: the figure size, each panel's pixel
box (origin top left) and data limits, the class colours and the contour levels.

A trace file of `impactsweep trace` (attribute impactsweep_trace) gets its own figures:
collision `loop` (force against indentation) and `history` (x, v, F against t); chatter
`impacts` (height and kinetic energy against the impact number, by vertex hit);
stop-oscillator `phase` (x1-v1 and x2-v2, rebounds marked) and `energy` (against t);
--field picks these or any channel.

A file that is not an impactsweep result file is refused with exit status 2.
"""

import argparse
import itertools
import json
import math
import os
import re
import sys
import dataclasses
from dataclasses import dataclass, field
from typing import Callable, Dict, List, Optional, Sequence, Tuple

# Read files that a running sweep holds open (HDF5's file locks would refuse them); the
# engine writes raw data only while computing, so a reader sees a consistent structure.
os.environ.setdefault("HDF5_USE_FILE_LOCKING", "FALSE")

import h5py  # noqa: E402
import matplotlib  # noqa: E402

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import xarray as xr  # noqa: E402
from matplotlib.colors import BoundaryNorm, ListedColormap, LogNorm, Normalize  # noqa: E402
from matplotlib.lines import Line2D  # noqa: E402
from matplotlib.patches import Patch  # noqa: E402
from matplotlib.ticker import FuncFormatter, LogLocator, MaxNLocator, NullFormatter  # noqa: E402

PROGRAM = "impactplot"
EXIT_BAD_INPUT = 2
EXIT_NOTHING_TO_DRAW = 1  # also: the figures could not be written
SUPPORTED_FORMAT = 2  # the newest impactsweep_format this tool knows (1 and 2)

# The class colours, by flag meaning (documented in README "Figures"; tests rely on them).
NOT_COMPUTED_COLOUR = "#d9d9d9"  # status 0: pending
FAILED_COLOUR = "#c8102e"        # status >= 2: failed_*
CLASS_COLOURS = {
    # chatter: regime
    "icc": "#56b4e9",            # sky blue: incomplete chatter (lift-off)
    "cc": "#e69f00",             # orange: complete chatter
    "pcc": "#009e73",            # bluish green: partial complete chatter
    # chatter: cone (the complete-chatter certificate)
    "found": "#e69f00",          # orange like CC: an effectively invariant cone
    "none": "#0072b2",           # blue: no cone
    "inconclusive": "#cc79a7",   # reddish purple: round or vertex limit reached
    # collision: outcome
    "separated": "#56b4e9",
    "no_separation": "#e69f00",
    "solver_failure": FAILED_COLOUR,
    "horizon": "#cc79a7",        # reddish purple: still in contact and moving at t_max
    # stop-oscillator: regime (what the run proved or detected about the long run)
    "free": "#009e73",           # bluish green: proved never to reach the stop
    "periodic": "#cc79a7",       # reddish purple: a 2-phase periodic orbit reached
    "impacting": "#0072b2",      # blue: rebounds for ever, proved (below the sticking level)
    "failed": FAILED_COLOUR,
    "sticking": "#d55e00",       # vermillion: recurring Zeno sequences and sticking
    "undecided": "#f0e442",      # yellow: the horizon does not settle it
    # status itself (--field status); not computed and failed as everywhere
    "pending": NOT_COMPUTED_COLOUR,
    "done": "#56b4e9",
    # stop-oscillator: the Zeno map (derived from zeno_resets)
    "zeno": "#cc79a7",           # reddish purple: zeno_resets > 0
    "no_zeno": "#f2e79a",        # pale yellow: zeno_resets == 0
}
# Classes not in the table (categoricals added later) take these by flag value.
FALLBACK_COLOURS = ("#0072b2", "#e69f00", "#009e73", "#cc79a7", "#f0e442", "#56b4e9",
                    "#d55e00", "#000000", "#8c564b", "#7f7f7f")
CLASS_LABELS = {
    "icc": "ICC", "cc": "CC", "pcc": "PCC",
    "no_separation": "no separation (e = 0)", "solver_failure": "solver failure",
    "horizon": "in contact at t_max (e = 0)",
    "zeno": "Zeno (resets > 0)", "no_zeno": "no Zeno",
    "found": "cone found", "none": "no cone",
    "free": "free (proved)", "periodic": "periodic orbit reached",
    "impacting": "impacting for ever (proved)", "sticking": "sticking, recurring",
    "undecided": "undecided at t_end",
}
NOT_COMPUTED_LABEL = "not computed"
FAILED_LABEL = "failed"
STATUS_CLASSES = {NOT_COMPUTED_LABEL: NOT_COMPUTED_COLOUR, FAILED_LABEL: FAILED_COLOUR}

# Level curves of impacts_mean (the paper's Fig. 7 uses 10, 25, 50, 100, 200).
IMPACT_LEVELS = (10, 25, 50, 100, 200, 500, 1000, 2000, 5000, 10000)
MAX_CURVES = 10  # e(v0) curves drawn at most (the other axis is thinned beyond)

# run_state as the footer of a partial file says it ("created" and "running" stay in a
# file while it is being computed and after a hard kill).
RUN_STATES = {"created": "running or killed", "running": "resumed, running or killed",
              "interrupted": "interrupted", "failed": "run failed", "complete": "complete"}

FIGSIZE_MAP = (7.0, 5.0)
FIGSIZE_LINE = (7.0, 4.5)
FIGSIZE_STRIP = (7.0, 2.6)
FIGSIZE_PANELS = (13.0, 4.4)
FOOTER_HEIGHT = 0.045  # figure fraction reserved for the provenance line
RASTERIZE_CELLS = 4096  # meshes with more cells are rasterized in PDFs

GREEK = {"alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta", "iota",
         "kappa", "lambda", "mu", "nu", "xi", "pi", "rho", "sigma", "tau", "upsilon", "phi",
         "chi", "psi", "omega"}
GREEK_VARIANTS = {"epsilon": r"\varepsilon", "phi": r"\varphi"}
# Parameter symbols that the generic rule (a greek name or one letter, then digits and
# _parts as subscripts) would not produce.
SYMBOLS = {"t_end": r"$t_{\mathrm{end}}$"}
# Output labels in the papers' notation (other outputs are labelled by their long_name).
FIELD_LABELS = {
    "cor": r"coefficient of restitution $e$",
    "t_sep": r"separation time $T_s$",
    "x_max": r"largest compression $X_{\max}$",
    "x_sep": r"compression where the contact ended $X_s$",
    "f_max": r"peak contact force $F_{\max}$",
}


class BadInput(Exception):
    """An input the tool refuses (exit status 2); the message names the file."""


# ----------------------------------------------------------------------------- the file


@dataclass
class Result:
    """One impactsweep result file, loaded into memory."""

    path: str
    ds: xr.Dataset
    model: str
    axes: List[str]        # grid order
    outputs: List[str]
    status: xr.DataArray   # 0 pending, 1 done, >= 2 failed
    run_state: str = ""    # /run/state: created, running, interrupted, complete, ...

    def attr(self, name: str, default: str = "") -> str:
        """A root attribute as a string ('' if absent)."""
        value = self.ds.attrs.get(name, default)
        if isinstance(value, bytes):
            value = value.decode("utf-8", "replace")
        return str(value)

    def has(self, name: str) -> bool:
        """Whether the file has a variable NAME over (some of) the axes."""
        return name in self.ds.data_vars

    def points(self) -> Tuple[int, int, int, int]:
        """(total, done, failed, pending) counted from `status`."""
        s = self.status.values
        return int(s.size), int((s == 1).sum()), int((s >= 2).sum()), int((s == 0).sum())


def open_result(path: str) -> Result:
    """Open PATH as an impactsweep result file, or raise BadInput saying why not."""
    if not os.path.exists(path):
        raise BadInput(f"{path}: no such file")
    if os.path.isdir(path):
        raise BadInput(f"{path}: is a directory, not an impactsweep result file")
    try:
        is_hdf5 = h5py.is_hdf5(path)
    except OSError as e:
        raise BadInput(f"{path}: cannot read it: {e}") from None
    if not is_hdf5:
        raise BadInput(f"{path}: not an impactsweep result file (not an HDF5 file)")
    try:
        with h5py.File(path, "r") as f:
            if "impactsweep_format" not in f.attrs:
                raise BadInput(f"{path}: not an impactsweep result file "
                               "(HDF5, but no impactsweep_format attribute)")
            version = int(np.asarray(f.attrs["impactsweep_format"]).item())
            run_state = ""
            if "run/state" in f:  # format 2: the run state is raw data in /run
                run_state = bytes(f["run/state"][()]).decode("utf-8", "replace").rstrip("\0")
            elif "run_state" in f.attrs:  # format 1: an attribute
                run_state = str(np.asarray(f.attrs["run_state"]).astype(str))
    except OSError as e:
        raise BadInput(f"{path}: cannot read it as HDF5: {e}") from None
    if version > SUPPORTED_FORMAT:
        warn(f"{path}: impactsweep_format {version} is newer than this tool "
             f"({SUPPORTED_FORMAT}); drawing what it recognises")
    try:
        with xr.open_dataset(path, engine="h5netcdf") as ds:
            ds = ds.load()
    except Exception as e:  # h5netcdf / xarray raise many kinds
        raise BadInput(f"{path}: cannot read the result file: {e}") from None
    axes = str(ds.attrs.get("axes", "")).split() or [d for d in ds.dims]
    missing = [a for a in axes if a not in ds.coords]
    if missing:
        raise BadInput(f"{path}: malformed result file: axis {missing[0]} has no coordinate")
    outputs = [o for o in str(ds.attrs.get("outputs", "")).split() if o in ds.data_vars]
    if not outputs:
        outputs = [v for v in ds.data_vars if v != "status"]
    if "status" in ds.data_vars:
        status = ds["status"].fillna(0).astype(np.int64)
    else:  # older files: a point is done where its first output is
        status = xr.where(np.isfinite(ds[outputs[0]]), 1, 0)
    return Result(path=path, ds=ds, model=str(ds.attrs.get("model", "")), axes=axes,
                  outputs=outputs, status=status, run_state=run_state)


# ------------------------------------------------------------------------------- labels


def symbol(name: str) -> Optional[str]:
    """The model symbol of a parameter or output name as mathtext, or None.

    rho -> $\\rho$, epsilon -> $\\varepsilon$, pi1 -> $\\pi_{1}$, k12 -> $k_{12}$,
    x2_0 -> $x_{2,0}$, v0 -> $v_{0}$, A -> $A$; names that are words (samples) -> None.
    """
    if name in SYMBOLS:
        return SYMBOLS[name]
    m = re.fullmatch(r"([A-Za-z]+?)((?:\d+[a-z]?)?)((?:_[A-Za-z0-9]{1,3})*)", name)
    if not m:
        return None
    base, digits, rest = m.groups()
    if base in GREEK:
        base_tex = GREEK_VARIANTS.get(base, "\\" + base)
    elif len(base) == 1:
        base_tex = base
    else:
        return None
    subs = ([digits] if digits else []) + [p for p in rest.split("_") if p]
    if any(len(p) > 1 and not p.isdigit() and not re.fullmatch(r"\d+[a-z]", p) for p in subs):
        return None
    return f"${base_tex}_{{{','.join(subs)}}}$" if subs else f"${base_tex}$"


def units_suffix(units: str) -> str:
    """' [units]' unless the quantity is dimensionless."""
    units = str(units or "").strip()
    return "" if units in ("", "1") else f" [{units}]"


def axis_label(result: Result, name: str) -> str:
    """The label of axis NAME: its symbol (else its name) and units."""
    coord = result.ds[name]
    return (symbol(name) or name) + units_suffix(coord.attrs.get("units", ""))


def field_label(result: Result, name: str) -> str:
    """The label of output NAME: its description (with the symbol if it has one) and
    units."""
    var = result.ds[name]
    text = FIELD_LABELS.get(name, str(var.attrs.get("long_name", name)))
    return text + units_suffix(var.attrs.get("units", ""))


def format_value(name: str, value) -> str:
    """'symbol = value' for titles and legends (a choice by its name)."""
    if isinstance(value, (str, bytes)):
        return f"{name} = {value.decode() if isinstance(value, bytes) else value}"
    return f"{symbol(name) or name} = {float(value):.4g}"


def is_choice_axis(result: "Result", name: str) -> bool:
    """A swept choice (the collision law, the form, the integrator): its coordinate holds
    names (scale "choice"); it is never a drawing axis, one figure is drawn per choice."""
    coord = result.ds[name]
    return str(coord.attrs.get("scale", "")) == "choice" or coord.dtype.kind in "OUS"


def choice_slices(result: "Result") -> List[Tuple[str, "Result"]]:
    """('', result) without a swept choice; else one (suffix, result) per combination of
    the choices' values, each a result whose choice axes hold that one value, so that no
    figure interpolates or blends across choices."""
    swept = [a for a in result.axes if is_choice_axis(result, a) and result.ds.sizes[a] > 1]
    if not swept:
        return [("", result)]
    slices = []
    for index in itertools.product(*[range(result.ds.sizes[a]) for a in swept]):
        pick = {a: [i] for a, i in zip(swept, index)}
        names = [str(result.ds[a].values[i]) for a, i in zip(swept, index)]
        suffix = "_" + "_".join(f"{a}-{n}" for a, n in zip(swept, names))
        slices.append((suffix, Result(path=result.path, ds=result.ds.isel(pick),
                                      model=result.model, axes=result.axes,
                                      outputs=result.outputs,
                                      status=result.status.isel(pick),
                                      run_state=result.run_state)))
    return slices


# ------------------------------------------------------------------------------- planes


@dataclass
class Plane:
    """The 1-D or 2-D section of the grid that a figure shows."""

    axes: List[str]                  # x first
    selection: Dict[str, int]        # index of every other axis
    note: str = ""                   # the sliced axes' values, for titles
    fixed: str = ""                  # the one-value axes' values, for titles

    def take(self, da: xr.DataArray) -> np.ndarray:
        """The values of DA on the plane, as an array indexed [x] or [x, y]."""
        sel = {k: v for k, v in self.selection.items() if k in da.dims}
        da = da.isel(sel)
        extra = [d for d in da.dims if d not in self.axes]
        if extra:  # a variable over other dimensions than the axes: its first entry
            da = da.isel({d: 0 for d in extra})
        return np.asarray(da.transpose(*[a for a in self.axes if a in da.dims]).values,
                          dtype=float)

    def coords(self, result: Result) -> List[np.ndarray]:
        """The axis values, x first."""
        return [np.asarray(result.ds[a].values, dtype=float) for a in self.axes]

    def scales(self, result: Result) -> List[str]:
        """'log' or 'linear' per axis, from the coordinate's `scale` attribute."""
        return [axis_scale(result, a) for a in self.axes]


def axis_scale(result: Result, name: str) -> str:
    """How axis NAME is drawn: 'log' if its `scale` says so (or explicit values that are
    positive and evenly spaced in log), else 'linear'."""
    values = np.asarray(result.ds[name].values, dtype=float)
    scale = str(result.ds[name].attrs.get("scale", "linear"))
    if scale == "log" and np.all(values > 0):
        return "log"
    if scale == "values" and values.size > 2 and np.all(values > 0):
        ratios = values[1:] / values[:-1]
        if np.all(ratios > 1.5) and np.allclose(ratios, ratios[0], rtol=1e-6):
            return "log"
    return "linear"


def real_axes(result: Result) -> List[str]:
    """The axes with more than one value, in grid order (not the swept choices)."""
    return [a for a in result.axes if result.ds.sizes[a] > 1 and not is_choice_axis(result, a)]


def make_plane(result: Result, axes: Sequence[str]) -> Plane:
    """A plane over AXES, every other axis at its first index (reported on stderr when
    it has more than one value)."""
    others = [a for a in result.axes if a not in axes]
    selection = {a: 0 for a in others}
    sliced = [a for a in others if result.ds.sizes[a] > 1]
    single = [a for a in others if result.ds.sizes[a] == 1]
    note = ", ".join(format_value(a, result.ds[a].values[0]) for a in sliced)
    fixed = ", ".join(format_value(a, result.ds[a].values[0]) for a in single)
    return Plane(axes=list(axes), selection=selection, note=note, fixed=fixed)


def default_plane(result: Result) -> Optional[Plane]:
    """The first two real axes (x, y), or the one real axis; None for a single point."""
    axes = real_axes(result)
    if not axes:
        return None
    return make_plane(result, axes[:2])


def cell_edges(values: np.ndarray, scale: str) -> np.ndarray:
    """Edges of the cells centred on VALUES: midpoints (geometric on log axes), the ends
    half a spacing out."""
    v = np.log10(values) if scale == "log" else np.asarray(values, dtype=float)
    if v.size == 1:
        edges = np.array([v[0] - 0.5, v[0] + 0.5])
    else:
        mid = 0.5 * (v[1:] + v[:-1])
        edges = np.concatenate([[v[0] - (mid[0] - v[0])], mid, [v[-1] + (v[-1] - mid[-1])]])
    return 10.0 ** edges if scale == "log" else edges


# ------------------------------------------------------------------------- categoricals


@dataclass
class Category:
    """One class of a categorical map."""

    name: str
    label: str
    colour: str


def class_colour(name: str, value: int) -> str:
    """The documented colour of class NAME (flag value VALUE if it is not in the table)."""
    return CLASS_COLOURS.get(name, FALLBACK_COLOURS[value % len(FALLBACK_COLOURS)])


def categories_of(result: Result, name: str) -> List[Category]:
    """The classes of categorical variable NAME, indexed by flag value."""
    attrs = result.ds[name].attrs
    words = str(attrs.get("flag_meanings", "")).split()
    values = [int(v) for v in np.atleast_1d(attrs.get("flag_values", range(len(words))))]
    if values != list(range(len(words))):
        raise BadInput(f"{result.path}: {name}: flag_values {values} are not 0..{len(words) - 1}")
    return [Category(w, CLASS_LABELS.get(w, w.replace("_", " ")), class_colour(w, i))
            for i, w in enumerate(words)]


def is_categorical(result: Result, name: str) -> bool:
    """Whether variable NAME carries flag_meanings."""
    return bool(str(result.ds[name].attrs.get("flag_meanings", "")).split())


def status_legend(status: np.ndarray) -> List[Patch]:
    """Legend entries for the not computed / failed points present in STATUS."""
    handles = []
    if np.any(status == 0):
        handles.append(Patch(facecolor=NOT_COMPUTED_COLOUR, edgecolor="0.4",
                             label=NOT_COMPUTED_LABEL))
    if np.any(status >= 2):
        handles.append(Patch(facecolor=FAILED_COLOUR, edgecolor="0.4", label=FAILED_LABEL))
    return handles


def display_codes(codes: np.ndarray, status: np.ndarray, n_classes: int) -> np.ndarray:
    """Class index per point, n_classes where not computed, n_classes + 1 where failed,
    NaN where a done point has no class."""
    out = np.where(np.isfinite(codes), codes, np.nan)
    out = np.where(status == 0, n_classes, out)
    return np.where(status >= 2, n_classes + 1, out)


# --------------------------------------------------------------------------- primitives


@dataclass
class Panel:
    """What the layout file records about one axes."""

    ax: plt.Axes
    variable: str
    kind: str                        # 'classes', 'colour', 'filled_contours', 'lines', 'strip'
    axes: List[str]                  # the file's axes along x (and y)
    classes: Dict[str, str] = field(default_factory=dict)  # class name -> colour
    contours: Optional[dict] = None  # {'field': name, 'levels': [...]}


def log_ticks(axis, scale: str, values: np.ndarray) -> None:
    """Ticks of AXIS (ax.xaxis or ax.yaxis, already on SCALE) spanning VALUES: a log axis
    over less than three decades is ticked at 1, 2, 5 times powers of ten, written
    plainly (0.05, 0.1, 0.2, ...)."""
    if scale != "log":
        return
    v = np.asarray(values, dtype=float)
    v = v[np.isfinite(v) & (v > 0)]
    if v.size and np.log10(v.max() / v.min()) <= 3:
        axis.set_major_locator(LogLocator(base=10, subs=(1.0, 2.0, 5.0)))
        axis.set_major_formatter(FuncFormatter(lambda t, _: f"{t:g}"))
        axis.set_minor_formatter(NullFormatter())


def setup_axes(ax: plt.Axes, result: Result, plane: Plane, strip: bool = False) -> None:
    """Scales, limits and labels of a map (or a 1-D strip) over PLANE."""
    coords, scales = plane.coords(result), plane.scales(result)
    xe = cell_edges(coords[0], scales[0])
    ax.set_xscale(scales[0])
    log_ticks(ax.xaxis, scales[0], xe)
    ax.set_xlim(xe[0], xe[-1])
    ax.set_xlabel(axis_label(result, plane.axes[0]))
    if strip:
        ax.set_ylim(0, 1)
        ax.set_yticks([])
    elif len(plane.axes) > 1:
        ye = cell_edges(coords[1], scales[1])
        ax.set_yscale(scales[1])
        log_ticks(ax.yaxis, scales[1], ye)
        ax.set_ylim(ye[0], ye[-1])
        ax.set_ylabel(axis_label(result, plane.axes[1]))


def mesh(ax: plt.Axes, result: Result, plane: Plane, values: np.ndarray, **kwargs):
    """pcolormesh of VALUES ([x] as a strip or [x, y]) on cells around the axis values."""
    coords, scales = plane.coords(result), plane.scales(result)
    xe = cell_edges(coords[0], scales[0])
    if values.ndim == 1:
        ye, c = np.array([0.0, 1.0]), values[np.newaxis, :]
    else:
        ye, c = cell_edges(coords[1], scales[1]), values.T
    return ax.pcolormesh(xe, ye, np.ma.masked_invalid(c), shading="flat", antialiased=False,
                         edgecolors="none", linewidth=0, rasterized=c.size > RASTERIZE_CELLS,
                         **kwargs)


def draw_classes(ax: plt.Axes, result: Result, plane: Plane, codes: np.ndarray,
                 categories: List[Category], status: np.ndarray) -> List[Patch]:
    """Colour each point by its class (status overriding: not computed, failed); returns
    the legend entries of what is present."""
    n = len(categories)
    shown = display_codes(codes, status, n)
    colours = [c.colour for c in categories] + [NOT_COMPUTED_COLOUR, FAILED_COLOUR]
    cmap = ListedColormap(colours)
    mesh(ax, result, plane, shown, cmap=cmap, norm=BoundaryNorm(np.arange(-0.5, n + 2), n + 2))
    present = set(np.unique(shown[np.isfinite(shown)]).astype(int))
    handles = [Patch(facecolor=c.colour, edgecolor="0.4", label=c.label)
               for i, c in enumerate(categories) if i in present]
    handles += status_legend(np.where(np.isfinite(shown), status, 1))
    return dedupe(handles)


def draw_status(ax: plt.Axes, result: Result, plane: Plane, status: np.ndarray) -> List[Patch]:
    """Overlay the not computed and failed points on a colour map; their legend entries."""
    overlay = np.where(status == 0, 0.0, np.where(status >= 2, 1.0, np.nan))
    if np.isfinite(overlay).any():
        mesh(ax, result, plane, overlay, cmap=ListedColormap([NOT_COMPUTED_COLOUR, FAILED_COLOUR]),
             norm=BoundaryNorm([-0.5, 0.5, 1.5], 2))
    return status_legend(status)


def dedupe(handles: List) -> List:
    """Legend entries without repeated labels."""
    seen, out = set(), []
    for h in handles:
        if h.get_label() not in seen:
            seen.add(h.get_label())
            out.append(h)
    return out


def level_curves(ax: plt.Axes, result: Result, plane: Plane, values: np.ndarray,
                 levels: Sequence[float], colour: str = "black") -> List[float]:
    """Labelled contour lines of VALUES at those LEVELS strictly inside its range; the
    levels drawn."""
    finite = values[np.isfinite(values)]
    if len(plane.axes) < 2 or finite.size == 0 or min(values.shape) < 2:
        return []
    lo, hi = float(finite.min()), float(finite.max())
    levels = [float(v) for v in levels if lo < v < hi]
    if not levels:
        return []
    x, y = plane.coords(result)
    cs = ax.contour(x, y, np.ma.masked_invalid(values.T), levels=levels, colors=colour,
                    linewidths=0.9)
    ax.clabel(cs, fmt=lambda v: f"{v:g}", fontsize=7, inline=True)
    return levels


def nice_levels(values: np.ndarray, count: int = 6, integer: bool = False) -> List[float]:
    """Round contour levels over the range of VALUES: 1-2-5 decades when it spans more
    than a factor 30 (positive values), else about COUNT evenly spaced ones."""
    finite = values[np.isfinite(values)]
    if finite.size == 0:
        return []
    lo, hi = float(finite.min()), float(finite.max())
    positive = finite[finite > 0]
    if positive.size and hi / positive.min() > 30:
        start = math.floor(math.log10(positive.min()))
        levels = [m * 10.0 ** e for e in range(start, math.ceil(math.log10(hi)) + 1)
                  for m in (1, 2, 5)]
    else:
        levels = list(MaxNLocator(nbins=count, integer=integer).tick_values(lo, hi))
    return [v for v in levels if lo < v < hi]


def colour_map(ax: plt.Axes, result: Result, plane: Plane, values: np.ndarray,
               status: np.ndarray, log: Optional[bool] = None) -> Tuple[object, List[Patch]]:
    """A colour map of numeric VALUES (log colours for positive data over more than a factor
    20 unless LOG says) with the status overlay; (mappable, legend entries)."""
    finite = values[np.isfinite(values)]
    if log is None:
        log = finite.size > 0 and finite.min() > 0 and finite.max() / finite.min() > 20
    if finite.size == 0:
        norm = Normalize(0, 1)
    elif log:
        norm = LogNorm(finite.min(), finite.max())
    else:
        lo, hi = finite.min(), finite.max()
        norm = Normalize(lo, hi if hi > lo else lo + 1)
    m = mesh(ax, result, plane, values, cmap="viridis", norm=norm)
    return m, draw_status(ax, result, plane, status)


def add_colourbar(fig, ax: plt.Axes, mappable, label: str):
    """A colour bar right of AX; on log colours ticked at 1-2-5 values written plainly."""
    bar = fig.colorbar(mappable, ax=ax, label=label, pad=0.02)
    norm = mappable.norm
    if isinstance(norm, LogNorm) and norm.vmin > 0:
        lo, hi = norm.vmin, norm.vmax
        ticks = [m * 10.0 ** e for e in range(math.floor(math.log10(lo)),
                                                math.ceil(math.log10(hi)) + 1)
                 for m in (1, 2, 5) if lo <= m * 10.0 ** e <= hi]
        if len(ticks) >= 2:
            bar.set_ticks(ticks)
            bar.set_ticklabels([f"{t:g}" for t in ticks])
            bar.ax.minorticks_off()
    return bar


def legend_outside(ax: plt.Axes, handles: List, title: Optional[str] = None) -> None:
    """The legend to the right of AX."""
    if handles:
        ax.legend(handles=handles, loc="upper left", bbox_to_anchor=(1.02, 1.0),
                  borderaxespad=0.0, fontsize=8, title=title, title_fontsize=8, frameon=False)


def status_rug(ax: plt.Axes, x: np.ndarray, status: np.ndarray) -> List:
    """Marks along the bottom of a line plot where points are not computed or failed."""
    handles = []
    for mask, colour, label in ((status == 0, NOT_COMPUTED_COLOUR, NOT_COMPUTED_LABEL),
                                (status >= 2, FAILED_COLOUR, FAILED_LABEL)):
        if mask.any():
            ax.plot(x[mask], np.full(mask.sum(), 0.02), linestyle="none", marker="|",
                    markersize=10, markeredgewidth=2, color=colour,
                    transform=ax.get_xaxis_transform(), label=label)
            handles.append(Line2D([], [], linestyle="none", marker="|", markersize=10,
                                  markeredgewidth=2, color=colour, label=label))
    return handles


def panel_title(text: str, plane: Plane) -> str:
    """TEXT, the values of the one-value axes and the slice the plane is at, if any."""
    if plane.fixed:
        text = f"{text}, {plane.fixed}"
    return f"{text}\n(slice at {plane.note})" if plane.note else text


# ------------------------------------------------------------------------------ figures


def draw_class_figure(fig, result: Result, plane: Plane, name: str, title: str,
                      codes: Optional[np.ndarray] = None,
                      categories: Optional[List[Category]] = None,
                      contour: Optional[Tuple[str, Sequence[float]]] = None,
                      legend_title: Optional[str] = None) -> List[Panel]:
    """A categorical map (a strip on one axis) of variable NAME (or of CODES with
    CATEGORIES), optionally with labelled level curves of another field."""
    ax = fig.add_subplot()
    status = plane.take(result.status)
    if codes is None:
        codes = plane.take(result.ds[name])
        categories = categories_of(result, name)
    setup_axes(ax, result, plane, strip=codes.ndim == 1)
    handles = draw_classes(ax, result, plane, codes, categories, status)
    panel = Panel(ax, name, "strip" if codes.ndim == 1 else "classes", plane.axes,
                  classes={c.name: c.colour for c in categories})
    panel.classes.update(STATUS_CLASSES)
    if contour and result.has(contour[0]) and codes.ndim == 2:
        cname, levels = contour
        drawn = level_curves(ax, result, plane, plane.take(result.ds[cname]), levels)
        if drawn:
            panel.contours = {"field": cname, "levels": drawn}
            handles.append(Line2D([], [], color="black", linewidth=0.9,
                                  label=f"{result.ds[cname].attrs.get('long_name', cname)}\n"
                                        f"({', '.join(f'{v:g}' for v in drawn)})"))
    ax.set_title(panel_title(title, plane), fontsize=10)
    legend_outside(ax, handles, legend_title)
    return [panel]


def draw_colour_figure(fig, result: Result, plane: Plane, name: str, title: str,
                       levels: Optional[Sequence[float]] = None,
                       log: Optional[bool] = None) -> List[Panel]:
    """A colour map of numeric NAME with a colour bar (a line plot on one axis), optionally
    with labelled level curves of it at LEVELS."""
    if len(plane.axes) == 1:
        return draw_line_figure(fig, result, plane, [name], title)
    ax = fig.add_subplot()
    setup_axes(ax, result, plane)
    values = plane.take(result.ds[name])
    status = plane.take(result.status)
    m, handles = colour_map(ax, result, plane, values, status, log=log)
    add_colourbar(fig, ax, m, field_label(result, name))
    panel = Panel(ax, name, "colour", plane.axes,
                  classes=dict(STATUS_CLASSES))
    if levels:
        drawn = level_curves(ax, result, plane, values, levels, colour="white")
        if drawn:
            panel.contours = {"field": name, "levels": drawn}
    ax.set_title(panel_title(title, plane), fontsize=10)
    legend_outside_bottom(ax, handles)
    return [panel]


def legend_outside_bottom(ax: plt.Axes, handles: List) -> None:
    """A one-row legend under the x label (maps that have a colour bar on the right)."""
    if handles:
        ax.legend(handles=handles, loc="upper center", bbox_to_anchor=(0.5, -0.14),
                  ncol=len(handles), fontsize=8, frameon=False)


def draw_line_figure(fig, result: Result, plane: Plane, names: Sequence[str], title: str,
                     colours: Optional[Sequence[str]] = None,
                     labels: Optional[Sequence[str]] = None,
                     ylog: Optional[bool] = None) -> List[Panel]:
    """Line plots of numeric NAMES (legend LABELS, default their descriptions) over the
    plane's one axis, with the not computed and failed points marked along the bottom."""
    ax = fig.add_subplot()
    name0 = plane.axes[0]
    x = plane.coords(result)[0]
    ax.set_xscale(plane.scales(result)[0])
    log_ticks(ax.xaxis, plane.scales(result)[0], x)
    status = plane.take(result.status)
    handles = []
    all_values = []
    for i, name in enumerate(names):
        y = plane.take(result.ds[name])
        all_values.append(y[np.isfinite(y)])
        colour = colours[i] if colours else f"C{i}"
        label = None
        if len(names) > 1:
            label = labels[i] if labels else field_label(result, name)
        (line,) = ax.plot(x, y, marker="." if x.size <= 60 else None, color=colour,
                          linewidth=1.4, label=label)
        if label:
            handles.append(line)
    values = np.concatenate(all_values) if all_values else np.array([])
    if ylog is None:
        ylog = values.size > 0 and values.min() > 0 and values.max() / values.min() > 100
    if ylog:
        ax.set_yscale("log")
    ax.set_xlabel(axis_label(result, name0))
    ax.set_ylabel(field_label(result, names[0]) if len(names) == 1 else "")
    ax.grid(True, which="major", alpha=0.3)
    handles += status_rug(ax, x, status)
    ax.set_title(panel_title(title, plane), fontsize=10)
    legend_outside(ax, handles)
    return [Panel(ax, ",".join(names), "lines", plane.axes[:1],
                  classes=dict(STATUS_CLASSES))]


def draw_fraction_panels(fig, result: Result, plane: Plane, names: Sequence[str],
                         title: str) -> List[Panel]:
    """p_icc, p_cc, p_pcc side by side, each from 0 to 1 (lines on one axis)."""
    if len(plane.axes) == 1:
        colours = [CLASS_COLOURS.get(n.replace("p_", ""), None) or f"C{i}"
                   for i, n in enumerate(names)]
        labels = [CLASS_LABELS.get(n[2:], n) for n in names]
        draw = draw_line_figure(fig, result, plane, names, title, colours=colours,
                                labels=labels, ylog=False)
        draw[0].ax.set_ylabel("fraction of the drops")
        return draw
    axs = fig.subplots(1, len(names), sharey=True)
    status = plane.take(result.status)
    panels = []
    for ax, name in zip(np.atleast_1d(axs), names):
        setup_axes(ax, result, plane)
        m = mesh(ax, result, plane, plane.take(result.ds[name]), cmap="viridis",
                 norm=Normalize(0, 1))
        handles = draw_status(ax, result, plane, status)
        fig.colorbar(m, ax=ax, pad=0.02)
        label = name.replace("p_", "").upper()
        ax.set_title(panel_title(f"{title}: {label} ({name})", plane), fontsize=10)
        if ax is np.atleast_1d(axs)[0]:
            legend_outside_bottom(ax, handles)
        else:
            ax.set_ylabel("")
        panels.append(Panel(ax, name, "colour", plane.axes,
                            classes=dict(STATUS_CLASSES)))
    return panels


def draw_cor_surface(fig, result: Result, plane: Plane, title: str) -> List[Panel]:
    """The CoR e as filled contours over two axes with labelled contour lines (e over the
    axis on one), not computed / failed points overlaid."""
    if len(plane.axes) == 1:
        return draw_line_figure(fig, result, plane, ["cor"], title)
    ax = fig.add_subplot()
    setup_axes(ax, result, plane)
    x, y = plane.coords(result)
    ax.set_xlim(x[0], x[-1])  # contours span the grid values, not the cells around them
    ax.set_ylim(y[0], y[-1])
    e = plane.take(result.ds["cor"])
    status = plane.take(result.status)
    finite = e[np.isfinite(e)]
    panel = Panel(ax, "cor", "filled_contours", plane.axes,
                  classes=dict(STATUS_CLASSES))
    if finite.size and finite.max() > finite.min() and min(e.shape) >= 2:
        lo, hi = finite.min(), finite.max()
        levels = MaxNLocator(nbins=20, steps=[1, 2, 5, 10]).tick_values(lo, hi)
        if not np.isfinite(e).all():
            # contourf leaves out the triangles next to a missing point: fill those with
            # the points' own cells in the same colours
            cmap = plt.get_cmap("viridis")
            mesh(ax, result, plane, e, cmap=cmap, norm=BoundaryNorm(levels, cmap.N))
        cf = ax.contourf(x, y, np.ma.masked_invalid(e.T), levels=levels, cmap="viridis",
                         extend="neither")
        lines = [v for v in MaxNLocator(nbins=10, steps=[1, 2, 5, 10]).tick_values(lo, hi)
                 if lo < v < hi]
        if lines:
            cs = ax.contour(x, y, np.ma.masked_invalid(e.T), levels=lines, colors="black",
                            linewidths=0.6)
            ax.clabel(cs, fmt=lambda v: f"{v:g}", fontsize=7, inline=True)
            panel.contours = {"field": "cor", "levels": [float(v) for v in lines]}
        fig.colorbar(cf, ax=ax, label=field_label(result, "cor"), pad=0.02)
    else:  # constant or too small for contours: plain cells
        m, _ = colour_map(ax, result, plane, e, status, log=False)
        add_colourbar(fig, ax, m, field_label(result, "cor"))
    handles = draw_status(ax, result, plane, status)
    ax.set_title(panel_title(title, plane), fontsize=10)
    legend_outside_bottom(ax, handles)
    return [panel]


def draw_cor_curves(fig, result: Result, plane: Plane, title: str) -> List[Panel]:
    """e(v0): one curve over v0 per value of the plane's other axis (at most MAX_CURVES,
    evenly picked)."""
    ax = fig.add_subplot()
    v_axis = "v0"
    other = [a for a in plane.axes if a != v_axis][0]
    sub = dataclasses.replace(plane, axes=[v_axis, other])
    e = sub.take(result.ds["cor"])
    status = sub.take(result.status)
    v0, w = sub.coords(result)
    picks = np.unique(np.round(np.linspace(0, w.size - 1, min(w.size, MAX_CURVES))).astype(int))
    if picks.size < w.size:
        note(f"{result.path}: cor_v0: {picks.size} of the {w.size} values of {other} drawn")
    cmap = plt.get_cmap("viridis")
    for k, j in enumerate(picks):
        colour = cmap(k / max(1, picks.size - 1) * 0.9)
        ax.plot(v0, e[:, j], color=colour, linewidth=1.4, marker="." if v0.size <= 60 else None,
                label=format_value(other, w[j]))
    ax.set_xscale(axis_scale(result, v_axis))
    log_ticks(ax.xaxis, axis_scale(result, v_axis), v0)
    ax.set_xlabel(axis_label(result, v_axis))
    ax.set_ylabel(field_label(result, "cor"))
    ax.grid(True, which="major", alpha=0.3)
    handles = ax.get_legend_handles_labels()[0]
    handles += status_rug(ax, v0, np.where((status == 0).all(axis=1), 0,
                                           np.where((status >= 2).any(axis=1), 2, 1)))
    ax.set_title(panel_title(title, plane), fontsize=10)
    legend_outside(ax, handles)
    return [Panel(ax, "cor", "lines", [v_axis],
                  classes=dict(STATUS_CLASSES))]


# -------------------------------------------------------------------- what each model gets


@dataclass
class FigureJob:
    """One figure to make: PREFIX_KIND.*, its size and how to draw it."""

    kind: str
    size: Tuple[float, float]
    draw: Callable[[object], List[Panel]]   # draw(fig) -> panels


def map_size(plane: Plane, categorical: bool = True) -> Tuple[float, float]:
    """The figure size of a map (or of its 1-D form)."""
    if len(plane.axes) == 1:
        return FIGSIZE_STRIP if categorical else FIGSIZE_LINE
    return FIGSIZE_MAP


def chatter_regime_codes(result: Result, plane: Plane) -> Tuple[np.ndarray, List[Category]]:
    """The regime classes: the `regime` variable, else the largest of p_icc, p_cc, p_pcc."""
    if result.has("regime"):
        return plane.take(result.ds["regime"]), categories_of(result, "regime")
    names = [n for n in ("p_icc", "p_cc", "p_pcc") if result.has(n)]
    stack = np.stack([plane.take(result.ds[n]) for n in names])
    finite = np.all(np.isfinite(stack), axis=0)
    codes = np.where(finite, np.argmax(np.where(np.isfinite(stack), stack, -1), axis=0), np.nan)
    cats = [Category(n[2:], CLASS_LABELS[n[2:]], CLASS_COLOURS[n[2:]]) for n in names]
    return codes, cats


def chatter_figures(result: Result, plane: Plane) -> List[FigureJob]:
    """regime (with impact-count level curves), impacts, fractions, cone."""
    jobs = []
    n = result.attr("parameter_n")
    n_text = f", n = {float(n):g}" if n and "n" not in result.axes else ""
    if result.has("regime") or result.has("p_icc"):
        codes, cats = chatter_regime_codes(result, plane)
        jobs.append(FigureJob("regime", map_size(plane), lambda fig: draw_class_figure(
            fig, result, plane, "regime", f"Most frequent outcome{n_text}", codes=codes,
            categories=cats, contour=("impacts_mean", IMPACT_LEVELS), legend_title="outcome")))
    if result.has("impacts_mean"):
        jobs.append(FigureJob("impacts", map_size(plane, False), lambda fig: draw_colour_figure(
            fig, result, plane, "impacts_mean", f"Mean number of impacts per drop{n_text}",
            levels=IMPACT_LEVELS)))
    fractions = [f for f in ("p_icc", "p_cc", "p_pcc") if result.has(f)]
    if fractions:
        size = FIGSIZE_PANELS if len(plane.axes) == 2 else FIGSIZE_LINE
        jobs.append(FigureJob("fractions", size, lambda fig: draw_fraction_panels(
            fig, result, plane, fractions, f"Fraction of the drops{n_text}")))
    if result.has("cone") and is_categorical(result, "cone"):
        jobs.append(FigureJob("cone", map_size(plane), lambda fig: draw_class_figure(
            fig, result, plane, "cone",
            f"Invariant-cone certificate of complete chatter{n_text}", legend_title="cone")))
    return jobs


def collision_figures(result: Result, plane: Plane) -> List[FigureJob]:
    """cor (surface or curve), cor_v0 (curves over v0), outcome (two axes)."""
    jobs = []
    law = law_name(result)
    if result.has("cor"):
        jobs.append(FigureJob("cor", map_size(plane, False), lambda fig: draw_cor_surface(
            fig, result, plane, f"Coefficient of restitution{law}")))
        if len(plane.axes) == 2 and "v0" in plane.axes:
            jobs.append(FigureJob("cor_v0", FIGSIZE_LINE, lambda fig: draw_cor_curves(
                fig, result, plane, f"Coefficient of restitution over the impact speed{law}")))
    if result.has("outcome") and len(plane.axes) == 2:
        jobs.append(FigureJob("outcome", map_size(plane), lambda fig: draw_class_figure(
            fig, result, plane, "outcome", f"How the collision ended{law}",
            legend_title="outcome")))
    return jobs


def law_name(result: Result) -> str:
    """', law bwshc' from the job text (the law is stored as a number), or ''."""
    m = re.search(r"^\s*law\s*=\s*([\w-]+)", result.attr("job"), re.MULTILINE)
    return f", law {m.group(1)}" if m else ""


def stop_figures(result: Result, plane: Plane) -> List[FigureJob]:
    """regime map (what each run proved or detected about its long run, by its horizon),
    Zeno-region map with rebound contours."""
    jobs = []
    if result.has("regime"):
        t_end = result.attr("parameter_t_end")
        horizon = f" by t_end = {float(t_end):g}" if t_end and "t_end" not in result.axes else ""
        jobs.append(FigureJob("regime", map_size(plane), lambda fig: draw_class_figure(
            fig, result, plane, "regime", f"Long-run regime{horizon}", legend_title="regime")))
    if result.has("zeno_resets"):
        jobs.append(FigureJob("zeno", map_size(plane, len(plane.axes) == 2),
                              lambda fig: draw_zeno(fig, result, plane)))
    return jobs


def draw_zeno(fig, result: Result, plane: Plane) -> List[Panel]:
    """Zeno region (zeno_resets > 0) with rebounds as labelled level curves; on one axis
    zeno_resets and rebounds as lines."""
    title = "Zeno region (sequences ended by an orbit reset)"
    if len(plane.axes) == 1:
        names = [n for n in ("zeno_resets", "rebounds") if result.has(n)]
        return draw_line_figure(fig, result, plane, names, title)
    resets = plane.take(result.ds["zeno_resets"])
    codes = np.where(np.isfinite(resets), (resets > 0).astype(float), np.nan)
    cats = [Category("no_zeno", CLASS_LABELS["no_zeno"], CLASS_COLOURS["no_zeno"]),
            Category("zeno", CLASS_LABELS["zeno"], CLASS_COLOURS["zeno"])]
    contour = None
    if result.has("rebounds"):
        contour = ("rebounds", nice_levels(plane.take(result.ds["rebounds"]),
                                           integer=True))
    return draw_class_figure(fig, result, plane, "zeno_resets", title, codes=codes,
                             categories=cats, contour=contour, legend_title="Zeno")


def generic_figure(result: Result, plane: Plane, name: str) -> FigureJob:
    """The figure of any variable NAME: a categorical map or a colour map (lines on one
    axis)."""
    title = str(result.ds[name].attrs.get("long_name", name))
    if is_categorical(result, name):
        return FigureJob(name, map_size(plane), lambda fig: draw_class_figure(
            fig, result, plane, name, title, legend_title=name))
    return FigureJob(name, map_size(plane, False), lambda fig: draw_colour_figure(
        fig, result, plane, name, title))


MODEL_FIGURES = {
    "chatter": chatter_figures,
    "collision": collision_figures,
    "stop-oscillator": stop_figures,
}


def figure_jobs(result: Result, plane: Plane, fields: Optional[List[str]]) -> List[FigureJob]:
    """The model's figures, or those named by FIELDS (figure kinds or variables)."""
    planner = MODEL_FIGURES.get(result.model)
    model_jobs = planner(result, plane) if planner else []
    if planner is None:
        note(f"{result.path}: model {result.model!r} has no figure set; drawing its "
             "categorical outputs and its first output")
        cats = [o for o in result.outputs if is_categorical(result, o)]
        model_jobs = [generic_figure(result, plane, o)
                      for o in dict.fromkeys(cats + result.outputs[:1])]
    if not fields:
        return model_jobs
    by_kind = {j.kind: j for j in model_jobs}
    jobs = []
    for name in fields:
        if name in by_kind:
            jobs.append(by_kind[name])
        elif name in result.ds.data_vars and set(result.ds[name].dims) & set(plane.axes):
            jobs.append(generic_figure(result, plane, name))
        else:
            choices = sorted(set(by_kind) | set(result.outputs) | {"status"})
            raise BadInput(f"{result.path}: no field or figure {name!r} "
                           f"(choose from {', '.join(choices)})")
    return jobs


# ------------------------------------------------------------------ provenance and output


def provenance(result: Result) -> Dict[str, str]:
    """The provenance written into every figure."""
    total, done, failed, pending = result.points()
    return {
        "model": result.model,
        "title": result.attr("title"),
        "job_fingerprint": result.attr("job_fingerprint"),
        "git_commit": result.attr("git_commit"),
        "engine_version": result.attr("engine_version"),
        "source_file": os.path.abspath(result.path),
        "run_state": result.run_state,
        "points": f"{total} total, {done} done, {failed} failed, {pending} pending",
    }


def footer_text(prov: Dict[str, str]) -> str:
    """The one-line provenance footer."""
    parts = [f"impactsweep {prov['engine_version']} ({prov['git_commit']})",
             f"model {prov['model']}", f"job {prov['job_fingerprint']}",
             os.path.basename(prov["source_file"])]
    state = prov["run_state"]
    if state != "complete" or not prov["points"].endswith(" 0 failed, 0 pending"):
        parts.append(f"{RUN_STATES.get(state, state or 'state unknown')}: {prov['points']}")
    return "  |  ".join(parts)


def ascii_text(text: str) -> str:
    """TEXT with anything outside printable ASCII replaced (PDF Info and PNG tEXt stay
    plain, searchable bytes)."""
    return "".join(c if 32 <= ord(c) < 127 else "?" for c in text.replace("\n", " "))


def png_metadata(prov: Dict[str, str], kind: str) -> Dict[str, str]:
    """PNG text chunks: the standard keywords and one per provenance item."""
    meta = {
        "Title": ascii_text(prov["title"] or f"impactsweep {prov['model']}"),
        "Description": ascii_text(f"impactsweep {prov['model']} figure {kind}: "
                                  + footer_text(prov)),
        "Source": ascii_text(prov["source_file"]),
        "Software": f"impactsweep analysis/impactplot.py (matplotlib {matplotlib.__version__})",
    }
    meta.update({key: ascii_text(value) for key, value in prov.items()})
    meta["figure"] = kind
    return meta


def pdf_metadata(prov: Dict[str, str], kind: str) -> Dict[str, str]:
    """PDF Info dictionary: Title, Subject, Keywords (key=value items) and Creator."""
    keywords = "; ".join(f"{k}={prov[k]}" for k in ("model", "job_fingerprint", "git_commit",
                                                    "engine_version", "source_file",
                                                    "run_state"))
    return {
        "Title": ascii_text(prov["title"] or f"impactsweep {prov['model']}"),
        "Subject": ascii_text(f"impactsweep {prov['model']} result {prov['source_file']}, "
                              f"figure {kind}"),
        "Keywords": ascii_text(f"impactsweep; figure={kind}; {keywords}"),
        "Creator": "impactsweep analysis/impactplot.py",
    }


def layout_record(fig, panels: List[Panel], prov: Dict[str, str], kind: str,
                  dpi: float) -> dict:
    """The figure's layout: size, and per panel the pixel box (origin top left), the data
    limits and scales, class colours and contour levels."""
    width, height = fig.get_size_inches()
    height_px = height * dpi
    records = []
    for p in panels:
        box = p.ax.get_window_extent()
        records.append({
            "field": p.variable, "kind": p.kind, "axes": p.axes,
            "xlabel": p.ax.get_xlabel(), "ylabel": p.ax.get_ylabel(),
            "xscale": p.ax.get_xscale(), "yscale": p.ax.get_yscale(),
            "xlim": [float(v) for v in p.ax.get_xlim()],
            "ylim": [float(v) for v in p.ax.get_ylim()],
            "bbox_px": [float(box.x0), float(height_px - box.y1),
                        float(box.x1), float(height_px - box.y0)],
            "classes": p.classes,
            "contours": p.contours,
        })
    return {"figure": kind, "source_file": prov["source_file"], "model": prov["model"],
            "dpi": dpi, "size_inches": [float(width), float(height)],
            "size_px": [round(width * dpi), round(height * dpi)], "panels": records}


def write_figure(job: FigureJob, prov: Dict[str, str], footer: str, title: str, prefix: str,
                 formats: List[str], dpi: float, layout: bool) -> List[str]:
    """Draw one figure (its title if any, the provenance footer) and write it in each
    format (and its layout file); the paths."""
    fig = plt.figure(figsize=job.size, dpi=dpi, layout="constrained")
    fig.get_layout_engine().set(rect=(0, FOOTER_HEIGHT, 1, 1 - FOOTER_HEIGHT))
    try:
        panels = job.draw(fig)
        if title:
            fig.suptitle(title, fontsize=11)
        fig.text(0.01, 0.012, footer, fontsize=6.5, color="0.35", ha="left", va="bottom")
        written = []
        for fmt in formats:
            path = f"{prefix}_{job.kind}.{fmt}"
            meta = png_metadata(prov, job.kind) if fmt == "png" else pdf_metadata(prov, job.kind)
            fig.savefig(path, format=fmt, dpi=dpi, metadata=meta)
            written.append(path)
        if layout:
            fig.canvas.draw()
            path = f"{prefix}_{job.kind}.json"
            with open(path, "w", encoding="utf-8") as f:
                json.dump(layout_record(fig, panels, prov, job.kind, dpi), f, indent=1)
                f.write("\n")
            written.append(path)
        return written
    finally:
        plt.close(fig)


def render(job: FigureJob, result: Result, prefix: str, formats: List[str], dpi: float,
           layout: bool) -> List[str]:
    """Draw one figure of a result file in each format; the paths."""
    prov = provenance(result)
    return write_figure(job, prov, footer_text(prov), result.attr("title"), prefix, formats,
                        dpi, layout)


# ------------------------------------------------------------------------- trace files
# `impactsweep trace` writes the trajectory of one point (root attribute
# impactsweep_trace): a `sample` dimension with the coordinate t and one variable per
# channel of the model's trace, an `event` dimension with event_t, event_kind (its
# flag_meanings name the kinds) and the channels' values there (event_CHANNEL). These
# functions draw them; main() hands such a file to draw_trace_file.

TRACE_EVENT_COLOURS = {
    # collision
    "contact": "#000000", "max_compression": "#0072b2", "min_compression": "#56b4e9",
    "force_max": "#d55e00", "kink": "#7f7f7f", "separation": "#009e73", "rest": "#e69f00",
    "solver_failure": FAILED_COLOUR,
    # chatter (the decisions take the class colours)
    "pcc_seen": "#009e73", "energy_rose": FAILED_COLOUR,
    # stop oscillator
    "rebound": "#0072b2", "zeno_reset": "#cc79a7", "contact_start": "#d55e00",
    "contact_end": "#e69f00", "graze": "#f0e442", "periodic_detected": "#009e73",
    "end": "#000000",
}
TRACE_EVENT_MARKERS = {"rebound": "v", "zeno_reset": "D", "contact_start": ">",
                       "contact_end": "<", "separation": "s", "rest": "s", "horizon": "s",
                       "end": "s", "force_max": "^", "max_compression": "o"}
TRACE_LINE_COLOUR = "#0072b2"
TRACE_SECOND_COLOUR = "#d55e00"
FIGSIZE_TRACE = (7.0, 5.0)
FIGSIZE_TRACE_PANELS = (11.0, 4.6)
FIGSIZE_TRACE_STACK = (7.0, 7.0)


@dataclass
class Trace:
    """One trace file of `impactsweep trace`, loaded into memory."""

    path: str
    ds: xr.Dataset
    model: str
    kinds: List[str]       # event kinds, by flag value

    def attr(self, name: str, default: str = "") -> str:
        """A root attribute as a string ('' if absent)."""
        value = self.ds.attrs.get(name, default)
        if isinstance(value, bytes):
            value = value.decode("utf-8", "replace")
        return str(value)

    def channels(self) -> List[str]:
        """The channels (variables over `sample`) in file order."""
        return [v for v in self.ds.data_vars if self.ds[v].dims == ("sample",)]

    def event_names(self) -> List[str]:
        """The kind of every event, in order."""
        return [self.kinds[k] if 0 <= k < len(self.kinds) else f"kind {k}"
                for k in self.ds["event_kind"].values.astype(int)]


def is_trace_file(path: str) -> bool:
    """Whether PATH is a trace file of `impactsweep trace` (attribute impactsweep_trace)."""
    try:
        if not os.path.isfile(path) or not h5py.is_hdf5(path):
            return False
        with h5py.File(path, "r") as f:
            return "impactsweep_trace" in f.attrs
    except OSError:
        return False


def open_trace(path: str) -> Trace:
    """Open PATH as a trace file, or raise BadInput saying why not."""
    try:
        with xr.open_dataset(path, engine="h5netcdf") as ds:
            ds = ds.load()
    except Exception as e:  # h5netcdf / xarray raise many kinds
        raise BadInput(f"{path}: cannot read the trace file: {e}") from None
    if "t" not in ds.coords or "event_kind" not in ds.variables:
        raise BadInput(f"{path}: malformed trace file: no coordinate t or no event_kind")
    meanings = ds["event_kind"].attrs.get("flag_meanings", "")
    return Trace(path=path, ds=ds, model=str(ds.attrs.get("model", "")),
                 kinds=str(meanings).split())


def trace_label(trace: Trace, name: str) -> str:
    """Axis label of channel NAME (or t): its symbol or name, and its units."""
    units = str(trace.ds[name].attrs.get("units", "")) if name in trace.ds.variables else ""
    return f"{symbol(name) or name}{units_suffix(units)}"


def trace_event_colour(name: str, index: int) -> str:
    """The colour of event kind NAME (flag value INDEX if it is not in the tables)."""
    if name in TRACE_EVENT_COLOURS:
        return TRACE_EVENT_COLOURS[name]
    return CLASS_COLOURS.get(name, FALLBACK_COLOURS[index % len(FALLBACK_COLOURS)])


def mark_events(ax, trace: Trace, x: str, y: str, skip: Sequence[str] = ()) -> Dict[str, str]:
    """The events at their (x, y) channel values (x may be 't'), one marker per kind;
    returns the kinds drawn and their colours."""
    names = trace.event_names()
    xs = trace.ds["event_t"].values if x == "t" else trace.ds[f"event_{x}"].values
    ys = trace.ds["event_t"].values if y == "t" else trace.ds[f"event_{y}"].values
    drawn = {}
    for k, kind in enumerate(trace.kinds):
        pick = np.array([n == kind for n in names], dtype=bool)
        if kind in skip or not pick.any():
            continue
        colour = trace_event_colour(kind, k)
        label = CLASS_LABELS.get(kind, kind.replace("_", " "))
        ax.scatter(xs[pick], ys[pick], s=28 if pick.sum() < 200 else 8, color=colour,
                   marker=TRACE_EVENT_MARKERS.get(kind, "o"), edgecolors="white",
                   linewidths=0.5, zorder=4, label=f"{label} ({int(pick.sum())})")
        drawn[kind] = colour
    return drawn


def trace_result_text(trace: Trace, names: Sequence[str]) -> str:
    """'status done, cor = 0.5639, ...' from the file's output_NAME attributes."""
    parts = [f"status {trace.attr('status')}"]
    for name in names:
        value = trace.ds.attrs.get(f"output_{name}")
        if value is None:
            continue
        if isinstance(value, (bytes, str)):
            parts.append(f"{name} {value.decode() if isinstance(value, bytes) else value}")
        else:
            parts.append(f"{name} = {float(np.asarray(value).item()):.6g}")
    return ", ".join(parts)


def trace_panel(ax, channel: str) -> Panel:
    """The layout record of a trace panel."""
    return Panel(ax, channel, "lines", ["t"])


def draw_collision_loop(fig, trace: Trace) -> List[Panel]:
    """Force against indentation from contact to the end of the contact: the hysteresis
    loop of the Bouc-Wen paper's figures, with the events."""
    ax = fig.add_subplot(1, 1, 1)
    ds = trace.ds
    ax.plot(ds["indentation"].values, ds["force"].values, color=TRACE_LINE_COLOUR, lw=1.3,
            label="F(-X)")
    ax.axhline(0.0, color="0.6", lw=0.6)
    colours = mark_events(ax, trace, "indentation", "force", skip=("kink",))
    ax.set_xlabel("indentation -X" + units_suffix(str(ds["indentation"].attrs.get("units"))))
    ax.set_ylabel("contact force F" + units_suffix(str(ds["force"].attrs.get("units"))))
    law = trace.attr("parameter_law")
    ax.set_title(f"collision {law}: force-indentation loop\n"
                 f"{trace_result_text(trace, ('cor', 'outcome', 'x_max', 'x_sep'))}",
                 fontsize=9)
    ax.legend(fontsize=7, loc="best")
    return [Panel(ax, "force", "lines", ["indentation"], classes=colours)]


def draw_collision_history(fig, trace: Trace) -> List[Panel]:
    """x(t), v(t) and F(t) over the contact."""
    axes = fig.subplots(3, 1, sharex=True)
    panels = []
    for ax, name, colour in zip(axes, ("x", "v", "force"),
                                (TRACE_LINE_COLOUR, TRACE_SECOND_COLOUR, "#009e73")):
        ax.plot(trace.ds["t"].values, trace.ds[name].values, color=colour, lw=1.2)
        ax.axhline(0.0, color="0.75", lw=0.6)
        mark_events(ax, trace, "t", name, skip=("kink",))
        ax.set_ylabel(trace_label(trace, name))
        panels.append(trace_panel(ax, name))
    axes[0].set_title(f"collision {trace.attr('parameter_law')}: "
                      f"{trace_result_text(trace, ('cor', 't_sep', 'outcome'))}", fontsize=9)
    axes[0].legend(fontsize=7, loc="best")
    axes[-1].set_xlabel(trace_label(trace, "t"))
    return panels


def draw_chatter_impacts(fig, trace: Trace) -> List[Panel]:
    """One drop's impact sequence: log2 of the height of the centre of mass and of the
    kinetic energy against the impact number, coloured by the vertex hit."""
    axes = fig.subplots(1, 2)
    ds = trace.ds
    number = ds["impacts"].values
    vertex = ds["vertex"].values.astype(int)
    vertices = sorted(v for v in set(vertex.tolist()) if v >= 0)
    panels = []
    for ax, name in zip(axes, ("log2_height", "log2_energy")):
        values = ds[name].values
        ax.plot(number, values, color="0.75", lw=0.8, zorder=1)
        for v in vertices:
            pick = vertex == v
            ax.scatter(number[pick], values[pick], s=10,
                       color=FALLBACK_COLOURS[v % len(FALLBACK_COLOURS)], zorder=3,
                       label=f"vertex {v}")
        ax.scatter(number[vertex < 0], values[vertex < 0], s=16, color="#000000",
                   marker="s", zorder=3, label="start")
        colours = mark_events(ax, trace, "impacts", name)
        ax.set_xlabel("impact")
        ax.set_ylabel({"log2_height": "log$_2$ h (height of the centre of mass)",
                       "log2_energy": "log$_2$ kinetic energy"}[name])
        panels.append(Panel(ax, name, "lines", ["impacts"], classes=colours))
    decision = [n for n in trace.event_names() if n in ("icc", "cc", "pcc")]
    drop = trace.ds.attrs.get("trace_option_drop", 0)
    axes[0].legend(fontsize=7, loc="best", ncol=2 if len(vertices) > 6 else 1)
    fig.suptitle(f"chatter n = {float(np.asarray(trace.ds.attrs.get('parameter_n', 0))):g}: "
                 f"drop {int(np.asarray(drop).item())}, "
                 f"{CLASS_LABELS.get(decision[-1], decision[-1]) if decision else '?'} after "
                 f"{int(number[-1])} impacts (point: "
                 f"{trace_result_text(trace, ('p_icc', 'p_cc', 'p_pcc'))})", fontsize=9)
    return panels


def draw_stop_phase(fig, trace: Trace) -> List[Panel]:
    """Phase portraits x1-v1 (the stop dashed) and x2-v2, rebounds and contact phases
    marked."""
    axes = fig.subplots(1, 2)
    ds = trace.ds
    stop = float(np.asarray(ds.attrs.get("parameter_s", np.nan)))
    panels = []
    for ax, (x, v) in zip(axes, (("x1", "v1"), ("x2", "v2"))):
        ax.plot(ds[x].values, ds[v].values, color=TRACE_LINE_COLOUR, lw=0.8)
        colours = mark_events(ax, trace, x, v, skip=("end",))
        if x == "x1" and np.isfinite(stop):
            ax.axvline(stop, color="0.3", lw=0.9, ls="--", label="stop s")
        ax.set_xlabel(trace_label(trace, x))
        ax.set_ylabel(trace_label(trace, v))
        panels.append(Panel(ax, v, "lines", [x], classes=colours))
    axes[0].legend(fontsize=7, loc="best")
    fig.suptitle("stop oscillator: " + trace_result_text(
        trace, ("regime", "rebounds", "zeno_resets", "contact_phases")), fontsize=9)
    return panels


def draw_stop_energy(fig, trace: Trace) -> List[Panel]:
    """The energy against time, lost at rebounds and resets only."""
    ax = fig.add_subplot(1, 1, 1)
    ax.plot(trace.ds["t"].values, trace.ds["energy"].values, color=TRACE_LINE_COLOUR, lw=1.2)
    colours = mark_events(ax, trace, "t", "energy")
    ax.set_xlabel(trace_label(trace, "t"))
    ax.set_ylabel(trace_label(trace, "energy"))
    ax.set_title("stop oscillator: " + trace_result_text(trace, ("energy", "energy_lost",
                                                                  "regime")), fontsize=9)
    ax.legend(fontsize=7, loc="best")
    return [Panel(ax, "energy", "lines", ["t"], classes=colours)]


def draw_trace_channels(fig, trace: Trace, names: Sequence[str]) -> List[Panel]:
    """Channels NAMES against t, one panel each (any model)."""
    axes = np.atleast_1d(fig.subplots(len(names), 1, sharex=True))
    panels = []
    for ax, name in zip(axes, names):
        ax.plot(trace.ds["t"].values, trace.ds[name].values, color=TRACE_LINE_COLOUR, lw=1.0)
        if f"event_{name}" in trace.ds.variables:
            mark_events(ax, trace, "t", name)
        ax.set_ylabel(trace_label(trace, name))
        panels.append(trace_panel(ax, name))
    axes[-1].set_xlabel(trace_label(trace, "t"))
    return panels


def trace_figures(trace: Trace) -> List[FigureJob]:
    """The figures of a trace of TRACE's model (its channels against t for others)."""
    if trace.model == "collision":
        return [FigureJob("loop", FIGSIZE_TRACE, lambda fig: draw_collision_loop(fig, trace)),
                FigureJob("history", FIGSIZE_TRACE_STACK,
                          lambda fig: draw_collision_history(fig, trace))]
    if trace.model == "chatter":
        return [FigureJob("impacts", FIGSIZE_TRACE_PANELS,
                          lambda fig: draw_chatter_impacts(fig, trace))]
    if trace.model == "stop-oscillator":
        return [FigureJob("phase", FIGSIZE_TRACE_PANELS,
                          lambda fig: draw_stop_phase(fig, trace)),
                FigureJob("energy", FIGSIZE_TRACE, lambda fig: draw_stop_energy(fig, trace))]
    names = trace.channels()[:6]
    return [FigureJob("channels", (7.0, 1.6 + 1.5 * len(names)),
                      lambda fig: draw_trace_channels(fig, trace, names))]


def trace_jobs(trace: Trace, fields: Optional[List[str]]) -> List[FigureJob]:
    """The trace's figures, or those FIELDS name (figure kinds or channels)."""
    jobs = trace_figures(trace)
    if not fields:
        return jobs
    by_kind = {j.kind: j for j in jobs}
    picked = []
    for name in fields:
        if name in by_kind:
            picked.append(by_kind[name])
        elif name in trace.channels():
            picked.append(FigureJob(name, FIGSIZE_LINE, lambda fig, n=name:
                                    draw_trace_channels(fig, trace, [n])))
        else:
            raise BadInput(f"{trace.path}: no figure or channel {name!r} (choose from "
                           f"{', '.join(sorted(set(by_kind) | set(trace.channels())))})")
    return picked


def trace_provenance(trace: Trace) -> Dict[str, str]:
    """The provenance written into every figure of a trace (the keys of provenance())."""
    return {
        "model": trace.model,
        "title": trace.attr("title"),
        "job_fingerprint": "",
        "git_commit": trace.attr("git_commit"),
        "engine_version": trace.attr("engine_version"),
        "source_file": os.path.abspath(trace.path),
        "run_state": trace.attr("status"),
        "points": trace.attr("source"),
    }


def trace_footer(prov: Dict[str, str]) -> str:
    """The one-line provenance footer of a trace figure."""
    return "  |  ".join([f"impactsweep {prov['engine_version']} ({prov['git_commit']})",
                         f"trace of one {prov['model']} point: {prov['points']}",
                         f"status {prov['run_state']}", os.path.basename(prov["source_file"])])


def render_trace(job: FigureJob, trace: Trace, prefix: str, formats: List[str], dpi: float,
                 layout: bool) -> List[str]:
    """Draw one figure of a trace in each format; the paths."""
    prov = trace_provenance(trace)
    return write_figure(job, prov, trace_footer(prov), "", prefix, formats, dpi, layout)


def draw_trace_file(args: argparse.Namespace) -> int:
    """Draws the figures of the trace file args.file; the exit status."""
    try:
        trace = open_trace(args.file)
        jobs = trace_jobs(trace, args.fields)
        out_dir = os.path.dirname(args.output)
        if out_dir:
            os.makedirs(out_dir, exist_ok=True)
        for job in jobs:
            for path in render_trace(job, trace, args.output, args.formats, args.dpi,
                                     args.layout):
                print(path)
    except BadInput as e:
        print(f"{PROGRAM}: {' '.join(str(e).split())}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except OSError as e:
        print(f"{PROGRAM}: cannot write the figures of {args.file}: {e}", file=sys.stderr)
        return EXIT_NOTHING_TO_DRAW
    return 0


# ------------------------------------------------------------------------ command line


def warn(text: str) -> None:
    """A warning on stderr."""
    print(f"{PROGRAM}: warning: {text}", file=sys.stderr)


def note(text: str) -> None:
    """A note on stderr (what was drawn differently from the whole file)."""
    print(f"{PROGRAM}: note: {text}", file=sys.stderr)


def parse_args(argv: Optional[Sequence[str]]) -> argparse.Namespace:
    """The command line."""
    p = argparse.ArgumentParser(
        prog="impactplot.py",
        description="Draw the figures of an impactsweep result file (PNG and PDF, with "
                    "provenance in the metadata and a footer).")
    p.add_argument("file", help="impactsweep result file (.h5), complete or partial")
    p.add_argument("--output", "-o", metavar="PREFIX",
                   help="write PREFIX_KIND.png etc. (default: FILE without .h5)")
    p.add_argument("--format", default="png,pdf", metavar="png,pdf",
                   help="comma-separated output formats (default png,pdf)")
    p.add_argument("--field", metavar="NAME[,NAME]",
                   help="draw only these figures (a figure kind of the model, e.g. regime, "
                        "or any output variable)")
    p.add_argument("--dpi", type=float, default=150.0, help="resolution (default 150)")
    p.add_argument("--layout", action="store_true",
                   help="also write PREFIX_KIND.json with each panel's pixel box and data "
                        "limits (for tests and post-processing)")
    args = p.parse_args(argv)
    args.formats = [f.strip().lower() for f in args.format.split(",") if f.strip()]
    bad = [f for f in args.formats if f not in ("png", "pdf")]
    if bad or not args.formats:
        p.error(f"--format: {', '.join(bad) or 'nothing'} (choose png, pdf)")
    if not (10 <= args.dpi <= 2400):
        p.error(f"--dpi {args.dpi:g} is outside 10..2400")
    args.fields = [f.strip() for f in args.field.split(",") if f.strip()] if args.field else None
    if args.output is None:
        root, ext = os.path.splitext(args.file)
        args.output = root if ext.lower() in (".h5", ".hdf5", ".nc") else args.file
    return args


def main(argv: Optional[Sequence[str]] = None) -> int:
    """Run the command line; the exit status."""
    args = parse_args(argv)
    if is_trace_file(args.file):  # a trajectory of `impactsweep trace`
        return draw_trace_file(args)
    try:
        whole = open_result(args.file)
        slices = choice_slices(whole)
        if len(slices) > 1:
            note(f"{args.file}: one set of figures per choice ({len(slices)}: "
                 f"{', '.join(suffix[1:] for suffix, _ in slices)})")
        for suffix, result in slices:
            status = draw_result(args, result, args.output + suffix)
            if status != 0:
                return status
    except BadInput as e:
        print(f"{PROGRAM}: {' '.join(str(e).split())}", file=sys.stderr)  # one line
        return EXIT_BAD_INPUT
    except OSError as e:  # the output cannot be written
        print(f"{PROGRAM}: cannot write the figures of {args.file}: {e}", file=sys.stderr)
        return EXIT_NOTHING_TO_DRAW
    return 0


def draw_result(args: argparse.Namespace, result: Result, output: str) -> int:
    """Draws RESULT's figures under the prefix OUTPUT; the exit status."""
    plane = default_plane(result)
    if plane is None:
        print(f"{PROGRAM}: {args.file}: a single grid point, nothing to draw",
              file=sys.stderr)
        return EXIT_NOTHING_TO_DRAW
    if plane.note:
        axes = real_axes(result)
        at = ", ".join(f"{a} = {float(result.ds[a].values[0]):.4g}" for a in axes[2:])
        note(f"{args.file} has {len(axes)} axes ({' '.join(axes)}); drawing 2-D slices "
             f"over ({', '.join(plane.axes)}) at the first index of the others: {at}")
    jobs = figure_jobs(result, plane, args.fields)
    if not jobs:
        print(f"{PROGRAM}: {args.file}: nothing this tool can draw for model "
              f"{result.model!r}", file=sys.stderr)
        return EXIT_NOTHING_TO_DRAW
    total, done, failed, pending = result.points()
    if pending or failed:
        note(f"{args.file}: {done} of {total} points done, {failed} failed, {pending} "
             "not computed (drawn as such)")
    out_dir = os.path.dirname(output)
    if out_dir:
        os.makedirs(out_dir, exist_ok=True)
    for job in jobs:
        for path in render(job, result, output, args.formats, args.dpi, args.layout):
            print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
