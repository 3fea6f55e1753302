"""Live training panel of notebook 03: maximum-likelihood learning of the fully visible machine.

* :func:`training_panel` -- choose a learning rate, a number of steps and how the negative
  phase of Eq. 5.4 is computed (exact enumeration, Glauber chains fresh or persistent with k
  sweeps, frozen at the start, or replaced by the data moments), press Run, and watch the
  exact average log-likelihood L against the step and the moment-matching scatter of
  Eq. 5.6 (model vs data moments) redraw in place.
"""

from __future__ import annotations

import ipywidgets as widgets
import matplotlib.pyplot as plt
import numpy as np

from ..data import letters_3x3, noisy_copies
from ..learning import train
from ..panel import Panel, TrainingProgress
from ..plotting import GRAY, NAVY, ORANGE
from ..visible import (
    ExactGradient,
    check_data,
    data_moments,
    log_likelihood,
    make_estimator,
    model_moments,
    upper,
    zero_params,
)
from . import ALL_PANELS

#: Parameters beyond this magnitude count as a blow-up (the run stops with a message).
MAX_ABS_PARAM = 100.0
_LABELS = {
    "exact": "exact (enumeration)",
    "glauber": "Glauber, fresh chains",
    "persistent": "Glauber, persistent chains",
    "frozen": "frozen at J=0, theta=0",
    "data": "data moments as model",
}


def default_data() -> np.ndarray:
    """Noisy 3x3 letters T, L, X, O (30 copies each, 8% flips): shape (120, 9), ±1."""
    return noisy_copies(letters_3x3("TLXO"), 30, 0.08, rng=np.random.default_rng(0))


def training_panel(S=None, *, n_chains: int = 100, seed: int = 0) -> Panel:
    """Train a fully visible Boltzmann machine live: L vs step and the moment scatter.

    Parameters
    ----------
    S : array_like, shape (D, N), ±1 data, N <= 12, optional
        Training data (default :func:`default_data`, the noisy 3x3 letters).
    n_chains : int
        Chains of the Glauber estimators.
    seed : int
        Seed of every run (each Run starts from J = 0, theta = 0 with the same seed).

    Returns
    -------
    Panel
        Controls: ``lr`` (learning rate), ``n_steps``, ``estimator`` (negative phase),
        ``k`` (Glauber sweeps per step). A Run button trains; never a traceback or NaN.
    """
    S = default_data() if S is None else check_data(S)
    n = S.shape[1]
    if n > 12:
        raise ValueError(f"the training panel enumerates 2**N states: N <= 12, got N = {n}")
    m_data, C_data = data_moments(S)
    best = train(zero_params(n), ExactGradient(S), n_steps=100, optimizer="newton", lr=1.0,
                 stop_grad_norm=1e-9, progress_bar=False)
    L_best = log_likelihood(best.params, S)
    L_start = log_likelihood(zero_params(n), S)

    fig, (ax_l, ax_m) = plt.subplots(1, 2, figsize=(9.0, 3.6))
    (curve,) = ax_l.plot([0], [L_start], color=ORANGE, label="training")
    ax_l.axhline(L_best, color=NAVY, ls="--", lw=1, label=f"maximum {L_best:.3f}")
    ax_l.set_xlabel("update")
    ax_l.set_ylabel("average log-likelihood L (nats)")
    ax_l.legend(loc="lower right")
    ax_l.set_title("L during training")
    data_pts = np.concatenate([upper(C_data), m_data])
    ax_m.plot([-1, 1], [-1, 1], color=GRAY, lw=1)
    pairs = ax_m.scatter(upper(C_data), upper(C_data), s=14, color=NAVY,
                         label=r"$\langle s_i s_j\rangle$")
    means = ax_m.scatter(m_data, m_data, s=22, color=ORANGE, marker="s",
                         label=r"$\langle s_i\rangle$")
    ax_m.set_xlim(-1.05, 1.05)
    ax_m.set_ylim(-1.05, 1.05)
    ax_m.set_xlabel("data moment")
    ax_m.set_ylabel("model moment (exact)")
    ax_m.set_title("moment matching (Eq. 5.6)")
    ax_m.legend(loc="upper left")
    fig.tight_layout()

    controls = {
        "lr": widgets.FloatLogSlider(value=0.2, base=10, min=-3, max=2, step=0.1,
                                     description="learning rate"),
        "n_steps": widgets.IntSlider(value=200, min=10, max=500, step=10, description="steps"),
        "estimator": widgets.Dropdown(options=[(v, k) for k, v in _LABELS.items()],
                                      value="exact", description="negative phase"),
        "k": widgets.IntSlider(value=1, min=1, max=10, description="sweeps k"),
    }
    progress = TrainingProgress()

    def update(lr, n_steps, estimator, k):
        est = make_estimator(estimator, S, n_chains=n_chains, k=k)
        progress.start(n_steps)
        every = max(1, n_steps // 100)
        res = train(zero_params(n), est, n_steps=n_steps, lr=lr, metrics={
            "L": lambda p: log_likelihood(p, S)}, record_every=every,
            rng=np.random.default_rng(seed), on_nonfinite="stop", max_abs=MAX_ABS_PARAM,
            callback=progress.callback, progress_bar=False)
        progress.finish()
        steps, L = res.history["step"], res.history["L"]
        curve.set_data(steps, L)
        ax_l.set_xlim(0, max(n_steps, 1))
        lo = max(min(float(L.min()), L_best) - 0.2, L_best - 15.0)
        ax_l.set_ylim(lo, max(float(L.max()), L_best) + 0.2)
        m, C = model_moments(res.params)
        pairs.set_offsets(np.column_stack([upper(C_data), upper(C)]))
        means.set_offsets(np.column_stack([m_data, m]))
        mismatch = float(np.abs(np.concatenate([upper(C), m]) - data_pts).max())
        L_end = float(L[-1])
        if res.diverged:
            why = ("unbounded drift: the frozen negative phase never responds"
                   if estimator == "frozen" else "lower the learning rate")
            return (f"{_LABELS[estimator]}: the parameters left the range ±{MAX_ABS_PARAM:g} "
                    f"after {res.n_updates} updates -- the run was stopped ({why}). "
                    f"L = {L_end:.3f}")
        note = ""
        if estimator == "data":
            note = " -- the gradient is identically zero: nothing is learned"
        elif estimator == "frozen":
            note = " -- the frozen negative phase cannot stop the drift"
        return (f"{_LABELS[estimator]}: L = {L_end:.3f} after {res.n_updates} updates "
                f"(maximum {L_best:.3f}); largest moment mismatch {mismatch:.3f}{note}")

    return Panel(fig, controls, update, title="Maximum-likelihood training (Eq. 5.4)",
                 training=True, progress=progress)


ALL_PANELS["ml_training"] = training_panel
