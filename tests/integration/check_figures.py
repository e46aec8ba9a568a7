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
    check_figures.py nonresult PATH
        writes an HDF5 file (with h5py) that is not an impactsweep result file.

    check_figures.py -
        runs the commands on stdin, one a line (shell quoting), in one process.

Exit status 0 when every check passes, 1 otherwise (the problems on stderr).
"""

import json
import re
import struct
import sys
import zlib

import numpy as np

# The documented colours (README "Figures"; analysis/impactplot.py CLASS_COLOURS), kept
# here on purpose so that a change of the documented table fails the test.
DOCUMENTED = {
    "icc": "#56b4e9", "cc": "#e69f00", "pcc": "#009e73",
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
    return any(block.min() <= level <= block.max() for level in c["levels"])


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
            missing = sorted({f"{v:g}" for v in c["levels"]} - {l["text"] for l in p["labels"]},
                             key=float)
            check(not missing, f"{figure}: level curves {', '.join(missing)} drawn but not "
                               f"labelled ({p.get('title', '')})")
    check(len(panels) == count, f"{figure}: {len(panels)} panels, expected {count}")
    if colourbars is not None:
        bars = layout.get("colourbars", [])
        check(len(bars) == colourbars, f"{figure}: {len(bars)} colour bars, expected {colourbars}")
        check(all(b.strip() for b in bars), f"{figure}: a colour bar without a label: {bars}")
    if note:
        notes = [n for p in panels for n in p.get("notes", [])]
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


def command_nonresult(path):
    """See the module docstring."""
    import h5py
    with h5py.File(path, "w") as f:
        f["rho"] = np.linspace(0, 1, 5)
        f.attrs["model"] = "chatter"
        f.attrs["title"] = "looks like a result, but is none"


def run(argv):
    """Parse and run one command."""
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
    args = p.parse_args(argv)
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
