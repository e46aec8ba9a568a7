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
