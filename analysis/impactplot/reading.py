"""reading: result and trace files of impactsweep, and what part of their grid a figure
shows (planes, selections, facets).

A Result wraps the xarray Dataset of a result file (or any Dataset opened from one, as
in a notebook) with its model, axes in grid order, outputs and per-point status. A
Facet is one panel's share of it: the two (or one) axes drawn and the index of every
other axis.
"""

import itertools
import os
from dataclasses import dataclass, field
from typing import Dict, List, Optional, Sequence, Tuple

# Read files that a running sweep holds open (HDF5's file locks would refuse them); the
# engine writes raw data only while computing, so a reader sees a consistent structure.
os.environ.setdefault("HDF5_USE_FILE_LOCKING", "FALSE")

import h5py  # noqa: E402
import numpy as np  # noqa: E402
import xarray as xr  # noqa: E402

from .labels import format_value  # noqa: E402

SUPPORTED_FORMAT = 4  # the newest impactsweep_format this tool knows (1 to 4: 3 adds
# checksums in /run, 4 the failed points' reasons there, which drawing does not need)
MAX_FACETS = 6        # panels along one facet dimension at most (evenly picked beyond)


class BadInput(Exception):
    """An input the tool refuses (exit status 2); the message names the file."""


def note(text: str) -> None:
    """A note on stderr (what was drawn differently from the whole file)."""
    import sys
    print(f"impactplot: note: {text}", file=sys.stderr)


def warn(text: str) -> None:
    """A warning on stderr."""
    import sys
    print(f"impactplot: warning: {text}", file=sys.stderr)


# ----------------------------------------------------------------------------- results


@dataclass
class Result:
    """One impactsweep result (a file, or a Dataset opened from one)."""

    path: str
    ds: xr.Dataset
    model: str
    axes: List[str]        # grid order (the dimensions present in ds)
    outputs: List[str]
    status: xr.DataArray   # 0 pending, 1 done, >= 2 failed
    run_state: str = ""    # /run/state: created, running, interrupted, complete, ...
    label: str = ""        # what tells this file from the others of a figure

    @classmethod
    def from_dataset(cls, ds: xr.Dataset, path: str = "", run_state: str = "") -> "Result":
        """A Result over DS (any selection of a result file's Dataset, as xarray reads it
        or as impactsweep.open_dataset decodes it)."""
        ds = encode_categories(ds)
        axes = [a for a in str(ds.attrs.get("axes", "")).split() if a in ds.dims]
        if not axes:
            axes = list(ds.dims)
        outputs = [o for o in str(ds.attrs.get("outputs", "")).split() if o in ds.data_vars]
        if not outputs:
            outputs = [v for v in ds.data_vars if v != "status"]
        if not outputs:
            raise BadInput(f"{path or 'dataset'}: no output variables")
        if "status" in ds.data_vars:
            status = ds["status"].fillna(0).astype(np.int64)
        else:  # older files, or a user's dataset: a point is done where its output is
            status = xr.where(ds[outputs[0]].notnull(), 1, 0)
        return cls(path=path or str(ds.encoding.get("source", "dataset")), ds=ds,
                   model=str(ds.attrs.get("model", "")), axes=axes, outputs=outputs,
                   status=status, run_state=run_state)

    def attr(self, name: str, default: str = "") -> str:
        """A root attribute as a string ('' if absent)."""
        value = self.ds.attrs.get(name, default)
        if isinstance(value, bytes):
            value = value.decode("utf-8", "replace")
        if isinstance(value, np.ndarray) and value.size == 1:
            value = value.ravel()[0]
        return str(value)

    def has(self, name: str) -> bool:
        """Whether the result has a variable NAME."""
        return name in self.ds.data_vars

    def points(self) -> Tuple[int, int, int, int]:
        """(total, done, failed, pending) counted from `status`; a point a refinement
        inferred (status 7) counts as pending here (not computed), see inferred()."""
        s = self.status.values
        failed = (s >= 2) & (s != 7)
        return (int(s.size), int((s == 1).sum()), int(failed.sum()),
                int(((s == 0) | (s == 7)).sum()))

    def inferred(self) -> int:
        """Points a refinement inferred from the corners of their cell (status 7)."""
        return int((self.status.values == 7).sum())

    def isel(self, pick: Dict[str, object]) -> "Result":
        """The result restricted by an isel dict (lists keep the dimension)."""
        return Result(path=self.path, ds=self.ds.isel(pick), model=self.model,
                      axes=self.axes, outputs=self.outputs, status=self.status.isel(pick),
                      run_state=self.run_state, label=self.label)


