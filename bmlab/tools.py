"""Maintenance commands: ``python -m bmlab.tools execute|present|env-yml|answer-hash``.

``execute`` re-runs notebooks in place reproducibly (no timing metadata, progress bars off,
inline matplotlib, no stored output of cells tagged ``solution``; writes ``figures/``).
``present`` serves the Voila dashboards (``make present``). Both use ``SlicedKernelClient``.
``env-yml`` writes environment.yml from requirements.lock: one set of pins everywhere.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path
from queue import Empty

from jupyter_client.asynchronous.client import AsyncKernelClient
from jupyter_client.channels import AsyncZMQSocketChannel
from traitlets import Type

ROOT = Path(__file__).resolve().parent.parent
LOCK = ROOT / "requirements.lock"
_PIN = re.compile(r"^([A-Za-z0-9_.\-]+)==([^\s;#]+)")


class _SlicedChannel(AsyncZMQSocketChannel):
    async def get_msg(self, timeout: float | None = None) -> dict:
        end = None if timeout is None else time.monotonic() + timeout
        while True:
            left = 0.5 if end is None else min(0.5, end - time.monotonic())
            if await self.socket.poll(max(1, int(1000 * left))):
                return await self._recv()
            if end is not None and time.monotonic() >= end:
                raise Empty


class SlicedKernelClient(AsyncKernelClient):
    """Kernel client that waits for a message in 0.5 s slices, each ending in a real poll.

    nbclient waits for a cell's reply in one unbounded poll, whose wake-up pyzmq can miss on a
    busy machine: a Voila page then hangs at "Executing 1 of 2" (CONTRIBUTING, "Presentation
    mode"). Here a missed wake-up costs at most 0.5 s.
    """

    shell_channel_class = Type(_SlicedChannel)
    iopub_channel_class = Type(_SlicedChannel)


_CLIENT = "bmlab.tools.SlicedKernelClient"  # as Voila and nbconvert import it


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
    head = """# Generated from requirements.lock by `make lock` -- do not edit by hand.
# Binder and conda/mamba users: the same pins as `make lab` and CI.
name: bmlab
channels:
  - conda-forge
dependencies:
  - python=3.11
  - pip
  - pip:
"""
    return head + "".join(f"      - {name}=={version}\n" for name, version in sorted(pins.items()))


def execute(paths: list[str]) -> None:
    """Execute notebooks in place with clean, reproducible outputs (and regenerate figures)."""
    env = dict(os.environ, PYTHONHASHSEED="0")
    env.setdefault("BMLAB_SAVE_FIGURES", "1")  # the one command that is meant to write figures/
    env.pop("MPLBACKEND", None)
    for path in paths:
        print(f"executing {path}", flush=True)
        subprocess.run(
            [
                sys.executable,
                "-m",
                "jupyter",
                "nbconvert",
                "--to",
                "notebook",
                "--execute",
                "--inplace",
                "--NotebookClient.record_timing=False",
                "--ExecutePreprocessor.timeout=180",
                "--ExecutePreprocessor.kernel_name=python3",
                f"--KernelManager.client_class={_CLIENT}",
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
    pr = sub.add_parser("present", help="serve Voila dashboards on 127.0.0.1 (make present)")
    pr.add_argument("--port", type=int, default=8866)
    pr.add_argument("directory", nargs="?", default="dashboards")
    sub.add_parser("env-yml", help="print environment.yml generated from requirements.lock")
    ah = sub.add_parser("answer-hash", help="print an exercise answer's hash for exercises.json")
    for name, kind in (("exercise_id", str), ("answer", float), ("decimals", int)):
        ah.add_argument(name, type=kind)
    args = parser.parse_args(argv)
    if args.command == "execute":
        execute([str(Path(p).resolve()) for p in args.paths])
    elif args.command == "present":  # bmlab is imported here, not on the first page
        from voila.app import main as voila

        voila(
            [
                "--no-browser",
                "--Voila.ip=127.0.0.1",
                f"--port={args.port}",
                "--Voila.port_retries=0",
                f"--KernelManager.client_class={_CLIENT}",
                args.directory,
            ]
        )
    elif args.command == "answer-hash":
        from .exercises import answer_hash

        print(answer_hash(args.exercise_id, args.answer, args.decimals))
    else:
        sys.stdout.write(environment_yml(read_lock()))


if __name__ == "__main__":
    main()
