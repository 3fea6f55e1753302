"""Live panels of notebook 02 (the Z ledger, Section 5.7, Figure 5.5).

* :func:`ledger_panel` -- an editable 3-spin ledger: couplings, biases and a data
  correlation on sliders; the table, Z, <s1 s2>_model, the gradient of Eq. 5.4 and the
  frustration flag update live.
* :func:`wall_panel` -- an N slider on the 2^N curve: the number of terms, the time exact
  enumeration takes (measured on this machine where possible, extrapolated beyond) and the
  nearest cosmic comparison.
"""

from __future__ import annotations

import math

import ipywidgets as widgets
import matplotlib.pyplot as plt
import numpy as np

from .. import ledger as L
from ..panel import Panel
from ..plotting import GRAY, NAVY, ORANGE
from . import ALL_PANELS

_RED = "#b04a5a"
_GREEN = "#4c9a6a"


def _slider(description, value, lo, hi, step=0.05):
    return widgets.FloatSlider(
        value=value, min=lo, max=hi, step=step, description=description,
        continuous_update=True, readout_format=".2f",
        style={"description_width": "initial"}, layout=widgets.Layout(width="230px"),
    )


def ledger_panel(J12=0.5, J23=0.5, J13=-0.5, theta=(0.0, 0.0, 0.0), data_moment=0.5) -> Panel:
    """Editable Z ledger of the 3-spin machine of Section 5.7.

    Parameters
    ----------
    J12, J23, J13 : float in [-2, 2]
        Initial couplings (default: the lecture's machine).
    theta : sequence of 3 floats in [-1, 1]
        Initial biases.
    data_moment : float in [-0.95, 0.95]
        Initial <s1 s2>_data of the gradient example.

    Returns
    -------
    Panel
        Controls ``J12, J23, J13, theta1, theta2, theta3, data``. The HTML ledger is
        ``panel.table``; the figure shows p(s) per state and the two correlations.
    """
    theta = L.check_finite(theta, "theta")
    if theta.shape != (3,):
        raise ValueError(f"theta must have 3 entries, got shape {theta.shape}")
    controls = {
        "J12": _slider("J₁₂", J12, -2, 2),
        "J23": _slider("J₂₃", J23, -2, 2),
        "J13": _slider("J₁₃", J13, -2, 2),
        "theta1": _slider("θ₁", theta[0], -1, 1),
        "theta2": _slider("θ₂", theta[1], -1, 1),
        "theta3": _slider("θ₃", theta[2], -1, 1),
        "data": _slider("⟨s₁s₂⟩ data", data_moment, -0.95, 0.95),
    }
    states = L.ledger_states(3)
    labels = ["".join("+" if x > 0 else "−" for x in s) for s in states]
    sign = states[:, 0] * states[:, 1]

    fig, (ax_p, ax_m) = plt.subplots(
        1, 2, figsize=(7.6, 2.9), gridspec_kw={"width_ratios": [2.2, 1]}
    )
    bars = ax_p.bar(range(8), np.full(8, 1 / 8), color=[NAVY if v > 0 else ORANGE for v in sign])
    ax_p.set_xticks(range(8), labels, fontfamily="monospace")
    ax_p.set_ylim(0, 1)
    ax_p.set_ylabel("p(s) = e$^{-E}$/Z")
    ax_p.set_title("ledger rows (navy: s₁s₂=+1, orange: −1)", fontsize="medium")
    flag = ax_p.text(0.98, 0.95, "", transform=ax_p.transAxes, ha="right", va="top",
                     fontsize="medium", fontweight="bold")
    hb = ax_m.barh([1, 0], [0.0, 0.0], color=[NAVY, GRAY], height=0.6)
    ax_m.set_yticks([1, 0], ["model", "data"])
    ax_m.set_xlim(-1, 1)
    ax_m.axvline(0, color="k", lw=0.6)
    ax_m.set_title("⟨s₁s₂⟩", fontsize="medium")
    grad_text = ax_m.text(0, -0.75, "", ha="center", va="top", fontsize="medium")
    ax_m.set_ylim(-1.3, 1.6)
    fig.tight_layout()

    table = widgets.HTML()

    def update(J12, J23, J13, theta1, theta2, theta3, data):
        J = L.triangle_couplings(J12, J23, J13)
        th = np.array([theta1, theta2, theta3], dtype=float)
        led = L.ledger(J, th)
        fr = L.frustration(J, th)
        p = led.probs
        for bar, h in zip(bars, p, strict=True):
            bar.set_height(h)
        ax_p.set_ylim(0, max(0.3, 1.1 * float(p.max())))
        m = led.moment
        grad = float(data) - m
        hb[0].set_width(m)
        hb[1].set_width(float(data))
        grad_text.set_text(f"∂L/∂J₁₂ = {data:.2f} − {m:.3f} = {grad:+.3f}")
        if fr.frustrated:
            flag.set_text(f"FRUSTRATED: J₁₂J₂₃J₁₃ = {fr.loop_product:.3g} < 0")
            flag.set_color(_RED)
        elif fr.loop_product == 0:
            flag.set_text("no closed loop (a coupling is 0)")
            flag.set_color(GRAY)
        else:
            flag.set_text(f"unfrustrated: J₁₂J₂₃J₁₃ = {fr.loop_product:.3g} > 0")
            flag.set_color(_GREEN)
        table.value = led.to_html(digits=3)
        sat = "no state satisfies all 3 bonds" if fr.n_satisfying == 0 else (
            f"{fr.n_satisfying} state(s) satisfy all bonds")
        return (
            f"Z = {led.Z:.4g}, <s1s2>_model = {m:.3f}, gradient {grad:+.3f} "
            f"({'strengthen' if grad > 0 else 'weaken'} J12); {sat}; ground level "
            f"E = {fr.ground_energy:.2f}, {fr.degeneracy}-fold degenerate"
        )

    panel = Panel(fig, controls, update, title="The Z ledger, live (Section 5.7, Eq. 5.4-5.5)")
    panel.table = table
    children = list(panel.widget.children)
    panel.widget.children = (*children[:-1], table, children[-1])
    return panel


