"""Maintenance commands: ``python -m bmlab.tools execute|env-yml|answer-hash``.

``execute`` re-runs notebooks in place reproducibly (no timing metadata, progress bars off,
inline matplotlib, no stored output of cells tagged ``solution``) and lets them write
``figures/`` (``BMLAB_SAVE_FIGURES=1``). ``env-yml`` writes environment.yml from
requirements.lock, so conda, Binder, make and CI share one set of pins.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LOCK = ROOT / "requirements.lock"
_PIN = re.compile(r"^([A-Za-z0-9_.\-]+)==([^\s;#]+)")


def read_lock(path: Path = LOCK) -> dict[str, str]:
    """Package name (lower case) -> pinned version, from a pip-compile style lock file."""
    pins = {}
    for line in path.read_text().splitlines():
        match = _PIN.match(line.strip())
        if match:
            pins[match.group(1).lower()] = match.group(2)
    return pins


def environment_yml(pins: dict[str, str]) -> str:
    """Text of environment.yml: Python and pip from conda, every locked package via pip."""
    lines = [
        "# Generated from requirements.lock by `make lock` -- do not edit by hand.",
        "# Binder and conda/mamba users: the same pins as `make lab` and CI.",
        "name: bmlab",
        "channels:",
        "  - conda-forge",
        "dependencies:",
        "  - python=3.11",
        "  - pip",
        "  - pip:",
    ]
    lines += [f"      - {name}=={version}" for name, version in sorted(pins.items())]
    return "\n".join(lines) + "\n"


def execute(paths: list[str]) -> None:
    """Execute notebooks in place with clean, reproducible outputs (and regenerate figures)."""
    env = dict(os.environ, PYTHONHASHSEED="0")
    env.setdefault("BMLAB_SAVE_FIGURES", "1")  # the one command that is meant to write figures/
    env.pop("MPLBACKEND", None)
    for path in paths:
        print(f"executing {path}", flush=True)
        subprocess.run(
            [
                sys.executable, "-m", "jupyter", "nbconvert", "--to", "notebook", "--execute",
                "--inplace", "--NotebookClient.record_timing=False",
                "--ExecutePreprocessor.timeout=180",
                "--ExecutePreprocessor.kernel_name=python3",
                "--ClearMetadataPreprocessor.enabled=True",
                "--ClearMetadataPreprocessor.preserve_nb_metadata_mask="
                "('jupytext','kernelspec','language_info')",
                "--ClearMetadataPreprocessor.preserve_cell_metadata_mask="
                "('tags','jupyter','collapsed')",
                path,
            ],
            check=True,
            env=env,
            cwd=Path(path).resolve().parent,
        )
        nb = json.loads(Path(path).read_text())  # a solution's output waits for the student
        for cell in (c for c in nb["cells"] if "solution" in c["metadata"].get("tags", ())):
            cell["outputs"] = []
        Path(path).write_text(json.dumps(nb, sort_keys=True, indent=1, ensure_ascii=False) + "\n")


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bmlab.tools")
    sub = parser.add_subparsers(dest="command", required=True)
    ex = sub.add_parser("execute", help="re-execute notebooks in place")
    ex.add_argument("paths", nargs="+")
    sub.add_parser("env-yml", help="print environment.yml generated from requirements.lock")
    ah = sub.add_parser("answer-hash", help="print an exercise answer's hash for exercises.json")
    for name, kind in (("exercise_id", str), ("answer", float), ("decimals", int)):
        ah.add_argument(name, type=kind)
    args = parser.parse_args(argv)
    if args.command == "execute":
        execute([str(Path(p).resolve()) for p in args.paths])
    elif args.command == "answer-hash":
        from .exercises import answer_hash
        print(answer_hash(args.exercise_id, args.answer, args.decimals))
    else:
        sys.stdout.write(environment_yml(read_lock()))


if __name__ == "__main__":
    main()
