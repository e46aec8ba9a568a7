"""check_figures.py: checks the figures analysis/impactplot.py drew from a result file.

FIGURE is a figure's path without its extension: FIGURE.png, FIGURE.pdf and the layout
file FIGURE.json written by impactplot.py --layout.

    check_figures.py map FIGURE RESULT --dpi N --inches WxH|W [--classes NAME] [--require A,B]
        the PNG is N dpi and W x H inches (W wide and 1.4 to 9.5 in high: a preset; the
        layout agrees); in every panel of the layout (its own file and slice: facets)
        the colour at the centre of sample cells (cells whose 3 x 3 neighbourhood is one
        class and that no contour line comes near) is the documented colour of the class
        the data give there: with --classes NAME the classes of categorical NAME (`zeno`:
        zeno_resets > 0 or not), and everywhere status 0 -> "not computed", >= 2 ->
        "failed". Classes in --require must have been checked at least once.
    check_figures.py line FIGURE RESULT --dpi N --field NAME [--colour HEX]
        the curve of NAME passes through its data points (pixel near each point with the
        line's colour)
    check_figures.py meta FIGURE RESULT
        the PNG text chunks hold the file's job fingerprint, git commit, engine version,
        model and path; the PDF Info dictionary has Title (the file's title), Subject and
        Keywords naming the source and the fingerprint, and a Creator.
    check_figures.py fonts FILE.pdf|FILE.eps ...
        every font of the PDF (pdffonts) is TrueType and embedded, none Type 3; the EPS
        fonts are Type 42 (their Type 3 fallback for printers without TrueType aside)
    check_figures.py formats FIGURE png,pdf,svg,eps
        FIGURE.FORMAT exists and starts as such a file does
    check_figures.py texts FIGURE
        no two texts of the figure (tick labels drawn, axis labels, titles, legend,
        colour bar, notes, contour labels) overlap, none is upside down or leaves the
        figure, contour labels lie inside a panel
    check_figures.py panels FIGURE --count N [--colourbars K] [--note TEXT] [--titles A,B]
                            [--grid RxC] [--labelled]
        the figure has N panels (in R rows and C columns of one size), K labelled colour
        bars, a panel note containing TEXT, panels titled A, B; --labelled: every level
        curve drawn is labelled
    check_figures.py levels FIGURE
        on every panel with level curves: exactly one label per level drawn (and none of a
        level not drawn; a noisy field's levels, keyed, each in one legend entry instead), the labels' boxes apart (LABEL_GAP pixels), read in the order
        of the levels along their main direction (never 10 20 10, 25 50 25 100), and no
        curve crossing or touching another or itself (the "X" where a count's curve ran
        through grid points at its level)
    check_figures.py colourbars FIGURE [RESULT] --max-chars N
        every colour bar label is one line of at most N characters as read (mathtext
        markup aside), not a long_name of RESULT's variables, its units typeset
    check_figures.py units FIGURE [--x TEXT] [--y TEXT] [--colourbar TEXT]
        no text of the figure shows raw UDUNITS units ("[m s-1]": an exponent outside
        mathtext); the first panel's x and y labels and the colour bar's contain TEXT
    check_figures.py ticks FIGURE
        the tick labels of every axis and colour bar are in one format: all plain
        decimals (on a linear axis with one number of decimals) or all powers of ten
    check_figures.py metadata FIGURE --formats png,pdf,svg,eps [--path DIR] [--expect-path]
        the metadata of FIGURE.FORMAT (PNG text chunks, PDF Info, SVG metadata and title,
        EPS comments) holds no absolute local path (nothing under /work/, /home/, /tmp/,
        DIR (default: the current directory), ...); with --expect-path it names DIR
        (--source-path asked for it)
    check_figures.py notitle FIGURE | title FIGURE --text TEXT
        no title, suptitle or panel header at all; or a title containing TEXT
    check_figures.py nonresult PATH
        writes an HDF5 file (with h5py) that is not an impactsweep result file.

    check_figures.py -
        runs the commands on stdin, one a line (shell quoting), in one process.

Exit status 0 when every check passes, 1 otherwise (the problems on stderr).
"""

import json
import os
import re
import struct
import sys
import zlib

import numpy as np

# The documented colours (docs/guide.md "Figures"; analysis/impactplot.py CLASS_COLOURS), kept
# here on purpose so that a change of the documented table fails the test.
DOCUMENTED = {
    "icc": "#56b4e9", "cc": "#e69f00", "pcc": "#009e73", "flat": "#cc79a7",
    "found": "#e69f00", "none": "#0072b2", "inconclusive": "#cc79a7",
    "separated": "#56b4e9", "no_separation": "#e69f00", "solver_failure": "#c8102e",
    "horizon": "#cc79a7",
    "free": "#009e73", "periodic": "#cc79a7", "impacting": "#0072b2", "failed": "#c8102e",
    "undecided": "#f0e442",
    "zeno": "#cc79a7", "no_zeno": "#f2e79a",
}
NOT_COMPUTED = "#d9d9d9"
FAILED = "#c8102e"
TOLERANCE = 6          # per channel, out of 255
PATCH = 2              # the patch sampled is (2 PATCH + 1)^2 pixels
PATCH_SHARE = 0.8      # share of the patch that must have the colour
MAX_SAMPLES = 6        # cells checked per class

problems = []


def check(ok, what):
    """Record WHAT as a problem unless OK."""
    if not ok:
        problems.append(what)
    return ok


def rgb(hex_colour):
    """'#rrggbb' -> array of 3 ints."""
    h = hex_colour.lstrip("#")
    return np.array([int(h[i:i + 2], 16) for i in (0, 2, 4)])


# ------------------------------------------------------------------------------ PNG / PDF


