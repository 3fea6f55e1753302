"""Live panel of notebook 04 (hidden units, Section 5.6, Figure 5.4).

:func:`hidden_training_panel`: pick a data set, a machine and the number of hidden units,
press Run; the machine is trained with the exact gradient and the model's p(v) is drawn
against the data's, with KL(p_data || p_model) against the training step.
"""

from __future__ import annotations

import time

import ipywidgets as widgets
import matplotlib.pyplot as plt
import numpy as np

from .. import data as D
from ..exact import all_states, empirical_distribution
from ..hidden import HiddenMachine
from ..learning import train
from ..panel import Panel, TrainingProgress
from ..plotting import GRAY, NAVY
from . import ALL_PANELS

#: Data sets offered by the panel: label -> (builder, number of bits).
DATASETS = {
    "parity, 3 bits": (D.parity, 3),
    "parity, 4 bits": (D.parity, 4),
    "one-hot, 3 bits": (D.one_hot, 3),
    "one-hot, 4 bits": (D.one_hot, 4),
}
MACHINES = ("general", "restricted")
MAX_HIDDEN = 4
_SLOTS = 2 ** max(n for _, n in DATASETS.values())


def _controls(dataset, machine, n_hidden, steps, seed) -> dict:
    """Validate the builder's arguments and make its controls."""
    if dataset not in DATASETS or machine not in MACHINES:
        raise ValueError(
            f"dataset must be one of {sorted(DATASETS)} and machine one of "
            f"{MACHINES}; got {dataset!r}, {machine!r}"
        )
    for name, value, lo, hi in (
        ("n_hidden", n_hidden, 0, MAX_HIDDEN),
        ("steps", steps, 100, 4000),
        ("seed", seed, 0, 9),
    ):
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
            raise TypeError(f"{name} must be an integer, got {type(value).__name__}")
        if not lo <= value <= hi:
            raise ValueError(f"{name} must be between {lo} and {hi}, got {value}")
    wide = {"style": {"description_width": "initial"}}
    return {
        "dataset": widgets.Dropdown(
            options=list(DATASETS), value=dataset, description="data", **wide
        ),
        "machine": widgets.ToggleButtons(
            options=MACHINES, value=machine, description="machine", **wide
        ),
        "n_hidden": widgets.IntSlider(
            value=n_hidden, min=0, max=MAX_HIDDEN, description="hidden units", **wide
        ),
        "steps": widgets.IntSlider(
            value=steps, min=100, max=4000, step=100, description="steps", **wide
        ),
        "seed": widgets.IntSlider(value=seed, min=0, max=9, description="seed", **wide),
    }


def _figure():
    """The figure: p(v) bars of data and model (left), KL against the step (right)."""
    fig, (ax_p, ax_kl) = plt.subplots(
        1, 2, figsize=(8.4, 3.0), layout="constrained", gridspec_kw={"width_ratios": [2.2, 1]}
    )
    x = np.arange(_SLOTS)
    data_bars = ax_p.bar(x - 0.2, np.zeros(_SLOTS), width=0.4, color=GRAY, label="data")
    model_bars = ax_p.bar(x + 0.2, np.zeros(_SLOTS), width=0.4, color=NAVY, label="model")
    ax_p.set_ylabel("probability")
    fig.legend(loc="outside upper left", ncols=2, fontsize="small")
    title_p = ax_p.set_title("", fontsize="medium")
    (kl_line,) = ax_kl.plot([], [], color=NAVY)  # the model's exact KL; gray: reference
    floor = ax_kl.axhline(np.log(2.0), color=GRAY, ls="--", lw=1)
    floor_text = ax_kl.text(
        0.98,
        np.log(2.0),
        "log 2",
        color=GRAY,
        fontsize="small",
        ha="right",
        va="bottom",
        transform=ax_kl.get_yaxis_transform(),
    )
    ax_kl.set(yscale="log", xlabel="step")
    ax_kl.set_title("KL, nats", fontsize="medium")
    return fig, ax_p, ax_kl, data_bars, model_bars, title_p, kl_line, (floor, floor_text)


