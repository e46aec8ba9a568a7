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


def same_as_file(path, got):
    """GOT (an eval over the file's axes) equals the file as open_dataset gives it,
    variable by variable: dims, dtype, values bit for bit with NaN and -1 in place, and
    the attributes; the coordinates and their units and labels."""
    ds = isw.open_dataset(path)
    assert set(got.data_vars) == set(ds.data_vars)
    for name in ds.data_vars:
        a, b = ds[name], got[name]
        assert a.dims == b.dims, name
        assert a.dtype == b.dtype, (name, a.dtype, b.dtype)
        if a.dtype.kind == "f":
            assert np.array_equal(a.values, b.values, equal_nan=True), name
        else:
            assert (a.values == b.values).all(), name
        assert set(a.attrs) == set(b.attrs), (name, set(a.attrs) ^ set(b.attrs))
        for key in a.attrs:
            assert np.array_equal(np.asarray(a.attrs[key]), np.asarray(b.attrs[key])), (name, key)
    for axis in ds.coords:
        assert np.array_equal(ds[axis].values, got[axis].values), axis
        for key in ("units", "long_name", "label"):
            assert ds[axis].attrs.get(key) == got[axis].attrs.get(key), (axis, key)


def fixed_parameters(ds):
    return {k[len("parameter_"):]: v for k, v in ds.attrs.items() if k.startswith("parameter_")}


def test_eval_equals_the_stored_values(chatter_file):
    """Points evaluated through the stream are the Dataset the sweep stored, variable by
    variable (the values bit for bit), on 1 process and on 2."""
    ds = isw.open_dataset(chatter_file)
    fixed = fixed_parameters(ds)
    assert fixed["samples"] == 16
    got = isw.eval("chatter", rho=ds.rho.values, gamma=ds.gamma.values, **fixed)
    assert got.regime.dims == ("rho", "gamma")
    same_as_file(chatter_file, got)
    same_as_file(chatter_file, isw.eval("chatter", rho=ds.rho.values, gamma=ds.gamma.values,
                                        ranks=2, **fixed))


def test_eval_of_collision_equals_the_file_and_draws(collision_file):
    """A real output with no value is NaN (not int64 -1), integers int32, the attributes
    the file's; impactplot.collision.cor draws the eval's Dataset as the file's."""
    import matplotlib.pyplot as plt
    import impactplot.collision

    ds = isw.open_dataset(collision_file)
    given = ("law", "form", "integrator", "pi3", "n", "p", "alpha", "A", "rtol", "atol")
    fixed = {k: v for k, v in fixed_parameters(ds).items() if k in given}  # the job's
    got = isw.eval("collision", pi1=ds.pi1.values, pi2=ds.pi2.values, **fixed)
    same_as_file(collision_file, got)
    assert got.t_sep_dim.dtype == np.float64 and got.t_sep_dim.isnull().all()
    fig, ax = plt.subplots()
    impactplot.collision.cor(got, ax)
    impactplot.collision.cor(ds, ax)
    plt.close(fig)


def test_eval_meshgrid_arrays_and_unknown_names():
    rho, gamma = [0.2, 0.3, 0.4], [0.1, 0.2]
    R, G = np.meshgrid(rho, gamma)
    got = isw.eval("chatter", rho=R, gamma=G, samples=4)
    assert got.p_cc.dims == ("gamma", "rho")
    assert list(got.rho.values) == rho and list(got.gamma.values) == gamma
    grid = isw.eval("chatter", rho=rho, gamma=gamma, samples=4)
    assert np.array_equal(got.p_cc.transpose("rho", "gamma").values, grid.p_cc.values)
    both = np.array([[0.2, 0.3], [0.5, 0.6]])  # varies along both axes: positional dims
    assert isw.eval("chatter", rho=both, gamma=0.1, samples=4).p_cc.dims == ("dim_0", "dim_1")
    with pytest.raises(isw.ImpactsweepError, match=r"unknown parameter 'gama'.*known: .*gamma"):
        isw.eval("chatter", rho=0.2, gama=0.1)
    with pytest.raises(isw.ImpactsweepError, match=r"unknown parameter 'ranks_'"):
        isw.eval("chatter", rho=0.2, gamma=0.1, ranks_=2)
    with pytest.raises(isw.ImpactsweepError, match=r"2\^53"):
        isw.eval("chatter", rho=0.2, gamma=0.1, seed=2**53 + 1)