def encode_categories(ds: xr.Dataset) -> xr.Dataset:
    """DS with every variable that impactsweep.decode turned into names (a `categories`
    attribute, strings) back in the file's codes: floats, NaN where not computed, with
    flag_values and flag_meanings."""
    decoded = [n for n, da in ds.data_vars.items()
               if "categories" in da.attrs and da.dtype.kind in "US"]
    if not decoded:
        return ds
    ds = ds.copy()
    for name in decoded:
        da = ds[name]
        names = str(da.attrs.get("flag_meanings", da.attrs["categories"])).split()
        values = np.atleast_1d(da.attrs.get("flag_values", np.arange(len(names))))
        codes = np.full(da.shape, np.nan)
        for code, category in zip(values, names):
            codes[da.values == category] = code
        attrs = {k: v for k, v in da.attrs.items() if k != "categories"}
        attrs.update(flag_values=values, flag_meanings=" ".join(names))
        ds[name] = xr.DataArray(codes, dims=da.dims, coords=da.coords, attrs=attrs)
    return ds


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
            if "run/state" in f:  # format 2 on: the run state is raw data in /run
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
    axes = str(ds.attrs.get("axes", "")).split() or list(ds.dims)
    missing = [a for a in axes if a not in ds.coords]
    if missing:
        raise BadInput(f"{path}: malformed result file: axis {missing[0]} has no coordinate")
    return Result.from_dataset(ds, path=path, run_state=run_state)


def is_choice_axis(result: Result, name: str) -> bool:
    """A swept choice (the collision law, the form, the integrator): its coordinate holds
    names; it is never a drawing axis."""
    coord = result.ds[name]
    return str(coord.attrs.get("scale", "")) == "choice" or coord.dtype.kind in "OUS"


def real_axes(result: Result) -> List[str]:
    """The numeric axes with more than one value, in grid order."""
    return [a for a in result.axes if result.ds.sizes[a] > 1 and not is_choice_axis(result, a)]


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


# ------------------------------------------------------------------------------ planes


@dataclass
class Plane:
    """The 1-D or 2-D section of a result's grid that one panel shows."""

    axes: List[str]                  # x first
    selection: Dict[str, int]        # index of every other axis
    fixed: str = ""                  # the other axes' values, for the panel title

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
        """'log' or 'linear' per axis."""
        return [axis_scale(result, a) for a in self.axes]

    def at(self, result: Result) -> Dict[str, object]:
        """The value of every other axis (numbers as floats, choices as names)."""
        out = {}
        for a, i in self.selection.items():
            v = result.ds[a].values[i]
            out[a] = str(v) if is_choice_axis(result, a) else float(v)
        return out


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


def dataset_plane(result: Result, x: Optional[str] = None, y: Optional[str] = None) -> Plane:
    """The plane of a Dataset given to a drawing function: its real axes (X, Y if given),
    every one-value axis at its only index. A Dataset with more than two real axes is
    refused: select (ds.sel(n=5)) or facet first."""
    axes = real_axes(result)
    want = [a for a in (x, y) if a]
    for a in want:
        if a not in result.ds.dims:
            raise ValueError(f"{a} is not a dimension of the dataset ({', '.join(result.ds.dims)})")
    rest = [a for a in axes if a not in want]
    chosen = (want + rest)[:max(len(want), min(2, len(axes)))]
    if not chosen:
        raise ValueError("the dataset has a single grid point: nothing to draw")
    left = [a for a in axes if a not in chosen]
    if left:
        raise ValueError(f"the dataset has {len(axes)} axes with several values "
                         f"({', '.join(axes)}): select the others first, e.g. "
                         f"ds.sel({left[0]}={result.ds[left[0]].values[0]!r})")
    choice = [a for a in result.axes if a not in chosen and result.ds.sizes[a] > 1]
    if choice:
        raise ValueError(f"select one value of the choice axis {choice[0]} first, e.g. "
                         f"ds.sel({choice[0]}={str(result.ds[choice[0]].values[0])!r})")
    selection = {a: 0 for a in result.axes if a not in chosen}
    return Plane(axes=chosen, selection=selection,
                 fixed=fixed_text(result, [a for a in selection]))


