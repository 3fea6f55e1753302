"""Panels of notebook 05: exact numbers behind the curves and bars, no error/NaN/warning."""

from __future__ import annotations

import re

import matplotlib.text
import numpy as np
import pytest

from bmlab.data import bars_and_stripes, max_log_likelihood
from bmlab.rbm import RBM
from bmlab.widgets import PANELS
from bmlab.widgets.rbm import _tile, rbm_sampling_panel, rbm_training_panel

pytestmark = pytest.mark.filterwarnings("error")
NOT_FINITE = re.compile(r"\b(nan|inf)\b", re.IGNORECASE)


def _texts(fig):
    return [t.get_text() for t in fig.findobj(matplotlib.text.Text) if t.get_text()]


def test_registered_and_build_without_arguments():
    assert PANELS["05"] == {"rbm_training": rbm_training_panel, "rbm_sampling": rbm_sampling_panel}
    assert list(PANELS["05"]) == ["rbm_training", "rbm_sampling"]
    train_panel = rbm_training_panel()
    assert train_panel.training
    assert set(train_panel.controls) == {
        "algorithm",
        "k",
        "lr",
        "n_hidden",
        "weight_decay",
        "n_steps",
        "seed",
    }
    assert train_panel.progress in train_panel.widget.children
    assert not rbm_sampling_panel().training


def test_default_training_run_curve_is_the_exact_likelihood():
    panel = rbm_training_panel()
    panel.set(n_steps=1000)
    assert panel.last_error is None, panel.last_error
    V = bars_and_stripes(3)
    final = RBM.from_params(panel.result.params).mean_log_likelihood(V)
    _, y = panel.fig.axes[0].lines[0].get_data()
    assert y[-1] == pytest.approx(final, abs=1e-12)
    assert y[-1] > y[0] + 1.0  # learning happened
    assert f"final log-likelihood {final:.3f}" in panel.last_status
    assert f"optimum {max_log_likelihood(V):.3f}" in panel.last_status
    assert panel.progress.value == panel.progress.max == 1000


@pytest.mark.parametrize(
    "setting",
    [
        {"algorithm": "PCD-k", "lr": 1.0, "k": 1, "n_steps": 1000},
        {"algorithm": "exact", "n_hidden": 1, "lr": 0.01, "n_steps": 200},
        {"algorithm": "CD-k", "k": 20, "weight_decay": 0.01, "n_steps": 200, "n_hidden": 16},
    ],
)
def test_extreme_training_settings_never_fail(setting):
    panel = rbm_training_panel()
    panel.set(**setting)
    assert panel.last_error is None, panel.last_error
    assert not NOT_FINITE.search(panel.last_status)
    assert not [t for t in _texts(panel.fig) if NOT_FINITE.search(t)]


def test_sampling_panel_one_step_from_data_reproduces_data_not_equilibrium():
    panel = rbm_sampling_panel()
    panel.compute()
    assert panel.last_error is None
    dist = [float(v) for v in re.findall(r"(\d\.\d\d)", panel.last_status)]
    assert dist[0] < 0.1 < dist[1]  # close to the data, far from equilibrium
    panel.set(gibbs_steps=200, start="noise")
    dist = [float(v) for v in re.findall(r"(\d\.\d\d)", panel.last_status)]
    assert dist[1] < 0.1 < dist[0]  # long chains: the model's own distribution
    panel.set(gibbs_steps=0, start="noise")
    assert panel.last_error is None


def test_sampling_strip_shows_one_chain_per_data_row():
    """With 0 Gibbs steps from the data the strip is the 16 data rows themselves (the first
    copy of each), not a few patterns repeated."""
    panel = rbm_sampling_panel()
    panel.set(gibbs_steps=0, start="data")
    shown = panel.fig.axes[0].images[0].get_array()
    np.testing.assert_array_equal(shown, _tile(bars_and_stripes(3)))


def _bar_heights(panel, which):  # which: 1 = the chains' bars, 2 = the exact p(v) bars
    return np.array([bar.get_height() for bar in panel.fig.axes[1].containers[which]])


def test_sampling_panel_at_beta_one_is_the_trained_model():
    """At beta = 1 the exact bars are the CD-1 model's own p(v) (as drawn at build), and moving
    the beta slider away and back restores the same chains and status."""
    panel = rbm_sampling_panel()
    built = _bar_heights(panel, 2)
    panel.set(gibbs_steps=50, start="noise")
    assert panel.last_error is None, panel.last_error
    np.testing.assert_allclose(_bar_heights(panel, 2), built, atol=1e-12)
    status, chains = panel.last_status, _bar_heights(panel, 1)
    panel.set(beta=0.3)
    assert not np.allclose(_bar_heights(panel, 2), built, atol=1e-3)
    panel.set(beta=1.0)
    assert panel.last_status == status
    np.testing.assert_array_equal(_bar_heights(panel, 1), chains)


@pytest.mark.parametrize("beta", [0.0, 0.05])
def test_sampling_panel_small_beta_samples_approach_uniform(beta):
    """Near beta = 0 every state has probability close to 1/512: the exact bars flatten to
    1/512 and the number of the 800 chains on the 14 valid patterns is binomial(800, 14/512)
    (z-score below 4)."""
    panel = rbm_sampling_panel()
    panel.set(gibbs_steps=20, start="data", beta=beta)
    assert panel.last_error is None, panel.last_error
    np.testing.assert_allclose(_bar_heights(panel, 2), 1 / 512, rtol=0.5 if beta else 1e-12)
    n_valid, p_valid = 800 * _bar_heights(panel, 1).sum(), 14 / 512
    assert abs(n_valid - 800 * p_valid) < 4 * np.sqrt(800 * p_valid * (1 - p_valid))
