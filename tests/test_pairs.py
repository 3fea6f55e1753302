"""Jupytext pairs open from any copy: both files are exactly what jupytext writes.

jupytext's contents manager (JupyterLab with jupytext installed, as in a course's image)
refuses to open a pair whose ``.ipynb`` is newer than its ``.py`` when the two differ in their
inputs (HTTP 400 "... is more recent than ..."); copies, unzips and pulls set file times
freely. So each ``.py`` is byte for byte what jupytext writes from its ``.ipynb``, the
``.ipynb`` is what nbformat writes, and ``python -m tools sync`` would change neither. The last
test opens every pair through jupytext's contents manager with the ``.ipynb`` an hour newer.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import time

import jupytext
import nbformat
import pytest

from tools.notebooks import FORMAT, pair_texts, pairs

PAIRS = pairs()
FIX = "run `.venv/bin/python -m tools sync` and commit both files"


def test_every_notebook_is_a_pair():
    assert len(PAIRS) >= 14
    assert all(p.with_suffix(".py").exists() for p in PAIRS)


@pytest.mark.parametrize("ipynb", PAIRS, ids=lambda p: p.stem)
def test_the_py_is_what_jupytext_writes_from_the_ipynb(ipynb):
    py = ipynb.with_suffix(".py")
    assert py.read_text() == jupytext.writes(jupytext.read(ipynb), fmt=FORMAT), f"{py.name}: {FIX}"


@pytest.mark.parametrize("ipynb", PAIRS, ids=lambda p: p.stem)
def test_the_ipynb_is_what_nbformat_writes_and_sync_changes_nothing(ipynb):
    text = ipynb.read_text()
    assert text == nbformat.writes(nbformat.read(ipynb, as_version=4)) + "\n", ipynb.name
    assert pair_texts(ipynb) == (text, ipynb.with_suffix(".py").read_text()), f"{FIX}"


def test_sync_is_idempotent_and_takes_the_inputs_from_the_py(tmp_path):
    """An edited ``.py`` reaches the ``.ipynb``; the outputs of unchanged cells stay; a second
    sync changes nothing."""
    from tools.notebooks import sync

    source = PAIRS[0]
    ipynb = shutil.copy(source, tmp_path / source.name)
    py = tmp_path / source.with_suffix(".py").name
    edited = source.with_suffix(".py").read_text() + "\n# %%\nprint('new cell')\n"
    py.write_text(edited)
    outputs_before = sum(len(c.get("outputs", [])) for c in nbformat.read(ipynb, 4).cells)
    report = sync([ipynb])
    assert len(report) == 1 and "1 code cell(s) changed" in report[0], report
    nb = nbformat.read(ipynb, as_version=4)
    assert nb.cells[-1].source == "print('new cell')"
    assert sum(len(c.get("outputs", [])) for c in nb.cells) == outputs_before
    assert py.read_text() == jupytext.writes(nb, fmt=FORMAT)
    texts = ipynb.read_text(), py.read_text()
    assert sync([ipynb]) == [] and (ipynb.read_text(), py.read_text()) == texts


def test_every_pair_opens_with_the_ipynb_newer_than_the_py(tmp_path):
    """What JupyterLab does on opening a notebook of a course copy whose ``.ipynb`` is newer."""
    from jupytext import AsyncTextFileContentsManager

    for ipynb in PAIRS:
        for path in (ipynb, ipynb.with_suffix(".py")):
            shutil.copy(path, tmp_path / path.name)
        later = time.time() + 3600
        os.utime(tmp_path / ipynb.name, (later, later))
    manager = AsyncTextFileContentsManager(root_dir=str(tmp_path))

    async def open_all():
        return [await manager.get(ipynb.name, content=True) for ipynb in PAIRS]

    models = asyncio.run(open_all())  # raises HTTPError 400 if a pair's inputs differ
    assert [m["name"] for m in models] == [p.name for p in PAIRS]
    for model, ipynb in zip(models, PAIRS, strict=True):
        code = [c for c in model["content"]["cells"] if c["cell_type"] == "code"]
        assert any(c["outputs"] for c in code), f"{ipynb.name} opened without its outputs"
