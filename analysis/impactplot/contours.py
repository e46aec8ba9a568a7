"""contours: the level curves of a field on a map, and their labels.

The curves: a field of whole numbers (a count: rebounds) is cut half-way between them
(the curve labelled 20 parts the points with 19 or fewer from those with 20 or more),
and a field with grid values on a level (a mean of a few samples) half a step of its
data below the level, so that no curve runs through a grid point, where the branches of
one level would meet in an X; a closed loop round one or two grid values (shorter than
LOOP_CELLS cells) and a piece shorter than MIN_PIECE of the panel are left out as
specks, and so is a level whose pieces together are shorter than MIN_CURVE.

A noisy field is keyed instead of labelled (noisy()): where a level comes in several
pieces (closed loops) or two levels run together (within a grid cell of each other along
a quarter of one: the chatter counts jumping to the budget across the CC boundary), one
label per level could not say which line is which; each level is then drawn in its own
colour and dash over a white halo and named once in the legend.

The labels: one per level, written along a nearly straight stretch of its line, upright,
inside the panel, clear of the notes and of each other, and in the order of the levels
(read across the panel along the labels' own main direction, the levels rise or fall
throughout: never 10 20 10 or 25 50 25 100). Positions are found in display coordinates
once the figure's layout is final; a level that finds no room is left out (its line
hidden, said on stderr).
"""

import functools
import math
from dataclasses import dataclass, field
from typing import List, Optional, Sequence

import numpy as np
from matplotlib import patheffects
from matplotlib.collections import LineCollection

from .reading import Plane, Result, note
from .style import FONT_SIZE
from .ticks import format_values

# Styles of the levels of a noisy field (keyed: told apart by the legend, not labels),
# in level order; drawn over a white halo, so they read on every class and colour.
KEY_COLOURS = ("#000000", "#7b3294", "#8c510a", "#01665e", "#e7298a", "#4d4d4d")
KEY_DASHES = ((), (5.0, 1.5), (1.5, 1.2), (6.0, 1.5, 1.5, 1.5), (3.0, 1.0, 1.0, 1.0, 1.0, 1.0))
RUN_TOGETHER = 0.25  # two levels closer than NEAR_CELLS along this share: they run together
NEAR_CELLS = 1.0
MAX_POINTS = 3000    # points of a level compared at most
MIN_CURVE = 0.04   # share of the panel's size: a level shorter than this is a speck
MIN_PIECE = 0.02   # a piece shorter than this is left out
LOOP_CELLS = 4.5   # a closed loop shorter than this many grid cells (round 1-2 values) too
LABEL_SIZE = FONT_SIZE - 1.5
HALO = [patheffects.withStroke(linewidth=2.2, foreground="white")]
LABEL_GAP = 3.0    # pixels between label boxes (at 72 dpi; scaled with the dpi)
DIRECTIONS = 16    # directions along which a ladder of labels is tried
STEEP = 70.0       # labels on lines steeper than this (degrees) stand upright


@dataclass
class LevelCurves:
    """The level curves of one field drawn on a panel."""

    field: str
    levels: List[float]                 # the levels drawn (as labelled)
    cuts: List[float]                   # the values their curves are drawn at (_cut)
    texts: List[str]                    # their labels, in one number format
    allsegs: List[List[np.ndarray]]     # per level its pieces (data coordinates)
    collections: List = field(default_factory=list)  # per level its LineCollection
    colour: str = "black"
    keyed: bool = False                 # noisy: each level in its style, in the legend
    styles: List = field(default_factory=list)       # per level (colour, dashes) if keyed


def renderer_of(fig):
    """A renderer of FIG's canvas (whatever the backend)."""
    canvas = fig.canvas
    if hasattr(canvas, "get_renderer"):
        return canvas.get_renderer()
    return fig._get_renderer()


# ------------------------------------------------------------------------- curves


def _contour_pieces(x, y, z: np.ndarray, threshold: float) -> List[np.ndarray]:
    """The pieces (polylines, data coordinates) of Z[y, x] = THRESHOLD."""
    try:
        import contourpy
    except ImportError:  # matplotlib before 3.6: its own contouring, then removed
        from matplotlib.figure import Figure
        cs = Figure().add_subplot().contour(x, y, z, levels=[threshold])
        return [np.asarray(s, dtype=float) for s in cs.allsegs[0]]
    gen = contourpy.contour_generator(x, y, z, name="serial", corner_mask=True,
                                      line_type=contourpy.LineType.Separate)
    return [np.asarray(p, dtype=float) for p in gen.lines(threshold)]


