"""_reasons: why the engine failed each point (a crash, a timeout, a breach of the
contract), read from the result file's /run group, where xarray does not look: a code
per point (/run/reason, 0 where the engine failed nothing) and the table of distinct
texts (/run/reasons, row code - 1). Given to the Dataset as the variable `failure_reason`,
shaped like `status`: the text, '' where there is none (a done or pending point, or one the
model itself failed: its status says how)."""

from typing import Optional

import numpy as np
import xarray as xr

LONG_NAME = "why the engine failed the point ('' where it did not)"


def _table(f) -> Optional[np.ndarray]:
    """'' for code 0, then each row's text: an object array indexed by code."""
    if "run/reason" not in f or "run/reasons" not in f:
        return None
    raw = f["run/reasons"][()]
    rows = [bytes(row).rstrip(b"\0").decode("utf-8", "replace") for row in raw]
    return np.array([""] + rows, dtype=object)


def with_reasons(ds: xr.Dataset, path: str, lazy: bool = False) -> xr.Dataset:
    """DS (the file PATH's Dataset) with `failure_reason`; DS unchanged for a file made
    before the reasons were kept, or one without `status`."""
    if "status" not in ds:
        return ds
    import h5py
    status = ds["status"]
    if lazy:
        import dask.array as da
        f = h5py.File(path, "r")  # kept open by the dask graph, as xarray keeps its own
        table = _table(f)
        if table is None:
            f.close()
            return ds
        codes = da.from_array(f["run/reason"], chunks=-1).reshape(status.shape)
        codes = codes.rechunk(status.data.chunks) if hasattr(status.data, "chunks") else codes
        text = da.map_blocks(lambda c: table[c], codes, dtype=object)
    else:
        with h5py.File(path, "r") as f:
            table = _table(f)
            if table is None:
                return ds
            codes = f["run/reason"][()].reshape(status.shape)
        text = table[codes]
    out = ds.copy()
    out["failure_reason"] = xr.DataArray(text, dims=status.dims, coords=status.coords,
                                         attrs={"long_name": LONG_NAME})
    return out
