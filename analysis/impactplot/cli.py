"""cli: the impactplot command.

    impactplot FILE [FILE ...] [--output PREFIX] [--format png,pdf,svg,eps]
               [--size single|double|auto|WxH[in|cm|mm]] [--dpi N] [--field NAME[,NAME]]
               [--sel AXIS=VALUE ...] [--facet AXIS ...] [--axes X[,Y]]
               [--title [TEXT]] [--footer] [--layout] [--source-path]

Draws the figures of impactsweep result files (complete, interrupted or still running),
trace files and fit reports (PREFIX_fit: the data, fitted curve and band the report holds),
PREFIX_KIND.FORMAT for each figure kind of the model; the paths written are printed.
Several files of one model go side by side into one figure (n = 3, 4, 5). A file that is
not an impactsweep result file (nor a trace file, nor a fit report) is refused with exit
status 2. An array
output over one axis is drawn as an orbit diagram, with the file's exponent output under
it; an exponent over two axes as a map centred on zero with its zero level (orbit.py).
"""

import argparse
import os
import sys
from typing import List, Optional, Sequence

from . import chatter, collision, fits, orbit, stop_oscillator
from .drawing import (classes_panel, colour_panel, is_categorical, one_class, shared_norm,
                      variable_codes)
from .figures import STRIP, Kind, auto_width, draw_kind
from .output import FORMATS, provenance, write_figure
from .reading import (BadInput, FigurePlan, Result, is_trace_file, note, open_result,
                      open_trace, plan_figures)
from .style import SIZE_PRESETS, parse_size
from .traces import trace_jobs, trace_provenance, trace_window, window_text

PROGRAM = "impactplot"
EXIT_BAD_INPUT = 2
EXIT_NOTHING_TO_DRAW = 1  # also: the figures could not be written

MODEL_KINDS = {
    "chatter": chatter.kinds,
    "collision": collision.kinds,
    "stop-oscillator": stop_oscillator.kinds,
}


# What the model modules know of their models' outputs: which parameter caps them.
MODEL_CAPS = {"chatter": chatter.CAPPED_BY}


def generic_kind(result: Result, name: str) -> Kind:
    """The figure of any variable NAME: a categorical map (not made by default when one
    class fills it), an exponent's map centred on zero (a line over one axis), an array
    output's orbit diagram, or a colour map (lines on one axis), panels sharing one
    scale."""
    if orbit.is_array(result, name):
        return Kind(name, lambda ax, f, s, sub: orbit.orbit_panel(ax, f.result, f.plane, name),
                    draw=lambda fig, plan, *rest: orbit.draw_orbit(fig, plan, name, *rest))
    if orbit.is_exponent(result, name):
        def centred(facets):
            return {"norm": orbit.centred_norm([f.plane.take(f.result.ds[name])
                                                for f in facets])}
        return Kind(name, lambda ax, f, s, sub: orbit.exponent_panel(ax, f.result, f.plane,
                                                                     name, norm=s.get("norm")),
                    prepare=centred, colourbar=True)
    if is_categorical(result, name):
        return Kind(name, lambda ax, f, s, sub: classes_panel(ax, f.result, f.plane, name),
                    one_axis_aspect=STRIP,
                    degenerate=lambda facets: one_class(facets, variable_codes(name)))
    capped_by = MODEL_CAPS.get(result.model, {}).get(name, "")

    def prepare(facets):
        return {"norm": shared_norm([f.plane.take(f.result.ds[name]) for f in facets])}
    return Kind(name, lambda ax, f, s, sub: colour_panel(ax, f.result, f.plane, name,
                                                         norm=s.get("norm"),
                                                         capped_by=capped_by),
                prepare=prepare, colourbar=True)


def made_by_default(plan: FigurePlan, kinds: List[Kind]) -> List[Kind]:
    """KINDS less those whose data would mislead drawn as data (a one-colour map, an
    undecided share that is p_cc itself, a regime map of a horizon too short): each said
    on stderr, with how to draw it anyway."""
    out = []
    for kind in kinds:
        why = kind.degenerate(plan.facets)
        if why:
            note(f"{plan.facets[0].result.path}: figure {kind.name} not made: {why} "
                 f"(--field {kind.name} draws it, with this note on it)")
        else:
            out.append(kind)
    return out


