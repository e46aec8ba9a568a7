"""_reading: result files as xarray Datasets, decoded: categories as their names,
integers as integers, the short label where xarray's plots look for one; eagerly, or
lazily through dask with `chunks`."""

import os
from typing import Dict, Optional

import numpy as np
import xarray as xr

from ._command import ImpactsweepError
from ._reasons import with_reasons

NOT_COMPUTED = ""  # the name a category takes where its point has no value


def categories_of(da: xr.DataArray) -> Optional[Dict[int, str]]:
    """{code: name} from a variable's CF flags (flag_values, flag_meanings), else None."""
    meanings = da.attrs.get("flag_meanings")
    values = da.attrs.get("flag_values")
    if meanings is None or values is None:
        return None
    names = str(meanings).split()
    codes = np.atleast_1d(np.asarray(values)).astype(np.int64).tolist()
    return dict(zip(codes, names)) if len(codes) == len(names) else None


def _names_of_codes(codes: np.ndarray, names: Dict[int, str], dtype: str) -> np.ndarray:
    out = np.full(codes.shape, NOT_COMPUTED, dtype=dtype)
    known = np.isfinite(codes) if codes.dtype.kind == "f" else np.ones(codes.shape, bool)
    for code, name in names.items():
        out[known & (codes == code)] = name
    return out


def _with_short_label(attrs: dict) -> dict:
    """xarray's plots label an axis or a colour bar with long_name and units: the short
    label (a symbol) takes long_name's place, the sentence is kept as `description`."""
    label = attrs.get("label")
    if label and attrs.get("long_name") != label:
        attrs["description"] = attrs.get("long_name", "")
        attrs["long_name"] = label
    return attrs


def _decode_category(da: xr.DataArray, names: Dict[int, str]) -> xr.DataArray:
    width = max((len(n) for n in names.values()), default=1)
    dtype = f"<U{width}"
    out = xr.apply_ufunc(_names_of_codes, da, kwargs={"names": names, "dtype": dtype},
                         dask="parallelized", output_dtypes=[np.dtype(dtype)], keep_attrs=True)
    attrs = dict(da.attrs)  # flag_values and flag_meanings still say which code is which
    attrs["categories"] = " ".join(names[c] for c in sorted(names))
    out.attrs = _with_short_label(attrs)
    out.name = da.name
    return out


def _restore_integer(da: xr.DataArray) -> xr.DataArray:
    """An integer output read back as float (NaN where not computed): integers again, with
    the file's own fill value (-1) where the point has no value."""
    dtype = np.dtype(da.encoding["dtype"])
    fill = da.encoding.get("_FillValue", -1)
    out = da.fillna(fill).astype(dtype)
    out.attrs = _with_short_label(dict(da.attrs))
    out.attrs["missing_value"] = dtype.type(fill)
    out.encoding = {}
    return out


def decode(ds: xr.Dataset) -> xr.Dataset:
    """DS (a result file's Dataset as xarray reads it, or a selection of it) with every
    categorical variable (flag_values and flag_meanings: the regimes, status) as the names
    of its categories ('' where not computed; the names in its `categories` attribute,
    the codes through `.isw.codes`), every integer output as integers (its fill value, -1,
    where not computed), and every variable's short `label` as its long_name (the sentence
    as `description`), so that xarray's own plots label axes and colour bars with the
    symbol and the unit. Lazy where DS is (dask)."""
    out = ds.copy()
    for name, da in ds.data_vars.items():
        names = categories_of(da)
        if names is not None:
            out[name] = _decode_category(da, names)
        elif da.dtype.kind == "f" and np.dtype(da.encoding.get("dtype", da.dtype)).kind in "iu":
            out[name] = _restore_integer(da)
        else:
            out[name].attrs = _with_short_label(dict(da.attrs))
    for name in ds.coords:
        out[name].attrs = _with_short_label(dict(ds[name].attrs))
    return out


def open_dataset(path: str, decode_categories: bool = True, chunks=None) -> xr.Dataset:
    """The result file PATH as an xarray Dataset, decoded as `decode` says unless
    decode_categories is False (then as xarray reads it). Without CHUNKS it is loaded and
    the file closed again; with CHUNKS ({} for the file's own chunks, or {"rho": 100, ...},
    as xarray.open_dataset takes them) the variables are dask arrays, read and decoded only
    when computed (the file stays open until the Dataset is closed). Either way it has
    the variable `failure_reason`, shaped like status: why the engine failed each point
    (a crash, a timeout, a breach of the contract), '' where it did not (read from the
    file's /run group, which xarray does not show; absent in files made before)."""
    if not os.path.exists(path):
        raise ImpactsweepError(f"{path}: no such file")
    if chunks is None:
        with xr.open_dataset(path, engine="h5netcdf") as ds:
            ds = ds.load()
        ds = with_reasons(ds, path)
    else:
        try:
            import dask  # noqa: F401
        except ImportError as error:
            raise ImpactsweepError("open_dataset(chunks=...) needs dask (Debian: "
                                   "python3-dask)") from error
        ds = with_reasons(xr.open_dataset(path, engine="h5netcdf", chunks=chunks), path,
                          lazy=True)
    return decode(ds) if decode_categories else ds
