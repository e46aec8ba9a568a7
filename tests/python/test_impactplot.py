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
    assert made == r"$v_{\mathrm{impact}}$ [$L\,\omega_{n}$]", made
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
