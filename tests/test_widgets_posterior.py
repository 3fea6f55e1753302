"""Panel of notebook 06b: what it draws is the recorded posterior grid, point by point."""

from __future__ import annotations

import numpy as np
import pytest

from bmlab import load_results
from bmlab.widgets import PANELS
from bmlab.widgets.posterior import posterior_panel

RECORD = load_results("spherical_posterior")
POINTS = {(p["c_star"], p["eta"], p["gamma"]): p for p in RECORD["data"]["points"]}


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
    chain = point["chains"][0]
    for name in ("alignment", "condensation", "overlap"):
        assert f"{name} {chain[name]:.2f}" in panel.last_status
    assert f"reverse KL {chain['reverse_kl']:.1f} nats" in panel.last_status
    ax_map, ax_kl, ax_strip = panel.fig.axes[:3]
    etas, gammas = RECORD["params"]["etas"], RECORD["params"]["gammas"]
    i, j = etas.index(float(eta)), gammas.index(float(gamma))
    condensation = ax_map.images[0].get_array()
    assert condensation[i, j] == pytest.approx(chain["condensation"])
    here = next(line for line in ax_map.lines if line.get_marker() == "s")
    assert (here.get_xdata()[0], here.get_ydata()[0]) == (j, i)
    curve = ax_kl.lines[0]
    expected = [POINTS[float(teacher), float(eta), g]["chains"][0]["reverse_kl"] for g in gammas]
    np.testing.assert_allclose(curve.get_ydata(), expected)
    strip = np.array([row.split() for row in point["strip"]], float) / 4  # quarters of x_i
    np.testing.assert_allclose(ax_strip.images[0].get_array(), strip)


def test_phase_names_follow_the_thresholds():
    panel = posterior_panel()
    for (c_star, eta, gamma), point in POINTS.items():
        if gamma not in (3.0, 10000.0):
            continue
        panel.set(teacher=f"{c_star:g}", gamma=f"{gamma:g}", eta=f"{eta:g}")
        chain = point["chains"][0]
        if chain["condensation"] >= 0.2:
            assert "condensed" in panel.last_status
        else:
            silent = chain["alignment"] >= 0.5
            assert ("aligned but silent" in panel.last_status) == silent
            assert ("isotropic" in panel.last_status) == (not silent)


def test_bad_arguments_name_the_parameter():
    for name, value in [("teacher", "2"), ("gamma", "5"), ("eta", "0.5")]:
        with pytest.raises(ValueError, match=name):
            posterior_panel(**{name: value})
