"""traces: the figures of a trace file of `impactsweep trace` (one point's trajectory):
collision `loop` (force against indentation) and `history` (x, v, F against t); chatter
`impacts` (height and kinetic energy by impact, coloured by the vertex hit);
stop-oscillator `phase` (x1-v1, x2-v2) and `energy`; any channel against t.
"""

import os
from typing import Dict, List, Optional, Sequence, Tuple

import numpy as np

from .drawing import Drawn
from .labels import SYMBOL_ATTRIBUTES, label_with_units, symbol, units_tex, with_units
from .reading import BadInput, Trace
from .style import (CLASS_COLOURS, FAILED_COLOUR, FALLBACK_COLOURS, LINE_COLOUR,
                    SECOND_COLOUR, SHORT_LABELS, class_label)

TRACE_EVENT_COLOURS = {
    # collision
    "contact": "#000000", "max_compression": "#0072b2", "min_compression": "#56b4e9",
    "force_max": "#d55e00", "kink": "#7f7f7f", "separation": "#009e73", "rest": "#e69f00",
    "solver_failure": FAILED_COLOUR,
    # chatter (the decisions take the class colours)
    "pcc_seen": "#009e73",  # (traces written before PCC ended the drop)
    "energy_rose": FAILED_COLOUR,
    "certified": "#e69f00",  # CC like "cc", proven: the velocity in the certificate's region
    # stop oscillator
    "rebound": "#0072b2", "zeno_reset": "#cc79a7", "contact_start": "#d55e00",
    "contact_end": "#e69f00", "graze": "#f0e442", "periodic_detected": "#009e73",
    "end": "#000000",
}
TRACE_EVENT_MARKERS = {"rebound": "v", "zeno_reset": "D", "contact_start": ">",
                       "contact_end": "<", "separation": "s", "rest": "s", "horizon": "s",
                       "end": "s", "force_max": "^", "max_compression": "o"}


def trace_label(trace: Trace, name: str) -> str:
    """Axis label of channel NAME (or t): its short label (the model's table, a symbol
    or the name) and its typeset units."""
    attrs = trace.ds[name].attrs if name in trace.ds.variables else {}
    if name not in SHORT_LABELS.get(trace.model, {}) and symbol(name) and \
            not any(str(attrs.get(k, "")).strip() for k in SYMBOL_ATTRIBUTES):
        return with_units(symbol(name), units_tex(attrs, trace.model, name))
    return label_with_units(trace.model, name, attrs)


def trace_event_colour(name: str, index: int) -> str:
    """The colour of event kind NAME (flag value INDEX if it is not in the tables)."""
    if name in TRACE_EVENT_COLOURS:
        return TRACE_EVENT_COLOURS[name]
    return CLASS_COLOURS.get(name, FALLBACK_COLOURS[index % len(FALLBACK_COLOURS)])


def mark_events(ax, trace: Trace, x: str, y: str, skip: Sequence[str] = ()) -> Tuple[Dict, List]:
    """The events at their (x, y) channel values (x may be 't'), one marker per kind;
    (the kinds drawn and their colours, legend handles)."""
    names = trace.event_names()
    xs = trace.ds["event_t"].values if x == "t" else trace.ds[f"event_{x}"].values
    ys = trace.ds["event_t"].values if y == "t" else trace.ds[f"event_{y}"].values
    drawn, handles = {}, []
    for k, kind in enumerate(trace.kinds):
        pick = np.array([n == kind for n in names], dtype=bool)
        if kind in skip or not pick.any():
            continue
        colour = trace_event_colour(kind, k)
        h = ax.scatter(xs[pick], ys[pick], s=18 if pick.sum() < 200 else 6, color=colour,
                       marker=TRACE_EVENT_MARKERS.get(kind, "o"), edgecolors="white",
                       linewidths=0.4, zorder=4,
                       label=f"{class_label(kind)} ({int(pick.sum())})")
        drawn[kind] = colour
        handles.append(h)
    return drawn, handles


SUMMARY_OUTPUTS = {"collision": ("cor", "t_sep", "outcome"),
                   "stop-oscillator": ("regime", "rebounds", "zeno_resets")}


def trace_window(trace: Trace) -> Optional[Tuple[float, float]]:
    """(T0, T1) when the trace keeps only the samples and events with T0 <= t <= T1 (its
    `time_window` attribute, `trace --window`), else None."""
    window = np.asarray(trace.ds.attrs.get("time_window", [])).ravel()
    return (float(window[0]), float(window[1])) if window.size == 2 else None


def window_text(trace: Trace) -> str:
    """'only t = 450 to 500 of the run (...)' for a windowed trace, else ''."""
    window = trace_window(trace)
    return "" if window is None else \
        f"only t = {window[0]:.6g} to {window[1]:.6g} of the run (trace --window)"


def trace_summary(trace: Trace) -> str:
    """What the point's run gave, in one line: the subtitle drawn with --title, and part
    of every trace figure's metadata; a windowed trace says so."""
    summary = _result_summary(trace)
    window = window_text(trace)
    return f"{summary}; {window}" if window else summary


