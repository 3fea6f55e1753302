"""Recorded results: experiments too slow to run live, loaded wherever bmlab is installed.

A script in ``benchmarks/`` of the repository runs the experiment and writes
``bmlab/recorded/<name>.json`` (parameters, date, machine and a stamp of the code it used;
``benchmarks/recording.py``). The files ship inside the package as package data.
"""

from __future__ import annotations

import json
import os
from importlib import resources
from pathlib import Path


def load_results(name: str) -> dict:
    """Read a recorded result (package data ``bmlab/recorded/<name>.json``).

    ``$BMLAB_RESULTS`` names another folder to read from.
    """
    env = os.environ.get("BMLAB_RESULTS")
    base = Path(env) if env else resources.files("bmlab") / "recorded"
    path = base / f"{name}.json"
    if not path.is_file():
        raise FileNotFoundError(f"no recorded result {name!r} at {path}; run `make figures`")
    return json.loads(path.read_text(encoding="utf-8"))
