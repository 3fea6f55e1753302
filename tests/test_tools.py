"""The repository's tools (``python -m tools``): outside the package, run from the root."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from bmlab.exercises import answer_hash
from tools import notebooks
from tools.kernel_client import CLIENT, SlicedKernelClient

ROOT = Path(__file__).resolve().parent.parent


def _tools(*args: str) -> str:
    """``python -m tools ARGS`` from the repository root, as the Makefile runs it."""
    result = subprocess.run(
        [sys.executable, "-m", "tools", *args], cwd=ROOT, capture_output=True, text=True
    )
    assert result.returncode == 0, result.stderr[-2000:]
    return result.stdout


def test_the_commands_run_from_the_repository_root():
    out = _tools("--help")
    for command in ("execute", "sync", "present", "site", "env-yml", "answer-hash"):
        assert command in out
    assert _tools("answer-hash", "99.1", "0.4567", "3").strip() == answer_hash("99.1", 0.4567, 3)
    assert _tools("env-yml") == (ROOT / "environment.yml").read_text()


def test_voila_and_nbconvert_are_given_the_sliced_client_by_its_import_path():
    module, name = CLIENT.rsplit(".", 1)
    assert getattr(sys.modules[module], name) is SlicedKernelClient
    command = notebooks.nbconvert_command("nb.ipynb")
    assert command[1:3] == ["-m", "nbconvert"]  # imports tools: run from the root (cwd)
    assert f"--KernelManager.client_class={CLIENT}" in command


def test_make_notebooks_asks_for_figures_and_stores_no_solution_output(monkeypatch, tmp_path):
    """``python -m tools execute`` (make notebooks / make figures) is what writes figures/."""
    monkeypatch.delenv("BMLAB_SAVE_FIGURES", raising=False)
    calls = []
    monkeypatch.setattr(notebooks.subprocess, "run", lambda cmd, **kw: calls.append(kw))
    nb = tmp_path / "nb.ipynb"
    solution = {
        "cell_type": "code",
        "metadata": {"tags": ["solution"]},
        "source": "x",
        "execution_count": 1,
        "outputs": [{"output_type": "stream", "name": "stdout", "text": "the answer\n"}],
    }
    nb.write_text(
        json.dumps({"cells": [solution], "metadata": {}, "nbformat": 4, "nbformat_minor": 5})
    )
    notebooks.execute([str(nb)])
    assert calls[0]["env"]["BMLAB_SAVE_FIGURES"] == "1" and calls[0]["cwd"] == ROOT
    assert json.loads(nb.read_text())["cells"][0]["outputs"] == []  # solutions wait


def test_consecutive_prints_are_stored_as_one_stream():
    """A busy kernel flushes one cell's prints in pieces; stored, they are one output."""
    out = [
        {"output_type": "stream", "name": "stdout", "text": ["P ="]},
        {"output_type": "stream", "name": "stdout", "text": [" 55 parameters\n", "ok\n"]},
        {"output_type": "display_data", "data": {}, "metadata": {}},
        {"output_type": "stream", "name": "stdout", "text": ["after\n"]},
        {"output_type": "stream", "name": "stderr", "text": ["warning\n"]},
    ]
    merged = notebooks.coalesce_streams(out)
    assert [o["output_type"] for o in merged] == ["stream", "display_data", "stream", "stream"]
    assert merged[0]["text"] == ["P = 55 parameters\n", "ok\n"]


def test_headings_get_their_anchors_as_cell_ids():
    """What a link ``other.ipynb#cell-id=Exercise-1`` needs (JupyterLab scrolls to a cell id
    of a notebook it opens; it ignores a heading anchor there)."""

    def markdown(source, id_):
        return {"cell_type": "markdown", "id": id_, "metadata": {}, "source": source}

    cells = [
        markdown("# 01 · Title, with · and commas", "a1"),
        markdown(["## Exercise 1\n", "text"], "a2"),
        markdown("Exercise 1 in prose", "a3"),
        markdown("## Exercise 1", "a4"),  # a second heading with the same anchor keeps its id
        {"cell_type": "code", "id": "a5", "metadata": {}, "source": "## Exercise 2",
         "execution_count": None, "outputs": []},
    ]  # fmt: skip
    nb = {"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
    notebooks.heading_ids(nb)  # python -m tools sync and execute apply it to every pair
    ids = [cell["id"] for cell in nb["cells"]]
    assert ids == ["a1", "Exercise-1", "a3", "a4", "a5"]