def _result_summary(trace: Trace) -> str:
    if trace.model == "chatter" and "impacts" in trace.ds.variables:
        decision = [n for n in trace.event_names()
                    if n in ("icc", "cc", "pcc", "flat", "certified")]
        drop = int(np.asarray(trace.ds.attrs.get("trace_option_drop", 0)).item())
        impacts = trace.ds["impacts"].values
        return (f"drop {drop}: {class_label(decision[-1]) if decision else '?'} after "
                f"{int(impacts[-1]) if impacts.size else 0} impacts")
    names = SUMMARY_OUTPUTS.get(trace.model)
    if names is None:
        names = [k[len("output_"):] for k in trace.ds.attrs if k.startswith("output_")][:3]
    return trace_result_text(trace, names)


def trace_result_text(trace: Trace, names: Sequence[str]) -> str:
    """'status done, cor = 0.5639, ...' from the file's output_NAME attributes (a
    figure's subtitle with --title, and its metadata)."""
    parts = [f"status {trace.attr('status')}"]
    for name in names:
        value = trace.ds.attrs.get(f"output_{name}")
        if value is None:
            continue
        if isinstance(value, (bytes, str)):
            parts.append(f"{name} {value.decode() if isinstance(value, bytes) else value}")
        else:
            parts.append(f"{name} = {float(np.asarray(value).item()):.4g}")
    return ", ".join(parts)


def legend_below(fig, axes, handles) -> None:
    """A compact legend under the panels."""
    from .drawing import dedupe, legend_columns
    handles = dedupe(handles)
    if handles:
        fig.legend(handles=handles, loc="lower center", bbox_to_anchor=(0.5, 0.0),
                   ncol=legend_columns(handles, fig.get_size_inches()[0] - 0.3),
                   frameon=False)


