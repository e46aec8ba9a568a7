"""The Python front door (analysis/impactsweep): decoding of result files, `eval MODEL -`
against the engine's own stored values and one-point eval, and run()."""
import json
import os
import shutil
import subprocess

import h5py
import numpy as np
import pytest
import xarray as xr

import impactsweep as isw


def raw(path, name):
    with h5py.File(path, "r") as f:
        return f[name][()], dict(f[name].attrs)


def test_categories_decoded_to_their_names(chatter_file):
    ds = isw.open_dataset(chatter_file)
    codes, attrs = raw(chatter_file, "regime")
    names = attrs["flag_meanings"].split()
    values = [int(v) for v in np.atleast_1d(attrs["flag_values"])]
    expected = np.vectorize(lambda c: names[values.index(int(c))])(codes)
    assert ds.regime.dtype.kind == "U"
    assert (ds.regime.values == expected).all()
    assert ds.regime.attrs["categories"] == " ".join(names)
    assert set(np.unique(ds.status.values)) == {"done"}


def test_integers_restored(chatter_file):
    ds = isw.open_dataset(chatter_file)
    stored, _ = raw(chatter_file, "impacts_max")
    assert ds.impacts_max.dtype == stored.dtype
    assert (ds.impacts_max.values == stored).all()
    plain = isw.open_dataset(chatter_file, decode_categories=False)
    assert plain.impacts_max.dtype.kind == "f"  # what xarray alone gives


def test_points_not_computed(chatter_file, tmp_path):
    """A point marked pending (its outputs at their fill values) decodes to '' and -1."""
    copy = str(tmp_path / "pending.h5")
    shutil.copy(chatter_file, copy)
    with h5py.File(copy, "r+") as f:
        f["status"][0, 0] = 0
        f["regime"][0, 0] = -1
        f["impacts_max"][0, 0] = -1
        f["time_mean"][0, 0] = np.nan
    ds = isw.open_dataset(copy)
    assert ds.status.values[0, 0] == "pending"
    assert ds.regime.values[0, 0] == isw.NOT_COMPUTED
    assert ds.impacts_max.values[0, 0] == -1
    assert np.isnan(ds.time_mean.values[0, 0])
    assert ds.regime.values[0, 1] != isw.NOT_COMPUTED


def test_eval_equals_the_stored_values(chatter_file):
    """Points evaluated through the stream are bit for bit the values a sweep stored."""
    ds = isw.open_dataset(chatter_file)
    fixed = {k[len("parameter_"):]: v for k, v in ds.attrs.items() if k.startswith("parameter_")}
    assert fixed["samples"] == 16
    got = isw.eval("chatter", rho=ds.rho.values, gamma=ds.gamma.values, **fixed)
    assert got.regime.dims == ("rho", "gamma")
    for name in ds.data_vars:
        a, b = ds[name].values, got[name].values
        if a.dtype.kind == "f":
            assert np.array_equal(a, b, equal_nan=True), name
        else:
            assert (a == b).all(), name


def test_eval_zip_with_dataarrays():
    rho = xr.DataArray([0.2, 0.3, 0.4], dims="case")
    gamma = xr.DataArray([0.1, 0.2, 0.3], dims="case")
    got = isw.eval("chatter", rho=rho, gamma=gamma, samples=8)
    assert got.regime.dims == ("case",)
    assert got.sizes["case"] == 3
    one = isw.eval("chatter", rho=0.3, gamma=0.2, samples=8)
    assert one.regime.dims == ()
    assert one.p_cc.item() == got.p_cc.values[1]


def test_eval_stream_equals_one_point_eval(impactsweep_binary):
    lines = ["rho=0.3 gamma=0.1 samples=8", "n=5 rho=0.5 gamma=0.2 samples=4 seed=9"]
    one = [subprocess.run([impactsweep_binary, "eval", "chatter"] + l.split(),
                          capture_output=True, text=True, check=True).stdout for l in lines]
    stream = subprocess.run([impactsweep_binary, "eval", "chatter", "-"],
                            input="\n".join(lines), capture_output=True, text=True, check=True)
    assert stream.stdout.splitlines() == [o.strip() for o in one]


