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

import ipywidgets as widgets
import matplotlib.pyplot as plt
import numpy as np
from matplotlib.ticker import EngFormatter, MaxNLocator

from ..exact import all_states, boltzmann_probs, energy
from ..glauber import glauber_run, glauber_transition_matrix, parallel_tempering
from ..panel import Panel
from ..plotting import EXTRA, GRAY, NAVY, ORANGE
from . import ALL_PANELS, _layout_once

#: Points drawn for a running average (log-spaced), whatever the chain length.
_MAX_POINTS = 1500


def state_labels(n: int) -> list[str]:
    """Labels "+-+" ... of the 2**n states in :func:`bmlab.all_states` order (spin 1 first)."""
    return ["".join("+" if x > 0 else "\u2212" for x in row) for row in all_states(n)]


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
    out, s = [0] * n_steps, start
    for t, u in enumerate(rng.random(n_steps).tolist()):
        s = out[t] = bisect.bisect_right(rows[s], u)
    return np.asarray(out, dtype=np.int64)


def _basin_switches(m) -> int:
    """Sign changes of m along every chain (column of m), skipping m = 0."""
    return sum(int(np.count_nonzero(np.diff(np.sign(c[c != 0])))) for c in m.T)


def _build_fig53(fancy: bool = False, logx: bool = False):
    """Figure 5.3 layout: bars on the left, running average on the right.

    ``fancy`` uses mathtext labels (static figure); the live panel keeps plain text and a
    linear time axis, which render several times faster.
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
        label=r"exact $e^{-\beta E}/Z$" if fancy else "exact",
    )
    bars_chain = ax_bar.bar(
        x + 0.2, np.zeros(8), width=0.4, color=ORANGE, label="one Glauber chain"
    )
    ax_bar.set_xticks(x, state_labels(3), fontfamily="monospace")
    ax_bar.set_xlabel(
        r"state $s_1 s_2 s_3$ (grey: its energy $E$)"
        if fancy
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
    if logx:
        ax_run.set_xscale("log")
    else:
        ax_run.xaxis.set_major_locator(MaxNLocator(5))
        ax_run.xaxis.set_major_formatter(EngFormatter(sep=""))  # 10k: fits the layout
    ax_run.yaxis.set_major_locator(MaxNLocator(5))
    ax_run.set_xlabel("sweeps")
    ax_run.set_ylabel(r"estimate of $\langle s_1 s_2\rangle$" if fancy else "estimate of <s1 s2>")
    ax_run.set_ylim(-1.05, 1.05)
    ax_run.legend(loc="lower right", fontsize="small")
    art = {
        "ax_bar": ax_bar,
        "ax_run": ax_run,
        "bars_exact": bars_exact,
        "bars_chain": bars_chain,
        "e_text": e_text,
        "run_line": run_line,
        "exact_line": exact_line,
        "logx": logx,
    }
    return fig, art


def _draw_fig53(art, p_exact, freq, energies, sweeps, running, exact_pair) -> None:
    """Move the artists of :func:`_build_fig53` to new data (in place)."""
    for bar, h in zip(art["bars_exact"], p_exact, strict=True):
        bar.set_height(h)
    for bar, h in zip(art["bars_chain"], freq, strict=True):
        bar.set_height(h)
    top = float(max(p_exact.max(), freq.max()))
    for txt, xi, e, h in zip(
        art["e_text"], range(8), energies, np.maximum(p_exact, freq), strict=True
    ):
        txt.set_text(f"{e:+.2g}".replace("-", "\u2212"))
        txt.set_position((xi, h + 0.01 * top))
    art["ax_bar"].set_ylim(0.0, 1.32 * top + 1e-3)  # headroom for energies and legend
    idx = _thin(len(running))
    art["run_line"].set_data(sweeps[idx], running[idx])
    art["exact_line"].set_ydata([exact_pair, exact_pair])
    if art["logx"]:
        art["ax_run"].set_xlim(sweeps[0], sweeps[-1] * 1.05)
    else:
        art["ax_run"].set_xlim(0.0, sweeps[-1])


def figure_5_3(p_exact, freq, energies, sweeps, running, exact_pair, *, logx=True):
    """Static Figure 5.3 (same artists as :func:`fig53_panel`).

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
    logx : bool
        Logarithmic time axis (shows the early transient and the late convergence).

    Returns
    -------
    matplotlib.figure.Figure
    """
    fig, art = _build_fig53(fancy=True, logx=logx)
    _draw_fig53(
        art,
        np.asarray(p_exact, float),
        np.asarray(freq, float),
        np.asarray(energies, float),
        np.asarray(sweeps, float),
        np.asarray(running, float),
        float(exact_pair),
    )
    return fig


def _slider(value, lo, hi, step, desc):
    return widgets.FloatSlider(
        value=value,
        min=lo,
        max=hi,
        step=step,
        description=desc,
        continuous_update=False,
        readout_format=".2f",
    )


def fig53_panel(J12=0.5, J23=0.5, J13=-0.5, theta=0.0, beta=1.0, n_sweeps=4000, seed=0):
    """Figure 5.3 live: one random-site Glauber chain on a three-spin machine.

    The chain is drawn step by step from the exact one-update matrix
    (:func:`bmlab.glauber_transition_matrix`), the same dynamics as
    ``glauber_run(order="random")`` but fast enough to redraw on every slider move. It
    starts at all +1.

    Parameters
    ----------
    J12, J23, J13 : float in [-2, 2]
        Couplings of the triangle.
    theta : float in [-1, 1]
        Common bias of the three spins.
    beta : float in [0, 3]
    n_sweeps : int in [100, 10000]
    seed : int in [0, 99]

    Returns
    -------
    Panel
    """
    controls = {
        "J12": _slider(J12, -2.0, 2.0, 0.05, "J12"),
        "J23": _slider(J23, -2.0, 2.0, 0.05, "J23"),
        "J13": _slider(J13, -2.0, 2.0, 0.05, "J13"),
        "theta": _slider(theta, -1.0, 1.0, 0.05, "\u03b8"),
        "beta": _slider(beta, 0.0, 3.0, 0.05, "\u03b2"),
        "n_sweeps": widgets.IntSlider(
            value=n_sweeps,
            min=100,
            max=10000,
            step=100,
            description="sweeps",
            continuous_update=False,
        ),
        "seed": widgets.IntSlider(
            value=seed, min=0, max=99, description="seed", continuous_update=False
        ),
    }
    fig, art = _build_fig53()
    S = all_states(3).astype(float)
    pair = S[:, 0] * S[:, 1]

    def update(J12, J23, J13, theta, beta, n_sweeps, seed):
        J = _triangle(J12, J23, J13)
        th = np.full(3, float(theta))
        p = boltzmann_probs(J, th, beta)
        T = glauber_transition_matrix(J, th, beta)
        rng = np.random.default_rng(seed)
        path = _markov_path(T, 3 * int(n_sweeps), 7, rng)  # 7 = all +1
        freq = np.bincount(path, minlength=8) / path.size
        running = np.cumsum(pair[path]) / np.arange(1, path.size + 1)
        sweeps = np.arange(1, path.size + 1) / 3.0
        exact_pair = float(p @ pair)
        _draw_fig53(art, p, freq, energy(S, J, th), sweeps, running, exact_pair)
        return (
            f"exact <s1 s2> = {exact_pair:.3f}; chain = {running[-1]:.3f} after "
            f"{int(n_sweeps)} sweeps; TV(exact, chain) = {0.5 * np.abs(p - freq).sum():.3f}"
        )

    return Panel(
        _layout_once(fig),
        controls,
        update,
        title="Figure 5.3 live: one Glauber chain vs the exact Boltzmann law",
    )


def two_basin_panel(beta=1.0, seed=0, n=12, n_chains=4, n_sweeps=300):
    """A beta slider on the all-to-all ferromagnet: chains freezing into one basin.

    Left: the magnetisation m = mean(s) of ``n_chains`` chains (random starts, sequential
    sweeps) against time. Right: the exact law of m beside the chains' pooled histogram.
    At theta = 0 the exact <m> is 0 for every beta; a frozen chain reports +-|m|.

    Parameters
    ----------
    beta : float in [0.1, 3]
    seed : int in [0, 99]
    n : int
        Number of spins (J_ij = 1/n; the basins split at beta about 1).
    n_chains, n_sweeps : int
        Fixed budget of the panel.

    Returns
    -------
    Panel
    """
    controls = {
        "beta": _slider(beta, 0.1, 3.0, 0.05, "\u03b2"),
        "seed": widgets.IntSlider(
            value=seed, min=0, max=99, description="seed", continuous_update=False
        ),
    }
    J = np.full((n, n), 1.0 / n)
    np.fill_diagonal(J, 0.0)
    S = all_states(n)
    k_up = (S > 0).sum(axis=1)  # number of +1 spins of each state, 0..n
    levels = 2.0 * np.arange(n + 1) / n - 1.0  # magnetisation values
    fig, (ax_t, ax_h) = plt.subplots(
        1, 2, figsize=(9.0, 3.6), layout="constrained", gridspec_kw={"width_ratios": [1.5, 1.0]}
    )
    t = np.arange(1, n_sweeps + 1)
    colors = [ORANGE, *EXTRA]  # chains: samples (orange, then the extra colours)
    lines = [
        ax_t.plot(t, np.zeros(n_sweeps), lw=1.0, color=colors[c % len(colors)])[0]
        for c in range(n_chains)
    ]
    ax_t.axhline(0.0, color=GRAY, lw=0.8, ls=":")
    ax_t.set_ylim(-1.08, 1.08)
    ax_t.set_xlim(0, n_sweeps)
    ax_t.set_xlabel("sweeps")
    ax_t.set_ylabel(f"m of {n_chains} chains, N = {n}")
    ax_t.xaxis.set_major_locator(MaxNLocator(4))
    ax_t.yaxis.set_major_locator(MaxNLocator(5))
    ax_h.xaxis.set_major_locator(MaxNLocator(5))
    ax_h.yaxis.set_major_locator(MaxNLocator(5))
    w = 0.9 / n
    bars_exact = ax_h.bar(levels - w / 2, np.zeros(n + 1), width=w, color=NAVY, label="exact")
    bars_chain = ax_h.bar(levels + w / 2, np.zeros(n + 1), width=w, color=ORANGE, label="chains")
    ax_h.set_xlabel("magnetisation m")
    ax_h.set_ylabel("probability")
    fig.legend(loc="outside upper right", ncols=2, fontsize="small")

    def update(beta, seed):
        rng = np.random.default_rng(seed)
        run = glauber_run(
            J,
            beta=beta,
            n_chains=n_chains,
            n_sweeps=n_sweeps,
            order="sequential",
            record_unit="sweep",
            init="random",
            rng=rng,
        )
        m = run.states.mean(axis=2, dtype=float)  # (n_sweeps, n_chains)
        for c, line in enumerate(lines):
            line.set_ydata(m[:, c])
        p = boltzmann_probs(J, None, beta)
        p_m = np.bincount(k_up, weights=p, minlength=n + 1)
        k_chain = np.rint((m + 1.0) * n / 2).astype(np.int64)
        h_m = np.bincount(k_chain.ravel(), minlength=n + 1) / k_chain.size
        for bar, h in zip(bars_exact, p_m, strict=True):
            bar.set_height(h)
        for bar, h in zip(bars_chain, h_m, strict=True):
            bar.set_height(h)
        ax_h.set_ylim(0.0, 1.15 * float(max(p_m.max(), h_m.max())) + 1e-3)
        switches = _basin_switches(m)
        return (
            f"beta = {beta:.2f}: exact <m> = 0, <|m|> = {p_m @ np.abs(levels):.3f}; "
            f"chains' <m> = {m.mean():+.3f}, <|m|> = {np.abs(m).mean():.3f}; "
            f"{switches} basin switches in {n_chains} x {n_sweeps} sweeps"
        )

    return Panel(
        _layout_once(fig), controls, update, title="Two basins: chains freeze as beta grows"
    )


def tempering_panel(n_temps=12, seed=0, n=12, beta=3.0, n_sweeps=200):
    """Parallel tempering live on the ferromagnet J_ij = 1/n at ``beta`` (notebook 01, 7c).

    One chain of each sampler from a random start: the exact law of m beside the visits of a
    plain Glauber chain and of the coldest replica of ``n_temps`` temperatures (geometric
    from beta = 0.5 to ``beta``; 1 = plain Glauber). Sliders: n_temps in [1, 16], seed in
    [0, 99]; ``n``, ``beta`` and ``n_sweeps`` are fixed. Returns a :class:`Panel`.
    """
    controls = {
        "n_temps": widgets.IntSlider(
            value=n_temps, min=1, max=16, description="temperatures", continuous_update=False
        ),
        "seed": widgets.IntSlider(
            value=seed, min=0, max=99, description="seed", continuous_update=False
        ),
    }
    J = (np.ones((n, n)) - np.eye(n)) / n
    p_m = np.bincount((all_states(n) > 0).sum(axis=1), weights=boltzmann_probs(J, None, beta))
    fig, ax = plt.subplots(figsize=(7.0, 3.4))
    m, w = 2.0 * np.arange(n + 1) / n - 1.0, 0.6 / n
    ax.bar(m - w, p_m, w, color=NAVY, label="exact")
    bars = [
        ax.bar(m + d, np.zeros(n + 1), w, color=c, label=lab)
        for d, c, lab in ((0.0, GRAY, "plain Glauber"), (w, ORANGE, "parallel tempering"))
    ]
    ax.set(xlabel="magnetisation m", ylabel="probability", ylim=(0.0, 1.02))
    ax.legend(loc="upper center", fontsize="small")
    fig.tight_layout()

    def update(n_temps, seed):
        rng = np.random.default_rng(seed)
        plain = glauber_run(
            J,
            beta=beta,
            n_sweeps=n_sweeps,
            order="sequential",
            record_unit="sweep",
            init="random",
            rng=rng,
        )
        pt = (
            plain
            if n_temps == 1
            else parallel_tempering(
                J, betas=np.geomspace(0.5, beta, n_temps), n_sweeps=n_sweeps, rng=rng
            )
        )
        tv = []
        for bar_set, run in zip(bars, (plain, pt), strict=True):
            h = np.bincount((run.states[:, 0] > 0).sum(axis=1), minlength=n + 1) / n_sweeps
            for bar, y in zip(bar_set, h, strict=True):
                bar.set_height(y)
            tv.append(0.5 * np.abs(h - p_m).sum())
        return (
            f"TV to the exact law of m after {n_sweeps} sweeps: plain Glauber {tv[0]:.2f}, "
            f"parallel tempering with {n_temps} temperature{'s' * (n_temps > 1)} {tv[1]:.2f}"
        )

    return Panel(
        fig, controls, update, title="Parallel tempering: the coldest replica visits both basins"
    )


ALL_PANELS["glauber_fig53"] = fig53_panel
ALL_PANELS["glauber_two_basin"] = two_basin_panel
ALL_PANELS["glauber_tempering"] = tempering_panel
