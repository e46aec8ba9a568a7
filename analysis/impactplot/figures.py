"""figures: a figure kind (one panel function, what its panels share) drawn over the
facets of a plan: panels side by side, one colour bar, one legend, a height that fits
the width.
"""

import math
from dataclasses import dataclass
from typing import Callable, Dict, List, Optional, Sequence


from .contours import label_levels
from .drawing import Drawn, dedupe, finish_grid, figure_size, legend_columns, make_grid
from .reading import Facet, FigurePlan, Result, dataset_plane


STRIP = 0.18  # panel height / width of a categorical strip over one axis


@dataclass
class Kind:
    """One figure kind of a model: PANEL(ax, facet, shared, sub) draws one panel;
    PREPARE(facets) computes what the panels share (a colour norm, levels); SUBPANELS are
    columns drawn for every facet (the fractions of chatter), titled SUB_TITLES."""

    name: str
    panel: Callable[..., Drawn]
    prepare: Callable[[List[Facet]], Dict] = lambda facets: {}
    subpanels: Sequence[str] = ("",)
    sub_titles: Sequence[str] = ("",)
    aspect: float = 0.8            # panel height / width
    colourbar: bool = False
    colourbar_label: str = ""
    one_axis_aspect: float = 0.62  # the same over one axis (lines, strips)
    degenerate: Callable[[List[Facet]], str] = lambda facets: ""
    # a figure of its own layout (an orbit diagram and the exponent under it):
    # DRAW(fig, plan, width, height, titled, footer) -> the panels drawn
    draw: Optional[Callable[..., List[Drawn]]] = None


def panel_grid_shape(kind: Kind, plan: FigurePlan):
    """(rows, cols) of the panels."""
    if len(kind.subpanels) > 1:
        return plan.rows * plan.cols, len(kind.subpanels)
    return plan.rows, plan.cols


def auto_width(kind: Kind, plan: FigurePlan) -> float:
    """One journal column for one or two panels, two columns beyond."""
    from .style import SIZE_PRESETS
    rows, cols = panel_grid_shape(kind, plan)
    return SIZE_PRESETS["single"] if cols <= 1 else SIZE_PRESETS["double"]