def png_chunks(path):
    """(type, data) of every chunk of the PNG at PATH."""
    with open(path, "rb") as f:
        data = f.read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError(f"{path} is not a PNG file")
    pos, chunks = 8, []
    while pos < len(data):
        (length,) = struct.unpack(">I", data[pos:pos + 4])
        kind = data[pos + 4:pos + 8].decode("latin-1")
        chunks.append((kind, data[pos + 8:pos + 8 + length]))
        pos += 12 + length
    return chunks


def png_size(path):
    """(width, height) in pixels from the IHDR chunk."""
    for kind, data in png_chunks(path):
        if kind == "IHDR":
            return struct.unpack(">II", data[:8])
    raise ValueError(f"{path} has no IHDR chunk")


def png_text(path):
    """The text chunks (tEXt, zTXt, iTXt) of a PNG as a dict."""
    text = {}
    for kind, data in png_chunks(path):
        if kind == "tEXt":
            key, _, value = data.partition(b"\0")
            text[key.decode("latin-1")] = value.decode("latin-1")
        elif kind == "zTXt":
            key, _, rest = data.partition(b"\0")
            text[key.decode("latin-1")] = zlib.decompress(rest[1:]).decode("latin-1")
        elif kind == "iTXt":
            key, _, rest = data.partition(b"\0")
            compressed, rest = rest[0], rest[2:]
            _, _, rest = rest.partition(b"\0")  # language
            _, _, value = rest.partition(b"\0")  # translated keyword
            value = zlib.decompress(value) if compressed else value
            text[key.decode("latin-1")] = value.decode("utf-8")
    return text


def png_pixels(path):
    """The image as an (height, width, 3) array of 0..255 ints."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.image as mpimg
    img = mpimg.imread(path)
    if img.dtype != np.uint8:
        img = np.round(img * 255).astype(int)
    return img[:, :, :3].astype(int)


def pdf_string(raw, start):
    """The PDF literal string (...) or hex string <...> at RAW[start:]."""
    if raw[start:start + 1] == b"<":
        end = raw.index(b">", start)
        data = bytes.fromhex(raw[start + 1:end].decode("ascii"))
        return data[2:].decode("utf-16-be") if data[:2] == b"\xfe\xff" else data.decode("latin-1")
    out, depth, i = bytearray(), 0, start
    escapes = {b"n": b"\n", b"r": b"\r", b"t": b"\t", b"b": b"\b", b"f": b"\f"}
    while True:
        c = raw[i:i + 1]
        if c == b"\\":
            nxt = raw[i + 1:i + 2]
            if nxt.isdigit():
                m = re.match(rb"[0-7]{1,3}", raw[i + 1:i + 4])
                out.append(int(m.group(0), 8))
                i += 1 + len(m.group(0))
                continue
            out += escapes.get(nxt, nxt)
            i += 2
            continue
        if c == b"(":
            depth += 1
            if depth > 1:
                out += c
        elif c == b")":
            depth -= 1
            if depth == 0:
                break
            out += c
        else:
            out += c
        i += 1
    return out.decode("latin-1")


def pdf_info(path):
    """The entries of the PDF's Info dictionary (the one the trailer names)."""
    with open(path, "rb") as f:
        raw = f.read()
    check(raw.startswith(b"%PDF-"), f"{path} does not start with %PDF-")
    m = re.search(rb"/Info\s+(\d+)\s+0\s+R", raw)
    if not check(m is not None, f"{path}: the trailer names no Info dictionary"):
        return {}
    obj = re.search(rb"(?<![0-9])" + m.group(1) + rb"\s+0\s+obj\s*<<", raw)
    if not check(obj is not None, f"{path}: Info object {m.group(1).decode()} not found"):
        return {}
    info, pos = {}, obj.end()
    end = raw.index(b"endobj", pos)
    for key in re.finditer(rb"/(\w+)\s*([(<])", raw[pos:end]):
        info[key.group(1).decode()] = pdf_string(raw, pos + key.start(2))
    return info


# ------------------------------------------------------------------------------ results


class ResultFile:
    """A result file read with h5py alone (independently of the tool's xarray reading):
    root attributes, axes in grid order, and variables as floats with fills as NaN."""

    def __init__(self, path):
        import h5py
        self.attrs, self.var_attrs, self.values = {}, {}, {}
        with h5py.File(path, "r") as f:
            self.attrs = {k: text(v) for k, v in f.attrs.items()}
            self.axes = self.attrs["axes"].split()
            for name, dset in f.items():
                if not isinstance(dset, h5py.Dataset) or dset.dtype.kind not in "iuf":
                    continue
                attrs = {k: text(v) for k, v in dset.attrs.items()
                         if k not in ("DIMENSION_LIST", "REFERENCE_LIST", "CLASS", "NAME")}
                data = np.asarray(dset[()], dtype=float)
                if "_FillValue" in dset.attrs:
                    data[data == float(np.asarray(dset.attrs["_FillValue"]).ravel()[0])] = np.nan
                self.var_attrs[name], self.values[name] = attrs, data


def text(value):
    """An HDF5 attribute as a string."""
    if isinstance(value, bytes):
        return value.decode("utf-8")
    if isinstance(value, np.ndarray) and value.size == 1:
        value = value.ravel()[0]
    return str(value)


def load(path):
    """The result file."""
    return ResultFile(path)


def plane_values(ds, name, axes, selection=None):
    """Variable NAME (over all axes, in grid order) over AXES ([x] or [x, y]), the other
    axes at their SELECTION index (default the first)."""
    v = ds.values[name]
    selection = selection or {}
    index = tuple(slice(None) if a in axes else selection.get(a, 0) for a in ds.axes)
    kept = [a for a in ds.axes if a in axes]
    return np.transpose(v[index], [kept.index(a) for a in axes])


