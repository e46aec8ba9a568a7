"""figures: a figure kind (one panel function, what its panels share) drawn over the
facets of a plan: panels side by side, one colour bar, one legend, a height that fits
the width.
"""

from dataclasses import dataclass, field
from typing import Callable, Dict, List, Optional, Sequence

import numpy as np

from .drawing import (Drawn, dedupe, finish_grid, figure_size, label_panels,
                      legend_columns, make_grid)
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
    rows, cols = panel_grid_shape(kind, plan)
    one_axis = len(plan.plane_axes) == 1
    aspect = kind.one_axis_aspect if one_axis else kind.aspect
    labelled = any(f.label for f in plan.facets) or len(kind.subpanels) > 1
    guess_rows = 1
    fig.set_size_inches(width, height or figure_size(width, rows, cols, aspect, kind.colourbar,
                                                     guess_rows, titled, footer, labelled))
    grid = make_grid(fig, rows, cols, legend_rows=guess_rows, sharex=True,
                     sharey=not (one_axis and len(kind.subpanels) == 1 and False))
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
    """Run the layout, freeze it, then place the contour labels where the lines are."""
    fig.canvas.draw()
    fig.set_layout_engine("none")
    label_panels(drawns)


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
        label_panels([d])
    return d