def _load_timings():
    """(N, seconds, label) of the recorded bmlab timings, or a quick live measurement."""
    try:
        from ..results import load_results

        rec = load_results("log_partition_timings")
        d = rec["data"]["bmlab"]
        return (np.asarray(d["N"], dtype=float), np.asarray(d["seconds"], dtype=float),
                f"recorded {rec['recorded']}")
    except (FileNotFoundError, KeyError, ValueError):
        ns = list(range(12, 21, 2))
        secs, _ = L.time_log_partition(ns, rng=np.random.default_rng(0), repeat=1)
        return np.asarray(ns, dtype=float), secs, "measured just now"


def wall_panel(N=30, timings=None) -> Panel:
    """The Z wall of Figure 5.5 with an N slider.

    Parameters
    ----------
    N : int in [1, 600]
        Initial number of units.
    timings : tuple (ns, seconds), optional
        Measured exact-log-Z times on this machine. Default: the recorded
        ``log_partition_timings`` result, or (if absent) a quick live measurement to N = 20.

    Returns
    -------
    Panel
        Control ``N``. The status line gives 2^N, the time (measured inside the measured
        range, else extrapolated from an exponential fit) and the nearest comparison.
    """
    N = L.check_n_states(N, 600, name="N")
    if timings is None:
        ns, secs, source = _load_timings()
    else:
        ns, secs = (L.check_finite(t, "timings") for t in timings)
        source = "given"
    fit = L.fit_exponential(ns, secs, n_min=min(20, int(np.sort(ns)[max(0, ns.size - 3)])))
    measured = dict(zip(ns.astype(int).tolist(), secs.tolist(), strict=True))

    controls = {"N": widgets.IntSlider(value=N, min=1, max=600, description="N",
                                       continuous_update=True,
                                       layout=widgets.Layout(width="500px"))}
    fig, ax = plt.subplots(figsize=(7.0, 3.0))
    grid = np.arange(1, 601)
    ax.plot(grid, grid * math.log10(2), color=NAVY)
    ax.axvspan(0, 30, color=NAVY, alpha=0.08)
    for level, name in [(math.log10(L.AGE_OF_UNIVERSE_S), "seconds since the Big Bang"),
                        (math.log10(L.ATOMS_IN_UNIVERSE), "atoms in the observable universe")]:
        ax.axhline(level, color=GRAY, ls="--", lw=1)
        ax.text(600, level + 3, name, color=GRAY, fontsize="small", ha="right", va="bottom")
    (dot,) = ax.plot([N], [N * math.log10(2)], "o", color=ORANGE, ms=8)
    label = ax.text(0.02, 0.95, "", transform=ax.transAxes, va="top", fontsize="medium",
                    color=ORANGE)
    ax.set_xlim(0, 600)
    ax.set_ylim(0, 185)
    ax.set_xlabel("number of units N")
    ax.set_ylabel("log$_{10}$ (terms in Z)")
    fig.tight_layout()

    def update(N):
        n = L.check_n_states(int(N), 600, name="N")
        dot.set_data([n], [n * math.log10(2)])
        if n in measured:
            when, how = L.human_time(measured[n]), f"measured ({source})"
        else:
            when, how = fit.predict_human(n), "extrapolated"
        terms = L.human_count(2**n)
        label.set_text(f"N = {n}: {terms} terms\nexact log Z: {when} ({how})")
        return f"N = {n}: 2^N = {terms} terms; {L.comparison(2**n)}; " \
               f"exact log Z on this machine: {when} ({how}, x{fit.factor:.2f} per spin)"

    return Panel(fig, controls, update, title="The Z wall (Figure 5.5): drag N")


ALL_PANELS["z_ledger"] = ledger_panel
ALL_PANELS["z_wall"] = wall_panel
