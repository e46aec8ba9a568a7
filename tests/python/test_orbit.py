"""impactplot's orbit diagrams and exponent maps (analysis/impactplot/orbit.py), on sweeps of
the arrays test plug-in (tests/models/plugins/arrays.c: ramp[k] = rho k + gamma while
k <= 5 gamma, NaN beyond). The files' values are read back with h5py, independently of
xarray and impactplot; an exponent output `lyapunov` is added to a copy of a file with
h5py, in the layout the engine writes a scalar output (a variable over the axes, its
dimension scales attached, named in the root attribute `outputs`)."""
import json
import os
import shutil
import subprocess

import h5py
import matplotlib.pyplot as plt
import numpy as np
import pytest

import impactplot
from impactplot import cli

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def run_arrays(binary, tmp, name, axes):
    """A sweep of the arrays plug-in over AXES {name: (from, to, count)}; the file."""
    plugins = os.environ.get("PLUGIN_DIR", os.path.join(ROOT, "build", "tests", "plugins"))
    if not os.path.exists(os.path.join(plugins, "libarrays.so")):
        pytest.skip(f"no arrays test plug-in in {plugins} (set PLUGIN_DIR)")
    out = str(tmp / f"{name}.h5")
    ini = tmp / f"{name}.ini"
    text = f"[sweep]\nmodel = arrays\noutput = {out}\n"
    if "rho" not in axes:
        text += "[model]\nrho = 0.5\n"
    for axis, (lo, hi, count) in axes.items():
        text += f"[axis.{axis}]\nfrom = {lo}\nto = {hi}\ncount = {count}\n"
    ini.write_text(text)
    subprocess.run([binary, "run", str(ini), "--quiet"], check=True,
                   env=dict(os.environ, IMPACTSWEEP_MODEL_PATH=plugins))
    return out


@pytest.fixture(scope="module")
def line_file(tmp_path_factory, impactsweep_binary):
    """20 points over gamma (rho = 0.5): ramp has 1 to 5 finite values a point."""
    return run_arrays(impactsweep_binary, tmp_path_factory.mktemp("orbit"), "line",
                      {"gamma": (0, 0.95, 20)})


@pytest.fixture(scope="module")
def map_file(tmp_path_factory, impactsweep_binary):
    """6 x 5 points over rho and gamma."""
    return run_arrays(impactsweep_binary, tmp_path_factory.mktemp("orbit"), "map",
                      {"rho": (0, 1.9, 6), "gamma": (0, 0.95, 5)})


def with_exponent(src, dst, value_of):
    """A copy of SRC with a scalar output lyapunov = VALUE_OF(axis values...) added."""
    shutil.copy(src, dst)
    with h5py.File(dst, "r+") as f:
        axes = f.attrs["axes"]
        axes = (axes.decode() if isinstance(axes, bytes) else str(axes)).split()
        grids = np.meshgrid(*[f[a][()] for a in axes], indexing="ij")
        v = f.create_dataset("lyapunov", data=np.asarray(value_of(*grids), dtype=float))
        for i, a in enumerate(axes):
            v.dims[i].attach_scale(f[a])
        v.attrs["units"] = "1"
        v.attrs["long_name"] = "largest Lyapunov exponent"
        outputs = f.attrs["outputs"]
        outputs = outputs.decode() if isinstance(outputs, bytes) else str(outputs)
        f.attrs["outputs"] = outputs + " lyapunov"
    return dst


def finite_points(path, name, axis):
    """Every finite value of array output NAME of a one-axis file: sorted (x, y), by h5py."""
    with h5py.File(path, "r") as f:
        x, values = f[axis][()], f[name][()]
    assert values.shape[0] == x.size and values.ndim == 2
    pts = [(float(x[i]), float(v)) for i in range(x.size) for v in values[i] if np.isfinite(v)]
    assert 0 < len(pts) < values.size, "the test needs NaN values to skip"
    return sorted(pts)


def layout_of(path, tmp_path, *args):
    out = str(tmp_path / "fig")
    assert cli.main([path, "--output", out, "--format", "png", "--dpi", "40", "--layout",
                     *args]) == 0
    field = args[args.index("--field") + 1]
    with open(f"{out}_{field}.json") as f:
        return json.load(f)


def drawn_points(panel):
    return sorted((x, y) for x, y in panel["points"])


def test_orbit_diagram_draws_every_finite_value_and_no_exponent_panel(line_file, tmp_path):
    layout = layout_of(line_file, tmp_path, "--field", "ramp")
    assert [p["kind"] for p in layout["panels"]] == ["orbit"]
    assert drawn_points(layout["panels"][0]) == finite_points(line_file, "ramp", "gamma")


def test_orbit_diagram_has_the_exponent_under_it(line_file, tmp_path):
    path = with_exponent(line_file, str(tmp_path / "exp.h5"), lambda g: g - 0.5)
    layout = layout_of(path, tmp_path, "--field", "ramp")
    top, bottom = layout["panels"]
    assert (top["kind"], bottom["kind"]) == ("orbit", "exponent")
    assert bottom["field"] == "lyapunov" and bottom["contours"]["levels"] == [0.0]
    assert top["xlim"] == bottom["xlim"]                   # shared x
    assert top["bbox_px"][3] <= bottom["bbox_px"][1]       # the exponent under the diagram
    assert drawn_points(top) == finite_points(path, "ramp", "gamma")


