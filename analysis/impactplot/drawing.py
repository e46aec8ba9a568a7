"""drawing: generic panels (categorical maps, colour maps, filled contours, lines), level
curves with labels that neither overlap nor stand upside down, notes on panels that
would otherwise be one colour or empty, and the assembly of panels into one figure with
one shared colour bar and one compact legend.

Every panel function takes an Axes and returns a Drawn: the artists it made and what the
figure around it needs (legend entries, the colour mapping). Nothing here selects a
matplotlib backend or touches pyplot's state.
"""

import math
from dataclasses import dataclass, field
from typing import Callable, Dict, List, Optional, Sequence, Tuple

import numpy as np
from matplotlib import patheffects
from matplotlib.colors import BoundaryNorm, ListedColormap, LogNorm, Normalize
from matplotlib.lines import Line2D
from matplotlib.patches import Patch
from matplotlib.ticker import FuncFormatter, LogLocator, MaxNLocator, NullFormatter

from .reading import Facet, Plane, Result, cell_edges, note
from .style import (CLASS_COLOURS, FAILED_COLOUR, FAILED_LABEL, FIELD_LABELS, FONT_SIZE,
                    NOT_COMPUTED_COLOUR, NOT_COMPUTED_LABEL, SEQUENTIAL_CMAP, STATUS_CLASSES,
                    class_colour, class_label, symbol, units_suffix)

RASTERIZE_CELLS = 4096   # meshes with more cells are rasterized in vector formats
LABEL_SIZE = FONT_SIZE - 1.5
HALO = [patheffects.withStroke(linewidth=2.2, foreground="white")]


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
    contour_sets: List = field(default_factory=list)  # (ContourSet, colour) to label
    labels: List = field(default_factory=list)   # contour labels placed
    notes: List = field(default_factory=list)    # notes on the panel
    facet: Optional[Facet] = None


# ---------------------------------------------------------------------------- labels


def axis_label(result: Result, name: str) -> str:
    """The label of axis NAME: its symbol (else its name) and units."""
    coord = result.ds[name]
    return (symbol(name) or name) + units_suffix(coord.attrs.get("units", ""))


def field_label(result: Result, name: str) -> str:
    """The label of output NAME: its description and units."""
    var = result.ds[name]
    text = FIELD_LABELS.get(name, str(var.attrs.get("long_name", name)))
    return text + units_suffix(var.attrs.get("units", ""))


def categories_of(result: Result, name: str) -> List[Category]:
    """The classes of categorical variable NAME, indexed by flag value."""
    from .reading import BadInput
    attrs = result.ds[name].attrs
    words = str(attrs.get("flag_meanings", "")).split()
    values = [int(v) for v in np.atleast_1d(attrs.get("flag_values", range(len(words))))]
    if values != list(range(len(words))):
        raise BadInput(f"{result.path}: {name}: flag_values {values} are not 0..{len(words) - 1}")
    return [Category(w, class_label(w), class_colour(w, i)) for i, w in enumerate(words)]


def is_categorical(result: Result, name: str) -> bool:
    """Whether variable NAME carries flag_meanings."""
    return bool(str(result.ds[name].attrs.get("flag_meanings", "")).split())


# ------------------------------------------------------------------------ primitives


def log_ticks(axis, scale: str, values: np.ndarray) -> None:
    """Ticks of AXIS on SCALE spanning VALUES: a log axis over less than three decades is
    ticked at 1, 2, 5 times powers of ten, written plainly (0.05, 0.1, 0.2, ...); a
    linear one gets few enough ticks for a narrow panel."""
    if scale != "log":
        axis.set_major_locator(MaxNLocator(nbins=5, steps=[1, 2, 2.5, 5, 10]))
        return
    v = np.asarray(values, dtype=float)
    v = v[np.isfinite(v) & (v > 0)]
    if v.size and np.log10(v.max() / v.min()) <= 2:
        axis.set_major_locator(LogLocator(base=10, subs=(1.0, 2.0, 5.0)))
        axis.set_major_formatter(FuncFormatter(lambda t, _: f"{t:g}"))
        axis.set_minor_formatter(NullFormatter())
    elif v.size and np.log10(v.max() / v.min()) <= 3:
        axis.set_major_locator(LogLocator(base=10, subs=(1.0,)))
        axis.set_major_formatter(FuncFormatter(lambda t, _: f"{t:g}"))
        axis.set_minor_formatter(NullFormatter())


