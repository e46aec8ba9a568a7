"""orbit: orbit (bifurcation) diagrams of an array output over one axis, and the maps of
an exponent output (a Lyapunov exponent) with its zero level.

An array output (a section: the last L samples of the attractor at each point) has one
more dimension than the swept axes. Its orbit diagram puts every finite value of a point
at that point's axis value (NaN, a sample the point did not fill, is skipped), one dot
each, shaded by density: a dot's colour is the share of its column's values that fall in
its vertical bin (1/DENSITY_BINS of the panel), so a periodic orbit, its L values on a few
points, is black and a chaotic band, spread thin, is light grey. Dots are sized from the
number of columns, so that neighbouring columns do not merge.

An exponent output is one whose name starts with `lyapunov` or whose long_name says
"Lyapunov" (case ignored): its sign is the point (chaos above zero), so it is drawn with
the zero level marked: over one axis a line with a zero line, under the orbit diagram
where the file has one (sharing its x axis); over two axes a map in diverging colours
centred on zero, with the level curve 0 drawn and labelled where the sign changes.

As a library: diagram(ds, "section", ax), exponent(ds, "lyapunov", ax) and figure(ds,
"section", fig) (both panels, the exponent under the diagram), a Dataset in, Drawn out.
"""

from typing import List, Optional

import numpy as np
from matplotlib.colors import LinearSegmentedColormap, ListedColormap, LogNorm, Normalize
from matplotlib.lines import Line2D
from matplotlib.patches import Patch

from .drawing import (Drawn, add_level_curves, axis_label, colour_panel, field_label,
                      lines_panel, mesh, panel_note, point_status, status_rug)
from .reading import BadInput, Facet, FigurePlan, Plane, Result, cell_edges
from .style import NO_VALUE_COLOUR, NO_VALUE_LABEL
from .ticks import log_ticks

DIVERGING_CMAP = "PuOr_r"  # purple below zero, orange above; neither is the failed red
# An exponent of -inf is a value, not a gap: nearby motions merge in finite time (a motion
# that sticks to a stop); +inf is drawn too, should a model report one. Each beyond its end
# of the diverging scale, with a legend entry.
INFINITE_EXPONENTS = ((-np.inf, "#1b0033", "v", "\u2212\u221e (nearby motions merge)"),
                      (np.inf, "#5a1d00", "^", "+\u221e"))
DENSITY_BINS = 200         # vertical bins of a column, for the density shading
DENSITY_CMAP = LinearSegmentedColormap.from_list("orbit_density", ["#b0b0b0", "#000000"])
RASTERIZE_POINTS = 4096    # more dots than this are rasterized in vector formats
ZERO_COLOUR = "0.2"


# ------------------------------------------------------------------- which outputs


def array_dims(result: Result, name: str) -> List[str]:
    """The dimensions of output NAME beyond the swept axes (one for an array output)."""
    return [d for d in result.ds[name].dims if d not in result.axes]


def is_array(result: Result, name: str) -> bool:
    """Whether NAME is an array output (a dimension beyond the axes, longer than 1)."""
    return name in result.ds.data_vars and \
        any(result.ds.sizes[d] > 1 for d in array_dims(result, name))


def is_exponent(result: Result, name: str) -> bool:
    """Whether scalar output NAME is an exponent: its name starts with `lyapunov`, or its
    long_name mentions Lyapunov (case ignored)."""
    if name not in result.ds.data_vars or is_array(result, name):
        return False
    long_name = str(result.ds[name].attrs.get("long_name", ""))
    return name.lower().startswith("lyapunov") or "lyapunov" in long_name.lower()


def exponent_of(result: Result) -> Optional[str]:
    """The file's exponent output drawn under an orbit diagram: `lyapunov` if present,
    else the first output that is an exponent; None if there is none."""
    names = [o for o in result.outputs if is_exponent(result, o)]
    return "lyapunov" if "lyapunov" in names else (names[0] if names else None)


# ----------------------------------------------------------------------- the panels


def orbit_points(result: Result, plane: Plane, name: str):
    """(x, y, column) of every finite value of array output NAME on the one-axis PLANE:
    the axis value, the value, and the index of its point along the axis."""
    da = result.ds[name]
    da = da.isel({k: v for k, v in plane.selection.items() if k in da.dims})
    axis = plane.axes[0]
    rest = [d for d in da.dims if d != axis]
    values = np.asarray(da.transpose(axis, *rest).values, dtype=float)
    values = values.reshape(values.shape[0], -1)
    x = plane.coords(result)[0]
    column = np.repeat(np.arange(values.shape[0]), values.shape[1])
    y = values.ravel()
    keep = np.isfinite(y)
    return x[column[keep]], y[keep], column[keep]


