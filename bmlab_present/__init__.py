"""The lecture's dashboards for projection, installable: ``bmlab-present``.

Shipped in the same wheel as :mod:`bmlab` but kept apart from it: ``bmlab`` never imports
this package, and this package imports Voila only when a server starts (``pip install
"bmlab[lab]"``, or the course image's pins, bring Voila).

- :func:`dashboard_dir` is the folder of dashboards installed with the package (one notebook per
  lecture notebook, built from the registry ``bmlab.widgets.PANELS``) and its page style;
- ``bmlab-present`` (or ``python -m bmlab_present``) serves them with Voila, an index page that
  lists them by title, a base URL for serving behind a prefix, and the sliced kernel client
  (:mod:`bmlab_present.kernel_client`) that keeps a first page from hanging;
- :mod:`bmlab_present.proxy` gives a JupyterHub's launcher a "bmlab dashboards" tile through
  jupyter-server-proxy.
"""

from __future__ import annotations

from importlib.resources import files
from pathlib import Path

__all__ = ["dashboard_dir"]


def dashboard_dir() -> Path:
    """The folder of the installed dashboards (``*.ipynb`` and ``projector.css``)."""
    return Path(str(files("bmlab_present.dashboards")))
