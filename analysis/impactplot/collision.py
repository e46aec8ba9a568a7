"""collision: the figures of the collision model (Milehins and Marghitu): the CoR e as
filled contours over two axes (e over one), e(v0) as one curve per value of the other
axis, and how each collision ended.

Library functions: cor(ds, ax), cor_v0(ds, ax), outcome(ds, ax).
"""

import dataclasses
from typing import Dict, List, Optional, Sequence

import matplotlib
import numpy as np
from matplotlib.colors import BoundaryNorm
from matplotlib.ticker import MaxNLocator

from .contours import level_curves
from .drawing import (Drawn, axis_label, classes_panel, colour_panel, draw_status,
                      field_label, field_symbol, lines_panel, mesh, note_if_uniform,
                      one_class, point_status, setup_axes, status_rug, variable_codes)
from .figures import STRIP, Kind, library_panel
from .labels import format_value
from .reading import Facet, Result, axis_scale, note
from .style import SEQUENTIAL_CMAP, STATUS_CLASSES
from .ticks import log_ticks

MAX_CURVES = 8  # e(v0) curves drawn at most (the other axis is thinned beyond)


def cor_prepare(facets: List[Facet]) -> Dict:
    """The filled-contour levels (and the labelled lines among them) over every panel."""
    values = np.concatenate([f.plane.take(f.result.ds["cor"]).ravel() for f in facets])
    finite = values[np.isfinite(values)]
    if finite.size == 0 or finite.max() <= finite.min():
        return {}
    lo, hi = float(finite.min()), float(finite.max())
    levels = MaxNLocator(nbins=20, steps=[1, 2, 5, 10]).tick_values(lo, hi)
    ticks = MaxNLocator(nbins=8, steps=[1, 2, 5, 10]).tick_values(lo, hi)
    lines = [round(float(v), 10) for v in ticks if lo < v < hi]
    return {"levels": levels, "lines": lines}


def cor_panel(ax, facet: Facet, shared: Dict, sub: str = "") -> Drawn:
    """e as filled contours on the shared levels with labelled lines, not computed and
    failed points overlaid; e over the axis on one."""
    r, p = facet.result, facet.plane
    if len(p.axes) == 1:
        return lines_panel(ax, r, p, ["cor"])
    e = p.take(r.ds["cor"])
    status = point_status(r, p, e)
    levels = shared.get("levels")
    finite = e[np.isfinite(e)]
    if levels is None or min(e.shape) < 2 or finite.size < 4 or finite.max() <= finite.min():
        d = colour_panel(ax, r, p, "cor")  # constant or too small for contours
        return d
    setup_axes(ax, r, p, grid_limits=True)
    x, y = p.coords(r)
    cmap = matplotlib.colormaps[SEQUENTIAL_CMAP]
    d = Drawn(ax=ax, variable="cor", kind="filled_contours", axes=p.axes,
              classes=dict(STATUS_CLASSES), colour_label=field_label(r, "cor"))
    if not np.isfinite(e).all():
        # contourf leaves out the triangles next to a missing point: fill those with the
        # points' own cells in the same colours
        d.artists.append(mesh(ax, r, p, e, cmap=cmap, norm=BoundaryNorm(levels, cmap.N)))
    cf = ax.contourf(x, y, np.ma.masked_invalid(e.T), levels=levels, cmap=cmap,
                     extend="neither")
    d.artists.append(cf)
    d.mappable = cf
    lines = [v for v in shared.get("lines", []) if finite.min() < v < finite.max()]
    curves = level_curves(ax, r, p, "cor", e, lines, colour="black", linewidth=0.5) \
        if lines else None
    if curves:
        d.contours = {"field": "cor", "levels": list(curves.levels),
                      "cuts": list(curves.cuts), "keyed": curves.keyed}
        d.contour_sets.append(curves)
        d.artists += curves.collections
        if curves.keyed:
            from .drawing import level_handles
            d.handles += level_handles(r, curves)
    d.handles = draw_status(ax, r, p, status, e)
    symbol_text = field_symbol(r, "cor")
    note_if_uniform(d, e, status, lambda v: f"{symbol_text} = {v:.4g}")
    return d


