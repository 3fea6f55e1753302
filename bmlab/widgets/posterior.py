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
#: least 0.2 is condensed; an alignment of at least 0.5 puts W's top eigenvector along u.
_CONDENSED, _ALIGNED = 0.2, 0.5


def _label(x: float) -> str:
    return f"{x:g}"


def _phase(alignment: float, condensation: float) -> str:
    """The name of the phase of a posterior with these mean order parameters."""
    if condensation >= _CONDENSED:
        where = "along the teacher" if alignment >= _ALIGNED else "off the teacher"
        return f"condensed {where}"
    return "aligned but silent" if alignment >= _ALIGNED else "isotropic"


class _Grid:
    """The record, indexed by (teacher, eta, gamma): the first chain's means, per teacher the
    maps of condensation and alignment (eta by gamma)."""

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

    def map(self, teacher: str, measure: str) -> np.ndarray:
        return np.array(
            [
                [
                    self.point(teacher, _label(e), _label(g))["chains"][0][measure]
                    for g in self.gammas
                ]
                for e in self.etas
            ]
        )


def _figure(grid: _Grid):
    """Left: condensation map; middle: reverse KL against gamma; right: the sample strip."""
    fig, (ax_map, ax_kl, ax_strip) = plt.subplots(
        1, 3, figsize=(11.5, 3.8), gridspec_kw={"width_ratios": [1.35, 1.0, 1.0]}
    )
    layout_once(fig)
    shape = (len(grid.etas), len(grid.gammas))
    image = ax_map.imshow(
        np.zeros(shape), cmap="Blues", vmin=0, vmax=1, origin="lower", aspect="auto"
    )
    fig.colorbar(image, ax=ax_map, label="condensation", shrink=0.9)
    (aligned,) = ax_map.plot([], [], "o", color=GRAY, ms=4, ls="none")
    (here,) = ax_map.plot([], [], "s", mfc="none", mec=ORANGE, mew=2.5, ms=13)
    short = [f"{g / 1000:g}k" if g >= 1000 else _label(g) for g in grid.gammas]  # 3k, 10k
    ax_map.set_xticks(range(len(grid.gammas)), short)
    ax_map.set_yticks(range(len(grid.etas)), [_label(e) for e in grid.etas])
    ax_map.set(xlabel="γ", ylabel="η")
    ax_map.set_title("gray dots: W's top eigenvector along u", fontsize="small")
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
    artists = {"image": image, "aligned": aligned, "here": here, "curve": curve, "dot": dot}
    artists |= {"uniform": uniform, "kl_title": kl_title, "strip": strip, "ax_kl": ax_kl}
    return fig, artists


def posterior_panel(teacher: str = "3", gamma: str = "1000", eta: str = "0.1") -> Panel:
    """The tempered posterior of the spherical machine over the recorded grid.

    Parameters
    ----------
    teacher : str, the teacher's strength c* ("1.5" or "3")
    gamma : str, the prior's strength, one of the grid's values ("3" ... "10000")
    eta : str, the posterior's inverse temperature, one of the grid's values ("0.03" ... "10")

    Returns
    -------
    Panel
        Live panel, controls ``teacher, gamma, eta``: the condensation of the posterior's
        machines over (gamma, eta) with the chosen point, its mean reverse KL from the teacher
        against gamma, and 6 samples of its posterior predictive; the status line names the
        phase and gives the order parameters.
    """
    grid = _Grid()
    controls = {
        "teacher": choice("teacher", teacher, list(grid.teachers), description="teacher c*"),
        "gamma": choice("gamma", gamma, [_label(g) for g in grid.gammas], description="γ"),
        "eta": choice("eta", eta, [_label(e) for e in grid.etas], description="η"),
    }
    fig, a = _figure(grid)

    def update(teacher, gamma, eta):
        condensation = grid.map(teacher, "condensation")
        alignment = grid.map(teacher, "alignment")
        a["image"].set_data(condensation)
        rows, cols = np.nonzero(alignment >= _ALIGNED)
        a["aligned"].set_data(cols, rows)
        i, j = grid.etas.index(float(eta)), grid.gammas.index(float(gamma))
        a["here"].set_data([j], [i])
        kls = [grid.point(teacher, eta, _label(g))["chains"][0]["reverse_kl"] for g in grid.gammas]
        a["curve"].set_ydata(kls)
        a["dot"].set_data([float(gamma)], [kls[j]])
        uniform = grid.teachers[teacher]["uniform_reverse_kl"]
        a["uniform"].set_ydata([uniform, uniform])
        a["ax_kl"].set_ylim(0.0, 1.1 * max(*kls, uniform))
        a["kl_title"].set_text(f"mean reverse KL at η = {eta}")
        p = grid.point(teacher, eta, gamma)
        a["strip"].set_data(np.array([row.split() for row in p["strip"]], float) / 4)
        c = p["chains"][0]
        return (
            f"c* = {teacher}, γ = {gamma}, η = {eta}: {_phase(c['alignment'], c['condensation'])} "
            f"(alignment {c['alignment']:.2f}, condensation {c['condensation']:.2f}, overlap "
            f"{c['overlap']:.2f}); reverse KL {c['reverse_kl']:.1f} nats, uniform law {uniform:.1f}"
        )

    return Panel(fig, controls, update, title="The spherical machine's posterior (notebook 06b)")
