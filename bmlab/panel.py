"""The one mechanism behind every live widget panel.

A :class:`Panel` owns a matplotlib figure, a dict of ipywidgets controls and an ``update``
function. ``update(**values)`` changes the figure's artists *in place* (``set_data``,
``set_height``, ``set_text``; never a new figure) and may return a short status line. The
panel re-renders the figure into its output area after every change. Whatever goes wrong
inside ``update`` is shown to the audience as one polite sentence -- never a traceback.

Panels are also driven from Python (``panel.set(J12=0.8)``), which is how the tests, the
latency benchmark and the fuzz tests exercise them without a browser. The builders of
:mod:`bmlab.widgets` take no arguments: they make their controls with :func:`slider` and
:func:`choice` at literal starting values, train with :meth:`Panel.train` and share the small
figure helpers below.

A displayed panel's saved output carries, beside the live widget view, a snapshot of its
figure and a stable ``text/plain`` title, so GitHub, nbviewer and ``nbconvert --to html`` (which
skip widget views without stored widget state) show the figure instead of a widget repr.
Every figure shown (a panel's, its snapshot, and after :func:`bmlab.use_style` any other) is an
``<img>`` with alt text (:func:`describe`): JupyterLab's ``image/png`` renderer sets none.
"""

from __future__ import annotations

import base64
import html
import io
import math
import re
import time
import warnings
from collections.abc import Callable

import ipywidgets as widgets
import matplotlib.pyplot as plt
from IPython import get_ipython
from IPython.core import pylabtools
from IPython.display import HTML, display
from matplotlib._mathtext_data import tex2uni
from matplotlib.backends.backend_agg import FigureCanvasAgg

from ._checks import check_choice, check_in_range
from .learning import train
from .plotting import GRAY

_FULL_LABEL = {"description_width": "initial"}  # a control's description is never cut
#: ipywidgets leaves a slider's handle without an accessible name: name each handle of the
#: panels on the page after its slider's label, now and whenever widgets are drawn later.
_NAME_SLIDERS = """<script>(() => {
  const name = () => document.querySelectorAll(".bmlab-panel .noUi-handle:not([aria-label])")
    .forEach(h => h.setAttribute("aria-label",
      h.closest(".widget-slider").querySelector(".widget-label").textContent));
  name();
  window.bmlabNames ??= new MutationObserver(name);
  window.bmlabNames.observe(document.body, {childList: true, subtree: true});
})();</script>"""
#: The label of a reference line: gray like the line, at its right end, just above it.
_REFERENCE_LABEL = {"color": GRAY, "fontsize": "small", "ha": "right", "va": "bottom"}


def slider(name: str, value, lo, hi, step=None, *, description=None, log=False, **kw):
    """The slider of control ``name`` of a panel builder, starting at ``value``.

    Integer bounds give an ``IntSlider`` (step 1 unless given), float bounds a
    ``FloatSlider`` (step 0.05, two decimals), ``log=True`` a ``FloatLogSlider`` from ``lo``
    to ``hi`` (base 10, ``step`` in decades, default 0.1). A new value is sent when the slider
    is released unless ``continuous_update=True`` is given; ``kw`` goes to the widget.
    ``value`` moves to the slider's grid (0.3 on a log slider from 0.01 to 0.316): the first
    figure is the one its shown controls draw.

    Raises
    ------
    TypeError, ValueError
        If ``value`` is not a number in [lo, hi] (an integer for integer bounds), naming the
        control ``name``.
    """
    integer = isinstance(lo, int) and isinstance(hi, int) and not log
    value = check_in_range(value, name, lo, hi, integer=integer)
    kw = {
        "description": description or name,
        "continuous_update": False,
        "style": _FULL_LABEL,
        **kw,
    }
    if log:
        lo, hi, step = math.log10(lo), math.log10(hi), step or 0.1
        value = 10 ** _on_grid(math.log10(value), lo, step)
        return widgets.FloatLogSlider(value=value, base=10, min=lo, max=hi, step=step, **kw)
    kind, step = (widgets.IntSlider, step or 1) if integer else (widgets.FloatSlider, step or 0.05)
    kw = kw if integer else {"readout_format": ".2f", **kw}
    return kind(value=_on_grid(value, lo, step), min=lo, max=hi, step=step, **kw)