def setup_axes(ax, result: Result, plane: Plane, strip: bool = False,
               grid_limits: bool = False) -> None:
    """Scales, limits and labels of a map (or a 1-D strip) over PLANE; GRID_LIMITS: the
    axes end at the outer grid values (filled contours), else at the outer cell edges."""
    coords, scales = plane.coords(result), plane.scales(result)
    xe = coords[0] if grid_limits else cell_edges(coords[0], scales[0])
    ax.set_xscale(scales[0])
    log_ticks(ax.xaxis, scales[0], xe)
    ax.set_xlim(xe[0], xe[-1])
    ax.set_xlabel(axis_label(result, plane.axes[0]))
    if strip:
        ax.set_ylim(0, 1)
        ax.set_yticks([])
    elif len(plane.axes) > 1:
        ye = coords[1] if grid_limits else cell_edges(coords[1], scales[1])
        ax.set_yscale(scales[1])
        log_ticks(ax.yaxis, scales[1], ye)
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


def draw_status(ax, result: Result, plane: Plane, status: np.ndarray) -> List[Patch]:
    """Overlay the not computed and failed points on a colour map; their legend entries."""
    overlay = np.where(status == 0, 0.0, np.where(status >= 2, 1.0, np.nan))
    if np.isfinite(overlay).any():
        mesh(ax, result, plane, overlay,
             cmap=ListedColormap([NOT_COMPUTED_COLOUR, FAILED_COLOUR]),
             norm=BoundaryNorm([-0.5, 0.5, 1.5], 2))
    return status_handles(status)


def panel_note(ax, text: str):
    """A note at the top of the panel (white box): what a one-colour or empty panel
    means."""
    t = ax.text(0.5, 0.97, text, transform=ax.transAxes, ha="center", va="top",
                fontsize=LABEL_SIZE, zorder=6, wrap=False,
                bbox=dict(boxstyle="round,pad=0.25", facecolor="white", edgecolor="0.5",
                          linewidth=0.5))
    return t


def note_if_uniform(d: Drawn, values: np.ndarray, status: np.ndarray,
                    describe: Callable[[float], str]) -> None:
    """Add a note to D's panel when no point is computed, or every computed point has the
    same value (DESCRIBE(value) says which)."""
    done = (status == 1) & np.isfinite(values)
    if not done.any():
        what = "no point computed yet" if (status == 0).all() else \
            "no point computed successfully"
        d.notes.append(panel_note(d.ax, what))
        return
    v = values[done]
    if np.all(v == v[0]):
        every = "every point" if done.all() else "every computed point"
        d.notes.append(panel_note(d.ax, f"{describe(float(v[0]))} at {every}"))


# -------------------------------------------------------------------- level curves


def level_curves(ax, result: Result, plane: Plane, values: np.ndarray,
                 levels: Sequence[float], colour: str = "black", linewidth: float = 0.8):
    """Contour lines of VALUES at LEVELS; (ContourSet or None, the levels that have a
    line)."""
    finite = values[np.isfinite(values)]
    if len(plane.axes) < 2 or finite.size == 0 or min(values.shape) < 2:
        return None, []
    lo, hi = float(finite.min()), float(finite.max())
    levels = [float(v) for v in levels if lo < v < hi]
    if not levels:
        return None, []
    x, y = plane.coords(result)
    cs = ax.contour(x, y, np.ma.masked_invalid(values.T), levels=levels, colors=colour,
                    linewidths=linewidth)
    return cs, visible_levels(cs, result, plane)


MIN_CURVE = 0.04  # a level curve shorter than this share of the panel's size is a speck


