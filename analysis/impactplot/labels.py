"""labels: the short labels of axes, colour bars and legends: a symbol (or a few words)
and typeset units, never a whole long_name.

Units come from a variable's `units` alone (a UDUNITS-2 string, typeset: "m s-1" ->
"m s$^{-1}$"); for a dimensionless quantity ("1") of a built-in model whose long_name
names its scale in words, from that model's table (style.MODEL_SCALES: "$L\\,T^{-1}$",
"$X_c$"), never parsed from a long_name (long_name_scale, kept to check that table
against the models' descriptions). The label itself comes, in this order, from the variable's
`label` attribute (the model contract's short label, is_param.label and is_output.label,
where a file has one; a `symbol` attribute is read too), from the model's table in
style.py (files made before labels), and from the variable's name (v_first ->
$v_{\\mathrm{first}}$, energy_fall -> "energy fall").
"""

import re
from typing import Mapping, Optional

from .style import SHORT_LABELS, SYMBOLS, model_scale

# Attributes that may carry a variable's short label (the model contract's `label`,
# written as `label`; `symbol` read too).
SYMBOL_ATTRIBUTES = ("label", "symbol")
# Words of a long_name's scale that are units themselves.
UNIT_WORDS = {"radians": "rad", "radian": "rad", "rad": "rad", "degrees": "°",
              "degree": "°", "seconds": "s", "second": "s"}
# UDUNITS names typeset otherwise.
UDUNITS_NAMES = {"percent": "%", "degree": "°", "degrees": "°", "arc_degree": "°",
                 "degC": "°C", "degree_Celsius": "°C", "celsius": "°C", "ohm": "Ω",
                 "um": "µm", "us": "µs", "uN": "µN", "ug": "µg"}
GREEK = {"alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta", "iota",
         "kappa", "lambda", "mu", "nu", "xi", "pi", "rho", "sigma", "tau", "upsilon", "phi",
         "chi", "psi", "omega", "Gamma", "Delta", "Theta", "Lambda", "Xi", "Pi", "Sigma",
         "Phi", "Psi", "Omega"}
GREEK_VARIANTS = {"epsilon": r"\varepsilon", "phi": r"\varphi"}
MAX_SCALE_FACTORS = 4  # a long_name's scale of more factors is prose, not a unit


# ------------------------------------------------------------------------- UDUNITS


def _power(text: str) -> Optional[int]:
    """The exponent in a UDUNITS power suffix ('-1', '^-1', '**2', '2'), or None."""
    m = re.fullmatch(r"(?:\^|\*\*)?([-+]?\d+)", text)
    return int(m.group(1)) if m else None


def _factor_tex(name: str, power: int) -> str:
    """One factor of a typeset unit: NAME (upright text) with POWER as a mathtext
    superscript."""
    name = UDUNITS_NAMES.get(name, name)
    return name if power == 1 else f"{name}$^{{{power}}}$"


def _udunits_factors(text: str):
    """[(name, power)] of a UDUNITS product ('kg m2 s-2', 'm/s', 'm.s^-1', 'N*m'), or
    None where it is not one (numbers as scale factors: ('10', e) for 1e-3)."""
    tokens = re.findall(r"/|[^\s/.*]+(?:\*\*[-+]?\d+)?|\*\*|\*|\.", text.strip())
    factors, divide = [], False
    for tok in tokens:
        if tok in ("*", "."):
            continue
        if tok == "/":
            divide = True
            continue
        m = re.fullmatch(r"([0-9]*\.?[0-9]+)[eE]([-+]?\d+)", tok)
        if m:  # a scale factor 1e-3
            if float(m.group(1)) != 1:
                return None
            factors.append(("10", int(m.group(2)) * (-1 if divide else 1)))
            divide = False
            continue
        m = re.fullmatch(r"([A-Za-z_%°µΩ]+?)((?:\^|\*\*)?[-+]?\d+)?", tok)
        if not m:
            return None
        power = _power(m.group(2)) if m.group(2) else 1
        factors.append((m.group(1), -power if divide else power))
        divide = False
    return factors or None


def udunits_tex(units) -> str:
    """A UDUNITS-2 string typeset for a label ('' when dimensionless): 'm s-1' ->
    'm s$^{-1}$', 'm/s2' -> 'm s$^{-2}$', 'kg m2 s-2' -> 'kg m$^{2}$ s$^{-2}$', '1e-3 m'
    -> '10$^{-3}$ m', 'percent' -> '%'. What does not parse is shown as written."""
    text = str(units or "").strip()
    if text in ("", "1", "None", "-", "dimensionless"):
        return ""
    factors = _udunits_factors(text)
    if factors is None:
        return text.replace("$", r"\$")
    return " ".join(_factor_tex(n, p) for n, p in factors)


# ------------------------------------------------------------ scales in long_names


def _scale_symbol(name: str) -> Optional[str]:
    """A factor of a long_name's scale as mathtext (no dollars): L -> L, X_c -> X_c,
    T_c -> T_c, omega_n -> \\omega_n, m -> m; None for words."""
    m = re.fullmatch(r"([A-Za-z]+)(?:_([A-Za-z0-9]{1,3}))?", name)
    if not m:
        return None
    base, sub = m.groups()
    if base in GREEK:
        base = GREEK_VARIANTS.get(base, "\\" + base)
    elif len(base) > 2:
        return None
    return f"{base}_{{{sub}}}" if sub else base


