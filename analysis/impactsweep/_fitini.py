"""_fitini: a fit described by a FIT.ini file (the command `impactfit FIT.ini`), read
strictly: an unknown section or key, a bad number or bounds, a parameter or output the
model does not have is refused with the file, line and key, exit status 2.

    [fit]
    model = collision
    data = e_v0.csv            ; relative to the .ini file
    output = cor               ; optional: the measured columns (default: all outputs given)
    report = fit.json          ; optional (default: FIT.json); in the current directory,
    figure = fit.png           ; optional                  as a sweep's output is
    ranks = 2                  ; optional; also n_starts, seed, diff, rel_step, max_nfev
    [free]
    pi1b = 0.3, 0.001, 10      ; start, lower, upper
    [fixed]
    law = bwshc
"""

import os
import sys
from typing import Dict, List, Tuple

from ._command import ImpactsweepError, describe
from ._fit import bound_problem

FIT_KEYS = {"model", "data", "output", "outputs", "report", "figure", "ranks", "n_starts",
            "seed", "diff", "rel_step", "max_nfev", "x"}
INT_KEYS = {"ranks", "n_starts", "seed", "max_nfev"}


class FitFileError(ImpactsweepError):
    """A FIT.ini the command refuses (exit status 2)."""


def _parse(path: str) -> Dict[str, Dict[str, Tuple[str, int]]]:
    """Sections of PATH: {section: {key: (value, line)}}; `;` and `#` start comments."""
    try:
        with open(path) as f:
            text = f.read()
    except OSError as e:
        raise FitFileError(f"{path}: {e.strerror}") from None
    sections: Dict[str, Dict[str, Tuple[str, int]]] = {}
    current = None
    for number, raw in enumerate(text.splitlines(), 1):
        line = raw.split(";")[0].split("#")[0].strip()
        if not line:
            continue
        if line.startswith("["):
            if not line.endswith("]"):
                raise FitFileError(f"{path}:{number}: bad section header {raw.strip()!r}")
            current = line[1:-1].strip()
            if current not in ("fit", "free", "fixed"):
                raise FitFileError(f"{path}:{number}: unknown section [{current}] (known: "
                                   "[fit], [free], [fixed])")
            if current in sections:
                raise FitFileError(f"{path}:{number}: section [{current}] given twice")
            sections[current] = {}
            continue
        if "=" not in line:
            raise FitFileError(f"{path}:{number}: expected key = value, not {raw.strip()!r}")
        if current is None:
            raise FitFileError(f"{path}:{number}: key outside a section")
        key, value = (s.strip() for s in line.split("=", 1))
        if key in sections[current]:
            raise FitFileError(f"{path}:{number}: [{current}] {key} given twice (first on "
                               f"line {sections[current][key][1]})")
        sections[current][key] = (value, number)
    return sections


def _number(path, section, key, text, line, kind=float):
    try:
        return kind(text)
    except ValueError:
        raise FitFileError(f"{path}:{line}: [{section}] {key} = {text!r}: not "
                           f"{'an integer' if kind is int else 'a number'}") from None


