"""_fitdata: the measured data of a fit (a CSV file, a pandas DataFrame, a dict of arrays
or an xarray Dataset) as arrays, every column checked against the model's table: inputs
(parameters), measured outputs and their sigma_<output> uncertainties."""

import hashlib
import os
from dataclasses import dataclass, field
from typing import Dict, List, Optional

import numpy as np

from ._command import ImpactsweepError


@dataclass
class FitData:
    inputs: Dict[str, np.ndarray]        # parameter name -> value per row
    outputs: List[str]                   # the measured outputs, in residual order
    values: np.ndarray                   # rows x outputs
    sigma: np.ndarray                    # rows x outputs (1 where not given)
    sigma_given: bool
    source: Dict[str, object] = field(default_factory=dict)   # path, sha256, rows

    @property
    def rows(self) -> int:
        return self.values.shape[0]


def _columns(data) -> (Dict[str, np.ndarray], Dict[str, object]):
    """DATA's columns as 1-d arrays, and where they came from."""
    source = {}
    if isinstance(data, (str, os.PathLike)):
        import pandas as pd
        path = os.fspath(data)
        try:
            with open(path, "rb") as f:
                raw = f.read()
        except OSError as e:
            raise ImpactsweepError(f"fit: data file {path}: {e.strerror}") from None
        source = {"path": os.path.abspath(path), "sha256": hashlib.sha256(raw).hexdigest()}
        try:
            frame = pd.read_csv(path, comment="#", skipinitialspace=True,
                                float_precision="round_trip")  # the values as written
        except Exception as e:  # pandas' parser errors have several types
            raise ImpactsweepError(f"fit: data file {path}: {e}") from None
        data = frame
    if hasattr(data, "data_vars") and hasattr(data, "coords"):      # xarray Dataset
        names = list(data.data_vars) + [c for c in data.coords if c not in data.data_vars]
        columns = {n: np.asarray(data[n].values).reshape(-1) for n in names
                   if data[n].ndim <= 1}
        source.setdefault("kind", "xarray.Dataset")
    elif hasattr(data, "columns") and hasattr(data, "to_numpy"):    # pandas DataFrame
        columns = {str(n).strip(): data[n].to_numpy() for n in data.columns}
        source.setdefault("kind", "pandas.DataFrame")
    elif isinstance(data, dict):
        columns = {str(n): np.atleast_1d(np.asarray(v)) for n, v in data.items()}
        source.setdefault("kind", "dict")
    else:
        raise ImpactsweepError(f"fit: data of type {type(data).__name__}: give a CSV path, "
                               "a pandas DataFrame, a dict of arrays or an xarray Dataset")
    lengths = {n: len(v) for n, v in columns.items()}
    if len(set(lengths.values())) > 1:
        raise ImpactsweepError(f"fit: data columns of different lengths: {lengths}")
    return columns, source


def read_data(data, table: dict, free: set, fixed: dict,
              outputs: Optional[List[str]]) -> FitData:
    columns, source = _columns(data)
    where = source.get("path", "data")
    params = {p["name"]: p for p in table["parameters"]}
    outs = {o["name"]: o for o in table["outputs"]}
    inputs, measured, sigmas, unknown = {}, [], {}, []
    for name, column in columns.items():
        if name in params:
            if name in free or name in fixed:
                raise ImpactsweepError(f"fit: {where}: column {name} is a parameter that is "
                                       f"also {'free' if name in free else 'fixed'}")
            inputs[name] = column
        elif name in outs:
            measured.append(name)
        elif name.startswith("sigma_") and name[6:] in outs:
            sigmas[name[6:]] = column
        else:
            unknown.append(name)
    if unknown:
        raise ImpactsweepError(
            f"fit: {where}: column{'s' if len(unknown) > 1 else ''} "
            f"{', '.join(repr(u) for u in unknown)} name{'' if len(unknown) > 1 else 's'} "
            f"no parameter or output of model {table['model']} (nor sigma_<output>)")
    if outputs is not None:
        for name in outputs:
            if name not in outs:
                raise ImpactsweepError(f"fit: output {name!r} is not an output of model "
                                       f"{table['model']} (known: {', '.join(outs)})")
            if name not in measured:
                raise ImpactsweepError(f"fit: {where}: no column {name} for output {name}")
        measured = list(outputs)
    if not measured:
        raise ImpactsweepError(f"fit: {where}: no column named after an output of model "
                               f"{table['model']} ({', '.join(outs)})")
    for name in measured:
        if outs[name]["type"] not in ("real", "integer"):
            raise ImpactsweepError(f"fit: output {name} is a {outs[name]['type']}: only "
                                   "numeric outputs can be fitted")
    rows = len(next(iter(columns.values())))
    try:
        values = np.column_stack([np.asarray(columns[n], dtype=float) for n in measured])
        sigma = np.column_stack([np.asarray(sigmas.get(n, np.ones(rows)), dtype=float)
                                 for n in measured])
        for name, column in inputs.items():
            if params[name]["type"] != "choice":
                inputs[name] = np.asarray(column, dtype=float)
    except (TypeError, ValueError) as e:
        raise ImpactsweepError(f"fit: {where}: a column is not numeric: {e}") from None
    if rows == 0:
        raise ImpactsweepError(f"fit: {where}: no rows")
    if not np.isfinite(values).all():
        raise ImpactsweepError(f"fit: {where}: measured values must be finite (a row without "
                               "a measurement: leave it out)")
    if not (np.isfinite(sigma).all() and (sigma > 0).all()):
        raise ImpactsweepError(f"fit: {where}: sigma_ columns must be finite and > 0")
    source["rows"] = rows
    return FitData(inputs=inputs, outputs=measured, values=values, sigma=sigma,
                   sigma_given=bool(sigmas and all(n in sigmas for n in measured)),
                   source=source)
