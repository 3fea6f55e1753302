"""Recorded results: the stamp changes exactly when the code of the listed sources changes
(``benchmarks/recording.py``), and ``bmlab.load_results`` reads them wherever bmlab is."""

from __future__ import annotations

import ast
import json
import shutil

import pytest

import bmlab
from benchmarks import recording


def test_save_load_and_staleness(tmp_path, monkeypatch):
    monkeypatch.setenv("BMLAB_RESULTS", str(tmp_path))
    source = tmp_path / "experiment.py"
    source.write_text("x = 1\n")
    path = recording.save_results("demo", {"y": [1, 2]}, params={"n": 3}, sources=[source])
    record = bmlab.load_results("demo")
    assert record["data"] == {"y": [1, 2]} and record["params"] == {"n": 3}
    assert json.loads(path.read_text())["code_hash"] == record["code_hash"]
    assert recording.code_hash(record["sources"]) == record["code_hash"]
    source.write_text("x = 2\n")
    assert recording.code_hash(record["sources"]) != record["code_hash"]


def test_hash_ignores_line_endings(tmp_path):
    a, b = tmp_path / "a.py", tmp_path / "b.py"
    a.write_bytes(b"x = 1\ny = 2\n")
    b.write_bytes(b"x = 1\r\ny = 2\r\n")
    assert recording.code_hash([a]) != recording.code_hash([b])  # names differ
    b.write_bytes(b"x = 1\ny = 2\n")
    ha = recording.code_hash([a])
    a.write_bytes(b"x = 1\r\ny = 2\r\n")
    assert recording.code_hash([a]) == ha


@pytest.fixture
def rbm_copy(tmp_path):
    """A copy of a real source file, its hash, and its text."""
    path = tmp_path / "rbm.py"
    shutil.copy(recording.ROOT / "bmlab" / "rbm.py", path)
    return path, recording.code_hash([path]), path.read_text()


def _docstring_nodes(text):
    scopes = (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)
    return [
        node.body[0]
        for node in ast.walk(ast.parse(text))
        if isinstance(node, scopes) and ast.get_docstring(node, clean=False) is not None
    ]


def test_docstring_edit_keeps_hash(rbm_copy):
    path, before, text = rbm_copy
    lines = text.splitlines(keepends=True)
    docs = sorted(_docstring_nodes(text), key=lambda node: node.lineno, reverse=True)
    assert len(docs) > 5
    for node in docs:  # every docstring reworded to one line (the code moves up)
        indent = " " * node.col_offset
        lines[node.lineno - 1 : node.end_lineno] = [f'{indent}"""Reworded: {node.lineno}."""\n']
    path.write_text("".join(lines))
    assert recording.code_hash([path]) == before


def test_comment_and_layout_edit_keeps_hash(rbm_copy):
    path, before, text = rbm_copy
    path.write_text("# a new comment\n\n" + text.replace("\n\n\n", "\n\n\n# spacer\n\n"))
    assert recording.code_hash([path]) == before


def test_code_edit_changes_hash(rbm_copy):
    path, before, text = rbm_copy
    ret = next(
        node
        for node in ast.walk(ast.parse(text))
        if isinstance(node, ast.Return) and node.value is not None
    )
    lines = text.splitlines(keepends=True)
    line = lines[ret.value.lineno - 1]
    col = len(line.encode()[: ret.value.col_offset].decode())
    lines[ret.value.lineno - 1] = line[:col] + "-" + line[col:]  # one token: return -x
    path.write_text("".join(lines))
    assert recording.code_hash([path]) != before


def test_non_python_sources_hash_as_bytes(tmp_path):
    path = tmp_path / "table.txt"
    path.write_text("# 1\n")
    before = recording.code_hash([path])
    path.write_text("# 2\n")
    assert recording.code_hash([path]) != before


def test_missing_result_says_how_to_make_it(tmp_path, monkeypatch):
    monkeypatch.setenv("BMLAB_RESULTS", str(tmp_path))
    with pytest.raises(FileNotFoundError, match="make figures"):
        bmlab.load_results("nothing")


def test_recorded_results_are_package_data(tmp_path, monkeypatch):
    """load_results reads the files shipped inside the package, whatever the working folder."""
    monkeypatch.delenv("BMLAB_RESULTS", raising=False)
    monkeypatch.chdir(tmp_path)
    names = sorted(p.stem for p in (recording.ROOT / "bmlab" / "recorded").glob("*.json"))
    assert names
    for name in names:
        assert bmlab.load_results(name)["name"] == name
