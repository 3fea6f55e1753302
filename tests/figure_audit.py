"""The figure audit: every figure a notebook draws, checked as the student sees it.

:func:`audit` draws a matplotlib figure once (without rasterising), records every text that
matplotlib actually draws and compares window extents, as ``tests/test_widgets_layout.py``
does for the live panels. One line per problem, each saying where and what to change:

- **text over text**: two drawn texts (titles, labels, tick labels, legend entries,
  annotations) overlap by more than ``TOL`` pixels;
- **legend over data**: a legend (of an axes or of the figure) covers a line (tested along
  each segment), a marker, a scatter point, a bar or an image of any axes;
- **cut off**: a drawn text reaches beyond the canvas, or a marker or scatter point of a
  clipped artist is not wholly inside its axes (a point exactly on the lower y-limit shows
  only its upper half);
- **integer ticks**: a linear axis whose line and scatter data are all whole numbers, and whose
  bar series step by whole numbers, has a labelled tick that is not a whole number;
- **round log ticks**: the labelled decades of a log axis step by a round number of decades
  (1, 2, 5, 10, ...; not every 10^23);
- **Greek letters**: a drawn text spells out a Greek letter ("beta", "theta", ...) outside
  TeX (write β or ``$\\beta$``);
- **twin axes**: an axes and its twin must say which series belongs to which scale: a legend
  with an entry from each, or each y-label coloured like its series;
- **series a reader cannot tell apart**: in an axes whose series are told apart by colour
  (three colours or more), two series that look alike (colour, line style and marker), or
  no legend and no text naming them; and markers of a short series (at most
  ``FEW_MARKERS``) drawn on top of each other, so that some are hidden;
- **text over an image**: a drawn text over an ``imshow``/``pcolormesh`` image of another
  axes (a title running into the strip above) or of its own axes (unless the text has
  ``gid="on-image"``: a value written into a cell on purpose);
- **text over a neighbouring axes**: a text or an axes' legend reaching into the plotting
  area of another visible axes (twins and insets overlap on purpose and are exempt);
- **a legend on an axis**: an axes' legend (its texts and handles) touching a visible axis
  line (spine) of its axes, or running over a tick or axis label;
- **one colour per algorithm** (across the figures of one notebook, :class:`ColourBook`):
  a legend label keeps its colour; a colour outside navy/orange/gray names one series (labels
  starting with the same name are one series; parameter values such as "β = 2" are free);
  navy, orange and gray keep the palette's meaning, so their labels may not say another's.

What it cannot judge (the wording of a legend, false precision in a label, a trend nothing
explains) stays with the reviewer.

Wiring. :func:`install` wraps ``IPython.core.pylabtools.print_figure``, through which the inline
backend renders every figure a notebook shows (``plt.show()``, a trailing ``fig``,
``display(fig)``); live panels render their own PNGs and are audited by
``tests/test_widgets_layout.py``. The root ``conftest.py`` starts each nbval kernel with an
``IPYTHONDIR`` whose startup file (:func:`write_startup`) calls :func:`install` and
``verdict_margins.install``: each problem is printed to stderr as
``figure audit: <figure> — <problem>`` (the figure's file name first when its cell saves it),
so strict nbval fails on the cell that drew the figure and shows why. Outputs committed by
``python -m tools execute`` never contain these lines.

For developers: ``python tests/figure_audit.py notebooks/01_glauber_convergence.ipynb [...]``
executes the notebooks (in memory: nothing is written) with the audit and the verdict-margin
check on and lists every problem per cell and figure; it exits with status 1 if there is
any.
"""

from __future__ import annotations

import itertools
import re
import sys
import warnings
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from matplotlib import cbook
from matplotlib.collections import LineCollection, PathCollection, QuadMesh
from matplotlib.colors import same_color, to_rgba
from matplotlib.container import BarContainer
from matplotlib.image import AxesImage
from matplotlib.legend import Legend
from matplotlib.text import Text
from matplotlib.transforms import Bbox

TOL = 1.0  #: pixels two boxes may share (touching is fine), as in the panels' layout test
FEW_MARKERS = 12  #: series of at most this many markers must show every one of them
PREFIX = "figure audit: "
VERDICT_PREFIX = "verdict margin: "  #: lines of verdict_margins.py, listed by the command line
GREEK = (
    "alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu nu xi omicron pi rho "
    "sigma tau upsilon phi chi psi omega"
).split()
_GREEK_WORD = re.compile(r"(?<![A-Za-z\\])(" + "|".join(GREEK) + r")s?(?![A-Za-z])", re.I)
_NO_LINE = (None, "None", "none", "", " ")


# -- drawing ----------------------------------------------------------------------------------


@dataclass
class Drawn:
    """A figure after one draw: its renderer and the texts that were actually drawn."""

    fig: object
    renderer: object
    texts: list = field(default_factory=list)

    def extent(self, artist) -> Bbox:
        return artist.get_window_extent(self.renderer)

    def px(self, points: float) -> float:
        return points * self.fig.dpi / 72.0


def draw(fig) -> Drawn:
    """Lay ``fig`` out and draw it without rasterising, recording every drawn text."""
    texts, renderers, original = [], [], Text.draw

    def recording_draw(self, renderer):
        renderers.append(renderer)
        if self.get_visible() and self.get_text().strip():
            texts.append(self)
        return original(self, renderer)

    Text.draw = recording_draw
    try:
        fig.draw_without_rendering()
    finally:
        Text.draw = original
    renderer = renderers[0] if renderers else fig._get_renderer()
    unique = list({id(t): t for t in texts}.values())
    return Drawn(fig, renderer, unique)


# -- naming things in messages ----------------------------------------------------------------