def test_eval_stream_refused_lines_keep_their_place(impactsweep_binary):
    text = "# a comment\n\nrho=0.3 gamma=0.1 samples=4\nrho=-1 gamma=0.1\nrho=0.2 gamma=0.1 samples=4\n"
    proc = subprocess.run([impactsweep_binary, "eval", "chatter", "-"], input=text,
                          capture_output=True, text=True)
    assert proc.returncode == 2
    answers = [json.loads(l) for l in proc.stdout.splitlines()]
    assert [("error" in a) for a in answers] == [False, True, False]
    assert answers[1]["line"] == 4 and "rho" in answers[1]["error"]
    assert "<stdin>:4:" in proc.stderr
    assert answers[2]["parameters"]["rho"] == 0.2


def test_eval_stream_never_drops_a_line(impactsweep_binary):
    """A misspelt name and a value that is not a number among 4 lines: 4 answers in order,
    2 of them errors with the command line's own messages, exit status 2 (both were
    answered by silence, an empty message and exit 0, and the lines after them never)."""
    text = ("rho=0.3 gamma=0.1 samples=4\nrho=0.2 gama=0.1\nrho=abc gamma=0.1\n"
            "rho=0.2 gamma=0.1 samples=4\n")
    proc = subprocess.run([impactsweep_binary, "eval", "chatter", "-"], input=text,
                          capture_output=True, text=True)
    assert proc.returncode == 2, proc.stderr
    answers = [json.loads(l) for l in proc.stdout.splitlines()]
    assert len(answers) == 4
    assert [a.get("line") for a in answers] == [None, 2, 3, None]
    assert "unknown parameter 'gama'" in answers[1]["error"]
    assert "known: " in answers[1]["error"] and "gamma" in answers[1]["error"]
    assert "'abc' is not a number" in answers[2]["error"]
    assert answers[3]["parameters"]["rho"] == 0.2 and answers[3]["status"] == "DONE"
    for line in proc.stderr.splitlines():
        assert line.strip() != "impactsweep:", "an empty message"


def test_eval_json_types(impactsweep_binary):
    """Reals always carry a point or exponent, integers never: types survive JSON."""
    out = subprocess.run([impactsweep_binary, "eval", "chatter", "rho=0.3", "gamma=0.1",
                          "samples=4"], capture_output=True, text=True, check=True).stdout
    answer = json.loads(out)
    assert isinstance(answer["outputs"]["impacts_max"], int)
    assert isinstance(answer["outputs"]["p_icc"], float)
    assert isinstance(answer["parameters"]["samples"], int)
    assert '"rho": 0.3,' in out  # the shortest text that reads back


def test_eval_refused_point_raises():
    with pytest.raises(isw.ImpactsweepError, match=r"rho"):
        isw.eval("chatter", rho=-1.0, gamma=0.1)


def test_run_applies_overrides(tmp_path, chatter_file):
    out = str(tmp_path / "run.h5")
    ds = isw.run(os.path.join(os.path.dirname(__file__), "..", "..", "jobs", "example.ini"),
                 output=out, progress=False, axis__rho__count=6, axis__gamma__count=5,
                 set={"model.samples": 16})
    assert ds.sizes == {"rho": 6, "gamma": 5}
    assert ds.equals(isw.open_dataset(chatter_file))


def test_run_failure_raises(tmp_path):
    with pytest.raises(isw.ImpactsweepError, match="unknown"):
        isw.run(os.path.join(os.path.dirname(__file__), "..", "..", "jobs", "example.ini"),
                output=str(tmp_path / "x.h5"), progress=False, model__no_such_key=1)
