"""The one mechanism behind every live widget panel.

A :class:`Panel` owns a matplotlib figure, a dict of ipywidgets controls and an ``update``
function. ``update(**values)`` changes the figure's artists *in place* (``set_data``,
``set_height``, ``set_text``; never a new figure) and may return a short status line. The
panel re-renders the figure into its output area after every change. Whatever goes wrong
inside ``update`` is shown to the audience as one polite sentence -- never a traceback.

Panels are also driven from Python (``panel.set(J12=0.8)``), which is how the latency
benchmark and the fuzz tests exercise them without a browser.

A displayed panel's saved output carries, beside the live widget view, a PNG snapshot of its
figure and a stable ``text/plain`` title, so GitHub, nbviewer and ``nbconvert --to html`` (which
skip widget views without stored widget state) show the figure instead of a widget repr.
"""

from __future__ import annotations

import base64
import html
import io
import time
import warnings
from collections.abc import Callable

import ipywidgets as widgets
import matplotlib.pyplot as plt
from IPython.display import Image, display
from matplotlib.backends.backend_agg import FigureCanvasAgg


class TrainingProgress:
    """The progress bar of a training panel, fed by ``train(callback=progress.callback)``.

    ``start(n_steps)`` before a run, ``finish()`` after it; ``bar`` is the ipywidgets bar.
    """

    def __init__(self, description: str = "training"):
        self.bar = widgets.IntProgress(
            value=0,
            min=0,
            max=1,
            description=description,
            bar_style="info",
            style={"description_width": "initial"},
        )
        self._every = 1

    def start(self, n_steps: int) -> None:
        self.bar.max = max(1, int(n_steps))
        self.bar.value = 0
        self.bar.bar_style = "info"
        self._every = max(1, self.bar.max // 100)

    def callback(self, n_updates: int, _params=None) -> bool:
        """Advance the bar about every 1 % of the run; never asks ``train`` to stop."""
        if n_updates % self._every == 0 or n_updates >= self.bar.max:
            self.bar.value = min(self.bar.max, int(n_updates))
        return False

    def finish(self) -> None:
        self.bar.value = self.bar.max
        self.bar.bar_style = "success"


class Panel:
    """A figure plus controls that redraws in place.

    Parameters
    ----------
    fig : matplotlib.figure.Figure
        Built once by the panel's builder; ``update`` modifies its artists.
    controls : dict of str -> ipywidgets.ValueWidget
        Keyword name of each control; its ``value`` is passed to ``update``.
    update : callable
        ``update(**values) -> str | None``; returns an optional status line (HTML-escaped).
    title : str
        Shown above the controls.
    training : bool
        True for panels that train a model (exempt from the latency target; these use a
        "Run" button instead of reacting to every slider move).
    progress : TrainingProgress, optional
        Its bar is shown above the status line; ``panel.progress`` is that bar.
    """

    def __init__(
        self,
        fig,
        controls: dict,
        update: Callable[..., str | None],
        *,
        title: str = "",
        training: bool = False,
        progress: TrainingProgress | None = None,
    ):
        self.fig = fig
        self.title = title
        self.controls = controls
        self._update = update
        self.training = training
        self.progress = None if progress is None else progress.bar
        self.status = widgets.HTML()
        self.output = widgets.Output()
        self.last_status: str | None = None
        self.last_error: str | None = None
        self._quiet = False
        plt.close(fig)  # keep the inline backend from showing a second, static copy
        self._canvas = FigureCanvasAgg(fig)
        header = [widgets.HTML(f"<b>{html.escape(title)}</b>")] if title else []
        boxes = list(controls.values())
        if training:
            self.button = widgets.Button(description="Run", button_style="primary")
            self.button.on_click(lambda _: self.refresh())
            boxes.append(self.button)
        else:
            for control in controls.values():
                control.observe(self._on_change, names="value")
        bar = [] if self.progress is None else [self.progress]
        self.widget = widgets.VBox(
            [
                *header,
                widgets.HBox(boxes, layout=widgets.Layout(flex_flow="row wrap")),
                self.output,
                *bar,
                self.status,
            ]
        )
        self.widget.add_class("bmlab-panel")  # a stable hook for the browser tests

    def _on_change(self, _change) -> None:
        if not self._quiet:
            self.refresh()

    def values(self) -> dict:
        """Current value of every control."""
        return {name: control.value for name, control in self.controls.items()}

    def compute(self) -> str | None:
        """Run ``update`` with the current values; errors become a status message."""
        self.last_error = None
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("error")
                self.last_status = self._update(**self.values())
        except Exception as err:  # the audience sees a sentence, never a traceback
            self.last_error = f"{type(err).__name__}: {err}"
            self.last_status = f"Cannot draw this setting: {err}"
        return self.last_status

    def refresh(self) -> float:
        """Recompute, re-render into the output area; return the kernel-side seconds."""
        start = time.perf_counter()
        text = self.compute()
        self.status.value = "" if not text else html.escape(text)
        image = Image(self.render())
        with self.output:
            self.output.clear_output(wait=True)
            display(image)
        return time.perf_counter() - start

    def render(self) -> bytes:
        """The live image: PNG bytes from one Agg draw (the inline backend's tight bounding
        box draws the figure twice) and fast PNG compression (files about 8 % larger)."""
        buffer = io.BytesIO()
        self._canvas.print_png(buffer, pil_kwargs={"compress_level": 1})
        return buffer.getvalue()

    def set(self, **values) -> float:
        """Set controls programmatically (tests, benchmarks) and redraw once.

        Returns
        -------
        float
            Kernel-side seconds for the update and the redraw of the displayed output.
        """
        unknown = set(values) - set(self.controls)
        if unknown:
            raise ValueError(f"unknown control(s) {sorted(unknown)}; have {sorted(self.controls)}")
        self._quiet = True
        try:
            for name, value in values.items():
                self.controls[name].value = value
        finally:
            self._quiet = False
        start = time.perf_counter()
        self.refresh()  # the displayed figure and status show the new state (PNG included)
        return time.perf_counter() - start

    def snapshot(self) -> bytes:
        """The figure as it stands, as PNG bytes (rendered like the inline backend does)."""
        buffer = io.BytesIO()
        self.fig.savefig(buffer, format="png", bbox_inches="tight")
        return buffer.getvalue()

    def _repr_mimebundle_(self, **kwargs) -> dict:
        """Live widget view plus a static PNG and a stable title for kernel-less viewers."""
        self.refresh()
        bundle = self.widget._repr_mimebundle_(**kwargs)
        bundle["image/png"] = base64.b64encode(self.snapshot()).decode("ascii")
        bundle["text/plain"] = f"bmlab panel: {self.title}" if self.title else "bmlab panel"
        return bundle
