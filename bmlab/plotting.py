"""One plotting style for the whole companion.

The palette follows the lecture's figures: navy for exact answers and the model, orange for
samples and estimates, gray for references and annotations. :func:`use_style` sets
matplotlib defaults for reading on a screen or, with ``mode="projector"``, for a lecture hall
(larger fonts, thicker lines). :func:`save_figure` writes PNG and SVG files that are
byte-identical when a notebook is re-run, so regenerating figures never dirties git.
"""

from __future__ import annotations

import os
from pathlib import Path

import matplotlib as mpl
from cycler import cycler

NAVY = "#1f3b73"
ORANGE = "#e8862a"
GRAY = "#7f7f7f"
#: Extra colours for plots with more than three series (muted, colour-blind friendly).
EXTRA = ("#4c9a6a", "#b04a5a", "#8a6fb3", "#3f9bbf")
PALETTE = (NAVY, ORANGE, GRAY, *EXTRA)

_BASE = {
    "axes.prop_cycle": cycler(color=list(PALETTE)),
    "axes.spines.top": False,
    "axes.spines.right": False,
    "axes.titleweight": "bold",
    "legend.frameon": False,
    "figure.dpi": 100,
    "savefig.dpi": 120,
    "savefig.bbox": "tight",
    "svg.hashsalt": "bmlab",
    "svg.fonttype": "path",
    "image.cmap": "RdBu_r",
}
_MODES = {
    "screen": {"font.size": 10, "lines.linewidth": 1.6, "figure.figsize": (8.0, 3.6)},
    "projector": {
        "font.size": 15,
        "axes.titlesize": 17,
        "axes.labelsize": 16,
        "xtick.labelsize": 14,
        "ytick.labelsize": 14,
        "legend.fontsize": 14,
        "lines.linewidth": 3.0,
        "lines.markersize": 9,
        "figure.figsize": (11.0, 5.0),
    },
}


def use_style(mode: str = "screen") -> None:
    """Apply the companion's matplotlib style.

    Parameters
    ----------
    mode : {"screen", "projector"}
        ``"projector"`` enlarges fonts and lines for a lecture hall. The environment
        variable ``BMLAB_STYLE`` overrides the default mode (e.g. ``BMLAB_STYLE=projector``).
    """
    mode = os.environ.get("BMLAB_STYLE", mode)
    if mode not in _MODES:
        raise ValueError(f"mode must be 'screen' or 'projector', got {mode!r}")
    mpl.rcParams.update(_BASE)
    mpl.rcParams.update(_MODES[mode])


def figures_dir() -> Path:
    """Directory that regenerated figures are written to.

    ``$BMLAB_FIGURES`` if set; otherwise the ``figures/`` folder of the repository when run
    from the repository or its ``notebooks/`` folder; otherwise ``./figures``.
    """
    env = os.environ.get("BMLAB_FIGURES")
    if env:
        return Path(env)
    cwd = Path.cwd()
    for candidate in (cwd / "figures", cwd.parent / "figures"):
        if candidate.is_dir():
            return candidate
    return cwd / "figures"


def save_figure(fig, name: str, formats=("png", "svg")) -> list[Path]:
    """Save ``fig`` deterministically as ``figures/<name>.<fmt>`` -- only when asked.

    Files are written only when ``$BMLAB_SAVE_FIGURES`` is ``1`` (``make notebooks`` and
    ``make figures`` set it), into :func:`figures_dir`; otherwise nothing is written, so
    running or testing a notebook never touches the checkout or creates ``figures/``.
    No dates or software versions are embedded and SVG ids use a fixed salt, so the files
    are byte-identical across re-runs with the same package versions.

    Parameters
    ----------
    fig : matplotlib.figure.Figure
    name : str
        File stem that says which lecture figure this is, e.g. ``"fig5.3_glauber_convergence"``.
    formats : tuple of str

    Returns
    -------
    list of pathlib.Path
        The files written (empty when saving was not asked for).
    """
    if not name or "/" in name or "\\" in name:
        raise ValueError(f"name must be a plain file stem, got {name!r}")
    if os.environ.get("BMLAB_SAVE_FIGURES", "0") != "1":
        return []
    out = figures_dir()
    out.mkdir(parents=True, exist_ok=True)
    paths = []
    metadata = {
        "png": {"Software": None},
        "svg": {"Date": None, "Creator": None},
        "pdf": {"CreationDate": None, "Producer": None, "Creator": None},
    }
    with mpl.rc_context({"svg.hashsalt": "bmlab"}):
        for fmt in formats:
            path = out / f"{name}.{fmt}"
            fig.savefig(path, format=fmt, metadata=metadata.get(fmt))
            paths.append(path)
    return paths


