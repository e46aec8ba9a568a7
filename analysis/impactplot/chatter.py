"""chatter: the figures of the chatter model (Baranyai and Varkonyi): the most frequent
outcome with the impact-count level curves (their Fig. 7), the mean impact count, the
fractions of ICC, CC and PCC drops (and of flat landings, where any drop landed flat), the
share of drops CC only by the impact budget (p_undecided, where the file has it), and the
invariant-cone certificate (their Fig. 6).

Each figure kind has a panel function for the command's facets and a library function
taking a Dataset and an Axes: regime(ds, ax), impacts(ds, ax), fractions(ds, axes),
cone(ds, ax).
"""

from typing import Dict, List, Optional, Sequence

import numpy as np
from matplotlib.colors import Normalize

from .drawing import (Category, Drawn, classes_panel, colour_panel, categories_of,
                      is_categorical, lines_panel, one_class, panel_note, shared_norm,
                      variable_codes)
from .figures import STRIP, Kind, library_panel
from .reading import Facet, Result, dataset_plane
from .style import CLASS_COLOURS, class_label

# The outputs the parameter max_impacts caps (a drop stops there, counted CC): their
# colour bars say "200 or more" where the data reach it.
CAPPED_BY = {"impacts_mean": "max_impacts", "impacts_max": "max_impacts"}
# Level curves of impacts_mean (the paper's Fig. 7 uses 10, 25, 50, 100, 200).
IMPACT_LEVELS = (10, 25, 50, 100, 200, 500, 1000, 2000, 5000, 10000)
FRACTIONS = ("p_icc", "p_cc", "p_pcc", "p_flat")


def drawn_fractions(result: Result) -> List[str]:
    """The fractions the figures show: those the file has, p_flat only where some drop
    landed flat (most maps have none: a fourth panel of zeros would say nothing)."""
    def shown(name):
        if not result.has(name):
            return False
        if name != "p_flat":
            return True
        values = np.asarray(result.ds[name].values, dtype=float)
        return bool(np.any(values[np.isfinite(values)] > 0))
    return [n for n in FRACTIONS if shown(n)]


def regime_codes(result: Result, plane):
    """The regime classes: the `regime` variable, else the largest of the fractions."""
    if result.has("regime"):
        return plane.take(result.ds["regime"]), categories_of(result, "regime")
    names = drawn_fractions(result)
    stack = np.stack([plane.take(result.ds[n]) for n in names])
    finite = np.all(np.isfinite(stack), axis=0)
    codes = np.where(finite, np.argmax(np.where(np.isfinite(stack), stack, -1), axis=0), np.nan)
    cats = [Category(n[2:], class_label(n[2:]), CLASS_COLOURS[n[2:]]) for n in names]
    return codes, cats


def regime_panel(ax, facet: Facet, shared: Dict, sub: str = "") -> Drawn:
    """The most frequent outcome, with the level curves of impacts_mean that exist."""
    r, p = facet.result, facet.plane
    codes, cats = regime_codes(r, p)
    return classes_panel(ax, r, p, "regime", codes=codes, categories=cats,
                         contour=("impacts_mean", IMPACT_LEVELS))


def regime_degenerate(facets: List[Facet]) -> str:
    return one_class(facets, lambda f: regime_codes(f.result, f.plane))


def impacts_panel(ax, facet: Facet, shared: Dict, sub: str = "") -> Drawn:
    """impacts_mean as colour (shared scale) with its level curves; "200 or more" on the
    colour bar where drops reached max_impacts."""
    return colour_panel(ax, facet.result, facet.plane, "impacts_mean",
                        norm=shared.get("norm"), levels=IMPACT_LEVELS,
                        capped_by=CAPPED_BY["impacts_mean"])


def impacts_prepare(facets: List[Facet]) -> Dict:
    return {"norm": shared_norm([f.plane.take(f.result.ds["impacts_mean"]) for f in facets])}


def fraction_panel(ax, facet: Facet, shared: Dict, sub: str) -> Drawn:
    """One fraction (SUB) from 0 to 1 on the shared scale; on one axis the three
    fractions as lines in the class colours."""
    r, p = facet.result, facet.plane
    if len(p.axes) == 1:
        names = drawn_fractions(r)
        return lines_panel(ax, r, p, names, colours=[CLASS_COLOURS[n[2:]] for n in names],
                           labels=[class_label(n[2:]) for n in names], ylog=False,
                           ylabel="fraction of the drops")
    return colour_panel(ax, r, p, sub, norm=Normalize(0, 1), cmap="cividis",
                        label="fraction of the drops")


def uncertified(result: Result) -> str:
    """Why p_undecided of RESULT is p_cc itself ('' if it is not): early_stop = 0
    certifies no drop, so every CC drop is one that reached max_impacts."""
    try:
        early_stop = float(result.attr("parameter_early_stop", "nan"))
    except ValueError:
        early_stop = float("nan")
    if early_stop == 0:
        return "early_stop = 0 certifies no drop: p_undecided = p_cc"
    if result.has("p_cc"):
        a = np.asarray(result.ds["p_undecided"].values, dtype=float)
        b = np.asarray(result.ds["p_cc"].values, dtype=float)
        finite = np.isfinite(a) & np.isfinite(b)
        if finite.any() and np.array_equal(a[finite], b[finite]) and np.any(b[finite] > 0):
            return "no drop certified: p_undecided = p_cc"
    return ""


