"""Panel of notebook 07: the image is the exact law, the dot and the status name the phase."""

from __future__ import annotations

import numpy as np
import pytest

from bmlab.phases import COMPONENTS, mode_law, rbm_ensemble
from bmlab.widgets import PANELS
from bmlab.widgets.phases import EDGES, N_HIDDEN, N_VISIBLE, phase_lines, phase_of, phase_panel

pytestmark = pytest.mark.filterwarnings("error")


def test_registered_and_builds_without_arguments():
    assert PANELS["07"] == {"phase_diagram": phase_panel}
    panel = phase_panel()
    assert not panel.training and set(panel.controls) == {"T", "sigma", "components"}
    assert panel.controls["components"].options == COMPONENTS


@pytest.mark.parametrize(("T", "sigma", "law"), [(0.6, 0.0, "sparse"), (1.2, 0.4, "rademacher")])
def test_image_is_the_exact_law_of_the_two_modes(T, sigma, law):
    panel = phase_panel()
    panel.set(T=T, sigma=sigma, components=law)
    assert panel.last_error is None
    W, U, _ = rbm_ensemble(
        N_VISIBLE,
        N_HIDDEN,
        [1.0, 1.0],
        components=law,
        orthogonal=True,
        rng=np.random.default_rng(1),
    )
    noise = np.random.default_rng(0).normal(0, 1 / np.sqrt(32.0), W.shape)
    law_exact = mode_law(W + sigma * noise, U, beta=1 / T, edges=EDGES)
    image = panel.fig.axes[0].images[0].get_array()
    assert np.asarray(image) == pytest.approx(law_exact.hist, abs=1e-12)
    assert np.asarray(image).sum() == pytest.approx(1.0)
    dot = panel.fig.axes[1].lines[-1]
    assert dot.get_xdata()[0] == sigma and dot.get_ydata()[0] == T
    assert f"composition {law_exact.composition:.2f}" in panel.last_status


def test_rademacher_states_lie_on_the_axes_and_sparse_ones_on_the_diagonals():
    panel = phase_panel()
    panel.set(T=0.5, components="rademacher")
    pure = float(panel.last_status.split("composition ")[1].split(",")[0])
    panel.set(components="sparse")
    mixed = float(panel.last_status.split("composition ")[1].split(",")[0])
    assert pure < 0.1 and mixed > 0.9


@pytest.mark.parametrize(
    ("sigma", "T", "phase"),
    [
        (0.2, 1.4, "paramagnet"),
        (0.2, 0.5, "ferromagnet"),
        (1.3, 0.5, "spin glass"),
        (1.3, 1.4, "paramagnet"),
        (0.5, 1.0, "on a phase boundary"),
        (0.9, 0.3, "spin glass"),
        (0.75, 0.3, "ferromagnet"),
    ],
)
def test_phase_of_a_point(sigma, T, phase):
    assert phase_of(sigma, T, phase_lines()) == phase


def test_the_ferromagnet_spin_glass_line_runs_from_the_multicritical_point():
    sigma, T = phase_lines()["F-SG"]
    assert (sigma[0], T[0]) == (1.0, 1.0) and np.all(np.diff(T) < 0)
    assert 0.79 < sigma[-1] < 0.82 and T[-1] < 0.05  # towards sqrt(2/pi) = 0.798 at T = 0
    assert sigma.min() > 0.79 and sigma.max() <= 1.0
