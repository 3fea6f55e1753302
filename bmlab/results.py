"""Recorded results: experiments too slow to run live, stamped with the code that made them.

A script in ``benchmarks/`` runs the experiment and calls :func:`save_results`; the file
records the parameters, the date, the machine and a SHA-256 of the source files the result
depends on. Notebooks call :func:`load_results` and label the plot as recorded. The test
suite recomputes every stamp, so a change to the code makes the stale result fail until the
script is re-run (``make figures``).
"""

from __future__ import annotations

import datetime as _dt
import hashlib
import json
import os
import platform
from pathlib import Path

PACKAGE_DIR = Path(__file__).resolve().parent


def results_dir() -> Path:
    """``benchmarks/results`` of the repository (``$BMLAB_RESULTS`` overrides)."""
    env = os.environ.get("BMLAB_RESULTS")
    if env:
        return Path(env)
    for base in (Path.cwd(), Path.cwd().parent, PACKAGE_DIR.parent):
        candidate = base / "benchmarks" / "results"
        if candidate.is_dir():
            return candidate
    return PACKAGE_DIR.parent / "benchmarks" / "results"


def code_hash(paths) -> str:
    """SHA-256 over the contents of the given source files (order-independent names).

    Parameters
    ----------
    paths : iterable of str or Path
        Files relative to the repository root (e.g. ``"bmlab/exact.py"``) or absolute.
    """
    root = PACKAGE_DIR.parent
    digest = hashlib.sha256()
    for rel in sorted(str(p) for p in paths):
        path = Path(rel) if Path(rel).is_absolute() else root / rel
        digest.update(rel.encode())
        digest.update(path.read_bytes().replace(b"\r\n", b"\n"))
    return digest.hexdigest()


def save_results(name: str, data: dict, *, params: dict, sources) -> Path:
    """Write ``benchmarks/results/<name>.json`` stamped with :func:`code_hash` of ``sources``."""
    sources = sorted(str(s) for s in sources)
    record = {
        "name": name,
        "recorded": _dt.date.today().isoformat(),
        "machine": (
            f"{platform.machine()}, {os.cpu_count()} cores, "
            f"Python {platform.python_version()}"
        ),
        "sources": sources,
        "code_hash": code_hash(sources),
        "params": params,
        "data": data,
    }
    out = results_dir()
    out.mkdir(parents=True, exist_ok=True)
    path = out / f"{name}.json"
    path.write_text(json.dumps(record, indent=1, sort_keys=True) + "\n")
    return path


def load_results(name: str) -> dict:
    """Read a recorded result written by :func:`save_results`."""
    path = results_dir() / f"{name}.json"
    if not path.exists():
        raise FileNotFoundError(f"no recorded result {name!r} at {path}; run `make figures`")
    return json.loads(path.read_text())


def is_stale(record: dict) -> bool:
    """True when the sources a recorded result depends on have changed since it was made."""
    return code_hash(record["sources"]) != record["code_hash"]
