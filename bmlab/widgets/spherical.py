"""Live panel of notebook 06 (the spherical machine).

:func:`condensation_panel`: a beta slider and the size N for the rank-one machine
W = u u^T on the sphere |x|^2 = N; the exact share of |x|^2 along u against beta (the curve,
with the large-N limit), and a histogram of the share of single exact samples.
"""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np

from ..panel import Panel, choice, layout_once, set_heights, slider
from ..plotting import GRAY, NAVY, ORANGE
from ..spherical import SphericalBM, spherical_moments

SIZES = (30, 100, 300)
_BETAS = np.linspace(0.2, 3.0, 29)  # the exact curve (the slider moves a dot along it)
_BINS = np.linspace(0.0, 1.0, 41)  # histogram of the share of single samples
_DRAWS = 300


class _Machine:
    """W = u u^T at size n (u the last coordinate axis) with its exact share curve."""

    def __init__(self, n: int):
        lam = np.zeros(n)
        lam[-1] = 1.0
        self.n, self.lam = n, lam
        self.model = SphericalBM(np.diag(lam))
        self.curve = np.array([self.share(beta) for beta in _BETAS])

    def share(self, beta: float) -> float:
        return float(spherical_moments(self.lam, beta)[1][-1] / self.n)


def _figure():
    """Left: exact share against beta; right: histogram of the share of single samples; and
    ``draw(machine, beta, q, counts)`` that shows the machine's curve, the dot at (beta, q)
    and the histogram ``counts`` of the shares of _DRAWS samples."""
    fig, (ax_q, ax_h) = plt.subplots(1, 2, figsize=(9.0, 3.4))
    layout_once(fig)
    ax_q.plot(_BETAS, np.maximum(0.0, 1 - 1 / _BETAS), color=GRAY, ls="--", label="N → ∞")
    (curve,) = ax_q.plot(_BETAS, np.zeros_like(_BETAS), color=NAVY, label="exact")
    (dot,) = ax_q.plot([1.0], [0.0], "o", color=ORANGE, ms=9, label="this β")
    ax_q.set(xlim=(0.0, 3.1), ylim=(0.0, 1.0), xlabel="β", ylabel="share q along u")
    ax_q.set_xticks([0.5, 1.0, 1.5, 2.0, 2.5, 3.0])  # no tick label in the corner at 0
    ax_q.legend(loc="upper left", fontsize="small")
    bars = ax_h.bar(_BINS[:-1], np.zeros(len(_BINS) - 1), width=np.diff(_BINS), align="edge")
    for bar in bars:
        bar.set_color(GRAY)
    mean_line = ax_h.axvline(0.0, color=NAVY, lw=2)
    ax_h.set(xlim=(0.0, 1.0), xlabel="share (u·x)²/N of one sample", ylabel="fraction")
    ax_h.set_xticks([0.2, 0.4, 0.6, 0.8, 1.0])
    title = ax_h.set_title("", fontsize="medium")

    def draw(machine: _Machine, beta: float, q: float, counts) -> None:
        curve.set_ydata(machine.curve)
        dot.set_data([beta], [q])
        set_heights(bars, counts)
        ax_h.set_ylim(0.0, max(0.1, 1.15 * float(counts.max())))
        mean_line.set_xdata([q, q])
        title.set_text(f"{_DRAWS} exact samples, N = {machine.n}")

    return fig, draw


def condensation_panel() -> Panel:
    """Condensation of the spherical machine W = u u^T as beta grows: the exact share
    q = <(u.x)^2>/N and a histogram of the shares of 300 exact samples (seed 0), with q as a
    navy line."""
    controls = {
        "beta": slider("beta", 1.5, 0.2, 3.0, description="β"),  # also beta times the spike 1
        "n": choice("n", "100", [str(size) for size in SIZES], description="N"),  # the size
    }
    machines = {}
    fig, draw = _figure()

    def update(beta, n):
        n = int(n)
        if n not in machines:
            machines[n] = _Machine(n)
        m = machines[n]
        q = m.share(beta)
        rng = np.random.default_rng(0)
        shares = m.model.sample(_DRAWS, beta=beta, rng=rng)[:, -1] ** 2 / n
        draw(m, beta, q, np.histogram(shares, _BINS)[0] / _DRAWS)
        phase = "condensed" if beta > 1 else "not condensed (q → 0 as N grows)"
        return f"β = {beta:.2f}, N = {n}: exact share q = {q:.3f}; {phase}"

    return Panel(fig, controls, update, title="Condensation on the sphere (notebook 06)")
