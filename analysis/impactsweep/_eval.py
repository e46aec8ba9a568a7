"""_eval: points evaluated through `impactsweep eval MODEL -` processes, answered as the
Dataset a sweep over the same points would store (decoded as open_dataset decodes)."""

import json
import subprocess
from typing import Dict, List, Optional, Tuple

import numpy as np
import xarray as xr

from ._command import ImpactsweepError, command, describe, rank_count
from ._reading import decode
from ._reasons import LONG_NAME as REASON_NAME

# The status of a point the engine refused (a name it does not know, a value it does not
# take): the file's "parameters rejected by the model".
REFUSED_STATUS = "failed_invalid"


def _as_array(name: str, value) -> xr.DataArray:
    """A parameter's values: a DataArray keeps its dimensions; a sequence becomes an axis
    named after the parameter (so that several sequences make a grid, as a sweep does); an
    array of several dimensions keeps them, each named after the one parameter that varies
    along it (as numpy.meshgrid's arrays do), else dim_0, dim_1, ...; a scalar stays a
    scalar."""
    if isinstance(value, xr.DataArray):
        return value
    values = np.asarray(value)
    if values.ndim == 0:
        return xr.DataArray(values)
    if values.ndim == 1:
        return xr.DataArray(values, dims=[name], coords={name: values})
    return xr.DataArray(values, dims=[f"dim_{a}" for a in range(values.ndim)])


def _name_positional_dims(arrays: Dict[str, xr.DataArray]) -> Dict[str, xr.DataArray]:
    """Arrays of several dimensions share their positional dims (dim_0, ...), as numpy
    broadcasts them; a positional dim along which exactly one parameter varies (and which
    that parameter varies along alone) takes the parameter's name and its values as the
    coordinate: eval(rho=R, gamma=G) of R, G = numpy.meshgrid(rho, gamma) is a map over
    (gamma, rho) like a sweep's."""
    positional = sorted({d for a in arrays.values() for d in a.dims if d.startswith("dim_")})
    rename, coords = {}, {}
    for dim in positional:
        varying = []
        for name, a in arrays.items():
            if dim not in a.dims or a.sizes[dim] < 2:
                continue
            first = a.isel({dim: 0})
            if not bool((a == first).all()):
                varying.append(name)
        if len(varying) != 1 or varying[0] in rename.values():
            continue
        name = varying[0]
        a = arrays[name]
        others = [d for d in a.dims if d != dim]
        line = a.isel({d: 0 for d in others})
        if others and not bool((a == line).all()):
            continue  # it varies along other dims too: no single coordinate
        if name in {d for arr in arrays.values() for d in arr.dims}:
            continue
        rename[dim] = name
        coords[name] = np.asarray(line.values)
    if not rename:
        return arrays
    out = {}
    for name, a in arrays.items():
        a = a.rename({d: n for d, n in rename.items() if d in a.dims})
        out[name] = a.assign_coords({n: coords[n] for n in rename.values() if n in a.dims})
    return out


def _word(name: str, value, kind: str) -> str:
    """name=value as the command line reads it: choices by name, integers exactly (a
    Python int beyond 2^53 is passed as written, for the engine to refuse), reals by the
    shortest text that reads back."""
    if isinstance(value, (str, np.str_, bytes)):
        return f"{name}={value.decode() if isinstance(value, bytes) else value}"
    if isinstance(value, (bool, np.bool_)):
        return f"{name}={int(value)}"
    if isinstance(value, (int, np.integer)):
        return f"{name}={int(value)}"
    v = float(value)
    if kind == "integer" and v.is_integer():
        return f"{name}={int(v)}"
    return f"{name}={v!r}"


def _points(params: Dict[str, xr.DataArray], kinds: Dict[str, str]) -> Tuple[List[str], xr.DataArray]:
    """The input lines of the points PARAMS span, in C order over the dimensions of the
    template returned (a DataArray whose dims and coordinates the result takes)."""
    names = list(params)
    broadcast = xr.broadcast(*params.values()) if names else [xr.DataArray(0.0)]
    template = broadcast[0]
    dims = list(template.dims)
    flat = {n: np.atleast_1d(b.transpose(*dims).values).ravel()
            for n, b in zip(names, broadcast)}
    lines = [" ".join(_word(n, flat[n][i], kinds[n]) for n in names)
             for i in range(template.size)]
    return lines, template


def _stream(model: str, lines: List[str], ranks: int, timeout: Optional[float]) -> list:
    """The answers to LINES, in their order, from `impactsweep eval MODEL - -n RANKS` (the
    lines dealt to RANKS processes in blocks)."""
    args = [command(), "eval", model, "-"]
    if ranks > 1:
        args += ["-n", str(ranks)]
    if timeout:
        args += ["--timeout", repr(float(timeout))]
    proc = subprocess.run(args, input="\n".join(lines) + "\n", capture_output=True, text=True)
    answers = [json.loads(line) for line in proc.stdout.splitlines() if line.strip()]
    if proc.returncode not in (0, 1, 2) or len(answers) != len(lines):
        message = proc.stderr.strip() or f"exit status {proc.returncode}"
        raise ImpactsweepError(f"eval {model}: {len(answers)} answers for {len(lines)} points "
                               f"(exit status {proc.returncode}): {message}")
    return answers