def draw_network(
    ax,
    n_visible: int,
    n_hidden: int,
    *,
    restricted: bool = False,
    title: str | None = None,
    unit_labels: bool = True,
) -> dict:
    """Draw a Boltzmann machine as a graph (the two panels of the lecture's Figure 5.4).

    Visible units (navy, filled: they carry the data) sit on the bottom row, hidden units
    (orange, open: latent) on the top row. Couplings are gray lines; couplings within a layer
    are drawn as arcs so they stay distinguishable from the between-layer couplings.

    Parameters
    ----------
    ax : matplotlib.axes.Axes
    n_visible : int, 1..12
    n_hidden : int, 0..12
    restricted : bool
        False: couplings within and between layers (general machine). True: only between
        the layers (restricted machine).
    title : str, optional
        Axes title; default names the architecture.
    unit_labels : bool
        Write v_i and h_j inside the units.

    Returns
    -------
    dict
        ``"visible"`` and ``"hidden"``: arrays of unit positions, shapes (n_visible, 2) and
        (n_hidden, 2); ``"between"``, ``"within"``: numbers of couplings drawn.
    """
    import numbers

    import numpy as np
    from matplotlib.patches import Circle, FancyArrowPatch

    for name, value, low in (("n_visible", n_visible, 1), ("n_hidden", n_hidden, 0)):
        if isinstance(value, bool) or not isinstance(value, numbers.Integral):
            raise TypeError(f"{name} must be an integer, got {type(value).__name__}")
        if not low <= value <= 12:
            raise ValueError(f"{name} must be between {low} and 12 for a readable drawing, "
                             f"got {value}")
    if not isinstance(restricted, bool):
        raise TypeError(f"restricted must be True or False, got {type(restricted).__name__}")

    def row(count, y):
        x = np.arange(count) - (count - 1) / 2
        return np.column_stack([x, np.full(count, y)])

    vis, hid = row(n_visible, 0.0), row(n_hidden, 1.6)
    radius = 0.22
    line = {"color": GRAY, "lw": 1.2, "zorder": 1}
    between = within = 0
    for p in vis:
        for q in hid:
            ax.plot([p[0], q[0]], [p[1], q[1]], **line)
            between += 1
    if not restricted:
        for layer, bend in ((vis, 0.45), (hid, -0.45)):
            for i in range(len(layer)):
                for j in range(i + 1, len(layer)):
                    arc = FancyArrowPatch(
                        tuple(layer[i]), tuple(layer[j]), arrowstyle="-",
                        connectionstyle=f"arc3,rad={bend * (1 if j - i > 1 else 0.6)}",
                        shrinkA=0, shrinkB=0, **line,
                    )
                    ax.add_patch(arc)
                    within += 1
    for k, p in enumerate(vis):
        ax.add_patch(Circle(p, radius, facecolor=NAVY, edgecolor=NAVY, lw=1.5, zorder=3))
        if unit_labels:
            ax.text(*p, f"$v_{{{k + 1}}}$", color="white", ha="center", va="center",
                    fontsize=9, zorder=4)
    for k, q in enumerate(hid):
        ax.add_patch(Circle(q, radius, facecolor="white", edgecolor=ORANGE, lw=2.0, zorder=3))
        if unit_labels:
            ax.text(*q, f"$h_{{{k + 1}}}$", color=ORANGE, ha="center", va="center",
                    fontsize=9, zorder=4)
    width = max(n_visible, n_hidden, 1)
    ax.set_xlim(-width / 2 - 0.2, width / 2 + 0.2)
    ax.set_ylim(-1.0, 2.6)
    ax.set_aspect("equal")
    ax.axis("off")
    ax.text(-width / 2 - 0.1, 0.0, "visible", color=NAVY, ha="right", va="center", fontsize=9)
    if n_hidden:
        ax.text(-width / 2 - 0.1, 1.6, "hidden", color=ORANGE, ha="right", va="center",
                fontsize=9)
    if title is None:
        title = "restricted: between layers only" if restricted else "general: couplings everywhere"
    ax.set_title(title)
    return {"visible": vis, "hidden": hid, "between": between, "within": within}
