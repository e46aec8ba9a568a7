"""stop_oscillator: the figures of the stop-oscillator model (Valente, McClamroch and
Mezic): the long-run regime, the Zeno region with the rebound counts as level curves, and
(files computed with fragility = 1) which decided regimes rest on rounding.

Library functions: regime(ds, ax), zeno(ds, ax), fragile(ds, ax).
"""

from typing import Dict, List, Optional, Sequence

import numpy as np

from .drawing import (Category, Drawn, categories_of, classes_panel, lines_panel, nice_levels,
                      one_class, panel_note, variable_codes)
from .figures import STRIP, Kind, library_panel
from .reading import Facet, Result
from .style import CLASS_COLOURS, class_label


UNDECIDED_SHARE = 0.5  # a regime map more undecided than this is its horizon's, not a map


def horizon_text(result: Result) -> str:
    """'t_end = 5' (the file's horizon), or 't_end (an axis)'."""
    if "t_end" in result.ds.dims:
        return "t_end (an axis)"
    value = result.attr("parameter_t_end")
    try:
        return f"t_end = {float(value):g}"
    except ValueError:
        return "t_end"


def undecided_share(facets: List[Facet]) -> float:
    """The share of the computed points of FACETS whose regime is undecided."""
    undecided = done = 0
    for f in facets:
        cats = categories_of(f.result, "regime")
        names = [c.name for c in cats]
        if "undecided" not in names:
            return 0.0
        codes = f.plane.take(f.result.ds["regime"])
        ok = (f.plane.take(f.result.status) == 1) & np.isfinite(codes)
        done += int(ok.sum())
        undecided += int((codes[ok] == names.index("undecided")).sum())
    return undecided / done if done else 0.0


def short_horizon(facets: List[Facet]) -> str:
    """Why the regime map of FACETS is its horizon's ('' if it is a map): most points
    undecided."""
    share = undecided_share(facets)
    if share > UNDECIDED_SHARE:
        return (f"{share:.0%} undecided: {horizon_text(facets[0].result)} too short "
                "to settle the regime")
    return ""


def regime_degenerate(facets: List[Facet]) -> str:
    return short_horizon(facets) or one_class(facets, variable_codes("regime"))


def regime_panel(ax, facet: Facet, shared: Dict, sub: str = "") -> Drawn:
    """The long-run regime; a note naming t_end where most points are undecided."""
    d = classes_panel(ax, facet.result, facet.plane, "regime")
    why = short_horizon([facet])
    if why:
        d.notes.append(panel_note(ax, why))
    return d


def zeno_prepare(facets: List[Facet]) -> Dict:
    """Rebound levels shared by the panels."""
    if not all(f.result.has("rebounds") for f in facets):
        return {}
    values = np.concatenate([f.plane.take(f.result.ds["rebounds"]).ravel() for f in facets])
    return {"levels": nice_levels(values, integer=True)}


def zeno_codes(facet: Facet):
    """The Zeno classes (zeno_resets > 0) of a facet: codes and categories."""
    resets = facet.plane.take(facet.result.ds["zeno_resets"])
    codes = np.where(np.isfinite(resets), (resets > 0).astype(float), np.nan)
    cats = [Category("no_zeno", class_label("no_zeno"), CLASS_COLOURS["no_zeno"]),
            Category("zeno", class_label("zeno"), CLASS_COLOURS["zeno"])]
    return codes, cats


def zeno_panel(ax, facet: Facet, shared: Dict, sub: str = "") -> Drawn:
    """Zeno region (zeno_resets > 0) with rebounds as labelled level curves; on one axis
    zeno_resets and rebounds as lines."""
    r, p = facet.result, facet.plane
    if len(p.axes) == 1:
        names = [n for n in ("zeno_resets", "rebounds") if r.has(n)]
        return lines_panel(ax, r, p, names)
    codes, cats = zeno_codes(facet)
    contour = ("rebounds", shared["levels"]) if shared.get("levels") else None
    return classes_panel(ax, r, p, "zeno_resets", codes=codes, categories=cats,
                         contour=contour)


def fragile_panel(ax, facet: Facet, shared: Dict, sub: str = "") -> Drawn:
    """Robust or fragile where the point's twin ran; done points without a twin (an
    undecided regime) as a class of their own rather than blank."""
    codes, cats = fragile_codes(facet)
    return classes_panel(ax, facet.result, facet.plane, "fragile", codes=codes,
                         categories=cats)


def fragile_codes(facet: Facet):
    """Robust, fragile or no twin (done, undecided): codes and categories."""
    r, p = facet.result, facet.plane
    values = p.take(r.ds["fragile"])
    done = p.take(r.status) == 1
    codes = np.where(np.isfinite(values), values, np.where(done, 2.0, np.nan))
    cats = [Category(n, class_label(n), CLASS_COLOURS[n])
            for n in ("robust", "fragile", "no_twin")]
    return codes, cats


def has_twins(result: Result) -> bool:
    """Whether the file holds fragility results (fragility = 1 when it was computed)."""
    return result.has("fragile") and bool(np.isfinite(result.ds["fragile"].values).any())


def kinds(result: Result, plane_axes: Sequence[str]) -> List[Kind]:
    """The stop-oscillator figures this result can have."""
    out = []
    if result.has("regime"):
        out.append(Kind("regime", regime_panel, one_axis_aspect=STRIP,
                        degenerate=regime_degenerate))
    if result.has("zeno_resets"):
        out.append(Kind("zeno", zeno_panel, prepare=zeno_prepare,
                        degenerate=lambda facets: one_class(facets, zeno_codes)))
    if has_twins(result):
        out.append(Kind("fragile", fragile_panel, one_axis_aspect=STRIP,
                        degenerate=lambda facets: one_class(facets, fragile_codes)))
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