def _short(text: str, n: int = 48) -> str:
    text = " ".join(text.split())
    return repr(text if len(text) <= n else text[: n - 1] + "…")


def figure_name(fig) -> str:
    """The figure's title, else its axes' titles, for the start of a problem line."""
    suptitle = getattr(fig, "_suptitle", None)
    if suptitle is not None and suptitle.get_text().strip():
        return _short(suptitle.get_text(), 70)
    titles = [title_of(ax) for ax in fig.axes if title_of(ax)]
    if titles:
        return _short(" | ".join(titles), 70)
    labels = [ax.get_ylabel() for ax in fig.axes if ax.get_ylabel().strip()]
    return f"untitled figure ({axes_name(fig.axes[0])})" if labels else "untitled figure"


def title_of(ax) -> str:
    """The axes' title, centred or at the left or right."""
    titles = [ax.get_title(loc).strip() for loc in ("center", "left", "right")]
    return next((t for t in titles if t), "")


def axes_name(ax) -> str:
    fig = ax.get_figure()
    if title_of(ax):
        return f"axes {_short(title_of(ax), 40)}"
    for label in (ax.get_ylabel(), ax.get_xlabel()):
        if label.strip():
            return f"axes with label {_short(label, 40)}"
    return f"axes {fig.axes.index(ax) + 1} of {len(fig.axes)}"


def _label(artist) -> str | None:
    label = artist.get_label()
    return label if isinstance(label, str) and label and not label.startswith("_") else None


# -- the data an axes draws, in display coordinates --------------------------------------------


def _empty(*shape) -> np.ndarray:
    return np.zeros((0, *shape))


@dataclass
class Series:
    """One data artist of an axes, reduced to what covering and clipping need (pixels)."""

    artist: object
    kind: str  # "line", "points", "segments", "bars" or "image"
    clip: Bbox | None  # where the artist is visible (None: anywhere)
    points: np.ndarray = field(default_factory=lambda: _empty(2))  # (n, 2) marker centres
    data: np.ndarray = field(default_factory=lambda: _empty(2))  # the same, data coordinates
    radius: float = 0.0  # of a marker
    segments: np.ndarray = field(default_factory=lambda: _empty(2, 2))  # (m, 2, 2) pieces
    halfwidth: float = 0.0  # of a segment
    boxes: np.ndarray = field(default_factory=lambda: _empty(4))  # (k, 4) x0, y0, x1, y1

    @property
    def name(self) -> str:
        label = _label(self.artist)
        return f"the {self.kind} {_short(label, 36)}" if label else f"an unlabelled {self.kind}"


def _segments_of(xy: np.ndarray) -> np.ndarray:
    """Consecutive pairs of a polyline's vertices, without the pieces that touch a gap."""
    if len(xy) < 2:
        return _empty(2, 2)
    seg = np.stack([xy[:-1], xy[1:]], axis=1)
    return seg[np.isfinite(seg).all(axis=(1, 2))]


def _clip_of(artist, ax) -> Bbox | None:
    if not artist.get_clip_on():
        return None
    box = artist.get_clip_box()
    return box if box is not None else ax.bbox


def _box(b: Bbox) -> np.ndarray:
    return np.array([[b.x0, b.y0, b.x1, b.y1]])


def _line_series(d: Drawn, ax, line) -> Series:
    xy = np.asarray(line.get_xydata(), dtype=float).reshape(-1, 2)
    transform = line.get_transform()
    series = Series(line, "line", _clip_of(line, ax), halfwidth=d.px(line.get_linewidth() / 2))
    if line.get_marker() not in _NO_LINE and line.get_markevery() is None and len(xy):
        points = transform.transform(xy)
        keep = np.isfinite(points).all(axis=1)
        series.points, series.data = points[keep], xy[keep]
        series.radius = d.px(line.get_markersize() / 2 + line.get_markeredgewidth() / 2)
    if line.get_linestyle() not in _NO_LINE and len(xy) > 1:
        style, path = line.get_drawstyle(), xy
        if style in cbook.STEP_LOOKUP_MAP and style != "default":
            path = np.asarray(cbook.STEP_LOOKUP_MAP[style](*xy.T)).T
        series.segments = _segments_of(transform.transform(path))
    return series


def _collection_series(d: Drawn, ax, coll) -> Series | None:
    clip = _clip_of(coll, ax)
    widths = coll.get_linewidths()
    edge = float(np.max(widths)) if len(widths) else 0.0
    if isinstance(coll, PathCollection) and len(coll.get_offsets()):
        offsets = np.asarray(coll.get_offsets(), dtype=float).reshape(-1, 2)
        points = coll.get_offset_transform().transform(offsets)
        keep = np.isfinite(points).all(axis=1)
        sizes = coll.get_sizes()
        size = float(np.max(sizes)) if len(sizes) else 36.0
        radius = d.px(np.sqrt(size) / 2 + edge / 2)
        return Series(coll, "points", clip, points[keep], offsets[keep], radius)
    if isinstance(coll, LineCollection) and len(coll.get_segments()):
        transform = coll.get_transform()
        pieces = [_segments_of(transform.transform(np.asarray(s))) for s in coll.get_segments()]
        return Series(
            coll, "segments", clip, segments=np.concatenate(pieces), halfwidth=d.px(edge / 2)
        )
    if isinstance(coll, QuadMesh):
        return Series(coll, "image", clip, boxes=_box(d.extent(coll)))
    return None  # filled areas (fill_between, spans) are not data a legend must avoid


