"""Panel of notebook 06: the exact share on the curve, samples that agree with it."""

from __future__ import annotations

import numpy as np
import pytest

from bmlab import spherical_moments
from bmlab.widgets import PANELS
from bmlab.widgets.spherical import SIZES, condensation_panel


def _exact_share(n: int, beta: float) -> float:
    lam = np.zeros(n)
    lam[-1] = 1.0
    return spherical_moments(lam, beta)[1][-1] / n


def test_registered_and_builds_without_arguments():
    assert PANELS["06"] == {"spherical_condensation": condensation_panel}
    panel = condensation_panel()
    assert not panel.training and set(panel.controls) == {"beta", "n"}
    assert panel.controls["n"].options == tuple(str(n) for n in SIZES)


@pytest.mark.parametrize(("beta", "n"), [(0.5, "30"), (1.5, "100"), (3.0, "300")])
def test_dot_curve_and_line_show_the_exact_share(beta, n):
    panel = condensation_panel()
    panel.set(beta=beta, n=n)
    assert panel.last_error is None
    q = _exact_share(int(n), beta)
    ax_q, ax_h = panel.fig.axes
    dot = next(line for line in ax_q.lines if line.get_marker() == "o")
    assert dot.get_xdata()[0] == beta and dot.get_ydata()[0] == pytest.approx(q, rel=1e-12)
    curve = ax_q.lines[1]
    i = int(np.argmin(np.abs(curve.get_xdata() - beta)))
    assert curve.get_ydata()[i] == pytest.approx(_exact_share(int(n), curve.get_xdata()[i]))
    assert ax_h.lines[0].get_xdata()[0] == pytest.approx(q)
    assert f"q = {q:.3f}" in panel.last_status


@pytest.mark.parametrize(("beta", "n"), [(0.5, "100"), (2.0, "100"), (3.0, "300")])
def test_histogram_of_samples_agrees_with_the_exact_share(beta, n):
    """The bars are the sample shares binned on [0, 1]: their mean (bin centres) lies within
    5 standard errors (plus half a bin) of the exact share."""
    panel = condensation_panel()
    panel.set(beta=beta, n=n)
    bars = panel.fig.axes[1].patches
    heights = np.array([b.get_height() for b in bars])
    centres = np.array([b.get_x() + b.get_width() / 2 for b in bars])
    assert heights.sum() == pytest.approx(1.0)
    mean = heights @ centres
    spread = np.sqrt(heights @ (centres - mean) ** 2)
    half_bin = bars[0].get_width() / 2
    assert abs(mean - _exact_share(int(n), beta)) < 5 * spread / np.sqrt(300) + half_bin


def test_condensed_only_above_beta_one():
    panel = condensation_panel()
    panel.set(beta=0.6, n="300")
    assert "not condensed" in panel.last_status
    panel.set(beta=2.5)
    assert panel.last_status.endswith("condensed") and "not" not in panel.last_status
