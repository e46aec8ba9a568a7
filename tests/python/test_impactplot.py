"""impactplot as a library (analysis/impactplot): panels drawn into a notebook's Axes from
a result file's Dataset, as xarray reads it or as impactsweep.open_dataset decodes it."""
import matplotlib
import matplotlib.pyplot as plt
import numpy as np

import impactplot
import impactsweep as isw


def test_classes_panel_names_the_classes_present(chatter_file):
    ds = impactplot.open_dataset(chatter_file)
    fig, ax = plt.subplots()
    d = impactplot.classes(ds, "regime", ax)
    present = {str(n).upper() for n in np.unique(isw.open_dataset(chatter_file).regime.values)}
    labels = {h.get_label() for h in d.handles}
    assert present <= labels, (present, labels)
    plt.close(fig)


def test_decoded_and_raw_datasets_draw_the_same(chatter_file):
    raw = impactplot.open_dataset(chatter_file)
    decoded = isw.open_dataset(chatter_file)
    arrays = []
    for ds in (raw, decoded):
        fig, ax = plt.subplots()
        d = impactplot.classes(ds, "regime", ax)
        arrays.append(np.ma.filled(d.artists[0].get_array(), np.nan).copy())
        plt.close(fig)
    assert np.array_equal(arrays[0], arrays[1], equal_nan=True)


def test_colour_panel_spans_the_data(chatter_file):
    ds = impactplot.open_dataset(chatter_file)
    fig, ax = plt.subplots()
    d = impactplot.colour(ds, "time_mean", ax)
    lo, hi = d.mappable.get_clim()
    values = ds.time_mean.values
    assert lo <= np.nanmin(values) and hi >= np.nanmax(values)
    plt.close(fig)


def test_journal_style_is_scoped():
    before = matplotlib.rcParams["pdf.fonttype"]
    with impactplot.journal_style():
        assert matplotlib.rcParams["pdf.fonttype"] == 42
    assert matplotlib.rcParams["pdf.fonttype"] == before


# ------------------------------------------------------------- labels, units, ticks
from impactplot import contours, labels, ticks  # noqa: E402


def test_udunits_are_typeset():
    cases = {"m s-1": "m s$^{-1}$", "m/s": "m s$^{-1}$", "m/s2": "m s$^{-2}$",
             "kg m2 s-2": "kg m$^{2}$ s$^{-2}$", "m.s^-1": "m s$^{-1}$", "N": "N",
             "s**-1": "s$^{-1}$", "1e-3 m": "10$^{-3}$ m", "percent": "%", "1": "",
             "": "", "um": "µm"}
    for units, want in cases.items():
        assert labels.udunits_tex(units) == want, (units, labels.udunits_tex(units))


def test_scales_named_in_long_names_are_units():
    cases = {"initial velocity of mass one, in L/T": r"$L\,T^{-1}$",
             "energy at the end, in m L^2/T^2 (m: the unit mass)": r"$m\,L^{2}\,T^{-2}$",
             "compression where the contact ended, in units of X_c: at separation": "$X_{c}$",
             "arrival speed (> 0: into the stop), in L omega_n (NaN: no impact)":
                 r"$L\,\omega_{n}$",
             "phase of the last impact, in radians (NaN: no impact)": "rad",
             # prose, or no scale at all
             "mean time, in units of circumradius / initial sink speed": "",
             "fraction of drops in complete chatter": "",
             "period of the final motion, in forcing periods": ""}
    for long_name, want in cases.items():
        assert labels.long_name_scale(long_name) == want, (long_name,
                                                           labels.long_name_scale(long_name))


