"""Live panels of notebook 01: Glauber dynamics converging to the Boltzmann law.

* :func:`fig53_panel` -- the Figure 5.3 experiment on a three-spin machine: the 8 exact
  probabilities beside one chain's visit frequencies, and the chain's running estimate of
  <s1 s2> against the exact value.
* :func:`two_basin_panel` -- a beta slider on an all-to-all ferromagnet: chains freeze into
  one of the two basins as beta grows, while the exact answer stays symmetric.
* :func:`tempering_panel` -- parallel tempering against plain Glauber on that ferromagnet.

:func:`figure_5_3` draws the static figure of the notebook with the same artists.
"""

from __future__ import annotations

import bisect

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.ticker import EngFormatter, MaxNLocator

from .._kernels import _energy, _probs, _transition_matrix
from ..exact import all_states, boltzmann_probs
from ..glauber import glauber_run, parallel_tempering
from ..panel import Panel, layout_once, set_heights, slider
from ..plotting import EXTRA, GRAY, NAVY, ORANGE, state_labels

#: Points drawn for a running average (log-spaced), whatever the chain length.
_MAX_POINTS = 1500
#: How the ferromagnet panels run their chains: sequential sweeps from random starts,
#: the states recorded after every sweep.
_SWEEPS = {"order": "sequential", "record_unit": "sweep", "init": "random"}


def _triangle(J12: float, J23: float, J13: float) -> np.ndarray:
    return np.array([[0.0, J12, J13], [J12, 0.0, J23], [J13, J23, 0.0]])


def _thin(n_points: int) -> np.ndarray:
    """Indices of at most _MAX_POINTS log-spaced points of a series of length n_points."""
    return np.unique(np.geomspace(1, n_points, _MAX_POINTS).astype(np.int64)) - 1


def _markov_path(T, n_steps: int, start: int, rng) -> np.ndarray:
    """Codes after each of ``n_steps`` steps of the chain with transition matrix T (K, K).

    Exactly the law of the dynamics T describes, one table lookup per step: for one
    random-site Glauber chain on 8 states much faster than a vectorised kernel.
    """
    cum = np.cumsum(np.clip(T, 0.0, None), axis=1)
    cum[:, -1] = np.inf  # a uniform u < 1 always lands inside the row
    rows = cum.tolist()
    out = [0] * n_steps
    s = start
    for t, u in enumerate(rng.random(n_steps).tolist()):
        s = out[t] = bisect.bisect_right(rows[s], u)
    return np.asarray(out, dtype=np.int64)


def _basin_switches(m) -> int:
    """Sign changes of m along every chain (column of m), skipping m = 0."""
    return sum(int(np.count_nonzero(np.diff(np.sign(c[c != 0])))) for c in m.T)


def _ferromagnet(n: int) -> np.ndarray:
    """Couplings J_ij = 1/n between all pairs of n spins (zero diagonal): two basins."""
    return (np.ones((n, n)) - np.eye(n)) / n


def _law_of_ups(J: np.ndarray, beta: float) -> np.ndarray:
    """Exact law of the number of +1 spins (0..N) at ``beta`` and theta = 0, shape (N + 1,)."""
    n = J.shape[0]
    ups = (all_states(n) > 0).sum(axis=1)
    return np.bincount(ups, weights=boltzmann_probs(J, beta=beta), minlength=n + 1)


