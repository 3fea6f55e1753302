"""Live panels of notebook 05 (Sections 5.6, 5.8): CD/PCD on 3x3 bars and stripes judged by
the exact likelihood, and a CD-1 model sampled out of equilibrium."""

from __future__ import annotations

import itertools

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.collections import LineCollection

from .._kernels import codes_to_states
from ..data import bars_and_stripes, max_log_likelihood
from ..learning import train
from ..panel import Panel, choice, layout_once, reference_line, set_heights, slider
from ..plotting import GRAY, NAVY, ORANGE, mosaic
from ..rbm import RBM, CDGradient, ExactRBMGradient, PCDGradient

ALGORITHMS = ("CD-k", "PCD-k", "exact")
_N = 3  # grid side of the bars-and-stripes images
_CODES = 2 ** np.arange(_N * _N)  # state code of an image: sum_i 2**i v_i


def _tile(V, cols=4) -> np.ndarray:
    """The first 16 images of 3x3 as a mosaic of ``cols`` columns, blank separators: (17, 17)."""
    return mosaic(np.reshape(V[:16], (-1, _N, _N)), cols)


def _framed(ax, image, nx, ny):
    """Show a _tile mosaic of nx x ny images with every pixel framed in gray (white shows)."""
    corners = itertools.product(np.arange(nx) * (_N + 1) + 0.5, np.arange(ny) * (_N + 1) + 0.5)
    edges = [
        edge
        for x0, y0 in corners
        for j in range(_N + 1)
        for edge in (((x0 + j, y0), (x0 + j, y0 + _N)), ((x0, y0 + j), (x0 + _N, y0 + j)))
    ]
    ax.add_collection(LineCollection(edges, colors=GRAY, lw=0.6))
    return ax.imshow(image, cmap="gray_r", vmin=0, vmax=1, aspect="auto")


def _image_axes(ax):
    """(image, title) of an axes showing a _tile mosaic. The title is a text in the axes: the
    layout makes room for its full width (it counts a ``set_title`` as 1 pixel wide)."""
    ax.axis("off")
    ax.set_box_aspect(1)
    title = ax.text(0.5, 1.03, "", transform=ax.transAxes, ha="center", va="bottom", weight="bold")
    return _framed(ax, np.zeros((4 * (_N + 1) + 1,) * 2), 4, 4), title


def _training_figure(best):
    """The exact log-likelihood against the update (left) and 16 exact samples (right), and
    ``draw(result, label, codes)`` that shows a run and the state codes of its samples."""
    fig, (ax_ll, ax_s) = plt.subplots(
        1, 2, figsize=(8.4, 3.2), layout="constrained", gridspec_kw={"width_ratios": [1.6, 1]}
    )
    (ll_line,) = ax_ll.plot([], [], color=NAVY)
    reference_line(ax_ll, best, f"optimum {best:.3f}")
    ax_ll.set(xlabel="update", ylabel="exact log-likelihood")
    title = ax_ll.set_title("", fontsize="medium")
    image, s_title = _image_axes(ax_s)
    valid = bars_and_stripes(_N) @ _CODES

    def draw(result, label: str, codes) -> None:
        ll = result.history["ll"]
        ll_line.set_data(result.history["step"], ll)
        ax_ll.set_xlim(0, max(1, result.history.last("step")))
        low = min(best - 0.5, float(ll.min()) - 0.2)
        ax_ll.set_ylim(low, best + 0.15 * (best - low))  # room for the optimum's label
        title.set_text(label)
        image.set_data(_tile(codes_to_states(codes, _N * _N, binary=True)))
        s_title.set_text(f"exact samples: {np.isin(codes, valid).mean():.0%} valid")

    return fig, draw


def _gradient(algorithm: str, data, k: int):
    """The gradient of ``algorithm`` (one of ALGORITHMS) on ``data``, for :func:`bmlab.train`."""
    if algorithm == "exact":
        return ExactRBMGradient(data)
    return (CDGradient if algorithm == "CD-k" else PCDGradient)(data, k)