def test_eval_errors_raised_or_kept():
    with pytest.raises(isw.ImpactsweepError, match=r"point 2 \(rho=-1.0 gamma=0.1.*rho"):
        isw.eval("chatter", rho=[0.2, -1.0, 0.3], gamma=0.1, samples=4)
    kept = isw.eval("chatter", rho=[0.2, -1.0, 0.3], gamma=0.1, samples=4, errors="keep")
    assert list(kept.status.values) == ["done", "failed_invalid", "done"]
    assert "rho" in kept.error.values[1] and kept.error.values[0] == ""
    assert np.isnan(kept.p_cc.values[1]) and kept.impacts_max.values[1] == -1
    assert kept.regime.values[1] == isw.NOT_COMPUTED


def test_lazy_open_and_categories(chatter_file):
    """chunks={} gives dask arrays, decoded lazily; categories compare by name and plot
    with the class colours; plain plots take the short label."""
    import dask.array
    import matplotlib.pyplot as plt

    lazy = isw.open_dataset(chatter_file, chunks={})
    assert isinstance(lazy.regime.data, dask.array.Array)
    assert isinstance(lazy.impacts_max.data, dask.array.Array)
    eager = isw.open_dataset(chatter_file)
    assert (lazy.regime == "cc").sum().compute() == (eager.regime == "cc").sum() > 0
    assert lazy.compute().equals(eager)
    lazy.close()
    assert eager.regime.isw.names == ["icc", "cc", "pcc", "flat"]
    assert eager.regime.isw.codes.dtype == float
    fig, ax = plt.subplots()
    eager.regime.isw.plot(ax=ax)
    labels = [t.get_text() for t in ax.get_legend().get_texts()]
    assert "CC" in labels
    plt.close(fig)
    fig, ax = plt.subplots()
    mesh = eager.p_cc.plot(ax=ax)
    assert mesh.colorbar.ax.get_ylabel().startswith(eager.p_cc.attrs["label"])
    assert ax.get_xlabel().startswith(eager.gamma.attrs["label"]) or \
        ax.get_ylabel().startswith(eager.rho.attrs["label"])
    plt.close(fig)


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


def test_eval_on_several_processes_answers_as_one(impactsweep_binary):
    """eval - -n 3 deals blocks of lines to 3 processes: the answers are one process's,
    byte for byte, refused lines, blank lines and comments in place, exit status 2."""
    import random
    rng = random.Random(5)
    lines = []
    for i in range(300):
        lines.append(f"rho={rng.uniform(0.05, 1):.6f} gamma={rng.uniform(0.01, 0.8):.6f} samples=4")
        if i % 41 == 7:
            lines.append("rho=0.3 gamma=0.1 colour=red")
        if i % 53 == 3:
            lines += ["", "# a comment"]
    text = "\n".join(lines)  # the last line without a newline
    one = subprocess.run([impactsweep_binary, "eval", "chatter", "-"], input=text,
                         capture_output=True, text=True)
    three = subprocess.run([impactsweep_binary, "eval", "chatter", "-", "-n", "3"], input=text,
                           capture_output=True, text=True)
    assert one.returncode == three.returncode == 2
    assert three.stdout == one.stdout
    assert sorted(three.stderr.splitlines()) == sorted(one.stderr.splitlines())
    assert len(three.stdout.splitlines()) == len([l for l in lines if l and l[0] != "#"])


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


def test_run_removes_its_temporary_file_and_shows_one_line(capfd, chatter_file, tmp_path,
                                                           monkeypatch):
    import tempfile
    # a temporary directory of this test's own: other tests running at the same time make
    # and remove theirs in the shared one
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(scratch))
    ds = isw.run(os.path.join(os.path.dirname(__file__), "..", "..", "jobs", "example.ini"),
                 axis__rho__count=6, axis__gamma__count=5, model__samples=16)
    assert ds.equals(isw.open_dataset(chatter_file))
    left = list(scratch.iterdir())
    assert not left, f"run() left {left}"
    err = capfd.readouterr().err
    lines = [l for l in err.splitlines() if l.strip()]
    assert len(lines) <= 3, err
    assert lines[-1].startswith("impactsweep: wrote")


def test_run_failure_raises(tmp_path):
    with pytest.raises(isw.ImpactsweepError, match="unknown"):
        isw.run(os.path.join(os.path.dirname(__file__), "..", "..", "jobs", "example.ini"),
                output=str(tmp_path / "x.h5"), progress=False, model__no_such_key=1)


@pytest.mark.parametrize("ranks", [0, -1, 2.5, "2", True, {"rho": [0.1]}])
def test_ranks_must_be_a_count(tmp_path, ranks):
    job = os.path.join(os.path.dirname(__file__), "..", "..", "jobs", "example.ini")
    with pytest.raises((TypeError, ValueError), match="ranks="):
        isw.run(job, ranks, output=str(tmp_path / "x.h5"), progress=False)
    with pytest.raises((TypeError, ValueError), match="ranks="):
        isw.eval("chatter", rho=0.2, gamma=0.1, ranks=ranks)
    assert not os.path.exists(tmp_path / "x.h5")
