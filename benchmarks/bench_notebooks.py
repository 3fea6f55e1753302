"""Run All: the wall time of every notebook, executed top to bottom in a fresh kernel.

Each notebook (``notebooks/*.ipynb`` and the worked solutions in ``notebooks/solutions/``)
is read as committed and executed cell by cell with nbclient in a new kernel, in memory:
nothing is written, and ``BMLAB_SAVE_FIGURES`` is off. The time is that of Run All, from
the first cell's request to the last cell's reply (the kernel's start, about a second, is
shown apart). Target: <= 15 s per notebook on 2 idle cores. Times are measured in this one
run on this machine, whatever else it is doing (the load average is printed). The exit
status is non-zero only if a notebook raised, never for a missed target.

    .venv/bin/python benchmarks/bench_notebooks.py [NOTEBOOK.ipynb ...]
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import nbformat
from nbclient import NotebookClient
from nbclient.exceptions import CellExecutionError

ROOT = Path(__file__).resolve().parent.parent
TARGET = 15.0  # seconds of Run All on 2 idle cores


def run_all(path: Path) -> dict:
    """Kernel start, Run All and the slowest cell of one notebook, in seconds."""
    nb = nbformat.read(path, as_version=4)
    client = NotebookClient(
        nb,
        timeout=600,
        kernel_name="python3",
        resources={"metadata": {"path": str(path.parent)}},
    )
    start = time.perf_counter()
    with client.setup_kernel(stderr=subprocess.DEVNULL):  # no kernel start-up warnings
        ready = time.perf_counter()
        cells = []
        try:
            for index, cell in enumerate(nb.cells):
                begin = time.perf_counter()
                client.execute_cell(cell, index)
                cells.append((time.perf_counter() - begin, index + 1))
            error = None
        except CellExecutionError as exc:
            error = f"cell {index + 1} raised: {str(exc).splitlines()[-1][:80]}"
        done = time.perf_counter()
    return {
        "kernel": ready - start,
        "run_all": done - ready,
        "slowest": max(cells, default=(0.0, 0)),
        "error": error,
    }


def main(argv: list[str]) -> int:
    os.environ["BMLAB_SAVE_FIGURES"] = "0"
    os.environ.pop("MPLBACKEND", None)  # the inline backend, as in a notebook
    paths = [Path(p).resolve() for p in argv] or (
        sorted((ROOT / "notebooks").glob("*.ipynb"))
        + sorted((ROOT / "notebooks" / "solutions").glob("*.ipynb"))
    )
    load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    print(
        f"Run All in a fresh kernel (nbclient), one run each; {os.cpu_count()} cores, load {load}"
    )
    header = f"{'notebook':44s} {'Run All':>8s} {'kernel':>7s}  {'slowest cell':>17s}"
    print(f"{header}  target <= {TARGET:g} s")
    failed = 0
    for path in paths:
        result = run_all(path)
        seconds, cell = result["slowest"]
        verdict = "met" if result["run_all"] <= TARGET else "MISSED"
        if result["error"]:
            failed += 1
            verdict = result["error"]
        name = str(path.relative_to(ROOT / "notebooks")).removesuffix(".ipynb")
        print(
            f"{name:44s} {result['run_all']:7.1f}s {result['kernel']:6.1f}s  "
            f"{f'cell {cell}: {seconds:.1f} s':>17s}  {verdict}",
            flush=True,
        )
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