def fixed_text(result: Result, names: Sequence[str]) -> str:
    """'n = 4, law = bwshc' for the one-value axes NAMES (at index 0)."""
    return ", ".join(format_value(a, result.ds[a].values[0], result.ds[a].attrs)
                     for a in names)


# ------------------------------------------------------------------------------ facets


@dataclass
class Facet:
    """One panel of a figure: a result, the plane it shows, its place and label."""

    result: Result
    plane: Plane
    row: int = 0
    col: int = 0
    label: str = ""


@dataclass
class FigurePlan:
    """The panels of one set of figures (one per choice value left unfaceted)."""

    suffix: str                       # '' or '_law-bwshc' (the output names)
    facets: List[Facet]
    rows: int = 1
    cols: int = 1
    notes: List[str] = field(default_factory=list)

    @property
    def plane_axes(self) -> List[str]:
        return self.facets[0].plane.axes


def select_index(result: Result, name: str, text: str) -> int:
    """The index of axis NAME at the value TEXT: a choice's name, or the axis value
    nearest to the number (a note when it is not on the axis)."""
    coord = result.ds[name]
    if is_choice_axis(result, name):
        names = [str(v) for v in coord.values]
        if text not in names:
            raise BadInput(f"{result.path}: --sel {name}={text}: {name} is one of "
                           f"{', '.join(names)}")
        return names.index(text)
    try:
        value = float(text)
    except ValueError:
        raise BadInput(f"{result.path}: --sel {name}={text}: not a number") from None
    values = np.asarray(coord.values, dtype=float)
    i = int(np.argmin(np.abs(values - value)))
    span = float(np.ptp(values)) or abs(value) or 1.0
    if abs(values[i] - value) > 1e-9 * span:
        note(f"{result.path}: --sel {name}={text} is not a value of the axis; drawing the "
             f"nearest, {name} = {values[i]:.6g}")
    return i


def file_labels(results: List[Result]) -> List[str]:
    """What tells the files apart: the fixed parameters that differ ('n = 3'), else the
    titles, else the file names."""
    keys = sorted({k for r in results for k in r.ds.attrs if k.startswith("parameter_")})
    differ = [k for k in keys if len({r.attr(k) for r in results}) > 1]
    if differ:
        out = []
        for r in results:
            parts = []
            for k in differ:
                name, value = k[len("parameter_"):], r.attr(k)
                try:
                    parts.append(format_value(name, float(value)))
                except ValueError:
                    parts.append(f"{name} = {value}")
            out.append(", ".join(parts))
        return out
    titles = [r.attr("title") for r in results]
    if all(titles) and len(set(titles)) == len(titles):
        return titles
    return [os.path.basename(r.path) for r in results]


def thin(count: int) -> List[int]:
    """Indices 0..count-1, at most MAX_FACETS of them evenly picked."""
    if count <= MAX_FACETS:
        return list(range(count))
    return sorted(set(np.round(np.linspace(0, count - 1, MAX_FACETS)).astype(int).tolist()))


