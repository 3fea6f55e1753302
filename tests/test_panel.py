"""The Panel mechanism: in-place updates, errors become a sentence, programmatic driving."""

from __future__ import annotations

import base64
import html
import inspect
import io
import re

import ipywidgets as widgets
import matplotlib
import matplotlib.image
import matplotlib.pyplot as plt
import numpy as np
import pytest

from bmlab.panel import Panel, choice, describe, describe_figures, slider
from bmlab.widgets import PANELS

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
    return Panel(fig, controls, update, title="demo", training=training), line, calls


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


def test_a_training_panel_trains_with_its_progress_bar():
    fig = plt.figure()
    seen = []

    def gradient(params, rng):
        seen.append(panel.progress.value)  # the bar as the update starts
        return {"w": np.ones(1)}

    def update(n):
        result = panel.train({"w": np.zeros(1)}, gradient, n_steps=n, lr=0.5)
        return f"w = {result.params['w'][0]:g}"

    controls = {"n": widgets.IntSlider(value=200, min=10, max=500)}
    panel = Panel(fig, controls, update, training=True)
    assert panel.result is None and panel.progress in panel.widget.children
    panel.set(n=200)
    assert panel.last_status == "w = 100" and panel.result.n_updates == 200
    assert seen[101] == 100  # halfway through, the bar shows 100 of 200 (updates of 2 each)
    assert panel.progress.value == panel.progress.max == 200
    assert panel.progress.bar_style == "success"
    assert make_panel()[0].progress is None


def test_slider_and_choice_validate_the_start_value_and_label_in_full():
    s = slider("n_sweeps", 400, 100, 10000, 100, description="sweeps")
    assert isinstance(s, widgets.IntSlider) and (s.value, s.min, s.max, s.step) == (
        400,
        100,
        10000,
        100,
    )
    assert s.description == "sweeps" and s.style.description_width == "initial"
    assert not s.continuous_update
    f = slider("beta", 1.0, 0.0, 3.0)
    assert isinstance(f, widgets.FloatSlider) and f.step == 0.05 and f.readout_format == ".2f"
    log = slider("lr", 0.1, 0.01, 1.0, log=True)
    assert isinstance(log, widgets.FloatLogSlider) and (log.min, log.max) == (-2.0, 0.0)
    with pytest.raises(ValueError, match="n_sweeps must be between 100 and 10000"):
        slider("n_sweeps", 50, 100, 10000)
    with pytest.raises(TypeError, match="seed must be an integer"):
        slider("seed", 1.5, 0, 9)
    c = choice("start", "noise", ("data", "noise"))
    assert isinstance(c, widgets.ToggleButtons) and c.value == "noise"
    # ipywidgets 8.1's ToggleButtons view lacks the class that puts every other control's
    # label beside it (the label sat above the buttons): choice adds it
    assert "widget-inline-hbox" in c._dom_classes
    d = choice("estimator", "b", [("label a", "a"), ("label b", "b")], dropdown=True)
    assert isinstance(d, widgets.Dropdown) and d.value == "b"
    with pytest.raises(ValueError, match="start must be one of"):
        choice("start", "middle", ("data", "noise"))


def _img(text: str) -> tuple[str, bytes]:
    """(alt text, PNG bytes) of the one ``<img>`` of an HTML output."""
    (alt, png), *more = re.findall(r'<img alt="([^"]*)" src="data:image/png;base64,([^"]+)">', text)
    assert not more
    return html.unescape(alt), base64.b64decode(png)


def test_display_bundle_carries_widget_view_described_snapshot_and_stable_title():
    panel, _, _ = make_panel()
    bundle = panel._repr_mimebundle_()
    assert set(bundle) == {"application/vnd.jupyter.widget-view+json", "text/html", "text/plain"}
    assert bundle["application/vnd.jupyter.widget-view+json"]["model_id"] == panel.widget.model_id
    alt, png = _img(bundle["text/html"])
    assert alt == "Figure of the panel demo. slope = 1.0"  # title and status line
    image = matplotlib.image.imread(io.BytesIO(png), format="png")
    assert image.ndim == 3 and min(image.shape[:2]) > 50
    assert bundle["text/plain"] == "bmlab panel: demo"  # no repr, address or model id
    assert make_panel()[0]._repr_mimebundle_()["text/plain"] == bundle["text/plain"]


