"""Live panels of notebook 05 (Sections 5.6, 5.8): CD/PCD on 3x3 bars and stripes judged by
the exact likelihood, and a CD-1 model sampled out of equilibrium."""

from __future__ import annotations

import itertools

import ipywidgets as widgets
import matplotlib.pyplot as plt
import numpy as np
from matplotlib.collections import LineCollection

from .._checks import check_choice, check_in_range
from ..data import bars_and_stripes, max_log_likelihood
from ..learning import train
from ..panel import Panel, TrainingProgress
from ..plotting import GRAY, NAVY, ORANGE
from ..rbm import RBM, CDGradient, ExactRBMGradient, PCDGradient
from . import ALL_PANELS, _layout_once

ALGORITHMS = ("CD-k", "PCD-k", "exact")
_N = 3  # grid side of the bars-and-stripes images
_WIDE = {"style": {"description_width": "initial"}}  # full control labels
_CODES = 2 ** np.arange(_N * _N)  # state code of an image: sum_i 2**i v_i


def _tile(V, cols=4) -> np.ndarray:
    """The first 16 images of 3x3 as a mosaic of ``cols`` columns, blank separators: (16, 16)."""
    padded = np.pad(np.reshape(V[:16], (-1, _N, _N)), ((0, 0), (0, 1), (0, 1)))
    return np.vstack([np.hstack(list(padded[r : r + cols])) for r in range(0, len(padded), cols)])


def _framed(ax, image, nx, ny):
    """Show a _tile mosaic of nx x ny images with every pixel framed in gray (white shows)."""
    corners = itertools.product(np.arange(nx) * (_N + 1) - 0.5, np.arange(ny) * (_N + 1) - 0.5)
    ax.add_collection(
        LineCollection(
            [
                s
                for x0, y0 in corners
                for j in range(_N + 1)
                for s in (((x0 + j, y0), (x0 + j, y0 + _N)), ((x0, y0 + j), (x0 + _N, y0 + j)))
            ],
            colors=GRAY,
            lw=0.6,
        )
    )
    return ax.imshow(image, cmap="gray_r", vmin=0, vmax=1, aspect="auto")


def _slider(kind, value, lo, hi, label, **kw):
    return kind(value=value, min=lo, max=hi, description=label, **_WIDE, **kw)


def _image_axes(ax):  # (image, title) of an axes showing a _tile mosaic
    ax.axis("off")
    ax.set_box_aspect(1)
    return _framed(ax, np.zeros((4 * (_N + 1),) * 2), 4, 4), ax.set_title("", fontsize="medium")


def _training_figure(best):
    """(fig, axes, line, title) of the log-likelihood and (image, title) of the samples."""
    fig, (ax_ll, ax_s) = plt.subplots(
        1, 2, figsize=(8.4, 3.2), layout="constrained", gridspec_kw={"width_ratios": [1.6, 1]}
    )
    (ll_line,) = ax_ll.plot([], [], color=NAVY)
    ax_ll.axhline(best, color=GRAY, ls="--", lw=1)
    ax_ll.text(
        0.98,
        best,
        f"optimum {best:.3f}",
        color=GRAY,
        fontsize="small",
        ha="right",
        va="bottom",
        transform=ax_ll.get_yaxis_transform(),
    )
    ax_ll.set(xlabel="update", ylabel="exact log-likelihood")
    title = ax_ll.set_title("", fontsize="medium")
    image, s_title = _image_axes(ax_s)
    return fig, ax_ll, ll_line, title, image, s_title