def density(column: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Per dot, the share of its column's finite values in its vertical bin (1: every
    value of the point there, a fixed point)."""
    if y.size == 0:
        return y
    lo, hi = float(y.min()), float(y.max())
    span = hi - lo if hi > lo else 1.0
    bins = np.minimum((DENSITY_BINS * (y - lo) / span).astype(np.int64), DENSITY_BINS - 1)
    cell = column * DENSITY_BINS + bins
    _, inverse, counts = np.unique(cell, return_inverse=True, return_counts=True)
    per_column = np.bincount(column)
    return counts[inverse.ravel()] / per_column[column]


def orbit_panel(ax, result: Result, plane: Plane, name: str) -> Drawn:
    """The orbit diagram of array output NAME over the plane's one axis: every finite
    value a dot at its point's axis value, shaded by density; points not computed or
    failed, and done points without a value, marked along the bottom."""
    if len(plane.axes) != 1:
        raise BadInput(f"{result.path}: {name}: an orbit diagram is drawn over one axis "
                       f"(the plane has {', '.join(plane.axes)})")
    x, y, column = orbit_points(result, plane, name)
    coords, scales = plane.coords(result), plane.scales(result)
    per_point = int(np.prod([result.ds.sizes[d] for d in array_dims(result, name)]))
    shade = density(column, y)
    order = np.argsort(shade, kind="stable")  # the densest on top
    size = float(np.clip(0.5 * (250.0 / max(coords[0].size, 1)) ** 2, 0.25, 9.0))
    norm = LogNorm(1.0 / per_point, 1.0) if per_point > 1 else Normalize(0, 1)
    dots = ax.scatter(x[order], y[order], c=shade[order], s=size, cmap=DENSITY_CMAP,
                      norm=norm, linewidths=0, marker="o", zorder=2,
                      rasterized=x.size > RASTERIZE_POINTS)
    dots._impactplot_points = True  # the layout records the dots (output.point_records)
    dots._impactplot_order = order  # drawn in this order: the file's order is recovered
    ax.set_xscale(scales[0])
    log_ticks(ax.xaxis, scales[0], coords[0])
    edges = cell_edges(coords[0], scales[0])
    ax.set_xlim(edges[0], edges[-1])
    ax.set_xlabel(axis_label(result, plane.axes[0]))
    ax.set_ylabel(field_label(result, name))
    d = Drawn(ax=ax, variable=name, kind="orbit", axes=plane.axes[:1], artists=[dots])
    first = plane.take(result.ds[name])  # the first value of each point: its status
    status = point_status(result, plane, first)
    d.handles = status_rug(ax, coords[0], status)
    empty = (status == 1) & ~np.isin(np.arange(coords[0].size), column)
    if empty.any():  # done, but not one value: marked, else read as not computed
        ax.plot(coords[0][empty], np.full(int(empty.sum()), 0.02), linestyle="none",
                marker="|", markersize=8, markeredgewidth=1.5, color=NO_VALUE_COLOUR,
                transform=ax.get_xaxis_transform())
        d.handles.append(Line2D([], [], linestyle="none", marker="|", markersize=8,
                                markeredgewidth=1.5, color=NO_VALUE_COLOUR,
                                label=NO_VALUE_LABEL))
    if x.size == 0:
        d.notes.append(panel_note(ax, "no point computed yet" if (status == 0).all()
                                  else "no computed point has a value"))
    return d


def exponent_line(ax, result: Result, plane: Plane, name: str) -> Drawn:
    """Exponent NAME over the plane's one axis: a line, and a line at zero."""
    d = lines_panel(ax, result, plane, [name], ylog=False)
    zero = ax.axhline(0.0, color=ZERO_COLOUR, linewidth=0.7, linestyle=(0, (4, 2)), zorder=1.8)
    d.kind = "exponent"
    d.artists.append(zero)
    d.contours = {"field": name, "levels": [0.0], "zero_line": True}
    x, y = plane.coords(result)[0], plane.take(result.ds[name])
    size = float(np.clip(300.0 / max(x.size, 1), 1.5, 4.0))  # dense columns stay apart
    for value, colour, marker, label in INFINITE_EXPONENTS:
        at = y == value
        if at.any():  # at the panel's bottom (top for +inf): the line has a gap there
            lo, hi = ax.get_ylim()  # a margin, so the marks sit beyond the finite values
            ax.set_ylim((lo - 0.1 * (hi - lo), hi) if value < 0 else (lo, hi + 0.1 * (hi - lo)))
            ax.plot(x[at], np.full(int(at.sum()), 0.04 if value < 0 else 0.96),
                    linestyle="none", marker=marker, markersize=size, color=colour,
                    transform=ax.get_xaxis_transform(), zorder=2.5)
            d.handles.append(Line2D([], [], linestyle="none", marker=marker, markersize=4,
                                    color=colour, label=label))
    return d


def centred_norm(arrays) -> Normalize:
    """A colour normalisation symmetric about zero over the finite values of ARRAYS."""
    finite = [np.abs(a[np.isfinite(a)]) for a in arrays]
    top = max((float(f.max()) for f in finite if f.size), default=0.0)
    return Normalize(-top, top) if top > 0 else Normalize(-1.0, 1.0)


