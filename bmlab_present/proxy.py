"""jupyter-server-proxy entry point: a "bmlab dashboards" tile in a JupyterHub's launcher.

jupyter-server-proxy (when installed in the single-user image) finds :func:`server` through
the ``jupyter_serverproxy_servers`` entry point of this distribution, starts
``python -m bmlab_present`` on a free port when the tile is opened, and forwards
``<prefix>/bmlab-dashboards/`` to it with that prefix removed. The presenter is told the prefix
as its base URL, so its pages ask for their assets, kernels and dashboards under it.
"""

from __future__ import annotations

import sys
from pathlib import Path

#: The path under a user's server at which the dashboards appear.
NAME = "bmlab-dashboards"


def server() -> dict:
    """The jupyter-server-proxy description of the presenter."""
    return {
        "command": [
            sys.executable,
            "-m",
            "bmlab_present",
            "--port={port}",
            "--base-url={base_url}" + NAME + "/",
            "--server-url=/",
        ],
        "timeout": 60,
        "absolute_url": False,
        "launcher_entry": {
            "title": "bmlab dashboards",
            "icon_path": str(Path(__file__).parent / "templates" / "icon.svg"),
        },
    }