def scale_tex(expr: str) -> Optional[str]:
    """A scale written with symbols ('L/T', 'm X_c/T_c^2', 'L omega_n', 'radians') as
    mathtext ('$L\\,T^{-1}$', ...), or None where it is prose."""
    expr = expr.strip()
    if expr.lower() in UNIT_WORDS:
        return UNIT_WORDS[expr.lower()]
    tokens = re.findall(r"/|[^\s/*]+", expr)
    parts, divide = [], False
    for tok in tokens:
        if tok == "/":
            divide = True
            continue
        m = re.fullmatch(r"([A-Za-z]+(?:_[A-Za-z0-9]{1,3})?)(?:\^\(?([-+]?\d+)\)?)?", tok)
        if not m:
            return None
        sym = _scale_symbol(m.group(1))
        if sym is None:
            return None
        power = int(m.group(2)) if m.group(2) else 1
        power = -power if divide else power
        divide = False
        parts.append(sym if power == 1 else f"{sym}^{{{power}}}")
    if not parts or len(parts) > MAX_SCALE_FACTORS:
        return None
    return "$" + r"\,".join(parts) + "$"


def long_name_scale(long_name: str) -> str:
    """The scale a dimensionless quantity's long_name names (', in L/T (...)', ', in
    units of X_c'), typeset; '' when it names none or names it in prose."""
    m = re.search(r",\s*in (?:units of )?([^,;:()]+?)\s*(?:[(;,:]|$)", str(long_name or ""))
    if not m:
        return ""
    return scale_tex(m.group(1)) or ""


def units_tex(attrs: Mapping, model: str = "", name: str = "") -> str:
    """The typeset units of variable NAME of MODEL with ATTRS: its UDUNITS `units`, or
    for a dimensionless one of a built-in model the scale style.MODEL_SCALES knows; ''
    if none. Never read from the long_name: a plug-in that describes a parameter as
    "..., in g/L" and declares units "1" gets no unit."""
    units = udunits_tex(attrs.get("units", ""))
    return units or (model_scale(model, name) if model and name else "")


def with_units(label: str, units: str) -> str:
    """'LABEL [UNITS]', or LABEL alone."""
    return f"{label} [{units}]" if units else label


# ----------------------------------------------------------------------- symbols


def symbol(name: str, words: bool = False) -> Optional[str]:
    """The symbol of a parameter or output name as mathtext, or None.

    rho -> $\\rho$, epsilon -> $\\varepsilon$, pi1 -> $\\pi_{1}$, k12 -> $k_{12}$,
    x2_0 -> $x_{2,0}$, v0 -> $v_{0}$, A -> $A$; names that are words (samples) -> None.
    WORDS: subscripts may be words, upright (v_first -> $v_{\\mathrm{first}}$).
    """
    if name in SYMBOLS:
        return SYMBOLS[name]
    m = re.fullmatch(r"([A-Za-z]+?)((?:\d+[a-z]?)?)((?:_[A-Za-z0-9]+)*)", name)
    if not m:
        return None
    base, digits, rest = m.groups()
    if base in GREEK:
        base_tex = GREEK_VARIANTS.get(base, "\\" + base)
    elif len(base) == 1:
        base_tex = base
    else:
        return None
    subs = ([digits] if digits else []) + [p for p in rest.split("_") if p]

    def short(p):
        return len(p) <= 1 or p.isdigit() or re.fullmatch(r"\d+[a-z]", p)
    if not all(short(p) for p in subs):
        if not words or any(len(p) > 10 for p in subs):
            return None
        subs = [p if short(p) else r"\mathrm{" + p + "}" for p in subs]
    return f"${base_tex}_{{{','.join(subs)}}}$" if subs else f"${base_tex}$"


def attribute_label(value) -> str:
    """A `symbol` attribute's text as a label: mathtext as written, a symbol-like name
    typeset (v0 -> $v_{0}$), anything else as plain text."""
    if isinstance(value, bytes):
        value = value.decode("utf-8", "replace")
    text = str(value).strip()
    if "$" in text:
        return text
    return symbol(text, words=True) or text


def name_label(name: str) -> str:
    """A short label made from a variable's name: its symbol, else its words."""
    return symbol(name, words=True) or name.replace("_", " ")


def short_label(model: str, name: str, attrs: Mapping) -> str:
    """The short label of variable NAME of MODEL (without units): the `label` (or
    `symbol`) attribute, the model's table, else one made from the name."""
    for key in SYMBOL_ATTRIBUTES:
        if str(attrs.get(key, "")).strip():
            return attribute_label(attrs[key])
    table = SHORT_LABELS.get(model, {})
    if name in table:
        return table[name]
    return name_label(name)


def label_with_units(model: str, name: str, attrs: Mapping) -> str:
    """The short label of NAME and its typeset units: '$e$', '$v_{0}$ [m s$^{-1}$]'."""
    return with_units(short_label(model, name, attrs), units_tex(attrs, model, name))


def visible_text(label: str) -> str:
    """LABEL as a reader sees it, roughly (mathtext markup dropped): for length checks."""
    text = re.sub(r"\\(mathrm|mathit|bar|hat|tilde)\b", "", label)
    text = re.sub(r"\\[A-Za-z]+", "x", text)
    return re.sub(r"[${}^_\\]", "", text)


def format_value(name: str, value, attrs: Optional[Mapping] = None) -> str:
    """'symbol = value' for panel titles and legends (a choice by its name): the symbol
    is the variable's `label` attribute where ATTRS has one, as on its axis, so that a
    symbol is typeset the same on every figure."""
    if isinstance(value, bytes):
        value = value.decode()
    if isinstance(value, str):
        return f"{name} = {value}"
    attrs = attrs or {}
    if any(str(attrs.get(k, "")).strip() for k in SYMBOL_ATTRIBUTES):
        label = short_label("", name, attrs)
    else:
        label = symbol(name) or name
    return f"{label} = {float(value):.4g}"
