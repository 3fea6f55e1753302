"""Progress bars that show for people and stay silent in tests and recorded outputs."""

from __future__ import annotations

import os

from tqdm.auto import tqdm


def progress_enabled() -> bool:
    """False when ``BMLAB_PROGRESS=0`` (set by ``make test`` and ``make notebooks``)."""
    return os.environ.get("BMLAB_PROGRESS", "1") != "0"


def progress(iterable, *, total: int | None = None, desc: str | None = None, leave=False):
    """Wrap ``iterable`` in a tqdm bar unless progress bars are switched off.

    Parameters
    ----------
    iterable : iterable
    total : int, optional
    desc : str, optional
    leave : bool
        Keep the finished bar on screen.
    """
    if not progress_enabled():
        return iterable
    return tqdm(iterable, total=total, desc=desc, leave=leave)