def kinds_for(plan: FigurePlan, fields: Optional[List[str]]) -> List[Kind]:
    """The model's figure kinds, or those FIELDS name (figure kinds or variables)."""
    result = plan.facets[0].result
    planner = MODEL_KINDS.get(result.model)
    kinds = planner(result, plan.plane_axes) if planner else []
    if planner is None:
        note(f"{result.path}: model {result.model!r} has no figure set; drawing its "
             "categorical outputs, its exponents, its array outputs' orbit diagrams (over "
             "one axis) and its first output")
        cats = [o for o in result.outputs if is_categorical(result, o)]
        first = [o for o in result.outputs if not orbit.is_array(result, o)][:1]
        # an array output's orbit diagram where one line is drawn, exponents' maps
        arrays = [o for o in result.outputs if orbit.is_array(result, o)]
        if arrays and (len(plan.plane_axes) != 1 or len(plan.facets) != 1):
            note(f"{result.path}: the orbit diagrams of {', '.join(arrays)} not made: one "
                 "is drawn over one axis (select one line of the grid with --sel)")
            arrays = []
        exps = [o for o in result.outputs if orbit.is_exponent(result, o)]
        kinds = [generic_kind(result, o) for o in dict.fromkeys(cats + arrays + exps + first)]
    if not fields:
        return made_by_default(plan, kinds)
    by_name = {k.name: k for k in kinds}
    out = []
    for name in fields:
        if name in by_name:
            out.append(by_name[name])
        elif name in result.ds.data_vars and set(result.ds[name].dims) & set(plan.plane_axes):
            if orbit.is_array(result, name) and (len(plan.plane_axes) != 1
                                                 or len(plan.facets) != 1):
                dim = orbit.array_dims(result, name)[0]
                others = [a for a in plan.plane_axes[1:]] or \
                    [a for a in result.axes if a not in plan.plane_axes]
                raise BadInput(f"{result.path}: {name} is an array output ({dim}: "
                               f"{result.ds.sizes[dim]} values a point): its orbit diagram "
                               "is drawn over one axis; select one line of the grid, e.g. "
                               f"--sel {others[0]}={float(result.ds[others[0]].values[0]):g}")
            out.append(generic_kind(result, name))
        else:
            choices = sorted(set(by_name) | set(result.outputs) | {"status"})
            raise BadInput(f"{result.path}: no field or figure {name!r} "
                           f"(choose from {', '.join(choices)})")
    return out


def split_list(values: Optional[List[str]]) -> List[str]:
    """Repeated and comma-separated option values as one list."""
    return [v.strip() for text in (values or []) for v in text.split(",") if v.strip()]


