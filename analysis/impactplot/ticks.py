"""ticks: one number format per axis, colour bar and set of contour labels.

Every label of an axis is written the same way: plain decimals where all of them read
plainly (0.05, 0.1, 0.2; 1, 10, 100), else all as powers of ten ($10^{-5}$,
$2\\times10^{-5}$), never a mix of 0.0001 and 1e-05. Linear axes keep matplotlib's
ScalarFormatter (one number of decimals, an offset or factor written as x10^n in
mathtext).
"""

import math
from typing import List, Sequence

import numpy as np
from matplotlib.ticker import (Formatter, LogLocator, MaxNLocator, NullFormatter,
                               ScalarFormatter)

PLAIN_MIN, PLAIN_MAX = 1e-3, 1e5   # plain decimals within this range of magnitudes
PLAIN_DIGITS = 5                   # and with at most this many significant digits


def _plain(value: float) -> str:
    """VALUE in plain decimals, shortest form ('0.05', '200', '-1.5')."""
    text = np.format_float_positional(float(value), precision=10, unique=True, trim="-")
    return "0" if text in ("-0", "0.") else text.replace("-", "\u2212")


def _significant_digits(text: str) -> int:
    digits = text.replace("\u2212", "").replace(".", "").lstrip("0")
    return len(digits.rstrip("0")) if "." not in text else len(digits)


def _power(value: float) -> str:
    """VALUE as a power of ten in mathtext: $10^{-5}$, $2\\times10^{-5}$, $0$."""
    if value == 0:
        return "$0$"
    sign = "-" if value < 0 else ""
    exponent = math.floor(math.log10(abs(value)) + 1e-9)
    mantissa = abs(value) / 10.0 ** exponent
    m = f"{mantissa:.3g}"
    if m == "10":
        m, exponent = "1", exponent + 1
    if m == "1":
        return f"${sign}10^{{{exponent}}}$"
    return f"${sign}{m}\\times10^{{{exponent}}}$"


def plain_reads(values: Sequence[float]) -> bool:
    """Whether every value of VALUES reads plainly (magnitudes within PLAIN_MIN ..
    PLAIN_MAX, at most PLAIN_DIGITS significant digits)."""
    for v in values:
        v = float(v)
        if v == 0 or not math.isfinite(v):
            continue
        if not (PLAIN_MIN <= abs(v) < PLAIN_MAX):
            return False
        if _significant_digits(_plain(v)) > PLAIN_DIGITS:
            return False
    return True


def format_values(values: Sequence[float]) -> List[str]:
    """VALUES written in one format: all plain, or all powers of ten."""
    if plain_reads(values):
        return [_plain(v) for v in values]
    return [_power(v) for v in values]


class OneFormat(Formatter):
    """Tick labels of one axis in one format (format_values over the ticks in view; with
    PLAIN given, that format whatever the view: the same on every figure of a file)."""

    def __init__(self, plain=None):
        self.fixed = plain
        self.plain = True if plain is None else plain

    def set_locs(self, locs):
        self.locs = locs
        if self.fixed is not None:
            return
        lo, hi = sorted(self.axis.get_view_interval()) if self.axis is not None else \
            (-math.inf, math.inf)
        shown = [v for v in locs if lo * (1 - 1e-9) <= v <= hi * (1 + 1e-9)]
        self.plain = plain_reads(shown or locs)

    def __call__(self, x, pos=None):
        return _plain(x) if self.plain else _power(x)


class EveryNth(Formatter):
    """BASE's labels on the ticks in KEEP only (a crowded axis thinned)."""

    def __init__(self, base: Formatter, keep):
        self.base, self.keep = base, keep

    def set_axis(self, axis):
        super().set_axis(axis)
        self.base.set_axis(axis)

    def set_locs(self, locs):
        self.locs = locs
        self.base.set_locs(locs)

    def get_offset(self):
        return self.base.get_offset()

    def __call__(self, x, pos=None):
        return self.base(x, pos) if round(x, 12) in self.keep else ""


class LinearFormat(ScalarFormatter):
    """matplotlib's formatter of linear axes (one number of decimals), the labels in
    plain text (quick to draw), a factor or offset in mathtext (x10^n)."""

    def __init__(self):
        super().__init__(useMathText=False)
        self.set_powerlimits((-3, 4))

    def get_offset(self):
        self._useMathText = True
        try:
            return super().get_offset()
        finally:
            self._useMathText = False


