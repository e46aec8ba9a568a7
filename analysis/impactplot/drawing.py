"""drawing: generic panels (categorical maps, colour maps, filled contours, lines) with
their level curves (contours.py), notes on panels that would otherwise be one colour or
empty, and the assembly of panels into one figure with one shared colour bar and one
compact legend.

Every panel function takes an Axes and returns a Drawn: the artists it made and what the
figure around it needs (legend entries, the colour mapping). Nothing here selects a
matplotlib backend or touches pyplot's state.
"""

import math
from dataclasses import dataclass, field
from typing import Callable, Dict, List, Optional, Sequence, Tuple

import numpy as np
from matplotlib.colors import BoundaryNorm, ListedColormap, LogNorm, Normalize
from matplotlib.lines import Line2D
from matplotlib.patches import Patch
from matplotlib.ticker import MaxNLocator

from .contours import LABEL_SIZE, level_curves, renderer_of  # noqa: F401 (re-exported)
from .labels import (SYMBOL_ATTRIBUTES, label_with_units, short_label, symbol, units_tex,
                     with_units)
from .reading import Facet, Plane, Result, cell_edges
from .style import (CLASS_COLOURS, FAILED_COLOUR, FAILED_LABEL, FONT_SIZE,
                    NO_VALUE_COLOUR, NO_VALUE_LABEL, NOT_COMPUTED_COLOUR, NOT_COMPUTED_LABEL,
                    SEQUENTIAL_CMAP, STATUS_CLASSES, class_colours, class_label)
from .ticks import cap_ticks, colourbar_ticks, log_ticks

RASTERIZE_CELLS = 4096   # meshes with more cells are rasterized in vector formats


@dataclass
class Category:
    """One class of a categorical map."""

    name: str
    label: str
    colour: str


@dataclass
class Drawn:
    """What a panel function drew, and what the figure around it needs."""

    ax: object
    variable: str
    kind: str                                   # classes, strip, colour, filled_contours, lines
    axes: List[str]
    artists: List = field(default_factory=list)
    handles: List = field(default_factory=list)  # legend entries
    mappable: object = None                      # for the colour bar
    colour_label: str = ""
    classes: Dict[str, str] = field(default_factory=dict)
    contours: Optional[dict] = None              # {'field', 'levels'} drawn
    contour_sets: List = field(default_factory=list)  # LevelCurves to label
    labels: List = field(default_factory=list)   # contour labels placed
    notes: List = field(default_factory=list)    # notes on the panel
    facet: Optional[Facet] = None
    cap: Optional[dict] = None                   # the cap the data reach (colour bar)


# ---------------------------------------------------------------------------- labels


def axis_label(result: Result, name: str) -> str:
    """The label of axis NAME: its symbol (else its name) and typeset units."""
    attrs = result.ds[name].attrs
    if any(str(attrs.get(k, "")).strip() for k in SYMBOL_ATTRIBUTES):
        label = short_label(result.model, name, attrs)
    else:
        label = symbol(name) or name
    return with_units(label, units_tex(attrs, result.model, name))


def field_label(result: Result, name: str) -> str:
    """The short label of output NAME (symbol or a few words) and its typeset units."""
    return label_with_units(result.model, name, result.ds[name].attrs)


def field_symbol(result: Result, name: str) -> str:
    """The short label of output NAME without units (notes, legends)."""
    return short_label(result.model, name, result.ds[name].attrs)


def categories_of(result: Result, name: str) -> List[Category]:
    """The classes of categorical variable NAME, indexed by flag value."""
    from .reading import BadInput
    attrs = result.ds[name].attrs
    words = str(attrs.get("flag_meanings", "")).split()
    values = [int(v) for v in np.atleast_1d(attrs.get("flag_values", range(len(words))))]
    if len(values) != len(words) or sorted(set(values)) != values or (values and values[0] < 0):
        raise BadInput(f"{result.path}: {name}: flag_values {values} do not name "
                       f"{len(words)} classes in order")
    # indexed by flag value; a value no class has (status: a file of a sweep without
    # refinement leaves `inferred` out) stays a gap
    by_value = dict(zip(values, words))
    names = [by_value.get(v, f"value_{v}") for v in range((values or [-1])[-1] + 1)]
    colours = class_colours(names)  # no two classes of the variable alike
    return [Category(n, class_label(n), c) for n, c in zip(names, colours)]


def is_categorical(result: Result, name: str) -> bool:
    """Whether variable NAME carries flag_meanings."""
    return bool(str(result.ds[name].attrs.get("flag_meanings", "")).split())


