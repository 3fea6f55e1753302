"""Live panels of notebook 02 (the Z ledger, Section 5.7, Figure 5.5): the notebook's sums,
redone live through :mod:`bmlab.exact`, states in :func:`bmlab.all_states` order (``− − −`` first).
"""

from __future__ import annotations

import math

import ipywidgets as widgets
import matplotlib.pyplot as plt
import numpy as np

from .._kernels import _energy
from ..exact import all_states
from ..panel import Panel, layout_once, set_heights, slider
from ..plotting import EXTRA, GRAY, NAVY, ORANGE, state_labels
from ..results import load_results

_AGE_OF_UNIVERSE_S = 13.8e9 * 365.25 * 86400  # Planck 2018
_ATOMS_IN_UNIVERSE = 1e80  # order of magnitude
_UNITS = [
    (_AGE_OF_UNIVERSE_S, "ages of the universe"),
    (365.25 * 86400, "years"),
    (86400, "days"),
    (3600, "hours"),
    (60, "minutes"),
    (1, "s"),
    (1e-3, "ms"),
]
_ORANGE_TEXT = "#9c4a00"  # ORANGE darkened for text: 5.3:1 on the shaded rows (ORANGE 2.3:1)
#: The ledger's sliders redraw while dragged (an update takes a few ms) and sit in rows.
_LIVE = {"continuous_update": True, "layout": {"width": "230px"}}


def _ledger_html(labels, E, w, pw) -> str:
    """The ledger as an HTML table: one row per state, column sums; ground rows shaded."""
    td = '<td style="padding:1px 10px;text-align:right;font-family:monospace{}">{}</td>'
    ground = np.isclose(E, E.min(), rtol=0, atol=1e-9)
    rows = ["<tr><th>s₁ s₂ s₃</th><th>E(s)</th><th>e<sup>−E</sup></th><th>s₁s₂ e<sup>−E</sup>"]
    for label, e, x, y, g in zip(labels, E, w, pw, ground, strict=True):
        shade = ' style="background:#e8edf6"' if g else ""
        color = ";color:" + _ORANGE_TEXT if y < 0 else ""
        rows.append(
            f"<tr{shade}>{td.format('', ' '.join(label))}{td.format('', f'{e:+.3f}')}"
            f"{td.format('', f'{x:.3f}')}{td.format(color, f'{y:+.3f}')}</tr>"
        )
    rows.append(
        f"<tr><td>sum</td><td></td>{td.format('', f'Z = {w.sum():.3f}')}"
        f"{td.format('', f'{pw.sum():+.3f}')}</tr>"
    )
    return '<table style="border-collapse:collapse">' + "".join(rows) + "</table>"


def _ledger_figure(s1s2):
    """p(s) per state (bars coloured by s1 s2) and the model and data <s1 s2> (bars), and
    ``draw(p, model, data, flag)`` that shows p(s), both moments and the frustration flag
    (its text and colour)."""
    fig, (ax_p, ax_m) = plt.subplots(
        1, 2, figsize=(9.0, 3.0), layout="constrained", gridspec_kw={"width_ratios": [1.8, 1]}
    )
    bars = ax_p.bar(range(8), np.full(8, 1 / 8), color=[NAVY if v > 0 else ORANGE for v in s1s2])
    ax_p.set_xticks(range(8), state_labels(3), fontfamily="monospace")
    ax_p.set_ylabel("p(s) = e$^{-E}$/Z")
    ax_p.set_xlabel("navy: s₁s₂ = +1, orange: s₁s₂ = −1", fontsize="medium")
    flag = ax_p.text(  # in the title's place, off the bars
        0.5, 1.04, "", transform=ax_p.transAxes, ha="center", va="bottom", fontweight="bold"
    )
    moments = ax_m.barh([1, 0], [0.0, 0.0], color=[NAVY, GRAY], height=0.6)
    ax_m.set_yticks([1, 0], ["model", "data"])
    ax_m.set(xlim=(-1, 1), ylim=(-1.3, 1.6))
    ax_m.set_title("⟨s₁s₂⟩", fontsize="medium")
    ax_m.axvline(0, color="k", lw=0.6)
    grad_text = ax_m.set_xlabel("", fontsize="medium")

    def draw(p, model: float, data: float, flag_text: tuple[str, str]) -> None:
        set_heights(bars, p)
        ax_p.set_ylim(0, max(0.3, 1.1 * float(p.max())))
        moments[0].set_width(model)
        moments[1].set_width(data)
        grad_text.set_text(f"∂L/∂J₁₂ = data − model\n= {data - model:+.3f}")
        flag.set(text=flag_text[0], color=flag_text[1])

    return fig, draw