def test_an_array_over_two_axes_needs_one_line(map_file, tmp_path, capsys):
    out = str(tmp_path / "fig")
    assert cli.main([map_file, "--output", out, "--format", "png", "--field", "ramp"]) == 2
    assert "--sel" in capsys.readouterr().err
    layout = layout_of(map_file, tmp_path, "--field", "ramp", "--sel", "rho=1.52")
    with h5py.File(map_file, "r") as f:
        rho, gamma, ramp = f["rho"][()], f["gamma"][()], f["ramp"][()]
    i = int(np.argmin(np.abs(rho - 1.52)))
    want = sorted((float(gamma[j]), float(v)) for j in range(gamma.size)
                  for v in ramp[i, j] if np.isfinite(v))
    assert drawn_points(layout["panels"][0]) == want


def test_exponent_map_marks_the_zero_level_only_where_the_sign_changes(map_file, tmp_path):
    changes = with_exponent(map_file, str(tmp_path / "changes.h5"), lambda r, g: r - 1.0)
    layout = layout_of(changes, tmp_path, "--field", "lyapunov")
    panel = layout["panels"][0]
    assert panel["kind"] == "exponent" and panel["contours"]["levels"] == [0.0]
    curve = [p for c in panel["curves"] for p in c["pieces"]]
    assert curve and any(lab["level"] == 0.0 for lab in panel["labels"])
    positive = with_exponent(map_file, str(tmp_path / "positive.h5"), lambda r, g: r + 0.1)
    layout = layout_of(positive, tmp_path, "--field", "lyapunov")
    assert layout["panels"][0]["contours"] is None and not layout["panels"][0]["curves"]


def test_library_functions_draw_into_the_axes_given(map_file, tmp_path):
    path = with_exponent(map_file, str(tmp_path / "lib.h5"), lambda r, g: r - 0.3)
    ds = impactplot.open_dataset(path)
    fig, ax = plt.subplots()
    d = impactplot.orbit.exponent(ds, "lyapunov", ax)
    lo, hi = d.mappable.get_clim()
    assert lo == -hi and hi == pytest.approx(np.abs(ds.lyapunov.values).max())
    assert d.contours["levels"] == [0.0] and d.ax is ax
    plt.close(fig)
    line = ds.isel(rho=2)
    fig, ax = plt.subplots()
    d = impactplot.orbit.diagram(line, "ramp", ax)
    offsets = sorted(map(tuple, d.artists[0].get_offsets().tolist()))
    want = sorted((float(g), float(v)) for g, row in zip(line.gamma.values, line.ramp.values)
                  for v in row if np.isfinite(v))
    assert offsets == want and d.ax is ax
    plt.close(fig)
    fig = plt.figure()
    drawns = impactplot.orbit.figure(line, "ramp", fig)
    assert [d.kind for d in drawns] == ["orbit", "exponent"]
    assert drawns[1].ax.get_shared_x_axes().joined(drawns[0].ax, drawns[1].ax)
    plt.close(fig)


def test_density_shading_is_the_share_of_a_points_values_near_each_dot():
    import xarray as xr
    # point 0: its four values on one spot (a fixed point); point 1: four apart; point 2:
    # two and one, the rest NaN; point 3: done, no value at all (marked "no value")
    values = np.array([[1.0, 1.0, 1.0, 1.0], [0.0, 1.0, 2.0, 3.0], [2.0, 2.0, 0.0, np.nan],
                       [np.nan] * 4])
    ds = xr.Dataset({"s": (("x", "s_index"), values), "status": (("x",), [1, 1, 1, 1])},
                    coords={"x": [0.0, 1.0, 2.0, 3.0], "s_index": np.arange(4)},
                    attrs={"model": "plug", "axes": "x", "outputs": "s"})
    fig, ax = plt.subplots()
    d = impactplot.orbit.diagram(ds, "s", ax)
    dots = d.artists[0]
    got = sorted(zip(map(tuple, dots.get_offsets().tolist()), dots.get_array().tolist()))
    want = sorted([((0.0, 1.0), 1.0)] * 4 + [((1.0, float(v)), 0.25) for v in range(4)]
                  + [((2.0, 2.0), 2 / 3)] * 2 + [((2.0, 0.0), 1 / 3)])
    assert [p for p, _ in got] == [p for p, _ in want]
    assert np.allclose([s for _, s in got], [s for _, s in want])
    assert [h.get_label() for h in d.handles] == ["no value"]
    plt.close(fig)


def test_an_infinite_exponent_is_marked_and_keyed_not_a_gap(line_file, map_file, tmp_path):
    merge = lambda g: np.where(g < 0.3, -np.inf, g - 0.5)  # noqa: E731 (sticking: -inf)
    ds = impactplot.open_dataset(with_exponent(line_file, str(tmp_path / "l.h5"), merge))
    fig, ax = plt.subplots()
    d = impactplot.orbit.exponent(ds, "lyapunov", ax)
    keyed = [h for h in d.handles if "\u221e" in h.get_label()]
    assert [h.get_label()[0] for h in keyed] == ["\u2212"]
    marks = [ln for ln in ax.lines if ln.get_marker() == "v"]
    want = ds.gamma.values[ds.gamma.values < 0.3]
    assert len(marks) == 1 and np.array_equal(marks[0].get_xdata(), want)
    plt.close(fig)
    ds = impactplot.open_dataset(with_exponent(map_file, str(tmp_path / "m.h5"),
                                               lambda r, g: merge(g)))
    fig, ax = plt.subplots()
    d = impactplot.orbit.exponent(ds, "lyapunov", ax)
    labels = [h.get_label() for h in d.handles]
    assert any(lab.startswith("\u2212\u221e") for lab in labels)
    assert "no value" not in labels  # -inf is a value; only NaN would be "no value"
    plt.close(fig)
