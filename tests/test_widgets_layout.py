"""Projector layout of every live panel: no two drawn texts overlap, none leaves the figure, and no
legend covers data.

Each panel of the registry ``bmlab.widgets.PANELS`` is built in the projector style, updated
once at its default settings, at the settings of ``EXTRA`` and with every control at its minimum
and at its maximum (training panels: one Run each, the extremes with the shortest run), and
drawn on an Agg canvas as the live image is (not tight-cropped). Every text that matplotlib
actually draws (titles, axis and tick labels, legends, annotations, table cells) is recorded
during the draw; their window extents must not overlap by more than ``TOL`` pixels and must lie
inside the figure.
"""

from __future__ import annotations

import itertools

import matplotlib
import matplotlib.pyplot as plt
import numpy as np
import pytest
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.collections import Collection
from matplotlib.image import AxesImage
from matplotlib.legend import Legend
from matplotlib.lines import Line2D
from matplotlib.patches import Rectangle
from matplotlib.text import Text
from widget_settings import control_value

import bmlab
from bmlab.widgets import PANELS

matplotlib.use("Agg")

TOL = 1.0  # pixels two boxes may share (touching is fine)
_RUN_LENGTH = ("n_steps",)  # controls of a training panel kept short at the extremes
#: Settings beyond the defaults known to have collided (panel, control values).
EXTRA = [
    ("hidden_training", {"dataset": "parity, 4 bits", "n_hidden": 4}),
    ("hidden_training", {"dataset": "one-hot, 4 bits", "machine": "general"}),
    ("rbm_training", {"algorithm": "exact"}),
    ("rbm_sampling", {"gibbs_steps": 200, "start": "noise"}),
    ("z_wall", {"N": 600}),
    ("z_ledger", {"J13": 0.5}),
    ("glauber_two_basin", {"beta": 3.0}),
]
BUILDERS = {name: build for panels in PANELS.values() for name, build in panels.items()}
#: Live panels are also drawn with every control at its minimum and at its maximum.
CASES = (
    [(name, {}) for name in BUILDERS]
    + EXTRA
    + [(name, extreme) for name in BUILDERS for extreme in ("min", "max")]
)


def _drawn_panel(name, values):
    """Build panel ``name`` in the projector style, set ``values``, draw; return
    (panel, renderer, drawn texts)."""
    bmlab.use_style("projector")
    panel = BUILDERS[name]()
    if isinstance(values, str):  # an extreme: every control at its minimum or maximum
        values = {k: control_value(c, None, values) for k, c in panel.controls.items()}
        if panel.training:  # the shortest run (the defaults run in full)
            values.update({k: panel.controls[k].min for k in _RUN_LENGTH if k in values})
    panel.compute()  # the default settings, drawn first (live panels lay out at this draw)
    FigureCanvasAgg(panel.fig).draw()
    for key, value in values.items():
        panel.controls[key].value = value
    panel.compute()
    assert panel.last_error is None, panel.last_error
    drawn, original = [], Text.draw

    def recording_draw(self, renderer):
        if self.get_visible() and self.get_text().strip():
            drawn.append(self)
        return original(self, renderer)

    canvas = FigureCanvasAgg(panel.fig)
    Text.draw = recording_draw
    try:
        canvas.draw()
    finally:
        Text.draw = original
    return panel, canvas.get_renderer(), drawn


def _overlap(a, b) -> bool:
    return (min(a.x1, b.x1) - max(a.x0, b.x0) > TOL) and (min(a.y1, b.y1) - max(a.y0, b.y0) > TOL)


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")
    bmlab.use_style("screen")


@pytest.mark.parametrize(
    ("name", "values"), CASES, ids=[f"{n}-{i}" for i, (n, _) in enumerate(CASES)]
)
def test_texts_do_not_collide_or_leave_the_figure_and_legends_avoid_data(name, values):
    panel, renderer, texts = _drawn_panel(name, values)
    assert texts, "nothing drawn"
    boxes = [(t.get_text(), t.get_window_extent(renderer)) for t in texts]
    fig_box = panel.fig.bbox
    outside = [
        text
        for text, b in boxes
        if b.x0 < fig_box.x0 - TOL
        or b.y0 < fig_box.y0 - TOL
        or b.x1 > fig_box.x1 + TOL
        or b.y1 > fig_box.y1 + TOL
    ]
    assert not outside, f"{name}: texts leave the figure: {outside}"
    hits = [(s, t) for (s, a), (t, b) in itertools.combinations(boxes, 2) if _overlap(a, b)]
    assert not hits, f"{name}: overlapping texts: {hits}"
    _assert_legends_do_not_cover_data(panel, renderer, name)


def _data_boxes(ax, renderer):
    """Display-space boxes (x0, y0, x1, y1) of the data drawn in ``ax``: line vertices (sampled
    along each segment), bars, scatter points and images."""
    out = []
    for line in ax.lines:
        if not line.get_visible() or len(line.get_xydata()) == 0:
            continue
        xy = line.get_transform().transform(line.get_xydata())
        t = np.linspace(0.0, 1.0, 25)[:, None, None]
        pts = (xy[:-1] * (1 - t) + xy[1:] * t).reshape(-1, 2) if len(xy) > 1 else xy
        out.extend(np.column_stack([pts, pts]))
    for patch in ax.patches:
        if isinstance(patch, Rectangle) and patch.get_visible() and patch.get_height() > 0:
            b = patch.get_window_extent(renderer)
            out.append((b.x0, b.y0, b.x1, b.y1))
    for coll in ax.collections:
        if isinstance(coll, Collection) and coll.get_visible() and len(coll.get_offsets()):
            pts = coll.get_offset_transform().transform(coll.get_offsets())
            out.extend(np.column_stack([pts, pts]))
    for image in ax.images:
        if isinstance(image, AxesImage) and image.get_visible():
            b = image.get_window_extent(renderer)
            out.append((b.x0, b.y0, b.x1, b.y1))
    return np.asarray(out, dtype=float).reshape(-1, 4)


def _assert_legends_do_not_cover_data(panel, renderer, name):
    """No legend inside an axes may cover its lines, bars, points or images."""
    for ax in panel.fig.axes:
        legend = ax.get_legend()
        if legend is None or not isinstance(legend, Legend) or not legend.get_visible():
            continue
        b = legend.get_window_extent(renderer)
        d = _data_boxes(ax, renderer)
        inside = (
            (d[:, 2] > b.x0 + TOL)
            & (d[:, 0] < b.x1 - TOL)
            & (d[:, 3] > b.y0 + TOL)
            & (d[:, 1] < b.y1 - TOL)
        )
        assert not inside.any(), f"{name}: the legend of {ax.get_title()!r} covers data"


def test_legend_handles_are_lines_or_patches():
    """Sanity of the checker itself: a legend placed on a line is caught."""
    bmlab.use_style("projector")
    fig, ax = plt.subplots()
    ax.plot([0, 1], [0.5, 0.5], label="flat")
    legend = ax.legend(loc="center")
    canvas = FigureCanvasAgg(fig)
    canvas.draw()
    renderer = canvas.get_renderer()
    d = _data_boxes(ax, renderer)
    b = legend.get_window_extent(renderer)
    assert ((d[:, 0] > b.x0) & (d[:, 0] < b.x1) & (d[:, 1] > b.y0) & (d[:, 1] < b.y1)).any()
    assert isinstance(ax.lines[0], Line2D)