def parse_args(argv: Optional[Sequence[str]]) -> argparse.Namespace:
    """The command line."""
    p = argparse.ArgumentParser(
        prog="impactplot",
        description="Draw the figures of impactsweep result files (or trace files) for a "
                    "paper: TrueType fonts, PNG/PDF/SVG/EPS, journal column widths; "
                    "provenance in the files' metadata.")
    p.add_argument("files", nargs="+", metavar="FILE",
                   help="impactsweep result file (.h5), complete or partial; several files "
                        "of one model are drawn side by side in one figure; or a trace "
                        "file, or a fit report (.json) of `impactsweep fit`")
    p.add_argument("--output", "-o", metavar="PREFIX",
                   help="write PREFIX_KIND.FORMAT (default: FILE without .h5; for several "
                        "files their common prefix)")
    p.add_argument("--format", default="png,pdf", metavar="png,pdf",
                   help="comma-separated formats: png, pdf, svg, eps (default png,pdf)")
    p.add_argument("--size", default="auto", metavar="SIZE",
                   help="single (3.5 in wide, one journal column), double (7.2 in), auto "
                        "(single for one panel across, else double; the default), or "
                        "WxH in inches, or with a unit: 89x70mm, 12x8cm")
    p.add_argument("--dpi", type=float, default=300.0,
                   help="resolution of PNG files and of rasterized maps (default 300)")
    p.add_argument("--field", metavar="NAME[,NAME]", action="append",
                   help="draw only these figures (a figure kind of the model, e.g. regime, "
                        "or any output variable; an array output over one axis: its orbit "
                        "diagram, with the file's Lyapunov exponent under it)")
    p.add_argument("--sel", metavar="AXIS=VALUE", action="append",
                   help="draw the slice at this value of an axis (the nearest grid value; "
                        "a choice by name); repeatable")
    p.add_argument("--facet", metavar="AXIS", action="append",
                   help="one panel per value of AXIS (up to two: columns, then rows; "
                        "several files take the columns); repeatable")
    p.add_argument("--axes", metavar="X[,Y]",
                   help="the axes drawn as x (and y); default the first two of the grid")
    p.add_argument("--title", nargs="?", const="", default=None, metavar="TEXT",
                   help="draw a title: TEXT, or without it the job's title (default: none)")
    p.add_argument("--footer", action="store_true",
                   help="draw the provenance line under the figure (it is always in the "
                        "file's metadata)")
    p.add_argument("--source-path", action="store_true",
                   help="record the source files' absolute paths in the figures' metadata "
                        "(default: their names alone, no local path)")
    p.add_argument("--layout", action="store_true",
                   help="also write PREFIX_KIND.json with each panel's pixel box, data "
                        "limits and every text's box (for tests and post-processing)")
    args = p.parse_args(argv)
    args.formats = [f.strip().lower() for f in args.format.split(",") if f.strip()]
    bad = [f for f in args.formats if f not in FORMATS]
    if bad or not args.formats:
        p.error(f"--format: {', '.join(bad) or 'nothing'} (choose from {', '.join(FORMATS)})")
    if not (10 <= args.dpi <= 2400):
        p.error(f"--dpi {args.dpi:g} is outside 10..2400")
    try:
        args.width, args.height = parse_size(args.size)
    except ValueError as e:
        p.error(f"--size: {e}")
    args.fields = split_list(args.field) or None
    args.facets = split_list(args.facet)
    items, args.sel = split_list(args.sel), {}
    for item in items:
        name, eq, value = item.partition("=")
        if not eq or not name.strip() or not value.strip():
            p.error(f"--sel {item}: expected AXIS=VALUE")
        args.sel[name.strip()] = value.strip()
    args.draw_axes = split_list([args.axes]) if args.axes else None
    if args.draw_axes and len(args.draw_axes) > 2:
        p.error("--axes: one or two axes")
    if args.output is None:
        stems = []
        for f in args.files:
            root, ext = os.path.splitext(f)
            stems.append(root if ext.lower() in (".h5", ".hdf5", ".nc", ".json") else f)
        args.output = combined_prefix(stems)
    return args


def combined_prefix(stems: List[str]) -> str:
    """The default output prefix of the files STEMS (without .h5): the one stem, or their
    common start and what differs (chatter_fig67_n3, _n4, _n5 -> chatter_fig67_n3-4-5),
    or DIR/combined."""
    if len(stems) == 1:
        return stems[0]
    common = os.path.commonprefix(stems)
    rests = [s[len(common):] for s in stems]
    if common and not common.endswith("/") and all(rests) and \
            all(len(r) <= 12 and "/" not in r for r in rests):
        return common + "-".join(rests)
    return os.path.join(os.path.dirname(stems[0]), "combined")


def draw_trace_file(args: argparse.Namespace) -> int:
    """Draws the figures of the trace file args.files[0]; the exit status."""
    trace = open_trace(args.files[0])
    jobs = trace_jobs(trace, args.fields)
    prov = trace_provenance(trace, args.source_path)
    make_dirs(args.output)
    for kind, draw, across, aspect in jobs:
        width = args.width or (SIZE_PRESETS["single"] if across == 1 else SIZE_PRESETS["double"])
        height = args.height or min(9.5, width * aspect + 0.5)

        def sized(fig, draw=draw, width=width, height=height):
            fig.set_size_inches(width, height)
            return draw(fig)
        title = args.title if args.title else \
            (f"{trace.attr('title')}\n{prov['summary']}" if args.title == "" else "")
        if not title and trace_window(trace):  # a part of the run is never drawn as the whole
            title = window_text(trace)
        for path in write_figure(kind, sized, prov, args.output, args.formats, args.dpi,
                                 args.layout, title=title, footer=args.footer):
            print(path)
    return 0