def series_of(d: Drawn, ax) -> list[Series]:
    """Every visible data artist of ``ax``: lines, scatter points, line collections (error
    bars), bars and images."""
    out = [_line_series(d, ax, line) for line in ax.lines if line.get_visible()]
    for coll in ax.collections:
        series = _collection_series(d, ax, coll) if coll.get_visible() else None
        if series is not None:
            out.append(series)
    for container in ax.containers:
        if isinstance(container, BarContainer):
            rects = [p for p in container.patches if p.get_visible()]
            boxes = [_box(d.extent(p)) for p in rects if p.get_width() and p.get_height()]
            if boxes:
                out.append(
                    Series(container, "bars", _clip_of(rects[0], ax), boxes=np.concatenate(boxes))
                )
    for image in ax.images:
        if isinstance(image, AxesImage) and image.get_visible():
            out.append(Series(image, "image", _clip_of(image, ax), boxes=_box(d.extent(image))))
    return out


# -- geometry ---------------------------------------------------------------------------------


def _intersection(a: Bbox, b: Bbox | None) -> Bbox | None:
    if b is None:
        return a
    x0, y0 = max(a.x0, b.x0), max(a.y0, b.y0)
    x1, y1 = min(a.x1, b.x1), min(a.y1, b.y1)
    return Bbox([[x0, y0], [x1, y1]]) if x0 < x1 and y0 < y1 else None


def _overlap(a: Bbox, b: Bbox, tol: float = TOL) -> bool:
    return min(a.x1, b.x1) - max(a.x0, b.x0) > tol and min(a.y1, b.y1) - max(a.y0, b.y0) > tol


def _segments_hit(seg: np.ndarray, box: Bbox, pad: float) -> np.ndarray:
    """Which segments (m, 2, 2) pass through ``box`` grown by ``pad`` (Liang-Barsky)."""
    if not len(seg):
        return np.zeros(0, bool)
    p0, delta = seg[:, 0], seg[:, 1] - seg[:, 0]
    lo, hi = np.zeros(len(seg)), np.ones(len(seg))
    ok = np.ones(len(seg), bool)
    for k, (a, b) in enumerate([(box.x0 - pad, box.x1 + pad), (box.y0 - pad, box.y1 + pad)]):
        d, p = delta[:, k], p0[:, k]
        flat = np.abs(d) < 1e-12
        ok &= ~flat | ((p >= a) & (p <= b))
        with np.errstate(divide="ignore", invalid="ignore"):
            t0, t1 = (a - p) / d, (b - p) / d
        enter, leave = (
            np.where(flat, 0.0, np.minimum(t0, t1)),
            np.where(flat, 1.0, np.maximum(t0, t1)),
        )
        lo, hi = np.maximum(lo, enter), np.minimum(hi, leave)
    return ok & (lo <= hi)


def covered(series: Series, box: Bbox) -> int:
    """How many of the series' markers, segments and rectangles lie (partly) in ``box``."""
    region = _intersection(box, series.clip)
    if region is None:
        return 0
    x0, y0, x1, y1 = region.x0 + TOL, region.y0 + TOL, region.x1 - TOL, region.y1 - TOL
    p, r = series.points, series.radius
    n = int(
        np.sum((p[:, 0] + r > x0) & (p[:, 0] - r < x1) & (p[:, 1] + r > y0) & (p[:, 1] - r < y1))
    )
    shrunk = Bbox([[x0, y0], [x1, y1]])
    n += int(_segments_hit(series.segments, shrunk, series.halfwidth).sum())
    b = series.boxes
    n += int(np.sum((b[:, 2] > x0) & (b[:, 0] < x1) & (b[:, 3] > y0) & (b[:, 1] < y1)))
    return n


# -- the checks -------------------------------------------------------------------------------


def check_text_overlaps(d: Drawn) -> list[str]:
    boxes = [(t, d.extent(t)) for t in d.texts]
    return [
        f"texts overlap: {_short(s.get_text())} and {_short(t.get_text())}"
        for (s, a), (t, b) in itertools.combinations(boxes, 2)
        if _overlap(a, b)
    ]


def legends_of(d: Drawn) -> list[Legend]:
    drawn = {id(t) for t in d.texts}
    legends = [a for a in d.fig.findobj(Legend) if a.get_visible()]
    return [g for g in legends if any(id(t) in drawn for t in g.get_texts())]


def check_legends_over_data(d: Drawn) -> list[str]:
    problems = []
    for legend in legends_of(d):
        box = d.extent(legend)
        owner = legend.axes
        whose = f"the legend of {axes_name(owner)}" if owner else "the figure legend"
        for ax in d.fig.axes:
            hits = [(s.name, covered(s, box)) for s in series_of(d, ax)]
            hits = [(name, n) for name, n in hits if n]
            if hits:
                what = ", ".join(f"{name} ({n}×)" for name, n in hits[:3])
                more = f" and {len(hits) - 3} more series" if len(hits) > 3 else ""
                where = "" if ax is owner else f" in {axes_name(ax)}"
                problems.append(
                    f"{whose} covers data{where}: {what}{more} — move it (loc=..., "
                    "bbox_to_anchor outside the axes) or make room (set_ylim)"
                )
    return problems


def _side(box: Bbox, outer: Bbox) -> str:
    sides = [
        (outer.x0 - box.x0, "left"),
        (box.x1 - outer.x1, "right"),
        (outer.y0 - box.y0, "lower"),
        (box.y1 - outer.y1, "upper"),
    ]
    amount, side = max(sides)
    return f"{side} edge by {amount:.0f} px"