def test_short_labels_come_from_symbol_table_or_name_never_long_name():
    long = "arrival speed at the last impact (> 0: into the stop), in L omega_n"
    attrs = {"units": "1", "long_name": long}
    made = labels.label_with_units("forced-stop", "v_impact", attrs)
    assert made == r"$v_{\mathrm{impact}}$", made  # a plug-in's "1": a plain number
    assert labels.short_label("forced-stop", "impacts_per_period", {}) == "impacts per period"
    assert labels.short_label("any", "x", {"symbol": "v_0"}) == "$v_{0}$"
    assert labels.short_label("any", "x", {"symbol": r"$\dot{x}$"}) == r"$\dot{x}$"
    assert labels.short_label("collision", "cor", {"long_name": long}) == "$e$"
    assert labels.label_with_units("ball", "v_first", {"units": "m s-1"}) == \
        r"$v_{\mathrm{first}}$ [m s$^{-1}$]"


def test_tick_labels_of_one_axis_share_a_format():
    assert ticks.format_values([1e-5, 2e-5, 5e-5, 1e-4]) == \
        ["$10^{-5}$", r"$2\times10^{-5}$", r"$5\times10^{-5}$", "$10^{-4}$"]
    assert ticks.format_values([0.05, 0.1, 0.2, 0.5, 1, 2]) == \
        ["0.05", "0.1", "0.2", "0.5", "1", "2"]
    assert ticks.format_values([1e-4, 1e-3]) == ["$10^{-4}$", "$10^{-3}$"]


def test_level_order_is_checked_along_the_labels_main_direction():
    ladder = np.array([[0, 0], [10, 8], [20, 16], [30, 24]])
    assert contours.in_level_order(ladder, [10, 25, 50, 100])
    assert not contours.in_level_order(ladder, [10, 50, 25, 100])
    assert not contours.in_level_order(ladder[[0, 1, 1, 3]], [10, 25, 50, 100], apart=2)


def count_dataset():
    """A whole-number field with a jump of many levels across a diagonal (as rebounds
    jumps at the Zeno boundary) and values exactly at the levels."""
    import xarray as xr
    x, y = np.linspace(0, 1, 30), np.linspace(0, 1, 25)
    X, Y = np.meshgrid(x, y, indexing="ij")
    count = np.where(X + Y > 1, 22 + np.round(3 * np.sin(7 * X)), np.round(10 * X * Y))
    count[np.abs(X + Y - 1) < 0.04] = 20  # a ridge at a level
    return xr.Dataset({"count": (("x", "y"), count)}, coords={"x": x, "y": y})


def test_count_level_curves_never_cross_and_get_one_ordered_label_each():
    from matplotlib.figure import Figure
    from impactplot.reading import Result, dataset_plane
    result = Result.from_dataset(count_dataset())
    plane = dataset_plane(result)
    fig = Figure(figsize=(4, 3), dpi=100)
    ax = fig.add_subplot()
    ax.set_xlim(0, 1)
    ax.set_ylim(0, 1)
    curves = contours.level_curves(ax, result, plane, "count", plane.take(result.ds["count"]),
                                   [5, 10, 15, 20])
    assert curves is not None and curves.levels == [5.0, 10.0, 15.0, 20.0]
    pieces = [(level, p) for level, segs in zip(curves.levels, curves.allsegs) for p in segs]
    for i, (la, a) in enumerate(pieces):  # no X: curves never touch, nor touch themselves
        assert not crossing(a, a), la
        for lb, b in pieces[i + 1:]:
            assert not crossing(a, b), (la, lb)
    fig.canvas.draw()
    placed = contours.place_labels(ax, curves, [])
    assert sorted(t._impactplot_level for t in placed) == curves.levels
    centres = [t.get_window_extent().get_points().mean(axis=0) for t in placed]
    assert contours.in_level_order(np.array(centres), [t._impactplot_level for t in placed])


def crossing(a, b):
    """Whether polylines A and B cross or touch (segment by segment); A is B: whether it
    touches itself (neighbouring segments and a loop's closing pair aside)."""
    same = a is b
    closed = same and np.allclose(a[0], a[-1])
    n = len(a) - 1
    for i, (p0, p1) in enumerate(zip(a[:-1], a[1:])):
        for j, (q0, q1) in enumerate(zip(b[:-1], b[1:])):
            if same and (j < i + 2 or (closed and i == 0 and j == n - 1)):
                continue
            d = (p1[0] - p0[0]) * (q1[1] - q0[1]) - (p1[1] - p0[1]) * (q1[0] - q0[0])
            if d == 0:
                continue
            t = ((q0[0] - p0[0]) * (q1[1] - q0[1]) - (q0[1] - p0[1]) * (q1[0] - q0[0])) / d
            u = ((q0[0] - p0[0]) * (p1[1] - p0[1]) - (q0[1] - p0[1]) * (p1[0] - p0[0])) / d
            if 0 <= t <= 1 and 0 <= u <= 1:
                return True
    return False