def _frustration(J12, J23, J13) -> tuple[str, str]:
    """The flag of the triangle's loop J12 J23 J13 and its colour."""
    loop = J12 * J23 * J13
    if loop == 0:
        return "no closed loop (a coupling is 0)", GRAY
    if loop < 0:
        return f"FRUSTRATED: J₁₂J₂₃J₁₃ = {loop:.3g} < 0", EXTRA[1]
    return f"unfrustrated: J₁₂J₂₃J₁₃ = {loop:.3g} > 0", EXTRA[0]


def ledger_panel() -> Panel:
    """Editable Z ledger of the 3-spin machine of Section 5.7, starting at the lecture's; the
    ledger's table is ``panel.table``."""
    controls = {
        "J12": slider("J12", 0.5, -2.0, 2.0, description="J₁₂", **_LIVE),  # the couplings
        "J23": slider("J23", 0.5, -2.0, 2.0, description="J₂₃", **_LIVE),
        "J13": slider("J13", -0.5, -2.0, 2.0, description="J₁₃", **_LIVE),
        "theta1": slider("theta1", 0.0, -1.0, 1.0, description="θ₁", **_LIVE),  # the biases
        "theta2": slider("theta2", 0.0, -1.0, 1.0, description="θ₂", **_LIVE),
        "theta3": slider("theta3", 0.0, -1.0, 1.0, description="θ₃", **_LIVE),
        # <s1 s2>_data of the gradient of Eq. 5.4
        "data": slider("data", 0.5, -0.95, 0.95, description="⟨s₁s₂⟩ data", **_LIVE),
    }
    S = all_states(3).astype(float)
    labels = state_labels(3)
    s1s2 = S[:, 0] * S[:, 1]
    bonds = np.stack([s1s2, S[:, 1] * S[:, 2], S[:, 0] * S[:, 2]], axis=1)  # pairs 12, 23, 13
    fig, draw = _ledger_figure(s1s2)
    table = widgets.HTML()

    def update(J12, J23, J13, theta1, theta2, theta3, data):
        J = np.array([[0.0, J12, J13], [J12, 0.0, J23], [J13, J23, 0.0]])
        E = _energy(S, J, np.array([theta1, theta2, theta3], dtype=float))  # Eq. 5.1
        w = np.exp(-E)
        p = w / w.sum()  # Eq. 5.3
        m = float(s1s2 @ w / w.sum())  # Eq. 5.5
        grad = float(data) - m
        draw(p, m, float(data), _frustration(J12, J23, J13))
        table.value = _ledger_html(labels, E, w, s1s2 * w)
        n_sat = int(np.all(bonds * np.array([J12, J23, J13]) >= 0, axis=1).sum())
        ground = np.isclose(E, E.min(), rtol=0, atol=1e-9)
        sat = f"{n_sat} state(s) satisfy all bonds" if n_sat else "no state satisfies all 3 bonds"
        return (
            f"Z = {w.sum():.4g}, <s1s2>_model = {m:.3f}, gradient {grad:+.3f} "
            f"({'strengthen' if grad > 0 else 'weaken'} J12); {sat}; ground level "
            f"E = {E.min():.2f}, {ground.sum()}-fold degenerate"
        )

    panel = Panel(
        layout_once(fig), controls, update, title="The Z ledger, live (Section 5.7, Eq. 5.4-5.5)"
    )
    panel.table = table
    *rows, status = panel.widget.children
    panel.widget.children = (*rows, table, status)  # the table above the status line
    return panel