def check_cut_off(d: Drawn) -> list[str]:
    problems, canvas = [], d.fig.bbox
    for text in d.texts:
        b = d.extent(text)
        if (
            b.x0 < canvas.x0 - TOL
            or b.y0 < canvas.y0 - TOL
            or b.x1 > canvas.x1 + TOL
            or b.y1 > canvas.y1 + TOL
        ):
            problems.append(
                f"text {_short(text.get_text())} runs off the canvas at the {_side(b, canvas)}"
                " (only a tight crop shows it; a panel or a fixed-size save cuts it) —"
                " fig.tight_layout(), layout='constrained', or move it inside"
            )
    for ax in d.fig.axes:
        for s in series_of(d, ax):
            if not len(s.points) or s.clip is None:
                continue
            c, p, r = s.clip, s.points, s.radius
            inside = (
                (p[:, 0] - r >= c.x0 - TOL)
                & (p[:, 0] + r <= c.x1 + TOL)
                & (p[:, 1] - r >= c.y0 - TOL)
                & (p[:, 1] + r <= c.y1 + TOL)
            )
            hidden = (p[:, 0] + r < c.x0) | (p[:, 0] - r > c.x1) | (p[:, 1] + r < c.y0)
            hidden |= p[:, 1] - r > c.y1
            for mask, how in ((~inside & ~hidden, "cut by"), (hidden, "outside")):
                if mask.any():
                    i = int(np.argmax(mask))
                    x, y = s.data[i]
                    where = _side(Bbox([p[i] - r, p[i] + r]), c)
                    problems.append(
                        f"in {axes_name(ax)}: {int(mask.sum())} marker(s) of {s.name} {how} "
                        f"the axes (first at x={x:.4g}, y={y:.4g}: {where}) — widen the "
                        "limits (set_xlim/set_ylim) so that every point shows whole"
                    )
    return problems


def _whole(values: np.ndarray) -> bool:
    values = np.asarray(values, dtype=float)
    return bool(values.size) and bool(np.all(np.abs(values - np.round(values)) < 1e-9))


def _axis_data(d: Drawn, ax, k: int) -> list[np.ndarray]:
    """Data values along axis ``k`` (0: x, 1: y) of the lines, points and bars drawn against
    it; a bar series contributes the steps between its bars along its position axis."""
    out = []
    for line in ax.lines:
        if line.get_visible() and line.get_transform().contains_branch_seperately(ax.transData)[k]:
            out.append(np.asarray(line.get_xydata(), dtype=float)[:, k])
    for coll in ax.collections:
        if isinstance(coll, PathCollection) and coll.get_visible() and len(coll.get_offsets()):
            if coll.get_offset_transform().contains_branch_seperately(ax.transData)[k]:
                out.append(np.asarray(coll.get_offsets(), dtype=float)[:, k])
    for container in ax.containers:
        if not isinstance(container, BarContainer) or not container.patches:
            continue
        rects = container.patches
        vertical = getattr(container, "orientation", "vertical") == "vertical"
        if (k == 0) == vertical:  # the position axis: the bars must step by whole numbers
            centres = np.sort([r.get_x() + r.get_width() / 2 if vertical else r.get_y()
                               + r.get_height() / 2 for r in rects])  # fmt: skip
            out.append(np.diff(centres) if len(centres) > 1 else np.array([0.5]))
        else:  # the value axis: heights and bases
            out.append(np.array([r.get_height() if vertical else r.get_width() for r in rects]))
            out.append(np.array([r.get_y() if vertical else r.get_x() for r in rects]))
    return [v[np.isfinite(v)] for v in out]


def check_integer_ticks(d: Drawn) -> list[str]:
    problems, drawn = [], {id(t) for t in d.texts}
    for ax in d.fig.axes:
        for k, axis in enumerate((ax.xaxis, ax.yaxis)):
            if axis.get_scale() != "linear":
                continue
            shared = (ax.get_shared_x_axes() if k == 0 else ax.get_shared_y_axes()).get_siblings(ax)
            values = [v for a in shared for v in _axis_data(d, a, k)]
            if not values or not all(_whole(v) for v in values):
                continue
            labelled = [
                t.get_loc()
                for t in axis.get_major_ticks()
                if id(t.label1) in drawn or id(t.label2) in drawn
            ]
            bad = [loc for loc in labelled if abs(loc - round(loc)) > 1e-9]
            if bad:
                name = "xy"[k]
                ticks = ", ".join(f"{loc:g}" for loc in bad[:4])
                problems.append(
                    f"in {axes_name(ax)}: {name} ticks at {ticks} on an axis whose data are "
                    f"whole numbers — ax.{name}axis.set_major_locator(MaxNLocator(integer=True))"
                    " or set the ticks"
                )
    return problems


ROUND_STRIDES = (1, 2, 3, 4, 5, 10, 20, 25, 30, 40, 50, 100)  #: decades between log ticks


def check_log_ticks(d: Drawn) -> list[str]:
    """Labelled decades of a log axis step by a round number of decades (not 10^23)."""
    problems, drawn = [], {id(t) for t in d.texts}
    for ax in d.fig.axes:
        for name, axis in (("x", ax.xaxis), ("y", ax.yaxis)):
            if axis.get_scale() != "log":
                continue
            locs = [
                t.get_loc()
                for t in axis.get_major_ticks()
                if (id(t.label1) in drawn or id(t.label2) in drawn) and t.get_loc() > 0
            ]
            exponents = np.log10(locs)
            if len(locs) < 2 or not _whole(exponents):
                continue
            strides = sorted({round(s) for s in np.diff(np.sort(exponents))})
            if any(s not in ROUND_STRIDES for s in strides):
                problems.append(
                    f"in {axes_name(ax)}: {name} ticks step by 10^{strides[0]} — choose round "
                    f"decades (ax.set_{name}ticks([1e0, 1e50, 1e100, ...]) or "
                    f"LogLocator(numticks=...))"
                )
    return problems


def _outside_tex(text: str) -> str:
    """The parts of a matplotlib text outside ``$...$`` (mathtext)."""
    parts = re.split(r"(?<!\\)\$", text)
    return " ".join(parts[::2]) if len(parts) % 2 else text