def plan_figures(results: List[Result], sel: Dict[str, str], facets: List[str],
                 draw_axes: Optional[List[str]] = None) -> List[FigurePlan]:
    """The panels of the figures of RESULTS (one file, or several side by side): SEL
    fixes axes at values, FACETS (at most two, columns then rows; several files are the
    columns) spreads axes over panels; DRAW_AXES names the x (and y) axes. Axes left over
    become facets while there is room, then are taken at their first index (a note says
    so); swept choices left over give one set of figures each."""
    multi = len(results) > 1
    if multi:
        models = {r.model for r in results}
        if len(models) > 1:
            raise BadInput(f"{results[0].path}: the files are of different models "
                           f"({', '.join(sorted(models))}); one figure needs one model")
        for r, label in zip(results, file_labels(results)):
            r.label = label
    dims = (["file"] if multi else []) + list(facets)
    if len(dims) > 2:
        raise BadInput(f"{results[0].path}: at most two facet dimensions (columns, rows); "
                       f"got {', '.join(dims)}")
    first = results[0]
    for name in list(sel) + list(facets) + list(draw_axes or []):
        for r in results:
            if name not in r.axes:
                raise BadInput(f"{r.path}: {name} is not an axis of the file (axes: "
                               f"{', '.join(r.axes)})")
    for name in facets:
        if name in sel:
            raise BadInput(f"{first.path}: {name} is both selected (--sel) and a facet")
    notes = []
    fixed = {}  # per file: axis -> index
    for k, r in enumerate(results):
        fixed[k] = {name: select_index(r, name, text) for name, text in sel.items()}
    # the drawing axes
    candidates = [a for a in real_axes(first) if a not in sel and a not in facets]
    if draw_axes:
        for a in draw_axes:
            if is_choice_axis(first, a):
                raise BadInput(f"{first.path}: {a} is a choice; it cannot be a drawing axis "
                               "(facet it: --facet {a})")
        plane_axes = list(draw_axes)
    else:
        plane_axes = candidates[:2]
    if not plane_axes:
        raise BadInput(f"{first.path}: nothing left to draw over (a single grid point"
                       + (" after --sel/--facet)" if sel or facets else ")"))
    leftover = [a for a in candidates if a not in plane_axes]
    for a in leftover:
        if len(dims) < 2:
            dims.append(a)
            notes.append(f"{first.path} has more than two axes: panels over {a}")
        else:
            for k in fixed:
                fixed[k][a] = 0
            notes.append(f"{first.path}: {a} drawn at its first value, "
                         f"{format_value(a, first.ds[a].values[0], first.ds[a].attrs)} "
                         "(choose with --sel "
                         f"{a}=VALUE)")
    # swept choices not selected or faceted: one set of figures each
    choices = [a for a in first.axes if is_choice_axis(first, a) and first.ds.sizes[a] > 1
               and a not in sel and a not in dims]
    plans = []
    for index in itertools.product(*[range(first.ds.sizes[a]) for a in choices]):
        names = [str(first.ds[a].values[i]) for a, i in zip(choices, index)]
        suffix = "".join(f"_{a}-{n}" for a, n in zip(choices, names))
        plan = FigurePlan(suffix=suffix, facets=[], notes=list(notes))
        per_dim = []
        for d in dims:
            if d == "file":
                per_dim.append([("file", k) for k in range(len(results))])
            else:
                idx = thin(first.ds.sizes[d])
                if len(idx) < first.ds.sizes[d]:
                    plan.notes.append(f"{first.path}: {len(idx)} of the {first.ds.sizes[d]} "
                                      f"values of {d} in panels")
                per_dim.append([(d, i) for i in idx])
        plan.cols = len(per_dim[0]) if per_dim else 1
        plan.rows = len(per_dim[1]) if len(per_dim) > 1 else 1
        for place in itertools.product(*[range(len(d)) for d in per_dim]):
            cell = [per_dim[n][i] for n, i in enumerate(place)]  # (dimension, index)
            k = next((i for d, i in cell if d == "file"), 0)
            r = results[k]
            selection = dict(fixed[k])  # --sel, and axes left over at their first value
            selection.update({a: i for a, i in zip(choices, index)})
            labels = []
            for d, i in cell:
                if d == "file":
                    labels.append(r.label)
                else:
                    selection[d] = i
                    labels.append(format_value(d, r.ds[d].values[i], r.ds[d].attrs))
            labels += [format_value(a, r.ds[a].values[i], r.ds[a].attrs)
                       for a, i in fixed[k].items()]
            for a in r.axes:
                if a not in plane_axes and a not in selection:
                    selection[a] = 0  # one-value axes
            plane = Plane(axes=plane_axes, selection=selection,
                          fixed=", ".join(format_value(a, r.ds[a].values[i], r.ds[a].attrs)
                                          for a, i in fixed[k].items()))
            plan.facets.append(Facet(result=r, plane=plane, col=place[0] if place else 0,
                                     row=place[1] if len(place) > 1 else 0,
                                     label=", ".join(labels)))
        plans.append(plan)
    return plans


# ------------------------------------------------------------------------------ traces


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