def draw_fit_report(args: argparse.Namespace) -> int:
    """Draws the figure of the fit report args.files[0] (no engine run); the exit
    status."""
    doc = fits.open_report(args.files[0])
    if args.fields or args.sel or args.facets or args.draw_axes:
        raise BadInput(f"{args.files[0]}: a fit report is drawn whole (--field, --sel, "
                       "--facet and --axes apply to result files)")
    prov = fits.report_provenance(doc, args.files[0], args.source_path)
    make_dirs(args.output)
    width = args.width or SIZE_PRESETS["single"]
    height = fits.figure_height(doc, width, args.height)

    def draw(fig):
        fig.set_size_inches(width, height)
        return fits.draw_fit(fig, doc)
    for path in write_figure("fit", draw, prov, args.output, args.formats, args.dpi,
                             args.layout, title=args.title or "", footer=args.footer):
        print(path)
    return 0


def make_dirs(prefix: str) -> None:
    out_dir = os.path.dirname(prefix)
    if out_dir:
        os.makedirs(out_dir, exist_ok=True)


def draw_results(args: argparse.Namespace) -> int:
    """Draws the figures of the result files args.files; the exit status."""
    results = [open_result(f) for f in args.files]
    plans = plan_figures(results, args.sel, args.facets, args.draw_axes)
    for n in dict.fromkeys(n for plan in plans for n in plan.notes):
        note(n)
    if len(plans) > 1:
        note(f"{args.files[0]}: one set of figures per choice ({len(plans)}: "
             f"{', '.join(plan.suffix[1:] for plan in plans)})")
    for r in results:
        total, done, failed, pending = r.points()
        inferred = r.inferred()
        if inferred:
            note(f"{r.path}: {inferred} of {total} points inferred by the refinement (drawn "
                 "in their class where the output holds it, else as not computed)")
        if pending - inferred or failed:
            note(f"{r.path}: {done} of {total} points done, {failed} failed, "
                 f"{pending - inferred} not computed (drawn as such)")
    prov = provenance(results, args.source_path)
    title = args.title if args.title else \
        (" ; ".join(dict.fromkeys(r.attr("title") for r in results)) if args.title == ""
         else "")
    make_dirs(args.output)
    for plan in plans:
        kinds = kinds_for(plan, args.fields)
        if not kinds:
            print(f"{PROGRAM}: {args.files[0]}: nothing this tool can draw for model "
                  f"{results[0].model!r} (by default: a figure left out above is drawn "
                  "with --field KIND)", file=sys.stderr)
            return EXIT_NOTHING_TO_DRAW
        for kind in kinds:
            width = args.width or auto_width(kind, plan)

            def draw(fig, kind=kind, plan=plan, width=width):
                return draw_kind(fig, kind, plan, width, args.height, bool(title),
                                 args.footer)
            for path in write_figure(kind.name, draw, prov, args.output + plan.suffix,
                                     args.formats, args.dpi, args.layout, title=title,
                                     footer=args.footer):
                print(path)
    return 0


def main(argv: Optional[Sequence[str]] = None) -> int:
    """Run the command line; the exit status."""
    args = parse_args(argv)
    try:
        if fits.looks_like_report(args.files[0]):  # the JSON report of `impactsweep fit`
            if len(args.files) > 1:
                raise BadInput(f"{args.files[1]}: fit reports are drawn one at a time")
            return draw_fit_report(args)
        if is_trace_file(args.files[0]):  # a trajectory of `impactsweep trace`
            if len(args.files) > 1:
                raise BadInput(f"{args.files[1]}: trace files are drawn one at a time")
            return draw_trace_file(args)
        return draw_results(args)
    except BadInput as e:
        print(f"{PROGRAM}: {' '.join(str(e).split())}", file=sys.stderr)  # one line
        return EXIT_BAD_INPUT
    except OSError as e:  # the output cannot be written
        print(f"{PROGRAM}: cannot write the figures of {args.files[0]}: {e}", file=sys.stderr)
        return EXIT_NOTHING_TO_DRAW