def check_greek(d: Drawn) -> list[str]:
    problems = []
    for text in d.texts:
        words = {m.group(1).lower() for m in _GREEK_WORD.finditer(_outside_tex(text.get_text()))}
        if words:
            spelled = ", ".join(sorted(words))
            problems.append(
                f"text {_short(text.get_text())} spells out {spelled} — typeset it "
                f"(β, θ, … or $\\{sorted(words)[0]}$)"
            )
    return problems


def _named_by_legend(d: Drawn, ax) -> bool:
    names = {t.get_text() for g in legends_of(d) for t in g.get_texts()}
    return any(_label(s.artist) in names for s in series_of(d, ax))


def _colours(series: Series) -> list:
    artist = series.artist
    if series.kind == "line":
        return [artist.get_color()]
    if series.kind == "points":
        return list(artist.get_facecolor()) + list(artist.get_edgecolor())
    return []


def _label_matches_series(label: Text, series: list[Series]) -> bool:
    return any(same_color(label.get_color(), c) for s in series for c in _colours(s))


def check_twin_axes(d: Drawn) -> list[str]:
    problems = []
    for a, b in itertools.combinations(d.fig.axes, 2):
        twins_x = a.get_shared_x_axes().joined(a, b)
        twins_y = a.get_shared_y_axes().joined(a, b)
        if not (twins_x or twins_y) or a.get_position().bounds != b.get_position().bounds:
            continue
        sa, sb = series_of(d, a), series_of(d, b)
        if not sa or not sb:
            continue
        if _named_by_legend(d, a) and _named_by_legend(d, b):
            continue
        labels = [ax.yaxis.label if twins_x else ax.xaxis.label for ax in (a, b)]
        coloured = all(
            lab.get_text().strip() and _label_matches_series(lab, s)
            for lab, s in zip(labels, (sa, sb), strict=True)
        )
        if not coloured or same_color(labels[0].get_color(), labels[1].get_color()):
            problems.append(
                f"{axes_name(a)} and its twin: nothing says which series belongs to which scale"
                " — one legend with an entry from each axes, or each y-label coloured like its"
                " series"
            )
    return problems


def check_series_told_apart(d: Drawn) -> list[str]:
    problems = []
    for ax in d.fig.axes:
        lines = [
            s
            for s in series_of(d, ax)
            if s.kind == "line"
            and len(s.segments)
            and all(s.artist.get_transform().contains_branch_seperately(ax.transData))
        ]
        colours = {to_rgba(s.artist.get_color()) for s in lines}
        if len(colours) >= 3:
            looks = [
                (to_rgba(s.artist.get_color()), s.artist.get_linestyle(), s.artist.get_marker())
                for s in lines
            ]
            twins = len(looks) - len(set(looks))
            if twins:
                problems.append(
                    f"in {axes_name(ax)}: {twins} line(s) look exactly like another "
                    "(colour, line style, marker) where colours tell series apart — give each"
                    " its own colour, or one colour to a family"
                )
            inside = [t for t in d.texts if t.axes is ax and _overlap(d.extent(t), ax.bbox, 0)]
            inside = [t for t in inside if t not in ax.get_xticklabels() + ax.get_yticklabels()]
            if not _named_by_legend(d, ax) and not inside:
                problems.append(
                    f"in {axes_name(ax)}: {len(lines)} lines in {len(colours)} colours and "
                    "nothing names them — add a legend (label=...) or label the lines"
                )
        for s in series_of(d, ax):
            p = s.points
            if 1 < len(p) <= FEW_MARKERS:
                dist = np.hypot(*(p[:, None, :] - p[None, :, :]).transpose(2, 0, 1))
                close = np.triu(dist < max(s.radius, 1.0), 1)
                if close.any():
                    problems.append(
                        f"in {axes_name(ax)}: {int(close.any(axis=0).sum())} of the "
                        f"{len(p)} markers of {s.name} sit on top of others and are hidden — "
                        "spread them (offset, jitter, other positions) or say so"
                    )
    return problems


# -- texts over images and over other axes, legends on an axis line ----------------------------

ON_IMAGE = "on-image"  #: gid of a text meant to sit on its own axes' image (a value in a cell)


def all_axes(fig) -> list:
    """Every axes of ``fig``, inset (child) axes before the axes that hold them."""
    out = []

    def walk(ax):
        for child in getattr(ax, "child_axes", []):
            walk(child)
        out.append(ax)

    for ax in fig.axes:
        walk(ax)
    return list(dict.fromkeys(out))


def owners(d: Drawn) -> dict:
    """``id(text) -> axes`` for every text drawn as part of an axes (titles, tick and axis
    labels, annotations, legends); figure texts (suptitle, ``fig.text``) have none."""
    owner = {}
    for ax in all_axes(d.fig):  # an inset's texts belong to the inset, not to its host
        for text in ax.findobj(Text):
            owner.setdefault(id(text), ax)
    return owner


def _legend_text_ids(d: Drawn) -> set:
    return {id(t) for g in legends_of(d) for t in [*g.get_texts(), g.get_title()]}


def _describe(text, owner: dict) -> str:
    """'the title 'x'', 'text 'x' of axes ...' or 'the figure text 'x''."""
    ax, words = owner.get(id(text)), _short(text.get_text())
    if ax is None:
        return f"the figure text {words}"
    titles = {ax.get_title(loc) for loc in ("center", "left", "right")}
    if text.axes is ax and text.get_text() in titles:
        return f"the title {words}"
    return f"text {words} of {axes_name(ax)}"


def _depth(a: Bbox, b: Bbox) -> float:
    """How far two overlapping boxes reach into each other (pixels, the smaller direction)."""
    return min(min(a.x1, b.x1) - max(a.x0, b.x0), min(a.y1, b.y1) - max(a.y0, b.y0))


