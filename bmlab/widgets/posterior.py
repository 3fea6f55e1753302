"""Live panel of notebook 06b (the spherical machine learned as a Bayesian).

:func:`posterior_panel`: the recorded grid of tempered posteriors (``spherical_posterior``
record): the teacher's strength, gamma and eta pick a grid point; the figure shows the
condensation of the posterior's machines over the whole grid with the point marked, the
posterior-averaged reverse KL against gamma at that eta, and a strip of samples of the
posterior predictive (each row a sample of the machine of one posterior draw).
"""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np

from ..panel import Panel, choice, layout_once
from ..plotting import GRAY, ORANGE
from ..results import load_results

#: Thresholds that name the phases at N = 50 (notebook 06b, Section 2): a condensation of at
#: least 0.2 is condensed; an alignment of at least 0.5 puts W's top eigenvector along u. A
#: posterior is named only when both its means lie more than 4 standard errors from them.
_CONDENSED, _ALIGNED, _DECIDED = 0.2, 0.5, 4.0
_NAMES = {
    (1, 1): "condensed along the teacher",
    (1, -1): "condensed off the teacher",
    (-1, 1): "aligned but silent",
    (-1, -1): "isotropic",
}


def _label(x: float) -> str:
    return f"{x:g}"


def _pooled(point: dict, measure: str) -> tuple[float, float]:
    """The mean of a measure over the point's two chains and its standard error."""
    a, b = point["chains"]
    se = np.hypot(a[f"{measure}_se"], b[f"{measure}_se"]) / 2
    return (a[measure] + b[measure]) / 2, float(se)


def _phase(point: dict) -> str:
    """The name of the phase of a recorded posterior, or "undecided" near a threshold."""
    sides = []
    for measure, threshold in (("condensation", _CONDENSED), ("alignment", _ALIGNED)):
        value, se = _pooled(point, measure)
        decided = abs(value - threshold) > _DECIDED * se
        sides.append(int(np.sign(value - threshold)) if decided else 0)
    return _NAMES.get(tuple(sides), "undecided (a mean within 4 standard errors of its threshold)")


class _Grid:
    """The record, indexed by (teacher, eta, gamma): per teacher the maps (eta by gamma) of a
    measure's mean over the two chains and of the phases."""

    def __init__(self):
        rec = load_results("spherical_posterior")
        self.params = rec["params"]
        self.teachers = {_label(float(c)): t for c, t in rec["data"]["teachers"].items()}
        self.gammas = [float(g) for g in self.params["gammas"]]
        self.etas = [float(e) for e in self.params["etas"]]
        self.points = {
            (_label(p["c_star"]), _label(p["eta"]), _label(p["gamma"])): p
            for p in rec["data"]["points"]
        }

    def point(self, teacher: str, eta: str, gamma: str) -> dict:
        return self.points[teacher, eta, gamma]

    def map(self, teacher: str, measure=None) -> np.ndarray:
        """The pooled means of ``measure`` over the grid, or the phases if it is None."""
        rows = []
        for e in self.etas:
            points = [self.point(teacher, _label(e), _label(g)) for g in self.gammas]
            rows.append([_phase(p) if measure is None else _pooled(p, measure)[0] for p in points])
        return np.array(rows)


