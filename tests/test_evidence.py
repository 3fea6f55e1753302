"""Evidence beside what it supports: a section that draws what a Markov chain sampled shows
how far the chain is from its law (``notebook_sources.unshown_chains``)."""

from __future__ import annotations

import json

import notebook_sources as sources
import pytest


def notebook(tmp_path, *cells):
    """A notebook of ``(kind, source, printed)`` cells."""
    out = []
    for kind, source, printed in cells:
        cell = {"cell_type": kind, "metadata": {}, "source": source}
        if kind == "code":
            cell["outputs"] = [{"output_type": "stream", "name": "stdout", "text": printed}]
        out.append(cell)
    path = tmp_path / "x.ipynb"
    path.write_text(json.dumps({"cells": out}))
    return path


CHAIN_DRAWN = "S = model.sample(10, n_steps=1000, rng=rng)\nax.imshow(mosaic(S, 10))"


@pytest.mark.parametrize(
    ("cells", "flagged"),
    [
        ([("code", CHAIN_DRAWN, "")], True),
        ([("code", CHAIN_DRAWN, "TV distance of the chain to p: 0.46")], False),
        ([("code", CHAIN_DRAWN, ""), ("code", "print(tv)", "total variation 0.001")], False),
        ([("code", "S = bmlab.sample_exact(J, n_samples=10, rng=rng)\nax.hist(S)", "")], False),
        ([("code", "run = bmlab.glauber_run(J, n_sweeps=10, rng=rng)", "")], False),
        ([("code", "r = bmlab.glauber_run(J, rng=rng)\nax.bar(x, f(r))", "")], True),
        # the distance must be in the same section
        ([("code", CHAIN_DRAWN, ""), ("markdown", "## 2. Next", ""), ("code", "", "TV")], True),
    ],
)
def test_chain_samples_need_a_distance_beside_them(tmp_path, cells, flagged):
    found = sources.unshown_chains(notebook(tmp_path, *cells))
    assert bool(found) is flagged, found


def test_a_distance_in_an_ignored_output_does_not_count(tmp_path):
    path = notebook(tmp_path, ("code", CHAIN_DRAWN, "TV 0.001"))
    cells = json.loads(path.read_text())
    cells["cells"][0]["metadata"]["tags"] = ["nbval-ignore-output"]
    path.write_text(json.dumps(cells))
    assert sources.unshown_chains(path)


@pytest.mark.parametrize("path", sources.NOTEBOOKS, ids=lambda p: p.stem)
def test_chain_samples_in_the_notebooks_show_their_distance(path):
    found = sources.unshown_chains(path)
    assert not found, "\n".join(found)
