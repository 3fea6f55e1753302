"""The notebook-03 training panel: default run, every estimator, extremes, no NaN/warnings."""

from __future__ import annotations

import re

import matplotlib
import matplotlib.text
import numpy as np
import pytest

from bmlab.visible import visible_log_likelihood
from bmlab.widgets import PANELS
from bmlab.widgets.training import MAX_ABS_PARAM, default_data, training_panel

matplotlib.use("Agg")
NOT_FINITE = re.compile(r"\b(nan|inf)\b", re.IGNORECASE)


@pytest.fixture(scope="module")
def panel():
    return training_panel()


def _check_clean(panel):
    assert panel.last_error is None, panel.last_error
    assert not NOT_FINITE.search(panel.last_status or "")
    texts = [t.get_text() for t in panel.fig.findobj(matplotlib.text.Text)]
    assert not any(NOT_FINITE.search(t) for t in texts)


def test_registered_and_default_run_is_fast_and_reaches_the_maximum(panel):
    assert PANELS["03"] == {"ml_training": training_panel}
    assert panel.training and set(panel.controls) == {"lr", "n_steps", "estimator", "k"}
    panel.set()
    _check_clean(panel)
    assert "L = " in panel.last_status
    # the curve ends near the exact maximum, and it is the exact L of the run
    curve = panel.fig.axes[0].lines[0]
    L = np.asarray(curve.get_ydata())
    S = default_data()
    best = float(panel.last_status.split("maximum ")[1].split(")")[0])
    zero = {"J": np.zeros((9, 9)), "theta": np.zeros(9)}
    assert L[0] == pytest.approx(visible_log_likelihood(zero, S), abs=1e-9)
    assert L[-1] == pytest.approx(visible_log_likelihood(zero, S) + 2.6700, abs=1e-3)
    assert L[-1] > L[0] and L[-1] == pytest.approx(best, abs=0.02)
    assert panel.progress.value == panel.progress.max == 200


@pytest.mark.parametrize("estimator", ["exact", "glauber", "persistent", "frozen", "data"])
@pytest.mark.parametrize("lr", [1e-3, 0.3, 100.0])
def test_every_estimator_and_extreme_lr_is_clean(panel, estimator, lr):
    panel.set(estimator=estimator, lr=lr, n_steps=60, k=3)
    _check_clean(panel)
    scatter = panel.fig.axes[1].collections[0].get_offsets()
    assert np.all(np.isfinite(scatter))


def test_data_as_model_learns_nothing_and_frozen_drifts(panel):
    panel.set(estimator="data", lr=0.3, n_steps=50)
    L = panel.fig.axes[0].lines[0].get_ydata()
    assert np.ptp(L) == 0 and "identically zero" in panel.last_status
    panel.set(estimator="frozen", lr=10.0, n_steps=500)
    assert f"±{MAX_ABS_PARAM:g}" in panel.last_status and "drift" in panel.last_status


def test_huge_learning_rate_gives_a_message_not_nan(panel):
    panel.set(estimator="exact", lr=100.0, n_steps=500)
    _check_clean(panel)
    assert "stopped" in panel.last_status and "lower the learning rate" in panel.last_status


def test_a_falling_exact_likelihood_is_reported(panel):
    """Just above 2/|lambda_min| (about 0.23 here) L peaks and falls: the status says so."""
    panel.set(estimator="exact", lr=10**-0.6, n_steps=200)  # lr = 0.251
    _check_clean(panel)
    assert "fell from its peak" in panel.last_status
    panel.set(estimator="exact", lr=0.2, n_steps=200)
    assert "fell" not in panel.last_status


def test_maximum_settings_finish_cleanly(panel):
    panel.set(estimator="persistent", lr=1.0, n_steps=500, k=10)
    _check_clean(panel)