def expected_classes(ds, axes, classes, selection=None):
    """Per cell the documented class name the figure must show there, or None."""
    status = plane_values(ds, "status", axes, selection)
    names = np.full(status.shape, None, dtype=object)
    if classes == "zeno":
        z = plane_values(ds, "zeno_resets", axes, selection)
        names[np.isfinite(z)] = np.where(z[np.isfinite(z)] > 0, "zeno", "no_zeno")
    elif classes:
        words = ds.var_attrs[classes]["flag_meanings"].split()
        codes = plane_values(ds, classes, axes, selection)
        for i, w in enumerate(words):
            names[codes == i] = w
    # a point a refinement inferred (status 7) shows the class its output holds, else
    # "not computed" (its other outputs are not computed)
    inferred = status == 7
    names[inferred & np.equal(names, None)] = "not computed"
    names[status == 0] = "not computed"
    names[(status >= 2) & ~inferred] = "failed"
    return names


def colour_of(name):
    """The documented colour of a class name (or of the status classes)."""
    return {"not computed": NOT_COMPUTED, "failed": FAILED}.get(name) or DOCUMENTED[name]


def to_pixel(panel, x, y):
    """Pixel (column, row) of data point (x, y) in PANEL (y None: the middle of a strip)."""
    left, top, right, bottom = panel["bbox_px"]

    def frac(v, lim, scale):
        if scale == "log":
            v, lim = np.log10(v), np.log10(lim)
        return (v - lim[0]) / (lim[1] - lim[0])
    col = left + frac(x, panel["xlim"], panel["xscale"]) * (right - left)
    fy = 0.5 if y is None else frac(y, panel["ylim"], panel["yscale"])
    row = bottom - fy * (bottom - top)
    return int(round(col)), int(round(row))


def near_contour(ds, panel, axes, i, j):
    """Whether a contour line of the panel can pass within a cell of cell (i, j)."""
    c = panel.get("contours")
    if not c:
        return False
    v = plane_values(ds, c["field"], axes, panel.get("selection"))
    block = v[max(0, i - 1):i + 2, max(0, j - 1):j + 2]
    block = block[np.isfinite(block)]
    if block.size == 0:
        return False
    # the value a curve is drawn at (a count's 20 at 19.5), and the level itself
    values = list(c["levels"]) + list(c.get("cuts") or [])
    return any(block.min() <= level <= block.max() for level in values)


def inside(panel, coords, i, j, texts=()):
    """Whether the patch around cell (i, j)'s centre lies within the panel, off its frame
    (a filled-contour map ends at the outer grid values, so its edge cells are cut) and
    off every text drawn over it (notes, contour labels: their boxes are in the layout)."""
    left, top, right, bottom = panel["bbox_px"]
    y = coords[1][j] if len(coords) > 1 else None
    col, row = to_pixel(panel, coords[0][i], y)
    margin = PATCH + 2
    if any(b[0] - margin <= col <= b[2] + margin and b[1] - margin <= row <= b[3] + margin
           for b in (t["bbox_px"] for t in texts)):
        return False
    return left + margin <= col <= right - margin and top + margin <= row <= bottom - margin


def uniform_cells(names):
    """Cells whose existing 3 x 3 neighbourhood all have the same (not None) class."""
    cells = {}
    nx = names.shape[0]
    ny = names.shape[1] if names.ndim == 2 else 1
    grid = names.reshape(nx, ny)
    for i in range(nx):
        for j in range(ny):
            here = grid[i, j]
            if here is None:
                continue
            block = grid[max(0, i - 1):i + 2, max(0, j - 1):j + 2]
            if all(b == here for b in block.ravel()):
                cells.setdefault(here, []).append((i, j))
    return cells


def patch_share(pixels, col, row, colour):
    """Share of the patch around (col, row) within TOLERANCE of COLOUR."""
    patch = pixels[max(0, row - PATCH):row + PATCH + 1, max(0, col - PATCH):col + PATCH + 1]
    close = np.all(np.abs(patch - rgb(colour)) <= TOLERANCE, axis=-1)
    return float(close.mean()) if close.size else 0.0


# ------------------------------------------------------------------------------ commands


def check_size(png, layout, dpi, inches):
    """The PNG's pixel size against --dpi and the figure size."""
    width, height = png_size(png)
    if inches[1] is None:  # a preset: the width given, the height what fits the panels
        check(abs(width - inches[0] * dpi) < 1 and 1.4 * dpi - 1 <= height <= 9.5 * dpi + 1,
              f"{png}: {width} x {height} pixels, expected {round(inches[0] * dpi)} wide "
              f"({inches[0]:g} in at {dpi:g} dpi) and 1.4 to 9.5 in high")
        inches = (inches[0], height / dpi)
    want = (round(inches[0] * dpi), round(inches[1] * dpi))
    check(abs(width - inches[0] * dpi) < 1 and abs(height - inches[1] * dpi) < 1,
          f"{png}: {width} x {height} pixels, expected {want[0]} x {want[1]} "
          f"({inches[0]:g} x {inches[1]:g} in at {dpi:g} dpi)")
    check(tuple(layout["size_px"]) == (width, height),
          f"{png}: the layout says {layout['size_px']}, the image is {width} x {height}")
    check(abs(layout["dpi"] - dpi) < 1e-9, f"{png}: the layout says {layout['dpi']} dpi")