def exponent_panel(ax, result: Result, plane: Plane, name: str, norm=None) -> Drawn:
    """Exponent NAME: over one axis a line with a zero line; over two a map in diverging
    colours centred on zero (NORM shared between panels, else its own) with the level
    curve 0 where the sign changes, labelled."""
    if len(plane.axes) == 1:
        return exponent_line(ax, result, plane, name)
    values = plane.take(result.ds[name])
    d = colour_panel(ax, result, plane, name, norm=norm or centred_norm([values]),
                     cmap=DIVERGING_CMAP)
    d.kind = "exponent"
    status = point_status(result, plane, values)
    for value, colour, _, label in INFINITE_EXPONENTS:
        at = (status == 1) & (values == value)
        if at.any():  # else drawn as "no value" by the status overlay
            mesh(ax, result, plane, np.where(at, 0.0, np.nan), cmap=ListedColormap([colour]),
                 norm=Normalize(-1, 1))
            d.handles.append(Patch(facecolor=colour, edgecolor="0.4", linewidth=0.5,
                                   label=label))
    if not ((status == 1) & np.isnan(values)).any():
        d.handles = [h for h in d.handles if h.get_label() != NO_VALUE_LABEL]
        d.classes.pop(NO_VALUE_LABEL, None)
    add_level_curves(d, ax, result, plane, name, values, [0.0], "black")
    return d


# ------------------------------------------------------------- figures (impactplot)


def orbit_height(width: float, exponent: bool, titled: bool, footer: bool) -> float:
    """The height (inches) of an orbit diagram WIDTH wide, an exponent panel under it."""
    height = 0.62 * width + (0.3 * width if exponent else 0.0) + 0.2
    return float(min(9.5, height + (0.25 if titled else 0) + (0.15 if footer else 0)))


def draw_orbit(fig, plan: FigurePlan, name: str, width: float, height: Optional[float],
               titled: bool, footer: bool) -> List[Drawn]:
    """The orbit diagram of NAME over PLAN's one facet into FIG (sized here), with the
    file's exponent in a panel under it sharing x; the panels drawn."""
    if len(plan.facets) != 1:
        raise BadInput(f"{plan.facets[0].result.path}: {name}: an orbit diagram draws one "
                       "line of the grid: select the other axes with --sel")
    facet = plan.facets[0]
    exponent = exponent_of(facet.result)
    fig.set_size_inches(width, height or orbit_height(width, bool(exponent), titled, footer))
    drawns = figure_panels(fig, facet, name, exponent)
    handles = [h for d in drawns for h in d.handles]
    if handles:
        drawns[0].ax.legend(handles=handles, loc="upper left", frameon=False,
                            fontsize="small")
    return drawns


def figure_panels(fig, facet: Facet, name: str, exponent: Optional[str]) -> List[Drawn]:
    """The orbit panel of NAME and, if EXPONENT, that exponent's panel under it."""
    gs = fig.add_gridspec(2 if exponent else 1, 1,
                          height_ratios=[2.0, 1.0] if exponent else [1.0])
    top = fig.add_subplot(gs[0])
    drawns = [orbit_panel(top, facet.result, facet.plane, name)]
    if exponent:
        bottom = fig.add_subplot(gs[1], sharex=top)
        drawns.append(exponent_line(bottom, facet.result, facet.plane, exponent))
        top.tick_params(labelbottom=False)
        top.set_xlabel("")
    if facet.label:
        top.set_title(facet.label, pad=3)
    for d in drawns:
        d.facet = facet
    return drawns


# ------------------------------------------------------------------ library helpers


def _facet(ds, x: Optional[str] = None, y: Optional[str] = None) -> Facet:
    from .reading import dataset_plane
    result = Result.from_dataset(ds)
    plane = dataset_plane(result, x, y)
    return Facet(result=result, plane=plane, label=plane.fixed)


def diagram(ds, name: str, ax=None, x: Optional[str] = None) -> Drawn:
    """The orbit diagram of array output NAME of DS (one swept axis left: select the
    others first, ds.sel(gamma=0.5)) into AX (or pyplot's current Axes)."""
    from .figures import prepare_axes
    result, plane, ax = prepare_axes(ds, ax, x)
    d = orbit_panel(ax, result, plane, name)
    d.facet = Facet(result=result, plane=plane, label=plane.fixed)
    return d


def exponent(ds, name: str = "lyapunov", ax=None, x: Optional[str] = None,
             y: Optional[str] = None, colourbar: bool = True) -> Drawn:
    """Exponent NAME of DS into AX: a line with a zero line over one axis, a map centred
    on zero with its zero level (labelled) over two, with its colour bar."""
    from .figures import Kind, library_panel
    kind = Kind(name, lambda a, f, s, sub: exponent_panel(a, f.result, f.plane, name))
    return library_panel(kind, ds, ax, x, y, colourbar=colourbar)


def figure(ds, name: str, fig=None, x: Optional[str] = None,
           exponent_name: Optional[str] = None) -> List[Drawn]:
    """Into FIG (or a new pyplot figure): the orbit diagram of NAME and, where DS has an
    exponent output (or EXPONENT_NAME), that exponent under it sharing x."""
    if fig is None:
        import matplotlib.pyplot as plt  # only here: a notebook's own backend
        fig = plt.figure(layout="constrained")
    facet = _facet(ds, x)
    return figure_panels(fig, facet, name, exponent_name or exponent_of(facet.result))
