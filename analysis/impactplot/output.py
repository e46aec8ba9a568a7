"""output: provenance, file metadata, and writing a figure in each format (PNG, PDF, SVG,
EPS) with TrueType fonts, optionally with a title, a provenance footer and a layout file.

Provenance always goes into the files' metadata (PNG text chunks, the PDF Info
dictionary, SVG Dublin Core, the EPS header); drawing it is optional (--footer).
"""

import json
import os
from typing import Callable, Dict, List, Sequence

import matplotlib
import numpy as np
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.text import Text

from .drawing import Drawn
from .reading import Result
from .style import rc

FORMATS = ("png", "pdf", "svg", "eps")
RUN_STATES = {"created": "running or killed", "running": "resumed, running or killed",
              "interrupted": "interrupted", "failed": "run failed", "complete": "complete"}


def provenance(results: Sequence[Result], full_paths: bool = False) -> Dict[str, str]:
    """The provenance of a figure drawn from RESULTS (items joined by ' ; ' when several
    files are drawn together); the source files by their names (no local path), with
    FULL_PATHS by their absolute paths."""
    def join(values):
        values = list(dict.fromkeys(values))
        return " ; ".join(values)
    points = []
    for r in results:
        total, done, failed, pending = r.points()
        points.append(f"{total} total, {done} done, {failed} failed, {pending} pending")
    return {
        "model": join(r.model for r in results),
        "title": join(r.attr("title") for r in results),
        "job_fingerprint": join(r.attr("job_fingerprint") for r in results),
        "git_commit": join(r.attr("git_commit") for r in results),
        "engine_version": join(r.attr("engine_version") for r in results),
        "source_file": join(os.path.abspath(r.path) if full_paths else
                            os.path.basename(r.path) for r in results),
        "run_state": join(r.run_state for r in results),
        "points": join(points),
    }


def footer_text(prov: Dict[str, str]) -> str:
    """The one-line provenance footer (drawn with --footer)."""
    parts = [f"impactsweep {prov['engine_version']} ({prov['git_commit']})",
             f"model {prov['model']}", f"job {prov['job_fingerprint']}",
             " ; ".join(os.path.basename(s) for s in prov["source_file"].split(" ; "))]
    state = prov["run_state"]
    if state != "complete" or not prov["points"].endswith(" 0 failed, 0 pending"):
        parts.append(f"{RUN_STATES.get(state, state or 'state unknown')}: {prov['points']}")
    return "  |  ".join(parts)


def ascii_text(text: str) -> str:
    """TEXT with anything outside printable ASCII replaced (metadata stays plain,
    searchable bytes)."""
    return "".join(c if 32 <= ord(c) < 127 else "?" for c in text.replace("\n", " "))


def metadata(fmt: str, prov: Dict[str, str], kind: str) -> Dict:
    """The metadata argument of savefig for FMT."""
    title = ascii_text(prov["title"] or f"impactsweep {prov['model']}")
    keywords = "; ".join(f"{k}={prov[k]}" for k in ("model", "job_fingerprint", "git_commit",
                                                    "engine_version", "source_file",
                                                    "run_state"))
    if fmt == "png":
        meta = {"Title": title,
                "Description": ascii_text(f"impactsweep {prov['model']} figure {kind}: "
                                          + footer_text(prov)),
                "Source": ascii_text(prov["source_file"]),
                "Software": f"impactsweep impactplot (matplotlib {matplotlib.__version__})"}
        meta.update({key: ascii_text(value) for key, value in prov.items()})
        meta["figure"] = kind
        return meta
    summary = f"; {prov['summary']}" if prov.get("summary") else ""
    if fmt == "pdf":
        return {"Title": title,
                "Subject": ascii_text(f"impactsweep {prov['model']} result "
                                      f"{prov['source_file']}, figure {kind}{summary}"),
                "Keywords": ascii_text(f"impactsweep; figure={kind}; {keywords}"),
                "Creator": "impactsweep impactplot"}
    if fmt == "svg":
        return {"Title": title, "Creator": "impactsweep impactplot",
                "Description": ascii_text(f"figure {kind}; {keywords}{summary}"),
                "Source": ascii_text(prov["source_file"]),
                "Keywords": ["impactsweep", f"figure={kind}"] +
                            [ascii_text(f"{k}={prov[k]}") for k in
                             ("model", "job_fingerprint", "git_commit", "engine_version")]}
    # eps: DSC comments %%Title and %%Creator
    return {"Title": ascii_text(f"{title} ({kind}; job {prov['job_fingerprint']}; "
                                f"{prov['git_commit']})"),
            "Creator": ascii_text(f"impactsweep impactplot; {keywords}")}


