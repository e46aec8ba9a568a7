"""check_arrays.py FILE [EVAL_JSON]: the arrays test plug-in's outputs (tests/models/plugins/
arrays.c) in result file FILE equal their exact functions of the point at every done point,
read three ways: h5py (the stored bytes: ramp float64, counts int32, an array's dimension
last with its coordinate), xarray's h5netcdf engine, and impactsweep.open_dataset (a
DataArray with that dimension, NaN and dtype as the file's), and impactsweep.eval at some
of its points gives the same DataArrays. With EVAL_JSON (`impactsweep eval` lines), each
line's lists equal the same functions. Exit status 1 on a difference."""

import json
import os
import sys

import h5py
import numpy as np
import xarray as xr

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "analysis"))
import impactsweep  # noqa: E402

K = np.arange(5)


def ramp(rho, gamma):
    """value k: rho k + gamma while k <= 5 gamma, else NaN (numpy broadcasting)."""
    return np.where(K <= 5 * gamma, rho * K + gamma, np.nan)


def counts(rho):
    return np.arange(3) + np.floor(10 * rho)


def check(ok, what):
    if not ok:
        print(f"check_arrays: {what}", file=sys.stderr)
        sys.exit(1)


def main():
    path = sys.argv[1]
    with h5py.File(path, "r") as f:
        rho = f["rho"][()][:, None, None]
        gamma = f["gamma"][()][None, :, None]
        done = f["status"][()] == 1
        check(done.any(), "no done point")
        check(f["ramp"].dtype == np.float64 and f["ramp"].shape == done.shape + (5,),
              f"ramp is {f['ramp'].dtype} {f['ramp'].shape}")
        check(f["counts"].dtype == np.int32 and f["counts"].shape == done.shape + (3,),
              f"counts is {f['counts'].dtype} {f['counts'].shape}")
        check(list(f["k"][()]) == list(range(5)) and list(f["counts_index"][()]) == [0, 1, 2],
              "the dimensions' coordinates")
        check(np.array_equal(f["ramp"][()][done], np.broadcast_to(ramp(rho, gamma),
                                                                  done.shape + (5,))[done],
                             equal_nan=True), "h5py: ramp differs from rho k + gamma")
        want = np.broadcast_to(counts(rho), done.shape + (3,))
        check(np.array_equal(f["counts"][()][done], want[done]), "h5py: counts differ")
    with xr.open_dataset(path, engine="h5netcdf") as ds:
        check(ds["ramp"].dims == ("rho", "gamma", "k"), f"xarray: ramp's dims {ds['ramp'].dims}")
        check(ds["counts"].dims == ("rho", "gamma", "counts_index"), "xarray: counts' dims")
    ds = impactsweep.open_dataset(path)
    check(ds["ramp"].dtype == np.float64 and ds["counts"].dtype == np.int32,
          f"open_dataset: dtypes {ds['ramp'].dtype} {ds['counts'].dtype}")
    sel = ds["status"] == "done"
    r = ds["ramp"].where(sel)
    exact = xr.DataArray(ramp(ds["rho"].values[:, None, None], ds["gamma"].values[None, :, None]),
                         dims=("rho", "gamma", "k"))
    check(np.array_equal(r.values, exact.where(sel).values, equal_nan=True),
          "open_dataset: ramp differs")
    check(bool((ds["kind"].where(sel, "high") == xr.where(ds["rho"] > 1, "high", "low")
                .where(sel, "high")).all()), "open_dataset: kind differs")
    # impactsweep.eval (IMPACTSWEEP, IMPACTSWEEP_MODEL_PATH): the Dataset the file holds
    part = ds.isel(rho=slice(0, 3), gamma=slice(0, 4))
    computed = bool((part["status"] == "done").all())  # (a killed run's file: not all)
    e = impactsweep.eval("arrays", rho=part["rho"].values, gamma=part["gamma"].values,
                         delay=float(ds.attrs["parameter_delay"])) if computed else {}
    for name in ("peak", "ramp", "counts", "kind") if computed else ():
        got, want = e[name].transpose(*part[name].dims), part[name]
        check(got.dims == want.dims and got.dtype == want.dtype and
              np.array_equal(got.values, want.values,
                             equal_nan=want.dtype.kind == "f"),
              f"impactsweep.eval: {name} {got.dims} {got.dtype} differs from the file's")
    if len(sys.argv) > 2:
        for line in open(sys.argv[2]):
            a = json.loads(line)
            p, out = a["parameters"], a["outputs"]
            got = np.array([np.nan if v is None else v for v in out["ramp"]])
            check(np.array_equal(got, ramp(p["rho"], p["gamma"]), equal_nan=True),
                  f"eval: ramp {out['ramp']} at {p}")
            check(out["counts"] == counts(p["rho"]).tolist(), f"eval: counts {out['counts']}")
    print(f"check_arrays: {path}: {int(done.sum())} done points equal the exact functions")


main()