# ------------------------------------------------------------------------ primitives


def setup_axes(ax, result: Result, plane: Plane, strip: bool = False,
               grid_limits: bool = False) -> None:
    """Scales, limits and labels of a map (or a 1-D strip) over PLANE; GRID_LIMITS: the
    axes end at the outer grid values (filled contours), else at the outer cell edges."""
    coords, scales = plane.coords(result), plane.scales(result)
    xe = coords[0] if grid_limits else cell_edges(coords[0], scales[0])
    ax.set_xscale(scales[0])
    log_ticks(ax.xaxis, scales[0], coords[0])  # the values': alike on every figure
    ax.set_xlim(xe[0], xe[-1])
    ax.set_xlabel(axis_label(result, plane.axes[0]))
    if strip:
        ax.set_ylim(0, 1)
        ax.set_yticks([])
    elif len(plane.axes) > 1:
        ye = coords[1] if grid_limits else cell_edges(coords[1], scales[1])
        ax.set_yscale(scales[1])
        log_ticks(ax.yaxis, scales[1], coords[1])
        ax.set_ylim(ye[0], ye[-1])
        ax.set_ylabel(axis_label(result, plane.axes[1]))


def mesh(ax, result: Result, plane: Plane, values: np.ndarray, **kwargs):
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


def status_handles(status: np.ndarray) -> List[Patch]:
    """Legend entries for the not computed / failed points present in STATUS."""
    handles = []
    if np.any(status == 0):
        handles.append(Patch(facecolor=NOT_COMPUTED_COLOUR, edgecolor="0.4",
                             linewidth=0.5, label=NOT_COMPUTED_LABEL))
    if np.any(status >= 2):
        handles.append(Patch(facecolor=FAILED_COLOUR, edgecolor="0.4", linewidth=0.5,
                             label=FAILED_LABEL))
    return handles


def draw_status(ax, result: Result, plane: Plane, status: np.ndarray,
                values: Optional[np.ndarray] = None) -> List[Patch]:
    """Overlay the not computed and failed points on a colour map, and the done points
    where VALUES hold no value (NaN: else blank, read as missing data); their legend
    entries."""
    empty = (status == 1) & ~np.isfinite(values) if values is not None else status < 0
    overlay = np.where(status == 0, 0.0, np.where(status >= 2, 1.0,
                                                  np.where(empty, 2.0, np.nan)))
    if np.isfinite(overlay).any():
        mesh(ax, result, plane, overlay,
             cmap=ListedColormap([NOT_COMPUTED_COLOUR, FAILED_COLOUR, NO_VALUE_COLOUR]),
             norm=BoundaryNorm([-0.5, 0.5, 1.5, 2.5], 3))
    return status_handles(status) + (no_value_handles() if empty.any() else [])


def no_value_handles() -> List[Patch]:
    """The legend entry of done points without a value."""
    return [Patch(facecolor=NO_VALUE_COLOUR, edgecolor="0.4", linewidth=0.5,
                  label=NO_VALUE_LABEL)]


def panel_note(ax, text: str):
    """A note at the top of the panel (white box): what a one-colour or empty panel
    means, why its data mislead; a second note below the first."""
    from .figures import wrap_text
    width_in = ax.get_position().width * ax.figure.get_size_inches()[0]
    text = wrap_text(text, int(width_in * 72 / (0.6 * LABEL_SIZE)))
    below = sum(1 for t in ax.texts if getattr(t, "_impactplot_note", False))
    lines = sum(t.get_text().count("\n") + 1 for t in ax.texts
                if getattr(t, "_impactplot_note", False))
    t = ax.annotate(text, xy=(0.5, 0.97), xycoords="axes fraction",
                    xytext=(0, -(LABEL_SIZE * 1.25 * lines + 5 * below)),
                    textcoords="offset points", ha="center", va="top",
                    fontsize=LABEL_SIZE, zorder=6,
                    bbox=dict(boxstyle="round,pad=0.25", facecolor="white", edgecolor="0.5",
                              linewidth=0.5))
    t._impactplot_note = True
    return t


def one_class(facets, codes_of) -> str:
    """Why a categorical figure over FACETS would be one colour ('' if it is not): every
    computed point of every panel in one class. CODES_OF(facet) gives (codes,
    categories)."""
    seen = set()
    for f in facets:
        codes, categories = codes_of(f)
        done = (point_status(f.result, f.plane, codes) == 1) & np.isfinite(codes)
        seen |= {int(v) for v in np.unique(codes[done])}
        if len(seen) > 1:
            return ""
    if len(seen) != 1:
        return ""
    v = seen.pop()
    label = categories[v].label if 0 <= v < len(categories) else f"value {v}"
    return f"every computed point is {label}"