def check_text_over_images(d: Drawn) -> list[str]:
    """A text over an image (``imshow``, ``pcolormesh``) hides pixels: a title running into
    the strip above, a tick label over a neighbouring panel. Only a text of the image's own
    axes with ``gid="on-image"`` (a value written in its cell) may sit on it."""
    owner, in_legend = owners(d), _legend_text_ids(d)
    images = []
    for ax in all_axes(d.fig):
        for s in series_of(d, ax):
            if s.kind == "image":
                region = _intersection(Bbox(s.boxes[0].reshape(2, 2)), s.clip)
                if region is not None:
                    images.append((ax, region))
    problems = []
    for text in d.texts:
        if id(text) in in_legend:  # a legend over an image is check_legends_over_data's
            continue
        box = d.extent(text)
        for ax, region in images:
            mine = owner.get(id(text)) is ax
            if not _overlap(box, region) or (mine and text.get_gid() == ON_IMAGE):
                continue
            where = "its own image" if mine else f"the image of {axes_name(ax)}"
            problems.append(
                f"{_describe(text, owner)} runs into {where} by "
                f"{_depth(box, region):.0f} px — make room (hspace/wspace, "
                "layout='constrained') or move the text"
                + (f" (or, if it labels a pixel, gid={ON_IMAGE!r})" if mine else "")
            )
    return problems


def legend_content(d: Drawn, legend) -> Bbox:
    """The box of what a legend draws (its texts and handles), without its padding."""
    parts = [d.extent(t) for t in [*legend.get_texts(), legend.get_title()] if t.get_text()]
    for handle in legend.legend_handles:
        if handle is not None and handle.get_visible():
            box = handle.get_window_extent(d.renderer)
            if np.isfinite(box.get_points()).all() and box.width + box.height > 0:
                parts.append(box)
    return Bbox.union(parts) if parts else d.extent(legend)


def _plotting_axes(d: Drawn) -> list:
    return [ax for ax in all_axes(d.fig) if ax.get_visible() and ax.axison]


def check_text_over_axes(d: Drawn) -> list[str]:
    """A text (or an axes' legend) reaching into the plotting area of another axes: a tick
    label in the neighbouring panel, a legend placed outside that lands on the next plot.
    Axes that overlap on purpose (twins, insets) are not neighbours."""
    owner, in_legend = owners(d), _legend_text_ids(d)
    items = [
        (_describe(t, owner), d.extent(t), owner.get(id(t)))
        for t in d.texts
        if id(t) not in in_legend
    ]
    items += [
        (f"the legend of {axes_name(g.axes)}", legend_content(d, g), g.axes)
        for g in legends_of(d)
        if g.axes is not None
    ]
    problems = []
    for what, box, mine in items:
        for ax in _plotting_axes(d):
            if ax is mine or (mine is not None and _overlap(mine.bbox, ax.bbox, 0)):
                continue
            if _overlap(box, ax.bbox):
                problems.append(
                    f"{what} runs into the plotting area of {axes_name(ax)} by "
                    f"{_depth(box, ax.bbox):.0f} px — make room (wspace/hspace, "
                    "layout='constrained') or move it"
                )
    return problems


def check_legend_on_axis(d: Drawn) -> list[str]:
    """A legend drawn over (or touching) an axis line or a tick label of its axes reads as
    part of the axis: keep a gap (loc=..., fewer columns, a wider axes)."""
    problems, in_legend = [], _legend_text_ids(d)
    legend_boxes = [d.extent(t) for t in d.texts if id(t) in in_legend]
    for legend in legends_of(d):
        ax = legend.axes
        if ax is None:
            continue
        content = legend_content(d, legend)
        whose = f"the legend of {axes_name(ax)}"
        for side, spine in ax.spines.items():
            if not spine.get_visible():
                continue
            line = spine.get_window_extent(d.renderer).padded(TOL)
            if _overlap(content, line, 0):
                problems.append(
                    f"{whose} touches its {side} axis line — move it inside (loc=..., "
                    "fewer columns, smaller text) or outside with a gap"
                )
        for text in d.texts:
            box = d.extent(text)
            if id(text) in in_legend or not _overlap(content, box, 0):
                continue
            if any(_overlap(b, box) for b in legend_boxes):  # already a text-over-text line
                continue
            problems.append(f"{whose} runs over the text {_short(text.get_text())}")
    return problems


# -- one colour per algorithm within a notebook -----------------------------------------------

#: The palette's colours with a fixed meaning (bmlab.NAVY, ORANGE, GRAY): a legend label in one
#: of them may not say what another of them means.
MEANINGS = {
    "#1f3b73": ("navy", "exact/model", ("exact", "model", "enumerat", "true")),
    "#e8862a": (
        "orange",
        "samples/estimates",
        ("sample", "chain", "estimate", "monte carlo", "mcmc", "ais", "gibbs", "glauber"),
    ),
    "#7f7f7f": ("gray", "references", ("reference", "baseline")),
}
COLOUR_NAMES = {"#4c9a6a": "green", "#b04a5a": "red", "#8a6fb3": "purple", "#3f9bbf": "blue"}
_TEX_WORDS = {
    **{rf"\{g}": letter for g, letter in zip(GREEK, "αβγδεζηθικλμνξοπρστυφχψω", strict=True)},
    r"\infty": "∞",
    r"\langle": "⟨",
    r"\rangle": "⟩",
    r"\to": "→",
}
#: A label that names a parameter value (``β = 2``, ``N=1000``, ``mode 3``), not an algorithm.
_PARAMETER = re.compile(r"^[^\W\d_]+(?:\s*=\s*[-+−]?|\s+)(?:\d[\d.]*|∞|inf)$")


