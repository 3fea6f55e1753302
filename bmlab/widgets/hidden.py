"""Live panel of notebook 04 (hidden units, Section 5.6, Figure 5.4).

* :func:`hidden_training_panel` -- pick a data set, a machine (general or restricted) and the
  number of hidden units, press Run: the machine is trained with the exact gradient through
  :func:`bmlab.learning.train`, and the model's p(v) bars are drawn against the data's, with
  KL(p_data || p_model) printed and plotted against the training step.
"""

from __future__ import annotations

import time

import ipywidgets as widgets
import matplotlib.pyplot as plt
import numpy as np
from IPython.display import display

from .. import data as D
from ..exact import codes_to_states
from ..hidden import HiddenMachine, empirical_distribution
from ..learning import train
from ..panel import Panel, TrainingProgress
from ..plotting import GRAY, NAVY, ORANGE
from . import ALL_PANELS

#: Data sets offered by the panel: label -> (builder, argument).
DATASETS = {
    "parity, 3 bits": (D.parity, 3),
    "parity, 4 bits": (D.parity, 4),
    "one-hot, 3 bits": (D.one_hot, 3),
    "one-hot, 4 bits": (D.one_hot, 4),
}
MACHINES = ("general", "restricted")
MAX_HIDDEN = 4
_MAX_VISIBLE = max(arg for _, arg in DATASETS.values())
_FRAME_SECONDS = 1.0  # live redraw interval while training in a kernel (first after 1 s)


