"""Panel of notebook 06b: what it draws is the recorded posterior grid, point by point."""

from __future__ import annotations

import numpy as np
import pytest

from bmlab import load_results
from bmlab.widgets import PANELS
from bmlab.widgets.posterior import posterior_panel

RECORD = load_results("spherical_posterior")
POINTS = {(p["c_star"], p["eta"], p["gamma"]): p for p in RECORD["data"]["points"]}


def pooled(point, measure):
    """The two chains' mean of a measure and its standard error (what the panel shows)."""
    values = [chain[measure] for chain in point["chains"]]
    errors = [chain[f"{measure}_se"] for chain in point["chains"]]
    return float(np.mean(values)), float(np.sqrt(np.sum(np.square(errors)))) / 2


def test_registered_and_builds_without_arguments():
    assert PANELS["06b"] == {"spherical_posterior": posterior_panel}
    panel = posterior_panel()
    assert not panel.training and set(panel.controls) == {"teacher", "gamma", "eta"}
    assert panel.controls["gamma"].options == tuple(f"{g:g}" for g in RECORD["params"]["gammas"])
    assert panel.controls["eta"].options == tuple(f"{e:g}" for e in RECORD["params"]["etas"])


@pytest.mark.parametrize(
    ("teacher", "gamma", "eta"), [("3", "1000", "0.1"), ("1.5", "3", "0.03"), ("3", "10000", "10")]
)
def test_the_figure_and_status_show_the_recorded_point(teacher, gamma, eta):
    panel = posterior_panel()
    panel.set(teacher=teacher, gamma=gamma, eta=eta)
    assert panel.last_error is None
    point = POINTS[float(teacher), float(eta), float(gamma)]
    for name in ("alignment", "condensation", "overlap"):
        assert f"{name} {pooled(point, name)[0]:.2f}" in panel.last_status
    assert f"reverse KL {pooled(point, 'reverse_kl')[0]:.1f} nats" in panel.last_status
    ax_map, ax_kl, ax_strip = panel.fig.axes[:3]
    etas, gammas = RECORD["params"]["etas"], RECORD["params"]["gammas"]
    i, j = etas.index(float(eta)), gammas.index(float(gamma))
    condensation = ax_map.images[0].get_array()
    assert condensation[i, j] == pytest.approx(pooled(point, "condensation")[0])
    here = next(line for line in ax_map.lines if line.get_marker() == "s")
    assert (here.get_xdata()[0], here.get_ydata()[0]) == (j, i)
    curve = ax_kl.lines[0]
    expected = [pooled(POINTS[float(teacher), float(eta), g], "reverse_kl")[0] for g in gammas]
    np.testing.assert_allclose(curve.get_ydata(), expected)
    strip = np.array([row.split() for row in point["strip"]], float) / 4  # quarters of x_i
    np.testing.assert_allclose(ax_strip.images[0].get_array(), strip)


def test_phase_names_follow_the_thresholds_at_4_standard_errors():
    """Condensed: mean condensation >= 0.2; along u: mean alignment >= 0.5; a point is named
    only when both means lie more than 4 standard errors from these thresholds."""
    panel = posterior_panel()
    names = {
        (True, True): "condensed along the teacher",
        (True, False): "condensed off the teacher",
        (False, True): "aligned but silent",
        (False, False): "isotropic",
    }
    undecided = 0
    for (c_star, eta, gamma), point in POINTS.items():
        panel.set(teacher=f"{c_star:g}", gamma=f"{gamma:g}", eta=f"{eta:g}")
        (H, se_h), (A, se_a) = pooled(point, "condensation"), pooled(point, "alignment")
        if abs(H - 0.2) <= 4 * se_h or abs(A - 0.5) <= 4 * se_a:
            undecided += 1
            assert "undecided" in panel.last_status
        else:
            phase = names[H >= 0.2, A >= 0.5]
            assert f": {phase} (" in panel.last_status
            assert "undecided" not in panel.last_status
        dots = {
            (int(x), int(y))
            for line in panel.fig.axes[0].lines
            if line.get_marker() == "o"
            for x, y in zip(line.get_xdata(), line.get_ydata(), strict=True)
        }
        i = RECORD["params"]["etas"].index(eta)
        j = RECORD["params"]["gammas"].index(gamma)
        assert ((j, i) in dots) == panel.last_status.split(": ")[1].startswith(
            ("condensed along", "aligned but")
        )
    assert 0 < undecided < len(POINTS) // 4  # both kinds occur in the record