def hidden_training_panel(
    dataset: str = "parity, 3 bits",
    machine: str = "restricted",
    n_hidden: int = 3,
    steps: int = 1500,
    seed: int = 0,
) -> Panel:
    """Train a machine with hidden units exactly and watch p(v) approach p_data(v).

    Parameters
    ----------
    dataset : str
        One of :data:`DATASETS` (parity or one-hot strings, ±1).
    machine : {"general", "restricted"}
        Couplings everywhere, or only between the layers (Figure 5.4).
    n_hidden : int in [0, 4]
    steps : int in [100, 4000]
        Updates with the exact gradient (learning rate 0.1, momentum 0.9).
    seed : int in [0, 9]
        Seed of the random initial couplings.

    Returns
    -------
    Panel
        Training panel (Run button), controls ``dataset, machine, n_hidden, steps, seed``;
        ``panel.result`` is the last :class:`bmlab.TrainResult`.
    """
    controls = _controls(dataset, machine, n_hidden, steps, seed)
    fig, ax_p, ax_kl, data_bars, model_bars, title_p, kl_line, floor = _figure()
    progress = TrainingProgress()

    def update(dataset, machine, n_hidden, steps, seed):
        builder, nv = DATASETS[dataset]
        V = builder(nv)
        m = HiddenMachine(nv, n_hidden, restricted=(machine == "restricted"))
        kl = m.metrics(V)["kl"]
        start = time.perf_counter()
        progress.start(steps)
        rng = np.random.default_rng(seed)
        result = train(
            m.init_params(rng=rng),
            m.gradient(V),
            n_steps=steps,
            lr=0.1,
            momentum=0.9,
            metrics={"kl": kl},
            record_every=max(1, steps // 60),
            callback=progress.callback,
        )
        progress.finish()
        seconds = time.perf_counter() - start
        p_data, p_model = empirical_distribution(V), m.prob_visible(result.params)
        for i in range(_SLOTS):
            on = i < 2**nv
            data_bars[i].set(height=p_data[i] if on else 0.0, visible=on)
            model_bars[i].set(height=p_model[i] if on else 0.0, visible=on)
        labels = ["".join("+" if s > 0 else "−" for s in row) for row in all_states(nv)]
        ax_p.set_xticks(
            np.arange(2**nv),
            labels,
            fontfamily="monospace",
            fontsize="x-small" if nv > 3 else "medium",
            rotation=90 if nv > 3 else 0,
        )
        ax_p.set_xlim(-0.7, 2**nv - 0.3)
        ax_p.set_ylim(0, min(1.0, 1.15 * max(p_data.max(), p_model.max()) + 0.02))
        title_p.set_text(f"{machine}, {n_hidden} hidden: p(v)")
        kls = np.maximum(result.history["kl"], 1e-6)
        kl_line.set_data(result.history["step"], kls)
        ax_kl.set_xlim(0, steps)
        ax_kl.set_ylim(min(1e-3, 0.5 * float(kls.min())), 2.0)
        for artist in floor:
            artist.set_visible(dataset.startswith("parity"))
        panel.result = result
        final = kl(result.params)
        verdict = "fits the data (KL < 0.01)" if final < 0.01 else "no fit (KL >= 0.01)"
        if dataset.startswith("parity") and n_hidden == 0:
            verdict += "; without hidden units the best possible is the uniform p(v), KL = log 2"
        return (
            f"KL(p_data||p_model) = {final:.4f} nats after {steps} exact steps: {verdict}. "
            f"({2**m.n_units} joint states, {seconds:.2f} s)"
        )

    panel = Panel(
        fig,
        controls,
        update,
        training=True,
        progress=progress,
        title="Training with hidden units, exactly (Section 5.6, Figure 5.4)",
    )
    panel.result = None
    return panel


ALL_PANELS["hidden_training"] = hidden_training_panel