def _figure(grid: _Grid):
    """Left: condensation map; middle: reverse KL against gamma; right: the sample strip; and
    ``draw(teacher, gamma, eta)`` that shows the grid of that teacher and its point there."""
    fig, (ax_map, ax_kl, ax_strip) = plt.subplots(
        1, 3, figsize=(11.5, 3.8), gridspec_kw={"width_ratios": [1.35, 1.0, 1.0]}
    )
    layout_once(fig)
    shape = (len(grid.etas), len(grid.gammas))
    image = ax_map.imshow(
        np.zeros(shape), cmap="Blues", vmin=0, vmax=1, origin="lower", aspect="auto"
    )
    fig.colorbar(image, ax=ax_map, label="condensation", shrink=0.9)
    (aligned,) = ax_map.plot([], [], "o", color=ORANGE, ms=4, ls="none")
    (undecided,) = ax_map.plot([], [], marker="$?$", color=ORANGE, ms=8, ls="none")
    (here,) = ax_map.plot([], [], "s", mfc="none", mec=ORANGE, mew=2.5, ms=13)
    short = [f"{g / 1000:g}k" if g >= 1000 else _label(g) for g in grid.gammas]  # 3k, 10k
    ax_map.set_xticks(range(len(grid.gammas)), short)
    ax_map.set_yticks(range(len(grid.etas)), [_label(e) for e in grid.etas])
    ax_map.set(xlabel="γ", ylabel="η")
    ax_map.set_title("dots: W's top eigenvector along u; ?: undecided", fontsize="small")
    (curve,) = ax_kl.plot(grid.gammas, np.ones(len(grid.gammas)), "o-", color=ORANGE, ms=4)
    (dot,) = ax_kl.plot([1.0], [1.0], "o", color=ORANGE, ms=11, mfc="none", mew=2)
    uniform = ax_kl.axhline(1.0, color=GRAY, ls="--", lw=1)
    ax_kl.set(xscale="log", xlabel="γ", ylabel="nats (dashed: uniform law)")
    kl_title = ax_kl.set_title("", fontsize="small")
    n = int(grid.params["N"])
    strip = ax_strip.imshow(
        np.zeros((int(grid.params["strip"]), n)), cmap="RdBu_r", vmin=-6, vmax=6, aspect="auto"
    )
    ax_strip.set_xticks([0, n - 1], ["1", f"{n} = u"])
    ax_strip.set_yticks([])
    ax_strip.set(xlabel="coordinate of x", ylabel="samples")
    ax_strip.set_title("predictive samples", fontsize="small")

    def draw(teacher: str, gamma: str, eta: str) -> None:
        image.set_data(grid.map(teacher, "condensation"))
        phases = grid.map(teacher)
        rows, cols = np.nonzero(np.isin(phases, [_NAMES[1, 1], _NAMES[-1, 1]]))
        aligned.set_data(cols, rows)
        rows, cols = np.nonzero(~np.isin(phases, list(_NAMES.values())))
        undecided.set_data(cols, rows)
        i, j = grid.etas.index(float(eta)), grid.gammas.index(float(gamma))
        here.set_data([j], [i])
        kls = grid.map(teacher, "reverse_kl")[i]
        curve.set_ydata(kls)
        dot.set_data([float(gamma)], [kls[j]])
        level = grid.teachers[teacher]["uniform_reverse_kl"]
        uniform.set_ydata([level, level])
        ax_kl.set_ylim(0.0, 1.1 * max(*kls, level))
        kl_title.set_text(f"mean reverse KL at η = {eta}")
        rows = grid.point(teacher, eta, gamma)["strip"]
        strip.set_data(np.array([row.split() for row in rows], float) / 4)

    return fig, draw


def posterior_panel() -> Panel:
    """The tempered posterior of the spherical machine over the recorded grid: the
    condensation of the posterior's machines over (gamma, eta) with the chosen point, its mean
    reverse KL from the teacher against gamma, and 6 samples of its posterior predictive; the
    status line names the phase and gives the order parameters."""
    grid = _Grid()
    controls = {  # each one of the grid's values
        # the teacher's strength c*
        "teacher": choice("teacher", "3", list(grid.teachers), description="teacher c*"),
        # the prior's strength
        "gamma": choice("gamma", "1000", [_label(g) for g in grid.gammas], description="γ"),
        # the posterior's inverse temperature
        "eta": choice("eta", "0.1", [_label(e) for e in grid.etas], description="η"),
    }
    fig, draw = _figure(grid)

    def update(teacher, gamma, eta):
        draw(teacher, gamma, eta)
        p = grid.point(teacher, eta, gamma)
        A, H, q, kl = (
            _pooled(p, m)[0] for m in ("alignment", "condensation", "overlap", "reverse_kl")
        )
        uniform = grid.teachers[teacher]["uniform_reverse_kl"]
        return (
            f"c* = {teacher}, γ = {gamma}, η = {eta}: {_phase(p)} (alignment {A:.2f}, "
            f"condensation {H:.2f}, overlap {q:.2f}); reverse KL {kl:.1f} nats, uniform law "
            f"{uniform:.1f}"
        )

    return Panel(fig, controls, update, title="The spherical machine's posterior (notebook 06b)")