def _piece_length(piece: np.ndarray, coords, scales, cells: bool = False) -> float:
    """The length of PIECE as a share of the panel (each axis on its own scale, 0..1),
    or with CELLS in grid cells."""
    out = []
    for k in (0, 1):
        v, c = piece[:, k], coords[k]
        if scales[k] == "log":
            v, c = np.log10(np.maximum(v, 1e-300)), np.log10(c)
        u = (v - c.min()) / (float(c.max() - c.min()) or 1.0)
        out.append(u * (len(c) - 1) if cells else u)
    return float(np.nansum(np.hypot(np.diff(out[0]), np.diff(out[1]))))


def _speck(piece: np.ndarray, coords, scales) -> bool:
    """Whether PIECE is a speck: under MIN_PIECE of the panel, or a closed loop round one
    or two grid values."""
    if len(piece) < 2 or _piece_length(piece, coords, scales) < MIN_PIECE:
        return True
    closed = np.allclose(piece[0], piece[-1])
    return closed and _piece_length(piece, coords, scales, cells=True) < LOOP_CELLS


def _cut(values: np.ndarray, level: float) -> float:
    """Where the curve of LEVEL is drawn through VALUES (finite): at the level, unless
    grid values lie on it (a count, a mean of a few samples): then half a step of the
    data below it (a count's curve 20 at 19.5), the boundary of the points at or above
    the level, which passes through no grid point."""
    whole = bool(np.all(values == np.round(values))) and level == round(level)
    if whole:
        return level - 0.5
    if not np.any(np.abs(values - level) <= 1e-12 * max(1.0, abs(level))):
        return level
    steps = np.diff(np.unique(values))
    steps = steps[steps > 1e-12 * max(1.0, abs(level))]
    return level - 0.5 * float(steps.min()) if steps.size else level


def level_curves(ax, result: Result, plane: Plane, name: str, values: np.ndarray,
                 levels: Sequence[float], colour: str = "black",
                 linewidth: float = 0.8) -> Optional[LevelCurves]:
    """The level curves of VALUES (field NAME, [x, y]) at those LEVELS that exist in the
    data and are more than specks, drawn into AX; None if there are none."""
    finite = values[np.isfinite(values)]
    if len(plane.axes) < 2 or finite.size == 0 or min(values.shape) < 2:
        return None
    lo, hi = float(finite.min()), float(finite.max())
    cuts = [(float(v), _cut(finite, float(v))) for v in levels]
    wanted = [(v, t) for v, t in cuts if lo < t < hi and lo < v < hi]
    if not wanted:
        return None
    coords, scales = plane.coords(result), plane.scales(result)
    z = np.ma.masked_invalid(values.T)
    kept, kept_cuts, segs = [], [], []
    for level, cut in wanted:
        pieces = [p for p in _contour_pieces(coords[0], coords[1], z, cut)
                  if not _speck(p, coords, scales)]
        if sum(_piece_length(p, coords, scales) for p in pieces) >= MIN_CURVE:
            kept.append(level)
            kept_cuts.append(cut)
            segs.append(pieces)
        else:
            note(f"{result.path}: {name}: the level curve {level:g} left out: only specks "
                 "(loops round single grid values, pieces under "
                 f"{MIN_PIECE:.0%} of the panel)")
    if not kept:
        return None
    curves = LevelCurves(field=name, levels=kept, cuts=kept_cuts, texts=format_values(kept),
                         allsegs=segs, colour=colour)
    why = noisy(segs, coords, scales)
    if why:
        curves.keyed = True
        note(f"{result.path}: {name}: the level curves {why}: each level in its own style, "
             "named in the legend rather than on the line")
    for k, pieces in enumerate(segs):
        if curves.keyed:
            style = (KEY_COLOURS[k % len(KEY_COLOURS)], KEY_DASHES[k % len(KEY_DASHES)])
            curves.styles.append(style)
            lc = LineCollection(pieces, colors=style[0], linewidths=linewidth * 1.2,
                                linestyles=[(0, style[1])] if style[1] else "solid",
                                zorder=2.5, path_effects=[patheffects.withStroke(
                                    linewidth=linewidth * 1.2 + 0.9, foreground="white")])
        else:
            lc = LineCollection(pieces, colors=colour, linewidths=linewidth, zorder=2.5)
        ax.add_collection(lc, autolim=False)
        curves.collections.append(lc)
    return curves