def command_map(png, layout_path, result, dpi, inches, classes, require):
    """See the module docstring."""
    with open(layout_path) as f:
        layout = json.load(f)
    check_size(png, layout, dpi, inches)
    files = {}
    pixels = png_pixels(png)
    for panel in layout["panels"]:
        source = panel.get("source_file") or result
        ds = files.setdefault(source, load(source))
        axes = panel["axes"]
        for name, colour in panel.get("classes", {}).items():
            if name in DOCUMENTED or name in ("not computed", "failed"):
                check(colour.lower() == colour_of(name),
                      f"{layout_path}: class {name} is {colour}, documented {colour_of(name)}")
        categorical = panel["kind"] in ("classes", "strip")
        names = expected_classes(ds, axes, classes if categorical else None,
                                 panel.get("selection"))
        if not categorical:  # a colour map: an inferred point's value, if any, is drawn
            v = plane_values(ds, panel["field"].split(",")[0], axes, panel.get("selection"))
            status = plane_values(ds, "status", axes, panel.get("selection"))
            names[(status == 7) & np.isfinite(v)] = None
        coords = [ds.values[a] for a in axes]
        checked = {}
        for name, cells in sorted(uniform_cells(names).items()):
            cells = [c for c in cells if not near_contour(ds, panel, axes, *c)
                     and inside(panel, coords, *c, layout.get("texts", ()))]
            if not cells:
                continue
            spread = np.linspace(0, len(cells) - 1, min(MAX_SAMPLES, len(cells))).astype(int)
            picks = [cells[k] for k in np.unique(spread)]
            for i, j in picks:
                x = coords[0][i]
                y = coords[1][j] if len(axes) > 1 else None
                col, row = to_pixel(panel, x, y)
                share = patch_share(pixels, col, row, colour_of(name))
                got = pixels[row, col]
                check(share >= PATCH_SHARE,
                      f"{png} [{panel['field']}]: at {axes[0]} = {x:.4g}"
                      + (f", {axes[1]} = {y:.4g}" if y is not None else "")
                      + f" (pixel {col}, {row}) the class is {name}, colour "
                      f"{colour_of(name)}, but the pixel is #{''.join(f'{c:02x}' for c in got)}"
                      f" ({share:.0%} of the patch matches)")
            checked[name] = len(picks)
        for name in require:
            check(name in checked, f"{png} [{panel['field']}]: no cell of class {name} well "
                                   "inside a region of it (and away from contour lines) to check")
        print(f"    {png} [{panel['field']} {panel.get('title', '')}]: checked " +
              (", ".join(f"{n} at {k} cells" for n, k in checked.items()) or "nothing"))


def command_line(png, layout_path, result, dpi, name, colour):
    """See the module docstring."""
    with open(layout_path) as f:
        layout = json.load(f)
    check_size(png, layout, dpi, layout["size_inches"])
    ds = load(result)
    pixels = png_pixels(png)
    panel = layout["panels"][0]
    axis = panel["axes"][0]
    x = ds.values[axis]
    y = plane_values(ds, name, [axis])
    ok, total = 0, 0
    for xi, yi in zip(x, y):
        if not np.isfinite(yi):
            continue
        col, row = to_pixel(panel, xi, yi)
        patch = pixels[max(0, row - 2):row + 3, max(0, col - 2):col + 3]
        total += 1
        if np.any(np.all(np.abs(patch - rgb(colour)) <= 40, axis=-1)):
            ok += 1
    check(total > 0 and ok == total, f"{png}: the {name} curve passes {ok} of {total} data points")
    print(f"    {png}: the {name} curve passes its {total} data points")


def command_meta(png, pdf, result):
    """See the module docstring."""
    ds = load(result)
    want = {k: str(ds.attrs[k]) for k in ("job_fingerprint", "git_commit", "engine_version",
                                          "model", "title")}
    text = png_text(png)
    for key in ("job_fingerprint", "git_commit", "engine_version", "model"):
        check(text.get(key) == want[key], f"{png}: text chunk {key} = {text.get(key)!r}, "
                                          f"expected {want[key]!r}")
    check(want["job_fingerprint"] in text.get("Description", ""),
          f"{png}: the Description chunk does not name the job fingerprint")
    check(text.get("source_file", "").endswith(result.split("/")[-1]),
          f"{png}: source_file chunk {text.get('source_file')!r}")
    info = pdf_info(pdf)
    check(info.get("Title") == want["title"], f"{pdf}: /Title {info.get('Title')!r}, "
                                              f"expected {want['title']!r}")
    keywords = info.get("Keywords", "")
    for key in ("job_fingerprint", "git_commit", "engine_version", "model"):
        check(f"{key}={want[key]}" in keywords, f"{pdf}: /Keywords {keywords!r} lacks {key}")
    check(result.split("/")[-1] in info.get("Subject", ""),
          f"{pdf}: /Subject {info.get('Subject')!r} does not name the source file")
    check(bool(info.get("Creator")), f"{pdf}: no /Creator")
    print(f"    {png}, {pdf}: provenance of job {want['job_fingerprint']} present")


def command_fonts(paths):
    """See the module docstring."""
    import subprocess
    for path in paths:
        if path.endswith(".eps"):
            with open(path, "rb") as f:
                raw = f.read()
            check(raw.startswith(b"%!PS-Adobe-3.0 EPSF"), f"{path}: not an EPS file")
            check(b"/FontType 42" in raw, f"{path}: no TrueType (Type 42) font embedded")
            # matplotlib's Type 42 fonts carry a Type 3 fallback for printers without a
            # TrueType rasterizer (after "resourcestatus"); no other Type 3 font may occur
            for m in re.finditer(rb"/FontType 3 def", raw):
                check(b"resourcestatus" in raw[max(0, m.start() - 300):m.start()],
                      f"{path}: a Type 3 font at byte {m.start()}")
            print(f"    {path}: Type 42 fonts, no Type 3")
            continue
        out = subprocess.run(["pdffonts", path], capture_output=True, text=True)
        if not check(out.returncode == 0, f"{path}: pdffonts failed: {out.stderr.strip()}"):
            continue
        rows = out.stdout.splitlines()[2:]
        check(bool(rows), f"{path}: pdffonts lists no font")
        for row in rows:
            check("Type 3" not in row, f"{path}: a Type 3 font: {row}")
            check("TrueType" in row, f"{path}: not a TrueType font: {row}")
            fields = row.split()
            # name type... encoding emb sub uni object ID: emb is the 6th from the end
            check(len(fields) >= 7 and fields[-5] == "yes", f"{path}: a font not embedded: {row}")
        print(f"    {path}: {len(rows)} fonts, all TrueType and embedded")


