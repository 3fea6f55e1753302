"""Live panel of notebook 04 (hidden units, Section 5.6, Figure 5.4).

:func:`hidden_training_panel`: pick a data set, a machine and the number of hidden units,
press Run; the machine is trained with the exact gradient and the model's p(v) is drawn
against the data's, with KL(p_data || p_model) against the training step.
"""

from __future__ import annotations

import time

import matplotlib.pyplot as plt
import numpy as np

from .. import data as D
from ..exact import empirical_distribution
from ..hidden import HiddenGradient, HiddenMachine
from ..panel import Panel, choice, reference_line, slider
from ..plotting import GRAY, NAVY, state_labels

#: Data sets offered by the panel: label -> (builder, number of bits).
DATASETS = {
    "parity, 3 bits": (D.parity, 3),
    "parity, 4 bits": (D.parity, 4),
    "one-hot, 3 bits": (D.one_hot, 3),
    "one-hot, 4 bits": (D.one_hot, 4),
}
_SLOTS = 2 ** max(n for _, n in DATASETS.values())


def _figure():
    """The figure: p(v) bars of data and model (left), KL against the step (right); and
    ``draw(title, p_data, p_model, history, n_steps, parity)`` that shows the p(v) of the
    2**nv states (arrays of that size), a run's KL history and, for parity, the log 2 floor."""
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
    floor = reference_line(ax_kl, np.log(2.0), "log 2")
    ax_kl.set(yscale="log", xlabel="step")
    ax_kl.set_title("KL, nats", fontsize="medium")

    def draw(title, p_data, p_model, history, n_steps, parity) -> None:
        nv = p_data.size.bit_length() - 1
        for i in range(_SLOTS):  # the first 2**nv bars show the states; the rest are hidden
            on = i < 2**nv
            data_bars[i].set(height=p_data[i] if on else 0.0, visible=on)
            model_bars[i].set(height=p_model[i] if on else 0.0, visible=on)
        ax_p.set_xticks(
            np.arange(2**nv),
            state_labels(nv),
            fontfamily="monospace",
            fontsize="x-small" if nv > 3 else "medium",
            rotation=90 if nv > 3 else 0,
        )
        ax_p.set_xlim(-0.7, 2**nv - 0.3)
        ax_p.set_ylim(0, min(1.0, 1.15 * max(p_data.max(), p_model.max()) + 0.02))
        title_p.set_text(title)
        kls = np.maximum(history["kl"], 1e-6)
        kl_line.set_data(history["step"], kls)
        ax_kl.set_xlim(0, n_steps)
        ax_kl.set_ylim(min(1e-3, 0.5 * float(kls.min())), 2.0)
        for artist in floor:
            artist.set_visible(parity)

    return fig, draw


def hidden_training_panel() -> Panel:
    """Train a machine with hidden units exactly and watch p(v) approach p_data(v): each Run
    trains from random initial couplings with the exact gradient (learning rate 0.1, momentum
    0.9); ``panel.result`` is the last :class:`bmlab.learning.TrainResult`."""
    controls = {
        "dataset": choice(  # one of DATASETS
            "dataset", "parity, 3 bits", list(DATASETS), description="data", dropdown=True
        ),
        "machine": choice("machine", "restricted", ("general", "restricted")),  # Figure 5.4
        "n_hidden": slider("n_hidden", 3, 0, 4, description="hidden units"),
        "n_steps": slider("n_steps", 1500, 100, 4000, 100, description="steps"),  # updates per Run
        "seed": slider("seed", 0, 0, 9),  # seed of the initial couplings
    }
    fig, draw = _figure()

    def update(dataset, machine, n_hidden, n_steps, seed):
        builder, nv = DATASETS[dataset]
        V = builder(nv)
        m = HiddenMachine(nv, n_hidden, restricted=(machine == "restricted"))
        kl = m.metrics(V)["kl"]
        start = time.perf_counter()
        result = panel.train(
            m.init_params(rng=np.random.default_rng(seed)),
            HiddenGradient(m, V),
            n_steps=n_steps,
            lr=0.1,
            momentum=0.9,
            metrics={"kl": kl},
            record_every=max(1, n_steps // 60),
        )
        seconds = time.perf_counter() - start
        parity = dataset.startswith("parity")
        p_v = (empirical_distribution(V), m.prob_visible(result.params))
        draw(f"{machine}, {n_hidden} hidden: p(v)", *p_v, result.history, n_steps, parity)
        final = kl(result.params)
        verdict = "fits the data (KL < 0.01)" if final < 0.01 else "no fit (KL >= 0.01)"
        if parity and n_hidden == 0:
            verdict += "; without hidden units the best possible is the uniform p(v), KL = log 2"
        return (
            f"KL(p_data||p_model) = {final:.4f} nats after {n_steps} exact steps: {verdict}. "
            f"({2**m.n_units} joint states, {seconds:.2f} s)"
        )

    panel = Panel(
        fig,
        controls,
        update,
        training=True,
        title="Training with hidden units, exactly (Section 5.6, Figure 5.4)",
    )
    return panel