def undecided_degenerate(facets: List[Facet]) -> str:
    return next((w for w in (uncertified(f.result) for f in facets) if w), "")


def undecided_panel(ax, facet: Facet, shared: Dict, sub: str = "") -> Drawn:
    """p_undecided: the share of drops counted CC only because they reached max_impacts
    without a certificate (p_cc = p_certified + p_undecided), from 0 to 1; a note where
    nothing was certified (it is p_cc then, and says nothing of doubt)."""
    d = colour_panel(ax, facet.result, facet.plane, "p_undecided", norm=Normalize(0, 1),
                     cmap="cividis")
    why = uncertified(facet.result)
    if why:
        d.notes.append(panel_note(ax, why))
    return d


def cone_panel(ax, facet: Facet, shared: Dict, sub: str = "") -> Drawn:
    return classes_panel(ax, facet.result, facet.plane, "cone")


def kinds(result: Result, plane_axes: Sequence[str]) -> List[Kind]:
    """The chatter figures this result can have."""
    out = []
    if result.has("regime") or result.has("p_icc"):
        out.append(Kind("regime", regime_panel, one_axis_aspect=STRIP,
                        degenerate=regime_degenerate))
    if result.has("impacts_mean"):
        out.append(Kind("impacts", impacts_panel, prepare=impacts_prepare, colourbar=True))
    fractions = drawn_fractions(result)
    if fractions:
        if len(plane_axes) == 1:
            out.append(Kind("fractions", fraction_panel, subpanels=("all",)))
        else:
            out.append(Kind("fractions", fraction_panel, subpanels=tuple(fractions),
                            sub_titles=tuple(class_label(f[2:]) for f in fractions),
                            colourbar=True, colourbar_label="fraction of the drops"))
    if result.has("p_undecided"):
        out.append(Kind("undecided", undecided_panel, colourbar=True,
                        degenerate=undecided_degenerate))
    if result.has("cone") and is_categorical(result, "cone"):
        out.append(Kind("cone", cone_panel, one_axis_aspect=STRIP,
                        degenerate=lambda facets: one_class(facets, variable_codes("cone"))))
    return out


# ------------------------------------------------------------------------- library


def regime(ds, ax=None, x: Optional[str] = None, y: Optional[str] = None, **kw) -> Drawn:
    """The ICC / CC / PCC / flat map of a chatter Dataset (two axes, or a strip over one)
    with the impacts_mean level curves, into AX (default: the current Axes)."""
    return library_panel(Kind("regime", regime_panel), ds, ax, x, y, **kw)


def impacts(ds, ax=None, x: Optional[str] = None, y: Optional[str] = None, **kw) -> Drawn:
    """impacts_mean as colour with its level curves and a colour bar."""
    return library_panel(Kind("impacts", impacts_panel, prepare=impacts_prepare), ds, ax,
                         x, y, **kw)


def fractions(ds, axes=None, x: Optional[str] = None, y: Optional[str] = None) -> List[Drawn]:
    """p_icc, p_cc, p_pcc (and p_flat where a drop landed flat) into AXES (one Axes each,
    e.g. plt.subplots(1, 3)[1]), one shared colour bar from 0 to 1; over one axis the
    fractions as lines in the first Axes."""
    import matplotlib.pyplot as plt
    from .drawing import add_colourbar
    result = Result.from_dataset(ds)
    if len(dataset_plane(result, x, y).axes) == 1:  # one axis: the three as lines
        ax = np.atleast_1d(axes)[0] if axes is not None else None
        return [library_panel(Kind("fractions", fraction_panel), ds, ax, x, y, sub="all")]
    names = drawn_fractions(result)
    if axes is None:
        axes = plt.gcf().subplots(1, len(names), sharey=True)
    out = []
    for ax, name in zip(np.atleast_1d(axes), names):
        d = library_panel(Kind("fractions", fraction_panel), ds, ax, x, y, legend=False,
                          colourbar=False, sub=name)
        ax.set_title(class_label(name[2:]))
        out.append(d)
    if out and out[0].mappable is not None:
        add_colourbar(out[0].ax.figure, list(np.atleast_1d(axes)), out[0].mappable,
                      "fraction of the drops")
    return out


def undecided(ds, ax=None, x: Optional[str] = None, y: Optional[str] = None, **kw) -> Drawn:
    """p_undecided (drops CC only by the impact budget) from 0 to 1."""
    return library_panel(Kind("undecided", undecided_panel), ds, ax, x, y, **kw)


def cone(ds, ax=None, x: Optional[str] = None, y: Optional[str] = None, **kw) -> Drawn:
    """The invariant-cone certificate map."""
    return library_panel(Kind("cone", cone_panel), ds, ax, x, y, **kw)