def _build_fig53(static: bool = False):
    """Figure 5.3 layout, bars on the left, running average on the right, and the function
    ``draw(p_exact, freq, energies, sweeps, running, exact_pair)`` that moves its artists to
    new data in place.

    The ``static`` figure has mathtext labels and a logarithmic time axis (the early transient
    and the late convergence); the live panel keeps plain text and a linear time axis, which
    render several times faster.
    """
    fig, (ax_bar, ax_run) = plt.subplots(
        1, 2, figsize=(9.0, 3.6), gridspec_kw={"width_ratios": [1.25, 1.0]}, layout="constrained"
    )
    x = np.arange(8)
    bars_exact = ax_bar.bar(
        x - 0.2,
        np.zeros(8),
        width=0.4,
        color=NAVY,
        label=r"exact $e^{-\beta E}/Z$" if static else "exact",
    )
    bars_chain = ax_bar.bar(
        x + 0.2, np.zeros(8), width=0.4, color=ORANGE, label="one Glauber chain"
    )
    ax_bar.set_xticks(x, state_labels(3), fontfamily="monospace")
    ax_bar.set_xlabel(
        r"state $s_1 s_2 s_3$ (grey: its energy $E$)"
        if static
        else "state s1 s2 s3 (grey: its energy E)"
    )
    ax_bar.set_ylabel("probability")
    ax_bar.legend(loc="upper center", ncol=2, fontsize="small")
    e_text = [
        ax_bar.text(xi, 0.0, "", ha="center", va="bottom", fontsize="x-small", color=GRAY)
        for xi in x
    ]
    (run_line,) = ax_run.plot([1, 2], [0, 0], color=ORANGE, lw=1.4, label="chain running mean")
    exact_line = ax_run.axhline(0.0, color=NAVY, ls="--", lw=1.4, label="exact")
    if static:
        ax_run.set_xscale("log")
    else:
        ax_run.xaxis.set_major_locator(MaxNLocator(5))
        ax_run.xaxis.set_major_formatter(EngFormatter(sep=""))  # 10k: fits the layout
    ax_run.yaxis.set_major_locator(MaxNLocator(5))
    ax_run.set_xlabel("sweeps")
    ax_run.set_ylabel(r"estimate of $\langle s_1 s_2\rangle$" if static else "estimate of <s1 s2>")
    ax_run.set_ylim(-1.05, 1.05)
    ax_run.legend(loc="lower right", fontsize="small")

    def draw(p_exact, freq, energies, sweeps, running, exact_pair) -> None:
        set_heights(bars_exact, p_exact)
        set_heights(bars_chain, freq)
        top = float(max(p_exact.max(), freq.max()))
        for txt, xi, e, h in zip(e_text, x, energies, np.maximum(p_exact, freq), strict=True):
            label = f"{round(e, 2) + 0.0:+.2f}".rstrip("0").rstrip(".")  # 0.05 grid: 2 decimals
            txt.set_text(label.replace("-", "\u2212"))
            txt.set_position((xi, h + 0.01 * top))
        ax_bar.set_ylim(0.0, 1.32 * top + 1e-3)  # headroom for energies and legend
        idx = _thin(len(running))
        run_line.set_data(sweeps[idx], running[idx])
        exact_line.set_ydata([exact_pair, exact_pair])
        ax_run.set_xlim(*((sweeps[0], sweeps[-1] * 1.05) if static else (0.0, sweeps[-1])))

    return fig, draw


def figure_5_3(p_exact, freq, energies, sweeps, running, exact_pair):
    """Static Figure 5.3 (same artists as :func:`fig53_panel`), its time axis logarithmic.

    Parameters
    ----------
    p_exact, freq : array_like, shape (8,)
        Exact probabilities and the chain's visit frequencies, ``all_states`` order.
    energies : array_like, shape (8,)
    sweeps : array_like, shape (n_records,)
        Time of each record, in sweeps.
    running : array_like, shape (n_records,)
        The chain's running estimate of <s1 s2>.
    exact_pair : float
        Exact <s1 s2>.

    Returns
    -------
    matplotlib.figure.Figure
    """
    fig, draw = _build_fig53(static=True)
    draw(*(np.asarray(x, float) for x in (p_exact, freq, energies, sweeps, running)), exact_pair)
    return fig


