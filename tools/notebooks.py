"""``python -m tools execute``: re-run notebooks in place with clean, reproducible outputs.

No timing metadata, inline matplotlib, progress bars off (bmlab's default), no stored output
of cells tagged ``solution``, a cell's consecutive prints stored as one stream (a busy kernel
flushes them in pieces at random moments); ``BMLAB_SAVE_FIGURES=1`` so that lecture figures
are written into ``figures/`` (the one command meant to write them). nbconvert runs as
``python -m nbconvert`` from the repository root, so that it can import the kernel client
:class:`tools.kernel_client.SlicedKernelClient`; the kernel itself starts in the notebook's
folder and sees neither.

Headings get stable cell ids (:func:`heading_ids`): a link into another notebook is written
``other.ipynb#cell-id=Exercise-1``, because JupyterLab 4 (in its default windowing mode) scrolls
a notebook it opens from a link to a cell id, but looks for a heading anchor (``#Exercise-1``)
before the notebook's Markdown is rendered, finds none and stays at the top. nbconvert's pages
carry the same ids.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

from .kernel_client import CLIENT

ROOT = Path(__file__).resolve().parent.parent


def nbconvert_command(path: str) -> list[str]:
    """The nbconvert call that executes one notebook in place."""
    return [
        sys.executable,
        "-m",
        "nbconvert",
        "--to",
        "notebook",
        "--execute",
        "--inplace",
        "--NotebookClient.record_timing=False",
        "--ExecutePreprocessor.timeout=180",
        "--ExecutePreprocessor.kernel_name=python3",
        f"--KernelManager.client_class={CLIENT}",
        "--ClearMetadataPreprocessor.enabled=True",
        "--ClearMetadataPreprocessor.preserve_nb_metadata_mask="
        "('jupytext','kernelspec','language_info')",
        "--ClearMetadataPreprocessor.preserve_cell_metadata_mask=('tags','jupyter','collapsed')",
        path,
    ]


def execute(paths: list[str]) -> None:
    """Execute notebooks in place (and regenerate the figures they save)."""
    env = dict(os.environ, PYTHONHASHSEED="0")
    env.setdefault("BMLAB_SAVE_FIGURES", "1")
    env.pop("MPLBACKEND", None)
    for path in paths:
        print(f"executing {path}", flush=True)
        subprocess.run(nbconvert_command(path), check=True, env=env, cwd=ROOT)
        nb = json.loads(Path(path).read_text())
        for cell in (c for c in nb["cells"] if c["cell_type"] == "code"):
            if "solution" in cell["metadata"].get("tags", ()):
                cell["outputs"] = []  # a solution's output waits for the student
            cell["outputs"] = coalesce_streams(cell["outputs"])
        write(Path(path), heading_ids(nb))


def write(path: Path, nb: dict) -> None:
    """Write a notebook as nbconvert does (sorted keys, one-space indent, UTF-8)."""
    path.write_text(json.dumps(nb, sort_keys=True, indent=1, ensure_ascii=False) + "\n")


def heading_ids(nb: dict) -> dict:
    """``nb`` with each Markdown cell that starts with a heading given the heading's anchor as
    its cell id (``## Exercise 1`` -> ``Exercise-1``), where the anchor is a valid cell id
    (letters, digits, ``-``, ``_``) that no other cell has."""
    taken = {cell.get("id") for cell in nb["cells"]}
    for cell in nb["cells"]:
        first = "".join(cell["source"]).lstrip().split("\n", 1)[0]
        heading = re.fullmatch(r"#+\s+(.+?)\s*", first) if cell["cell_type"] == "markdown" else None
        anchor = heading and heading[1].replace(" ", "-")
        if anchor and re.fullmatch(r"[\w-]{1,64}", anchor, re.ASCII) and anchor not in taken:
            taken.add(anchor)
            cell["id"] = anchor
    return nb


def coalesce_streams(outputs: list[dict]) -> list[dict]:
    """Outputs with each run of consecutive stream outputs of one name merged into one."""
    merged = []
    for out in outputs:
        last = merged[-1] if merged else {}
        if (
            out["output_type"] == "stream"
            and last.get("output_type") == "stream"
            and out["name"] == last["name"]
        ):
            text = "".join(last["text"]) + "".join(out["text"])
            last["text"] = text.splitlines(keepends=True)
        else:
            merged.append(out)
    return merged