def variable_codes(name: str):
    """CODES_OF for one_class: a categorical variable's codes and classes."""
    return lambda f: (f.plane.take(f.result.ds[name]), categories_of(f.result, name))


def note_if_uniform(d: Drawn, values: np.ndarray, status: np.ndarray,
                    describe: Callable[[float], str]) -> None:
    """Add a note to D's panel when no point is computed, or every computed point has the
    same value (DESCRIBE(value) says which)."""
    done = (status == 1) & np.isfinite(values)
    if not done.any():
        what = "no point computed yet" if (status == 0).all() else \
            "no computed point has a value" if (status == 1).any() else \
            "no point computed successfully"
        d.notes.append(panel_note(d.ax, what))
        return
    v = values[done]
    if np.all(v == v[0]):
        every = "every point" if done.all() else "every computed point"
        d.notes.append(panel_note(d.ax, f"{describe(float(v[0]))} at {every}"))


# ---------------------------------------------------------------------------- panels


INFERRED = 7  # status of a point a refinement inferred from its cell's corners


def point_status(result: Result, plane: Plane, values: np.ndarray) -> np.ndarray:
    """Per point of the plane 0 (not computed), 1 (done) or >= 2 (failed), as drawn for
    VALUES: a point a refinement inferred (status 7) counts as done where VALUES holds its
    inferred value (the refined output), as not computed where it holds none."""
    status = plane.take(result.status)
    return np.where(status == INFERRED, np.where(np.isfinite(values), 1, 0), status)


def display_codes(codes: np.ndarray, status: np.ndarray, n_classes: int) -> np.ndarray:
    """Class index per point, n_classes where not computed, n_classes + 1 where failed,
    n_classes + 2 where a done point has no class (NaN)."""
    out = np.where(np.isfinite(codes), codes, n_classes + 2)
    out = np.where(status == 0, n_classes, out)
    return np.where(status >= 2, n_classes + 1, out)


def classes_panel(ax, result: Result, plane: Plane, name: str,
                  codes: Optional[np.ndarray] = None,
                  categories: Optional[List[Category]] = None,
                  contour: Optional[Tuple[str, Sequence[float]]] = None) -> Drawn:
    """A categorical map (a strip on one axis) of variable NAME (or of CODES with
    CATEGORIES), with not computed and failed points in their colours, optionally the
    level curves of another field (CONTOUR = (name, levels)); a note when one class
    fills it."""
    if codes is None:
        codes = plane.take(result.ds[name])
        categories = categories_of(result, name)
    status = point_status(result, plane, codes)
    strip = codes.ndim == 1
    setup_axes(ax, result, plane, strip=strip)
    n = len(categories)
    shown = display_codes(codes, status, n)
    colours = [c.colour for c in categories] + [NOT_COMPUTED_COLOUR, FAILED_COLOUR,
                                                NO_VALUE_COLOUR]
    m = mesh(ax, result, plane, shown, cmap=ListedColormap(colours),
             norm=BoundaryNorm(np.arange(-0.5, n + 3), n + 3))
    present = set(np.unique(shown[np.isfinite(shown)]).astype(int))
    d = Drawn(ax=ax, variable=name, kind="strip" if strip else "classes", axes=plane.axes,
              artists=[m], classes={c.name: c.colour for c in categories})
    d.classes.update(STATUS_CLASSES)
    d.handles = [Patch(facecolor=c.colour, edgecolor="0.4", linewidth=0.5, label=c.label)
                 for i, c in enumerate(categories) if i in present]
    d.handles += status_handles(status)
    if (shown == n + 2).any():
        d.handles += no_value_handles()
        d.classes[NO_VALUE_LABEL] = NO_VALUE_COLOUR
    note_if_uniform(d, codes, status,
                    lambda v: categories[int(v)].label if 0 <= v < n else "no class")
    if contour and result.has(contour[0]) and not strip:
        cname, levels = contour
        curves = level_curves(ax, result, plane, cname, plane.take(result.ds[cname]), levels)
        if curves:
            d.contours = {"field": cname, "levels": list(curves.levels),
                          "cuts": list(curves.cuts), "keyed": curves.keyed}
            d.contour_sets.append(curves)
            d.artists += curves.collections
            d.handles += level_handles(result, curves)
    return d