def _cell_points(pieces: List[np.ndarray], coords, scales, step: float = 0.25) -> np.ndarray:
    """Points along PIECES at most STEP grid cells apart, in grid-cell units."""
    out = []
    for piece in pieces:
        u = []
        for k in (0, 1):
            v, c = piece[:, k], coords[k]
            if scales[k] == "log":
                v, c = np.log10(np.maximum(v, 1e-300)), np.log10(c)
            u.append((v - c.min()) / (float(c.max() - c.min()) or 1.0) * (len(c) - 1))
        p = np.column_stack(u)
        s = np.concatenate([[0.0], np.cumsum(np.hypot(*np.diff(p, axis=0).T))])
        if s[-1] <= 0:
            continue
        t = np.arange(0.0, s[-1] + step, step)
        out.append(np.column_stack([np.interp(t, s, p[:, 0]), np.interp(t, s, p[:, 1])]))
    return np.concatenate(out) if out else np.zeros((0, 2))


def noisy(segs: List[List[np.ndarray]], coords, scales) -> str:
    """Why the level curves SEGS (per level its pieces) cannot each carry one label that
    names it unmistakably ('' if they can): a level in several pieces (closed loops,
    broken lines: one label would leave the others nameless), or two levels running
    together (within NEAR_CELLS grid cells of each other along more than RUN_TOGETHER of
    one of them: a bundle whose labels cannot say which line is which)."""
    for pieces in segs:
        if len(pieces) > 1:
            return "come in several pieces"
    points = [_cell_points(p, coords, scales) for p in segs]
    points = [p[np.linspace(0, len(p) - 1, MAX_POINTS).astype(int)] if len(p) > MAX_POINTS
              else p for p in points]  # a fine grid's long curves: bounded work
    for i in range(len(points)):
        for j in range(i + 1, len(points)):
            a, b = points[i], points[j]
            if not len(a) or not len(b):
                continue
            for p, q in ((a, b), (b, a)):
                near = 0
                for chunk in range(0, len(p), 512):
                    d = np.hypot(p[chunk:chunk + 512, None, 0] - q[None, :, 0],
                                 p[chunk:chunk + 512, None, 1] - q[None, :, 1])
                    near += int((d.min(axis=1) < NEAR_CELLS).sum())
                if near > RUN_TOGETHER * len(p):
                    return "run together"
    return ""


def hide_level(curves: LevelCurves, level: float) -> None:
    """Remove LEVEL from CURVES (its line hidden)."""
    i = curves.levels.index(level)
    curves.collections[i].set_visible(False)
    for seq in (curves.levels, curves.cuts, curves.texts, curves.allsegs, curves.collections):
        del seq[i]


# ------------------------------------------------------------------------ labels


@dataclass
class Candidates:
    """Where one level's label may go: centres, boxes, angles and qualities (arrays)."""

    text: str
    centres: np.ndarray   # (n, 2) display coordinates
    boxes: np.ndarray     # (n, 4) x0, y0, x1, y1
    angles: np.ndarray    # (n,) degrees
    quality: np.ndarray   # (n,) higher is better


@functools.lru_cache(maxsize=256)
def label_width(text: str) -> float:
    """The width of a contour label TEXT in points (mathtext measured as such)."""
    from matplotlib.font_manager import FontProperties
    from matplotlib.textpath import TextToPath
    width, _, _ = TextToPath().get_text_width_height_descent(
        text, FontProperties(size=LABEL_SIZE), ismath=text.count("$") >= 2)
    return float(width)


def _display_paths(to_display, segs):
    """The pieces in display coordinates, longest first: (points, arc length at each
    point, length)."""
    paths = []
    for seg in segs:
        p = to_display.transform(np.asarray(seg, dtype=float))
        p = p[np.all(np.isfinite(p), axis=1)]
        if len(p) < 2:
            continue
        s = np.concatenate([[0.0], np.cumsum(np.hypot(*np.diff(p, axis=0).T))])
        if s[-1] > 0:
            paths.append((p, s, float(s[-1])))
    return sorted(paths, key=lambda t: -t[2])


