"""stop_oscillator: the figures of the stop-oscillator model (Valente, McClamroch and
Mezic): the long-run regime, the Zeno region with the rebound counts as level curves, and
(files computed with fragility = 1) which decided regimes rest on rounding.

Library functions: regime(ds, ax), zeno(ds, ax), fragile(ds, ax).
"""

from typing import Dict, List, Optional, Sequence

import numpy as np

from .drawing import Category, Drawn, classes_panel, lines_panel, nice_levels
from .figures import STRIP, Kind, library_panel
from .reading import Facet, Result
from .style import CLASS_COLOURS, class_label


def regime_panel(ax, facet: Facet, shared: Dict, sub: str = "") -> Drawn:
    return classes_panel(ax, facet.result, facet.plane, "regime")


def zeno_prepare(facets: List[Facet]) -> Dict:
    """Rebound levels shared by the panels."""
    if not all(f.result.has("rebounds") for f in facets):
        return {}
    values = np.concatenate([f.plane.take(f.result.ds["rebounds"]).ravel() for f in facets])
    return {"levels": nice_levels(values, integer=True)}


def zeno_panel(ax, facet: Facet, shared: Dict, sub: str = "") -> Drawn:
    """Zeno region (zeno_resets > 0) with rebounds as labelled level curves; on one axis
    zeno_resets and rebounds as lines."""
    r, p = facet.result, facet.plane
    if len(p.axes) == 1:
        names = [n for n in ("zeno_resets", "rebounds") if r.has(n)]
        return lines_panel(ax, r, p, names)
    resets = p.take(r.ds["zeno_resets"])
    codes = np.where(np.isfinite(resets), (resets > 0).astype(float), np.nan)
    cats = [Category("no_zeno", class_label("no_zeno"), CLASS_COLOURS["no_zeno"]),
            Category("zeno", class_label("zeno"), CLASS_COLOURS["zeno"])]
    contour = ("rebounds", shared["levels"]) if shared.get("levels") else None
    return classes_panel(ax, r, p, "zeno_resets", codes=codes, categories=cats,
                         contour=contour)


def fragile_panel(ax, facet: Facet, shared: Dict, sub: str = "") -> Drawn:
    """Robust or fragile where the point's twin ran; done points without a twin (an
    undecided regime) as a class of their own rather than blank."""
    r, p = facet.result, facet.plane
    values = p.take(r.ds["fragile"])
    done = p.take(r.status) == 1
    codes = np.where(np.isfinite(values), values, np.where(done, 2.0, np.nan))
    cats = [Category(n, class_label(n), CLASS_COLOURS[n])
            for n in ("robust", "fragile", "no_twin")]
    return classes_panel(ax, r, p, "fragile", codes=codes, categories=cats)


def has_twins(result: Result) -> bool:
    """Whether the file holds fragility results (fragility = 1 when it was computed)."""
    return result.has("fragile") and bool(np.isfinite(result.ds["fragile"].values).any())


def kinds(result: Result, plane_axes: Sequence[str]) -> List[Kind]:
    """The stop-oscillator figures this result can have."""
    out = []
    if result.has("regime"):
        out.append(Kind("regime", regime_panel, one_axis_aspect=STRIP))
    if result.has("zeno_resets"):
        out.append(Kind("zeno", zeno_panel, prepare=zeno_prepare))
    if has_twins(result):
        out.append(Kind("fragile", fragile_panel, one_axis_aspect=STRIP))
    return out


# ------------------------------------------------------------------------- library


def regime(ds, ax=None, x: Optional[str] = None, y: Optional[str] = None, **kw) -> Drawn:
    """The long-run regime map of a stop-oscillator Dataset."""
    return library_panel(Kind("regime", regime_panel), ds, ax, x, y, **kw)


def zeno(ds, ax=None, x: Optional[str] = None, y: Optional[str] = None, **kw) -> Drawn:
    """The Zeno region with the rebound level curves."""
    return library_panel(Kind("zeno", zeno_panel, prepare=zeno_prepare), ds, ax, x, y, **kw)


def fragile(ds, ax=None, x: Optional[str] = None, y: Optional[str] = None, **kw) -> Drawn:
    """Which decided regimes of a stop-oscillator Dataset rest on rounding (fragility = 1)."""
    return library_panel(Kind("fragile", fragile_panel), ds, ax, x, y, **kw)