def linear_formatter() -> ScalarFormatter:
    """The formatter of a linear axis or colour bar."""
    return LinearFormat()


def log_ticks(axis, scale: str, values: np.ndarray) -> None:
    """Ticks of AXIS on SCALE spanning VALUES: a log axis over less than three decades is
    ticked at 1, 2, 5 times powers of ten (every integer multiple under one decade),
    more at the powers alone, all labels in the one format VALUES' own ticks read in
    (whatever the view: alike on every figure of a file); a linear one gets few enough
    ticks for a narrow panel."""
    if scale != "log":
        axis.set_major_locator(MaxNLocator(nbins=5, steps=[1, 2, 2.5, 5, 10]))
        axis.set_major_formatter(linear_formatter())
        return
    v = np.asarray(values, dtype=float)
    v = v[np.isfinite(v) & (v > 0)]
    decades = float(np.log10(v.max() / v.min())) if v.size else 3.0
    if decades < 1:
        subs = tuple(float(k) for k in range(1, 10))
    elif decades <= 2:
        subs = (1.0, 2.0, 5.0)
    else:
        subs = (1.0,)
    locator = LogLocator(base=10, subs=subs, numticks=12)
    axis.set_major_locator(locator)
    plain = None
    if v.size:  # the format of the ticks over the values themselves, not the view (cell
        # edges, grid limits): one format for this variable on every figure
        lo, hi = float(v.min()), float(v.max())
        inside = [t for t in locator.tick_values(lo, hi) if lo * (1 - 1e-9) <= t <= hi * (1 + 1e-9)]
        plain = plain_reads(inside or [lo, hi])
    axis.set_major_formatter(OneFormat(plain))
    axis.set_minor_formatter(NullFormatter())


def colourbar_ticks(bar) -> None:
    """The colour bar's ticks in one format: on log colours at 1, 2, 5 times powers of
    ten (the powers alone beyond three decades), else matplotlib's linear ticks."""
    from matplotlib.colors import LogNorm
    norm = bar.mappable.norm
    if isinstance(norm, LogNorm) and norm.vmin > 0:
        lo, hi = norm.vmin, norm.vmax
        decades = math.log10(hi / lo)
        subs = (1, 2, 5) if decades <= 3 else (1,)
        ticks = [m * 10.0 ** e for e in range(math.floor(math.log10(lo)),
                                                math.ceil(math.log10(hi)) + 1)
                 for m in subs if lo <= m * 10.0 ** e <= hi]
        if len(ticks) >= 2:
            bar.set_ticks(ticks)
            bar.set_ticklabels(format_values(ticks))
            bar.ax.minorticks_off()
            return
        bar.formatter = OneFormat()
    else:
        bar.formatter = linear_formatter()
    bar.update_ticks()


AT_LEAST = "\u2265"  # the mark of a capped colour bar's top label: 200 or more


def cap_ticks(bar, cap: float) -> None:
    """Mark CAP, the top of the colour bar of an output capped there (the data reach it:
    a value there means CAP or more): a tick at CAP labelled "\u2265CAP", the others
    kept where they do not crowd it, in one format."""
    norm = bar.mappable.norm
    ticks = [float(t) for t in bar.get_ticks() if norm.vmin <= t <= norm.vmax]
    room = 0.08  # of the bar's length
    ticks = [t for t in ticks if abs(float(norm(cap)) - float(norm(t))) > room] + [cap]
    ticks = sorted(set(ticks))
    labels = format_values(ticks)
    labels[ticks.index(cap)] = AT_LEAST + labels[ticks.index(cap)]
    bar.set_ticks(ticks)
    bar.set_ticklabels(labels)
    bar.ax.minorticks_off()


def unify(fig) -> None:
    """Every axis of FIG left with matplotlib's default formatters gets this module's:
    linear ones their factor in mathtext, log ones one format for all labels."""
    from matplotlib.ticker import LogFormatter
    for ax in fig.axes:
        if getattr(ax, "_colorbar", None) is not None:
            continue
        for axis in (ax.xaxis, ax.yaxis):
            major = axis.get_major_formatter()
            if type(major) is ScalarFormatter:
                axis.set_major_formatter(linear_formatter())
            elif isinstance(major, LogFormatter):
                axis.set_major_formatter(OneFormat())
                axis.set_minor_formatter(NullFormatter())
