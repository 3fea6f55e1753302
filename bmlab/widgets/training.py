"""Live panel of notebook 03 (``ml_training``): train a fully visible machine and watch the
exact log-likelihood L and the moment matching of Eq. 5.6."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np

from ..data import letters_3x3, noisy_copies
from ..exact import exact_moments
from ..panel import Panel, choice, reference_line, slider
from ..plotting import GRAY, NAVY, ORANGE
from ..visible import VisibleGradient, visible_log_likelihood, visible_newton_fit

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


def _figure(data_pts, n_pairs, L_best, L_start):
    """The panel's figure: L against the update, and model vs data moments; and
    ``draw(steps, L, n_steps, model_pts)`` that shows the L of a run of ``n_steps`` updates
    and the model's moments (pairs first, as in ``data_pts``)."""
    fig, (ax_l, ax_m) = plt.subplots(1, 2, figsize=(9.0, 3.6), layout="constrained")
    (curve,) = ax_l.plot([0], [L_start], color=NAVY)  # the model's exact L; gray: reference
    reference_line(ax_l, L_best, f"maximum {L_best:.3f}")  # labelled on the line: no legend
    ax_l.set(xlabel="update", ylabel="L (nats per pattern)", title="average log-likelihood L")
    ax_m.plot([-1, 1], [-1, 1], color=GRAY, lw=1)
    C, m = data_pts[:n_pairs], data_pts[n_pairs:]  # the model's moments start at the data's
    pairs = ax_m.scatter(C, C, s=14, color=NAVY, label=r"$\langle s_i s_j\rangle$")
    means = ax_m.scatter(m, m, s=22, color=ORANGE, marker="s", label=r"$\langle s_i\rangle$")
    ax_m.set(
        xlim=(-1.05, 1.05),
        ylim=(-1.05, 1.05),
        xlabel="data moment",
        ylabel="model moment (exact)",
        title="moment matching (Eq. 5.6)",
    )
    ax_m.legend(loc="upper left")

    def draw(steps, L, n_steps, model_pts) -> None:
        curve.set_data(steps, L)
        ax_l.set_xlim(0, n_steps)
        low = max(min(L.min(), L_best) - 0.2, L_best - 15.0)
        ax_l.set_ylim(low, L_best + 0.15 * (L_best - low))  # room for the label; L <= L_best
        pairs.set_offsets(np.column_stack([C, model_pts[:n_pairs]]))
        means.set_offsets(np.column_stack([m, model_pts[n_pairs:]]))

    return fig, draw


def _status(estimator: str, res, L_best: float, mismatch: float) -> str:
    """The status line after a run: its final L, and why it was stopped or what it shows."""
    L = res.history["L"]
    head = f"{_LABELS[estimator]}: L = {L[-1]:.3f}"
    if res.diverged:
        why = (
            "unbounded drift: the frozen negative phase never responds"
            if estimator == "frozen"
            else "the step is too large: lower the learning rate"
        )
        return (
            f"{head}; the parameters left the range ±{MAX_ABS_PARAM:g} after "
            f"{res.n_updates} updates and the run was stopped ({why})"
        )
    note = {
        "data": " -- the gradient is identically zero: nothing is learned",
        "frozen": " -- the frozen negative phase cannot stop the drift",
    }.get(estimator, "")
    if estimator == "exact" and L[-1] < L.max() - 1e-3:
        note = f" -- L fell from its peak {L.max():.3f}: the step is too large, lower lr"
    return (
        f"{head} after {res.n_updates} updates (maximum {L_best:.3f}); "
        f"largest moment mismatch {mismatch:.3f}{note}"
    )


def training_panel() -> Panel:
    """Train a fully visible Boltzmann machine on :func:`default_data` from J = 0, theta = 0
    with every Run (seed 0; the Glauber negative phases run 100 chains)."""
    controls = {
        "lr": slider("lr", 0.2, 1e-3, 1e2, log=True, description="learning rate"),
        "n_steps": slider("n_steps", 200, 10, 500, 10, description="steps"),  # updates per Run
        "estimator": choice(  # the negative phase, one of bmlab.visible.VISIBLE_METHODS
            "estimator",
            "exact",
            [(v, k) for k, v in _LABELS.items()],
            description="negative phase",
            dropdown=True,
        ),
        "k": slider("k", 1, 1, 10, description="sweeps k"),  # Glauber sweeps per update
    }
    S = default_data()
    n = S.shape[1]
    iu = np.triu_indices(n, 1)
    data_pts = np.concatenate([(S.T @ S / len(S))[iu], S.mean(axis=0)])
    L_best = visible_log_likelihood(visible_newton_fit(S), S)
    zero = {"J": np.zeros((n, n)), "theta": np.zeros(n)}
    fig, draw = _figure(data_pts, len(iu[0]), L_best, -n * np.log(2))

    def update(lr, n_steps, estimator, k):
        res = panel.train(
            zero,
            VisibleGradient(S, method=estimator, n_chains=100, k=k),
            n_steps=n_steps,
            lr=lr,
            rng=np.random.default_rng(0),  # the exact methods draw nothing from it
            metrics={"L": lambda p: visible_log_likelihood(p, S)},
            record_every=max(1, n_steps // 100),
            max_abs=MAX_ABS_PARAM,
            on_diverge="stop",
        )
        m, C = exact_moments(res.params["J"], res.params["theta"])
        model_pts = np.concatenate([C[iu], m])
        draw(res.history["step"], res.history["L"], n_steps, model_pts)
        return _status(estimator, res, L_best, np.abs(model_pts - data_pts).max())

    panel = Panel(
        fig, controls, update, title="Maximum-likelihood training (Eq. 5.4)", training=True
    )
    return panel
