"""Fuzz every live panel from Python: random settings within each control's range.

For every builder of the registry ``bmlab.widgets.PANELS``: about 200 settings for a panel that
redraws on every slider move, a few for a training panel (they train for seconds; the controls that
set a run's length, such as ``steps``, stay at their minimum), always including all controls
at their minimum, all at their maximum, and each control alone at each extreme (beta at its
maximum, couplings at their limits, k = 1 and its maximum). Those extreme settings are drawn
to PNG as a notebook shows them. Of the random ones every ``DRAW_EVERY``-th is laid out and
drawn without rasterising (``draw_without_rendering``: every artist's draw runs, tick labels
included; only the pixels and the PNG encoding are skipped) and the others only update (the
draw is about three quarters of a setting's time). After each setting: no exception
(the panel turns one into ``last_error``), no NaN or inf in the status line or in any text of
the figure, and no warning (the suite runs with warnings as errors; ``Panel`` turns a warning
inside ``update`` into ``last_error`` too).
"""

from __future__ import annotations

import re
import zlib

import matplotlib.text
import numpy as np
import pytest
from widget_settings import settings

from bmlab.widgets import PANELS

N_SETTINGS = 200
N_TRAINING_SETTINGS = 4
DRAW_EVERY = 4  #: random settings: one in this many is drawn (without pixels)
#: Training panels train briefly: controls that set a run's length stay at their minimum.
RUN_LENGTH = re.compile(r"steps$|^epochs$|^n_updates$|^updates$|^n_sweeps$|^iterations$")
NOT_FINITE = re.compile(r"\b(nan|inf)\b", re.IGNORECASE)
BUILDERS = {name: build for panels in PANELS.values() for name, build in panels.items()}


def _texts(fig) -> list[str]:
    return [t.get_text() for t in fig.findobj(matplotlib.text.Text) if t.get_text()]


def test_registry_lists_documented_builders_by_notebook():
    assert list(PANELS) == sorted(PANELS) and all(re.fullmatch(r"\d\d[a-z]?", nb) for nb in PANELS)
    assert len(BUILDERS) == sum(len(panels) for panels in PANELS.values()), "a name twice"
    for name, builder in BUILDERS.items():
        assert callable(builder), name
        assert (builder.__doc__ or "").strip(), f"{name}: builder needs a docstring"


class _Drawing:
    """A stand-in for ``Panel.render`` on random settings: draws (without pixels) when
    ``draw`` is set, else nothing."""

    def __init__(self, panel):
        self.fig, self.draw = panel.fig, True

    def __call__(self) -> bytes:
        if self.draw:
            self.fig.draw_without_rendering()
        return b""


@pytest.mark.parametrize("name", sorted(BUILDERS))
def test_panel_survives_random_settings(name, monkeypatch):
    panel = BUILDERS[name]()
    n_extremes = 2 + 2 * len(panel.controls)  # settings() puts them first; drawn to PNG
    render = _Drawing(panel)
    assert panel.controls, f"{name}: a panel without controls"
    rng = np.random.default_rng(zlib.crc32(name.encode()))  # reproducible per panel
    n = N_TRAINING_SETTINGS if panel.training else N_SETTINGS
    for i, setting in enumerate(settings(panel.controls, n, rng)):
        if panel.training:
            for key, control in panel.controls.items():
                if RUN_LENGTH.search(key) and hasattr(control, "min"):
                    setting[key] = control.min
        if i == n_extremes:
            monkeypatch.setattr(panel, "render", render)
        render.draw = (i - n_extremes) % DRAW_EVERY == 0
        panel.set(**setting)
        where = f"{name}, setting {i}: {setting}"
        assert panel.last_error is None, f"{where}\n-> {panel.last_error}"
        status = panel.last_status or ""
        assert not NOT_FINITE.search(status), f"{where}\n-> status {status!r}"
        bad = [t for t in _texts(panel.fig) if NOT_FINITE.search(t)]
        assert not bad, f"{where}\n-> figure shows {bad}"
