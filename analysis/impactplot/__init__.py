"""impactplot: figures of impactsweep result files, for a paper or a notebook.

As a library (no backend is chosen or changed on import; figures go to the Axes given,
or to pyplot's current Axes):

    import sys; sys.path.insert(0, "/path/to/impactsweep/analysis")  # or share/impactsweep/python
    import matplotlib.pyplot as plt, impactplot
    ds = impactplot.open_dataset("example.h5")          # xarray.Dataset
    fig, ax = plt.subplots()
    d = impactplot.chatter.regime(ds, ax)               # d.artists, d.handles, d.labels
    impactplot.collision.cor(ds.sel(law="bwshc"), ax)   # select choices / extra axes first
    with impactplot.journal_style(): ...                # TrueType fonts, 8 pt

Modules: reading (files, planes, facets), drawing (generic panels, legends, colour bars),
contours (level curves and their labels), labels (short labels: symbols, typeset units),
ticks (one number format per axis), figures (a figure kind over facets), chatter,
collision, stop_oscillator (one module of figures per model), fits (a fit report's
figure: data, fitted curve and band, residuals), orbit (orbit diagrams of an array output,
exponent maps: orbit.figure(ds, "section")), traces, output (metadata,
writing), cli (the command: `python3 -m impactplot`, or the impactplot script).
"""

import contextlib

from . import (chatter, collision, contours, drawing, figures, fits, labels, orbit, reading,
               stop_oscillator, style, ticks)
from .drawing import Drawn
from .reading import BadInput, Result, open_result

__all__ = ["chatter", "collision", "stop_oscillator", "fits", "orbit", "drawing", "contours",
           "figures",
           "labels", "reading", "style", "ticks", "Drawn", "BadInput", "Result",
           "open_result", "open_dataset", "journal_style", "classes", "colour"]


def open_dataset(path: str):
    """The xarray Dataset of a result file (loaded; the file is closed again)."""
    return open_result(path).ds


@contextlib.contextmanager
def journal_style(font_size: float = style.FONT_SIZE):
    """matplotlib settings of impactplot's figures (TrueType fonts in PDF and EPS) while
    the block runs."""
    import matplotlib
    with matplotlib.rc_context(style.rc(font_size)):
        yield


def classes(ds, name: str, ax=None, x=None, y=None, **kw) -> Drawn:
    """A categorical map of any output NAME with flag_meanings."""
    kind = figures.Kind(name, lambda a, f, s, sub: drawing.classes_panel(a, f.result, f.plane,
                                                                         name))
    return figures.library_panel(kind, ds, ax, x, y, **kw)


def colour(ds, name: str, ax=None, x=None, y=None, **kw) -> Drawn:
    """A colour map (a line over one axis) of any numeric output NAME."""
    kind = figures.Kind(name, lambda a, f, s, sub: drawing.colour_panel(a, f.result, f.plane,
                                                                        name))
    return figures.library_panel(kind, ds, ax, x, y, **kw)