SIGNATURES = {"png": b"\x89PNG\r\n\x1a\n", "pdf": b"%PDF-", "eps": b"%!PS-Adobe-3.0 EPSF",
              "svg": b"<?xml"}


def command_formats(figure, formats):
    """See the module docstring."""
    for fmt in formats:
        path = f"{figure}.{fmt}"
        try:
            with open(path, "rb") as f:
                head = f.read(4096)
        except OSError as e:
            check(False, f"{path}: {e}")
            continue
        check(head.startswith(SIGNATURES[fmt]), f"{path}: does not start as a {fmt} file")
        if fmt == "svg":
            check(b"<svg" in head, f"{path}: no <svg> element")
        print(f"    {path}: a {fmt} file")


def boxes_overlap(a, b, pad=0.5):
    """Whether pixel boxes A and B (left, top, right, bottom) overlap by more than PAD."""
    return a[0] + pad < b[2] and b[0] + pad < a[2] and a[1] + pad < b[3] and b[1] + pad < a[3]


def command_texts(figure):
    """See the module docstring."""
    with open(f"{figure}.json") as f:
        layout = json.load(f)
    texts = layout["texts"]
    width, height = layout["size_px"]
    for t in texts:
        r = (t["rotation"] + 180) % 360 - 180
        check(-90 <= r <= 90, f"{figure}: text {t['text']!r} upside down ({t['rotation']:g} deg)")
        b = t["bbox_px"]
        check(b[0] >= -1 and b[1] >= -1 and b[2] <= width + 1 and b[3] <= height + 1,
              f"{figure}: text {t['text']!r} leaves the figure: {b}")
    for i, a in enumerate(texts):
        for b in texts[i + 1:]:
            check(not boxes_overlap(a["bbox_px"], b["bbox_px"]),
                  f"{figure}: texts {a['text']!r} and {b['text']!r} overlap "
                  f"({[round(v) for v in a['bbox_px']]}, {[round(v) for v in b['bbox_px']]})")
    labels = [t for t in texts if t["role"] == "contour_label"]
    for t in labels:
        check(any(p["bbox_px"][0] <= t["bbox_px"][0] and t["bbox_px"][2] <= p["bbox_px"][2]
                  and p["bbox_px"][1] <= t["bbox_px"][1] and t["bbox_px"][3] <= p["bbox_px"][3]
                  for p in layout["panels"]),
              f"{figure}: contour label {t['text']!r} is not inside a panel")
    print(f"    {figure}: {len(texts)} texts, none overlapping or upside down "
          f"({len(labels)} contour labels)")


def command_panels(figure, count, colourbars, note, titles, grid, labelled=False):
    """See the module docstring."""
    with open(f"{figure}.json") as f:
        layout = json.load(f)
    panels = layout["panels"]
    if labelled:
        for p in panels:
            c = p.get("contours")
            if not check(bool(c and c["levels"]), f"{figure}: a panel without level curves"):
                continue
            named = {l["text"] for l in p["labels"]}
            if c.get("keyed"):  # a noisy field: its levels named in the legend
                named = {e.rpartition(" = ")[2] for e in p.get("legend", []) if " = " in e}
            missing = sorted({f"{v:g}" for v in c["levels"]} - named, key=float)
            check(not missing, f"{figure}: level curves {', '.join(missing)} drawn but not "
                               f"labelled ({p.get('title', '')})")
    check(len(panels) == count, f"{figure}: {len(panels)} panels, expected {count}")
    if colourbars is not None:
        bars = layout.get("colourbars", [])
        check(len(bars) == colourbars, f"{figure}: {len(bars)} colour bars, expected {colourbars}")
        check(all(b.strip() for b in bars), f"{figure}: a colour bar without a label: {bars}")
    if note:
        notes = [" ".join(n.split()) for p in panels for n in p.get("notes", [])]  # wrapped
        check(any(note in n for n in notes), f"{figure}: no panel note {note!r} (notes: {notes})")
    if titles:
        got = [p.get("title", "") for p in panels]
        for t in titles:
            check(any(t in g for g in got), f"{figure}: no panel titled {t!r} (titles: {got})")
    if grid:
        rows, cols = grid
        lefts = sorted({round(p["bbox_px"][0]) for p in panels})
        tops = sorted({round(p["bbox_px"][1]) for p in panels})
        check((len(tops), len(lefts)) == (rows, cols),
              f"{figure}: panels in {len(tops)} rows and {len(lefts)} columns, expected "
              f"{rows} x {cols}")
        sizes = {(round(b[2] - b[0]), round(b[3] - b[1])) for b in (p["bbox_px"] for p in panels)}
        check(max(w for w, _ in sizes) - min(w for w, _ in sizes) <= 2 and
              max(h for _, h in sizes) - min(h for _, h in sizes) <= 2,
              f"{figure}: the panels differ in size: {sorted(sizes)}")
    print(f"    {figure}: {len(panels)} panels as expected")


LABEL_GAP = 1.0          # pixels between contour labels at least
ABSOLUTE_PATH = re.compile(r"(?<![\w.])/(?:work|home|tmp|root|Users|scratch|mnt|var|opt|"
                           r"usr|data|gpfs|lustre|project|p)/")


def label_level(text):
    """The level a contour label names: '0.5', '-2', '$2\\times10^{-5}$'."""
    t = text.replace("\u2212", "-").strip("$ ")
    m = re.fullmatch(r"(-?)(?:([0-9.]+)\\times)?10\^\{(-?\d+)\}", t)
    if m:
        return float(f"{m.group(1)}{m.group(2) or '1'}e{m.group(3)}")
    return float(t)