def fig53_panel() -> Panel:
    """Figure 5.3 live: one random-site Glauber chain on a three-spin machine.

    The chain is drawn step by step from the exact one-update matrix
    (:func:`bmlab.glauber_transition_matrix`), the same dynamics as
    ``glauber_run(order="random")`` but fast enough to redraw on every slider move. It
    starts at all +1.
    """
    controls = {
        "J12": slider("J12", 0.5, -2.0, 2.0),  # couplings of the triangle (the lecture's)
        "J23": slider("J23", 0.5, -2.0, 2.0),
        "J13": slider("J13", -0.5, -2.0, 2.0),
        "theta": slider("theta", 0.0, -1.0, 1.0, description="\u03b8"),  # common bias
        "beta": slider("beta", 1.0, 0.0, 3.0, description="\u03b2"),  # inverse temperature
        "n_sweeps": slider("n_sweeps", 4000, 100, 10000, 100, description="sweeps"),  # run length
        "seed": slider("seed", 0, 0, 99),  # seed of the chain
    }
    fig, draw = _build_fig53()
    S = all_states(3).astype(float)
    pair = S[:, 0] * S[:, 1]

    def update(J12, J23, J13, theta, beta, n_sweeps, seed):
        # the controls' values are valid by construction: the unchecked kernels are used
        J = _triangle(J12, J23, J13)
        th = np.full(3, float(theta))
        p = _probs(J, th, float(beta))
        T = _transition_matrix(J, th, float(beta))
        path = _markov_path(T, 3 * int(n_sweeps), 7, np.random.default_rng(seed))  # 7 = all +1
        freq = np.bincount(path, minlength=8) / path.size
        running = np.cumsum(pair[path]) / np.arange(1, path.size + 1)
        sweeps = np.arange(1, path.size + 1) / 3.0
        exact_pair = float(p @ pair)
        draw(p, freq, _energy(S, J, th), sweeps, running, exact_pair)
        return (
            f"exact <s1 s2> = {exact_pair:.3f}; chain = {running[-1]:.3f} after "
            f"{int(n_sweeps)} sweeps; TV(exact, chain) = {0.5 * np.abs(p - freq).sum():.3f}"
        )

    return Panel(
        layout_once(fig),
        controls,
        update,
        title="Figure 5.3 live: one Glauber chain vs the exact Boltzmann law",
    )


def _two_basin_figure(n: int, n_chains: int, n_sweeps: int):
    """Chains' m against time (left), the law of m as exact and chains' bars (right), and
    ``draw(m, p_m)`` that shows the chains' m (n_sweeps, n_chains) and the exact law p_m."""
    fig, (ax_t, ax_h) = plt.subplots(
        1, 2, figsize=(9.0, 3.6), layout="constrained", gridspec_kw={"width_ratios": [1.5, 1.0]}
    )
    t = np.arange(1, n_sweeps + 1)
    lines = [  # chains are samples: orange, told apart by strength (as in notebook 01)
        ax_t.plot(t, np.zeros(n_sweeps), lw=1.0, color=ORANGE, alpha=alpha)[0]
        for alpha in np.linspace(0.4, 1.0, n_chains)
    ]
    ax_t.axhline(0.0, color=GRAY, lw=0.8, ls=":")
    ax_t.set(xlim=(0, n_sweeps), ylim=(-1.08, 1.08), xlabel="sweeps")
    ax_t.set_ylabel(f"m of {n_chains} chains, N = {n}")
    ax_t.xaxis.set_major_locator(MaxNLocator(4))
    for axis in (ax_t.yaxis, ax_h.xaxis, ax_h.yaxis):
        axis.set_major_locator(MaxNLocator(5))
    levels = 2.0 * np.arange(n + 1) / n - 1.0  # magnetisation values
    w = 0.9 / n
    bars_exact = ax_h.bar(levels - w / 2, np.zeros(n + 1), width=w, color=NAVY, label="exact")
    bars_chain = ax_h.bar(levels + w / 2, np.zeros(n + 1), width=w, color=ORANGE, label="chains")
    ax_h.set(xlabel="magnetisation m", ylabel="probability")
    fig.legend(loc="outside upper right", ncols=2, fontsize="small")

    def draw(m, p_m) -> None:
        for c, line in enumerate(lines):
            line.set_ydata(m[:, c])
        k_chain = np.rint((m + 1.0) * n / 2).astype(np.int64)
        h_m = np.bincount(k_chain.ravel(), minlength=n + 1) / k_chain.size
        set_heights(bars_exact, p_m)
        set_heights(bars_chain, h_m)
        ax_h.set_ylim(0.0, 1.15 * float(max(p_m.max(), h_m.max())) + 1e-3)

    return fig, draw