def rbm_training_panel(
    algorithm: str = "CD-k",
    k: int = 1,
    lr: float = 0.3,
    n_hidden: int = 9,
    weight_decay: float = 0.0,
    steps: int = 2000,
    seed: int = 0,
) -> Panel:
    """Train an RBM on 3x3 bars and stripes (full batch), watching the exact log-likelihood:
    ``algorithm`` in ALGORITHMS, ``k`` in [1, 20], ``lr`` in [0.01, 1], ``n_hidden`` in
    [1, 16], ``weight_decay`` (on W) in [0, 0.01], ``steps`` in [200, 5000], ``seed`` in [0, 9].
    A Run button and ``panel.progress``; ``panel.result`` is the last ``TrainResult``."""
    check_choice(algorithm, "algorithm", ALGORITHMS)
    for x, name, lo, hi in (
        (k, "k", 1, 20),
        (n_hidden, "n_hidden", 1, 16),
        (steps, "steps", 200, 5000),
        (seed, "seed", 0, 9),
    ):
        check_in_range(x, name, lo, hi, integer=True)
    check_in_range(lr, "lr", 0.01, 1.0)
    check_in_range(weight_decay, "weight_decay", 0.0, 0.01)
    controls = {
        "algorithm": widgets.ToggleButtons(
            options=list(ALGORITHMS), value=algorithm, description="algorithm", **_WIDE
        ),
        "k": _slider(widgets.IntSlider, k, 1, 20, "k"),
        "lr": _slider(widgets.FloatLogSlider, lr, -2, 0, "rate", base=10, step=0.1),
        "n_hidden": _slider(widgets.IntSlider, n_hidden, 1, 16, "hidden units"),
        "weight_decay": _slider(
            widgets.FloatSlider,
            weight_decay,
            0,
            0.01,
            "weight decay",
            step=0.0005,
            readout_format=".4f",
        ),
        "steps": _slider(widgets.IntSlider, steps, 200, 5000, "updates", step=200),
        "seed": _slider(widgets.IntSlider, seed, 0, 9, "seed"),
    }
    data = bars_and_stripes(_N)
    best = max_log_likelihood(data)  # the empirical distribution's own log-likelihood
    fig, ax_ll, ll_line, title, image, s_title = _training_figure(best)
    progress, panel = TrainingProgress(), None

    def update(algorithm, k, lr, n_hidden, weight_decay, steps, seed):
        rng = np.random.default_rng(int(seed))
        init = RBM.random(data.shape[1], int(n_hidden), rng=rng, data=data)
        gradient = (
            ExactRBMGradient(data)
            if algorithm == "exact"
            else (CDGradient if algorithm == "CD-k" else PCDGradient)(data, int(k))
        )
        progress.start(int(steps))
        result = train(
            init.params,
            gradient,
            n_steps=int(steps),
            lr=float(lr),
            weight_decay=float(weight_decay),
            metrics={"ll": lambda p: RBM.from_params(p).mean_log_likelihood(data)},
            record_every=max(1, int(steps) // 100),
            rng=None if algorithm == "exact" else rng,
            callback=progress.callback,
            max_abs=50.0,
            on_diverge="stop",
        )  # diverging PCD at large rates
        progress.finish()
        ll = result.history["ll"]
        ll_line.set_data(result.history["step"], ll)
        ax_ll.set_xlim(0, max(1, result.history.last("step")))
        ax_ll.set_ylim(min(best - 0.5, float(ll.min()) - 0.2), best + 0.3)
        label = algorithm.replace("k", str(int(k))) if algorithm != "exact" else "exact gradient"
        title.set_text(f"{label}, rate {float(lr):.2g}, {int(n_hidden)} hidden")
        p = RBM.from_params(result.params).visible_distribution()
        codes = rng.choice(p.size, size=16, p=p / p.sum())  # exact samples: codes ~ p(v)
        image.set_data(_tile((codes[:, None] & _CODES > 0).astype(float)))
        s_title.set_text(f"exact samples: {np.isin(codes, data @ _CODES).mean():.0%} valid")
        if panel is not None:
            panel.result = result
        return (
            f"{label}: final log-likelihood {float(ll[-1]):.3f} nats (peak "
            f"{float(ll.max()):.3f}, optimum {best:.3f})."
            + (
                f" Stopped after {result.n_updates} updates: the weights ran away (lower "
                "the rate or add weight decay)."
                if result.diverged
                else ""
            )
        )

    panel = Panel(
        fig,
        controls,
        update,
        training=True,
        progress=progress,
        title="Contrastive divergence on 3x3 bars and stripes, judged exactly",
    )
    panel.result = None
    return panel


def rbm_sampling_panel(
    gibbs_steps: int = 1, start: str = "data", seed: int = 0, beta: float = 1.0
) -> Panel:
    """Run 800 chains (50 per data row, or fair coins: ``start``) of ``gibbs_steps`` in
    [0, 200] block-Gibbs steps (``seed`` in [0, 9]) on a CD-1 model of 3x3 bars and stripes
    (9 hidden, rate 0.3, 4000 updates, trained at build in about a second) at inverse
    temperature ``beta`` in [0, 2] (W, a, b scaled by beta); show 16 chains and the
    frequencies of the 14 valid patterns next to the data's and the exact p(v) at beta."""
    check_in_range(gibbs_steps, "gibbs_steps", 0, 200, integer=True)
    check_in_range(beta, "beta", 0.0, 2.0)
    check_in_range(seed, "seed", 0, 9, integer=True)
    check_choice(start, "start", ("data", "noise"))
    data, rng = bars_and_stripes(_N), np.random.default_rng(5)
    init = RBM.random(data.shape[1], 9, rng=rng, data=data).params
    model = RBM.from_params(
        train(init, CDGradient(data, 1), n_steps=4000, lr=0.3, rng=rng, record_every=4000).params
    )
    patterns, counts = np.unique(data @ _CODES, return_counts=True)
    p_data, p_model = counts / counts.sum(), model.visible_distribution()[patterns.astype(int)]
    controls = {
        "gibbs_steps": _slider(widgets.IntSlider, gibbs_steps, 0, 200, "Gibbs steps"),
        "start": widgets.ToggleButtons(
            options=["data", "noise"], value=start, description="start", **_WIDE
        ),
        "seed": _slider(widgets.IntSlider, seed, 0, 9, "seed"),
        "beta": _slider(widgets.FloatSlider, beta, 0.0, 2.0, "inverse temperature β", step=0.05),
    }
    fig, axd = plt.subplot_mosaic(
        "sf;sp",
        figsize=(8.6, 3.4),
        layout="constrained",
        width_ratios=[1, 2.2],
        height_ratios=[4, 1],
    )
    (ax_s, ax_f, ax_p), x = (axd[k] for k in "sfp"), np.arange(patterns.size)
    image, s_title = _image_axes(ax_s)
    _framed(ax_p, _tile((patterns[:, None].astype(int) & _CODES > 0).astype(float), cols=16), 14, 1)
    _, chain_bars, model_bars = (
        ax_f.bar(x + dx, y, width=0.27, color=c, label=label)
        for dx, y, c, label in (
            (-0.27, p_data, GRAY, "data"),
            (0, 0 * x, ORANGE, "chains"),
            (0.27, p_model, NAVY, "equilibrium p(v)"),
        )
    )
    ax_f.set(
        xticks=x,
        xticklabels=[],
        xlim=(-0.625, 13.625),
        ylabel="frequency",
        ylim=(0, 1.1 * max(float(p_model.max()), float(p_data.max()), 0.2)),
    )
    ax_p.set(
        xlim=(-1.5, 55.5), ylim=(2.6, -0.6), xticks=[], yticks=[], xlabel="the 14 valid patterns"
    )  # pattern i centred under bar i
    ax_p.spines[:].set_visible(False)
    fig.legend(loc="outside upper right", ncols=3, fontsize="small")
    f_title = ax_f.set_title("", fontsize="medium")

    def update(gibbs_steps, start, seed, beta):
        srng = np.random.default_rng(int(seed))
        V0 = (
            np.tile(data, (50, 1))
            if start == "data"
            else (srng.random((50 * len(data), data.shape[1])) < 0.5).astype(float)
        )
        at_beta = RBM(float(beta) * model.W, float(beta) * model.a, float(beta) * model.b)
        S = at_beta.gibbs(V0, int(gibbs_steps), rng=srng)
        freq = np.array([np.mean(S @ _CODES == c) for c in patterns])  # valid patterns
        p_model = at_beta.visible_distribution()[patterns.astype(int)]  # exact, at beta
        for bars, heights in ((chain_bars, freq), (model_bars, p_model)):
            for bar, f in zip(bars, heights, strict=True):
                bar.set_height(f)
        ax_f.set_ylim(0, 1.1 * max(float(p_model.max()), float(p_data.max()), 0.2))
        image.set_data(_tile(S))  # the first 16 chains: one from each data row
        s_title.set_text(f"{int(gibbs_steps)} step{'s' * (gibbs_steps != 1)} from {start}")
        # total variation over the valid patterns plus the mass off them
        tv_data, tv_model = (
            0.5 * np.abs(freq - p).sum() + 0.5 * abs(p.sum() - freq.sum())
            for p in (p_data, p_model)
        )
        f_title.set_text(
            f"β = {float(beta):.2f}: log-likelihood "
            f"{at_beta.mean_log_likelihood(data):.2f}, {freq.sum():.0%} valid"
        )
        return (
            f"Gibbs sampling, {s_title.get_text()}: distance to the data {tv_data:.2f}, "
            f"to the model's equilibrium {tv_model:.2f} (total variation)."
        )

    return Panel(
        _layout_once(fig),
        controls,
        update,
        title="Out of equilibrium: short chains from the data look perfect",
    )


ALL_PANELS["rbm_training"] = rbm_training_panel
ALL_PANELS["rbm_sampling"] = rbm_sampling_panel