def test_a_display_renders_the_figure_once(monkeypatch):
    """The display bundle reuses the image that ``refresh`` drew into the output area."""
    panel, _, _ = make_panel()
    renders = []
    draw = panel.render
    monkeypatch.setattr(panel, "render", lambda: renders.append(1) or draw())
    bundle = panel._repr_mimebundle_()
    assert len(renders) == 1
    assert bundle["text/html"] == panel._shown  # the image of the output area
    panel.set(slope=2.0)  # a later display shows the figure as it is then
    assert panel._repr_mimebundle_()["text/html"] == panel._shown != bundle["text/html"]


def test_builders_take_no_arguments():
    """Start values are no API: every registered builder declares its controls' starting
    values itself, and tests drive a panel through ``Panel.set``."""
    for build in (b for panels in PANELS.values() for b in panels.values()):
        assert not inspect.signature(build).parameters, build.__name__


def test_set_updates_what_is_displayed():
    """After ``panel.set(...)`` the status line shows the new state, not the old one."""
    import html

    from bmlab.widgets.glauber import two_basin_panel

    panel = two_basin_panel()
    panel.refresh()
    panel.set(beta=2.5)
    assert panel.last_status and panel.status.value == html.escape(panel.last_status)
    assert "2.50" in panel.status.value


def test_sliders_start_at_a_value_they_can_show():
    """A panel's first figure is the one its shown controls draw: the slider helper moves a
    value to the slider's grid (a log slider from 0.01 in 0.1 decades shows 0.316, not 0.3;
    started at 0.3 the first figure was not the one Run draws), and every registered panel
    starts each slider on its grid."""
    assert slider("lr", 0.3, 0.01, 1.0, log=True).value == pytest.approx(10**-0.5, rel=1e-12)
    assert slider("beta", 0.33, 0.0, 3.0).value == 0.35
    assert slider("n_steps", 290, 200, 5000, 200).value == 200
    assert slider("beta", 0.3, -2.0, 2.0).value == 0.3  # a value on the grid stays exact
    for name, build in ((n, b) for panels in PANELS.values() for n, b in panels.items()):
        for key, control in build().controls.items():
            if isinstance(control, widgets.FloatLogSlider):
                x, lo = np.log10(control.value) / np.log10(control.base), control.min
            elif isinstance(control, widgets.IntSlider | widgets.FloatSlider):
                x, lo = control.value, control.min
            else:
                continue
            steps = (x - lo) / control.step
            assert steps == pytest.approx(round(steps), abs=1e-9), (name, key, control.value)


def test_describe_reads_titles_and_axis_labels_as_plain_text():
    fig, (left, right) = plt.subplots(1, 2)
    fig.suptitle("Two views")
    left.set(title=r"$\beta$-sweep of $\langle s_1 s_2\rangle$", xlabel=r"$\beta$", ylabel="KL")
    right.set_title(r"$p_{\mathrm{data}}\,\|\,p$")
    fig.add_axes([0, 0, 0.1, 0.1]).set_axis_off()  # no title, no labels: not mentioned
    assert describe(fig) == "Figure: Two views; β-sweep of ⟨ s1 s2⟩ (KL against β); pdata ‖ p"
    fig.alt_text = "The exact law against one chain."
    assert describe(fig) == fig.alt_text  # a notebook's own description wins
    plt.close(fig)


def test_figures_show_as_images_with_alt_text_in_ipython(monkeypatch):
    """use_style() (through describe_figures) makes IPython show a figure as an <img> with alt
    text (JupyterLab's image/png renderer sets none) and its usual text/plain repr."""
    from types import SimpleNamespace

    from IPython.core.formatters import DisplayFormatter

    shell = SimpleNamespace(display_formatter=DisplayFormatter())
    monkeypatch.setattr("bmlab.panel.get_ipython", lambda: shell)
    monkeypatch.setattr("bmlab.panel.plt.get_backend", lambda: "inline")
    shown = []
    monkeypatch.setattr("bmlab.panel.display", lambda data, raw: shown.append(data))
    describe_figures()
    fig, ax = plt.subplots()
    ax.plot([0, 1], [1, 0])
    ax.set_title("a falling line")
    empty = plt.figure()
    assert shell.display_formatter.format(fig) == ({}, {})  # shown by describe_figures
    shell.display_formatter.format(empty)
    plt.close("all")
    (data, nothing) = shown
    assert set(data) == {"text/plain", "text/html"} and data["text/plain"] == repr(fig)
    alt, png = _img(data["text/html"])
    assert alt == "Figure: a falling line" and png.startswith(b"\x89PNG")
    assert nothing == {"text/plain": repr(empty)}  # an empty figure draws no image
