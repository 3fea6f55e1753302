"""Panel of notebook 04: exact numbers behind the bars, KL verdicts, no error/NaN/warning."""

from __future__ import annotations

import re

import matplotlib.text
import numpy as np
import pytest

from bmlab.data import parity
from bmlab.exact import empirical_distribution
from bmlab.hidden import HiddenMachine
from bmlab.widgets import PANELS
from bmlab.widgets.hidden import DATASETS, hidden_training_panel

NOT_FINITE = re.compile(r"\b(nan|inf)\b", re.IGNORECASE)


def _heights(panel, which):
    ax = panel.fig.axes[0]
    bars = ax.containers[0 if which == "data" else 1]
    return np.array([b.get_height() for b in bars if b.get_visible()])


def test_registered_and_builds_without_arguments():
    assert PANELS["04"] == {"hidden_training": hidden_training_panel}
    panel = hidden_training_panel()
    assert panel.training and set(panel.controls) == {
        "dataset",
        "machine",
        "n_hidden",
        "n_steps",
        "seed",
    }
    assert panel.progress in panel.widget.children


def test_default_run_fits_parity_and_bars_are_exact():
    panel = hidden_training_panel()
    panel.compute()
    assert panel.last_error is None
    assert "fits the data (KL < 0.01)" in panel.last_status
    m = HiddenMachine(3, 3, restricted=True)
    np.testing.assert_allclose(_heights(panel, "model"), m.prob_visible(panel.result.params))
    np.testing.assert_allclose(_heights(panel, "data"), empirical_distribution(parity(3)))
    assert panel.progress.value == panel.progress.max == 1500


def test_no_hidden_units_gives_log2_on_parity():
    panel = hidden_training_panel()
    panel.set(n_hidden=0, machine="general")
    assert "KL(p_data||p_model) = 0.6931" in panel.last_status
    assert "uniform" in panel.last_status
    np.testing.assert_allclose(_heights(panel, "model"), 1 / 8, atol=1e-6)


def test_switching_data_sets_resizes_the_bars():
    panel = hidden_training_panel()
    panel.set(dataset="parity, 4 bits", n_steps=300)
    assert len(_heights(panel, "model")) == 16
    panel.set(dataset="one-hot, 3 bits", machine="general", n_hidden=0, n_steps=1500)
    assert len(_heights(panel, "model")) == 8
    assert "fits the data" in panel.last_status


@pytest.mark.parametrize("dataset", sorted(DATASETS))
@pytest.mark.parametrize("machine", ["general", "restricted"])
@pytest.mark.parametrize("n_hidden", [0, 4])
def test_extremes_no_error_nan_or_warning(dataset, machine, n_hidden):
    panel = hidden_training_panel()
    panel.set(dataset=dataset, machine=machine, n_hidden=n_hidden, n_steps=100, seed=9)
    assert panel.last_error is None, panel.last_error
    texts = [t.get_text() for t in panel.fig.findobj(matplotlib.text.Text)]
    assert not NOT_FINITE.search(panel.last_status)
    assert not any(NOT_FINITE.search(t) for t in texts)


def test_longest_run_finishes_cleanly():
    panel = hidden_training_panel()
    panel.set(dataset="parity, 4 bits", machine="general", n_hidden=4, n_steps=4000)
    assert panel.last_error is None