def draw_kind(fig, kind: Kind, plan: FigurePlan, width: float, height: Optional[float],
              titled: bool, footer: bool) -> List[Drawn]:
    """Draw KIND over PLAN's facets into FIG (its size set here: WIDTH, and HEIGHT or the
    height that fits); the panels drawn, their contour labels placed after the layout."""
    if kind.draw is not None:
        return kind.draw(fig, plan, width, height, titled, footer)
    rows, cols = panel_grid_shape(kind, plan)
    one_axis = len(plan.plane_axes) == 1
    aspect = kind.one_axis_aspect if one_axis else kind.aspect
    labelled = any(f.label for f in plan.facets) or len(kind.subpanels) > 1
    guess_rows = 1
    fig.set_size_inches(width, height or figure_size(width, rows, cols, aspect, kind.colourbar,
                                                     guess_rows, titled, footer, labelled))
    grid = make_grid(fig, rows, cols, legend_rows=guess_rows)
    shared = kind.prepare(plan.facets)
    drawns = []
    for k, facet in enumerate(plan.facets):
        for s, (sub, sub_title) in enumerate(zip(kind.subpanels, kind.sub_titles)):
            if len(kind.subpanels) > 1:
                r, c = k, s
            else:
                r, c = facet.row, facet.col
            ax = grid.panels[r, c]
            d = kind.panel(ax, facet, shared, sub)
            d.facet = facet
            title = ", ".join(t for t in (sub_title, facet.label) if t)
            if title:
                ax.set_title(title, pad=3)
            drawns.append(d)
    handles = dedupe([h for d in drawns for h in d.handles])
    legend_rows = 0
    if handles:
        ncol = legend_columns(handles, width - 0.3)
        legend_rows = -(-len(handles) // ncol)
    if height is None:
        fig.set_size_inches(width, figure_size(width, rows, cols, aspect, kind.colourbar,
                                               legend_rows, titled, footer, labelled))
    w, h = fig.get_size_inches()
    legend_h = 0.02 + 0.16 * legend_rows if legend_rows else 0.001
    panel_h = max(0.3, h - legend_h - 0.5 - (0.25 if titled else 0) - (0.15 if footer else 0))
    grid.panels[0, 0].get_gridspec().set_height_ratios([panel_h / rows] * rows + [legend_h])
    if not handles:
        grid.legend_ax.set_visible(False)
    finish_grid(fig, grid, drawns, kind.colourbar_label)
    return drawns


def finalize_labels(fig, drawns: List[Drawn]) -> None:
    """Run the layout, thin tick labels that would touch, freeze the layout, then place
    the contour labels where the lines are."""
    from .ticks import unify
    unify(fig)
    fig.canvas.draw()
    if wrap_long_labels(fig) | declutter_ticks(fig):
        fig.canvas.draw()
    fig.set_layout_engine("none")
    for d in drawns:
        if d.contour_sets:
            label_levels(d)


def wrap_text(text: str, chars: int) -> str:
    """TEXT in lines of about CHARS characters, never broken inside $...$ (mathtext)."""
    import re
    import textwrap
    protected = re.sub(r"\$[^$]*\$", lambda m: m.group(0).replace(" ", "\0"), text)
    lines = textwrap.wrap(protected, max(8, chars), break_long_words=False)
    return "\n".join(lines).replace("\0", " ")


def wrap_long_labels(fig) -> bool:
    """Axis labels longer than their axes (a long description beside a short panel)
    broken into lines; whether anything changed."""
    from .contours import renderer_of
    renderer = renderer_of(fig)
    changed = False
    for ax in fig.axes:
        box = ax.get_window_extent(renderer)
        for label, room in ((ax.yaxis.label, box.height), (ax.xaxis.label, box.width)):
            text = label.get_text()
            if not text or not label.get_visible() or "\n" in text:
                continue
            b = label.get_window_extent(renderer)
            length = max(b.width, b.height)
            if length > room * 1.02 and room > 0:
                lines = math.ceil(length / (room * 0.95))  # balanced: no word left alone
                label.set_text(wrap_text(text, math.ceil(len(text) / lines) + 2))
                changed = True
    return changed


def _crowded(labels, renderer, pad: float = 3.0) -> bool:
    boxes = sorted((t.get_window_extent(renderer) for t in labels if t.get_visible()
                    and t.get_text()), key=lambda b: (b.x0, b.y0))
    for a, b in zip(boxes, boxes[1:]):
        if (a.x0 - pad < b.x1 and b.x0 - pad < a.x1 and a.y0 - pad < b.y1 and b.y0 - pad < a.y1):
            return True
    return False


def declutter_ticks(fig) -> bool:
    """Where the tick labels of an axis would touch (narrow panels, long numbers), label
    only every second (third, ...) tick; whether anything changed."""
    from .contours import renderer_of
    from .ticks import EveryNth
    renderer = renderer_of(fig)
    changed = False
    for ax in fig.axes:
        if not ax.axison:
            continue
        for axis in (ax.xaxis, ax.yaxis):
            if not hasattr(axis, "_update_ticks"):  # matplotlib's own: the ticks drawn
                return changed
            drawn = axis._update_ticks()
            labels = [t.label1 for t in drawn] + [t.label2 for t in drawn]
            if not _crowded(labels, renderer):
                continue
            base = axis.get_major_formatter()
            locs = list(axis.get_majorticklocs())
            for step in (2, 3, 4, 5):
                keep = {round(v, 12) for v in locs[::step]}
                axis.set_major_formatter(EveryNth(base, keep))
                drawn = axis._update_ticks()
                if not _crowded([t.label1 for t in drawn] + [t.label2 for t in drawn], renderer):
                    break
            changed = True
    return changed


# ------------------------------------------------------------------ library helpers


def prepare_axes(ds, ax=None, x: Optional[str] = None, y: Optional[str] = None):
    """(Result, Plane, Axes) for a drawing function called with a Dataset: AX or the
    current pyplot Axes."""
    result = Result.from_dataset(ds)
    plane = dataset_plane(result, x, y)
    if ax is None:
        import matplotlib.pyplot as plt  # only here: a notebook's own backend
        ax = plt.gca()
    return result, plane, ax


def library_panel(kind: Kind, ds, ax=None, x: Optional[str] = None, y: Optional[str] = None,
                  legend: bool = True, colourbar: bool = True, sub: str = "") -> Drawn:
    """Draw KIND's panel of DS into AX (a notebook's Axes), with its legend beside it and
    its colour bar; the Drawn (artists, handles, mappable, contour labels)."""
    result, plane, ax = prepare_axes(ds, ax, x, y)
    facet = Facet(result=result, plane=plane, label=plane.fixed)
    shared = kind.prepare([facet])
    d = kind.panel(ax, facet, shared, sub or kind.subpanels[0])
    d.facet = facet
    if colourbar and d.mappable is not None:
        from .drawing import add_colourbar
        add_colourbar(ax.figure, ax, d.mappable, kind.colourbar_label or d.colour_label)
    if legend and d.handles:
        ax.legend(handles=dedupe(d.handles), loc="upper left", bbox_to_anchor=(1.02, 1.0),
                  borderaxespad=0.0, frameon=False, fontsize="small")
    if d.contour_sets:
        label_levels(d)
    return d
