"""Live panel of notebook 07 (the RBM's phase diagram).

:func:`phase_panel`: temperature T, noise sigma and the law of the singular vectors'
components for a ±1 RBM with two orthogonal modes of strength w = 1 (N_v = 16, N_h = 64);
the exact law of the two mode magnetisations (hidden layer summed out, all 2**16 visible
states) beside the replica-symmetric phase diagram with the current point.
"""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.colors import LinearSegmentedColormap
from scipy.optimize import brentq

from ..panel import Panel, choice, layout_once, slider
from ..phases import _PHI, _Z, COMPONENTS, mode_law, rbm_ensemble
from ..plotting import GRAY, NAVY, ORANGE

N_VISIBLE, N_HIDDEN = 16, 64
#: Bins centred on the values m = k/8 that ±1 and sparse modes take at N_v = 16.
EDGES = np.linspace(-1 - 1 / 16, 1 + 1 / 16, 18)


def _overlap(x: float) -> float:
    """The spin-glass overlap q > 0 of q = E tanh^2(x sqrt(q) z), z ~ N(0, 1), for x > 1."""
    return brentq(lambda q: np.tanh(x * np.sqrt(q) * _Z) ** 2 @ _PHI - q, 1e-9, 1.0)


def phase_lines() -> dict:
    """The replica-symmetric phase boundaries in the plane (sigma / w, T / w) of a mode of
    strength w on noise sigma (N_v = N_h, ±1 components): paramagnet-ferromagnet T = w
    (sigma < w), paramagnet-spin glass T = sigma (sigma > w), and ferromagnet-spin glass
    beta w (1 - q) = 1, q the spin-glass overlap at beta sigma = x: the curve
    ((1 - q) x, 1 - q) for x >= 1, from (1, 1) towards (sqrt(2 / pi), 0) (drawn to x = 30).

    Returns
    -------
    dict of str -> (sigma, T) pairs of arrays, keys "P-F", "P-SG", "F-SG"
    """
    x = np.geomspace(1.0, 30.0, 60)[1:]
    gap = 1.0 - np.array([_overlap(value) for value in x])
    return {
        "P-F": (np.array([0.0, 1.0]), np.array([1.0, 1.0])),
        "P-SG": (np.array([1.0, 2.0]), np.array([1.0, 2.0])),
        "F-SG": (np.append(1.0, gap * x), np.append(1.0, gap)),
    }


def phase_of(sigma: float, T: float, lines: dict) -> str:
    """The replica-symmetric phase at (sigma / w, T / w) (w = 1), from :func:`phase_lines`."""
    if T >= 1.0 and T >= sigma:
        return "on a phase boundary" if T in (1.0, sigma) else "paramagnet"
    line_sigma, line_T = lines["F-SG"]
    boundary = np.interp(T, line_T[::-1], line_sigma[::-1])
    return "ferromagnet" if sigma < boundary else "spin glass"


def _figure(lines: dict):
    """Left: the exact P(m_1, m_2) as an image; right: the phase diagram and a dot; and
    ``draw(law, components, sigma, T)`` that shows a :func:`bmlab.phases.mode_law` result and
    the point (sigma, T)."""
    fig, (ax_p, ax_d) = plt.subplots(1, 2, figsize=(9.0, 3.8))
    layout_once(fig)
    white_to_navy = LinearSegmentedColormap.from_list("exact", ["white", NAVY])
    image = ax_p.imshow(
        np.zeros((17, 17)),
        origin="lower",
        extent=(EDGES[0], EDGES[-1]) * 2,
        cmap=white_to_navy,
        interpolation="nearest",
    )
    ax_p.set(xlabel="$m_2$", ylabel="$m_1$", xticks=[-1, 0, 1], yticks=[-1, 0, 1])
    title = ax_p.set_title("", fontsize="medium")
    for key, (sigma, T) in lines.items():
        ax_d.plot(sigma, T, color=GRAY, lw=2, ls="--" if key == "F-SG" else "-")
    for text, x, y in (
        ("paramagnet", 0.35, 1.42),
        ("ferromagnet", 0.35, 0.3),
        ("spin glass", 1.28, 0.3),
    ):
        ax_d.text(x, y, text, color=GRAY, ha="center")
    (dot,) = ax_d.plot([0.0], [1.0], "o", color=ORANGE, ms=10, zorder=3)
    ax_d.set(
        xlim=(-0.06, 1.56), ylim=(0.24, 1.56), xlabel="noise σ / w", ylabel="temperature T / w"
    )
    ax_d.set(xticks=[0.5, 1.0, 1.5], yticks=[0.5, 1.0, 1.5])  # no tick labels in the corner
    ax_d.set_title("phases at N → ∞", fontsize="medium")

    def draw(law, components: str, sigma: float, T: float) -> None:
        image.set_data(law.hist)
        image.set_clim(0.0, law.hist.max())
        dot.set_data([sigma], [T])
        title.set_text(f"exact P(m₁, m₂), {components}")

    return fig, draw


def phase_panel() -> Panel:
    """The exact law of two modes' magnetisations and the point on the phase diagram:
    P(m_1, m_2) exactly (N_v = 16, N_h = 64, orthogonal modes of strength w = 1) and the
    replica-symmetric phase of (sigma, T)."""
    controls = {
        "T": slider("T", 0.7, 0.3, 1.5, description="T"),  # temperature
        "sigma": slider("sigma", 0.0, 0.0, 1.5, description="σ"),  # noise r (one draw, scaled)
        # the law of the components of u and v, one of bmlab.phases.COMPONENTS
        "components": choice("components", "rademacher", list(COMPONENTS)),
    }
    noise = np.random.default_rng(0).normal(0, 1 / np.sqrt(32.0), (N_VISIBLE, N_HIDDEN))
    modes = {}
    lines = phase_lines()
    fig, draw = _figure(lines)

    def update(T, sigma, components):
        if components not in modes:
            rng = np.random.default_rng(1)
            modes[components] = rbm_ensemble(
                N_VISIBLE, N_HIDDEN, [1.0, 1.0], components=components, orthogonal=True, rng=rng
            )[:2]
        W, U = modes[components]
        law = mode_law(W + sigma * noise, U, beta=1 / T, edges=EDGES)
        draw(law, components, sigma, T)
        phase = phase_of(sigma, T, lines)
        return (
            f"T = {T:.2f}, σ = {sigma:.2f} (w = 1): {phase} by replica symmetry (N → ∞); "
            f"exact at N_v = 16: composition {law.composition:.2f}, ⟨|m₁|⟩ = {law.mean_abs[0]:.2f}"
        )

    return Panel(fig, controls, update, title="The RBM's phase diagram (notebook 07)")