def principal_order(centres, levels, apart=2.0):
    """Whether LEVELS rise or fall throughout along the main direction of CENTRES, the
    labels at least APART pixels from one another along it."""
    if len(levels) < 3:
        return True
    c = np.asarray(centres, dtype=float)
    c = c - c.mean(axis=0)
    axis = np.linalg.svd(c, full_matrices=False)[2][0]
    proj = c @ axis
    order = np.argsort(proj, kind="stable")
    d = np.diff(np.asarray(levels, dtype=float)[order])
    return bool((np.all(d > 0) or np.all(d < 0)) and np.all(np.diff(proj[order]) >= apart))


def segments_cross(a, b, same=False):
    """Whether polyline pieces A and B (lists of [x, y]) cross or touch; with SAME (B is
    A), whether A touches itself (neighbouring segments, and a closed loop's first and
    last, aside)."""
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    if len(a) < 2 or len(b) < 2:
        return False
    p, r = a[:-1], a[1:] - a[:-1]
    q, s = b[:-1], b[1:] - b[:-1]
    lo_a, hi_a = np.minimum(a[:-1], a[1:]), np.maximum(a[:-1], a[1:])
    lo_b, hi_b = np.minimum(b[:-1], b[1:]), np.maximum(b[:-1], b[1:])
    near = np.all(lo_a[:, None, :] <= hi_b[None, :, :] + 1e-6, axis=2) & \
        np.all(lo_b[None, :, :] <= hi_a[:, None, :] + 1e-6, axis=2)
    if same:
        n = len(p)
        i, j = np.indices((n, n))
        near &= j >= i + 2
        if np.allclose(a[0], a[-1]):
            near &= ~((i == 0) & (j == n - 1))
    i, j = np.nonzero(near)
    if i.size == 0:
        return False
    rxs = r[i, 0] * s[j, 1] - r[i, 1] * s[j, 0]
    qp = q[j] - p[i]
    t = qp[:, 0] * s[j, 1] - qp[:, 1] * s[j, 0]
    u = qp[:, 0] * r[i, 1] - qp[:, 1] * r[i, 0]
    ok = np.abs(rxs) > 1e-12
    tt, uu = t[ok] / rxs[ok], u[ok] / rxs[ok]
    return bool(np.any((tt >= 0) & (tt <= 1) & (uu >= 0) & (uu <= 1)))


def curves_touch(curves):
    """(level, level) of the first two pieces of the curves (any levels, one field) that
    cross or touch, or a piece that touches itself (an X where a count's curve ran
    through a grid point at its level); None if none do."""
    pieces = [(c["field"], c["level"], np.asarray(p, dtype=float))
              for c in curves for p in c["pieces"]]
    for i, (fa, la, a) in enumerate(pieces):
        if segments_cross(a, a, same=True):
            return la, la
        for fb, lb, b in pieces[i + 1:]:
            if fa == fb and segments_cross(a, b):
                return la, lb
    return None


def command_levels(figure):
    """See the module docstring."""
    with open(f"{figure}.json") as f:
        layout = json.load(f)
    labels = [t for t in layout["texts"] if t["role"] == "contour_label"]
    total = 0
    for n, p in enumerate(layout["panels"]):
        box = p["bbox_px"]
        mine = [t for t in labels if box[0] <= t["bbox_px"][0] and t["bbox_px"][2] <= box[2]
                and box[1] <= t["bbox_px"][1] and t["bbox_px"][3] <= box[3]]
        drawn = [float(v) for v in ((p.get("contours") or {}).get("levels") or [])]
        where = f"{figure} panel {n} ({p.get('title', '')})"
        if (p.get("contours") or {}).get("keyed"):
            # a noisy field (levels in several pieces, or running together): no labels on
            # the lines, each level once in the legend ("symbol = level") in its own style
            check(not mine, f"{where}: a keyed field with labels on its lines")
            keyed = [label_level(e.rpartition(" = ")[2]) for e in p.get("legend", [])
                     if " = " in e]
            for v in drawn:
                k = sum(1 for x in keyed if abs(x - v) <= 1e-9 * max(1.0, abs(v)))
                check(k == 1, f"{where}: {k} legend entries of the level {v:g}; one each")
            mine, drawn = [], []
        levels = [label_level(t["text"]) for t in mine]
        for v in sorted(set(drawn) | set(levels)):
            k = sum(1 for x in levels if abs(x - v) <= 1e-9 * max(1.0, abs(v)))
            check(k == 1 or (k == 0 and v not in drawn),
                  f"{where}: {k} labels of the level {v:g} (drawn: {v in drawn}); one each")
        for i, a in enumerate(mine):
            for b in mine[i + 1:]:
                check(not boxes_overlap(a["bbox_px"], b["bbox_px"], pad=-LABEL_GAP),
                      f"{where}: labels {a['text']!r} and {b['text']!r} closer than "
                      f"{LABEL_GAP:g} px")
        centres = [((b[0] + b[2]) / 2, (b[1] + b[3]) / 2) for b in (t["bbox_px"] for t in mine)]
        check(principal_order(centres, levels),
              f"{where}: the labels interleave: "
              + " ".join(t["text"] for t in sorted(mine, key=lambda t: t["bbox_px"][0])))
        curves = p.get("curves")
        check(curves is not None or not drawn, f"{where}: the layout has no curves")
        touch = curves_touch(curves or [])
        check(touch is None, f"{where}: level curves touch or cross (levels "
                             f"{touch[0]:g} and {touch[1]:g})" if touch else "")
        total += len(mine)
    print(f"    {figure}: {total} contour labels, one per level (or a legend entry each), "
          "apart and in level order")


