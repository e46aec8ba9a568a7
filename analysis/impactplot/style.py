"""style: the fixed colours, labels, symbols, sizes and fonts of impactplot's figures.

The class colours are documented (README "Figures") and the tests rely on them. Nothing
here touches matplotlib's global state: `rc()` is a dict for `matplotlib.rc_context`,
applied while a figure is drawn and written (TrueType fonts in PDF and EPS).
"""

import re
from typing import Dict, Optional, Tuple

# ---------------------------------------------------------------------------- colours
NOT_COMPUTED_COLOUR = "#d9d9d9"  # status 0: pending
FAILED_COLOUR = "#c8102e"        # status >= 2: failed_*
CLASS_COLOURS = {
    # chatter: regime
    "icc": "#56b4e9",            # sky blue: incomplete chatter (lift-off)
    "cc": "#e69f00",             # orange: complete chatter
    "pcc": "#009e73",            # bluish green: partial complete chatter
    "flat": "#cc79a7",           # reddish purple: landed flat, all vertices at once
    # chatter: cone (the complete-chatter certificate)
    "found": "#e69f00",          # orange like CC: an effectively invariant cone
    "none": "#0072b2",           # blue: no cone
    "inconclusive": "#cc79a7",   # reddish purple: round or vertex limit reached
    # collision: outcome
    "separated": "#56b4e9",
    "no_separation": "#e69f00",
    "solver_failure": FAILED_COLOUR,
    "horizon": "#cc79a7",        # reddish purple: still in contact and moving at t_max
    # stop-oscillator: regime (what the run proved or detected about the long run)
    "free": "#009e73",           # bluish green: proved never to reach the stop
    "periodic": "#cc79a7",       # reddish purple: a 2-phase periodic orbit, reached or
                                 # approached (regime_basis says which)
    "impacting": "#0072b2",      # blue: rebounds for ever, proved
    "failed": FAILED_COLOUR,
    "undecided": "#f0e442",      # yellow: the horizon does not settle it
    # status itself (--field status); not computed and failed as everywhere
    "pending": NOT_COMPUTED_COLOUR,
    "done": "#56b4e9",
    # stop-oscillator: the Zeno map (derived from zeno_resets)
    "zeno": "#cc79a7",           # reddish purple: zeno_resets > 0
    "no_zeno": "#f2e79a",        # pale yellow: zeno_resets == 0
    # stop-oscillator: fragile (fragility = 1: the twin from a start moved by 1e-12)
    "robust": "#56b4e9",         # sky blue: the twin has the same regime
    "fragile": "#d55e00",        # vermillion: the twin's regime differs
    "no_twin": "#f2e79a",        # pale yellow: done, not decided (undecided): no twin
}
# Classes not in the table (categoricals added later) take these by flag value.
FALLBACK_COLOURS = ("#0072b2", "#e69f00", "#009e73", "#cc79a7", "#f0e442", "#56b4e9",
                    "#d55e00", "#000000", "#8c564b", "#9467bd", "#bcbd22", "#17becf",
                    "#ff9896", "#1f77b4", "#98df8a", "#7f7f7f")
# Short legend labels (the README explains each class).
CLASS_LABELS = {
    "icc": "ICC", "cc": "CC", "pcc": "PCC", "flat": "flat landing",
    "no_separation": "no separation", "solver_failure": "solver failure",
    "horizon": "at t_max",
    "zeno": "Zeno", "no_zeno": "no Zeno",
    "found": "cone found", "none": "no cone",
    "no_twin": "undecided (no twin)",
}
NOT_COMPUTED_LABEL = "not computed"
FAILED_LABEL = "failed"
NO_VALUE_COLOUR = "#595959"      # done, but the output holds no value (NaN) there
NO_VALUE_LABEL = "no value"
STATUS_CLASSES = {NOT_COMPUTED_LABEL: NOT_COMPUTED_COLOUR, FAILED_LABEL: FAILED_COLOUR}
# Colours a class never takes from the fallbacks (they mean a point's status).
RESERVED_COLOURS = (NOT_COMPUTED_COLOUR, FAILED_COLOUR, NO_VALUE_COLOUR)
SEQUENTIAL_CMAP = "viridis"
LINE_COLOUR = "#0072b2"
SECOND_COLOUR = "#d55e00"


def class_label(name: str) -> str:
    """The legend label of class NAME."""
    return CLASS_LABELS.get(name, name.replace("_", " "))


def class_colour(name: str, value: int) -> str:
    """The documented colour of class NAME (flag value VALUE if it is not in the table);
    for the classes of one variable use class_colours, which keeps them apart."""
    return CLASS_COLOURS.get(name, FALLBACK_COLOURS[value % len(FALLBACK_COLOURS)])