def read_fit_file(path: str) -> dict:
    """The arguments of fit() a FIT.ini gives, checked against the model's table."""
    sections = _parse(path)
    fitsec = sections.get("fit", {})
    for key, (_, line) in fitsec.items():
        if key not in FIT_KEYS:
            raise FitFileError(f"{path}:{line}: [fit] unknown key {key!r} (known: "
                               f"{', '.join(sorted(FIT_KEYS))})")
    for key in ("model", "data"):
        if key not in fitsec:
            raise FitFileError(f"{path}: [fit] {key} missing")
    if "free" not in sections or not sections["free"]:
        raise FitFileError(f"{path}: [free] missing: name = start, lower, upper")
    model, line = fitsec["model"]
    try:
        table = describe(model)
    except ImpactsweepError as e:
        raise FitFileError(f"{path}:{line}: [fit] model: {e}") from None
    params = {p["name"]: p for p in table["parameters"]}
    outs = [o["name"] for o in table["outputs"]]
    here = os.path.dirname(os.path.abspath(path))
    args = {"model": model, "data": os.path.join(here, fitsec["data"][0])}
    if not os.path.isfile(args["data"]):
        raise FitFileError(f"{path}:{fitsec['data'][1]}: [fit] data: no file {args['data']}")
    for key in ("output", "outputs"):
        if key in fitsec:
            value, line = fitsec[key]
            names = [n.strip() for n in value.split(",") if n.strip()]
            for n in names:
                if n not in outs:
                    raise FitFileError(f"{path}:{line}: [fit] {key}: {n!r} is not an output "
                                       f"of model {model} (known: {', '.join(outs)})")
            args["outputs"] = names
    args["report"] = fitsec["report"][0] if "report" in fitsec else \
        os.path.splitext(os.path.basename(path))[0] + ".json"
    if "figure" in fitsec:
        args["figure"] = fitsec["figure"][0]
    for key in INT_KEYS:
        if key in fitsec:
            value, line = fitsec[key]
            args[key] = _number(path, "fit", key, value, line, int)
            if args[key] < (0 if key == "seed" else 1):
                raise FitFileError(f"{path}:{line}: [fit] {key} = {value}: out of range")
    if "rel_step" in fitsec:
        value, line = fitsec["rel_step"]
        args["rel_step"] = _number(path, "fit", "rel_step", value, line)
        if not 0 < args["rel_step"] < 1:
            raise FitFileError(f"{path}:{line}: [fit] rel_step = {value}: give 0 < it < 1")
    if "diff" in fitsec:
        value, line = fitsec["diff"]
        if value not in ("forward", "central"):
            raise FitFileError(f"{path}:{line}: [fit] diff = {value!r}: forward or central")
        args["diff"] = value
    if "x" in fitsec:
        value, line = fitsec["x"]
        if value not in params:
            raise FitFileError(f"{path}:{line}: [fit] x = {value!r}: not a parameter of model "
                               f"{model} (the figure's abscissa: an input column of the data)")
        args["x"] = value
    free = {}
    for key, (value, line) in sections["free"].items():
        if key not in params:
            raise FitFileError(f"{path}:{line}: [free] unknown parameter {key!r} of model "
                               f"{model} (known: {', '.join(params)})")
        if params[key]["type"] != "real":
            raise FitFileError(f"{path}:{line}: [free] {key} is a {params[key]['type']}: only "
                               "real parameters can be free")
        parts = [s.strip() for s in value.split(",")]
        if len(parts) != 3:
            raise FitFileError(f"{path}:{line}: [free] {key} = {value!r}: give start, lower, "
                               "upper")
        start, lower, upper = (_number(path, "free", key, s, line) for s in parts)
        problem = bound_problem(start, lower, upper)
        if problem:
            raise FitFileError(f"{path}:{line}: [free] {key}: {problem}")
        p = params[key]
        if upper <= float(p["min"]) or lower >= float(p["max"]):
            raise FitFileError(f"{path}:{line}: [free] {key}: bounds [{lower:g}, {upper:g}] "
                               f"outside the model's range [{p['min']}, {p['max']}]")
        free[key] = (start, lower, upper)
    fixed = {}
    for key, (value, line) in sections.get("fixed", {}).items():
        if key not in params:
            raise FitFileError(f"{path}:{line}: [fixed] unknown parameter {key!r} of model "
                               f"{model} (known: {', '.join(params)})")
        if key in free:
            raise FitFileError(f"{path}:{line}: [fixed] {key} is also in [free]")
        p = params[key]
        if p["type"] == "choice":
            if value not in p["choices"]:
                raise FitFileError(f"{path}:{line}: [fixed] {key} = {value!r}: one of "
                                   f"{', '.join(p['choices'])}")
            fixed[key] = value
        else:
            fixed[key] = _number(path, "fixed", key, value, line,
                                 int if p["type"] == "integer" else float)
    args["free"], args["fixed"] = free, fixed
    return args


def main(argv: List[str] = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if len(argv) != 1 or argv[0] in ("-h", "--help"):
        print(__doc__.split("\n\n")[0].replace("_fitini: a", "impactfit FIT.ini: a"))
        print("\nusage: impactfit FIT.ini", file=sys.stderr if len(argv) != 1 else sys.stdout)
        return 0 if argv in (["-h"], ["--help"]) else 2
    from ._fit import fit
    try:
        args = read_fit_file(argv[0])
    except ImpactsweepError as e:
        print(f"impactfit: {e}", file=sys.stderr)
        return 2
    figure = args.get("figure")
    try:
        result = fit(command_line=" ".join(["impactfit"] + argv), **args)
    except ImpactsweepError as e:
        print(f"impactfit: {argv[0]}: {e}", file=sys.stderr)
        return 2
    print(result)
    print(f"report: {result.report}" + (f"; figure: {figure}" if figure else ""))
    return 0 if result.success else 1