# ------------------------------------------------ figures a reviewer cannot misread
import xarray as xr  # noqa: E402
from matplotlib.colors import to_hex  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402

from impactplot import drawing, style  # noqa: E402


def grid_dataset(values, name="out", attrs=None, root=None, status=None):
    """A result-like Dataset over (x, y) with one output NAME (VALUES[x, y])."""
    values = np.asarray(values, dtype=float)
    x = np.linspace(0, 1, values.shape[0])
    y = np.linspace(0, 1, values.shape[1])
    data = {name: (("x", "y"), values, attrs or {})}
    if status is not None:
        data["status"] = (("x", "y"), np.asarray(status, dtype=np.int64))
    return xr.Dataset(data, coords={"x": x, "y": y},
                      attrs=dict({"model": "plug", "axes": "x y", "outputs": name},
                                 **(root or {})))


def mesh_colours(d):
    """The colours the mesh of a drawn panel shows, per cell (hex)."""
    m = d.artists[0]
    rgba = m.cmap(m.norm(np.ma.filled(m.get_array(), np.nan)))
    return {to_hex(c) for c in rgba.reshape(-1, 4)}


def test_classes_of_one_variable_never_share_a_colour():
    # a plug-in's regime: `free` is in the table (bluish green), `sticking` is not and by
    # its flag value would have taken the same colour
    words = ["bouncing", "free", "sticking", "failed", "cc", "found", "a", "b", "c"]
    colours = style.class_colours(words)
    assert len(set(c.lower() for c in colours)) == len(words), dict(zip(words, colours))
    assert colours[1] == style.CLASS_COLOURS["free"]
    assert style.NOT_COMPUTED_COLOUR not in colours and style.NO_VALUE_COLOUR not in colours
    ds = grid_dataset([[0, 1], [2, 1]], "regime",
                      {"flag_values": np.array([0, 1, 2]),
                       "flag_meanings": "bouncing free sticking"})
    fig, ax = plt.subplots()
    d = impactplot.classes(ds, "regime", ax)
    by_label = {h.get_label(): to_hex(h.get_facecolor()) for h in d.handles}
    assert len(set(by_label.values())) == 3, by_label
    assert set(by_label.values()) <= mesh_colours(d)
    plt.close(fig)


def test_every_builtin_class_colour_is_distinct_within_its_variable(chatter_file,
                                                                   collision_file):
    for path in (chatter_file, collision_file):
        result = impactplot.open_result(path)
        for name in result.outputs:
            if drawing.is_categorical(result, name):
                colours = [c.colour.lower() for c in drawing.categories_of(result, name)]
                assert len(set(colours)) == len(colours), (path, name, colours)


def test_units_come_from_the_units_attribute_alone():
    attrs = {"units": "1", "long_name": "sugar concentration of the bath, in g/L"}
    assert labels.units_tex(attrs, "plug", "c") == ""
    assert labels.label_with_units("plug", "c", attrs) == "$c$"
    assert labels.label_with_units("plug", "c", dict(attrs, units="g L-1")) == \
        "$c$ [g L$^{-1}$]"
    # a built-in model's scales are its module's table, not its long_names
    assert labels.units_tex({"units": "1", "long_name": "in furlongs"}, "stop-oscillator",
                            "x2_0") == "$L$"