def class_colours(names) -> list:
    """Colours of the classes NAMES of one variable, no two alike: a class in the table
    takes its documented colour unless an earlier class of the variable has it; the others
    take, in order, the fallback colours no class of the variable has (never the colours
    of not computed, failed or no value; a class named failed keeps the failed colour)."""
    names = list(names)
    out = [None] * len(names)
    used = set()
    for i, name in enumerate(names):
        colour = CLASS_COLOURS.get(name)
        if colour is not None and colour.lower() not in used:
            out[i] = colour
            used.add(colour.lower())
    spare = [c for c in FALLBACK_COLOURS if c.lower() not in used and c not in RESERVED_COLOURS]
    for i, name in enumerate(names):
        if out[i] is None:
            if not spare:  # more classes than colours: cycle (said nowhere; 16 classes)
                spare = list(FALLBACK_COLOURS)
            out[i] = spare.pop(0)
            used.add(out[i].lower())
    return out


# ------------------------------------------------------------------------------ sizes
# Widths of the usual journal columns (Elsevier, Springer, APS, Nature: 84-90 mm and
# 170-183 mm); the height follows from the figure's panels unless a free size is given.
SIZE_PRESETS = {"single": 3.5, "double": 7.2}
FONT_SIZE = 8.0        # points: labels; ticks and legends 7, contour labels 6.5
MM_PER_INCH = 25.4


def parse_size(text: str) -> Tuple[Optional[float], Optional[float]]:
    """'single' | 'double' | 'auto' -> (width, None) or (None, None); 'WxH' with an
    optional unit (in, cm, mm; default in) -> (width, height) in inches. ValueError if
    malformed."""
    text = text.strip().lower()
    if text == "auto":
        return None, None
    if text in SIZE_PRESETS:
        return SIZE_PRESETS[text], None
    m = re.fullmatch(r"([0-9.]+)\s*x\s*([0-9.]+)\s*(in|cm|mm)?", text)
    if not m:
        raise ValueError(f"{text!r} is not single, double, auto or WxH[in|cm|mm]")
    scale = {"in": 1.0, None: 1.0, "cm": 10 / MM_PER_INCH, "mm": 1 / MM_PER_INCH}[m.group(3)]
    width, height = float(m.group(1)) * scale, float(m.group(2)) * scale
    if not (0.8 <= width <= 40 and 0.8 <= height <= 40):
        raise ValueError(f"{text!r}: width and height must lie within 0.8 .. 40 inches")
    return width, height


def rc(font_size: float = FONT_SIZE) -> Dict[str, object]:
    """matplotlib settings of a journal figure: TrueType (Type 42) fonts embedded in PDF
    and EPS, never Type 3; DejaVu for text and mathtext alike; small, consistent sizes."""
    return {
        "pdf.fonttype": 42,
        "ps.fonttype": 42,
        "svg.fonttype": "path",
        "font.family": "sans-serif",
        "font.sans-serif": ["DejaVu Sans"],
        "mathtext.fontset": "dejavusans",
        "font.size": font_size,
        "axes.titlesize": font_size,
        "axes.labelsize": font_size,
        "xtick.labelsize": font_size - 1,
        "ytick.labelsize": font_size - 1,
        "legend.fontsize": font_size - 1,
        "legend.title_fontsize": font_size - 1,
        "figure.titlesize": font_size + 1,
        "axes.linewidth": 0.6,
        "xtick.major.width": 0.6,
        "ytick.major.width": 0.6,
        "xtick.minor.width": 0.4,
        "ytick.minor.width": 0.4,
        "lines.linewidth": 1.2,
        "legend.frameon": False,
        "legend.handlelength": 1.2,
        "legend.handletextpad": 0.4,
        "legend.columnspacing": 1.0,
        "legend.borderaxespad": 0.3,
        "savefig.pad_inches": 0.02,
    }


