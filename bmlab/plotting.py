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
    """Save ``fig`` deterministically as ``figures/<name>.<fmt>``.

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
        The files written.
    """
    if not name or "/" in name or "\\" in name:
        raise ValueError(f"name must be a plain file stem, got {name!r}")
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