def two_basin_panel() -> Panel:
    """A beta slider on the all-to-all ferromagnet: chains freezing into one basin.

    Left: the magnetisation m = mean(s) of 4 chains (random starts, 300 sequential sweeps) on
    N = 12 spins (J_ij = 1/N; the basins split at beta about 1) against time. Right: the exact
    law of m beside the chains' pooled histogram. At theta = 0 the exact <m> is 0 for every
    beta; a frozen chain reports +-|m|.
    """
    controls = {
        "beta": slider("beta", 1.0, 0.1, 3.0, description="\u03b2"),  # inverse temperature
        "seed": slider("seed", 0, 0, 99),  # seed of the chains
    }
    n, n_chains, n_sweeps = 12, 4, 300
    J = _ferromagnet(n)
    levels = 2.0 * np.arange(n + 1) / n - 1.0  # magnetisation of 0..n spins up
    fig, draw = _two_basin_figure(n, n_chains, n_sweeps)

    def update(beta, seed):
        rng = np.random.default_rng(seed)
        run = glauber_run(J, beta=beta, n_chains=n_chains, n_sweeps=n_sweeps, rng=rng, **_SWEEPS)
        m = run.states.mean(axis=2, dtype=float)  # (n_sweeps, n_chains)
        p_m = _law_of_ups(J, float(beta))
        draw(m, p_m)
        return (
            f"beta = {beta:.2f}: exact <m> = 0, <|m|> = {p_m @ np.abs(levels):.3f}; "
            f"chains' <m> = {m.mean():+.3f}, <|m|> = {np.abs(m).mean():.3f}; "
            f"{_basin_switches(m)} basin switches in {n_chains} x {n_sweeps} sweeps"
        )

    return Panel(
        layout_once(fig), controls, update, title="Two basins: chains freeze as beta grows"
    )


def tempering_panel() -> Panel:
    """Parallel tempering live on the ferromagnet J_ij = 1/N, N = 12 (notebook 01, Section 7c).

    One chain of each sampler from a random start, 200 sweeps: the exact law of the
    magnetisation m at beta = 3 beside the visits of a plain Glauber chain and those of the
    replica at beta = 3 of parallel tempering (:func:`bmlab.parallel_tempering`), its
    temperatures geometric from beta = 0.5. The status line gives both total-variation
    distances to the exact law.
    """
    controls = {
        "n_temps": slider("n_temps", 12, 1, 16, description="temperatures"),  # 1: plain Glauber
        "seed": slider("seed", 0, 0, 99),  # seed of both chains
    }
    n, beta, n_sweeps = 12, 3.0, 200
    J = _ferromagnet(n)
    p_m = _law_of_ups(J, beta)
    fig, ax = plt.subplots(figsize=(7.0, 3.4))
    m = 2.0 * np.arange(n + 1) / n - 1.0
    w = 0.6 / n
    ax.bar(m - w, p_m, w, color=NAVY, label="exact")
    bars = [
        ax.bar(m + d, np.zeros(n + 1), w, color=c, label=lab)
        for d, c, lab in ((0.0, ORANGE, "plain Glauber"), (w, EXTRA[0], "parallel tempering"))
    ]
    ax.set(xlabel="magnetisation m", ylabel="probability", ylim=(0.0, 1.02))
    ax.legend(loc="upper center", fontsize="small")
    fig.tight_layout()

    def update(n_temps, seed):
        rng = np.random.default_rng(seed)
        plain = glauber_run(J, beta=beta, n_sweeps=n_sweeps, rng=rng, **_SWEEPS)
        if n_temps > 1:
            betas = np.geomspace(0.5, beta, n_temps)
            tempered = parallel_tempering(J, betas=betas, n_sweeps=n_sweeps, rng=rng)
        else:
            tempered = plain
        tv = []
        for bar_set, run in zip(bars, (plain, tempered), strict=True):
            h = np.bincount((run.states[:, 0] > 0).sum(axis=1), minlength=n + 1) / n_sweeps
            set_heights(bar_set, h)
            tv.append(0.5 * np.abs(h - p_m).sum())
        return (
            f"TV to the exact law of m after {n_sweeps} sweeps: plain Glauber {tv[0]:.2f}, "
            f"parallel tempering with {n_temps} temperature{'s' * (n_temps > 1)} {tv[1]:.2f}"
        )

    return Panel(
        fig, controls, update, title="Parallel tempering: the coldest replica visits both basins"
    )