def level_handles(result: Result, curves) -> List[Line2D]:
    """Legend entries of level CURVES: one per level of a keyed (noisy) field, 'symbol
    = level' in its style; else one for the field (its lines are labelled)."""
    name = field_symbol(result, curves.field)
    if not curves.keyed:
        return [Line2D([], [], color=curves.colour, linewidth=0.8, label=name)]
    from matplotlib import patheffects
    out = []
    for text, (colour, dashes) in zip(curves.texts, curves.styles):
        line = Line2D([], [], color=colour, linewidth=1.0, label=f"{name} = {text}",
                      linestyle=(0, dashes) if dashes else "-",
                      path_effects=[patheffects.withStroke(linewidth=1.9,
                                                           foreground="white")])
        out.append(line)
    return out


def shared_norm(arrays: Sequence[np.ndarray], log: Optional[bool] = None):
    """One colour normalisation for all ARRAYS: log for positive data over more than a
    factor 20 (unless LOG says)."""
    finite = np.concatenate([a[np.isfinite(a)].ravel() for a in arrays]) if arrays else \
        np.array([])
    if finite.size == 0:
        return Normalize(0, 1)
    lo, hi = float(finite.min()), float(finite.max())
    if log is None:
        log = lo > 0 and hi / lo > 20
    if log and lo > 0:
        return LogNorm(lo, hi)
    return Normalize(lo, hi if hi > lo else lo + 1)


def colour_panel(ax, result: Result, plane: Plane, name: str, norm=None,
                 levels: Optional[Sequence[float]] = None, log: Optional[bool] = None,
                 cmap: str = SEQUENTIAL_CMAP, label: Optional[str] = None,
                 capped_by: str = "") -> Drawn:
    """A colour map of numeric NAME (NORM shared between panels, else its own), not
    computed / failed points overlaid, optionally level curves of it at LEVELS (white);
    a line plot on one axis. An output capped by a parameter (its `capped_by`
    attribute, else CAPPED_BY) whose data reach the cap gets "cap or more" on its colour
    bar."""
    if len(plane.axes) == 1:
        return lines_panel(ax, result, plane, [name])
    setup_axes(ax, result, plane)
    values = plane.take(result.ds[name])
    status = point_status(result, plane, values)
    norm = norm or shared_norm([values], log)
    m = mesh(ax, result, plane, values, cmap=cmap, norm=norm)
    d = Drawn(ax=ax, variable=name, kind="colour", axes=plane.axes, artists=[m], mappable=m,
              colour_label=label or field_label(result, name), classes=dict(STATUS_CLASSES))
    mark_cap(d, values, output_cap(result, name, capped_by))
    d.handles = draw_status(ax, result, plane, status, values)
    if any(h.get_label() == NO_VALUE_LABEL for h in d.handles):
        d.classes[NO_VALUE_LABEL] = NO_VALUE_COLOUR
    symbol_text = field_symbol(result, name)
    note_if_uniform(d, values, status, lambda v: f"{symbol_text} = {v:.4g}")
    if levels:
        add_level_curves(d, ax, result, plane, name, values, levels, "white")
    return d


def add_level_curves(d: Drawn, ax, result: Result, plane: Plane, name: str,
                     values: np.ndarray, levels: Sequence[float], colour: str):
    """Draws NAME's level curves at LEVELS on a colour panel D and records them in it (the
    layout's contours, the artists, a legend entry where they are keyed)."""
    curves = level_curves(ax, result, plane, name, values, levels, colour=colour)
    if curves:
        d.contours = {"field": name, "levels": list(curves.levels),
                      "cuts": list(curves.cuts), "keyed": curves.keyed}
        d.contour_sets.append(curves)
        d.artists += curves.collections
        if curves.keyed:
            d.handles += level_handles(result, curves)


def status_rug(ax, x: np.ndarray, status: np.ndarray) -> List:
    """Marks along the bottom of a line plot where points are not computed or failed."""
    handles = []
    for mask, colour, label in ((status == 0, NOT_COMPUTED_COLOUR, NOT_COMPUTED_LABEL),
                                (status >= 2, FAILED_COLOUR, FAILED_LABEL)):
        if mask.any():
            ax.plot(x[mask], np.full(mask.sum(), 0.02), linestyle="none", marker="|",
                    markersize=8, markeredgewidth=1.5, color=colour,
                    transform=ax.get_xaxis_transform())
            handles.append(Line2D([], [], linestyle="none", marker="|", markersize=8,
                                  markeredgewidth=1.5, color=colour, label=label))
    return handles