def _text_roles(fig) -> Dict[int, tuple]:
    """id(text) -> (role, axes index) of the texts of FIG's axes: tick labels ('tick',
    the labels drawn only), axis labels, titles and offset texts; (None, i) for tick
    labels not drawn."""
    roles = {}
    for i, ax in enumerate(fig.axes):
        for name, axis in (("x", ax.xaxis), ("y", ax.yaxis)):
            for tick in axis.get_major_ticks() + axis.get_minor_ticks():
                roles[id(tick.label1)] = roles[id(tick.label2)] = (None, f"{i}.{name}")
            if ax.axison and axis.get_visible() and hasattr(axis, "_update_ticks"):
                for tick in axis._update_ticks():  # the ticks drawn: those in view
                    roles[id(tick.label1)] = roles[id(tick.label2)] = ("tick", f"{i}.{name}")
            roles[id(axis.label)] = (f"{name}label", f"{i}.{name}")
            roles[id(axis.get_offset_text())] = ("offset", f"{i}.{name}")
        for t in (ax.title, ax._left_title, ax._right_title):
            roles[id(t)] = ("title", str(i))
    if getattr(fig, "_suptitle", None) is not None:
        roles[id(fig._suptitle)] = ("suptitle", "")
    return roles


def text_records(fig, renderer, height_px: float) -> List[dict]:
    """Every visible, non-empty text of FIG: its string, role (tick, xlabel, ylabel,
    title, suptitle, offset, contour_label, ...), the axes and axis it belongs to
    ('3.y'), rotation and pixel box (origin top left)."""
    roles = _text_roles(fig)
    out = []
    for t in fig.findobj(Text):
        if not t.get_visible() or not t.get_text().strip():
            continue
        role, axis = roles.get(id(t), ("", ""))
        if role is None:  # a tick label outside the view
            continue
        if t.axes is not None and not t.axes.get_visible():
            continue
        b = t.get_window_extent(renderer)
        if b.width <= 0 or b.height <= 0:
            continue
        out.append({"text": t.get_text(), "role": getattr(t, "_impactplot_role", role),
                    "axis": axis, "rotation": float(t.get_rotation()),
                    "bbox_px": [float(b.x0), float(height_px - b.y1), float(b.x1),
                                float(height_px - b.y0)]})
    return out


def axes_records(fig) -> List[dict]:
    """Per axes of FIG (in fig.axes order): its role (panel, colourbar, legend) and
    scales."""
    out = []
    for ax in fig.axes:
        role = "colourbar" if getattr(ax, "_colorbar", None) is not None else \
            ("panel" if ax.axison else "other")
        out.append({"role": role, "xscale": ax.get_xscale(), "yscale": ax.get_yscale()})
    return out


def curve_records(d: Drawn, height_px: float) -> List[dict]:
    """The level curves drawn on D's panel: per level its pieces in pixels (origin top
    left, to 1e-5 pixel: a narrow neck of a curve is not a touch), for checks that
    curves never cross or touch."""
    out = []
    for curves in d.contour_sets:
        for level, pieces, lc in zip(curves.levels, curves.allsegs, curves.collections):
            if not lc.get_visible():
                continue
            px = []
            for piece in pieces:
                p = d.ax.transData.transform(piece)
                px.append([[round(float(x), 5), round(float(height_px - y), 5)] for x, y in p])
            out.append({"field": curves.field, "level": float(level), "pieces": px})
    return out


def point_records(d: Drawn) -> List[List[float]]:
    """The dots of an orbit diagram, [x, y] in data coordinates, read from the artist
    drawn (its offsets), in the file's order of the points and values; [] elsewhere."""
    out = []
    for a in d.artists:
        if getattr(a, "_impactplot_points", None) is None:
            continue
        order = a._impactplot_order
        offsets = a.get_offsets()
        xy = np.empty_like(offsets)
        xy[order] = offsets  # drawn densest last: back to the file's order
        out += [[float(x), float(y)] for x, y in xy]
    return out


def box_px(t, renderer, height_px: float) -> List[float]:
    """The pixel box of text T (origin top left)."""
    b = t.get_window_extent(renderer)
    return [float(b.x0), float(height_px - b.y1), float(b.x1), float(height_px - b.y0)]