def visible(label):
    """LABEL as read (mathtext markup dropped)."""
    text = re.sub(r"\\(mathrm|mathit|bar|hat|tilde)\b", "", label)
    text = re.sub(r"\\[A-Za-z]+", "x", text)
    return re.sub(r"[${}^_\\]", "", text)


def raw_udunits(text):
    """The raw UDUNITS units in TEXT outside mathtext ('[m s-1]'), or ''."""
    plain = re.sub(r"\$[^$]*\$", "", text)
    m = re.search(r"\[[^\]]*?(?<![A-Za-z])[A-Za-z]{1,3}(?:\^|\*\*)?-?\d[^\]]*\]", plain)
    return m.group(0) if m else ""


def long_names(result):
    if not result:
        return set()
    import h5py
    out = set()
    with h5py.File(result, "r") as f:
        for dset in f.values():
            if "long_name" in dset.attrs:
                out.add(text(dset.attrs["long_name"]).strip())
    return out


def command_colourbars(figure, result, max_chars):
    """See the module docstring."""
    with open(f"{figure}.json") as f:
        layout = json.load(f)
    names = long_names(result)
    bars = layout.get("colourbars", [])
    check(bool(bars), f"{figure}: no colour bar")
    for label in bars:
        check("\n" not in label, f"{figure}: colour bar label {label!r} has several lines")
        check(len(visible(label)) <= max_chars,
              f"{figure}: colour bar label {label!r} is {len(visible(label))} characters, "
              f"at most {max_chars}")
        check(not any(n and n in label for n in names),
              f"{figure}: colour bar label {label!r} is a variable's long_name")
        check(not raw_udunits(label), f"{figure}: colour bar label {label!r}: raw units")
    print(f"    {figure}: colour bars {bars}: short, one line")


def command_units(figure, x, y, colourbar):
    """See the module docstring."""
    with open(f"{figure}.json") as f:
        layout = json.load(f)
    for t in layout["texts"]:
        bad = raw_udunits(t["text"])
        check(not bad, f"{figure}: raw UDUNITS units {bad!r} in {t['text']!r}")
    p = layout["panels"][0]
    for want, got, what in ((x, p["xlabel"], "x label"), (y, p["ylabel"], "y label"),
                            (colourbar, " ".join(layout.get("colourbars", [])), "colour bar")):
        if want:
            check(want in got, f"{figure}: the {what} {got!r} lacks {want!r}")
    print(f"    {figure}: units typeset")


PLAIN = re.compile(r"[\u2212-]?\d+(\.\d+)?")
POWER = re.compile(r"\$[\u2212-]?(\d+(\.\d+)?\\times)?10\^\{[\u2212-]?\d+\}\$")


def tick_kind(label):
    """'plain' (0.05, \u22121.5), 'power' ($10^{-5}$, $2\\times10^{-5}$) or the label
    itself; matplotlib's $\\mathdefault{...}$ wrapper aside."""
    m = re.fullmatch(r"\$\\mathdefault\{(.*)\}\$", label)
    inner = m.group(1) if m else label
    inner = inner.removeprefix("\u2265")  # a capped colour bar's top: 200 or more
    if PLAIN.fullmatch(inner):
        return "plain", inner
    if POWER.fullmatch(inner) or POWER.fullmatch(f"${inner}$"):
        return "power", inner
    return label, inner


def command_ticks(figure):
    """See the module docstring."""
    with open(f"{figure}.json") as f:
        layout = json.load(f)
    axes = layout.get("axes")
    ticks = [t for t in layout["texts"] if t["role"] == "tick"]
    if not check(axes is not None and all("axis" in t for t in ticks) and ticks,
                 f"{figure}: the layout does not say which axis a tick label is on"):
        return
    by_axis = {}
    for t in ticks:
        by_axis.setdefault(t["axis"], []).append(t["text"])
    for key, labels in sorted(by_axis.items()):
        index, name = key.split(".")
        scale = axes[int(index)][f"{name}scale"]
        kinds = {tick_kind(s)[0] for s in labels}
        check(len(kinds) == 1 and kinds <= {"plain", "power"},
              f"{figure}: axis {key} ({axes[int(index)]['role']}) mixes formats: {labels}")
        if kinds == {"plain"} and scale == "linear":
            inner = [tick_kind(s)[1] for s in labels]
            decimals = {len(s.split(".")[1]) if "." in s else 0 for s in inner}
            check(len(decimals) == 1,
                  f"{figure}: axis {key} ({axes[int(index)]['role']}) has labels with "
                  f"different numbers of decimals: {labels}")
    print(f"    {figure}: {len(by_axis)} axes, each in one number format")


def metadata_texts(figure, fmt):
    """The metadata of FIGURE.FMT as (field, text) pairs."""
    path = f"{figure}.{fmt}"
    if fmt == "png":
        return list(png_text(path).items())
    if fmt == "pdf":
        return list(pdf_info(path).items())
    with open(path, "rb") as f:
        raw = f.read().decode("latin-1")
    if fmt == "svg":
        meta = re.findall(r"<metadata>.*?</metadata>|<title>.*?</title>|<!--.*?-->", raw,
                          re.S)
        return [("svg", m) for m in meta]
    return [("eps", line) for line in raw.splitlines() if line.startswith("%%")]


def command_metadata(figure, formats, path, expect_path):
    """See the module docstring."""
    for fmt in formats:
        fields = metadata_texts(figure, fmt)
        check(bool(fields), f"{figure}.{fmt}: no metadata found")
        found = [(k, v) for k, v in fields if path in v]
        if expect_path:
            check(bool(found), f"{figure}.{fmt}: --source-path, but no field names {path}")
            continue
        for k, v in fields:
            check(path not in v and not ABSOLUTE_PATH.search(v),
                  f"{figure}.{fmt}: metadata {k} holds a local path: {v[:200]!r}")
    print(f"    {figure}: metadata of {', '.join(formats)} "
          + ("names the source's path" if expect_path else "without local paths"))


