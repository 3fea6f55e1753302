"""The Panel mechanism: in-place updates, errors become a sentence, programmatic driving."""

from __future__ import annotations

import base64
import io

import ipywidgets as widgets
import matplotlib
import matplotlib.image
import matplotlib.pyplot as plt
import numpy as np
import pytest

import bmlab

matplotlib.use("Agg")


def make_panel(training=False):
    fig, ax = plt.subplots()
    (line,) = ax.plot([0, 1], [0, 1])
    calls = []

    def update(slope, label):
        if slope < 0:
            raise ValueError("slope must be >= 0")
        if label == "warn":
            np.log(np.array([0.0]))  # emits a RuntimeWarning
        line.set_ydata([0, slope])
        calls.append(slope)
        return f"slope = {slope:.1f}"

    controls = {
        "slope": widgets.FloatSlider(value=1.0, min=-1.0, max=2.0),
        "label": widgets.Dropdown(options=["ok", "warn"], value="ok"),
    }
    return bmlab.Panel(fig, controls, update, title="demo", training=training), line, calls


def test_set_updates_artists_in_place_and_reports_seconds():
    panel, line, calls = make_panel()
    seconds = panel.set(slope=1.5)
    assert seconds >= 0
    assert list(line.get_ydata()) == [0, 1.5]
    assert calls == [1.5]  # one update per set(), not one per control change
    assert panel.last_status == "slope = 1.5" and panel.last_error is None
    assert len(panel.fig.axes[0].lines) == 1  # no new artists


def test_errors_and_warnings_become_a_status_sentence():
    panel, _line, _ = make_panel()
    panel.set(slope=-0.5)
    assert panel.last_error == "ValueError: slope must be >= 0"
    assert panel.last_status.startswith("Cannot draw this setting")
    panel.set(slope=0.5, label="warn")
    assert panel.last_error is not None and "RuntimeWarning" in panel.last_error


def test_slider_move_redraws_and_status_is_escaped():
    panel, _line, calls = make_panel()
    panel.controls["slope"].value = 0.7
    assert calls == [0.7]
    assert panel.status.value == "slope = 0.7"
    assert isinstance(panel.widget, widgets.VBox)


def test_training_panels_wait_for_the_run_button():
    panel, _, calls = make_panel(training=True)
    panel.controls["slope"].value = 0.3
    assert calls == []
    panel.button.click()
    assert calls == [0.3]


def test_unknown_control_is_named():
    panel, _, _ = make_panel()
    with pytest.raises(ValueError, match="unknown control"):
        panel.set(speed=1)


def test_training_progress_bar_follows_train_callback():
    fig = plt.figure()
    progress = bmlab.panel.TrainingProgress()

    def update(n):
        progress.start(n)
        seen = []
        for t in range(1, n + 1):
            progress.callback(t)
            seen.append(progress.bar.value)
        progress.finish()
        return f"{seen[n // 2 - 1]}"

    panel = bmlab.Panel(
        fig,
        {"n": widgets.IntSlider(value=200, min=10, max=500)},
        update,
        training=True,
        progress=progress,
    )
    assert panel.progress is progress.bar and progress.bar in panel.widget.children
    panel.set(n=200)
    assert panel.last_status == "100"  # halfway through, the bar shows 100 of 200
    assert progress.bar.value == progress.bar.max == 200
    assert progress.bar.bar_style == "success"


def test_display_bundle_carries_widget_view_png_snapshot_and_stable_title():
    panel, _, _ = make_panel()
    bundle = panel._repr_mimebundle_()
    assert set(bundle) == {"application/vnd.jupyter.widget-view+json", "image/png", "text/plain"}
    assert bundle["application/vnd.jupyter.widget-view+json"]["model_id"] == panel.widget.model_id
    png = base64.b64decode(bundle["image/png"])
    image = matplotlib.image.imread(io.BytesIO(png), format="png")
    assert image.ndim == 3 and min(image.shape[:2]) > 50
    assert bundle["text/plain"] == "bmlab panel: demo"  # no repr, address or model id
    assert make_panel()[0]._repr_mimebundle_()["text/plain"] == bundle["text/plain"]


def test_set_updates_what_is_displayed():
    """After ``panel.set(...)`` the status line shows the new state, not the old one."""
    import html

    from bmlab.widgets.glauber import two_basin_panel

    panel = two_basin_panel()
    panel.refresh()
    panel.set(beta=2.5)
    assert panel.last_status and panel.status.value == html.escape(panel.last_status)
    assert "2.50" in panel.status.value