def normal_label(label: str) -> str:
    """A legend label as compared across figures: TeX letters typed out, lower case."""
    for tex, letter in sorted(_TEX_WORDS.items(), key=lambda kv: -len(kv[0])):
        label = re.sub(re.escape(tex) + r"(?![A-Za-z])", letter, label)
    label = re.sub(r"\\(?:mathrm|mathit|text|mathbf)\b", "", label)
    label = re.sub(r"[${}\\]", "", label)
    return " ".join(label.lower().split())


def series_name(label: str) -> str:
    """What a label names: its text before the first comma, colon or parenthesis
    ("PCD-1, rate 0.03" names PCD-1)."""
    return re.split(r"[,:(]", normal_label(label), maxsplit=1)[0].strip()


def handle_colour(handle) -> str | None:
    """The colour a legend handle shows, as ``#rrggbb`` (None if it shows none)."""
    from matplotlib.collections import Collection
    from matplotlib.colors import to_hex
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch

    if isinstance(handle, Line2D):
        colours = [handle.get_color()]
    elif isinstance(handle, Patch):
        colours = [handle.get_facecolor(), handle.get_edgecolor()]
    elif isinstance(handle, Collection):
        colours = [*handle.get_facecolor()[:1], *handle.get_edgecolor()[:1]]
    else:
        return None
    shown = [c for c in colours if to_rgba(c)[3] > 0]
    return to_hex(shown[0], keep_alpha=False) if shown else None


def _colour_name(colour: str) -> str:
    name = MEANINGS[colour][0] if colour in MEANINGS else COLOUR_NAMES.get(colour)
    return f"{name} ({colour})" if name else colour


class ColourBook:
    """The legend colours of one notebook's figures, kept across them (one per kernel).

    Rules (one colour per algorithm): a label keeps its colour in every figure; a colour
    without a fixed meaning names one series (labels that start with the same name, as
    "PCD-1" and "PCD-1, rate 0.03", are one series; labels that name a parameter value,
    "β = 2", "N = 100", are free); navy, orange and gray keep their meaning, so a label in
    one of them may not say what another one means ("exact" in orange, "chains" in navy).
    """

    def __init__(self):
        self.colour_of: dict[str, tuple[str, str]] = {}  # normal label -> (colour, figure)
        self.name_of: dict[str, tuple[str, str]] = {}  # free colour -> (series name, figure)

    def record(self, d: Drawn, figure: str) -> list[str]:
        problems, seen = [], set()
        for legend in legends_of(d):
            for text, handle in zip(legend.get_texts(), legend.legend_handles, strict=False):
                colour, label = handle_colour(handle), text.get_text()
                if colour is None or not label.strip() or (label, colour) in seen:
                    continue
                seen.add((label, colour))
                problems += self._check(label, colour, figure)
        return problems

    def _check(self, label: str, colour: str, figure: str) -> list[str]:
        full, name = normal_label(label), series_name(label)
        problems = []
        before, where = self.colour_of.setdefault(full, (colour, figure))
        if before != colour:
            problems.append(
                f"{_short(label)} is {_colour_name(colour)} here but {_colour_name(before)} "
                f"in {where} — one colour per series in a notebook"
            )
        if colour in MEANINGS:
            own = MEANINGS[colour][2]
            says = [m for c, m in MEANINGS.items() if c != colour and any(w in full for w in m[2])]
            if says and not any(w in full for w in own):
                problems.append(
                    f"the {MEANINGS[colour][0]} series {_short(label)} says "
                    f"{says[0][1]} ({says[0][0]} in the palette): {MEANINGS[colour][0]} means "
                    f"{MEANINGS[colour][1]} — recolour it, or say in its label what it is"
                )
            return problems
        if not re.search(r"[^\W\d_]", name) or _PARAMETER.match(name):
            return problems
        other, where = self.name_of.setdefault(colour, (name, figure))
        if other != name:
            problems.append(
                f"{_colour_name(colour)} is {_short(label)} here but {other!r} in {where} — "
                "one colour per algorithm in a notebook (labels of one series start with the "
                "same name)"
            )
        return problems


CHECKS = (
    check_text_overlaps,
    check_legends_over_data,
    check_cut_off,
    check_integer_ticks,
    check_log_ticks,
    check_greek,
    check_twin_axes,
    check_series_told_apart,
    check_text_over_images,
    check_text_over_axes,
    check_legend_on_axis,
)


def audit(fig, book: ColourBook | None = None, name: str | None = None) -> list[str]:
    """Every problem of ``fig`` as displayed, one line each: ``<figure> — <problem>``.

    With ``book`` (the colour book of the notebook being run) the figure's legend colours are
    also checked against those of the figures shown before it; ``name`` names the figure
    (default :func:`figure_name`).
    """
    name = name or figure_name(fig)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        d = draw(fig)
        problems = [p for check in CHECKS for p in check(d)]
        if book is not None:
            problems += book.record(d, name)
    return [f"{name} — {p}" for p in dict.fromkeys(problems)]


_SAVED = re.compile(r"save_figure\(\s*(\w+)\s*,\s*[\"']([^\"']+)")


def displayed_name(fig, source: str = "", namespace: dict | None = None) -> str:
    """The figure's file name when the cell saves it (``bmlab.save_figure(fig, "fig05_x")``)
    followed by :func:`figure_name`, else :func:`figure_name` alone."""
    for variable, stem in _SAVED.findall(source):
        if (namespace or {}).get(variable) is fig:
            return f"{stem} {figure_name(fig)}"
    return figure_name(fig)


def _print(line: str) -> None:
    print(line, file=sys.stderr, flush=True)


# -- wiring -----------------------------------------------------------------------------------