def _on_grid(x, lo, step):
    """The point of the grid lo, lo + step, ... nearest to ``x`` (to 12 decimals)."""
    return round(lo + round((x - lo) / step) * step, 12)


def choice(name: str, value: str, options, *, description=None, dropdown=False):
    """A ``ToggleButtons`` (``dropdown=True``: a ``Dropdown``) control ``name`` starting at
    ``value``; ``options`` are values or ``(label, value)`` pairs. A ``value`` that is not one
    of them raises a ValueError naming ``name``."""
    check_choice(value, name, tuple(o[1] if isinstance(o, tuple) else o for o in options))
    kind = widgets.Dropdown if dropdown else widgets.ToggleButtons
    control = kind(
        options=list(options), value=value, description=description or name, style=_FULL_LABEL
    )
    return control.add_class("widget-inline-hbox")


def describe(fig) -> str:
    """The alt text of ``fig``: its ``alt_text`` attribute if a notebook sets one, else
    "Figure: " with its suptitle and, per axes, its title and "y against x" axis labels,
    mathtext in plain letters (``$\\beta$`` becomes β)."""
    if getattr(fig, "alt_text", ""):
        return fig.alt_text
    parts = [fig.get_suptitle()]
    for ax in fig.axes:
        title = " ".join(filter(None, (ax.get_title(loc) for loc in ("left", "center", "right"))))
        labels = " against ".join(filter(None, (ax.get_ylabel(), ax.get_xlabel())))
        parts.append(f"{title} ({labels})" if title and labels else title or labels)
    text = re.sub(r"\\([A-Za-z]+)|\\(.)|[$^_{}]", _plain, "; ".join(filter(None, parts)))
    return "Figure: " + " ".join(text.split())


def _plain(tex) -> str:
    """A TeX command or markup character matched in mathtext, as plain text."""
    name = tex[1] or tex[2] or ""
    if name in tex2uni:
        return chr(tex2uni[name])  # \beta: β
    return "" if name.startswith("math") or not name else " " if name in ",;:! " else name


def _image_html(png: str, alt: str) -> str:
    """An ``<img>`` of a base64 PNG with its alt text."""
    return f'<img alt="{html.escape(alt)}" src="data:image/png;base64,{png}">'


def _show_described(fig) -> None:
    """Show ``fig`` as an image with alt text (through the inline backend's ``print_figure``,
    which the tests' figure audit wraps); an empty figure as its repr."""
    data = {"text/plain": repr(fig)}
    if png := pylabtools.print_figure(fig, "png", base64=True):
        data["text/html"] = _image_html(png, describe(fig))
    display(data, raw=True)


def describe_figures() -> None:
    """In IPython with the inline backend, show every figure as an image with alt text
    (:func:`describe`); :func:`bmlab.use_style` calls it."""
    shell = get_ipython()
    if shell is not None and "inline" in plt.get_backend():
        shell.display_formatter.ipython_display_formatter.for_type(plt.Figure, _show_described)


def layout_once(fig):
    """Lay ``fig`` out with the constrained engine at its first draw, then keep that layout:
    a live panel's slider redraws skip the layout pass (about a third of the render time)."""
    fig.set_layout_engine("constrained", w_pad=0.1)  # slack for tick labels that change
    fig.canvas.mpl_connect("draw_event", lambda _: fig.set_layout_engine("none"))
    return fig


def set_heights(bars, heights) -> None:
    """Move the bars of a bar container to new heights, in place."""
    for bar, height in zip(bars, heights, strict=True):
        bar.set_height(height)