def visible_levels(cs, result: Result, plane: Plane) -> List[float]:
    """The levels of the contour set CS whose lines are long enough to see and label
    (together at least MIN_CURVE of the panel, measured on the axes' scales); the lines
    of the others (specks around a single grid value) are hidden."""
    coords, scales = plane.coords(result), plane.scales(result)

    def norm(v, c, scale):
        if scale == "log":
            v, c = np.log10(np.maximum(v, 1e-300)), np.log10(c)
        span = float(c.max() - c.min()) or 1.0
        return (v - c.min()) / span
    drawn = []
    for i, (level, segs) in enumerate(zip(cs.levels, cs.allsegs)):
        total = 0.0
        for seg in segs:
            if len(seg) < 2:
                continue
            seg = np.asarray(seg, dtype=float)
            u = norm(seg[:, 0], coords[0], scales[0])
            w = norm(seg[:, 1], coords[1], scales[1])
            total += float(np.nansum(np.hypot(np.diff(u), np.diff(w))))
        if total >= MIN_CURVE:
            drawn.append(float(level))
        elif i < len(cs.collections):
            cs.collections[i].set_visible(False)
    return drawn


def renderer_of(fig):
    """A renderer of FIG's canvas (whatever the backend)."""
    canvas = fig.canvas
    if hasattr(canvas, "get_renderer"):
        return canvas.get_renderer()
    return fig._get_renderer()


def _overlaps(box, boxes, pad=2.0) -> bool:
    x0, y0, x1, y1 = box
    return any(x0 < b[2] + pad and b[0] < x1 + pad and y0 < b[3] + pad and b[1] < y1 + pad
               for b in boxes)


def _display_paths(to_display, segs, min_length: float):
    """The segments (in display coordinates) longer than MIN_LENGTH, longest first, each
    as (points, arc length at each point, length)."""
    paths = []
    for seg in segs:
        if len(seg) < 2:
            continue
        p = to_display.transform(np.asarray(seg, dtype=float))
        p = p[np.all(np.isfinite(p), axis=1)]
        if len(p) < 2:
            continue
        s = np.concatenate([[0.0], np.cumsum(np.hypot(*np.diff(p, axis=0).T))])
        if s[-1] > min_length:
            paths.append((p, s, s[-1]))
    return sorted(paths, key=lambda t: -t[2])


def _label_spot(p, s, length, f, width, height, straight, bbox, taken):
    """(x, y, angle, box) of a label centred at fraction F of a path, turned along it and
    upright, if the path is straight enough under it (chord >= STRAIGHT * width), the box
    inside BBOX and clear of TAKEN; else None."""
    at = f * length
    lo, hi = at - 0.5 * width, at + 0.5 * width
    if lo < 0 or hi > length:
        return None
    a, b = np.interp([lo, hi], s, p[:, 0]), np.interp([lo, hi], s, p[:, 1])
    cx, cy = float(np.interp(at, s, p[:, 0])), float(np.interp(at, s, p[:, 1]))
    if math.hypot(a[1] - a[0], b[1] - b[0]) < straight * width:
        return None
    angle = math.degrees(math.atan2(b[1] - b[0], a[1] - a[0]))
    if angle > 90:
        angle -= 180
    elif angle <= -90:
        angle += 180
    if abs(angle) > 82:  # (nearly) vertical: read upwards, as a y label is
        angle = 90.0
    c, sn = abs(math.cos(math.radians(angle))), abs(math.sin(math.radians(angle)))
    hw, hh = 0.5 * (width * c + height * sn), 0.5 * (width * sn + height * c)
    box = (cx - hw, cy - hh, cx + hw, cy + hh)
    if not (bbox.x0 + 2 <= box[0] and box[2] <= bbox.x1 - 2
            and bbox.y0 + 2 <= box[1] and box[3] <= bbox.y1 - 2):
        return None
    if _overlaps(box, taken):
        return None
    return cx, cy, angle, box


def _add_label(ax, text: str, cx: float, cy: float, angle: float, box, taken, texts) -> None:
    """A contour label at display point (CX, CY), turned by ANGLE; its BOX taken."""
    xd, yd = ax.transData.inverted().transform((cx, cy))
    t = ax.text(xd, yd, text, rotation=angle, rotation_mode="anchor", ha="center",
                va="center", fontsize=LABEL_SIZE, color="black", path_effects=HALO,
                zorder=5, clip_on=True)
    t._impactplot_role = "contour_label"
    taken.append(box)
    texts.append(t)