def cor_v0_panel(ax, facet: Facet, shared: Dict, sub: str = "") -> Drawn:
    """e(v0): one curve over v0 per value of the plane's other axis (at most MAX_CURVES,
    evenly picked), coloured along that axis."""
    r, p = facet.result, facet.plane
    other = [a for a in p.axes if a != "v0"][0]
    sub_plane = dataclasses.replace(p, axes=["v0", other])
    e = sub_plane.take(r.ds["cor"])
    status = point_status(r, sub_plane, e)
    v0, w = sub_plane.coords(r)
    picks = np.unique(np.round(np.linspace(0, w.size - 1, min(w.size, MAX_CURVES))).astype(int))
    if picks.size < w.size:
        note(f"{r.path}: cor_v0: {picks.size} of the {w.size} values of {other} drawn")
    cmap = matplotlib.colormaps[SEQUENTIAL_CMAP]
    d = Drawn(ax=ax, variable="cor", kind="lines", axes=["v0"], classes=dict(STATUS_CLASSES))
    for k, j in enumerate(picks):
        colour = cmap(k / max(1, picks.size - 1) * 0.9)
        (line,) = ax.plot(v0, e[:, j], color=colour, linewidth=1.2, markersize=3,
                          marker="." if v0.size <= 60 else None,
                          label=format_value(other, w[j], r.ds[other].attrs))
        d.artists.append(line)
        d.handles.append(line)
    scale = axis_scale(r, "v0")
    ax.set_xscale(scale)
    log_ticks(ax.xaxis, scale, v0)
    ax.set_xlabel(axis_label(r, "v0"))
    ax.set_ylabel(field_label(r, "cor"))
    ax.grid(True, which="major", color="0.88", linewidth=0.5)  # opaque: EPS
    d.handles += status_rug(ax, v0, np.where((status == 0).all(axis=1), 0,
                                             np.where((status >= 2).any(axis=1), 2, 1)))
    return d


def outcome_panel(ax, facet: Facet, shared: Dict, sub: str = "") -> Drawn:
    return classes_panel(ax, facet.result, facet.plane, "outcome")


def kinds(result: Result, plane_axes: Sequence[str]) -> List[Kind]:
    """The collision figures this result can have."""
    out = []
    if result.has("cor"):
        out.append(Kind("cor", cor_panel, prepare=cor_prepare, colourbar=True))
        if len(plane_axes) == 2 and "v0" in plane_axes:
            out.append(Kind("cor_v0", cor_v0_panel, aspect=0.62))
    if result.has("outcome") and len(plane_axes) == 2:
        out.append(Kind("outcome", outcome_panel, one_axis_aspect=STRIP,
                        degenerate=lambda facets: one_class(facets,
                                                            variable_codes("outcome"))))
    return out


# ------------------------------------------------------------------------- library


def cor(ds, ax=None, x: Optional[str] = None, y: Optional[str] = None, **kw) -> Drawn:
    """e of a collision Dataset as filled contours (two axes) or a curve (one)."""
    return library_panel(Kind("cor", cor_panel, prepare=cor_prepare), ds, ax, x, y, **kw)


def cor_v0(ds, ax=None, other: Optional[str] = None, **kw) -> Drawn:
    """e(v0), one curve per value of the other axis."""
    return library_panel(Kind("cor_v0", cor_v0_panel), ds, ax, "v0", other, **kw)


def outcome(ds, ax=None, x: Optional[str] = None, y: Optional[str] = None, **kw) -> Drawn:
    """How each collision ended."""
    return library_panel(Kind("outcome", outcome_panel), ds, ax, x, y, **kw)
