"""One plotting style for the whole companion.

The palette follows the lecture's figures: navy for exact answers and the model, orange for
samples and estimates, gray for references and annotations. :func:`use_style` sets
matplotlib defaults for reading on a screen or, with ``mode="projector"``, for a lecture hall
(larger fonts, thicker lines). :func:`save_figure` writes PNG and SVG files that are
byte-identical when a notebook is re-run, so regenerating figures never dirties git.
"""

from __future__ import annotations

import itertools
import os
from pathlib import Path

import matplotlib as mpl
import numpy as np
from cycler import cycler

from .exact import all_states

NAVY = "#1f3b73"
ORANGE = "#e8862a"
GRAY = "#7f7f7f"
#: Extra colours for plots with more than three series (muted, colour-blind friendly).
EXTRA = ("#4c9a6a", "#b04a5a", "#8a6fb3", "#3f9bbf")
PALETTE = (NAVY, ORANGE, GRAY, *EXTRA)
#: Smallest legend font (points) of a saved figure.
_MIN_LEGEND_PT = 12.0

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
        "figure.dpi": 150,  # dashboards: live figures sharp at a projector's full width
    },
}


def use_style(mode: str = "screen") -> None:
    """Apply the companion's matplotlib style; in IPython, figures show with alt text.

    Parameters
    ----------
    mode : {"screen", "projector"}
        ``"projector"`` enlarges fonts and lines for a lecture hall. The environment
        variable ``BMLAB_STYLE`` overrides the default mode (e.g. ``BMLAB_STYLE=projector``).
    """
    mode = os.environ.get("BMLAB_STYLE", mode)
    if mode not in _MODES:
        raise ValueError(f"mode must be 'screen' or 'projector', got {mode!r}")
    # what one mode sets and another does not goes back to matplotlib's default
    defaults = {key: mpl.rcParamsDefault[key] for m in _MODES.values() for key in m}
    mpl.rcParams.update(defaults | _BASE | _MODES[mode])
    from .panel import describe_figures  # imported here: bmlab.panel imports this module

    describe_figures()


def state_labels(n: int) -> list[str]:
    """Labels ``"+−+"`` of the 2**n ±1 states in :func:`bmlab.all_states` order, spin 1
    first, for tick labels and tables (``−`` is the minus sign U+2212)."""
    return ["".join("+" if x > 0 else "\u2212" for x in row) for row in all_states(n)]


def mosaic(images, n_cols: int, fill: float = 0.0) -> np.ndarray:
    """Tile images into one array for ``imshow`` (display only; notebook 05, the RBM panels).

    Parameters
    ----------
    images : array_like, shape (m, h, w)
    n_cols : int
        Images per row; a short last row is completed with blank images.
    fill : float
        Value of the one-pixel separators around every image, and of blanks.

    Returns
    -------
    ndarray, shape (1 + ceil(m / n_cols) * (h + 1), 1 + n_cols * (w + 1))
        Image ``k`` has its top left pixel at ``(1 + r * (h + 1), 1 + c * (w + 1))`` with
        ``r, c = divmod(k, n_cols)``.
    """
    images = np.asarray(images, dtype=float)
    m, h, w = images.shape
    n_rows = -(-m // n_cols)
    tiles = np.full((n_rows * n_cols, h + 1, w + 1), float(fill))
    tiles[:m, 1:, 1:] = images
    tiled = tiles.reshape(n_rows, n_cols, h + 1, w + 1).swapaxes(1, 2).reshape(n_rows * (h + 1), -1)
    return np.pad(tiled, ((0, 1), (0, 1)), constant_values=fill)


def figures_dir() -> Path:
    """Directory that regenerated figures are written to.

    ``$BMLAB_FIGURES`` if set; otherwise the ``figures/`` folder of the repository when run
    from the repository or its ``notebooks/`` folder; otherwise ``./figures``.
    """
    if env := os.environ.get("BMLAB_FIGURES"):
        return Path(env)
    cwd = Path.cwd()
    for candidate in (cwd / "figures", cwd.parent / "figures"):
        if candidate.is_dir():
            return candidate
    return cwd / "figures"


def save_figure(fig, name: str, formats=("png", "svg")) -> list[Path]:
    """Save ``fig`` deterministically as ``figures/<name>.<fmt>`` -- only when asked.

    Legend texts smaller than 12 pt are enlarged to it first (whether or not
    files are written), so that saved figures stay readable on a projector.
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
    for legend in [*fig.legends, *(ax.get_legend() for ax in fig.axes)]:
        for text in [] if legend is None else [*legend.get_texts(), legend.get_title()]:
            text.set_fontsize(max(text.get_fontsize(), _MIN_LEGEND_PT))
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
    ax, n_visible: int, n_hidden: int, *, restricted: bool = False, title: str | None = None
) -> dict:
    """Draw a Boltzmann machine as a graph (the two panels of Figure 5.4, notebook 04).

    Visible units (navy, filled) on the bottom row, hidden units (orange, open) on top;
    couplings are gray lines, those within a layer arcs (only when ``restricted`` is False).

    Returns
    -------
    dict
        ``"visible"``, ``"hidden"``: unit positions, shapes (n_visible, 2), (n_hidden, 2);
        ``"between"``, ``"within"``: numbers of couplings drawn.
    """
    from matplotlib.patches import Circle, FancyArrowPatch

    def row(count, y):
        return np.column_stack([np.arange(count) - (count - 1) / 2, np.full(count, y)])

    vis = row(n_visible, 0.0)
    hid = row(n_hidden, 1.6)
    line = {"color": GRAY, "lw": 1.2, "zorder": 1}
    n_lines = len(ax.lines)
    for p in vis:
        for q in hid:
            ax.plot([p[0], q[0]], [p[1], q[1]], **line)
    between = len(ax.lines) - n_lines
    arc = {"arrowstyle": "-", "shrinkA": 0, "shrinkB": 0, **line}
    layers = [] if restricted else [(vis, 0.45), (hid, -0.45)]  # couplings within a layer
    pairs = [
        (layer[i], layer[j], bend * (1 if j - i > 1 else 0.6))
        for layer, bend in layers
        for i, j in itertools.combinations(range(len(layer)), 2)
    ]
    for p, q, rad in pairs:
        ax.add_patch(FancyArrowPatch(tuple(p), tuple(q), connectionstyle=f"arc3,rad={rad}", **arc))
    centred = {"ha": "center", "va": "center", "fontsize": "small", "zorder": 4}
    for units, name, face, edge, color in (
        (vis, "v", NAVY, NAVY, "white"),
        (hid, "h", "white", ORANGE, ORANGE),
    ):
        for k, p in enumerate(units):
            ax.add_patch(Circle(p, 0.22, facecolor=face, edgecolor=edge, lw=2.0, zorder=3))
            ax.text(*p, f"${name}_{{{k + 1}}}$", color=color, **centred)
    width = max(n_visible, n_hidden, 1)
    ax.set_xlim(-width / 2 - 0.2, width / 2 + 0.2)
    ax.set_ylim(-1.0, 2.6)
    ax.set_aspect("equal")
    ax.axis("off")
    for y, label, color in ((0.0, "visible", NAVY), (1.6, "hidden", ORANGE))[: 1 + (n_hidden > 0)]:
        ax.text(-width / 2 - 0.1, y, label, color=color, ha="right", va="center", fontsize="small")
    ax.set_title(
        title
        or ("restricted: between layers only" if restricted else "general: couplings everywhere")
    )
    return {"visible": vis, "hidden": hid, "between": between, "within": len(pairs)}
