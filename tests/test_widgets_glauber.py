"""Live panels of notebook 01: fuzzed settings, in-place redraws, exact numbers shown."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pytest
from scipy import stats

import bmlab
from bmlab.panel import Panel
from bmlab.widgets import PANELS
from bmlab.widgets import glauber as wg

NAMES = ["glauber_fig53", "glauber_two_basin", "glauber_tempering"]


def test_registered_in_display_order():
    assert list(PANELS["01"]) == NAMES
    assert [PANELS["01"][n] for n in NAMES] == [
        wg.fig53_panel,
        wg.two_basin_panel,
        wg.tempering_panel,
    ]


@pytest.mark.parametrize("name", NAMES)
def test_registered_and_builds_with_defaults(name):
    panel = PANELS["01"][name]()
    assert isinstance(panel, Panel)
    status = panel.compute()
    assert panel.last_error is None, panel.last_error
    assert status and "nan" not in status.lower()


def _random_setting(panel, rng, extreme):
    values = {}
    for key, control in panel.controls.items():
        lo, hi = control.min, control.max
        if extreme:
            v = rng.choice([lo, hi])
        else:
            v = rng.uniform(lo, hi)
        if isinstance(control.value, int) and not isinstance(control.value, bool):
            v = int(np.rint(v))
        else:
            v = float(v)
        values[key] = v
    return values


def _artist_data_finite(fig):
    for ax in fig.axes:
        for line in ax.get_lines():
            assert np.all(np.isfinite(np.asarray(line.get_ydata(), dtype=float)))
        for patch in ax.patches:
            assert np.isfinite(patch.get_height())


@pytest.mark.parametrize("name", NAMES)
def test_fuzz_settings_never_error_nan_or_warn(name):
    panel = PANELS["01"][name]()
    rng = np.random.default_rng(2024)
    n_trials = 30 if name == "glauber_fig53" else 16
    for trial in range(n_trials):
        values = _random_setting(panel, rng, extreme=trial % 3 == 0)
        if name == "glauber_fig53" and trial % 3 == 0:
            values["n_sweeps"] = 200  # extremes of the couplings, kept quick
        panel.set(**values)
        assert panel.last_error is None, (values, panel.last_error)
        assert "nan" not in panel.last_status.lower(), (values, panel.last_status)
        _artist_data_finite(panel.fig)


def test_fig53_redraws_in_place_and_shows_exact_numbers():
    panel = wg.fig53_panel()
    artists_before = [id(a) for ax in panel.fig.axes for a in (*ax.patches, *ax.lines)]
    fig_before = panel.fig
    panel.set(J12=1.0, J23=1.0, J13=1.0, n_sweeps=500)
    assert panel.fig is fig_before
    assert [id(a) for ax in panel.fig.axes for a in (*ax.patches, *ax.lines)] == artists_before
    J = np.array([[0.0, 1.0, 1.0], [1.0, 0.0, 1.0], [1.0, 1.0, 0.0]])
    p = bmlab.boltzmann_probs(J)
    heights = np.array([b.get_height() for b in panel.fig.axes[0].patches[:8]])
    np.testing.assert_allclose(heights, p)
    _, C = bmlab.exact_moments(J)
    assert f"exact <s1 s2> = {C[0, 1]:.3f}" in panel.last_status


def test_fig53_default_is_the_lecture_machine():
    panel = wg.fig53_panel()
    panel.compute()
    assert panel.last_status.startswith("exact <s1 s2> = 0.276")
    chain = np.array([b.get_height() for b in panel.fig.axes[0].patches[8:]])
    assert chain.sum() == pytest.approx(1.0)
    # 4000 sweeps from one chain: visit frequencies within 0.05 TV of exact
    assert 0.5 * np.abs(chain - bmlab.boltzmann_probs(wg._triangle(0.5, 0.5, -0.5))).sum() < 0.05


def test_two_basin_exact_bars_are_symmetric_and_chains_freeze():
    panel = wg.two_basin_panel()
    panel.set(beta=3.0, seed=1)
    heights = np.array([b.get_height() for b in panel.fig.axes[1].patches])
    exact = heights[:13]
    np.testing.assert_allclose(exact, exact[::-1], atol=1e-12)  # exact law of m is symmetric
    assert exact.sum() == pytest.approx(1.0)
    assert "0 basin switches" in panel.last_status
    panel.set(beta=0.3, seed=1)
    switches = int(panel.last_status.split(";")[-1].split()[0])
    assert switches > 100


def test_markov_path_steps_follow_the_transition_matrix_chi_square():
    """Exact oracle for the panel's path sampler: the moves out of each state are multinomial
    with probabilities T[s] (chi-square over all rows at the 0.999 quantile)."""
    J, theta = wg._triangle(0.8, -0.4, 1.1), np.array([0.2, -0.3, 0.1])
    T = bmlab.glauber_transition_matrix(J, theta, 1.3)
    path = wg._markov_path(T, 200_000, 7, np.random.default_rng(3))
    prev = np.concatenate([[7], path[:-1]])
    counts = np.zeros((8, 8))
    np.add.at(counts, (prev, path), 1)
    expected = counts.sum(axis=1, keepdims=True) * T
    used = expected > 0
    assert np.all(counts[~used] == 0)  # never a move that T forbids
    chi2 = np.sum((counts[used] - expected[used]) ** 2 / expected[used])
    assert chi2 < stats.chi2.ppf(0.999, df=int(used.sum()) - 8), chi2


def test_state_labels_order():
    assert wg.state_labels(3)[0] == "\u2212\u2212\u2212"
    assert wg.state_labels(3)[1] == "+\u2212\u2212"  # bit 0 is spin 1
    assert wg.state_labels(3)[7] == "+++"


def test_figure_5_3_static():
    S = bmlab.all_states(3).astype(float)
    p = bmlab.boltzmann_probs(wg._triangle(0.5, 0.5, -0.5))
    fig = wg.figure_5_3(
        p,
        p,
        bmlab.energy(S, wg._triangle(0.5, 0.5, -0.5)),
        np.arange(1, 11) / 3,
        np.linspace(1, 0.3, 10),
        0.276,
    )
    assert len(fig.axes) == 2
    plt.close(fig)


def test_tempering_panel_draws_exact_law_and_tv_improves_with_temperatures():
    panel = wg.tempering_panel()
    panel.set(n_temps=1, seed=3)
    assert panel.last_error is None, panel.last_error
    exact = np.array([b.get_height() for b in panel.fig.axes[0].patches[:13]])
    assert exact.sum() == pytest.approx(1.0)
    np.testing.assert_allclose(exact, exact[::-1], atol=1e-12)  # the exact law of m is symmetric

    def tv_tempering():
        return float(panel.last_status.rsplit(" ", 1)[-1])

    tv_plain = tv_tempering()
    assert tv_plain > 0.4  # one chain at beta = 3 stays in its basin
    panel.set(n_temps=12, seed=3)
    assert tv_tempering() < 0.25 < tv_plain


def test_energy_labels_show_every_energy_the_sliders_allow_exactly():
    """The couplings and θ move on a grid of 0.05, so every E has at most two decimals; the
    labels show them all (issue 26: E = 1.75 read "+1.8" beside "−0.75")."""
    panel = wg.fig53_panel()
    S = bmlab.all_states(3).astype(float)
    rng = np.random.default_rng(1)
    grid = np.column_stack([rng.integers(-40, 41, (15, 3)), rng.integers(-20, 21, 15)]) * 0.05
    settings = [(0.5, 0.5, -0.5, 0.25), *grid.tolist()]
    for J12, J23, J13, theta in settings:
        panel.set(J12=J12, J23=J23, J13=J13, theta=theta)
        J = wg._triangle(*(panel.controls[c].value for c in ("J12", "J23", "J13")))
        E = bmlab.energy(S, J, np.full(3, panel.controls["theta"].value))
        labels = [text.get_text() for text in panel.fig.axes[0].texts]
        assert [float(label.replace("\u2212", "-")) for label in labels] == pytest.approx(
            E, abs=1e-9
        ), labels
    panel.set(J12=0.5, J23=0.5, J13=-0.5, theta=0.25)
    labels = [text.get_text() for text in panel.fig.axes[0].texts]
    assert "+1.75" in labels and "\u22120.75" in labels and "+0.25" in labels