def _raw_dataset(model: dict, answers: list, template: xr.DataArray,
                 refused: Dict[int, str]) -> xr.Dataset:
    """The Dataset as xarray reads a result file of these points: reals float64, integers
    float64 with NaN (the file's int32 and fill value -1 in the encoding), categories and
    status float32 codes with their CF flags; the attributes a file gives them. An array
    output (its JSON a list) has its dimension last, with the coordinate 0 .. length - 1
    (int32) a file gives it."""
    dims, shape = list(template.dims), template.shape
    data, index_coords = {}, {}
    for out in model["outputs"]:
        length = int(out.get("length", 1))
        column = [a["outputs"].get(out["name"]) if "outputs" in a else None for a in answers]
        if length > 1:  # every value of every point in a row, as the file's C order has them
            column = [v for c in column
                      for v in (c if isinstance(c, list) else [None] * length)]
        attrs = {"units": out["units"], "long_name": out["long_name"]}
        if out.get("label"):
            attrs["label"] = out["label"]
        encoding = {}
        if out["type"] == "category":
            code = {c: i for i, c in enumerate(out["categories"])}
            values = np.array([code.get(v, np.nan) if isinstance(v, str) else np.nan
                               for v in column], dtype=np.float32)
            attrs["flag_values"] = np.arange(len(out["categories"]), dtype=np.int8)
            attrs["flag_meanings"] = " ".join(out["categories"])
            encoding = {"dtype": np.dtype("int8"), "_FillValue": np.int8(-1)}
        else:
            values = np.array([float(v) if v is not None else np.nan for v in column],
                              dtype=np.float64)
            encoding = ({"dtype": np.dtype("int32"), "_FillValue": np.int32(-1)}
                        if out["type"] == "integer" else
                        {"dtype": np.dtype("float64"), "_FillValue": np.nan})
        if length > 1:
            dim = out["dimension"]
            var = xr.Variable(dims + [dim], values.reshape(tuple(shape) + (length,)), attrs)
            index_coords[dim] = xr.Variable([dim], np.arange(length, dtype=np.int32),
                                            {"long_name": "index of the value", "units": "1"})
        else:
            var = xr.Variable(dims, values.reshape(shape), attrs)
        var.encoding = encoding
        data[out["name"]] = var
    codes = {name: int(c) for c, name in model["status"]["codes"].items()}
    status = np.array([codes[REFUSED_STATUS] if "line" in a else codes[a["status"].lower()]
                       for a in answers], dtype=np.float32)
    var = xr.Variable(dims, status.reshape(shape), {
        "long_name": "computation status of the point", "units": "1",
        "flag_values": np.array(sorted(codes.values()), dtype=np.uint8),
        "flag_meanings": " ".join(n for n, _ in sorted(codes.items(), key=lambda kv: kv[1]))})
    var.encoding = {"dtype": np.dtype("uint8"), "_FillValue": np.uint8(255)}
    data["status"] = var
    reasons = np.array([a.get("reason", "") for a in answers], dtype=object)
    data["failure_reason"] = xr.Variable(dims, reasons.reshape(shape), {"long_name": REASON_NAME})
    if refused:
        messages = np.array([refused.get(i, "") for i in range(len(answers))], dtype=object)
        data["error"] = xr.Variable(dims, messages.reshape(shape).astype(str),
                                    {"long_name": "why the engine refused the point"})
    coords = dict(index_coords)
    params = {p["name"]: p for p in model["parameters"]}
    for name, coord in template.coords.items():
        attrs = dict(coord.attrs)
        p = params.get(name)
        if p is not None:
            attrs.setdefault("long_name", p["long_name"])
            if p["type"] != "choice":
                attrs.setdefault("units", p["unit"])
            if p.get("label"):
                attrs.setdefault("label", p["label"])
        coords[name] = xr.Variable(coord.dims, coord.values, attrs)
    ds = xr.Dataset(data, coords=coords)
    ds.attrs["model"] = model["model"]
    ds.attrs["outputs"] = " ".join(o["name"] for o in model["outputs"])
    ds.attrs["axes"] = " ".join(d for d in dims if d in ds.coords)
    done = [a for a in answers if "parameters" in a]
    for p, v in (done[0]["parameters"] if done else {}).items():
        if p not in template.coords and all(a["parameters"][p] == v for a in done):
            ds.attrs[f"parameter_{p}"] = v
    return ds


def evaluate(model: str, params: Dict[str, object], ranks: Optional[int], errors: str,
             timeout: Optional[float], decode_categories: bool) -> xr.Dataset:
    if errors not in ("raise", "keep"):
        raise ValueError(f"errors={errors!r}: give 'raise' or 'keep'")
    table = describe(model)
    kinds = {p["name"]: p["type"] for p in table["parameters"]}
    unknown = [n for n in params if n not in kinds]
    if unknown:
        raise ImpactsweepError(
            f"eval {model}: unknown parameter{'s' if len(unknown) > 1 else ''} "
            f"{', '.join(repr(u) for u in unknown)} of model {model} (known: "
            f"{', '.join(kinds)}; the module's own keywords: ranks, errors, timeout, "
            "decode_categories, params)")
    arrays = _name_positional_dims({n: _as_array(n, v) for n, v in params.items()})
    lines, template = _points(arrays, kinds)
    answers = _stream(model, lines, rank_count(ranks), timeout)
    refused = {i: a["error"] for i, a in enumerate(answers) if "line" in a}
    if refused and errors == "raise":
        first = min(refused)
        more = f" (and {len(refused) - 1} more)" if len(refused) > 1 else ""
        raise ImpactsweepError(f"eval {model}: point {first + 1} ({lines[first]}): "
                               f"{refused[first]}{more}")
    raw = _raw_dataset(table, answers, template, refused)
    return decode(raw) if decode_categories else raw