def _count(x: int) -> str:
    """A count as '1,024' below a million, else '1.27 × 10^30' (exact for any int)."""
    if x < 10**6:
        return f"{x:,}"
    e = len(str(x)) - 1
    mant = round(x / 10**e, 2)
    return f"{mant / 10:.2f} × 10^{e + 1}" if mant >= 10 else f"{mant:.2f} × 10^{e}"


def _time(seconds: float) -> str:
    """Seconds in the largest unit that fits, from µs to ages of the universe."""
    size, unit = next(((size, unit) for size, unit in _UNITS if seconds >= size), (1e-6, "µs"))
    value = seconds / size
    return f"{value:.3g} {unit}" if value < 1000 else f"{_count(round(value))} {unit}"


def _wall_time(N: int, measured: dict, source: str) -> tuple[str, str]:
    """The time of exact log Z at N and how it is known: measured, or 2^N times the time at
    the largest measured N (enumeration costs ∝ 2^N; nothing is fitted)."""
    n_top = max(measured)
    if N in measured:
        return _time(measured[N]), f"measured, {source}"
    if N > n_top:
        return _time(measured[n_top] * 2.0 ** (N - n_top)), f"2^N from N = {n_top}"
    return f"under {_time(measured[min(measured)])}", "not measured"


def wall_panel() -> Panel:
    """The Z wall of Figure 5.5 with an N slider.

    The status gives 2^N, the nearest cosmic comparison and the time of exact log Z on the
    machine that recorded ``log_partition_timings``
    (``benchmarks/record_log_partition_timings.py``): measured inside the measured range,
    beyond it 2^N times the time at the largest measured N (enumeration costs ∝ 2^N; nothing
    is fitted).
    """
    controls = {  # the number of units
        "N": slider("N", 30, 1, 600, continuous_update=True, layout={"width": "500px"}),
    }
    rec = load_results("log_partition_timings")
    timings = zip(rec["data"]["bmlab"]["N"], rec["data"]["bmlab"]["seconds"], strict=True)
    measured = {int(n): float(t) for n, t in timings}
    source = f"recorded {rec['recorded']}"
    fig, ax = plt.subplots(figsize=(7.0, 3.0), layout="constrained")
    ax.plot(np.arange(1, 601), np.arange(1, 601) * math.log10(2), color=NAVY)
    ax.axvspan(0, 30, color=NAVY, alpha=0.08)
    refs = [  # what 2**N terms are compared with, largest first; the first two are drawn
        (_ATOMS_IN_UNIVERSE, "atoms in the observable universe"),
        (_AGE_OF_UNIVERSE_S, "seconds since the Big Bang"),
        (86400, "seconds in a day"),
    ]
    for value, name in refs[:2]:
        ax.axhline(math.log10(value), color=GRAY, ls="--", lw=1)
        ax.text(600, math.log10(value) + 3, name, color=GRAY, fontsize="small", ha="right")
    (dot,) = ax.plot([], [], "o", color=ORANGE, ms=8)
    label = ax.text(0.02, 0.95, "", transform=ax.transAxes, va="top", color=ORANGE)
    ax.set(
        xlim=(0, 600), ylim=(0, 185), xlabel="number of units N", ylabel="log$_{10}$ (terms in Z)"
    )

    def update(N):
        dot.set_data([N], [N * math.log10(2)])
        when, how = _wall_time(N, measured, source)
        terms = _count(2**N)
        than = next(
            (f"more terms than {name}" for v, name in refs if 2**N > v),
            "fewer terms than seconds in a day",
        )
        label.set_text(f"N = {N}: {terms} terms\nexact log Z: {when}\n({how})")
        on = "exact log Z on the recording machine"
        return f"N = {N}: 2^N = {terms} terms; {than}; {on}: {when} ({how})"

    return Panel(layout_once(fig), controls, update, title="The Z wall (Figure 5.5): drag N")
