"""``python -m tools execute|sync``: notebook pairs written as jupytext writes them, executed
in place with clean, reproducible outputs.

``sync`` makes each pair exactly what jupytext writes: the inputs of the ``.py`` (what authors
edit) with the outputs the ``.ipynb`` holds, both files rewritten (the ``.ipynb`` as nbformat
writes it, the ``.py`` as jupytext writes it from the ``.ipynb``). A course copy then opens
whatever its file times (jupytext refuses a pair whose newer ``.ipynb`` differs from its
``.py``). Running it twice changes nothing. ``execute`` syncs first and rewrites the ``.py``
after running.

No timing metadata, inline matplotlib, progress bars off (bmlab's default), no stored output
of cells tagged ``solution``, a cell's consecutive prints stored as one stream (a busy kernel
flushes them in pieces at random moments); ``BMLAB_SAVE_FIGURES=1`` so that lecture figures
are written into ``figures/`` (the one command meant to write them). nbconvert runs as
``python -m nbconvert`` from the repository root, so that it can import the kernel client
:class:`tools.kernel_client.SlicedKernelClient`; the kernel itself starts in the notebook's
folder and sees neither.
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
#: Every jupytext pair of the repository: the notebooks and their worked solutions.
PAIRS = ("notebooks/*.ipynb", "notebooks/solutions/*.ipynb")
FORMAT = "py:percent"
#: The cell metadata a committed notebook keeps: tags, and the blank lines jupytext keeps.
CELL_METADATA = (
    "tags",
    "jupyter",
    "collapsed",
    "lines_to_next_cell",
    "lines_to_end_of_cell_marker",
)


def pairs() -> list[Path]:
    """The ``.ipynb`` of every jupytext pair, in file order."""
    found = (path for pattern in PAIRS for path in ROOT.glob(pattern))
    return sorted(path for path in found if path.with_suffix(".py").exists())


def pair_texts(ipynb: Path) -> tuple[str, str]:
    """What the ``.ipynb`` and ``.py`` of a pair must hold: the ``.py``'s inputs (or the
    ``.ipynb``'s, without a ``.py``) with the ``.ipynb``'s outputs, written as nbformat and
    jupytext write them."""
    import jupytext
    import nbformat
    from jupytext.combine import combine_inputs_with_outputs

    py = ipynb.with_suffix(".py")
    nb = nbformat.read(ipynb, as_version=4) if ipynb.exists() else jupytext.read(py)
    if py.exists():
        nb = combine_inputs_with_outputs(jupytext.read(py), nb, fmt=FORMAT)
    for cell in nb.cells:
        cell.metadata = {k: v for k, v in cell.metadata.items() if k in CELL_METADATA}
    heading_ids(nb)
    return nbformat.writes(nb) + "\n", jupytext.writes(nb, fmt=FORMAT)


def heading_ids(nb) -> None:
    """Give each Markdown cell that starts with a heading the heading's anchor as its cell id
    (``## Exercise 1`` -> ``Exercise-1``), where the anchor is a valid cell id (letters,
    digits, ``-``, ``_``) that no other cell has: a link ``NN_solutions.ipynb#cell-id=Exercise-1``
    then opens JupyterLab at that cell (a plain ``#Exercise-1`` is looked up before the
    Markdown has rendered, and JupyterLab stays at the top)."""
    taken = {cell.get("id") for cell in nb["cells"]}
    for cell in nb["cells"]:
        first = "".join(cell["source"]).lstrip().split("\n", 1)[0]
        heading = re.fullmatch(r"#+\s+(.+?)\s*", first) if cell["cell_type"] == "markdown" else None
        anchor = heading and heading[1].replace(" ", "-")
        if anchor and re.fullmatch(r"[\w-]{1,64}", anchor, re.ASCII) and anchor not in taken:
            taken.add(anchor)
            cell["id"] = anchor


def sync(paths: list[Path]) -> list[str]:
    """Rewrite each pair (given by its ``.ipynb`` or ``.py``) as :func:`pair_texts` says; one
    line per pair that changed, naming code cells whose stored outputs no longer match."""
    report = []
    for path in paths:
        ipynb = Path(path).resolve().with_suffix(".ipynb")
        py = ipynb.with_suffix(".py")
        if not py.exists():
            continue  # not a pair
        old = json.loads(ipynb.read_text()) if ipynb.exists() else {"cells": []}
        nb_text, py_text = pair_texts(ipynb)
        if ipynb.exists() and (nb_text, py_text) == (ipynb.read_text(), py.read_text()):
            continue
        ipynb.write_text(nb_text)
        py.write_text(py_text)
        ran = {"".join(c["source"]) for c in old["cells"] if c.get("execution_count")}
        stale = sum(
            c["cell_type"] == "code" and "".join(c["source"]) not in ran
            for c in json.loads(nb_text)["cells"]
        )
        note = f"; {stale} code cell(s) changed: execute it" if stale else ""
        report.append(f"rewrote {ipynb.name} and {py.name}{note}")
    return report


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
        sync([Path(path)])  # the inputs of the .py, if the notebook is paired
        subprocess.run(nbconvert_command(path), check=True, env=env, cwd=ROOT)
        nb = json.loads(Path(path).read_text())
        for cell in (c for c in nb["cells"] if c["cell_type"] == "code"):
            if "solution" in cell["metadata"].get("tags", ()):
                cell["outputs"] = []  # a solution's output waits for the student
            cell["outputs"] = coalesce_streams(cell["outputs"])
        Path(path).write_text(json.dumps(nb, sort_keys=True, indent=1, ensure_ascii=False) + "\n")
        sync([Path(path)])  # the .py as jupytext writes it from the executed notebook


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