# ------------------------------------------------------------------------------ units
# The scales of the built-in models' dimensionless quantities (UDUNITS "1": the file says
# the scale in words only, in the long_name), typeset. Units are never parsed from a
# long_name: a variable's units are its `units` attribute, else this table of the model
# that wrote it (a plug-in's "1" is a plain number).
MODEL_SCALES = {
    "collision": {
        "t_max": r"$T_{c}$", "x_max": r"$X_{c}$", "x_sep": r"$X_{c}$",
        "f_max": r"$m\,X_{c}\,T_{c}^{-2}$",
        # trace channels and their events
        "energy": r"$m\,X_{c}^{2}\,T_{c}^{-2}$", "force": r"$m\,X_{c}\,T_{c}^{-2}$",
        "indentation": r"$X_{c}$", "y": r"$X_{c}$", "z": r"$X_{c}$",
    },
    "stop-oscillator": {
        "x1_0": "$L$", "v1_0": r"$L\,T^{-1}$", "x2_0": "$L$", "v2_0": r"$L\,T^{-1}$",
        "t_end": "$T$", "orbit_t_max": "$T$", "energy": r"$m\,L^{2}\,T^{-2}$",
        "energy_lost": r"$m\,L^{2}\,T^{-2}$", "t_last_rebound": "$T$",
        "orbit_v": r"$L\,T^{-1}$", "orbit_t_cod": "$T$", "v_last_rebound": r"$L\,T^{-1}$",
        "t_regime": "$T$",
        # trace channels and their events
        "t": "$T$", "x1": "$L$", "x2": "$L$", "v1": r"$L\,T^{-1}$", "v2": r"$L\,T^{-1}$",
    },
}


def model_scale(model: str, name: str) -> str:
    """The typeset scale of a built-in model's quantity NAME (event_NAME as NAME), ''."""
    table = MODEL_SCALES.get(model, {})
    return table.get(name) or (table.get(name[6:], "") if name.startswith("event_") else "")


# ---------------------------------------------------------------------------- symbols
# Parameter symbols that the generic rule (a greek name or one letter, then digits and
# _parts as subscripts; labels.symbol) would not produce.
SYMBOLS = {"t_end": r"$t_{\mathrm{end}}$", "lyapunov": r"$\lambda_{\max}$"}
# Short labels of outputs (and trace channels) in the papers' notation, per model: a
# symbol, or a few words where the paper has none. Colour bars, line plots and legends
# show these with the units (labels.py); an output of another model, or one not listed,
# is labelled by its `symbol` attribute or its name, never by its long_name.
SHORT_LABELS = {
    "chatter": {
        "impacts_mean": "impacts per drop",
        "impacts_max": "max. impacts",
        "time_mean": r"mean time $\bar{t}$",
        "p_icc": r"$p_{\mathrm{ICC}}$", "p_cc": r"$p_{\mathrm{CC}}$",
        "p_pcc": r"$p_{\mathrm{PCC}}$",
        "p_icc_lo": r"lower $p_{\mathrm{ICC}}$", "p_icc_hi": r"upper $p_{\mathrm{ICC}}$",
        "p_cc_lo": r"lower $p_{\mathrm{CC}}$", "p_cc_hi": r"upper $p_{\mathrm{CC}}$",
        "p_pcc_lo": r"lower $p_{\mathrm{PCC}}$", "p_pcc_hi": r"upper $p_{\mathrm{PCC}}$",
        "p_certified": r"$p_{\mathrm{certified}}$",
        "p_undecided": r"$p_{\mathrm{undecided}}$",
        "cone_rounds_used": "cone rounds",
        # trace channels
        "impacts": "impact", "log2_height": r"$\log_2 h$",
        "log2_energy": r"$\log_2$ kinetic energy",
    },
    "collision": {
        "cor": "$e$", "t_sep": "$T_s$", "x_max": r"$X_{\max}$", "x_sep": "$X_s$",
        "f_max": r"$F_{\max}$", "t_sep_dim": "$t_s$", "x_max_dim": r"$x_{\max}$",
        "x_sep_dim": "$x_s$", "f_max_dim": r"$f_{\max}$", "steps": "steps",
        "solver_flag": "solver flag",
        # trace channels
        "t": "$T$", "x": "$X$", "v": "$V$", "z": "$Z$", "y": "$Y$", "force": "$F$",
        "indentation": "$-X$", "energy": "$E$",
    },
    "stop-oscillator": {
        "rebounds": "rebounds", "zeno_resets": "Zeno resets",
        "contact_phases": "contact phases", "energy": "$E$", "energy_lost": "$E_0 - E$",
        "t_last_rebound": r"$t_{\mathrm{last}}$",
        "v_last_rebound": r"$|v_1|_{\mathrm{last}}$",
        "stick_ratio": r"$E / E_{\mathrm{stick}}$", "t_regime": r"$t_{\mathrm{regime}}$",
        "orbit_v": "$v_2^*$", "orbit_t_cod": r"$t_{\mathrm{cod}}$",
        "orbits": "periodic orbits", "late_sticking": "late sticking",
        "orbit_gap": r"$(E - E^*) / E^*$",
        # trace channels
        "t": "$t$",
    },
}