def lines_panel(ax, result: Result, plane: Plane, names: Sequence[str],
                colours: Optional[Sequence[str]] = None,
                labels: Optional[Sequence[str]] = None,
                ylog: Optional[bool] = None, ylabel: Optional[str] = None) -> Drawn:
    """Line plots of numeric NAMES over the plane's one axis, with the not computed and
    failed points marked along the bottom."""
    x = plane.coords(result)[0]
    scale = plane.scales(result)[0]
    ax.set_xscale(scale)
    log_ticks(ax.xaxis, scale, x)
    status = point_status(result, plane, plane.take(result.ds[names[0]]))
    d = Drawn(ax=ax, variable=",".join(names), kind="lines", axes=plane.axes[:1],
              classes=dict(STATUS_CLASSES))
    values = []
    for i, name in enumerate(names):
        y = plane.take(result.ds[name])
        values.append(y[np.isfinite(y)])
        colour = colours[i] if colours else (CLASS_COLOURS.get(name) or
                                             ["#0072b2", "#d55e00", "#009e73"][i % 3])
        label = (labels[i] if labels else field_label(result, name)) if len(names) > 1 else None
        (line,) = ax.plot(x, y, marker="." if x.size <= 60 else None, markersize=3,
                          color=colour, linewidth=1.2, label=label)
        d.artists.append(line)
        if label:
            d.handles.append(line)
    v = np.concatenate(values) if values else np.array([])
    if ylog is None:
        ylog = v.size > 0 and v.min() > 0 and v.max() / v.min() > 100
    if ylog:
        ax.set_yscale("log")
        log_ticks(ax.yaxis, "log", v)
    ax.set_xlabel(axis_label(result, plane.axes[0]))
    ax.set_ylabel(ylabel if ylabel is not None else
                  (field_label(result, names[0]) if len(names) == 1 else ""))
    ax.grid(True, which="major", color="0.88", linewidth=0.5)  # opaque: EPS
    d.handles += status_rug(ax, x, status)
    if v.size == 0:
        d.notes.append(panel_note(ax, "no point computed yet"))
    return d


# ---------------------------------------------------------------------- the figure


def text_width(text: str, size: float) -> float:
    """The width of TEXT at SIZE points, in inches (measured, mathtext included)."""
    from matplotlib.font_manager import FontProperties
    from matplotlib.textpath import TextToPath
    ismath = text.count("$") >= 2
    width, _, _ = TextToPath().get_text_width_height_descent(
        text, FontProperties(family="sans-serif", size=size), ismath=ismath)
    return width / 72


def legend_columns(handles: Sequence, width_in: float) -> int:
    """How many legend entries fit side by side in WIDTH_IN inches (a legend row holds
    the handle, 0.4 em of space and the label per entry, 1 em between columns)."""
    size = FONT_SIZE - 1
    em = size / 72
    widths = [text_width(h.get_label(), size) + 1.6 * em for h in handles]
    cols = len(handles)
    while cols > 1:
        rows = [widths[i::cols] for i in range(cols)]
        if sum(max(r) for r in rows if r) + em * (cols - 1) + 0.1 <= width_in:
            break
        cols -= 1
    return max(cols, 1)


def dedupe(handles: Sequence) -> List:
    """Legend entries without repeated labels."""
    seen, out = set(), []
    for h in handles:
        if h.get_label() not in seen:
            seen.add(h.get_label())
            out.append(h)
    return out


@dataclass
class Grid:
    """The axes of a figure: panels in rows x cols, a legend row below."""

    panels: np.ndarray        # [row, col] of Axes
    legend_ax: object


def figure_size(width: float, rows: int, cols: int, aspect: float, colourbar: bool,
                legend_rows: int, titled: bool, footer: bool, panel_titles: bool) -> float:
    """The height (inches) that gives panels of the ASPECT (height / width) in WIDTH."""
    panel_w = (width - 0.62 - (0.75 if colourbar else 0.1) - 0.12 * (cols - 1)) / cols
    panel_h = max(0.9, panel_w * aspect)
    height = rows * (panel_h + (0.2 if panel_titles else 0.05)) + 0.45
    height += 0.02 + 0.16 * legend_rows if legend_rows else 0.0
    height += 0.25 if titled else 0.0
    height += 0.15 if footer else 0.0
    return float(min(max(height, 1.4), 9.5))