def _spot(p, s, length, at, width, height):
    """(cx, cy, angle, chord / width) of a label centred at arc length AT of a path,
    turned along it and upright; None if it does not fit on the path."""
    lo, hi = at - 0.5 * width, at + 0.5 * width
    if lo < 0 or hi > length:
        return None
    a, b = np.interp([lo, hi], s, p[:, 0]), np.interp([lo, hi], s, p[:, 1])
    chord = math.hypot(a[1] - a[0], b[1] - b[0]) / width
    angle = math.degrees(math.atan2(b[1] - b[0], a[1] - a[0]))
    if angle > 90:
        angle -= 180
    elif angle <= -90:
        angle += 180
    if abs(angle) > STEEP:  # steep: upright (reading up or down: see place_labels)
        angle = 90.0
    return float(np.interp(at, s, p[:, 0])), float(np.interp(at, s, p[:, 1])), angle, chord


def _box(cx, cy, angle, width, height):
    """The upright bounding box of a WIDTH x HEIGHT label at (CX, CY) turned by ANGLE."""
    c, sn = abs(math.cos(math.radians(angle))), abs(math.sin(math.radians(angle)))
    hw, hh = 0.5 * (width * c + height * sn), 0.5 * (width * sn + height * c)
    return (cx - hw, cy - hh, cx + hw, cy + hh)


def _candidates(text, paths, width, height, bbox, straight=0.6) -> Candidates:
    """Every spot of a label along PATHS (nearly straight under it: chord >= STRAIGHT
    width) inside BBOX; where there is none, spots on or beside the longest pieces
    (level, at low quality)."""
    rows = []
    for p, s, length in paths[:8]:
        n = max(3, int(length / (0.2 * width)))
        for at in np.linspace(0.5 * width, length - 0.5 * width, n) if length > width else []:
            spot = _spot(p, s, length, at, width, height)
            if spot is None or spot[3] < straight:
                continue
            cx, cy, angle, chord = spot
            rows.append((cx, cy, angle, chord, _box(cx, cy, angle, width, height)))
    if not rows:  # small pieces: level, on or just beside them
        for p, s, length in paths[:3]:
            centre = p.mean(axis=0)
            spots = [centre] + [(np.interp(f * length, s, p[:, 0]),
                                 np.interp(f * length, s, p[:, 1])) for f in (0.5, 0.0, 0.25,
                                                                            0.75)]
            spots += [(centre[0] + k * dx * (width + 4), centre[1] + k * dy * (height + 4))
                      for k in (0.6, 1.2) for dx, dy in ((1, 0), (-1, 0), (0, 1), (0, -1))]
            for cx, cy in spots:
                rows.append((float(cx), float(cy), 0.0, 0.2, _box(cx, cy, 0.0, width, height)))
    rows = [r for r in rows if bbox.x0 + 2 <= r[4][0] and r[4][2] <= bbox.x1 - 2
            and bbox.y0 + 2 <= r[4][1] and r[4][3] <= bbox.y1 - 2]
    if not rows:
        return Candidates(text, np.zeros((0, 2)), np.zeros((0, 4)), np.zeros(0), np.zeros(0))
    return Candidates(text, np.array([(r[0], r[1]) for r in rows]),
                      np.array([r[4] for r in rows]), np.array([r[2] for r in rows]),
                      np.array([r[3] for r in rows]))


def _hits(boxes: np.ndarray, points: np.ndarray) -> np.ndarray:
    """Per box whether any of POINTS lies inside it."""
    if len(points) == 0 or len(boxes) == 0:
        return np.zeros(len(boxes), dtype=bool)
    x, y = points[:, 0][None, :], points[:, 1][None, :]
    inside = (boxes[:, 0:1] <= x) & (x <= boxes[:, 2:3]) & (boxes[:, 1:2] <= y) & \
        (y <= boxes[:, 3:4])
    return inside.any(axis=1)