def reference_line(ax, y: float, label: str):
    """A dashed gray line at height ``y``, labelled at its right end instead of in a legend
    over the data; returns ``(line, text)``."""
    line = ax.axhline(y, color=GRAY, ls="--", lw=1)
    text = ax.text(0.98, y, label, transform=ax.get_yaxis_transform(), **_REFERENCE_LABEL)
    return line, text


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
        A panel that trains a model: a "Run" button instead of a redraw at every control
        change (training panels are exempt from the latency target), and a progress bar
        ``panel.progress`` above the status line that :meth:`train` advances.
    """

    def __init__(
        self,
        fig,
        controls: dict,
        update: Callable[..., str | None],
        *,
        title: str = "",
        training: bool = False,
    ):
        self.fig = fig
        self.title = title
        self.controls = controls
        self._update = update
        self.training = training
        self.result = None  # the last training run's TrainResult
        self.status = widgets.HTML()
        self.output = widgets.Output()
        self.last_status: str | None = None
        self.last_error: str | None = None
        self._shown = ""  # the image the output area shows, with its alt text
        self._quiet = False
        plt.close(fig)  # keep the inline backend from showing a second, static copy
        self._canvas = FigureCanvasAgg(fig)
        box = widgets.HBox(list(controls.values()), layout=widgets.Layout(flex_flow="row wrap"))
        rows = [widgets.HTML(f"<b>{html.escape(title)}</b>")] if title else []
        rows += [box, self.output]  # then the progress bar of a training panel, the status
        self.progress = None
        if training:
            self.button = widgets.Button(description="Run", button_style="primary")
            self.button.on_click(lambda _: self.refresh())
            box.children += (self.button,)
            self.progress = widgets.IntProgress(
                value=0, max=1, description="training", bar_style="info", style=_FULL_LABEL
            )
            rows.append(self.progress)
        else:
            for control in controls.values():
                control.observe(self._on_change, names="value")
        self.widget = widgets.VBox([*rows, self.status])
        self.widget.add_class("bmlab-panel")  # a stable hook for the browser tests

    def train(self, params, gradient, *, n_steps: int, **kwargs):
        """``bmlab.train(params, gradient, n_steps=n_steps, **kwargs)`` for a training panel's
        ``update``, the progress bar advancing about every 1 % of the run; returns the
        ``TrainResult``, also kept as ``panel.result``."""
        bar = self.progress
        bar.max = max(1, int(n_steps))
        bar.value = 0
        bar.bar_style = "info"
        every = max(1, bar.max // 100)

        def callback(n_updates, _params) -> bool:
            if n_updates % every == 0:
                bar.value = n_updates
            return False  # never asks train to stop

        self.result = train(params, gradient, n_steps=n_steps, callback=callback, **kwargs)
        bar.value = bar.max
        bar.bar_style = "success"
        return self.result

    def _on_change(self, _change) -> None:
        if not self._quiet:
            self.refresh()

    def compute(self) -> str | None:
        """Run ``update`` with the current values; errors become a status message."""
        self.last_error = None
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("error")
                values = {name: control.value for name, control in self.controls.items()}
                self.last_status = self._update(**values)
        except Exception as err:  # the audience sees a sentence, never a traceback
            self.last_error = f"{type(err).__name__}: {err}"
            self.last_status = f"Cannot draw this setting: {err}"
        return self.last_status

    def refresh(self) -> float:
        """Recompute, re-render into the output area (an image whose alt text is the title and
        the status line); return the kernel-side seconds."""
        start = time.perf_counter()
        text = self.compute()
        self.status.value = "" if not text else html.escape(text)
        png = base64.b64encode(self.render()).decode("ascii")
        self._shown = _image_html(png, f"Figure of the panel {self.title}. {text or ''}")
        with self.output:
            self.output.clear_output(wait=True)
            display(HTML(self._shown + _NAME_SLIDERS))
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
        return self.refresh()  # the displayed figure and status show the new state

    def _repr_mimebundle_(self, **kwargs) -> dict:
        """Live widget view plus a static image and a stable title for kernel-less viewers."""
        self.refresh()
        bundle = self.widget._repr_mimebundle_(**kwargs)
        bundle["text/html"] = self._shown  # the image refresh drew, with its alt text
        bundle["text/plain"] = f"bmlab panel: {self.title}" if self.title else "bmlab panel"
        return bundle