def _in_kernel() -> bool:
    try:
        from IPython import get_ipython
    except ImportError:  # pragma: no cover - IPython ships with ipywidgets
        return False
    shell = get_ipython()
    return shell is not None and hasattr(shell, "kernel")


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
        Gradient steps (exact gradient, learning rate 0.1, momentum 0.9).
    seed : int in [0, 9]
        Seed of the random initial couplings.

    Returns
    -------
    Panel
        A training panel (Run button) with controls ``dataset, machine, n_hidden, steps,
        seed``; ``panel.progress`` is the progress bar of the current run and
        ``panel.result`` the last :class:`bmlab.learning.TrainResult`.
    """
    if dataset not in DATASETS:
        raise ValueError(f"dataset must be one of {sorted(DATASETS)}, got {dataset!r}")
    if machine not in MACHINES:
        raise ValueError(f"machine must be 'general' or 'restricted', got {machine!r}")
    for name, value, lo, hi in (("n_hidden", n_hidden, 0, MAX_HIDDEN),
                                ("steps", steps, 100, 4000), ("seed", seed, 0, 9)):
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
            raise TypeError(f"{name} must be an integer, got {type(value).__name__}")
        if not lo <= value <= hi:
            raise ValueError(f"{name} must be between {lo} and {hi}, got {value}")

    wide = {"style": {"description_width": "initial"}}
    controls = {
        "dataset": widgets.Dropdown(options=list(DATASETS), value=dataset, description="data",
                                    layout=widgets.Layout(width="190px"), **wide),
        "machine": widgets.ToggleButtons(options=list(MACHINES), value=machine,
                                         description="machine", **wide),
        "n_hidden": widgets.IntSlider(value=int(n_hidden), min=0, max=MAX_HIDDEN,
                                      description="hidden units", **wide),
        "steps": widgets.IntSlider(value=int(steps), min=100, max=4000, step=100,
                                   description="steps", **wide),
        "seed": widgets.IntSlider(value=int(seed), min=0, max=9, description="seed",
                                  layout=widgets.Layout(width="200px"), **wide),
    }

    n_slots = 2**_MAX_VISIBLE
    fig, (ax_p, ax_kl) = plt.subplots(
        1, 2, figsize=(8.4, 3.0), gridspec_kw={"width_ratios": [2.2, 1]}
    )
    x = np.arange(n_slots)
    data_bars = ax_p.bar(x - 0.2, np.zeros(n_slots), width=0.4, color=GRAY, label="data")
    model_bars = ax_p.bar(x + 0.2, np.zeros(n_slots), width=0.4, color=NAVY, label="model")
    ax_p.set_ylabel("probability")
    ax_p.legend(loc="upper right", fontsize="small")
    title_p = ax_p.set_title("", fontsize="medium")
    (kl_line,) = ax_kl.plot([], [], color=ORANGE)
    floor = ax_kl.axhline(np.log(2.0), color=GRAY, ls="--", lw=1)
    floor_text = ax_kl.text(0.98, np.log(2.0), "log 2", color=GRAY, fontsize="small",
                            ha="right", va="bottom", transform=ax_kl.get_yaxis_transform())
    ax_kl.set_yscale("log")
    ax_kl.set_xlabel("step")
    ax_kl.set_title("KL(p_data‖p_model), nats", fontsize="medium")
    fig.tight_layout()

    progress = TrainingProgress()
    state = {"panel": None, "last_frame": 0.0}

    def draw_bars(n_visible, p_data, p_model):
        k = 2**n_visible
        for i in range(n_slots):
            on = i < k
            data_bars[i].set_height(p_data[i] if on else 0.0)
            model_bars[i].set_height(p_model[i] if on else 0.0)
            data_bars[i].set_visible(on)
            model_bars[i].set_visible(on)
        top = max(float(p_data.max()), float(p_model.max()))
        ax_p.set_ylim(0, min(1.0, 1.15 * top + 0.02))

    def update(dataset, machine, n_hidden, steps, seed):
        builder, arg = DATASETS[dataset]
        V = builder(arg)
        nv = V.shape[1]
        m = HiddenMachine(nv, int(n_hidden), restricted=(machine == "restricted"))
        p_data = empirical_distribution(V, nv)
        labels = ["".join("+" if s > 0 else "−" for s in row)
                  for row in codes_to_states(np.arange(2**nv), nv)]
        ax_p.set_xticks(np.arange(2**nv), labels, fontfamily="monospace",
                        fontsize="x-small" if nv > 3 else "medium")
        ax_p.set_xlim(-0.7, 2**nv - 0.3)
        metrics = m.metrics(V)
        kl_metric = metrics["kl"]
        live = _in_kernel() and state["panel"] is not None
        start = time.perf_counter()
        state["last_frame"] = start
        progress.start(int(steps))
        every = max(1, int(steps) // 60)
        done = {"updates": 0}

        def tick(params):
            kl = kl_metric(params)
            progress.callback(done["updates"])
            done["updates"] += every
            now = time.perf_counter()
            if live and now - state["last_frame"] > _FRAME_SECONDS:
                state["last_frame"] = now
                draw_bars(nv, p_data, m.prob_visible(params))
                title_p.set_text(f"training ... KL = {kl:.3f}")
                panel = state["panel"]
                with panel.output:
                    panel.output.clear_output(wait=True)

                    display(fig)
            return kl

        rng = np.random.default_rng(int(seed))
        init = m.init_params(rng=rng, scale=0.5)
        result = train(init, m.estimator(V), n_steps=int(steps), lr=0.1, momentum=0.9,
                       metrics={"kl": tick}, record_every=every, rng=rng,
                       progress_bar=False)  # the panel has its own bar
        seconds = time.perf_counter() - start
        progress.finish()
        p_model = m.prob_visible(result.params)
        kl = kl_metric(result.params)
        draw_bars(nv, p_data, p_model)
        steps_rec = result.history["step"]
        kls = np.maximum(result.history["kl"], 1e-6)
        kl_line.set_data(steps_rec, kls)
        ax_kl.set_xlim(0, max(1, int(steps_rec[-1])))
        ax_kl.set_ylim(min(1e-3, 0.5 * float(kls.min())), 2.0)
        parity_set = dataset.startswith("parity")
        floor.set_visible(parity_set)
        floor_text.set_visible(parity_set)
        title_p.set_text(
            f"{machine}, {nv} visible + {n_hidden} hidden unit{'' if n_hidden == 1 else 's'}: "
            f"KL = {kl:.4f} nats"
        )
        if state["panel"] is not None:
            state["panel"].result = result
        verdict = "fits the data (KL < 0.01)" if kl < 0.01 else "no fit (KL >= 0.01)"
        note = ""
        if parity_set and n_hidden == 0:
            note = "; without hidden units the best possible is the uniform p(v), KL = log 2"
        return (
            f"KL(p_data||p_model) = {kl:.4f} nats after {int(steps)} exact steps: {verdict}"
            f"{note}. ({2 ** m.n_units} joint states, {seconds:.2f} s)"
        )

    panel = Panel(fig, controls, update, training=True, progress=progress,
                  title="Training with hidden units, exactly (Section 5.6, Figure 5.4)")
    state["panel"] = panel
    panel.result = None
    return panel


ALL_PANELS["hidden_training"] = hidden_training_panel