def test_builtin_scale_table_matches_the_models_descriptions(impactsweep_binary):
    """style.MODEL_SCALES says what each built-in model's long_names say (so that a
    description's change is noticed): every scale a description names is in the table."""
    import json
    import subprocess
    for model, table in style.MODEL_SCALES.items():
        out = subprocess.run([impactsweep_binary, "models", model, "--json"], check=True,
                             capture_output=True, text=True).stdout
        entries = [e for sec in ("parameters", "outputs") for e in json.loads(out)[sec]]
        for e in entries:
            scale = labels.long_name_scale(e.get("description") or e.get("long_name") or "")
            if scale and e.get("units", "1") in ("1", "", None):
                assert table.get(e["name"]) == scale, (model, e["name"], scale)


def colourbar_tick_labels(fig):
    bar = next(ax for ax in fig.axes if getattr(ax, "_colorbar", None) is not None)
    fig.canvas.draw()
    return bar, [t.get_text() for t in bar.yaxis.get_ticklabels()]


def test_a_capped_output_says_cap_or_more_where_the_data_reach_it():
    values = np.array([[2, 5, 50], [20, 200, 200], [3, 8, 150]], dtype=float)
    for attrs, root, capped in (({"capped_by": "max_hits"}, {"parameter_max_hits": 200.0},
                                 True),
                                ({"capped_by": "max_hits"}, {"parameter_max_hits": 500.0},
                                 False),
                                ({}, {"parameter_max_hits": 200.0}, False)):
        ds = grid_dataset(values, "hits", attrs, root)
        fig = Figure()
        d = impactplot.colour(ds, "hits", fig.add_subplot())
        bar, ticks = colourbar_tick_labels(fig)
        marked = [t for t in ticks if t.startswith("\u2265")]
        if capped:
            assert marked == ["\u2265200"] and ticks[-1] == "\u2265200", ticks
            assert d.cap["parameter"] == "max_hits" and d.cap["value"] == 200
            assert bar._colorbar.extend == "max"
        else:
            assert not marked and d.cap is None, (attrs, root, ticks)


def test_chatter_knows_max_impacts_caps_the_impact_counts(chatter_file):
    ds = impactplot.open_dataset(chatter_file)
    assert float(ds.impacts_mean.max()) >= ds.attrs["parameter_max_impacts"]
    fig = Figure()
    d = impactplot.chatter.impacts(ds, fig.add_subplot())
    _, ticks = colourbar_tick_labels(fig)
    cap = f"{ds.attrs['parameter_max_impacts']:g}"
    assert d.cap and ticks[-1] == "\u2265" + cap, ticks


def test_done_points_without_a_value_have_their_own_colour_and_entry():
    values = np.array([[0.1, np.nan], [0.5, 0.9], [np.nan, 0.3]])
    status = np.array([[1, 1], [1, 1], [0, 1]])  # the NaN at [2, 0] is not computed
    fig = Figure()
    ax = fig.add_subplot()
    d = impactplot.colour(grid_dataset(values, status=status), "out", ax)
    labels_ = [h.get_label() for h in d.handles]
    assert style.NO_VALUE_LABEL in labels_ and style.NOT_COMPUTED_LABEL in labels_, labels_
    overlay = ax.collections[1]  # the status overlay over the colour mesh
    codes = np.ma.filled(overlay.get_array(), np.nan).reshape(2, 3)  # [y, x]
    assert codes[1, 0] == 2 and codes[0, 2] == 0, codes  # no value; not computed
    cats = grid_dataset([[0, np.nan], [1, 0]], "regime",
                        {"flag_values": np.array([0, 1]), "flag_meanings": "up down"},
                        status=[[1, 1], [1, 1]])
    fig = Figure()
    d = impactplot.classes(cats, "regime", fig.add_subplot())
    entries = {h.get_label(): to_hex(h.get_facecolor()) for h in d.handles}
    assert entries.get(style.NO_VALUE_LABEL) == style.NO_VALUE_COLOUR, entries
    assert style.NO_VALUE_COLOUR in mesh_colours(d)