def place_contour_labels(ax, cs, taken: Optional[List] = None, per_level: int = 2) -> List:
    """Labels of the contour set CS written along its lines (black on a white halo, legible
    on any colour), at most PER_LEVEL per level: each on a nearly straight stretch of the
    line, turned along it but never upside down (the angle within -90..90 degrees), inside
    the axes and clear of every label placed before (TAKEN: display boxes, updated).
    Every level gets one label before any gets a second: first on long straight
    stretches, then anywhere along the line it fits, then level on, inside or just
    beside a small piece (a loop, a corner cut), moved into the panel at its edge.
    Positions are found in display coordinates, so call this once the figure's layout
    is final. Returns the Texts."""
    taken = [] if taken is None else taken
    renderer = renderer_of(ax.figure)
    bbox = ax.get_window_extent(renderer)
    dpi = ax.figure.dpi
    height = LABEL_SIZE / 72 * dpi * 1.25
    texts = []
    levels = []
    for level, segs in zip(cs.levels, cs.allsegs):
        text = f"{level:g}"
        width = (0.62 * len(text) + 0.3) * LABEL_SIZE / 72 * dpi
        levels.append((text, width, _display_paths(ax.transData, segs, 0.0), [0]))
    passes = ((1.5, 0.85, (0.1, 0.9)), (1.05, 0.6, (0.0, 1.0)))

    def along(text, width, paths, count, strict):
        min_length, straight, span = passes[strict]
        for p, s, length in paths:
            if length < min_length * width:
                continue
            n = max(3, int(length / (0.25 * width)))
            for f in sorted(np.linspace(span[0], span[1], n), key=lambda f: abs(f - 0.5)):
                spot = _label_spot(p, s, length, f, width, height, straight, bbox, taken)
                if spot is not None:
                    cx, cy, angle, box = spot
                    _add_label(ax, text, cx, cy, angle, box, taken, texts)
                    count[0] += 1
                    return True
        return False

    def level_on(text, width, paths, count):
        for p, s, length in paths[:3]:
            spots = [p.mean(axis=0)] + [
                (np.interp(f * length, s, p[:, 0]), np.interp(f * length, s, p[:, 1]))
                for f in (0.5, 0.0, 0.25, 0.75, 0.1, 0.4, 0.6, 0.9)]
            # on the piece, else just beside it
            spots += [(x + k * dx * (width + 4), y + k * dy * (height + 4))
                      for x, y in spots[:1] for k in (0.6, 1.2)
                      for dx, dy in ((1, 0), (-1, 0), (0, 1), (0, -1), (1, 1), (-1, -1),
                                     (1, -1), (-1, 1))]
            for cx, cy in spots:
                cx = min(max(float(cx), bbox.x0 + 3 + 0.5 * width), bbox.x1 - 3 - 0.5 * width)
                cy = min(max(float(cy), bbox.y0 + 3 + 0.5 * height), bbox.y1 - 3 - 0.5 * height)
                box = (cx - 0.5 * width, cy - 0.5 * height, cx + 0.5 * width, cy + 0.5 * height)
                if not _overlaps(box, taken):
                    _add_label(ax, text, cx, cy, 0.0, box, taken, texts)
                    count[0] += 1
                    return True
        return False

    # one label per level: strict everywhere first, then looser, then level
    for strict in (0, 1):
        for text, width, paths, count in levels:
            if not count[0]:
                along(text, width, paths, count, strict)
    for text, width, paths, count in levels:
        if not count[0] and paths:
            level_on(text, width, paths, count)
    # then more labels on long lines
    for _ in range(per_level - 1):
        for text, width, paths, count in levels:
            if count[0] and count[0] < per_level:
                along(text, width, paths, count, 0)
    return texts