def command_title(figure, want):
    """See the module docstring."""
    with open(f"{figure}.json") as f:
        layout = json.load(f)
    titles = [t["text"] for t in layout["texts"] if t["role"] in ("title", "suptitle")]
    titles += [p.get("title", "") for p in layout["panels"] if p.get("title")]
    if layout.get("suptitle"):
        titles.append(layout["suptitle"])
    if want is None:
        check(not titles, f"{figure}: a title without --title: {titles}")
        print(f"    {figure}: no title")
    else:
        check(any(want in t for t in titles), f"{figure}: no title with {want!r}: {titles}")
        print(f"    {figure}: titled {want!r}")


def command_nonresult(path):
    """See the module docstring."""
    import h5py
    with h5py.File(path, "w") as f:
        f["rho"] = np.linspace(0, 1, 5)
        f.attrs["model"] = "chatter"
        f.attrs["title"] = "looks like a result, but is none"


def parser():
    """The command line's parser (one subcommand per check)."""
    import argparse
    p = argparse.ArgumentParser(prog="check_figures.py")
    sub = p.add_subparsers(dest="command", required=True)
    m = sub.add_parser("map")
    m.add_argument("figure")
    m.add_argument("result")
    m.add_argument("--dpi", type=float, required=True)
    m.add_argument("--inches", required=True)
    m.add_argument("--classes")
    m.add_argument("--require", default="",
                   help="comma-separated classes that must be found and checked")
    ln = sub.add_parser("line")
    ln.add_argument("figure")
    ln.add_argument("result")
    ln.add_argument("--dpi", type=float, required=True)
    ln.add_argument("--field", required=True)
    ln.add_argument("--colour", default="#1f77b4")
    mt = sub.add_parser("meta")
    mt.add_argument("figure")
    mt.add_argument("result")
    nr = sub.add_parser("nonresult")
    nr.add_argument("path")
    fo = sub.add_parser("fonts")
    fo.add_argument("paths", nargs="+")
    fm = sub.add_parser("formats")
    fm.add_argument("figure")
    fm.add_argument("formats")
    tx = sub.add_parser("texts")
    tx.add_argument("figure")
    pa = sub.add_parser("panels")
    pa.add_argument("figure")
    pa.add_argument("--count", type=int, required=True)
    pa.add_argument("--colourbars", type=int)
    pa.add_argument("--note")
    pa.add_argument("--titles", default="")
    pa.add_argument("--grid", help="RxC")
    pa.add_argument("--labelled", action="store_true",
                    help="every panel has level curves, each level labelled")
    lv = sub.add_parser("levels")
    lv.add_argument("figure")
    cb = sub.add_parser("colourbars")
    cb.add_argument("figure")
    cb.add_argument("result", nargs="?")
    cb.add_argument("--max-chars", type=int, required=True)
    un = sub.add_parser("units")
    un.add_argument("figure")
    un.add_argument("--x")
    un.add_argument("--y")
    un.add_argument("--colourbar")
    tk = sub.add_parser("ticks")
    tk.add_argument("figure")
    md = sub.add_parser("metadata")
    md.add_argument("figure")
    md.add_argument("--formats", required=True)
    md.add_argument("--path", help="the local directory (default: the current one)")
    md.add_argument("--expect-path", action="store_true")
    nt = sub.add_parser("notitle")
    nt.add_argument("figure")
    ti = sub.add_parser("title")
    ti.add_argument("figure")
    ti.add_argument("--text", required=True)
    return p


def run(argv):
    """Parse and run one command."""
    p = parser()
    args = p.parse_args(argv)
    simple = {
        "levels": lambda: command_levels(args.figure),
        "colourbars": lambda: command_colourbars(args.figure, args.result, args.max_chars),
        "units": lambda: command_units(args.figure, args.x, args.y, args.colourbar),
        "ticks": lambda: command_ticks(args.figure),
        "metadata": lambda: command_metadata(args.figure, args.formats.split(","),
                                             args.path or os.getcwd(), args.expect_path),
        "notitle": lambda: command_title(args.figure, None),
        "title": lambda: command_title(args.figure, args.text),
    }
    if args.command in simple:
        simple[args.command]()
        return
    if args.command == "fonts":
        command_fonts(args.paths)
        return
    if args.command == "formats":
        command_formats(args.figure, args.formats.split(","))
        return
    if args.command == "texts":
        command_texts(args.figure)
        return
    if args.command == "panels":
        grid = tuple(int(v) for v in args.grid.split("x")) if args.grid else None
        command_panels(args.figure, args.count, args.colourbars, args.note,
                       [t for t in args.titles.split(",") if t], grid, args.labelled)
        return
    if args.command == "map":
        w, h = (float(v) for v in args.inches.split("x")) if "x" in args.inches else \
            (float(args.inches), None)
        require = [r.strip() for r in args.require.split(",") if r.strip()]
        command_map(f"{args.figure}.png", f"{args.figure}.json", args.result, args.dpi, (w, h),
                    args.classes, require)
    elif args.command == "line":
        command_line(f"{args.figure}.png", f"{args.figure}.json", args.result, args.dpi,
                     args.field, args.colour)
    elif args.command == "meta":
        command_meta(f"{args.figure}.png", f"{args.figure}.pdf", args.result)
    else:
        command_nonresult(args.path)


def main(argv):
    """Run the command of ARGV, or with '-' one command per line of stdin (quoted as in
    a shell); the exit status."""
    import shlex
    if argv == ["-"]:
        for line in sys.stdin:
            if line.strip() and not line.lstrip().startswith("#"):
                run(shlex.split(line))
    else:
        run(argv)
    for problem in problems:
        print("PROBLEM:", problem, file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