def test_noisy_level_curves_are_keyed_in_the_legend():
    from impactplot.reading import Result, dataset_plane
    x = np.linspace(0, 1, 40)
    X, Y = np.meshgrid(x, x, indexing="ij")
    smooth = 100 * X  # one straight line per level, apart: labelled on the line
    rings = 100 * np.abs(np.sin(9 * X) * np.sin(9 * Y))  # each level in many closed pieces
    step = np.where(X + Y > 1, 200.0, 2.0)  # a jump across every level: one bundle
    for field, keyed in ((smooth, False), (rings, True), (step, True)):
        result = Result.from_dataset(xr.Dataset({"f": (("x", "y"), field)},
                                                coords={"x": x, "y": x}))
        plane = dataset_plane(result)
        fig = Figure(figsize=(4, 3), dpi=100)
        ax = fig.add_subplot()
        d = drawing.colour_panel(ax, result, plane, "f", levels=[10, 25, 50])
        curves = d.contour_sets[0]
        assert curves.keyed == keyed, (keyed, [len(p) for p in curves.allsegs])
        if keyed:
            named = [h.get_label() for h in d.handles if " = " in h.get_label()]
            assert named == [f"$f$ = {t}" for t in curves.texts], named
            styles = [(c, tuple(dash)) for c, dash in curves.styles]
            assert len(set(styles)) == len(styles), styles
            contours.label_levels(d)
            assert d.labels == []


def test_degenerate_figures_are_not_made_by_default(tmp_path, chatter_file):
    from impactplot import cli
    out = str(tmp_path / "fig")
    # the session's chatter file is example.ini's: early_stop = 0, nothing certified
    assert impactplot.open_dataset(chatter_file).attrs["parameter_early_stop"] == 0
    assert cli.main([chatter_file, "--output", out, "--format", "png", "--dpi", "40"]) == 0
    assert not (tmp_path / "fig_undecided.png").exists()
    assert (tmp_path / "fig_impacts.png").exists()
    assert cli.main([chatter_file, "--output", out, "--format", "png", "--dpi", "40",
                     "--field", "undecided", "--layout"]) == 0
    import json
    layout = json.load(open(out + "_undecided.json"))
    assert any("early_stop = 0" in n for n in layout["panels"][0]["notes"]), layout["panels"]
    # a categorical output of one class is not made by default
    ds = grid_dataset([[1, 1], [1, 1]], "phase",
                      {"flag_values": np.array([0, 1]), "flag_meanings": "a b"},
                      status=[[1, 1], [1, 1]])
    from impactplot.reading import Facet, dataset_plane
    r = impactplot.Result.from_dataset(ds)
    kind = cli.generic_kind(r, "phase")
    assert kind.degenerate([Facet(result=r, plane=dataset_plane(r))]) == \
        "every computed point is b"
    two = ds.copy()
    two["phase"][0, 0] = 0
    r = impactplot.Result.from_dataset(two)
    assert cli.generic_kind(r, "phase").degenerate([Facet(result=r, plane=dataset_plane(r))]) \
        == ""


def test_log_axes_of_one_file_are_formatted_alike():
    from impactplot.reading import Result, dataset_plane
    # the cells' edges reach 1e-4, below the plain range, where the grid values (from
    # 1.2e-4) do not: a figure ending at the edges and one ending at the grid values
    # (filled contours) label the axis in one and the same format, the values' own
    x = np.array([1.2e-4, 1e-3, 1e-2, 1e-1, 1.0])
    ds = xr.Dataset({"f": (("x", "y"), np.arange(10.0).reshape(5, 2))},
                    coords={"x": ("x", x, {"scale": "log"}), "y": [0.0, 1.0]})
    result = Result.from_dataset(ds)
    plane = dataset_plane(result)
    texts = []
    for grid_limits in (False, True):
        fig = Figure()
        ax = fig.add_subplot()
        drawing.setup_axes(ax, result, plane, grid_limits=grid_limits)
        fig.canvas.draw()
        texts += [t.get_text() for t in ax.xaxis.get_ticklabels() if t.get_text()]
    kinds = {"$" in t for t in texts}
    assert len(kinds) == 1, texts