def install(verbose: bool = False) -> None:
    """Audit every figure the inline backend renders (call it in an IPython startup file).

    Each problem is printed to stderr as ``figure audit: ...``; with ``verbose`` a figure
    without problems reports ``figure audit: <figure> — ok`` (for the command line below).
    One :class:`ColourBook` follows the figures of the kernel's notebook.
    """
    from IPython import get_ipython
    from IPython.core import pylabtools

    original = pylabtools.print_figure
    if getattr(original, "_bmlab_audit", False):
        return
    book, shell, cell = ColourBook(), get_ipython(), {"source": ""}
    if shell is not None:
        shell.events.register("pre_run_cell", lambda info: cell.update(source=info.raw_cell))

    def print_figure(fig, *args, **kwargs):
        if fig.axes or fig.lines:  # print_figure itself skips empty figures
            name = figure_name(fig)
            try:
                name = displayed_name(fig, cell["source"] or "", getattr(shell, "user_ns", {}))
                lines = audit(fig, book, name) or ([f"{name} — ok"] if verbose else [])
            except Exception as exc:  # an audit that cannot run must show, not hide a figure
                lines = [f"{name} — the audit failed: {exc!r}"]
            for line in lines:
                _print(PREFIX + line)
        return original(fig, *args, **kwargs)

    print_figure._bmlab_audit = True
    pylabtools.print_figure = print_figure


STARTUP = """# Written by bmlab's tests: audit every figure this kernel shows (figure_audit.py) and
# the margin of every verdict it computes (verdict_margins.py).
def _install_bmlab_checks():
    import importlib.util
    import sys
    from pathlib import Path

    def load(name):
        spec = importlib.util.spec_from_file_location(name, Path({folder!r}) / f"{{name}}.py")
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
        return module

    try:
        load("figure_audit").install(verbose={verbose!r})
        load("verdict_margins").install()
    except Exception as exc:  # say so in every cell: checks that did not start must fail
        message = f"figure audit: not installed ({{exc!r}})"
        get_ipython().events.register(
            "pre_run_cell", lambda info: print(message, file=sys.stderr)
        )


_install_bmlab_checks()
del _install_bmlab_checks
"""


def write_startup(ipython_dir: Path, verbose: bool = False) -> Path:
    """Make ``ipython_dir`` an IPYTHONDIR whose kernels audit every figure they show and check
    the margin of every verdict they compute."""
    startup = Path(ipython_dir) / "profile_default" / "startup"
    startup.mkdir(parents=True, exist_ok=True)
    path = startup / "00-bmlab-figure-audit.py"
    folder = str(Path(__file__).resolve().parent)
    path.write_text(STARTUP.format(folder=folder, verbose=verbose))
    return path


# -- command line -----------------------------------------------------------------------------


def _saved_as(source: str) -> str:
    names = re.findall(r"save_figure\(\s*\w+\s*,\s*[\"']([^\"']+)", source)
    return f" (saved as {', '.join(names)})" if names else ""


def audit_notebook(path: Path, timeout: int = 600) -> list[tuple[str, str, list[str]]]:
    """Execute ``path`` in memory with the audit on; per code cell that shows figures or
    computes a verdict without margin: (where it is: ``notebooks/X.py:<line>``, first line of
    its source, its audit and verdict-margin lines)."""
    import os
    import subprocess
    import tempfile

    import nbformat
    from nbclient import NotebookClient

    nb = nbformat.read(path, as_version=4)
    with tempfile.TemporaryDirectory() as tmp:
        write_startup(Path(tmp), verbose=True)
        saved = {k: os.environ.get(k) for k in ("IPYTHONDIR", "BMLAB_SAVE_FIGURES", "MPLBACKEND")}
        os.environ["IPYTHONDIR"] = tmp
        os.environ["BMLAB_SAVE_FIGURES"] = "0"
        os.environ.pop("MPLBACKEND", None)
        try:
            client = NotebookClient(
                nb, timeout=timeout, kernel_name="python3", allow_errors=True,
                resources={"metadata": {"path": str(Path(path).resolve().parent)}},
            )  # fmt: skip
            client.execute(stderr=subprocess.DEVNULL)
        finally:
            for key, value in saved.items():
                if value is None:
                    os.environ.pop(key, None)
                else:
                    os.environ[key] = value
    py = Path(path).with_suffix(".py")
    starts = []
    if py.exists():
        lines = py.read_text().splitlines()
        starts = [
            i + 2 for i, line in enumerate(lines) if line.startswith("# %%")
        ]  # first source line
    found = []
    for number, cell in enumerate(nb.cells, 1):
        if cell.cell_type != "code":
            continue
        lines = [
            line.removeprefix(PREFIX)
            for out in cell.get("outputs", [])
            if out.get("name") == "stderr"
            for line in out["text"].splitlines()
            if line.startswith((PREFIX, VERDICT_PREFIX))
        ]
        errors = [out["ename"] for out in cell.get("outputs", []) if out["output_type"] == "error"]
        lines += [f"the cell raised {name}" for name in errors]
        if lines:
            first = cell.source.strip().splitlines()[0] if cell.source.strip() else ""
            where = f"{py}:{starts[number - 1]}" if number <= len(starts) else f"cell {number}"
            found.append((where, first + _saved_as(cell.source), lines))
    return found


def main(argv: list[str]) -> int:
    if not argv:
        print("usage: python tests/figure_audit.py NOTEBOOK.ipynb [...]", file=sys.stderr)
        return 2
    n_problems = 0
    for path in map(Path, argv):
        print(f"# {path}")
        for where, first, lines in audit_notebook(path):
            problems = [line for line in lines if not line.endswith(" — ok")]
            n_problems += len(problems)
            print(f"{where}: {first}")
            for line in lines:
                print(f"    {line}")
    print(f"{n_problems} problem(s)")
    return 1 if n_problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