def _dense(paths, step: float = 2.0) -> np.ndarray:
    """Points along PATHS no more than STEP pixels apart."""
    out = []
    for p, s, length in paths:
        out.append(np.column_stack([np.interp(np.arange(0, length, step), s, p[:, k])
                                    for k in (0, 1)]))
    return np.concatenate(out) if out else np.zeros((0, 2))


def _clear(boxes: np.ndarray, taken: Sequence, gap: float) -> np.ndarray:
    """Per box whether it keeps GAP pixels from every box in TAKEN."""
    ok = np.ones(len(boxes), dtype=bool)
    for b in taken:
        ok &= ~((boxes[:, 0] < b[2] + gap) & (b[0] < boxes[:, 2] + gap) &
                (boxes[:, 1] < b[3] + gap) & (b[1] < boxes[:, 3] + gap))
    return ok


def in_level_order(centres: np.ndarray, levels: Sequence[float], apart: float = 0.0) -> bool:
    """Whether labels at CENTRES (display) read in the order of their LEVELS along
    their main direction (the first principal axis of the centres): rising or falling
    throughout, each at least APART pixels further along it than the one before. Two
    labels always do."""
    if len(levels) < 3:
        return True
    c = np.asarray(centres, dtype=float)
    c = c - c.mean(axis=0)
    axis = np.linalg.svd(c, full_matrices=False)[2][0]
    proj = c @ axis
    order = np.argsort(proj, kind="stable")
    d = np.diff(np.asarray(levels, dtype=float)[order])
    return bool((np.all(d > 0) or np.all(d < 0)) and np.all(np.diff(proj[order]) >= apart))