def layout_record(fig, drawns: List[Drawn], prov: Dict[str, str], kind: str,
                  dpi: float) -> dict:
    """The figure's layout: size, per panel the pixel box, data limits and scales, class
    colours, contour levels, the facet's source and indices, and every text's box."""
    width, height = fig.get_size_inches()
    renderer = fig.canvas.get_renderer()
    height_px = height * dpi
    records = []
    for d in drawns:
        box = d.ax.get_window_extent(renderer)
        facet = d.facet
        records.append({
            "field": d.variable, "kind": d.kind, "axes": d.axes,
            "xlabel": d.ax.get_xlabel(), "ylabel": d.ax.get_ylabel(),
            "xscale": d.ax.get_xscale(), "yscale": d.ax.get_yscale(),
            "xlim": [float(v) for v in d.ax.get_xlim()],
            "ylim": [float(v) for v in d.ax.get_ylim()],
            "bbox_px": [float(box.x0), float(height_px - box.y1),
                        float(box.x1), float(height_px - box.y0)],
            "classes": d.classes,
            "contours": d.contours,
            "title": d.ax.get_title(),
            "source_file": facet.result.path if facet else "",
            "selection": ({a: int(i) for a, i in facet.plane.selection.items()}
                          if facet else {}),
            "labels": [{"text": t.get_text(), "rotation": float(t.get_rotation()),
                        "level": getattr(t, "_impactplot_level", None),
                        "bbox_px": box_px(t, renderer, height_px)} for t in d.labels],
            "notes": [t.get_text() for t in d.notes],
            "legend": [h.get_label() for h in d.handles],
            "cap": d.cap,
            "curves": curve_records(d, height_px),
            "lines": [{"label": a.get_label(), "x": [float(v) for v in a.get_xdata()],
                       "y": [float(v) for v in a.get_ydata()]} for a in d.artists
                      if getattr(a, "_impactplot_record", False)],
            "points": point_records(d),
        })
    return {"figure": kind, "source_file": prov["source_file"], "model": prov["model"],
            "dpi": dpi, "size_inches": [float(width), float(height)],
            "size_px": [int(fig.bbox.width), int(fig.bbox.height)], "panels": records,
            "colourbars": [ax.get_ylabel() or ax.get_xlabel() for ax in fig.axes
                           if getattr(ax, "_colorbar", None) is not None],
            "suptitle": fig._suptitle.get_text() if getattr(fig, "_suptitle", None) else "",
            "axes": axes_records(fig),
            "texts": text_records(fig, renderer, height_px)}


FOOTER_SIZE = 5.5


def wrap(text: str, width_in: float, size: float, sep: str = " ") -> str:
    """TEXT broken at SEP into lines that fit WIDTH_IN inches at SIZE points (its own
    line breaks kept)."""
    per_line = max(20, int((width_in - 0.15) * 72 / (0.6 * size)))
    lines = []
    for paragraph in text.split("\n"):
        line = ""
        for part in paragraph.split(sep):
            candidate = f"{line}{sep}{part}" if line else part
            if line and len(candidate) > per_line:
                lines.append(line)
                line = part
            else:
                line = candidate
        lines.append(line)
    return "\n".join(lines)


def write_figure(kind: str, draw: Callable[[Figure], List[Drawn]], prov: Dict[str, str],
                 prefix: str, formats: Sequence[str], dpi: float, layout: bool,
                 title: str = "", footer: bool = False) -> List[str]:
    """Make one figure with DRAW (which sizes it), its TITLE if any and the provenance
    footer if asked, and write it in each format (and its layout file); the paths. The
    figure is a matplotlib Figure outside pyplot: no backend is involved or changed."""
    with matplotlib.rc_context(rc()):
        fig = Figure(dpi=dpi, layout="constrained")
        FigureCanvasAgg(fig)  # this figure's own canvas; pyplot's backend is untouched
        drawns = draw(fig)
        width, height = fig.get_size_inches()
        if title:
            fig.suptitle(wrap(title, width, matplotlib.rcParams["figure.titlesize"]))
        if footer:
            text = wrap(footer_text(prov), width, FOOTER_SIZE, sep="  |  ")
            lines = text.count("\n") + 1
            frac = (0.04 + lines * FOOTER_SIZE * 1.3 / 72) / height
            fig.get_layout_engine().set(rect=(0, frac, 1, 1 - frac))
            fig.text(0.01, 0.01 / height, text, fontsize=FOOTER_SIZE, color="0.35",
                     ha="left", va="bottom")
        from .figures import finalize_labels
        finalize_labels(fig, drawns)
        written = []
        for fmt in formats:
            path = f"{prefix}_{kind}.{fmt}"
            fig.savefig(path, format=fmt, dpi=dpi, metadata=metadata(fmt, prov, kind))
            written.append(path)
        if layout:
            fig.canvas.draw()  # at DPI again (PDF and EPS are drawn at 72)
            path = f"{prefix}_{kind}.json"
            with open(path, "w", encoding="utf-8") as f:
                json.dump(layout_record(fig, drawns, prov, kind, dpi), f, indent=1)
                f.write("\n")
            written.append(path)
        return written