def make_grid(fig, rows: int, cols: int, legend_rows: int, sharex: bool = True,
              sharey: bool = True) -> Grid:
    """ROWS x COLS panel axes and a legend row below them (if LEGEND_ROWS)."""
    width, height = fig.get_size_inches()
    legend_h = 0.05 + 0.17 * legend_rows if legend_rows else 0.0
    panel_h = max(0.1, (height - legend_h - 0.45)) / rows
    ratios = [panel_h] * rows + ([legend_h] if legend_rows else [])
    gs = fig.add_gridspec(rows + (1 if legend_rows else 0), cols, height_ratios=ratios)
    panels = np.empty((rows, cols), dtype=object)
    for r in range(rows):
        for c in range(cols):
            kw = {}
            if sharex and (r or c):
                kw["sharex"] = panels[0, 0]
            if sharey and (r or c):
                kw["sharey"] = panels[0, 0]
            panels[r, c] = fig.add_subplot(gs[r, c], **kw)
    legend_ax = None
    if legend_rows:
        legend_ax = fig.add_subplot(gs[rows, :])
        legend_ax.set_axis_off()
    return Grid(panels=panels, legend_ax=legend_ax)


def finish_grid(fig, grid: Grid, drawns: List[Drawn], colourbar_label: str = "",
                sharey: bool = True, sharex: bool = True) -> None:
    """One colour bar for the panels that share a scale, one legend below, inner tick
    labels of shared axes hidden."""
    axes = [ax for ax in grid.panels.ravel()]
    rows, cols = grid.panels.shape
    for r in range(rows):
        for c in range(cols):
            ax = grid.panels[r, c]
            if sharey and c > 0:
                ax.tick_params(labelleft=False)
                ax.set_ylabel("")
            if sharex and r < rows - 1:
                ax.tick_params(labelbottom=False)
                ax.set_xlabel("")
    mappable = next((d.mappable for d in drawns if d.cap is not None),
                    next((d.mappable for d in drawns if d.mappable is not None), None))
    if mappable is not None:
        label = colourbar_label or next(d.colour_label for d in drawns if d.mappable)
        add_colourbar(fig, axes, mappable, label)
    handles = dedupe([h for d in drawns for h in d.handles])
    if grid.legend_ax is not None and handles:
        width = fig.get_size_inches()[0]
        grid.legend_ax.legend(handles=handles, loc="center",
                              ncol=legend_columns(handles, width - 0.3),
                              borderaxespad=0.0, frameon=False)


def add_colourbar(fig, axes, mappable, label: str):
    """A colour bar right of AXES with its short LABEL, its ticks in one format (on log
    colours at 1-2-5 values); where the data reach the cap of a capped output, the top
    is the cap, a triangle beyond it and its label "\u2265cap" (cap or more)."""
    cap = getattr(mappable, "_impactplot_cap", None)
    bar = fig.colorbar(mappable, ax=axes, label=label, pad=0.02, fraction=0.06, aspect=25,
                       extend="max" if cap is not None else "neither")
    colourbar_ticks(bar)
    if cap is not None:
        cap_ticks(bar, cap)
        bar.ax._impactplot_cap = cap
    bar.ax._impactplot_role = "colourbar"
    return bar


def output_cap(result: Result, name: str, capped_by: str = "") -> Optional[Tuple[str, float]]:
    """(parameter, value) of the cap of output NAME: the parameter its `capped_by`
    attribute names (else CAPPED_BY, what the model's module knows), at the file's value
    (root attribute parameter_<name>); None if uncapped, or the parameter is swept (its
    value differs between points) or unknown."""
    param = str(result.ds[name].attrs.get("capped_by", "") or capped_by).strip()
    if not param or param in result.ds.dims:
        return None
    try:
        value = float(result.attr(f"parameter_{param}"))
    except ValueError:
        return None
    return (param, value) if math.isfinite(value) else None


def mark_cap(d: "Drawn", values: np.ndarray, cap: Optional[Tuple[str, float]]) -> None:
    """Where VALUES reach CAP (param, value), the colour bar will say "cap or more" and
    the panel's record names the cap."""
    if cap is None or d.mappable is None:
        return
    finite = values[np.isfinite(values)]
    if finite.size and float(finite.max()) >= cap[1]:
        d.mappable._impactplot_cap = cap[1]
        d.cap = {"parameter": cap[0], "value": cap[1],
                 "share": float(np.mean(finite >= cap[1]))}


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