def label_panels(drawns: Sequence[Drawn]) -> None:
    """Place the contour labels of every panel (after the layout is final); a panel's
    notes and labels never overlap."""
    for d in drawns:
        if not d.contour_sets:
            continue
        renderer = renderer_of(d.ax.figure)
        taken = []
        for t in d.notes:
            b = t.get_window_extent(renderer)
            taken.append((b.x0, b.y0, b.x1, b.y1))
        for t in d.labels:
            t.remove()
        d.labels = []
        for cs, _colour in d.contour_sets:
            d.labels += place_contour_labels(d.ax, cs, taken)
            # a line without a label would be a level curve nobody can read: left out
            named = {t.get_text() for t in d.labels}
            for i, level in enumerate(cs.levels):
                if f"{level:g}" not in named and i < len(cs.collections) \
                        and cs.collections[i].get_visible() and any(
                            len(seg) >= 2 for seg in cs.allsegs[i]):
                    cs.collections[i].set_visible(False)
                    if d.contours and float(level) in d.contours["levels"]:
                        d.contours["levels"].remove(float(level))
                    note(f"{d.variable}: the level curve {level:g} of "
                         f"{d.contours['field'] if d.contours else 'the field'} left out: "
                         "no room for its label")


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
    NaN where a done point has no class."""
    out = np.where(np.isfinite(codes), codes, np.nan)
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
    colours = [c.colour for c in categories] + [NOT_COMPUTED_COLOUR, FAILED_COLOUR]
    m = mesh(ax, result, plane, shown, cmap=ListedColormap(colours),
             norm=BoundaryNorm(np.arange(-0.5, n + 2), n + 2))
    present = set(np.unique(shown[np.isfinite(shown)]).astype(int))
    d = Drawn(ax=ax, variable=name, kind="strip" if strip else "classes", axes=plane.axes,
              artists=[m], classes={c.name: c.colour for c in categories})
    d.classes.update(STATUS_CLASSES)
    d.handles = [Patch(facecolor=c.colour, edgecolor="0.4", linewidth=0.5, label=c.label)
                 for i, c in enumerate(categories) if i in present]
    d.handles += status_handles(np.where(np.isfinite(shown), status, 1))
    note_if_uniform(d, codes, status,
                    lambda v: categories[int(v)].label if 0 <= v < n else "no class")
    if contour and result.has(contour[0]) and not strip:
        cname, levels = contour
        cs, drawn = level_curves(ax, result, plane, plane.take(result.ds[cname]), levels)
        if drawn:
            d.contours = {"field": cname, "levels": drawn}
            d.contour_sets.append((cs, "black"))
            d.artists.append(cs)
            d.handles.append(Line2D([], [], color="black", linewidth=0.8,
                                    label=FIELD_LABELS.get(cname, cname)))
    return d


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
                 cmap: str = SEQUENTIAL_CMAP, label: Optional[str] = None) -> Drawn:
    """A colour map of numeric NAME (NORM shared between panels, else its own), not
    computed / failed points overlaid, optionally level curves of it at LEVELS (white);
    a line plot on one axis."""
    if len(plane.axes) == 1:
        return lines_panel(ax, result, plane, [name])
    setup_axes(ax, result, plane)
    values = plane.take(result.ds[name])
    status = point_status(result, plane, values)
    norm = norm or shared_norm([values], log)
    m = mesh(ax, result, plane, values, cmap=cmap, norm=norm)
    d = Drawn(ax=ax, variable=name, kind="colour", axes=plane.axes, artists=[m], mappable=m,
              colour_label=label or field_label(result, name), classes=dict(STATUS_CLASSES))
    d.handles = draw_status(ax, result, plane, status)
    note_if_uniform(d, values, status, lambda v: f"{name} = {v:.4g}")
    if levels:
        cs, drawn = level_curves(ax, result, plane, values, levels, colour="white")
        if drawn:
            d.contours = {"field": name, "levels": drawn}
            d.contour_sets.append((cs, "white"))
            d.artists.append(cs)
    return d


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
    mappable = next((d.mappable for d in drawns if d.mappable is not None), None)
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
    """A labelled colour bar right of AXES; on log colours ticked at 1-2-5 values written
    plainly."""
    bar = fig.colorbar(mappable, ax=axes, label=label, pad=0.02, fraction=0.06, aspect=25)
    norm = mappable.norm
    if isinstance(norm, LogNorm) and norm.vmin > 0:
        lo, hi = norm.vmin, norm.vmax
        decades = math.log10(hi / lo)
        subs = (1, 2, 5) if decades <= 3 else (1,)
        ticks = [m * 10.0 ** e for e in range(math.floor(math.log10(lo)),
                                                math.ceil(math.log10(hi)) + 1)
                 for m in subs if lo <= m * 10.0 ** e <= hi]
        if len(ticks) >= 2:
            bar.set_ticks(ticks)
            bar.set_ticklabels([f"{t:g}" for t in ticks])
            bar.ax.minorticks_off()
    return bar


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