def _thin(c: Candidates, most: int = 80) -> Candidates:
    """At most MOST of C's spots: the best half by quality and the rest spread along
    the lines."""
    n = len(c.quality)
    if n <= most:
        return c
    keep = set(np.argsort(-c.quality)[:most // 2].tolist())
    keep |= set(np.linspace(0, n - 1, most - len(keep)).astype(int).tolist())
    k = np.array(sorted(keep))
    return Candidates(c.text, c.centres[k], c.boxes[k], c.angles[k], c.quality[k])


def _pairs_clear(a: np.ndarray, b: np.ndarray, gap: float) -> np.ndarray:
    """[i, j]: whether box A[i] keeps GAP pixels from box B[j]."""
    return ~((a[:, None, 0] < b[None, :, 2] + gap) & (b[None, :, 0] < a[:, None, 2] + gap) &
             (a[:, None, 1] < b[None, :, 3] + gap) & (b[None, :, 1] < a[:, None, 3] + gap))


def _ladder(cands: List[Candidates], direction, gap, step, span):
    """The ladders of labels along DIRECTION (each level's label further along it than
    the lower levels' labels, neighbours clear of each other), best first: lists of
    (level index, candidate index). Dynamic programming over the levels: a label per
    level is worth 10, plus its spot's quality, less the distance from the label before
    over the panel's diagonal (compact ladders)."""
    proj = [c.centres @ direction for c in cands]
    score = [10.0 + c.quality for c in cands]
    back = [np.full((len(c.quality), 2), -1) for c in cands]
    for k, c in enumerate(cands):
        for j in range(k):
            if not len(c.quality) or not len(cands[j].quality):
                continue
            ok = (proj[j][:, None] + step <= proj[k][None, :]) & \
                _pairs_clear(cands[j].boxes, c.boxes, gap)
            value = score[j][:, None] + 10.0 + c.quality[None, :] - \
                0.5 * (proj[k][None, :] - proj[j][:, None]) / span
            value = np.where(ok, value, -np.inf)
            arg = value.argmax(axis=0)
            best = value[arg, np.arange(len(c.quality))]
            better = best > score[k]
            score[k] = np.where(better, best, score[k])
            back[k][better] = np.column_stack([np.full(better.sum(), j), arg[better]])
    ends = sorted(((float(v), k, i) for k, sc in enumerate(score) for i, v in enumerate(sc)),
                  reverse=True)
    for value, k, i in ends[:8]:
        chain = [(k, i)]
        while back[chain[-1][0]][chain[-1][1]][0] >= 0:
            j, i2 = back[chain[-1][0]][chain[-1][1]]
            chain.append((int(j), int(i2)))
        yield chain[::-1], value


def _arrange(cands: List[Candidates], levels, gap, height, span):
    """The best ladder over DIRECTIONS directions whose labels are clear of each other
    and read in level order (in_level_order): [(level index, candidate index)]."""
    cands = [_thin(c) for c in cands]
    best, best_value = [], -math.inf
    for t in range(DIRECTIONS):
        angle = 2 * math.pi * t / DIRECTIONS
        direction = np.array([math.cos(angle), math.sin(angle)])
        for chain, value in _ladder(cands, direction, gap, 0.3 * height, span):
            if value <= best_value:
                break
            boxes = np.array([cands[k].boxes[i] for k, i in chain])
            clear = _pairs_clear(boxes, boxes, gap) | np.eye(len(chain), dtype=bool)
            centres = np.array([cands[k].centres[i] for k, i in chain])
            if clear.all() and in_level_order(centres, [levels[k] for k, _ in chain],
                                              apart=0.5 * height):
                best, best_value = chain, value
                break
    return [(k, i, cands[k]) for k, i in best]


def place_labels(ax, curves: LevelCurves, taken: List) -> List:
    """One label per level of CURVES along its line (black on a white halo), clear of
    the boxes in TAKEN (display; the labels' boxes are added), the labels in level
    order; levels that find no room are left out (their lines hidden, said on stderr).
    Call once the layout is final. Returns the Texts."""
    renderer = renderer_of(ax.figure)
    bbox = ax.get_window_extent(renderer)
    dpi = ax.figure.dpi
    height = LABEL_SIZE / 72 * dpi * 1.25
    gap = LABEL_GAP * dpi / 72
    paths = [_display_paths(ax.transData, segs) for segs in curves.allsegs]
    dense = [_dense(p) for p in paths]
    cands = []
    for k, text in enumerate(curves.texts):
        width = (label_width(text) + 1.5) * dpi / 72
        c = _candidates(text, paths[k], width, height, bbox)
        keep = _clear(c.boxes, taken, gap)
        c = Candidates(text, c.centres[keep], c.boxes[keep], c.angles[keep], c.quality[keep])
        for j, pts in enumerate(dense):  # a label over another level's line hides it
            if j != k:
                c.quality = c.quality - 0.35 * _hits(c.boxes, pts)
        cands.append(c)
    span = math.hypot(bbox.width, bbox.height) or 1.0
    texts = []
    chosen = _arrange(cands, curves.levels, gap, height, span)
    # upright labels read down where the slanting ones fall from left to right
    slanting = [float(c.angles[i]) for _, i, c in chosen if 20 < abs(c.angles[i]) <= STEEP]
    down = sum(1 if a < 0 else -1 for a in slanting) > 0
    for k, i, c in chosen:
        angle = -90.0 if down and c.angles[i] == 90.0 else float(c.angles[i])
        xd, yd = ax.transData.inverted().transform(tuple(c.centres[i]))
        t = ax.text(xd, yd, c.text, rotation=angle, rotation_mode="anchor",
                    ha="center", va="center", fontsize=LABEL_SIZE, color="black",
                    path_effects=HALO, zorder=5, clip_on=True)
        t._impactplot_role = "contour_label"
        t._impactplot_level = curves.levels[k]
        taken.append(tuple(c.boxes[i]))
        texts.append(t)
    return texts


def label_levels(d) -> None:
    """Place the labels of the level curves of the Drawn D (after the layout is final):
    clear of its notes; a level left without a label is left out."""
    renderer = renderer_of(d.ax.figure)
    taken = []
    for t in d.notes:
        b = t.get_window_extent(renderer)
        taken.append((b.x0, b.y0, b.x1, b.y1))
    for t in d.labels:
        t.remove()
    d.labels = []
    for curves in d.contour_sets:
        if curves.keyed:  # named in the legend
            continue
        placed = place_labels(d.ax, curves, taken)
        d.labels += placed
        named = {t._impactplot_level for t in placed}
        for level in [v for v in curves.levels if v not in named]:
            hide_level(curves, level)
            note(f"{d.variable}: the level curve {level:g} of {curves.field} left out: no "
                 "room for its label")
        if d.contours and d.contours.get("field") == curves.field:
            d.contours.update(levels=list(curves.levels), cuts=list(curves.cuts))