def rbm_training_panel() -> Panel:
    """Train an RBM on 3x3 bars and stripes (full batch), watching the exact log-likelihood.

    Each Run starts from Hinton's initialisation and plots the exact mean log-likelihood
    against the update, next to the best possible, and 16 exact samples of the trained
    model; runs that blow up stop with a sentence (parameters beyond 50). ``panel.result`` is
    the last :class:`bmlab.learning.TrainResult`.
    """
    controls = {
        "algorithm": choice("algorithm", "CD-k", ALGORITHMS),  # CD, persistent CD or exact
        "k": slider("k", 1, 1, 20),  # Gibbs steps per update of CD-k and PCD-k
        "lr": slider("lr", 0.3, 0.01, 1.0, log=True, description="rate"),  # starts at 0.316
        "n_hidden": slider("n_hidden", 9, 1, 16, description="hidden units"),
        "weight_decay": slider(  # on W
            "weight_decay", 0.0, 0.0, 0.01, 0.0005, description="weight decay", readout_format=".4f"
        ),
        "n_steps": slider("n_steps", 2000, 200, 5000, 200, description="updates"),
        "seed": slider("seed", 0, 0, 9),  # seed of the initial weights and of the chains
    }
    data = bars_and_stripes(_N)
    best = max_log_likelihood(data)  # the empirical distribution's own log-likelihood
    fig, draw = _training_figure(best)

    def update(algorithm, k, lr, n_hidden, weight_decay, n_steps, seed):
        rng = np.random.default_rng(seed)
        init = RBM.random(data.shape[1], n_hidden, rng=rng, data=data)
        result = panel.train(
            init.params,
            _gradient(algorithm, data, k),
            n_steps=n_steps,
            lr=float(lr),
            weight_decay=float(weight_decay),
            metrics={"ll": lambda p: RBM.from_params(p).mean_log_likelihood(data)},
            record_every=max(1, n_steps // 100),
            rng=rng,
            max_abs=50.0,  # diverging PCD at large rates
            on_diverge="stop",
        )
        p = RBM.from_params(result.params).visible_distribution()
        codes = rng.choice(p.size, size=16, p=p / p.sum())  # exact samples: codes ~ p(v)
        label = algorithm.replace("k", str(k)) if algorithm != "exact" else "exact gradient"
        draw(result, f"{label}, rate {float(lr):.2g}, {n_hidden} hidden", codes)
        ll = result.history["ll"]
        stopped = (
            f" Stopped after {result.n_updates} updates: the weights ran away (lower "
            "the rate or add weight decay)."
        )
        return (
            f"{label}: final log-likelihood {float(ll[-1]):.3f} nats (peak "
            f"{float(ll.max()):.3f}, optimum {best:.3f})." + (stopped if result.diverged else "")
        )

    panel = Panel(
        fig,
        controls,
        update,
        training=True,
        title="Contrastive divergence on 3x3 bars and stripes, judged exactly",
    )
    return panel


def _sampling_figure(patterns, p_data, p_model):
    """Chains' images (left), the frequency of each valid pattern (right) above the patterns;
    and ``draw(S, freq, p_model, title, beta, ll)`` that shows the chains' states S (the first
    16) under ``title``, their frequencies of the valid patterns beside the exact ones, and
    the machine's beta and exact log-likelihood ``ll``."""
    fig, axd = plt.subplot_mosaic(
        "sf;sp",
        figsize=(8.6, 3.4),
        layout="constrained",
        width_ratios=[1, 2.2],
        height_ratios=[4, 1],
    )
    ax_f = axd["f"]
    x = np.arange(patterns.size)
    image, s_title = _image_axes(axd["s"])
    _framed(axd["p"], _tile(codes_to_states(patterns, _N * _N, binary=True), cols=16), 14, 1)
    ax_f.bar(x - 0.27, p_data, width=0.27, color=GRAY, label="data")
    chain_bars = ax_f.bar(x, 0 * x, width=0.27, color=ORANGE, label="chains")
    model_bars = ax_f.bar(x + 0.27, p_model, width=0.27, color=NAVY, label="equilibrium p(v)")
    top = 1.1 * max(float(p_model.max()), float(p_data.max()), 0.2)
    ax_f.set(xticks=x, xticklabels=[], xlim=(-0.625, 13.625), ylim=(0, top), ylabel="frequency")
    axd["p"].set(
        xlim=(-1.5, 55.5), ylim=(2.6, -0.6), xticks=[], yticks=[], xlabel="the 14 valid patterns"
    )  # pattern i centred under bar i
    axd["p"].spines[:].set_visible(False)
    fig.legend(loc="outside upper right", ncols=3, fontsize="small")
    f_title = ax_f.set_title("", fontsize="medium")

    def draw(S, freq, p_model, title: str, beta: float, ll: float) -> None:
        set_heights(chain_bars, freq)
        set_heights(model_bars, p_model)
        ax_f.set_ylim(0, 1.1 * max(float(p_model.max()), float(p_data.max()), 0.2))
        image.set_data(_tile(S))  # the first 16 chains: one from each data row
        s_title.set_text(title)
        f_title.set_text(f"β = {beta:.2f}: log-likelihood {ll:.2f}, {freq.sum():.0%} valid")

    return fig, draw


def rbm_sampling_panel() -> Panel:
    """Sample a CD-1 model of 3x3 bars and stripes out of equilibrium.

    The model (9 hidden units, CD-1, rate 0.3, 4000 updates) is trained when the panel is
    built, in about a second. Each update runs 800 chains of block-Gibbs steps at inverse
    temperature ``beta`` (W, a and b scaled by beta) and shows 16 of them, with the
    frequencies of the 14 valid patterns next to the data's and the exact p(v) at beta.
    """
    controls = {
        "gibbs_steps": slider("gibbs_steps", 1, 0, 200, description="Gibbs steps"),  # per chain
        "start": choice("start", "data", ("data", "noise")),  # 50 chains per data row, or coins
        "seed": slider("seed", 0, 0, 9),  # seed of the chains
        "beta": slider("beta", 1.0, 0.0, 2.0, description="inverse temperature β"),  # W, a, b
    }
    data = bars_and_stripes(_N)
    rng = np.random.default_rng(5)
    init = RBM.random(data.shape[1], 9, rng=rng, data=data).params
    model = RBM.from_params(
        train(init, CDGradient(data, 1), n_steps=4000, lr=0.3, rng=rng, record_every=4000).params
    )
    patterns, counts = np.unique(data @ _CODES, return_counts=True)
    patterns = patterns.astype(int)
    p_data = counts / counts.sum()
    fig, draw = _sampling_figure(patterns, p_data, model.visible_distribution()[patterns])

    def update(gibbs_steps, start, seed, beta):
        srng = np.random.default_rng(seed)
        V0 = (
            np.tile(data, (50, 1))
            if start == "data"
            else (srng.random((50 * len(data), data.shape[1])) < 0.5).astype(float)
        )
        at_beta = RBM(float(beta) * model.W, float(beta) * model.a, float(beta) * model.b)
        S = at_beta.gibbs(V0, gibbs_steps, rng=srng)
        freq = np.array([np.mean(S @ _CODES == c) for c in patterns])  # valid patterns
        p_model = at_beta.visible_distribution()[patterns]  # exact, at beta
        title = f"{gibbs_steps} step{'s' * (gibbs_steps != 1)} from {start}"
        draw(S, freq, p_model, title, float(beta), at_beta.mean_log_likelihood(data))
        # total variation over the valid patterns plus the mass off them
        tv_data, tv_model = (
            0.5 * np.abs(freq - p).sum() + 0.5 * abs(p.sum() - freq.sum())
            for p in (p_data, p_model)
        )
        return (
            f"Gibbs sampling, {title}: distance to the data {tv_data:.2f}, "
            f"to the model's equilibrium {tv_model:.2f} (total variation)."
        )

    return Panel(
        layout_once(fig),
        controls,
        update,
        title="Out of equilibrium: short chains from the data look perfect",
    )