def _layout_with_legend(fig, handles, rows_hint=None) -> None:
    """Reserve room at the bottom for the legend of HANDLES."""
    from .drawing import dedupe, legend_columns
    handles = dedupe(handles)
    if not handles:
        return
    ncol = legend_columns(handles, fig.get_size_inches()[0] - 0.3)
    rows = -(-len(handles) // ncol)
    frac = (0.08 + 0.17 * rows) / fig.get_size_inches()[1]
    fig.get_layout_engine().set(rect=(0, frac, 1, 1 - frac))
    legend_below(fig, None, handles)


def draw_collision_loop(fig, trace: Trace) -> List[Drawn]:
    """Force against indentation over the contact: the hysteresis loop, with events."""
    ax = fig.add_subplot(1, 1, 1)
    ds = trace.ds
    ax.plot(ds["indentation"].values, ds["force"].values, color=LINE_COLOUR, lw=1.1)
    ax.axhline(0.0, color="0.6", lw=0.5)
    colours, handles = mark_events(ax, trace, "indentation", "force", skip=("kink",))
    ax.set_xlabel("indentation " + trace_label(trace, "indentation"))
    ax.set_ylabel("contact force " + trace_label(trace, "force"))
    _layout_with_legend(fig, handles)
    return [Drawn(ax, "force", "lines", ["indentation"], classes=colours)]


def draw_collision_history(fig, trace: Trace) -> List[Drawn]:
    """x(t), v(t) and F(t) over the contact."""
    axes = fig.subplots(3, 1, sharex=True)
    out, handles = [], []
    for ax, name, colour in zip(axes, ("x", "v", "force"),
                                (LINE_COLOUR, SECOND_COLOUR, "#009e73")):
        ax.plot(trace.ds["t"].values, trace.ds[name].values, color=colour, lw=1.1)
        ax.axhline(0.0, color="0.75", lw=0.5)
        _, h = mark_events(ax, trace, "t", name, skip=("kink",))
        handles += h
        ax.set_ylabel(trace_label(trace, name))
        out.append(Drawn(ax, name, "lines", ["t"]))
    axes[-1].set_xlabel(trace_label(trace, "t"))
    _layout_with_legend(fig, handles)
    return out


def draw_chatter_impacts(fig, trace: Trace) -> List[Drawn]:
    """One drop's impact sequence: log2 of the height of the centre of mass and of the
    kinetic energy against the impact number, coloured by the vertex hit."""
    axes = fig.subplots(1, 2)
    ds = trace.ds
    number = ds["impacts"].values
    vertex = ds["vertex"].values.astype(int)
    vertices = sorted(v for v in set(vertex.tolist()) if v >= 0)
    out, handles = [], []
    for ax, name in zip(axes, ("log2_height", "log2_energy")):
        values = ds[name].values
        ax.plot(number, values, color="0.75", lw=0.7, zorder=1)
        for v in vertices:
            pick = vertex == v
            h = ax.scatter(number[pick], values[pick], s=6,
                           color=FALLBACK_COLOURS[v % len(FALLBACK_COLOURS)], zorder=3,
                           label=f"vertex {v}")
            handles.append(h)
        handles.append(ax.scatter(number[vertex < 0], values[vertex < 0], s=10,
                                  color="#000000", marker="s", zorder=3, label="start"))
        colours, h = mark_events(ax, trace, "impacts", name)
        handles += h
        ax.set_xlabel("impact")
        ax.set_ylabel({"log2_height": r"$\log_2 h$ (height of the centre of mass)",
                       "log2_energy": r"$\log_2$ kinetic energy"}[name])
        out.append(Drawn(ax, name, "lines", ["impacts"], classes=colours))
    _layout_with_legend(fig, handles)
    return out


def draw_stop_phase(fig, trace: Trace) -> List[Drawn]:
    """Phase portraits x1-v1 (the stop dashed) and x2-v2, events marked."""
    axes = fig.subplots(1, 2)
    ds = trace.ds
    stop = float(np.asarray(ds.attrs.get("parameter_s", np.nan)))
    out, handles = [], []
    for ax, (x, v) in zip(axes, (("x1", "v1"), ("x2", "v2"))):
        ax.plot(ds[x].values, ds[v].values, color=LINE_COLOUR, lw=0.7)
        colours, h = mark_events(ax, trace, x, v, skip=("end",))
        handles += h
        if x == "x1" and np.isfinite(stop):
            handles.append(ax.axvline(stop, color="0.3", lw=0.8, ls="--", label="stop s"))
        ax.set_xlabel(trace_label(trace, x))
        ax.set_ylabel(trace_label(trace, v))
        out.append(Drawn(ax, v, "lines", [x], classes=colours))
    _layout_with_legend(fig, handles)
    return out


def draw_stop_energy(fig, trace: Trace) -> List[Drawn]:
    """The energy against time, lost at rebounds and resets only."""
    ax = fig.add_subplot(1, 1, 1)
    ax.plot(trace.ds["t"].values, trace.ds["energy"].values, color=LINE_COLOUR, lw=1.1)
    colours, handles = mark_events(ax, trace, "t", "energy")
    ax.set_xlabel(trace_label(trace, "t"))
    ax.set_ylabel(trace_label(trace, "energy"))
    _layout_with_legend(fig, handles)
    return [Drawn(ax, "energy", "lines", ["t"], classes=colours)]


def draw_trace_channels(fig, trace: Trace, names: Sequence[str]) -> List[Drawn]:
    """Channels NAMES against t, one panel each (any model)."""
    axes = np.atleast_1d(fig.subplots(len(names), 1, sharex=True))
    out, handles = [], []
    for ax, name in zip(axes, names):
        ax.plot(trace.ds["t"].values, trace.ds[name].values, color=LINE_COLOUR, lw=1.0)
        if f"event_{name}" in trace.ds.variables:
            handles += mark_events(ax, trace, "t", name)[1]
        ax.set_ylabel(trace_label(trace, name))
        out.append(Drawn(ax, name, "lines", ["t"]))
    axes[-1].set_xlabel(trace_label(trace, "t"))
    _layout_with_legend(fig, handles)
    return out


# kind -> (draw, panels across, height / width)
def trace_figures(trace: Trace) -> List[Tuple[str, object, int, float]]:
    """The figures of a trace of TRACE's model (its channels against t for others)."""
    if trace.model == "collision":
        return [("loop", lambda fig: draw_collision_loop(fig, trace), 1, 0.95),
                ("history", lambda fig: draw_collision_history(fig, trace), 1, 1.35)]
    if trace.model == "chatter":
        return [("impacts", lambda fig: draw_chatter_impacts(fig, trace), 2, 0.5)]
    if trace.model == "stop-oscillator":
        return [("phase", lambda fig: draw_stop_phase(fig, trace), 2, 0.5),
                ("energy", lambda fig: draw_stop_energy(fig, trace), 1, 0.8)]
    names = trace.channels()[:6]
    return [("channels", lambda fig: draw_trace_channels(fig, trace, names), 1,
             0.3 + 0.35 * len(names))]


def trace_jobs(trace: Trace, fields: Optional[List[str]]):
    """The trace's figures, or those FIELDS name (figure kinds or channels)."""
    jobs = trace_figures(trace)
    if not fields:
        return jobs
    by_kind = {j[0]: j for j in jobs}
    picked = []
    for name in fields:
        if name in by_kind:
            picked.append(by_kind[name])
        elif name in trace.channels():
            picked.append((name, lambda fig, n=name: draw_trace_channels(fig, trace, [n]),
                           1, 0.65))
        else:
            raise BadInput(f"{trace.path}: no figure or channel {name!r} (choose from "
                           f"{', '.join(sorted(set(by_kind) | set(trace.channels())))})")
    return picked


def trace_provenance(trace: Trace, full_paths: bool = False) -> Dict[str, str]:
    """The provenance written into every figure of a trace (the source file by its name,
    with FULL_PATHS by its absolute path)."""
    return {
        "model": trace.model,
        "title": trace.attr("title"),
        "job_fingerprint": "",
        "git_commit": trace.attr("git_commit"),
        "engine_version": trace.attr("engine_version"),
        "source_file": os.path.abspath(trace.path) if full_paths else
        os.path.basename(trace.path),
        "run_state": trace.attr("status"),
        "points": trace.attr("source") + (f"; {window_text(trace)}"
                                           if trace_window(trace) else ""),
        "summary": trace_summary(trace),
    }
